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
from PySide6.QtCore import QCoreApplication, Qt
from ui_fixtures import (WAIT_MS, make_settings, open_seeded, settle, show_active,  # noqa: F401
                         wait_idle, wait_shown, win)

from paperdesk.core.library import Library
from paperdesk.ui import create_main_window
from paperdesk.ui.panes.paper_model import PaperTableModel

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks.synth

from benchmarks.synth import write_synthetic_files  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier
#: Synthetic papers beside the 225 seeds.
SYNTHETIC = 2_500
TOTAL = 225 + SYNTHETIC
#: How long a step on the larger library may take before the test gives up (not a
#: speed target: the machine running the tests may be busy).
BIG_WAIT_MS = 120_000


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
    qtbot.waitUntil(lambda: window.model.complete, timeout=BIG_WAIT_MS)
    wait_shown(qtbot, window)
    yield window
    window.close()
    window.shutdown()


def _search(qtbot, window, words: str) -> int:
    window.focus_search()
    qtbot.keyClick(window.search_box, Qt.Key.Key_A, CTRL)
    qtbot.keyClicks(window.search_box, words)
    qtbot.keyClick(window.search_box, Qt.Key.Key_Return)
    _wait_search(qtbot, window, words)
    return window.model.rowCount()


def _wait_search(qtbot, window, words: str) -> None:
    qtbot.waitUntil(lambda: window.model.searching and window.model.complete
                    and window.search.results is not None
                    and window.search.results.query == words
                    and not window.is_busy(), timeout=BIG_WAIT_MS)


def _settle(qtbot, window) -> None:
    """:func:`settle`, then :func:`wait_idle`, waiting up to :data:`BIG_WAIT_MS`."""
    qtbot.waitUntil(lambda: not window.worker.is_busy(), timeout=BIG_WAIT_MS)
    QCoreApplication.processEvents()
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=BIG_WAIT_MS)


def _count_reads_and_removals(window) -> dict:
    """Count, from now on, the counts reads the window asks of the reader thread, the
    list's ``rowsRemoved`` and the status bar's messages as they are shown."""
    counted = {"counts": 0, "removals": 0, "messages": []}
    real_read = window.worker.read

    def read(fn, *args, **kwargs):
        if kwargs.get("label") == "counts":
            counted["counts"] += 1
        return real_read(fn, *args, **kwargs)

    window.worker.read = read
    window.model.rowsRemoved.connect(
        lambda *_: counted.__setitem__("removals", counted["removals"] + 1))
    # (each message goes after a few seconds)
    window.statusBar().messageChanged.connect(
        lambda text: text and counted["messages"].append(text))
    return counted


def _delete_every_hit(qtbot, window, counted: dict) -> list[int]:
    """Ctrl+A, Del in the list; return the ids deleted once the rows are gone."""
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_A, CTRL)
    ids = window.selected_ids()
    assert len(ids) == window.model.rowCount()
    counted.update(counts=0, removals=0, messages=[])
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: window.model.rowCount() == 0, timeout=BIG_WAIT_MS)
    _settle(qtbot, window)
    return ids


def test_deleting_many_hits_twice_removes_their_rows_at_once_and_undo_brings_them_back(
        qtbot, big_window):
    window, lib = big_window, big_window.lib
    counted = _count_reads_and_removals(window)

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
    qtbot.waitUntil(lambda: window.model.rowCount() == second_hits, timeout=BIG_WAIT_MS)
    _settle(qtbot, window)
    assert sorted(window.model.ids()) == sorted(second)
    assert lib.papers.count() == TOTAL - first_hits
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(lambda: lib.papers.count() == TOTAL, timeout=BIG_WAIT_MS)
    _settle(qtbot, window)
    assert lib.papers.count() == TOTAL
    assert len(lib.papers.summaries(first)) == first_hits
    assert sorted(lib.search.find("performance", limit=0).ids) == sorted(first)


def test_removing_a_file_while_searching_drops_its_scattered_rows_together(qtbot, win):
    """Remove Imported File while the list shows a search's hits: the file's papers are
    scattered among them, so their rows go in runs (one removal each), and the window
    counts the selection and the papers once, not once per run."""
    window, lib = win, win.lib
    wait_idle(qtbot, window)
    hits = _search(qtbot, window, "st*")
    # by title (a header click): the two files' papers are interleaved
    window.model.sort(PaperTableModel.TITLE, Qt.SortOrder.AscendingOrder)
    _wait_search(qtbot, window, "st*")
    assert window.model.rowCount() == hits
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_A, CTRL)
    listed = window.model.ids()
    first = lib.removal.sources()[0]
    gone = set(lib.removal.plan(first.id).deleted)
    runs = sum(1 for i, pid in enumerate(listed)
               if pid in gone and (i == 0 or listed[i - 1] not in gone))
    assert runs > 10 and hits > len(gone & set(listed))
    counted = _count_reads_and_removals(window)
    window.removal.prompt_remove_file(first.id)
    qtbot.waitUntil(lambda: window.removal.remove_file_dialog is not None
                    and window.removal.remove_file_dialog.isVisible(), timeout=WAIT_MS)
    qtbot.keyClick(window.removal.remove_file_dialog.list, Qt.Key.Key_Return)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.rowCount() == hits - len(gone & set(listed)),
                    timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert window.model.ids() == [pid for pid in listed if pid not in gone]
    assert counted["removals"] == runs
    assert counted["counts"] <= 5          # (once per removed row before: about 100)
    assert counted["messages"][-1].startswith(f"Removed “{first.name}” and ")
