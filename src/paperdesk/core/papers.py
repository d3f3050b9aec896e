"""The papers of a library (``lib.papers``): counting and listing them, reading one or
many, the read and star marks, titles, bibliographic metadata and citation keys.

Every edit changes SQLite in one transaction with the papers' index-queue rows, returns
the :class:`~paperdesk.core.changes.Changes` it made and (unless ``undoable=False``)
records one undo step on the library (:meth:`~paperdesk.core.library.Library.undo`).
Bibliographic edits are checked first (:func:`paperdesk.core.metadata.check_metadata`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import compress

from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.edits.undo import count_label
from paperdesk.core.fields import sortable_fields, stored_fields
from paperdesk.core.imports.daily_papers import display_path
from paperdesk.core.metadata import MetadataError, check_citation_key, check_metadata
from paperdesk.core.models import Metadata, Paper, PaperSummary, SourceRef, Tag, UnknownPaper
from paperdesk.core.scope import Scope, scope_count, scope_ids, scope_sql
from paperdesk.core.store import db as _db
from paperdesk.core.store.key_aliases import aliases_of
from paperdesk.core.store.papers import (METADATA_COLUMNS, key_taken, metadata_from_row,
                                         new_citation_key, write_metadata)
from paperdesk.core.text import mentioned_in, replace_surrogates
from paperdesk.core.manager import Manager

#: Sort keys of the list and of searches: name -> ``ORDER BY`` text (from :mod:`.fields`).
_SORTS = {f.name: f.sort_sql for f in sortable_fields()}

#: The table-driven fields that are list columns, and their columns as ``summaries``
#: reads them (built once: the list fetches rows in chunks of 500).
_LISTED = tuple(f.name for f in stored_fields() if f.header)
_LISTED_COLUMNS = "".join(f", {f.column}" for f in stored_fields() if f.header)
#: Columns a search answers from SQLite (``is:read``, ``is:starred``:
#: :mod:`paperdesk.core.search.state_terms`): a change rewrites no index document.
_ANSWERED_BY_SQLITE = frozenset({"read_at", "starred"})


def _listed_values(texts: tuple) -> tuple[tuple[str, str], ...]:
    """``PaperSummary.values`` of the texts of the :data:`_LISTED` columns: the non-empty
    ones (one call per list row: ``compress`` keeps the loop in C)."""
    return tuple(compress(zip(_LISTED, texts), texts)) if any(texts) else ()


__all__ = ["Papers"]


class Papers(Manager):
    """The papers of a library: ``lib.papers`` (see the module)."""

    def count(self, source_id: int | None = None) -> int:
        """Return the number of papers, or of papers from one source.

        Args:
            source_id: restrict to this source.
        Returns:
            A count (0 for an unknown source).
        """
        if source_id is None:
            return self.db.execute("SELECT count(*) FROM papers").fetchone()[0]
        return self.db.execute(
            "SELECT count(DISTINCT paper_id) FROM paper_sources WHERE source_id = ?",
            [source_id],
        ).fetchone()[0]

    def ids(self, order: str = "added", descending: bool = False,
                  source_id: int | None = None, tag_id: int | None = None,
                  filter: str | None = None) -> list[int]:
        """Return paper ids in display order, sorted and filtered in SQLite.

        Args:
            order: ``"added"`` (import order) or ``"title"`` (case-insensitive).
            descending: reverse the order.
            source_id: only papers from this source.
            tag_id: only papers with this tag.
            filter: one of :data:`FILTERS` (``"unread"``, ``"starred"``, ``"untagged"``,
                ``"has_note"``, ...), or ``None``.
        Returns:
            A list of ids.
        Raises:
            ValueError: unknown ``order`` or ``filter``.
        """
        if order not in _SORTS:
            raise ValueError(f"unknown order {order!r}; use one of {sorted(_SORTS)}")
        by = _SORTS[order].format(d="DESC" if descending else "ASC")
        where, args = scope_sql(Scope(source_id, tag_id, filter))
        return [r[0] for r in self.db.execute(
            f"SELECT id FROM papers WHERE {where} ORDER BY {by}", args)]

    def scope_ids(self, scope: Scope, sort: str | None = None,
                  descending: bool = False, limit: int | None = None) -> list[int]:
        """Return the ids of the papers in ``scope`` in list order; the one function for
        which papers a list, an export or a command covers.

        Args:
            scope: a :class:`~paperdesk.core.scope.Scope` (all, filter, source, tag,
                saved search, query, selection, or several of these narrowing each other).
            sort: ``"relevance"``, ``"added"``, ``"title"`` or ``None`` for the natural
                order (see :func:`paperdesk.core.scope.scope_ids`).
            descending: reverse an ``added``/``title`` sort.
            limit: at most this many ids, the first ones (``None``: all; the window
                reads a screenful first, then the rest).
        Returns:
            A list of ids.
        Raises:
            ValueError: an unknown filter or sort, or both a query and a saved search,
                or a negative ``limit``.
            LibraryError: an unknown saved search.
            UnknownPaper: a selected id is not in the library.
        """
        return scope_ids(self._lib, scope, sort=sort, descending=descending, limit=limit)

    def scope_count(self, scope: Scope, also: str | None = None) -> int:
        """Return the number of papers in ``scope`` (``count(*)`` in SQLite, or the
        index's count for a query), without listing them.

        Args:
            scope: a :class:`~paperdesk.core.scope.Scope`.
            also: count only those that also pass this filter (e.g. ``"unread"``).
        Returns:
            The count.
        Raises:
            ValueError, LibraryError, UnknownPaper: as :meth:`scope_ids`.
        """
        return scope_count(self._lib, scope, also=also)

    def summaries(self, ids: Sequence[int]) -> dict[int, PaperSummary]:
        """Return list-row data for the given ids (unknown ids are left out).

        Args:
            ids: paper ids; any number (queried in chunks).
        Returns:
            ``{id: PaperSummary}``.
        """
        out: dict[int, PaperSummary] = {}
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            tags: dict[int, list[str]] = {}
            for pid, name in self.db.execute(
                    "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t "
                    f"ON t.id = pt.tag_id WHERE pt.paper_id IN ({marks}) "
                    "ORDER BY t.name_key", chunk):
                tags.setdefault(pid, []).append(name)
            for row in self.db.execute(
                "SELECT id, title, added_at, read_at, starred, "
                "EXISTS (SELECT 1 FROM notes n WHERE n.paper_id = papers.id), "
                "json_extract(authors, '$[0][0]'), substr(date, 1, 4)"
                f"{_LISTED_COLUMNS} FROM papers WHERE id IN ({marks})", chunk,
            ):
                out[row[0]] = PaperSummary(row[0], row[1], row[2], row[3] is not None,
                                           bool(row[4]), tuple(tags.get(row[0], ())),
                                           bool(row[5]), row[6] or "",
                                           int(row[7]) if row[7] else None,
                                           _listed_values(row[8:]))
        return out

    def first_unread(self, ids: Sequence[int]) -> int | None:
        """Return the first id of ``ids`` (in the order given) whose paper is unread.

        Looks at 500 ids at a time, so finding the next unread paper of a 100,000-row
        list usually reads one small chunk (``u`` in the window).

        Args:
            ids: paper ids in the order to look.
        Returns:
            That id, or ``None`` when none of them is unread (unknown ids are skipped).
        """
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            unread = {r[0] for r in self.db.execute(
                f"SELECT id FROM papers WHERE id IN ({marks}) AND read_at IS NULL", chunk)}
            for pid in chunk:
                if pid in unread:
                    return pid
        return None

    def abstracts(self, ids: Sequence[int]) -> dict[int, str]:
        """Return ``{id: abstract}`` for the given ids (unknown ids are left out)."""
        out: dict[int, str] = {}
        ids = list(ids)
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            out.update(self.db.execute(
                f"SELECT id, abstract FROM papers WHERE id IN ({marks})", chunk).fetchall())
        return out

    def get(self, paper_id: int) -> Paper:
        """Return one paper with its provenance.

        Args:
            paper_id: the id.
        Returns:
            The :class:`Paper`.
        Raises:
            UnknownPaper: no paper has that id.
        """
        if not _db.fits_integer(paper_id):
            raise UnknownPaper(paper_id)
        row = self.db.execute(
            "SELECT id, title, derived_title, abstract, added_at, read_at, starred, "
            f"citation_key, {', '.join(METADATA_COLUMNS)}, file_title "
            "FROM papers WHERE id = ?", [int(paper_id)]).fetchone()
        if row is None:
            raise UnknownPaper(paper_id)
        refs = tuple(
            SourceRef(*r) for r in self.db.execute(
                "SELECT s.id, s.path, s.name, s.header, ps.position FROM paper_sources ps "
                "JOIN sources s ON s.id = ps.source_id WHERE ps.paper_id = ? "
                "ORDER BY s.id, ps.position", [row[0]])
        )
        abstract = row[3]
        tags = tuple(Tag(*r) for r in self.db.execute(
            "SELECT t.id, t.name, t.colour, t.key, "
            "(SELECT count(*) FROM paper_tags x WHERE x.tag_id = t.id) FROM paper_tags pt "
            "JOIN tags t ON t.id = pt.tag_id WHERE pt.paper_id = ? "
            "ORDER BY t.name_key", [row[0]]))
        return Paper(
            id=row[0], title=row[1], derived_title=row[2], abstract=abstract,
            added_at=row[4], read_at=row[5], starred=bool(row[6]),
            citation_key=row[7] or "", metadata=metadata_from_row(row[8:-1]),
            file_title=row[-1] or "",
            mentioned=mentioned_in(abstract),
            sources=refs, tags=tags, note=self._lib.notes.get(row[0]),
            highlights=tuple(self._lib.notes.highlights(row[0])),
            key_aliases=aliases_of(self.db, row[0]),
        )

    def stats(self) -> dict:
        """Return counts: ``papers``, ``indexed`` (documents in the search index),
        ``pending_index`` (index-queue entries: papers waiting to be indexed or
        re-indexed), ``searchable`` (papers a search finds now) and ``unindexed``
        (papers not in the index yet: an import still being indexed), ``sources``,
        ``unread``, ``starred``, ``tags``, ``notes``, ``highlights``, and ``path`` (the
        library folder)."""
        q = self.db.execute
        status = self._lib.index.status()
        return {
            "path": display_path(self._lib.path),
            "database_problem": self._lib.db_problem,
            "index_repair": self._lib.index.repair or self._lib.index.whoosh.damage,
            "papers": status.papers,
            "indexed": self._lib.index.whoosh.doc_count(),
            "pending_index": status.queued,
            "searchable": status.indexed,
            "unindexed": status.unindexed,
            "sources": q("SELECT count(*) FROM sources").fetchone()[0],
            "unread": q("SELECT count(*) FROM papers WHERE read_at IS NULL").fetchone()[0],
            "starred": q("SELECT count(*) FROM papers WHERE starred").fetchone()[0],
            "tags": q("SELECT count(*) FROM tags").fetchone()[0],
            "notes": q("SELECT count(*) FROM notes").fetchone()[0],
            "highlights": q("SELECT count(*) FROM highlights").fetchone()[0],
        }

    def existing_ids(self, ids: Iterable[int]) -> list[int]:
        ids = list(dict.fromkeys(int(i) for i in ids))
        if not ids:
            return []
        for i in ids:
            if not _db.fits_integer(i):
                raise UnknownPaper(i)
        found: set[int] = set()
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self.db.execute(
                f"SELECT id FROM papers WHERE id IN ({marks})", chunk))
        missing = [i for i in ids if i not in found]
        if missing:
            raise UnknownPaper(missing[0])
        return ids

    def _write_column(self, column: str, values: Mapping[int, object]) -> None:
        with _db.transaction(self.db) as db:
            db.conn.executemany(f"UPDATE papers SET {column} = ? WHERE id = ?",
                                [(v, p) for p, v in values.items()])
            if column not in _ANSWERED_BY_SQLITE:
                self._lib.index.enqueue(db, list(values), "update")
        self._lib.after_change()

    def _column_step(self, label: str, column: str, field: str,
                     before: Mapping[int, object], after: Mapping[int, object],
                     undoable: bool, search: bool = False) -> Changes:
        changed = {p: v for p, v in after.items() if before.get(p) != v}
        if not changed:
            return NO_CHANGES
        old = {p: before[p] for p in changed}
        self._write_column(column, changed)
        # star and read marks say by how much they moved the filters' counts, so a view
        # need not count a million papers again (``Changes.filter_deltas``)
        deltas = None
        if field == "starred":
            deltas = {"starred": sum(1 if v else -1 for v in changed.values())}
        elif field == "read":
            deltas = {"unread": sum(-1 if v is not None else 1 for v in changed.values())}
        changes = Changes.of(papers=changed, fields=[field], search=search,
                             filter_deltas=deltas)

        def undo() -> Changes:
            self._write_column(column, old)
            return changes.negated_filter_deltas()

        def redo() -> Changes:
            self._write_column(column, changed)
            return changes

        return self._lib.record(label, changes, undo, redo, undoable=undoable)

    def set_read(self, paper_ids: Iterable[int], read: bool,
                 undoable: bool = True) -> Changes:
        """Mark papers read (now) or unread.

        Args:
            paper_ids: the papers.
            read: True to mark read, False for unread.
            undoable: record an undo step ("Mark 2 papers read"); automatic mark-read
                passes False (it is not an edit of the user's).
        Returns:
            :class:`Changes` listing the papers whose state changed.
        Raises:
            UnknownPaper: an id does not exist (nothing is changed).
        """
        ids = self.existing_ids(paper_ids)
        before = self._column_values("read_at", ids)
        now = _now() if read else None
        after = {p: (v or now) if read else None for p, v in before.items()}
        label = f"Mark {count_label(len(ids))} {'read' if read else 'unread'}"
        return self._column_step(label, "read_at", "read", before, after, undoable)

    def set_starred(self, paper_ids: Iterable[int], starred: bool,
                    undoable: bool = True) -> Changes:
        """Star or unstar papers.

        Args:
            paper_ids: the papers.
            starred: True to star, False to unstar.
            undoable: record an undo step ("Star 2 papers").
        Returns:
            :class:`Changes` listing the papers whose state changed.
        Raises:
            UnknownPaper: an id does not exist.
        """
        ids = self.existing_ids(paper_ids)
        before = {p: int(bool(v)) for p, v in self._column_values("starred", ids).items()}
        after = {p: int(bool(starred)) for p in ids}
        verb = "Star" if starred else "Unstar"
        return self._column_step(f"{verb} {count_label(len(ids))}", "starred", "starred",
                                 before, after, undoable)

    def _column_values(self, column: str, ids: Sequence[int]) -> dict:
        out = {}
        for i in range(0, len(ids), 500):
            chunk = list(ids[i:i + 500])
            marks = ",".join("?" * len(chunk))
            out.update(self.db.execute(
                f"SELECT id, {column} FROM papers WHERE id IN ({marks})", chunk).fetchall())
        return out

    def set_title(self, paper_id: int, title: str | None, undoable: bool = True) -> Changes:
        """Give a paper its own title, or go back to its base title.

        Args:
            paper_id: the paper.
            title: the new title (white space collapsed, lone surrogates made U+FFFD);
                ``None`` or blank restores the
                base title (:attr:`Paper.base_title`): the title its file gave it, else
                the one derived from the abstract.
            undoable: record an undo step ("Edit title" / "Restore title").
        Returns:
            :class:`Changes` (empty when the title stays the same).
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self.existing_ids([paper_id])
        old, base = self.db.execute(
            "SELECT title, coalesce(file_title, derived_title) FROM papers WHERE id = ?",
            [pid]).fetchone()
        new = replace_surrogates(" ".join((title or "").split())) or base
        label = "Edit title" if (title or "").strip() else "Restore title"
        return self._column_step(label, "title", "title", {pid: old}, {pid: new}, undoable,
                                 search=True)

    def filter_counts(self, only: Iterable[str] | None = None) -> dict[str, int]:
        """Return the live counts of the built-in filters: ``all``, ``unread``,
        ``starred``, ``untagged``, ``has_note``.

        Each count reads an index, never the papers' rows (which hold the abstracts):
        the smallest index of ``papers`` for ``all``, ``idx_papers_read`` for ``unread``,
        the partial index ``idx_papers_starred`` (schema 8) for ``starred``, the primary
        key of ``paper_tags`` for the tagged papers (``untagged`` is the rest; the
        dearest, ~10 ms at 100,000 papers, so a star or read mark need not ask for it).

        Args:
            only: count just these filters (``"all"`` is always counted), e.g.
                ``("starred",)`` after a star; ``None`` for all of them.
        Returns:
            ``{"all": n, "unread": n, "starred": n, "untagged": n, "has_note": n}``, or
            ``"all"`` and the filters asked for.
        """
        q = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        wanted = None if only is None else set(only)
        total = q("SELECT count(*) FROM papers")
        sql = {
            "unread": "SELECT count(*) FROM papers WHERE read_at IS NULL",
            "starred": "SELECT count(*) FROM papers WHERE starred",
            # DISTINCT over the primary key (paper_id, tag_id) walks it in order; a
            # count(DISTINCT ...) sorted a temporary b-tree (42 ms vs 7 ms at 100,000).
            "untagged": "SELECT count(*) FROM (SELECT DISTINCT paper_id FROM paper_tags)",
            "has_note": "SELECT count(*) FROM notes",
        }
        out = {"all": total}
        for name, query in sql.items():
            if wanted is None or name in wanted:
                out[name] = total - q(query) if name == "untagged" else q(query)
        return out

    def metadata(self, paper_id: int) -> Metadata:
        """Return a paper's own metadata.

        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self.existing_ids([paper_id])
        return metadata_from_row(self.db.execute(
            f"SELECT {', '.join(METADATA_COLUMNS)} FROM papers WHERE id = ?",
            [pid]).fetchone())

    def citation_key(self, paper_id: int) -> str:
        """Return a paper's citation key.

        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self.existing_ids([paper_id])
        return self.db.execute("SELECT citation_key FROM papers WHERE id = ?",
                               [pid]).fetchone()[0]

    def _write_metadata(self, pid: int, meta: Metadata, key: str | None = None) -> None:
        with _db.transaction(self.db) as db:
            if key is not None:
                if key_taken(db, key, pid):
                    raise MetadataError(f"citation key: {key!r} is already used by "
                                        "another paper")
                db.conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?",
                                [key, pid])
            write_metadata(db, pid, meta)
            self._lib.index.enqueue(db, [pid], "update")
        self._lib.after_change()

    def set_metadata(self, paper_id: int, meta: Metadata, undoable: bool = True,
                     citation_key: str | None = None) -> Changes:
        """Replace a paper's own metadata (all parts at once; pass the current
        :meth:`metadata` with some parts replaced to change only those), and optionally
        its citation key, in one transaction and one undo step. Without
        ``citation_key`` the key stays as it is (see :meth:`regenerate_citation_key`).

        Args:
            paper_id: the paper.
            meta: the new metadata (checked and cleaned first).
            undoable: record an undo step ("Edit metadata").
            citation_key: a new citation key, or ``None`` to keep it.
        Returns:
            :class:`Changes` with fields ``"metadata"`` and/or ``"citation_key"`` (empty
            when nothing differs).
        Raises:
            UnknownPaper: no such paper.
            MetadataError: a part is refused, or the key is malformed or another
                paper's (one line naming it); nothing is changed.
        """
        clean = check_metadata(meta)
        new_key = None if citation_key is None else check_citation_key(citation_key)
        before = self.metadata(paper_id)
        old_key = self.citation_key(paper_id)
        pid = int(paper_id)
        if new_key == old_key:
            new_key = None
        fields = (["metadata"] if clean != before else []) + (
            ["citation_key"] if new_key is not None else [])
        if not fields:
            return NO_CHANGES
        self._write_metadata(pid, clean, new_key)
        changes = Changes.of(papers=[pid], fields=fields, search=True)

        def undo() -> Changes:
            self.existing_ids([pid])
            self._write_metadata(pid, before, old_key if new_key is not None else None)
            return changes

        def redo() -> Changes:
            self.existing_ids([pid])
            self._write_metadata(pid, clean, new_key)
            return changes

        return self._lib.record("Edit metadata", changes, undo, redo, undoable=undoable)

    def _write_key(self, pid: int, key: str) -> None:
        with _db.transaction(self.db) as db:
            if key_taken(db, key, pid):
                raise MetadataError(f"citation key: {key!r} is already used by another paper")
            db.conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?", [key, pid])
            self._lib.index.enqueue(db, [pid], "update")
        self._lib.after_change()

    def _key_step(self, label: str, pid: int, old: str, new: str,
                  undoable: bool) -> Changes:
        if new == old:
            return NO_CHANGES
        self._write_key(pid, new)
        changes = Changes.of(papers=[pid], fields=["citation_key"], search=True)

        def undo() -> Changes:
            self._write_key(pid, old)
            return changes

        def redo() -> Changes:
            self._write_key(pid, new)
            return changes

        return self._lib.record(label, changes, undo, redo, undoable=undoable)

    def set_citation_key(self, paper_id: int, key: str, undoable: bool = True) -> Changes:
        """Give a paper the citation key the user typed.

        Args:
            paper_id: the paper.
            key: the key (see :func:`paperdesk.core.metadata.check_citation_key`).
            undoable: record an undo step ("Edit citation key").
        Returns:
            :class:`Changes` with field ``"citation_key"`` (empty when unchanged).
        Raises:
            UnknownPaper: no such paper.
            MetadataError: the key is malformed or another paper has it (any case).
        """
        clean = check_citation_key(key)
        old = self.citation_key(paper_id)
        return self._key_step("Edit citation key", int(paper_id), old, clean, undoable)

    def proposed_citation_key(self, paper_id: int, meta: Metadata | None = None) -> str:
        """Return the key :meth:`regenerate_citation_key` would give the paper now: Better
        BibTeX's ``family`` + year + first title word (a/b/c when taken) when its authors
        are known, else ``word_id`` (with the year when known). The paper's current key
        counts as free.

        Args:
            paper_id: the paper.
            meta: metadata to make the key from instead of the stored one (e.g. what
                the metadata editor holds before it is saved); it is not checked.
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self.existing_ids([paper_id])
        title = self.db.execute("SELECT title FROM papers WHERE id = ?", [pid]).fetchone()[0]
        return new_citation_key(self.db, pid, title,
                                meta if meta is not None else self.metadata(pid))

    def regenerate_citation_key(self, paper_id: int, undoable: bool = True) -> Changes:
        """Replace a paper's citation key by :meth:`proposed_citation_key` (only when the
        user asks: documents citing the old key stop finding it).

        Returns:
            :class:`Changes` with field ``"citation_key"`` (empty when the key is already
            the proposed one).
        Raises:
            UnknownPaper: no such paper.
        """
        old = self.citation_key(paper_id)
        return self._key_step("Regenerate citation key", int(paper_id), old,
                              self.proposed_citation_key(paper_id), undoable)

    def for_key(self, key: str) -> int | None:
        """Return the id of the paper with this citation key or key alias (any case), or
        ``None``."""
        key = str(key).strip()
        row = self.db.execute("SELECT id FROM papers WHERE citation_key = ? COLLATE NOCASE "
                              "UNION ALL SELECT paper_id FROM citation_key_aliases "
                              "WHERE alias = ? LIMIT 1", [key, key]).fetchone()
        return row[0] if row else None
