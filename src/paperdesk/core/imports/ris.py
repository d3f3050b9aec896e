"""Reading RIS files (as Zotero, EndNote, Scopus, Web of Science and paperdesk's own export
write them) into records. Pure: no database, no Qt.

Follows the RIS format specification (Research Information Systems, now Clarivate; the
2011 "RIS Format Specifications" and the older Reference Manager tags): ``XX  - value``
lines, a record from ``TY`` to ``ER``; a line without a tag continues the value before it
(multi-line abstracts and titles). Parsing is rispy's. Titles and abstracts lose JATS
and CSL/HTML markup (Crossref's abstracts, copied by Zotero:
:mod:`paperdesk.core.imports.markup`). A file whose last record has no
``ER`` line (truncated, or so written) still gives that record, with a note.

Tags taken: ``TY`` (the type, by :data:`RIS_TYPES`; others ``misc``, and ``misc`` with an
arXiv id ``preprint``); ``ID`` (the citation key); ``TI``, else ``T1`` (title); ``AB``,
else ``N2`` (abstract); ``AU``, else ``A1`` (authors, ``Family, Given`` or the specification's
``Family, Given, Suffix``; also ``Family, Jr, Given`` when the middle part is a suffix
such as ``Jr``, as earlier paperdesk exports wrote it: see
:func:`paperdesk.core.metadata.parse_author`; a name without a comma is an organisation,
taken whole; a name that cannot be read is dropped with a note); ``DA``, else ``PY``/``Y1`` (``YYYY/MM/DD/`` with the parts that are known);
the venue from ``T2``, ``JF``, ``JO``, ``JA`` or ``J2`` (for books, theses and reports
``PB`` first); ``DO``; the arXiv id from ``AN`` (``arXiv:<id>``, or an id when ``DB`` is
arXiv) or an arxiv.org ``UR``; ``UR`` (the first that is not the arXiv page).
"""

from __future__ import annotations

import re
from pathlib import Path

import rispy

from paperdesk.core.imports.daily_papers import ParseError
from paperdesk.core.imports.markup import plain_text
from paperdesk.core.imports.records import RawRecord, RecordFile, check_record
from paperdesk.core.metadata import parse_author, MetadataError

__all__ = ["RIS_TYPES", "read_ris"]

#: RIS reference type -> paperdesk entry type.
RIS_TYPES = {
    "JOUR": "article", "JFULL": "article", "EJOUR": "article", "MGZN": "article",
    "NEWS": "article", "INPR": "article", "ABST": "article",
    "CONF": "inproceedings", "CPAPER": "inproceedings", "CONFP": "book",
    "BOOK": "book", "EBOOK": "book", "EDBOOK": "book", "SER": "book",
    "CHAP": "incollection", "ECHAP": "incollection",
    "THES": "thesis", "RPRT": "report", "STAND": "report", "GOVDOC": "report",
    "UNPB": "preprint", "MANSCPT": "preprint",
    "GEN": "misc", "ELEC": "misc", "WEB": "misc", "DATA": "misc", "COMP": "misc",
}
_PUBLISHER_FIRST = {"book", "thesis", "report"}
_ARXIV_URL = re.compile(r"https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/(\S+?)(?:\.pdf)?/?$",
                        re.IGNORECASE)


def _first(ref: dict, *names: str) -> str:
    for name in names:
        value = ref.get(name)
        if isinstance(value, list):
            value = next((v for v in value if str(v).strip()), None)
        if value is not None and str(value).strip():
            return str(value).strip()
    return ""


def _date(ref: dict) -> str | None:
    text = _first(ref, "date", "year", "publication_year")
    if not text:
        return None
    parts = [p.strip() for p in text.split("/")]
    if not re.fullmatch(r"\d{4}", parts[0]):
        m = re.match(r"(\d{4})\b", text)
        return m.group(1) if m else text
    out = parts[0]
    if len(parts) > 1 and re.fullmatch(r"\d{1,2}", parts[1]):
        out += f"-{int(parts[1]):02d}"
        if len(parts) > 2 and re.fullmatch(r"\d{1,2}", parts[2]):
            out += f"-{int(parts[2]):02d}"
    return out


def _authors(ref: dict, problems: list[str]) -> list[tuple[str, str, str]]:
    names = ref.get("authors") or ref.get("first_authors") or []
    out = []
    for name in names:
        name = " ".join(str(name).split())
        if not name:
            continue
        if "," not in name:     # RIS names are "Family, Given": without a comma, whole
            out.append((name, "", ""))  # (an organisation)
            continue
        try:
            a = parse_author(name)
        except MetadataError as exc:
            problems.append(f"{exc}; author dropped")
            continue
        out.append((a.family, a.given, a.suffix))
    return out


def _raw(ref: dict, n: int) -> RawRecord:
    key = _first(ref, "id")
    raw = RawRecord(label=f"record {n}" + (f" ({key})" if key else ""))
    raw.citation_key = key or None
    raw.title = plain_text(_first(ref, "title", "primary_title"))
    raw.abstract = plain_text(_first(ref, "abstract", "notes_abstract"))
    raw.authors = _authors(ref, raw.problems)
    raw.date = _date(ref)
    ty = str(ref.get("type_of_reference") or "").strip().upper()
    raw.entry_type = RIS_TYPES.get(ty, "misc")
    titles = ("secondary_title", "alternate_title3", "journal_name", "alternate_title2",
              "alternate_title1")
    raw.venue = (_first(ref, "publisher", *titles) if raw.entry_type in _PUBLISHER_FIRST
                 else _first(ref, *titles, "publisher"))
    raw.doi = _first(ref, "doi") or None
    accession = _first(ref, "accession_number")
    urls = [str(u).strip() for u in ref.get("urls") or [] if str(u).strip()]
    if accession.lower().startswith("arxiv:"):
        raw.arxiv_id = accession
    elif accession and _first(ref, "name_of_database").lower() == "arxiv":
        raw.arxiv_id = accession
    else:
        found = next((_ARXIV_URL.match(u).group(1) for u in urls if _ARXIV_URL.match(u)),
                     None)
        raw.arxiv_id = found
    raw.url = next((u for u in urls if not _ARXIV_URL.match(u)), None)
    return raw


_TY_LINE = re.compile(r"^TY  -", re.MULTILINE)
_ER_LINE = re.compile(r"^ER  -", re.MULTILINE)


def _unended(text: str) -> int:
    """The number of the last record when the file ends inside it (a ``TY`` line after
    the last ``ER`` line: a truncated file, or a writer that leaves the last ``ER``
    out), else 0."""
    starts = [m.start() for m in _TY_LINE.finditer(text)]
    ends = [m.start() for m in _ER_LINE.finditer(text)]
    if starts and (not ends or starts[-1] > ends[-1]):
        return len(starts)
    return 0


def read_ris(path: Path | str, text: str, encoding: str) -> RecordFile:
    """Read the records of an RIS file (see the module docstring).

    Args:
        path: the file's absolute path (or ``"<stdin>"``).
        text: its decoded content.
        encoding: the encoding it was decoded with.
    Returns:
        The :class:`~paperdesk.core.imports.records.RecordFile`.
    Raises:
        ParseError: rispy cannot read it (one line).
    """
    text = text.lstrip("\ufeff")
    unended = _unended(text)
    if unended:
        text = text.rstrip() + "\nER  - \n"
    try:
        refs = rispy.loads(text, skip_unknown_tags=True)
    except Exception as exc:  # noqa: BLE001 - rispy raises IOError/ValueError/KeyError
        raise ParseError(path, f"cannot be read as RIS ({exc})") from exc
    out = RecordFile(path, "ris", encoding)
    if unended:
        out.warnings.append(f"record {unended}: the file ends without its ER line; "
                            "read to the end of the file")
    for n, ref in enumerate(refs, start=1):
        check_record(_raw(ref, n), n, out)
    return out
