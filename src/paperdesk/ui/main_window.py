"""The main window: scope pane | search box + paper list | detail pane.

The window owns the wiring between the panes, the search and import runners and the
status bar. It reads from the library in the UI thread only for cheap calls (counts,
id lists, row summaries, one paper); searches and imports run on worker threads
(:mod:`paperdesk.ui.workers`).
"""

from __future__ import annotations

import atexit
import weakref
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QFileDialog, QFrame, QHeaderView, QLabel,
                               QLineEdit, QMainWindow, QMessageBox, QProgressBar,
                               QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget)

from ..core.library import Library
from ..core.models import ImportReport, LibraryError, SearchResults, UnknownPaper
from .detail_pane import PLACEHOLDER, DetailPane
from .dialogs import ShortcutsDialog, message_box, show_about, show_import_problems
from .formatting import plural
from .paper_model import PaperTableModel
from .snippet_delegate import SnippetDelegate
from .tag_pane import TagPane
from .workers import ImportRunner, SearchRunner

__all__ = ["MainWindow", "SEARCH_PLACEHOLDER"]

SEARCH_PLACEHOLDER = "Search title and abstract…  (/)"
#: Width of the scope pane and share of the detail pane at first show.
TAG_PANE_WIDTH = 210
DETAIL_SHARE = 0.40


class MainWindow(QMainWindow):
    """The paperdesk window (title ``"paperdesk"``).

    Child widgets (by objectName): ``tagPane`` (:class:`TagPane`), ``searchBox``
    (QLineEdit), ``paperTable`` (QTableView over :class:`PaperTableModel`), ``detailPane``
    (:class:`DetailPane`), ``statusLabel`` (QLabel in the status bar).

    Args:
        library: an open library.
        owns_library: close the library in :meth:`shutdown` (when the window closes).
        parent: Qt parent.
    """

    def __init__(self, library: Library, owns_library: bool = True,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.lib = library
        self._owns_library = owns_library
        self._results: SearchResults | None = None
        self._results_complete = True
        self._source_id: int | None = None
        self._shut_down = False
        self._importing_seeds = False
        self._sized = False
        self.import_message: QMessageBox | None = None  #: last "not imported" message
        self._shortcuts_dialog: ShortcutsDialog | None = None

        self.setWindowTitle("paperdesk")
        self.resize(1200, 760)
        self._build_panes()
        self._build_status_bar()
        self._build_menus()

        self.search_runner = SearchRunner(library, parent=self)
        self.search_runner.resultsReady.connect(self._on_results)
        self.search_runner.searchFailed.connect(self._on_search_failed)
        self.import_runner = ImportRunner(library, parent=self)
        self.import_runner.progress.connect(self._on_import_progress)
        self.import_runner.finished.connect(self._on_import_finished)
        self.import_runner.failed.connect(self._on_import_failed)

        self._refresh_sources()
        self._show_all()
        # If a script exits without closing the window, still stop the threads first
        # (Qt aborts the process when a running QThread is destroyed).
        atexit.register(_shutdown_at_exit, weakref.ref(self))

    # -- construction ------------------------------------------------------------------
    def _build_panes(self) -> None:
        self.tag_pane = TagPane()
        self.tag_pane.sourceChosen.connect(self._on_source_chosen)

        self.search_box = QLineEdit()
        self.search_box.setObjectName("searchBox")
        self.search_box.setPlaceholderText(SEARCH_PLACEHOLDER)
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setToolTip("Words, \"a phrase\", prefix*, AND / OR / NOT, title:word")
        self.search_box.textChanged.connect(self._on_search_text)
        self.search_box.installEventFilter(self)

        self.model = PaperTableModel(self.lib, self)
        self.table = QTableView()
        self.table.setObjectName("paperTable")
        self.table.setModel(self.model)
        self._setup_table()

        middle = QWidget()
        layout = QVBoxLayout(middle)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(6)
        layout.addWidget(self.search_box)
        layout.addWidget(self.table)

        self.detail_pane = DetailPane()
        self.detail_pane.highlighted.connect(self._on_link_hovered)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tag_pane)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(self.detail_pane)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setCollapsible(1, False)
        self.setCentralWidget(self.splitter)

    def _setup_table(self) -> None:
        t = self.table
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
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
        hh.setSectionResizeMode(PaperTableModel.TITLE, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(PaperTableModel.ADDED, QHeaderView.ResizeMode.Fixed)
        hh.setSectionResizeMode(PaperTableModel.SNIPPET, QHeaderView.ResizeMode.Stretch)
        date_width = t.fontMetrics().horizontalAdvance("8888-88-88")
        hh.resizeSection(PaperTableModel.ADDED, date_width + 28)
        hh.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        hh.setSortIndicatorShown(True)
        hh.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        t.setSortingEnabled(True)  # clicking a header calls model.sort (SQLite sorts)
        t.setColumnHidden(PaperTableModel.SNIPPET, True)
        self._snippet_delegate = SnippetDelegate(t)
        t.setItemDelegateForColumn(PaperTableModel.SNIPPET, self._snippet_delegate)
        t.selectionModel().currentRowChanged.connect(self._on_current_row)
        self.model.layoutChanged.connect(self._scroll_to_current)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_label = QLabel()
        self.status_label.setObjectName("statusLabel")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        bar.addWidget(self.status_label, 1)
        self.progress_bar = QProgressBar()
        self.progress_bar.setMaximumWidth(240)
        self.progress_bar.setTextVisible(True)
        self.progress_bar.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop importing (the file being read is left out)")
        self.cancel_button.clicked.connect(self.cancel_import)
        self.cancel_button.hide()
        bar.addPermanentWidget(self.progress_bar)
        bar.addPermanentWidget(self.cancel_button)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.import_files_action = QAction("&Import Files…", self)
        self.import_files_action.setShortcut(QKeySequence.StandardKey.Open)
        self.import_files_action.triggered.connect(self.choose_files_to_import)
        self.import_folder_action = QAction("Import &Folder…", self)
        self.import_folder_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        self.import_folder_action.triggered.connect(self.choose_folder_to_import)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(self.import_files_action)
        file_menu.addAction(self.import_folder_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)

        edit_menu = bar.addMenu("&Edit")
        self.find_action = QAction("&Search Papers", self)
        self.find_action.setShortcuts([QKeySequence("/"), QKeySequence.StandardKey.Find])
        self.find_action.triggered.connect(self.focus_search)
        edit_menu.addAction(self.find_action)

        help_menu = bar.addMenu("&Help")
        shortcuts_action = QAction("&Keyboard Shortcuts", self)
        shortcuts_action.setShortcut(QKeySequence("F1"))
        shortcuts_action.triggered.connect(self.show_shortcuts)
        about_action = QAction("&About paperdesk", self)
        about_action.setMenuRole(QAction.MenuRole.AboutRole)
        about_action.triggered.connect(lambda: show_about(self))
        help_menu.addAction(shortcuts_action)
        help_menu.addAction(about_action)

    # -- public API --------------------------------------------------------------------
    def status_text(self) -> str:
        """Return the status bar's summary, e.g. ``"225 papers"`` or ``"3 of 225 match"``."""
        return self.status_label.text()

    def current_paper_id(self) -> int | None:
        """Return the id of the paper in the current row, or ``None``."""
        index = self.table.currentIndex()
        return self.model.paper_id(index.row()) if index.isValid() else None

    def select_row(self, row: int) -> bool:
        """Select ``row`` of the list (which shows it in the detail pane).

        Args:
            row: 0-based row.
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
        return True

    def is_busy(self) -> bool:
        """Return True while an import runs or a search is pending."""
        return self.import_runner.is_running() or self.search_runner.is_busy()

    def start_import(self, paths: Iterable[str | Path], seeds: bool = False) -> bool:
        """Import files/folders in the background, with progress in the status bar.

        Args:
            paths: files and/or folders.
            seeds: these are the bundled sample files (changes the wording only).
        Returns:
            False if an import is already running.
        """
        if not self.import_runner.start(list(paths)):
            return False
        self._importing_seeds = seeds
        self.import_files_action.setEnabled(False)
        self.import_folder_action.setEnabled(False)
        self.progress_bar.setRange(0, 0)
        self.progress_bar.setFormat("Importing…")
        self.progress_bar.show()
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

    @Slot()
    def choose_files_to_import(self) -> None:
        """Ask for abstract files with a file dialog and import them."""
        files, _filter = QFileDialog.getOpenFileNames(
            self, "Import abstract files", str(Path.home()),
            "Abstract files (*.txt);;All files (*)")
        if files:
            self.start_import(files)

    @Slot()
    def choose_folder_to_import(self) -> None:
        """Ask for a folder and import every ``*.txt`` file in it (recursively)."""
        folder = QFileDialog.getExistingDirectory(self, "Import a folder of abstract files",
                                                  str(Path.home()))
        if folder:
            self.start_import([folder])

    @Slot()
    def focus_search(self) -> None:
        """Put the keyboard focus in the search box with its text selected."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    @Slot()
    def focus_list(self) -> None:
        """Move the keyboard focus to the list, selecting the first row if none is."""
        if not self.table.currentIndex().isValid():
            self.select_row(0)
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    @Slot()
    def show_shortcuts(self) -> None:
        """Show the (non-modal) keyboard shortcuts table."""
        if self._shortcuts_dialog is None:
            self._shortcuts_dialog = ShortcutsDialog(self)
        self._shortcuts_dialog.show()
        self._shortcuts_dialog.raise_()

    def shutdown(self) -> None:
        """Stop the worker threads and (if owned) close the library. Safe to call twice;
        called by :meth:`closeEvent`."""
        if self._shut_down:
            return
        self._shut_down = True
        self.search_runner.shutdown()
        self.import_runner.shutdown()
        self.model.clear()
        self.detail_pane.clear_paper()
        if self._owns_library:
            self.lib.close()

    # -- Qt event handlers -------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt)
        """Stop threads and close the library before the window goes away."""
        self.shutdown()
        super().closeEvent(event)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Size the panes once, at the first show: scope ~210 px, detail ~40 %."""
        super().showEvent(event)
        if not self._sized:
            self._sized = True
            width = max(self.splitter.width(), self.width())
            detail = int(width * DETAIL_SHARE)
            self.splitter.setSizes([TAG_PANE_WIDTH, width - TAG_PANE_WIDTH - detail, detail])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """Search box keys: Enter/Down go to the list; Esc clears, or goes to the list
        when already empty."""
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress:
            key = event.key()
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
    def _query(self) -> str:
        return self.search_box.text().strip()

    def _show_all(self) -> None:
        keep = self.current_paper_id()
        self._results = None
        self.model.show_all(self._source_id)
        self.table.setColumnHidden(PaperTableModel.SNIPPET, True)
        self._restore_selection(keep)
        self._update_status()

    def _restore_selection(self, paper_id: int | None) -> None:
        row = self.model.row_of(paper_id)
        if row < 0:
            row = 0
        if not self.select_row(row):
            self.detail_pane.clear_paper(self._empty_hint())

    def _flush_search(self) -> None:
        """Run a pending debounced search now (Enter should not wait for the timer)."""
        self.search_runner.flush()

    @Slot(str)
    def _on_search_text(self, text: str) -> None:
        query = text.strip()
        if not query:
            self.search_runner.cancel()
            if self._results is not None:
                self._show_all()
            return
        self.search_runner.request(query, self._source_id)

    @Slot(object)
    def _on_source_chosen(self, source_id: int | None) -> None:
        self._source_id = source_id
        if self._query():
            self.search_runner.request(self._query(), source_id, immediate=True)
        else:
            self._show_all()

    @Slot(int, object, bool)
    def _on_results(self, generation: int, results: SearchResults, complete: bool) -> None:
        if self._shut_down or results.query != self._query():
            return
        self._results_complete = complete
        keep = self.current_paper_id()
        if self._results is None:  # a new search starts in relevance order
            self.model.reset_sort()
            header = self.table.horizontalHeader()
            header.blockSignals(True)
            header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
            header.blockSignals(False)
            header.viewport().update()
        self._results = results
        self.model.show_hits(results.hits, self._source_id)
        self.table.setColumnHidden(PaperTableModel.SNIPPET, False)
        self._restore_selection(keep)
        self._update_status()

    @Slot(int, str)
    def _on_search_failed(self, generation: int, message: str) -> None:
        self.status_label.setText(f"Search failed: {message}")

    def _scope_count(self) -> int:
        return self.lib.count(self._source_id)

    def _scope_name(self) -> str:
        if self._source_id is None:
            return ""
        for sid, label, _count in self.tag_pane.entries():
            if sid == self._source_id:
                return label.rsplit(" (", 1)[0]
        return ""

    def _empty_hint(self) -> str:
        if self._results is not None:
            return "No papers match your search"
        if self.import_runner.is_running():
            return "Importing papers…"
        if self.lib.count() == 0:
            return "No papers yet — import abstract files with File ▸ Import Files… (Ctrl+O)"
        return PLACEHOLDER

    def _update_status(self) -> None:
        if self._shut_down:
            return
        scope = self._scope_count()
        name = self._scope_name()
        if self._results is not None:
            n = self._results.total
            text = f"{n} of {scope} match"
            if not self._results_complete:
                text += f" — listing the best {len(self._results.hits)}, loading the rest…"
            if n == 0:
                text += (f" — nothing contains “{self._results.query}”. "
                         "Try fewer or shorter words, or a prefix such as optim*")
        elif scope == 0 and self.import_runner.is_running():
            text = "Importing sample papers…" if self._importing_seeds else "Importing…"
        elif scope == 0 and self.lib.count() == 0:
            text = "No papers yet"
        else:
            text = plural(scope, "paper")
        if name:
            text += f"  ·  {name}"
        self.status_label.setText(text)

    # -- the current paper -------------------------------------------------------------
    @Slot(QModelIndex, QModelIndex)
    def _on_current_row(self, current: QModelIndex, previous: QModelIndex) -> None:
        pid = self.model.paper_id(current.row()) if current.isValid() else None
        if pid is None:
            self.detail_pane.clear_paper(self._empty_hint())
            return
        try:
            paper = self.lib.get(pid)
        except UnknownPaper:
            self.detail_pane.clear_paper("This paper is no longer in the library")
            return
        except LibraryError as exc:
            self.detail_pane.clear_paper(str(exc))
            return
        self.detail_pane.show_paper(paper, self._results.query if self._results else None)

    @Slot()
    def _scroll_to_current(self) -> None:
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

    # -- importing ---------------------------------------------------------------------
    def _refresh_sources(self) -> None:
        self.tag_pane.refresh(self.lib.count(), self.lib.sources())

    @Slot(str, int, int)
    def _on_import_progress(self, stage: str, done: int, total: int) -> None:
        if not self.cancel_button.isEnabled():
            return  # cancelling
        self.progress_bar.setRange(0, max(total, 1))
        self.progress_bar.setValue(min(done, total))
        verb = "Indexing" if stage == "index" else "Importing"
        self.progress_bar.setFormat(f"{verb} %v of %m")

    def _end_import(self) -> None:
        self.progress_bar.hide()
        self.cancel_button.hide()
        self.import_files_action.setEnabled(True)
        self.import_folder_action.setEnabled(True)
        self._refresh_sources()
        if self._query():
            self.search_runner.request(self._query(), self._source_id, immediate=True)
            self._update_status()
        else:
            self._show_all()

    @Slot(object)
    def _on_import_finished(self, report: ImportReport) -> None:
        if self._shut_down:
            return
        seeds, self._importing_seeds = self._importing_seeds, False
        self._end_import()
        if report.cancelled:
            message = f"Import cancelled — {plural(report.added, 'new paper')} kept"
        elif seeds:
            message = f"Imported {plural(report.added, 'sample paper')}"
        else:
            message = f"Imported {plural(report.added, 'new paper')}"
            if report.duplicates:
                message += f" ({report.duplicates} already in the library)"
        self.statusBar().showMessage(message, 6000)
        if report.rejected:
            self.import_message = show_import_problems(self, report.rejected)

    @Slot(str)
    def _on_import_failed(self, message: str) -> None:
        if self._shut_down:
            return
        self._importing_seeds = False
        self._end_import()
        self.import_message = message_box(
            self, QMessageBox.Icon.Critical, "Import failed",
            f"The import stopped because of an error:\n\n{message}", modal=False)


def _shutdown_at_exit(ref: weakref.ref) -> None:
    window = ref()
    if window is not None:
        try:
            window.shutdown()
        except RuntimeError:  # the C++ window is already gone
            pass
