"""The window's export commands (:class:`ExportCommands`, the window's ``exports``): File
▸ Export… and copying the selected papers to the clipboard as BibTeX or Markdown.

Files are written by an :class:`~paperdesk.ui.background.workers.ExportRunner` on a worker
thread, with progress and Cancel in the status bar (shared with imports: one of the two
runs at a time). A failure is shown in a message box naming the file and the reason; the
core writes atomically, so a failure or a cancel leaves no partial file.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QApplication, QMessageBox

from paperdesk.ui.window.dialogs import message_box
from paperdesk.ui.window.export_dialog import ExportDialog, ExportOptions, ListSnapshot, file_stem
from paperdesk.ui.style.formatting import plural
from paperdesk.core.api import export_format
from paperdesk.core.scope import FILTER_LABELS, Scope

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["ExportCommands", "EXPORT_MESSAGE_MS"]

#: How long "Exported N papers to FILE" stays in the status bar, in milliseconds.
EXPORT_MESSAGE_MS = 10000
#: Above this many papers, copying says "Copying N papers…" until the text is ready.
_BUSY_COPY = 200

_HINTS = (
    ("Permission denied", "Choose a folder you can write to."),
    ("Read-only file system", "Choose a folder you can write to."),
    ("No space left", "Free some disk space or choose another drive."),
    ("Disk quota", "Free some disk space or choose another drive."),
    ("No such file or directory", "The folder does not exist; choose another one."),
    ("Not a directory", "The folder does not exist; choose another one."),
)


class ExportCommands:
    """Export commands for :class:`~paperdesk.ui.window.main_window.MainWindow`.

    Built over the window (``window``, a
    :class:`~paperdesk.ui.window.main_window.MainWindow`); uses its public ``lib``,
    ``settings``, ``model``, ``export_runner``, ``import_runner``, ``progress_bar``,
    ``cancel_button``, ``actions_by_name``, ``selected_ids``, ``current_scope``,
    ``show_error``, ``search_results``, ``query_text`` and ``scope_name`` (public methods
    of the window).

    Attributes:
        export_dialog: the last export dialog opened (for tests), or ``None``.
        export_message: the last "Export failed" message box, or ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.export_dialog: ExportDialog | None = None
        self.export_message: QMessageBox | None = None

    # -- the dialog ----------------------------------------------------------------------
    def current_list(self) -> ListSnapshot:
        """Return what the list shows now: its scope (with the search's query), its ids in
        list order, a label and a file name stem. While a large search is still loading
        its complete results, they are fetched here (``lib.papers.scope_ids``, in the list's
        order) so that every match is included."""
        query = self._window.search.query_text()
        scope = self._window.current_scope()
        sort, descending = self._window.model.search_sort()
        ids = tuple(self._window.model.ids())
        scope_name = self._window.scope_name()
        results, complete = self._window.search.search_results()
        if results is not None and query:
            scope = replace(scope, query=query)
            label = f"search results for “{query}”"
            if scope_name:
                label += f" in {scope_name}"
            # Still loading: every match is looked up on the export thread, not here.
            pending = None if complete else results.total   # (an estimate until loaded)
            return ListSnapshot(ids, label, file_stem(f"search {query}"), scope,
                                pending, sort, descending)
        if scope == Scope():
            return ListSnapshot(ids, "all papers", "paperdesk-library", scope)
        return ListSnapshot(ids, scope_name or "the list", file_stem(self._list_stem(scope)),
                            scope)

    def _list_stem(self, scope: Scope) -> str:
        """The file name stem of a list scope: its filter's label, tag name or file stem."""
        if scope.filter is not None:
            return FILTER_LABELS.get(scope.filter, scope.filter)
        # from the tag pane's lists: no SQLite on the UI thread
        if scope.tag_id is not None:
            return next((t.name for t in self._window.tag_pane.tag_entries()
                         if t.id == scope.tag_id), "")
        if scope.source_id is not None:
            for sid, label, _count in self._window.tag_pane.entries():
                if sid == scope.source_id:
                    return Path(label.rsplit(" (", 1)[0]).stem
        return ""

    def open_export_dialog(self) -> ExportDialog:
        """Open the export dialog (window-modal, not blocking) on the current list, the
        selected papers, a tag or the whole library.

        Returns:
            The dialog (also kept as :attr:`export_dialog`).
        """
        if self.export_dialog is not None:
            self.export_dialog.close()
            self.export_dialog.deleteLater()
        total = self._window.tag_pane.entries()[0][2]      # "All papers", as listed
        dialog = ExportDialog(self._window.tag_pane.tag_entries(),
                              total if isinstance(total, int) else None,
                              self.current_list(), self._window.selected_ids(),
                              self._window.settings, self.export_with,
                              current_tag_id=self._window.current_scope().tag_id,
                              parent=self._window)
        self.export_dialog = dialog
        dialog.open()
        return dialog

    # -- running an export -----------------------------------------------------------------
    def export_with(self, options: ExportOptions) -> bool:
        """Start writing an export file in the background (progress and Cancel in the
        status bar). The result comes later: a status-bar message on success, a message
        box naming the file and the reason on failure.

        Args:
            options: what to export and where (from :class:`ExportDialog`).
        Returns:
            False (with a status-bar message) if there is nothing to export or an import
            or another export is running.
        """
        if not options.ids and options.resolve is None:
            self._window.show_error("Nothing to export")
            return False
        if self._window.import_runner.is_running():
            self._window.show_error("Wait for the import to finish, then export")
            return False
        settings = self._window.settings
        own = export_format(options.fmt)
        format_options = {"style": settings.bibliography_style,
                          "locale": settings.bibliography_locale,
                          "output": "rtf" if options.path.suffix.lower() == ".rtf" else "html"
                          } if own.takes_options else None
        if not self._window.export_runner.start(options.ids, options.fmt, options.path,
                                                options.fields, resolve=options.resolve,
                                                options=format_options):
            self._window.show_error("An export is already running")
            return False
        count = options.count if options.resolve is not None else len(options.ids)
        self.set_background_job(True)
        self._window.progress_bar.setRange(0, max(count or 0, 1))
        self._window.progress_bar.setValue(0)
        self._window.progress_bar.setFormat("Exporting…")
        self._window.progress_bar.show()
        self._window.cancel_button.setToolTip("Stop exporting (no file is written)")
        self._window.cancel_button.setEnabled(True)
        self._window.cancel_button.show()
        self._window.statusBar().showMessage(
            f"Exporting {plural(count, 'paper') if count is not None else 'the papers'} "
            f"to {options.path}…")
        return True

    def cancel_export(self) -> None:
        """Ask the running export to stop; no file is written."""
        self._window.export_runner.cancel()
        self._window.cancel_button.setEnabled(False)
        self._window.progress_bar.setFormat("Cancelling…")

    def set_background_job(self, running: bool) -> None:
        """Disable (or re-enable) the commands that start an import or an export."""
        for name in ("importFilesAction", "importFolderAction", "exportAction"):
            self._window.actions_by_name[name].setEnabled(not running)

    def _end_export(self) -> None:
        self._window.progress_bar.hide()
        self._window.cancel_button.hide()
        self._window.cancel_button.setToolTip("Stop importing (the file being read is left out)")
        self.set_background_job(False)
        self._window.statusBar().clearMessage()
        self._window.imports.start_pending_import()     # files dropped or handed over meanwhile

    def on_export_progress(self, _stage: str, done: int, total: int) -> None:
        """The export runner's progress: papers written of ``total``."""
        if not self._window.cancel_button.isEnabled():
            return  # cancelling
        self._window.progress_bar.setRange(0, max(total, 1))
        self._window.progress_bar.setValue(min(done, total))
        self._window.progress_bar.setFormat(f"Exporting {min(done, total):,} of {total:,}")

    def on_export_finished(self, written: int, path: str) -> None:
        """The file at ``path`` was written with ``written`` papers."""
        self._end_export()
        self._window.statusBar().showMessage(f"Exported {plural(written, 'paper')} to {path}",
                                             EXPORT_MESSAGE_MS)

    def on_export_cancelled(self) -> None:
        """The export stopped at the user's Cancel (no file written)."""
        self._end_export()
        self._window.statusBar().showMessage("Export cancelled — no file was written", 6000)

    def on_export_failed(self, message: str) -> None:
        """The export failed (``message``, one line): a message box says why."""
        self._end_export()
        hint = next((h for key, h in _HINTS if key.casefold() in message.casefold()), "")
        text = f"The papers were not exported:\n\n{message}\n\nNo file was written."
        if hint:
            text += f" {hint}"
        self.export_message = message_box(self._window, QMessageBox.Icon.Critical, "Export failed",
                                          text, modal=False)

    # -- the clipboard -------------------------------------------------------------------
    def copy_as_bibtex(self) -> bool:
        """Copy the selected papers to the clipboard as BibTeX (Ctrl+Shift+C)."""
        return self.copy_papers("bibtex")

    def copy_as_markdown(self) -> bool:
        """Copy the selected papers to the clipboard as a Markdown reading list."""
        return self.copy_papers("markdown")

    def copy_papers(self, fmt: str) -> bool:
        """Put the selected papers (or the paper shown) on the clipboard in ``fmt`` and
        say so in the status bar.

        Args:
            fmt: the name of a registered export format
                (:mod:`paperdesk.core.exports.registry`).
        The text is made on the reader thread (the papers are read from SQLite) and put
        on the clipboard when it is ready; if it cannot be made, the reason is shown in
        the status bar instead.

        Returns:
            False if no paper is selected (or the library is closing), else True.
        """
        ids = self._window.selected_ids()
        if not ids:
            self._window.show_error("Select the papers to copy first")
            return False

        def copy(text: str) -> None:
            if self._window.is_shut_down():
                return
            QApplication.clipboard().setText(text)
            self._window.statusBar().showMessage(
                f"Copied {plural(len(ids), 'paper')} as {export_format(fmt).label}", 5000)

        if len(ids) > _BUSY_COPY:
            self._window.statusBar().showMessage(
                f"Copying {plural(len(ids), 'paper')} as {export_format(fmt).label}…")
        # Made on the reader thread: the papers are read from SQLite.
        job = self._window.worker.read(lambda lib: lib.exports.text(ids, fmt), on_done=copy,
                                       on_failed=lambda message: self._window.show_error(
                                           f"Not copied: {message}"),
                                       label="copy")
        return job is not None
