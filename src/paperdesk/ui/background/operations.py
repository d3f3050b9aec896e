"""One writer, readers beside it: every library operation the window starts, off the UI
thread.

:class:`LibraryWorker` (one per window, owned by it) runs *writes* one at a time on ONE
writer thread, and *reads* on a reader thread with its own SQLite connection
(``Library.db`` is per thread), so a read never waits behind a write and the UI thread
never waits on SQLite or Whoosh. It follows the design of Anki's ``CollectionOp`` over a
single-thread executor: the UI thread hands over a function of the library and gets the
result (or a one-line error) back in the UI thread, through a queued Qt signal; when an
edit's result is (or carries) a :class:`~paperdesk.core.changes.Changes`, the worker emits
:attr:`LibraryWorker.changed` with it, so the panes refresh from one signal. Bulk work
reports through its ``on_done`` only (an ``ImportReport`` carries ``changes`` too, but the
window refreshes from the import's own ``finished``; emitting both refreshed it twice).

Two priorities, FIFO within each:

* **edits** (``write(fn)``): short user edits (star, read, tag, note, title ...).
* **bulk work** (``write(fn, bulk=True)``): imports, index updates, re-indexing. A bulk
  function is called as ``fn(lib, job)`` and must pass ``job.between_batches`` to the
  core's ``between_batches=`` (and ``job.cancelled`` to ``cancel=``): the core calls it
  after every committed batch (:meth:`lib.imports.run`, :meth:`lib.index.sync`),
  and there the queued edits run, on the writer thread, between two transactions. An
  edit made during a 50,000-abstract import is so committed within one batch (a fraction
  of a second), and never fails with "database is locked".

Routing an edit through the worker (the window's star toggle)::

    def toggle_star(self, ids, starred):
        self.worker.write(
            lambda lib: lib.papers.set_starred(ids, starred),   # writer thread; returns Changes
            on_done=lambda changes: self.undo_menu.refresh(),   # UI thread
            on_failed=self.show_error)                   # UI thread, one line
        # the panes refresh from self.worker.changed(Changes), emitted after on_done

Errors never escape a thread: an exception in a job becomes a one-line message for
``on_failed`` (or, when the job has no ``on_failed``, for the :attr:`LibraryWorker.failed`
signal); a :class:`~paperdesk.core.models.LibraryError` is shown as it is, any other error
(``sqlite3.OperationalError`` included) also prints its traceback to stderr. A failed job
emits no ``changed``.

Shutting down (:meth:`LibraryWorker.shutdown`): the running bulk job is cancelled after its
current batch (what it committed stays, each paper whole), bulk jobs not yet started are
dropped, queued edits are **run** (drained: they are the user's work), reads not yet
started are dropped; then both threads are joined. Results arriving after shutdown are
not delivered.
"""

from __future__ import annotations

import collections
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QEventLoop, QObject, Signal, Slot

from paperdesk.core.changes import Changes
from paperdesk.core.library import Library
from paperdesk.core.error_log import log_unexpected
from paperdesk.core.models import LibraryError
from paperdesk.core.api import disk_full_message, is_disk_full

__all__ = ["LibraryWorker", "Job", "one_line_error", "changes_of"]

OnDone = Callable[[Any], None]
OnFailed = Callable[[str], None]


def one_line_error(exc: BaseException, what: str = "library operation") -> str:
    """Return a one-line message for ``exc`` (tracebacks go to stderr only).

    Args:
        exc: the exception a job raised.
        what: what failed, for the stderr report.
    Returns:
        The first line of the exception's text, or its class name; for a full disk
        (``SQLITE_FULL``, ``ENOSPC``) "the disk is full (…)". A :class:`LibraryError`
        (already meant for the user) and a full disk print nothing; anything else writes
        its traceback to the error log and one line to stderr (:func:`log_unexpected`).
    """
    full = not isinstance(exc, LibraryError) and is_disk_full(exc)
    if not isinstance(exc, LibraryError) and not full:
        log_unexpected(what, exc)
    text = str(exc).strip().splitlines()
    message = text[0] if text else type(exc).__name__
    if full:   # SQLITE_FULL or ENOSPC: say so (the transaction was rolled back)
        where = getattr(exc, "filename", None) or "the library"
        message = disk_full_message(where, exc)
    elif isinstance(exc, sqlite3.Error) and not isinstance(exc, LibraryError):
        message = f"database error: {message}"
    return message


def changes_of(result: Any) -> Changes | None:
    """The :class:`Changes` a job's result is or carries (``result.changes``), or None."""
    if isinstance(result, Changes):
        return result
    changes = getattr(result, "changes", None)
    return changes if isinstance(changes, Changes) else None


class Job:
    """One queued write or read; returned by :meth:`LibraryWorker.write` / ``read``.

    Attributes:
        label: what the job does (for stderr reports).
        bulk: a bulk write (called as ``fn(lib, job)``), else an edit or a read.
    """

    def __init__(self, worker: "LibraryWorker", fn: Callable, on_done: OnDone | None,
                 on_failed: OnFailed | None, bulk: bool, label: str):
        self._worker = worker
        self._fn = fn
        self._on_done = on_done
        self._on_failed = on_failed
        self.bulk = bulk
        self.label = label
        self._cancel = threading.Event()
        self._finished = threading.Event()

    def cancel(self) -> None:
        """Ask the job to stop (any thread). A bulk job sees it through
        :meth:`cancelled` and stops after its current batch; it still runs and reports
        (e.g. an ``ImportReport`` with ``cancelled`` set), even if it had not started."""
        self._cancel.set()

    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called (pass as the core's ``cancel=``)."""
        return self._cancel.is_set()

    def between_batches(self) -> None:
        """Run the queued edits now (pass as the core's ``between_batches=``).

        Writer thread only (inside this bulk job). Raises:
            RuntimeError: called from another thread.
        """
        self._worker.run_pending_edits()

    def edits_waiting(self) -> bool:
        """True when edits are queued behind this bulk job (pass as the core's
        ``hurry=``, so that it ends its batch early and calls :meth:`between_batches`);
        any thread."""
        return self._worker.edits_waiting()

    def done(self) -> bool:
        """True once the job's function has returned or raised (any thread)."""
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the function has returned or raised (no Qt events are processed;
        the callbacks follow later in the UI thread). Returns False on timeout."""
        return self._finished.wait(timeout)


class LibraryWorker(QObject):
    """The window's one serial writer (edits before bulk work) and its two reader
    threads: one for the short reads the user waits for (a row, the paper on show), one
    for the long ones (counting every paper, every id of a list, a backup: ``slow``), so
    that a key's row never queues behind a count of a million papers.

    All public methods are called from the UI thread, except :meth:`run_pending_edits`
    (writer thread) and the :class:`Job` methods (any thread).

    Signals:
        changed(object): a :class:`~paperdesk.core.changes.Changes` (non-empty) that an
            edit (not bulk work) returned or carried (``result.changes``); UI thread,
            after ``on_done``.
        failed(str): a one-line message of a failed job that had no ``on_failed``.
        idle(): the last outstanding job was delivered (UI thread).

    Args:
        library: the open library (its per-thread connections are used on the threads).
        parent: Qt parent (the window).
    """

    changed = Signal(object)
    failed = Signal(str)
    idle = Signal()
    _deliver = Signal(object)   # a closure to run in the UI thread (queued)

    def __init__(self, library: Library, parent: QObject | None = None):
        super().__init__(parent)
        self._lib = library
        self._lock = threading.Condition()
        self._edits: collections.deque[Job] = collections.deque()
        self._bulk: collections.deque[Job] = collections.deque()
        self._reads: collections.deque[Job] = collections.deque()
        self._slow_reads: collections.deque[Job] = collections.deque()
        self._running_bulk: Job | None = None
        self._stopping = False
        self._closed = False
        self._outstanding = 0        # submitted, not yet delivered (UI thread only)
        self._deliver.connect(self._run_in_ui)
        self._writer = threading.Thread(target=self._write_loop, name="paperdesk-writer",
                                        daemon=True)
        self._reader = threading.Thread(target=self._read_loop, args=(self._reads,),
                                        name="paperdesk-reader", daemon=True)
        self._slow_reader = threading.Thread(target=self._read_loop,
                                             args=(self._slow_reads,),
                                             name="paperdesk-reader-slow", daemon=True)
        self._writer.start()
        self._reader.start()
        self._slow_reader.start()

    # -- submitting (UI thread) ----------------------------------------------------------
    def write(self, fn: Callable[..., Any], on_done: OnDone | None = None,
              on_failed: OnFailed | None = None, *, bulk: bool = False,
              label: str = "") -> Job | None:
        """Queue a write; it runs on the writer thread, after the writes queued before it
        (an edit also before any bulk job not yet started, and inside a running bulk job
        at its next batch boundary).

        Args:
            fn: ``fn(lib) -> T`` for an edit; ``fn(lib, job) -> T`` for bulk work (pass
                ``job.between_batches`` and ``job.cancelled`` to the core).
            on_done: ``on_done(result)`` in the UI thread when ``fn`` returned.
            on_failed: ``on_failed(message)`` in the UI thread when ``fn`` raised (one
                line); without it the message goes to :attr:`failed`.
            bulk: imports, index updates and other long work (lower priority).
            label: what it does, for stderr reports.
        Returns:
            The :class:`Job` (to cancel or wait for), or None after :meth:`shutdown`
            (then nothing is queued and no callback is called).
        """
        return self._submit(Job(self, fn, on_done, on_failed, bulk,
                                label or ("bulk work" if bulk else "edit")),
                            self._bulk if bulk else self._edits)

    def read(self, fn: Callable[[Library], Any], on_done: OnDone | None = None,
             on_failed: OnFailed | None = None, *, label: str = "",
             first: bool = False, slow: bool = False) -> Job | None:
        """Queue a read; it runs on a reader thread (its own SQLite connection, so it
        never waits for a write transaction; it sees the last committed state), FIFO
        with the other reads of its thread.

        Args:
            fn: ``fn(lib) -> T``; must not write.
            on_done: ``on_done(result)`` in the UI thread.
            on_failed: ``on_failed(message)`` in the UI thread (else :attr:`failed`).
            label: what it does, for stderr reports.
            first: run it before the reads already queued (after the one running): a
                short read the user waits for (the list's first rows at open, queued
                after the counts of a million papers).
            slow: a read that takes long (counts every paper, reads every id of a list,
                copies the library): on the second reader thread, so that the short
                reads never wait for it. Reads on different threads may be delivered in
                any order.
        Returns:
            The :class:`Job`, or None after :meth:`shutdown`.
        """
        return self._submit(Job(self, fn, on_done, on_failed, False, label or "read"),
                            self._slow_reads if slow else self._reads, first=first)

    def _submit(self, job: Job, queue: collections.deque,
                first: bool = False) -> Job | None:
        with self._lock:
            if self._stopping:
                return None
            if first:
                queue.appendleft(job)
            else:
                queue.append(job)
            self._outstanding += 1
            self._lock.notify_all()
        return job

    # -- state (UI thread) ---------------------------------------------------------------
    def is_busy(self) -> bool:
        """True while a job is queued, running, or its result not yet delivered."""
        return self._outstanding > 0

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Process Qt events until every job is delivered (for tests and scripts).

        Args:
            timeout: seconds.
        Returns:
            True when idle, False on timeout.
        """
        deadline = time.monotonic() + timeout
        while self._outstanding > 0:
            if time.monotonic() >= deadline:
                return False
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.002)
        return True

    def shutdown(self, timeout: float | None = None) -> None:
        """Stop: cancel the running bulk job (after its current batch), drop bulk jobs
        and reads not yet started, run the queued edits, join both threads. Results are
        no longer delivered. Safe to call twice.

        Args:
            timeout: most seconds to wait for each thread (None: until done; a Whoosh
                commit in progress is always finished, never interrupted).
        """
        with self._lock:
            if self._stopping:
                return
            self._stopping = True
            self._closed = True
            dropped = list(self._bulk) + list(self._reads) + list(self._slow_reads)
            self._bulk.clear()
            self._reads.clear()
            self._slow_reads.clear()
            if self._running_bulk is not None:
                self._running_bulk.cancel()
            self._lock.notify_all()
        for job in dropped:
            job.cancel()
            job._finished.set()
        self._writer.join(timeout)
        self._reader.join(timeout)
        self._slow_reader.join(timeout)
        self._outstanding = 0

    # -- the writer thread ---------------------------------------------------------------
    def edits_waiting(self) -> bool:
        """True when edits are queued, waiting for the writer thread (any thread)."""
        with self._lock:
            return bool(self._edits)

    def run_pending_edits(self) -> int:
        """Run the queued edits now, on the writer thread (a bulk job's batch boundary).

        Returns:
            How many edits ran.
        Raises:
            RuntimeError: called from another thread than the writer.
        """
        if threading.current_thread() is not self._writer:
            raise RuntimeError("run_pending_edits() belongs to the writer thread")
        ran = 0
        while True:
            with self._lock:
                if not self._edits:
                    return ran
                job = self._edits.popleft()
            self._run(job)
            ran += 1

    def _write_loop(self) -> None:
        while True:
            with self._lock:
                while not (self._edits or self._bulk or self._stopping):
                    self._lock.wait()
                if self._edits:
                    job = self._edits.popleft()
                elif self._bulk and not self._stopping:
                    job = self._bulk.popleft()
                    self._running_bulk = job
                else:
                    return      # stopping, and every queued edit has run
            try:
                self._run(job)
            finally:
                with self._lock:
                    self._running_bulk = None

    def _read_loop(self, reads: collections.deque) -> None:
        while True:
            with self._lock:
                while not (reads or self._stopping):
                    self._lock.wait()
                if self._stopping:
                    return
                job = reads.popleft()
            self._run(job)

    def _run(self, job: Job) -> None:
        """Run one job on this thread; hand its outcome to the UI thread."""
        try:
            result = job._fn(self._lib, job) if job.bulk else job._fn(self._lib)
        except Exception as exc:  # noqa: BLE001 - reported to the UI, never raised here
            message = one_line_error(exc, job.label)
            job._finished.set()
            self._post(lambda: self._failed(job, message))
            return
        job._finished.set()
        self._post(lambda: self._done(job, result))

    def _post(self, closure: Callable[[], None]) -> None:
        if not self._closed:
            self._deliver.emit(closure)

    # -- delivery (UI thread) ------------------------------------------------------------
    @Slot(object)
    def _run_in_ui(self, closure: Callable[[], None]) -> None:
        if self._closed:
            return
        try:
            closure()
        finally:
            with self._lock:
                self._outstanding = max(0, self._outstanding - 1)
                now_idle = self._outstanding == 0
            if now_idle and not self._closed:
                self.idle.emit()

    def _done(self, job: Job, result: Any) -> None:
        if job._on_done is not None:
            job._on_done(result)
        changes = None if job.bulk else changes_of(result)
        if changes and not self._closed:
            self.changed.emit(changes)

    def _failed(self, job: Job, message: str) -> None:
        if job._on_failed is not None:
            job._on_failed(message)
        else:
            self.failed.emit(message)
