"""WAL checkpoints of a storing connection run by a thread of their own (issue 28: a
million-record import through the window, every key answered).

An import's connection lets the WAL grow to
:data:`~paperdesk.core.store.db.BULK_WAL_PAGES` pages, then SQLite's automatic
checkpoint copies them into the database file and syncs it, inside the commit of the
batch that crossed the mark: up to 200 MB, seconds at a million papers. The window's
import process answers an edit only between its batches, so an edit asked for during
that commit waited for the whole checkpoint (six of the eight keys slower than 600 ms
in the window's million-record import).

:class:`BackgroundCheckpoints` turns the connection's automatic checkpoint off
(``PRAGMA wal_autocheckpoint = 0``) and checkpoints from a thread with its own
connection instead (https://www.sqlite.org/wal.html#checkpointing,
https://www.sqlite.org/pragma.html#pragma_wal_checkpoint):

- ``PRAGMA wal_checkpoint(PASSIVE)`` copies the WAL into the database file without the
  writer's lock, so the storing thread commits its batches and pauses for edits
  meanwhile; one that did not reach the WAL's end (a batch was committed meanwhile) is
  followed at once by another (up to :data:`CATCH_UP_TRIES`);
- once a passive one has caught up, ``PRAGMA wal_checkpoint(RESTART)``, tried once
  without waiting (the connection's busy timeout is 0): when the writer's lock is free
  it copies the few frames committed since (a batch at most) and lets the next commit
  write the WAL from its beginning. Without it the WAL
  only grew while commits went on (a writer starts it again only when it begins after a
  checkpoint that left nothing to copy).

The thread checkpoints about as often as the automatic checkpoint would (every
``pages`` WAL pages): from how many frames the WAL gained since its last look and how
long that took, it waits until about ``pages`` more have come (between
:data:`MIN_WAIT_S` and :data:`MAX_WAIT_S`: a WAL written slowly is copied more often,
a few MB at a time).
"""

from __future__ import annotations

import sqlite3
import threading
import time

import sqlite_utils

__all__ = ["BackgroundCheckpoints", "MIN_WAIT_S", "MAX_WAIT_S", "CATCH_UP_TRIES"]

#: Shortest and longest wait between two looks at the WAL, in seconds.
MIN_WAIT_S = 0.5
MAX_WAIT_S = 5.0
#: Checkpoints run one after the other while each leaves frames the storing thread
#: committed meanwhile.
CATCH_UP_TRIES = 4


class BackgroundCheckpoints:
    """A context manager: while its body runs, ``db``'s connection never checkpoints
    (``wal_autocheckpoint = 0``) and a daemon thread checkpoints the WAL every
    ``pages`` pages or so (see the module). On exit the setting is put back and the
    thread ends after one last checkpoint (:meth:`stop`, which the caller may
    run earlier to do other work while it finishes: :meth:`finishing`).

    Args:
        db: the storing connection (opened by
            :func:`~paperdesk.core.store.db.connect` on a file database in WAL mode).
        pages: WAL pages between two checkpoints (SQLite's pages of ``PRAGMA
            page_size`` bytes; default :data:`~paperdesk.core.store.db.BULK_WAL_PAGES`).
    Attributes:
        checkpoints: checkpoints the thread ran (for tests and figures).
    Raises:
        Nothing: a checkpoint that fails (a database error, the file gone) ends the
        thread and the connection's own setting is put back at exit; the storing thread
        sees any real problem at its next commit.
    """

    def __init__(self, db: sqlite_utils.Database, pages: int | None = None) -> None:
        from paperdesk.core.store.db import BULK_WAL_PAGES

        self._db = db
        self._pages = int(pages or BULK_WAL_PAGES)
        self._path = _main_file(db)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._before: int | None = None
        self.checkpoints = 0

    def __enter__(self) -> "BackgroundCheckpoints":
        if self._path is None:
            return self                      # an in-memory database: nothing to do
        conn = self._db.conn
        self._before = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        self._thread = threading.Thread(target=self._run, name="paperdesk-checkpoints",
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()
        self.finishing(None)
        if self._before is not None:
            self._db.conn.execute(f"PRAGMA wal_autocheckpoint = {int(self._before)}")
            self._before = None

    def stop(self) -> None:
        """Ask the thread to end after one last checkpoint (returns at once)."""
        self._stop.set()

    def finishing(self, timeout: float | None = 0.0) -> bool:
        """Whether the thread is still running after waiting up to ``timeout`` seconds
        for it to end (``None``: until it ends)."""
        if self._thread is None:
            return False
        self._thread.join(timeout)
        return self._thread.is_alive()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self._path, isolation_level=None,
                                   check_same_thread=False, timeout=0)
        except sqlite3.Error:
            return
        try:
            wait, frames_before, looked_at = MIN_WAIT_S, 0, time.monotonic()
            while True:
                stopping = self._stop.wait(wait)
                looked = self._checkpoint(conn)
                if looked is None or stopping:
                    return
                frames, whole = looked
                now = time.monotonic()
                # Frames the WAL gained since the last look: after a checkpoint that
                # copied it whole, SQLite starts it again from frame 0 at the next commit.
                gained = max(frames - frames_before, 0)
                rate = gained / max(now - looked_at, 1e-3)
                wait = (MAX_WAIT_S if rate <= 0
                        else min(MAX_WAIT_S, max(MIN_WAIT_S, self._pages / rate)))
                frames_before, looked_at = (0 if whole else frames), now
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> tuple[int, bool] | None:
        """Run passive checkpoints until one copies the WAL to its end (at most
        :data:`CATCH_UP_TRIES`): ``(the WAL's frames at the last one, whether it copied
        them all)``, ``None`` on an error."""
        frames = done = 0
        for _ in range(CATCH_UP_TRIES):
            try:
                busy, frames, done = conn.execute(
                    "PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error:
                return None
            if frames < 0:                   # not in WAL mode
                return None
            self.checkpoints += 1
            if busy or done >= frames:
                break
        if busy or done < frames:
            return frames, False
        # A passive checkpoint alone never lets SQLite start the WAL again while commits
        # go on (the next writer must begin after a checkpoint that left nothing): once
        # one has caught up, a RESTART checkpoint copies the few frames committed since
        # under the writer's lock, taken only when it is free (no busy wait on this
        # connection), and then the next commit writes from the WAL's beginning.
        try:
            busy, more, _done = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        except sqlite3.Error:
            return None
        if not busy:
            self.checkpoints += 1
            return max(frames, more), True
        return frames, True


def _main_file(db: sqlite_utils.Database) -> str | None:
    """The file of ``db``'s main database, ``None`` for an in-memory one."""
    for _seq, name, file in db.conn.execute("PRAGMA database_list"):
        if name == "main":
            return file or None
    return None
