"""Helper processes start with Ctrl+C ignored, so that a terminal's Ctrl+C (sent to the
whole process group) reaches only the command, which decides what it stops."""

from __future__ import annotations

import multiprocessing
import signal

from paperdesk.core.child_process import start_ignoring_interrupts


def _report_sigint(conn) -> None:
    conn.send(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
    conn.close()


def _child_ignores_sigint(start) -> bool:
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_report_sigint, args=(child,), daemon=True)
    start(process)
    child.close()
    try:
        return parent.recv()
    finally:
        process.join(30)


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
