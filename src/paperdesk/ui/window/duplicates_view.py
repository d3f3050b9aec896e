"""The Duplicates view (View ▸ Duplicates…, Ctrl+D): possible near-duplicate papers side
by side, their differences marked, merged or dismissed from the keyboard.

Everything it shows is read on the window's reader thread
(:meth:`~paperdesk.ui.background.operations.LibraryWorker.read`); merging and "not
duplicates" are edits handed to the window (:meth:`MainWindow.submit_edit`), so they
run on the one writer thread and Ctrl+Z undoes them, here or in the main window. Text
from files (titles, abstracts, metadata) is escaped into the HTML the two panes show:
never interpreted as markup.

Keys (also on the buttons): J or ↓ next pair, K or ↑ previous pair, L merge into the
left paper (the right one goes), R merge into the right paper, D not duplicates, Ctrl+Z
/ Ctrl+Shift+Z undo / redo, Esc close.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QPushButton, QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from paperdesk.core.duplicates import DuplicatePair, word_diff
from paperdesk.core.models import Paper
from paperdesk.ui.panes.paper_html import byline
from paperdesk.ui.style.colours import is_dark, muted_colour
from paperdesk.core.text import bidi_visible
from paperdesk.ui.style.formatting import tooltip_html


def _esc(text: str) -> str:
    """Escape text from a file for the pair's HTML, bidi controls made visible."""
    return html.escape(bidi_visible(text))

__all__ = ["DuplicatesDialog", "DIFF_COLOURS", "DUPLICATE_KEYS", "PAIRS_LISTED", "pair_text",
           "side_html"]

#: Most pairs the view lists at once (the most similar; merging or dismissing brings up
#: the next ones), so that a library of templated abstracts does not fill it with tens
#: of thousands.
PAIRS_LISTED = 1000

#: Background and text colour of words only one paper has: ``(dark theme?) ->
#: {"removed": (bg, fg), "added": (bg, fg)}``; "removed" marks the left paper's own
#: words, "added" the right one's. Each pair has a contrast ratio above 7.
DIFF_COLOURS = {
    False: {"removed": ("#ffd6d6", "#5c0000"), "added": ("#c8f0d0", "#00400f")},
    True: {"removed": ("#6b1f24", "#ffe3e3"), "added": ("#1d4d2b", "#dcffe4")},
}

#: ``(keys, what they do)`` of the view, for docs/duplicates.md and the view's own hint line.
DUPLICATE_KEYS = (
    ("J / ↓", "next pair"), ("K / ↑", "previous pair"),
    ("L", "merge into the left paper (the right one goes)"),
    ("R", "merge into the right paper"), ("D", "not duplicates"),
    ("Ctrl+Z", "undo"), ("Esc", "close"),
)


def pair_text(pair: DuplicatePair) -> str:
    """The list row of a pair (plain text): ``"87%  Title A  ⟷  Title B"``."""
    return (f"{round(pair.similarity * 100)}%  {' '.join(pair.title_a.split())}  ⟷  "
            f"{' '.join(pair.title_b.split())}")


def _facts(paper: Paper) -> str:
    parts = [f"paper {paper.id}", "read" if paper.read else "unread"]
    if paper.starred:
        parts.append("starred")
    if paper.tags:
        parts.append("tags: " + ", ".join(t.name for t in paper.tags))
    if paper.note.strip():
        parts.append("note")
    if paper.highlights:
        n = len(paper.highlights)
        parts.append(f"{n} highlight" + ("s" if n > 1 else ""))
    parts.append(f"added {paper.added_at[:10]}")
    return "  ·  ".join(parts)


def _identifiers(paper: Paper) -> str:
    meta = paper.metadata
    parts = [f"key {paper.citation_key}"] if paper.citation_key else []
    if meta.doi:
        parts.append(f"DOI {meta.doi}")
    if meta.arxiv_id:
        parts.append(f"arXiv {meta.arxiv_id}")
    if meta.entry_type:
        parts.append(meta.entry_type)
    return "  ·  ".join(parts)


def side_html(paper: Paper, runs: list[tuple[str, str]], dark: bool, muted: str) -> str:
    """The HTML of one side: title, facts, byline, identifiers, the abstract with the
    words only this paper has marked, and the files it came from. Every piece of text is
    escaped.

    Args:
        paper: the paper.
        runs: its abstract as ``(kind, text)`` runs from
            :func:`paperdesk.core.duplicates.word_diff`.
        dark: use the dark theme's marks.
        muted: ``#rrggbb`` of secondary text.
    Returns:
        An HTML fragment for a ``QTextBrowser``.
    """
    colours = DIFF_COLOURS[dark]
    out = [f"<h3>{_esc(paper.title)}</h3>",
           f'<p style="color:{muted};">{_esc(_facts(paper))}</p>']
    line = byline(paper.metadata)
    ids = _identifiers(paper)
    if line:
        out.append(f"<p>{_esc(line)}</p>")
    if ids:
        out.append(f'<p style="color:{muted};">{_esc(ids)}</p>')
    body = []
    for kind, text in runs:
        if kind == "same":
            body.append(_esc(text))
        else:
            bg, fg = colours[kind]
            body.append(f'<span style="background-color:{bg}; color:{fg};">'
                        f"{_esc(text)}</span>")
    abstract = "".join(body) if runs else (
        f'<i style="color:{muted};">(no abstract)</i>')
    out.append(f'<p style="line-height:135%;">{abstract}</p>')
    if paper.sources:
        names = ", ".join(f"{s.name} ({s.position})" for s in paper.sources)
        out.append(f'<p style="color:{muted};">From {_esc(names)}</p>')
    return "".join(out)


class DuplicatesDialog(QDialog):
    """The Duplicates view: a list of open pairs and, for the current one, the two papers
    side by side (left: the lower id) with the words only one of them has marked.

    Child widgets (by objectName): ``pairList`` (QListWidget), ``pairLabel``,
    ``leftPaper`` / ``rightPaper`` (read-only QTextBrowsers), ``mergeLeftButton``,
    ``mergeRightButton``, ``dismissButton``, ``previousPairButton``, ``nextPairButton``.

    Signals:
        mergeRequested(int, int): ``(keep, other)``: merge ``other`` into ``keep``.
        dismissRequested(int, int): the pair is "not duplicates".
        undoRequested(bool): Ctrl+Z (False) or Ctrl+Shift+Z / Ctrl+Y (True: redo).

    Args:
        worker: the window's :class:`~paperdesk.ui.background.operations.LibraryWorker`
            (reads run on its reader thread).
        parent: the main window.
    """

    mergeRequested = Signal(int, int)
    dismissRequested = Signal(int, int)
    undoRequested = Signal(bool)

    def __init__(self, worker, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("duplicatesDialog")
        self.setWindowTitle("Possible duplicates")
        self._worker = worker
        self._pairs: list[DuplicatePair] = []
        self._total = 0
        self._shown: tuple[int, int] | None = None
        self._generation = 0
        self._papers: tuple[Paper, Paper] | None = None

        self.pair_list = QListWidget()
        self.pair_list.setObjectName("pairList")
        rows = self.pair_list.fontMetrics().height() + 6
        self.pair_list.setMaximumHeight(rows * 5 + 8)   # five pairs; the rest scroll
        self.pair_list.currentRowChanged.connect(self._on_row)
        self.pair_label = QLabel()
        self.pair_label.setObjectName("pairLabel")
        self.pair_label.setTextFormat(Qt.TextFormat.PlainText)
        self.legend = QLabel()
        self.legend.setObjectName("diffLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)   # our own text only
        self.left = self._browser("leftPaper")
        self.right = self._browser("rightPaper")
        sides = QSplitter(Qt.Orientation.Horizontal)
        sides.addWidget(self.left)
        sides.addWidget(self.right)
        sides.setChildrenCollapsible(False)

        self.merge_left_button = self._button("mergeLeftButton", "Merge into &Left",
                                              "Keep the left paper, with the right one's "
                                              "tags, note, highlights and metadata (L)",
                                              self.merge_into_left)
        self.merge_right_button = self._button("mergeRightButton", "Merge into &Right",
                                               "Keep the right paper, with the left one's "
                                               "tags, note, highlights and metadata (R)",
                                               self.merge_into_right)
        self.dismiss_button = self._button("dismissButton", "Not &Duplicates",
                                           "These are different papers: do not flag them "
                                           "again (D)", self.dismiss)
        self.previous_button = self._button("previousPairButton", "◀ Previous (K)",
                                            "Previous pair (K or ↑)", self.previous_pair)
        self.next_button = self._button("nextPairButton", "Next (J) ▶",
                                        "Next pair (J or ↓)", self.next_pair)
        close = self._button("closeButton", "Close", "Close (Esc)", self.close)
        buttons = QHBoxLayout()
        for b in (self.previous_button, self.next_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        for b in (self.merge_left_button, self.merge_right_button, self.dismiss_button,
                  close):
            buttons.addWidget(b)
        hint = self.keys_hint = QLabel("  ·  ".join(f"{k} {what}"
                                                     for k, what in DUPLICATE_KEYS))
        hint.setObjectName("keysHint")
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.addWidget(self.pair_list)
        layout.addWidget(self.pair_label)
        layout.addWidget(self.legend)
        layout.addWidget(sides, 1)
        layout.addLayout(buttons)
        layout.addWidget(hint)

        for keys, slot in ((("J", "Down"), self.next_pair), (("K", "Up"), self.previous_pair),
                           (("L",), self.merge_into_left), (("R",), self.merge_into_right),
                           (("D",), self.dismiss),
                           (("Ctrl+Z",), lambda: self.undoRequested.emit(False)),
                           (("Ctrl+Shift+Z", "Ctrl+Y"), lambda: self.undoRequested.emit(True))):
            for key in keys:
                shortcut = QShortcut(QKeySequence(key), self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.activated.connect(slot)
        self._update_legend()
        self._set_enabled(False)
        self.resize(1100, 720)

    # -- building --------------------------------------------------------------------
    def _browser(self, name: str) -> QTextBrowser:
        view = QTextBrowser()
        view.setObjectName(name)
        view.setOpenLinks(False)
        view.setReadOnly(True)
        view.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # keys stay with the list
        return view

    def _button(self, name: str, text: str, tip: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.setObjectName(name)
        button.setToolTip(tip)
        button.setAutoDefault(False)
        button.clicked.connect(slot)
        return button

    def _dark(self) -> bool:
        return is_dark(self.palette())

    def _update_legend(self) -> None:
        self.keys_hint.setStyleSheet(f"color: {muted_colour(self.palette())};")
        colours = DIFF_COLOURS[self._dark()]
        marks = []
        for kind, text in (("removed", "only in the left paper"),
                           ("added", "only in the right paper")):
            bg, fg = colours[kind]
            marks.append(f'<span style="background-color:{bg}; color:{fg};">'
                         f"&nbsp;{text}&nbsp;</span>")
        self.legend.setText("Marked: " + " &nbsp; ".join(marks))

    def _set_enabled(self, on: bool) -> None:
        for b in (self.merge_left_button, self.merge_right_button, self.dismiss_button):
            b.setEnabled(on)

    # -- public ----------------------------------------------------------------------
    def pairs(self) -> list[DuplicatePair]:
        """The pairs listed, in list order."""
        return list(self._pairs)

    def current_pair(self) -> DuplicatePair | None:
        """The pair shown, or ``None`` when there is none."""
        row = self.pair_list.currentRow()
        return self._pairs[row] if 0 <= row < len(self._pairs) else None

    def shown_papers(self) -> tuple[Paper, Paper] | None:
        """The two papers the panes show (after they were read), or ``None``."""
        return self._papers

    def reload(self) -> None:
        """Read the open pairs again (on the reader thread) and show them, keeping the
        current pair, or the row it was in when it is gone (merged or dismissed)."""
        self._generation += 1
        generation = self._generation
        self._worker.read(lambda lib: (lib.duplicates.pairs(limit=PAIRS_LISTED),
                                       lib.duplicates.count()),
                          on_done=lambda got: self._show_pairs(generation, *got),
                          label="duplicates")

    def next_pair(self) -> bool:
        """Show the next pair (J). Returns False at the end."""
        return self._go(1)

    def previous_pair(self) -> bool:
        """Show the previous pair (K). Returns False at the start."""
        return self._go(-1)

    def merge_into_left(self) -> bool:
        """Ask to merge the right paper into the left one (L)."""
        return self._merge(left=True)

    def merge_into_right(self) -> bool:
        """Ask to merge the left paper into the right one (R)."""
        return self._merge(left=False)

    def dismiss(self) -> bool:
        """Ask to mark the pair "not duplicates" (D)."""
        pair = self._ready_pair()
        if pair is None:
            return False
        self._set_enabled(False)
        self.dismissRequested.emit(pair.paper_a, pair.paper_b)
        return True

    # -- internals -------------------------------------------------------------------
    def _ready_pair(self) -> DuplicatePair | None:
        pair = self.current_pair()
        if pair is None or self._papers is None or self._shown != (pair.paper_a,
                                                                   pair.paper_b):
            return None
        return pair

    def _merge(self, left: bool) -> bool:
        pair = self._ready_pair()
        if pair is None:
            return False
        self._set_enabled(False)
        keep, other = ((pair.paper_a, pair.paper_b) if left
                       else (pair.paper_b, pair.paper_a))
        self.mergeRequested.emit(keep, other)
        return True

    def _go(self, step: int) -> bool:
        row = self.pair_list.currentRow() + step
        if not 0 <= row < self.pair_list.count():
            return False
        self.pair_list.setCurrentRow(row)
        return True

    def _show_pairs(self, generation: int, pairs: list[DuplicatePair], total: int) -> None:
        if generation != self._generation:
            return
        self._total = max(total, len(pairs))
        current = self.current_pair()
        row = self.pair_list.currentRow()
        self._pairs = list(pairs)
        self.pair_list.blockSignals(True)
        self.pair_list.clear()
        for pair in pairs:
            item = QListWidgetItem(bidi_visible(pair_text(pair)))
            item.setToolTip(tooltip_html(pair_text(pair)))
            self.pair_list.addItem(item)
        keys = [(p.paper_a, p.paper_b) for p in pairs]
        if current is not None and (current.paper_a, current.paper_b) in keys:
            row = keys.index((current.paper_a, current.paper_b))
        row = min(max(row, 0), len(pairs) - 1)
        self.pair_list.setCurrentRow(row)
        self.pair_list.blockSignals(False)
        self._on_row(row)

    def _on_row(self, row: int) -> None:
        pair = self._pairs[row] if 0 <= row < len(self._pairs) else None
        self._set_enabled(False)
        if pair is None:
            self._shown, self._papers = None, None
            self.pair_label.setText("No possible duplicates left." if not self._pairs
                                    else "")
            self.left.clear()
            self.right.clear()
            return
        of = f"{len(self._pairs):,}"
        if self._total > len(self._pairs):
            of += f" listed ({self._total:,} in all; the most similar first)"
        self.pair_label.setText(
            f"Pair {row + 1} of {of}  ·  "
            f"{round(pair.similarity * 100)}% of their word triples are shared")
        key = (pair.paper_a, pair.paper_b)
        if key == self._shown and self._papers is not None:
            self._set_enabled(True)
            return
        self._generation += 1
        generation = self._generation
        self._worker.read(lambda lib: (lib.papers.get(pair.paper_a), lib.papers.get(pair.paper_b)),
                          on_done=lambda papers: self._show_papers(generation, key, papers),
                          on_failed=lambda message: self._paper_failed(generation, message),
                          label="duplicate pair")

    def _paper_failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            self.pair_label.setText(f"⚠ {message}")

    def _show_papers(self, generation: int, key: tuple[int, int],
                     papers: tuple[Paper, Paper]) -> None:
        if generation != self._generation:
            return
        self._shown, self._papers = key, papers
        self.render()
        self._set_enabled(True)

    def render(self) -> None:
        """Draw the two panes again (after the appearance changed)."""
        self._update_legend()
        if self._papers is None:
            return
        a, b = self._papers
        left, right = word_diff(a.abstract, b.abstract)
        dark, muted = self._dark(), muted_colour(self.palette())
        for view, paper, runs in ((self.left, a, left), (self.right, b, right)):
            top = view.verticalScrollBar().value()
            view.setHtml(side_html(paper, runs, dark, muted))
            view.verticalScrollBar().setValue(top)

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Redraw the marks when the palette changes (light or dark appearance)."""
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange:
            self.render()
