"""Exports read back by independent readers: csv, bibtexparser, rispy, jsonschema, and
paperdesk's own JSON import into an empty library."""

import csv
import io
import json
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy

from helpers import write_daily
from paperdesk.core.exports.formats import FORMATS, citation_key, neutralise_cell
from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError

CSL_SCHEMA = json.loads((Path(__file__).parent / "data" / "csl-data.json").read_text())

NASTY = [
    'Commas, "quotes" and a line\nbreak: all in one abstract about caching.',
    "LaTeX specials & % $ # _ { } ~ ^ \\ appear in this abstract about escaping, "
    "with μ and β and Θ and café.",
    '=HYPERLINK("http://example.invalid","x") and more text about spreadsheets.',
    "-1 starts this abstract about negative numbers; +2 and @home too.",
]


@pytest.fixture
def lib(seeded_library, tmp_path):
    seeded_library.imports.run([write_daily(tmp_path / "nasty.txt", NASTY, header="Nasty")])
    ids = seeded_library.papers.ids()[-len(NASTY):]
    seeded_library.tags.add(ids, "to read")
    seeded_library.tags.add(ids[:2], "R&D_50%")
    seeded_library.notes.set(ids[1], "Note with **Markdown**, a {brace} & 100% certainty\n\n- and μ")
    abstract = seeded_library.papers.get(ids[1]).abstract
    start = abstract.index("μ")
    seeded_library.notes.add_highlight(ids[1], start, start + len("μ and β"), comment="Greek, \"quoted\"")
    seeded_library.papers.set_starred([ids[0]], True)
    seeded_library.papers.set_read([ids[2]], True)
    seeded_library.nasty_ids = ids
    return seeded_library


def test_csv_round_trip_with_commas_quotes_and_newlines(lib):
    text = lib.exports.text(lib.nasty_ids, "csv")
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text[1:], newline="")))
    assert [r["abstract"] for r in rows[:2]] == [
        lib.papers.get(lib.nasty_ids[0]).abstract, lib.papers.get(lib.nasty_ids[1]).abstract]
    assert rows[1]["tags"] == "R&D_50%; to read"
    assert rows[1]["note"] == lib.papers.get(lib.nasty_ids[1]).note
    assert "“μ and β” — Greek, \"quoted\"" in rows[1]["highlights"]
    assert rows[0]["starred"] == "yes" and rows[2]["read"] == "yes"
    assert "\r\n" in text  # RFC 4180 line ends


def test_csv_never_starts_a_cell_with_a_formula(lib):
    text = lib.exports.text(lib.nasty_ids, "csv")
    rows = list(csv.reader(io.StringIO(text[1:], newline="")))
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    abstracts = [r[2] for r in rows[1:]]
    assert "'=HYPERLINK(\"http://example.invalid\",\"x\") and more text about spreadsheets." \
        in abstracts
    assert neutralise_cell("plain") == "plain"


def test_bibtex_parses_with_the_right_fields(lib, seeded_library):
    text = lib.exports.text(lib.nasty_ids, "bibtex")
    parsed = bibtexparser.parse_string(text)
    assert parsed.failed_blocks == []
    entries = parsed.entries
    assert len(entries) == len(lib.nasty_ids)
    keys = [e.key for e in entries]
    assert len(set(keys)) == len(keys)
    assert keys == [lib.papers.get(i).citation_key for i in lib.nasty_ids]
    assert keys == [citation_key(lib.papers.get(i)) for i in lib.nasty_ids]
    latex = entries[1].fields_dict
    assert entries[1].entry_type == "misc"
    # The escaping policy of paperdesk.core.exports.latex: specials as macros, paired
    # braces as \{ \}, Greek letters as math, other non-ASCII text as UTF-8.
    for special in (r"\&", r"\%", r"\$", r"\#", r"\_", r"\{ \}", r"\textasciitilde{}",
                    r"\textasciicircum{}", r"\textbackslash{}", r"{$\mu$}", "café"):
        assert special in latex["abstract"].value, special
    assert latex["keywords"].value == r"R\&D\_50\%, to read"
    assert latex["note"].value == (r"Note with **Markdown**, a \{brace\} \& 100\% "
                                   r"certainty - and {$\mu$}")
    assert r"{$\mu$} and {$\beta$}" in latex["annote"].value
    assert "\\ensuremath" not in text and "{\\}}" not in text
    assert sum(c == "{" for c in text) == sum(c == "}" for c in text)


def test_bibtex_keys_are_stable(lib):
    first = lib.exports.text(lib.nasty_ids, "bibtex")
    again = lib.exports.text(list(reversed(lib.nasty_ids)), "bibtex")
    keys = [e.key for e in bibtexparser.parse_string(first).entries]
    keys_again = [e.key for e in bibtexparser.parse_string(again).entries]
    assert keys == list(reversed(keys_again))


def test_mentioned_ids_and_links_are_not_the_entrys_own(lib):
    (hit,) = lib.search.hits('"characterised in"', limit=1)
    entry = bibtexparser.parse_string(lib.exports.text([hit.id], "bibtex")).entries[0]
    # The abstract cites arXiv:2212.08630: another paper's id, not this one's.
    assert "eprint" not in entry.fields_dict and "year" not in entry.fields_dict
    assert "2022" not in entry.key
    (first,) = lib.papers.ids()[:1]
    entry = bibtexparser.parse_string(lib.exports.text([first], "bibtex")).entries[0]
    assert "url" not in entry.fields_dict                  # the code link is mentioned
    assert "https://github.com/SauravP97/Static-Deep-Research/" in \
        entry.fields_dict["abstract"].value


def test_ris_reads_back_with_rispy(lib):
    text = lib.exports.text(lib.nasty_ids, "ris")
    records = rispy.loads(text)
    assert len(records) == len(lib.nasty_ids)
    assert all(r["type_of_reference"] == "GEN" for r in records)
    assert records[1]["abstract"] == " ".join(lib.papers.get(lib.nasty_ids[1]).abstract.split())
    assert records[1]["keywords"] == ["R&D_50%", "to read"]
    for block in text.strip().split("ER  - ")[:-1]:
        lines = block.strip("\n").split("\n")
        assert lines[0] == "TY  - GEN"
        assert all(len(line) >= 6 and line[2:6] == "  - " for line in lines), lines
        assert "" not in lines
    assert sum(line.startswith("AB  - ") for line in text.splitlines()) == len(lib.nasty_ids)


def test_csl_json_is_valid(lib):
    items = json.loads(lib.exports.text(lib.papers.ids(), "csl-json"))
    jsonschema.validate(items, CSL_SCHEMA)
    assert len(items) == 225 + len(NASTY)
    nasty = json.loads(lib.exports.text(lib.nasty_ids, "csl-json"))
    assert nasty[1]["keyword"] == "R&D_50%, to read"
    assert "Greek" in nasty[1]["note"]


def test_markdown_reading_list(lib):
    text = lib.exports.text(lib.nasty_ids, "markdown")
    assert text.startswith("# Reading list\n")
    assert text.count("\n## ") == len(lib.nasty_ids)
    assert "> μ and β\n>\n> — Greek, \"quoted\"" in text
    assert "Tags: `R&D_50%`, `to read`" in text
    assert "**Note**\n\nNote with **Markdown**" in text


def test_json_export_reimports_into_an_empty_library(lib, tmp_path):
    out = tmp_path / "out.json"
    assert lib.exports.to_file(lib.papers.ids(), "json", out) == 225 + len(NASTY)
    with Library.open(tmp_path / "copy") as copy:
        report = copy.imports.run([out])
        assert report.rejected == [] and report.added == 225 + len(NASTY)

        def snapshot(library):
            out = {}
            for pid in library.papers.ids():
                p = library.papers.get(pid)
                out[p.abstract] = (p.title, sorted(t.name for t in p.tags), p.note,
                                   [(h.start, h.end, h.text, h.comment, h.colour)
                                    for h in p.highlights], p.read, p.starred,
                                   [(s.name, s.position) for s in p.sources])
            return out

        assert snapshot(copy) == snapshot(lib)
        assert {t.name: t.colour for t in copy.tags.all()} == {t.name: t.colour for t in lib.tags.all()}
        assert len(copy.search.hits('"μ and β"')) >= 1
        again = copy.imports.run([out])
        assert again.added == 0


def test_scopes(lib):
    assert lib.exports.scope_ids(tag="TO READ") == lib.nasty_ids
    assert lib.exports.scope_ids(everything=True) == lib.papers.ids()
    assert lib.exports.scope_ids(ids=[3, 1]) == [3, 1]
    assert set(lib.exports.scope_ids(query="spreadsheets")) == {lib.nasty_ids[2]}
    with pytest.raises(LibraryError, match="no tag named"):
        lib.exports.scope_ids(tag="nope")
    with pytest.raises(LibraryError, match="choose one export scope"):
        lib.exports.scope_ids()


def test_field_selection(lib):
    rows = list(csv.reader(io.StringIO(
        lib.exports.text(lib.nasty_ids, "csv", fields=["tags"])[1:], newline="")))
    assert rows[0] == ["id", "title", "tags"]
    with pytest.raises(ValueError, match="unknown export field"):
        lib.exports.text(lib.nasty_ids, "csv", fields=["colour"])


def test_bibtex_keeps_characters_without_a_latex_macro(lib, capsys):
    pid = lib.nasty_ids[0]
    lib.tags.add([pid], "日本語 🤖")
    text = lib.exports.text([pid], "bibtex")
    entry = bibtexparser.parse_string(text).entries[0]
    assert "日本語 🤖" in entry.fields_dict["keywords"].value
    assert "bfseries" not in text
    assert capsys.readouterr().err == ""


def test_export_keeps_permissions_and_writes_through_symlinks(lib, tmp_path):
    import os
    import stat

    existing = tmp_path / "keep.bib"
    existing.write_text("old")
    existing.chmod(0o640)
    lib.exports.to_file(lib.nasty_ids, "bibtex", existing)
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640
    fresh = tmp_path / "new.ris"
    old_umask = os.umask(0o022)
    try:
        lib.exports.to_file(lib.nasty_ids, "ris", fresh)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
    (tmp_path / "shared").mkdir()
    real = tmp_path / "shared" / "real.bib"
    real.write_text("old")
    link = tmp_path / "link.bib"
    link.symlink_to(real)
    lib.exports.to_file(lib.nasty_ids, "bibtex", link)
    assert link.is_symlink()
    assert len(bibtexparser.parse_string(real.read_text()).entries) == len(lib.nasty_ids)


def test_failed_write_leaves_no_file_and_keeps_the_old_one(lib, tmp_path):
    target = tmp_path / "list.bib"
    target.write_text("old content")
    with pytest.raises(LibraryError, match="cannot write"):
        lib.exports.to_file(lib.nasty_ids, "bibtex", tmp_path / "missing" / "x.bib")
    calls = []

    def cancel():
        calls.append(1)
        return True

    from paperdesk.core.exports.to_file import ExportCancelled
    with pytest.raises(ExportCancelled):
        lib.exports.to_file(lib.papers.ids(), "bibtex", target, cancel=cancel)
    assert target.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_exports_the_whole_seed_library(seeded_library, tmp_path, fmt):
    out = tmp_path / f"all.{fmt}"
    assert seeded_library.exports.to_file(seeded_library.papers.ids(), fmt, out) == 225
    if fmt == "bibliography":       # references only (no abstracts): one entry a paper
        assert out.read_text(encoding="utf-8").count('class="csl-entry"') == 225
        return
    assert out.stat().st_size > 100_000


def test_bibtex_text_has_no_character_that_stops_latex():
    # Found by compiling the export of ../shared/realworld: U+FFFD (in the CSL test
    # suite) stops lualatex with "String contains an invalid utf-8 sequence"; U+200E
    # (JabRef's testjabref.bib) stops pdflatex.
    from paperdesk.core.exports.latex import latex_text
    assert latex_text("las p\ufffdrdidas \u200eOrganization\u200f") == "las p?rdidas Organization"
