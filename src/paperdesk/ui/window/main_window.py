"""The main window: scope pane | search box + paper list | detail pane.

The window owns the wiring between the panes, the search, import and index-sync runners
and the status bar. It reads from the library in the UI thread only for cheap calls
(counts, id lists, row summaries, one paper) and makes every change through
:meth:`MainWindow.submit_edit` (a ``Library`` mutation that records its own undo step in
the core and returns the :class:`~paperdesk.core.changes.Changes` the panes refresh
from); searches, imports and
search-index updates run on worker threads (:mod:`paperdesk.ui.background.workers`). The commands
of the menus and keyboard come from one table (:mod:`paperdesk.ui.window.actions`); their slots
for triage and annotation live in :class:`~paperdesk.ui.window.triage.TriageMixin`, those for
exporting and copying in :class:`~paperdesk.ui.window.export_commands.WindowExportMixin`,
those for citation metadata (the metadata editor, ``\\cite{key}``, the paper's own page) in
:class:`~paperdesk.ui.window.metadata_commands.MetadataCommandsMixin`, deleting papers and
removing imported files in
:class:`~paperdesk.ui.window.removal_commands.RemovalCommandsMixin`, and the list's optional
columns in :class:`~paperdesk.ui.window.list_columns.ListColumnsMixin`.
"""

from __future__ import annotations

import atexit
import functools
import html
import time
import weakref
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import (QEvent, QItemSelection, QItemSelectionModel, QModelIndex, QObject,
                            Qt, QTimer, QUrl, Slot)
from PySide6.QtGui import (QActionGroup, QCloseEvent, QColor, QFont, QIcon, QPainter,
                           QPalette, QPixmap)
from PySide6.QtWidgets import (QAbstractItemView, QFileDialog, QFrame, QHeaderView, QLabel,
                               QLineEdit, QMainWindow, QMessageBox, QPlainTextEdit,
                               QProgressBar, QPushButton, QSizePolicy, QSplitter,
                               QTextEdit, QVBoxLayout, QWidget)

from paperdesk.core.changes import Changes
from paperdesk.core.api import file_dialog_filter
from paperdesk.core.library import Library
from paperdesk.core.models import (ImportReport, IndexStatus, LibraryError, SearchResults,
                                   UnknownPaper)
from paperdesk.core.api import MatchTerms
from paperdesk.ui.window.actions import build_actions
from paperdesk.ui.style.appearance import follow_appearance
from paperdesk.ui.style.colours import muted_colour
from paperdesk.ui.panes.detail_pane import PLACEHOLDER, DetailPane
from paperdesk.ui.panes.links import link_problem
from paperdesk.ui.window.status_bar import WrappingStatusBar
from paperdesk.ui.window.dialogs import ShortcutsDialog, message_box, show_about
from paperdesk.ui.window.discover_commands import DiscoverCommandsMixin
from paperdesk.ui.window.overview_window import OverviewCommandsMixin
from paperdesk.ui.window.duplicates_commands import DuplicatesCommandsMixin
from paperdesk.ui.window.export_commands import WindowExportMixin
from paperdesk.ui.window.import_commands import ImportCommandsMixin
from paperdesk.ui.window.interest_sort import InterestSortMixin
from paperdesk.ui.window.list_columns import ListColumnsMixin
from paperdesk.ui.window.metadata_commands import MetadataCommandsMixin
from paperdesk.ui.window.removal_commands import RemovalCommandsMixin
from paperdesk.ui.style.formatting import plural, tooltip_html
from paperdesk.ui.panes.paper_model import PaperTableModel
from paperdesk.ui.panes.paper_table import PaperTableView
from paperdesk.ui.window.saved_searches import SavedSearchActions
from paperdesk.core.scope import FILTER_LABELS, Scope
from paperdesk.ui.window.search_help import SEARCH_TIP, SearchHelpDialog
from paperdesk.ui.app.settings import FONT_SIZE_RANGE, Settings
from paperdesk.ui.panes.snippet_delegate import SnippetDelegate
from paperdesk.ui.panes.tag_pane import TagPane
from paperdesk.ui.panes.title_delegate import TitleDelegate
from paperdesk.ui.window.tag_commands import TagCommandsMixin
from paperdesk.ui.window.triage import MESSAGE_MS, TriageMixin
from paperdesk.ui.background.operations import LibraryWorker
from paperdesk.ui.background.workers import (CheckRunner, ExportRunner, ImportRunner, IndexSyncRunner, SavedSearchCounter,
                      SearchRunner)

__all__ = ["MainWindow", "SEARCH_PLACEHOLDER"]

#: Narrowest the paper list and the reading pane may become, in pixels.
LIST_MIN_WIDTH = 260
DETAIL_MIN_WIDTH = 320

SEARCH_PLACEHOLDER = "Search titles, abstracts and notes…  (/ to come here, F1 for syntax)"
#: Longest piece of a query quoted back in the status bar, in characters.
QUOTE_CHARS = 60
#: Width of the scope pane and share of the detail pane at first show.
TAG_PANE_WIDTH = 230
DETAIL_SHARE = 0.40
#: While searching, the Title column takes this share of the width the other columns
#: leave, between TITLE_MIN_CHARS and TITLE_CHARS_SEARCHING average characters; the
#: Snippet takes the rest, and is left out when that would be under SNIPPET_MIN_CHARS
#: (a narrow list shows whole titles; the reading pane marks the hits).
TITLE_SHARE_SEARCHING = 0.55
TITLE_CHARS_SEARCHING = 45
TITLE_MIN_CHARS = 25
SNIPPET_MIN_CHARS = 22
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


def _quoted(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` in curly quotes, cut to ``limit`` characters with "…"."""
    text = " ".join(text.split())
    return "“" + (text if len(text) <= limit else text[:limit - 1] + "…") + "”"


#: The longest index status the progress bar is sized for.
_INDEXING_SAMPLE = "Indexing 100,000 of 100,000"
#: The longest text of the bar while the index is repaired (sets its width then).
_REPAIRING_SAMPLE = "Repairing the search index 100,000 of 100,000"
#: A long progress line (sets the width of the status bar's import progress label).
_PROGRESS_SAMPLE = "Storing file 10 of 12 · 88,000 of 100,000 records · about 10 min 5 s left"



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


class MainWindow(SavedSearchActions, TagCommandsMixin, TriageMixin, WindowExportMixin,
                 MetadataCommandsMixin, RemovalCommandsMixin, ListColumnsMixin,
                 ImportCommandsMixin, DuplicatesCommandsMixin, InterestSortMixin,
                 DiscoverCommandsMixin, OverviewCommandsMixin,
                 QMainWindow):
    """The paperdesk window (title ``"paperdesk"``).

    Child widgets (by objectName): ``tagPane`` (:class:`TagPane`), ``searchBox``
    (QLineEdit; F1 in it shows the search syntax, Ctrl+Enter applies "Did you mean"),
    ``suggestionLabel`` (the "Did you mean …" link under it), ``paperTable``
    (:class:`PaperTableView` over :class:`PaperTableModel`, several rows selectable), ``detailPane`` (:class:`DetailPane` with ``noteEditor``,
    ``tagEditor``, ``abstractView`` ...), ``statusLabel`` and ``unreadLabel`` (QLabels
    in the status bar). Actions are named as in :data:`paperdesk.ui.window.actions.ACTIONS`.

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
    (:meth:`shown_by_user`): moved to it in the list (arrows, j/k, u, a click), moved
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

    def __init__(self, library: Library, owns_library: bool = True,
                 parent: QWidget | None = None, settings: Settings | None = None):
        super().__init__(parent)
        self.lib = library
        self.settings = settings or Settings()
        self._owns_library = owns_library
        self._results: SearchResults | None = None
        self._results_complete = True
        self._scope = Scope()
        self._shut_down = False
        self._importing_seeds = False
        self._sized = False
        #: the last message about files not imported (a report dialog or a message box)
        self.import_message: QWidget | None = None
        self._shortcuts_dialog: ShortcutsDialog | None = None
        self._read_candidate: int | None = None
        #: the paper the user moved to in the list (keys, click, a command such as j or
        #: u) or the selection restored at start, while it is the current one; only it
        #: is marked read automatically (a row a search or a refresh puts first is not)
        self._chosen_id: int | None = None
        self._search_stale = False   # indexed text changed since the search last ran
        self._suggestion: str | None = None   # "Did you mean" query on show
        self._search_help: SearchHelpDialog | None = None
        self.library_opener = None   #: ``(folder, new) -> bool``, set by the application
        self._edits_pending = 0      # edits handed to the writer, not yet come back


        self.setWindowTitle("paperdesk")
        self.resize(1200, 760)
        self._build_panes()
        self._build_status_bar()
        self._build_menus()
        self._setup_caret_mode()   # F7 / Tab: a keyboard caret in the abstract

        self.search_runner = SearchRunner(library, parent=self)
        self.search_runner.resultsReady.connect(self._on_results)
        self.search_runner.searchFailed.connect(self._on_search_failed)
        # The one writer thread: imports and index updates run on it as bulk jobs.
        self.worker = LibraryWorker(library, parent=self)
        # Whoosh's long commits of an import hold the GIL: they run in a child process.
        if not library.read_only:
            library.index.use_writer_process()
        #: (scope, papers in it, unread in it), last counted on the reader thread
        self._counts: tuple[Scope, int, int] | None = None
        self._counts_generation = 0
        #: filters to count with the next counts (``None``: all), see _request_counts
        self._recount: set[str] | None = set()
        self._total_papers: int | None = None   #: papers in the library, last counted
        self.worker.changed.connect(self._on_changed)
        self.worker.failed.connect(self.show_error)
        # Snippets of the rows on show are cut on the reader thread, a block at a time.
        self.model.set_snippet_fetcher(self._fetch_snippets)
        self.import_runner = ImportRunner(library, parent=self, worker=self.worker)
        self.import_runner.progress.connect(self._on_import_progress)
        self.import_runner.finished.connect(self._on_import_finished)
        self.import_runner.failed.connect(self._on_import_failed)
        self._setup_file_drops()
        self.export_runner = ExportRunner(library, parent=self)
        self.export_runner.progress.connect(self._on_export_progress)
        self.export_runner.finished.connect(self._on_export_finished)
        self.export_runner.failed.connect(self._on_export_failed)
        self.export_runner.cancelled.connect(self._on_export_cancelled)
        self.sync_runner = IndexSyncRunner(library, parent=self, worker=self.worker)
        self.sync_runner.synced.connect(self._on_index_synced)
        self.sync_runner.failed.connect(
            lambda message: self.show_error(f"Search index not updated: {message}"))
        self.sync_runner.progress.connect(self._on_sync_progress)
        self.sync_runner.status.connect(self._on_index_status)
        self.sync_runner.synced.connect(lambda _n: self._end_sync_progress())
        self.sync_runner.failed.connect(lambda _m: self._end_sync_progress())
        self._syncing_shown = False
        #: The library's index status last read by an index update (``None`` before).
        self.index_status: IndexStatus | None = None
        self._list_refreshed = 0.0      # time.monotonic() of the last refresh in an import
        self._library_hooks = (library.auto_sync_index, library.on_index_stale)
        library.auto_sync_index = False
        library.on_index_stale = self.sync_runner.mark_stale
        self.check_runner = CheckRunner(self.worker, parent=self)
        self.check_runner.progress.connect(self._on_check_progress)
        self.check_runner.finished.connect(self._on_check_finished)
        self.check_runner.failed.connect(self._on_check_failed)
        self._checking_shown = False
        #: The plain-text report of the last Help ▸ Check Library (``None`` before).
        self.check_report: str | None = None
        #: The message box showing it.
        self.check_message: QWidget | None = None
        self.saved_counter = SavedSearchCounter(library, parent=self)
        self.saved_counter.countsReady.connect(self._on_saved_counts)
        self._setup_duplicates()
        self._setup_discover()   # related papers, key terms, tag suggestions, Back
        self._setup_interest_sort()   # the list's "worth reading first" order

        self._read_timer = QTimer(self)
        self._read_timer.setSingleShot(True)
        self._read_timer.timeout.connect(self._auto_mark_read)

        self._refresh_sources()
        self._refresh_tags()
        self._refresh_saved(immediate=True)
        # The paper selected when the window last closed is selected again, and counts
        # as shown (read after the delay); if it is gone, the first row, which does not.
        self._chosen_id = self.settings.selected_paper(library.path)
        # The last paper the user chose (stored at close; never a row the window placed).
        self._last_chosen_id = self._chosen_id
        self._show_all(keep=self._chosen_id)
        self.restore_state()
        # The keyboard starts in the list (not in the first widget of the tab chain, the
        # sidebar, where Down would change the filter).
        self.table.setFocus(Qt.FocusReason.OtherFocusReason)
        # If a script exits without closing the window, still stop the threads first
        # (Qt aborts the process when a running QThread is destroyed).
        atexit.register(_shutdown_at_exit, weakref.ref(self))

    # -- construction ------------------------------------------------------------------
    def _build_panes(self) -> None:
        self.tag_pane = TagPane()
        self.tag_pane.scopeChosen.connect(self._on_scope_chosen)
        self.tag_pane.renameTagRequested.connect(self.prompt_rename_tag)
        self.tag_pane.deleteTagRequested.connect(self.delete_tag)
        self.tag_pane.recolourTagRequested.connect(self.set_tag_colour)
        self.tag_pane.bindKeyRequested.connect(self.set_tag_key)
        self.tag_pane.newTagRequested.connect(self.prompt_new_tag)
        self.tag_pane.manageTagsRequested.connect(self.open_tags_dialog)
        self.tag_pane.savedSearchChosen.connect(self._on_saved_chosen)
        self.tag_pane.renameSavedSearchRequested.connect(self.prompt_rename_saved_search)
        self.tag_pane.deleteSavedSearchRequested.connect(self.delete_saved_search)
        self.tag_pane.saveSearchRequested.connect(self.prompt_save_search)
        self.tag_pane.removeSourceRequested.connect(self.prompt_remove_file)

        self.search_box = QLineEdit()
        self.search_box.setObjectName("searchBox")
        self.search_box.setPlaceholderText(SEARCH_PLACEHOLDER)
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setToolTip(SEARCH_TIP)
        self.search_box.textChanged.connect(self._on_search_text)
        self.search_box.installEventFilter(self)
        self._searching_columns = False   # Title and Snippet shared (a search is shown)
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
        self.suggestion_label.linkActivated.connect(lambda _link: self.apply_suggestion())
        self.suggestion_label.hide()

        self.model = PaperTableModel(self.lib, self)
        self.table = PaperTableView()
        self.table.viewport().installEventFilter(self)   # refit Title/Snippet on resize
        self.table.setObjectName("paperTable")
        self.table.setModel(self.model)
        self._setup_table()

        middle = QWidget()
        layout = QVBoxLayout(middle)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        layout.addWidget(self.search_box)
        layout.addWidget(self.suggestion_label)
        layout.addWidget(self.table)

        pane = self.detail_pane = DetailPane()
        pane.abstract_view.highlighted.connect(self._on_link_hovered)
        pane.linkRefused.connect(self._on_link_refused)
        pane.starToggled.connect(self.toggle_star)
        pane.readToggled.connect(self.toggle_read)
        pane.titleEdited.connect(self.set_title)
        pane.tagAddRequested.connect(self._on_tag_typed)
        pane.tagRemoveRequested.connect(self._on_chip_removed)
        pane.editingCancelled.connect(self.focus_list)
        pane.highlightRequested.connect(
            lambda start, end, colour: self.add_highlight(pane.paper_id, start, end, colour))
        pane.highlightRemoveRequested.connect(self.remove_highlight)
        pane.highlightCommentRequested.connect(self.prompt_highlight_comment)
        pane.noteSaveRequested.connect(self.save_note)
        pane.metadataEditRequested.connect(self.edit_metadata)
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
        vh.setDefaultSectionSize(t.fontMetrics().height() + 10)
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
        self._snippet_delegate = SnippetDelegate(t)
        t.setItemDelegateForColumn(PaperTableModel.SNIPPET, self._snippet_delegate)
        self._title_delegate = TitleDelegate(t)
        t.setItemDelegateForColumn(PaperTableModel.TITLE, self._title_delegate)
        t.selectionModel().currentRowChanged.connect(self._on_current_row)
        t.userMoved.connect(self._choose_current)
        t.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.model.layoutChanged.connect(self._scroll_to_current)
        self.model.searchSortRequested.connect(self._on_search_sort)

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
        self.unread_label = QLabel()
        self.unread_label.setObjectName("unreadLabel")
        self.unread_label.setTextFormat(Qt.TextFormat.PlainText)
        self.unread_label.setToolTip("Unread papers in the list's scope (U jumps to the next)")
        # An import's files, records and time left ("Storing file 2 of 3 · ...").
        self.import_progress_label = QLabel()
        self.import_progress_label.setObjectName("importProgressLabel")
        self.import_progress_label.setTextFormat(Qt.TextFormat.PlainText)
        # As wide as a long line, so that the status bar does not jump at every batch.
        self.import_progress_label.setMinimumWidth(self.import_progress_label.fontMetrics()
                                                   .horizontalAdvance(_PROGRESS_SAMPLE))
        self.import_progress_label.hide()
        self.import_report_button = QPushButton("Import report")
        self.import_report_button.setObjectName("importReportButton")
        self.import_report_button.setFlat(True)
        self.import_report_button.setToolTip(
            "What each file of the last import gave (File ▸ Last Import Report…)")
        self.import_report_button.clicked.connect(lambda: self.show_import_report())
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

    def _build_menus(self) -> None:
        slots = {f"toggle_tag_{n}": functools.partial(self.toggle_tag_key, n)
                 for n in range(1, 10)}
        slots.update(self.column_slots())
        for mode in ("system", "light", "dark"):
            slots[f"appearance_{mode}"] = functools.partial(self._appearance_chosen, mode)
        self.actions_by_name = build_actions(self, slots)
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
        self._set_checked("autoMarkReadAction", self.settings.auto_mark_read)
        self._set_checked(f"appearance{self.settings.appearance.title()}Action", True)
        self._set_checked("showSidebarAction", True)
        self._set_checked("showReadingPaneAction", True)
        self._setup_list_columns()

    def _set_checked(self, name: str, on: bool) -> None:
        """Check or uncheck a checkable action without running its slot."""
        action = self.actions_by_name[name]
        action.blockSignals(True)
        action.setChecked(on)
        action.blockSignals(False)

    # -- public API --------------------------------------------------------------------
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
        return self._scope

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
            self._choose_current()
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
        if not self.import_runner.start(list(paths)):
            return False
        if syncing:   # the import goes first; the index update resumes when it ends
            self.sync_runner.cancel()
        self._syncing_shown = False
        self._importing_seeds = seeds
        self._set_background_job(True)
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setFormat("Importing…")
        self.progress_bar.show()
        self._show_import_started()
        self.cancel_button.setToolTip("Stop importing (the papers stored so far are kept)")
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()
        self._update_status()
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
        """The status bar's Cancel: stop the running export, import or index update."""
        if self.export_runner.is_running():
            self.cancel_export()
        elif self._checking_shown and self.check_runner.is_running():
            self.check_runner.cancel()
            self.cancel_button.setEnabled(False)
            self.progress_bar.setFormat("Stopping…")
        elif self.import_runner.is_running():
            self.cancel_import()
        elif self._discover_shown and self.discover_runner.is_running():
            self.cancel_terms_build()
        elif self._stage_shown and self.duplicate_finder.is_running():
            self.duplicate_finder.cancel()
            self.cancel_button.setEnabled(False)
            self.progress_bar.setFormat("Stopping…")
        else:
            self.sync_runner.cancel()
            self.cancel_button.setEnabled(False)
            self.progress_bar.setFormat("Stopping…")

    #: An index update of at least this many papers shows its progress (and Cancel).
    SYNC_PROGRESS_MIN = 200

    def _background_progress(self, shown: str, done: int, total: int, minimum: int,
                             tip: str, text: str) -> None:
        """Show a background stage's progress (index update, duplicate check) in the
        status bar's progress bar with Cancel, once it has at least ``minimum`` papers to
        do and unless an import or export owns the bar.

        Args:
            shown: the name of the attribute that says this stage's bar is shown.
            done, total: papers done and to do.
            minimum: the least ``total`` that is worth a bar.
            tip: Cancel's tooltip.
            text: the bar's format (``%v`` done, ``%m`` total).
        """
        if self._shut_down or self.import_runner.is_running() \
                or self.export_runner.is_running():
            return
        if not getattr(self, shown):
            if total < minimum or done >= total:
                return
            setattr(self, shown, True)
            self.cancel_button.setEnabled(True)
            self.cancel_button.setToolTip(tooltip_html(tip))
            self.cancel_button.show()
            self.progress_bar.show()
        if self.cancel_button.isEnabled():
            self.progress_bar.setRange(0, max(total, 1))
            self.progress_bar.setValue(min(done, total))
            # QProgressBar's own %v / %m have no thousands separators: fill them in.
            self.progress_bar.setFormat(text.replace("%v", f"{min(done, total):,}")
                                        .replace("%m", f"{total:,}"))

    def _end_background_progress(self, shown: str) -> None:
        """Hide the bar :meth:`_background_progress` showed (unless an import or export
        uses it now)."""
        if getattr(self, shown) and not self.import_runner.is_running() \
                and not self.export_runner.is_running():
            self.progress_bar.hide()
            self.cancel_button.hide()
            # An index update (a repair) still running shares the bar: show it again.
            if shown != "_syncing_shown" and self._syncing_shown:
                self._syncing_shown = False
                if self.index_status is not None and not self.index_status.complete:
                    self._on_index_status(self.index_status)
        setattr(self, shown, False)

    @Slot(int, int)
    def _on_sync_progress(self, done: int, total: int) -> None:
        """A background index update (not an import's) shows its progress when large
        (while papers wait to be indexed, :meth:`_on_index_status` shows the library's
        counts instead)."""
        if self.index_status is not None and not self.index_status.complete:
            return
        self._background_progress("_syncing_shown", done, total, self.SYNC_PROGRESS_MIN,
                                  "Stop indexing (the rest is indexed later)",
                                  "Indexing for search %v of %m")

    def _end_sync_progress(self) -> None:
        self._end_background_progress("_syncing_shown")

    @Slot(object)
    def _on_index_status(self, status: IndexStatus) -> None:
        """While papers wait to be indexed (an import stored them, or a run before was
        stopped), the status bar's progress bar says "Indexing 42,000 of 100,000":
        papers searchable of papers in the library, with Cancel (the rest is indexed
        with the next change or start). (A search that covered part of the library only
        is run again when the update ends: :meth:`_on_index_synced`.)"""
        self.index_status = status
        if self._shut_down or status.complete or self.import_runner.is_running() \
                or self.export_runner.is_running():
            return
        if not self._syncing_shown:
            self._syncing_shown = True
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
        self._choose_current()

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
        self._flush_search()

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
        self._background_progress("_checking_shown", done, total, 0,
                                  "Stop the check", "Checking the library %v of %m")

    @Slot(object)
    def _on_check_finished(self, report) -> None:
        self._end_background_progress("_checking_shown")
        self.check_report = report.text()
        self.statusBar().showMessage(self.check_report.splitlines()[0], 8000)
        self.check_message = message_box(
            self, QMessageBox.Icon.Information if report.ok else QMessageBox.Icon.Warning,
            "Check Library", self.check_report, modal=False)

    @Slot(str)
    def _on_check_failed(self, message: str) -> None:
        self._end_background_progress("_checking_shown")
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
            self.cancel_auto_mark_read()
        self._set_pane_shown(self.detail_pane, "detail", "showReadingPaneAction", shown)
        if shown and self.detail_pane.paper is not None:
            self._schedule_mark_read(self.detail_pane.paper)

    def _set_pane_shown(self, pane: QWidget, name: str, action: str, shown: bool) -> None:
        if not shown and not pane.isHidden():
            self._remember_splitter()
            if pane.hasFocus() or pane.isAncestorOf(self.focusWidget()):
                self.table.setFocus()
        pane.setHidden(not shown)
        self._set_checked(action, shown)
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
        self._set_checked(f"appearance{mode.title()}Action", True)
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
            self.table.setColumnHidden(PaperTableModel.SNIPPET, self._results is None)
        self.apply_list_columns()   # what the settings say, whatever the header state held
        sort = s.list_sort
        if sort is not None and sort[0] in PaperTableModel._ORDER_KEYS:
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
            self._set_checked(action, shown)

    def _remember_splitter(self) -> None:
        """Store the main splitter's sizes while every pane is shown (a hidden pane has
        size 0, which is no size to come back to)."""
        sizes = self.splitter.sizes()
        if all(sizes) and not self.tag_pane.isHidden() and not self.detail_pane.isHidden():
            self.settings.set_splitter_sizes("main", sizes)

    def save_state(self) -> None:
        """Save the last paper the user chose, geometry, splitter sizes, columns, sort,
        font size and panes to the settings (called when the window closes)."""
        s = self.settings
        try:
            # Only a paper the user chose: a row a search or filter put first must not
            # come back at the next start as if chosen (and be marked read).
            s.set_selected_paper(self.lib.path, self._last_chosen_id)
            s.window_geometry = self.saveGeometry()
            s.header_state = self.table.horizontalHeader().saveState()
            column = self.model.sort_column
            s.list_sort = ((column, self.model.sort_order == Qt.SortOrder.DescendingOrder)
                           if column in PaperTableModel._ORDER_KEYS else None)
            if self._sized:
                self._remember_splitter()
                if all(self.detail_pane.splitter.sizes()):
                    s.set_splitter_sizes("detail", self.detail_pane.splitter.sizes())
            s.sync()
        except RuntimeError:   # the C++ widgets are already gone (interpreter exit)
            pass

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
            self.cancel_auto_mark_read()
        elif self.detail_pane.paper is not None:
            self._schedule_mark_read(self.detail_pane.paper)

    def cancel_auto_mark_read(self) -> None:
        """Forget the pending automatic mark-read of the shown paper."""
        self._read_timer.stop()
        self._read_candidate = None

    def shutdown(self) -> None:
        """Save a pending note, stop the worker threads and (if owned) close the library.
        Safe to call twice; called by :meth:`closeEvent`."""
        if self._shut_down:
            return
        try:
            self.detail_pane.note_editor.flush()
        except RuntimeError:  # the C++ widgets are already gone (interpreter exit)
            pass
        self._shut_down = True
        self._read_timer.stop()
        self.search_runner.shutdown()
        self.saved_counter.shutdown()
        self.import_runner.shutdown()
        self.export_runner.shutdown()
        self.sync_runner.shutdown()
        self.check_runner.cancel()
        self._shutdown_discover()
        self.worker.shutdown()   # waits for the running batch; runs queued edits
        self.lib.auto_sync_index, self.lib.on_index_stale = self._library_hooks
        self.model.clear()
        self.detail_pane.clear_paper()
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
            if self._suggestion:
                self._show_suggestion(self._results)
            self.table.viewport().update()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """Search box keys: Enter/Down go to the list; Ctrl+Enter applies "Did you
        mean"; F1 shows the search syntax; Esc clears, or goes to the list when already
        empty."""
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport() \
                and self._searching_columns:
            self._fit_search_columns()       # the list got wider or narrower
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
                if not self.apply_suggestion():
                    self._flush_search()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Down):
                self._flush_search()
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
    def search_results(self) -> tuple[SearchResults | None, bool]:
        """The results the list shows while searching (``None`` when listing) and
        whether they are complete (a large search lists its best hits first)."""
        return self._results, self._results_complete

    def is_shut_down(self) -> bool:
        """True once :meth:`shutdown` ran (late signals are then ignored)."""
        return self._shut_down

    def use_scope(self, scope: Scope) -> None:
        """Make ``scope`` what the list covers without listing it again (the caller
        runs the search, e.g. a saved search over all papers)."""
        self._scope = scope

    def query_text(self) -> str:
        """The query in the search box, stripped ("" when not searching)."""
        return self.search_box.text().strip()

    def _show_all(self, keep: int | None = None) -> None:
        """List the scope (not searching), keeping paper ``keep`` (default: the current
        one) current if it is listed, else the first row."""
        keep = keep if keep is not None else self.current_paper_id()
        self._results = None
        self._show_suggestion(None)
        self.model.show_all(scope=self._scope)
        self._hide_snippet_column()
        self._restore_selection(keep)
        self._update_status()
        self._order_by_interest()      # worth reading first: reordered off the UI thread

    def _restore_selection(self, paper_id: int | None, fallback_row: int = 0) -> None:
        """After the rows changed: make ``paper_id`` current again, or the row
        ``fallback_row`` (clamped). Placed by the window, not the user: a paper other
        than the one the user chose is not marked read until the user moves to it."""
        row = self.model.row_of(paper_id)
        if row < 0:
            row = min(max(fallback_row, 0), self.model.rowCount() - 1)
        if not self.select_row(row, by_user=False):
            self._clear_detail(self._empty_hint())

    def _clear_detail(self, message: str) -> None:
        self.detail_pane.note_editor.flush()
        self.cancel_auto_mark_read()
        self.detail_pane.clear_paper(message)

    def _flush_search(self) -> None:
        """Run a pending debounced search now (Enter should not wait for the timer)."""
        self.search_runner.flush()

    def request_search(self, immediate: bool = False) -> int:
        """Ask for the search box's query in the current scope and sort order."""
        sort, descending = self.model.search_sort()
        return self.search_runner.request(self.query_text(), scope=self._scope,
                                          immediate=immediate, sort=sort,
                                          descending=descending)

    def _reset_search_sort(self) -> None:
        """A new search starts in relevance order (no sort indicator)."""
        self.model.reset_sort()
        header = self.table.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)
        header.viewport().update()

    @Slot(str)
    def _on_search_text(self, text: str) -> None:
        query = text.strip()
        self._leave_saved_search(query)
        if not query:
            self.search_runner.cancel()
            self._show_suggestion(None)
            if self._results is not None:
                self._show_all()
            return
        if self._results is None:
            self._reset_search_sort()
        self.request_search()

    @Slot(str, bool)
    def _on_search_sort(self, sort: str, descending: bool) -> None:
        """A header click while searching: search again in that order (the worker sorts)."""
        if self.query_text() and not self._shut_down:
            self.request_search(immediate=True)

    @Slot(object)
    def _on_scope_chosen(self, scope: Scope) -> None:
        self._scope = scope
        if self.query_text():
            self.request_search(immediate=True)
        else:
            self._show_all()

    def _show_snippet_column(self) -> None:
        """Show the Snippet column as a search's results arrive (:meth:`_fit_search_columns`);
        it is fitted again whenever the list's width changes while searching."""
        self._searching_columns = True
        self._fit_search_columns()

    def _fit_search_columns(self) -> None:
        """Share the list's width between Title and Snippet while searching: the Title
        gets TITLE_SHARE_SEARCHING of what the other columns leave, at least
        TITLE_MIN_CHARS and at most TITLE_CHARS_SEARCHING average characters, the
        Snippet the rest; when the rest would be under SNIPPET_MIN_CHARS, the Snippet is
        left out and the Title stretches. Both stay resizable by dragging the Title's
        edge (until the width changes again)."""
        header = self.table.horizontalHeader()
        char = self.table.fontMetrics().averageCharWidth()
        others = sum(header.sectionSize(c) for c in range(header.count())
                     if c not in (PaperTableModel.TITLE, PaperTableModel.SNIPPET)
                     and not self.table.isColumnHidden(c))
        free = self.table.viewport().width() - others
        title = int(min(max(free * TITLE_SHARE_SEARCHING, TITLE_MIN_CHARS * char),
                        TITLE_CHARS_SEARCHING * char))
        if free - title < SNIPPET_MIN_CHARS * char:
            header.setSectionResizeMode(PaperTableModel.SNIPPET,
                                        QHeaderView.ResizeMode.Interactive)
            self.table.setColumnHidden(PaperTableModel.SNIPPET, True)
            header.setSectionResizeMode(PaperTableModel.TITLE,
                                        QHeaderView.ResizeMode.Stretch)
            return
        header.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(PaperTableModel.TITLE, max(title, header.minimumSectionSize()))
        self.table.setColumnHidden(PaperTableModel.SNIPPET, False)
        header.setSectionResizeMode(PaperTableModel.SNIPPET, QHeaderView.ResizeMode.Stretch)

    def _hide_snippet_column(self) -> None:
        """Hide the Snippet column when the search is cleared; the Title stretches again
        over the list's width, as before the search."""
        self._searching_columns = False
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(PaperTableModel.SNIPPET,
                                    QHeaderView.ResizeMode.Interactive)
        self.table.setColumnHidden(PaperTableModel.SNIPPET, True)
        header.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Stretch)

    @Slot(int, object, bool)
    def _on_results(self, generation: int, results: SearchResults, complete: bool) -> None:
        if self._shut_down or results.query != self.query_text():
            return
        self._results_complete = complete
        keep = self.current_paper_id()
        same_query = self._results is not None and self._results.query == results.query
        keep_row = self.table.currentIndex().row() if same_query else 0
        self._results = results
        self._show_suggestion(results)
        self.model.show_results(results, scope=self._scope)
        self._interest_on_results(results)
        if not self._searching_columns:
            self._show_snippet_column()
        self._restore_selection(keep, keep_row)
        self._update_status(filters=())   # a search changes no filter's count

    @Slot(int, str)
    def _on_search_failed(self, generation: int, message: str) -> None:
        self.status_label.setText(f"Search failed: {message}")
        self.status_label.setToolTip(tooltip_html(self.status_label.text()))

    def _fetch_snippets(self, query: str, ids: list, deliver) -> None:
        """Cut the snippets of a block of listed hits on the reader thread (the list
        shows "…" in their cells until ``deliver`` runs, in the UI thread)."""
        def done(found) -> None:
            if not self._shut_down:
                deliver(found)

        self.worker.read(lambda lib: lib.search.snippets(query, ids), on_done=done,
                         on_failed=lambda _message: None, label="snippets")

    def _match_terms(self) -> MatchTerms | None:
        """What the shown search matched, for highlighting (``None`` when not searching).
        Computed with ``lib.search.match_terms`` on the search thread."""
        if self._results is None:
            return None
        return self.search_runner.terms_for(self._results.query)

    def _show_suggestion(self, results: SearchResults | None) -> None:
        """Show "Did you mean …" under the search box when ``results`` offer a better
        query; hide it otherwise."""
        suggestion = results.suggestion if results is not None else None
        if not suggestion or suggestion.strip() == results.query.strip():
            self._suggestion = None
            self.suggestion_label.hide()
            self.suggestion_label.clear()
            return
        self._suggestion = suggestion
        self.suggestion_label.setText(
            f'Did you mean <a href="suggestion"><b>{html.escape(suggestion)}</b></a>?'
            f'&nbsp;&nbsp;<span style="color:{muted_colour(self.palette())};">Ctrl+Enter</span>')
        self.suggestion_label.setToolTip(tooltip_html(
            f"Search for {_quoted(suggestion)} instead (click, or Ctrl+Enter in the search "
            "box)"))
        self.suggestion_label.show()

    def suggestion(self) -> str | None:
        """Return the "Did you mean" query on show, or ``None``."""
        return self._suggestion

    @Slot()
    def apply_suggestion(self) -> bool:
        """Search for the "Did you mean" query instead (a click on it, or Ctrl+Enter in
        the search box). Returns False when none is shown."""
        suggestion = self._suggestion
        if not suggestion:
            return False
        self.search_box.setText(suggestion)
        self._flush_search()
        self.statusBar().showMessage(f"Searching for {_quoted(suggestion)} instead", 4000)
        return True

    @Slot(int)
    def _on_index_synced(self, applied: int) -> None:
        """The search index caught up with changes: re-run a visible search if indexed
        text (titles, tags, notes, highlight comments) changed."""
        if self._shut_down or not applied:
            return
        self._count_saved()
        partial = self._results is not None and self._results.partial
        if not self._search_stale and not partial:
            return
        self._search_stale = False
        if self.query_text() and self._results is not None:
            self.request_search(immediate=True)

    def _scope_count(self) -> int | None:
        """The number of papers in the scope, as last read off the UI thread (``None``
        until the first read for this scope arrives; listing, the list's own length)."""
        if self._counts is not None and self._counts[0] == self._scope:
            return self._counts[1]
        return None if self.model.searching else self.model.rowCount()

    def scope_name(self) -> str:
        """What the list covers, for people ("tag “ml”", "Unread", a file name; "" for
        all papers)."""
        saved = self.tag_pane.current_saved()
        if saved is not None and self._results is not None \
                and saved[1].strip() == self._results.query:
            return f"saved search {_quoted(saved[0], 40)}"
        s = self._scope
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

    def _empty_hint(self) -> str:
        if self._results is not None:
            if self._suggestion:
                return (f"No papers match. Did you mean {_quoted(self._suggestion, 40)}? "
                        "(Ctrl+Enter)")
            if self._results.message:
                return f"No papers match your search — {self._results.message}"
            return "No papers match your search"
        if self.import_runner.is_running():
            return "Importing papers…"
        if self._total_papers == 0:
            return "No papers yet — import abstract files with File ▸ Import Files… (Ctrl+O)"
        if self._scope != Scope():
            return "No papers here"
        return PLACEHOLDER

    def _update_status(self, filters: Iterable[str] | None = None) -> None:
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
        self._counts_generation += 1
        generation, scope = self._counts_generation, self._scope
        # A newer request supersedes an older one still on its way: it counts the older
        # one's filters too (a star then a tag: "Starred" and "Untagged").
        if filters is None or self._recount is None:
            self._recount = None
        else:
            self._recount |= set(filters)
        only = None if self._recount is None else tuple(sorted(self._recount))

        def count(lib: Library) -> tuple:
            return (lib.papers.scope_count(scope), lib.papers.scope_count(scope, also="unread"),
                    lib.papers.count(), lib.papers.filter_counts(only))

        self.worker.read(count, on_done=lambda result: self._on_counts(generation, scope,
                                                                       result),
                         label="counts")

    def _on_counts(self, generation: int, scope: Scope, result: tuple) -> None:
        if self._shut_down or generation != self._counts_generation:
            return
        scope_count, unread, total, filters = result
        self._recount = set()
        self._counts = (scope, scope_count, unread)
        self._total_papers = total
        self.tag_pane.set_counts(filters)
        self._render_status()

    def _render_status(self) -> None:
        scope = self._scope_count()
        name = self.scope_name()
        if self._results is not None:
            results = self._results
            n = results.total
            if scope is None:       # the scope's size is still being counted
                text = f"{n} match" if results.total_exact else f"about {n} match"
            elif results.total_exact:
                text = f"{n} of {scope} match"
            else:   # an estimate (the first page of a large result); never above the scope
                text = f"about {min(n, scope) if scope else n} of {scope} match"
            if not self._results_complete:
                text += f" — listing the best {len(results.hits)}, loading the rest…"
            if results.partial:     # the index is still catching up with an import
                text += f" — {results.coverage_note()}"
            if results.message:
                text += f" — {results.message}"
            elif n == 0:
                text += f" — nothing contains {_quoted(results.query)}"
                if not self._suggestion:
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
            text += f"  ·  {selected} selected"
        self.status_label.setText(text)
        self.status_label.setToolTip(tooltip_html(text))
        counts = self._counts if self._counts and self._counts[0] == self._scope else None
        self.unread_label.setText(f"{counts[2]} of {counts[1]} unread"
                                  if counts and counts[1] else "")

    # -- the current paper -------------------------------------------------------------
    @Slot(QModelIndex, QModelIndex)
    def _on_current_row(self, current: QModelIndex, previous: QModelIndex) -> None:
        pid = self.model.paper_id(current.row()) if current.isValid() else None
        if pid != self._chosen_id:
            # Not (yet) the user's choice: the user's moves say so right after this
            # (userMoved, select_row), a row placed by the window stays unchosen.
            self._chosen_id = None
        terms = self._match_terms()
        if pid is not None and pid == self.detail_pane.paper_id:
            self.detail_pane.set_match_terms(terms)  # same paper (list refreshed): keep note
            return
        if pid is None:
            self._clear_detail(self._empty_hint())
            return
        self.detail_pane.note_editor.flush()
        try:
            paper = self.lib.papers.get(pid)
        except UnknownPaper:
            self._clear_detail("This paper is no longer in the library")
            return
        except LibraryError as exc:
            self._clear_detail(str(exc))
            return
        self.detail_pane.show_paper(paper, terms)
        self._schedule_mark_read(paper)

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, selected, deselected) -> None:
        n = len(self.table.selectionModel().selectedRows())
        self.detail_pane.set_selection_size(n)
        if n > 1 or self.status_label.text().endswith(" selected"):
            self._update_status(filters=())
        if n > 1:
            self.statusBar().showMessage(
                f"{n} papers selected — T, 1-9, R and S act on all of them", 4000)

    @Slot()
    def _choose_current(self) -> None:
        """The user moved to the current row, or into the list: its paper counts as shown
        from now on, and is marked read after the delay (if it is the one on show)."""
        pid = self.current_paper_id()
        if pid is None or pid == self._chosen_id or self._shut_down:
            return
        self._chosen_id = self._last_chosen_id = pid
        paper = self.detail_pane.paper
        if paper is not None and paper.id == pid:
            self._schedule_mark_read(paper)

    def shown_by_user(self) -> bool:
        """True when the paper on show is the user's choice: the user moved to it in the
        list (keys, a click, j/k/u), moved into the list while it was current, or it is
        the selection restored at start. Only such a paper is marked read
        automatically; one a search, a filter change or a list refresh put first is not."""
        pid = self.detail_pane.paper_id
        return pid is not None and pid == self._chosen_id == self.current_paper_id()

    def _schedule_mark_read(self, paper) -> None:
        self.cancel_auto_mark_read()
        if self.settings.auto_mark_read and not paper.read \
                and not self.detail_pane.isHidden() and paper.id == self._chosen_id:
            self._read_candidate = paper.id
            self._read_timer.start(self.settings.mark_read_delay_ms)

    @Slot()
    def _auto_mark_read(self) -> None:
        """Mark the shown paper read once it has been shown long enough, if the user
        chose it (:meth:`shown_by_user`). Not an undo step (R toggles it back)."""
        pid, self._read_candidate = self._read_candidate, None
        if self._shut_down or pid is None or pid != self.detail_pane.paper_id \
                or not self.shown_by_user() or self.detail_pane.isHidden():
            return
        self.submit_edit(lambda lib: lib.papers.set_read([pid], True, undoable=False), quiet=True)

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
            return _Step(changes, lib.undo_label)

        def done(step: _Step) -> None:
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
            self.statusBar().showMessage(f"{step.label}  —  Ctrl+Z to undo", MESSAGE_MS)

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
            return _Step(lib.redo() if redo else lib.undo(), label)

        def done(step: _Step) -> None:
            self._edits_pending -= 1
            self._update_undo_actions()
            self.statusBar().showMessage(f"{'Redone' if redo else 'Undone'}: {step.label}",
                                         MESSAGE_MS)

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
        """Refresh what a change touched: list rows, counts, tags, the shown paper."""
        if self._shut_down:
            return
        self._update_undo_actions()
        if not change:
            return
        if change.duplicates:
            self._duplicates_changed(change)
        self._search_stale = self._search_stale or change.search
        if change.sources:   # papers deleted or put back, files removed or restored
            self._relist_after_removal(change.papers)
        else:
            self.model.refresh_papers(change.papers)
        if change.tags:   # the tag list is read on the reader thread
            self.worker.read(lambda lib: lib.tags.all(), on_done=self._show_tags, label="tags")
        if change.saved_searches:
            self._refresh_saved()
        # counts (and the filters' counts the change can have moved) off the UI thread
        self._update_status(None if change.sources else _filters_touched(change))
        pid = self.detail_pane.paper_id
        if pid is None or pid not in change.papers:
            return
        if change.notes and not change.replay:
            return   # the editor already shows what was saved
        self._show_again(pid, reload_note=bool(change.notes))

    def _show_again(self, pid: int, reload_note: bool = False) -> None:
        """Read paper ``pid`` (the one the detail pane shows) off the UI thread and show
        it again, in place; it is cleared with a message if it left the library."""
        def show(paper) -> None:   # UI thread; skipped if another paper is shown by now
            if not self._shut_down and self.detail_pane.paper_id == pid:
                self.detail_pane.show_paper(paper, self._match_terms(),
                                            reload_note=reload_note)

        def gone(_message: str) -> None:
            if not self._shut_down and self.detail_pane.paper_id == pid:
                self._clear_detail("This paper is no longer in the library")

        self.worker.read(lambda lib: lib.papers.get(pid), on_done=show, on_failed=gone,
                         label="paper")

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
        if self._results is None:
            self.model.show_all(scope=self._scope)
        else:
            self.model.drop_missing(paper_ids)
        self._restore_selection(keep, row)

    def _refresh_tags(self) -> None:
        self._show_tags(self.lib.tags.all())

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
        self.update_tag_dialogs(tags)

    @Slot()
    def _scroll_to_current(self) -> None:
        if self._shut_down:
            return
        index = self.table.currentIndex()
        if index.isValid():
            self.table.scrollTo(index)

    @Slot(object)
    def _on_link_hovered(self, url) -> None:
        text = url.toString() if hasattr(url, "toString") else str(url)
        if text:
            self.statusBar().showMessage(text, 4000)
        else:
            self.statusBar().clearMessage()

    @Slot(QUrl)
    def _on_link_refused(self, url: QUrl) -> None:
        problem = link_problem(url) or "only http and https links open"
        self.statusBar().showMessage(f"Not opened: {url.toString()[:80]} ({problem})", 8000)

    # -- importing ---------------------------------------------------------------------
    def _refresh_sources(self) -> None:
        """Re-list the imported files and the filter counts (read off the UI thread)."""
        def read(lib: Library) -> tuple:
            return lib.papers.count(), lib.removal.sources(), lib.papers.filter_counts()

        def show(result: tuple) -> None:
            if not self._shut_down:
                self._total_papers = result[0]
                self.tag_pane.refresh(*result)

        self.worker.read(read, on_done=show, label="sources")

    #: While a long import stores papers, the list shows them again at most this often
    #: (seconds), so that they can be browsed before the import ends.
    LIST_REFRESH_S = 3.0

    @Slot(str, int, int)
    def _on_import_progress(self, stage: str, done: int, total: int) -> None:
        if stage == "import" and done and not self.query_text() and not self._shut_down:
            now = time.monotonic()
            if now - self._list_refreshed >= self.LIST_REFRESH_S:
                self._list_refreshed = now
                self._show_all()      # the papers committed so far, in the list
        if not self.cancel_button.isEnabled() or self.import_progress_label.text():
            return  # cancelling, or the progress line shows it (_on_import_stepped)
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(min(done, total))
        verb = "Indexing" if stage == "index" else "Importing"
        self.progress_bar.setFormat(f"{verb} %v of %m")

    def _end_import(self) -> None:
        self.progress_bar.hide()
        self.cancel_button.hide()
        self._set_background_job(False)
        self._refresh_sources()
        self._count_saved()
        if self.query_text():
            self.request_search(immediate=True)
            self._update_status()
        else:
            self._show_all()

    @Slot(object)
    def _on_import_finished(self, report: ImportReport) -> None:
        if self._shut_down:
            return
        seeds, self._importing_seeds = self._importing_seeds, False
        self._end_import()
        shown = self.detail_pane.paper_id
        if shown is not None and shown in report.changes.papers:   # enriched meanwhile
            self._show_again(shown)
        self._show_import_ended(report, seeds)
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
                message += f" ({report.duplicates} already in the library)"
            if report.without_abstract:
                message += f"; {report.without_abstract} without abstract"
        self.statusBar().showMessage(message, 6000)
        if report.rejected:
            self.import_message = self.import_report_dialog
        # The papers are listed (stored only); the index catches up now, on the writer
        # thread, with "Indexing N of M" in the status bar (after a cancel: with the
        # next change or start, as the message says).
        if not report.cancelled:
            self.sync_runner.mark_stale()
            self.sync_runner.flush()
        # The near-duplicate stage: after the papers are stored and the list
        # refreshed, as its own background job (the next import waits for it).
        self.find_duplicates(report)
        self._start_pending_import()

    @Slot(str)
    def _on_import_failed(self, message: str) -> None:
        if self._shut_down:
            return
        self._importing_seeds = False
        self._end_import()
        self.sync_runner.mark_stale()     # the batches committed before the error
        self._show_import_ended(None, False)
        self._start_pending_import()
        self.import_message = message_box(
            self, QMessageBox.Icon.Critical, "Import failed",
            f"The import stopped because of an error:\n\n{message}", modal=False)


class _Step:
    """An edit's or undo's outcome from the writer thread: its ``changes`` (the worker
    emits ``changed`` with them) and the undo label read right after it ran there."""

    __slots__ = ("changes", "label")

    def __init__(self, changes: Changes, label: str | None):
        self.changes = changes
        self.label = label


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
