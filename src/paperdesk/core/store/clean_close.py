"""The record of a clean close, which lets the next open skip ``PRAGMA quick_check``.

``PRAGMA quick_check`` reads every page of the database: 0.2-0.4 s at 100,000 papers,
seconds at a million, at every open of the window and every command. A database that was
whole when it was opened and then only written through SQLite is whole when it is closed
(SQLite's transactions are atomic: https://www.sqlite.org/atomiccommit.html), so a
library that closes cleanly writes ``library.db.closed``: the database file's size,
modification time (ns) and inode as it left them, after the WAL was emptied into it. The
next open skips the quick check when the file still has exactly these, and there is no
WAL with content beside it (a process that stopped without closing leaves one). Anything
else that touched the file (a crash, a copy over it, a restore, a disk error that changed
it, another program) changes one of them, and the check runs as before. The full check
(``paperdesk check``) never skips.

The record is a few bytes of JSON, read with a size limit and only from a regular file
(a FIFO or a device planted under its name is ignored, as any unreadable record is: the
check then runs).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from paperdesk.core.regular_files import open_regular

__all__ = ["CLOSED_NAME", "closed_cleanly", "record_clean_close", "forget_clean_close"]

#: The record's file name in the library folder.
CLOSED_NAME = "library.db.closed"
_DB = "library.db"
_MAX_BYTES = 1024


def _stamp(db_path: Path) -> dict | None:
    """``{"size", "mtime_ns", "inode"}`` of the database file, or ``None`` when it is
    not a regular file that can be ``stat``-ed."""
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "inode": st.st_ino}


def _wal_has_content(db_path: Path) -> bool:
    """Whether ``library.db-wal`` exists with bytes in it (changes not yet in the
    database file: a writer still open, or one that stopped without closing)."""
    try:
        return os.stat(f"{db_path}-wal").st_size > 0
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _read_record(path: Path) -> dict | None:
    try:
        with open_regular(path) as f:
            data = f.read(_MAX_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_BYTES:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def closed_cleanly(folder: str | os.PathLike) -> bool:
    """Whether the library's database is exactly as its last clean close left it (so
    ``PRAGMA quick_check`` can be skipped at this open).

    Args:
        folder: the library folder.
    Returns:
        ``True`` when ``library.db.closed`` names the database file's current size,
        modification time and inode and no WAL with content is beside it; ``False``
        otherwise (no record, an unreadable one, or any difference). Never raises.
    """
    db_path = Path(folder) / _DB
    stamp = _stamp(db_path)
    if stamp is None or _wal_has_content(db_path):
        return False
    return _read_record(Path(folder) / CLOSED_NAME) == stamp


def record_clean_close(folder: str | os.PathLike) -> None:
    """Write ``library.db.closed`` for the database file as it is now (call it after
    the library's connections are closed and the WAL was emptied into the file). Written
    to a temporary name and renamed over the record, so a crash leaves the old record or
    the new one. Nothing is written while a WAL with content is beside the database.
    Never raises: a folder that cannot be written keeps no record (the next open checks).

    Args:
        folder: the library folder.
    """
    db_path = Path(folder) / _DB
    stamp = _stamp(db_path)
    if stamp is None or _wal_has_content(db_path):
        forget_clean_close(folder)
        return
    target = Path(folder) / CLOSED_NAME
    aside = target.with_name(f"{CLOSED_NAME}.new-{os.getpid()}")
    try:
        aside.write_text(json.dumps(stamp), encoding="utf-8")
        os.replace(aside, target)
    except OSError:
        try:
            aside.unlink()
        except OSError:
            pass


def forget_clean_close(folder: str | os.PathLike) -> None:
    """Remove the record (e.g. when damage was found): the next open runs the quick
    check. Never raises.

    Args:
        folder: the library folder.
    """
    try:
        os.unlink(Path(folder) / CLOSED_NAME)
    except OSError:
        pass
