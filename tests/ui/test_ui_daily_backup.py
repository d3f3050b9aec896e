"""The window takes the day's automatic backup beside the user's work (issue 14, deliver
3), and a full disk reaches the window as one line, without a traceback (item 7)."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt

from paperdesk.core.store.backup import daily_backups
from paperdesk.ui.background.operations import one_line_error
from ui_fixtures import open_seeded, press, settle, wait_idle  # noqa: F401 (fixture)


def test_opening_the_window_takes_one_backup_a_day(open_seeded, qtbot, tmp_path):
    window = open_seeded()
    press(qtbot, window, Qt.Key.Key_S)            # star the current paper meanwhile
    settle(qtbot, window)
    wait_idle(qtbot, window)
    made = daily_backups(tmp_path / "lib" / "backups")
    assert len(made) == 1
    conn = sqlite3.connect(f"file:{made[0]}?mode=ro", uri=True)
    assert conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 225
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    window.close()
    window.shutdown()
    again = open_seeded(fresh=False)
    wait_idle(qtbot, again)
    assert daily_backups(tmp_path / "lib" / "backups") == made    # at most one a day


def test_a_full_disk_is_one_line_without_a_traceback(capsys):
    message = one_line_error(sqlite3.OperationalError("database or disk is full"))
    assert message.startswith("the disk is full (writing the library: database or disk "
                              "is full)")
    err = OSError(28, "No space left on device")
    err.filename = "/lib/index/MAIN_x.seg"
    assert one_line_error(err).startswith(
        "the disk is full (writing /lib/index/MAIN_x.seg: No space left on device)")
    assert "Traceback" not in capsys.readouterr().err
