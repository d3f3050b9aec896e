"""Issue 32, item 3: after a change of the list (a search, clearing it, another filter,
"worth reading first") the selection stays on the paper the user was on when it is still
listed, else on the nearest one, scrolled into view; the change marks no paper read.

Keys go to the focused widget as a user's would; what is read is asked of the library."""

from __future__ import annotations

import json
import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from paperdesk.core.discover.evaluation import load_labels  # noqa: E402
from paperdesk.core.scope import Scope  # noqa: E402
from test_ui_read_focus import DELAY_MS, pass_the_delay, read_ids  # noqa: E402
from ui_fixtures import (WAIT_MS, open_seeded, press, settle, wait_idle,  # noqa: F401,E402
                         wait_shown)

LABELS = Path(__file__).resolve().parents[1] / "core" / "data" / "seed_topics.json"


def in_view(window) -> bool:
    """The current row lies wholly inside the list's viewport."""
    rect = window.table.visualRect(window.table.currentIndex())
    return window.table.viewport().rect().contains(rect)


def move_to_row(qtbot, window, row: int) -> int:
    """Press Down in the list until ``row`` is current; wait until its paper is read
    (the user read it). Returns its id."""
    assert QApplication.focusWidget() is window.table
    while window.table.currentIndex().row() < row:
        press(qtbot, window, Qt.Key.Key_Down)
    pid = window.current_paper_id()
    qtbot.waitUntil(lambda: window.lib.papers.get(pid).read, timeout=WAIT_MS)
    settle(qtbot, window)
    return pid


def test_clearing_a_search_keeps_the_paper_and_marks_nothing_read(qtbot, open_seeded):
    window = open_seeded(auto_mark_read=True, delay_ms=DELAY_MS)
    wait_idle(qtbot, window)
    chosen = move_to_row(qtbot, window, 13)            # the 14th paper, as in the issue
    query = "depth estimation"
    assert chosen not in window.lib.search.find(query, limit=0).ids.tolist()
    before = read_ids(window)

    press(qtbot, window, Qt.Key.Key_Slash)
    qtbot.keyClicks(window.search_box, query)
    qtbot.waitUntil(lambda: window.model.searching and window.model.rowCount() > 0
                    and not window.is_busy(), timeout=WAIT_MS)
    assert window.current_paper_id() != chosen          # not a hit: the top hit is shown
    pass_the_delay(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Escape)             # clears the search
    qtbot.waitUntil(lambda: not window.model.searching, timeout=WAIT_MS)
    assert window.current_paper_id() == chosen          # back on the 14th paper
    assert window.table.currentIndex().row() == 13 and in_view(window)
    wait_shown(qtbot, window, chosen)                   # read on the reader thread
    press(qtbot, window, Qt.Key.Key_Escape)             # and into the list
    assert QApplication.focusWidget() is window.table
    assert window.current_paper_id() == chosen
    pass_the_delay(qtbot, window)
    assert read_ids(window) == before                   # the top hit was not marked read


def test_a_filter_keeps_the_nearest_paper_in_view(qtbot, open_seeded):
    window = open_seeded(auto_mark_read=True, delay_ms=DELAY_MS)
    wait_idle(qtbot, window)
    qtbot.keyClick(window.table, Qt.Key.Key_End,        # the last paper, far down the list
                   Qt.KeyboardModifier.ControlModifier)
    ids = window.model.ids()
    chosen = window.current_paper_id()
    assert chosen == ids[-1]
    qtbot.waitUntil(lambda: window.lib.papers.get(chosen).read, timeout=WAIT_MS)
    settle(qtbot, window)
    before = read_ids(window)
    # the nearest paper the Unread filter keeps: none after the last, so the one before
    nearest = next(pid for pid in reversed(ids) if pid not in before)

    for _ in range(12):                                 # Shift+Tab into the sidebar
        if QApplication.focusWidget() is window.tag_pane:
            break
        press(qtbot, window, Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is window.tag_pane
    press(qtbot, window, Qt.Key.Key_Down)               # All papers -> Unread
    assert window.current_scope() == Scope(filter="unread")
    wait_idle(qtbot, window)
    assert window.current_paper_id() == nearest
    assert window.table.currentIndex().row() == window.model.rowCount() - 1
    assert in_view(window)
    pass_the_delay(qtbot, window)
    assert read_ids(window) == before                   # the change read nothing


def test_worth_reading_first_keeps_the_paper_in_view(qtbot, open_seeded):
    window = open_seeded(auto_mark_read=True, delay_ms=DELAY_MS)
    wait_idle(qtbot, window)
    by_date = window.model.ids()
    topics = load_labels(window.lib, json.loads(LABELS.read_text("utf-8")))
    depth = [p for p in by_date if topics[p] == "depth-estimation"]
    window.lib.papers.set_starred(depth[:6], True)      # what the user kept
    chosen = move_to_row(qtbot, window, 40)
    before = read_ids(window)

    qtbot.keyClick(window.table, Qt.Key.Key_I,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.model.ids() != by_date, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert window.model.interest_sort
    assert window.current_paper_id() == chosen          # not the order's top
    assert window.table.currentIndex().row() == window.model.row_of(chosen) != 40
    assert in_view(window)
    pass_the_delay(qtbot, window)
    assert read_ids(window) == before


def test_the_nearest_listed_paper_is_the_same_from_arrays_and_lists():
    """``nearest_listed`` takes the model's int64 arrays as they are (no copy of a
    million ids) and gives what it gives for lists."""
    import numpy as np

    from paperdesk.ui.window.kept_paper import nearest_listed

    before = [5, 9, 2, 7, 11, 3]
    cases = [(7, [5, 9, 2, 11, 3]), (7, [5, 9, 2]), (7, [11]), (4, [5]), (7, [7, 1]),
             (None, [5]), (3, [1, 2])]
    for pid, listed in cases:
        want = nearest_listed(before, pid, listed)
        got = nearest_listed(np.array(before, dtype=np.int64), pid,
                             np.array(listed, dtype=np.int64))
        assert got == want, (pid, listed)
    assert [nearest_listed(before, pid, listed) for pid, listed in cases] == \
        [11, 2, 11, None, 7, None, 2]
