"""Embedding the library's papers for the window (issue 27): ``Library.discover.
embeddings.ensure`` on a thread of its own, with progress and Cancel, never on the UI
thread or the worker's reader or writer thread. From 3,000 papers to embed the engine
does the work in a child process and this thread only waits for it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from paperdesk.core.api import BuildCancelled, BuildFailed
from paperdesk.core.library import Library
from paperdesk.ui.background.runner import Runner

__all__ = ["EmbeddingRunner"]


class EmbeddingRunner(Runner):
    """Embeds the papers that have no vector yet, one run at a time.

    Signals (UI thread):
        progress(int, int): ``(papers embedded, papers to embed)``.
        finished(object): the number of papers embedded (int), or the one line saying
            why there are no embeddings (str: the model is not installed).
        failed(str): a one-line reason.
        cancelled(): :meth:`cancel` stopped it (the parts it finished are kept).

    Args:
        library: the open library.
        parent: Qt parent.
    """

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    thread_name = "paperdesk-vectors"
    what = "embedding papers"
    expected_errors = (BuildFailed,)
    cancelled_by = (BuildCancelled,)

    def __init__(self, library: Library, parent: QObject | None = None):
        super().__init__(parent)
        self._lib = library

    def start(self) -> bool:
        """Start embedding. Returns False when a run is going on or after shutdown."""
        if self.is_running() or self._stopped:
            return False
        cancel = self._new_cancel()

        def embed():                            # the runner's thread
            embeddings = self._lib.discover.embeddings
            problem = embeddings.problem()
            if problem:
                return problem
            done = embeddings.ensure(lambda d, t: self._relay("progress", d, t),
                                     cancel.is_set)
            if cancel.is_set():
                raise BuildCancelled("cancelled")
            return done

        self._run_in_thread(embed)
        return True

    def _on_done(self, value) -> None:
        self.finished.emit(value)

    def _on_failed(self, message: str) -> None:
        self.failed.emit(message)

    def _on_cancelled(self) -> None:
        self.cancelled.emit()
