"""Ctrl+A then Del on a search's many hits, twice (a tester's script: 2,133 hits in a
15,011-paper library hung the window for 400 s). The deleted rows left the list one
``rowsRemoved`` at a time, and after each the window counted the selection (a pass over
its rows, through the model) and asked the reader thread for the library's counts: work
per row times the rows, and as many count reads queued as rows. Here a library of a few
thousand papers (the seeds and synthetic abstracts made of their sentences,
``benchmarks/synth.py``); the keys are sent as a user would."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from ui_fixtures import WAIT_MS, make_settings, settle, show_active, wait_idle, wait_shown

from paperdesk.core.library import Library
from paperdesk.ui import create_main_window

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks.synth

from benchmarks.synth import write_synthetic_files  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
#: Synthetic papers beside the 225 seeds.
SYNTHETIC = 2_500
TOTAL = 225 + SYNTHETIC


@pytest.fixture(scope="module")
def _big_template(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("big")
    files = write_synthetic_files(folder / "files", sorted((ROOT / "seeds").glob("*.txt")),
                                  SYNTHETIC)
    path = folder / "lib"
    with Library.open(path) as lib:
        lib.imports.run(sorted((ROOT / "seeds").glob("*.txt")) + files)
        assert lib.papers.count() == TOTAL
    return path


@pytest.fixture
def big_window(qtbot, tmp_path, _big_template):
    path = tmp_path / "lib"
    shutil.copytree(_big_template, path)
    window = create_main_window(path, import_seeds=False,
                                settings=make_settings(tmp_path / "lib.ini"))
    show_active(qtbot, window)
    qtbot.waitUntil(lambda: window.model.complete, timeout=WAIT_MS)
    wait_shown(qtbot, window)
    yield window
    window.close()
    window.shutdown()


def _search(qtbot, window, words: str) -> int:
    window.focus_search()
    qtbot.keyClick(window.search_box, Qt.Key.Key_A, CTRL)
    qtbot.keyClicks(window.search_box, words)
    qtbot.keyClick(window.search_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.model.searching and window.model.complete
                    and window.search.results is not None
                    and window.search.results.query == words
                    and not window.is_busy(), timeout=WAIT_MS)
    return window.model.rowCount()


def _delete_every_hit(qtbot, window, counted: dict) -> list[int]:
    """Ctrl+A, Del in the list; return the ids deleted once the rows are gone."""
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_A, CTRL)
    ids = window.selected_ids()
    assert len(ids) == window.model.rowCount()
    counted.update(counts=0, removals=0, messages=[])
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.rowCount() == 0, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    return ids


def test_deleting_many_hits_twice_removes_their_rows_at_once_and_undo_brings_them_back(
        qtbot, big_window):
    window, lib = big_window, big_window.lib
    counted = {"counts": 0, "removals": 0, "messages": []}
    real_read = window.worker.read

    def read(fn, *args, **kwargs):       # the reads the window asks for, by kind
        if kwargs.get("label") == "counts":
            counted["counts"] += 1
        return real_read(fn, *args, **kwargs)

    window.worker.read = read
    window.model.rowsRemoved.connect(
        lambda *_: counted.__setitem__("removals", counted["removals"] + 1))
    # the status bar's messages, as they are shown (each goes after a few seconds)
    window.statusBar().messageChanged.connect(
        lambda text: text and counted["messages"].append(text))

    first_hits = _search(qtbot, window, "performance")
    assert first_hits > 1000
    first = _delete_every_hit(qtbot, window, counted)
    assert len(first) == first_hits and lib.papers.count() == TOTAL - first_hits
    # the last message says how many went ("2 papers selected" replaced it before)
    assert counted["messages"][-1] == f"Deleted {first_hits:,} papers  —  Ctrl+Z to undo"
    # the rows went together (one removal), and the counts were read a few times, not
    # once per row (2,133 reads queued on the reader thread before)
    assert counted["removals"] == 1
    assert counted["counts"] <= 3

    second_hits = _search(qtbot, window, "width")       # the tester's second run
    assert second_hits > 200
    second = _delete_every_hit(qtbot, window, counted)
    assert not set(first) & set(second)
    assert lib.papers.count() == TOTAL - first_hits - second_hits
    assert counted["messages"][-1] == f"Deleted {second_hits:,} papers  —  Ctrl+Z to undo"
    assert counted["removals"] == 1 and counted["counts"] <= 3
    assert window.status_text().startswith("0 of ")

    # Ctrl+Z: the second search's papers come back, and its rows with them (the search
    # runs again once the index has them); again: the first search's papers too
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.rowCount() == second_hits, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert sorted(window.model.ids()) == sorted(second)
    assert lib.papers.count() == TOTAL - first_hits
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert lib.papers.count() == TOTAL
    assert len(lib.papers.summaries(first)) == first_hits
    assert sorted(lib.search.find("performance", limit=0).ids) == sorted(first)
