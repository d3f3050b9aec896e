"""Help ▸ Check Library, and the window on a damaged or missing search index or a damaged
database (issue 14 items 1, 2 and 6): the window opens at once, the index is repaired in
the background with "Repairing the search index N of M", the report is plain text."""

from __future__ import annotations

import random
import shutil

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from ui_fixtures import TOTAL, WAIT_MS, open_seeded, settle, wait_idle, win  # noqa: F401

MODEL_HITS = 139


def _check_by_keys(qtbot, window) -> None:
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_H, Qt.KeyboardModifier.AltModifier)  # &Help
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    qtbot.keyClick(QApplication.activePopupWidget(), "c")       # &Check Library…
    qtbot.waitUntil(lambda: window.check_report is not None, timeout=WAIT_MS)


def _search_by_keys(qtbot, window, text: str) -> None:
    window.focus_search()
    qtbot.keyClicks(window.search_box, text)
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(),
                    timeout=WAIT_MS)


def test_check_library_from_the_help_menu(qtbot, win):
    window = win
    wait_idle(qtbot, window)
    assert window.actions_by_name["checkLibraryAction"].text() == "&Check Library…"
    _check_by_keys(qtbot, window)
    assert window.check_report == f"library ok: {TOTAL} papers, index ok"
    box = window.check_message
    assert isinstance(box, QMessageBox) and box.textFormat() == Qt.TextFormat.PlainText
    assert box.text() == window.check_report
    box.close()


def test_check_library_finds_a_damaged_segment_and_repairs_it(qtbot, win):
    window, lib = win, win.lib
    wait_idle(qtbot, window)
    segment = max((lib.path / "index").glob("*.seg"), key=lambda p: p.stat().st_size)
    with open(segment, "r+b") as f:                    # bytes overwritten on disk
        f.seek(segment.stat().st_size // 3)
        f.write(random.Random(3).randbytes(300))
    _check_by_keys(qtbot, window)
    assert str(segment) in window.check_report
    assert "repaired from SQLite" in window.check_report
    window.check_message.close()
    qtbot.waitUntil(lambda: not window.is_busy() and lib.index.status().complete
                    and not lib.index.status().repairing, timeout=WAIT_MS)
    _search_by_keys(qtbot, window, "model")
    assert window.model.rowCount() == MODEL_HITS
    window.check_report = None
    _check_by_keys(qtbot, window)
    assert window.check_report == f"library ok: {TOTAL} papers, index ok"
    window.check_message.close()


def test_missing_index_is_repaired_in_the_background(qtbot, tmp_path, _seeded_template,
                                                    open_seeded):
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    shutil.rmtree(path / "index")
    seen: list[str] = []
    import paperdesk.ui.background.workers as workers

    original = workers.IndexSyncRunner._fire

    def record(runner):              # every status the update reports, as shown
        runner.status.connect(lambda status: seen.append(status.text()))
        workers.IndexSyncRunner._fire = original
        return original(runner)

    workers.IndexSyncRunner._fire = record
    try:
        window = open_seeded(fresh=False)
    finally:
        workers.IndexSyncRunner._fire = original
    assert window.model.rowCount() == TOTAL          # the list is there at once
    qtbot.waitUntil(lambda: window.lib.index.status().complete and not window.is_busy(),
                    timeout=WAIT_MS)
    assert any(text.startswith("Repairing the search index ") and text.endswith(
        f" of {TOTAL}") for text in seen), seen
    _search_by_keys(qtbot, window, "model")
    assert window.model.rowCount() == MODEL_HITS


def test_damaged_database_is_refused_with_one_line(tmp_path, _seeded_template):
    from paperdesk.core.models import LibraryError
    from paperdesk.ui import create_main_window
    from ui_fixtures import make_settings

    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    db = path / "library.db"
    pages = db.stat().st_size // 4096
    with open(db, "r+b") as f:
        f.seek((pages // 2) * 4096)
        f.write(random.Random(7).randbytes(4096))
    before = db.read_bytes()
    try:
        create_main_window(path, import_seeds=False, settings=make_settings(tmp_path / "s.ini"))
    except LibraryError as exc:
        message = str(exc)
    else:
        raise AssertionError("a window was opened on a damaged database")
    assert "\n" not in message and f"{db}: damaged" in message
    assert "paperdesk restore" in message
    assert db.read_bytes() == before
