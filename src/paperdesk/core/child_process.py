"""Starting paperdesk's helper processes so that Ctrl+C reaches only the parent.

A terminal's Ctrl+C sends SIGINT to every process of the foreground group: the command
and the children it started (the import's file reader, the index's segment writer, the
term table's builder). Each child ignores SIGINT once it runs, and the parent decides
what an interrupt stops; but a spawned child takes about a second to import its modules
first, and a Ctrl+C in that second printed a ``KeyboardInterrupt`` traceback from the
child and broke the pipe to it. :func:`start_ignoring_interrupts` starts a child with
SIGINT ignored from its first instruction: an ignored signal stays ignored across
``exec`` (POSIX ``execve``), and Python leaves SIGINT as it found it at start-up when it
was ignored (the ``signal`` module's documentation: "SIGINT is translated into a
KeyboardInterrupt exception if the parent process has not changed it").
"""

from __future__ import annotations

import os
import signal
import sys
import threading

__all__ = ["start_ignoring_interrupts", "stop_child", "leave_now", "BACKGROUND_NICE"]

#: The niceness paperdesk's helper processes run at (``nice(2)``: 0 is a process's
#: usual; 19 the lowest priority). They do the long work (reading an import's files,
#: writing the index's segments, building the term table, embedding papers) while the
#: window is used, on the same cores as its UI thread: at 10, Linux gives a runnable UI
#: thread the core at once and them the rest, which is all of it when the window is
#: idle. The command line's children get it too: alone on the machine, they run as fast.
BACKGROUND_NICE = 10


def start_ignoring_interrupts(process, background: bool = True) -> None:
    """Start ``process`` (a ``multiprocessing`` process of the spawn context) with SIGINT
    ignored in it from the start: this process ignores SIGINT while the child is
    created, then puts its own handler back.

    Off the main thread (the window's workers) a handler cannot be changed: the child is
    started as it is; no terminal sends the window's children Ctrl+C.

    The child then runs at :data:`BACKGROUND_NICE` (where the system has
    ``os.setpriority``; a child already nicer keeps its own), unless it does the user's
    interactive work (``background=False``: the window's search process).

    Args:
        process: a ``multiprocessing.Process`` not started yet.
        background: lower the child's priority (long work beside the window).
    Raises:
        Whatever ``process.start()`` raises (OSError when no process can be made).
    """
    if threading.current_thread() is not threading.main_thread():
        process.start()
    else:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            process.start()
        finally:
            signal.signal(signal.SIGINT, previous)
    if background:
        lower_priority(process.pid)


def lower_priority(pid: int | None) -> None:
    """Run process ``pid`` (a child just started) at :data:`BACKGROUND_NICE`, unless it
    is nicer already; nothing where ``os.setpriority`` does not exist (Windows) or the
    process is gone.

    Args:
        pid: the child's process id (``None``: nothing).
    Raises:
        Nothing.
    """
    if pid is None or not hasattr(os, "setpriority"):
        return
    try:
        if os.getpriority(os.PRIO_PROCESS, pid) < BACKGROUND_NICE:
            os.setpriority(os.PRIO_PROCESS, pid, BACKGROUND_NICE)
    except OSError:
        pass        # gone already, or not ours to change


def stop_child(process, conn, stop_message, timeout: float) -> None:
    """Stop a helper child: send it ``stop_message`` and wait up to ``timeout`` seconds
    for it to end, kill it if it has not, wait for it and close the pipe.

    Args:
        process: the child's ``multiprocessing.Process``.
        conn: this side of its pipe.
        stop_message: what asks the child to stop (e.g. ``("stop",)``).
        timeout: seconds to wait for it; 0 kills it at once (nothing is sent).
    Raises:
        Nothing: a pipe already broken is ignored.
    """
    if timeout:
        try:
            conn.send(stop_message)
        except (OSError, ValueError):
            pass
        process.join(timeout)
    if process.is_alive():
        process.kill()
    process.join(5)
    conn.close()


def leave_now(code: int = 0) -> None:
    """End this child process at once, once it has sent its last answer: its standard
    streams are flushed, then ``os._exit(code)``, without the interpreter's teardown
    (``atexit`` handlers, ``multiprocessing``'s finalizers, freeing every object it
    holds). A parent waits for its child to end; that teardown took 140-165 ms for the
    import's reading child after a 30,000-abstract file (18-20 ms without it), with the
    window's edits waiting behind it. Only for a child that holds nothing that needs
    closing by then (its files and database connections closed).

    Args:
        code: the exit status.
    Raises:
        Nothing: it does not return.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
