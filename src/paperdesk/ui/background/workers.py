"""Work that must not block the UI thread: searching, counting saved searches, importing,
exporting, index syncing and the full check.

Every runner here is a :class:`~paperdesk.ui.background.runner.Runner` (its base class holds
the thread, start/cancel, the delivery of results, errors and progress to the UI thread and
the shutdown), and keeps only its own work:

* Writes (imports, index syncing) run as bulk jobs on the window's one writer thread, the
  :class:`~paperdesk.ui.background.operations.LibraryWorker` (edits go ahead of them and
  run between their batches); the full check is a read on its reader thread.
* Reads that have their own rhythm (searching, saved-search counts, exports) run on the
  runner's own QThread, with its own SQLite connection.

Every signal of a runner is delivered (and every slot of the window runs) in the UI
thread. Call ``shutdown()`` on each runner before the library is closed: it stops the
thread and waits for it (an import or export is asked to cancel first).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from paperdesk.core.api import ExportCancelled
from paperdesk.core.fields import SORT_CHOICES
from paperdesk.core.api import ProgressTracker
from paperdesk.core.library import Library
from paperdesk.core.api import MatchTerms
from paperdesk.core.scope import Scope
# Matches ranked before the list first shows a search; the others are ranked right after,
# on the search thread, and replace the list with every match (at a million abstracts,
# the sort of a common word's 250,000 matches was most of its search).
from paperdesk.core.api import RANKED_FIRST
from paperdesk.core.error_log import log_unexpected
from paperdesk.core.models import LibraryError
from paperdesk.core.api import (SearchAsk, SearchError, SearchProcess, SearchProcessGone,
                                run_search)
from paperdesk.ui.background.operations import Job, LibraryWorker
from paperdesk.ui.background.runner import Runner, one_line

__all__ = ["SearchRunner", "SearchRequest", "SavedSearchCounter", "ImportRunner",
           "ExportRunner", "IndexSyncRunner", "CheckRunner", "SEARCH_DELAY_MS", "FIRST_PAGE",
           "RANKED_FIRST", "SYNC_DELAY_MS", "COUNT_DELAY_MS", "SORTS"]

#: How long typing must pause before a search runs, in milliseconds.
SEARCH_DELAY_MS = 150
#: Hits delivered as rows with snippets (a screenful or two: cutting a snippet costs
#: ~0.2 ms, so 200 of them delayed the first rows by 40 ms); the ids of all the others
#: come with them and their rows and snippets are read when shown.
FIRST_PAGE = 60
#: How long after the last change the search index is brought up to date, in ms.
SYNC_DELAY_MS = 300
#: Quiet time before saved searches are counted again, in milliseconds.
COUNT_DELAY_MS = 250
#: The orders ``lib.search.find`` knows (from :mod:`paperdesk.core.fields`).
SORTS = SORT_CHOICES
#: Queries whose match terms are remembered (for highlighting in the detail pane).
_TERMS_KEPT = 16


# -- search ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchRequest:
    """One search to run.

    Attributes:
        query: the query text as typed (any text; see :mod:`paperdesk.core.search.query`).
        scope: the :class:`Scope` (source, tag, filter) to search in.
        sort: ``"relevance"`` (best first), a field (``"added"``, ``"title"`` ...) or
            ``"interest"`` (worth reading first; by date added while the term table is
            not built, then ``SearchResults.interest`` is ``None``).
        descending: reverse an ``added`` / ``title`` order.
    """

    query: str
    scope: Scope = field(default_factory=Scope)
    sort: str = "relevance"
    descending: bool = False


class SearchRunner(Runner):
    """Debounced, generation-numbered full-text search on a thread of its own.

    Every :meth:`request` (and :meth:`cancel`) increments :attr:`generation`; results of
    an older generation than the latest are dropped, so a slow query never overwrites the
    results of a newer one, and a request already superseded when its turn comes is
    skipped. Sorting happens in the thread (``lib.search.find(sort=...)``).

    One pass finds every match with the exact total, the first :data:`FIRST_PAGE` of
    them as rows with snippets (``results.hits``), plus the query's :class:`MatchTerms`.
    In the relevance order only the best :data:`RANKED_FIRST` are ranked then
    (``find(rank=...)``) and delivered at once, as incomplete results; the rest are
    ranked right after on the same thread (:meth:`SearchResults.complete`) and every
    match's id and score (``results.ids``, numpy arrays) follows as complete results.
    The list cuts the snippets of other rows when they are shown
    (``lib.search.snippets``), so no search builds rows for all its hits.

    Signals:
        resultsReady(int, object, bool): ``(generation, SearchResults, complete)`` of the
            latest request: ``complete`` False for the best :data:`RANKED_FIRST` of more
            matches (``ids`` holds those only; the complete results follow), True when
            ``ids`` holds every match. The query's match terms are then available from
            :meth:`terms_for`.
        searchFailed(int, str): ``(generation, message)`` when the latest search raised.

    Args:
        library: the open library (``find`` is called from the search thread).
        delay_ms: debounce delay.
        parent: Qt parent.
    """

    resultsReady = Signal(int, object, bool)
    searchFailed = Signal(int, str)
    _firstRanked = Signal(int, object)     # (generation, (results, terms)): the best first
    thread_name = "paperdesk-search"
    what = "search"
    expected_errors = ()

    def __init__(self, library: Library, delay_ms: int = SEARCH_DELAY_MS,
                 parent: QObject | None = None):
        super().__init__(parent, delay_ms=delay_ms)
        self._lib = library
        self._pending: SearchRequest | None = None
        self._terms: dict[str, MatchTerms] = {}
        self._process: SearchProcess | None = None
        self._process_failed = False
        self._closing = False
        # the thread starting the search process (use_process), and the lock that
        # hands its process over (or to shutdown, which closes one started too late)
        self._starter: threading.Thread | None = None
        self._process_lock = threading.Lock()
        self._firstRanked.connect(self._on_first_ranked)

    @property
    def generation(self) -> int:
        """The number of the latest request (or cancel)."""
        return self._generation

    def request(self, query: str, source_id: int | None = None,
                immediate: bool = False, scope: Scope | None = None,
                sort: str = "relevance", descending: bool = False) -> int:
        """Ask for a search; it runs after :data:`SEARCH_DELAY_MS` of quiet.

        Args:
            query: the query text (never raises on bad syntax).
            source_id: search only papers from this source, or ``None`` for all
                (ignored when ``scope`` is given).
            immediate: skip the debounce delay (e.g. when the scope changed).
            scope: the full :class:`Scope` (source, tag and filter).
            sort: one of :data:`SORTS` (unknown values mean ``"relevance"``).
            descending: reverse an ``added`` / ``title`` order.
        Returns:
            The generation number of this request.
        """
        if self._stopped:
            return self._generation
        self._forget()
        if sort not in SORTS:
            sort = "relevance"
        self._pending = SearchRequest(query, scope or Scope(source_id=source_id), sort,
                                      bool(descending) and sort != "relevance")
        if immediate:
            self._timer.stop()
            self._fire()
        else:
            self._timer.start()
        return self._generation

    def cancel(self) -> None:
        """Forget the pending request and drop any result still on its way."""
        self._forget()
        self._pending = None
        self._timer.stop()

    def terms_for(self, query: str) -> MatchTerms | None:
        """Return the match terms of a recently answered ``query`` (computed in the
        search thread with ``lib.search.match_terms``), or ``None`` if not known."""
        return self._terms.get(query)

    def use_process(self, wanted: bool) -> bool:
        """Search in a process of its own from now on (a large library: see
        :mod:`paperdesk.core.search.search_process`), started now on a thread of its
        own (a fork and exec, tens of milliseconds: never on the UI thread) so that it
        is ready by the first search; searches run on the search thread until it is.
        ``wanted`` False leaves a running one as it is.

        Returns:
            True when searches go, or will go once it has started, to a process of
            their own.
        """
        if wanted and self._starter is None and not self._stopped \
                and not self._process_failed:
            self._starter = threading.Thread(target=self._start_process, daemon=True,
                                             name="paperdesk-search-process-start")
            self._starter.start()
        return self._starter is not None and not self._process_failed

    def _start_process(self) -> None:
        """(The starter thread.) Start the search process and hand it over, unless the
        runner was shut down meanwhile (then close it)."""
        try:
            process = SearchProcess(self._lib.path)
        except SearchProcessGone as exc:
            self._process_failed = True
            log_unexpected("starting the search process", exc)
            return
        with self._process_lock:
            if not self._closing:
                self._process, process = process, None
        if process is not None:
            process.close()

    @property
    def process(self) -> SearchProcess | None:
        """The search process, or ``None`` when searches run on the search thread."""
        return self._process

    def shutdown(self) -> None:
        """Stop for good (see :meth:`Runner.shutdown`): the search process first, so
        that a search waiting for it ends at once, then the search thread."""
        with self._process_lock:
            self._closing = True
            process, self._process = self._process, None
        if process is not None:
            process.close()
        starter = self._starter
        if starter is not None:
            starter.join(STARTER_WAIT_S)   # it closes a process started too late itself
        super().shutdown()

    def _search(self, request: SearchRequest, generation: int) -> tuple[object, MatchTerms]:
        """Run one request (in the search thread, or in the search process it waits for):
        ``(SearchResults, MatchTerms)``, every match ranked; the best
        :data:`RANKED_FIRST` of more go to the UI thread first. "Worth reading first"
        (the term table's order) is always ranked here."""
        ask = SearchAsk(request.query, request.scope.where(), request.sort,
                        request.descending, FIRST_PAGE, RANKED_FIRST)

        def first(results, terms) -> None:
            if not self._superseded(generation):
                # the list's row lookup (sorted) and its ids as Python ints: made here,
                # not in the UI thread
                _ = results.positions, results.id_list
                self._firstRanked.emit(generation, (results, terms))

        process = self._process
        if process is not None and request.sort != "interest":
            try:
                results, terms = process.search(ask, first)
            except SearchError as exc:
                raise LibraryError(str(exc)) from None
            except SearchProcessGone as exc:    # search here from now on
                if self._closing:
                    raise
                self._process = None
                self._process_failed = True
                log_unexpected("the search process", exc)
                process.close()
                results, terms = run_search(self._lib, ask, first)
        else:
            results, terms = run_search(self._lib, ask, first)
        _ = results.positions, results.id_list
        return results, terms

    @Slot()
    def _fire(self) -> None:
        if self._pending is None or self._stopped:
            return
        request, self._pending = self._pending, None
        generation = self._generation
        self._run_in_thread(lambda: self._search(request, generation))

    @Slot(int, object)
    def _on_first_ranked(self, generation: int, value) -> None:
        if self._stopped or self._superseded(generation):
            return
        results, terms = value
        self._remember_terms(results.query, terms)
        self.resultsReady.emit(generation, results, False)

    def _on_done(self, value) -> None:
        results, terms = value
        self._remember_terms(results.query, terms)
        self.resultsReady.emit(self._generation, results, True)

    def _remember_terms(self, query: str, terms: MatchTerms) -> None:
        self._terms.pop(query, None)
        self._terms[query] = terms
        while len(self._terms) > _TERMS_KEPT:
            self._terms.pop(next(iter(self._terms)))

    def _on_failed(self, message: str) -> None:
        self.searchFailed.emit(self._generation, message)


#: How long shutdown waits for the thread starting the search process (seconds).
STARTER_WAIT_S = 10.0


# -- saved-search counts -------------------------------------------------------------------
class SavedSearchCounter(Runner):
    """Counts the papers each saved search finds, on a thread of its own.

    Exact counts can take a while on a large library, so they are computed only when
    asked (after start-up, index updates, imports and saved-search changes), after
    :data:`COUNT_DELAY_MS` of quiet, and a newer request supersedes an older one (the
    older one stops between two searches).

    Signals:
        countsReady(object): ``{name: count}`` for the latest request (``None`` for a
            search that could not be counted).

    Args:
        library: the open library.
        delay_ms: debounce delay.
        parent: Qt parent.
    """

    countsReady = Signal(object)
    thread_name = "paperdesk-counts"
    what = "counting saved searches"

    def __init__(self, library: Library, delay_ms: int = COUNT_DELAY_MS,
                 parent: QObject | None = None):
        super().__init__(parent, delay_ms=delay_ms)
        self._lib = library
        self._pending: list[tuple[str, str]] | None = None
        self.runs = 0  #: delivered counts (for tests and diagnostics)

    def request(self, searches: Sequence[tuple[str, str]], immediate: bool = False) -> None:
        """Count these saved searches (replacing any request not yet answered).

        Args:
            searches: ``(name, query)`` pairs.
            immediate: skip the debounce delay.
        """
        if self._stopped:
            return
        self._forget()
        self._pending = [(str(n), str(q)) for n, q in searches]
        if immediate:
            self._timer.stop()
            self._fire()
        else:
            self._timer.start()

    def _count(self, generation: int, searches: list[tuple[str, str]]) -> dict:
        """``{name: count or None}`` (in the counting thread; stops when superseded)."""
        counts: dict[str, int | None] = {}
        for name, query in searches:
            if self._superseded(generation):
                break
            try:
                counts[name] = self._lib.search.find(query, limit=1, count=True, suggest=False,
                                              snippets=False).total
            except Exception as exc:  # noqa: BLE001 - a count is a nicety
                one_line(exc, "counting a saved search", ())
                counts[name] = None
        return counts

    @Slot()
    def _fire(self) -> None:
        if self._pending is None or self._stopped:
            return
        searches, self._pending = self._pending, None
        generation = self._generation
        self._run_in_thread(lambda: self._count(generation, searches))

    def _on_done(self, counts) -> None:
        self.runs += 1
        self.countsReady.emit(counts)


# -- import ----------------------------------------------------------------------------
class ImportRunner(Runner):
    """Imports files and folders as a bulk job on the window's one writer thread
    (:class:`~paperdesk.ui.background.operations.LibraryWorker`), one import at a time.

    The import commits in short batches; between batches the worker runs the edits the
    user made meanwhile (``between_batches``), so they are committed within a batch. It
    only stores the papers (``sync=False``): ``finished`` comes as soon as they are in
    SQLite, and the window then has the :class:`IndexSyncRunner` index them.

    Signals (all in the UI thread):
        progress(str, int, int): ``(stage, done, total)``; stage is ``"import"`` or
            ``"index"``.
        stepped(object): an :class:`~paperdesk.core.imports.progress.ImportProgress`
            after every report (files, records, estimated time left).
        finished(object): the :class:`~paperdesk.core.models.ImportReport` (after a
            cancel it counts the papers committed before the stop).
        failed(str): a one-line message when the import raised.

    Args:
        library: the open library.
        parent: Qt parent.
        worker: the window's :class:`LibraryWorker`; without one the runner makes its
            own (and shuts it down in :meth:`shutdown`).
    """

    progress = Signal(str, int, int)
    stepped = Signal(object)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, library: Library, parent: QObject | None = None,
                 worker: LibraryWorker | None = None):
        super().__init__(parent, library=library, worker=worker, own_worker=True)

    def start(self, paths: Iterable[str | Path], keywords: bool = True) -> bool:
        """Queue an import of ``paths`` (files and/or folders) on the writer thread.

        Args:
            paths: what to import.
            keywords: records' keywords become tags (``lib.imports.run``'s
                ``keywords``).
        Returns:
            True if queued; False if an import is already running or after shutdown.
        """
        if self.is_running() or self._stopped:
            return False
        paths = [Path(p) for p in paths]

        def run(lib: Library, job: Job):   # writer thread
            tracker = ProgressTracker(self.stepped.emit)

            def progress(stage: str, done: int, total: int) -> None:
                self.progress.emit(stage, done, total)
                tracker.progress(stage, done, total)

            # Stored only: the window lists the papers at once and the index catches up
            # after, through the IndexSyncRunner (browsable first, issue 12). Large files
            # are stored by a process of their own, which leaves this interpreter (and
            # its lock) to the UI thread (issue 28).
            if lib.imports.worth_a_process(paths):
                return lib.imports.run_in_process(
                    paths, progress=progress, on_file=tracker.on_file,
                    cancel=job.cancelled, between_batches=job.between_batches,
                    keywords=keywords, hurry=job.edits_waiting)
            return lib.imports.run(
                paths, progress=progress, on_file=tracker.on_file,
                cancel=job.cancelled, between_batches=job.between_batches, sync=False,
                keywords=keywords, hurry=job.edits_waiting)

        return self._run_on_worker(run, bulk=True, label="import")

    def cancel(self) -> None:
        """Ask the running import to stop after its current batch (the papers committed
        so far stay). ``finished`` still arrives, with ``report.cancelled`` set."""
        super().cancel()

    def _on_done(self, report) -> None:
        self.finished.emit(report)

    def _on_failed(self, message: str) -> None:
        self.failed.emit(message)


# -- export ----------------------------------------------------------------------------
class ExportRunner(Runner):
    """Writes one export file on a thread of its own, one export at a time.

    The file is written atomically by ``lib.exports.to_file``: a failure or a cancel
    leaves no partial file (and an existing file at the path untouched). Cancelling is
    checked at every progress report as well as where the library polls it, so even an
    export of a few papers stops before its file replaces the target.

    Signals:
        progress(str, int, int): ``("export", done, total)``.
        finished(int, str): ``(papers written, path)`` once the file is in place.
        failed(str): a one-line message naming the file and the reason (e.g.
            ``"cannot write /x/a.bib: Permission denied"``).
        cancelled(): the export stopped on :meth:`cancel`; nothing was written.

    Args:
        library: the open library (read from the export thread).
        parent: Qt parent.
    """

    progress = Signal(str, int, int)
    finished = Signal(int, str)
    failed = Signal(str)
    cancelled = Signal()
    thread_name = "paperdesk-export"
    what = "export"
    cancelled_by = (ExportCancelled,)

    def __init__(self, library: Library, parent: QObject | None = None):
        super().__init__(parent)
        self._lib = library

    def start(self, ids: Iterable[int], fmt: str, path: str | Path,
              fields: Iterable[str] | None = None, resolve=None,
              options: dict | None = None) -> bool:
        """Start writing ``ids`` as ``fmt`` to ``path``.

        Args:
            ids: paper ids in the order to write.
            fmt: the name of a registered export format.
            path: the file to (re)place.
            fields: fields to include, or ``None`` for all.
            resolve: ``(Scope, sort, descending)``: look the ids up with
                ``lib.papers.scope_ids`` on the export thread instead of ``ids`` (a search
                still loading its complete results), or ``None``.
            options: the format's own options (the bibliography's style and locale), or
                ``None``.
        Returns:
            True if started; False if an export is already running or after shutdown.
        """
        if self.is_running() or self._stopped:
            return False
        cancel = self._new_cancel()
        ids, path = list(ids), Path(path)
        fields = None if fields is None else list(fields)

        def stop_if_cancelled() -> None:
            if cancel.is_set():
                raise ExportCancelled("export cancelled; no file was written")

        def progress(stage: str, done: int, total: int) -> None:
            stop_if_cancelled()
            self.progress.emit(stage, done, total)

        def export() -> tuple[int, str]:            # the export thread
            stop_if_cancelled()
            chosen = ids
            if resolve is not None:     # every match of a search still loading
                scope, sort, descending = resolve
                chosen = self._lib.papers.scope_ids(scope, sort=sort, descending=descending)
            written = self._lib.exports.to_file(chosen, fmt, path, fields,
                                               progress=progress, cancel=cancel.is_set,
                                               options=options)
            return written, str(path)

        self._run_in_thread(export)
        return True

    def cancel(self) -> None:
        """Ask the running export to stop; ``cancelled`` follows unless the file was
        already complete (then ``finished`` arrives as usual)."""
        super().cancel()

    def _on_done(self, value: tuple[int, str]) -> None:
        self.finished.emit(*value)

    def _on_failed(self, message: str) -> None:
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        self.cancelled.emit()


# -- index sync --------------------------------------------------------------------------
class IndexSyncRunner(Runner):
    """Brings the search index up to date after changes, as a bulk job on the window's
    one writer thread (:class:`~paperdesk.ui.background.operations.LibraryWorker`).

    The window sets ``library.auto_sync_index = False`` and
    ``library.on_index_stale = runner.mark_stale``; each change then only restarts a
    :data:`SYNC_DELAY_MS` timer, and when it fires ``lib.index.sync()`` is queued on
    the writer thread, one run at a time (changes made during a run schedule one more
    run). Edits queued during a run are run between its batches.

    Signals (UI thread):
        progress(int, int): ``(done, total)`` queue entries of the running update.
        status(object): after each batch of the running update (and when it starts),
            the library's :class:`~paperdesk.core.models.IndexStatus` (papers
            searchable of papers in the library), read on the writer thread.
        synced(int): a run finished; the number of queue entries it applied.
        failed(str): a run raised; a one-line message (the queue is kept for next time).

    Args:
        library: the open library.
        delay_ms: debounce delay.
        parent: Qt parent.
        worker: the window's :class:`LibraryWorker`; without one the runner makes its
            own (and shuts it down in :meth:`shutdown`).
    """

    synced = Signal(int)
    failed = Signal(str)
    progress = Signal(int, int)
    status = Signal(object)
    _stale = Signal()

    def __init__(self, library: Library, delay_ms: int = SYNC_DELAY_MS,
                 parent: QObject | None = None, worker: LibraryWorker | None = None):
        super().__init__(parent, library=library, worker=worker, own_worker=True,
                         delay_ms=delay_ms)
        self._again = False
        self.runs = 0  #: finished runs (for tests and diagnostics)
        self._stale.connect(self._on_stale)   # queued when emitted from another thread

    def mark_stale(self) -> None:
        """Note that the library changed (safe to call from any thread)."""
        if not self._stopped:
            self._stale.emit()

    def shutdown(self) -> None:
        """Stop scheduling; a running sync stops after its current batch (what is still
        queued is indexed the next time the library opens). With its own worker, wait for
        it; with the window's worker, :meth:`LibraryWorker.shutdown` does the waiting.
        Safe to call twice."""
        super().shutdown()

    @Slot()
    def _on_stale(self) -> None:
        if not self._stopped:
            self._timer.start()

    @Slot()
    def _fire(self) -> None:
        if self._stopped:
            return
        if self.is_running():
            self._again = True
            return

        def progress(lib: Library, done: int, total: int) -> None:   # writer thread
            self.progress.emit(done, total)
            self.status.emit(lib.index.status())

        self._run_on_worker(
            lambda lib, job: lib.index.sync(
                progress=lambda _stage, done, total: progress(lib, done, total),
                cancel=job.cancelled, between_batches=job.between_batches),
            bulk=True, label="index update")

    def cancel(self) -> None:
        """Stop the running (or queued) update after its current batch; what is left
        stays queued for the next change, the next import or the next start. A pending
        run that was only scheduled is dropped."""
        self._timer.stop()
        self._again = False
        super().cancel()

    def _on_done(self, applied: int) -> None:
        self._finish()
        self.synced.emit(applied)

    def _on_failed(self, message: str) -> None:
        self._finish()
        self.failed.emit(message)

    def _finish(self) -> None:
        self.runs += 1
        if self._again and not self._stopped:
            self._again = False
            self._timer.start()


# -- full check --------------------------------------------------------------------------
class CheckRunner(Runner):
    """Runs the full check (:func:`paperdesk.core.check.check_library`, Help ▸ Check
    Library) as a read on the window's :class:`LibraryWorker` (its reader thread and
    connection: the UI thread never waits for SQLite or Whoosh).

    Signals (UI thread):
        progress(int, int): ``(steps done, steps)``.
        finished(object): the :class:`~paperdesk.core.check.CheckReport`.
        failed(str): a one-line message.

    Args:
        worker: the window's :class:`LibraryWorker`.
        parent: Qt parent.
    """

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, worker: LibraryWorker, parent: QObject | None = None):
        super().__init__(parent, worker=worker)

    def start(self) -> bool:
        """Start a check (False when one runs already or the worker stopped)."""
        if self.is_running() or self._stopped:
            return False
        from paperdesk.core.check import check_library

        cancel = self._new_cancel()
        return self._run_on_worker(
            lambda lib: check_library(lib, progress=self.progress.emit,
                                      cancel=cancel.is_set),
            read=True, label="library check")

    def cancel(self) -> None:
        """Stop the running check after its current step."""
        super().cancel()

    def _on_done(self, report) -> None:
        self.finished.emit(report)

    def _on_failed(self, message: str) -> None:
        self.failed.emit(message)
