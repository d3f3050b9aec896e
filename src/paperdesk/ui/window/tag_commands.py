"""The window's whole-tag commands that need no mouse (:class:`TagCommands`, the window's
``tag_commands``): ``t`` with a new name asks for the new tag's number key, Edit ▸ New
Tag… creates a tag with its key, and Edit ▸ Manage Tags… (Ctrl+Shift+T) lists every tag to
rename, recolour, bind a key, merge or delete.

The dialogs (:mod:`paperdesk.ui.window.tags_dialog`) only say what the user asked for;
every change is a ``Library`` call handed to the window's one writer thread
(``submit_edit``), one undo step each, and the Tags dialog shows it when the tag list
read after the commit comes back (:meth:`TagCommands.update_tag_dialogs`, called
from the window's tag refresh). Which names and keys exist is taken from the tag list
the window last read (``tag_pane.tag_entries()``), so the UI thread never asks SQLite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Sequence

from PySide6.QtWidgets import QWidget

from paperdesk.core.api import tag_key, validate_tag_name
from paperdesk.core.models import LibraryError, Tag
from paperdesk.ui.window.tags_dialog import NewTagDialog, TagsDialog

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["TagCommands"]


class TagCommands:
    """New-tag and Tags-dialog commands for
    :class:`~paperdesk.ui.window.main_window.MainWindow`.

    Built over the window (``window``, a
    :class:`~paperdesk.ui.window.main_window.MainWindow`); uses its public ``worker``,
    ``submit_edit``, ``selected_ids``, ``triage`` (the tag edits, undo and redo),
    ``reading`` (``focus_tag_editor``), ``tag_pane``, ``detail_pane``, ``focus_list``,
    ``show_error``, ``is_shut_down`` and ``statusBar``.

    Attributes:
        tags_dialog: the Tags dialog last opened, or ``None``.
        new_tag_dialog: the New Tag dialog last opened, or ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.tags_dialog: TagsDialog | None = None
        self.new_tag_dialog: NewTagDialog | None = None

    # -- t with a new name ---------------------------------------------------------------
    def add_typed_tag(self, name: str) -> None:
        """Enter in the tag editor: an existing tag is added at once; a new name opens
        the New Tag dialog (its number key, "None" by default; Enter creates and adds
        it, Esc goes back to the editor with the name)."""
        ids = self._window.selected_ids()
        try:
            clean = validate_tag_name(name)
        except LibraryError as exc:
            self._window.show_error(str(exc))
            self._window.focus_list()
            return
        known = {tag_key(t.name) for t in self._window.tag_pane.tag_entries()}
        if not ids or tag_key(clean) in known:
            self._window.triage.add_tag(clean, ids)
            self._window.focus_list()
            return
        dialog = self._new_tag_dialog(clean, len(ids), self._window)
        created: list[bool] = []

        def create(tag_name: str, key: int | None) -> None:
            created.append(True)
            self._window.submit_edit(lambda lib: lib.tags.add(ids, tag_name, key=key))

        def closed(_result: int) -> None:
            if self.new_tag_dialog is not dialog or self._window.is_shut_down():
                return
            self._window.activateWindow()
            if created:
                self._window.focus_list()
            else:   # back to the editor with the name, to change it or Esc
                self._window.reading.focus_tag_editor()
                self._window.detail_pane.chips.editor.setText(clean)

        dialog.createRequested.connect(create)
        dialog.finished.connect(closed)
        dialog.open()

    def prompt_new_tag(self, parent: QWidget | None = None) -> bool:
        """Edit ▸ New Tag… (also the tag pane's menu and the Tags dialog): ask for a
        name and a number key, and create the tag on no paper (undoable).

        Args:
            parent: the window the dialog belongs to (default: the main window; the
                Tags dialog then chooses the new tag once it is listed).
        Returns:
            True when the dialog opened (False after shutdown).
        """
        if self._window.is_shut_down():
            return False
        owner = parent if parent is not None else self._window
        dialog = self._new_tag_dialog("", 0, owner)
        dialog.createRequested.connect(
            lambda name, key: self._window.triage.create_tag(name, key=key))
        if isinstance(owner, TagsDialog):   # back to its list, on the new tag once listed
            dialog.createRequested.connect(lambda name, _key: owner.follow(name))
            dialog.finished.connect(lambda _r: (owner.activateWindow(), owner.focus_list()))
        else:
            dialog.finished.connect(lambda _r: self._back_to_window(dialog, "new_tag_dialog"))
        dialog.open()
        return True

    def _new_tag_dialog(self, name: str, targets: int, parent: QWidget) -> NewTagDialog:
        old = self.new_tag_dialog
        if old is not None:
            old.close()
            old.deleteLater()
        dialog = NewTagDialog(name, self._window.tag_pane.tag_entries(), targets, parent)
        self.new_tag_dialog = dialog
        return dialog

    # -- Edit ▸ Manage Tags… --------------------------------------------------------------
    def open_tags_dialog(self) -> bool:
        """Open the Tags dialog (Ctrl+Shift+T) on the tag chosen in the sidebar, if any.
        The tags are read on the reader thread; the dialog opens (window-modal) when
        they arrive.

        Returns:
            True when the tags are being read; False after shutdown.
        """
        current = self._window.tag_pane.current_tag()

        def show(tags: Sequence[Tag]) -> None:
            if not self._window.is_shut_down():
                self._open_tags_dialog(tags, current)

        job = self._window.worker.read(lambda lib: lib.tags.all(), on_done=show,
                                       on_failed=self._window.show_error, label="tags")
        return job is not None

    def _open_tags_dialog(self, tags: Sequence[Tag], current: int | None) -> TagsDialog:
        old = self.tags_dialog
        if old is not None:
            old.close()
            old.deleteLater()
        dialog = TagsDialog(tags, current, self._window)
        self.tags_dialog = dialog
        dialog.renameRequested.connect(self._window.triage.rename_tag)
        dialog.colourRequested.connect(self._window.triage.set_tag_colour)
        dialog.keyRequested.connect(self._window.triage.set_tag_key)
        dialog.deleteRequested.connect(self._window.triage.delete_tag)
        dialog.mergeRequested.connect(self.merge_tags)
        dialog.newTagRequested.connect(lambda: self.prompt_new_tag(dialog))
        dialog.undoRequested.connect(self._window.triage.undo)
        dialog.redoRequested.connect(self._window.triage.redo)
        # What each change did (or why not) shows in the dialog too: the status bar is
        # behind it.
        self._window.statusBar().messageChanged.connect(dialog.show_status)
        self._window.editMessageShown.connect(dialog.show_status)
        dialog.finished.connect(lambda _r: self._back_to_window(dialog, "tags_dialog"))
        dialog.open()
        return dialog

    def _back_to_window(self, dialog: QWidget, name: str) -> None:
        if getattr(self, name) is dialog and not self._window.is_shut_down():
            self._window.activateWindow()
            self._window.focus_list()

    def update_tag_dialogs(self, tags: Sequence[Tag]) -> None:
        """Show a tag list read after a commit in the Tags dialog, if it is open."""
        dialog = self.tags_dialog
        if dialog is not None and dialog.isVisible():
            dialog.set_tags(tags)

    def merge_tags(self, tag_id: int, into_id: int) -> bool:
        """Merge tag ``tag_id`` into tag ``into_id`` (its papers go to the second, the
        first is deleted; undoable). Returns True when queued."""
        return self._window.submit_edit(lambda lib: lib.tags.merge(tag_id, into_id))
