"""The paper list's view (objectName ``paperTable``): a QTableView that tells the window
when the *user* moved in it.

Automatic mark-read needs to know whether the current row is one the user chose. The
window also puts rows first itself (after a search, a filter change, a list refresh or an
import); those rows are shown but do not count until the user moves into the list
(issue 13, item 2). The view reports the user's moves with :attr:`PaperTableView.userMoved`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QTableView

__all__ = ["PaperTableView", "USER_FOCUS_REASONS"]

#: Focus reasons that mean the user moved the focus into the list: Tab / Shift+Tab, a
#: click, or a shortcut (``focus_list``: Down or Enter in the search box, Esc in an
#: editor). Not a window activation, a closing popup or a widget focused by the program.
USER_FOCUS_REASONS = frozenset({Qt.FocusReason.TabFocusReason,
                                Qt.FocusReason.BacktabFocusReason,
                                Qt.FocusReason.MouseFocusReason,
                                Qt.FocusReason.ShortcutFocusReason})


class PaperTableView(QTableView):
    """The paper list's table view.

    Signals:
        userMoved(): emitted after the user moved in the list or into it: a key press or
            mouse drag that changed the current row, a click on a row (also on the current
            one), or the focus coming in by one of :data:`USER_FOCUS_REASONS`. The row
            current then is the user's choice. Not emitted for rows set by the program
            (``setCurrentIndex`` from code, model resets, sorting).
    """

    userMoved = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """Arrows, PageUp/PageDown, Home/End ... as QTableView has them; then
        :attr:`userMoved` if the current row changed."""
        before = self.currentIndex()
        super().keyPressEvent(event)
        if self.currentIndex() != before:
            self.userMoved.emit()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt)
        """A click on a row makes it current (QTableView) and the user's choice."""
        super().mousePressEvent(event)
        if self.indexAt(event.position().toPoint()).isValid():
            self.userMoved.emit()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt)
        """Dragging over rows selects them; the row under the pointer becomes current."""
        before = self.currentIndex()
        super().mouseMoveEvent(event)
        if self.currentIndex() != before:
            self.userMoved.emit()

    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802 (Qt)
        """The focus came in; :attr:`userMoved` if the user brought it (Tab, a click, a
        shortcut). Coming in without a current row, QTableView makes the first row
        current, which then is the user's too."""
        super().focusInEvent(event)
        if event.reason() in USER_FOCUS_REASONS:
            self.userMoved.emit()
