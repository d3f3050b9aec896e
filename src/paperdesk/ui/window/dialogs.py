"""Small dialogs: error and import-problem messages, keyboard shortcuts, About.

Every message box here uses plain-text format, so file names or error text containing
``<`` are shown literally.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QShowEvent
from PySide6.QtWidgets import (QAbstractItemView, QAbstractSlider, QDialog, QDialogButtonBox,
                               QHeaderView, QMessageBox, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from paperdesk import __version__
from paperdesk.ui.window.actions import shortcut_rows

__all__ = ["message_box", "show_import_problems", "ShortcutsDialog", "show_about",
           "about_text", "SHORTCUTS"]

#: ``(keys, what they do)`` rows of the Keyboard shortcuts dialog, from the actions table.
SHORTCUTS: tuple[tuple[str, str], ...] = tuple(shortcut_rows())


def message_box(parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str,
                details: str | None = None, modal: bool = True) -> QMessageBox:
    """Create and show a plain-text message box.

    Args:
        parent: owning window (or ``None``).
        icon: e.g. ``QMessageBox.Icon.Warning``.
        title: window title.
        text: the message (shown literally).
        details: optional text behind a "Show Details…" button.
        modal: True runs it to completion (``exec``); False shows it and returns at once.
    Returns:
        The message box (already closed when ``modal``).
    """
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    if details:
        box.setDetailedText(details)
    if modal:
        box.exec()
    else:
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.show()
    return box


def show_import_problems(parent: QWidget | None, rejected: Sequence[dict]) -> QMessageBox:
    """Show, without blocking, which files were not imported and why.

    Args:
        parent: owning window.
        rejected: ``[{"path": str, "reason": str}]`` from ``ImportReport.rejected``.
    Returns:
        The (non-modal) message box.
    """
    lines = [f"{os.path.basename(r['path']) or r['path']}: {r['reason']}" for r in rejected]
    n = len(rejected)
    head = "This file was not imported:" if n == 1 else f"These {n:,} files were not imported:"
    shown = lines[:12] + ([f"… and {n - 12:,} more (see details)"] if n > 12 else [])
    details = "\n".join(f"{r['path']}: {r['reason']}" for r in rejected)
    return message_box(parent, QMessageBox.Icon.Warning, "Some files were not imported",
                       head + "\n\n" + "\n".join(shown), details=details, modal=False)


_Slide = QAbstractSlider.SliderAction

#: Keys that scroll the read-only shortcuts table, and what they do to its vertical scroll bar.
_SCROLL_KEYS = {Qt.Key.Key_PageDown: _Slide.SliderPageStepAdd,
                Qt.Key.Key_PageUp: _Slide.SliderPageStepSub,
                Qt.Key.Key_Down: _Slide.SliderSingleStepAdd,
                Qt.Key.Key_Up: _Slide.SliderSingleStepSub,
                Qt.Key.Key_Home: _Slide.SliderToMinimum,
                Qt.Key.Key_End: _Slide.SliderToMaximum}


class _ScrollOnlyTable(QTableWidget):
    """A read-only table that PageDown/PageUp/Down/Up/Home/End scroll (no cell cursor);
    every other key (Esc, Tab...) goes on as usual."""

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        """Scroll for the keys in :data:`_SCROLL_KEYS` (without modifiers), else default."""
        action = _SCROLL_KEYS.get(Qt.Key(event.key()))
        if action is not None and not (event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            self.verticalScrollBar().triggerAction(action)
            event.accept()
            return
        super().keyPressEvent(event)


class ShortcutsDialog(QDialog):
    """A non-modal table of keyboard shortcuts (:data:`SHORTCUTS`, built from
    :data:`paperdesk.ui.window.actions.ACTIONS`), with a button to the search syntax.
    The table has the focus when the dialog opens (Tab reaches it too): PageDown, PageUp,
    Down, Up, Home and End scroll it; Esc closes the dialog.

    Signals:
        searchHelpRequested(): the "Search Syntax…" button was clicked.
    """

    searchHelpRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        table = _ScrollOnlyTable(len(SHORTCUTS), 2, self)
        table.setObjectName("shortcutsTable")
        table.setHorizontalHeaderLabels(["Keys", "Action"])
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        table.setShowGrid(False)
        for row, (keys, action) in enumerate(SHORTCUTS):
            table.setItem(row, 0, QTableWidgetItem(keys))
            table.setItem(row, 1, QTableWidgetItem(action))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        # Long descriptions wrap onto more lines (a keyboard user cannot read a
        # tooltip): rows take the height their text needs at the current width.
        table.setWordWrap(True)
        table.setTextElideMode(Qt.TextElideMode.ElideNone)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # ... again whenever the Action column's width changes (a resized window).
        header.sectionResized.connect(
            lambda column, _old, _new: column == 1 and table.resizeRowsToContents())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        syntax = buttons.addButton("Search Syntax…", QDialogButtonBox.ButtonRole.HelpRole)
        syntax.setObjectName("searchSyntaxButton")
        syntax.clicked.connect(self.searchHelpRequested)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.table = table
        self.resize(640, 640)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        """Give the table the keyboard focus each time the dialog is shown."""
        super().showEvent(event)
        self.table.setFocus(Qt.FocusReason.ActiveWindowFocusReason)


def about_text(library_path=None, settings_file: str = "") -> str:
    """Return the About box's text: version, library folder, settings file, Qt and
    Python versions.

    Args:
        library_path: the open library's folder (``str`` or ``Path``), or ``None``.
        settings_file: the preferences file, or ``""``.
    """
    import platform

    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    lines = [f"paperdesk {__version__}", "",
             "Read, tag, search and export research-paper abstracts, offline.",
             "Your library is stored on this computer only.", ""]
    if library_path is not None:
        lines.append(f"Library: {library_path}")
    if settings_file:
        lines.append(f"Settings: {settings_file}")
    lines.append(f"Qt {qVersion()} · PySide6 {pyside_version} · "
                 f"Python {platform.python_version()}")
    return "\n".join(lines)


def show_about(parent: QWidget | None, library_path=None, settings_file: str = "",
               modal: bool = True) -> QMessageBox:
    """Show the About box (:func:`about_text`).

    Args:
        parent: owning window.
        library_path: the open library's folder, or ``None``.
        settings_file: the preferences file, or ``""``.
        modal: run it to completion (False: show it and return at once).
    Returns:
        The message box.
    """
    box = message_box(parent, QMessageBox.Icon.Information, "About paperdesk",
                      about_text(library_path, settings_file), modal=modal)
    return box
