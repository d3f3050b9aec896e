"""The list's "Worth Reading First" order (View ▸ Worth Reading First, Ctrl+Shift+I):
:class:`InterestSort`, the window's ``interest_sort``.

The order is :meth:`paperdesk.core.discover.engine.Discover.interest` of the listed
papers, learned from what was starred, tagged or annotated and what was read and
skipped. It is never computed on the UI thread:

* listing (no query): the list first shows the scope in its natural order (date added),
  then the window's reader thread (``LibraryWorker.read``) computes the order of those
  ids and the rows are moved into it (:meth:`PaperTableModel.set_order`); an answer for
  a list that changed meanwhile is dropped;
* searching: the search thread sorts the matches (``lib.search.find(sort="interest")``).

The status bar says how the order was learned, or why it fell back to date order
(fewer than 5 papers kept). Each paper's Title tooltip names the words that moved it up.
When the term table must be built first (``TermsNotReady``), the list stays in date
order, the status bar says so, and the table is built by the window's one builder
(:class:`~paperdesk.ui.background.discover_runner.DiscoverRunner` through
``build_terms``, with progress and Cancel in the status bar); then the order is asked
for again. A header click (another sort) leaves the order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperdesk.core.api import InterestOrder, TermsNotReady

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["InterestSort", "interest_of", "REASONS_SHOWN", "MESSAGE_MS"]

#: Papers (from the top) whose "up: ..." words are computed for the tooltip.
REASONS_SHOWN = 1000
#: How long the order's message stays in the status bar, in ms.
MESSAGE_MS = 10000


def interest_of(lib, ids: list[int]) -> InterestOrder | str:
    """The interest order of ``ids`` (on a worker thread: reads SQLite, fits a model).

    Args:
        lib: the library.
        ids: the listed ids.
    Returns:
        The :class:`InterestOrder` (reasons for the first :data:`REASONS_SHOWN`), or the
        one-line reason the term table must be built first.
    """
    try:
        return lib.discover.interest(ids, with_reasons=REASONS_SHOWN)
    except TermsNotReady as exc:
        return str(exc)


class InterestSort:
    """"Worth reading first" for the window's list.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``model``, ``table``, ``worker``, ``actions_by_name``, ``query_text``,
            ``request_search``, ``reset_search_sort``, ``show_all``,
            ``is_shut_down`` and ``discover`` are used.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self._interest_generation = 0   # the list the last order was asked for

    def setup_interest_sort(self) -> None:
        """Connect the model's signal (called once the model, the actions and the
        window's discover runner exist)."""
        self._window.discover.discover_runner.finished.connect(self._on_interest_built)
        self._window.model.interestSortLeft.connect(lambda: self._check_interest(False))

    def _check_interest(self, on: bool) -> None:
        action = self._window.actions_by_name.get("sortInterestAction")
        if action is not None and action.isChecked() != on:
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)

    def set_interest_sort(self, on: bool) -> None:
        """Put the list in the "worth reading first" order, or back in date order
        (View ▸ Worth Reading First).

        Args:
            on: True for the interest order.
        """
        self._window.search.reset_search_sort()          # no column sort indicator
        self._window.model.set_interest_sort(on)
        self._check_interest(on)
        if self._window.search.query_text():
            self._window.search.request_search(immediate=True)
        else:
            self._window.search.show_all()

    def order_by_interest(self) -> None:
        """After the list was filled (not searching): ask the reader thread for the
        interest order of its rows."""
        model = self._window.model
        if not model.interest_sort or model.searching or self._window.is_shut_down():
            return
        if not model.complete:
            return      # the list's ids are still being read: asked again when all are
        self._interest_generation += 1
        generation, ids = self._interest_generation, self._window.model.ids()
        self._window.worker.read(lambda lib: interest_of(lib, ids),
                                 on_done=lambda answer: self._on_interest(generation, answer),
                                 on_failed=lambda message: self._window.statusBar().showMessage(
                                     f"Worth reading first failed: {message}", MESSAGE_MS),
                                 label="interest order")

    def _on_interest(self, generation: int, answer) -> None:
        if (self._window.is_shut_down() or generation != self._interest_generation
                or not self._window.model.interest_sort or self._window.model.searching):
            return                          # another list by now
        if isinstance(answer, str):
            self._interest_not_ready(answer)
            return
        # the selection follows its paper into the new order, scrolled into view (the
        # window follows the model's layoutChanged); it does not jump to the top
        if self._window.model.set_order(answer.ids, answer.reasons):
            self._window.statusBar().showMessage(answer.message, MESSAGE_MS)

    def interest_on_results(self, results) -> None:
        """Search results arrived: sorted by interest, keep the reasons and say how."""
        if not self._window.model.interest_sort:
            return
        if results.interest is None:
            self._interest_not_ready("the term table must be built")
            return
        self._window.model.set_reasons(results.interest.reasons)
        self._window.statusBar().showMessage(results.interest.message, MESSAGE_MS)

    def _interest_not_ready(self, reason: str) -> None:
        self._window.statusBar().showMessage(
            f"Worth reading first: {reason}; finding the papers' key terms (by date added "
            "until then)", MESSAGE_MS)
        self._window.discover.build_terms()

    def _on_interest_built(self, *_args) -> None:
        """The term table was built: ask for the order again."""
        if self._window.is_shut_down() or not self._window.model.interest_sort:
            return
        if self._window.search.query_text():
            self._window.search.request_search(immediate=True)
        else:
            self.order_by_interest()
