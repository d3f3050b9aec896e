"""View ▸ Overview (Ctrl+Shift+L): what the library holds, as bar charts, each bar a way
into the paper list.

A non-modal window (:class:`OverviewWindow`, objectName ``overviewWindow``) beside the
main window: papers per source file, per tag, per week added, read versus unread, and
the most frequent key terms (:func:`paperdesk.core.overview.overview`, counted on the
window's reader thread, never on the UI thread; counted again when the library changes
while it is open). Activating a bar (Enter on the highlighted one, or a click) makes
the main list show those papers, as the sidebar or a search would, and keeps the
overview open to try another:

* a file → that file's papers (the sidebar's file entry); a tag → that tag;
* Unread → the sidebar's Unread filter; Read → the search ``is:read``;
* a week → the search ``added:2026-11-23..2026-11-29`` (local dates, the week's Monday
  to Sunday; "Earlier" → ``added:..DAY``);
* a key term → a search for it (:func:`paperdesk.core.discover.vectorize.term_query`).

Until the term table is built the key-terms chart says so
(:data:`paperdesk.core.overview.TERMS_NOTE`); it is never built from here. A window
that can build it sets :attr:`OverviewWindow.terms_builder`, and the chart offers it.

Keys: see :mod:`.overview_chart` (↑ / ↓, Page Up / Page Down, ← / →, Home / End,
Enter); Esc closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLabel, QPushButton, QScrollArea,
                               QVBoxLayout, QWidget)

from paperdesk.core.api import term_query
from paperdesk.core.overview import Overview, overview
from paperdesk.core.scope import FILTER_LABELS, Scope
from paperdesk.ui.window.overview_chart import Bar, Chart, OverviewChart

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["OverviewWindow", "OverviewCommands", "charts_of", "MAX_BARS",
           "OVERVIEW_HINT", "TITLES"]

#: Most bars in the files and tags charts (the largest; the chart's note says how many
#: more there are).
MAX_BARS = 40
#: The charts' titles, in order.
TITLES = ("Source files", "Tags", "Weeks added", "Read and unread", "Key terms")
#: The key line under the charts.
OVERVIEW_HINT = ("↑ / ↓ move between bars · Page Up / Page Down (← / →) between charts · "
                 "Enter or a click lists the papers · Esc closes")


def _plural(n: int, word: str) -> str:
    """``"1 paper"``, ``"12,345 papers"``: the count with thousands separators."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _capped(bars: list[Bar], noun: str) -> tuple[tuple[Bar, ...], str]:
    if len(bars) <= MAX_BARS:
        return tuple(bars), ""
    rest = bars[MAX_BARS:]
    return tuple(bars[:MAX_BARS]), (
        f"The {MAX_BARS} largest of {len(bars):,} {noun}s; {len(rest):,} more with "
        f"{sum(b.count for b in rest):,} papers")


def charts_of(ov: Overview) -> tuple[Chart, ...]:
    """The charts of an overview, in :data:`TITLES` order.

    Args:
        ov: from :func:`paperdesk.core.overview.overview`.
    Returns:
        Five :class:`Chart` objects (a chart with nothing to show has no bars and a note).
    """
    sources = [Bar(s.name, s.papers, ("source", s.source_id),
                   f"{s.name}\n{_plural(s.papers, 'paper')} from this file. Enter or a "
                   "click lists them.", what=f"file “{s.name}”")
               for s in ov.sources]
    source_bars, source_note = _capped(sources, "file")
    tags = [Bar(t.name, t.papers, ("tag", t.tag_id),
                f"Tag “{t.name}”: {_plural(t.papers, 'paper')}. Enter or a click lists "
                "them.", colour=t.colour, what=f"tag “{t.name}”")
            for t in ov.tags]
    tag_bars, tag_note = _capped(tags, "tag")
    weeks = []
    if ov.earlier:
        first = ov.weeks[0].start
        weeks.append(Bar(f"Before {first.isoformat()}", ov.earlier,
                         ("query", ov.earlier_query),
                         f"{_plural(ov.earlier, 'paper')} added before {first.isoformat()} "
                         f"(the chart shows the last {len(ov.weeks)} weeks). Enter or a "
                         f"click lists them: {ov.earlier_query}",
                         what=f"papers added before {first.isoformat()}"))
    for w in ov.weeks:
        weeks.append(Bar(f"{w.start.isoformat()}  {w.label[5:]}", w.papers,
                         ("query", w.query),
                         f"Week {w.label}: Monday {w.start.isoformat()} to Sunday "
                         f"{w.end.isoformat()}, {_plural(w.papers, 'paper')} added. Enter or "
                         f"a click lists them: {w.query}",
                         what=f"papers added {w.start.isoformat()} to {w.end.isoformat()}"))
    week_note = (f"{_plural(ov.undated, 'paper')} without a readable date added"
                 if ov.undated else "")
    reading = (Bar("Unread", ov.unread, ("filter", "unread"),
                   f"{_plural(ov.unread, 'paper')} not read yet. Enter or a click shows the "
                   "Unread filter.", what=FILTER_LABELS["unread"]),
               Bar("Read", ov.read, ("query", "is:read"),
                   f"{_plural(ov.read, 'paper')} read. Enter or a click searches is:read.",
                   what="read papers"))
    terms = tuple(Bar(t.term, t.papers, ("query", term_query(t.term)),
                      f"“{t.term}” is among the key terms of {_plural(t.papers, 'paper')}. "
                      f"Enter or a click searches {term_query(t.term)}",
                      what=f"search {term_query(t.term)}")
                  for t in ov.terms or ())
    return (
        Chart(TITLES[0], source_bars, source_note or ("" if source_bars else
                                                      "No files imported yet")),
        Chart(TITLES[1], tag_bars, tag_note or ("" if tag_bars else "No tags yet")),
        Chart(TITLES[2], tuple(weeks), week_note or ("" if weeks else "No papers yet")),
        Chart(TITLES[3], reading if ov.papers else (), "" if ov.papers else "No papers yet"),
        Chart(TITLES[4], terms, ov.terms_note or ("" if terms or ov.terms is None
                                                  else "No key terms")),
    )


class OverviewWindow(QDialog):
    """The overview window (non-modal; objectName ``overviewWindow``).

    Children: ``overviewSummary`` (QLabel: papers, files, tags, read), ``overviewChart``
    (:class:`OverviewChart` in a scroll area), ``overviewStatus`` (QLabel: loading, or
    what the list shows since the last bar), ``buildTermsButton`` (shown when the term
    table is missing and :attr:`terms_builder` is set).

    Args:
        worker: the window's :class:`~paperdesk.ui.background.operations.LibraryWorker`
            (counts are read on its reader thread).
        choose: ``choose(bar)`` in the UI thread when a bar is activated (the main
            window lists its papers).
        parent: the main window.
    """

    def __init__(self, worker, choose: Callable[[Bar], None],
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("overviewWindow")
        self.setWindowTitle("Library Overview")
        self.setModal(False)
        self.setWindowFlag(Qt.WindowType.Window, True)
        self.setAccessibleName("Library overview")
        self._worker = worker
        self._choose = choose
        self._generation = 0
        self._pending = False
        #: ``builder(on_done)``: build the term table off the UI thread, then call
        #: ``on_done()``; ``None`` when the window cannot (the chart only says so).
        self.terms_builder: Callable[[Callable[[], None]], None] | None = None
        #: The last overview shown (``None`` before the first one arrives).
        self.overview: Overview | None = None

        self.summary = QLabel("Counting…")
        self.summary.setObjectName("overviewSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.chart = OverviewChart()
        self.chart.activated.connect(self._on_activated)
        self.scroll = QScrollArea()
        self.scroll.setObjectName("overviewScroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setWidget(self.chart)
        self.scroll.setFocusProxy(self.chart)
        self.chart.currentMoved.connect(self._bring_into_view)
        self.build_button = QPushButton("&Build Key Terms")
        self.build_button.setObjectName("buildTermsButton")
        self.build_button.setToolTip("Build the term table in the background (it may take "
                                     "a while for a large library)")
        self.build_button.clicked.connect(self._build_terms)
        self.build_button.hide()
        self.status = QLabel(OVERVIEW_HINT)
        self.status.setObjectName("overviewStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.scroll, 1)
        layout.addWidget(self.build_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.resize(620, 720)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(400)
        self._reload_timer.timeout.connect(self.reload)

    # -- data -----------------------------------------------------------------------
    def reload(self) -> bool:
        """Count again on the reader thread (the charts change when the counts arrive).
        Returns False when the worker has shut down."""
        self._generation += 1
        generation = self._generation
        self._pending = True
        job = self._worker.read(lambda lib: overview(lib),
                                on_done=lambda ov: self._show(generation, ov),
                                on_failed=lambda m: self._failed(generation, m),
                                label="overview")
        if job is None:
            self._pending = False
        return job is not None

    def reload_later(self) -> None:
        """The library changed: count again shortly (once for a burst of changes), if
        the window is open."""
        if self.isVisible():
            self._reload_timer.start()

    def is_loading(self) -> bool:
        """True while counts are being read."""
        return self._pending

    def _show(self, generation: int, ov: Overview) -> None:
        if generation != self._generation:
            return
        self._pending = False
        self.overview = ov
        tags = len(ov.tags)
        self.summary.setText(
            f"{_plural(ov.papers, 'paper')} · {_plural(len(ov.sources), 'file')} · "
            f"{_plural(tags, 'tag')} · {ov.read:,} read, {ov.unread:,} unread")
        self.chart.set_charts(charts_of(ov))
        self.build_button.setVisible(ov.terms is None and self.terms_builder is not None)

    def _failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self._pending = False
        self.summary.setText(f"The overview could not be counted: {message}")

    def _build_terms(self) -> None:
        if self.terms_builder is None:
            return
        self.build_button.setEnabled(False)
        self.status.setText("Building the term table in the background…")

        def done() -> None:
            self.build_button.setEnabled(True)
            self.status.setText(OVERVIEW_HINT)
            self.reload()

        self.terms_builder(done)

    # -- choosing -------------------------------------------------------------------
    def _on_activated(self, bar: Bar) -> None:
        self._choose(bar)
        self.status.setText(f"The list shows {bar.what or bar.label} ({bar.count:,}). "
                            + OVERVIEW_HINT)

    def _bring_into_view(self, rect: QRect) -> None:
        x = rect.center().x()
        self.scroll.ensureVisible(x, rect.bottom(), 0, 8)
        self.scroll.ensureVisible(x, rect.top(), 0, 8)     # the top wins if both can't

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        # Enter belongs to the chart (it lists a bar's papers), not to a default button;
        # on a focused button it still presses that button.
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                not isinstance(self.focusWidget(), QPushButton):
            event.accept()
            return
        super().keyPressEvent(event)


class OverviewCommands:
    """View ▸ Overview of the window (the window's ``overview``).

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``worker``, ``tag_pane``, ``search_box``, ``use_scope``, ``request_search``,
            ``list_scope``, ``import_runner`` and ``discover`` are used.

    Attributes:
        overview_window: the overview once opened, else ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.overview_window: OverviewWindow | None = None

    def show_overview(self) -> OverviewWindow:
        """Open (or bring forward) the overview (View ▸ Overview, Ctrl+Shift+L); its
        counts are read again each time."""
        window = self.overview_window
        if window is None:
            window = self.overview_window = OverviewWindow(self._window.worker,
                                                           self.list_overview_bar,
                                                           self._window)
            self._window.worker.changed.connect(lambda _c: window.reload_later())
            self._window.import_runner.finished.connect(lambda *_a: window.reload_later())
            # the reading pane may build the term table too: key terms then appear
            self._window.discover.discover_runner.finished.connect(
                lambda *_a: window.reload_later())
            window.terms_builder = self._window.discover.build_terms_for_overview
        window.reload()
        window.show()
        window.raise_()
        window.activateWindow()
        window.chart.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return window

    def list_overview_bar(self, bar: Bar) -> None:
        """List the papers of an overview bar in the main list (see the module text)."""
        if bar.target is None:
            return
        kind, value = bar.target
        if kind == "query":
            self._window.tag_pane.select_scope(Scope(), notify=False)
            self._window.search.use_scope(Scope())
            if self._window.search_box.text() != value:
                self._window.search_box.setText(value)     # a search, as typed
            self._window.search.request_search(immediate=True)
            return
        scope = (Scope(source_id=value) if kind == "source" else
                 Scope(tag_id=value) if kind == "tag" else Scope(filter=value))
        self._window.tag_pane.select_scope(scope, notify=False)
        self._window.search.use_scope(scope)
        if self._window.search_box.text():
            self._window.search_box.clear()       # as Esc in the search box does
        self._window.search.list_scope(scope)      # no query now: lists the scope
