"""Paints the Title column: star, title (bold while unread; muted while the paper is
excluded from the tag being screened) and the paper's tag chips.

Chips are right-aligned in the cell, each a rounded rectangle in the tag's colour with
black or white text (whichever contrasts more); the title is elided to fit the space
left. In a row of two lines (while searching, see
:mod:`paperdesk.ui.panes.search_columns`) the title wraps onto the second line, where
the chips are, before it is elided (:func:`~paperdesk.ui.style.text_fit.fit_runs`, kept
per title and width). The text is drawn with ``QPainter.drawText``, so it stays literal.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from paperdesk.ui.style.colours import reading_colours, text_colour_for
from paperdesk.ui.style.text_fit import LayoutCache, Run, drawn_runs, fit_runs, lines_in_row
from paperdesk.ui.panes.list_cells import cell_of, cell_option, display_text

__all__ = ["TitleDelegate", "chip_widths"]

#: Horizontal padding inside a chip, and the gap between chips, in pixels.
CHIP_PAD = 5
CHIP_GAP = 4
#: Widest a single chip may be, and the share of the cell the chips may take.
CHIP_MAX = 110
CHIPS_SHARE = 0.45
#: The share of a two-line row's last line the chips may take (the title has the first).
CHIPS_SHARE_LAST_LINE = 0.65


def chip_widths(names, metrics: QFontMetrics,
                available: float) -> tuple[list[tuple[int, str, float]], int]:
    """Lay out chips from the right within ``available`` pixels.

    Args:
        names: tag names in display order.
        metrics: the chip font's metrics.
        available: the width the chips may use.
    Returns:
        ``(chips, hidden)``: ``[(position in names, label, width), ...]`` for the chips
        that fit (labels elided to :data:`CHIP_MAX`), and how many did not fit.
    """
    out: list[tuple[int, str, float]] = []
    used = 0.0
    names = list(names)
    for i, name in enumerate(names):
        label = metrics.elidedText(name, Qt.TextElideMode.ElideRight, CHIP_MAX - 2 * CHIP_PAD)
        width = metrics.horizontalAdvance(label) + 2 * CHIP_PAD
        rest = len(names) - i - 1
        more = (metrics.horizontalAdvance(f"+{rest}") + 2 * CHIP_PAD + CHIP_GAP) if rest else 0
        if used + width + more > available:
            return out, len(names) - i
        out.append((i, label, width))
        used += width + CHIP_GAP
    return out, 0


class TitleDelegate(QStyledItemDelegate):
    """Item delegate for the Title column (see the module docstring)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._wrapped = LayoutCache()
        # a title elided to a width, and the chips laid out in one: kept, as a
        # search's rows are painted twice (first the best hits, then with snippets)
        # and again on every scroll, selection and tag toggle
        self._elided = LayoutCache()
        self._chips = LayoutCache()

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        """Draw background, selection and star via the style, then title and chips."""
        cell = cell_of(index)      # one call for the whole cell (see list_cells)
        opt = cell_option(option, index, cell, with_text=False)
        text = display_text(cell.text)
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is None:
            return super().paint(painter, option, index)
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = QRectF(style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget))
        rect.adjust(3, 0, -4, 0)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (QPalette.ColorGroup.Active if opt.state & QStyle.StateFlag.State_Active
                 else QPalette.ColorGroup.Inactive)
        pen = opt.palette.color(group, QPalette.ColorRole.HighlightedText if selected
                                else QPalette.ColorRole.Text)
        if not selected and cell.excluded:   # excluded from the tag screened
            pen = QColor(reading_colours(opt.palette).muted)
        painter.save()
        painter.setClipRect(rect)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = QFontMetrics(opt.font)
        lines = lines_in_row(widget.fontMetrics(), option.rect.height())
        spacing = fm.lineSpacing()
        # the chips sit at the end of the last line (the only one when rows are one line)
        top = rect.top() + (rect.height() - (lines - 1) * spacing - fm.height()) / 2
        chips_band = QRectF(rect.left(), top + (lines - 1) * spacing, rect.width(),
                            fm.height()) if lines > 1 else rect
        right = rect.right()
        tags = cell.tags or ()
        if tags:
            more_colour = pen if selected else QColor(reading_colours(opt.palette).muted)
            right = self._paint_chips(painter, chips_band, tags, opt.font, more_colour,
                                      CHIPS_SHARE if lines == 1 else CHIPS_SHARE_LAST_LINE) - 6
        painter.setFont(opt.font)
        painter.setPen(pen)
        width = max(0, int(right - rect.left()))
        if lines == 1:
            shown = self._elided.get((text, opt.font.key(), width), lambda: fm.elidedText(
                text or "", Qt.TextElideMode.ElideRight, width))
            baseline = rect.top() + (rect.height() - fm.height()) / 2 + fm.ascent()
            painter.drawText(QPointF(rect.left(), baseline), shown)
        else:
            for run in self.wrapped(text or "", opt.font, int(rect.width()), lines, width):
                painter.drawText(QPointF(rect.left() + run.x,
                                         top + fm.ascent() + run.line * spacing), run.text)
        painter.restore()

    def wrapped(self, title: str, font: QFont, width: int, lines: int,
                last_width: int) -> tuple[Run, ...]:
        """``title`` laid out on ``lines`` lines of ``width`` pixels in ``font``, the last
        one ``last_width`` (left of the chips), as runs of
        :func:`~paperdesk.ui.style.text_fit.fit_runs`, computed once and kept."""
        return self._wrapped.get((title, font.key(), width, lines, last_width),
                                 lambda: drawn_runs(fit_runs(title, (), QFontMetricsF(font),
                                                             width, lines, last_width)))

    def _paint_chips(self, painter: QPainter, rect: QRectF, tags, base: QFont,
                     more_colour: QColor, share: float) -> float:
        """Draw chips right-aligned in ``rect``, in at most ``share`` of its width;
        return the x where they start."""
        font = QFont(base)
        font.setBold(False)
        font.setPointSizeF(max(6.0, base.pointSizeF() * 0.85))
        fm = QFontMetrics(font)
        names = tuple(n for n, _c in tags)
        available = rect.width() * share
        chips, hidden = self._chips.get((names, font.key(), available),
                                        lambda: chip_widths(names, fm, available))
        height = fm.height() + 2
        top = rect.top() + (rect.height() - height) / 2
        total = sum(w for _i, _l, w in chips) + CHIP_GAP * max(0, len(chips) - 1)
        more = f"+{hidden}" if hidden else ""
        if more:
            total += fm.horizontalAdvance(more) + CHIP_GAP + 2
        x = rect.right() - total
        start = x
        painter.setFont(font)
        for i, label, width in chips:
            colour = tags[i][1]
            box = QRectF(x, top, width, height)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colour))
            painter.drawRoundedRect(box, 4, 4)
            painter.setPen(QColor(text_colour_for(colour)))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, label)
            x += width + CHIP_GAP
        if more:
            painter.setPen(more_colour)
            painter.drawText(QRectF(x, top, rect.right() - x, height),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, more)
        return start
