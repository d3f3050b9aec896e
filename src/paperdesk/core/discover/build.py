"""Building the term table from SQLite: in this process for small libraries, in a child
process for large ones, with progress and cancel either way.

A full build reads every paper's title and abstract in id order, counts their terms
and weighs them as scikit-learn's ``TfidfVectorizer`` does (:mod:`.vectorize`), and
prunes the rows. At 100,000 Zipf papers that is some 20 CPU s (measured at load 6-10 on
two cores) and a peak of ~340 MB (300,000: 58 CPU s, 535 MB: the child writes the
columns a range at a time, :func:`.term_table.save_built`), so from :data:`CHILD_FROM`
papers it runs in a ``spawn`` child
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
                                                real_folder, save_built, text_stamp)
from paperdesk.core.discover.vectorize import new_vectorizer, paper_text, prune_rows
from paperdesk.core.child_process import start_ignoring_interrupts

__all__ = ["CHILD_FROM", "build_table", "build_rows", "build_in_child", "run_in_child",
           "update_part", "BuildCancelled", "BuildFailed"]

#: Libraries with at least this many papers are built in a child process.
CHILD_FROM = 3000
#: Progress is reported every this many papers read.
PROGRESS_EVERY = 2000
#: Papers counted at a time by :func:`build_table`.
CHUNK = 5000

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


class BuildCancelled(Exception):
    """The build was cancelled; nothing was written."""


class BuildFailed(RuntimeError):
    """The build failed (the message is one line)."""


def _connect(db_path: Path) -> sqlite3.Connection:
    """A read-only connection to the library's database, as the library's own read-only
    connections are opened (:func:`~paperdesk.core.store.db.connect_read_only`): in a
    folder or of a file this process cannot write, a plain ``mode=ro`` open of a WAL
    database fails ("attempt to write a readonly database": the ``-shm`` file cannot be
    created)."""
    from paperdesk.core.store.db import connect_read_only

    conn = connect_read_only(Path(db_path)).conn
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


def _give_back_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim(0)``; a
    no-op elsewhere). The chunks' counts (a few MB each) live on the heap, which does
    not shrink by itself when they are freed: without this the counts stayed in the
    builder's resident memory beside the table's rows and columns (300,000 papers: 783
    MB at the peak)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class _Vocabulary(dict):
    """``{word: number}``, a new word numbered ``len(self)`` when first looked up (so
    ``map(vocabulary.__getitem__, words)`` numbers a chunk's words in C, calling Python
    only for the words not seen before, which :attr:`added` lists in order)."""

    def __init__(self):
        super().__init__()
        self.added: list[str] = []

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        self.added.append(word)
        return number


def _count(texts: list[str], vocabulary: _Vocabulary, stop: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Count the terms of a chunk of papers' texts.

    Args:
        texts: :func:`~.vectorize.paper_text` of each paper.
        vocabulary: every word seen so far (grows).
        stop: bool per word number, True for a stop word (grown here as the vocabulary
            grows; the grown array is returned).
    Returns:
        ``(indptr, cols, tf, stop)``: the chunk's counts as CSR arrays (int64
        ``indptr`` of ``len(texts) + 1``; int32 word numbers, ascending within a paper;
        uint16 counts, or uint32 when a word is counted 65,536 times or more in one
        paper) and the grown ``stop``. Stop words are not counted: a paper's terms are
        :func:`~.vectorize.analyze`'s.
    """
    from paperdesk.core.discover.vectorize import STOP_WORDS, paper_words

    flat: list[str] = []
    lengths = np.zeros(len(texts), dtype=np.int64)
    for k, text in enumerate(texts):
        words = paper_words(text)
        lengths[k] = len(words)
        flat += words
    numbers = np.fromiter(map(vocabulary.__getitem__, flat), dtype=np.int64,
                          count=len(flat))
    del flat
    if vocabulary.added:
        stop = np.concatenate([stop, np.fromiter(
            (w in STOP_WORDS for w in vocabulary.added), dtype=bool,
            count=len(vocabulary.added))])
        vocabulary.added.clear()
    paper = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    counted = ~stop[numbers]
    keys, tf = np.unique((paper[counted] << 32) | numbers[counted], return_counts=True)
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys >> 32, minlength=len(texts)), out=indptr[1:])
    cols = (keys & 0xFFFFFFFF).astype(np.int32)
    tf = tf.astype(np.uint16 if len(tf) == 0 or tf.max() < 1 << 16 else np.uint32)
    return indptr, cols, tf, stop


def build_table(db_path: Path, progress: Progress | None = None,
                cancel: Cancel | None = None) -> TermTable:
    """Build the whole table from the library's database, in this process
    (:func:`build_rows`, then the columns computed whole).

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
    terms, idf, part = build_rows(db_path, progress, cancel)
    return TermTable.from_parts(terms, idf, [part])


def build_rows(db_path: Path, progress: Progress | None = None,
               cancel: Cancel | None = None) -> tuple[list[str], np.ndarray, Part]:
    """The whole table's vocabulary, idf and rows from the library's database, in this
    process (the columns are not computed: :func:`build_table` computes them whole,
    the builder child writes them a range at a time, :func:`.term_table.save_built`).

    The papers are read and counted :data:`CHUNK` at a time (:func:`_count`: the words
    of :func:`~.vectorize.analyze`, numbered in one growing vocabulary, each paper's
    counts kept in compact arrays: 6 bytes per distinct word of a paper). Then the vocabulary is cut to the words in at least
    ``MIN_DF`` and at most ``MAX_DF`` of the papers, sorted, and each chunk is weighted
    as ``TfidfVectorizer(sublinear_tf=True)`` weighs (``(1 + ln tf) * idf``, smoothed
    idf; the same weights :func:`update_part` gives through ``TfidfVectorizer.transform``)
    and pruned into the table's arrays, allocated once at their final size, each
    chunk's counts freed as it is done (the counts and the pruned rows are never held
    twice). The vocabulary, idf and rows are those of one ``TfidfVectorizer`` fitted on
    all the papers (tests compare them).

    Args:
        db_path: the library's ``library.db`` (opened read-only).
        progress: ``progress(papers_read, papers_total)``, every
            :data:`PROGRESS_EVERY` papers and at the end.
        cancel: returns True to stop.
    Returns:
        ``(terms, idf, part)``: the vocabulary in column order, float64 idf per column,
        and one :class:`Part` of every paper's rows (no columns yet).
    Raises:
        BuildCancelled: ``cancel`` returned True.
        sqlite3.Error: the database cannot be read.
    """
    from scipy.sparse import csr_matrix

    from paperdesk.core.discover import vectorize

    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    vectorize.load_stop_words()
    conn = _connect(db_path)
    reader = texts = None
    try:
        total = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
        ids: list[int] = []
        stamps: list[int] = []
        id_chunks: list[np.ndarray] = []
        stamp_chunks: list[np.ndarray] = []
        words = _Vocabulary()
        stop = np.zeros(0, dtype=bool)
        chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        reader = _rows(conn)
        texts = _texts(reader, ids, stamps, total, progress, cancel)
        while True:
            batch = [t for _, t in zip(range(CHUNK), texts)]
            if not batch:
                break
            indptr, cols, tf, stop = _count(batch, words, stop)
            chunks.append((indptr, cols, tf))
            id_chunks.append(np.asarray(ids, np.int64))
            stamp_chunks.append(np.asarray(stamps, np.uint32))
            ids.clear()
            stamps.clear()
        progress(total, total)
        all_ids = np.concatenate(id_chunks) if id_chunks else np.zeros(0, np.int64)
        all_stamps = (np.concatenate(stamp_chunks) if stamp_chunks
                      else np.zeros(0, np.uint32))
        del id_chunks, stamp_chunks
        n = len(all_ids)
        small = n < 20
        df = np.zeros(len(words), dtype=np.int64)
        for _indptr, cols, _tf in chunks:
            df += np.bincount(cols, minlength=len(words))
        keep = (df >= (1 if small else vectorize.MIN_DF)) & \
            (df <= (n if small else vectorize.MAX_DF * n))
        terms = sorted((w for w, g in words.items() if keep[g]))
        new_col = np.full(len(words), -1, dtype=np.int32)
        for k, w in enumerate(terms):
            new_col[words[w]] = k
        del words
        _give_back_memory()
        kept_df = np.zeros(len(terms), dtype=np.float64)
        kept_df[new_col[keep]] = df[keep]
        idf = np.log((1.0 + n) / (1.0 + kept_df)) + 1.0
        # the rows' final sizes first (each paper's kept terms, at most TERMS_PER_PAPER)
        kept = np.zeros(n, dtype=np.int64)
        base = 0
        for indptr, cols, _tf in chunks:
            rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
            kept[base:base + len(indptr) - 1] = np.bincount(
                rows[new_col[cols] >= 0], minlength=len(indptr) - 1)
            base += len(indptr) - 1
        np.minimum(kept, vectorize.TERMS_PER_PAPER, out=kept)
        out_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(kept, out=out_indptr[1:])
        del kept
        out_indices = np.empty(int(out_indptr[-1]), dtype=np.int32)
        out_data = np.empty(int(out_indptr[-1]), dtype=np.float32)
        base = 0
        while chunks:
            indptr, cols, tf = chunks.pop(0)
            mapped = new_col[cols]
            rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
            good = mapped >= 0
            data = tf[good].astype(np.float32)
            weights = csr_matrix(
                ((1.0 + np.log(data)) * idf[mapped[good]], (rows[good], mapped[good])),
                shape=(len(indptr) - 1, len(terms)), dtype=np.float32)
            del indptr, cols, tf, mapped, rows, good, data
            p_indptr, p_indices, p_data = prune_rows(weights)
            del weights
            start = int(out_indptr[base])
            out_indices[start:start + len(p_indices)] = p_indices
            out_data[start:start + len(p_data)] = p_data
            base += len(p_indptr) - 1
            if len(chunks) % 20 == 0:      # the counts freed so far
                _give_back_memory()
        part = Part(all_ids, all_stamps, out_indptr.astype(np.int32), out_indices,
                    out_data)
        return terms, idf, part
    finally:
        # a cancelled build leaves both generators suspended: close them while the
        # connection is open (closed later, by the garbage collector, they raised
        # "Cannot operate on a closed database")
        for gen in (texts, reader):
            if gen is not None:
                gen.close()
        conn.close()


def update_part(table: TermTable, db_path: Path, ids: np.ndarray) -> Part:
    """Rows for the given papers (new or edited since the table was built), in the
    table's columns, without scikit-learn (importing it costs the window ~60 MB).

    The weights are those ``TfidfVectorizer.transform`` with the table's vocabulary and
    idf gives (tests compare them): the text is lower-cased and split with
    :data:`~.vectorize.TOKEN_PATTERN` without the function words of a paper's language
    other than English (:func:`~.vectorize.paper_words`), words not in the vocabulary
    (stop words, words
    new since the build) are dropped, and a term counted ``tf`` times weighs
    ``(1 + ln tf) * idf``; then the rows are pruned and scaled as in a build.

    Args:
        table: the current table (its vocabulary and idf are used).
        db_path: the library's database.
        ids: the papers' ids.
    Returns:
        A :class:`Part` of those that still exist.
    """
    from collections import Counter

    from scipy.sparse import csr_matrix

    from paperdesk.core.discover.vectorize import paper_words

    conn = _connect(db_path)
    try:
        got_ids: list[int] = []
        stamps: list[int] = []
        counts = [Counter(paper_words(text)) for text in
                  _texts(_rows(conn, ids), got_ids, stamps, len(ids),
                         lambda d, t: None, lambda: False)]
    finally:
        conn.close()
    distinct = sorted({w for c in counts for w in c})
    column = dict(zip(distinct, table.columns_of(distinct).tolist()))
    rows, cols, values = [], [], []
    for r, c in enumerate(counts):
        for word, n in c.items():
            k = column[word]
            if k >= 0:
                rows.append(r)
                cols.append(k)
                values.append((1.0 + np.log(n)) * table.idf[k])
    weights = csr_matrix((np.asarray(values, dtype=np.float32),
                          (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                         shape=(len(counts), table.n_terms), dtype=np.float32)
    return _part(got_ids, stamps, weights)


def _build_and_save(db_path: str, folder: str, progress: Progress) -> int:
    """The term-table child's work: build, save as a new generation (the columns a
    range at a time, :func:`.term_table.save_built`); returns it."""
    terms, idf, part = build_rows(Path(db_path), progress=progress)
    g = next_generation(Path(folder))
    save_built(Path(folder), g, terms, idf, part)
    return g


def _child_entry(work, args: tuple, conn) -> None:
    """Run ``work(*args, progress)`` and send its result (runs in the child): messages
    ``("progress", done, total)``, then ``("ok", result)`` or ``("error", one line)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        result = work(*args, lambda d, t: conn.send(("progress", d, t)))
        conn.send(("ok", result))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, one line
        text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        try:
            conn.send(("error", f"{type(exc).__name__}: {text}"))
        except OSError:
            pass


def run_in_child(work, args: tuple, what: str, progress: Progress | None = None,
                 cancel: Cancel | None = None, poll_s: float = 0.1,
                 name: str = "paperdesk-child"):
    """Run ``work(*args, progress)`` in a ``spawn`` child process, waiting for it: the
    window's interpreter and memory stay free (the term table's build; the embedding of
    papers, :mod:`paperdesk.core.embeddings.vector_build`).

    Args:
        work: a module-level function (it is pickled by name) taking ``args`` and a
            ``progress(done, total)`` callable, returning something picklable.
        args: its arguments (picklable).
        what: what the child is, for messages ("the term-table builder").
        progress: ``progress(done, total)``, called in this process as the child reports.
        cancel: polled every ``poll_s`` seconds; True kills the child.
        poll_s: seconds between polls.
        name: the child process's name.
    Returns:
        What ``work`` returned.
    Raises:
        BuildCancelled: cancelled.
        BuildFailed: the child failed or died (one line).
    """
    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_entry, args=(work, args, child),
                       name=name, daemon=True)
    start_ignoring_interrupts(proc)
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
                    raise BuildFailed(f"{what} stopped without a result") from None
                if message[0] == "progress":
                    progress(message[1], message[2])
                elif message[0] == "ok":
                    return message[1]
                else:
                    raise BuildFailed(message[1])
            elif not proc.is_alive() and not parent.poll(0):
                raise BuildFailed(f"{what} died (exit code {proc.exitcode})")
    finally:
        parent.close()
        proc.join(5)
        if proc.is_alive():
            proc.kill()


def build_in_child(db_path: Path, folder: Path, progress: Progress | None = None,
                   cancel: Cancel | None = None, poll_s: float = 0.1) -> None:
    """Build and save the table in a ``spawn`` child process, waiting for it
    (:func:`run_in_child`).

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
    real_folder(folder)
    run_in_child(_build_and_save, (str(db_path), str(folder)), "the term-table builder",
                 progress, cancel, poll_s, name="paperdesk-terms")
