"""File ▸ Import Keywords as Tags (issue 25, item 9): on (the default), a BibTeX file's
keywords become tags when it is imported; turned off with the keyboard (Alt+F, K), the
next import brings the notes but no tags, and the choice is remembered."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog

from ui_fixtures import WAIT_MS, open_seeded, win  # noqa: F401


def _entry(key: str, title: str) -> str:
    return (f"@article{{{key}, title = {{{title}}}, keywords = {{{key}-one, {key}-two}},\n"
            f"  annote = {{Notes on {key}.}}}}\n")


def _import_by_keys(qtbot, window, monkeypatch, path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        lambda *_args: ([str(path)], ""))
    window.imports.last_import_report = None
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.imports.last_import_report is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)


def _paper(window, key: str):
    lib = window.lib
    return next(lib.papers.get(i) for i in lib.papers.ids()
                if lib.papers.citation_key(i) == key)


def test_keywords_become_tags_unless_turned_off(qtbot, win, tmp_path, monkeypatch):
    window = win
    action = window.actions_by_name["importKeywordsAction"]
    assert action.isCheckable() and action.isChecked()
    on = tmp_path / "on.bib"
    on.write_text(_entry("kwon", "Keywords kept as tags"), encoding="utf-8")
    _import_by_keys(qtbot, window, monkeypatch, on)
    paper = _paper(window, "kwon")
    assert {t.name for t in paper.tags} == {"kwon-one", "kwon-two"}
    assert paper.note == "Notes on kwon."
    # The new tags are listed in the tag pane without restarting.
    qtbot.waitUntil(lambda: {"kwon-one", "kwon-two"} <= {
        t.name for t in window.tag_pane.tag_entries()}, timeout=WAIT_MS)

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_F, Qt.KeyboardModifier.AltModifier)  # &File
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    qtbot.keyClick(QApplication.activePopupWidget(), "k")   # Import &Keywords as Tags
    qtbot.waitUntil(lambda: not action.isChecked(), timeout=5000)
    assert window.settings.import_keywords is False

    off = tmp_path / "off.bib"
    off.write_text(_entry("kwoff", "Keywords left out"), encoding="utf-8")
    _import_by_keys(qtbot, window, monkeypatch, off)
    paper = _paper(window, "kwoff")
    assert paper.tags == () or list(paper.tags) == []
    assert paper.note == "Notes on kwoff."
    assert window.lib.tags.by_name("kwoff-one") is None
