"""Vectorised evaluation of Whoosh queries: the fast path of :meth:`SearchIndex.search`.

Whoosh's own searcher walks every posting of a query in Python (matcher objects, one
``score()`` call per posting); at 100,000 abstracts a common word takes a few hundred
milliseconds. This module reads the same postings, from the same Whoosh index, a whole
posting list at a time into numpy arrays, and scores, combines and ranks them with array
operations. It gives the same hits, in the same order, with the same scores (up to the
order in which floating-point sums are added) as ``whoosh.searching.Searcher.search``.

Scoring is Whoosh's BM25F exactly as ``whoosh.scoring.BM25F`` / ``BM25FScorer`` compute it
(Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009; the
per-field form Whoosh implements)::

    idf   = log(doc_count_all / (doc_frequency + 1)) + 1      # Searcher.idf, per field
    score = idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * fl / avgfl))

with K1 = 1.2 and B = 0.75 (the searcher's ``BM25F`` settings), ``tf`` the posting weight
(term frequency times the field boost, so a title word counts twice), ``fl`` the
document's field length as Whoosh stores it (one byte, ``byte_to_length``) and ``avgfl``
the field's average length (``Searcher.avg_field_length``). Fields that are not scorable
(``flags``, ``source``, ``source_id``) score their posting weight, as Whoosh's
``WeightScorer`` does. Compound queries add their parts' scores, as Whoosh's
``IntersectionMatcher``/``UnionMatcher`` do; a ``Not`` part matches with score 1.0 (Whoosh's
``InverseMatcher``).

Query shapes handled (anything else raises :class:`Unsupported` and the caller runs
Whoosh's normal search):

- ``Term`` on any indexed field (``tag:``, ``flags``, ``source_id`` included);
- ``And``, ``Or`` (no ``scale``/``minmatch``), ``AndNot``, ``Not``;
- ``Prefix``, ``Wildcard``, ``FuzzyTerm`` (expanded to their index words, as Whoosh's
  ``MultiTerm.matcher`` does, then an ``Or`` of terms);
- :class:`PaperMaskQuery` (papers chosen outside the index: a tag or a read/star state
  answered by SQLite), score 1.0 per match;
- ``Phrase`` (``slop`` 1) on the ``exact`` field: the documents with every word are
  intersected, then the word positions of those candidates are checked in ``exact``
  (rarest word first). Scores are Whoosh's: the sum of the words' BM25F scores in
  ``exact``.

Caching: everything about a segment that never changes (its paper ids, field lengths,
posting lists) is cached under the segment's id, so after a small write only the new
segment is read again; deletions are applied per searcher as a mask. Posting lists are
kept in an LRU cache of bounded size (:data:`POSTINGS_CACHE_BYTES`).
"""

from __future__ import annotations

import functools
import io
import threading
import zlib
from collections import OrderedDict
from itertools import chain, repeat

import numpy as np
from whoosh import query as wq
from whoosh.codec.base import Automata
from whoosh.reading import TermNotFound
from whoosh.scoring import BM25F
from whoosh.util.numeric import byte_to_length

from paperdesk.core import collector
from paperdesk.core.search import safe_pickle

__all__ = ["Unsupported", "FastCache", "FastView", "PID_FIELD", "PID_MISSING",
           "POSTINGS_CACHE_BYTES", "SPARSE_PATH", "SPARSE_SHARE", "PaperMaskQuery",
           "best_first", "best_first_head", "expand_words", "leaf_words", "mask_lookup"]

#: Column with each document's paper id (a signed 64-bit integer).
PID_FIELD = "pid"
#: Default of the paper id column: a document without one.
PID_MISSING = -1
#: Whether searches try :meth:`FastView.sparse` before the dense arrays (off: every
#: query through :meth:`FastView.evaluate`, for comparison).
SPARSE_PATH = True
#: :meth:`FastView.sparse` unites the postings of an ``Or`` without arrays over every
#: document while they number at most this share of the documents (a common word's
#: are cheaper to add into the dense arrays than to sort).
SPARSE_SHARE = 0.125
#: Most bytes of decoded posting lists kept between searches.
POSTINGS_CACHE_BYTES = 96 * 1024 * 1024

_BYTE_TO_LENGTH = np.array([byte_to_length(i) for i in range(256)], dtype=np.float64)
_EMPTY_IDS = np.zeros(0, dtype=np.int64)
_EMPTY_WEIGHTS = np.zeros(0, dtype=np.float64)
_MULTITERMS = (wq.Prefix, wq.Wildcard, wq.FuzzyTerm)


class Unsupported(Exception):
    """The query has a shape the fast path does not evaluate; use Whoosh's search."""


# -- words of prefixes, wildcards and fuzzy words ------------------------------------------
@functools.lru_cache(maxsize=64)
def _levenshtein_dfa(text: str, maxdist: int, prefix: int):
    # Whoosh builds this automaton again for every segment (SegmentReader.terms_within).
    return Automata.levenshtein_dfa(text, maxdist, prefix)


#: Words of a multi-term query in a segment, by (segment, query): segments never change,
#: and planning, searching and highlighting each expand the same query.
_LEAF_WORDS: OrderedDict[tuple, tuple] = OrderedDict()
_LEAF_WORDS_MAX = 4096
#: Expansions of more words than this are not remembered.
_LEAF_WORDS_KEPT = 2000
_LEAF_LOCK = threading.Lock()


def leaf_words(q, reader):
    """The index words a ``Prefix``, ``Wildcard`` or ``FuzzyTerm`` matches in one
    segment (what ``q._btexts(reader)`` gives, with the fuzzy word's Levenshtein automaton
    built once per query instead of once per segment), remembered per segment."""
    segid = getattr(reader, "_segid", None)
    key = (segid, type(q).__name__, q.fieldname, q.text, getattr(q, "maxdist", None),
           getattr(q, "prefixlength", None))
    if segid is not None:
        with _LEAF_LOCK:
            found = _LEAF_WORDS.get(key)
            if found is not None:
                _LEAF_WORDS.move_to_end(key)
                yield from found
                return
    kept: list | None = []
    for word in _leaf_words(q, reader):
        if kept is not None:
            kept.append(word)
            if len(kept) > _LEAF_WORDS_KEPT:   # "a*": not worth remembering
                kept = None
        yield word
    if segid is not None and kept is not None:
        with _LEAF_LOCK:
            _LEAF_WORDS[key] = tuple(kept)
            while len(_LEAF_WORDS) > _LEAF_WORDS_MAX:
                _LEAF_WORDS.popitem(last=False)


def _leaf_words(q, reader):
    if type(q) is wq.FuzzyTerm:
        field = reader.schema[q.fieldname]
        spell = field.spelling_fieldname(q.fieldname)
        try:
            cursor = reader.cursor(spell)
        except (KeyError, TermNotFound):
            return ()
        return Automata.find_matches(_levenshtein_dfa(q.text, q.maxdist, q.prefixlength),
                                     cursor)
    return q._btexts(reader)


def expand_words(q, reader):
    """The distinct index words a ``Prefix``, ``Wildcard`` or ``FuzzyTerm`` matches in
    any segment of ``reader``, segment by segment (Whoosh's ``MultiReader.terms_within``
    compares the query word with every word of the field instead). Yields them as the
    segments give them (text or bytes)."""
    try:
        leaves = [leaf for leaf, _base in reader.leaf_readers()]
    except AttributeError:
        leaves = [reader]
    if len(leaves) == 1:
        yield from leaf_words(q, leaves[0])
        return
    seen: set[bytes] = set()
    for leaf in leaves:
        if not leaf.doc_count_all():
            continue
        for word in leaf_words(q, leaf):
            key = word if isinstance(word, bytes) else word.encode("utf-8")
            if key not in seen:
                seen.add(key)
                yield word


# -- reading Whoosh postings -------------------------------------------------------------
def _read_postings(reader, fieldname: str, tbytes: bytes, values: bool = False):
    """Decode one term's posting list in one segment.

    Reads the ``whoosh3`` codec's block format (see ``W3PostingsWriter._write_block`` and
    ``W3LeafMatcher``): a 4-byte header, then per block a signed length (negative for the
    last block), a pickled info tuple and the (zlib-compressed) pickled
    ``(delta-encoded ids, weights, values)`` tuple. Postings of one-document terms are
    inlined in the term info.

    Returns:
        ``(docnums, weights)`` (segment-local doc numbers, int64; weights, float64), plus
        the tuple of raw values when ``values`` is true; ``None`` if the segment lacks
        the term.
    """
    terms = reader._terms
    try:
        info = terms.term_info(fieldname, tbytes)
    except Exception:  # noqa: BLE001 - TermNotFound, or a field missing in this segment
        return None
    if info.is_inlined():
        ids, weights, vals = info.inlined_postings()
        out = (np.asarray(ids, dtype=np.int64), np.asarray(weights, dtype=np.float64))
        return (*out, tuple(vals)) if values else out
    length = info._length
    if isinstance(length, tuple):  # W3TermInfo.from_bytes leaves it as a 1-tuple
        length = length[0]
    buf = terms._postfile.get(info._offset, length)
    stream = io.BytesIO(buf)
    load, loads, decompress = safe_pickle.load, safe_pickle.loads, zlib.decompress
    pos = 4  # after WHOOSH3_HEADER_MAGIC
    idparts, wparts, vparts, lens = [], [], [], []
    total = 0
    while True:
        blocklen = int.from_bytes(buf[pos:pos + 4], "big", signed=True)
        last = blocklen < 0
        nextpos = pos + 4 + abs(blocklen)
        stream.seek(pos + 4)
        count, _maxid, _maxweight, compression, _mn, _mx = load(stream)
        data = buf[stream.tell():nextpos]
        if compression:
            data = decompress(data)
        ids, weights, vals = loads(data)
        idparts.append(ids)
        lens.append(count)
        total += count
        if type(weights) is not tuple:
            weights = repeat(1.0 if weights is None else weights, count)
        wparts.append(weights)
        if values:
            vparts.append(vals)
        if last:
            break
        pos = nextpos
    docnums = np.fromiter(chain.from_iterable(idparts), np.int64, total).cumsum()
    if len(lens) > 1:  # ids are delta-encoded from 0 within each block
        lens_a = np.asarray(lens)
        ends = lens_a.cumsum()
        docnums -= np.repeat(np.concatenate(([0], docnums[ends[:-1] - 1])), lens_a)
    weights = np.fromiter(chain.from_iterable(wparts), np.float64, total)
    if values:
        return docnums, weights, tuple(chain.from_iterable(vparts))
    return docnums, weights


#: Postings whose position lists one ``pickle.loads`` decodes (:func:`_read_positions`).
#: The unpickler holds the interpreter lock until it returns, and the window's UI thread
#: shares the interpreter with the search thread: all 76,500 postings of "neural" at
#: 300,000 seed abstracts in one call held it 38 ms (about 130 ms at a million),
#: measured with ``sys.setprofile``, so a key typed then waited as long. 4,096 postings
#: take about 3 ms, and the lock can change hands between them.
POSITIONS_PER_LOAD = 4096


def _read_positions(reader, fieldname: str, tbytes: bytes):
    """Decode one term's postings with their word positions, in one segment.

    A ``whoosh.formats.Positions`` value is a 4-byte count and a protocol-2 pickle of the
    list of position deltas (``Positions.encode``; the final STOP may be missing,
    ``decode_positions`` adds it). Decoding each value with ``pickle.loads`` costs a
    microsecond or two per posting; instead the pickles' bodies (without PROTO and STOP)
    are joined inside a tuple and read with one ``pickle.loads`` per
    :data:`POSITIONS_PER_LOAD` postings, each such run made numpy arrays before the next
    (with the garbage collector paused, :func:`paperdesk.core.collector.paused`: the
    lists are gone when the arrays are made).

    Returns:
        ``(docnums, weights, starts, positions)``: local doc numbers and weights as
        :func:`_read_postings` gives them; ``starts`` (one longer) delimits each posting's
        run in ``positions``, its absolute word positions; or ``None`` if the segment
        lacks the term.
    """
    found = _read_postings(reader, fieldname, tbytes, values=True)
    if found is None:
        return None
    ids, weights, values = found
    with collector.paused():
        counts, flat = _position_deltas(values)
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    flat = flat.cumsum()
    if len(counts) > 1:  # deltas restart from 0 for each posting
        flat -= np.repeat(np.concatenate(([0], flat[starts[1:-1] - 1])), counts)
    return ids, weights, starts, flat


def _position_deltas(values) -> tuple[np.ndarray, np.ndarray]:
    """The position deltas of encoded ``Positions`` values: ``(counts, deltas)``, how
    many each value holds (int64, one per value) and all of them in order (int64),
    decoded :data:`POSITIONS_PER_LOAD` values at a time."""
    count_parts, delta_parts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for at in range(0, len(values), POSITIONS_PER_LOAD):
        lists = _position_lists(values[at:at + POSITIONS_PER_LOAD])
        counts = np.fromiter(map(len, lists), np.int64, len(lists))
        count_parts.append(counts)
        delta_parts.append(np.fromiter(chain.from_iterable(lists), np.int64,
                                       int(counts.sum())))
    return np.concatenate(count_parts), np.concatenate(delta_parts)


def _position_lists(values) -> list:
    """The lists of position deltas of some encoded ``Positions`` values, in one
    ``pickle.loads`` of their joined bodies (one ``loads`` each, as Whoosh decodes them,
    when they do not join)."""
    try:
        if not all(v[4:6] == b"\x80\x02" for v in values):
            raise ValueError("not a protocol-2 pickle")
        lists = safe_pickle.loads(b"\x80\x02(" + b"".join(
            [v[6:-1] if v[-1:] == b"." else v[6:] for v in values]) + b"t.")
        if len(lists) != len(values):
            raise ValueError("values did not split")
        return lists
    except Exception:  # noqa: BLE001 - decode one by one, as Whoosh does
        return [safe_pickle.loads(v[4:] if v.endswith(b".") else v[4:] + b".")
                for v in values]


class _Segment:
    """What never changes about one segment: its size, paper ids and field lengths."""

    def __init__(self, reader):
        self.doccount = reader.doc_count_all()
        self._lengths: dict[str, np.ndarray] = {}
        self.pids = self._column(reader, PID_FIELD, ">i8", np.int64, PID_MISSING)

    def _column(self, reader, name: str, dtype: str, outtype, default) -> np.ndarray:
        # A whoosh.columns.NumericColumn: big-endian fixed-size values, the column's
        # default for documents past the last one written.
        out = np.full(self.doccount, default, dtype=outtype)
        perdoc = reader._perdoc
        if not perdoc.has_column(name):
            raise Unsupported(f"no {name} column")
        colfile, offset, length = perdoc._get_column_file(name)
        try:
            raw = np.frombuffer(colfile.get(offset, length), dtype=dtype)
        finally:
            colfile.close()
        count = min(len(raw), self.doccount)
        out[:count] = raw[:count]
        return out

    def lengths(self, reader, fieldname: str) -> np.ndarray:
        """Field length of each document, as ``doc_field_length`` decodes it."""
        found = self._lengths.get(fieldname)
        if found is None:
            name = f"_{fieldname}_len"  # whoosh.codec.whoosh3._lenfield
            if reader._perdoc.has_column(name):
                found = _BYTE_TO_LENGTH[self._column(reader, name, "B", np.uint8, 0)]
            else:  # BM25FScorer asks doc_field_length(..., default=1)
                found = np.ones(self.doccount, dtype=np.float64)
            self._lengths[fieldname] = found
        return found


def _nbytes(arrays) -> int:
    return sum(a.nbytes for a in arrays) + 100


class FastCache:
    """Caches shared by successive searchers of one index: per-segment data and an LRU
    of decoded posting lists, both keyed by segment id (segments are immutable)."""

    def __init__(self, budget: int = POSTINGS_CACHE_BYTES):
        self.budget = budget
        self.segments: dict[str, _Segment] = {}
        self.postings: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.size = 0

    def segment(self, reader) -> _Segment:
        segid = reader._segid
        seg = self.segments.get(segid)
        if seg is None:
            seg = self.segments[segid] = _Segment(reader)
        return seg

    def term(self, reader, fieldname: str, tbytes: bytes):
        """``(docnums, weights)`` of a term in a segment (empty arrays if absent)."""
        return self._get((reader._segid, fieldname, tbytes), _read_postings,
                         reader, fieldname, tbytes)

    def positions(self, reader, fieldname: str, tbytes: bytes):
        """``(docnums, starts, positions)`` of a term in a segment (see
        :func:`_read_positions`); also caches the term's ``(docnums, weights)``."""
        key = (reader._segid, fieldname, tbytes)
        found = self._get((*key, "positions"), self._positions, reader, fieldname, tbytes)
        return found

    def _positions(self, reader, fieldname: str, tbytes: bytes):
        found = _read_positions(reader, fieldname, tbytes)
        if found is None:
            return None
        ids, weights, starts, flat = found
        key = (reader._segid, fieldname, tbytes)
        if key not in self.postings:
            self._put(key, (ids, weights))
        return ids, starts, flat

    def _get(self, key, read, *args):
        found = self.postings.get(key)
        if found is not None:
            self.postings.move_to_end(key)
            return found
        found = read(*args)
        if found is None:
            found = (_EMPTY_IDS, _EMPTY_WEIGHTS) if len(key) == 3 else (
                _EMPTY_IDS, np.zeros(1, dtype=np.int64), _EMPTY_IDS)
        self._put(key, found)
        return found

    def _put(self, key, arrays) -> None:
        self.postings[key] = arrays
        self.size += _nbytes(arrays)
        while self.size > self.budget and len(self.postings) > 1:
            _key, old = self.postings.popitem(last=False)
            self.size -= _nbytes(old)

    def keep_only(self, segids: set[str]) -> None:
        """Forget segments that are gone (merged or deleted)."""
        for segid in [s for s in self.segments if s not in segids]:
            del self.segments[segid]
        for key in [k for k in self.postings if k[0] not in segids]:
            self.size -= _nbytes(self.postings.pop(key))

    def clear(self) -> None:
        self.segments.clear()
        self.postings.clear()
        self.size = 0


class PaperMaskQuery(wq.Query):
    """A query leaf that matches the documents of the papers ``mask`` holds: a part of a
    query answered outside the index (``tag:``, ``is:starred`` ... from SQLite, see
    :mod:`paperdesk.core.search.state_terms`), each match scored 1.0 (as Whoosh's
    ``InverseMatcher`` scores a ``Not``), on the fast path and on Whoosh's searcher alike.

    Args:
        mask: a numpy bool array indexed by paper id (ids past its end do not match).
        label: what it stands for (``tag:vision``), for ``repr`` and equality.
    """

    def __init__(self, mask: np.ndarray, label: str):
        self.mask = mask
        self.label = label
        self.boost = 1.0

    def __repr__(self) -> str:
        return f"PaperMaskQuery({self.label!r})"

    def __eq__(self, other) -> bool:
        return type(other) is PaperMaskQuery and other.label == self.label and \
            other.mask is self.mask

    def __hash__(self) -> int:
        return hash((PaperMaskQuery, self.label))

    def is_leaf(self) -> bool:
        return True

    def estimate_size(self, ixreader) -> int:
        return int(self.mask.sum())

    def matcher(self, searcher, context=None):
        """Whoosh's matcher: a list of the segment's live documents whose paper is in the
        mask (read from the segment's paper-id column)."""
        from whoosh.matching import ListMatcher, NullMatcher

        docs = []
        for reader, base in searcher.reader().leaf_readers():
            if not reader.doc_count_all():
                continue
            seg = _Segment(reader)
            keep = mask_lookup(self.mask, seg.pids)
            if reader.has_deletions():
                dead = np.fromiter(reader._perdoc.deleted_docs(), dtype=np.int64)
                keep[dead[dead < seg.doccount]] = False
            docs.append(np.flatnonzero(keep) + base)
        found = np.concatenate(docs) if docs else _EMPTY_IDS
        if not len(found):
            return NullMatcher()
        return ListMatcher(found.tolist(), all_weights=1.0)


class _Node:
    """A query's result over all documents: which match, and their scores."""

    __slots__ = ("match", "score")

    def __init__(self, match: np.ndarray, score: np.ndarray):
        self.match = match
        self.score = score


class FastView:
    """The fast path over one Whoosh searcher (one index generation).

    Args:
        searcher: an open ``whoosh.searching.Searcher``.
        cache: the index's :class:`FastCache`.
    Raises:
        Unsupported: the index lacks what the fast path needs (an index written by an
            older paperdesk, or another weighting model).
    """

    def __init__(self, searcher, cache: FastCache):
        weighting = searcher.weighting
        if type(weighting) is not BM25F:
            raise Unsupported("weighting is not BM25F")
        self.searcher = searcher
        self.schema = searcher.schema
        self.cache = cache
        self._weighting = weighting
        self._reader = searcher.reader()
        self.n = searcher.doc_count_all()
        self.leaves = []  # (segment reader, first global docnum, _Segment)
        alive = np.ones(self.n, dtype=bool)
        if self.n:
            for reader, base in self._reader.leaf_readers():
                seg = cache.segment(reader)
                self.leaves.append((reader, base, seg))
                if reader.has_deletions():
                    dead = np.fromiter(reader._perdoc.deleted_docs(), dtype=np.int64)
                    alive[base + dead[dead < seg.doccount]] = False
        self.alive = alive
        self.pids = (np.concatenate([seg.pids for _r, _b, seg in self.leaves])
                     if self.leaves else np.zeros(0, dtype=np.int64))
        self._lengths: dict[str, np.ndarray] = {}
        #: field -> its average length (``Searcher.avg_field_length``, fixed per searcher)
        self._avgfl: dict[str, float] = {}
        self._df: dict[tuple[str, bytes], int] = {}
        self._pids_missing: bool | None = None   # a document without a paper id

    def segment_ids(self) -> set[str]:
        return {reader._segid for reader, _b, _s in self.leaves}

    # -- building blocks ----------------------------------------------------------------
    def _zeros(self) -> _Node:
        return _Node(np.zeros(self.n, dtype=bool), np.zeros(self.n, dtype=np.float64))

    def lengths(self, fieldname: str) -> np.ndarray:
        found = self._lengths.get(fieldname)
        if found is None:
            found = np.concatenate([seg.lengths(r, fieldname) for r, _b, seg in self.leaves])
            self._lengths[fieldname] = found
        return found

    def postings(self, fieldname: str, tbytes: bytes) -> tuple[np.ndarray, np.ndarray]:
        """All postings of a term (deleted documents included), as global doc numbers."""
        ids, weights = [], []
        for reader, base, _seg in self.leaves:
            local, w = self.cache.term(reader, fieldname, tbytes)
            if len(local):
                ids.append(local + base if base else local)
                weights.append(w)
        if not ids:
            return _EMPTY_IDS, _EMPTY_WEIGHTS
        if len(ids) == 1:
            return ids[0], weights[0]
        return np.concatenate(ids), np.concatenate(weights)

    def _doc_frequency(self, fieldname: str, tbytes: bytes) -> int:
        """``Searcher.doc_frequency``, remembered for this searcher (Whoosh looks the term
        up in every segment at each call)."""
        key = (fieldname, tbytes)
        found = self._df.get(key)
        if found is None:
            found = self._df[key] = self.searcher.doc_frequency(fieldname, tbytes)
        return found

    def _term_scores(self, fieldname: str, tbytes: bytes, ids: np.ndarray,
                     weights: np.ndarray) -> np.ndarray:
        """BM25F (or plain weight) scores of postings, as Whoosh's scorers give them."""
        if not self.schema[fieldname].scorable:
            return weights  # whoosh.scoring.WeightScorer
        return self._bm25f(fieldname, self.searcher.idf(fieldname, tbytes), ids, weights)

    def _bm25f(self, fieldname: str, idf, ids: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """:meth:`_term_scores` with the terms' ``idf`` given (a number, or one per
        posting): the same operations in the same order, so the same bits."""
        field = self.schema[fieldname]
        if not field.scorable:
            return weights  # whoosh.scoring.WeightScorer
        w = self._weighting
        B = w._field_B.get(fieldname, w.B)
        K1 = w.K1
        avgfl = self._avgfl.get(fieldname)
        if avgfl is None:   # Whoosh sums every segment's lengths at each call
            avgfl = self._avgfl[fieldname] = self.searcher.avg_field_length(fieldname) or 1
        fl = self.lengths(fieldname)[ids]
        # whoosh.scoring.bm25, same operation order
        return idf * ((weights * (K1 + 1)) / (weights + K1 * ((1 - B) + B * fl / avgfl)))

    def _term(self, fieldname: str, text, boost: float = 1.0):
        """A term's matching documents and scores, sparse: ``(doc numbers, scores)``."""
        if fieldname not in self.schema:
            return _EMPTY_IDS, _EMPTY_WEIGHTS
        field = self.schema[fieldname]
        if not field.indexed:
            return _EMPTY_IDS, _EMPTY_WEIGHTS
        if isinstance(text, bytes):
            tbytes = text
        else:
            try:
                tbytes = field.to_bytes(text)
            except ValueError:
                return _EMPTY_IDS, _EMPTY_WEIGHTS
        ids, weights = self.postings(fieldname, tbytes)
        if not len(ids):
            return ids, weights
        scores = self._term_scores(fieldname, tbytes, ids, weights)
        if boost != 1.0:  # Term.matcher wraps the matcher in WrappingMatcher(boost)
            scores = scores * boost
        return ids, scores

    def _multiterm(self, q) -> list:
        """The sparse parts of a Prefix/Wildcard/FuzzyTerm, as Whoosh scores them: one
        ``(doc numbers, scores, repeats)`` per segment, ``repeats`` True when a document
        may come more than once (once per word, to be added in that order).

        Whoosh builds matchers per segment (``Collector.set_subsearcher``), so
        ``MultiTerm.matcher`` expands the pattern to the words of *that segment*: one word
        is a plain Term (BM25F, no boost); several are an ``Or`` run with no weighting
        (``constantscore``), which ``Or._matcher`` turns into a tree of union matchers
        whose terms still score BM25F (``Searcher.postings`` falls back to the searcher's
        weighting) when there are two words or the segment has over 5,000 documents, and
        otherwise into an unscored ``ArrayUnionMatcher`` that gives every match 1.0.
        """
        fieldname = q.field()
        if fieldname not in self.schema or not self.schema[fieldname].indexed:
            return []
        if q.text == "" or (type(q) is wq.Wildcard and q.text == "*"):
            raise Unsupported("matches everything")
        field = self.schema[fieldname]
        parts = []
        for reader, base, seg in self.leaves:
            # Prefix/Wildcard give index bytes, FuzzyTerm (terms_within) gives text.
            words = [w if isinstance(w, bytes) else field.to_bytes(w)
                     for w in leaf_words(q, reader) if w]
            if not words:
                continue
            scored = (len(words) == 1 or not q.constantscore
                      or (len(words) < wq.Or.TOO_MANY_CLAUSES
                          and (len(words) == 2 or seg.doccount > 5000)))
            boost = q.boost if len(words) > 1 else 1.0
            found = [(w, *self.cache.term(reader, fieldname, w)) for w in words]
            found = [(w, local, weights) for w, local, weights in found if len(local)]
            if not found:
                continue
            if not scored:
                hit = np.zeros(seg.doccount, dtype=bool)
                hit[np.concatenate([local for _w, local, _ws in found])] = True
                ids = np.flatnonzero(hit) + base
                parts.append((ids, np.ones(len(ids), dtype=np.float64), False))
                continue
            # the segment's words in one pass: their postings end to end (a document may
            # come once per word: the caller adds them with np.add.at, in this order)
            local = np.concatenate([local for _w, local, _ws in found]) + base
            weights = np.concatenate([weights for _w, _l, weights in found])
            idf = np.repeat([self.searcher.idf(fieldname, w) for w, _l, _ws in found],
                            [len(local) for _w, local, _ws in found])
            scores = self._bm25f(fieldname, idf, local, weights)
            parts.append((local, scores * boost if boost != 1.0 else scores, len(found) > 1))
        return parts

    # -- evaluation ---------------------------------------------------------------------
    def evaluate(self, q) -> _Node:
        """Evaluate a query over every document (deleted ones are masked by the caller).

        Raises:
            Unsupported: a part of the query has a shape not handled here.
        """
        t = type(q)
        if t is wq.Term or t in _MULTITERMS:
            return self._or([q])
        if t is wq.And:
            return self._boosted(self._and(q.subqueries), q)
        if t is wq.Or:
            if q.scale or q.minmatch:
                raise Unsupported("Or with scale/minmatch")
            return self._boosted(self._or(q.subqueries), q)
        if t is wq.AndNot:
            a, b = self.evaluate(q.a), self.evaluate(q.b)
            a.match &= ~b.match
            a.score[~a.match] = 0.0
            return self._boosted(a, q)
        if t is wq.Not:
            child = self.evaluate(q.query)
            match = ~child.match
            return _Node(match, match.astype(np.float64))  # InverseMatcher: score 1.0
        if t is wq.Phrase:
            return self._phrase(q)
        if t is PaperMaskQuery:
            match = mask_lookup(q.mask, self.pids)
            return _Node(match, match.astype(np.float64))
        if q is wq.NullQuery:
            return self._zeros()
        raise Unsupported(type(q).__name__)

    @staticmethod
    def _boosted(node: _Node, q) -> _Node:
        if q.boost != 1.0:  # compound queries wrap their matcher in WrappingMatcher
            node.score *= q.boost
        return node

    def _and(self, subqueries) -> _Node:
        nodes = [self.evaluate(s) for s in subqueries]
        if not nodes:
            return self._zeros()
        match, score = nodes[0].match, nodes[0].score
        for node in nodes[1:]:
            match &= node.match
            score += node.score
        score[~match] = 0.0
        return _Node(match, score)

    def _or(self, subqueries) -> _Node:
        # Terms (and expanded words) are added straight into one accumulator; within one
        # posting list doc numbers are distinct, so fancy-index += is exact.
        acc = self._zeros()
        match, score = acc.match, acc.score
        for sub in subqueries:
            t = type(sub)
            if t is wq.Term:
                parts = [self._term(sub.fieldname, sub.text, sub.boost)]
            elif t is PaperMaskQuery:
                found = mask_lookup(sub.mask, self.pids)
                match |= found
                score += found
                continue
            elif t in _MULTITERMS:
                for ids, scores, repeats in self._multiterm(sub):
                    match[ids] = True
                    if repeats:     # a doc once per word: added in order, unbuffered
                        np.add.at(score, ids, scores)
                    else:
                        score[ids] += scores
                continue
            else:
                node = self.evaluate(sub)
                match |= node.match
                score += node.score
                continue
            for ids, scores in parts:
                if len(ids):
                    match[ids] = True
                    score[ids] += scores
        return acc

    def _phrase(self, q) -> _Node:
        # whoosh.query.positional.Phrase.matcher -> SpanNear2(slop=1, ordered=True): the
        # words next to each other, in order; the score is the sum of the words' scores
        # (an IntersectionMatcher of their Term matchers, wrapped).
        fieldname = q.fieldname
        if q.slop != 1 or fieldname != "exact":
            raise Unsupported("phrase shape")
        field = self.schema[fieldname]
        words = list(q.words)
        if not words:
            raise Unsupported("empty phrase")
        tbytes = []
        for word in words:
            try:
                b = field.to_bytes(word)
            except ValueError:
                return self._zeros()
            if (fieldname, b) not in self._reader:
                return self._zeros()  # Phrase.matcher: a missing word, no match
            tbytes.append(b)
        match = None  # documents with every word
        for b in sorted(set(tbytes), key=lambda t: self._doc_frequency(fieldname, t)):
            ids, _w = self.postings(fieldname, b)
            has = np.zeros(self.n, dtype=bool)
            has[ids] = True
            match = has if match is None else (match & has)
        if len(words) > 1 and match.any():
            match = self._verify_positions(fieldname, tbytes, match & self.alive)
        node = _Node(match, np.zeros(self.n, dtype=np.float64))
        if not match.any():
            return node
        for b in tbytes:
            ids, weights = self.postings(fieldname, b)
            keep = match[ids]
            ids, weights = ids[keep], weights[keep]
            node.score[ids] += self._term_scores(fieldname, b, ids, weights)
        if q.boost != 1.0:
            node.score *= q.boost
        return node

    def _verify_positions(self, fieldname: str, tbytes: list[bytes],
                          candidates: np.ndarray) -> np.ndarray:
        """Keep the candidates where word i sits at position p + i for some p (the words
        next to each other, in order), from the words' positions in ``fieldname``.

        Each word gives sorted keys ``doc << 32 | (position - i)`` (doc numbers ascend
        across segments, positions within a document); a phrase is a key every word
        has. Rarest word first, and the candidates shrink as words are checked.
        """
        keys = None
        order = sorted(range(len(tbytes)),
                       key=lambda i: self._doc_frequency(fieldname, tbytes[i]))
        for i in order:
            parts = []
            for reader, base, seg in self.leaves:
                wanted = candidates[base:base + seg.doccount]
                if not wanted.any():
                    continue
                ids, starts, flat = self.cache.positions(reader, fieldname, tbytes[i])
                if not len(ids):
                    continue
                chosen = wanted[ids]
                if not chosen.any():
                    continue
                counts = np.diff(starts)
                inside = np.repeat(chosen, counts)
                docs = np.repeat(ids + base, counts)[inside]
                parts.append((docs << 32) + (flat[inside] - i))
            mine = np.concatenate(parts) if parts else _EMPTY_IDS
            if keys is None:
                keys = mine
            elif len(mine):
                at = np.minimum(np.searchsorted(mine, keys), len(mine) - 1)
                keys = keys[mine[at] == keys]
            else:
                keys = _EMPTY_IDS
            if not len(keys):
                break
            candidates = np.zeros(self.n, dtype=bool)
            candidates[keys >> 32] = True
        out = np.zeros(self.n, dtype=bool)
        if keys is not None and len(keys):
            out[keys >> 32] = True
        return out

    def sparse(self, q) -> tuple[np.ndarray, np.ndarray] | None:
        """Evaluate the common shapes without arrays over every document: a ``Term``,
        an ``Or`` of such parts (a word is an ``Or`` of its fields) and an ``And`` of
        them, beside which ``And`` may hold :class:`PaperMaskQuery` parts (``tag:``,
        ``is:starred`` ...). At a million documents the dense arrays of :meth:`evaluate`
        (a bool and a float per document for each query node) were a search's fixed
        cost; here the work follows the postings. The scores are added in the order
        :meth:`evaluate` adds them (from 0.0, part by part), so they are the same bits.

        Returns:
            ``(docs, scores)``: ascending distinct doc numbers (deleted ones included,
            as :meth:`evaluate`'s) and their scores, or ``None`` when ``q`` has
            another shape (then :meth:`evaluate` answers).
        """
        t = type(q)
        if t is wq.Term:
            return self._term(q.fieldname, q.text, q.boost)
        if t is wq.Or and not (q.scale or q.minmatch) and q.subqueries:
            if all(type(sub) is wq.Term for sub in q.subqueries) and sum(
                    self._postings_count(sub) for sub in q.subqueries) > self.n * SPARSE_SHARE:
                return None     # known from the term infos, before any posting is read
            parts = [self.sparse(sub) for sub in q.subqueries]
            if any(part is None for part in parts) or \
                    sum(len(ids) for ids, _s in parts) > self.n * SPARSE_SHARE:
                return None     # a common word: the dense arrays cost less than a sort
            docs = np.concatenate([ids for ids, _s in parts])
            docs.sort(kind="stable")    # a merge of the parts' sorted runs (timsort)
            if len(docs) > 1:
                docs = docs[np.concatenate(([True], docs[1:] != docs[:-1]))]
            score = np.zeros(len(docs), dtype=np.float64)
            for ids, scores in parts:   # as _or's score[ids] += scores, part by part
                score[np.searchsorted(docs, ids)] += scores
            return docs, self._boosted_scores(score, q)
        if t is wq.And and q.subqueries:
            parts = [sub if type(sub) is PaperMaskQuery else self.sparse(sub)
                     for sub in q.subqueries]
            if any(part is None for part in parts) or \
                    all(type(part) is PaperMaskQuery for part in parts):
                return None
            lists = [part for part in parts if type(part) is not PaperMaskQuery]
            docs = functools.reduce(
                lambda a, b: np.intersect1d(a, b, assume_unique=True),
                sorted((ids for ids, _s in lists), key=len))
            for part in parts:
                if type(part) is PaperMaskQuery and len(docs):
                    docs = docs[mask_lookup(part.mask, self.pids[docs])]
            score = np.zeros(len(docs), dtype=np.float64)
            for part in parts:          # as _and's score += node.score, part by part
                if type(part) is PaperMaskQuery:
                    score += 1.0
                else:
                    ids, scores = part
                    score += scores[np.searchsorted(ids, docs)]
            return docs, self._boosted_scores(score, q)
        return None

    def _postings_count(self, q) -> int:
        """How many postings a ``Term`` has (deleted documents included), from the term
        infos (``doc_frequency``, remembered per searcher): 0 for a word the index lacks."""
        field = self.schema[q.fieldname] if q.fieldname in self.schema else None
        if field is None or not field.indexed:
            return 0
        try:
            tbytes = q.text if isinstance(q.text, bytes) else field.to_bytes(q.text)
        except ValueError:
            return 0
        return self._doc_frequency(q.fieldname, tbytes)

    @staticmethod
    def _boosted_scores(score: np.ndarray, q) -> np.ndarray:
        if q.boost != 1.0:  # compound queries wrap their matcher in WrappingMatcher
            score *= q.boost
        return score

    # -- results ------------------------------------------------------------------------
    def search_arrays(self, q, limit: int | None = None, source_id: int | None = None,
                      allowed=None, mask: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray, int]:
        """Run a query; rank like Whoosh (score descending, then doc number), as arrays.

        Args:
            q: the Whoosh query.
            limit: most hits, or ``None`` for all of them.
            source_id: only documents with this ``source_id`` term.
            allowed: only these paper ids (an iterable), or ``None``.
            mask: only paper ids ``i`` with ``mask[i]`` true (a numpy bool array indexed
                by paper id; ids at or past its end are left out), or ``None``. Applied
                as one gather over the documents' paper-id column: no Python per id.
        Returns:
            ``(pids, scores, total)``: paper ids (int64) and BM25F scores (float64) best
            first, at most ``limit`` of them, and the number of matches.
        Raises:
            Unsupported: the query has a shape not handled here, or documents lack the
                paper-id column.
        """
        docs, scores = self._matches(q, source_id, allowed, mask)
        total = len(docs)
        if not total or (limit is not None and limit <= 0):
            return _EMPTY_IDS, _EMPTY_WEIGHTS, total
        if limit is not None and total > limit:
            order, _rest = best_first_head(scores, limit)
        else:
            order = best_first(scores)  # docs ascending: ties by docnum
        return self._paper_ids(docs[order]), scores[order], total

    def search_ranked(self, q, first: int, source_id: int | None = None, allowed=None,
                      mask: np.ndarray | None = None):
        """Run a query and rank only its best ``first`` matches now; the order of the
        rest is computed when asked for (a window's list shows the first screenfuls
        long before anyone scrolls further; at a million abstracts the sort of every
        match is most of a common word's search).

        Args:
            q, source_id, allowed, mask: as :meth:`search_arrays`.
            first: matches ranked now (at least 1).
        Returns:
            ``(pids, scores, total, rest)``: the best ``min(first, total)`` paper ids
            (int64) and scores (float64) in :meth:`search_arrays`'s order (the same
            first ids), the number of matches, and ``rest``: ``None`` when every match
            is among them, else a callable (any thread; no index access) returning the
            ``(pids, scores)`` of the other matches, best first: ``pids`` then ``rest()``
            is :meth:`search_arrays`'s whole answer.
        Raises:
            Unsupported: as :meth:`search_arrays`.
        """
        if self._pids_missing is None:   # once per searcher, before rest() can need it
            self._pids_missing = bool(len(self.pids) and self.pids.min() < 0)
        if self._pids_missing:
            raise Unsupported("documents without a paper id column")
        docs, scores = self._matches(q, source_id, allowed, mask)
        total = len(docs)
        if total <= first:
            order = best_first(scores)
            return self._paper_ids(docs[order]), scores[order], total, None
        head, rest = best_first_head(scores, first)
        pids = self._paper_ids(docs[head])
        pids_all, rest_docs, rest_scores = self.pids, docs[rest], scores[rest]

        def rest_in_order() -> tuple[np.ndarray, np.ndarray]:
            order = best_first(rest_scores)
            return pids_all[rest_docs[order]], rest_scores[order]

        return pids, scores[head], total, rest_in_order

    def _matches(self, q, source_id, allowed, mask) -> tuple[np.ndarray, np.ndarray]:
        """The live matching documents of ``q`` in the scope (ascending doc numbers) and
        their scores (see :meth:`search_arrays` for the arguments)."""
        found = self.sparse(q) if SPARSE_PATH and source_id is None else None
        if found is not None:
            docs, scores = found
            keep = self.alive[docs]
            docs, scores = docs[keep], scores[keep]
        else:
            node = self.evaluate(q)
            match = node.match
            match &= self.alive
            if source_id is not None:
                ids, _w = self.postings("source_id", str(source_id).encode("utf-8"))
                keep = np.zeros(self.n, dtype=bool)
                keep[ids] = True
                match &= keep
            docs = np.flatnonzero(match)
            scores = node.score[docs]
        if allowed is not None or mask is not None:   # looked up for the hits only
            pids = self.pids[docs]
            keep = np.ones(len(docs), dtype=bool)
            if allowed is not None:
                keep &= np.isin(pids, np.fromiter(allowed, dtype=np.int64))
            if mask is not None:
                keep &= mask_lookup(mask, pids)
            docs, scores = docs[keep], scores[keep]
        return docs, scores

    def _paper_ids(self, docs: np.ndarray) -> np.ndarray:
        """The paper ids of documents. Raises Unsupported when one has none."""
        pids = self.pids[docs]
        if len(pids) and pids.min() < 0:
            raise Unsupported("documents without a paper id column")
        return pids

    def search(self, q, limit: int | None, source_id: int | None = None,
               allowed=None, mask: np.ndarray | None = None
               ) -> tuple[list[tuple[int, float]], int]:
        """Run a query; rank like Whoosh (score descending, then doc number).

        Args:
            q: the Whoosh query.
            limit: most hits, or ``None``.
            source_id: only documents with this ``source_id`` term.
            allowed: only these paper ids (an iterable), or ``None``.
            mask: a bool array over paper ids (see :meth:`search_arrays`), or ``None``.
        Returns:
            ``(hits, total)``: ``(paper id, score)`` pairs, and the number of matches.
        """
        pids, scores, total = self.search_arrays(q, limit, source_id, allowed, mask)
        return list(zip(pids.tolist(), scores.tolist())), total


def best_first(scores: np.ndarray) -> np.ndarray:
    """Return the order of ``scores`` from the highest down, equal scores in their index
    order: the same as ``np.argsort(-scores, kind="stable")``, 1.5-2.5 times as fast
    (250,000 hits: 20 ms instead of 27-34; the earlier rank-then-sort took 33-57).

    The IEEE 754 bit pattern of a non-negative double, read as an unsigned 64-bit
    integer, orders like the double itself, so its bitwise complement orders from the
    highest score down; a stable sort of those integers is NumPy's fastest stable sort
    of 64-bit keys. ``-0.0`` is made ``0.0`` first; scores below zero (which BM25F with
    positive boosts never gives) fall back to the plain stable sort.

    Args:
        scores: float64 scores (no NaN).
    Returns:
        int64 positions into ``scores``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if len(scores) < 2:
        return np.arange(len(scores), dtype=np.int64)
    if scores.min() < 0:
        return np.argsort(-scores, kind="stable")
    keys = ~(scores + 0.0).view(np.uint64)      # + 0.0: -0.0 becomes 0.0
    return np.argsort(keys, kind="stable")


def best_first_head(scores: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
    """Split :func:`best_first`'s order of ``scores`` after its ``first`` positions
    without sorting all of them: one partial selection (``np.partition``, linear) finds
    the ``first``-th highest score, then only the positions above it (and the earliest of
    those equal to it) are sorted (with :func:`best_first`'s keys).

    Args:
        scores: float64 scores (no NaN).
        first: how many positions to order (0 or more).
    Returns:
        ``(head, rest)``: int64 positions into ``scores``; ``head`` is
        ``best_first(scores)[:first]`` and ``rest`` the other positions in ascending
        index order, so ``concatenate((head, rest[best_first(scores[rest])]))`` is
        ``best_first(scores)``.
    """
    scores = np.asarray(scores, dtype=np.float64)
    n = len(scores)
    if first >= n:
        return best_first(scores), _EMPTY_IDS
    if first <= 0:
        return _EMPTY_IDS, np.arange(n, dtype=np.int64)
    if scores.min() < 0:   # never from BM25F with positive boosts (see best_first)
        order = best_first(scores)
        return order[:first], np.sort(order[first:])
    # best_first's keys: NumPy's selection of doubles slows to ~9 ms on 37,000 scores
    # of two distinct values (a fuzzy word's), its selection of integers takes 0.15
    keys = ~(scores + 0.0).view(np.uint64)
    kth = np.partition(keys, first - 1)[first - 1]   # the key of the first-th best
    chosen = keys < kth
    ties = np.flatnonzero(keys == kth)[:first - int(np.count_nonzero(chosen))]
    chosen[ties] = True
    picked = np.flatnonzero(chosen)
    head = picked[np.argsort(keys[picked], kind="stable")]
    return head, np.flatnonzero(~chosen)


def mask_lookup(mask: np.ndarray, pids: np.ndarray) -> np.ndarray:
    """Return ``mask[pids]`` with False for ids outside the mask (negative or past its end).

    Args:
        mask: bool array indexed by paper id.
        pids: int64 paper ids.
    Returns:
        A bool array shaped like ``pids``.
    """
    if not len(pids) or (pids.min() >= 0 and pids.max() < len(mask)):
        return mask[pids]     # one gather (the usual case: every id inside the mask)
    inside = (pids >= 0) & (pids < len(mask))
    out = np.zeros(len(pids), dtype=bool)
    out[inside] = mask[pids[inside]]
    return out
