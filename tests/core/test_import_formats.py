"""Importing BibTeX, RIS and CSL-JSON: detection by content, the readers, what is refused,
merging onto papers already in the library, standard input. The fixtures in
``tests/core/data/imports/`` are written for these tests, modelled on what Zotero, JabRef,
Better BibTeX (biblatex), Scopus and EndNote write."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.core.duplicates import THRESHOLD, similarity
from paperdesk.core.exports.latex import latex_text
from paperdesk.core.exports.ris import ris_text
from paperdesk.core.imports.daily_papers import ParseError
from paperdesk.core.imports.detect import detect_file, detect_text
from paperdesk.core.library import Library
from paperdesk.core.models import Author, Metadata

DATA = Path(__file__).parent / "data" / "imports"


def by_title(lib: Library) -> dict:
    return {p.title: p for p in (lib.papers.get(i) for i in lib.papers.ids())}


def snapshot(lib: Library) -> list:
    """Every paper row and provenance row, to compare before and after."""
    con = sqlite3.connect(lib.path / "library.db")
    try:
        return [con.execute("SELECT * FROM papers ORDER BY id").fetchall(),
                con.execute("SELECT * FROM paper_sources ORDER BY 1, 2, 3").fetchall(),
                con.execute("SELECT count(*) FROM sources").fetchall()]
    finally:
        con.close()


# -- detection -----------------------------------------------------------------------------
@pytest.mark.parametrize("name, fmt", [
    ("zotero.bib", "bibtex"), ("jabref.bib", "bibtex"), ("bbt.bib", "bibtex"),
    ("scopus.ris", "ris"), ("endnote.ris", "ris"), ("zotero-csl.json", "csl-json"),
])
def test_formats_are_detected_by_content_not_by_name(tmp_path, name, fmt):
    renamed = tmp_path / "file.txt"     # the extension says text; the content does not
    shutil.copy(DATA / name, renamed)
    assert detect_file(renamed).format == fmt


def test_text_and_paperdesk_json_are_detected(seed_files, cited_exports):
    assert detect_file(seed_files[0]).format == "text"
    assert detect_file(cited_exports["json"]).format == "paperdesk-json"
    assert detect_file(cited_exports["bibtex"]).format == "bibtex"
    assert detect_file(cited_exports["ris"]).format == "ris"
    assert detect_file(cited_exports["csl-json"]).format == "csl-json"


GARBAGE = {
    "page.html": ("<!DOCTYPE html>\n<html><head><title>x</title></head>\n<body><p>Some "
                  "text of a web page.</p></body></html>\n", "markup"),
    "page2.txt": ("Feed\n\n<div class=\"a\"><p>An abstract in markup.</p></div>\n\n"
                  "<p>Another one</p>\n", "not prose"),
    "config.yaml": ("title: My paper\nauthors:\n  - Jane Doe\n  - John Smith\nyear: 2020\n"
                    "tags: [a, b]\n", "key-value"),
    "settings.ini": ("[main]\nname = paperdesk\nlevel = 3\n\n[other]\nx = 1\ny = 2\n",
                     "key-value"),
    "object.json": ('{"name": "not a paper list", "items": [1, 2, 3]}', "neither a paperdesk"),
    "numbers.json": ("[1, 2, 3]", "neither a paperdesk"),
    "broken.json": ('[{"type": "article", "title": ', "not valid JSON"),
    "table.csv": ("id,title,year\n1,Deep nets,2020\n2,Shallow nets,2021\n", "a table"),
    "endnote.enw": ("%0 Journal Article\n%A Smith, John\n%T Deep learning for things\n"
                    "%D 2020\n%J Journal of Things\n\n%0 Book\n%A Doe, Jane\n%T A book\n",
                    "not prose"),
    # Prose in a file named as JSON: a broken export, not abstracts to take in.
    "lines.jsonl": ("x\ny\n", "named .jsonl but not JSON (it reads as plain text)"),
    # RFC 8259 lets a JSON text be one value: it is JSON, just not a list of papers.
    "string.json": ('"just a string"', "neither a paperdesk export nor CSL-JSON (a list of "
                    "items with a type or title): it is a string"),
    "number.json": ("42\n", "it is a number"),
    "null.json": ("null", "it is null"),
    "notes.JSON": ("garbage {not json\n\nmore garbage and some words of prose here\n",
                   "named .JSON but not JSON (it reads as plain text)"),
    # Prose in a file named for a structured format (a new user's try: 50 lines of
    # junk named .ris went in as one paper): refused, with what to do about it.
    "junk.ris": ("hello world\nthis is not ris\n$$$ junk junk\n" * 50,
                 "named .ris but not RIS: no record in it starts as RIS does (it reads as "
                 "plain text); rename it .txt"),
    "abstracts.BIB": ("We propose a method for depth estimation from one image and show "
                      "that it works on many scenes.\n\nA second abstract on diffusion "
                      "models and the speed of their sampling.\n",
                      "named .BIB but not BibTeX"),
    "pubmed.nbib": ("Some prose that a PubMed export would never hold, about a method for "
                    "things and its results.\n", "named .nbib but not PubMed/MEDLINE"),
    # A Web of Science export is read since issue 25 (test_tagged_imports.py); one whose
    # lines lost their tags is refused.
    "wos.txt": ("FN Clarivate Analytics Web of Science\nVR 1.0\nDeep learning for things\n"
                "Smith, J\nJOURNAL OF THINGS 2020\n\nEF\n",
                "no Web of Science entry with a title or an abstract (record 1 (line 3): "
                "line 3 is neither a field"),
}


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_garbage_is_refused_with_the_file_name_and_a_reason(empty_library, tmp_path, name):
    text, reason = GARBAGE[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    report = empty_library.imports.run([path])
    (rejected,) = report.rejected
    assert rejected["path"] == str(path)
    assert reason in rejected["reason"] and "\n" not in rejected["reason"]
    assert empty_library.papers.count() == 0


def test_a_binary_file_is_refused(empty_library, tmp_path):
    path = tmp_path / "image.bib"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (rejected,) = empty_library.imports.run([path]).rejected
    assert rejected["path"] == str(path) and "not a text file" in rejected["reason"]


def test_prose_with_one_angle_bracket_pair_is_still_prose():
    # a seed abstract has "<former ... >" (maths, not a tag)
    assert detect_text("Feed\n\nWe propose a <former architecture that is >1.5x faster "
                       "than the baseline on every task.\n") == "text"


def test_a_folder_takes_supported_files_and_refuses_those_that_are_no_format(
        empty_library, tmp_path):
    shutil.copy(DATA / "zotero.bib", tmp_path / "a.bib")
    shutil.copy(DATA / "endnote.ris", tmp_path / "b.ris")
    (tmp_path / "notes.md").write_text("# Not looked at\n")
    (tmp_path / "page.json").write_text('{"x": 1}')
    report = empty_library.imports.run([tmp_path])
    assert [Path(f.path).name for f in report.files] == ["page.json", "a.bib", "b.ris"]
    assert [Path(r["path"]).name for r in report.rejected] == ["page.json"]
    # endnote.ris's paper is zotero.bib's preprint (same arXiv id): merged, not added
    assert (report.added, report.enriched + report.duplicates) == (3, 1)


# -- readers -------------------------------------------------------------------------------
def test_zotero_bibtex(empty_library):
    report = empty_library.imports.run([DATA / "zotero.bib"])
    assert (report.added, report.without_abstract, report.rejected) == (3, 2, [])
    papers = by_title(empty_library)
    deep = papers["Deep learning for Été: A study of über-networks"]
    assert deep.abstract.startswith("We study über-networks on été data")
    assert deep.metadata.authors == (Author("Müller", "Zoë"), Author("Ñúñez", "José"),
                                     Author("van der Berg", "Jan"))
    assert (deep.metadata.date, deep.metadata.venue, deep.metadata.entry_type) == \
        ("2020-05", "Nature Machine Intelligence", "article")
    assert deep.metadata.doi == "10.1038/s42256-020-0001-x"
    assert deep.metadata.url == "https://www.nature.com/articles/s42256-020-0001-x"
    assert deep.citation_key == "muller_deep_2020"
    tiny = papers["Tiny Transformers Are Enough"]
    assert tiny.abstract == "" and tiny.metadata.arxiv_id == "2212.08630"
    assert tiny.metadata.entry_type == "preprint" and tiny.metadata.url is None
    who = papers["World report on things"]
    assert who.metadata.authors == (Author("World Health Organization"),)
    assert who.metadata.entry_type == "report"


def test_jabref_bibtex_strings_preamble_comments_and_bad_values(empty_library):
    report = empty_library.imports.run([DATA / "jabref.bib"])
    (f,) = report.files
    # empty2020 has only a key and a note: the user cites it, so it is kept (issue 25
    # item 10: every key of a file comes in).
    assert (f.format, f.added, f.skipped, f.without_abstract) == ("bibtex", 5, 0, 4)
    assert "empty2020" in {r[0] for r in empty_library.db.execute(
        "SELECT citation_key FROM papers")}
    assert f.warnings == [
        "entry Knuth1984: doi: 'not-a-doi' is not a DOI (it must look like "
        "10.1234/suffix); value dropped"]
    papers = by_title(empty_library)
    git = papers["Git: Dezentrale Versionsverwaltung im Team"]
    assert git.metadata.authors[0] == Author("Preißel", "René")
    assert git.metadata.authors[2] == Author("O'Brien", "Seán")
    assert git.metadata.venue == "Proceedings of the Conference on Things"   # @string
    assert git.metadata.doi == "10.1000/182"
    assert "über Git" in git.abstract and "–" in git.abstract
    book = papers["The TeXbook"]
    assert book.metadata.doi is None and book.metadata.year == 1984
    assert not any("providecommand" in p.abstract + p.title for p in papers.values())
    child = papers["A paper in the proceedings"]          # crossref: fields inherited
    assert child.metadata.venue == "Proceedings of the 12th Workshop on Cross-references"
    assert (child.metadata.year, child.metadata.entry_type) == (2018, "inproceedings")


def test_biblatex_dates_eprints_and_a_repeated_key(empty_library):
    report = empty_library.imports.run([DATA / "bbt.bib"])
    assert report.added == 3
    papers = by_title(empty_library)
    curie = papers["Recherches sur les substances radioactives"]
    assert (curie.metadata.date, curie.metadata.arxiv_id) == ("1903-06-25", "hep-th/9901001")
    assert curie.metadata.entry_type == "preprint"
    first = papers["Computing Machinery and Intelligence"]
    again = papers["Computing Machinery and Intelligence (repeated key)"]
    assert first.metadata.entry_type == "thesis" and first.metadata.date == "1950-10"
    assert again.metadata.venue == "Mind"
    assert first.citation_key == "turing1950" and again.citation_key != "turing1950"


def test_scopus_ris_with_bom_crlf_and_a_multi_line_abstract(empty_library):
    assert (DATA / "scopus.ris").read_bytes().startswith(b"\xef\xbb\xbfTY  - ")
    report = empty_library.imports.run([DATA / "scopus.ris"])
    (f,) = report.files
    assert (f.added, f.without_abstract, f.skipped) == (2, 1, 1)
    assert any("10.5555/bad doi" in w for w in f.warnings)
    papers = by_title(empty_library)
    soft = papers["A transversely isotropic model of soft tissue"]
    assert soft.abstract == ("Soft tissue behaves in a transversely isotropic way. We "
                             "propose a model that captures it with few parameters.")
    assert soft.metadata.authors == (Author("Müller", "Zoë"), Author("Dvořák", "Antonín"))
    assert (soft.metadata.year, soft.metadata.venue, soft.metadata.doi) == \
        (2019, "Journal of Biomechanics", "10.1016/j.jbiomech.2019.01.001")
    conf = papers["A conference paper without abstract"]
    assert conf.metadata.entry_type == "inproceedings" and conf.metadata.doi is None


def test_endnote_ris_n2_y1_and_arxiv_accession(empty_library):
    empty_library.imports.run([DATA / "endnote.ris"])
    (paper,) = by_title(empty_library).values()
    assert paper.title == "Tiny transformers are enough"
    assert paper.abstract.endswith("with a multi-line abstract.")
    assert (paper.metadata.date, paper.metadata.arxiv_id, paper.citation_key) == \
        ("2022-12-05", "2212.08630", "smith2022tiny")
    assert paper.metadata.url is None       # the arXiv page is not its own URL


def test_csl_json_from_zotero(empty_library):
    report = empty_library.imports.run([DATA / "zotero-csl.json"])
    assert (report.added, report.skipped) == (2, 1)
    papers = by_title(empty_library)
    deep = papers["Deep learning for Été"]
    assert deep.metadata.authors[1] == Author("van der Berg", "Jan")
    assert deep.metadata.date == "2020-05-17"
    tiny = papers["Tiny transformers"]
    assert tiny.metadata.authors == (Author("OpenAI Team"),)
    assert (tiny.metadata.arxiv_id, tiny.metadata.date, tiny.metadata.entry_type) == \
        ("2212.08630", "2022-12", "preprint")


def test_a_file_with_no_usable_entry_is_refused(empty_library, tmp_path):
    path = tmp_path / "empty.bib"
    # An entry with a key and a note is the user's and comes in (issue 25 item 10; the
    # jabref.bib test): only one with no field at all is nothing to import.
    path.write_text("@misc{a,\n}\n")
    (rejected,) = empty_library.imports.run([path]).rejected
    assert "no BibTeX entry with a title or an abstract" in rejected["reason"]
    assert "entry a" in rejected["reason"]


@pytest.mark.parametrize("name", ["zotero.bib", "jabref.bib", "bbt.bib", "scopus.ris",
                                  "endnote.ris", "zotero-csl.json"])
def test_importing_a_file_twice_changes_nothing(empty_library, name):
    first = empty_library.imports.run([DATA / name])
    assert first.added
    before = snapshot(empty_library)
    again = empty_library.imports.run([DATA / name])
    assert (again.added, again.enriched) == (0, 0)
    assert again.duplicates == first.added + first.enriched + first.duplicates
    assert snapshot(empty_library) == before


# -- round trip ---------------------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
def test_round_trip_of_the_exports_into_a_fresh_library(cited_library, cited_exports,
                                                        tmp_path, fmt):
    want = {p.citation_key: p for p in map(cited_library.papers.get, cited_library.papers.ids())}
    # Papers of the cited library that share a DOI or an arXiv id with an earlier one are
    # the same paper to the import (merged onto the first): they are not added again.
    seen, merged = set(), set()
    for key, paper in want.items():
        ids = {i for i in ("doi:" + (paper.metadata.doi or "").lower(),
                           "arxiv:" + (paper.metadata.arxiv_id or "")) if not i.endswith(":")}
        if ids & seen:
            merged.add(key)
        seen |= ids
    assert merged      # the hostile papers share two identifiers
    with Library.open(tmp_path / "fresh") as fresh:
        report = fresh.imports.run([cited_exports[fmt]])
        assert report.rejected == []
        # a paper merged by its DOI or arXiv id onto one with another abstract is noted
        warnings = report.files[0].warnings
        assert len(warnings) <= len(merged) and all(
            "but its abstract is unlike that paper's" in w for w in warnings), warnings
        assert report.added == cited_library.papers.count() - len(merged)
        assert report.enriched + report.duplicates == len(merged)
        got = {p.citation_key: p for p in map(fresh.papers.get, fresh.papers.ids())}
        assert set(got) == set(want) - merged
        # RIS carries a brace without a partner as its full-width form (exports/ris.py)
        as_written = ris_text if fmt == "ris" else (lambda text: text)
        for key, back in got.items():
            paper = want[key]
            assert back.title == as_written(paper.title), key
            assert back.abstract == as_written(paper.abstract), key
            assert back.metadata.authors == paper.metadata.authors, key
            assert back.metadata.year == paper.metadata.year, key
            assert back.metadata.doi == paper.metadata.doi, key
            assert back.metadata.arxiv_id == paper.metadata.arxiv_id, key


# -- merging ----------------------------------------------------------------------------
def _seed_entry(abstract: str, extra: str = "") -> str:
    return ("@article{doe2023seed,\n  author = {Doe, Jane and M{\\\"u}ller, Zo{\\\"e}},\n"
            "  title = {A Real Title},\n  journal = {Journal of Seeds},\n  year = {2023},\n"
            f"{extra}  abstract = {{{latex_text(abstract)}}},\n}}\n")


def test_an_entry_with_a_seed_abstract_enriches_that_paper(seeded_library, tmp_path):
    pid = seeded_library.papers.ids()[3]
    paper = seeded_library.papers.get(pid)
    assert paper.title == paper.derived_title and paper.metadata == Metadata()
    count = seeded_library.papers.count()
    path = tmp_path / "enrich.bib"
    path.write_text(_seed_entry(paper.abstract), encoding="utf-8")
    report = seeded_library.imports.run([path])
    assert (report.added, report.enriched, report.duplicates) == (0, 1, 0)
    assert seeded_library.papers.count() == count
    after = seeded_library.papers.get(pid)
    assert after.metadata.authors == (Author("Doe", "Jane"), Author("Müller", "Zoë"))
    assert after.metadata.year == 2023 and after.metadata.venue == "Journal of Seeds"
    assert after.title == "A Real Title"
    assert after.citation_key == paper.citation_key
    assert [h.id for h in seeded_library.search.hits("Müller")] == [pid]   # re-indexed
    # and a second time it is a plain duplicate
    again = seeded_library.imports.run([path])
    assert (again.added, again.enriched, again.duplicates) == (0, 0, 1)


def test_values_the_user_set_are_not_overwritten(seeded_library, tmp_path):
    pid = seeded_library.papers.ids()[5]
    paper = seeded_library.papers.get(pid)
    seeded_library.papers.set_title(pid, "My Own Title")
    seeded_library.papers.set_metadata(pid, Metadata(venue="My Venue", date="2001"))
    path = tmp_path / "enrich.bib"
    path.write_text(_seed_entry(paper.abstract, "  doi = {10.1000/seed.1},\n"),
                    encoding="utf-8")
    report = seeded_library.imports.run([path])
    assert report.enriched == 1
    after = seeded_library.papers.get(pid)
    assert after.title == "My Own Title"
    assert (after.metadata.venue, after.metadata.date) == ("My Venue", "2001")
    assert after.metadata.doi == "10.1000/seed.1"                     # was missing
    assert after.metadata.authors[0] == Author("Doe", "Jane")         # was missing
    (f,) = report.files
    assert f.warnings == [
        f"entry doe2023seed: paper {pid} keeps its date '2001' (the file has '2023')",
        f"entry doe2023seed: paper {pid} keeps its venue 'My Venue' (the file has "
        "'Journal of Seeds')",
        f"entry doe2023seed: paper {pid} keeps its title 'My Own Title' (the file has "
        "'A Real Title')"]


def _edited(abstract: str) -> str:
    """The abstract with its last sentence changed and other punctuation (a version 2)."""
    head, _sep, _last = abstract.rstrip().rstrip(".").rpartition(". ")
    return head.replace(",", ";") + ". We release the code and the trained models."


def test_an_entry_with_a_near_duplicate_abstract_enriches_that_paper(seeded_library,
                                                                     tmp_path):
    seeded_library.duplicates.find()        # the stage has looked at the seeds
    pid = seeded_library.papers.ids()[7]
    paper = seeded_library.papers.get(pid)
    text = _edited(paper.abstract)
    assert text != paper.abstract and similarity(text, paper.abstract) >= THRESHOLD
    count = seeded_library.papers.count()
    path = tmp_path / "v2.bib"
    path.write_text(_seed_entry(text), encoding="utf-8")
    report = seeded_library.imports.run([path])
    assert (report.added, report.enriched) == (0, 1)
    assert seeded_library.papers.count() == count
    after = seeded_library.papers.get(pid)
    assert after.abstract == paper.abstract          # the paper keeps its own text
    assert after.title == "A Real Title" and after.metadata.year == 2023
    (f,) = report.files
    assert any(f"near-duplicate of paper {pid}'s" in w for w in f.warnings)
    again = seeded_library.imports.run([path])      # found at once the second time
    assert (again.added, again.enriched, again.duplicates) == (0, 0, 1)
    assert not again.files[0].warnings


def test_a_near_duplicate_with_another_doi_is_another_paper(seeded_library, tmp_path):
    seeded_library.duplicates.find()
    pid = seeded_library.papers.ids()[7]
    paper = seeded_library.papers.get(pid)
    seeded_library.papers.set_metadata(pid, Metadata(doi="10.1000/first"))
    path = tmp_path / "other.bib"
    path.write_text(_seed_entry(_edited(paper.abstract), "  doi = {10.1000/second},\n"),
                    encoding="utf-8")
    report = seeded_library.imports.run([path])
    assert report.added == 1
    (new,) = report.added_ids
    assert seeded_library.duplicates.find() >= 1          # flagged instead
    assert any({d.paper_a, d.paper_b} == {pid, new}
               for d in seeded_library.duplicates.pairs())


def test_a_record_matching_by_doi_or_arxiv_id_merges(empty_library, tmp_path):
    empty_library.imports.run([DATA / "zotero.bib"])
    count = empty_library.papers.count()
    # the same two papers as CSL-JSON: one by DOI (other abstract), one by arXiv id
    report = empty_library.imports.run([DATA / "zotero-csl.json"])
    assert (report.added, report.enriched + report.duplicates) == (0, 2)
    assert empty_library.papers.count() == count
    tiny = by_title(empty_library)["Tiny Transformers Are Enough"]
    assert tiny.metadata.authors == (Author("Smith", "John Q."), Author("Lee", "Ann"))


# -- standard input ----------------------------------------------------------------------
def test_import_reads_standard_input(tmp_path):
    lib = tmp_path / "lib"
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), "import",
                        "-", "--json"], input=(DATA / "scopus.ris").read_bytes(),
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert (report["added"], report["without_abstract"], report["skipped"]) == (2, 1, 1)
    assert report["files"][0]["path"] == "<stdin>"
    assert report["files"][0]["format"] == "ris"
    assert b"10.5555/bad doi" in r.stderr       # the dropped value is noted
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), "import",
                        "-"], input=b"<html><body>x</body></html>", capture_output=True,
                       timeout=120)
    assert r.returncode == 1
    assert r.stderr.decode().strip() == (
        "paperdesk: rejected <stdin>: markup (HTML or XML), not abstracts, BibTeX, RIS or "
        "CSL-JSON")


def test_plain_output_counts_enriched_and_without_abstract(tmp_path):
    lib = tmp_path / "lib"
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), "import",
                        str(DATA / "zotero.bib")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "3 added, 0 enriched, 0 duplicates, 2 without abstract (BibTeX)" in r.stdout
    assert "total: 3 added, 0 enriched, 0 duplicates, 2 without abstract, 0 rejected" \
        in r.stdout


def test_detect_reasons_are_one_line():
    with pytest.raises(ParseError) as err:
        detect_text('{"a": 1}')
    assert "\n" not in err.value.reason


def test_standard_input_in_the_daily_papers_format(tmp_path, seed_files):
    lib = tmp_path / "lib"
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), "import",
                        "-", "--json"], input=seed_files[1].read_bytes(),
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["added"] == 120 and report["files"][0]["format"] == "text"
    with Library.open(lib) as opened:
        (source,) = opened.removal.sources()
        # each import from standard input is a source of its own, named by its time
        assert source.path == source.name and source.path.startswith("<stdin> 20")
        assert report["files"][0]["path"] == "<stdin>"


def test_records_are_stored_in_batches_with_the_hook_between(empty_library, tmp_path):
    path = tmp_path / "many.bib"
    path.write_text("".join(
        f"@article{{k{n},\n  title = {{Paper number {n}}},\n  year = {{2020}},\n"
        f"  doi = {{10.1000/many.{n}}},\n}}\n\n" for n in range(700)), encoding="utf-8")
    seen = []
    report = empty_library.imports.run(
        [path], sync=False, between_batches=lambda: seen.append(empty_library.papers.count()))
    assert (report.added, report.without_abstract) == (700, 700)
    assert [n for n in seen if n][:3] == [300, 600, 700]   # committed batch by batch
    again = empty_library.imports.run([path], sync=False)
    assert (again.added, again.duplicates) == (0, 700)


@pytest.mark.parametrize("text, fmt", [
    ("This file was created with JabRef 2.10.\nEncoding: UTF8\n\n@article{a,\n  title = {T},\n}\n",
     "bibtex"),
    ("Provider: Clarivate\nDatabase: Web of Science\n\nTY  - JOUR\nTI  - T\nER  - \n", "ris"),
])
def test_a_few_lines_before_the_first_entry_are_allowed(text, fmt):
    assert detect_text(text) == fmt


def test_prose_that_starts_with_an_at_sign_is_not_bibtex():
    assert detect_text("Feed\n\n@Twitter (now X) posts were studied in depth by many "
                       "researchers over the years.\n") == "text"
    assert detect_text("@Article{Key2020,\n  title = {T},\n}\n") == "bibtex"
    assert detect_text("@article{\n  title = {T},\n}\n") == "bibtex"   # key missing


def test_an_abstract_that_mentions_an_entry_is_still_text():
    text = ("Feed\n\nWe study citation keys. One abstract. Another sentence. More text. "
            "And more. And more still.\n\nSecond abstract about things.\n\nThird one here."
            "\n\nFourth abstract text.\n\n@article{x, in the middle of prose}\n")
    assert detect_text(text) == "text"


def test_a_paper_without_abstract_takes_one_from_a_later_record(empty_library, tmp_path):
    first = tmp_path / "first.bib"
    first.write_text("@article{a1,\n  title = {The Paper},\n  doi = {10.1000/x.1},\n}\n")
    second = tmp_path / "second.ris"
    second.write_text("TY  - JOUR\nTI  - The paper, as Scopus writes it\nDO  - 10.1000/X.1\n"
                      "AB  - Now with an abstract that says what the paper does.\nER  - \n")
    empty_library.imports.run([first])
    (pid,) = empty_library.papers.ids()
    report = empty_library.imports.run([second])
    assert (report.added, report.enriched) == (0, 1)
    paper = empty_library.papers.get(pid)
    assert paper.abstract == "Now with an abstract that says what the paper does."
    assert paper.title == "The Paper" and paper.citation_key == "a1"
    assert [h.id for h in empty_library.search.hits("abstract says")] == [pid]
    again = empty_library.imports.run([first, second])
    assert (again.added, again.enriched, again.duplicates) == (0, 0, 2)


def test_reimporting_our_own_bibtex_export_enriches_nothing(seeded_library, tmp_path):
    lib = seeded_library
    path = tmp_path / "own.bib"
    lib.exports.to_file(lib.papers.ids(), "bibtex", path)
    report = lib.imports.run([path])
    assert (report.added, sum(f.enriched for f in report.files)) == (0, 0)
    assert all(lib.papers.metadata(p).entry_type is None for p in lib.papers.ids()[:20])


def test_placeholder_abstracts_do_not_merge_distinct_papers(empty_library, tmp_path):
    # Scopus writes "[No abstract available]" for papers without one: three papers, not one
    path = tmp_path / "scopus.ris"
    path.write_text("".join(
        f"TY  - JOUR\nTI  - Paper number {n}\nAU  - Author{n}, A.\nPY  - 2020\n"
        f"DO  - 10.5555/scopus.{n}\nAB  - {text}\nER  - \n\n"
        for n, text in enumerate(["[No abstract available]", "Abstract not available.",
                                  "[No abstract available]"])), encoding="utf-8")
    report = empty_library.imports.run([path])
    assert (report.added, report.without_abstract) == (3, 3)
    assert sorted(p.title for p in map(empty_library.papers.get, empty_library.papers.ids())) == [
        "Paper number 0", "Paper number 1", "Paper number 2"]
    assert all(not empty_library.papers.get(pid).abstract for pid in empty_library.papers.ids())
    assert any("says there is none" in w for w in report.files[0].warnings)
    again = empty_library.imports.run([path])
    assert (again.added, again.duplicates) == (0, 3)


def test_a_one_word_abstract_is_not_a_near_duplicate(empty_library, tmp_path):
    first = tmp_path / "a.bib"
    first.write_text("@article{a, title={One Word Abstract}, author={First, F}, year={2022},"
                     " abstract={Transformers.}}\n", encoding="utf-8")
    empty_library.imports.run([first])
    empty_library.duplicates.find()
    second = tmp_path / "b.bib"
    second.write_text("@article{b, title={A Completely Different Paper}, author={Third, T},"
                      " year={2023}, abstract={Transformers?}}\n", encoding="utf-8")
    report = empty_library.imports.run([second])
    assert report.added == 1 and empty_library.papers.count() == 2


@pytest.mark.parametrize("name, text", [
    ("chapter.bib", "Bibliography for chapter 2\nAuthor: Me\nLast updated 2020\nBy hand\n\n"
                    "@article{smith2020,\n  author = {Smith, John},\n  title = {Monocular "
                    "Depth with Looms},\n  year = {2020}\n}\n"),
    ("export.ris", "Provider: Some Provider\nDatabase: Some DB\nContent: text/plain\n"
                   "Exported: 2024-01-01\nRecords: 1\n\nTY  - JOUR\nAU  - Smith, John\n"
                   "TI  - Monocular Depth with Looms\nPY  - 2020\nER  - \n"),
])
def test_a_file_named_for_a_format_with_a_long_header_is_read_in_that_format(
        empty_library, tmp_path, name, text):
    """A new user's try: a .bib with four lines of notes before its first entry (legal
    BibTeX) and an RIS export with a five-line provider header were refused, the .bib
    with the advice to rename it .txt."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    report = empty_library.imports.run([path])
    assert not report.rejected, report.rejected
    assert report.added == 1
    (pid,) = empty_library.papers.ids()
    assert empty_library.papers.get(pid).title == "Monocular Depth with Looms"
