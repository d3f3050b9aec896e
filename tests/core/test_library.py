"""The Library on the real seeds: import, de-duplication, provenance, index, recovery."""

import shutil
import sqlite3

import pytest

from helpers import write_daily
from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError, UnknownPaper
from paperdesk.core.imports.daily_papers import read_file
from paperdesk.core.store.schema import SCHEMA_VERSION


def dump(lib: Library) -> list[str]:
    """Every row of every table, as SQL text, for before/after comparisons."""
    return list(lib.db.conn.iterdump())


def test_import_both_seeds(empty_library, seed_files):
    report = empty_library.imports.run(seed_files)
    assert report.added == 225
    assert report.duplicates == 15
    assert report.rejected == []
    assert [(f.added, f.duplicates) for f in report.files] == [(120, 0), (105, 15)]
    assert empty_library.papers.count() == 225
    stats = empty_library.papers.stats()
    assert stats["papers"] == stats["indexed"] == 225
    assert stats["pending_index"] == 0


def test_reimport_adds_nothing_and_changes_nothing(seeded_library, seed_files):
    before = dump(seeded_library)
    report = seeded_library.imports.run(seed_files)
    assert report.added == 0
    assert report.duplicates == 240
    assert dump(seeded_library) == before
    assert seeded_library.papers.stats()["indexed"] == 225


def test_each_paper_remembers_every_file_and_position(seeded_library, seed_files):
    first, second = (read_file(p) for p in seed_files)
    shared = {a.abstract for a in first.abstracts} & {a.abstract for a in second.abstracts}
    text = sorted(shared)[0]
    pos1 = next(a.position for a in first.abstracts if a.abstract == text)
    pos2 = next(a.position for a in second.abstracts if a.abstract == text)
    (pid,) = [r[0] for r in seeded_library.db.execute(
        "SELECT id FROM papers WHERE abstract = ?", [text])]
    paper = seeded_library.papers.get(pid)
    assert [(s.name, s.position) for s in paper.sources] == [
        (seed_files[0].name, pos1), (seed_files[1].name, pos2)]
    assert all(s.header == "Daily Papers" for s in paper.sources)
    assert [s.papers for s in seeded_library.removal.sources()] == [120, 120]


def test_get_fields_from_seed(seeded_library):
    paper = seeded_library.papers.get(seeded_library.papers.ids()[0])
    assert paper.title.startswith("The advancement in Large Language Models")
    assert paper.title.endswith("…")
    assert paper.mentioned.urls == ("https://github.com/SauravP97/Static-Deep-Research/",)
    assert not paper.read and not paper.starred
    with pytest.raises(UnknownPaper, match="no paper with id 99999"):
        seeded_library.papers.get(99999)


def test_arxiv_id_from_seed(seeded_library):
    hits = seeded_library.search.hits('"characterised in"', limit=5)
    assert hits, "the abstract citing arXiv:2212.08630 should be found"
    assert "2212.08630" in seeded_library.papers.get(hits[0].id).mentioned.arxiv_ids


def test_phrase_in_exactly_one_abstract(seeded_library):
    hits = seeded_library.search.hits('"hierarchical Tree-based static workflow"')
    assert len(hits) == 1
    paper = seeded_library.papers.get(hits[0].id)
    assert "hierarchical Tree-based static workflow" in paper.abstract
    assert hits[0].title == paper.title
    assert "hierarchical" in hits[0].snippet


def test_search_stems_and_ranks(seeded_library):
    hits = seeded_library.search.hits("hyperparameter transfer", limit=None)
    assert len(hits) >= 3
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    for h in hits:
        abstract = seeded_library.papers.get(h.id).abstract.lower()
        assert "hyperparameter" in abstract and "transfer" in abstract
    # spans point at matched words in the snippet
    start, end = hits[0].snippet_spans[0]
    assert hits[0].snippet[start:end].lower().startswith(("hyperparameter", "transfer"))


def test_greek_letters_are_searchable(seeded_library):
    hits = seeded_library.search.hits("μP", limit=None)
    assert hits
    assert all("μP" in seeded_library.papers.get(h.id).abstract for h in hits)


@pytest.mark.parametrize("query", ['"unbalanced', "(depth", "depth AND", "OR", "*", "title:",
                                   "", "   ", "x" * 20000, "C++", "AND OR NOT", ")("])
def test_broken_queries_never_raise(seeded_library, query):
    results = seeded_library.search.find(query)
    assert isinstance(results.hits, list)
    assert results.total >= len(results.hits)


def test_source_filter(seeded_library):
    source = seeded_library.removal.sources()[1]
    assert seeded_library.papers.count(source.id) == 120
    assert len(seeded_library.papers.ids(source_id=source.id)) == 120
    everywhere = seeded_library.search.find("depth", limit=None)
    here = seeded_library.search.find("depth", limit=None, source_id=source.id)
    assert 0 < here.total < everywhere.total
    in_source = set(seeded_library.papers.ids(source_id=source.id))
    assert {h.id for h in here.hits} <= in_source


def test_order_by_title(seeded_library):
    ids = seeded_library.papers.ids(order="title")
    titles = [seeded_library.papers.summaries([i])[i].title.lower() for i in ids]
    assert titles == sorted(titles)
    assert seeded_library.papers.ids(order="added", descending=True)[0] == max(ids)
    with pytest.raises(ValueError):
        seeded_library.papers.ids(order="colour")


def test_duplicate_within_one_file(empty_library, tmp_path):
    path = write_daily(tmp_path / "d.txt", ["Same abstract.", "Other one.", "Same  abstract."])
    report = empty_library.imports.run([path])
    assert (report.added, report.duplicates) == (2, 1)
    (pid,) = [h.id for h in empty_library.search.hits("same")]
    assert [s.position for s in empty_library.papers.get(pid).sources] == [1, 3]


def test_bad_file_rejected_and_library_untouched(seeded_library, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x00garbage")
    good = write_daily(tmp_path / "good.txt", ["A brand new abstract about zebrafish."])
    before_count = seeded_library.papers.count()
    report = seeded_library.imports.run([bad, tmp_path / "missing.txt", good])
    assert report.added == 1
    assert report.rejected == [
        {"path": str(bad), "reason": "not a text file (it contains NUL bytes)"},
        {"path": str(tmp_path / "missing.txt"), "reason": "no such file"},
    ]
    assert seeded_library.papers.count() == before_count + 1
    assert len(seeded_library.search.hits("zebrafish")) == 1


def test_cancel_keeps_the_batches_already_committed(empty_library, tmp_path, monkeypatch):
    # Issue 9: imports commit in short batches; cancelling stops after the current batch
    # and keeps what was committed (it used to roll back the whole file).
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 300)      # 500 abstracts: 2 batches
    path = write_daily(tmp_path / "big.txt", [f"Abstract number {i} about things." for i in range(500)])
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 1  # let the first check pass, stop at the next

    report = empty_library.imports.run([path], cancel=cancel)
    assert report.cancelled
    assert 0 < report.added < 500
    assert empty_library.papers.count() == report.added == len(report.added_ids)
    assert report.files[0].cancelled
    assert empty_library.db.execute("SELECT count(*) FROM sources").fetchone()[0] == 1
    assert empty_library.papers.stats()["indexed"] == 0


def test_progress_is_reported(empty_library, seed_files):
    seen = []
    empty_library.imports.run(seed_files, progress=lambda s, d, t: seen.append((s, d, t)))
    assert ("import", 240, 240) in seen
    assert seen[-1] == ("index", 225, 225)


def test_reindex_rebuilds_from_sqlite(seeded_library):
    assert seeded_library.index.reindex() == 225
    assert seeded_library.papers.stats()["indexed"] == 225
    assert len(seeded_library.search.hits('"hierarchical Tree-based static workflow"')) == 1


def test_deleted_index_is_rebuilt_on_open(seeded_library):
    path = seeded_library.path
    seeded_library.close()
    shutil.rmtree(path / "index")
    with Library.open(path) as lib:
        assert lib.papers.stats()["indexed"] == 225
        assert len(lib.search.hits('"hierarchical Tree-based static workflow"')) == 1


def test_corrupt_index_is_rebuilt_on_open(seeded_library):
    path = seeded_library.path
    seeded_library.close()
    for f in (path / "index").iterdir():
        f.write_bytes(b"garbage")
    with Library.open(path) as lib:
        assert lib.papers.stats()["indexed"] == 225


def test_empty_index_toc_is_rebuilt_on_open(seeded_library):
    path = seeded_library.path
    seeded_library.close()
    for toc in (path / "index").glob("*.toc"):
        toc.write_bytes(b"")
    with Library.open(path) as lib:
        assert lib.papers.stats()["indexed"] == 225
        assert len(lib.search.hits('"hierarchical Tree-based static workflow"')) == 1


def test_index_path_that_is_a_file_is_replaced(seeded_library):
    path = seeded_library.path
    seeded_library.close()
    shutil.rmtree(path / "index")
    (path / "index").write_text("x")
    with Library.open(path) as lib:
        assert lib.papers.stats()["indexed"] == 225


def test_library_path_that_is_a_file(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    with pytest.raises(LibraryError, match="is not a folder"):
        Library.open(f)
    assert f.read_text() == "x"


def test_huge_and_negative_ids_are_unknown(seeded_library):
    for pid in (0, -1, 2**63, 10**30, -(2**70)):
        with pytest.raises(UnknownPaper):
            seeded_library.papers.get(pid)


def test_empty_folder_is_rejected(empty_library, tmp_path):
    (tmp_path / "nothing").mkdir()
    report = empty_library.imports.run([tmp_path / "nothing"])
    # Issue 25 added the Web of Science (.ciw) and PubMed/MEDLINE (.nbib) patterns.
    assert report.rejected == [{"path": str(tmp_path / "nothing"),
                                "reason": "folder holds no .txt, .bib, .ris, .ciw, .nbib, "
                                          ".json or .jsonl files"}]


def test_crash_between_commit_and_index_is_repaired(seeded_library):
    """Queue rows left by a run that died after Whoosh committed but before the queue
    was emptied must not produce duplicate documents."""
    path = seeded_library.path
    ids = seeded_library.papers.ids()[:10]
    seeded_library.db.conn.executemany(
        "INSERT INTO index_queue (paper_id, op) VALUES (?, 'add')", [(i,) for i in ids])
    seeded_library.close()
    with Library.open(path) as lib:
        assert lib.papers.stats()["pending_index"] == 0
        assert lib.papers.stats()["indexed"] == 225
        hits = lib.search.hits('"hierarchical Tree-based static workflow"')
        assert len(hits) == 1


def test_schema_version_recorded(seeded_library):
    version = seeded_library.db.execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION
    assert seeded_library.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_newer_schema_is_refused(seeded_library):
    path = seeded_library.path
    seeded_library.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    seeded_library.close()
    with pytest.raises(LibraryError, match="newer than this paperdesk"):
        Library.open(path)


def test_not_a_database(tmp_path):
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "library.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LibraryError, match="library.db"):
        Library.open(folder)
    assert (folder / "library.db").read_bytes() == b"this is not sqlite" * 100


def test_reading_from_another_thread(seeded_library):
    import threading

    out = {}

    def worker():
        out["n"] = len(seeded_library.search.hits("depth", limit=None))
        out["count"] = seeded_library.papers.count()

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert out["count"] == 225
    assert out["n"] == len(seeded_library.search.hits("depth", limit=None))


def test_sqlite_is_readable_by_plain_tools(seeded_library):
    con = sqlite3.connect(seeded_library.path / "library.db")
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"papers", "sources", "paper_sources", "index_queue"} <= tables
    assert con.execute("SELECT count(*) FROM papers").fetchone()[0] == 225
    con.close()


def test_first_unread_follows_the_order_given(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()
    lib.papers.set_read(ids[:300:2] + ids[1:3], True)
    assert lib.papers.first_unread(ids) == ids[3]
    assert lib.papers.first_unread(list(reversed(ids))) == ids[-2]     # 224 is even: read
    assert lib.papers.first_unread([ids[0], 10**9, ids[2]]) is None
    assert lib.papers.first_unread(ids[:1] + ids[5:]) == ids[5]


def test_huge_ids_are_unknown_to_discover_and_notes_on_the_command_line(seeded_library,
                                                                         capsys):
    """Ids beyond SQLite's INTEGER were a traceback (OverflowError) in related,
    suggest-tags, terms and note."""
    from paperdesk.cli import main
    folder = str(seeded_library.path)
    seeded_library.close()
    for pid in ("9223372036854775808", "99999999999999999999999"):
        for command in (["related", pid], ["suggest-tags", pid], ["terms", pid],
                        ["note", pid, "hi"]):
            assert main(["--library", folder, *command]) == 1, command
            err = capsys.readouterr().err
            # (the first discover command also says it builds the term table)
            assert "Traceback" not in err, (command, err)
            assert err.splitlines()[-1] == f"paperdesk: no paper with id {pid}", (command, err)
