"""A word-wrapped plain-text label that asks for its text on one line, for a
:class:`~paperdesk.ui.panes.flow_layout.FlowLayout`: where the line has room it stays on
one line; where it has not, the layout gives it the line's width and it wraps at word
boundaries (a plain ``QLabel`` with word wrap asks for a narrower, guessed width)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["WrappingLabel"]


class WrappingLabel(QLabel):
    """Plain text (never markup), word-wrapped, size hint = its longest line unwrapped.

    Args:
        text: the text.
        parent: the parent widget, or ``None``.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: the text on one line (each of its own lines unwrapped)."""
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        lines = self.text().split("\n") or [""]
        width = max(metrics.horizontalAdvance(line) for line in lines) + 2 \
            + margins.left() + margins.right() + 2 * self.margin()
        return QSize(width, self.heightForWidth(width))
