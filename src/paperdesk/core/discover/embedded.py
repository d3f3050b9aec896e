"""The library's paper vectors for discover (``Library.discover.embeddings``): whether the
model is installed, loading ``vectors/``, and embedding the papers that miss a vector.

Related papers use the vectors when there are some (:func:`~.hybrid.hybrid_rows`); the
model itself is needed only to embed papers (and a search query), so related papers of
papers embedded earlier answer even while new ones are embedded.

Thread safety: every method may be called from any thread; a lock guards the loaded
vectors, a second one lets one embedding run at a time.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.embeddings.vectors import VECTORS_DIR, PaperVectors, VectorsError

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["PaperEmbeddings", "NOT_INSTALLED", "CHILD_FROM", "COUNT_SHARE"]

_log = logging.getLogger(__name__)

#: The one line said (once, in the status bar) when the model is not installed.
NOT_INSTALLED = ("related papers by tf-idf alone: the embedding model is not installed "
                 "(pip install 'paperdesk[embeddings]')")
#: From this many papers to embed, the embedding runs in a child process.
CHILD_FROM = 3000
#: ``paperdesk check`` says so when more than this share of the stored vectors are of
#: papers that no longer exist, or of the papers have no vector of their current text
#: (a few papers deleted or added since the last embedding are not worth a line).
COUNT_SHARE = 0.1


def model_problem() -> str | None:
    """Why papers cannot be embedded here (one line), or ``None``: the optional packages
    ``wordllama``, ``tokenizers`` and ``safetensors`` must be installed."""
    for name in ("wordllama", "tokenizers", "safetensors"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return NOT_INSTALLED
    return None


class PaperEmbeddings:
    """The vectors of one library.

    Args:
        library: the open library.
        not_writable: returns why the library's folder must not be written, or ``None``
            (:meth:`~.engine.Discover.not_writable`).
    """

    def __init__(self, library: "Library", not_writable: Callable[[], str | None]):
        self._lib = library
        self._not_writable = not_writable
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._vectors: PaperVectors | None = None
        self._loaded = False
        self._problem: str | None | bool = False        # False: not checked yet
        #: ``(embedded, to embed)`` of the embedding running, else ``(0, 0)``.
        self.progress = (0, 0)
        #: Whether papers are being embedded now.
        self.running = False
        self._model = None

    @property
    def folder(self):
        """The library's ``vectors/`` folder."""
        return self._lib.path / VECTORS_DIR

    def problem(self) -> str | None:
        """Why there are no embeddings (one line: the model is not installed), or
        ``None`` (checked once per library)."""
        if self._problem is False:
            self._problem = model_problem()
        return self._problem

    def current(self) -> PaperVectors | None:
        """The stored vectors (loaded at the first call, again after an embedding), or
        ``None`` when there are none or they are damaged (then the next
        :meth:`ensure` embeds every paper again)."""
        with self._lock:
            if not self._loaded:
                try:
                    self._vectors = PaperVectors.load(self.folder,
                                                      update=self._not_writable() is None)
                except VectorsError as exc:
                    _log.info("vectors not used: %s", exc)
                    self._vectors = None
                self._loaded = True
            return self._vectors

    def nearest_to_text(self, text: str, limit: int,
                        floor: float = -1.0) -> tuple[list[int], str]:
        """The papers whose vectors are nearest to a text's (search by meaning).

        Args:
            text: the query.
            limit: most papers.
            floor: the least cosine (-1 .. 1) of a paper answered (the default, -1,
                answers the ``limit`` nearest whatever their cosine).
        Returns:
            ``(paper ids best first, note)``: no papers and a one-line note when the
            model is not installed or no paper is embedded yet.
        """
        from paperdesk.core.embeddings.static_model import ModelUnavailable, StaticModel

        problem = self.problem()
        vectors = self.current() if problem is None else None
        if problem is None and (vectors is None or not len(vectors)):
            problem = "searched by words alone: the papers are not embedded yet"
        if problem is None:
            try:
                with self._lock:
                    if self._model is None:
                        self._model = StaticModel()
                    model = self._model
                query = model.encode([text])[0]
            except ModelUnavailable as exc:
                problem = str(exc)
        if problem is not None:
            return [], problem
        if not query.any():
            return [], "searched by words alone: the query has no word the model knows"
        rows, cosines = vectors.nearest(query, limit)
        rows = rows[cosines >= np.float32(floor)]
        return [int(i) for i in vectors.ids[rows]], ""

    def full_problems(self) -> list[str]:
        """The check of ``paperdesk check``: every file of ``vectors/`` read whole
        (:func:`~paperdesk.core.embeddings.vectors.full_problems`). Damaged parts are
        dropped when the library may be written, so the next embedding (after the term
        table, in the window; ``search --semantic``, ``related`` on the command line)
        computes their papers' vectors again.

        Returns:
            One line per problem, each naming the file (empty: whole, or no vectors).
        """
        from paperdesk.core.embeddings.vectors import drop_parts, full_problems

        problems, damaged = full_problems(self.folder)
        if damaged and self._not_writable() is None:
            with self._build_lock, self._lock:
                try:
                    drop_parts(self.folder, damaged)
                except OSError as exc:
                    problems.append(f"{self.folder}: the damaged parts cannot be "
                                    f"removed ({exc.strerror or exc})")
                self._loaded = False
                self._vectors = None
        return problems

    def count_problems(self) -> tuple[list[str], list[str]]:
        """The counts check of ``paperdesk check``: the stored vectors against the
        papers. ``vectors/`` is never compacted (its parts are written once), so the
        vectors of deleted papers stay in it; when they are more than
        :data:`COUNT_SHARE` of it, the folder is removed (when the library may be
        written) and every paper is embedded again at the next use.

        Returns:
            ``(rebuilt, missing)``: one line each, naming the folder and the counts:
            ``rebuilt`` when too many vectors are of papers that no longer exist (the
            folder removed), ``missing`` when more than :data:`COUNT_SHARE` of the
            papers have no vector of their current text (embedded at the next use).
            Both empty without the model, without vectors, or with damaged files
            (:meth:`full_problems` says so).
        Raises:
            sqlite3.Error: the database cannot be read.
        """
        from paperdesk.core.discover.term_table import current_stamps
        from paperdesk.core.embeddings.vector_build import missing_ids
        from paperdesk.core.embeddings.vectors import remove

        stored = self.current()
        if self.problem() or stored is None or not len(stored):
            return [], []
        ids, stamps = current_stamps(self._lib.db)
        ids = np.asarray(ids, dtype=np.int64)
        gone = int(len(stored) - np.isin(stored.ids, ids).sum())
        if gone > COUNT_SHARE * len(stored):
            line = (f"{self.folder}: {gone:,} of its {len(stored):,} vectors are of papers "
                    "that no longer exist")
            if self._not_writable() is None:
                with self._build_lock, self._lock:
                    try:
                        remove(self.folder)
                    except OSError as exc:
                        line += f" (it cannot be removed: {exc.strerror or exc})"
                    self._loaded = False
                    self._vectors = None
            return [line], []
        lacking = len(missing_ids((ids, stamps), stored))
        if lacking > COUNT_SHARE * len(ids):
            return [], [f"{self.folder}: {lacking:,} of the {len(ids):,} papers have no "
                        "vector of their current text"]
        return [], []

    def missing(self) -> int:
        """How many papers have no vector of their current text (reads SQLite: ~0.1 s
        at 100,000 papers); 0 when the model is not installed."""
        from paperdesk.core.discover.term_table import current_stamps
        from paperdesk.core.embeddings.vector_build import missing_ids

        if self.problem():
            return 0
        return len(missing_ids(current_stamps(self._lib.db), self.current()))

    def ensure(self, progress: Callable[[int, int], None] | None = None,
               cancel: Callable[[], bool] | None = None) -> int:
        """Embed the papers without a vector (resumable: what a cancelled run finished
        stays), in a child process from :data:`CHILD_FROM` papers.

        Args:
            progress: ``progress(embedded, to_embed)``.
            cancel: returns True to stop.
        Returns:
            How many papers were embedded (0 without the model, or in a library that
            must not be written: related papers are then tf-idf alone).
        Raises:
            BuildCancelled: cancelled.
            BuildFailed: the embedding failed (one line).
            sqlite3.Error: the database cannot be read.
        """
        from paperdesk.core.discover.build import BuildFailed
        from paperdesk.core.embeddings.static_model import ModelUnavailable
        from paperdesk.core.embeddings.vector_build import embed_in_child, embed_missing

        if self.problem() or self._not_writable() is not None:
            return 0
        with self._build_lock:
            to_embed = self.missing()
            if not to_embed:
                return 0
            self.running = True

            def step(done: int, total: int) -> None:
                self.progress = (done, total)
                if progress is not None:
                    progress(done, total)
            try:
                db = self._lib.path / "library.db"
                if to_embed >= CHILD_FROM:
                    done = embed_in_child(db, self.folder, step, cancel)
                else:
                    done = embed_missing(db, self.folder, step, cancel)
            except (ModelUnavailable, OSError) as exc:
                raise BuildFailed(f"papers cannot be embedded: {exc}") from None
            finally:
                self.running = False
                self.progress = (0, 0)
                with self._lock:
                    self._loaded = False
            return done
