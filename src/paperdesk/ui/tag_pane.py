"""The left-hand pane: "All papers" and one entry per imported source file."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QFrame, QTreeWidget, QTreeWidgetItem, QWidget

from ..core.models import Source
from .formatting import local_datetime, tooltip_html

__all__ = ["TagPane", "SourceIdRole", "CountRole"]

#: Item data role: the entry's source id (``None`` for "All papers").
SourceIdRole = Qt.ItemDataRole.UserRole + 1
#: Item data role: the entry's paper count.
CountRole = Qt.ItemDataRole.UserRole + 2


class TagPane(QTreeWidget):
    """Scope chooser (objectName ``tagPane``): "All papers (N)" and "Files" with one
    entry per source, ``"<file name> (<papers>)"``; long names are elided in the middle.

    Signals:
        sourceChosen(object): the chosen source id, or ``None`` for all papers. Emitted
            when the user changes the current entry (mouse or keyboard), and by
            :meth:`refresh` only if the chosen source no longer exists.
    """

    sourceChosen = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagPane")
        self.setHeaderHidden(True)
        self.setColumnCount(1)
        self.setRootIsDecorated(False)
        self.setIndentation(14)
        self.setUniformRowHeights(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # A sidebar: window-coloured background, roomier rows, a little space on top.
        self.setStyleSheet(
            "QTreeWidget#tagPane { background: palette(window); padding-top: 8px; }"
            "QTreeWidget#tagPane::item { padding: 4px 2px; }")
        self._all = QTreeWidgetItem(self)
        self._all.setData(0, SourceIdRole, None)
        self._files = QTreeWidgetItem(self, ["Files"])
        self._files.setFlags(Qt.ItemFlag.ItemIsEnabled)
        font = QFont(self.font())
        font.setBold(True)
        self._files.setFont(0, font)
        self._files.setForeground(0, self.palette().placeholderText())
        self._files.setExpanded(True)
        self._files.setHidden(True)
        self.refresh(0, [])
        self.setCurrentItem(self._all)
        self.currentItemChanged.connect(self._on_current_changed)

    def refresh(self, total: int, sources: Sequence[Source]) -> None:
        """Rebuild the entries with fresh counts, keeping the current choice if it exists.

        Args:
            total: number of papers in the library.
            sources: from ``Library.sources()``.
        """
        chosen = self.current_source()
        self.blockSignals(True)
        try:
            self._all.setText(0, f"All papers ({total})")
            self._all.setData(0, CountRole, total)
            self._all.setToolTip(0, "Every paper in the library")
            self._files.takeChildren()
            for src in sources:
                item = QTreeWidgetItem(self._files, [f"{src.name} ({src.papers})"])
                item.setData(0, SourceIdRole, src.id)
                item.setData(0, CountRole, src.papers)
                item.setToolTip(0, tooltip_html(
                    f"{src.path}\n“{src.header}” — {src.papers} papers, "
                    f"imported {local_datetime(src.imported_at)}"))
            self._files.setHidden(not sources)
            self._files.setExpanded(True)
            if not self.select_source(chosen, notify=False):
                self.setCurrentItem(self._all)
        finally:
            self.blockSignals(False)
        if chosen != self.current_source():
            self.sourceChosen.emit(self.current_source())

    def current_source(self) -> int | None:
        """Return the chosen source id, or ``None`` for all papers."""
        item = self.currentItem()
        return None if item is None else item.data(0, SourceIdRole)

    def select_source(self, source_id: int | None, notify: bool = True) -> bool:
        """Make the entry for ``source_id`` current (``None``: "All papers").

        Args:
            source_id: the source to choose.
            notify: emit ``sourceChosen`` if the choice changed.
        Returns:
            False if there is no entry for that source.
        """
        item = self._item_for(source_id)
        if item is None:
            return False
        if not notify:
            self.blockSignals(True)
        try:
            self.setCurrentItem(item)
        finally:
            if not notify:
                self.blockSignals(False)
        return True

    def entries(self) -> list[tuple[int | None, str, int]]:
        """Return ``(source_id, label, count)`` for "All papers" and each source."""
        items = [self._all] + [self._files.child(i) for i in range(self._files.childCount())]
        return [(it.data(0, SourceIdRole), it.text(0), it.data(0, CountRole)) for it in items]

    def item_for(self, source_id: int | None) -> QTreeWidgetItem | None:
        """Return the tree item of ``source_id`` (``None``: "All papers"), if any."""
        return self._item_for(source_id)

    def _item_for(self, source_id: int | None) -> QTreeWidgetItem | None:
        if source_id is None:
            return self._all
        for i in range(self._files.childCount()):
            child = self._files.child(i)
            if child.data(0, SourceIdRole) == source_id:
                return child
        return None

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_current_changed(self, current, previous) -> None:
        if current is None or current is self._files:
            return
        self.sourceChosen.emit(current.data(0, SourceIdRole))
