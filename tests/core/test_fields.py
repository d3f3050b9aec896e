"""The one list of paper fields: every list of sort keys, search fields and export
fields comes from it, and what it says each export writes is what the writers write."""

from __future__ import annotations

import json

import pytest

from paperdesk import cli
from paperdesk.core import fields, papers
from paperdesk.core.exports import formats as exporting
from paperdesk.core.search import query
from paperdesk.core.fields import (PAGE_RANGE, PAPER_FIELDS, SORT_CHOICES, UnknownField,
                                   field, order_by, sortable_fields, stored_fields)
from paperdesk.core.models import Author, Metadata, field_values


def test_names_are_unique_and_lookups_work():
    names = [f.name for f in PAPER_FIELDS]
    assert len(names) == len(set(names))
    assert field("added").column == "added_at"
    assert field("read").column == "read_at"
    with pytest.raises(UnknownField, match="unknown paper field 'shoe_size'"):
        field("shoe_size")
    with pytest.raises(ValueError):      # UnknownField is a ValueError
        field("")


def test_sort_choices_come_from_the_fields():
    # The fixed fields' names, and every table-driven field that sorts (volume, ...).
    assert SORT_CHOICES == ("relevance", *sorted(
        {"added", "authors", "title", "venue", "year"}
        | {f.name for f in stored_fields() if f.sortable}), "interest")
    assert {f.name for f in sortable_fields()} == set(SORT_CHOICES) - {"relevance",
                                                                        "interest"}
    assert papers._SORTS == {f.name: f.sort_sql for f in sortable_fields()}
    assert order_by("added", descending=True) == "added_at DESC, id DESC"
    assert order_by("title") == "title COLLATE NOCASE ASC, id ASC"
    with pytest.raises(ValueError, match="unknown order 'relevance'"):
        order_by("relevance")
    with pytest.raises(ValueError, match="unknown order 'abstract'"):
        order_by("abstract")


def test_cli_sort_choices_come_from_the_fields():
    parser = cli.build_parser()
    search = parser._subparsers._group_actions[0].choices["search"]
    sort = next(a for a in search._actions if "--sort" in a.option_strings)
    assert tuple(sort.choices) == SORT_CHOICES


def test_search_field_names_come_from_the_fields():
    assert set(query.SEARCH_FIELDS) == {"title", "abstract", "note", "comment", "tag",
                                        "source", "key", "author", "year", "venue", "doi",
                                        "arxiv", "mentions"} | {
                                            f.search for f in stored_fields() if f.search}
    assert query.DEFAULT_FIELDS == ("title", "abstract", "note", "comment", "author")
    assert query.SEARCH_FIELDS == fields.search_fields()
    from paperdesk.core.search.index import build_schema
    schema_names = set(build_schema().names())
    assert set(query.SEARCH_FIELDS) <= schema_names


def test_export_fields_come_from_the_fields():
    assert exporting.FIELDS == fields.export_fields()
    assert tuple(n for n in exporting.FIELDS if not field(n).stored) == (
        "id", "title", "abstract", "tags", "note", "highlights", "citation_key", "type",
        "authors", "year", "doi", "arxiv_id", "url", "mentioned", "sources",
        "added", "read", "starred")
    assert {n for n in exporting.FIELDS if field(n).stored} == {
        f.name for f in stored_fields() if f.csv}


def test_every_sortable_field_sorts_the_seed_library(seeded_library):
    lib = seeded_library
    for f in sortable_fields():
        up = lib.papers.ids(order=f.name)
        down = lib.papers.ids(order=f.name, descending=True)
        assert len(up) == 225 and up == down[::-1]
    titles = [lib.papers.get(i).title.casefold() for i in lib.papers.ids(order="title")[:20]]
    assert titles == sorted(titles)


def _rich_paper_id(lib, folder) -> int:
    """A new paper that mentions a URL and an arXiv id, with every part of its own
    metadata set (an article, so that the venue is a journal; every table-driven field
    too), a tag, a note and a highlight."""
    path = folder / "rich.txt"
    path.write_text("Rich\n\nDepth from one image, see arXiv:2301.01234 and "
                    "https://github.com/example/depth for the code.\n", encoding="utf-8")
    pid = lib.imports.run([path]).added_ids[0]
    lib.tags.add([pid], "depth")
    lib.notes.set(pid, "Read the method section.")
    lib.notes.add_highlight(pid, 0, 10, comment="good start")
    lib.papers.set_metadata(pid, Metadata(authors=(Author("Doe", "Jane"),), date="2023-05-17",
                                   venue="Depth Journal", entry_type="article",
                                   doi="10.1234/depth.1", arxiv_id="2305.01234",
                                   url="https://example.org/depth",
                                   values=field_values({
                                       f.name: "12-34" if f.rule == PAGE_RANGE else "7"
                                       for f in stored_fields()})))
    paper = lib.papers.get(pid)
    assert paper.mentioned.urls and paper.mentioned.arxiv_ids
    return pid


#: Written by BibTeX, RIS and CSL-JSON whatever the fields chosen: title, and what
#: identifies an entry there (its type and citation key).
ALWAYS = ("id", "title", "type", "citation_key")


def test_the_table_says_what_each_export_writes(seeded_library, tmp_path):
    lib = seeded_library
    pid = _rich_paper_id(lib, tmp_path)

    bibtex = lib.exports.text([pid], "bibtex")
    ris = lib.exports.text([pid], "ris")
    csl = json.loads(lib.exports.text([pid], "csl-json"))[0]
    doc = json.loads(lib.exports.text([pid], "json"))["papers"][0]
    header = lib.exports.text([pid], "csv").lstrip("\ufeff").split("\r\n")[0].split(",")
    bare_bib = lib.exports.text([pid], "bibtex", fields=["id", "title"])
    bare_ris = lib.exports.text([pid], "ris", fields=["id", "title"])
    bare_csl = json.loads(lib.exports.text([pid], "csl-json", fields=["id", "title"]))[0]

    assert header == [f.csv for f in PAPER_FIELDS if f.csv]
    for f in PAPER_FIELDS:
        if f.json:
            assert f.json in doc, f.name
        if f.bibtex:
            assert f"\n  {f.bibtex} = " in bibtex, f.name
            if f.name not in ALWAYS:
                assert f"\n  {f.bibtex} = " not in bare_bib, f.name
        if f.ris:
            assert f"\n{f.ris}  - " in "\n" + ris, f.name
            if f.name not in ALWAYS:
                assert f"\n{f.ris}  - " not in "\n" + bare_ris, f.name
        if f.csl:
            assert f.csl in csl, f.name
            if f.name not in ALWAYS:
                assert f.csl not in bare_csl, f.name
    # What the table leaves out is not written either.
    assert "github.com" not in csl.get("URL", "") and "UR  - https://github" not in ris
    assert bibtex.startswith(f"@article{{{lib.papers.citation_key(pid)},")  # the key as stored


def test_a_stored_field_the_generic_code_cannot_carry_is_refused():
    from paperdesk.core.fields import Field, _check_stored

    _check_stored(stored_fields())
    for bad, says in ((Field("x", "X", "text", stored=True), "has no column"),
                      (Field("x", "X", "int", column="x", stored=True), "only 'text'"),
                      (Field("x", "X", "text", column="x", stored=True, merge="newest"),
                       "merge rule 'newest'"),
                      (Field("x", "X", "text", column="x", stored=True, rule=PAGE_RANGE,
                             ris="SP"), "without ris_end")):
        with pytest.raises(ValueError, match=f"paper field 'x': a stored field .*{says}"):
            _check_stored((bad,))


def test_the_venue_is_a_table_row_whose_format_names_follow_the_entry_type(seeded_library):
    """The venue is driven by the table (rule CONTAINER): each entry type's BibTeX field,
    RIS tag and CSL variable are the ones its row names, on a seed paper."""
    from paperdesk.core.exports.csl import CSL_TYPES
    from paperdesk.core.fields import CONTAINER
    from rispy import TAG_KEY_MAPPING
    venue = field("venue")
    assert venue.stored and venue.rule == CONTAINER and venue.words
    assert dict(venue.bibtex_types)["inproceedings"] == "booktitle"
    lib = seeded_library
    pid = lib.papers.ids()[0]
    for kind in ("article", "inproceedings", "book", "thesis", "report", "misc"):
        lib.papers.set_metadata(pid, Metadata(venue="Proc. of {ICML} & Co", entry_type=kind))
        meta = lib.papers.metadata(pid)
        assert (meta.venue, meta.values) == ("Proc. of {ICML} & Co",
                                             (("venue", "Proc. of {ICML} & Co"),))
        bib = lib.exports.text([pid], "bibtex")
        name = dict(venue.bibtex_types).get(kind, venue.bibtex)
        assert f"  {name} = {{{{Proc. of \\{{ICML\\}} \\& Co}}}},\n" in bib, (kind, bib)
        tag = dict(venue.ris_types).get(kind, venue.ris)
        assert f"\n{tag}  - Proc. of {{ICML}} & Co\n" in lib.exports.text([pid], "ris"), kind
        assert TAG_KEY_MAPPING[tag]
        item = json.loads(lib.exports.text([pid], "csl-json"))[0]
        variable = dict(venue.csl_types).get(CSL_TYPES[kind], venue.csl)
        assert item[variable] == "Proc. of {ICML} & Co", kind
    # Given as "", the venue is cleared (dataclasses.replace keeps every other part).
    from dataclasses import replace
    cleared = replace(lib.papers.metadata(pid), venue="")
    assert (cleared.venue, cleared.values, cleared.entry_type) == ("", (), "misc")
