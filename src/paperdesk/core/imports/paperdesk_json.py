"""Reading paperdesk's own JSON export back into a library (see
:func:`paperdesk.core.exports.paperdesk_json.json_document` for the format).

Versions 1 to 3 are read. Version 3 carries the library's saved searches too, merged by
name (:func:`store_saved_searches`). Version 2 carries each paper's own metadata (``citation_key``,
``entry_type``, ``authors`` (and ``authors_et_al``: "et al."), ``date``, ``venue``, ``doi``,
``arxiv_id``, ``url``); a new
paper gets it, and keeps its citation key when no other paper in the library has it.
Version 1 has none (its ``urls`` and ``arxiv_ids`` were what the abstract mentions, which
is derived from the abstract again). ``mentioned`` is never read: it follows the abstract.

A paper without an abstract (one that came from a BibTeX, RIS or CSL-JSON record with only
a title) is read back as such: it needs a title, and it is identified as records without
an abstract are (:func:`paperdesk.core.imports.records.identity_key`: DOI, else arXiv
id, else title + year + first author), else by its DOI or arXiv id, else as the paper
without an abstract with the same title; so an export imports back losslessly and a
second import of it finds every paper again. A paper with neither title nor abstract is
refused.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from paperdesk.core.imports.abstract_limit import bounded, cut_note, limit_abstract
from paperdesk.core.edits.annotations import check_colour, validate_tag_name
from paperdesk.core.exports.paperdesk_json import JSON_FORMAT_NAME
from paperdesk.core.imports.daily_papers import MAX_FILE_BYTES, ParseError
from paperdesk.core.imports.records import Identifiers, Record, record_hash
from paperdesk.core.metadata import MetadataError, check_citation_key, check_metadata
from paperdesk.core.store.key_aliases import add_alias
from paperdesk.core.fields import stored_fields
from paperdesk.core.models import Author, FileReport, LibraryError, Metadata, field_values
from paperdesk.core.store.duplicates import paper_with_hash
from paperdesk.core.store.papers import (METADATA_COLUMNS, insert_paper, metadata_from_row,
                                         write_metadata)
from paperdesk.core.text import content_hash, derive_title, loads_json, normalize

__all__ = ["is_json_export", "read_export", "store_export", "READ_VERSIONS",
           "paper_metadata", "shape_problem", "store_saved_searches"]

#: The export versions this reader understands.
READ_VERSIONS = (1, 2, 3)


def paper_metadata(item: dict) -> tuple[Metadata | None, str | None]:
    """Return the own metadata and citation key of one paper of an export.

    Args:
        item: a ``papers`` entry (version 1 or 2).
    Returns:
        ``(metadata, citation_key)``: metadata checked and cleaned as
        :func:`paperdesk.core.metadata.check_metadata` does, or ``None`` when the entry
        has none (version 1, or every part empty); the key, or ``None``.
    Raises:
        MetadataError: a part is malformed (one line naming it), or an author is not
            ``{"family", "given"}`` (with an optional ``"suffix"``).
    """
    authors = []
    for a in item.get("authors") or []:
        if not isinstance(a, dict) or not str(a.get("family") or "").strip():
            raise MetadataError(f"author: cannot read {a!r} (want {{\"family\", \"given\"}})")
        authors.append(Author(str(a["family"]), str(a.get("given") or ""),
                              str(a.get("suffix") or "")))
    meta = check_metadata(Metadata(
        authors=tuple(authors), date=_text_or_none(item.get("date")),
        entry_type=_text_or_none(item.get("entry_type")),
        doi=_text_or_none(item.get("doi")), arxiv_id=_text_or_none(item.get("arxiv_id")),
        url=_text_or_none(item.get("url")),
        values=field_values({f.name: _text_or_none(item.get(f.json)) for f in stored_fields()}),
        et_al=item.get("authors_et_al") is True))
    key = item.get("citation_key")
    key = check_citation_key(str(key)) if key not in (None, "") else None
    return (None if meta == Metadata() else meta), key


def _text_or_none(value) -> str | None:
    return None if value is None else str(value)


def is_json_export(path: str | os.PathLike) -> bool:
    """True if ``path`` looks like a paperdesk JSON export (by its first bytes)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(200).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return False
    return head.startswith(b"{") and JSON_FORMAT_NAME.encode() in head


def read_export(path: str | os.PathLike, text: str | None = None,
                doc: object = None) -> dict:
    """Load and check a JSON export (version 1 or 2).

    Args:
        path: the file (read unless ``text`` or ``doc`` is given; it names the file in
            errors).
        text: the file's content, when the caller has read it already.
        doc: the parsed JSON, when the caller has parsed it already (format detection).
    Returns:
        The document (``{"format", "version", "papers": [...]}``).
    Raises:
        ParseError: unreadable, not JSON, not a paperdesk export, a version this reader
            does not know, a paper with neither abstract nor title, a paper whose
            metadata is malformed or whose tags, sources or highlights have the wrong
            shape (:func:`shape_problem`; the reason names the paper and the part).
    """
    p = Path(path)
    try:
        if doc is None and text is None:
            if p.stat().st_size > MAX_FILE_BYTES:
                raise ParseError(path, f"file too large (limit {MAX_FILE_BYTES} bytes)")
            text = p.read_text(encoding="utf-8-sig")
        if doc is None:
            doc = loads_json(text.lstrip("\ufeff"))
    except OSError as exc:
        raise ParseError(path, f"cannot read file ({exc.strerror or exc})") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ParseError(path, f"not valid JSON ({exc})") from exc
    if not isinstance(doc, dict) or doc.get("format") != JSON_FORMAT_NAME:
        raise ParseError(path, "not a paperdesk JSON export (no \"format\": "
                               f"\"{JSON_FORMAT_NAME}\")")
    version = doc.get("version", 1)
    if version not in READ_VERSIONS:
        raise ParseError(path, f"paperdesk export version {version!r} is not one this "
                               f"paperdesk reads ({', '.join(map(str, READ_VERSIONS))})")
    papers = doc.get("papers")
    if not isinstance(papers, list):
        raise ParseError(path, "a paperdesk export needs a \"papers\" list")
    for n, paper in enumerate(papers, start=1):
        if not isinstance(paper, dict):
            raise ParseError(path, f"paper {n} is not an object")
        if not any(str(paper.get(name) or "").strip()
                   for name in ("abstract", "title", "citation_key")):
            raise ParseError(path, f"paper {n} has neither an abstract nor a title nor "
                             "a citation key")
        problem = shape_problem(paper)
        if problem:
            raise ParseError(path, f"paper {n}: {problem}")
        try:
            paper_metadata(paper)
        except MetadataError as exc:
            raise ParseError(path, f"paper {n}: {exc}") from exc
    _check_saved_searches(path, doc.get("saved_searches", []))
    return doc


#: Values of a paper that must be text (or null) where present.
_TEXT_KEYS = ("title", "abstract", "note", "added_at", "read_at", "file_title")
#: List values of a paper, and the keys of their objects that must be text (or null).
_LIST_KEYS = {"tags": ("name", "colour"), "sources": ("path", "name", "header"),
              "highlights": ("text", "colour", "comment", "created_at")}


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def shape_problem(paper: dict) -> str | None:
    """What is wrong with the shape of one ``papers`` entry, before anything is stored
    (a hand-edited or hostile file used to stop the import half-way with a traceback:
    ``"tags": ["x"]``, a highlight ``"start": "a"``, a tag named ``"a,b"``).

    Args:
        paper: one entry of an export's ``papers`` list (a dict).
    Returns:
        A one-line reason ("tag 2: not a colour: 'red' (use #rrggbb)"), or ``None``
        when the entry can be stored.
    """
    for key in _TEXT_KEYS:
        if paper.get(key) is not None and not isinstance(paper[key], str):
            return f"{key} is not text"
    if paper.get("authors") is not None and not isinstance(paper["authors"], list):
        return "authors is not a list"
    for key, text_keys in _LIST_KEYS.items():
        items = paper.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            return f"{key} is not a list"
        label = key[:-1]
        for i, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                return f"{label} {i} is not an object"
            for name in text_keys:
                if item.get(name) is not None and not isinstance(item[name], str):
                    return f"{label} {i}: {name} is not text"
    for i, tag in enumerate(paper.get("tags") or [], start=1):
        try:
            validate_tag_name(tag.get("name") or "")
            if tag.get("colour"):
                check_colour(tag["colour"])
            if tag.get("key") is not None and not (_is_int(tag["key"])
                                                   and 1 <= tag["key"] <= 9):
                return f"tag {i}: key must be a number from 1 to 9"
        except LibraryError as exc:
            return f"tag {i}: {exc}"
    for i, src in enumerate(paper.get("sources") or [], start=1):
        if src.get("position") is not None and not _is_int(src["position"]):
            return f"source {i}: position is not a whole number"
    for i, h in enumerate(paper.get("highlights") or [], start=1):
        if not (_is_int(h.get("start")) and _is_int(h.get("end"))):
            return f"highlight {i}: start and end must be whole numbers"
    return None


def _check_saved_searches(path, items) -> None:
    """Refuse a ``saved_searches`` list that is not ``[{"name", "query"}, ...]`` with
    names and queries a saved search may have (one line naming the entry)."""
    from paperdesk.core.edits.saved_searches import _clean_name
    from paperdesk.core.models import LibraryError
    from paperdesk.core.search.query import MAX_QUERY_CHARS

    if not isinstance(items, list):
        raise ParseError(path, "\"saved_searches\" must be a list")
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                or not isinstance(item.get("query"), str):
            raise ParseError(path, f"saved search {n} is not {{\"name\", \"query\"}}")
        try:
            _clean_name(item["name"])
        except LibraryError as exc:
            raise ParseError(path, f"saved search {n}: {exc}") from exc
        if not item["query"].strip() or len(item["query"]) > MAX_QUERY_CHARS:
            raise ParseError(path, f"saved search {n} ({item['name']!r}): the query is "
                                   f"empty or longer than {MAX_QUERY_CHARS} characters")


def store_saved_searches(db, items: list, now: str) -> int:
    """Store the saved searches of an export (inside the caller's transaction), merged
    by name: one whose name (without regard to case, as the library compares them) the
    library has already is left out, so the library's query is kept.

    Args:
        db: the library database.
        items: the export's ``saved_searches`` (checked by :func:`read_export`).
        now: ISO 8601 UTC time, for entries without ``created_at``.
    Returns:
        How many were added.
    """
    from paperdesk.core.edits.annotations import tag_key
    from paperdesk.core.edits.saved_searches import _clean_name

    added = 0
    for item in items:
        name = _clean_name(item["name"])
        cursor = db.execute(
            "INSERT INTO saved_searches (name, name_key, query, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(name_key) DO NOTHING",
            [name, tag_key(name), item["query"], str(item.get("created_at") or now)])
        added += cursor.rowcount
    return added


def _find(db, abstract: str, title: str, meta: Metadata | None,
          ids: Identifiers, key: str | None) -> tuple[str, int | None]:
    """``(content_hash, id of the paper it is or None)`` of one export entry."""
    if abstract:
        digest = content_hash(abstract)
        row = paper_with_hash(db, digest)   # or the paper it was merged into
        return digest, (row[0] if row else None)
    record = Record(0, "", title, "", meta or Metadata(), key)
    digest = record_hash(record)
    row = paper_with_hash(db, digest)
    if row is not None:
        return digest, row[0]
    pid = ids.find(record.metadata)
    if pid is None:     # its DOI, year or authors were edited since: the same title and key
        row = db.execute("SELECT id FROM papers WHERE abstract = '' AND title = ? AND "
                         "(? IS NULL OR citation_key = ? COLLATE NOCASE) ORDER BY id LIMIT 1",
                         [title, key, key]).fetchone()
        pid = row[0] if row else None
    return digest, pid


def store_export(lib, doc: dict, report: FileReport, now: str) -> tuple[list[int], list[int]]:
    """Store the papers of an export (inside the caller's transaction).

    New papers are added with their title, abstract (or none: see the module docstring),
    dates, read and star marks, own metadata and citation key (kept when no other paper
    has it, else a fresh one); a paper already in the library keeps its own title, note,
    citation key and metadata (it takes the export's metadata only when it has none of
    its own) but gains the export's tags, note (when it has none), highlights (when the
    offsets still fit the abstract), read and star marks. Tags are matched by name
    without regard to case; a tag's number key is taken only if it is free.

    Args:
        lib: the :class:`~paperdesk.core.library.Library`.
        doc: from :func:`read_export`.
        report: counts ``added``, ``enriched`` (a paper already there that gained a tag,
            note, highlight, mark or metadata), ``duplicates`` (one that gained nothing)
            and ``without_abstract`` are updated; an abstract longer than
            :data:`~paperdesk.core.imports.abstract_limit.MAX_ABSTRACT_CHARS` is cut, with
            a note in ``warnings``.
        now: ISO 8601 UTC time of this import.
    Returns:
        ``(added_ids, touched_ids)``: new papers, and existing papers met again.
    """
    db = lib.db
    added, touched = [], []
    ids = Identifiers(db)
    for item in doc["papers"]:
        prefix, length = bounded(str(item.get("abstract") or ""))
        title = normalize(str(item.get("title") or ""))
        abstract, was = limit_abstract(normalize(prefix), length)
        if was is not None:
            shown = title or derive_title(abstract)
            report.warnings.append(cut_note(f"paper {shown[:80]!r}", len(abstract), was))
        meta, key = paper_metadata(item)
        digest, pid = _find(db, abstract, title, meta, ids, key)
        if not abstract:
            report.without_abstract += 1
        changed = False
        if pid is None:
            derived = derive_title(abstract) if abstract else title
            pid = insert_paper(db, content_hash=digest, abstract=abstract,
                               derived_title=derived, title=title or derived,
                               added_at=str(item.get("added_at") or now),
                               read_at=item.get("read_at"), starred=bool(item.get("starred")),
                               metadata=meta, citation_key=key,
                               file_title=normalize(str(item.get("file_title") or ""))
                               or None)
            added.append(pid)
            report.added += 1
            if meta is not None:
                ids.add(pid, meta.doi, meta.arxiv_id)
        else:
            own = metadata_from_row(db.execute(
                f"SELECT {', '.join(METADATA_COLUMNS)} FROM papers WHERE id = ?",
                [pid]).fetchone())
            if meta is not None and own == Metadata():
                write_metadata(db, pid, meta)
                ids.add(pid, meta.doi, meta.arxiv_id)
                changed = True
            if item.get("read_at"):
                changed |= bool(db.execute(
                    "UPDATE papers SET read_at = ? WHERE id = ? AND read_at IS NULL",
                    [item["read_at"], pid]).rowcount)
            if item.get("starred"):
                changed |= bool(db.execute(
                    "UPDATE papers SET starred = 1 WHERE id = ? AND NOT starred",
                    [pid]).rowcount)
            touched.append(pid)
        for src in item.get("sources") or []:
            path = str(src.get("path") or src.get("name") or "paperdesk export")
            source_id = lib.imports.source_id(db, path, str(src.get("header") or ""), "utf-8", now,
                                       name=str(src.get("name") or "") or None)
            db.execute("INSERT OR IGNORE INTO paper_sources (paper_id, source_id, position) "
                       "VALUES (?, ?, ?)", [pid, source_id, int(src.get("position") or 1)])
        for alias in item.get("key_aliases") or []:
            try:
                changed |= add_alias(db, pid, check_citation_key(str(alias)))
            except MetadataError as exc:
                report.warnings.append(f"paper {title[:80]!r}: {exc}; alias dropped")
        for tag in item.get("tags") or []:
            existing = lib.tags.by_name(str(tag.get("name", "")))
            if existing is None:
                key = tag.get("key")
                free = key is not None and lib.tags.for_key(int(key)) is None
                existing = lib.tags.ensure(str(tag["name"]), colour=tag.get("colour"),
                                          key=int(key) if free else None)
            changed |= bool(db.execute(
                "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
                [pid, existing.id]).rowcount)
        note = str(item.get("note") or "")
        if note.strip() and not lib.notes.get(pid).strip():
            db.execute("INSERT INTO notes (paper_id, body, updated_at) VALUES (?, ?, ?) "
                       "ON CONFLICT(paper_id) DO UPDATE SET body = excluded.body",
                       [pid, note, now])
            changed = True
        have = {(h.start, h.end) for h in lib.notes.highlights(pid)}
        own_abstract = abstract if pid in added else db.execute(
            "SELECT abstract FROM papers WHERE id = ?", [pid]).fetchone()[0]
        for h in item.get("highlights") or []:
            start, end = int(h.get("start", -1)), int(h.get("end", -1))
            if (start, end) in have or not 0 <= start < end <= len(own_abstract):
                continue
            if h.get("text") is not None and own_abstract[start:end] != h["text"]:
                continue  # offsets no longer point at the same words
            db.execute('INSERT INTO highlights (paper_id, start, "end", colour, comment, '
                       "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                       [pid, start, end, str(h.get("colour") or "#ffe066"),
                        str(h.get("comment") or ""), str(h.get("created_at") or now)])
            have.add((start, end))
            changed = True
        if pid not in added:
            if changed:
                report.enriched += 1
            else:
                report.duplicates += 1
    return added, touched
