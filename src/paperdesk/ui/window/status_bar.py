"""The window's status bar: a temporary message too long for one line wraps onto a
second (and third) line instead of being cut mid-word at the window's edge; a widget
that may give way (an edit's message) gets only the room the counts leave."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizeGrip, QStatusBar, QWidget

from paperdesk.ui.panes.elided_label import ElidedLabel

__all__ = ["WrappingStatusBar", "MAX_MESSAGE_LINES"]

#: A message longer than this many lines at the bar's width ends in "…" on the last.
MAX_MESSAGE_LINES = 3
_MARGIN = 6
#: ``QStatusBar``'s layout: room at the left, and between two widgets, px.
_LEFT, _SPACING = 2, 6


class WrappingStatusBar(QStatusBar):
    """A ``QStatusBar`` whose temporary messages (``showMessage``) wrap at word
    boundaries in the room left of the permanent widgets; the bar grows for such a
    message and shrinks back when it goes. Messages are plain text.

    Args:
        parent: the window, or ``None``.
    """

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._permanent: list[QWidget] = []
        self._kept: QLabel | None = None
        self._giving: QWidget | None = None
        self._giving_cap = 0
        self._line: ElidedLabel | None = None
        self._giving_least = 0
        self.messageChanged.connect(lambda _text: self._fit())

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802
        """Qt hook: as ``QStatusBar.addPermanentWidget``; remembered so that messages
        wrap in the room left of them."""
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def insertPermanentWidget(self, index: int, widget: QWidget,  # noqa: N802 (Qt)
                              stretch: int = 0) -> int:
        """Qt hook: as ``QStatusBar.insertPermanentWidget``; remembered as
        :meth:`addPermanentWidget` does. Returns the index it went to."""
        self._permanent.append(widget)
        return super().insertPermanentWidget(index, widget, stretch)

    def keep_whole(self, kept: QLabel, giving: QWidget, cap: int,
                   line: ElidedLabel | None = None, least: int = 0) -> None:
        """Give ``kept`` (a one-line label among the normal widgets, e.g. the counts)
        its whole text's width first; what the other shown permanent widgets leave goes
        to ``giving`` (a normal widget that can be narrow, e.g. an elided message), while
        it is shown, up to ``least`` px; then to ``line`` (a permanent, elided label such
        as an import's progress line) up to its text's width; then to ``giving`` up to
        ``cap`` px; then to ``line`` again up to its size hint (the room that keeps it
        from jumping as its text changes). ``giving`` and ``line`` get these as their
        maximum widths; refitted whenever the bar is resized or laid out again (a widget
        shown or hidden, a text changed) and by :meth:`refit`.

        Args:
            kept: the label whose text must not be cut.
            giving: the widget that gives way first beyond ``least`` (it should elide).
            cap: its widest, px.
            line: the permanent label that gives way next, or ``None``.
            least: the room ``giving`` gets before ``line``, px (enough for a few words).
        """
        self._kept, self._giving, self._giving_cap, self._line = kept, giving, cap, line
        self._giving_least = min(least, cap)
        self._share_room()

    def refit(self) -> None:
        """Share the room (:meth:`keep_whole`) and lay the bar out now, rather than at
        the next turn of the event loop (a busy window showed a longer count cut for up
        to 0.8 s)."""
        self._share_room()
        layout = self.layout()
        if layout is not None:
            layout.activate()

    def room_left(self, without: QWidget | None = None) -> int:
        """The width, px, that the normal widgets (left of the permanent ones) get once
        the shown permanent widgets but ``without`` have theirs (their size hints within
        their minimum and maximum widths; ``without`` only its spacing), as
        ``QStatusBar`` lays them out: 2 px at the left, 6 px between widgets and before
        the stretch that parts the two kinds, then the size grip (Qt's
        ``QStatusBar::reformat``)."""
        used = _LEFT + _SPACING         # the stretch between the two kinds is spaced too
        for widget in self._permanent:
            if widget.isVisibleTo(self):
                used += _SPACING
                if widget is not without:
                    hint = widget.sizeHint().width()
                    used += max(widget.minimumWidth(), min(hint, widget.maximumWidth()))
        grip = self.findChild(QSizeGrip)
        if grip is not None and grip.isVisibleTo(self):
            used += 1 + grip.sizeHint().width()
        return max(0, self.contentsRect().width() - used)

    def _share_room(self) -> None:
        if self._kept is None or self._giving is None:
            return
        kept, line = self._kept, self._line
        shown_line = line is not None and line.isVisibleTo(self)
        need = kept.sizeHint().width() + _SPACING if kept.isVisibleTo(self) else 0
        free = max(0, self.room_left(without=line if shown_line else None) - need)
        room = min(self._giving_least, free) if self._giving.isVisibleTo(self) else 0
        free -= room
        line_room = 0
        if shown_line:
            line_room = min(line.whole_width() + 2, free)
            free -= line_room
        extra = min(self._giving_cap - room, free)
        room += extra
        free -= extra
        if shown_line:
            line_room += max(0, min(line.sizeHint().width() - line_room, free))
            if line.maximumWidth() != line_room:
                line.setMaximumWidth(line_room)
        if self._giving.maximumWidth() != room:
            self._giving.setMaximumWidth(room)

    def event(self, event: QEvent) -> bool:
        """Qt hook: before the bar lays its widgets out again, the giving widget of
        :meth:`keep_whole` is refitted to the room."""
        if event.type() == QEvent.Type.LayoutRequest:
            self._share_room()
        return super().event(event)

    def message_rect(self) -> QRect:
        """Where a temporary message is drawn: from the left edge to the first shown
        permanent widget, in this widget's coordinates."""
        right = self.width()
        for widget in self._permanent:
            if widget.isVisible():
                right = min(right, widget.geometry().left())
        return QRect(_MARGIN, 0, max(10, right - 2 * _MARGIN), self.height())

    def message_lines(self) -> int:
        """How many lines the current message takes at the bar's width (0: none)."""
        text = self.currentMessage()
        if not text:
            return 0
        rect = self.message_rect()
        need = self.fontMetrics().boundingRect(
            QRect(0, 0, rect.width(), 10000), int(Qt.TextFlag.TextWordWrap), text).height()
        return max(1, -(-need // self.fontMetrics().lineSpacing()))

    def _fit(self) -> None:
        lines = min(self.message_lines(), MAX_MESSAGE_LINES)
        if lines > 1:
            self.setMinimumHeight(lines * self.fontMetrics().lineSpacing() + 6)
        else:
            self.setMinimumHeight(0)
        self.update()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt)
        """Qt hook: a new width may need more or fewer lines, and leaves another room
        to share (:meth:`keep_whole`)."""
        self._share_room()
        super().resizeEvent(event)
        if self.currentMessage():
            self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt)
        """Qt hook: a message that fits on one line is drawn by Qt; a longer one is
        drawn here, wrapped (the last allowed line elided)."""
        if self.message_lines() <= 1:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        rect = self.message_rect()
        text = self.currentMessage()
        metrics = self.fontMetrics()
        box = QRect(0, 0, rect.width(), 10000)
        if metrics.boundingRect(box, int(Qt.TextFlag.TextWordWrap), text).height() \
                > MAX_MESSAGE_LINES * metrics.lineSpacing():
            words = text.split()
            while words and metrics.boundingRect(
                    box, int(Qt.TextFlag.TextWordWrap), " ".join(words) + "…").height() \
                    > MAX_MESSAGE_LINES * metrics.lineSpacing():
                words.pop()
            text = " ".join(words) + "…"
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
                                   | Qt.TextFlag.TextWordWrap), text)
        painter.end()
