"""Only the first screenfuls of a search are ranked at once (issue 28): at a million
abstracts the sort of every match was most of a common word's search. ``find(rank=n)``
ranks the best ``n`` matches (a partial selection, then a sort of those) and leaves the
order of the rest to :meth:`SearchResults.complete`; both together must give exactly the
order (and scores) of ranking every match, ties in index order as Whoosh ranks them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from paperdesk.core.search.fastscore import best_first, best_first_head

#: Query shapes of the search table, in seed-corpus words.
QUERIES = ("model", "depth estimation", '"neural network"', "optim*", "netwrk~",
           "depth OR width OR attention", "is:unread", "tag:third model", "learning -deep")


@pytest.fixture
def lib(seeded_library):
    """The seed library with a tag on every third paper and three papers read."""
    lib = seeded_library
    ids = lib.papers.ids()
    lib.tags.add(ids[::3], "third")
    lib.papers.set_read(ids[2:5], True)
    return lib


# scores as BM25F gives them: a few distinct values, many ties (a fuzzy word's matches
# beyond 5,000 documents per segment all score 1.0), zeros and -0.0 included
_scores = st.lists(st.sampled_from([0.0, -0.0, 1.0, 1.5, 2.25, 3.0, 7.125]) |
                   st.floats(0, 50, allow_nan=False), min_size=0, max_size=300)


@settings(max_examples=300, deadline=None)
@given(_scores, st.integers(0, 320))
def test_the_head_and_the_ordered_rest_are_the_full_order(values, first):
    scores = np.asarray(values, dtype=np.float64)
    full = best_first(scores)
    head, rest = best_first_head(scores, first)
    assert head.tolist() == full[:first].tolist()
    assert rest.tolist() == sorted(rest.tolist())
    assert np.concatenate((head, rest[best_first(scores[rest])])).tolist() == full.tolist()


def test_two_distinct_scores_of_a_fuzzy_word_rank_like_the_full_sort():
    scores = np.ones(40_000)
    scores[::7] = 2.5
    head, rest = best_first_head(scores, 1000)
    assert head.tolist() == best_first(scores)[:1000].tolist() == list(range(0, 7000, 7))
    assert len(rest) == 39_000


@pytest.mark.parametrize("rank", [1, 7, 60, 1000])
def test_find_with_rank_gives_the_order_and_scores_of_ranking_every_match(lib, rank):
    for query in QUERIES:
        full = lib.search.find(query, limit=5)
        part = lib.search.find(query, limit=5, rank=rank)
        assert part.total == full.total, query
        assert [(h.id, h.score, h.snippet) for h in part.hits] == \
            [(h.id, h.score, h.snippet) for h in full.hits], query
        first = min(max(rank, 5), full.total)
        assert part.ids.tolist() == full.ids[:first].tolist(), query
        assert part.ranked == (full.total <= max(rank, 5)), query
        done = part.complete()
        assert done.ranked and done.rest is None
        assert done.ids.tolist() == full.ids.tolist(), query
        assert np.array_equal(done.scores, full.scores), query
        assert done.hits == part.hits and done.total == full.total


def test_a_scope_and_a_selection_are_applied_before_the_head_is_chosen(lib):
    tag = lib.tags.by_name("third").id
    within = set(lib.papers.ids()[::2])
    for query in ("model", "netwrk~", "optim*"):
        full = lib.search.find(query, limit=3, tag_id=tag, within=within)
        part = lib.search.find(query, limit=3, tag_id=tag, within=within, rank=4)
        assert full.total > 4, query
        assert part.ids.tolist() == full.ids[:4].tolist()
        assert part.complete().ids.tolist() == full.ids.tolist()


def test_other_orders_and_no_limit_rank_every_match(lib):
    full = lib.search.find("model", limit=None)
    assert lib.search.find("model", limit=None, rank=3).ids.tolist() == full.ids.tolist()
    by_title = lib.search.find("model", limit=5, sort="title", rank=3)
    assert by_title.ranked and len(by_title.ids) == full.total
