"""The read-only view of a paper's abstract (objectName ``abstractView``), with exact
mapping from a text selection to character offsets in ``paper.abstract``.

The HTML from :func:`paperdesk.ui.panes.paper_html.paper_body_html` makes the abstract the
document's first block, and links or highlight formatting never add or drop characters,
so a document position ``p`` inside that block is abstract offset ``p - block.position()``
— counted in UTF-16 code units, which :class:`OffsetMap` converts to Python string indices
(they differ only for characters outside the Basic Multilingual Plane). Nothing searches
for the selected text, so repeated words, Greek letters and text after links map exactly.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QEvent, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QContextMenuEvent, QTextBlock, QTextCursor
from PySide6.QtWidgets import QFrame, QMenu, QTextBrowser, QWidget

from paperdesk.core.edits.annotations import HIGHLIGHT_COLOURS
from paperdesk.ui.style.colours import swatch_icon
from paperdesk.ui.panes.links import is_safe_url, open_safe_url

__all__ = ["AbstractView", "OffsetMap", "HIGHLIGHT_COLOUR_NAMES", "LINE_CHARS"]

#: Longest line of the abstract, in average characters: lines of 60-75 characters are the
#: easiest to read, so a wide pane does not stretch them further.
LINE_CHARS = 72
#: A sample of English text for measuring the average character width of a font.
_SAMPLE = ("Generative foundation models are increasingly scaled in both width and depth, "
           "posing challenges for stable feature learning.")

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

    Signals:
        linkRefused(QUrl): a clicked link was not opened because of its scheme.
        highlightRequested(int, int, str): ``(start, end, colour)`` from the context menu.

    Args:
        parent: Qt parent.
    """

    linkRefused = Signal(QUrl)
    highlightRequested = Signal(int, int, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("abstractView")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.document().setDocumentMargin(14)
        self.anchorClicked.connect(self.open_link)
        self._map: OffsetMap | None = None
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
            abstract: the paper's abstract (``paper.abstract``).
            keep_scroll: keep the scroll position (re-rendering the same paper).
        """
        value = self.verticalScrollBar().value()
        self.setHtml(html)
        self._map = OffsetMap(abstract)
        self._block = self._find_block(abstract)
        self.verticalScrollBar().setValue(value if keep_scroll else 0)

    def clear_content(self) -> None:
        """Show nothing (the placeholder)."""
        self._map = None
        self._block = -1
        self.clear()

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
