"""Tags: the library's tags (``lib.tags``, :class:`Tags`) and the checks of a tag's name,
colour and key. (A paper's note and highlights are :mod:`paperdesk.core.edits.notes`; its
read and star marks and title :mod:`paperdesk.core.papers`.)

Every mutation changes SQLite in one transaction, queues the touched papers for re-indexing in
the same transaction, returns the :class:`~paperdesk.core.changes.Changes` it made and
(unless ``undoable=False``) records one :class:`~paperdesk.core.edits.undo.UndoStep` on the
library's undo stack, so :meth:`Library.undo` reverses it exactly. The private
``_restore_tags`` and ``_write_paper_tag`` helpers are what the steps replay; they
record nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace


from paperdesk.core.store import db as _db
from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.models import LibraryError, Tag, TagState
from paperdesk.core.manager import Manager
from paperdesk.core.edits.undo import papers_label, quote
from paperdesk.core.screening.decisions import read_decisions, write_decisions
from paperdesk.core.terminal_text import first_control
from paperdesk.core.text import replace_surrogates

__all__ = ["Tags", "TAG_COLOURS", "HIGHLIGHT_COLOURS", "validate_tag_name",
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


class Tags(Manager):
    """The tags of a library: ``lib.tags`` (see the module)."""

    def _tag_row(self, tag_id: int, count: bool = True) -> Tag:
        if not count:   # no pass over the tag's papers (a third of a million)
            row = self.db.execute("SELECT id, name, colour, key FROM tags WHERE id = ?",
                                  [tag_id]).fetchone()
            if row is None:
                raise LibraryError(f"no tag with id {tag_id}")
            return Tag(*row, count=None)
        row = self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, count(pt.paper_id) FROM tags t "
            "LEFT JOIN paper_tags pt ON pt.tag_id = t.id WHERE t.id = ? GROUP BY t.id",
            [tag_id]).fetchone()
        if row is None:
            raise LibraryError(f"no tag with id {tag_id}")
        return Tag(*row)

    def by_name(self, name: str, count: bool = True) -> Tag | None:
        """Return the tag with this name (compared without regard to case), or ``None``.

        Args:
            name: the tag's name, any case.
            count: also count its papers (``Tag.count``): one pass over the tag's
                taggings, 333,000 for a tag on a third of a million papers. False leaves
                ``count`` at ``None`` (an edit that only needs the tag's id and name).
        """
        row = self.db.execute("SELECT id FROM tags WHERE name_key = ?",
                              [tag_key(name)]).fetchone()
        return self._tag_row(row[0], count) if row else None

    def _tag_papers(self, tag_id: int) -> list[int]:
        return [r[0] for r in self.db.execute(
            "SELECT paper_id FROM paper_tags WHERE tag_id = ?", [tag_id])]

    def all(self, count: bool = True) -> list[Tag]:
        """Return every tag, sorted by name without regard to case.

        Args:
            count: also count each tag's papers (``Tag.count``: a pass over its taggings,
                a third of a million for a tag on a third of a million papers). False
                reads the ``tags`` table only and leaves ``count`` at ``None`` (the
                window's first look, before its counts come from another thread).
        """
        if not count:
            return [Tag(*r, count=None) for r in self.db.execute(
                "SELECT id, name, colour, key FROM tags ORDER BY name_key")]
        # One count per tag on the covering index idx_paper_tags_tag (a join with GROUP BY
        # walked every tagging and sorted: 14 ms vs 3 ms at 100,000 papers, 4 tags).
        return [Tag(*r) for r in self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, "
            "(SELECT count(*) FROM paper_tags pt WHERE pt.tag_id = t.id) FROM tags t "
            "ORDER BY t.name_key")]

    def ensure(self, name: str, colour: str | None = None,
                   key: int | None = None, *, count: bool = True) -> Tag:
        """Return the tag with this name (any case), creating it if missing; not undoable
        on its own (used inside imports and :meth:`add`).

        Args:
            name: tag name (see :func:`validate_tag_name`).
            colour: ``#rrggbb``; default: the next of :data:`TAG_COLOURS`.
            key: number key 1-9 to bind (taken from any tag that had it), or ``None``.
            count: count the papers of an existing tag (see :meth:`by_name`).
        Returns:
            The :class:`Tag`.
        Raises:
            LibraryError: bad name, colour or key.
        """
        name = validate_tag_name(name)
        existing = self.by_name(name, count)
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
        return self._tag_row(tag_id, count)

    def create(self, name: str, colour: str | None = None, key: int | None = None,
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
        if self.by_name(validate_tag_name(name)) is not None:
            return NO_CHANGES
        before = self.states(self._key_holders(_check_key(key)))
        tag = self.ensure(name, colour, key)
        after = self.states([tag.id] + [s.id for s in before])
        changes = Changes.of(tags=[tag.id] + [s.id for s in before], search=False)
        return self._lib.record(f"Create tag {quote(tag.name)}", changes,
                            lambda: self._restore_tags(before, drop=[tag.id]),
                            lambda: self._restore_tags(after), undoable=undoable)

    def _key_holders(self, key: int | None) -> list[int]:
        if key is None:
            return []
        holder = self.for_key(key)
        return [holder.id] if holder else []

    def _set_paper_tag(self, paper_ids: Sequence[int], tag_id: int, add: bool) -> list[int]:
        """Add or remove one tag on papers; return the papers that changed."""
        with _db.transaction(self.db):
            changed = self._write_paper_tag(paper_ids, tag_id, add)
        self._lib.after_change()
        return changed

    def _write_paper_tag(self, paper_ids: Sequence[int], tag_id: int, add: bool) -> list[int]:
        """:meth:`_set_paper_tag` inside the caller's transaction (the caller calls
        ``_changed`` once it has committed); return the papers that changed."""
        with _db.transaction(self.db) as db:
            sql = ("INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)" if add
                   else "DELETE FROM paper_tags WHERE paper_id = ? AND tag_id = ?")
            changed = [pid for pid in paper_ids if db.execute(sql, [pid, tag_id]).rowcount]
        return changed

    def add(self, paper_ids: Iterable[int], name: str, undoable: bool = True, *,
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
        ids = self._lib.papers.existing_ids(paper_ids)
        created = self.by_name(validate_tag_name(name), count=False) is None
        with _db.transaction(self.db):     # a new tag and its papers: one commit
            tag = self.ensure(name, count=False)
            changed = self._write_paper_tag(ids, tag.id, True)
        self._lib.after_change()
        if not changed and not created:
            return NO_CHANGES
        # a new tag must be read by views; an existing one only changed its count
        changes = Changes.of(papers=changed, fields=["tags"], tags=[tag.id],
                             tag_deltas=None if created else {tag.id: len(changed)})
        snapshot: list[TagState] = []

        def undo() -> Changes:
            if created:
                snapshot[:] = self.states([tag.id])
                return self._restore_tags([], drop=[tag.id])
            gone = self._set_paper_tag(changed, tag.id, False)
            return replace(changes, tag_deltas=((tag.id, -len(gone)),))

        def redo() -> Changes:
            if created:
                return self._restore_tags(snapshot)
            back = self._set_paper_tag(changed, tag.id, True)
            return replace(changes, tag_deltas=((tag.id, len(back)),))

        return self._lib.record(f"Tag {papers_label(len(changed))}{quote(tag.name)}", changes,
                            undo, redo, undoable=undoable)

    def _add_tag_with_key(self, paper_ids: Iterable[int], name: str, key: int,
                          undoable: bool) -> Changes:
        """:meth:`add` with a key: the tags involved are snapshotted before and after,
        so undo and redo put names, keys and papers back exactly."""
        ids = self._lib.papers.existing_ids(paper_ids)
        existing = self.by_name(validate_tag_name(name))
        holders = [i for i in self._key_holders(key)
                   if existing is None or i != existing.id]
        before = self.states(([existing.id] if existing else []) + holders)
        with _db.transaction(self.db) as db:   # the tag, its key, its papers: one commit
            tag = self.ensure(name)
            db.execute("UPDATE tags SET key = NULL WHERE key = ? AND id != ?", [key, tag.id])
            db.execute("UPDATE tags SET key = ? WHERE id = ?", [key, tag.id])
            changed = self._write_paper_tag(ids, tag.id, True)
        self._lib.after_change()
        after = self.states([tag.id] + holders)
        if existing is not None and before == after:
            return NO_CHANGES
        changes = Changes.of(papers=changed, fields=["tags"], tags=[tag.id] + holders)
        drop = [tag.id] if existing is None else []
        label = f"Tag {papers_label(len(changed))}{quote(tag.name)}, key {key}"
        return self._lib.record(label, changes,
                            lambda: self._restore_tags(before, drop=drop),
                            lambda: self._restore_tags(after), undoable=undoable)

    def remove(self, paper_ids: Iterable[int], name: str,
                   undoable: bool = True) -> Changes:
        """Remove a tag from papers (the tag itself stays, even with no papers).

        Args:
            paper_ids: papers to untag.
            name: tag name, compared without regard to case.
            undoable: record an undo step ("Untag 2 papers ‘name’"); undo also brings
                back the papers' screening decisions for the tag, which removing it
                deletes (a paper screened for the tag becomes undecided).
        Returns:
            :class:`Changes`: ``papers`` are the papers that had the tag.
        Raises:
            LibraryError: no such tag.
            UnknownPaper: an id does not exist.
        """
        ids = self._lib.papers.existing_ids(paper_ids)
        tag = self.by_name(name, count=False)
        if tag is None:
            raise LibraryError(f"no tag named {name!r}")
        decisions = read_decisions(self.db, tag.id, ids)
        changed = self._untag(ids, tag.id)
        if not changed:
            return NO_CHANGES
        changes = Changes.of(papers=changed, fields=["tags"], tags=[tag.id],
                             tag_deltas={tag.id: -len(changed)})

        def undo() -> Changes:
            with _db.transaction(self.db) as db:
                back = self._write_paper_tag(changed, self._live_tag(tag.id), True)
                write_decisions(db, tag.id, decisions, changed)
            self._lib.after_change()
            return replace(changes, tag_deltas=((tag.id, len(back)),))

        def redo() -> Changes:
            gone = self._untag(changed, self._live_tag(tag.id))
            return replace(changes, tag_deltas=((tag.id, -len(gone)),))

        return self._lib.record(f"Untag {papers_label(len(changed))}{quote(tag.name)}",
                            changes, undo, redo, undoable=undoable)

    def _untag(self, paper_ids: Sequence[int], tag_id: int) -> list[int]:
        """Remove a tag from papers and their screening decisions for it (they become
        undecided: :mod:`paperdesk.core.screening.decisions`); return the papers that
        had the tag."""
        with _db.transaction(self.db) as db:
            changed = self._write_paper_tag(paper_ids, tag_id, False)
            write_decisions(db, tag_id, (), changed)
        self._lib.after_change()
        return changed

    def _live_tag(self, tag_id: int) -> int:
        # (not ``states``: that reads every paper of the tag and its decisions)
        if self.db.execute("SELECT 1 FROM tags WHERE id = ?", [tag_id]).fetchone() is None:
            raise LibraryError("the tag no longer exists")
        return tag_id

    def states(self, tag_ids: Iterable[int]) -> list[TagState]:
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
                out.append(TagState(*row, frozenset(self._tag_papers(row[0])),
                                    read_decisions(self.db, row[0])))
        return out

    def _restore_tags(self, states: Sequence[TagState], drop: Iterable[int] = ()) -> Changes:
        """Put tags back exactly as snapshotted: same ids, names, colours, keys, papers.

        Args:
            states: from :meth:`states`; tags that no longer exist are re-created with
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
                write_decisions(db, s.id, s.decisions)
        self._lib.after_change()
        return Changes.of(papers=touched, fields=["tags"], tags=tags)

    def _tag_step(self, label: str, tag_ids: Sequence[int], change: Callable[[], int],
                  undoable: bool, search: bool = True) -> Changes:
        """Run a tag-level change undone by snapshots of ``tag_ids``; ``change`` returns
        the id of the tag that remains."""
        before = self.states(tag_ids)
        target = change()
        after = self.states([target])
        if before == after:
            return NO_CHANGES
        gone = [t for t in tag_ids if t != target]
        papers: set[int] = set()
        for state in before + after:
            papers |= state.paper_ids
        changes = Changes.of(papers=papers, fields=["tags"], tags=tag_ids, search=search)
        return self._lib.record(label, changes,
                            lambda: self._restore_tags(before, drop=[target]),
                            lambda: self._restore_tags(after, drop=gone),
                            undoable=undoable)

    def rename(self, tag_id: int, new_name: str, undoable: bool = True) -> Changes:
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
        other = self.by_name(name)
        merge = other is not None and other.id != tag.id
        ids = [tag.id, other.id] if merge else [tag.id]

        def change() -> int:
            with _db.transaction(self.db) as db:
                if not merge:
                    db.execute("UPDATE tags SET name = ?, name_key = ? WHERE id = ?",
                               [name, tag_key(name), tag.id])
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
            self._lib.after_change()
            return other.id

        label = (f"Merge tag {quote(tag.name)} into {quote(name)}" if merge
                 else f"Rename tag {quote(tag.name)} to {quote(name)}")
        return self._tag_step(label, ids, change, undoable)

    def is_merge(self, tag_id: int, new_name: str) -> bool:
        """Whether :meth:`rename` with these arguments would merge two tags.

        Raises:
            LibraryError: no such tag, or a bad name.
        """
        tag = self._tag_row(tag_id)
        other = self.by_name(validate_tag_name(new_name))
        return other is not None and other.id != tag.id

    def merge(self, tag_id: int, into_id: int, undoable: bool = True) -> Changes:
        """Merge tag ``tag_id`` into tag ``into_id``: the second keeps its id, name and
        colour and gains every paper of the first, which is deleted; it keeps its own
        number key, or takes the first one's if it had none. Same as
        :meth:`rename` onto the other tag's name, chosen by id.

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
        return self.rename(source.id, into.name, undoable=undoable)

    def delete(self, tag_id: int, undoable: bool = True) -> Changes:
        """Delete a tag and remove it from every paper; undo puts it back exactly.

        Args:
            tag_id: the tag.
            undoable: record an undo step ("Delete tag ‘name’").
        Returns:
            :class:`Changes` (the tag's papers and id).
        Raises:
            LibraryError: no such tag.
        """
        (state,) = self.states([tag_id]) or [None]
        if state is None:
            raise LibraryError(f"no tag with id {tag_id}")
        with _db.transaction(self.db) as db:
            db.execute("DELETE FROM tags WHERE id = ?", [tag_id])
        self._lib.after_change()
        changes = Changes.of(papers=state.paper_ids, fields=["tags"], tags=[tag_id])
        return self._lib.record(f"Delete tag {quote(state.name)}", changes,
                            lambda: self._restore_tags([state]),
                            lambda: self._restore_tags([], drop=[tag_id]),
                            undoable=undoable)

    def set_colour(self, tag_id: int, colour: str, undoable: bool = True) -> Changes:
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

    def set_key(self, tag_id: int, key: int | None, undoable: bool = True) -> Changes:
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
        before = self.states(ids)
        with _db.transaction(self.db) as db:
            if key is not None:
                db.execute("UPDATE tags SET key = NULL WHERE key = ? AND id != ?", [key, tag_id])
            db.execute("UPDATE tags SET key = ? WHERE id = ?", [key, tag_id])
        after = self.states(ids)
        if before == after:
            return NO_CHANGES
        what = f"Bind key {key} to" if key else "Unbind the key of"
        changes = Changes.of(tags=ids, search=False)
        return self._lib.record(f"{what} tag {quote(tag.name)}", changes,
                            lambda: self._restore_tags(before),
                            lambda: self._restore_tags(after), undoable=undoable)

    def for_key(self, key: int, count: bool = True) -> Tag | None:
        """Return the tag bound to number key ``key``, or ``None``.

        Args:
            key: 1-9.
            count: also count its papers (see :meth:`by_name`; False: ``count`` is
                ``None``).
        """
        row = self.db.execute("SELECT id FROM tags WHERE key = ?", [key]).fetchone()
        return self._tag_row(row[0], count) if row else None
