"""The programs' entry points (:mod:`paperdesk.launch`): a Ctrl+C while Python loads
paperdesk's modules exits 130 with one line, no traceback (found by the tester: a Ctrl+C
in a command's first second printed an import-time traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
ENTRY_POINTS = {**_SCRIPTS["scripts"], **_SCRIPTS["gui-scripts"]}
ENTRY_POINTS.pop("paperdesk-evaluate")      # an evaluation tool, not the app

# A Ctrl+C arriving while paperdesk.cli's own imports run: an import hook raises
# KeyboardInterrupt when paperdesk.cli_screen (imported by paperdesk.cli) is loaded, then
# the entry point is called as the generated console script calls it.
_PROGRAM = """
import importlib.abc, sys
class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "paperdesk.cli_screen":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Interrupt())
module, _, function = sys.argv[1].partition(":")
sys.argv[1:] = ["--version"]
entry = getattr(__import__(module, fromlist=[function]), function)
sys.exit(entry())
"""


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_ctrl_c_while_the_modules_load_exits_130_without_a_traceback(name, tmp_path):
    done = subprocess.run([sys.executable, "-c", _PROGRAM, ENTRY_POINTS[name]],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert (done.returncode, done.stderr) == (130, "paperdesk: interrupted\n"), done.stderr


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_the_entry_points_run_the_command_line(name):
    done = subprocess.run([sys.executable, "-c",
                           _PROGRAM.replace('"paperdesk.cli_screen"', '"no.such.module"'),
                           ENTRY_POINTS[name]],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0 and done.stdout.startswith("paperdesk "), done.stderr
