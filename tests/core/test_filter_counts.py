"""The sidebar's filter counts: right after every kind of change, and read from indexes
(not from the papers' rows, which hold the abstracts: at 100,000 papers a scan of them
took ~35-86 ms after every star or tag toggle)."""

from __future__ import annotations


def _brute(lib) -> dict[str, int]:
    q = lambda sql: lib.db.execute(sql).fetchone()[0]  # noqa: E731
    return {"all": q("SELECT count(*) FROM papers"),
            "unread": q("SELECT count(*) FROM papers WHERE read_at IS NULL"),
            "starred": q("SELECT count(*) FROM papers NOT INDEXED WHERE starred"),
            "untagged": q("SELECT count(*) FROM papers p WHERE NOT EXISTS "
                          "(SELECT 1 FROM paper_tags t WHERE t.paper_id = p.id)"),
            "has_note": q("SELECT count(*) FROM notes")}


def test_counts_follow_every_change(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()
    assert lib.papers.filter_counts() == _brute(lib)
    lib.papers.set_starred(ids[:4], True)
    lib.tags.add(ids[2:9], "depth")
    lib.tags.add(ids[5:12], "later")       # papers with two tags count once
    lib.notes.set(ids[0], "read this")
    lib.papers.set_read(ids[:20], True)
    counts = lib.papers.filter_counts()
    assert counts == _brute(lib)
    assert counts["starred"] == 4 and counts["untagged"] == counts["all"] - 10
    lib.removal.delete_papers(ids[2:6])           # tagged, starred and read papers go
    assert lib.papers.filter_counts() == _brute(lib)
    lib.undo()
    assert lib.papers.filter_counts() == counts


def test_the_starred_count_reads_an_index_not_the_rows(seeded_library):
    plan = " ".join(str(r[-1]) for r in seeded_library.db.execute(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM papers WHERE starred").fetchall())
    assert "idx_papers_starred" in plan


def test_star_and_read_marks_say_how_they_moved_the_counts(seeded_library):
    """``Changes.filter_count_changes``: a star or read mark, its undo and its redo say
    by how much "Starred" and "Unread" moved (papers already so are not counted), so
    the window adds them instead of counting a million papers; every step's deltas,
    added up, give SQLite's own counts."""
    from paperdesk.core.changes import Changes

    lib = seeded_library
    ids = lib.papers.ids()
    shown = _brute(lib)

    def follow(change) -> dict:
        deltas = change.filter_count_changes()
        assert deltas is not None, change
        for name, n in deltas.items():
            shown[name] += n
        assert {k: shown[k] for k in deltas} == {k: _brute(lib)[k] for k in deltas}
        return deltas

    assert follow(lib.papers.set_starred(ids[:4], True)) == {"starred": 4}
    assert follow(lib.papers.set_starred(ids[2:7], True)) == {"starred": 3}
    assert follow(lib.papers.set_read(ids[:10], True)) == {"unread": -10}
    assert follow(lib.papers.set_read(ids[5:15], True)) == {"unread": -5}
    assert follow(lib.papers.set_read(ids[8:9], False)) == {"unread": 1}
    assert follow(lib.papers.set_starred(ids[:3], False)) == {"starred": -3}
    assert follow(lib.undo()) == {"starred": 3}
    assert follow(lib.undo()) == {"unread": -1}
    assert follow(lib.redo()) == {"unread": 1}
    assert follow(lib.redo()) == {"starred": -3}
    assert shown == _brute(lib)
    # anything else the change did makes the filters be counted again
    assert lib.tags.add(ids[:2], "x").filter_count_changes() is None
    assert lib.papers.set_title(ids[0], "A new title").filter_count_changes() is None
    both = Changes.of(filter_deltas={"starred": 2}) | Changes.of(filter_deltas={"starred": -1})
    assert both.filter_count_changes() == {"starred": 1}
    assert (both | Changes.of(papers=[1], fields=["starred"])).filter_count_changes() is None
    assert (both | Changes.of(papers=[1], fields=["read"])).filter_count_changes() is None
    assert (both | Changes.of(filter_deltas={"unread": 2})).filter_count_changes() == \
        {"starred": 1, "unread": 2}
