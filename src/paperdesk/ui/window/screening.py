"""The window's screening mode (:class:`ScreeningMode`, the window's ``screening``):
"does this paper belong under tag T?", one paper at a time, the most likely first.

Edit ▸ Screening ▸ Screen for Tag… (Ctrl+Shift+R, or the tag pane's menu on a tag)
asks for the tag and screens the papers the list shows (its search, saved search,
filter or file; not the tag's own papers) plus those decided for the tag before. Then
``i`` includes the paper on show (it gets the tag), ``e`` excludes it (a state of its
own, :mod:`paperdesk.core.screening.decisions`), ``p`` skips it for now, Ctrl+Z undoes
a decision as any edit, and Esc (in the list) leaves the mode.

Nothing here waits on SQLite or the model: a decision is an edit on the window's one
writer thread (shown as done, "Include in ‘T’ — Ctrl+Z to undo", once committed), and
the pool's features, the order and the stopping estimate are computed on its reader
thread (``worker.read``) after every change to the tag (a decision, its undo or redo,
tagging by hand). When the answer comes back the list is put in the new order (the
undecided papers, most likely first; the decided ones after them), the top one is
shown, the banner above the list gives the counts and the estimate, and the papers
excluded from the tag are muted with a "✕ T" chip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QInputDialog, QLabel, QLineEdit, QVBoxLayout

from paperdesk.core.changes import Changes
from paperdesk.core.scope import Scope

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["ScreeningMode", "ScreeningBanner", "KEYS_HINT", "NOT_SCREENING"]

#: What the banner says about the keys.
KEYS_HINT = "i include · e exclude · p skip · Ctrl+Z undo · Esc leave"
#: What ``i``, ``e`` and ``p`` say when no screening is on.
NOT_SCREENING = ("i, e and p decide while screening: Edit ▸ Screening ▸ Screen for Tag… "
                 "(Ctrl+Shift+R)")


class ScreeningBanner(QFrame):
    """The band above the list while screening: the tag, the counts, the estimate and
    the keys (``screeningLabel``, ``screeningEstimate``, ``screeningKeys``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("screeningBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        self.counts = QLabel()
        self.counts.setObjectName("screeningLabel")
        self.estimate = QLabel()
        self.estimate.setObjectName("screeningEstimate")
        self.keys = QLabel(KEYS_HINT)
        self.keys.setObjectName("screeningKeys")
        for label in (self.counts, self.estimate, self.keys):
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setWordWrap(True)
            layout.addWidget(label)
        font = self.counts.font()
        font.setBold(True)
        self.counts.setFont(font)
        self.hide()

    def show_text(self, counts: str, estimate: str) -> None:
        """Show ``counts`` (first line, bold) and ``estimate`` (second line)."""
        self.counts.setText(counts)
        self.estimate.setText(estimate)
        self.show()

    def text(self) -> str:
        """The banner's lines, joined by newlines (for tests and the screenshot)."""
        return "\n".join(label.text() for label in (self.counts, self.estimate, self.keys))


def _pool_and_standing(lib, tag_name: str, scope: Scope | None):
    """Reader thread: the pool (features built or read from the cache), its standing
    and the papers excluded from the tag."""
    pool = lib.screening.pool(tag_name, scope)
    return pool, lib.screening.standing(pool), lib.screening.excluded_ids(pool.tag_id)


class ScreeningMode:
    """Screening for a tag in the window (see the module).

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``worker``, ``model``, ``search``, ``tag_pane``, ``actions_by_name``,
            ``submit_edit``, ``current_paper_id``, ``select_row``, ``focus_list``,
            ``show_error``, ``is_shut_down`` and ``statusBar`` are used.

    Attributes:
        banner: the :class:`ScreeningBanner` (the window puts it above the list).
        tag_name: the tag screened for, or ``None`` when not screening.
        standing: the last :class:`~paperdesk.core.screening.session.Standing`.
        dialog: the tag prompt last opened (a ``QInputDialog``), or ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.banner = ScreeningBanner()
        self.tag_name: str | None = None
        self.standing = None
        self.dialog: QInputDialog | None = None
        self._tag_id: int | None = None
        self._pool = None
        self._skipped: set[int] = set()
        self._generation = 0

    @property
    def active(self) -> bool:
        """True while screening."""
        return self.tag_name is not None

    def setup_screening(self) -> None:
        """Connect to the worker's changes and the list's resets (called once the worker
        and the model exist)."""
        self._window.worker.changed.connect(self._on_changed)
        self._window.model.modelReset.connect(
            lambda: QTimer.singleShot(0, self._follow_order))

    def _ready(self) -> int | None:
        """The paper on show when a decision can be made now, else ``None`` (when not
        screening, the status bar says how to start)."""
        if not self.active:
            self._window.statusBar().showMessage(NOT_SCREENING, 6000)
            return None
        return self._window.current_paper_id() if self._pool is not None else None

    # -- starting and leaving ----------------------------------------------------------
    def start_screening(self) -> QInputDialog:
        """Ask which tag to screen for (Edit ▸ Screening ▸ Screen for Tag…,
        Ctrl+Shift+R): the tags listed, the one chosen in the tag pane first; a new
        name creates the tag. Enter starts, Esc cancels.

        Returns:
            The dialog (open, not modal to the code: the answer arrives later).
        """
        tags = [t.name for t in self._window.tag_pane.tag_entries()]
        chosen = self._window.tag_pane.current_tag()
        first = next((t.name for t in self._window.tag_pane.tag_entries()
                      if t.id == chosen), self.tag_name)
        if first in tags:
            tags.remove(first)
            tags.insert(0, first)
        dialog = QInputDialog(self._window)
        dialog.setObjectName("screenTagDialog")
        dialog.setWindowTitle("Screen for Tag")
        dialog.setLabelText("Screen the papers of the list for the tag (yes: i, no: e, "
                            "skip: p):")
        dialog.setInputMode(QInputDialog.InputMode.TextInput)
        if tags:                 # an editable list: a tag, or a new name typed
            dialog.setComboBoxEditable(True)
            dialog.setComboBoxItems(tags)
        dialog.textValueSelected.connect(lambda name: self.screen_tag(name))
        dialog.finished.connect(lambda _result: self._back_from(dialog))
        self.dialog = dialog
        dialog.open()
        return dialog

    def _back_from(self, dialog: QInputDialog) -> None:
        """The prompt closed: the keys go to the window's list again."""
        if self.dialog is dialog and not self._window.is_shut_down():
            self._window.activateWindow()
            self._window.focus_list()

    def screen_tag(self, name: str) -> None:
        """Start screening for tag ``name`` (created if new) over the list's papers.

        Args:
            name: the tag's name (as typed; compared without regard to case).
        """
        name = " ".join(str(name).split())
        if not name:
            return
        known = {t.name.casefold(): t.name for t in self._window.tag_pane.tag_entries()}
        if name.casefold() not in known:
            self._window.submit_edit(lambda lib: lib.tags.create(name),
                                     on_done=lambda _c: self._begin(name))
            return
        self._begin(known[name.casefold()])

    def _begin(self, name: str) -> None:
        window = self._window
        scope = window.current_scope()
        chosen = next((t for t in window.tag_pane.tag_entries()
                       if t.name.casefold() == name.casefold()), None)
        if chosen is not None and scope.tag_id == chosen.id:
            # not the tag's own papers: the list shows the rest of its file or filter
            scope = Scope(source_id=scope.source_id, filter=scope.filter)
            window.search.list_scope(scope)
        query = window.search.query_text()
        if query:
            scope = Scope(source_id=scope.source_id, tag_id=scope.tag_id,
                          filter=scope.filter, query=query)
        self.tag_name, self._tag_id, self._pool = name, None, None
        self._skipped = set()
        self._generation += 1
        generation = self._generation
        self.banner.show_text(f"Screening for ‘{name}’: reading the papers…", "")
        window.worker.read(lambda lib: _pool_and_standing(lib, name, scope),
                           on_done=lambda answer: self._on_started(generation, answer),
                           on_failed=self._on_failed, label="screening pool")

    def _on_started(self, generation: int, answer) -> None:
        if generation != self._generation or not self.active:
            return
        self._pool, standing, excluded = answer
        self._tag_id = self._pool.tag_id
        self._show(standing, excluded)

    def _on_failed(self, message: str) -> None:
        self._window.show_error(f"Screening: {message}")
        self.leave_screening()

    def leave_screening(self) -> None:
        """Leave the mode (Esc in the list): the banner goes, the excluded marks with it,
        and the list is shown in its own order again."""
        if not self.active:
            return
        self.tag_name = self._tag_id = self._pool = self.standing = None
        self._generation += 1
        self.banner.hide()
        self._window.model.set_excluded("", ())
        search = self._window.search
        if search.query_text():
            search.request_search(immediate=True)
        else:
            search.show_all()
        self._window.statusBar().showMessage("Screening ended", 4000)

    # -- decisions ---------------------------------------------------------------------
    def _decide(self, verb: str) -> bool:
        pid = self._ready()
        if pid is None:
            return False
        # the tag by its id: renamed meanwhile, it is still the one screened for
        name = next((t.name for t in self._window.tag_pane.tag_entries()
                     if t.id == self._tag_id), self.tag_name)
        if verb == "include":
            self._window.submit_edit(lambda lib: lib.screening.include(name, pid))
        else:
            self._window.submit_edit(lambda lib: lib.screening.exclude(name, pid))
        return True

    def screen_include(self) -> bool:
        """Yes: the paper on show gets the tag (``i``); the next paper follows once the
        order is computed again. Returns False when not screening."""
        return self._decide("include")

    def screen_exclude(self) -> bool:
        """No: the paper on show is excluded from the tag (``e``). Returns False when
        not screening."""
        return self._decide("exclude")

    def screen_skip(self) -> bool:
        """Skip the paper on show for now (``p``): the next one is shown; it stays
        undecided and comes back when every other one is decided."""
        pid = self._ready()
        if pid is None:
            return False
        self._skipped.add(pid)
        self._request()
        return True

    # -- the order ---------------------------------------------------------------------
    def _on_changed(self, change: Changes) -> None:
        """A committed change: one touching the tag (a decision, its undo, tagging by
        hand) sends for the new order."""
        if self.active and self._tag_id is not None and self._tag_id in change.tags:
            self._request()

    def _request(self) -> None:
        pool, skipped = self._pool, tuple(self._skipped)
        if pool is None or self._window.is_shut_down():
            return
        self._generation += 1
        generation = self._generation

        def read(lib):
            return lib.screening.standing(pool, skipped), lib.screening.excluded_ids(
                pool.tag_id)

        self._window.worker.read(read, on_done=lambda answer: self._on_standing(
            generation, answer), on_failed=self._on_failed, label="screening order")

    def _on_standing(self, generation: int, answer) -> None:
        if generation != self._generation or not self.active:
            return
        self._show(*answer)

    def _show(self, standing, excluded) -> None:
        self.standing = standing
        self.banner.show_text(f"Screening for ‘{standing.tag_name}’: "
                              f"{standing.counts_text()}", standing.estimate_text())
        self._window.model.set_excluded(standing.tag_name, excluded)
        self._follow_order()
        row = self._window.model.row_of(standing.next_id)
        if row >= 0:
            self._window.select_row(row)
        elif standing.next_id is None:
            self._window.statusBar().showMessage(
                f"Every paper is decided for ‘{standing.tag_name}’", 8000)

    def _follow_order(self) -> None:
        """Put the list in the screening's order: the undecided papers, most likely
        first, then the others as they were (also after a search is run again)."""
        if not self.active or self.standing is None or self._window.is_shut_down():
            return
        model = self._window.model
        listed = model.ids()
        have = set(listed)
        ranked = [p for p in self.standing.ranked if p in have]
        first = set(ranked)
        model.set_order(ranked + [p for p in listed if p not in first], {})

    # -- for the window ----------------------------------------------------------------
    def leave_on_escape(self) -> bool:
        """Esc in the list while screening leaves the mode; True when it did."""
        if not self.active:
            return False
        self.leave_screening()
        return True

    def tag_text(self) -> QLineEdit | None:
        """The tag prompt's text field while it is open (for typing into it), else
        ``None``."""
        return self.dialog.findChild(QLineEdit) if self.dialog is not None else None
