"""Hybrid related papers: the embedding's cosine and the term table's tf-idf cosine
added with weights.

A static embedding (:mod:`paperdesk.core.embeddings`) finds papers that say the same
thing in other words; tf-idf finds the ones that share the rare words, and names them
("shares: …"). The sum of the two cosines, ``EMBEDDING_WEIGHT`` x embedding + (1 -
``EMBEDDING_WEIGHT``) x tf-idf, ranks better than either alone on the citation
evaluation (:mod:`.related_evaluation`; the table in docs/discover.md).
"""

from __future__ import annotations

import numpy as np

__all__ = ["EMBEDDING_WEIGHT", "TFIDF_POOL", "hybrid_scores", "hybrid_rows"]

#: The embedding cosine's share of the hybrid score (the rest is tf-idf's).
EMBEDDING_WEIGHT = 0.3
#: Papers nearest by tf-idf that are candidates besides the embedding's.
TFIDF_POOL = 200


def hybrid_scores(embedding: np.ndarray, tfidf: np.ndarray,
                  weight: float = EMBEDDING_WEIGHT) -> np.ndarray:
    """The hybrid score of every paper.

    Args:
        embedding: cosines of the papers' vectors with the paper asked (-1 .. 1), one
            per paper.
        tfidf: their tf-idf cosines (0 .. 1; 0 for a paper without a shared term), in
            the same order.
        weight: the embedding's share (0 .. 1).
    Returns:
        float32 array: ``weight * embedding + (1 - weight) * tfidf``.
    """
    out = np.asarray(embedding, dtype=np.float32) * np.float32(weight)
    out += np.asarray(tfidf, dtype=np.float32) * np.float32(1.0 - weight)
    return out


def hybrid_rows(table, row: int, vectors, limit: int, pool: int = TFIDF_POOL
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """The table rows most related to ``row`` by the hybrid score.

    The candidates are the papers nearest by embedding
    (:meth:`~paperdesk.core.embeddings.vectors.PaperVectors.candidate_rows`) and the
    ``pool`` nearest by tf-idf; each is scored by :func:`hybrid_scores` (a candidate
    whose vector is missing or of an older text counts an embedding cosine of 0).

    Args:
        table: the current :class:`~.term_table.TermTable`.
        row: the paper's valid row in it.
        vectors: the :class:`~paperdesk.core.embeddings.vectors.PaperVectors`.
        limit: most rows.
        pool: tf-idf candidates.
    Returns:
        ``(rows int64, scores float32)`` best first (ties by row), none below
        :data:`~.related.MIN_SCORE`; or ``None`` when the paper has no vector of its
        current text (then tf-idf alone answers).
    """
    from paperdesk.core.discover.related import MIN_SCORE

    paper = table.row_ids[row]
    vrow = int(vectors.rows_of([paper])[0])
    if vrow < 0 or vectors.stamps[vrow] != table.row_stamps[row]:
        return None
    query = vectors.vectors([vrow])[0]
    cols, weights = table.row(row)
    tfidf = table.similarities(cols, weights)
    tfidf[row] = -np.inf
    near = table.rows_of(vectors.ids[vectors.candidate_rows(query)])
    good = np.flatnonzero(tfidf >= MIN_SCORE)
    if len(good) > pool:
        good = good[np.argpartition(-tfidf[good], pool - 1)[:pool]]
    rows = np.union1d(near[near >= 0], good)
    rows = rows[np.isfinite(tfidf[rows])]
    vrows = vectors.rows_of(table.row_ids[rows])
    fresh = vrows >= 0
    fresh[fresh] = vectors.stamps[vrows[fresh]] == table.row_stamps[rows[fresh]]
    embedding = np.zeros(len(rows), dtype=np.float32)
    embedding[fresh] = vectors.vectors(vrows[fresh]) @ query
    scores = hybrid_scores(embedding, np.maximum(tfidf[rows], 0))
    keep = scores >= MIN_SCORE
    rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores.astype(np.float64)))[:limit]
    return rows[order].astype(np.int64), scores[order]
