"""Publisher, ISBN, ISSN and language: four rows of the field table (schema 10) read from
BibTeX/biblatex, RIS and CSL-JSON and written back (issue 25, item 11).

Real files, read in place: JabRef's, Zotero's and Science Direct's test files in
/work/shared/realworld and biblatex's own ``biblatex-examples.bib`` where TeX Live has it.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
from pathlib import Path

import pytest

from helpers import imported_back
from paperdesk.cli import main
from paperdesk.core.fields import field
from paperdesk.core.library import Library
from paperdesk.core.models import Author, Metadata, field_values
from paperdesk.core.store.schema import SCHEMA_VERSION

REALWORLD = Path("/work/shared/realworld")
needs_realworld = pytest.mark.skipif(not REALWORLD.is_dir(),
                                     reason="no real-world files in /work/shared/realworld")
NEW = ("publisher", "isbn", "issn", "language")


def _biblatex_examples() -> Path | None:
    try:
        found = subprocess.run(["kpsewhich", "biblatex-examples.bib"], capture_output=True,
                               text=True, check=False).stdout.strip()
    except OSError:
        return None
    return Path(found) if found else None


def _new(meta: Metadata) -> dict[str, str]:
    return {name: meta.value(name) for name in NEW if meta.value(name)}


def _by_key(lib: Library, key: str):
    return next(lib.papers.get(i) for i in lib.papers.ids()
                if lib.papers.citation_key(i) == key)


def _by_title(lib: Library, words: str):
    return next(lib.papers.get(i) for i in lib.papers.ids() if words in lib.papers.get(i).title)


def test_the_four_are_table_rows_with_their_format_names():
    names = {n: (field(n).bibtex, field(n).csl, field(n).stored, field(n).cli) for n in NEW}
    assert names == {"publisher": ("publisher", "publisher", True, "--publisher"),
                     "isbn": ("isbn", "ISBN", True, "--isbn"),
                     "issn": ("issn", "ISSN", True, "--issn"),
                     "language": ("language", "language", True, "--language")}
    assert field("publisher").ris == "PB" and field("language").ris == "LA"
    assert field("language").bibtex_read == ("langid",)
    assert SCHEMA_VERSION >= 10


@needs_realworld
def test_read_from_real_bibtex_ris_and_csl_json(tmp_path):
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([REALWORLD / "jabref_BibtexImporter.examples.bib",
                                  REALWORLD / "jabref_RisImporterTestScience.ris",
                                  REALWORLD / "zotero_CSLJSON_js_test000.json"])
        assert not [f.error for f in report.files if f.error]
        # @book: its publisher is its venue (written once, read once); ISBN kept.
        git = _by_key(lib, "Preissel2016")
        assert git.metadata.value("venue") == "dpunkt.verlag"
        assert _new(git.metadata) == {"isbn": "978-3-86490-311-3"}
        # RIS JOUR: SN is the journal's ISSN.
        science = _by_title(lib, "Phase separation")
        assert _new(science.metadata) == {"issn": "1359-6454"}
        # CSL-JSON book: publisher (its venue), ISBN and language.
        book = _by_title(lib, "Stochastic biomathematical")
        assert book.metadata.value("venue") == "Springer"
        assert _new(book.metadata) == {"isbn": "978-3-642-32156-6", "language": "en"}


def test_read_from_biblatex_examples(tmp_path):
    path = _biblatex_examples()
    if path is None:
        pytest.skip("biblatex-examples.bib not installed (texlive-bibtex-extra)")
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([path])
        assert _new(_by_key(lib, "sarfraz").metadata) == {"issn": "0097-8493"}
        assert _new(_by_key(lib, "aristotle:anima").metadata)["language"] == "english"


def _exports(lib: Library, pid: int) -> dict[str, str]:
    return {fmt: lib.exports.text([pid], fmt)
            for fmt in ("bibtex", "ris", "csl-json", "csv", "json")}


@pytest.mark.parametrize("kind, values, lines", [
    ("article", {"publisher": "Springer Nature", "issn": "2522-5839", "language": "en"},
     {"bibtex": ["  journal = {{J. Tests}},", "  publisher = {Springer Nature},",
                 "  issn = {2522-5839},", "  language = {en},"],
      "ris": ["T2  - J. Tests", "PB  - Springer Nature", "SN  - 2522-5839", "LA  - en"]}),
    ("incollection", {"publisher": "MIT Press", "isbn": "978-0-262-03384-8"},
     {"bibtex": ["  booktitle = {{J. Tests}},", "  publisher = {MIT Press},",
                 "  isbn = {978-0-262-03384-8},"],
      "ris": ["T2  - J. Tests", "PB  - MIT Press", "SN  - 978-0-262-03384-8"]}),
])
def test_written_to_every_format_and_read_back(seeded_library, tmp_path, kind, values,
                                               lines):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    lib.papers.set_metadata(pid, Metadata(authors=(Author("Doe", "Jane"),), date="2020",
                                          venue="J. Tests", entry_type=kind,
                                          values=field_values(values)))
    out = _exports(lib, pid)
    for fmt in ("bibtex", "ris"):
        got = out[fmt].splitlines()
        assert [line for line in lines[fmt] if line not in got] == [], fmt
    item = json.loads(out["csl-json"])[0]
    csl = {field(n).csl: v for n, v in values.items()}
    assert {k: item.get(k) for k in csl} == csl
    assert item["container-title"] == "J. Tests"
    row = next(csv.DictReader(io.StringIO(out["csv"].lstrip("\ufeff"))))
    assert {n: row[n] for n in NEW} == {n: values.get(n, "") for n in NEW}
    doc = json.loads(out["json"])["papers"][0]
    assert {n: doc[n] or "" for n in NEW} == {n: values.get(n, "") for n in NEW}
    for fmt, back in imported_back(out, tmp_path).items():
        assert _new(back.metadata) == values, fmt
        assert back.metadata.value("venue") == "J. Tests", fmt


def test_a_books_publisher_is_written_once_as_its_venue(seeded_library, tmp_path):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    lib.papers.set_metadata(pid, Metadata(date="1984", venue="Addison-Wesley",
                                          entry_type="book",
                                          values=field_values({"publisher": "Other",
                                                               "isbn": "0-201-13447-0"})))
    out = _exports(lib, pid)
    assert out["bibtex"].count("publisher =") == 1 and "{{Addison-Wesley}}" in out["bibtex"]
    assert out["ris"].count("PB  - ") == 1 and "PB  - Addison-Wesley" in out["ris"]
    assert "SN  - 0-201-13447-0" in out["ris"]
    assert json.loads(out["csl-json"])[0]["publisher"] == "Addison-Wesley"
    path = tmp_path / "book.bib"
    path.write_text(out["bibtex"], encoding="utf-8")
    with Library.open(tmp_path / "back") as other:
        other.imports.run([path])
        (back,) = [other.papers.get(i) for i in other.papers.ids()]
        assert back.metadata.value("venue") == "Addison-Wesley"
        assert _new(back.metadata) == {"isbn": "0-201-13447-0"}


def test_cli_edit_and_show(seeded_library, capsys):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    folder = str(lib.path)
    lib.close()
    assert main(["--library", folder, "edit", str(pid), "--publisher", "ACM",
                 "--issn", "0001-0782", "--language", "en"]) == 0
    capsys.readouterr()
    assert main(["--library", folder, "show", str(pid), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["metadata"]
    assert {n: shown[n] for n in NEW} == {"publisher": "ACM", "isbn": "",
                                          "issn": "0001-0782", "language": "en"}


def test_searched_by_name_and_publisher_and_language_are_list_columns(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids(order="added")
    lib.papers.set_metadata(ids[0], Metadata(values=field_values(
        {"publisher": "Springer Nature", "isbn": "978-3-16-148410-0", "language": "de"})))
    lib.papers.set_metadata(ids[1], Metadata(values=field_values(
        {"publisher": "Elsevier", "issn": "0028-0836", "language": "en"})))
    assert [h.id for h in lib.search.hits("publisher:springer")] == [ids[0]]
    assert [h.id for h in lib.search.hits('publisher:"springer nature"')] == [ids[0]]
    assert [h.id for h in lib.search.hits("isbn:978-3-16-148410-0")] == [ids[0]]
    assert [h.id for h in lib.search.hits("issn:0028-0836")] == [ids[1]]
    assert [h.id for h in lib.search.hits("language:de")] == [ids[0]]
    # Publisher and language are list columns (hidden until chosen) that sort, papers
    # without a value last either way.
    assert field("publisher").header == "Publisher" and field("language").header == "Language"
    assert lib.papers.ids(order="publisher")[:2] == [ids[1], ids[0]]
    assert lib.papers.ids(order="publisher", descending=True)[:2] == [ids[0], ids[1]]
    assert lib.papers.ids(order="language")[:2] == [ids[0], ids[1]]
