"""Opening the library database and running explicit transactions.

Connections are opened in autocommit mode (``isolation_level=None``) so that every write
goes through :func:`transaction`, which issues ``BEGIN IMMEDIATE``/``COMMIT`` itself: a
change and its ``index_queue`` rows land together or not at all.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import sqlite_utils

__all__ = ["connect", "connect_read_only", "folder_writable", "checkpoint", "transaction",
           "bulk_cache", "no_checkpoints", "BUSY_TIMEOUT_S", "BULK_CACHE_KIB", "BULK_WAL_PAGES",
           "fits_integer"]

#: How long a connection waits for another writer before failing, in seconds.
BUSY_TIMEOUT_S = 10.0

#: SQLite page cache of a connection while it stores an import (:func:`bulk_cache`), in
#: KiB: 256 MiB. SQLite's default is 2,000 KiB, so that past some 30,000 papers the
#: indexes an insert writes at a random place (``content_hash``, the title's, the
#: citation key's: about 150 MB at a million papers) no longer fit and every insert and
#: duplicate look-up reads its pages back from the operating system. The cache grows
#: only with the pages used and is given back when the import ends.
BULK_CACHE_KIB = 256 * 1024

#: WAL pages between automatic checkpoints while an import stores (:func:`bulk_cache`):
#: 50,000 pages of 4 KiB, about 200 MB of WAL (SQLite's default is 1,000).
BULK_WAL_PAGES = 50_000


def fits_integer(value: int) -> bool:
    """Whether ``value`` fits SQLite's INTEGER (a signed 64-bit number,
    https://www.sqlite.org/datatype3.html): a bigger one raises ``OverflowError`` when
    bound to a query, so an id beyond it names no row.

    Args:
        value: an ``int`` (or anything ``int()`` takes).
    Returns:
        ``True`` when ``-2**63 <= value < 2**63``.
    """
    return -(2**63) <= int(value) < 2**63


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


def folder_writable(path: Path) -> bool:
    """Return True if the database ``path`` and its folder can be written by this process
    (SQLite in WAL mode creates ``-wal`` and ``-shm`` files beside the database)."""
    folder = Path(path).parent
    return os.access(folder, os.W_OK) and (not Path(path).exists()
                                           or os.access(path, os.W_OK))


def connect_read_only(path: Path) -> sqlite_utils.Database:
    """Open the database at ``path`` for reading only (it must exist).

    In a folder this process may write, the connection is ``mode=ro`` (it sees every
    committed change, the WAL's included, and waits for no writer). In a read-only
    folder (or for a read-only file) SQLite cannot create the ``-shm`` file a WAL
    database needs, so:

    - without a ``-wal`` file beside it (or an empty one: what a library leaves when it
      closes, see :func:`checkpoint`), the database is self-contained and is opened with
      ``immutable=1``: nothing can write into that folder, so nothing can change under
      the reader;
    - with a non-empty ``-wal`` file (a writer was killed, then the folder was made
      read-only), ``immutable=1`` would ignore the WAL and show stale data, so it is
      opened ``mode=ro``, which reads the WAL (SQLite 3.22 or newer, when the ``-shm``
      file exists too); if SQLite refuses, the error is raised.

    On a full disk (the ``-shm`` file cannot be created), a database without a WAL to
    read is opened ``immutable=1`` too: nothing can be written to it meanwhile.

    See https://www.sqlite.org/wal.html#readonly and https://www.sqlite.org/uri.html.

    Args:
        path: database file.
    Returns:
        A ``sqlite_utils.Database`` on a read-only connection (autocommit).
    Raises:
        sqlite3.Error: the file is missing, not a database, or cannot be read.
    """
    path = Path(path)
    if not path.is_file():
        raise sqlite3.OperationalError("unable to open database file (it does not exist)")
    wal = path.with_name(path.name + "-wal")
    try:
        wal_size = wal.stat().st_size
    except OSError:
        wal_size = 0
    immutable = not folder_writable(path) and wal_size == 0
    try:
        return _open_uri(path, "immutable=1" if immutable else "mode=ro")
    except sqlite3.OperationalError as exc:
        # A full disk: the -shm file cannot be grown, but nothing can be written either,
        # so a self-contained database cannot change under an immutable reader.
        from paperdesk.core.store.errors import is_disk_full

        if immutable or wal_size or not is_disk_full(exc, path.parent):
            raise
        return _open_uri(path, "immutable=1")


def _open_uri(path: Path, query: str) -> sqlite_utils.Database:
    """Open ``path`` with the URI parameters ``query`` and read its header (so that a
    file that cannot be read fails here, not at the first query)."""
    uri = f"{path.absolute().as_uri()}?{query}"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=BUSY_TIMEOUT_S)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    except BaseException:
        conn.close()
        raise
    return sqlite_utils.Database(conn)


def checkpoint(db: sqlite_utils.Database) -> None:
    """Copy the WAL into the database file and empty it (``PRAGMA
    wal_checkpoint(TRUNCATE)``), so that the database file alone holds every change (a
    read-only open of a read-only folder then sees them all; see
    :func:`connect_read_only`). Never waits: while another connection reads an older
    snapshot or writes, SQLite answers "busy" at once and the WAL stays as it is (no
    error); the same on a read-only connection.

    Args:
        db: a database opened by :func:`connect`.
    """
    conn = db.conn
    try:
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    except sqlite3.Error:
        pass


@contextlib.contextmanager
def bulk_cache(db: sqlite_utils.Database, kib: int = BULK_CACHE_KIB,
               wal_pages: int = BULK_WAL_PAGES) -> Iterator[None]:
    """Settings of ``db``'s connection for the body (a bulk import), then the ones it
    had again, also when the body raises:

    - a page cache of ``kib`` KiB (never smaller than its own; SQLite frees the pages
      over the old size when it is set back);
    - an automatic checkpoint once the WAL holds ``wal_pages`` pages instead of SQLite's
      1,000 (never fewer than its own): a batch of an import writes thousands of pages
      of the randomly written indexes, so at 1,000 every commit was followed by a
      checkpoint copying them into the database file (and its fsync); a checkpoint
      copies the newest version of each page once, so a page written by many batches is
      copied once per checkpoint. The WAL grows to about ``wal_pages`` pages meanwhile;
      after the body the next commit checkpoints it as usual.

    Args:
        db: a database opened by :func:`connect` (outside or inside a transaction).
        kib: the cache size in KiB (``PRAGMA cache_size = -kib``).
        wal_pages: ``PRAGMA wal_autocheckpoint`` meanwhile.
    Yields:
        Nothing.
    """
    conn = db.conn
    before = conn.execute("PRAGMA cache_size").fetchone()[0]
    # A positive size counts pages, a negative one KiB (https://www.sqlite.org/pragma.html
    # #pragma_cache_size); pages are compared in KiB through the page size.
    before_kib = (-before if before < 0
                  else before * conn.execute("PRAGMA page_size").fetchone()[0] // 1024)
    before_wal = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    if before_kib < kib:
        conn.execute(f"PRAGMA cache_size = {-int(kib)}")
    if 0 < before_wal < wal_pages:      # 0: checkpoints are off, left so
        conn.execute(f"PRAGMA wal_autocheckpoint = {int(wal_pages)}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {int(before)}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {int(before_wal)}")


@contextlib.contextmanager
def no_checkpoints(db: sqlite_utils.Database) -> Iterator[None]:
    """While the body runs, this connection's commits never checkpoint the WAL
    (``PRAGMA wal_autocheckpoint = 0``), then the setting is put back.

    For the connection that commits the window's edits while the import's child
    stores: the child's own thread checkpoints the WAL
    (:class:`~paperdesk.core.store.background_checkpoints.BackgroundCheckpoints`, about
    every :data:`BULK_WAL_PAGES` pages). With automatic checkpoints at that many pages
    instead, an edit committed once the WAL held :data:`BULK_WAL_PAGES` pages copied all of them into
    the database file before its commit returned: during a window import of 1.25
    million arXiv records, keys committed in 20-30 ms were shown 0.3-1 s later, every
    10-20 s.

    Args:
        db: a database opened by :func:`connect`.
    Yields:
        Nothing.
    """
    conn = db.conn
    before = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA wal_autocheckpoint = {int(before)}")


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
            if conn.in_transaction:      # see below: SQLite may have rolled back all
                conn.execute("ROLLBACK TO nested")
                conn.execute("RELEASE nested")
            raise
        conn.execute("RELEASE nested")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        # On SQLITE_FULL or SQLITE_IOERR SQLite may roll the whole transaction back by
        # itself (https://www.sqlite.org/lang_transaction.html, "Response To Errors
        # Within A Transaction"): a ROLLBACK then fails with "cannot rollback - no
        # transaction is active", which would hide the full disk.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
