"""Discover work for the window: what the reading pane shows about a paper (related
papers, key terms, tag suggestions) and the full build of the term table.

* :func:`discover_answer` is what the window hands to its
  :class:`~paperdesk.ui.background.operations.LibraryWorker` as a *read* (reader thread):
  the three answers for one paper in one go, with the discover engine's "not ready" and
  "no terms" outcomes turned into a state instead of an exception.
* :class:`DiscoverRunner` runs ``Library.discover.ensure`` (the full build, tens of
  seconds at 100,000 papers) on a thread of its own, never on the worker's reader or
  writer thread, so no list, search, count or edit waits for it; it reports progress,
  can be cancelled, and says when it is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal

from paperdesk.core.api import BuildCancelled, BuildFailed
from paperdesk.core.api import (KeyTerm, NotInTable, RelatedPaper, TagSuggestion,
                                            TermsNotReady)
from paperdesk.core.library import Library
from paperdesk.core.models import UnknownPaper
from paperdesk.ui.background.runner import Runner

__all__ = ["DiscoverAnswer", "discover_answer", "BackgroundBuild", "DiscoverRunner", "READY",
           "NOT_READY",
           "NO_TERMS", "UNKNOWN"]

#: :attr:`DiscoverAnswer.state` values.
READY, NOT_READY, NO_TERMS, UNKNOWN = "ready", "not ready", "no terms", "unknown"


@dataclass(frozen=True)
class DiscoverAnswer:
    """What the reading pane shows about one paper.

    Attributes:
        paper_id: the paper asked about.
        state: :data:`READY` (the lists below are filled), :data:`NOT_READY` (the term
            table must be built first: ``TermsNotReady``), :data:`NO_TERMS` (the paper
            has no words to compare: ``NotInTable``) or :data:`UNKNOWN` (no such paper).
        related: up to 10 :class:`RelatedPaper`, most similar first.
        terms: up to 8 :class:`KeyTerm`, heaviest first.
        suggestions: up to 3 :class:`TagSuggestion`, strongest first (only tags the
            paper does not have).
    """

    paper_id: int
    state: str
    related: tuple[RelatedPaper, ...] = ()
    terms: tuple[KeyTerm, ...] = ()
    suggestions: tuple[TagSuggestion, ...] = field(default_factory=tuple)


def discover_answer(lib: Library, paper_id: int, related: int = 10, terms: int = 8,
                    suggestions: int = 3) -> DiscoverAnswer:
    """Ask ``lib.discover`` about one paper (call it on a worker thread: it reads
    SQLite and may bring the term table up to date with a few changed papers).

    Args:
        lib: the library.
        paper_id: the paper.
        related, terms, suggestions: most related papers, key terms and tag suggestions.
    Returns:
        A :class:`DiscoverAnswer`; ``TermsNotReady``, ``NotInTable`` and
        ``UnknownPaper`` become its ``state``.
    Raises:
        sqlite3.Error: the database cannot be read (the worker makes it one line).
    """
    d = lib.discover
    try:
        return DiscoverAnswer(paper_id, READY, tuple(d.related(paper_id, related)),
                              tuple(d.key_terms(paper_id, terms)),
                              tuple(d.suggest_tags(paper_id, suggestions)))
    except TermsNotReady:
        return DiscoverAnswer(paper_id, NOT_READY)
    except NotInTable:
        return DiscoverAnswer(paper_id, NO_TERMS)
    except UnknownPaper:
        return DiscoverAnswer(paper_id, UNKNOWN)


class BackgroundBuild(Runner):
    """A runner that builds something derived for discover on a thread of its own (the
    term table, the papers' vectors), one run at a time, with progress and Cancel.

    Signals (UI thread):
        progress(int, int): ``(done, total)``.
        failed(str): a one-line reason.
        cancelled(): :meth:`cancel` stopped it.

    Args:
        library: the open library.
        parent: Qt parent.
    """

    progress = Signal(int, int)
    failed = Signal(str)
    cancelled = Signal()
    expected_errors = (BuildFailed,)
    cancelled_by = (BuildCancelled,)

    def __init__(self, library: Library, parent: QObject | None = None):
        super().__init__(parent)
        self._lib = library

    def _on_failed(self, message: str) -> None:
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        self.cancelled.emit()


class DiscoverRunner(BackgroundBuild):
    """Builds the library's term table (``Library.discover.ensure``) on a thread of its
    own, one build at a time; in a library of :data:`~paperdesk.core.discover.build.
    CHILD_FROM` papers or more the engine does the work in a child process and this
    thread only waits for it.

    Signals (UI thread): those of :class:`BackgroundBuild` (progress: ``(papers read,
    papers)``; cancelled: the old table, if any, stays), and
        finished(): the table is ready (ask again).

    Args:
        library: the open library.
        parent: Qt parent.
    """

    finished = Signal()
    thread_name = "paperdesk-terms"
    what = "building the term table"

    def start(self) -> bool:
        """Start a build. Returns False when one runs already or after shutdown."""
        if self.is_running() or self._stopped:
            return False
        cancel = self._new_cancel()

        def build() -> None:                    # the runner's thread
            self._lib.discover.ensure(lambda d, t: self._relay("progress", d, t),
                                      cancel.is_set)
            if cancel.is_set():
                raise BuildCancelled("cancelled")

        self._run_in_thread(build)
        return True

    def cancel(self) -> None:
        """Ask the build to stop (at its next progress step; a child process is
        killed). ``cancelled`` follows, or ``finished`` if it was already done."""
        super().cancel()

    def _on_done(self, _value: None) -> None:
        self.finished.emit()
