"""The window's annotation and keyboard-triage commands (:class:`TriageCommands`, the
window's ``triage``).

Every change is a call of a :class:`~paperdesk.core.library.Library` mutation handed to
the window's ``run_edit``; the core records the undo step and returns the
:class:`~paperdesk.core.changes.Changes` the window refreshes from, and a
:class:`~paperdesk.core.models.LibraryError` becomes a status-bar message instead of a
traceback. "The selected papers" means the selected rows when several are selected, and
otherwise the paper shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLabel, QLineEdit

from paperdesk.core.api import tag_key
from paperdesk.core.changes import NO_CHANGES

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["TriageCommands"]

#: How long action feedback stays in the status bar, in milliseconds.
MESSAGE_MS = 4000
#: The status-bar message while caret mode is on (until another message replaces it).
CARET_MESSAGE = ("Caret mode: arrows move, Shift+arrows select (Ctrl+Shift: by word), "
                 "h highlights, Esc leaves")


class TriageCommands:
    """Annotation commands and triage navigation of the window.

    Args:
        window: the :class:`~paperdesk.ui.window.main_window.MainWindow`; its public
            ``lib``, ``model``, ``table``, ``detail_pane``, ``run_edit``,
            ``submit_edit``, ``submit_undo``, ``select_row``, ``selected_ids``,
            ``current_paper_id``, ``focus_list``, ``reveal_reading_pane``,
            ``set_checked``, ``show_error`` and ``statusBar`` are used.

    Attributes:
        caret_label: the status bar's "Caret mode" label (after :meth:`setup_caret_mode`).
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.caret_label: QLabel | None = None

    # -- navigation ----------------------------------------------------------------------

    # -- focusing the editors ------------------------------------------------------------

    # -- read, star, title ---------------------------------------------------------------
    def toggle_read(self) -> bool:
        """Mark the selected papers read, or unread if all of them are read (r). Which
        it is is decided on the writer thread, after the edits queued before it (so
        ``r r`` pressed quickly comes back to where it started)."""
        ids = self._window.selected_ids()
        if not ids:
            return False
        self._window.reading.cancel_auto_mark_read()

        def toggle(lib):
            all_read = all(s.read for s in lib.papers.summaries(ids).values())
            return lib.papers.set_read(ids, not all_read)

        return self._window.run_edit(toggle)

    def toggle_star(self) -> bool:
        """Star the selected papers, or unstar them if all are starred (s); decided on
        the writer thread like :meth:`toggle_read`."""
        ids = self._window.selected_ids()
        if not ids:
            return False

        def toggle(lib):
            all_starred = all(s.starred for s in lib.papers.summaries(ids).values())
            return lib.papers.set_starred(ids, not all_starred)

        return self._window.run_edit(toggle)

    def set_title(self, title: str | None, paper_id: int | None = None) -> bool:
        """Give a paper its own title, or ``None`` for the derived one.

        Args:
            title: the new title or ``None``.
            paper_id: the paper (default: the one shown).
        """
        pid = paper_id if paper_id is not None else self._window.detail_pane.paper_id
        if pid is None:
            return False
        done = self._window.run_edit(lambda lib: lib.papers.set_title(pid, title))
        self._window.focus_list()
        return done

    # -- tags on papers --------------------------------------------------------------------
    def add_tag(self, name: str, paper_ids=None) -> bool:
        """Tag papers (creating the tag if needed) as one undo step.

        Args:
            name: the tag name (any case).
            paper_ids: the papers (default: the selected papers).
        Returns:
            True when the edit was queued (False: no paper to tag). What changed, or
            why nothing did, shows when the writer thread has committed it.
        """
        ids = list(paper_ids) if paper_ids is not None else self._window.selected_ids()
        if not ids:
            return False
        return self._window.run_edit(lambda lib: lib.tags.add(ids, name))

    def remove_tag(self, name: str, paper_ids=None) -> bool:
        """Remove a tag from papers (default: the selected papers) as one undo step."""
        ids = list(paper_ids) if paper_ids is not None else self._window.selected_ids()
        if not ids:
            return False
        return self._window.run_edit(lambda lib: lib.tags.remove(ids, name))

    def toggle_tag_key(self, key: int) -> bool:
        """Toggle the tag bound to number ``key`` on the selected papers (1-9): remove it
        if they all have it, otherwise add it to all.

        Which tag is bound is known from the tag list last read (the UI thread reads
        nothing: a lookup through ``lib.tags.for_key`` counted the tag's papers, a
        third of a second at a million papers); the writer thread looks the key up
        again when the edit runs (a key bound or unbound meanwhile wins).

        Returns:
            False (with a hint) when no tag is bound to the key.
        """
        if not any(t.key == key for t in self._window.tag_pane.tag_entries()):
            self._window.statusBar().showMessage(
                f"No tag is bound to key {key} — press {key} on a tag in Edit ▸ Manage "
                "Tags… (Ctrl+Shift+T), choose it when T creates a tag, or right-click a "
                "tag in the sidebar", 8000)
            return False
        ids = self._window.selected_ids()
        if not ids:
            return False

        def toggle(lib):   # writer thread: after the edits queued before it
            tag = lib.tags.for_key(key, count=False)
            if tag is None:   # unbound since the tag list was read
                return NO_CHANGES
            key_ = tag_key(tag.name)
            rows = lib.papers.summaries(ids)
            have = all(key_ in {tag_key(n) for n in s.tags} for s in rows.values())
            return (lib.tags.remove if have else lib.tags.add)(ids, tag.name)

        return self._window.run_edit(toggle)

    def remove_chip_tag(self, name: str) -> None:
        pid = self._window.detail_pane.paper_id
        if pid is not None:
            self.remove_tag(name, [pid])

    # -- whole tags ------------------------------------------------------------------------
    def create_tag(self, name: str, colour: str | None = None, key: int | None = None) -> bool:
        """Create an empty tag (undoable). Returns True when queued; a tag that exists
        changes nothing, an invalid name comes back as a "⚠" message."""
        return self._window.run_edit(lambda lib: lib.tags.create(name, colour, key))

    def rename_tag(self, tag_id: int, new_name: str) -> bool:
        """Rename a tag; onto an existing name (any case) this merges the two tags."""
        return self._window.run_edit(lambda lib: lib.tags.rename(tag_id, new_name))

    def delete_tag(self, tag_id: int) -> bool:
        """Delete a tag and remove it from its papers (undoable)."""
        return self._window.run_edit(lambda lib: lib.tags.delete(tag_id))

    def set_tag_colour(self, tag_id: int, colour: str) -> bool:
        """Recolour a tag (``#rrggbb``; undoable)."""
        return self._window.run_edit(lambda lib: lib.tags.set_colour(tag_id, colour))

    def set_tag_key(self, tag_id: int, key: int | None) -> bool:
        """Bind number key 1-9 to a tag, or unbind with ``None`` (undoable)."""
        return self._window.run_edit(lambda lib: lib.tags.set_key(tag_id, key))

    def prompt_rename_tag(self, tag_id: int) -> bool:
        """Ask for a new name for a tag and rename it (merging onto an existing name)."""
        # the name as the tag pane lists it (no read: the tag's state holds all its papers)
        tag = next((t for t in self._window.tag_pane.tag_entries() if t.id == tag_id), None)
        if tag is None:
            return False
        name, ok = QInputDialog.getText(
            self, "Rename tag",
            f"New name for “{tag.name}”\n(an existing tag's name merges the two):",
            QLineEdit.EchoMode.Normal, tag.name)
        return bool(ok and name.strip()) and self.rename_tag(tag_id, name)

    # -- highlights ------------------------------------------------------------------------
    def highlight_selection(self, colour: str | None = None) -> bool:
        """Highlight the text selected in the abstract (h).

        Args:
            colour: ``#rrggbb`` or ``None`` for the default highlight colour.
        Returns:
            False (with a hint) when nothing of the abstract is selected.
        """
        pid = self._window.detail_pane.paper_id
        span = self._window.detail_pane.selected_span()
        if pid is None or span is None:
            if self._window.detail_pane.abstract_view.caret_mode():
                hint = ("Nothing of the abstract is selected — Shift+arrows select "
                        "(Ctrl+Shift+arrows by word), then press H")
            else:
                hint = ("Select some text of the abstract first (with the mouse, or F7 "
                        "and Shift+arrows), then press H")
            self._window.statusBar().showMessage(hint, MESSAGE_MS)
            return False
        return self.add_highlight(pid, span[0], span[1], colour)

    # -- caret mode in the abstract ----------------------------------------------------------
    def setup_caret_mode(self) -> None:
        """Wire caret mode (call once, after the menus exist): Tab from the list goes
        into the abstract (where it turns caret mode on), a "Caret mode" label in the
        status bar and the checked state of the menu item follow the mode."""
        view = self._window.detail_pane.abstract_view
        self._window.table.setTabKeyNavigation(False)   # Tab leaves the list (not cell to cell)
        self._window.setTabOrder(self._window.table, view)
        self.caret_label = QLabel("Caret mode · Esc leaves")
        self.caret_label.setObjectName("caretModeLabel")
        self.caret_label.setTextFormat(Qt.TextFormat.PlainText)
        self.caret_label.setToolTip(CARET_MESSAGE)
        self.caret_label.setStyleSheet("font-weight: 600;")
        self.caret_label.hide()
        self._window.statusBar().addPermanentWidget(self.caret_label)
        view.caretModeChanged.connect(self._on_caret_mode_changed)

    def toggle_caret_mode(self, on: bool) -> bool:
        """Turn caret mode in the abstract on or off (F7). On: the abstract takes the
        focus with a keyboard caret; off: the focus goes back to the list.

        Args:
            on: the new mode (the menu item's checked state).
        Returns:
            The mode now in force (False, with a message, when no paper is shown).
        """
        view = self._window.detail_pane.abstract_view
        if not on:
            view.set_caret_mode(False)
            self._window.focus_list()
            return False
        self._window.reveal_reading_pane()
        if not view.set_caret_mode(True):
            self._window.set_checked("caretModeAction", False)
            self._window.statusBar().showMessage(
                "No paper is shown — choose one in the list first", MESSAGE_MS)
            return False
        return True

    def _on_caret_mode_changed(self, on: bool) -> None:
        self._window.set_checked("caretModeAction", on)
        self.caret_label.setVisible(on)
        bar = self._window.statusBar()
        if on:
            bar.showMessage(CARET_MESSAGE)
        elif bar.currentMessage() == CARET_MESSAGE:
            bar.clearMessage()

    def add_highlight(self, paper_id: int, start: int, end: int,
                      colour: str | None = None) -> bool:
        """Highlight ``abstract[start:end]`` of a paper (undoable)."""
        return self._window.run_edit(
            lambda lib: lib.notes.add_highlight(paper_id, start, end, colour))

    def remove_highlight(self, highlight_id: int) -> bool:
        """Remove a highlight (undoable)."""
        return self._window.run_edit(lambda lib: lib.notes.remove_highlight(highlight_id))

    def prompt_highlight_comment(self, highlight_id: int) -> bool:
        """Ask for a highlight's comment and store it (undoable)."""
        paper = self._window.detail_pane.paper
        if paper is None:
            return False
        h = next((h for h in paper.highlights if h.id == highlight_id), None)
        if h is None:
            return False
        text, ok = QInputDialog.getMultiLineText(
            self, "Highlight comment", f"Comment on “{h.text[:80]}”:", h.comment)
        if not ok:
            return False
        return self._window.run_edit(
            lambda lib: lib.notes.set_highlight_comment(h.id, text.strip()))

    # -- notes -----------------------------------------------------------------------------
    def save_note(self, paper_id: int, body: str, session: int = 0) -> bool:
        """Store a note; saves of one paper in one editing session merge into one undo
        step.

        Args:
            paper_id: the paper.
            body: the whole note ("" deletes it).
            session: the note editor's session number.
        """
        return self._window.run_edit(lambda lib: lib.notes.set(paper_id, body, session=session),
                                     quiet=True)

    def add_to_note(self, paper_id: int, typed: str) -> bool:
        """Add text typed for a paper before its note was shown after its stored note
        (:meth:`~paperdesk.core.edits.notes.Notes.append`): the user moved on before the
        paper came. The change is marked as a replay so that the reading pane shows the
        stored note again if that paper is on show by the time it is committed (the
        editor never showed this text).

        Args:
            paper_id: the paper.
            typed: what was typed.
        """
        return self._window.run_edit(
            lambda lib: lib.notes.append(paper_id, typed).as_replay())

    # -- undo ------------------------------------------------------------------------------
    def undo(self) -> None:
        """Save a pending note edit, then undo the last change (Ctrl+Z)."""
        self._window.detail_pane.note_editor.flush()
        self._window.submit_undo(redo=False)

    def redo(self) -> None:
        """Redo the last undone change (Ctrl+Shift+Z)."""
        self._window.detail_pane.note_editor.flush()
        self._window.submit_undo(redo=True)
