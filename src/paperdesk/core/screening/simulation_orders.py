"""The orders the simulation (:mod:`.simulation`) replays a review in: paperdesk's
(:mod:`.ranker`, retrained after every label), ASReview LAB's default model
(:mod:`.baseline`, when the ``asreview`` package is installed), and two orders without a
model: random and by date.

Each is a *screener*: ``prepare(review)`` once (features built once per review), then
``rank(relevant_rows, irrelevant_rows, seed)`` returns the undecided rows, best first;
``retrains`` says whether the simulation asks again after every label (a fixed order is
asked once and read to the end).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

__all__ = ["Screener", "PaperdeskOrder", "RandomOrder", "DateOrder", "screeners",
           "undecided"]


class Screener(Protocol):
    """An order of a review's papers (see the module docstring)."""

    name: str
    retrains: bool

    def prepare(self, review) -> None:
        """Build what the order needs from a :class:`.simulation.Review`."""

    def rank(self, relevant: Sequence[int], irrelevant: Sequence[int],
             seed: int) -> np.ndarray:
        """The undecided rows, best first (int64 array)."""


def undecided(total: int, relevant: Sequence[int], irrelevant: Sequence[int]) -> np.ndarray:
    """The rows of ``range(total)`` in neither list (int64 array, ascending)."""
    decided = np.zeros(total, bool)
    decided[np.asarray(relevant, np.int64)] = True
    decided[np.asarray(irrelevant, np.int64)] = True
    return np.flatnonzero(~decided)


class PaperdeskOrder:
    """paperdesk's order: :func:`.ranker.build_features` and :func:`.ranker.build_vectors`
    once, :func:`.ranker.rank` after every label (what the screening mode runs).

    Attributes:
        features_used: after :meth:`prepare`, what the order ran on, one line:
            "words and vectors (MODEL)" or "words alone (REASON)".
    """

    name = "paperdesk"
    retrains = True
    features_used = ""

    def prepare(self, review) -> None:
        """Build the feature matrix and the vectors of ``review``'s texts."""
        from paperdesk.core.screening.ranker import build_features, build_vectors
        self._matrix = build_features(review.texts)
        self._vectors, note = build_vectors(review.texts)
        self.features_used = (f"words and vectors ({note})" if self._vectors is not None
                              else f"words alone ({note})")

    def rank(self, relevant, irrelevant, seed):
        """:func:`.ranker.rank` on the features."""
        from paperdesk.core.screening.ranker import rank
        return rank(self._matrix, relevant, irrelevant, seed=seed, vectors=self._vectors)


class RandomOrder:
    """The undecided papers in a random order fixed by the seed (what screening without
    a model amounts to: WSS 0 on average)."""

    name = "random"
    retrains = False

    def prepare(self, review) -> None:
        """Remember how many papers there are."""
        self._total = len(review.relevant)

    def rank(self, relevant, irrelevant, seed):
        """A permutation of the undecided rows (``numpy.random.default_rng(seed)``)."""
        rest = undecided(self._total, relevant, irrelevant)
        return np.random.default_rng(seed + 1).permutation(rest)


class DateOrder:
    """The undecided papers newest first by their stored date (ISO text; papers without
    a date last), ties by paper id: reading a search result by date."""

    name = "date"
    retrains = False

    def prepare(self, review) -> None:
        """Sort the papers by date once."""
        dated = sorted(range(len(review.dates)),
                       key=lambda row: (review.dates[row] == "", review.dates[row]))
        # newest first among the dated; stable sort keeps id order within a date
        with_date = [r for r in dated if review.dates[r]]
        with_date.sort(key=lambda row: review.dates[row], reverse=True)
        self._order = np.array(with_date + [r for r in dated if not review.dates[r]],
                               np.int64)
        self._total = len(review.dates)

    def rank(self, relevant, irrelevant, seed):
        """The date order without the decided rows."""
        keep = np.zeros(self._total, bool)
        keep[undecided(self._total, relevant, irrelevant)] = True
        return self._order[keep[self._order]]


def screeners() -> tuple[list[Callable[[], Screener]], str | None]:
    """The orders to replay, in the table's order.

    Returns:
        ``(makers, note)``: a maker per order (paperdesk, ELAS u4 when ``asreview`` is
        installed, random, date), and a one-line note when the ASReview baseline is left
        out (else None).
    """
    from paperdesk.core.screening.baseline import ElasU4Order, asreview_missing
    makers: list[Callable[[], Screener]] = [PaperdeskOrder]
    note = asreview_missing()
    if note is None:
        makers.append(ElasU4Order)
    return makers + [RandomOrder, DateOrder], note
