"""Which optional columns the paper list shows (:class:`ListColumns`, owned by the window).

The optional columns are :data:`paperdesk.ui.window.actions.LIST_COLUMNS` (Added, First
author, Year, Venue; what they hold and how they sort comes from
:mod:`paperdesk.core.fields`). Each has a checkable action in View ▸ List Columns; the
same actions make the list header's context menu (right-click a header). The choice is
stored in the settings at once (``Settings.list_columns``); without one, the fields'
``shown`` defaults apply (only Added).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHeaderView, QMenu, QTableView

from paperdesk.ui.app.settings import Settings

from paperdesk.core.fields import field as paper_field
from paperdesk.ui.panes.paper_model import PaperTableModel
from paperdesk.ui.window.actions import LIST_COLUMNS

__all__ = ["ListColumns", "default_list_columns", "COLUMN_CHARS"]

#: Width of each optional column at first show, in average characters.
COLUMN_CHARS = {"authors": 14, "year": 5, "venue": 16}


def default_list_columns() -> tuple[str, ...]:
    """The optional columns shown until the user chooses (the fields' ``shown``)."""
    return tuple(name for name in LIST_COLUMNS if paper_field(name).shown)


class ListColumns:
    """The optional columns of the window's paper list.

    Args:
        table: the paper list (its model a
            :class:`~paperdesk.ui.panes.paper_model.PaperTableModel`).
        settings: where the choice is remembered (``Settings.list_columns``).
    The column actions (``column<Name>Action``) are handed over by :meth:`setup`, once
    the window has built them from :meth:`column_slots`.
    """

    def __init__(self, table: QTableView, settings: Settings):
        self._table = table
        self._settings = settings
        self._actions: dict[str, QAction] = {}

    def column_slots(self) -> dict:
        """``{slot name: callable}`` for the column actions of the actions table."""
        return {f"show_column_{name}": (lambda on, name=name: self.set_list_column_shown(
            name, on)) for name in LIST_COLUMNS}

    def setup(self, actions: dict[str, QAction]) -> None:
        """Size the optional columns, add the header's context menu, and show the
        columns the settings name (called once the window's actions exist).

        Args:
            actions: the window's actions by objectName (``column<Name>Action`` used).
        """
        self._actions = actions
        header = self._table.horizontalHeader()
        average = self._table.fontMetrics().averageCharWidth()
        for name, chars in COLUMN_CHARS.items():
            column = PaperTableModel.COLUMN_OF[name]
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, average * chars + 28)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        self.apply_list_columns()

    def shown_list_columns(self) -> tuple[str, ...]:
        """The optional columns shown now, by field name, in menu order."""
        return tuple(name for name in LIST_COLUMNS
                     if not self._table.isColumnHidden(PaperTableModel.COLUMN_OF[name]))

    def apply_list_columns(self) -> None:
        """Show the optional columns the settings name (or the defaults), hide the
        others, and tick their actions to match."""
        chosen = self._settings.list_columns
        names = set(default_list_columns() if chosen is None else chosen)
        for name in LIST_COLUMNS:
            self._show_column(name, name in names)

    def _show_column(self, name: str, shown: bool) -> None:
        column = PaperTableModel.COLUMN_OF[name]
        header = self._table.horizontalHeader()
        self._table.setColumnHidden(column, not shown)
        if shown and header.sectionSize(column) < header.minimumSectionSize():
            chars = COLUMN_CHARS.get(name, 10)
            header.resizeSection(column,
                                 self._table.fontMetrics().averageCharWidth() * chars + 28)
        action = self._actions[f"column{name.title()}Action"]
        action.blockSignals(True)
        action.setChecked(shown)
        action.blockSignals(False)

    def set_list_column_shown(self, name: str, shown: bool) -> None:
        """Show or hide an optional list column (remembered at once).

        Args:
            name: a key of :data:`~paperdesk.ui.window.actions.LIST_COLUMNS`
                (``"added"``, ``"authors"``, ``"year"``, ``"venue"``).
            shown: show it.
        Raises:
            KeyError: not an optional column.
        """
        if name not in LIST_COLUMNS:
            raise KeyError(name)
        self._show_column(name, shown)
        self._settings.list_columns = self.shown_list_columns()

    def _header_menu(self, pos: QPoint) -> None:
        """Right-click on the header: the column actions, as check boxes."""
        menu = QMenu(self._table)
        menu.setObjectName("listColumnsMenu")
        menu.setTitle("List Columns")
        for name in LIST_COLUMNS:
            menu.addAction(self._actions[f"column{name.title()}Action"])
        menu.popup(self._table.horizontalHeader().mapToGlobal(pos))
        menu.aboutToHide.connect(menu.deleteLater)
