"""Reading CSL-JSON (as Zotero, citation-js, pandoc and paperdesk's own export write it)
into records. Pure: no database, no Qt.

Follows the CSL 1.0.2 data schema (``csl-data.json``, https://citationstyles.org): a JSON
array of items (a single item object is read as one). Titles and abstracts lose CSL's
rich-text markup and Crossref's JATS (:mod:`paperdesk.core.imports.markup`). Taken: ``id`` (the citation key), ``type`` (by :data:`CSL_TYPES`;
others ``misc``; ``article``, CSL's type for preprints, is ``preprint``), ``title``,
``abstract``, ``author`` (else ``editor``; ``{"family", "given"}`` with the particles
``non-dropping-particle``/``dropping-particle`` put before the family name and
``suffix`` as the author's suffix, or ``{"literal"}``), ``issued`` (``date-parts``, else ``raw`` or
``literal`` when it is an ISO date, else the year in it with a note: ``"Spring 2021"``
is 2021), the venue from ``container-title``, else
``publisher``, ``DOI``, the arXiv id from ``number`` or ``archive_location``
(``arXiv:<id>``, or when ``archive``/``publisher`` is arXiv) or an arxiv.org ``URL``,
and ``URL`` (unless it is the arXiv page); ``keyword`` and ``note``
(:mod:`paperdesk.core.imports.keywords_notes`). An element of the array that is not an
object, or an item that cannot be read, is left out with a note naming it; the rest come in.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from paperdesk.core.field_formats import csl_values
from paperdesk.core.imports.abstract_limit import bounded
from paperdesk.core.imports.daily_papers import ParseError
from paperdesk.core.imports.keywords_notes import csl_keywords, csl_notes
from paperdesk.core.imports.markup import plain_text
from paperdesk.core.imports.records import RawRecord, RecordFile, check_record
from paperdesk.core.text import loads_json

__all__ = ["CSL_TYPES", "read_csl_json"]

#: CSL item type -> paperdesk entry type.
CSL_TYPES = {
    "article-journal": "article", "article-magazine": "article",
    "article-newspaper": "article", "review": "article", "review-book": "article",
    "paper-conference": "inproceedings", "article": "preprint", "manuscript": "preprint",
    "book": "book", "chapter": "incollection", "entry-encyclopedia": "incollection",
    "entry-dictionary": "incollection", "entry": "incollection",
    "thesis": "thesis", "report": "report", "standard": "report",
}
_ISO = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_ARXIV_URL = re.compile(r"https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/(\S+?)(?:\.pdf)?/?$",
                        re.IGNORECASE)


def _text(value) -> str:
    if value is None or isinstance(value, (dict, list)):
        return ""
    return str(value).strip()


def _names(item: dict) -> list[tuple[str, str, str]]:
    for field in ("author", "editor"):
        names = item.get(field)
        if not isinstance(names, list) or not names:
            continue
        out = []
        for n in names:
            if not isinstance(n, dict):
                continue
            if _text(n.get("literal")):
                out.append((_text(n["literal"]), ""))
                continue
            family = " ".join(p for p in (_text(n.get("dropping-particle")),
                                          _text(n.get("non-dropping-particle")),
                                          _text(n.get("family"))) if p)
            out.append((family, _text(n.get("given")), _text(n.get("suffix"))))
        return out
    return []


def _date(item: dict, problems: list[str]) -> str | None:
    issued = item.get("issued")
    if not isinstance(issued, dict):
        return _text(issued) or None
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        try:
            nums = [int(p) for p in parts[0][:3]]
        except (TypeError, ValueError, OverflowError):    # "x", NaN, Infinity
            return str(parts[0][0])
        return "-".join([f"{nums[0]:04d}", *(f"{p:02d}" for p in nums[1:])])
    raw = _text(issued.get("raw")) or _text(issued.get("literal"))
    if not raw:
        return None
    first = raw.split("/")[0].strip()
    if _ISO.fullmatch(first):
        return first
    year = _YEAR.search(raw)
    if year is None:
        return raw       # the check drops it, with a note
    problems.append(f"issued: {raw!r} is not a date; its year {year.group(1)} taken")
    return year.group(1)


_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")


def _text_of(value: str) -> str:
    """A CSL-JSON title or abstract as text: its rich-text markup removed
    (:func:`~paperdesk.core.imports.markup.plain_text`) and its HTML character
    references decoded (CSL's rich text is HTML-like, and OpenAlex's records write
    ``&amp;``, ``&lt;``, ``&nbsp;`` in text without tags: "Cats &amp; dogs" is
    "Cats & dogs")."""
    text = plain_text(value)
    return html.unescape(text) if _ENTITY.search(text) else text


def _raw(item: dict, n: int) -> RawRecord:
    key = _text(item.get("id"))
    raw = RawRecord(label=f"item {n}" + (f" ({key})" if key else ""))
    raw.citation_key = key or None
    raw.title = _text_of(_text(item.get("title")))
    abstract, raw.abstract_length = bounded(_text(item.get("abstract")))
    raw.abstract = _text_of(abstract)
    raw.authors = _names(item)
    raw.date = _date(item, raw.problems)
    raw.entry_type = CSL_TYPES.get(_text(item.get("type")), "misc")
    raw.doi = _text(item.get("DOI")) or None
    url = _text(item.get("URL")) or None
    arxiv_hint = "arxiv" in (_text(item.get("archive")) + _text(item.get("publisher"))).lower()
    for name in ("number", "archive_location"):
        value = _text(item.get(name))
        if value.lower().startswith("arxiv:") or (value and arxiv_hint and name == "archive_location"):
            raw.arxiv_id = value
            break
    if raw.arxiv_id is None and url and _ARXIV_URL.match(url):
        raw.arxiv_id = _ARXIV_URL.match(url).group(1)
    if url and not (_ARXIV_URL.match(url) and raw.arxiv_id):
        raw.url = url
    raw.values = csl_values(item, raw.entry_type)
    raw.keywords = csl_keywords(item)
    raw.notes = csl_notes(item)
    return raw


def read_csl_json(path: Path | str, text: str, encoding: str,
                  items: object = None) -> RecordFile:
    """Read the items of a CSL-JSON file (see the module docstring).

    Args:
        path: names the file.
        text: its content (parsed unless ``items`` is given).
        encoding: the encoding it was decoded with.
        items: the parsed JSON, when the caller has it already.
    Returns:
        The :class:`~paperdesk.core.imports.records.RecordFile`. An element that is not
        an object, or an item that cannot be read, is left out with a note in
        ``skipped`` naming it (its number, and its ``id`` when it has one); the others
        come in.
    Raises:
        ParseError: not JSON, or neither a list with an object in it nor one object.
    """
    if items is None:
        try:
            items = loads_json(text.lstrip("\ufeff"))
        except json.JSONDecodeError as exc:
            raise ParseError(path, f"not valid JSON ({exc})") from exc
    if isinstance(items, dict):
        items = [items]     # a single item (citation-js writes one so)
    if not isinstance(items, list) or not any(isinstance(i, dict) for i in items):
        raise ParseError(path, "CSL-JSON must be a list of items (or one item)")
    out = RecordFile(path, "csl-json", encoding)
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            out.skipped.append(f"item {n}: {_json_kind(item)}, not an item (a JSON "
                               "object); left out")
            continue
        try:
            raw = _raw(item, n)
        except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as exc:
            out.skipped.append(f"item {n}{_id_shown(item)}: cannot be read "
                               f"({type(exc).__name__}); left out")
            continue
        check_record(raw, n, out)
    return out


def _json_kind(value: object) -> str:
    """What a JSON value is, as a note names it (``"a list"``, ``"the number 3"``)."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None or isinstance(value, bool):
        return f"the value {json.dumps(value)}"
    return f"the number {value}"


def _id_shown(item: dict) -> str:
    """`` (its id)`` for a note naming an item that has a usable id, else ``""``."""
    key = item.get("id")
    return f" ({' '.join(str(key).split())[:60]})" if isinstance(key, (str, int)) else ""
