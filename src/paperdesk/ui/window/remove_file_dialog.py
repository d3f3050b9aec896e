"""File ▸ Remove Imported File…: choose an imported file to take out of the library.

The dialog lists every imported file with its paper count and how many of those papers
removing it would delete (those that came from no other file), and says what removing
the chosen one does before the user confirms. It changes nothing itself: it emits
:attr:`RemoveFileDialog.removeRequested` and the window hands the removal to its writer
thread (undoable with Ctrl+Z). Every text is plain text (file names are shown literally).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView,
                               QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from paperdesk.core.models import Source
from paperdesk.ui.style.formatting import local_datetime, plural, tooltip_html

__all__ = ["RemoveFileDialog", "removal_summary"]

FILE, PAPERS, DELETED = range(3)
_SourceRole = Qt.ItemDataRole.UserRole + 1

INTRO = ("Papers that came only from the file you remove are deleted, with their tags, "
         "notes and highlights; papers also imported from another file stay. The file "
         "on disk is not touched. Edit ▸ Undo (Ctrl+Z) brings everything back.")


def removal_summary(source: Source, deleted: int) -> str:
    """Return what removing ``source`` does, in one sentence.

    Args:
        source: the file (its ``papers`` is how many papers it brought).
        deleted: how many of them would be deleted (from this file only).
    Returns:
        E.g. "Removing “a.txt” deletes 105 papers; 15 also from other files stay."
    """
    kept = source.papers - deleted
    text = f"Removing “{source.name}” "
    if source.papers == 0:
        return text + "deletes no paper (it has none left)."
    if deleted == 0:
        return text + (f"deletes no paper: its {plural(kept, 'paper')} "
                       f"{'is' if kept == 1 else 'are'} also from other files.")
    text += f"deletes {plural(deleted, 'paper')}"
    if kept:
        text += f"; {kept} also from other files {'stays' if kept == 1 else 'stay'}"
    return text + "."


class RemoveFileDialog(QDialog):
    """Choose an imported file to remove (window-modal; open it with ``open()``).

    Child widgets (by objectName): ``removeFileList`` (QTreeWidget: File, Papers, Deleted
    with it), ``removeFileSummary`` (QLabel), ``removeFileButton`` (the default button).
    Enter removes the chosen file, Esc cancels.

    Signals:
        removeRequested(int): the user confirmed removing this source id (the dialog
            then closes).

    Args:
        sources: from ``lib.removal.sources()`` (import order).
        deleted: from ``lib.removal.counts()``: ``{source id: papers deleted}``.
        chosen: source id to choose first (e.g. the file chosen in the sidebar), or
            ``None`` for the first file.
        parent: the window.
    """

    removeRequested = Signal(int)

    def __init__(self, sources: Sequence[Source], deleted: Mapping[int, int],
                 chosen: int | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("removeFileDialog")
        self.setWindowTitle("Remove Imported File")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self._sources = {s.id: s for s in sources}
        self._deleted = dict(deleted)

        intro = QLabel(INTRO)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)

        self.list = QTreeWidget()
        self.list.setObjectName("removeFileList")
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setAlternatingRowColors(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setHeaderLabels(["File", "Papers", "Deleted with it"])
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(FILE, QHeaderView.ResizeMode.Stretch)
        for column in (PAPERS, DELETED):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        first = None
        for source in sources:
            n = self._deleted.get(source.id, 0)
            item = QTreeWidgetItem(self.list, [source.name, str(source.papers), str(n)])
            item.setData(FILE, _SourceRole, source.id)
            for column in (PAPERS, DELETED):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(FILE, tooltip_html(
                f"{source.path}\n“{source.header}”, imported "
                f"{local_datetime(source.imported_at)}"))
            if first is None or source.id == chosen:
                first = item
        self.list.currentItemChanged.connect(self._on_current)
        self.list.itemActivated.connect(lambda _item, _col: self._confirm())

        self.summary = QLabel()
        self.summary.setObjectName("removeFileSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.remove_button = buttons.addButton("&Remove File",
                                               QDialogButtonBox.ButtonRole.AcceptRole)
        self.remove_button.setObjectName("removeFileButton")
        buttons.accepted.connect(self._confirm)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.summary)
        layout.addWidget(buttons)
        self.resize(620, 360)
        # Once the buttons are in the dialog (before, the dialog would not know it).
        self.remove_button.setDefault(True)
        if first is not None:
            self.list.setCurrentItem(first)
        self._on_current(self.list.currentItem(), None)
        self.list.setFocus()

    def chosen_source(self) -> int | None:
        """Return the source id of the chosen row, or ``None``."""
        item = self.list.currentItem()
        return item.data(FILE, _SourceRole) if item is not None else None

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def _on_current(self, current: QTreeWidgetItem | None, _previous) -> None:
        sid = current.data(FILE, _SourceRole) if current is not None else None
        self.remove_button.setEnabled(sid is not None)
        if sid is None:
            self.summary.setText("Choose a file.")
            return
        self.summary.setText(removal_summary(self._sources[sid], self._deleted.get(sid, 0)))

    def _confirm(self) -> None:
        sid = self.chosen_source()
        if sid is None:
            return
        self.removeRequested.emit(sid)
        self.accept()
