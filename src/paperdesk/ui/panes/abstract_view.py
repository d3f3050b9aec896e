"""The read-only view of a paper's abstract (objectName ``abstractView``), with exact
mapping from a text selection to character offsets in ``paper.abstract``.

The HTML from :func:`paperdesk.ui.panes.paper_html.paper_body_html` makes the abstract the
document's first block, and links or highlight formatting never add or drop characters,
so a document position ``p`` inside that block is abstract offset ``p - block.position()``
— counted in UTF-16 code units, which :class:`OffsetMap` converts to Python string indices
(they differ only for characters outside the Basic Multilingual Plane). Nothing searches
for the selected text, so repeated words, Greek letters and text after links map exactly.

Caret mode (:meth:`AbstractView.set_caret_mode`, F7 or Tab into the view) adds a keyboard
caret as browsers' caret browsing does: arrows move it, Shift+arrows select,
Ctrl+Shift+arrows select by word, and the view keeps j / k / u / Space for itself so that
they do not move the paper list. It ends when the focus leaves the view.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QContextMenuEvent, QKeyEvent, QTextBlock, QTextCursor
from PySide6.QtWidgets import QFrame, QMenu, QTextBrowser, QWidget

from paperdesk.core.api import HIGHLIGHT_COLOURS
from paperdesk.ui.style.colours import swatch_icon
from paperdesk.ui.panes.links import is_safe_url, open_safe_url

__all__ = ["AbstractView", "OffsetMap", "HIGHLIGHT_COLOUR_NAMES", "LINE_CHARS",
           "CARET_KEPT_KEYS"]

#: Longest line of the abstract, in average characters: lines of 60-75 characters are the
#: easiest to read, so a wide pane does not stretch them further.
LINE_CHARS = 72
#: A sample of English text for measuring the average character width of a font.
_SAMPLE = ("Generative foundation models are increasingly scaled in both width and depth, "
           "posing challenges for stable feature learning.")

#: Single-key window shortcuts the view keeps for itself in caret mode, because they
#: would move the paper list away from the caret (Space and Shift+Space scroll the view).
CARET_KEPT_KEYS = frozenset({Qt.Key.Key_J, Qt.Key.Key_K, Qt.Key.Key_U, Qt.Key.Key_Space})
#: Focus changes that do not end caret mode: a context menu, the menu bar, another window.
_KEEP_CARET_REASONS = (Qt.FocusReason.PopupFocusReason, Qt.FocusReason.MenuBarFocusReason,
                       Qt.FocusReason.ActiveWindowFocusReason)

#: Names shown for :data:`~paperdesk.core.edits.annotations.HIGHLIGHT_COLOURS`.
HIGHLIGHT_COLOUR_NAMES = dict(zip(HIGHLIGHT_COLOURS, ("Yellow", "Blue", "Green", "Red")))


class OffsetMap:
    """Converts between UTF-16 positions (Qt) and code-point indices (Python) in a text.

    Args:
        text: the Python string.
    """

    def __init__(self, text: str):
        self.text = text
        # UTF-16 positions where a non-BMP character (two code units) starts.
        self._wide: list[int] = []
        pos = 0
        for ch in text:
            if ord(ch) > 0xFFFF:
                self._wide.append(pos)
                pos += 2
            else:
                pos += 1
        self.utf16_length = pos

    def to_index(self, utf16_pos: int) -> int:
        """Return the Python index of UTF-16 position ``utf16_pos`` (clamped to the
        text; a position inside a surrogate pair maps to its character)."""
        pos = min(max(utf16_pos, 0), self.utf16_length)
        return pos - bisect_right(self._wide, pos - 1)

    def to_utf16(self, index: int) -> int:
        """Return the UTF-16 position of Python index ``index`` (clamped)."""
        index = min(max(index, 0), len(self.text))
        if not self._wide:
            return index
        return index + sum(1 for ch in self.text[:index] if ord(ch) > 0xFFFF)


class AbstractView(QTextBrowser):
    """Read-only rich-text view of the abstract, arXiv links and sources.

    The view never follows a link itself: a click hands http(s) links to the system
    browser and refuses every other scheme. Lines are at most :data:`LINE_CHARS`
    average characters long (:meth:`line_width`); a narrower view wraps at its width.

    In caret mode (:meth:`set_caret_mode`) the view also selects with the keyboard and
    shows a caret and a frame; Tab or Backtab into the view turns it on, losing the focus
    (except to a menu or another window) turns it off.

    Signals:
        linkRefused(QUrl): a clicked link was not opened because of its scheme.
        highlightRequested(int, int, str): ``(start, end, colour)`` from the context menu.
        caretModeChanged(bool): caret mode went on (True) or off (False).

    Args:
        parent: Qt parent.
    """

    linkRefused = Signal(QUrl)
    highlightRequested = Signal(int, int, str)
    caretModeChanged = Signal(bool)
    _caret = False   # a class default: Qt sends events while __init__ runs

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("abstractView")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Read-only: nothing can be dropped into the text. Files dropped on it go up to
        # the window (which imports them), with no Python event filter on the view: a
        # filter runs for every paint and layout event, and each must take the
        # interpreter lock from the background threads (an import's, a listing's).
        self.setAcceptDrops(False)
        self.viewport().setAcceptDrops(False)
        self.document().setDocumentMargin(14)
        self.anchorClicked.connect(self.open_link)
        self._map: OffsetMap | None = None
        self._shown_html: str | None = None   #: the html last set (set_content)
        self._block = -1
        self.update_line_length()

    # -- line length -------------------------------------------------------------------
    def line_width(self) -> int:
        """Return the widest the text may be, in pixels: :data:`LINE_CHARS` average
        characters of the current font plus the document margins."""
        fm = self.fontMetrics()
        per_char = fm.horizontalAdvance(_SAMPLE) / len(_SAMPLE)
        return int(per_char * LINE_CHARS + 2 * self.document().documentMargin())

    def update_line_length(self) -> None:
        """Wrap at :meth:`line_width` when the view is wider, else at the view's width
        (called on resize and when the font changes)."""
        limit = self.line_width()
        if self.viewport().width() > limit:
            if (self.lineWrapMode() != QTextBrowser.LineWrapMode.FixedPixelWidth
                    or self.lineWrapColumnOrWidth() != limit):
                self.setLineWrapMode(QTextBrowser.LineWrapMode.FixedPixelWidth)
                self.setLineWrapColumnOrWidth(limit)
        elif self.lineWrapMode() != QTextBrowser.LineWrapMode.WidgetWidth:
            self.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Keep the line length readable at every width."""
        super().resizeEvent(event)
        self.update_line_length()

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """A new font changes the line width."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self.update_line_length()

    # -- content -----------------------------------------------------------------------
    def set_content(self, html: str, abstract: str, keep_scroll: bool = False) -> None:
        """Show ``html`` whose first paragraph is ``abstract``.

        Args:
            html: from :func:`~paperdesk.ui.panes.paper_html.paper_body_html`.
            abstract: the abstract as shown (``paper_html.shown_abstract(paper.abstract)``:
                all of it, or the first ``ABSTRACT_SHOWN_CHARS`` of a very long one).
            keep_scroll: re-rendering the same paper: keep the scroll position, the
                caret and the selection. When ``html`` is what is shown already,
                nothing is done (laying out an abstract again took 5-15 ms of the UI
                thread at each star during an import).
        """
        if keep_scroll and html == self._shown_html and self._map is not None:
            return      # the same paper, its body unchanged (a star, a read mark, a tag)
        self._shown_html = html
        value = self.verticalScrollBar().value()
        old = self.textCursor()
        anchor, position = old.anchor(), old.position()
        self.setHtml(html)
        self._map = OffsetMap(abstract)
        self._block = self._find_block(abstract)
        if keep_scroll:   # the same paper again: keep the caret and the selection
            last = max(self.document().characterCount() - 1, 0)
            cursor = QTextCursor(self.document())
            cursor.setPosition(min(anchor, last))
            cursor.setPosition(min(position, last), QTextCursor.MoveMode.KeepAnchor)
            self.setTextCursor(cursor)
        self.verticalScrollBar().setValue(value if keep_scroll else 0)

    def clear_content(self) -> None:
        """Show nothing (the placeholder); caret mode ends."""
        self._map = None
        self._shown_html = None
        self._block = -1
        self.clear()
        self.set_caret_mode(False)

    def has_content(self) -> bool:
        """True while an abstract is shown (not the placeholder)."""
        return self._map is not None

    def _find_block(self, abstract: str) -> int:
        """Return the number of the block holding the abstract, or -1."""
        doc = self.document()
        first = doc.firstBlock()
        if first.isValid() and first.text() == abstract:
            return first.blockNumber()
        block = first
        while block.isValid():   # defensive: only if the HTML layout ever changes
            if block.text() == abstract:
                return block.blockNumber()
            block = block.next()
        return -1

    def abstract_block(self) -> QTextBlock | None:
        """Return the document block that holds the abstract, or ``None``."""
        if self._block < 0:
            return None
        block = self.document().findBlockByNumber(self._block)
        return block if block.isValid() else None

    # -- selection <-> offsets -----------------------------------------------------------
    def selected_span(self) -> tuple[int, int] | None:
        """Return the selection as abstract offsets.

        The selection is clipped to the abstract and white space at either end is left
        out.

        Returns:
            ``(start, end)`` Python string indices into the abstract (end exclusive), or
            ``None`` when nothing of the abstract is selected.
        """
        cursor = self.textCursor()
        block = self.abstract_block()
        if block is None or self._map is None or not cursor.hasSelection():
            return None
        base = block.position()
        lo = cursor.selectionStart() - base
        hi = cursor.selectionEnd() - base
        lo = max(lo, 0)
        hi = min(hi, self._map.utf16_length)
        if lo >= hi:
            return None
        start, end = self._map.to_index(lo), self._map.to_index(hi)
        text = self._map.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        return (start, end) if start < end else None

    def select_span(self, start: int, end: int) -> bool:
        """Select ``abstract[start:end]`` in the view (used by tests and for showing a
        highlight).

        Args:
            start: first character (Python index).
            end: one past the last.
        Returns:
            False if the abstract is not shown or the span is outside it.
        """
        block = self.abstract_block()
        if block is None or self._map is None or not 0 <= start < end <= len(self._map.text):
            return False
        cursor = QTextCursor(self.document())
        cursor.setPosition(block.position() + self._map.to_utf16(start))
        cursor.setPosition(block.position() + self._map.to_utf16(end),
                           QTextCursor.MoveMode.KeepAnchor)
        self.setTextCursor(cursor)
        return True

    def collapse_selection(self) -> None:
        """Drop the selection, leaving the caret at its end."""
        cursor = self.textCursor()
        if cursor.hasSelection():
            cursor.setPosition(cursor.selectionEnd())
            self.setTextCursor(cursor)

    # -- caret mode ------------------------------------------------------------------------
    def caret_mode(self) -> bool:
        """True while the keyboard caret is on (see :meth:`set_caret_mode`)."""
        return self._caret

    def set_caret_mode(self, on: bool) -> bool:
        """Turn the keyboard caret on or off.

        On: the view takes the focus, arrows move a visible caret, Shift+arrows and
        Ctrl+Shift+arrows select (by character / line, by word); a caret outside the
        abstract, or one that is not on screen, goes to the start of the abstract (a
        selection made with the mouse is kept). Off: keyboard selection stops; the
        selection stays. Emits :attr:`caretModeChanged` when the mode changes.

        Args:
            on: the new mode.
        Returns:
            The mode now in force (False when asked to turn it on with no abstract shown).
        """
        on = bool(on) and self.has_content()
        if on == self._caret:
            if on and not self.hasFocus():
                self.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return on
        self._caret = on
        flags = self.textInteractionFlags()
        keyboard = Qt.TextInteractionFlag.TextSelectableByKeyboard
        self.setTextInteractionFlags(flags | keyboard if on else flags & ~keyboard)
        self.setStyleSheet("QTextBrowser#abstractView { border: 2px solid palette(highlight); }"
                           if on else "")
        if on:
            self._place_caret()
            if not self.hasFocus():
                self.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.caretModeChanged.emit(on)
        return on

    def _place_caret(self) -> None:
        cursor = self.textCursor()
        block = self.abstract_block()
        if cursor.hasSelection() or block is None:
            return
        inside = block.position() <= cursor.position() <= block.position() + block.length()
        if not inside or not self.viewport().rect().intersects(self.cursorRect(cursor)):
            cursor.setPosition(block.position())
            self.setTextCursor(cursor)

    def event(self, event: QEvent) -> bool:
        """In caret mode the view keeps :data:`CARET_KEPT_KEYS` (without Ctrl, Alt or
        Meta) instead of letting them trigger the window's shortcuts."""
        if (self._caret and event.type() == QEvent.Type.ShortcutOverride
                and self._kept_key(event)):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """In caret mode j / k / u do nothing (they would move the list); Space and
        Shift+Space scroll; everything else as in a read-only text view."""
        if self._caret and self._kept_key(event) and event.key() != Qt.Key.Key_Space:
            event.accept()
            return
        super().keyPressEvent(event)

    @staticmethod
    def _kept_key(event: QKeyEvent) -> bool:
        mods = event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                    | Qt.KeyboardModifier.AltModifier
                                    | Qt.KeyboardModifier.MetaModifier)
        return event.key() in CARET_KEPT_KEYS and not mods

    def focusInEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Tab or Backtab into the view turns caret mode on."""
        super().focusInEvent(event)
        if event.reason() in (Qt.FocusReason.TabFocusReason,
                              Qt.FocusReason.BacktabFocusReason):
            self.set_caret_mode(True)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Leaving the view ends caret mode (a menu or another window does not)."""
        super().focusOutEvent(event)
        if self._caret and event.reason() not in _KEEP_CARET_REASONS:
            self.set_caret_mode(False)

    # -- links and menu ------------------------------------------------------------------
    @Slot(QUrl)
    def open_link(self, url: QUrl | str) -> bool:
        """Open a clicked link in the system browser if it is http(s) with a host.

        Args:
            url: the link target.
        Returns:
            True if it was handed to ``QDesktopServices.openUrl``; False if refused
            (any other scheme, e.g. ``javascript:`` or ``file:``, or no host).
        """
        url = QUrl(url) if isinstance(url, str) else url
        if is_safe_url(url):
            return open_safe_url(url)
        self.linkRefused.emit(url)
        return False

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 (Qt)
        """The standard menu (Copy, Select All) plus "Highlight Selection" in each
        highlight colour."""
        menu = self.createStandardContextMenu(event.pos())
        span = self.selected_span()
        menu.addSeparator()
        first = QAction("&Highlight Selection\tH", menu)
        first.setEnabled(span is not None)
        first.setIcon(swatch_icon(HIGHLIGHT_COLOURS[0], 12, False))
        first.triggered.connect(lambda: self._request(span, HIGHLIGHT_COLOURS[0]))
        menu.addAction(first)
        colours = QMenu("Highlight &in Colour", menu)
        colours.setEnabled(span is not None)
        for colour in HIGHLIGHT_COLOURS:
            action = colours.addAction(swatch_icon(colour, 12, False),
                                       HIGHLIGHT_COLOUR_NAMES.get(colour, colour))
            action.triggered.connect(lambda _=False, c=colour: self._request(span, c))
        menu.addMenu(colours)
        menu.exec(event.globalPos())
        menu.deleteLater()

    def _request(self, span, colour: str) -> None:
        if span is not None:
            self.highlightRequested.emit(span[0], span[1], colour)
