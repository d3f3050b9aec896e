"""A paper's own bibliographic metadata: authors, date, venue, entry type, DOI, arXiv id,
URL and citation key; how each is checked, and how citation keys are made. Pure: no
database, no Qt.

*Own* metadata is what the user typed (or an import that carries the paper's own record
set); it is never guessed from the abstract. Identifiers and links that merely appear in
an abstract are *mentioned* (:class:`Mentioned`): shown and searchable, never the paper's
own DOI, arXiv id, year or citation key.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from collections.abc import Callable, Iterable
from paperdesk.core.models import Author, LibraryError, Mentioned, Metadata

__all__ = ["Author", "Metadata", "Mentioned", "ENTRY_TYPES", "merge_metadata", "parse_author",
           "parse_authors", "read_author_list", "format_author_list", "is_et_al", "ET_AL",
           "is_suffix", "SUFFIXES",
           "format_author", "check_doi", "check_arxiv_id", "check_date", "check_url",
           "check_entry_type", "check_citation_key", "check_metadata", "extract_dois",
           "auto_key", "metadata_key", "key_word", "unique_key", "MetadataError"]


class MetadataError(LibraryError):
    """A metadata value was refused; the message is one line naming the field and why."""


#: Entry types a paper can have (the names BibTeX and biblatex users know). ``None`` (not
#: set) is written as ``preprint`` when the paper has an arXiv id, else as ``misc``.
ENTRY_TYPES = ("article", "inproceedings", "preprint", "book", "incollection", "thesis",
               "report", "misc")


# -- names ---------------------------------------------------------------------------
#: Generational suffixes recognised in the middle of a three-part name (BibTeX's
#: "von Last, Jr, First" order), compared case-folded without a final dot.
SUFFIXES = frozenset({"jr", "sr", "jnr", "snr", "ii", "iii", "iv", "v", "vi", "2nd", "3rd",
                      "4th"})


def is_suffix(text: str) -> bool:
    """Whether ``text`` is a generational suffix of :data:`SUFFIXES` ("Jr.", "III")."""
    return text.strip().rstrip(".").casefold() in SUFFIXES


def parse_author(text: str) -> Author:
    """Read one author as typed: ``"Family, Given"``, ``"Family, Given, Suffix"`` (the
    RIS specification's form, ``"King, Martin Luther, Jr."``) or ``"Given Family"``.

    A name in braces (``"{World Health Organization}"``) is an organisation: all family,
    no given name. Without a comma, the last word is the family name, together with
    lower-case particles before it ("Ludwig van Beethoven" -> family "van Beethoven").
    With two commas, one part after the family name must be a generational suffix
    (:func:`is_suffix`: Jr, Sr, II, III, ...): the third (``"Family, Given, Suffix"``),
    else the middle one, BibTeX's order ``"Family, Jr, Given"`` (``"Cee, Jr, Carl"``).

    Args:
        text: the name.
    Returns:
        The :class:`Author`.
    Raises:
        MetadataError: empty, an empty family name, more than two commas, or two
            commas without a suffix ("a, b, c").
    """
    clean = " ".join(str(text).split())
    if not clean:
        raise MetadataError("author: a name cannot be empty")
    if clean.startswith("{") and clean.endswith("}") and clean.count("{") == 1:
        return Author(clean[1:-1].strip())
    if "," in clean:
        parts = [p.strip() for p in clean.split(",")]
        if len(parts) > 3 or not parts[0]:
            raise MetadataError(f"author: cannot read {clean!r} "
                                "(use 'Family, Given' or 'Family, Given, Suffix')")
        if len(parts) == 2:
            return Author(parts[0], parts[1])
        if is_suffix(parts[2]):
            return Author(parts[0], parts[1], parts[2])      # RIS: Family, Given, Suffix
        if is_suffix(parts[1]):
            return Author(parts[0], parts[2], parts[1])      # BibTeX: Last, Jr, First
        raise MetadataError(f"author: cannot read {clean!r} (a third part must be a "
                            "suffix such as Jr. or III: 'Family, Given, Suffix')")
    words = clean.split(" ")
    if len(words) == 1:
        return Author(words[0])
    start = len(words) - 1
    while start > 1 and words[start - 1][:1].islower():
        start -= 1
    return Author(" ".join(words[start:]), " ".join(words[:start]))


#: How the truncation of an author list is written where one name per part is typed
#: (the metadata editor's last line, ``paperdesk edit --author``): "et al.".
ET_AL = "et al."
#: The texts that stand for "and more authors" at the end of an author list, compared
#: case-folded without a final dot: BibTeX's ``others`` (btxdoc, section 4), which
#: paperdesk's RIS and CSL-JSON exports write too, and "et al.".
_ET_AL_WORDS = frozenset({"others", "et al", "et. al", "etal"})


def is_et_al(text: str) -> bool:
    """Whether ``text`` (one name as a file or the user gives it) stands for "and more
    authors": ``others`` (BibTeX's form) or ``et al.``, in any case."""
    return " ".join(text.split()).rstrip(".").casefold() in _ET_AL_WORDS


def _split_names(text: str) -> list[str]:
    """``text`` split at ``;`` and at the word ``and`` outside braces (BibTeX's rule,
    btxdoc section 4: ``{Barnes and Noble}`` is one name)."""
    parts, depth, start = [], 0, 0
    for m in re.finditer(r"[{}]|;|\s+and\s+", text):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            parts.append(text[start:m.start()])
            start = m.end()
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def read_author_list(text: str) -> tuple[tuple[Author, ...], bool]:
    """Read several authors separated by ``;`` or by `` and `` (as BibTeX writes them),
    each as :func:`parse_author` reads it; a name in braces is one name even when it
    holds ``and`` or ``;`` (``{Barnes and Noble}``). A last name ``others`` or ``et al.``
    (:func:`is_et_al`) says the list is truncated.

    Args:
        text: e.g. ``"Doe, Jane; Smith, John"``, ``"Jane Doe and John Smith and others"``
            or ``"{World Health Organization}; et al."``.
    Returns:
        ``(authors, et_al)``: the authors in order (empty for blank text) and whether
        the list ends in "et al.".
    Raises:
        MetadataError: a name cannot be read (see :func:`parse_author`), or "et al."
            comes before the last name or with no name before it.
    """
    parts = _split_names(" ".join(str(text).split()))
    et_al = bool(parts) and is_et_al(parts[-1])
    if et_al:
        parts = parts[:-1]
        if not parts:
            raise MetadataError("author: 'et al.' needs at least one name before it")
    for part in parts:
        if is_et_al(part):
            raise MetadataError(f"author: {part!r} can only end the list of authors")
    return tuple(parse_author(p) for p in parts), et_al


def parse_authors(text: str) -> tuple[Author, ...]:
    """Read several authors as :func:`read_author_list` does, without the "et al."
    that may end them.

    Args:
        text: e.g. ``"Doe, Jane; Smith, John"`` or ``"Jane Doe and John Smith"``.
    Returns:
        The authors in order (empty for blank text).
    Raises:
        MetadataError: a name cannot be read (see :func:`parse_author`).
    """
    return read_author_list(text)[0]


def format_author(author: Author) -> str:
    """Return ``"Family, Given"`` (``"Family"`` when there is no given name, ``"Family,
    Given, Suffix"`` when there is a suffix); the form :func:`parse_author` reads back.
    A name without given names that would be read back otherwise (several words, a
    comma, ``;``, or ``others``) is put in braces: ``"{World Health Organization}"``."""
    name = str(author)
    if not author.given and not author.suffix and (
            any(c in name for c in " ,;") or is_et_al(name)):
        return "{" + name + "}"
    return name


def format_author_list(authors: Iterable[Author], et_al: bool = False,
                       separator: str = "; ") -> str:
    """Return the authors as :func:`read_author_list` reads them back: each as
    :func:`format_author` writes it, joined by ``separator``, then :data:`ET_AL` when
    the list is truncated.

    Args:
        authors: in order.
        et_al: whether the list ends in "et al." (:attr:`Metadata.et_al`).
        separator: ``"; "`` (one line) or ``"\\n"`` (one name per line).
    Returns:
        The text; ``""`` for no authors.
    """
    names = [format_author(a) for a in authors]
    return separator.join(names + [ET_AL] if et_al and names else names)


# -- identifiers --------------------------------------------------------------------
# DOI syntax: https://www.doi.org/the-identifier/resources/handbook/2_numbering
# ("10." + registrant code + "/" + suffix); Crossref's advice for matching them in text:
# https://www.crossref.org/blog/dois-and-matching-regular-expressions/
_DOI_RE = re.compile(r"10\.\d{4,9}/\S+")
_DOI_PREFIXES = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI_IN_TEXT = re.compile(r"\b10\.\d{4,9}/[-._;()/:A-Za-z0-9<>\[\]]+[A-Za-z0-9/)]")
# arXiv identifiers: https://info.arxiv.org/help/arxiv_identifier.html
_ARXIV_NEW = re.compile(r"\d{4}\.\d{4,5}(?:v\d+)?")
_ARXIV_OLD = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?")
_ARXIV_PREFIXES = re.compile(r"^(?:https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)",
                             re.IGNORECASE)


def check_doi(text: str | None) -> str | None:
    """Return the DOI in its plain form, or ``None`` for blank input.

    Accepts ``10.xxxx/suffix``, ``doi:10.xxxx/...`` and ``https://doi.org/10.xxxx/...``
    (the DOI Handbook's syntax: "10." + a registrant code of 4-9 digits + "/" + a suffix
    without white space). DOIs compare without regard to case; the case typed is kept.

    Raises:
        MetadataError: not a DOI, e.g. ``"doi: '10.1/x' is not a DOI (it must look like
            10.1234/suffix)"``.
    """
    if text is None or not str(text).strip():
        return None
    clean = _DOI_PREFIXES.sub("", str(text).strip())
    if not _DOI_RE.fullmatch(clean):
        raise MetadataError(f"doi: {str(text).strip()!r} is not a DOI "
                            "(it must look like 10.1234/suffix)")
    return clean


def check_arxiv_id(text: str | None) -> str | None:
    """Return the arXiv identifier without prefix, or ``None`` for blank input.

    Accepts new-style ``YYMM.NNNN(N)`` with an optional version, old-style
    ``archive/YYMMNNN`` (``hep-th/9901001``), an ``arXiv:`` prefix or an arxiv.org
    ``abs``/``pdf`` link (https://info.arxiv.org/help/arxiv_identifier.html). A new-style
    id's YYMM must be a month from 0704 (when the scheme began) to this month, with four
    digits after the dot until 1412 and five from 1501; versions count from 1.

    Raises:
        MetadataError: not an arXiv identifier.
    """
    if text is None or not str(text).strip():
        return None
    clean = _ARXIV_PREFIXES.sub("", str(text).strip())
    if clean.endswith(".pdf"):
        clean = clean[:-4]
    ok = False
    if _ARXIV_NEW.fullmatch(clean):
        number, _, version = clean.partition("v")
        yymm, digits = int(clean[:4]), len(number) - 5
        # New-style ids began in April 2007 (0704); four digits after the dot until 2014,
        # five from 2015 on; versions count from v1.
        today = _dt.date.today()
        ok = (1 <= yymm % 100 <= 12 and 704 <= yymm <= (today.year % 100) * 100 + today.month
              and (not version or int(version) >= 1)
              and ((digits == 4 and yymm <= 1412) or (digits == 5 and yymm >= 1501)))
    elif _ARXIV_OLD.fullmatch(clean):
        ok = 1 <= int(clean.split("/")[1][2:4]) <= 12
    if not ok:
        raise MetadataError(f"arxiv: {str(text).strip()!r} is not an arXiv identifier "
                            "(it must look like 2212.08630 or hep-th/9901001)")
    return clean


_DATE_RE = re.compile(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")


def check_date(text: str | int | None) -> str | None:
    """Return a publication date as ISO 8601 ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, or
    ``None`` for blank input.

    Raises:
        MetadataError: not such a date, or a year outside 1000-2999, a month outside
            01-12 or a day the month does not have.
    """
    if text is None or not str(text).strip():
        return None
    clean = str(text).strip()
    m = _DATE_RE.fullmatch(clean)
    if not m:
        raise MetadataError(f"date: {clean!r} is not a year or date "
                            "(use 2023, 2023-05 or 2023-05-17)")
    year, month, day = m.group(1), m.group(2), m.group(3)
    if not 1000 <= int(year) <= 2999:
        raise MetadataError(f"date: year {year} is out of range")
    if month and not 1 <= int(month) <= 12:
        raise MetadataError(f"date: month {month} is out of range")
    if day:
        import calendar
        if not 1 <= int(day) <= calendar.monthrange(int(year), int(month))[1]:
            raise MetadataError(f"date: {clean} has no day {day}")
    return clean


def check_url(text: str | None) -> str | None:
    """Return an http(s) URL, or ``None`` for blank input.

    Raises:
        MetadataError: not an http or https URL with a host, or containing white space.
    """
    if text is None or not str(text).strip():
        return None
    clean = str(text).strip()
    if not re.fullmatch(r"https?://[^\s/]+\.[^\s/]+(/\S*)?|https?://localhost(:\d+)?(/\S*)?",
                        clean, re.IGNORECASE):
        raise MetadataError(f"url: {clean!r} is not an http(s) link")
    return clean


def check_entry_type(text: str | None) -> str | None:
    """Return the entry type (lower-cased), or ``None`` for blank input.

    Raises:
        MetadataError: not one of :data:`ENTRY_TYPES`.
    """
    if text is None or not str(text).strip():
        return None
    clean = str(text).strip().lower()
    if clean not in ENTRY_TYPES:
        raise MetadataError(f"type: {clean!r} is not an entry type; use one of "
                            f"{', '.join(ENTRY_TYPES)}")
    return clean


_KEY_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_:.\-+/]*")

#: Longest citation key accepted, in characters. Measured (TeX Live 2023): bibtex and
#: biber both read and resolve a ``\cite`` of a 50,000-character key through pdflatex;
#: at 100,000 pdflatex stops with "TeX capacity exceeded [buffer size=200000]" before
#: either runs. A key from a file is the user's: anything up to this is kept as it is.
MAX_KEY_CHARS = 50_000


def check_citation_key(text: str) -> str:
    """Return a citation key the user typed (or a file gave), stripped.

    Keys are ASCII letters, digits and ``_ : . - + /``, starting with a letter or digit
    (characters BibTeX, biber, pandoc's ``@key`` and citation-js all accept), at most
    :data:`MAX_KEY_CHARS` characters (what pdflatex with bibtex or biber still resolves).

    Args:
        text: the key.
    Returns:
        The key without surrounding white space.
    Raises:
        MetadataError: empty, too long, or with another character.
    """
    clean = str(text).strip()
    if not clean:
        raise MetadataError("citation key: cannot be empty")
    if len(clean) > MAX_KEY_CHARS:
        raise MetadataError(f"citation key: too long ({len(clean):,} characters; at most "
                            f"{MAX_KEY_CHARS:,}: pdflatex cannot read a longer one)")
    if not _KEY_RE.fullmatch(clean):
        raise MetadataError(f"citation key: {clean[:60]!r}{'…' if len(clean) > 60 else ''} "
                            "may hold only ASCII letters, digits and _ : . - + /")
    return clean


def check_metadata(meta: Metadata) -> Metadata:
    """Check every part of ``meta`` and return it cleaned (white space collapsed,
    identifiers without prefixes).

    Raises:
        MetadataError: the first part refused, with a one-line reason naming it.
    """
    authors = tuple(Author(" ".join(a.family.split()), " ".join(a.given.split()),
                           " ".join(a.suffix.split()))
                    for a in meta.authors)
    for a in authors:
        if not a.family:
            raise MetadataError("author: a family name cannot be empty")
    return Metadata(authors=authors, date=check_date(meta.date),
                    entry_type=check_entry_type(meta.entry_type), doi=check_doi(meta.doi),
                    arxiv_id=check_arxiv_id(meta.arxiv_id), url=check_url(meta.url),
                    values=tuple((name, " ".join(text.split())) for name, text in meta.values
                                 if text.split()), et_al=meta.et_al)


def extract_dois(text: str) -> list[str]:
    """Return the distinct DOIs mentioned in ``text``, lower-cased, in order.

    Follows Crossref's pattern for DOIs in prose (``10.`` + 4-9 digits + ``/`` + suffix),
    with trailing sentence punctuation removed.
    """
    seen: dict[str, None] = {}
    for m in _DOI_IN_TEXT.finditer(text):
        doi = m.group(0).rstrip(".,;:")
        if doi.endswith(")") and doi.count(")") > doi.count("("):
            doi = doi[:-1]
        seen.setdefault(doi.lower(), None)
    return list(seen)


# -- citation keys ----------------------------------------------------------------------
_SKIP = {"a", "an", "the", "on", "of", "in", "we", "this", "for", "to", "and", "with",
         "is", "are", "how", "what", "when", "from", "by", "at", "as", "our"}


def _ascii_letters(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.findall(r"[A-Za-z]+", folded)


_ASCII_WORD = re.compile(r"[A-Za-z]+")


def key_word(title: str) -> str:
    """Return the first significant word of a title, lower-case ASCII (at most 20
    letters), or ``"paper"`` when it has none. Short words and function words ("a",
    "the", "we", ...) are skipped, as Better BibTeX's ``shorttitle`` does.

    The words of :func:`_ascii_letters` are looked at from the first one and only until
    the key's word is found (this runs for every abstract a text import stores); an
    ASCII title is its own NFKD form, so it is not normalised."""
    folded = (title if title.isascii()
              else unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode())
    for match in _ASCII_WORD.finditer(folded):
        word = match.group().lower()
        if len(word) > 2 and word not in _SKIP:
            return word[:20]
    return "paper"


def auto_key(title: str, paper_id: int, year: int | None = None) -> str:
    """Return the key of a paper whose authors are unknown: first significant title
    word, the year when known, ``_`` and the paper id (``learnable_224``,
    ``learnable2023_224``). Unique because the id is."""
    return f"{key_word(title)}{year or ''}_{paper_id}"


def metadata_key(authors: Iterable[Author], year: int | None, title: str) -> str | None:
    """Return the Better BibTeX style key base: first author's family name (ASCII, lower
    case, letters only), year, first significant title word (``smith2023learnable``);
    ``None`` when there are no authors."""
    authors = list(authors)
    if not authors:
        return None
    family = "".join(_ascii_letters(authors[0].family)).lower() or "anon"
    return f"{family}{year or ''}{key_word(title)}"


def unique_key(base: str, taken: Callable[[str], bool]) -> str:
    """Make ``base`` unique by appending a, b, ... z, aa, ab, ... as Better BibTeX does.

    Args:
        base: the wanted key.
        taken: tells whether a key is already used (compared without regard to case).
    Returns:
        ``base`` itself when free, else the first free suffixed form.
    """
    if not taken(base):
        return base
    n = 0
    while True:
        suffix, k = "", n
        while True:
            suffix = chr(ord("a") + k % 26) + suffix
            k = k // 26 - 1
            if k < 0:
                break
        if not taken(base + suffix):
            return base + suffix
        n += 1


def merge_metadata(own: Metadata, new: Metadata) -> Metadata:
    """``own`` with its missing parts taken from ``new``; nothing ``own`` has changes.

    A ``misc`` type in ``new`` says nothing (it is what a paper without a type is written
    as, so re-importing paperdesk's own export would otherwise "enrich" every paper) and
    is not taken."""
    from paperdesk.core.field_formats import merge_values   # the table-driven fields

    new_type = None if new.entry_type == "misc" else new.entry_type
    return Metadata(authors=own.authors or new.authors, date=own.date or new.date,
                    et_al=own.et_al if own.authors else new.et_al,
                    entry_type=own.entry_type or new_type, doi=own.doi or new.doi,
                    arxiv_id=own.arxiv_id or new.arxiv_id, url=own.url or new.url,
                    values=merge_values(own, new))
