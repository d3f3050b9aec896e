"""Tag suggestions: a k-nearest-neighbour vote among the tagged papers (Yang, "An
evaluation of statistical approaches to text categorization", Information Retrieval
1(1-2), 1999: kNN with similarity-weighted votes).

A paper's :data:`NEIGHBOURS` most similar tagged papers vote for their tags with their
cosine similarity; a tag the paper does not have is suggested when its votes reach
:data:`MIN_VOTE`, best first. Each suggestion names the papers that voted for it and the
terms the paper shares most with them, so that it says why it was made.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperdesk.core.discover.related import nearest_rows, shared_columns
from paperdesk.core.discover.term_table import TermTable

__all__ = ["NEIGHBOURS", "MIN_VOTE", "Vote", "tag_votes"]

#: Tagged papers that vote.
NEIGHBOURS = 10
#: Least summed cosine for a tag to be suggested.
MIN_VOTE = 0.08


@dataclass(frozen=True)
class Vote:
    """A tag's votes: ``tag_id``, summed ``score``, voting ``rows`` (best first) and the
    ``columns`` shared most with them."""

    tag_id: int
    score: float
    rows: tuple[int, ...]
    columns: tuple[int, ...]


def tag_votes(table: TermTable, row: int, tagged_rows: np.ndarray,
              tags_of_row: dict[int, set[int]], own_tags: set[int],
              limit: int = 3) -> list[Vote]:
    """The tags the paper's nearest tagged papers vote for.

    Args:
        table: the term table.
        row: the paper's row.
        tagged_rows: rows of the papers that have at least one tag.
        tags_of_row: ``{row: {tag_id, ...}}`` for those rows.
        own_tags: tag ids the paper already has (never suggested).
        limit: most suggestions.
    Returns:
        Up to ``limit`` :class:`Vote`, highest score first (ties by tag id).
    """
    rows, scores = nearest_rows(table, row, NEIGHBOURS, among=tagged_rows)
    votes: dict[int, list] = {}
    for r, s in zip(rows.tolist(), scores.tolist()):
        for tag in tags_of_row.get(r, ()):
            if tag in own_tags:
                continue
            entry = votes.setdefault(tag, [0.0, []])
            entry[0] += s
            entry[1].append(r)
    ranked = sorted(((score, tag, voters) for tag, (score, voters) in votes.items()
                     if score >= MIN_VOTE), key=lambda v: (-v[0], v[1]))[:limit]
    return [Vote(tag, float(score), tuple(voters[:3]),
                 tuple(shared_columns(table, row, voters[:3], 3)))
            for score, tag, voters in ranked]
