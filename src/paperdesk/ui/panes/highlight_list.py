"""The list of a paper's highlights under its abstract (objectName ``highlightList``).

Each row shows the highlight's colour, the highlighted text and its comment. Delete (or
Backspace) or the context menu removes the chosen highlight; double-click or the context
menu edits its comment.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QListWidget, QListWidgetItem, QMenu

from paperdesk.core.text import bidi_visible
from paperdesk.core.models import Highlight
from paperdesk.ui.style.colours import swatch_icon
from paperdesk.ui.style.formatting import tooltip_html

__all__ = ["HighlightList", "HighlightIdRole"]

#: Item data role holding the highlight id.
HighlightIdRole = Qt.ItemDataRole.UserRole + 1
_TEXT_LIMIT = 90


def _shorten(text: str, limit: int = _TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


class HighlightList(QListWidget):
    """Highlights of the shown paper, in abstract order.

    Signals:
        removeRequested(int): remove this highlight id.
        commentRequested(int): edit the comment of this highlight id.
        highlightChosen(int): a row became current (to show the span in the abstract).
    """

    removeRequested = Signal(int)
    commentRequested = Signal(int)
    highlightChosen = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("highlightList")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(False)
        self.setUniformItemSizes(True)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.itemDoubleClicked.connect(lambda item: self.commentRequested.emit(
            item.data(HighlightIdRole)))
        self.currentItemChanged.connect(self._on_current)
        self.setToolTip("Del removes the chosen highlight; double-click edits its comment")
        self.setStyleSheet("QListWidget#highlightList { background: transparent; }"
                           "QListWidget#highlightList::item { padding: 3px 2px; }")
        self._highlights: list[Highlight] = []

    def set_highlights(self, highlights: Sequence[Highlight]) -> None:
        """Show these highlights (replacing the rows).

        Args:
            highlights: ``Paper.highlights``.
        """
        self.blockSignals(True)
        try:
            self.clear()
            self._highlights = list(highlights)
            for h in highlights:
                text = f"“{_shorten(h.text)}”"
                if h.comment:
                    text += f"  — {_shorten(h.comment, 120)}"
                item = QListWidgetItem(swatch_icon(h.colour, 12, False), bidi_visible(text))
                item.setData(HighlightIdRole, h.id)
                tip = h.text + (f"\n\nComment: {h.comment}" if h.comment else "")
                item.setToolTip(tooltip_html(tip))
                self.addItem(item)
        finally:
            self.blockSignals(False)

    def current_highlight(self) -> int | None:
        """Return the id of the chosen row, or ``None``."""
        item = self.currentItem()
        return item.data(HighlightIdRole) if item is not None else None

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """Delete/Backspace removes the chosen highlight."""
        hid = self.current_highlight()
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and hid is not None:
            self.removeRequested.emit(hid)
            event.accept()
            return
        super().keyPressEvent(event)

    @Slot(QPoint)
    def _menu(self, pos: QPoint) -> None:
        item = self.itemAt(pos)
        if item is None:
            return
        hid = item.data(HighlightIdRole)
        menu = QMenu(self)
        menu.addAction("Edit &Comment…", lambda: self.commentRequested.emit(hid))
        menu.addAction("&Remove Highlight", lambda: self.removeRequested.emit(hid))
        menu.exec(self.viewport().mapToGlobal(pos))
        menu.deleteLater()

    @Slot(QListWidgetItem, QListWidgetItem)
    def _on_current(self, current, previous) -> None:
        if current is not None:
            self.highlightChosen.emit(current.data(HighlightIdRole))
