"""Whoosh writes in a child process, so that a long commit or segment merge holds the
interpreter lock (GIL) of another interpreter, not the window's.

Whoosh indexes in pure Python, and some of its steps (sorting a batch's postings, merging
segments) run for seconds inside single C calls that never release the GIL; in a thread
of the window's process they froze the window for up to 2.6 s during a 30,000-abstract
import (``make bench``). Whoosh allows one writer and any number of readers across
processes (a lock file and a table of contents per generation), so the window keeps
searching the index while the child commits, and sees the new segments when its
searcher is replaced afterwards (:meth:`SearchIndex.write`).

The child is started with the ``spawn`` method (no fork of a process with Qt threads),
imports only this package, and serves one request at a time over a pipe:
``("write", add, update, delete)`` -> ``("ok", count)`` or ``("error", message)``. As
with any ``spawn`` child, Python re-imports the parent's main script in the child: a
script of your own that opens the window must keep its work under
``if __name__ == "__main__":`` (``paperdesk``, the bundle, pytest and the benchmarks
do). A frozen app calls ``multiprocessing.freeze_support()`` first
(``packaging/paperdesk_main.py``).
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Sequence
from pathlib import Path

__all__ = ["IndexWriterProcess", "IndexWriteError"]

#: How long :meth:`IndexWriterProcess.close` waits for the child to finish, in seconds.
STOP_TIMEOUT_S = 30.0


class IndexWriteError(RuntimeError):
    """The child could not apply a batch (the message is its error, one line), or it
    died; the batch is not in the index and its queue entries stay queued."""


def _serve(path: str, conn) -> None:
    """The child's loop (runs in the child process)."""
    from paperdesk.core.search.index import apply_batch, open_for_writing

    ix = open_for_writing(Path(path))
    try:
        while True:
            try:
                message = conn.recv()
            except EOFError:
                return
            if message[0] == "stop":
                return
            _kind, add, update, delete = message
            try:
                conn.send(("ok", apply_batch(ix, add, update, delete)))
            except Exception as exc:  # noqa: BLE001 - reported to the parent, one line
                text = str(exc).strip().splitlines()
                conn.send(("error", f"{type(exc).__name__}: {text[0] if text else ''}"))
    finally:
        ix.close()
        conn.close()


class IndexWriterProcess:
    """A child process that applies index batches for :class:`SearchIndex`.

    Args:
        path: the index folder (it must already hold an index).
    """

    def __init__(self, path: Path):
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(str(path), child), daemon=True,
                                    name="paperdesk-index-writer")
        self._process.start()
        child.close()
        self._lock = threading.Lock()

    def write(self, add: Sequence, update: Sequence, delete: Sequence[int]) -> int:
        """Apply one batch in the child and wait for its commit (the wait releases the
        GIL).

        Args:
            add, update: :class:`~paperdesk.core.search.index.IndexDocument` lists.
            delete: paper ids to remove.
        Returns:
            The number of documents written or deleted.
        Raises:
            IndexWriteError: the child failed or died.
        """
        with self._lock:
            try:
                self._conn.send(("write", list(add), list(update), list(delete)))
                status, value = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise IndexWriteError(f"the index writer stopped ({exc or 'no answer'})") \
                    from exc
        if status != "ok":
            raise IndexWriteError(value)
        return value

    def alive(self) -> bool:
        """Whether the child is running."""
        return self._process.is_alive()

    def close(self) -> None:
        """Ask the child to stop after its current batch and wait for it (then kill it)."""
        with self._lock:
            try:
                self._conn.send(("stop",))
            except (OSError, ValueError):
                pass
            self._process.join(STOP_TIMEOUT_S)
            if self._process.is_alive():
                self._process.kill()
                self._process.join(5)
            self._conn.close()
