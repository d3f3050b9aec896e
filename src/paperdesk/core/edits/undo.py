"""Undo and redo in the core: a stack of steps, each able to reverse and re-apply itself.

:class:`~paperdesk.core.library.Library` pushes one :class:`UndoStep` for every undoable
mutation (bulk tagging of many papers is one step) and exposes :meth:`Library.undo` /
:meth:`Library.redo`. The window's Edit menu reads :attr:`UndoStack.undo_label`; nothing
here knows about Qt. Consecutive steps with the same ``merge_key`` (the saves of one note
while the user types) become one step, as ``QUndoCommand.mergeWith`` does.

The stack is guarded by a lock, so labels can be read from any thread while the writer
thread pushes, undoes and redoes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.models import LibraryError

__all__ = ["UndoStep", "UndoStack", "NothingToUndo", "UNDO_LIMIT", "quote", "papers_label",
           "count_label"]

#: Steps kept; the oldest are dropped beyond this.
UNDO_LIMIT = 1000


def quote(name: str, limit: int = 40) -> str:
    """Return ``name`` in typographic single quotes for a step label, cut to ``limit``
    characters with an ellipsis ("‘depth’")."""
    return "‘" + (name if len(name) <= limit else name[:limit - 1] + "…") + "’"


def papers_label(n: int) -> str:
    """Return the paper count a label puts before a quoted name: ``""`` for one paper,
    ``"3 papers "`` for more ("Tag ‘depth’", "Tag 3 papers ‘depth’")."""
    return "" if n == 1 else f"{n:,} papers "


def count_label(n: int) -> str:
    """Return ``"paper"`` for one paper, ``"3 papers"`` for more ("Star 3 papers")."""
    return "paper" if n == 1 else f"{n:,} papers"


class NothingToUndo(LibraryError):
    """:meth:`UndoStack.undo` or :meth:`UndoStack.redo` with nothing to undo or redo."""


@dataclass
class UndoStep:
    """One undoable change.

    Attributes:
        label: what the user did, for the Edit menu ("Tag ‘depth’", "Star 2 papers").
        undo: reverses the change; returns the :class:`Changes` it made; may raise
            :class:`LibraryError` (the library is then unchanged).
        redo: re-applies the change; same contract.
        merge_key: steps pushed one after another with equal, non-``None`` keys merge
            into one (the first step's ``undo``, the last step's ``redo`` and label).
        before, after: for merging steps, the value before and after the step (e.g. a
            note's text); a merged step whose first ``before`` equals its last ``after``
            changed nothing in the end and is dropped (as Qt's ``setObsolete``).
    """

    label: str
    undo: Callable[[], Changes]
    redo: Callable[[], Changes]
    merge_key: Hashable | None = None
    before: object = None
    after: object = None


class UndoStack:
    """Undo and redo steps, newest last.

    Args:
        limit: how many steps are kept (oldest dropped first).
    """

    def __init__(self, limit: int = UNDO_LIMIT):
        self._done: list[UndoStep] = []
        self._undone: list[UndoStep] = []
        self._limit = limit
        self._lock = threading.RLock()
        self._merge_open = True

    # -- reading ---------------------------------------------------------------------
    @property
    def undo_label(self) -> str | None:
        """Label of the step :meth:`undo` would reverse, or ``None``."""
        with self._lock:
            return self._done[-1].label if self._done else None

    @property
    def redo_label(self) -> str | None:
        """Label of the step :meth:`redo` would re-apply, or ``None``."""
        with self._lock:
            return self._undone[-1].label if self._undone else None

    def __len__(self) -> int:
        with self._lock:
            return len(self._done)

    def labels(self) -> list[str]:
        """Labels of the undoable steps, oldest first."""
        with self._lock:
            return [s.label for s in self._done]

    # -- changing --------------------------------------------------------------------
    def push(self, step: UndoStep) -> None:
        """Record a step that was just applied; clears what could be redone.

        Args:
            step: the step.
        """
        with self._lock:
            self._undone.clear()
            top = self._done[-1] if self._done else None
            if (self._merge_open and top is not None and step.merge_key is not None
                    and step.merge_key == top.merge_key):
                merged = UndoStep(step.label, top.undo, step.redo, step.merge_key,
                                  top.before, step.after)
                if merged.before is not None and merged.before == merged.after:
                    self._done.pop()
                    self._merge_open = False
                else:
                    self._done[-1] = merged
                return
            self._merge_open = True
            self._done.append(step)
            del self._done[:-self._limit]

    def undo(self) -> Changes:
        """Reverse the newest step.

        Returns:
            What the reversal changed, marked as a replay.
        Raises:
            NothingToUndo: the stack is empty.
            LibraryError: the step could not be reversed; the stack is unchanged.
        """
        with self._lock:
            if not self._done:
                raise NothingToUndo("nothing to undo")
            step = self._done[-1]
            changes = step.undo() or NO_CHANGES
            self._done.pop()
            self._undone.append(step)
            self._merge_open = False
            return changes.as_replay()

    def redo(self) -> Changes:
        """Re-apply the newest undone step.

        Returns:
            What it changed, marked as a replay.
        Raises:
            NothingToUndo: nothing was undone.
            LibraryError: the step could not be re-applied; the stack is unchanged.
        """
        with self._lock:
            if not self._undone:
                raise NothingToUndo("nothing to redo")
            step = self._undone[-1]
            changes = step.redo() or NO_CHANGES
            self._undone.pop()
            self._done.append(step)
            self._merge_open = False
            return changes.as_replay()

    def clear(self) -> None:
        """Forget every step (e.g. when another library is opened)."""
        with self._lock:
            self._done.clear()
            self._undone.clear()
