"""The paper list's layout while searching: two-line rows, Title and Snippet sharing the
width.

A search's results are read from the Title and Snippet columns: rows are two lines high
(the title wraps onto its second line, the snippet fills both around its first match,
see :class:`~paperdesk.ui.panes.snippet_delegate.SnippetDelegate`), the Title gets
:data:`TITLE_SHARE_SEARCHING` of the width the other columns leave, between
:data:`TITLE_MIN_CHARS` and :data:`TITLE_CHARS_SEARCHING` average characters per line, and
the Snippet the rest; each column is at least as wide as its header ("Snippet · best
matches first", "Title · worth reading first") when that leaves the Title its minimum.
When the rest would be under :data:`SNIPPET_MIN_CHARS`, the Snippet is left out and the
Title stretches (a narrow list shows whole titles; the reading pane marks the hits).
Listing again gives one-line rows and the Title the whole width back.

The functions act on the list's ``QTableView`` (the model a
:class:`~paperdesk.ui.panes.paper_model.PaperTableModel`); the window's search
controller calls them as results come and go and when the list's width changes.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QStyle, QTableView

from paperdesk.ui.panes.paper_model import PaperTableModel
from paperdesk.ui.style.text_fit import row_height

__all__ = ["show_search_layout", "fit_search_columns", "hide_search_layout",
           "TITLE_SHARE_SEARCHING", "TITLE_CHARS_SEARCHING", "TITLE_MIN_CHARS",
           "SNIPPET_MIN_CHARS", "SEARCH_ROW_LINES"]

#: The Title column's share of the width the other columns leave, while searching.
TITLE_SHARE_SEARCHING = 0.45
#: The Title column's width while searching, in average characters: at most, at least.
TITLE_CHARS_SEARCHING = 45
TITLE_MIN_CHARS = 25
#: Below this many average characters the Snippet column is left out.
SNIPPET_MIN_CHARS = 22
#: Lines of text in a row while searching (one otherwise).
SEARCH_ROW_LINES = 2


def show_search_layout(table: QTableView) -> None:
    """Give ``table`` the searching layout: rows of :data:`SEARCH_ROW_LINES` lines and
    the columns fitted by :func:`fit_search_columns`."""
    table.verticalHeader().setDefaultSectionSize(
        row_height(table.fontMetrics(), SEARCH_ROW_LINES))
    fit_search_columns(table)


def fit_search_columns(table: QTableView) -> None:
    """Share ``table``'s width between Title and Snippet (see the module docstring).
    Both stay resizable by dragging the Title's edge, until the width changes again."""
    header = table.horizontalHeader()
    char = table.fontMetrics().averageCharWidth()
    others = sum(header.sectionSize(c) for c in range(header.count())
                 if c not in (PaperTableModel.TITLE, PaperTableModel.SNIPPET)
                 and not table.isColumnHidden(c))
    free = table.viewport().width() - others
    title = int(min(max(free * TITLE_SHARE_SEARCHING, TITLE_MIN_CHARS * char),
                    TITLE_CHARS_SEARCHING * char))
    if free - title < SNIPPET_MIN_CHARS * char:
        header.setSectionResizeMode(PaperTableModel.SNIPPET, QHeaderView.ResizeMode.Interactive)
        table.setColumnHidden(PaperTableModel.SNIPPET, True)
        header.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        return
    # each header read whole ("Title · worth reading first", "Snippet · best matches
    # first"; only one is long at a time) while the Title keeps its minimum
    title = max(title, _header_width(table, PaperTableModel.TITLE))
    title = max(TITLE_MIN_CHARS * char,
                min(title, free - _header_width(table, PaperTableModel.SNIPPET)))
    header.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Interactive)
    header.resizeSection(PaperTableModel.TITLE, max(title, header.minimumSectionSize()))
    table.setColumnHidden(PaperTableModel.SNIPPET, False)
    header.setSectionResizeMode(PaperTableModel.SNIPPET, QHeaderView.ResizeMode.Stretch)


def hide_search_layout(table: QTableView) -> None:
    """Give ``table`` the listing layout back: one-line rows, the Snippet hidden, the
    Title stretched over the width."""
    table.verticalHeader().setDefaultSectionSize(row_height(table.fontMetrics(), 1))
    header = table.horizontalHeader()
    header.setSectionResizeMode(PaperTableModel.SNIPPET, QHeaderView.ResizeMode.Interactive)
    table.setColumnHidden(PaperTableModel.SNIPPET, True)
    header.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Stretch)


def _header_width(table: QTableView, column: int) -> int:
    """Pixels ``column``'s header needs to be read whole: its text, the margins on both
    sides and room for the sort indicator."""
    header = table.horizontalHeader()
    text = table.model().headerData(column, Qt.Orientation.Horizontal) or ""
    style = header.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    mark = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header)
    return header.fontMetrics().horizontalAdvance(text) + 4 * margin + mark
