"""The right-hand pane: one paper with its annotations.

From top to bottom: the title (at most :data:`MAX_TITLE_LINES` lines, a longer one ends
in "…" with the whole title in its tooltip; double-click or F2 to edit; the derived title
stays as a fallback), the byline (the paper's own authors, date and venue, or a hint that they are
not set), the added date with the star and read toggles and the title and metadata
editors' buttons (F2, M; they flow onto more lines in a narrow pane or at a large font,
so none is cut), the tag chips with
the tag editor and the suggested tags (Alt+1 … Alt+3), the key terms (one line: a click
or Enter searches for one), the abstract (then the paper's own citation metadata, the
links and ids the abstract mentions, and the source files), the highlights, the related
papers (a section that folds; Enter or a click opens one), and the note editor.

Related papers, key terms and suggestions are computed by the window off the UI thread
(:mod:`paperdesk.ui.window.discover_commands`); the pane says which paper it shows
(:attr:`DetailPane.paperChanged`) and shows the answer (:meth:`DetailPane.show_discover`).

The pane only displays and reports: every change is a signal that the window turns into
an undoable command, after which it calls :meth:`DetailPane.show_paper` again.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QSizePolicy, QSplitter,
                               QToolButton, QVBoxLayout, QWidget)

from paperdesk.core.models import Paper
from paperdesk.core.api import MatchTerms
from paperdesk.core.tex_math import readable_math
from paperdesk.ui.panes.abstract_view import AbstractView
from paperdesk.ui.panes.discover_chips import KeyTermBar
from paperdesk.ui.panes.related_list import RelatedSection
from paperdesk.ui.style.colours import reading_colours
from paperdesk.ui.style.formatting import local_datetime, tooltip_html
from paperdesk.ui.style.text_fit import wrapped_cut
from paperdesk.ui.panes.elided_label import ElidedLabel
from paperdesk.ui.panes.flow_layout import FlowLayout
from paperdesk.ui.panes.highlight_list import HighlightList
from paperdesk.ui.panes.links import SAFE_SCHEMES
from paperdesk.ui.panes.note_editor import NoteEditor
from paperdesk.ui.panes.paper_html import (NO_METADATA_HINT, NO_TITLE, HtmlColours, byline,
                                           listed_authors, paper_body_html, shown_abstract,
                                           title_html)
from paperdesk.ui.panes.tag_chips import TagChipBar
from paperdesk.ui.panes.wrapping_label import WrappingLabel

__all__ = ["DetailPane", "PLACEHOLDER", "SAFE_SCHEMES"]

PLACEHOLDER = "Select a paper to read its abstract"
#: The title's size relative to the reading font.
TITLE_SCALE = 1.3
#: A longer title ends in "…" on its last line; the tooltip shows it whole.
MAX_TITLE_LINES = 3
#: The most characters of a title its tooltip shows (then "…"): a tooltip of a
#: 200,000-character title covered the screen.
TIP_TITLE_CHARS = 1_000


def _tip_cut(title: str) -> str:
    """``title`` up to :data:`TIP_TITLE_CHARS` characters, with "…" when cut."""
    return title if len(title) <= TIP_TITLE_CHARS else title[:TIP_TITLE_CHARS] + "…"


#: Height of the note editor at first show, in pixels.
NOTE_HEIGHT = 170
#: Height of the related papers section at first show (at most 40 % of the part above
#: the note), in pixels.
RELATED_HEIGHT = 170
#: In a reading pane lower than this (pixels), the related papers start folded to their
#: header line (L or a click on it unfolds them).
FOLD_BELOW = 640


class DetailPane(QWidget):
    """One paper, read and annotated (objectName ``detailPane``).

    Children by objectName: ``titleLabel``, ``titleEditor``, ``bylineLabel``,
    ``starButton``, ``readButton``, ``editMetadataButton``, ``tagChipBar`` with
    ``tagEditor`` and ``tagSuggestionChip`` s, ``keyTermBar`` with ``keyTermChip`` s,
    ``abstractView``, ``highlightList``, ``relatedSection`` with ``relatedList``,
    ``noteEditor``.

    Signals:
        starToggled(): the star button was clicked.
        readToggled(): the read button was clicked.
        titleEdited(object): a new title (str), or ``None`` for the derived title.
        tagAddRequested(str): a tag name typed into the tag editor.
        tagRemoveRequested(str): a chip's × was clicked; the tag's name.
        editingCancelled(): Esc in the tag or title editor.
        highlightRequested(int, int, str): ``(start, end, colour)`` from the abstract's
            context menu.
        highlightRemoveRequested(int): a highlight id to remove.
        highlightCommentRequested(int): a highlight id whose comment to edit.
        noteSaveRequested(int, str, int): ``(paper_id, body, session)`` to store.
        noteAddRequested(int, str): ``(paper_id, typed)``: text typed for a paper that was
            never shown, to add after its stored note
            (:attr:`NoteEditor.addRequested`).
        linkRefused(QUrl): a clicked link was refused because of its scheme.
        metadataEditRequested(): the "Metadata" button was clicked.
        paperChanged(object): another paper is shown (its id), or none (``None``).
        relatedOpenRequested(int): a related paper was chosen (Enter or a click).
        relatedBuildRequested(): "Find related papers" (after a cancelled build).
        termSearchRequested(str): a key-term chip was chosen; the term.
        suggestionAccepted(int): a suggestion chip was clicked; its 0-based position.
    """

    starToggled = Signal()
    readToggled = Signal()
    titleEdited = Signal(object)
    tagAddRequested = Signal(str)
    tagRemoveRequested = Signal(str)
    editingCancelled = Signal()
    highlightRequested = Signal(int, int, str)
    highlightRemoveRequested = Signal(int)
    highlightCommentRequested = Signal(int)
    noteSaveRequested = Signal(int, str, int)
    noteAddRequested = Signal(int, str)
    linkRefused = Signal(QUrl)
    metadataEditRequested = Signal()
    paperChanged = Signal(object)
    relatedOpenRequested = Signal(int)
    relatedBuildRequested = Signal()
    termSearchRequested = Signal(str)
    suggestionAccepted = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("detailPane")
        self._paper: Paper | None = None
        self._terms: MatchTerms | None = None
        self._title_cancelled = False
        self._colours: HtmlColours = reading_colours(self.palette())
        self._font_size: float | None = None
        self._build()
        self._apply_colours()
        self.clear_paper()

    # -- construction --------------------------------------------------------------------
    def _build(self) -> None:
        self.title_label = QLabel()
        self.title_label.setObjectName("titleLabel")
        self.title_label.setWordWrap(True)
        self.title_label.setTextFormat(Qt.TextFormat.RichText)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self._title_font()
        self.title_label.setFont(font)
        self.title_label.setSizePolicy(QSizePolicy.Policy.Preferred,
                                       QSizePolicy.Policy.Minimum)
        self.title_label.installEventFilter(self)
        self.title_editor = QLineEdit()
        self.title_editor.setObjectName("titleEditor")
        self.title_editor.setFont(font)
        self.title_editor.setPlaceholderText("Leave empty to use the title from the abstract")
        self.title_editor.hide()
        self.title_editor.installEventFilter(self)
        self.title_editor.editingFinished.connect(self._commit_title)

        self.byline_label = QLabel()
        self.byline_label.setObjectName("bylineLabel")
        self.byline_label.setTextFormat(Qt.TextFormat.PlainText)   # text from files
        self.byline_label.setWordWrap(True)
        self.byline_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)

        self.meta_label = WrappingLabel()   # a narrow pane wraps it instead of cutting it
        self.meta_label.setObjectName("metaLabel")
        self.star_button = self._tool_button("starButton", "☆ Star", "Star this paper (S)")
        self.star_button.clicked.connect(self.starToggled)
        self.read_button = self._tool_button("readButton", "Mark read", "Mark read (R)")
        self.read_button.clicked.connect(self.readToggled)
        self.title_button = self._tool_button("editTitleButton", "✎ Title",
                                              "Edit the title (F2)")
        self.title_button.clicked.connect(self.edit_title)
        self.reset_title_button = self._tool_button(
            "resetTitleButton", "↺",
            "Go back to the title from the file, else the one derived from the abstract")
        self.reset_title_button.clicked.connect(lambda: self.titleEdited.emit(None))
        self.metadata_button = self._tool_button(
            "editMetadataButton", "✎ Metadata",
            "Edit the authors, year, venue, DOI, arXiv id, URL and citation key (M)")
        self.metadata_button.clicked.connect(self.metadataEditRequested)
        # The added/read line and the buttons flow onto more lines in a narrow pane or
        # at a large font, so no label or button is ever cut.
        meta_row = FlowLayout(spacing=4)
        meta_row.addWidget(self.meta_label)
        for button in (self.star_button, self.read_button, self.title_button,
                       self.reset_title_button, self.metadata_button):
            meta_row.addWidget(button)

        self.chips = TagChipBar()
        self.chips.addRequested.connect(self.tagAddRequested)
        self.chips.removeRequested.connect(self.tagRemoveRequested)
        self.chips.editingCancelled.connect(self.editingCancelled)
        self.chips.suggestionAccepted.connect(self.suggestionAccepted)
        self.key_terms = KeyTermBar()
        self.key_terms.termChosen.connect(self.termSearchRequested)
        self.key_terms.hide()

        self.header = QWidget()
        self.header.setObjectName("detailHeader")
        head = QVBoxLayout(self.header)
        head.setContentsMargins(14, 12, 14, 6)
        head.setSpacing(6)
        head.addWidget(self.title_label)
        head.addWidget(self.title_editor)
        head.addWidget(self.byline_label)
        head.addLayout(meta_row)
        head.addWidget(self.chips)
        head.addWidget(self.key_terms)

        self.abstract_view = AbstractView()
        self.abstract_view.setPlaceholderText(PLACEHOLDER)
        self.abstract_view.linkRefused.connect(self.linkRefused)
        self.abstract_view.highlightRequested.connect(self.highlightRequested)
        self.highlights_label = QLabel()
        self.highlights_label.setObjectName("highlightsLabel")
        self.highlights = HighlightList()
        self.highlights.removeRequested.connect(self.highlightRemoveRequested)
        self.highlights.commentRequested.connect(self.highlightCommentRequested)
        self.highlights.highlightChosen.connect(self._show_highlight)
        self.highlights.setMaximumHeight(118)
        reading = QWidget()
        read_layout = QVBoxLayout(reading)
        read_layout.setContentsMargins(0, 0, 0, 0)
        read_layout.setSpacing(2)
        read_layout.addWidget(self.abstract_view, 1)
        hl_box = QVBoxLayout()
        hl_box.setContentsMargins(14, 0, 14, 4)
        hl_box.setSpacing(2)
        hl_box.addWidget(self.highlights_label)
        hl_box.addWidget(self.highlights)
        read_layout.addLayout(hl_box)
        self.related = RelatedSection()
        self.related.openRequested.connect(self.relatedOpenRequested)
        self.related.unfolded.connect(self._room_for_related)
        self.related.buildRequested.connect(self.relatedBuildRequested)
        self.related_list = self.related.list
        self.related_list.tab_out = True
        self.related_list.tabbedOut.connect(self.key_terms.focus_first)
        self.key_terms.tabbedOut.connect(
            lambda _forward: self.related_list.setFocus(Qt.FocusReason.TabFocusReason))
        self.reading_splitter = QSplitter(Qt.Orientation.Vertical)
        self.reading_splitter.setObjectName("readingSplitter")
        self.reading_splitter.addWidget(reading)
        self.reading_splitter.addWidget(self.related)
        self.reading_splitter.setStretchFactor(0, 1)
        self.reading_splitter.setStretchFactor(1, 0)
        self.reading_splitter.setCollapsible(0, False)
        self._discover_pid: int | None = None

        self.note_editor = NoteEditor()
        self.note_editor.saveRequested.connect(self.noteSaveRequested)
        self.note_editor.addRequested.connect(self.noteAddRequested)
        note_label = QLabel("Note")
        note_label.setStyleSheet("font-weight: 600;")
        # One line; a narrow pane ends it in "…" with the whole hint in the tooltip.
        self.note_hint = ElidedLabel("Markdown · saved automatically · Ctrl+click opens a link")
        self.note_hint.setObjectName("noteHint")
        self.note_hint.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.note_hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        note_head = QHBoxLayout()
        note_head.addWidget(note_label)
        note_head.addWidget(self.note_hint, 1)
        self.note_section = QWidget()
        self.note_section.setObjectName("noteSection")
        note_layout = QVBoxLayout(self.note_section)
        note_layout.setContentsMargins(14, 6, 14, 8)
        note_layout.setSpacing(4)
        note_layout.addLayout(note_head)
        note_layout.addWidget(self.note_editor, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("detailSplitter")
        self.splitter.addWidget(self.reading_splitter)
        self.splitter.addWidget(self.note_section)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(0, False)
        self._sized = False
        self._sizes_pending: list[int] | None = None    # see set_splitter_sizes
        self._inner_sized = False

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.splitter, 1)

    @staticmethod
    def _tool_button(name: str, text: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setObjectName(name)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        return button

    # -- showing a paper -----------------------------------------------------------------
    @property
    def paper_id(self) -> int | None:
        """The id of the paper shown, or ``None``."""
        return self._paper.id if self._paper is not None else None

    @property
    def paper(self) -> Paper | None:
        """The paper shown (as last passed to :meth:`show_paper`), or ``None``."""
        return self._paper

    def show_paper(self, paper: Paper, terms: MatchTerms | None = None,
                   reload_note: bool = True) -> None:
        """Show ``paper``, marking every search hit in its title, abstract and note.

        Showing the paper that is already shown refreshes it in place: the abstract keeps
        its scroll position, caret and selection (a selection that has just become a
        highlight gives way to it, the caret staying at its end), and the note editor keeps its text unless ``reload_note``
        (then it shows the stored note, e.g. after an undo). Showing another paper loads
        its note; call ``note_editor.flush()`` first so the old note is saved.

        Args:
            paper: from ``lib.papers.get``.
            terms: what the active search matched (``lib.search.match_terms(query)``), or
                ``None`` when no search is shown.
            reload_note: for the same paper, replace the editor's text with
                ``paper.note``.
        """
        same = self._paper is not None and self._paper.id == paper.id
        known = {(h.start, h.end) for h in self._paper.highlights} if same else set()
        self._paper = paper
        self._terms = terms or None
        self.header.show()
        self.note_section.show()
        if self._sizes_pending is not None:
            sizes, self._sizes_pending = self._sizes_pending, None
            self.splitter.setSizes(sizes)
        self.related.show()
        self._show_header(paper)
        self.chips.set_tags(paper.tags)
        self.abstract_view.set_content(paper_body_html(paper, self._terms, self._colours),
                                       shown_abstract(paper.abstract), keep_scroll=same)
        if same and self.abstract_view.selected_span() in (
                {(h.start, h.end) for h in paper.highlights} - known):
            self.abstract_view.collapse_selection()   # let the new highlight show
        self._show_highlights(paper)
        if not same:
            self.cancel_title_edit()
            self.note_editor.load(paper.id, paper.note)
            self._discover_stale()
            self.paperChanged.emit(paper.id)
        elif reload_note:
            if self.note_editor.paper_id == paper.id:
                self.note_editor.show_saved_text(paper.note)
            else:   # the editor was left for a paper on its way (n): its note again
                self.note_editor.load(paper.id, paper.note)
        self.note_editor.set_match_terms(self._terms)

    @property
    def match_terms(self) -> MatchTerms | None:
        """What the shown search hits are (as last given), or ``None``."""
        return self._terms

    def set_match_terms(self, terms: MatchTerms | None) -> None:
        """Mark the hits of another search in the shown paper (if they changed).

        Args:
            terms: from ``lib.search.match_terms(query)``, or ``None`` for no search.
        """
        terms = terms or None
        if self._paper is not None and terms != self._terms:
            self._terms = terms
            self._fit_title()
            self.abstract_view.set_content(paper_body_html(self._paper, terms, self._colours),
                                           shown_abstract(self._paper.abstract),
                                           keep_scroll=True)
            self.note_editor.set_match_terms(terms)

    def clear_paper(self, message: str = PLACEHOLDER) -> None:
        """Show nothing but a grey hint.

        Args:
            message: the hint, e.g. :data:`PLACEHOLDER` or "No papers match".
        """
        self._paper = None
        self._terms = None
        self.cancel_title_edit()
        self.note_editor.set_match_terms(None)
        self.note_editor.unload()
        self.chips.set_tags([])
        self.highlights.set_highlights([])
        self.header.hide()
        self.note_section.hide()
        self.related.hide()
        self.clear_discover()
        self.highlights.hide()
        self.highlights_label.hide()
        self.abstract_view.setPlaceholderText(message)
        self.abstract_view.clear_content()
        self.paperChanged.emit(None)

    def _show_header(self, paper: Paper) -> None:
        self._fit_title()
        meta = f"Added {local_datetime(paper.added_at)}  ·  #{paper.id}"
        if paper.read_at:
            meta += f"  ·  read {local_datetime(paper.read_at)}"
        else:
            meta += "  ·  unread"
        if paper.title_edited:
            meta += "  ·  title edited"
        self.meta_label.setText(meta)
        line = byline(paper.metadata)
        self.byline_label.setText(line or NO_METADATA_HINT)
        self.byline_label.setStyleSheet("" if line else f"color: {self._colours.muted};")
        names = listed_authors(paper.metadata)
        self.byline_label.setToolTip(tooltip_html(
            (names + "\n" if names else "") + "M edits the metadata"))
        self.star_button.setText("★ Starred" if paper.starred else "☆ Star")
        self.star_button.setToolTip("Unstar (S)" if paper.starred else "Star this paper (S)")
        self.star_button.setStyleSheet(
            f"QToolButton {{ color: {self._colours.star}; font-weight: 600; }}"
            if paper.starred else "")
        self.read_button.setText("Mark unread" if paper.read else "Mark read")
        self.read_button.setToolTip("Mark unread (R)" if paper.read else "Mark read (R)")
        self.reset_title_button.setVisible(paper.title_edited)

    def _fit_title(self) -> None:
        """Show the title whole, or cut to :data:`MAX_TITLE_LINES` lines at the label's
        width with "…" and the whole title in the tooltip (again after every resize)."""
        paper = self._paper
        if paper is None:
            return
        shown = readable_math(paper.title) or NO_TITLE     # TeX maths as "D → 4"
        cut = wrapped_cut(shown, self.title_label.font(),
                          self.title_label.contentsRect().width(), MAX_TITLE_LINES)
        text = title_html(shown, self._terms if paper.title else None, self._colours,
                          end=cut, breaks=True)
        tip = "Double-click or press F2 to edit the title"
        if cut is not None:
            tip = f"{_tip_cut(shown)}\n\n{tip}"
        if shown != paper.title and paper.title:
            tip += f"\nAs written (TeX): {_tip_cut(paper.title)}"
        if paper.title_edited:
            source = "the file" if paper.file_title else "the abstract"
            tip += f"\nTitle from {source}: {_tip_cut(paper.base_title)}"
        if text != self.title_label.text():
            self.title_label.setText(text)
        self.title_label.setToolTip(tooltip_html(tip))

    @property
    def title_elided(self) -> bool:
        """Whether the shown title is cut short (it ends in "…"; the tooltip has it all)."""
        return self._paper is not None and wrapped_cut(
            readable_math(self._paper.title), self.title_label.font(),
            self.title_label.contentsRect().width(), MAX_TITLE_LINES) is not None

    def _show_highlights(self, paper: Paper) -> None:
        self.highlights.set_highlights(paper.highlights)
        n = len(paper.highlights)
        self.highlights_label.setText(f"Highlights ({n})")
        self.highlights_label.setToolTip("Select text in the abstract (with the mouse, or F7 "
                                         "and Shift+arrows) and press H to add one; Del "
                                         "removes the chosen one, double-click edits its "
                                         "comment")
        self.highlights.setVisible(n > 0)
        self.highlights_label.setVisible(n > 0)
        if n:
            row = self.highlights.sizeHintForRow(0)
            if row <= 0:
                row = self.fontMetrics().height() + 8
            self.highlights.setFixedHeight(min(n, 4) * row + 4)

    @Slot(int)
    def _show_highlight(self, highlight_id: int) -> None:
        if self._paper is None:
            return
        for h in self._paper.highlights:
            if h.id == highlight_id:
                self.abstract_view.select_span(h.start, h.end)
                self.abstract_view.ensureCursorVisible()
                return

    # -- related papers, key terms, tag suggestions ------------------------------------------
    @property
    def discover_paper_id(self) -> int | None:
        """The paper the related papers, key terms and suggestions shown are about
        (``None`` while none are shown, or while those of the paper before are waiting
        to be replaced)."""
        return self._discover_pid

    def _discover_stale(self) -> None:
        """Another paper is shown: its answer is on its way. The chips stay (disabled)
        so that the header does not jump; the list says it is looking."""
        self._discover_pid = None
        for chip in self.key_terms.chips() + self.chips.suggestion_chips():
            chip.setEnabled(False)
        self.related.show_waiting()

    def show_discover(self, answer) -> None:
        """Show what the window found about the shown paper.

        Args:
            answer: a :class:`~paperdesk.ui.background.discover_runner.DiscoverAnswer`
                for :attr:`paper_id` (others are ignored): its state ``ready`` fills the
                list and the chips; ``no terms`` says "No words to compare in this
                paper".
        """
        from paperdesk.ui.background.discover_runner import NO_TERMS, READY

        if self._paper is None or answer.paper_id != self._paper.id:
            return
        self._discover_pid = answer.paper_id
        if answer.state == READY:
            self.related.set_papers(answer.related)
            self.key_terms.set_terms(answer.terms)
            self.chips.set_suggestions(answer.suggestions)
        else:
            self.key_terms.set_terms([])
            self.chips.set_suggestions([])
            self.related.set_papers([], "No words to compare in this paper"
                                    if answer.state == NO_TERMS
                                    else "This paper is no longer in the library")

    def show_discover_note(self, text: str, offer_build: bool = False) -> None:
        """Say why there are no related papers yet (e.g. "Finding related papers: the
        word table is being built…"), optionally with a "Find related papers" button."""
        self.related.show_waiting(text)
        self.related.set_note(text, offer_build)

    def clear_discover(self) -> None:
        """Show no related papers, key terms or suggestions."""
        self._discover_pid = None
        self.key_terms.set_terms([])
        self.chips.set_suggestions([])
        self.related.set_papers([], "")

    def focus_related(self) -> bool:
        """Put the keyboard focus in the related list (unfolded, the first row current).
        Returns False when no paper or no related paper is shown."""
        if self._paper is None or not self.related.list.count():
            return False
        self.related.unfold()
        self._room_for_related()
        lst = self.related.list
        if lst.currentRow() < 0:
            lst.setCurrentRow(0)
        lst.setFocus(Qt.FocusReason.ShortcutFocusReason)
        return True

    def _room_for_related(self) -> None:
        """Give the unfolded related list room for about three rows (at most 60 % of
        the part above the note)."""
        sizes = self.reading_splitter.sizes()
        row = self.related.list.sizeHintForRow(0)
        if row <= 0:
            row = 2 * self.fontMetrics().height() + 10
        wanted = min(3 * row + self.related.folded_height() + 10, int(sum(sizes) * 0.6))
        if len(sizes) == 2 and sizes[1] < wanted:
            self.reading_splitter.setSizes([sum(sizes) - wanted, wanted])

    # -- colours and reading font ---------------------------------------------------------
    @property
    def colours(self) -> HtmlColours:
        """The colours in use (from :func:`~paperdesk.ui.style.colours.reading_colours` for
        this pane's palette)."""
        return self._colours

    def _apply_colours(self) -> None:
        muted = f"color: {self._colours.muted};"
        self.meta_label.setStyleSheet(muted)
        self.highlights_label.setStyleSheet(f"{muted} font-weight: 600;")
        self.note_hint.setStyleSheet(muted)
        self.note_editor.set_mark_colours(self._colours)

    def refresh_colours(self) -> None:
        """Take the colours from the palette again (after a light/dark switch) and
        re-render the shown paper with them."""
        colours = reading_colours(self.palette())
        if colours == self._colours:
            return
        self._colours = colours
        self._apply_colours()
        if self._paper is not None:
            self._show_header(self._paper)
            self.abstract_view.set_content(
                paper_body_html(self._paper, self._terms, self._colours),
                shown_abstract(self._paper.abstract), keep_scroll=True)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt)
        """Follow palette changes (light/dark appearance)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.refresh_colours()

    def _title_font(self) -> QFont:
        font = QFont(self.font())
        base = self._font_size or font.pointSizeF()
        font.setPointSizeF(base * TITLE_SCALE)
        font.setWeight(QFont.Weight.DemiBold)
        return font

    def font_size(self) -> float:
        """The reading font size in points (the abstract's, the note's; the title is
        :data:`TITLE_SCALE` times larger)."""
        return self._font_size or self.font().pointSizeF()

    def set_font_size(self, points: float | None) -> None:
        """Set the reading font size of the abstract, title, highlights and note.

        Args:
            points: size in points, or ``None`` for the pane's default font size.
        """
        self._font_size = points
        font = QFont(self.font())
        if points:
            font.setPointSizeF(points)
        for widget in (self.abstract_view, self.note_editor, self.highlights):
            widget.setFont(font)
        title = self._title_font()
        self.title_label.setFont(title)
        self.title_editor.setFont(title)
        self.abstract_view.update_line_length()
        if self._paper is not None:
            self._fit_title()
            self._show_highlights(self._paper)

    # -- editing helpers -----------------------------------------------------------------
    def set_tag_names(self, names: Sequence[str]) -> None:
        """Set the completions offered by the tag editor (every tag's name)."""
        self.chips.set_completions(names)

    def set_selection_size(self, n: int) -> None:
        """Tell the tag editor how many papers a new tag will go to."""
        self.chips.set_target_count(n)

    def focus_tag_editor(self) -> bool:
        """Put the keyboard focus in the tag editor. Returns False if no paper is shown."""
        if self._paper is None:
            return False
        self.chips.editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.chips.editor.selectAll()
        return True

    def focus_note(self, coming: int | None = None) -> bool:
        """Put the keyboard focus at the end of the note.

        Args:
            coming: the paper on its way from the reader thread (the list's current
                row), if any: the note is cleared and what is typed goes to that paper
                once it is shown (:meth:`NoteEditor.expect`), never to the paper shown
                before.
        Returns:
            False when no paper is shown or coming.
        """
        if coming is not None and coming != (self._paper.id if self._paper else None):
            self.note_editor.expect(coming)
        elif self._paper is None:
            return False
        self.note_editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.note_editor.moveCursor(self.note_editor.textCursor().MoveOperation.End)
        return True

    @Slot()
    def edit_title(self) -> bool:
        """Show the title editor with the current title selected. Returns False without
        a paper."""
        if self._paper is None:
            return False
        self._title_cancelled = False
        self.title_editor.setText(self._paper.title)
        self.title_label.hide()
        self.title_editor.show()
        self.title_editor.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.title_editor.selectAll()
        return True

    def is_editing_title(self) -> bool:
        """Return True while the title editor is open."""
        return self.title_editor.isVisible()

    def cancel_title_edit(self) -> None:
        """Close the title editor without saving."""
        self._title_cancelled = True
        self.title_editor.hide()
        self.title_label.show()

    @Slot()
    def _commit_title(self) -> None:
        if self._title_cancelled or not self.title_editor.isVisible() or self._paper is None:
            return
        text = " ".join(self.title_editor.text().split())
        self.cancel_title_edit()
        if text != self._paper.title:
            self.titleEdited.emit(text or None)

    def scroll_abstract(self, pages: float = 1.0) -> None:
        """Scroll the abstract by ``pages`` screens (negative scrolls back)."""
        bar = self.abstract_view.verticalScrollBar()
        bar.setValue(bar.value() + int(pages * bar.pageStep()))

    def selected_span(self) -> tuple[int, int] | None:
        """The abstract selection as ``(start, end)`` offsets, or ``None`` (see
        :meth:`AbstractView.selected_span`)."""
        return self.abstract_view.selected_span()

    def set_splitter_sizes(self, sizes) -> None:
        """Set the heights of the reading part and the note (pixels), e.g. as
        remembered; the first show then keeps them. While no paper is shown (the note
        is hidden) they are applied when the first paper is shown."""
        self._sized = True
        if self.note_section.isHidden():
            # no paper on show yet (it is read off the UI thread): a hidden note would
            # get no height; the sizes are set when the first paper shows the note
            self._sizes_pending = list(sizes)
            return
        self._sizes_pending = None
        self.splitter.setSizes(list(sizes))

    def showEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Give the note editor :data:`NOTE_HEIGHT` pixels at the first show."""
        super().showEvent(event)
        if not self._sized and self.splitter.height() > 0:
            self._sized = True
            total = sum(self.splitter.sizes()) or self.splitter.height()
            note = min(NOTE_HEIGHT + 40, total // 2)
            self.splitter.setSizes([total - note, note])
        if not self._inner_sized:
            self._inner_sized = True
            QTimer.singleShot(0, self._size_related)   # once the window's layout is done

    def _size_related(self) -> None:
        """Give the related papers :data:`RELATED_HEIGHT` pixels (at most 40 % of the
        part above the note) at the first show; fold them in a pane lower than
        :data:`FOLD_BELOW`."""
        total = sum(self.reading_splitter.sizes())
        if total <= 0:
            return
        if self.height() < FOLD_BELOW:   # a small window: the abstract first, list folded
            self.related.fold()
            folded = self.related.folded_height()
            self.reading_splitter.setSizes([total - folded, folded])
            return
        related = min(RELATED_HEIGHT, int(total * 0.4))
        self.reading_splitter.setSizes([total - related, related])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """Double-click on the title edits it; Esc in the title editor cancels."""
        if watched is self.title_label and event.type() == QEvent.Type.MouseButtonDblClick:
            self.edit_title()
            return True
        if watched is self.title_label and event.type() == QEvent.Type.Resize:
            self._fit_title()
        if watched is self.title_editor and event.type() in (
                QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride) \
                and event.key() == Qt.Key.Key_Escape:
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()
            else:
                self.cancel_title_edit()
                self.editingCancelled.emit()
            return True
        return super().eventFilter(watched, event)
