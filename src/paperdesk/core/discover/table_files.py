"""Writing the term table's files with a checksum each, and checking them.

Every file of a term-table generation (``terms/gN-*``) is written once and never
rewritten, so its size, modification time and CRC-32 are recorded as it is written, in
the table's ``meta.json`` (``"files": {name: [size in bytes, mtime in ns, CRC-32]}``).
As the search index does with its segment files (:mod:`paperdesk.core.search.integrity`):

* at every load (:func:`quick_problem`), each file's ``stat`` is compared with its
  record, and only a file whose size or time changed is read again and its CRC-32
  compared (a library copied without keeping times costs one read of its table, after
  which the new times are recorded);
* ``paperdesk check`` reads every file whole (:func:`full_problem`), which also finds
  bytes changed without the time changing.

Arrays are written and read as ``.npy`` files (NumPy's format,
https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html) without pickles:
``allow_pickle=False`` both ways, so an object array planted in the folder is refused
instead of unpickled (unpickling runs code).

The CRC-32 is zlib's (ISO 3309 / ITU-T V.42 polynomial), as :func:`zlib.crc32` computes it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import zlib
from pathlib import Path

import numpy as np

__all__ = ["FileRecord", "write_array", "write_arrays_in_blocks", "write_bytes",
           "read_array", "file_crc",
           "quick_problem", "full_problem", "valid_record", "not_regular", "NOFOLLOW",
           "reason"]

#: ``os.O_NOFOLLOW`` where there is one: a file of the table is never opened through a
#: symlink (a library folder from anyone may hold one pointing at the user's files).
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

#: ``[size in bytes, mtime in ns, CRC-32]`` of one written file.
FileRecord = list
#: Bytes read at a time when a file's CRC-32 is computed.
_CHUNK = 1 << 20


class _Checksummed:
    """A binary file being written that keeps the CRC-32 of the bytes written to it."""

    def __init__(self, handle):
        self._handle = handle
        self.crc = 0

    def write(self, data) -> int:
        self.crc = zlib.crc32(data, self.crc)
        return self._handle.write(data)


def _record(path: Path, crc: int) -> FileRecord:
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, crc]


def _write_new(path: Path, fill) -> int:
    """Write a file through a new temporary file beside it (created, never opened
    through a symlink) renamed over ``path``: a symlink planted at ``path`` is replaced,
    its target never written, and a folder found at ``path`` (where only this file
    belongs, in a derived folder) is removed first. ``fill(handle)`` writes the bytes;
    returns its result."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)          # a link left there: the link, not its target
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW |
                 getattr(os, "O_BINARY", 0), 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            result = fill(handle)
        if not path.is_symlink() and path.is_dir():
            shutil.rmtree(path)          # a folder where the file belongs: not ours to keep
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return result


def _write_new_files(paths: list[Path], fill) -> object:
    """:func:`_write_new` for several files written together: ``fill(handles)`` writes
    them (one handle per path, in order); each is renamed over its path only when all
    were written, and none is left on an error."""
    paths = [Path(p) for p in paths]
    tmps = [p.with_name(f"{p.name}.{os.getpid()}.tmp") for p in paths]
    handles = []
    try:
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW |
                         getattr(os, "O_BINARY", 0), 0o644)
            handles.append(os.fdopen(fd, "wb"))
        result = fill(handles)
        while handles:
            handles.pop(0).close()
        for path, tmp in zip(paths, tmps):
            if not path.is_symlink() and path.is_dir():
                shutil.rmtree(path)
            os.replace(tmp, path)
    except BaseException:
        for handle in handles:
            handle.close()
        for tmp in tmps:
            tmp.unlink(missing_ok=True)
        raise
    return result


def write_arrays_in_blocks(paths: list[Path], dtypes: list, length: int,
                           blocks) -> list[FileRecord]:
    """Write several one-dimensional ``.npy`` files of ``length`` items each whose
    contents come a block at a time (the term table's columns, computed a range of
    columns at a time, are never held whole): the same bytes as :func:`write_array`
    of the whole arrays.

    Args:
        paths: the files (replaced if they exist; all or none are).
        dtypes: each file's NumPy dtype.
        length: items in each file.
        blocks: an iterable of tuples, one array per file, one after another.
    Returns:
        Each file's :data:`FileRecord`, in the order of ``paths``.
    Raises:
        OSError: a file cannot be written.
        ValueError: the blocks do not add up to ``length`` items in every file.
    """
    dtypes = [np.dtype(d) for d in dtypes]

    def fill(handles) -> list[int]:
        outs = [_Checksummed(h) for h in handles]
        for out, dtype in zip(outs, dtypes):
            np.lib.format.write_array_header_1_0(
                out, {"descr": np.lib.format.dtype_to_descr(dtype),
                      "fortran_order": False, "shape": (int(length),)})
        written = [0] * len(outs)
        for block in blocks:
            for k, (out, dtype, array) in enumerate(zip(outs, dtypes, block)):
                array = np.ascontiguousarray(array, dtype=dtype)
                _write_bytes_of(out, array)
                written[k] += len(array)
        if any(n != length for n in written):
            raise ValueError(f"{written} items written, {length} expected")
        return [out.crc for out in outs]

    crcs = _write_new_files(paths, fill)
    return [_record(path, crc) for path, crc in zip(paths, crcs)]


def write_array(path: Path, array: np.ndarray) -> FileRecord:
    """Write ``array`` as a ``.npy`` file (no pickles), computing its CRC-32 on the way.

    Args:
        path: the file (replaced if it exists).
        array: a numeric array.
    Returns:
        Its :data:`FileRecord`.
    Raises:
        OSError: the file cannot be written.
        ValueError: an object array (it would need a pickle).
    """
    array = np.asarray(array)

    def fill(handle) -> int:
        out = _Checksummed(handle)
        if array.ndim == 1 and array.flags.c_contiguous and not array.dtype.hasobject:
            np.lib.format.write_array_header_1_0(
                out, np.lib.format.header_data_from_array_1_0(array))
            _write_bytes_of(out, array)
        else:
            np.lib.format.write_array(out, array, allow_pickle=False)
        return out.crc
    return _record(path, _write_new(path, fill))


def _write_bytes_of(out, array: np.ndarray) -> None:
    """Write a C-contiguous array's bytes a few MB at a time, without copying it
    (NumPy's ``write_array`` to a file object that is not a real file copied a
    one-dimensional array whole: 77 MB more at the peak for 300,000 papers' weights)."""
    view = memoryview(array).cast("B")
    step = 4 * _CHUNK
    for start in range(0, len(view), step):
        out.write(view[start:start + step])


def write_bytes(path: Path, data: bytes) -> FileRecord:
    """Write ``data`` to ``path``; returns its :data:`FileRecord`.

    Raises:
        OSError: the file cannot be written.
    """
    _write_new(path, lambda handle: handle.write(data))
    return _record(path, zlib.crc32(data))


def read_array(path: Path, mapped: bool = False) -> np.ndarray:
    """Read a ``.npy`` file without unpickling anything.

    Args:
        path: the file.
        mapped: memory-map it (read-only) instead of reading it into memory.
    Returns:
        The array.
    Raises:
        OSError: it cannot be read.
        ValueError, EOFError: it is not a ``.npy`` file of a numeric array (an object
            array is refused: ``allow_pickle=False``).
    """
    return np.load(path, mmap_mode="r" if mapped else None, allow_pickle=False)


def file_crc(path: Path) -> int:
    """The CRC-32 of a file's bytes, read 1 MiB at a time.

    Raises:
        OSError: the file cannot be read.
    """
    crc = 0
    with os.fdopen(os.open(path, os.O_RDONLY | NOFOLLOW | getattr(os, "O_BINARY", 0)),
                   "rb") as handle:
        while block := handle.read(_CHUNK):
            crc = zlib.crc32(block, crc)
    return crc


def not_regular(path: Path) -> str | None:
    """Why ``path`` is not a regular file of the table (one line naming it), or ``None``:
    a symlink (never followed) or another kind of file is damage.

    Raises:
        OSError: it cannot be looked at (FileNotFoundError: missing).
    """
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return f"{path}: a symbolic link, not a file of the term table"
    if not stat.S_ISREG(mode):
        return f"{path}: not a regular file"
    return None


def reason(exc: BaseException) -> str:
    """What reading a derived file (``meta.json``, a ``.npy`` array) met, in plain words
    for a one-line message's parentheses: never an exception's class name nor its raw
    text (``"JSONDecodeError"``, ``"[Errno 21] Is a directory: '…'"``).

    Args:
        exc: the exception the read raised.
    Returns:
        ``"not valid JSON"``, ``"not UTF-8 text"``, ``"a folder, not a file"``,
        ``"not a folder"`` (a file where a folder was), an ``OSError``'s own words
        (``"Permission denied"``, ``"not a regular file"``), ``"it ends too early"``,
        else ``"garbled data"``.
    """
    if isinstance(exc, json.JSONDecodeError):
        return "not valid JSON"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, IsADirectoryError):
        return "a folder, not a file"
    if isinstance(exc, NotADirectoryError):
        return "not a folder"
    if isinstance(exc, OSError):
        return exc.strerror or "it cannot be read"
    if isinstance(exc, EOFError):
        return "it ends too early"
    return "garbled data"


def valid_record(value) -> bool:
    """Whether ``value`` (from ``meta.json``) is a :data:`FileRecord`."""
    return isinstance(value, list) and len(value) == 3 and \
        all(isinstance(x, int) and not isinstance(x, bool) for x in value)


def quick_problem(path: Path, record: FileRecord) -> tuple[str | None, FileRecord]:
    """The check made at every load: the file's ``stat`` against its record, and its
    CRC-32 only when its size or modification time changed.

    Args:
        path: the file.
        record: its :data:`FileRecord` from ``meta.json``.
    Returns:
        ``(problem, record)``: a one-line problem naming the file, or ``None``; and the
        record to keep (with the new time when the bytes are unchanged).
    """
    try:
        st = os.lstat(path)
        odd = not_regular(path)
    except FileNotFoundError:
        return f"{path}: missing", record
    except OSError as exc:
        return f"{path}: cannot be read ({exc.strerror or exc})", record
    if odd:
        return odd, record
    if st.st_size != record[0]:
        return (f"{path}: changed since it was written ({record[0]:,} bytes then, "
                f"{st.st_size:,} now)"), record
    if st.st_mtime_ns == record[1]:
        return None, record
    problem = full_problem(path, record)
    return problem, record if problem else [record[0], st.st_mtime_ns, record[2]]


def full_problem(path: Path, record: FileRecord) -> str | None:
    """The check of ``paperdesk check``: the file read whole and its CRC-32 compared.

    Args:
        path: the file.
        record: its :data:`FileRecord`.
    Returns:
        A one-line problem naming the file, or ``None``.
    """
    try:
        odd = not_regular(path)
        if odd:
            return odd
        crc = file_crc(path)
    except FileNotFoundError:
        return f"{path}: missing"
    except OSError as exc:
        return f"{path}: cannot be read ({exc.strerror or exc})"
    if crc != record[2]:
        return f"{path}: changed since it was written (its checksum differs)"
    return None
