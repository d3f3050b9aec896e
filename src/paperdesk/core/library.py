"""The Library: the one owner of a library folder's SQLite database and Whoosh index.

A library folder holds ``library.db`` (SQLite, the source of truth), ``index/`` (the Whoosh
index, derived, rebuildable) and ``backups/`` (copies of the database: taken before schema
migrations, by ``paperdesk backup``, daily, and before a restore; see
:mod:`paperdesk.core.store.backup`).

Every mutation goes through :class:`Library`; it writes SQLite and the ``index_queue`` in
one transaction, then brings the index up to date from the queue. Each thread gets its own
SQLite connection (WAL mode lets a worker import while the UI thread reads).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import sqlite3
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import sqlite_utils

from paperdesk.core import check as _check
from paperdesk.core.store import db as _db
from paperdesk.core.store.index_documents import DocumentSource, read_documents
from paperdesk.core.store.papers import (METADATA_COLUMNS, StoredAbstracts,
                                        insert_abstracts, metadata_from_row)
from paperdesk.core.edits.annotations import AnnotationsMixin
from paperdesk.core.edits.bibliographic import MetadataMixin
from paperdesk.core.edits.removal import RemovalMixin
from paperdesk.core.edits.duplicates import DuplicatesMixin
from paperdesk.core.changes import Changes
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.edits.saved_searches import SavedSearchesMixin
from paperdesk.core.discover.engine import Discover
from paperdesk.core.exports.to_file import ExportMixin
from paperdesk.core.fields import INTEREST, SORT_CHOICES, sortable_fields
from paperdesk.core.models import (DatabaseDamaged, FileReport, ImportReport, IndexStatus, LibraryError, Paper,
                                   PaperSummary,
                     SearchHit, SearchResults, Source, SourceRef, Tag, UnknownPaper)
from paperdesk.core.imports.paperdesk_json import (read_export, store_export,
                                                  store_saved_searches)
from paperdesk.core.imports.abstract_limit import cut_note
from paperdesk.core.imports.daily_papers import (ParseError, ParsedFile, StreamedText,
                                                 collect_files, display_path,
                                                 parse_decoded)
from paperdesk.core.imports.arxiv import (ArxivFilter, ArxivStream, sniff_file, sniff_stdin,
                                          stream_of_text)
from paperdesk.core.imports.bibtex import read_bibtex
from paperdesk.core.imports.csl_json import read_csl_json
from paperdesk.core.imports.detect import (FOLDER_PATTERNS, FORMAT_LABELS, STDIN,
                                           STDIN_NAME, detect_file, detect_streamed)
from paperdesk.core.imports.records import Identifiers, RecordFile, store_records
from paperdesk.core.imports.ris import read_ris
from paperdesk.core.store.backup import BACKUP_DIR as _BACKUP_DIR, sweep_partial_copies
from paperdesk.core.store.errors import disk_full_message, is_disk_full
from paperdesk.core.store.schema import SchemaError, migrate
from paperdesk.core.scope import FILTERS, Scope, ScopeMasks, scope_count, scope_ids, scope_sql  # noqa: F401 (FILTERS)
from paperdesk.core.search.integrity import open_regular
from paperdesk.core.search.safe_pickle import why
from paperdesk.core.search.index import (DAMAGE_ERRORS, IndexBusy, IndexDocument, SearchIndex,
                                         cut_snippet)
from paperdesk.core.text import (TITLE_MAX_CHARS, content_hash, derive_title, extract_urls,
                                 is_code_url, mentioned_in)
from paperdesk.core.edits.undo import UndoStack, UndoStep

__all__ = ["Library", "ProgressCallback", "CancelCheck", "FileCallback", "BatchHook", "DB_NAME", "INDEX_DIR",
           "IMPORT_BATCH", "RECORD_IMPORT_BATCH", "EXPORT_IMPORT_BATCH", "BATCH_SECONDS", "INDEX_BATCH"]

_log = logging.getLogger(__name__)

DB_NAME = "library.db"
INDEX_DIR = "index"
BACKUP_DIR = _BACKUP_DIR   # the folder of backups (see paperdesk.core.store.backup)
#: In the index folder while the index is rebuilt from SQLite after damage: the reason
#: (one line), so that a later run says it is still being repaired.
REPAIR_NOTE = "paperdesk-repairing.txt"

#: ``progress(stage, done, total)``: stage is ``"import"`` (abstracts stored) or
#: ``"index"`` (documents indexed); ``done`` and ``total`` are counts.
ProgressCallback = Callable[[str, int, int], None]
#: Returns True when the user asked to stop.
CancelCheck = Callable[[], bool]
#: ``on_file(stage, files_done, files_total, name)``: an import starts reading
#: (``stage="read"``) or storing (``"import"``) the file ``name``; ``files_done`` of the
#: ``files_total`` files it looks at are finished (see
#: :class:`paperdesk.core.imports.progress.ProgressTracker`).
FileCallback = Callable[[str, int, int, str], None]
#: ``between_batches()``: called by long operations (imports, index updates) after each
#: committed batch, on the thread doing the work and outside any transaction, so that
#: the caller can run other writes (e.g. the window's queued edits) in between.
BatchHook = Callable[[], None]

#: Most abstracts of a text file stored in one transaction of
#: :meth:`Library.import_paths` (a transaction also ends after :data:`BATCH_SECONDS`,
#: which usually comes first: abstracts are stored at some 20,000 a second on a shared
#: 2-core machine).
IMPORT_BATCH = 5000
#: Most records of a BibTeX, RIS, CSL-JSON or arXiv file stored in one transaction (each
#: is matched and merged on its own, so far fewer than abstracts); ``IMPORT_BATCH``
#: bounds it too when set lower.
RECORD_IMPORT_BATCH = 300
#: Abstracts of a text file written with one ``executemany``
#: (:func:`~paperdesk.core.store.papers.insert_abstracts`); a transaction's chunks grow
#: 1, 2, 4 ... up to this, so that its first chunk is cheap.
STORE_CHUNK = 512
#: Most papers of a paperdesk JSON export stored in one transaction (each may bring tags,
#: a note and highlights, so fewer than :data:`IMPORT_BATCH`).
EXPORT_IMPORT_BATCH = 100
#: A write transaction of an import ends after about this long even when it has not
#: reached its size (a slow disk), so other writers never wait long for the database.
BATCH_SECONDS = 0.25
#: Most index-queue entries applied in one batch of :meth:`Library.sync_index` (each
#: batch is one index commit, then one SQLite transaction removing the entries). Each
#: batch of new documents becomes one or two new segments (written by child processes
#: from 500 documents, see :mod:`paperdesk.core.search.index`), so large batches keep
#: the segment count low (100,000 papers: 25 segments) while the index becomes
#: searchable batch by batch, and the children's memory bounded (4,000 abstracts each:
#: under 200 MB); edits made meanwhile still run every
#: :data:`HOOK_INTERVAL_S` (the batch is written beside them).
INDEX_BATCH = 8_000
#: While a slow step (reading a file, writing an index batch) runs with a
#: ``between_batches`` hook, the hook is also called this often (seconds), so that no
#: edit waits for a Whoosh segment merge or a 50,000-abstract file.
HOOK_INTERVAL_S = 0.05
#: Sort keys of the list and of searches: name -> ``ORDER BY`` text (from :mod:`.fields`).
_SORTS = {f.name: f.sort_sql for f in sortable_fields()}



#: Characters of an abstract :func:`_title` looks at.
_TITLE_SCAN = 4 * TITLE_MAX_CHARS


def _pending(item) -> tuple:
    """``(position, abstract, content hash, title)`` of an abstract to be stored."""
    return item.position, item.abstract, content_hash(item.abstract), _title(item.abstract)


def _title(abstract: str) -> str:
    """``derive_title(abstract)`` for a normalised abstract, from its first
    :data:`_TITLE_SCAN` characters only: the title is the first sentence cut at
    :data:`~paperdesk.core.text.TITLE_MAX_CHARS` characters, and a sentence end is told
    by the few characters after it, so a longer abstract gives the same title (a prefix
    of NFC text is NFC, and of single-spaced text single-spaced) without normalising a
    1,500-character abstract once more."""
    return derive_title(abstract[:_TITLE_SCAN])


def _record_batch() -> int:
    """Records per transaction: :data:`RECORD_IMPORT_BATCH`, or :data:`IMPORT_BATCH`
    when that is lower."""
    return min(IMPORT_BATCH, RECORD_IMPORT_BATCH)


def _reorder(ids: np.ndarray, scores: np.ndarray, order: Sequence[int],
             descending: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``ids`` and their ``scores`` put in ``order`` (the same ids, another order),
    reversed when ``descending``."""
    ids = np.asarray(ids, dtype=np.int64)
    wanted = np.asarray(list(order), dtype=np.int64)
    if len(ids) == 0:
        return ids, np.asarray(scores, dtype=np.float64)[:0]
    sorter = np.argsort(ids, kind="stable")
    at = sorter[np.searchsorted(ids, wanted, sorter=sorter)]
    if descending:
        at = at[::-1]
    return ids[at], np.asarray(scores)[at]


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def _no_file(stage: str, files_done: int, files_total: int, name: str) -> None:
    pass


def _never() -> bool:
    return False


def _nothing() -> None:
    pass


def _shown(path) -> str:
    """How a path is named in reports and stored (standard input as ``<stdin>``; bytes
    of a file name that are not UTF-8 as backslash escapes, see
    :func:`~paperdesk.core.imports.daily_papers.display_path`)."""
    return STDIN_NAME if str(path) == STDIN else display_path(path)


def _stored(db: sqlite_utils.Database, path, now: str) -> str:
    """The path a file's ``sources`` row is stored under: the file's path, or for
    standard input a name of its own per import, ``<stdin> 2026-12-01 13:40:05 UTC``
    (the import's time; `` (2)``, `` (3)`` ... when that is taken), so that two
    imports from standard input are two sources that can be removed one by one.

    Args:
        db: the library database (inside the caller's transaction).
        path: the file's absolute path, or :data:`STDIN_NAME`.
        now: the import's time, ISO 8601 UTC (``2026-12-01T13:40:05Z``).
    Returns:
        The path to store.
    """
    if str(path) != STDIN_NAME:
        return str(path)
    base = f"{STDIN_NAME} {now[:10]} {now[11:19]} UTC"
    name, n = base, 1
    while db.execute("SELECT 1 FROM sources WHERE path = ?", [name]).fetchone():
        n += 1
        name = f"{base} ({n})"
    return name


def _db_error(folder: Path, exc: sqlite3.Error, what: str) -> LibraryError:
    """The one-line error for a database that cannot be opened: ``"<db>: <what> (<exc>)"``,
    or the full-disk message when that is the cause (:mod:`paperdesk.core.store.errors`),
    or a :class:`DatabaseDamaged` naming salvage when the file is a damaged database."""
    if is_disk_full(exc, folder if folder.is_dir() else None):
        return LibraryError(disk_full_message(folder / DB_NAME, exc))
    text = str(exc).lower()
    if "malformed" in text or "corrupt" in text or (
            "not a database" in text and _check.was_library(folder)):
        # Damaged (cut short, pages or its header overwritten), not someone else's
        # file: say so, with salvage and the latest backup as the ways out.
        return DatabaseDamaged(_check.database_message(folder, exc), folder)
    return LibraryError(f"{folder / DB_NAME}: {what} ({exc})")


def _size(parsed) -> int:
    if isinstance(parsed, ArxivStream):
        return parsed.estimated_lines
    if isinstance(parsed, StreamedText):
        return parsed.estimated_abstracts
    if isinstance(parsed, dict):
        return len(parsed["papers"])
    if isinstance(parsed, RecordFile):
        return len(parsed.records)
    return len(parsed.abstracts)


def _read_any(path, arxiv_filter: ArxivFilter | None = None
              ) -> dict | RecordFile | ParsedFile | ArxivStream | StreamedText:
    """Read one file (or standard input) in the format its content shows
    (:mod:`paperdesk.core.imports.detect`); arXiv metadata is not read here but
    streamed when stored (an :class:`ArxivStream`).

    Raises:
        ParseError: refused, with a one-line reason naming the file.
    """
    head = b""
    if str(path) == STDIN:
        stream, head = sniff_stdin(STDIN_NAME, arxiv_filter)
    else:
        stream = sniff_file(path, Path(path).resolve(), arxiv_filter)
        if stream is None:
            stream = detect_streamed(path)     # a large text file: read in pieces
    if stream is not None:
        return stream
    found = detect_file(path, head)
    shown = _shown(path)
    if found.format == "arxiv-jsonl":
        return stream_of_text(found.path, found.text, arxiv_filter)
    if found.format == "text":
        return parse_decoded(found.path, found.text, found.encoding, label=path)
    if found.format == "paperdesk-json":
        return read_export(shown, doc=found.document)
    if found.format == "csl-json":
        records = read_csl_json(found.path, found.text, found.encoding, found.document)
    else:
        reader = {"bibtex": read_bibtex, "ris": read_ris}
        records = reader[found.format](found.path, found.text, found.encoding)
    if not records.records:
        why = records.skipped[0] if records.skipped else "it holds no entries"
        raise ParseError(shown, f"no {FORMAT_LABELS[found.format]} entry with a title or "
                                f"an abstract ({why})")
    return records


def _refuse_on(conn: sqlite_utils.Database, message: str) -> None:
    """Make every write through ``conn`` fail: :func:`paperdesk.core.store.db.transaction`
    raises :class:`LibraryError` with ``message``, and SQLite refuses any other write
    (``PRAGMA query_only``)."""
    conn.refuse_writes = message
    try:
        conn.conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        pass


class Library(AnnotationsMixin, MetadataMixin, RemovalMixin, SavedSearchesMixin,
              ExportMixin, DuplicatesMixin):
    """An open library folder. Use :meth:`open`; close with :meth:`close` or ``with``.

    Attributes:
        path: the library folder.
        auto_sync_index: when True (the default), every change brings the search index up
            to date before the method returns. The GUI sets it to False and sets
            ``on_index_stale`` instead, so that index writes happen on a worker thread.
        on_index_stale: called (from the thread that made the change) after a change was
            committed to SQLite while ``auto_sync_index`` is False.
        read_only: opened with ``read_only=True`` (see :meth:`open`).
    """

    def __init__(self, path: Path, sync_index: bool = True, read_only: bool = False):
        self.path = Path(path).expanduser().absolute()
        self.read_only = read_only
        #: Why it was opened read-only when not because another process holds it (one
        #: line, e.g. the disk is full and its lock could not be written), else None.
        self.read_only_reason: str | None = None
        # One connection per thread, by thread id: a threading.local() is emptied after
        # every slot call on a QThread (PySide gives such a thread a new Python thread
        # state per call), which opened a new connection per search and kept them all.
        self._by_thread: dict[int, sqlite_utils.Database] = {}
        self._connections: list[sqlite_utils.Database] = []
        self._conn_lock = threading.Lock()
        # Re-entrant: an edit run from sync_index's between_batches may sync again.
        self._drain_lock = threading.RLock()
        self._syncing = False
        self._closed = False
        self.auto_sync_index = True
        self.on_index_stale: Callable[[], None] | None = None
        #: Why the last index sync stopped early (another process held the index's write
        #: lock, :class:`~paperdesk.core.search.index.IndexBusy`), or ``None``; what it
        #: did not apply stays queued.
        self.index_problem: str | None = None
        #: The undo stack every undoable mutation records a step on (see :meth:`undo`).
        self.undo_stack = UndoStack()
        #: Cached tag/filter masks and sort ranks for searching (see :class:`ScopeMasks`).
        self.masks = ScopeMasks()
        #: Why the database is damaged (one line: the file, the problem and the way
        #: out), found by the quick check at open (:mod:`paperdesk.core.check`), or
        #: ``None``. While set, every write is refused with this message.
        self.db_problem: str | None = None
        #: Why the search index is being rebuilt from SQLite (damaged or missing, found
        #: at open or by a search), or ``None``; cleared once every paper is indexed
        #: again. :meth:`index_status` reports it (``repairing``).
        self.index_repair: str | None = None
        #: Related papers, key terms, tag suggestions and the interest order
        #: (:class:`~paperdesk.core.discover.engine.Discover`, over ``terms/``).
        self.discover = Discover(self)
        if self.path.exists() and not self.path.is_dir():
            raise LibraryError(f"{self.path} is not a folder (a library is a folder)")
        _check.refuse_unreadable_folder(self.path)
        _check.refuse_lost_database(self.path)
        _check.refuse_foreign_database(self.path)
        if read_only:
            self._check_readable()
            self._check_database()
            self.index = self._open_index()
            self._repair_left(self.index)
            return
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LibraryError(f"cannot create library folder {self.path}: {exc.strerror}") from exc
        try:
            migrate(self.db, self.path / BACKUP_DIR)
        except sqlite3.DatabaseError as exc:
            self.close()
            if "not a database" in str(exc) or is_disk_full(
                    exc, self.path if self.path.is_dir() else None):
                raise _db_error(self.path, exc, "not a paperdesk library") from exc
            raise DatabaseDamaged(_check.database_message(self.path, exc), self.path) from exc
        except SchemaError as exc:
            self.close()
            raise LibraryError(f"{self.path / DB_NAME}: {exc}") from exc
        self._check_database()
        for folder in (self.path, self.path / BACKUP_DIR):   # a backup or restore killed
            sweep_partial_copies(folder)                      # while writing its copy
        try:
            self.index = self._open_index()
        except sqlite3.DatabaseError as exc:     # a damaged page quick_check missed
            self.close()
            raise DatabaseDamaged(_check.database_message(self.path, exc), self.path) from exc
        if self.db_problem is not None:
            return                      # nothing is written into a damaged database
        if sync_index:
            self.sync_index()

    @property
    def _document_source(self) -> DocumentSource:
        """Where index writes read papers' documents: this thread's connection here, a
        read-only connection of their own in the segment-writing child processes."""
        source = getattr(self, "_source", None)
        if source is None:
            source = self._source = DocumentSource(self.path / DB_NAME, self._documents)
        return source

    # -- life cycle --------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | os.PathLike, sync_index: bool = True,
             read_only: bool = False) -> "Library":
        """Open the library in folder ``path``, creating an empty one if missing.

        Every open checks the library cheaply (:mod:`paperdesk.core.check`):
        ``PRAGMA quick_check`` (0.2-0.4 s at 100,000 papers; on damage :attr:`db_problem`
        is set, every write is refused and the index is left alone) and the search
        index's files and document count (a ``stat`` per segment file; damage or a
        missing ``index/`` folder queues every paper to be indexed again, see
        :attr:`index_repair`; ``sync_index=False`` leaves that rebuild to the caller).

        Args:
            path: library folder.
            sync_index: bring the search index up to date before returning (pass ``False``
                to do it later with :meth:`sync_index`, e.g. from a worker thread).
            read_only: for reading while another process writes (it holds the library's
                lock, :mod:`paperdesk.core.store.lock`): nothing is created, migrated, repaired
                or indexed, so searches may miss changes the other process has not
                indexed yet. Only call reading methods on such a library.
        Returns:
            The open :class:`Library`.
        Raises:
            LibraryError: the folder cannot be created, or its database is not a paperdesk
                library or is from a newer version, or ``library.db`` is missing or
                empty in a folder that holds a library (an ``index/`` or ``backups/``
                folder: no empty library is made over it; the message offers the
                latest backup); with ``read_only``, also when the library does not exist
                or would need changes before it can be read.
        """
        return cls(Path(path), sync_index=sync_index, read_only=read_only)

    def _check_database(self) -> None:
        """The quick check at open (``PRAGMA quick_check``, see
        :func:`paperdesk.core.check.database_problem`): on damage, set
        :attr:`db_problem` and refuse writes on every connection."""
        try:
            problem = _check.database_problem(self.db, self.path)
        except LibraryError:
            self.close()
            raise
        if problem is not None:
            self._refuse_writes(problem)

    def _refuse_writes(self, message: str) -> None:
        """From now on every write transaction raises :class:`LibraryError` with
        ``message`` (and SQLite itself refuses writes: ``PRAGMA query_only``)."""
        self.db_problem = message
        with self._conn_lock:
            for conn in self._connections:
                _refuse_on(conn, message)

    def _check_readable(self) -> None:
        """For ``read_only``: the database exists at the current schema version."""
        from paperdesk.core.store.schema import SCHEMA_VERSION, schema_version

        if not (self.path / DB_NAME).is_file():
            raise LibraryError(f"{self.path} is not a paperdesk library yet")
        try:
            version = schema_version(self.db)
        except sqlite3.DatabaseError as exc:
            self.close()
            raise _db_error(self.path, exc, "not a paperdesk library") from exc
        if version != SCHEMA_VERSION:
            self.close()
            raise LibraryError(f"{self.path / DB_NAME}: needs upgrading (schema {version}); "
                               "close the other paperdesk first")

    def __enter__(self) -> "Library":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the index and every database connection, after emptying the WAL into
        the database file (:func:`~paperdesk.core.store.db.checkpoint`). Safe to call
        twice."""
        if self._closed:
            return
        self._closed = True
        index = getattr(self, "index", None)
        if index is not None:
            index.close()
        stand_in = getattr(self, "_stand_in", None)
        if stand_in:
            shutil.rmtree(stand_in, ignore_errors=True)
        with self._conn_lock:
            if self._connections and not self.read_only \
                    and getattr(self, "db_problem", None) is None:
                # Leave the database self-contained (the WAL emptied into it), so that a
                # read-only open of the folder sees every change (see connect_read_only).
                _db.checkpoint(self._connections[0])
            for conn in self._connections:
                conn.conn.close()
            self._connections.clear()

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's connection to ``library.db`` (opened on first use)."""
        if self._closed:
            raise LibraryError("the library is closed")
        conn = self._by_thread.get(threading.get_ident())
        if conn is None:
            try:
                if self.read_only:
                    conn = _db.connect_read_only(self.path / DB_NAME)
                else:
                    conn = _db.connect(self.path / DB_NAME)
            except sqlite3.OperationalError as exc:
                raise _db_error(self.path, exc, "cannot open") from exc
            except sqlite3.DatabaseError as exc:
                raise _db_error(self.path, exc, "not a paperdesk library") from exc
            if self.db_problem is not None:
                _refuse_on(conn, self.db_problem)
            with self._conn_lock:
                self._by_thread[threading.get_ident()] = conn
                self._connections.append(conn)
        return conn

    def _open_index(self) -> SearchIndex:
        index_path = self.path / INDEX_DIR
        if self.read_only:
            try:
                if not index_path.is_dir():
                    raise FileNotFoundError(index_path)
                index = SearchIndex(index_path)
                index.quick_problems()    # reads its table of contents and segment list
                return index
            except Exception as exc:  # noqa: BLE001 - damaged: only a writer may rebuild it
                # Reading goes on without it (show, export, stats ...): an empty stand-in
                # index in a temporary folder; searches find nothing and say why.
                self.index_repair = (
                    f"{index_path}: the search index cannot be read "
                    f"({why(exc)}); searches find nothing until a paperdesk "
                    "that can write the library rebuilds it (paperdesk reindex)")
                self._stand_in = tempfile.mkdtemp(prefix="paperdesk-stand-in-index-")
                return SearchIndex(Path(self._stand_in))
        missing = (self.db_problem is None and not index_path.exists()
                   and self.count() > 0)
        try:
            index = SearchIndex(index_path)
            problems = [] if self.db_problem else index.quick_problems()
        except Exception as exc:  # noqa: BLE001 - any damage: the index is derived, rebuild it
            if index_path.is_dir() and not index_path.is_symlink():
                shutil.rmtree(index_path, ignore_errors=True)
            else:
                index_path.unlink(missing_ok=True)
            try:
                index = SearchIndex(index_path)
            except OSError as exc2:
                raise LibraryError(f"{index_path}: cannot create the search index "
                                   f"({exc2.strerror or exc2})") from exc2
            index.keeps_checksums = True
            if self.db_problem is None:
                self._start_repair(index, f"{index_path}: the search index cannot be read "
                                          f"({why(exc)})", recreate=False)
            return index
        index.keeps_checksums = True
        if self.db_problem is not None:
            return index
        if problems:
            self._start_repair(index, problems[0])
        elif missing:
            self._start_repair(index, f"{index_path}: the search index folder is missing",
                               recreate=False)
        else:
            try:
                if self._queue_size():
                    self._repair_left(index)
                    self._recover_queue(index)
                elif index.doc_count() == 0 and self.count() > 0:
                    # An index folder without its table of contents (or emptied) opens
                    # as a new, empty index: rebuild it like a missing one.
                    self._start_repair(index, f"{index_path}: the search index holds no "
                                              "papers (its table of contents is missing "
                                              "or it was emptied)")
                elif index.doc_count() != self.count():
                    self._repair_queue(index)
            except DAMAGE_ERRORS as exc:   # a segment's ids cannot be read
                self._start_repair(index, f"{index_path}: the search index is damaged "
                                          f"({why(exc)} reading its ids)")
        return index

    def _start_repair(self, index: SearchIndex, reason: str, recreate: bool = True) -> None:
        """Start rebuilding the search index from SQLite: empty it (unless ``recreate``
        is False: it is empty already) and queue every paper; the next
        :meth:`sync_index` (in the window: in the background, with progress) indexes
        them. Searches meanwhile say they covered part of the library."""
        _log.info("rebuilding the search index: %s", reason)
        if recreate:
            index.recreate()
        index.damage = None
        self.index_repair = reason
        self._queue_all("add")
        try:       # remembered until every paper is indexed again (see index_status)
            (index.path / REPAIR_NOTE).write_text(reason + "\n", encoding="utf-8")
        except OSError:
            pass

    def _repair_left(self, index: SearchIndex) -> None:
        """A rebuild started by an earlier run is not finished: take up its reason."""
        try:
            with open_regular(index.path / REPAIR_NOTE) as f:
                note = f.read(4096).decode("utf-8", "replace").strip()
        except (OSError, UnicodeDecodeError):
            return
        self.index_repair = note.splitlines()[0] if note else "the search index is rebuilt"

    # -- undo --------------------------------------------------------------------------
    def _record(self, label: str, changes: Changes, undo: Callable[[], Changes],
                redo: Callable[[], Changes], merge_key=None, undoable: bool = True,
                before: object = None, after: object = None) -> Changes:
        """Push one undo step for a change just committed (nothing for an empty change or
        ``undoable=False``); return ``changes``. See :class:`UndoStep` for the rest."""
        if undoable and changes:
            self.undo_stack.push(UndoStep(label, undo, redo, merge_key, before, after))
        self.discover.note_changes(changes)
        return changes

    def undo(self) -> Changes:
        """Reverse the newest undoable change.

        Returns:
            What the reversal changed (``replay`` set).
        Raises:
            NothingToUndo: nothing to undo (a :class:`LibraryError`).
            LibraryError: the change can no longer be reversed (e.g. its tag was
                deleted meanwhile); the stack is unchanged.
        """
        changes = self.undo_stack.undo()
        self.discover.note_changes(changes)
        return changes

    def redo(self) -> Changes:
        """Re-apply the newest undone change; see :meth:`undo` for the errors.

        Returns:
            What it changed (``replay`` set).
        """
        changes = self.undo_stack.redo()
        self.discover.note_changes(changes)
        return changes

    @property
    def undo_label(self) -> str | None:
        """What :meth:`undo` would reverse ("Tag ‘depth’"), or ``None``."""
        return self.undo_stack.undo_label

    @property
    def redo_label(self) -> str | None:
        """What :meth:`redo` would re-apply, or ``None``."""
        return self.undo_stack.redo_label

    # -- reading -----------------------------------------------------------------------
    def count(self, source_id: int | None = None) -> int:
        """Return the number of papers, or of papers from one source.

        Args:
            source_id: restrict to this source.
        Returns:
            A count (0 for an unknown source).
        """
        if source_id is None:
            return self.db.execute("SELECT count(*) FROM papers").fetchone()[0]
        return self.db.execute(
            "SELECT count(DISTINCT paper_id) FROM paper_sources WHERE source_id = ?",
            [source_id],
        ).fetchone()[0]

    def paper_ids(self, order: str = "added", descending: bool = False,
                  source_id: int | None = None, tag_id: int | None = None,
                  filter: str | None = None) -> list[int]:
        """Return paper ids in display order, sorted and filtered in SQLite.

        Args:
            order: ``"added"`` (import order) or ``"title"`` (case-insensitive).
            descending: reverse the order.
            source_id: only papers from this source.
            tag_id: only papers with this tag.
            filter: one of :data:`FILTERS` (``"unread"``, ``"starred"``, ``"untagged"``,
                ``"has_note"``, ...), or ``None``.
        Returns:
            A list of ids.
        Raises:
            ValueError: unknown ``order`` or ``filter``.
        """
        if order not in _SORTS:
            raise ValueError(f"unknown order {order!r}; use one of {sorted(_SORTS)}")
        by = _SORTS[order].format(d="DESC" if descending else "ASC")
        where, args = scope_sql(Scope(source_id, tag_id, filter))
        return [r[0] for r in self.db.execute(
            f"SELECT id FROM papers WHERE {where} ORDER BY {by}", args)]

    def scope_ids(self, scope: Scope, sort: str | None = None,
                  descending: bool = False) -> list[int]:
        """Return the ids of the papers in ``scope`` in list order; the one function for
        which papers a list, an export or a command covers.

        Args:
            scope: a :class:`~paperdesk.core.scope.Scope` (all, filter, source, tag,
                saved search, query, selection, or several of these narrowing each other).
            sort: ``"relevance"``, ``"added"``, ``"title"`` or ``None`` for the natural
                order (see :func:`paperdesk.core.scope.scope_ids`).
            descending: reverse an ``added``/``title`` sort.
        Returns:
            A list of ids.
        Raises:
            ValueError: an unknown filter or sort, or both a query and a saved search.
            LibraryError: an unknown saved search.
            UnknownPaper: a selected id is not in the library.
        """
        return scope_ids(self, scope, sort=sort, descending=descending)

    def scope_count(self, scope: Scope, also: str | None = None) -> int:
        """Return the number of papers in ``scope`` (``count(*)`` in SQLite, or the
        index's count for a query), without listing them.

        Args:
            scope: a :class:`~paperdesk.core.scope.Scope`.
            also: count only those that also pass this filter (e.g. ``"unread"``).
        Returns:
            The count.
        Raises:
            ValueError, LibraryError, UnknownPaper: as :meth:`scope_ids`.
        """
        return scope_count(self, scope, also=also)

    def summaries(self, ids: Sequence[int]) -> dict[int, PaperSummary]:
        """Return list-row data for the given ids (unknown ids are left out).

        Args:
            ids: paper ids; any number (queried in chunks).
        Returns:
            ``{id: PaperSummary}``.
        """
        out: dict[int, PaperSummary] = {}
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            tags: dict[int, list[str]] = {}
            for pid, name in self.db.execute(
                    "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t "
                    f"ON t.id = pt.tag_id WHERE pt.paper_id IN ({marks}) "
                    "ORDER BY t.name_key", chunk):
                tags.setdefault(pid, []).append(name)
            for row in self.db.execute(
                "SELECT id, title, added_at, read_at, starred, "
                "EXISTS (SELECT 1 FROM notes n WHERE n.paper_id = papers.id), "
                "json_extract(authors, '$[0][0]'), substr(date, 1, 4), venue "
                f"FROM papers WHERE id IN ({marks})", chunk,
            ):
                out[row[0]] = PaperSummary(row[0], row[1], row[2], row[3] is not None,
                                           bool(row[4]), tuple(tags.get(row[0], ())),
                                           bool(row[5]), row[6] or "",
                                           int(row[7]) if row[7] else None, row[8] or "")
        return out

    def first_unread(self, ids: Sequence[int]) -> int | None:
        """Return the first id of ``ids`` (in the order given) whose paper is unread.

        Looks at 500 ids at a time, so finding the next unread paper of a 100,000-row
        list usually reads one small chunk (``u`` in the window).

        Args:
            ids: paper ids in the order to look.
        Returns:
            That id, or ``None`` when none of them is unread (unknown ids are skipped).
        """
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            unread = {r[0] for r in self.db.execute(
                f"SELECT id FROM papers WHERE id IN ({marks}) AND read_at IS NULL", chunk)}
            for pid in chunk:
                if pid in unread:
                    return pid
        return None

    def abstracts(self, ids: Sequence[int]) -> dict[int, str]:
        """Return ``{id: abstract}`` for the given ids (unknown ids are left out)."""
        out: dict[int, str] = {}
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            out.update(self.db.execute(
                f"SELECT id, abstract FROM papers WHERE id IN ({marks})", chunk).fetchall())
        return out

    def get(self, paper_id: int) -> Paper:
        """Return one paper with its provenance.

        Args:
            paper_id: the id.
        Returns:
            The :class:`Paper`.
        Raises:
            UnknownPaper: no paper has that id.
        """
        if not -(2**63) <= int(paper_id) < 2**63:  # beyond SQLite's INTEGER
            raise UnknownPaper(paper_id)
        row = self.db.execute(
            "SELECT id, title, derived_title, abstract, added_at, read_at, starred, "
            f"citation_key, {', '.join(METADATA_COLUMNS)}, file_title "
            "FROM papers WHERE id = ?", [int(paper_id)]).fetchone()
        if row is None:
            raise UnknownPaper(paper_id)
        refs = tuple(
            SourceRef(*r) for r in self.db.execute(
                "SELECT s.id, s.path, s.name, s.header, ps.position FROM paper_sources ps "
                "JOIN sources s ON s.id = ps.source_id WHERE ps.paper_id = ? "
                "ORDER BY s.id, ps.position", [row[0]])
        )
        abstract = row[3]
        tags = tuple(Tag(*r) for r in self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, "
            "(SELECT count(*) FROM paper_tags x WHERE x.tag_id = t.id) FROM paper_tags pt "
            "JOIN tags t ON t.id = pt.tag_id WHERE pt.paper_id = ? "
            "ORDER BY t.name_key", [row[0]]))
        return Paper(
            id=row[0], title=row[1], derived_title=row[2], abstract=abstract,
            added_at=row[4], read_at=row[5], starred=bool(row[6]),
            citation_key=row[7] or "", metadata=metadata_from_row(row[8:-1]),
            file_title=row[-1] or "",
            mentioned=mentioned_in(abstract),
            sources=refs, tags=tags, note=self.note(row[0]),
            highlights=tuple(self.highlights(row[0])),
        )

    def sources(self) -> list[Source]:
        """Return every imported file with its paper count, in import order."""
        return [
            Source(*r) for r in self.db.execute(
                "SELECT s.id, s.path, s.name, s.header, s.imported_at, "
                "count(DISTINCT ps.paper_id) FROM sources s "
                "LEFT JOIN paper_sources ps ON ps.source_id = s.id GROUP BY s.id ORDER BY s.id")
        ]

    def index_status(self) -> IndexStatus:
        """How far the search index is behind the library: papers, papers not indexed
        yet, index-queue entries (two counts; cheap enough to call after every index
        batch).

        Returns:
            An :class:`~paperdesk.core.models.IndexStatus`.
        """
        queued, unindexed = self.db.execute(
            "SELECT count(*), coalesce(sum(op = 'add'), 0) FROM index_queue").fetchone()
        stand_in = getattr(self, "_stand_in", None)
        if stand_in:          # read-only and unreadable: nothing is searchable until fixed
            unindexed = self.count()
        elif not unindexed and self.index_repair is not None:
            self.index_repair = None
            if not self.read_only:
                (self.path / INDEX_DIR / REPAIR_NOTE).unlink(missing_ok=True)
        return IndexStatus(self.count(), unindexed, queued,
                           repairing=self.index_repair is not None)

    def stats(self) -> dict:
        """Return counts: ``papers``, ``indexed`` (documents in the search index),
        ``pending_index`` (index-queue entries: papers waiting to be indexed or
        re-indexed), ``searchable`` (papers a search finds now) and ``unindexed``
        (papers not in the index yet: an import still being indexed), ``sources``,
        ``unread``, ``starred``, ``tags``, ``notes``, ``highlights``, and ``path`` (the
        library folder)."""
        q = self.db.execute
        status = self.index_status()
        return {
            "path": display_path(self.path),
            "database_problem": self.db_problem,
            "index_repair": self.index_repair or self.index.damage,
            "papers": status.papers,
            "indexed": self.index.doc_count(),
            "pending_index": status.queued,
            "searchable": status.indexed,
            "unindexed": status.unindexed,
            "sources": q("SELECT count(*) FROM sources").fetchone()[0],
            "unread": q("SELECT count(*) FROM papers WHERE read_at IS NULL").fetchone()[0],
            "starred": q("SELECT count(*) FROM papers WHERE starred").fetchone()[0],
            "tags": q("SELECT count(*) FROM tags").fetchone()[0],
            "notes": q("SELECT count(*) FROM notes").fetchone()[0],
            "highlights": q("SELECT count(*) FROM highlights").fetchone()[0],
        }

    # -- search ------------------------------------------------------------------------
    def find(self, query: str, limit: int | None = 50, source_id: int | None = None,
             tag_id: int | None = None, filter: str | None = None, sort: str = "relevance",
             descending: bool = False, count: bool = True, snippets: bool = True,
             suggest: bool = True, within: set[int] | None = None) -> SearchResults:
        """Search the library (the query language is described in :mod:`.query`).

        Every match is found (as numpy arrays, cheap even for 100,000 hits) and returned
        in ``ids``/``scores``; only the first ``limit`` become :class:`SearchHit` rows
        (title, snippet). A tag or filter is applied inside the index search as a cached
        bool mask over paper ids (:class:`~paperdesk.core.scope.ScopeMasks`); papers
        deleted since indexing are left out the same way.

        Args:
            query: what the user typed; any text is safe (broken syntax is searched as
                plain words; a refused part is explained in ``message``).
            limit: most hits built as rows (``hits``), or ``None`` for all; ``0`` for
                none (only ``ids``, ``scores`` and ``total``).
            source_id: only papers from this source.
            tag_id: only papers with this tag.
            filter: only papers passing this filter (see :data:`FILTERS`).
            sort: ``"relevance"`` (BM25F, best first), a sortable field (``"added"``,
                ``"title"`` ...) or ``"interest"`` (worth reading first:
                :meth:`~paperdesk.core.discover.engine.Discover.interest` of the matches;
                then ``interest`` holds its message and, for the ``limit`` first, the
                words that moved each up), for ``hits`` and ``ids`` alike.
            descending: reverse a field sort (or the interest order).
            count: kept for callers; the total is always exact now.
            snippets: cut a snippet for each hit (False: ``snippet`` is empty); each costs
                at most :data:`~paperdesk.core.search.index.SNIPPET_SCAN_CHARS` characters
                of its abstract scanned (:func:`~paperdesk.core.search.index.cut_snippet`),
                and only the ``limit`` rows get one: the matches beyond cost nothing.
            suggest: offer "did you mean" when the query finds little (False when only
                the count matters, e.g. for saved-search counts).
            within: only these paper ids (a selection), or ``None``.
        Returns:
            :class:`SearchResults` (``total_exact`` True); while papers wait to be
            indexed (an import that is still being indexed) its ``indexed`` and
            ``papers`` say how much of the library the search covered (``partial``).
        Raises:
            ValueError: unknown ``filter`` or ``sort``.
            TermsNotReady: ``sort="interest"`` and the term table must be built first
                (``discover.ensure``, on a thread of its own).
        """
        if sort not in SORT_CHOICES:
            raise ValueError(f"unknown sort {sort!r}; use "
                             f"{', '.join(SORT_CHOICES[:-1])} or {SORT_CHOICES[-1]}")
        plan = self.index.plan(query)
        mask = self.masks.mask(self.db, Scope(tag_id=tag_id, filter=filter))
        if plan.added is not None:     # added: is answered by SQLite (not indexed)
            mask = mask & self.masks.added(self.db, *plan.added)
        allowed = set(within) if within is not None else None
        if plan.added is not None and not plan.flags and \
                type(plan.query).__name__ == "Every":
            ids, scores, total = self._added_only(mask, source_id, allowed)
        else:
            ids, scores, total = self.index.search_arrays(plan, source_id=source_id,
                                                          mask=mask, allowed=allowed)
        interest = None
        if sort == INTEREST:
            interest = self.discover.interest(
                ids.tolist(), with_reasons=None if limit is None else max(limit, 0))
            ids, scores = _reorder(ids, scores, interest.ids, descending)
        elif sort != "relevance" and len(ids) > 1:
            rank = self.masks.rank(self.db, sort, descending)
            order = np.argsort(rank[ids], kind="stable")  # ids all exist (the mask)
            ids, scores = ids[order], scores[order]
        top = ids if limit is None else ids[:max(limit, 0)]
        hits = self._hits(plan, top.tolist(), scores[:len(top)].tolist(), snippets)
        suggestion = (self.suggest(plan) if suggest and total < 3 and plan.query is not None
                      else None)
        indexed, papers = self._coverage()
        if self.index.damage is not None:
            self._index_damaged()
            indexed, papers = 0, self.count()
        return SearchResults(query, hits, total, True, plan.message, suggestion, ids=ids,
                             scores=scores, indexed=indexed, papers=papers,
                             interest=interest)

    def _added_only(self, mask: np.ndarray, source_id: int | None,
                    allowed: set[int] | None) -> tuple[np.ndarray, np.ndarray, int]:
        """The hits of a query that is only ``added:`` (and a scope): every paper of the
        mask, in import order, score 1 (as Whoosh scores "every document"), straight
        from the masks (Whoosh's searcher would take ~0.5 s at 100,000 papers)."""
        ids = np.flatnonzero(mask).astype(np.int64)
        if source_id is not None:
            from_source = np.fromiter((r[0] for r in self.db.execute(
                "SELECT paper_id FROM paper_sources WHERE source_id = ?", [source_id])),
                np.int64)
            ids = ids[np.isin(ids, from_source)]
        if allowed is not None:
            ids = ids[np.isin(ids, np.fromiter(allowed, np.int64))]
        return ids, np.ones(len(ids), np.float64), len(ids)

    def _index_damaged(self) -> None:
        """A read of the index failed (:attr:`SearchIndex.damage`): have the next
        :meth:`sync_index` rebuild it (in the window, in the background)."""
        if self.read_only or self.db_problem is not None:
            return
        if self.auto_sync_index:
            return          # the caller's next sync_index (the CLI's) rebuilds it
        if self.on_index_stale is not None:
            self.on_index_stale()

    def _hits(self, plan, ids: list[int], scores: list[float],
              snippets: bool) -> list[SearchHit]:
        summaries = self.summaries(ids)
        texts = self.abstracts(ids) if snippets else {}
        terms = self.index.match_terms(plan) if snippets else None
        hits = []
        for pid, score in zip(ids, scores):
            summary = summaries.get(pid)
            if summary is None:  # deleted since the search ran
                continue
            text, spans = "", ()
            if snippets:
                text, spans = cut_snippet(texts.get(pid) or "", terms)
            hits.append(SearchHit(pid, summary.title, score, text, tuple(spans)))
        return hits

    def _coverage(self) -> tuple[int | None, int | None]:
        """``(indexed, papers)`` for :class:`SearchResults` while papers wait to be
        indexed, else ``(None, None)``: one indexed lookup of the queue in the common
        case, two counts otherwise (no scan of the papers' rows)."""
        if self.db.execute("SELECT 1 FROM index_queue WHERE op = 'add' LIMIT 1"
                           ).fetchone() is None:
            return None, None
        status = self.index_status()
        return status.indexed, status.papers

    def snippets(self, query: str, ids: Sequence[int]
                 ) -> dict[int, tuple[str, tuple[tuple[int, int], ...]]]:
        """Cut the search snippets of some papers (the rows of a result list on show).

        Args:
            query: the query as typed (its match terms are looked up in the index).
            ids: paper ids (any number; a list shows about 200 at a time). Each costs at
                most :data:`~paperdesk.core.search.index.SNIPPET_SCAN_CHARS` characters
                scanned, however long its abstract.
        Returns:
            ``{id: (snippet, spans)}``: plain text around the matched words and the
            ``(start, end)`` offsets of those words in it, as in :class:`SearchHit`
            (papers no longer in the library are left out).
        """
        plan = self.index.plan(query)
        terms = self.index.match_terms(plan)
        out = {}
        for pid, abstract in self.abstracts(ids).items():
            text, spans = cut_snippet(abstract or "", terms)
            out[pid] = (text, tuple(spans))
        return out

    def match_terms(self, query: str):
        """Return the index words ``query`` matches, for highlighting any text with
        :func:`paperdesk.core.search.index.match_spans` (the detail pane's abstract and note).

        Args:
            query: the query as typed.
        Returns:
            A :class:`~paperdesk.core.search.index.MatchTerms` (empty for a blank query).
        """
        return self.index.match_terms(self.index.plan(query))

    def suggest(self, plan) -> str | None:
        """Offer a corrected query ("did you mean") from the library's own words.

        Each plain word of the query that no paper contains is replaced by the closest
        word (at most two edits away) that papers do contain.

        Args:
            plan: a :class:`~paperdesk.core.search.query.QueryPlan` (from ``index.plan``).
        Returns:
            The corrected query text, or ``None`` when nothing better is known.
        """
        return self.index.suggest(plan.text)

    def search(self, query: str, limit: int | None = 50) -> list[SearchHit]:
        """Search title and abstract; see :meth:`find`.

        Args:
            query: query text.
            limit: most hits, or ``None`` for all.
        Returns:
            Hits, best first.
        """
        return self.find(query, limit=limit).hits

    # -- import ------------------------------------------------------------------------
    def import_paths(self, paths: Iterable[str | os.PathLike],
                     progress: ProgressCallback | None = None,
                     cancel: CancelCheck | None = None, sync: bool = True,
                     between_batches: BatchHook | None = None,
                     on_file: FileCallback | None = None,
                     arxiv_filter: ArxivFilter | None = None) -> ImportReport:
        """Import files and folders: the Daily Papers format or plain text, BibTeX and
        BibLaTeX, RIS, CSL-JSON, arXiv's bulk metadata (JSON Lines) and paperdesk's own
        JSON export, each recognised by its content
        (:mod:`paperdesk.core.imports.detect`); ``"-"`` is standard input.

        A folder contributes its ``*.txt``, ``*.bib``, ``*.ris``, ``*.json`` and
        ``*.jsonl`` files,
        recursively (:data:`~paperdesk.core.imports.detect.FOLDER_PATTERNS`); each of
        them that is in none of the formats is rejected with its reason, and other files
        are not looked at. Files are read first: a file that cannot be read, or is in
        none of the formats, is rejected with a one-line reason and leaves no trace. A
        text file of a megabyte or more (and arXiv metadata) is read in pieces: it is
        recognised in one pass and read again while it is stored, so memory holds a
        batch of its abstracts, not the file
        (:class:`~paperdesk.core.imports.daily_papers.StreamedText`). Records of BibTeX, RIS and CSL-JSON files become papers or are merged onto the
        papers they match (:mod:`paperdesk.core.imports.records`: same abstract, DOI or
        arXiv id), filling in only what those papers lack.

        The papers are then stored in short transactions (batches) of at most
        :data:`IMPORT_BATCH` abstracts or :data:`RECORD_IMPORT_BATCH` records (:data:`EXPORT_IMPORT_BATCH` papers of a JSON
        export) or about :data:`BATCH_SECONDS`, whichever comes first, so that another
        writer (the window's star toggle) never waits long for the database. Each paper is
        stored whole: its row, its ``paper_sources`` row and its ``index_queue`` row are
        in the same transaction. Abstracts are de-duplicated by the SHA-256 of their
        normalised text; a duplicate gains a provenance row but is stored once. Importing
        the same file again adds nothing and changes nothing, and importing a file that
        was only partly imported (cancelled) adds just the rest.

        Runs on the calling thread (with that thread's connection).

        Args:
            paths: files and/or folders.
            progress: called as ``progress(stage, done, total)`` after every batch.
            cancel: polled before every batch; return True to stop. The batches already
                committed stay; what is left of the file is not imported.
            sync: index the new papers before returning (False leaves them queued for
                :meth:`sync_index`, e.g. to tag them first and index once). Indexing is
                cancelled by ``cancel`` too; what is left stays queued.
            between_batches: called with no arguments after every committed batch (of
                the import and of the index update), and about every
                :data:`HOOK_INTERVAL_S` while a slow step runs on a helper thread
                (reading a file, a Whoosh commit); always outside any transaction, on
                this thread. It may write to SQLite through the library (e.g. run queued
                user edits) but not import or re-index. Whatever it raises ends the
                import (committed batches stay).
            on_file: called as ``on_file(stage, files_done, files_total, name)`` before
                each file is read (``"read"``) and before it is stored (``"import"``);
                ``files_done`` counts the files finished, rejected ones included.
                ``cancel`` is also polled before each file but the first is read.
            arxiv_filter: which records of arXiv metadata files to keep (categories,
                date; :class:`~paperdesk.core.imports.arxiv.ArxivFilter`); other formats
                are imported whole. An arXiv file is streamed: its lines are read while
                it is stored, in batches, never all at once, and its progress counts
                lines read out of an estimate from its size.
        Returns:
            The :class:`ImportReport`: its counts (``added``, ``enriched``,
            ``duplicates``, ``without_abstract``, ``added_ids``, ``changed_ids``) are
            those of the committed batches; ``cancelled`` is set when
            ``cancel`` stopped it, and the file being imported then has
            ``FileReport.cancelled`` set.
        Raises:
            LibraryError: the library is closed. A database error while storing a file
            is reported on that file (``FileReport.error``) instead.
        """
        progress = progress or _no_progress
        cancel = cancel or _never
        hook = between_batches or _nothing
        report = ImportReport()
        parsed = []
        on_file = on_file or _no_file
        files = collect_files(list(paths), patterns=FOLDER_PATTERNS)
        for position, path in enumerate(files):
            if position and cancel():       # e.g. Ctrl+C while a folder is read
                report.cancelled = True
                break
            on_file("read", position, len(files), _shown(path))
            try:
                if between_batches is None:
                    parsed.append((position, path, _read_any(path, arxiv_filter)))
                else:   # a 50,000-abstract file takes seconds to read
                    parsed.append((position, path, self._beside(
                        lambda: _read_any(path, arxiv_filter), hook)))
            except ParseError as exc:
                report.files.append(FileReport(_shown(path), error=exc.reason))
            except Exception as exc:  # noqa: BLE001 - a reader's bug: refuse this file only
                report.files.append(FileReport(
                    _shown(path), error=f"cannot be read ({exc.__class__.__name__}: "
                                        f"{display_path(str(exc))})"))
        if report.cancelled:
            parsed = []
        total = sum(_size(pf) for _i, _p, pf in parsed)
        done = 0
        progress("import", 0, total)
        for position, path, pf in parsed:
            file_report = FileReport(_shown(path))
            if isinstance(pf, dict):
                file_report.header, file_report.format = "paperdesk export", "paperdesk-json"
            elif isinstance(pf, ArxivStream):
                file_report.header = FORMAT_LABELS[pf.format]
                file_report.format = pf.format
            elif isinstance(pf, RecordFile):
                file_report.header = FORMAT_LABELS[pf.format]
                file_report.format = pf.format
                file_report.skipped = len(pf.skipped)
                file_report.warnings = [*pf.skipped, *pf.warnings]
            else:
                file_report.header, file_report.format = pf.header, "text"
                file_report.warnings = list(pf.warnings)
            if cancel():
                report.cancelled = True
                break
            report.files.append(file_report)
            on_file("import", position, len(files), file_report.path)

            def step(n: int, base: int = done) -> None:
                progress("import", base + n, total)

            try:
                if isinstance(pf, dict):
                    self._import_export(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                        hook)
                elif isinstance(pf, ArxivStream):
                    self._import_stream(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                        hook)
                elif isinstance(pf, RecordFile):
                    self._import_records(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                         hook)
                else:
                    self._import_file(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                      hook)
            except sqlite3.Error as exc:
                # The batches committed before the error stay (and are counted).
                file_report.error = (disk_full_message(self.path / DB_NAME, exc)
                                     if is_disk_full(exc, self.path)
                                     else f"database error: {exc}")
            except OSError as exc:      # a streamed file that stops being readable
                file_report.error = (disk_full_message(self.path, exc) if is_disk_full(exc)
                                     else f"cannot read file ({exc.strerror or exc})")
            except UnicodeDecodeError:  # a streamed text file changed while it was read
                file_report.error = ("it is no longer UTF-8 text (it changed while it was "
                                     "imported); the papers stored before stay")
            if file_report.cancelled:
                report.cancelled = True
                break
            done += _size(pf)
            progress("import", min(done, total), total)
        # Indexing can be cancelled too: what is left stays queued and is indexed the next
        # time the library is opened or changed.
        if sync and not report.cancelled:
            self.sync_index(progress=progress, cancel=cancel, between_batches=hook)
            if cancel():      # stopped while indexing: the papers are in, the rest queued
                report.cancelled = True
        report.index_pending = self._queue_size()
        return report

    def _import_export(self, doc: dict, file_report: FileReport, added: list[int],
                       changed_ids: list[int], cancel: CancelCheck, step: Callable[[int], None],
                       hook: BatchHook) -> None:
        """Store a JSON export in batches of :data:`EXPORT_IMPORT_BATCH` papers; counts go
        to ``file_report``, new ids to ``added`` and the ids of papers already there that it
        changed to ``changed_ids`` after each commit; then its saved searches (merged by
        name, :func:`~paperdesk.core.imports.paperdesk_json.store_saved_searches`)."""
        papers = doc["papers"]
        now = _now()
        for start in range(0, len(papers), EXPORT_IMPORT_BATCH):
            if start and cancel():
                file_report.cancelled = True
                return
            counts = FileReport(file_report.path)
            with _db.transaction(self.db) as db:
                new, touched = store_export(
                    self, {"papers": papers[start:start + EXPORT_IMPORT_BATCH]}, counts, now)
                self._enqueue(db, new, "add")
                self._enqueue(db, touched, "update")
            added.extend(new)
            changed_ids.extend(touched)
            file_report.added += counts.added
            file_report.duplicates += counts.duplicates
            file_report.enriched += counts.enriched
            file_report.without_abstract += counts.without_abstract
            file_report.warnings += counts.warnings
            step(min(start + EXPORT_IMPORT_BATCH, len(papers)))
            hook()
        if doc.get("saved_searches"):
            with _db.transaction(self.db) as db:
                file_report.saved_searches += store_saved_searches(
                    db, doc["saved_searches"], now)

    @staticmethod
    def _source_id(db: sqlite_utils.Database, path: str, header: str, encoding: str,
                   now: str, name: str | None = None) -> int:
        """The ``sources`` row of ``path`` (inside the caller's transaction), created
        the first time the file is imported (the one lookup for every format, a JSON
        export's sources too); ``name`` defaults to the path's last part. A path with
        bytes that are not UTF-8 is stored with them escaped (:func:`display_path`)."""
        path = display_path(path)
        row = db.execute("SELECT id FROM sources WHERE path = ?", [path]).fetchone()
        if row is not None:
            return row[0]
        return db["sources"].insert({"path": path,
                                     "name": name or Path(path).name or path,
                                     "header": header, "encoding": encoding,
                                     "imported_at": now}).last_pk

    def _in_batches(self, total: int, file_report: FileReport, open_source,
                    store_batch, cancel: CancelCheck, step: Callable[[int], None],
                    hook: BatchHook) -> None:
        """The batch loop of an import (see :meth:`import_paths`): each batch is one
        transaction of at most :data:`RECORD_IMPORT_BATCH` items or about
        :data:`BATCH_SECONDS`, then ``step(done)`` and ``hook()`` run outside it.

        Args:
            total: items in the file.
            file_report: gets ``cancelled`` when ``cancel`` stops the import.
            open_source: ``open_source(db) -> source_id``, called in the first batch
                (so that even an empty file is recorded).
            store_batch: ``store_batch(db, source_id, start, end, deadline) -> (done,
                on_commit)``: stores items ``start`` up to ``end`` (stopping early once
                ``time.monotonic()`` passes ``deadline``) and returns the index after
                the last one stored and a function to call once the batch is committed.
        """
        db = self.db
        source_id = None
        n = 0
        while source_id is None or n < total:
            if source_id is not None and cancel():
                file_report.cancelled = True
                return
            with _db.transaction(db):
                if source_id is None:
                    source_id = open_source(db)
                n, on_commit = store_batch(db, source_id, n, min(n + _record_batch(), total),
                                           time.monotonic() + BATCH_SECONDS)
            on_commit()
            step(n)
            hook()

    def _import_file(self, pf: ParsedFile | StreamedText, file_report: FileReport,
                     added: list[int], changed_ids: list[int], cancel: CancelCheck,
                     step: Callable[[int], None], hook: BatchHook) -> None:
        """Store a text file's abstracts in batches (see :meth:`import_paths`); counts go
        to ``file_report``, new ids to ``added`` and the ids of papers already there that
        it changed (another source) to ``changed_ids`` after each commit.

        The abstracts are taken from an iterator (a :class:`StreamedText` reads its file
        again in pieces meanwhile, so memory holds one batch). Each transaction stores
        chunks of 1, 2, 4 ... up to :data:`STORE_CHUNK` abstracts
        (:func:`~paperdesk.core.store.papers.insert_abstracts`: a few statements per
        chunk) until it holds :data:`IMPORT_BATCH` abstracts or :data:`BATCH_SECONDS`
        have passed, so that even a slow first chunk ends the transaction in time;
        ``step``, ``hook`` and ``cancel`` run between transactions. An abstract that was
        cut (:mod:`paperdesk.core.imports.abstract_limit`) gets a note in
        ``file_report.warnings``.
        """
        now = _now()
        items = iter(pf.abstracts) if isinstance(pf, ParsedFile) else pf.abstracts()

        def take(item) -> tuple:
            if item.cut_from is not None:
                file_report.warnings.append(cut_note(f"abstract {item.position}",
                                                     len(item.abstract), item.cut_from))
            return _pending(item)

        db = self.db
        source_id = None
        done = 0
        pending: list = []
        finished = False
        while not finished:
            if source_id is not None:
                if not pending:     # no empty transaction after the last abstract
                    item = next(items, None)
                    if item is None:
                        return
                    pending.append(take(item))
                if cancel():
                    file_report.cancelled = True
                    return
            stored = StoredAbstracts()
            deadline = time.monotonic() + BATCH_SECONDS
            with _db.transaction(db):
                if source_id is None:
                    source_id = self._source_id(db, _stored(db, pf.path, now), pf.header,
                                                pf.encoding, now)
                size, in_batch = 1, 0
                while in_batch < IMPORT_BATCH:
                    want = min(size, STORE_CHUNK, IMPORT_BATCH - in_batch)
                    while len(pending) < want:
                        item = next(items, None)
                        if item is None:
                            break
                        pending.append(take(item))
                    chunk, pending = pending[:want], pending[want:]
                    if not chunk:
                        finished = True
                        break
                    part = insert_abstracts(db, chunk, source_id, now)
                    self._enqueue(db, part.added, "add")
                    self._enqueue(db, part.changed, "update")
                    stored.added += part.added
                    stored.changed += part.changed
                    stored.duplicates += part.duplicates
                    in_batch += len(chunk)
                    size *= 2
                    if time.monotonic() >= deadline:
                        break
            added.extend(stored.added)
            changed_ids.extend(stored.changed)
            file_report.added += len(stored.added)
            file_report.duplicates += stored.duplicates
            done += in_batch
            step(done)
            hook()

    def _import_records(self, rf: RecordFile, file_report: FileReport, added: list[int],
                        changed_ids: list[int], cancel: CancelCheck, step: Callable[[int], None],
                        hook: BatchHook) -> None:
        """Store the records of a BibTeX, RIS or CSL-JSON file in batches (as
        :meth:`_import_file` does): new papers, or metadata merged onto the papers they
        match (:func:`paperdesk.core.imports.records.store_records`)."""
        now = _now()
        items = rf.records

        def store_batch(db, source_id: int, n: int, end: int, deadline: float):
            counts = FileReport(file_report.path)
            new, changed = [], []
            ids = Identifiers(db)
            while n < end:
                a, c = store_records(db, items[n:n + 1], source_id, counts, now, ids)
                new += a
                changed += c
                n += 1
                if time.monotonic() >= deadline:
                    break
            self._enqueue(db, new, "add")
            self._enqueue(db, changed, "update")

            def on_commit() -> None:
                added.extend(new)
                changed_ids.extend(changed)
                for name in ("added", "duplicates", "enriched", "without_abstract"):
                    setattr(file_report, name,
                            getattr(file_report, name) + getattr(counts, name))
                file_report.warnings += counts.warnings

            return n, on_commit

        self._in_batches(
            len(items), file_report,
            lambda db: self._source_id(db, _stored(db, rf.path, now),
                                       FORMAT_LABELS[rf.format],
                                       rf.encoding, now),
            store_batch, cancel, step, hook)

    def _import_stream(self, stream: ArxivStream, file_report: FileReport,
                       added: list[int], changed_ids: list[int], cancel: CancelCheck,
                       step: Callable[[int], None], hook: BatchHook) -> None:
        """Store an arXiv metadata file while reading it, in bounded memory.

        The file's size is not known in records, so :meth:`_in_batches` does not fit:
        records are read (outside any transaction) until :data:`RECORD_IMPORT_BATCH` are kept
        or :data:`BATCH_SECONDS` have passed, then stored in one transaction through
        :func:`~paperdesk.core.imports.records.store_records` (merged onto the papers
        they match, by arXiv id, DOI or abstract); ``step(lines read)``, ``hook()`` and
        ``cancel()`` run between batches, also while a filter keeps nothing for long.

        The library's DOIs and arXiv ids (:class:`Identifiers`) are read once and kept
        across batches (reading them per batch would make a snapshot of millions of
        records quadratic); they are read again when anything else wrote to the
        database between two batches (this connection's ``total_changes`` or SQLite's
        ``data_version`` moved: an edit run by ``hook``, another connection).
        """
        now = _now()
        records = stream.records()
        db = self.db
        source_id = None
        finished = False
        ids: Identifiers | None = None
        seen = None

        def state() -> tuple[int, int]:
            return (db.conn.total_changes,
                    db.execute("PRAGMA data_version").fetchone()[0])

        while not finished:
            if source_id is not None and cancel():
                file_report.cancelled = True
                break
            batch = []
            deadline = time.monotonic() + BATCH_SECONDS
            for record in records:
                batch.append(record)
                if len(batch) >= _record_batch() or time.monotonic() >= deadline:
                    break
            else:
                finished = True
            counts = FileReport(file_report.path)
            with _db.transaction(db):
                if ids is None or state() != seen:
                    ids = Identifiers(db)
                if source_id is None:
                    source_id = self._source_id(db, _stored(db, stream.path, now),
                                                FORMAT_LABELS[stream.format], "utf-8", now)
                new, changed = store_records(db, batch, source_id, counts, now, ids)
                self._enqueue(db, new, "add")
                self._enqueue(db, changed, "update")
            seen = state()
            added.extend(new)
            changed_ids.extend(changed)
            for name in ("added", "duplicates", "enriched", "without_abstract"):
                setattr(file_report, name, getattr(file_report, name) + getattr(counts, name))
            file_report.warnings += counts.warnings[:max(0, 1000 - len(file_report.warnings))]
            file_report.skipped = stream.skipped
            file_report.filtered = stream.filtered
            step(min(stream.lines_read, stream.estimated_lines or stream.lines_read))
            hook()
        file_report.warnings = [*stream.notes, *file_report.warnings]

    # -- index maintenance -------------------------------------------------------------
    def _enqueue(self, db: sqlite_utils.Database, ids: Iterable[int], op: str) -> None:
        if op != "update":        # papers added or deleted: the term table must check
            self.discover.mark_texts_changed()
        # A paper queued as 'add' and not yet indexed stays 'add'. A paper queued as
        # 'delete' may still be in the index, so what comes under its id next (a deleted
        # paper put back, or a new paper given the freed id) must replace it: 'update'.
        db.conn.executemany(
            "INSERT INTO index_queue (paper_id, op) VALUES (?, ?) ON CONFLICT(paper_id) DO "
            "UPDATE SET seq = (SELECT max(seq) + 1 FROM index_queue), "
            "op = CASE WHEN op = 'add' AND excluded.op = 'update' THEN 'add' "
            "WHEN op = 'delete' AND excluded.op = 'add' THEN 'update' ELSE excluded.op END",
            [(int(i), op) for i in ids])

    def _queue_size(self) -> int:
        return self.db.execute("SELECT count(*) FROM index_queue").fetchone()[0]

    def _queue_all(self, op: str) -> None:
        with _db.transaction(self.db) as db:
            db.execute("DELETE FROM index_queue")
            db.execute("INSERT INTO index_queue (paper_id, op) SELECT id, ? FROM papers", [op])

    def _recover_queue(self, index: SearchIndex) -> None:
        # Left over from a run that stopped before the index caught up: an 'add' may have
        # reached the index already, so those become 'update'.
        in_index = index.indexed_ids()
        with _db.transaction(self.db) as db:
            db.conn.executemany(
                "UPDATE index_queue SET op = 'update' WHERE paper_id = ? AND op = 'add'",
                [(i,) for i in in_index])

    def _repair_queue(self, index: SearchIndex) -> None:
        in_index = index.indexed_ids()
        in_db = {r[0] for r in self.db.execute("SELECT id FROM papers")}
        with _db.transaction(self.db) as db:
            self._enqueue(db, sorted(in_db - in_index), "add")
            self._enqueue(db, sorted(in_index - in_db), "delete")

    def _documents(self, ids: Sequence[int]) -> dict[int, IndexDocument]:
        """The index documents of papers ``ids`` (missing ids are left out), read with
        this thread's connection (:func:`~paperdesk.core.store.index_documents.read_documents`)."""
        return read_documents(self.db, ids)

    def _changed(self) -> None:
        """Called after a committed change that queued papers for re-indexing."""
        self.discover.mark_stale()
        if self.auto_sync_index:
            self.sync_index()
        elif self.on_index_stale is not None:
            self.on_index_stale()

    def sync_index(self, progress: ProgressCallback | None = None,
                   cancel: CancelCheck | None = None,
                   between_batches: BatchHook | None = None) -> int:
        """Apply the ``index_queue`` to the search index, in batches.

        Each batch takes at most :data:`INDEX_BATCH` queue entries: the documents are
        written to the index (one Whoosh commit), then the entries are removed from the
        queue (one SQLite transaction), so a crash in between only re-applies them.
        Runs on the calling thread; one sync at a time per library (a sync started from
        ``between_batches`` on the same thread runs inside the outer one).

        Args:
            progress: called as ``progress("index", done, total)``.
            cancel: polled between batches; what is left stays queued.
            between_batches: called with no arguments after every batch, and about
                every :data:`HOOK_INTERVAL_S` while a batch is written to the index on a
                helper thread (a Whoosh commit that merges segments takes seconds);
                always outside any transaction, on this thread (e.g. to run queued user
                edits, which may call :meth:`sync_index`: that returns 0 at once and the
                running sync applies their changes). Whatever it raises ends the sync
                (what is left stays queued).
        Returns:
            Number of queue entries applied.
        """
        progress = progress or _no_progress
        cancel = cancel or _never
        hook = between_batches or _nothing
        with self._drain_lock:
            if self._syncing:  # called from our own hook: the running sync applies it
                return 0
            if self.db_problem is not None:
                return 0
            if self.index.damage is not None and not self.read_only:
                self._start_repair(self.index, self.index.damage)
            self._syncing = True
            try:
                return self._sync_batches(progress, cancel, hook,
                                          between_batches is not None)
            finally:
                self._syncing = False

    def _sync_batches(self, progress: ProgressCallback, cancel: CancelCheck,
                      hook: BatchHook, responsive: bool) -> int:
        total = self._queue_size()
        done = 0
        if total:
            progress("index", 0, total)
        while True:
            rows = self.db.execute(
                "SELECT seq, paper_id, op FROM index_queue ORDER BY seq LIMIT ?",
                [INDEX_BATCH]).fetchall()
            if not rows or cancel():
                break
            add, update, delete = [], [], []
            for _seq, pid, op in rows:
                (delete if op == "delete" else add if op == "add" else update).append(pid)

            def write() -> None:
                # The documents are read where the segments are written: in this
                # process for a small batch, in the segment-writing children for a
                # large one (papers deleted meanwhile are left out).
                self.index.write(add_ids=add, update_ids=update, delete=delete,
                                 documents=self._document_source)

            try:
                if responsive:
                    self._beside(write, hook)
                else:
                    write()
            except IndexBusy as exc:     # another process writes the index: stay queued
                self.index_problem = str(exc)
                _log.info("index sync stopped: %s", exc)
                break
            except OSError as exc:       # a full disk: the change is saved, stay queued
                if not is_disk_full(exc):
                    raise
                self.index_problem = (
                    disk_full_message(self.path / INDEX_DIR, exc).split(";")[0]
                    + "; every change is saved in the library, and searches catch up "
                      "once there is space again")
                _log.info("index sync stopped: %s", exc)
                break
            self.index_problem = None
            seqs = [r[0] for r in rows]
            with _db.transaction(self.db) as db:
                db.conn.executemany("DELETE FROM index_queue WHERE seq = ?",
                                    [(s,) for s in seqs])
                # Queued again meanwhile (an edit gave the row a new seq): the paper is in
                # the index now, so a left-over 'add' must become 'update'.
                db.conn.executemany(
                    "UPDATE index_queue SET op = 'update' WHERE paper_id = ? AND op = 'add'",
                    [(pid,) for pid in add])
            done += len(rows)
            total = max(total, done)
            progress("index", done, total)
            hook()
        return done

    @staticmethod
    def _beside(fn: Callable[[], object], hook: BatchHook) -> object:
        """Return ``fn()``, run on a helper thread while this thread calls ``hook`` every
        :data:`HOOK_INTERVAL_S`: reading a large file or a Whoosh commit that merges
        segments can take seconds, and the caller's queued edits (SQLite only; an
        index-queue row they touch gets a new ``seq`` and so survives the batch being
        written) must not wait for it. Whatever ``fn`` raises is raised here."""
        outcome: list = []

        def run() -> None:
            try:
                outcome.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
                outcome.append((False, exc))

        helper = threading.Thread(target=run, name="paperdesk-beside", daemon=True)
        helper.start()
        try:
            while True:
                helper.join(HOOK_INTERVAL_S)
                if not helper.is_alive():
                    break
                hook()
        finally:
            helper.join()
        ok, value = outcome[0]
        if not ok:
            raise value
        return value

    def reindex(self, progress: ProgressCallback | None = None,
                cancel: CancelCheck | None = None,
                between_batches: BatchHook | None = None) -> int:
        """Rebuild the search index from SQLite.

        Args:
            progress: called as ``progress("index", done, total)``.
            cancel: polled between batches; a cancelled rebuild is finished the next time
                the library is opened or :meth:`sync_index` runs.
            between_batches: as for :meth:`sync_index`.
        Returns:
            The number of papers indexed.
        """
        with self._drain_lock:
            self.index.recreate()
            self._queue_all("add")
        return self.sync_index(progress=progress, cancel=cancel,
                               between_batches=between_batches)
