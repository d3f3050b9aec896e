"""The window's status bar: a temporary message too long for one line wraps onto a
second (and third) line instead of being cut mid-word at the window's edge."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QStatusBar, QWidget

__all__ = ["WrappingStatusBar", "MAX_MESSAGE_LINES"]

#: A message longer than this many lines at the bar's width ends in "…" on the last.
MAX_MESSAGE_LINES = 3
_MARGIN = 6


class WrappingStatusBar(QStatusBar):
    """A ``QStatusBar`` whose temporary messages (``showMessage``) wrap at word
    boundaries in the room left of the permanent widgets; the bar grows for such a
    message and shrinks back when it goes. Messages are plain text.

    Args:
        parent: the window, or ``None``.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._permanent: list[QWidget] = []
        self.messageChanged.connect(lambda _text: self._fit())

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802
        """Qt hook: as ``QStatusBar.addPermanentWidget``; remembered so that messages
        wrap in the room left of them."""
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def message_rect(self) -> QRect:
        """Where a temporary message is drawn: from the left edge to the first shown
        permanent widget, in this widget's coordinates."""
        right = self.width()
        for widget in self._permanent:
            if widget.isVisible():
                right = min(right, widget.geometry().left())
        return QRect(_MARGIN, 0, max(10, right - 2 * _MARGIN), self.height())

    def message_lines(self) -> int:
        """How many lines the current message takes at the bar's width (0: none)."""
        text = self.currentMessage()
        if not text:
            return 0
        rect = self.message_rect()
        need = self.fontMetrics().boundingRect(
            QRect(0, 0, rect.width(), 10000), int(Qt.TextFlag.TextWordWrap), text).height()
        return max(1, -(-need // self.fontMetrics().lineSpacing()))

    def _fit(self) -> None:
        lines = min(self.message_lines(), MAX_MESSAGE_LINES)
        if lines > 1:
            self.setMinimumHeight(lines * self.fontMetrics().lineSpacing() + 6)
        else:
            self.setMinimumHeight(0)
        self.update()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt)
        """Qt hook: a new width may need more or fewer lines."""
        super().resizeEvent(event)
        if self.currentMessage():
            self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt)
        """Qt hook: a message that fits on one line is drawn by Qt; a longer one is
        drawn here, wrapped (the last allowed line elided)."""
        if self.message_lines() <= 1:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        rect = self.message_rect()
        text = self.currentMessage()
        metrics = self.fontMetrics()
        box = QRect(0, 0, rect.width(), 10000)
        if metrics.boundingRect(box, int(Qt.TextFlag.TextWordWrap), text).height() \
                > MAX_MESSAGE_LINES * metrics.lineSpacing():
            words = text.split()
            while words and metrics.boundingRect(
                    box, int(Qt.TextFlag.TextWordWrap), " ".join(words) + "…").height() \
                    > MAX_MESSAGE_LINES * metrics.lineSpacing():
                words.pop()
            text = " ".join(words) + "…"
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
                                   | Qt.TextFlag.TextWordWrap), text)
        painter.end()
