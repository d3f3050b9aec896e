"""What the library's managers share: their base class, the callback types of long
operations, the names of a library folder's parts, and running a slow step beside
between-batches work.

A :class:`~paperdesk.core.library.Library` is a small facade (connection, undo stack,
change notices) that builds one manager per concern, as Anki's ``Collection`` has
``col.tags`` and ``col.decks``: ``lib.papers``, ``lib.tags``, ``lib.notes``,
``lib.search``, ``lib.imports``, ``lib.index``, ``lib.removal``, ``lib.saved_searches``,
``lib.exports``, ``lib.duplicates``, ``lib.discover`` and ``lib.screening``. A
manager holds no state of the library's own: it reaches the connection and the undo
stack through the library.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import sqlite_utils

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["Manager", "DB_NAME", "INDEX_DIR", "REPAIR_NOTE", "HOOK_INTERVAL_S",
           "ProgressCallback", "CancelCheck", "FileCallback", "BatchHook", "run_beside"]

#: The library's SQLite database, in its folder.
DB_NAME = "library.db"
#: The library's Whoosh index folder, in its folder.
INDEX_DIR = "index"
#: In the index folder while the index is rebuilt from SQLite after damage: the reason
#: (one line), so that a later run says it is still being repaired.
REPAIR_NOTE = "paperdesk-repairing.txt"
#: While a slow step (reading a file, writing an index batch) runs with a
#: ``between_batches`` hook, the hook is also called this often (seconds), so that no
#: edit waits for a Whoosh segment merge or a 50,000-abstract file.
HOOK_INTERVAL_S = 0.05

#: ``progress(stage, done, total)``: stage is ``"import"`` (abstracts stored) or
#: ``"index"`` (documents indexed); ``done`` and ``total`` are counts.
ProgressCallback = Callable[[str, int, int], None]
#: Returns True when the user asked to stop.
CancelCheck = Callable[[], bool]
#: ``on_file(stage, files_done, files_total, name)``: an import starts reading
#: (``stage="read"``) or storing (``"import"``) the file ``name``; ``files_done`` of the
#: ``files_total`` files it looks at are finished (see
#: :class:`paperdesk.core.imports.progress.ProgressTracker`).
FileCallback = Callable[[str, int, int, str], None]
#: ``between_batches()``: called by long operations (imports, index updates) after each
#: committed batch, on the thread doing the work and outside any transaction, so that
#: the caller can run other writes (e.g. the window's queued edits) in between.
BatchHook = Callable[[], None]


class Manager:
    """One concern of an open library (``lib.tags``, ``lib.notes`` ...).

    Args:
        lib: the :class:`~paperdesk.core.library.Library` it belongs to; the manager
            reads and writes through ``lib.db`` (this thread's connection), records
            undo steps with ``lib.record`` and reports committed changes with
            ``lib.after_change``.
    """

    def __init__(self, lib: "Library") -> None:
        self._lib = lib

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's connection to the library's database (``lib.db``)."""
        return self._lib.db


def run_beside(fn: Callable[[], object], hook: BatchHook) -> object:
    """Return ``fn()``, run on a helper thread while this thread calls ``hook`` every
    :data:`HOOK_INTERVAL_S` seconds: reading a large file or a Whoosh commit that merges
    segments can take seconds, and the caller's queued edits (SQLite only; an
    index-queue row they touch gets a new ``seq`` and so survives the batch being
    written) must not wait for it.

    Raises:
        Whatever ``fn`` raises (re-raised on this thread).
    """
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, fn()))
        except BaseException as exc:  # noqa: BLE001 - re-raised on the caller's thread
            outcome.append((False, exc))

    helper = threading.Thread(target=run, name="paperdesk-beside", daemon=True)
    helper.start()
    try:
        while True:
            helper.join(HOOK_INTERVAL_S)
            if not helper.is_alive():
                break
            hook()
    finally:
        helper.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value


def no_progress(stage: str, done: int, total: int) -> None:
    """A :data:`ProgressCallback` that does nothing."""


def never() -> bool:
    """A :data:`CancelCheck` that never cancels."""
    return False


def nothing() -> None:
    """A :data:`BatchHook` that does nothing."""
