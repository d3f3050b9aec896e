"""A paper's note and highlights (``lib.notes``).

Every edit changes SQLite in one transaction with the paper's index-queue row, returns
the :class:`~paperdesk.core.changes.Changes` it made and (unless ``undoable=False``)
records one undo step; the private ``_write_*``, ``_insert_*`` and ``_delete_*``
helpers are what the steps replay (they record nothing).
"""

from __future__ import annotations

from paperdesk.core.store import db as _db
from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.models import Highlight, LibraryError, UnknownPaper
from paperdesk.core.edits.undo import quote
from paperdesk.core.text import replace_surrogates
from paperdesk.core.edits.annotations import HIGHLIGHT_COLOURS, check_colour as _check_colour
from paperdesk.core.manager import Manager

__all__ = ["Notes", "joined_note"]


def joined_note(stored: str, typed: str) -> str:
    """The note ``stored`` with ``typed`` after it: text typed for a paper before its
    stored note was read (the window's note editor takes the keys at once). A non-empty
    stored note that does not end a line gets a line break first, so the typed text
    starts a line of its own instead of running on from the last word.

    Args:
        stored: the paper's note as stored ("" for none).
        typed: what was typed ("" for nothing).
    Returns:
        ``stored + "\n" + typed``, or without the line break when ``stored`` is empty or
        ends with one, or ``stored`` alone when nothing was typed.
    """
    if not typed:
        return stored
    if stored and not stored.endswith("\n"):
        return f"{stored}\n{typed}"
    return stored + typed


class Notes(Manager):
    """A paper's note and highlights: ``lib.notes`` (see the module)."""

    def get(self, paper_id: int) -> str:
        """Return the paper's note ("" when it has none, or no such paper)."""
        if not _db.fits_integer(paper_id):     # no paper
            return ""
        row = self.db.execute("SELECT body FROM notes WHERE paper_id = ?",
                              [int(paper_id)]).fetchone()
        return row[0] if row else ""

    def _write_note(self, pid: int, body: str) -> Changes:
        with _db.transaction(self.db) as db:
            if body.strip():
                db["notes"].upsert({"paper_id": pid, "body": body, "updated_at": _now()},
                                   pk="paper_id")
            else:
                db["notes"].delete_where("paper_id = ?", [pid])
            self._lib.index.enqueue(db, [pid], "update")
        self._lib.after_change()
        return Changes.of(papers=[pid], fields=["note"], notes=[pid])

    def set(self, paper_id: int, body: str, undoable: bool = True,
                 session: object = None) -> Changes:
        """Save a paper's note (plain-text Markdown); an empty or blank body deletes it.

        Consecutive saves of one paper's note with the same ``session`` are one undo
        step (the note editor saves while the user types).

        Args:
            paper_id: the paper.
            body: the whole note text (kept as typed, not normalised; only a lone
                surrogate, which has no UTF-8 form, becomes U+FFFD).
            undoable: record an undo step ("Edit note").
            session: the editing session (any hashable; ``None`` merges with the previous
                save of this paper's note).
        Returns:
            :class:`Changes` (empty when the text is unchanged).
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._lib.papers.existing_ids([paper_id])
        body = replace_surrogates(body)
        old = self.get(pid)
        if body == old:
            return NO_CHANGES
        changes = self._write_note(pid, body)
        return self._lib.record("Edit note", changes, lambda: self._write_note(pid, old),
                            lambda: self._write_note(pid, body),
                            merge_key=("note", pid, session), undoable=undoable,
                            before=old, after=body)

    def append(self, paper_id: int, typed: str, undoable: bool = True) -> Changes:
        """Add ``typed`` after the paper's stored note (:func:`joined_note`), reading and
        writing it in one transaction: text typed for a paper whose note the typist never
        saw (the window took the keys before the paper was read, and the user moved on
        before it came). An edit of its own ("Edit note"), undone on its own.

        Args:
            paper_id: the paper.
            typed: the text to add ("" or blank: nothing changes).
            undoable: record an undo step.
        Returns:
            :class:`Changes` (empty when nothing was added).
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._lib.papers.existing_ids([paper_id])
        typed = replace_surrogates(typed)
        if not typed.strip():
            return NO_CHANGES
        with _db.transaction(self.db):     # the stored note cannot change in between
            old = self.get(pid)
            body = joined_note(old, typed)
            changes = self._write_note(pid, body)
        return self._lib.record("Edit note", changes, lambda: self._write_note(pid, old),
                                lambda: self._write_note(pid, body),
                                undoable=undoable,
                                before=old, after=body)

    def highlights(self, paper_id: int) -> list[Highlight]:
        """Return a paper's highlights ordered by start offset."""
        if not _db.fits_integer(paper_id):
            raise UnknownPaper(paper_id)
        abstract = self.db.execute("SELECT abstract FROM papers WHERE id = ?",
                                   [int(paper_id)]).fetchone()
        if abstract is None:
            raise UnknownPaper(paper_id)
        return [
            Highlight(r[0], r[1], r[2], r[3], r[4], r[5], abstract[0][r[2]:r[3]], r[6])
            for r in self.db.execute(
                'SELECT id, paper_id, start, "end", colour, comment, created_at '
                "FROM highlights WHERE paper_id = ? ORDER BY start, id", [int(paper_id)])
        ]

    def highlight(self, highlight_id: int) -> Highlight:
        """Return one highlight.

        Raises:
            LibraryError: no such highlight.
        """
        row = self.db.execute("SELECT paper_id FROM highlights WHERE id = ?",
                              [highlight_id]).fetchone()
        if row is None:
            raise LibraryError(f"no highlight with id {highlight_id}")
        return next(h for h in self.highlights(row[0]) if h.id == highlight_id)

    def _insert_highlight(self, pid: int, start: int, end: int, colour: str, comment: str,
                          highlight_id: int | None, created_at: str | None = None) -> int:
        with _db.transaction(self.db) as db:
            hid = db["highlights"].insert({
                "id": highlight_id, "paper_id": pid, "start": start, "end": end,
                "colour": colour, "comment": comment or "",
                "created_at": created_at or _now()}).last_pk
            self._lib.index.enqueue(db, [pid], "update")
        self._lib.after_change()
        return hid

    def _delete_highlight(self, highlight_id: int) -> Highlight:
        old = self.highlight(highlight_id)
        with _db.transaction(self.db) as db:
            db["highlights"].delete(highlight_id)
            self._lib.index.enqueue(db, [old.paper_id], "update")
        self._lib.after_change()
        return old

    def add_highlight(self, paper_id: int, start: int, end: int,
                      colour: str | None = None, comment: str = "",
                      undoable: bool = True) -> Changes:
        """Highlight ``abstract[start:end]``.

        Args:
            paper_id: the paper.
            start: character offset (Python string index, code points) of the first
                character.
            end: offset just past the last character; ``start < end <= len(abstract)``.
            colour: ``#rrggbb``; default the first of :data:`HIGHLIGHT_COLOURS`.
            comment: optional comment (indexed for search).
            undoable: record an undo step ("Highlight ‘text’").
        Returns:
            :class:`Changes`; the new highlight is the last of
            ``highlights(paper_id)`` by id (see :meth:`highlight_at`).
        Raises:
            UnknownPaper: no such paper.
            LibraryError: offsets outside the abstract or empty span, bad colour.
        """
        (pid,) = self._lib.papers.existing_ids([paper_id])
        length = self.db.execute("SELECT length(abstract) FROM papers WHERE id = ?",
                                 [pid]).fetchone()[0]
        if not (0 <= start < end <= length):
            raise LibraryError(f"highlight {start}-{end} is outside the abstract "
                               f"(0-{length}) or empty")
        colour = _check_colour(colour) if colour else HIGHLIGHT_COLOURS[0]
        hid = self._insert_highlight(pid, start, end, colour, comment, None)
        added = self.highlight(hid)
        changes = Changes.of(papers=[pid], fields=["highlights"], highlights=[pid])

        def undo() -> Changes:
            self._delete_highlight(hid)
            return changes

        def redo() -> Changes:
            self._insert_highlight(pid, start, end, colour, comment, hid, added.created_at)
            return changes

        return self._lib.record(f"Highlight {quote(added.text, 30)}", changes, undo, redo,
                            undoable=undoable)

    def highlight_at(self, paper_id: int, start: int, end: int) -> Highlight | None:
        """Return the newest highlight of ``paper_id`` spanning exactly ``start:end``."""
        found = [h for h in self.highlights(paper_id) if (h.start, h.end) == (start, end)]
        return max(found, key=lambda h: h.id) if found else None

    def remove_highlight(self, highlight_id: int, undoable: bool = True) -> Changes:
        """Delete a highlight; undo puts it back with the same id.

        Args:
            highlight_id: the highlight.
            undoable: record an undo step ("Remove highlight ‘text’").
        Returns:
            :class:`Changes`.
        Raises:
            LibraryError: no such highlight.
        """
        old = self._delete_highlight(highlight_id)
        pid = old.paper_id
        changes = Changes.of(papers=[pid], fields=["highlights"], highlights=[pid])

        def undo() -> Changes:
            self._insert_highlight(pid, old.start, old.end, old.colour, old.comment, old.id,
                                   old.created_at)
            return changes

        def redo() -> Changes:
            self._delete_highlight(old.id)
            return changes

        return self._lib.record(f"Remove highlight {quote(old.text, 30)}", changes, undo, redo,
                            undoable=undoable)

    def _write_highlight_comment(self, highlight_id: int, comment: str) -> None:
        h = self.highlight(highlight_id)
        with _db.transaction(self.db) as db:
            db["highlights"].update(highlight_id, {"comment": comment or ""})
            self._lib.index.enqueue(db, [h.paper_id], "update")
        self._lib.after_change()

    def set_highlight_comment(self, highlight_id: int, comment: str,
                              undoable: bool = True) -> Changes:
        """Change a highlight's comment.

        Args:
            highlight_id: the highlight.
            comment: the new comment ("" for none).
            undoable: record an undo step ("Edit highlight comment").
        Returns:
            :class:`Changes` (empty when the comment is unchanged).
        Raises:
            LibraryError: no such highlight.
        """
        h = self.highlight(highlight_id)
        comment = comment or ""
        if comment == h.comment:
            return NO_CHANGES
        self._write_highlight_comment(highlight_id, comment)
        changes = Changes.of(papers=[h.paper_id], fields=["highlights"],
                             highlights=[h.paper_id])

        def undo() -> Changes:
            self._write_highlight_comment(highlight_id, h.comment)
            return changes

        def redo() -> Changes:
            self._write_highlight_comment(highlight_id, comment)
            return changes

        return self._lib.record("Edit highlight comment", changes, undo, redo,
                            undoable=undoable)
