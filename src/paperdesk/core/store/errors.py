"""Telling a full disk from other write failures, for one-line messages.

SQLite reports a full disk as ``SQLITE_FULL`` ("database or disk is full"), but a write
of its ``-shm`` or ``-wal`` file that runs out of space often surfaces as
``SQLITE_IOERR`` ("disk I/O error"); Python's own writes (the lock file, the Whoosh
index, exports) raise ``OSError`` with ``errno.ENOSPC`` (or ``EDQUOT``, a quota). These
are all told apart here, so that the user reads "the disk is full" instead of "disk I/O
error" or "being opened by another paperdesk". Result codes: https://www.sqlite.org/rescode.html.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3

__all__ = ["is_disk_full", "disk_full_message", "low_space", "LOW_SPACE_BYTES"]

#: Free bytes below which a SQLite "disk I/O error" is taken for a full disk (SQLite
#: needs a few pages for its WAL and ``-shm`` files; 1 MiB is far more than one page).
LOW_SPACE_BYTES = 1 << 20

_SQLITE_FULL = 13
_SQLITE_IOERR = 10
_FULL_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}


def low_space(folder: str | os.PathLike | None) -> bool:
    """Return True if the file system of ``folder`` has less than
    :data:`LOW_SPACE_BYTES` free (False when ``folder`` is ``None`` or cannot be
    looked at)."""
    if folder is None:
        return False
    try:
        return shutil.disk_usage(folder).free < LOW_SPACE_BYTES
    except OSError:
        return False


def is_disk_full(exc: BaseException, folder: str | os.PathLike | None = None) -> bool:
    """Return True if ``exc`` (or an exception it was raised from) means the disk is full.

    Args:
        exc: an exception from a write.
        folder: the folder written to; with it, a SQLite "disk I/O error" counts as a
            full disk when that folder's file system has less than :data:`LOW_SPACE_BYTES`
            free.
    Returns:
        True for ``SQLITE_FULL``, ``OSError`` ``ENOSPC``/``EDQUOT``, and a SQLite I/O
        error on a (nearly) full file system.
    """
    seen = 0
    while exc is not None and seen < 8:
        seen += 1
        if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
            return True
        if isinstance(exc, sqlite3.Error):
            code = getattr(exc, "sqlite_errorcode", None)
            primary = code & 0xFF if isinstance(code, int) else None
            text = str(exc).lower()
            if primary == _SQLITE_FULL or "database or disk is full" in text:
                return True
            if (primary == _SQLITE_IOERR or "disk i/o error" in text) and low_space(folder):
                return True
        exc = exc.__cause__ or exc.__context__
    return False


def disk_full_message(where: str | os.PathLike, exc: BaseException | None = None) -> str:
    """The one-line message for a write that failed on a full disk.

    Args:
        where: the file or folder that was being written.
        exc: the failure (its text is added in parentheses).
    Returns:
        e.g. ``"the disk is full (writing /home/a/paperdesk/library.db: database or disk is
        full); free some space and try again: what was saved before is kept and can still
        be read"``.
    """
    detail = ""
    if exc is not None:
        detail = (exc.strerror if isinstance(exc, OSError) and exc.strerror
                  else str(exc).strip().splitlines()[0] if str(exc).strip()
                  else type(exc).__name__)
        if "disk i/o error" in detail.lower():     # SQLite's word for it: say it plainly
            detail = "no space left on device"
        detail = f": {detail}"
    return (f"the disk is full (writing {where}{detail}); free some space and try again: "
            "what was saved before is kept and can still be read")
