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

__all__ = ["start_ignoring_interrupts", "leave_now"]


def start_ignoring_interrupts(process) -> None:
    """Start ``process`` (a ``multiprocessing`` process of the spawn context) with SIGINT
    ignored in it from the start: this process ignores SIGINT while the child is
    created, then puts its own handler back.

    Off the main thread (the window's workers) a handler cannot be changed: the child is
    started as it is; no terminal sends the window's children Ctrl+C.

    Args:
        process: a ``multiprocessing.Process`` not started yet.
    Raises:
        Whatever ``process.start()`` raises (OSError when no process can be made).
    """
    if threading.current_thread() is not threading.main_thread():
        process.start()
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, previous)


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
