"""Reading Web of Science tagged exports ("Plain text" / "Other file formats: Plain
text file" of the Web of Science Core Collection, ``savedrecs.txt``) into records. Pure:
no database, no Qt.

The format, as Clarivate's "Web of Science Core Collection field tags" describe it: a
header ``FN Clarivate Analytics Web of Science`` (older: ``FN Thomson Reuters Web of
Science``, ``FN ISI Export Format``) and ``VR 1.0``; then records, each a run of lines
that start with a two-character tag and a space, ending with a line ``ER``; a value
continues on lines indented by three spaces (one author, address or cited reference per
line; titles, abstracts and keyword lists wrap); ``EF`` ends the file.

Tags taken:

- ``AF`` (full names, ``Family, Given``), else ``AU`` (``Family, Initials``): the
  authors, one per line; bare initials get full stops (``Loach, PA`` is P. A. Loach);
  ``CA`` (group authors) are added as organisations;
- ``TI`` title; ``AB`` abstract; ``SO`` the venue (journal, book or proceedings title;
  Web of Science writes most in capitals, which :func:`venue_case` turns into title case);
- ``PY`` the year with ``PD`` (``JUN 8``, ``MAR-APR``, ``SPR``) for month and day
  (``DA`` is the date of the export, not of the paper, and is ignored);
- ``DT`` and ``PT`` the entry type: a ``DT`` naming a proceedings paper gives
  ``inproceedings``, a book chapter ``incollection``, a book ``book``; else ``PT``: ``J``
  (journal) ``article``, ``B`` (book) and ``S`` (series) ``book``, ``C`` (conference)
  ``inproceedings``, ``P`` (patent) ``misc``;
- ``VL`` volume, ``IS`` issue, ``BP``-``EP`` pages (else ``AR``, the article number),
  ``DI`` DOI, ``PM`` (a PubMed id) the URL of its PubMed page, ``SN`` (else ``EI``)
  ISSN, ``BN`` ISBN, ``PU`` publisher, ``LA`` language;
- ``DE`` (author keywords) and ``ID`` (Keywords Plus), ``;``-separated: keywords, stored
  as tags.

``UT`` (the accession number, ``WOS:000221807500019``) names the record in notes; it is
not stored (paperdesk has no field for it, and a note per paper would fill the notes
with it). A record with a line that is neither a tag line nor a continuation is left out
with a note naming it and the line; a record the file ends in without ``ER`` is read
with a note.
"""

from __future__ import annotations

import re
from pathlib import Path

from paperdesk.core.imports.abstract_limit import bounded
from paperdesk.core.imports.records import RawRecord, RecordFile
from paperdesk.core.imports.tagged import (TaggedRecord, checked_records, named_date,
                                           person, pubmed_url, split_keywords,
                                           tagged_fields)

__all__ = ["WOS_HEADER", "wos_records", "read_wos", "venue_case"]

#: The first line of a Web of Science export: ``FN`` and the name of the database.
WOS_HEADER = re.compile(r"FN [A-Za-z].*")
_TAG_LINE = re.compile(r"(?P<tag>[A-Z][A-Z0-9])(?: (?P<value>.*))?")
_INDENT = "   "
#: Web of Science's ``PT`` (publication type) -> entry type.
_PT_TYPES = {"J": "article", "B": "book", "S": "book", "C": "inproceedings", "P": "misc"}
#: Words of ``DT`` (document type) that decide the entry type before ``PT``, in order.
_DT_TYPES = (("proceedings paper", "inproceedings"), ("book chapter", "incollection"),
             ("book", "book"))


def wos_records(text: str) -> list[TaggedRecord]:
    """Split a Web of Science export into its records (module docstring).

    Args:
        text: the decoded file.
    Returns:
        The records in file order (header lines ``FN``/``VR`` and the end ``EF`` left
        out); the last has ``ended`` False when the file ends before its ``ER``.
    """
    records: list[TaggedRecord] = []
    current: TaggedRecord | None = None
    for f in tagged_fields(text, _TAG_LINE, _INDENT):
        if current is None:
            if f.tag in ("FN", "VR"):
                continue
            if f.tag == "EF":
                break
            current = TaggedRecord(len(records) + 1, f.line)
        if f.tag == "ER":
            records.append(current)
            current = None
            continue
        current.fields.append(f)
    if current is not None:
        current.ended = False
        records.append(current)
    return records


#: Words a title-cased venue keeps in lower case (but for its first word): the articles,
#: conjunctions and short prepositions of English titles (CMOS 8.159, as CSL's title case).
_LOWER_WORDS = frozenset("a an and as at but by for from in into nor of on onto or over "
                         "the to up via with".split())
#: Words of capitals that stay capitals in a venue: common acronyms of publishers,
#: conferences and fields, and Roman numerals.
_ACRONYMS = frozenset("AAAI ACL ACM AI AIDS AIP ASME BMC BMJ CA CVPR DNA ECCV EMNLP HIV "
                      "ICCV ICLR ICML IEEE IET IJCAI KDD NAACL NIPS SIGIR WWW II III IV "
                      "JAMA NMR NY PLOS RNA SIAM SPIE UK US USA VI VII VIII IX XI XII "
                      "XIII XIV XV".split())
_VENUE_WORD = re.compile(r"[A-Za-z][A-Za-z']*")


def venue_case(venue: str) -> str:
    """A venue written all in capitals (``JOURNAL OF APPLIED PHYSICS``), in title case
    (``Journal of Applied Physics``); a venue with any lower-case letter is returned as
    it is.

    Args:
        venue: the ``SO`` value.
    Returns:
        The venue in title case: each word capitalised but for :data:`_LOWER_WORDS`
        after the first word; :data:`_ACRONYMS` (``IEEE``, ``ACM``, ``II``) stay capitals.
    """
    if not venue or any(c.islower() for c in venue):
        return venue
    first = True

    def word(m: re.Match) -> str:
        nonlocal first
        text, was_first = m.group(0), first
        first = False
        if text in _ACRONYMS:
            return text
        lower = text.lower()
        if not was_first and lower in _LOWER_WORDS:
            return lower
        return lower[:1].upper() + lower[1:]

    return _VENUE_WORD.sub(word, venue)


def _entry_type(record: TaggedRecord) -> str:
    doc_type = record.text("DT").lower()
    for words, entry_type in _DT_TYPES:
        if words in doc_type:
            return entry_type
    return _PT_TYPES.get(record.text("PT").upper(), "article")


def _raw(record: TaggedRecord) -> RawRecord:
    accession = record.text("UT")
    raw = RawRecord(label=f"record {record.number}" + (f" ({accession})" if accession else
                                                       f" (line {record.line})"))
    names = record.lines("AF") or record.lines("AU")
    found = [person(n, raw.problems) for n in names + record.lines("CA")]
    raw.authors = [a for a in found if a]
    raw.title = record.text("TI")
    raw.abstract, raw.abstract_length = bounded(record.text("AB"))
    raw.date = named_date(record.text("PY"), record.text("PD"))
    raw.entry_type = _entry_type(record)
    raw.doi = record.text("DI") or None
    raw.url = pubmed_url(record.text("PM"))
    first, last = record.text("BP"), record.text("EP")
    pages = f"{first}-{last}" if first and last and last != first else first
    values = {"venue": venue_case(record.text("SO")), "volume": record.text("VL"),
              "issue": record.text("IS"), "pages": pages or record.text("AR"),
              "issn": record.text("SN", "EI"), "isbn": record.text("BN"),
              "publisher": record.text("PU"), "language": record.text("LA")}
    raw.values = {k: v for k, v in values.items() if v}
    raw.keywords = split_keywords(record.values("DE") + record.values("ID"))
    return raw


def read_wos(path: Path | str, text: str, encoding: str) -> RecordFile:
    """Read the records of a Web of Science tagged export (see the module docstring).

    Args:
        path: the file's absolute path (or ``"<stdin>"``).
        text: its decoded content.
        encoding: the encoding it was decoded with.
    Returns:
        The :class:`~paperdesk.core.imports.records.RecordFile` (format ``"wos"``); a
        record that cannot be read is in its ``skipped``, with the reason.
    """
    return checked_records(RecordFile(path, "wos", encoding),
                           wos_records(text.lstrip("\ufeff")), _raw,
                           "two capitals or a capital and a digit, then a space", _INDENT)
