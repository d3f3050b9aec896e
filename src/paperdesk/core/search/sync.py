"""The search index's upkeep (``lib.index``): opening the Whoosh index and repairing it
from SQLite, the ``index_queue`` every change fills, applying it in batches
(:meth:`IndexManager.sync`), rebuilding (:meth:`IndexManager.reindex`) and how far
the index is behind (:meth:`IndexManager.status`).
"""

from __future__ import annotations

import shutil
import tempfile
import logging
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
import sqlite_utils
from paperdesk.core.store import db as _db
from paperdesk.core.store.index_documents import DocumentSource, read_documents
from paperdesk.core.models import IndexStatus, LibraryError
from paperdesk.core.store.errors import disk_full_message, is_disk_full
from paperdesk.core.regular_files import open_regular
from paperdesk.core.search.safe_pickle import named, why
from paperdesk.core.search import integrity
from paperdesk.core.search.integrity import unreadable_problem
from paperdesk.core.search.fastscore import Unsupported as NoPidColumn
from paperdesk.core.search.segment_writer import Unsupported
from paperdesk.core.search.state_terms import LibraryTerms
from paperdesk.core.search.index import DAMAGE_ERRORS, IndexBusy, IndexDocument, SearchIndex
from paperdesk.core.manager import (DB_NAME, INDEX_DIR, REPAIR_NOTE, BatchHook,
                                    CancelCheck, Manager, ProgressCallback, never,
                                    no_progress, nothing, run_beside)

_log = logging.getLogger(__name__)

#: Most index-queue entries applied in one batch of :meth:`lib.index.sync` (each
#: batch is one index commit, then one SQLite transaction removing the entries). Each
#: batch of new documents becomes one or two new segments (written by child processes
#: from 500 documents, see :mod:`paperdesk.core.search.index`), so large batches keep
#: the segment count low (100,000 papers: 25 segments) while the index becomes
#: searchable batch by batch, and the children's memory bounded (4,000 abstracts each:
#: under 200 MB); edits made meanwhile still run every
#: :data:`HOOK_INTERVAL_S` (the batch is written beside them).
INDEX_BATCH = 8_000


__all__ = ["IndexManager", "INDEX_BATCH"]


class IndexManager(Manager):
    """The search index's upkeep: ``lib.index`` (see the module).

    Attributes:
        whoosh: the :class:`~paperdesk.core.search.index.SearchIndex` (set by
            :meth:`open`).
        problem: why the last :meth:`sync` stopped early (another process held the
            index's write lock, :class:`~paperdesk.core.search.index.IndexBusy`, or the
            disk is full), or ``None``; what it did not apply stays queued.
        repair: why the search index is being rebuilt from SQLite (damaged or missing,
            found at open or by a search), or ``None``; cleared once every paper is
            indexed again. :meth:`status` reports it (``repairing``).
        stand_in: for a read-only library whose index cannot be read, the temporary
            folder of the empty index searched instead, else ``None``.
    """

    def __init__(self, lib) -> None:
        super().__init__(lib)
        self.whoosh: SearchIndex | None = None
        self.problem: str | None = None
        self.repair: str | None = None
        self.stand_in: str | None = None
        self._source: DocumentSource | None = None
        # Re-entrant: an edit run from sync's between_batches may sync again.
        self._drain_lock = threading.RLock()
        self._syncing = False

    @property
    def document_source(self) -> DocumentSource:
        """Where index writes read papers' documents: this thread's connection here, a
        read-only connection of their own in the segment-writing child processes."""
        source = self._source
        if source is None:
            source = self._source = DocumentSource(self._lib.path / DB_NAME, self.documents)
        return source

    def open(self) -> SearchIndex:
        """Open the library's Whoosh index into :attr:`whoosh` and return it; damage or a
        missing ``index/`` folder starts a rebuild from SQLite (:meth:`start_repair`),
        and entries left in the queue by an earlier run are recovered. Read-only: an
        index that cannot be read is replaced by an empty stand-in (:attr:`stand_in`).

        Raises:
            LibraryError: the index folder cannot be created.
            sqlite3.DatabaseError: a damaged database page (the caller reports it).
        """
        self.whoosh = self._open()
        self.whoosh.library_terms = LibraryTerms(self._lib)
        return self.whoosh

    def _open(self) -> SearchIndex:
        index_path = self._lib.path / INDEX_DIR
        if self._lib.read_only:
            try:
                if not index_path.is_dir():
                    raise FileNotFoundError(index_path)
                index = SearchIndex(index_path, other_words_ok=True)
                index.quick_problems()    # reads its table of contents and segment list
                if index.other_words:
                    self.repair = (
                        f"{integrity.toc_path(index_path)}: the search index was built by "
                        "another version of paperdesk, with other word rules; it is "
                        "searched as it is, so some words (Chinese and Japanese inside "
                        "sentences) may not be found until a paperdesk that can write "
                        "the library rebuilds it (paperdesk reindex)")
                return index
            except Exception as exc:  # noqa: BLE001 - damaged: only a writer may rebuild it
                # Reading goes on without it (show, export, stats ...): an empty stand-in
                # index in a temporary folder; searches find nothing and say why.
                self.repair = (
                    f"{self._unreadable(index_path, exc)}; searches find nothing until "
                    "a paperdesk that can write the library rebuilds it (paperdesk "
                    "reindex)")
                self.stand_in = tempfile.mkdtemp(prefix="paperdesk-stand-in-index-")
                return SearchIndex(Path(self.stand_in))
        missing = (self._lib.db_problem is None and not index_path.exists()
                   and self._lib.papers.count() > 0)
        try:
            index = SearchIndex(index_path)
            problems = [] if self._lib.db_problem else index.quick_problems()
        except Exception as exc:  # noqa: BLE001 - any damage: the index is derived, rebuild it
            reason = self._unreadable(index_path, exc)
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
            if self._lib.db_problem is None:
                self.start_repair(index, reason, recreate=False)
            return index
        index.keeps_checksums = True
        if self._lib.db_problem is not None:
            return index
        if problems:
            self.start_repair(index, problems[0])
        elif missing:
            self.start_repair(index, f"{index_path}: the search index folder is missing",
                               recreate=False)
        else:
            try:
                if self.queue_size():
                    self.repair_left(index)
                    self._recover_queue(index)
                elif index.doc_count() == 0 and self._lib.papers.count() > 0:
                    # An index folder without its table of contents (or emptied) opens
                    # as a new, empty index: rebuild it like a missing one.
                    self.start_repair(index, f"{index_path}: the search index holds no "
                                              "papers (its table of contents is missing "
                                              "or it was emptied)")
                elif index.doc_count() != self._lib.papers.count():
                    self._repair_queue(index)
            except DAMAGE_ERRORS as exc:   # a segment's ids cannot be read
                self.start_repair(index, f"{index_path}: the search index is damaged "
                                          f"({why(exc)} reading its ids)")
        return index

    @staticmethod
    def _unreadable(index_path: Path, exc: BaseException) -> str:
        """One line naming the index file that could not be read and why, in plain
        words (:func:`.integrity.unreadable_problem`); ``exc`` goes to the log."""
        _log.info("the search index cannot be opened: %r", exc)
        if index_path.exists() and not index_path.is_dir():
            what = "is a file, not a folder" if index_path.is_file() else "is not a folder"
            return (f"{index_path}: {what} (the search index is kept in a folder of that "
                    "name)")
        if not index_path.is_dir():
            return f"{named(exc, index_path)}: the search index cannot be read ({why(exc)})"
        try:
            from paperdesk.core.search.index import (IndexSchemaMismatch, _storage,
                                                     build_schema)

            if isinstance(exc, IndexSchemaMismatch):
                return (f"{integrity.toc_path(index_path)}: the search index was built "
                        "by another version of paperdesk")
            return unreadable_problem(index_path, exc, _storage(index_path),
                                      schema=build_schema())
        except Exception:  # noqa: BLE001 - naming the file is a nicety
            return f"{named(exc, index_path)}: the search index cannot be read ({why(exc)})"

    def start_repair(self, index: SearchIndex, reason: str, recreate: bool = True) -> None:
        """Start rebuilding the search index from SQLite: empty it (unless ``recreate``
        is False: it is empty already) and queue every paper; the next
        :meth:`sync` (in the window: in the background, with progress) indexes
        them. Searches meanwhile say they covered part of the library."""
        _log.info("rebuilding the search index: %s", reason)
        if recreate:
            index.recreate()
        index.damage = None
        self.repair = reason
        self.queue_all("add")
        try:       # remembered until every paper is indexed again (see index_status)
            (index.path / REPAIR_NOTE).write_text(reason + "\n", encoding="utf-8")
        except OSError:
            pass

    def repair_left(self, index: SearchIndex) -> None:
        """A rebuild started by an earlier run is not finished: take up its reason."""
        try:
            with open_regular(index.path / REPAIR_NOTE) as f:
                note = f.read(4096).decode("utf-8", "replace").strip()
        except (OSError, UnicodeDecodeError):
            return
        self.repair = note.splitlines()[0] if note else "the search index is rebuilt"

    def enqueue(self, db: sqlite_utils.Database, ids: Iterable[int], op: str) -> None:
        if op != "update":        # papers added or deleted: the term table must check
            self._lib.discover.mark_texts_changed()
        # A paper queued as 'add' and not yet indexed stays 'add'. A paper queued as
        # 'delete' may still be in the index, so what comes under its id next (a deleted
        # paper put back, or a new paper given the freed id) must replace it: 'update'.
        db.conn.executemany(
            "INSERT INTO index_queue (paper_id, op) VALUES (?, ?) ON CONFLICT(paper_id) DO "
            "UPDATE SET seq = (SELECT max(seq) + 1 FROM index_queue), "
            "op = CASE WHEN op = 'add' AND excluded.op = 'update' THEN 'add' "
            "WHEN op = 'delete' AND excluded.op = 'add' THEN 'update' ELSE excluded.op END",
            [(int(i), op) for i in ids])

    def queue_size(self) -> int:
        return self.db.execute("SELECT count(*) FROM index_queue").fetchone()[0]

    def queue_all(self, op: str) -> None:
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
            self.enqueue(db, sorted(in_db - in_index), "add")
            self.enqueue(db, sorted(in_index - in_db), "delete")

    def documents(self, ids: Sequence[int]) -> dict[int, IndexDocument]:
        """The index documents of papers ``ids`` (missing ids are left out), read with
        this thread's connection (:func:`~paperdesk.core.store.index_documents.read_documents`)."""
        return read_documents(self.db, ids)

    def sync(self, progress: ProgressCallback | None = None,
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
                edits, which may call :meth:`sync`: that returns 0 at once and the
                running sync applies their changes). Whatever it raises ends the sync
                (what is left stays queued).
        Returns:
            Number of queue entries applied.
        """
        progress = progress or no_progress
        cancel = cancel or never
        hook = between_batches or nothing
        with self._drain_lock:
            if self._syncing:  # called from our own hook: the running sync applies it
                return 0
            if self._lib.db_problem is not None:
                return 0
            if self.whoosh.damage is not None and not self._lib.read_only:
                self.start_repair(self.whoosh, self.whoosh.damage)
            self._syncing = True
            try:
                return self._sync_batches(progress, cancel, hook,
                                          between_batches is not None)
            finally:
                self._syncing = False

    def _sync_batches(self, progress: ProgressCallback, cancel: CancelCheck,
                      hook: BatchHook, responsive: bool) -> int:
        total = self.queue_size()
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
                self.whoosh.write(add_ids=add, update_ids=update, delete=delete,
                                 documents=self.document_source)

            try:
                if responsive:
                    run_beside(write, hook)
                else:
                    write()
            except IndexBusy as exc:     # another process writes the index: stay queued
                self.problem = str(exc)
                _log.info("index sync stopped: %s", exc)
                break
            except OSError as exc:       # a full disk: the change is saved, stay queued
                if not is_disk_full(exc):
                    raise
                self.problem = (
                    disk_full_message(self._lib.path / INDEX_DIR, exc).split(";")[0]
                    + "; every change is saved in the library, and searches catch up "
                      "once there is space again")
                _log.info("index sync stopped: %s", exc)
                break
            self.problem = None
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
        if done and not cancel() and self.problem is None and self._merge(cancel, hook,
                                                                           responsive):
            # edits made while segments were merged are applied now
            done += self._sync_batches(progress, cancel, hook, responsive)
        return done

    def _merge(self, cancel: CancelCheck, hook: BatchHook, responsive: bool) -> bool:
        """Merge the index's runs of similar segments left by a bulk import
        (:meth:`SearchIndex.merge`), each on a helper thread while ``hook`` runs when
        ``responsive``; the papers stay searchable throughout. A merge that fails
        leaves the index as it was (logged; tried again after the next sync).

        Returns:
            Whether any segments were merged.
        """
        if self._lib.read_only:
            return False
        between = (lambda run: run_beside(run, hook)) if responsive else None
        try:
            return self.whoosh.merge(cancel=cancel, between=between) > 0
        except (IndexBusy, Unsupported, NoPidColumn, *DAMAGE_ERRORS) as exc:
            _log.info("merging index segments stopped: %r", exc)
            return False

    def reindex(self, progress: ProgressCallback | None = None,
                cancel: CancelCheck | None = None,
                between_batches: BatchHook | None = None) -> int:
        """Rebuild the search index from SQLite.

        Args:
            progress: called as ``progress("index", done, total)``.
            cancel: polled between batches; a cancelled rebuild is finished the next time
                the library is opened or :meth:`sync` runs.
            between_batches: as for :meth:`sync`.
        Returns:
            The number of papers indexed.
        """
        with self._drain_lock:
            self.whoosh.recreate()
            self.queue_all("add")
        return self.sync(progress=progress, cancel=cancel,
                               between_batches=between_batches)

    @property
    def damage(self) -> str | None:
        """Why a read of the search index failed (a damaged segment; one line, naming the
        index), or ``None``; the next :meth:`sync` rebuilds the index from SQLite."""
        return self.whoosh.damage

    def use_writer_process(self) -> None:
        """Have only child processes write the segments of large index batches, so that
        this process's interpreter stays free (the window; see
        :meth:`paperdesk.core.search.index.SearchIndex.use_writer_process`)."""
        self.whoosh.use_writer_process()

    def status(self) -> IndexStatus:
        """How far the search index is behind the library: papers, papers not indexed
        yet, index-queue entries (two counts; cheap enough to call after every index
        batch).

        Returns:
            An :class:`~paperdesk.core.models.IndexStatus`.
        """
        queued, unindexed = self.db.execute(
            "SELECT count(*), coalesce(sum(op = 'add'), 0) FROM index_queue").fetchone()
        if self.stand_in:          # read-only and unreadable: nothing is searchable until fixed
            unindexed = self._lib.papers.count()
        elif not unindexed and self.repair is not None:
            self.repair = None
            if not self._lib.read_only:
                (self._lib.path / INDEX_DIR / REPAIR_NOTE).unlink(missing_ok=True)
        return IndexStatus(self._lib.papers.count(), unindexed, queued,
                           repairing=self.repair is not None)
