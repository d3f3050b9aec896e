"""Backups of a library's database, and restoring one.

A backup is a copy of ``library.db`` made with SQLite's ``VACUUM INTO``
(https://www.sqlite.org/lang_vacuum.html#vacuuminto): it runs in one read transaction,
so the copy is consistent (one committed state, the WAL's changes included) even while
the window writes the library, and it needs no lock (a reader). The copy is a plain,
compact database (no WAL) that sqlite3 or Datasette can open, written to a hidden name
and renamed into place, so that a backup file is never half-written.

Backups live in the library's ``backups/`` folder, named by kind and UTC time:

``library-backup-20261201T183000Z.db``
    ``paperdesk backup`` without a file name.
``library-daily-20261201T183000Z.db``
    automatic: taken when a library is first opened for changes on a UTC day (the window,
    or a command that writes); the :data:`KEEP_DAILY` newest are kept.
``pre-restore-20261201T183000Z.db``
    what ``paperdesk restore`` replaced (never deleted automatically).
``library-v7-20261201T183000Z.db``
    taken before a schema migration (:func:`paperdesk.core.store.schema.migrate`).

Cost (measured on a shared 2-core machine, a 100,000-paper library of 235 MB, warm
cache): ``VACUUM INTO`` with the ``quick_check`` of the copy 0.9 to 1.8 s (the check
alone 0.2 s); ``PRAGMA integrity_check`` 1 to 1.6 s; each copy takes about as much disk
space as the library (7 daily copies: about 1.6 GB).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from paperdesk.core.clock import utc_stamp
from paperdesk.core.models import LibraryError
from paperdesk.core.store.errors import disk_full_message, is_disk_full

__all__ = ["BACKUP_DIR", "KEEP_DAILY", "COUNTED", "BackupFile", "LibraryState",
           "backup_to", "BackupCancelled", "backup_name", "auto_backup", "daily_backups", "latest_backup",
           "database_counts", "inspect_backup", "library_state", "fewer_than",
           "replace_database", "describe_counts", "sweep_partial_copies"]

#: The backups folder inside a library folder.
BACKUP_DIR = "backups"
#: Automatic daily backups kept (the oldest beyond this are deleted).
KEEP_DAILY = 7
#: What ``restore`` compares, as ``(table, singular, plural)``.
COUNTED = (("papers", "paper", "papers"), ("tags", "tag", "tags"),
           ("notes", "note", "notes"), ("highlights", "highlight", "highlights"),
           ("saved_searches", "saved search", "saved searches"))
_STAMP_RE = re.compile(r"(\d{8}T\d{6}Z)")
_DAILY_RE = re.compile(r"^library-daily-(\d{8}T\d{6}Z)(?:-\d+)?\.db$")
#: Backups ``restore`` picks from when no file is named (not ``pre-restore-`` copies:
#: they hold what a restore replaced, maybe the damaged database).
_RESTORABLE_RE = re.compile(r"^library-(?:backup|daily|v\d+)-(\d{8}T\d{6}Z)(?:-\d+)?\.db$")
#: A hidden copy being written by process PID (a backup's ``.NAME.partial-PID``, a
#: restore's ``.library.db.restoring-PID``) or the rollback journal SQLite keeps beside
#: it while ``VACUUM INTO`` writes it (``...-PID-journal``).
_PARTIAL_RE = re.compile(r"^\..+\.(?:partial|restoring)-(\d+)(?:-journal)?$")


@dataclass(frozen=True)
class BackupFile:
    """A database file checked by :func:`inspect_backup` or written by :func:`backup_to`.

    Attributes:
        path: the file.
        version: its schema version (``PRAGMA user_version``).
        counts: rows per table of :data:`COUNTED` (``{"papers": 225, ...}``).
    """

    path: Path
    version: int
    counts: dict[str, int]


@dataclass(frozen=True)
class LibraryState:
    """What a library folder's database is, for ``restore``.

    Attributes:
        status: ``"missing"`` (no ``library.db``), ``"empty"`` (zero bytes),
            ``"damaged"`` (not a database, or ``PRAGMA integrity_check`` fails) or
            ``"ok"``.
        counts: rows per table of :data:`COUNTED` when ``"ok"``, else ``None``.
        detail: why it is damaged (SQLite's first message), else ``""``.
    """

    status: str
    counts: dict[str, int] | None = None
    detail: str = ""


def describe_counts(counts: dict[str, int]) -> str:
    """Return e.g. ``"225 papers, 3 tags, 1 note, 0 highlights, 2 saved searches"``."""
    parts = []
    for table, one, many in COUNTED:
        n = counts.get(table, 0)
        parts.append(f"{n:,} {one if n == 1 else many}")
    return ", ".join(parts)


def database_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Count the rows of each table of :data:`COUNTED` (0 for a table an old schema
    version does not have).

    Args:
        conn: an open connection to a library database.
    Returns:
        ``{"papers": n, "tags": n, "notes": n, "highlights": n, "saved_searches": n}``.
    Raises:
        sqlite3.Error: the database cannot be read.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {table: (conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                    if table in tables else 0) for table, _one, _many in COUNTED}


def backup_name(folder: Path, kind: str = "backup", now: str | None = None) -> Path:
    """A new file name in ``folder``: ``library-<kind>-<UTC stamp>.db`` (``pre-restore``:
    ``pre-restore-<stamp>.db``), with ``-2``, ``-3`` ... when that exists.

    Args:
        folder: the backups folder.
        kind: ``"backup"``, ``"daily"`` or ``"pre-restore"``.
        now: the stamp (:func:`~paperdesk.core.clock.utc_stamp`; default: now).
    Returns:
        A path that does not exist yet.
    """
    stamp = now or utc_stamp()
    base = f"pre-restore-{stamp}" if kind == "pre-restore" else f"library-{kind}-{stamp}"
    path, n = folder / f"{base}.db", 1
    while path.exists():
        n += 1
        path = folder / f"{base}-{n}.db"
    return path


def _sqlite_name(conn: sqlite3.Connection, path: Path) -> str:
    """``path`` as SQLite's ``VACUUM INTO`` on ``conn`` takes it: the path itself, or for
    a name that is not UTF-8 (bytes kept by Python as lone surrogates, PEP 383, which
    SQL text cannot carry; such names occur on Linux) a ``file:`` URI with those bytes
    percent-encoded (https://www.sqlite.org/uri.html), when SQLite was built to read
    URIs everywhere (``SQLITE_USE_URI``, as Debian's, Ubuntu's and Fedora's are).

    Raises:
        LibraryError: the name is not UTF-8 and this SQLite would take the URI for a
            plain file name.
    """
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        options = {row[0] for row in conn.execute("PRAGMA compile_options")}
        if "USE_URI" not in options:
            raise LibraryError(f"cannot write {path}: its name is not UTF-8, "
                               "which this SQLite cannot write to") from None
        return path.absolute().as_uri()
    return name


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_error(target: Path, exc: BaseException, restoring: bool = False) -> LibraryError:
    """One line for a copy that could not be written: a backup (``no backup was
    written``), or with ``restoring`` the backup put in place of the library's database
    (``the library was not replaced``)."""
    outcome = "the library was not replaced" if restoring else "no backup was written"
    if is_disk_full(exc, target.parent if target.parent.is_dir() else None):
        return LibraryError(disk_full_message(target, exc).split(";")[0] + f"; {outcome}")
    detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    what = "restore the backup in place of" if restoring else "write the backup"
    return LibraryError(f"cannot {what} {target}: {detail}")


class BackupCancelled(Exception):
    """:func:`backup_to` was stopped by its ``cancel`` (nothing was left behind)."""


def _vacuum_with_progress(conn: sqlite3.Connection, partial: Path,
                          progress: Callable[[int, int], None],
                          cancel: Callable[[], bool]) -> None:
    """``VACUUM INTO partial`` on ``conn``, calling ``progress(bytes written, bytes
    expected)`` from SQLite's progress handler (every 50,000 virtual-machine steps,
    drawn at most every 0.2 s), and stopping when ``cancel()`` says so
    (:class:`BackupCancelled`)."""
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0] - \
        conn.execute("PRAGMA freelist_count").fetchone()[0]
    expected = max(pages, 1) * page_size
    last = [0.0]
    stopped = [False]

    def handler() -> int:
        if cancel():
            stopped[0] = True
            return 1                  # SQLite stops the statement: "interrupted"
        now = time.monotonic()
        if now - last[0] >= 0.2:
            last[0] = now
            try:
                written = partial.stat().st_size
            except OSError:
                written = 0
            try:
                progress(min(written, expected), expected)
            except Exception:  # noqa: BLE001 - a display must not stop the copy
                pass
        return 0

    if cancel():
        raise BackupCancelled("the backup was stopped before it began")
    conn.set_progress_handler(handler, 50_000)
    try:
        conn.execute("VACUUM INTO ?", [_sqlite_name(conn, partial)])
    except sqlite3.OperationalError:
        if stopped[0]:
            raise BackupCancelled("the backup was stopped") from None
        raise
    finally:
        conn.set_progress_handler(None, 0)
    progress(expected, expected)


def backup_to(conn: sqlite3.Connection, target: str | os.PathLike,
              check: bool = True,
              progress: Callable[[int, int], None] | None = None,
              cancel: Callable[[], bool] | None = None) -> BackupFile:
    """Copy the database open on ``conn`` to ``target`` with ``VACUUM INTO``.

    Consistent while other connections (the window) write: the copy is one committed
    state. The copy is written to a hidden file beside ``target`` and renamed into place
    (an existing ``target`` is replaced only then); nothing is left behind on failure.

    Args:
        conn: a connection to the library database (read-only is enough).
        target: the file to write; its folder is created if missing.
        check: run ``PRAGMA quick_check`` on the copy (0.2 s at 100,000 papers).
        progress: ``progress(bytes_written, bytes_expected)`` while the copy is written,
            at most every 0.2 s (from SQLite's progress handler on ``conn``: the copy's
            size so far against the pages in use in the database), and once at its end.
        cancel: polled from the same handler; True stops the copy (nothing is left).
    Returns:
        The :class:`BackupFile` written (its counts are the copy's).
    Raises:
        BackupCancelled: ``cancel()`` stopped it.
        LibraryError: it cannot be written (one line: a full disk says so; the target is
            a folder; the copy fails its check).
    """
    target = Path(target).expanduser().absolute()
    if target.is_dir():
        raise LibraryError(f"cannot write the backup {target}: it is a folder")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if not os.access(target.parent, os.W_OK | os.X_OK):
            raise LibraryError(f"cannot write the backup {target}: its folder is "
                               "read-only (permission denied)")
        sweep_partial_copies(target.parent)
        _remove_copy(partial)
        if progress is None and cancel is None:
            conn.execute("VACUUM INTO ?", [_sqlite_name(conn, partial)])
        else:
            _vacuum_with_progress(conn, partial, progress or (lambda done, total: None),
                                  cancel or (lambda: False))
        copy = sqlite3.connect(f"{partial.as_uri()}?mode=ro", uri=True)
        try:
            if check:
                result = copy.execute("PRAGMA quick_check").fetchone()[0]
                if result != "ok":
                    raise LibraryError(f"cannot write the backup {target}: the copy fails "
                                       f"its check ({result}); the library may be damaged")
            version = copy.execute("PRAGMA user_version").fetchone()[0]
            counts = database_counts(copy)
        finally:
            copy.close()
        with open(partial, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, target)
        _fsync_dir(target.parent)
    except (LibraryError, BackupCancelled, KeyboardInterrupt):
        _remove_copy(partial)
        raise
    except (OSError, sqlite3.Error) as exc:
        _remove_copy(partial)
        raise _write_error(target, exc) from exc
    return BackupFile(target, version, counts)


def daily_backups(folder: Path) -> list[Path]:
    """The automatic daily backups in ``folder``, newest first (by the stamp in the name)."""
    try:
        names = [p for p in folder.iterdir() if _DAILY_RE.match(p.name)]
    except OSError:
        return []
    return sorted(names, key=lambda p: (_DAILY_RE.match(p.name).group(1), p.name), reverse=True)


def latest_backup(folder: Path, exclude=()) -> Path | None:
    """The newest backup in a library's backups ``folder`` that ``restore`` picks by
    default: manual, daily or pre-migration copies, by the UTC stamp in their names
    (``pre-restore-`` copies are left out).

    Args:
        folder: the backups folder (``<library>/backups``).
        exclude: files passed over (e.g. found unreadable).
    Returns:
        The file, or ``None`` when there is none.
    """
    try:
        found = [p for p in folder.iterdir() if _RESTORABLE_RE.match(p.name) and p.is_file()
                 and p not in exclude]
    except OSError:
        return None
    if not found:
        return None
    return max(found, key=lambda p: (_RESTORABLE_RE.match(p.name).group(1),
                                     p.stat().st_mtime))


def sweep_partial_copies(folder: str | os.PathLike) -> list[Path]:
    """Remove what a backup or restore killed while writing left in ``folder``: its
    hidden partial copy and SQLite's ``-journal`` file beside it (see
    :data:`_PARTIAL_RE`), when the process that wrote them is gone. A finished backup
    is never touched (it has its own name, without the hidden prefix).

    Args:
        folder: a backups folder, a library folder or the folder of a ``backup FILE``.
    Returns:
        The files removed (none when ``folder`` cannot be read or written).
    """
    from paperdesk.core.store.lock import pid_alive

    try:
        found = [(p, int(m.group(1))) for p in Path(folder).iterdir()
                 if (m := _PARTIAL_RE.match(p.name))]
    except OSError:
        return []
    removed = []
    for path, pid in found:
        if pid == os.getpid() or pid_alive(pid):
            continue
        try:
            path.unlink(missing_ok=True)
        except OSError:
            continue
        removed.append(path)
    return removed


def _remove_copy(path: Path) -> None:
    """Remove a hidden copy this process was writing and its ``-journal`` file."""
    for leftover in (path, path.with_name(path.name + "-journal")):
        leftover.unlink(missing_ok=True)


def auto_backup(conn: sqlite3.Connection, folder: Path, now: _dt.datetime | None = None,
                keep: int = KEEP_DAILY) -> Path | None:
    """Take the day's automatic backup, unless there is one for this UTC day already or
    the library holds no paper; then delete the daily backups beyond the ``keep`` newest.

    A failure (a full disk, a read-only folder, a copy that fails its check) writes
    nothing and deletes nothing: the older backups stay. Hidden partial copies left by
    a process killed while writing one are removed.

    Args:
        conn: a connection to the library database.
        folder: the backups folder (created if missing).
        now: the current time (UTC; default: now), for tests.
        keep: daily backups to keep.
    Returns:
        The new backup, or ``None`` when none was due or it could not be written.
    """
    now = now or _dt.datetime.now(_dt.timezone.utc)
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    sweep_partial_copies(folder)
    existing = daily_backups(folder)
    if existing and _DAILY_RE.match(existing[0].name).group(1)[:8] >= stamp[:8]:
        return None
    try:
        if conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 0:
            return None
        made = backup_to(conn, backup_name(folder, "daily", stamp)).path
    except (LibraryError, sqlite3.Error, OSError):
        return None
    for old in daily_backups(folder)[keep:]:
        try:
            old.unlink()
        except OSError:
            pass
    return made


def inspect_backup(path: str | os.PathLike, newest_version: int) -> BackupFile:
    """Check that ``path`` is a paperdesk library database that can be restored.

    Args:
        path: the file.
        newest_version: the schema version this program writes
            (:data:`~paperdesk.core.store.schema.SCHEMA_VERSION`); a newer file is refused.
    Returns:
        Its :class:`BackupFile`.
    Raises:
        LibraryError: one line naming the file: missing, not an SQLite database, fails
            ``PRAGMA integrity_check``, not a paperdesk library, or from a newer version.
    """
    path = Path(path).expanduser().absolute()
    if not path.is_file():
        raise LibraryError(f"{path}: no such backup file")
    if path.stat().st_size == 0:
        raise LibraryError(f"{path}: the file is empty, not a backup")
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise LibraryError(f"{path}: cannot open it ({exc})") from exc
    try:
        try:
            result = conn.execute("PRAGMA integrity_check").fetchone()[0]
        except sqlite3.Error as exc:
            raise LibraryError(f"{path}: not a paperdesk library database ({exc})") from exc
        if result != "ok":
            raise LibraryError(f"{path}: the backup is damaged (integrity check: {result})")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version < 1 or not {"papers", "index_queue"} <= tables:
            raise LibraryError(f"{path}: not a paperdesk library database (no papers table "
                               "or schema version)")
        if version > newest_version:
            raise LibraryError(f"{path}: written by a newer paperdesk (schema {version}, "
                               f"this one reads up to {newest_version}); update paperdesk")
        counts = database_counts(conn)
    except sqlite3.Error as exc:
        raise LibraryError(f"{path}: cannot read it ({exc})") from exc
    finally:
        conn.close()
    return BackupFile(path, version, counts)


def library_state(db_path: Path) -> LibraryState:
    """Look at a library's ``library.db`` before a restore replaces it (read-only;
    ``PRAGMA integrity_check`` reads every page: about 1 s at 100,000 papers).

    Args:
        db_path: the library's database file.
    Returns:
        Its :class:`LibraryState`.
    """
    if not db_path.exists():
        return LibraryState("missing")
    if db_path.is_file() and db_path.stat().st_size == 0:
        return LibraryState("empty")
    try:
        conn = sqlite3.connect(f"{db_path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return LibraryState("damaged", detail=str(exc))
    try:
        result = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if result != "ok":
            return LibraryState("damaged", detail=result)
        return LibraryState("ok", database_counts(conn))
    except sqlite3.Error as exc:
        return LibraryState("damaged", detail=str(exc))
    finally:
        conn.close()


def fewer_than(backup: dict[str, int], library: dict[str, int]) -> str:
    """Name what ``backup`` holds fewer of than ``library``, e.g. ``"the backup has 120
    papers, the library 225; 0 notes, the library 3"``; ``""`` when nothing."""
    parts = []
    for table, one, many in COUNTED:
        b, lib = backup.get(table, 0), library.get(table, 0)
        if b < lib:
            parts.append(f"{b:,} {one if b == 1 else many}, the library {lib:,}")
    return ("the backup has " + "; ".join(parts)) if parts else ""


def replace_database(folder: Path, db_name: str, backup: Path,
                     state: LibraryState) -> Path | None:
    """Put ``backup`` in place of the library's database, keeping a copy of what it
    replaces in ``<folder>/backups/pre-restore-<stamp>.db``.

    The caller holds the library's lock (no other paperdesk has it open). Steps, each
    safe to be interrupted: the current database (a healthy one through ``VACUUM INTO``,
    its WAL included; a damaged one byte for byte, with its ``-wal`` file beside) is
    copied aside; the backup is copied to a hidden file in the folder and synced; the
    old ``-wal``/``-shm`` files are removed (a WAL must never be applied to another
    database); the copy is renamed over ``library.db``.

    Args:
        folder: the library folder (created if missing).
        db_name: the database file name (``library.db``).
        backup: a file checked by :func:`inspect_backup`.
        state: :func:`library_state` of the current database.
    Returns:
        The pre-restore copy, or ``None`` when there was nothing to keep (missing or
        empty).
    Raises:
        LibraryError: a copy cannot be written (nothing was replaced).
    """
    folder.mkdir(parents=True, exist_ok=True)
    db_path = folder / db_name
    kept: Path | None = None
    backups = folder / BACKUP_DIR
    if state.status == "ok":
        conn = sqlite3.connect(f"{db_path.as_uri()}?mode=ro", uri=True)
        try:
            kept = backup_to(conn, backup_name(backups, "pre-restore"), check=False).path
        finally:
            conn.close()
    elif state.status == "damaged":
        kept = backup_name(backups, "pre-restore")
        try:
            backups.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(db_path, kept)
            wal = db_path.with_name(db_name + "-wal")
            if wal.is_file() and wal.stat().st_size:     # changes not in the file yet
                shutil.copyfile(wal, kept.with_name(kept.name + "-wal"))
        except OSError as exc:
            kept.unlink(missing_ok=True)
            raise _write_error(kept, exc) from exc
    incoming = folder / f".{db_name}.restoring-{os.getpid()}"
    try:
        sweep_partial_copies(folder)
        _remove_copy(incoming)
        src = sqlite3.connect(f"{backup.as_uri()}?mode=ro", uri=True)
        try:
            src.execute("VACUUM INTO ?", [_sqlite_name(src, incoming)])
        finally:
            src.close()
        with open(incoming, "rb+") as handle:
            os.fsync(handle.fileno())
        for suffix in ("-wal", "-shm", "-journal"):
            db_path.with_name(db_name + suffix).unlink(missing_ok=True)
        os.replace(incoming, db_path)
        _fsync_dir(folder)
    except (OSError, sqlite3.Error) as exc:
        _remove_copy(incoming)
        raise _write_error(db_path, exc, restoring=True) from exc
    return kept
