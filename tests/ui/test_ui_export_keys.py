"""The export dialog driven by the keyboard only (issue 13, item 1): Enter in the file box
or on a format radio button exports; Enter with a file name that cannot be written keeps
the dialog open with a one-line reason. Keys go to the focused widget with
``qtbot.keyClick`` / ``keyClicks``, as a user types them."""

from __future__ import annotations

import bibtexparser
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QRadioButton
from ui_fixtures import WAIT_MS, open_seeded, wait_idle, win  # noqa: F401

from paperdesk.ui.window.export_dialog import ExportDialog

ALT = Qt.KeyboardModifier.AltModifier
CTRL = Qt.KeyboardModifier.ControlModifier


def _key(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """Press one key in whatever widget has the keyboard focus."""
    qtbot.keyClick(QApplication.focusWidget(), key, modifier)


def _open_by_keyboard(qtbot, window, folder) -> ExportDialog:
    """Ctrl+E in the paper list, with ``folder`` as the remembered export folder; returns
    the dialog once it has the keyboard focus."""
    window.settings.export_folder = folder
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_E, CTRL)
    dialog = window.exports.export_dialog
    assert isinstance(dialog, ExportDialog)
    qtbot.waitUntil(dialog.isActiveWindow, timeout=5000)
    return dialog


def _tab_to(qtbot, dialog, wanted) -> None:
    """Press Tab until ``wanted(focus widget)`` holds (at most once round the dialog)."""
    for _ in range(40):
        if wanted(QApplication.focusWidget()):
            return
        _key(qtbot, Qt.Key.Key_Tab)
    raise AssertionError(f"Tab never reached it; focus on {QApplication.focusWidget()}")


def _type_file(qtbot, dialog, text: str) -> None:
    """Alt+F (the File: label's mnemonic) selects the file box; type ``text`` over it."""
    _key(qtbot, Qt.Key.Key_F, ALT)
    assert QApplication.focusWidget() is dialog.path_edit
    _key(qtbot, Qt.Key.Key_A, CTRL)
    if text:
        qtbot.keyClicks(dialog.path_edit, text)
    else:
        _key(qtbot, Qt.Key.Key_Delete)
    assert dialog.path_edit.text() == text


def _wait_written(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.export_runner.is_running(), timeout=WAIT_MS)
    QApplication.processEvents()


def test_enter_in_the_file_box_exports(qtbot, win, tmp_path):
    window = win
    dialog = _open_by_keyboard(qtbot, window, tmp_path)
    # Walk once round the dialog (through Cancel) as a new user does, then to the file.
    _tab_to(qtbot, dialog, lambda w: w is dialog.cancel_button)
    _tab_to(qtbot, dialog, lambda w: w.objectName() == "scopeCurrent")
    assert dialog.export_button.isDefault() and not dialog.cancel_button.isDefault()
    _type_file(qtbot, dialog, "by-keys.bib")               # in the remembered folder
    _key(qtbot, Qt.Key.Key_Return)

    assert not dialog.isVisible() and dialog.result() == dialog.DialogCode.Accepted
    _wait_written(qtbot, window)
    target = tmp_path / "by-keys.bib"
    library = bibtexparser.parse_string(target.read_text(encoding="utf-8"))
    assert len(library.entries) == window.lib.papers.count() and not library.failed_blocks
    assert window.statusBar().currentMessage().startswith("Exported ")


def test_enter_after_choosing_a_format_with_the_arrows_exports_it(qtbot, win, tmp_path):
    window = win
    dialog = _open_by_keyboard(qtbot, window, tmp_path)
    _type_file(qtbot, dialog, str(tmp_path / "list.bib"))
    _tab_to(qtbot, dialog, lambda w: isinstance(w, QRadioButton)
            and w.objectName().startswith("format_"))
    assert QApplication.focusWidget().objectName() == "format_bibtex"
    _key(qtbot, Qt.Key.Key_Down)                              # BibTeX -> RIS
    assert dialog.fmt() == "ris" and dialog.path() == tmp_path / "list.ris"
    _key(qtbot, Qt.Key.Key_Return)

    assert not dialog.isVisible()
    _wait_written(qtbot, window)
    text = (tmp_path / "list.ris").read_text(encoding="utf-8")
    assert text.startswith("TY  - ") and text.count("\nER  -") == window.lib.papers.count()
    assert not (tmp_path / "list.bib").exists()


def test_enter_with_no_file_or_a_folder_says_why_and_stays_open(qtbot, win, tmp_path):
    window = win
    dialog = _open_by_keyboard(qtbot, window, tmp_path)
    problem = dialog.problem_label
    assert problem.textFormat() == Qt.TextFormat.PlainText

    _type_file(qtbot, dialog, "")
    _key(qtbot, Qt.Key.Key_Return)
    assert dialog.isVisible() and not window.export_runner.is_running()
    assert problem.isVisible() and "file name" in problem.text() and "\n" not in problem.text()

    _type_file(qtbot, dialog, str(tmp_path))                  # a folder, not a file
    assert problem.isHidden()                                 # typing clears the reason
    _key(qtbot, Qt.Key.Key_Return)
    assert dialog.isVisible() and not window.export_runner.is_running()
    assert problem.isVisible() and "\n" not in problem.text()
    assert problem.text().startswith(f"{tmp_path} is a folder")
    assert list(tmp_path.glob("*.bib")) == []

    _key(qtbot, Qt.Key.Key_Escape)                            # Esc still cancels
    assert not dialog.isVisible() and dialog.result() == dialog.DialogCode.Rejected


def test_enter_with_no_papers_says_so(qtbot, win, tmp_path):
    window = win
    qtbot.keyClicks(window.search_box, "qqxzqqxz")            # matches no abstract
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.rowCount() == 0, timeout=WAIT_MS)
    dialog = _open_by_keyboard(qtbot, window, tmp_path)
    assert not dialog.export_button.isEnabled()
    _type_file(qtbot, dialog, "empty.bib")
    _key(qtbot, Qt.Key.Key_Return)
    assert dialog.isVisible() and "no papers to export" in dialog.problem_label.text()
    assert not (tmp_path / "empty.bib").exists()


def test_ctrl_e_then_down_then_enter_exports_the_next_format(qtbot, win, tmp_path):
    """As a user tries first (issue 13 item 1, found again by a tester): the arrows right
    after Ctrl+E choose the format; they never move the focus onto Cancel."""
    window = win
    dialog = _open_by_keyboard(qtbot, window, tmp_path)
    first = dialog.fmt()
    assert QApplication.focusWidget().objectName() == f"format_{first}"
    _key(qtbot, Qt.Key.Key_Down)
    chosen = dialog.fmt()
    assert chosen != first and QApplication.focusWidget().objectName() == f"format_{chosen}"
    _key(qtbot, Qt.Key.Key_Return)
    assert not dialog.isVisible()
    _wait_written(qtbot, window)
    assert dialog.path().exists() and dialog.path().stat().st_size > 0
