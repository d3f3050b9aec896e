"""The status bar's one-line progress text (:class:`ProgressLine`): an import's files,
records and time left, ending in "…" when too long, the whole text in its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

from paperdesk.ui.panes.elided_label import ElidedLabel
from paperdesk.ui.style.formatting import tooltip_html

__all__ = ["ProgressLine"]


class ProgressLine(ElidedLabel):
    """The status bar's one-line progress text (an import's files, records and time
    left): as wide as ``hint_width`` when there is room (so that the bar does not jump
    as the text changes), narrower when there is not; a longer text ends in "…". The
    tooltip always holds the whole text, and :meth:`set_detail`'s line under it.

    Args:
        hint_width: the width it asks for, in pixels.
        parent: Qt parent, or ``None``.
    """

    def __init__(self, hint_width: int, parent: QWidget | None = None):
        self._hint_width = hint_width
        self._detail = ""
        super().__init__("", parent)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt)
        """Show ``text`` on one line (its whitespace runs made one space), elided to
        the width; :meth:`text` is what is drawn, :attr:`full_text` the whole."""
        self.set_full_text(" ".join(text.split()))

    def clear(self) -> None:
        """No text and no tooltip."""
        self._detail = ""
        self.set_full_text("")

    def set_detail(self, detail: str) -> None:
        """A second tooltip line under the whole text (e.g. the file's path; ``""``:
        none)."""
        self._detail = detail
        self._fit()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: ``hint_width`` by one line."""
        return QSize(self._hint_width, super().sizeHint().height())

    def _fit(self) -> None:
        super()._fit()
        self.setToolTip(tooltip_html("\n".join(t for t in (self.full_text, self._detail)
                                               if t)))
