"""The window's citation commands (:class:`MetadataCommands`, the window's ``metadata``):
the metadata editor (``m``), Regenerate Citation Key, copying ``\\cite{key}`` (Ctrl+K) and
opening the paper's own page in the browser (``o``).

Edits go through the window's ``submit_edit`` (the one writer thread) and are shown
once committed; the citation keys to copy and a proposed key are read on the reader
thread; opening a page uses the paper already shown (no read at all) and hands the link
to the desktop's opener on a thread of its own, which says whether the browser took it
(:func:`paperdesk.core.desktop.open_in_browser`); when not, the status bar says why and
the link is on the clipboard.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication

from paperdesk.core.desktop import open_in_browser
from paperdesk.core.models import Metadata
from paperdesk.ui.panes.links import is_safe_url, link_problem
from paperdesk.ui.panes.paper_html import own_page_url
from paperdesk.ui.window.metadata_dialog import MetadataDialog
from paperdesk.ui.window.triage import MESSAGE_MS

if TYPE_CHECKING:
    from paperdesk.ui.window.main_window import MainWindow

__all__ = ["MetadataCommands", "cite_command", "NO_PAGE_MESSAGE"]

#: What ``o`` says for a paper without a DOI, arXiv id or URL of its own.
NO_PAGE_MESSAGE = "This paper has no DOI, arXiv id or URL of its own; press M to add one"
#: How long the status bar says that a link did not open, in milliseconds.
FAILED_OPEN_MS = 15000
#: Longest ``\cite{…}`` quoted in full in the status bar, in characters.
_QUOTE_LIMIT = 80


class _OpenedSignal(QObject):
    """Carries an opener's answer (:func:`~paperdesk.core.desktop.open_in_browser`) from
    its thread to the window's: ``done(url, problem)``, ``problem`` "" when opened."""

    done = Signal(str, str)


def cite_command(keys) -> str:
    """Return the LaTeX citation of ``keys``: ``\\cite{a}``, ``\\cite{a,b}``."""
    return "\\cite{" + ",".join(keys) + "}"


class MetadataCommands:
    """Citation commands for :class:`~paperdesk.ui.window.main_window.MainWindow`.

    Built over the window (``window``, a
    :class:`~paperdesk.ui.window.main_window.MainWindow`); uses its public
    ``detail_pane``, ``worker``, ``submit_edit``, ``selected_ids``, ``show_error``,
    ``focus_list`` and ``statusBar``.

    Attributes:
        metadata_dialog: the metadata editor last opened (for tests), or ``None``.
    """

    def __init__(self, window: MainWindow):
        self._window = window
        self.metadata_dialog: MetadataDialog | None = None
        self._opened = _OpenedSignal(window)   # from the opener's thread to this one
        self._opened.done.connect(self._page_opened)

    # -- the metadata editor -----------------------------------------------------------
    def edit_metadata(self) -> MetadataDialog | None:
        """Open the metadata editor on the paper shown (m), window-modal; while the
        current row's paper is on its way from the reader thread, on it once it is shown.

        Returns:
            The dialog (also :attr:`metadata_dialog`), or ``None`` without a paper (or
            when it opens later).
        """
        if self._window.reading.when_shown(self.edit_metadata):
            return None     # the current row's paper is on its way: opened on it then
        paper = self._window.detail_pane.paper
        if paper is None:
            self._window.statusBar().showMessage("Select a paper first, then press M", MESSAGE_MS)
            return None
        self._window.detail_pane.note_editor.flush()
        old = self.metadata_dialog
        if old is not None:
            old.close()
            old.deleteLater()
        dialog = MetadataDialog(paper, self._window)
        self.metadata_dialog = dialog
        pid = paper.id

        def alive() -> bool:
            return self.metadata_dialog is dialog and not self._window.is_shut_down()

        def save(meta: Metadata, key: str | None) -> None:
            queued = self._window.submit_edit(
                lambda lib: lib.papers.set_metadata(pid, meta, citation_key=key),
                on_done=lambda _changes: alive() and dialog.saved(),
                on_failed=lambda message: (dialog.refused(message) if alive()
                                           else self._window.show_error(message)))
            if not queued:
                dialog.refused("the library is closing")

        def propose(meta: Metadata) -> None:
            job = self._window.worker.read(
                lambda lib: lib.papers.proposed_citation_key(pid, meta),
                on_done=lambda key: alive() and dialog.set_proposed_key(key),
                on_failed=lambda message: alive() and dialog.key_failed(message),
                label="proposed citation key")
            if job is None:
                dialog.key_failed("the library is closing")

        dialog.saveRequested.connect(save)
        dialog.keyRequested.connect(propose)
        dialog.finished.connect(lambda _result: alive() and self._back_from_dialog())
        dialog.open()
        return dialog

    def _back_from_dialog(self) -> None:
        """The editor closed: the window (and its list) has the keyboard again."""
        self._window.activateWindow()
        self._window.focus_list()

    def regenerate_citation_key(self) -> bool:
        """Give the paper shown the key its metadata proposes (Paper ▸ Regenerate
        Citation Key; undoable). The new key is named once it is committed.

        Returns:
            False without a paper.
        """
        pid = self._window.detail_pane.paper_id
        if pid is None:
            self._window.statusBar().showMessage("Select a paper first", MESSAGE_MS)
            return False
        keys: list[str] = []

        def edit(lib):   # writer thread
            changes = lib.papers.regenerate_citation_key(pid)
            keys.append(lib.papers.citation_key(pid))
            return changes

        def done(changes) -> None:
            key = keys[0] if keys else ""
            if changes:
                self._window.statusBar().showMessage(
                    f"Citation key is now {key}  —  Ctrl+Z to undo", MESSAGE_MS)
            else:
                self._window.statusBar().showMessage(
                    f"The citation key is already {key}, the one its metadata gives",
                    MESSAGE_MS)

        return self._window.submit_edit(edit, on_done=done)

    # -- citing and opening ------------------------------------------------------------
    def copy_cite_keys(self) -> bool:
        """Put ``\\cite{key}`` of the selected papers (``\\cite{a,b}`` for several) on the
        clipboard (Ctrl+K); the keys are read on the reader thread.

        Returns:
            False when no paper is selected.
        """
        ids = self._window.selected_ids()
        if not ids:
            self._window.show_error("Select the papers to cite first")
            return False

        def copy(keys: list[str]) -> None:
            if self._window.is_shut_down():
                return
            text = cite_command(keys)
            QApplication.clipboard().setText(text)
            shown = text if len(text) <= _QUOTE_LIMIT else text[:_QUOTE_LIMIT - 2] + "…}"
            self._window.statusBar().showMessage(f"Copied {shown} to the clipboard", MESSAGE_MS)

        job = self._window.worker.read(lambda lib: [lib.papers.citation_key(pid) for pid in ids],
                                       on_done=copy,
                                       on_failed=lambda message: self._window.show_error(
                                           f"Not copied: {message}"),
                                       label="citation keys")
        return job is not None

    def open_paper_page(self) -> bool:
        """Open the paper's own page in the browser (o): its DOI at doi.org, else its
        arXiv page, else its URL. A paper without any says how to add one. While the
        current row's paper is on its way from the reader thread, once it is shown.

        Returns:
            True when the link was handed to the opener (the status bar then says
            whether the browser took it, and copies the link when not).
        """
        if self._window.reading.when_shown(self.open_paper_page):
            return True     # the current row's paper is on its way: its page opens then
        paper = self._window.detail_pane.paper
        if paper is None:
            self._window.statusBar().showMessage("Select a paper first", MESSAGE_MS)
            return False
        url = own_page_url(paper.metadata)
        if url is None:
            self._window.statusBar().showMessage(NO_PAGE_MESSAGE, 6000)
            return False
        problem = link_problem(url) or (None if is_safe_url(url)
                                        else "only http and https links open")
        if problem:
            self._window.show_error(f"Not opened: {url[:80]} ({problem})")
            return False
        self._window.statusBar().showMessage(f"Opening {url} in the browser…", MESSAGE_MS)
        threading.Thread(target=self._open, args=(url,), name="paperdesk-open-link",
                         daemon=True).start()
        return True

    def _open(self, url: str) -> None:
        """(On the opener's thread.) Open ``url`` and send the answer to the window."""
        problem = open_in_browser(url) or ""
        try:
            self._opened.done.emit(url, problem)
        except RuntimeError:    # the window was closed meanwhile: nobody to tell
            pass

    def _page_opened(self, url: str, problem: str) -> None:
        """Say whether the browser took ``url``; when not, copy it to the clipboard so
        that it can be pasted into a browser by hand."""
        if self._window.is_shut_down():
            return
        if not problem:
            self._window.statusBar().showMessage(f"Opened {url} in the browser", MESSAGE_MS)
            return
        QApplication.clipboard().setText(url)
        self._window.statusBar().showMessage(
            f"Could not open {url[:80]}: {problem}. The link is copied to the clipboard: "
            "paste it into a browser", FAILED_OPEN_MS)
