"""Which thread reads the list's rows: ``ui_bench.py`` with ``Papers.summaries`` wrapped.

Usage::

    QT_QPA_PLATFORM=offscreen python benchmarks/row_reads.py --skip-import \\
        --library DIR [any other ui_bench.py argument]

Runs :func:`benchmarks.ui_bench.main` with the given arguments (its report is printed as
usual) and records every ``lib.papers.summaries`` call: whether it ran on the UI thread,
how many ids, its wall and its thread's CPU milliseconds, and the bench's phase
(``typing`` while :func:`~benchmarks.ui_bench._type_queries` runs, else ``other``: open,
``j``, tag toggle, tag pane). At the end it prints to stderr, per phase and thread, the
calls, the ids read, and the total and longest wall and CPU ms (issue 28: the list's rows
were read on the UI thread while typing). Works against any version of the window (the
wrapper only needs ``Papers.summaries``).
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import ui_bench  # noqa: E402  (sets up Qt's environment first)
from paperdesk.core.papers import Papers  # noqa: E402

#: ``(phase, on the UI thread, ids, wall ms, CPU ms)`` per ``summaries`` call.
CALLS: list[tuple[str, bool, int, float, float]] = []
_phase = ["other"]


def _wrap() -> None:
    real = Papers.summaries

    def summaries(self, ids, *args, **kwargs):
        ids = list(ids)
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return real(self, ids, *args, **kwargs)
        finally:
            CALLS.append((_phase[0], threading.current_thread() is threading.main_thread(),
                          len(ids), (time.perf_counter() - wall) * 1000,
                          (time.thread_time() - cpu) * 1000))

    Papers.summaries = summaries
    real_type = ui_bench._type_queries

    def type_queries(*args, **kwargs):
        _phase[0] = "typing"
        try:
            return real_type(*args, **kwargs)
        finally:
            _phase[0] = "other"

    ui_bench._type_queries = type_queries


def summary() -> list[str]:
    """One line per (phase, thread) of the calls recorded so far."""
    lines = []
    for phase in ("typing", "other"):
        for on_ui in (True, False):
            rows = [c for c in CALLS if c[0] == phase and c[1] == on_ui]
            if not rows:
                lines.append(f"{phase:6} {'UI thread' if on_ui else 'other threads':13}: "
                             "no call")
                continue
            lines.append(
                f"{phase:6} {'UI thread' if on_ui else 'other threads':13}: "
                f"{len(rows)} calls, {sum(c[2] for c in rows):,} ids, wall "
                f"{sum(c[3] for c in rows):,.0f} ms (longest {max(c[3] for c in rows):,.0f}),"
                f" CPU {sum(c[4] for c in rows):,.0f} ms (longest "
                f"{max(c[4] for c in rows):,.0f})")
    return lines


def main(argv=None) -> int:
    """Run ui_bench with the wrapper; print the summary to stderr; return its status."""
    _wrap()
    status = ui_bench.main(argv)
    print("lib.papers.summaries calls:", *summary(), sep="\n  ", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
