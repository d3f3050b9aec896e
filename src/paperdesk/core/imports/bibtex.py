"""Reading BibTeX and BibLaTeX files (as Zotero, JabRef, Better BibTeX and paperdesk's own
export write them) into records. Pure: no database, no Qt.

Follows Patashnik's "BibTeXing" (btxdoc: entries, fields, ``@string``, names as
``Family, Given`` or ``Given von Family`` joined by ``and``) and the biblatex manual
(sections 2.1-2.3: the entry types, ``date`` in ISO 8601, ``journaltitle``, the
``eprint``/``eprinttype``/``archiveprefix`` fields; 3.4 on names). Parsing is
bibtexparser 2's (``@string`` references resolved, also when joined with ``#``:
:class:`ConcatenationMiddleware`; ``@comment``, ``%`` lines and ``@preamble`` ignored, a
block it cannot parse reported and left out, an entry whose key repeats an earlier one
still read). Text fields (title, abstract, names, venue) are decoded from LaTeX by
:func:`paperdesk.core.imports.tex.decode_tex` (pylatexenc: ``{\\"u}`` -> ü, ``\\&`` ->
&, braces and other macros gone; a bare ``%`` or ``&`` kept, maths and URLs kept as
written, ``~`` a space); ``doi``, ``url`` and ``eprint`` are verbatim fields (biblatex
manual 2.2.1) and only lose ``\\_``-style escapes. ``and others`` ending a name list is
BibTeX's "et al.": kept as the paper's truncated author list (:attr:`Metadata.et_al`). A
name in braces is one name (``{Barnes and Noble}``, ``{World Health Organization}``:
bibtexparser splits names at ``and`` outside braces only), stored whole as a family name.

Fields taken: the key; ``title`` (with biblatex's ``subtitle`` and ``titleaddon`` after
it: "Title. Subtitle. Addon", as biblatex prints them); ``abstract``; ``author`` (else
``editor``); ``date`` (biblatex), else ``year`` and ``month``; the venue from ``journal``/``journaltitle``,
``booktitle``, ``publisher``, ``school``/``institution``/``organization`` or
``howpublished`` (the first present, in that order); ``doi``; the arXiv id from
``eprint`` when ``archiveprefix`` or ``eprinttype`` is ``arXiv`` (or an arxiv.org
``url``); ``url`` (unless it is the arXiv page); keywords from ``keywords`` and
``groups``, notes from ``note``, ``annote`` and ``annotation``
(:mod:`paperdesk.core.imports.keywords_notes`). Entry types map to
:data:`paperdesk.core.metadata.ENTRY_TYPES` by :data:`BIBTEX_TYPES` (others: ``misc``;
``misc`` with an arXiv id: ``preprint``). An entry with ``crossref = {key}`` inherits
the fields it lacks from that entry, as btxdoc (section 4) and biblatex (appendix B, the
default inheritance) describe: the parent's ``title`` becomes the child's ``booktitle``
(``@inproceedings`` in ``@proceedings``, ``@incollection`` in ``@book``), every other
field keeps its name.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import bibtexparser
from bibtexparser import middlewares as mw
from bibtexparser.model import DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

from paperdesk.core.field_formats import bibtex_values
from paperdesk.core.imports.keywords_notes import bibtex_keywords, bibtex_notes
from paperdesk.core.imports.abstract_limit import RAW_KEEP_CHARS, bounded
from paperdesk.core.imports.records import RawRecord, RecordFile, check_record
from paperdesk.core.imports.tex import decode_tex

__all__ = ["BIBTEX_TYPES", "ConcatenationMiddleware", "read_bibtex", "decode_latex"]

# bibtexparser logs a warning for every block it cannot parse; the reader reports them.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

#: BibTeX / biblatex entry type (lower case) -> paperdesk entry type.
BIBTEX_TYPES = {
    "article": "article", "periodical": "article", "suppperiodical": "article",
    "inproceedings": "inproceedings", "conference": "inproceedings",
    "proceedings": "book", "mvproceedings": "book",
    "preprint": "preprint", "unpublished": "preprint",
    "book": "book", "mvbook": "book", "booklet": "book", "collection": "book",
    "mvcollection": "book", "reference": "book", "manual": "book",
    "incollection": "incollection", "inbook": "incollection", "bookinbook": "incollection",
    "suppbook": "incollection", "suppcollection": "incollection",
    "inreference": "incollection",
    "phdthesis": "thesis", "mastersthesis": "thesis", "thesis": "thesis",
    "techreport": "report", "report": "report",
    "misc": "misc", "online": "misc", "electronic": "misc", "www": "misc",
    "software": "misc", "dataset": "misc",
}
_MONTHS = {m: n for n, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    start=1)}
_ARXIV_URL = re.compile(r"https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/(\S+?)(?:\.pdf)?/?$",
                        re.IGNORECASE)
_VERBATIM_ESCAPES = re.compile(r"\\([_%#&$~])")


def decode_latex(text: str) -> str:
    """Return the text of a BibTeX field value: LaTeX decoded by the rules of
    :mod:`paperdesk.core.imports.tex` (a bare ``%`` or ``&`` is the character, maths and
    URLs kept as written, ``~`` a space), white space made single spaces.

    Args:
        text: the value as written (without its delimiting braces or quotes).
    Returns:
        The text; never raises.
    """
    return decode_tex(text, "bibtex")


def _verbatim(text: str) -> str:
    return _VERBATIM_ESCAPES.sub(r"\1", text.replace("{", "").replace("}", "")).strip()


def _value(entry: Entry, name: str) -> str | None:
    f = entry.fields_dict.get(name)
    if f is None or isinstance(f.value, list):
        return None
    return str(f.value)


#: A part of biblatex's extended name format: ``family=Doe``, ``given=Jane``,
#: ``prefix=van``, ``suffix=Jr`` (biblatex manual, section 3.4, "Name lists with
#: extended name format"; biber reads it).
_NAME_PART = re.compile(r"\s*([a-z][a-z-]*)\s*=(.*)", re.S)


def _extended_name(part: mw.NameParts) -> tuple[str, str, str] | None:
    """``(family, given, suffix)`` of a name written in biblatex's extended name format
    (``given=Jane, family=Doe``; a later part replaces an earlier one of the same kind;
    ``prefix`` joins the family name), or ``None`` when it is a classic BibTeX name.
    bibtexparser has split it at its commas as ``Last, Jr, First``: put back in order."""
    pieces = [" ".join(part.von + part.last)] + ([" ".join(part.jr)] if part.jr else []) \
        + ([" ".join(part.first)] if part.first else [])
    found: dict[str, str] = {}
    for piece in pieces:
        m = _NAME_PART.fullmatch(piece)
        if m is None:
            return None
        found[m.group(1)] = decode_latex(m.group(2).strip().strip("{}"))
    family = " ".join(p for p in (found.get("prefix", ""), found.get("family", "")) if p)
    if not family and not found.get("given"):
        return None
    return family, found.get("given", ""), found.get("suffix", "")


def _names(entry: Entry) -> list[tuple[str, ...]]:
    for name in ("author", "editor"):
        f = entry.fields_dict.get(name)
        if f is None or not isinstance(f.value, list):
            continue
        out = []
        for part in f.value:
            if isinstance(part, mw.NameParts):
                extended = _extended_name(part)
                if extended is not None:
                    out.append(extended)
                    continue
                family = " ".join(part.von + part.last)
                out.append((decode_latex(family), decode_latex(" ".join(part.first)),
                            decode_latex(" ".join(part.jr))))
            else:
                out.append((decode_latex(str(part)), ""))
        # "and others" is BibTeX's "et al." (btxdoc, section 4), not a person: one
        # ("others", "") last, which the check makes Metadata.et_al.
        others = [n for n in out if n[0].lower() == "others" and not any(n[1:])]
        out = [n for n in out if (n[0] or n[1]) and n not in others]
        return out + [("others", "")] if others and out else out
    return []


def _date(entry: Entry) -> str | None:
    date = _value(entry, "date")
    if date:
        return _verbatim(date).split("/")[0]   # a range "2020-01/2020-03": its start
    year = _value(entry, "year")
    if not year:
        return None
    m = re.search(r"\d{4}", year)
    if not m:
        return _verbatim(year)   # checked (and dropped with a note) later
    month = (_value(entry, "month") or "").strip().strip("{}").lower()
    n = _MONTHS.get(month[:3]) if month[:3] in _MONTHS else (
        int(month) if month.isdigit() else None)
    if n and 1 <= n <= 12:
        return f"{m.group(0)}-{n:02d}"
    return m.group(0)


def _full_title(entry: Entry) -> str:
    """The title with biblatex's ``subtitle`` and ``titleaddon`` after it, joined as
    biblatex prints them: ``\\subtitlepunct`` and ``\\newunitpunct`` are ". ", left out
    after a part that ends in ".", "?" or "!" (biblatex's punctuation tracker)."""
    title = ""
    for name in ("title", "subtitle", "titleaddon"):
        part = decode_latex(_value(entry, name) or "")
        if part:
            title += (" " if title.endswith((".", "?", "!")) else ". ") + part \
                if title else part
    return title


def _raw(entry: Entry, notes: list[str]) -> RawRecord:
    raw = RawRecord(label=f"entry {entry.key}" if entry.key else
                    f"entry at line {entry.start_line + 1}")
    raw.citation_key = entry.key or None
    raw.field_count = len(entry.fields)
    raw.title = _full_title(entry)
    abstract, raw.abstract_length = bounded(_value(entry, "abstract"))
    raw.abstract = decode_latex(abstract)
    raw.authors = _names(entry)
    raw.date = _date(entry)
    raw.entry_type = BIBTEX_TYPES.get(entry.entry_type.lower(), "misc")
    doi = _value(entry, "doi")
    raw.doi = _verbatim(doi) if doi else None
    prefix = (_value(entry, "archiveprefix") or _value(entry, "eprinttype") or "").strip()
    eprint = _value(entry, "eprint")
    url = _verbatim(_value(entry, "url") or "") or None
    if eprint and prefix.strip("{}").lower() == "arxiv":
        raw.arxiv_id = _verbatim(eprint)
    elif url and _ARXIV_URL.match(url):
        raw.arxiv_id = _ARXIV_URL.match(url).group(1)
    if url and not (_ARXIV_URL.match(url) and raw.arxiv_id):
        raw.url = url
    raw.values = bibtex_values(lambda name: _value(entry, name), decode_latex,
                               raw.entry_type)
    raw.keywords = bibtex_keywords(lambda name: _value(entry, name), decode_latex)
    raw.notes = bibtex_notes(lambda name: _value(entry, name), decode_latex)
    return raw


_NOT_INHERITED = {"ids", "crossref", "xref", "entryset", "entrysubtype", "execute",
                  "label", "options", "presort", "related", "relatedoptions",
                  "relatedstring", "relatedtype", "shorthand", "shorthandintro",
                  "sortkey", "abstract", "doi", "eprint", "url", "keywords"}


# A parent's title parts are the child's book title parts (biblatex, appendix B).
_AS_CHILD = {"title": "booktitle", "subtitle": "booksubtitle",
             "titleaddon": "booktitleaddon"}


def _inherit(entries: list[Entry]) -> None:
    """Give each entry with a ``crossref`` the fields it lacks from its parent (one
    level, as BibTeX does; see the module docstring)."""
    by_key = {e.key.lower(): e for e in entries if e.key}
    for entry in entries:
        ref = _value(entry, "crossref")
        parent = by_key.get((ref or "").strip().lower())
        if parent is None or parent is entry:
            continue
        for name, field in parent.fields_dict.items():
            target = _AS_CHILD.get(name, name)
            if target in _NOT_INHERITED or target in entry.fields_dict:
                continue
            entry.set_field(type(field)(target, field.value))


def _parts(value: str) -> list[str] | None:
    """The parts of a value joined with ``#`` (outside braces and quotes), each as
    written, or ``None`` when it has no ``#`` at its top level."""
    parts, start, depth, quoted = [], 0, 0, False
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(value[start:i].strip())
            start = i + 1
    if not parts:
        return None
    return [*parts, value[start:].strip()]


def _part_text(part: str, strings: dict[str, str]) -> str:
    if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
        return part[1:-1]
    return strings.get(part.lower(), part)     # a number, or a name not defined: as is


class ConcatenationMiddleware(mw.LibraryMiddleware):
    """Resolves ``#`` concatenation (btxdoc, section 4: ``journal = jmlr # " (Special
    Issue)"``) in field values and ``@string`` definitions, which bibtexparser 2 leaves
    as written. Each part is a braced or quoted literal, a number, or an ``@string``
    name (case-insensitive; a name not defined is kept as written). Runs before
    bibtexparser's own string resolution; a resolved value is put in braces, which the
    enclosing middleware then removes."""

    def __init__(self, allow_inplace_modification: bool = True):
        super().__init__(allow_inplace_modification)

    @classmethod
    def metadata_key(cls) -> str:
        """The key under which bibtexparser records what this middleware did."""
        return "paperdesk-concatenation"

    def transform(self, library: bibtexparser.Library) -> bibtexparser.Library:
        """Resolve the concatenations of ``library`` in place; return it."""
        strings: dict[str, str] = {}
        for block in library.strings:       # in file order: BibTeX's own rule
            raw = str(block.value)
            parts = _parts(raw)
            if parts is not None:
                block.value = "{" + "".join(_part_text(p, strings) for p in parts) + "}"
            strings[block.key.lower()] = _part_text(str(block.value).strip(), strings)
        for entry in library.entries:
            for field in entry.fields:
                if isinstance(field.value, str):
                    parts = _parts(field.value)
                    if parts is not None:
                        field.value = "{" + "".join(_part_text(p, strings)
                                                    for p in parts) + "}"
        return library


_STACK = (mw.NormalizeFieldKeys, mw.SeparateCoAuthors, mw.SplitNameParts)


def _parse_stack() -> list:
    return [ConcatenationMiddleware(True), mw.ResolveStringReferencesMiddleware(True),
            mw.RemoveEnclosingMiddleware(True), *(m() for m in _STACK)]


_BRACE = re.compile(r"[{}]")
_ENTRY_START = re.compile(r"\n[ \t]*@")
_FIELD_NAME = re.compile(r"([A-Za-z][\w:.+-]*)\s*=\s*$")
_ENTRY_KEY = re.compile(r"@\s*[A-Za-z]+\s*[{(]\s*([^,\s{}()]*)")


def _shorten_long_values(text: str) -> tuple[str, dict[tuple[str, str], int]]:
    """``text`` with every braced field value longer than
    :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters cut to
    that many (its open braces closed), and the lengths they had.

    Only entries longer than that are scanned (the text between two lines starting with
    ``@``), brace by brace: a value is a group at depth 2 (``@type{`` opens depth 1).

    Args:
        text: a BibTeX file's content.
    Returns:
        ``(text, lengths)``: ``lengths`` maps ``(entry key, field name lower-cased)`` to
        the value's full length in characters; ``text`` is ``text`` itself when nothing
        was cut.
    """
    starts = [0, *(m.start() for m in _ENTRY_START.finditer(text)), len(text)]
    pieces: list[str] = []
    lengths: dict[tuple[str, str], int] = {}
    last = 0
    for begin, end in zip(starts, starts[1:]):
        if end - begin <= RAW_KEEP_CHARS:
            continue
        depth, value_start = 0, 0
        for m in _BRACE.finditer(text, begin, end):
            if m.group() == "{":
                depth += 1
                if depth == 2:
                    value_start = m.end()
                continue
            if depth == 2 and m.start() - value_start > RAW_KEEP_CHARS:
                kept = text[value_start:value_start + RAW_KEEP_CHARS]
                pieces += [text[last:value_start], kept,
                           "}" * max(0, kept.count("{") - kept.count("}"))]
                last = m.start()
                name = _FIELD_NAME.search(text, max(begin, value_start - 200),
                                          value_start - 1)
                key = _ENTRY_KEY.match(text, text.find("@", begin, value_start))
                lengths[(key.group(1) if key else "",
                         name.group(1).lower() if name else "")] = m.start() - value_start
            depth = max(0, depth - 1)
    if not pieces:
        return text, lengths
    pieces.append(text[last:])
    return "".join(pieces), lengths


def read_bibtex(path: Path | str, text: str, encoding: str) -> RecordFile:
    """Read the entries of a BibTeX/BibLaTeX file (see the module docstring).

    Args:
        path: the file's absolute path (or ``"<stdin>"``).
        text: its decoded content.
        encoding: the encoding it was decoded with.
    Returns:
        The :class:`~paperdesk.core.imports.records.RecordFile`: checked records, and a
        note for each block that could not be parsed, each entry with neither title nor
        abstract and each value dropped. A field value longer than
        :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters is
        shortened before parsing (:func:`_shorten_long_values`), so that a file with a
        190 MB abstract is parsed in the memory of a small one.
    """
    text, long_values = _shorten_long_values(text)
    library = bibtexparser.parse_string(text, parse_stack=_parse_stack())
    del text
    out = RecordFile(path, "bibtex", encoding)
    entries: list[Entry] = list(library.entries)
    for block in library.failed_blocks:
        if isinstance(block, DuplicateBlockKeyBlock) and isinstance(
                block.ignore_error_block, Entry):
            # bibtexparser leaves a repeated key's entry unprocessed: run the same
            # middleware on it (with the file's @strings).
            again = bibtexparser.Library([*library.strings, block.ignore_error_block])
            for m in _parse_stack():
                again = m.transform(again)
            entries.extend(again.entries)
        elif isinstance(block, ParsingFailedBlock):
            out.skipped.append(f"block at line {block.start_line + 1}: cannot be parsed "
                               "as BibTeX; left out")
    entries.sort(key=lambda e: e.start_line)
    _inherit(entries)
    for position, entry in enumerate(entries, start=1):
        notes: list[str] = []
        raw = _raw(entry, notes)
        for (key, name), length in long_values.items():
            if key == entry.key and name == "abstract":
                raw.abstract_length = max(raw.abstract_length, length)
            elif key == entry.key:
                notes.append(f"{raw.label}: its {name} has {length:,} characters; only the "
                             f"first {RAW_KEEP_CHARS:,} were read")
        check_record(raw, position, out)
        out.warnings.extend(notes)
    return out
