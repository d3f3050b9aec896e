"""The detail pane's tag row: one coloured chip per tag (with a remove button), a tag
editor with completion (objectName ``tagEditor``), then the tags suggested for the paper
(:class:`~paperdesk.ui.panes.discover_chips.SuggestionChip`, Alt+1 … Alt+3)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, Signal, Slot
from PySide6.QtWidgets import (QCompleter, QFrame, QHBoxLayout, QLabel, QLineEdit,
                               QSizePolicy, QToolButton, QWidget)

from paperdesk.core.text import bidi_visible
from paperdesk.core.models import Tag
from paperdesk.ui.style.colours import text_colour_for
from paperdesk.ui.style.formatting import plural, tooltip_html
from paperdesk.ui.panes.discover_chips import HeldBackChip, SuggestionChip, chip_styles
from paperdesk.ui.panes.flow_layout import FlowLayout

__all__ = ["TagChip", "TagChipBar", "TAG_EDITOR_PLACEHOLDER"]

TAG_EDITOR_PLACEHOLDER = "Add tag…  (T)"
#: Widest a chip's text may be, in pixels, before it is shortened with "…".
CHIP_TEXT_MAX_PX = 180
#: Chips of tags no longer shown that are kept (hidden) for the next paper with the
#: same tag: a new chip costs 5-6 ms of the UI thread to style (its style sheet) when
#: shown, and the detail pane changes paper on every key of j/k and every search.
SPARE_CHIPS = 24


class TagChip(QFrame):
    """A rounded label in the tag's colour, text black or white by contrast, with a ×
    button (objectName ``tagChip``; the tag's name is in the ``tagName`` property).

    Signals:
        removeClicked(str): the × was clicked; the tag's name.

    Args:
        tag: the tag to show.
        parent: Qt parent.
    """

    removeClicked = Signal(str)

    def __init__(self, tag: Tag, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagChip")
        self.setProperty("tagName", tag.name)
        self.tag = tag
        fg = text_colour_for(tag.colour)
        self.setStyleSheet(
            f"QFrame#tagChip {{ background: {tag.colour}; border-radius: 10px; }}"
            f"QLabel {{ color: {fg}; background: transparent; }}"
            f"QToolButton {{ color: {fg}; background: transparent; border: none;"
            " font-weight: bold; padding: 0px 2px; }"
            "QToolButton:hover { background: rgba(0, 0, 0, 40); border-radius: 7px; }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(9, 2, 3, 2)
        layout.setSpacing(2)
        label = QLabel()
        label.setTextFormat(Qt.TextFormat.PlainText)
        # A long name is shortened with "…" (the tooltip has it whole), so that one tag
        # can never force the detail pane, and so the window, to be wide.
        label.setText(label.fontMetrics().elidedText(bidi_visible(tag.name),
                                                     Qt.TextElideMode.ElideRight,
                                                     CHIP_TEXT_MAX_PX))
        tip = f"Tag “{tag.name}”"
        if tag.count is not None:          # None: not counted (Tags.all(count=False))
            tip += f" — {plural(tag.count, 'paper')}"
        if tag.key:
            tip += f" — key {tag.key} toggles it"
        label.setToolTip(tooltip_html(tip))
        self.label = label
        button = QToolButton()
        button.setObjectName("removeTagButton")
        button.setText("×")
        button.setToolTip(tooltip_html(f"Remove the tag “{tag.name}” from this paper"))
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(lambda: self.removeClicked.emit(tag.name))
        self.remove_button = button
        layout.addWidget(label)
        layout.addWidget(button)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    @staticmethod
    def shows(tag: Tag) -> tuple:
        """What a chip made for ``tag`` shows (name, colour, key and count): a chip can
        be shown again for another paper's tag with the same."""
        return (tag.name, tag.colour, tag.key, tag.count)


class TagChipBar(QWidget):
    """Chips for a paper's tags followed by the tag editor, wrapping onto more lines.

    Type a name in the editor (``tagEditor``; completion offers existing tags, matched
    anywhere in the name without regard to case) and press Enter to add it; Esc clears
    the editor.

    Signals:
        addRequested(str): the name typed into the editor (stripped, non-empty).
        removeRequested(str): a chip's × was clicked; the tag's name.
        editingCancelled(): Esc was pressed in the editor.
        suggestionAccepted(int): a suggestion chip was clicked; its 0-based position.
    """

    addRequested = Signal(str)
    removeRequested = Signal(str)
    editingCancelled = Signal()
    suggestionAccepted = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagChipBar")
        self._layout = FlowLayout(self, spacing=5)
        self._chips: list[TagChip] = []
        self._spare: list[TagChip] = []      # hidden, oldest first (see SPARE_CHIPS)
        self.editor = QLineEdit()
        self.editor.setObjectName("tagEditor")
        self.editor.setPlaceholderText(TAG_EDITOR_PLACEHOLDER)
        self.editor.setToolTip("Type a tag and press Enter (Esc to cancel)")
        self.editor.setFixedWidth(210)
        self.editor.setClearButtonEnabled(True)
        self._names = QStringListModel(self)
        completer = QCompleter(self._names, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        completer.setMaxVisibleItems(10)
        self.completer = completer
        self.editor.setCompleter(completer)
        self.editor.returnPressed.connect(self._on_return)
        self.editor.installEventFilter(self)
        self._layout.addWidget(self.editor)
        self._suggestions: list[SuggestionChip] = []
        self._notes: list[HeldBackChip] = []
        self._spare_suggestions: list[SuggestionChip] = []    # hidden, for reuse
        self._spare_notes: list[HeldBackChip] = []
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def set_tags(self, tags: Sequence[Tag]) -> None:
        """Show one chip per tag (in the given order) before the editor.

        A chip already made for a tag that shows the same (:meth:`TagChip.shows`) is
        shown again (the paper's before, or one of :data:`SPARE_CHIPS` kept hidden);
        only the others are made.

        Args:
            tags: the paper's tags (``Paper.tags``).
        """
        wanted = [TagChip.shows(tag) for tag in tags]
        if wanted == [TagChip.shows(chip.tag) for chip in self._chips]:
            return
        for chip in self._chips:
            self._layout.removeWidget(chip)
        spare = self._spare + self._chips
        self._chips = []
        for i, (tag, shows) in enumerate(zip(tags, wanted)):
            at = next((j for j in range(len(spare) - 1, -1, -1)
                       if TagChip.shows(spare[j].tag) == shows), None)
            if at is not None:
                chip = spare.pop(at)
            else:
                chip = TagChip(tag, self)
                chip.removeClicked.connect(self.removeRequested)
            self._layout.insertWidget(i, chip)
            chip.show()
            self._chips.append(chip)
        for chip in spare:
            chip.hide()              # gone at once
        while len(spare) > SPARE_CHIPS:
            chip = spare.pop(0)
            chip.setParent(None)
            chip.deleteLater()
        self._spare = spare
        self.updateGeometry()

    def set_suggestions(self, suggestions: Sequence) -> None:
        """Show suggested tags after the editor (none: no chips).

        Args:
            suggestions: :class:`~paperdesk.core.discover.models.TagSuggestion` list,
                strongest first (at most three are shown, keyed Alt+1 … Alt+3); those
                ``held_back`` for too few examples are shown after them as notes
                (:class:`~paperdesk.ui.panes.discover_chips.HeldBackChip`, no key).
        """
        offered = [s for s in suggestions if not s.held_back][:3]
        held = [s for s in suggestions if s.held_back][:3]
        if [(c.suggestion, c.position) for c in self._suggestions] == \
                [(s, i) for i, s in enumerate(offered)] and \
                [c.suggestion for c in self._notes] == held:
            return
        # the chips made before show the new suggestions (a new one's style sheet
        # costs milliseconds of the UI thread, on every paper shown)
        for chip in self._suggestions + self._notes:
            self._layout.removeWidget(chip)
        chips = self._suggestions + self._spare_suggestions
        notes = self._notes + self._spare_notes
        _, css = chip_styles(self.palette())   # (for new chips; changeEvent restyles)
        self._suggestions, self._notes = [], []
        for i, suggestion in enumerate(offered):
            if chips:
                chip = chips.pop(0)
                chip.set_suggestion(suggestion, i)
            else:
                chip = SuggestionChip(suggestion, i, self)
                chip.accepted.connect(self.suggestionAccepted)
                chip.setStyleSheet(css)
            self._suggestions.append(chip)
        for suggestion in held:
            if notes:
                note = notes.pop(0)
                note.set_suggestion(suggestion)
            else:
                note = HeldBackChip(suggestion, self)
                note.setStyleSheet(css)
            self._notes.append(note)
        for chip in chips + notes:
            chip.hide()
        self._spare_suggestions, self._spare_notes = chips, notes
        for chip in self._suggestions + self._notes:
            self._layout.addWidget(chip)
            chip.show()
        self.updateGeometry()

    def suggestion_chips(self) -> list[SuggestionChip]:
        """Return the suggestion chips shown, strongest first."""
        return list(self._suggestions)

    def held_back_chips(self) -> list[HeldBackChip]:
        """Return the notes of tags held back for too few examples, strongest first."""
        return list(self._notes)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt)
        """Restyle the suggestion chips when the palette changes (light/dark)."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            _, css = chip_styles(self.palette())
            for chip in self._suggestions + self._notes + self._spare_suggestions \
                    + self._spare_notes:
                chip.setStyleSheet(css)

    def chips(self) -> list[TagChip]:
        """Return the chips shown, in order."""
        return list(self._chips)

    def chip_names(self) -> list[str]:
        """Return the names on the chips, in order."""
        return [c.tag.name for c in self._chips]

    def set_completions(self, names: Sequence[str]) -> None:
        """Set the tag names the editor offers as completions."""
        self._names.setStringList(list(names))

    def set_target_count(self, n: int) -> None:
        """Say in the editor's placeholder how many papers a new tag goes to.

        Args:
            n: number of selected papers (1: the shown paper).
        """
        self.editor.setPlaceholderText(
            TAG_EDITOR_PLACEHOLDER if n <= 1 else f"Tag {n} selected papers…  (T)")

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt)
        """Qt hook: the height depends on the width (chips wrap)."""
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt)
        """Qt hook: height needed to show every chip at ``width``."""
        return self._layout.heightForWidth(width)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """Esc in the editor clears it and emits ``editingCancelled``."""
        if watched is self.editor and event.type() == QEvent.Type.KeyPress \
                and event.key() == Qt.Key.Key_Escape:
            self.editor.clear()
            self.editingCancelled.emit()
            return True
        if watched is self.editor and event.type() == QEvent.Type.ShortcutOverride \
                and event.key() == Qt.Key.Key_Escape:
            event.accept()   # keep Esc for the editor, not the window's "back to list"
            return True
        return super().eventFilter(watched, event)

    @Slot()
    def _on_return(self) -> None:
        name = " ".join(self.editor.text().split())
        if self.completer.popup().isVisible():
            self.completer.popup().hide()
        if name:
            self.editor.clear()
            self.addRequested.emit(name)
