"""Embedding the papers that have no vector yet, a part at a time, with progress and
cancel; in a child process for the window (:func:`embed_in_child`).

Resumable: each :data:`CHUNK` papers embedded become a part of ``vectors/``
(:func:`~.vectors.write_part`) before the next chunk is read, so a run cancelled or
killed loses at most one chunk, and the next run embeds only the papers still missing
(no vector, or one of an older text of the paper: its text stamp differs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from paperdesk.core.embeddings.vectors import (PaperVectors, VectorsError, remove,
                                               write_part)

__all__ = ["CHUNK", "missing_ids", "load_or_clear", "embed_missing", "embed_in_child"]

#: Papers embedded, then written as one part, at a time.
CHUNK = 2000

Progress = Callable[[int, int], None]
Cancel = Callable[[], bool]


def missing_ids(current: tuple[np.ndarray, np.ndarray],
                stored: PaperVectors | None) -> np.ndarray:
    """The papers that need a vector.

    Args:
        current: ``(ids, stamps)`` of every paper
            (:func:`~paperdesk.core.discover.term_table.current_stamps`).
        stored: the vectors there are, or ``None``.
    Returns:
        int64 ids (sorted) without a vector of their current text.
    """
    ids, stamps = current
    if stored is None or not len(stored):
        return np.asarray(ids, np.int64)
    rows = stored.rows_of(ids)
    ok = rows >= 0
    ok[ok] = stored.stamps[rows[ok]] == np.asarray(stamps)[ok]
    return np.asarray(ids, np.int64)[~ok]


def load_or_clear(folder: Path, model_name: str, update: bool = True
                  ) -> PaperVectors | None:
    """The stored vectors of ``model_name``; a damaged folder, or one of another model,
    is removed (they are derived data) and ``None`` returned.

    Raises:
        OSError: a damaged folder cannot be removed.
    """
    try:
        stored = PaperVectors.load(folder, update=update)
    except VectorsError:
        remove(folder)
        return None
    if stored is not None and stored.model != model_name:
        remove(folder)
        return None
    return stored


def embed_missing(db_path: Path, folder: Path, progress: Progress | None = None,
                  cancel: Cancel | None = None, model=None) -> int:
    """Embed every paper without a vector of its current text, in this process.

    Args:
        db_path: the library's ``library.db`` (opened read-only).
        folder: its ``vectors/`` folder.
        progress: ``progress(embedded, to_embed)`` after each part (and at 0).
        cancel: returns True to stop after the part being embedded.
        model: the model (default:
            :class:`~paperdesk.core.embeddings.static_model.StaticModel`).
    Returns:
        How many papers were embedded.
    Raises:
        ModelUnavailable: the model is not installed.
        BuildCancelled: ``cancel`` returned True (the parts written stay).
        OSError: ``vectors/`` cannot be written.
        sqlite3.Error: the database cannot be read.
    """
    from paperdesk.core.discover.build import BuildCancelled, _connect
    from paperdesk.core.discover.term_table import current_stamps
    from paperdesk.core.discover.vectorize import paper_text

    if model is None:
        from paperdesk.core.embeddings.static_model import StaticModel
        model = StaticModel()
    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    folder = Path(folder)
    conn = _connect(Path(db_path))
    try:
        ids, stamps = current_stamps(conn)       # sorted by id
        todo = missing_ids((ids, stamps), load_or_clear(folder, model.name))
        progress(0, len(todo))
        for start in range(0, len(todo), CHUNK):
            if cancel():
                raise BuildCancelled()
            chunk = [int(i) for i in todo[start:start + CHUNK]]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(f"SELECT id, title, abstract FROM papers WHERE id IN "
                                f"({marks}) ORDER BY id", chunk).fetchall()
            got = np.asarray([r[0] for r in rows], np.int64)
            vectors = model.encode([paper_text(r[1], r[2]) for r in rows])
            # (a dict of every paper's stamp took ~100 MB of the child at a million)
            write_part(folder, model.name, got,
                       stamps[np.searchsorted(ids, got)].astype(np.uint32), vectors)
            progress(min(start + CHUNK, len(todo)), len(todo))
        return len(todo)
    finally:
        conn.close()


def _embed_work(db_path: str, folder: str, progress: Progress) -> int:
    """The child's work (:func:`~paperdesk.core.discover.build.run_in_child`)."""
    return embed_missing(Path(db_path), Path(folder), progress)


def embed_in_child(db_path: Path, folder: Path, progress: Progress | None = None,
                   cancel: Cancel | None = None) -> int:
    """:func:`embed_missing` in a ``spawn`` child process (the window's interpreter and
    memory stay free; Cancel kills it, and the parts it finished stay).

    Returns:
        How many papers were embedded.
    Raises:
        BuildCancelled: cancelled.
        BuildFailed: the child failed or died (one line; the model not installed is
            found before, by :meth:`~paperdesk.core.discover.engine.Discover.embeddings_problem`).
    """
    from paperdesk.core.discover.build import run_in_child

    return run_in_child(_embed_work, (str(db_path), str(folder)), "the embedding of papers",
                        progress, cancel, name="paperdesk-vectors")
