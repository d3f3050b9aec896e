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
