"""Writing paper rows: the one ``INSERT INTO papers`` (text imports and paperdesk JSON
imports both go through :func:`insert_paper`), and the paper's own metadata columns.

Raw SQL rather than sqlite-utils' ``Table.insert`` on purpose: this runs once per
imported abstract, and ``Table.insert`` builds its statement anew on every call. Measured
on this machine (in-memory database, 20,000 rows in one transaction): 2.4 µs per row with
a prepared ``INSERT`` against 20 µs with ``db["papers"].insert(...)``, i.e. 0.24 s against
2 s for a 100,000-abstract import. Writes that happen once per user action (tags, notes,
highlights, sources) use sqlite-utils' table helpers instead.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

import sqlite_utils

from paperdesk.core.fields import stored_fields
from paperdesk.core.metadata import auto_key, metadata_key, unique_key
from paperdesk.core.models import Author, Metadata

__all__ = ["insert_paper", "insert_abstracts", "StoredAbstracts", "PAPER_COLUMNS", "METADATA_COLUMNS", "metadata_row",
           "metadata_from_row", "key_taken", "new_citation_key", "write_metadata"]

#: Columns written when a paper is added (``id`` is assigned by SQLite).
PAPER_COLUMNS = ("content_hash", "title", "derived_title", "abstract", "added_at",
                 "read_at", "starred")
#: The table-driven fields (:func:`paperdesk.core.fields.stored_fields`) and their columns.
_STORED = tuple((f.name, f.column) for f in stored_fields())
_STORED_NAMES = tuple(name for name, _column in _STORED)
#: Their column values of a paper that has none (most papers).
_NO_VALUES = ("",) * len(_STORED)
#: The paper's own metadata columns, in the order of :func:`metadata_row`: the fixed
#: ones, then the table-driven fields' columns in table order.
METADATA_COLUMNS = ("authors", "date", "entry_type", "doi", "arxiv_id", "url",
                    *(column for _name, column in _STORED))
_INSERT = (f"INSERT INTO papers ({', '.join(PAPER_COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(PAPER_COLUMNS))})")
_SET_METADATA = (f"UPDATE papers SET {', '.join(c + ' = ?' for c in METADATA_COLUMNS)} "
                 "WHERE id = ?")


#: The last element of the ``authors`` JSON list of a paper whose author list is truncated
#: (:attr:`Metadata.et_al`): BibTeX's word for it. Every other element is a list, so the
#: first author stays at ``$[0][0]`` for sorting (``json_extract``).
ET_AL_MARK = "others"


def metadata_row(meta: Metadata) -> tuple:
    """Return the values of :data:`METADATA_COLUMNS` for ``meta`` (authors as JSON:
    ``[[family, given], ...]``, with a third element, the suffix, when there is one, and
    :data:`ET_AL_MARK` last when the list is truncated)."""
    names: list = [[a.family, a.given, a.suffix] if a.suffix else [a.family, a.given]
                   for a in meta.authors]
    if meta.et_al:
        names.append(ET_AL_MARK)
    return (json.dumps(names, ensure_ascii=False),
            meta.date, meta.entry_type, meta.doi, meta.arxiv_id, meta.url,
            *(_NO_VALUES if not meta.values else map(meta.value, _STORED_NAMES)))


def metadata_from_row(row) -> Metadata:
    """Return the :class:`Metadata` of a row of :data:`METADATA_COLUMNS`."""
    authors, date, entry_type, doi, arxiv_id, url, *texts = row
    # In table order already: only the non-empty ones are kept (see Metadata.values).
    values = tuple((name, text) for name, text in zip(_STORED_NAMES, texts) if text) \
        if any(texts) else ()
    names = json.loads(authors or "[]")
    et_al = bool(names) and names[-1] == ET_AL_MARK
    return Metadata(tuple(Author(*a[:3]) for a in (names[:-1] if et_al else names)), date,
                    None, entry_type, doi, arxiv_id, url, values, et_al=et_al)


def key_taken(db: sqlite_utils.Database, key: str, paper_id: int | None = None) -> bool:
    """Whether another paper than ``paper_id`` has citation key ``key`` (any case), as
    its key or as an alias (:mod:`paperdesk.core.store.key_aliases`)."""
    return db.execute("SELECT 1 FROM papers WHERE citation_key = ? COLLATE NOCASE "
                      "AND id IS NOT ? UNION ALL SELECT 1 FROM citation_key_aliases "
                      "WHERE alias = ? AND paper_id IS NOT ? LIMIT 1",
                      [key, paper_id, key, paper_id]).fetchone() is not None


def new_citation_key(db: sqlite_utils.Database, paper_id: int, title: str,
                     meta: Metadata) -> str:
    """Return a fresh, unique citation key for a paper: Better BibTeX's form
    (``family`` + year + first significant title word, with a/b/c when taken) when its
    authors are known, else :func:`paperdesk.core.metadata.auto_key`."""
    base = metadata_key(meta.authors, meta.year, title)
    if base is None:
        base = auto_key(title, paper_id, meta.year)
    return unique_key(base, lambda k: key_taken(db, k, paper_id))


def write_metadata(db: sqlite_utils.Database, paper_id: int, meta: Metadata) -> None:
    """Store a paper's own metadata (inside the caller's transaction); the citation key
    is left as it is."""
    db.conn.execute(_SET_METADATA, [*metadata_row(meta), paper_id])


def insert_paper(db: sqlite_utils.Database, *, content_hash: str, abstract: str,
                 derived_title: str, added_at: str, title: str | None = None,
                 read_at: str | None = None, starred: bool = False,
                 metadata: Metadata | None = None, citation_key: str | None = None,
                 file_title: str | None = None) -> int:
    """Insert one paper row (inside the caller's transaction) and assign its citation key.

    Args:
        db: the library database.
        content_hash: SHA-256 hex of the normalised abstract (``text.content_hash``).
        abstract: the abstract text.
        derived_title: the title derived from the abstract (``text.derive_title``).
        added_at: ISO 8601 UTC time it was added.
        title: its own title; ``None`` uses ``derived_title``.
        read_at: ISO 8601 UTC time it was read, or ``None`` (unread).
        starred: starred or not.
        metadata: its own metadata (already checked), or ``None``.
        citation_key: the key it carries (from an import), kept when no other paper has
            it; else a new one (:func:`new_citation_key`).
        file_title: the title a bibliographic record gave it (schema 7's ``file_title``:
            the title an empty title goes back to), or ``None``.
    Returns:
        The new paper id.
    Raises:
        sqlite3.IntegrityError: a paper with this content hash exists.
    """
    pid = db.conn.execute(_INSERT, [content_hash, title or derived_title, derived_title,
                                    abstract, added_at, read_at,
                                    int(bool(starred))]).lastrowid
    if file_title:
        db.conn.execute("UPDATE papers SET file_title = ? WHERE id = ?", [file_title, pid])
    meta = metadata or Metadata()
    if metadata is not None:
        write_metadata(db, pid, meta)
    if citation_key and not key_taken(db, citation_key):
        key = citation_key
    elif metadata is None or not meta.authors:
        key = auto_key(title or derived_title, pid, meta.year)
    else:
        key = new_citation_key(db, pid, title or derived_title, meta)
    try:
        db.conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?", [key, pid])
    except sqlite3.IntegrityError:  # a user chose exactly this automatic key
        key = unique_key(key, lambda k: key_taken(db, k, pid))
        db.conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?", [key, pid])
    return pid


#: Most values bound in one ``IN (...)`` lookup (SQLite's default limit is 32,766).
_LOOKUP_CHUNK = 500
_INSERT_WITH_KEY = ("INSERT INTO papers (id, content_hash, title, derived_title, abstract, "
                    "added_at, starred, citation_key) VALUES (?, ?, ?, ?, ?, ?, 0, ?)")


@dataclass
class StoredAbstracts:
    """What :func:`insert_abstracts` did with a chunk of abstracts.

    Attributes:
        added: ids of the papers created, in file order.
        changed: ids of papers already there (or created earlier in the chunk) that
            gained a new provenance row (``paper_sources``), in file order.
        duplicates: abstracts that were already a paper (counted once each).
    """

    added: list[int] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)
    duplicates: int = 0


def _known_hashes(db: sqlite_utils.Database, digests: Sequence[str]) -> dict[str, int]:
    """``{digest: paper id}`` for the digests that are a paper's ``content_hash`` or were
    merged into a paper (``merged_hashes``; a paper's own hash wins, as in
    :func:`paperdesk.core.store.duplicates.paper_with_hash`)."""
    known: dict[str, int] = {}
    for table, column in (("papers", "id"), ("merged_hashes", "paper_id")):
        wanted = [d for d in digests if d not in known]
        for i in range(0, len(wanted), _LOOKUP_CHUNK):
            chunk = wanted[i:i + _LOOKUP_CHUNK]
            for digest, pid in db.execute(
                    f"SELECT content_hash, {column} FROM {table} WHERE content_hash IN "
                    f"({','.join('?' * len(chunk))})", chunk):
                known.setdefault(digest, pid)
    return known


def _known_refs(db: sqlite_utils.Database, source_id: int,
                pids: Sequence[int]) -> set[tuple[int, int]]:
    """The ``(paper_id, position)`` provenance rows of ``source_id`` among ``pids``."""
    refs: set[tuple[int, int]] = set()
    pids = sorted(set(pids))
    for i in range(0, len(pids), _LOOKUP_CHUNK):
        chunk = pids[i:i + _LOOKUP_CHUNK]
        refs.update(db.execute(
            "SELECT paper_id, position FROM paper_sources WHERE source_id = ? AND "
            f"paper_id IN ({','.join('?' * len(chunk))})", [source_id, *chunk]).fetchall())
    return refs


def insert_abstracts(db: sqlite_utils.Database, items: Sequence[tuple[int, str, str, str]],
                     source_id: int, added_at: str) -> StoredAbstracts:
    """Store a chunk of a text file's abstracts (inside the caller's transaction) with a
    few statements for the whole chunk instead of several per abstract: one lookup of
    the hashes, one lookup of the provenance rows of the papers already there, then
    ``executemany`` for the new paper rows (with their automatic citation keys,
    :func:`paperdesk.core.metadata.auto_key`) and for the ``paper_sources`` rows.
    The caller queues the papers for indexing. The result is the same as storing the
    abstracts one by one with :func:`insert_paper`: an abstract whose hash is a paper's
    (or was merged into one) adds a provenance row to that paper when it has none for
    this position of this source; an abstract seen earlier in the chunk is a duplicate
    of the paper made for it.

    New ids are given as SQLite would (one above the largest id, the table being
    written by this transaction only). When an automatic key is taken already (a user
    chose exactly ``word_123``), the new rows are made one by one with
    :func:`insert_paper` instead, which finds a free key.

    Args:
        db: the library database, in a write transaction.
        items: ``(position, abstract, content_hash, derived_title)`` in file order;
            ``abstract`` normalised (:func:`paperdesk.core.text.normalize`), the hash
            :func:`paperdesk.core.text.content_hash` of it; a fifth element, when
            given, is :func:`paperdesk.core.metadata.key_word` of the title (computed
            beforehand, e.g. by the process that read the file), else it is computed
            here.
        source_id: the file's ``sources`` row.
        added_at: ISO 8601 UTC time of the import.
    Returns:
        :class:`StoredAbstracts`.
    Raises:
        sqlite3.Error: the database failed (the caller's transaction is rolled back).
    """
    from paperdesk.core.metadata import key_word

    out = StoredAbstracts()
    known = _known_hashes(db, list(dict.fromkeys(item[2] for item in items)))
    refs = _known_refs(db, source_id, list(known.values()))
    next_id = (db.execute("SELECT max(id) FROM papers").fetchone()[0] or 0) + 1
    new_rows = []           # (id, hash, title, derived_title, abstract, added_at, key)
    source_rows = []        # (paper_id, source_id, position)
    for item in items:
        position, abstract, digest, title = item[:4]
        pid = known.get(digest)
        if pid is None:
            pid = next_id
            next_id += 1
            known[digest] = pid
            # auto_key(title, pid) without a year: the word, "_", the id
            word = item[4] if len(item) > 4 else key_word(title)
            new_rows.append((pid, digest, title, title, abstract, added_at,
                             f"{word}_{pid}"))
            out.added.append(pid)
            refs.add((pid, position))
            source_rows.append((pid, source_id, position))
            continue
        out.duplicates += 1
        if (pid, position) not in refs:
            refs.add((pid, position))
            source_rows.append((pid, source_id, position))
            out.changed.append(pid)
    conn = db.conn
    conn.execute("SAVEPOINT insert_abstracts")
    try:
        conn.executemany(_INSERT_WITH_KEY, new_rows)
    except sqlite3.IntegrityError:      # an automatic key taken already: one by one
        conn.execute("ROLLBACK TO insert_abstracts")
        renumber = {}
        for pid, digest, title, _title, abstract, _at, _key in new_rows:
            renumber[pid] = insert_paper(db, content_hash=digest, abstract=abstract,
                                         derived_title=title, added_at=added_at)
        out.added = [renumber[p] for p in out.added]
        out.changed = [renumber.get(p, p) for p in out.changed]
        source_rows = [(renumber.get(p, p), s, pos) for p, s, pos in source_rows]
    conn.execute("RELEASE insert_abstracts")
    conn.executemany("INSERT OR IGNORE INTO paper_sources (paper_id, source_id, position) "
                     "VALUES (?, ?, ?)", source_rows)
    return out
