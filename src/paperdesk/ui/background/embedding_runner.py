"""Embedding the library's papers for the window (issue 27): ``Library.discover.
embeddings.ensure`` on a thread of its own, with progress and Cancel, never on the UI
thread or the worker's reader or writer thread. From 3,000 papers to embed the engine
does the work in a child process and this thread only waits for it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal

from paperdesk.core.api import BuildCancelled
from paperdesk.ui.background.discover_runner import BackgroundBuild

__all__ = ["EmbeddingRunner"]


class EmbeddingRunner(BackgroundBuild):
    """Embeds the papers that have no vector yet, one run at a time.

    Signals (UI thread): those of :class:`~.discover_runner.BackgroundBuild` (progress:
    ``(papers embedded, papers to embed)``; cancelled: the parts finished are kept), and
        finished(object): the number of papers embedded (int), or the one line saying
            why there are no embeddings (str: the model is not installed).

    Args:
        library: the open library.
        parent: Qt parent.
    """

    finished = Signal(object)
    thread_name = "paperdesk-vectors"
    what = "embedding papers"

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
