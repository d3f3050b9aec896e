"""The window's commands for taking things out (:class:`RemovalCommands`, the window's
``removal``): Del in the
paper list deletes the selected papers, and File ▸ Remove Imported File… (also the
sidebar's file context menu, and Del on a file there) removes an imported file with the
papers that came from it only.

Both are undoable in the core (one step each), so Delete asks nothing first, as Zotero's
"Move Item to Trash" does; removing a file goes through a dialog because the user has to
choose the file and see how many papers go with it. The edits run on the window's one
writer thread (``submit_edit``) and the list changes once they are committed; the files
and their counts for the dialog are read on the reader thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.ui.style.formatting import plural
from paperdesk.ui.window.remove_file_dialog import RemoveFileDialog
from paperdesk.ui.window.triage import MESSAGE_MS

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["RemovalCommands"]


class RemovalCommands:
    """Delete and remove-file commands of the window.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``worker``, ``submit_edit``, ``selected_ids``, ``detail_pane``, ``tag_pane``,
            ``show_error``, ``focus_list``, ``is_shut_down`` and ``statusBar`` are used.

    Attributes:
        remove_file_dialog: the Remove Imported File dialog last opened (for tests), or
            ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.remove_file_dialog: RemoveFileDialog | None = None
        self._deleting: set[int] = set()   # papers handed to the writer, not yet gone

    def delete_selected_papers(self) -> bool:
        """Delete the selected papers (Del in the list; Edit ▸ Delete Papers), with their
        tags, notes and highlights; Ctrl+Z brings them back. The status bar says how many
        went once it is committed.

        Returns:
            True when the deletion was handed to the writer thread; False without a
            selection (a message says so) or after shutdown.
        """
        ids = self._window.selected_ids()
        if not ids:
            self._window.statusBar().showMessage("Select the papers to delete first", MESSAGE_MS)
            return False
        # Del pressed again before the deletion came back (key repeat): those papers are
        # on their way out already; deleting them twice would only say they are gone.
        pending = self._deleting
        ids = [pid for pid in ids if pid not in pending]
        if not ids:
            return False
        self._window.detail_pane.note_editor.flush()   # a note being typed is saved first
        pending.update(ids)

        def done(changes) -> None:
            pending.difference_update(ids)
            n = len(changes.papers)
            self._window.statusBar().showMessage(
                f"Deleted {plural(n, 'paper')}  —  Ctrl+Z to undo", MESSAGE_MS)

        def failed(message: str) -> None:
            pending.difference_update(ids)
            self._window.show_error(message)

        queued = self._window.submit_edit(lambda lib: lib.removal.delete_papers(ids), quiet=True,
                                          on_done=done, on_failed=failed)
        if not queued:
            pending.difference_update(ids)
        return queued

    def prompt_remove_file(self, source_id: int | None = None) -> bool:
        """Offer the imported files to remove (File ▸ Remove Imported File…), each with
        its paper count and how many papers would go with it. The files are read on the
        reader thread; the dialog opens (window-modal) when they arrive.

        Args:
            source_id: the file to choose first (default: the file chosen in the
                sidebar, else the first).
        Returns:
            True when the files are being read; False after shutdown.
        """
        if source_id is None:
            source_id = self._window.tag_pane.current_source()

        def read(lib):
            return lib.removal.sources(), lib.removal.counts()

        def show(result) -> None:
            if self._window.is_shut_down():
                return
            sources, counts = result
            if not sources:
                self._window.statusBar().showMessage("No imported files to remove", MESSAGE_MS)
                return
            self._open_remove_file_dialog(sources, counts, source_id)

        job = self._window.worker.read(read, on_done=show, on_failed=self._window.show_error,
                                       label="files to remove")
        return job is not None

    def _open_remove_file_dialog(self, sources, counts, source_id) -> RemoveFileDialog:
        old = self.remove_file_dialog
        if old is not None:
            old.close()
            old.deleteLater()
        dialog = RemoveFileDialog(sources, counts, source_id, self._window)
        self.remove_file_dialog = dialog
        names = {s.id: s.name for s in sources}
        dialog.removeRequested.connect(lambda sid: self.remove_file(sid, names.get(sid)))
        dialog.finished.connect(lambda _result: self._after_remove_dialog(dialog))
        dialog.open()
        return dialog

    def _after_remove_dialog(self, dialog: RemoveFileDialog) -> None:
        if self.remove_file_dialog is dialog and not self._window.is_shut_down():
            self._window.activateWindow()
            self._window.focus_list()

    def remove_file(self, source_id: int, name: str | None = None) -> bool:
        """Remove an imported file and the papers that came from it only (undoable).

        Args:
            source_id: the file.
            name: its file name, for the message.
        Returns:
            True when the removal was handed to the writer thread.
        """
        self._window.detail_pane.note_editor.flush()
        shown = f"“{name}”" if name else "the file"
        deleted: list[int] = []

        def edit(lib):   # writer thread: count what goes as it goes
            deleted.append(len(lib.removal.plan(source_id).deleted))
            return lib.removal.remove_source(source_id)

        def done(_changes) -> None:
            papers = f" and {plural(deleted[0], 'paper')}" if deleted and deleted[0] else ""
            self._window.statusBar().showMessage(
                f"Removed {shown}{papers}  —  Ctrl+Z to undo", MESSAGE_MS)

        return self._window.submit_edit(edit, quiet=True, on_done=done)
