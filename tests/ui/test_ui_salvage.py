"""The window's Salvage offer on a damaged database (issue 23, item 2): where the window
refuses to open it, the dialog offers Salvage; Enter runs it on a background thread, the
report is plain text, Enter again opens the salvaged library."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt

from ui_fixtures import WAIT_MS, make_settings


def _cut_in_half(folder) -> None:
    db = folder / "library.db"
    with open(db, "r+b") as f:
        f.truncate(db.stat().st_size // 2)


def test_salvage_offer_driven_by_keys(qtbot, tmp_path, _seeded_template):
    from paperdesk.core.models import DatabaseDamaged
    from paperdesk.ui import create_main_window
    from paperdesk.ui.app.salvage_dialog import SalvageDialog

    folder = tmp_path / "lib"
    shutil.copytree(_seeded_template, folder)
    _cut_in_half(folder)
    settings = make_settings(tmp_path / "s.ini")
    with pytest.raises(DatabaseDamaged) as refused:
        create_main_window(folder, import_seeds=False, settings=settings)
    message = str(refused.value)
    assert "\n" not in message and "damaged" in message
    assert "paperdesk repair --salvage" in message

    dialog = SalvageDialog(folder, message)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.message.textFormat() == Qt.TextFormat.PlainText
    assert dialog.message.text() == message
    qtbot.keyClick(dialog, Qt.Key.Key_Return)              # Salvage (the default)
    qtbot.waitUntil(lambda: dialog.report is not None or bool(dialog.error), timeout=WAIT_MS)
    assert not dialog.error
    recovered = dialog.report.recovered["papers"]
    assert 0 < recovered < 225
    assert dialog.report_view.toPlainText() == dialog.report_text
    assert f"papers: {recovered:,} recovered" in dialog.report_text
    assert [p for p in folder.iterdir() if p.name.startswith("library.db.damaged-")]
    qtbot.keyClick(dialog.open_button, Qt.Key.Key_Return)  # Open Library
    assert dialog.result() == dialog.DialogCode.Accepted

    window = create_main_window(folder, import_seeds=False, settings=settings)
    qtbot.addWidget(window)
    try:
        assert window.lib.papers.count() == recovered and window.lib.db_problem is None
    finally:
        window.close()

