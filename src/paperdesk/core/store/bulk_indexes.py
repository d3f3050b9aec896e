"""Secondary indexes of ``papers`` built after a bulk import instead of per insert
(issue 28: storing a million abstracts).

Two indexes of ``papers`` are written at a random place by every insert and are not
read by an import while it stores: the title's (``idx_papers_title``, for sorting the
list by title) and the citation key's (``idx_papers_citation_key``, unique without
regard to case). A large import into a small library drops them before it stores and
builds them again after (one sort each, :func:`restore`), in a ``finally``: a cancelled
or failed import leaves them in place too. The indexes the import's own look-ups need
stay: ``content_hash`` (a table constraint, never dropped), ``paper_sources``'s, and
``merged_hashes``'s; DOIs and arXiv ids are looked up in memory
(:class:`~paperdesk.core.imports.records.Identifiers`).

**When** (:func:`worth_deferring`): the import brings at least
:data:`DEFER_MIN_ABSTRACTS` abstracts and at least as many as the library holds. Then
building both indexes anew (a sort of the library's and the new titles and keys) costs
less than writing the new entries one by one at random places of indexes at least as
large; a second import into a big library keeps them (an import of 10,000 into
300,000 papers does not rebuild 310,000 entries). An import that edits may wait behind
(the window's: :meth:`~paperdesk.core.imports.pipeline.Imports.run` given ``hurry``)
defers nothing: building the title index over a million papers holds the write lock
for 4-8 s, and a star pressed then waited for all of it (8.4 s in the window's
million-record arXiv import). For arXiv records deferring was measured to save nothing
(their reading is the cost); a text file imported through the window pays the inserts
into both indexes instead.

**Which**: the citation key's only when every file of the import is a text file (a
Daily Papers or plain text file: each new paper gets the automatic key ``word_<id>``,
unique by its id, and checks no key); an import with records (BibTeX, RIS, CSL-JSON,
arXiv metadata, a paperdesk export) checks each key it gives against the others
(:func:`~paperdesk.core.store.papers.key_taken`), which needs the index, so it keeps
that one and defers the title's only.

Meanwhile the database stays correct: readers (the window's list, another process)
read as before, a query that would have used a dropped index reads the table instead
(slower, same rows). A key set while the index is missing (a user's edit between two
batches) is checked by :func:`~paperdesk.core.store.papers.key_taken` all the same; the
one clash the unique index would have refused, an automatic ``word_<id>`` that a user
typed before the import reached that id, is settled when the index is built again: the
newer automatic key gets a suffix (``word_<id>a``), as an insert with the index does
(:func:`~paperdesk.core.store.papers.insert_paper`).

A process killed while the indexes are dropped leaves them missing: the next open for
writing builds them (:func:`restore`, called by :class:`~paperdesk.core.library.Library`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

import sqlite_utils

__all__ = ["DEFERRABLE", "DEFER_MIN_ABSTRACTS", "TITLE_INDEX", "KEY_INDEX", "missing",
           "restore", "deferred", "worth_deferring"]

TITLE_INDEX = "idx_papers_title"
KEY_INDEX = "idx_papers_citation_key"

#: The deferrable indexes and the statements that build them (as the schema's
#: migrations made them, :mod:`paperdesk.core.store.schema`).
DEFERRABLE: dict[str, str] = {
    TITLE_INDEX: "CREATE INDEX IF NOT EXISTS idx_papers_title ON papers(title COLLATE NOCASE)",
    KEY_INDEX: "CREATE UNIQUE INDEX IF NOT EXISTS idx_papers_citation_key "
               "ON papers(citation_key COLLATE NOCASE)",
}

#: Fewest abstracts an import brings for its indexes to be built after it (below, the
#: indexes of a small library fit SQLite's cache and an insert into them is cheap).
DEFER_MIN_ABSTRACTS = 20_000


def worth_deferring(papers_before: int, incoming: int) -> bool:
    """The rule of the module: whether an import of about ``incoming`` abstracts into
    a library of ``papers_before`` papers builds the indexes after it.

    Args:
        papers_before: papers in the library before the import.
        incoming: abstracts and records the import brings (estimated for a streamed
            file).
    Returns:
        ``incoming >= DEFER_MIN_ABSTRACTS and incoming >= papers_before``.
    """
    return incoming >= DEFER_MIN_ABSTRACTS and incoming >= papers_before


def missing(db: sqlite_utils.Database) -> list[str]:
    """The deferrable indexes that ``db`` lacks (names, in :data:`DEFERRABLE`'s order);
    ``[]`` for a database without a ``papers`` table with a ``citation_key`` column (not
    migrated yet)."""
    if "citation_key" not in db["papers"].columns_dict:
        return []
    have = {name for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'papers'")}
    return [name for name in DEFERRABLE if name not in have]


def restore(db: sqlite_utils.Database, first_new_id: int | None = None) -> list[str]:
    """Build the deferrable indexes that ``db`` lacks, each in its own transaction.

    Before the unique index of citation keys is built, any two papers whose keys are
    equal without regard to case (possible only while it was missing) are told apart:
    the paper whose key is its automatic ``..._<id>`` key and that came later (from
    ``first_new_id`` on, or the higher id) gets the first free suffixed key
    (:func:`~paperdesk.core.metadata.unique_key`: ``word_12a``).

    Args:
        db: a database opened by :func:`~paperdesk.core.store.db.connect` (outside any
            transaction).
        first_new_id: the first id the import gave (a clash is settled on the newer
            paper); ``None``: on the higher id of the two.
    Returns:
        The names of the indexes built (``[]`` when none was missing).
    Raises:
        sqlite3.Error: the database failed (an index that was built stays).
    """
    from paperdesk.core.store.db import transaction

    built = []
    for name in missing(db):
        if name == KEY_INDEX:
            _build_key_index(db, first_new_id)
        else:
            with transaction(db):
                db.execute(DEFERRABLE[name])
        built.append(name)
    return built


def _build_key_index(db: sqlite_utils.Database, first_new_id: int | None) -> None:
    """Build the unique citation-key index, settling clashes first (see :func:`restore`)."""
    from paperdesk.core.store.db import transaction

    try:
        with transaction(db):
            db.execute(DEFERRABLE[KEY_INDEX])
        return
    except sqlite3.IntegrityError:
        pass
    from paperdesk.core.metadata import unique_key
    from paperdesk.core.store.papers import key_taken

    with transaction(db):
        # A plain index for the look-ups below, then the unique one in its place.
        db.execute("CREATE INDEX IF NOT EXISTS idx_papers_citation_key_settling "
                   "ON papers(citation_key COLLATE NOCASE)")
        clashes = db.execute(
            "SELECT p.id, p.citation_key FROM papers p WHERE p.citation_key IS NOT NULL "
            "AND EXISTS (SELECT 1 FROM papers q WHERE q.citation_key = p.citation_key "
            "COLLATE NOCASE AND q.id != p.id) ORDER BY p.id").fetchall()
        groups: dict[str, list[tuple[int, str]]] = {}
        for pid, key in clashes:
            groups.setdefault(key.casefold(), []).append((pid, key))
        for members in groups.values():
            # Keep the key on one paper: a key that is not automatic, else the oldest.
            def settled_first(member: tuple[int, str]) -> tuple:
                pid, key = member
                automatic = key.endswith(f"_{pid}")
                new = first_new_id is not None and pid >= first_new_id
                return (automatic and new, automatic, pid)

            members.sort(key=settled_first)
            for pid, key in members[1:]:
                fresh = unique_key(key, lambda k, pid=pid: key_taken(db, k, pid))
                db.execute("UPDATE papers SET citation_key = ? WHERE id = ?", [fresh, pid])
        db.execute("DROP INDEX idx_papers_citation_key_settling")
        db.execute(DEFERRABLE[KEY_INDEX])


@contextlib.contextmanager
def deferred(db: sqlite_utils.Database, names: tuple[str, ...]) -> Iterator[list[str]]:
    """Drop the indexes ``names`` (those of :data:`DEFERRABLE` that exist) for the
    body, then build every missing deferrable index again (:func:`restore`), also when
    the body raises or is cancelled.

    Args:
        db: a database opened by :func:`~paperdesk.core.store.db.connect` (outside any
            transaction).
        names: names of :data:`DEFERRABLE` indexes; ``()`` drops nothing (and still
            builds any that were missing).
    Yields:
        The names dropped.
    Raises:
        sqlite3.Error: dropping or building failed (what the body raised comes first).
    """
    from paperdesk.core.store.db import transaction

    first_new_id = (db.execute("SELECT max(id) FROM papers").fetchone()[0] or 0) + 1
    dropped = [name for name in names if name in DEFERRABLE and name not in missing(db)]
    if dropped:
        with transaction(db):
            for name in dropped:
                db.execute(f"DROP INDEX IF EXISTS {name}")
    try:
        yield dropped
    finally:
        restore(db, first_new_id)
