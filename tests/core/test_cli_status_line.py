"""The status line of the long commands (check, backup): what runs and for how long,
on a terminal only, cleared at the end; and backup_to's progress in bytes."""

from __future__ import annotations

import io
import sqlite3
import sys

from paperdesk.cli import main
from paperdesk.cli_progress import StatusLine
from paperdesk.core.store.backup import backup_to


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    def __init__(self):
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def test_status_line_says_the_step_and_the_time_and_is_cleared():
    screen, clock = _Terminal(), _Clock()
    line = StatusLine(stream=screen, interval_s=3600, clock=clock)
    line.set("checking the database")
    clock.now += 75
    line.draw()
    line.close()
    out = screen.getvalue()
    assert "\rchecking the database … 0:00" in out
    assert "\rchecking the database … 1:15" in out
    assert out.endswith("\r" + " " * len("checking the database … 1:15") + "\r")
    line.draw()                                   # closed: nothing more
    assert screen.getvalue() == out


def test_status_line_draws_nothing_off_a_terminal():
    stream = io.StringIO()
    with StatusLine(stream=stream) as line:
        line.set("backing up")
    assert not line.enabled and stream.getvalue() == ""


def test_backup_to_reports_bytes_written_against_the_pages_in_use(seeded_library,
                                                                 tmp_path):
    calls = []
    made = backup_to(seeded_library.db.conn, tmp_path / "copy.db",
                     progress=lambda done, total: calls.append((done, total)))
    con = sqlite3.connect(seeded_library.path / "library.db")
    pages = con.execute("PRAGMA page_count").fetchone()[0] - \
        con.execute("PRAGMA freelist_count").fetchone()[0]
    expected = pages * con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    assert calls and calls[-1] == (expected, expected)
    assert all(0 <= done <= total == expected for done, total in calls)
    assert made.counts["papers"] == seeded_library.papers.count()


def test_backup_and_check_show_a_status_line_on_a_terminal(seeded_library, tmp_path,
                                                           monkeypatch):
    path = seeded_library.path
    seeded_library.close()
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setenv("COLUMNS", "500")          # a terminal wide enough for the path
    assert main(["--library", str(path), "backup", str(tmp_path / "b.db")]) == 0
    assert f"\rbacking up {path / 'library.db'}" in screen.getvalue()
    assert " MB … 0:0" in screen.getvalue()
    assert main(["--library", str(path), "check"]) == 0
    out = screen.getvalue()
    assert "\rchecking the database" in out and "(step 1 of " in out
    assert "searching a sample of papers" in out


def test_status_line_fits_a_narrow_terminal(monkeypatch):
    """A line wider than the terminal would wrap, and each redraw (a carriage return)
    would leave its first row behind: the text is cut to the width, the time kept."""
    monkeypatch.setenv("COLUMNS", "40")
    screen, clock = _Terminal(), _Clock()
    line = StatusLine(stream=screen, interval_s=3600, clock=clock)
    line.set("reading the search index's files and every abstract (step 3 of 5)")
    clock.now += 75
    line.draw()
    line.close()
    drawn = [part.rstrip(" ") for part in screen.getvalue().split("\r") if part.strip()]
    assert drawn and all(len(part) <= 39 for part in drawn)
    assert drawn[-1].startswith("reading the search") and drawn[-1].endswith("… 1:15")
    assert "…" in drawn[-1][:-6]


def test_a_cancelled_backup_leaves_nothing_and_says_so(seeded_library, tmp_path):
    """Ctrl+C during `paperdesk backup` reaches backup_to as cancel: SQLite's copy stops,
    no file (finished or partial) is left, and the command can tell it from a failure."""
    import pytest

    from paperdesk.core.store.backup import BackupCancelled

    out = tmp_path / "backups"
    with pytest.raises(BackupCancelled):
        backup_to(seeded_library.db.conn, out / "b.db", cancel=lambda: True)
    assert not out.exists() or list(out.iterdir()) == []
    made = backup_to(seeded_library.db.conn, out / "b.db", cancel=lambda: False)
    assert made.counts["papers"] == 225
