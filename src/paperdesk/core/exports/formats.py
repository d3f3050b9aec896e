"""Papers -> CSV, Markdown, JSON, BibTeX, RIS and CSL-JSON text. Pure: no database, no Qt.

Each writer takes :class:`~paperdesk.core.models.Paper` objects (with tags, note and
highlights) and yields text chunks, so that a large export streams to a file. Field
selection: every format knows the fields in :data:`FIELDS`; pass ``fields`` to keep only
some (``id`` and ``title`` are always kept).

Formats and the specifications they follow:

- ``csv``: RFC 4180 (CRLF line ends, double quotes doubled), UTF-8 with a byte-order mark
  so that spreadsheets detect the encoding, one header row. A cell that begins with ``=``,
  ``+``, ``-``, ``@``, tab or carriage return gets a leading apostrophe, so spreadsheets
  show it as text instead of running it as a formula (OWASP "CSV injection").
- ``markdown``: a reading list (CommonMark): a heading per paper, tags, the abstract, the
  note, and highlights as block quotes. Markdown punctuation in titles and abstracts is
  backslash-escaped so that it shows as typed.
- ``json``: paperdesk's own lossless format (see :func:`json_document`); ``paperdesk
  import`` reads it back.
- ``bibtex``: ``@misc`` entries with stable unique citation keys. Policy for special and
  non-ASCII characters: ``& % $ # _ { } ~ ^ \\`` are escaped and every non-ASCII character
  that has a LaTeX macro becomes one (``é`` -> ``{\\'e}``, ``μ`` ->
  ``{\\ensuremath{\\mu}}``) by pylatexenc, so Latin, Greek and mathematical text compiles
  with classic BibTeX and pdfLaTeX as well as Biber; characters with no macro (CJK,
  Arabic, emoji) are kept as UTF-8 (they need Biber with XeLaTeX or LuaLaTeX). URLs are
  written verbatim.
- ``ris``: RIS as read by Zotero, EndNote and JabRef: ``TY  - GEN`` first, one
  ``XX  - value`` line per field, the abstract on one ``AB`` line, tags as ``KW``,
  ``ER  - `` last, no blank line inside a record (written with rispy).
- ``csl-json``: CSL input data (https://citationstyles.org, schema ``csl-data.json``),
  type ``article`` (a preprint or working paper), what Zotero and pandoc import.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator

import bibtexparser
import rispy
from bibtexparser.model import Entry, Field
from pylatexenc.latexencode import UnicodeToLatexEncoder

from paperdesk.core.clock import utc_now
from paperdesk.core.fields import PAPER_FIELDS, export_fields
from paperdesk.core.models import Paper

__all__ = ["FORMATS", "FIELDS", "EXTENSIONS", "citation_key", "export_chunks",
           "json_document", "JSON_FORMAT_NAME", "neutralise_cell"]

FORMATS = ("csv", "markdown", "json", "bibtex", "ris", "csl-json")
#: File name extension of each format.
EXTENSIONS = {"csv": ".csv", "markdown": ".md", "json": ".json", "bibtex": ".bib",
              "ris": ".ris", "csl-json": ".json"}
#: Fields an export can hold, in column order (from :mod:`.fields`).
FIELDS = export_fields()
#: The lossless JSON export's key of each field (from :mod:`.fields`).
_JSON_KEYS = {f.name: f.json for f in PAPER_FIELDS if f.csv is not None}
#: The CSV header of each field (from :mod:`.fields`).
_CSV_HEADERS = {f.name: f.csv for f in PAPER_FIELDS if f.csv is not None}
JSON_FORMAT_NAME = "paperdesk-export"
JSON_FORMAT_VERSION = 1

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


def _year(paper: Paper) -> int | None:
    # The only publication date the data carries: an arXiv id's YYMM.
    return paper.year


def citation_key(paper: Paper) -> str:
    """Return the paper's citation key: first significant title word, year, id.

    Stable (the same paper always gets the same key) and unique (the id is part of it),
    ASCII letters and digits only, e.g. ``advancement_1`` or ``tensor2022_17``. The year
    comes from the paper's arXiv id when it has one.

    Args:
        paper: the paper.
    Returns:
        The key.
    """
    folded = unicodedata.normalize("NFKD", paper.title).encode("ascii", "ignore").decode()
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", folded)]
    skip = {"a", "an", "the", "on", "of", "in", "we", "this", "for", "to", "and", "with"}
    word = next((w for w in words if w not in skip and len(w) > 2), "paper")[:20]
    return paper.citation_key or f"{word}_{paper.id}"


def _keep(fields: Iterable[str] | None) -> tuple[str, ...]:
    if fields is None:
        return FIELDS
    wanted = set(fields) | {"id", "title"}
    unknown = wanted - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown export field(s): {', '.join(sorted(unknown))}")
    return tuple(f for f in FIELDS if f in wanted)


def _highlight_text(h) -> str:
    return f"“{h.text}”" + (f" — {h.comment}" if h.comment else "")


# -- CSV ----------------------------------------------------------------------------------
def _csv_values(paper: Paper) -> dict[str, str]:
    return {
        "id": str(paper.id),
        "title": paper.title,
        "abstract": paper.abstract,
        "tags": "; ".join(t.name for t in paper.tags),
        "note": paper.note,
        "highlights": " | ".join(_highlight_text(h) for h in paper.highlights),
        "citation_key": paper.citation_key,
        "type": paper.entry_type,
        "authors": "; ".join(str(a) for a in paper.authors),
        "year": paper.metadata.date or "",
        "venue": paper.metadata.venue,
        "doi": paper.metadata.doi or "",
        "arxiv_id": paper.metadata.arxiv_id or "",
        "url": paper.metadata.url or "",
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
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _markdown(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    yield "# Reading list\n"
    for paper in papers:
        out = [f"\n## {_md(paper.title)}\n"]
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
        if "abstract" in keep:
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
            out.append("\n**Note**\n\n" + paper.note.strip() + "\n")
        if "sources" in keep and paper.sources:
            out.append("\nFrom: " + "; ".join(
                f"{_md(s.name)} (abstract {s.position})" for s in paper.sources) + "\n")
        yield "".join(out)


# -- JSON (lossless) ----------------------------------------------------------------------
def _json_paper(paper: Paper, keep: tuple[str, ...]) -> dict:
    full = {
        "id": paper.id,
        "title": paper.title,
        "derived_title": paper.derived_title,
        "abstract": paper.abstract,
        "tags": [{"name": t.name, "colour": t.colour, "key": t.key} for t in paper.tags],
        "note": paper.note,
        "highlights": [{"start": h.start, "end": h.end, "colour": h.colour,
                        "comment": h.comment, "text": h.text, "created_at": h.created_at}
                       for h in paper.highlights],
        "citation_key": paper.citation_key,
        "entry_type": paper.metadata.entry_type,
        "authors": [a.to_dict() for a in paper.authors],
        "date": paper.metadata.date,
        "venue": paper.metadata.venue,
        "doi": paper.metadata.doi,
        "arxiv_id": paper.metadata.arxiv_id,
        "url": paper.metadata.url,
        "mentioned": paper.mentioned.to_dict(),
        "sources": [{"name": s.name, "path": s.path, "header": s.header,
                     "position": s.position} for s in paper.sources],
        "added_at": paper.added_at,
        "read_at": paper.read_at,
        "starred": paper.starred,
    }
    wanted = {_JSON_KEYS[f] for f in keep} | {"derived_title"}  # derived_title: always
    return {k: v for k, v in full.items() if k in wanted}


def json_document(papers: Iterable[Paper], fields: Iterable[str] | None = None) -> dict:
    """Return the lossless JSON export as a Python object.

    Shape::

        {"format": "paperdesk-export", "version": 1, "exported_at": "<ISO 8601 UTC>",
         "papers": [{"id", "title", "derived_title", "abstract", "tags": [{"name",
         "colour", "key"}], "note", "highlights": [{"start", "end", "colour", "comment",
         "text", "created_at"}], "urls", "arxiv_ids", "sources": [{"name", "path",
         "header", "position"}], "added_at", "read_at", "starred"}]}

    Highlight ``start``/``end`` are character offsets (Python string indices) into
    ``abstract``.
    """
    keep = _keep(fields)
    return {"format": JSON_FORMAT_NAME, "version": JSON_FORMAT_VERSION,
            "exported_at": utc_now(),
            "papers": [_json_paper(p, keep) for p in papers]}


def _json(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    head = json.dumps({"format": JSON_FORMAT_NAME, "version": JSON_FORMAT_VERSION,
                       "exported_at": utc_now()}, ensure_ascii=False)
    yield head[:-1] + ', "papers": ['
    for n, paper in enumerate(papers):
        yield ("," if n else "") + "\n  " + json.dumps(_json_paper(paper, keep),
                                                        ensure_ascii=False)
    yield "\n]}\n"


# -- BibTeX -------------------------------------------------------------------------------
_LATEX = UnicodeToLatexEncoder(non_ascii_only=False, replacement_latex_protection="braces-all",
                               unknown_char_policy="keep", unknown_char_warning=False)


def latex_escape(text: str) -> str:
    """Escape text for a BibTeX field: LaTeX specials and every non-ASCII character that
    has a LaTeX macro (accented Latin letters, Greek, dashes, …) become macros
    (pylatexenc); characters with none (CJK, Arabic, emoji) are kept as UTF-8 rather than
    lost. Braces stay balanced."""
    return _LATEX.unicode_to_latex(text)


def _bib_url(url: str) -> str:
    # Verbatim for the url package / biblatex, but braces must stay balanced.
    return url.replace("{", "%7B").replace("}", "%7D")


def _bibtex(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    for paper in papers:
        fields = [Field("title", "{" + latex_escape(paper.title) + "}")]
        if "abstract" in keep:
            fields.append(Field("abstract", latex_escape(paper.abstract)))
        if "tags" in keep and paper.tags:
            fields.append(Field("keywords", latex_escape(", ".join(t.name for t in paper.tags))))
        if "note" in keep and paper.note.strip():
            fields.append(Field("note", latex_escape(" ".join(paper.note.split()))))
        if "highlights" in keep and paper.highlights:
            fields.append(Field("annote", latex_escape(
                " ".join(_highlight_text(h) for h in paper.highlights))))
        if "mentioned" in keep and paper.mentioned.urls:
            fields.append(Field("url", _bib_url(paper.mentioned.urls[0])))
        if paper.metadata.arxiv_id:
            fields += [Field("eprint", paper.metadata.arxiv_id), Field("archiveprefix", "arXiv"),
                       Field("eprinttype", "arxiv")]
        year = _year(paper)
        if year:
            fields.append(Field("year", str(year)))
        if "added" in keep and "mentioned" in keep and paper.mentioned.urls:
            fields.append(Field("urldate", paper.added_at[:10]))
        library = bibtexparser.Library()
        library.add(Entry("misc", citation_key(paper), fields))
        yield bibtexparser.write_string(library).strip() + "\n\n"


# -- RIS ----------------------------------------------------------------------------------
class _RisWriter(rispy.RisWriter):
    """rispy's writer without the ``1.`` counter line it puts before each record, so that
    ``TY`` is the first line of every record."""

    def set_header(self, count: int) -> str:
        return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _ris(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    for paper in papers:
        ref: dict = {"type_of_reference": "GEN", "title": _one_line(paper.title),
                     "id": str(paper.id)}
        if "abstract" in keep:
            ref["abstract"] = _one_line(paper.abstract)
        if "tags" in keep and paper.tags:
            ref["keywords"] = [t.name for t in paper.tags]
        notes = []
        if "note" in keep and paper.note.strip():
            notes.append(_one_line(paper.note))
        if "highlights" in keep:
            notes += [_one_line("Highlight: " + _highlight_text(h)) for h in paper.highlights]
        if notes:
            ref["notes"] = notes
        if "mentioned" in keep and paper.mentioned.urls:
            ref["urls"] = list(paper.mentioned.urls)
        if paper.metadata.arxiv_id:
            ref["accession_number"] = "arXiv:" + paper.metadata.arxiv_id
        year = _year(paper)
        if year:
            ref["year"] = str(year)
        if "added" in keep:
            ref["date"] = paper.added_at[:10].replace("-", "/") + "/"
        yield rispy.dumps([ref], implementation=_RisWriter)


# -- CSL-JSON -----------------------------------------------------------------------------
def _csl_item(paper: Paper, keep: tuple[str, ...]) -> dict:
    item: dict = {"id": citation_key(paper), "type": "article", "title": paper.title}
    if "abstract" in keep:
        item["abstract"] = paper.abstract
    if "tags" in keep and paper.tags:
        item["keyword"] = ", ".join(t.name for t in paper.tags)
    notes = []
    if "note" in keep and paper.note.strip():
        notes.append(paper.note.strip())
    if "highlights" in keep:
        notes += ["Highlight: " + _highlight_text(h) for h in paper.highlights]
    if notes:
        item["note"] = "\n\n".join(notes)
    if "mentioned" in keep and paper.mentioned.urls:
        item["URL"] = paper.mentioned.urls[0]
    if paper.metadata.arxiv_id:
        item["number"] = "arXiv:" + paper.metadata.arxiv_id
        item["publisher"] = "arXiv"
    year = _year(paper)
    if year:
        item["issued"] = {"date-parts": [[year]]}
    if "added" in keep:
        y, m, d = (int(x) for x in paper.added_at[:10].split("-"))
        item["accessed"] = {"date-parts": [[y, m, d]]}
    return item


def _csl_json(papers: Iterable[Paper], keep: tuple[str, ...]) -> Iterator[str]:
    yield "["
    for n, paper in enumerate(papers):
        yield ("," if n else "") + "\n  " + json.dumps(_csl_item(paper, keep), ensure_ascii=False)
    yield "\n]\n"


_WRITERS = {"csv": _csv, "markdown": _markdown, "json": _json, "bibtex": _bibtex,
            "ris": _ris, "csl-json": _csl_json}


def export_chunks(papers: Iterable[Paper], fmt: str,
                  fields: Iterable[str] | None = None) -> Iterator[str]:
    """Yield the export of ``papers`` in format ``fmt`` as text chunks.

    Args:
        papers: papers in the order to write (an iterator is consumed lazily).
        fmt: one of :data:`FORMATS`.
        fields: fields to include (subset of :data:`FIELDS`); ``None`` for all.
    Yields:
        Text; the concatenation is the whole file (CSV starts with a byte-order mark).
    Raises:
        ValueError: unknown format or field.
    """
    if fmt not in _WRITERS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    return _WRITERS[fmt](papers, _keep(fields))
