"""Citation-key aliases (schema 10's ``citation_key_aliases``): the other keys a paper
answers to, kept when an import merges an entry with its own key onto a paper. Pure but
for the database connection the caller passes; no Qt.

A key is one paper's only: no alias is another paper's ``citation_key`` or alias, and
no paper's key is another paper's alias (:func:`paperdesk.core.store.papers.key_taken`
looks at both), so a ``\\cite`` of any of them names one work.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlite_utils

__all__ = ["add_alias", "aliases_of", "aliases_by_paper"]


def add_alias(db: sqlite_utils.Database, paper_id: int, key: str) -> bool:
    """Let paper ``paper_id`` answer to citation key ``key`` too (inside the caller's
    transaction).

    Args:
        db: the library database.
        paper_id: the paper.
        key: a checked citation key (:func:`paperdesk.core.metadata.check_citation_key`).
    Returns:
        True when the alias was added; False when ``key`` is already the paper's key or
        one of its aliases (any case), or is another paper's key or alias (then the
        caller says so: the key stays that paper's).
    """
    row = db.execute("SELECT id FROM papers WHERE citation_key = ? COLLATE NOCASE "
                     "UNION ALL SELECT paper_id FROM citation_key_aliases WHERE alias = ? "
                     "LIMIT 1", [key, key]).fetchone()
    if row is not None:
        return False
    db.conn.execute("INSERT INTO citation_key_aliases (alias, paper_id) VALUES (?, ?)",
                    [key, int(paper_id)])
    return True


def aliases_of(db, paper_id: int) -> tuple[str, ...]:
    """The aliases of one paper, in the order they were added.

    Args:
        db: a ``sqlite_utils.Database`` or ``sqlite3.Connection`` of a library.
        paper_id: the paper.
    Returns:
        Its aliases (``()`` when none).
    """
    return tuple(r[0] for r in db.execute(
        "SELECT alias FROM citation_key_aliases WHERE paper_id = ? ORDER BY rowid",
        [int(paper_id)]))


def aliases_by_paper(db, ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    """The aliases of several papers, in one query.

    Args:
        db: a ``sqlite_utils.Database`` or ``sqlite3.Connection`` of a library.
        ids: paper ids (at most SQLite's bound-variable limit: callers pass chunks).
    Returns:
        ``{paper id: aliases in the order they were added}`` for the papers that have any.
    """
    out: dict[int, list[str]] = {}
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    for pid, alias in db.execute(
            f"SELECT paper_id, alias FROM citation_key_aliases WHERE paper_id IN ({marks}) "
            "ORDER BY rowid", list(ids)):
        out.setdefault(pid, []).append(alias)
    return {pid: tuple(keys) for pid, keys in out.items()}
