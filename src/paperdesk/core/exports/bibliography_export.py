"""The ``bibliography`` export format: papers -> a formatted bibliography in a CSL style
(:mod:`.bibliography` formats, :mod:`.csl_styles` finds the style). Pure: no database,
no Qt.

Options (``options`` of :func:`paperdesk.core.exports.formats.export_chunks`, the CLI's
``--style``, ``--locale``, ``--as``, ``--with-notes``): ``style`` (a shipped style id or a
``.csl`` path; default ``apa``), ``locale`` (a CSL locale; default the style's, else
en-US), ``output`` (``html``, ``text``, ``rtf`` or ``markdown``; default ``html``) and
``with_notes`` (each paper's tags and note below its entry).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from paperdesk.core.exports.bibliography import OUTPUTS, format_bibliography
from paperdesk.core.exports.csl import csl_item
from paperdesk.core.exports.csl_language import csl_language
from paperdesk.core.exports.csl_styles import StyleError, check_locale, load_style
from paperdesk.core.fields import export_fields
from paperdesk.core.models import Paper

__all__ = ["BIBLIOGRAPHY_FIELDS", "DEFAULT_STYLE", "OUTPUT_EXTENSIONS", "bibliography_items",
           "title_for_style",
           "bibliography_chunks", "missing_author_or_year"]

#: The style of a bibliography when none is chosen.
DEFAULT_STYLE = "apa"
#: The export fields a formatted reference is made from: not the abstract, note, tags,
#: highlights or date added (``accessed``), which styles would print for some types.
BIBLIOGRAPHY_FIELDS: tuple[str, ...] = tuple(
    f for f in export_fields() if f not in ("abstract", "note", "highlights", "tags", "added"))
#: Output form -> file name extension.
OUTPUT_EXTENSIONS = {"html": ".html", "text": ".txt", "rtf": ".rtf", "markdown": ".md"}


def bibliography_items(papers: Iterable[Paper]) -> list[dict]:
    """The CSL-JSON items of ``papers`` for formatting (:data:`BIBLIOGRAPHY_FIELDS`), each
    with ``id`` = ``p<paper id>`` (unique even where citation keys repeat) and its
    ``language`` as a code (:func:`.csl_language.csl_language`: ``eng`` -> ``en``, on which
    the style's title case depends) and its title without a sentence's final period
    (:func:`title_for_style`).

    Args:
        papers: the papers, in order.
    Returns:
        CSL-JSON items, in the same order.
    """
    items = []
    for paper in papers:
        item = dict(csl_item(paper, BIBLIOGRAPHY_FIELDS), id=f"p{paper.id}")
        if "title" in item:     # a paper kept for its key or DOI may have none
            item["title"] = title_for_style(item["title"])
        if "language" in item:
            item["language"] = csl_language(item["language"])
        items.append(item)
    return items


def title_for_style(title: str) -> str:
    """``title`` without the period that ends it as a sentence, which a style would follow
    with its own punctuation ("...branch points.,"): MEDLINE records end every title with
    one (Zotero's PubMed import removes it too). Kept when the last word may be an
    abbreviation ("Inc.", "U.S.", "etc."): shorter than four letters, not letters only, or
    capitalised in a title of several words.

    Args:
        title: the title as the CSL-JSON item has it.
    Returns:
        The title, without that period.
    """
    if not title.endswith(".") or title.endswith(".."):
        return title
    word = title[:-1].rsplit(" ", 1)[-1]
    if word.isalpha() and len(word) >= 4 and (word.islower() or " " not in title):
        return title[:-1]
    return title


def missing_author_or_year(papers: Iterable[Paper]) -> int:
    """How many of ``papers`` have no author or no year (formatted by title, "n.d.")."""
    return sum(1 for p in papers if not p.authors or not p.metadata.date)


def _notes(paper: Paper) -> str:
    lines = []
    if paper.tags:
        lines.append("Tags: " + ", ".join(t.name for t in paper.tags))
    if paper.note.strip():
        lines.append(paper.note.strip())
    return "\n".join(lines)


def bibliography_chunks(papers: Iterable[Paper], _keep: tuple[str, ...], _saved_searches=(),
                        *, style: str = DEFAULT_STYLE, locale: str | None = None,
                        output: str = "html", with_notes: bool = False) -> Iterator[str]:
    """Yield the bibliography of ``papers`` (one chunk: a bibliography is sorted as a
    whole). The style and locale are checked before any paper is read.

    Args:
        papers: the papers.
        _keep, _saved_searches: unused (the export registry's arguments; a reference
            holds what the style says).
        style, locale, output, with_notes: see the module docstring.
    Yields:
        The text of the file (an HTML or RTF document, plain text or Markdown).
    Raises:
        StyleError: an unknown style, locale or output form, a file that is not CSL.
        BibliographyError: pandoc missing or failing.
    """
    chosen = load_style(style)
    if locale:
        check_locale(locale)
    if output not in OUTPUTS:
        raise StyleError(f"unknown output form {output!r}; use one of {', '.join(OUTPUTS)}")
    papers = list(papers)
    notes = {f"p{p.id}": _notes(p) for p in papers} if with_notes else None
    yield format_bibliography(bibliography_items(papers), chosen, locale=locale, output=output,
                              notes=notes, standalone=True)
