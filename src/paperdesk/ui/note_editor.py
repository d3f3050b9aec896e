"""The note editor (objectName ``noteEditor``): one plain-text Markdown note per paper,
saved automatically.

Saving is the owner's job; the editor says when: :data:`AUTOSAVE_MS` after the last
keystroke, and whenever :meth:`NoteEditor.flush` is called (the window calls it before
showing another paper, before undo/redo and when closing). Ctrl+click on an http(s) URL
written in the note opens it in the system browser; nothing else is ever opened.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QFontDatabase, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from .links import open_safe_url, url_at

__all__ = ["NoteEditor", "AUTOSAVE_MS", "NOTE_PLACEHOLDER"]

#: Autosave delay after the last keystroke, in milliseconds.
AUTOSAVE_MS = 400
NOTE_PLACEHOLDER = ("Write a note (Markdown)…  Saved as you type.  "
                    "N to come here, Esc to go back to the list.")


class NoteEditor(QPlainTextEdit):
    """Plain-text editor for the shown paper's note.

    Signals:
        saveRequested(int, str, int): ``(paper_id, body, session)``: the text differs
            from what was last saved and should be stored. ``session`` changes whenever
            another paper is loaded (see :class:`~paperdesk.ui.commands.NoteCommand`).
        linkOpened(str): a Ctrl+click opened this URL.

    Args:
        parent: Qt parent.
    """

    saveRequested = Signal(int, str, int)
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
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(AUTOSAVE_MS)
        self._timer.timeout.connect(self.flush)
        self.textChanged.connect(self._on_text_changed)
        self.setEnabled(False)

    @property
    def paper_id(self) -> int | None:
        """The paper whose note is being edited, or ``None``."""
        return self._paper_id

    @property
    def session(self) -> int:
        """The editing session number (increases with every :meth:`load`)."""
        return self._session

    def load(self, paper_id: int, body: str) -> None:
        """Start editing ``paper_id``'s note (call :meth:`flush` first for the old one).

        Args:
            paper_id: the paper.
            body: its stored note ("" for none).
        """
        self._timer.stop()
        self._paper_id = paper_id
        self._session += 1
        self._saved = body
        self._set_text(body)
        self.setEnabled(True)

    def unload(self) -> None:
        """Show no note (no paper); the editor is disabled."""
        self._timer.stop()
        self._paper_id = None
        self._saved = ""
        self._set_text("")
        self.setEnabled(False)

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

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Ctrl+S saves at once (otherwise saving is automatic)."""
        if event.matches(QKeySequence.StandardKey.Save):
            self.flush()
            event.accept()
            return
        super().keyPressEvent(event)
