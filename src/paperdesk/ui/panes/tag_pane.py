"""The left-hand pane (objectName ``tagPane``): what the paper list shows.

Four sections: the filters (All papers, Unread, Starred, Untagged, Has note) with live
counts; "Saved searches", one entry per saved query with the number of papers it finds
(choosing one runs it; the context menu renames or deletes); "Tags", one entry per tag
with its colour, bound number key and paper count (the context menu renames, recolours,
binds a key or deletes; Edit ▸ Manage Tags… does all that from the keyboard); and "Files", one entry per imported source file (the context
menu, or Del, asks the window to remove it). Choosing a filter, tag or file emits a
:class:`~paperdesk.core.scope.Scope`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont, QIcon, QKeyEvent, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QColorDialog, QFrame, QHeaderView, QMenu,
                               QStyle, QStyledItemDelegate, QStyleOptionViewItem,
                               QTreeWidget, QTreeWidgetItem, QWidget)

from paperdesk.core.text import bidi_visible
from paperdesk.core.api import TAG_COLOURS
from paperdesk.core.models import SavedSearch, Source, Tag
from paperdesk.ui.style.colours import swatch_icon
from paperdesk.ui.style.formatting import local_datetime, plural, tooltip_html
from paperdesk.core.scope import FILTER_LABELS, Scope

__all__ = ["TagPane", "SourceIdRole", "CountRole", "ScopeRole", "TagIdRole",
           "SavedQueryRole"]

#: Item data role: the entry's source id (``None`` for "All papers").
SourceIdRole = Qt.ItemDataRole.UserRole + 1
#: Pixels beside a count's digits in its column (the item padding and margins).
COUNT_PADDING = 16
#: Item data role: the entry's paper count.
CountRole = Qt.ItemDataRole.UserRole + 2
#: Item data role: the entry's :class:`Scope`.
ScopeRole = Qt.ItemDataRole.UserRole + 3
#: Item data role: a tag entry's tag id.
TagIdRole = Qt.ItemDataRole.UserRole + 4
#: Item data role: the entry's name without the count.
NameRole = Qt.ItemDataRole.UserRole + 5
#: Item data role: a saved-search entry's query text.
SavedQueryRole = Qt.ItemDataRole.UserRole + 6
#: Item data role: a saved-search entry's row id (kept by a rename).
SavedIdRole = Qt.ItemDataRole.UserRole + 7

NAME, KEY, COUNT = range(3)
_FILTER_TIPS = {
    "unread": "Papers you have not read yet",
    "starred": "Papers you starred (S)",
    "untagged": "Papers without any tag",
    "has_note": "Papers with a note",
}


def _search_icon(widget: QWidget) -> QIcon:
    """A small magnifying glass in the widget's muted text colour."""
    size = 12
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(widget.palette().color(QPalette.ColorRole.PlaceholderText))
    pen.setWidthF(1.6)
    painter.setPen(pen)
    painter.drawEllipse(QRectF(1.0, 1.0, 7.0, 7.0))
    painter.drawLine(QPointF(7.3, 7.3), QPointF(11.0, 11.0))
    painter.end()
    return QIcon(pixmap)


class NameDelegate(QStyledItemDelegate):
    """Elides file names in the middle (their ends tell them apart) and every other
    name (saved searches, tags) at the right."""

    def initStyleOption(self, option: QStyleOptionViewItem, index) -> None:  # noqa: N802
        """Qt hook: choose the elide mode for this entry."""
        super().initStyleOption(option, index)
        option.textElideMode = (Qt.TextElideMode.ElideMiddle
                                if index.data(SourceIdRole) is not None
                                else Qt.TextElideMode.ElideRight)


class KeyBadgeDelegate(QStyledItemDelegate):
    """Draws a tag's bound number key as a small key cap (a digit in a rounded box)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        """Draw the row background via the style, then the key cap if there is a key."""
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        if not text:
            return
        fm = opt.fontMetrics
        size = fm.height()
        rect = QRectF(opt.rect.center().x() - size / 2 + 0.5,
                      opt.rect.center().y() - size / 2 + 0.5, size, size)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        colour = opt.palette.color(QPalette.ColorRole.HighlightedText if selected
                                   else QPalette.ColorRole.PlaceholderText)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QColor(colour))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect, 3, 3)
        font = QFont(opt.font)
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        painter.setFont(font)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class TagPane(QTreeWidget):
    """Scope chooser: filters, saved searches, tags and files, each with a paper count.

    Signals:
        scopeChosen(object): the chosen :class:`Scope`. Emitted when the user changes
            the current entry, and by a refresh only if the chosen entry disappeared
            (then "All papers" is chosen).
        renameTagRequested(int): the user asked to rename this tag id.
        deleteTagRequested(int): ... to delete this tag id.
        recolourTagRequested(int, str): ... to give this tag id this ``#rrggbb`` colour.
        bindKeyRequested(int, object): ... to bind key 1-9 (or ``None``: unbind).
        newTagRequested(): ... to create a tag.
        manageTagsRequested(): ... to open the Tags dialog.
        savedSearchChosen(str, str): ``(name, query)`` — the user chose a saved search
            (by click or keyboard); the window runs its query over all papers.
        renameSavedSearchRequested(str): the user asked to rename this saved search.
        deleteSavedSearchRequested(str): ... to delete this saved search.
        saveSearchRequested(): ... to save the current search.
        removeSourceRequested(int): ... to remove this imported file (its context
            menu, or Del while it is chosen); the window asks which papers go first.
        screenTagRequested(str): ... to screen the list's papers for this tag (its
            context menu's Screen for This Tag…).
    """

    scopeChosen = Signal(object)
    renameTagRequested = Signal(int)
    deleteTagRequested = Signal(int)
    recolourTagRequested = Signal(int, str)
    bindKeyRequested = Signal(int, object)
    newTagRequested = Signal()
    manageTagsRequested = Signal()
    savedSearchChosen = Signal(str, str)
    renameSavedSearchRequested = Signal(str)
    deleteSavedSearchRequested = Signal(str)
    saveSearchRequested = Signal()
    removeSourceRequested = Signal(int)
    screenTagRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagPane")
        self.setHeaderHidden(True)
        self.setColumnCount(3)
        self.setRootIsDecorated(False)
        self.setIndentation(10)
        self.setUniformRowHeights(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(KEY, QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(COUNT, QHeaderView.ResizeMode.Fixed)
        digits = self.fontMetrics().horizontalAdvance("88888")
        header.resizeSection(KEY, self.fontMetrics().height() + 8)
        self._key_delegate = KeyBadgeDelegate(self)
        self.setItemDelegateForColumn(KEY, self._key_delegate)
        self._name_delegate = NameDelegate(self)
        self.setItemDelegateForColumn(NAME, self._name_delegate)
        header.resizeSection(COUNT, digits + COUNT_PADDING)
        # A sidebar: window-coloured background, roomier rows, a little space on top.
        self.setStyleSheet(
            "QTreeWidget#tagPane { background: palette(window); padding-top: 6px; }"
            "QTreeWidget#tagPane::item { padding: 3px 2px; }")
        self._bold = QFont(self.font())
        self._bold.setBold(True)
        self._all = self._entry(None, "All papers", Scope(), "Every paper in the library")
        self._all.setData(0, SourceIdRole, None)
        self._filters: dict[str, QTreeWidgetItem] = {}
        for name, label in FILTER_LABELS.items():
            self._filters[name] = self._entry(None, label, Scope(filter=name),
                                              _FILTER_TIPS.get(name, label))
        self._saved = self._section("Saved searches", "Click one to run it; right-click "
                                    "to rename or delete it. Ctrl+S saves the current search")
        self._saved_list: list[SavedSearch] = []
        self._search_icon: QIcon | None = None
        self._saved_counts: dict[str, int | None] = {}
        self._tags = self._section("Tags", "Edit ▸ Manage Tags… (Ctrl+Shift+T) renames, "
                                   "recolours, binds a number key to, merges or deletes "
                                   "tags from the keyboard; so does right-clicking a tag")
        self._files = self._section("Files", "The files papers were imported from; "
                                    "right-click one (or Del) to remove it")
        self._tag_list: list[Tag] = []
        self.refresh(0, [])
        self.set_saved_searches([])
        self.setCurrentItem(self._all)
        self.currentItemChanged.connect(self._on_current_changed)
        self.itemClicked.connect(self._on_clicked)

    # -- building ------------------------------------------------------------------------
    def _entry(self, parent: QTreeWidgetItem | None, name: str, scope: Scope | None,
               tip: str = "") -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent if parent is not None else self)
        item.setData(0, NameRole, name)
        item.setText(NAME, bidi_visible(name))   # text from files: no reordering
        item.setData(0, ScopeRole, scope)
        item.setTextAlignment(COUNT, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setTextAlignment(KEY, Qt.AlignmentFlag.AlignCenter)
        item.setForeground(COUNT, self.palette().placeholderText())
        item.setForeground(KEY, self.palette().placeholderText())
        if tip:
            item.setToolTip(NAME, tooltip_html(tip))
        return item

    def _section(self, title: str, tip: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self, [title])
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        item.setFont(0, self._bold)
        item.setForeground(0, self.palette().placeholderText())
        item.setToolTip(0, tip)
        item.setExpanded(True)
        item.setHidden(True)
        item.setFirstColumnSpanned(True)
        return item

    def _set_count(self, item: QTreeWidgetItem, count: int | None) -> None:
        item.setData(0, CountRole, count)
        text = f"{count:,}" if count is not None else ""   # None: not counted yet
        item.setText(COUNT, text)
        # The count column grows to the widest count (100,000 papers: six digits), so no
        # count is ever elided ("1…7"); it never shrinks, so the names do not jump.
        needed = self.fontMetrics().horizontalAdvance(text) + COUNT_PADDING
        if needed > self.header().sectionSize(COUNT):
            self.header().resizeSection(COUNT, needed)

    # -- refreshing ----------------------------------------------------------------------
    def refresh(self, total: int, sources: Sequence[Source],
                counts: Mapping[str, int] | None = None,
                tags: Sequence[Tag] | None = None) -> None:
        """Rebuild the entries with fresh counts, keeping the current choice if it exists.

        Args:
            total: number of papers in the library.
            sources: from ``lib.removal.sources()``.
            counts: from ``lib.papers.filter_counts()`` (filters keep their counts if
                ``None``).
            tags: from ``lib.tags.all()`` (the tag entries are kept if ``None``).
        """
        chosen = self.current_scope()
        self.blockSignals(True)
        try:
            self._set_count(self._all, total)
            if counts is not None:
                self._update_filters(counts)
            if tags is not None:
                self._rebuild_tags(tags)
            self._rebuild_files(sources)
            if self.current_saved() is None and not self.select_scope(chosen, notify=False):
                self.setCurrentItem(self._all)
        finally:
            self.blockSignals(False)
        if chosen != self.current_scope():
            self._emit(self.current_scope())

    def set_counts(self, counts: Mapping[str, int]) -> None:
        """Update the filter counts (and "All papers") from ``lib.papers.filter_counts()``;
        filters missing from ``counts`` keep theirs (``filter_counts(only=...)``)."""
        if "all" not in counts and not isinstance(self._all.data(0, CountRole), int):
            self._set_count(self._all, 0)
        self._update_filters(counts)

    def set_tags(self, tags: Sequence[Tag]) -> None:
        """Rebuild the tag entries from ``lib.tags.all()``, keeping the current choice if
        it still exists (otherwise "All papers" is chosen and ``scopeChosen`` emitted)."""
        chosen = self.current_scope()
        self.blockSignals(True)
        try:
            self._rebuild_tags(tags)
            if self.current_saved() is None and not self.select_scope(chosen, notify=False):
                self.setCurrentItem(self._all)
        finally:
            self.blockSignals(False)
        if chosen != self.current_scope():
            self._emit(self.current_scope())

    def add_filter_counts(self, deltas: Mapping[str, int]) -> bool:
        """Add count changes to filters' counts in place (a star or read mark:
        ``Changes.filter_count_changes``), without counting.

        Args:
            deltas: ``{filter name: change of its count}``.
        Returns:
            True when done; False (nothing changed) when a filter named is not listed or
            has no count yet, i.e. the filters must be counted.
        """
        items = [self._filters.get(name) for name in deltas]
        if any(it is None or not isinstance(it.data(0, CountRole), int) for it in items):
            return False
        for name, item in zip(deltas, items):
            self._set_count(item, max(0, item.data(0, CountRole) + deltas[name]))
        return True

    def _update_filters(self, counts: Mapping[str, int]) -> None:
        if "all" in counts:
            self._set_count(self._all, counts["all"])
        for name, item in self._filters.items():
            if name in counts:   # a filter not counted again keeps its count
                self._set_count(item, counts[name])

    def set_tag_counts(self, counts: Mapping[int, int]) -> None:
        """Change the paper counts of listed tags in place (after a tag was toggled on
        papers), without rebuilding the entries.

        Args:
            counts: ``{tag id: its paper count}``; ids not listed are ignored.
        """
        self._tag_list = [replace(t, count=counts.get(t.id, t.count)) for t in self._tag_list]
        for tag in self._tag_list:
            if tag.id in counts:
                item = self.tag_item(tag.id)
                if item is not None:
                    self._set_count(item, tag.count)
                    self._set_tag_tip(item, tag)

    def _set_tag_tip(self, item: QTreeWidgetItem, tag: Tag) -> None:
        tip = f"Tag “{tag.name}”" + (f" — {plural(tag.count, 'paper')}"
                                     if tag.count is not None else "")
        if tag.key:
            tip += f"\nKey {tag.key} toggles it on the selected papers"
        item.setToolTip(NAME, tooltip_html(
            tip + "\nRight-click for more, or Edit ▸ Manage Tags… (Ctrl+Shift+T)"))

    def _rebuild_tags(self, tags: Sequence[Tag]) -> None:
        self._tag_list = list(tags)
        self._tags.takeChildren()
        for tag in tags:
            item = self._entry(self._tags, tag.name, Scope(tag_id=tag.id))
            item.setData(0, TagIdRole, tag.id)
            item.setIcon(NAME, swatch_icon(tag.colour, 12))
            self._set_count(item, tag.count)
            if tag.key:
                item.setText(KEY, str(tag.key))
                item.setToolTip(KEY, tooltip_html(
                    f"Key {tag.key} toggles “{tag.name}” on the paper"))
            self._set_tag_tip(item, tag)
        self._tags.setHidden(False)
        if not tags:
            hint = QTreeWidgetItem(self._tags, ["No tags yet"])
            hint.setToolTip(0, "Press T on a paper to tag it (a new tag can get a number "
                                "key there), or right-click here")
            hint.setFlags(Qt.ItemFlag.NoItemFlags)
            hint.setForeground(0, self.palette().placeholderText())
            hint.setFirstColumnSpanned(True)
        self._tags.setExpanded(True)

    def set_saved_searches(self, searches: Sequence[SavedSearch]) -> None:
        """Rebuild the "Saved searches" entries from ``lib.saved_searches.all()``.

        Known counts are kept (by name) until :meth:`set_saved_counts` brings new ones. A
        chosen saved search stays chosen if it still exists, even renamed (otherwise
        "All papers" is chosen, without any signal: the search box keeps its text).
        """
        current = self.currentItem()
        chosen = current.data(0, SavedIdRole) if self._saved_of(current) else None
        self.blockSignals(True)
        try:
            self._saved_list = list(searches)
            self._saved.takeChildren()
            for search in searches:
                item = self._entry(self._saved, search.name, None)
                item.setData(0, SavedQueryRole, search.query)
                item.setData(0, SavedIdRole, search.id)
                if self._search_icon is None:
                    self._search_icon = _search_icon(self)
                item.setIcon(NAME, self._search_icon)
                self._show_saved_count(item)
            if not searches:
                hint = QTreeWidgetItem(self._saved, ["Ctrl+S saves a search"])
                hint.setToolTip(0, "Type a search, then press Ctrl+S (Edit ▸ Save Search…)")
                hint.setFlags(Qt.ItemFlag.NoItemFlags)
                hint.setForeground(0, self.palette().placeholderText())
                hint.setFirstColumnSpanned(True)
            self._saved.setHidden(False)
            self._saved.setExpanded(True)
            if chosen is not None:
                item = next((self._saved.child(i) for i in range(self._saved.childCount())
                             if self._saved.child(i).data(0, SavedIdRole) == chosen), None)
                self.setCurrentItem(item if item is not None else self._all)
        finally:
            self.blockSignals(False)

    def set_saved_counts(self, counts: Mapping[str, int | None]) -> None:
        """Show how many papers each saved search finds.

        Args:
            counts: ``{name: count}``; ``None`` (or a missing name) shows no count.
        """
        self._saved_counts = {name.casefold(): n for name, n in counts.items()}
        for i in range(self._saved.childCount()):
            self._show_saved_count(self._saved.child(i))

    def _show_saved_count(self, item: QTreeWidgetItem) -> None:
        name = item.data(0, NameRole)
        if name is None:
            return
        count = self._saved_counts.get(name.casefold())
        if count is None:
            item.setData(0, CountRole, None)
            item.setText(COUNT, "")
        else:
            self._set_count(item, count)
        query = item.data(0, SavedQueryRole)
        found = ("" if count is None
                 else f"\nFinds {count:,} paper{'s' if count != 1 else ''}")
        item.setToolTip(NAME, tooltip_html(
            f"Saved search “{name}”\n{query}{found}\nClick to run it; right-click (or F2, "
            "Del) to rename or delete it"))

    def _rebuild_files(self, sources: Sequence[Source]) -> None:
        self._files.takeChildren()
        for src in sources:
            item = self._entry(self._files, src.name, Scope(source_id=src.id))
            item.setData(0, SourceIdRole, src.id)
            self._set_count(item, src.papers)
            item.setToolTip(NAME, tooltip_html(
                f"{src.path}\n“{src.header}” — {plural(src.papers, 'paper')}, "
                f"imported {local_datetime(src.imported_at)}"))
        self._files.setHidden(not sources)
        self._files.setExpanded(True)

    # -- choosing ------------------------------------------------------------------------
    def current_scope(self) -> Scope:
        """Return the chosen :class:`Scope` (``Scope()`` for all papers)."""
        item = self.currentItem()
        scope = item.data(0, ScopeRole) if item is not None else None
        return scope if isinstance(scope, Scope) else Scope()

    def current_source(self) -> int | None:
        """Return the chosen source id, or ``None`` (all papers, a filter or a tag)."""
        return self.current_scope().source_id

    def current_tag(self) -> int | None:
        """Return the chosen tag id, or ``None``."""
        return self.current_scope().tag_id

    def current_saved(self) -> tuple[str, str] | None:
        """Return ``(name, query)`` of the chosen saved search, or ``None``."""
        return self._saved_of(self.currentItem())

    def saved_item(self, name: str) -> QTreeWidgetItem | None:
        """Return the entry of the saved search ``name`` (any case), if any."""
        for i in range(self._saved.childCount()):
            item = self._saved.child(i)
            if (item.data(0, NameRole) or "").casefold() == name.casefold() \
                    and item.data(0, SavedQueryRole) is not None:
                return item
        return None

    def select_saved(self, name: str, notify: bool = True) -> bool:
        """Make the saved search ``name`` the chosen entry.

        Args:
            name: its name (any case).
            notify: emit ``savedSearchChosen``.
        Returns:
            False if there is no such saved search.
        """
        item = self.saved_item(name)
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

    @staticmethod
    def _saved_of(item: QTreeWidgetItem | None) -> tuple[str, str] | None:
        if item is None:
            return None
        query = item.data(0, SavedQueryRole)
        return None if query is None else (item.data(0, NameRole), query)

    def select_scope(self, scope: Scope, notify: bool = True) -> bool:
        """Make the entry for ``scope`` current.

        Args:
            scope: the scope to choose.
            notify: emit ``scopeChosen`` if the choice changed.
        Returns:
            False if there is no entry for that scope.
        """
        item = self.item_for_scope(scope)
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

    def item_for_scope(self, scope: Scope) -> QTreeWidgetItem | None:
        """Return the entry of ``scope``, if any."""
        for item in self._all_entries():
            if item.data(0, ScopeRole) == scope:
                return item
        return None

    def item_for(self, source_id: int | None) -> QTreeWidgetItem | None:
        """Return the tree item of ``source_id`` (``None``: "All papers"), if any."""
        return self.item_for_scope(Scope(source_id=source_id))

    def tag_item(self, tag_id: int) -> QTreeWidgetItem | None:
        """Return the entry of tag ``tag_id``, if any."""
        return self.item_for_scope(Scope(tag_id=tag_id))

    def filter_item(self, name: str) -> QTreeWidgetItem | None:
        """Return the entry of filter ``name`` (``"unread"``, ...), if any."""
        return self._filters.get(name)

    # -- reading the entries -------------------------------------------------------------
    def entries(self) -> list[tuple[int | None, str, int]]:
        """Return ``(source_id, "<name> (<count>)", count)`` for "All papers" and each
        source file."""
        items = [self._all] + [self._files.child(i) for i in range(self._files.childCount())]
        return [(it.data(0, SourceIdRole), self._label(it), it.data(0, CountRole))
                for it in items]

    def filter_entries(self) -> list[tuple[str, str, int]]:
        """Return ``(filter, "<label> (<count>)", count)`` for each filter."""
        return [(name, self._label(it), it.data(0, CountRole))
                for name, it in self._filters.items()]

    def saved_entries(self) -> list[tuple[str, str, int | None]]:
        """Return ``(name, query, count)`` for each saved search, in order (count
        ``None`` until counted)."""
        out = []
        for i in range(self._saved.childCount()):
            saved = self._saved_of(self._saved.child(i))
            if saved is not None:
                out.append((*saved, self._saved.child(i).data(0, CountRole)))
        return out

    def tag_entries(self) -> list[Tag]:
        """Return the tags listed, in order (as last given to :meth:`refresh`)."""
        return list(self._tag_list)

    @staticmethod
    def _label(item: QTreeWidgetItem) -> str:
        count = item.data(0, CountRole)
        return f"{item.data(0, NameRole)} ({count:,})" if isinstance(count, int) else \
            f"{item.data(0, NameRole)} ({count})"

    def _all_entries(self) -> list[QTreeWidgetItem]:
        # Scope entries only (saved searches are not scopes).
        out = [self._all, *self._filters.values()]
        for section in (self._tags, self._files):
            out += [section.child(i) for i in range(section.childCount())]
        return out

    # -- user actions --------------------------------------------------------------------
    def _emit(self, scope: Scope) -> None:
        self.scopeChosen.emit(scope)

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_current_changed(self, current, previous) -> None:
        saved = self._saved_of(current)
        if saved is not None:
            self.savedSearchChosen.emit(*saved)
            return
        if current is None or not isinstance(current.data(0, ScopeRole), Scope):
            return
        self._emit(current.data(0, ScopeRole))

    @Slot(QTreeWidgetItem, int)
    def _on_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        # A click on the saved search that is already chosen runs it again (the search
        # box may hold another query by now).
        saved = self._saved_of(item)
        if saved is not None and item is self.currentItem():
            self.savedSearchChosen.emit(*saved)

    def event(self, event: QEvent) -> bool:
        """Claim F2 and Delete while a tag or saved search is chosen, so they rename or
        delete it instead of triggering the window's shortcuts (F2 edits the title), and
        Delete while a file is chosen (it offers to remove the file)."""
        if event.type() == QEvent.Type.ShortcutOverride \
                and event.key() in (Qt.Key.Key_F2, Qt.Key.Key_Delete) \
                and not event.modifiers() \
                and (self.current_tag() is not None or self.current_saved() is not None
                     or (event.key() == Qt.Key.Key_Delete
                         and self.current_source() is not None)):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """F2 renames and Delete deletes the chosen tag or saved search."""
        saved = self.current_saved()
        if saved is not None and event.key() == Qt.Key.Key_F2:
            self.renameSavedSearchRequested.emit(saved[0])
            return
        if saved is not None and event.key() == Qt.Key.Key_Delete:
            self.deleteSavedSearchRequested.emit(saved[0])
            return
        tag_id = self.current_tag()
        if tag_id is not None and event.key() == Qt.Key.Key_F2:
            self.renameTagRequested.emit(tag_id)
            return
        if tag_id is not None and event.key() == Qt.Key.Key_Delete:
            self.deleteTagRequested.emit(tag_id)
            return
        source_id = self.current_source()
        if source_id is not None and event.key() == Qt.Key.Key_Delete \
                and not event.modifiers():
            self.removeSourceRequested.emit(source_id)
            return
        super().keyPressEvent(event)

    @Slot(QPoint)
    def _menu(self, pos: QPoint) -> None:
        item = self.itemAt(pos)
        menu = QMenu(self)
        tag_id = item.data(0, TagIdRole) if item is not None else None
        saved = self._saved_of(item)
        if saved is not None:
            name = saved[0]
            menu.addAction("&Run", lambda: self.savedSearchChosen.emit(*saved))
            menu.addAction("&Rename…\tF2", lambda: self.renameSavedSearchRequested.emit(name))
            menu.addAction("&Delete\tDel", lambda: self.deleteSavedSearchRequested.emit(name))
            menu.addSeparator()
            menu.addAction("&Save Current Search…\tCtrl+S", self.saveSearchRequested.emit)
        elif item is self._saved or (item is not None and item.parent() is self._saved):
            menu.addAction("&Save Current Search…\tCtrl+S", self.saveSearchRequested.emit)
        elif tag_id is not None:
            tag = next((t for t in self._tag_list if t.id == tag_id), None)
            self._tag_menu(menu, tag)
        elif item is self._tags or (item is not None and item.parent() is self._tags):
            menu.addAction("&New Tag…", self.newTagRequested.emit)
            menu.addAction("&Manage Tags…\tCtrl+Shift+T", self.manageTagsRequested.emit)
        elif item is not None and item.data(0, SourceIdRole) is not None:
            sid = item.data(0, SourceIdRole)
            menu.addAction("&Remove File…\tDel", lambda: self.removeSourceRequested.emit(sid))
        else:
            menu.deleteLater()
            return
        menu.exec(self.viewport().mapToGlobal(pos))
        menu.deleteLater()

    def _tag_menu(self, menu: QMenu, tag: Tag | None) -> None:
        if tag is None:
            return
        tid = tag.id
        menu.addAction("&Rename…\tF2", lambda: self.renameTagRequested.emit(tid))
        colours = menu.addMenu("&Colour")
        for colour in TAG_COLOURS:
            action = colours.addAction(swatch_icon(colour, 12), colour)
            action.setCheckable(True)
            action.setChecked(colour == tag.colour)
            action.triggered.connect(
                lambda _=False, c=colour: self.recolourTagRequested.emit(tid, c))
        colours.addSeparator()
        colours.addAction("&Other…", lambda: self._pick_colour(tag))
        keys = menu.addMenu("Number &Key")
        holders = {t.key: t.name for t in self._tag_list if t.key}
        none = keys.addAction("None")
        none.setCheckable(True)
        none.setChecked(tag.key is None)
        none.triggered.connect(lambda: self.bindKeyRequested.emit(tid, None))
        for key in range(1, 10):
            label = f"{key}" + (f"  (now “{holders[key]}”)"
                                if key in holders and holders[key] != tag.name else "")
            action = keys.addAction(label)
            action.setCheckable(True)
            action.setChecked(tag.key == key)
            action.triggered.connect(lambda _=False, k=key: self.bindKeyRequested.emit(tid, k))
        menu.addSeparator()
        name = tag.name
        menu.addAction("Scr&een for This Tag…", lambda: self.screenTagRequested.emit(name))
        menu.addSeparator()
        menu.addAction("&Delete Tag\tDel", lambda: self.deleteTagRequested.emit(tid))
        menu.addSeparator()
        menu.addAction("&New Tag…", self.newTagRequested.emit)
        menu.addAction("&Manage Tags…\tCtrl+Shift+T", self.manageTagsRequested.emit)

    def _pick_colour(self, tag: Tag) -> None:
        from PySide6.QtGui import QColor
        colour = QColorDialog.getColor(QColor(tag.colour), self, f"Colour of “{tag.name}”")
        if colour.isValid():
            self.recolourTagRequested.emit(tag.id, colour.name())
