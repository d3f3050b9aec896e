"""Helper processes start with Ctrl+C ignored, so that a terminal's Ctrl+C (sent to the
whole process group) reaches only the command, which decides what it stops."""

from __future__ import annotations

import multiprocessing
import signal

from paperdesk.core.child_process import start_ignoring_interrupts


def _report_sigint(conn) -> None:
    conn.send(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
    conn.close()


def _ask_child(start, report):
    """Start a spawned child running ``report(conn)`` with ``start``; its answer."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=report, args=(child,), daemon=True)
    start(process)
    child.close()
    try:
        return parent.recv()
    finally:
        process.join(30)


def _child_ignores_sigint(start) -> bool:
    return _ask_child(start, _report_sigint)


def test_a_child_ignores_ctrl_c_from_its_first_instruction_and_the_parent_does_not():
    # Python's own Ctrl+C handler in this process, whatever a test run before in the
    # same pytest worker left (CI saw a plain child ignore SIGINT once: the worker's
    # handler was SIG_IGN when this test began)
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert _child_ignores_sigint(start_ignoring_interrupts) is True
        # the parent's handler back, and a child started plainly gets the default
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert _child_ignores_sigint(lambda p: p.start()) is False
    finally:
        signal.signal(signal.SIGINT, outer)


def _report_niceness(conn) -> None:
    import os

    conn.send(os.getpriority(os.PRIO_PROCESS, 0))
    conn.close()


def _niceness_of_child(start) -> int:
    return _ask_child(start, _report_niceness)


def test_a_child_runs_at_a_lower_priority_than_the_window_and_the_command():
    """The long work of the helper processes shares the cores with the window's UI
    thread: they run niced (``BACKGROUND_NICE``), in a worker thread's start as in the
    main thread's; this process keeps its own priority."""
    import os
    import threading

    import pytest

    from paperdesk.core.child_process import BACKGROUND_NICE

    if not hasattr(os, "setpriority"):
        pytest.skip("no os.setpriority here")
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    if mine >= BACKGROUND_NICE:
        pytest.skip(f"this test process runs at nice {mine} already")
    assert _niceness_of_child(start_ignoring_interrupts) == BACKGROUND_NICE
    found = []
    worker = threading.Thread(target=lambda: found.append(
        _niceness_of_child(start_ignoring_interrupts)))
    worker.start()
    worker.join(60)
    assert found == [BACKGROUND_NICE]
    assert os.getpriority(os.PRIO_PROCESS, 0) == mine
    assert _niceness_of_child(lambda p: p.start()) == mine
