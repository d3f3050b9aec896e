"""The longest abstract a paper keeps, and how a longer one is cut. Pure: no database,
no Qt.

An abstract is a paragraph: the longest on arXiv are a few thousand characters, and
journals cap theirs at a few hundred words. A "paragraph" of megabytes is a file
without paragraph breaks, a log, or a hostile input; stored whole it would take the
window, the index and every export with it. So every import format (text, BibTeX,
RIS, CSL-JSON, arXiv metadata, paperdesk's own JSON export) keeps at most
:data:`MAX_ABSTRACT_CHARS` characters of an abstract: a longer one is **cut**, not
refused, because the record is still a paper the user asked for (its title, authors,
DOI and the start of its text are worth keeping, as a reference manager keeps an
entry whose field is too long) and a refusal would cost it. The cut falls at the
last sentence end before the limit (``.``, ``!``, ``?`` or the CJK ``。``, ``！``,
``？`` followed by white space or the end), else at the last white space, when
either lies in the second half of the kept text; else exactly at the limit. The
import report says so, one line per paper: ``"entry huge: abstract cut at 99,987
characters (was 190,000,000)"``.

Readers do not decode or normalise a huge value whole: they keep its first
:data:`RAW_KEEP_CHARS` characters (:func:`bounded`), which after decoding and
normalising (white space runs become one space) still hold more than the limit for
any ordinary text, and remember the value's full length for the note.
"""

from __future__ import annotations

import re

__all__ = ["MAX_ABSTRACT_CHARS", "RAW_KEEP_CHARS", "bounded", "cut_abstract", "cut_note",
           "limit_abstract"]

#: The most characters (Unicode code points, after normalisation) of an abstract kept.
MAX_ABSTRACT_CHARS = 100_000
#: Characters of a raw (not yet decoded or normalised) value kept when it is longer.
RAW_KEEP_CHARS = 2 * MAX_ABSTRACT_CHARS

# A sentence end: the mark (after an optional closing quote or bracket is not needed:
# the cut keeps what comes before the white space) followed by white space.
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f](?=\s)|[\u3002\uff01\uff1f]")


def bounded(raw: str | None, keep: int = RAW_KEEP_CHARS) -> tuple[str, int]:
    """A raw value's first ``keep`` characters and its full length.

    Args:
        raw: the value as read (``None`` for none).
        keep: characters kept.
    Returns:
        ``(prefix, length)``: the value itself when it is not longer than ``keep``.
    """
    raw = raw or ""
    return (raw if len(raw) <= keep else raw[:keep]), len(raw)


def cut_abstract(text: str, limit: int = MAX_ABSTRACT_CHARS) -> str:
    """Cut a normalised abstract to at most ``limit`` characters, at a sentence end or
    a word boundary (the rule is in the module docstring).

    Args:
        text: the abstract, normalised (:func:`paperdesk.core.text.normalize`).
        limit: characters kept at most.
    Returns:
        ``text`` itself when it is not longer than ``limit``, else the cut text (no
        white space at its end).
    """
    if len(text) <= limit:
        return text
    head = text[:limit + 1]     # one more: a sentence end right at the limit counts
    ends = [m.end() for m in _SENTENCE_END.finditer(head, limit // 2)]
    ends = [e for e in ends if e <= limit]
    if ends:
        return head[:ends[-1]].rstrip()
    space = max(head.rfind(" ", 0, limit + 1), head.rfind("\n", 0, limit + 1))
    if space >= limit // 2:
        return head[:space].rstrip()
    return head[:limit]


def limit_abstract(text: str, raw_length: int = 0) -> tuple[str, int | None]:
    """An abstract as a paper keeps it, and how long it was when it had to be cut.

    Args:
        text: the abstract, normalised; from a :func:`bounded` prefix when the raw value
            was longer than :data:`RAW_KEEP_CHARS`.
        raw_length: the raw value's full length (0 when not known: ``text`` is whole).
    Returns:
        ``(abstract, was)``: ``was`` is ``None`` when nothing was cut, else the length
        :func:`cut_note` reports (the raw value's when only a prefix was read, else the
        normalised text's).
    """
    kept = cut_abstract(text)
    if raw_length > RAW_KEEP_CHARS:
        return kept, raw_length
    if len(kept) < len(text):
        return kept, len(text)
    return text, None


def cut_note(label: str, kept: int, was: int) -> str:
    """The report's line about a cut abstract.

    Args:
        label: names the record (``"entry huge"``, ``"abstract 3"``).
        kept: characters kept.
        was: characters the abstract had (of the normalised text, or of the raw value
            in the file when it was too long to normalise whole).
    Returns:
        ``"<label>: abstract cut at 99,987 characters (was 190,000,000)"``.
    """
    return f"{label}: abstract cut at {kept:,} characters (was {was:,})"
