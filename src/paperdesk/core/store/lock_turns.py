"""Commands that write take turns on a library instead of refusing each other.

The library lock (:mod:`paperdesk.core.store.lock`) lets one writer in. A small edit
from the command line (``paperdesk tag``, ``note``, ...) that finds the lock held by
another *command* (an import that runs for minutes) waits its turn instead of being
refused at once:

1. The waiter announces itself with a file ``library.lock.wait-<pid>-<token>`` in the
   library folder (one line of JSON: its pid and host) and polls the lock every
   :data:`POLL_S`.
2. The holder, between two of its batches (outside any transaction, with no index
   commit running), looks for such files (:func:`yield_to_waiters`). When a live
   waiter is there, it writes ``library.lock.paused-<pid>``, releases the lock, waits
   until the waiters it saw have taken the lock and given it back (or given up), takes
   the lock again and removes the marker. It then goes on with its next batch: every
   batch reads what it needs from the database again, so edits made meanwhile are
   seen.
3. A waiter that got the lock while a holder is paused (:func:`paused_holder`) is a
   *guest*: it makes its change in SQLite and leaves the search index to the paused
   holder (the change is queued in ``index_queue``, which the holder's indexing
   applies), so that two processes never write the index at once.

A waiter gives up after a bound (:func:`wait_bound`: ``$PAPERDESK_LOCK_WAIT`` seconds,
default :data:`DEFAULT_WAIT_S`) with the lock's usual refusal (who holds it: pid and
host). The window never waits and is never waited for: a lock held by the window
refuses at once, as before, and the window does not yield (its edits go through its
own queue). A waiter file whose process is gone is ignored and removed.

Qt-free.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from collections.abc import Callable
from pathlib import Path

from paperdesk.core.store.lock import LOCK_NAME, LibraryLock, LockHeld, LockInfo, pid_alive

__all__ = ["WAIT_ENV", "DEFAULT_WAIT_S", "POLL_S", "wait_bound", "acquire_in_turn",
           "yield_to_waiters", "paused_holder"]

#: The environment variable that sets how long a command waits for its turn (seconds;
#: 0 refuses at once, as paperdesk did before).
WAIT_ENV = "PAPERDESK_LOCK_WAIT"
#: Seconds a command waits for its turn when ``$PAPERDESK_LOCK_WAIT`` is not set.
DEFAULT_WAIT_S = 60.0
#: Seconds between two attempts of a waiter to take the lock.
POLL_S = 0.1
#: Seconds a holder that gave the lock to waiters waits, at least, to get it back.
HOLDER_RETURN_S = 120.0


def wait_bound() -> float:
    """How long a command waits for its turn: ``$PAPERDESK_LOCK_WAIT`` in seconds (a
    number, at least 0), else :data:`DEFAULT_WAIT_S`.

    Returns:
        Seconds.
    """
    try:
        return max(0.0, float(os.environ.get(WAIT_ENV, "")))
    except ValueError:
        return DEFAULT_WAIT_S


def _marker(folder: Path, kind: str, pid: int, token: str = "") -> Path:
    return folder / (f"{LOCK_NAME}.{kind}-{pid}" + (f"-{token}" if token else ""))


def _live_markers(folder: Path, kind: str) -> list[Path]:
    """The ``library.lock.<kind>-<pid>[-token]`` files of live processes on this host
    other than this one; those of processes that are gone are removed."""
    found = []
    try:
        paths = list(folder.glob(f"{LOCK_NAME}.{kind}-*"))
    except OSError:
        return []
    for path in paths:
        try:
            pid = int(path.name[len(LOCK_NAME) + len(kind) + 2:].split("-")[0])
        except ValueError:
            continue
        if pid == os.getpid():
            continue
        if pid_alive(pid):
            found.append(path)
        else:
            path.unlink(missing_ok=True)
    return found


def acquire_in_turn(lock: LibraryLock, bound: float,
                    on_wait: Callable[[LockInfo], None]) -> LibraryLock:
    """Take ``lock``, waiting up to ``bound`` seconds while another command holds it.

    Args:
        lock: the lock to take (not held yet).
        bound: seconds to wait at most (0: refuse at once).
        on_wait: called once, with the holder, when the lock is held by another command
            and this starts waiting (to say so in one line).
    Returns:
        ``lock``, held.
    Raises:
        LockHeld: the window holds it (at once), or a command still holds it after
            ``bound`` seconds (the holder as it was last seen).
        LibraryError: the folder or the lock file cannot be created.
    """
    try:
        return lock.acquire()
    except LockHeld as held:
        if bound <= 0 or held.info is None or held.info.app != "cli":
            raise
        first = held.info
    mine = _marker(lock.folder, "wait", os.getpid(), secrets.token_hex(4))
    try:
        mine.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}) + "\n",
                        encoding="utf-8")
    except OSError:
        pass            # the holder will not know: this waits for it to finish instead
    try:
        on_wait(first)
        deadline = time.monotonic() + bound
        while True:
            time.sleep(POLL_S)
            try:
                return lock.acquire()
            except LockHeld as held:
                if held.info is not None and held.info.app != "cli":
                    raise                     # the window took it meanwhile
                if time.monotonic() >= deadline:
                    raise
    finally:
        mine.unlink(missing_ok=True)


def yield_to_waiters(lock: LibraryLock, bound: float | None = None) -> bool:
    """Let commands waiting for ``lock`` in (see the module docstring); call it between
    two batches, outside any transaction.

    Args:
        lock: the lock this process holds.
        bound: seconds to wait at most to get the lock back (default: the larger of
            :func:`wait_bound` and :data:`HOLDER_RETURN_S`).
    Returns:
        True when it let waiters in (the caller holds the lock again: what it read
        from the database before may have changed), False when nobody waited.
    Raises:
        LockHeld: the lock could not be taken back within ``bound`` seconds (e.g. the
            window took it meanwhile); nothing of the caller's is half-written.
    """
    if not lock.held:
        return False
    waiters = _live_markers(lock.folder, "wait")
    if not waiters:
        return False
    bound = max(wait_bound(), HOLDER_RETURN_S) if bound is None else bound
    paused = _marker(lock.folder, "paused", os.getpid())
    try:
        paused.write_text(f"{os.getpid()}\n", encoding="utf-8")
    except OSError:
        return False        # a guest could not tell: let it wait for the end instead
    try:
        lock.release()
        deadline = time.monotonic() + bound
        while (any(w.exists() for w in waiters) and time.monotonic() < deadline):
            time.sleep(POLL_S / 2)
        while True:
            try:
                lock.acquire()
                return True
            except LockHeld:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(POLL_S / 2)
    finally:
        paused.unlink(missing_ok=True)


def paused_holder(folder: str | os.PathLike) -> bool:
    """Whether a command that holds ``folder``'s library paused to let this process in
    (:func:`yield_to_waiters`): then this process is a guest and leaves the search index
    to it.

    Args:
        folder: the library folder.
    Returns:
        True while such a command waits to take the lock back.
    """
    return bool(_live_markers(Path(folder).expanduser().absolute(), "paused"))
