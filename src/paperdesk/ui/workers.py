"""Work that must not block the UI thread: searching and importing.

Both runners are QObjects that live in the UI thread and own one worker QObject moved to
a QThread. Requests go to the worker through queued signals; results come back through
queued signals, so every slot of a runner (and of the window) runs in the UI thread.

Call ``shutdown()`` on each runner before the library is closed: it stops the thread
and waits for it (an import is asked to cancel first).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from ..core.library import Library

__all__ = ["SearchRunner", "ImportRunner", "SEARCH_DELAY_MS", "FIRST_PAGE"]

#: How long typing must pause before a search runs, in milliseconds.
SEARCH_DELAY_MS = 150
#: Hits delivered first, quickly; the complete list follows when there are more.
FIRST_PAGE = 200
#: Quiet time before the (slower) complete search starts, in seconds.
FULL_SEARCH_PAUSE_S = 0.3


def _log_exception(what: str) -> str:
    """Print the current exception's traceback to stderr; return a one-line message."""
    exc = sys.exc_info()[1]
    print(f"paperdesk: {what} failed:", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)
    return str(exc) or type(exc).__name__


# -- search ----------------------------------------------------------------------------
class _SearchWorker(QObject):
    """Runs ``Library.find`` in the search thread. Skips requests already superseded.

    A query with more than :data:`FIRST_PAGE` hits is answered twice: the best
    ``FIRST_PAGE`` hits first (fast: snippets are made only for them), then, unless a
    newer request arrived meanwhile, every hit.
    """

    done = Signal(int, object, bool)    # generation, SearchResults, complete
    failed = Signal(int, str)           # generation, message

    def __init__(self, library: Library, latest_generation):
        super().__init__()
        self._lib = library
        self._latest = latest_generation

    @Slot(int, str, object)
    def run(self, generation: int, query: str, source_id) -> None:
        if generation != self._latest():
            return  # a newer query is already queued behind this one
        try:
            first = self._lib.find(query, limit=FIRST_PAGE, source_id=source_id)
            complete = len(first.hits) >= first.total
            self.done.emit(generation, first, complete)
            if complete or not self._still_latest(generation, FULL_SEARCH_PAUSE_S):
                return
            results = self._lib.find(query, limit=None, source_id=source_id)
        except Exception:  # noqa: BLE001 - reported to the UI, never raised in a thread
            self.failed.emit(generation, _log_exception("search"))
            return
        self.done.emit(generation, results, True)

    def _still_latest(self, generation: int, pause_s: float) -> bool:
        """Wait up to ``pause_s`` (the user may still be typing); False if superseded."""
        deadline = time.monotonic() + pause_s
        while time.monotonic() < deadline:
            if generation != self._latest():
                return False
            time.sleep(0.02)
        return generation == self._latest()


class SearchRunner(QObject):
    """Debounced, generation-numbered full-text search on a worker thread.

    Every :meth:`request` (and :meth:`cancel`) increments :attr:`generation`; results of
    an older generation than the latest are dropped, so a slow query never overwrites the
    results of a newer one. A large result arrives twice (see :data:`FIRST_PAGE`): first
    the best hits with ``complete`` False, then all of them.

    Signals:
        resultsReady(int, object, bool): ``(generation, SearchResults, complete)`` of the
            latest request; ``results.total`` is always the exact number of matches.
        searchFailed(int, str): ``(generation, message)`` when the latest search raised.

    Args:
        library: the open library (``find`` is called from the worker thread).
        delay_ms: debounce delay.
        parent: Qt parent.
    """

    resultsReady = Signal(int, object, bool)
    searchFailed = Signal(int, str)
    _submit = Signal(int, str, object)

    def __init__(self, library: Library, delay_ms: int = SEARCH_DELAY_MS,
                 parent: QObject | None = None):
        super().__init__(parent)
        self._generation = 0
        self._pending: tuple[str, int | None] | None = None
        self._waiting_for: int | None = None
        self.dropped = 0  #: results discarded because a newer request existed
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._fire)
        self._thread = QThread()
        self._thread.setObjectName("paperdesk-search")
        self._worker = _SearchWorker(library, lambda: self._generation)
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run)
        self._worker.done.connect(self._on_done)
        self._worker.failed.connect(self._on_failed)
        self._thread.start()
        self._stopped = False

    @property
    def generation(self) -> int:
        """The number of the latest request (or cancel)."""
        return self._generation

    def request(self, query: str, source_id: int | None = None,
                immediate: bool = False) -> int:
        """Ask for a search; it runs after :data:`SEARCH_DELAY_MS` of quiet.

        Args:
            query: the query text (Whoosh syntax; never raises on bad syntax).
            source_id: search only papers from this source, or ``None`` for all.
            immediate: skip the debounce delay (e.g. when the scope changed).
        Returns:
            The generation number of this request.
        """
        if self._stopped:
            return self._generation
        self._generation += 1
        self._pending = (query, source_id)
        if immediate:
            self._timer.stop()
            self._fire()
        else:
            self._timer.start()
        return self._generation

    def cancel(self) -> None:
        """Forget the pending request and drop any result still on its way."""
        self._generation += 1
        self._pending = None
        self._waiting_for = None
        self._timer.stop()

    def is_busy(self) -> bool:
        """Return True while a request waits for its delay or for its complete results."""
        return self._timer.isActive() or self._waiting_for is not None

    def has_pending(self) -> bool:
        """Return True while a request waits for its debounce delay."""
        return self._timer.isActive()

    def flush(self) -> None:
        """Run a request that is waiting for its debounce delay now."""
        if self._timer.isActive():
            self._timer.stop()
            self._fire()

    def shutdown(self) -> None:
        """Stop the timer and the search thread and wait for it. Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self.cancel()
        self._thread.quit()
        self._thread.wait()

    @Slot()
    def _fire(self) -> None:
        if self._pending is None or self._stopped:
            return
        query, source_id = self._pending
        self._pending = None
        self._waiting_for = self._generation
        self._submit.emit(self._generation, query, source_id)

    @Slot(int, object, bool)
    def _on_done(self, generation: int, results, complete: bool) -> None:
        if generation != self._generation:
            self.dropped += 1
            return
        if complete:
            self._waiting_for = None
        self.resultsReady.emit(generation, results, complete)

    @Slot(int, str)
    def _on_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self._waiting_for = None
        self.searchFailed.emit(generation, message)


# -- import ----------------------------------------------------------------------------
class _ImportWorker(QObject):
    """Runs ``Library.import_paths`` once, in the import thread."""

    progress = Signal(str, int, int)
    done = Signal(object)   # ImportReport
    failed = Signal(str)

    def __init__(self, library: Library, paths: list[Path], cancel: threading.Event):
        super().__init__()
        self._lib = library
        self._paths = paths
        self._cancel = cancel

    @Slot()
    def run(self) -> None:
        try:
            report = self._lib.import_paths(
                self._paths,
                progress=lambda stage, done, total: self.progress.emit(stage, done, total),
                cancel=self._cancel.is_set)
        except Exception:  # noqa: BLE001 - reported to the UI, never raised in a thread
            self.failed.emit(_log_exception("import"))
            return
        self.done.emit(report)


class ImportRunner(QObject):
    """Imports files and folders on a worker thread, one import at a time.

    Signals:
        progress(str, int, int): ``(stage, done, total)``; stage is ``"import"`` or
            ``"index"``.
        finished(object): the :class:`~paperdesk.core.models.ImportReport`.
        failed(str): a one-line message when the import raised.

    Args:
        library: the open library.
        parent: Qt parent.
    """

    progress = Signal(str, int, int)
    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, library: Library, parent: QObject | None = None):
        super().__init__(parent)
        self._lib = library
        self._thread: QThread | None = None
        self._worker: _ImportWorker | None = None
        self._cancel = threading.Event()
        self._stopped = False

    def is_running(self) -> bool:
        """Return True while an import is in progress."""
        return self._thread is not None

    def start(self, paths: Iterable[str | Path]) -> bool:
        """Start importing ``paths`` (files and/or folders).

        Args:
            paths: what to import.
        Returns:
            True if started; False if an import is already running or after shutdown.
        """
        if self._thread is not None or self._stopped:
            return False
        self._cancel = threading.Event()
        thread = QThread()
        thread.setObjectName("paperdesk-import")
        worker = _ImportWorker(self._lib, [Path(p) for p in paths], self._cancel)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progress.connect(self.progress)
        worker.done.connect(self._on_done)
        worker.failed.connect(self._on_failed)
        self._thread, self._worker = thread, worker
        thread.start()
        return True

    def cancel(self) -> None:
        """Ask the running import to stop (between abstracts; the current file is rolled
        back). ``finished`` still arrives, with ``report.cancelled`` set."""
        self._cancel.set()

    def shutdown(self) -> None:
        """Cancel any running import and wait for its thread to end. Safe to call twice."""
        self._stopped = True
        self._cancel.set()
        self._join()

    def _join(self) -> None:
        # The worker must outlive its thread: dropping the last Python reference deletes
        # the C++ object, which would pull it from under a still-running import.
        thread, worker = self._thread, self._worker
        if thread is not None:
            thread.quit()
            thread.wait()
        self._thread = self._worker = None
        del worker

    @Slot(object)
    def _on_done(self, report) -> None:
        self._join()
        if not self._stopped:
            self.finished.emit(report)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._join()
        if not self._stopped:
            self.failed.emit(message)
