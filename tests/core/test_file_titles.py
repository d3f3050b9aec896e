"""A title that came from a file is not a title the user edited (schema 7's file_title).

Before, "edited" meant "not the title derived from the abstract", so every paper imported
from BibTeX, RIS, CSL-JSON or arXiv metadata showed "title edited", and going back to the
base title swapped the file's real title for the abstract's first sentence.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import sqlite_utils

from paperdesk.core.exports.latex import latex_text
from paperdesk.core.library import Library
from paperdesk.core.store.schema import MIGRATIONS, SCHEMA_VERSION

DATA = Path(__file__).parent / "data" / "imports"


def _entry(abstract: str, title: str = "A Real Title") -> str:
    return ("@article{doe2023seed,\n  author = {Doe, Jane},\n"
            f"  title = {{{title}}},\n  year = {{2023}},\n"
            f"  abstract = {{{latex_text(abstract)}}},\n}}\n")


def test_an_imported_title_is_not_an_edited_one(empty_library):
    empty_library.imports.run([DATA / "zotero.bib"])
    papers = [empty_library.papers.get(pid) for pid in empty_library.papers.ids()]
    real = [p for p in papers if p.title != p.derived_title]
    assert real, "zotero.bib has entries with real titles"
    for p in real:
        assert p.file_title == p.title and not p.title_edited


def test_going_back_keeps_the_files_title(empty_library):
    empty_library.imports.run([DATA / "zotero.bib"])
    p = next(empty_library.papers.get(pid) for pid in empty_library.papers.ids()
             if empty_library.papers.get(pid).file_title)
    empty_library.papers.set_title(p.id, "My own title")
    edited = empty_library.papers.get(p.id)
    assert edited.title == "My own title" and edited.title_edited
    empty_library.papers.set_title(p.id, None)                 # the ↺ button, or an empty title
    back = empty_library.papers.get(p.id)
    assert back.title == p.file_title and not back.title_edited
    empty_library.undo()
    assert empty_library.papers.get(p.id).title == "My own title"


def test_enrichment_gives_a_seed_paper_its_files_title(seeded_library, tmp_path):
    pid = seeded_library.papers.ids()[3]
    paper = seeded_library.papers.get(pid)
    path = tmp_path / "enrich.bib"
    path.write_text(_entry(paper.abstract), encoding="utf-8")
    seeded_library.imports.run([path])
    after = seeded_library.papers.get(pid)
    assert after.title == "A Real Title" == after.file_title and not after.title_edited
    # a second file with another title changes neither
    path.write_text(_entry(paper.abstract, "Another Title"), encoding="utf-8")
    seeded_library.imports.run([path])
    assert seeded_library.papers.get(pid).title == "A Real Title"


def test_a_title_the_user_typed_stays_edited_through_enrichment(seeded_library, tmp_path):
    pid = seeded_library.papers.ids()[5]
    paper = seeded_library.papers.get(pid)
    seeded_library.papers.set_title(pid, "Typed by me")
    path = tmp_path / "enrich.bib"
    path.write_text(_entry(paper.abstract), encoding="utf-8")
    seeded_library.imports.run([path])
    after = seeded_library.papers.get(pid)
    assert after.title == "Typed by me" and after.title_edited


def test_the_json_export_carries_the_files_title(empty_library, tmp_path):
    empty_library.imports.run([DATA / "zotero.bib"])
    empty_library.papers.set_title(empty_library.papers.ids()[0], "Typed by me")
    out = tmp_path / "all.json"
    empty_library.exports.to_file(empty_library.papers.ids(), "json", out)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert any(p["file_title"] for p in doc["papers"])
    with Library.open(tmp_path / "fresh") as fresh:
        fresh.imports.run([out])
        before = {p.title: (p.file_title, p.title_edited) for p in
                  map(empty_library.papers.get, empty_library.papers.ids())}
        after = {p.title: (p.file_title, p.title_edited) for p in
                 map(fresh.papers.get, fresh.papers.ids())}
        assert after == before


def test_a_version_6_library_learns_which_titles_came_from_files(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    db = sqlite_utils.Database(folder / "library.db")
    for step in MIGRATIONS[:6]:
        step(db)
    db.execute("PRAGMA user_version = 6")
    db.execute("INSERT INTO sources (id, path, name, header, encoding, imported_at) VALUES "
               "(1, '/x/a.bib', 'a.bib', 'BibTeX', 'utf-8', '2026-01-01T00:00:00Z'), "
               "(2, '/x/b.txt', 'b.txt', 'Daily Papers', 'utf-8', '2026-01-01T00:00:00Z')")
    for pid, title, derived, source in ((1, "From BibTeX", "First abstract", 1),
                                        (2, "Typed over text", "Second abstract", 2),
                                        (3, "Third abstract", "Third abstract", 1)):
        db.execute("INSERT INTO papers (id, content_hash, title, derived_title, abstract, "
                   "added_at, starred) VALUES (?, ?, ?, ?, ?, '2026-01-02T03:04:05Z', 0)",
                   [pid, f"h{pid}", title, derived, derived + " text."])
        db.execute("INSERT INTO paper_sources (paper_id, source_id, position) "
                   "VALUES (?, ?, 1)", [pid, source])
    db.conn.commit()
    db.conn.close()
    with Library.open(folder) as lib:
        assert (lib.papers.get(1).file_title, lib.papers.get(1).title_edited) == ("From BibTeX", False)
        assert (lib.papers.get(2).file_title, lib.papers.get(2).title_edited) == ("", True)
        assert (lib.papers.get(3).file_title, lib.papers.get(3).title_edited) == ("", False)
    con = sqlite3.connect(folder / "library.db")
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 7
    con.close()
