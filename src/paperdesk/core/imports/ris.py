"""Reading RIS files (as Zotero, EndNote, Scopus, Web of Science and paperdesk's own export
write them) into records. Pure: no database, no Qt.

Follows the RIS format specification (Research Information Systems, now Clarivate; the
2011 "RIS Format Specifications" and the older Reference Manager tags): ``XX  - value``
lines, a record from ``TY`` to ``ER``; a line without a tag continues the value before it
(multi-line abstracts and titles). The lines are read here (:func:`_split_records`), as
Zotero's RIS translator (zotero/translators ``RIS.js``) reads them: one space before the
hyphen is read too (``TY - JOUR``), and a record that does not start with ``TY`` is left
out with a note while the rest of the file comes in (rispy, which read them before,
refused such files whole, and raised ``KeyError`` on some Zotero writes). Its keys and list
tags are still rispy's (:data:`_KEYS`), the record shape
:func:`~paperdesk.core.field_formats.ris_values` reads. Titles and abstracts lose JATS
and CSL/HTML markup (Crossref's abstracts, copied by Zotero:
:mod:`paperdesk.core.imports.markup`). A file whose last record has no
``ER`` line (truncated, or so written) still gives that record, with a note.

Tags taken: ``TY`` (the type, by :data:`RIS_TYPES`; others ``misc``, and ``misc`` with an
arXiv id ``preprint``); ``ID`` (the citation key); ``TI``, else ``T1`` (title); ``AB``,
else ``N2`` (abstract); ``AU`` and ``A1`` in file order (authors, as Zotero keeps
both; ``A2``-``A4`` name editors and translators, not taken; ``Family, Given`` or the
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
first that is not the arXiv page); ``KW`` (keywords, split at line breaks and semicolons
as Zotero splits them) and ``N1`` (notes). Of a tag that holds one value, the first that
is not empty is taken (as Zotero takes it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
    "BOOK": "book", "EBOOK": "book", "EDBOOK": "book", "SER": "book", "CLSWK": "book",
    "CHAP": "incollection", "ECHAP": "incollection", "DICT": "incollection",
    "ENCYC": "incollection",
    "THES": "thesis", "RPRT": "report", "STAND": "report", "GOVDOC": "report",
    "UNPB": "preprint", "MANSCPT": "preprint",
    "GEN": "misc", "ELEC": "misc", "WEB": "misc", "DATA": "misc", "COMP": "misc",
}
#: Where one ``KW`` value holds several keywords: line breaks and semicolons (as Zotero's
#: RIS.js splits them; a comma may be part of a keyword).
_KEYWORD_SPLIT = re.compile(r"\s*[\r\n;]+\s*")
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


def _authors(names: list[str], problems: list[str]) -> list[tuple[str, str, str]]:
    """The authors of the ``AU`` and ``A1`` lines, in file order (both tags name authors:
    a record that mixes them has every author, as in Zotero)."""
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


def _raw(ref: dict, n: int, names: list[str]) -> RawRecord:
    key = " ".join(_first(ref, "id").split())   # a continuation line is not the key's
    raw = RawRecord(label=f"record {n}" + (f" ({key})" if key else ""))
    raw.citation_key = key or None
    raw.title = plain_text(_first(ref, "title", "primary_title"))
    abstract, raw.abstract_length = bounded(_first(ref, "abstract", "notes_abstract"))
    raw.abstract = plain_text(abstract)
    raw.authors = _authors(names, raw.problems)
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
    raw.keywords = [k for v in ref.get("keywords") or [] for k in _KEYWORD_SPLIT.split(v)]
    raw.notes = list(ref.get("notes") or [])
    return raw


#: A tag line: two characters, one or two spaces, a hyphen, then the value after a space
#: (the specification writes two spaces; Zotero's RIS.js also reads one, as some tools
#: write it: ``TY - JOUR``); blank space before the tag is skipped, as Zotero skips it.
_TAG = re.compile(r"[ \t\ufeff]*([A-Z][A-Z0-9]) {1,2}-(?: (.*)|$)")
_ER_LINE = re.compile(r"^ER {1,2}-", re.MULTILINE)
#: rispy's record keys for the tags it reads (``VL`` -> ``volume``), and the tags whose
#: every value it keeps (``AU``, ``KW``, ``N1``, ``UR``, ...): the record shape
#: :func:`~paperdesk.core.field_formats.ris_values` reads.
_KEYS = rispy.TAG_KEY_MAPPING
_LIST_TAGS = frozenset(rispy.LIST_TYPE_TAGS)
#: The tags that name a record's authors (primary authors: ``A2``-``A4`` are editors,
#: series editors and translators, not taken).
_AUTHOR_TAGS = frozenset({"AU", "A1"})


@dataclass(slots=True)
class _Lines:
    """One record's lines as the file has them: ``fields`` are ``(tag, value)`` pairs in
    file order, a value's continuation lines joined to it with line breaks."""

    line: int                   # the number of its first line (1-based)
    first: str                  # its first line, as written
    fields: list[tuple[str, str]] = field(default_factory=list)
    typed: bool = False         # it starts with a TY line
    ended: bool = False         # an ER line ends it
    extra_types: int = 0        # further TY lines before its ER


def _split_records(text: str) -> list[_Lines]:
    """The records of an RIS file, in file order.

    A record starts at a ``TY`` line and ends at the next ``ER`` line; a line that is
    not a tag line continues the value before it. Outside records, lines that are not
    tag lines (blank lines, the ``1.`` counter some tools write, a header) are skipped;
    tag lines there start a record without ``TY`` (``typed`` false), which ends at the
    next ``ER`` or ``TY`` line. A ``TY`` line inside a record is counted in
    ``extra_types`` (JabRef and rispy read it so too: ``ER`` alone ends a record).
    """
    records: list[_Lines] = []
    current: _Lines | None = None
    fields: list[tuple[str, str]] = []      # the current record's
    tag, parts = "", []         # the value being read: its tag and its lines
    match = _TAG.match
    for number, line in enumerate(text.splitlines(), start=1):
        m = match(line)
        if m is None:
            if parts:
                parts.append(line.strip())
            continue
        if parts:               # the value read so far goes into its record
            fields.append((tag, parts[0] if len(parts) == 1 else "\n".join(parts).strip()))
        tag, value = m.groups()
        parts = [value.strip()] if value else [""]
        if tag == "ER":
            if current is not None:
                current.ended = True
            current, parts = None, []
        elif tag == "TY" and current is not None and current.typed:
            current.extra_types += 1
            parts = []
        elif tag == "TY" or current is None:
            fields = []
            current = _Lines(number, line.strip(), fields, typed=tag == "TY")
            records.append(current)
    if parts:
        fields.append((tag, parts[0] if len(parts) == 1 else "\n".join(parts).strip()))
    return records


def _as_rispy(fields: list[tuple[str, str]]) -> dict:
    """One record's fields in rispy's shape: ``{key: value}`` by :data:`_KEYS` (unknown
    tags by their tag), every value of a list tag kept (``UR`` also split at ``;``), of
    another tag the first that is not empty (as Zotero keeps the first)."""
    ref: dict = {}
    for tag, value in fields:
        if not value:
            continue
        key = _KEYS.get(tag, tag)
        if tag in _LIST_TAGS:
            if tag == "UR":
                ref.setdefault(key, []).extend(p for p in map(str.strip, value.split(";")) if p)
            elif key in ref:
                ref[key].append(value)
            else:
                ref[key] = [value]
        elif key not in ref:
            ref[key] = value
    return ref


def _shown(line: str) -> str:
    """A line of the file as a note quotes it (at most 60 characters)."""
    return repr(line if len(line) <= 60 else line[:57] + "...")


def read_ris(path: Path | str, text: str, encoding: str) -> RecordFile:
    """Read the records of an RIS file (see the module docstring).

    Args:
        path: the file's absolute path (or ``"<stdin>"``).
        text: its decoded content.
        encoding: the encoding it was decoded with.
    Returns:
        The :class:`~paperdesk.core.imports.records.RecordFile`. A record without a
        ``TY`` line, or one that cannot be read, is left out with a note in
        ``skipped`` naming it (its number and first line); the others come in.
    Raises:
        ParseError: not one record starts with a ``TY`` line (one line, quoting the
            first tag line).

    A field longer than
    :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters is
    shortened before parsing (:func:`_shorten_long_values`), so that a file with a
    190 MB abstract is parsed in the memory of a small one.
    """
    text, long_values = _shorten_long_values(text.lstrip("\ufeff"))
    records = _split_records(text)
    if not any(r.typed for r in records):
        first = f" (line {records[0].line}: {_shown(records[0].first)})" if records else ""
        raise ParseError(path, "RIS tags but no record: none starts with a TY line" + first)
    out = RecordFile(path, "ris", encoding)
    for n, lines in enumerate(records, start=1):
        where = f"record {n} (line {lines.line}: {_shown(lines.first)})"
        if not lines.typed:
            out.skipped.append(f"{where}: no TY line starts it; left out")
            continue
        if lines.extra_types:
            out.warnings.append(f"{where}: {lines.extra_types} more TY line(s) before its "
                                "ER line; its first type kept")
        if not lines.ended:
            out.warnings.append(f"record {n}: the file ends without its ER line; "
                                "read to the end of the file")
        try:
            raw = _raw(_as_rispy(lines.fields), n,
                       [v for tag, v in lines.fields if tag in _AUTHOR_TAGS and v])
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            out.skipped.append(f"{where}: cannot be read ({type(exc).__name__}); left out")
            continue
        for tag, length in long_values.get(n, {}).items():
            if tag in ("AB", "N2"):
                raw.abstract_length = max(raw.abstract_length, length)
            else:
                raw.problems.append(f"its {tag} field has {length:,} characters; only the "
                                    f"first {RAW_KEEP_CHARS:,} were read")
        check_record(raw, n, out)
    return out


_TAG_LINE = re.compile(r"[A-Z][A-Z0-9] {1,2}- ?")


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
