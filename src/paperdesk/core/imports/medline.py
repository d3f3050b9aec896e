"""Reading PubMed/MEDLINE files (PubMed's "Save: PubMed format", ``pubmed-*.txt``, and
"Cite: NBIB", ``*.nbib``) into records. Pure: no database, no Qt.

The format, as NLM's "MEDLINE/PubMed Data Element (Field) Descriptions" describe it:
records separated by blank lines, each starting with ``PMID- ``; every line starts with
a tag of up to four capitals, padded with spaces to four characters, then ``- `` and the
value (``AU  - Loach PA``, ``FAU - Loach, Paul A``); a value continues on lines indented
by six spaces. A tag occurs once per value (one ``AU`` per author).

Tags taken:

- ``FAU`` (full names, ``Family, Given``), else ``AU`` (``Family Initials``): the
  authors, in order; bare initials get full stops; ``CN`` (corporate authors) are added as
  organisations;
- ``TI`` title (for a book ``BTI``), without the full stop MEDLINE ends it with and the
  brackets it puts around a translated title; ``AB`` abstract;
- ``DP`` the date of publication (``2004 Jun 8``, ``2019 Mar-Apr``, ``2004 Spring``);
- ``JT`` (the journal's full title), else ``TA`` (its abbreviation): the venue; for a
  chapter the book title ``BTI``;
- ``VI`` volume, ``IP`` issue, ``PG`` pages (MEDLINE shortens the last page, ``7003-16``:
  stored as ``7003-7016``), ``LID``/``AID`` values marked ``[doi]`` the DOI, ``IS`` the
  first ISSN (``0006-2960 (Print)``), ``ISBN``, ``PB`` publisher, ``LA`` language (as
  written: ``eng``);
- ``PT``: ``Preprint`` gives ``preprint``; a record with a book title ``BTI`` is a
  ``book`` (with a chapter title ``TI`` as well, ``incollection``); others ``article``;
- ``OT`` (other terms: author keywords) and ``MH`` (MeSH headings, without their
  subheadings and the ``*`` marking major topics): keywords, stored as tags;
- ``PMID``: names the record in notes and gives its URL,
  ``https://pubmed.ncbi.nlm.nih.gov/<PMID>/``.

A record with a line that is neither a tag line nor a continuation is left out with a
note naming it and the line.
"""

from __future__ import annotations

import re
from pathlib import Path

from paperdesk.core.imports.abstract_limit import bounded
from paperdesk.core.imports.records import RawRecord, RecordFile
from paperdesk.core.imports.tagged import (TaggedRecord, checked_records, named_date,
                                           person, pubmed_url, tagged_fields)

__all__ = ["MEDLINE_START", "medline_records", "full_pages", "read_medline"]

#: The first line of a MEDLINE record.
MEDLINE_START = re.compile(r"PMID- *\d+")
# The tag padded to four characters, then "-" and a space (none when the value is empty).
_TAG_LINE = re.compile(r"(?=[A-Z0-9 ]{4}-)(?P<tag>[A-Z][A-Z0-9]{1,3}) {0,2}-(?: (?P<value>.*))?")
_INDENT = "      "
_DOI = re.compile(r"(10\.\S+)\s*\[doi\]")
_PAGES = re.compile(r"(\d+)-(\d+)")


def medline_records(text: str) -> list[TaggedRecord]:
    """Split a MEDLINE file into its records: each ``PMID`` field starts one.

    Args:
        text: the decoded file.
    Returns:
        The records in file order (what comes before the first ``PMID`` is a record of
        its own, without one).
    """
    records: list[TaggedRecord] = []
    for f in tagged_fields(text, _TAG_LINE, _INDENT):
        if f.tag == "PMID" or not records:
            records.append(TaggedRecord(len(records) + 1, f.line))
        records[-1].fields.append(f)
    return records


def full_pages(pages: str) -> str:
    """A MEDLINE page range with its last page written whole: ``"7003-16"`` ->
    ``"7003-7016"``; ``"e123"``, ``"7003-7016"`` and other forms unchanged."""
    m = _PAGES.fullmatch(pages.strip())
    if not m or len(m.group(2)) >= len(m.group(1)):
        return pages.strip()
    first, last = m.groups()
    return f"{first}-{first[:len(first) - len(last)]}{last}"


def _short_name(name: str) -> str:
    """MEDLINE's ``AU`` (``"Loach PA"``) as ``"Loach, PA"``."""
    family, _, given = name.rpartition(" ")
    return f"{family}, {given}" if family and given.isupper() else name


def _title(text: str) -> str:
    """A MEDLINE title without the full stop MEDLINE ends every title with, and without
    the brackets around a title translated into English (``[Title in English].``)."""
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1]
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return text


def _entry_type(record: TaggedRecord) -> str:
    if any(t.lower() == "preprint" for t in record.values("PT")):
        return "preprint"
    if record.text("BTI"):
        return "incollection" if record.text("TI") else "book"
    return "article"


def _raw(record: TaggedRecord) -> RawRecord:
    pmid = record.text("PMID")
    raw = RawRecord(label=f"record {record.number}" + (f" (PMID {pmid})" if pmid else
                                                       f" (line {record.line})"))
    names = record.values("FAU") or [_short_name(n) for n in record.values("AU")]
    found = [person(n, raw.problems) for n in names + record.values("CN")]
    raw.authors = [a for a in found if a]
    raw.title = _title(record.text("TI", "BTI"))
    raw.abstract, raw.abstract_length = bounded(record.text("AB"))
    raw.date = named_date(record.text("DP"))
    raw.entry_type = _entry_type(record)
    raw.doi = next((m.group(1) for v in record.values("LID") + record.values("AID")
                    for m in [_DOI.search(v)] if m), None)
    raw.url = pubmed_url(pmid)
    venue = record.text("BTI") if raw.entry_type == "incollection" else record.text("JT", "TA")
    issn = record.text("IS").split(" ")[0]
    values = {"venue": venue, "volume": record.text("VI"), "issue": record.text("IP"),
              "pages": full_pages(record.text("PG")), "issn": issn,
              "isbn": record.text("ISBN"), "publisher": record.text("PB"),
              "language": record.text("LA")}
    raw.values = {k: v for k, v in values.items() if v}
    headings = [h.split("/")[0].replace("*", "").strip() for h in record.values("MH")]
    raw.keywords = record.values("OT") + [h for h in headings if h]
    return raw


def read_medline(path: Path | str, text: str, encoding: str) -> RecordFile:
    """Read the records of a PubMed/MEDLINE file (see the module docstring).

    Args:
        path: the file's absolute path (or ``"<stdin>"``).
        text: its decoded content.
        encoding: the encoding it was decoded with.
    Returns:
        The :class:`~paperdesk.core.imports.records.RecordFile` (format
        ``"medline"``); a record that cannot be read is in its ``skipped``, with the
        reason.
    """
    return checked_records(RecordFile(path, "medline", encoding),
                           medline_records(text.lstrip("\ufeff")), _raw,
                           "a tag of up to four capitals, then '- '", _INDENT)
