"""A screening for a tag over a pool of papers: which paper comes next, the counts, and
the stopping estimate.

The **pool** is the papers a screening goes through: the whole library, a query's
results or a saved search's (a :class:`~paperdesk.core.scope.Scope`), plus every paper
already decided for the tag (tagged or excluded), so that earlier decisions always
count. Its feature matrix and, with the ``embeddings`` extra, its vectors are built once
per screening with :func:`paperdesk.core.screening.ranker.build_features` and
:func:`~paperdesk.core.screening.ranker.build_vectors` over "title abstract" per paper,
and cached in the library folder (``screening/features-<key>-<model>.npz``, derived and
rebuildable; the key is the SHA-256 of the pool's ids, abstracts' content hashes, titles
and the vectors' model): building them takes seconds at 10,000 papers, which the command
line would otherwise pay on every call.

After every decision :func:`standing` ranks the undecided papers of the pool
(:func:`~paperdesk.core.screening.ranker.rank`, trained on the pool's included and
excluded papers) and estimates how many relevant papers there are
(:func:`~paperdesk.core.screening.stopping.estimate`, from the decisions in the order
they were made). Both run off the window's UI thread.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.models import LibraryError
from paperdesk.core.scope import Scope
from paperdesk.core.screening import ranker, stopping

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["Pool", "Standing", "build_pool", "pool_ids", "scope_papers", "standing",
           "FEATURES_DIR", "estimate_text"]

#: The folder of cached feature matrices, in the library folder (derived).
FEATURES_DIR = "screening"
#: Cached matrices kept (the newest; older ones are deleted when one is written).
KEEP_CACHED = 4
_CHUNK = 500


@dataclass(frozen=True)
class Pool:
    """The papers of one screening and their features.

    Attributes:
        tag_id: the tag screened for.
        tag_name: its name.
        ids: the pool's paper ids, ascending (int64 array); row ``i`` of ``matrix`` is
            paper ``ids[i]``.
        matrix: the feature matrix (scipy.sparse CSR, one row per paper).
        cached: True when ``matrix`` was read from the library folder's cache.
        vectors: the papers' vectors (float32, one row per paper), or None without the
            embedding model (:func:`~paperdesk.core.screening.ranker.build_vectors`).
    """

    tag_id: int
    tag_name: str
    ids: np.ndarray
    matrix: object
    cached: bool = False
    vectors: np.ndarray | None = None

    def rows(self, paper_ids: Iterable[int]) -> np.ndarray:
        """The matrix rows of those of ``paper_ids`` in the pool (int64, any order)."""
        wanted = np.fromiter(paper_ids, np.int64)
        at = np.searchsorted(self.ids, wanted)
        at = np.minimum(at, len(self.ids) - 1)
        return at[self.ids[at] == wanted].astype(np.int64)


@dataclass(frozen=True)
class Standing:
    """Where a screening stands after its latest decision.

    Attributes:
        tag_id, tag_name: the tag screened for.
        next_id: the paper to decide next (the top of the order that was not skipped),
            or ``None`` when every paper of the pool is decided.
        included: papers of the pool carrying the tag.
        excluded: papers of the pool excluded from it.
        left: papers of the pool not decided.
        estimate: :class:`~paperdesk.core.screening.stopping.StopEstimate`.
        ranked: the undecided papers of the pool, most likely relevant first (the
            window's list follows this order).
    """

    tag_id: int
    tag_name: str
    next_id: int | None
    included: int
    excluded: int
    left: int
    estimate: stopping.StopEstimate
    ranked: tuple[int, ...] = ()

    def counts_text(self) -> str:
        """``"12 included · 40 excluded · 1,123 left"``."""
        return (f"{self.included:,} included · {self.excluded:,} excluded · "
                f"{self.left:,} left")

    def estimate_text(self) -> str:
        """The estimate as a sentence (:func:`estimate_text`)."""
        return estimate_text(self.estimate)

    def to_dict(self) -> dict:
        """JSON shape for ``paperdesk screen --json`` (without the next paper's text)."""
        e = self.estimate
        return {"tag": self.tag_name, "tag_id": self.tag_id, "next": self.next_id,
                "included": self.included, "excluded": self.excluded, "left": self.left,
                "estimate": {"screened": e.screened, "found": e.found, "total": e.total,
                             "estimated_relevant": e.estimated_relevant,
                             "relevant_upper_bound": e.relevant_upper_bound,
                             "reached": e.reached, "p_value": e.p_value,
                             "target_recall": stopping.TARGET_RECALL,
                             "text": estimate_text(e)}}


def estimate_text(e: stopping.StopEstimate) -> str:
    """The stopping estimate in one sentence, as the window's banner and the command
    line show it.

    Args:
        e: from :func:`paperdesk.core.screening.stopping.estimate`.
    Returns:
        "No relevant paper found yet", "3 relevant found so far; an estimate of how
        many there are needs some papers excluded" (no paper excluded yet), "About 12
        of an estimated 15 relevant found (at most 22)" (the point estimate, then the
        upper bound at 95 % confidence; when the point estimate is the number found,
        "; keep screening to be sure" follows), or,
        once the target recall is reached, "95 % of the relevant papers are probably
        found: you may stop (1,023 unread)".
    """
    unread = e.total - e.screened
    if e.found == 0:
        return "No relevant paper found yet"
    if e.screened <= e.found and not e.reached:   # nothing excluded yet: every paper
        return (f"{e.found:,} relevant found so far; an estimate of how many there are "
                "needs some papers excluded")      # left could be relevant
    if e.reached:
        return (f"{stopping.TARGET_RECALL:.0%}".replace("%", " %")
                + f" of the relevant papers are probably found: you may stop "
                  f"({unread:,} unread)")
    text = (f"About {e.found:,} of an estimated {e.estimated_relevant:,} relevant found "
            f"(at most {e.relevant_upper_bound:,})")
    if e.estimated_relevant <= e.found:     # likely all found, but not surely yet
        text += "; keep screening to be sure"
    return text


def scope_papers(lib: "Library", scope: Scope | None) -> list[int]:
    """The papers a screening's scope names (before the decided ones are added).

    Args:
        lib: the library.
        scope: the papers to screen (``None``: the whole library).
    Returns:
        Their ids.
    Raises:
        LibraryError: an unknown saved search, or the scope has no papers; ValueError:
            a bad scope.
    """
    if scope is None or scope == Scope():
        ids = lib.papers.ids()
    else:
        ids = lib.papers.scope_ids(scope)
    if not ids:
        raise LibraryError("nothing to screen: no papers" + (
            " match" if scope is not None and scope.searches else ""))
    return ids


def pool_ids(lib: "Library", tag_id: int, scope: Scope | None = None) -> np.ndarray:
    """The ids of a screening's papers: the scope's and every paper decided for the tag.

    Args:
        lib: the library.
        tag_id: the tag screened for.
        scope: the papers to screen (``None``: the whole library).
    Returns:
        int64 array, ascending.
    Raises:
        LibraryError: an unknown saved search, or the scope has no papers; ValueError:
            a bad scope.
    """
    decided = lib.screening.decided(tag_id)
    ids = scope_papers(lib, scope)
    both = set(ids) | decided.included | decided.excluded
    return np.array(sorted(both), dtype=np.int64)


def _texts_and_key(lib: "Library", ids: np.ndarray) -> tuple[list[str], str]:
    """The "title abstract" text of each paper, in ``ids`` order, and the cache key
    (without the vectors' model: :func:`build_pool` adds it)."""
    digest = hashlib.sha256(b"paperdesk-screening-features-2\n")
    texts: list[str] = []
    id_list = [int(i) for i in ids]
    for start in range(0, len(id_list), _CHUNK):
        chunk = id_list[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = {r[0]: r for r in lib.db.execute(
            f"SELECT id, content_hash, title, abstract FROM papers WHERE id IN ({marks})",
            chunk)}
        for pid in chunk:
            _, hashed, title, abstract = rows.get(pid, (pid, "", "", ""))
            texts.append(f"{title} {abstract}")
            digest.update(f"{pid}\x1f{hashed}\x1f{title}\n".encode("utf-8", "replace"))
    return texts, digest.hexdigest()[:32]


def _read_cached(path: Path, rows: int):
    """``(matrix, vectors or None)`` from the cache, or None when it is missing, cut
    short, not ours or of another number of rows."""
    from scipy import sparse
    try:
        with np.load(path, allow_pickle=False) as stored:
            matrix = sparse.csr_matrix((stored["data"], stored["indices"], stored["indptr"]),
                                       shape=tuple(stored["shape"]))
            vectors = stored["vectors"] if "vectors" in stored.files else None
    except (OSError, ValueError, KeyError, EOFError):
        return None            # missing, cut short or not ours: built again
    if matrix.shape[0] != rows or (vectors is not None and len(vectors) != rows):
        return None
    return matrix, vectors


def _write_cached(folder: Path, path: Path, matrix, vectors) -> None:
    """Write the matrix (and the vectors) atomically and keep only the newest
    :data:`KEEP_CACHED`; a folder that cannot be written is passed over (the cache is
    only a saving)."""
    arrays = {"data": matrix.data, "indices": matrix.indices, "indptr": matrix.indptr,
              "shape": np.array(matrix.shape, np.int64)}
    if vectors is not None:
        arrays["vectors"] = vectors
    try:
        folder.mkdir(exist_ok=True)
        partial = folder / f".{path.name}.partial-{os.getpid()}"
        with open(partial, "wb") as out:
            np.savez(out, **arrays)
        os.replace(partial, path)
        cached = sorted(folder.glob("features-*.npz"), key=lambda p: p.stat().st_mtime,
                        reverse=True)
        for old in cached[KEEP_CACHED:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def build_pool(lib: "Library", tag_name: str, scope: Scope | None = None,
               cache: bool = True) -> Pool:
    """The pool of a screening with its feature matrix (read from the library folder's
    cache when the same papers were screened before with the same texts).

    Args:
        lib: the library (read on the calling thread: the window calls this on its
            reader thread).
        tag_name: the tag screened for (it must exist).
        scope: the papers to screen; ``None`` is the whole library.
        cache: read and write ``screening/`` in the library folder (never written
            when the library is open read-only).
    Returns:
        A :class:`Pool`.
    Raises:
        LibraryError: no such tag, an unknown saved search, or nothing to screen
            (an empty pool); ValueError: a bad query.
    """
    tag = lib.screening.tag(tag_name)
    ids = pool_ids(lib, tag.id, scope)
    texts, key = _texts_and_key(lib, ids)
    model = ranker.vector_model()
    folder = lib.path / FEATURES_DIR
    path = folder / f"features-{key}-{model or 'words'}.npz"
    if cache:
        found = _read_cached(path, len(ids))
        if found is not None:
            return Pool(tag.id, tag.name, ids, found[0], cached=True, vectors=found[1])
    matrix = ranker.build_features(texts)
    vectors, _ = ranker.build_vectors(texts) if model else (None, "")
    if cache and not lib.read_only:
        _write_cached(folder, path, matrix, vectors)
    return Pool(tag.id, tag.name, ids, matrix, vectors=vectors)


def standing(lib: "Library", pool: Pool, skipped: Iterable[int] = (),
             seed: int = 0) -> Standing:
    """Rank the pool's undecided papers on its decisions and estimate where the
    screening stands.

    Args:
        lib: the library (read on the calling thread).
        pool: from :func:`build_pool`.
        skipped: papers skipped in this screening: passed over for the next paper
            while any other is undecided.
        seed: seeds the ranker's order before anything relevant and irrelevant is known.
    Returns:
        A :class:`Standing`.
    """
    decided = lib.screening.decided(pool.tag_id)
    in_pool = set(pool.ids.tolist())
    order = [(pid, rel) for pid, rel in decided.order if pid in in_pool]
    relevant = pool.rows(p for p, rel in order if rel)
    irrelevant = pool.rows(p for p, rel in order if not rel)
    ranked = ranker.rank(pool.matrix, relevant, irrelevant, seed=seed, vectors=pool.vectors)
    passed = set(int(i) for i in skipped)
    ranked_ids = pool.ids[ranked]
    next_id = next((int(p) for p in ranked_ids if int(p) not in passed), None)
    if next_id is None and len(ranked):
        next_id = int(ranked_ids[0])                # every one left was skipped
    estimate = stopping.estimate([rel for _, rel in order], len(pool.ids))
    return Standing(pool.tag_id, pool.tag_name, next_id, len(relevant), len(irrelevant),
                    len(ranked), estimate, tuple(ranked_ids.tolist()))
