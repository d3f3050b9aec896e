"""RIS and CSL-JSON files that other programs wrote (``../shared/realworld/``, origins in
its README) come in whole: no garbage paper, no wrong author; RIS with one space before
the hyphen is read as Zotero reads it; a record or item that cannot be read is left out
with a note naming it and the rest of the file comes in; RIS tags without a ``TY`` line
are refused in one line; RIS ``KW``/``N1`` are read as keywords and notes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core.imports.csl_json import read_csl_json
from paperdesk.core.imports.daily_papers import ParseError
from paperdesk.core.imports.detect import detect_file, detect_text
from paperdesk.core.imports.registry import Sample
from paperdesk.core.imports.ris import read_ris
from paperdesk.core.imports.sniff import is_ris

REALWORLD = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
needs_realworld = pytest.mark.skipif(not REALWORLD.is_dir(),
                                     reason=f"the real files are not in {REALWORLD}")
#: The .ris files that are not RIS records to read: a Web of Science tagged export (FN/PT/
#: ER lines, no hyphens: the Web of Science importer's), and JabRef's corrupted file
#: (refused, below).
NOT_READ = {"rispy_example_wos.ris", "jabref_RisImporterCorrupted.ris"}
RIS_FILES = sorted(p.name for p in REALWORLD.glob("*.ris") if p.name not in NOT_READ) \
    if REALWORLD.is_dir() else []
#: Text of a tag line anywhere in a value: what a title or abstract made of file debris
#: (a record's lines read as its text) has.
_TAG_TEXT = re.compile(r"(?:^|\s)[A-Z][A-Z0-9] {1,2}- ")
_NAME_LINE = re.compile(r"^(?:AU|A1) {1,2}- *(\S.*?)\s*$", re.MULTILINE)


def _read(path: Path):
    found = detect_file(path)
    assert found.format == "ris", path.name
    return read_ris(found.path, found.text, found.encoding)


@needs_realworld
@pytest.mark.parametrize("name", RIS_FILES)
def test_every_real_ris_file_comes_in_without_garbage_or_a_wrong_author(name):
    text = (REALWORLD / name).read_text(encoding="utf-8-sig")
    read = _read(REALWORLD / name)
    assert read.records, name
    names = [" ".join(line.split()) for line in _NAME_LINE.findall(text)]
    authors = [a for r in read.records for a in r.metadata.authors]
    for record in read.records:
        for value in (record.title, record.abstract):
            assert not _TAG_TEXT.search(value), (record.label, value[:80])
    # every author is one AU/A1 line's name (family before the comma, given after it)
    for author in authors:
        assert any(line.startswith(author.family) and author.given.split(" ")[0] in line
                   for line in names), (name, author)
    kept = sum(len(r.metadata.authors) for r in read.records)
    assert kept == len(authors) <= len(names)


@needs_realworld
def test_the_zotero_file_rispy_refused_comes_in_but_its_record_without_title(tmp_path,
                                                                            capsys):
    """Zotero's RIS test cases, concatenated: rispy raised ``KeyError('notes_abstract')``
    and the whole file was refused; now 10 records come in and the one with neither a
    title nor an abstract is left out with a note naming it."""
    path = REALWORLD / "zotero_RIS_js_small_testcases.ris"
    assert main(["--library", str(tmp_path / "lib"), "import", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "10 added" in out and "1 left out" in out
    assert "record 9: no title and no abstract; left out" in err
    assert "notes_abstract" not in out + err and "Traceback" not in err
    mixed = next(r for r in _read(path).records if r.title == "Mixed author tags")
    assert [a.family for a in mixed.metadata.authors] == ["Georgiev", "Bello", "Carmi",
                                                          "Cohen"]


@needs_realworld
def test_ris_tags_without_a_ty_line_are_refused_in_one_line(tmp_path, capsys):
    path = REALWORLD / "jabref_RisImporterCorrupted.ris"
    assert main(["--library", str(tmp_path / "lib"), "import", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and str(path) in err
    assert "no record: none starts with a TY line" in err
    assert "'JF  - Empirical Software Engineering'" in err


@needs_realworld
def test_a_web_of_science_export_named_ris_is_not_taken_for_ris():
    body = (REALWORLD / "rispy_example_wos.ris").read_text(encoding="utf-8-sig")
    assert body.startswith("FN Clarivate")
    assert not is_ris(Sample(body))


def test_ris_with_one_space_before_the_hyphen_is_read():
    text = ("TY - JOUR\nAU - Doe, Jane\nA1 - Roe, Richard\nTI - Written with one space\n"
            "PY - 2020\nDO - 10.1000/one.space\nER - \n")
    assert detect_text(text) == "ris"
    (record,) = read_ris("one.ris", text, "utf-8").records
    assert record.title == "Written with one space"
    assert [(a.family, a.given) for a in record.metadata.authors] == [("Doe", "Jane"),
                                                                       ("Roe", "Richard")]
    assert record.metadata.date == "2020" and record.metadata.doi == "10.1000/one.space"


def _good(n: int) -> str:
    return (f"TY  - JOUR\nAU  - Author{n}, Ann\nTI  - Good record number {n}\nPY  - 2021\n"
            f"AB  - The abstract of record {n}, which is fine.\nER  - \n\n")


def test_a_record_without_ty_is_left_out_with_a_note_and_the_rest_come_in():
    text = (_good(1) + _good(2) + _good(3) + _good(4)
            + "JF  - Empirical Software Engineering\nT1  - A record with no TY line\n"
              "ER  - \n\n"
            + _good(6) + _good(7) + _good(8) + _good(9) + _good(10))
    read = read_ris("broken.ris", text, "utf-8")
    assert [r.title for r in read.records] == [f"Good record number {n}"
                                                for n in (1, 2, 3, 4, 6, 7, 8, 9, 10)]
    assert read.skipped == ["record 5 (line 29: 'JF  - Empirical Software Engineering'): "
                            "no TY line starts it; left out"]


def test_a_file_of_ris_tags_without_any_ty_line_is_refused_naming_the_first():
    with pytest.raises(ParseError) as refused:
        read_ris("no-ty.ris", "\nT1  - Title\nAU  - Doe, J\nER  - \n", "utf-8")
    assert refused.value.reason == ("RIS tags but no record: none starts with a TY line "
                                    "(line 2: 'T1  - Title')")


def test_ris_keywords_and_notes_are_read():
    text = ("TY  - JOUR\nTI  - Tagged\nKW  - first keyword\nKW  - second; third\n"
            "fourth\nN1  - A note\nthat goes on\nN1  - Another note\nER  - \n")
    (record,) = read_ris("kw.ris", text, "utf-8").records
    assert record.keywords == ("first keyword", "second", "third", "fourth")
    assert record.notes == ("A note\nthat goes on", "Another note")


@needs_realworld
def test_a_csl_file_with_items_that_are_not_papers_still_comes_in():
    """The CSL test suite's inputs: two of 1,823 items have neither a type nor a title,
    which made the whole file be refused as "not CSL-JSON"."""
    path = REALWORLD / "csl_testsuite_all_inputs.json"
    found = detect_file(path)
    assert found.format == "csl-json"
    items = json.loads(found.text)
    read = read_csl_json(found.path, found.text, found.encoding, found.document)
    titled = [i for i in items if str(i.get("title") or "").strip()
              or str(i.get("abstract") or "").strip()]
    # every titled item comes in; so do untitled ones with a key and other fields (a
    # reference without a title is still one to cite: issue 25 item 10)
    assert len(read.records) >= len(titled) > 1000
    assert {r.citation_key for r in read.records} >= {i["id"] for i in titled}
    assert len(read.records) + len(read.skipped) == len(items) == 1823


def test_a_bad_csl_item_is_left_out_with_a_note_and_the_rest_come_in():
    items = [{"id": "a", "type": "book", "title": "First"}, "not an item",
             {"id": "c", "type": "article-journal", "title": "Third",
              "issued": {"date-parts": [[float("inf")]]}},
             {"id": "d", "type": "book", "title": "Fourth"}, [1, 2]]
    read = read_csl_json("bad.json", json.dumps(items), "utf-8")
    assert [r.title for r in read.records] == ["First", "Third", "Fourth"]
    assert read.skipped == ["item 2: a string, not an item (a JSON object); left out",
                            "item 5: a list, not an item (a JSON object); left out"]
    assert read.warnings == ["item 3 (c): date: 'inf' is not a year or date (use 2023, "
                             "2023-05 or 2023-05-17); value dropped"]


def test_indented_ris_tag_lines_are_read_as_the_sniff_takes_them():
    text = "  TY  - JOUR\n  TI  - Indented lines\n  AU  - Doe, Jane\n  ER  - \n"
    assert detect_text(text) == "ris"
    (record,) = read_ris("indented.ris", text, "utf-8").records
    assert record.title == "Indented lines" and record.metadata.authors[0].family == "Doe"
