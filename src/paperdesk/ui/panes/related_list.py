"""The reading pane's "Related papers" section under the abstract: a header that folds
it, a one-line note ("Finding related papers…", "No words to compare in this paper"),
and the list (objectName ``relatedList``) of the papers most similar to the one shown.

Each row has two lines: the related paper's title, then its similarity (the cosine of
the two papers' tf-idf vectors over title and abstract, 0-1, see
:mod:`paperdesk.core.discover.related`) and the terms the two share most
("0.21 · shares: monocular, estimation, zero-shot"). Text is drawn as plain text. Enter
or a click on a row emits :attr:`RelatedList.openRequested`.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QRect, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QLabel, QListWidget,
                               QListWidgetItem, QPushButton, QSizePolicy, QStyle,
                               QStyledItemDelegate, QStyleOptionViewItem, QToolButton,
                               QVBoxLayout, QWidget)

from paperdesk.core.api import RelatedPaper
from paperdesk.core.text import bidi_visible
from paperdesk.ui.style.colours import reading_colours
from paperdesk.ui.style.formatting import tooltip_html

__all__ = ["RelatedList", "RelatedSection", "PaperIdRole", "ScoreRole", "SharedRole",
           "row_detail"]

#: Item data roles: the related paper's id, its score and its shared terms.
PaperIdRole = Qt.ItemDataRole.UserRole + 1
ScoreRole = Qt.ItemDataRole.UserRole + 2
SharedRole = Qt.ItemDataRole.UserRole + 3


def row_detail(paper: RelatedPaper) -> str:
    """The second line of a row: ``"0.21 · shares: monocular, estimation"``, and
    ``" · same authors: Wang, Li"`` when the two share authors, ``" · same venue:
    CVPR"`` when they share a venue."""
    text = f"{paper.score:.2f}"
    if paper.shared:
        text += " · shares: " + ", ".join(paper.shared)
    if paper.authors:
        text += " · same authors: " + ", ".join(paper.authors)
    if paper.venue:
        text += " · same venue: " + paper.venue
    return text


class _RowDelegate(QStyledItemDelegate):
    """Two lines per row: the title, then the score and shared terms (muted)."""

    PAD = 4

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        line = option.fontMetrics.height()
        return QSize(200, 2 * line + 2 * self.PAD + 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,  # noqa: D102
              index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        text = palette.color(QPalette.ColorRole.HighlightedText if selected
                             else QPalette.ColorRole.Text)
        muted = text if selected else reading_colours(palette).muted
        rect = option.rect.adjusted(8, self.PAD, -8, -self.PAD)
        metrics = option.fontMetrics
        line = metrics.height()
        painter.save()
        painter.setPen(text)
        title = metrics.elidedText(bidi_visible(str(index.data() or "")),
                                   Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(QRect(rect.left(), rect.top(), rect.width(), line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
                         | Qt.TextFlag.TextSingleLine, title)
        painter.setPen(muted)
        detail = metrics.elidedText(str(index.data(ScoreRole) or ""),
                                    Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(QRect(rect.left(), rect.top() + line + 2, rect.width(), line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
                         | Qt.TextFlag.TextSingleLine, detail)
        painter.restore()


class RelatedList(QListWidget):
    """The related papers (objectName ``relatedList``), most similar first.

    Item data: ``Qt.DisplayRole`` the title, :data:`PaperIdRole` the id,
    :data:`ScoreRole` the second line (:func:`row_detail`), :data:`SharedRole` the shared
    terms.

    Signals:
        openRequested(int): Enter, Return or a click on a row; the paper's id.
        tabbedOut(): Tab was pressed in the list (the pane moves on to the key terms).
    """

    openRequested = Signal(int)
    tabbedOut = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("relatedList")
        self.setItemDelegate(_RowDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setUniformItemSizes(True)
        self.setAlternatingRowColors(False)
        self.setMouseTracking(True)
        self.clicked.connect(self._on_clicked)
        self._papers: list[RelatedPaper] = []
        #: Tab emits :attr:`tabbedOut` instead of moving the focus along the chain.
        self.tab_out = False

    def set_papers(self, papers: Sequence[RelatedPaper]) -> None:
        """Show these papers (most similar first); no row is current (none is drawn
        selected) until the list gets the keyboard focus."""
        self.clear()
        self._papers = list(papers)
        for paper in self._papers:
            item = QListWidgetItem(paper.title or f"#{paper.id}")
            item.setData(PaperIdRole, paper.id)
            item.setData(ScoreRole, row_detail(paper))
            item.setData(SharedRole, list(paper.shared))
            item.setToolTip(tooltip_html(
                f"{paper.title}\n#{paper.id} · similarity {paper.score:.2f} (0 to 1: words, "
                f"meaning, titles, shared authors and venue once embedded, else "
                f"words)\n"
                f"shares: {', '.join(paper.shared) or '—'}\n"
                + (f"same authors: {', '.join(paper.authors)}\n" if paper.authors else "")
                + (f"same venue: {paper.venue}\n" if paper.venue else "")
                + "Enter or a click opens it; Alt+Left comes back"))
            self.addItem(item)

    def papers(self) -> list[RelatedPaper]:
        """The papers listed, in order."""
        return list(self._papers)

    def paper_ids(self) -> list[int]:
        """The ids listed, in order."""
        return [p.id for p in self._papers]

    def focusInEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Coming into the list makes its first row current (if none is)."""
        super().focusInEvent(event)
        if self.currentRow() < 0 and self.count():
            self.setCurrentRow(0)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """Enter or Return opens the current row's paper."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            item = self.currentItem()
            if item is not None:
                self._open_later(int(item.data(PaperIdRole)))
            return
        super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 (Qt)
        """Tab moves on to the key terms (:attr:`tabbedOut`); Shift+Tab as usual."""
        if next and self.tab_out:
            self.tabbedOut.emit()
            return True
        return super().focusNextPrevChild(next)

    @Slot(QModelIndex)
    def _on_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self._open_later(int(index.data(PaperIdRole)))

    def _open_later(self, paper_id: int) -> None:
        # After this event: opening the paper refills this list, and deleting the items
        # inside the list's own key or mouse handler would crash Qt.
        QTimer.singleShot(0, self, lambda: self.openRequested.emit(paper_id))


class RelatedSection(QWidget):
    """"Related papers" (objectName ``relatedSection``): a header button that folds the
    list, a note line (objectName ``relatedNote``) and the :class:`RelatedList`.

    Signals:
        openRequested(int): a related paper to open.
        buildRequested(): the note's "Find related papers" button (after a cancel or a
            failure) was clicked.
        unfolded(): the list was unfolded (its header clicked, or :meth:`unfold`).
    """

    openRequested = Signal(int)
    buildRequested = Signal()
    unfolded = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("relatedSection")
        self.toggle = QToolButton()
        self.toggle.setObjectName("relatedToggle")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggle.setStyleSheet("QToolButton { font-weight: 600; border: none; "
                                  "padding: 1px 2px; }")
        self.toggle.setToolTip("Show or fold the related papers (L goes to them)")
        self.toggle.toggled.connect(self._on_toggled)
        self.hint = QLabel("similarity · L")
        self.hint.setObjectName("relatedHint")
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
        self.hint.setToolTip("Similarity, 0 to 1: once the papers are embedded, the hybrid "
                             "of their tf-idf cosine over title and abstract, their "
                             "embeddings' cosine, their titles' cosine, their shared "
                             "authors and venue; before, the "
                             "tf-idf cosine alone. L moves here, ↑/↓ choose, Enter opens, "
                             "Alt+Left goes back, Esc returns to the list")
        self.note = QLabel()
        self.note.setObjectName("relatedNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.build_button = QPushButton("Find related papers")
        self.build_button.setObjectName("relatedBuildButton")
        self.build_button.setFlat(True)
        self.build_button.setToolTip("Build the word table the related papers, key terms "
                                     "and tag suggestions come from")
        self.build_button.clicked.connect(self.buildRequested)
        self.build_button.hide()
        self.list = RelatedList()
        self.list.openRequested.connect(self.openRequested)
        # Any height down to none: a small window keeps room for the header and abstract.
        self.list.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)

        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.toggle)
        head.addStretch(1)
        head.addWidget(self.hint)
        note_row = QHBoxLayout()
        note_row.setContentsMargins(4, 0, 0, 0)
        note_row.addWidget(self.note, 1)
        note_row.addWidget(self.build_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 2, 14, 4)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addLayout(note_row)
        layout.addWidget(self.list, 1)
        self._count: int | None = None
        # The reading splitter may give it any height, down to none: in a small window
        # the header, the abstract and the note keep their room (drag it back, or L).
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self._update_title()
        self.refresh_style()

    def refresh_style(self) -> None:
        """Take the muted colour from the palette again (light/dark)."""
        muted = reading_colours(self.palette()).muted
        self.hint.setStyleSheet(f"color: {muted};")
        self.note.setStyleSheet(f"color: {muted};")

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Follow palette changes."""
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.refresh_style()

    def _update_title(self) -> None:
        arrow = "▾" if self.toggle.isChecked() else "▸"
        count = f" ({self._count:,})" if self._count else ""
        self.toggle.setText(f"{arrow} Related papers{count}")

    @Slot(bool)
    def _on_toggled(self, shown: bool) -> None:
        self.list.setVisible(shown and bool(self._count))
        self.note.setVisible(shown and bool(self.note.text()))
        self._update_title()
        if shown:
            self.unfolded.emit()

    def fold(self) -> None:
        """Fold the list away (the header line stays)."""
        self.toggle.setChecked(False)

    def folded_height(self) -> int:
        """The height of the header line alone, in pixels."""
        margins = self.layout().contentsMargins()
        return self.toggle.sizeHint().height() + margins.top() + margins.bottom()

    def is_folded(self) -> bool:
        """True while the list is folded away."""
        return not self.toggle.isChecked()

    def unfold(self) -> None:
        """Show the list if it is folded."""
        self.toggle.setChecked(True)

    def set_papers(self, papers: Sequence[RelatedPaper], note: str = "") -> None:
        """Show related papers (or none, with ``note`` saying why).

        Args:
            papers: most similar first.
            note: one line shown above the list ("" for none).
        """
        self.list.set_papers(papers)
        self._count = len(papers)
        self.set_note(note or ("" if papers else "No similar papers"))
        self.list.setVisible(self.toggle.isChecked() and bool(papers))
        self._update_title()

    def set_note(self, text: str, offer_build: bool = False) -> None:
        """Show a one-line note (plain text), and the "Find related papers" button."""
        self.note.setText(text)
        self.note.setVisible(bool(text) and self.toggle.isChecked())
        self.build_button.setVisible(offer_build)

    def show_waiting(self, text: str = "Finding related papers…") -> None:
        """Clear the list and say that the answer is on its way."""
        self.list.set_papers([])
        self._count = None
        self.set_note(text)
        self._update_title()
