"""The note editor (objectName ``noteEditor``): one plain-text Markdown note per paper,
saved automatically.

Saving is the owner's job; the editor says when: :data:`AUTOSAVE_MS` after the last
keystroke, and whenever :meth:`NoteEditor.flush` is called (the window calls it before
showing another paper, before undo/redo and when closing). Ctrl+click on an http(s) URL
written in the note opens it in the system browser; nothing else is ever opened.

While a search is shown, every word of the note the search matched is marked as in the
abstract (:class:`SearchMarks`, a ``QSyntaxHighlighter``: marking changes formats only,
never the text, so it never asks for a save).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (QColor, QFontDatabase, QKeySequence, QMouseEvent,
                           QSyntaxHighlighter, QTextCharFormat, QTextDocument)
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from paperdesk.core.api import MatchTerms, joined_note, match_spans
from paperdesk.ui.panes.links import open_safe_url, url_at
from paperdesk.ui.panes.paper_html import LIGHT, HtmlColours

__all__ = ["NoteEditor", "SearchMarks", "AUTOSAVE_MS", "NOTE_PLACEHOLDER"]

#: Autosave delay after the last keystroke, in milliseconds.
AUTOSAVE_MS = 400
NOTE_PLACEHOLDER = ("Write a note (Markdown)…  Saved as you type.  "
                    "N to come here, Esc to go back to the list.")



class SearchMarks(QSyntaxHighlighter):
    """Marks the words a search matched in a text document, line by line.

    Args:
        document: the document to mark (e.g. a ``QPlainTextEdit``'s).
    """

    def __init__(self, document: QTextDocument):
        super().__init__(document)
        self._terms = MatchTerms()
        self._format = QTextCharFormat()
        self.set_colours(LIGHT)

    def set_colours(self, colours: HtmlColours) -> None:
        """Mark hits in ``colours.hit_background`` / ``hit_text``, underlined (as the
        abstract's hits)."""
        fmt = QTextCharFormat()
        fmt.setBackground(QColor(colours.hit_background))
        fmt.setForeground(QColor(colours.hit_text))
        fmt.setFontUnderline(True)
        if fmt == self._format:
            return
        self._format = fmt
        if self._terms:
            self.rehighlight()

    @property
    def terms(self) -> MatchTerms:
        """What is marked (empty: nothing)."""
        return self._terms

    def set_terms(self, terms: MatchTerms | None) -> None:
        """Mark the words ``terms`` match (from ``lib.search.match_terms``); ``None`` or
        empty terms remove every mark. Re-marks only when the terms changed."""
        terms = terms or MatchTerms()
        if terms == self._terms:
            return
        self._terms = terms
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 (Qt)
        """Qt hook: mark the matched words of one line (offsets in UTF-16 units)."""
        if not self._terms or not text:
            return
        spans = match_spans(text, self._terms)
        if not spans:
            return
        # QTextDocument positions count UTF-16 code units; Python counts code points.
        units = None
        if any(ord(c) > 0xFFFF for c in text):
            units = [0]
            for c in text:
                units.append(units[-1] + (2 if ord(c) > 0xFFFF else 1))
        for start, end in spans:
            if units is not None:
                start, end = units[start], units[end]
            self.setFormat(start, end - start, self._format)


class NoteEditor(QPlainTextEdit):
    """Plain-text editor for the shown paper's note.

    Signals:
        addRequested(int, str): ``(paper_id, typed)``: text typed for a paper before its
            stored note was read, left behind (another paper, or none, is shown now):
            to be added after the stored note (``lib.notes.append``).
        saveRequested(int, str, int): ``(paper_id, body, session)``: the text differs
            from what was last saved and should be stored. ``session`` changes whenever
            another paper is loaded (see :class:`~paperdesk.ui.commands.NoteCommand`).
        linkOpened(str): a Ctrl+click opened this URL.

    Args:
        parent: Qt parent.
    """

    saveRequested = Signal(int, str, int)
    addRequested = Signal(int, str)
    linkOpened = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("noteEditor")
        self.setPlaceholderText(NOTE_PLACEHOLDER)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setToolTip("Your note on this paper (Markdown). Ctrl+click a link to open it.")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
        self.setFont(font)
        self._paper_id: int | None = None
        self._saved = ""
        self._session = 0
        self._loading = False
        self._expected: int | None = None     # see expect()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(AUTOSAVE_MS)
        self._timer.timeout.connect(self.flush)
        self.textChanged.connect(self._on_text_changed)
        self.marks = SearchMarks(self.document())  #: marks the active search's hits
        self.setEnabled(False)

    @property
    def paper_id(self) -> int | None:
        """The paper whose note is being edited, or ``None``."""
        return self._paper_id

    @property
    def session(self) -> int:
        """The editing session number (increases with every :meth:`load`)."""
        return self._session

    @property
    def expected_id(self) -> int | None:
        """The paper whose note is being typed before it was read (:meth:`expect`), or
        ``None``."""
        return self._expected

    def expect(self, paper_id: int) -> None:
        """Take the keys for ``paper_id``'s note before its stored note is read (the
        user pressed N while the paper was on its way from the reader thread): the old
        note is saved (:meth:`flush`) and cleared, and what is typed now is added after
        the stored note when :meth:`load` brings it (:func:`joined_note`), as if it had
        been there at once. Nothing is saved before then, unless the user leaves the
        paper first (:meth:`hand_over_typed`). Expecting the paper already expected
        keeps what was typed for it.

        Args:
            paper_id: the paper on its way.
        """
        if self._expected == paper_id:
            return
        self.flush()
        self.hand_over_typed()
        self._clear(expected=paper_id, enabled=True)

    def hand_over_typed(self) -> None:
        """Text typed for the expected paper (:meth:`expect`) that will not be shown now
        (the user moved to another paper, or the window closes): ask for it to be added
        after the paper's stored note (:attr:`addRequested`) and clear the editor.
        Nothing happens when no paper is expected or nothing was typed."""
        expected, typed = self._expected, self.toPlainText()
        if expected is None:
            return
        self._clear(expected=None, enabled=False)
        if typed.strip():
            self.addRequested.emit(expected, typed)

    def load(self, paper_id: int, body: str) -> None:
        """Start editing ``paper_id``'s note (call :meth:`flush` first for the old one).
        Text typed for it before it came (:meth:`expect`) follows ``body`` and is saved
        after the usual delay.

        Args:
            paper_id: the paper.
            body: its stored note ("" for none).
        """
        if self._expected != paper_id:
            self.hand_over_typed()
        typed = self.toPlainText() if self._expected == paper_id else ""
        self._expected = None
        self._timer.stop()
        self._paper_id = paper_id
        self._session += 1
        self._saved = body
        self._set_text(joined_note(body, typed))
        self.setEnabled(True)
        if typed:
            self._timer.start()

    def unload(self) -> None:
        """Show no note (no paper); the editor is disabled. Text typed for an expected
        paper is handed over (:meth:`hand_over_typed`)."""
        self.hand_over_typed()
        self._clear(expected=None, enabled=False)

    def _clear(self, expected: int | None, enabled: bool) -> None:
        """Empty the editor, attached to no paper's note (nothing to save)."""
        self._timer.stop()
        self._paper_id = None
        self._expected = expected
        self._saved = ""
        self._set_text("")
        self.setEnabled(enabled)

    def show_saved_text(self, body: str) -> None:
        """Show ``body`` as the stored note of the current paper (after undo/redo),
        without asking to save it.

        Args:
            body: the note as now stored.
        """
        self._timer.stop()
        self._saved = body
        if self.toPlainText() != body:
            self._set_text(body)

    def is_dirty(self) -> bool:
        """Return True if the text differs from what was last saved."""
        return self._paper_id is not None and self.toPlainText() != self._saved

    @Slot()
    def flush(self) -> None:
        """Ask for a save now if the text changed since the last one."""
        self._timer.stop()
        if not self.is_dirty():
            return
        body = self.toPlainText()
        self._saved = body
        self.saveRequested.emit(self._paper_id, body, self._session)

    def _set_text(self, body: str) -> None:
        self._loading = True
        try:
            self.setPlainText(body)
            self.moveCursor(self.textCursor().MoveOperation.End)
        finally:
            self._loading = False

    @Slot()
    def _on_text_changed(self) -> None:
        if not self._loading and self._paper_id is not None:
            self._timer.start()

    # -- Ctrl+click on a link ------------------------------------------------------------
    def link_at(self, pos) -> str | None:
        """Return the http(s) URL written at viewport position ``pos``, or ``None``."""
        cursor = self.cursorForPosition(pos)
        block = cursor.block()
        return url_at(block.text(), cursor.positionInBlock())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt)
        """Ctrl+click on an http(s) URL opens it in the system browser."""
        if event.button() == Qt.MouseButton.LeftButton \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier \
                and not self.textCursor().hasSelection():
            url = self.link_at(event.position().toPoint())
            if url and open_safe_url(url):
                self.linkOpened.emit(url)
                event.accept()
                return
        super().mouseReleaseEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt)
        """Show a pointing hand over a URL while Ctrl is held."""
        over_link = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier) \
            and self.link_at(event.position().toPoint()) is not None
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if over_link
                                  else Qt.CursorShape.IBeamCursor)
        super().mouseMoveEvent(event)

    def set_match_terms(self, terms: MatchTerms | None) -> None:
        """Mark the words of the note the active search matched (``None``: no marks)."""
        self.marks.set_terms(terms)

    def set_mark_colours(self, colours: HtmlColours) -> None:
        """Draw search marks in these colours (see :meth:`SearchMarks.set_colours`)."""
        self.marks.set_colours(colours)

    def event(self, event: QEvent) -> bool:
        """Claim Ctrl+S while the note has the focus, so it saves the note instead of
        triggering the window's "Save Search…" shortcut."""
        if event.type() == QEvent.Type.ShortcutOverride \
                and event.matches(QKeySequence.StandardKey.Save):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Ctrl+S saves at once (otherwise saving is automatic)."""
        if event.matches(QKeySequence.StandardKey.Save):
            self.flush()
            event.accept()
            return
        super().keyPressEvent(event)
