"""What the two tagged-line formats, Web of Science (:mod:`~paperdesk.core.imports.wos`)
and PubMed/MEDLINE (:mod:`~paperdesk.core.imports.medline`), have in common: lines that
start with a tag, continued by indented lines; dates written with month names; names
written ``Family, Given``. Pure: no database, no Qt.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from paperdesk.core.imports.records import RawRecord, RecordFile, check_record
from paperdesk.core.metadata import MetadataError, parse_author

__all__ = ["TaggedField", "TaggedRecord", "tagged_fields", "checked_records", "named_date",
           "split_keywords", "person", "initials", "pubmed_url"]


@dataclass
class TaggedField:
    """One field: its tag and its lines (the tag line's value, then each continuation
    line's, without the indentation).

    Attributes:
        line: the 1-based line number of its tag line.
        tag: the tag (``"AU"``, ``"PMID"``); ``""`` for a line that is neither a tag line
            nor a continuation (then ``lines`` holds that line).
        lines: the values, stripped of trailing white space.
    """

    line: int
    tag: str
    lines: list[str] = field(default_factory=list)


@dataclass
class TaggedRecord:
    """One record of a tagged file: its fields in file order.

    Attributes:
        number: its 1-based number in the file.
        line: the line number of its first field.
        fields: the fields, in file order (a tag may occur several times).
        ended: whether its end mark was found (Web of Science's ``ER``; MEDLINE
            records always end).
    """

    number: int
    line: int
    fields: list[TaggedField] = field(default_factory=list)
    ended: bool = True

    def occurrences(self, tag: str) -> list[TaggedField]:
        """The fields with ``tag``, in file order."""
        return [f for f in self.fields if f.tag == tag]

    def lines(self, tag: str) -> list[str]:
        """Every line of every field with ``tag`` (Web of Science writes one author per
        line), empty lines left out."""
        return [ln for f in self.occurrences(tag) for ln in f.lines if ln.strip()]

    def values(self, tag: str) -> list[str]:
        """Each field with ``tag`` as one text, its lines joined by spaces (MEDLINE writes
        one author per field), empty ones left out."""
        joined = (" ".join(" ".join(f.lines).split()) for f in self.occurrences(tag))
        return [v for v in joined if v]

    def text(self, *tags: str) -> str:
        """The first field of the first of ``tags`` that has one, its lines joined by
        spaces, or ``""``."""
        return next((v for tag in tags for v in self.values(tag)[:1]), "")

    def stray(self) -> TaggedField | None:
        """The first line that is neither a tag line nor a continuation, or ``None``."""
        return next((f for f in self.fields if not f.tag), None)


def tagged_fields(text: str, tag_line: re.Pattern, indent: str) -> Iterator[TaggedField]:
    """Split tagged text into fields.

    Args:
        text: the decoded file.
        tag_line: matches a tag line; group ``tag`` is the tag, group ``value`` its value
            (may be ``None``).
        indent: the white space a continuation line starts with (three spaces in Web of
            Science exports, six in MEDLINE).
    Yields:
        :class:`TaggedField` in file order; a blank line yields nothing; a line that is
        neither a tag line nor a continuation of one yields a field with tag ``""``.
    """
    current: TaggedField | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip()
        if not line.strip():
            if current is not None:
                yield current
                current = None
            continue
        m = tag_line.fullmatch(line)
        if m:
            if current is not None:
                yield current
            current = TaggedField(number, m.group("tag"), [(m.group("value") or "").strip()])
        elif current is not None and current.tag and line.startswith(indent):
            current.lines.append(line.strip())
        else:
            if current is not None:
                yield current
                current = None
            yield TaggedField(number, "", [line])
    if current is not None:
        yield current


def checked_records(out: RecordFile, records: list[TaggedRecord],
                    raw_of: Callable[[TaggedRecord], RawRecord], tag_rule: str,
                    indent: str) -> RecordFile:
    """Check a tagged file's records into ``out``: a record with a stray line (neither a
    tag line nor a continuation) is left out with a note naming it and the line; a record
    the file ends in without its end mark is read with a note.

    Args:
        out: the file's :class:`~paperdesk.core.imports.records.RecordFile`, filled.
        records: its records.
        raw_of: a record's :class:`~paperdesk.core.imports.records.RawRecord` (whose
            ``label`` names it in notes).
        tag_rule: how a tag line looks, for the note (``"two capitals ..., then a space"``).
        indent: the white space a continuation line starts with.
    Returns:
        ``out``.
    """
    for record in records:
        raw = raw_of(record)
        stray = record.stray()
        if stray is not None:
            out.skipped.append(f"{raw.label}: line {stray.line} is neither a field "
                               f"({tag_rule}) nor a continuation (indented by "
                               f"{_COUNTS.get(len(indent), len(indent))} spaces); left out")
            continue
        if not record.ended:
            out.warnings.append(f"{raw.label}: the file ends without its ER line; read to "
                                "the end of the file")
        check_record(raw, record.number, out)
    return out


_COUNTS = {3: "three", 6: "six"}
_MONTHS = {m: n for n, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul",
                                        "aug", "sep", "oct", "nov", "dec"), start=1)}
_DATE_WORD = re.compile(r"\d{4}|[A-Za-z]+|\d{1,2}")


def named_date(*texts: str) -> str | None:
    """A date from values written with month names, as Web of Science (``PY 2004`` with
    ``PD JUN 8``, ``PD MAR-APR``, ``PD SPR``) and MEDLINE (``DP 2004 Jun 8``,
    ``DP 2019 Mar-Apr``, ``DP 2004 Spring``) write them.

    Args:
        texts: the values, in order (the year may be in any of them; the first month
            found is taken, with the day written right after it).
    Returns:
        ``"YYYY"``, ``"YYYY-MM"`` or ``"YYYY-MM-DD"``; ``None`` when no value has a
        four-digit year.
    """
    year = month = day = None
    for text in texts:
        words = _DATE_WORD.findall(text or "")
        for i, word in enumerate(words):
            if len(word) == 4 and word.isdigit():
                year = year or int(word)
            elif month is None and word[:3].lower() in _MONTHS and word.isalpha():
                month = _MONTHS[word[:3].lower()]
                after = words[i + 1] if i + 1 < len(words) else ""
                if after.isdigit() and len(after) <= 2 and 1 <= int(after) <= 31:
                    day = int(after)
    if year is None:
        return None
    return f"{year:04d}" + (f"-{month:02d}" if month else "") + (
        f"-{day:02d}" if month and day else "")


def split_keywords(values: list[str]) -> list[str]:
    """Keywords from fields that list several separated by ``;`` (Web of Science's
    ``DE``/``ID``, whose lines may break inside a keyword: the lines are joined first).

    Args:
        values: each field's text (lines already joined by spaces).
    Returns:
        The keywords, stripped, in order (repeats are kept; the check removes them).
    """
    return [k.strip() for v in values for k in v.split(";") if k.strip()]


def pubmed_url(pmid: str) -> str | None:
    """The PubMed page of a PubMed id (``"15170338"`` ->
    ``"https://pubmed.ncbi.nlm.nih.gov/15170338/"``), or ``None`` when ``pmid`` is not
    a number."""
    pmid = pmid.strip()
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid.isdigit() else None


_INITIALS = re.compile(r"[A-Z]{1,4}")


def initials(given: str) -> str:
    """Given names written as bare initials (``"PA"``, as Web of Science's ``AU`` and
    MEDLINE's ``AU`` write them) with a full stop after each (``"P. A."``); any other
    given name unchanged."""
    return " ".join(c + "." for c in given) if _INITIALS.fullmatch(given) else given


def person(name: str, problems: list[str]) -> tuple[str, str, str] | None:
    """One ``Family, Given`` name as ``(family, given, suffix)``, bare initials given full
    stops (:func:`initials`); a name without a comma is an organisation (all family).

    Args:
        name: the name as written.
        problems: a note is appended when the name cannot be read.
    Returns:
        The parts, or ``None`` (the name dropped, with a note).
    """
    clean = " ".join(name.split())
    if not clean:
        return None
    if "," not in clean:
        return clean, "", ""
    try:
        a = parse_author(clean)
    except MetadataError as exc:
        problems.append(f"{exc}; author dropped")
        return None
    return a.family, initials(a.given), a.suffix
