"""The search controller: the search box, its debounced searches and their results in
the list.

:class:`SearchController` (the window's ``search``) owns what the list covers (its
:class:`~paperdesk.core.scope.Scope`) and the search on show: typing in the search box
asks the window's :class:`~paperdesk.ui.background.workers.SearchRunner` (debounced, on
its own thread) for the query in the scope and sort order; the results it sends back
(only those of the query still in the box) fill the list, with the Snippet column, the
"Did you mean …" line and the status bar's counts. Without a query the list shows the
scope. It listens to the worker's ``changed`` signal
(:class:`~paperdesk.core.changes.Changes`) itself: a change of indexed text makes the
search on show stale, and it runs again once the search index has caught up
(:meth:`SearchController.on_index_synced`). Whenever the rows change, the paper the user
was on stays selected, or the nearest one (:meth:`SearchController.kept_paper`,
:mod:`paperdesk.ui.window.kept_paper`); a row placed so is never marked read until the
user moves to it.
"""

from __future__ import annotations

import html
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from paperdesk.core.changes import Changes
from paperdesk.core.models import SearchResults
from paperdesk.core.scope import Scope
from paperdesk.core.api import MatchTerms
from paperdesk.ui.panes.search_columns import (fit_search_columns, hide_search_layout,
                                               show_search_layout)
from paperdesk.ui.window.kept_paper import nearest_listed
from paperdesk.ui.style.colours import muted_colour
from paperdesk.ui.style.formatting import tooltip_html

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["SearchController", "QUOTE_CHARS", "quoted"]

#: Longest piece of a query quoted back in the status bar, in characters.
QUOTE_CHARS = 60
#: Fields of a :class:`Changes` that searches answer from SQLite, not the index
#: (:mod:`paperdesk.core.search.state_terms`): a change of only these is searchable at once.
_ANSWERED_BY_SQLITE = frozenset({"tags", "read", "starred"})


def quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` in curly quotes, cut to ``limit`` characters with "…"."""
    text = " ".join(text.split())
    return "“" + (text if len(text) <= limit else text[:limit - 1] + "…") + "”"


class SearchController:
    """The search box, the searches and what the list covers.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``search_box``, ``suggestion_label``, ``table``, ``model``,
            ``search_runner``, ``worker``, ``saved_searches``, ``interest_sort``,
            ``reading``, ``select_row``, ``current_paper_id``, ``update_status``,
            ``status_label``, ``is_shut_down``, ``palette`` and ``statusBar`` are used.
            Built before the window's widgets; :meth:`connect` wires it once the search
            runner and the worker exist.

    Attributes:
        scope: what the list covers (source, tag or filter; :meth:`use_scope`).
        results: the search results on show (``None`` when listing).
        results_complete: whether they are all the matches (a large search lists its
            best hits first).
        searching_columns: the Title and Snippet columns share the width (a search is
            shown).
        stale: indexed text changed since the search on show last ran.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.scope = Scope()
        self.results: SearchResults | None = None
        self.results_complete = True
        self.searching_columns = False
        self.stale = False
        self._suggestion: str | None = None   # "Did you mean" query on show
        self._instead = ""      # the status message of the last suggestion applied
        self._followed = 0      # papers indexed when a partial search was last re-run
        self._followed_at = 0.0     # time.monotonic() of that re-run

    def connect(self) -> None:
        """Wire the search box, the search runner, the list's header sort and the
        worker's committed changes (call once they exist)."""
        window = self._window
        window.search_box.textChanged.connect(self.on_search_text)
        window.suggestion_label.linkActivated.connect(lambda _link: self.apply_suggestion())
        window.search_runner.resultsReady.connect(self.show_results)
        window.search_runner.searchFailed.connect(self.show_failure)
        window.model.searchSortRequested.connect(self.on_search_sort)
        window.worker.changed.connect(self.on_changed)

    def on_changed(self, change: Changes) -> None:
        """A committed change: if it changed indexed text, the search on show is run
        again once the index has caught up (:meth:`on_index_synced`). A change of tags or
        read/star marks only is searchable at once (``tag:``, ``is:starred`` ... are
        answered from SQLite): the saved searches are counted again now, and a search
        on show that it may change (``change.search``) runs again now."""
        if not change:
            return
        if change.fields and change.fields <= _ANSWERED_BY_SQLITE and not (
                change.notes or change.highlights or change.sources):
            self._window.saved_searches.count_saved()
            if change.search and self.query_text() and self.results is not None:
                self.request_search(immediate=True)
            return
        self.stale = self.stale or change.search

    def search_results(self) -> tuple[SearchResults | None, bool]:
        """The results the list shows while searching (``None`` when listing) and
        whether they are complete (a large search lists its best hits first)."""
        return self.results, self.results_complete

    def reshow_results(self, results: SearchResults, keep: int | None) -> None:
        """Show ``results`` again, as complete, without searching (Back to a search: the
        search box already holds their query), with paper ``keep`` current if listed."""
        self._set_results(results)
        self.results_complete = True
        self.show_suggestion(results)
        self._window.model.show_results(results, scope=self.scope)
        if not self.searching_columns:
            self.show_snippet_column()
        self.restore_selection(keep)
        self._window.update_status(filters=())

    def use_scope(self, scope: Scope) -> None:
        """Make ``scope`` what the list covers without listing it again (the caller
        runs the search, e.g. a saved search over all papers)."""
        self.scope = scope

    def query_text(self) -> str:
        """The query in the search box, stripped ("" when not searching)."""
        return self._window.search_box.text().strip()

    def kept_paper(self) -> int | None:
        """The paper a change of the list (a search, clearing it, a sort, an order, a
        filter) keeps selected: the one the user last moved to
        (``reading.last_chosen_id``), not a row the window put first meanwhile; the
        current paper when the user has chosen none."""
        chosen = self._window.reading.last_chosen_id
        return chosen if chosen is not None else self._window.current_paper_id()

    def show_all(self, keep: int | None = None, then=None) -> None:
        """List the scope (not searching), keeping paper ``keep`` (default:
        :meth:`kept_paper`) current if it is listed, else the nearest listed paper to it
        (or to the paper current before) in the list shown before
        (:func:`~paperdesk.ui.window.kept_paper.nearest_listed`), else the first row.

        The ids are read on the reader thread (the model's id reader): the selection is
        placed when the first rows arrive (the list shows the rows before until then),
        or, when ``keep`` is not among them, once every id is in (the first row is
        current meanwhile); the interest order is asked for once every id is in.
        ``then()`` (UI thread) runs once the selection is placed."""
        model = self._window.model
        before = model.listed_ids()     # (no copy: the model replaces, not changes, it)
        current = self._window.current_paper_id()
        keep = keep if keep is not None else self.kept_paper()
        self._set_results(None)
        self.show_suggestion(None)

        placed = [False]

        def place() -> None:
            placed[0] = True
            if model.row_of(keep) >= 0:
                self.restore_selection(keep)
            else:
                listed = model.listed_ids()
                nearest = nearest_listed(before, keep, listed)
                self.restore_selection(nearest if nearest is not None
                                       else nearest_listed(before, current, listed))
            if then is not None:
                then()

        def rows_shown() -> None:   # the first rows (the ids are read off the UI thread)
            placed[0] = False
            if self._window.is_shut_down():
                return
            self.hide_snippet_column()
            if model.row_of(keep) >= 0 or model.complete or keep is None:
                place()
            elif model.rowCount():   # the paper may be further down: placed when all are
                self.restore_selection(None)

        def all_shown() -> None:
            if self._window.is_shut_down():
                return
            if not placed[0]:
                place()
            # worth reading first: reordered off the UI thread
            self._window.interest_sort.order_by_interest()

        model.show_all(scope=self.scope, on_rows=rows_shown, on_complete=all_shown)
        self._window.update_status()

    def restore_selection(self, paper_id: int | None, fallback_row: int = 0) -> None:
        """After the rows changed: make ``paper_id`` current again, or the row
        ``fallback_row`` (clamped). Placed by the window, not the user: a paper other
        than the one the user chose is not marked read until the user moves to it."""
        row = self._window.model.row_of(paper_id)
        if row < 0:
            row = min(max(fallback_row, 0), self._window.model.rowCount() - 1)
        if not self._window.select_row(row, by_user=False):
            self._window.reading.clear_detail(self._window.empty_hint())

    def flush_search(self) -> None:
        """Run a pending debounced search now (Enter should not wait for the timer)."""
        self._window.search_runner.flush()

    def request_search(self, immediate: bool = False) -> int:
        """Ask for the search box's query in the current scope and sort order."""
        sort, descending = self._window.model.search_sort()
        return self._window.search_runner.request(self.query_text(), scope=self.scope,
                                                  immediate=immediate, sort=sort,
                                                  descending=descending)

    def reset_search_sort(self) -> None:
        """A new search starts in relevance order (no sort indicator)."""
        self._window.model.reset_sort()
        header = self._window.table.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)
        header.viewport().update()

    def on_search_text(self, text: str) -> None:
        """The search box changed: search (debounced), or list the scope again when
        the box was emptied."""
        query = text.strip()
        self._window.saved_searches.leave_saved_search(query)
        if not query:
            self._window.search_runner.cancel()
            self.show_suggestion(None)
            if self.results is not None:
                self.show_all()
            return
        if self.results is None:
            self.reset_search_sort()
        self.request_search()

    def on_search_sort(self, sort: str, descending: bool) -> None:
        """A header click while searching: search again in that order (the worker sorts)."""
        if self.query_text() and not self._window.is_shut_down():
            self.request_search(immediate=True)

    def list_scope(self, scope: Scope) -> None:
        """Make ``scope`` what the list covers and list it (the search box's query is
        run within it, if there is one): the tag pane's choice."""
        self.scope = scope
        if self.query_text():
            self.request_search(immediate=True)
        else:
            self.show_all()

    def show_snippet_column(self) -> None:
        """Show the Snippet column as a search's results arrive, in two-line rows
        (:func:`~paperdesk.ui.panes.search_columns.show_search_layout`); it is fitted
        again whenever the list's width changes while searching."""
        self.searching_columns = True
        show_search_layout(self._window.table)

    def fit_search_columns(self) -> None:
        """Share the list's width between Title and Snippet while searching
        (:func:`~paperdesk.ui.panes.search_columns.fit_search_columns`)."""
        fit_search_columns(self._window.table)

    def hide_snippet_column(self) -> None:
        """Hide the Snippet column when the search is cleared; rows are one line again
        and the Title stretches over the list's width, as before the search."""
        self.searching_columns = False
        hide_search_layout(self._window.table)

    def _set_results(self, results: SearchResults | None) -> None:
        """Keep ``results`` as the ones listed; the ids of those they replace (a list of
        up to a million Python ints, made on the search thread) are freed a slice at a
        time (:meth:`PaperTableModel.free_later`), not at once on the UI thread. Results
        shown again later (Back) make that list again."""
        old, self.results = self.results, results
        if old is not None and old is not results:
            ids = old.__dict__.pop("id_list", None)    # (a cached_property's value)
            if ids is not None:
                self._window.model.free_later(ids)

    def show_results(self, generation: int, results: SearchResults, complete: bool) -> None:
        """The search runner's results (``complete``: all the matches): put them in the
        list, unless the box holds another query by now."""
        if self._window.is_shut_down() or results.query != self.query_text():
            return
        same_query = self.results is not None and self.results.query == results.query
        if complete and same_query and not self.results_complete and \
                self._window.model.extend_results(results):
            # every match after the best ones listed: rows added below, nothing repainted
            self.results_complete = True
            self._set_results(results)
            self._window.interest_sort.interest_on_results(results)
            self._status_after(results)
            return
        self.results_complete = complete
        kept, current = self.kept_paper(), self._window.current_paper_id()
        keep_row = self._window.table.currentIndex().row() if same_query else 0
        self._set_results(results)
        self._drop_instead_message(results.query)
        self.show_suggestion(results)
        self._window.model.show_results(results, scope=self.scope)
        self._window.interest_sort.interest_on_results(results)
        if not self.searching_columns:
            self.show_snippet_column()
        # the user's paper when it is a hit; else the paper on show (a hit put first
        # before, the same search sorted again), else its row or the top hit
        self.restore_selection(kept if self._window.model.row_of(kept) >= 0 else current,
                               keep_row)
        self._status_after(results)

    def _status_after(self, results: SearchResults) -> None:
        """The status bar once ``results`` are listed (a search changes no filter's
        count), following the index when it got further meanwhile."""
        self._window.update_status(filters=())
        status = self._window.index_status
        if results.partial and status is not None:
            self.follow_index(status.indexed, status.complete)

    def show_failure(self, generation: int, message: str) -> None:
        """The search failed: the status bar says why (one line)."""
        self._window.status_label.setText(f"Search failed: {message}")
        self._window.status_label.setToolTip(tooltip_html(self._window.status_label.text()))

    def fetch_snippets(self, query: str, ids: list, deliver) -> None:
        """Cut the snippets of a block of listed hits on the reader thread (the list
        shows "…" in their cells until ``deliver`` runs, in the UI thread)."""
        def done(found) -> None:
            if not self._window.is_shut_down():
                deliver(found)

        self._window.worker.read(lambda lib: lib.search.snippets(query, ids), on_done=done,
                                 on_failed=lambda _message: None, label="snippets")

    def match_terms(self) -> MatchTerms | None:
        """What the shown search matched, for highlighting (``None`` when not searching).
        Computed with ``lib.search.match_terms`` on the search thread."""
        if self.results is None:
            return None
        return self._window.search_runner.terms_for(self.results.query)

    def show_suggestion(self, results: SearchResults | None) -> None:
        """Show "Did you mean …" under the search box when ``results`` offer a better
        query; hide it otherwise."""
        suggestion = results.suggestion if results is not None else None
        if not suggestion or suggestion.strip() == results.query.strip():
            self._suggestion = None
            self._window.suggestion_label.hide()
            self._window.suggestion_label.clear()
            return
        self._suggestion = suggestion
        self._window.suggestion_label.setText(
            f'Did you mean <a href="suggestion"><b>{html.escape(suggestion)}</b></a>?'
            f'&nbsp;&nbsp;<span style="color:{muted_colour(self._window.palette())};">'
            'Ctrl+Enter</span>')
        self._window.suggestion_label.setToolTip(tooltip_html(
            f"Search for {quoted(suggestion)} instead (click, or Ctrl+Enter in the search "
            "box)"))
        self._window.suggestion_label.show()

    def suggestion(self) -> str | None:
        """Return the "Did you mean" query on show, or ``None``."""
        return self._suggestion

    def apply_suggestion(self) -> bool:
        """Search for the "Did you mean" query instead (a click on it, or Ctrl+Enter in
        the search box). Returns False when none is shown."""
        suggestion = self._suggestion
        if not suggestion:
            return False
        self._window.search_box.setText(suggestion)
        self.flush_search()
        self._instead = f"Searching for {quoted(suggestion)} instead"
        self._window.statusBar().showMessage(self._instead, 4000)
        return True

    def _drop_instead_message(self, query: str) -> None:
        """Results of another query than the "Did you mean" one arrived: take its
        "Searching for … instead" off the status bar (it hid the new search's counts
        for the rest of its 4 seconds)."""
        if not self._instead or self._instead == f"Searching for {quoted(query)} instead":
            return      # (the suggested query's own results)
        if self._window.statusBar().currentMessage() == self._instead:
            self._window.statusBar().clearMessage()
        self._instead = ""

    #: While the index catches up, a search that covered part of the library is run
    #: again at most this often (seconds), so that its "searched N of M papers" note
    #: follows the progress bar; when the index has every paper, at once.
    FOLLOW_INDEX_S = 2.0

    def follow_index(self, indexed: int, complete: bool) -> None:
        """The index's progress (papers searchable ``indexed``; ``complete``: all of
        them): a search on show that covered fewer papers is run again (throttled to
        :attr:`FOLLOW_INDEX_S`; each count once), so that its note follows the index
        and goes once the index has every paper."""
        results = self.results
        if self._window.is_shut_down() or results is None or not results.partial \
                or not self.query_text():
            return
        if indexed <= (results.indexed or 0) or indexed == self._followed:
            return      # (searched that far already, or asked for it: no loop)
        now = time.monotonic()
        if not complete and now - self._followed_at < self.FOLLOW_INDEX_S:
            return
        self._followed, self._followed_at = indexed, now
        self.request_search(immediate=True)

    def on_index_synced(self, applied: int) -> None:
        """The search index caught up with changes: re-run a visible search if indexed
        text (titles, tags, notes, highlight comments) changed."""
        if self._window.is_shut_down() or not applied:
            return
        self._window.saved_searches.count_saved()
        partial = self.results is not None and self.results.partial
        if not self.stale and not partial:
            return
        self.stale = False
        if self.query_text() and self.results is not None:
            self.request_search(immediate=True)
