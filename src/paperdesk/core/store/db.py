"""Opening the library database and running explicit transactions.

Connections are opened in autocommit mode (``isolation_level=None``) so that every write
goes through :func:`transaction`, which issues ``BEGIN IMMEDIATE``/``COMMIT`` itself: a
change and its ``index_queue`` rows land together or not at all.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import sqlite_utils

__all__ = ["connect", "transaction", "BUSY_TIMEOUT_S"]

#: How long a connection waits for another writer before failing, in seconds.
BUSY_TIMEOUT_S = 10.0


def connect(path: Path) -> sqlite_utils.Database:
    """Open (creating if missing) the SQLite database at ``path``.

    The connection is in autocommit mode, uses WAL journaling (readers never block the
    writer), enforces foreign keys and may be used from the thread that opened it or
    another one, as long as the caller serialises use (see ``Library``).

    Args:
        path: database file.
    Returns:
        A ``sqlite_utils.Database``.
    Raises:
        sqlite3.Error: the file is not a database or cannot be opened.
    """
    conn = sqlite3.connect(
        str(path), isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S
    )
    db = sqlite_utils.Database(conn)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=NORMAL")
    return db


@contextlib.contextmanager
def transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """Run the body in one write transaction; roll back if it raises.

    Nested use becomes a SAVEPOINT, so an inner failure undoes only the inner part.

    Args:
        db: a database opened by :func:`connect`.
    Yields:
        ``db``.
    Raises:
        LibraryError: writes are refused on ``db`` (its ``refuse_writes`` attribute
            holds the message: the library's database is damaged).
        Whatever the body raises, after rolling back.
    """
    refused = getattr(db, "refuse_writes", None)
    if refused:
        from paperdesk.core.models import LibraryError
        raise LibraryError(refused)
    conn = db.conn
    if conn.in_transaction:
        conn.execute("SAVEPOINT nested")
        try:
            yield db
        except BaseException:
            conn.execute("ROLLBACK TO nested")
            conn.execute("RELEASE nested")
            raise
        conn.execute("RELEASE nested")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
