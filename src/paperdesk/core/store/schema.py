"""SQLite tables of a library, and migrations between schema versions.

The schema version lives in ``PRAGMA user_version``. :func:`migrate` brings a database from
any older version to :data:`SCHEMA_VERSION`, one step at a time, each step in its own
transaction, after copying the database file to the library's ``backups/`` folder.

Tables (plain, so that ``sqlite-utils tables`` or Datasette read them well):

``papers``
    ``id`` (integer key), ``content_hash`` (SHA-256 of the normalised abstract, unique;
    typographic variants folded since version 6),
    ``title`` (shown title), ``derived_title`` (title derived from the abstract; ``title``
    equals it until the user edits the title), ``abstract``, ``added_at`` (ISO 8601 UTC),
    ``read_at`` (ISO 8601 UTC or NULL), ``starred`` (0/1).
``sources``
    one row per imported file: ``id``, ``path`` (absolute, unique), ``name`` (file name),
    ``header`` (collection name from the file's first line), ``encoding``, ``imported_at``.
``paper_sources``
    provenance: ``paper_id``, ``source_id``, ``position`` (1-based paragraph number among the
    file's abstracts). A paper seen in two files has two rows and is stored once.
``index_queue``
    papers whose search document is stale: ``seq`` (increasing), ``paper_id`` (unique),
    ``op`` (``add`` for a paper never indexed, ``update``, ``delete``). Written in the same
    transaction as the change; a row is removed only after the Whoosh index has committed
    it, so a crash in between is repaired when the library is next opened.

Added in version 2:

``tags``
    ``id``, ``name`` (as last typed), ``name_key`` (the name in Unicode NFC, case-folded:
    unique, so ``ML`` and ``ml``, or ``Straße`` and ``STRASSE``, are one tag),
    ``colour`` (``#rrggbb``), ``key`` (number key 1-9 bound to the tag, unique, or NULL).
``paper_tags``
    ``paper_id``, ``tag_id``.
``notes``
    one Markdown note per paper: ``paper_id``, ``body``, ``updated_at``.
``highlights``
    ``id``, ``paper_id``, ``start`` and ``end`` (character offsets into the abstract, end
    exclusive), ``colour``, ``comment``, ``created_at``.

Added in version 3:

``saved_searches``
    ``id``, ``name``, ``name_key`` (NFC, case-folded: unique), ``query`` (query text as
    typed), ``created_at``.

Added in version 4 (the paper's own metadata; see :mod:`paperdesk.core.metadata`), columns
of ``papers``:

``citation_key``
    assigned when the paper is added (unique without regard to case); changes only when
    the user edits or regenerates it.
``authors``
    JSON list of ``[family, given]`` pairs, in order (``[]`` when unknown).
``date``
    publication date, ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``, or NULL.
``venue`` (text, ``''`` when unknown), ``entry_type``, ``doi``, ``arxiv_id``, ``url``
    (NULL when unknown).

Before version 4 the year, arXiv id and citation key of an export were guessed from
identifiers in the abstract, which mostly name *other* papers. The migration stores no
such guess: those identifiers stay derived ("mentioned"), and every paper gets the key
that carries no year (``word_id``).

Added in version 5 (near-duplicate abstracts; see :mod:`paperdesk.core.duplicates`):

``duplicate_checked``
    papers whose abstract the near-duplicate stage has looked at: ``paper_id`` (deleted
    with the paper), ``content_hash`` (the abstract it looked at: a paper whose abstract
    changed is looked at again), ``version`` (:data:`~paperdesk.core.duplicates.
    SIGNATURE_VERSION` of its band hashes), ``signature`` (its MinHash signature, 60
    little-endian 32-bit values; NULL for an empty abstract). A new or migrated paper has
    no row yet.
``duplicate_bands``
    the LSH buckets of each checked abstract's MinHash signature: ``bucket`` (signed
    32-bit hash of one band), ``paper_id`` (deleted with the paper). Papers sharing a
    bucket are candidates. Unused since 2026-12-06 (issue 28): the buckets are kept
    outside SQLite (:mod:`paperdesk.core.store.band_runs`), and the stage empties this
    table of a library made before.
``duplicate_pairs``
    pairs flagged: ``paper_a < paper_b``, ``hash_a``/``hash_b`` (the ``content_hash`` of
    each when flagged), ``similarity`` (Jaccard of word 3-shingles), ``status``
    (``open`` or ``dismissed``: "not duplicates"), ``found_at``. Deliberately not deleted
    with the papers: a pair counts only while both papers exist with those hashes, so a
    paper restored by undo (same id, same abstract) gets its pairs back with their
    status, and a reused id or a changed abstract never inherits a stale one.
``merged_hashes``
    ``content_hash`` of an abstract merged away (:meth:`lib.duplicates.merge`) ->
    ``paper_id`` it was merged into (deleted with that paper): importing that abstract
    again finds the kept paper instead of adding the merged one back.

Added in version 9, columns of ``papers`` (text, ``''`` when unknown): ``volume``,
``issue``, ``pages`` (a range as ``first-last``).

Added in version 10, columns of ``papers`` likewise: ``publisher``, ``isbn``, ``issn``,
``language``.

Added in version 11:

``citation_key_aliases``
    other citation keys a paper answers to: ``alias`` (unique without regard to case, and
    never another paper's ``citation_key``), ``paper_id`` (deleted with the paper). An
    import that merges an entry onto a paper with another key keeps the entry's key
    here, so that ``\\cite`` (biblatex ``ids``) and ``key:`` searches still find it.

Added in version 12 (screening for a tag; see :mod:`paperdesk.core.screening.decisions`):

``screening_decisions``
    the decisions of a screening for a tag, in the order they were made: ``tag_id``
    (deleted with the tag), ``paper_id`` (deleted with the paper), ``excluded`` (1: "no",
    the paper is *excluded from* the tag; 0: "yes", the paper was given the tag),
    ``seq`` (increasing over the library: the order of the decisions, which the stopping
    estimate needs), ``decided_at`` (ISO 8601 UTC). Primary key ``(tag_id, paper_id)``.
    A paper carrying the tag is included whatever its row says; a "yes" row whose
    paper no longer has the tag counts for nothing (undecided).

Added in version 13 (an import that stores in a process of its own, issue 28):

``identifier_writes``
    one row, ``n``: counts the writes that can change which paper a DOI or arXiv id
    leads to (a paper inserted with either, either column updated, a paper deleted),
    kept by three triggers on ``papers`` whatever connection writes. An import keeps the
    library's identifiers in memory across its batches while ``n`` moves only by its
    own writes (:mod:`paperdesk.core.imports.pipeline`); derived, not salvaged.

Version 6 changes no table: ``content_hash`` became the SHA-256 of the abstract's
:func:`~paperdesk.core.text.hash_form` (typographic variants folded: ``–`` and ``--``,
``“q”`` and ``"q"`` are one text), and the migration recomputes it (:func:`_v6`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Callable

import sqlite_utils

from paperdesk.core.clock import utc_stamp
from paperdesk.core.store.db import transaction

__all__ = ["SCHEMA_VERSION", "SchemaError", "migrate", "schema_version"]

SCHEMA_VERSION = 13


class SchemaError(RuntimeError):
    """The database was written by a newer paperdesk, or a migration step failed."""


def _v1(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE papers (
            id INTEGER PRIMARY KEY,
            content_hash TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            derived_title TEXT NOT NULL,
            abstract TEXT NOT NULL,
            added_at TEXT NOT NULL,
            read_at TEXT,
            starred INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute(
        """
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            header TEXT NOT NULL,
            encoding TEXT NOT NULL,
            imported_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE paper_sources (
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
            source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            PRIMARY KEY (paper_id, source_id, position)
        )"""
    )
    db.execute(
        """
        CREATE TABLE index_queue (
            seq INTEGER PRIMARY KEY,
            paper_id INTEGER NOT NULL UNIQUE,
            op TEXT NOT NULL CHECK (op IN ('add', 'update', 'delete'))
        )"""
    )
    db.execute("CREATE INDEX idx_papers_added_at ON papers(added_at, id)")
    db.execute("CREATE INDEX idx_papers_title ON papers(title COLLATE NOCASE)")
    db.execute("CREATE INDEX idx_paper_sources_source ON paper_sources(source_id)")


def _v2(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE tags (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            colour TEXT NOT NULL,
            key INTEGER UNIQUE CHECK (key BETWEEN 1 AND 9)
        )"""
    )
    db.execute(
        """
        CREATE TABLE paper_tags (
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
            tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
            PRIMARY KEY (paper_id, tag_id)
        )"""
    )
    db.execute("CREATE INDEX idx_paper_tags_tag ON paper_tags(tag_id)")
    db.execute(
        """
        CREATE TABLE notes (
            paper_id INTEGER PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
            body TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE highlights (
            id INTEGER PRIMARY KEY,
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            colour TEXT NOT NULL,
            comment TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            CHECK (0 <= start AND start < "end")
        )"""
    )
    db.execute("CREATE INDEX idx_highlights_paper ON highlights(paper_id, start)")
    db.execute("CREATE INDEX idx_papers_read ON papers(read_at)")


def _v3(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE saved_searches (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            query TEXT NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )


def _v4(db: sqlite_utils.Database) -> None:
    from paperdesk.core.metadata import auto_key

    for column in ("citation_key TEXT", "authors TEXT NOT NULL DEFAULT '[]'", "date TEXT",
                   "venue TEXT NOT NULL DEFAULT ''", "entry_type TEXT", "doi TEXT",
                   "arxiv_id TEXT", "url TEXT"):
        db.execute(f"ALTER TABLE papers ADD COLUMN {column}")
    # The shown title, as the keys of earlier exports used: a paper that mentioned no
    # arXiv id keeps the key it was exported with.
    rows = db.execute("SELECT id, title FROM papers").fetchall()
    db.conn.executemany("UPDATE papers SET citation_key = ? WHERE id = ?",
                        [(auto_key(title, pid), pid) for pid, title in rows])
    db.execute("CREATE UNIQUE INDEX idx_papers_citation_key "
               "ON papers(citation_key COLLATE NOCASE)")
    db.execute("CREATE INDEX idx_papers_date ON papers(date, id)")


def _v5(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE duplicate_checked (
            paper_id INTEGER PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
            content_hash TEXT NOT NULL,
            version INTEGER NOT NULL,
            signature BLOB
        )"""
    )
    db.execute(
        """
        CREATE TABLE duplicate_bands (
            bucket INTEGER NOT NULL,
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
            PRIMARY KEY (bucket, paper_id)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX idx_duplicate_bands_paper ON duplicate_bands(paper_id)")
    db.execute(
        """
        CREATE TABLE duplicate_pairs (
            paper_a INTEGER NOT NULL,
            paper_b INTEGER NOT NULL,
            hash_a TEXT NOT NULL,
            hash_b TEXT NOT NULL,
            similarity REAL NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('open', 'dismissed')),
            found_at TEXT NOT NULL,
            PRIMARY KEY (paper_a, paper_b),
            CHECK (paper_a < paper_b)
        )"""
    )
    db.execute("CREATE INDEX idx_duplicate_pairs_b ON duplicate_pairs(paper_b)")
    db.execute(
        """
        CREATE TABLE merged_hashes (
            content_hash TEXT PRIMARY KEY,
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE
        )"""
    )
    db.execute("CREATE INDEX idx_merged_hashes_paper ON merged_hashes(paper_id)")
    db.execute("CREATE INDEX idx_duplicate_pairs_status ON duplicate_pairs(status)")


def _v6(db: sqlite_utils.Database) -> None:
    """Recompute ``content_hash`` with the typographic folding of version 6.

    - A paper whose ``content_hash`` is the old key of its abstract (the SHA-256 of the
      normalised text, unfolded) gets the new key (:func:`paperdesk.core.text.
      content_hash`). Any other ``content_hash`` is kept: a paper without an abstract
      is keyed by its identity (DOI, arXiv id or title), which the new rule does not
      fold either.
    - Two papers whose abstracts differ only in typographic variants now have one key.
      Both are kept (nothing is merged behind the user's back): one gets the key (the
      one whose key does not change, else the lower id), the other a key of its own, the SHA-256 of
      ``"paperdesk-kept:<id>:" + abstract``, which no import computes. Importing that
      abstract again finds the first paper; the near-duplicate stage flags the pair
      (they are alike word for word) for the user to merge or dismiss in the Duplicates
      view.
    - ``duplicate_checked.content_hash`` and ``duplicate_pairs.hash_a``/``hash_b`` that
      held a paper's old key get its new one (so nothing is looked at again and no pair
      loses its status); stale ones stay stale.
    - ``merged_hashes`` keep their keys: the abstract merged away is no longer stored,
      so its new key cannot be computed. An abstract without typographic characters (most)
      has the same key under both rules; one with them, imported again, is found by the
      near-duplicate match onto the paper it was merged into.
    """
    from paperdesk.core.text import content_hash, normalize, sha256_hex

    # One pass over the abstracts, holding only the keys (a 100,000-paper library's
    # abstracts would take 150 MB).
    final: dict[int, str] = {}
    wanted: dict[int, str] = {}
    for pid, old, abstract in db.conn.execute(
            "SELECT id, content_hash, abstract FROM papers ORDER BY id"):
        final[pid] = old
        text = normalize(abstract or "")
        if text and old == sha256_hex(text):
            new = content_hash(text)
            if new != old:
                wanted[pid] = new
    if not wanted:
        return
    taken = {old for pid, old in final.items() if pid not in wanted}
    old_of = dict(final)
    for pid, new in wanted.items():     # in id order: the lower id keeps the key
        if new in taken:
            (abstract,) = db.execute("SELECT abstract FROM papers WHERE id = ?",
                                     [pid]).fetchone()
            new = sha256_hex(f"paperdesk-kept:{pid}:{normalize(abstract)}")
        taken.add(new)
        final[pid] = new
    changed = [(pid, final[pid]) for pid in wanted]
    # Two steps, so that no row ever holds a key another row still has (UNIQUE).
    db.conn.executemany("UPDATE papers SET content_hash = ? WHERE id = ?",
                        [(f"v6-moving:{pid}", pid) for pid, _new in changed])
    db.conn.executemany("UPDATE papers SET content_hash = ? WHERE id = ?",
                        [(new, pid) for pid, new in changed])
    db.conn.executemany("UPDATE duplicate_checked SET content_hash = ? "
                        "WHERE paper_id = ? AND content_hash = ?",
                        [(new, pid, old_of[pid]) for pid, new in changed])
    db.conn.executemany("UPDATE duplicate_pairs SET hash_a = ? "
                        "WHERE paper_a = ? AND hash_a = ?",
                        [(new, pid, old_of[pid]) for pid, new in changed])
    db.conn.executemany("UPDATE duplicate_pairs SET hash_b = ? "
                        "WHERE paper_b = ? AND hash_b = ?",
                        [(new, pid, old_of[pid]) for pid, new in changed])


#: The ``sources.header`` of files of bibliographic records (BibTeX, RIS, CSL-JSON,
#: arXiv metadata), whose titles are real titles: the import formats' labels
#: (:attr:`paperdesk.core.imports.registry.ImportFormat.label`) as version 7 found them.
_RECORD_HEADERS = ("BibTeX", "RIS", "CSL-JSON", "arXiv metadata")


def _v7(db: sqlite_utils.Database) -> None:
    """Add ``papers.file_title``: the title a bibliographic record gave the paper (NULL
    when none), so that a title from a file is not taken for one the user typed.

    A paper's title counts as edited when it differs from ``file_title``, else from
    ``derived_title``; an empty title goes back to ``file_title``, else ``derived_title``.
    Existing papers: one whose title is not its derived title and that came from a file
    of records (its source's header is BibTeX, RIS, CSL-JSON or arXiv metadata) gets its
    title as ``file_title``. A title the user typed over such a paper's before version 7
    cannot be told apart and is taken as the file's (the one case this guesses wrong).
    """
    if "file_title" not in db["papers"].columns_dict:   # (a step that is run twice)
        db.execute("ALTER TABLE papers ADD COLUMN file_title TEXT")
    marks = ", ".join("?" * len(_RECORD_HEADERS))
    db.execute(
        "UPDATE papers SET file_title = title WHERE title != derived_title AND EXISTS "
        "(SELECT 1 FROM paper_sources ps JOIN sources s ON s.id = ps.source_id "
        f"WHERE ps.paper_id = papers.id AND s.header IN ({marks}))", list(_RECORD_HEADERS))


def _v8(db: sqlite_utils.Database) -> None:
    """Add a partial index of the starred papers, so that counting them (the sidebar's
    "Starred", after every star or tag toggle) reads only their index entries instead of
    every row with its abstract (at 100,000 papers: about 35 ms down to well under 1 ms).
    """
    db.execute("CREATE INDEX IF NOT EXISTS idx_papers_starred ON papers(id) WHERE starred")


def text_columns(*names: str) -> Callable[[sqlite_utils.Database], None]:
    """Return a migration step that adds ``TEXT NOT NULL DEFAULT ''`` columns to
    ``papers``: the storage of table-driven fields (:func:`paperdesk.core.fields.
    stored_fields`), one migration for the fields a release adds.

    Args:
        names: the columns (each a field's :attr:`~paperdesk.core.fields.Field.column`).
    Returns:
        The step (a column that is already there is left as it is, so running it twice
        does no harm).
    """
    def step(db: sqlite_utils.Database) -> None:
        have = db["papers"].columns_dict
        for name in names:
            if name not in have:
                db.execute(f"ALTER TABLE papers ADD COLUMN {name} TEXT NOT NULL DEFAULT ''")
    step.__doc__ = f"Add the text columns {', '.join(names)} of ``papers``."
    return step


#: Version 9: the paper's volume, issue and pages (:data:`paperdesk.core.fields.PAPER_FIELDS`).
_v9 = text_columns("volume", "issue", "pages")

#: Version 10: the paper's publisher, ISBN, ISSN and language (issue 25).
_v10 = text_columns("publisher", "isbn", "issn", "language")


def _v11(db: sqlite_utils.Database) -> None:
    """Add ``citation_key_aliases``: the keys of entries merged onto a paper."""
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS citation_key_aliases (
            alias TEXT NOT NULL PRIMARY KEY COLLATE NOCASE,
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE
        )"""
    )
    db.execute("CREATE INDEX IF NOT EXISTS idx_citation_key_aliases_paper "
               "ON citation_key_aliases(paper_id)")


def _v12(db: sqlite_utils.Database) -> None:
    """Add ``screening_decisions``: the yes and no of screenings, in order."""
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS screening_decisions (
            tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
            paper_id INTEGER NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
            excluded INTEGER NOT NULL CHECK (excluded IN (0, 1)),
            seq INTEGER NOT NULL,
            decided_at TEXT NOT NULL,
            PRIMARY KEY (tag_id, paper_id)
        )"""
    )
    db.execute("CREATE INDEX IF NOT EXISTS idx_screening_decisions_paper "
               "ON screening_decisions(paper_id)")


#: The triggers that keep ``identifier_writes`` (version 13).
IDENTIFIER_TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS identifier_added AFTER INSERT ON papers "
    "WHEN NEW.doi IS NOT NULL OR NEW.arxiv_id IS NOT NULL "
    "BEGIN UPDATE identifier_writes SET n = n + 1; END",
    "CREATE TRIGGER IF NOT EXISTS identifier_set AFTER UPDATE OF doi, arxiv_id ON papers "
    "BEGIN UPDATE identifier_writes SET n = n + 1; END",
    "CREATE TRIGGER IF NOT EXISTS identifier_gone AFTER DELETE ON papers "
    "BEGIN UPDATE identifier_writes SET n = n + 1; END",
)


def _v13(db: sqlite_utils.Database) -> None:
    """Add ``identifier_writes`` and its triggers on ``papers``."""
    db.execute("CREATE TABLE IF NOT EXISTS identifier_writes (n INTEGER NOT NULL)")
    db.execute("INSERT INTO identifier_writes (n) SELECT 0 WHERE NOT EXISTS "
               "(SELECT 1 FROM identifier_writes)")
    for statement in IDENTIFIER_TRIGGERS:
        db.execute(statement)


#: MIGRATIONS[i] upgrades a database from version i to version i + 1.
MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1, _v2, _v3, _v4, _v5, _v6,
                                                             _v7, _v8, _v9, _v10, _v11, _v12,
                                                             _v13]
assert len(MIGRATIONS) == SCHEMA_VERSION


def schema_version(db: sqlite_utils.Database) -> int:
    """Return the schema version recorded in the database (0 for a new, empty one)."""
    return db.execute("PRAGMA user_version").fetchone()[0]


def _backup(db: sqlite_utils.Database, backup_dir: Path, version: int) -> Path:
    backup_dir.mkdir(parents=True, exist_ok=True)
    stamp = utc_stamp()
    target = backup_dir / f"library-v{version}-{stamp}.db"
    dest = sqlite3.connect(target)
    try:
        db.conn.backup(dest)
    finally:
        dest.close()
    return target


def migrate(db: sqlite_utils.Database, backup_dir: Path) -> list[int]:
    """Bring ``db`` up to :data:`SCHEMA_VERSION`.

    A database that already has tables is copied to ``backup_dir`` (with SQLite's online
    backup API) before the first step. Each step runs in one transaction with the new
    ``user_version``, so a failed step leaves the database at the previous version.

    Args:
        db: the open library database.
        backup_dir: folder for the pre-migration copy.
    Returns:
        The versions migrated to, e.g. ``[1]`` for a new library, ``[]`` when up to date.
    Raises:
        SchemaError: the database is newer than this program, or a step failed.
    """
    current = schema_version(db)
    if current > SCHEMA_VERSION:
        raise SchemaError(
            f"library schema version {current} is newer than this paperdesk understands "
            f"({SCHEMA_VERSION}); update paperdesk"
        )
    if current == SCHEMA_VERSION:
        return []
    if current > 0:
        _backup(db, backup_dir, current)
    done = []
    for version in range(current, SCHEMA_VERSION):
        try:
            with transaction(db):
                MIGRATIONS[version](db)
                db.execute(f"PRAGMA user_version = {version + 1}")
        except sqlite3.Error as exc:
            raise SchemaError(f"migration to schema version {version + 1} failed: {exc}") from exc
        done.append(version + 1)
    return done
