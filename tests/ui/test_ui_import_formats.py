"""The window reads the import format registry (issue 24, item 4): a format registered
by a test (tests/format_plugin.py) is listed in the Import dialog's file types, a file of
it picked there is imported, and the import report names its format with the
registry's label."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from format_plugin import REGISTRATION, write_tsv
from paperdesk.core.imports.formats import IMPORT_FORMATS
from ui_fixtures import TOTAL, WAIT_MS, open_seeded, win  # noqa: F401


@pytest.fixture
def tsv_format():
    IMPORT_FORMATS.register(REGISTRATION)
    yield REGISTRATION
    IMPORT_FORMATS.unregister(REGISTRATION.name)


def test_import_dialog_lists_and_imports_a_registered_format(qtbot, win, tmp_path,
                                                             monkeypatch, tsv_format):
    window = win
    path = tmp_path / "papers.tsvx"
    write_tsv(path, [window.lib.papers.get(pid) for pid in (1, 2, 3)])
    asked = []

    def pick(_parent, _caption, _folder, filters):
        asked.append(filters.split(";;"))
        return [str(path)], ""

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", pick)
    qtbot.keyClick(window, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    (filters,) = asked
    assert "*.tsvx" in filters[0]
    assert "Tab-separated test records (*.tsvx)" in filters
    qtbot.waitUntil(lambda: window.imports.last_import_report is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
    (file_report,) = window.imports.last_import_report.files
    assert (file_report.format, file_report.duplicates) == ("test-tsv", 3)
    assert window.model.rowCount() == TOTAL
    dialog = window.imports.show_import_report()
    assert dialog.table.item(0, 1).text() == "tab-separated test records"
    dialog.close()
