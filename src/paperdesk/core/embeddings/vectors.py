"""The papers' embedding vectors, stored in the library folder beside the term table.

``vectors/`` in the library folder is derived from SQLite like the index and ``terms/``:
deleting it loses nothing (it is computed again). It holds parts, each written once and
never rewritten, by :mod:`.vector_build`:

* ``pN-ids.npy`` (int64 paper ids), ``pN-stamps.npy`` (uint32 text stamps,
  :func:`~paperdesk.core.discover.term_table.text_stamp`: a paper whose title or
  abstract changed has another stamp, so its vector is stale), ``pN-vectors.npy``
  (float16, one unit-length row per paper);
* ``meta.json``: ``{"format": 1, "model": name, "dimensions": d, "parts": [N, ...],
  "files": {name: [size, mtime ns, CRC-32]}}``, replaced (never edited) after each new
  part, so a run cancelled or killed keeps every part it finished and the next run
  embeds only the papers still missing.

Files are written and checked with :mod:`paperdesk.core.discover.table_files` (``.npy``
without pickles, a CRC-32 each, checked by ``stat`` at every load).

Finding neighbours among 100,000 vectors: a float32 product of 100,000 x 256 takes
~15-60 ms on one core, float16 ten times more (NumPy has no float16 BLAS). So each
vector's signs are also kept as 256 bits (:attr:`PaperVectors.codes`, 3.2 MB at 100,000
papers), the papers nearest by Hamming distance (:data:`CANDIDATES`) are the candidates,
and only their float16 rows are read and compared exactly (the binary-then-rescore
search of Yamada et al., "Efficient passage retrieval with hashing", ACL 2021).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperdesk.core.discover import table_files

__all__ = ["VECTORS_DIR", "FORMAT", "CANDIDATES", "PaperVectors", "VectorsError",
           "read_meta", "write_part", "remove", "full_problems", "drop_parts"]

#: The folder in the library folder.
VECTORS_DIR = "vectors"
#: The format of ``meta.json``.
FORMAT = 1
#: Papers nearest by Hamming distance whose float vectors are compared.
CANDIDATES = 1000


class VectorsError(Exception):
    """``vectors/`` is damaged or of another model (one line naming the file); it is
    computed again."""


def read_meta(folder: Path) -> dict | None:
    """``meta.json`` of ``folder``, or ``None`` when there is none.

    Raises:
        VectorsError: it is not a ``meta.json`` of this format.
    """
    path = Path(folder) / "meta.json"
    if not path.exists():
        return None
    try:
        meta = json.loads(path.read_bytes())
        ok = (meta.get("format") == FORMAT and isinstance(meta.get("model"), str)
              and isinstance(meta.get("parts"), list)
              and all(isinstance(p, int) for p in meta["parts"])
              and isinstance(meta.get("files"), dict)
              and all(table_files.valid_record(r) for r in meta["files"].values()))
    except (OSError, ValueError, AttributeError) as exc:
        raise VectorsError(f"{path}: not readable ({table_files.reason(exc)})") from None
    if not ok:
        raise VectorsError(f"{path}: not a vectors meta.json of format {FORMAT}")
    return meta


def _write_meta(folder: Path, meta: dict) -> None:
    table_files.write_bytes(folder / "meta.json", json.dumps(meta).encode("utf-8"))


def write_part(folder: Path, model: str, ids: np.ndarray, stamps: np.ndarray,
               vectors: np.ndarray) -> None:
    """Add one part (a new ``meta.json`` naming it is written last).

    Args:
        folder: ``vectors/`` (made if missing; its ``meta.json`` must be of ``model``).
        model: the model's name.
        ids, stamps: int64 paper ids and uint32 text stamps, one per row.
        vectors: their unit-length vectors (stored as float16).
    Raises:
        OSError: a file cannot be written.
        VectorsError: the folder holds another model's vectors.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    meta = read_meta(folder) or {"format": FORMAT, "model": model, "parts": [],
                                 "files": {}}
    if meta["model"] != model:
        raise VectorsError(f"{folder}: vectors of {meta['model']}, not {model}")
    number = max(meta["parts"], default=0) + 1
    for kind, array in (("ids", np.asarray(ids, np.int64)),
                        ("stamps", np.asarray(stamps, np.uint32)),
                        ("vectors", np.asarray(vectors, np.float16))):
        name = f"p{number}-{kind}.npy"
        meta["files"][name] = table_files.write_array(folder / name, array)
    meta["parts"].append(number)
    meta["dimensions"] = int(np.shape(vectors)[1])
    _write_meta(folder, meta)


def full_problems(folder: Path) -> tuple[list[str], list[int]]:
    """The check of ``paperdesk check``: every file of every part read whole and its
    CRC-32 compared with the one recorded when it was written, and each part's arrays
    of one length.

    Args:
        folder: a library's ``vectors/`` folder.
    Returns:
        ``(problems, damaged parts)``: one line per problem naming the file (or
        ``meta.json``: then every part counts as damaged), and the numbers of the parts
        to embed again; both empty when the folder is whole or missing.
    """
    folder = Path(folder)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        return [f"{folder}: not a folder (the embedding vectors are kept in a folder "
                "of that name)"], [-1]
    try:
        meta = read_meta(folder)
    except VectorsError as exc:
        return [str(exc)], [-1]
    if meta is None:
        return [], []
    problems, damaged = [], []
    for number in meta["parts"]:
        found, lengths = [], []
        for kind in ("ids", "stamps", "vectors"):
            name = f"p{number}-{kind}.npy"
            record = meta["files"].get(name)
            problem = table_files.full_problem(folder / name, record) \
                if record is not None else f"{folder / name}: not recorded in meta.json"
            if problem is None:
                try:
                    lengths.append(len(table_files.read_array(folder / name, mapped=True)))
                except (OSError, ValueError, EOFError) as exc:
                    problem = f"{folder / name}: not readable ({table_files.reason(exc)})"
            if problem:
                found.append(problem)
        if not found and len(set(lengths)) != 1:
            found.append(f"{folder}: part {number} has arrays of different lengths")
        if found:
            problems += found
            damaged.append(number)
    return problems, damaged


def drop_parts(folder: Path, numbers: list[int]) -> None:
    """Forget damaged parts: ``meta.json`` is written without them, then their files
    are removed, so their papers count as not embedded (``-1`` in ``numbers``, or a
    ``meta.json`` that cannot be read: the whole folder is removed).

    Raises:
        OSError: a file cannot be written or removed.
    """
    folder = Path(folder)
    try:
        meta = read_meta(folder)
    except VectorsError:
        meta = None
    if meta is None or -1 in numbers:
        remove(folder)
        return
    meta["parts"] = [n for n in meta["parts"] if n not in numbers]
    for number in numbers:
        for kind in ("ids", "stamps", "vectors"):
            meta["files"].pop(f"p{number}-{kind}.npy", None)
    _write_meta(folder, meta)
    for number in numbers:
        for kind in ("ids", "stamps", "vectors"):
            part = folder / f"p{number}-{kind}.npy"
            if not part.is_symlink() and part.is_dir():
                shutil.rmtree(part)        # a folder planted where a part belongs
            else:
                part.unlink(missing_ok=True)


def remove(folder: Path) -> None:
    """Remove ``vectors/`` (a damaged folder, or another model's vectors)."""
    folder = Path(folder)
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)


@dataclass
class PaperVectors:
    """The stored vectors, loaded (the float rows memory-mapped).

    Attributes:
        model: the model's name.
        ids: int64 paper ids, one per row (sorted, each once: the newest row of a paper).
        stamps: uint32 text stamps, one per row.
        parts: each part's float16 vectors (memory-mapped).
        where: int64 array (rows, 2): each row's part and its row in that part.
        codes: uint64 array (dimensions / 64, rows): the signs of each vector as bits,
            a row of 64-bit words per 64 dimensions (each scanned contiguously).
    """

    model: str
    ids: np.ndarray
    stamps: np.ndarray
    parts: list
    where: np.ndarray
    codes: np.ndarray

    @classmethod
    def load(cls, folder: Path, update: bool = False) -> "PaperVectors | None":
        """Load ``vectors/``.

        Args:
            folder: the folder.
            update: write back the new modification times of files whose bytes were
                found unchanged (a library that may be written).
        Returns:
            The vectors, or ``None`` when there are none.
        Raises:
            VectorsError: a file is missing, changed or unreadable (one line).
        """
        folder = Path(folder)
        meta = read_meta(folder)
        if meta is None or not meta["parts"]:
            return None
        changed = False
        id_parts, stamp_parts, vector_parts = [], [], []
        for number in meta["parts"]:
            arrays = []
            for kind in ("ids", "stamps", "vectors"):
                name = f"p{number}-{kind}.npy"
                record = meta["files"].get(name)
                if record is None:
                    raise VectorsError(f"{folder / name}: not recorded in meta.json")
                problem, kept = table_files.quick_problem(folder / name, record)
                if problem:
                    raise VectorsError(problem)
                changed |= kept != record
                meta["files"][name] = kept
                try:
                    arrays.append(table_files.read_array(folder / name, mapped=True))
                except (OSError, ValueError, EOFError) as exc:
                    raise VectorsError(f"{folder / name}: not readable "
                                       f"({table_files.reason(exc)})") from None
            ids, stamps, vectors = arrays
            if (ids.ndim != 1 or stamps.shape != ids.shape or vectors.ndim != 2
                    or len(vectors) != len(ids) or vectors.dtype != np.float16
                    or vectors.shape[1] % 64):
                raise VectorsError(f"{folder}: part {number} has arrays of the wrong "
                                   "shapes")
            id_parts.append(np.asarray(ids))
            stamp_parts.append(np.asarray(stamps))
            vector_parts.append(vectors.view(np.ndarray))   # no np.memmap overhead
        if changed and update:
            try:
                _write_meta(folder, meta)
            except OSError:
                pass
        all_ids = np.concatenate(id_parts)
        part_of = np.concatenate([np.full(len(p), k, np.int32)
                                  for k, p in enumerate(id_parts)])
        row_in = np.concatenate([np.arange(len(p), dtype=np.int64) for p in id_parts])
        # the newest row of each paper: last occurrence wins
        order = np.lexsort((np.arange(len(all_ids)), all_ids))
        last = np.ones(len(order), dtype=bool)
        last[:-1] = all_ids[order][1:] != all_ids[order][:-1]
        keep = order[last]
        where = np.stack([part_of[keep], row_in[keep]], axis=1)
        codes = np.ascontiguousarray(
            np.concatenate([_codes(np.asarray(v)) for v in vector_parts])[keep].T)
        return cls(meta["model"], all_ids[keep], np.concatenate(stamp_parts)[keep],
                   vector_parts, where, codes)

    def __len__(self) -> int:
        return len(self.ids)

    def rows_of(self, paper_ids) -> np.ndarray:
        """Rows of the given papers (-1 for a paper without a vector)."""
        paper_ids = np.asarray(paper_ids, dtype=np.int64)
        pos = np.searchsorted(self.ids, paper_ids)
        pos = np.minimum(pos, max(len(self.ids) - 1, 0))
        found = (len(self.ids) > 0) & (self.ids[pos] == paper_ids) if len(self.ids) else \
            np.zeros(len(paper_ids), bool)
        return np.where(found, pos, -1)

    def vectors(self, rows) -> np.ndarray:
        """float32 array (len(rows), d) of the given rows."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return np.zeros((0, self.parts[0].shape[1] if self.parts else 0), np.float32)
        out = np.empty((len(rows), self.parts[0].shape[1]), dtype=np.float32)
        where = self.where[rows]
        order = np.argsort(where[:, 0], kind="stable")
        bounds = np.searchsorted(where[order, 0], np.arange(len(self.parts) + 1))
        for k in np.flatnonzero(np.diff(bounds)):       # only the parts these rows are in
            mine = order[bounds[k]:bounds[k + 1]]
            out[mine] = self.parts[k][where[mine, 1]]
        return out

    def nearest(self, query: np.ndarray, limit: int, valid: np.ndarray | None = None,
                candidates: int = CANDIDATES) -> tuple[np.ndarray, np.ndarray]:
        """The rows nearest to a vector: the ``candidates`` nearest by Hamming distance
        of the sign bits, then their cosines.

        Args:
            query: a unit-length float vector (d,).
            limit: how many rows.
            valid: a boolean mask of the rows that may be answered, or ``None``.
            candidates: how many rows are compared exactly (all when there are fewer).
        Returns:
            ``(rows int64, cosines float32)``, best first (ties by row).
        """
        query = np.asarray(query, dtype=np.float32)
        rows = self.candidate_rows(query, valid, candidates)
        cosines = self.vectors(rows) @ query
        order = np.lexsort((rows, -cosines.astype(np.float64)))[:limit]
        return rows[order], cosines[order]

    def candidate_rows(self, query: np.ndarray, valid: np.ndarray | None = None,
                       candidates: int = CANDIDATES) -> np.ndarray:
        """The rows nearest to ``query`` by Hamming distance of the sign bits (all valid
        rows when there are at most ``candidates``), as int64."""
        pool = np.flatnonzero(valid) if valid is not None else np.arange(len(self.ids))
        if len(pool) <= candidates:
            return pool.astype(np.int64)
        code = _codes(query[None, :])[0]
        codes = self.codes if valid is None else self.codes[:, pool]
        distance = np.zeros(codes.shape[1], dtype=np.uint16)
        for word in range(codes.shape[0]):          # a word of 64 bits at a time
            distance += np.bitwise_count(codes[word] ^ code[word])
        part = np.argpartition(distance, candidates - 1)[:candidates]
        return pool[part].astype(np.int64)


def _codes(vectors: np.ndarray) -> np.ndarray:
    """The signs of each row as bits, packed into uint64 words."""
    bits = np.packbits(np.asarray(vectors) > 0, axis=1)
    return np.ascontiguousarray(bits).view(np.uint64) if bits.shape[1] % 8 == 0 else \
        np.zeros((len(bits), 0), np.uint64)
