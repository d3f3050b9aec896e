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

import sys
import threading
import traceback
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThread, Signal, Slot

from paperdesk.core.api import BuildCancelled, BuildFailed
from paperdesk.core.api import (KeyTerm, NotInTable, RelatedPaper, TagSuggestion,
                                            TermsNotReady)
from paperdesk.core.library import Library
from paperdesk.core.models import UnknownPaper

__all__ = ["DiscoverAnswer", "discover_answer", "DiscoverRunner", "READY", "NOT_READY",
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


class _BuildWorker(QObject):
    """Runs ``lib.discover.ensure`` in the runner's thread."""

    progress = Signal(int, int)
    done = Signal()
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, library: Library, cancel: threading.Event):
        super().__init__()
        self._lib = library
        self._cancel = cancel

    @Slot()
    def run(self) -> None:
        """Build (in the runner's thread); the outcome goes out as a signal."""
        try:
            self._lib.discover.ensure(lambda d, t: self.progress.emit(d, t),
                                      self._cancel.is_set)
        except BuildCancelled:
            self.cancelled.emit()
            return
        except Exception as exc:  # noqa: BLE001 - reported to the UI, never raised here
            if not isinstance(exc, BuildFailed):
                print("paperdesk: building the term table failed:", file=sys.stderr)
                traceback.print_exc(file=sys.stderr)
            text = str(exc).strip().splitlines()
            self.failed.emit(text[0] if text else type(exc).__name__)
            return
        if self._cancel.is_set():
            self.cancelled.emit()
        else:
            self.done.emit()


class DiscoverRunner(QObject):
    """Builds the library's term table (``Library.discover.ensure``) on a thread of its
    own, one build at a time; in a library of :data:`~paperdesk.core.discover.build.
    CHILD_FROM` papers or more the engine does the work in a child process and this
    thread only waits for it.

    Signals (UI thread):
        progress(int, int): ``(papers read, papers)`` of the build.
        finished(): the table is ready (ask again).
        failed(str): a one-line reason.
        cancelled(): :meth:`cancel` stopped it (the old table, if any, stays).

    Args:
        library: the open library.
        parent: Qt parent.
    """

    progress = Signal(int, int)
    finished = Signal()
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, library: Library, parent: QObject | None = None):
        super().__init__(parent)
        self._lib = library
        self._thread: QThread | None = None
        self._worker: _BuildWorker | None = None
        self._cancel = threading.Event()
        self._stopped = False

    def is_running(self) -> bool:
        """True from :meth:`start` until the outcome was delivered."""
        return self._thread is not None

    def start(self) -> bool:
        """Start a build. Returns False when one runs already or after shutdown."""
        if self._thread is not None or self._stopped:
            return False
        self._cancel = threading.Event()
        thread = QThread()
        thread.setObjectName("paperdesk-terms")
        worker = _BuildWorker(self._lib, self._cancel)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progress.connect(self._on_progress)
        worker.done.connect(self._on_done)
        worker.failed.connect(self._on_failed)
        worker.cancelled.connect(self._on_cancelled)
        self._thread, self._worker = thread, worker
        thread.start()
        return True

    def cancel(self) -> None:
        """Ask the build to stop (at its next progress step; a child process is
        killed). ``cancelled`` follows, or ``finished`` if it was already done."""
        self._cancel.set()

    def shutdown(self) -> None:
        """Cancel a running build and wait for its thread. Safe to call twice."""
        self._stopped = True
        self._cancel.set()
        self._join()

    def _join(self) -> None:
        thread, worker = self._thread, self._worker
        if thread is not None:
            thread.quit()
            thread.wait()
        self._thread = self._worker = None
        del worker

    @Slot(int, int)
    def _on_progress(self, done: int, total: int) -> None:
        if not self._stopped:
            self.progress.emit(done, total)

    @Slot()
    def _on_done(self) -> None:
        self._join()
        if not self._stopped:
            self.finished.emit()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._join()
        if not self._stopped:
            self.failed.emit(message)

    @Slot()
    def _on_cancelled(self) -> None:
        self._join()
        if not self._stopped:
            self.cancelled.emit()
