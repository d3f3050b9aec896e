"""The reading pane's discover chips: a paper's key terms (a click or Enter searches for
the term) and the tags suggested for it (a click or Alt+1 … Alt+3 adds the tag).

They are drawn unlike the tag chips on purpose: a tag chip is a filled pill in the
tag's colour with a ×; a key term is an outlined, square-cornered box in the text
colour; a suggestion is a pill with a dashed outline, "+ name" and its key; a tag held back
for too few examples is a dotted pill, "name ?", with the reason in its tooltip. Colours come
from the palette and :func:`~paperdesk.ui.style.colours.reading_colours` (contrast
checked in light and dark).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolButton, QWidget

from paperdesk.core.api import KeyTerm, TagSuggestion
from paperdesk.core.text import bidi_visible
from paperdesk.ui.style.colours import reading_colours
from paperdesk.ui.style.formatting import tooltip_html

__all__ = ["KeyTermChip", "KeyTermBar", "SuggestionChip", "HeldBackChip",
           "CHIP_TEXT_MAX_PX"]

#: Widest a chip's text may be, in pixels, before it is shortened with "…".
CHIP_TEXT_MAX_PX = 160


def _elided(widget: QWidget, text: str) -> str:
    return widget.fontMetrics().elidedText(bidi_visible(text), Qt.TextElideMode.ElideRight,
                                           CHIP_TEXT_MAX_PX)


class KeyTermChip(QToolButton):
    """One key term (objectName ``keyTermChip``; the term in the ``term`` property).
    Focusable: Enter, Return or Space (or a click) emits :attr:`chosen`.

    Signals:
        chosen(str): the term.
    """

    chosen = Signal(str)

    def __init__(self, term: KeyTerm, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("keyTermChip")
        self.set_term(term)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAutoRaise(False)
        self.clicked.connect(lambda: self.chosen.emit(self.term.term))

    def set_term(self, term: KeyTerm) -> None:
        """Show ``term`` (the chip is reused for the next paper's terms: making and
        styling a new one cost milliseconds of the UI thread)."""
        self.setProperty("term", term.term)
        self.term = term
        self.setText(_elided(self, term.term))
        self.setToolTip(tooltip_html(
            f"Key term “{term.term}” (tf-idf weight {term.weight:.2f}) — click or Enter "
            "searches for it"))

    def focusNextPrevChild(self, next: bool) -> bool:  # noqa: N802, A002 (Qt)
        """Tab / Shift+Tab move between the key terms shown (the bar decides)."""
        bar = self.parentWidget()
        if isinstance(bar, KeyTermBar) and bar.tab_from(self, next):
            return True
        return super().focusNextPrevChild(next)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """Enter and Return choose the term (Space does, as for any button)."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            self.chosen.emit(self.term.term)
            return
        super().keyPressEvent(event)


class SuggestionChip(QToolButton):
    """A suggested tag (objectName ``tagSuggestionChip``; the name in ``tagName``): "+
    name" and its key (Alt+1 …), the reason in the tooltip. A click accepts it.

    Signals:
        accepted(int): the suggestion's 0-based position.
    """

    accepted = Signal(int)

    def __init__(self, suggestion: TagSuggestion, position: int,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagSuggestionChip")
        self.set_suggestion(suggestion, position)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # Alt+1 … Alt+3 reach it
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.clicked.connect(lambda: self.accepted.emit(self.position))

    def set_suggestion(self, suggestion: TagSuggestion, position: int) -> None:
        """Show ``suggestion`` at ``position`` (the chip is reused for the next paper's
        suggestions rather than made and styled again)."""
        self.setProperty("tagName", suggestion.name)
        self.suggestion = suggestion
        self.position = position
        self.setText(f"+ {_elided(self, suggestion.name)}   Alt+{position + 1}")
        self.setToolTip(tooltip_html(
            f"Suggested tag “{suggestion.name}”: {suggestion.reason}\n"
            f"Click or press Alt+{position + 1} to add it"))
        self.setAccessibleDescription(suggestion.reason)


class HeldBackChip(QLabel):
    """A tag the paper's neighbours have but with too few examples to be suggested
    (objectName ``tagSuggestionNote``; the name in ``tagName``): the name with "?" in the
    muted colour, not a button and no key; the tooltip says why it is not suggested
    (:attr:`~paperdesk.core.discover.models.TagSuggestion.reason`)."""

    def __init__(self, suggestion: TagSuggestion, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagSuggestionNote")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.set_suggestion(suggestion)

    def set_suggestion(self, suggestion: TagSuggestion) -> None:
        """Show ``suggestion`` (the note is reused for the next paper's)."""
        self.setProperty("tagName", suggestion.name)
        self.suggestion = suggestion
        self.setText(f"{_elided(self, suggestion.name)} ?")
        self.setToolTip(tooltip_html(
            f"Tag “{suggestion.name}” {suggestion.reason}: tag more papers like this "
            "one and it is suggested"))
        self.setAccessibleDescription(suggestion.reason)


def chip_styles(palette: QPalette) -> tuple[str, str]:
    """The style sheets of the key-term and the suggestion chips for ``palette``.

    Returns:
        ``(key_term_css, suggestion_css)``.
    """
    colours = reading_colours(palette)
    text = palette.color(QPalette.ColorRole.WindowText).name()
    focus = palette.color(QPalette.ColorRole.Highlight).name()
    term = (f"QToolButton#keyTermChip {{ color: {text}; background: transparent;"
            f" border: 1px solid {colours.muted}; border-radius: 3px; padding: 1px 6px; }}"
            f"QToolButton#keyTermChip:hover {{ border-color: {text}; }}"
            f"QToolButton#keyTermChip:focus {{ border: 2px solid {focus}; padding: 0px 5px; }}")
    suggestion = (f"QToolButton#tagSuggestionChip {{ color: {colours.muted};"
                  f" background: transparent; border: 1px dashed {colours.muted};"
                  " border-radius: 10px; padding: 1px 8px; }"
                  f"QToolButton#tagSuggestionChip:hover {{ color: {text};"
                  f" border-color: {text}; }}"
                  f"QLabel#tagSuggestionNote {{ color: {colours.muted};"
                  f" border: 1px dotted {colours.muted}; border-radius: 10px;"
                  " padding: 1px 8px; }")
    return term, suggestion


class KeyTermBar(QWidget):
    """"Key terms" and one chip per term on ONE line (objectName ``keyTermBar``): the
    chips that do not fit the width are hidden (the heaviest come first), so the bar
    never wraps and never widens the pane.

    Signals:
        termChosen(str): a chip was clicked or Enter was pressed on it.
        tabbedOut(bool): Tab after the last chip (True) or Shift+Tab before the first
            (False).
    """

    termChosen = Signal(str)
    tabbedOut = Signal(bool)
    GAP = 5

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("keyTermBar")
        self.label = QLabel("Key terms", self)
        self.label.setObjectName("keyTermLabel")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self._chips: list[KeyTermChip] = []
        self._spare: list[KeyTermChip] = []     # made before, hidden, for the next terms
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.refresh_style()

    def set_terms(self, terms: Sequence[KeyTerm]) -> None:
        """Show these terms (heaviest first); none hides the bar. The chips made for
        earlier papers show the new terms (a new chip's style sheet cost 3-5 ms of the
        UI thread, on every paper shown)."""
        chips = self._chips + self._spare
        for chip in chips[len(terms):]:
            chip.hide()
        self._chips, self._spare = chips[:len(terms)], chips[len(terms):]
        for chip, term in zip(self._chips, terms):
            chip.set_term(term)
        for term in terms[len(self._chips):]:
            chip = KeyTermChip(term, self)
            chip.setStyleSheet(self._term_css)
            chip.chosen.connect(self.termChosen)
            self._chips.append(chip)
        self._place()
        self.setVisible(bool(self._chips))
        self.updateGeometry()

    def chips(self) -> list[KeyTermChip]:
        """Every chip, shown or not (heaviest term first)."""
        return list(self._chips)

    def shown_chips(self) -> list[KeyTermChip]:
        """The chips that fit the width (shown)."""
        return [c for c in self._chips if not c.isHidden()]

    def focus_first(self) -> bool:
        """Focus the first chip shown. Returns False when none is shown."""
        chips = self.shown_chips()
        if not chips:
            return False
        chips[0].setFocus(Qt.FocusReason.TabFocusReason)
        return True

    def tab_from(self, chip: KeyTermChip, forward: bool) -> bool:
        """Move the focus from ``chip`` to the next (or previous) chip shown; past the
        ends, emit :attr:`tabbedOut`. Returns True (the move is handled)."""
        chips = self.shown_chips()
        if chip not in chips:
            return False
        i = chips.index(chip) + (1 if forward else -1)
        if 0 <= i < len(chips):
            chips[i].setFocus(Qt.FocusReason.TabFocusReason)
        else:
            self.tabbedOut.emit(forward)
        return True

    def refresh_style(self) -> None:
        """Take the colours from the palette again (light/dark switch)."""
        self._term_css, _ = chip_styles(self.palette())
        self.label.setStyleSheet(f"color: {reading_colours(self.palette()).muted};")
        for chip in self._chips + self._spare:
            chip.setStyleSheet(self._term_css)

    def _row_height(self) -> int:
        heights = [self.label.sizeHint().height()]
        heights += [c.sizeHint().height() for c in self._chips]
        return max(heights)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: one line holding every chip."""
        width = self.label.sizeHint().width()
        width += sum(c.sizeHint().width() + self.GAP for c in self._chips)
        return QSize(width, self._row_height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt)
        """Qt hook: the label only (chips that do not fit are hidden)."""
        return QSize(self.label.sizeHint().width(), self._row_height())

    def _place(self) -> None:
        height = self._row_height()
        hint = self.label.sizeHint()
        self.label.setGeometry(0, (height - hint.height()) // 2, hint.width(), hint.height())
        x = hint.width() + self.GAP + 2
        fits = True
        for chip in self._chips:
            size = chip.sizeHint()
            fits = fits and x + size.width() <= self.width()
            if fits:
                chip.setGeometry(x, (height - size.height()) // 2, size.width(), size.height())
                chip.show()
                x += size.width() + self.GAP
            else:
                chip.hide()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Show the chips that fit the new width."""
        super().resizeEvent(event)
        self._place()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt)
        """Follow palette changes."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.refresh_style()
