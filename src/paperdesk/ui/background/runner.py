"""The base class of the window's background runners (search, saved-search counts,
import, export, index sync, full check, term-table build).

A :class:`Runner` is a QObject living in the UI thread. It runs one piece of work at a
time off the UI thread and delivers its outcome back in the UI thread, through queued
signals; the UI thread never waits for the work. The work runs in one of two places:

* on the runner's **own thread** (:meth:`Runner._run_in_thread`): a QThread named
  :attr:`Runner.thread_name`, started at the first run and stopped by
  :meth:`Runner.shutdown`, with its own SQLite connection (``Library.db`` is per thread).
  Used by reads that have their own rhythm: searching, counting, exporting, building
  the term table.
* on the window's :class:`~paperdesk.ui.background.operations.LibraryWorker`
  (:meth:`Runner._run_on_worker`): as a bulk write on its writer thread (import, index
  sync) or as a read on its reader thread (full check).

What the base class holds, so that each runner keeps only its own work:

* **start/cancel**: :meth:`Runner.is_running`, :meth:`Runner.is_busy`,
  :meth:`Runner.cancel` (sets the run's cancel event and cancels its worker job), an
  optional debounce timer (:meth:`Runner.flush`, the subclass's ``_fire``), and a
  *generation* number: :meth:`Runner._forget` makes the outcome of the run in flight
  stale, so it is dropped when it arrives.
* **delivery**: the outcome arrives in the UI thread as one call of the subclass's
  ``_on_done(value)``, ``_on_failed(message)`` or ``_on_cancelled()``; an error is one
  line (:func:`one_line`, the traceback goes to the error log); progress reported from the work
  with :meth:`Runner._relay` is emitted in the UI thread. Nothing is delivered after
  :meth:`Runner.shutdown`, nor for a stale generation (counted in :attr:`Runner.dropped`).
* **shutdown on window close**: :meth:`Runner.shutdown` cancels the run, stops the
  timer, shuts down a worker the runner made itself and stops and waits for its own
  thread (the run in it was asked to cancel first). Safe to call twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from paperdesk.core.library import Library
from paperdesk.core.error_log import log_unexpected
from paperdesk.core.models import LibraryError
from paperdesk.ui.background.operations import Job, LibraryWorker

__all__ = ["Runner", "one_line"]

#: The outcome kinds a run delivers (``_on_<kind>`` is called in the UI thread).
DONE, FAILED, CANCELLED = "done", "failed", "cancelled"


def one_line(exc: BaseException, what: str,
             expected: tuple[type[BaseException], ...] = (LibraryError,)) -> str:
    """Return the one-line message the user sees for an error of a background run.

    Args:
        exc: the exception the work raised.
        what: what failed (e.g. ``"export"``), for the stderr report.
        expected: error types whose text is meant for the user: no traceback is printed
            for them; any other error's traceback goes to the error log
            (:func:`paperdesk.core.error_log.log_unexpected`: one line on stderr).
    Returns:
        The exception's text on one line (its lines joined by spaces, so that a file
        name holding a line break still comes with the reason after it), or its class
        name when it has no text.
    """
    if not isinstance(exc, expected):
        log_unexpected(what, exc)
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return text or type(exc).__name__


class _Executor(QObject):
    """Lives in a runner's own thread and calls what the runner submits there."""

    @Slot(object)
    def run(self, call: Callable[[], None]) -> None:
        """Call ``call()`` (in the runner's thread; it never raises)."""
        call()


class Runner(QObject):
    """Base of the background runners: one run at a time off the UI thread, its outcome
    delivered in the UI thread (see the module's docstring).

    Subclasses set :attr:`thread_name` (own thread), :attr:`what` (for error reports),
    :attr:`expected_errors` and :attr:`cancelled_by`, start work with
    :meth:`_run_in_thread` or :meth:`_run_on_worker`, and implement the outcome hooks
    ``_on_done(value)``, ``_on_failed(message)`` and, where the work can be cancelled,
    ``_on_cancelled()``; with a ``delay_ms``, also ``_fire()`` (the debounce timer's
    slot).

    Args:
        parent: Qt parent.
        library: the open library (the :class:`LibraryWorker` made when no ``worker``
            is given and ``own_worker`` is set).
        worker: the window's :class:`LibraryWorker` for :meth:`_run_on_worker`.
        own_worker: without ``worker``, make one (shut down in :meth:`shutdown`).
        delay_ms: a debounce delay in milliseconds (a single-shot timer calling
            ``_fire``), or ``None`` for none.

    Attributes:
        dropped: outcomes discarded because a newer run existed or after shutdown.
    """

    #: The name of the runner's own thread (``ps``/debuggers show it).
    thread_name = "paperdesk-runner"
    #: What the work is, for the stderr report of an unexpected error.
    what = "background work"
    #: Error types whose text is meant for the user (no traceback printed).
    expected_errors: tuple[type[BaseException], ...] = (LibraryError,)
    #: Exceptions of the work that mean "cancelled" (delivered as ``_on_cancelled``).
    cancelled_by: tuple[type[BaseException], ...] = ()

    _submit = Signal(object)                 # a call, to the runner's own thread
    _outcome = Signal(int, str, object)      # generation, kind, value, to the UI thread
    _relayed = Signal(str, object)           # signal name, arguments, to the UI thread

    def __init__(self, parent: QObject | None = None, *, library: Library | None = None,
                 worker: LibraryWorker | None = None, own_worker: bool = False,
                 delay_ms: int | None = None):
        super().__init__(parent)
        self._stopped = False
        self._generation = 0
        self._awaiting: int | None = None       # the generation of the run in flight
        self._cancel = threading.Event()
        self._thread: QThread | None = None
        self._executor: _Executor | None = None
        self._own_worker = worker is None and own_worker
        self._worker = (LibraryWorker(library, self) if self._own_worker else worker)
        self._job: Job | None = None
        self.dropped = 0
        self._timer: QTimer | None = None
        if delay_ms is not None:
            self._timer = QTimer(self)
            self._timer.setSingleShot(True)
            self._timer.setInterval(delay_ms)
            self._timer.timeout.connect(self._fire)
        self._outcome.connect(self._deliver)
        self._relayed.connect(self._emit_relayed)

    # -- state -------------------------------------------------------------------------
    def is_running(self) -> bool:
        """Return True from the start of a run until its outcome has been delivered."""
        return self._awaiting is not None

    def is_busy(self) -> bool:
        """Return True while a run waits for its debounce delay or is running."""
        return (self._timer is not None and self._timer.isActive()) or self.is_running()

    def flush(self) -> None:
        """Start a run that waits for its debounce delay now."""
        if self._timer is not None and self._timer.isActive():
            self._timer.stop()
            self._fire()

    def cancel(self) -> None:
        """Ask the running work to stop: its cancel event is set and its worker job is
        cancelled. The outcome (often ``_on_cancelled``) still arrives."""
        self._cancel.set()
        if self._job is not None:
            self._job.cancel()

    def shutdown(self) -> None:
        """Stop for good (the window closes): stop the timer, cancel the run, deliver
        nothing more, shut down a worker of the runner's own and stop and wait for the
        runner's own thread. Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self._forget()
        if self._timer is not None:
            self._timer.stop()
        self._cancel.set()
        job, self._job = self._job, None
        if job is not None:
            job.cancel()
        if self._own_worker:
            self._worker.shutdown()
        if self._thread is not None:
            self._thread.quit()
            self._thread.wait()

    # -- for subclasses ----------------------------------------------------------------
    def _forget(self) -> None:
        """Make the run in flight stale: its outcome will be dropped."""
        self._generation += 1
        self._awaiting = None

    def _superseded(self, generation: int) -> bool:
        """True when ``generation`` is no longer the latest (callable from any thread)."""
        return generation != self._generation

    def _new_cancel(self) -> threading.Event:
        """A fresh cancel event for a new run (the old one may still be seen by the
        run that just ended)."""
        self._cancel = threading.Event()
        return self._cancel

    def _run_in_thread(self, work: Callable[[], Any]) -> None:
        """Run ``work()`` on the runner's own thread (started at the first run).

        Its return value goes to ``_on_done``; an exception in :attr:`cancelled_by` to
        ``_on_cancelled``; any other exception, as one line (:func:`one_line`), to
        ``_on_failed``. A run whose generation is stale when its turn comes is skipped.
        """
        if self._thread is None:
            self._thread = QThread()
            self._thread.setObjectName(self.thread_name)
            self._executor = _Executor()
            self._executor.moveToThread(self._thread)
            self._submit.connect(self._executor.run)
            self._thread.start()
        generation = self._awaiting = self._generation

        def call() -> None:                     # the runner's thread
            if self._superseded(generation):
                return
            try:
                value = work()
            except self.cancelled_by:
                self._outcome.emit(generation, CANCELLED, None)
            except Exception as exc:  # noqa: BLE001 - reported to the UI, never raised here
                self._outcome.emit(generation, FAILED,
                                   one_line(exc, self.what, self.expected_errors))
            else:
                self._outcome.emit(generation, DONE, value)

        self._submit.emit(call)

    def _run_on_worker(self, fn: Callable[..., Any], *, bulk: bool = False,
                       read: bool = False, label: str = "") -> bool:
        """Queue ``fn`` on the :class:`LibraryWorker`: a read (``fn(lib)``, reader
        thread) when ``read``, else a write (``fn(lib, job)`` when ``bulk``, writer
        thread). Its result goes to ``_on_done``, its one-line error to ``_on_failed``.

        Returns:
            True if queued; False when the worker has shut down.
        """
        generation = self._generation

        def done(value: Any) -> None:
            self._deliver(generation, DONE, value)

        def failed(message: str) -> None:
            self._deliver(generation, FAILED, message)

        if read:
            job = self._worker.read(fn, done, failed, label=label)
        else:
            job = self._worker.write(fn, done, failed, bulk=bulk, label=label)
        self._job = job
        self._awaiting = generation if job is not None else None
        return job is not None

    def _relay(self, signal_name: str, *args: Any) -> None:
        """Emit the signal ``signal_name`` with ``args`` in the UI thread (callable from
        the work's thread; dropped after shutdown)."""
        self._relayed.emit(signal_name, args)

    @Slot(str, object)
    def _emit_relayed(self, signal_name: str, args: tuple) -> None:
        if not self._stopped:
            getattr(self, signal_name).emit(*args)

    @Slot(int, str, object)
    def _deliver(self, generation: int, kind: str, value: Any) -> None:
        if self._stopped or generation != self._generation:
            self.dropped += 1
            return
        self._awaiting = None
        self._job = None
        if kind == DONE:
            self._on_done(value)
        elif kind == FAILED:
            self._on_failed(value)
        else:
            self._on_cancelled()

    # -- hooks -------------------------------------------------------------------------
    def _fire(self) -> None:
        """The debounce timer fired: start the pending run (subclasses with a delay)."""

    def _on_done(self, value: Any) -> None:
        """The work returned ``value`` (UI thread)."""

    def _on_failed(self, message: str) -> None:
        """The work raised; ``message`` is one line (UI thread)."""

    def _on_cancelled(self) -> None:
        """The work stopped on :meth:`cancel` (UI thread)."""
