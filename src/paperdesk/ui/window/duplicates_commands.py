"""The window's near-duplicate commands (:class:`DuplicatesCommands`, the window's
``duplicates``): the background stage after imports and at start-up, the status bar's "N
possible duplicates" button, the Duplicates view (View ▸ Duplicates…, Ctrl+D) and its
merges and dismissals.

The stage (:meth:`lib.duplicates.find`) runs as a bulk job on the window's one
writer thread, after the import that stored the papers has finished and the list was
refreshed, so the list never waits for it; edits made meanwhile run between its batches.
An import started while it runs goes first: the stage stops after its batch and looks at
the rest once that import has ended (:meth:`DuplicatesCommands.give_way_to_import`).
Merges and "not duplicates" are ordinary edits (:meth:`MainWindow.submit_edit`), undone
with Ctrl+Z.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPushButton

from paperdesk.core.changes import Changes
from paperdesk.core.library import Library
from paperdesk.core.models import ImportReport
from paperdesk.ui.style.formatting import plural
from paperdesk.ui.window.duplicates_view import DuplicatesDialog
from paperdesk.ui.window.import_report import summary_text

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["DuplicatesCommands", "DuplicateFinder", "STAGE_PROGRESS_MIN"]

#: The stage shows its progress (and Cancel) when it has at least this many papers to
#: look at (it looks at a few thousand a second).
STAGE_PROGRESS_MIN = 2000


class DuplicateFinder(QObject):
    """Runs the near-duplicate stage as a bulk job on the window's writer thread.

    Signals (UI thread):
        progress(int, int): papers looked at, of how many.
        finished(int): pairs newly flagged.
        failed(str): a one-line message.
    """

    progress = Signal(int, int)
    finished = Signal(int)
    failed = Signal(str)

    def __init__(self, worker, parent: QObject | None = None):
        super().__init__(parent)
        self._worker = worker
        self._job = None

    def is_running(self) -> bool:
        """True while the stage is queued or running (until its result is delivered)."""
        return self._job is not None

    def start(self) -> bool:
        """Queue the stage (for every paper not looked at yet). Returns False when it is
        already queued or the worker has shut down."""
        if self._job is not None:
            return False

        def run(lib: Library, job) -> int:   # writer thread
            return lib.duplicates.find(
                progress=lambda _stage, done, total: self.progress.emit(done, total),
                cancel=job.cancelled, between_batches=job.between_batches,
                hurry=job.edits_waiting)

        self._job = self._worker.write(run, self._done, self._failed, bulk=True,
                                       label="near-duplicates")
        return self._job is not None

    def cancel(self) -> None:
        """Stop after the current batch (the rest is looked at next time)."""
        if self._job is not None:
            self._job.cancel()

    def _done(self, flagged: int) -> None:
        self._job = None
        self.finished.emit(flagged)

    def _failed(self, message: str) -> None:
        self._job = None
        self.failed.emit(message)


class DuplicatesCommands:
    """Near-duplicate commands of the window.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``lib``, ``worker``, ``submit_edit``, ``submit_undo``, ``statusBar``,
            ``background_progress``, ``show_error`` and ``imports`` are used.

    Attributes:
        duplicates_dialog: the Duplicates view once opened, else ``None``.
        duplicate_finder: the background stage (after :meth:`setup_duplicates`).
        duplicates_button: the status bar's "N possible duplicates" button (same).
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.duplicates_dialog: DuplicatesDialog | None = None
        self._stage_report: ImportReport | None = None
        #: the stage was stopped for an import (:meth:`give_way_to_import`)
        self._resume_after_import = False

    def setup_duplicates(self) -> None:
        """Create the finder and the status bar's button; look at any papers not looked
        at yet (a library from before, papers restored by undo). Called once the
        window's worker and status bar exist."""
        self.duplicate_finder = DuplicateFinder(self._window.worker, self._window)
        self.duplicate_finder.progress.connect(self._on_stage_progress)
        self.duplicate_finder.finished.connect(self._on_stage_finished)
        self.duplicate_finder.failed.connect(self._on_stage_failed)
        button = self.duplicates_button = QPushButton()
        button.setObjectName("duplicatesButton")
        button.setFlat(True)
        button.setToolTip("Compare possible near-duplicate papers side by side (Ctrl+D)")
        button.clicked.connect(self.show_duplicates)
        button.hide()
        # before "unread": the bar's items are its two normal widgets (the counts and an
        # edit's message), then the permanent ones (an index among those two would
        # append it at the far right)
        self._window.statusBar().insertPermanentWidget(2, button)
        if not self._window.lib.read_only:
            self.find_duplicates()
        else:
            self.refresh_duplicate_count()

    # -- the stage -------------------------------------------------------------------
    def find_duplicates(self, report: ImportReport | None = None) -> bool:
        """Run the near-duplicate stage in the background.

        Args:
            report: the import it follows (its ``near_duplicates`` is set, and the
                status bar says how many pairs were flagged).
        Returns:
            False when it was already queued (it will also look at these papers).
        """
        if report is not None:
            self._stage_report = report
        self._resume_after_import = False
        return self.duplicate_finder.start()

    def give_way_to_import(self) -> None:
        """An import was just queued on the writer thread: stop the stage if it is
        queued or running, after the batch it is looking at (what it looked at is
        committed); the import's end runs it again for the rest
        (:meth:`find_duplicates`). Both are bulk jobs on the one writer thread, so an
        import otherwise waited for the whole stage: opened on a library of 1.25
        million papers never looked at, the window's first import had not begun after
        eight minutes."""
        self._resume_after_import = self.duplicate_finder.is_running()
        if self._resume_after_import:
            self.duplicate_finder.cancel()

    def after_import_failed(self) -> None:
        """An import ended without a report: look at the rest of the papers a stage
        stopped for it had not reached (:meth:`give_way_to_import`)."""
        if self._resume_after_import:
            self._resume_after_import = False
            self.find_duplicates()

    def _on_stage_progress(self, done: int, total: int) -> None:
        self._window.background_progress("duplicates", done, total, STAGE_PROGRESS_MIN,
                                         "Stop looking for duplicates (the rest is looked at "
                                         "later)", "Looking for duplicates %v of %m")

    def _end_stage_progress(self) -> None:
        self._window.end_background_progress("duplicates")

    def _on_stage_finished(self, flagged: int) -> None:
        if self._window.is_shut_down():
            return
        self._end_stage_progress()
        report, self._stage_report = self._stage_report, None
        if report is not None:
            report.near_duplicates = flagged
            dialog = self._window.imports.import_report_dialog
            if flagged and dialog is not None and dialog.report is report:
                dialog.summary.setText(summary_text(report))   # the report, if open
        if flagged:
            self._window.statusBar().showMessage(
                f"{plural(flagged, 'possible duplicate pair')} found — View ▸ Duplicates… "
                "(Ctrl+D)", 8000)
        self.refresh_duplicate_count()
        if self.duplicates_dialog is not None and flagged:
            self.duplicates_dialog.reload()

    def _on_stage_failed(self, message: str) -> None:
        if self._window.is_shut_down():
            return
        self._end_stage_progress()
        self._stage_report = None
        self._window.show_error(f"Duplicates not looked for: {message}")

    # -- the count -------------------------------------------------------------------
    def refresh_duplicate_count(self) -> None:
        """Read the number of open pairs (reader thread) and show or hide the button."""
        self._window.worker.read(lambda lib: lib.duplicates.count(),
                                 on_done=self._show_duplicate_count, label="duplicate count")

    def _show_duplicate_count(self, n: int) -> None:
        if self._window.is_shut_down():
            return
        self.duplicates_button.setText(plural(n, "possible duplicate"))
        self.duplicates_button.setVisible(n > 0)

    def duplicate_count_text(self) -> str:
        """The status bar button's text ("3 possible duplicates"; "" while hidden)."""
        b = self.duplicates_button
        return b.text() if not b.isHidden() else ""

    # -- the view --------------------------------------------------------------------
    def show_duplicates(self) -> DuplicatesDialog:
        """Open (or bring forward) the Duplicates view (View ▸ Duplicates…, Ctrl+D)."""
        dialog = self.duplicates_dialog
        if dialog is None:
            dialog = self.duplicates_dialog = DuplicatesDialog(self._window.worker, self._window)
            dialog.mergeRequested.connect(self.merge_papers)
            dialog.dismissRequested.connect(self.dismiss_duplicate)
            dialog.undoRequested.connect(lambda redo: self._window.submit_undo(redo=redo))
        dialog.reload()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        dialog.pair_list.setFocus()
        return dialog

    def merge_papers(self, keep: int, other: int) -> bool:
        """Merge paper ``other`` into ``keep`` (tags, note, highlights, metadata; then
        ``other`` goes), as one undoable edit; the status bar then says what was
        combined (and how many highlights could not be placed on the kept abstract)."""
        plans = []

        def merge(lib: Library) -> Changes:   # writer thread
            plans.append(lib.duplicates.merge_preview(keep, other))
            return lib.duplicates.merge(keep, other)

        def done(changes: Changes) -> None:
            if plans and changes:
                self._window.statusBar().showMessage(
                    f"Merged paper {other} into {keep}: {plans[0].summary()}  —  Ctrl+Z "
                    "to undo", 8000)

        return self._window.submit_edit(merge, on_done=done)

    def dismiss_duplicate(self, a: int, b: int) -> bool:
        """Mark papers ``a`` and ``b`` "not duplicates", as one undoable edit."""
        return self._window.submit_edit(lambda lib: lib.duplicates.dismiss(a, b))

    def duplicates_changed(self, change: Changes) -> None:
        """After a merge, a dismissal or their undo: the count and the view (the list
        follows from ``change.sources`` as for any deletion)."""
        self.refresh_duplicate_count()
        if self.duplicates_dialog is not None:
            self.duplicates_dialog.reload()
