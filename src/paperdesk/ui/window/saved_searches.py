"""The window's saved-search commands (a mixin of ``MainWindow``).

A saved search is a named query (``lib.saved_searches.save``). The tag pane lists them in
their own section with the number of papers each finds; those counts are made on a
worker thread (:class:`~paperdesk.ui.background.workers.SavedSearchCounter`) at start-up, after
imports, after the search index caught up with changes, and after a saved search
changed, never on a keystroke. Saving, renaming and deleting are undoable commands
(:mod:`paperdesk.ui.commands`); a :class:`~paperdesk.core.models.LibraryError` (an
empty or too long name, a name already taken) becomes a status-bar message.
"""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QInputDialog, QLineEdit

from paperdesk.core.models import LibraryError
from paperdesk.core.api import SAVED_NAME_MAX
from paperdesk.core.scope import Scope

__all__ = ["SavedSearchActions"]


class SavedSearchActions:
    """Saved-search slots for :class:`~paperdesk.ui.window.main_window.MainWindow`.

    Needs the window's ``lib``, ``tag_pane``, ``search_box``, ``saved_counter``,
    ``run_edit``, ``show_error``, ``statusBar`` and its public list methods
    ``query_text``, ``request_search``, ``current_scope``, ``use_scope`` and
    ``is_shut_down``.
    """

    # -- saving ------------------------------------------------------------------------------
    @Slot()
    def prompt_save_search(self) -> bool:
        """Ask for a name and save the search box's query (Ctrl+S, Edit ▸ Save Search…).

        Returns:
            True when the save was queued; False when the box is empty (a hint is
            shown) or the dialog was cancelled. A refused name comes back as a "⚠"
            message from the writer thread.
        """
        query = self.query_text()
        if not query:
            self.statusBar().showMessage(
                "Type a search first, then press Ctrl+S to save it", 5000)
            return False
        name, ok = QInputDialog.getText(
            self, "Save search",
            f"Name for this search (listed on the left):\n{query[:200]}",
            QLineEdit.EchoMode.Normal, self._default_saved_name(query))
        return bool(ok and name.strip()) and self.save_search(name, query)

    def _default_saved_name(self, query: str) -> str:
        for search in self.lib.saved_searches.all():
            if search.query.strip() == query:
                return search.name
        name = " ".join(query.split())
        return name if len(name) <= SAVED_NAME_MAX else name[:SAVED_NAME_MAX - 1] + "…"

    def save_search(self, name: str, query: str | None = None) -> bool:
        """Save ``query`` (default: the search box's) as ``name``, replacing a saved search
        of that name. Undoable.

        Args:
            name: 1-80 characters.
            query: the query text, or ``None`` for the search box's.
        Returns:
            True when the save was queued (False: nothing to save). A refused name
            comes back as a "⚠" message from the writer thread.
        """
        query = self.query_text() if query is None else query.strip()
        if not query:
            self.show_error("cannot save an empty search")
            return False
        return self.run_edit(lambda lib: lib.saved_searches.save(name, query))

    # -- renaming and deleting ---------------------------------------------------------------
    @Slot(str)
    def prompt_rename_saved_search(self, name: str) -> bool:
        """Ask for a new name for the saved search ``name`` and rename it."""
        try:
            current = self.lib.saved_searches.get(name)
        except LibraryError as exc:
            self.show_error(str(exc))
            return False
        new, ok = QInputDialog.getText(self, "Rename saved search",
                                       f"New name for “{current.name}”:",
                                       QLineEdit.EchoMode.Normal, current.name)
        return bool(ok and new.strip()) and self.rename_saved_search(current.name, new)

    def rename_saved_search(self, old: str, new: str) -> bool:
        """Rename a saved search (undoable). Returns True when queued; a refusal comes
        back as a "⚠" message."""
        return self.run_edit(lambda lib: lib.saved_searches.rename(old, new))

    @Slot(str)
    def delete_saved_search(self, name: str) -> bool:
        """Delete a saved search (undoable: Ctrl+Z saves it again)."""
        return self.run_edit(lambda lib: lib.saved_searches.delete(name))

    # -- running -----------------------------------------------------------------------------
    def open_saved_search(self, name: str) -> bool:
        """Choose the saved search ``name`` in the tag pane and run it over all papers.

        Returns:
            False if there is no such saved search.
        """
        if not self.tag_pane.select_saved(name, notify=False):
            return False
        saved = self.tag_pane.current_saved()
        self._on_saved_chosen(*saved)
        return True

    @Slot(str, str)
    def _on_saved_chosen(self, name: str, query: str) -> None:
        """The tag pane chose a saved search: put its query in the search box and run it
        over every paper (saved-search counts are for the whole library)."""
        if self.is_shut_down():
            return
        self.use_scope(Scope())
        if self.search_box.text() != query:
            self.search_box.setText(query)    # textChanged asks for a (debounced) search
        if query.strip():
            self.request_search(immediate=True)

    def _leave_saved_search(self, query: str) -> None:
        """The search box changed: if it no longer holds the chosen saved search's
        query, choose the scope's entry instead (without a signal)."""
        saved = self.tag_pane.current_saved()
        if saved is not None and saved[1].strip() != query:
            self.tag_pane.select_scope(self.current_scope(), notify=False)

    # -- listing and counting ------------------------------------------------------------------
    def _refresh_saved(self, immediate: bool = False) -> None:
        """Re-list the saved searches in the tag pane and count them again."""
        self.tag_pane.set_saved_searches(self.lib.saved_searches.all())
        self._count_saved(immediate)

    def _count_saved(self, immediate: bool = False) -> None:
        """Count every saved search on the worker thread (no-op when there are none)."""
        entries = self.tag_pane.saved_entries()
        if entries:
            self.saved_counter.request([(name, query) for name, query, _n in entries],
                                       immediate=immediate)

    @Slot(object)
    def _on_saved_counts(self, counts) -> None:
        if not self.is_shut_down():
            self.tag_pane.set_saved_counts(counts)
