"""Near-duplicate papers: the background stage that flags them, listing, "not
duplicates", and merging two papers into one.

:class:`Duplicates` is the library's ``lib.duplicates``. The measure
and its threshold are in :mod:`paperdesk.core.duplicates`; the tables in
:mod:`paperdesk.core.store.duplicates`.
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import sqlite_utils

from paperdesk.core import duplicates as measure
from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.duplicates import DuplicatePair
from paperdesk.core.models import LibraryError
from paperdesk.core.store import db as _db
from paperdesk.core.store import duplicates as store
from paperdesk.core.store.band_runs import BandStore, hash_digest, token_of
from paperdesk.core.store.key_aliases import add_alias
from paperdesk.core.store.papers import write_metadata
from paperdesk.core.manager import Manager
from paperdesk.core.memory import give_back_memory

__all__ = ["Duplicates", "DUPLICATE_BATCH", "SHINGLE_CACHE", "CHUNK"]

#: Most papers looked at in one transaction of :meth:`Duplicates.find`.
DUPLICATE_BATCH = 200
#: SQLite's page cache during the near-duplicate stage, in KiB (the candidates'
#: signatures and abstracts are read at random pages of the database).
STAGE_CACHE_KIB = 64 * 1024
#: Shingle sets of candidate papers kept between papers (bounded memory: about 30 kB a
#: set of a 200-word abstract).
SHINGLE_CACHE = 2000
#: Papers of a batch whose candidates are read and compared together before they are
#: flagged one after the other (``hurry`` is polled after each paper: an edit waits for
#: at most one chunk's reading and one paper's flags).
CHUNK = 32
#: Most ids in one ``IN (...)`` of SQL.
_CHUNK_IDS = 5000


class Duplicates(Manager):
    """Near-duplicate papers: ``lib.duplicates`` (see the module)."""

    def pending(self) -> int:
        """Number of papers :meth:`find` has not looked at yet (new,
        migrated, restored, or whose abstract changed)."""
        return store.unchecked_count(self.db)

    def find(self, ids: Sequence[int] | None = None,
                             progress: Callable[[str, int, int], None] | None = None,
                             cancel: Callable[[], bool] | None = None,
                             between_batches: Callable[[], None] | None = None,
                             hurry: Callable[[], bool] | None = None) -> int:
        """Flag near-duplicate abstracts: the background stage run after papers are
        stored (an import does not wait for it).

        Each paper not looked at yet (of ``ids``, or of the whole library) gets its
        MinHash signature; the papers sharing an LSH band with it (new or already looked
        at) whose signatures agree with it in at least
        :data:`~paperdesk.core.duplicates.PREFILTER` of places are compared with the
        exact measure, and each pair at or above
        :data:`~paperdesk.core.duplicates.THRESHOLD` is flagged ``open``, unless it was
        flagged before with the same two abstracts (a dismissed pair stays dismissed).
        A crowd of near-identical abstracts is bounded per paper
        (:data:`~paperdesk.core.duplicates.PER_BUCKET`, ``MAX_CANDIDATES``,
        ``MAX_EXACT``, ``MAX_FLAGS``: at most five pairs flagged per new paper, the most
        similar).
        Its band hashes are then stored, so a later run compares only papers that are
        new by then. Work is committed every :data:`DUPLICATE_BATCH` papers: a cancelled
        or interrupted run resumes where it stopped, and running it again when nothing is
        new costs one query.
        When it ends (done, cancelled or failed) it keeps nothing: its cache of word
        hashes is emptied and the memory it freed is given back to the system
        (:func:`~paperdesk.core.memory.give_back_memory`).

        Args:
            ids: only these papers (e.g. those an import added); ``None``: every paper not
                looked at yet.
            progress: called as ``progress("duplicates", done, total)`` after each batch.
            cancel: polled before each batch; what is left is looked at next time.
            between_batches: called after each committed batch, outside any transaction.
            hurry: polled after each paper of a batch: True ends the batch there (what
                it looked at is committed, then ``between_batches`` runs), so that an
                edit waiting for the writer waits for one paper, not for a batch of
                :data:`DUPLICATE_BATCH` (100-200 ms at 300,000 papers under load).
        Returns:
            The number of pairs newly flagged.
        Raises:
            LibraryError: the library is closed.
        """
        progress = progress or (lambda stage, done, total: None)
        cancel = cancel or (lambda: False)
        if ids is None:
            groups: list[list[int] | None] = [None]
        else:
            ids = sorted({int(i) for i in ids})
            groups = [ids[i:i + 500] for i in range(0, len(ids), 500)]
        totals = [store.unchecked_count(self.db, g) for g in groups]
        total = sum(totals)
        if not total:
            return 0
        progress("duplicates", 0, total)
        db = self.db
        # The bands live outside SQLite (core/store/band_runs.py): loaded, checked
        # against the signatures SQLite keeps, looked up with numpy; this run's bands are
        # written as one more sorted run when it ends (done, cancelled or failed).
        bands = BandStore(self._lib.path, writable=not self._lib.read_only).load()
        # A larger page cache for the stage only (64 MB, given back after): the
        # candidates' signatures and abstracts are read at random pages.
        cache_size = db.execute("PRAGMA cache_size").fetchone()[0]
        db.execute(f"PRAGMA cache_size = {-STAGE_CACHE_KIB}")
        try:
            if not self._lib.read_only:
                with _db.transaction(db):     # a library made before the band store
                    store.drop_old_bands(db)
            bands.sync(db)
            return self._find_in(db, bands, groups, totals, total, progress, cancel,
                                 between_batches, hurry or (lambda: False))
        finally:
            db.execute(f"PRAGMA cache_size = {int(cache_size)}")
            try:
                bands.save()
            except OSError:
                pass      # derived: what was not saved is computed from SQLite next time
            del bands
            # What the stage used (the word hashes, numpy temporaries, the bands) goes
            # back to the system: the window would otherwise keep its peak for the
            # session (104 MB at 30,000 papers, 70 MB of it only released by the
            # allocator's trim).
            measure.forget_word_hashes()
            give_back_memory()

    def _find_in(self, db, bands, groups, totals, total, progress, cancel, between_batches,
                 hurry) -> int:
        """The batches of :meth:`find` (arguments as there; ``totals`` per group)."""
        cache: OrderedDict[int, np.ndarray] = OrderedDict()
        done = flagged = 0
        for group, group_total in zip(groups, totals):
            if not group_total:
                continue
            after = 0
            while True:
                if cancel():
                    return flagged
                rows = store.unchecked(db, DUPLICATE_BATCH, after, group)
                if not rows:
                    break
                found, looked = self._look_at(db, bands, rows, cache, hurry)
                flagged += found
                after = rows[looked - 1][0]
                done += looked
                progress("duplicates", min(done, total), total)
                if between_batches is not None:
                    between_batches()
        return flagged

    def _look_at(self, db, bands: BandStore, rows, cache: OrderedDict,
                 hurry=lambda: False) -> tuple[int, int]:
        """Look at one batch of papers (one transaction), or its first papers until
        ``hurry()``; return the pairs flagged and how many papers were looked at.

        The batch is signed at once; then, :data:`CHUNK` papers at a time, the
        candidates of each paper are found (the batch's earlier papers counting as
        stored), the stored candidates' signatures read in one statement, the estimates
        computed together, the abstracts of the candidates to compare exactly read in
        one statement and shingled together, and only then the papers flagged one after
        the other (``hurry`` polled after each): the same pairs, in the same order, as
        one paper at a time (a test compares them), with a few statements per chunk
        instead of two per paper."""
        flagged = 0
        signed = measure.signed_batch([r[1] for r in rows])
        now = _now()
        # The batch's own buckets and signatures stay in memory until its end, then
        # its signatures are written in one statement and its bands added to the band
        # store (once the transaction committed).
        pending: dict[int, list[int]] = {}
        position = {r[0]: k for k, r in enumerate(rows)}
        seen = [r[0] for r in rows if r[3]]
        bands.drop(seen)
        stored_members = bands.members((b for s in signed for b in s.buckets),
                                       measure.PER_BUCKET)
        looked_at = []
        with _db.transaction(db):
            store.drop_bands(db, seen)
            for first in range(0, len(rows), CHUNK):
                last = min(first + CHUNK, len(rows))
                close, hashes = self._close(db, rows, signed, first, last, position,
                                            pending, stored_members)
                close = self._bounded(bands, signed, first, close, position, hashes)
                shingled = self._shingled(db, {o for c in close for o in c
                                               if o not in position}, cache)
                stop = False
                for k in range(first, last):
                    pid, _abstract, digest, _seen = rows[k]
                    sh = signed[k].shingles
                    scored = []
                    for other in close[k - first]:
                        j = position.get(other)
                        other_hash, other_sh = ((rows[j][2], signed[j].shingles)
                                                if j is not None else shingled[other])
                        scored.append((measure.jaccard(sh, other_sh), other, other_hash))
                    scored.sort(key=lambda t: (-t[0], t[1]))
                    for score, other, other_hash in scored[:measure.MAX_FLAGS]:
                        if score >= measure.THRESHOLD and store.flag_pair(
                                db, (pid, digest), (other, other_hash), score, now):
                            flagged += 1
                    looked_at.append((pid, digest, signed[k].buckets, signed[k].signature))
                    if hurry():   # an edit waits: the rest of the batch comes next time
                        stop = True
                        break
                if stop:
                    break
            store.mark_checked_many(db, looked_at)
        for (pid, *_rest), s in zip(looked_at, signed):
            cache[pid] = s.shingles
            cache.move_to_end(pid)
        while len(cache) > SHINGLE_CACHE:
            cache.popitem(last=False)
        banded = [(pid, buckets, sig, digest, s.shingles) for (pid, digest, buckets, sig), s
                  in zip(looked_at, signed) if sig is not None]
        if banded:
            bands.add([b[0] for b in banded], [b[1] for b in banded],
                      [token_of(b[2]) for b in banded],
                      measure.shingle_bitmaps([b[4] for b in banded]),
                      [hash_digest(b[3]) for b in banded])
        return flagged, len(looked_at)

    @staticmethod
    def _close(db, rows, signed, first: int, last: int, position: dict[int, int],
               pending: dict[int, list[int]], stored_members
               ) -> tuple[list[list[int]], dict[int, str]]:
        """The candidates to compare exactly of the papers ``rows[first:last]``: for
        each, the papers sharing its buckets (:func:`~paperdesk.core.store.duplicates.
        candidates`, the batch's papers before it in ``pending``, which this fills),
        their signatures (the stored ones read in one statement, those of the batch from
        ``signed``), the :data:`~paperdesk.core.duplicates.MAX_EXACT` agreeing most
        that agree in at least :data:`~paperdesk.core.duplicates.PREFILTER` of places.

        Returns:
            ``(close, hashes)``: one list of paper ids per paper, most agreeing first
            (then by id), and the content hash of each stored candidate (that of the
            abstract its signature was made of).
        """
        found_of = []
        for k in range(first, last):
            pid, buckets = rows[k][0], signed[k].buckets
            found_of.append(store.candidates(db, buckets, pid, measure.MAX_CANDIDATES,
                                             measure.PER_BUCKET, pending, stored_members))
            for bucket in buckets:
                pending.setdefault(bucket, []).append(pid)
        stored = store.signatures_and_hashes(db, sorted({f for found in found_of
                                                         for f in found if f not in position}))
        stored_sigs = {f: sig for f, (sig, _h) in stored.items()}
        width = measure.PERMUTATIONS * 4
        mine, theirs, owner, ids = [], [], [], []
        for i, found in enumerate(found_of):
            sig = signed[first + i].signature
            if sig is None or not found:
                continue
            had = len(theirs)
            for f in found:
                j = position.get(f)
                other = signed[j].signature if j is not None else stored_sigs.get(f)
                if other is None or len(other) != width:
                    continue
                theirs.append(other)
                owner.append(i)
                ids.append(f)
            if len(theirs) > had:
                mine.append(sig)
        close: list[list[int]] = [[] for _ in found_of]
        hashes = {f: digest for f, (_s, digest) in stored.items()}
        if not theirs:
            return close, hashes
        owner_a = np.array(owner, dtype=np.int64)
        ids_a = np.array(ids, dtype=np.int64)
        signed_rows = sorted(set(owner))
        mine_a = np.frombuffer(b"".join(mine), dtype="<u4").reshape(-1, measure.PERMUTATIONS)
        row_of = np.zeros(len(found_of), dtype=np.int64)
        row_of[signed_rows] = np.arange(len(signed_rows))
        theirs_a = np.frombuffer(b"".join(theirs), dtype="<u4").reshape(
            -1, measure.PERMUTATIONS)
        agree = (theirs_a == mine_a[row_of[owner_a]]).sum(axis=1)
        estimate = agree / measure.PERMUTATIONS
        order = np.lexsort((ids_a, -agree, owner_a))
        owner_s, ids_s, est_s = owner_a[order], ids_a[order], estimate[order]
        starts = np.searchsorted(owner_s, np.arange(len(found_of) + 1))
        rank = np.arange(len(owner_s)) - starts[owner_s]
        keep = (rank < measure.MAX_EXACT) & (est_s >= measure.PREFILTER)
        for i, f in zip(owner_s[keep].tolist(), ids_s[keep].tolist()):
            close[i].append(f)
        return close, hashes

    @staticmethod
    def _bounded(bands: BandStore, signed, first: int, close: list[list[int]],
                 position: dict[int, int], hashes: dict[int, str]) -> list[list[int]]:
        """``close`` without the stored candidates whose kept shingle bitmap shows they
        are below :data:`~paperdesk.core.duplicates.THRESHOLD`
        (:func:`~paperdesk.core.duplicates.overlap_bound`, an upper bound of the exact
        measure: such a pair is never flagged, and leaving it out of a paper's scored
        candidates changes none of the pairs at or above the threshold, which sort
        first); those left are read and compared exactly."""
        pairs = [(i, o) for i, c in enumerate(close) for o in c if o not in position]
        if not pairs:
            return close
        bitmaps = bands.bitmaps([o for _i, o in pairs],
                                [hash_digest(hashes[o]) for _i, o in pairs])
        bounds = measure.overlap_bound([signed[first + i].shingles for i, _o in pairs],
                                       bitmaps)
        below = {pair for pair, bound in zip(pairs, bounds.tolist())
                 if bound < measure.THRESHOLD}
        if not below:
            return close
        return [[o for o in c if (i, o) not in below] for i, c in enumerate(close)]

    @staticmethod
    def _shingled(db, ids, cache: OrderedDict) -> dict[int, tuple[str, np.ndarray]]:
        """``{id: (content_hash, shingles)}`` of each candidate (shingles from ``cache``
        when there, else from its stored abstract: read in one statement, shingled
        together by :func:`~paperdesk.core.duplicates.shingle_batch`)."""
        out: dict[int, tuple[str, np.ndarray]] = {}
        ids = sorted(ids)
        if not ids:
            return out
        texts, missing = [], []
        for k in range(0, len(ids), _CHUNK_IDS):
            chunk = ids[k:k + _CHUNK_IDS]
            marks = ",".join("?" * len(chunk))
            for pid, digest, abstract in db.execute(
                    f"SELECT id, content_hash, abstract FROM papers WHERE id IN ({marks})",
                    chunk):
                sh = cache.get(pid)
                if sh is None:
                    texts.append(abstract)
                    missing.append((pid, digest))
                else:
                    out[pid] = (digest, sh)
        for (pid, digest), sh in zip(missing, measure.shingle_batch(texts)):
            out[pid] = (digest, sh)
        return out

    def pairs(self, status: str = "open",
                        limit: int | None = None) -> list[DuplicatePair]:
        """Return the flagged pairs whose papers both still exist with the abstracts they
        were flagged with, most similar first.

        Args:
            status: ``"open"`` (default) or ``"dismissed"``.
            limit: at most this many (``None``: all).
        Returns:
            :class:`~paperdesk.core.duplicates.DuplicatePair` values.
        Raises:
            ValueError: another status.
        """
        if status not in ("open", "dismissed"):
            raise ValueError(f"unknown status {status!r}; use open or dismissed")
        return store.pairs(self.db, status, limit)

    def count(self) -> int:
        """Number of open pairs (what the window's "possible duplicates" entry shows)."""
        return store.open_count(self.db)

    def is_flagged(self, a: int, b: int) -> bool:
        """Whether papers ``a`` and ``b`` (any order) are an open pair of possible
        duplicates (not dismissed as "not duplicates"), both papers still having the
        abstracts they were flagged with.

        Args:
            a, b: paper ids.
        Returns:
            ``True`` or ``False`` (also ``False`` for ``a == b`` or an unknown id).
        """
        if int(a) == int(b):
            return False
        found = store.pair(self.db, a, b)
        return found is not None and found.status == "open"

    def _live_pair(self, a: int, b: int) -> DuplicatePair:
        self._lib.papers.existing_ids([a, b])
        if int(a) == int(b):
            raise LibraryError(f"paper {a} cannot be a duplicate of itself")
        found = store.pair(self.db, a, b)
        if found is None:
            raise LibraryError(f"papers {a} and {b} are not flagged as possible duplicates")
        return found

    def dismiss(self, a: int, b: int, undoable: bool = True) -> Changes:
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
        return self._lib.record(f"Not duplicates: papers {lo} and {hi}", changes,
                            lambda: self._set_pair_status(lo, hi, "open"),
                            lambda: self._set_pair_status(lo, hi, "dismissed"),
                            undoable=undoable)

    def _set_pair_status(self, a: int, b: int, status: str) -> Changes:
        with _db.transaction(self.db) as db:
            store.set_status(db, a, b, status)
        return Changes.of(papers=[a, b], duplicates=True, search=False)

    def merge_preview(self, keep: int, other: int) -> "measure.MergePlan":
        """Tell what :meth:`merge` would do, changing nothing.

        Args:
            keep, other: paper ids.
        Returns:
            The :class:`~paperdesk.core.duplicates.MergePlan`.
        Raises:
            UnknownPaper: an id is not in the library.
            LibraryError: ``keep == other``.
        """
        keep, other = int(keep), int(other)
        if keep == other:
            raise LibraryError(f"paper {keep} cannot be merged into itself")
        return measure.plan_merge(self._lib.papers.get(keep), self._lib.papers.get(other))

    def merge(self, keep: int, other: int, undoable: bool = True) -> Changes:
        """Merge paper ``other`` into paper ``keep``, then delete ``other``: one
        transaction and one undo step ("Merge paper 9 into 3").

        The kept paper gains ``other``'s tags, its note (after its own, under a line
        naming the merged paper, when both have one), its highlights (where their text
        is in the kept abstract: at the same offsets, or re-anchored to the nearest
        occurrence of the text; the others are quoted in the note), the metadata parts
        it lacks, ``other``'s title when its own is still the derived one, read and
        starred when either was, and ``other``'s links to source files. Its abstract and
        citation key stay (``other``'s key and key aliases become the kept paper's key
        aliases, :mod:`paperdesk.core.store.key_aliases`); ``other``'s abstract is
        remembered as merged into it
        (``merged_hashes``), so importing that abstract again finds the kept paper. See
        :func:`paperdesk.core.duplicates.plan_merge` and :meth:`merge_preview`.

        Undo puts both papers back exactly as they were (same ids, tags, notes,
        highlights, links, marks, and their flagged pair); redo merges again.

        Args:
            keep: the paper to keep.
            other: the paper merged into it and deleted.
            undoable: record the undo step.
        Returns:
            :class:`Changes`: ``papers`` both ids; ``tags`` ``other``'s tags (counts
            change); ``notes``/``highlights`` what changed; ``sources`` and
            ``duplicates`` set.
        Raises:
            UnknownPaper: an id is not in the library.
            LibraryError: ``keep == other``.
        """
        keep, other = int(keep), int(other)
        self._lib.papers.existing_ids([keep, other])
        plan = self.merge_preview(keep, other)
        with _db.transaction(self.db) as db:
            snap = self._lib.removal.snapshot_papers(db, [keep, other])
            self._apply_merge(db, plan)
        self._lib.after_change()
        other_tags = snap.ids("paper_tags", "tag_id")
        changes = Changes.of(
            papers=[keep, other],
            fields=["tags", "note", "highlights", "title", "read", "starred", "metadata"],
            tags=other_tags, notes=[keep] if plan.note != self._note_of(snap, keep) else [],
            highlights=[keep, other] if plan.highlights else [], sources=True,
            duplicates=True, search=True)

        def undo() -> Changes:
            try:
                with _db.transaction(self.db) as db:
                    if db.execute("SELECT 1 FROM papers WHERE id = ?",
                                  [other]).fetchone():
                        raise LibraryError(f"paper {other} exists again")
                    db.execute("DELETE FROM papers WHERE id = ?", [keep])
                    snap.restore(db)
                    self._lib.index.enqueue(db, [keep, other], "update")
            except sqlite3.IntegrityError as exc:
                raise LibraryError(f"paper {other} cannot be put back: its abstract or "
                                   f"citation key is another paper's now ({exc})") from exc
            self._lib.after_change()
            return changes

        def redo() -> Changes:
            self._lib.papers.existing_ids([keep, other])
            again = measure.plan_merge(self._lib.papers.get(keep), self._lib.papers.get(other))
            with _db.transaction(self.db) as db:
                self._apply_merge(db, again)
            self._lib.after_change()
            return changes

        return self._lib.record(f"Merge paper {other} into {keep}", changes, undo, redo,
                            undoable=undoable)

    @staticmethod
    def _note_of(snap, paper_id: int) -> str:
        for table, names, rows in snap.tables:
            if table == "notes":
                i, body = names.index("paper_id"), names.index("body")
                for row in rows:
                    if row[i] == paper_id:
                        return row[body]
        return ""

    def _apply_merge(self, db: sqlite_utils.Database, plan: "measure.MergePlan") -> None:
        """Write a merge plan (inside the caller's transaction) and delete the other
        paper (``lib.removal.delete_rows`` of the removal mixin, which queues it for the index)."""
        keep, other = plan.keep, plan.other
        db.execute("INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) "
                   "SELECT ?, tag_id FROM paper_tags WHERE paper_id = ?", [keep, other])
        db.execute("INSERT OR IGNORE INTO paper_sources (paper_id, source_id, position) "
                   "SELECT ?, source_id, position FROM paper_sources WHERE paper_id = ?",
                   [keep, other])
        for move in plan.highlights:
            if move.how in ("same", "moved"):
                db.execute('UPDATE highlights SET paper_id = ?, start = ?, "end" = ? '
                           "WHERE id = ?", [keep, move.start, move.end, move.id])
        if plan.note.strip():
            db.execute("INSERT INTO notes (paper_id, body, updated_at) VALUES (?, ?, ?) "
                       "ON CONFLICT (paper_id) DO UPDATE SET body = excluded.body, "
                       "updated_at = excluded.updated_at WHERE body != excluded.body",
                       [keep, plan.note, _now()])
        write_metadata(db, keep, plan.metadata)
        db.execute("UPDATE papers SET title = ?, file_title = ?, read_at = ?, starred = ? "
                   "WHERE id = ?", [plan.title, plan.file_title or None, plan.read_at,
                                    int(plan.starred), keep])
        store.record_merge(db, keep, other)
        # The merged paper's key, and the keys it answered to, stay the kept paper's
        # aliases: documents that cite them keep working (issue 25 item 10).
        keys = [r[0] for r in db.execute(
            "SELECT citation_key FROM papers WHERE id = ? AND citation_key IS NOT NULL "
            "UNION ALL SELECT alias FROM citation_key_aliases WHERE paper_id = ?",
            [other, other])]
        self._lib.removal.delete_rows(db, [other])
        for key in keys:
            add_alias(db, keep, key)
        self._lib.index.enqueue(db, [keep], "update")
