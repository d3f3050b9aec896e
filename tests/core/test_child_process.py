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
    before = signal.getsignal(signal.SIGINT)
    assert _child_ignores_sigint(start_ignoring_interrupts) is True
    assert signal.getsignal(signal.SIGINT) is before          # the parent's handler back
    assert _child_ignores_sigint(lambda p: p.start()) is False   # what it was before
