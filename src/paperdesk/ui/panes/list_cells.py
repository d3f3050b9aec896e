"""Painting the paper list's cells from one :class:`~paperdesk.ui.panes.paper_model.Cell`
each.

Qt's item delegates fill their style option with ``initStyleOption``, which asks the
model's ``data()`` for about ten roles per cell (font, alignment, colours, check state,
icon, text ...). The list's model is Python, so each of those is a call from C++ into
Python, and each call takes the interpreter lock back from whatever thread holds it
(the search, the reader threads): a screenful of rows cost about 1,500 such calls.
Here a cell is one call, :meth:`PaperTableModel.cell
<paperdesk.ui.panes.paper_model.PaperTableModel.cell>`, and the style option is filled
from it as ``QStyledItemDelegate::initStyleOption`` would fill it from those roles
(Qt 6, ``qstyleditemdelegate.cpp``): the font (bold for an unread paper), the text
(newlines shown as line separators, as ``displayText`` does), the icon with its
decoration size clamped to the icon's actual size.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics, QIcon, QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from paperdesk.ui.panes.paper_model import (Cell, ExcludedRole, SpansRole, TagsRole)

__all__ = ["cell_of", "cell_option", "display_text", "PlainCellDelegate"]

_HAS_DISPLAY = QStyleOptionViewItem.ViewItemFeature.HasDisplay
_HAS_DECORATION = QStyleOptionViewItem.ViewItemFeature.HasDecoration


def cell_of(index: QModelIndex) -> Cell:
    """What the cell at ``index`` shows: the model's :meth:`cell` when it has one (the
    paper list's model), else the same read from ``data()`` role by role.

    Args:
        index: a valid index of the list's model.
    Returns:
        A :class:`~paperdesk.ui.panes.paper_model.Cell`.
    """
    model = index.model()
    cell = getattr(model, "cell", None)
    if cell is not None:
        return cell(index.row(), index.column())
    font = index.data(Qt.ItemDataRole.FontRole)
    star = index.data(Qt.ItemDataRole.DecorationRole)
    return Cell(index.data(Qt.ItemDataRole.DisplayRole),
                isinstance(font, QFont) and font.bold(),
                star if isinstance(star, QIcon) else None, index.data(TagsRole),
                bool(index.data(ExcludedRole)), index.data(SpansRole))


def display_text(text: str | None) -> str:
    """``text`` as Qt's delegate shows a ``DisplayRole`` string (``displayText``): its
    newlines as line separators (U+2028); ``None`` as ""."""
    if not text:
        return ""
    return text.replace("\n", "\u2028") if "\n" in text else text


def cell_option(option: QStyleOptionViewItem, index: QModelIndex, cell: Cell,
                with_text: bool = True) -> QStyleOptionViewItem:
    """A copy of the view's ``option`` filled in for ``cell``, as Qt's
    ``initStyleOption`` fills it from the model's roles (see the module docstring).

    Args:
        option: the option the view passed to ``paint``.
        index: the cell's index.
        cell: what the cell shows (:func:`cell_of`).
        with_text: put the text in the option (False: the delegate draws the text
            itself; the option still says the cell has some, so the style lays the cell
            out the same way).
    Returns:
        A new ``QStyleOptionViewItem``.
    """
    opt = QStyleOptionViewItem(option)
    opt.index = index
    if cell.bold:
        font = QFont(opt.font)
        font.setBold(True)
        opt.font = font
        opt.fontMetrics = QFontMetrics(font)
    if cell.text is not None:
        opt.features |= _HAS_DISPLAY
        if with_text:
            opt.text = display_text(cell.text)
    star = cell.star
    if star is not None and not star.isNull():
        opt.features |= _HAS_DECORATION
        opt.icon = star
        state = opt.state
        mode = (QIcon.Mode.Disabled if not state & QStyle.StateFlag.State_Enabled
                else QIcon.Mode.Selected if state & QStyle.StateFlag.State_Selected
                else QIcon.Mode.Normal)
        wanted = opt.decorationSize
        actual = star.actualSize(wanted, mode, QIcon.State.On if state & QStyle.StateFlag.State_Open
                                 else QIcon.State.Off)
        opt.decorationSize = actual.boundedTo(wanted)
    return opt


class PlainCellDelegate(QStyledItemDelegate):
    """Item delegate for the list's plain text columns (Added, First author, Year, the
    table-driven ones): the text elided by the style as Qt's own delegate draws it,
    filled in from one :meth:`cell` call instead of a ``data()`` call per role."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex) -> None:
        """Draw the cell: background, selection, focus and text, all by the style."""
        opt = cell_option(option, index, cell_of(index))
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
