"""A one-line plain-text label that ends in "…" when it is too narrow, with the whole
text in its tooltip (for hints that must never be cut mid-letter)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

from paperdesk.ui.style.formatting import tooltip_html

__all__ = ["ElidedLabel"]


class ElidedLabel(QLabel):
    """A label showing ``full_text`` on one line, elided on the right (Qt's
    ``QFontMetrics.elidedText``) to its width; when elided, the tooltip shows it all.

    Args:
        text: the text (plain text, never interpreted as markup).
        parent: the parent widget, or ``None``.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._full = ""
        self.set_full_text(text)

    @property
    def full_text(self) -> str:
        """The whole text (what is shown when there is room)."""
        return self._full

    @property
    def elided(self) -> bool:
        """Whether the shown text is cut short with "…"."""
        return self.text() != self._full

    def set_full_text(self, text: str) -> None:
        """Show ``text`` (elided to the current width)."""
        self._full = text
        self.updateGeometry()
        self._fit()

    def whole_width(self) -> int:
        """The width, px, that shows the whole text on one line (margins included)."""
        margins = self.contentsMargins()
        return (self.fontMetrics().horizontalAdvance(self._full) + margins.left()
                + margins.right() + 2)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: room for the whole text on one line (:meth:`whole_width`)."""
        return QSize(self.whole_width(), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: room for "…" and a few letters; narrower panes elide more."""
        return QSize(self.fontMetrics().horizontalAdvance("Mark…"),
                     super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt)
        """Qt hook: elide again for the new width."""
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight,
                                              max(0, self.contentsRect().width()))
        if shown != self.text():
            super().setText(shown)
        self.setToolTip(tooltip_html(self._full) if shown != self._full else "")
