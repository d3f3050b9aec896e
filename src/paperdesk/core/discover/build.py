"""Building the term table from SQLite: in this process for small libraries, in a child
process for large ones, with progress and cancel either way.

A full build reads every paper's title and abstract in id order, fits scikit-learn's
``TfidfVectorizer`` (:mod:`.vectorize`) and prunes the rows. At 100,000 papers that is
some 10-40 s of one core and a few hundred MB of transient memory (the vectorizer's
counting dictionaries), so from :data:`CHILD_FROM` papers it runs in a ``spawn`` child
(as the index's segment writers do, :mod:`paperdesk.core.search.writer_process`): the
window's interpreter and memory stay free, the child writes the table files and exits,
and the parent loads them memory-mapped. An *update* transforms only papers added or
edited since, with the table's own vocabulary and idf, into a new part.
"""

from __future__ import annotations

import multiprocessing
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from paperdesk.core.discover.term_table import (Part, TermTable, next_generation,
                                                text_stamp)
from paperdesk.core.discover.vectorize import new_vectorizer, paper_text, prune_rows

__all__ = ["CHILD_FROM", "build_table", "build_in_child", "update_part", "BuildCancelled",
           "BuildFailed"]

#: Libraries with at least this many papers are built in a child process.
CHILD_FROM = 3000
#: Progress is reported every this many papers read.
PROGRESS_EVERY = 2000

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


class BuildCancelled(Exception):
    """The build was cancelled; nothing was written."""


class BuildFailed(RuntimeError):
    """The build failed (the message is one line)."""


def _connect(db_path: Path) -> sqlite3.Connection:
    uri = Path(db_path).absolute().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only = 1")
    return conn


def _rows(conn: sqlite3.Connection, ids: np.ndarray | None = None):
    if ids is None:
        yield from conn.execute(
            "SELECT id, content_hash, title, abstract FROM papers ORDER BY id")
        return
    ids = [int(i) for i in ids]
    for k in range(0, len(ids), 500):
        chunk = ids[k:k + 500]
        marks = ",".join("?" * len(chunk))
        yield from conn.execute(
            "SELECT id, content_hash, title, abstract FROM papers "
            f"WHERE id IN ({marks}) ORDER BY id", chunk)


def _texts(rows, ids: list[int], stamps: list[int], total: int,
           progress: Progress, cancel: Cancel):
    for n, (pid, chash, title, abstract) in enumerate(rows, 1):
        if n % PROGRESS_EVERY == 0:
            if cancel():
                raise BuildCancelled()
            progress(n, total)
        ids.append(pid)
        stamps.append(text_stamp(chash, title))
        yield paper_text(title, abstract)


def _part(ids: list[int], stamps: list[int], weights) -> Part:
    indptr, indices, data = prune_rows(weights)
    return Part(np.asarray(ids, np.int64), np.asarray(stamps, np.uint32),
                indptr.astype(np.int32), indices, data)


def build_table(db_path: Path, progress: Progress | None = None,
                cancel: Cancel | None = None) -> TermTable:
    """Build the whole table from the library's database, in this process.

    Args:
        db_path: the library's ``library.db`` (opened read-only).
        progress: ``progress(papers_read, papers_total)``, every
            :data:`PROGRESS_EVERY` papers and at the end.
        cancel: returns True to stop.
    Returns:
        The table (generation 0, not saved).
    Raises:
        BuildCancelled: ``cancel`` returned True.
        sqlite3.Error: the database cannot be read.
    """
    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    conn = _connect(db_path)
    try:
        total = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
        ids: list[int] = []
        stamps: list[int] = []
        vec = new_vectorizer(total)
        try:
            weights = vec.fit_transform(_texts(_rows(conn), ids, stamps, total,
                                               progress, cancel))
            terms = vec.get_feature_names_out().tolist()
            idf = vec.idf_
        except ValueError:       # no papers, or not one word that is a term
            from scipy.sparse import csr_matrix
            weights = csr_matrix((len(ids), 0), dtype=np.float32)
            terms, idf = [], np.zeros(0)
        progress(total, total)
        return TermTable.from_parts(terms, idf, [_part(ids, stamps, weights)])
    finally:
        conn.close()


def update_part(table: TermTable, db_path: Path, ids: np.ndarray) -> Part:
    """Rows for the given papers (new or edited since the table was built), in the
    table's columns.

    Args:
        table: the current table (its vocabulary and idf are used).
        db_path: the library's database.
        ids: the papers' ids.
    Returns:
        A :class:`Part` of those that still exist.
    """
    conn = _connect(db_path)
    try:
        got_ids: list[int] = []
        stamps: list[int] = []
        vec = new_vectorizer(len(ids) + 100, table.vocabulary(), table.idf)
        texts = list(_texts(_rows(conn, ids), got_ids, stamps, len(ids),
                            lambda d, t: None, lambda: False))
        weights = vec.transform(texts) if texts else None
        if weights is None:
            from scipy.sparse import csr_matrix
            weights = csr_matrix((0, table.n_terms), dtype=np.float32)
        return _part(got_ids, stamps, weights)
    finally:
        conn.close()


def _child(db_path: str, folder: str, conn) -> None:
    """The child's work: build, save as a new generation, report (runs in the child)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        table = build_table(Path(db_path),
                            progress=lambda d, t: conn.send(("progress", d, t)))
        g = next_generation(Path(folder))
        table.save(Path(folder), g)
        conn.send(("ok", g))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, one line
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        try:
            conn.send(("error", f"{type(exc).__name__}: {text}"))
        except OSError:
            pass


def build_in_child(db_path: Path, folder: Path, progress: Progress | None = None,
                   cancel: Cancel | None = None, poll_s: float = 0.1) -> None:
    """Build and save the table in a ``spawn`` child process, waiting for it.

    Args:
        db_path: the library's database.
        folder: the ``terms/`` folder the child writes a new generation into.
        progress: as :func:`build_table` (called in this process).
        cancel: polled every ``poll_s`` seconds; True kills the child (nothing of its
            generation becomes current).
        poll_s: seconds between polls.
    Raises:
        BuildCancelled: cancelled.
        BuildFailed: the child failed or died.
    """
    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    Path(folder).mkdir(parents=True, exist_ok=True)
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(str(db_path), str(folder), child),
                       name="paperdesk-terms", daemon=True)
    proc.start()
    child.close()
    try:
        while True:
            if cancel():
                proc.kill()
                raise BuildCancelled()
            if parent.poll(poll_s):
                try:
                    message = parent.recv()
                except EOFError:
                    raise BuildFailed("the term-table builder stopped without a result") \
                        from None
                if message[0] == "progress":
                    progress(message[1], message[2])
                elif message[0] == "ok":
                    return
                else:
                    raise BuildFailed(message[1])
            elif not proc.is_alive() and not parent.poll(0):
                raise BuildFailed(f"the term-table builder died (exit code {proc.exitcode})")
    finally:
        parent.close()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
