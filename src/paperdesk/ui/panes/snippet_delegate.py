"""Paints the Snippet column with the matched words highlighted.

The cell text stays literal: it is drawn piece by piece with ``QPainter.drawText`` (no
HTML involved), marked like search hits in the detail pane (amber background, underlined;
colours from :func:`~paperdesk.ui.style.colours.reading_colours` for the view's palette) behind
the ``(start, end)`` spans the model gives under :data:`~paperdesk.ui.panes.paper_model.SpansRole`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from paperdesk.ui.style.colours import reading_colours
from paperdesk.ui.panes.paper_model import SpansRole

__all__ = ["SnippetDelegate"]


class SnippetDelegate(QStyledItemDelegate):
    """Item delegate for the Snippet column: literal text, matched words marked as search
    hits (amber, underlined), elided with "…" at the right edge."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        """Draw the cell background/selection via the style, then the text segments."""
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        spans = index.data(SpansRole) or ()
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is None:
            return super().paint(painter, option, index)
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        if not text:
            return
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget)
        rect = rect.adjusted(3, 0, -3, 0)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = (QPalette.ColorGroup.Active if opt.state & QStyle.StateFlag.State_Active
                 else QPalette.ColorGroup.Inactive)
        pen = opt.palette.color(group, QPalette.ColorRole.HighlightedText if selected
                                else QPalette.ColorRole.Text)
        fm = opt.fontMetrics
        baseline = rect.top() + (rect.height() - fm.height()) / 2 + fm.ascent()
        x = float(rect.left())
        right = float(rect.right())
        colours = reading_colours(opt.palette)
        hit_back, hit_text = QColor(colours.hit_background), QColor(colours.hit_text)
        painter.save()
        painter.setClipRect(rect)
        painter.setFont(opt.font)
        for segment, matched in _segments(text, spans):
            width = fm.horizontalAdvance(segment)
            if x + width > right:
                segment = fm.elidedText(segment, Qt.TextElideMode.ElideRight, int(right - x))
                width = fm.horizontalAdvance(segment)
                last = True
            else:
                last = False
            if matched and segment:
                back = QColor(hit_back)
                if selected:
                    back.setAlpha(110)
                painter.fillRect(QRectF(x, rect.top() + (rect.height() - fm.height()) / 2,
                                        width, fm.height()), back)
                colour = pen if selected else hit_text
                painter.setPen(colour)
                painter.drawText(QPointF(x, baseline), segment)
                underline = QPen(colour)
                underline.setWidthF(max(1.0, fm.lineWidth()))
                painter.setPen(underline)
                y = baseline + fm.underlinePos()
                painter.drawLine(QPointF(x, y), QPointF(x + width, y))
            else:
                painter.setPen(pen)
                painter.drawText(QPointF(x, baseline), segment)
            x += width
            if last:
                break
        painter.restore()


def _segments(text: str, spans) -> list[tuple[str, bool]]:
    """Split ``text`` into ``(piece, is_match)`` parts following sorted ``spans``."""
    parts = []
    pos = 0
    for start, end in spans:
        if start < pos or end > len(text):
            continue
        if start > pos:
            parts.append((text[pos:start], False))
        parts.append((text[start:end], True))
        pos = end
    if pos < len(text):
        parts.append((text[pos:], False))
    return parts
