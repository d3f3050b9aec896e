"""The keywords and notes of a BibTeX entry or a CSL-JSON item, as the readers put them in
:attr:`~paperdesk.core.imports.records.RawRecord.keywords` and
:attr:`~paperdesk.core.imports.records.RawRecord.notes` (the import stores keywords as
tags and notes as the paper's note). Pure: no database, no Qt.

Keywords (BibTeX ``keywords``, JabRef's ``groups``; CSL-JSON ``keyword``) are one text
that holds several: split on ``,`` and ``;`` (JabRef writes ``,`` by default and offers
``;``; MEDLINE-style lists use ``;``; paperdesk writes ``, ``), each stripped, empty ones
left out. A tag name cannot hold a comma, so a comma always separates.

Notes: BibTeX ``note``, ``annote`` and biblatex's ``annotation``, in this order, each a
note; CSL-JSON ``note``. BibTeX's ``note`` is often a bibliographic remark ("To appear",
"Accepted") rather than a reader's note; it is read as a note all the same, because
paperdesk has no other place for it (it would be lost) and because paperdesk's own
BibTeX export writes the paper's note there. JabRef and Zotero write a reader's notes to
``annote``; paperdesk writes highlights there, which come back as note text (a
highlight's place in the abstract does not travel through BibTeX).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["split_keywords", "bibtex_keywords", "bibtex_notes", "csl_keywords", "csl_notes"]

_SEPARATORS = re.compile(r"[,;]")
#: BibTeX fields holding keywords, in the order read.
BIBTEX_KEYWORD_FIELDS = ("keywords", "groups")
#: BibTeX fields holding notes, in the order read.
BIBTEX_NOTE_FIELDS = ("note", "annote", "annotation")


def split_keywords(text: str) -> list[str]:
    """Return the keywords of one keyword list.

    Args:
        text: e.g. ``"q-bio.PE, cs.CE"`` or ``"Animals; Cell Culture"``.
    Returns:
        The keywords, stripped, in order, empty ones left out (``["q-bio.PE", "cs.CE"]``).
    """
    return [word.strip() for word in _SEPARATORS.split(text) if word.strip()]


def bibtex_keywords(get: Callable[[str], str | None],
                    decode: Callable[[str], str] = str) -> list[str]:
    """Return the keywords of one BibTeX entry: its ``keywords``, then JabRef's ``groups``.

    Args:
        get: the entry's raw value of a (lower-case) field name, or ``None``.
        decode: turns a raw value into text (the reader's LaTeX decoding).
    Returns:
        The keywords in file order (duplicates are removed when the record is checked).
    """
    return [word for name in BIBTEX_KEYWORD_FIELDS if (get(name) or "").strip()
            for word in split_keywords(decode(get(name)))]


def bibtex_notes(get: Callable[[str], str | None],
                 decode: Callable[[str], str] = str) -> list[str]:
    """Return the notes of one BibTeX entry: ``note``, ``annote``, ``annotation``.

    Args:
        get: the entry's raw value of a (lower-case) field name, or ``None``.
        decode: turns a raw value into text.
    Returns:
        One text per field that has one, in that order.
    """
    return [decode(get(name)).strip() for name in BIBTEX_NOTE_FIELDS
            if (get(name) or "").strip()]


def csl_keywords(item: dict) -> list[str]:
    """Return the keywords of one CSL-JSON item (``keyword``, a text; a list of texts,
    which some writers produce, is taken item by item).

    Args:
        item: the item as parsed JSON.
    Returns:
        The keywords in order.
    """
    value = item.get("keyword")
    texts = value if isinstance(value, list) else [value]
    return [word for text in texts if isinstance(text, (str, int, float))
            for word in split_keywords(str(text))]


def csl_notes(item: dict) -> list[str]:
    """Return the note of one CSL-JSON item (``note``) as a list of at most one text,
    stripped (paperdesk starts a note with a line break so that citeproc does not read
    its first line as a variable).

    Args:
        item: the item as parsed JSON.
    Returns:
        ``[note]`` or ``[]``.
    """
    value = item.get("note")
    if not isinstance(value, str) or not value.strip():
        return []
    return [value.strip()]
