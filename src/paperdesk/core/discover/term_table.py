"""The term table: every paper's tf-idf term vector, stored beside the search index.

Like the Whoosh index, the table is derived from SQLite and rebuilt from it at any time;
it lives in the library folder's ``terms/`` folder and is loaded memory-mapped, so that
opening it costs milliseconds and little private memory even at 100,000 papers.

On disk (``terms/``), one *generation* ``gN`` per full build:

* ``meta.json``: ``{"format": 3, "generation": N, "papers": n, "terms": V,
  "parts": ["gN-p0", "gN-p1", ...], "files": {name: [size, mtime in ns, CRC-32]}}``,
  replaced atomically (write aside, rename); ``files`` records every file below as it
  was written, checked at each load and by ``paperdesk check`` (:mod:`.table_files`);
* ``gN-vocab.bin`` (the terms, UTF-8, one after another) and ``gN-vocab.npy`` (int64
  offsets, ``V + 1``): column ``i`` is ``bin[off[i]:off[i + 1]]``;
* ``gN-idf.npy``: float64 idf per column;
* per part ``gN-pK-{ids,stamps,indptr,indices,data,cindptr,crows,cdata}.npy``: the
  papers' ids (int64), their text stamps (uint32, see :func:`text_stamp`), a CSR matrix
  of their pruned, unit-length term weights (int32 ``indptr`` and ``indices``, float32
  ``data``; see :func:`~paperdesk.core.discover.vectorize.prune_rows`), and the same
  weights by column (CSC: ``cindptr`` per term, ``crows`` the part's rows, ``cdata``).
  Rows give a paper's terms (key terms, shared terms, the interest model's words);
  columns give the papers that have a term, so that the similarities of one paper to all
  others read only the columns of its own terms (a few MB at 100,000 papers) instead of
  the whole table.

Part 0 is the full build; later parts hold papers added or edited since, transformed
with the generation's vocabulary and idf (words new since the build count from the next
full build on). A paper in several parts counts in the last one; a row whose paper is
gone, or whose title or abstract changed after it was written, is not *valid* and takes
part in nothing.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paperdesk.core.discover import table_files

__all__ = ["TERMS_DIR", "FORMAT", "TermTable", "Part", "text_stamp", "current_stamps",
           "TermTableError", "real_folder", "save_built", "column_blocks", "COLUMN_BLOCK",
           "give_back_memory"]

#: The table's folder inside a library folder.
TERMS_DIR = "terms"
#: Version of the layout above; another version is rebuilt (1: rows only; 2: no
#: checksums).
FORMAT = 4     # 4: Chinese and Japanese text as pairs of ideographs (vectorize.cjk_terms)
_ARRAYS = ("ids", "stamps", "indptr", "indices", "data", "cindptr", "crows", "cdata")
#: The names of a generation's files (and of their temporary files while written): the
#: only files in ``terms/`` that removing old generations deletes.
_GENERATION_FILE = re.compile(r"g(\d+)-(vocab\.bin|vocab\.npy|idf\.npy|p\d+-(?:"
                              + "|".join(_ARRAYS) + r")\.npy)(\.\d+\.tmp)?")


class TermTableError(RuntimeError):
    """The table on disk cannot be read (missing or damaged files, another format); it is
    rebuilt from SQLite.

    Attributes:
        damaged: True when files of a table are damaged (changed since they were
            written, missing, unreadable), False when there is no table yet or it is
            of another format.
    """

    def __init__(self, message: str, damaged: bool = True):
        super().__init__(message)
        self.damaged = damaged


def read_slice(array: np.ndarray, start: int, stop: int) -> np.ndarray:
    """``array[start:stop]`` as a new in-memory array.

    A memory-mapped array is read with ``os.pread`` instead of through its mapping: a
    page fault in a mapped file maps the whole cached folio around it (up to 2 MB on
    recent kernels), so that reading the 64 columns of one paper's terms through the
    mapping put some 45 MB of the table into the process's resident memory at 100,000
    papers; ``pread`` copies just the bytes asked for. Elsewhere (no ``os.pread``, as on
    Windows, or an array in memory) it slices.

    Args:
        array: a 1-D array, possibly a ``numpy.memmap`` of a ``.npy`` file.
        start, stop: the slice (``0 <= start <= stop <= len(array)``).
    Returns:
        A 1-D array of ``stop - start`` elements of the same dtype.
    """
    if stop <= start:
        return np.zeros(0, dtype=array.dtype)
    filename = getattr(array, "filename", None)
    if filename is None or not hasattr(os, "pread") or getattr(array, "base", None) is None:
        return np.array(array[start:stop])
    size = array.dtype.itemsize
    fd = _descriptor(filename)
    data = os.pread(fd, (stop - start) * size, array.offset + start * size)
    if len(data) != (stop - start) * size:
        raise ValueError(f"{filename}: shorter than its header says")
    return np.frombuffer(data, dtype=array.dtype)


_FDS: dict[str, int] = {}


def _descriptor(filename: str) -> int:
    """An open read-only descriptor of ``filename`` (kept for the next reads; a file
    replaced by a later generation is a new name, so a kept one never goes stale)."""
    fd = _FDS.get(filename)
    if fd is None:
        if len(_FDS) > 64:             # older generations' files: let them go
            for old in list(_FDS)[:32]:
                try:
                    os.close(_FDS.pop(old))
                except OSError:
                    pass
        fd = _FDS[filename] = os.open(filename, os.O_RDONLY | table_files.NOFOLLOW |
                                      getattr(os, "O_BINARY", 0))
    return fd


def text_stamp(content_hash: str, title: str) -> int:
    """A 32-bit stamp of a paper's text: CRC-32 of its content hash and title.

    Args:
        content_hash: ``papers.content_hash`` (the abstract's identity).
        title: ``papers.title``.
    Returns:
        An int in ``[0, 2**32)``.
    """
    return zlib.crc32(f"{content_hash}\x00{title}".encode("utf-8", "surrogatepass"))


def current_stamps(db) -> tuple[np.ndarray, np.ndarray]:
    """Every paper's id and text stamp, read from SQLite.

    Args:
        db: an open ``sqlite_utils.Database`` or ``sqlite3.Connection`` of the library.
    Returns:
        ``(ids, stamps)``: int64 and uint32 arrays sorted by id.
    """
    # Read a block of rows at a time: every row at once (``fetchall``) held a tuple, a
    # 64-character hash and a title per paper, about 300 MB at a million papers, in
    # the window's process (it checks the stamps before related papers and embeddings).
    cursor = db.execute("SELECT id, content_hash, title FROM papers ORDER BY id")
    id_parts, stamp_parts = [], []
    while True:
        rows = cursor.fetchmany(STAMP_BLOCK)
        if not rows:
            break
        id_parts.append(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)))
        stamp_parts.append(np.fromiter((text_stamp(r[1], r[2]) for r in rows),
                                       dtype=np.uint32, count=len(rows)))
    if not id_parts:
        return np.zeros(0, np.int64), np.zeros(0, np.uint32)
    return np.concatenate(id_parts), np.concatenate(stamp_parts)


#: Rows :func:`current_stamps` reads at a time.
STAMP_BLOCK = 10_000
#: Weights of the columns computed at a time by :func:`column_blocks` (1M: some 40 MB
#: of temporary arrays, where the whole columns are 8 bytes per weight: 150 MB at
#: 300,000 papers, ~0.5 GB at a million).
COLUMN_BLOCK = 1 << 20


@dataclass
class Part:
    """One part of the table: some papers' rows.

    Attributes:
        ids: int64 paper ids, one per row.
        stamps: uint32 text stamps, one per row.
        indptr, indices, data: the rows' CSR arrays (int32, int32, float32).
        cindptr, crows, cdata: the same weights by column (CSC; int32, int32,
            float32), or ``None`` until :meth:`with_columns`.
    """

    ids: np.ndarray
    stamps: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    cindptr: np.ndarray | None = None
    crows: np.ndarray | None = None
    cdata: np.ndarray | None = None

    def with_columns(self, n_terms: int) -> "Part":
        """The part with its CSC arrays filled in (computed from the rows).

        Args:
            n_terms: the vocabulary's size.
        Returns:
            ``self``.
        """
        if self.cindptr is None:
            csc = self.matrix(n_terms).tocsc()
            csc.sort_indices()
            # copy=False: at a million papers each copy was another 250 MB at the peak
            self.cindptr = csc.indptr.astype(np.int32, copy=False)
            self.crows = csc.indices.astype(np.int32, copy=False)
            self.cdata = csc.data.astype(np.float32, copy=False)
        return self

    def matrix(self, n_terms: int):
        """The part as a scipy CSR matrix (no copy of the arrays)."""
        from scipy.sparse import csr_matrix
        return csr_matrix((self.data, self.indices, self.indptr),
                          shape=(len(self.ids), n_terms), copy=False)


class TermTable:
    """A loaded term table: vocabulary, idf and rows, with which rows are valid.

    Build one with :meth:`load` (from ``terms/``) or :meth:`from_parts` (in memory).

    Attributes:
        generation: the full build it belongs to (``0`` for one never saved).
        idf: float64 idf per column.
        parts: the :class:`Part` list, oldest first.
        row_ids: int64 paper id of every row, parts one after another.
        valid: bool per row (see :meth:`validate`).
    """

    def __init__(self, generation: int, vocab_blob: bytes, vocab_offsets: np.ndarray,
                 idf: np.ndarray, parts: list[Part], part_names: list[str] | None = None,
                 files: dict[str, list] | None = None):
        self.generation = generation
        #: ``{file name: FileRecord}`` of the files on disk (see :mod:`.table_files`).
        self.files = dict(files or {})
        self._blob = vocab_blob
        self._offsets = np.asarray(vocab_offsets, dtype=np.int64)
        self.idf = idf
        self.parts = list(parts)
        self.part_names = list(part_names or [])
        self._rebuild_rows()

    # -- building ------------------------------------------------------------------
    @classmethod
    def from_parts(cls, terms: list[str], idf: np.ndarray, parts: list[Part],
                   generation: int = 0) -> "TermTable":
        """A table from terms in column order, their idf and parts.

        Args:
            terms: the vocabulary, column ``i`` is ``terms[i]``.
            idf: float idf per column.
            parts: the rows.
            generation: the build's number (see :meth:`save`).
        Returns:
            The table, every row valid until :meth:`validate`.
        """
        blob, offsets = _vocabulary(terms)
        return cls(generation, blob, offsets, np.asarray(idf, np.float64), parts)

    def _rebuild_rows(self) -> None:
        for p in self.parts:
            p.with_columns(self.n_terms)
        self._mats = [p.matrix(self.n_terms) for p in self.parts]
        sizes = [len(p.ids) for p in self.parts]
        self._starts = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self._starts[1:])
        self.row_ids = (np.concatenate([np.asarray(p.ids, np.int64) for p in self.parts])
                        if self.parts else np.zeros(0, np.int64))
        self.row_stamps = (np.concatenate([np.asarray(p.stamps, np.uint32)
                                           for p in self.parts])
                           if self.parts else np.zeros(0, np.uint32))
        self.valid = np.ones(len(self.row_ids), dtype=bool)
        self._latest()

    def _latest(self) -> None:
        """Keep only the last row of each id valid."""
        n = len(self.row_ids)
        if n == 0:
            self._sorted_ids = np.zeros(0, np.int64)
            self._sorted_rows = np.zeros(0, np.int64)
            return
        # last occurrence of each id: stable sort of reversed rows
        rev = np.arange(n - 1, -1, -1)
        order = rev[np.argsort(self.row_ids[rev], kind="stable")]
        ids = self.row_ids[order]
        first = np.ones(n, dtype=bool)
        first[1:] = ids[1:] != ids[:-1]
        keep = order[first]
        mask = np.zeros(n, dtype=bool)
        mask[keep] = True
        self.valid &= mask
        self._index_valid()

    def _index_valid(self) -> None:
        rows = np.flatnonzero(self.valid)
        order = np.argsort(self.row_ids[rows], kind="stable")
        self._sorted_rows = rows[order]
        self._sorted_ids = self.row_ids[self._sorted_rows]

    def validate(self, ids: np.ndarray, stamps: np.ndarray) -> np.ndarray:
        """Mark as valid only the rows of papers that exist with the same text.

        Args:
            ids: int64 ids of every paper in the library, sorted (see
                :func:`current_stamps`).
            stamps: their uint32 text stamps.
        Returns:
            The int64 ids (sorted) of papers that have no valid row: new, or edited
            since their row was written.
        """
        self.valid = np.ones(len(self.row_ids), dtype=bool)
        pos = np.searchsorted(ids, self.row_ids)
        pos_c = np.minimum(pos, max(len(ids) - 1, 0))
        exists = (pos < len(ids)) & (ids[pos_c] == self.row_ids) if len(ids) else \
            np.zeros(len(self.row_ids), dtype=bool)
        same = np.zeros(len(self.row_ids), dtype=bool)
        same[exists] = stamps[pos_c[exists]] == self.row_stamps[exists]
        self.valid = same
        self._latest()
        covered = np.zeros(len(ids), dtype=bool)
        covered[np.searchsorted(ids, self._sorted_ids)] = True
        return ids[~covered]

    # -- reading -------------------------------------------------------------------
    @property
    def n_terms(self) -> int:
        """How many terms (columns) the vocabulary has."""
        return len(self._offsets) - 1

    @property
    def n_rows(self) -> int:
        """Rows in all parts, valid or not."""
        return len(self.row_ids)

    def term(self, column: int) -> str:
        """The term of a column."""
        a, b = self._offsets[column], self._offsets[column + 1]
        return self._blob[a:b].decode("utf-8", "surrogatepass")

    def columns_of(self, terms: list[str]) -> np.ndarray:
        """The column of each term, or -1 for a word that is not a term (a binary search
        in the sorted vocabulary: no ``{term: column}`` dictionary, which costs 25 MB at
        175,000 terms).

        Args:
            terms: words.
        Returns:
            int64 array, one column per word.
        """
        import bisect
        blob, off = self._blob, self._offsets
        n = self.n_terms

        def at(i: int) -> bytes:
            return blob[off[i]:off[i + 1]]

        out = np.full(len(terms), -1, dtype=np.int64)
        for k, word in enumerate(terms):
            key = word.encode("utf-8", "surrogatepass")
            i = bisect.bisect_left(range(n), key, key=at)
            if i < n and at(i) == key:
                out[k] = i
        return out

    def rows_of(self, ids) -> np.ndarray:
        """The valid row of each id, or -1.

        Args:
            ids: paper ids (any int sequence).
        Returns:
            int64 array, one row per id.
        """
        ids = np.asarray(ids, dtype=np.int64)
        if len(self._sorted_ids) == 0:
            return np.full(len(ids), -1, dtype=np.int64)
        pos = np.searchsorted(self._sorted_ids, ids)
        pos_c = np.minimum(pos, len(self._sorted_ids) - 1)
        found = self._sorted_ids[pos_c] == ids
        return np.where(found, self._sorted_rows[pos_c], -1)

    def valid_ids(self) -> np.ndarray:
        """The ids of every paper with a valid row, sorted."""
        return self._sorted_ids

    def row(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """Row ``r``'s columns and weights, heaviest first.

        Returns:
            ``(columns int32, weights float32)``.
        """
        p = int(np.searchsorted(self._starts, r, side="right") - 1)
        part = self.parts[p]
        local = r - self._starts[p]
        a, b = int(part.indptr[local]), int(part.indptr[local + 1])
        return read_slice(part.indices, a, b), read_slice(part.data, a, b)

    def dense(self, r: int) -> np.ndarray:
        """Row ``r`` as a dense float32 vector of ``n_terms``."""
        out = np.zeros(self.n_terms, dtype=np.float32)
        cols, weights = self.row(r)
        out[cols] = weights
        return out

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """Dot product of every row with a dense term vector (cosines when the vector is
        a unit-length row).

        Args:
            vector: float32 array of ``n_terms``.
        Returns:
            float32 array of ``n_rows``; invalid rows are ``-inf``.
        """
        out = np.concatenate([m @ vector for m in self._mats]) if self._mats else \
            np.zeros(0, np.float32)
        out = out.astype(np.float32, copy=False)
        out[~self.valid] = -np.inf
        return out

    def similarities(self, cols: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Dot product of every row with a sparse term vector, read by column: only the
        columns of ``cols`` are touched.

        Args:
            cols: int columns of the vector's terms (each once).
            weights: their float weights.
        Returns:
            float32 array of ``n_rows``; invalid rows are ``-inf``.
        """
        cols = np.asarray(cols, dtype=np.int64)
        weights = np.asarray(weights, dtype=np.float64)
        out = []
        for part in self.parts:
            starts = np.asarray(part.cindptr[cols], dtype=np.int64)
            ends = np.asarray(part.cindptr[cols + 1], dtype=np.int64)
            lengths = ends - starts
            if int(lengths.sum()) == 0:
                out.append(np.zeros(len(part.ids), dtype=np.float64))
                continue
            keep = lengths > 0
            rows = np.concatenate([read_slice(part.crows, a, b)
                                   for a, b in zip(starts[keep], ends[keep])])
            values = np.concatenate([read_slice(part.cdata, a, b)
                                     for a, b in zip(starts[keep], ends[keep])])
            values = values * np.repeat(weights[keep], lengths[keep])
            scores = np.bincount(rows, weights=values, minlength=len(part.ids))
            if len(scores) != len(part.ids):
                raise ValueError("a column names a row the part does not have")
            out.append(scores)
        scores = (np.concatenate(out) if out else np.zeros(0)).astype(np.float32)
        scores[~self.valid] = -np.inf
        return scores

    def matrix(self, rows) -> "object":
        """The given rows (in that order) as one scipy CSR matrix (a copy).

        Args:
            rows: global row numbers.
        Returns:
            ``len(rows) x n_terms`` CSR matrix.
        """
        from scipy.sparse import vstack
        rows = np.asarray(rows, dtype=np.int64)
        parts = np.searchsorted(self._starts, rows, side="right") - 1
        pieces, order = [], []
        for p in np.unique(parts):
            sel = np.flatnonzero(parts == p)
            pieces.append(self._mats[p][rows[sel] - self._starts[p]])
            order.append(sel)
        if not pieces:
            from scipy.sparse import csr_matrix
            return csr_matrix((0, self.n_terms), dtype=np.float32)
        stacked = vstack(pieces, format="csr")
        inverse = np.empty(len(rows), dtype=np.int64)
        inverse[np.concatenate(order)] = np.arange(len(rows))
        return stacked[inverse]

    def top_columns(self, rows, per_row: int) -> np.ndarray:
        """The first ``per_row`` columns (its heaviest terms) of each given row,
        concatenated.

        Args:
            rows: global row numbers.
            per_row: columns taken per row (fewer when a row has fewer).
        Returns:
            int32 array of columns.
        """
        rows = np.asarray(rows, dtype=np.int64)
        out = []
        parts = np.searchsorted(self._starts, rows, side="right") - 1
        for p in np.unique(parts):
            part = self.parts[p]
            local = rows[parts == p] - self._starts[p]
            starts = np.asarray(part.indptr[local], dtype=np.int64)
            ends = np.minimum(np.asarray(part.indptr[local + 1], dtype=np.int64),
                              starts + per_row)
            lengths = np.maximum(ends - starts, 0)
            if lengths.sum() == 0:
                continue
            offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + \
                np.arange(lengths.sum())
            out.append(np.asarray(part.indices)[offsets])
        return np.concatenate(out) if out else np.zeros(0, np.int32)

    # -- disk ----------------------------------------------------------------------
    @classmethod
    def load(cls, folder: Path, update: bool = False) -> "TermTable":
        """Load the table in ``folder`` (memory-mapped), each file checked against the
        size, time and CRC-32 recorded when it was written (:func:`.table_files.
        quick_problem`: a ``stat`` per file; a file whose size or time changed is read).

        Args:
            folder: a library's ``terms/`` folder.
            update: record the new times of files whose bytes are unchanged (a copied
                library) in ``meta.json``, so that they are not read again next time
                (False for a library that must not be written).
        Returns:
            The table, every latest row valid until :meth:`validate`.
        Raises:
            TermTableError: no table, another format, or damaged files (``damaged``).
        """
        folder = Path(folder)
        meta = _read_meta(folder)
        g, names = meta["generation"], meta["parts"]
        records = meta["files"]
        checked = {}
        for name in _file_names(g, names):
            record = records.get(name)
            if not table_files.valid_record(record):
                raise TermTableError(f"{folder / name}: no checksum recorded")
            problem, checked[name] = table_files.quick_problem(folder / name, record)
            if problem:
                raise TermTableError(problem)
        try:
            blob = (folder / f"g{g}-vocab.bin").read_bytes()
            offsets = table_files.read_array(folder / f"g{g}-vocab.npy")
            idf = table_files.read_array(folder / f"g{g}-idf.npy")
            parts = []
            for name in names:
                arrays = {k: table_files.read_array(folder / f"{name}-{k}.npy", mapped=True)
                          for k in _ARRAYS}
                parts.append(Part(**arrays))
        except (OSError, ValueError, EOFError) as exc:
            raise TermTableError(f"{folder}: damaged ({table_files.reason(exc)})") from exc
        if len(offsets) - 1 != len(idf) or offsets[-1] != len(blob):
            raise TermTableError(f"{folder}: the vocabulary does not match its idf")
        for part in parts:
            if len(part.indptr) != len(part.ids) + 1 or \
                    int(part.indptr[-1]) != len(part.indices) or \
                    len(part.indices) != len(part.data) or len(part.stamps) != len(part.ids):
                raise TermTableError(f"{folder}: a part's arrays do not match")
            if len(part.cindptr) != len(idf) + 1 or int(part.cindptr[-1]) != len(part.crows) \
                    or len(part.crows) != len(part.indices) or len(part.cdata) != len(part.crows):
                raise TermTableError(f"{folder}: a part's columns do not match its rows")
            # Sizes only: scanning every index for its range would read the whole table
            # (100 MB at 100,000 papers) at each open; a value out of range is found
            # when it is used (IndexError), and the engine rebuilds the table then.
        table = cls(g, blob, offsets, idf, parts, names, checked)
        if update and checked != {n: records[n] for n in checked}:
            try:
                _write_meta(folder, g, names, table)
            except OSError:
                pass            # read again next time
        return table

    @staticmethod
    def full_problems(folder: Path) -> list[str]:
        """The check of ``paperdesk check``: every file of the current table read whole
        and its CRC-32 compared with the one recorded when it was written.

        Args:
            folder: a library's ``terms/`` folder.
        Returns:
            One line per problem, each naming the file (empty: no table, a table of
            another format, which is rebuilt at its next use anyway, or a whole one).
        """
        folder = Path(folder)
        try:
            meta = _read_meta(folder)
        except TermTableError as exc:
            return [str(exc)] if exc.damaged else []
        g, names = meta["generation"], meta["parts"]
        problems = []
        for name in _file_names(g, names):
            record = meta["files"].get(name)
            if not table_files.valid_record(record):
                problems.append(f"{folder / name}: no checksum recorded")
                continue
            problem = table_files.full_problem(folder / name, record)
            if problem:
                problems.append(problem)
        return problems

    def save(self, folder: Path, generation: int) -> None:
        """Write the whole table as generation ``generation`` and make it current;
        files of older generations are removed.

        Args:
            folder: the ``terms/`` folder (created if needed).
            generation: a number larger than any in the folder.
        Raises:
            OSError: the folder cannot be written (a read-only library).
        """
        folder = real_folder(folder)
        g = generation
        files = {f"g{g}-vocab.bin": table_files.write_bytes(folder / f"g{g}-vocab.bin",
                                                            self._blob),
                 f"g{g}-vocab.npy": table_files.write_array(folder / f"g{g}-vocab.npy",
                                                            self._offsets),
                 f"g{g}-idf.npy": table_files.write_array(folder / f"g{g}-idf.npy",
                                                          self.idf)}
        names = []
        for k, part in enumerate(self.parts):
            name = f"g{g}-p{k}"
            files.update(_save_part(folder, name, part))
            names.append(name)
        self.generation, self.part_names, self.files = g, names, files
        _write_meta(folder, g, names, self)
        _remove_other_generations(folder, g)

    def append_part(self, folder: Path | None, part: Part) -> None:
        """Add a part of new or edited papers (and write it when ``folder`` is given).

        Args:
            folder: the ``terms/`` folder of the table's generation, or ``None`` to keep
                it in memory only.
            part: rows transformed with this table's vocabulary and idf.
        Raises:
            OSError: the folder cannot be written.
        """
        part.with_columns(self.n_terms)
        if folder is not None:
            if Path(folder).is_symlink():
                raise OSError(f"{folder}: a symbolic link, not the term table's folder")
            name = f"g{self.generation}-p{_next_part(self.part_names)}"
            written = _save_part(Path(folder), name, part)
            self.files.update(written)
            try:
                _write_meta(Path(folder), self.generation, self.part_names + [name], self)
            except OSError:
                for file_name in written:
                    del self.files[file_name]
                raise
            self.part_names.append(name)
        self.parts.append(part)
        self._rebuild_rows()


def _vocabulary(terms: list[str]) -> tuple[bytes, np.ndarray]:
    """``(vocab.bin bytes, int64 offsets)`` of the terms in column order."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in terms]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return b"".join(encoded), offsets


def column_blocks(part: Part, n_terms: int, block: int | None = None):
    """A part's weights by column (its ``crows`` and ``cdata``) a range of columns at a
    time: the arrays :meth:`Part.with_columns` computes whole (scipy's ``tocsc``: in
    each column the rows ascending), in pieces of about ``block`` weights (more when
    one column has more, or when 127 blocks would not hold them all), so that the rows
    and the whole columns are never held together (8 bytes per weight each). Each
    weight's piece is noted first (1 byte per weight), so that a piece is found with
    one pass over those bytes.

    Args:
        part: a part with its rows (``indptr``, ``indices``, ``data``).
        n_terms: the vocabulary's size.
        block: weights per piece (1 or more; ``None``: :data:`COLUMN_BLOCK`).
    Yields:
        ``(crows int32, cdata float32)`` per range of columns, in column order.
    """
    indices, data = part.indices, part.data
    nnz = len(indices)
    if nnz == 0:
        return
    cindptr = _column_starts(part, n_terms)
    # two pieces in a row hold more than a block: at most 255 pieces of a byte's number
    block = max(int(COLUMN_BLOCK if block is None else block), -(-nnz // 127), 1)
    bounds = [0]
    while bounds[-1] < n_terms:
        c = bounds[-1]
        end = int(np.searchsorted(cindptr, cindptr[c] + block, "right")) - 1
        bounds.append(min(max(end, c + 1), n_terms))
    del cindptr
    kind = np.uint8 if len(bounds) <= 256 else np.uint16
    piece_of_column = np.zeros(n_terms, dtype=kind)
    for k in range(len(bounds) - 1):
        piece_of_column[bounds[k]:bounds[k + 1]] = k
    piece_of = np.empty(nnz, dtype=kind)
    step = 1 << 22
    for a in range(0, nnz, step):
        piece_of[a:a + step] = piece_of_column[indices[a:a + step]]
    del piece_of_column
    for k in range(len(bounds) - 1):
        where = np.flatnonzero(piece_of == k)
        if len(where) == 0:
            continue
        rows = (np.searchsorted(part.indptr, where, "right") - 1).astype(np.int32)
        # by column, and in a column by row (the weights' order in the rows): one sort
        # of unique keys, faster than a stable argsort
        keys = indices[where].astype(np.int64) << 32
        keys |= np.arange(len(where), dtype=np.int64)
        keys.sort()
        order = keys & 0xFFFFFFFF
        del keys
        values = data[where[order]]
        rows = rows[order]
        del where, order
        yield rows, values.astype(np.float32, copy=False)
        del rows, values


def give_back_memory() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim(0)``; a
    no-op elsewhere). Arrays of a few MB freed one after another stay in the heap,
    and so in the process's resident memory, without it (the builder's counts; the
    columns' pieces of :func:`column_blocks`: 160 MB where 60 MB are in use)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _column_starts(part: Part, n_terms: int) -> np.ndarray:
    """The int64 start of each column's weights (CSC ``indptr``, ``n_terms + 1``)."""
    counts = np.zeros(n_terms, dtype=np.int64)
    step = 1 << 22          # bincount copies its input to int64: a piece at a time
    for a in range(0, len(part.indices), step):
        counts += np.bincount(part.indices[a:a + step], minlength=n_terms)
    starts = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return starts


def save_built(folder: Path, generation: int, terms: list[str], idf: np.ndarray,
               part: Part) -> None:
    """Write a full build as generation ``generation`` and make it current, as
    :meth:`TermTable.save` of ``TermTable.from_parts(terms, idf, [part])`` writes it
    (the same bytes in every file), without computing the part's columns whole: they
    are written a range of columns at a time (:func:`column_blocks`). The builder
    child's way: at a million papers the whole columns beside the rows were ~0.5 GB
    of its peak.

    Args:
        folder: the ``terms/`` folder (created if needed).
        generation: a number larger than any in the folder.
        terms: the vocabulary in column order.
        idf: float idf per column.
        part: the rows (its ``cindptr``, ``crows``, ``cdata`` are not used).
    Raises:
        OSError: the folder cannot be written.
    """
    folder = real_folder(folder)
    g = generation
    blob, offsets = _vocabulary(terms)
    n_terms = len(terms)
    files = {f"g{g}-vocab.bin": table_files.write_bytes(folder / f"g{g}-vocab.bin", blob),
             f"g{g}-vocab.npy": table_files.write_array(folder / f"g{g}-vocab.npy",
                                                        offsets),
             f"g{g}-idf.npy": table_files.write_array(folder / f"g{g}-idf.npy",
                                                      np.asarray(idf, np.float64))}
    del blob
    name = f"g{g}-p0"
    for key in ("ids", "stamps", "indptr", "indices", "data"):
        files[f"{name}-{key}.npy"] = table_files.write_array(
            folder / f"{name}-{key}.npy", getattr(part, key))
    files[f"{name}-cindptr.npy"] = table_files.write_array(
        folder / f"{name}-cindptr.npy", _column_starts(part, n_terms).astype(np.int32))
    crows, cdata = table_files.write_arrays_in_blocks(
        [folder / f"{name}-crows.npy", folder / f"{name}-cdata.npy"],
        [np.int32, np.float32], len(part.indices), column_blocks(part, n_terms))
    files[f"{name}-crows.npy"], files[f"{name}-cdata.npy"] = crows, cdata
    _write_meta_file(folder, g, [name], files, len(np.unique(part.ids)), n_terms)
    _remove_other_generations(folder, g)


def real_folder(folder: Path) -> Path:
    """Make ``folder`` a real folder before the table is written into it: a symlink (or
    a file) there is damage, removed itself (never what it points to), and a folder made.

    Args:
        folder: a library's ``terms/`` folder.
    Returns:
        ``folder``.
    Raises:
        OSError: it cannot be made.
    """
    folder = Path(folder)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        folder.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def next_generation(folder: Path) -> int:
    """A generation number larger than any file in ``folder`` has."""
    best = 0
    try:
        for entry in os.scandir(folder):
            name = entry.name
            if name.startswith("g") and "-" in name and name[1:name.index("-")].isdigit():
                best = max(best, int(name[1:name.index("-")]))
    except OSError:
        pass
    return best + 1


def _next_part(names: list[str]) -> int:
    return max((int(n.rsplit("-p", 1)[1]) for n in names), default=-1) + 1


def _save_part(folder: Path, name: str, part: Part) -> dict[str, list]:
    """Write a part's arrays; returns ``{file name: FileRecord}``."""
    return {f"{name}-{key}.npy": table_files.write_array(folder / f"{name}-{key}.npy",
                                                         getattr(part, key))
            for key in _ARRAYS}


def _file_names(generation: int, parts: list[str]) -> list[str]:
    """Every file of a table: its vocabulary and idf, then each part's arrays."""
    g = generation
    return [f"g{g}-vocab.bin", f"g{g}-vocab.npy", f"g{g}-idf.npy"] + \
        [f"{name}-{key}.npy" for name in parts for key in _ARRAYS]


def _read_meta(folder: Path) -> dict:
    """``meta.json`` of the current format, with a ``files`` record.

    Raises:
        TermTableError: none yet, another format (``damaged`` False), or unreadable.
    """
    path = folder / "meta.json"
    if folder.is_symlink():
        raise TermTableError(f"{folder}: a symbolic link, not the term table's folder")
    if folder.exists() and not folder.is_dir():
        # named as the path that is wrong (terms), not as terms/meta.json
        raise TermTableError(f"{folder}: not a folder (the term table is kept in a "
                             "folder of that name)")
    try:
        odd = table_files.not_regular(path)
        if odd:
            raise TermTableError(odd)
        with os.fdopen(os.open(path, os.O_RDONLY | table_files.NOFOLLOW), "rb") as handle:
            meta = json.loads(handle.read().decode("utf-8"))
    except FileNotFoundError as exc:
        if folder.exists() and not folder.is_dir():
            raise TermTableError(f"{folder}: not a folder") from exc
        raise TermTableError("no term table yet", damaged=False) from exc
    except (OSError, ValueError) as exc:
        raise TermTableError(f"{path}: cannot be read ({table_files.reason(exc)})") from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise TermTableError(f"{path}: another format", damaged=False)
    if not isinstance(meta.get("files"), dict) or not isinstance(meta.get("parts"), list) \
            or not isinstance(meta.get("generation"), int) \
            or not all(isinstance(n, str) for n in meta["parts"]):
        raise TermTableError(f"{path}: damaged (its generation, parts or files are not "
                             "recorded)")
    return meta


def _write_meta(folder: Path, generation: int, names: list[str], table: TermTable) -> None:
    _write_meta_file(folder, generation, names, table.files,
                     int(table.valid.sum()) if hasattr(table, "valid") else 0,
                     table.n_terms)


def _write_meta_file(folder: Path, generation: int, names: list[str],
                     records: dict[str, list], papers: int, n_terms: int) -> None:
    files = _file_names(generation, names)
    meta = {"format": FORMAT, "generation": generation, "papers": papers,
            "terms": n_terms, "parts": names,
            "files": {n: records[n] for n in files if n in records}}
    table_files.write_bytes(folder / "meta.json", json.dumps(meta).encode("utf-8"))


def _remove_other_generations(folder: Path, keep: int) -> None:
    """Delete the files of generations other than ``keep`` in the real folder ``folder``:
    only names of the table's exact scheme (:data:`_GENERATION_FILE`), regular files or
    symlinks (a link is removed itself, never its target)."""
    if Path(folder).is_symlink():
        return
    for entry in os.scandir(folder):
        match = _GENERATION_FILE.fullmatch(entry.name)
        if match and int(match.group(1)) != keep and \
                (entry.is_symlink() or entry.is_file(follow_symlinks=False)):
            try:
                os.unlink(entry.path)
            except OSError:
                pass       # mapped by another process (Windows); removed next time
