"""The CSL-JSON export: valid against the CSL data schema, typed and dated from the paper's
own metadata, and read back by pandoc (``--citeproc``, notes and highlights included)
and citation-js.

Programs that are not installed are skipped (``make clients`` installs them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

import clients
from cited import HOSTILE_NOTE
from paperdesk.core.exports.csl import CSL_TYPES, csl_note
from paperdesk.core.exports.common import highlight_text
from paperdesk.core.exports.formats import FIELDS

CSL_SCHEMA = json.loads((Path(__file__).parent / "data" / "csl-data.json").read_text())
_QUOTES = re.compile("[‘’“”'\"`]")


@pytest.fixture(scope="module")
def exported(cited_library, cited_exports):
    """(the .json file, its items, [papers in export order])."""
    path = cited_exports["csl-json"]
    papers = [cited_library.papers.get(i) for i in cited_library.papers.ids()]
    return path, json.loads(path.read_text(encoding="utf-8")), papers


def test_valid_against_the_csl_schema(exported):
    _path, items, papers = exported
    jsonschema.validate(items, CSL_SCHEMA)
    assert len(items) == len(papers)


def test_ids_types_names_and_dates_come_from_the_papers_own_metadata(exported):
    _path, items, papers = exported
    for item, paper in zip(items, papers):
        meta = paper.metadata
        assert item["id"] == paper.citation_key
        assert item["type"] == CSL_TYPES[paper.entry_type]
        assert item.get("author", []) == [
            {"family": a.family, "given": a.given} if a.given else {"literal": a.family}
            for a in paper.authors]
        if meta.date:
            assert item["issued"] == {"date-parts": [[int(p) for p in meta.date.split("-")]]}
        else:
            assert "issued" not in item
        y, m, d = (int(p) for p in paper.added_at[:10].split("-"))
        assert item["accessed"] == {"date-parts": [[y, m, d]]}
        assert item.get("DOI") == meta.doi
        assert item.get("URL") == (meta.url or (f"https://arxiv.org/abs/{meta.arxiv_id}"
                                                if meta.arxiv_id else None))
        if meta.arxiv_id and item["type"] == "article":
            assert item["number"] == f"arXiv:{meta.arxiv_id}"
            assert item["publisher"] == (meta.venue or "arXiv")
        elif meta.arxiv_id:
            assert (item["archive"], item["archive_location"]) == ("arXiv",
                                                                  f"arXiv:{meta.arxiv_id}")
        assert not set(paper.mentioned.urls) & {item.get("URL")}


def test_a_note_that_starts_like_a_variable_starts_with_a_line_break(cited_library):
    lib = cited_library
    noted = lib.papers.get(lib.cited["hostile"][0])
    assert noted.note.startswith("TODO: ")
    assert csl_note(noted, FIELDS) == "\n" + noted.note + "\n\n" + "Highlight: " + \
        highlight_text(noted.highlights[0])
    plain = lib.papers.get(lib.cited["seed"][0])
    assert csl_note(plain, FIELDS).startswith("Read the method section first.\n\nHighlight: ")
    only_highlights = lib.papers.get(lib.cited["seed"][1])
    assert not only_highlights.note and csl_note(only_highlights, FIELDS).startswith(
        "\nHighlight: ")
    assert csl_note(plain, ["id", "title"]) is None


def _rendered_text(text: str) -> str:
    """``text`` as compared with citeproc's rendering: white space runs made one space;
    for text with quote marks, the marks removed, since citeproc prints straight quotes
    and apostrophes typographically and moves commas and full stops inside closing
    quotes (CSL's typography, applied to every rendered variable)."""
    line = " ".join(text.split())
    return _QUOTES.sub("", line) if _QUOTES.search(line) else line


def test_pandoc_renders_notes_highlights_and_every_text_as_written(exported, tmp_path):
    path, items, _papers = exported
    rendered = clients.pandoc_render(path, [i["id"] for i in items], tmp_path)
    for item, got in zip(items, rendered):
        for variable in ("title", "abstract", "note", "keyword", "container-title",
                         "publisher", "DOI", "URL", "number"):
            if variable in item:
                assert _rendered_text(got.get(variable, "")) == \
                    _rendered_text(item[variable]), (item["id"], variable)
    hostile = next(g for i, g in zip(items, rendered) if i.get("note", "").lstrip()
                   .startswith("TODO"))
    assert hostile["note"].startswith("TODO: check the {unbalanced brace and 100% of "
                                      "$costs$ & more Highlight: this line looks")


def test_pandoc_keeps_every_note_in_a_csl_json_round_trip(exported):
    path, items, _papers = exported
    done = clients.run([clients.program("pandoc"), "-f", "csljson", "-t", "csljson",
                        str(path)])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    back = {i["id"]: i for i in json.loads(done.stdout)}
    noted = [i for i in items if "note" in i]
    assert len(noted) >= 6
    for item in noted:
        assert back[item["id"]].get("note") == item["note"], item["id"]


def test_without_the_line_break_pandoc_loses_such_notes(tmp_path):
    # Why csl_note adds it: citeproc reads leading "Word: value" lines as variables.
    item = {"id": "k", "type": "article", "title": "T", "note": HOSTILE_NOTE}
    path = tmp_path / "one.json"
    path.write_text(json.dumps([item], ensure_ascii=False), encoding="utf-8")
    (got,) = clients.pandoc_render(path, ["k"], tmp_path)
    assert not got.get("note", "").startswith("TODO")
    path.write_text(json.dumps([{**item, "note": "\n" + HOSTILE_NOTE}], ensure_ascii=False),
                    encoding="utf-8")
    (got,) = clients.pandoc_render(path, ["k"], tmp_path)
    assert got["note"].startswith("TODO: check the")


def test_citation_js_reads_every_item(exported):
    path, items, _papers = exported
    read = clients.citation_js("csl", path.read_text(encoding="utf-8"))
    assert [e for e in read["log"] if e[0] in ("warn", "error")] == []
    back = {i["id"]: i for i in read["items"]}
    for item in items:
        for variable, value in item.items():
            assert back[item["id"]][variable] == value, (item["id"], variable)
