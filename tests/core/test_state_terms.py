"""Tags and read/star marks are searchable as soon as they are committed: ``tag:``,
``-tag:``, ``has:tag``, ``is:starred``, ``is:read`` ... are answered from SQLite
(:mod:`paperdesk.core.search.state_terms`), with the search index left untouched
(issue 28: tagging 10,000 papers took a minute to become searchable at 100,000)."""

from __future__ import annotations

import numpy as np
import pytest


def _ids(lib, query: str) -> set[int]:
    return set(lib.search.find(query, limit=None).ids.tolist())


@pytest.fixture
def unsynced(seeded_library):
    """The seed library with automatic index syncing off: whatever a change queues for
    the index stays queued, and the index's segments stay as they are."""
    seeded_library.auto_sync_index = False
    return seeded_library


def _untouched(lib, segments) -> None:
    assert lib.index.queue_size() == 0
    assert lib.index.whoosh.segment_sizes() == segments


def test_a_new_tag_is_searchable_at_once_without_touching_the_index(unsynced):
    lib = unsynced
    segments = lib.index.whoosh.segment_sizes()
    depth = _ids(lib, "depth")
    assert len(depth) > 3
    chosen = sorted(depth)[:3]
    lib.tags.add(chosen, "Fresh idea")
    _untouched(lib, segments)
    assert _ids(lib, 'tag:"fresh idea"') == set(chosen)
    assert _ids(lib, 'tag:"Fresh idea" depth') == set(chosen)
    assert _ids(lib, 'depth -tag:"fresh idea"') == depth - set(chosen)
    assert _ids(lib, "tag:fresh*") == set(chosen)          # a prefix of the name
    assert _ids(lib, 'tag:"fresh idae"~') == set()         # a phrase, not fuzzy
    assert _ids(lib, "has:tag") == set(chosen)


def test_untagging_renaming_and_deleting_a_tag_are_searchable_at_once(unsynced):
    lib = unsynced
    segments = lib.index.whoosh.segment_sizes()
    papers = sorted(_ids(lib, "learning"))[:4]
    lib.tags.add(papers, "ml")
    tag = lib.tags.by_name("ml")
    lib.tags.remove(papers[:1], "ml")
    assert _ids(lib, "tag:ml") == set(papers[1:])
    lib.tags.rename(tag.id, "to-read")
    assert _ids(lib, "tag:ml") == set()
    assert _ids(lib, 'tag:"to-read"') == set(papers[1:])
    assert _ids(lib, "tag:to-read") == set(papers[1:])   # parsed as the words "to read"
    lib.undo()                                            # the rename undone
    assert _ids(lib, "tag:ml") == set(papers[1:])
    lib.tags.delete(tag.id)
    assert _ids(lib, "tag:ml") == set()
    assert _ids(lib, "has:tag") == set()
    _untouched(lib, segments)


def test_fuzzy_and_wildcard_tag_names(unsynced):
    lib = unsynced
    first, second = sorted(_ids(lib, "depth"))[:2]
    lib.tags.add([first], "vision")
    lib.tags.add([second], "visual")
    assert _ids(lib, "tag:visoin~") == set()        # a swap is two edits
    assert _ids(lib, "tag:visoin~2") == {first}
    assert _ids(lib, "tag:vison~") == {first}
    assert _ids(lib, "tag:visal~") == {second}
    assert _ids(lib, "tag:visu?l") == {second}
    assert _ids(lib, "tag:vis*") == {first, second}
    assert _ids(lib, "tag:vis* depth") == {first, second}


def test_read_and_star_marks_are_searchable_at_once(unsynced):
    lib = unsynced
    segments = lib.index.whoosh.segment_sizes()
    everyone = _ids(lib, "is:unread")
    assert len(everyone) == lib.papers.count()
    some = sorted(_ids(lib, "depth"))[:2]
    lib.papers.set_starred(some, True)
    lib.papers.set_read(some[:1], True)
    _untouched(lib, segments)
    assert _ids(lib, "is:starred") == set(some)
    assert _ids(lib, "is:starred depth") == set(some)
    assert _ids(lib, "is:unstarred") == everyone - set(some)
    assert _ids(lib, "is:read") == {some[0]}
    assert _ids(lib, "is:unread is:starred") == {some[1]}
    lib.papers.set_starred(some, False)
    assert _ids(lib, "is:starred") == set()


def test_whooshs_searcher_answers_the_same_as_the_fast_path(unsynced):
    lib = unsynced
    papers = sorted(_ids(lib, "learning"))
    lib.tags.add(papers[::3], "ml")
    lib.papers.set_starred(papers[::2], True)
    whoosh = lib.index.whoosh
    for query in ("tag:ml", "tag:ml learning", "learning -tag:ml", "tag:ml OR depth",
                  "is:starred learning", "is:unstarred tag:ml", "has:tag"):
        plan = whoosh.plan(query)
        fast_ids, fast_scores, fast_total = whoosh.search_arrays(plan, fast=True)
        assert whoosh.last_path == "fast"
        slow_ids, slow_scores, slow_total = whoosh.search_arrays(plan, fast=False)
        assert whoosh.last_path == "whoosh"
        assert fast_total == slow_total > 0, query
        assert set(fast_ids.tolist()) == set(slow_ids.tolist()), query
        np.testing.assert_allclose(np.sort(fast_scores), np.sort(slow_scores))


def test_index_documents_hold_no_tags_or_marks(seeded_library):
    from paperdesk.core.store.index_documents import read_documents

    lib = seeded_library
    pid = sorted(_ids(lib, "depth"))[0]
    lib.tags.add([pid], "vision")
    lib.papers.set_starred([pid], True)
    lib.notes.set(pid, "a note")
    doc = read_documents(lib.db, [pid])[pid]
    assert doc.tags == ()
    assert set(doc.flags) & {"read", "unread", "starred", "unstarred", "tagged"} == set()
    assert "note" in doc.flags                      # notes are indexed text: still there


def test_a_negated_filter_and_a_query_of_negations_only_are_the_complements(
        seeded_library):
    """``NOT is:starred`` / ``-is:starred`` are the papers not starred (the filter was
    taken out of the query and applied as is, sign lost), and ``-word`` or ``-tag:x``
    alone, or beside a filter only, leave the papers out (Whoosh's minus with no
    positive word beside it was dropped or matched nothing)."""
    lib = seeded_library
    every = set(lib.papers.ids())
    depth = _ids(lib, "depth")
    starred = sorted(depth)[:2]
    lib.papers.set_starred(starred, True)
    lib.papers.set_read(starred[:1], True)
    lib.tags.add(sorted(depth)[2:5], "hot")
    hot = _ids(lib, "tag:hot")
    assert _ids(lib, "is:starred") == set(starred)
    for text in ("NOT is:starred", "-is:starred", "is:unstarred"):
        assert _ids(lib, text) == every - set(starred), text
    assert _ids(lib, "depth NOT is:starred") == _ids(lib, "depth -is:starred") \
        == depth - set(starred)
    assert _ids(lib, "NOT is:read") == _ids(lib, "is:unread") == every - set(starred[:1])
    assert _ids(lib, "is:starred OR tag:hot") == set(starred) | hot
    for text in ("-depth", "NOT depth"):
        assert _ids(lib, text) == every - depth, text
    assert _ids(lib, "-tag:hot") == _ids(lib, "NOT tag:hot") == every - hot
    assert _ids(lib, "is:unread -tag:hot") == every - hot - set(starred[:1])
    assert _ids(lib, "is:unread -depth") == every - depth - set(starred[:1])
    for text in ("-(is:starred OR tag:hot)", "NOT (is:starred OR tag:hot)"):
        assert _ids(lib, text) == every - set(starred) - hot, text
    assert _ids(lib, "-(depth OR learning)") == every - depth - _ids(lib, "learning")
    assert _ids(lib, '-"depth estimation"') == every - _ids(lib, '"depth estimation"')
    assert _ids(lib, 'depth -"depth estimation"') == depth - _ids(lib, '"depth estimation"')
    for text in ("NOT added:2020", "-added:2020"):      # refused, not applied as a range
        plan = lib.index.whoosh.plan(text)
        assert plan.added is None and "cannot be left out" in plan.message, text
    assert "OR does not apply" in lib.index.whoosh.plan("depth OR added:2020").message
    assert _ids(lib, "state-of-the-art") == _ids(lib, '"state of the art"') | \
        _ids(lib, "state AND of AND the AND art")    # a hyphen inside a word stays
