"""Near-duplicate papers: the background stage that flags them, listing, "not
duplicates", and merging two papers into one.

:class:`DuplicatesMixin` is part of :class:`paperdesk.core.library.Library`. The measure
and its threshold are in :mod:`paperdesk.core.duplicates`; the tables in
:mod:`paperdesk.core.store.duplicates`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import sqlite_utils

from paperdesk.core import duplicates as measure
from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.duplicates import DuplicatePair
from paperdesk.core.models import LibraryError, UnknownPaper
from paperdesk.core.store import db as _db
from paperdesk.core.store import duplicates as store

__all__ = ["DuplicatesMixin", "DUPLICATE_BATCH", "SHINGLE_CACHE"]

#: Most papers looked at in one transaction of :meth:`DuplicatesMixin.find_near_duplicates`.
DUPLICATE_BATCH = 200
#: Shingle sets of candidate papers kept between papers (bounded memory: about 30 kB a
#: set of a 200-word abstract).
SHINGLE_CACHE = 2000


class DuplicatesMixin:
    """Near-duplicate methods of :class:`Library` (needs ``self.db``, ``self._record``,
    ``self._existing_ids``)."""

    db: sqlite_utils.Database

    # -- the stage ---------------------------------------------------------------------
    def near_duplicates_pending(self) -> int:
        """Number of papers :meth:`find_near_duplicates` has not looked at yet (new,
        migrated, restored, or whose abstract changed)."""
        return store.unchecked_count(self.db)

    def find_near_duplicates(self, ids: Sequence[int] | None = None,
                             progress: Callable[[str, int, int], None] | None = None,
                             cancel: Callable[[], bool] | None = None,
                             between_batches: Callable[[], None] | None = None) -> int:
        """Flag near-duplicate abstracts: the background stage run after papers are
        stored (an import does not wait for it).

        Each paper not looked at yet (of ``ids``, or of the whole library) gets its
        MinHash signature; the papers sharing an LSH band with it (new or already looked
        at, at most :data:`~paperdesk.core.duplicates.MAX_CANDIDATES`) are compared with
        the exact measure, and each pair at or above
        :data:`~paperdesk.core.duplicates.THRESHOLD` is flagged ``open``, unless it was
        flagged before with the same two abstracts (a dismissed pair stays dismissed).
        Its band hashes are then stored, so a later run compares only papers that are
        new by then. Work is committed every :data:`DUPLICATE_BATCH` papers: a cancelled
        or interrupted run resumes where it stopped, and running it again when nothing is
        new costs one query.

        Args:
            ids: only these papers (e.g. those an import added); ``None``: every paper not
                looked at yet.
            progress: called as ``progress("duplicates", done, total)`` after each batch.
            cancel: polled before each batch; what is left is looked at next time.
            between_batches: called after each committed batch, outside any transaction.
        Returns:
            The number of pairs newly flagged.
        Raises:
            LibraryError: the library is closed.
        """
        progress = progress or (lambda stage, done, total: None)
        cancel = cancel or (lambda: False)
        ids = None if ids is None else [int(i) for i in ids]
        if ids is not None and not ids:
            return 0
        total = store.unchecked_count(self.db, ids)
        if not total:
            return 0
        progress("duplicates", 0, total)
        cache: OrderedDict[int, frozenset] = OrderedDict()
        done = flagged = 0
        after = 0
        db = self.db
        while True:
            if cancel():
                break
            rows = store.unchecked(db, DUPLICATE_BATCH, after, ids)
            if not rows:
                break
            after = rows[-1][0]
            signed = []
            for pid, abstract, digest, seen in rows:
                sh = measure.shingles(abstract)
                sig = measure.signature(sh)
                signed.append((pid, digest, seen, sh,
                               measure.band_hashes(sig) if sig is not None else []))
            now = _now()
            with _db.transaction(db):
                for pid, digest, seen, sh, buckets in signed:
                    found = store.candidates(db, buckets, pid, measure.MAX_CANDIDATES)
                    for other, other_hash, other_sh in self._shingled(db, found, cache):
                        score = measure.jaccard(sh, other_sh)
                        if score >= measure.THRESHOLD and store.flag_pair(
                                db, (pid, digest), (other, other_hash), score, now):
                            flagged += 1
                    store.mark_checked(db, pid, digest, buckets, seen)
                    cache[pid] = sh
                    cache.move_to_end(pid)
                    while len(cache) > SHINGLE_CACHE:
                        cache.popitem(last=False)
            done += len(rows)
            progress("duplicates", min(done, total), total)
            if between_batches is not None:
                between_batches()
        return flagged

    @staticmethod
    def _shingled(db, ids: list[int], cache: OrderedDict):
        """``(id, content_hash, shingles)`` of each candidate (shingles from ``cache``
        when there, else computed from the stored abstract)."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        out = []
        for pid, digest, abstract in db.execute(
                f"SELECT id, content_hash, abstract FROM papers WHERE id IN ({marks})", ids):
            sh = cache.get(pid)
            if sh is None:
                sh = measure.shingles(abstract)
            out.append((pid, digest, sh))
        return out

    # -- reading -----------------------------------------------------------------------
    def near_duplicates(self, status: str = "open") -> list[DuplicatePair]:
        """Return the flagged pairs whose papers both still exist with the abstracts they
        were flagged with, most similar first.

        Args:
            status: ``"open"`` (default) or ``"dismissed"``.
        Returns:
            :class:`~paperdesk.core.duplicates.DuplicatePair` values.
        Raises:
            ValueError: another status.
        """
        if status not in ("open", "dismissed"):
            raise ValueError(f"unknown status {status!r}; use open or dismissed")
        return store.pairs(self.db, status)

    def near_duplicate_count(self) -> int:
        """Number of open pairs (what the window's "possible duplicates" entry shows)."""
        return store.open_count(self.db)

    def _live_pair(self, a: int, b: int) -> DuplicatePair:
        self._existing_ids([a, b])
        if int(a) == int(b):
            raise LibraryError(f"paper {a} cannot be a duplicate of itself")
        found = store.pair(self.db, a, b)
        if found is None:
            raise LibraryError(f"papers {a} and {b} are not flagged as possible duplicates")
        return found

    # -- not duplicates ----------------------------------------------------------------
    def dismiss_duplicate(self, a: int, b: int, undoable: bool = True) -> Changes:
        """Mark a flagged pair "not duplicates": it leaves the list and is not flagged
        again while both papers keep their abstracts.

        Args:
            a, b: the two paper ids (any order).
            undoable: record an undo step ("Not duplicates: papers 3 and 9").
        Returns:
            :class:`Changes` with ``duplicates`` set (empty when already dismissed).
        Raises:
            UnknownPaper: an id is not in the library.
            LibraryError: the two are not a flagged pair.
        """
        found = self._live_pair(a, b)
        if found.status == "dismissed":
            return NO_CHANGES
        lo, hi = found.paper_a, found.paper_b
        changes = self._set_pair_status(lo, hi, "dismissed")
        return self._record(f"Not duplicates: papers {lo} and {hi}", changes,
                            lambda: self._set_pair_status(lo, hi, "open"),
                            lambda: self._set_pair_status(lo, hi, "dismissed"),
                            undoable=undoable)

    def _set_pair_status(self, a: int, b: int, status: str) -> Changes:
        with _db.transaction(self.db) as db:
            store.set_status(db, a, b, status)
        return Changes.of(papers=[a, b], duplicates=True, search=False)
