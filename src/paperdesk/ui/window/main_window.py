"""The main window: scope pane | search box + paper list | detail pane.

The window owns the wiring between the panes, the search, import and index-sync runners
and the status bar. It reads from the library in the UI thread only for cheap calls
(one paper; the list's ids and rows are read on the reader thread, an edit's rows by
the writer thread right after it) and makes every change through
:meth:`MainWindow.submit_edit` (a ``Library`` mutation that records its own undo step in
the core and returns the :class:`~paperdesk.core.changes.Changes` the panes refresh
from); searches, imports and search-index updates run on worker threads
(:mod:`paperdesk.ui.background.workers`). The commands of the menus and keyboard come from
one table (:mod:`paperdesk.ui.window.actions`).

The window is composed, not inherited: it builds one object per area, each given the
window and using only its public members, and wires the actions to them. The
:class:`~paperdesk.ui.window.search.SearchController` (``search``) runs the search box's
searches and lists the scope; the :class:`~paperdesk.ui.window.reading.ReadingController`
(``reading``) shows the current paper, moves between papers and marks them read; both
listen to the worker's ``changed(Changes)`` themselves. The commands live in
``triage`` (:class:`~paperdesk.ui.window.triage.TriageCommands`), ``tag_commands``,
``metadata``, ``removal``, ``imports``, ``exports``, ``duplicates``, ``discover``,
``interest_sort``, ``overview``, ``saved_searches`` and ``list_columns``.
"""

from __future__ import annotations

import atexit
import functools
import time
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import (QEvent, QItemSelection, QItemSelectionModel, QObject, Qt,
                            QTimer, Signal, Slot)
from PySide6.QtGui import (QActionGroup, QCloseEvent, QColor, QDragEnterEvent,
                           QDragMoveEvent, QDropEvent, QFont, QIcon, QPainter, QPalette,
                           QPixmap)
from PySide6.QtWidgets import (QAbstractItemView, QFileDialog, QFrame, QHeaderView, QLabel,
                               QLineEdit, QMainWindow, QMessageBox, QPlainTextEdit,
                               QProgressBar, QPushButton, QSizePolicy, QSplitter,
                               QTextEdit, QVBoxLayout, QWidget)

from paperdesk.core import collector
from paperdesk.core.changes import Changes
from paperdesk.core.api import file_dialog_filter
from paperdesk.core.library import Library
from paperdesk.core.api import search_process_wanted
from paperdesk.core.models import ImportReport, IndexStatus
from paperdesk.ui.window.actions import build_actions
from paperdesk.ui.style.appearance import follow_appearance
from paperdesk.ui.panes.detail_pane import PLACEHOLDER, DetailPane
from paperdesk.ui.panes.elided_label import ElidedLabel
from paperdesk.ui.panes.progress_line import ProgressLine
from paperdesk.ui.window.status_bar import WrappingStatusBar
from paperdesk.ui.window.dialogs import ShortcutsDialog, message_box, show_about
from paperdesk.ui.window.discover_commands import DiscoverCommands
from paperdesk.ui.window.overview_window import OverviewCommands
from paperdesk.ui.window.duplicates_commands import DuplicatesCommands
from paperdesk.ui.window.bibliography_commands import BibliographyCommands
from paperdesk.ui.window.export_commands import ExportCommands
from paperdesk.ui.window.import_commands import ImportCommands
from paperdesk.ui.window.interest_sort import InterestSort
from paperdesk.ui.window.list_columns import ListColumns
from paperdesk.ui.window.list_memory import ListMemory
from paperdesk.ui.window.metadata_commands import MetadataCommands
from paperdesk.ui.window.reading import ReadingController
from paperdesk.ui.window.search import SearchController, quoted
from paperdesk.ui.window.removal_commands import RemovalCommands
from paperdesk.ui.style.formatting import plural, tooltip_html
from paperdesk.ui.panes.paper_model import REFRESH_LIMIT, PaperTableModel
from paperdesk.ui.panes.paper_table import PaperTableView
from paperdesk.ui.window.saved_searches import SavedSearches
from paperdesk.ui.window.screening import ScreeningMode
from paperdesk.core.scope import FILTER_LABELS, Scope
from paperdesk.ui.window.search_help import SEARCH_TIP, SearchHelpDialog
from paperdesk.ui.app.settings import FONT_SIZE_RANGE, Settings
from paperdesk.ui.panes.list_cells import PlainCellDelegate
from paperdesk.ui.panes.snippet_delegate import SnippetDelegate
from paperdesk.ui.style.text_fit import row_height
from paperdesk.ui.panes.tag_pane import TagPane
from paperdesk.ui.panes.title_delegate import TitleDelegate
from paperdesk.ui.window.tag_commands import TagCommands
from paperdesk.ui.window.triage import MESSAGE_MS, TriageCommands
from paperdesk.ui.background.operations import LibraryWorker
from paperdesk.ui.background.workers import (CheckRunner, ExportRunner, ImportRunner, IndexSyncRunner, SavedSearchCounter,
                      SearchRunner)

__all__ = ["MainWindow", "SEARCH_PLACEHOLDER"]

#: Narrowest the paper list and the reading pane may become, in pixels.
LIST_MIN_WIDTH = 260
DETAIL_MIN_WIDTH = 320

SEARCH_PLACEHOLDER = "Search titles, abstracts and notes…  (/ to come here, F1 for syntax)"
#: Width of the scope pane and share of the detail pane at first show.
TAG_PANE_WIDTH = 230
DETAIL_SHARE = 0.40
#: What a new library is started in, when asked for a folder that is not empty.
NEW_LIBRARY_NAME = "paperdesk library"


def _help_icon(colour: QColor) -> QIcon:
    """A "?" in a circle, for the search box's syntax-help button."""
    size = 16
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    painter.setPen(colour)
    painter.drawEllipse(1, 1, size - 3, size - 3)
    font = QFont()
    font.setPixelSize(11)
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(pixmap.rect().adjusted(0, 0, -1, -1), Qt.AlignmentFlag.AlignCenter, "?")
    painter.end()
    return QIcon(pixmap)


#: The longest index status the progress bar is sized for.
_INDEXING_SAMPLE = "Indexing 100,000 of 100,000"
#: The longest text of the bar while the index is repaired (sets its width then).
_REPAIRING_SAMPLE = "Repairing the search index 100,000 of 100,000"
#: A long progress line (sets the width of the status bar's import progress label).
_PROGRESS_SAMPLE = ("Storing file 10 of 12 · 88,000 of 100,000 records · about 10 min 5 s "
                    "left, then indexing")



#: The tag pane's filters whose counts a change of each paper field can move.
_FILTERS_OF_FIELD = {"read": ("unread",), "starred": ("starred",), "tags": ("untagged",),
                     "note": ("has_note",)}


def _filters_touched(change: Changes) -> tuple[str, ...]:
    """Return the tag pane's filters whose counts ``change`` (an edit that added or
    removed no paper) can have moved: the filters read marks, stars, tags and notes
    (``FILTERS`` looks at nothing else); ``()`` for a title or metadata edit."""
    out: list[str] = []
    for name in sorted(change.fields):
        out.extend(_FILTERS_OF_FIELD.get(name, ()))
    if change.notes and "has_note" not in out:
        out.append("has_note")
    return tuple(out)


def _scope_counts_after(scope: Scope, counts: tuple[int, int],
                        deltas: Mapping[str, int]) -> tuple[int, int] | None:
    """The counts of a scope after a star or read mark, from what it moved.

    Args:
        scope: the list's scope (its source, tag and filter).
        counts: ``(papers in the scope, unread papers in it)`` before the change.
        deltas: ``{"starred" / "unread": change of that filter's count}``
            (``Changes.filter_count_changes``).
    Returns:
        The counts after it, or ``None`` when they cannot be told without counting
        (a read mark in a tag's or file's scope or in "Starred", a star in "Starred").
    """
    n, unread = counts
    d = deltas.get("unread", 0)
    plain = (scope.source_id is None and scope.tag_id is None and not scope.searches
             and scope.ids is None)
    if plain and scope.filter == "unread":
        return n + d, unread + d
    if "unread" in deltas and not (plain and scope.filter is None):
        return None
    if scope.filter == "starred" and "starred" in deltas:
        return None
    return n, unread + d     # a star moves no other scope; d: only in all papers


#: Beside the counts while more than one paper is selected.
SELECTION_HINT = "t, 1-9, r and s act on all selected papers"


class MainWindow(QMainWindow):
    """The paperdesk window (title ``"paperdesk"``).

    Child widgets (by objectName): ``tagPane`` (:class:`TagPane`), ``searchBox``
    (QLineEdit; F1 in it shows the search syntax, Ctrl+Enter applies "Did you mean"),
    ``suggestionLabel`` (the "Did you mean …" link under it), ``paperTable``
    (:class:`PaperTableView` over :class:`PaperTableModel`, several rows selectable), ``detailPane`` (:class:`DetailPane` with ``noteEditor``,
    ``tagEditor``, ``abstractView`` ...), ``statusLabel``, ``editLabel`` (an edit's
    message) and ``unreadLabel`` (QLabels in the status bar). Actions are named as in
    :data:`paperdesk.ui.window.actions.ACTIONS`.

    Searching: typing is debounced and every query runs on a worker thread
    (:class:`~paperdesk.ui.background.workers.SearchRunner`), in relevance order or, after a click
    on the Title / Added header, sorted by ``lib.search.find`` itself; the status bar says
    how many papers match and why part of a query was ignored (``SearchResults.message``).
    Saved searches (Ctrl+S) are listed in the tag pane with counts made on another
    worker thread (:class:`~paperdesk.ui.background.workers.SavedSearchCounter`).

    Remembered state: the window geometry, the pane sizes of both splitters, the list's
    column widths, order and sort, the reading font size and which panes are shown are
    restored from :class:`Settings` once the widgets exist (:meth:`restore_state`) and
    saved when the window closes (:meth:`save_state`), with the paper selected then: it
    is selected again at start (the first row if it is gone), with the keyboard focus in
    the list.

    Automatic mark-read (Mark Papers Read Automatically): the paper on show is marked
    read after ``settings.mark_read_delay_ms`` only if the user chose it
    (``ReadingController.shown_by_user``): moved to it in the list (arrows, j/k, u, a click), moved
    into the list while it was current (Down or Enter in the search box, Tab, a click),
    or it is the selection restored at start. The row a search, a filter change or a
    list refresh puts first is shown but not marked.

    Opening another library (File ▸ Open Library… / New Library…) is the application's
    job: it sets :attr:`library_opener`, a callable ``(folder: Path, new: bool) -> bool``
    (see :class:`paperdesk.ui.app.controller.AppController`).

    Args:
        library: an open library. The window sets ``library.auto_sync_index = False``
            and updates the search index on a worker thread after each change.
        owns_library: close the library in :meth:`shutdown` (when the window closes).
        parent: Qt parent.
        settings: preferences (default: the user's, via QSettings).
    """

    #: An edit's or undo's message went up beside the status bar's counts (its text;
    #: ``editLabel``), e.g. "Star paper  —  Ctrl+Z to undo".
    editMessageShown = Signal(str)

    def __init__(self, library: Library, owns_library: bool = True,
                 parent: QWidget | None = None, settings: Settings | None = None):
        super().__init__(parent)
        self.lib = library
        self.settings = settings or Settings()
        self._owns_library = owns_library
        self._shut_down = False
        self._importing_seeds = False
        self._sized = False
        #: the last message about files not imported (a report dialog or a message box)
        self.import_message: QWidget | None = None
        self._shortcuts_dialog: ShortcutsDialog | None = None
        self._search_help: SearchHelpDialog | None = None
        self.library_opener = None   #: ``(folder, new) -> bool``, set by the application
        self._edits_pending = 0      # edits handed to the writer, not yet come back
        self._tag_reads = 0          # tag list reads on their way (see _update_tags)
        self._settled = False        # objects set aside from the collector (see _settle)
        self._selection_dropped = False  # see _on_selection_changed, _after_rows_dropped
        #: the background stages whose progress the status bar's bar shows now
        self._progress_owners: set[str] = set()
        #: The background stage whose progress the bar shows now (the last one shown).
        self._progress_current: str | None = None


        self.setWindowTitle("paperdesk")
        self.resize(1200, 760)
        # The window's parts, by area: each is given the window and uses its public
        # members only; the actions table finds a slot on the first that has it.
        self.search = SearchController(self)         # search box, searches, the scope
        self.reading = ReadingController(self)       # the paper on show, j/k/u, mark-read
        self.triage = TriageCommands(self)           # stars, read, tags, notes, highlights
        self.tag_commands = TagCommands(self)        # New Tag, Manage Tags
        self.metadata = MetadataCommands(self)       # m, Ctrl+K, o
        self.removal = RemovalCommands(self)         # Del, Remove Imported File
        self.imports = ImportCommands(self)          # drops, queued imports, the report
        self.exports = ExportCommands(self)          # File ▸ Export, copying
        self.bibliography = BibliographyCommands(self)   # Copy as Bibliography / Citation
        self.duplicates = DuplicatesCommands(self)   # the stage, the Duplicates view
        self.discover = DiscoverCommands(self)       # related papers, key terms, Back
        self.interest_sort = InterestSort(self)      # Worth Reading First
        self.list_memory = ListMemory(self)          # the filter, saved search, order
        self.overview = OverviewCommands(self)       # View ▸ Overview
        self.saved_searches = SavedSearches(self)    # Ctrl+S, the saved searches' counts
        self.screening = ScreeningMode(self)         # screening for a tag: i, e, p
        self._commands: tuple[object, ...] = (
            self.search, self.reading, self.triage, self.discover, self.interest_sort,
            self.overview, self.exports, self.bibliography, self.duplicates, self.imports,
            self.saved_searches, self.tag_commands, self.metadata, self.removal,
            self.screening)
        self._build_panes()
        self._build_status_bar()
        self._build_menus()
        self.triage.setup_caret_mode()   # F7 / Tab: a keyboard caret in the abstract

        self.search_runner = SearchRunner(library, parent=self)
        # The one writer thread: imports and index updates run on it as bulk jobs.
        self.worker = LibraryWorker(library, parent=self)
        # the search box and the results (before any other listener of the results)
        self.search.connect()
        # Whoosh's long commits of an import hold the GIL: they run in a child process.
        if not library.read_only:
            library.index.use_writer_process()
        #: (scope, papers in it, unread in it), last counted on the reader thread
        self._counts: tuple[Scope, int, int] | None = None
        self._counts_generation = 0
        #: filters to count with the next counts (``None``: all), see _request_counts
        self._recount: set[str] | None = set()
        #: A counts read is on its way: another request waits for it (each counts the
        #: whole scope: at a million papers, star presses during an import queued one
        #: full count after the other on the reader thread).
        self._counts_in_flight = False
        self._counts_again = False
        #: When the counts read on its way was sent and the last one came back
        #: (monotonic s), how long that one took (s), and the timer holding the next one
        #: back during an import.
        self._counts_sent_at = self._counts_done_at = 0.0
        self._last_counts_s = 0.0
        self._counts_held: QTimer | None = None
        #: Seconds the list's last id read took on the reader thread (the refresh
        #: during an import is spaced by it, :meth:`_on_import_progress`).
        self._last_list_s = 0.0
        self._total_papers: int | None = None   #: papers in the library, last counted
        self._step_rows = None   #: rows read after the edit just done (_on_changed)
        self.worker.changed.connect(self._on_changed)
        # the paper on show follows the list's current row and each change (after the
        # list was refreshed from it, above)
        self.reading.connect()
        self.worker.failed.connect(self.show_error)
        # Snippets of the rows on show are cut on the reader thread, a block at a time.
        self.model.set_snippet_fetcher(self.search.fetch_snippets)
        # The list's ids too (a screenful first, then all of them): at a million papers
        # reading them took 1.5 s of the UI thread.
        self.model.set_id_reader(self._read_ids)
        # And the rows' data (title, authors, marks, tags), 200 rows at a time: read on
        # the UI thread it stalled typing 250-400 ms at 300,000 papers under load.
        self.model.set_row_fetcher(self._read_rows)
        self.import_runner = ImportRunner(library, parent=self, worker=self.worker)
        self.import_runner.progress.connect(self._on_import_progress)
        self.import_runner.finished.connect(self._on_import_finished)
        self.import_runner.failed.connect(self._on_import_failed)
        self.imports.setup_file_drops()
        self.export_runner = ExportRunner(library, parent=self)
        self.export_runner.progress.connect(self.exports.on_export_progress)
        self.export_runner.finished.connect(self.exports.on_export_finished)
        self.export_runner.failed.connect(self.exports.on_export_failed)
        self.export_runner.cancelled.connect(self.exports.on_export_cancelled)
        self.sync_runner = IndexSyncRunner(library, parent=self, worker=self.worker)
        self.sync_runner.synced.connect(self.search.on_index_synced)
        self.sync_runner.failed.connect(
            lambda message: self.show_error(f"Search index not updated: {message}"))
        self.sync_runner.progress.connect(self._on_sync_progress)
        self.sync_runner.status.connect(self._on_index_status)
        self.sync_runner.synced.connect(lambda _n: self._end_sync_progress())
        self.sync_runner.failed.connect(lambda _m: self._end_sync_progress())
        #: The library's index status last read by an index update (``None`` before).
        self.index_status: IndexStatus | None = None
        self._list_refreshed = 0.0      # time.monotonic() of the last refresh in an import
        #: The refresh held back by the spacing below, run once it is due: the papers
        #: of the last batch before an import pauses or slows are listed too.
        self._list_refresh_held = QTimer(self, singleShot=True)
        self._list_refresh_held.timeout.connect(self._refresh_list_during_import)
        self._library_hooks = (library.auto_sync_index, library.on_index_stale)
        library.auto_sync_index = False
        library.on_index_stale = self.sync_runner.mark_stale
        self.check_runner = CheckRunner(self.worker, parent=self)
        self.check_runner.progress.connect(self._on_check_progress)
        self.check_runner.finished.connect(self._on_check_finished)
        self.check_runner.failed.connect(self._on_check_failed)
        #: The plain-text report of the last Help ▸ Check Library (``None`` before).
        self.check_report: str | None = None
        #: The message box showing it.
        self.check_message: QWidget | None = None
        self.saved_counter = SavedSearchCounter(library, parent=self)
        self.saved_counter.countsReady.connect(self.saved_searches.show_saved_counts)
        self.duplicates.setup_duplicates()
        self.discover.setup_discover()   # related papers, key terms, tag suggestions, Back
        self.interest_sort.setup_interest_sort()   # the list's "worth reading first" order
        self.screening.setup_screening()   # the decision keys, off until screening starts

        self._refresh_sources()
        self._refresh_tags()
        self.saved_searches.refresh_saved(immediate=True)
        # The paper selected when the window last closed is selected again, and counts
        # as shown (read after the delay); if it is gone, the first row, which does not.
        chosen = self.settings.selected_paper(library.path)
        self.reading.restore_chosen(chosen)
        self.list_memory.restore_before_listing()   # the filter or tag
        self.search.show_all(keep=chosen)
        self.restore_state()
        self.list_memory.restore_after_listing()    # the order, the saved search
        # The keyboard starts in the list (not in the first widget of the tab chain, the
        # sidebar, where Down would change the filter).
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        # If a script exits without closing the window, still stop the threads first
        # (Qt aborts the process when a running QThread is destroyed).
        atexit.register(_shutdown_at_exit, weakref.ref(self))
        # What the window keeps from now on is left out of the garbage collector's full
        # passes (40-60 ms on the UI thread at 300,000 papers; core/collector.py), once
        # the event loop runs; given back in shutdown().
        QTimer.singleShot(0, self._settle)

    def _settle(self) -> None:
        if not self._shut_down:
            collector.settle()
            self._settled = True

    # -- construction ------------------------------------------------------------------
    def _build_panes(self) -> None:
        self.tag_pane = TagPane()
        self.tag_pane.scopeChosen.connect(self.search.list_scope)
        self.tag_pane.renameTagRequested.connect(self.triage.prompt_rename_tag)
        self.tag_pane.deleteTagRequested.connect(self.triage.delete_tag)
        self.tag_pane.recolourTagRequested.connect(self.triage.set_tag_colour)
        self.tag_pane.bindKeyRequested.connect(self.triage.set_tag_key)
        self.tag_pane.newTagRequested.connect(self.tag_commands.prompt_new_tag)
        self.tag_pane.manageTagsRequested.connect(self.tag_commands.open_tags_dialog)
        self.tag_pane.savedSearchChosen.connect(self.saved_searches.run_saved_search)
        self.tag_pane.renameSavedSearchRequested.connect(
            self.saved_searches.prompt_rename_saved_search)
        self.tag_pane.deleteSavedSearchRequested.connect(self.saved_searches.delete_saved_search)
        self.tag_pane.saveSearchRequested.connect(self.saved_searches.prompt_save_search)
        self.tag_pane.removeSourceRequested.connect(self.removal.prompt_remove_file)
        self.tag_pane.screenTagRequested.connect(self.screening.screen_tag)

        self.search_box = QLineEdit()
        self.search_box.setObjectName("searchBox")
        self.search_box.setPlaceholderText(SEARCH_PLACEHOLDER)
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setToolTip(SEARCH_TIP)
        self.search_box.installEventFilter(self)
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        self.search_help_button = self.search_box.addAction(
            _help_icon(muted), QLineEdit.ActionPosition.TrailingPosition)
        self.search_help_button.setObjectName("searchHelpButton")
        self.search_help_button.setToolTip("Search syntax: phrases, AND / OR / NOT, prefix*, "
                                           "fuzzy~, fields, is: and has: (F1)")
        self.search_help_button.triggered.connect(self.show_search_help)

        self.suggestion_label = QLabel()
        self.suggestion_label.setObjectName("suggestionLabel")
        self.suggestion_label.setTextFormat(Qt.TextFormat.RichText)
        self.suggestion_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.suggestion_label.setContentsMargins(4, 0, 4, 0)
        self.suggestion_label.hide()

        self.model = PaperTableModel(self.lib, self)
        self.table = PaperTableView()
        self.table.viewport().installEventFilter(self)   # refit Title/Snippet on resize
        self.table.setObjectName("paperTable")
        self.table.setModel(self.model)
        self._setup_table()
        #: the list's optional columns (View ▸ List Columns, the header's menu)
        self.list_columns = ListColumns(self.table, self.settings)

        middle = QWidget()
        layout = QVBoxLayout(middle)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        layout.addWidget(self.search_box)
        layout.addWidget(self.suggestion_label)
        layout.addWidget(self.screening.banner)
        layout.addWidget(self.table)

        pane = self.detail_pane = DetailPane()
        pane.starToggled.connect(self.triage.toggle_star)
        pane.readToggled.connect(self.triage.toggle_read)
        pane.titleEdited.connect(self.triage.set_title)
        pane.tagAddRequested.connect(self.tag_commands.add_typed_tag)
        pane.tagRemoveRequested.connect(self.triage.remove_chip_tag)
        pane.editingCancelled.connect(self.focus_list)
        pane.highlightRequested.connect(
            lambda start, end, colour: self.triage.add_highlight(pane.paper_id, start, end,
                                                                 colour))
        pane.highlightRemoveRequested.connect(self.triage.remove_highlight)
        pane.highlightCommentRequested.connect(self.triage.prompt_highlight_comment)
        pane.noteSaveRequested.connect(self.triage.save_note)
        pane.noteAddRequested.connect(self.triage.add_to_note)
        pane.metadataEditRequested.connect(self.metadata.edit_metadata)
        pane.note_editor.linkOpened.connect(
            lambda url: self.statusBar().showMessage(f"Opened {url} in the browser", 4000))

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tag_pane)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(self.detail_pane)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setCollapsible(1, False)
        # The reading pane's header and chips would otherwise hold it at ~590 px, so a
        # narrower window squeezed only the list; both keep a usable width instead.
        middle.setMinimumWidth(LIST_MIN_WIDTH)
        self.detail_pane.setMinimumWidth(DETAIL_MIN_WIDTH)
        self.setCentralWidget(self.splitter)

    def _setup_table(self) -> None:
        t = self.table
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.setShowGrid(False)
        t.setAlternatingRowColors(True)
        t.setWordWrap(False)
        t.setTextElideMode(Qt.TextElideMode.ElideRight)
        t.setCornerButtonEnabled(False)
        t.setFrameShape(QFrame.Shape.StyledPanel)
        t.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        vh = t.verticalHeader()
        vh.hide()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(row_height(t.fontMetrics(), 1))
        hh = t.horizontalHeader()
        hh.setHighlightSections(False)
        hh.setSectionsMovable(True)   # drag a header to reorder; remembered
        hh.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(PaperTableModel.ADDED, QHeaderView.ResizeMode.Interactive)
        hh.setSectionResizeMode(PaperTableModel.SNIPPET, QHeaderView.ResizeMode.Interactive)
        hh.setMinimumSectionSize(40)
        date_width = t.fontMetrics().horizontalAdvance("8888-88-88")
        hh.resizeSection(PaperTableModel.ADDED, date_width + 28)
        hh.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        hh.setSortIndicatorShown(True)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        t.setSortingEnabled(True)  # clicking a header calls model.sort (SQLite sorts)
        t.setColumnHidden(PaperTableModel.SNIPPET, True)
        # every cell painted from one model.cell() call (list_cells)
        self._plain_delegate = PlainCellDelegate(t)
        t.setItemDelegate(self._plain_delegate)
        self._snippet_delegate = SnippetDelegate(t)
        t.setItemDelegateForColumn(PaperTableModel.SNIPPET, self._snippet_delegate)
        self._title_delegate = TitleDelegate(t)
        t.setItemDelegateForColumn(PaperTableModel.TITLE, self._title_delegate)
        t.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.model.rowsDropped.connect(self._after_rows_dropped)
        self.model.layoutChanged.connect(self._scroll_to_current)

    def _build_status_bar(self) -> None:
        bar = WrappingStatusBar(self)   # long messages wrap instead of being cut
        self.setStatusBar(bar)
        self.status_label = QLabel()
        self.status_label.setObjectName("statusLabel")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        # Long messages are cut at the window's edge rather than widening the window.
        self.status_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                        QSizePolicy.Policy.Preferred)
        self.status_label.setMinimumWidth(40)
        bar.addWidget(self.status_label, 1)
        # A finished edit's or undo's message ("Star paper — Ctrl+Z to undo") beside the
        # counts: a temporary status message would hide them (the tester's P3: a star
        # hid "70 of 9,062 match" for 4 s).
        # Elided when the window is narrow: a long tag's name must not widen the window.
        self.edit_label = ElidedLabel()
        self.edit_label.setObjectName("editLabel")
        self.edit_label.setContentsMargins(12, 0, 18, 0)    # apart from the counts each side
        self.edit_label.hide()
        bar.addWidget(self.edit_label)
        self._edit_message_timer = QTimer(self, singleShot=True)
        self._edit_message_timer.timeout.connect(self.edit_label.hide)
        self.unread_label = QLabel()
        self.unread_label.setObjectName("unreadLabel")
        self.unread_label.setTextFormat(Qt.TextFormat.PlainText)
        self.unread_label.setToolTip("Unread papers in the list's scope (U jumps to the next)")
        self.unread_label.setContentsMargins(0, 0, 12, 0)   # apart from an import's progress
        # An import's files, records and time left ("Storing file 2 of 3 · ...").
        # As wide as a long line, so that the status bar does not jump at every batch;
        # one line, a longer one ends in "…" (the whole text in its tooltip).
        self.import_progress_label = ProgressLine(
            bar.fontMetrics().horizontalAdvance(_PROGRESS_SAMPLE))
        self.import_progress_label.setObjectName("importProgressLabel")
        self.import_progress_label.hide()
        self.import_report_button = QPushButton("Import report")
        self.import_report_button.setObjectName("importReportButton")
        self.import_report_button.setFlat(True)
        self.import_report_button.setToolTip(
            "What each file of the last import gave (File ▸ Last Import Report…)")
        self.import_report_button.clicked.connect(lambda: self.imports.show_import_report())
        self.import_report_button.hide()
        self.progress_bar = QProgressBar()
        # Wide enough for "Repairing the search index 100,000 of 100,000" (its text is
        # never cut or wrapped).
        needed = self.progress_bar.fontMetrics().horizontalAdvance(_REPAIRING_SAMPLE) + 24
        self.progress_bar.setMaximumWidth(max(240, needed))
        self._index_width = min(240, self.progress_bar.fontMetrics()
                                .horizontalAdvance(_INDEXING_SAMPLE) + 24)
        self.progress_bar.setMinimumWidth(self._index_width)
        self._repair_width = needed
        self.progress_bar.setTextVisible(True)
        self.progress_bar.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop importing (the papers stored so far are kept)")
        self.cancel_button.clicked.connect(self._cancel_background_job)
        self.cancel_button.hide()
        bar.addPermanentWidget(self.unread_label)
        bar.addPermanentWidget(self.import_report_button)
        bar.addPermanentWidget(self.import_progress_label)
        bar.addPermanentWidget(self.progress_bar)
        bar.addPermanentWidget(self.cancel_button)
        # The counts come first, then a message's first 18 characters or so, then the
        # import's progress text, then the rest of the message (at most about 45
        # characters), then the progress line's spare room: during an import at 1024 px
        # the 515 px line and the message cut the counts to "92 of 2".
        bar.keep_whole(self.status_label, self.edit_label,
                       self.edit_label.fontMetrics().averageCharWidth() * 45 + 30,
                       line=self.import_progress_label,
                       least=self.edit_label.fontMetrics().averageCharWidth() * 18 + 30)

    def _build_menus(self) -> None:
        slots = {f"toggle_tag_{n}": functools.partial(self.triage.toggle_tag_key, n)
                 for n in range(1, 10)}
        slots.update(self.list_columns.column_slots())
        for mode in ("system", "light", "dark"):
            slots[f"appearance_{mode}"] = functools.partial(self._appearance_chosen, mode)
        self.actions_by_name = build_actions(self, slots, handlers=self._commands)
        a = self.actions_by_name
        self.import_files_action = a["importFilesAction"]
        self.import_folder_action = a["importFolderAction"]
        self.find_action = a["findAction"]
        self.undo_action = a["undoAction"]
        self.redo_action = a["redoAction"]
        self._update_undo_actions()
        self.appearance_group = QActionGroup(self)
        for mode in ("system", "light", "dark"):
            self.appearance_group.addAction(a[f"appearance{mode.title()}Action"])
        self.set_checked("autoMarkReadAction", self.settings.auto_mark_read)
        self.set_checked("importKeywordsAction", self.settings.import_keywords)
        self.set_checked(f"appearance{self.settings.appearance.title()}Action", True)
        self.set_checked("showSidebarAction", True)
        self.set_checked("showReadingPaneAction", True)
        self.list_columns.setup(self.actions_by_name)

    def set_checked(self, name: str, on: bool) -> None:
        """Check or uncheck a checkable action without running its slot."""
        action = self.actions_by_name[name]
        action.blockSignals(True)
        action.setChecked(on)
        action.blockSignals(False)

    # -- public API --------------------------------------------------------------------
    def run_edit(self, edit, quiet: bool = False) -> bool:
        """Make one change to the library: ``edit(lib)`` calls a ``Library`` mutation and
        returns its :class:`~paperdesk.core.changes.Changes`.

        Args:
            edit: ``(Library) -> Changes``.
            quiet: no "… — Ctrl+Z to undo" message (note autosaves).
        Returns:
            True when the edit was accepted (see the window's :meth:`submit_edit`).
        """
        return self.submit_edit(edit, quiet=quiet)

    def show_error(self, message: str) -> None:
        """Show a one-line problem in the status bar (never a traceback)."""
        self.statusBar().showMessage(f"⚠ {message}", 8000)

    def selected_ids(self) -> list[int]:
        """Return the ids the paper commands act on: the selected rows when more than
        one is selected, otherwise the current paper (``[]`` if none)."""
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        ids = [pid for pid in (self.model.paper_id(r) for r in rows) if pid is not None]
        if len(ids) > 1:
            return ids
        current = self.current_paper_id()
        return [current] if current is not None else ids

    def status_text(self) -> str:
        """Return the status bar's summary, e.g. ``"225 papers"`` or ``"3 of 225 match"``."""
        return self.status_label.text()

    def unread_text(self) -> str:
        """Return the status bar's reading progress, e.g. ``"37 of 412 unread"``."""
        return self.unread_label.text()

    def current_paper_id(self) -> int | None:
        """Return the id of the paper in the current row, or ``None``."""
        index = self.table.currentIndex()
        return self.model.paper_id(index.row()) if index.isValid() else None

    def current_scope(self) -> Scope:
        """Return what the list is restricted to (source, tag or filter)."""
        return self.search.scope

    def select_row(self, row: int, by_user: bool = True) -> bool:
        """Select ``row`` of the list (which shows it in the detail pane).

        Args:
            row: 0-based row.
            by_user: the user moved there (j/k, u, Esc, a script acting for the user):
                the paper counts as shown and is marked read automatically after
                ``settings.mark_read_delay_ms`` (if that is on). ``False`` for a row the
                window puts first itself (after a search, a filter change or a list
                refresh), which counts only once the user moves into the list.
        Returns:
            False if there is no such row.
        """
        if not 0 <= row < self.model.rowCount():
            return False
        index = self.model.index(row, PaperTableModel.TITLE)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)
        if by_user:
            self.reading.choose_current()
        return True

    def select_rows(self, rows: Iterable[int]) -> int:
        """Select several rows (the first becomes current and counts as chosen by the
        user, as with :meth:`select_row`). Returns how many exist."""
        rows = [r for r in rows if 0 <= r < self.model.rowCount()]
        if not rows:
            return 0
        self.select_row(rows[0])
        selection = QItemSelection()
        last = self.model.columnCount() - 1
        for r in rows:
            selection.select(self.model.index(r, 0), self.model.index(r, last))
        self.table.selectionModel().select(
            selection, QItemSelectionModel.SelectionFlag.Select
            | QItemSelectionModel.SelectionFlag.Rows)
        return len(rows)

    def is_busy(self) -> bool:
        """Return True while an import runs, a search is pending or the search index is
        being updated."""
        return (self.import_runner.is_running() or self.export_runner.is_running()
                or self.search_runner.is_busy() or self.sync_runner.is_busy()
                or self.saved_counter.is_busy() or self.worker.is_busy())

    def start_import(self, paths: Iterable[str | Path], seeds: bool = False) -> bool:
        """Import files/folders in the background, with progress in the status bar.

        Args:
            paths: files and/or folders.
            seeds: these are the bundled sample files (changes the wording only).
        Returns:
            False if an import or an export is already running.
        """
        if self.export_runner.is_running():
            return False
        syncing = self.sync_runner.is_busy()
        if not self.import_runner.start(list(paths), keywords=self.settings.import_keywords):
            return False
        if syncing:   # the import goes first; the index update resumes when it ends
            self.sync_runner.cancel()
        self.duplicates.give_way_to_import()      # so does the near-duplicate stage
        self.mark_progress_shown("sync", False)
        self._importing_seeds = seeds
        self.exports.set_background_job(True)
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setFormat("Importing…")
        self.progress_bar.show()
        self.imports.show_import_started()
        self.cancel_button.setToolTip("Stop importing (the papers stored so far are kept)")
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()
        self.update_status()
        return True

    @Slot()
    def cancel_import(self) -> None:
        """Ask the running import to stop."""
        self.import_runner.cancel()
        self.cancel_button.setEnabled(False)
        self.progress_bar.setFormat("Cancelling…")
        self.import_progress_label.setText("Cancelling: the papers stored so far are kept")

    @Slot()
    def _cancel_background_job(self) -> None:
        """The status bar's Cancel: stop the running export or import, else the
        background stage whose progress the bar shows (an index update shown while the
        related papers' word table is built is the one stopped), else the first other
        stage that runs, else the index update."""
        if self.export_runner.is_running():
            self.exports.cancel_export()
            return
        if self.import_runner.is_running() and not (
                self.progress_shown("check") and self.check_runner.is_running()):
            self.cancel_import()
            return
        stages = {      # stage -> (is it running?, stop it), in the order tried
            "check": (self.check_runner.is_running, self._stopping(self.check_runner.cancel)),
            "discover": (self.discover.discover_runner.is_running,
                         self.discover.cancel_terms_build),
            "embed": (self.discover.embedding_runner.is_running,
                      self.discover.cancel_embedding),
            "duplicates": (self.duplicates.duplicate_finder.is_running,
                           self._stopping(self.duplicates.duplicate_finder.cancel)),
            "sync": (lambda: True, self._stopping(self.sync_runner.cancel)),
        }
        shown = self._progress_current
        order = ([shown] if shown in stages else []) + [s for s in stages if s != shown]
        for stage in order:
            running, stop = stages[stage]
            if stage == "sync" or (self.progress_shown(stage) and running()):
                stop()
                return

    def _stopping(self, cancel):
        """``cancel``, then Cancel greyed out and the bar saying "Stopping…"."""
        def stop() -> None:
            cancel()
            self.cancel_button.setEnabled(False)
            self.progress_bar.setFormat("Stopping…")
        return stop

    #: An index update of at least this many papers shows its progress (and Cancel).
    SYNC_PROGRESS_MIN = 200

    def progress_shown(self, stage: str) -> bool:
        """True while the status bar's progress bar shows background ``stage``
        (``"sync"``, ``"check"``, ``"discover"``, ``"embed"``, ``"duplicates"``)."""
        return stage in self._progress_owners

    def mark_progress_shown(self, stage: str, shown: bool = True) -> None:
        """Record that the progress bar shows (or no longer shows) ``stage``; the caller
        has shown or hidden the bar itself."""
        if shown:
            self._progress_owners.add(stage)
            self._progress_current = stage
        else:
            self._progress_owners.discard(stage)
            if self._progress_current == stage:
                self._progress_current = None

    def fit_progress_text(self, text: str) -> None:
        """Make the status bar's progress bar wide enough for ``text`` on one line (the
        style wraps text that does not fit, and the bar's height then cuts both lines);
        it never gets narrower than the index update's width while the text is shown.

        Args:
            text: the bar's text as shown (its format with the numbers filled in).
        """
        needed = self.progress_bar.fontMetrics().horizontalAdvance(text) + 24
        if needed > self.progress_bar.maximumWidth():
            self.progress_bar.setMaximumWidth(needed)
        self.progress_bar.setMinimumWidth(max(self._index_width, needed))

    def background_progress(self, shown: str, done: int, total: int, minimum: int,
                            tip: str, text: str) -> None:
        """Show a background stage's progress (index update, duplicate check) in the
        status bar's progress bar with Cancel, once it has at least ``minimum`` papers to
        do and unless an import or export owns the bar.

        Args:
            shown: the stage (``"sync"``, ``"check"``, ``"discover"``,
                ``"duplicates"``; see :meth:`progress_shown`).
            done, total: papers done and to do.
            minimum: the least ``total`` that is worth a bar.
            tip: Cancel's tooltip.
            text: the bar's format (``%v`` done, ``%m`` total).
        """
        if self._shut_down or self.import_runner.is_running() \
                or self.export_runner.is_running():
            return
        if not self.progress_shown(shown):
            if total < minimum or done >= total:
                return
            self.mark_progress_shown(shown)
            self.cancel_button.setEnabled(True)
            self.cancel_button.setToolTip(tooltip_html(tip))
            self.cancel_button.show()
            self.progress_bar.show()
        if self.cancel_button.isEnabled():
            self.progress_bar.setRange(0, max(total, 1))
            self.progress_bar.setValue(min(done, total))
            # QProgressBar's own %v / %m have no thousands separators: fill them in.
            shown_text = text.replace("%v", f"{min(done, total):,}").replace("%m", f"{total:,}")
            self.fit_progress_text(shown_text)
            self.progress_bar.setFormat(shown_text)

    def end_background_progress(self, shown: str) -> None:
        """Hide the bar :meth:`background_progress` showed (unless an import or export
        uses it now)."""
        if self.progress_shown(shown) and not self.import_runner.is_running() \
                and not self.export_runner.is_running():
            self.progress_bar.hide()
            self.cancel_button.hide()
            # An index update (a repair) still running shares the bar: show it again.
            if shown != "sync" and self.progress_shown("sync"):
                self.mark_progress_shown("sync", False)
                if self.index_status is not None and not self.index_status.complete:
                    self._on_index_status(self.index_status)
        self.mark_progress_shown(shown, False)

    @Slot(int, int)
    def _on_sync_progress(self, done: int, total: int) -> None:
        """A background index update (not an import's) shows its progress when large
        (while papers wait to be indexed, :meth:`_on_index_status` shows the library's
        counts instead)."""
        if self.index_status is not None and not self.index_status.complete:
            return
        self.background_progress("sync", done, total, self.SYNC_PROGRESS_MIN,
                                  "Stop indexing (the rest is indexed later)",
                                  "Indexing for search %v of %m")

    def _end_sync_progress(self) -> None:
        self.end_background_progress("sync")

    @Slot(object)
    def _on_index_status(self, status: IndexStatus) -> None:
        """While papers wait to be indexed (an import stored them, or a run before was
        stopped), the status bar's progress bar says "Indexing 42,000 of 100,000":
        papers searchable of papers in the library, with Cancel (the rest is indexed
        with the next change or start). (A search that covered part of the library only
        is run again as the index catches up: ``SearchController.follow_index``.)"""
        self.index_status = status
        self.search.follow_index(status.indexed, status.complete)
        if self._shut_down or status.complete or self.import_runner.is_running() \
                or self.export_runner.is_running():
            return
        if not self.progress_shown("sync"):
            self.mark_progress_shown("sync")
            self.cancel_button.setEnabled(True)
            self.cancel_button.setToolTip("Stop indexing (the papers stay; the rest is "
                                          "indexed with the next change or start)")
            self.cancel_button.show()
            self.progress_bar.show()
        if self.cancel_button.isEnabled():
            self.progress_bar.setRange(0, max(status.papers, 1))
            self.progress_bar.setValue(min(status.indexed, status.papers))
            self.progress_bar.setMinimumWidth(self._repair_width if status.repairing
                                              else self._index_width)
            self.progress_bar.setFormat(status.text())
            self.progress_bar.setToolTip("Papers searchable of the papers in the library; "
                                         "all of them can be listed, read and tagged now")

    @Slot()
    def choose_files_to_import(self) -> None:
        """Ask for files with a file dialog and import them (any format the import
        recognises: the format is told by content, so "All files" works too)."""
        files, _filter = QFileDialog.getOpenFileNames(
            self, "Import abstract files", str(self.settings.import_folder),
            file_dialog_filter())
        if files:
            self.settings.import_folder = Path(files[0]).parent
            self.start_import(files)

    @Slot()
    def choose_folder_to_import(self) -> None:
        """Ask for a folder and import its files of the registered formats' patterns
        (:func:`~paperdesk.core.imports.registry.folder_patterns`, recursively)."""
        folder = QFileDialog.getExistingDirectory(self, "Import a folder of abstract files",
                                                  str(self.settings.import_folder))
        if folder:
            self.settings.import_folder = Path(folder).parent
            self.start_import([folder])

    @Slot()
    def focus_search(self) -> None:
        """Put the keyboard focus in the search box with its text selected."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    @Slot()
    def focus_list(self) -> None:
        """Move the keyboard focus to the list, selecting the first row if none is. The
        user moved into the list: the current row counts as shown (automatic mark-read),
        also when a search put it first."""
        if not self.table.currentIndex().isValid():
            self.select_row(0)
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.reading.choose_current()

    @Slot()
    def show_shortcuts(self) -> None:
        """Show the (non-modal) keyboard shortcuts table."""
        if self._shortcuts_dialog is None:
            self._shortcuts_dialog = ShortcutsDialog(self)
            self._shortcuts_dialog.searchHelpRequested.connect(self.show_search_help)
        self._shortcuts_dialog.show()
        self._shortcuts_dialog.raise_()

    @Slot()
    def show_search_help(self) -> None:
        """Show the (non-modal) search syntax page; clicking an example searches for it."""
        if self._search_help is None:
            self._search_help = SearchHelpDialog(self)
            self._search_help.exampleChosen.connect(self._try_example)
        self._search_help.show()
        self._search_help.raise_()

    @Slot(str)
    def _try_example(self, example: str) -> None:
        self.search_box.setText(example)
        self.search.flush_search()

    @Slot()
    @Slot()
    def check_library(self) -> bool:
        """Help ▸ Check Library: run the full check (``paperdesk check``) on the
        worker's reader thread, with its steps in the status bar (Cancel stops it), then
        show the report as plain text. Damage to the index it finds is repaired from the
        database in the background (the status bar's "Repairing the search index").

        Returns:
            False when a check is running already.
        """
        if not self.check_runner.start():
            return False
        self.statusBar().showMessage("Checking the library…")
        return True

    @Slot(int, int)
    def _on_check_progress(self, done: int, total: int) -> None:
        self.background_progress("check", done, total, 0,
                                  "Stop the check", "Checking the library %v of %m")

    @Slot(object)
    def _on_check_finished(self, report) -> None:
        self.end_background_progress("check")
        self.check_report = report.text()
        self.statusBar().showMessage(self.check_report.splitlines()[0], 8000)
        self.check_message = message_box(
            self, QMessageBox.Icon.Information if report.ok else QMessageBox.Icon.Warning,
            "Check Library", self.check_report, modal=False)

    @Slot(str)
    def _on_check_failed(self, message: str) -> None:
        self.end_background_progress("check")
        self.check_report = f"check failed: {message}"
        self.show_error(f"Check Library failed: {message}")

    def show_about(self) -> None:
        """Show the About box (version, library folder, settings file)."""
        show_about(self, self.lib.path, self.settings.file_name())

    # -- View: zoom, panes, appearance ---------------------------------------------------
    def reading_font_size(self) -> float:
        """The reading pane's font size in points."""
        return self.detail_pane.font_size()

    def set_reading_font_size(self, points: float | None) -> float:
        """Set the reading pane's font size (remembered).

        Args:
            points: size in points (clamped to
                :data:`~paperdesk.ui.app.settings.FONT_SIZE_RANGE`), or ``None`` for the
                normal size.
        Returns:
            The size now in use, in points.
        """
        if points is not None:
            points = min(max(float(points), FONT_SIZE_RANGE[0]), FONT_SIZE_RANGE[1])
            if abs(points - self.font().pointSizeF()) < 0.01:
                points = None
        self.detail_pane.set_font_size(points)
        self.settings.font_size = points
        size = self.reading_font_size()
        self.statusBar().showMessage(f"Reading text at {size:g} pt"
                                     + ("" if points else " (normal size)"), 2000)
        return size

    @Slot()
    def zoom_in(self) -> float:
        """Make the reading pane's text 1 pt larger (Ctrl+=). Returns the new size."""
        return self.set_reading_font_size(self.reading_font_size() + 1)

    @Slot()
    def zoom_out(self) -> float:
        """Make the reading pane's text 1 pt smaller (Ctrl+-). Returns the new size."""
        return self.set_reading_font_size(self.reading_font_size() - 1)

    @Slot()
    def zoom_reset(self) -> float:
        """The reading pane's text at the normal size (Ctrl+0). Returns the size."""
        return self.set_reading_font_size(None)

    @Slot(bool)
    def set_sidebar_shown(self, shown: bool) -> None:
        """Show or hide the left pane (filters, saved searches, tags, files)."""
        self._set_pane_shown(self.tag_pane, "tags", "showSidebarAction", shown)

    @Slot(bool)
    def set_reading_pane_shown(self, shown: bool) -> None:
        """Show or hide the reading pane (abstract, tags, highlights, note)."""
        if not shown:
            self.detail_pane.note_editor.flush()
            self.reading.cancel_auto_mark_read()
        self._set_pane_shown(self.detail_pane, "detail", "showReadingPaneAction", shown)
        if shown and self.detail_pane.paper is not None:
            self.reading.schedule_mark_read(self.detail_pane.paper)

    def _set_pane_shown(self, pane: QWidget, name: str, action: str, shown: bool) -> None:
        if not shown and not pane.isHidden():
            self._remember_splitter()
            if pane.hasFocus() or pane.isAncestorOf(self.focusWidget()):
                self.table.setFocus()
        pane.setHidden(not shown)
        self.set_checked(action, shown)
        self.settings.set_pane_visible(name, shown)
        if shown and self._sized:
            self._give_room(pane)

    def _fit_to_screen(self) -> None:
        """Keep the window within its screen's available area (a large font scale on a
        small screen made the default 1200x760 larger than the screen, with the status
        bar and the reading pane's edge off it)."""
        screen = self.screen()
        if screen is None:
            return
        room = screen.availableGeometry()
        width, height = min(self.width(), room.width()), min(self.height(), room.height())
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)
        if not room.contains(self.frameGeometry().topLeft()):
            self.move(room.topLeft())

    def _tag_pane_width(self) -> int:
        """The sidebar's first width: TAG_PANE_WIDTH pixels, or more at a large font
        (room for "Saved searches" and a count of five digits), at most a third of the
        window."""
        metrics = self.tag_pane.fontMetrics()
        wanted = metrics.horizontalAdvance("Saved searches  ") + metrics.horizontalAdvance(
            "100,000") + 48
        return min(max(TAG_PANE_WIDTH, wanted), max(TAG_PANE_WIDTH, self.width() // 3))

    def _give_room(self, pane: QWidget) -> None:
        """A pane shown again after being hidden may have no width: give it its
        remembered (or default) width, taken from the list in the middle."""
        index = self.splitter.indexOf(pane)
        sizes = self.splitter.sizes()
        if index < 0 or sizes[index] > 20:
            return
        total = sum(sizes)
        wanted = (self.settings.splitter_sizes("main", 3)
                  or [self._tag_pane_width(), 0, int(total * DETAIL_SHARE)])[index]
        wanted = min(max(wanted, 120), max(total // 2, 120))
        sizes[index] = wanted
        sizes[1] = max(sizes[1] - wanted, 100)
        self.splitter.setSizes(sizes)

    def reveal_reading_pane(self) -> None:
        """Show the reading pane if it is hidden (before focusing a widget in it)."""
        if self.detail_pane.isHidden():
            self.set_reading_pane_shown(True)

    def _appearance_chosen(self, mode: str, checked: bool = True) -> None:
        if checked:
            self.set_appearance(mode)

    def set_appearance(self, mode: str) -> bool:
        """Use the ``"system"``, ``"light"`` or ``"dark"`` appearance (remembered).

        Returns:
            True if the appearance is now dark.
        Raises:
            ValueError: an unknown mode.
        """
        self.settings.appearance = mode
        self.set_checked(f"appearance{mode.title()}Action", True)
        return follow_appearance(mode)

    @Slot()
    def select_all(self) -> None:
        """Ctrl+A: select all text in the focused text field, else every paper."""
        focus = self.focusWidget()
        if isinstance(focus, (QLineEdit, QTextEdit, QPlainTextEdit)):
            focus.selectAll()
            return
        if self.model.rowCount():
            self.table.setFocus()
            self.table.selectAll()

    # -- File: other libraries -------------------------------------------------------------
    @Slot()
    def choose_library_to_open(self) -> bool:
        """Ask for a library folder and open it in place of this one (File ▸ Open
        Library…). Returns True if another library was opened."""
        start = str(self.lib.path.parent)
        folder = QFileDialog.getExistingDirectory(self, "Open a paperdesk library", start)
        return bool(folder) and self.open_library(Path(folder), new=False)

    @Slot()
    def choose_new_library(self) -> bool:
        """Ask for a folder and start an empty library there (File ▸ New Library…).
        A folder that is not empty gets a new sub-folder "paperdesk library".
        Returns True if the new library was opened."""
        start = str(self.lib.path.parent)
        folder = QFileDialog.getExistingDirectory(
            self, "Choose an empty folder for the new library", start)
        if not folder:
            return False
        path = Path(folder)
        if path.is_dir() and any(path.iterdir()):
            path = _free_name(path / NEW_LIBRARY_NAME)
        return self.open_library(path, new=True)

    def open_library(self, folder: Path, new: bool = False) -> bool:
        """Ask the application to open ``folder`` instead of this window's library.

        Args:
            folder: a library folder (for ``new``, an empty or missing folder).
            new: start an empty library there.
        Returns:
            True if it was opened (this window then closes).
        """
        if self.library_opener is None:
            message_box(self, QMessageBox.Icon.Information, "Open library",
                        "Start paperdesk with --library DIR to open another library.")
            return False
        return bool(self.library_opener(Path(folder), new))

    # -- remembered state ------------------------------------------------------------------
    def restore_state(self) -> None:
        """Restore what :meth:`save_state` saved, falling back to the defaults for
        anything missing or unusable: geometry, column widths / order / sort, reading
        font size, panes shown. Splitter sizes follow at the first show. (The selected
        paper is restored by the constructor, as the list is first filled.)"""
        s = self.settings
        geometry = s.window_geometry
        if geometry is not None:
            self.restoreGeometry(geometry)
        self._fit_to_screen()
        header = self.table.horizontalHeader()
        state = s.header_state
        if state is not None and header.restoreState(state):
            for column, mode in ((PaperTableModel.TITLE, QHeaderView.ResizeMode.Stretch),
                                 (PaperTableModel.ADDED, QHeaderView.ResizeMode.Interactive),
                                 (PaperTableModel.SNIPPET,
                                  QHeaderView.ResizeMode.Interactive)):
                header.setSectionResizeMode(column, mode)
                if header.sectionSize(column) < header.minimumSectionSize():
                    header.resizeSection(column, header.defaultSectionSize())
            self.table.setColumnHidden(PaperTableModel.TITLE, False)
            self.table.setColumnHidden(PaperTableModel.SNIPPET, self.search.results is None)
        # what the settings say, whatever the header state held
        self.list_columns.apply_list_columns()
        sort = s.list_sort
        if sort is not None and sort[0] in PaperTableModel.ORDER_KEYS:
            self.table.sortByColumn(sort[0], Qt.SortOrder.DescendingOrder if sort[1]
                                    else Qt.SortOrder.AscendingOrder)
        else:
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            if self.model.sort_column != -1:
                self.model.sort(-1)
        if s.font_size is not None:
            self.detail_pane.set_font_size(s.font_size)
        for pane, name, action in ((self.tag_pane, "tags", "showSidebarAction"),
                                   (self.detail_pane, "detail", "showReadingPaneAction")):
            shown = s.pane_visible(name)
            pane.setHidden(not shown)
            self.set_checked(action, shown)

    def _remember_splitter(self) -> None:
        """Store the main splitter's sizes while every pane is shown (a hidden pane has
        size 0, which is no size to come back to)."""
        sizes = self.splitter.sizes()
        if all(sizes) and not self.tag_pane.isHidden() and not self.detail_pane.isHidden():
            self.settings.set_splitter_sizes("main", sizes)

    def save_state(self) -> None:
        """Save the last paper the user chose, the list's filter or tag, saved search
        and order (:class:`~paperdesk.ui.window.list_memory.ListMemory`), geometry,
        splitter sizes, columns, sort, font size and panes to the settings (called when
        the window closes)."""
        s = self.settings
        try:
            # Only a paper the user chose: a row a search or filter put first must not
            # come back at the next start as if chosen (and be marked read).
            s.set_selected_paper(self.lib.path, self.reading.last_chosen_id)
            self.list_memory.save()
            s.window_geometry = self.saveGeometry()
            s.header_state = self.table.horizontalHeader().saveState()
            column = self.model.sort_column
            s.list_sort = ((column, self.model.sort_order == Qt.SortOrder.DescendingOrder)
                           if column in PaperTableModel.ORDER_KEYS else None)
            if self._sized:
                self._remember_splitter()
                if all(self.detail_pane.splitter.sizes()):
                    s.set_splitter_sizes("detail", self.detail_pane.splitter.sizes())
            s.sync()
        except RuntimeError:   # the C++ widgets are already gone (interpreter exit)
            pass

    @Slot(bool)
    def set_import_keywords(self, on: bool) -> None:
        """Make imports store records' keywords as tags, or not (stored in the settings;
        :meth:`start_import` reads it).

        Args:
            on: keywords become tags.
        """
        self.settings.import_keywords = on

    @Slot(bool)
    def set_auto_mark_read(self, on: bool) -> None:
        """Turn automatic mark-read on or off (stored in the settings).

        Args:
            on: mark a paper read after it has been shown for
                ``settings.mark_read_delay_ms``.
        """
        self.settings.auto_mark_read = on
        action = self.actions_by_name["autoMarkReadAction"]
        if action.isChecked() != on:
            action.blockSignals(True)
            action.setChecked(on)
            action.blockSignals(False)
        if not on:
            self.reading.cancel_auto_mark_read()
        elif self.detail_pane.paper is not None:
            self.reading.schedule_mark_read(self.detail_pane.paper)

    def shutdown(self) -> None:
        """Save a pending note, stop the worker threads and (if owned) close the library.
        Safe to call twice; called by :meth:`closeEvent`."""
        if self._shut_down:
            return
        try:
            self.detail_pane.note_editor.flush()
            self.detail_pane.note_editor.hand_over_typed()
        except RuntimeError:  # the C++ widgets are already gone (interpreter exit)
            pass
        self._shut_down = True
        self.reading.cancel_auto_mark_read()
        self.search_runner.shutdown()
        self.saved_counter.shutdown()
        self.import_runner.shutdown()
        self.export_runner.shutdown()
        self.sync_runner.shutdown()
        self.check_runner.cancel()
        self.discover.shutdown_discover()
        self.worker.shutdown()   # waits for the running batch; runs queued edits
        self.lib.auto_sync_index, self.lib.on_index_stale = self._library_hooks
        self.model.clear()
        self.detail_pane.clear_paper()
        if self._settled:
            collector.unsettle()
            self._settled = False
        if self._owns_library:
            self.lib.close()

    # -- Qt event handlers -------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt)
        """Save the window's state, stop threads and close the library before the
        window goes away."""
        if not self._shut_down:
            self.save_state()
        self.shutdown()
        super().closeEvent(event)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Size the panes once, at the first show: as remembered, else scope ~230 px
        (more at a large font, :meth:`_tag_pane_width`) and detail ~40 %."""
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            # the restored selection in view once the list has its size
            QTimer.singleShot(0, self._scroll_to_current)
            width = max(self.splitter.width(), self.width())
            sizes = self.settings.splitter_sizes("main", 3)
            if sizes is None:
                detail = int(width * DETAIL_SHARE)
                side = self._tag_pane_width()
                sizes = [side, width - side - detail, detail]
            self.splitter.setSizes(sizes)
            detail_sizes = self.settings.splitter_sizes("detail", 2)
            if detail_sizes is not None:
                self.detail_pane.set_splitter_sizes(detail_sizes)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt)
        """Follow palette changes (light/dark appearance) in the icons and labels drawn
        with palette colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "search_help_button"):
            self.search_help_button.setIcon(
                _help_icon(self.palette().color(QPalette.ColorRole.PlaceholderText)))
            if self.search.suggestion():
                self.search.show_suggestion(self.search.results)
            self.table.viewport().update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """Search box keys: Enter/Down go to the list; Ctrl+Enter applies "Did you
        mean"; F1 shows the search syntax; Esc clears, or goes to the list when already
        empty."""
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport() \
                and self.search.searching_columns:
            self.search.fit_search_columns()       # the list got wider or narrower
            return False
        if watched is self.search_box and event.type() == QEvent.Type.ShortcutOverride \
                and event.key() in (Qt.Key.Key_Escape, Qt.Key.Key_F1):
            event.accept()   # Esc / F1 belong to the search box, not to the window
            return True
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            if key == Qt.Key.Key_F1:
                self.show_search_help()
                return True
            if ctrl and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if not self.search.apply_suggestion():
                    self.search.flush_search()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Down):
                self.search.flush_search()
                self.focus_list()
                return True
            if key == Qt.Key.Key_Escape:
                if self.search_box.text():
                    self.search_box.clear()
                else:
                    self.focus_list()
                return True
        return super().eventFilter(watched, event)

    # -- listing and searching ---------------------------------------------------------

    # -- drag and drop (Qt's handlers, handed to the import commands) -----------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        """Take drags of local files or folders (see ``ImportCommands.drag_enter``)."""
        self.imports.drag_enter(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt override
        self.imports.drag_enter(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        """Import the dropped files and folders (see ``ImportCommands.drop``)."""
        self.imports.drop(event)

    def is_shut_down(self) -> bool:
        """True once :meth:`shutdown` ran (late signals are then ignored)."""
        return self._shut_down

    def _scope_count(self) -> int | None:
        """The number of papers in the scope, as last read off the UI thread (``None``
        until the first read for this scope arrives; listing, the list's own length)."""
        if self._counts is not None and self._counts[0] == self.search.scope:
            return self._counts[1]
        return None if self.model.searching else self.model.rowCount()

    def scope_name(self) -> str:
        """What the list covers, for people ("tag “ml”", "Unread", a file name; "" for
        all papers)."""
        saved = self.tag_pane.current_saved()
        if saved is not None and self.search.results is not None \
                and saved[1].strip() == self.search.results.query:
            return f"saved search {quoted(saved[0], 40)}"
        s = self.search.scope
        if s.filter is not None:
            return FILTER_LABELS.get(s.filter, s.filter)
        if s.tag_id is not None:   # from the tag pane's list (no SQLite on the UI thread)
            name = next((t.name for t in self.tag_pane.tag_entries() if t.id == s.tag_id),
                        None)
            return f"tag “{name}”" if name is not None else ""
        if s.source_id is None:
            return ""
        for sid, label, _count in self.tag_pane.entries():
            if sid == s.source_id:
                return label.rsplit(" (", 1)[0]
        return ""

    def empty_hint(self) -> str:
        """What the reading pane says when the list is empty (no match, empty scope)."""
        if self.search.results is not None:
            if self.search.suggestion():
                return (f"No papers match. Did you mean {quoted(self.search.suggestion(), 40)}? "
                        "(Ctrl+Enter)")
            if self.search.results.message:
                return f"No papers match your search — {self.search.results.message}"
            return "No papers match your search"
        if self.import_runner.is_running():
            return "Importing papers…"
        if self._total_papers == 0:
            return "No papers yet — import abstract files with File ▸ Import Files… (Ctrl+O)"
        if self.search.scope != Scope():
            return "No papers here"
        return PLACEHOLDER

    def update_status(self, filters: Iterable[str] | None = None) -> None:
        """Redraw the status bar at once from what is known, and read the counts (scope,
        unread, library, filters) again on the reader thread; they redraw it when they
        come back. The UI thread never counts.

        Args:
            filters: the tag pane's filters to count again (names of ``FILTERS``), or
                ``None`` for all of them; the others keep their counts (a star changes
                only "Starred": see :func:`_filters_touched`).
        """
        if self._shut_down:
            return
        self._render_status()
        self._request_counts(filters)

    def _request_counts(self, filters: Iterable[str] | None = None) -> None:
        # The filters asked for since the last read was sent are counted together by
        # the next one (a star then a tag: "Starred" and "Untagged"); one read at a
        # time: a request made while one is on its way is sent when it is in.
        if filters is None or self._recount is None:
            self._recount = None
        else:
            self._recount |= set(filters)
        if self._counts_in_flight:
            self._counts_again = True
            return
        pause = self._counts_pause()
        if pause > 0:                 # during an import: held back (COUNTS_SHARE_IMPORTING)
            self._counts_again = self._counts_in_flight = True
            self._counts_held = QTimer(self, singleShot=True)
            self._counts_held.timeout.connect(self._send_held_counts)
            self._counts_held.start(int(pause * 1000) + 1)
            return
        self._counts_in_flight = True
        self._counts_sent_at = time.monotonic()
        self._counts_generation += 1
        generation, scope = self._counts_generation, self.search.scope
        only = None if self._recount is None else tuple(sorted(self._recount))
        if only and self.import_runner.is_running():
            only = None     # an import moves several filters: count them together
        self._recount = set()

        def count(lib: Library) -> tuple:
            return (lib.papers.scope_count(scope), lib.papers.scope_count(scope, also="unread"),
                    lib.papers.count(), lib.papers.filter_counts(only))

        self.worker.read(count, on_done=lambda result: self._on_counts(generation, scope,
                                                                       result, only),
                         on_failed=self._on_counts_failed, label="counts", slow=True)

    #: While an import stores papers, counting (the scope, unread, the library, the
    #: filters: each counts every paper, 0.1-0.2 s at a million) takes at most this share
    #: of the time: the next read waits after the last one. A star every 300 ms kept the
    #: reader thread counting, and with the import's two processes the UI thread waited
    #: for a core.
    COUNTS_SHARE_IMPORTING = 0.2

    def _counts_pause(self) -> float:
        """Seconds the next counts read waits: during an import, until the last read's
        time is :data:`COUNTS_SHARE_IMPORTING` of the time since it started; else 0."""
        if not self.import_runner.is_running():
            return 0.0
        return (self._counts_done_at + self._last_counts_s
                * (1 / self.COUNTS_SHARE_IMPORTING - 1) - time.monotonic())

    def _counts_in(self) -> None:
        """The counts read on its way is in (or failed): send the one asked for since
        (during an import, after a pause: :meth:`_counts_pause`)."""
        self._counts_done_at = time.monotonic()
        self._last_counts_s = self._counts_done_at - self._counts_sent_at
        self._counts_in_flight = False
        if self._counts_again and not self._shut_down:
            self._counts_again = False
            self._request_counts(())

    def _send_held_counts(self, now: bool = False) -> None:
        """Send the counts read held back during an import: when its pause is over, or
        at once (``now``: the import ended)."""
        if self._counts_held is None:
            return
        self._counts_held.stop()
        self._counts_held.deleteLater()
        self._counts_held = None
        self._counts_in_flight = False
        if now:
            self._counts_done_at = self._last_counts_s = 0.0    # no pause
        if self._counts_again and not self._shut_down:
            self._counts_again = False
            self._request_counts(())

    def _on_counts_failed(self, message: str) -> None:
        self._counts_in()
        if not self._shut_down:
            self.show_error(f"The counts could not be read: {message}")

    def _on_counts(self, generation: int, scope: Scope, result: tuple,
                   only: tuple[str, ...] | None = None) -> None:
        if not self._shut_down and generation == self._counts_generation:
            scope_count, unread, total, filters = result
            self._counts = (scope, scope_count, unread)
            self._total_papers = total
            if only is not None and self.import_runner.is_running():
                # An import adds unread, untagged papers: "All papers" counted alone
                # would run ahead of "Unread" and "Untagged" until the next full count
                # (the tester's P2); during an import the tag pane's counts move
                # together (a read asking for some filters counts them all).
                filters = {}
            self.tag_pane.set_counts(filters)
            self._render_status()
        self._counts_in()       # after: the next read's answer is newer than this one

    def _render_status(self) -> None:
        scope = self._scope_count()
        name = self.scope_name()
        if self.search.results is not None:
            results = self.search.results
            n = results.total
            if scope is None:       # the scope's size is still being counted
                text = f"{n:,} match" if results.total_exact else f"about {n:,} match"
            elif results.total_exact:
                text = f"{n:,} of {scope:,} match"
            else:   # an estimate (the first page of a large result); never above the scope
                text = f"about {min(n, scope) if scope else n:,} of {scope:,} match"
            if not self.search.results_complete:
                text += f" — listing the best {len(results.ids) or len(results.hits):,}, " \
                        "loading the rest…"
            if results.partial:     # the index is still catching up with an import
                text += f" — {results.coverage_note()}"
            if results.message:
                text += f" — {results.message}"
            elif n == 0:
                text += f" — nothing contains {quoted(results.query)}"
                if not self.search.suggestion():
                    text += ". Try fewer or shorter words, or a prefix such as optim*"
        elif scope == 0 and self.import_runner.is_running():
            text = "Importing sample papers…" if self._importing_seeds else "Importing…"
        elif scope == 0 and self._total_papers == 0:
            text = "No papers yet"
        else:
            text = plural(scope or 0, "paper")
        if name:
            text += f"  ·  {name}"
        selected = len(self.table.selectionModel().selectedRows())
        if selected > 1:
            text += f"  ·  {selected:,} selected"
        self.status_label.setText(text)
        self.status_label.setToolTip(tooltip_html(text))
        counts = self._counts if self._counts and self._counts[0] == self.search.scope else None
        self.unread_label.setText(f"{counts[2]:,} of {counts[1]:,} unread"
                                  if counts and counts[1] else "")
        self.statusBar().refit()      # a longer count is not cut until the next layout

    # -- the current paper -------------------------------------------------------------

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, selected, deselected) -> None:
        if self.model.dropping:
            # Deleted rows leave the selection one run at a time: counting the selection
            # (a pass over it) and the papers (a read) after each run made Ctrl+A then
            # Del on 2,133 search hits take minutes; once, when they are gone, is enough.
            self._selection_dropped = True
            return
        n = len(self.table.selectionModel().selectedRows())
        self.detail_pane.set_selection_size(n)
        if n > 1 or self.status_label.text().endswith(" selected"):
            self.update_status(filters=())
        # Only when rows were added to the selection: deleted rows leave it one at a
        # time, and "2 papers selected" replaced "Deleted 199 papers" (a tester's finding).
        # Beside the counts (which say "N selected"), not over them; gone with the
        # selection (a list refilled during an import keeps only the current paper).
        if n > 1 and not selected.isEmpty():
            self.show_beside_counts(SELECTION_HINT)
        elif n <= 1 and self.edit_label.isVisible() \
                and self.edit_label.full_text == SELECTION_HINT:
            self.edit_label.hide()

    @Slot(int)
    def _after_rows_dropped(self, _removed: int) -> None:
        """The rows of deleted papers are gone (``PaperTableModel.rowsDropped``): what the
        selection's changes meanwhile would have done, once (nothing was added to it)."""
        if self._selection_dropped and not self._shut_down:
            self._selection_dropped = False
            self._on_selection_changed(QItemSelection(), QItemSelection())

    # -- edits and undo ---------------------------------------------------------------
    def submit_edit(self, edit, quiet: bool = False, on_done=None, on_failed=None) -> bool:
        """Hand ``edit(lib)`` (a ``Library`` mutation returning
        :class:`~paperdesk.core.changes.Changes`) to the one writer thread; the panes
        refresh from the worker's ``changed`` signal once it is committed, never before.

        Args:
            edit: ``(Library) -> Changes``; runs on the writer thread, ahead of any bulk
                work (an import's queued batches wait for it).
            quiet: no "… — Ctrl+Z to undo" message (note autosaves, automatic
                mark-read).
            on_done: ``on_done(changes)`` in the UI thread once it is committed (after
                the message, before the panes refresh).
            on_failed: ``on_failed(message)`` in the UI thread instead of the status
                bar's "⚠" message when it is refused (e.g. a dialog that shows why).
        Returns:
            True when the edit was queued; False after shutdown. A refused or failed
            edit shows a one-line message when it comes back.
        """
        if self._shut_down:
            return False

        def run(lib: Library) -> _Step:   # writer thread: the label of *this* step
            changes = edit(lib)
            return _Step(changes, lib.undo_label, _rows_after(lib, changes))

        def done(step: _Step) -> None:
            self._step_rows = (step.changes, step.rows)   # for _on_changed, next
            self._edit_done(step, quiet)
            if on_done is not None:
                on_done(step.changes)

        def failed(message: str) -> None:
            self._edit_failed(message, on_failed)

        job = self.worker.write(run, on_done=done, on_failed=failed, label="edit")
        if job is not None:
            self._edits_pending += 1
            self._update_undo_actions()   # Ctrl+Z works before the edit comes back
        return job is not None

    def _edit_done(self, step: "_Step", quiet: bool = False) -> None:
        """UI thread, after an edit committed (``changed`` follows and refreshes)."""
        self._edits_pending -= 1
        self._update_undo_actions()
        if step.changes and not quiet and step.label:
            self.show_edit_message(f"{step.label}  —  Ctrl+Z to undo")

    def show_edit_message(self, text: str) -> None:
        """Show a finished edit's or undo's message (plain text, elided to the room left)
        for ``MESSAGE_MS`` in the status bar beside the counts, not over them (a
        temporary status message hides the bar's other widgets); it replaces any
        temporary message shown, as a newer message does. Emits
        :attr:`editMessageShown`."""
        self.show_beside_counts(text)
        self.editMessageShown.emit(text)

    def show_beside_counts(self, text: str) -> None:
        """Show a short message (plain text) for ``MESSAGE_MS`` in the status bar beside
        the counts, elided to the room they leave (an edit's message, or a hint such as
        what keys act on a selection); it replaces any temporary message shown."""
        self.statusBar().clearMessage()
        self.edit_label.set_full_text(text)
        self.edit_label.show()
        self._edit_message_timer.start(MESSAGE_MS)

    def _edit_failed(self, message: str, on_failed=None) -> None:
        self._edits_pending -= 1
        self._update_undo_actions()
        (on_failed or self.show_error)(message)

    def submit_undo(self, redo: bool = False) -> bool:
        """Undo (or redo) the newest step of the library's undo stack, on the writer
        thread.

        Args:
            redo: redo instead of undo.
        Returns:
            False when there was nothing to undo or redo and no edit is on its way to
            the writer thread; otherwise True (the step undone is the newest one when
            the job runs, after the edits queued before it; a failure shows "Cannot
            undo …: why" when it comes back).
        """
        if self._shut_down:
            return False
        if (self.lib.redo_label if redo else self.lib.undo_label) is None \
                and not self._edits_pending:
            return False
        verb = "redo" if redo else "undo"
        labels: list[str | None] = []

        def run(lib: Library) -> _Step:   # writer thread: the step as it is now
            label = lib.redo_label if redo else lib.undo_label
            labels.append(label)
            changes = lib.redo() if redo else lib.undo()
            return _Step(changes, label, _rows_after(lib, changes))

        def done(step: _Step) -> None:
            self._step_rows = (step.changes, step.rows)   # for _on_changed, next
            self._edits_pending -= 1
            self._update_undo_actions()
            self.show_edit_message(f"{'Redone' if redo else 'Undone'}: {step.label}")

        def failed(message: str) -> None:
            self._edits_pending -= 1
            self._update_undo_actions()
            if labels and labels[0] is not None:   # else nothing was left to undo
                self.show_error(f"Cannot {verb} {labels[0]}: {message}")

        job = self.worker.write(run, on_done=done, on_failed=failed, label=verb)
        if job is not None:
            self._edits_pending += 1
            self._update_undo_actions()
        return job is not None

    def _update_undo_actions(self) -> None:
        """Edit ▸ Undo/Redo say what they would do ("Undo Tag ‘depth’"). While edits or
        undos are on their way to the writer thread both stay enabled, so that a Ctrl+Z
        pressed right after a key is not lost (:meth:`submit_undo` then undoes the newest
        step when its turn comes)."""
        pending = self._edits_pending > 0
        for action, label, verb in ((self.undo_action, self.lib.undo_label, "&Undo"),
                                    (self.redo_action, self.lib.redo_label, "&Redo")):
            action.setEnabled(label is not None or pending)
            action.setText(f"{verb} {label.replace('&', '&&')}" if label else verb)

    def _on_changed(self, change: Changes) -> None:
        """Refresh what a change touched: list rows, counts, tags (the paper on show:
        :meth:`ReadingController.on_changed`)."""
        if self._shut_down:
            return
        # the changed papers' rows, read by the writer thread right after an edit or
        # undo of the window (None: another change, read again by the model)
        step, self._step_rows = self._step_rows, None
        rows = step[1] if step is not None and step[0] is change else None
        self._update_undo_actions()
        if not change:
            return
        if change.duplicates:
            self.duplicates.duplicates_changed(change)
        if change.sources:   # papers deleted or put back, files removed or restored
            self._relist_after_removal(change.papers)
        else:
            self.model.refresh_papers(change.papers, rows)
        if change.tags:
            self._update_tags(change)
        if change.saved_searches:
            self.saved_searches.refresh_saved()
        # counts (and the filters' counts the change can have moved): in place when it
        # says by how much, else off the UI thread
        self._follow_counts(change)
        # the paper on show: the reading controller, connected after this slot

    def _follow_counts(self, change: Changes) -> None:
        """Bring the counts shown up to date after ``change``: a star's or read mark's
        count changes (``Changes.filter_count_changes``) are added to the tag pane's
        filters and the status bar's counts in place; what they cannot tell (the
        unread papers of a tag after a read mark, the unread starred papers after a
        star), any other change, and any change made while a counts read is on its
        way (it may have counted before the change) are counted again on the reader
        thread. At a million papers a count of the unread papers takes 40-50 ms of a
        core: with it after every key of a fast reader, and an import beside it, the
        window waited for a core."""
        deltas = None if change.sources else change.filter_count_changes()
        sent = self._counts_in_flight and self._counts_held is None
        if deltas is None or sent or not self.tag_pane.add_filter_counts(deltas):
            self.update_status(None if change.sources else _filters_touched(change))
            return
        scope = self.search.scope
        if self._counts is not None and self._counts[0] == scope:
            moved = _scope_counts_after(scope, self._counts[1:], deltas)
            if moved is None:       # the scope's own counts: read them again
                self.update_status(filters=())
                return
            self._counts = (scope, *moved)
        self._render_status()

    def _relist_after_removal(self, paper_ids) -> None:
        """Papers left the library or came back (delete, remove file, their undo): list
        the scope again, keeping the current paper or, if it went, the same row (the
        next paper); while searching, drop the rows of papers that went (the search runs
        again once the index has caught up, which brings back those put back). The
        files and their counts are read again too (saved searches are counted again
        when the index has caught up)."""
        self._refresh_sources()
        row = self.table.currentIndex().row()
        keep = self.current_paper_id()
        if self.search.results is None:
            self.model.show_all(scope=self.search.scope,
                                on_rows=lambda: self.search.restore_selection(keep, row))
            return

        def dropped(_removed: int) -> None:     # the rows of the papers that went are gone
            if self._shut_down:
                return
            current = self.current_paper_id()
            # the paper that was current went (or none is): the same row (the next
            # paper); the user's move meanwhile to a paper that stays is kept
            if current is None or current == keep or self.model.row_of(keep) < 0:
                self.search.restore_selection(keep, row)

        self.model.drop_missing(paper_ids, on_done=dropped)

    def _read_ids(self, read, deliver, first: bool) -> None:
        """The list model's id reader: ``read(lib)`` on a reader thread (``first``, the
        first screenful: ahead of the reads queued; else every id, a second at a
        million papers: on the slow reader, so that a key's row does not wait for it),
        ``deliver`` of its result in the UI thread (nothing after the window shut
        down)."""
        def done(result) -> None:
            if not self._shut_down:
                deliver(result)

        def timed(lib: Library):
            started = time.monotonic()
            try:
                return read(lib)
            finally:
                self._last_list_s = time.monotonic() - started

        self.worker.read(timed, on_done=done,
                         on_failed=lambda message: self.show_error(
                             f"The list could not be read: {message}"), label="list",
                         first=first, slow=not first)

    def _read_rows(self, ids: list, deliver) -> None:
        """The list model's row fetcher: ``lib.papers.summaries(ids)`` on the reader
        thread, ahead of the reads queued (the rows on screen wait for it), and
        ``deliver`` of its ``{id: PaperSummary}`` in the UI thread (nothing after the
        window shut down; a failure leaves the rows' placeholder and says why)."""
        def done(found) -> None:
            if not self._shut_down:
                deliver(found)

        self.worker.read(lambda lib: lib.papers.summaries(ids), on_done=done,
                         on_failed=lambda message: self.show_error(
                             f"The list's rows could not be read: {message}"),
                         label="rows", first=True)

    def _refresh_tags(self) -> None:
        """The window's first tag list: the tags themselves now (the 1-9 menu, the chips,
        the tag chosen when the window last closed), their counts from the reader thread
        (a pass over every tagging: 190 ms on the UI thread at 300,000 papers with four
        tags on a third of them each)."""
        self._show_tags(self.lib.tags.all(count=False))
        self._read_tags(self._show_tag_counts)

    def _show_tag_counts(self, tags) -> None:
        """Show the counts of the tags listed, or the whole list when its tags changed
        meanwhile."""
        if self._shut_down:
            return
        shown = self.tag_pane.tag_entries()
        if [replace(t, count=None) for t in tags] == [replace(t, count=None) for t in shown]:
            self.tag_pane.set_tag_counts({t.id: t.count for t in tags})
            self.tag_commands.update_tag_dialogs(self.tag_pane.tag_entries())
        else:
            self._show_tags(tags)

    def _update_tags(self, change: Changes) -> None:
        """After a change to tags: when it only moved the counts of tags listed (a
        tag toggled on papers, its undo or redo: ``Changes.tag_count_changes``), add
        those to the counts shown (counting a tag's papers is a pass over a third of
        the library); otherwise, or while a tag list read is on its way (it could bring
        counts from before this change), read the tag list again on the reader thread.
        """
        deltas = change.tag_count_changes()
        shown = self.tag_pane.tag_entries()
        if deltas is not None and not self._tag_reads and \
                set(deltas) <= {t.id for t in shown if t.count is not None}:
            # only the counts: the entries, chips and menus stay (no repaint of rows)
            self.tag_pane.set_tag_counts({t.id: t.count + deltas[t.id] for t in shown
                                          if t.id in deltas})
            self.tag_commands.update_tag_dialogs(self.tag_pane.tag_entries())
            return
        self._read_tags(self._show_tags)

    def _read_tags(self, show) -> None:
        """Read the tag list with its counts on the reader thread, then ``show(tags)``
        in the UI thread (how many such reads are on their way: ``_tag_reads``)."""
        self._tag_reads += 1

        def done(tags) -> None:
            self._tag_reads -= 1
            show(tags)

        def failed(message: str) -> None:
            self._tag_reads -= 1
            self.show_error(message)

        job = self.worker.read(lambda lib: lib.tags.all(), on_done=done, on_failed=failed,
                               label="tags")
        if job is None:
            self._tag_reads -= 1

    def _show_tags_if_changed(self, tags) -> None:
        """Show a tag list read after an import only when it differs from the one shown
        (new tags, other counts), so that an import without keywords repaints nothing."""
        if not self._shut_down and list(tags) != self.tag_pane.tag_entries():
            self._show_tags(tags)

    def _show_tags(self, tags) -> None:
        """Show a fresh tag list: chip colours, completion, the 1-9 menu, the tag pane."""
        if self._shut_down:
            return
        self.model.set_tag_colours({t.name: t.colour for t in tags})
        self.detail_pane.set_tag_names([t.name for t in tags])
        bound = {t.key: t.name for t in tags if t.key}
        for n in range(1, 10):
            name = bound.get(n)
            self.actions_by_name[f"toggleTag{n}Action"].setText(
                f"&{n}  {name.replace('&', '&&')}" if name else f"&{n}  (no tag bound)")
        self.tag_pane.set_tags(tags)   # may choose "All papers" if the chosen tag is gone
        self.tag_commands.update_tag_dialogs(tags)

    @Slot()
    def _scroll_to_current(self) -> None:
        if self._shut_down:
            return
        index = self.table.currentIndex()
        if index.isValid():
            self.table.scrollTo(index)

    # -- importing ---------------------------------------------------------------------
    def _refresh_sources(self) -> None:
        """Re-list the imported files and the filter counts (read off the UI thread)."""
        def read(lib: Library) -> tuple:
            return lib.papers.count(), lib.removal.sources(), lib.papers.filter_counts()

        def show(result: tuple) -> None:
            if not self._shut_down:
                self._total_papers = result[0]
                self.tag_pane.refresh(*result)
                # a large library searches in a process of its own (started once)
                self.search_runner.use_process(search_process_wanted(result[0]))

        self.worker.read(read, on_done=show, label="sources", slow=True)

    #: While a long import stores papers, the list shows them again at most this often
    #: (seconds), so that they can be browsed before the import ends.
    LIST_REFRESH_S = 3.0
    #: ... and at most this share of the time goes to reading the list again (reading
    #: the ids of a million papers takes about a second: then every 10 s).
    LIST_REFRESH_SHARE = 0.1

    @Slot(str, int, int)
    def _on_import_progress(self, stage: str, done: int, total: int) -> None:
        if stage == "import" and done:
            self._refresh_list_during_import()
        if not self.cancel_button.isEnabled() or self.import_progress_label.full_text:
            return  # cancelling, or the progress line shows it (_on_import_stepped)
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(min(done, total))
        verb = "Indexing" if stage == "index" else "Importing"
        self.progress_bar.setFormat(f"{verb} %v of %m")

    @Slot()
    def _refresh_list_during_import(self) -> None:
        """Show the papers committed so far in the list (no search typed), at most every
        :data:`LIST_REFRESH_S` and :data:`LIST_REFRESH_SHARE` of the time; a refresh
        asked for sooner is held (one timer) and run when it is due."""
        if self._shut_down or not self.import_runner.is_running():
            return
        if self.search.query_text():
            # the list shows the search's hits; the counts (the library's, the scope's,
            # the filters') follow the import all the same (held back to a share of the
            # time: COUNTS_SHARE_IMPORTING)
            self.update_status()
            return
        now = time.monotonic()
        due = self._list_refreshed + max(self.LIST_REFRESH_S,
                                         self._last_list_s / self.LIST_REFRESH_SHARE)
        if now >= due:
            self._list_refresh_held.stop()
            self._list_refreshed = now
            self.search.show_all()      # the papers committed so far, in the list
        elif not self._list_refresh_held.isActive():
            self._list_refresh_held.start(int((due - now) * 1000) + 1)

    def _end_import(self) -> None:
        self._list_refresh_held.stop()      # the list is read again below
        self._send_held_counts(now=True)    # no pause once the import is over
        self.progress_bar.hide()
        self.cancel_button.hide()
        self.exports.set_background_job(False)
        self._refresh_sources()
        # An import makes tags of records' keywords: the tag list is read again (off
        # the UI thread, as after any change to tags) and shown when it changed.
        self._read_tags(self._show_tags_if_changed)
        self.saved_searches.count_saved()
        if self.search.query_text():
            self.search.request_search(immediate=True)
            self.update_status()
        else:
            self.search.show_all()

    @Slot(object)
    def _on_import_finished(self, report: ImportReport) -> None:
        if self._shut_down:
            return
        seeds, self._importing_seeds = self._importing_seeds, False
        self._end_import()
        shown = self.detail_pane.paper_id
        # enriched meanwhile (report.changes would build a set of every paper added:
        # 0.6 s on the UI thread after a million-record import)
        if shown is not None and shown in report.changed_ids:
            self.reading.show_again(shown)
        self.imports.show_import_ended(report, seeds)
        if report.cancelled:
            n = report.added
            message = (f"Import cancelled — {n:,} {'paper was' if n == 1 else 'papers were'} "
                       "imported and kept")
            if report.index_pending:
                left = report.index_pending
                message += (f"; {left:,} {'paper' if left == 1 else 'papers'} not yet "
                            "searchable (indexed with the next change or start)")
        elif seeds:
            message = f"Imported {plural(report.added, 'sample paper')}"
        else:
            message = f"Imported {plural(report.added, 'new paper')}"
            if report.enriched:
                message += f", {plural(report.enriched, 'paper')} given missing metadata"
            if report.duplicates:
                message += f" ({report.duplicates:,} already in the library)"
            if report.without_abstract:
                message += f"; {report.without_abstract:,} without abstract"
        self.statusBar().showMessage(message, 6000)
        if report.rejected:
            self.import_message = self.imports.import_report_dialog
        # The papers are listed (stored only); the index catches up now, on the writer
        # thread, with "Indexing N of M" in the status bar (after a cancel: with the
        # next change or start, as the message says).
        if not report.cancelled:
            self.sync_runner.mark_stale()
            self.sync_runner.flush()
        # The near-duplicate stage: after the papers are stored and the list
        # refreshed, as its own background job (an import started meanwhile goes
        # first: DuplicatesCommands.give_way_to_import).
        self.duplicates.find_duplicates(report)
        self.imports.start_pending_import()

    @Slot(str)
    def _on_import_failed(self, message: str) -> None:
        if self._shut_down:
            return
        self._importing_seeds = False
        self._end_import()
        self.sync_runner.mark_stale()     # the batches committed before the error
        self.duplicates.after_import_failed()   # a stage stopped for it: the rest
        self.imports.show_import_ended(None, False)
        self.imports.start_pending_import()
        self.import_message = message_box(
            self, QMessageBox.Icon.Critical, "Import failed",
            f"The import stopped because of an error:\n\n{message}", modal=False)


class _Step:
    """An edit's or undo's outcome from the writer thread: its ``changes`` (the worker
    emits ``changed`` with them) and the undo label read right after it ran there."""

    __slots__ = ("changes", "label", "rows")

    def __init__(self, changes: Changes, label: str | None, rows=None):
        self.changes = changes
        self.label = label
        #: ``{id: PaperSummary}`` of the changed papers, read right after the change
        #: (``None``: not read, see :func:`_rows_after`)
        self.rows = rows


def _rows_after(lib: Library, changes: Changes):
    """The list rows of the papers an edit changed, read on the writer thread right
    after it committed, so that the list shows the change without reading on the UI
    thread (``{id: PaperSummary}``; ``None`` when papers were added or removed, when
    there are more than the list re-reads one by one, or when nothing changed)."""
    papers = getattr(changes, "papers", None)
    if not changes or not papers or changes.sources or len(papers) > REFRESH_LIMIT:
        return None
    return lib.papers.summaries(sorted(papers))


def _free_name(path: Path) -> Path:
    """``path``, or ``path 2``, ``path 3`` … whichever does not exist yet."""
    candidate, n = path, 1
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name} {n}")
    return candidate


def _shutdown_at_exit(ref: weakref.ref) -> None:
    window = ref()
    if window is not None:
        try:
            window.shutdown()
        except RuntimeError:  # the C++ window is already gone
            pass
