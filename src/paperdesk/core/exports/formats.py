"""Papers -> CSV, Markdown, JSON, BibTeX, RIS and CSL-JSON text. Pure: no database, no Qt.

Each writer takes :class:`~paperdesk.core.models.Paper` objects (with tags, note and
highlights) and yields text chunks, so that a large export streams to a file. Field
selection: every format knows the fields in :data:`FIELDS`; pass ``fields`` to keep only
some (``id`` and ``title`` are always kept; BibTeX, RIS and CSL-JSON always write the
entry type and the citation key, which identify an entry there).

Formats, the specifications they follow, and where each is written:

- ``csv`` (here): RFC 4180 (CRLF line ends, double quotes doubled), UTF-8 with a
  byte-order mark so that spreadsheets detect the encoding, one header row. Titles (here
  and in Markdown) show TeX maths read from a file in its readable form ("D → 4",
  :func:`paperdesk.core.tex_math.readable_math`). A cell that
  begins with ``=``, ``+``, ``-``, ``@``, tab or carriage return gets a leading
  apostrophe, so spreadsheets show it as text instead of running it as a formula (OWASP
  "CSV injection").
- ``markdown`` (here): a reading list (CommonMark): a heading per paper, tags, the
  abstract, the note, and highlights as block quotes. Markdown punctuation in titles and
  abstracts (and pandoc's ``{`` attributes and ``$`` math) is backslash-escaped so that it
  shows as typed; the note stays Markdown with raw HTML, unsafe links and images
  neutralised (:mod:`.markdown_note`).
- ``json`` (:mod:`.paperdesk_json`): paperdesk's own lossless format, version 2;
  ``paperdesk import`` reads it back (versions 1 and 2).
- ``bibtex`` (:mod:`.bibtex`, escaping in :mod:`.latex`): entries that BibTeX, biber,
  pandoc, citation-js, JabRef and bibtexparser read, typed from the entry type.
- ``ris`` (:mod:`.ris`): the RIS tag format as Zotero, EndNote and JabRef read it.
- ``csl-json`` (:mod:`.csl`): CSL 1.0.2 input data, as pandoc and citation-js read it.
- ``bibliography`` (:mod:`.bibliography_export`): references formatted in a CSL style
  (APA, IEEE, ...) as HTML, plain text, RTF or Markdown, made from the CSL-JSON items.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Mapping

from paperdesk.core.exports.bibliography_export import bibliography_chunks
from paperdesk.core.exports.bibtex import bibtex_chunks
from paperdesk.core.exports.common import citation_key, highlight_text
from paperdesk.core.exports.csl import csl_chunks
from paperdesk.core.exports.paperdesk_json import (JSON_FORMAT_NAME, JSON_FORMAT_VERSION,
                                                   json_chunks)
from paperdesk.core.exports.paperdesk_json import json_document as _json_document
from paperdesk.core.exports.registry import EXPORT_FORMATS, ExportFormat, export_format
from paperdesk.core.exports.ris import ris_chunks
from paperdesk.core.exports.markdown_note import safe_note_markdown
from paperdesk.core.fields import PAPER_FIELDS, export_fields, stored_fields
from paperdesk.core.metadata import ET_AL
from paperdesk.core.models import NO_TITLE, Paper
from paperdesk.core.tex_math import readable_math

__all__ = ["FORMATS", "FIELDS", "ExportFormat", "EXPORT_FORMATS", "export_format",
           "citation_key", "export_chunks",
           "json_document", "JSON_FORMAT_NAME", "JSON_FORMAT_VERSION", "neutralise_cell"]

#: Fields an export can hold, in column order (from :mod:`.fields`).
FIELDS = export_fields()
#: The CSV header of each field (from :mod:`.fields`).
_CSV_HEADERS = {f.name: f.csv for f in PAPER_FIELDS if f.csv is not None}

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: str) -> str:
    """Make a CSV cell safe to open in a spreadsheet.

    A cell starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return is prefixed
    with an apostrophe (OWASP's advice against CSV injection); others are unchanged.

    Args:
        value: the cell text.
    Returns:
        The text to write.
    """
    return "'" + value if value.startswith(_FORMULA_START) else value


def _keep(fields: Iterable[str] | None) -> tuple[str, ...]:
    if fields is None:
        return FIELDS
    wanted = set(fields) | {"id", "title"}
    unknown = wanted - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown export field(s): {', '.join(sorted(unknown))}")
    return tuple(f for f in FIELDS if f in wanted)


def json_document(papers: Iterable[Paper], fields: Iterable[str] | None = None) -> dict:
    """Return the lossless JSON export as a Python object (shape: see
    :func:`paperdesk.core.exports.paperdesk_json.json_document`).

    Args:
        papers: papers in the order to write.
        fields: fields to include (subset of :data:`FIELDS`); ``None`` for all.
    Raises:
        ValueError: an unknown field.
    """
    return _json_document(papers, _keep(fields))


# -- CSV ----------------------------------------------------------------------------------
def _csv_values(paper: Paper) -> dict[str, str]:
    return {
        "id": str(paper.id),
        "title": readable_math(paper.title),
        "abstract": paper.abstract,
        "tags": "; ".join(t.name for t in paper.tags),
        "note": paper.note,
        "highlights": " | ".join(highlight_text(h) for h in paper.highlights),
        "citation_key": paper.citation_key,
        "type": paper.entry_type,
        "authors": "; ".join([str(a) for a in paper.authors]
                             + ([ET_AL] if paper.metadata.et_al else [])),
        "year": paper.metadata.date or "",
        "doi": paper.metadata.doi or "",
        "arxiv_id": paper.metadata.arxiv_id or "",
        "url": paper.metadata.url or "",
        **{f.name: paper.metadata.value(f.name) for f in stored_fields()},
        "mentioned": " ".join((*paper.mentioned.urls,
                               *("arXiv:" + a for a in paper.mentioned.arxiv_ids),
                               *("doi:" + d for d in paper.mentioned.dois))),
        "sources": "; ".join(f"{s.name}#{s.position}" for s in paper.sources),
        "added": paper.added_at,
        "read": "yes" if paper.read else "no",
        "starred": "yes" if paper.starred else "no",
    }


def _csv(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    yield "\ufeff"
    writer.writerow([_CSV_HEADERS[f] for f in keep])
    for paper in papers:
        values = _csv_values(paper)
        writer.writerow([neutralise_cell(values[f]) for f in keep])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()


# -- Markdown -----------------------------------------------------------------------------
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|{}$])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _markdown(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    yield "# Reading list\n"
    for paper in papers:
        title = _md(readable_math(paper.title)) if paper.title else NO_TITLE
        out = [f"\n## {title}\n"]
        meta = []
        if "tags" in keep and paper.tags:
            meta.append("Tags: " + ", ".join(f"`{t.name.replace('`', '')}`" for t in paper.tags))
        if "starred" in keep and paper.starred:
            meta.append("★ starred")
        if "read" in keep:
            meta.append("read" if paper.read else "unread")
        if "mentioned" in keep and paper.mentioned.arxiv_ids:
            meta.append("arXiv: " + ", ".join(paper.mentioned.arxiv_ids))
        if "added" in keep:
            meta.append(f"added {paper.added_at[:10]}")
        if "id" in keep:
            meta.append(f"paperdesk id {paper.id}")
        if meta:
            out.append("\n" + " · ".join(meta) + "\n")
        if "abstract" in keep and paper.abstract.strip():
            out.append("\n" + _md(paper.abstract) + "\n")
        if "mentioned" in keep and paper.mentioned.urls:
            out.append("\nLinks: " + ", ".join(f"<{u}>" for u in paper.mentioned.urls) + "\n")
        if "highlights" in keep and paper.highlights:
            out.append("\n**Highlights**\n")
            for h in paper.highlights:
                out.append(f"\n> {_md(h.text)}\n")
                if h.comment:
                    out.append(f">\n> — {_md(h.comment)}\n")
        if "note" in keep and paper.note.strip():
            out.append("\n**Note**\n\n" + safe_note_markdown(paper.note.strip()) + "\n")
        if "sources" in keep and paper.sources:
            out.append("\nFrom: " + "; ".join(
                f"{_md(s.name)} (abstract {s.position})" for s in paper.sources) + "\n")
        yield "".join(out)


def export_chunks(papers: Iterable[Paper], fmt: str,
                  fields: Iterable[str] | None = None,
                  saved_searches: Iterable = (),
                  options: Mapping | None = None) -> Iterator[str]:
    """Yield the export of ``papers`` in format ``fmt`` as text chunks.

    Args:
        papers: papers in the order to write (an iterator is consumed lazily).
        fmt: the name of a registered
            :class:`~paperdesk.core.exports.registry.ExportFormat`.
        fields: fields to include (subset of :data:`FIELDS`); ``None`` for all.
        saved_searches: the library's saved searches (objects with ``name``, ``query``,
            ``created_at``), carried by the ``json`` format only.
        options: the format's own options, as keyword arguments of its writer (the
            ``bibliography`` format's ``style``, ``locale``, ``output``, ``with_notes``:
            :mod:`.bibliography_export`); ``None`` for none.
    Yields:
        Text; the concatenation is the whole file (CSV starts with a byte-order mark).
    Raises:
        ValueError: unknown format or field, or an option the format does not take.
    """
    chosen = export_format(fmt)
    if options and not chosen.takes_options:
        raise ValueError(f"the {chosen.label} export takes no options")
    return chosen.write(papers, _keep(fields), saved_searches, **(options or {}))


def _without_searches(writer):
    """An :attr:`ExportFormat.write` for a writer ``writer(papers, keep)``."""
    return lambda papers, keep, _saved_searches: writer(papers, keep)


_register = EXPORT_FORMATS.register
_register(ExportFormat("csv", "CSV", "spreadsheets", ".csv", _without_searches(_csv)))
_register(ExportFormat("markdown", "Markdown", "a reading list", ".md",
                       _without_searches(_markdown)))
_register(ExportFormat("json", "JSON", "paperdesk's own, lossless, re-importable", ".json",
                       json_chunks))
_register(ExportFormat("bibtex", "BibTeX", "JabRef, LaTeX", ".bib",
                       _without_searches(bibtex_chunks), bibliography=True))
_register(ExportFormat("ris", "RIS", "Zotero, EndNote", ".ris", _without_searches(ris_chunks),
                       bibliography=True))
_register(ExportFormat("csl-json", "CSL-JSON", "pandoc, Zotero", ".json",
                       _without_searches(csl_chunks), bibliography=True))
_register(ExportFormat("bibliography", "Formatted bibliography",
                       "Word, Google Docs, e-mail: references in a CSL style", ".html",
                       bibliography_chunks, takes_options=True))

#: The built-in formats' names (those registered above), in the CLI's order.
FORMATS = EXPORT_FORMATS.names()
