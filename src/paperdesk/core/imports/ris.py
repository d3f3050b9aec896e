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
else ``N2`` (abstract); ``AU``, else ``A1`` (authors, ``Family, Given`` or the
specification's ``Family, Given, Suffix``; also ``Family, Jr, Given`` when the middle
part is a suffix such as ``Jr``, as earlier paperdesk exports wrote it: see
:func:`paperdesk.core.metadata.parse_author`; a name without a comma is an
organisation, taken whole; a name that cannot be read is dropped with a note); the date
from ``DA`` with ``PY`` (else ``Y1``): the year from ``DA``, else ``PY``, the month and
day from ``DA`` in the form ``YYYY/MM/DD/`` (the parts that are known), ``YYYY-MM-DD``
(Zotero 7) or Web of Science's ``MAR 15`` (month and day; the year is then ``PY``'s), so
``PY  - 2019`` with ``DA  - MAR 15`` is 2019-03-15; the venue from ``T2``, ``JF``,
``JO``, for conference papers ``C3`` (Zotero's proceedings title), ``JA`` or ``J2``
(for books, theses and reports ``PB`` first); ``DO``; the arXiv id from ``AN``
(``arXiv:<id>``, or an id when ``DB`` is arXiv) or an arxiv.org ``UR``; ``UR`` (the
first that is not the arXiv page).
"""

from __future__ import annotations

import re
from pathlib import Path

import rispy

from paperdesk.core.field_formats import ris_values
from paperdesk.core.imports.abstract_limit import RAW_KEEP_CHARS, bounded
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


_MONTHS = {m: n for n, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul",
                                        "aug", "sep", "oct", "nov", "dec"), start=1)}
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?:[T ].*)?")
# Web of Science's DA: "MAR 15", "MAR", "MAR-APR", "2019 MAR 15", "JAN 2019".
_NAMED_DATE = re.compile(r"(?:(\d{4})\s+)?([A-Za-z]{3})[A-Za-z]*\.?(?:-[A-Za-z]+)?"
                         r"(?:\s+(\d{1,2}))?(?:,?\s+(\d{4}))?")


def _date_parts(text: str) -> tuple[int | None, int | None, int | None]:
    """``(year, month, day)`` of one RIS date value, each ``None`` when not given."""
    text = text.strip()
    m = _ISO_DATE.fullmatch(text)
    if m:
        return int(m.group(1)), int(m.group(2)), int(m.group(3)) if m.group(3) else None
    if "/" in text:
        parts = [p.strip() for p in text.split("/")]
        if re.fullmatch(r"\d{4}", parts[0]):
            month = int(parts[1]) if len(parts) > 1 and re.fullmatch(r"\d{1,2}", parts[1]) \
                else None
            day = (int(parts[2]) if month and len(parts) > 2
                   and re.fullmatch(r"\d{1,2}", parts[2]) else None)
            return int(parts[0]), month, day
    m = _NAMED_DATE.fullmatch(text)
    if m and m.group(2).lower() in _MONTHS:
        year = m.group(1) or m.group(4)
        return (int(year) if year else None, _MONTHS[m.group(2).lower()],
                int(m.group(3)) if m.group(3) else None)
    m = re.match(r"(\d{4})\b", text)
    return (int(m.group(1)) if m else None), None, None


def _date(ref: dict) -> str | None:
    """The date from ``DA`` and ``PY`` (else ``Y1``) together: the year from ``DA``, else
    from ``PY``; the month and day from ``DA`` (``YYYY/MM/DD/``, ``YYYY-MM-DD``, or Web of
    Science's ``MAR 15`` whose year is ``PY``'s), else from ``PY`` in the slash form. A
    value with no year at all is returned as written (the check drops it, with a note)."""
    da = _first(ref, "date")
    py = _first(ref, "year", "publication_year")
    if not da and not py:
        return None
    dy, dm, dd = _date_parts(da) if da else (None, None, None)
    py_parts = _date_parts(py) if py else (None, None, None)
    year = dy or py_parts[0]
    if year is None:
        return da or py
    if dm is None and dy in (None, py_parts[0]):
        dm, dd = py_parts[1], py_parts[2]
    out = f"{year:04d}"
    if dm and 1 <= dm <= 12:
        out += f"-{dm:02d}"
        if dd:
            out += f"-{dd:02d}"
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
    abstract, raw.abstract_length = bounded(_first(ref, "abstract", "notes_abstract"))
    raw.abstract = plain_text(abstract)
    raw.authors = _authors(ref, raw.problems)
    raw.date = _date(ref)
    ty = str(ref.get("type_of_reference") or "").strip().upper()
    raw.entry_type = RIS_TYPES.get(ty, "misc")
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
    raw.values = ris_values(ref, raw.entry_type)
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

    A field longer than
    :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters is
    shortened before parsing (:func:`_shorten_long_values`), so that a file with a
    190 MB abstract is parsed in the memory of a small one.
    """
    text, long_values = _shorten_long_values(text.lstrip("\ufeff"))
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
        raw = _raw(ref, n)
        for tag, length in long_values.get(n, {}).items():
            if tag in ("AB", "N2"):
                raw.abstract_length = max(raw.abstract_length, length)
            else:
                raw.problems.append(f"its {tag} field has {length:,} characters; only the "
                                    f"first {RAW_KEEP_CHARS:,} were read")
        check_record(raw, n, out)
    return out


_TAG_LINE = re.compile(r"[A-Z][A-Z0-9]  - ?")


def _shorten_long_values(text: str) -> tuple[str, dict[int, dict[str, int]]]:
    """``text`` with every field (a tag line and the lines that continue it) longer
    than :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters cut
    to that many, and the lengths they had.

    Only records longer than that are scanned, line by line.

    Args:
        text: an RIS file's content (LF line ends or CRLF).
    Returns:
        ``(text, lengths)``: ``lengths`` maps a record's number (1-based, in file order)
        to ``{tag: full length in characters}``; ``text`` is ``text`` itself when
        nothing was cut.
    """
    ends = [m.end() for m in _ER_LINE.finditer(text)]
    bounds = [0, *ends] + ([len(text)] if not ends or ends[-1] < len(text) else [])
    pieces: list[str] = []
    lengths: dict[int, dict[str, int]] = {}
    last = 0
    for number, (begin, end) in enumerate(zip(bounds, bounds[1:]), start=1):
        if end - begin <= RAW_KEEP_CHARS:
            continue
        tag, kept, full = "", 0, 0
        line = begin
        while line < end:
            stop = text.find("\n", line, end)
            stop = end if stop < 0 else stop + 1
            start = _TAG_LINE.match(text, line)
            if start:               # a field starts: "AB  - " is not its text
                tag, kept, full = text[line:line + 2], 0, -len(start.group())
            size = stop - line
            full += size
            if kept + size > RAW_KEEP_CHARS:
                room = max(0, RAW_KEEP_CHARS - kept)
                pieces.append(text[last:line + room])
                if room:
                    pieces.append("\n")
                last = stop
                ending = len(text[max(line, stop - 2):stop]) - len(
                    text[max(line, stop - 2):stop].rstrip("\r\n"))
                lengths.setdefault(number, {})[tag] = full - ending
            kept += size
            line = stop
    if not pieces:
        return text, lengths
    pieces.append(text[last:])
    return "".join(pieces), lengths
