"""The order of the papers of a screening not yet decided: a classifier trained on the
decisions so far ranks the rest, most likely relevant first ("certainty-based" or
"max" query strategy, as ASReview's default model does: ELAS u4, tf-idf + a linear SVM,
https://asreview.readthedocs.io).

The functions take a feature matrix (one row per paper of the screening, built once with
:func:`build_features`) and the rows decided so far, and return the undecided rows in
order. They know nothing of the library, so the simulation and the window run the same
code.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["build_features", "rank"]


def build_features(texts: Sequence[str]):
    """The feature matrix of a screening's papers.

    Args:
        texts: one text per paper (title and abstract joined), in row order.
    Returns:
        A scipy.sparse CSR matrix, one row per text (tf-idf of words and word pairs,
        rows of unit length).
    Raises:
        ValueError: ``texts`` is empty.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    if not texts:
        raise ValueError("no papers to screen")
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1,
                                 stop_words="english", dtype=np.float32)
    try:
        return vectorizer.fit_transform(texts).tocsr()
    except ValueError:          # only stop words / empty texts: one empty column
        from scipy.sparse import csr_matrix
        return csr_matrix((len(texts), 1), dtype=np.float32)


def rank(matrix, relevant: Sequence[int], irrelevant: Sequence[int],
         seed: int = 0) -> np.ndarray:
    """The undecided rows, most likely relevant first.

    Args:
        matrix: from :func:`build_features` (n rows).
        relevant: rows decided relevant.
        irrelevant: rows decided not relevant (disjoint from ``relevant``).
        seed: seeds any randomness (the order is the same for the same input).
    Returns:
        int64 array of the rows in neither list, best first. Without at least one
        relevant and one irrelevant row there is nothing to learn from: the rows come in
        a random order fixed by ``seed``.
    """
    n = matrix.shape[0]
    decided = np.zeros(n, bool)
    pos = np.asarray(relevant, np.int64)
    neg = np.asarray(irrelevant, np.int64)
    decided[pos] = True
    decided[neg] = True
    rest = np.flatnonzero(~decided)
    if len(rest) == 0:
        return rest.astype(np.int64)
    if len(pos) == 0 or len(neg) == 0:
        return np.random.default_rng(seed).permutation(rest).astype(np.int64)
    from sklearn.linear_model import LogisticRegression
    rows = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    model = LogisticRegression(C=10.0, class_weight="balanced", solver="liblinear",
                               max_iter=200)
    model.fit(matrix[rows], y)
    scores = np.asarray(matrix[rest] @ model.coef_[0]).ravel()
    # ties broken by row number, so the order is deterministic
    return rest[np.lexsort((rest, -scores))].astype(np.int64)
