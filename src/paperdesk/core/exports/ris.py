"""Papers -> RIS records, as Zotero, EndNote, Mendeley, JabRef and citation-js read them.
Pure: no database, no Qt.

Follows the RIS format specification (Research Information Systems, now Clarivate; the
2011 "RIS Format Specifications" tag list, which keeps the older Reference Manager
tags): every line is ``XX  - value``, a record starts with ``TY`` and ends with ``ER``,
values are on one line, and there is no blank line inside a record.

``TY`` from the entry type: ``article`` -> ``JOUR``, ``inproceedings`` -> ``CONF``,
``book`` -> ``BOOK``, ``incollection`` -> ``CHAP``, ``thesis`` -> ``THES``, ``report`` ->
``RPRT``, ``preprint`` and ``misc`` -> ``GEN`` (RIS has no preprint type; ``GEN`` is its
generic one). Then ``ID`` (the citation key), one ``AU`` per author (``Family, Given``;
an organisation as written, without a comma, which Zotero reads as one single-field
name; a last ``AU  - others`` when the list is truncated: RIS has no "et al.", see
docs/export.md), ``TI`` (TeX maths read from a file in its readable form,
:func:`paperdesk.core.tex_math.readable_math`), the venue as ``T2`` (secondary title: journal,
conference or book) or, for books, theses and reports, ``PB`` (publisher, university,
institution), ``PY`` (year) and ``DA`` (``YYYY/MM/DD/``, or ``YYYY/MM//`` when only the
month is known; no ``DA`` for a year alone: ``PY`` is the publication year in the RIS
specification and Zotero's RIS reader, and an empty ``YYYY///`` said nothing more;
citation-js reads the ``PY`` of a ``CONF`` record without ``DA`` as the conference's
date) from the paper's own publication date only, ``DO`` (DOI), ``AN``
(``arXiv:<id>``) and ``DB`` (``arXiv``) for its own arXiv id, ``UR`` (its own URL, else
its arXiv page), ``DP`` (``paperdesk``: the database the record comes from; see below),
``Y2`` (the date it was added, as the access date), ``AB`` (the
abstract on one line, when it has one), one ``KW`` per tag, ``N1`` for the note and one per highlight, and
``ER`` last. Links and identifiers that the abstract merely mentions are not written as
``UR``: they are other work (the abstract still holds them).

Values are the text as written, on one line, with one exception: a brace that has no
partner (``}`` with no ``{`` before it, or ``{`` never closed) is written as its
full-width form (``｝``, ``｛``). JabRef 3.8 imports such a record but can never save it
again ("'}' character ends string prematurely": it writes every field as BibTeX and
requires braces that pair up, backslash or not); braces that pair up are kept.

``DP`` is also there for citation-js: it counts ``ID`` as a tag of the old Reference
Manager set, and reads a record with no tag of the 2011 set (an undated paper without
DOI or arXiv id) by the old meanings: ``AB`` as a note and no access date (measured with
citation-js 0.8).

JabRef's RIS import puts ``ID`` in a field ``refid`` rather than using it as the entry's
key; see docs/export.md for the one-line JabRef setting that makes it the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import rispy

from paperdesk.core.exports.common import (ARXIV_ABS, ET_AL_NAME, citation_key, date_parts,
                                           highlight_text)
from paperdesk.core.exports.latex import brace_partners
from paperdesk.core.field_formats import ris_pairs
from paperdesk.core.models import Paper
from paperdesk.core.tex_math import readable_math

__all__ = ["RIS_TYPES", "ris_record", "ris_chunks", "ris_text"]

#: paperdesk entry type -> RIS reference type (``TY``).
RIS_TYPES: dict[str, str] = {
    "article": "JOUR", "inproceedings": "CONF", "preprint": "GEN", "book": "BOOK",
    "incollection": "CHAP", "thesis": "THES", "report": "RPRT", "misc": "GEN",
}


class _RisWriter(rispy.RisWriter):
    """rispy's writer without the ``1.`` counter line it puts before each record, so that
    ``TY`` is the first line of every record."""

    def set_header(self, count: int) -> str:
        return ""


_LONE = {"{": "\uff5b", "}": "\uff5d"}


def ris_text(text: str) -> str:
    """Return text as an RIS value: on one line (white space runs made one space), with
    braces that have no partner written in their full-width forms (see the module
    docstring).

    Args:
        text: a title, abstract, note, name, tag or venue.
    Returns:
        The value.
    """
    line = " ".join(text.split())
    if "{" not in line and "}" not in line:
        return line
    paired = brace_partners(line)
    return "".join(_LONE.get(ch, ch) if i not in paired else ch for i, ch in enumerate(line))


def _ris_date(parts: list[int]) -> str:
    y, m, d = (parts + [0, 0, 0])[:3]
    return f"{y:04d}/" + (f"{m:02d}" if m else "") + "/" + (f"{d:02d}" if d else "") + "/"


def ris_record(paper: Paper, keep: Iterable[str]) -> dict:
    """Return one paper as an RIS record in rispy's form (tag names as rispy's keys, in
    the order written).

    Args:
        paper: the paper.
        keep: export field names to write (the type, citation key and ``DP`` always
            are, the title whenever the paper has one).
    Returns:
        ``{"type_of_reference": "JOUR", "id": key, "authors": [...], ...}``.
    """
    keep = tuple(keep)
    meta = paper.metadata
    ty = RIS_TYPES[paper.entry_type]
    ref: dict = {"type_of_reference": ty, "id": citation_key(paper)}
    if "authors" in keep and paper.authors:
        ref["authors"] = [ris_text(str(a)) for a in paper.authors] + (
            [ET_AL_NAME] if meta.et_al else [])
    if paper.title:     # no empty TI line for a paper without a title
        ref["title"] = ris_text(readable_math(paper.title))
    ref.update(ris_pairs(meta, keep, ris_text, paper.entry_type, containers=True))
    parts = date_parts(meta.date)
    if "year" in keep and parts:
        ref["year"] = f"{parts[0]:04d}"
        if len(parts) > 1:      # a year alone is PY alone (RIS specification, Zotero)
            ref["date"] = _ris_date(parts)
    ref.update(ris_pairs(meta, keep, ris_text, paper.entry_type))
    if "doi" in keep and meta.doi:
        ref["doi"] = meta.doi
    if "arxiv_id" in keep and meta.arxiv_id:
        ref["accession_number"] = "arXiv:" + meta.arxiv_id
        ref["name_of_database"] = "arXiv"
    if "url" in keep and meta.url:
        ref["urls"] = [meta.url]
    elif "arxiv_id" in keep and meta.arxiv_id:
        ref["urls"] = [ARXIV_ABS + meta.arxiv_id]
    ref["database_provider"] = "paperdesk"
    if "added" in keep:
        ref["access_date"] = _ris_date(date_parts(paper.added_at))
    if "abstract" in keep and paper.abstract.strip():
        ref["abstract"] = ris_text(paper.abstract)
    if "tags" in keep and paper.tags:
        ref["keywords"] = [ris_text(t.name) for t in paper.tags]
    notes = []
    if "note" in keep and paper.note.strip():
        notes.append(ris_text(paper.note))
    if "highlights" in keep:
        notes += [ris_text("Highlight: " + highlight_text(h)) for h in paper.highlights]
    if notes:
        ref["notes"] = notes
    return ref


def ris_chunks(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    """Yield the RIS export of ``papers``, one record per chunk (``TY  - `` first,
    ``ER  - `` last, LF line ends).

    Args:
        papers: in the order to write.
        keep: export field names to write.
    Yields:
        One record's lines at a time.
    """
    for paper in papers:
        yield rispy.dumps([ris_record(paper, keep)], implementation=_RisWriter)
