"""The Whoosh full-text index: schema, writes, one long-lived searcher, queries, snippets.

The index is derived from SQLite and can always be rebuilt (``paperdesk reindex``). Only
the paper id is stored in it; titles and abstracts for snippets come from SQLite.

Searches of the usual shapes are answered by :mod:`.fastscore`, which reads this index's
posting lists into numpy arrays and scores them in bulk (the same BM25F as Whoosh);
other shapes run on Whoosh's searcher. An index written with another schema (an older
paperdesk) is rebuilt (:class:`IndexSchemaMismatch`).

Thread safety: one :class:`SearchIndex` may be used from several threads; searches and
writes are serialised by an internal lock. After every commit the searcher is replaced by
a new one and the old one closed (``Searcher.refresh()`` can return stale copies of
updated documents in whoosh-reloaded 2.7.5; see DESIGN.md).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import logging
import mmap
import operator
import os
import pickle
import re
import shutil
import struct
import threading
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from whoosh import columns
from whoosh import index as windex
from whoosh import query as wquery
from whoosh.analysis import CharsetFilter, LowercaseFilter, RegexTokenizer, StemFilter
from whoosh.codec.whoosh3 import W3Codec, W3Segment
from whoosh.fields import COLUMN, ID, KEYWORD, TEXT, Schema
from whoosh.filedb.compound import SubFile
from whoosh.filedb.filestore import FileStorage
from whoosh.filedb.structfile import StructFile
from whoosh.lang.porter import stem as porter_stem
from whoosh.reading import EmptyReader, MultiReader, SegmentReader
from whoosh.searching import Searcher
from whoosh.support.charset import accent_map

from paperdesk.core.search.fastscore import (PID_FIELD, PID_MISSING, FastCache, FastView,
                                             Unsupported, _Segment, expand_words)
from paperdesk.core.fields import stored_fields
from paperdesk.core.models import LibraryError
from paperdesk.core.search.fastscore import mask_lookup
from paperdesk.core.search.query import DEFAULT_FIELDS, QueryBuilder, QueryPlan
from paperdesk.core.regular_files import open_regular
from paperdesk.core.search import integrity, safe_pickle, segment_writer
from paperdesk.core.search.words import WORD_PATTERN, WORD_RE
from paperdesk.core.search.segment_writer import Vocabulary, build_segment
from paperdesk.core.search.writer_process import (VOCABULARY_LIMIT, IndexWriteError,
                                                  SegmentBuilderProcess)

__all__ = ["IndexDocument", "MatchTerms", "SearchIndex", "build_schema", "match_spans",
           "make_snippet", "cut_snippet", "exact_analyzer", "stemming_analyzer",
           "SNIPPET_CHARS", "SNIPPET_SCAN_CHARS",
           "IndexBusy", "WRITER_WAIT_S", "DAMAGE_ERRORS"]

_log = logging.getLogger(__name__)

#: What reading a damaged segment raises (a truncated or overwritten file read as
#: numbers, pickles or compressed blocks); seen as damage, never shown as a traceback.
DAMAGE_ERRORS = (struct.error, EOFError, IndexError, zlib.error, pickle.UnpicklingError,
                 OSError, UnicodeDecodeError, OverflowError, MemoryError)

#: How long a write waits for Whoosh's write lock (``index/MAIN_WRITELOCK``, an ``fcntl``
#: lock) that another process holds, in seconds, before giving up with
#: :class:`IndexBusy`.
WRITER_WAIT_S = 5.0


class IndexBusy(LibraryError):
    """Another process holds the search index's write lock (a script, or a second
    paperdesk writing the same index). Nothing is lost: the changes stay in the
    ``index_queue`` and are indexed at the next sync."""


class _FreshIdCodec(W3Codec):
    """Whoosh's W3 codec whose new segments get their id from
    :func:`~.segment_writer.fresh_segment_id` (:mod:`secrets`, never an id in use)
    instead of the global :mod:`random`: after ``random.seed`` a writer's segment took the
    name of an existing one, so the next write failed and cancelling the writer removed
    the existing segment's files. The segment itself keeps a plain ``W3Codec`` (the
    index's table of contents pickles it, so Whoosh alone still reads the index)."""

    def new_segment(self, storage, indexname):
        """A ``W3Segment`` with a fresh id (Whoosh's ``Codec.new_segment`` API)."""
        plain = W3Codec(self._blocklimit, self._compression, self._inlinelimit)
        return W3Segment(plain, indexname,
                         segid=segment_writer.fresh_segment_id(storage, indexname))


def _open_writer(ix, **kwargs):
    """Return ``ix.writer(**kwargs)``, waiting up to :data:`WRITER_WAIT_S` for the lock.

    Raises:
        IndexBusy: the lock is still held after the wait (one-line message naming the
            lock file).
    """
    try:
        return ix.writer(timeout=WRITER_WAIT_S, delay=0.1, **kwargs)
    except windex.LockError:
        lock = Path(getattr(ix.storage, "folder", "index")) / f"{ix.indexname}_WRITELOCK"
        raise IndexBusy(f"the search index is being written by another process "
                        f"(lock {lock}); every change is saved and becomes searchable "
                        "at the next paperdesk command that writes once that process "
                        "ends (or paperdesk check)") from None


#: Relative weight of a title match against an abstract match (BM25F field boost).
TITLE_BOOST = 2.0
#: Words of a paper that make its "more like this" query (:meth:`SearchIndex.more_like`;
#: Lucene's MoreLikeThis uses at most 25).
MORE_LIKE_TERMS = 25
#: Did-you-mean looks at no more than this many words, each at most this long.
SUGGEST_MAX_WORDS = 6
SUGGEST_MAX_CHARS = 24
#: Length of the text around a match shown as a snippet, in characters.
SNIPPET_CHARS = 160
#: A snippet looks for the query's words in at most this many characters at the start
#: of an abstract (abstracts are a few thousand characters; a pasted full text or a
#: 2.4 MB abstract would otherwise cost seconds per row, issue 14). A paper whose first
#: match lies further in gets the abstract's start as its snippet, unmarked, as Whoosh's
#: own highlighter does past 32,768 characters.
SNIPPET_SCAN_CHARS = 50_000
#: Postings per block on disk (Whoosh's default is 128). Larger blocks cost the fast path
#: (:mod:`.fastscore`) fewer per-block decodes; Whoosh's own matchers still read them.
POSTING_BLOCK = 1024
#: Memory for a commit's postings before Whoosh sorts them through temporary files (which
#: triples the time of a 2,000-paper batch); Whoosh's default is 128.
WRITER_MB = 256
#: Batches of at least this many new documents are written as segments by child
#: processes (:mod:`.writer_process`), one per core up to :data:`BUILDER_PROCESSES`, so
#: that an import uses both cores and the window's interpreter stays free; smaller ones
#: (an edit's few papers) are written in the calling thread, in milliseconds.
PROCESS_BATCH_MIN = 500
#: Most child processes writing segments at once.
BUILDER_PROCESSES = 2
#: Segments with fewer documents than this are "small": each edit commits one.
SMALL_SEGMENT_DOCS = 2000
#: When this many small segments exist, they are rewritten as one (from SQLite, through
#: the ``documents`` callback of :meth:`SearchIndex.write`); larger segments are never
#: merged (Whoosh's own merges rewrote the whole index at 40,000 and 80,000 papers).
MAX_SMALL_SEGMENTS = 8
#: A segment of at most :data:`REBUILD_MAX_DOCS` live documents of which at least this
#: share is deleted (replaced by edits) is rewritten without them.
DIRTY_SHARE = 0.5
REBUILD_MAX_DOCS = 20_000
#: Use the vectorised fast path (:mod:`.fastscore`) when a query's shape allows it. Set to
#: False to run every query through Whoosh's own searcher (tests compare the two).
FAST_PATH = True




def exact_analyzer():
    """Words lower-cased and accent-folded ("Café" -> "cafe"), not stemmed: used for
    phrases, which match words as written, and for did-you-mean suggestions."""
    return RegexTokenizer(WORD_PATTERN) | LowercaseFilter() | CharsetFilter(accent_map)


def stemming_analyzer():
    """:func:`exact_analyzer` plus the Porter stemmer ("networks" finds "network"). No
    stop list, so "of"/"the" and one-letter words such as "C" stay searchable."""
    return exact_analyzer() | StemFilter()


_analyzer = stemming_analyzer


def build_schema() -> Schema:
    """Return the Whoosh schema of the paperdesk index.

    Fields: ``id`` (unique, stored: the paper id as text), ``title``, ``abstract``,
    ``note`` and ``comment`` (highlight comments) (stemmed text, term frequencies only:
    phrases use ``exact``; not stored), ``exact`` (title, abstract, note and comments
    again, unstemmed, with positions, for phrases and did-you-mean), ``tag`` (tag names,
    comma-separated, lower-cased: ``tag:"to read"``), ``source`` (file names, file stems
    and header lines, comma-separated), ``source_id`` (space-separated source ids, for
    filtering by file), ``flags`` (``read``/``unread``, ``starred``/``unstarred``,
    ``note``, ``highlight``, ``code``, ``tagged``, ``author``, ``year``, ``doi``,
    ``arxiv``: the ``is:`` and ``has:`` filters).

    The paper's own metadata: ``author`` (given and family names, one author per line,
    unstemmed, with positions: ``author:"jane doe"``; also searched by plain words),
    ``year`` (the publication year as a word: ``year:2023``; a
    range is expanded into years by the query builder), ``doi``, ``arxiv`` (with and
    without its version) and ``key`` (the citation key), each one lower-cased word.
    ``mentions``: DOIs, arXiv ids and links that appear in the abstract. Each
    table-driven field with a search name (:func:`paperdesk.core.fields.stored_fields`:
    ``venue``, ``volume``, ``issue``, ``pages``, ...): its text as lower-cased
    space-separated words, or for a field with :attr:`~paperdesk.core.fields.Field.words`
    (the venue) unstemmed words with positions, like ``author`` (``venue:"proc. of icml"``).

    For the fast path (:mod:`.fastscore`), not searchable by name: ``pid`` (a column
    with the paper id as a number). Phrases are checked on the positions of ``exact``
    (until schema 8 of the index a ``pairs`` field held each adjacent word pair again:
    38% of the postings, for one posting list per two-word phrase).
    """
    ana = stemming_analyzer()
    return Schema(
        id=ID(unique=True, stored=True),
        title=TEXT(analyzer=ana, field_boost=TITLE_BOOST, phrase=False),
        abstract=TEXT(analyzer=ana, phrase=False),
        note=TEXT(analyzer=ana, phrase=False),
        comment=TEXT(analyzer=ana, phrase=False),
        exact=TEXT(analyzer=exact_analyzer()),
        tag=KEYWORD(commas=True, lowercase=True, scorable=True),
        source=KEYWORD(commas=True, lowercase=True),
        source_id=KEYWORD(),
        flags=KEYWORD(),
        author=TEXT(analyzer=exact_analyzer()),
        year=KEYWORD(),
        doi=KEYWORD(lowercase=True),
        arxiv=KEYWORD(lowercase=True),
        key=KEYWORD(lowercase=True),
        mentions=KEYWORD(lowercase=True),
        **{f.search: TEXT(analyzer=exact_analyzer()) if f.words else KEYWORD(lowercase=True)
           for f in stored_fields() if f.search},
        **{PID_FIELD: COLUMN(columns.NumericColumn("q", default=PID_MISSING))},
    )


def _describe(value, depth: int = 0):
    """A comparable description of an analyser part's setting: compiled patterns as
    their pattern and flags, functions by their qualified name, containers item by item,
    analysers and filters by their class and public attributes (not caches)."""
    if depth > 6:
        return "…"
    if isinstance(value, re.Pattern):
        return ("re", value.pattern, value.flags)
    if callable(value) and hasattr(value, "__qualname__") and not isinstance(value, type):
        return ("fn", getattr(value, "__module__", ""), value.__qualname__)
    if isinstance(value, dict):
        return tuple(sorted((repr(k), _describe(v, depth + 1)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_describe(v, depth + 1) for v in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(repr(v) for v in value))
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return (type(value).__module__, type(value).__qualname__,
                tuple(sorted((k, _describe(v, depth + 1)) for k, v in vars(value).items()
                             if not k.startswith("_"))))
    return repr(value)


def _schema_signature(schema: Schema) -> dict:
    """What must agree between the index on disk and :func:`build_schema`: field names,
    field and format types (positions or not), scorability, columns and each field's
    analyser (its tokenizer's pattern, filters and their settings). A planted table of
    contents whose schema differs in any of these (e.g. a tokenizer pattern that takes
    forever to match) is rebuilt, never used: the index is opened with paperdesk's own
    schema (:class:`SearchIndex`)."""
    out = {}
    for name, field in schema.items():
        fmt = getattr(field, "format", None)
        col = getattr(field, "column_type", None)
        out[name] = (type(field).__name__, type(fmt).__name__ if fmt else None,
                     bool(getattr(field, "scorable", False)),
                     bool(getattr(field, "stored", False)),
                     type(col).__name__ if col else None,
                     _describe(getattr(field, "analyzer", None)))
    return out


class _MappedFile(StructFile):
    """A read-only view of part of a memory-mapped index file: ``get`` slices the map
    (no system call), ``subset`` makes another view (no copy)."""

    def __init__(self, mapping: mmap.mmap, offset: int, length: int, name=None,
                 owner: bool = False):
        super().__init__(SubFile(mapping, offset, length), name=name)
        self._map, self._base, self._owner = mapping, offset, owner

    def subset(self, position, length, name=None):
        return _MappedFile(self._map, self._base + position, length, name or self._name)

    def get(self, position, length):
        start = self._base + position
        return self._map[start:start + length]

    def close(self):
        super().close()
        if self._owner:
            self._map.close()


class _Storage(FileStorage):
    """The index folder, read through memory maps without copies.

    Whoosh's own mapped reading (``supports_mmap``) wraps each part of each segment in a
    ``BufferFile``, whose ``BytesIO`` copies it: every searcher held the whole index in
    memory (about 400 MB at 100,000 papers, twice that while a fresh searcher replaced
    the old one after a write). Here the segment files are mapped and their parts read as
    slices of the map, so memory holds only what the page cache keeps.
    """

    def __init__(self, path: Path):
        super().__init__(str(path), supports_mmap=False)

    def open_file(self, name, **kwargs):
        f = open_regular(self._fpath(name))  # owned by the returned file
        try:
            mapping = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # empty file, or no mmap here
            return StructFile(f, name=name, **kwargs)
        f.close()
        return _MappedFile(mapping, 0, len(mapping), name=name, owner=True)


def _storage(path: Path) -> FileStorage:
    return _Storage(path)


def whoosh_batch(ix, add: Iterable[IndexDocument], update: Iterable[IndexDocument],
                 delete: Iterable[int]) -> int:
    """Apply one batch through Whoosh's own ``SegmentWriter`` (one commit, cancelled if
    anything fails). Used when the schema is not the one :mod:`.segment_writer` knows,
    and by the tests as the reference the bulk writer must agree with.

    Args:
        ix: a Whoosh ``FileIndex``.
        add: new documents; update: documents to add or replace; delete: paper ids.
    Returns:
        The number of documents written or deleted.
    """
    writer = _open_writer(ix, limitmb=WRITER_MB,
                          codec=_FreshIdCodec(blocklimit=POSTING_BLOCK))
    count = 0
    try:
        for pid in delete:
            writer.delete_by_term("id", str(pid))
            count += 1
        for doc in add:
            writer.add_document(**doc.fields())
            count += 1
        for doc in update:
            writer.update_document(**doc.fields())
            count += 1
    except BaseException:
        writer.cancel()
        raise
    writer.commit(merge=False)
    return count


def _cancel(ix, writer) -> None:
    """Cancel ``writer`` and remove the (empty) files of the segment it had opened; a
    cancelled Whoosh writer leaves them for the next commit to clean up."""
    writer.cancel()
    segment_writer.remove_segment_files(ix.storage, writer.newsegment)


class _PerDocOnly:
    """What :class:`~paperdesk.core.search.fastscore._Segment` reads of a segment (its
    size and per-document columns), without opening its terms file."""

    def __init__(self, storage, segment):
        # As SegmentReader does: a compound segment's files are parts of one file.
        self._files = (segment.open_compound_file(storage) if segment.is_compound()
                       else None)
        self._perdoc = segment.codec().per_document_reader(self._files or storage, segment)
        self._count = segment.doc_count_all()

    def doc_count_all(self) -> int:
        return self._count

    def close(self) -> None:
        self._perdoc.close()
        if self._files is not None:
            self._files.close()


#: Paper ids of each segment's documents, by segment id (segments never change).
_PIDS: dict[str, np.ndarray] = {}
_PIDS_LOCK = threading.Lock()


def segment_pids(storage, segment) -> np.ndarray:
    """The ``pid`` column of a segment (deleted documents included), remembered.

    Raises:
        Unsupported: the segment has no ``pid`` column (an index of an older paperdesk).
    """
    segid = segment.segment_id()
    with _PIDS_LOCK:
        found = _PIDS.get(segid)
    if found is None:
        shim = _PerDocOnly(storage, segment)
        try:
            found = _Segment(shim).pids
        finally:
            shim.close()
        with _PIDS_LOCK:
            if len(_PIDS) > 4096:
                _PIDS.clear()
            _PIDS[segid] = found
    return found


def _delete_ids(writer, ids: Iterable[int]) -> None:
    """Mark every document of these paper ids deleted in ``writer``'s segments, found
    through the ``pid`` column (one array lookup per segment, not a search per id; only
    the per-document files are read, never a segment's terms)."""
    wanted = np.fromiter((int(i) for i in ids), dtype=np.int64)
    if not len(wanted):
        return
    base = 0
    for segment in writer.segments:
        count = segment.doc_count_all()
        if count:
            try:
                pids = segment_pids(writer.storage, segment)
            except Unsupported:  # no pid column: look each id up
                for pid in wanted.tolist():
                    writer.delete_by_term("id", str(pid))
                return
            for local in np.flatnonzero(np.isin(pids, wanted)).tolist():
                writer.delete_document(base + local)
        base += count


class SegmentBuilders:
    """Writes new segments for :func:`apply_batch`: in this thread for small batches;
    a large one is split in :data:`BUILDER_PROCESSES` shares, one segment each, written
    at the same time by child processes (started at the first large batch, kept until
    :meth:`close`) and, with ``share_in_thread``, by this thread (one process fewer in
    memory: the command line, whose thread only waits otherwise; the window turns it
    off, see :meth:`SearchIndex.use_writer_process`).

    Args:
        processes: allow child processes (False: always in this thread).
        share_in_thread: write one share in this thread.
    """

    def __init__(self, processes: bool = True, share_in_thread: bool = True):
        self.processes = processes
        self.share_in_thread = share_in_thread
        self._vocab = Vocabulary()
        self._children: list[SegmentBuilderProcess] = []
        self._lock = threading.Lock()

    def build(self, ix, docs: Sequence[IndexDocument] = (), ids: Sequence[int] = (),
              source=None) -> list:
        """Write new segments of ``ix`` (not committed) holding ``docs``, or the
        documents of papers ``ids`` as ``source`` reads them (in the child processes
        for a large batch: each reads its share itself; papers that no longer exist are
        left out).

        Args:
            ix: the Whoosh ``FileIndex``.
            docs: documents to write.
            ids: paper ids whose documents ``source`` gives.
            source: ``source(ids) -> {id: IndexDocument}``; picklable for the children
                (:class:`~paperdesk.core.store.index_documents.DocumentSource`).
        Returns:
            The ``W3Segment`` objects written (none for no documents).
        Raises:
            IndexWriteError: a child failed or died (nothing of the batch is in).
        """
        items = list(ids) if ids else list(docs)
        if not items:
            return []
        if not self.processes or len(items) < PROCESS_BATCH_MIN:
            return self._build_here(ix, () if ids else items, items if ids else (), source)
        parts = max(1, min(BUILDER_PROCESSES, os.cpu_count() or 1,
                           len(items) // PROCESS_BATCH_MIN))
        size = -(-len(items) // parts)
        chunks = [items[i:i + size] for i in range(0, len(items), size)]
        own = chunks.pop(0) if self.share_in_thread else None
        with self._lock:
            self._children = [c for c in self._children if c.alive()]
            while len(self._children) < len(chunks):
                self._children.append(SegmentBuilderProcess(build_schema, POSTING_BLOCK))
            children = self._children[:len(chunks)]
        path = str(ix.storage.folder)
        started, segments, failed, failure = [], [], [], None
        for child, chunk in zip(children, chunks):
            try:
                child.send(path, ix.indexname, chunk, source if ids else None)
                started.append(child)
            except IndexWriteError as exc:
                failed.append(child)
                failure = failure or exc
        if own is not None and failure is None:   # this thread's share, meanwhile
            try:
                segments += self._build_here(ix, own if not ids else (), own if ids else (),
                                             source)
            except BaseException as exc:
                failure = exc
        for child in started:
            try:
                segment = child.receive()
                if segment is not None:
                    segments.append(segment)
            except IndexWriteError as exc:
                failed.append(child)
                failure = failure or exc
        if failure is not None:
            for segment in segments:
                segment_writer.remove_segment_files(ix.storage, segment)
            with self._lock:   # the next batch starts new children instead
                self._children = [c for c in self._children if c not in failed]
            for child in failed:
                child.close()
            raise failure
        return segments

    def _build_here(self, ix, docs: Sequence[IndexDocument], ids: Sequence[int],
                    source) -> list:
        """Write one segment in this thread (``docs``, or the documents of ``ids``)."""
        if len(self._vocab) > VOCABULARY_LIMIT:
            self._vocab = Vocabulary()
        items = list(docs)
        if ids:
            found = source(list(ids))
            items = [found[i] for i in ids if i in found]
        if not items:
            return []
        return [build_segment(ix.storage, ix.indexname, ix.schema, items,
                              vocab=self._vocab, blocklimit=POSTING_BLOCK)]

    def close(self) -> None:
        """Stop the child processes (each after its current segment)."""
        with self._lock:
            children, self._children = self._children, []
        for child in children:
            child.close()


def _live_ids(writer, segments) -> list[int]:
    """Paper ids of the live documents of ``segments`` (segments of ``writer``)."""
    out: list[int] = []
    for segment in segments:
        if not segment.doc_count_all():
            continue
        pids = segment_pids(writer.storage, segment)
        alive = np.ones(len(pids), dtype=bool)
        dead = np.fromiter(segment.deleted_docs(), dtype=np.int64)
        alive[dead[dead < len(pids)]] = False
        out += pids[alive & (pids >= 0)].tolist()
    return out


def apply_batch(ix, add: Iterable[IndexDocument], update: Iterable[IndexDocument],
                delete: Iterable[int], builders: SegmentBuilders | None = None,
                documents=None, add_ids: Iterable[int] = (),
                update_ids: Iterable[int] = ()) -> int:
    """Apply one batch to a Whoosh index in one commit (nothing of it if anything fails).

    Replaced and deleted papers' documents are marked deleted; the new documents are
    written as new segments by :mod:`.segment_writer` (no Whoosh merge ever runs); the
    commit writes a new table of contents listing the old segments and the new ones.
    Then, when :data:`MAX_SMALL_SEGMENTS` small segments have piled up (one per edit)
    or a segment is mostly deleted documents, those are rewritten as one segment from
    ``documents`` in a second commit (the batch is searchable before it starts).

    Args:
        ix: a Whoosh ``FileIndex``.
        add: new documents; update: documents to add or replace; delete: paper ids.
        builders: who writes the segments (default: this thread).
        documents: ``documents(ids) -> {id: IndexDocument}`` (current documents from
            SQLite: a :class:`~paperdesk.core.store.index_documents.DocumentSource`),
            for ``add_ids``/``update_ids`` and for rewriting small segments; ``None``:
            never rewrite.
        add_ids, update_ids: like ``add`` and ``update``, as paper ids whose documents
            ``documents`` reads (in the child processes for a large batch); papers that
            no longer exist are only deleted.
    Returns:
        The number of documents written or deleted.
    Raises:
        IndexWriteError: a segment-writing child failed.
        IndexBusy: another process holds the index's write lock.
    """
    add, update, delete = list(add), list(update), list(delete)
    add_ids, update_ids = list(add_ids), list(update_ids)
    builders = builders or SegmentBuilders(processes=False)
    writer = _open_writer(ix, codec=_FreshIdCodec(blocklimit=POSTING_BLOCK))
    try:
        _delete_ids(writer, [d.id for d in update] + update_ids + delete)
        new = builders.build(ix, add + update)
        if add_ids or update_ids:
            new += builders.build(ix, ids=add_ids + update_ids, source=documents)
    except BaseException:
        _cancel(ix, writer)
        raise
    writer.commit(mergetype=lambda _w, segments: [*segments, *new])
    if documents is not None:
        compact(ix, documents, builders)
    return len(add) + len(update) + len(delete) + len(add_ids) + len(update_ids)


def _to_compact(segments) -> list:
    """The segments :func:`compact` rewrites: all small ones once there are
    :data:`MAX_SMALL_SEGMENTS`, and the mostly deleted ones."""
    small = [s for s in segments if s.doc_count_all() < SMALL_SEGMENT_DOCS]
    chosen = small if len(small) >= MAX_SMALL_SEGMENTS else []
    chosen += [s for s in segments if s not in chosen and s.doc_count_all()
               and s.deleted_count() >= DIRTY_SHARE * s.doc_count_all()
               and s.doc_count() <= REBUILD_MAX_DOCS]
    return chosen


def compact(ix, documents, builders: SegmentBuilders | None = None) -> int:
    """Rewrite the small segments (when there are :data:`MAX_SMALL_SEGMENTS` of them)
    and the mostly-deleted ones as one segment, from ``documents``.

    Args:
        ix: a Whoosh ``FileIndex``.
        documents: ``documents(ids) -> {id: IndexDocument}``.
        builders: who writes the segment.
    Returns:
        The number of segments replaced (0: nothing to do).
    """
    builders = builders or SegmentBuilders(processes=False)
    if not _to_compact(ix._read_toc().segments):   # the common case: no writer opened
        return 0
    writer = _open_writer(ix, codec=_FreshIdCodec(blocklimit=POSTING_BLOCK))
    try:
        chosen = _to_compact(list(writer.segments))
        if not chosen:
            _cancel(ix, writer)
            return 0
        new = builders.build(ix, ids=_live_ids(writer, chosen), source=documents)
    except BaseException:
        writer.cancel()
        raise
    gone = {s.segment_id() for s in chosen}
    writer.commit(mergetype=lambda _w, segs: [s for s in segs if s.segment_id() not in gone]
                  + new)
    return len(chosen)


#: Segments of about the same size (the same power of :data:`MERGE_FACTOR` documents)
#: that lie side by side are merged this many at a time (:func:`merge_run`), as
#: Lucene's ``LogMergePolicy`` does with its merge factor: after a bulk import of a
#: million papers the 253 segments of 4,000 become about a dozen.
MERGE_FACTOR = 10
#: No merge writes a segment of more documents than this: a merge's memory grows with
#: its sources' terms (10 segments of 4,000 Zipf abstracts: 760 MB at most), and
#: merges of larger segments were not measured.
MERGE_MAX_DOCS = 100_000
#: Folders of merges under way in the index folder start with this (Whoosh ignores
#: names starting with a dot); one left by a crash is removed by the next merge.
MERGING_PREFIX = ".merging-"


def _level(segment) -> int:
    return int(np.log10(max(segment.doc_count_all(), 1)) / np.log10(MERGE_FACTOR))


def merge_runs(segments) -> list[list]:
    """The runs of segments a merge would replace, each :data:`MERGE_FACTOR` adjacent
    segments of the same level (documents, deleted ones included, between the same two
    powers of :data:`MERGE_FACTOR`), none of them small (under
    :data:`SMALL_SEGMENT_DOCS`: :func:`compact` rewrites those), at most
    :data:`MERGE_MAX_DOCS` documents together.

    Args:
        segments: the index's segments, in order (a table of contents' ``segments``).
    Returns:
        Lists of segments, each one run, first to last.
    """
    runs, i = [], 0
    while i + MERGE_FACTOR <= len(segments):
        run = segments[i:i + MERGE_FACTOR]
        level = _level(run[0])
        if (all(s.doc_count_all() >= SMALL_SEGMENT_DOCS and _level(s) == level
                for s in run)
                and sum(s.doc_count_all() for s in run) <= MERGE_MAX_DOCS):
            runs.append(run)
            i += MERGE_FACTOR
        else:
            i += 1
    return runs


def merge_run(ix, segids: Sequence[str], folder: Path, commit_lock=None,
              cancel=None) -> bool:
    """Replace adjacent segments of ``ix`` by one merged segment
    (:func:`.segment_writer.merge_segments`), in one commit.

    The merged segment is written into a folder of its own (``MERGING_PREFIX`` + its
    id, inside the index folder) without the index's write lock, from readers of the
    segments as they were: searches and writes go on meanwhile. Then, holding the lock
    (and ``commit_lock``), the segments are checked to be still in the index, the
    deletions made meanwhile are carried over, the file is moved into the index and
    one commit puts the new segment where the old ones were. A crash or an error
    before that commit leaves the index as it was (the table of contents is the
    commit point; the left-over folder is removed by the next merge).

    Args:
        ix: a Whoosh ``FileIndex`` (schema known to :mod:`.segment_writer`).
        segids: ids of adjacent segments, in index order.
        folder: the index folder.
        commit_lock: a lock held for the commit (the :class:`SearchIndex`'s write lock).
        cancel: polled while the segment is written; True stops (nothing changes).
    Returns:
        True when the merged segment was committed; False when the segments changed
        meanwhile (one of them is gone, or they are no longer adjacent) or ``cancel``
        said stop.
    Raises:
        IndexBusy: another process held the write lock too long (nothing changed).
        OSError: the files could not be written (nothing changed).
    """
    for old in folder.glob(MERGING_PREFIX + "*"):
        if old.is_dir() and _stale(old):
            shutil.rmtree(old, ignore_errors=True)
    info = ix._read_toc()
    byid = {s.segment_id(): s for s in info.segments}
    if any(sid not in byid for sid in segids):
        return False
    sources = [byid[sid] for sid in segids]
    segid = segment_writer.fresh_segment_id(ix.storage, ix.indexname)
    work = folder / f"{MERGING_PREFIX}{segid}"
    work.mkdir()
    (work / "owner").write_text(f"{os.getpid()}\n")
    try:
        readers = [SegmentReader(ix.storage, ix.schema, s) for s in sources]
        try:
            merged = segment_writer.merge_segments(
                FileStorage(str(work)), ix.indexname, ix.schema, readers, segid,
                blocklimit=POSTING_BLOCK, cancel=cancel)
        except segment_writer.MergeCancelled:
            return False
        finally:
            for reader in readers:
                reader.close()
        name = merged.make_filename(merged.COMPOUND_EXT)
        with commit_lock if commit_lock is not None else contextlib.nullcontext():
            writer = _open_writer(ix, codec=_FreshIdCodec(blocklimit=POSTING_BLOCK))
            try:
                current = list(writer.segments)
                ids = [s.segment_id() for s in current]
                if (segids[0] not in ids or ids[ids.index(segids[0]):][:len(segids)]
                        != list(segids) or ix.storage.file_exists(name)):
                    _cancel(ix, writer)
                    return False
                at = ids.index(segids[0])
                base = 0
                for segment in current[at:at + len(segids)]:
                    for doc in segment.deleted_docs():
                        merged.delete_document(base + doc)
                    base += segment.doc_count_all()
                os.replace(work / name, folder / name)
            except BaseException:
                _cancel(ix, writer)
                raise
            gone = set(segids)
            writer.commit(mergetype=lambda _w, segs: [
                *segs[:at], merged, *[s for s in segs[at:] if s.segment_id() not in gone]])
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _stale(path: Path) -> bool:
    """Whether a merge folder's owner process is gone (its pid no longer runs)."""
    try:
        pid = int((path / "owner").read_text().strip())
    except (OSError, ValueError):
        return True
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _leaves(reader) -> list:
    """The segment readers of a reader (none for an empty index)."""
    try:
        return [leaf for leaf, _base in reader.leaf_readers()
                if isinstance(leaf, SegmentReader)]
    except AttributeError:
        return []


class IndexSchemaMismatch(Exception):
    """The index on disk was built with another schema (an older paperdesk); rebuild it."""


def _fields_only(signature: dict) -> dict:
    """A :func:`_schema_signature` without the analysers: the field names, types,
    formats and columns, which must agree for the segments to be read at all."""
    return {name: parts[:-1] for name, parts in signature.items()}


#: Table-driven field name -> its search field (for the fields that have one).
_SEARCHED_AS = {f.name: f.search for f in stored_fields() if f.search}


def _search_values(values: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """The indexed text of each table-driven search field ("" when the paper has none)."""
    out = dict.fromkeys(_SEARCHED_AS.values(), "")
    for name, text in values:
        if name in _SEARCHED_AS:
            out[_SEARCHED_AS[name]] = text
    return out


@dataclass(frozen=True)
class IndexDocument:
    """What the index holds about one paper.

    Attributes:
        id: paper id.
        title: shown title.
        abstract: abstract text.
        source_ids: ids of the sources the paper came from.
        tags: tag names.
        note: the note text.
        comments: highlight comments.
        sources: file names, stems and headers of the paper's sources.
        flags: filter tokens (see :data:`paperdesk.core.search.query.FILTER_WORDS`).
        authors: the paper's own authors, "Given Family" each.
        year: its publication year, or ``None``.
        doi: its DOI ("" when none).
        arxiv_id: its arXiv id, maybe with a version ("" when none).
        citation_key: its citation key.
        key_aliases: the other citation keys it answers to (``key:`` finds them too).
        mentions: DOIs, arXiv ids and URLs that appear in its abstract (an arXiv id with
            a version is indexed without it too).
        values: its table-driven fields (``Metadata.values``: ``(name, text)`` pairs).
    """

    id: int
    title: str
    abstract: str
    source_ids: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    note: str = ""
    comments: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    year: int | None = None
    doi: str = ""
    arxiv_id: str = ""
    citation_key: str = ""
    mentions: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    key_aliases: tuple[str, ...] = ()

    def fields(self) -> dict:
        """The document as Whoosh's ``add_document`` takes it: :meth:`field_values`, the
        ``exact`` text (title, abstract, note and comments) and the ``pid`` column."""
        values = self.field_values()
        values["exact"] = "\n".join((self.title, self.abstract, self.note, values["comment"]))
        values[PID_FIELD] = self.id
        return values

    def field_values(self) -> dict[str, str]:
        """The text of each indexed field except ``exact`` (whose words are those of
        ``title``, ``abstract``, ``note`` and ``comment`` in that order), by field name."""
        return {
            "id": str(self.id),
            "title": self.title,
            "abstract": self.abstract,
            "note": self.note,
            "comment": "\n".join(self.comments),
            "tag": ",".join(self.tags),
            "source": ",".join(s.replace(",", " ") for s in self.sources),
            "source_id": " ".join(str(s) for s in self.source_ids),
            "flags": " ".join(self.flags),
            "author": "\n".join(self.authors),
            "year": str(self.year) if self.year else "",
            "doi": self.doi,
            "arxiv": " ".join(dict.fromkeys(
                [self.arxiv_id, self.arxiv_id.split("v")[0]] if self.arxiv_id else [])),
            "key": " ".join((self.citation_key, *self.key_aliases)),
            "mentions": " ".join(dict.fromkeys(
                m for said in self.mentions for m in (said, re.sub(r"v\d+$", "", said)))),
            **_search_values(self.values),
        }


@dataclass(frozen=True)
class MatchTerms:
    """Index words matched by a query, by analyzer.

    Attributes:
        stemmed: stemmed words (title, abstract, note, comment fields); each occurrence
            of such a word is a match on its own.
        exact: unstemmed, folded words matched on their own in the ``exact`` field (a
            quoted single word such as ``"the"``).
        phrases: quoted phrases of two or more words, each a tuple of unstemmed, folded
            words (``("neural", "networks")``); their words are matches only where they
            occur one after the other in the text, as the index's phrase query (slop 1 on
            the ``exact`` field) requires.
    """

    stemmed: frozenset[str] = frozenset()
    exact: frozenset[str] = frozenset()
    phrases: frozenset[tuple[str, ...]] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.stemmed or self.exact or self.phrases)


_WORD_RE = WORD_RE     # looked up at call time (a test counts its use)


@functools.lru_cache(maxsize=100_000)
def _fold(word: str) -> str:
    return word.lower().translate(accent_map)


@functools.lru_cache(maxsize=100_000)
def _stem(folded: str) -> str:
    return porter_stem(folded)


@functools.lru_cache(maxsize=200_000)
def _fold_stem(word: str) -> str:
    """A word as written -> its index form in the stemmed fields (folded, then stemmed)."""
    return _stem(_fold(word))


_GROUP = re.Match.group
_SPAN = re.Match.span


def exact_words(text: str) -> list[str]:
    """The words of ``text`` as :func:`exact_analyzer` gives them, in order."""
    return [_fold(m.group(0)) for m in _WORD_RE.finditer(text)]


def match_spans(text: str, terms: MatchTerms, end: int | None = None,
                ) -> list[tuple[int, int]]:
    """Find where a query's words occur in a text, as written there.

    Every word of ``text`` is analysed the way the index analyses it (same word pattern,
    lower-casing, accent folding, Porter stemming); a word whose stemmed form is in
    ``terms.stemmed``, or whose folded form is in ``terms.exact``, is a match. The words of
    a phrase in ``terms.phrases`` are matches only where the text's folded words run
    through the whole phrase one after the other (as Whoosh's ``Phrase`` query with slop 1
    on the ``exact`` field: only the word positions count, so punctuation or a line break
    between the words does not break the phrase); a lone word of a phrase is not marked.
    The work is linear in the characters scanned (each distinct word is analysed once and
    remembered; a phrase costs its length at each occurrence of its first word). An ASCII
    text is scanned once for the query words' leading letters, and only the words that
    start with them are analysed
    (:func:`_spans_at_candidates`: the same spans, 4-14 times faster on abstracts).

    Args:
        text: an abstract, note or title.
        terms: from :meth:`SearchIndex.match_terms`.
        end: scan only ``text[:end]`` (characters); a word the bound cuts in two is
            left out. ``None``: the whole text (no length limit; Whoosh's own
            highlighter stops at 32,768 characters).
    Returns:
        Sorted, non-overlapping ``(start, end)`` character offsets into ``text``, one per
        matched word (a phrase gives one span per word).
    """
    if not terms or not text:
        return []
    stop = len(text) if end is None else max(0, min(end, len(text)))
    quick = _spans_at_candidates(text, terms, stop)
    if quick is not None:
        return quick
    # Each step is one C-level pass (match objects, their words, the cached analyses,
    # the set lookups): no Python bytecode runs per word of the text.
    found = list(_WORD_RE.finditer(text, 0, stop))
    if found and stop < len(text) and found[-1].end() == stop:
        found.pop()   # possibly the first part of a longer word
    words = list(map(_GROUP, found))
    if terms.stemmed:
        hits = list(map(terms.stemmed.__contains__, map(_fold_stem, words)))
        if terms.exact:
            hits = list(map(operator.or_, hits,
                            map(terms.exact.__contains__, map(_fold, words))))
    elif terms.exact:
        hits = list(map(terms.exact.__contains__, map(_fold, words)))
    else:
        hits = [False] * len(words)
    if terms.phrases:
        folded_words = list(map(_fold, words))
        by_first: dict[str, list[tuple[str, ...]]] = {}
        for phrase in terms.phrases:
            if phrase:
                by_first.setdefault(phrase[0], []).append(phrase)
        starts = itertools.compress(range(len(folded_words)),
                                    map(by_first.__contains__, folded_words))
        for i in starts:    # only where a phrase's first word is
            for phrase in by_first[folded_words[i]]:
                n = len(phrase)
                if tuple(folded_words[i:i + n]) == phrase:
                    hits[i:i + n] = [True] * n
    return list(map(_SPAN, itertools.compress(found, hits)))


#: At most this many leading-letter keys in one scan of :func:`_spans_at_candidates`
#: (a fuzzy or prefix word's expansion can give hundreds; then every word is analysed).
CANDIDATE_KEYS_MAX = 64


@functools.lru_cache(maxsize=256)
def _candidate_pattern(keys: frozenset[str]) -> re.Pattern:
    """One pattern finding any of ``keys`` (ASCII, any case), longest first."""
    alternatives = "|".join(re.escape(k) for k in sorted(keys, key=lambda k: (-len(k), k)))
    return re.compile(f"(?:{alternatives})", re.IGNORECASE | re.ASCII)


def _candidates_in(pattern: re.Pattern, text: str, stop: int) -> Iterable[re.Match]:
    """Where ``pattern`` occurs in ``text[:stop]`` (a test counts the characters)."""
    return pattern.finditer(text, 0, stop)


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def _spans_at_candidates(text: str, terms: MatchTerms, stop: int
                         ) -> list[tuple[int, int]] | None:
    """:func:`match_spans` for an ASCII text, analysing only the words that can match;
    ``None`` when it does not apply (then every word is).

    A word of an ASCII text matches a stemmed word ``s`` only if the word, lower-cased,
    starts with ``s`` but its last letter: the Porter stemmer (whoosh.lang.porter, after
    M. F. Porter, "An algorithm for suffix stripping", 1980) rewrites a word's ending
    only, and each rewrite keeps the letters before its last one (``happy`` → ``happi``,
    ``hoping`` → ``hope``; checked on the 290,000 distinct words of the SYNERGY reviews,
    the real-world bibliographies and the Zipf corpus, and by a test). An ``exact`` word,
    or the first word of a phrase, matches only a word that starts with it. So the text
    is scanned once for those leading letters (any case); each place one starts a word
    (as :data:`WORD_RE` splits the text: not after a letter, a digit, ``_``, or a dot
    that follows one) gives that word, analysed as :func:`match_spans` analyses every
    word, and a phrase's first word the words after it: the same spans.
    """
    if len(terms.stemmed) + len(terms.exact) + len(terms.phrases) > CANDIDATE_KEYS_MAX:
        return None
    if not (text.isascii() if stop == len(text) else text[:stop].isascii()):
        return None
    phrases: dict[str, list[tuple[str, ...]]] = {}
    for phrase in terms.phrases:
        if phrase:
            phrases.setdefault(phrase[0], []).append(phrase)
    keys = (frozenset(w[:-1] if len(w) > 1 else w for w in terms.stemmed)
            | terms.exact | frozenset(phrases))
    if not keys:
        return None
    stemmed, exact = terms.stemmed, terms.exact
    hits: dict[int, int] = {}
    last = -1
    for found in _candidates_in(_candidate_pattern(keys), text, stop):
        at = found.start()
        if at < last:
            continue
        if at and (_word_char(text[at - 1]) or (
                text[at - 1] == "." and at > 1 and _word_char(text[at - 2]))):
            continue            # inside a word, not at its start
        word = _word_in(text, at, stop, anchored=True)
        if word is None:
            continue
        last = word.end()
        written = word.group()
        if _fold_stem(written) in stemmed or (exact and _fold(written) in exact):
            hits[at] = last
        for phrase in phrases.get(_fold(written), ()):
            run = [word]
            while len(run) < len(phrase):
                after = _word_in(text, run[-1].end(), stop)
                if after is None:
                    break
                run.append(after)
            if tuple(_fold(w.group()) for w in run) == phrase:
                hits.update(w.span() for w in run)
    return sorted(hits.items())


def _word_in(text: str, at: int, stop: int, anchored: bool = False) -> re.Match | None:
    """The word of ``text[:stop]`` that starts at ``at`` (``anchored``) or the next one
    after it, as :func:`match_spans` splits the text; ``None`` when there is none, or
    when it ends at ``stop`` inside the text (possibly the first part of a longer
    word)."""
    word = (_WORD_RE.match if anchored else _WORD_RE.search)(text, at, stop)
    if word is None or (word.end() == stop and stop < len(text)):
        return None
    return word


def make_snippet(text: str, spans: Sequence[tuple[int, int]], width: int = SNIPPET_CHARS,
                 ) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Cut a plain-text snippet of about ``width`` characters around the densest matches.

    The window holding the most matches (the first such) is found in one pass over
    ``spans`` (two pointers: the matches are sorted and do not overlap, so their ends
    increase), and the text is only looked at around it: the work is linear in
    ``len(spans)`` plus ``width``, whatever the length of ``text``.

    Args:
        text: the full text.
        spans: sorted, non-overlapping match offsets from :func:`match_spans`.
        width: snippet length in characters (without the ellipses).
    Returns:
        ``(snippet, spans)``: the snippet, starting and/or ending with ``… `` where cut,
        and the match offsets shifted into it.
    """
    if not spans:
        cut = text if len(text) <= width else text[:width].rsplit(" ", 1)[0] + " …"
        return cut, ()
    best_start, best_count = spans[0][0], 0
    j = 0
    for i, (start, _end) in enumerate(spans):  # window with the most matches
        j = max(j, i)
        while j < len(spans) and spans[j][1] <= start + width:
            j += 1
        if j - i > best_count:
            best_start, best_count = start, j - i
    start = max(0, best_start - 40)
    if start:
        space = text.find(" ", start, best_start)
        start = space + 1 if space >= 0 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    prefix = "… " if start else ""
    suffix = " …" if end < len(text) else ""
    first = bisect.bisect_left(spans, (start, -1))
    inside = []
    for s, e in itertools.islice(spans, first, None):
        if s >= end:
            break
        if e <= end:
            inside.append((s - start + len(prefix), e - start + len(prefix)))
    return prefix + text[start:end] + suffix, tuple(inside)


def cut_snippet(text: str, terms: MatchTerms | None, width: int = SNIPPET_CHARS,
                ) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The search snippet of one abstract: :func:`match_spans` over its first
    :data:`SNIPPET_SCAN_CHARS` characters, then :func:`make_snippet`. The cost is bounded
    per abstract (at most :data:`SNIPPET_SCAN_CHARS` characters are scanned), so a
    2.4 MB abstract costs what a 50,000-character one does.

    Args:
        text: the abstract (``""`` for none).
        terms: from :meth:`SearchIndex.match_terms`, or ``None`` (no marks).
        width: snippet length in characters (without the ellipses).
    Returns:
        ``(snippet, spans)`` as :func:`make_snippet` gives them.
    """
    spans = match_spans(text, terms, end=SNIPPET_SCAN_CHARS) if terms else []
    return make_snippet(text, spans, width)


def _correction(reader, fieldname: str, word: str, maxdist: int) -> str | None:
    """The word ``Searcher.suggest(fieldname, word, limit=1, maxdist=maxdist)`` gives on
    an index of several segments: of the index words within ``maxdist`` edits
    (``whoosh.spelling.ReaderCorrector``, no common prefix; two swapped letters are one
    edit), the most frequent, the last in order among equals. Whoosh's own compares
    the word with every word of the field there (4-8 s at 100,000 abstracts in 25
    segments); here each segment is walked with one Levenshtein automaton
    (:func:`~.fastscore.expand_words`) and the swapped spellings are looked up. (Of two
    swaps plus an edit, which Whoosh's distance counts as two edits, only those within
    two plain edits are found.)

    Returns:
        The word, or ``None`` when no index word is that close.
    """
    candidates = {c.decode("utf-8") if isinstance(c, bytes) else c
                  for c in expand_words(wquery.FuzzyTerm(
                      fieldname, word, maxdist=maxdist, prefixlength=0), reader)}
    if maxdist == 1:   # two letters swapped ("modle"): one edit for Whoosh's distance()
        for i in range(len(word) - 1):
            swapped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
            if swapped != word and (fieldname, swapped) in reader:
                candidates.add(swapped)
    best = None
    for text in candidates:
        freq = reader.frequency(fieldname, text) or 1
        item = (0 - (maxdist + (1.0 / freq * 0.5)), text)   # ReaderCorrector's score
        if best is None or item > best:
            best = item
    return None if best is None else best[1]


class SearchIndex:
    """The Whoosh index of one library folder.

    Args:
        path: the index folder; created with an empty index if missing or empty.
        other_words_ok: for a library opened read-only (nothing may rebuild the index):
            an index whose fields are paperdesk's but whose analysers split words
            otherwise (built before a change of the word rules, e.g. Chinese and
            Japanese ideographs as words of their own) is searched as it is, with
            paperdesk's own analysers, and :attr:`other_words` is set; without it such
            an index raises :class:`IndexSchemaMismatch` (a writer rebuilds it).
    Raises:
        whoosh.index.IndexError: the folder holds something that is not a readable index
            (call :meth:`recreate` to start over).
        IndexSchemaMismatch: it was built with another schema (see ``other_words_ok``).
    """

    def __init__(self, path: Path, other_words_ok: bool = False):
        self.path = Path(path)
        self._lock = threading.RLock()
        #: Opened with ``other_words_ok`` and its words were split by other rules: some
        #: words (those the rules split otherwise) may not be found.
        self.other_words = False
        self.path.mkdir(parents=True, exist_ok=True)
        if _storage(self.path).index_exists():   # its files read by _Storage only
            stored = _storage(self.path).open_index()
            try:
                theirs = _schema_signature(stored.schema)
            finally:
                stored.close()
            ours = _schema_signature(build_schema())
            if theirs != ours:
                if not (other_words_ok and _fields_only(theirs) == _fields_only(ours)):
                    raise IndexSchemaMismatch(str(self.path))
                self.other_words = True
            # From here on the table of contents' pickled schema is skipped, never used:
            # searches and writes analyse text with paperdesk's own analysers only.
            self._ix = _storage(self.path).open_index(schema=build_schema())
        else:
            self._ix = _storage(self.path).create_index(build_schema())
        self._seen_generation = self._ix.latest_generation()
        self._searcher = self._ix.searcher()
        self._builder = QueryBuilder(self._ix.schema)
        self._fast_cache = FastCache()
        self._fast_view: FastView | None = None
        #: Which path answered the last :meth:`search`: ``"fast"`` or ``"whoosh"``.
        self.last_path = ""
        self._write_lock = threading.Lock()
        self._builders = SegmentBuilders()
        #: Record each new segment file's checksum after a commit (see
        #: :mod:`.integrity`); the library sets it unless it was opened read-only.
        self.keeps_checksums = False
        #: Set (one line) when a read of the index failed: a damaged segment. The
        #: library then rebuilds the index from SQLite (:meth:`Library.repair_index`).
        self.damage: str | None = None
        #: ``query -> query``: rewrites the parts of a query the library answers from
        #: SQLite (``tag:``, ``is:starred`` ...: :mod:`.state_terms`), or ``None`` to
        #: search them as index words; set by ``lib.index.open``.
        self.library_terms = None
        try:
            segment_writer.check_schema(self._ix.schema)
            self._bulk = True
        except segment_writer.Unsupported:
            self._bulk = False

    # -- writing -----------------------------------------------------------------------
    def write(self, add: Iterable[IndexDocument] = (), update: Iterable[IndexDocument] = (),
              delete: Iterable[int] = (), documents=None, add_ids: Iterable[int] = (),
              update_ids: Iterable[int] = ()) -> int:
        """Apply changes in one commit, then swap in a fresh searcher.

        ``add`` is for papers known not to be in the index; ``update`` replaces any
        existing document with the same id. The documents are written as new segments
        (:func:`apply_batch`; large batches by child processes, see
        :data:`PROCESS_BATCH_MIN`); searches go on meanwhile, on the index as it was
        before the commit.

        Args:
            add: new documents.
            update: documents to add or replace.
            delete: paper ids to remove.
            documents: ``documents(ids) -> {id: IndexDocument}`` (the library's current
                documents, a :class:`~paperdesk.core.store.index_documents.DocumentSource`),
                for ``add_ids``/``update_ids`` and to rewrite small segments (see
                :func:`compact`).
            add_ids, update_ids: like ``add``/``update``, as paper ids whose documents
                ``documents`` reads (for a large batch, in the child processes).
        Returns:
            The number of documents written or deleted.
        Raises:
            IndexWriteError: a child process failed (nothing of the batch is in).
        """
        add, update, delete = list(add), list(update), list(delete)
        add_ids, update_ids = list(add_ids), list(update_ids)
        with self._write_lock:
            if self._bulk:
                count = apply_batch(self._ix, add, update, delete, self._builders, documents,
                                    add_ids, update_ids)
            else:
                if add_ids or update_ids:
                    found = documents(add_ids + update_ids)
                    add += [found[i] for i in add_ids if i in found]
                    update += [found[i] for i in update_ids if i in found]
                    delete += [i for i in update_ids if i not in found]
                count = whoosh_batch(self._ix, add, update, delete)
            with self._lock:
                self._refresh()
            if self.keeps_checksums:
                try:
                    integrity.record_checksums(self.path, integrity.segment_files(self._ix))
                except Exception:  # noqa: BLE001 - the record is a nicety
                    _log.exception("recording the index's checksums failed")
        return count

    def merge(self, cancel=lambda: False, between=None) -> int:
        """Merge runs of adjacent segments of about the same size (:func:`merge_runs`)
        until none is left, one commit per run (:func:`merge_run`); searches and writes
        go on meanwhile, each commit swaps in a fresh searcher.

        Args:
            cancel: polled before each run and while it is written; True stops (the
                runs merged so far stay, the one under way is dropped).
            between: ``between(run)`` runs one merge, given as a function of no
                arguments (e.g. on a helper thread, see
                :func:`paperdesk.core.manager.run_beside`); default: calls it.
        Returns:
            The number of segments replaced (0: nothing to merge, or the schema is not
            the one the segment writer knows).
        Raises:
            IndexBusy: another process held the write lock too long.
            OSError: a merged segment could not be written (the index is unchanged).
        """
        if not self._bulk:
            return 0
        between = between or (lambda run: run())
        replaced = 0
        while not cancel():
            runs = merge_runs(self._ix._read_toc().segments)
            if not runs:
                break
            ids = [s.segment_id() for s in runs[0]]
            done = []

            def one() -> None:
                done.append(merge_run(self._ix, ids, self.path, commit_lock=self._write_lock,
                                      cancel=cancel))

            between(one)
            if not done or not done[0]:
                break
            replaced += len(ids)
            with self._write_lock:
                with self._lock:
                    self._refresh()
                if self.keeps_checksums:
                    try:
                        integrity.record_checksums(self.path,
                                                   integrity.segment_files(self._ix))
                    except Exception:  # noqa: BLE001 - the record is a nicety
                        _log.exception("recording the index's checksums failed")
        return replaced

    def quick_problems(self, update: bool = True) -> list[str]:
        """The cheap check made at every open (:func:`.integrity.quick_problems`): a
        few ``stat`` calls and each segment's directory.

        Args:
            update: record the checksums of files not recorded yet.
        Returns:
            One line per problem (empty: the index looks whole).
        """
        with self._write_lock, self._lock:
            return integrity.quick_problems(self._ix, self.path, update=update)

    def full_problems(self) -> list[str]:
        """The full check of ``paperdesk check`` (:func:`.integrity.full_problems`):
        every file read, every segment opened.

        Returns:
            One line per problem (empty: the index is whole).
        """
        with self._write_lock, self._lock:
            return integrity.full_problems(self._ix, self.path)

    def _damaged(self, exc: BaseException, what: str) -> None:
        """Note that reading the index failed with ``exc`` (a damaged segment)."""
        _log.info("search index damaged: %s failed: %r", what, exc)
        if self.damage is None:
            self.damage = (f"{safe_pickle.named(exc, self.path)}: the search index is "
                           "damaged "
                           f"({safe_pickle.why(exc)} while {what})")

    def use_writer_process(self, on: bool = True) -> None:
        """Let only child processes write the segments of batches of
        :data:`PROCESS_BATCH_MIN` documents or more, so that the calling process's
        interpreter stays free (the window); False writes everything in the calling
        thread. By default (neither called) one share is written in the calling thread
        and the others by children. The children start at the first such batch and stop
        in :meth:`close`."""
        with self._write_lock:
            self._builders.processes = on
            self._builders.share_in_thread = not on
            if not on:
                self._builders.close()

    def segment_sizes(self) -> list[tuple[int, int]]:
        """Return ``(documents, deleted)`` of each segment of the current searcher."""
        with self._lock:
            return [(r.doc_count_all(), r.doc_count_all() - r.doc_count())
                    for r, _b in self._searcher.reader().leaf_readers()]

    def recreate(self) -> None:
        """Delete everything in the index folder and start an empty index."""
        with self._write_lock, self._lock:
            self._searcher.close()
            self._ix.close()
            shutil.rmtree(self.path, ignore_errors=True)
            self.path.mkdir(parents=True, exist_ok=True)
            self._ix = _storage(self.path).create_index(build_schema())
            self._searcher = self._ix.searcher()
            self._fast_view = None
            self._fast_cache.clear()

    def _refresh(self) -> None:
        """Replace the searcher by one on the latest commit, keeping the readers of the
        segments whose documents and deletions did not change (opening a segment reads
        its terms file's header: with 25 segments a fresh searcher took ~36 ms, paid
        after every edit). Whoosh's own ``reader(reuse=...)`` cannot be used: it adds the
        old generation's segments back (the stale copies DESIGN.md warns about)."""
        old = self._searcher
        old_leaves = _leaves(old.reader())
        kept = {}
        for reader in old_leaves:
            segment = reader.segment()
            if segment is not None:
                kept[segment.segment_id()] = (reader, frozenset(segment.deleted_docs()))
        info = self._ix._read_toc()
        self._seen_generation = info.generation
        readers, reused = [], set()
        for segment in info.segments:
            found = kept.get(segment.segment_id())
            if found is not None and found[1] == frozenset(segment.deleted_docs()):
                readers.append(found[0])
                reused.add(id(found[0]))
            else:
                readers.append(SegmentReader(self._ix.storage, info.schema, segment,
                                             generation=info.generation))
        if not readers:
            reader = EmptyReader(info.schema)
        elif len(readers) == 1:
            reader = readers[0]
        else:
            reader = MultiReader(readers, generation=info.generation)
        self._searcher = Searcher(reader, fromindex=self._ix)
        self._fast_view = None  # built again, from cached segments, on the next search
        for leaf in old_leaves:
            if id(leaf) not in reused:
                leaf.close()

    def follow_commits(self) -> bool:
        """Search the index's latest commit from now on if another process committed
        since this one last looked (a reader in a process of its own: the window's
        search process, while the window's writer adds, changes and merges segments).
        Cheap when nothing changed: one listing of the index folder.

        Returns:
            True when a newer commit is searched now.
        Raises:
            OSError: the index folder cannot be read.
        """
        with self._lock:
            if self._ix.latest_generation() == self._seen_generation:
                return False
            self._refresh()
            return True

    def drop_caches(self) -> None:
        """Start the next search from nothing cached: a fresh Whoosh searcher and an
        empty fast-path cache (for cold-start measurements)."""
        with self._lock:
            self._refresh()
            self._fast_cache.clear()

    def _view(self) -> FastView:
        """The fast path over the current searcher (built once per index generation; what
        is known about unchanged segments comes from the cache)."""
        if self._fast_view is None:
            self._fast_view = FastView(self._searcher, self._fast_cache)
            self._fast_cache.keep_only(self._fast_view.segment_ids())
        return self._fast_view

    # -- reading -----------------------------------------------------------------------
    def doc_count(self) -> int:
        """Return the number of documents in the index (deleted ones not counted)."""
        with self._lock:
            return self._searcher.doc_count()

    def indexed_ids(self) -> set[int]:
        """Return the set of paper ids that have a document in the index (read from the
        ``pid`` column of each segment; from the stored ids where a segment lacks it)."""
        with self._lock:
            out: set[int] = set()
            for reader, _base in self._searcher.reader().leaf_readers():
                if not reader.doc_count_all():
                    continue
                try:
                    pids = _Segment(reader).pids
                except Unsupported:
                    out.update(int(f["id"]) for f in reader.all_stored_fields())
                    continue
                alive = np.ones(len(pids), dtype=bool)
                if reader.has_deletions():
                    dead = np.fromiter(reader._perdoc.deleted_docs(), dtype=np.int64)
                    alive[dead[dead < len(pids)]] = False
                out.update(pids[alive & (pids >= 0)].tolist())
            return out

    def plan(self, text: str) -> QueryPlan:
        """Read a query with the index's vocabulary at hand (see
        :meth:`paperdesk.core.search.query.QueryBuilder.plan`). Never raises: when the
        index's words cannot be read (a damaged segment, see :attr:`damage`) the plan
        finds nothing."""
        with self._lock:
            try:
                return self._builder.plan(text, self._searcher.reader())
            except DAMAGE_ERRORS as exc:
                self._damaged(exc, "reading a query's words")
                return QueryPlan(text)

    def match_terms(self, plan: QueryPlan) -> MatchTerms:
        """Return the index words a query matches, for highlighting.

        Args:
            plan: from :meth:`plan`.
        Returns:
            :class:`MatchTerms` (prefix and fuzzy terms expanded to the words they match;
            phrases on the ``exact`` field kept whole in :attr:`MatchTerms.phrases`).
        """
        if plan.query is None:
            return MatchTerms()
        found: dict[str, set[str]] = {"stemmed": set(), "exact": set()}
        phrases: set[tuple[str, ...]] = set()

        def add(fieldname: str, word) -> None:
            word = word.decode("utf-8") if isinstance(word, bytes) else str(word)
            if fieldname in DEFAULT_FIELDS:
                found["stemmed"].add(word)
            elif fieldname == "exact":
                found["exact"].add(word)

        def visit(q: wquery.Query, reader) -> None:
            if isinstance(q, wquery.Not):
                return  # words the user excluded are not highlighted
            if isinstance(q, wquery.AndNot):
                visit(q.a, reader)
            elif isinstance(q, (wquery.Prefix, wquery.Wildcard, wquery.FuzzyTerm)):
                for btext in expand_words(q, reader):
                    add(q.fieldname, btext)
            elif isinstance(q, wquery.Term):
                add(q.fieldname, q.text)
            elif isinstance(q, wquery.Phrase):
                words = [w.decode("utf-8") if isinstance(w, bytes) else str(w)
                         for w in q.words]
                if q.fieldname == "exact" and q.slop == 1 and len(words) > 1:
                    phrases.add(tuple(words))  # marked only where the words are adjacent
                else:  # a sloppy or one-word phrase: its words are marked on their own
                    for word in words:
                        add(q.fieldname, word)
            else:
                for child in q.children():
                    visit(child, reader)

        with self._lock:
            try:
                visit(plan.query, self._searcher.reader())
            except Exception as exc:  # noqa: BLE001 - highlighting is a nicety
                if isinstance(exc, DAMAGE_ERRORS):
                    self._damaged(exc, "reading the words a query matches")
                return MatchTerms()
        return MatchTerms(frozenset(found["stemmed"]), frozenset(found["exact"]),
                          frozenset(phrases))

    def _query(self, plan: QueryPlan):
        query = plan.query        # its is:/has: filters are flags terms in it
        if self.library_terms is not None:
            query = self.library_terms(query)
        return query

    def search_arrays(self, plan: QueryPlan, source_id: int | None = None,
                      mask: np.ndarray | None = None, allowed: set[int] | None = None,
                      limit: int | None = None, fast: bool = True,
                      ) -> tuple[np.ndarray, np.ndarray, int]:
        """Run a planned query and return every match (or the best ``limit``) as arrays:
        the search list of the window, with no per-hit Python objects.

        Args:
            plan: from :meth:`plan`.
            source_id: only papers from this source.
            mask: only paper ids ``i`` with ``mask[i]`` true (a numpy bool array indexed by
                paper id, e.g. a tag's papers from
                :class:`~paperdesk.core.scope.ScopeMasks`), or ``None``.
            allowed: only these paper ids (a set), or ``None``.
            limit: most hits, or ``None`` for all.
            fast: allow the fast path (False: Whoosh's searcher, for comparison).
        Returns:
            ``(ids, scores, total)``: paper ids (int64) and BM25F scores (float64), best
            first (ties in index order, as Whoosh ranks them), and the number of matches
            (always exact).
        """
        if plan.query is None:
            return np.zeros(0, np.int64), np.zeros(0, np.float64), 0
        query = self._query(plan)
        with self._lock:
            found = self._fast(fast, lambda view: view.search_arrays(
                query, limit, source_id, allowed, mask))
            if found is not None:
                return found
            filt = wquery.Term("source_id", str(source_id)) if source_id is not None else None
            try:
                results = self._searcher.search(query, limit=None, filter=filt)
                ids = np.fromiter((int(hit["id"]) for hit in results), np.int64)
                scores = np.fromiter((float(hit.score or 0.0) for hit in results),
                                     np.float64, len(ids))
            except Exception as exc:  # noqa: BLE001 - a query that cannot run finds nothing
                if isinstance(exc, DAMAGE_ERRORS):
                    self._damaged(exc, "searching")
                return np.zeros(0, np.int64), np.zeros(0, np.float64), 0
        keep = np.ones(len(ids), dtype=bool)
        if mask is not None:
            keep &= mask_lookup(mask, ids)
        if allowed is not None:
            keep &= np.isin(ids, np.fromiter(allowed, np.int64))
        ids, scores = ids[keep], scores[keep]
        total = len(ids)
        if limit is not None:
            ids, scores = ids[:limit], scores[:limit]
        return ids, scores, total

    def search_ranked(self, plan: QueryPlan, first: int, source_id: int | None = None,
                      mask: np.ndarray | None = None, allowed: set[int] | None = None):
        """:meth:`search_arrays` with only the best ``first`` matches ranked now (see
        :meth:`.fastscore.FastView.search_ranked`): at a million abstracts the sort of
        every match is most of a common word's search, and a list shows the first
        screenfuls long before anyone scrolls further.

        Args:
            plan, source_id, mask, allowed: as :meth:`search_arrays`.
            first: matches ranked now (at least 1).
        Returns:
            ``(ids, scores, total, rest)``: the first ``min(first, total)`` of
            :meth:`search_arrays`'s ``ids`` and ``scores``, the number of matches, and
            ``None`` when those are all of them, else a callable (any thread, no index
            access) returning the other matches' ``(ids, scores)`` best first. Queries
            Whoosh's own searcher answers come ranked in full (``rest`` is ``None``).
        """
        if plan.query is None:
            return np.zeros(0, np.int64), np.zeros(0, np.float64), 0, None
        query = self._query(plan)
        with self._lock:
            found = self._fast(True, lambda view: view.search_ranked(
                query, first, source_id, allowed, mask))
        if found is not None:
            return found
        return (*self.search_arrays(plan, source_id, mask, allowed, fast=False), None)

    def _fast(self, allowed: bool, run):
        """``run(fast view)``, or ``None`` when the fast path is off or cannot answer
        (then Whoosh's searcher must); sets :attr:`last_path`. Call with the lock held."""
        if allowed and FAST_PATH:
            try:
                found = run(self._view())
            except Unsupported:
                pass
            except Exception as exc:  # noqa: BLE001 - Whoosh's searcher is always there
                if isinstance(exc, DAMAGE_ERRORS):
                    self._damaged(exc, "searching")
                _log.info("fast search failed (%r); using Whoosh's searcher", exc)
            else:
                self.last_path = "fast"
                return found
        self.last_path = "whoosh"
        return None

    def search(self, plan: QueryPlan, limit: int | None = 50, source_id: int | None = None,
               allowed: set[int] | None = None, count: bool = True, fast: bool = True,
               mask: np.ndarray | None = None,
               ) -> tuple[list[tuple[int, float]], int, bool]:
        """Run a planned query.

        Queries of the shapes :mod:`.fastscore` handles (terms, AND/OR/NOT, prefixes,
        fuzzy words, phrases, field filters) are answered by its vectorised evaluator over
        the index's postings, with the same hits, order and BM25F scores as Whoosh's
        searcher; anything else goes to Whoosh's searcher.

        Args:
            plan: from :meth:`plan`.
            limit: most hits returned, or ``None`` for all.
            source_id: only papers from this source.
            allowed: only these paper ids (a set), or ``None``.
            count: count every match exactly (on Whoosh's path this costs a second pass
                over the postings; the fast path always counts exactly); when False the
                total may be an estimate.
            fast: allow the fast path (False: always Whoosh's searcher, for comparison).
            mask: only paper ids ``i`` with ``mask[i]`` true (see :meth:`search_arrays`),
                or ``None``.
        Returns:
            ``(hits, total, exact)``: ``(paper id, BM25F score)`` pairs best first, the
            number of matching papers, and whether that number is exact.
        """
        if plan.query is None:
            return [], 0, True
        if allowed is not None or mask is not None:
            ids, scores, total = self.search_arrays(plan, source_id, mask, allowed, limit,
                                                    fast)
            return list(zip(ids.tolist(), scores.tolist())), total, True
        query = self._query(plan)
        filt = wquery.Term("source_id", str(source_id)) if source_id is not None else None
        with self._lock:
            found = self._fast(fast, lambda view: view.search(query, limit, source_id))
            if found is not None:
                return found[0], found[1], True
            try:
                results = self._searcher.search(query, limit=limit, filter=filt)
            except Exception as exc:  # noqa: BLE001 - a query that cannot run finds nothing
                if isinstance(exc, DAMAGE_ERRORS):
                    self._damaged(exc, "searching")
                return [], 0, True
            pairs = [(int(hit["id"]), float(hit.score or 0.0)) for hit in results]
            if limit is None or len(pairs) < limit:
                return pairs, len(pairs), True
            if count:
                return pairs, len(results), True
            try:
                estimate = results.estimated_length()
            except ValueError:  # whoosh-reloaded 2.7.5 fails on some multi-term queries
                estimate = len(pairs)
            return pairs, max(estimate, len(pairs)), False

    def more_like(self, paper_id: int, text: str, limit: int = 20,
                  terms: int = MORE_LIKE_TERMS) -> list[tuple[int, float]]:
        """Papers like one, by BM25 "more like this": Whoosh's ``Searcher.more_like``
        (the ``terms`` words of ``text`` weighted highest by the Bo1 divergence-from-
        randomness model against the ``abstract`` field, then searched as one OR query,
        each word boosted by its weight, ranked by BM25F; the paper itself left out).

        Args:
            paper_id: the paper (left out of the answer; it need not be indexed).
            text: its title and abstract.
            limit: most papers.
            terms: how many of its words make the query.
        Returns:
            ``[(paper id, BM25F score), ...]``, best first; empty for a text with no
            indexed word.
        """
        with self._lock:
            docnum = self._searcher.document_number(id=str(int(paper_id)))
            try:
                hits = self._searcher.more_like(docnum, "abstract", text=text, top=limit,
                                                numterms=terms)
            except Exception as exc:  # noqa: BLE001 - damage is reported, never raised
                if isinstance(exc, DAMAGE_ERRORS):
                    self._damaged(exc, "searching")
                return []
            return [(int(hit["id"]), float(hit.score or 0.0)) for hit in hits
                    if int(hit["id"]) != int(paper_id)]

    def suggest(self, text: str) -> str | None:
        """Replace each word of ``text`` that is in no document by the closest indexed
        word (unstemmed, at most two edits away).

        Only the first :data:`SUGGEST_MAX_WORDS` words of 3 to :data:`SUGGEST_MAX_CHARS`
        letters are looked at: Whoosh compares a word with the vocabulary in pure Python,
        so a pasted paragraph or a 600-letter word would take seconds.

        Args:
            text: the query as typed.
        Returns:
            The corrected text, or ``None`` if no word was replaced.
        """
        try:
            return self._suggest(text)
        except Exception as exc:  # noqa: BLE001 - a suggestion is a nicety
            if isinstance(exc, DAMAGE_ERRORS):
                self._damaged(exc, "looking for a suggestion")
            return None

    def _suggest(self, text: str) -> str | None:
        changed = False
        out = []
        looked = 0
        with self._lock:
            reader = self._searcher.reader()
            for token in re.split(r"(\s+)", text):
                word = token.strip()
                plain = re.fullmatch(r"[^\W\d_]{3,%d}" % SUGGEST_MAX_CHARS, word)
                if plain and word not in ("AND", "OR", "NOT") and looked < SUGGEST_MAX_WORDS:
                    looked += 1
                    folded = _fold(word)
                    if reader.doc_frequency("exact", folded) == 0:
                        found = _correction(reader, "exact", folded,
                                            1 if len(folded) < 6 else 2)
                        if found:
                            out.append(found)
                            changed = True
                            continue
                out.append(token)
        return "".join(out) if changed else None

    def close(self) -> None:
        """Stop the segment-writing children, close the searcher and the index. The
        object is unusable afterwards."""
        self._builders.close()
        with self._lock:
            self._searcher.close()
            self._ix.close()
