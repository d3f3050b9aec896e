"""Screening for a tag (issue 26, item 4): yes tags a paper, no excludes it (schema 12's
``screening_decisions``), each one undo step; the next paper is the top of the order
over the undecided pool; the counts and the stopping estimate follow the decisions in
the order they were made. On the seed library (225 real abstracts)."""

from __future__ import annotations

import sqlite3
import sys

import numpy as np
import pytest

from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError, UnknownPaper
from paperdesk.core.scope import Scope
from paperdesk.core.screening import stopping


def _rows(lib) -> list[tuple]:
    return sorted(lib.db.execute(
        "SELECT tag_id, paper_id, excluded, seq FROM screening_decisions").fetchall())


def _tagged(lib, name) -> set[int]:
    tag = lib.tags.by_name(name)
    return set(lib.papers.scope_ids(Scope(tag_id=tag.id))) if tag else set()


def _matching(lib, query, n) -> list[int]:
    return [h.id for h in lib.search.find(query, limit=n).hits]


def test_yes_tags_no_excludes_each_one_undo_step(seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    a, b = lib.papers.ids()[:2]
    lib.screening.include("review", a)
    assert lib.undo_label == "Include in ‘review’"
    lib.screening.exclude("review", b)
    assert lib.undo_label == "Exclude from ‘review’"
    tag = lib.tags.by_name("review")
    assert _tagged(lib, "review") == {a}
    assert lib.screening.excluded_ids(tag.id) == {b}
    decided = lib.screening.decided(tag.id)
    assert decided.order == ((a, True), (b, False))
    # undo the no: b undecided again; undo the yes: a untagged, no rows left
    lib.undo()
    assert lib.screening.excluded_ids(tag.id) == set() and _tagged(lib, "review") == {a}
    lib.undo()
    assert _tagged(lib, "review") == set() and _rows(lib) == []
    # redo both: the very rows (same sequence numbers) come back
    lib.redo()
    lib.redo()
    assert lib.screening.decided(tag.id) == decided


def test_no_on_a_tagged_paper_untags_it_and_yes_ends_an_exclusion(seeded_library):
    lib = seeded_library
    p = lib.papers.ids()[5]
    lib.tags.add([p], "review")
    tag = lib.tags.by_name("review")
    lib.screening.exclude("review", p)
    assert _tagged(lib, "review") == set() and lib.screening.excluded_ids(tag.id) == {p}
    lib.screening.include("review", p)
    assert _tagged(lib, "review") == {p} and lib.screening.excluded_ids(tag.id) == set()
    assert not lib.screening.include("review", p)     # included already: no step
    lib.undo()
    assert lib.screening.excluded_ids(tag.id) == {p}


def test_already_tagged_papers_count_as_relevant_first_in_the_order(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()
    lib.tags.add(ids[10:13], "review")           # tagged before any screening
    tag = lib.tags.by_name("review")
    lib.screening.exclude("review", ids[0])
    lib.screening.include("review", ids[1])
    order = lib.screening.decided(tag.id).order
    assert order == ((ids[10], True), (ids[11], True), (ids[12], True),
                     (ids[0], False), (ids[1], True))


def test_untagging_or_undeciding_makes_a_paper_undecided_and_undo_brings_it_back(
        seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    tag = lib.tags.by_name("review")
    a, b = lib.papers.ids()[:2]
    lib.screening.include("review", a)
    lib.screening.exclude("review", b)
    before = _rows(lib)
    lib.tags.remove([a], "review")                  # by hand, as the tag pane does
    assert lib.screening.decided(tag.id).order == ((b, False),)
    assert [r for r in _rows(lib) if r[1] == a] == []
    lib.undo()
    assert _rows(lib) == before and _tagged(lib, "review") == {a}
    lib.screening.undecide("review", b)
    assert lib.undo_label == "Undecide ‘review’"
    assert lib.screening.excluded_ids(tag.id) == set()
    lib.undo()
    assert _rows(lib) == before
    # removing the tag from an excluded paper (it does not carry it) changes nothing
    assert not lib.tags.remove([b], "review")
    assert lib.screening.excluded_ids(tag.id) == {b}


def test_deleting_the_tag_deletes_its_decisions_and_undo_restores_them(seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    lib.tags.create("other")
    ids = lib.papers.ids()
    for p in ids[:3]:
        lib.screening.exclude("review", p)
    lib.screening.include("review", ids[3])
    lib.screening.exclude("other", ids[0])
    before = _rows(lib)
    tag = lib.tags.by_name("review")
    lib.tags.delete(tag.id)
    assert {r[0] for r in _rows(lib)} == {lib.tags.by_name("other").id}
    lib.undo()
    assert _rows(lib) == before
    lib.redo()
    assert len(_rows(lib)) == 1


def test_deleting_a_paper_deletes_its_decisions_and_undo_restores_them(seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    a, b = lib.papers.ids()[:2]
    lib.screening.exclude("review", a)
    lib.screening.include("review", b)
    before = _rows(lib)
    lib.removal.delete_papers([a])
    assert [r[1] for r in _rows(lib)] == [b]
    lib.undo()
    assert _rows(lib) == before


def test_bad_input_is_one_line(seeded_library):
    lib = seeded_library
    with pytest.raises(LibraryError, match="no tag named 'nosuch'"):
        lib.screening.exclude("nosuch", 1)
    lib.tags.create("review")
    with pytest.raises(UnknownPaper):
        lib.screening.include("review", 10**6)
    with pytest.raises(LibraryError, match="nothing to screen: no papers match"):
        lib.screening.pool("review", Scope(query="zzzqqqxxx"))


def test_the_next_paper_follows_the_decisions(seeded_library):
    """Five papers about depth said yes and five about language models said no: the
    next paper is about depth too, and never one already decided or skipped."""
    lib = seeded_library
    lib.tags.create("depth")
    depth = _matching(lib, "depth", 30)
    language = [p for p in _matching(lib, "language model", 30) if p not in depth]
    for p in depth[:5]:
        lib.screening.include("depth", p)
    for p in language[:5]:
        lib.screening.exclude("depth", p)
    pool = lib.screening.pool("depth")
    assert len(pool.ids) == 225
    st = lib.screening.standing(pool)
    assert (st.included, st.excluded, st.left) == (5, 5, 215)
    assert st.counts_text() == "5 included · 5 excluded · 215 left"
    assert st.next_id not in depth[:5] + language[:5]
    assert "depth" in lib.papers.get(st.next_id).abstract.lower()
    # skipping passes the paper over; it stays undecided
    skipped = lib.screening.standing(pool, skipped=[st.next_id])
    assert skipped.next_id != st.next_id and skipped.left == st.left
    # ten more yes on what comes next: each one was the top of a fresh order
    for _ in range(10):
        nxt = lib.screening.standing(pool).next_id
        lib.screening.include("depth", nxt)
    assert lib.screening.standing(pool).included == 15


def test_the_estimate_gets_the_decisions_in_order(seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    ids = lib.papers.ids()
    decisions = [True, False, False, True, False, False, False]
    for p, yes in zip(ids[20:], decisions):
        (lib.screening.include if yes else lib.screening.exclude)("review", p)
    pool = lib.screening.pool("review")
    st = lib.screening.standing(pool)
    assert st.estimate == stopping.estimate(decisions, 225)
    # the point estimate, then the 95 % bound, as stopping.estimate computes them
    # (2 of 7 read were relevant, 218 unread: some 60, far fewer than the bound)
    assert st.estimate_text() == (f"About 2 of an estimated "
                                  f"{st.estimate.estimated_relevant} relevant found "
                                  f"(at most {st.estimate.relevant_upper_bound})")
    assert 2 < st.estimate.estimated_relevant < st.estimate.relevant_upper_bound


def test_the_estimate_says_to_keep_going_when_all_seem_found_but_not_surely():
    """"About 4 of an estimated 4" beside no "you may stop" puzzled a tester: the text
    now says why to go on."""
    from paperdesk.core.screening.session import estimate_text

    surely = stopping.estimate([True] * 4 + [False] * 120, 225)
    assert surely.estimated_relevant == 4 and not surely.reached
    assert estimate_text(surely) == (f"About 4 of an estimated 4 relevant found (at most "
                                     f"{surely.relevant_upper_bound}); keep screening to "
                                     "be sure")
    early = stopping.estimate([True] * 4 + [False] * 10, 225)
    assert early.estimated_relevant > 4 and estimate_text(early).endswith(
        f"(at most {early.relevant_upper_bound})")


def test_the_estimate_says_when_to_stop(seeded_library):
    """Every paper decided but a few: the estimate is reached and the text says so."""
    lib = seeded_library
    lib.tags.create("review")
    pool = lib.screening.pool("review", Scope(query="depth"))
    ids = pool.ids.tolist()
    # the relevant ones first, as a good order would find them, then many noes
    for p in ids[:4]:
        lib.screening.include("review", p)
    for p in ids[4:-3]:
        lib.screening.exclude("review", p)
    st = lib.screening.standing(pool)
    assert st.estimate.reached and st.left == 3
    assert st.estimate_text() == ("95 % of the relevant papers are probably found: you "
                                  "may stop (3 unread)")


def test_a_search_pool_keeps_the_papers_already_decided(seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    outside = [p for p in lib.papers.ids() if p not in set(_matching(lib, "depth", 500))]
    lib.screening.exclude("review", outside[0])
    pool = lib.screening.pool("review", Scope(query="depth"))
    hits = set(_matching(lib, "depth", 500))
    assert set(pool.ids.tolist()) == hits | {outside[0]}
    assert lib.screening.standing(pool).excluded == 1


def test_the_features_are_cached_by_ids_and_content(seeded_library):
    lib = seeded_library
    lib.tags.create("review")
    first = lib.screening.pool("review")
    again = lib.screening.pool("review")
    assert not first.cached and again.cached
    assert (again.matrix != first.matrix).nnz == 0
    assert len(list((lib.path / "screening").glob("features-*.npz"))) == 1
    lib.papers.set_title(lib.papers.ids()[0], "A title of my own about wombats")
    assert not lib.screening.pool("review").cached      # a title changed: built again


def test_the_vectors_are_cached_with_the_features_and_left_out_without_the_extra(
        seeded_library, monkeypatch):
    lib = seeded_library
    lib.tags.create("review")
    first = lib.screening.pool("review")
    if first.vectors is None:
        pytest.skip("the embeddings extra is not installed")
    assert first.vectors.shape == (len(first.ids), 256)
    again = lib.screening.pool("review")
    assert again.cached and np.array_equal(again.vectors, first.vectors)
    # as if wordllama were not installed: the words alone, cached apart (a later
    # install of the extra builds the vectors instead of reading a cache without them)
    monkeypatch.setitem(sys.modules, "wordllama", None)
    alone = lib.screening.pool("review")
    assert alone.vectors is None and not alone.cached
    assert lib.screening.pool("review").cached
    names = sorted(p.name for p in (lib.path / "screening").glob("features-*.npz"))
    assert {n.endswith("-words.npz") for n in names} == {True, False}
    ranked = lib.screening.standing(alone).ranked
    assert sorted(ranked) == sorted(alone.ids.tolist())


def test_schema_12_adds_the_table_to_an_older_library(tmp_path, seed_files):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        lib.imports.run(seed_files[:1])
    con = sqlite3.connect(path / "library.db")
    con.execute("DROP TABLE screening_decisions")
    con.execute("PRAGMA user_version = 11")
    con.commit()
    con.close()
    with Library.open(path) as lib:
        from paperdesk.core.store.schema import SCHEMA_VERSION

        assert lib.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 12
        lib.tags.create("review")
        lib.screening.exclude("review", lib.papers.ids()[0])
        assert len(_rows(lib)) == 1


def test_decisions_survive_salvage_and_come_back_from_a_backup(seeded_library, capsys):
    """Pages of the papers table overwritten: ``repair --salvage`` keeps every decision
    whose paper came back, and ``--merge-backup`` brings back the rest."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))      # benchmarks.*
    from benchmarks.salvage_bench import damage, has_dbstat
    from paperdesk.cli import main

    if not has_dbstat():
        pytest.skip("this SQLite has no dbstat table to find the papers' pages")
    lib = seeded_library
    lib.tags.create("review")
    ids = lib.papers.ids()
    for p in ids[::3]:
        lib.screening.exclude("review", p)
    for p in ids[1::3]:
        lib.screening.include("review", p)
    before = set(_rows(lib))
    folder = lib.path
    lib.close()
    assert main(["--library", str(folder), "backup"]) == 0
    damage(folder, "overwrite")
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out = capsys.readouterr().out
    con = sqlite3.connect(folder / "library.db")
    papers = {r[0] for r in con.execute("SELECT id FROM papers")}
    salvaged = set(con.execute("SELECT tag_id, paper_id, excluded, seq FROM "
                               "screening_decisions").fetchall())
    con.close()
    assert len(papers) < 225
    assert salvaged == {r for r in before if r[1] in papers}
    backup = out.split("paperdesk repair --merge-backup ")[1].split()[0]
    assert main(["--library", str(folder), "repair", "--merge-backup", backup]) == 0
    with Library.open(folder) as again:
        tag = again.tags.by_name("review")
        decided = again.screening.decided(tag.id)
        assert (len(decided.included), len(decided.excluded)) == (
            len(ids[1::3]), len(ids[::3]))
