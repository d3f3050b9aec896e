""""Worth reading first": a linear model over the papers' tf-idf rows, learned from what
the user kept and what they skipped, as arxiv-sanity-lite (a linear SVM per tag over
tf-idf, https://github.com/karpathy/arxiv-sanity-lite) and ASReview (naive Bayes or
logistic regression over tf-idf, https://asreview.readthedocs.io) do.

Examples:

* **positive**: papers the user starred, tagged, wrote a note on or highlighted;
* **negative**: papers the user read (moved to and stayed on) without any of those:
  seen and skipped; plus, as arxiv-sanity-lite does with every untagged paper, a fixed
  sample of up to :data:`BACKGROUND` other papers with a smaller weight, so that a
  model can be learned before anything was skipped and common words are not mistaken
  for interest.

The model is scikit-learn's ``LogisticRegression`` (L2, ``liblinear``, classes
balanced). A paper's score is its log-odds; the words that moved it up most are the
terms with the largest ``weight in paper x coefficient``. With fewer than
:data:`MIN_POSITIVES` positive examples no model is learned and the order is the date
added.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperdesk.core.discover.term_table import TermTable

__all__ = ["MIN_POSITIVES", "MAX_EXAMPLES", "BACKGROUND", "BACKGROUND_WEIGHT", "InterestModel", "fit",
           "score_rows", "top_reasons"]

#: Fewer positive examples than this and the order falls back to the date added.
MIN_POSITIVES = 5
#: Most papers sampled as background negatives.
BACKGROUND = 3000
#: Most positive and most negative examples learned from (the latest papers: with
#: more, learning takes longer than the 200 ms an order may cost).
MAX_EXAMPLES = 3000
#: Their weight (a skipped paper weighs 1).
BACKGROUND_WEIGHT = 0.3
#: Inverse regularisation strength of the logistic regression.
C = 4.0


@dataclass(frozen=True)
class InterestModel:
    """A learned model: ``coef`` (float64 per column), ``intercept``, and the counts
    of positive and negative examples it learned from."""

    coef: np.ndarray
    intercept: float
    positives: int
    negatives: int


def fit(table: TermTable, positive_rows: np.ndarray, negative_rows: np.ndarray,
        background_rows: np.ndarray) -> InterestModel:
    """Learn the model.

    Args:
        table: the term table.
        positive_rows: rows of the positive examples (at least one).
        negative_rows: rows of the skipped papers.
        background_rows: rows of the background sample (disjoint from both).
    Returns:
        The :class:`InterestModel`.
    """
    from sklearn.linear_model import LogisticRegression
    rows = np.concatenate([positive_rows, negative_rows, background_rows]).astype(np.int64)
    y = np.concatenate([np.ones(len(positive_rows)), np.zeros(len(negative_rows)),
                        np.zeros(len(background_rows))])
    w = np.concatenate([np.ones(len(positive_rows)), np.ones(len(negative_rows)),
                        np.full(len(background_rows), BACKGROUND_WEIGHT)])
    if len(np.unique(y)) < 2:      # nothing but positives: a flat model
        return InterestModel(np.zeros(table.n_terms), 0.0, len(positive_rows), 0)
    # balance the classes by weight (positives are usually far fewer)
    w[y == 1] *= w[y == 0].sum() / max(w[y == 1].sum(), 1e-9)
    X = table.matrix(rows)
    model = LogisticRegression(C=C, solver="liblinear", max_iter=200)
    model.fit(X, y, sample_weight=w)
    return InterestModel(model.coef_[0].astype(np.float64), float(model.intercept_[0]),
                         len(positive_rows), len(negative_rows))


def score_rows(table: TermTable, model: InterestModel, rows: np.ndarray) -> np.ndarray:
    """Log-odds of each row under the model.

    Args:
        table: the term table.
        model: from :func:`fit`.
        rows: global row numbers.
    Returns:
        float64 array, one score per row.
    """
    rows = np.asarray(rows, np.int64)
    if len(rows) == 0:
        return np.zeros(0)
    if len(rows) * 4 > table.n_rows:       # most of the table: one pass over it all
        all_scores = table.scores(model.coef.astype(np.float32))
        return all_scores[rows].astype(np.float64) + model.intercept
    # a few rows (1,000 unread of 100,000): read only theirs
    return np.asarray(table.matrix(rows) @ model.coef, dtype=np.float64) + model.intercept


def top_reasons(table: TermTable, model: InterestModel, row: int,
                limit: int = 3) -> list[int]:
    """The columns that moved a paper up most: largest positive ``weight x coef``.

    Args:
        table: the term table.
        model: from :func:`fit`.
        row: the paper's row.
        limit: most columns.
    Returns:
        Column numbers, strongest first.
    """
    cols, weights = table.row(row)
    push = weights.astype(np.float64) * model.coef[cols]
    good = np.flatnonzero(push > 0)
    order = good[np.lexsort((cols[good], -push[good]))]
    return [int(cols[k]) for k in order[:limit]]
