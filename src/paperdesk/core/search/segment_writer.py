"""Writing Whoosh segments in bulk: the index's write path.

Whoosh's own ``SegmentWriter`` analyses every field of every document through a chain of
Python generators, pushes every posting through a pool that it sorts (in temporary files
when large), and writes every posting with a Python call; at 100,000 abstracts that was
about 1,300 CPU seconds, plus segment merges that rewrote everything twice. This module
writes the same segment files, in the ``whoosh3`` codec's format (``W3Codec``), from a
batch of :class:`~paperdesk.core.search.index.IndexDocument` at once:

- **analysis once per distinct word**: the words of a text are found with one regular
  expression pass (the index's word pattern); each distinct word is folded (lower case,
  accents) and stemmed once per process and kept in a vocabulary, so a token costs a dict
  lookup;
- **postings as arrays**: the tokens of all documents become numpy arrays (word id, doc
  number, position); one stable sort per field groups them by term and document, and the
  frequencies, weights, field lengths, block statistics and the pickled position lists
  of Whoosh's ``Positions`` format are computed for all postings with array operations;
- **blocks written per term**: each term's postings are cut into blocks of
  ``blocklimit`` postings, each pickled and zlib-compressed as
  ``W3PostingsWriter._write_block`` does, with the same block info and the same
  ``W3TermInfo``, into a terms file (``OrderedHashWriter``) with the same keys;
- **small terms as arrays** (issue 28): most terms of a batch have one small block
  (the words of one or a few abstracts); their block info and data are not pickled one
  by one but laid out with array operations as the pickler writes them
  (:func:`_small_bodies`), and the term infos, terms-file entries and hash tables of
  all terms are packed at once; the bytes are those of the per-term path (a test keeps
  that path as its reference);
- **merges copy what they can**: a term that one source segment holds as one small
  uncompressed block is copied with its document numbers shifted
  (:func:`_copy_term`); the others are decoded and written again.

What it writes is what Whoosh would have written for the same documents (tests compare
every term's postings, term statistics, field lengths and stored fields with Whoosh's own
writer, and search results through ``whoosh.searching``); only the bytes of the blocks differ:
their data is pickled with protocol 5 instead of 2 (Whoosh reads blocks with
``pickle.loads``, which reads any protocol), blocks of under :data:`_COMPRESS_MIN` bytes
are not compressed (their info says so, and Whoosh's reader checks it), and position
lists of over 1,000 entries are pickled as one ``APPENDS`` batch. The segment is then put into the index by the caller's Whoosh writer
(:func:`paperdesk.core.search.index.apply_batch`), which also deletes replaced documents
and writes the table of contents, so Whoosh's locking, generations and readers are
unchanged.

The layout of the files follows whoosh-reloaded 2.7.5 (``whoosh/codec/whoosh3.py``,
``whoosh/filedb/filetables.py``, ``whoosh/formats.py``); the project pins it below 2.8.
"""

from __future__ import annotations

import io
import os
import pickle
import re
import secrets
import shutil
import struct
import tempfile
import zlib
from hashlib import md5
from collections.abc import Sequence
from itertools import chain, repeat

import numpy as np
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3Codec, W3PerDocWriter, W3Segment, _lenfield
from whoosh.filedb import filetables
from whoosh.filedb.filestore import FileStorage
from whoosh.lang.porter import stem as porter_stem
from whoosh.support.charset import accent_map
from whoosh.util.numeric import _length_byte_cache

from paperdesk.core.search import safe_pickle
from paperdesk.core.search.words import WORD_PATTERN, WORD_RE
from paperdesk.core.fields import stored_fields

__all__ = ["Unsupported", "Vocabulary", "build_segment", "check_schema", "FIELD_KINDS",
           "merge_segments", "MergeCancelled"]

#: How each field of the schema is analysed (see :func:`check_schema`):
#: ``stem`` (stemmed words of one of the four texts), ``exact`` (the unstemmed words of
#: title, abstract, note and comments, with positions), ``words`` (unstemmed words of
#: its own text, with positions), ``spaces``/``spaces_lower`` (space-separated keywords),
#: ``commas_lower`` (comma-separated, stripped, lower-cased), ``id`` (the whole value).
FIELD_KINDS = {
    "title": "stem", "abstract": "stem", "note": "stem", "comment": "stem",
    "exact": "exact", "author": "words",
    "tag": "commas_lower", "source": "commas_lower",
    "source_id": "spaces", "flags": "spaces", "year": "spaces",
    "doi": "spaces_lower", "arxiv": "spaces_lower", "key": "spaces_lower",
    "mentions": "spaces_lower", "id": "id",
    # The table-driven fields (paperdesk.core.fields.stored_fields): keywords, like doi,
    # or words, like author (Field.words: the venue).
    **{f.search: "words" if f.words else "spaces_lower" for f in stored_fields()
       if f.search},
}
#: The four texts of the stemmed fields, in the order their words make up ``exact``.
STEM_TEXTS = ("title", "abstract", "note", "comment")

_MAGIC = b"W3Bl"                      # whoosh3.WHOOSH3_HEADER_MAGIC
_TERMINFO = struct.Struct("!BfIBBfII")  # W3TermInfo._struct
_EXTENT = struct.Struct("!qi")          # pack_long(offset) + pack_int(length)
_BLOCKLEN = struct.Struct("!i")         # StructFile.write_int
_FIELDID = struct.Struct("!H")          # pack_ushort
_COMPRESSION = 3                        # W3Codec's default
#: Blocks of fewer pickled bytes are stored uncompressed (zlib saves nothing there).
_COMPRESS_MIN = 96
#: Tokens of whole terms turned into postings at a time when writing a field.
CHUNK_TOKENS = 65_536
#: Words (as strings) collected before they are turned into ids when analysing.
ANALYSE_CHUNK = 100_000
_DATA_PROTOCOL = pickle.HIGHEST_PROTOCOL
_LENGTH_CACHE = np.asarray(_length_byte_cache, dtype=np.int64)
_SPACES = r"[^ \t\r\n]+"
_SPACES_RE = re.compile(_SPACES)
_COMMAS = r"[^,]+"


class Unsupported(Exception):
    """The schema is not the one this writer knows; use Whoosh's own writer."""


def check_schema(schema) -> None:
    """Check that ``schema`` analyses its fields the way :data:`FIELD_KINDS` says.

    Args:
        schema: a Whoosh ``Schema`` (normally ``build_schema()``).
    Raises:
        Unsupported: a field is missing, extra, or analysed or stored differently.
    """
    from paperdesk.core.search.fastscore import PID_FIELD  # noqa: PLC0415

    names = set(schema.names())
    if names != set(FIELD_KINDS) | {PID_FIELD}:
        raise Unsupported(f"fields {sorted(names ^ (set(FIELD_KINDS) | {PID_FIELD}))}")
    for name, kind in FIELD_KINDS.items():
        field = schema[name]
        parts = list(getattr(field.analyzer, "items", [field.analyzer]))
        kinds = [type(p).__name__ for p in parts]
        pattern = getattr(parts[0], "expression", None)
        pattern = pattern.pattern if pattern is not None else None
        fmt = type(field.format).__name__
        want = {
            "stem": (["RegexTokenizer", "LowercaseFilter", "CharsetFilter", "StemFilter"],
                     WORD_PATTERN, "Frequency"),
            "exact": (["RegexTokenizer", "LowercaseFilter", "CharsetFilter"], WORD_PATTERN,
                      "Positions"),
            "words": (["RegexTokenizer", "LowercaseFilter", "CharsetFilter"], WORD_PATTERN,
                      "Positions"),
            "spaces": (["RegexTokenizer"], _SPACES, "Frequency"),
            "spaces_lower": (["RegexTokenizer", "LowercaseFilter"], _SPACES, "Frequency"),
            "commas_lower": (["RegexTokenizer", "StripFilter", "LowercaseFilter"], _COMMAS,
                             "Frequency"),
            "id": (["IDTokenizer"], None, "Existence"),
        }[kind]
        if (kinds, pattern, fmt) != want:
            raise Unsupported(f"field {name}: {kinds} {pattern} {fmt}")
        if field.stored != (name == "id") or field.column_type is not None:
            raise Unsupported(f"field {name}: stored or column")
        if kind == "stem" and parts[3].ignore:
            raise Unsupported(f"field {name}: stemmer with exceptions")
        if getattr(field, "vector", None) or field.separate_spelling():
            raise Unsupported(f"field {name}: vectors or spelling")


class Vocabulary:
    """Words seen by this process: each distinct word as written is folded and stemmed
    once (the analysis of :func:`~paperdesk.core.search.index.exact_analyzer` and
    :func:`~paperdesk.core.search.index.stemming_analyzer`: lower case, then Whoosh's
    ``accent_map``, then the Porter stemmer).

    Attributes:
        folded: folded words by id; ``folded_bytes`` the same as UTF-8.
        stems: stem id of each folded id; ``stem_words`` / ``stem_bytes`` by stem id.
    """

    def __init__(self):
        self._raw: dict[str, int] = {}
        self._folded_ids: dict[str, int] = {}
        self._stem_ids: dict[str, int] = {}
        self.folded: list[str] = []
        self.folded_bytes: list[bytes] = []
        self.stems: list[int] = []
        self.stem_words: list[str] = []
        self.stem_bytes: list[bytes] = []

    def __len__(self) -> int:
        return len(self._raw)

    def ids(self, words: list[str]) -> np.ndarray:
        """Folded ids of ``words`` (as written), as an int64 array; words not seen before
        are folded and stemmed once each."""
        raw = self._raw
        new = [word for word in dict.fromkeys(words) if word not in raw]
        for word in new:
            raw[word] = self._folded_id(word.lower().translate(accent_map))
        return np.fromiter(map(raw.__getitem__, words), np.int64, len(words))

    def _folded_id(self, folded: str) -> int:
        found = self._folded_ids.get(folded)
        if found is None:
            found = self._folded_ids[folded] = len(self.folded)
            self.folded.append(folded)
            self.folded_bytes.append(folded.encode("utf-8"))
            stemmed = porter_stem(folded)
            sid = self._stem_ids.get(stemmed)
            if sid is None:
                sid = self._stem_ids[stemmed] = len(self.stem_words)
                self.stem_words.append(stemmed)
                self.stem_bytes.append(stemmed.encode("utf-8"))
            self.stems.append(sid)
        return found

    def stem_array(self) -> np.ndarray:
        return np.asarray(self.stems, dtype=np.int64)


def _length_bytes(lengths: np.ndarray) -> np.ndarray:
    """``whoosh.util.numeric.length_to_byte`` of each length (0 for 0)."""
    out = np.searchsorted(_LENGTH_CACHE, lengths, side="left")
    out[lengths >= 106374] = 255
    return np.minimum(out, 255)


class _Tokens:
    """The tokens of one field over all documents of a batch, in document order."""

    __slots__ = ("doc", "term", "pos", "terms")

    def __init__(self, doc: np.ndarray, term: np.ndarray, pos: np.ndarray | None,
                 terms: list[bytes]):
        self.doc, self.term, self.pos, self.terms = doc, term, pos, terms


def _doc_numbers(counts: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(counts), dtype=np.int32), counts)


def _positions(counts: np.ndarray) -> np.ndarray:
    """0, 1, ... within each document, for tokens laid out document after document."""
    total = int(counts.sum())
    starts = (np.cumsum(counts) - counts).astype(np.int32)
    return np.arange(total, dtype=np.int32) - np.repeat(starts, counts)


def _keyword_tokens(values: list[list[str]]) -> _Tokens:
    ids: dict[str, int] = {}
    counts = np.fromiter(map(len, values), np.int64, len(values))
    flat = list(chain.from_iterable(values))
    for word in flat:
        if word not in ids:
            ids[word] = len(ids)
    term = np.fromiter(map(ids.__getitem__, flat), np.int64, len(flat))
    return _Tokens(_doc_numbers(counts), term, None, [w.encode("utf-8") for w in ids])


def _split_spaces(text: str, lower: bool) -> list[str]:
    """``RegexTokenizer(r"[^ \\t\\r\\n]+")`` (and ``LowercaseFilter``) of ``text``."""
    if not text:
        return []
    words = _SPACES_RE.findall(text)
    return [w.lower() for w in words] if lower else words


def _split_commas(text: str) -> list[str]:
    return [w.strip().lower() for w in text.split(",") if w] if text else []


class _FieldData:
    """Everything written for one field: its tokens and each document's length."""

    __slots__ = ("name", "tokens", "lengths")

    def __init__(self, name: str, tokens: _Tokens, lengths: np.ndarray | None):
        self.name, self.tokens, self.lengths = name, tokens, lengths


def _analyse(docs: Sequence, vocab: Vocabulary) -> dict[str, _FieldData]:
    """Tokens of every indexed field of ``docs`` (the values of ``IndexDocument.fields``)."""
    findall = WORD_RE.findall
    n = len(docs)
    raw: list[str] = []
    counts = np.zeros((n, 4), dtype=np.int64)
    # The words fields (author, the venue): their words and each document's count.
    worded = {name: ([], np.zeros(n, dtype=np.int64))
              for name, kind in FIELD_KINDS.items() if kind == "words"}
    keywords: dict[str, list[list[str]]] = {
        name: [] for name, kind in FIELD_KINDS.items()
        if kind in ("spaces", "spaces_lower", "commas_lower", "id")}
    pieces: list[np.ndarray] = []   # folded ids, ANALYSE_CHUNK documents at a time
    for i, doc in enumerate(docs):
        values = doc.field_values()
        row = counts[i]
        for k, name in enumerate(STEM_TEXTS):
            text = values[name]
            if text:
                words = findall(text)
                raw += words
                row[k] = len(words)
        if len(raw) >= ANALYSE_CHUNK:   # the words as strings take ~60 bytes each
            pieces.append(vocab.ids(raw).astype(np.int32))
            raw = []
        for name, (found, per_doc) in worded.items():
            if values[name]:
                words = findall(values[name])
                found += words
                per_doc[i] = len(words)
        for name, out in keywords.items():
            kind = FIELD_KINDS[name]
            value = values[name]
            if kind == "commas_lower":
                out.append(_split_commas(value))
            elif kind == "id":
                out.append([value])
            else:
                out.append(_split_spaces(value, kind == "spaces_lower"))

    fields: dict[str, _FieldData] = {}
    pieces.append(vocab.ids(raw).astype(np.int32))
    del raw
    folded = np.concatenate(pieces)
    del pieces
    worded_ids = {name: vocab.ids(found).astype(np.int32)
                  for name, (found, _per_doc) in worded.items()}
    stems = vocab.stem_array().astype(np.int32)
    totals = counts.sum(axis=1)
    doc = _doc_numbers(totals)
    fields["exact"] = _FieldData(
        "exact", _Tokens(doc, folded, _positions(totals), vocab.folded_bytes), totals)
    part = np.repeat(np.tile(np.arange(4, dtype=np.int8), n), counts.ravel())
    stemmed = stems[folded] if len(folded) else folded
    del stems
    for k, name in enumerate(STEM_TEXTS):
        mask = part == k
        fields[name] = _FieldData(
            name, _Tokens(doc[mask], stemmed[mask], None, vocab.stem_bytes), counts[:, k])
    del part, stemmed
    for name, (_found, per_doc) in worded.items():
        fields[name] = _FieldData(
            name, _Tokens(_doc_numbers(per_doc), worded_ids[name], _positions(per_doc),
                          vocab.folded_bytes), per_doc)
    for name, values in keywords.items():
        tokens = _keyword_tokens(values)
        lengths = np.fromiter(map(len, values), np.int64, n)
        fields[name] = _FieldData(name, tokens, lengths)
    return fields


def _position_values(group_start: np.ndarray, group_count: np.ndarray,
                     pos: np.ndarray) -> tuple[bytes, np.ndarray]:
    """Whoosh ``Positions.encode`` of every posting at once.

    Each value is ``pack_uint(count)`` and a protocol-2 pickle of the list of position
    deltas (the first from 0), exactly as ``pickle.dumps(deltas, 2)`` writes it for up
    to 1,000 entries: ``PROTO 2``, ``EMPTY_LIST``, ``BINPUT 0``, then the one item and
    ``APPEND``, or ``MARK``, the items and ``APPENDS``; items are ``BININT1``,
    ``BININT2`` or ``BININT``; then ``STOP``.

    Args:
        group_start: index in ``pos`` of each posting's first position.
        group_count: number of positions of each posting.
        pos: positions, ascending within each posting.
    Returns:
        ``(buffer, offsets)``: the values one after another, and ``len + 1`` offsets.
    """
    pos = pos.astype(np.int64, copy=False)
    delta = np.empty_like(pos)
    delta[0:1] = pos[0:1]
    np.subtract(pos[1:], pos[:-1], out=delta[1:])
    delta[group_start] = pos[group_start]          # each posting's deltas start from 0
    size = np.full(len(pos), 2, dtype=np.int8)
    size[delta >= 256] = 3
    size[delta >= 65536] = 5
    multi = group_count > 1
    item_bytes = (np.add.reduceat(size, group_start, dtype=np.int64) if len(pos)
                  else np.zeros(0, dtype=np.int64))
    offsets = np.zeros(len(group_count) + 1, dtype=np.int64)
    np.cumsum(item_bytes + (11 + multi), out=offsets[1:])   # 4 + 2 + 3 + multi + 2
    del item_bytes
    buf = np.zeros(int(offsets[-1]), dtype=np.uint8)
    o = offsets[:-1]
    c = group_count
    buf[o] = (c >> 24) & 255
    buf[o + 1] = (c >> 16) & 255
    buf[o + 2] = (c >> 8) & 255
    buf[o + 3] = c & 255
    buf[o + 4] = 0x80
    buf[o + 5] = 2
    buf[o + 6] = ord("]")
    buf[o + 7] = ord("q")
    buf[(o + 9)[multi]] = ord("(")
    at = np.cumsum(size, dtype=np.int64)        # where each item starts: its posting's
    at -= size                                  # items start, plus the bytes before it
    at -= np.repeat(at[group_start] - (o + 9 + multi), group_count)
    _put_pickled_ints(buf, at, delta, size)
    del at, delta, size
    end = offsets[1:]
    buf[end - 2] = np.where(multi, ord("e"), ord("a"))
    buf[end - 1] = ord(".")
    return buf.tobytes(), offsets


def _write_field(field, data: _FieldData, fieldid: int, postfile, tindex,
                 blocklimit: int, qlengths: np.ndarray | None) -> None:
    """Write one field's terms and postings (``W3FieldWriter`` for a whole field).

    The field's tokens are sorted once by term (stable, so documents and positions stay
    in order); then whole terms of about :data:`CHUNK_TOKENS` tokens at a time are
    turned into postings, blocks and term infos, so memory stays bounded whatever the
    batch size.
    """
    tokens = data.tokens
    if not len(tokens.term):
        return
    # Terms in the order of their bytes, as the terms file needs them.
    present = np.flatnonzero(np.bincount(tokens.term))   # the ids used, ascending
    names = tokens.terms
    keys = [names[t] for t in present.tolist()]
    by_bytes = sorted(range(len(keys)), key=keys.__getitem__)
    keys = [keys[i] for i in by_bytes]
    rank = np.zeros(int(present[-1]) + 1, dtype=np.int32)
    rank[present[by_bytes]] = np.arange(len(present), dtype=np.int32)
    term = rank[tokens.term]
    del rank, present, by_bytes
    # By term, documents (and positions) in order: a stable sort, done as a sort of
    # unique keys (term, token number), which numpy sorts about twice as fast.
    order = np.argsort((term.astype(np.int64) << 32) | np.arange(len(term), dtype=np.int64))
    term, doc = term[order], tokens.doc[order]
    pos = tokens.pos[order] if tokens.pos is not None else None
    del order
    tstart = np.flatnonzero(np.diff(term, prepend=-1))       # each term's first token
    tend = np.append(tstart[1:], len(term))
    cuts = np.searchsorted(tend, np.arange(CHUNK_TOKENS, len(term), CHUNK_TOKENS))
    bounds = [0, *sorted({int(c) + 1 for c in cuts if int(c) + 1 < len(tstart)}),
              len(tstart)]
    for j0, j1 in zip(bounds, bounds[1:]):
        q0, q1 = int(tstart[j0]), int(tend[j1 - 1])
        _write_terms(field, term[q0:q1], doc[q0:q1], None if pos is None else pos[q0:q1],
                     keys, _FIELDID.pack(fieldid), postfile, tindex, blocklimit, qlengths)


def _write_terms(field, term: np.ndarray, doc: np.ndarray, pos: np.ndarray | None,
                 keys: list[bytes], prefix: bytes, postfile, tindex, blocklimit: int,
                 qlengths: np.ndarray | None) -> None:
    """Write the postings of whole terms, given their tokens sorted by term (then
    document and position), and add their term infos (``W3PostingsWriter`` and
    ``W3TermInfo`` for many terms at once)."""
    fmt = type(field.format).__name__
    boost = float(field.format.field_boost)
    new = np.ones(len(term), dtype=bool)
    new[1:] = (term[1:] != term[:-1]) | (doc[1:] != doc[:-1])
    gstart = np.flatnonzero(new)
    gcount = np.diff(np.append(gstart, len(term)))
    gterm, gdoc = term[gstart], doc[gstart].astype(np.int64)
    if fmt == "Existence":
        weights = np.full(len(gstart), boost, dtype=np.float32)
    else:
        weights = (gcount.astype(np.float32) * np.float32(boost)).astype(np.float32)
    values = fbuf = None
    if fmt == "Positions":
        values = _position_values(gstart, gcount, pos)
    elif fmt == "Frequency":
        fbuf = gcount.astype(">u4").tobytes()
    _write_postings(fmt, gterm, gdoc, weights, values, fbuf, keys, prefix, postfile,
                    tindex, blocklimit, qlengths)


def _pickle_ints(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``x`` (integers in 0 .. 2**31 - 1) as pickle writes an int:
    ``BININT1`` (``K`` and a byte), ``BININT2`` (``M`` and two little-endian bytes) or
    ``BININT`` (``J`` and four).

    Returns:
        ``(buffer, sizes)``: the encodings one after another (uint8), and each one's
        size in bytes (2, 3 or 5).
    """
    x = np.asarray(x, dtype=np.int64)
    size = np.full(len(x), 2, dtype=np.int64)
    size[x >= 256] = 3
    size[x >= 65536] = 5
    at = np.cumsum(size) - size
    buf = np.zeros(int(size.sum()), dtype=np.uint8)
    _put_pickled_ints(buf, at, x, size)
    return buf, size


def _put_pickled_ints(buf: np.ndarray, at: np.ndarray, values: np.ndarray,
                      size: np.ndarray) -> None:
    """Write non-negative ints as the pickler's opcodes (pickle protocol 2,
    ``Lib/pickle.py`` ``save_long``): ``K`` and 1 byte (size 2), ``M`` and 2 bytes
    little-endian (size 3), ``J`` and 4 bytes (size 5), at the byte offsets ``at`` of
    ``buf`` (uint8), one int per offset; ``size`` says which opcode each takes."""
    buf[at] = ord("K")
    buf[at + 1] = values & 255
    two = size >= 3
    buf[at[two]] = ord("M")
    buf[at[two] + 2] = (values[two] >> 8) & 255
    four = size == 5
    buf[at[four]] = ord("J")
    buf[at[four] + 3] = (values[four] >> 16) & 255
    buf[at[four] + 4] = (values[four] >> 24) & 255


def _pickle_floats(x: np.ndarray) -> np.ndarray:
    """Each of ``x`` as pickle writes a float: ``G`` and the big-endian double (9 bytes
    each, one after another)."""
    out = np.empty((len(x), 9), dtype=np.uint8)
    out[:, 0] = ord("G")
    out[:, 1:] = np.asarray(x, dtype=">f8").view(np.uint8).reshape(len(x), 8)
    return out.ravel()


def _const(data: bytes, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A part of :func:`_scatter`: ``data`` for each item where ``flags`` is true,
    nothing for the others."""
    flags = np.asarray(flags, dtype=bool)
    count = int(flags.sum())
    buf = np.tile(np.frombuffer(data, dtype=np.uint8), count)
    return buf, flags.astype(np.int64) * len(data)


def _byte(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A part of :func:`_scatter`: one byte (``values & 255``) for each item."""
    values = np.asarray(values, dtype=np.int64)
    return (values & 255).astype(np.uint8), np.ones(len(values), dtype=np.int64)


def _scatter(out: np.ndarray, starts: np.ndarray, parts) -> np.ndarray:
    """Write items made of parts into ``out``: item ``i`` is part 0's bytes for ``i``,
    then part 1's, ... from ``out[starts[i]]`` on.

    Args:
        out: the uint8 buffer written into.
        starts: where each item starts in ``out`` (int64).
        parts: ``(buffer, sizes)`` pairs: the part's bytes of all items one after
            another, and each item's number of them.
    Returns:
        Where each item ends in ``out``.
    """
    at = np.array(starts, dtype=np.int64)
    for buf, sizes in parts:
        total = len(buf)
        if total:
            src = np.cumsum(sizes) - sizes
            out[np.repeat(at - src, sizes) + np.arange(total, dtype=np.int64)] = buf
        at += sizes
    return at


def _concat(parts, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` items made of parts (as :func:`_scatter`) laid one after another:
    ``(buffer, sizes)``, itself a part."""
    sizes = np.zeros(count, dtype=np.int64)
    for _buf, s in parts:
        sizes += s
    out = np.empty(int(sizes.sum()), dtype=np.uint8)
    _scatter(out, np.cumsum(sizes) - sizes, parts)
    return out, sizes


def _tuple_parts(items: tuple[np.ndarray, np.ndarray], n: np.ndarray,
                 mask: np.ndarray | None = None) -> list:
    """The parts (see :func:`_scatter`) of a pickled tuple of ``n`` items for each
    item where ``mask`` is true (protocol 4 and later): ``MARK`` for four or more, the
    items, ``TUPLE1``/``TUPLE2``/``TUPLE3`` or ``TUPLE``, then ``MEMOIZE``."""
    mask = np.ones(len(n), dtype=bool) if mask is None else mask
    ops = np.where(n == 1, 0x85, np.where(n == 2, 0x86, np.where(n == 3, 0x87, ord("t"))))
    return [_const(b"(", mask & (n >= 4)), items,
            (ops[mask].astype(np.uint8), mask.astype(np.int64)), _const(b"\x94", mask)]


def _small_bodies(fmt: str, n: np.ndarray, deltas: np.ndarray, weights: np.ndarray,
                  wkind: np.ndarray, vbuf: np.ndarray | None,
                  vpos: tuple[np.ndarray, np.ndarray] | None) -> tuple[list, np.ndarray]:
    """The pickled data of one-block terms without compression, as
    ``pickle.dumps((tuple(deltas), w, v), 5)`` writes it for a small block (one
    ``FRAME``): the parts of each term's data (see :func:`_scatter`) and its size.

    Args:
        fmt: the field's format class name.
        n: postings of each term.
        deltas: the delta-encoded document numbers of their postings, term after term.
        weights: their weights (float64).
        wkind: each term's ``w``: 0 ``None`` (all 1.0), 1 one float (all the same), 2
            a tuple of floats.
        vbuf: ``Positions``: encoded values (uint8), ``vpos`` the start and length of
            each posting's value in it; ``Frequency``: the postings' frequencies as 4
            big-endian bytes each (``vpos`` unused).
    Returns:
        ``(parts, sizes)``: the parts for :func:`_scatter` and each term's data size.
    """
    terms = len(n)
    ints, isize = _pickle_ints(deltas)
    starts = np.cumsum(n) - n
    dsize = np.add.reduceat(isize, starts) if len(isize) else np.zeros(terms, np.int64)
    parts = [(np.tile(np.frombuffer(b"\x80\x05\x95", np.uint8), terms), np.full(terms, 3))]
    frame_at = len(parts)
    parts.append(None)                     # the frame length, filled in below
    parts += _tuple_parts((ints, dsize), n)
    # w: None, one float (all the postings' weights the same), or a tuple of floats
    one, many = wkind == 1, wkind == 2
    wone = _pickle_floats(weights[starts[one]])
    wmany = _pickle_floats(weights[np.repeat(many, n)])
    parts += [_const(b"N", wkind == 0), (wone, one.astype(np.int64) * 9)]
    parts += _tuple_parts((wmany, np.where(many, n * 9, 0)), n, many)
    if fmt == "Positions":
        src, vlen = vpos
        data = vbuf[np.repeat(src - (np.cumsum(vlen) - vlen), vlen)
                    + np.arange(int(vlen.sum()), dtype=np.int64)]
        count = len(vlen)
        each, esize = _concat([_const(b"C", np.ones(count, bool)), _byte(vlen),
                               (data, vlen), _const(b"\x94", np.ones(count, bool))], count)
        vsize = np.add.reduceat(esize, starts) if count else np.zeros(terms, np.int64)
        parts += _tuple_parts((each, vsize), n)
    elif fmt == "Frequency":
        parts += [_const(b"C", np.ones(terms, bool)), _byte(4 * n), (vbuf, 4 * n),
                  _const(b"\x94", np.ones(terms, bool))]
    else:
        parts.append(_const(b"N", np.ones(terms, bool)))
    parts.append(_const(b"\x87\x94.", np.ones(terms, bool)))
    size = np.full(terms, 8, dtype=np.int64)      # the frame's length field
    for part in parts:
        if part is not None:
            size += part[1]
    frame = (size - 11).astype("<u8").view(np.uint8)
    parts[frame_at] = (frame, np.full(terms, 8, dtype=np.int64))
    return parts, size


#: Term infos as ``W3TermInfo`` packs them, then the postings' extent (offset, length).
_TERMINFO_DTYPE = np.dtype([("zero", "u1"), ("weight", ">f4"), ("count", ">u4"),
                            ("minlen", "u1"), ("maxlen", "u1"), ("maxweight", ">f4"),
                            ("first", ">u4"), ("last", ">u4"), ("offset", ">i8"),
                            ("length", ">i4")])
_BLOCKINFO_TAIL = b"t" + b"q\x00" + b"."   # TUPLE, BINPUT 0, STOP


def _write_postings(fmt: str, gterm: np.ndarray, gdoc: np.ndarray, weights: np.ndarray,
                    values: tuple[bytes, np.ndarray] | None, fbuf: bytes | None,
                    keys: list[bytes], prefix: bytes, postfile, tindex, blocklimit: int,
                    qlengths: np.ndarray | None, copied: list | None = None) -> None:
    """Write postings of whole terms (sorted by term, then document) as blocks of
    ``blocklimit``, and add their term infos to ``tindex``.

    Each block is what ``W3PostingsWriter._write_block`` writes, its data pickled
    (``pickle.dumps(..., 5)``) and compressed when over :data:`_COMPRESS_MIN` bytes.
    The terms of one small block (most terms of a batch: words of one or a few
    abstracts) are written with array operations, the same bytes as the pickler's
    (:func:`_small_bodies`); the others block by block with :mod:`pickle` and
    :mod:`zlib`.

    Args:
        fmt: the field's format class name (``Positions``, ``Frequency``, ``Existence``).
        gterm: each posting's term, an index into ``keys`` (ascending).
        gdoc: each posting's document number in the segment (int64).
        weights: each posting's weight (float32; Whoosh stores it as a float).
        values: ``Positions``: ``(buffer, offsets)``, each posting's encoded value
            (``Positions.encode``) one after another and ``len + 1`` offsets.
        fbuf: ``Frequency``: each posting's frequency as 4 big-endian bytes, joined.
        keys: term bytes by term number; prefix: the packed field id of the keys.
        postfile, tindex: the segment's postings file and terms ``OrderedHashWriter``.
        qlengths: each document's field length as its byte decodes (0 for none), for
            the blocks' length bounds; ``None`` for a field without lengths.
        copied: terms written as they are (a merge's, see :func:`_copy_term`):
            ``(term number, body, term info without its extent)`` by term number, none
            of them in ``gterm``.
    """
    if not len(gterm):
        _emit_terms(np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.int64),
                    np.zeros(0, dtype=_TERMINFO_DTYPE), [], copied, keys, prefix,
                    postfile, tindex)
        return
    # Terms over the postings, and blocks of `blocklimit` postings within each term.
    tnew = np.ones(len(gterm), dtype=bool)
    tnew[1:] = gterm[1:] != gterm[:-1]
    tstart = np.flatnonzero(tnew)
    tcount = np.diff(np.append(tstart, len(gterm)))
    terms = len(tstart)
    inside = np.arange(len(gterm)) - np.repeat(tstart, tcount)
    bnew = inside % blocklimit == 0
    bstart = np.flatnonzero(bnew)
    bend = np.append(bstart[1:], len(gterm))
    prev = np.empty_like(gdoc)
    prev[0] = 0
    prev[1:] = gdoc[:-1]
    prev[bnew] = 0
    dl = gdoc - prev
    bmax = np.maximum.reduceat(weights, bstart)
    bmin = np.minimum.reduceat(weights, bstart)
    bcount = bend - bstart
    blast = gdoc[bend - 1]
    bmaxw = bmax.astype(np.float64)
    ball1 = (bmin == 1.0) & (bmax == 1.0)
    bsame = bmin == bmax
    w64 = weights.astype(np.float64)
    wsum = np.add.reduceat(w64, bstart)
    if qlengths is not None:
        ql = qlengths[gdoc]
        big = np.iinfo(np.int64).max
        qmin = np.minimum.reduceat(np.where(ql > 0, ql, big), bstart)
        bminl = np.where(qmin == big, 0, _length_bytes(np.where(qmin == big, 0, qmin)))
        bmaxl = _length_bytes(np.maximum.reduceat(ql, bstart))
    else:
        bminl = bmaxl = np.zeros(len(bstart), dtype=np.int64)
    blocks_of = np.append(np.searchsorted(bstart, tstart), len(bstart))
    vbuf = voff = None
    if fmt == "Positions":
        vbuf = np.frombuffer(values[0], dtype=np.uint8)
        voff = np.asarray(values[1], dtype=np.int64)
    elif fmt == "Frequency":
        vbuf = np.frombuffer(fbuf, dtype=np.uint8)

    # The terms of one block: their block info and data, sized, then the small ones
    # (data of at most _COMPRESS_MIN bytes) written as arrays.
    single = np.diff(blocks_of) == 1
    sb = blocks_of[:-1][single]                       # their block
    n = tcount[single]
    ppost = np.repeat(single, tcount)                 # their postings
    wkind = np.where(ball1[sb], 0, np.where(bsame[sb], 1, 2))
    if fmt == "Positions":
        vsel = (voff[:-1][ppost], np.diff(voff)[ppost])
        vdata = vbuf
    elif fmt == "Frequency":
        vsel = None
        vdata = vbuf.reshape(-1, 4)[ppost].ravel()
    else:
        vsel = vdata = None
    dparts, dsize = _small_bodies(fmt, n, dl[ppost], w64[ppost], wkind, vdata, vsel)
    small = np.zeros(terms, dtype=bool)
    small[np.flatnonzero(single)[dsize <= _COMPRESS_MIN]] = True
    keep = dsize <= _COMPRESS_MIN
    if not keep.all():       # the others are written below, block by block
        small_post = np.repeat(small, tcount)
        sb = blocks_of[:-1][small]
        n = tcount[small]
        wkind = wkind[keep]
        if fmt == "Positions":
            vsel = (voff[:-1][small_post], np.diff(voff)[small_post])
        elif fmt == "Frequency":
            vdata = vbuf.reshape(-1, 4)[small_post].ravel()
        dparts, dsize = _small_bodies(fmt, n, dl[small_post], w64[small_post], wkind,
                                      vdata, vsel)
    cnt_b, cnt_s = _pickle_ints(bcount[sb])
    last_b, last_s = _pickle_ints(blast[sb])
    ones = np.ones(len(sb), dtype=bool)
    iparts = [_const(b"\x80\x02(", ones), (cnt_b, cnt_s), (last_b, last_s),
              (_pickle_floats(bmaxw[sb]), np.full(len(sb), 9, dtype=np.int64)),
              _const(b"K\x00K", ones), _byte(bminl[sb]), _const(b"K", ones),
              _byte(bmaxl[sb]), _const(_BLOCKINFO_TAIL, ones)]
    isize = 3 + cnt_s + last_s + 9 + 3 + 1 + 1 + 1 + len(_BLOCKINFO_TAIL)
    # Body sizes: the small terms' now, the others' when written.
    length = np.zeros(terms, dtype=np.int64)
    length[small] = len(_MAGIC) + 4 + isize + dsize
    weight = np.zeros(terms, dtype=np.float64)
    weight[small] = wsum[sb]
    minlen = np.zeros(terms, dtype=np.int64)
    maxlen = np.zeros(terms, dtype=np.int64)
    maxweight = np.zeros(terms, dtype=np.float64)
    minlen[small] = bminl[sb]
    maxlen[small] = bmaxl[sb]
    maxweight[small] = np.maximum(bmaxw[sb], 0.0)
    others: list[tuple[int, bytes]] = []
    big_terms = np.flatnonzero(~small).tolist()
    if big_terms:
        dumps, compress = pickle.dumps, zlib.compress
        deltas = dl.tolist()
        wlist = w64.tolist()
        bcount_l, blast_l, bmaxw_l = bcount.tolist(), blast.tolist(), bmaxw.tolist()
        ball1_l, bsame_l, wsum_l = ball1.tolist(), bsame.tolist(), wsum.tolist()
        bminl_l, bmaxl_l = np.asarray(bminl).tolist(), np.asarray(bmaxl).tolist()
        blocks_l, tstart_l = blocks_of.tolist(), tstart.tolist()
        voff_l = voff.tolist() if voff is not None else None
        for j in big_terms:
            parts = [_MAGIC]
            tw = 0.0
            tmaxw = 0.0
            tminl = tmaxl = 0
            a = tstart_l[j]
            k1 = blocks_l[j + 1]
            for b in range(blocks_l[j], k1):
                z = a + bcount_l[b]
                if ball1_l[b]:
                    w = None
                elif bsame_l[b]:
                    w = wlist[a]
                else:
                    w = tuple(wlist[a:z])
                if fmt == "Positions":
                    buf = values[0]
                    v = tuple([buf[voff_l[i]:voff_l[i + 1]] for i in range(a, z)])
                elif fmt == "Frequency":
                    v = fbuf[4 * a:4 * z]
                else:
                    v = None
                raw = dumps((tuple(deltas[a:z]), w, v), _DATA_PROTOCOL)
                comp = 0
                if len(raw) > _COMPRESS_MIN:  # the reader decompresses when comp is set
                    raw, comp = compress(raw, _COMPRESSION), _COMPRESSION
                info = dumps((bcount_l[b], blast_l[b], bmaxw_l[b], comp, bminl_l[b],
                              bmaxl_l[b]), 2)
                size = len(info) + len(raw)
                parts.append(_BLOCKLEN.pack(-size if b == k1 - 1 else size))
                parts.append(info)
                parts.append(raw)
                tw += wsum_l[b]
                if bmaxw_l[b] > tmaxw:
                    tmaxw = bmaxw_l[b]
                if bminl_l[b] and (not tminl or bminl_l[b] < tminl):
                    tminl = bminl_l[b]
                if bmaxl_l[b] > tmaxl:
                    tmaxl = bmaxl_l[b]
                a = z
            body = b"".join(parts)
            others.append((j, body))
            length[j] = len(body)
            weight[j], maxweight[j], minlen[j], maxlen[j] = tw, tmaxw, tminl, tmaxl
    offset = np.cumsum(length) - length
    out = np.empty(int(length.sum()), dtype=np.uint8)
    if small.any():
        start = offset[small]
        count = int(small.sum())
        size = len(_MAGIC) + 4 + isize + dsize
        head = np.empty((count, 8), dtype=np.uint8)
        head[:, :4] = np.frombuffer(_MAGIC, dtype=np.uint8)
        head[:, 4:] = (-(isize + dsize)).astype(">i4").view(np.uint8).reshape(count, 4)
        _scatter(out, start, [(head.ravel(), np.full(count, 8, dtype=np.int64)),
                              *iparts, *dparts])
    for j, body in others:
        at = int(offset[j])
        out[at:at + len(body)] = np.frombuffer(body, dtype=np.uint8)
    info = np.zeros(terms, dtype=_TERMINFO_DTYPE)
    info["weight"] = weight
    info["count"] = tcount
    info["minlen"] = minlen
    info["maxlen"] = maxlen
    info["maxweight"] = maxweight
    info["first"] = gdoc[tstart]
    info["last"] = gdoc[tstart + tcount - 1]
    _emit_terms(out, length, info, gterm[tstart].tolist(), copied, keys, prefix, postfile,
                tindex)


def _emit_terms(out: np.ndarray, length: np.ndarray, info: np.ndarray, names: list[int],
                copied: list | None, keys: list[bytes], prefix: bytes, postfile,
                tindex) -> None:
    """Write the bodies of terms (``out``: one after another, ``length`` each; their
    term numbers ``names``, ascending) and the ``copied`` ones in term order, and add
    their term infos (``info``, offsets and lengths filled in here)."""
    base = postfile.tell()
    if copied:
        cnames = [c[0] for c in copied]
        cbodies = [c[1] for c in copied]
        clength = np.fromiter(map(len, cbodies), np.int64, len(cbodies))
        cinfo = np.frombuffer(b"".join(c[2] + bytes(_EXTENT.size) for c in copied),
                              dtype=_TERMINFO_DTYPE).copy()
        allnames = np.array(names + cnames, dtype=np.int64)
        order = np.argsort(allnames, kind="stable")
        lengths = np.concatenate((length, clength))[order]
        starts = np.empty(len(order), dtype=np.int64)
        starts[order] = np.cumsum(lengths) - lengths     # by place in names + cnames
        whole = np.empty(int(lengths.sum()), dtype=np.uint8)
        own = len(names)
        if own:
            at = starts[:own]
            src = np.cumsum(length) - length
            whole[np.repeat(at - src, length) + np.arange(len(out), dtype=np.int64)] = out
        for at, body in zip(starts[own:].tolist(), cbodies):
            whole[at:at + len(body)] = np.frombuffer(body, dtype=np.uint8)
        both = np.empty(len(order), dtype=_TERMINFO_DTYPE)   # (concatenate would
        both[:own] = info                                     # make it native-endian)
        both[own:] = cinfo
        info = both
        info["offset"] = starts + base
        info["length"] = np.concatenate((length, clength))
        info = info[order]
        names = allnames[order].tolist()
        out = whole
    else:
        info["offset"] = np.cumsum(length) - length + base
        info["length"] = length
    postfile.write(out.tobytes())
    _add_terms(tindex, [prefix + keys[t] for t in names], info.tobytes(),
               _TERMINFO_DTYPE.itemsize)


def _add_terms(tindex, keys: list[bytes], values: bytes, size: int) -> None:
    """``OrderedHashWriter.add(key, value)`` for each key (ascending) and its value (the
    ``size`` bytes of ``values`` at its rank), with one write: the same bytes, hash
    buckets, key index and last key as one call each."""
    if not keys:
        return
    dbfile = tindex.dbfile
    pos = dbfile.tell()
    if keys[0] <= tindex.lastkey:
        raise ValueError(f"Keys must increase: {tindex.lastkey!r}..{keys[0]!r}")
    count = len(keys)
    klen = np.fromiter(map(len, keys), np.int64, count)
    head = np.empty((count, 2), dtype=">i4")       # filetables._lengths: "!ii"
    head[:, 0] = klen
    head[:, 1] = size
    entry = 8 + klen + size
    starts = np.cumsum(entry) - entry
    out = np.empty(int(entry.sum()), dtype=np.uint8)
    _scatter(out, starts, [(head.view(np.uint8).ravel(), np.full(count, 8, dtype=np.int64)),
                           (np.frombuffer(b"".join(keys), dtype=np.uint8), klen),
                           (np.frombuffer(values, dtype=np.uint8),
                            np.full(count, size, dtype=np.int64))])
    dbfile.write(out.tobytes())
    positions = (starts + pos).tolist()
    if tindex.hashfn is filetables.md5_hash:   # the same value, without the hex string
        hashes = [int.from_bytes(md5(k, usedforsecurity=False).digest()[12:], "big")
                  for k in keys]
    else:
        hashes = list(map(tindex.hashfn, keys))
    buckets = tindex.buckets
    for h, p in zip(hashes, positions):
        buckets[h & 255].append((h, p))
    tindex.index.extend(positions)
    tindex.lastkey = keys[-1]


class _TermsWriter(filetables.OrderedHashWriter):
    """Whoosh's ``OrderedHashWriter`` whose hash tables are written with one write each
    (the same bytes: ``HashWriter._write_hashes`` packs and writes every slot)."""

    def _write_hashes(self) -> None:
        dbfile = self.dbfile
        for entries in self.buckets:
            pos = dbfile.tell()
            numslots = 2 * len(entries)
            self.directory.append((pos, numslots))
            if not numslots:
                continue
            hashes = [0] * numslots
            places = [0] * numslots      # 0: empty (no key starts at 0, the header's)
            for hashval, position in entries:
                slot = (hashval >> 8) % numslots
                while places[slot]:
                    slot = (slot + 1) % numslots
                hashes[slot] = hashval
                places[slot] = position
            table = np.empty(numslots, dtype=_POINTER_DTYPE)
            table["hash"] = hashes
            table["position"] = places
            dbfile.write(table.tobytes())


#: ``filetables._pointer`` (``"!Iq"``): a hash table slot.
_POINTER_DTYPE = np.dtype([("hash", ">u4"), ("position", ">i8")])


class _PrivateTemp:
    """The index storage, except that temporary files go to a folder of their own (two
    processes writing segments at once must not share Whoosh's ``MAIN.tmp``)."""

    def __init__(self, storage, folder: str):
        self._storage, self._folder = storage, folder

    def __getattr__(self, name):
        return getattr(self._storage, name)

    def temp_storage(self, name=None):
        return FileStorage(os.path.join(self._folder, name or "tmp")).create()


#: The characters of a segment id (Whoosh's ``whoosh.util.IDCHARS``).
_ID_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"


def fresh_segment_id(storage, indexname: str, size: int = 16) -> str:
    """A segment id no file of the index uses yet, drawn from :mod:`secrets`.

    Whoosh draws segment ids from the global :mod:`random` generator, which anything in
    the process may seed: after ``random.seed(0)`` (Hypothesis does it before each
    example; an embedding program could) the next segment got the name of an existing
    one, and every later write failed an assertion in ``create_compound_file``.

    Args:
        storage: the index's ``FileStorage``.
        indexname: the index name (Whoosh's ``MAIN``).
        size: characters in the id (Whoosh uses 16).
    Returns:
        The id (lower-case letters and digits).
    """
    names = set(storage.list())
    while True:
        segid = "".join(secrets.choice(_ID_CHARS) for _ in range(size))
        prefix = f"{indexname}_{segid}"
        if not any(name.startswith(prefix) for name in names):
            return segid


def build_segment(storage, indexname: str, schema, docs: Sequence,
                  vocab: Vocabulary | None = None, blocklimit: int = 1024) -> W3Segment:
    """Write one new segment holding ``docs`` into ``storage`` (not yet in the index:
    the caller's writer commits it, see :func:`paperdesk.core.search.index.apply_batch`).

    Args:
        storage: the index's Whoosh ``FileStorage``.
        indexname: the index name (``"MAIN"``).
        schema: the index schema (checked with :func:`check_schema`).
        docs: :class:`~paperdesk.core.search.index.IndexDocument` objects; the segment's
            document numbers follow their order.
        vocab: a :class:`Vocabulary` to reuse across batches (one per process).
        blocklimit: postings per block (``W3Codec(blocklimit=...)``).
    Returns:
        The ``W3Segment`` (compound, ``doc_count_all() == len(docs)``).
    Raises:
        Unsupported: the schema is not the one this writer knows.
        ValueError: ``docs`` is empty.
        OSError: the files could not be written (the partial files are removed).
    """
    if not docs:
        raise ValueError("no documents")
    check_schema(schema)
    vocab = vocab if vocab is not None else Vocabulary()
    codec = W3Codec(blocklimit=blocklimit)
    segment = W3Segment(codec, indexname, segid=fresh_segment_id(storage, indexname))
    segment.set_doc_count(len(docs))
    temp = tempfile.mkdtemp(prefix="paperdesk-segment-")
    try:
        fields = _analyse(docs, vocab)
        qlengths = {}
        # Per-document values: stored ids, field lengths (scorable fields), paper ids.
        from paperdesk.core.search.fastscore import PID_FIELD  # noqa: PLC0415

        perdoc = W3PerDocWriter(codec, _PrivateTemp(storage, temp), segment)
        pidfield = schema[PID_FIELD]
        pidcol = pidfield.column_type
        lengthfields = [(name, fields[name].lengths) for name in sorted(FIELD_KINDS)
                        if schema[name].scorable]
        lengthbytes = {name: _length_bytes(lengths).tolist() for name, lengths in lengthfields}
        for name, lengths in lengthfields:
            qlengths[name] = _LENGTH_CACHE[_length_bytes(lengths)] * (lengths > 0)
            perdoc._fieldlengths[name] += int(lengths.sum())
        add_value = perdoc.add_column_value
        for i, doc in enumerate(docs):
            perdoc.start_doc(i)
            perdoc._storedfields["id"] = str(doc.id)
            for name, _lengths in lengthfields:
                byte = lengthbytes[name][i]
                if byte:
                    add_value(_lenfield(name), LENGTHS_COLUMN, byte)
            add_value(PID_FIELD, pidcol, pidfield.to_column_value(doc.id))
            perdoc.finish_doc()
        perdoc._fieldlengths = {k: v for k, v in perdoc._fieldlengths.items() if v}
        perdoc.close()
        # Terms and postings, field by field in name order (as Whoosh's pool sorts them).
        tindex = _TermsWriter(segment.create_file(storage, W3Codec.TERMS_EXT))
        fieldmap = tindex.extras["fieldmap"] = {}
        postfile = segment.create_file(storage, W3Codec.POSTS_EXT)
        for name in sorted(fields):
            data = fields[name]
            if not len(data.tokens.term):
                continue
            fieldmap[name] = len(fieldmap)
            _write_field(schema[name], data, fieldmap[name], postfile, tindex, blocklimit,
                         qlengths.get(name))
        tindex.close()
        postfile.close()
        segment.create_compound_file(storage)
    except BaseException:
        remove_segment_files(storage, segment)
        raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return segment


def remove_segment_files(storage, segment) -> None:
    """Delete the files of a segment that was written but never committed."""
    prefix = segment.segment_id()
    for name in list(storage.list()):
        if name.startswith(prefix):
            try:
                storage.delete_file(name)
            except OSError:
                pass


# -- merging segments -------------------------------------------------------------------
#: Postings gathered from the source segments before they are written (bounds the
#: memory of a merge whatever the segments' size).
MERGE_CHUNK_POSTINGS = 1 << 20
_LENGTHS = struct.Struct("!II")        # filetables._lengths: key length, value length
_INFO_SIZE = _TERMINFO.size


def _terms_by_field(reader) -> dict[str, dict[bytes, bytes]]:
    """Every term of a segment with its term info bytes, by field name: the key/value
    area of the terms file read as one slice (keys are a 2-byte field number and the
    term's bytes)."""
    tindex = reader._terms._tindex
    unmap = reader._terms._fieldunmap
    start, end = tindex.startofdata, tindex.endofdata
    data = bytes(tindex.dbfile.get(start, end - start))
    out: dict[str, dict[bytes, bytes]] = {name: {} for name in unmap if name is not None}
    unpack = _LENGTHS.unpack_from
    pos, stop = 0, len(data)
    current, fid_now = None, -1
    while pos < stop:
        klen, vlen = unpack(data, pos)
        k0 = pos + 8
        fid = (data[k0] << 8) | data[k0 + 1]
        if fid != fid_now:
            fid_now, current = fid, out[unmap[fid]]
        current[data[k0 + 2:k0 + klen]] = data[k0 + klen:k0 + klen + vlen]
        pos = k0 + klen + vlen
    return out


class _Gathered:
    """Postings of whole terms read from the sources for :func:`_write_postings`: the
    blocks' delta-encoded ids as read, with each block's document base, weights, and
    the values (``Positions``: one per posting; ``Frequency``: 4 bytes a posting)."""

    __slots__ = ("deltas", "blocks", "weights", "values", "terms", "count")

    def __init__(self):
        self.deltas: list = []      # tuples of delta-encoded ids, one per block
        self.blocks: list = []      # (postings, base) of each block
        self.weights: list = []     # tuples or repeat() of each block's weights
        self.values: list = []
        self.terms: list = []       # (term number, postings) of each term
        self.count = 0


def _decode_term(info: bytes, postfile, fmt: str, out: _Gathered, base: int) -> int:
    """Add one term's postings in one segment (its term info bytes ``info``) to
    ``out``, document numbers shifted by ``base``; returns their number. The block
    format is the one :func:`build_segment` and Whoosh's ``W3PostingsWriter`` write (see
    ``fastscore._read_postings``). Pickles are read with
    :class:`~paperdesk.core.search.safe_pickle.RestrictedUnpickler` (the info and, when
    not compressed, the data of every block through one unpickler, its memo emptied
    before each)."""
    if len(info) != _INFO_SIZE + _EXTENT.size:        # inlined (Whoosh's own writer)
        from whoosh.codec.whoosh3 import W3TermInfo  # noqa: PLC0415

        got_ids, got_w, got_v = W3TermInfo.from_bytes(info).inlined_postings()
        n = len(got_ids)
        out.deltas.append((got_ids[0], *[b - a for a, b in zip(got_ids, got_ids[1:])]))
        out.blocks.append((n, base))
        out.weights.append(tuple(got_w))
        if fmt == "Positions":
            out.values += got_v
        elif fmt == "Frequency":
            out.values.append(b"".join(got_v))
        return n
    offset, length = _EXTENT.unpack_from(info, _INFO_SIZE)
    buf = postfile.get(offset, length)
    stream = io.BytesIO(buf)
    unpickler = safe_pickle.RestrictedUnpickler(stream)
    load, memo = unpickler.load, unpickler.memo
    deltas, blocks, weights, values = out.deltas, out.blocks, out.weights, out.values
    pos, total = 4, 0
    while True:
        blocklen = int.from_bytes(buf[pos:pos + 4], "big", signed=True)
        end = pos + 4 + abs(blocklen)
        stream.seek(pos + 4)
        memo.clear()
        count, _maxid, _maxw, compression, _mn, _mx = load()
        if compression:
            ids, w, v = safe_pickle.loads(zlib.decompress(buf[stream.tell():end]))
        else:
            memo.clear()
            ids, w, v = load()
        deltas.append(ids)
        blocks.append((count, base))
        weights.append(w if type(w) is tuple else repeat(1.0 if w is None else w, count))
        if fmt == "Positions":
            values += v
        elif fmt == "Frequency":
            values.append(v)
        total += count
        if blocklen < 0:
            return total
        pos = end


#: Bytes of a pickled int by opcode (``BININT1``, ``BININT2``, ``BININT``).
_INT_BYTES = {0x4B: 1, 0x4D: 2, 0x4A: 4}


def _pickle_int(x: int) -> bytes:
    """``x`` (0 .. 2**31 - 1) as pickle writes an int (see :func:`_pickle_ints`)."""
    if x < 256:
        return b"K" + bytes((x,))
    if x < 65536:
        return b"M" + x.to_bytes(2, "little")
    return b"J" + x.to_bytes(4, "little", signed=True)


def _read_int(body: bytes, at: int) -> tuple[int, int] | None:
    """The pickled int at ``body[at]`` and its size with the opcode, or ``None``."""
    size = _INT_BYTES.get(body[at])
    if size is None:
        return None
    return int.from_bytes(body[at + 1:at + 1 + size], "little", signed=size == 4), size + 1


def _copy_term(info: bytes, postfile, base: int) -> tuple[bytes, bytes] | None:
    """A term of one source segment as the merged segment holds it, without
    unpickling its postings: when they are one uncompressed block laid out as
    :func:`_write_postings` writes it (block info, then the data pickled with protocol
    5 in one frame), the block is copied with its documents shifted by ``base`` (its
    first document number, the only one not delta-encoded, and the block's last) and
    the term info with its first and last document shifted: the bytes that decoding
    and writing the postings again give.

    Args:
        info: the term's info bytes in the source (``W3TermInfo`` and the extent).
        postfile: the source's postings file; base: the source's first document
            number in the merged segment.
    Returns:
        ``(body, term info without the extent)``, or ``None`` when the term must be
        decoded (inlined postings, several blocks, compressed, another layout, or over
        :data:`_COMPRESS_MIN` bytes once shifted).
    """
    if len(info) != _INFO_SIZE + _EXTENT.size:
        return None
    offset, length = _EXTENT.unpack_from(info, _INFO_SIZE)
    body = postfile.get(offset, length)
    blocklen = int.from_bytes(body[4:8], "big", signed=True)
    if body[:4] != _MAGIC or blocklen >= 0 or length != 8 - blocklen:
        return None                                   # several blocks
    if body[8:11] != b"\x80\x02(":
        return None
    count = _read_int(body, 11)
    last = count and _read_int(body, 11 + count[1])
    if not last:
        return None
    rest = 11 + count[1] + last[1]                   # maxweight, compression, lengths
    data = rest + 19
    if (body[rest] != 0x47 or body[rest + 9:rest + 11] != b"K\x00"
            or body[rest + 11] != 0x4B or body[rest + 13] != 0x4B
            or body[rest + 15:data] != _BLOCKINFO_TAIL
            or body[data:data + 3] != b"\x80\x05\x95"
            or int.from_bytes(body[data + 3:data + 11], "little") != length - data - 11):
        return None
    at = data + 11 + (body[data + 11] == 0x28)       # MARK before four ids or more
    first = _read_int(body, at)
    if first is None:
        return None
    new_last = _pickle_int(last[0] + base)
    new_first = _pickle_int(first[0] + base)
    raw = length - data - first[1] + len(new_first)
    if raw > _COMPRESS_MIN:
        return None
    block = b"".join((body[8:11 + count[1]], new_last, body[rest:data], b"\x80\x05\x95",
                      (raw - 11).to_bytes(8, "little"), body[data + 11:at], new_first,
                      body[at + first[1]:]))
    first_doc, last_doc = _FIRST_LAST.unpack_from(info, _INFO_SIZE - _FIRST_LAST.size)
    term = (info[:_INFO_SIZE - _FIRST_LAST.size]
            + _FIRST_LAST.pack(first_doc + base, last_doc + base))
    return _MAGIC + _BLOCKLEN.pack(-len(block)) + block, term


#: The first and last document of a ``W3TermInfo`` (its last 8 bytes).
_FIRST_LAST = struct.Struct("!II")


class MergeCancelled(Exception):
    """:func:`merge_segments` was asked to stop (its partial files are removed)."""


def merge_segments(storage, indexname: str, schema, readers: Sequence,
                   segid: str, blocklimit: int = 1024, cancel=None) -> W3Segment:
    """Write one segment holding the documents of several segments one after another,
    from their postings (no text is analysed again): a merge.

    Every document of the sources is kept, deleted ones included (the caller marks them
    deleted in the new segment), so the index's statistics (document counts, document
    frequencies, field length totals) and every posting's weight are those of the
    sources: BM25F scores stay the same bits, and document ``base_k + d`` of the new
    segment is document ``d`` of source ``k`` (``base_k`` the sources' sizes before
    it), so hits keep their order when the new segment takes the sources' place.

    Args:
        storage: where the new segment's files are written (a ``FileStorage``; the
            caller moves its compound file into the index).
        indexname: the index name (``"MAIN"``).
        schema: the index schema (checked with :func:`check_schema`).
        readers: Whoosh ``SegmentReader`` objects of the source segments, in index order.
        segid: the new segment's id (unused in the index: :func:`fresh_segment_id`).
        blocklimit: postings per block.
        cancel: polled between fields and every :data:`MERGE_CHUNK_POSTINGS` postings;
            True stops the merge (:class:`MergeCancelled`).
    Returns:
        The ``W3Segment`` (compound, no deletions set).
    Raises:
        Unsupported: the schema is not the one this writer knows, or a source has no
            ``pid`` column.
        ValueError: no sources.
        OSError: the files could not be written (the partial files are removed).
        MergeCancelled: ``cancel`` said stop (the partial files are removed).
    """
    from paperdesk.core.search.fastscore import PID_FIELD, _Segment  # noqa: PLC0415

    if not readers:
        raise ValueError("no segments")
    check_schema(schema)
    cancel = cancel or (lambda: False)
    codec = W3Codec(blocklimit=blocklimit)
    segment = W3Segment(codec, indexname, segid=segid)
    sizes = [r.doc_count_all() for r in readers]
    bases = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64).tolist()
    total = int(sum(sizes))
    segment.set_doc_count(total)
    temp = tempfile.mkdtemp(prefix="paperdesk-merge-")
    try:
        infos = [_Segment(r) for r in readers]     # pid column (Unsupported without)
        pids = np.concatenate([s.pids for s in infos])
        perdoc = W3PerDocWriter(codec, _PrivateTemp(storage, temp), segment)
        pidfield = schema[PID_FIELD]
        pidcol = pidfield.column_type
        qlengths: dict[str, np.ndarray] = {}
        lengthbytes: dict[str, list] = {}
        for name in sorted(FIELD_KINDS):
            if not schema[name].scorable:
                continue
            column = f"_{name}_len"
            parts = []
            for r, size in zip(readers, sizes):
                if r._perdoc.has_column(column):
                    parts.append(_Segment._column(_Sized(size), r, column, "B", np.uint8, 0))
                else:
                    parts.append(np.zeros(size, dtype=np.uint8))
            byte = np.concatenate(parts).astype(np.int64)
            qlengths[name] = _LENGTH_CACHE[byte] * (byte > 0)
            lengthbytes[name] = byte.tolist()
            fieldtotal = sum(int(r.segment()._fieldlengths.get(name, 0)) for r in readers)
            if fieldtotal:
                perdoc._fieldlengths[name] += fieldtotal
        names = list(lengthbytes)
        add_value = perdoc.add_column_value
        to_column = pidfield.to_column_value
        for i, pid in enumerate(pids.tolist()):
            perdoc.start_doc(i)
            perdoc._storedfields["id"] = str(pid)
            for name in names:
                byte = lengthbytes[name][i]
                if byte:
                    add_value(_lenfield(name), LENGTHS_COLUMN, byte)
            add_value(PID_FIELD, pidcol, to_column(pid))
            perdoc.finish_doc()
        del lengthbytes
        perdoc._fieldlengths = {k: v for k, v in perdoc._fieldlengths.items() if v}
        perdoc.close()
        tindex = _TermsWriter(segment.create_file(storage, W3Codec.TERMS_EXT))
        fieldmap = tindex.extras["fieldmap"] = {}
        postfile = segment.create_file(storage, W3Codec.POSTS_EXT)
        sources = [_terms_by_field(r) for r in readers]
        postfiles = [r._terms._postfile for r in readers]
        for name in sorted(set().union(*sources)):
            per_seg = [(k, s[name]) for k, s in enumerate(sources) if s.get(name)]
            if not per_seg:
                continue
            fieldmap[name] = len(fieldmap)
            _merge_field(type(schema[name].format).__name__, per_seg, postfiles, bases,
                         _FIELDID.pack(fieldmap[name]), postfile, tindex, blocklimit,
                         qlengths.get(name), cancel)
            for _k, terms in per_seg:
                terms.clear()
        tindex.close()
        postfile.close()
        segment.create_compound_file(storage)
    except BaseException:
        remove_segment_files(storage, segment)
        raise
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return segment


class _Sized:
    """Stands for a ``_Segment`` of ``doccount`` documents (for ``_Segment._column``)."""

    def __init__(self, doccount: int):
        self.doccount = doccount


def _merge_field(fmt: str, per_seg: list, postfiles: list, bases: list, prefix: bytes,
                 postfile, tindex, blocklimit: int, qlengths: np.ndarray | None,
                 cancel=lambda: False) -> None:
    """Write one field's terms of the merged segment: each term's postings from every
    source that has it, source after source, about :data:`MERGE_CHUNK_POSTINGS`
    postings at a time."""
    # Which sources hold each term: most terms of a batch are in one source only.
    where: dict[bytes, int | list[int]] = {}
    for k, terms in per_seg:
        for key in terms:
            found = where.setdefault(key, k)
            if found != k:
                where[key] = [*found, k] if type(found) is list else [found, k]
    keys = sorted(where)
    by_source = dict(per_seg)
    got = _Gathered()
    copies: list = []

    def flush() -> None:
        nonlocal got, copies
        if cancel():
            raise MergeCancelled("merge cancelled")
        if not got.count and not copies:
            return
        total = got.count
        vals = fbuf = None
        if total:
            sizes = np.fromiter((n for n, _b in got.blocks), np.int64, len(got.blocks))
            bases = np.fromiter((b for _n, b in got.blocks), np.int64, len(got.blocks))
            gdoc = np.fromiter(chain.from_iterable(got.deltas), np.int64, total).cumsum()
            ends = sizes.cumsum()
            before = np.concatenate(([0], gdoc[ends[:-1] - 1]))  # ids restart per block
            gdoc += np.repeat(bases - before, sizes)
            w = np.fromiter(chain.from_iterable(got.weights), np.float64,
                            total).astype(np.float32)
            tnum = np.fromiter((t for t, _n in got.terms), np.int64, len(got.terms))
            tcount = np.fromiter((n for _t, n in got.terms), np.int64, len(got.terms))
            gterm = np.repeat(tnum, tcount)
            if fmt == "Positions":
                sizes = np.fromiter(map(len, got.values), np.int64, len(got.values))
                vals = (b"".join(got.values), np.concatenate(([0], np.cumsum(sizes))))
            elif fmt == "Frequency":
                fbuf = b"".join(got.values)
        else:
            gterm = gdoc = np.zeros(0, dtype=np.int64)
            w = np.zeros(0, dtype=np.float32)
        _write_postings(fmt, gterm, gdoc, w, vals, fbuf, keys, prefix, postfile, tindex,
                        blocklimit, qlengths, copied=copies)
        got = _Gathered()
        copies = []

    for j, key in enumerate(keys):
        holders = where[key]
        count = 0
        if type(holders) is int:
            info = by_source[holders][key]
            copy = _copy_term(info, postfiles[holders], bases[holders])
            if copy is not None:
                copies.append((j, *copy))
                if len(copies) >= MERGE_CHUNK_POSTINGS // 8:
                    flush()
                continue
            count = _decode_term(info, postfiles[holders], fmt, got, bases[holders])
        else:
            for k in holders:
                count += _decode_term(by_source[k][key], postfiles[k], fmt, got, bases[k])
        got.terms.append((j, count))
        got.count += count
        if got.count >= MERGE_CHUNK_POSTINGS:
            flush()
    flush()
    flush()
