"""Segments written in child processes: both cores for an import, and the window's
interpreter lock (GIL) left to the window.

Writing a segment (:func:`~paperdesk.core.search.segment_writer.build_segment`) is
Python and numpy work of about a millisecond per abstract; in a thread of the window's
process it would compete with the window for the GIL, and one process uses one core. So
:class:`~paperdesk.core.search.index.SegmentBuilders` hands each large batch to up to
two children, half each; every child writes its half as a new segment file in the index
folder and returns the segment's description; the parent, which holds Whoosh's write
lock meanwhile, commits them all in one table of contents. Whoosh allows one writer and
any number of readers across processes, so searches go on during the writing, and a
child never commits anything itself.

A child is started with the ``spawn`` method (no fork of a process with Qt threads),
imports only this package, keeps its word vocabulary between batches, and serves one
request at a time over a pipe: ``("build", index_folder, index_name, documents, None)``
or ``("build", index_folder, index_name, paper_ids, source)`` (the child reads the
documents from the library database itself, read-only) -> ``("ok", segment or None)``
or ``("error", message)``. As with any ``spawn`` child, Python
re-imports the parent's main script in the child: a script of your own that writes a
large batch must keep its work under ``if __name__ == "__main__":`` (``paperdesk``, the
bundle, pytest and the benchmarks do). A frozen app calls
``multiprocessing.freeze_support()`` first (``packaging/paperdesk_main.py``).
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from paperdesk.core.child_process import start_ignoring_interrupts, stop_child
from collections.abc import Sequence

__all__ = ["SegmentBuilderProcess", "IndexWriteError", "VOCABULARY_LIMIT"]

#: How long :meth:`SegmentBuilderProcess.close` waits for the child, in seconds.
STOP_TIMEOUT_S = 30.0
#: A child forgets its vocabulary when it holds more words than this: at 100,000
#: abstracts of a realistic vocabulary (350,000 distinct words) keeping them all cost
#: ~60 MB per child and saved under 5% of the CPU (most words are rare).
VOCABULARY_LIMIT = 100_000


class IndexWriteError(RuntimeError):
    """A child could not write a segment (the message is its error, one line), or it
    died; nothing of the batch is in the index and its queue entries stay queued."""


def _serve(conn, schema_factory, blocklimit: int) -> None:
    """The child's loop (runs in the child process): segments of the schema
    ``schema_factory()`` with ``blocklimit`` postings per block."""
    # Ctrl+C in a terminal reaches the whole process group: the parent decides (it
    # stops after the current batch and closes its children); the child must not die
    # with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from whoosh.filedb.filestore import FileStorage

    from paperdesk.core.search.segment_writer import Vocabulary, build_segment

    schema = schema_factory()
    vocab = Vocabulary()
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message[0] == "stop":
            return
        _kind, folder, indexname, items, source = message
        if len(vocab) > VOCABULARY_LIMIT:
            vocab = Vocabulary()
        try:
            docs = items
            if source is not None:   # paper ids: read their documents here
                found = source(items)
                docs = [found[i] for i in items if i in found]
            segment = (build_segment(FileStorage(folder), indexname, schema, docs,
                                     vocab=vocab, blocklimit=blocklimit) if docs else None)
            conn.send(("ok", segment))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, one line
            text = str(exc).strip().splitlines()
            conn.send(("error", f"{type(exc).__name__}: {text[0] if text else ''}"))
        del items, docs
        _release_memory()


def _release_memory() -> None:
    """Give freed heap memory back to the system between segments (glibc keeps it
    otherwise, and the next segment's peak would start from there)."""
    try:
        import ctypes  # noqa: PLC0415

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    if isinstance(exc, EOFError) or not text:
        return "it ended without an answer"
    return text


class SegmentBuilderProcess:
    """One child process that writes segments; see the module's description.

    Args:
        schema_factory: returns the index's Whoosh ``Schema``
            (:func:`paperdesk.core.search.index.build_schema`; a module-level function,
            passed to the child by name).
        blocklimit: postings per block on disk
            (:data:`paperdesk.core.search.index.POSTING_BLOCK`).
    """

    def __init__(self, schema_factory, blocklimit: int):
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child, schema_factory, blocklimit),
                                    daemon=True,
                                    name="paperdesk-segment-writer")
        start_ignoring_interrupts(self._process)
        child.close()
        self._lock = threading.Lock()
        self._busy = False

    def send(self, folder: str, indexname: str, docs: Sequence, source=None) -> None:
        """Start writing ``docs`` as one segment of the index in ``folder``; with a
        ``source``, ``docs`` are paper ids and the child reads their documents with it
        (:class:`~paperdesk.core.store.index_documents.DocumentSource`).

        Raises:
            IndexWriteError: the child is gone.
        """
        with self._lock:
            try:
                self._conn.send(("build", folder, indexname, list(docs), source))
            except (OSError, ValueError) as exc:
                raise IndexWriteError("the process writing the search index stopped "
                                      f"({_reason(exc)})") from exc
            self._busy = True

    def receive(self):
        """Wait for the segment started by :meth:`send` (the wait releases the GIL).

        Returns:
            The ``W3Segment`` written (not yet committed).
        Raises:
            IndexWriteError: the child failed or died.
        """
        with self._lock:
            try:
                status, value = self._conn.recv()
            except (EOFError, OSError) as exc:
                raise IndexWriteError("the process writing the search index stopped "
                                      f"({_reason(exc)})") from exc
            finally:
                self._busy = False
        if status != "ok":
            raise IndexWriteError(value)
        return value

    def alive(self) -> bool:
        """Whether the child is running."""
        return self._process.is_alive()

    def close(self) -> None:
        """Ask the child to stop after its current segment and wait for it (then kill
        it)."""
        with self._lock:
            stop_child(self._process, self._conn, ("stop",), STOP_TIMEOUT_S)
