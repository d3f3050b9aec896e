"""Paints the Snippet column with the matched words highlighted.

The cell text stays literal: it is drawn piece by piece with ``QPainter.drawText`` (no
HTML involved), marked like search hits in the detail pane (amber background, underlined;
colours from :func:`~paperdesk.ui.style.colours.reading_colours` for the view's palette) behind
the ``(start, end)`` spans the model gives under :data:`~paperdesk.ui.panes.paper_model.SpansRole`.

The text fills as many lines as the row holds (two while searching, see
:mod:`paperdesk.ui.panes.search_columns`), broken at spaces, and never cuts a mark
(:func:`~paperdesk.ui.style.text_fit.fit_runs`). When the first mark would not be shown
whole, the text is cut again just before the word holding it ("… " first). The layout
of a cell is computed once per text and width and kept
(:class:`~paperdesk.ui.style.text_fit.LayoutCache`), so scrolling repaints without
measuring again.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from paperdesk.ui.style.colours import reading_colours
from paperdesk.ui.style.text_fit import LayoutCache, Run, drawn_runs, fit_runs, lines_in_row
from paperdesk.ui.panes.list_cells import cell_of, cell_option, display_text

__all__ = ["SnippetDelegate", "snippet_runs"]


def snippet_runs(text: str, spans: Sequence[tuple[int, int]], metrics: QFontMetricsF,
                 width: float, max_lines: int) -> tuple[Run, ...]:
    """Lay a snippet out in a cell with its first mark shown whole.

    Args:
        text: the snippet as the cell shows it (plain text).
        spans: sorted ``(start, end)`` offsets of its marks.
        metrics: the cell font's metrics.
        width: the text area's width in pixels.
        max_lines: the lines the row holds.
    Returns:
        The runs of :func:`~paperdesk.ui.style.text_fit.fit_runs`; when the first mark
        did not fit, those of the text cut before the word holding it (starting with
        "… "). A first mark wider than the whole cell is the one case it is cut.
    """
    runs = fit_runs(text, spans, metrics, width, max_lines)
    if not spans or _shown_chars(runs) >= spans[0][1]:
        return runs
    cut = text.rfind(" ", 0, spans[0][0]) + 1
    if cut <= 0:
        return runs
    prefix = "… "
    shift = len(prefix) - cut
    return fit_runs(prefix + text[cut:], [(s + shift, e + shift) for s, e in spans
                                         if s >= cut], metrics, width, max_lines)


def _shown_chars(runs: Sequence[Run]) -> int:
    """How many characters of the text ``runs`` show whole (before any cut)."""
    return sum(len(run.text) for run in runs if not run.cut)


class SnippetDelegate(QStyledItemDelegate):
    """Item delegate for the Snippet column: literal text over the row's lines, matched
    words marked as search hits (amber, underlined), never cut (see the module
    docstring)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._layouts = LayoutCache()

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        """Draw the cell background/selection via the style, then the text runs."""
        cell = cell_of(index)      # one call for the whole cell (see list_cells)
        opt = cell_option(option, index, cell, with_text=False)
        text = display_text(cell.text)
        spans = tuple(cell.spans or ())
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is None:
            return super().paint(painter, option, index)
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        if not text:
            return
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        rect = rect.adjusted(3, 0, -3, 0)
        lines = lines_in_row(widget.fontMetrics(), option.rect.height())
        runs = self.layout(text, spans, opt.font, rect.width(), lines)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (QPalette.ColorGroup.Active if opt.state & QStyle.StateFlag.State_Active
                 else QPalette.ColorGroup.Inactive)
        pen = opt.palette.color(group, QPalette.ColorRole.HighlightedText if selected
                                else QPalette.ColorRole.Text)
        fm = opt.fontMetrics
        spacing = fm.lineSpacing()
        top = rect.top() + (rect.height() - (lines - 1) * spacing - fm.height()) / 2
        colours = reading_colours(opt.palette)
        hit_back, hit_text = QColor(colours.hit_background), QColor(colours.hit_text)
        if selected:
            hit_back.setAlpha(110)
        painter.save()
        painter.setClipRect(rect)
        painter.setFont(opt.font)
        for run in runs:
            x = rect.left() + run.x
            line_top = top + run.line * spacing
            baseline = line_top + fm.ascent()
            if not run.marked:
                painter.setPen(pen)
                painter.drawText(QPointF(x, baseline), run.text)
                continue
            ink = run.text.rstrip()
            width = fm.horizontalAdvance(ink)
            painter.fillRect(QRectF(x, line_top, width, fm.height()), hit_back)
            colour = pen if selected else hit_text
            painter.setPen(colour)
            painter.drawText(QPointF(x, baseline), run.text)
            underline = QPen(colour)
            underline.setWidthF(max(1.0, fm.lineWidth()))
            painter.setPen(underline)
            y = baseline + fm.underlinePos()
            painter.drawLine(QPointF(x, y), QPointF(x + width, y))
        painter.restore()

    def layout(self, text: str, spans: tuple[tuple[int, int], ...], font, width: int,
               lines: int) -> tuple[Run, ...]:
        """The runs of :func:`snippet_runs` for a cell (``width`` pixels, ``lines``
        lines, in ``font``), joined where they are drawn as one
        (:func:`~paperdesk.ui.style.text_fit.drawn_runs`), computed once and kept."""
        return self._layouts.get((text, spans, font.key(), width, lines), lambda: drawn_runs(
            snippet_runs(text, spans, QFontMetricsF(font), width, lines)))
