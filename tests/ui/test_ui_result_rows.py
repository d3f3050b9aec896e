"""GUI test: search results are readable at the default window size (issue 32, item 2).

A real 1280x800 window on a copy of the seed library, the query typed key by key. Every
row fully in view is painted by the list's own delegates onto a painter that records
what is drawn (``QPainter.drawText`` calls, in the cell's coordinates); the test then
reads the drawn text as the user would see it, and checks it against the model's cell
(and the snippet the core cuts for the paper)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionViewItem

from paperdesk.ui.panes.paper_model import (SNIPPET_PLACEHOLDER, PaperTableModel, SpansRole,
                                            snippet_window)
from paperdesk.ui.panes.snippet_delegate import snippet_runs
from ui_fixtures import WAIT_MS, open_seeded, type_query, win  # noqa: F401


class RecordingPainter(QPainter):
    """A painter on an image that keeps every ``drawText(QPointF, str)`` call."""

    def __init__(self, image: QImage):
        super().__init__(image)
        self.texts: list[tuple[float, float, str]] = []

    def drawText(self, *args):  # noqa: N802 (Qt)
        if len(args) == 2 and isinstance(args[1], str) and isinstance(args[0], QPointF):
            self.texts.append((args[0].x(), args[0].y(), args[1]))
        return super().drawText(*args)


def _visible_rows(table) -> list[int]:
    """Rows whose whole height is inside the list's viewport."""
    viewport = table.viewport().rect()
    rows = []
    for row in range(table.model().rowCount()):
        rect = table.visualRect(table.model().index(row, PaperTableModel.TITLE))
        if rect.top() >= viewport.top() and rect.bottom() <= viewport.bottom():
            rows.append(row)
        elif rect.top() > viewport.bottom():
            break
    return rows


def _drawn(table, index) -> tuple[str, QRect, list[tuple[float, float, str]]]:
    """Paint ``index`` with the view's delegate as the view would; return the text drawn
    (in reading order: line by line, left to right), the cell's rectangle and the
    recorded calls."""
    option = QStyleOptionViewItem()
    table.initViewItemOption(option)
    option.rect = table.visualRect(index)
    if table.selectionModel().isSelected(index):
        option.state |= QStyle.StateFlag.State_Selected
    image = QImage(table.viewport().size(), QImage.Format.Format_ARGB32)
    painter = RecordingPainter(image)
    table.itemDelegateForIndex(index).paint(painter, option, index)
    painter.end()
    calls = sorted(painter.texts, key=lambda call: (round(call[1]), call[0]))
    return "".join(text for _x, _y, text in calls), QRect(option.rect), calls


def _whole_in_cell(index, rect: QRect, calls) -> bool:
    """Every drawn piece lies inside the cell (nothing is drawn past its right edge, where
    the clip would hide it), measured in the cell's font (bold while unread)."""
    font = index.data(Qt.ItemDataRole.FontRole) or QApplication.font()
    metrics = QFontMetricsF(font)
    return all(x >= rect.left() and x + metrics.horizontalAdvance(text.rstrip())
               <= rect.right() + 1 for x, _y, text in calls)


@pytest.mark.parametrize("query", ["depth estimation", '"depth estimation"', "transformer"])
def test_every_visible_snippet_shows_its_first_match_whole_at_1280x800(qtbot, win, query):
    window, table = win, win.table
    assert (window.width(), window.height()) == (1280, 800)
    type_query(qtbot, window, query)
    model = window.model
    rows = _visible_rows(table)
    assert len(rows) >= 10, rows
    qtbot.waitUntil(lambda: all(model.index(r, PaperTableModel.SNIPPET).data()
                                != SNIPPET_PLACEHOLDER for r in rows), timeout=WAIT_MS)
    assert not table.isColumnHidden(PaperTableModel.SNIPPET)
    # the Snippet's header ("Snippet · best matches first") is read whole: its text,
    # a margin on each side and the room the header keeps for a sort indicator (184 px
    # for this text showed "Snippet · best matches fi")
    header = table.horizontalHeader()
    title = model.headerData(PaperTableModel.SNIPPET, Qt.Orientation.Horizontal)
    style = header.style()
    assert header.sectionSize(PaperTableModel.SNIPPET) >= (
        header.fontMetrics().horizontalAdvance(title)
        + 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        + style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header)), title
    checked = 0
    for row in rows:
        index = model.index(row, PaperTableModel.SNIPPET)
        cell, spans = index.data(), index.data(SpansRole)
        if not spans:
            continue   # the title matched, not the abstract
        first = cell[spans[0][0]:spans[0][1]]
        drawn, rect, calls = _drawn(table, index)
        assert _whole_in_cell(index, rect, calls), (row, calls)
        # what is drawn is a piece of the cell's snippet (after a "… " when the start
        # was cut, before a "…" when the end was): find where it lies in the snippet
        piece = drawn.removesuffix("…")
        if piece not in cell:
            piece = piece.removeprefix("… ")
        at = cell.find(piece)
        assert at >= 0, (row, drawn, cell)
        end = at + len(piece)
        assert at <= spans[0][0] and spans[0][1] <= end, (row, first, drawn)
        # no mark is cut: where the text stops, no mark goes on past it
        assert not any(s < end < e for s, e in spans), (row, drawn, cell)
        checked += 1
    assert checked >= 8, checked


def test_titles_keep_two_lines_while_searching_and_one_line_after(qtbot, win):
    window, table = win, win.table
    type_query(qtbot, window, "depth estimation")
    model = window.model
    rows = _visible_rows(table)
    long_titles, shown = 0, []
    for row in rows:
        index = model.index(row, PaperTableModel.TITLE)
        title = index.data()
        drawn, rect, calls = _drawn(table, index)
        assert _whole_in_cell(index, rect, calls), (row, calls)
        assert len({round(y) for _x, y, _t in calls}) <= 2
        if len(title) > 40:
            long_titles += 1
            # the old single line showed about 21 characters; two lines at least 25
            shown.append(len(drawn.removesuffix("…").rstrip()))
            assert shown[-1] >= 25, (row, drawn)
    assert long_titles >= 5
    # the search cleared: rows are one line again, titles on one line
    window.search_box.selectAll()
    qtbot.keyClick(window.search_box, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: not model.searching, timeout=WAIT_MS)
    QApplication.processEvents()
    one_line = table.visualRect(model.index(0, PaperTableModel.TITLE)).height()
    assert one_line < table.fontMetrics().height() + table.fontMetrics().lineSpacing()
    for row in _visible_rows(table)[:10]:
        _drawn_text, _rect, calls = _drawn(table, model.index(row, PaperTableModel.TITLE))
        assert len({round(y) for _x, y, _t in calls}) == 1


def test_at_any_width_the_first_match_is_whole_and_no_mark_is_cut(win):
    """The layout itself, over every snippet of a real search, at widths from a narrow
    cell to a wide one and one to three lines."""
    lib = win.lib
    ids = [hit.id for hit in lib.search.find("depth estimation", limit=None).hits]
    metrics = QFontMetricsF(QApplication.font())
    snippets = lib.search.snippets("depth estimation", ids)
    cells = [snippet_window(text, tuple(spans)) for text, spans in snippets.values() if spans]
    assert len(cells) >= 20
    for text, spans in cells:
        first_width = metrics.horizontalAdvance(text[spans[0][0]:spans[0][1]])
        for width in range(60, 460, 37):
            for lines in (1, 2, 3):
                runs = snippet_runs(text, spans, metrics, width, lines)
                shown = "".join(run.text for run in runs if not run.cut)
                start = 0 if text.startswith(shown) else text.find(shown.removeprefix("… "))
                assert start >= 0, (text, shown)
                end = start + len(shown.removeprefix("… ") if start else shown)
                outside = [run for run in runs if run.line >= lines or run.x
                           + metrics.horizontalAdvance(run.text.rstrip()) > width + 0.5]
                assert outside == [], (width, lines, outside)
                if first_width + metrics.horizontalAdvance("… ") <= width:
                    assert start <= spans[0][0] and spans[0][1] <= end, (width, lines, shown)
                assert not any(s < end < e for s, e in spans
                               if metrics.horizontalAdvance(text[s:e]) <= width), (shown,)
