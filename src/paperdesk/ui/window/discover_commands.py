"""The window's discover commands (:class:`DiscoverCommands`, the window's ``discover``):
related papers, key terms and tag suggestions for the paper on show, and Back (Alt+Left).

* When another paper is shown (``DetailPane.paperChanged``), and after changes to titles,
  tags or the papers themselves, the window waits :data:`DISCOVER_DELAY_MS` of quiet and
  asks :func:`~paperdesk.ui.background.discover_runner.discover_answer` on the worker's
  reader thread; answers of an older request than the latest are dropped (a
  generation counter), so moving quickly through the list never shows another paper's
  related papers.
* When the term table must be built first (``TermsNotReady``), a
  :class:`~paperdesk.ui.background.discover_runner.DiscoverRunner` builds it on a thread
  of its own (not the reader's or the writer's), with "Finding related papers: reading
  40,000 of 100,000" and Cancel in the status bar; the window asks again when it is done.
  During an import the build waits for the import's end (one build of all the papers,
  not one per batch).
* Enter or a click on a related paper opens it; when the list does not hold it, the list
  shows all papers (the search cleared, "All papers" chosen) with it selected. A key
  term searches for it (the query of :func:`~paperdesk.core.discover.vectorize.term_query`
  in the search box). Both remember where the user was: **Back (Alt+Left)** returns to the
  paper, the search (with its results and sort), the sidebar's choice and the list's
  scroll position.
* Alt+1 … Alt+3 add the suggested tag 1-3 to the paper on show (one undo step), through
  the writer thread like the tag keys.
* Once related papers answer, papers without an embedding vector (all of them the first
  time, then those imported or retitled since) are embedded by an
  :class:`~paperdesk.ui.background.embedding_runner.EmbeddingRunner` on a thread of its
  own, with "Embedding papers for related papers: 2,000 of 100,000" and Cancel in the
  status bar; then the paper on show is asked again (related papers become the hybrid).
  Without the embedding model the status bar says so once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

from PySide6.QtCore import QTimer

from paperdesk.core.changes import Changes
from paperdesk.core.api import term_query
from paperdesk.core.scope import Scope
from paperdesk.ui.background.discover_runner import (NOT_READY, DiscoverAnswer,
                                                     DiscoverRunner, discover_answer)
from paperdesk.ui.background.embedding_runner import EmbeddingRunner

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["DiscoverCommands", "DISCOVER_DELAY_MS", "BACK_LIMIT"]

#: Quiet time after the paper on show changed before its related papers are asked for.
DISCOVER_DELAY_MS = 150
#: Wait before embedding papers is tried again while the window is busy.
EMBED_RETRY_MS = 1000
#: Places remembered for Back.
BACK_LIMIT = 50
#: Paper fields whose change can change related papers, key terms or suggestions.
_DISCOVER_FIELDS = frozenset({"title", "tags", "abstract"})
_BUILDING = "Finding related papers: building the word table…"
_AFTER_IMPORT = "Related papers are looked for when the import is done"


@dataclass(frozen=True)
class Place:
    """Where the user was, for Back: the paper, the list and its position.

    Attributes:
        paper_id: the paper on show (``None``: none).
        query: the search box's text.
        scope: the list's scope (source, tag, filter).
        saved: the saved search chosen in the sidebar, or ``None``.
        results: the search's results then (``None`` when listing or still searching).
        sort: ``(column, Qt.SortOrder)`` of the list.
        scroll: the list's vertical scroll position.
    """

    paper_id: int | None
    query: str
    scope: Scope
    saved: str | None
    results: object
    sort: tuple
    scroll: int


class DiscoverCommands:
    """Discover commands of the window (the window's ``discover``).

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``lib``, ``worker``, ``detail_pane``, ``model``, ``table``, ``search_box``,
            ``search_runner``, ``tag_pane``, ``import_runner``, ``progress_bar``,
            ``cancel_button``, ``run_edit``, ``select_row``, ``statusBar``, the
            progress-bar methods and the list methods (``show_all``,
            ``restore_selection``, ``request_search``, ``reshow_results``,
            ``use_scope``, ``search_results`` ...) are used.

    Attributes (after :meth:`setup_discover`):
        discover_runner: the :class:`DiscoverRunner`.
        discover_timer: the quiet time before the paper on show is asked about.
        discover_dropped: answers dropped because a newer request existed (for tests).
    """

    def __init__(self, window: MainWindow):
        self._window = window

    def setup_discover(self) -> None:
        """Create the runner and the timer and wire the reading pane (call once, after
        the worker and the runners exist)."""
        self.discover_runner = DiscoverRunner(self._window.lib, parent=self._window)
        self.discover_runner.progress.connect(self._on_terms_progress)
        self.discover_runner.finished.connect(self._on_terms_built)
        self.discover_runner.cancelled.connect(self._on_terms_cancelled)
        self.discover_runner.failed.connect(self._on_terms_failed)
        self.discover_timer = QTimer(self._window)
        self.discover_timer.setSingleShot(True)
        self.discover_timer.setInterval(DISCOVER_DELAY_MS)
        self.discover_timer.timeout.connect(self._ask_discover)
        self._discover_generation = 0
        self._terms_state = "idle"        # "building", "cancelled", "failed"
        self._back_stack: list[Place] = []
        self._pending_place: Place | None = None
        self.discover_dropped = 0
        pane = self._window.detail_pane
        pane.paperChanged.connect(self._on_discover_paper)
        pane.relatedOpenRequested.connect(self.open_paper)
        pane.relatedBuildRequested.connect(self.build_terms)
        pane.termSearchRequested.connect(self.search_term)
        pane.suggestionAccepted.connect(lambda i: self.accept_suggestion(i + 1))
        self._window.worker.changed.connect(self._discover_on_changed)
        self._window.import_runner.finished.connect(lambda _report: self._refresh_discover())
        self.embedding_runner = EmbeddingRunner(self._window.lib, parent=self._window)
        self.embedding_runner.progress.connect(self._on_embedding_progress)
        self.embedding_runner.finished.connect(self._on_embedded)
        self.embedding_runner.cancelled.connect(self._on_embedding_stopped)
        self.embedding_runner.failed.connect(self._on_embedding_stopped)
        self._vectors_due = True          # papers may lack a vector: embed at next answer
        self._embedding_said = False      # "not installed" is said once
        self._embedding = False           # started, its outcome not delivered yet
        self._asking = False              # a discover answer is on its way
        self._window.search_runner.resultsReady.connect(self._place_after_results)

    def shutdown_discover(self) -> None:
        """Stop asking and stop the runner (the window is closing)."""
        self.discover_timer.stop()
        self._discover_generation += 1
        self.discover_runner.shutdown()
        self.embedding_runner.shutdown()

    def discover_busy(self) -> bool:
        """True while the related papers of the paper on show are being looked for
        (waiting for the delay, on the reader thread, or the term table is built)."""
        pane = self._window.detail_pane
        return (self.discover_timer.isActive() or self.discover_runner.is_running()
                or self._embedding or self._asking
                or (pane.paper_id is not None and pane.discover_paper_id != pane.paper_id
                    and self._terms_state not in ("cancelled", "failed")))

    # -- asking ---------------------------------------------------------------------------
    def _on_discover_paper(self, paper_id) -> None:
        if self._window.is_shut_down():
            return
        self._discover_generation += 1      # drop what is on its way for the paper before
        if paper_id is None:
            self.discover_timer.stop()
            self._asking = False
        else:
            self.discover_timer.start()

    def _refresh_discover(self) -> None:
        """Ask again for the paper on show (after a change), after the quiet time."""
        if not self._window.is_shut_down() and self._window.detail_pane.paper_id is not None:
            self.discover_timer.start()

    def _discover_on_changed(self, change: Changes) -> None:
        if change.sources or change.fields & {"title", "abstract"}:
            self._vectors_due = True
        if change.sources or change.tags or (change.fields & _DISCOVER_FIELDS):
            self._refresh_discover()

    def _ask_discover(self) -> None:
        pid = self._window.detail_pane.paper_id
        if pid is None or self._window.is_shut_down():
            return
        if self.discover_runner.is_running():
            self._window.detail_pane.show_discover_note(_BUILDING)
            return      # asked again when the table is built
        self._discover_generation += 1
        generation = self._discover_generation
        self._asking = True
        self._window.worker.read(
            lambda lib: discover_answer(lib, pid),
            on_done=lambda answer: self._on_discover_answer(generation, answer),
            on_failed=lambda message: self._on_discover_failed(generation, message),
            label="related papers")

    def _on_discover_answer(self, generation: int, answer: DiscoverAnswer) -> None:
        if generation == self._discover_generation:
            self._asking = False
        if self._window.is_shut_down() or generation != self._discover_generation \
                or answer.paper_id != self._window.detail_pane.paper_id:
            self.discover_dropped += 1
            return
        if answer.state == NOT_READY:
            if self._terms_state in ("cancelled", "failed"):
                self._window.detail_pane.show_discover_note(
                    "Related papers need the word table, which was not built", True)
            elif self._window.import_runner.is_running():
                # many papers are coming in: one build when they are all in (the import's
                # end asks again), not one after each batch
                self._window.detail_pane.show_discover_note(_AFTER_IMPORT)
            else:
                self.build_terms()
            return
        self._window.detail_pane.show_discover(answer)
        self.embed_papers()

    def _on_discover_failed(self, generation: int, message: str) -> None:
        if generation == self._discover_generation:
            self._asking = False
        if self._window.is_shut_down() or generation != self._discover_generation:
            return
        self._window.detail_pane.show_discover_note(f"Related papers not found: {message}")

    # -- building the term table -------------------------------------------------------------
    def build_terms_for_overview(self, on_done) -> None:
        """Build the term table for View ▸ Overview's key terms (its "Build Key Terms"
        button), as :meth:`build_terms` does; ``on_done()`` runs in the UI thread once it
        is built (or at once when a build runs already and ends later, at its end)."""
        state = {"done": False}

        def finished(*_args) -> None:
            if not state["done"]:
                state["done"] = True
                on_done()

        self.discover_runner.finished.connect(finished)
        if not self.build_terms() and not self.discover_runner.is_running():
            finished()

    def build_terms(self) -> bool:
        """Build the term table the related papers, key terms and suggestions come from,
        on the discover runner's thread, with progress and Cancel in the status bar.

        Returns:
            False when a build runs already (or after shutdown).
        """
        if self._window.is_shut_down() or not self.discover_runner.start():
            return False
        self._terms_state = "building"
        self._window.detail_pane.show_discover_note(_BUILDING)
        if not (self._window.import_runner.is_running() or self._window.export_runner.is_running()
                or self._window.progress_shown("sync") or self._window.progress_shown("check")
                or self._window.progress_shown("duplicates")):
            self._window.mark_progress_shown("discover")
            self._window.progress_bar.setRange(0, 0)
            self._window.progress_bar.setFormat("Finding related papers…")
            self._window.progress_bar.show()
            self._window.cancel_button.setEnabled(True)
            self._window.cancel_button.setToolTip(
                "Stop building the word table for related papers (nothing else is affected)")
            self._window.cancel_button.show()
        return True

    def cancel_terms_build(self) -> None:
        """Stop the running term-table build (the status bar's Cancel)."""
        self.discover_runner.cancel()
        self._window.cancel_button.setEnabled(False)
        self._window.progress_bar.setFormat("Stopping…")

    def _on_terms_progress(self, done: int, total: int) -> None:
        if self._window.progress_shown("discover"):
            self._window.background_progress("discover", done, total, 0,
                                             "Stop building the word table for related papers",
                                             "Finding related papers: reading %v of %m")

    def _end_terms_progress(self) -> None:
        self._window.end_background_progress("discover")

    def _on_terms_built(self) -> None:
        self._end_terms_progress()
        self._terms_state = "idle"
        self._ask_discover()

    def _on_terms_cancelled(self) -> None:
        self._end_terms_progress()
        self._terms_state = "cancelled"
        self._window.detail_pane.show_discover_note(
            "Not looked for: building the word table was cancelled", True)
        self._window.statusBar().showMessage("Related papers: cancelled (Find related papers "
                                     "in the reading pane starts again)", 6000)

    def _on_terms_failed(self, message: str) -> None:
        self._end_terms_progress()
        self._terms_state = "failed"
        self._window.detail_pane.show_discover_note(f"Related papers not found: {message}", True)

    # -- embedding papers ---------------------------------------------------------------------
    def embed_papers(self) -> bool:
        """Embed the papers that have no vector, on the embedding runner's thread, unless
        nothing changed since the last run, an import runs, or it runs already; while
        the window is busy otherwise (a search, an index update, the term table's
        build) it tries again :data:`EMBED_RETRY_MS` later.

        Returns:
            True when a run was started.
        """
        if not self._vectors_due or self._window.is_shut_down() \
                or self._window.import_runner.is_running():
            return False                # an import's end asks again
        if self._window.is_busy() or self.discover_runner.is_running():
            QTimer.singleShot(EMBED_RETRY_MS, self.embed_papers)   # after the rest
            return False
        if not self.embedding_runner.start():
            return False
        self._vectors_due = False
        self._embedding = True
        return True

    def cancel_embedding(self) -> None:
        """Stop embedding (the status bar's Cancel); the papers done keep their vectors."""
        self.embedding_runner.cancel()
        self._window.cancel_button.setEnabled(False)
        self._window.progress_bar.setFormat("Stopping…")

    def _on_embedding_progress(self, done: int, total: int) -> None:
        self._window.background_progress("embed", done, total, 200,
                                         "Stop embedding papers (related papers stay "
                                         "tf-idf's for the papers not done)",
                                         "Embedding papers for related papers: %v of %m")

    def _on_embedded(self, outcome) -> None:
        self._embedding = False
        self._window.end_background_progress("embed")
        if isinstance(outcome, str):
            if not self._embedding_said:
                self._embedding_said = True
                self._window.statusBar().showMessage(outcome[:1].upper() + outcome[1:],
                                                     10000)
        elif outcome:
            self._refresh_discover()

    def _on_embedding_stopped(self, message: str = "") -> None:
        self._embedding = False
        self._window.end_background_progress("embed")
        self._window.statusBar().showMessage(
            f"Embedding papers: {message or 'cancelled'} (the papers done are kept; the "
            "rest are embedded after the next import)", 6000)

    # -- opening a related paper, searching a key term, Back ---------------------------------
    def _place(self) -> Place:
        window = self._window
        saved = window.tag_pane.current_saved()
        results = window.search.results
        return Place(window.detail_pane.paper_id, window.search_box.text(),
                     window.current_scope(),
                     saved[0] if saved is not None and results is not None else None,
                     results, (window.model.sort_column, window.model.sort_order),
                     window.table.verticalScrollBar().value())

    def _push_place(self) -> None:
        self._back_stack.append(self._place())
        del self._back_stack[:-BACK_LIMIT]

    def open_paper(self, paper_id: int) -> bool:
        """Show paper ``paper_id`` (a related paper: Enter or a click), remembering where
        the user was for Back (Alt+Left). When the list does not hold it, the list shows
        all papers (the search is cleared, "All papers" chosen) with it selected.

        Returns:
            False when the window is shut down. A paper that is not in the library
            is said so (a message) once all papers are listed (read off the UI
            thread), and the place pushed for Back is dropped again.
        """
        if self._window.is_shut_down():
            return False
        if paper_id == self._window.detail_pane.paper_id:
            return True
        self._push_place()
        row = self._window.model.row_of(paper_id)
        if row < 0:
            self._window.search_runner.cancel()
            self._pending_place = None
            self._window.tag_pane.select_scope(Scope(), notify=False)
            self._window.search.use_scope(Scope())
            self._window.search_box.blockSignals(True)
            self._window.search_box.clear()
            self._window.search_box.blockSignals(False)
            self._window.search.show_all(keep=paper_id,
                                         then=lambda: self._opened_in_all(paper_id))
            return True
        self._window.select_row(row)
        return True

    def _opened_in_all(self, paper_id: int) -> None:
        """All papers are listed (UI thread; the ids were read on the reader thread):
        select ``paper_id``, or say it is no longer in the library."""
        row = self._window.model.row_of(paper_id)
        if row < 0:
            if self._back_stack:
                self._back_stack.pop()
            self._window.show_error(f"Paper #{paper_id} is no longer in the library")
            return
        self._window.statusBar().showMessage(
            "Showing all papers to open it — Alt+Left goes back", 4000)
        self._window.select_row(row)

    def search_term(self, term: str) -> None:
        """Search for a key term (a chip's click or Enter): its query goes into the search
        box and the normal search runs; Back (Alt+Left) returns to the list before."""
        if self._window.is_shut_down():
            return
        self._push_place()
        self._window.search_box.setText(term_query(term))
        self._window.search.flush_search()
        self._window.statusBar().showMessage(
            f"Searching for the key term “{term}” — Alt+Left goes back", 4000)

    def go_back(self) -> bool:
        """Back (Alt+Left): return to the paper and the list shown before the last related
        paper or key term was opened (search text and results, sidebar choice, sort,
        scroll position).

        Returns:
            False when there is nowhere to go back to (a message says so).
        """
        if self._window.is_shut_down():
            return False
        if not self._back_stack:
            self._window.statusBar().showMessage("Nothing to go back to (Alt+Left returns after a "
                                         "related paper or a key term was opened)", 4000)
            return False
        place = self._back_stack.pop()
        self._restore_place(place)
        return True

    def _restore_place(self, place: Place) -> None:
        self._window.search_runner.cancel()
        self._pending_place = None
        self._window.search.use_scope(place.scope)
        tag_pane = self._window.tag_pane
        if place.saved is None or not tag_pane.select_saved(place.saved, notify=False):
            self._window.tag_pane.select_scope(place.scope, notify=False)
        self._window.search_box.blockSignals(True)
        self._window.search_box.setText(place.query)
        self._window.search_box.blockSignals(False)
        column, order = place.sort
        self._window.model.sort_column, self._window.model.sort_order = column, order
        header = self._window.table.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(column, order)
        header.blockSignals(False)
        query = place.query.strip()
        if query and place.results is not None and place.results.query == query:
            self._window.search.reshow_results(place.results, place.paper_id)
            # fresh results; the paper stays current
            self._window.search.request_search(immediate=True)
        elif query:       # the search had not answered then: run it, then place the paper
            self._pending_place = place
            self._window.search.request_search(immediate=True)
            return
        else:       # the list's ids are read off the UI thread: finished when in
            self._window.search.show_all(keep=place.paper_id,
                                         then=lambda: self._finish_place(place))
            return
        self._finish_place(place)

    def _finish_place(self, place: Place) -> None:
        if place.paper_id is not None and self._window.current_paper_id() == place.paper_id:
            self._window.reading.choose_current()
        bar = self._window.table.verticalScrollBar()
        bar.setValue(place.scroll)
        QTimer.singleShot(
            0, lambda: not self._window.is_shut_down() and bar.setValue(place.scroll))

    def _place_after_results(self, _generation: int, results, _complete: bool) -> None:
        place = self._pending_place
        if place is None or results.query != place.query.strip():
            return
        self._pending_place = None
        row = self._window.model.row_of(place.paper_id)
        if row >= 0:
            self._window.select_row(row)
        self._finish_place(place)

    # -- keys ------------------------------------------------------------------------------
    def focus_related(self) -> bool:
        """Move the keyboard focus into the related papers (L): ↑/↓ choose, Enter opens,
        Tab goes on to the key terms, Esc back to the list.

        Returns:
            False (with a message) when the paper on show has no related papers (yet).
        """
        self._window.reveal_reading_pane()
        if self._window.detail_pane.focus_related():
            return True
        self._window.statusBar().showMessage("No related papers to go to for this paper"
                                     + (" yet" if self.discover_busy() else ""), 4000)
        return False

    def accept_suggestion(self, n: int) -> bool:
        """Add suggested tag ``n`` (1-3, Alt+1 … Alt+3) to the paper on show, as one undo
        step on the writer thread; the suggestions are asked for again after.

        Returns:
            False (with a message) when there is no such suggestion for the paper shown.
        """
        pane = self._window.detail_pane
        pid = pane.paper_id
        chips = pane.chips.suggestion_chips()
        if pid is None or pane.discover_paper_id != pid or not 1 <= n <= len(chips):
            self._window.statusBar().showMessage(f"No tag suggestion {n} for this paper", 4000)
            return False
        name = chips[n - 1].suggestion.name
        return self._window.run_edit(lambda lib: lib.tags.add([pid], name))

    def accept_suggestion_1(self) -> bool:
        """Alt+1: add the first suggested tag."""
        return self.accept_suggestion(1)

    def accept_suggestion_2(self) -> bool:
        """Alt+2: add the second suggested tag."""
        return self.accept_suggestion(2)

    def accept_suggestion_3(self) -> bool:
        """Alt+3: add the third suggested tag."""
        return self.accept_suggestion(3)

