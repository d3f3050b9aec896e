"""Taking things out of the library again: deleting papers and removing an imported file.

:class:`Removal` is the library's ``lib.removal`` (with the list of imported files,
``lib.removal.sources()``). Both mutations
run in one transaction with the papers' index-queue rows, return the
:class:`~paperdesk.core.changes.Changes` they made and record one undo step
(:mod:`paperdesk.core.edits.undo`) that puts everything back exactly: the same paper ids,
abstracts, titles, metadata, citation keys, read and star marks, dates added, tags,
notes, highlights (with their ids), links to source files (with their positions) and,
for a removed file, its ``sources`` row.

What is kept for undo is a copy of the rows themselves, taken from every table that
refers to ``papers`` (or, for a removed file, to ``sources``) with a foreign key: the
tables are found in the schema (``PRAGMA foreign_key_list``) rather than listed here, so
a table added by a later schema version is deleted and restored with the rest without
this module knowing it (one level deep: a table that refers only to one of those tables,
say to ``highlights``, is not followed; its rows would go by ``ON DELETE CASCADE`` and not
come back). The ``index_queue`` refers to papers
without a foreign key (a deleted paper must stay queued until the index has dropped it);
deleted papers are queued ``delete``, restored ones ``update`` (add or replace).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import sqlite_utils

from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.edits.undo import count_label, quote
from paperdesk.core.imports.daily_papers import display_path
from paperdesk.core.imports.registry import STDIN_NAME
from paperdesk.core.models import LibraryError, Source
from paperdesk.core.store import db as _db
from paperdesk.core.manager import Manager

__all__ = ["Removal", "SourceRemoval", "RowSnapshot"]

#: Ids per ``IN (...)`` list (well below SQLite's limit of 32,766 parameters).
_CHUNK = 500


def _chunks(ids: Sequence[int]) -> Iterable[list[int]]:
    for i in range(0, len(ids), _CHUNK):
        yield list(ids[i:i + _CHUNK])


def _referring(db: sqlite_utils.Database, parent: str) -> list[tuple[str, list[str]]]:
    """Return ``[(table, [columns])]``: every table with a foreign key to ``parent``, and
    its columns that hold the parent's id, in ``sqlite_master`` order."""
    out = []
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                               "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"):
        cols = [r[3] for r in db.execute(f"PRAGMA foreign_key_list({_name(table)})")
                if r[2] == parent]
        if cols:
            out.append((table, cols))
    return out


def _name(identifier: str) -> str:
    """Quote an SQL identifier (a table or column name from the schema)."""
    return '"' + identifier.replace('"', '""') + '"'


@dataclass
class RowSnapshot:
    """Copies of whole rows, table by table, in the order they must be inserted again.

    Attributes:
        tables: ``[(table, columns, rows)]``; ``rows`` are tuples in ``columns`` order,
            without duplicates.
    """

    tables: list[tuple[str, tuple[str, ...], list[tuple]]] = field(default_factory=list)

    def take(self, db: sqlite_utils.Database, table: str, columns: Sequence[str],
             ids: Sequence[int]) -> None:
        """Copy the rows of ``table`` whose ``columns`` (any of them) hold one of ``ids``.

        Args:
            db: the library database.
            table: a table name from the schema.
            columns: its columns to match against ``ids``.
            ids: row ids of the parent table.
        """
        names = tuple(r[1] for r in db.execute(f"PRAGMA table_info({_name(table)})"))
        rows: dict[tuple, None] = {}
        for existing_table, existing_cols, existing_rows in self.tables:
            if existing_table == table:
                rows = dict.fromkeys(existing_rows)
                self.tables.remove((existing_table, existing_cols, existing_rows))
                break
        select = ", ".join(_name(n) for n in names)
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            where = " OR ".join(f"{_name(c)} IN ({marks})" for c in columns)
            for row in db.execute(f"SELECT {select} FROM {_name(table)} WHERE {where}",
                                  chunk * len(columns)):
                rows[tuple(row)] = None
        self.tables.append((table, names, list(rows)))

    def restore(self, db: sqlite_utils.Database) -> None:
        """Insert every row again (inside the caller's transaction), with its own ids.

        Raises:
            sqlite3.IntegrityError: a row clashes with one added since (same id, or a
                unique value such as a content hash, a citation key or a file path).
        """
        for table, names, rows in self.tables:
            if not rows:
                continue
            cols = ", ".join(_name(n) for n in names)
            marks = ", ".join("?" * len(names))
            db.conn.executemany(f"INSERT INTO {_name(table)} ({cols}) VALUES ({marks})",
                                rows)

    def ids(self, table: str, column: str = "id") -> list[int]:
        """Return the distinct values of ``column`` in the copied rows of ``table``."""
        for name, names, rows in self.tables:
            if name == table and column in names:
                i = names.index(column)
                return sorted({r[i] for r in rows})
        return []


@dataclass(frozen=True)
class SourceRemoval:
    """What removing an imported file would do (:meth:`Removal.plan`).

    Attributes:
        source: the file (:class:`~paperdesk.core.models.Source`, with its paper count).
        deleted: ids of the papers that came from this file only, which would be deleted.
        kept: ids of the papers also imported from another file, which stay (only their
            link to this file goes).
    """

    source: Source
    deleted: tuple[int, ...]
    kept: tuple[int, ...]

    def to_dict(self) -> dict:
        """JSON shape for the CLI: the source, and the two id lists."""
        return {"source": self.source.to_dict(), "deleted": list(self.deleted),
                "kept": list(self.kept)}


class Removal(Manager):
    """Sources and removal: ``lib.removal`` (see the module)."""

    def sources(self) -> list[Source]:
        """Return every imported file with its paper count, in import order."""
        return [
            Source(*r) for r in self.db.execute(
                "SELECT s.id, s.path, s.name, s.header, s.imported_at, "
                "count(DISTINCT ps.paper_id) FROM sources s "
                "LEFT JOIN paper_sources ps ON ps.source_id = s.id GROUP BY s.id ORDER BY s.id")
        ]

    def source(self, source_id: int) -> Source:
        """Return one imported file with its paper count.

        Args:
            source_id: the id in the ``sources`` table (as ``paperdesk sources`` lists).
        Returns:
            The :class:`Source`.
        Raises:
            LibraryError: no imported file has that id.
        """
        try:
            sid = int(source_id)
        except (TypeError, ValueError):
            raise LibraryError(f"no imported file with id {source_id!r}") from None
        for s in self.sources():
            if s.id == sid:
                return s
        raise LibraryError(f"no imported file with id {source_id}")

    def find_source(self, text: str) -> Source:
        """Return the imported file that ``text`` names: its id, its path as stored (the
        absolute path at import time), that path given relative to the current folder,
        or its file name when only one imported file has that name.

        ``<stdin>`` names the one import from standard input (each is stored as
        ``<stdin> DATE TIME UTC``), or is ambiguous when there were several.

        Args:
            text: what the user typed; a path's bytes that are not UTF-8 may be
                surrogate escapes (PEP 383, as ``sys.argv`` has them) or backslash
                escapes as stored and listed (``bad\\xffname.txt``).
        Returns:
            The :class:`Source`.
        Raises:
            LibraryError: nothing matches, or a file name matches several files (the
                message names their ids).
        """
        raw = os.fspath(text)
        # Paths are stored with the bytes that are not UTF-8 escaped (display_path:
        # "bad\\xffname.txt"): the real bytes of a command-line argument (surrogate
        # escapes) match as well as the escaped text.
        text = display_path(raw)
        sources = self.sources()
        if text.strip().isdigit():
            for s in sources:
                if s.id == int(text):
                    return s
        for s in sources:
            if s.path == text:
                return s
        absolute = display_path(os.path.abspath(os.path.expanduser(raw)))
        for s in sources:
            if s.path == absolute:
                return s
        named = [s for s in sources if s.name == text]
        if not named and text == STDIN_NAME:    # each import from standard input is
            named = [s for s in sources          # its own "<stdin> 2026-12-01 ..."
                     if s.path.startswith(STDIN_NAME + " ")]
        if len(named) == 1:
            return named[0]
        if named:
            ids = ", ".join(str(s.id) for s in named)
            raise LibraryError(f"{text}: {len(named)} imported files have that name "
                               f"(ids {ids}); give the id or the whole path")
        raise LibraryError(f"{text}: no imported file with that id, path or name "
                           "(see `paperdesk sources`)")

    def plan(self, source_id: int) -> SourceRemoval:
        """Tell what :meth:`remove_source` would do, changing nothing (the window asks
        this before it offers to remove a file).

        Args:
            source_id: the imported file.
        Returns:
            A :class:`SourceRemoval`: the papers that would be deleted (from this file
            only) and those that would stay (also from another file), in id order.
        Raises:
            LibraryError: no imported file has that id.
        """
        source = self.source(source_id)
        rows = self.db.execute(
            "SELECT ps.paper_id, EXISTS (SELECT 1 FROM paper_sources o WHERE "
            "o.paper_id = ps.paper_id AND o.source_id != ps.source_id) "
            "FROM paper_sources ps WHERE ps.source_id = ? GROUP BY ps.paper_id "
            "ORDER BY ps.paper_id", [source.id]).fetchall()
        return SourceRemoval(source, tuple(p for p, other in rows if not other),
                             tuple(p for p, other in rows if other))

    def counts(self) -> dict[int, int]:
        """Return, for every imported file, how many papers removing it would delete
        (those that came from no other file), in one query (the window lists them all).

        Returns:
            ``{source id: count}``; every source is present (0 when every paper it
            brought is also from another file, or it brought none).
        """
        return dict(self.db.execute(
            "SELECT s.id, count(DISTINCT CASE WHEN NOT EXISTS (SELECT 1 FROM paper_sources "
            "o WHERE o.paper_id = ps.paper_id AND o.source_id != s.id) THEN ps.paper_id "
            "END) FROM sources s LEFT JOIN paper_sources ps ON ps.source_id = s.id "
            "GROUP BY s.id").fetchall())

    def snapshot_papers(self, db: sqlite_utils.Database, ids: Sequence[int],
                         snap: RowSnapshot | None = None) -> RowSnapshot:
        """Copy the papers' rows and every row that refers to them."""
        snap = snap or RowSnapshot()
        snap.take(db, "papers", ["id"], ids)
        for table, cols in _referring(db, "papers"):
            snap.take(db, table, cols, ids)
        return snap

    def _paper_changes(self, snap: RowSnapshot, ids: Sequence[int]) -> Changes:
        """The :class:`Changes` of deleting or restoring the papers in ``snap``."""
        fields = ["tags"] if snap.ids("paper_tags", "tag_id") else []
        notes = snap.ids("notes", "paper_id")
        highlights = snap.ids("highlights", "paper_id")
        return Changes.of(papers=ids, fields=fields, tags=snap.ids("paper_tags", "tag_id"),
                          notes=notes, highlights=highlights, sources=True, search=True)

    def delete_rows(self, db: sqlite_utils.Database, ids: Sequence[int],
                     source_id: int | None = None, kept: Sequence[int] = ()) -> None:
        """Delete papers with every row that refers to them and, with ``source_id``,
        that file's row and its links; queue the index changes. Runs inside the caller's
        transaction. The referring rows are deleted explicitly (not left to ``ON DELETE
        CASCADE``), so a table whose foreign key does not cascade cannot stop it."""
        referring = _referring(db, "papers")
        for chunk in _chunks(list(ids)):
            marks = ",".join("?" * len(chunk))
            for table, cols in referring:
                where = " OR ".join(f"{_name(c)} IN ({marks})" for c in cols)
                db.execute(f"DELETE FROM {_name(table)} WHERE {where}", chunk * len(cols))
            db.execute(f"DELETE FROM papers WHERE id IN ({marks})", chunk)
        if source_id is not None:
            for table, cols in _referring(db, "sources"):
                where = " OR ".join(f"{_name(c)} = ?" for c in cols)
                db.execute(f"DELETE FROM {_name(table)} WHERE {where}",
                           [source_id] * len(cols))
            db.execute("DELETE FROM sources WHERE id = ?", [source_id])
        self._lib.index.enqueue(db, ids, "delete")
        self._lib.index.enqueue(db, kept, "update")

    def _restore_rows(self, snap: RowSnapshot, ids: Sequence[int],
                      kept: Sequence[int] = ()) -> None:
        """Insert the rows of ``snap`` again and queue the papers for indexing.

        Raises:
            LibraryError: a row clashes with one added since (nothing is restored).
        """
        try:
            with _db.transaction(self.db) as db:
                self._check_free(db, snap)
                snap.restore(db)
                self._lib.index.enqueue(db, list(ids) + list(kept), "update")
        except sqlite3.IntegrityError as exc:
            raise LibraryError("cannot put the papers back: something added since has "
                               f"taken their place ({exc})") from exc
        self._lib.after_change()

    def _check_free(self, db: sqlite_utils.Database, snap: RowSnapshot) -> None:
        """Raise :class:`LibraryError` naming the first paper (or file) that was added
        again since it was deleted (same abstract, citation key or path)."""
        for table, names, rows in snap.tables:
            if table == "papers":
                i_id, i_hash = names.index("id"), names.index("content_hash")
                i_title, i_key = names.index("title"), names.index("citation_key")
                for row in rows:
                    again = db.execute(
                        "SELECT id FROM papers WHERE id = ? OR content_hash = ? OR "
                        "(citation_key IS NOT NULL AND citation_key = ? COLLATE NOCASE)",
                        [row[i_id], row[i_hash], row[i_key]]).fetchone()
                    if again is not None:
                        raise LibraryError(
                            f"cannot put back paper {row[i_id]} {quote(row[i_title])}: "
                            f"paper {again[0]} has its abstract, id or citation key now")
            elif table == "sources":
                i_id, i_path = names.index("id"), names.index("path")
                for row in rows:
                    again = db.execute("SELECT path FROM sources WHERE path = ? OR id = ?",
                                       [row[i_path], row[i_id]]).fetchone()
                    if again is not None:
                        what = ("it was imported again" if again[0] == row[i_path]
                                else f"its record now belongs to {again[0]}")
                        raise LibraryError(f"cannot put back the imported file "
                                           f"{row[i_path]}: {what}")

    def delete_papers(self, paper_ids: Iterable[int], undoable: bool = True) -> Changes:
        """Delete papers with their tags, notes, highlights and links to source files,
        in one transaction; they leave the search index.

        Tags themselves stay (even with no papers left); a source file stays listed
        (use :meth:`remove_source` to remove it). Undo puts every paper back exactly
        (same id and everything that hangs on it) and redo deletes them again.

        Args:
            paper_ids: the papers (any number; duplicates are ignored).
            undoable: record an undo step ("Delete paper", "Delete 3 papers").
        Returns:
            :class:`Changes`: ``papers`` the deleted ids; ``tags``, ``notes`` and
            ``highlights`` what they carried; ``sources`` set (paper counts of files
            change). Empty when ``paper_ids`` is empty.
        Raises:
            UnknownPaper: an id does not exist (message names it; nothing is deleted).
        """
        with _db.transaction(self.db) as db:
            ids = self._lib.papers.existing_ids(paper_ids)
            snap = self.snapshot_papers(db, ids)
            self.delete_rows(db, ids)
        if not ids:
            return NO_CHANGES
        self._lib.after_change()
        changes = self._paper_changes(snap, ids)

        def undo() -> Changes:
            self._restore_rows(snap, ids)
            return changes

        def redo() -> Changes:
            with _db.transaction(self.db) as db:
                self._lib.papers.existing_ids(ids)   # all still there (undo put them back)
                self.delete_rows(db, ids)
            self._lib.after_change()
            return changes

        return self._lib.record(f"Delete {count_label(len(ids))}", changes, undo, redo,
                            undoable=undoable)

    def remove_source(self, source_id: int, undoable: bool = True) -> Changes:
        """Remove an imported file from the library: its ``sources`` row, its links to
        papers, and the papers that came from no other file (with their tags, notes and
        highlights), in one transaction. Papers also imported from another file stay;
        only their link to this file goes. The file on disk is not touched, and
        importing it again brings its papers back as new papers.

        Args:
            source_id: the imported file (see :meth:`plan` for what will go).
            undoable: record an undo step ("Remove file ‘name’"), whose undo restores
                the file's row, its links and every deleted paper exactly.
        Returns:
            :class:`Changes`: ``papers`` the deleted and the kept papers (whose list of
            sources changed); ``sources`` set.
        Raises:
            LibraryError: no imported file has that id.
        """
        with _db.transaction(self.db) as db:
            plan = self.plan(source_id)
            sid = plan.source.id
            deleted, kept = list(plan.deleted), list(plan.kept)
            snap = RowSnapshot()
            snap.take(db, "sources", ["id"], [sid])
            self.snapshot_papers(db, deleted, snap)
            for table, cols in _referring(db, "sources"):
                snap.take(db, table, cols, [sid])
            self.delete_rows(db, deleted, sid, kept)
        self._lib.after_change()
        changes = self._paper_changes(snap, deleted) | Changes.of(papers=kept,
                                                                   sources=True)

        def undo() -> Changes:
            self._restore_rows(snap, deleted, kept)
            return changes

        def redo() -> Changes:
            with _db.transaction(self.db) as db:
                self.source(sid)          # still there (undo put it back)
                self.delete_rows(db, deleted, sid, kept)
            self._lib.after_change()
            return changes

        return self._lib.record(f"Remove file {quote(plan.source.name)}", changes, undo, redo,
                            undoable=undoable)
