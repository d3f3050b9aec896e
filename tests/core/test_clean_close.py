"""The record of a clean close lets the next open skip PRAGMA quick_check, and only then."""

import os
import sqlite3
import threading

import pytest

from paperdesk.core import check as _check
from paperdesk.core.library import Library
from paperdesk.core.store.clean_close import CLOSED_NAME, closed_cleanly


@pytest.fixture
def folder(tmp_path, seed_files):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        lib.imports.run([seed_files[0]])
    return path


@pytest.fixture
def checks(monkeypatch):
    """The quick checks run, as a list of library folders."""
    ran = []
    real = _check.database_problem

    def counting(db, folder):
        ran.append(folder)
        return real(db, folder)

    monkeypatch.setattr(_check, "database_problem", counting)
    return ran


def test_an_unchanged_database_skips_the_quick_check(folder, checks):
    assert (folder / CLOSED_NAME).is_file() and closed_cleanly(folder)
    with Library.open(folder) as lib:
        assert lib.papers.count() > 0
    assert checks == []
    with Library.open(folder, read_only=True) as lib:
        assert lib.papers.count() > 0
    assert checks == []


def test_a_database_changed_outside_paperdesk_is_checked_and_its_damage_found(folder, checks):
    size = (folder / "library.db").stat().st_size
    with open(folder / "library.db", "r+b") as f:    # a page in the middle overwritten
        f.seek(size // 2 // 4096 * 4096)
        f.write(b"\xa5" * 4096)
    assert not closed_cleanly(folder)
    with Library.open(folder) as lib:
        assert lib.db_problem is not None and "damaged" in lib.db_problem
    assert checks == [lib.path]
    assert not (folder / CLOSED_NAME).exists()     # damage found: the record is gone


def test_a_library_left_open_is_checked(folder, checks):
    """A process that stops without closing leaves a WAL with content."""
    lib = Library.open(folder)
    lib.tags.add([lib.papers.ids()[0]], "kept")
    assert (folder / "library.db-wal").stat().st_size > 0
    assert not closed_cleanly(folder)
    t = threading.Thread(target=lambda: Library.open(folder, read_only=True).close())
    t.start()
    t.join()
    assert checks == [folder.absolute()]
    lib.close()
    assert closed_cleanly(folder)


@pytest.mark.parametrize("planted", ["fifo", "garbage", "big", "other stamp"])
def test_a_planted_record_is_ignored(folder, checks, planted):
    record = folder / CLOSED_NAME
    record.unlink()
    if planted == "fifo":          # must not make the open wait for a writer
        os.mkfifo(record)
    elif planted == "garbage":
        record.write_bytes(b"\xff\x00not json")
    elif planted == "big":
        record.write_text(" " * 5000 + "{}")
    else:
        record.write_text('{"size": 1, "mtime_ns": 2, "inode": 3}')
    with Library.open(folder, read_only=True):
        pass
    assert checks == [folder.absolute()]


def test_an_open_that_failed_records_nothing(tmp_path):
    path = tmp_path / "lib"
    path.mkdir()
    conn = sqlite3.connect(path / "library.db")
    conn.execute("CREATE TABLE someone_elses (x)")
    conn.commit()
    conn.close()
    with pytest.raises(Exception):
        Library.open(path)
    assert not (path / CLOSED_NAME).exists()
