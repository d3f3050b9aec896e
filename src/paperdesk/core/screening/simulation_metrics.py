"""The measures of a replayed screening, as ASReview Insights computes them
(asreview-insights, ``asreviewcontrib/insights/algorithms.py`` and ``metrics.py``,
https://github.com/asreview/asreview-insights), so that the figures compare with
ASReview's published simulations. Each takes ``labels``: the screened papers' labels in
the order they were screened, True for relevant, the prior papers left out (Insights'
``priors=False``, its default).

* **WSS@95** (:func:`wss`, work saved over sampling, after Cohen et al., JAMIA 13(2),
  2006): for the ``k``-th relevant paper, ``k = floor(0.95 x R)`` of the ``R`` in
  ``labels``, the records screened before it in a random order (Insights' random
  curve: ``round(linspace(0, R, N))``, where it first reaches ``k``) less those
  screened before it in this order, over ``N = len(labels)``.
* **Recall after 10 % screened** (:func:`recall_at`): relevant found among the first
  ``floor(0.1 x N)`` records, over ``R`` (0 when that is no record).
* **ATD**, average time to discovery (:func:`average_time_to_discovery`): the mean over
  the relevant papers of the 1-based position at which each was screened (Insights'
  ``time_to_discovery``/``average_time_to_discovery``), a number of records;
  :func:`average_time_to_discovery` also gives it as a share of ``N``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["wss", "recall_at", "average_time_to_discovery"]


def _checked(labels: Sequence[bool]) -> np.ndarray:
    out = np.asarray(labels, bool)
    if len(out) == 0 or not out.any():
        raise ValueError("the screening has no relevant paper to measure")
    return out


def wss(labels: Sequence[bool], recall: float = 0.95) -> float:
    """Work saved over sampling at ``recall``.

    Args:
        labels: the labels in screening order (priors left out), at least one True.
        recall: the recall level, 0 < recall <= 1.
    Returns:
        A share of the records, -1..1 (0.0 for no saving over a random order).
    Raises:
        ValueError: no relevant paper in ``labels``.
    """
    y = _checked(labels)
    n_docs, n_relevant = len(y), int(y.sum())
    found = np.cumsum(y)
    found_random = np.round(np.linspace(0, n_relevant, n_docs))
    targets = np.arange(1, n_relevant + 1)
    saved = (np.searchsorted(found_random, targets) - np.searchsorted(found, targets))
    level = np.searchsorted(targets / n_relevant, recall, side="right")
    return float(saved[max(level, 1) - 1] / n_docs)


def recall_at(labels: Sequence[bool], share: float = 0.10) -> float:
    """Recall after ``share`` of the records are screened.

    Args:
        labels: the labels in screening order (priors left out), at least one True.
        share: the share screened, 0..1.
    Returns:
        Relevant among the first ``floor(share x N)`` records over all relevant, 0..1.
    Raises:
        ValueError: no relevant paper in ``labels``.
    """
    y = _checked(labels)
    fraction = np.arange(1, len(y) + 1) / len(y)
    screened = int(np.searchsorted(fraction, share, side="right"))
    return float(y[:screened].sum() / y.sum())


def average_time_to_discovery(labels: Sequence[bool]) -> tuple[float, float]:
    """Average time to discovery.

    Args:
        labels: the labels in screening order (priors left out), at least one True.
    Returns:
        ``(records, share)``: the mean 1-based position of the relevant papers, and the
        same over ``len(labels)``.
    Raises:
        ValueError: no relevant paper in ``labels``.
    """
    y = _checked(labels)
    records = float(np.mean(np.flatnonzero(y) + 1))
    return records, records / len(y)
