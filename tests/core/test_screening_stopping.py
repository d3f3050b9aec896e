"""The BUSCAR stopping estimate (core/screening/stopping.py): small cases computed by hand
from Callaghan & Müller-Hansen's formula, a screening where it must not stop early, and
the fast computation against the formula evaluated over every window with scipy."""

from __future__ import annotations

from fractions import Fraction
from math import comb, floor

import numpy as np
import pytest
from scipy.stats import hypergeom

from paperdesk.core.screening.stopping import (CONFIDENCE, POINT_LEVEL, TARGET_RECALL,
                                               estimate, lower_tail, target_p_value)


def _every_window_p(decisions, total, relevant_total):
    """The paper's formula as written: the least over every window of the last n
    screened of P(X <= k_n), X ~ hypergeom(n + unread, relevant_total - found + k_n, n)."""
    d = np.asarray(decisions, bool)
    found, unread = int(d.sum()), total - len(d)
    missing = relevant_total - found
    if missing <= 0:
        return 1.0
    n = np.arange(1, len(d) + 1)
    k = np.cumsum(d[::-1])
    urn, red = n + unread, missing + k
    ok = red <= urn
    return float(hypergeom.cdf(k[ok], urn[ok], red[ok], n[ok]).min()) if ok.any() else 0.0


def _every_window_bound(decisions, total, level=1 - CONFIDENCE):
    """The largest total whose p-value is at least ``level`` (to 1e-9: exactly 0.5 is
    common), trying every total."""
    found = int(np.sum(decisions))
    bound = found
    for k_total in range(found, total + 1):
        if _every_window_p(decisions, total, k_total) >= level - 1e-9:
            bound = k_total
        else:
            break
    return bound


def test_two_relevant_then_three_irrelevant_is_the_hand_computed_p_value():
    # found 2, so recall < 95 % means 3 relevant: 1 missing among the 1 unread paper.
    # Windows of the last n (newest first 0 0 0 1 1): P(X <= k_n) with n + 1 papers,
    # 1 + k_n relevant, n drawn:
    by_hand = [Fraction(1, 2),                                   # n=1: P(X=0)
               Fraction(1, 3),                                   # n=2: C(2,2)/C(3,2)
               Fraction(1, 4),                                   # n=3: C(3,3)/C(4,3)
               1 - Fraction(comb(2, 2) * comb(3, 2), comb(5, 4)),  # n=4: 2/5
               1 - Fraction(comb(3, 3) * comb(3, 2), comb(6, 5))]  # n=5: 1/2
    result = estimate([True, True, False, False, False], 6)
    assert result.p_value == pytest.approx(float(min(by_hand)), abs=1e-12)
    assert result.p_value == pytest.approx(0.25, abs=1e-12)
    assert not result.reached
    assert (result.screened, result.found, result.total) == (5, 2, 6)
    assert target_p_value([True, True, False, False, False], 6) == result.p_value


@pytest.mark.parametrize("irrelevant, reached", [(18, False), (20, True)])
def test_one_relevant_then_a_run_of_irrelevant_stops_once_the_run_is_long_enough(
        irrelevant, reached):
    # one found: the target is missed with 2 relevant, 1 missing among the 1 unread. The
    # window of the last n irrelevant papers: P(X = 0) = 1 / (n + 1), so 20 of them
    # (1/21 < 5 %) stop and 18 (1/19) do not; the whole screening's window is larger.
    decisions = [True] + [False] * irrelevant
    result = estimate(decisions, len(decisions) + 1)
    assert floor(1 / TARGET_RECALL) + 1 == 2
    assert result.p_value == pytest.approx(1 / (irrelevant + 1), abs=1e-12)
    assert result.reached is reached


def test_it_does_not_stop_early_when_most_papers_are_unread():
    # 10 of the first 40 relevant, then 10 irrelevant in a row, 1,000 unread: the run is
    # far too short for a thousand unread papers to be empty of the 11th
    decisions = [i % 4 == 0 for i in range(40)] + [False] * 10
    result = estimate(decisions, 1050)
    assert not result.reached
    assert result.p_value > 0.9
    assert result.estimated_relevant > 2 * result.found
    assert result.relevant_upper_bound == _every_window_bound(decisions, 1050)
    assert result.estimated_relevant == _every_window_bound(decisions, 1050, POINT_LEVEL)
    assert result.estimated_relevant < result.relevant_upper_bound


def test_nothing_found_and_nothing_left():
    assert estimate([False] * 5, 10).estimated_relevant is None
    assert not estimate([False] * 5, 10).reached
    done = estimate([True, False], 2)
    assert done.reached and done.estimated_relevant == 1 and done.p_value == 0.0
    assert done.relevant_upper_bound == 1
    with pytest.raises(ValueError, match="3 decisions but only 2 papers"):
        estimate([True, False, False], 2)


def test_the_fast_computation_is_the_formula_over_every_window():
    rng = np.random.default_rng(7)
    for _ in range(60):
        screened = int(rng.integers(1, 90))
        total = screened + int(rng.integers(0, 200))
        early, late = rng.random(), rng.random() * 0.3
        decisions = np.r_[rng.random(screened // 3) < early,
                          rng.random(screened - screened // 3) < late]
        result = estimate(decisions, total)
        if result.found == 0 or result.total == result.screened:
            continue
        below_target = floor(result.found / TARGET_RECALL) + 1
        assert result.p_value == pytest.approx(
            _every_window_p(decisions, total, below_target), abs=1e-9)
        assert result.relevant_upper_bound == _every_window_bound(decisions, total)
        assert result.estimated_relevant == _every_window_bound(decisions, total,
                                                                POINT_LEVEL)


def test_one_relevant_of_the_two_read_estimates_half_of_a_hundred_papers():
    # found 1 of 2 read, 98 unread; R relevant means m = R - 1 missing. The newest
    # window (one irrelevant): P(X = 0) = 1 - m / 99, at least 0.5 while m <= 49; the
    # whole screening: P(X <= 1) = 1 - m (m + 1) / (100 x 99), at least 0.5 while
    # m <= 69. So R = 50 is the largest total not rejected at 0.5, half the papers, as
    # half of those read were relevant; at 0.05 the newest window allows m <= 94.
    result = estimate([True, False], 100)
    assert result.estimated_relevant == 50
    assert result.relevant_upper_bound == 95
    assert result.estimated_relevant == _every_window_bound([True, False], 100, 0.5)


@pytest.mark.parametrize("irrelevant, point", [(1, 2), (2, 1), (3, 1)])
def test_one_relevant_then_irrelevant_with_one_unread_estimates_by_hand(irrelevant, point):
    # one found, then n irrelevant, 1 unread: "2 relevant" has the p-value
    # min(1 / (n + 1), 2 / (n + 2)) = 1 / (n + 1) (the test above), so it is not
    # rejected at 0.5 for n = 1 only; the 95 % bound stays 2 while n <= 19.
    decisions = [True] + [False] * irrelevant
    result = estimate(decisions, len(decisions) + 1)
    assert result.estimated_relevant == point
    assert result.relevant_upper_bound == 2


def test_lower_tail_is_the_hypergeometric_cdf():
    rng = np.random.default_rng(3)
    urn = rng.integers(2, 50_000, 2000)
    red = (rng.random(2000) * urn).astype(int)
    drawn = (rng.random(2000) * urn).astype(int) + 1
    k = (rng.random(2000) * np.minimum(drawn, red) + 0.5).astype(int)
    assert np.abs(lower_tail(k, urn, red, drawn)
                  - hypergeom.cdf(k, urn, red, drawn)).max() < 1e-9
