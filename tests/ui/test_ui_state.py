"""Remembered window state, reading comfort (zoom, line length), menus and panes."""

from __future__ import annotations

import os
import shutil

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QTextEdit  # noqa: E402

from paperdesk import __version__  # noqa: E402
from paperdesk.ui import create_main_window  # noqa: E402
from paperdesk.ui.window.dialogs import about_text  # noqa: E402
from paperdesk.ui.window.main_window import DETAIL_SHARE, TAG_PANE_WIDTH  # noqa: E402
from paperdesk.ui.panes.paper_model import PaperTableModel  # noqa: E402
from paperdesk.ui.app.settings import Settings  # noqa: E402
from ui_fixtures import (TOTAL, open_seeded, press, wait_row, wait_shown,  # noqa: F401,E402
                         win)


@pytest.fixture
def reopen(qtbot, tmp_path, _seeded_template):
    """``reopen(ini_name="prefs.ini", size=(1100, 720)) -> MainWindow`` on one library copy
    with preferences in ``tmp_path/ini_name``; closing saves them, as in the app."""
    library = tmp_path / "lib"
    shutil.copytree(_seeded_template, library)
    windows = []

    def _open(ini_name: str = "prefs.ini", size=None):
        settings = Settings(QSettings(str(tmp_path / ini_name), QSettings.Format.IniFormat))
        settings.auto_mark_read = False
        window = create_main_window(library, import_seeds=False, settings=settings)
        windows.append(window)
        if size:
            window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        # the list's ids are read on the reader thread
        qtbot.waitUntil(lambda: window.model.complete, timeout=20000)
        window.focus_list()
        return window

    yield _open
    for window in windows:
        window.close()
        window.shutdown()


def test_state_is_saved_on_close_and_restored(qtbot, reopen):
    window = reopen(size=(780, 580))    # the offscreen screen is 800 x 600
    window.splitter.setSizes([150, 330, 290])
    sizes = window.splitter.sizes()
    header = window.table.horizontalHeader()
    header.resizeSection(PaperTableModel.ADDED, 140)
    header.moveSection(header.visualIndex(PaperTableModel.ADDED), 0)
    window.table.sortByColumn(PaperTableModel.TITLE, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: window.model.complete, timeout=20000)   # (read off the UI)
    size = window.zoom_in() and window.zoom_in()
    window.detail_pane.splitter.setSizes([300, 250])
    detail_sizes = window.detail_pane.splitter.sizes()
    wait_row(qtbot, window, 0)       # (the rows are read off the UI thread too)
    first_title = window.model.data(window.model.index(0, PaperTableModel.TITLE))
    window.close()

    again = reopen()
    assert (again.width(), again.height()) == (780, 580)
    assert again.splitter.sizes() == sizes
    header = again.table.horizontalHeader()
    assert header.sectionSize(PaperTableModel.ADDED) == 140
    assert header.visualIndex(PaperTableModel.ADDED) == 0
    assert again.model.sort_column == PaperTableModel.TITLE
    assert again.model.sort_order == Qt.SortOrder.DescendingOrder
    assert header.sortIndicatorSection() == PaperTableModel.TITLE
    qtbot.waitUntil(lambda: again.model.complete, timeout=20000)
    wait_row(qtbot, again, 0)
    assert again.model.data(again.model.index(0, PaperTableModel.TITLE)) == first_title
    assert again.reading_font_size() == size
    wait_shown(qtbot, again)          # (the paper is read off the UI thread)
    restored = again.detail_pane.splitter.sizes()     # the same proportions
    assert abs(restored[0] / sum(restored) - detail_sizes[0] / sum(detail_sizes)) < 0.02
    assert again.table.isColumnHidden(PaperTableModel.SNIPPET)   # not searching


def _defaults_hold(window) -> None:
    sizes = window.splitter.sizes()
    assert sizes[0] == TAG_PANE_WIDTH
    assert abs(sizes[2] - window.width() * DETAIL_SHARE) < 40
    assert window.reading_font_size() == window.font().pointSizeF()
    assert window.model.sort_column == -1
    assert not window.tag_pane.isHidden() and not window.detail_pane.isHidden()
    assert window.model.rowCount() == TOTAL


@pytest.mark.parametrize("content", [
    b"\x00\xff\xfe garbage \x00" * 50,
    b"[window]\ngeometry=@ByteArray(zzz)\nlistHeader=@ByteArray(\x01\x02)\n"
    b"splitter_main=abc,def,1\nsplitter_detail=-5,7\nlistSort=x:y\nshow_tags=maybe\n"
    b"[reading]\nfontSize=huge\nautoMarkRead=perhaps\n[view]\nappearance=purple\n"
    b"[library]\nlast=/no/such/folder\n[import]\nfolder=42\n",
    None,   # no file at all
])
def test_damaged_or_missing_settings_fall_back_to_defaults(qtbot, reopen, tmp_path, content):
    if content is not None:
        (tmp_path / "bad.ini").write_bytes(content)
    window = reopen("bad.ini", size=(1200, 760))
    _defaults_hold(window)
    s = window.settings
    assert s.appearance == "system" and s.font_size is None and s.last_library is None
    assert s.import_folder.is_dir() and s.list_sort is None
    window.close()   # and saving over the damaged file works
    assert reopen("bad.ini").settings.splitter_sizes("main", 3) is not None


def test_settings_round_trip_values(tmp_path):
    s = Settings(QSettings(str(tmp_path / "p.ini"), QSettings.Format.IniFormat))
    s.last_library = tmp_path
    s.import_folder = tmp_path
    s.export_folder = tmp_path
    s.font_size = 13.5
    s.appearance = "dark"
    s.list_sort = (PaperTableModel.ADDED, True)
    s.set_splitter_sizes("main", [1, 2, 3])
    s.set_pane_visible("tags", False)
    s.sync()
    t = Settings(QSettings(str(tmp_path / "p.ini"), QSettings.Format.IniFormat))
    assert (t.last_library, t.import_folder, t.export_folder) == (tmp_path,) * 3
    assert (t.font_size, t.appearance, t.list_sort) == (13.5, "dark", (PaperTableModel.ADDED,
                                                                       True))
    assert t.splitter_sizes("main", 3) == [1, 2, 3] and t.splitter_sizes("main", 2) is None
    assert not t.pane_visible("tags") and t.pane_visible("detail")
    with pytest.raises(ValueError):
        t.appearance = "purple"


def test_zoom_keys_change_the_reading_font_and_are_remembered(qtbot, win):
    window = win
    normal = window.reading_font_size()
    view = window.detail_pane.abstract_view
    width = view.line_width()
    qtbot.keyClick(window.table, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert window.reading_font_size() == normal + 1
    assert view.font().pointSizeF() == normal + 1
    assert window.detail_pane.note_editor.font().pointSizeF() == normal + 1
    assert window.detail_pane.title_label.font().pointSizeF() > normal + 1
    assert view.line_width() > width        # the line grows with the font
    qtbot.keyClick(window.table, Qt.Key.Key_Plus, Qt.KeyboardModifier.ControlModifier)
    assert window.reading_font_size() == normal + 2
    assert window.settings.font_size == normal + 2
    for _ in range(3):
        qtbot.keyClick(window.table, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert window.reading_font_size() == normal - 1
    qtbot.keyClick(window.table, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert window.reading_font_size() == normal and window.settings.font_size is None
    for _ in range(60):   # never below or above the limits
        window.zoom_out()
    assert window.reading_font_size() == 6.0


def test_line_length_stays_readable_in_a_wide_pane(qtbot, win):
    window = win
    window.resize(2600, 900)
    window.splitter.setSizes([200, 700, 1700])
    qtbot.waitUntil(lambda: window.detail_pane.width() > 1500)
    view = window.detail_pane.abstract_view
    qtbot.waitUntil(lambda: view.lineWrapMode() == QTextEdit.LineWrapMode.FixedPixelWidth)
    assert view.lineWrapColumnOrWidth() == view.line_width() < view.viewport().width()
    block = view.abstract_block()
    longest = max(block.layout().lineAt(i).textLength()
                  for i in range(block.layout().lineCount() - 1))
    assert 55 <= longest <= 90, longest
    window.splitter.setSizes([200, 2000, 400])    # narrow again: wraps at the pane
    qtbot.waitUntil(lambda: view.lineWrapMode() == QTextEdit.LineWrapMode.WidgetWidth)


def test_select_all_selects_papers_or_the_text_being_edited(qtbot, win):
    window = win
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert len(window.table.selectionModel().selectedRows()) == TOTAL
    window.select_row(0)
    window.focus_search()
    qtbot.keyClicks(window.search_box, "depth")
    window.search_box.deselect()
    qtbot.keyClick(window.search_box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert window.search_box.selectedText() == "depth"
    window.actions_by_name["selectAllAction"].trigger()   # the menu item, same rule
    assert window.search_box.selectedText() == "depth"


def test_panes_can_be_hidden_and_stay_hidden(qtbot, reopen):
    window = reopen()
    qtbot.keyClick(window.table, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    assert window.tag_pane.isHidden()
    assert not window.actions_by_name["showSidebarAction"].isChecked()
    window.set_reading_pane_shown(False)
    assert window.detail_pane.isHidden()
    window.close()
    again = reopen()
    assert again.tag_pane.isHidden() and again.detail_pane.isHidden()
    assert not again.actions_by_name["showReadingPaneAction"].isChecked()
    again.focus_list()
    press(qtbot, again, "n")      # writing a note shows the reading pane again
    assert not again.detail_pane.isHidden()
    # the paper may still be on its way from the reader thread: the focus goes there
    # once it is shown
    qtbot.waitUntil(lambda: again.focusWidget() is again.detail_pane.note_editor,
                    timeout=5000)
    again.set_sidebar_shown(True)
    assert not again.tag_pane.isHidden() and again.tag_pane.width() > 50


def test_menus_hold_the_commands_of_a_desktop_app(win):
    menus = {m.title().replace("&", ""): m for m in
             (a.menu() for a in win.menuBar().actions()) if m is not None}

    def names(menu):
        out = []
        for action in menu.actions():
            if action.menu() is not None:
                out += names(action.menu())
            elif not action.isSeparator():
                out.append(action.objectName())
        return out

    assert {"importFilesAction", "exportAction", "openLibraryAction", "newLibraryAction",
            "quitAction"} <= set(names(menus["File"]))
    assert {"undoAction", "redoAction", "selectAllAction"} <= set(names(menus["Edit"]))
    assert {"zoomInAction", "zoomOutAction", "zoomResetAction", "showSidebarAction",
            "showReadingPaneAction", "appearanceSystemAction", "appearanceLightAction",
            "appearanceDarkAction"} <= set(names(menus["View"]))
    assert {"shortcutsAction", "aboutAction"} <= set(names(menus["Help"]))
    text = about_text(win.lib.path, win.settings.file_name())
    assert f"paperdesk {__version__}" in text and str(win.lib.path) in text
    assert "Traceback" not in text


def test_window_has_the_paperdesk_icon(win):
    sizes = {(s.width(), s.height()) for s in win.windowIcon().availableSizes()}
    assert {(16, 16), (32, 32), (48, 48), (256, 256), (512, 512)} <= sizes
