"""What the export writers share: the citation key they write, how a highlight reads as
text, and the publication date split into parts. Pure: no database, no Qt."""

from __future__ import annotations

from paperdesk.core.metadata import auto_key
from paperdesk.core.models import Highlight, Paper

__all__ = ["citation_key", "entry_keys", "highlight_text", "date_parts", "one_line", "ARXIV_ABS",
           "ET_AL_NAME"]

#: The landing page of an arXiv identifier (append the id; see
#: https://info.arxiv.org/help/arxiv_identifier.html).
ARXIV_ABS = "https://arxiv.org/abs/"
#: The last name of a truncated author list (:attr:`Metadata.et_al`) in every export:
#: BibTeX's ``and others`` (btxdoc, section 4; bibtex and biber print "et al."), RIS's
#: last ``AU`` and CSL-JSON's last ``{"literal": "others"}`` (pandoc's form; its citeproc
#: prints "et al."). The importers read it back as the truncation.
ET_AL_NAME = "others"


def citation_key(paper: Paper) -> str:
    """Return the citation key to write for ``paper``: its stored key
    (:attr:`Paper.citation_key`, assigned when it was added and changed only by the
    user), or, for a paper object that has none (built by hand, not read from a
    library), the automatic key of :func:`paperdesk.core.metadata.auto_key`.

    Args:
        paper: the paper.
    Returns:
        The key, e.g. ``smith2023learnable`` or ``learnable_224``.
    """
    return paper.citation_key or auto_key(paper.title, paper.id, paper.year)


def entry_keys(paper: Paper) -> tuple[str, ...]:
    """Return every key an export writes an entry under for ``paper``: its
    :func:`citation_key`, then each alias (:attr:`Paper.key_aliases`: keys of entries
    an import merged onto it) that differs from it without regard to case.

    BibTeX and CSL-JSON write one identical entry per key, so that ``\\cite{alias}``
    and ``@alias`` still resolve: classic BibTeX has no alias field, and biber, given
    biblatex's ``ids = {alias}`` beside an entry of that key, warns "Citekey alias
    'alias' is also a real entry key, skipping" (measured with biber 2.19), so one file
    cannot carry both. Importing such a file puts the copies back as aliases (same
    fields: one work).

    Args:
        paper: the paper.
    Returns:
        ``(key, *aliases)``, e.g. ``("article-full", "article-crossref")``.
    """
    key = citation_key(paper)
    return (key, *dict.fromkeys(a for a in paper.key_aliases
                                if a.casefold() != key.casefold()))


def highlight_text(h: Highlight) -> str:
    """Return a highlight as one piece of text: the words in curly quotes, then the
    comment after an em dash when there is one (``“μ and β” — Greek``)."""
    return f"“{h.text}”" + (f" — {h.comment}" if h.comment else "")


def one_line(text: str) -> str:
    """Return ``text`` with every run of white space (line breaks included) made one
    space, stripped."""
    return " ".join(text.split())


def date_parts(date: str | None) -> list[int]:
    """Return an ISO 8601 date (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, as stored in
    :attr:`Metadata.date` and ``Paper.added_at[:10]``) as ``[year, month, day]`` with as
    many parts as it has; ``[]`` for ``None``."""
    if not date:
        return []
    return [int(p) for p in date[:10].split("-")]
