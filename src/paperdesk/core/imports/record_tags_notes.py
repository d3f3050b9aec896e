"""A record's keywords stored as the paper's tags and its notes as the paper's note, inside
the import's transaction (:func:`paperdesk.core.imports.records.store_records`). Pure
but for the database connection the caller passes; no Qt.

Keywords: each becomes a tag, created when the library has none of that name (compared
as :func:`~paperdesk.core.edits.annotations.tag_key` compares: case and white space do
not count), with the next of :data:`~paperdesk.core.edits.annotations.TAG_COLOURS`; a
paper already there gains the tags it lacks. A keyword that cannot be a tag name (over
:data:`~paperdesk.core.edits.annotations.TAG_NAME_MAX` characters, control characters)
is left out with a note naming the record.

Notes: a paper has one note (the ``notes`` table); a record's notes are added to it, each
as a paragraph of its own, unless its text (white space aside) is in the note already,
so importing a file again, or an export of the paper itself, adds nothing.
"""

from __future__ import annotations

import sqlite_utils

from paperdesk.core.edits.annotations import TAG_COLOURS, tag_key, validate_tag_name
from paperdesk.core.models import LibraryError

__all__ = ["TagsAndNotes"]


def _words(text: str) -> str:
    return " ".join(text.split())


class TagsAndNotes:
    """Stores records' keywords and notes on their papers, one transaction at a time
    (the tag ids found are remembered for that transaction only: build one per
    transaction).

    Args:
        db: the library database, inside the caller's transaction.
        keywords: store keywords as tags (``False``: leave them out, as
            ``paperdesk import --no-keywords`` and the import dialog's check box ask).
    """

    def __init__(self, db: sqlite_utils.Database, keywords: bool = True):
        self.db = db
        self.keywords = keywords
        self._tag_ids: dict[str, int] = {}

    def _tag_id(self, name: str) -> int:
        key = tag_key(name)
        found = self._tag_ids.get(key)
        if found is not None:
            return found
        row = self.db.execute("SELECT id FROM tags WHERE name_key = ?", [key]).fetchone()
        if row is None:
            count = self.db.execute("SELECT count(*) FROM tags").fetchone()[0]
            found = self.db.execute(
                "INSERT INTO tags (name, name_key, colour, key) VALUES (?, ?, ?, NULL)",
                [name, key, TAG_COLOURS[count % len(TAG_COLOURS)]]).lastrowid
        else:
            found = row[0]
        self._tag_ids[key] = found
        return found

    def store(self, pid: int, label: str, keywords: tuple[str, ...], notes: tuple[str, ...],
              now: str, warnings: list[str]) -> bool:
        """Give paper ``pid`` the record's keywords as tags and its notes.

        Args:
            pid: the paper (new, or the one the record was merged onto).
            label: how notes name the record (``"entry smith2020"``).
            keywords: the record's keywords (:attr:`Record.keywords`).
            notes: the record's notes (:attr:`Record.notes`).
            now: ISO 8601 UTC time of the import (the note's ``updated_at``).
            warnings: a one-line note is added for each keyword left out.
        Returns:
            Whether the paper gained a tag or note text.
        """
        changed = False
        for word in keywords if self.keywords else ():
            try:
                name = validate_tag_name(word)
            except LibraryError as exc:
                warnings.append(f"{label}: keyword {word[:80]!r} left out ({exc})")
                continue
            changed |= bool(self.db.execute(
                "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
                [pid, self._tag_id(name)]).rowcount)
        if not notes:
            return changed
        row = self.db.execute("SELECT body FROM notes WHERE paper_id = ?", [pid]).fetchone()
        body = row[0] if row else ""
        for text in notes:
            if _words(text) not in _words(body):
                body = body.rstrip() + "\n\n" + text if body.strip() else text
        if body != (row[0] if row else ""):
            self.db.execute("INSERT INTO notes (paper_id, body, updated_at) VALUES (?, ?, ?) "
                            "ON CONFLICT (paper_id) DO UPDATE SET body = excluded.body, "
                            "updated_at = excluded.updated_at", [pid, body, now])
            changed = True
        return changed
