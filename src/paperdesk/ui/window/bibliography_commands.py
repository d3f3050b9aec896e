"""The window's formatted references (:class:`BibliographyCommands`, the window's
``bibliography``): Edit ▸ Copy as Bibliography (Ctrl+Shift+C), Copy as Citation
(Ctrl+Shift+A) and Bibliography Style… (the style and locale they use, chosen in
:class:`~paperdesk.ui.window.style_dialog.StyleDialog`).

The references are made on the window's reader thread (the papers are read from SQLite,
pandoc's citeproc formats them: :mod:`paperdesk.core.exports.bibliography`), never on the
UI thread; the clipboard gets them as HTML (italics, small caps, the hanging indent) and as
plain text. Nothing in the library changes, so there is nothing to undo.

What is copied: the selected papers; with the tag pane focused, the papers of its current
entry instead (a tag, a saved search, a filter, a file or all papers, as the list shows
them when that entry is chosen), so that a tag or a saved search is copied with a key
without selecting its papers; with the focus in the search box and a search typed there
(saved or not), every paper the search finds in the list's scope, in the list's order (all
of them, also while a large search is still loading its rows: the search runs again on the
reader thread).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData
from PySide6.QtWidgets import QApplication

from paperdesk.core.api import (bibliography_items, format_bibliography, format_citation,
                                load_style, shipped_styles)
from paperdesk.core.models import LibraryError
from paperdesk.core.scope import Scope
from paperdesk.ui.style.formatting import plural
from paperdesk.ui.window.style_dialog import StyleDialog

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["BibliographyCommands", "COPIED_MESSAGE_MS"]

#: How long "Copied 12 references, APA Style 7th edition" stays in the status bar (ms).
COPIED_MESSAGE_MS = 8000


def _references(lib, papers: list[int] | tuple[Scope, str | None, bool], style_name: str,
                locale: str | None, citation: bool) -> tuple[str, str, str, int]:
    """On the reader thread: ``(html, text, style title, number of papers)`` of the papers
    ``papers``: ids, or ``(scope, sort, descending)`` whose papers are read here in that
    order (``lib.papers.scope_ids``)."""
    style = load_style(style_name)
    ids = lib.papers.scope_ids(*papers) if isinstance(papers, tuple) else papers
    if not ids:
        raise LibraryError("there are no papers there to copy")
    items = bibliography_items(lib.papers.get(i) for i in ids)
    if citation:
        return (format_citation(items, style, locale=locale, output="html"),
                format_citation(items, style, locale=locale, output="text"), style.title,
                len(ids))
    return (format_bibliography(items, style, locale=locale, output="html"),
            format_bibliography(items, style, locale=locale, output="text").strip(),
            style.title, len(ids))


class BibliographyCommands:
    """Copy as Bibliography / Citation and the style's choice for
    :class:`~paperdesk.ui.window.main_window.MainWindow`; uses its public ``settings``,
    ``worker``, ``selected_ids``, ``show_error``, ``is_shut_down`` and ``statusBar``.

    Attributes:
        style_dialog: the last Bibliography Style dialog opened (for tests), or ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.style_dialog: StyleDialog | None = None

    def copy_as_bibliography(self) -> bool:
        """Put the selected papers (with the tag pane focused: its entry's papers; with
        the search box focused and a search typed: the search's papers) on the clipboard as
        a bibliography (Ctrl+Shift+C)."""
        return self._copy(citation=False)

    def copy_as_citation(self) -> bool:
        """Put one in-text citation of the selected papers (or, as for
        :meth:`copy_as_bibliography`, the tag pane's or the search's) on the clipboard
        (Ctrl+Shift+A), e.g. "(Doe, 2020; Roe, 2021)" or "[1], [2]"."""
        return self._copy(citation=True)

    def _copy(self, citation: bool) -> bool:
        """Format the selection on the reader thread, then fill the clipboard (HTML and
        plain text) and say what was copied in the status bar; True when started (a
        selection, the library open)."""
        window = self._window
        settings, pane = window.settings, window.tag_pane
        papers: list[int] | tuple[Scope, str | None, bool] = window.selected_ids()
        query = window.search.query_text()
        if pane.hasFocus():
            saved = pane.current_saved()
            papers = (Scope(saved=saved[0]) if saved else pane.current_scope(), None, False)
        elif window.search_box.hasFocus() and query:
            papers = (replace(window.current_scope(), query=query),
                      *window.model.search_sort())
        elif not papers:
            self._window.show_error("Select the papers to copy first")
            return False
        style, locale = settings.bibliography_style, settings.bibliography_locale

        def copy(result: tuple[str, str, str, int]) -> None:
            if self._window.is_shut_down():
                return
            html, text, title, count = result
            what = (f"a citation of {plural(count, 'paper')}" if citation
                    else plural(count, "reference"))
            data = QMimeData()
            data.setHtml(html)
            data.setText(text)
            QApplication.clipboard().setMimeData(data)
            self._window.statusBar().showMessage(f"Copied {what}, {title}", COPIED_MESSAGE_MS)

        self._window.statusBar().showMessage(
            "Formatting the " + ("citation…" if citation else "references…"))
        job = self._window.worker.read(
            lambda lib: _references(lib, papers, style, locale, citation), on_done=copy,
            on_failed=lambda message: self._window.show_error(f"Not copied: {message}"),
            label="copy as bibliography")
        return job is not None

    def choose_bibliography_style(self) -> bool:
        """Open the Bibliography Style dialog (the list of styles is read on the reader
        thread first: about 10,800 files)."""
        def open_dialog(styles: tuple[tuple[str, str], ...]) -> None:
            if self._window.is_shut_down():
                return
            settings = self._window.settings
            if self.style_dialog is not None:
                self.style_dialog.close()
                self.style_dialog.deleteLater()
            dialog = StyleDialog(styles, settings.recent_styles, settings.bibliography_style,
                                 settings.bibliography_locale, parent=self._window)
            dialog.chosen.connect(self._on_style_chosen)
            self.style_dialog = dialog
            dialog.open()

        job = self._window.worker.read(lambda _lib: shipped_styles(), on_done=open_dialog,
                                       on_failed=self._window.show_error,
                                       label="list styles")
        return job is not None

    def _on_style_chosen(self, style: str, locale: str) -> None:
        self._window.settings.set_bibliography_style(style, locale or None)
        self._window.statusBar().showMessage(
            f"Bibliography style: {style}" + (f", {locale}" if locale else ""), 5000)
