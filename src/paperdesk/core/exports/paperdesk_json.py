"""Papers -> paperdesk's own lossless JSON export (read back by
:mod:`paperdesk.core.imports.paperdesk_json`). Pure: no database, no Qt.

Version 2 added each paper's own bibliographic metadata and its citation key to version
1; version 3 (this one) adds the library's saved searches. The importer reads all three.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from paperdesk.core.clock import utc_now
from paperdesk.core.fields import PAPER_FIELDS, stored_fields
from paperdesk.core.models import Paper

__all__ = ["JSON_FORMAT_NAME", "JSON_FORMAT_VERSION", "json_paper", "json_document",
           "json_chunks"]

JSON_FORMAT_NAME = "paperdesk-export"
#: The version written; :mod:`paperdesk.core.imports.paperdesk_json` reads 1 to 3.
JSON_FORMAT_VERSION = 3
#: The lossless JSON export's key of each field (from :mod:`paperdesk.core.fields`).
_JSON_KEYS = {f.name: f.json for f in PAPER_FIELDS if f.csv is not None}


def json_paper(paper: Paper, keep: Iterable[str]) -> dict:
    """Return one paper as an object of the export's ``papers`` list (keys as in
    :func:`json_document`), with only the keys of the fields in ``keep`` (and
    ``derived_title``, always).

    Args:
        paper: the paper.
        keep: export field names.
    Returns:
        A JSON-serialisable dict.
    """
    meta = paper.metadata
    full = {
        "id": paper.id,
        "title": paper.title,
        "derived_title": paper.derived_title,
        "file_title": paper.file_title or None,
        "abstract": paper.abstract,
        "tags": [{"name": t.name, "colour": t.colour, "key": t.key} for t in paper.tags],
        "note": paper.note,
        "highlights": [{"start": h.start, "end": h.end, "colour": h.colour,
                        "comment": h.comment, "text": h.text, "created_at": h.created_at}
                       for h in paper.highlights],
        "citation_key": paper.citation_key,
        "key_aliases": list(paper.key_aliases),
        "entry_type": meta.entry_type,
        "authors": [a.to_dict() for a in meta.authors],
        "date": meta.date,
        # The venue ("" when none) where it was before it was table-driven.
        **{f.json: meta.value(f.name) for f in stored_fields(containers=True)},
        "doi": meta.doi,
        "arxiv_id": meta.arxiv_id,
        "url": meta.url,
        **{f.json: meta.value(f.name) or None for f in stored_fields(containers=False)},
        "mentioned": paper.mentioned.to_dict(),
        "sources": [{"name": s.name, "path": s.path, "header": s.header,
                     "position": s.position} for s in paper.sources],
        "added_at": paper.added_at,
        "read_at": paper.read_at,
        "starred": paper.starred,
    }
    wanted = {_JSON_KEYS[f] for f in keep} | {"derived_title"}
    if "title" in wanted:
        wanted.add("file_title")
    if "authors" in wanted and meta.et_al:     # the list is truncated: "et al."
        full["authors_et_al"] = True
        wanted.add("authors_et_al")
    if "citation_key" in wanted:
        wanted.add("key_aliases")
    return {k: v for k, v in full.items() if k in wanted}


def _head(saved_searches: Iterable = ()) -> dict:
    return {"format": JSON_FORMAT_NAME, "version": JSON_FORMAT_VERSION,
            "exported_at": utc_now(),
            "saved_searches": [{"name": s.name, "query": s.query, "created_at": s.created_at}
                               for s in saved_searches]}


def json_document(papers: Iterable[Paper], keep: Iterable[str],
                  saved_searches: Iterable = ()) -> dict:
    """Return the lossless JSON export as a Python object.

    Shape (version 3)::

        {"format": "paperdesk-export", "version": 3, "exported_at": "<ISO 8601 UTC>",
         "saved_searches": [{"name", "query", "created_at"}],
         "papers": [{"id", "title", "derived_title", "file_title" (the title its file
                     gave it, null when none; with "title"), "abstract",
                     "tags": [{"name", "colour", "key"}], "note",
                     "highlights": [{"start", "end", "colour", "comment", "text",
                                     "created_at"}],
                     "citation_key", "key_aliases" (other keys it answers to: keys
                     of entries an import merged onto it), "entry_type" (null when
                     not set), "authors": [{"family", "given"}], "authors_et_al" (true,
                     only when the list is truncated: "et al."), "date"
                     ("YYYY[-MM[-DD]]" or null), "venue",
                     "doi", "arxiv_id", "url" (each null when unknown),
                     "mentioned": {"urls", "arxiv_ids", "dois"},
                     "sources": [{"name", "path", "header", "position"}],
                     "added_at", "read_at", "starred"}]}

    Highlight ``start``/``end`` are character offsets (Python string indices) into
    ``abstract``. ``mentioned`` lists what the abstract cites (other work; re-derived
    from the abstract on import). Version 1 had ``urls`` and ``arxiv_ids`` instead of
    ``mentioned`` and none of the metadata keys; version 2 had no ``saved_searches``
    (the library's, whatever papers are exported: a query is not tied to papers).

    Args:
        papers: in the order to write.
        keep: export field names (see :data:`paperdesk.core.exports.formats.FIELDS`).
        saved_searches: objects with ``name``, ``query`` and ``created_at`` (ISO 8601
            UTC), e.g. :class:`~paperdesk.core.models.SavedSearch`.
    Returns:
        The document.
    """
    keep = tuple(keep)
    return {**_head(saved_searches), "papers": [json_paper(p, keep) for p in papers]}


def json_chunks(papers: Iterable[Paper], keep: tuple[str, ...],
                saved_searches: Iterable = ()) -> Iterator[str]:
    """Yield :func:`json_document` as text, one paper per line.

    Args:
        papers: in the order to write.
        keep: export field names.
        saved_searches: as for :func:`json_document`.
    Yields:
        Text chunks; their concatenation is one JSON document.
    """
    head = json.dumps(_head(saved_searches), ensure_ascii=False)
    yield head[:-1] + ', "papers": ['
    for n, paper in enumerate(papers):
        yield ("," if n else "") + "\n  " + json.dumps(json_paper(paper, keep),
                                                        ensure_ascii=False)
    yield "\n]}\n"
