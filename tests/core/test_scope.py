"""Scope in the core: one function gives the ids and the count of every kind of scope."""

from __future__ import annotations

import pytest

from paperdesk.core.fields import SORT_CHOICES
from paperdesk.core.models import LibraryError, UnknownPaper
from paperdesk.core.scope import FILTER_LABELS, FILTERS, Scope


@pytest.fixture
def lib(seeded_library):
    """The seed library with a tag on 12 papers, notes on 3, one starred, two read and
    a saved search."""
    lib = seeded_library
    ids = lib.paper_ids()
    lib.add_tag(ids[:12], "to read")
    for pid in ids[5:8]:
        lib.set_note(pid, "a note")
    lib.set_starred([ids[0], ids[30]], True)
    lib.set_read([ids[1], ids[30]], True)
    lib.save_search("diffusion papers", "diffusion")
    return lib


def _scopes(lib) -> list[Scope]:
    ids = lib.paper_ids()
    tag = lib.tag_by_name("to read").id
    source = lib.sources()[0].id
    return [
        Scope(),
        *(Scope(filter=name) for name in FILTERS),
        Scope(source_id=source),
        Scope(tag_id=tag),
        Scope(saved="diffusion papers"),
        Scope(query="diffusion"),
        Scope(query="model", tag_id=tag),
        Scope(query="model", source_id=source, filter="unread"),
        Scope(ids=(ids[3], ids[1], ids[200])),
        Scope(ids=tuple(ids[:20]), filter="has_note"),
        Scope(ids=tuple(ids[:50]), query="model"),
        Scope(ids=tuple(ids[:50]), query="model", tag_id=tag),
        Scope(tag_id=tag, filter="has_note"),
    ]


def test_count_equals_the_number_of_ids_for_every_kind_of_scope(lib):
    for scope in _scopes(lib):
        ids = lib.scope_ids(scope)
        assert len(ids) == len(set(ids)), scope
        assert lib.scope_count(scope) == len(ids), scope


def test_all_filter_source_and_tag_agree_with_the_old_lists(lib):
    assert lib.scope_ids(Scope()) == lib.paper_ids()
    assert lib.scope_count(Scope()) == 225
    for name in FILTERS:
        assert lib.scope_ids(Scope(filter=name)) == lib.paper_ids(filter=name)
    source = lib.sources()[0]
    assert lib.scope_count(Scope(source_id=source.id)) == lib.count(source.id) == source.papers
    tag = lib.tag_by_name("to read")
    assert lib.scope_ids(Scope(tag_id=tag.id)) == lib.paper_ids()[:12]
    assert lib.scope_ids(Scope(tag_id=tag.id, filter="has_note")) == lib.paper_ids()[5:8]
    assert set(FILTER_LABELS) <= set(FILTERS)


def test_every_sort_choice_orders_a_scope(lib):
    tag = lib.tag_by_name("to read").id
    lib.discover.ensure()         # "interest" needs the term table
    for sort in SORT_CHOICES:
        ids = lib.scope_ids(Scope(tag_id=tag), sort=sort)
        assert sorted(ids) == sorted(lib.paper_ids()[:12])
        if sort == "interest":
            assert ids == lib.discover.interest(lib.paper_ids(tag_id=tag)).ids
            assert lib.scope_ids(Scope(tag_id=tag), sort=sort, descending=True) == ids[::-1]
        elif sort != "relevance":
            assert ids == lib.paper_ids(order=sort, tag_id=tag)
            assert lib.scope_ids(Scope(tag_id=tag), sort=sort, descending=True) == ids[::-1]
    with pytest.raises(ValueError, match="unknown sort"):
        lib.scope_ids(Scope(), sort="publisher")


def test_query_and_saved_search_scopes_are_search_results(lib):
    hits = [h.id for h in lib.find("diffusion", limit=None).hits]
    assert hits and lib.scope_ids(Scope(query="diffusion")) == hits
    assert lib.scope_ids(Scope(saved="DIFFUSION PAPERS")) == hits   # names: any case
    by_title = lib.scope_ids(Scope(query="diffusion"), sort="title")
    assert by_title == [h.id for h in lib.find("diffusion", limit=None, sort="title").hits]
    assert lib.scope_count(Scope(query="diffusion")) == len(hits)
    unread = set(lib.paper_ids(filter="unread"))
    assert lib.scope_count(Scope(query="diffusion"), also="unread") == len(
        [i for i in hits if i in unread])
    with pytest.raises(LibraryError, match="no saved search"):
        lib.scope_ids(Scope(saved="nope"))
    with pytest.raises(ValueError):
        lib.scope_ids(Scope(query="a", saved="diffusion papers"))


def test_selection_scopes_keep_the_given_order_and_refuse_unknown_ids(lib):
    ids = lib.paper_ids()
    picked = (ids[9], ids[2], ids[2], ids[40])
    assert lib.scope_ids(Scope(ids=picked)) == [ids[9], ids[2], ids[40]]
    assert lib.scope_ids(Scope(ids=picked), sort="added") == [ids[2], ids[9], ids[40]]
    assert lib.scope_ids(Scope(ids=picked, tag_id=lib.tag_by_name("to read").id)) == [
        ids[9], ids[2]]
    assert lib.scope_count(Scope(ids=())) == 0 and lib.scope_ids(Scope(ids=())) == []
    big = tuple(reversed(ids))
    assert lib.scope_ids(Scope(ids=big)) == list(big) and lib.scope_count(Scope(ids=big)) == 225
    with pytest.raises(UnknownPaper):
        lib.scope_ids(Scope(ids=(ids[0], 10**6)))
    with pytest.raises(UnknownPaper):
        lib.scope_count(Scope(ids=(10**6,)))


def test_unknown_filter_raises(lib):
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        lib.scope_ids(Scope(filter="nope"))
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        lib.scope_count(Scope(filter="nope"))
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        lib.scope_count(Scope(), also="nope")


def test_unread_count_within_a_scope(lib):
    ids = lib.paper_ids()
    lib.set_read(ids[:3], True)
    tag = lib.tag_by_name("to read").id
    unread = set(lib.paper_ids(filter="unread"))
    expected = len([i for i in ids[:12] if i in unread])
    assert lib.scope_count(Scope(tag_id=tag), also="unread") == expected
    assert lib.scope_count(Scope(filter="starred"), also="unread") == len(
        set(lib.paper_ids(filter="starred")) & unread)
    assert lib.scope_count(Scope(), also="unread") == lib.filter_counts()["unread"]


def test_export_scope_uses_the_same_ids(lib):
    assert lib.export_scope(everything=True) == lib.scope_ids(Scope())
    assert lib.export_scope(tag="TO READ") == lib.scope_ids(
        Scope(tag_id=lib.tag_by_name("to read").id))
    assert lib.export_scope(saved="diffusion papers") == lib.scope_ids(
        Scope(saved="diffusion papers"))
    assert lib.export_scope(ids=[3, 1]) == [3, 1]


def test_an_empty_library_has_empty_scopes(empty_library):
    for scope in (Scope(), Scope(filter="unread"), Scope(query="anything"), Scope(ids=())):
        assert empty_library.scope_ids(scope) == []
        assert empty_library.scope_count(scope) == 0
