"""File ▸ Export… and Copy as BibTeX / Markdown on the seed library, offscreen.

The export dialog is opened window-modal (``open()``, not ``exec()``) and driven through
its setters and ``accept()``; an export failure is shown in a non-modal message box
(``window.exports.export_message``), so nothing here blocks.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import threading
import time

import bibtexparser
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from ui_fixtures import (TOTAL, WAIT_MS, make_settings, open_seeded, settle,  # noqa: F401
                         ui_thread_guard, wait_idle, wait_listed, win)

from paperdesk.core.exports import to_file as export_ops
from paperdesk.core.exports.formats import FIELDS, export_format
from paperdesk.ui.window.actions import ACTIONS, shortcut_rows
from paperdesk.ui.window.export_dialog import ExportDialog, ExportOptions, file_stem
from paperdesk.ui.panes.paper_model import PaperTableModel
from paperdesk.core.scope import Scope
from paperdesk.ui.app.settings import Settings

TAGGED = 12


def _tag_papers(qtbot, window, name: str = "to read", n: int = TAGGED) -> list[int]:
    ids = window.lib.papers.ids()[:n]
    assert window.triage.add_tag(name, ids)
    settle(qtbot, window)
    assert window.lib.tags.by_name(name).count == n
    return ids


def _choose_tag_in_pane(qtbot, window, name: str) -> None:
    tag = window.lib.tags.by_name(name)
    pane = window.tag_pane
    item = pane.tag_item(tag.id)
    pane.scrollToItem(item)
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton,
                     pos=pane.visualItemRect(item).center())
    qtbot.waitUntil(lambda: window.current_scope().tag_id == tag.id, timeout=WAIT_MS)
    wait_listed(qtbot, window)


def _open_dialog_by_keyboard(qtbot, window) -> ExportDialog:
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    dialog = window.exports.export_dialog
    assert isinstance(dialog, ExportDialog)
    qtbot.waitUntil(dialog.isVisible, timeout=5000)
    return dialog


def _wait_export(qtbot, window) -> None:
    """Wait for the export to end, and for the window's other background work (the term
    table of related papers is built for the first paper shown, with its own progress in
    the same status bar) so that the progress bar's state is the export's."""
    qtbot.waitUntil(lambda: not window.export_runner.is_running(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.is_busy()
                    and not window.discover.discover_runner.is_running(), timeout=WAIT_MS)
    QApplication.processEvents()


def _leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# -- exporting the list ----------------------------------------------------------------------
def test_ctrl_e_exports_the_tag_chosen_in_the_pane_as_bibtex(qtbot, win, tmp_path):
    window = win
    _tag_papers(qtbot, window)
    _choose_tag_in_pane(qtbot, window, "to read")
    assert window.model.rowCount() == TAGGED

    dialog = _open_dialog_by_keyboard(qtbot, window)
    assert dialog.isModal() or dialog.windowModality() != Qt.WindowModality.NonModal
    assert dialog.scope() == "current"
    assert "tag “to read”" in dialog.findChild(object, "scopeCurrent").text()
    assert dialog.fmt() == "bibtex"                          # nothing remembered yet
    assert dialog.count_label.text() == f"{TAGGED} papers will be exported as BibTeX"
    assert dialog.path().name == "to-read.bib"               # named after the scope
    target = tmp_path / "out" / "reading.bib"
    target.parent.mkdir()
    dialog.set_path(target)
    dialog.accept()
    assert not dialog.isVisible()
    _wait_export(qtbot, window)

    library = bibtexparser.parse_string(target.read_text(encoding="utf-8"))
    assert len(library.entries) == TAGGED
    assert not library.failed_blocks
    assert window.statusBar().currentMessage() == f"Exported {TAGGED} papers to {target}"
    assert window.progress_bar.isHidden() and window.cancel_button.isHidden()
    assert window.actions_by_name["exportAction"].isEnabled()
    assert _leftovers(target.parent) == ["reading.bib"]     # no temporary file left


def test_csv_follows_the_list_order_and_the_chosen_fields(qtbot, win, tmp_path):
    window = win
    _tag_papers(qtbot, window, "batch", 30)
    window.tag_pane.select_scope(Scope(tag_id=window.lib.tags.by_name("batch").id))
    window.table.sortByColumn(PaperTableModel.TITLE, Qt.SortOrder.DescendingOrder)
    wait_listed(qtbot, window)
    listed = window.model.ids()
    assert len(listed) == 30 and listed != sorted(listed)

    dialog = window.exports.open_export_dialog()
    dialog.set_format("csv")
    assert dialog.path().suffix == ".csv"
    dialog.set_fields(["abstract", "tags"])
    assert dialog.findChild(object, "field_id").isChecked()       # always on
    assert not dialog.findChild(object, "field_id").isEnabled()
    target = tmp_path / "batch.csv"
    dialog.set_path(target)
    dialog.accept()
    _wait_export(qtbot, window)

    rows = list(csv.reader(io.StringIO(target.read_text(encoding="utf-8-sig"), newline="")))
    assert rows[0] == ["id", "title", "abstract", "tags"]
    assert [int(r[0]) for r in rows[1:]] == listed            # in list order
    assert all(r[3] == "batch" for r in rows[1:])


def _resolved(lib, options: ExportOptions) -> list[int]:
    """The ids the export thread looks up for ``options``."""
    scope, sort, descending = options.resolve
    return lib.papers.scope_ids(scope, sort=sort, descending=descending)


def test_scopes_selected_tag_and_whole_library(qtbot, win, tmp_path, ui_thread_guard):
    window, lib = win, win.lib
    tagged = _tag_papers(qtbot, window, "scaling", 5)
    window.select_rows([1, 3, 4])
    selected = window.selected_ids()
    ui_thread_guard.arm(window)         # the dialog reads nothing from the library
    dialog = window.exports.open_export_dialog()
    assert dialog.scope() == "selected"          # several rows selected: those
    assert dialog.count() == 3 and dialog.count_label.text().startswith("3 papers")
    assert dialog.set_scope("tag", "SCALING")    # without regard to case
    assert dialog.count() == 5 and dialog.path().name == "scaling.bib"
    tag_options = dialog.options()
    assert dialog.set_scope("all")
    assert dialog.count() == TOTAL
    assert dialog._scope_counts["all"].text() == f"{TOTAL:,}"
    assert dialog.path().name == "paperdesk-library.bib"
    all_options = dialog.options()
    assert not dialog.set_scope("tag", "no such tag")
    assert dialog.set_scope("selected")
    selected_options = dialog.options()
    dialog.reject()
    ui_thread_guard.check()
    with ui_thread_guard.allowed():     # the export thread's lookups give those papers
        assert sorted(_resolved(lib, selected_options)) == sorted(selected)
        assert _resolved(lib, tag_options) == tagged
        assert len(_resolved(lib, all_options)) == lib.papers.count() == TOTAL
    assert (selected_options.count, tag_options.count, all_options.count) == (3, 5, TOTAL)


def test_a_tags_papers_are_looked_up_when_the_export_runs(qtbot, win, tmp_path):
    """Exporting a tag writes the papers it has when the export runs, all of them."""
    window = win
    tagged = _tag_papers(qtbot, window, "later", 7)
    dialog = window.exports.open_export_dialog()
    assert dialog.set_scope("tag", "later")
    target = tmp_path / "later.json"
    dialog.set_format("json")
    dialog.set_path(target)
    dialog.accept()
    _wait_export(qtbot, window)
    papers = json.loads(target.read_text(encoding="utf-8"))["papers"]
    assert sorted(p["id"] for p in papers) == sorted(tagged)
    assert window.statusBar().currentMessage() == f"Exported 7 papers to {target}"


def test_search_results_are_the_current_list(qtbot, win):
    window = win
    window.search_box.setText("diffusion")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=WAIT_MS)
    dialog = window.exports.open_export_dialog()
    assert dialog.scope() == "current"
    assert dialog.ids() == tuple(window.model.ids()) and dialog.ids()
    assert "search results for “diffusion”" in dialog.findChild(object, "scopeCurrent").text()
    assert dialog.path().name == "search-diffusion.bib"
    dialog.reject()


def test_dialog_keeps_problems_inside_it(qtbot, win, tmp_path):
    window = win
    dialog = window.exports.open_export_dialog()
    dialog.set_path("")
    dialog.accept()
    assert dialog.isVisible() and not window.export_runner.is_running()
    assert "file name" in dialog.problem_label.text()
    dialog.set_path(tmp_path)                    # a folder, not a file
    dialog.accept()
    assert dialog.isVisible() and "is a folder" in dialog.problem_label.text()

    existing = tmp_path / "old.bib"
    existing.write_text("keep me", encoding="utf-8")
    asked = []
    dialog.confirm_overwrite = lambda path: asked.append(path) or False
    dialog.set_path(existing)
    dialog.accept()
    assert asked == [existing] and dialog.isVisible()
    assert existing.read_text(encoding="utf-8") == "keep me"
    dialog.reject()


# -- failures and cancel -------------------------------------------------------------------
def test_a_missing_folder_gives_a_message_box_and_no_file(qtbot, win, tmp_path):
    window = win
    target = tmp_path / "missing" / "papers.ris"
    dialog = window.exports.open_export_dialog()
    dialog.set_format("ris")
    dialog.set_path(target)
    dialog.accept()
    _wait_export(qtbot, window)
    box = window.exports.export_message
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert box.windowTitle() == "Export failed"
    assert str(target) in box.text() and "No such file or directory" in box.text()
    assert "Traceback" not in box.text()
    assert not target.exists() and not target.parent.exists()
    assert window.progress_bar.isHidden()
    box.close()


def test_a_full_disk_gives_a_message_box_and_no_file(qtbot, win, tmp_path, monkeypatch):
    window = win

    def full(_fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(export_ops.os, "fsync", full)
    target = tmp_path / "full" / "all.json"
    target.parent.mkdir()
    dialog = window.exports.open_export_dialog()
    dialog.set_scope("all")
    dialog.set_format("json")
    dialog.set_path(target)
    dialog.accept()
    _wait_export(qtbot, window)
    text = window.exports.export_message.text()
    assert "all.json" in text and "No space left on device" in text
    assert "Free some disk space" in text
    assert _leftovers(target.parent) == []
    window.exports.export_message.close()


def test_a_refused_folder_gives_a_message_box_and_no_file(qtbot, win, tmp_path,
                                                          monkeypatch):
    """A read-only folder as the OS reports it (works even when the tests run as root)."""
    window = win

    def refuse(*_args, **_kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(export_ops.tempfile, "mkstemp", refuse)
    target = tmp_path / "papers.bib"
    dialog = window.exports.open_export_dialog()
    dialog.set_path(target)
    dialog.accept()
    _wait_export(qtbot, window)
    text = window.exports.export_message.text()
    assert f"cannot write {target}: Permission denied" in text
    assert "Choose a folder you can write to." in text
    assert not target.exists()
    window.exports.export_message.close()


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root may write into read-only folders")
def test_a_read_only_folder_gives_a_message_box_and_no_file(qtbot, win, tmp_path):
    window = win
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        dialog = window.exports.open_export_dialog()
        dialog.set_path(folder / "papers.bib")
        dialog.accept()
        _wait_export(qtbot, window)
        assert "Permission denied" in window.exports.export_message.text()
        assert _leftovers(folder) == []
        window.exports.export_message.close()
    finally:
        folder.chmod(0o755)


def test_cancel_in_the_status_bar_leaves_no_file(qtbot, win, tmp_path, monkeypatch):
    window = win
    real_get = window.lib.papers.get

    def slow_get(pid):          # slow only on the export thread
        if threading.current_thread() is not threading.main_thread():
            time.sleep(0.01)
        return real_get(pid)

    monkeypatch.setattr(window.lib.papers, "get", slow_get)
    target = tmp_path / "all.bib"
    dialog = window.exports.open_export_dialog()
    dialog.set_scope("all")
    dialog.set_path(target)
    dialog.accept()
    assert window.export_runner.is_running()
    assert window.cancel_button.isVisible() and window.progress_bar.isVisible()
    assert not window.actions_by_name["importFilesAction"].isEnabled()
    assert not window.start_import([tmp_path])               # one job at a time
    qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    _wait_export(qtbot, window)
    assert window.statusBar().currentMessage() == "Export cancelled — no file was written"
    assert not target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
    assert window.cancel_button.isHidden()
    assert window.actions_by_name["importFilesAction"].isEnabled()


def test_closing_the_window_during_an_export_stops_it_without_a_file(
        qtbot, win, tmp_path, monkeypatch):
    window = win
    real_get = window.lib.papers.get
    monkeypatch.setattr(window.lib.papers, "get", lambda pid: (time.sleep(0.01), real_get(pid))[1])
    target = tmp_path / "closing.md"
    assert window.exports.export_with(ExportOptions(tuple(window.lib.papers.ids()), "markdown",
                                            target))
    window.close()
    assert not window.export_runner.is_running()
    assert not target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


# -- remembered choices ----------------------------------------------------------------------
def test_folder_and_format_come_back_next_time(qtbot, open_seeded, tmp_path):
    window = open_seeded()
    folder = tmp_path / "exports"
    folder.mkdir()
    dialog = window.exports.open_export_dialog()
    dialog.set_format("csl-json")
    dialog.set_path(folder / "mine.json")
    dialog.accept()
    _wait_export(qtbot, window)
    assert (folder / "mine.json").exists()

    again = window.exports.open_export_dialog()
    assert again.fmt() == "csl-json"
    assert again.path().parent == folder
    assert again.path().name == "paperdesk-library.json"
    again.reject()
    stored = Settings(QSettings(str(tmp_path / "lib.ini"), QSettings.Format.IniFormat))
    assert (stored.export_format, stored.export_folder) == ("csl-json", folder)


def test_a_remembered_folder_that_is_gone_falls_back(tmp_path):
    settings = make_settings(tmp_path / "s.ini")
    settings.export_folder = tmp_path / "gone"
    assert settings.export_folder.is_dir()
    assert settings.export_format == "bibtex"
    with pytest.raises(ValueError):
        settings.export_format = "docx"


# -- the clipboard ---------------------------------------------------------------------------
def test_ctrl_alt_c_copies_the_selected_papers_as_bibtex(qtbot, win):
    # Ctrl+Shift+C was Copy as BibTeX until issue 33 gave it to Copy as Bibliography.
    window = win
    window.select_rows([0, 2, 5])
    chosen = window.selected_ids()
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_C,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Copied"),
                    timeout=WAIT_MS)
    text = QApplication.clipboard().text()
    library = bibtexparser.parse_string(text)
    assert len(library.entries) == 3
    titles = {window.lib.papers.get(pid).title for pid in chosen}
    assert all(e.entry_type == "misc" for e in library.entries)
    assert len(titles) == 3
    assert window.statusBar().currentMessage() == "Copied 3 papers as BibTeX"


def test_copy_as_markdown_from_the_edit_menu(qtbot, win):
    window = win
    window.select_row(4)
    action = window.actions_by_name["copyMarkdownAction"]
    assert action in window.menuBar().actions()[1].menu().actions()     # Edit menu
    action.trigger()
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Copied"),
                    timeout=WAIT_MS)
    text = QApplication.clipboard().text()
    assert text.startswith("# Reading list") and text.count("\n## ") == 1
    assert window.statusBar().currentMessage() == "Copied 1 paper as Markdown"


def test_copy_commands_and_export_are_in_the_shortcuts_list():
    specs = {s.name: s for s in ACTIONS}
    assert specs["exportAction"].shortcuts == ("Ctrl+E",) and specs["exportAction"].menu == "file"
    assert specs["copyBibtexAction"].shortcuts == ("Ctrl+Alt+C",)
    assert specs["copyBibliographyAction"].shortcuts == ("Ctrl+Shift+C",)
    assert specs["copyCitationAction"].shortcuts == ("Ctrl+Shift+A",)
    assert specs["copyMarkdownAction"].menu == "edit"
    described = {what for _keys, what in shortcut_rows()}
    assert {"Copy the selected papers to the clipboard as BibTeX",
            "Copy the selected papers to the clipboard as Markdown"} <= described
    assert any(what.startswith("Export papers") for what in described)


def test_file_stems_and_format_hints():
    assert file_stem("Tag: To read!") == "tag-to-read"
    assert file_stem("***") == "papers"
    assert file_stem("Überblick 2024") == "überblick-2024"
    bibtex = export_format("bibtex")
    assert (bibtex.label, bibtex.purpose, bibtex.extension) == ("BibTeX", "JabRef, LaTeX",
                                                                ".bib")
    assert set(FIELDS) >= {"id", "title"}


def test_current_list_of_a_large_search_exports_every_match(qtbot, win, tmp_path,
                                                           monkeypatch):
    """A search with more hits than the first page of rows: the list holds every match's
    id from the one search pass, so the dialog counts them all and the export writes all
    of them in the list's order, without searching again."""
    from paperdesk.ui.background import workers

    window, lib = win, win.lib
    window.focus_search()
    qtbot.keyClicks(window.search_box, "the")
    qtbot.waitUntil(lambda: window.model.searching and window.model.rowCount() > 0
                    and not window.is_busy(), timeout=WAIT_MS)
    results, complete = window.search.search_results()
    everything = lib.search.find("the", limit=None).total
    assert everything > workers.FIRST_PAGE and len(results.hits) == workers.FIRST_PAGE
    assert complete and window.model.rowCount() == everything == results.total
    calls = []
    monkeypatch.setattr(lib.papers, "scope_ids", lambda *a, **k: calls.append(1))
    dialog = window.exports.open_export_dialog()
    assert dialog.findChild(object, "exportCount").text().startswith(f"{everything} ")
    dialog.set_format("json")
    target = tmp_path / "all.json"
    dialog.set_path(target)
    dialog.accept()
    _wait_export(qtbot, window)
    papers = json.loads(target.read_text(encoding="utf-8"))["papers"]
    assert [p["id"] for p in papers] == window.model.ids()
    assert calls == []                  # the list's ids, not a second search


def test_the_export_dialogs_counts_have_thousands_separators(qtbot, win):
    """A new user's try: "Whole library 1932" beside "1,932" everywhere else. The
    counts are the tag pane's (nothing is counted on the UI thread)."""
    from paperdesk.core.models import Tag
    from paperdesk.ui.window.export_dialog import ListSnapshot

    dialog = ExportDialog([Tag(7, "big", "#336699", None, 12_345)], 1_932,
                          ListSnapshot((1, 2), "all papers", "paperdesk-library"), (),
                          win.settings, lambda options: False, current_tag_id=7,
                          parent=win)
    try:
        labels = [label.text() for label in dialog._scope_counts.values() if label.text()]
        assert labels == ["2", "0", "12,345", "1,932"], labels
        dialog.set_scope("all")
        assert dialog.count_label.text().startswith("1,932 papers")
    finally:
        dialog.reject()
