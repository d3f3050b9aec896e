"""A large import stored by a process of its own, so that the window's interpreter is
left to the window (issue 28: a million-record arXiv file through the window).

In one process the importing thread's Python (building rows, the near-duplicate match of
each record, the identifier look-ups) and the window's UI thread take turns at the one
interpreter lock: at a million records the UI thread stalled 120-490 ms once a minute
and the importing thread itself ran at three quarters of a core. Here a ``spawn`` child
(:func:`~paperdesk.core.child_process.start_ignoring_interrupts`) opens the library
with :meth:`~paperdesk.core.library.Library.open_in_helper` and runs the very same
:meth:`lib.imports.run <paperdesk.core.imports.pipeline.Imports.run>` (``sync=False``:
the papers are stored and queued for indexing, which the caller starts afterwards),
while the calling thread relays its progress and runs the user's edits between its
batches.

Protocol over one pipe (child → parent): ``("progress", (stage, done, total))``,
``("file", (stage, files_done, files_total, name))``, ``("paused", None)`` after a
committed batch when the parent asked it to hurry, then ``("done", ImportReport)`` or
``("failed", exception)``. Parent → child: ``("resume", None)`` after a pause (the
parent's edits are committed) or ``("stop", None)`` (the parent's ``between_batches``
raised: the child ends as after a cancel). Two shared events carry the parent's
``hurry`` (edits are waiting: the child ends its batch within
:data:`~paperdesk.core.imports.pipeline.HURRY_CHUNK` records and pauses) and ``cancel``.

SQLite's own locks keep the two processes' writes apart; the child holds the write lock
only inside a batch, and while it is paused the parent's edits commit at once. A child
that dies (killed, out of memory) leaves its committed batches, each paper whole, as an
interrupted in-thread import does; the parent then raises :class:`LibraryError`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from paperdesk.core.child_process import leave_now, start_ignoring_interrupts
from paperdesk.core.imports.registry import STDIN
from paperdesk.core.models import ImportReport, LibraryError
from paperdesk.core.store import db as _db
from paperdesk.core.store.background_checkpoints import BackgroundCheckpoints

__all__ = ["PROCESS_MIN_BYTES", "worth_a_process", "run_in_process"]

#: Files (summed) of at least this many bytes are imported by a process of their own
#: (32 MiB: some 20,000 abstracts, half a minute of storing; below that the child's
#: start, about a second, and the identifiers it reads again are not paid back).
PROCESS_MIN_BYTES = 32 << 20
#: How often the parent looks at ``cancel`` and ``hurry`` while the child works, in
#: seconds (an edit waits at most this long before the child is asked to hurry).
POLL_S = 0.01
#: How long the parent waits for the child to end after its last message, in seconds.
STOP_TIMEOUT_S = 30.0
#: How long a cancelled child may take to stop before it is killed, in seconds (it stops
#: after its current batch; one that never answers, e.g. a script that starts a window
#: without ``if __name__ == "__main__":``, re-runs it in the child and hangs there).
CANCEL_KILL_S = 60.0
#: ... and while it is still starting (nothing stored yet: spawn, imports, a first look
#: at the file; a starved child took 30 s and more there), in seconds. Killing it then
#: loses nothing, and closing the window during an import's start waited for it
#: (9-55 s, the window frozen).
START_CANCEL_KILL_S = 1.0


class _Stopped(Exception):
    """Raised in the child when the parent asks it to stop."""


def worth_a_process(paths: Iterable[str | os.PathLike]) -> bool:
    """Whether an import of ``paths`` should run in a process of its own: the files it
    would read (a folder's importable files, :func:`~paperdesk.core.imports.daily_papers.
    collect_files`) add up to :data:`PROCESS_MIN_BYTES` or more. Standard input never
    does. Touches the file system: call it off the UI thread.

    Args:
        paths: files and/or folders, as for ``lib.imports.run``.
    Returns:
        True when the child is worth starting; False when a file cannot be looked at (the
        import in the calling thread then reports it).
    """
    from paperdesk.core.imports.daily_papers import collect_files
    from paperdesk.core.imports.formats import folder_patterns

    paths = list(paths)
    if any(str(p) == STDIN for p in paths):
        return False
    total = 0
    try:
        for path in collect_files(paths, patterns=folder_patterns()):
            total += os.stat(path).st_size
    except (OSError, ValueError):
        return False
    return total >= PROCESS_MIN_BYTES


def run_in_process(lib, paths: Iterable[str | os.PathLike],
                   progress: Callable[[str, int, int], None] | None = None,
                   cancel: Callable[[], bool] | None = None,
                   between_batches: Callable[[], None] | None = None,
                   on_file: Callable[[str, int, int, str], None] | None = None,
                   arxiv_filter=None, keywords: bool = True,
                   hurry: Callable[[], bool] | None = None) -> ImportReport:
    """Import ``paths`` into ``lib`` like ``lib.imports.run(..., sync=False)``, with the
    storing done by a child process (module docstring). The callbacks are called on this
    thread, as ``lib.imports.run`` would call them: ``progress`` and ``on_file`` as the
    child reports, ``between_batches`` when the child pauses after a batch because
    ``hurry`` said edits are waiting (or at once while the child is still starting,
    before it reports a stored batch: SQLite's lock then makes the edit and the child's
    first batch take turns).

    Args:
        lib: the open :class:`~paperdesk.core.library.Library` (not read-only).
        paths: files and/or folders (not standard input).
        progress, cancel, between_batches, on_file, arxiv_filter, keywords, hurry: as
            for :meth:`~paperdesk.core.imports.pipeline.Imports.run`; ``cancel`` and
            ``hurry`` are polled every :data:`POLL_S`.
    Returns:
        The child's :class:`~paperdesk.core.models.ImportReport` (``index_pending``
        counted by the child when it ended); or, when it was cancelled before it
        reported a stored batch and had not stopped :data:`START_CANCEL_KILL_S` later,
        a cancelled report with nothing added (the child is killed; a batch it
        committed in that moment stays in the library, whole, but is not counted).
    Raises:
        LibraryError: the library is damaged (``lib.db_problem``) or read-only, no
            process could be started, it ended without a report, or it did not stop
            within :data:`CANCEL_KILL_S` of a cancel and was killed (its committed
            batches stay).
        Whatever the import raised in the child (its type kept when it can be sent),
        or what ``between_batches`` raised here (after the child ended).
    """
    if lib.db_problem is not None:          # the same refusal as every write here
        raise LibraryError(lib.db_problem)
    if lib.read_only:
        raise LibraryError(f"{lib.path} is open read-only: nothing can be imported")
    cancel = cancel or (lambda: False)
    hurry = hurry or (lambda: False)
    context = multiprocessing.get_context("spawn")
    parent_end, child_end = context.Pipe()
    hurry_event, cancel_event = context.Event(), context.Event()
    process = context.Process(
        target=_child_main, name="paperdesk-import",
        args=(child_end, type(lib), str(lib.path), [str(p) for p in paths], arxiv_filter,
              keywords, hurry_event, cancel_event))
    try:
        start_ignoring_interrupts(process)
    except OSError as exc:
        raise LibraryError(f"cannot start the import's process: {exc.strerror or exc}") \
            from exc
    child_end.close()
    hook_raised: BaseException | None = None
    cancelled_at: float | None = None
    # Until the child has stored its first batch it is starting (a second or more at
    # load 1.5: spawn and imports 1.1 s, the first batch read and stored by 2.4 s): an
    # edit waiting runs here at once (SQLite's lock makes it and that batch take turns)
    # instead of waiting for the child to pause after that batch (a star pressed as a
    # big file was dropped waited 3.9 s).
    starting = True
    # The window's edits commit on this connection while the child stores: they leave
    # the WAL to the child's checkpoint thread (at SQLite's 1,000 pages each commit
    # checkpointed what the child wrote since; at 50,000 (as before), an edit's
    # commit took 0.3-1 s every 10-20 s of a million-record import: db.no_checkpoints).
    held = contextlib.ExitStack()
    held.enter_context(_db.no_checkpoints(lib.db))
    try:
        while True:
            if cancelled_at is None and cancel():
                cancel_event.set()
                cancelled_at = time.monotonic()
            if cancelled_at is not None and starting \
                    and time.monotonic() - cancelled_at > START_CANCEL_KILL_S:
                process.kill()
                report = _cancelled_at_start(process, parent_end)
                if hook_raised is not None:
                    raise hook_raised
                return report
            if cancelled_at is not None and time.monotonic() - cancelled_at > CANCEL_KILL_S:
                process.kill()
                raise LibraryError(
                    f"the import's process did not stop within {CANCEL_KILL_S:.0f} s of "
                    "the cancel and was stopped; the papers it stored before that stay")
            if hurry():
                # Also while it starts: the child then ends the batch it may be storing
                # and waits, so that the edit run here is not outrun for SQLite's lock
                # (its busy wait sleeps, the child's next batch took the lock again at
                # once: a star waited 2-7 s, for every batch of a 30,000-abstract file).
                hurry_event.set()
                if starting and between_batches is not None and hook_raised is None:
                    try:
                        between_batches()
                    except BaseException as exc:  # ends the import, as below
                        hook_raised = exc
                        cancel_event.set()
                        cancelled_at = time.monotonic()
            if not parent_end.poll(POLL_S):
                if not process.is_alive() and not parent_end.poll():
                    raise _ended(process)
                continue
            try:
                kind, value = parent_end.recv()
            except (EOFError, OSError, pickle.UnpicklingError) as exc:
                raise _ended(process) from exc
            if kind == "progress":
                if value[0] == "import" and value[1]:
                    starting = False        # a batch is stored: pauses from now on
                lib.discover.mark_texts_changed()     # papers were added (enqueue says so)
                (progress or _nothing)(*value)
            elif kind == "file":
                (on_file or _nothing)(*value)
            elif kind == "paused":
                answer = "resume"
                try:
                    if between_batches is not None and hook_raised is None:
                        between_batches()
                except BaseException as exc:  # ends the import, as in lib.imports.run
                    hook_raised, answer = exc, "stop"
                finally:
                    hurry_event.clear()
                    try:
                        parent_end.send((answer, None))
                    except OSError as exc:          # the child died while paused
                        raise _ended(process) from exc
            elif kind == "done":
                if hook_raised is not None:
                    raise hook_raised
                return value
            elif kind == "failed":
                if hook_raised is not None:
                    raise hook_raised
                raise value
    finally:
        cancel_event.set()            # a child still running (this thread raised) stops
        parent_end.close()
        process.join(STOP_TIMEOUT_S)
        if process.is_alive():
            process.kill()
            process.join()
        held.close()
        lib.discover.mark_texts_changed()


def _cancelled_at_start(process, parent_end) -> ImportReport:
    """The report of a child killed because it was cancelled before it stored a batch:
    cancelled, nothing added; its own report if it sent one before it died (it stopped
    by itself just then)."""
    process.join(STOP_TIMEOUT_S)
    try:
        while parent_end.poll():
            kind, value = parent_end.recv()
            if kind == "done":
                return value
    except (EOFError, OSError, pickle.UnpicklingError):
        pass
    return ImportReport(cancelled=True)


def _ended(process) -> LibraryError:
    """The error for a child that ended without a report."""
    process.join(1.0)
    code = process.exitcode
    how = (f"was killed (signal {-code})" if code is not None and code < 0
           else f"ended (exit code {code})")
    return LibraryError(f"the import's process {how} before it finished; "
                        "the papers it stored before that stay")


def _nothing(*_args) -> None:
    pass


def _child_main(conn, library_class, library_path: str, paths: list[str], arxiv_filter,
                keywords: bool, hurry_event, cancel_event) -> None:
    """The child: open the library as a helper (``library_class``: the parent's
    :class:`~paperdesk.core.library.Library`, sent by reference), import, send the
    report, close the library and end at once (runs in the child process;
    :func:`~paperdesk.core.child_process.leave_now`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # the parent decides

    def progress(stage: str, done: int, total: int) -> None:
        conn.send(("progress", (stage, done, total)))

    def on_file(stage: str, files_done: int, files_total: int, name: str) -> None:
        conn.send(("file", (stage, files_done, files_total, name)))

    def between_batches() -> None:
        if not hurry_event.is_set():
            return
        conn.send(("paused", None))
        answer = conn.recv()
        if answer[0] != "resume":
            raise _Stopped()

    lib = None
    try:
        lib = library_class.open_in_helper(Path(library_path))
        # The WAL is checkpointed by a thread (no batch's commit copies 200 MB while an
        # edit waits); its last checkpoint ends while edits still get their pauses.
        with BackgroundCheckpoints(lib.db) as checkpoints:
            report = lib.imports.run(
                paths, progress=progress, cancel=cancel_event.is_set, sync=False,
                between_batches=between_batches, on_file=on_file,
                arxiv_filter=arxiv_filter, keywords=keywords, hurry=hurry_event.is_set)
            checkpoints.stop()
            while checkpoints.finishing(POLL_S):
                between_batches()
        _send_end(conn, ("done", report))
    except (BrokenPipeError, EOFError, ConnectionResetError):
        return                                        # the parent is gone
    except _Stopped:
        _send_end(conn, ("failed", LibraryError("the import was stopped")))
    except BaseException as exc:
        if not isinstance(exc, LibraryError):
            from paperdesk.core.error_log import log_unexpected
            log_unexpected("import process", exc)
        _send_end(conn, ("failed", _sendable(exc)))
    finally:
        if lib is not None:
            lib.close()
    # The report is sent and the library closed: end without the interpreter's teardown
    # (freeing what a million-record import built), which the parent's writer thread,
    # and the window's edits behind it, would wait for.
    leave_now()


def _sendable(exc: BaseException) -> BaseException:
    """``exc`` if it can be sent and made again from its arguments on the other side
    (as unpickling an exception does: ``type(exc)(*exc.args)``), else a
    :class:`LibraryError` with its first line."""
    try:
        pickle.dumps(exc)
        type(exc)(*exc.args)
        exc.__traceback__ = None
        return exc
    except Exception:
        lines = str(exc).strip().splitlines()
        return LibraryError(lines[0] if lines else type(exc).__name__)


def _send_end(conn, message) -> None:
    """Send the last message; a parent that is gone hears nothing."""
    try:
        conn.send(message)
    except (BrokenPipeError, EOFError, OSError):
        pass
