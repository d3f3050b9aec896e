"""The window's ways of getting files in besides File ▸ Import: dropped files and
folders, files handed over by ``paperdesk FILE...`` (queued behind a running import),
the import's progress line (files, records, time left) and its report.

:class:`ImportCommands` is the window's ``imports``; it uses the window's public
``start_import``, ``import_runner``, ``export_runner``, ``progress_bar``,
``cancel_button``, ``import_progress_label``, ``import_report_button`` and
``statusBar()``. The window's own drag-and-drop handlers hand the events to it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from urllib.parse import unquote_to_bytes

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent

from paperdesk.core.api import ImportProgress
from paperdesk.core.models import ImportReport
from paperdesk.ui.window.import_report import ImportReportDialog, display_path

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["ImportCommands", "dropped_paths"]

#: How long the status bar says why a drop was not taken (ms).
DROP_MESSAGE_MS = 5000


def _local_path(url: QUrl) -> str | None:
    """The local file a ``file:`` URL names, with its bytes as they are on disk (a name
    that is not UTF-8 comes back in Python's ``surrogateescape`` form), or ``None``."""
    if not url.isLocalFile():
        return None
    if os.name == "nt" or url.host() not in ("", "localhost"):
        return url.toLocalFile() or None      # C:/x, //server/share: Qt's own form
    path_bytes = unquote_to_bytes(url.path(QUrl.ComponentFormattingOption.FullyEncoded))
    return os.fsdecode(path_bytes) if path_bytes else None


def dropped_paths(mime: QMimeData) -> list[str]:
    """The local files and folders in a drag's data (``text/uri-list`` with ``file:``
    URLs); web links and other data give none.

    Args:
        mime: the drag's data.
    Returns:
        Paths, in the order dragged, without repeats.
    """
    if not mime.hasUrls():
        return []
    out: list[str] = []
    for url in mime.urls():
        path = _local_path(url)
        if path and path not in out:
            out.append(path)
    return out


class _DropFilter(QObject):
    """Lets files dropped onto text fields (search box, note editor) be imported instead
    of pasted as ``file://`` text; other drops reach the field as before."""

    def __init__(self, window):
        super().__init__(window)
        self._window = window

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop) \
                and dropped_paths(event.mimeData()):
            if kind == QEvent.Type.Drop:
                self._window.dropEvent(event)
            else:
                self._window.dragEnterEvent(event)
            return True
        return False


class ImportCommands:
    """Drag and drop, handed-over files, import progress and the import report.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`.

    Attributes:
        last_import_report: the report of the last import started from the window
            (``None`` before one).
        import_report_dialog: the report dialog on show, or ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.last_import_report: ImportReport | None = None
        self.import_report_dialog: ImportReportDialog | None = None
        self._pending_imports: list[list[str]] = []
        self._drop_filter: _DropFilter | None = None

    def setup_file_drops(self) -> None:
        """Accept file drops on the whole window (call once the widgets and the import
        runner exist)."""
        self._window.setAcceptDrops(True)
        self._drop_filter = _DropFilter(self._window)
        from PySide6.QtWidgets import QWidget

        for child in self._window.findChildren(QWidget):
            if child.acceptDrops():
                child.installEventFilter(self._drop_filter)
        self._window.import_runner.stepped.connect(self._on_import_stepped)
        self._window.actions_by_name["importReportAction"].setEnabled(False)

    # -- drag and drop ---------------------------------------------------------------
    def drag_enter(self, event: QDragEnterEvent | QDragMoveEvent) -> None:
        """The window's drag enter or move: take drags that carry local files or folders
        (as a copy); ignore others."""
        if dropped_paths(event.mimeData()) and not self._window.lib.read_only:
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def drop(self, event: QDropEvent) -> None:
        """The window's drop: import the dropped files and folders as File ▸ Import does;
        a drop without local files (a web link, text) is refused with a status bar
        message."""
        paths = dropped_paths(event.mimeData())
        if not paths:
            event.ignore()
            self._window.statusBar().showMessage(
                "Only files and folders can be dropped here (to import them)",
                DROP_MESSAGE_MS)
            return
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.queue_import(paths)

    # -- imports from outside ----------------------------------------------------------
    def queue_import(self, paths) -> bool:
        """Import files or folders now, or after the import or export that is running.

        Args:
            paths: files and/or folders (``str`` or path-like).
        Returns:
            True if the import started now, False if it was queued.
        """
        paths = [os.fspath(p) for p in paths]
        if not paths:
            return False
        busy = self._window.import_runner.is_running() or self._window.export_runner.is_running()
        if not busy and self._window.start_import(paths):
            return True
        self._pending_imports.append(paths)
        n = sum(len(p) for p in self._pending_imports)
        self._window.statusBar().showMessage(
            f"{n} more {'file' if n == 1 else 'files'} to import after the one running now",
            DROP_MESSAGE_MS)
        return False

    def pending_imports(self) -> list[list[str]]:
        """The imports waiting for the running one (lists of paths), in order."""
        return [list(p) for p in self._pending_imports]

    def start_pending_import(self) -> None:
        if self._window.is_shut_down() or not self._pending_imports:
            return
        if self._window.import_runner.is_running() or self._window.export_runner.is_running():
            return
        paths = self._pending_imports.pop(0)
        if not self._window.start_import(paths):
            self._pending_imports.insert(0, paths)

    # -- progress and report -----------------------------------------------------------
    def show_import_started(self) -> None:
        self._window.import_progress_label.setText("Reading…")
        self._window.import_progress_label.show()
        self._window.import_report_button.hide()

    def _on_import_stepped(self, snap: ImportProgress) -> None:
        """Show files, records and the time left beside the progress bar."""
        if self._window.is_shut_down() or not self._window.import_runner.is_running():
            return
        if not self._window.cancel_button.isEnabled():
            return  # cancelling: the bar says so
        self._window.import_progress_label.setText(snap.text())
        self._window.import_progress_label.set_detail(
            display_path(snap.file) if snap.stage != "index" else "")
        if snap.stage == "read":
            self._window.progress_bar.setRange(0, max(snap.files_total, 1))
            self._window.progress_bar.setValue(snap.files_done)
            self._window.progress_bar.setFormat("%p%")
        elif snap.total:
            self._window.progress_bar.setRange(0, snap.total)
            self._window.progress_bar.setValue(min(snap.done, snap.total))
            self._window.progress_bar.setFormat("%p%")

    def show_import_ended(self, report: ImportReport | None, seeds: bool) -> None:
        self._window.import_progress_label.hide()
        self._window.import_progress_label.clear()
        if report is None:
            return
        if not seeds:
            self.last_import_report = report
            self._window.import_report_button.show()
            self._window.actions_by_name["importReportAction"].setEnabled(True)
        problems = bool(report.rejected) or report.skipped > 0
        if problems:
            self.show_import_report(report)

    def show_import_report(self, report: ImportReport | None = None) -> ImportReportDialog | None:
        """Show the report of ``report`` (default: the last import) in a non-modal
        dialog, one row per file (File ▸ Last Import Report…).

        Returns:
            The dialog, or ``None`` when no import has run.
        """
        report = report if isinstance(report, ImportReport) else self.last_import_report
        if report is None:
            self._window.statusBar().showMessage("No import has run in this window yet",
                                                 DROP_MESSAGE_MS)
            return None
        old = self.import_report_dialog
        if old is not None:
            try:
                old.close()
            except RuntimeError:   # already deleted
                pass
        dialog = ImportReportDialog(report, self._window)
        dialog.destroyed.connect(lambda *_: self._forget_report_dialog(dialog))
        self.import_report_dialog = dialog
        dialog.show()
        return dialog

    def _forget_report_dialog(self, dialog) -> None:
        if self.import_report_dialog is dialog:
            self.import_report_dialog = None
