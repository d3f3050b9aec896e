"""Papers -> CSL-JSON items, as pandoc (``--citeproc``), citation-js and Zotero read them.
Pure: no database, no Qt.

Follows the CSL 1.0.2 data schema (``csl-data.json``, https://citationstyles.org;
``tests/core/data/csl-data.json`` validates every export in the tests): ``id`` is the
citation key, ``type`` comes from the entry type (``article`` -> ``article-journal``,
``inproceedings`` -> ``paper-conference``, ``preprint`` -> ``article`` (CSL's type for
preprints and working papers), ``book``, ``incollection`` -> ``chapter``, ``thesis``,
``report``, ``misc`` -> ``document``); ``title`` (TeX maths read from a file in its
readable form, :func:`paperdesk.core.tex_math.readable_math`: "D → 4"); ``author`` is
``[{"family", "given"}]`` (an organisation as ``{"literal"}``; a truncated list ends in
``{"literal": "others"}``, pandoc's own form for BibTeX's ``and others``, which its
citeproc prints as "et al."); ``issued`` is the paper's own publication date and
``accessed`` the date it was added, both as ``date-parts``; the venue is
``container-title`` (journal, proceedings, book) or ``publisher`` (books, theses, reports,
preprints); ``DOI``; ``URL`` (its own, else its arXiv page); its own arXiv id as
``number`` = ``arXiv:<id>`` with ``publisher`` = ``arXiv`` for a preprint (as Zotero and
citation-js write preprints), or as ``archive`` = ``arXiv`` and ``archive_location`` =
``arXiv:<id>`` for other types; ``abstract`` (when it has one); ``keyword`` (tags, comma-separated);
``note`` (the note, then one line per highlight).

Notes and pandoc: citeproc (pandoc's) reads the *leading* lines of ``note`` that look
like ``Word: value`` as extra CSL variables (the convention of Zotero's "Extra" field) and
removes them, so a note that begins "TODO: ..." or a first highlight "Highlight: ..."
vanished from the bibliography. Measured with pandoc 2.17: only lines at the very start
are read, and a note that begins with a line break is left alone. So a note whose first
line has that form is written with a leading line break; nothing else changes, and
renderers drop the leading white space.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from paperdesk.core.exports.common import (ARXIV_ABS, ET_AL_NAME, citation_key, date_parts,
                                          entry_keys,
                                           highlight_text)
from paperdesk.core.field_formats import csl_pairs
from paperdesk.core.models import Author, Paper
from paperdesk.core.tex_math import readable_math

__all__ = ["CSL_TYPES", "csl_item", "csl_chunks", "csl_note"]

#: paperdesk entry type -> CSL item type.
CSL_TYPES: dict[str, str] = {
    "article": "article-journal", "inproceedings": "paper-conference",
    "preprint": "article", "book": "book", "incollection": "chapter", "thesis": "thesis",
    "report": "report", "misc": "document",
}
# What citeproc takes for a variable line (pandoc 2.17, measured: letters and hyphens,
# then a colon; "Highlight 1: x" and "To do: x" are left alone). Broader on purpose.
_VARIABLE_LINE = re.compile(r"^\s*[\w-]+\s*:")


def _name(author: Author) -> dict:
    if not author.given and not author.suffix:
        return {"literal": author.family}
    name = {"family": author.family, "given": author.given}
    if author.suffix:
        name["suffix"] = author.suffix
    return name


def csl_note(paper: Paper, keep: Iterable[str]) -> str | None:
    """Return the CSL ``note`` of a paper: its note (as typed), then one line
    ``Highlight: “text” — comment`` per highlight; ``None`` when there is neither.
    Starts with a line break when its first line would otherwise be read by citeproc as
    a variable (see the module docstring).

    Args:
        paper: the paper.
        keep: export field names (``note`` and ``highlights`` decide).
    Returns:
        The note text or ``None``.
    """
    keep = tuple(keep)
    parts = []
    if "note" in keep and paper.note.strip():
        parts.append(paper.note.strip())
    if "highlights" in keep:
        parts += ["Highlight: " + highlight_text(h) for h in paper.highlights]
    if not parts:
        return None
    note = "\n\n".join(parts)
    return "\n" + note if _VARIABLE_LINE.match(note) else note


def csl_item(paper: Paper, keep: Iterable[str]) -> dict:
    """Return one paper as a CSL-JSON item (see the module docstring).

    Args:
        paper: the paper.
        keep: export field names to write (``id``/key and type always are, the title
            whenever the paper has one).
    Returns:
        A dict valid against the CSL data schema's item definition.
    """
    keep = tuple(keep)
    meta = paper.metadata
    kind = CSL_TYPES[paper.entry_type]
    item: dict = {"id": citation_key(paper), "type": kind}
    if paper.title:     # no "title": "" for a paper without a title
        item["title"] = readable_math(paper.title)
    if "authors" in keep and paper.authors:
        item["author"] = [_name(a) for a in paper.authors] + (
            [{"literal": ET_AL_NAME}] if meta.et_al else [])
    parts = date_parts(meta.date)
    if "year" in keep and parts:
        item["issued"] = {"date-parts": [parts]}
    item.update(csl_pairs(meta, keep, paper.entry_type, kind))
    if "doi" in keep and meta.doi:
        item["DOI"] = meta.doi
    if "arxiv_id" in keep and meta.arxiv_id:
        if kind in ("article", "document"):
            item["number"] = "arXiv:" + meta.arxiv_id
        else:
            item["archive"] = "arXiv"
            item["archive_location"] = "arXiv:" + meta.arxiv_id
    if "url" in keep and meta.url:
        item["URL"] = meta.url
    elif "arxiv_id" in keep and meta.arxiv_id:
        item["URL"] = ARXIV_ABS + meta.arxiv_id
    if "added" in keep:
        item["accessed"] = {"date-parts": [date_parts(paper.added_at)]}
    if "abstract" in keep and paper.abstract.strip():
        item["abstract"] = paper.abstract
    if "tags" in keep and paper.tags:
        item["keyword"] = ", ".join(t.name for t in paper.tags)
    note = csl_note(paper, keep)
    if note is not None:
        item["note"] = note
    return item


def csl_chunks(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    """Yield the CSL-JSON export of ``papers``: one JSON array, an item per line (and an
    identical one under each of a paper's key aliases: :func:`.common.entry_keys`).

    Args:
        papers: in the order to write.
        keep: export field names to write.
    Yields:
        Text chunks; their concatenation is one JSON document.
    """
    yield "["
    n = 0
    for paper in papers:
        item = csl_item(paper, keep)
        for key in entry_keys(paper):    # an identical item per key alias
            yield ("," if n else "") + "\n  " + json.dumps({**item, "id": key},
                                                            ensure_ascii=False)
            n += 1
    yield "\n]\n"
