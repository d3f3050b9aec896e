"""Saved searches: named queries, stored as plain rows in SQLite (``saved_searches``)."""

from __future__ import annotations

import datetime as _dt

import sqlite_utils

from . import db as _db
from .annotations import tag_key
from .models import LibraryError, SavedSearch
from .query import MAX_QUERY_CHARS

__all__ = ["SavedSearchesMixin", "SAVED_NAME_MAX"]

SAVED_NAME_MAX = 80


def _clean_name(name: str) -> str:
    clean = " ".join(str(name).split())
    if not clean:
        raise LibraryError("a saved search needs a name")
    if len(clean) > SAVED_NAME_MAX:
        raise LibraryError(f"saved-search name too long ({len(clean)} characters; "
                           f"at most {SAVED_NAME_MAX})")
    return clean


class SavedSearchesMixin:
    """Saved-search methods of :class:`paperdesk.core.library.Library`."""

    db: sqlite_utils.Database

    def saved_searches(self) -> list[SavedSearch]:
        """Return every saved search, sorted by name without regard to case."""
        return [SavedSearch(*r) for r in self.db.execute(
            "SELECT id, name, query, created_at FROM saved_searches "
            "ORDER BY name_key")]

    def saved_search(self, name: str) -> SavedSearch:
        """Return the saved search with this name (any case).

        Raises:
            LibraryError: there is none.
        """
        row = self.db.execute("SELECT id, name, query, created_at FROM saved_searches "
                              "WHERE name_key = ?", [tag_key(name)]).fetchone()
        if row is None:
            raise LibraryError(f"no saved search named {name!r}")
        return SavedSearch(*row)

    def save_search(self, name: str, query: str) -> SavedSearch:
        """Save ``query`` under ``name``; an existing search with that name (any case) is
        replaced.

        Args:
            name: 1-80 characters (white space collapsed).
            query: the query text as typed (not empty).
        Returns:
            The :class:`SavedSearch`.
        Raises:
            LibraryError: empty or too long name, or empty query.
        """
        name = _clean_name(name)
        if not query.strip():
            raise LibraryError("cannot save an empty query")
        if len(query) > MAX_QUERY_CHARS:
            raise LibraryError(f"query too long to save ({len(query)} characters; "
                               f"at most {MAX_QUERY_CHARS})")
        now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        with _db.transaction(self.db) as db:
            db.execute("INSERT INTO saved_searches (name, name_key, query, created_at) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT(name_key) DO UPDATE SET "
                       "name = excluded.name, query = excluded.query",
                       [name, tag_key(name), query, now])
        return self.saved_search(name)

    def rename_saved_search(self, old: str, new: str) -> SavedSearch:
        """Rename a saved search.

        Raises:
            LibraryError: no search named ``old``, a bad new name, or another search
                already has the new name.
        """
        current = self.saved_search(old)
        new = _clean_name(new)
        other = self.db.execute("SELECT id FROM saved_searches WHERE name_key = ?",
                                [tag_key(new)]).fetchone()
        if other is not None and other[0] != current.id:
            raise LibraryError(f"a saved search named {new!r} already exists")
        with _db.transaction(self.db) as db:
            db.execute("UPDATE saved_searches SET name = ?, name_key = ? WHERE id = ?",
                       [new, tag_key(new), current.id])
        return self.saved_search(new)

    def delete_saved_search(self, name: str) -> SavedSearch:
        """Delete a saved search. Returns what was deleted (save it again to undo).

        Raises:
            LibraryError: no such saved search.
        """
        current = self.saved_search(name)
        with _db.transaction(self.db) as db:
            db.execute("DELETE FROM saved_searches WHERE id = ?", [current.id])
        return current
