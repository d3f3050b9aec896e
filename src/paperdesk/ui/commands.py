"""Undoable changes: one QUndoCommand subclass per kind of annotation change.

Each command calls :class:`~paperdesk.core.library.Library` methods and undoes itself with
the change data those methods return (tag snapshots, previous values, removed
highlights). The work is done once by :meth:`LibraryCommand.execute` *before* the command
is pushed, so a bad input (a :class:`~paperdesk.core.models.LibraryError`) is reported
and nothing reaches the stack; :func:`push` does both. After every execute, undo and redo
the command reports what it touched through :attr:`CommandContext.changed`, so the window
can refresh exactly those rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from PySide6.QtGui import QUndoCommand, QUndoStack

from ..core.library import Library
from ..core.models import Highlight, LibraryError, SavedSearch, TagState

__all__ = ["Change", "CommandContext", "LibraryCommand", "push", "TagPapersCommand",
           "RenameTagCommand", "DeleteTagCommand", "CreateTagCommand", "TagColourCommand",
           "TagKeyCommand", "SetReadCommand", "SetStarredCommand", "SetTitleCommand",
           "NoteCommand", "AddHighlightCommand", "RemoveHighlightCommand",
           "HighlightCommentCommand", "SaveSearchCommand", "RenameSavedSearchCommand",
           "DeleteSavedSearchCommand", "NOTE_COMMAND_ID"]

#: ``QUndoCommand.id()`` of :class:`NoteCommand` (consecutive note saves merge).
NOTE_COMMAND_ID = 1001


@dataclass(frozen=True)
class Change:
    """What a command touched.

    Attributes:
        paper_ids: papers whose row or detail view may have changed.
        tags: the tag list changed (names, colours, keys, counts or existence).
        note: a note's text changed (the note editor should reload it).
        highlights: highlights changed (the abstract should be redrawn).
        title: a title changed.
        saved: the saved searches changed (names, queries or existence).
        replay: the change comes from undo or redo (rather than from the user's edit, so
            e.g. the note editor must show the restored text).
    """

    paper_ids: frozenset[int] = frozenset()
    tags: bool = False
    note: bool = False
    highlights: bool = False
    title: bool = False
    saved: bool = False
    replay: bool = False

    @property
    def searchable(self) -> bool:
        """Whether the change alters indexed text (titles, tags, notes, highlight
        comments), so that a visible search should be run again once indexed."""
        return self.tags or self.note or self.highlights or self.title


@dataclass
class CommandContext:
    """What commands need from their owner.

    Attributes:
        lib: the open library.
        changed: called with a :class:`Change` after each execute/undo/redo.
        failed: called with a one-line message when an undo or redo raised
            :class:`LibraryError` (the stack has moved on; the library is unchanged).
    """

    lib: Library
    changed: Callable[[Change], None] = lambda change: None
    failed: Callable[[str], None] = lambda message: None


def _quote(name: str, limit: int = 40) -> str:
    return "“" + (name if len(name) <= limit else name[:limit - 1] + "…") + "”"


def _papers(n: int) -> str:
    return "1 paper" if n == 1 else f"{n} papers"


class LibraryCommand(QUndoCommand):
    """Base class: runs :meth:`_do` once in :meth:`execute`, then :meth:`_redo` /
    :meth:`_undo` on the stack's redo/undo.

    Subclasses implement ``_do()`` (may raise :class:`LibraryError`), ``_undo()``,
    ``_redo()`` and ``change()``; they may override ``is_noop()``.

    Args:
        ctx: the :class:`CommandContext`.
        text: the undo text (e.g. "Star 2 papers"); may be set later with ``setText``.
    """

    def __init__(self, ctx: CommandContext, text: str = ""):
        super().__init__(text)
        self.ctx = ctx
        self.lib = ctx.lib
        self._executed = False
        self._skip_redo = False

    def execute(self) -> None:
        """Make the change for the first time.

        Raises:
            LibraryError: bad input; nothing was changed.
        """
        self._do()
        self._executed = True
        self._skip_redo = True
        self.ctx.changed(self.change())

    def is_noop(self) -> bool:
        """Return True if :meth:`execute` changed nothing (the command is then not
        pushed)."""
        return False

    def change(self) -> Change:
        """Return what this command touches (the same for do, undo and redo)."""
        return Change()

    def redo(self) -> None:
        """Qt hook: re-apply the change (skipped for the push right after execute)."""
        if self._skip_redo:
            self._skip_redo = False
            return
        self._guarded(self._redo)

    def undo(self) -> None:
        """Qt hook: reverse the change."""
        self._guarded(self._undo)

    def _guarded(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except LibraryError as exc:
            self.ctx.failed(f"Cannot {self.text().lower() or 'do that'}: {exc}")
        self.ctx.changed(replace(self.change(), replay=True))

    # -- for subclasses ------------------------------------------------------------------
    def _do(self) -> None:
        raise NotImplementedError

    def _undo(self) -> None:
        raise NotImplementedError

    def _redo(self) -> None:
        raise NotImplementedError


def push(stack: QUndoStack, command: LibraryCommand) -> bool:
    """Execute ``command`` and put it on ``stack``.

    Args:
        stack: the undo stack.
        command: a fresh command.
    Returns:
        True if it changed something and was pushed; False if it was a no-op or raised
        :class:`LibraryError` (reported through ``ctx.failed``).
    """
    try:
        command.execute()
    except LibraryError as exc:
        command.ctx.failed(str(exc))
        return False
    if command.is_noop():
        return False
    stack.push(command)
    return True


def _tag_name(lib: Library, tag_id: int) -> str:
    states = lib.tag_states([tag_id])
    if not states:
        raise LibraryError("the tag no longer exists")
    return states[0].name


# -- tags on papers ----------------------------------------------------------------------
class TagPapersCommand(LibraryCommand):
    """Add a tag to papers (creating it if needed) or remove it from them, as one step.

    Args:
        ctx: the command context.
        paper_ids: the papers (one or many).
        name: the tag name (any case; see ``Library.add_tag``).
        add: True to add, False to remove.
    """

    def __init__(self, ctx: CommandContext, paper_ids: Iterable[int], name: str,
                 add: bool = True):
        super().__init__(ctx)
        self._ids = list(paper_ids)
        self._name = name
        self._add = add
        self._tag_id: int | None = None
        self._changed: tuple[int, ...] = ()
        self._created = False
        self._snapshot: list[TagState] = []

    def _do(self) -> None:
        change = (self.lib.add_tag if self._add else self.lib.remove_tag)(self._ids, self._name)
        self._tag_id = change.tag.id
        self._changed = change.paper_ids
        self._created = change.created
        verb = "Tag" if self._add else "Untag"
        self.setText(f"{verb} {_papers(len(self._changed))} {_quote(change.tag.name)}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return not self._changed and not self._created

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset(self._changed), tags=True)

    def _undo(self) -> None:
        if not self._add:
            self.lib.add_tag(self._changed, _tag_name(self.lib, self._tag_id))
        elif self._created:            # drop the tag this command created
            self._snapshot = self.lib.tag_states([self._tag_id])
            self.lib.restore_tags([], drop=[self._tag_id])
        else:
            self.lib.remove_tag(self._changed, _tag_name(self.lib, self._tag_id))

    def _redo(self) -> None:
        if not self._add:
            self.lib.remove_tag(self._changed, _tag_name(self.lib, self._tag_id))
        elif self._created:            # same id, name, colour and papers as before
            self.lib.restore_tags(self._snapshot)
        else:
            self.lib.add_tag(self._changed, _tag_name(self.lib, self._tag_id))


# -- whole tags ----------------------------------------------------------------------------
class _TagSnapshotCommand(LibraryCommand):
    """A tag-level change undone by restoring :class:`TagState` snapshots."""

    def __init__(self, ctx: CommandContext, text: str = ""):
        super().__init__(ctx, text)
        self._before: list[TagState] = []
        self._after: list[TagState] = []
        self._drop_on_redo: list[int] = []
        self._drop_on_undo: list[int] = []

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        papers: set[int] = set()
        for state in self._before + self._after:
            papers |= state.paper_ids
        return Change(frozenset(papers), tags=True)

    def _undo(self) -> None:
        self.lib.restore_tags(self._before, drop=self._drop_on_undo)

    def _redo(self) -> None:
        self.lib.restore_tags(self._after, drop=self._drop_on_redo)

    def _key_holder(self, key: int | None) -> list[int]:
        if key is None:
            return []
        holder = self.lib.tag_for_key(key)
        return [holder.id] if holder else []


class RenameTagCommand(_TagSnapshotCommand):
    """Rename a tag; onto another tag's name (any case) this merges the two, and undo
    restores both tags with their own papers, colours and keys.

    Args:
        ctx: the command context.
        tag_id: the tag to rename.
        new_name: the new name.
    """

    def __init__(self, ctx: CommandContext, tag_id: int, new_name: str):
        super().__init__(ctx)
        self._tag_id = tag_id
        self._new_name = new_name
        self._noop = False

    def _do(self) -> None:
        old = self.lib.tag_states([self._tag_id])
        if not old:
            raise LibraryError(f"no tag with id {self._tag_id}")
        other = self.lib.tag_by_name(self._new_name)
        ids = [self._tag_id] + ([other.id] if other and other.id != self._tag_id else [])
        self._before = self.lib.tag_states(ids)
        result = self.lib.rename_tag(self._tag_id, self._new_name)
        self._after = self.lib.tag_states([result.id])
        self._drop_on_redo = [i for i in ids if i != result.id]
        self._noop = self._before == self._after
        if len(ids) > 1:
            self.setText(f"Merge tag {_quote(old[0].name)} into {_quote(result.name)}")
        else:
            self.setText(f"Rename tag {_quote(old[0].name)} to {_quote(result.name)}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._noop


class DeleteTagCommand(_TagSnapshotCommand):
    """Delete a tag (removing it from its papers); undo puts it back exactly.

    Args:
        ctx: the command context.
        tag_id: the tag.
    """

    def __init__(self, ctx: CommandContext, tag_id: int):
        super().__init__(ctx)
        self._tag_id = tag_id

    def _do(self) -> None:
        state = self.lib.delete_tag(self._tag_id)
        self._before = [state]
        self._drop_on_redo = [self._tag_id]
        self.setText(f"Delete tag {_quote(state.name)}")


class CreateTagCommand(_TagSnapshotCommand):
    """Create a tag with no papers (a no-op if the name exists in any case).

    Args:
        ctx: the command context.
        name: the tag name.
        colour: ``#rrggbb`` or ``None`` for the next default colour.
        key: number key 1-9 to bind, or ``None``.
    """

    def __init__(self, ctx: CommandContext, name: str, colour: str | None = None,
                 key: int | None = None):
        super().__init__(ctx)
        self._name, self._colour, self._key = name, colour, key
        self._noop = False
        self.tag_id: int | None = None  #: the tag's id after execute

    def _do(self) -> None:
        existing = self.lib.tag_by_name(self._name)
        if existing is not None:
            self._noop = True
            self.tag_id = existing.id
            return
        self._before = self.lib.tag_states(self._key_holder(self._key))
        tag = self.lib.create_tag(self._name, self._colour, self._key)
        self.tag_id = tag.id
        self._after = self.lib.tag_states([tag.id] + [s.id for s in self._before])
        self._drop_on_undo = [tag.id]
        self.setText(f"Create tag {_quote(tag.name)}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._noop


class TagColourCommand(_TagSnapshotCommand):
    """Recolour a tag.

    Args:
        ctx: the command context.
        tag_id: the tag.
        colour: ``#rrggbb``.
    """

    def __init__(self, ctx: CommandContext, tag_id: int, colour: str):
        super().__init__(ctx)
        self._tag_id, self._colour = tag_id, colour

    def _do(self) -> None:
        self._before = self.lib.tag_states([self._tag_id])
        tag = self.lib.set_tag_colour(self._tag_id, self._colour)
        self._after = self.lib.tag_states([self._tag_id])
        self.setText(f"Recolour tag {_quote(tag.name)}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._before == self._after

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset(s for st in self._after for s in st.paper_ids), tags=True)


class TagKeyCommand(_TagSnapshotCommand):
    """Bind number key 1-9 to a tag (taking it from another tag) or unbind it.

    Args:
        ctx: the command context.
        tag_id: the tag.
        key: 1-9, or ``None`` to unbind.
    """

    def __init__(self, ctx: CommandContext, tag_id: int, key: int | None):
        super().__init__(ctx)
        self._tag_id, self._key = tag_id, key

    def _do(self) -> None:
        ids = [self._tag_id] + [i for i in self._key_holder(self._key) if i != self._tag_id]
        self._before = self.lib.tag_states(ids)
        tag = self.lib.set_tag_key(self._tag_id, self._key)
        self._after = self.lib.tag_states(ids)
        what = f"Bind key {self._key} to" if self._key else "Unbind the key of"
        self.setText(f"{what} tag {_quote(tag.name)}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._before == self._after

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset(), tags=True)


# -- read, star, title ------------------------------------------------------------------------
class SetReadCommand(LibraryCommand):
    """Mark papers read or unread.

    Args:
        ctx: the command context.
        paper_ids: the papers.
        read: True for read, False for unread.
    """

    def __init__(self, ctx: CommandContext, paper_ids: Iterable[int], read: bool):
        super().__init__(ctx)
        self._ids = list(paper_ids)
        self._read = read
        self._previous: dict[int, str | None] = {}

    def _do(self) -> None:
        self._previous = self.lib.set_read(self._ids, self._read)
        state = "read" if self._read else "unread"
        self.setText(f"Mark {_papers(len(self._ids))} {state}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return all((v is not None) == self._read for v in self._previous.values())

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset(self._ids))

    def _undo(self) -> None:
        self.lib.restore_read(self._previous)

    def _redo(self) -> None:
        self.lib.set_read(self._ids, self._read)


class SetStarredCommand(LibraryCommand):
    """Star or unstar papers.

    Args:
        ctx: the command context.
        paper_ids: the papers.
        starred: True to star, False to unstar.
    """

    def __init__(self, ctx: CommandContext, paper_ids: Iterable[int], starred: bool):
        super().__init__(ctx)
        self._ids = list(paper_ids)
        self._starred = starred
        self._previous: dict[int, bool] = {}

    def _do(self) -> None:
        self._previous = self.lib.set_starred(self._ids, self._starred)
        verb = "Star" if self._starred else "Unstar"
        self.setText(f"{verb} {_papers(len(self._ids))}")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return all(v == self._starred for v in self._previous.values())

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset(self._ids))

    def _undo(self) -> None:
        self.lib.restore_starred(self._previous)

    def _redo(self) -> None:
        self.lib.set_starred(self._ids, self._starred)


class SetTitleCommand(LibraryCommand):
    """Give a paper its own title, or (``None``/blank) go back to the derived one.

    Args:
        ctx: the command context.
        paper_id: the paper.
        title: the new title, or ``None``.
    """

    def __init__(self, ctx: CommandContext, paper_id: int, title: str | None):
        super().__init__(ctx)
        self._id = paper_id
        self._title = title
        self._old = ""
        self._new = ""

    def _do(self) -> None:
        self._old = self.lib.set_title(self._id, self._title)
        self._new = self.lib.get(self._id).title
        self.setText("Edit title" if (self._title or "").strip() else "Restore derived title")

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._old == self._new

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset({self._id}), title=True)

    def _undo(self) -> None:
        self.lib.set_title(self._id, self._old)

    def _redo(self) -> None:
        self.lib.set_title(self._id, self._new)


# -- notes -------------------------------------------------------------------------------------
class NoteCommand(LibraryCommand):
    """Save a paper's note. Consecutive saves of the same paper's note in one editing
    session merge into one undo step (:meth:`mergeWith`).

    Args:
        ctx: the command context.
        paper_id: the paper.
        body: the whole note text ("" or blank deletes the note).
        session: the note editor's session number (it changes whenever the editor loads
            a paper), so that edits made on separate visits stay separate steps.
    """

    def __init__(self, ctx: CommandContext, paper_id: int, body: str, session: int = 0):
        super().__init__(ctx, "Edit note")
        self.paper_id = paper_id
        self.session = session
        self._body = body
        self._old = ""

    def _do(self) -> None:
        self._old = self.lib.set_note(self.paper_id, self._body)

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._old == self._body

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset({self.paper_id}), note=True)

    def id(self) -> int:  # noqa: A003 (Qt API)
        """Qt hook: :data:`NOTE_COMMAND_ID`, so the stack asks :meth:`mergeWith`."""
        return NOTE_COMMAND_ID

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 (Qt API)
        """Qt hook: absorb a later save of the same paper's note in the same session.

        Args:
            other: the command being pushed.
        Returns:
            True if merged (this command now ends at ``other``'s text; it becomes obsolete
            when that equals the text before the first save).
        """
        if not isinstance(other, NoteCommand) or other.paper_id != self.paper_id \
                or other.session != self.session:
            return False
        self._body = other._body
        self.setObsolete(self._body == self._old)
        return True

    def _undo(self) -> None:
        self.lib.set_note(self.paper_id, self._old)

    def _redo(self) -> None:
        self.lib.set_note(self.paper_id, self._body)


# -- highlights ----------------------------------------------------------------------------------
class AddHighlightCommand(LibraryCommand):
    """Highlight ``abstract[start:end]`` of a paper.

    Args:
        ctx: the command context.
        paper_id: the paper.
        start: first character offset (Python string index into the abstract).
        end: offset just past the last character.
        colour: ``#rrggbb`` or ``None`` for the default.
        comment: optional comment.
    """

    def __init__(self, ctx: CommandContext, paper_id: int, start: int, end: int,
                 colour: str | None = None, comment: str = ""):
        super().__init__(ctx)
        self._args = (paper_id, start, end, colour, comment)
        self.highlight: Highlight | None = None  #: the stored highlight after execute

    def _do(self) -> None:
        self.highlight = self.lib.add_highlight(*self._args)
        text = self.highlight.text
        self.setText(f"Highlight {_quote(text, 30)}")

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset({self._args[0]}), highlights=True)

    def _undo(self) -> None:
        self.lib.remove_highlight(self.highlight.id)

    def _redo(self) -> None:
        h = self.highlight
        self.lib.add_highlight(h.paper_id, h.start, h.end, h.colour, h.comment, h.id)


class RemoveHighlightCommand(LibraryCommand):
    """Remove a highlight; undo puts it back with the same id, colour and comment.

    Args:
        ctx: the command context.
        highlight_id: the highlight.
    """

    def __init__(self, ctx: CommandContext, highlight_id: int):
        super().__init__(ctx)
        self._id = highlight_id
        self._removed: Highlight | None = None

    def _do(self) -> None:
        self._removed = self.lib.remove_highlight(self._id)
        self.setText(f"Remove highlight {_quote(self._removed.text, 30)}")

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        pid = self._removed.paper_id if self._removed else None
        return Change(frozenset({pid} if pid is not None else ()), highlights=True)

    def _undo(self) -> None:
        h = self._removed
        self.lib.add_highlight(h.paper_id, h.start, h.end, h.colour, h.comment, h.id)

    def _redo(self) -> None:
        self.lib.remove_highlight(self._id)


class HighlightCommentCommand(LibraryCommand):
    """Change a highlight's comment.

    Args:
        ctx: the command context.
        paper_id: the highlight's paper (for refreshing the view).
        highlight_id: the highlight.
        comment: the new comment ("" for none).
    """

    def __init__(self, ctx: CommandContext, paper_id: int, highlight_id: int, comment: str):
        super().__init__(ctx, "Edit highlight comment")
        self._pid, self._id, self._comment = paper_id, highlight_id, comment
        self._old = ""

    def _do(self) -> None:
        self._old = self.lib.set_highlight_comment(self._id, self._comment)

    def is_noop(self) -> bool:
        """True if the first run changed nothing (see :meth:`LibraryCommand.is_noop`)."""
        return self._old == self._comment

    def change(self) -> Change:
        """What this command touches (see :meth:`LibraryCommand.change`)."""
        return Change(frozenset({self._pid}), highlights=True)

    def _undo(self) -> None:
        self.lib.set_highlight_comment(self._id, self._old)

    def _redo(self) -> None:
        self.lib.set_highlight_comment(self._id, self._comment)


# -- saved searches ------------------------------------------------------------------------
class SaveSearchCommand(LibraryCommand):
    """Save a query under a name ("Save Search …"); a search with that name (any case)
    is replaced, and undo brings it back.

    Args:
        ctx: the command context.
        name: the name (1-80 characters; white space collapsed by the library).
        query: the query text (not empty).
    """

    def __init__(self, ctx: CommandContext, name: str, query: str):
        super().__init__(ctx, f"Save Search {_quote(name)}")
        self.name = name
        self.query = query
        self.previous: SavedSearch | None = None
        self.saved: SavedSearch | None = None

    def _do(self) -> None:
        try:
            self.previous = self.lib.saved_search(self.name)
        except LibraryError:
            self.previous = None
        self.saved = self.lib.save_search(self.name, self.query)
        self.setText(f"Save Search {_quote(self.saved.name)}")

    def is_noop(self) -> bool:
        """Saving the same query under the same name changes nothing."""
        return (self.previous is not None and self.saved is not None
                and (self.previous.name, self.previous.query)
                == (self.saved.name, self.saved.query))

    def change(self) -> Change:
        return Change(saved=True)

    def _undo(self) -> None:
        self.lib.delete_saved_search(self.saved.name)
        if self.previous is not None:
            self.lib.save_search(self.previous.name, self.previous.query)

    def _redo(self) -> None:
        self.saved = self.lib.save_search(self.saved.name, self.query)


class RenameSavedSearchCommand(LibraryCommand):
    """Rename a saved search.

    Args:
        ctx: the command context.
        old: its current name (any case).
        new: the new name (must not belong to another saved search).
    """

    def __init__(self, ctx: CommandContext, old: str, new: str):
        super().__init__(ctx, f"Rename Saved Search {_quote(old)}")
        self.old = old
        self.new = new

    def _do(self) -> None:
        before = self.lib.saved_search(self.old)
        after = self.lib.rename_saved_search(self.old, self.new)
        self.old, self.new = before.name, after.name
        self.setText(f"Rename Saved Search {_quote(self.old)} to {_quote(self.new)}")

    def is_noop(self) -> bool:
        """Renaming to the very same name changes nothing."""
        return self.old == self.new

    def change(self) -> Change:
        return Change(saved=True)

    def _undo(self) -> None:
        self.lib.rename_saved_search(self.new, self.old)

    def _redo(self) -> None:
        self.lib.rename_saved_search(self.old, self.new)


class DeleteSavedSearchCommand(LibraryCommand):
    """Delete a saved search; undo saves it again (same name and query).

    Args:
        ctx: the command context.
        name: its name (any case).
    """

    def __init__(self, ctx: CommandContext, name: str):
        super().__init__(ctx, f"Delete Saved Search {_quote(name)}")
        self.name = name
        self.deleted: SavedSearch | None = None

    def _do(self) -> None:
        self.deleted = self.lib.delete_saved_search(self.name)
        self.setText(f"Delete Saved Search {_quote(self.deleted.name)}")

    def change(self) -> Change:
        return Change(saved=True)

    def _undo(self) -> None:
        self.lib.save_search(self.deleted.name, self.deleted.query)

    def _redo(self) -> None:
        self.lib.delete_saved_search(self.deleted.name)
