"""Edit ▸ Bibliography Style…: a searchable list of the shipped CSL styles, the last five
used on top, and the locale (:class:`StyleDialog`). It only collects the choice and emits
it; the window stores it (:meth:`paperdesk.ui.app.settings.Settings.
set_bibliography_style`).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLineEdit,
                               QListWidget, QListWidgetItem, QVBoxLayout, QWidget)

from paperdesk.core.api import CSL_LOCALES

__all__ = ["StyleDialog"]

#: How many matching styles the list shows at most (the search narrows it).
_SHOWN = 400


class StyleDialog(QDialog):
    """Choose the bibliography's style and locale.

    Type to search (in ids and titles); ↑ / ↓ move in the list; Enter chooses; Esc
    cancels. The recently used styles come first, then the others by id.

    Args:
        styles: ``(id, title)`` of every shipped style.
        recent: style ids used last, the latest first (a ``.csl`` path is kept too).
        current: the style chosen now.
        locale: the locale chosen now, or ``None`` for the style's own.
        parent: the window.

    Signals:
        chosen(str, str): the style id (or path) and the locale (``""``: the style's own).
    """

    chosen = Signal(str, str)

    def __init__(self, styles: Sequence[tuple[str, str]], recent: Sequence[str], current: str,
                 locale: str | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("styleDialog")
        self.setWindowTitle("Bibliography Style")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        titles = dict(styles)
        self._recent = [(s, titles.get(s, s)) for s in recent]
        self._others = [(s, t) for s, t in styles if s not in set(recent)]
        self._current = current
        self.search = QLineEdit(self)
        self.search.setObjectName("styleSearch")
        self.search.setPlaceholderText("Search styles: apa, ieee, nature, chicago…")
        self.search.setClearButtonEnabled(True)
        self.list = QListWidget(self)
        self.list.setObjectName("styleList")
        self.locale = QComboBox(self)
        self.locale.setObjectName("styleLocale")
        self.locale.addItem("The style's own", "")
        for tag in sorted(set(CSL_LOCALES.values())):
            self.locale.addItem(tag, tag)
        self.locale.setCurrentIndex(max(self.locale.findData(locale or ""), 0))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel, parent=self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("&Locale:", self.locale)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.search.textChanged.connect(self._fill)
        self.list.itemActivated.connect(lambda _item: self.accept())
        self.resize(720, 520)
        self._fill("")

    def _fill(self, text: str) -> None:
        """Show the styles whose id or title holds every word of ``text``."""
        words = text.casefold().split()
        keep = [(s, t) for s, t in (*self._recent, *self._others)
                if all(w in f"{s} {t}".casefold() for w in words)][:_SHOWN]
        self.list.clear()
        recent = {s for s, _t in self._recent}
        for style_id, title in keep:
            item = QListWidgetItem(f"{title}  ({style_id})" + ("  ★ recent" if style_id in recent
                                                              else ""))
            item.setData(Qt.ItemDataRole.UserRole, style_id)
            self.list.addItem(item)
        current = next((n for n, (s, _t) in enumerate(keep) if s == self._current), 0)
        self.list.setCurrentRow(current if keep else -1)

    def shown_ids(self) -> list[str]:
        """The style ids listed now, in order."""
        return [self.list.item(n).data(Qt.ItemDataRole.UserRole)
                for n in range(self.list.count())]

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        """↑ / ↓ / Page Up / Page Down in the search box move in the list."""
        if event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp,
                           Qt.Key.Key_PageDown) and self.search.hasFocus():
            self.list.keyPressEvent(event)
            return
        super().keyPressEvent(event)

    def accept(self) -> None:
        """Emit the style chosen in the list and the locale, then close."""
        item = self.list.currentItem()
        if item is not None:
            self.chosen.emit(item.data(Qt.ItemDataRole.UserRole), self.locale.currentData())
        super().accept()
