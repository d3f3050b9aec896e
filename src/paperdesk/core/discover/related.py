"""Related papers, the terms two papers share, and a paper's key terms: cosine
similarity of the term table's unit-length tf-idf rows (Salton, Wong and Yang, "A vector
space model for automatic indexing", CACM 18(11), 1975; Manning et al., *Introduction to
Information Retrieval*, 2008, §6.3).

All functions take a loaded :class:`~paperdesk.core.discover.term_table.TermTable` and
global row numbers, and return columns or rows; :mod:`.engine` turns them into ids,
titles and words.
"""

from __future__ import annotations

import numpy as np

from paperdesk.core.discover.term_table import TermTable

__all__ = ["nearest_rows", "shared_columns", "key_columns", "MIN_SCORE"]

#: Papers less similar than this (cosine) are not called related.
MIN_SCORE = 0.02


def nearest_rows(table: TermTable, row: int, limit: int,
                 among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The rows most similar to ``row``, best first.

    Args:
        table: the term table.
        row: the paper's row.
        limit: how many at most.
        among: only these rows (global row numbers), or ``None`` for every valid row.
    Returns:
        ``(rows int64, cosines float32)``, without ``row`` itself, without rows below
        :data:`MIN_SCORE`, ties broken by row (the older paper first).
    """
    cols, weights = table.row(row)
    scores = table.similarities(cols, weights)
    scores[row] = -np.inf
    if among is not None:
        keep = np.full(len(scores), -np.inf, dtype=np.float32)
        keep[among] = scores[among]
        scores = keep
    good = np.flatnonzero(scores >= MIN_SCORE)
    if len(good) > limit:
        part = np.argpartition(-scores[good], limit - 1)[:limit]
        good = good[part]
    order = np.lexsort((good, -scores[good].astype(np.float64)))
    rows = good[order]
    return rows.astype(np.int64), scores[rows]


def shared_columns(table: TermTable, row: int, others, limit: int) -> list[int]:
    """The columns that weigh most in the similarity of ``row`` to the ``others``.

    Args:
        table: the term table.
        row: the paper's row.
        others: one or more other rows; each shared column counts with the sum over
            them of the product of its two weights (its part of their cosines).
        limit: how many columns at most.
    Returns:
        Column numbers, heaviest first (ties by column).
    """
    cols, weights = table.row(row)
    if len(cols) == 0:
        return []
    total = np.zeros(len(cols), dtype=np.float64)
    for other in np.atleast_1d(others):
        ocols, oweights = table.row(int(other))
        _common, ia, ib = np.intersect1d(cols, ocols, assume_unique=True,
                                        return_indices=True)
        total[ia] += weights[ia].astype(np.float64) * oweights[ib]
    good = np.flatnonzero(total > 0)
    order = good[np.lexsort((cols[good], -total[good]))]
    return [int(cols[k]) for k in order[:limit]]


def key_columns(table: TermTable, row: int, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """A paper's heaviest columns (its key terms) with their weights.

    Args:
        table: the term table.
        row: the paper's row.
        limit: how many at most.
    Returns:
        ``(columns, weights)``, heaviest first (rows are stored in that order).
    """
    cols, weights = table.row(row)
    return cols[:limit], weights[:limit]
