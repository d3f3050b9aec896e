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
    ids = lib.papers.ids()
    lib.tags.add(ids[:12], "to read")
    for pid in ids[5:8]:
        lib.notes.set(pid, "a note")
    lib.papers.set_starred([ids[0], ids[30]], True)
    lib.papers.set_read([ids[1], ids[30]], True)
    lib.saved_searches.save("diffusion papers", "diffusion")
    return lib


def _scopes(lib) -> list[Scope]:
    ids = lib.papers.ids()
    tag = lib.tags.by_name("to read").id
    source = lib.removal.sources()[0].id
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
        ids = lib.papers.scope_ids(scope)
        assert len(ids) == len(set(ids)), scope
        assert lib.papers.scope_count(scope) == len(ids), scope


def test_all_filter_source_and_tag_agree_with_the_old_lists(lib):
    assert lib.papers.scope_ids(Scope()) == lib.papers.ids()
    assert lib.papers.scope_count(Scope()) == 225
    for name in FILTERS:
        assert lib.papers.scope_ids(Scope(filter=name)) == lib.papers.ids(filter=name)
    source = lib.removal.sources()[0]
    assert lib.papers.scope_count(Scope(source_id=source.id)) == lib.papers.count(source.id) == source.papers
    tag = lib.tags.by_name("to read")
    assert lib.papers.scope_ids(Scope(tag_id=tag.id)) == lib.papers.ids()[:12]
    assert lib.papers.scope_ids(Scope(tag_id=tag.id, filter="has_note")) == lib.papers.ids()[5:8]
    assert set(FILTER_LABELS) <= set(FILTERS)


def test_every_sort_choice_orders_a_scope(lib):
    tag = lib.tags.by_name("to read").id
    lib.discover.ensure()         # "interest" needs the term table
    for sort in SORT_CHOICES:
        ids = lib.papers.scope_ids(Scope(tag_id=tag), sort=sort)
        assert sorted(ids) == sorted(lib.papers.ids()[:12])
        if sort == "interest":
            assert ids == lib.discover.interest(lib.papers.ids(tag_id=tag)).ids
            assert lib.papers.scope_ids(Scope(tag_id=tag), sort=sort, descending=True) == ids[::-1]
        elif sort != "relevance":
            assert ids == lib.papers.ids(order=sort, tag_id=tag)
            assert lib.papers.scope_ids(Scope(tag_id=tag), sort=sort, descending=True) == ids[::-1]
    with pytest.raises(ValueError, match="unknown sort"):
        lib.papers.scope_ids(Scope(), sort="isbn")


def test_query_and_saved_search_scopes_are_search_results(lib):
    hits = [h.id for h in lib.search.find("diffusion", limit=None).hits]
    assert hits and lib.papers.scope_ids(Scope(query="diffusion")) == hits
    assert lib.papers.scope_ids(Scope(saved="DIFFUSION PAPERS")) == hits   # names: any case
    by_title = lib.papers.scope_ids(Scope(query="diffusion"), sort="title")
    assert by_title == [h.id for h in lib.search.find("diffusion", limit=None, sort="title").hits]
    assert lib.papers.scope_count(Scope(query="diffusion")) == len(hits)
    unread = set(lib.papers.ids(filter="unread"))
    assert lib.papers.scope_count(Scope(query="diffusion"), also="unread") == len(
        [i for i in hits if i in unread])
    with pytest.raises(LibraryError, match="no saved search"):
        lib.papers.scope_ids(Scope(saved="nope"))
    with pytest.raises(ValueError):
        lib.papers.scope_ids(Scope(query="a", saved="diffusion papers"))


def test_selection_scopes_keep_the_given_order_and_refuse_unknown_ids(lib):
    ids = lib.papers.ids()
    picked = (ids[9], ids[2], ids[2], ids[40])
    assert lib.papers.scope_ids(Scope(ids=picked)) == [ids[9], ids[2], ids[40]]
    assert lib.papers.scope_ids(Scope(ids=picked), sort="added") == [ids[2], ids[9], ids[40]]
    assert lib.papers.scope_ids(Scope(ids=picked, tag_id=lib.tags.by_name("to read").id)) == [
        ids[9], ids[2]]
    assert lib.papers.scope_count(Scope(ids=())) == 0 and lib.papers.scope_ids(Scope(ids=())) == []
    big = tuple(reversed(ids))
    assert lib.papers.scope_ids(Scope(ids=big)) == list(big) and lib.papers.scope_count(Scope(ids=big)) == 225
    with pytest.raises(UnknownPaper):
        lib.papers.scope_ids(Scope(ids=(ids[0], 10**6)))
    with pytest.raises(UnknownPaper):
        lib.papers.scope_count(Scope(ids=(10**6,)))


def test_unknown_filter_raises(lib):
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        lib.papers.scope_ids(Scope(filter="nope"))
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        lib.papers.scope_count(Scope(filter="nope"))
    with pytest.raises(ValueError, match="unknown filter 'nope'"):
        lib.papers.scope_count(Scope(), also="nope")


def test_unread_count_within_a_scope(lib):
    ids = lib.papers.ids()
    lib.papers.set_read(ids[:3], True)
    tag = lib.tags.by_name("to read").id
    unread = set(lib.papers.ids(filter="unread"))
    expected = len([i for i in ids[:12] if i in unread])
    assert lib.papers.scope_count(Scope(tag_id=tag), also="unread") == expected
    assert lib.papers.scope_count(Scope(filter="starred"), also="unread") == len(
        set(lib.papers.ids(filter="starred")) & unread)
    assert lib.papers.scope_count(Scope(), also="unread") == lib.papers.filter_counts()["unread"]


def test_export_scope_uses_the_same_ids(lib):
    assert lib.exports.scope_ids(everything=True) == lib.papers.scope_ids(Scope())
    assert lib.exports.scope_ids(tag="TO READ") == lib.papers.scope_ids(
        Scope(tag_id=lib.tags.by_name("to read").id))
    assert lib.exports.scope_ids(saved="diffusion papers") == lib.papers.scope_ids(
        Scope(saved="diffusion papers"))
    assert lib.exports.scope_ids(ids=[3, 1]) == [3, 1]


def test_an_empty_library_has_empty_scopes(empty_library):
    for scope in (Scope(), Scope(filter="unread"), Scope(query="anything"), Scope(ids=())):
        assert empty_library.papers.scope_ids(scope) == []
        assert empty_library.papers.scope_count(scope) == 0


def test_a_limit_gives_the_first_ids_of_every_kind_of_scope_in_list_order(lib):
    # the window lists a screenful first (scope_ids(limit=200)), then all of them
    for scope in _scopes(lib):
        for sort in (None, "title"):
            for descending in (False, True):
                whole = lib.papers.scope_ids(scope, sort=sort, descending=descending)
                for limit in (0, 1, 7, len(whole) + 5):
                    assert lib.papers.scope_ids(scope, sort=sort, descending=descending,
                                                limit=limit) == whole[:limit], \
                        (scope, sort, descending, limit)
    with pytest.raises(ValueError, match="limit"):
        lib.papers.scope_ids(Scope(), limit=-1)


def test_every_mask_holds_exactly_the_papers_sqlite_lists(lib):
    """Masks are read as one ``group_concat`` text parsed in slices (``id_array``): for
    every filter, the tag and every paper, the mask is the rows SQLite gives, however
    small the slices."""
    from paperdesk.core import scope as scope_module

    tag = lib.tags.by_name("to read").id
    cases = [Scope(), Scope(tag_id=tag), *(Scope(filter=name) for name in FILTERS),
             Scope(tag_id=tag, filter="unread")]
    expected = {case: set(lib.papers.scope_ids(case)) for case in cases}
    assert len(expected[Scope()]) >= 200 and 0 < len(expected[Scope(filter="has_note")]) < 5
    for chars in (scope_module.ID_CHARS_PER_PARSE, 1, 7):
        scope_module.ID_CHARS_PER_PARSE = chars
        try:
            lib.masks.clear()
            for case in cases:
                mask = lib.masks.mask(lib.db, case)
                assert set(int(i) for i in mask.nonzero()[0]) == expected[case], (chars, case)
        finally:
            scope_module.ID_CHARS_PER_PARSE = 1 << 19


def test_a_masks_ids_are_parsed_a_slice_at_a_time(lib, monkeypatch):
    """The parse holds the interpreter lock: it goes in slices of about
    ``ID_CHARS_PER_PARSE`` characters, never the whole list in one call."""
    import numpy as np

    from paperdesk.core import scope as scope_module

    sizes = []
    real = np.fromstring

    def parse(text, *args, **kwargs):
        sizes.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(scope_module.np, "fromstring", parse)
    monkeypatch.setattr(scope_module, "ID_CHARS_PER_PARSE", 64)
    ids = scope_module.id_array(lib.db, "SELECT id FROM papers")
    assert sorted(ids.tolist()) == sorted(lib.papers.ids())
    assert len(sizes) > 10 and max(sizes) <= 64 + 8, sizes
    assert scope_module.id_array(lib.db, "SELECT id FROM papers WHERE 0").tolist() == []


def test_a_listing_read_from_sqlite_keeps_the_sql_order_for_every_sort(lib, monkeypatch):
    """A scope listed from SQLite is read with ``group_concat`` over the ordered query
    (the interpreter lock is let go while SQLite joins the ids) and made into Python ints
    a slice at a time: the order is still ``ORDER BY``'s, for every sort and direction."""
    from paperdesk.core import scope as scope_module
    from paperdesk.core.fields import order_by

    monkeypatch.setattr(scope_module, "ID_LIST_CHUNK", 7)
    tag = lib.tags.by_name("to read").id
    for sort in SORT_CHOICES:
        if sort in ("relevance", "interest"):
            continue
        for descending in (False, True):
            by = order_by(sort, descending)
            expected = [r[0] for r in lib.db.execute(f"SELECT id FROM papers ORDER BY {by}")]
            assert lib.papers.scope_ids(Scope(), sort=sort, descending=descending) \
                == expected, (sort, descending)
            assert lib.papers.scope_ids(Scope(), sort=sort, descending=descending,
                                        limit=11) == expected[:11]
            tagged = lib.papers.scope_ids(Scope(tag_id=tag), sort=sort,
                                          descending=descending)
            assert tagged == [i for i in expected if i in set(lib.papers.ids()[:12])]
