"""The reading controller: the paper on show, moving between papers, marking read.

:class:`ReadingController` (the window's ``reading``) shows the list's current paper in
the reading pane (:class:`~paperdesk.ui.panes.detail_pane.DetailPane`), read from the
library, and shows it again when a committed change touched it: it listens to the
worker's ``changed`` signal (:class:`~paperdesk.core.changes.Changes`) itself. It moves
between papers (j/k, u for the next unread, Esc back to the list), puts the keyboard in
the reading pane's editors (t, n, e) and marks the paper on show read after
``settings.mark_read_delay_ms`` when the user chose it (Mark Papers Read Automatically;
see :meth:`ReadingController.shown_by_user`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QTimer, QUrl

from paperdesk.core.changes import Changes
from paperdesk.core.models import UnknownPaper
from paperdesk.ui.panes.links import link_problem
from paperdesk.ui.window.triage import MESSAGE_MS

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["ReadingController"]


def _paper_or_none(lib, pid: int):
    """``lib.papers.get(pid)`` (reader thread), or ``None`` when it left the library."""
    try:
        return lib.papers.get(pid)
    except UnknownPaper:
        return None


class ReadingController:
    """The paper on show and the moves between papers.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``lib``, ``settings``, ``model``, ``table``, ``detail_pane``, ``worker``,
            ``submit_edit``, ``select_row``, ``current_paper_id``, ``focus_list``,
            ``reveal_reading_pane``, ``match_terms``, ``empty_hint``, ``is_shut_down``
            and ``statusBar`` are used. Built before the window's widgets; wired by
            :meth:`connect` once the list, the reading pane and the worker exist.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        #: the paper the user moved to in the list (keys, click, a command such as j or
        #: u) or the selection restored at start, while it is the current one; only it
        #: is marked read automatically (a row a search or a refresh puts first is not)
        self._chosen_id: int | None = None
        #: the last paper the user chose (stored at close; never a row the window placed)
        self.last_chosen_id: int | None = None
        self._read_candidate: int | None = None
        self._read_timer = QTimer(window)
        self._read_timer.setSingleShot(True)
        self._read_timer.timeout.connect(self._auto_mark_read)
        # the paper of the current row being read on the reader thread (not shown yet)
        # and the number of its ask: an answer of an older ask is dropped
        self._pending_id: int | None = None
        self._asks = 0
        self._after_shown: list[Callable[[], object]] = []    # see when_shown

    def connect(self) -> None:
        """Follow the list's current row, the user's moves, the reading pane's links and
        the worker's committed changes (call once they exist)."""
        window = self._window
        window.table.selectionModel().currentRowChanged.connect(self.show_current_row)
        window.table.userMoved.connect(self.choose_current)
        window.detail_pane.abstract_view.highlighted.connect(self._on_link_hovered)
        window.detail_pane.linkRefused.connect(self._on_link_refused)
        window.worker.changed.connect(self.on_changed)

    def restore_chosen(self, paper_id: int | None) -> None:
        """Count ``paper_id`` (the selection stored at close) as the user's choice."""
        self._chosen_id = self.last_chosen_id = paper_id

    def on_changed(self, change: Changes) -> None:
        """A committed change (after the window refreshed the list from it): show the
        paper on show again, read off the UI thread, if the change touched it; a note the
        editor saved itself is not reloaded."""
        if self._window.is_shut_down() or not change:
            return
        pending = self._pending_id
        if pending is not None:
            # another paper is on its way (it replaces the one on show): read it again
            # if it may have been read before this change (the older answer is dropped)
            if pending in change.papers:
                self._read_paper(pending)
            return
        pid = self._window.detail_pane.paper_id
        if pid is None or pid not in change.papers:
            return
        if change.notes and not change.replay:
            return   # the editor already shows what was saved
        self.show_again(pid, reload_note=bool(change.notes))

    def cancel_auto_mark_read(self) -> None:
        """Forget the pending automatic mark-read of the shown paper."""
        self._read_timer.stop()
        self._read_candidate = None

    def clear_detail(self, message: str, keep_pending: bool = False) -> None:
        """Show no paper: the reading pane says ``message`` instead. The paper of the
        current row on its way from the reader thread is dropped too, unless
        ``keep_pending`` (the paper on show left the library: the one moved to still
        comes)."""
        self._window.detail_pane.note_editor.flush()
        self.cancel_auto_mark_read()
        if not keep_pending:
            self._forget_pending()
        self._window.detail_pane.clear_paper(message)

    def show_current_row(self, current: QModelIndex, previous: QModelIndex) -> None:
        """The list's current row changed: show its paper (read on the reader thread;
        the paper before stays on show until it comes), or the list's empty hint; the
        same paper (a refreshed list) keeps its note."""
        pid = self._window.model.paper_id(current.row()) if current.isValid() else None
        if pid != self._chosen_id:
            # Not (yet) the user's choice: the user's moves say so right after this
            # (userMoved, select_row), a row placed by the window stays unchosen.
            self._chosen_id = None
        terms = self._window.search.match_terms()
        if pid is not None and pid == self._window.detail_pane.paper_id:
            # the same paper (the list was refreshed, or the user came back to it
            # before the paper moved to was read): keep its note
            self._forget_pending()
            self._window.detail_pane.set_match_terms(terms)
            editor = self._window.detail_pane.note_editor
            if editor.paper_id != pid and editor.expected_id is not None:
                # its note was left for the paper on its way (n, then back here before
                # it came): what was typed goes to that paper, this one's note back
                editor.hand_over_typed()
                self.show_again(pid, reload_note=True)
            return
        if pid is None:
            self.clear_detail(self._window.empty_hint())
            return
        editor = self._window.detail_pane.note_editor
        editor.flush()
        if editor.expected_id != pid:
            editor.hand_over_typed()    # typed for a paper the user left before it came
        self._read_paper(pid)

    @property
    def pending_id(self) -> int | None:
        """The paper asked for on the reader thread and not shown yet (the list's
        current row; the reading pane still shows the one before), or ``None``."""
        return self._pending_id

    def _read_paper(self, pid: int) -> None:
        """Read paper ``pid`` (the list's current row) on the reader thread and show it
        when it comes, unless the user moved on by then (another row, or no paper): the
        paper shown before stays on show meanwhile, so moving down the list never
        flashes an empty pane; a newer ask makes the older answer stale."""
        self._asks += 1
        ask, self._pending_id = self._asks, pid

        def fresh() -> bool:    # UI thread: still the paper the user wants to see?
            if ask != self._asks or self._window.is_shut_down():
                return False    # a newer ask is on its way, or none is wanted
            if self._window.current_paper_id() != pid:
                # the row went without a new ask (a reset list): nothing is on its way
                self._pending_id = None
                self._after_shown.clear()
                return False
            return True

        def show(paper) -> None:
            if not fresh():
                return
            self._pending_id = None
            if paper is None:
                self._after_shown.clear()
                self.clear_detail("This paper is no longer in the library")
                return
            self._window.detail_pane.note_editor.flush()
            self._window.detail_pane.show_paper(paper, self._window.search.match_terms())
            self.schedule_mark_read(paper)
            waiting, self._after_shown = self._after_shown, []
            for command in waiting:
                command()

        def failed(message: str) -> None:
            if fresh():
                self._pending_id = None
                self.clear_detail(message)

        def read(lib):          # reader thread: a paper the user already left is not read
            return None if ask != self._asks else _paper_or_none(lib, pid)

        self._window.worker.read(read, on_done=show, on_failed=failed, label="paper",
                                 first=True)

    def _forget_pending(self) -> None:
        """Drop the answer of the paper asked for (the pane shows another or none), and
        the commands waiting for it (:meth:`when_shown`)."""
        self._asks += 1
        self._pending_id = None
        self._after_shown.clear()

    def when_shown(self, command: Callable[[], object]) -> bool:
        """Run ``command`` (a key's command on "the paper on show": m, o) once the
        current row's paper is shown, if it is still on its way from the reader thread;
        it is dropped if the user moves to no paper meanwhile.

        Returns:
            True when ``command`` was put off (the caller returns), False when no
            paper is on its way (the caller acts now).
        """
        if self._pending_id is None:
            return False
        self._after_shown.append(command)
        return True

    def choose_current(self) -> None:
        """The user moved to the current row, or into the list: its paper counts as shown
        from now on, and is marked read after the delay (if it is the one on show)."""
        pid = self._window.current_paper_id()
        if pid is None or pid == self._chosen_id or self._window.is_shut_down():
            return
        self._chosen_id = self.last_chosen_id = pid
        paper = self._window.detail_pane.paper
        if paper is not None and paper.id == pid:
            self.schedule_mark_read(paper)

    def shown_by_user(self) -> bool:
        """True when the paper on show is the user's choice: the user moved to it in the
        list (keys, a click, j/k/u), moved into the list while it was current, or it is
        the selection restored at start. Only such a paper is marked read
        automatically; one a search, a filter change or a list refresh put first is not."""
        pid = self._window.detail_pane.paper_id
        return pid is not None and pid == self._chosen_id == self._window.current_paper_id()

    def schedule_mark_read(self, paper) -> None:
        """Start the mark-read delay for ``paper`` (a :class:`Paper` on show) if
        automatic marking is on, it is unread, the reading pane is shown and the user
        chose it."""
        self.cancel_auto_mark_read()
        if self._window.settings.auto_mark_read and not paper.read \
                and not self._window.detail_pane.isHidden() and paper.id == self._chosen_id:
            self._read_candidate = paper.id
            self._read_timer.start(self._window.settings.mark_read_delay_ms)

    def _auto_mark_read(self) -> None:
        """Mark the shown paper read once it has been shown long enough, if the user
        chose it (:meth:`shown_by_user`). Not an undo step (R toggles it back)."""
        pid, self._read_candidate = self._read_candidate, None
        if self._window.is_shut_down() or pid is None or pid != self._window.detail_pane.paper_id \
                or not self.shown_by_user() or self._window.detail_pane.isHidden():
            return
        self._window.submit_edit(lambda lib: lib.papers.set_read([pid], True, undoable=False), quiet=True)

    def show_again(self, pid: int, reload_note: bool = False) -> None:
        """Read paper ``pid`` (the one the detail pane shows) off the UI thread and show
        it again, in place; it is cleared with a message if it left the library."""
        def show(paper) -> None:   # UI thread; skipped if another paper is shown by now
            if not self._window.is_shut_down() and self._window.detail_pane.paper_id == pid:
                self._window.detail_pane.show_paper(paper, self._window.search.match_terms(),
                                                    reload_note=reload_note)

        def gone(_message: str) -> None:
            if not self._window.is_shut_down() and self._window.detail_pane.paper_id == pid:
                self.clear_detail("This paper is no longer in the library", keep_pending=True)

        self._window.worker.read(lambda lib: lib.papers.get(pid), on_done=show, on_failed=gone,
                                 label="paper")

    def _on_link_hovered(self, url) -> None:
        text = url.toString() if hasattr(url, "toString") else str(url)
        if text:
            self._window.statusBar().showMessage(text, 4000)
        else:
            self._window.statusBar().clearMessage()

    def _on_link_refused(self, url: QUrl) -> None:
        problem = link_problem(url) or "only http and https links open"
        self._window.statusBar().showMessage(
            f"Not opened: {url.toString()[:80]} ({problem})", 8000)

    def next_paper(self) -> bool:
        """Show the next paper in the list (j). Returns False at the end."""
        return self._step(1)

    def previous_paper(self) -> bool:
        """Show the previous paper in the list (k). Returns False at the start."""
        return self._step(-1)

    def _step(self, step: int) -> bool:
        row = self._window.table.currentIndex().row()
        target = 0 if row < 0 else row + step
        if not 0 <= target < self._window.model.rowCount():
            return False
        return self._window.select_row(target)

    def next_unread(self) -> bool:
        """Show the next unread paper after the current one, wrapping around (u).

        Which papers are unread is read on the worker's reader thread (the list may hold
        100,000 rows); the list moves when the answer comes back.

        Returns:
            False when the list is empty; otherwise True (a message says so when no
            other listed paper is unread).
        """
        ids = self._window.model.ids()
        if not ids:
            return False
        current = self._window.current_paper_id()
        start = self._window.model.row_of(current)
        order = [pid for pid in ids[start + 1:] + ids[:max(start, 0) + 1] if pid != current]
        job = self._window.worker.read(lambda lib: lib.papers.first_unread(order),
                                       on_done=self._go_to_unread,
                                       on_failed=self._window.show_error, label="next unread")
        return job is not None

    def _go_to_unread(self, pid: int | None) -> None:
        row = self._window.model.row_of(pid) if pid is not None else -1
        if row < 0:
            self._window.statusBar().showMessage("No other unread paper in this list", MESSAGE_MS)
            return
        self._window.select_row(row)

    def back_to_list(self) -> None:
        """Leave the note/tag/title editor (saving the note) or caret mode and focus the
        list (Esc). In the list itself, Esc narrows a multi-selection to the current
        paper, else leaves the screening mode if it is on."""
        focus = self._window.focusWidget()
        pane = self._window.detail_pane
        pane.note_editor.flush()
        if pane.is_editing_title():
            pane.cancel_title_edit()
        if focus is pane.chips.editor:
            pane.chips.editor.clear()
        table = self._window.table
        if focus is table and len(table.selectionModel().selectedRows()) > 1:
            self._window.select_row(self._window.table.currentIndex().row())
        elif focus is table and self._window.screening.leave_on_escape():
            return                       # Esc in the list leaves the screening mode
        self._window.focus_list()

    def scroll_abstract_down(self) -> None:
        """Scroll the abstract down one screen (Space)."""
        self._window.detail_pane.scroll_abstract(0.9)

    def scroll_abstract_up(self) -> None:
        """Scroll the abstract up one screen (Shift+Space)."""
        self._window.detail_pane.scroll_abstract(-0.9)

    def focus_tag_editor(self) -> bool:
        """Put the focus in the tag editor; Enter adds the tag to the selected papers (t),
        even while the current row's paper is still on its way. With no paper shown yet
        (the window has just opened), the focus goes there once it is.

        Returns:
            True when the editor has the focus or will have it once the paper is shown.
        """
        self._window.detail_pane.set_selection_size(len(self._window.selected_ids()))
        self._window.reveal_reading_pane()
        if self._window.detail_pane.paper is None \
                and self.when_shown(self._window.detail_pane.focus_tag_editor):
            return True
        return self._window.detail_pane.focus_tag_editor()

    def focus_note(self) -> bool:
        """Put the focus in the note editor (n). If the current row's paper is still on
        its way, what is typed goes to its note once it is shown, never to the note of
        the paper shown before (:meth:`DetailPane.focus_note`).

        Returns:
            True when the note has the focus.
        """
        self._window.reveal_reading_pane()
        return self._window.detail_pane.focus_note(coming=self._pending_id)

    def edit_title(self) -> bool:
        """Open the title editor (F2); if the current row's paper is still on its way,
        once it is shown (the title shown before is never the one edited).

        Returns:
            True when the editor is open or will open once the paper is shown.
        """
        self._window.reveal_reading_pane()
        if self.when_shown(self._window.detail_pane.edit_title):
            return True
        return self._window.detail_pane.edit_title()
