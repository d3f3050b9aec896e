"""How long the UI thread is busy when the user moves down the list (issue 28).

    QT_QPA_PLATFORM=offscreen python benchmarks/ui_thread_reads.py --library PATH
        [--presses 20] [--settle-s 60]

Opens the real window (``create_main_window``, preferences in a private INI file) on an
existing library, waits until its list is complete (and up to ``--settle-s`` for the
window to be idle), then presses ``j`` in the list ``--presses`` times. For each press it
records the UI thread's wall and CPU time inside the key press (its handlers run there,
synchronously: a read of the paper on the UI thread shows up here), the time until the
reading pane shows the paper, and how many SQLite statements the main thread ran
meanwhile (a progress handler on every connection, counting its VM steps' callbacks by
thread). Prints one JSON report (medians, maxima, ``uptime`` before and after).

Run it with the sources to measure first on ``PYTHONPATH`` (e.g. an older commit's
``src`` from ``git archive``) to compare two versions on the same library copy.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks.ui_bench as a script
from benchmarks.ui_bench import spin  # noqa: E402
from paperdesk.ui import create_main_window  # noqa: E402
from paperdesk.ui.app.settings import Settings  # noqa: E402


def uptime() -> str:
    """The machine's load averages (``/proc/loadavg``'s first three fields)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def summary(values: list[float]) -> dict:
    """``{"median", "max", "n"}`` of ``values`` (milliseconds), rounded."""
    if not values:
        return {"median": None, "max": None, "n": 0}
    return {"median": round(statistics.median(values), 2), "max": round(max(values), 2),
            "n": len(values)}


def main(argv: list[str] | None = None) -> dict:
    """Run the measurement; print and return the report dict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", required=True, type=Path)
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--settle-s", type=float, default=60.0)
    args = parser.parse_args(argv)

    report: dict = {"load_before": uptime(), "src": str(Path(
        sys.modules["paperdesk"].__file__).parents[1])}
    run_dir = Path(tempfile.mkdtemp(prefix="ui-thread-reads-"))
    settings = Settings(QSettings(str(run_dir / "settings.ini"), QSettings.Format.IniFormat))
    settings.auto_mark_read = False
    window = create_main_window(args.library, import_seeds=False, settings=settings)
    window.resize(1280, 800)
    window.show()
    spin(300, until=lambda: getattr(window.model, "complete", True)
         and window.model.rowCount() > 0)
    report["idle"] = spin(args.settle_s, until=lambda: not window.is_busy()) is not None

    steps = {"main": 0}
    main_thread = threading.main_thread()

    def progress() -> int:
        if threading.current_thread() is main_thread:
            steps["main"] += 1
        return 0

    frozen = gc.get_freeze_count()   # the window set its objects aside (gc.freeze)
    gc.unfreeze()
    for obj in gc.get_objects():
        if isinstance(obj, sqlite3.Connection):
            try:
                obj.set_progress_handler(progress, 100)
            except sqlite3.ProgrammingError:
                pass
    if frozen:
        gc.freeze()

    table = window.table
    window.focus_list()
    window.select_row(0)
    spin(30, until=lambda: window.detail_pane.paper_id == window.model.paper_id(0))
    spin(0.5)
    key_wall, key_cpu, shown, main_steps = [], [], [], []
    for i in range(args.presses):
        want = window.model.paper_id(i + 1)
        before = steps["main"]
        t0, c0 = time.perf_counter(), time.thread_time()
        QTest.keyClick(table, Qt.Key.Key_J)
        t1, c1 = time.perf_counter(), time.thread_time()
        at = spin(30, until=lambda: window.detail_pane.paper_id == want)
        key_wall.append((t1 - t0) * 1000)
        key_cpu.append((c1 - c0) * 1000)
        if at is not None:
            shown.append((at - t0) * 1000)
        main_steps.append(steps["main"] - before)
        spin(0.1)
    report.update({
        "presses": args.presses,
        "key_press_ui_wall_ms": summary(key_wall),
        "key_press_ui_cpu_ms": summary(key_cpu),
        "j_to_shown_ms": summary(shown),
        "timeouts": args.presses - len(shown),
        "main_thread_sqlite_progress_calls_per_press": summary(main_steps),
        "load_after": uptime(),
    })
    window.close()
    window.shutdown()
    shutil.rmtree(run_dir, ignore_errors=True)
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
