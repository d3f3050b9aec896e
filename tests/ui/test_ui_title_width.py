"""GUI test: the Title column stays readable when the Snippet column appears during a
search (issue 13, item 9), and the list's layout comes back when the search is cleared.
A real 1280x800 window on a copy of the seed library, offscreen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from paperdesk.ui.panes.paper_model import PaperTableModel
from ui_fixtures import WAIT_MS, open_seeded, win  # noqa: F401


def test_title_keeps_readable_width_while_searching(qtbot, win):
    table = win.table
    header = table.horizontalHeader()
    title_before = header.sectionSize(PaperTableModel.TITLE)
    win.focus_search()
    qtbot.keyClicks(win.search_box, "model")
    qtbot.waitUntil(lambda: win.model.searching and not win.is_busy()
                    and win._results is not None and win._results.query == "model",
                    timeout=WAIT_MS)
    QApplication.processEvents()
    assert not table.isColumnHidden(PaperTableModel.SNIPPET)
    viewport = table.viewport().width()
    chars = 45 * table.fontMetrics().averageCharWidth()
    readable = min(int(viewport * 0.4), chars, title_before)
    title = header.sectionSize(PaperTableModel.TITLE)
    snippet = header.sectionSize(PaperTableModel.SNIPPET)
    assert title >= readable, (title, viewport, chars)
    assert snippet >= 100, snippet   # the snippet still gets a useful share
    # Every shown column fits: the snippet takes the rest, no horizontal scrolling.
    shown = [c for c in range(header.count()) if not table.isColumnHidden(c)]
    assert sum(header.sectionSize(c) for c in shown) <= viewport + 1
    # Clearing the search hides the snippet and gives the title its old width back.
    win.search_box.selectAll()
    qtbot.keyClick(win.search_box, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: table.isColumnHidden(PaperTableModel.SNIPPET)
                    and not win.model.searching, timeout=WAIT_MS)
    QApplication.processEvents()
    assert abs(header.sectionSize(PaperTableModel.TITLE) - title_before) <= 1
