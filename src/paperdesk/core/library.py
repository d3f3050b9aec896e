"""The Library: the one owner of a library folder's SQLite database and Whoosh index, a
small facade over managers by concern.

A library folder holds ``library.db`` (SQLite, the source of truth), ``index/`` (the Whoosh
index, derived, rebuildable) and ``backups/`` (copies of the database: taken before schema
migrations, by ``paperdesk backup``, daily, and before a restore; see
:mod:`paperdesk.core.store.backup`).

:class:`Library` owns the connections (one per thread: WAL mode lets a worker import
while the UI thread reads), the undo stack and the change notices; it opens, checks and
closes the folder. Everything else is done by its managers (:mod:`paperdesk.core.manager`),
as Anki's ``Collection`` has ``col.tags`` and ``col.decks``:

=====================  ===============================================================
``lib.papers``         count, list, read papers; read/star marks, titles, metadata,
                       citation keys (:mod:`paperdesk.core.papers`)
``lib.tags``           tags (:mod:`paperdesk.core.edits.annotations`)
``lib.notes``          notes and highlights (:mod:`paperdesk.core.edits.notes`)
``lib.search``         queries, snippets, match terms, "did you mean"
                       (:mod:`paperdesk.core.search.library_search`)
``lib.imports``        the import pipeline (:mod:`paperdesk.core.imports.pipeline`)
``lib.index``          the search index's upkeep: queue, sync, reindex, status
                       (:mod:`paperdesk.core.search.sync`)
``lib.removal``        sources, removing papers and sources
                       (:mod:`paperdesk.core.edits.removal`)
``lib.saved_searches`` saved searches (:mod:`paperdesk.core.edits.saved_searches`)
``lib.exports``        exports to text and files (:mod:`paperdesk.core.exports.to_file`)
``lib.duplicates``     near duplicates and merging (:mod:`paperdesk.core.edits.duplicates`)
``lib.discover``       related papers, key terms, tag suggestions, interest order
                       (:mod:`paperdesk.core.discover.engine`)
``lib.screening``      screening for a tag: yes, no (excluded), the next paper, the
                       stopping estimate (:mod:`paperdesk.core.screening.decisions`)
=====================  ===============================================================

Every mutation writes SQLite and the ``index_queue`` in one transaction, then brings the
index up to date from the queue (:meth:`Library.after_change`).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import logging
import threading
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from paperdesk.core import check as _check
from paperdesk.core.store import clean_close, db as _db
from paperdesk.core.changes import Changes
from paperdesk.core.discover.engine import Discover
from paperdesk.core.models import DatabaseDamaged, LibraryError
from paperdesk.core.store.backup import BACKUP_DIR as _BACKUP_DIR, sweep_partial_copies
from paperdesk.core.store.errors import disk_full_message, is_disk_full
from paperdesk.core.store.schema import SchemaError, migrate
from paperdesk.core.scope import ScopeMasks
from paperdesk.core.edits.undo import UndoStack, UndoStep
from paperdesk.core.papers import Papers
from paperdesk.core.edits.annotations import Tags
from paperdesk.core.edits.notes import Notes
from paperdesk.core.edits.removal import Removal
from paperdesk.core.edits.saved_searches import SavedSearches
from paperdesk.core.edits.duplicates import Duplicates
from paperdesk.core.screening.decisions import Screening
from paperdesk.core.exports.to_file import Exports
from paperdesk.core.imports.pipeline import Imports
from paperdesk.core.search.library_search import Search
from paperdesk.core.search.sync import IndexManager
from paperdesk.core.manager import DB_NAME, INDEX_DIR

__all__ = ["Library", "DB_NAME", "INDEX_DIR", "BACKUP_DIR"]

_log = logging.getLogger(__name__)

BACKUP_DIR = _BACKUP_DIR   # the folder of backups (see paperdesk.core.store.backup)


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



def _refuse_on(conn: sqlite_utils.Database, message: str) -> None:
    """Make every write through ``conn`` fail: :func:`paperdesk.core.store.db.transaction`
    raises :class:`LibraryError` with ``message``, and SQLite refuses any other write
    (``PRAGMA query_only``)."""
    conn.refuse_writes = message
    try:
        conn.conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error:
        pass


class Library:
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

    def __init__(self, path: Path, sync_index: bool = True, read_only: bool = False,
                 helper: bool = False):
        self.path = Path(path).expanduser().absolute()
        self.read_only = read_only
        #: Opened by :meth:`open_in_helper` (a helper process of the process that has
        #: the library open).
        self.helper = helper
        #: Why it was opened read-only when not because another process holds it (one
        #: line, e.g. the disk is full and its lock could not be written), else None.
        self.read_only_reason: str | None = None
        # One connection per thread, by thread id: a threading.local() is emptied after
        # every slot call on a QThread (PySide gives such a thread a new Python thread
        # state per call), which opened a new connection per search and kept them all.
        self._by_thread: dict[int, sqlite_utils.Database] = {}
        self._connections: list[sqlite_utils.Database] = []
        self._conn_lock = threading.Lock()
        self._closed = False
        # Set once the open finished (checked, migrated, index opened): only then does
        # close() record a clean close (a failed open records nothing).
        self._opened = False
        self.auto_sync_index = True
        self.on_index_stale: Callable[[], None] | None = None
        #: The undo stack every undoable mutation records a step on (see :meth:`undo`).
        self.undo_stack = UndoStack()
        #: Cached tag/filter masks and sort ranks for searching (see :class:`ScopeMasks`).
        self.masks = ScopeMasks()
        #: Why the database is damaged (one line: the file, the problem and the way
        #: out), found by the quick check at open (:mod:`paperdesk.core.check`), or
        #: ``None``. While set, every write is refused with this message.
        self.db_problem: str | None = None
        #: Related papers, key terms, tag suggestions and the interest order
        #: (:class:`~paperdesk.core.discover.engine.Discover`, over ``terms/``).
        self.discover = Discover(self)
        self.papers = Papers(self)
        self.tags = Tags(self)
        self.notes = Notes(self)
        self.search = Search(self)
        self.imports = Imports(self)
        self.index = IndexManager(self)
        self.removal = Removal(self)
        self.saved_searches = SavedSearches(self)
        self.exports = Exports(self)
        self.duplicates = Duplicates(self)
        self.screening = Screening(self)
        if helper:      # the opening process checked, migrated and opened it, and
            self.auto_sync_index = False     # indexes what is queued here
            return
        if self.path.exists() and not self.path.is_dir():
            raise LibraryError(f"{self.path} is not a folder (a library is a folder)")
        _check.refuse_unreadable_folder(self.path)
        _check.refuse_lost_database(self.path)
        _check.refuse_foreign_database(self.path)
        if read_only:
            self._check_readable()
            self._check_database()
            self.index.open()
            self.index.repair_left(self.index.whoosh)
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
        if self.db_problem is None:
            self._restore_indexes()
        for folder in (self.path, self.path / BACKUP_DIR):   # a backup or restore killed
            sweep_partial_copies(folder)                      # while writing its copy
        try:
            self.index.open()
        except sqlite3.DatabaseError as exc:     # a damaged page quick_check missed
            self.close()
            raise DatabaseDamaged(_check.database_message(self.path, exc), self.path) from exc
        if self.db_problem is not None:
            return                      # nothing is written into a damaged database
        self._opened = True
        if sync_index:
            self.index.sync()

    def _restore_indexes(self) -> None:
        """Build the indexes of ``papers`` that an import killed while storing left
        dropped (:func:`paperdesk.core.store.bulk_indexes.restore`; nothing when none
        is missing). On a database error (a full disk) they stay missing: every query
        still works without them, and the next open tries again."""
        from paperdesk.core.store import bulk_indexes

        try:
            bulk_indexes.restore(self.db)
        except sqlite3.Error as exc:
            _log.warning("%s: the indexes of papers left out by an import could not "
                         "be built again (%s)", self.path, exc)

    @classmethod
    def open(cls, path: str | os.PathLike, sync_index: bool = True,
             read_only: bool = False) -> "Library":
        """Open the library in folder ``path``, creating an empty one if missing.

        Every open checks the library cheaply (:mod:`paperdesk.core.check`):
        ``PRAGMA quick_check`` (0.2-0.4 s at 100,000 papers; skipped when the file is
        as the last clean close left it, :mod:`~paperdesk.core.store.clean_close`; on
        damage :attr:`db_problem`
        is set, every write is refused and the index is left alone) and the search
        index's files and document count (a ``stat`` per segment file; damage or a
        missing ``index/`` folder queues every paper to be indexed again, see
        :attr:`index_repair`; ``sync_index=False`` leaves that rebuild to the caller).

        Args:
            path: library folder.
            sync_index: bring the search index up to date before returning (pass ``False``
                to do it later with ``lib.index.sync()``, e.g. from a worker thread).
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

    @classmethod
    def open_in_helper(cls, path: str | os.PathLike) -> "Library":
        """Open a library that another process (the window) has open and checked, from
        a helper process of that one (the window's import process,
        :mod:`paperdesk.core.imports.import_process`): nothing is checked, migrated,
        swept, repaired or indexed (changes leave their papers queued in
        ``index_queue`` for the opening process), and :meth:`close` neither empties the
        WAL nor records a clean close (the opening process does both when it closes). Its
        managers write through this process's own connections, under SQLite's locks.

        Args:
            path: the library folder, as the opening process has it.
        Returns:
            The :class:`Library` (its search index is not opened: call nothing that
            searches or indexes).
        Raises:
            LibraryError: ``library.db`` cannot be opened (on first use).
        """
        return cls(Path(path), sync_index=False, helper=True)

    def _check_database(self) -> None:
        """The quick check at open (``PRAGMA quick_check``, see
        :func:`paperdesk.core.check.database_problem`): on damage, set
        :attr:`db_problem` and refuse writes on every connection. Skipped when the
        database file is exactly as the last clean close left it
        (:mod:`paperdesk.core.store.clean_close`)."""
        if clean_close.closed_cleanly(self.path):
            return
        try:
            problem = _check.database_problem(self.db, self.path)
        except LibraryError:
            self.close()
            raise
        if problem is not None:
            clean_close.forget_clean_close(self.path)
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
        if index is not None and index.whoosh is not None:
            index.whoosh.close()
        if index is not None and index.stand_in:
            shutil.rmtree(index.stand_in, ignore_errors=True)
        with self._conn_lock:
            if self._connections and not self.read_only and not self.helper \
                    and getattr(self, "db_problem", None) is None:
                # Leave the database self-contained (the WAL emptied into it), so that a
                # read-only open of the folder sees every change (see connect_read_only).
                _db.checkpoint(self._connections[0])
            was_open = bool(self._connections)
            for conn in self._connections:
                conn.conn.close()
            self._connections.clear()
        if was_open and self._opened and not self.read_only and self.db_problem is None:
            clean_close.record_clean_close(self.path)   # the next open skips quick_check

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

    def record(self, label: str, changes: Changes, undo: Callable[[], Changes],
               redo: Callable[[], Changes], merge_key=None, undoable: bool = True,
               before: object = None, after: object = None) -> Changes:
        """Push one undo step for a change just committed by a manager (nothing for an
        empty change or ``undoable=False``); return ``changes``.

        Args:
            label: what the step is called in the Edit menu ("Tag ‘depth’").
            changes: what the change did.
            undo, redo: functions that reverse and re-apply it (they record nothing).
            merge_key, before, after: see :class:`~paperdesk.core.edits.undo.UndoStep`.
            undoable: False: record nothing.
        Returns:
            ``changes``.
        """
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

    def after_change(self) -> None:
        """Called by a manager after a committed change that queued papers for
        re-indexing: brings the index up to date (``auto_sync_index``) or calls
        ``on_index_stale``."""
        self.discover.mark_stale()
        if self.auto_sync_index:
            self.index.sync()
        elif self.on_index_stale is not None:
            self.on_index_stale()
