"""The near-duplicate stage's LSH bands kept outside SQLite: sorted runs of numpy arrays
in the library's ``duplicates/`` folder, derived from the signatures SQLite keeps.

**Why.** Stored as rows of a SQLite table (``duplicate_bands``, one row per band per
paper), every batch of the stage wrote 4,000 rows onto random pages of a B-tree that grows
by 20 rows a paper: at 60,000 papers 45 % of the stage's CPU, and its CPU per paper grew
with the library (0.47 ms at 20,000, 1.4 ms at 300,000). Here the bands of each stage run
are one sorted array written once, looked up with :func:`numpy.searchsorted`.

**Layout.** Each *run* is two ``.npy`` files (:mod:`paperdesk.core.discover.table_files`:
no pickles, written through a temporary file renamed into place, a CRC-32 each):

* ``keys-N.npy``: ``int64`` values ``bucket * 2**32 + paper_id``, sorted, so that the
  papers of one bucket are one slice, in increasing id;
* ``ids-N.npy``: ``int64`` ``(m, 2)``: each paper of the run and its *token*, the first 8
  bytes of its stored signature read as a little-endian ``int64``;
* ``bits-N.npy`` (runs written since 2026-12-06, second session; optional): ``uint8``
  ``(m, ROW_BYTES)``, row for row with ``ids-N.npy``: the paper's shingle bitmap
  (:func:`paperdesk.core.duplicates.shingle_bitmaps`, 1,024 bits) and
  :func:`hash_digest` of the content hash of the abstract it was made of. The stage
  compares a candidate exactly only when this bitmap does not show it below the
  threshold (:func:`paperdesk.core.duplicates.overlap_bound`). A paper whose bands were
  computed from its signature, or of a run without the file, has none (zeros: compared
  exactly, as before); a bitmap is used only with the content hash it was made of.

``meta.json`` lists the runs (their file records), the store's :data:`FORMAT` and the
:data:`~paperdesk.core.duplicates.SIGNATURE_VERSION` of its bands. A paper's bands are
those of the last run naming it (its *owner*); entries of other runs for it are dead and
filtered out, so nothing is ever rewritten in place. :meth:`BandStore.save` writes the
stage's new bands as one more run, and merges all runs into one (dropping dead entries)
when there are more than :data:`MAX_RUNS`.

**Derived, never trusted.** SQLite's ``duplicate_checked`` stays the source of truth: at
the start of each stage (:meth:`BandStore.sync`) the papers that have a signature there
and their tokens are read (one statement, no join), and

* a paper the runs name with another token (its abstract looked at again, a restored
  database) or that SQLite no longer has (deleted, merged) is dead;
* a paper SQLite has but no run names (a library made before this store, a stage
  killed before it saved, a lost or damaged run) gets its bands computed from its stored
  signature (no abstract is read again) and saved as a run;
* a missing, unreadable or changed file (size, time, else CRC-32, as the term table) or a
  ``meta.json`` of another format or signature version drops the store: it is rebuilt
  from the signatures (:data:`REBUILT`).

Memory: 8 bytes per band (160 MB at a million papers, read as memory-mapped files),
16 bytes per paper, and 136 bytes per paper of bitmap (memory-mapped; those of the
papers a stage looks at in memory until it saves them: 136 MB when a million are new).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from paperdesk.core import duplicates as measure
from paperdesk.core.discover import table_files as files
from paperdesk.core.regular_files import open_regular

__all__ = ["BandStore", "FOLDER", "FORMAT", "MAX_RUNS", "REBUILT", "store_for", "drop",
           "full_problems", "bands_of_signatures", "token_of", "hash_digest", "BITMAP_BYTES",
           "ROW_BYTES"]

#: The folder of the band store inside a library folder.
FOLDER = "duplicates"
#: Changes when the files' layout changes (a store of another format is rebuilt).
FORMAT = 1
#: Runs kept before they are merged into one.
MAX_RUNS = 6
#: What happens to a damaged band store (for ``paperdesk check``).
REBUILT = "dropped; rebuilt from the signatures in SQLite at the next near-duplicate stage"
#: Signatures read at a time when bands are computed from SQLite.
_CHUNK = 20_000
_LOW = np.int64(0xFFFFFFFF)
#: Bytes of a paper's shingle bitmap, and of its row in ``bits-N.npy`` (the bitmap, then
#: :func:`hash_digest` of the content hash of the abstract it was made of).
BITMAP_BYTES = measure.BITMAP_BITS // 8
ROW_BYTES = BITMAP_BYTES + 8


def hash_digest(content_hash: str) -> bytes:
    """8 bytes standing for an abstract's content hash in ``bits-N.npy`` (a bitmap is
    used only for the abstract it was made of)."""
    return hashlib.blake2b(content_hash.encode("utf-8"), digest_size=8).digest()
_META = "meta.json"


class _Damaged(ValueError):
    """A ``meta.json`` or run found damaged, with a plain one-line text of its own."""


def _read_meta(path: Path) -> dict:
    """``meta.json`` as a dict, read only if it is a regular file (a folder, FIFO or
    device of that name is refused, never waited on).

    Raises:
        FileNotFoundError: it is missing.
        OSError: it cannot be read, or is not a regular file (or ``duplicates`` is not
            a folder).
        ValueError: it is not JSON (``json.JSONDecodeError``, ``UnicodeDecodeError``).
        TypeError: it holds JSON other than an object.
    """
    with open_regular(path) as f:
        meta = json.loads(f.read())
    if not isinstance(meta, dict):
        raise TypeError("not a JSON object")
    return meta


def _damage_line(folder: Path, exc: BaseException) -> str:
    """The one-line message of a band store that cannot be read: the file (``meta.json``,
    or the ``duplicates`` path when it is not a folder) and the problem in plain words,
    never an exception's class name.

    Args:
        folder: the store's folder (``<library>/duplicates``).
        exc: what reading ``meta.json`` or a run raised.
    Returns:
        ``".../duplicates/meta.json: damaged (not valid JSON)"``, ``"…: damaged (not a
        regular file)"``, ``".../duplicates: not a folder (a file of that name)"`` ...
    """
    meta_path = folder / _META
    if isinstance(exc, NotADirectoryError):
        return f"{folder}: not a folder (a file of that name)"
    if isinstance(exc, _Damaged):
        return f"{folder}: damaged ({exc})"
    if isinstance(exc, UnicodeDecodeError):
        return f"{meta_path}: damaged (not valid JSON)"
    return f"{meta_path}: damaged ({files.reason(exc)})"   # garbled data: KeyError ...


def token_of(signature: bytes) -> int:
    """A paper's token: the first 8 bytes of its stored signature, little-endian ``int64``
    (what :meth:`BandStore.sync` compares with SQLite's ``substr(signature, 1, 8)``)."""
    return int.from_bytes(signature[:8].ljust(8, b"\0"), "little", signed=True)


def bands_of_signatures(sigs: np.ndarray) -> np.ndarray:
    """The LSH buckets of many stored signatures at once.

    Args:
        sigs: ``(m, PERMUTATIONS)`` array of the signatures' values.
    Returns:
        ``(m, BANDS)`` ``int64`` array of signed 32-bit buckets, as
        :func:`paperdesk.core.duplicates.band_hashes` gives them.
    """
    return np.asarray(measure._band_rows(np.asarray(sigs, dtype=np.uint64)),
                      dtype=np.int64).reshape(len(sigs), measure.BANDS)


def _keys(pids: np.ndarray, buckets: np.ndarray) -> np.ndarray:
    """Sorted keys ``bucket * 2**32 + pid`` of ``(m,)`` ids and ``(m, BANDS)`` buckets."""
    keys = (np.asarray(buckets, dtype=np.int64) << np.int64(32)) + \
        np.asarray(pids, dtype=np.int64)[:, None]
    keys = keys.ravel()
    keys.sort()
    return keys


class _Run:
    """One sorted run: its number, its keys, its ``(paper, token)`` rows and their shingle
    bitmaps (``None``: a run written before them, or computed from signatures)."""

    __slots__ = ("number", "keys", "ids", "saved", "bits")

    def __init__(self, number: int, keys: np.ndarray, ids: np.ndarray, saved: bool = True,
                 bits: np.ndarray | None = None):
        self.number, self.keys, self.ids, self.saved = number, keys, ids, saved
        self.bits = bits


class BandStore:
    """The band runs of one library (see the module).

    Attributes:
        folder: ``<library>/duplicates``.
        writable: False for a library opened read-only (nothing is written; the bands
            computed are kept in memory).
        problem: why the store on disk was dropped at the last :meth:`load` (a missing
            folder of a new library is no problem), else ``None``.
    """

    def __init__(self, library_folder: Path, writable: bool = True):
        self.folder = Path(library_folder) / FOLDER
        self.writable = writable
        self.problem: str | None = None
        self._runs: list[_Run] = []
        self._records: dict[str, list] = {}
        self._next = 1
        self._owner = np.full(0, -1, dtype=np.int64)     # paper id -> run number
        self._row = np.full(0, -1, dtype=np.int64)       # paper id -> row in its run
        self._new_keys: list[np.ndarray] = []           # this stage's, sorted chunks
        self._new_ids: list[np.ndarray] = []             # (m, 2) paper, token
        # (capacity, ROW_BYTES) bitmaps of this stage's papers, the first _new_rows
        # used; grown by doubling (a copy per batch would be quadratic)
        self._new_bits = np.zeros((0, ROW_BYTES), dtype=np.uint8)
        self._new_rows = 0
        self._new_number = 0

    # -- loading -------------------------------------------------------------------------
    def load(self) -> "BandStore":
        """Read ``meta.json`` and map the runs' files (read-only). A damaged store is
        dropped (:attr:`problem` says why, and :meth:`sync` rebuilds it).

        Returns:
            ``self``.
        """
        self._runs, self._records, self._next = [], {}, 1
        self.problem = None
        meta_path = self.folder / _META
        if not self.folder.exists():
            self._reset_owner()
            return self
        try:
            meta = _read_meta(meta_path)
            if meta.get("format") != FORMAT or \
                    meta.get("signature_version") != measure.SIGNATURE_VERSION:
                raise _Damaged("of another format or signature version")
            runs = meta["runs"]
            records = meta["files"]
            if not isinstance(runs, list) or not isinstance(records, dict):
                raise _Damaged("not a list of runs")
            loaded = []
            for number in runs:
                number = int(number)
                keys, ids = (self._recorded(records, name)
                             for name in (f"keys-{number}.npy", f"ids-{number}.npy"))
                if keys.dtype != np.int64 or keys.ndim != 1 or ids.dtype != np.int64 \
                        or ids.ndim != 2 or ids.shape[1] != 2:
                    raise _Damaged(f"run {number} holds arrays of another shape")
                bits = None
                name = f"bits-{number}.npy"
                if name in records:     # optional: runs written before have none
                    bits = self._recorded(records, name)
                    if bits.dtype != np.uint8 or bits.shape != (len(ids), ROW_BYTES):
                        raise _Damaged(f"run {number} holds bitmaps of another shape")
                loaded.append(_Run(number, keys, ids, bits=bits))
            self._runs, self._records = loaded, records
            self._next = max([int(meta.get("next", 1)), *(r.number + 1 for r in loaded)])
        except FileNotFoundError as exc:
            self.problem = f"{exc.filename or meta_path}: missing"
        except (OSError, ValueError, EOFError, KeyError, TypeError) as exc:
            self.problem = _damage_line(self.folder, exc)
        if self.problem:
            self._runs, self._records, self._next = [], {}, 1
            self._drop_files()
        self._reset_owner()
        return self

    def _recorded(self, records: dict, name: str) -> np.ndarray:
        """The array file ``name`` of the store, memory-mapped, after its record in
        ``records`` (size, time, CRC-32) was found valid and matching (the record is
        updated in place). Raises ``_Damaged`` when it is not."""
        record = records.get(name)
        if not files.valid_record(record):
            raise _Damaged(f"no record of {name}")
        problem, record = files.quick_problem(self.folder / name, record)
        if problem:
            raise _Damaged(problem)
        records[name] = record
        return files.read_array(self.folder / name, mapped=True)

    def _reset_owner(self) -> None:
        top = max((int(r.ids[:, 0].max()) for r in self._runs if len(r.ids)), default=0)
        self._owner = np.full(top + 1, -1, dtype=np.int64)
        self._row = np.full(top + 1, -1, dtype=np.int64)
        for run in self._runs:
            self._owner[run.ids[:, 0]] = run.number
            self._row[run.ids[:, 0]] = np.arange(len(run.ids), dtype=np.int64)

    def _drop_files(self) -> None:
        if self.writable and self.folder.exists():
            if self.folder.is_symlink() or not self.folder.is_dir():
                self.folder.unlink(missing_ok=True)
            else:
                shutil.rmtree(self.folder, ignore_errors=True)

    def _grow(self, top: int) -> None:
        if top >= len(self._owner):
            grown = np.full(max(top + 1, 2 * len(self._owner)), -1, dtype=np.int64)
            grown[:len(self._owner)] = self._owner
            self._owner = grown
            grown = np.full(len(self._owner), -1, dtype=np.int64)
            grown[:len(self._row)] = self._row
            self._row = grown

    # -- against SQLite ------------------------------------------------------------------
    def sync(self, db) -> int:
        """Make the runs answer for exactly the papers SQLite has signatures of: papers it
        no longer has, or has with another signature, are dead; papers it has that no
        run names get their bands from their stored signatures (kept as this stage's
        new bands, saved by :meth:`save`).

        Args:
            db: the library's ``sqlite_utils.Database``.
        Returns:
            How many papers' bands were computed from SQLite.
        """
        rows = db.execute("SELECT paper_id, substr(signature, 1, 8) FROM duplicate_checked "
                          "WHERE signature IS NOT NULL").fetchall()
        pids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        tokens = np.fromiter((token_of(r[1]) for r in rows), dtype=np.int64, count=len(rows))
        del rows
        top = int(pids.max()) if len(pids) else 0
        self._grow(top)
        want = np.zeros(len(self._owner), dtype=np.int64)
        has = np.zeros(len(self._owner), dtype=bool)
        want[pids], has[pids] = tokens, True
        stored = np.zeros(len(self._owner), dtype=np.int64)
        for run in self._runs:          # the owner run's token of each paper
            mine = self._owner[run.ids[:, 0]] == run.number
            stored[run.ids[mine, 0]] = run.ids[mine, 1]
        live = (self._owner >= 0) & has & (stored == want)
        self._owner[~live] = -1
        missing = pids[~live[pids]]
        if len(missing):
            self._add_from_signatures(db, missing)
            self._seal()      # a paper of these looked at again gets a run of its own
        return len(missing)

    def _add_from_signatures(self, db, pids: np.ndarray) -> None:
        pids = np.sort(pids)
        for k in range(0, len(pids), _CHUNK):
            chunk = pids[k:k + _CHUNK].tolist()
            marks = ",".join("?" * len(chunk))
            got = db.execute(f"SELECT paper_id, signature FROM duplicate_checked WHERE "
                             f"paper_id IN ({marks}) AND signature IS NOT NULL",
                             chunk).fetchall()
            width = measure.PERMUTATIONS * 4
            got = [(pid, sig) for pid, sig in got if len(sig) == width]
            if not got:
                continue
            ids = np.array([pid for pid, _s in got], dtype=np.int64)
            sigs = np.frombuffer(b"".join(s for _p, s in got), dtype="<u4").reshape(
                len(got), measure.PERMUTATIONS)
            self.add(ids, bands_of_signatures(sigs), [token_of(s) for _p, s in got])

    # -- the stage's own bands -----------------------------------------------------------
    def drop(self, pids: Iterable[int]) -> None:
        """Forget the bands of these papers (looked at again, or deleted)."""
        ids = np.fromiter((int(p) for p in pids), dtype=np.int64)
        ids = ids[ids < len(self._owner)]
        self._owner[ids] = -1

    def add(self, pids: Sequence[int], buckets, tokens: Sequence[int],
            bitmaps: np.ndarray | None = None, digests: Sequence[bytes] = ()) -> None:
        """Add the bands of papers just looked at (they answer :meth:`members` at once;
        written by :meth:`save`).

        Args:
            pids: paper ids.
            buckets: ``(len(pids), BANDS)`` buckets (:func:`~paperdesk.core.duplicates.
                band_hashes` of each signature).
            tokens: :func:`token_of` of each paper's stored signature.
            bitmaps: ``(len(pids), BITMAP_BYTES)`` :func:`~paperdesk.core.duplicates.
                shingle_bitmaps` of their shingles; ``None``: not known (zeros, as for
                papers whose bands are computed from their signatures).
            digests: :func:`hash_digest` of each paper's content hash (with
                ``bitmaps``).
        """
        pids = np.asarray(pids, dtype=np.int64)
        if not len(pids):
            return
        if not self._new_number:
            self._new_number = self._next
            self._next += 1
        self._grow(int(pids.max()))
        self._owner[pids] = self._new_number
        self._row[pids] = self._new_rows + np.arange(len(pids), dtype=np.int64)
        start, self._new_rows = self._new_rows, self._new_rows + len(pids)
        if self._new_rows > len(self._new_bits):
            grown = np.zeros((max(self._new_rows, 2 * len(self._new_bits), 1024), ROW_BYTES),
                             dtype=np.uint8)
            grown[:start] = self._new_bits[:start]
            self._new_bits = grown
        self._new_ids.append(np.column_stack([pids, np.asarray(tokens, dtype=np.int64)]))
        rows = self._new_bits[start:self._new_rows]
        rows[:] = 0
        if bitmaps is not None:
            rows[:, :BITMAP_BYTES] = np.asarray(bitmaps, dtype=np.uint8).reshape(
                len(pids), BITMAP_BYTES)
            rows[:, BITMAP_BYTES:] = np.frombuffer(b"".join(digests), dtype=np.uint8
                                                   ).reshape(len(pids), 8)
        self._new_keys.append(_keys(pids, np.asarray(buckets, dtype=np.int64)))
        # merged as a binary counter: O(log n) sorted chunks, each band merged O(log n) times
        while len(self._new_keys) > 1 and \
                len(self._new_keys[-2]) <= 2 * len(self._new_keys[-1]):
            last = self._new_keys.pop()
            merged = np.concatenate([self._new_keys.pop(), last])
            merged.sort(kind="stable")
            self._new_keys.append(merged)

    def members(self, buckets: Iterable[int], per_bucket: int) -> dict[int, list[int]]:
        """The live papers of each bucket: at most ``per_bucket`` + 1 of each, the highest
        ids first (as :func:`paperdesk.core.store.duplicates.members` read them from
        SQLite).

        Args:
            buckets: LSH buckets (repeats are read once).
            per_bucket: how many a caller keeps of each.
        Returns:
            ``{bucket: [paper ids, highest first]}`` for the buckets that have any.
        """
        wanted = np.unique(np.fromiter((int(b) for b in buckets), dtype=np.int64))
        if not len(wanted):
            return {}
        keep = int(per_bucket) + 1
        lo_keys, hi_keys = wanted << np.int64(32), (wanted + 1) << np.int64(32)
        found_b, found_p = [], []
        sources = [(r.keys, r.number) for r in self._runs] + \
            [(k, self._new_number) for k in self._new_keys]
        for keys, number in sources:
            if not len(keys):
                continue
            lo = np.searchsorted(keys, lo_keys)
            hi = np.searchsorted(keys, hi_keys)
            count = hi - lo
            has = count > 0
            if not has.any():
                continue
            lo, hi, count = lo[has], hi[has], count[has]
            # the highest ids are at the end of each slice: take the last `cap` of each,
            # all of a slice whose last `cap` are not all live
            cap = np.minimum(count, 2 * keep)
            entries = self._slices(keys, hi - cap, cap)
            pids = entries & _LOW
            live = self._owner[pids] == number
            short = np.add.reduceat(live.astype(np.int64), np.cumsum(cap) - cap) < \
                np.minimum(count, keep)
            short &= count > cap
            if short.any():
                entries = np.concatenate([entries, self._slices(keys, lo[short],
                                                                hi[short] - lo[short])])
                pids = entries & _LOW
                live = self._owner[pids] == number
            entries = entries[live]
            found_b.append(entries >> np.int64(32))
            found_p.append(entries & _LOW)
        if not found_b:
            return {}
        b = np.concatenate(found_b)
        p = np.concatenate(found_p)
        order = np.lexsort((-p, b))
        b, p = b[order], p[order]
        distinct = np.ones(len(b), dtype=bool)
        distinct[1:] = (b[1:] != b[:-1]) | (p[1:] != p[:-1])
        b, p = b[distinct], p[distinct]
        starts = np.flatnonzero(np.r_[True, b[1:] != b[:-1]])
        rank = np.arange(len(b)) - np.repeat(starts, np.diff(np.r_[starts, len(b)]))
        b, p = b[rank < keep].tolist(), p[rank < keep].tolist()
        out: dict[int, list[int]] = {}
        for bucket, pid in zip(b, p):
            out.setdefault(bucket, []).append(pid)
        return out

    @staticmethod
    def _slices(keys: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        total = int(lengths.sum())
        if not total:
            return np.empty(0, dtype=np.int64)
        offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        return np.asarray(keys[offsets + np.arange(total)], dtype=np.int64)

    def bands_count(self) -> int:
        """Live bands (entries whose paper's owner is their run)."""
        total = 0
        for keys, number in [(r.keys, r.number) for r in self._runs] + \
                [(k, self._new_number) for k in self._new_keys]:
            total += int((self._owner[np.asarray(keys) & _LOW] == number).sum())
        return total

    def papers(self) -> np.ndarray:
        """Ids of the papers whose bands answer, sorted."""
        return np.flatnonzero(self._owner >= 0)

    def bitmaps(self, pids: Sequence[int], digests: Sequence[bytes]) -> np.ndarray:
        """The shingle bitmaps kept of these papers (:func:`~paperdesk.core.duplicates.
        shingle_bitmaps`), zeros for a paper whose bitmap is not known (bands computed
        from its signature, a run written before bitmaps, a paper not answering) or was
        made of another abstract than the one whose content hash is given.

        Args:
            pids: paper ids.
            digests: :func:`hash_digest` of each paper's current content hash.
        Returns:
            ``(len(pids), BITMAP_BYTES)`` ``uint8`` array.
        """
        pids = np.asarray(pids, dtype=np.int64).reshape(-1)
        out = np.zeros((len(pids), ROW_BYTES), dtype=np.uint8)
        if not len(pids):
            return out
        inside = (pids >= 0) & (pids < len(self._owner))
        owner = np.full(len(pids), -1, dtype=np.int64)
        owner[inside] = self._owner[pids[inside]]
        rows = np.full(len(pids), -1, dtype=np.int64)
        rows[inside] = self._row[pids[inside]]
        for number in np.unique(owner[owner >= 0]).tolist():
            mine = np.flatnonzero(owner == number)
            if number == self._new_number:
                out[mine] = self._new_bits[rows[mine]]
                continue
            run = next((r for r in self._runs if r.number == number), None)
            if run is not None and run.bits is not None:
                out[mine] = run.bits[rows[mine]]
        if len(pids):
            want = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(len(pids), 8)
            out[~(out[:, BITMAP_BYTES:] == want).all(axis=1)] = 0
        return out[:, :BITMAP_BYTES]

    # -- writing -------------------------------------------------------------------------
    def save(self) -> None:
        """Write this stage's new bands as one run, merge the runs into one when there
        are more than :data:`MAX_RUNS` (or most of their entries are dead), and write
        ``meta.json`` last. Nothing is written on a read-only library.

        Raises:
            OSError: a file cannot be written (the store stays derived: a later stage
                computes what was not saved from SQLite).
        """
        self._seal()
        runs = self._runs
        if all(r.saved for r in runs):
            return
        total = sum(len(r.keys) for r in runs)
        if len(runs) > MAX_RUNS or (len(runs) > 1 and
                                    2 * len(self.papers()) * measure.BANDS < total):
            runs = [self._merged(runs)]
        self._runs = runs
        if not self.writable:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for run in runs:
            if run.saved:
                continue
            arrays = [(f"keys-{run.number}.npy", run.keys),
                      (f"ids-{run.number}.npy", run.ids)]
            if run.bits is not None:
                arrays.append((f"bits-{run.number}.npy", run.bits))
            for name, array in arrays:
                self._records[name] = files.write_array(self.folder / name, array)
        names = {f"{kind}-{r.number}.npy" for r in runs for kind in ("keys", "ids")} | \
            {f"bits-{r.number}.npy" for r in runs if r.bits is not None}
        self._records = {k: v for k, v in self._records.items() if k in names}
        files.write_bytes(self.folder / _META, json.dumps({
            "format": FORMAT, "signature_version": measure.SIGNATURE_VERSION,
            "next": self._next, "runs": [r.number for r in runs],
            "files": self._records}).encode())
        for path in self.folder.iterdir():       # runs merged away, temporary leftovers
            if path.name != _META and path.name not in names:
                try:
                    path.unlink()
                except OSError:
                    pass
        # the merged run's files are read back mapped: its arrays need not stay in memory
        self._runs = [_Run(r.number, files.read_array(self.folder / f"keys-{r.number}.npy",
                                                      mapped=True),
                           files.read_array(self.folder / f"ids-{r.number}.npy", mapped=True),
                           bits=files.read_array(self.folder / f"bits-{r.number}.npy",
                                                 mapped=True) if r.bits is not None else None)
                      for r in runs]

    def _seal(self) -> None:
        """Make the bands added since the last seal one run (in memory, not saved yet)."""
        if not self._new_keys:
            return
        keys = self._new_keys[0] if len(self._new_keys) == 1 else \
            np.sort(np.concatenate(self._new_keys))
        ids = np.concatenate(self._new_ids).reshape(-1, 2)
        bits = self._new_bits[:self._new_rows].copy()
        self._runs.append(_Run(self._new_number, keys, ids, saved=False, bits=bits))
        self._new_keys, self._new_ids, self._new_number = [], [], 0
        self._new_bits = np.zeros((0, ROW_BYTES), dtype=np.uint8)
        self._new_rows = 0

    def _merged(self, runs: list[_Run]) -> _Run:
        """One run of the live entries of ``runs``."""
        number = self._next
        self._next += 1
        parts, id_parts, bit_parts = [], [], []
        for r in runs:
            keys = np.asarray(r.keys)
            parts.append(keys[self._owner[keys & _LOW] == r.number])
            ids = np.asarray(r.ids)
            live = self._owner[ids[:, 0]] == r.number
            id_parts.append(ids[live])
            bit_parts.append(np.asarray(r.bits)[live] if r.bits is not None else
                             np.zeros((int(live.sum()), ROW_BYTES), dtype=np.uint8))
        keys = np.concatenate(parts)
        keys.sort()
        ids = np.concatenate(id_parts) if id_parts else np.empty((0, 2), dtype=np.int64)
        bits = np.concatenate(bit_parts) if bit_parts else \
            np.empty((0, ROW_BYTES), dtype=np.uint8)
        self._owner[ids[:, 0]] = number
        self._row[ids[:, 0]] = np.arange(len(ids), dtype=np.int64)
        return _Run(number, keys, ids, saved=False, bits=bits)

    def full_problem(self) -> str | None:
        """The check of ``paperdesk check``: ``meta.json`` read and every run file read
        whole, its CRC-32 compared. ``None`` when whole (or when there is no store: a
        library the stage has not run on since)."""
        meta_path = self.folder / _META
        if not self.folder.exists():
            return None
        try:
            meta = _read_meta(meta_path)
            records = meta["files"]
            if meta.get("format") != FORMAT:
                return None           # another version's: rebuilt, nothing damaged
            for number in meta["runs"]:
                optional = [f"bits-{int(number)}.npy"] if \
                    f"bits-{int(number)}.npy" in records else []
                for name in (f"keys-{int(number)}.npy", f"ids-{int(number)}.npy", *optional):
                    problem = files.full_problem(self.folder / name, records[name]) \
                        if files.valid_record(records.get(name)) else f"{name}: no record"
                    if problem:
                        return problem
        except FileNotFoundError:
            return f"{meta_path}: missing"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return _damage_line(self.folder, exc)
        return None


def store_for(db, library_folder: Path | None = None, writable: bool = False) -> BandStore:
    """A loaded (not synced) :class:`BandStore` of the library whose database is ``db``
    (its folder found from the database file when ``library_folder`` is ``None``).

    Args:
        db: the library's ``sqlite_utils.Database``.
        library_folder: the library folder, if known.
        writable: whether a damaged store may be dropped from disk.
    Returns:
        The store (empty when the database is in memory).
    """
    if library_folder is None:
        path = next((r[2] for r in db.execute("PRAGMA database_list") if r[1] == "main"), "")
        library_folder = Path(path).parent if path else Path(os.devnull) / "none"
        writable = writable and bool(path)
    return BandStore(library_folder, writable=writable).load()


def drop(library_folder: Path) -> None:
    """Remove a library's band store (damaged: the next stage computes it again from
    SQLite)."""
    BandStore(library_folder)._drop_files()


def full_problems(library_folder: Path) -> list[str]:
    """:meth:`BandStore.full_problem` of a library folder, as a list (empty: whole)."""
    problem = BandStore(library_folder, writable=False).full_problem()
    return [problem] if problem else []
