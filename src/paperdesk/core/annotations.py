"""Tags, notes, highlights, read and star marks, and title edits: the user's annotations.

:class:`AnnotationsMixin` is part of :class:`paperdesk.core.library.Library`. Every method
changes SQLite in one transaction, queues the touched papers for re-indexing in the same
transaction, and returns what it changed, so that the caller (the GUI's undo stack, the
CLI) can undo it exactly with the matching ``restore_*`` method.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

import sqlite_utils

from . import db as _db
from .models import Highlight, LibraryError, Tag, TagChange, TagState, UnknownPaper

__all__ = ["AnnotationsMixin", "TAG_COLOURS", "HIGHLIGHT_COLOURS", "validate_tag_name",
           "tag_key"]

#: Colours given to new tags in turn (readable as chip backgrounds with dark or light text
#: chosen by contrast; see the UI).
TAG_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
               "#b07aa1", "#9c755f")
#: Highlight colours offered; the first is the default.
HIGHLIGHT_COLOURS = ("#ffe066", "#a5d8ff", "#b2f2bb", "#ffc9c9")
TAG_NAME_MAX = 60
_COLOUR_RE = re.compile(r"#[0-9a-fA-F]{6}")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def validate_tag_name(name: str) -> str:
    """Return the cleaned tag name (white space collapsed, stripped).

    Args:
        name: the name as typed.
    Returns:
        The name to store.
    Raises:
        LibraryError: empty, longer than 60 characters, or containing a comma (commas
            separate tags in the index and in exports).
    """
    clean = " ".join(str(name).split())
    if not clean:
        raise LibraryError("a tag name cannot be empty")
    if len(clean) > TAG_NAME_MAX:
        raise LibraryError(f"tag name too long ({len(clean)} characters; at most {TAG_NAME_MAX})")
    if "," in clean:
        raise LibraryError(f"tag name cannot contain a comma: {clean!r}")
    return clean


def tag_key(name: str) -> str:
    """Return the comparison key of a tag name: white space collapsed, Unicode NFC,
    full case folding (Python's ``str.casefold``: ``Straße`` and ``STRASSE`` are equal)."""
    return unicodedata.normalize("NFC", " ".join(str(name).split())).casefold()


def _check_colour(colour: str) -> str:
    if not _COLOUR_RE.fullmatch(colour or ""):
        raise LibraryError(f"not a colour: {colour!r} (use #rrggbb)")
    return colour.lower()


def _check_key(key: int | None) -> int | None:
    if key is None:
        return None
    if not isinstance(key, int) or not 1 <= key <= 9:
        raise LibraryError(f"a tag key must be a number from 1 to 9, not {key!r}")
    return key


class AnnotationsMixin:
    """Annotation methods of :class:`Library` (needs ``self.db``, ``self._enqueue`` and
    ``self._changed``)."""

    db: sqlite_utils.Database

    # -- helpers -------------------------------------------------------------------------
    def _existing_ids(self, ids: Iterable[int]) -> list[int]:
        ids = list(dict.fromkeys(int(i) for i in ids))
        if not ids:
            return []
        for i in ids:
            if not -(2**63) <= i < 2**63:  # beyond SQLite's INTEGER
                raise UnknownPaper(i)
        found: set[int] = set()
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self.db.execute(
                f"SELECT id FROM papers WHERE id IN ({marks})", chunk))
        missing = [i for i in ids if i not in found]
        if missing:
            raise UnknownPaper(missing[0])
        return ids

    def _tag_row(self, tag_id: int) -> Tag:
        row = self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, count(pt.paper_id) FROM tags t "
            "LEFT JOIN paper_tags pt ON pt.tag_id = t.id WHERE t.id = ? GROUP BY t.id",
            [tag_id]).fetchone()
        if row is None:
            raise LibraryError(f"no tag with id {tag_id}")
        return Tag(*row)

    def tag_by_name(self, name: str) -> Tag | None:
        """Return the tag with this name (compared without regard to case), or ``None``."""
        row = self.db.execute("SELECT id FROM tags WHERE name_key = ?",
                              [tag_key(name)]).fetchone()
        return self._tag_row(row[0]) if row else None

    def _tag_papers(self, tag_id: int) -> list[int]:
        return [r[0] for r in self.db.execute(
            "SELECT paper_id FROM paper_tags WHERE tag_id = ?", [tag_id])]

    # -- tags --------------------------------------------------------------------------
    def tags(self) -> list[Tag]:
        """Return every tag with its paper count, sorted by name without regard to case."""
        return [Tag(*r) for r in self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, count(pt.paper_id) FROM tags t "
            "LEFT JOIN paper_tags pt ON pt.tag_id = t.id GROUP BY t.id "
            "ORDER BY t.name_key")]

    def create_tag(self, name: str, colour: str | None = None, key: int | None = None) -> Tag:
        """Create a tag, or return the existing one with that name (any case).

        Args:
            name: tag name (see :func:`validate_tag_name`).
            colour: ``#rrggbb``; default: the next of :data:`TAG_COLOURS`.
            key: number key 1-9 to bind (taken from any tag that had it), or ``None``.
        Returns:
            The :class:`Tag`.
        Raises:
            LibraryError: bad name, colour or key.
        """
        name = validate_tag_name(name)
        existing = self.tag_by_name(name)
        if existing is not None:
            return existing
        with _db.transaction(self.db) as db:
            n = db.execute("SELECT count(*) FROM tags").fetchone()[0]
            colour = _check_colour(colour) if colour else TAG_COLOURS[n % len(TAG_COLOURS)]
            key = _check_key(key)
            if key is not None:
                db.execute("UPDATE tags SET key = NULL WHERE key = ?", [key])
            tag_id = db.execute(
                "INSERT INTO tags (name, name_key, colour, key) VALUES (?, ?, ?, ?)",
                [name, tag_key(name), colour, key]).lastrowid
        return self._tag_row(tag_id)

    def add_tag(self, paper_ids: Iterable[int], name: str) -> TagChange:
        """Tag papers, creating the tag if needed.

        Args:
            paper_ids: papers to tag (any number; one transaction).
            name: tag name, compared without regard to case.
        Returns:
            :class:`TagChange` listing the papers that did not have the tag before.
        Raises:
            UnknownPaper: an id does not exist (nothing is changed).
            LibraryError: bad tag name.
        """
        ids = self._existing_ids(paper_ids)
        created = self.tag_by_name(validate_tag_name(name)) is None
        with _db.transaction(self.db) as db:
            tag = self.create_tag(name)
            changed = [pid for pid in ids if db.execute(
                "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
                [pid, tag.id]).rowcount]
            self._enqueue(db, changed, "update")
        self._changed()
        return TagChange(self._tag_row(tag.id), tuple(changed), created)

    def remove_tag(self, paper_ids: Iterable[int], name: str) -> TagChange:
        """Remove a tag from papers (the tag itself stays, even with no papers).

        Args:
            paper_ids: papers to untag.
            name: tag name, compared without regard to case.
        Returns:
            :class:`TagChange` listing the papers that had the tag.
        Raises:
            LibraryError: no such tag.
            UnknownPaper: an id does not exist.
        """
        ids = self._existing_ids(paper_ids)
        tag = self.tag_by_name(name)
        if tag is None:
            raise LibraryError(f"no tag named {name!r}")
        with _db.transaction(self.db) as db:
            changed = [pid for pid in ids if db.execute(
                "DELETE FROM paper_tags WHERE paper_id = ? AND tag_id = ?",
                [pid, tag.id]).rowcount]
            self._enqueue(db, changed, "update")
        self._changed()
        return TagChange(self._tag_row(tag.id), tuple(changed))

    def tag_states(self, tag_ids: Iterable[int]) -> list[TagState]:
        """Snapshot tags (name, colour, key and papers) for a later :meth:`restore_tags`.

        Args:
            tag_ids: tags to snapshot; unknown ids are skipped.
        Returns:
            One :class:`TagState` per existing tag.
        """
        out = []
        for tid in tag_ids:
            row = self.db.execute("SELECT id, name, colour, key FROM tags WHERE id = ?",
                                  [tid]).fetchone()
            if row:
                out.append(TagState(*row, frozenset(self._tag_papers(row[0]))))
        return out

    def restore_tags(self, states: Sequence[TagState], drop: Iterable[int] = ()) -> None:
        """Put tags back exactly as snapshotted: same ids, names, colours, keys, papers.

        Args:
            states: from :meth:`tag_states`; tags that no longer exist are re-created with
                their old id.
            drop: tag ids to delete if they are not among ``states`` (tags the undone
                action created).
        """
        keep = {s.id for s in states}
        touched: set[int] = set()
        with _db.transaction(self.db) as db:
            for tid in drop:
                if tid not in keep:
                    touched.update(self._tag_papers(tid))
                    db.execute("DELETE FROM tags WHERE id = ?", [tid])
            # Park names (a comma never occurs in a real name) and keys first, so that
            # swapping them never hits a UNIQUE clash.
            for s in states:
                parked = f"restoring,{s.id}"
                db.execute("INSERT OR IGNORE INTO tags (id, name, name_key, colour) "
                           "VALUES (?, ?, ?, ?)", [s.id, parked, parked, s.colour])
                db.execute("UPDATE tags SET name = ?, name_key = ?, key = NULL WHERE id = ?",
                           [parked, parked, s.id])
            for s in states:
                if s.key is not None:
                    db.execute("UPDATE tags SET key = NULL WHERE key = ?", [s.key])
                db.execute("UPDATE tags SET name = ?, name_key = ?, colour = ?, key = ? "
                           "WHERE id = ?", [s.name, tag_key(s.name), s.colour, s.key, s.id])
                before = set(self._tag_papers(s.id))
                touched.update(before ^ s.paper_ids)
                db.execute("DELETE FROM paper_tags WHERE tag_id = ?", [s.id])
                db.conn.executemany("INSERT INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
                                    [(p, s.id) for p in sorted(s.paper_ids)])
            self._enqueue(db, sorted(touched), "update")
        self._changed()

    def rename_tag(self, tag_id: int, new_name: str) -> Tag:
        """Rename a tag; renaming onto another tag's name merges the two.

        In a merge the other tag keeps its id and takes the new name (as typed), gains
        every paper of this tag, and this tag is deleted. Take :meth:`tag_states` of both
        first to undo.

        Args:
            tag_id: the tag to rename.
            new_name: the new name.
        Returns:
            The resulting :class:`Tag` (the surviving one after a merge).
        Raises:
            LibraryError: no such tag, or a bad name.
        """
        name = validate_tag_name(new_name)
        tag = self._tag_row(tag_id)
        other = self.tag_by_name(name)
        with _db.transaction(self.db) as db:
            if other is None or other.id == tag.id:
                db.execute("UPDATE tags SET name = ?, name_key = ? WHERE id = ?",
                           [name, tag_key(name), tag.id])
                self._enqueue(db, self._tag_papers(tag.id), "update")
                target = tag.id
            else:
                papers = self._tag_papers(tag.id)
                db.conn.executemany(
                    "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
                    [(p, other.id) for p in papers])
                if tag.key is not None and other.key is None:
                    db.execute("UPDATE tags SET key = NULL WHERE id = ?", [tag.id])
                    db.execute("UPDATE tags SET key = ? WHERE id = ?", [tag.key, other.id])
                db.execute("DELETE FROM tags WHERE id = ?", [tag.id])
                db.execute("UPDATE tags SET name = ?, name_key = ? WHERE id = ?",
                           [name, tag_key(name), other.id])
                self._enqueue(db, papers + self._tag_papers(other.id), "update")
                target = other.id
        self._changed()
        return self._tag_row(target)

    def delete_tag(self, tag_id: int) -> TagState:
        """Delete a tag and remove it from every paper.

        Args:
            tag_id: the tag.
        Returns:
            Its :class:`TagState` before deletion (pass to :meth:`restore_tags` to undo).
        Raises:
            LibraryError: no such tag.
        """
        (state,) = self.tag_states([tag_id]) or [None]
        if state is None:
            raise LibraryError(f"no tag with id {tag_id}")
        with _db.transaction(self.db) as db:
            db.execute("DELETE FROM tags WHERE id = ?", [tag_id])
            self._enqueue(db, sorted(state.paper_ids), "update")
        self._changed()
        return state

    def set_tag_colour(self, tag_id: int, colour: str) -> Tag:
        """Recolour a tag. Returns the updated :class:`Tag`; raises LibraryError for a bad
        colour or tag."""
        colour = _check_colour(colour)
        self._tag_row(tag_id)
        with _db.transaction(self.db) as db:
            db.execute("UPDATE tags SET colour = ? WHERE id = ?", [colour, tag_id])
        return self._tag_row(tag_id)

    def set_tag_key(self, tag_id: int, key: int | None) -> Tag:
        """Bind number key 1-9 to a tag (unbinding it from any other tag), or unbind with
        ``None``. Returns the updated :class:`Tag`; raises LibraryError for a bad key or
        tag."""
        key = _check_key(key)
        self._tag_row(tag_id)
        with _db.transaction(self.db) as db:
            if key is not None:
                db.execute("UPDATE tags SET key = NULL WHERE key = ? AND id != ?", [key, tag_id])
            db.execute("UPDATE tags SET key = ? WHERE id = ?", [key, tag_id])
        return self._tag_row(tag_id)

    def tag_for_key(self, key: int) -> Tag | None:
        """Return the tag bound to number key ``key``, or ``None``."""
        row = self.db.execute("SELECT id FROM tags WHERE key = ?", [key]).fetchone()
        return self._tag_row(row[0]) if row else None

    # -- read / star / title -----------------------------------------------------------
    def set_read(self, paper_ids: Iterable[int], read: bool) -> dict[int, str | None]:
        """Mark papers read (now) or unread.

        Args:
            paper_ids: the papers.
            read: True to mark read, False for unread.
        Returns:
            ``{paper_id: previous read_at}`` for every paper (pass to
            :meth:`restore_read` to undo).
        Raises:
            UnknownPaper: an id does not exist (nothing is changed).
        """
        ids = self._existing_ids(paper_ids)
        previous = self._column_values("read_at", ids)
        value = _now() if read else None
        with _db.transaction(self.db) as db:
            changed = [p for p in ids if (previous[p] is None) == read]
            db.conn.executemany("UPDATE papers SET read_at = ? WHERE id = ?",
                                [(value, p) for p in changed])
            self._enqueue(db, changed, "update")
        self._changed()
        return previous

    def restore_read(self, previous: Mapping[int, str | None]) -> None:
        """Set ``read_at`` back to the values returned by :meth:`set_read`."""
        with _db.transaction(self.db) as db:
            db.conn.executemany("UPDATE papers SET read_at = ? WHERE id = ?",
                                [(v, p) for p, v in previous.items()])
            self._enqueue(db, list(previous), "update")
        self._changed()

    def set_starred(self, paper_ids: Iterable[int], starred: bool) -> dict[int, bool]:
        """Star or unstar papers.

        Returns:
            ``{paper_id: previously starred}`` (pass to :meth:`restore_starred` to undo).
        Raises:
            UnknownPaper: an id does not exist.
        """
        ids = self._existing_ids(paper_ids)
        previous = {p: bool(v) for p, v in self._column_values("starred", ids).items()}
        self.restore_starred({p: starred for p in ids})
        return previous

    def restore_starred(self, values: Mapping[int, bool]) -> None:
        """Set the starred flag of each paper to the given value."""
        with _db.transaction(self.db) as db:
            db.conn.executemany("UPDATE papers SET starred = ? WHERE id = ?",
                                [(int(bool(v)), p) for p, v in values.items()])
            self._enqueue(db, list(values), "update")
        self._changed()

    def _column_values(self, column: str, ids: Sequence[int]) -> dict:
        out = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i:i + 500])
            marks = ",".join("?" * len(chunk))
            out.update(self.db.execute(
                f"SELECT id, {column} FROM papers WHERE id IN ({marks})", chunk).fetchall())
        return out

    def set_title(self, paper_id: int, title: str | None) -> str:
        """Give a paper its own title, or go back to the derived one.

        Args:
            paper_id: the paper.
            title: the new title (white space collapsed); ``None`` or blank restores the
                title derived from the abstract.
        Returns:
            The previous title (pass back to undo).
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._existing_ids([paper_id])
        old, derived = self.db.execute(
            "SELECT title, derived_title FROM papers WHERE id = ?", [pid]).fetchone()
        new = " ".join((title or "").split()) or derived
        with _db.transaction(self.db) as db:
            db.execute("UPDATE papers SET title = ? WHERE id = ?", [new, pid])
            self._enqueue(db, [pid], "update")
        self._changed()
        return old

    # -- notes -------------------------------------------------------------------------
    def note(self, paper_id: int) -> str:
        """Return the paper's note ("" when it has none)."""
        row = self.db.execute("SELECT body FROM notes WHERE paper_id = ?",
                              [int(paper_id)]).fetchone()
        return row[0] if row else ""

    def set_note(self, paper_id: int, body: str) -> str:
        """Save a paper's note (plain-text Markdown); an empty or blank body deletes it.

        Args:
            paper_id: the paper.
            body: the whole note text (kept as typed; not normalised).
        Returns:
            The previous note text ("" if there was none), for undo.
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._existing_ids([paper_id])
        old = self.note(pid)
        if body == old:
            return old
        with _db.transaction(self.db) as db:
            if body.strip():
                db.execute(
                    "INSERT INTO notes (paper_id, body, updated_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(paper_id) DO UPDATE SET body = excluded.body, "
                    "updated_at = excluded.updated_at", [pid, body, _now()])
            else:
                db.execute("DELETE FROM notes WHERE paper_id = ?", [pid])
            self._enqueue(db, [pid], "update")
        self._changed()
        return old

    # -- highlights --------------------------------------------------------------------
    def highlights(self, paper_id: int) -> list[Highlight]:
        """Return a paper's highlights ordered by start offset."""
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

    def add_highlight(self, paper_id: int, start: int, end: int,
                      colour: str | None = None, comment: str = "",
                      highlight_id: int | None = None) -> Highlight:
        """Highlight ``abstract[start:end]``.

        Args:
            paper_id: the paper.
            start: character offset (Python string index, code points) of the first
                character.
            end: offset just past the last character; ``start < end <= len(abstract)``.
            colour: ``#rrggbb``; default the first of :data:`HIGHLIGHT_COLOURS`.
            comment: optional comment (indexed for search).
            highlight_id: re-use this id (used by undo to put a removed highlight back).
        Returns:
            The new :class:`Highlight`.
        Raises:
            UnknownPaper: no such paper.
            LibraryError: offsets outside the abstract or empty span, bad colour.
        """
        (pid,) = self._existing_ids([paper_id])
        length = self.db.execute("SELECT length(abstract) FROM papers WHERE id = ?",
                                 [pid]).fetchone()[0]
        if not (0 <= start < end <= length):
            raise LibraryError(f"highlight {start}-{end} is outside the abstract "
                               f"(0-{length}) or empty")
        colour = _check_colour(colour) if colour else HIGHLIGHT_COLOURS[0]
        with _db.transaction(self.db) as db:
            hid = db.execute(
                'INSERT INTO highlights (id, paper_id, start, "end", colour, comment, '
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [highlight_id, pid, start, end, colour, comment or "", _now()]).lastrowid
            self._enqueue(db, [pid], "update")
        self._changed()
        return next(h for h in self.highlights(pid) if h.id == hid)

    def remove_highlight(self, highlight_id: int) -> Highlight:
        """Delete a highlight.

        Returns:
            The removed :class:`Highlight` (re-add it with
            ``add_highlight(h.paper_id, h.start, h.end, h.colour, h.comment, h.id)``).
        Raises:
            LibraryError: no such highlight.
        """
        row = self.db.execute("SELECT paper_id FROM highlights WHERE id = ?",
                              [highlight_id]).fetchone()
        if row is None:
            raise LibraryError(f"no highlight with id {highlight_id}")
        old = next(h for h in self.highlights(row[0]) if h.id == highlight_id)
        with _db.transaction(self.db) as db:
            db.execute("DELETE FROM highlights WHERE id = ?", [highlight_id])
            self._enqueue(db, [old.paper_id], "update")
        self._changed()
        return old

    def set_highlight_comment(self, highlight_id: int, comment: str) -> str:
        """Change a highlight's comment. Returns the previous comment; raises LibraryError
        for an unknown highlight."""
        row = self.db.execute("SELECT paper_id, comment FROM highlights WHERE id = ?",
                              [highlight_id]).fetchone()
        if row is None:
            raise LibraryError(f"no highlight with id {highlight_id}")
        with _db.transaction(self.db) as db:
            db.execute("UPDATE highlights SET comment = ? WHERE id = ?",
                       [comment or "", highlight_id])
            self._enqueue(db, [row[0]], "update")
        self._changed()
        return row[1]

    # -- filters -----------------------------------------------------------------------
    def filter_counts(self) -> dict[str, int]:
        """Return the live counts of the built-in filters: ``all``, ``unread``,
        ``starred``, ``untagged``, ``has_note``."""
        q = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "all": q("SELECT count(*) FROM papers"),
            "unread": q("SELECT count(*) FROM papers WHERE read_at IS NULL"),
            "starred": q("SELECT count(*) FROM papers WHERE starred"),
            "untagged": q("SELECT count(*) FROM papers WHERE id NOT IN "
                          "(SELECT paper_id FROM paper_tags)"),
            "has_note": q("SELECT count(*) FROM notes"),
        }
