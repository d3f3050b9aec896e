"""A large font scale on a small screen (found by a tester at QT_FONT_DPI=144 on a
1280x800 screen): the window opens within the screen, and the Export dialog fits it with
its file box and buttons in view (its choices scroll instead). The offscreen screen here
is 800x800."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from paperdesk.ui import create_main_window
from ui_fixtures import WAIT_MS, make_settings


def test_the_window_opens_within_the_screen(qtbot, tmp_path, _seeded_template):
    shutil.copytree(_seeded_template, tmp_path / "lib")
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "p.ini"))
    try:
        room = window.screen().availableGeometry()
        assert window.width() <= room.width() and window.height() <= room.height()
    finally:
        window.close()
        window.shutdown()


def test_export_dialog_fits_a_small_screen_at_a_large_font(qtbot, tmp_path,
                                                           _seeded_template):
    app = QApplication.instance()
    saved = app.font()
    big = app.font()
    big.setPointSizeF(22)
    app.setFont(big)
    shutil.copytree(_seeded_template, tmp_path / "lib")
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "p.ini"))
    try:
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=5000)
        window.focus_list()
        qtbot.keyClick(window.table, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
        dialog = window.exports.export_dialog
        qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=WAIT_MS)
        room = dialog.screen().availableGeometry()
        assert dialog.frameGeometry().height() <= room.height()
        for widget in (dialog.path_edit, dialog.export_button, dialog.cancel_button):
            assert widget.isVisible()
            bottom = widget.mapTo(dialog, widget.rect().bottomLeft()).y()
            assert bottom <= dialog.height(), widget.objectName()
        assert dialog.choices_area.verticalScrollBar().maximum() > 0   # the choices scroll
        dialog.reject()
    finally:
        app.setFont(saved)
        window.close()
        window.shutdown()
