"""The library overview (core/overview.py) and the query language's ``added:`` filter, on
the seed library: counts checked against independent SQL, weeks with made-up dates."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from paperdesk.core.overview import (MAX_WEEKS, TERMS_NOTE, WeekCount, added_query,
                                     overview)
from paperdesk.core.scope import Scope


def _set_added(lib, stamps: dict[int, str]) -> None:
    """Give papers made-up ``added_at`` values (a test's own edit of the table)."""
    with lib.db.conn:
        lib.db.conn.executemany("UPDATE papers SET added_at = ? WHERE id = ?",
                                [(v, k) for k, v in stamps.items()])


@pytest.fixture
def utc(monkeypatch):
    """Local time is UTC for the test (SQLite's 'localtime' and Python's agree)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_counts_match_independent_sql(seeded_library, utc):
    lib = seeded_library
    ids = lib.papers.ids()
    lib.tags.create("depth", "#4e79a7")
    lib.tags.create("Zebra", "#e15759")
    lib.tags.create("unused", "#59a14f")
    tag = next(t for t in lib.tags.all() if t.name == "depth")
    lib.tags.add(ids[:30], "depth")
    lib.tags.add(ids[10:15], "Zebra")
    lib.papers.set_read(ids[:7], True)
    o = overview(lib, terms=False)
    assert o.papers == 225 == lib.papers.count()
    assert (o.read, o.unread) == (7, 218)
    per_file = dict(lib.db.execute(
        "SELECT source_id, count(DISTINCT paper_id) FROM paper_sources GROUP BY source_id"
    ).fetchall())
    assert {s.source_id: s.papers for s in o.sources} == per_file
    assert [s.name for s in o.sources] == [s.name for s in sorted(
        lib.removal.sources(), key=lambda s: (-s.papers, s.name))]
    assert sum(s.papers for s in o.sources) >= o.papers
    assert [(t.name, t.papers) for t in o.tags] == [("depth", 30), ("Zebra", 5),
                                                    ("unused", 0)]
    assert o.tags[0].colour == "#4e79a7" and o.tags[0].tag_id == tag.id
    assert o.terms is None and o.terms_note == ""
    # each count is what the list shows for that bar
    assert lib.papers.scope_count(Scope(tag_id=tag.id)) == 30
    for s in o.sources:
        assert lib.papers.scope_count(Scope(source_id=s.source_id)) == s.papers


def test_weeks_are_iso_weeks_with_empty_ones_between(seeded_library, utc):
    lib = seeded_library
    ids = lib.papers.ids()
    stamps = {}
    for pid in ids[:3]:
        stamps[pid] = "2026-11-23T00:00:00Z"        # Monday, week 48
    stamps[ids[3]] = "2026-11-29T23:59:59Z"         # Sunday, week 48
    stamps[ids[4]] = "2026-11-30T00:00:00Z"         # Monday, week 49
    for pid in ids[5:]:
        stamps[pid] = "2026-11-02T12:00:00Z"        # week 45
    _set_added(lib, stamps)
    o = overview(lib, terms=False)
    assert [(w.start.isoformat(), w.papers) for w in o.weeks] == [
        ("2026-11-02", 220), ("2026-11-09", 0), ("2026-11-16", 0), ("2026-11-23", 4),
        ("2026-11-30", 1)]
    assert o.weeks[3].label == "2026-W48" and o.weeks[3].end == dt.date(2026, 11, 29)
    assert o.earlier == 0 and o.undated == 0 and o.earlier_query == ""
    # a week's query lists exactly its papers
    assert o.weeks[3].query == "added:2026-11-23..2026-11-29"
    found = lib.search.find(o.weeks[3].query, limit=0)
    assert sorted(found.ids.tolist()) == sorted(ids[:4]) and found.message == ""
    assert lib.search.find(o.weeks[1].query, limit=0).total == 0
    for week in o.weeks:
        assert lib.papers.scope_count(Scope(query=week.query)) == week.papers


def test_weeks_older_than_a_year_are_summed(seeded_library, utc):
    lib = seeded_library
    ids = lib.papers.ids()
    start = dt.datetime(2024, 1, 3, 12, tzinfo=dt.timezone.utc)   # a Wednesday
    stamps = {pid: (start + dt.timedelta(weeks=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
              for n, pid in enumerate(ids[:100])}
    stamps.update({pid: "not a date" for pid in ids[100:102]})
    _set_added(lib, stamps)
    o = overview(lib, terms=False)
    assert len(o.weeks) == MAX_WEEKS
    shown = sum(w.papers for w in o.weeks)
    assert o.undated == 2
    assert shown + o.earlier + o.undated == 225
    # the other papers keep their import date (today): the last week is that one's
    last = dt.date.fromisoformat(lib.db.execute(
        "SELECT date(max(added_at), 'localtime') FROM papers "
        "WHERE added_at LIKE '20%'").fetchone()[0])
    assert o.weeks[-1].start == last - dt.timedelta(days=last.weekday())
    assert o.weeks[-1].papers == 123
    assert o.weeks[0].start == o.weeks[-1].start - dt.timedelta(weeks=MAX_WEEKS - 1)
    assert o.earlier_query == added_query(None, o.weeks[0].start - dt.timedelta(days=1))
    assert lib.search.find(o.earlier_query, limit=0).total == o.earlier
    assert all(isinstance(w, WeekCount) for w in o.weeks)


def test_weeks_follow_local_time(seeded_library, monkeypatch):
    """Sunday 20:00 UTC is Monday 01:30 in India: the paper is in the next week."""
    lib = seeded_library
    ids = lib.papers.ids()
    _set_added(lib, {pid: "2026-11-29T20:00:00Z" for pid in ids})
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        o = overview(lib, terms=False)
        assert [(w.start, w.papers) for w in o.weeks] == [(dt.date(2026, 11, 30), 225)]
        assert lib.search.find("added:2026-11-30", limit=0).total == 225
        assert lib.search.find("added:2026-11-29", limit=0).total == 0
    finally:
        monkeypatch.undo()
        time.tzset()


def test_empty_library(empty_library):
    o = overview(empty_library)
    assert (o.papers, o.read, o.unread, o.sources, o.tags, o.weeks, o.earlier) == (
        0, 0, 0, (), (), (), 0)
    assert o.terms in (None, ())


def test_terms_note_until_the_table_is_built(seeded_library):
    lib = seeded_library
    o = overview(lib)
    assert o.terms is None and o.terms_note == TERMS_NOTE
    lib.discover.ensure()
    o = overview(lib)
    assert o.terms_note == "" and 0 < len(o.terms) <= 15
    assert [(t.term, t.papers) for t in o.terms] == lib.discover.frequent_terms(limit=15)
    assert o.terms[0].papers >= o.terms[-1].papers


def test_added_query_forms(seeded_library, utc):
    lib = seeded_library
    ids = lib.papers.ids()
    _set_added(lib, {ids[0]: "2026-02-28T10:00:00Z", ids[1]: "2026-03-01T10:00:00Z",
                     **{pid: "2025-06-15T10:00:00Z" for pid in ids[2:]}})

    def hits(query):
        found = lib.search.find(query, limit=0)
        return found.total, found.message

    assert hits("added:2026-02-28") == (1, "")
    assert hits("added:2026-02") == (1, "")
    assert hits("added:2026") == (2, "")
    assert hits("added:2026-03-01..") == (1, "")
    assert hits("added:..2025-12-31") == (223, "")
    assert hits("added:2026-03-01..2026-02-01") == (2, "")     # reversed: swapped
    assert hits("added:2026 added:2026-03") == (1, "")          # both must hold
    assert hits("ADDED:2026-2-28") == (1, "")
    # with words, a tag scope and flags
    word = lib.papers.get(ids[0]).title.split()[0]
    assert lib.search.find(f"{word} added:2026-02-28", limit=0).ids.tolist() == [ids[0]]
    lib.papers.set_read([ids[1]], True)
    assert lib.search.find("added:2026 is:read", limit=0).ids.tolist() == [ids[1]]
    assert lib.papers.scope_count(Scope(query="added:2026", filter="unread")) == 1
    # nonsense is explained, never an error
    for bad in ("added:2026-02-30", "added:yesterday", "added:", "added:2026-13",
                "added:....", "added:20261"):
        total, message = hits(bad)
        assert "ignored" in message and bad.split(":")[0] in message, bad
    # a file and a selection narrow a date-only query too (answered from the masks)
    source = next(s.id for s in lib.removal.sources()
                  if lib.db.execute("SELECT 1 FROM paper_sources WHERE paper_id = ? AND "
                                    "source_id = ?", [ids[0], s.id]).fetchone())
    assert ids[0] in lib.search.find("added:2026", limit=0, source_id=source).ids.tolist()
    assert lib.search.find("added:2026", limit=0, within={ids[1], ids[5]}).ids.tolist() == [ids[1]]
    assert lib.search.find("added:2026", limit=0, within=set()).total == 0
    total, message = hits("-added:2026")
    assert "cannot be left out" in message     # (nothing else to search: no hits)
    assert added_query(dt.date(2026, 1, 5), dt.date(2026, 1, 5)) == "added:2026-01-05"
    with pytest.raises(ValueError):
        added_query(None, None)
