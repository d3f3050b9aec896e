"""Zotero as the oracle for reading RIS: every test case of Zotero's RIS translator
(zotero/translators RIS.js, kept in ``../shared/realworld/zotero_ris_expected/`` as
``NNN.ris`` with the items Zotero makes of it, ``NNN.expected.json``) read by paperdesk
gives Zotero's authors (order, family and given names), dates, types, titles, DOIs,
abstracts and keywords, record by record.

What is compared, and the choices behind it (docs/import.md says the same):

* authors: paperdesk's authors are the record's ``AU`` and ``A1`` names in file order;
  they are compared with Zotero's creators of the kinds those tags make
  (:data:`PRIMARY_CREATORS`: author, and for some item types inventor, artist, director
  ...). Editors, series editors, translators and the like (``A2``-``A4``, ``ED``) are not
  paperdesk authors and are left out on both sides. A Zotero one-field name
  (``fieldMode`` 1) is paperdesk's family-only name.
* dates: Zotero's ``date`` (or ``issueDate``, ``dateDecided``, ``dateEnacted``); its
  ``0000 ...`` (a date without a year, such as the test files' ``Date``) is no date in
  paperdesk, which keeps only real dates.
* types: Zotero's item type mapped to paperdesk's entry types by :data:`ZOTERO_TYPES`.
* keywords: Zotero's tags (``KW`` lines, split at line breaks and semicolons), as a
  set (Zotero sorts them).
* titles, abstracts: compared with runs of white space made one space (paperdesk
  normalises them so); DOIs compared case-insensitively.

The exceptions, each with its reason, are :data:`DIFFERENCES`: kept short, and every one
of them is checked to still be a difference (a fix makes the test say so).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paperdesk.core.imports.detect import detect_file
from paperdesk.core.imports.formats import IMPORT_FORMATS
from paperdesk.core.imports.records import is_placeholder_abstract

ORACLE = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / \
    "zotero_ris_expected"
CASES = sorted(p.stem for p in ORACLE.glob("*.ris")) if ORACLE.is_dir() else []

#: The creator kinds Zotero's RIS.js gives the names of ``AU`` and ``A1`` lines, by item
#: type (``author`` for most; RIS.js's ``fieldMap.AU``).
PRIMARY_CREATORS = frozenset({"author", "artist", "cartographer", "composer", "director",
                              "interviewee", "inventor", "podcaster", "programmer"})

#: Zotero item type -> paperdesk entry type; any other item type is ``misc``.
ZOTERO_TYPES = {
    "journalArticle": "article", "magazineArticle": "article",
    "newspaperArticle": "article", "conferencePaper": "inproceedings", "book": "book",
    "bookSection": "incollection", "encyclopediaArticle": "incollection",
    "dictionaryEntry": "incollection", "thesis": "thesis", "report": "report",
    "manuscript": "preprint",
}

#: RIS types paperdesk maps otherwise than Zotero, and why (Zotero's type in brackets).
TYPE_DIFFERENCES = {
    "GEN": "Generic is misc; Zotero makes every type it lacks its default, a journal "
           "article [journalArticle]",
    "GRANT": "a grant is no article [journalArticle: Zotero knows GRNT, not GRANT]",
    "UNPB": "an unpublished work is a preprint [journalArticle]",
    "INPR": "an article in press is an article [manuscript]",
    "CTLG": "a catalog is no article [magazineArticle]",
    "PAMP": "a pamphlet is misc, not a preprint [manuscript]",
    "UNBILL": "an unenacted bill is misc, not a preprint [manuscript]",
}

#: ``(case, record number, what) -> reason``: other places where paperdesk differs from
#: Zotero on purpose.
DIFFERENCES: dict[tuple[str, int, str], str] = {
    ("002", 9, "title"): "a case's title is its TI (the specification's title); Zotero "
                         "takes the ST (short title) before it as the case name",
    ("002", 45, "title"): "a statute's title is its TI; Zotero takes the ST before it as "
                          "the name of the act",
    ("002", 18, "authors"): "paperdesk has no editors: an edited book's AU names, its "
                            "only people, stay its authors (Zotero makes them editors)",
}

#: Zotero keeps an abstract that only says there is none (the test files' ``Abstract``)
#: and a record with neither a title nor an abstract; paperdesk drops the first
#: (:func:`~paperdesk.core.imports.records.is_placeholder_abstract`) and leaves out the
#: second with a note: both are compared so.


def _space(text: str | None) -> str:
    return " ".join((text or "").split())


def _zotero_date(item: dict) -> str | None:
    """Zotero's date as paperdesk writes one (``1996``, ``2014-06-01``), or ``None``
    when Zotero has none or one without a year (``0000 Year Date``)."""
    for name in ("date", "issueDate", "dateDecided", "dateEnacted"):
        value = item.get(name)
        if value:
            year = value[:4]
            if not year.isdigit() or year == "0000":
                return None
            return value.split(" ")[0]
    return None


def _zotero_view(item: dict) -> dict:
    """What paperdesk compares of one Zotero item."""
    title = next((item[k] for k in ("title", "caseName", "nameOfAct", "subject")
                  if item.get(k)), "")
    abstract = _space(item.get("abstractNote"))
    return {
        "title": _space(title),
        "abstract": "" if is_placeholder_abstract(abstract) else abstract,
        "authors": [(c["lastName"], c.get("firstName", "")) for c in item["creators"]
                    if c["creatorType"] in PRIMARY_CREATORS],
        "date": _zotero_date(item),
        "type": ZOTERO_TYPES.get(item["itemType"], "misc"),
        "doi": (item.get("DOI") or "").lower() or None,
        "keywords": sorted(_space(t["tag"]) for t in item.get("tags", [])),
    }


def _paperdesk_view(record) -> dict:
    """What paperdesk compares of one record it read."""
    meta = record.metadata
    return {
        "title": record.title,
        "abstract": record.abstract,
        "authors": [(a.family, a.given) for a in meta.authors],
        "date": meta.date,
        "type": meta.entry_type,
        "doi": (meta.doi or "").lower() or None,
        "keywords": sorted(record.keywords),
    }


def _read(case: str):
    found = detect_file(ORACLE / f"{case}.ris")
    assert found.format == "ris"
    return IMPORT_FORMATS.get("ris").read(found, ORACLE / f"{case}.ris", None)


@pytest.mark.skipif(not CASES, reason=f"Zotero's RIS test cases are not in {ORACLE}")
@pytest.mark.parametrize("case", CASES)
def test_paperdesk_reads_each_zotero_case_as_zotero_does(case):
    items = json.loads((ORACLE / f"{case}.expected.json").read_text(encoding="utf-8"))
    read = _read(case)
    ours = {r.position: _paperdesk_view(r) for r in read.records}
    types = re.findall(r"^TY {1,2}- *(\S*)", (ORACLE / f"{case}.ris").read_text(
        encoding="utf-8-sig"), flags=re.MULTILINE)
    assert len(types) == len(items)
    wrong, no_longer_different = [], []
    for n, item in enumerate(items, start=1):
        theirs = _zotero_view(item)
        if not theirs["title"] and not theirs["abstract"]:
            assert n not in ours and any(s.startswith(f"record {n}") for s in read.skipped)
            continue
        mine = ours[n]
        for what in theirs:
            reason = DIFFERENCES.get((case, n, what)) or (
                TYPE_DIFFERENCES.get(types[n - 1]) if what == "type" else None)
            differs = mine[what] != theirs[what]
            if differs and not reason:
                wrong.append(f"record {n} {what}: paperdesk {mine[what]!r}, "
                             f"Zotero {theirs[what]!r}")
            elif reason and not differs:
                no_longer_different.append(f"record {n} {what}: now as Zotero; drop the "
                                           f"exception ({reason})")
    assert not wrong, "\n".join(wrong)
    assert not no_longer_different, "\n".join(no_longer_different)
