"""The right-hand pane: one paper's title, date, abstract, arXiv ids and source files."""

from __future__ import annotations

from PySide6.QtCore import QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFrame, QTextBrowser, QWidget

from ..core.models import Paper
from .paper_html import paper_html

__all__ = ["DetailPane", "PLACEHOLDER", "SAFE_SCHEMES"]

PLACEHOLDER = "Select a paper to read its abstract"
#: The only URL schemes a click may open (in the system browser).
SAFE_SCHEMES = frozenset({"http", "https"})


class DetailPane(QTextBrowser):
    """Read-only rich-text view of one paper (objectName ``detailPane``).

    All paper text is escaped before it reaches Qt (see :mod:`paperdesk.ui.paper_html`);
    the browser never follows links itself. A clicked link is handed to the system browser
    only if it is http or https.

    Signals:
        linkRefused(QUrl): a clicked link was not opened because of its scheme.
    """

    linkRefused = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("detailPane")
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setPlaceholderText(PLACEHOLDER)
        self.document().setDocumentMargin(14)
        self.anchorClicked.connect(self.open_link)
        self._paper_id: int | None = None

    @property
    def paper_id(self) -> int | None:
        """The id of the paper shown, or ``None``."""
        return self._paper_id

    def show_paper(self, paper: Paper, query: str | None = None) -> None:
        """Show ``paper``, highlighting the words of ``query`` if given.

        Args:
            paper: from ``Library.get``.
            query: the active search query, or ``None``.
        """
        self._paper_id = paper.id
        self.setHtml(paper_html(paper, query))
        self.verticalScrollBar().setValue(0)

    def clear_paper(self, message: str = PLACEHOLDER) -> None:
        """Show nothing but a grey hint.

        Args:
            message: the hint, e.g. :data:`PLACEHOLDER` or "No papers match".
        """
        self._paper_id = None
        self.setPlaceholderText(message)
        self.clear()

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
        if url.isValid() and url.scheme().lower() in SAFE_SCHEMES and url.host():
            QDesktopServices.openUrl(url)
            return True
        self.linkRefused.emit(url)
        return False
