"""Paints the Snippet column with the matched words highlighted.

The cell text stays literal: it is drawn piece by piece with ``QPainter.drawText`` (no
HTML involved), with a coloured background behind the ``(start, end)`` spans the model
gives under :data:`~paperdesk.ui.paper_model.SpansRole`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from .paper_model import SpansRole

__all__ = ["SnippetDelegate", "MATCH_COLOR"]

#: Background of a matched word (same yellow as the detail pane's highlight).
MATCH_COLOR = QColor("#ffe27a")


class SnippetDelegate(QStyledItemDelegate):
    """Item delegate for the Snippet column: literal text, matched words on yellow,
    elided with "…" at the right edge."""

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
                back = QColor(MATCH_COLOR)
                if selected:
                    back.setAlpha(110)
                painter.fillRect(QRectF(x, rect.top() + (rect.height() - fm.height()) / 2,
                                        width, fm.height()), back)
                painter.setPen(pen if selected else QColor("#000000"))
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
