"""No export writes a field without a value (issue 25, item 11): no ``abstract = {}``,
no empty ``AB`` line, no ``DA  - 2021///`` for a year alone (the RIS specification's
``PY`` is the publication year; ``DA`` is written only with a month), no ``""`` in
CSL-JSON.

Driven by real files: JabRef's ``testjabref.bib`` (entries without abstracts, year-only
dates), read in place from /work/shared/realworld, and the seed library.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paperdesk.core.library import Library

REALWORLD = Path("/work/shared/realworld")
TESTJABREF = REALWORLD / "jabref_testjabref.bib"
needs_realworld = pytest.mark.skipif(not TESTJABREF.is_file(),
                                     reason="no real-world files in /work/shared/realworld")


@pytest.fixture(scope="module")
def exported(tmp_path_factory, seed_files) -> dict[str, str]:
    """JabRef's test library plus the seeds, exported whole in every format."""
    folder = tmp_path_factory.mktemp("no-empty")
    # A paper with neither title nor abstract, kept for its key and DOI (the CSL test
    # suite has hundreds): it had `title = {{}}`, `TI  - ` and `"title": ""`.
    untitled = folder / "untitled.bib"
    untitled.write_text("@misc{untitled2020,\n  author = {Doe, Jane},\n  year = {2020},\n"
                        "  doi = {10.1000/untitled}\n}\n", encoding="utf-8")
    with Library.open(folder / "lib") as lib:
        report = lib.imports.run([TESTJABREF, *seed_files[:1], untitled])
        assert not [f.error for f in report.files if f.error]
        ids = lib.papers.ids()
        without = [i for i in ids if not lib.papers.get(i).abstract]
        year_only = [i for i in ids if len(lib.papers.metadata(i).date or "") == 4]
        no_title = [i for i in ids if not lib.papers.get(i).title]
        assert without and year_only and no_title   # what the test is about is in the data
        yield {fmt: lib.exports.text(ids, fmt)
               for fmt in ("bibtex", "ris", "csl-json", "csv", "json", "markdown")}


@needs_realworld
def test_bibtex_writes_no_empty_field(exported):
    text = exported["bibtex"]
    assert "@" in text
    empty = re.findall(r"(?m)^  (\w+) = (?:\{\s*\}|\{\{\s*\}\}|\"\s*\"),?$", text)
    assert empty == []


@needs_realworld
def test_ris_writes_no_empty_line_and_no_year_only_da(exported):
    lines = exported["ris"].splitlines()
    assert lines and lines[0].startswith("TY  - ")
    empty = [line for line in lines if re.fullmatch(r"[A-Z][A-Z0-9]  -\s*", line)
             and not line.startswith("ER")]
    assert empty == []
    das = [line for line in lines if line.startswith("DA  - ")]
    assert das and all(re.fullmatch(r"DA  - \d{4}/\d{2}/(\d{2})?/", d) for d in das), das
    # A year alone is PY alone: as many PY lines as papers with a date.
    records = exported["ris"].split("ER  - \n")[:-1]
    year_only = [r for r in records if "PY  - " in r and "DA  - " not in r]
    assert year_only


@needs_realworld
def test_csl_json_writes_no_empty_variable(exported):
    items = json.loads(exported["csl-json"])

    def empty(value) -> bool:
        return value in ("", [], {}, None) or (isinstance(value, str) and not value.strip())

    found = [(item["id"], name) for item in items for name, value in item.items()
             if empty(value)]
    assert found == []
    assert any("abstract" not in item for item in items)


@needs_realworld
def test_markdown_writes_no_empty_paragraph(exported):
    text = exported["markdown"]
    assert "## " in text
    # An empty abstract paragraph showed as three blank lines in a row.
    assert "\n\n\n\n" not in text


def test_a_paper_without_a_title_is_in_a_formatted_bibliography(tmp_path):
    """A new user's try: the formatted bibliography raised KeyError: 'title' once CSL
    items of such papers had no empty title any more."""
    from paperdesk.core.exports.bibliography import pandoc_path

    bib = tmp_path / "untitled.bib"
    bib.write_text("@article{anon2021,\n  author = {Tanaka, Hiro and Li, Wei},\n"
                   "  year = {2021},\n  doi = {10.1234/abc.5678}\n}\n", encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        assert lib.imports.run([bib]).added == 1
        (pid,) = lib.papers.ids()
        from paperdesk.core.exports.bibliography_export import bibliography_items

        (item,) = bibliography_items([lib.papers.get(pid)])
        assert "title" not in item and item["DOI"] == "10.1234/abc.5678"
        try:
            pandoc_path()
        except Exception:  # noqa: BLE001 - pandoc is optional here
            pytest.skip("pandoc is not installed")
        text = lib.exports.text([pid], "bibliography")
        assert "Tanaka" in text and "2021" in text



def test_a_paper_without_a_title_is_named_no_title_in_the_cli_and_markdown(tmp_path,
                                                                         capsys):
    """A new user's try: `search` printed an empty title column, `show` an empty first
    line and the Markdown export an empty `## ` heading."""
    from paperdesk.cli import main
    from paperdesk.core.models import NO_TITLE

    bib = tmp_path / "untitled.bib"
    bib.write_text("@article{anon2021,\n  author = {Tanaka, Hiro},\n  year = {2021},\n"
                   "  doi = {10.1234/abc.5678}\n}\n", encoding="utf-8")
    lib = str(tmp_path / "lib")
    assert main(["--library", lib, "import", str(bib)]) == 0
    capsys.readouterr()
    assert main(["--library", lib, "show", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == NO_TITLE
    assert main(["--library", lib, "search", "tanaka"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(f"  {NO_TITLE}")
    assert main(["--library", lib, "export", "--all", "--format", "markdown"]) == 0
    assert f"\n## {NO_TITLE}\n" in capsys.readouterr().out
