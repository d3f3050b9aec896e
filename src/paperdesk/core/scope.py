"""Which papers a list, a count or an export covers: :class:`Scope`, and the one place
that turns a scope into paper ids (:func:`scope_ids`) or a count (:func:`scope_count`).

``lib.papers.scope_ids`` and ``lib.papers.scope_count`` call these; the paper list, the status
bar, the export dialog, "Current list" and the command line all go through them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.fields import INTEREST, RELEVANCE, SORT_CHOICES, order_by

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["Scope", "FILTERS", "FILTER_LABELS", "ScopeMasks", "scope_ids", "scope_count",
           "scope_sql", "id_array", "id_list", "ID_CHARS_PER_PARSE", "ID_LIST_CHUNK"]

#: Built-in filters: name -> SQL condition on ``papers``.
FILTERS = {
    "unread": "read_at IS NULL",
    "read": "read_at IS NOT NULL",
    "starred": "starred",
    "untagged": "id NOT IN (SELECT paper_id FROM paper_tags)",
    "has_note": "id IN (SELECT paper_id FROM notes)",
    "has_highlight": "id IN (SELECT paper_id FROM highlights)",
}
#: The filters offered in the tag pane, in order: filter name -> label.
FILTER_LABELS = {
    "unread": "Unread",
    "starred": "Starred",
    "untagged": "Untagged",
    "has_note": "Has note",
}
_CHUNK = 500


@dataclass(frozen=True)
class Scope:
    """Which papers a list covers; every part given narrows it, all ``None`` is every
    paper.

    Attributes:
        source_id: only papers from this source file.
        tag_id: only papers with this tag.
        filter: only papers passing this built-in filter (a key of :data:`FILTERS`:
            ``"unread"``, ``"starred"``, ``"untagged"``, ``"has_note"``, ...).
        saved: only the results of the saved search with this name.
        query: only the results of this query (the query language of :mod:`.query`).
            ``saved`` and ``query`` cannot both be given.
        ids: only these papers (a selection), kept in the order given unless a sort is
            asked for.
    """

    source_id: int | None = None
    tag_id: int | None = None
    filter: str | None = None
    saved: str | None = None
    query: str | None = None
    ids: tuple[int, ...] | None = None

    def where(self) -> dict:
        """Return ``{"source_id", "tag_id", "filter"}`` keyword arguments for
        ``lib.papers.ids`` and ``lib.search.find`` (the parts SQLite answers; the query,
        saved search and selection are not included)."""
        return {"source_id": self.source_id, "tag_id": self.tag_id, "filter": self.filter}

    @property
    def searches(self) -> bool:
        """Whether the scope is the results of a query or a saved search."""
        return self.query is not None or self.saved is not None


def scope_sql(scope: Scope, also: str | None = None) -> tuple[str, list]:
    """Return the SQL condition on ``papers`` for a scope's source, tag and filter.

    Args:
        scope: the scope (its query, saved search and selection are ignored here).
        also: one more filter of :data:`FILTERS` the papers must pass.
    Returns:
        ``(condition, arguments)`` for ``WHERE``.
    Raises:
        ValueError: an unknown filter.
    """
    conditions, args = ["1"], []
    if scope.source_id is not None:
        conditions.append("id IN (SELECT paper_id FROM paper_sources WHERE source_id = ?)")
        args.append(scope.source_id)
    if scope.tag_id is not None:
        conditions.append("id IN (SELECT paper_id FROM paper_tags WHERE tag_id = ?)")
        args.append(scope.tag_id)
    for name in (scope.filter, also):
        if name is not None:
            if name not in FILTERS:
                raise ValueError(f"unknown filter {name!r}; use one of {sorted(FILTERS)}")
            conditions.append(FILTERS[name])
    return " AND ".join(conditions), args


#: SQL giving the ids of the papers passing each filter, cheaper than ``SELECT id FROM
#: papers WHERE <FILTERS[name]>`` (an index or a small table); "untagged" is the rest.
_FILTER_IDS = {
    "unread": "SELECT id FROM papers WHERE read_at IS NULL",
    "read": "SELECT id FROM papers WHERE read_at IS NOT NULL",
    "starred": "SELECT id FROM papers WHERE starred",
    "has_note": "SELECT paper_id FROM notes",
    "has_highlight": "SELECT DISTINCT paper_id FROM highlights",
}


#: Characters of a ``group_concat`` list of ids parsed in one call by :func:`id_array`
#: (about 70,000 ids of a million-paper library: 3-4 ms of the interpreter lock each).
ID_CHARS_PER_PARSE = 1 << 19


def id_array(db, sql: str, args: Sequence = ()) -> np.ndarray:
    """The integers of ``sql``'s one column (paper ids), as an int64 array.

    SQLite joins them into one text (``group_concat``) while this thread has let go of
    the interpreter lock (Python's ``sqlite3`` releases it while a statement steps), and
    numpy parses that text a slice of :data:`ID_CHARS_PER_PARSE` characters at a time.
    Reading the rows one by one into ``np.fromiter`` held the lock for every row: 0.7-1.3
    s for a million papers, against 0.2-0.3 s this way, of which 35-50 ms hold the lock,
    in pieces of a few milliseconds (the window's UI thread gets it in between).

    Args:
        db: a ``sqlite_utils.Database`` (or ``sqlite3.Connection``) of this thread.
        sql: a ``SELECT`` of one integer column (any name).
        args: its parameters.
    Returns:
        The values in the order of ``sql`` (its ``ORDER BY``: SQLite does not flatten a
        subquery with ``ORDER BY`` into an aggregate, so ``group_concat`` takes its rows
        in that order), NULLs left out; empty when there are none.
    Raises:
        sqlite3.Error: as ``db.execute`` raises it.
    """
    name = db.execute(f"SELECT * FROM ({sql}) LIMIT 0", list(args)).description[0][0]
    quoted = name.replace('"', '""')
    text = db.execute(f'SELECT group_concat("{quoted}") FROM ({sql})',
                      list(args)).fetchone()[0]
    if not text:
        return np.zeros(0, np.int64)
    text = str(text)
    parts, start = [], 0
    while start < len(text):
        end = text.find(",", start + ID_CHARS_PER_PARSE)
        end = len(text) if end < 0 else end
        parts.append(np.fromstring(text[start:end], dtype=np.int64, sep=","))
        start = end + 1
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class ScopeMasks:
    """Cached numpy bool arrays over paper ids ("masks"): which papers exist, which have a
    tag, which pass a filter, and each paper's place in a sort order. The search applies
    a tag or filter chosen in the tag pane as one of these masks inside the index search
    (:meth:`~paperdesk.core.search.index.SearchIndex.search_arrays`), instead of loading
    the id set from SQLite per query, and sorts all hits by ``added`` or ``title`` with
    one ``argsort`` of cached ranks.

    Masks are kept per thread (``Library.db`` is a connection per thread) and thrown away
    as soon as the database changed: a commit by another connection changes SQLite's
    ``PRAGMA data_version`` (https://www.sqlite.org/pragma.html#pragma_data_version),
    and a change by this thread's own connection changes its ``total_changes``. Checking
    both costs a few microseconds per search; a mask is built on first use after a change
    (one indexed ``SELECT`` of ids joined by SQLite, :func:`id_array`: about 0.2-0.3 s
    for every paper of a million-paper library).

    Attributes:
        builds: how many masks or ranks were built from SQLite (for tests).
    """

    def __init__(self):
        # thread id -> (connection, version, items); not a threading.local(), which a
        # QThread loses between two slot calls (see Library.db)
        self._threads: dict[int, tuple] = {}
        self.builds = 0

    def _items(self, db) -> dict:
        conn = db.conn
        version = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
        key = threading.get_ident()
        found = self._threads.get(key)
        if found is None or found[0] is not conn or found[1] != version:
            found = self._threads[key] = (conn, version, {})
        return found[2]

    def clear(self) -> None:
        """Forget every thread's masks (e.g. before the library closes)."""
        self._threads.clear()

    def _ids_mask(self, items: dict, db, sql: str, args=()) -> np.ndarray:
        size = self._size(items, db)
        ids = id_array(db, sql, args)
        mask = np.zeros(size, dtype=bool)
        ids = ids[(ids >= 0) & (ids < size)]
        mask[ids] = True
        self.builds += 1
        return mask

    def _size(self, items: dict, db) -> int:
        size = items.get("size")
        if size is None:
            top = db.execute("SELECT max(id) FROM papers").fetchone()[0]
            size = items["size"] = max(int(top or 0), 0) + 1
        return size

    def existing(self, db) -> np.ndarray:
        """Return the mask of the papers in the library.

        Args:
            db: this thread's ``sqlite_utils.Database`` (``Library.db``).
        Returns:
            A bool array of length ``max(id) + 1``: ``mask[id]`` is whether paper ``id``
            exists.
        """
        items = self._items(db)
        found = items.get("existing")
        if found is None:
            found = items["existing"] = self._ids_mask(items, db, "SELECT id FROM papers")
        return found

    def mask(self, db, scope: Scope) -> np.ndarray:
        """Return the mask of the existing papers in the scope's tag and filter.

        Args:
            db: this thread's ``Library.db``.
            scope: its ``tag_id`` and ``filter`` are used (the source is an index term,
                the query, saved search and selection are not looked at).
        Returns:
            A bool array over paper ids, as :meth:`existing`. Do not modify it.
        Raises:
            ValueError: an unknown filter.
        """
        if scope.filter is not None and scope.filter not in FILTERS:
            raise ValueError(f"unknown filter {scope.filter!r}; use one of {sorted(FILTERS)}")
        items = self._items(db)
        key = ("scope", scope.tag_id, scope.filter)
        found = items.get(key)
        if found is not None:
            return found
        found = self.existing(db).copy()
        if scope.tag_id is not None:
            found &= self._part(items, db, ("tag", scope.tag_id),
                                "SELECT paper_id FROM paper_tags WHERE tag_id = ?",
                                [scope.tag_id])
        if scope.filter == "untagged":
            found &= ~self._part(items, db, ("tagged",),
                                 "SELECT DISTINCT paper_id FROM paper_tags")
        elif scope.filter is not None:
            found &= self._part(items, db, ("filter", scope.filter),
                                _FILTER_IDS.get(scope.filter) or
                                f"SELECT id FROM papers WHERE {FILTERS[scope.filter]}")
        items[key] = found
        return found

    def _part(self, items: dict, db, key: tuple, sql: str, args=()) -> np.ndarray:
        found = items.get(key)
        if found is None:
            found = items[key] = self._ids_mask(items, db, sql, args)
        return found

    def added(self, db, first, last) -> np.ndarray:
        """Return the mask of the papers added from local day ``first`` to ``last``.

        The day is SQLite's ``date(added_at, 'localtime')``
        (:data:`paperdesk.core.overview.DAY_SQL`, as the overview's weeks count them):
        one pass over the ``added_at`` index, about 30 ms at 100,000 papers, cached
        like the other masks.

        Args:
            db: this thread's ``Library.db``.
            first: a ``datetime.date`` (included) or ``None`` (no lower end).
            last: a ``datetime.date`` (included) or ``None`` (no upper end).
        Returns:
            A bool array over paper ids, as :meth:`existing`. Do not modify it.
        """
        from paperdesk.core.overview import DAY_SQL

        items = self._items(db)
        conditions, args = [], []
        if first is not None:
            conditions.append(f"{DAY_SQL} >= ?")
            args.append(first.isoformat())
        if last is not None:
            conditions.append(f"{DAY_SQL} <= ?")
            args.append(last.isoformat())
        if not conditions:
            return self.existing(db)
        return self._part(items, db, ("added", first, last),
                          f"SELECT id FROM papers WHERE {' AND '.join(conditions)}", args)

    def rank(self, db, sort: str, descending: bool = False) -> np.ndarray:
        """Return each paper's place in a sort order.

        Args:
            db: this thread's ``Library.db``.
            sort: a sortable field (``"added"``, ``"title"``, ``"year"`` ...).
            descending: the reversed order (ties keep :func:`~.fields.order_by`'s order).
        Returns:
            An int64 array over paper ids (as :meth:`existing`): ``rank[id]`` is the
            paper's position in ``ORDER BY`` that field; papers that do not exist get
            the largest value.
        Raises:
            ValueError: the field is not sortable.
        """
        by = order_by(sort, descending)
        items = self._items(db)
        key = ("rank", by)
        found = items.get(key)
        if found is None:
            size = self._size(items, db)
            ids = np.fromiter((r[0] for r in db.execute(
                f"SELECT id FROM papers ORDER BY {by}")), np.int64)
            ids = ids[(ids >= 0) & (ids < size)]
            found = np.full(size, np.iinfo(np.int64).max, dtype=np.int64)
            found[ids] = np.arange(len(ids), dtype=np.int64)
            items[key] = found
            self.builds += 1
        return found


def _query(lib: Library, scope: Scope) -> str | None:
    if scope.query is not None and scope.saved is not None:
        raise ValueError("a scope has a query or a saved search, not both")
    if scope.saved is not None:
        return lib.saved_searches.get(scope.saved).query
    return scope.query


def _check_sort(sort: str | None) -> None:
    if sort is not None and sort not in SORT_CHOICES:
        raise ValueError(f"unknown sort {sort!r}; use one of {', '.join(SORT_CHOICES)}")


def _sql_ids(lib: Library, scope: Scope, order: str, descending: bool,
             also: str | None = None, limit: int | None = None) -> list[int]:
    where, args = scope_sql(scope, also)
    by = order_by(order, descending)
    if limit is not None:
        where, args = f"{where} ORDER BY {by} LIMIT ?", [*args, int(limit)]
    else:
        where = f"{where} ORDER BY {by}"
    return id_list(id_array(lib.db, f"SELECT id FROM papers WHERE {where}", args))


#: Ids turned into Python ints this many at a time (:func:`id_list`).
ID_LIST_CHUNK = 65_536


def id_list(ids: np.ndarray) -> list[int]:
    """``ids`` as a list of Python ints, made :data:`ID_LIST_CHUNK` at a time so that a
    thread waiting for the interpreter lock (the window's UI thread) gets it in between
    (a million in one ``tolist`` holds it about 30 ms).

    Args:
        ids: an int64 array (e.g. from :func:`id_array`).
    Returns:
        The same ids, in order.
    """
    out: list[int] = []
    for start in range(0, len(ids), ID_LIST_CHUNK):
        out.extend(ids[start:start + ID_LIST_CHUNK].tolist())
    return out


def _narrowed(scope: Scope) -> bool:
    return scope.source_id is not None or scope.tag_id is not None or \
        scope.filter is not None


def scope_ids(lib: Library, scope: Scope, sort: str | None = None,
              descending: bool = False, limit: int | None = None) -> list[int]:
    """Return the ids of the papers in ``scope``, in list order.

    Args:
        lib: the open library.
        scope: the :class:`Scope`.
        sort: one of :data:`~.fields.SORT_CHOICES`, or ``None`` for the natural order:
            best matches first for a query or saved search, the order given for a
            selection, else import order. ``"relevance"`` without a query is import
            order (or the selection's order).
        descending: reverse an ``added``/``title`` sort (or ``"interest"``).
        limit: at most this many ids, the first ones of the list (``None``: all). A
            scope listed from SQLite without a selection asks SQLite for only these
            (``LIMIT``: the first screenful of a million papers in about a millisecond,
            by the ``added_at`` index); a query, a selection or ``"interest"`` are
            listed whole, then cut.
    Returns:
        A list of ids (no duplicates). ``"interest"`` orders the scope's papers with
        :meth:`~paperdesk.core.discover.engine.Discover.interest` (date added while
        too few papers were kept).
    Raises:
        ValueError: an unknown filter or sort, or both ``query`` and ``saved``, or a
            negative ``limit``.
        TermsNotReady: ``"interest"`` needs the term table built first.
        LibraryError: an unknown saved search.
        UnknownPaper: a selected id is not in the library.
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be 0 or more, not {limit}")
    if limit is not None and (scope.ids is not None or _query(lib, scope) is not None
                              or sort == INTEREST):
        return scope_ids(lib, scope, sort, descending)[:limit]
    _check_sort(sort)
    query = _query(lib, scope)
    selection = lib.papers.existing_ids(scope.ids) if scope.ids is not None else None
    if query is not None:
        within = None
        if selection is not None:
            within = set(selection)
            if _narrowed(scope):
                within &= set(_sql_ids(lib, scope, "added", False))
        return lib.search.find(query, limit=0, **scope.where(), within=within,
                        sort=sort or RELEVANCE, descending=descending, snippets=False,
                        suggest=False).ids.tolist()
    if sort == INTEREST:       # worth reading first: the scope's papers, reordered
        ids = scope_ids(lib, scope, None if selection is not None else "added")
        order = lib.discover.interest(ids, with_reasons=0).ids
        return order[::-1] if descending else order
    ordered = sort not in (None, RELEVANCE)
    if selection is None:
        return _sql_ids(lib, scope, sort if ordered else "added", descending, limit=limit)
    if not ordered and not _narrowed(scope):
        return selection
    wanted = set(selection)
    if ordered:
        return [i for i in _sql_ids(lib, scope, sort, descending) if i in wanted]
    passing = set(_sql_ids(lib, scope, "added", False))
    return [i for i in selection if i in passing]


def scope_count(lib: Library, scope: Scope, also: str | None = None) -> int:
    """Return how many papers are in ``scope`` (SQL ``count(*)``, or the search index's
    count for a query), without listing them.

    Args:
        lib: the open library.
        scope: the :class:`Scope`.
        also: count only the papers that also pass this filter of :data:`FILTERS`
            (e.g. ``"unread"`` for the status bar's "3 of 12 unread").
    Returns:
        The count; equal to ``len(scope_ids(lib, scope))`` when ``also`` is ``None``.
    Raises:
        ValueError: an unknown filter, or both ``query`` and ``saved``.
        LibraryError: an unknown saved search.
        UnknownPaper: a selected id is not in the library.
    """
    query = _query(lib, scope)
    selection = lib.papers.existing_ids(scope.ids) if scope.ids is not None else None
    if query is not None:
        within = set(selection) if selection is not None else None
        if also is not None or (within is not None and _narrowed(scope)):
            passing = set(_sql_ids(lib, scope, "added", False, also))
            within = passing if within is None else within & passing
            where = {}
        else:
            where = scope.where()
        return lib.search.find(query, limit=1, **where, within=within, count=True,
                        snippets=False, suggest=False).total
    where, args = scope_sql(scope, also)
    if selection is None:
        return lib.db.execute(f"SELECT count(*) FROM papers WHERE {where}",
                              args).fetchone()[0]
    total = 0
    for start in range(0, len(selection), _CHUNK):
        chunk: Sequence[int] = selection[start:start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        total += lib.db.execute(
            f"SELECT count(*) FROM papers WHERE {where} AND id IN ({marks})",
            [*args, *chunk]).fetchone()[0]
    return total
