"""Organisations and "et al." in the window (issue 25, items 1 and 7): typed in the metadata
editor (m) with keys, an organisation in braces and "et al." as the last line; opened
again and saved, they stay as they are; the detail pane shows "…, et al.". Keys are sent
as keys; results are read back from the library."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from ui_fixtures import WAIT_MS, open_metadata_editor, open_seeded, settle, win  # noqa: F401

from paperdesk.core.models import Author, Metadata


def _focus():
    return QApplication.focusWidget()


_open_editor = open_metadata_editor


def _save(qtbot, window, dialog) -> None:
    qtbot.keyClick(dialog.date, Qt.Key.Key_Return)      # Enter in a line field saves
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)


def test_an_organisation_and_et_al_typed_in_the_editor_are_kept(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    dialog = _open_editor(qtbot, window)
    qtbot.keyClicks(dialog.authors, "{Barnes and Noble}")
    qtbot.keyClick(dialog.authors, Qt.Key.Key_Return)      # Enter in Authors: next author
    qtbot.keyClicks(dialog.authors, "{World Health Organization}; Doe, Jane")
    qtbot.keyClick(dialog.authors, Qt.Key.Key_Return)
    qtbot.keyClicks(dialog.authors, "et al.")
    qtbot.keyClick(dialog.authors, Qt.Key.Key_Tab)
    assert _focus() is dialog.date
    qtbot.keyClicks(dialog.date, "2020")
    _save(qtbot, window, dialog)

    meta = lib.papers.metadata(pid)
    assert meta.authors == (Author("Barnes and Noble"), Author("World Health Organization"),
                            Author("Doe", "Jane"))
    assert meta.et_al
    pane = window.detail_pane
    qtbot.waitUntil(lambda: pane.paper.metadata == meta, timeout=WAIT_MS)
    assert pane.byline_label.text() == ("Barnes and Noble, World Health Organization, "
                                        "Jane Doe, et al.  ·  2020")
    assert ("Barnes and Noble; World Health Organization; Doe, Jane; et al."
            in pane.abstract_view.toPlainText())

    # Opened again, the editor shows them as typed, and saving keeps them whole.
    dialog = _open_editor(qtbot, window)
    assert dialog.authors.toPlainText() == ("{Barnes and Noble}\n"
                                            "{World Health Organization}\nDoe, Jane\net al.")
    qtbot.keyClick(dialog.authors, Qt.Key.Key_Tab)
    qtbot.keyClick(dialog.date, Qt.Key.Key_End)             # Tab selected the year
    qtbot.keyClicks(dialog.date, "-05")
    _save(qtbot, window, dialog)
    again = lib.papers.metadata(pid)
    assert (again.authors, again.et_al, again.date) == (meta.authors, True, "2020-05")


def test_deleting_the_et_al_line_makes_the_list_complete(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    window.submit_edit(lambda l: l.papers.set_metadata(
        pid, Metadata(authors=(Author("Antognini", "A."),), et_al=True)))
    settle(qtbot, window)
    pane = window.detail_pane
    qtbot.waitUntil(lambda: pane.paper.metadata.et_al, timeout=WAIT_MS)
    assert pane.byline_label.text() == "A. Antognini, et al."
    dialog = _open_editor(qtbot, window)
    assert dialog.authors.toPlainText() == "Antognini, A.\net al."
    qtbot.keyClick(dialog.authors, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    for _ in range(len("\net al.")):
        qtbot.keyClick(dialog.authors, Qt.Key.Key_Backspace)
    qtbot.keyClick(dialog.authors, Qt.Key.Key_Tab)
    _save(qtbot, window, dialog)
    meta = lib.papers.metadata(pid)
    assert (meta.authors, meta.et_al) == ((Author("Antognini", "A."),), False)
