"""Salvaging a damaged database (issue 23, item 2): ``paperdesk repair --salvage`` rebuilds
``library.db`` from every readable page and keeps the damaged file; ``--merge-backup``
adds what only a backup has.

The seed library (225 papers) with tags, notes and highlights is damaged the two ways a
tester did: cut short at 25, 50 and 75 % of its size, and pages overwritten with random
bytes (the papers table's root page, some of its leaves, page 1 with the header and the
schema). Which rows were on which pages is read, before the damage, from SQLite's own
``dbstat`` table (https://www.sqlite.org/dbstat.html): a table b-tree's leaves, in path
order, hold its rows in rowid order, ``ncell`` each; an overflow page's path names its
leaf and cell. A row comes back exactly when its leaf and its overflow pages are intact
(and, for a note, highlight or tag link, its paper came back too).
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks.*

from benchmarks.salvage_bench import (annotate, damage as _damage,  # noqa: E402
                                      expected_rows, has_dbstat, rows as _rows)
from paperdesk.cli import main  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.core.store.backup import backup_name, backup_to  # noqa: E402

needs_dbstat = pytest.mark.skipif(not has_dbstat(), reason="this SQLite has no dbstat "
                                  "table (SQLITE_ENABLE_DBSTAT_VTAB) to tell which rows "
                                  "were on which pages")


@pytest.fixture(scope="module")
def annotated(tmp_path_factory, _seeded_template) -> Path:
    """The seed library with tags, notes and highlights
    (:func:`benchmarks.salvage_bench.annotate`) and a backup taken before the damage;
    closed."""
    path = tmp_path_factory.mktemp("salvage") / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        annotate(lib)
        backup_to(lib.db.conn, backup_name(path / "backups"))
    return path


@needs_dbstat
@pytest.mark.parametrize("how", ["cut25", "cut50", "cut75", "overwrite", "overwrite1pct",
                                 "overwrite-header"])
def test_every_row_on_an_intact_page_comes_back(annotated, tmp_path, how, capsys):
    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    db = folder / "library.db"
    before = {t: _rows(db, t) for t in ("papers", "tags", "notes", "highlights")}
    bad = _damage(folder, how)
    expected = expected_rows(annotated / "library.db", bad)
    damaged_bytes = db.read_bytes()

    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    # What came back: exactly the rows on intact pages, each as it was.
    for table, want in expected.items():
        got = _rows(db, table)
        assert set(got) == want, (table, sorted(set(got) ^ want)[:10])
        assert all(got[r] == before[table][r] for r in got), table
    n = len(expected["papers"])
    assert f"papers: {n:,} recovered; the newest backup (" in out
    assert "has 225" in out and f"notes: {len(expected['notes']):,} recovered" in out
    # The damaged file is kept beside it, byte for byte.
    kept = [p for p in folder.iterdir() if p.name.startswith("library.db.damaged-")]
    assert len(kept) == 1 and kept[0].read_bytes() == damaged_bytes
    # A whole library: check calls it ok (the index rebuilt from it).
    assert main(["--library", str(folder), "check"]) == 0
    assert capsys.readouterr().out.strip() == f"library ok: {n:,} papers, index ok"


@needs_dbstat
def test_half_cut_library_is_salvaged_and_the_backup_merged_in(annotated, tmp_path, capsys):
    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    db = folder / "library.db"
    whole = {t: _rows(db, t) for t in ("papers", "notes", "highlights", "paper_tags")}
    _damage(folder, "cut50")
    # Before: every command says it is damaged and names salvage, in one line.
    for args in (["stats"], ["check"], ["export", "--all", "--format", "json"]):
        assert main(["--library", str(folder), *args]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert f"{db}: damaged" in err and "paperdesk repair --salvage" in err
        assert "not a paperdesk library" not in err
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out = capsys.readouterr().out
    salvaged = _rows(db, "papers")
    backup = out.split("paperdesk repair --merge-backup ")[1].split()[0]
    assert main(["--library", str(folder), "repair", "--merge-backup", backup]) == 0
    out = capsys.readouterr().out
    assert f"added {225 - len(salvaged)} papers" in out
    # Everything is back; the recovered rows are untouched; the library is whole.
    merged = _rows(db, "papers")
    assert len(merged) == 225 and all(merged[r] == salvaged[r] for r in salvaged)
    by_hash = {row[0]: row for row in merged.values()}
    assert {row[0] for row in whole["papers"].values()} == set(by_hash)
    assert len(_rows(db, "notes")) == len(whole["notes"])
    assert len(_rows(db, "highlights")) == len(whole["highlights"])
    assert len(_rows(db, "paper_tags")) == len(whole["paper_tags"])
    assert main(["--library", str(folder), "check"]) == 0
    assert "library ok: 225 papers" in capsys.readouterr().out


def test_salvage_is_refused_in_one_line(seeded_library, tmp_path, capsys):
    folder = seeded_library.path
    seeded_library.close()
    assert main(["--library", str(folder), "repair", "--salvage"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"paperdesk: {folder / 'library.db'}: not damaged (quick_check ok); " \
                  "nothing to salvage"
    assert not [p for p in folder.iterdir() if ".damaged-" in p.name]
    empty = tmp_path / "gone"
    (empty / "backups").mkdir(parents=True)
    assert main(["--library", str(empty), "repair", "--salvage"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing" in err and "Traceback" not in err
    not_db = tmp_path / "notdb.db"
    not_db.write_text("not a database " * 100)
    assert main(["--library", str(folder), "repair", "--merge-backup", str(not_db)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(not_db) in err and "Traceback" not in err


def test_cancelled_salvage_changes_nothing(annotated, tmp_path):
    from paperdesk.core.store.salvage import salvage_library

    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    _damage(folder, "cut50")
    before = sorted(p.name for p in folder.iterdir())
    damaged = (folder / "library.db").read_bytes()
    with pytest.raises(InterruptedError):
        salvage_library(folder, cancel=lambda: True)
    assert sorted(p.name for p in folder.iterdir()) == before
    assert (folder / "library.db").read_bytes() == damaged


@pytest.mark.parametrize("seed", range(12))
def test_random_damage_gives_a_whole_library_of_true_rows(annotated, tmp_path, seed):
    """Random pages overwritten with random bytes or zeroed, two pages swapped, the file
    cut at a random byte: the salvage finishes, the new database is whole (integrity and
    foreign keys) and every row in it is a row of the undamaged library, unchanged (a
    byte changed inside a record's text would change that row: bit rot inside a page
    cannot be told from data without checksums, so it is not made here)."""
    import random
    import sqlite3

    from paperdesk.core.store.salvage import salvage_library

    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    db = folder / "library.db"
    data = bytearray(db.read_bytes())
    rnd = random.Random(seed)
    pages = len(data) // 4096
    for _ in range(rnd.randint(1, 12)):                       # pages overwritten
        at = rnd.randrange(pages) * 4096
        data[at:at + 4096] = rnd.randbytes(4096) if rnd.random() < 0.7 else bytes(4096)
    if rnd.random() < 0.5:                                    # two pages swapped
        a, b = (rnd.randrange(pages) * 4096 for _ in range(2))
        data[a:a + 4096], data[b:b + 4096] = data[b:b + 4096], data[a:a + 4096]
    if rnd.random() < 0.5:
        del data[rnd.randrange(len(data) // 4, len(data)):]
    db.write_bytes(bytes(data))
    report = salvage_library(folder)
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        con.close()
    for table in ("papers", "tags", "notes", "highlights"):
        original = _rows(annotated / "library.db", table)
        got = _rows(db, table)
        assert all(got[r] == original.get(r) for r in got), table
        assert report.recovered[table] == len(got)


def _flip_in_abstract(db: Path, pid: int) -> None:
    """Change one letter in the second half of paper ``pid``'s abstract (not its title),
    in the file's bytes: in every copy of that piece (older ones may be left in free
    space)."""
    abstract = _rows(db, "papers")[pid][4]           # (id, hash, title, derived, abstract…)
    data = bytearray(db.read_bytes())
    piece = abstract[len(abstract) * 2 // 3:][:50].encode()
    at = data.find(piece)
    assert at >= 0
    while at >= 0:
        at += next(i for i, c in enumerate(piece) if chr(c).isalpha())
        data[at] = ord("q") if data[at] != ord("q") else ord("z")
        at = data.find(piece, at)
    db.write_bytes(bytes(data))


@needs_dbstat
def test_a_paper_whose_text_came_back_altered_is_reported_and_merged_back(
        annotated, tmp_path, capsys):
    from benchmarks.salvage_bench import pages_of_rows

    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    db = folder / "library.db"
    before = _rows(db, "papers")
    pages = pages_of_rows(db, "papers")
    for pid in (10, 57):
        _flip_in_abstract(db, pid)
    # Another page (a leaf of other papers) overwritten with random bytes.
    bad = next(iter(pages[200] - pages[10] - pages[57]))
    with open(db, "r+b") as f:
        f.seek((bad - 1) * 4096)
        f.write(bytes(range(256)) * 16)
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out = capsys.readouterr().out
    assert ("2 papers came back with altered text (their content hash differs): #10, "
            "#57; compare them with a backup") in out
    assert "2 of them the newest backup has unchanged: --merge-backup" in out
    assert _rows(db, "papers")[10][4] != before[10][4]
    backup = out.split("paperdesk repair --merge-backup ")[1].split()[0]
    assert main(["--library", str(folder), "check"]) == 1      # the full check sees it
    out = capsys.readouterr().out
    assert ("2 papers with altered text (the abstract does not give its content hash): "
            "#10, #57 — compare them with a backup") in out, out
    assert main(["--library", str(folder), "repair", "--merge-backup", backup]) == 0
    out = capsys.readouterr().out
    assert "the text of 2 altered papers put back (#10, #57)" in out
    after = _rows(db, "papers")
    assert after[10] == before[10] and after[57] == before[57]
    assert main(["--library", str(folder), "check"]) == 0
    assert capsys.readouterr().out == "library ok: 225 papers, index ok\n"


@needs_dbstat
def test_sources_come_back_from_orphan_pages_and_lost_ones_are_said_and_merged(
        annotated, tmp_path, capsys):
    """Page 1 zeroed: every table's pages are orphans, placed by shape; a sources row
    (an id and five texts) fits papers too (its later columns may be absent), so the
    leaf goes to the table it has every column of. Then the sources leaf lost as well:
    their links are left out for that reason, and --merge-backup counts what it adds."""
    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    db = folder / "library.db"
    before = {t: _rows(db, t) for t in ("sources", "paper_sources")}
    assert before["sources"] and before["paper_sources"]
    with open(db, "r+b") as f:
        f.write(bytes(4096))
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out = capsys.readouterr().out
    assert "left out (" not in out, out
    assert {t: _rows(db, t) for t in before} == before

    folder = tmp_path / "lib2"
    shutil.copytree(annotated, folder)
    db = folder / "library.db"
    con = sqlite3.connect(db)
    leaves = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = 'sources' "
                                        "AND pagetype = 'leaf'")]
    con.close()
    with open(db, "r+b") as f:
        f.write(bytes(4096))
        for page in leaves:
            f.seek((page - 1) * 4096)
            f.write(bytes(range(256)) * 16)
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out = capsys.readouterr().out
    n = len(before["paper_sources"])
    assert f"left out (their source was lost): {n:,} paper sources" in out, out
    assert _rows(db, "sources") == {}
    backup = out.split("paperdesk repair --merge-backup ")[1].split()[0]
    assert main(["--library", str(folder), "repair", "--merge-backup", backup]) == 0
    out = capsys.readouterr().out
    assert (f"{len(before['sources'])} sources, {n:,} source links; 225 of its papers "
            "were in the library already") in out, out
    assert len(_rows(db, "paper_sources")) == n


def test_ctrl_c_while_the_salvaged_library_is_indexed_says_so_and_exits_130(
        annotated, tmp_path, capsys, monkeypatch):
    from helpers import ctrl_c_at_index_write

    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    _damage(folder, "cut75")
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 20)
    ctrl_c_at_index_write(monkeypatch)
    assert main(["--library", str(folder), "repair", "--salvage"]) == 130
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "salvaged " in out
    assert "paperdesk: interrupted while indexing: the salvage is done and kept; " in err
    assert "indexed the next time the library is opened, or by paperdesk reindex" in err
    with Library.open(folder, sync_index=False) as lib:
        assert lib.db_problem is None and lib.index.status().queued > 0


def test_a_junk_file_named_as_the_newest_backup_is_passed_over(annotated, tmp_path, capsys):
    import random

    folder = tmp_path / "lib"
    shutil.copytree(annotated, folder)
    backups = folder / "backups"
    (real,) = [p for p in backups.iterdir() if p.name.endswith(".db")]
    shutil.copyfile(real, backups / "library-backup-20000101T000000Z.db")   # older
    junk = backups / "library-backup-20991231T000000Z.db"
    junk.write_bytes(random.Random(4).randbytes(8192))
    _damage(folder, "cut50")
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out = capsys.readouterr().out
    assert "no readable backup" not in out, out
    assert f"the newest backup ({real.name[15:19]}-" in out and f"{real.name}) has 225" in out
    assert ("passed over 1 newer backup file that cannot be read: "
            "library-backup-20991231T000000Z.db") in out
    assert f"paperdesk repair --merge-backup {real}" in out


def test_every_table_of_the_schema_is_salvaged_or_said_to_be_derived(seeded_library):
    """A table added to the schema must be copied by a salvage or named as derived: a
    salvage that forgot ``citation_key_aliases`` lost every merged entry's key."""
    from paperdesk.core.store.salvage import NOT_SALVAGED, SALVAGED_TABLES
    tables = {r[0] for r in seeded_library.db.conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    assert tables - set(SALVAGED_TABLES) - set(NOT_SALVAGED) == set()
    assert set(SALVAGED_TABLES) & set(NOT_SALVAGED) == set()


@needs_dbstat
def test_citation_key_aliases_survive_a_salvage(_seeded_template, tmp_path, capsys):
    from paperdesk.core.store.key_aliases import add_alias, aliases_of
    folder = tmp_path / "lib"
    shutil.copytree(_seeded_template, folder)
    with Library.open(folder) as lib:
        pid = lib.db.conn.execute("SELECT min(id) FROM papers").fetchone()[0]
        with lib.db.conn:
            assert add_alias(lib.db, pid, "Smith2020merged")
    _damage(folder, "overwrite")        # the papers' root and three later leaves
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    capsys.readouterr()
    with Library.open(folder) as lib:
        assert aliases_of(lib.db, pid) == ("Smith2020merged",)
