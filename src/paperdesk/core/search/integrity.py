"""Checking the search index's files: the cheap check made at every open and the full
one of ``paperdesk check``.

Whoosh never rewrites a segment file once a commit has listed it in the table of
contents (``_MAIN_<generation>.toc``): deletions live in the TOC, merges write new
segments. So each segment file's CRC-32 is recorded once, right after the commit that
made it (``index/paperdesk-checksums.json``: ``{file name: [size in bytes, mtime in ns,
CRC-32]}``), and at every open each file's ``stat`` is compared with the record: a file
whose size or modification time changed is read again and its CRC-32 compared (a
library copied without keeping times costs one read of its index, once). A truncated or
overwritten segment is so found by a few ``stat`` calls, and without reading the index;
what a record cannot catch (a file damaged by the disk without its time changing) the
full check finds by reading every file (:func:`full_problems`).

The CRC-32 is zlib's (ISO 3309 / ITU-T V.42 polynomial), as :func:`zlib.crc32` computes it.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import zlib
from pathlib import Path

from paperdesk.core.regular_files import open_regular
from paperdesk.core.search.safe_pickle import named, why

__all__ = ["CHECKSUMS_NAME", "segment_files", "record_checksums", "quick_problems",
           "full_problems", "unreadable_problem", "toc_path", "walk_terms"]

#: The record of the segment files' checksums, in the index folder.
CHECKSUMS_NAME = "paperdesk-checksums.json"
#: Bytes read at a time when a file's CRC-32 is computed.
_CHUNK = 1 << 20


def _crc(path: Path) -> int:
    """The CRC-32 of a file's bytes (``zlib.crc32``), read 1 MiB at a time.

    Raises:
        OSError: the file cannot be read.
    """
    crc = 0
    with open_regular(path) as f:
        while True:
            block = f.read(_CHUNK)
            if not block:
                return crc
            crc = zlib.crc32(block, crc)


def segment_files(ix, info=None) -> list[str]:
    """The file names the index's current segments are stored in (compound segments:
    one ``<segment id>.seg`` each; others: every file of the segment's id).

    Args:
        ix: a Whoosh ``FileIndex``.
        info: its table of contents (``ix._read_toc()``), read when not given.
    Returns:
        File names inside the index folder, in segment order.
    Raises:
        Exception: the table of contents cannot be read (any Whoosh or OS error).
    """
    info = info if info is not None else ix._read_toc()
    names: list[str] = []
    listing = None
    for segment in info.segments:
        if segment.is_compound():
            names.append(segment.make_filename(segment.COMPOUND_EXT))
        else:
            if listing is None:
                listing = list(ix.storage.list())
            names += sorted(n for n in listing if n.startswith(segment.segment_id() + "."))
    return names


def _load(folder: Path) -> dict:
    try:
        with open_regular(folder / CHECKSUMS_NAME) as f:
            data = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items()
            if isinstance(v, list) and len(v) == 3 and all(isinstance(x, int) for x in v)}


def _save(folder: Path, record: dict) -> None:
    tmp = folder / (CHECKSUMS_NAME + ".tmp")
    try:
        tmp.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
        os.replace(tmp, folder / CHECKSUMS_NAME)
    except OSError:          # a read-only or full disk: the record is a nicety
        tmp.unlink(missing_ok=True)


def record_checksums(folder: Path, names: list[str]) -> None:
    """Record the size, modification time and CRC-32 of the segment files ``names`` not
    recorded yet (just written: they are in the page cache), and forget files that are
    no longer segments. Never raises (a read-only or full disk keeps the old record).

    Args:
        folder: the index folder.
        names: the current segment files (:func:`segment_files`).
    """
    old = _load(folder)
    new = {}
    for name in names:
        path = folder / name
        try:
            st = path.stat()
            known = old.get(name)
            if known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns:
                new[name] = known
            elif known is None:
                new[name] = [st.st_size, st.st_mtime_ns, _crc(path)]
            else:
                new[name] = known     # changed since recorded: quick_problems tells
        except OSError:
            continue
    if new != old:
        _save(folder, new)


def quick_problems(ix, folder: Path, update: bool = True) -> list[str]:
    """The cheap check of the index made at every open: the table of contents is
    readable, every segment file is there, each compound file's directory is readable
    and lies inside the file, and no file changed since its checksum was recorded (a
    changed ``stat`` makes the file be read once and its CRC-32 compared).

    Args:
        ix: the open Whoosh ``FileIndex``.
        folder: the index folder.
        update: record files not recorded yet, and the new ``stat`` of files whose bytes
            are unchanged (False for a library opened read-only).
    Returns:
        One line per problem found (empty: the index looks whole), each naming the file.
    """
    try:
        info = ix._read_toc()
        names = segment_files(ix, info)
    except Exception as exc:  # noqa: BLE001 - any failure means the TOC is damaged
        return [f"{named(exc, toc_path(folder))}: the table of contents cannot be read "
                f"({why(exc)})"]
    problems = []
    for segment in info.segments:
        if not segment.is_compound():
            continue
        name = segment.make_filename(segment.COMPOUND_EXT)
        problem = _compound_problem(ix.storage, folder, segment, name)
        if problem:
            problems.append(problem)
    record = _load(folder)
    changed = False
    for name in names:
        path = folder / name
        try:
            st = path.stat()
        except OSError:
            if not any(name in p for p in problems):
                problems.append(f"{path}: segment file missing")
            continue
        known = record.get(name)
        if known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns:
            continue
        try:
            crc = _crc(path)
        except OSError as exc:
            problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
            continue
        if known is not None and (known[0] != st.st_size or known[2] != crc):
            why = (f"{known[0]:,} bytes then, {st.st_size:,} now" if known[0] != st.st_size
                   else "its checksum differs")
            problems.append(f"{path}: segment file changed since it was written ({why})")
            continue
        record[name] = [st.st_size, st.st_mtime_ns, crc]
        changed = True
    if update and changed and not problems:
        _save(folder, {n: record[n] for n in names if n in record})
    return problems


def _compound_problem(storage, folder: Path, segment, name: str) -> str | None:
    """Why a compound segment file cannot be read (missing, too short, its directory
    unreadable or pointing past its end): ``"<file>: segment file …"``, or ``None``.
    ``storage``: the index's Whoosh storage."""
    found = _compound_why(storage, folder / name, segment)
    return f"{folder / name}: {found}" if found else None


def _compound_why(storage, path: Path, segment) -> str | None:
    """:func:`_compound_problem` without the file's name."""
    try:
        size = path.stat().st_size
    except OSError:
        return "segment file missing"
    if size < 12:
        return f"segment file truncated ({size} bytes)"
    try:
        files = segment.open_compound_file(storage)
    except Exception as exc:  # noqa: BLE001 - struct, pickle, EOF, OS errors alike
        return f"segment file damaged (reading its directory: {why(exc)})"
    try:
        for part, where in files._dir.items():
            if where["offset"] + where["length"] > size:
                return f"segment file truncated ({part} ends past {size:,} bytes)"
    except Exception as exc:  # noqa: BLE001
        return f"segment file damaged (in its directory: {why(exc)})"
    finally:
        try:
            files.close()
        except Exception:  # noqa: BLE001
            pass
    return None


_LENGTHS = struct.Struct("!ii")       # whoosh.filedb.filetables._lengths
_FIELD_NUMBER = struct.Struct("!H")   # whoosh.system.unpack_ushort
#: An entry's two lengths and its key's field number, read in one call.
_ENTRY = struct.Struct("!iiH")


def walk_terms(reader) -> int:
    """Read every key of a segment's term index as ``reader.all_terms()`` does, and fail
    where it fails, without making a Python tuple of each term: each entry's two
    lengths (``!ii``) read at its position, each key's first two bytes (its field's
    number) read and the number looked up among the segment's fields, the next entry
    found past the key and its data, up to the end of the data. ``all_terms()`` spends
    some 10 µs a term in generators (46 of the 56 s of the index's full check at
    300,000 papers, profiled); this reads the same bytes with one ``struct.unpack_from``
    a term. A reader whose term file is not one of paperdesk's memory-mapped
    views (:class:`paperdesk.core.search.index._MappedFile`) is walked by
    ``all_terms()``.

    Args:
        reader: an open Whoosh ``SegmentReader`` (codec ``whoosh3``).
    Returns:
        The number of keys read.
    Raises:
        struct.error: a length or a key's field number lies past the end of the file,
            or a key is shorter than a field number (as ``all_terms()`` raises it).
        IndexError: a key's field number is not one of the segment's fields (as
            ``all_terms()``).
        ValueError: an entry's lengths lead back to it or before it (``all_terms()``
            would walk in a circle for ever).
    """
    terms = getattr(reader, "_terms", None)
    tindex = getattr(terms, "_tindex", None)
    dbfile = getattr(tindex, "dbfile", None)
    fields = getattr(terms, "_fieldunmap", None)
    # a memory-mapped view has its map and offset (told by them, not by its class: the
    # index module imports this one)
    mapping, base = getattr(dbfile, "_map", None), getattr(dbfile, "_base", None)
    if not isinstance(mapping, mmap.mmap) or not isinstance(base, int) or fields is None:
        return sum(1 for _ in reader.all_terms())
    unpack_entry = _ENTRY.unpack_from     # struct.error past the end, as all_terms()
    n_fields = len(fields)
    pos, end = tindex.startofdata, tindex.endofdata
    keys = 0
    while pos < end:
        keylen, datalen, field = unpack_entry(mapping, base + pos)
        if keylen < _FIELD_NUMBER.size:
            raise struct.error(f"a term's key of {keylen} bytes at {pos}")
        if field >= n_fields:
            raise IndexError(f"a term of an unknown field at {pos}")
        following = pos + _LENGTHS.size + keylen + datalen
        if following <= pos:
            raise ValueError(f"the term index loops at {pos}")
        pos = following
        keys += 1
    return keys


def full_problems(ix, folder: Path) -> list[str]:
    """The full check of ``paperdesk check``: :func:`quick_problems`, every segment
    file's CRC-32 against the record (each file read whole), and every segment opened
    by Whoosh with its terms (:func:`walk_terms`), stored ids and ``pid`` column read.

    Args:
        ix: the open Whoosh ``FileIndex``.
        folder: the index folder.
    Returns:
        One line per problem found (empty: the index is whole).
    """
    from whoosh.reading import SegmentReader

    problems = quick_problems(ix, folder, update=False)
    if problems:
        return problems
    record = _load(folder)
    info = ix._read_toc()
    for name in segment_files(ix, info):
        known = record.get(name)
        try:
            if known is not None and _crc(folder / name) != known[2]:
                problems.append(f"{folder / name}: segment file changed since it was "
                                "written (its checksum differs)")
        except OSError as exc:
            problems.append(f"{folder / name}: cannot be read ({exc.strerror or exc})")
    for segment in info.segments:
        # named by its file when it is one (compound), else by its files' common stem
        name = segment.make_filename(segment.COMPOUND_EXT) if segment.is_compound() \
            else segment.segment_id()
        try:
            reader = SegmentReader(ix.storage, info.schema, segment,
                                   generation=info.generation)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{folder / name}: segment cannot be opened "
                            f"({why(exc)})")
            continue
        try:
            walk_terms(reader)
            count = sum(1 for _ in reader.all_stored_fields())
            if count != reader.doc_count():
                problems.append(f"{folder / name}: {count:,} stored documents of "
                                f"{reader.doc_count():,}")
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{folder / name}: segment damaged "
                            f"(reading its terms: {why(exc)})")
        finally:
            reader.close()
    return problems


def toc_path(folder: Path, indexname: str = "MAIN") -> Path:
    """The index's newest table of contents (``_MAIN_<generation>.toc``), named in
    messages; the folder itself when it holds none (or cannot be listed).

    Args:
        folder: the index folder.
        indexname: Whoosh's index name (paperdesk's is ``"MAIN"``).
    Returns:
        The path of the file (or of the folder).
    """
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    try:
        gen = TOC._latest_generation(FileStorage(str(folder)), indexname)
    except Exception:  # noqa: BLE001 - an unlistable folder is named itself
        return Path(folder)
    return Path(folder) / TOC._filename(indexname, gen) if gen >= 0 else Path(folder)


def unreadable_problem(folder: Path, exc: BaseException, storage,
                       what: str = "cannot be read", schema=None) -> str:
    """The one-line message for an index that could not be opened (``exc``, raised by
    :class:`~paperdesk.core.search.index.SearchIndex`): the file found damaged, read
    again to name it (the table of contents, else a compound segment's directory), and
    what is wrong with it, in plain words (:func:`~.safe_pickle.why`). Only called on
    damage: reads the table of contents and each segment's directory once.

    Args:
        folder: the index folder.
        exc: what opening the index raised.
        storage: the Whoosh storage of ``folder`` the index is read through (its files
            opened only if they are regular files: a FIFO named like the table of
            contents is never waited on).
        what: the problem's words after the file (``"cannot be read"``).
        schema: the schema the table of contents is read with (paperdesk's own,
            :func:`~paperdesk.core.search.index.build_schema`; ``None`` reads the stored
            one).
    Returns:
        ``".../index/_MAIN_3.toc: the search index's table of contents cannot be read
        (garbled data)"``, ``".../index/MAIN_x.seg: the search index cannot be read:
        segment file damaged (reading its directory: it ends too early)"``, else the
        folder and :func:`~.safe_pickle.why` of ``exc``.
    """
    from whoosh.index import TOC

    folder = Path(folder)
    toc = toc_path(folder)
    try:
        info = TOC.read(storage, "MAIN", schema=schema)
    except Exception as again:  # noqa: BLE001 - the table of contents is the damage
        return (f"{named(again, toc)}: the search index's table of contents {what} "
                f"({why(again)})")
    for segment in info.segments:
        if segment.is_compound():
            path = folder / segment.make_filename(segment.COMPOUND_EXT)
            found = _compound_why(storage, path, segment)
            if found:
                return f"{path}: the search index {what}: {found}"
    return f"{named(exc, folder)}: the search index {what} ({why(exc)})"
