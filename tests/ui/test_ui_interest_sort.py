"""The list's "Worth Reading First" order (issue 15 item 4) in the window: chosen with
Ctrl+Shift+I, computed on the reader thread, falling back to date order with the reason
in the status bar, the words that moved each paper up in its tooltip, and a header click
leaving it."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QPoint, Qt

from paperdesk.core.discover.evaluation import load_labels
from paperdesk.core.discover.term_table import TERMS_DIR
from paperdesk.ui.panes.paper_model import PaperTableModel
from ui_fixtures import WAIT_MS, held_build, open_seeded, settle, wait_idle, win  # noqa: F401

LABELS = Path(__file__).resolve().parents[1] / "core" / "data" / "seed_topics.json"


def _topics(window) -> dict[int, str]:
    return load_labels(window.lib, json.loads(LABELS.read_text("utf-8")))


def _title_tip(window, row: int) -> str:
    return window.model.index(row, PaperTableModel.TITLE).data(Qt.ItemDataRole.ToolTipRole)


def _interest(qtbot, window) -> None:
    """Ctrl+Shift+I from the list, then wait for the order (and any build) to land."""
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_I,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: not window.discover.discover_runner.is_running()
                    and not window.worker.is_busy(),
                    timeout=WAIT_MS)


def test_worth_reading_first_builds_terms_then_orders_the_list(qtbot, win):
    by_date = win.model.ids()
    topics = _topics(win)
    depth = [p for p in by_date if topics[p] == "depth-estimation"]
    win.lib.papers.set_starred(depth[:6], True)            # what the user kept
    _interest(qtbot, win)
    action = win.actions_by_name["sortInterestAction"]
    assert action.isChecked() and win.model.interest_sort
    assert win.model.headerData(PaperTableModel.TITLE, Qt.Orientation.Horizontal) == \
        "Title  ·  worth reading first"
    qtbot.waitUntil(lambda: win.model.ids() != by_date, timeout=WAIT_MS)
    assert (win.lib.path / TERMS_DIR / "meta.json").is_file()   # built off the UI thread
    ids = win.model.ids()
    assert sorted(ids) == sorted(by_date)
    assert [topics[p] for p in ids[:10]].count("depth-estimation") >= 8
    assert "learned from 6 papers" in win.statusBar().currentMessage()
    tip = _title_tip(win, 10)
    assert "Worth reading first, up: " in tip
    # the selection stays on the paper the user was on (issue 32, item 3; it used to
    # jump to the order's top)
    assert win.current_paper_id() == by_date[0]
    # a header click (Title) sorts by that column and leaves the order
    header = win.table.horizontalHeader()
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(header.sectionViewportPosition(PaperTableModel.TITLE) + 20,
                                header.height() // 2))
    qtbot.waitUntil(lambda: not action.isChecked(), timeout=WAIT_MS)
    assert not win.model.interest_sort and win.model.sort_column == PaperTableModel.TITLE
    assert win.model.headerData(PaperTableModel.TITLE, Qt.Orientation.Horizontal) == "Title"
    assert "Worth reading first" not in (_title_tip(win, 0) or "")


def test_too_few_kept_papers_fall_back_to_date_order(qtbot, win):
    by_date = win.model.ids()
    win.lib.papers.set_starred(by_date[:2], True)
    _interest(qtbot, win)
    qtbot.waitUntil(lambda: "needs at least 5 papers" in win.statusBar().currentMessage(),
                    timeout=WAIT_MS)
    assert win.model.ids() == by_date
    assert "Worth reading first" not in _title_tip(win, 3)
    # Ctrl+Shift+I again: back to date order, unchecked
    qtbot.keyClick(win.table, Qt.Key.Key_I,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not win.actions_by_name["sortInterestAction"].isChecked()
    assert win.model.ids() == by_date


def test_search_sorted_by_interest(qtbot, win):
    topics = _topics(win)
    depth = [p for p in win.model.ids() if topics[p] == "depth-estimation"]
    win.lib.papers.set_starred(depth[:6], True)
    settle(qtbot, win)
    _interest(qtbot, win)
    qtbot.waitUntil(lambda: "learned from" in win.statusBar().currentMessage(),
                    timeout=WAIT_MS)
    win.search_box.setFocus()
    qtbot.keyClicks(win.search_box, "network")
    qtbot.waitUntil(lambda: win.model.searching and win.model.rowCount() > 0,
                    timeout=WAIT_MS)
    wait_idle(qtbot, win)
    assert win.model.search_sort() == ("interest", False)
    expected = win.lib.search.find("network", limit=0, sort="interest").ids.tolist()
    assert win.model.ids() == expected
    assert "Worth reading first, up: " in _title_tip(win, 0)


def test_search_before_the_table_exists_comes_by_date_then_in_order(qtbot, held_build, win):
    gate, _started = held_build         # the reading pane's build waits until released
    topics = _topics(win)
    depth = [p for p in win.model.ids() if topics[p] == "depth-estimation"]
    win.lib.papers.set_starred(depth[:6], True)
    settle(qtbot, win)
    win.search_box.setFocus()
    qtbot.keyClicks(win.search_box, "network")
    qtbot.waitUntil(lambda: win.model.searching and win.model.rowCount() > 0,
                    timeout=WAIT_MS)
    wait_idle(qtbot, win)
    by_date = win.lib.search.find("network", limit=0, sort="added").ids.tolist()
    messages = []
    win.statusBar().messageChanged.connect(messages.append)
    qtbot.keyClick(win.search_box, Qt.Key.Key_I,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    # the search thread answers by date added (the table is not built yet), says why
    qtbot.waitUntil(lambda: any("finding the papers' key terms" in m for m in messages),
                    timeout=WAIT_MS)
    assert any(m.startswith("Worth reading first: the term table must be built")
               for m in messages)
    assert win.model.ids() == by_date
    gate.set()
    qtbot.waitUntil(lambda: "learned from 6 papers" in win.statusBar().currentMessage(),
                    timeout=WAIT_MS)
    expected = win.lib.search.find("network", limit=0, sort="interest").ids.tolist()
    assert expected != by_date and win.model.ids() == expected
