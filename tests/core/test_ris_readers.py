"""The RIS export read by rispy, JabRef and citation-js: record layout, citation keys,
publication years (never the date added), authors, DOIs and arXiv ids.

Programs that are not installed are skipped (``make clients`` installs them).
"""

from __future__ import annotations

import re

import pytest
import rispy

import clients
from paperdesk.core.exports.ris import RIS_TYPES, ris_text


def jabref_entries(saved: str) -> list[tuple[str, str, dict[str, str]]]:
    """The entries of a BibTeX file JabRef saved, as ``(type, key, {field: value})``,
    read line by line (JabRef writes one field per line). Not bibtexparser: JabRef 3.8
    writes an empty key when it has none, and reads text between two ``#`` as a @string
    name, writing ``} # ... #{`` into the value (docs/export.md)."""
    entries = []
    for block in re.split(r"\n(?=@)", saved):
        head = re.match(r"@(\w+)\{([^,\n]*),", block)
        if head is None or head.group(1).lower() == "comment":
            continue
        fields = dict(re.findall(r"^  (\w+)\s*= \{?(.*?)\}?,?$", block, re.MULTILINE))
        entries.append((head.group(1).lower(), head.group(2), fields))
    return entries


@pytest.fixture(scope="module")
def exported(cited_library, cited_exports):
    """(the .ris file, its text, [papers in export order])."""
    path = cited_exports["ris"]
    papers = [cited_library.papers.get(i) for i in cited_library.papers.ids()]
    return path, path.read_text(encoding="utf-8"), papers


def test_records_start_with_ty_and_end_with_er(exported):
    _path, text, papers = exported
    blocks = text.split("ER  - \n")
    assert blocks[-1] == "" and len(blocks) - 1 == len(papers)
    for block, paper in zip(blocks, papers):
        lines = block.rstrip("\n").split("\n")
        assert lines[0] == f"TY  - {RIS_TYPES[paper.entry_type]}"
        assert lines[1] == f"ID  - {paper.citation_key}"
        assert all(re.fullmatch(r"[A-Z][A-Z0-9]  - .*", line) for line in lines), lines
        tags = [line[:2] for line in lines]
        assert tags.count("AU") == len(paper.authors)
        assert tags.count("KW") == len(paper.tags)
        assert tags.count("N1") == bool(paper.note.strip()) + len(paper.highlights)


def test_rispy_reads_every_field(exported):
    _path, text, papers = exported
    records = rispy.loads(text)
    assert len(records) == len(papers)
    for record, paper in zip(records, papers):
        meta = paper.metadata
        assert record["id"] == paper.citation_key
        assert record["type_of_reference"] == RIS_TYPES[paper.entry_type]
        assert record.get("authors", []) == [ris_text(str(a)) for a in paper.authors]
        assert record["title"] == ris_text(paper.title)
        assert record["abstract"] == ris_text(paper.abstract)
        # The publication date only from the paper's own date; the date added is Y2.
        assert record.get("year") == (meta.date[:4] if meta.date else None)
        if meta.date and len(meta.date) > 4:   # DA only with a month: PY alone for a year
            y, m, *d = meta.date.split("-")
            assert record["date"] == f"{y}/{m}/{d[0] if d else ''}/"
        else:
            assert "date" not in record
        assert record["access_date"] == paper.added_at[:10].replace("-", "/") + "/"
        assert record["database_provider"] == "paperdesk"
        assert record.get("doi") == meta.doi
        if meta.arxiv_id:
            assert record["accession_number"] == "arXiv:" + meta.arxiv_id
        urls = record.get("urls", [])
        assert urls == ([meta.url] if meta.url else
                        [f"https://arxiv.org/abs/{meta.arxiv_id}"] if meta.arxiv_id else [])
        assert not set(urls) & set(paper.mentioned.urls)      # links the abstract cites


def test_ris_text_keeps_paired_braces_and_marks_lone_ones():
    assert ris_text("a {b} c") == "a {b} c"
    assert ris_text("x } y {z} {") == "x ｝ y {z} ｛"
    assert ris_text("line\nbreak  and\ttab") == "line break and tab"


@pytest.mark.slow
def test_jabref_imports_keys_and_publication_years(exported, tmp_path):
    path, _text, papers = exported
    # JabRef keeps RIS ID as the field refid; with the key pattern [refid] it is the key.
    saved, output = clients.jabref_convert(path, "ris", tmp_path,
                                           key_pattern=clients.JABREF_KEY_FROM_REFID)
    assert "exception" not in output.lower() and "error" not in output.lower(), output
    entries = jabref_entries(saved)
    assert [key for _type, key, _fields in entries] == [p.citation_key for p in papers]
    types = {"JOUR": "article", "CONF": "inproceedings", "BOOK": "book",
             "CHAP": "incollection", "THES": "phdthesis", "RPRT": "techreport",
             "GEN": "other"}                          # JabRef 3.8's reading of TY
    for (kind, key, fields), paper in zip(entries, papers):
        assert kind == types[RIS_TYPES[paper.entry_type]], key
        assert fields["refid"] == key
        if paper.metadata.date:
            assert fields["year"] == paper.metadata.date[:4], key
        else:   # not the year it was added (Y2)
            assert "year" not in fields, key
        if paper.authors:
            assert fields["author"].count(" and ") == len(paper.authors) - 1, key


@pytest.mark.slow
def test_jabref_without_the_key_pattern_keeps_the_key_as_refid(cited_library, tmp_path):
    lib = cited_library
    ids = lib.cited["seed"][:3]
    path = tmp_path / "three.ris"
    lib.exports.to_file(ids, "ris", path)
    saved, _output = clients.jabref_convert(path, "ris", tmp_path)
    entries = jabref_entries(saved)
    assert [key for _type, key, _fields in entries] == ["", "", ""]
    assert [f["refid"] for _t, _k, f in entries] == [lib.papers.citation_key(i) for i in ids]
    assert [f["year"] for _t, _k, f in entries] == [lib.papers.metadata(i).date[:4] for i in ids]


def test_citation_js_reads_keys_years_and_authors(exported):
    _path, text, papers = exported
    read = clients.citation_js("ris", text)
    assert [e for e in read["log"] if e[0] in ("warn", "error")] == []
    items = read["items"]
    assert len(items) == len(papers)
    for item, paper in zip(items, papers):
        assert item["id"] == paper.citation_key
        assert item["title"] == ris_text(paper.title)
        assert item["abstract"] == ris_text(paper.abstract)          # not a note
        assert item["accessed"]["date-parts"][0] == \
            [int(p) for p in paper.added_at[:10].split("-")]
        # citation-js reads the PY of a CONF record without DA as the conference's
        # date (event-date), not as the publication date, which PY is (RIS
        # specification; Zotero reads it so).
        date = ("event-date" if RIS_TYPES[paper.entry_type] == "CONF"
                and len(paper.metadata.date or "") == 4 else "issued")
        issued = item.get(date, {}).get("date-parts", [[None]])[0][0]
        assert issued == (paper.year if paper.year else None), paper.citation_key
        names = [(a.get("family", "") + (", " + a["given"] if a.get("given") else ""))
                 or a.get("literal") for a in item.get("author", [])]
        assert names == [ris_text(str(a)) for a in paper.authors], paper.citation_key
        if paper.metadata.doi:
            assert item["DOI"] == paper.metadata.doi
