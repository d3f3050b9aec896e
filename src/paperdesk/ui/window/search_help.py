"""The search-syntax help: a short reference of the query language, with examples.

:data:`SEARCH_SYNTAX` is the single source for the "Search Syntax" dialog (Help menu,
F1 in the search box, the "?" button in the search box) and for the search box's
tooltip. The full reference is the docstring of :mod:`paperdesk.core.search.query`.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QUrl, Signal, Slot
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

__all__ = ["SEARCH_SYNTAX", "SEARCH_TIP", "search_syntax_html", "SearchHelpDialog"]

#: ``(example, what it finds)`` rows, in the order shown.
SEARCH_SYNTAX: tuple[tuple[str, str], ...] = (
    ("depth estimation", "papers with all these words, in the title, abstract, note or a "
                         "highlight comment (“networks” also finds “network”)"),
    ('"depth delusion"', "these words next to each other, exactly as written"),
    ("pruning OR sparsity", "either word"),
    ("diffusion -video", "the first word but not the second (also: diffusion NOT video)"),
    ("(vision OR image) transformer", "brackets group alternatives; AND is implied"),
    ("transf*", "words starting with “transf”: transformer, transfer …"),
    ("netwrk~", "words one letter away: network (netwrk~2 allows two)"),
    ("title:scaling", "only in the title; also abstract:, note: and comment: (highlight "
                      "comments)"),
    ('tag:"to read"', "papers with that tag"),
    ('source:"daily papers"', "papers from a file (its name or its header line)"),
    ("is:unread", "papers you have not read; also is:read and is:starred"),
    ("has:code", "abstracts that link to code (GitHub …); also has:note, has:highlight "
                 "and has:tag"),
    ('author:doe', "the paper's own authors (plain words search authors too; "
                   'author:"jane doe" for a full name)'),
    ("year:2020..2024", "published in those years; also year:2023, year:2020.. and "
                        "year:..2019"),
    ("added:2026-11-23..2026-11-29", "added to the library in those days (local dates); "
                                     "also added:2026-11-23, added:2026-11 and "
                                     "added:..2025-11-30"),
    ("doi:10.1145/3442188.3445922", "its own DOI; also arxiv:2212.08630, venue:, key: "
                                    "(citation key)"),
    ("mentions:2212.08630", "abstracts that mention that arXiv id, DOI or link"),
    ("has:doi", "papers with their own DOI; also has:author, has:year and has:arxiv"),
)

#: The search box's tooltip: a one-screen summary.
SEARCH_TIP = """Search titles, abstracts, notes, highlight comments and authors as you type.

depth estimation — all the words
"depth delusion" — the exact phrase
pruning OR sparsity,  diffusion -video,  NOT,  ( … )
transf* — prefix      netwrk~ — one letter off
title:  abstract:  note:  comment:  tag:"to read"  source:
author:  year:2020..2024  venue:  doi:  arxiv:  key:  mentions:
added:2026-11-23..2026-11-29 (the days a paper was added)
is:unread  is:read  is:starred  has:note  has:highlight  has:tag  has:code

F1 here: the search syntax with examples.  Ctrl+S: save this search."""


def search_syntax_html() -> str:
    """Return the help page as an HTML document (every example and text is escaped; each
    example is a link ``example:<n>``, the row number in :data:`SEARCH_SYNTAX`)."""
    rows = "\n".join(
        f'<tr><td style="padding:4px 14px 4px 0; white-space:nowrap;">'
        f'<a href="example:{n}" style="text-decoration:none;"><code>{html.escape(example)}'
        f'</code></a></td><td style="padding:4px 0;">{html.escape(meaning)}</td></tr>'
        for n, (example, meaning) in enumerate(SEARCH_SYNTAX))
    return (
        "<html><body>"
        '<p style="font-size:large; font-weight:600;">Searching</p>'
        "<p>Type words to find papers that contain all of them. Searches run as you type; "
        "anything you type is safe: what cannot be searched is skipped and the status bar "
        "says why.</p>"
        f'<table cellspacing="0">{rows}</table>'
        "<p>AND, OR and NOT must be written in capitals. Case and accents never matter. "
        "Click an example to try it. Click a column header to sort the results by title or "
        "date; click <i>Snippet</i> to go back to the best matches first. "
        "<b>Ctrl+S</b> saves the search; saved searches are listed on the left with the "
        "number of papers they find.</p>"
        "</body></html>")


class SearchHelpDialog(QDialog):
    """A non-modal page explaining the query language (``searchHelpDialog``).

    Signals:
        exampleChosen(str): an example was clicked; the window puts it in the search box.

    Args:
        parent: the window.
    """

    exampleChosen = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("searchHelpDialog")
        self.setWindowTitle("Search syntax")
        self.browser = QTextBrowser(self)
        self.browser.setObjectName("searchHelpText")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(search_syntax_html())
        self.browser.anchorClicked.connect(self._on_anchor)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.resize(680, 520)

    def text(self) -> str:
        """The help page as plain text (for tests and accessibility)."""
        return self.browser.toPlainText()

    @Slot(QUrl)
    def _on_anchor(self, url: QUrl) -> None:
        target = url.toString()
        if target.startswith("example:"):
            try:
                example = SEARCH_SYNTAX[int(target.split(":", 1)[1])][0]
            except (ValueError, IndexError):
                return
            self.exampleChosen.emit(example)
