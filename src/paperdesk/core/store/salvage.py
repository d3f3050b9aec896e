"""Salvaging a damaged library database: a new ``library.db`` from every readable page.

``paperdesk repair --salvage`` (and the window's Salvage, offered where it refuses a
damaged database) calls :func:`salvage_library`:

1. every row that can still be read is read from the damaged file, page by page
   (:func:`paperdesk.core.store.page_reader.scan_database`); rows on pages that no
   readable b-tree reaches are placed in their table by their shape (column count and
   the types the schema allows), as SQLite's recovery puts them in ``lost_and_found``;
2. a fresh database with the current schema (:mod:`paperdesk.core.store.schema`) is
   written beside it under a hidden name, and the rows are inserted table by table,
   parents first, with foreign keys and every constraint enforced: a note or tag link
   whose paper was lost is left out (counted). The index queue and the near-duplicate
   signatures are not copied (derived: rebuilt and recomputed);
3. only when that database passes ``PRAGMA integrity_check`` and
   ``foreign_key_check`` is the damaged file renamed ``library.db.damaged-<UTC stamp>``
   (its ``-wal`` beside it, never deleted) and the new one put in its place; the derived
   ``index/`` and ``terms/`` folders are removed, so the next open rebuilds them from it.

:func:`merge_backup` (``paperdesk repair --merge-backup FILE``) then adds what only a
backup still has, without changing any row that is there.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from paperdesk.core.clock import utc_stamp
from paperdesk.core.models import LibraryError
from paperdesk.core.store import db as _db
from paperdesk.core.store.backup import (BACKUP_DIR, COUNTED, _fsync_dir, inspect_backup,
                                         latest_backup)
from paperdesk.core.store.errors import disk_full_message, is_disk_full
from paperdesk.core.store.page_reader import PageScan, scan_database
from paperdesk.core.store.schema import SCHEMA_VERSION, migrate
from paperdesk.core.text import content_hash

__all__ = ["SalvageReport", "MergeReport", "TableShape", "salvage_library",
           "merge_backup", "table_shapes", "place_orphans", "database_damage",
           "SALVAGED_TABLES", "NOT_SALVAGED", "DAMAGED_SUFFIX", "altered_papers"]

#: Tables copied, parents before children.
SALVAGED_TABLES = ("papers", "sources", "tags", "saved_searches", "paper_sources",
                   "paper_tags", "notes", "highlights", "merged_hashes", "duplicate_pairs",
                   "citation_key_aliases", "screening_decisions")
#: Tables not copied: derived, so rebuilt or recomputed after a salvage (the index is
#: rebuilt whole from ``papers``; the near-duplicate stage recomputes its bands).
NOT_SALVAGED = ("index_queue", "duplicate_checked", "duplicate_bands", "identifier_writes")
#: The damaged file is kept as ``library.db`` + this + a UTC stamp.
DAMAGED_SUFFIX = ".damaged-"
#: Derived folders removed after a salvage (rebuilt from the new database).
_DERIVED = ("index", "terms")
_STAMP_RE = re.compile(r"(\d{4})(\d{2})(\d{2})T\d{6}Z")


@dataclass(frozen=True)
class TableShape:
    """What a row of one table may hold, from the schema (``PRAGMA table_info``).

    Attributes:
        name: the table.
        columns: column names in stored order.
        kinds: each column's declared type (``"INTEGER"``, ``"TEXT"``, ``"REAL"``,
            ``"BLOB"`` or ``""``).
        required: for each column, True when it is ``NOT NULL``.
        shortest: the fewest values a stored row may have (columns added later by
            ``ALTER TABLE ... ADD COLUMN`` are absent from older rows).
        alias: index of the ``INTEGER PRIMARY KEY`` column (stored as NULL, its value is
            the rowid), or ``None``.
    """

    name: str
    columns: tuple[str, ...]
    kinds: tuple[str, ...]
    required: tuple[bool, ...]
    shortest: int
    alias: int | None

    def fits(self, values: tuple) -> bool:
        """True when ``values`` (a stored record) can be a row of this table."""
        if not self.shortest <= len(values) <= len(self.columns):
            return False
        for i, value in enumerate(values):
            if i == self.alias:
                if value is not None:
                    return False
                continue
            if value is None:
                if self.required[i]:
                    return False
                continue
            kind = self.kinds[i]
            if kind == "INTEGER" and (not isinstance(value, int)):
                return False
            if kind == "TEXT" and not isinstance(value, str):
                return False
            if kind == "REAL" and not isinstance(value, (int, float)):
                return False
        return True


def table_shapes(conn: sqlite3.Connection, tables=SALVAGED_TABLES) -> dict[str, TableShape]:
    """The :class:`TableShape` of each of ``tables`` in the database on ``conn``."""
    shapes = {}
    for name in tables:
        info = conn.execute(f"PRAGMA table_info({name})").fetchall()
        # cid, name, type, notnull, dflt_value, pk
        keys = [row for row in info if row[5]]
        alias = keys[0][0] if len(keys) == 1 and keys[0][2].upper() == "INTEGER" else None
        shortest = len(info)
        while shortest > 1 and (not info[shortest - 1][3] or info[shortest - 1][4] is not None):
            shortest -= 1              # a column ADDed later: nullable or with a default
        shapes[name] = TableShape(name, tuple(r[1] for r in info),
                                  tuple(r[2].upper() for r in info),
                                  tuple(bool(r[3]) for r in info), shortest, alias)
    return shapes


def place_orphans(scan: PageScan, shapes: dict[str, TableShape]) -> int:
    """Put the rows of ``scan.orphans`` into ``scan.tables`` by their shape: a leaf page
    goes to the one table every row of it fits, or else to the one of those whose column
    count every row has (rows already read through that table's b-tree win). Returns
    the rows that fit no table or more than one (left out)."""
    unplaced = 0
    for leaf in scan.orphans:
        matches = [name for name, shape in shapes.items()
                   if all(shape.fits(values) for _rowid, values in leaf.rows)]
        if len(matches) > 1:
            # A row as long as the table is now wins over a shorter one taken for an
            # older row (papers' later columns may be absent: a sources row, six texts
            # after its id, fits papers too).
            exact = [name for name in matches if all(
                len(values) == len(shapes[name].columns) for _rowid, values in leaf.rows)]
            matches = exact if len(exact) == 1 else matches
        if len(matches) != 1:
            unplaced += len(leaf.rows)
            continue
        rows = scan.tables.setdefault(matches[0], {})
        for rowid, values in leaf.rows:
            rows.setdefault(rowid, values)
    return unplaced


@dataclass
class SalvageReport:
    """The outcome of :func:`salvage_library`.

    Attributes:
        database: the library's (new) ``library.db``.
        kept: where the damaged file was kept.
        recovered: rows put in the new database, by table of
            :data:`~paperdesk.core.store.backup.COUNTED` (and ``paper_tags``).
        dropped: rows read but left out (their paper or tag was lost, or they break a
            constraint), by table.
        dropped_why: the same rows by why (``"their source was lost"``, ...), then by
            table.
        pages_expected: pages the damaged file's header gave (0 when unreadable).
        pages_present: pages the file held.
        pages_unreadable: pages a b-tree pointed to that could not be read.
        unplaced: rows of orphan pages whose table could not be told.
        backup: the newest backup (:func:`~paperdesk.core.store.backup.latest_backup`)
            when it could be read, else ``None``.
        backup_counts: its rows by table of ``COUNTED``.
        unreadable_backups: newer backup files passed over: they cannot be read.
        altered: ids of recovered papers whose abstract no longer gives their stored
            content hash (a byte changed inside the text: it came back altered).
        altered_in_backup: those of ``altered`` the newest backup has (same id and
            content hash), whose text ``--merge-backup`` brings back.
        seconds: time taken.
    """

    database: Path
    kept: Path
    recovered: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    dropped_why: dict[str, dict[str, int]] = field(default_factory=dict)
    pages_expected: int = 0
    pages_present: int = 0
    pages_unreadable: int = 0
    unplaced: int = 0
    backup: Path | None = None
    backup_counts: dict[str, int] | None = None
    unreadable_backups: list[Path] = field(default_factory=list)
    altered: list[int] = field(default_factory=list)
    altered_in_backup: list[int] = field(default_factory=list)
    seconds: float = 0.0

    def text(self) -> str:
        """The report, plain text, one fact a line (what came back next to the newest
        backup, what was left out, where the damaged file is, the merge offer)."""
        pages = f"{self.pages_present:,} pages in the file"
        if self.pages_expected > self.pages_present:
            pages += f" of the {self.pages_expected:,} its header gives (it was cut short)"
        lines = [f"salvaged {self.database} in {self.seconds:.1f} s: {pages}, "
                 f"{self.pages_unreadable:,} unreadable"]
        when = ""
        if self.backup is not None:
            found = _STAMP_RE.search(self.backup.name)
            when = f"{found.group(1)}-{found.group(2)}-{found.group(3)}, " if found else ""
        for table, one, many in COUNTED:
            n = self.recovered.get(table, 0)
            line = f"{many}: {n:,} recovered"
            if self.backup_counts is not None:
                b = self.backup_counts.get(table, 0)
                line += (f"; the newest backup ({when}{self.backup.name}) has {b:,}"
                         if table == "papers" else f"; the backup has {b:,}")
            lines.append(line)
        if self.backup_counts is None:
            lines.append("no readable backup to compare with")
        if self.unreadable_backups:
            n = len(self.unreadable_backups)
            lines.append(f"passed over {n:,} newer backup {'file' if n == 1 else 'files'} "
                         "that cannot be read: "
                         + ", ".join(p.name for p in self.unreadable_backups[:3])
                         + (", ..." if n > 3 else ""))
        for reason, tables in self.dropped_why.items():
            left_out = [f"{n:,} {table.replace('_', ' ')}" for table, n in tables.items() if n]
            if left_out:
                lines.append(f"left out ({reason}): {', '.join(left_out)}")
        if self.unplaced:
            lines.append(f"left out: {self.unplaced:,} rows of pages no table could be "
                         "told for")
        if self.altered:
            n = len(self.altered)
            ids = ", ".join(f"#{i}" for i in self.altered[:10])
            more = ", ..." if n > 10 else ""
            lines.append(f"{n:,} {'paper' if n == 1 else 'papers'} came back with altered "
                         f"text (their content hash differs): {ids}{more}; compare them "
                         "with a backup")
            if self.altered_in_backup and self.backup is not None:
                lines.append(f"{len(self.altered_in_backup):,} of them the newest backup "
                             "has unchanged: --merge-backup (below) puts its text back")
        lines.append(f"the damaged file is kept as {self.kept}")
        if self.backup is not None:
            lines.append("to add what only the backup has (papers by content, their tags, "
                         "notes and highlights; nothing recovered is changed): "
                         f"paperdesk repair --merge-backup {self.backup}")
        return "\n".join(lines)


def database_damage(db_path: Path) -> str | None:
    """Why ``db_path`` needs salvage (``PRAGMA quick_check``'s first line, or SQLite's
    error), or ``None`` when it is whole.

    Raises:
        LibraryError: the file is missing or empty (nothing to salvage).
    """
    if not db_path.is_file() or db_path.stat().st_size == 0:
        raise LibraryError(f"{db_path}: there is no database to salvage (missing or empty)")
    try:
        conn = sqlite3.connect(f"{db_path.absolute().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
        if rows == ["ok"]:
            return None
        lines = [r for r in rows if r and not r.startswith("***")]
        return lines[0] if lines else "quick_check failed"
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()


def _newest_backup(folder: Path) -> tuple[Path | None, dict[str, int] | None,
                                          list[Path]]:
    """The newest backup that can be read (by the stamp in its name, as
    :func:`~paperdesk.core.store.backup.latest_backup` picks), its counts, and the newer
    backup files skipped because they cannot be read."""
    backups = folder / BACKUP_DIR
    skipped: list[Path] = []
    while True:
        found = latest_backup(backups, exclude=skipped)
        if found is None:
            return None, None, skipped
        try:
            return found, inspect_backup(found, SCHEMA_VERSION).counts, skipped
        except LibraryError:
            skipped.append(found)


#: Why a row was left out, when no row it refers to is missing.
INCONSISTENT = "they were inconsistent"


def _lost_parents(conn: sqlite3.Connection, shape: TableShape, values: list) -> str:
    """Why a row of ``shape`` was refused: which rows it refers to (its foreign keys)
    are not in the new database (``"their paper was lost"``), else
    :data:`INCONSISTENT`."""
    lost = []
    for fk in conn.execute(f'PRAGMA foreign_key_list("{shape.name}")').fetchall():
        parent, column, target = fk[2], fk[3], fk[4] or "rowid"
        at = shape.columns.index(column)
        value = values[at] if at < len(values) else None
        if value is not None and not conn.execute(
                f'SELECT 1 FROM "{parent}" WHERE "{target}" = ?', [value]).fetchone():
            name = parent[:-1] if parent.endswith("s") else parent
            if name not in lost:
                lost.append(name)
    if not lost:
        return INCONSISTENT
    return f"their {' and '.join(lost)} {'was' if len(lost) == 1 else 'were'} lost"


def _insert_rows(conn: sqlite3.Connection, shape: TableShape,
                 rows: dict[int, tuple]) -> tuple[int, dict[str, int]]:
    """Insert the rows that fit ``shape``; ``(inserted, {why: rows left out})``."""
    inserted = 0
    why: dict[str, int] = {}
    for rowid, values in sorted(rows.items()):
        if not shape.fits(values):
            why[INCONSISTENT] = why.get(INCONSISTENT, 0) + 1
            continue
        values = list(values)
        if shape.alias is not None:
            values[shape.alias] = rowid
        names = ", ".join(f'"{c}"' for c in shape.columns[:len(values)])
        marks = ", ".join("?" * len(values))
        try:
            conn.execute(f'INSERT INTO "{shape.name}" ({names}) VALUES ({marks})', values)
            inserted += 1
        except sqlite3.IntegrityError:
            reason = _lost_parents(conn, shape, values)
            why[reason] = why.get(reason, 0) + 1
    return inserted, why


def altered_papers(conn: sqlite3.Connection) -> list[int]:
    """Ids of the papers on ``conn`` whose abstract does not give their stored
    ``content_hash`` (papers without an abstract are keyed by identity: not checked)."""
    return [pid for pid, abstract, digest in
            conn.execute("SELECT id, abstract, content_hash FROM papers "
                         "WHERE abstract != '' ORDER BY id")
            if content_hash(abstract) != digest]


def _in_backup(backup: Path, conn: sqlite3.Connection, ids: list[int]) -> list[int]:
    """Those of ``ids`` the ``backup`` has with the same id and content hash, and an
    abstract that gives it."""
    try:
        src = sqlite3.connect(f"{backup.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    found = []
    try:
        for pid in ids:
            mine = conn.execute("SELECT content_hash FROM papers WHERE id = ?",
                                [pid]).fetchone()
            theirs = src.execute("SELECT content_hash, abstract FROM papers WHERE id = ?",
                                 [pid]).fetchone()
            if mine and theirs and theirs[0] == mine[0] and content_hash(theirs[1]) == mine[0]:
                found.append(pid)
    except sqlite3.Error:
        return found
    finally:
        src.close()
    return found


def salvage_library(folder: str | os.PathLike,
                    progress: Callable[[int, int], None] | None = None,
                    cancel: Callable[[], bool] | None = None,
                    db_name: str = "library.db") -> SalvageReport:
    """Rebuild ``folder``'s damaged database from every readable page (see the module's
    text). The caller holds the library's lock (no other paperdesk has it open).

    Args:
        folder: the library folder.
        progress: ``progress(pages_done, pages_total)`` while the file is read, then
            ``progress(0, 0)`` while the new database is written and checked.
        cancel: polled while the file is read and rows are written; True stops the
            salvage with nothing changed.
        db_name: the database file name.
    Returns:
        A :class:`SalvageReport`.
    Raises:
        LibraryError: no database to salvage, or the new one cannot be written (a full
            disk says so); nothing was changed.
        InterruptedError: ``cancel`` said stop; nothing was changed.
    """
    started = time.monotonic()
    folder = Path(folder).expanduser().absolute()
    db_path = folder / db_name
    cancel = cancel or (lambda: False)
    if not db_path.is_file() or db_path.stat().st_size == 0:
        raise LibraryError(f"{db_path}: there is no database to salvage (missing or empty)")
    backup, backup_counts, unreadable = _newest_backup(folder)
    try:
        scan = scan_database(db_path, progress, cancel)
    except InterruptedError:                 # (an OSError too) cancelled: nothing changed
        raise
    except OSError as exc:
        raise LibraryError(f"{db_path}: cannot be read ({exc.strerror or exc})") from exc
    if progress is not None:
        progress(0, 0)
    partial = folder / f".{db_name}.salvage-{os.getpid()}"
    kept = folder / f"{db_name}{DAMAGED_SUFFIX}{utc_stamp()}"
    report = SalvageReport(database=db_path, kept=kept, pages_expected=scan.pages_expected,
                           pages_present=scan.pages_present,
                           pages_unreadable=len(scan.unreadable), backup=backup,
                           backup_counts=backup_counts, unreadable_backups=unreadable)
    try:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        new = _db.connect(partial)
        try:
            migrate(new, folder / BACKUP_DIR)
            conn = new.conn
            shapes = table_shapes(conn)
            report.unplaced = place_orphans(scan, shapes)
            with _db.transaction(new):
                for table in SALVAGED_TABLES:
                    if cancel():
                        raise InterruptedError("salvage cancelled")
                    done, why = _insert_rows(conn, shapes[table],
                                             scan.tables.get(table, {}))
                    report.recovered[table] = done
                    report.dropped[table] = sum(why.values())
                    for reason, n in why.items():
                        report.dropped_why.setdefault(reason, {})[table] = n
            report.altered = altered_papers(conn)
            if report.altered and backup is not None:
                report.altered_in_backup = _in_backup(backup, conn, report.altered)
            check = conn.execute("PRAGMA integrity_check").fetchone()[0]
            orphaned = conn.execute("PRAGMA foreign_key_check").fetchall()
            if check != "ok" or orphaned:
                raise LibraryError(f"{db_path}: the salvaged copy fails its check "
                                   f"({check if check != 'ok' else 'foreign keys'}); "
                                   "nothing was changed")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            new.conn.close()
        with open(partial, "rb+") as handle:
            os.fsync(handle.fileno())
        # Keep the damaged file (and its WAL) under a name of its own, then put the new
        # one in its place: at every moment one of them is there.
        os.replace(db_path, kept)
        wal = db_path.with_name(db_name + "-wal")
        if wal.is_file() and wal.stat().st_size:        # changes not in the file yet
            os.replace(wal, Path(f"{kept}-wal"))
        for suffix in ("-wal", "-shm"):     # empty, or an index of the WAL: never needed
            db_path.with_name(db_name + suffix).unlink(missing_ok=True)
        os.replace(partial, db_path)
        _fsync_dir(folder)
    except BaseException as exc:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{partial}{suffix}").unlink(missing_ok=True)
        if isinstance(exc, (OSError, sqlite3.Error)) and not isinstance(exc, InterruptedError):
            if is_disk_full(exc, folder):
                raise LibraryError(disk_full_message(partial, exc)) from exc
            raise LibraryError(f"{db_path}: the salvaged copy cannot be written ({exc}); "
                               "nothing was changed") from exc
        raise
    for name in _DERIVED:                      # derived: rebuilt from the new database
        shutil.rmtree(folder / name, ignore_errors=True)
    report.seconds = time.monotonic() - started
    return report


@dataclass
class MergeReport:
    """What :func:`merge_backup` added.

    Attributes:
        backup: the backup read.
        added: rows added by table (``papers``, ``tags``, ``paper_tags``, ``notes``,
            ``highlights``, ``saved_searches``, ``sources``, ``paper_sources``,
            ``screening_decisions``).
        matched: backup papers already in the library (same content hash).
        restored: ids of papers whose altered abstract (it no longer gave their content
            hash) was replaced by the backup's, which gives it.
    """

    backup: Path
    added: dict[str, int] = field(default_factory=dict)
    matched: int = 0
    restored: list[int] = field(default_factory=list)

    def text(self) -> str:
        """One line: what was added from the backup."""
        parts = [f"{self.added.get(t, 0):,} {many if self.added.get(t, 0) != 1 else one}"
                 for t, one, many in COUNTED]
        return (f"merged from {self.backup}: added {', '.join(parts)}, "
                f"{self.added.get('paper_tags', 0):,} tag links, "
                f"{self.added.get('sources', 0):,} sources, "
                f"{self.added.get('paper_sources', 0):,} source links; "
                f"{self.matched:,} of its papers were in the library already" + (
                    f"; the text of {len(self.restored):,} altered "
                    f"{'paper' if len(self.restored) == 1 else 'papers'} put back "
                    f"({', '.join(f'#{i}' for i in self.restored[:10])})"
                    if self.restored else ""))


def _restore_text(conn: sqlite3.Connection, pid: int, row, report: MergeReport) -> None:
    """Put back the backup's abstract of paper ``pid`` when the library's no longer gives
    the paper's content hash and the backup's does (it came back altered from a salvage)."""
    mine = conn.execute("SELECT abstract, content_hash FROM papers WHERE id = ?",
                        [pid]).fetchone()
    if (mine is None or not mine[0] or content_hash(mine[0]) == mine[1]
            or not row["abstract"] or content_hash(row["abstract"]) != mine[1]):
        return
    conn.execute("UPDATE papers SET abstract = ? WHERE id = ?", [row["abstract"], pid])
    conn.execute("INSERT OR IGNORE INTO index_queue (paper_id, op) VALUES (?, 'update')",
                 [pid])
    report.restored.append(pid)


def _free_key(conn: sqlite3.Connection, key, title: str, pid: int):
    """``key`` when no paper has it (case-insensitively), else the id-based key."""
    from paperdesk.core.metadata import auto_key

    if key is None or not conn.execute("SELECT 1 FROM papers WHERE citation_key = ? "
                                       "COLLATE NOCASE", [key]).fetchone():
        return key
    return auto_key(title, pid)


def merge_backup(db, backup: str | os.PathLike) -> MergeReport:
    """Add to the library what only ``backup`` has, in one transaction: papers whose
    content hash the library lacks (with their sources), tags by name, tag links, notes
    of papers without one, highlights not there yet, screening decisions of a paper and
    tag without one, saved searches by name. Nothing in
    the library is changed or removed, but for an abstract that no longer gives its
    paper's content hash (altered in a salvage): the backup's, when it gives it, is put
    back. The caller rebuilds the search index.

    Args:
        db: the library's open ``sqlite_utils.Database`` (writable).
        backup: a library database file (checked by
            :func:`~paperdesk.core.store.backup.inspect_backup`).
    Returns:
        A :class:`MergeReport`.
    Raises:
        LibraryError: the backup is not a readable library database, or the library
            refuses writes.
    """
    checked = inspect_backup(backup, SCHEMA_VERSION)
    if checked.version != SCHEMA_VERSION:
        raise LibraryError(f"{checked.path}: schema {checked.version}; restore it into a "
                           "folder of its own first (paperdesk --library DIR restore FILE), "
                           "then merge that folder's library.db")
    report = MergeReport(checked.path)
    src = sqlite3.connect(f"{checked.path.as_uri()}?mode=ro", uri=True)
    src.row_factory = sqlite3.Row
    conn = db.conn
    added = report.added
    try:
        with _db.transaction(db):
            paper_of: dict[int, int] = {}
            cols = [r[1] for r in conn.execute("PRAGMA table_info(papers)")]
            for row in src.execute("SELECT * FROM papers ORDER BY id"):
                have = conn.execute("SELECT id FROM papers WHERE content_hash = ?",
                                    [row["content_hash"]]).fetchone()
                if have:
                    paper_of[row["id"]] = have[0]
                    report.matched += 1
                    _restore_text(conn, have[0], row, report)
                    continue
                values = {c: row[c] for c in cols if c in row.keys()}
                if conn.execute("SELECT 1 FROM papers WHERE id = ?", [row["id"]]).fetchone():
                    del values["id"]
                values["citation_key"] = None      # set below: it may clash
                names = ", ".join(f'"{c}"' for c in values)
                cur = conn.execute(f"INSERT INTO papers ({names}) VALUES "
                                   f"({', '.join('?' * len(values))})", list(values.values()))
                pid = cur.lastrowid
                conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?",
                             [_free_key(conn, row["citation_key"], row["title"], pid), pid])
                paper_of[row["id"]] = pid
                conn.execute("INSERT OR REPLACE INTO index_queue (paper_id, op) "
                             "VALUES (?, 'add')", [pid])
                added["papers"] = added.get("papers", 0) + 1
            _merge_links(src, conn, paper_of, added)
    except sqlite3.IntegrityError as exc:
        raise LibraryError(f"{checked.path}: cannot be merged ({exc}); nothing was "
                           "changed") from exc
    finally:
        src.close()
    return report


def _merge_links(src: sqlite3.Connection, conn: sqlite3.Connection,
                 paper_of: dict[int, int], added: dict[str, int]) -> None:
    """The rows around the papers: sources, tags, tag links, notes, highlights,
    screening decisions, saved searches (see :func:`merge_backup`)."""
    def bump(table: str, cursor) -> None:
        added[table] = added.get(table, 0) + max(cursor.rowcount, 0)

    source_of: dict[int, int] = {}
    for row in src.execute("SELECT * FROM sources"):
        have = conn.execute("SELECT id FROM sources WHERE path = ?", [row["path"]]).fetchone()
        if have is None:
            cur = conn.execute("INSERT INTO sources (path, name, header, encoding, "
                               "imported_at) VALUES (?, ?, ?, ?, ?)",
                               [row["path"], row["name"], row["header"], row["encoding"],
                                row["imported_at"]])
            bump("sources", cur)
            have = (cur.lastrowid,)
        source_of[row["id"]] = have[0]
    for row in src.execute("SELECT * FROM paper_sources"):
        if row["paper_id"] in paper_of and row["source_id"] in source_of:
            bump("paper_sources", conn.execute(
                "INSERT OR IGNORE INTO paper_sources VALUES (?, ?, ?)",
                [paper_of[row["paper_id"]], source_of[row["source_id"]], row["position"]]))
    tag_of: dict[int, int] = {}
    for row in src.execute("SELECT * FROM tags"):
        have = conn.execute("SELECT id FROM tags WHERE name_key = ?",
                            [row["name_key"]]).fetchone()
        if have is None:
            key = row["key"]
            if key is not None and conn.execute("SELECT 1 FROM tags WHERE key = ?",
                                                [key]).fetchone():
                key = None
            cur = conn.execute("INSERT INTO tags (name, name_key, colour, key) "
                               "VALUES (?, ?, ?, ?)",
                               [row["name"], row["name_key"], row["colour"], key])
            bump("tags", cur)
            have = (cur.lastrowid,)
        tag_of[row["id"]] = have[0]
    for row in src.execute("SELECT * FROM paper_tags"):
        if row["paper_id"] in paper_of and row["tag_id"] in tag_of:
            pid = paper_of[row["paper_id"]]
            cur = conn.execute("INSERT OR IGNORE INTO paper_tags VALUES (?, ?)",
                               [pid, tag_of[row["tag_id"]]])
            bump("paper_tags", cur)
            if cur.rowcount > 0:
                conn.execute("INSERT OR IGNORE INTO index_queue (paper_id, op) "
                             "VALUES (?, 'update')", [pid])
    for row in src.execute("SELECT * FROM notes"):
        if row["paper_id"] in paper_of:
            pid = paper_of[row["paper_id"]]
            cur = conn.execute("INSERT OR IGNORE INTO notes VALUES (?, ?, ?)",
                               [pid, row["body"], row["updated_at"]])
            bump("notes", cur)
            if cur.rowcount > 0:
                conn.execute("INSERT OR IGNORE INTO index_queue (paper_id, op) "
                             "VALUES (?, 'update')", [pid])
    for row in src.execute("SELECT * FROM highlights"):
        if row["paper_id"] not in paper_of:
            continue
        pid = paper_of[row["paper_id"]]
        if conn.execute('SELECT 1 FROM highlights WHERE paper_id = ? AND start = ? '
                        'AND "end" = ?', [pid, row["start"], row["end"]]).fetchone():
            continue
        bump("highlights", conn.execute(
            'INSERT INTO highlights (paper_id, start, "end", colour, comment, created_at) '
            "VALUES (?, ?, ?, ?, ?, ?)", [pid, row["start"], row["end"], row["colour"],
                                          row["comment"], row["created_at"]]))
    for row in src.execute("SELECT * FROM screening_decisions"):
        if row["paper_id"] in paper_of and row["tag_id"] in tag_of:
            bump("screening_decisions", conn.execute(
                "INSERT OR IGNORE INTO screening_decisions (tag_id, paper_id, excluded, "
                "seq, decided_at) VALUES (?, ?, ?, ?, ?)",
                [tag_of[row["tag_id"]], paper_of[row["paper_id"]], row["excluded"],
                 row["seq"], row["decided_at"]]))
    for row in src.execute("SELECT * FROM saved_searches"):
        bump("saved_searches", conn.execute(
            "INSERT OR IGNORE INTO saved_searches (name, name_key, query, created_at) "
            "VALUES (?, ?, ?, ?)", [row["name"], row["name_key"], row["query"],
                                    row["created_at"]]))
