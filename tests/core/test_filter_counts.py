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
