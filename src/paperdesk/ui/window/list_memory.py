"""What the list showed when the window closed, brought back when it opens again (issue
32, item 4): :class:`ListMemory`, the window's ``list_memory``.

Zotero opens on the collection it was left on; paperdesk opens on the sidebar's filter or
tag, the saved search and the order ("worth reading first") it was left on, besides the
selected paper, the column sort and the window's geometry
(:meth:`~paperdesk.ui.window.main_window.MainWindow.restore_state`). The choice is kept in
the preferences (:meth:`~paperdesk.ui.app.settings.Settings.list_choice`,
:attr:`~paperdesk.ui.app.settings.Settings.interest_order`), the filter, tag and saved
search for the library they belong to. A tag or saved search deleted meanwhile is
skipped (all papers are listed). A file chosen in the sidebar is not brought back (the
files are listed only after the window opens).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.scope import Scope

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["ListMemory"]


class ListMemory:
    """Stores and restores the list's filter or tag, saved search and order.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``lib``, ``settings``, ``tag_pane``, ``model``, ``search``,
            ``interest_sort``, ``saved_searches`` and ``set_checked`` are used.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self._saved_search: str | None = None   # the saved search to run once listed

    def restore_before_listing(self) -> None:
        """Before the list is first filled: choose the stored filter or tag in the
        sidebar (if it still exists), so that the list is filled with its papers."""
        window = self._window
        scope, self._saved_search = window.settings.list_choice(window.lib.path)
        if scope != Scope() and window.tag_pane.select_scope(scope, notify=False):
            window.search.use_scope(scope)

    def restore_after_listing(self) -> None:
        """Once the list is filled and the column sort restored (which leaves any
        order): put the list in the stored order, asked of the reader thread
        (:meth:`~paperdesk.ui.window.interest_sort.InterestSort.order_by_interest`), and
        run the stored saved search again, if it still exists (over all papers, as when
        chosen; in that order)."""
        window = self._window
        if window.settings.interest_order:
            window.model.set_interest_sort(True)
            window.set_checked("sortInterestAction", True)
            window.interest_sort.order_by_interest()
        name, self._saved_search = self._saved_search, None
        if name is not None and self._window.tag_pane.saved_item(name) is not None:
            self._window.saved_searches.open_saved_search(name)

    def save(self) -> None:
        """Store the list's filter or tag, the saved search chosen (while the search box
        still holds its query) and whether the list is in the "worth reading first"
        order (called as the window closes)."""
        window = self._window
        saved = window.tag_pane.current_saved()
        window.settings.set_list_choice(window.lib.path, window.search.scope,
                                        saved[0] if saved is not None else None)
        window.settings.interest_order = window.model.interest_sort
