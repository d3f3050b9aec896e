"""The storing connection's WAL checkpointed by a thread (store/background_checkpoints.py):
the connection itself never checkpoints meanwhile, the WAL is copied and started again
while commits go on, and the setting comes back."""

from __future__ import annotations

import sqlite3
import time

from paperdesk.core.store import background_checkpoints as bc
from paperdesk.core.store.db import connect


def _autocheckpoint(db) -> int:
    return db.conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]


def _wal_state(path) -> tuple[int, int, int]:
    con = sqlite3.connect(str(path))
    try:
        return con.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    finally:
        con.close()


def test_commits_go_on_while_a_thread_checkpoints_the_wal(tmp_path, monkeypatch):
    monkeypatch.setattr(bc, "MIN_WAIT_S", 0.01)
    path = tmp_path / "lib.db"
    db = connect(path)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
    page = db.execute("PRAGMA page_size").fetchone()[0]
    commits = 300
    with bc.BackgroundCheckpoints(db, pages=40) as checkpoints:
        assert _autocheckpoint(db) == 0          # no commit of this connection copies
        for i in range(commits):
            db.execute("INSERT INTO t (body) VALUES (?)", [bytes(2 * page)])
            time.sleep(0.002)
        assert checkpoints.checkpoints > 0
    assert _autocheckpoint(db) == 1000           # SQLite's default, as before
    # Without the thread the WAL would hold every page written (at least two a commit);
    # the thread copied it and SQLite started it again from its beginning.
    wal_pages = (tmp_path / "lib.db-wal").stat().st_size // page
    assert wal_pages < commits
    busy, frames, done = _wal_state(path)
    assert busy == 0 and frames == done          # the last checkpoint reached the end
    assert db.execute("SELECT count(*) FROM t").fetchone() == (commits,)
    db.conn.close()


def test_an_in_memory_database_is_left_as_it_is():
    db = connect(":memory:")
    before = _autocheckpoint(db)
    with bc.BackgroundCheckpoints(db) as checkpoints:
        assert _autocheckpoint(db) == before
        assert not checkpoints.finishing()
    assert checkpoints.checkpoints == 0


def test_the_last_checkpoint_can_end_while_the_caller_does_other_work(tmp_path):
    path = tmp_path / "lib.db"
    db = connect(path)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
    with bc.BackgroundCheckpoints(db) as checkpoints:
        for _ in range(50):
            db.execute("INSERT INTO t (body) VALUES (?)", [bytes(4096)])
        checkpoints.stop()
        waited = 0
        while checkpoints.finishing(0.01):
            waited += 1
            assert waited < 1000
    busy, frames, done = _wal_state(path)
    assert frames == done and frames > 0
    db.conn.close()
