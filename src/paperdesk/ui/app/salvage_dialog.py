"""The Salvage offer, where the window refuses to open a damaged database.

The dialog shows the one-line problem (plain text) with **Salvage** and **Close**.
Salvage runs :func:`paperdesk.core.store.salvage.salvage_library` on a background thread
(the UI thread never reads the file), with a progress bar and Cancel; the report is
then shown as plain text, and **Open Library** opens the salvaged library (its search
index is rebuilt in the background, as after any index damage). The caller holds the
library's lock meanwhile (:func:`offer_salvage`).
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QPlainTextEdit,
                               QProgressBar, QPushButton, QVBoxLayout, QWidget)

from paperdesk.core.models import LibraryError
from paperdesk.core.api import LibraryLock, LockHeld
from paperdesk.core.api import SalvageReport, salvage_library

__all__ = ["SalvageDialog", "offer_salvage"]


class _Relay(QObject):
    """Carries the salvage thread's news to the UI thread (queued signals)."""

    progressed = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)


class SalvageDialog(QDialog):
    """Offer to salvage the damaged database of ``folder``.

    Args:
        folder: the library folder.
        message: the one-line problem (shown as plain text).
        parent: the owning widget, or ``None``.

    Attributes:
        report: the :class:`~paperdesk.core.store.salvage.SalvageReport` once salvaged,
            else ``None``.
        report_text: the report as shown (plain text), or ``""``.
        error: the one-line failure of a salvage that did not finish, or ``""``.
    """

    def __init__(self, folder: str | Path, message: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.folder = Path(folder)
        self.report: SalvageReport | None = None
        self.report_text = ""
        self.error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.setWindowTitle("paperdesk — the library's database is damaged")
        layout = QVBoxLayout(self)
        self.message = QLabel(message)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.message)
        self.explain = QLabel("Salvage builds a new database from every page that can still "
                              "be read; the damaged file is kept beside it.")
        self.explain.setTextFormat(Qt.TextFormat.PlainText)
        self.explain.setWordWrap(True)
        layout.addWidget(self.explain)
        self.progress = QProgressBar()
        self.progress.setFormat("Reading pages %v of %m")
        self.progress.hide()
        layout.addWidget(self.progress)
        self.report_view = QPlainTextEdit()
        self.report_view.setReadOnly(True)
        self.report_view.hide()
        layout.addWidget(self.report_view)
        self.buttons = QDialogButtonBox()
        self.salvage_button = QPushButton("&Salvage")
        self.open_button = QPushButton("&Open Library")
        self.close_button = QPushButton("Close")
        self.buttons.addButton(self.salvage_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.close_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.open_button.hide()
        self.salvage_button.setDefault(True)
        self.salvage_button.clicked.connect(self.start)
        self.open_button.clicked.connect(self.accept)
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(self.buttons)
        self._relay = _Relay(self)
        self._relay.progressed.connect(self._on_progress)
        self._relay.finished.connect(self._on_finished)
        self._relay.failed.connect(self._on_failed)
        self.resize(640, 200)

    def running(self) -> bool:
        """True while the salvage thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the salvage on a background thread (the Salvage button)."""
        if self.running() or self.report is not None:
            return
        self._stop.clear()
        self.error = ""
        self.salvage_button.setEnabled(False)
        self.close_button.setText("Cancel")
        self.progress.setRange(0, 0)
        self.progress.show()
        relay = self._relay

        def work() -> None:
            try:
                report = salvage_library(self.folder,
                                         progress=lambda d, t: relay.progressed.emit(d, t),
                                         cancel=self._stop.is_set)
            except InterruptedError:
                relay.failed.emit("Salvage cancelled: nothing was changed.")
            except LibraryError as exc:
                relay.failed.emit(str(exc))
            except Exception as exc:  # noqa: BLE001 - shown in one line, never a traceback
                relay.failed.emit(f"{self.folder}: salvage failed "
                                  f"({exc.__class__.__name__}: {exc}); nothing was changed")
            else:
                relay.finished.emit(report)

        self._thread = threading.Thread(target=work, name="paperdesk-salvage", daemon=True)
        self._thread.start()

    def reject(self) -> None:
        """Close, or during a salvage: Cancel it (nothing is changed)."""
        if self.running():
            self._stop.set()
            self.close_button.setEnabled(False)
            return
        super().reject()

    def _on_progress(self, done: int, total: int) -> None:
        if total == 0:                       # writing the new database: no count
            self.progress.setFormat("Writing the new database")
            self.progress.setRange(0, 0)
            return
        self.progress.setRange(0, total)
        self.progress.setValue(min(done, total))

    def _on_finished(self, report: SalvageReport) -> None:
        self._thread = None
        self.report = report
        self.report_text = report.text()
        self.progress.hide()
        self.explain.hide()
        self.message.setText("Salvaged. The search index is rebuilt when the library opens.")
        self.report_view.setPlainText(self.report_text)
        self.report_view.show()
        self.salvage_button.hide()
        self.close_button.setText("Close")
        self.close_button.setEnabled(True)
        self.open_button.show()
        self.open_button.setDefault(True)
        self.open_button.setFocus()
        self.resize(760, 420)

    def _on_failed(self, message: str) -> None:
        self._thread = None
        self.error = message
        self.progress.hide()
        self.explain.setText(message)
        self.salvage_button.setEnabled(True)
        self.close_button.setText("Close")
        self.close_button.setEnabled(True)


def offer_salvage(folder: str | Path, message: str, parent: QWidget | None = None) -> bool:
    """Show the :class:`SalvageDialog` (modal), holding the library's lock meanwhile.

    Args:
        folder: the library folder.
        message: the one-line problem.
        parent: the owning widget.
    Returns:
        True when the database was salvaged and the user chose Open Library.
    """
    lock = LibraryLock(folder, app="gui")
    try:
        lock.acquire()
    except (LockHeld, LibraryError):
        return False
    try:
        dialog = SalvageDialog(folder, message, parent)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        return accepted and dialog.report is not None
    finally:
        lock.release()
