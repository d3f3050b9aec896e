"""Smoke test of the responsiveness benchmark (``benchmarks/ui_bench.py``) at tiny sizes:
it runs to the end and prints a well-formed report. No timing is asserted (timings belong
to ``make bench``, not to tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks.*


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


@pytest.mark.smoke
def test_ui_bench_runs_at_tiny_sizes_and_reports_numbers(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "ui_bench.py"), "--import-n", "300",
         "--search-n", "300", "--query", "depth", "--workdir", str(tmp_path), "--json"],
        capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert _number(report["load"]["loadavg_1m"]) and report["load"]["nproc"] >= 1

    imp = report["import"]
    assert imp["abstracts"] == 300 and imp["finished"] is True
    assert imp["edits"] >= 1 and isinstance(imp["failed_edits"], int)
    assert _number(imp["import_wall_s"])
    assert imp["rows_listed_after"] == 225 + 300
    assert imp["key_to_shown"]["n"] >= 1
    for key in ("median_ms", "p95_ms", "max_ms"):
        assert _number(imp["key_to_shown"][key])
    assert _number(imp["key_to_committed"]["median_ms"])
    assert _number(imp["heartbeat"]["max_gap_ms"]) and _number(imp["heartbeat"]["p99_gap_ms"])
    for sample in imp["samples"]:
        assert sample["key"] in ("s", "r") and isinstance(sample["paper"], int)

    search = report["search"]
    assert search["papers"] == 300
    assert [row["query"] for row in search["queries"]] == ["depth"]
    row = search["queries"][0]
    assert _number(row["last_key_to_shown_ms"])
    assert _number(row["heartbeat"]["max_gap_ms"])
    assert "match" in row["status"]
    assert _number(search["heartbeat_max_gap_ms"])


@pytest.mark.smoke
def test_ui_bench_window_part_on_an_existing_library_reports_every_measure(tmp_path):
    from benchmarks.search_bench import tag_library
    from paperdesk.core.library import Library

    lib_path = tmp_path / "lib"
    with Library.open(lib_path) as lib:
        lib.imports.run(sorted((ROOT / "seeds").glob("*.txt")))
        tag_library(lib)
        tags_before = {pid: s.tags for pid, s in lib.papers.summaries(lib.papers.ids()).items()}
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "ui_bench.py"), "--library", str(lib_path),
         "--skip-import", "--query", "depth", "--workdir", str(tmp_path), "--json"],
        capture_output=True, text=True, env=env, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    win = json.loads(out.stdout)["window"]
    assert win["papers"] == 225
    assert win["open"]["rows"] == 225 and _number(win["open"]["first_rows_s"])
    assert win["select"]["n"] == 8 and win["select"]["timeouts"] == 0
    assert win["tag_toggle"]["timeouts"] == 0
    assert win["tag_toggle"]["shown"]["n"] == win["tag_toggle"]["count_shown"]["n"] == 8
    pane = win["tag_pane"]
    assert [p["scope"] for p in pane] == ["tag", "all", "tag", "all"]
    assert all(p["rows"] == p["expected_rows"] and _number(p["ms"]) for p in pane)
    assert [q["query"] for q in win["queries"]] == ["depth"]
    assert _number(win["queries"][0]["last_key_to_shown_ms"])
    assert _number(win["heartbeat_max_gap_ms"])
    assert win["memory"]["after_search_mb"] > 50 and win["memory"]["processes"] >= 1
    # each paper's tag was toggled on and off again: the library is as it was
    with Library.open(lib_path, read_only=True) as lib:
        assert {pid: s.tags for pid, s in lib.papers.summaries(lib.papers.ids()).items()} \
            == tags_before


def test_a_stall_says_how_much_of_it_the_ui_thread_ran(qtbot):
    """The bench's heartbeat tells a UI thread that was busy (its own CPU) from one that
    waited (for the interpreter lock, a lock or a core): each stall carries the UI
    thread's CPU time in it, which the bench's reason for a missed target quotes."""
    import time

    from benchmarks.ui_bench import Heartbeat

    beat = Heartbeat(interval_ms=5, stall_ms=40)
    beat.start()
    qtbot.wait(60)
    start = time.thread_time()
    while time.thread_time() - start < 0.12:    # busy: 120 ms of the UI thread's CPU
        pass
    qtbot.wait(60)
    time.sleep(0.15)                            # waiting: no CPU
    qtbot.wait(60)
    stalls = sorted(beat.stop()["stalls"], key=lambda s: s["at_s"])
    assert len(stalls) == 2, stalls
    busy, waited = stalls
    assert busy["gap_ms"] >= 120 and busy["cpu_ms"] >= 115
    assert waited["gap_ms"] >= 150 and waited["cpu_ms"] < 40
