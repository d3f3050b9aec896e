"""Tags, notes, highlights, read and star marks, and title edits: the user's annotations.

:class:`AnnotationsMixin` is part of :class:`paperdesk.core.library.Library`. Every
mutation changes SQLite in one transaction, queues the touched papers for re-indexing in
the same transaction, returns the :class:`~paperdesk.core.changes.Changes` it made and
(unless ``undoable=False``) records one :class:`~paperdesk.core.edits.undo.UndoStep` on the
library's undo stack, so :meth:`Library.undo` reverses it exactly. The private
``_restore_tags``, ``_write_*`` and ``_insert_*`` helpers are what the steps replay; they
record nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence

import sqlite_utils

from paperdesk.core.store import db as _db
from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.models import Highlight, LibraryError, Tag, TagState, UnknownPaper
from paperdesk.core.edits.undo import count_label, papers_label, quote
from paperdesk.core.terminal_text import first_control
from paperdesk.core.text import replace_surrogates

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


def validate_tag_name(name: str) -> str:
    """Return the cleaned tag name (white space collapsed, stripped, a lone surrogate
    made U+FFFD as :func:`paperdesk.core.text.replace_surrogates` does).

    Args:
        name: the name as typed.
    Returns:
        The name to store.
    Raises:
        LibraryError: empty, longer than 60 characters, containing a comma (commas
            separate tags in the index and in exports) or a control character (such as
            ESC, which would act on a terminal that prints the name).
    """
    clean = replace_surrogates(" ".join(str(name).split()))
    if not clean:
        raise LibraryError("a tag name cannot be empty")
    control = first_control(clean)
    if control:
        raise LibraryError(f"a tag name cannot contain control characters ({control})")
    if len(clean) > TAG_NAME_MAX:
        raise LibraryError(f"tag name too long ({len(clean)} characters; at most {TAG_NAME_MAX})")
    if "," in clean:
        raise LibraryError(f"tag name cannot contain a comma: {clean!r}")
    return clean


def tag_key(name: str) -> str:
    """Return the comparison key of a tag name: white space collapsed, Unicode NFC,
    full case folding (Python's ``str.casefold``: ``Straße`` and ``STRASSE`` are equal)."""
    return unicodedata.normalize("NFC", " ".join(str(name).split())).casefold()


def check_colour(colour: str) -> str:
    """Return a tag or highlight colour lower-cased.

    Args:
        colour: ``#rrggbb``.
    Returns:
        The colour, lower-cased.
    Raises:
        LibraryError: not ``#rrggbb`` (one line).
    """
    if not isinstance(colour, str) or not _COLOUR_RE.fullmatch(colour or ""):
        raise LibraryError(f"not a colour: {colour!r} (use #rrggbb)")
    return colour.lower()


_check_colour = check_colour


def _check_key(key: int | None) -> int | None:
    if key is None:
        return None
    if not isinstance(key, int) or not 1 <= key <= 9:
        raise LibraryError(f"a tag key must be a number from 1 to 9, not {key!r}")
    return key


class AnnotationsMixin:
    """Annotation methods of :class:`Library` (needs ``self.db``, ``self._enqueue``,
    ``self._changed`` and ``self._record``)."""

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
        # One count per tag on the covering index idx_paper_tags_tag (a join with GROUP BY
        # walked every tagging and sorted: 14 ms vs 3 ms at 100,000 papers, 4 tags).
        return [Tag(*r) for r in self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, "
            "(SELECT count(*) FROM paper_tags pt WHERE pt.tag_id = t.id) FROM tags t "
            "ORDER BY t.name_key")]

    def ensure_tag(self, name: str, colour: str | None = None,
                   key: int | None = None) -> Tag:
        """Return the tag with this name (any case), creating it if missing; not undoable
        on its own (used inside imports and :meth:`add_tag`).

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
            tag_id = db["tags"].insert({"name": name, "name_key": tag_key(name),
                                        "colour": colour, "key": key}).last_pk
        return self._tag_row(tag_id)

    def create_tag(self, name: str, colour: str | None = None, key: int | None = None,
                   undoable: bool = True) -> Changes:
        """Create a tag with no papers; nothing happens if the name exists (any case).

        Args:
            name: tag name (see :func:`validate_tag_name`).
            colour: ``#rrggbb``; default: the next of :data:`TAG_COLOURS`.
            key: number key 1-9 to bind (taken from any tag that had it), or ``None``.
            undoable: record an undo step ("Create tag ‘name’").
        Returns:
            :class:`Changes` (``tags`` holds the new tag's id and any tag whose key it
            took); empty when the tag already existed.
        Raises:
            LibraryError: bad name, colour or key.
        """
        if self.tag_by_name(validate_tag_name(name)) is not None:
            return NO_CHANGES
        before = self.tag_states(self._key_holders(_check_key(key)))
        tag = self.ensure_tag(name, colour, key)
        after = self.tag_states([tag.id] + [s.id for s in before])
        changes = Changes.of(tags=[tag.id] + [s.id for s in before], search=False)
        return self._record(f"Create tag {quote(tag.name)}", changes,
                            lambda: self._restore_tags(before, drop=[tag.id]),
                            lambda: self._restore_tags(after), undoable=undoable)

    def _key_holders(self, key: int | None) -> list[int]:
        if key is None:
            return []
        holder = self.tag_for_key(key)
        return [holder.id] if holder else []

    def _set_paper_tag(self, paper_ids: Sequence[int], tag_id: int, add: bool) -> list[int]:
        """Add or remove one tag on papers; return the papers that changed."""
        with _db.transaction(self.db):
            changed = self._write_paper_tag(paper_ids, tag_id, add)
        self._changed()
        return changed

    def _write_paper_tag(self, paper_ids: Sequence[int], tag_id: int, add: bool) -> list[int]:
        """:meth:`_set_paper_tag` inside the caller's transaction (the caller calls
        ``_changed`` once it has committed); return the papers that changed."""
        with _db.transaction(self.db) as db:
            sql = ("INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)" if add
                   else "DELETE FROM paper_tags WHERE paper_id = ? AND tag_id = ?")
            changed = [pid for pid in paper_ids if db.execute(sql, [pid, tag_id]).rowcount]
            self._enqueue(db, changed, "update")
        return changed

    def add_tag(self, paper_ids: Iterable[int], name: str, undoable: bool = True, *,
                key: int | None = None) -> Changes:
        """Tag papers, creating the tag if needed; one undo step however many papers.

        Args:
            paper_ids: papers to tag (any number; one transaction).
            name: tag name, compared without regard to case.
            undoable: record an undo step ("Tag 3 papers ‘name’"); undo also deletes the
                tag if this created it.
            key: also bind number key 1-9 to the tag (taking it from any tag that had
                it), in the same undo step ("Tag ‘name’, key 3"); undo gives the key
                back to the tag that had it. ``None`` leaves the keys alone.
        Returns:
            :class:`Changes`: ``papers`` are the papers that did not have the tag
            before, ``tags`` the tag's id (and, with ``key``, the tag the key was
            taken from); empty when nothing changed.
        Raises:
            UnknownPaper: an id does not exist (nothing is changed).
            LibraryError: bad tag name or key (nothing is changed).
        """
        if key is not None:
            return self._add_tag_with_key(paper_ids, name, _check_key(key), undoable)
        ids = self._existing_ids(paper_ids)
        created = self.tag_by_name(validate_tag_name(name)) is None
        with _db.transaction(self.db):     # a new tag and its papers: one commit
            tag = self.ensure_tag(name)
            changed = self._write_paper_tag(ids, tag.id, True)
        self._changed()
        if not changed and not created:
            return NO_CHANGES
        changes = Changes.of(papers=changed, fields=["tags"], tags=[tag.id])
        snapshot: list[TagState] = []

        def undo() -> Changes:
            if created:
                snapshot[:] = self.tag_states([tag.id])
                return self._restore_tags([], drop=[tag.id])
            self._set_paper_tag(changed, tag.id, False)
            return changes

        def redo() -> Changes:
            if created:
                return self._restore_tags(snapshot)
            self._set_paper_tag(changed, tag.id, True)
            return changes

        return self._record(f"Tag {papers_label(len(changed))}{quote(tag.name)}", changes,
                            undo, redo, undoable=undoable)

    def _add_tag_with_key(self, paper_ids: Iterable[int], name: str, key: int,
                          undoable: bool) -> Changes:
        """:meth:`add_tag` with a key: the tags involved are snapshotted before and after,
        so undo and redo put names, keys and papers back exactly."""
        ids = self._existing_ids(paper_ids)
        existing = self.tag_by_name(validate_tag_name(name))
        holders = [i for i in self._key_holders(key)
                   if existing is None or i != existing.id]
        before = self.tag_states(([existing.id] if existing else []) + holders)
        with _db.transaction(self.db) as db:   # the tag, its key, its papers: one commit
            tag = self.ensure_tag(name)
            db.execute("UPDATE tags SET key = NULL WHERE key = ? AND id != ?", [key, tag.id])
            db.execute("UPDATE tags SET key = ? WHERE id = ?", [key, tag.id])
            changed = self._write_paper_tag(ids, tag.id, True)
        self._changed()
        after = self.tag_states([tag.id] + holders)
        if existing is not None and before == after:
            return NO_CHANGES
        changes = Changes.of(papers=changed, fields=["tags"], tags=[tag.id] + holders)
        drop = [tag.id] if existing is None else []
        label = f"Tag {papers_label(len(changed))}{quote(tag.name)}, key {key}"
        return self._record(label, changes,
                            lambda: self._restore_tags(before, drop=drop),
                            lambda: self._restore_tags(after), undoable=undoable)

    def remove_tag(self, paper_ids: Iterable[int], name: str,
                   undoable: bool = True) -> Changes:
        """Remove a tag from papers (the tag itself stays, even with no papers).

        Args:
            paper_ids: papers to untag.
            name: tag name, compared without regard to case.
            undoable: record an undo step ("Untag 2 papers ‘name’").
        Returns:
            :class:`Changes`: ``papers`` are the papers that had the tag.
        Raises:
            LibraryError: no such tag.
            UnknownPaper: an id does not exist.
        """
        ids = self._existing_ids(paper_ids)
        tag = self.tag_by_name(name)
        if tag is None:
            raise LibraryError(f"no tag named {name!r}")
        changed = self._set_paper_tag(ids, tag.id, False)
        if not changed:
            return NO_CHANGES
        changes = Changes.of(papers=changed, fields=["tags"], tags=[tag.id])

        def undo() -> Changes:
            self._set_paper_tag(changed, self._live_tag(tag.id), True)
            return changes

        def redo() -> Changes:
            self._set_paper_tag(changed, self._live_tag(tag.id), False)
            return changes

        return self._record(f"Untag {papers_label(len(changed))}{quote(tag.name)}",
                            changes, undo, redo, undoable=undoable)

    def _live_tag(self, tag_id: int) -> int:
        if not self.tag_states([tag_id]):
            raise LibraryError("the tag no longer exists")
        return tag_id

    def tag_states(self, tag_ids: Iterable[int]) -> list[TagState]:
        """Snapshot tags (name, colour, key and papers).

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

    def _restore_tags(self, states: Sequence[TagState], drop: Iterable[int] = ()) -> Changes:
        """Put tags back exactly as snapshotted: same ids, names, colours, keys, papers.

        Args:
            states: from :meth:`tag_states`; tags that no longer exist are re-created with
                their old id.
            drop: tag ids to delete if they are not among ``states`` (tags the undone
                action created).
        Returns:
            What changed.
        """
        keep = {s.id for s in states}
        touched: set[int] = set()
        tags = set(keep)
        with _db.transaction(self.db) as db:
            for tid in drop:
                if tid not in keep:
                    touched.update(self._tag_papers(tid))
                    tags.add(tid)
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
                touched.update(s.paper_ids)   # names or colours shown on their rows
                db.execute("DELETE FROM paper_tags WHERE tag_id = ?", [s.id])
                db.conn.executemany("INSERT INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
                                    [(p, s.id) for p in sorted(s.paper_ids)])
            self._enqueue(db, sorted(touched), "update")
        self._changed()
        return Changes.of(papers=touched, fields=["tags"], tags=tags)

    def _tag_step(self, label: str, tag_ids: Sequence[int], change: Callable[[], int],
                  undoable: bool, search: bool = True) -> Changes:
        """Run a tag-level change undone by snapshots of ``tag_ids``; ``change`` returns
        the id of the tag that remains."""
        before = self.tag_states(tag_ids)
        target = change()
        after = self.tag_states([target])
        if before == after:
            return NO_CHANGES
        gone = [t for t in tag_ids if t != target]
        papers: set[int] = set()
        for state in before + after:
            papers |= state.paper_ids
        changes = Changes.of(papers=papers, fields=["tags"], tags=tag_ids, search=search)
        return self._record(label, changes,
                            lambda: self._restore_tags(before, drop=[target]),
                            lambda: self._restore_tags(after, drop=gone),
                            undoable=undoable)

    def rename_tag(self, tag_id: int, new_name: str, undoable: bool = True) -> Changes:
        """Rename a tag; renaming onto another tag's name (any case) merges the two.

        In a merge the other tag keeps its id and takes the new name (as typed), gains
        every paper of this tag, and this tag is deleted; undo restores both tags with
        their own papers, colours and keys.

        Args:
            tag_id: the tag to rename.
            new_name: the new name.
            undoable: record an undo step ("Rename tag ‘a’ to ‘b’" or "Merge tag ‘a’
                into ‘b’").
        Returns:
            :class:`Changes`; ``tags`` holds both ids in a merge (:meth:`is_merge` tells
            beforehand whether it will be one).
        Raises:
            LibraryError: no such tag, or a bad name.
        """
        name = validate_tag_name(new_name)
        tag = self._tag_row(tag_id)
        other = self.tag_by_name(name)
        merge = other is not None and other.id != tag.id
        ids = [tag.id, other.id] if merge else [tag.id]

        def change() -> int:
            with _db.transaction(self.db) as db:
                if not merge:
                    db.execute("UPDATE tags SET name = ?, name_key = ? WHERE id = ?",
                               [name, tag_key(name), tag.id])
                    self._enqueue(db, self._tag_papers(tag.id), "update")
                    return tag.id
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
            self._changed()
            return other.id

        label = (f"Merge tag {quote(tag.name)} into {quote(name)}" if merge
                 else f"Rename tag {quote(tag.name)} to {quote(name)}")
        return self._tag_step(label, ids, change, undoable)

    def is_merge(self, tag_id: int, new_name: str) -> bool:
        """Whether :meth:`rename_tag` with these arguments would merge two tags.

        Raises:
            LibraryError: no such tag, or a bad name.
        """
        tag = self._tag_row(tag_id)
        other = self.tag_by_name(validate_tag_name(new_name))
        return other is not None and other.id != tag.id

    def merge_tags(self, tag_id: int, into_id: int, undoable: bool = True) -> Changes:
        """Merge tag ``tag_id`` into tag ``into_id``: the second keeps its id, name and
        colour and gains every paper of the first, which is deleted; it keeps its own
        number key, or takes the first one's if it had none. Same as
        :meth:`rename_tag` onto the other tag's name, chosen by id.

        Args:
            tag_id: the tag that goes.
            into_id: the tag that stays.
            undoable: record an undo step ("Merge tag ‘a’ into ‘b’"); undo restores both
                tags with their own papers, colours and keys.
        Returns:
            :class:`Changes` (both tag ids, the papers of both).
        Raises:
            LibraryError: either tag does not exist, or they are the same tag.
        """
        source = self._tag_row(tag_id)
        into = self._tag_row(into_id)
        if source.id == into.id:
            raise LibraryError(f"cannot merge tag {source.name!r} into itself")
        return self.rename_tag(source.id, into.name, undoable=undoable)

    def delete_tag(self, tag_id: int, undoable: bool = True) -> Changes:
        """Delete a tag and remove it from every paper; undo puts it back exactly.

        Args:
            tag_id: the tag.
            undoable: record an undo step ("Delete tag ‘name’").
        Returns:
            :class:`Changes` (the tag's papers and id).
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
        changes = Changes.of(papers=state.paper_ids, fields=["tags"], tags=[tag_id])
        return self._record(f"Delete tag {quote(state.name)}", changes,
                            lambda: self._restore_tags([state]),
                            lambda: self._restore_tags([], drop=[tag_id]),
                            undoable=undoable)

    def set_tag_colour(self, tag_id: int, colour: str, undoable: bool = True) -> Changes:
        """Recolour a tag.

        Args:
            tag_id: the tag.
            colour: ``#rrggbb``.
            undoable: record an undo step ("Recolour tag ‘name’").
        Returns:
            :class:`Changes` (the tag and its papers, whose chips change colour).
        Raises:
            LibraryError: a bad colour or no such tag.
        """
        colour = _check_colour(colour)
        tag = self._tag_row(tag_id)

        def change() -> int:
            with _db.transaction(self.db) as db:
                db.execute("UPDATE tags SET colour = ? WHERE id = ?", [colour, tag_id])
            return tag_id

        return self._tag_step(f"Recolour tag {quote(tag.name)}", [tag_id], change,
                              undoable, search=False)

    def set_tag_key(self, tag_id: int, key: int | None, undoable: bool = True) -> Changes:
        """Bind number key 1-9 to a tag (unbinding it from any other tag), or unbind it
        with ``None``.

        Args:
            tag_id: the tag.
            key: 1-9 or ``None``.
            undoable: record an undo step ("Bind key 3 to tag ‘name’").
        Returns:
            :class:`Changes` (the tags whose keys changed).
        Raises:
            LibraryError: a bad key or no such tag.
        """
        key = _check_key(key)
        tag = self._tag_row(tag_id)
        ids = [tag_id] + [i for i in self._key_holders(key) if i != tag_id]
        before = self.tag_states(ids)
        with _db.transaction(self.db) as db:
            if key is not None:
                db.execute("UPDATE tags SET key = NULL WHERE key = ? AND id != ?", [key, tag_id])
            db.execute("UPDATE tags SET key = ? WHERE id = ?", [key, tag_id])
        after = self.tag_states(ids)
        if before == after:
            return NO_CHANGES
        what = f"Bind key {key} to" if key else "Unbind the key of"
        changes = Changes.of(tags=ids, search=False)
        return self._record(f"{what} tag {quote(tag.name)}", changes,
                            lambda: self._restore_tags(before),
                            lambda: self._restore_tags(after), undoable=undoable)

    def tag_for_key(self, key: int) -> Tag | None:
        """Return the tag bound to number key ``key``, or ``None``."""
        row = self.db.execute("SELECT id FROM tags WHERE key = ?", [key]).fetchone()
        return self._tag_row(row[0]) if row else None

    # -- read / star / title -----------------------------------------------------------
    def _write_column(self, column: str, values: Mapping[int, object]) -> None:
        with _db.transaction(self.db) as db:
            db.conn.executemany(f"UPDATE papers SET {column} = ? WHERE id = ?",
                                [(v, p) for p, v in values.items()])
            self._enqueue(db, list(values), "update")
        self._changed()

    def _column_step(self, label: str, column: str, field: str,
                     before: Mapping[int, object], after: Mapping[int, object],
                     undoable: bool, search: bool = False) -> Changes:
        changed = {p: v for p, v in after.items() if before.get(p) != v}
        if not changed:
            return NO_CHANGES
        old = {p: before[p] for p in changed}
        self._write_column(column, changed)
        changes = Changes.of(papers=changed, fields=[field], search=search)

        def undo() -> Changes:
            self._write_column(column, old)
            return changes

        def redo() -> Changes:
            self._write_column(column, changed)
            return changes

        return self._record(label, changes, undo, redo, undoable=undoable)

    def set_read(self, paper_ids: Iterable[int], read: bool,
                 undoable: bool = True) -> Changes:
        """Mark papers read (now) or unread.

        Args:
            paper_ids: the papers.
            read: True to mark read, False for unread.
            undoable: record an undo step ("Mark 2 papers read"); automatic mark-read
                passes False (it is not an edit of the user's).
        Returns:
            :class:`Changes` listing the papers whose state changed.
        Raises:
            UnknownPaper: an id does not exist (nothing is changed).
        """
        ids = self._existing_ids(paper_ids)
        before = self._column_values("read_at", ids)
        now = _now() if read else None
        after = {p: (v or now) if read else None for p, v in before.items()}
        label = f"Mark {count_label(len(ids))} {'read' if read else 'unread'}"
        return self._column_step(label, "read_at", "read", before, after, undoable)

    def set_starred(self, paper_ids: Iterable[int], starred: bool,
                    undoable: bool = True) -> Changes:
        """Star or unstar papers.

        Args:
            paper_ids: the papers.
            starred: True to star, False to unstar.
            undoable: record an undo step ("Star 2 papers").
        Returns:
            :class:`Changes` listing the papers whose state changed.
        Raises:
            UnknownPaper: an id does not exist.
        """
        ids = self._existing_ids(paper_ids)
        before = {p: int(bool(v)) for p, v in self._column_values("starred", ids).items()}
        after = {p: int(bool(starred)) for p in ids}
        verb = "Star" if starred else "Unstar"
        return self._column_step(f"{verb} {count_label(len(ids))}", "starred", "starred",
                                 before, after, undoable)

    def _column_values(self, column: str, ids: Sequence[int]) -> dict:
        out = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i:i + 500])
            marks = ",".join("?" * len(chunk))
            out.update(self.db.execute(
                f"SELECT id, {column} FROM papers WHERE id IN ({marks})", chunk).fetchall())
        return out

    def set_title(self, paper_id: int, title: str | None, undoable: bool = True) -> Changes:
        """Give a paper its own title, or go back to its base title.

        Args:
            paper_id: the paper.
            title: the new title (white space collapsed, lone surrogates made U+FFFD);
                ``None`` or blank restores the
                base title (:attr:`Paper.base_title`): the title its file gave it, else
                the one derived from the abstract.
            undoable: record an undo step ("Edit title" / "Restore title").
        Returns:
            :class:`Changes` (empty when the title stays the same).
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._existing_ids([paper_id])
        old, base = self.db.execute(
            "SELECT title, coalesce(file_title, derived_title) FROM papers WHERE id = ?",
            [pid]).fetchone()
        new = replace_surrogates(" ".join((title or "").split())) or base
        label = "Edit title" if (title or "").strip() else "Restore title"
        return self._column_step(label, "title", "title", {pid: old}, {pid: new}, undoable,
                                 search=True)

    # -- notes -------------------------------------------------------------------------
    def note(self, paper_id: int) -> str:
        """Return the paper's note ("" when it has none)."""
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
            self._enqueue(db, [pid], "update")
        self._changed()
        return Changes.of(papers=[pid], fields=["note"], notes=[pid])

    def set_note(self, paper_id: int, body: str, undoable: bool = True,
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
        (pid,) = self._existing_ids([paper_id])
        body = replace_surrogates(body)
        old = self.note(pid)
        if body == old:
            return NO_CHANGES
        changes = self._write_note(pid, body)
        return self._record("Edit note", changes, lambda: self._write_note(pid, old),
                            lambda: self._write_note(pid, body),
                            merge_key=("note", pid, session), undoable=undoable,
                            before=old, after=body)

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
            self._enqueue(db, [pid], "update")
        self._changed()
        return hid

    def _delete_highlight(self, highlight_id: int) -> Highlight:
        old = self.highlight(highlight_id)
        with _db.transaction(self.db) as db:
            db["highlights"].delete(highlight_id)
            self._enqueue(db, [old.paper_id], "update")
        self._changed()
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
        (pid,) = self._existing_ids([paper_id])
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

        return self._record(f"Highlight {quote(added.text, 30)}", changes, undo, redo,
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

        return self._record(f"Remove highlight {quote(old.text, 30)}", changes, undo, redo,
                            undoable=undoable)

    def _write_highlight_comment(self, highlight_id: int, comment: str) -> None:
        h = self.highlight(highlight_id)
        with _db.transaction(self.db) as db:
            db["highlights"].update(highlight_id, {"comment": comment or ""})
            self._enqueue(db, [h.paper_id], "update")
        self._changed()

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

        return self._record("Edit highlight comment", changes, undo, redo,
                            undoable=undoable)

    # -- filters -----------------------------------------------------------------------
    def filter_counts(self, only: Iterable[str] | None = None) -> dict[str, int]:
        """Return the live counts of the built-in filters: ``all``, ``unread``,
        ``starred``, ``untagged``, ``has_note``.

        Each count reads an index, never the papers' rows (which hold the abstracts):
        the smallest index of ``papers`` for ``all``, ``idx_papers_read`` for ``unread``,
        the partial index ``idx_papers_starred`` (schema 8) for ``starred``, the primary
        key of ``paper_tags`` for the tagged papers (``untagged`` is the rest; the
        dearest, ~10 ms at 100,000 papers, so a star or read mark need not ask for it).

        Args:
            only: count just these filters (``"all"`` is always counted), e.g.
                ``("starred",)`` after a star; ``None`` for all of them.
        Returns:
            ``{"all": n, "unread": n, "starred": n, "untagged": n, "has_note": n}``, or
            ``"all"`` and the filters asked for.
        """
        q = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        wanted = None if only is None else set(only)
        total = q("SELECT count(*) FROM papers")
        sql = {
            "unread": "SELECT count(*) FROM papers WHERE read_at IS NULL",
            "starred": "SELECT count(*) FROM papers WHERE starred",
            # DISTINCT over the primary key (paper_id, tag_id) walks it in order; a
            # count(DISTINCT ...) sorted a temporary b-tree (42 ms vs 7 ms at 100,000).
            "untagged": "SELECT count(*) FROM (SELECT DISTINCT paper_id FROM paper_tags)",
            "has_note": "SELECT count(*) FROM notes",
        }
        out = {"all": total}
        for name, query in sql.items():
            if wanted is None or name in wanted:
                out[name] = total - q(query) if name == "untagged" else q(query)
        return out
