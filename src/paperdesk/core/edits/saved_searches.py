"""Saved searches: named queries, stored as plain rows in SQLite (``saved_searches``)."""

from __future__ import annotations


from paperdesk.core.store import db as _db
from paperdesk.core.edits.annotations import tag_key
from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.clock import utc_now
from paperdesk.core.models import LibraryError, SavedSearch
from paperdesk.core.edits.undo import quote
from paperdesk.core.search.query import MAX_QUERY_CHARS
from paperdesk.core.terminal_text import first_control
from paperdesk.core.text import replace_surrogates
from paperdesk.core.manager import Manager

__all__ = ["SavedSearches", "SAVED_NAME_MAX"]

SAVED_NAME_MAX = 80


def _clean_name(name: str) -> str:
    clean = replace_surrogates(" ".join(str(name).split()))
    if not clean:
        raise LibraryError("a saved search needs a name")
    control = first_control(clean)
    if control:
        raise LibraryError(f"a saved-search name cannot contain control characters "
                           f"({control})")
    if len(clean) > SAVED_NAME_MAX:
        raise LibraryError(f"saved-search name too long ({len(clean)} characters; "
                           f"at most {SAVED_NAME_MAX})")
    return clean


class SavedSearches(Manager):
    """Saved searches: ``lib.saved_searches`` (see the module)."""

    def all(self) -> list[SavedSearch]:
        """Return every saved search, sorted by name without regard to case."""
        return [SavedSearch(*r) for r in self.db.execute(
            "SELECT id, name, query, created_at FROM saved_searches "
            "ORDER BY name_key")]

    def get(self, name: str) -> SavedSearch:
        """Return the saved search with this name (any case).

        Raises:
            LibraryError: there is none.
        """
        row = self.db.execute("SELECT id, name, query, created_at FROM saved_searches "
                              "WHERE name_key = ?", [tag_key(name)]).fetchone()
        if row is None:
            raise LibraryError(f"no saved search named {name!r}")
        return SavedSearch(*row)

    def _put_saved(self, name: str, query: str) -> Changes:
        now = utc_now()
        with _db.transaction(self.db) as db:
            db.execute("INSERT INTO saved_searches (name, name_key, query, created_at) "
                       "VALUES (?, ?, ?, ?) ON CONFLICT(name_key) DO UPDATE SET "
                       "name = excluded.name, query = excluded.query",
                       [name, tag_key(name), query, now])
        return Changes(saved_searches=True)

    def _drop_saved(self, name: str) -> Changes:
        with _db.transaction(self.db) as db:
            db["saved_searches"].delete_where("name_key = ?", [tag_key(name)])
        return Changes(saved_searches=True)

    def _rename_saved(self, old: str, new: str) -> Changes:
        with _db.transaction(self.db) as db:
            db.execute("UPDATE saved_searches SET name = ?, name_key = ? WHERE name_key = ?",
                       [new, tag_key(new), tag_key(old)])
        return Changes(saved_searches=True)

    def save(self, name: str, query: str, undoable: bool = True) -> Changes:
        """Save ``query`` under ``name``; an existing search with that name (any case) is
        replaced (undo brings it back).

        Args:
            name: 1-80 characters (white space collapsed).
            query: the query text as typed (not empty).
            undoable: record an undo step ("Save search ‘name’").
        Returns:
            :class:`Changes` with ``saved_searches`` set (empty when the same name
            already held the same query).
        Raises:
            LibraryError: empty or too long name, or empty query.
        """
        name = _clean_name(name)
        query = replace_surrogates(query)
        if not query.strip():
            raise LibraryError("cannot save an empty query")
        if len(query) > MAX_QUERY_CHARS:
            raise LibraryError(f"query too long to save ({len(query)} characters; "
                               f"at most {MAX_QUERY_CHARS})")
        try:
            previous: SavedSearch | None = self.get(name)
        except LibraryError:
            previous = None
        if previous is not None and (previous.name, previous.query) == (name, query):
            return NO_CHANGES
        changes = self._put_saved(name, query)

        def undo() -> Changes:
            self._drop_saved(name)
            if previous is not None:
                self._put_saved(previous.name, previous.query)
            return changes

        return self._lib.record(f"Save search {quote(name)}", changes, undo,
                            lambda: self._put_saved(name, query), undoable=undoable)

    def rename(self, old: str, new: str, undoable: bool = True) -> Changes:
        """Rename a saved search.

        Args:
            old: its current name (any case).
            new: the new name.
            undoable: record an undo step ("Rename saved search ‘a’ to ‘b’").
        Returns:
            :class:`Changes` (empty when the name stays the same).
        Raises:
            LibraryError: no search named ``old``, a bad new name, or another search
                already has the new name.
        """
        current = self.get(old)
        new = _clean_name(new)
        other = self.db.execute("SELECT id FROM saved_searches WHERE name_key = ?",
                                [tag_key(new)]).fetchone()
        if other is not None and other[0] != current.id:
            raise LibraryError(f"a saved search named {new!r} already exists")
        if new == current.name:
            return NO_CHANGES
        changes = self._rename_saved(current.name, new)
        return self._lib.record(f"Rename saved search {quote(current.name)} to {quote(new)}",
                            changes, lambda: self._rename_saved(new, current.name),
                            lambda: self._rename_saved(current.name, new),
                            undoable=undoable)

    def delete(self, name: str, undoable: bool = True) -> Changes:
        """Delete a saved search (undo saves it again).

        Args:
            name: its name (any case).
            undoable: record an undo step ("Delete saved search ‘name’").
        Returns:
            :class:`Changes` with ``saved_searches`` set.
        Raises:
            LibraryError: no such saved search.
        """
        current = self.get(name)
        changes = self._drop_saved(current.name)
        return self._lib.record(f"Delete saved search {quote(current.name)}", changes,
                            lambda: self._put_saved(current.name, current.query),
                            lambda: self._drop_saved(current.name), undoable=undoable)
