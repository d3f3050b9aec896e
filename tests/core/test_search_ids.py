"""The search list as ids plus scores (issue 12, point 4): every match comes back as numpy
arrays however few rows are built; a tag or filter is applied inside the index search as a
cached mask over paper ids; sorts of all hits use cached ranks; snippets are cut for a
block of rows on demand; the tag pane's filter counts can be asked for one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from paperdesk.core.scope import FILTERS, Scope


@pytest.fixture
def lib(seeded_library):
    """The seed library with a tag on every third paper, two starred, three read, a note."""
    lib = seeded_library
    ids = lib.papers.ids()
    lib.tags.add(ids[::3], "third")
    lib.papers.set_starred([ids[1], ids[4]], True)
    lib.papers.set_read(ids[2:5], True)
    lib.notes.set(ids[7], "a note on depth")
    return lib


def _tag(lib) -> int:
    return lib.tags.by_name("third").id


def test_find_returns_every_match_as_arrays_with_only_limit_rows(lib):
    everything = lib.search.find("model", limit=None)
    few = lib.search.find("model", limit=5)
    assert everything.total > 50
    assert isinstance(few.ids, np.ndarray) and few.ids.dtype == np.int64
    assert few.ids.tolist() == [h.id for h in everything.hits]
    assert np.allclose(few.scores, [h.score for h in everything.hits])
    assert [h.id for h in few.hits] == few.ids[:5].tolist() and few.total == len(few.ids)
    none = lib.search.find("model", limit=0)
    assert none.hits == [] and none.ids.tolist() == few.ids.tolist()


def test_a_tag_or_filter_inside_the_search_gives_the_hits_of_the_old_id_sets(lib):
    """The old way: the scope's ids loaded from SQLite, the search's hits kept if in it."""
    tag = _tag(lib)
    for query in ("model", "depth estimation", '"neural network"', "optim*", "is:unread"):
        everything = [h.id for h in lib.search.find(query, limit=None).hits]
        for scope in [Scope(tag_id=tag), *(Scope(filter=f) for f in FILTERS),
                      Scope(tag_id=tag, filter="unread")]:
            passing = set(lib.papers.ids(**scope.where()))
            expected = [pid for pid in everything if pid in passing]
            found = lib.search.find(query, limit=10, **scope.where())
            assert found.ids.tolist() == expected, (query, scope)
            assert found.total == len(expected)
            assert [h.id for h in found.hits] == expected[:10]


def test_masks_are_built_once_per_scope_and_rebuilt_after_a_change(lib):
    tag = _tag(lib)
    lib.search.find("model", tag_id=tag)
    built = lib.masks.builds
    for query in ("model", "depth", "transformer", "learn*"):
        lib.search.find(query, limit=20, tag_id=tag)
    assert lib.masks.builds == built        # typing in the same scope: no SQLite per query
    untagged = next(pid for pid in lib.search.find("depth", limit=None).ids.tolist()
                    if pid not in set(lib.papers.ids(tag_id=tag)))
    assert untagged not in lib.search.find("depth", tag_id=tag).ids.tolist()
    lib.tags.add([untagged], "third")
    assert untagged in lib.search.find("depth", tag_id=tag).ids.tolist()
    assert lib.masks.builds > built


def test_a_paper_deleted_before_the_index_caught_up_is_not_among_the_ids(lib):
    lib.auto_sync_index = False
    victim = lib.search.find("depth", limit=1).hits[0].id
    lib.removal.delete_papers([victim])
    found = lib.search.find("depth", limit=None)
    assert victim not in found.ids.tolist()
    assert found.total == len(found.ids) == len(found.hits)


@pytest.mark.parametrize("sort", ["added", "title", "year", "authors"])
@pytest.mark.parametrize("descending", [False, True])
def test_a_sorted_search_orders_every_match_as_sqlite_does(lib, sort, descending):
    matches = set(lib.search.find("model", limit=None).ids.tolist())
    in_order = [pid for pid in lib.papers.scope_ids(Scope(), sort=sort, descending=descending)
                if pid in matches]
    found = lib.search.find("model", limit=7, sort=sort, descending=descending)
    assert found.ids.tolist() == in_order
    assert [h.id for h in found.hits] == in_order[:7]


def test_snippets_for_a_block_are_the_snippets_find_cuts(lib):
    found = lib.search.find("depth estimation", limit=None)
    block = found.ids[20:40].tolist()
    cut = lib.search.snippets("depth estimation", block)
    hits = {h.id: h for h in found.hits}
    assert set(cut) == set(block)
    for pid in block:
        assert cut[pid] == (hits[pid].snippet, hits[pid].snippet_spans)
    assert any(spans for _text, spans in cut.values())
    assert lib.search.snippets("depth", [10**12]) == {}


def test_filter_counts_can_be_asked_for_one_filter(lib):
    full = lib.papers.filter_counts()
    assert full["starred"] == 2 and full["unread"] == 225 - 3 and full["has_note"] == 1
    assert full["untagged"] == 225 - len(lib.papers.ids()[::3])
    assert lib.papers.filter_counts(["starred"]) == {"all": 225, "starred": 2}
    assert lib.papers.filter_counts(()) == {"all": 225}
    assert lib.papers.filter_counts(["untagged", "unread"]) == {
        "all": 225, "untagged": full["untagged"], "unread": full["unread"]}


def test_tag_counts_are_the_numbers_of_tagged_papers(lib):
    counts = {t.name: t.count for t in lib.tags.all()}
    assert counts["third"] == len(lib.papers.ids(tag_id=_tag(lib)))
    lib.tags.create("empty")
    assert {t.name: t.count for t in lib.tags.all()}["empty"] == 0


def test_best_first_is_a_stable_descending_sort():
    from paperdesk.core.search.fastscore import best_first

    rng = np.random.default_rng(12)
    for scores in (np.round(rng.random(50_000) * 9, 1), rng.random(5000),
                   np.ones(3000), np.zeros(0), np.array([2.0, 1.0, 2.0]),
                   np.array([0.0, -0.0, 1.5, -0.0, 0.0]),            # -0.0 ties with 0.0
                   np.array([1.0, -2.0, 0.5, -2.0, 3.0]), np.array([7.0])):
        assert best_first(scores).tolist() == np.argsort(-scores, kind="stable").tolist()


def test_positions_find_each_match_in_the_ids(lib):
    # the window's list looks rows up with them (sorted on the search thread)
    for results in (lib.search.find("model", limit=5),
                    lib.search.find("model", limit=5, sort="title", descending=True),
                    lib.search.find("model", limit=5, rank=3).complete(),
                    lib.search.find("nothingmatchesthis", limit=5)):
        ids = np.asarray(results.ids, dtype=np.int64)
        keys, places = results.positions
        assert results.positions is results.positions      # computed once
        assert keys.tolist() == sorted(ids.tolist())
        assert [int(ids[p]) for p in places] == keys.tolist()
        for at, pid in enumerate(ids.tolist()):
            assert places[np.searchsorted(keys, pid)] == at
        # the window's list holds them as Python ints: made once
        assert results.id_list == ids.tolist() and results.id_list is results.id_list
        assert all(type(i) is int for i in results.id_list)
