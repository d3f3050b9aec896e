"""Tag suggestions: a similarity-weighted k-nearest-neighbour vote (Yang, "An evaluation
of statistical approaches to text categorization", Information Retrieval 1(1-2), 1999:
kNN with similarity-weighted votes), made only on evidence.

The paper's :data:`NEIGHBOURS` most similar papers of the library (tagged or not) vote:
each with the square of its cosine similarity, for every tag it has. A tag's
**score** is its share of all the votes, 0..1 (0.6: the papers with the tag weigh 60%
of the paper's neighbourhood). A tag the paper does not have is suggested when

* its score reaches :data:`MIN_SHARE`, and
* at least :data:`MIN_EXAMPLES` papers of the library have it.

A tag that would get votes but has fewer examples is *held back*: not suggested, but
named with the reason ("only 3 papers are tagged …"), so that the window and
``paperdesk suggest-tags`` can say why nothing is offered.

The neighbours are all papers, not only the tagged ones: a paper whose neighbours are
mostly untagged gets no suggestion (three tagged papers no longer make their tag the
nearest of every paper). :data:`MIN_SHARE` is calibrated by the held-out evaluation
(:mod:`.tag_evaluation`; the table in docs/discover.md): on the sample library with its
hand-assigned topics as tags, and on five SYNERGY systematic reviews with "included" as
a tag, suggestions at that score or above are right at least 8 times in 10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["NEIGHBOURS", "MIN_SHARE", "MIN_EXAMPLES", "Vote", "tag_votes"]

#: Papers that vote (the most similar papers of the library).
NEIGHBOURS = 20
#: Least share of the votes for a tag to be suggested (calibrated, see the docstring).
MIN_SHARE = 0.6
#: Least papers with a tag before it is suggested.
MIN_EXAMPLES = 5


@dataclass(frozen=True)
class Vote:
    """A tag's votes for one paper.

    Attributes:
        tag_id: the tag.
        score: its share of the votes, 0..1.
        voters: the neighbours with the tag (ids or rows, as given), most similar first.
        examples: papers of the library with the tag.
        held_back: True when ``examples`` < :data:`MIN_EXAMPLES` (not a suggestion).
    """

    tag_id: int
    score: float
    voters: tuple[int, ...]
    examples: int
    held_back: bool


def tag_votes(neighbours: Sequence[int], similarities: Sequence[float],
              tags_of: Mapping[int, set[int]], own_tags: set[int],
              examples: Mapping[int, int], limit: int = 3,
              min_share: float = MIN_SHARE) -> tuple[list[Vote], list[Vote]]:
    """The tags a paper's neighbours vote for: the suggestions and the held-back tags.

    Args:
        neighbours: the paper's most similar papers (ids or rows), most similar first
            (the first :data:`NEIGHBOURS` count).
        similarities: their cosine similarities, 0..1, in the same order.
        tags_of: ``{neighbour: {tag_id, ...}}`` (a neighbour without tags may be
            missing).
        own_tags: tag ids the paper already has (never suggested).
        examples: ``{tag_id: papers with the tag}`` in the library.
        limit: most suggestions, and most held-back tags.
        min_share: least score of a suggestion (default :data:`MIN_SHARE`; the
            evaluation tries others).
    Returns:
        ``(suggestions, held_back)``: each up to ``limit`` :class:`Vote`, highest score
        first (ties by tag id). A held-back tag is one with votes and fewer than
        :data:`MIN_EXAMPLES` examples (whatever its score).
    """
    weights = [float(s) ** 2 for s in similarities[:NEIGHBOURS]]
    total = sum(weights)
    if total <= 0:
        return [], []
    votes: dict[int, list] = {}
    for who, weight in zip(neighbours[:NEIGHBOURS], weights):
        for tag in tags_of.get(who, ()):
            if tag not in own_tags:
                entry = votes.setdefault(tag, [0.0, []])
                entry[0] += weight
                entry[1].append(who)
    ranked = sorted(((score / total, tag, voters) for tag, (score, voters) in votes.items()),
                    key=lambda v: (-v[0], v[1]))
    suggested, held = [], []
    for score, tag, voters in ranked:
        count = int(examples.get(tag, 0))
        if count < MIN_EXAMPLES:
            held.append(Vote(tag, score, tuple(voters), count, True))
        elif score >= min_share:
            suggested.append(Vote(tag, score, tuple(voters), count, False))
    return suggested[:limit], held[:limit]
