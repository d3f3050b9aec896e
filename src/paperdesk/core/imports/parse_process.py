"""Large text files read in a child process while the importing thread stores them
(issue 28: both cores for storing a million abstracts).

Storing a Daily Papers text file is two kinds of work of about the same CPU: reading it
(decoding, splitting, normalising each abstract, its SHA-256 key and its title: pure
Python, holding the GIL) and the SQLite inserts. In one thread they add up; here a
``spawn`` child (no fork of a process with Qt threads) reads the file and sends the
abstracts, ready to store, in messages of :data:`MESSAGE_ABSTRACTS`, while the parent
stores the previous message's. A pipe holds little, so the child is at most about one
message ahead: memory stays that of a few thousand abstracts.

Before storing, the same child also recognises every other large text file of the
import (:meth:`ParseChild.detect_ahead`, :func:`~paperdesk.core.imports.detect.
detect_streamed`: one pass over every paragraph) while the importing thread recognises
the others, so that the pass before storing takes both cores too.

Protocol over one pipe: the parent sends ``("detect", path)`` for each file to
recognise, first; the child answers each, in order, with ``("detected", streamed_text
or None)`` or ``("refused", (path, reason))`` (a
:class:`~paperdesk.core.imports.daily_papers.ParseError`) or ``("failed", None)`` (any
other error: the parent recognises that file itself, and meets the error there). Then
the parent sends ``("read", streamed_text)`` (a
:class:`~paperdesk.core.imports.daily_papers.StreamedText`); the child answers
``("items", [(position, abstract, content_hash, title, cut_from), ...])`` any number of
times, then ``("end", None)``, or ``("error", exception)`` when reading failed (the
abstracts sent before it stay valid, as with reading in the importing thread). A parent
that stops reading a file early (cancel, a database error) kills the child; the next
file gets a new one.

An arXiv metadata file is read with ``("arxiv", (path, name, filter, estimated_lines,
sign))``; the child answers ``("records", (records, state))`` any number of times, then
``("end", state)`` or ``("error", exception)`` (:meth:`ParseChild.arxiv_records`). With
``sign`` true (the library looks up near-duplicates) each record with an abstract
carries its :attr:`~paperdesk.core.imports.records.Record.near_keys`, computed here for
a whole message at once, so that the storing process does not compute them (issue 28:
a third of its time), as long as the child is ahead of the storing process
(:func:`_read_arxiv`). As with any ``spawn`` child, a script of your own that imports
large files must keep its work under ``if __name__ == "__main__":``; a frozen app calls
``multiprocessing.freeze_support()`` first (``packaging/paperdesk_main.py``).
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator

from paperdesk.core.metadata import key_word
from paperdesk.core.text import TITLE_MAX_CHARS, content_hash, derive_title
from paperdesk.core.child_process import leave_now, start_ignoring_interrupts, stop_child

__all__ = ["ParseChild", "PARSE_CHILD_MIN_BYTES", "MESSAGE_ABSTRACTS", "prepared", "pending",
           "title_of", "with_near_keys", "WAITING", "WAIT_POLL_S"]

#: A streamed text file of at least this many bytes is read in the child (4 MiB: some
#: 3,000 abstracts; below that the child's start, about 0.3 CPU s, is not paid back).
PARSE_CHILD_MIN_BYTES = 4 << 20
#: Abstracts per message from the child (about 2.5 MB of text).
MESSAGE_ABSTRACTS = 2000
#: How long :meth:`ParseChild.close` waits for the child, in seconds.
STOP_TIMEOUT_S = 10.0
#: While the caller waits for the child's next records with an edit waiting
#: (``hurry``), it looks at ``hurry`` this often, in seconds.
WAIT_POLL_S = 0.005
#: Yielded by :meth:`ParseChild.arxiv_records` instead of a record when the caller was
#: asked to hurry while the child had nothing new for it.
WAITING = object()


#: Characters of an abstract :func:`title_of` looks at.
_TITLE_SCAN = 4 * TITLE_MAX_CHARS


def pending(item) -> tuple:
    """``(position, abstract, content hash, title)`` of a
    :class:`~paperdesk.core.imports.daily_papers.ParsedAbstract` to be stored."""
    return item.position, item.abstract, content_hash(item.abstract), title_of(item.abstract)


def title_of(abstract: str) -> str:
    """``derive_title(abstract)`` for a normalised abstract, from its first
    :data:`_TITLE_SCAN` characters only: the title is the first sentence cut at
    :data:`~paperdesk.core.text.TITLE_MAX_CHARS` characters, and a sentence end is told
    by the few characters after it, so a longer abstract gives the same title (a prefix
    of NFC text is NFC, and of single-spaced text single-spaced) without normalising a
    1,500-character abstract once more."""
    return derive_title(abstract[:_TITLE_SCAN])


def prepared(item) -> tuple:
    """``(position, abstract, content hash, title, cut_from, key_word)`` of a
    :class:`~paperdesk.core.imports.daily_papers.ParsedAbstract`: what storing needs
    (:func:`pending`), the length it was cut from (``None`` when it was not cut), and
    the first word of its automatic citation key (:func:`~paperdesk.core.metadata.
    key_word` of the title: computed where the file is read, in the child for a large
    file, so that the importing thread only adds ``_<id>``)."""
    position, abstract, digest, title = pending(item)
    return position, abstract, digest, title, item.cut_from, key_word(title)


def _serve(conn) -> None:
    """The child's loop (runs in the child process)."""
    # Ctrl+C reaches the whole process group: the parent decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "detect":
            try:
                _detect(conn, message[1])
            except (BrokenPipeError, EOFError):
                return
            continue
        if message[0] == "arxiv":
            try:
                _read_arxiv(conn, *message[1])
            except (BrokenPipeError, EOFError):
                return
            continue
        if message[0] == "stop":
            leave_now()     # nothing to close: no interpreter teardown to wait for
        if message[0] != "read":
            return
        batch: list = []
        try:
            for item in message[1].abstracts():
                batch.append(prepared(item))
                if len(batch) >= MESSAGE_ABSTRACTS:
                    conn.send(("items", batch))
                    batch = []
            if batch:
                conn.send(("items", batch))
            conn.send(("end", None))
        except (BrokenPipeError, EOFError):
            return
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
            if batch:
                conn.send(("items", batch))
            try:
                conn.send(("error", exc))
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                conn.send(("error", OSError(f"{type(exc).__name__}: {exc}")))


#: Checked records of an arXiv metadata file per message from the child.
MESSAGE_RECORDS = 256
#: Seconds after which the child sends what it has (the lines a category filter left
#: out count as progress too).
MESSAGE_SECONDS = 0.2


def _arxiv_state(stream, sent_notes: int) -> tuple:
    """``(lines read, filtered, skipped, new notes, notes dropped)`` of a stream read in
    the child: what the parent's copy of the stream is brought up to date with."""
    return (stream.lines_read, stream.filtered, stream.skipped,
            stream.warnings[sent_notes:], stream.notes_dropped)


def with_near_keys(records: list) -> list:
    """``records`` (checked :class:`~paperdesk.core.imports.records.Record`), each with
    an abstract given its :attr:`~paperdesk.core.imports.records.Record.near_keys`
    (:func:`paperdesk.core.duplicates.lookup_keys` of all their abstracts at once); a
    record without an abstract (never looked up) is left as it is.

    Args:
        records: the records of one message.
    Returns:
        A new list, in the same order.
    """
    from dataclasses import replace

    from paperdesk.core.duplicates import lookup_keys

    texts = [r.abstract for r in records if r.abstract]
    if not texts:
        return list(records)
    keys = iter(lookup_keys(texts))
    return [replace(r, near_keys=next(keys)) if r.abstract else r for r in records]


#: Seconds of signing (:func:`with_near_keys`) the child may spend before it has waited
#: for the storing process at all, and the most it saves up.
SIGN_BUDGET_S = 1.0


def _read_arxiv(conn, path: str, name, arxiv_filter, estimated_lines: int,
                sign: bool = False) -> None:
    """Read an arXiv metadata file in the child and send its checked records (see
    :meth:`ParseChild.arxiv_records`): ``("records", (records, state))`` messages, then
    ``("end", state)`` or ``("error", exception)``.

    With ``sign``, the records of a message carry their near-duplicate lookup keys
    (:func:`with_near_keys`) when the child has time for it: the seconds it spent
    waiting for the storing process to take its last messages (a send that blocks),
    up to :data:`SIGN_BUDGET_S`, pay for the CPU seconds of signing the next ones. So the work moves to
    the child only while the storing process is the slower of the two (signing every
    record there made the child the slower one: 41.7 -> 58.4 CPU s against the storing
    process's 26.8, at 62,500 records); a message sent unsigned leaves the keys to the
    storing process, as before."""
    import time

    from paperdesk.core.imports.arxiv import ArxivStream

    stream = ArxivStream(name, lambda: open(path, "rb"), arxiv_filter,
                         estimated_lines=estimated_lines)
    batch: list = []
    sent = 0
    last = time.monotonic()

    budget = SIGN_BUDGET_S

    def send(kind: str, records=None) -> None:
        nonlocal sent, budget
        if sign and records and budget > 0:
            began = time.process_time()     # CPU: a child starved by other work pays
            records = with_near_keys(records)   # no more for it
            budget -= time.process_time() - began
        state = _arxiv_state(stream, sent)
        sent = len(stream.warnings)
        began = time.monotonic()
        conn.send((kind, (records, state) if kind == "records" else state))
        budget = min(SIGN_BUDGET_S, budget + time.monotonic() - began)

    try:
        for record in stream.records():
            batch.append(record)
            if len(batch) >= MESSAGE_RECORDS or time.monotonic() - last >= MESSAGE_SECONDS:
                send("records", batch)
                batch, last = [], time.monotonic()
        if batch:
            send("records", batch)
        send("end")
    except (BrokenPipeError, EOFError):
        raise
    except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
        if batch:
            send("records", batch)
        try:
            conn.send(("error", exc))
        except Exception:  # noqa: BLE001 - an exception that does not pickle
            conn.send(("error", OSError(f"{type(exc).__name__}: {exc}")))


def _detect(conn, path) -> None:
    """Recognise ``path`` in the child and send the answer (see the module)."""
    from paperdesk.core.imports.daily_papers import ParseError
    from paperdesk.core.imports.detect import detect_streamed

    try:
        found = detect_streamed(path)
    except ParseError as exc:
        conn.send(("refused", (str(exc.path), exc.reason)))
        return
    except Exception:  # noqa: BLE001 - the parent meets it again when it recognises it
        conn.send(("failed", None))
        return
    conn.send(("detected", found))


class ParseChild:
    """One child process that reads text files for an import (see the module); started
    on the first file, closed by :meth:`close`. Not thread-safe: one importing thread
    uses it."""

    #: Children started by this process (read by tests).
    started = 0

    def __init__(self) -> None:
        self._conn = None
        self._process = None
        #: Paths sent with "detect" whose answers were not received yet, in order.
        self._detecting: list = []

    def detect_ahead(self, paths: list) -> list:
        """Have the child recognise ``paths`` (large text files, in the order the
        caller will ask for them with :meth:`detected`), starting it if need be.

        Args:
            paths: the files (``os.PathLike`` or ``str``).
        Returns:
            The paths sent (``[]`` when no child could be started: the caller
            recognises them itself).
        """
        if not paths:
            return []
        try:
            if self._process is None or not self._process.is_alive():
                self._start()
            for path in paths:
                self._conn.send(("detect", path))
                self._detecting.append(path)
        except Exception:  # noqa: BLE001 - no child: the caller recognises them
            self._stop()
            return []
        return list(paths)

    def detected(self, path):
        """The child's recognition of ``path``, the next of the paths given to
        :meth:`detect_ahead`: what :func:`~paperdesk.core.imports.detect.
        detect_streamed` returns for it (waiting for the child if need be). When the
        child failed on it (or stopped), the file is recognised here instead, so the
        result and the errors are those of recognising it in this thread.

        Args:
            path: the next path given to :meth:`detect_ahead`.
        Returns:
            A :class:`~paperdesk.core.imports.daily_papers.StreamedText`, or ``None``.
        A path not (or no longer) waiting for an answer is recognised here; the
        answers for paths given before it that were not asked for are read and dropped.

        Raises:
            ParseError: the file is refused (as ``detect_streamed`` refuses it).
        """
        from paperdesk.core.imports.daily_papers import ParseError
        from paperdesk.core.imports.detect import detect_streamed

        if path not in self._detecting:
            return detect_streamed(path)
        try:
            while True:
                kind, value = self._conn.recv()
                if self._detecting.pop(0) == path:
                    break
        except (EOFError, OSError, AttributeError):
            self._stop()
            return detect_streamed(path)
        if kind == "detected":
            return value
        if kind == "refused":
            raise ParseError(*value)
        return detect_streamed(path)

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child,), daemon=True,
                                    name="paperdesk-import-reader")
        start_ignoring_interrupts(self._process)
        child.close()
        ParseChild.started += 1

    def abstracts(self, streamed,
                  hurry: Callable[[], bool] | None = None) -> Iterator[tuple]:
        """The abstracts of ``streamed`` (a
        :class:`~paperdesk.core.imports.daily_papers.StreamedText`), as
        :func:`prepared` gives them, in file order, read by the child.

        When no child can be started (no ``spawn`` here, no processes left), the file
        is read in this thread instead, as a smaller one is.

        Args:
            streamed: the file.
            hurry: while the child has sent nothing new and ``hurry()`` is true,
                :data:`WAITING` is yielded instead of an abstract (as
                :meth:`arxiv_records` does): the caller stores what it has and lets an
                edit through (a star pressed as a 30,000-abstract file began to be
                stored waited 4.5-5.8 s for the child's first abstracts).
        Raises:
            UnicodeDecodeError, OSError: as ``streamed.abstracts()`` raises them (after
                the abstracts before the failure); OSError too when the child died.
        """
        if not self._ready():
            yield from map(prepared, streamed.abstracts())
            return
        for kind, value in self._answers(("read", streamed), hurry):
            if kind == "wait":
                yield WAITING
            elif kind == "items":
                yield from value

    def _ready(self) -> bool:
        """Settle the pipe and start the child if need be; False when none can be
        started (the caller then reads the file itself)."""
        self.settle()
        if self._process is None or not self._process.is_alive():
            try:
                self._start()
            except Exception:  # noqa: BLE001 - any failure to start: read it here
                self._process = self._conn = None
                return False
        return True

    def _answers(self, message, hurry: Callable[[], bool] | None = None) -> Iterator[tuple]:
        """Send ``message`` (``("read", ...)`` or ``("arxiv", ...)``) and yield the
        child's answers ``(kind, value)`` up to and with ``("end", value)``; an
        ``("error", exception)`` answer is raised. A caller that stops early (or a child
        that dies: OSError) stops the child. With ``hurry``: while no answer has come,
        ``("wait", None)`` is yielded whenever ``hurry()`` is true (looked at every
        :data:`WAIT_POLL_S`), so the caller can let an edit through meanwhile."""
        finished = False
        try:
            self._conn.send(message)
            while True:
                try:
                    if hurry is not None:
                        while not self._conn.poll(WAIT_POLL_S):
                            if hurry():
                                yield "wait", None
                    kind, value = self._conn.recv()
                except (EOFError, OSError) as exc:
                    finished = True
                    self._stop()
                    raise OSError("the process reading the file stopped") from exc
                if kind == "error":
                    finished = True
                    raise value
                finished = kind == "end"
                yield kind, value
                if finished:
                    return
        finally:
            if not finished:        # left early: the child may be sending more
                self._stop()

    def arxiv_records(self, stream, sign: bool = False,
                      hurry: Callable[[], bool] | None = None) -> Iterator:
        """The checked records of ``stream`` (an
        :class:`~paperdesk.core.imports.arxiv.ArxivStream` of a regular file, as
        ``stream.records()`` yields them), read, decoded and checked by the child while
        the caller stores the ones before (about half the CPU of an arXiv import: the
        JSON, the TeX, the checks). ``stream``'s counters and notes (``lines_read``,
        ``filtered``, ``skipped``, ``warnings``, ``notes_dropped``) follow the child's
        as its records arrive. Without a child (none can be started) the stream is
        read in this thread.

        Args:
            stream: the file's stream.
            sign: the child computes the records'
                :attr:`~paperdesk.core.imports.records.Record.near_keys` while it is
                ahead of the caller (:func:`_read_arxiv`; for a library that looks up
                near-duplicates:
                :func:`~paperdesk.core.imports.records.near_duplicates_looked_up`);
                records read in this thread never carry them.
            hurry: while the child has sent nothing new and ``hurry()`` is true,
                :data:`WAITING` is yielded instead of a record: the caller, waiting for
                the child, holds no transaction and can let an edit through (a star
                during an arXiv import in the window waited for the child's next
                records: 140 ms at p95).

        Raises:
            OSError: as ``stream.records()`` raises it, or the child died.
        """
        if not self._ready():
            yield from stream.records()
            return

        def follow(state) -> None:
            (stream.lines_read, stream.filtered, stream.skipped, notes,
             stream.notes_dropped) = state
            stream.warnings.extend(notes)

        for kind, value in self._answers(("arxiv", (str(stream.path), stream.path,
                                                    stream.filter,
                                                    stream.estimated_lines,
                                                    bool(sign))), hurry):
            if kind == "wait":
                yield WAITING
                continue
            records, state = value if kind == "records" else ((), value)
            follow(state)
            yield from records

    def settle(self) -> None:
        """Read and drop the answers of the child for paths given to
        :meth:`detect_ahead` that were not asked for with :meth:`detected` (a file
        that proved to be arXiv metadata is read without them), so that the pipe
        carries the next file's abstracts only."""
        try:
            while self._detecting:
                self._conn.recv()
                self._detecting.pop(0)
        except (EOFError, OSError, AttributeError):
            self._stop()

    def _stop(self, timeout: float = 0.0) -> None:
        if self._process is None:
            return
        if self._detecting:     # answers that will not be read: no waiting for them
            self._detecting = []
            timeout = 0.0
        stop_child(self._process, self._conn, ("stop", None), timeout)
        self._process = self._conn = None

    def close(self) -> None:
        """Stop the child (if one was started) and wait for it."""
        self._stop(STOP_TIMEOUT_S)
