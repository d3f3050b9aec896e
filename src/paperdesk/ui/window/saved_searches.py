"""The window's saved-search commands (:class:`SavedSearches`, the window's
``saved_searches``).

A saved search is a named query (``lib.saved_searches.save``). The tag pane lists them in
their own section with the number of papers each finds; those counts are made on a
worker thread (:class:`~paperdesk.ui.background.workers.SavedSearchCounter`) at start-up, after
imports, after the search index caught up with changes, and after a saved search
changed, never on a keystroke. Saving, renaming and deleting are undoable commands
(:mod:`paperdesk.ui.commands`); a :class:`~paperdesk.core.models.LibraryError` (an
empty or too long name, a name already taken) becomes a status-bar message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QLineEdit

from paperdesk.core.api import SAVED_NAME_MAX, tag_key
from paperdesk.core.scope import Scope

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["SavedSearches"]


class SavedSearches:
    """Saved-search commands of :class:`~paperdesk.ui.window.main_window.MainWindow`.

    Built over the window (``window``, a
    :class:`~paperdesk.ui.window.main_window.MainWindow`); uses its public ``lib``,
    ``tag_pane``, ``search_box``, ``saved_counter``, ``run_edit``, ``show_error``,
    ``statusBar`` and its public list methods ``query_text``, ``request_search``,
    ``current_scope``, ``use_scope`` and ``is_shut_down``.
    """

    def __init__(self, window: MainWindow):
        self._window = window

    # -- saving ------------------------------------------------------------------------------
    def prompt_save_search(self) -> bool:
        """Ask for a name and save the search box's query (Ctrl+S, Edit ▸ Save Search…).

        Returns:
            True when the save was queued; False when the box is empty (a hint is
            shown) or the dialog was cancelled. A refused name comes back as a "⚠"
            message from the writer thread.
        """
        query = self._window.search.query_text()
        if not query:
            self._window.statusBar().showMessage(
                "Type a search first, then press Ctrl+S to save it", 5000)
            return False
        name, ok = QInputDialog.getText(
            self._window, "Save search",
            f"Name for this search (listed on the left):\n{query[:200]}",
            QLineEdit.EchoMode.Normal, self._default_saved_name(query))
        return bool(ok and name.strip()) and self.save_search(name, query)

    def _default_saved_name(self, query: str) -> str:
        # the saved searches as the tag pane lists them (no read on the UI thread)
        for name, saved_query, _count in self._window.tag_pane.saved_entries():
            if saved_query.strip() == query:
                return name
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
        query = self._window.search.query_text() if query is None else query.strip()
        if not query:
            self._window.show_error("cannot save an empty search")
            return False
        return self._window.run_edit(lambda lib: lib.saved_searches.save(name, query))

    # -- renaming and deleting ---------------------------------------------------------------
    def prompt_rename_saved_search(self, name: str) -> bool:
        """Ask for a new name for the saved search ``name`` and rename it."""
        # the name as the tag pane lists it (no read on the UI thread)
        listed = [n for n, _query, _count in self._window.tag_pane.saved_entries()]
        current = next((n for n in listed if n == name), None) \
            or next((n for n in listed if tag_key(n) == tag_key(name)), None)
        if current is None:
            self._window.show_error(f"no saved search named {name!r}")
            return False
        new, ok = QInputDialog.getText(self._window, "Rename saved search",
                                       f"New name for “{current}”:",
                                       QLineEdit.EchoMode.Normal, current)
        return bool(ok and new.strip()) and self.rename_saved_search(current, new)

    def rename_saved_search(self, old: str, new: str) -> bool:
        """Rename a saved search (undoable). Returns True when queued; a refusal comes
        back as a "⚠" message."""
        return self._window.run_edit(lambda lib: lib.saved_searches.rename(old, new))

    def delete_saved_search(self, name: str) -> bool:
        """Delete a saved search (undoable: Ctrl+Z saves it again)."""
        return self._window.run_edit(lambda lib: lib.saved_searches.delete(name))

    # -- running -----------------------------------------------------------------------------
    def open_saved_search(self, name: str) -> bool:
        """Choose the saved search ``name`` in the tag pane and run it over all papers.

        Returns:
            False if there is no such saved search.
        """
        if not self._window.tag_pane.select_saved(name, notify=False):
            return False
        saved = self._window.tag_pane.current_saved()
        self.run_saved_search(*saved)
        return True

    def run_saved_search(self, name: str, query: str) -> None:
        """The tag pane chose a saved search: put its query in the search box and run it
        over every paper (saved-search counts are for the whole library)."""
        if self._window.is_shut_down():
            return
        self._window.search.use_scope(Scope())
        if self._window.search_box.text() != query:
            self._window.search_box.setText(query)    # textChanged asks for a (debounced) search
        if query.strip():
            self._window.search.request_search(immediate=True)

    def leave_saved_search(self, query: str) -> None:
        """The search box changed: if it no longer holds the chosen saved search's
        query, choose the scope's entry instead (without a signal)."""
        saved = self._window.tag_pane.current_saved()
        if saved is not None and saved[1].strip() != query:
            self._window.tag_pane.select_scope(self._window.current_scope(), notify=False)

    # -- listing and counting ------------------------------------------------------------------
    def refresh_saved(self, immediate: bool = False) -> None:
        """Re-list the saved searches in the tag pane and count them again."""
        self._window.tag_pane.set_saved_searches(self._window.lib.saved_searches.all())
        self.count_saved(immediate)

    def count_saved(self, immediate: bool = False) -> None:
        """Count every saved search on the worker thread (no-op when there are none)."""
        entries = self._window.tag_pane.saved_entries()
        if entries:
            self._window.saved_counter.request([(name, query) for name, query, _n in entries],
                                               immediate=immediate)

    def show_saved_counts(self, counts) -> None:
        """Show the counts a :class:`SavedSearchCounter` made (``{name: papers}``)."""
        if not self._window.is_shut_down():
            self._window.tag_pane.set_saved_counts(counts)
