"""Reading the rows of a damaged SQLite database file page by page, for salvage.

SQLite's own tools for this (the ``.recover`` command of the ``sqlite3`` shell and the
recovery extension, ``sqlite3_recover_*``) are not available to paperdesk wherever
``make test`` runs: the stdlib ``sqlite3`` module exposes neither, APSW 3.54 (PyPI)
bundles a shell built without ``.recover`` and no ``sqlite3_recover_*`` symbols, and
Debian 12's ``sqlite3`` 3.40.1 shell fails ``.recover`` on any file (it is built without
the ``sqlite_dbpage`` table it needs). So this module reads the file itself, following
the documented file format (https://www.sqlite.org/fileformat2.html: the database
header, b-tree pages, cells, overflow chains, the record format, the freelist, and the
WAL of https://www.sqlite.org/walformat.html), the way the recovery extension does:

1. the schema table (page 1's b-tree) gives each table's root page;
2. each table's b-tree is walked from its root; a page that cannot be read (beyond the
   end of a truncated file, overwritten, not a b-tree page) loses only the rows on it
   and, for an interior page, the path to the pages below it;
3. every other page that reads as a table leaf (not on the freelist) is an orphan: its
   rows are returned apart, for the caller to place by their shape (SQLite's
   ``lost_and_found``). When page 1 is lost, so is the freelist: a page freed by a
   delete could then come back, unless SQLite zeroed it when it was freed (built with
   ``SQLITE_SECURE_DELETE``, as Debian's is).

Only reading: the file is opened read-only, never written.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PageScan", "Leaf", "scan_database", "PAGE_SIZES"]

_MAGIC = b"SQLite format 3\x00"
#: Page sizes tried when the header is unreadable, most likely first.
PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
_TABLE_LEAF, _TABLE_INTERIOR = 13, 5
_INDEX_LEAF, _INDEX_INTERIOR = 10, 2
_WAL_MAGIC = (0x377F0682, 0x377F0683)

#: A value of a record: what SQLite stores (``bytes`` for a BLOB).
Value = None | int | float | str | bytes


@dataclass
class Leaf:
    """The rows read from one table leaf page.

    Attributes:
        page: its page number (1-based).
        rows: ``(rowid, values)`` of every cell that could be read whole.
        lost: cells that could not (their overflow pages are missing or damaged).
    """

    page: int
    rows: list[tuple[int, tuple[Value, ...]]]
    lost: int = 0


@dataclass
class PageScan:
    """What :func:`scan_database` read.

    Attributes:
        page_size: bytes per page (from the header, else guessed).
        pages_expected: pages the header says the database has (0 when unreadable).
        pages_present: whole pages in the file (with the WAL's pages past its end).
        header_ok: the 100-byte header was readable.
        encoding: the text encoding (``"utf-8"``, ``"utf-16-le"``, ``"utf-16-be"``).
        user_version: ``PRAGMA user_version`` from the header (0 when unreadable).
        tables: table name -> ``{rowid: values}`` read through the table's own b-tree.
        roots: table name -> root page, as the schema table gave them.
        orphans: table leaf pages reached through no readable b-tree.
        unreadable: pages that were looked for (in a b-tree) but could not be read.
        lost_cells: rows seen on a readable page but not readable whole.
    """

    page_size: int
    pages_expected: int = 0
    pages_present: int = 0
    header_ok: bool = False
    encoding: str = "utf-8"
    user_version: int = 0
    tables: dict[str, dict[int, tuple[Value, ...]]] = field(default_factory=dict)
    roots: dict[str, int] = field(default_factory=dict)
    orphans: list[Leaf] = field(default_factory=list)
    unreadable: set[int] = field(default_factory=set)
    lost_cells: int = 0


class _Damaged(Exception):
    """A page or cell that does not follow the file format."""


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``pos``: ``(value, next position)``."""
    value = 0
    for i in range(8):
        if pos + i >= len(buf):
            raise _Damaged("varint past the end")
        byte = buf[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos + i + 1
    if pos + 8 >= len(buf):
        raise _Damaged("varint past the end")
    value = (value << 8) | buf[pos + 8]
    if value >= 1 << 63:
        value -= 1 << 64
    return value, pos + 9


def _record(payload: bytes, encoding: str) -> tuple[Value, ...]:
    """Decode a record (https://www.sqlite.org/fileformat2.html#record_format).

    Raises:
        _Damaged: the header and the body do not agree, or text is not decodable.
    """
    header_size, pos = _varint(payload, 0)
    if header_size < 1 or header_size > len(payload):
        raise _Damaged("record header size")
    types = []
    while pos < header_size:
        serial, pos = _varint(payload, pos)
        types.append(serial)
    if pos != header_size:
        raise _Damaged("record header overruns")
    values: list[Value] = []
    body = header_size
    for serial in types:
        if serial == 0:
            values.append(None)
            continue
        if serial in (8, 9):
            values.append(serial - 8)
            continue
        if serial in (10, 11):
            raise _Damaged("reserved serial type")
        if serial <= 6:
            size = (1, 2, 3, 4, 6, 8)[serial - 1]
            values.append(int.from_bytes(payload[body:body + size], "big", signed=True))
        elif serial == 7:
            size = 8
            values.append(struct.unpack(">d", payload[body:body + 8])[0])
        else:
            size = (serial - 12) // 2
            raw = payload[body:body + size]
            if serial % 2:
                try:
                    values.append(raw.decode(encoding))
                except UnicodeDecodeError as exc:
                    raise _Damaged("text not decodable") from exc
            else:
                values.append(bytes(raw))
        body += size
        if body > len(payload):
            raise _Damaged("record body overruns")
    if body != len(payload):
        raise _Damaged("record body size")
    return tuple(values)


class _File:
    """The pages of a database file, with the WAL's committed pages laid over them."""

    def __init__(self, path: Path, page_size: int, wal: dict[int, bytes]):
        self.path = path
        self.page_size = page_size
        self.size = path.stat().st_size
        self.wal = wal
        self.handle = open(path, "rb")
        self.count = max([self.size // page_size] + list(wal))

    def close(self) -> None:
        self.handle.close()

    def page(self, number: int) -> bytes | None:
        """Page ``number`` (1-based), or ``None`` when the file does not hold it whole."""
        if number in self.wal:
            return self.wal[number]
        if number < 1 or number * self.page_size > self.size:
            return None
        self.handle.seek((number - 1) * self.page_size)
        data = self.handle.read(self.page_size)
        return data if len(data) == self.page_size else None


def _read_wal(db_path: Path, page_size: int | None) -> tuple[dict[int, bytes], int | None]:
    """The pages of the last committed transaction in ``db_path``'s ``-wal`` file
    (frames whose salts match the WAL header, up to the last commit frame), and the WAL's
    page size. Checksums are not verified: a torn frame is caught as a damaged page."""
    wal_path = db_path.with_name(db_path.name + "-wal")
    try:
        data = wal_path.read_bytes()
    except OSError:
        return {}, None
    if len(data) < 32:
        return {}, None
    magic, _version, size, _seq, salt1, salt2 = struct.unpack(">6I", data[:24])
    if magic not in _WAL_MAGIC or size < 512 or size & (size - 1) or \
            (page_size is not None and size != page_size):
        return {}, None
    frames: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    pos = 32
    while pos + 24 + size <= len(data):
        number, commit, s1, s2 = struct.unpack(">4I", data[pos:pos + 16])
        if (s1, s2) != (salt1, salt2) or number == 0:
            break
        pending[number] = data[pos + 24:pos + 24 + size]
        if commit:
            frames.update(pending)
            pending = {}
        pos += 24 + size
    return frames, size


def _guess_page_size(path: Path) -> int:
    """The page size under which most of the file's pages start like b-tree pages."""
    best, best_score = PAGE_SIZES[0], -1
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 22)
    except OSError:
        return best
    for size in PAGE_SIZES:
        starts = range(size, len(data) - size + 1, size)
        if not starts:
            continue
        hits = sum(1 for at in starts
                   if data[at] in (_TABLE_LEAF, _TABLE_INTERIOR, _INDEX_LEAF, _INDEX_INTERIOR)
                   and data[at + 7] < 128)
        score = hits / len(starts)
        if score > best_score + 0.05:
            best, best_score = size, score
    return best


class _Reader:
    """Parses b-tree pages of one file (see :func:`scan_database`)."""

    def __init__(self, file: _File, reserved: int, encoding: str):
        self.file = file
        self.usable = file.page_size - reserved
        self.encoding = encoding
        self.claimed: set[int] = set()       # pages used by a b-tree or an overflow chain
        self.unreadable: set[int] = set()
        self.lost_cells = 0

    def _header(self, number: int, page: bytes) -> tuple[int, int, int]:
        """``(type, cell count, offset of the cell pointer array)`` of a b-tree page."""
        at = 100 if number == 1 else 0
        kind = page[at]
        if kind not in (_TABLE_LEAF, _TABLE_INTERIOR, _INDEX_LEAF, _INDEX_INTERIOR):
            raise _Damaged("not a b-tree page")
        cells = int.from_bytes(page[at + 3:at + 5], "big")
        content = int.from_bytes(page[at + 5:at + 7], "big") or 65536
        pointers = at + (8 if kind in (_TABLE_LEAF, _INDEX_LEAF) else 12)
        if pointers + 2 * cells > min(content, self.usable) or content > self.usable:
            raise _Damaged("cell pointers overrun")
        return kind, cells, pointers

    def _cell_offsets(self, page: bytes, cells: int, pointers: int) -> list[int]:
        offsets = []
        for i in range(cells):
            offset = int.from_bytes(page[pointers + 2 * i:pointers + 2 * i + 2], "big")
            if offset < pointers + 2 * cells or offset >= self.usable:
                raise _Damaged("cell pointer out of the page")
            offsets.append(offset)
        return offsets

    def _payload(self, page: bytes, pos: int, size: int) -> bytes:
        """A table leaf cell's payload of ``size`` bytes starting at ``pos``, with its
        overflow chain followed."""
        usable = self.usable
        most = usable - 35
        if size <= most:
            if pos + size > usable:
                raise _Damaged("payload past the page")
            return page[pos:pos + size]
        least = ((usable - 12) * 32 // 255) - 23
        local = least + (size - least) % (usable - 4)
        if local > most:
            local = least
        if pos + local + 4 > usable:
            raise _Damaged("payload past the page")
        if size > self.file.count * usable:
            raise _Damaged("payload larger than the file")
        parts = [page[pos:pos + local]]
        have = local
        following = int.from_bytes(page[pos + local:pos + local + 4], "big")
        chain: set[int] = set()
        while have < size:
            if following in chain or following in self.claimed or following < 2:
                raise _Damaged("overflow chain loops or is cut")
            over = self.file.page(following)
            if over is None:
                raise _Damaged("overflow page missing")
            chain.add(following)
            take = min(size - have, usable - 4)
            parts.append(over[4:4 + take])
            have += take
            following = int.from_bytes(over[:4], "big")
        self.claimed.update(chain)
        return b"".join(parts)

    def leaf_rows(self, number: int, page: bytes, cells: int, pointers: int) -> Leaf:
        """The rows of a table leaf page (cells that cannot be read are counted lost)."""
        leaf = Leaf(number, [])
        for offset in self._cell_offsets(page, cells, pointers):
            try:
                size, pos = _varint(page, offset)
                rowid, pos = _varint(page, pos)
                if size < 1 or size > 1 << 30:
                    raise _Damaged("payload size")
                leaf.rows.append((rowid, _record(self._payload(page, pos, size),
                                                 self.encoding)))
            except _Damaged:
                leaf.lost += 1
        return leaf

    def walk(self, root: int) -> Iterator[Leaf]:
        """The leaves of the table b-tree at ``root``, skipping what cannot be read."""
        stack = [root]
        while stack:
            number = stack.pop()
            if number in self.claimed or number < 1:
                continue
            page = self.file.page(number)
            if page is None:
                self.unreadable.add(number)
                continue
            try:
                kind, cells, pointers = self._header(number, page)
                if kind == _TABLE_INTERIOR:
                    children = [int.from_bytes(page[o:o + 4], "big")
                                for o in self._cell_offsets(page, cells, pointers)]
                    at = 100 if number == 1 else 0
                    children.append(int.from_bytes(page[at + 8:at + 12], "big"))
                    self.claimed.add(number)
                    stack.extend(reversed(children))
                    continue
                if kind != _TABLE_LEAF:
                    raise _Damaged("not a table page")
                leaf = self.leaf_rows(number, page, cells, pointers)
            except _Damaged:
                self.unreadable.add(number)
                continue
            self.claimed.add(number)
            self.lost_cells += leaf.lost
            yield leaf

    def freelist(self, first_trunk: int) -> set[int]:
        """Pages on the freelist (trunks and leaves), as far as it can be read."""
        free: set[int] = set()
        trunk = first_trunk
        capacity = self.usable // 4 - 2
        while trunk and trunk not in free:
            page = self.file.page(trunk)
            if page is None:
                break
            free.add(trunk)
            count = int.from_bytes(page[4:8], "big")
            if count > capacity:
                break
            for i in range(count):
                free.add(int.from_bytes(page[8 + 4 * i:12 + 4 * i], "big"))
            trunk = int.from_bytes(page[:4], "big")
        return free


def scan_database(path: str | os.PathLike,
                  progress: Callable[[int, int], None] | None = None,
                  cancel: Callable[[], bool] | None = None) -> PageScan:
    """Read every row that can still be read from the SQLite database file ``path``
    (and its ``-wal`` file's committed pages).

    Args:
        path: the database file (read only).
        progress: ``progress(pages_done, pages_total)`` now and then.
        cancel: polled between pages; when it returns True, :class:`InterruptedError`
            is raised.
    Returns:
        A :class:`PageScan`: rows by table, orphan leaves, what was unreadable.
    Raises:
        OSError: the file cannot be opened.
        InterruptedError: ``cancel`` said stop.
    """
    path = Path(path)
    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    with open(path, "rb") as handle:
        header = handle.read(100)
    header_ok = len(header) == 100 and header.startswith(_MAGIC)
    page_size = reserved = 0
    encoding, expected, first_trunk, user_version = "utf-8", 0, 0, 0
    if header_ok:
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        reserved = header[20]
        expected = int.from_bytes(header[28:32], "big")
        first_trunk = int.from_bytes(header[32:36], "big")
        encoding = {2: "utf-16-le", 3: "utf-16-be"}.get(
            int.from_bytes(header[56:60], "big"), "utf-8")
        user_version = int.from_bytes(header[60:64], "big", signed=True)
        if page_size < 512 or page_size & (page_size - 1) or reserved > 64:
            header_ok = False
    wal, wal_size = _read_wal(path, page_size if header_ok else None)
    if not header_ok:
        page_size, reserved = wal_size or _guess_page_size(path), 0
        expected = first_trunk = 0
    file = _File(path, page_size, wal)
    scan = PageScan(page_size=page_size, pages_expected=expected, pages_present=file.count,
                    header_ok=header_ok, encoding=encoding, user_version=user_version)
    try:
        reader = _Reader(file, reserved, encoding)
        # 1. The schema table (rooted at page 1): each table's root page.
        for leaf in reader.walk(1):
            for _rowid, values in leaf.rows:
                if len(values) == 5 and values[0] == "table" and isinstance(values[1], str) \
                        and isinstance(values[3], int) and values[3] > 1 \
                        and "WITHOUT ROWID" not in str(values[4]).upper():
                    scan.roots[values[1]] = values[3]
        # 2. Each table through its b-tree.
        total = max(file.count, 1)
        for name, root in scan.roots.items():
            rows = scan.tables.setdefault(name, {})
            for leaf in reader.walk(root):
                for rowid, values in leaf.rows:
                    rows.setdefault(rowid, values)
                progress(len(reader.claimed), total)
                if cancel():
                    raise InterruptedError("salvage cancelled")
        # 3. Orphan table leaves: every other page that reads as one, off the freelist.
        free = reader.freelist(first_trunk) if header_ok else set()
        for number in range(1, file.count + 1):
            if number in reader.claimed or number in free:
                continue
            if number % 256 == 0:
                progress(number, total)
                if cancel():
                    raise InterruptedError("salvage cancelled")
            page = file.page(number)
            if page is None:
                continue
            try:
                kind, cells, pointers = reader._header(number, page)
                if kind != _TABLE_LEAF or cells == 0:
                    continue
                leaf = reader.leaf_rows(number, page, cells, pointers)
            except _Damaged:
                continue
            if leaf.rows and leaf.lost <= len(leaf.rows):
                scan.orphans.append(leaf)
                reader.claimed.add(number)
        progress(total, total)
        scan.unreadable = reader.unreadable
        scan.lost_cells = reader.lost_cells
    finally:
        file.close()
    return scan
