"""A layout that places widgets left to right and wraps them onto new lines (Qt's
"Flow Layout" example), used for the tag chips."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

__all__ = ["FlowLayout"]


class FlowLayout(QLayout):
    """Left-to-right layout that wraps; its height follows the width.

    Args:
        parent: the widget to lay out (or ``None``).
        spacing: horizontal and vertical gap between items, in pixels.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = 4):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._gap = spacing
        self.setContentsMargins(QMargins(0, 0, 0, 0))

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt)
        """Qt hook: append an item."""
        self._items.append(item)

    def count(self) -> int:
        """Qt hook: number of items."""
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt)
        """Qt hook: the item at ``index`` or ``None``."""
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt)
        """Qt hook: remove and return the item at ``index``."""
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def insertWidget(self, index: int, widget: QWidget) -> None:  # noqa: N802 (Qt style)
        """Insert ``widget`` at position ``index`` (appends when out of range)."""
        self.addChildWidget(widget)
        from PySide6.QtWidgets import QWidgetItem
        item = QWidgetItem(widget)
        if 0 <= index <= len(self._items):
            self._items.insert(index, item)
        else:
            self._items.append(item)
        self.invalidate()

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 (Qt)
        """Qt hook: the layout does not expand on its own."""
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt)
        """Qt hook: yes, the height depends on the width."""
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt)
        """Qt hook: the height needed at ``width``."""
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt)
        """Qt hook: place the items inside ``rect``."""
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: the preferred size (that of the widest item)."""
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: the smallest size (the widest item's)."""
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Place (``move``) or measure the items line by line; return the height used.

        An item wider than a line (a word-wrapped label) gets the line's width and the
        height it needs at that width; the items of a line are centred vertically."""
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        limit = max(1, area.width())
        y = area.y()
        row: list[tuple[QLayoutItem, QSize]] = []
        row_width = 0

        def close_row() -> int:
            height = max(size.height() for _, size in row)
            if move:
                x = area.x()
                for item, size in row:
                    top = y + (height - size.height()) // 2
                    item.setGeometry(QRect(QPoint(x, top), size))
                    x += size.width() + self._gap
            return height

        for item in self._items:
            if item.isEmpty():
                continue
            hint = item.sizeHint()
            width = min(hint.width(), limit)
            height = item.heightForWidth(width) if item.hasHeightForWidth() else hint.height()
            size = QSize(width, height)
            if row and row_width + self._gap + width > limit:
                y += close_row() + self._gap
                row, row_width = [], 0
            row_width += (self._gap if row else 0) + width
            row.append((item, size))
        if row:
            y += close_row()
        return y - rect.y() + m.bottom()
