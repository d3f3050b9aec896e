"""Deleting papers and removing an imported file (issue 11, "taking things out again"):
one transaction and one undo step each, exact restoration, the index kept in step."""

from __future__ import annotations

import pytest

from helpers import write_daily
from paperdesk.core.library import Library
from paperdesk.core.models import Author, LibraryError, Metadata, UnknownPaper


def _dump(lib) -> dict:
    """Every row of every table (the index queue and the identifier-writes counter
    aside: both follow the writes, not what the library holds), sorted."""
    tables = [r[0] for r in lib.db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name NOT IN ('index_queue', 'identifier_writes')")]
    return {t: sorted(lib.db.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)
            for t in tables}


def _annotated(lib):
    """Three seed papers carrying everything a paper can carry; the first also comes from
    both seed files. Returns their ids."""
    shared = lib.db.execute(
        "SELECT paper_id FROM paper_sources GROUP BY paper_id "
        "HAVING count(DISTINCT source_id) = 2 ORDER BY paper_id").fetchone()[0]
    others = [p for p in lib.papers.ids() if p != shared][:2]
    ids = [shared, *others]
    lib.tags.add(ids, "zebrafish")
    lib.tags.add(ids[:2], "Ärger")
    lib.tags.add(lib.papers.ids()[-1:], "zebrafish")          # a tag that keeps a paper
    lib.notes.set(ids[0], "a note about quokkas\n\n- with a list")
    lib.notes.add_highlight(ids[1], 0, 10, "#a5d8ff", comment="pangolin comment")
    lib.notes.add_highlight(ids[1], 5, 20)
    lib.papers.set_read(ids[:2], True)
    lib.papers.set_starred(ids[1:], True)
    lib.papers.set_title(ids[2], "My own wombat title")
    lib.papers.set_metadata(ids[0], Metadata(authors=(Author("Muñoz", "José"),), date="2021-03",
                                      venue="NeurIPS", doi="10.1000/xyz-1",
                                      arxiv_id="2101.00001"))
    lib.papers.set_citation_key(ids[1], "my:own-key")
    lib.undo_stack.clear()
    return ids


QUERIES = ["quokkas", "pangolin", "wombat", "tag:zebrafish", "Muñoz", "network"]


def _searches(lib) -> dict:
    """Each query's hits in id order, and its total. (Not the scores: Whoosh counts a
    deleted document in its BM25 statistics until segments merge, as after any edit.)"""
    out = {}
    for q in QUERIES:
        found = lib.search.find(q, limit=None)
        out[q] = (sorted(h.id for h in found.hits), found.total)
    return out


def test_delete_undo_redo_round_trip_restores_every_paper_exactly(seeded_library):
    lib = seeded_library
    ids = _annotated(lib)
    papers = {p: lib.papers.get(p) for p in ids}
    dump, searches, stats = _dump(lib), _searches(lib), lib.papers.stats()
    tags = {t.name: t.count for t in lib.tags.all()}

    changes = lib.removal.delete_papers(ids)
    assert changes.papers == set(ids) and changes.sources and changes.search
    assert changes.notes == {ids[0]} and changes.highlights == {ids[1]}
    assert changes.tags == {t.id for t in lib.tags.all()}
    assert lib.undo_label == "Delete 3 papers" and len(lib.undo_stack) == 1
    for p in ids:
        with pytest.raises(UnknownPaper):
            lib.papers.get(p)
    after = lib.papers.stats()
    assert after["papers"] == after["indexed"] == 222 and after["pending_index"] == 0
    assert (after["notes"], after["highlights"]) == (0, 0)
    assert {t.name: t.count for t in lib.tags.all()} == {"zebrafish": 1, "Ärger": 0}
    assert sum(s.papers for s in lib.removal.sources()) == 240 - 4   # the shared paper twice
    for q in ("quokkas", "pangolin", "wombat", "Muñoz"):
        assert lib.search.find(q).total == 0, q
    assert lib.search.find("tag:zebrafish").total == 1
    assert not set(ids) & {h.id for h in lib.search.find("network", limit=None).hits}

    undone = lib.undo()
    assert undone.replay and undone.papers == set(ids)
    assert {p: lib.papers.get(p) for p in ids} == papers
    assert _dump(lib) == dump and _searches(lib) == searches and lib.papers.stats() == stats
    assert {t.name: t.count for t in lib.tags.all()} == tags
    assert lib.redo_label == "Delete 3 papers"

    lib.redo()
    assert lib.papers.count() == 222 and lib.search.find("quokkas").total == 0
    lib.undo()
    assert _dump(lib) == dump and _searches(lib) == searches


def test_one_paper_label_and_duplicate_ids(seeded_library):
    lib = seeded_library
    p = lib.papers.ids()[0]
    changes = lib.removal.delete_papers([p, p, p])
    assert changes.papers == {p} and lib.undo_label == "Delete paper"
    assert lib.papers.count() == 224


def test_unknown_id_is_named_and_nothing_changes(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()[:2]
    dump = _dump(lib)
    for bad in (987654, 2**70, -1):
        with pytest.raises(UnknownPaper) as caught:
            lib.removal.delete_papers([*ids, bad])
        assert str(caught.value) == f"no paper with id {bad}"
    assert _dump(lib) == dump and len(lib.undo_stack) == 0
    assert lib.papers.stats()["pending_index"] == 0


def test_nothing_to_delete_is_no_step(seeded_library):
    lib = seeded_library
    assert not lib.removal.delete_papers([])
    assert len(lib.undo_stack) == 0


def test_deleted_papers_leave_the_index_even_when_it_is_synced_later(seeded_library):
    lib = seeded_library
    ids = _annotated(lib)
    lib.auto_sync_index = False
    stale = []
    lib.on_index_stale = lambda: stale.append(1)
    lib.removal.delete_papers(ids)
    assert stale and lib.papers.stats()["pending_index"] == 3
    # Not yet applied: the hits of deleted papers are dropped, not shown.
    assert lib.search.find("quokkas").hits == []
    lib.undo()                                  # back before the index ever saw it
    lib.index.sync()
    assert [h.id for h in lib.search.find("quokkas").hits] == [ids[0]]
    assert lib.index.whoosh.doc_count() == 225
    lib.redo()
    lib.index.sync()
    assert lib.search.find("quokkas").total == 0 and lib.index.whoosh.doc_count() == 222


def test_a_new_paper_given_a_deleted_papers_id_replaces_it_in_the_index(seeded_library,
                                                                        tmp_path):
    """SQLite gives the highest id again once its paper is deleted; if the deletion is
    not yet indexed, the new paper must replace the old document, not sit beside it."""
    lib = seeded_library
    last = max(lib.papers.ids())
    lib.notes.set(last, "capybara")
    lib.auto_sync_index = False
    lib.removal.delete_papers([last])
    report = lib.imports.run([write_daily(tmp_path / "new.txt", [
        "We measure how quickly okapis learn to open latches in a zoo enclosure, and "
        "find that they learn faster in pairs."])], sync=False)
    assert report.added_ids == [last]           # the freed id, while still indexed
    lib.index.sync()
    assert lib.index.whoosh.doc_count() == lib.papers.count() == 225
    assert [h.id for h in lib.search.find("okapis").hits] == [last]
    assert lib.search.find("capybara").total == 0
    with pytest.raises(LibraryError, match=f"cannot put back paper {last} "):
        lib.undo()


def test_counts_are_consistent_after_reopening(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()[10:20]
    lib.tags.add(ids, "gone")
    links = sum(len(_sources_of(lib, p)) for p in ids)
    lib.removal.delete_papers(ids)
    path = lib.path
    lib.close()
    with Library.open(path) as again:
        s = again.papers.stats()
        assert s["papers"] == s["indexed"] == 215 and s["pending_index"] == 0
        assert s["unread"] == 215 and s["sources"] == 2
        assert again.tags.all()[0].count == 0
        assert sum(x.papers for x in again.removal.sources()) == 240 - links
        assert again.papers.filter_counts()["all"] == 215
        assert again.index.whoosh.indexed_ids() == set(again.papers.ids())


def _sources_of(lib, pid):
    return [r[0] for r in lib.db.execute(
        "SELECT source_id FROM paper_sources WHERE paper_id = ?", [pid])]


def test_a_crash_before_the_index_caught_up_is_repaired_on_open(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()[:5]
    lib.auto_sync_index = False
    lib.removal.delete_papers(ids)                      # committed, index not yet told
    path = lib.path
    lib.close()
    with Library.open(path) as again:
        assert again.index.whoosh.doc_count() == again.papers.count() == 220
        assert not set(ids) & again.index.whoosh.indexed_ids()


def test_remove_file_keeps_papers_that_another_file_also_brought(seeded_library, seed_files):
    lib = seeded_library
    ids = _annotated(lib)                       # ids[0] is in both files
    first, second = lib.removal.sources()
    plan = lib.removal.plan(first.id)
    shared = set(plan.kept)
    assert len(plan.deleted) == 105 and len(shared) == 15 and ids[0] in shared
    assert set(plan.deleted) | shared == set(lib.papers.ids(source_id=first.id))
    gone = [p for p in ids if p in plan.deleted]
    dump, searches, stats = _dump(lib), _searches(lib), lib.papers.stats()
    papers = {p: lib.papers.get(p) for p in lib.papers.ids()}

    changes = lib.removal.remove_source(first.id)
    assert lib.undo_label == f"Remove file ‘{first.name}’"
    assert changes.sources and set(plan.deleted) | shared == changes.papers
    assert [s.id for s in lib.removal.sources()] == [second.id]
    assert lib.papers.count() == 120 == lib.papers.stats()["indexed"]
    kept = lib.papers.get(ids[0])
    assert [r.source_id for r in kept.sources] == [second.id]
    assert kept.note == papers[ids[0]].note and kept.metadata == papers[ids[0]].metadata
    assert [t.name for t in kept.tags] == [t.name for t in papers[ids[0]].tags]
    for p in gone:
        with pytest.raises(UnknownPaper):
            lib.papers.get(p)
    assert lib.search.find("quokkas").total == 1        # the shared, annotated paper stays
    assert lib.db.execute("SELECT count(*) FROM paper_sources WHERE source_id = ?",
                          [first.id]).fetchone()[0] == 0
    with pytest.raises(LibraryError):
        lib.removal.source(first.id)

    lib.undo()
    assert _dump(lib) == dump and _searches(lib) == searches and lib.papers.stats() == stats
    assert {p: lib.papers.get(p) for p in lib.papers.ids()} == papers
    lib.redo()
    assert lib.papers.count() == 120
    lib.undo()
    assert _dump(lib) == dump


def test_removed_file_imported_again_comes_back_as_new_papers(seeded_library, seed_files):
    lib = seeded_library
    first = lib.removal.sources()[0]
    lib.removal.remove_source(first.id)
    report = lib.imports.run([seed_files[0]])
    assert report.added == 105 and lib.papers.count() == 225
    # Undo would put back the old papers, whose abstracts are now stored again.
    dump = _dump(lib)
    with pytest.raises(LibraryError) as caught:
        lib.undo()
    message = str(caught.value)
    assert "cannot put back" in message and "\n" not in message
    assert _dump(lib) == dump and lib.undo_label == f"Remove file ‘{first.name}’"


def test_undo_of_a_removal_refuses_when_another_file_took_the_record(seeded_library,
                                                                     tmp_path):
    lib = seeded_library
    last = lib.removal.sources()[-1]
    lib.removal.remove_source(last.id)
    other = write_daily(tmp_path / "other.txt", [
        "A field study of how herons choose fishing spots along a river, with a simple "
        "model of their choices."])
    lib.imports.run([other])
    assert lib.removal.sources()[-1].id == last.id          # SQLite gave the freed id again
    dump = _dump(lib)
    with pytest.raises(LibraryError) as caught:
        lib.undo()
    assert str(caught.value) == (f"cannot put back the imported file {last.path}: its "
                                 f"record now belongs to {other}")
    assert _dump(lib) == dump


def test_undo_of_a_delete_refuses_a_paper_imported_again(seeded_library, tmp_path):
    lib = seeded_library
    text = lib.papers.get(lib.papers.ids()[0]).abstract
    p = lib.papers.ids()[0]
    lib.removal.delete_papers([p])
    again = write_daily(tmp_path / "again.txt", [text])
    assert lib.imports.run([again]).added == 1
    dump = _dump(lib)
    with pytest.raises(LibraryError, match=f"cannot put back paper {p} "):
        lib.undo()
    assert _dump(lib) == dump and lib.undo_label == "Delete paper"


def test_unknown_file(seeded_library):
    lib = seeded_library
    for bad in (99, "abc", None):
        with pytest.raises(LibraryError, match="no imported file with id"):
            lib.removal.remove_source(bad)
    assert len(lib.undo_stack) == 0


def test_find_source_by_id_path_relative_path_and_name(seeded_library, seed_files,
                                                        monkeypatch, tmp_path):
    lib = seeded_library
    first, second = lib.removal.sources()
    assert lib.removal.find_source(str(first.id)) == first
    assert lib.removal.find_source(first.path) == first
    assert lib.removal.find_source(second.name) == second
    monkeypatch.chdir(seed_files[0].parent)
    assert lib.removal.find_source(seed_files[0].name) == first
    assert lib.removal.find_source(f"./{seed_files[1].name}") == second
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    abstract = ("We study how small convolutional networks learn edge detectors from "
                "natural images, and show that the filters converge quickly.")
    for d in ("a", "b"):
        write_daily(tmp_path / d / "same.txt", [abstract])
    lib.imports.run([tmp_path / "a" / "same.txt", tmp_path / "b" / "same.txt"])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(LibraryError, match=r"same.txt: 2 imported files have that name"):
        lib.removal.find_source("same.txt")
    assert lib.removal.find_source("b/same.txt").path == str(tmp_path / "b" / "same.txt")
    with pytest.raises(LibraryError, match="no imported file with that id, path or name"):
        lib.removal.find_source("nowhere.txt")


def test_a_file_whose_every_paper_is_shared_deletes_no_paper(seeded_library, tmp_path):
    lib = seeded_library
    abstracts = [lib.papers.get(p).abstract for p in lib.papers.ids()[:3]]
    lib.imports.run([write_daily(tmp_path / "subset.txt", abstracts)])
    src = next(s for s in lib.removal.sources() if s.name == "subset.txt")
    plan = lib.removal.plan(src.id)
    assert plan.deleted == () and len(plan.kept) == 3
    counts = lib.removal.counts()
    assert counts == {s.id: len(lib.removal.plan(s.id).deleted) for s in lib.removal.sources()}
    assert counts[src.id] == 0 and sorted(counts.values()) == [0, 102, 105]
    lib.removal.remove_source(src.id)
    assert lib.papers.count() == 225 and len(lib.removal.sources()) == 2
    lib.undo()
    assert src in lib.removal.sources()


def test_an_empty_file_record_is_removed_too(empty_library, tmp_path):
    lib = empty_library
    lib.imports.run([write_daily(tmp_path / "one.txt", [
        "A short study of how transformers attend to rare words in long documents, "
        "with a benchmark."])])
    (src,) = lib.removal.sources()
    (p,) = lib.papers.ids()
    lib.removal.delete_papers([p])
    assert lib.removal.sources()[0].papers == 0
    assert lib.removal.plan(src.id).deleted == ()
    lib.removal.remove_source(src.id)
    assert lib.removal.sources() == [] and lib.undo_label == "Remove file ‘one.txt’"
    lib.undo()
    lib.undo()
    assert lib.papers.get(p).sources[0].source_id == src.id


def _abstract(n: int) -> str:
    return (f"We report experiment number {n} on graph sparsification, where sampled "
            f"edges number {n * 7} and the spectral error stays below {n % 13} percent. "
            "The method is simple and fast.")


def test_many_papers_in_one_step(empty_library, tmp_path):
    """More ids than one SQL list takes (chunks of 500)."""
    lib = empty_library
    lib.imports.run([write_daily(tmp_path / "many.txt", [_abstract(n) for n in range(1300)])])
    ids = lib.papers.ids()
    assert len(ids) == 1300
    lib.tags.add(ids[::2], "even")
    lib.undo_stack.clear()
    dump = _dump(lib)
    lib.removal.delete_papers(ids[:1250])
    assert lib.papers.count() == 50 and lib.undo_label == "Delete 1,250 papers"
    assert lib.papers.stats()["indexed"] == 50
    lib.undo()
    assert _dump(lib) == dump and lib.papers.stats()["indexed"] == 1300
    (src,) = lib.removal.sources()
    lib.removal.remove_source(src.id)
    assert lib.papers.count() == 0 and lib.papers.stats()["indexed"] == 0
    lib.undo()
    assert _dump(lib) == dump


def test_a_table_added_later_that_refers_to_papers_is_restored_too(seeded_library):
    """Tables are found in the schema, so a later schema version's table (here a made-up
    one with two references to papers, one of them without ON DELETE CASCADE) is deleted
    and restored with the papers."""
    lib = seeded_library
    a, b, c = lib.papers.ids()[:3]
    lib.db.execute("CREATE TABLE pairs (id INTEGER PRIMARY KEY, "
                   "left_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE, "
                   "right_id INTEGER NOT NULL REFERENCES papers(id))")   # no cascade
    lib.db.execute("INSERT INTO pairs (left_id, right_id) VALUES (?, ?), (?, ?)",
                   [a, b, b, c])
    dump = _dump(lib)
    lib.removal.delete_papers([b])
    assert lib.db.execute("SELECT count(*) FROM pairs").fetchone()[0] == 0
    lib.undo()
    assert _dump(lib) == dump


def test_foreign_keys_hold_after_every_step(seeded_library):
    lib = seeded_library
    _annotated(lib)
    lib.removal.delete_papers(lib.papers.ids()[:40])
    lib.removal.remove_source(lib.removal.sources()[1].id)
    assert lib.db.execute("PRAGMA foreign_key_check").fetchall() == []
    lib.undo()
    lib.undo()
    assert lib.db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert lib.papers.count() == 225
