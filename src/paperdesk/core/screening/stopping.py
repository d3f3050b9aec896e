"""When to stop screening: an estimate of how many relevant papers there are, and
whether 95 % of them have been found.

The method is BUSCAR, the "biased urn" stopping criterion of Callaghan & Müller-Hansen,
"Statistical stopping criteria for automated screening in systematic reviews",
Systematic Reviews 9:273 (2020), https://doi.org/10.1186/s13643-020-01521-4: the papers
screened last were ranked above every unread paper, so they are at least as likely to be
relevant as an unread one; treating them and the unread papers as one urn, the
hypergeometric distribution says how unlikely it is to have seen so few relevant papers
among the last ``n`` screened if recall were still below the target. When that
probability is below 5 % for some ``n``, screening may stop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["StopEstimate", "estimate", "TARGET_RECALL", "CONFIDENCE"]

#: The recall the estimate is about.
TARGET_RECALL = 0.95
#: How sure it must be before it says the target is reached.
CONFIDENCE = 0.95


@dataclass(frozen=True)
class StopEstimate:
    """Where a screening stands.

    Attributes:
        screened: papers decided so far.
        found: of them, relevant.
        total: papers in the screening (decided and not).
        estimated_relevant: the most relevant papers there plausibly are (the largest
            total the test cannot reject at :data:`CONFIDENCE`), at least ``found``;
            ``None`` before anything relevant was found.
        reached: True when recall is at least :data:`TARGET_RECALL` with
            :data:`CONFIDENCE` (the moment to stop).
        p_value: the smallest p-value of the hypothesis "recall < target" over the
            windows of last screened papers (1.0 before there is evidence).
    """

    screened: int
    found: int
    total: int
    estimated_relevant: int | None
    reached: bool
    p_value: float


def _p_values(decisions: np.ndarray, total: int, relevant_total: np.ndarray) -> np.ndarray:
    """p-value of "there are ``K`` relevant papers" for each K in ``relevant_total``:
    the least over the windows of the last ``n`` screened papers of
    ``P(X <= k_n)``, X hypergeometric with ``K - found + k_n`` relevant among
    ``n + unread`` papers and ``n`` drawn."""
    from scipy.stats import hypergeom
    screened = len(decisions)
    found = int(decisions.sum())
    unread = total - screened
    windows = np.arange(1, screened + 1)
    seen_in_window = np.cumsum(decisions[::-1])           # relevant among the last n
    out = np.ones(len(relevant_total))
    for i, k_total in enumerate(relevant_total):
        missing = int(k_total) - found
        if missing <= 0:
            continue
        urn = windows + unread
        red = missing + seen_in_window
        ok = red <= urn
        if not ok.any():
            out[i] = 0.0
            continue
        p = hypergeom.cdf(seen_in_window[ok], urn[ok], red[ok], windows[ok])
        out[i] = float(np.min(p))
    return out


def estimate(decisions: Sequence[bool], total: int) -> StopEstimate:
    """The stopping estimate after the decisions so far.

    Args:
        decisions: the screening's decisions in the order they were made, True for
            relevant.
        total: papers in the screening, decided or not (``>= len(decisions)``).
    Returns:
        A :class:`StopEstimate`.
    Raises:
        ValueError: ``total`` is smaller than the number of decisions.
    """
    d = np.asarray(decisions, bool)
    screened, found = len(d), int(d.sum())
    if total < screened:
        raise ValueError(f"{screened} decisions but only {total} papers")
    if found == 0:
        return StopEstimate(screened, 0, total, None, False, 1.0)
    unread = total - screened
    if unread == 0:
        return StopEstimate(screened, found, total, found, True, 0.0)
    # the least total that would make recall fall below the target
    below_target = int(np.floor(found / TARGET_RECALL)) + 1
    p_target = _p_values(d, total, np.array([below_target]))[0]
    # the most relevant papers not rejected: the p-value falls as the total grows, so
    # bisect for the last total whose p-value is at least 1 - CONFIDENCE
    low, high = found, found + unread
    while low < high:
        middle = (low + high + 1) // 2
        if _p_values(d, total, np.array([middle]))[0] >= 1 - CONFIDENCE:
            low = middle
        else:
            high = middle - 1
    upper = low
    return StopEstimate(screened, found, total, upper, bool(p_target < 1 - CONFIDENCE),
                        float(p_target))
