"""One writer per library: a plain lock file in the library folder.

The window holds ``library.lock`` for as long as it has the library open; a command-line
command that writes holds it while it runs. The file is created atomically
(``O_CREAT | O_EXCL``) and holds one line of JSON::

    {"pid": 4242, "host": "laptop", "app": "gui", "token": "…", "started": "…",
     "boot": "…", "proc_start": "…"}

The record is written to a file of its own and hard-linked into place, so a lock file is
never empty or half-written (where hard links are not supported it is created with
``O_EXCL`` and filled, and read back); a write that fails, e.g. on a full disk, leaves no
lock file behind.

A lock is *stale*, and is taken over, when its process is gone: same host and the PID no
longer runs, or runs but started at another time (the PID was reused; checked on Linux
through ``/proc``), or the machine was rebooted since (Linux boot id). An empty lock file
is stale at once (no live process is writing it: see above); any other file that cannot
be read as such a record is stale once it is older than :data:`GARBAGE_GRACE_S`. A lock from another host is never taken over
automatically: its process cannot be checked from here.

Qt-free: the command line and the window share it (the window adds a local socket to
bring the running window forward; see :mod:`paperdesk.ui.app.instance`).
"""

from __future__ import annotations

import datetime as _dt
import errno
import json
import os
import secrets
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from paperdesk.core.models import LibraryError, LibraryReadOnly
from paperdesk.core.store.errors import disk_full_message

__all__ = ["LibraryLock", "LockHeld", "LockInfo", "LOCK_NAME", "GARBAGE_GRACE_S",
           "read_lock", "pid_alive"]

#: Name of the lock file inside the library folder.
LOCK_NAME = "library.lock"
#: Seconds an unreadable lock file is given before it counts as stale.
GARBAGE_GRACE_S = 5.0
_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_APPS = {"gui": "the paperdesk window", "cli": "a paperdesk command"}


@dataclass(frozen=True)
class LockInfo:
    """Who holds a lock, as read from the lock file.

    Attributes:
        pid: process id of the holder.
        host: host name of the holder's machine.
        app: ``"gui"`` (the window) or ``"cli"`` (a command that writes).
        started: ISO 8601 time (UTC) the lock was taken, or ``""``.
        token: random string identifying this taking of the lock.
        boot: Linux boot id of the holder's machine when it took the lock, or ``""``.
        proc_start: the holder process's start time (Linux ``/proc/PID/stat``), or ``""``.
        doing: what a command holding it does, in a word or two (``"importing"``), or
            ``""`` (the window; a lock file of an older paperdesk).
    """

    pid: int
    host: str
    app: str = "gui"
    started: str = ""
    token: str = ""
    boot: str = ""
    proc_start: str = ""
    doing: str = ""

    def describe(self) -> str:
        """Return e.g. ``"the paperdesk window (process 4242 on laptop)"``."""
        who = _APPS.get(self.app, "another paperdesk")
        return f"{who} (process {self.pid} on {self.host})"

    def to_json(self) -> str:
        """Return the one-line JSON stored in the lock file."""
        return json.dumps(self.__dict__, sort_keys=True)


class LockHeld(LibraryError):
    """The library is locked by another live process.

    Attributes:
        info: who holds it (:class:`LockInfo`), or ``None`` if the file was unreadable.
        path: the lock file.
    """

    def __init__(self, path: Path, info: LockInfo | None):
        self.path = path
        self.info = info
        folder = path.parent
        if info is None:
            text = f"the library {folder} is being opened by another paperdesk"
        elif info.app == "cli":
            text = (f"the library {folder} is in use by {info.describe()}; "
                    "try again when it has finished")
        else:
            text = f"the library {folder} is open in {info.describe()}"
            if info.host != socket.gethostname():
                text += (f"; if paperdesk no longer runs on {info.host}, "
                         f"delete {path}")
        super().__init__(text)

    @property
    def by_window(self) -> bool:
        """True if the holder is a paperdesk window on this machine (it can be asked to
        come forward)."""
        return (self.info is not None and self.info.app == "gui"
                and self.info.host == socket.gethostname())


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _proc_start(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot (Linux), or ``""``."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may contain spaces and parentheses: split after it.
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else ""


def pid_alive(pid: int) -> bool:
    """Return True if a process with this id runs on this machine.

    Args:
        pid: a process id (values below 1 are never alive).
    Returns:
        True if it runs (or exists but belongs to another user).
    """
    if pid < 1:
        return False
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate the process there
        import ctypes

        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        try:
            code = ctypes.c_ulong()
            kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            return code.value == 259  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def read_lock(path: str | os.PathLike) -> LockInfo | None:
    """Read a lock file.

    Args:
        path: the lock file (or the library folder, which holds :data:`LOCK_NAME`).
    Returns:
        The :class:`LockInfo`, or ``None`` if there is no lock file or it cannot be read
        as one.
    """
    path = Path(path)
    if path.is_dir():
        path = path / LOCK_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return LockInfo(pid=int(data["pid"]), host=str(data["host"]),
                        app=str(data.get("app", "gui")), started=str(data.get("started", "")),
                        token=str(data.get("token", "")), boot=str(data.get("boot", "")),
                        proc_start=str(data.get("proc_start", "")),
                        doing=str(data.get("doing", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (``O_EXCL``), write ``data`` and sync it; on a failed write the
    file is removed again. Raises ``FileExistsError`` or the ``OSError`` of the write."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        path.unlink(missing_ok=True)
        raise


def _lock_error(folder: Path, path: Path, exc: OSError) -> LibraryError:
    """The one-line error for a lock file that cannot be created."""
    if exc.errno in _FULL:
        return LibraryError(f"cannot open the library {folder} for changes: "
                            + disk_full_message(path, exc))
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return LibraryReadOnly(f"the library folder {folder} is read-only "
                               f"({exc.strerror or exc}): it can be searched and "
                               "exported, not changed", folder)
    return LibraryError(f"cannot lock the library {folder}: {exc.strerror or exc}")


#: The files of a library that SQLite writes into in place (``library.db``, its
#: write-ahead log and the log's shared-memory index; SQLite gives the last two the
#: database file's mode when it makes them, so a read-only command on a read-only
#: database leaves them read-only too): one this process cannot open for writing makes
#: the library read-only even in a folder it can write.
_WRITTEN_IN_PLACE = ("library.db", "library.db-wal", "library.db-shm")


def _refuse_read_only_files(folder: Path) -> None:
    """Raise :class:`LibraryReadOnly` when a file of :data:`_WRITTEN_IN_PLACE` in
    ``folder`` exists but cannot be opened for writing (its mode, an immutable
    attribute, a read-only mount): SQLite would open it read-only without a word and
    refuse every change later (a note typed in the window would not be saved).

    ``os.access`` tells: it honours an immutable attribute and a read-only mount for
    root too, and says yes to root for a file of mode 0444, which SQLite (as root) does
    write. The file is never opened here: closing any descriptor of a file drops every
    POSIX lock this process holds on it, SQLite's included (an import re-taking its lock
    between batches with its connection open lost its locks, and the database was
    damaged).

    Args:
        folder: the library folder.
    Raises:
        LibraryReadOnly: ``"the library file F is read-only (Permission denied): it can
            be searched and exported, not changed"`` (``"the library folder D and its
            file library.db are read-only ..."`` when the folder cannot be written
            either).
    """
    for name in _WRITTEN_IN_PLACE:
        path = folder / name
        if not path.exists() or os.access(path, os.W_OK):
            continue
        what = (f"the library folder {folder} and its file {name} are"
                if not os.access(folder, os.W_OK) else f"the library file {path} is")
        reason = "Permission denied" if os.geteuid() != 0 else "Operation not permitted"
        raise LibraryReadOnly(f"{what} read-only ({reason}): it can be searched and "
                              "exported, not changed", folder)


def _is_stale(info: LockInfo | None, path: Path) -> bool:
    if info is None:
        try:
            stat = path.stat()
        except OSError:
            return False   # gone already: the next attempt will tell
        if stat.st_size == 0:
            # Never written: lock files are created complete (LibraryLock._create), so
            # this is what a failed write (a full disk) or a crash left behind.
            return True
        return time.time() - stat.st_mtime > GARBAGE_GRACE_S
    if info.host != socket.gethostname():
        return False
    boot = _boot_id()
    if info.boot and boot and info.boot != boot:
        return True        # the machine was restarted since
    if info.pid == os.getpid():
        return False       # this process holds it (for another LibraryLock object)
    if not pid_alive(info.pid):
        return True
    start = _proc_start(info.pid)
    return bool(info.proc_start and start and info.proc_start != start)  # PID reused


class LibraryLock:
    """The lock of one library folder.

    Use :meth:`acquire` / :meth:`release`, or as a context manager (which acquires)::

        with LibraryLock(folder, app="cli"):
            ...  # write to the library

    Args:
        folder: the library folder (created if missing when acquiring).
        app: who takes it: ``"gui"`` or ``"cli"`` (changes only the messages others get).
        doing: what the holder does, for the messages others get (``"importing"``).
    """

    def __init__(self, folder: str | os.PathLike, app: str = "gui", doing: str = ""):
        self.folder = Path(folder).expanduser().absolute()
        self.path = self.folder / LOCK_NAME
        self.app = app
        self.doing = doing
        self._info: LockInfo | None = None

    @property
    def held(self) -> bool:
        """True between a successful :meth:`acquire` and :meth:`release`."""
        return self._info is not None

    def holder(self) -> LockInfo | None:
        """Return who holds the lock now (``None``: nobody, or an unreadable file)."""
        return read_lock(self.path)

    def acquire(self) -> "LibraryLock":
        """Take the lock, taking over a stale one.

        Returns:
            ``self``.
        Raises:
            LockHeld: a live process (or one on another host) holds it.
            LibraryReadOnly: the folder, ``library.db`` or its ``-wal`` or ``-shm`` file
                cannot be written (nothing is created then).
            LibraryError: the folder or the lock file cannot be created.
        """
        if self._info is not None:
            return self
        if self.folder.exists() and not self.folder.is_dir():
            raise LibraryError(f"{self.folder} is not a folder (a library is a folder)")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LibraryError(f"cannot create library folder {self.folder}: "
                               f"{exc.strerror or exc}") from exc
        _refuse_read_only_files(self.folder)
        for _attempt in range(20):
            info = LockInfo(pid=os.getpid(), host=socket.gethostname(), app=self.app,
                            started=_dt.datetime.now(_dt.timezone.utc).isoformat(
                                timespec="seconds"),
                            token=secrets.token_hex(8), boot=_boot_id(),
                            proc_start=_proc_start(os.getpid()), doing=self.doing)
            try:
                taken = self._create(info)
            except FileExistsError:
                held = read_lock(self.path)
                if not _is_stale(held, self.path):
                    raise LockHeld(self.path, held) from None
                self._break(held)
                continue
            except OSError as exc:
                raise _lock_error(self.folder, self.path, exc) from exc
            if taken:
                self._info = info
                self._sweep()
                return self
        raise LockHeld(self.path, read_lock(self.path))

    def _create(self, info: LockInfo) -> bool:
        """Create the lock file holding ``info``, never leaving an empty or partial one.

        The record is written and synced to a file of its own first, then hard-linked
        to :data:`LOCK_NAME` (atomic, and fails if the name exists), so the lock file is
        complete from the moment it exists: a write that fails (a full disk) leaves
        nothing behind. Where hard links are not supported, the lock file is created
        with ``O_EXCL`` and written; a failed write removes it, and the record is read
        back, since an empty lock file counts as stale at once.

        Returns:
            True if this took the lock; False if another process broke the half-written
            fallback file meanwhile (try again).
        Raises:
            FileExistsError: a lock file exists.
            OSError: the file cannot be written (e.g. ``ENOSPC``).
        """
        data = (info.to_json() + "\n").encode("utf-8")
        aside = self.path.with_name(f"{LOCK_NAME}.new-{os.getpid()}-{info.token}")
        try:
            _write_new(aside, data)
            try:
                os.link(aside, self.path)
                return True
            except FileExistsError:
                raise
            except OSError as exc:
                if exc.errno in _FULL:
                    raise
                # No hard links here (e.g. FAT, some network file systems): below.
        finally:
            aside.unlink(missing_ok=True)
        try:
            _write_new(self.path, data)
        except FileExistsError:
            raise
        except OSError:
            current = read_lock(self.path)
            if current is None or current.token == info.token:
                self.path.unlink(missing_ok=True)   # ours, empty or half-written
            raise
        current = read_lock(self.path)
        return current is not None and current.token == info.token

    def _sweep(self) -> None:
        """Remove the aside files (``library.lock.new-PID-…``) of processes that were
        killed between writing one and linking it into place."""
        try:
            leftovers = list(self.folder.glob(f"{LOCK_NAME}.new-*-*"))
        except OSError:
            return
        for path in leftovers:
            try:
                pid = int(path.name[len(LOCK_NAME) + 5:].split("-")[0])
            except ValueError:
                continue
            if pid != os.getpid() and not pid_alive(pid):
                path.unlink(missing_ok=True)

    def _break(self, stale: LockInfo | None) -> None:
        """Remove a stale lock file, unless another process replaced it meanwhile."""
        aside = self.path.with_name(f"{LOCK_NAME}.stale-{os.getpid()}-{secrets.token_hex(4)}")
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)
            return
        if read_lock(aside) != stale:
            # Someone took the lock between our read and the move: put theirs back.
            try:
                os.link(aside, self.path)
            except OSError:
                pass
        aside.unlink(missing_ok=True)

    def release(self) -> None:
        """Give the lock back (remove the file if it is still ours). Safe to call twice."""
        info, self._info = self._info, None
        if info is None:
            return
        current = read_lock(self.path)
        if current is not None and current.token == info.token:
            try:
                self.path.unlink()
            except OSError:
                pass

    def __enter__(self) -> "LibraryLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
