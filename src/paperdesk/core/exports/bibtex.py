"""Papers -> BibTeX entries that classic BibTeX and BibLaTeX/biber both read. Pure: no
database, no Qt.

Follows Patashnik's "BibTeXing" (btxdoc: entry types, fields, names) and the biblatex
manual (sections 2.1-2.3: entry types, fields, the ``eprint`` fields; 2.3.3 on names),
and writes only what both accept: no ``@online``/``@preprint`` (biblatex-only; BibTeX's
``plain`` warns and falls back), no biblatex-only mandatory fields. Field text is
LaTeX-escaped by :mod:`.latex` (the special-character policy and the measurements behind
it are there).

Entry types (``paper.entry_type`` -> entry, and the field the venue goes to):

=================  ==================  ===============
paperdesk type     entry               venue field
=================  ==================  ===============
``article``        ``@article``        ``journal``
``inproceedings``  ``@inproceedings``  ``booktitle``
``preprint``       ``@misc``           ``howpublished``
``book``           ``@book``           ``publisher``
``incollection``   ``@incollection``   ``booktitle``
``thesis``         ``@phdthesis``      ``school``
``report``         ``@techreport``     ``institution``
``misc``           ``@misc``           ``howpublished``
=================  ==================  ===============

(``@phdthesis`` and ``@techreport`` are the classic names; biblatex reads them as
``@thesis``/``@report`` with ``type`` set.)

Fields, in this order: ``author`` (``Family, Given and ...``; an organisation, or a
name without given names, in braces so that BibTeX does not split it; ``and others``
last when the list is truncated, which bibtex and biber print as "et al."), ``title``
(double braces: styles keep its case; TeX maths read from a file written as maths,
:mod:`paperdesk.core.tex_math`), the venue (double braces too: pandoc
turns a ``booktitle`` into sentence case otherwise), ``year``/``month``/``date`` from the
paper's own date (``month`` as the standard three-letter macro, ``date`` in ISO 8601 for
biblatex when the month is known), ``doi``, ``eprint`` with ``archiveprefix = {arXiv}``
(classic styles, pandoc) and ``eprinttype = {arxiv}`` (biblatex) for the paper's own
arXiv id, ``url`` and ``urldate`` (the date added, as the access date) for the paper's
own URL (``url`` alone is its arXiv page when it has an arXiv id but no URL, as the RIS
and CSL-JSON exports do: citation-js reads ``eprint`` only for PubMed ids), ``abstract`` (when it has one), ``keywords`` (tags), ``note`` (the note, on one line) and
``annote`` (highlights). Links and identifiers that the abstract merely mentions are not
written as fields (they are other work; the abstract still holds them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from paperdesk.core.exports.common import (ARXIV_ABS, ET_AL_NAME, citation_key, date_parts,
                                          entry_keys, highlight_text, one_line)
from paperdesk.core.exports.latex import latex_text, latex_url
from paperdesk.core.field_formats import bibtex_pairs
from paperdesk.core.fields import CONTAINER, stored_fields
from paperdesk.core.models import Author, Paper

__all__ = ["ENTRY_TYPES", "MONTHS", "bibtex_entry", "bibtex_chunks", "bibtex_name"]

_BIBTEX_TYPES = {"article": "article", "inproceedings": "inproceedings", "preprint": "misc",
                 "book": "book", "incollection": "incollection", "thesis": "phdthesis",
                 "report": "techreport", "misc": "misc"}
_VENUE = next(f for f in stored_fields() if f.rule == CONTAINER)
#: paperdesk entry type -> (BibTeX entry type, field that holds the venue: the field
#: table's :attr:`~paperdesk.core.fields.Field.bibtex_types`).
ENTRY_TYPES: dict[str, tuple[str, str]] = {
    kind: (entry, dict(_VENUE.bibtex_types).get(kind, _VENUE.bibtex))
    for kind, entry in _BIBTEX_TYPES.items()}
#: BibTeX's month macros (btxdoc, section 4), defined by every standard style and biber.
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
          "dec")
_AND = re.compile(r"(?i)(^|\s)and(\s|$)")


def _plain_family(family: str) -> bool:
    """Whether BibTeX, pandoc and citation-js all split ``family`` into the same "von"
    and "Last" parts that it has: lower-case particles, then capitalised words
    ("van der Berg", "García Márquez"), every word starting with a letter."""
    words = family.split()
    if not words or not all(w[0].isalpha() for w in words):
        return False
    n = 0
    while n < len(words) and words[n][0].islower():
        n += 1
    return n < len(words) and all(w[0].isupper() for w in words[n:])


def _name_part(text: str, whole: bool) -> str:
    latex = latex_text(text, pair_braces=False)
    # A comma or the word "and" would split the name list; braces keep them inside.
    return "{" + latex + "}" if (whole or "," in text or _AND.search(text)) else latex


def bibtex_name(author: Author) -> str:
    """Return one author as BibTeX writes names (btxdoc section 4; biblatex manual 3.4):
    ``Family, Given``, or ``Family, Jr, Given`` when it has a suffix (btxdoc's
    "von Last, Jr, First"). A name without given names (an organisation such as "World
    Health Organization") is put in braces, so that BibTeX takes it whole; so is a
    family name that is not "particles + capitalised words" ("Dupont & Fils"), which
    BibTeX and pandoc would otherwise split into "von" and "Last" parts. Braces inside a
    name are written as macros (see :func:`latex_text`'s ``pair_braces``).

    Args:
        author: the author.
    Returns:
        The LaTeX of the name.
    """
    if not author.given and not author.suffix:
        return "{" + latex_text(author.family, pair_braces=False) + "}"
    family = _name_part(author.family, not _plain_family(author.family))
    if author.suffix:   # BibTeX's three-part form "von Last, Jr, First"
        return f"{family}, {_name_part(author.suffix, False)}, {_name_part(author.given, False)}"
    return f"{family}, {_name_part(author.given, False)}"


def _fields(paper: Paper, keep: tuple[str, ...]) -> list[tuple[str, str]]:
    meta = paper.metadata
    out: list[tuple[str, str]] = []

    def text(name: str, value: str) -> None:
        out.append((name, "{" + latex_text(value) + "}"))

    def protected(name: str, value: str) -> None:  # a title: keep its case and maths
        out.append((name, "{{" + latex_text(value, math=True) + "}}"))

    if "authors" in keep and paper.authors:
        names = [bibtex_name(a) for a in paper.authors] + ([ET_AL_NAME] if meta.et_al else [])
        out.append(("author", "{" + " and ".join(names) + "}"))
    if paper.title:     # a paper may have neither title nor abstract (a key, a DOI)
        protected("title", paper.title)
    out += bibtex_pairs(meta, keep, latex_text, paper.entry_type, containers=True)
    parts = date_parts(meta.date)
    if "year" in keep and parts:
        out.append(("year", "{%04d}" % parts[0]))
        if len(parts) > 1:
            out.append(("month", MONTHS[parts[1] - 1]))
            out.append(("date", "{" + meta.date + "}"))
    out += bibtex_pairs(meta, keep, latex_text, paper.entry_type)
    if "doi" in keep and meta.doi:
        out.append(("doi", "{" + latex_url(meta.doi) + "}"))
    if "arxiv_id" in keep and meta.arxiv_id:
        out += [("eprint", "{" + latex_url(meta.arxiv_id) + "}"),
                ("archiveprefix", "{arXiv}"), ("eprinttype", "{arxiv}")]
    if "url" in keep and meta.url:
        out.append(("url", "{" + latex_url(meta.url) + "}"))
        if "added" in keep:
            out.append(("urldate", "{" + paper.added_at[:10] + "}"))
    elif "url" in keep and "arxiv_id" in keep and meta.arxiv_id:
        # citation-js reads eprint only for PubMed ids: the arXiv page keeps the link.
        out.append(("url", "{" + latex_url(ARXIV_ABS + meta.arxiv_id) + "}"))
    if "abstract" in keep and paper.abstract.strip():
        text("abstract", paper.abstract)
    if "tags" in keep and paper.tags:
        text("keywords", ", ".join(t.name for t in paper.tags))
    if "note" in keep and paper.note.strip():
        text("note", one_line(paper.note))
    if "highlights" in keep and paper.highlights:
        text("annote", " ".join(highlight_text(h) for h in paper.highlights))
    return out


def bibtex_entry(paper: Paper, keep: Iterable[str]) -> str:
    """Return one paper as a BibTeX entry (see the module docstring for the fields).

    Args:
        paper: the paper.
        keep: the export field names to write (``paperdesk.core.fields`` names; the
            citation key is always written, the title whenever the paper has one).
    Returns:
        ``@type{key,\\n  field = {value},\\n  ...\\n}\\n``: one field per line, every
        value's braces balanced as BibTeX counts them; a paper with key aliases gets one
        identical entry per key, a blank line between (:func:`.common.entry_keys`).
    """
    keep = tuple(keep)
    entry_type = ENTRY_TYPES[paper.entry_type][0]
    body = "".join(f"\n  {name} = {value}," for name, value in _fields(paper, keep))
    return "\n".join(f"@{entry_type}{{{key},{body}\n}}\n" for key in entry_keys(paper))


def bibtex_chunks(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    """Yield the BibTeX export of ``papers``: one entry per paper, a blank line between.

    Args:
        papers: in the order to write.
        keep: export field names to write.
    Yields:
        One entry (with its trailing blank line) at a time.
    """
    for paper in papers:
        yield bibtex_entry(paper, keep) + "\n"
