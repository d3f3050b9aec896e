"""The paper list's table model: a list of paper ids plus a lazily filled row cache.

The model holds only ids (cheap even for 100 000 papers). ``data()`` asks for rows it has
not seen in blocks of :data:`BLOCK` ids around the requested row (``lib.papers.summaries``
by the row fetcher, :meth:`PaperTableModel.set_row_fetcher`: the window's reader thread,
never the UI thread), so scrolling a large library reads only what is shown; until a
block arrives its rows are drawn with a quiet placeholder (:data:`ROW_PLACEHOLDER` in the
Title, the other cells empty), then repainted (``dataChanged``). Sorting
and filtering happen in SQLite (``lib.papers.ids``); while searching, the model holds
every match's id (``SearchResults.ids``) in the order the search delivered them, with the
snippets of the first block only; the snippets of other rows are cut when those rows are
asked for, a block of :data:`BLOCK` at a time, by the snippet fetcher
(:meth:`PaperTableModel.set_snippet_fetcher`: the window's reader thread), and the cell
shows a placeholder ("…") until they arrive. A header click only asks for another
order (:attr:`PaperTableModel.searchSortRequested`): the search runs again with
``lib.search.find(sort=...)`` on the worker thread. After an annotation change only the rows
of the changed papers are re-read (:meth:`PaperTableModel.refresh_papers`).

Listing a scope (:meth:`PaperTableModel.show_all`, a header sort while listing) reads
its ids through the id reader (:meth:`PaperTableModel.set_id_reader`: the window's
reader thread) when one is set, never on the UI thread: first the first
:data:`FIRST_ROWS` ids (a screenful, read by SQLite's ``LIMIT``), shown at once, then
every id, appended below them (``rowsInserted``). At a million papers the whole read
takes over a second; the first rows come in milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPainter, QPalette, QPixmap

from paperdesk.core.collector import SlowFree
from paperdesk.core.fields import field as paper_field, stored_fields
from paperdesk.core.library import Library
from paperdesk.core.models import PaperSummary, SearchHit, SearchResults
from paperdesk.ui.panes.paper_html import NO_TITLE
from paperdesk.ui.style.colours import reading_colours
from paperdesk.core.text import bidi_visible
from paperdesk.core.tex_math import readable_math
from paperdesk.ui.style.formatting import local_date, local_datetime, tooltip_html
from paperdesk.core.scope import Scope

__all__ = ["PaperTableModel", "BLOCK", "PaperIdRole", "SpansRole", "TagsRole",
           "StarredRole", "ReadRole", "ExcludedRole", "snippet_window",
           "SNIPPET_PLACEHOLDER", "SnippetFetcher", "EXCLUDED_CHIP", "FIRST_ROWS",
           "IdReader", "read_listing", "ROW_PLACEHOLDER", "RowFetcher", "Cell"]

#: Number of ids fetched together when a row is not cached.
BLOCK = 200
#: What the Title cell of a row shows while its row is being read (the other cells of
#: the row are empty meanwhile).
ROW_PLACEHOLDER = "…"
#: ``fetch(ids, deliver)``: read ``lib.papers.summaries(ids)`` somewhere off the UI
#: thread and call ``deliver({id: PaperSummary})`` in the UI thread (a paper missing
#: from the answer is no longer in the library).
RowFetcher = Callable[[list, Callable[[Mapping[int, PaperSummary]], None]], None]
#: Ids read first when a scope is listed through the id reader (a screenful or more;
#: the rest follow in a second read).
FIRST_ROWS = 200
#: ``read(fn, deliver, first)``: run ``fn(lib)`` somewhere off the UI thread and call
#: ``deliver(result)`` in the UI thread; ``first``: ahead of other queued reads (see
#: :meth:`PaperTableModel.set_id_reader`).
IdReader = Callable[[Callable[[Library], object], Callable[[object], None], bool], None]
#: The cache is emptied when it grows past this many rows.
CACHE_LIMIT = 20_000
#: Item data role giving the row's paper id.
PaperIdRole = Qt.ItemDataRole.UserRole + 1
#: Item data role of the Snippet column: ``(start, end)`` offsets of matched words in
#: the cell's display text (used by :class:`~paperdesk.ui.panes.snippet_delegate.SnippetDelegate`).
SpansRole = Qt.ItemDataRole.UserRole + 2
#: Item data role of the Title column: ``((name, "#rrggbb"), ...)`` of the paper's tags.
TagsRole = Qt.ItemDataRole.UserRole + 3
#: Item data role: whether the paper is starred.
StarredRole = Qt.ItemDataRole.UserRole + 4
#: Item data role: whether the paper has been read.
ReadRole = Qt.ItemDataRole.UserRole + 5
#: Item data role: whether the paper is excluded from the tag being screened (the
#: Title is then drawn muted; see :meth:`PaperTableModel.set_excluded`).
ExcludedRole = Qt.ItemDataRole.UserRole + 6
#: The chip an excluded paper shows after its tags: ``"✕ " + tag name``, in this grey.
EXCLUDED_CHIP = ("✕ ", "#9e9e9e")
#: Characters of context kept before the first matched word of a snippet cell.
SNIPPET_LEAD = 12
#: What a Snippet cell shows while its snippet is being cut.
SNIPPET_PLACEHOLDER = "…"
#: Snippets kept at most (the oldest are forgotten first; they are cut again if needed).
SNIPPET_CACHE_LIMIT = 5000
#: ``fetch(query, ids, deliver)``: cut the snippets of ``ids`` for ``query`` somewhere off
#: the UI thread and call ``deliver({id: (snippet, spans)})`` in the UI thread.
SnippetFetcher = Callable[[str, list, Callable[[dict], None]], None]
_FALLBACK_TAG_COLOUR = "#8a8a8a"
#: Above this many changed papers, :meth:`PaperTableModel.refresh_papers` drops the whole
#: cache instead of re-reading the rows one block at a time.
REFRESH_LIMIT = 2000


def _star_pixmap(colour: str | None) -> QPixmap:
    size = 16
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    if colour:
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        font = QFont()
        font.setPixelSize(15)
        painter.setFont(font)
        painter.setPen(QColor(colour))
        painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, "★")
        painter.end()
    return pixmap


def _star_icon(starred: bool, colour: str, selected_colour: str = "") -> QIcon:
    """A star in ``colour`` (in ``selected_colour`` on a selected row), or an empty
    icon of the same size (so titles stay aligned)."""
    icon = QIcon(_star_pixmap(colour if starred else None))
    if starred and selected_colour:
        icon.addPixmap(_star_pixmap(selected_colour), QIcon.Mode.Selected)
    return icon


def snippet_window(text: str, spans: Sequence[tuple[int, int]],
                   lead: int = SNIPPET_LEAD) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Cut the start of a snippet so its first matched word is visible in a narrow cell.

    Args:
        text: the snippet (plain text).
        spans: ``(start, end)`` offsets of matched words in ``text``.
        lead: characters of context to keep before the first match.
    Returns:
        ``(text, spans)``: the text, starting with "… " when cut (at a word boundary),
        and the spans shifted to match.
    """
    if not spans or spans[0][0] <= lead:
        return text, tuple(spans)
    cut = text.rfind(" ", 0, spans[0][0] - lead)
    if cut < 0:
        return text, tuple(spans)
    prefix = "… "
    shift = len(prefix) - (cut + 1)
    return prefix + text[cut + 1:], tuple((s + shift, e + shift) for s, e in spans)


def read_listing(lib: Library, scope: Scope, sort: str | None, descending: bool,
                 limit: int | None = None) -> tuple[list[int], "RowLookup"]:
    """Read the ids of a list and the lookup :meth:`PaperTableModel.row_of` needs, off
    the UI thread (the sort of a million ids alone takes about 0.1 s).

    Args:
        lib: the open library (the calling thread's connection).
        scope: what is listed.
        sort: a sortable field's name, or ``None`` for import order.
        descending: reverse that order.
        limit: at most this many ids, the first ones (``None``: all).
    Returns:
        ``(ids, (sorted ids, their rows))``: ids in list order, and a
        :class:`RowLookup`: the same ids sorted (``numpy.int64``) with the row of each
        (for a binary search), and in list order.
    Raises:
        As :meth:`paperdesk.core.papers.Papers.scope_ids`.
    """
    ids = lib.papers.scope_ids(scope, sort=sort, descending=descending, limit=limit)
    return ids, _row_lookup(ids)


class RowLookup(tuple):
    """``(sorted ids, their rows)`` (``numpy.int64`` arrays: a binary search per
    lookup; a dict of 100,000 took 16 ms of the UI thread), with the ids in list order
    as :attr:`in_order` (an ``int64`` array), which lets the UI thread compare a list
    read again with the one shown in a millisecond (two lists of a million Python
    integers: 40 ms)."""

    in_order: np.ndarray


#: Ids converted to an array this many at a time: between two chunks a thread waiting
#: for the interpreter lock (the UI thread, painting) gets it; ``numpy.fromiter`` over a
#: million ids holds it 30 ms in one call.
_ID_CHUNK = 65_536


def _id_array(ids: Sequence[int]) -> np.ndarray:
    """``ids`` as an ``int64`` array, converted :data:`_ID_CHUNK` at a time."""
    out = np.empty(len(ids), dtype=np.int64)
    for start in range(0, len(ids), _ID_CHUNK):
        chunk = ids[start:start + _ID_CHUNK]
        out[start:start + len(chunk)] = np.fromiter(chunk, dtype=np.int64, count=len(chunk))
    return out


def _row_lookup(ids: Sequence[int]) -> RowLookup:
    """The :class:`RowLookup` of ``ids`` (in list order)."""
    array = _id_array(ids)
    order = np.argsort(array, kind="stable")
    lookup = RowLookup((array[order], order))
    lookup.in_order = array
    return lookup


class Cell(NamedTuple):
    """What one cell of the list shows: everything its delegate paints, from one call
    (:meth:`PaperTableModel.cell`) instead of one ``data()`` call per role.

    Attributes:
        text: the literal text (``DisplayRole``), or ``None`` for an empty cell.
        bold: the paper is unread (``FontRole``: the bold font).
        star: the Title's star icon (``DecorationRole``), else ``None``.
        tags: the Title's tag chips, ``((name, colour "#rrggbb"), ...)`` (:data:`TagsRole`),
            else ``None``.
        excluded: the paper is excluded from the tag being screened (:data:`ExcludedRole`).
        spans: the Snippet's marked ``(start, end)`` offsets in ``text``
            (:data:`SpansRole`), else ``None``.
    """

    text: str | None = ""
    bold: bool = False
    star: QIcon | None = None
    tags: tuple[tuple[str, str], ...] | None = None
    excluded: bool = False
    spans: tuple[tuple[int, int], ...] | None = None


_EMPTY = Cell()

#: :meth:`PaperTableModel._summary` of a row still being read.
_PENDING = object()

_ROLES = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, SpansRole,
                    Qt.ItemDataRole.FontRole, Qt.ItemDataRole.DecorationRole, TagsRole,
                    StarredRole, ReadRole, ExcludedRole})


class PaperTableModel(QAbstractTableModel):
    """Rows are papers; columns are Title, Snippet, Added, First author, Year and Venue
    (the window hides the optional ones the user did not choose, and Snippet when not
    searching).

    Display text is always literal (Qt's DisplayRole is not interpreted as HTML), and
    tooltips are escaped. Unread papers are bold (FontRole); the Title column carries a
    star icon (DecorationRole) and the paper's tags with their colours (:data:`TagsRole`).
    Sort state (``sort_column``: -1 for the natural order, which is
    import order when listing and relevance when searching) survives :meth:`show_all`
    and :meth:`show_hits`.

    Signals:
        searchSortRequested(str, bool): ``(sort, descending)`` — while searching, a
            header click asked for another order (``"relevance"`` or a sortable
            column's field: ``"added"``, ``"title"``, ``"authors"``, ``"year"``,
            ``"venue"``); the owner runs the search again in that order.
        rowsDropped(int): the rows of papers that went (:meth:`drop_missing`) were
            removed, ``n`` of them (n > 0), in one or more ``rowsRemoved`` (one per run of
            adjacent rows; :attr:`dropping` is True meanwhile).

    Args:
        library: the open library (UI thread's connection): rows, ids and snippets are
            read through it only when no row fetcher, id reader or snippet fetcher is
            set (:meth:`set_row_fetcher`, :meth:`set_id_reader`,
            :meth:`set_snippet_fetcher`).
        parent: Qt parent.
    """

    TITLE, SNIPPET, ADDED, AUTHORS, YEAR, VENUE = range(6)
    #: What each column shows: a paper field (header, tooltip and sort key from
    #: :mod:`paperdesk.core.fields`) or ``None`` for the search snippet.
    #: After Year: the table-driven fields with a list column, in table order (Venue
    #: first).
    COLUMNS = (paper_field("title"), None, paper_field("added"), paper_field("authors"),
               paper_field("year"), *(f for f in stored_fields() if f.header))
    #: Column -> table-driven field name (read from ``PaperSummary.values``).
    _STORED_COLUMNS = {col: f.name for col, f in enumerate(COLUMNS) if f and f.stored}
    #: Column of each field with a list column, by field name.
    COLUMN_OF = {f.name: col for col, f in enumerate(COLUMNS) if f}
    HEADERS = tuple(f.header if f else "Snippet" for f in COLUMNS)
    #: Column -> sort key (field name) of each sortable column.
    ORDER_KEYS = {col: f.name for col, f in enumerate(COLUMNS) if f and f.sortable}
    _HEADER_TIPS = {col: f.header_tip if f else
                    "While searching: back to the best matches first"
                    for col, f in enumerate(COLUMNS)}

    searchSortRequested = Signal(str, bool)
    #: A header click (or any :meth:`sort`) left the "worth reading first" order.
    interestSortLeft = Signal()
    #: see the class docstring
    rowsDropped = Signal(int)

    def __init__(self, library: Library, parent=None):
        super().__init__(parent)
        self._lib = library
        self._ids: list[int] = []
        self._slow_free = SlowFree()     # old id lists, freed a slice at a time
        self._freeing = False
        # False until rows are first set: a sort before that (the header's, as the
        # table is built) only records the order, and the first listing uses it (one
        # query of every id at open instead of two: 0.1 s at 100,000 papers, 1 s at
        # a million).
        self._listed = False
        self._rows_of: tuple[np.ndarray, np.ndarray] | None = None   # see row_of
        self._cache: dict[int, PaperSummary | None] = {}
        self._snippets: Mapping[int, str] | None = None
        self._cells: dict[int, tuple[str, tuple[tuple[int, int], ...]]] = {}
        self._hits: list[SearchHit] | None = None
        self._query: str | None = None     # the query of the rows, while searching
        self._snippet_fetcher: SnippetFetcher | None = None
        self._row_fetcher: RowFetcher | None = None
        # ids whose row was asked for and not yet delivered -> the number of that ask
        # (an answer is kept only for the ids whose latest ask it is: an older one may
        # have been read before an edit, or before the list changed)
        self._rows_asked: dict[int, int] = {}
        self._row_asks = 0
        self._id_reader: IdReader | None = None
        # Each listing through the id reader is numbered; ids of an older one are
        # dropped. False while a listing's ids are still on their way.
        self._list_generation = 0
        self._complete = True
        self._reordering = False    # a header sort's ids on their way (listing)
        self._on_rows: Callable[[], None] | None = None       # see show_all
        self._listed_scope: Scope | None = None     # the scope last listed
        self._on_complete: Callable[[], None] | None = None
        self._snippets_asked: set[int] = set()
        # ids asked about by drop_missing and not answered -> the number of that ask
        self._drops_asked: dict[int, int] = {}
        self._drop_asks = 0
        self._dropping = False      # see dropping
        self._snippet_generation = 0
        self._scope = Scope()
        self._tag_colours: dict[str, str] = {}
        self._icons: dict[tuple[bool, str], QIcon] = {}
        self._bold: QFont | None = None
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        #: The list is in the "worth reading first" order (see :meth:`set_interest_sort`).
        self.interest_sort = False
        self._reasons: dict[int, tuple[str, ...]] = {}
        #: the tag being screened and the papers excluded from it (set_excluded)
        self._excluded_tag = ""
        self._excluded: frozenset[int] = frozenset()
        #: number of ``summaries`` calls (or blocks asked of the row fetcher) so far
        #: (for tests/diagnostics)
        self.fetch_count = 0
        #: number of snippet blocks asked for so far (for tests/diagnostics)
        self.snippet_fetch_count = 0

    # -- contents ----------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        """True when the rows are search hits."""
        return self._query is not None

    @property
    def source_id(self) -> int | None:
        """The source the rows are restricted to, or ``None`` for the whole library."""
        return self._scope.source_id

    @property
    def scope(self) -> Scope:
        """The :class:`~paperdesk.core.scope.Scope` the rows are restricted to."""
        return self._scope

    def set_tag_colours(self, colours: Mapping[str, str]) -> None:
        """Set the colours used for tag chips in the Title column.

        Args:
            colours: ``{tag name: "#rrggbb"}``; names are matched without regard to case.
        """
        colours = {name.casefold(): c for name, c in colours.items()}
        if colours == self._tag_colours:   # (no repaint of every row for nothing)
            return
        self._tag_colours = colours
        if self._ids:
            self.dataChanged.emit(self.index(0, self.TITLE),
                                  self.index(len(self._ids) - 1, self.TITLE))

    def set_excluded(self, tag_name: str, paper_ids) -> None:
        """Mark the papers excluded from the tag being screened: their Title is muted
        (:data:`ExcludedRole`) and ends in a grey "✕ tag" chip, and their tooltip says
        so. ``("", ())`` clears the marks (screening ended).

        Args:
            tag_name: the tag screened for.
            paper_ids: the papers excluded from it (any iterable of ids).
        """
        excluded = frozenset(int(p) for p in paper_ids)
        changed = excluded ^ self._excluded
        if tag_name != self._excluded_tag:
            changed = excluded | self._excluded
        self._excluded_tag, self._excluded = tag_name, excluded
        rows = self.rows_of(changed)
        if rows:
            self.dataChanged.emit(self.index(min(rows), self.TITLE),
                                  self.index(max(rows), self.TITLE))

    @property
    def complete(self) -> bool:
        """False while the ids of a listing are still being read (the rows shown are
        its first :data:`FIRST_ROWS`, or the list before it), or those of a header
        sort (the rows are in the old order until they come)."""
        return self._complete and not self._reordering

    def set_id_reader(self, read: IdReader | None) -> None:
        """Read the ids of a listing off the UI thread: ``read(fn, deliver, first)``
        must run ``fn(lib)`` on another thread (with that thread's connection) and call
        ``deliver(result)`` later in the UI thread (the window uses its reader thread);
        ``first`` is True for the read of the first rows, which should go ahead of
        other reads waiting. Without one (``None``), :meth:`show_all` and a sort read
        the ids themselves.
        """
        self._id_reader = read

    def set_snippet_fetcher(self, fetch: SnippetFetcher | None) -> None:
        """Cut snippets off the UI thread: ``fetch(query, ids, deliver)`` is called with a
        block of ids whose Snippet cells were asked for and must call
        ``deliver({id: (snippet, spans)})`` later in the UI thread (the window runs
        ``lib.search.snippets`` on its reader thread). Without one (``None``), the model
        calls ``lib.search.snippets`` itself.
        """
        self._snippet_fetcher = fetch

    def set_row_fetcher(self, fetch: RowFetcher | None) -> None:
        """Read the rows' data off the UI thread: ``fetch(ids, deliver)`` is called with
        a block of ids (at most :data:`BLOCK`) whose rows were asked for by ``data()``
        and must run ``lib.papers.summaries(ids)`` on another thread, then call
        ``deliver(found)`` (``{id: PaperSummary}``) later in the UI thread (the window
        uses its reader thread). Meanwhile those rows are drawn with a placeholder
        (:data:`ROW_PLACEHOLDER`); an answer that comes after the rows changed (another
        search or scope, an edit of one of its papers) is dropped. Without one
        (``None``), the model calls ``lib.papers.summaries`` itself.
        """
        self._row_fetcher = fetch

    def refresh_papers(self, paper_ids,
                       rows: Mapping[int, PaperSummary] | None = None) -> None:
        """Show the new rows of papers whose title, marks or tags changed.

        The rows stay where they are, even if the paper no longer passes the scope's
        filter (the list is re-filtered when the scope or the search changes). An answer
        of the row fetcher still on its way for these papers (it may have been read
        before the change) is dropped.

        Args:
            paper_ids: ids of changed papers (any iterable; unknown ids are ignored).
            rows: their rows read after the change (``{id: PaperSummary}``; an id of
                ``paper_ids`` missing from it is no longer in the library), e.g. by the
                thread that made it: shown at once. ``None``: the listed papers among
                them that are cached or on their way are read again (through the row
                fetcher when one is set: the old row stays on show until then).
        """
        ids = [pid for pid in dict.fromkeys(paper_ids) if self.row_of(pid) >= 0]
        if not ids:
            return
        if len(ids) > REFRESH_LIMIT:
            self._forget_rows()
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self._ids) - 1, len(self.HEADERS) - 1))
            return
        if rows is not None:
            for pid in ids:
                self._rows_asked.pop(pid, None)   # (an older answer is dropped)
                self._cache[pid] = rows.get(pid)
        else:
            self._ask_rows([pid for pid in ids
                            if pid in self._cache or pid in self._rows_asked])
        at = sorted(self.row_of(pid) for pid in ids)
        self.dataChanged.emit(self.index(at[0], 0),
                              self.index(at[-1], len(self.HEADERS) - 1))

    def drop_missing(self, paper_ids,
                     on_done: Callable[[int], None] | None = None) -> None:
        """Remove the rows of papers that are no longer in the library (deleted), keeping
        every other row, its place and the selection of the rows that stay.

        Which of them still exist is read in one ``summaries`` call, through the id
        reader (:meth:`set_id_reader`: off the UI thread, ahead of other reads; without
        one, here); the rows go when the answer comes. An answer about a paper asked
        about again since (undo put it back and it was asked again) is dropped for it.

        Args:
            paper_ids: ids that may have gone (any iterable; unlisted ids are ignored).
            on_done: ``on_done(removed)`` in the UI thread once the answer came and the
                rows went (``removed``: how many; called at once with 0 when none of
                ``paper_ids`` is listed).
        """
        listed = [pid for pid in dict.fromkeys(paper_ids) if self.row_of(pid) >= 0]
        if not listed:
            if on_done is not None:
                on_done(0)
            return
        self._drop_asks += 1
        ask = self._drop_asks
        for pid in listed:
            self._drops_asked[pid] = ask

        def deliver(alive) -> None:
            removed = self._drop_gone(ask, listed, alive)
            if on_done is not None:
                on_done(removed)

        self.fetch_count += 1
        if self._id_reader is None:
            deliver(frozenset(self._lib.papers.summaries(listed)))
        else:
            self._id_reader(lambda lib: frozenset(lib.papers.summaries(listed)), deliver,
                            True)

    def _drop_gone(self, ask: int, ids: list[int], alive) -> int:
        """The answer of :meth:`drop_missing` ask ``ask`` came (UI thread): remove the
        rows of ``ids`` not in ``alive`` whose latest ask this was; return how many."""
        mine = [pid for pid in ids if self._drops_asked.get(pid) == ask]
        for pid in mine:
            del self._drops_asked[pid]
        gone = sorted(r for r in (self.row_of(pid) for pid in mine if pid not in alive)
                      if r >= 0)
        # One removal per run of adjacent rows, not one per row: each removal makes the
        # view and the selection's listeners look at the whole selection again (Ctrl+A
        # then Del on 2,133 search hits took minutes, one row at a time).
        runs: list[list[int]] = []
        for row in gone:
            if runs and runs[-1][1] == row - 1:
                runs[-1][1] = row
            else:
                runs.append([row, row])
        self._dropping = True
        try:
            for first, last in reversed(runs):   # from the bottom up: the rows above
                self.beginRemoveRows(QModelIndex(), first, last)   # keep their numbers
                for pid in self._ids[first:last + 1]:
                    self._cache.pop(pid, None)
                    self._rows_asked.pop(pid, None)
                    self._cells.pop(pid, None)
                del self._ids[first:last + 1]
                self._rows_of = None
                self.endRemoveRows()
        finally:
            self._dropping = False
        if gone:
            self.rowsDropped.emit(len(gone))
        return len(gone)

    @property
    def dropping(self) -> bool:
        """True while the rows of papers that went (:meth:`drop_missing`) are being
        removed, one ``rowsRemoved`` per run of adjacent rows: a listener to the
        selection's changes can wait for :attr:`rowsDropped` (the selected rows leave
        the selection one run at a time meanwhile)."""
        return self._dropping

    def row_read(self, row: int) -> bool:
        """True when ``row``'s data is at hand (its cells are not placeholders); False
        while it is being read, before it is asked for (``data()`` asks), or when
        ``row`` is out of range."""
        pid = self.paper_id(row)
        return pid is not None and pid in self._cache

    def summary(self, paper_id: int) -> PaperSummary | None:
        """Return the cached row data of a listed paper, or ``None``: not listed, no
        longer in the library, or its row not read yet (it is then asked for, as when
        ``data()`` shows it)."""
        row = self.row_of(paper_id)
        summary = self._summary(row) if row >= 0 else None
        return None if summary is _PENDING else summary

    def set_ids(self, ids: Sequence[int], snippets: Mapping[int, str] | None = None,
                spans: Mapping[int, Sequence[tuple[int, int]]] | None = None) -> None:
        """Replace the rows (a model reset; the row cache is kept).

        Args:
            ids: paper ids in display order.
            snippets: ``{id: snippet}`` while searching; ``None`` when not searching
                (the Snippet column is then empty).
            spans: ``{id: [(start, end), ...]}`` matched words in each snippet.
        """
        self.beginResetModel()
        self._listed = True
        self.free_later(self._ids)
        self._ids = list(ids)
        self._rows_of = None
        self._snippets = dict(snippets) if snippets is not None else None
        self._cells = {
            pid: snippet_window(text, tuple((spans or {}).get(pid, ())))
            for pid, text in (snippets or {}).items()
        }
        self.endResetModel()

    def show_all(self, source_id: int | None = None, scope: Scope | None = None,
                 on_rows: Callable[[], None] | None = None,
                 on_complete: Callable[[], None] | None = None) -> None:
        """List every paper in the scope, in the current sort order.

        With an id reader (:meth:`set_id_reader`) the ids are read off the UI thread:
        the rows shown stay until the first :data:`FIRST_ROWS` ids arrive (a model
        reset), then the others are appended (``rowsInserted``); :attr:`complete` is
        False meanwhile. If the library changed between the two reads, the whole list
        replaces the rows (a reset) and ``on_rows`` runs again. Without a reader, the
        ids are read here and both callbacks run before this returns.

        Args:
            source_id: restrict to this source, or ``None`` for all (ignored when
                ``scope`` is given).
            scope: source, tag and filter to restrict to.
            on_rows: called (UI thread) once the first rows are in the model.
            on_complete: called (UI thread) once every id is; neither is called when
                another listing or a search replaced this one first.
        """
        self._start_listing(on_rows, on_complete, scope or Scope(source_id=source_id))

    def _enter_listing(self, scope: Scope) -> None:
        """The rows become ``scope``'s list (no longer a search's hits)."""
        self._hits = None
        self._query = None
        self._scope = scope
        self._forget_rows()
        self._reasons = {}

    def _start_listing(self, on_rows: Callable[[], None] | None,
                       on_complete: Callable[[], None] | None,
                       scope: Scope | None = None) -> None:
        # (``scope``: the scope to list; ``None``: the one listed, in another order.)
        # The rows (a search's hits included) stay what they are until the new ids
        # come. The same scope listed again while listing (an import's new papers, a
        # removal): one read of every id; else (at open, another scope, after a
        # search) the first rows first.
        scope = self._scope if scope is None else scope
        again = (self._listed and not self.searching and self._complete
                 and scope == self._listed_scope)
        self._list_generation += 1
        self._reordering = False
        self._listed_scope = scope
        if self._id_reader is None:
            self._enter_listing(scope)
            self._complete = True
            self._on_rows = self._on_complete = None
            self.set_ids(self._ordered_ids(), None)
            for callback in (on_rows, on_complete):
                if callback is not None:
                    callback()
            return
        generation = self._list_generation
        sort, descending = self._list_order()
        self._complete = False
        self._on_rows, self._on_complete = on_rows, on_complete

        def every(lib: Library):
            return read_listing(lib, scope, sort, descending)

        def first(lib: Library):
            return read_listing(lib, scope, sort, descending, FIRST_ROWS)

        if again:
            self._id_reader(every, lambda answer: self._all_rows(generation, answer,
                                                                 on_rows, scope), False)
            return
        self._id_reader(first, lambda result: self._first_rows(
            generation, scope, result, every, on_rows), True)

    def _first_rows(self, generation: int, scope: Scope, result, every, on_rows) -> None:
        """The first ids of a listing arrived (UI thread): show them, then read all."""
        if generation != self._list_generation:
            return      # another listing or a search by now
        ids, lookup = result
        self._enter_listing(scope)
        self.set_ids(ids, None)
        self._rows_of = lookup
        self._on_rows = None
        if on_rows is not None:
            on_rows()
        if generation != self._list_generation:
            return      # (on_rows listed or searched again)
        if len(ids) < FIRST_ROWS:
            self._finish_listing()
            return
        self._id_reader(every, lambda answer: self._all_rows(generation, answer, on_rows),
                        False)

    def _all_rows(self, generation: int, result, on_rows,
                  scope: Scope | None = None) -> None:
        """Every id of a listing arrived (UI thread): append those below the rows shown
        when these are its first ones (or the same list before new papers were
        stored); else show them all (a reset) and run ``on_rows`` (again). ``scope``:
        the same list read again in one go (its cached rows are kept)."""
        if generation != self._list_generation:
            return
        ids, lookup = result
        shown = len(self._ids)
        if scope is not None:   # the same list again: its cached rows stay valid
            self._scope, self._reasons = scope, {}
        before = self._rows_of
        if isinstance(before, RowLookup) and isinstance(lookup, RowLookup) \
                and len(before.in_order) == shown:
            # the arrays of both lists (the UI thread compares a million ids in 1 ms)
            head = len(ids) >= shown and np.array_equal(lookup.in_order[:shown],
                                                        before.in_order)
            appended, same = head and len(ids) > shown, head and len(ids) == shown
        else:
            appended = len(ids) > shown and ids[:shown] == self._ids
            same = not appended and ids == self._ids
        if appended:
            self.beginInsertRows(QModelIndex(), shown, len(ids) - 1)
            self._ids = ids
            self._rows_of = lookup
            self.endInsertRows()
        elif not same:      # another list (or the library changed since)
            self.set_ids(ids, None)
            self._rows_of = lookup
        if on_rows is not None and (self._on_rows is not None or not appended):
            self._on_rows = None
            on_rows()
            if generation != self._list_generation:
                return
        self._finish_listing()

    def _finish_listing(self) -> None:
        self._complete = True
        self._on_rows = None
        on_complete, self._on_complete = self._on_complete, None
        if on_complete is not None:
            on_complete()

    def _stop_listing(self) -> None:
        """Drop any listing still on its way (a search or a clear replaces the rows)."""
        self._list_generation += 1
        self._complete = True
        self._reordering = False
        self._on_rows = self._on_complete = None

    def show_hits(self, hits: Sequence[SearchHit], source_id: int | None = None,
                  scope: Scope | None = None) -> None:
        """List search hits in the order given (the search did any sorting).

        Args:
            hits: from ``lib.search.find``, best first or in the requested sort order.
            source_id: the source the search was restricted to (ignored when ``scope``
                is given).
            scope: the scope the search was restricted to.
        """
        hits = list(hits)
        self._show_search("", [h.id for h in hits], hits, scope or Scope(source_id=source_id))

    def show_results(self, results: SearchResults, scope: Scope | None = None) -> None:
        """List every match of a search: ``results.ids`` in their order (the search did
        any sorting), with the snippets of ``results.hits`` (the first rows); the other
        rows' snippets are cut when they are shown (see :meth:`set_snippet_fetcher`).

        Args:
            results: from ``lib.search.find`` (``ids`` all matches, ``hits`` the first).
            scope: the scope the search was restricted to.
        """
        ids = results.id_list   # (made on the search thread)
        if not ids and results.hits:   # results built without ids (all hits are rows)
            ids = [h.id for h in results.hits]
            self._show_search(results.query, ids, list(results.hits), scope or Scope())
            return
        self._show_search(results.query, ids, list(results.hits), scope or Scope())
        # the rows' lookup (row_of): the search thread sorted it (results.positions)
        self._rows_of = results.positions

    def extend_results(self, results: SearchResults) -> bool:
        """Add the rest of a search's matches below the rows listed, when they are its
        best matches already (the search thread ranks the first page, then all:
        :meth:`SearchResults.complete` keeps them first): the rows listed stay, with
        their cached rows, snippets and the selection, and are not painted again.

        Args:
            results: the complete results of the query listed.
        Returns:
            True when the rows were added; False (nothing changed) when the rows listed
            are not the start of ``results.ids`` (then :meth:`show_results`).
        """
        if self._hits is None or self._query != results.query:
            return False
        ids = results.ids
        n = len(self._ids)
        if len(ids) < n or (n and not np.array_equal(np.asarray(ids[:n], dtype=np.int64),
                                                     np.asarray(self._ids, dtype=np.int64))):
            return False
        if len(ids) > n:
            self.beginInsertRows(QModelIndex(), n, len(ids) - 1)
            self._ids.extend(results.id_list[n:])   # (made on the search thread)
            self._rows_of = results.positions
            self.endInsertRows()
        return True

    def _show_search(self, query: str, ids: list[int], hits: list[SearchHit],
                     scope: Scope) -> None:
        self._stop_listing()
        self._hits = hits
        self._query = query
        self._scope = scope
        self._forget_rows()
        self._reasons = {}
        self._snippet_generation += 1
        self._snippets_asked = set()
        self.set_ids(ids, {h.id: h.snippet for h in hits}, self._spans())

    def clear(self) -> None:
        """Show no rows and forget cached rows (used before the library closes)."""
        self._stop_listing()
        self._hits = None
        self._query = None
        self._forget_rows()
        self.set_ids([], None)

    def paper_id(self, row: int) -> int | None:
        """Return the paper id shown in ``row``, or ``None`` if out of range."""
        if 0 <= row < len(self._ids):
            return self._ids[row]
        return None

    def row_of(self, paper_id: int | None) -> int:
        """Return the row showing ``paper_id``, or -1 if it is not listed."""
        if paper_id is None:
            return -1
        if self._rows_of is None:
            # Sorted ids and their rows: a binary search per lookup. Built once per list
            # (a few ms at 100,000 rows, in numpy; a dict took 16 ms of the UI thread);
            # a listing through the id reader brings it built (read_listing).
            self._rows_of = _row_lookup(self._ids)
        keys, rows = self._rows_of
        try:
            at = int(np.searchsorted(keys, int(paper_id)))
        except (OverflowError, TypeError, ValueError):
            return -1
        return int(rows[at]) if at < len(keys) and keys[at] == paper_id else -1

    def free_later(self, ids) -> None:
        """Let go of a list of ids the rows no longer use (or a search's results whose
        rows are gone), freed a slice at a time when the UI thread is idle
        (:class:`~paperdesk.core.collector.SlowFree`: a million ids freed at once held
        the interpreter lock 15 ms).

        Args:
            ids: a list the caller lets go of (anything else is simply let go of).
        """
        if self._slow_free.drop(ids) and not self._freeing:
            self._freeing = True
            QTimer.singleShot(0, self._free_step)

    def _free_step(self) -> None:
        if self._slow_free.step():
            QTimer.singleShot(0, self._free_step)
        else:
            self._freeing = False

    def rows_of(self, paper_ids) -> list[int]:
        """The rows showing ``paper_ids`` (those listed; in no particular order), with
        one binary search over them all: a block of 200 delivered snippets or rows
        looked up one :meth:`row_of` at a time cost the UI thread 5-10 ms at a million
        listed papers.

        Args:
            paper_ids: paper ids (any iterable of ints).
        Returns:
            The rows of those listed, as Python ints.
        """
        wanted = np.fromiter((int(p) for p in paper_ids), np.int64)
        if not len(wanted) or not self._ids:
            return []
        if self._rows_of is None:
            self._rows_of = _row_lookup(self._ids)
        keys, rows = self._rows_of
        if not len(keys):
            return []
        at = np.searchsorted(keys, wanted)
        inside = at < len(keys)
        at, wanted = at[inside], wanted[inside]
        found = keys[at] == wanted
        return np.asarray(rows)[at[found]].tolist()

    def ids(self) -> list[int]:
        """Return a copy of the listed ids in display order."""
        return list(self._ids)

    def listed_ids(self) -> Sequence[int]:
        """The listed ids in display order without a copy (a million ids: 10 ms of the
        UI thread to copy): an ``int64`` array when the rows came from a listing read
        off the UI thread, else the model's own list. Read it, never change it; the
        model replaces it when the rows change (a removal may shorten the list)."""
        lookup = self._rows_of
        if isinstance(lookup, RowLookup) and len(lookup.in_order) == len(self._ids):
            return lookup.in_order
        return self._ids

    def snippet(self, paper_id: int) -> str:
        """Return the search snippet of ``paper_id`` ("" when not searching)."""
        return (self._snippets or {}).get(paper_id, "")

    # -- Qt model interface ------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt)
        """Number of listed papers (0 under a valid parent: this is a flat table)."""
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        """Six columns: Title, Snippet, Added, First author, Year, Venue."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        """Column titles and what clicking them does (tooltips); row numbers are not
        shown. While searching in relevance order the Snippet column says so."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if section == self.SNIPPET and self.searching \
                    and self.search_sort()[0] == "relevance":
                return "Snippet  ·  best matches first"
            if section == self.TITLE and self.interest_sort:
                return "Title  ·  worth reading first"
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._HEADER_TIPS.get(section)
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        """Cell text (literal), escaped tooltips, and the paper id under :data:`PaperIdRole`.

        What a cell paints comes from :meth:`cell` (the list's delegates call that
        directly, once per cell); ``data()`` answers the same from it, role by role."""
        if not index.isValid() or not 0 <= index.row() < len(self._ids):
            return None
        if role == PaperIdRole:
            return self._ids[index.row()]
        if role not in _ROLES:
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(row, col)
        if role in (StarredRole, ReadRole, ExcludedRole):
            if col == self.SNIPPET:
                return None
            summary = self._summary(row)
            if summary is _PENDING or summary is None:
                return None
            if role == StarredRole:
                return summary.starred
            if role == ReadRole:
                return summary.read
            return bool(self._excluded) and self._ids[row] in self._excluded
        cell = self.cell(row, col)
        if role == Qt.ItemDataRole.DisplayRole:
            return cell.text
        if role == Qt.ItemDataRole.FontRole:
            return self._bold_font() if cell.bold else None
        if role == Qt.ItemDataRole.DecorationRole:
            return cell.star
        if role == TagsRole:
            return cell.tags
        return cell.spans                                   # SpansRole

    def cell(self, row: int, col: int) -> Cell:
        """What the cell at ``(row, col)`` shows, for its delegate to paint (one call per
        cell: a screenful of the list is painted in about 150 such calls instead of
        1,500 ``data()`` calls, each of which takes the interpreter lock back from the
        search thread).

        A row not read yet is asked for (a block around it, see :meth:`_summary`) and
        shows a placeholder meanwhile; a Snippet not cut yet is asked for likewise.

        Args:
            row: ``0 <= row < rowCount()``.
            col: one of the column numbers (``TITLE`` ... ``VENUE``).
        Returns:
            The :class:`Cell`.
        Raises:
            IndexError: ``row`` is not a row of the list.
        """
        pid = self._ids[row]
        if col == self.SNIPPET:
            snippet = self._cells.get(pid)
            if snippet is None:
                if not self.searching:
                    return _EMPTY
                if pid not in self._snippets_asked:   # else it is on its way
                    self._ask_snippets(row)
                snippet = self._cells.get(pid)   # a fetcher may answer at once
                if snippet is None:
                    return Cell(SNIPPET_PLACEHOLDER)
            return Cell(bidi_visible(snippet[0]), spans=snippet[1])
        summary = self._summary(row)
        if summary is _PENDING:    # being read (the row is repainted when it comes)
            if col == self.TITLE:
                return Cell(ROW_PLACEHOLDER, star=self._star(False))  # (where it will be)
            return _EMPTY
        if summary is None:
            return Cell("(no longer in the library)")
        bold = not summary.read
        if col == self.TITLE:
            excluded = bool(self._excluded) and pid in self._excluded
            chips = tuple((name, self._tag_colours.get(name.casefold(), _FALLBACK_TAG_COLOUR))
                          for name in summary.tags)
            if excluded:
                chips += ((EXCLUDED_CHIP[0] + self._excluded_tag, EXCLUDED_CHIP[1]),)
            title = bidi_visible(readable_math(summary.title)) if summary.title \
                else NO_TITLE                                           # "D → 4"
            return Cell(title, bold, self._star(summary.starred), chips, excluded)
        if col == self.ADDED:
            return Cell(local_date(summary.added_at), bold)
        text = self._plain_text(summary, col)
        return Cell(None if text is None else bidi_visible(text), bold)

    def _plain_text(self, summary: PaperSummary, col: int) -> str | None:
        """The text of a First author, Year or table-driven column (not made visible)."""
        if col in self._STORED_COLUMNS:
            return summary.value(self._STORED_COLUMNS[col])
        return {self.AUTHORS: summary.first_author,
                self.YEAR: str(summary.year) if summary.year else ""}.get(col)

    def _tooltip(self, row: int, col: int) -> str | None:
        """A cell's tooltip (escaped: shown as text)."""
        pid = self._ids[row]
        if col == self.SNIPPET:
            if pid not in self._cells:
                return None
            return tooltip_html(self.snippet(pid))
        summary = self._summary(row)
        if summary is _PENDING or summary is None:
            return None
        if col == self.TITLE:
            excluded = bool(self._excluded) and pid in self._excluded
            extra = []
            if summary.starred:
                extra.append("★ starred")
            if summary.tags:
                extra.append("Tags: " + ", ".join(summary.tags))
            if summary.has_note:
                extra.append("Has a note")
            extra.append("Read" if summary.read else "Unread")
            if excluded:
                extra.append(f"Excluded from ‘{self._excluded_tag}’")
            text = readable_math(summary.title) + "\n" + "  ·  ".join(extra)
            if self._reasons.get(pid):
                text += "\nWorth reading first, up: " + ", ".join(self._reasons[pid])
            return tooltip_html(text)
        if col == self.ADDED:
            return tooltip_html("Added " + local_datetime(summary.added_at))
        text = self._plain_text(summary, col)
        if text:
            return tooltip_html(f"{self.HEADERS[col]}: {text}")
        return None

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        """Re-order rows; selection follows the papers (persistent indexes are moved).

        While searching, nothing is re-ordered here: :attr:`searchSortRequested` asks the
        owner to search again in the new order (the rows change when the hits arrive).

        Args:
            column: a sortable column (``TITLE``, ``ADDED``, ``AUTHORS``, ``YEAR``,
                ``VENUE``); any other value (``SNIPPET``, -1) restores the natural
                order: import order when listing, relevance when searching.
            order: ascending or descending.
        """
        self.sort_column, self.sort_order = column, order
        if self.interest_sort:
            self.interest_sort = False
            self._reasons = {}
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, self.TITLE, self.TITLE)
            self.interestSortLeft.emit()
        if self.searching:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, self.SNIPPET, self.SNIPPET)
            self.searchSortRequested.emit(*self.search_sort())
            return
        if self._id_reader is not None and not self._complete:
            # a listing still on its way: read it again in the new order (its first
            # rows' callback, if they are not shown yet, comes with it)
            self._start_listing(self._on_rows, self._on_complete, self._listed_scope)
            return
        if not self._listed:
            return
        if self._id_reader is not None:
            self._reorder_later()
            return
        self._reorder(self._ordered_ids(), None)

    def _reorder(self, new_ids: list[int], lookup) -> None:
        """Show the listed papers in the order ``new_ids`` (selection follows them)."""
        if new_ids == self._ids:
            return
        if len(new_ids) != len(self._ids):  # the library changed: not a pure re-ordering
            self.set_ids(new_ids, self._snippets, self._spans())
            self._rows_of = lookup
            return
        self._move_rows(new_ids, lookup)

    def _reorder_later(self) -> None:
        """A header sort while listing: read the scope's ids in the new order on the id
        reader, then move the rows (the rows stay as they are meanwhile)."""
        self._list_generation += 1
        self._reordering = True
        generation, scope = self._list_generation, self._scope
        sort, descending = self._list_order()

        def deliver(result) -> None:
            if generation == self._list_generation:
                self._reordering = False
                self._reorder(*result)

        self._id_reader(lambda lib: read_listing(lib, scope, sort, descending), deliver,
                        False)

    def set_interest_sort(self, on: bool) -> None:
        """Choose (or leave) the "worth reading first" order. The model itself never
        computes it (a model fitted over the term table: the window asks its reader
        thread, then calls :meth:`set_order`); until then the rows stay in the natural
        order (date added when listing). While searching, :meth:`search_sort` asks for
        ``"interest"``. Clears the sort column.

        Args:
            on: True for the interest order.
        """
        self.interest_sort = bool(on)
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder
        if not on:
            self._reasons = {}
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, self.TITLE, self.TITLE)

    def set_order(self, ids: Sequence[int], reasons: Mapping[int, Sequence[str]]) -> bool:
        """Put the listed rows in another order (selection follows the papers) and keep
        the words that moved each paper up (shown in the Title cell's tooltip).

        Args:
            ids: the listed ids, every one of them, in the new order.
            reasons: ``{id: terms}`` (from ``InterestOrder.reasons``).
        Returns:
            False (nothing changed) when ``ids`` are not the listed papers (the list
            changed since the order was asked for).
        """
        ids = list(ids)
        if len(ids) != len(self._ids) or set(ids) != set(self._ids):
            return False
        self._reasons = {int(k): tuple(v) for k, v in reasons.items()}
        if ids != self._ids:
            self._move_rows(ids)
        elif ids:
            self.dataChanged.emit(self.index(0, self.TITLE),
                                  self.index(len(ids) - 1, self.TITLE))
        return True

    def set_reasons(self, reasons: Mapping[int, Sequence[str]]) -> None:
        """Keep the words that moved each listed paper up (search results sorted by
        interest arrive in order; only these are new)."""
        self._reasons = {int(k): tuple(v) for k, v in reasons.items()}

    def reasons(self, paper_id: int) -> tuple[str, ...]:
        """The words that moved ``paper_id`` up in the interest order (``()`` when none
        or not in that order)."""
        return self._reasons.get(paper_id, ())

    def _move_rows(self, new_ids: list[int], lookup=None) -> None:
        """Re-order the rows to ``new_ids`` (the same ids), moving persistent indexes
        (``lookup``: :func:`read_listing`'s, if it was read with them)."""
        self.layoutAboutToBeChanged.emit()
        old_indexes = self.persistentIndexList()
        old_ids = [self.paper_id(i.row()) for i in old_indexes]
        self.free_later(self._ids)
        self._ids = new_ids
        self._rows_of = lookup
        new_indexes = []
        for idx, pid in zip(old_indexes, old_ids):
            row = self.row_of(pid)
            new_indexes.append(self.index(row, idx.column()) if row >= 0 else QModelIndex())
        self.changePersistentIndexList(old_indexes, new_indexes)
        self.layoutChanged.emit()

    def reset_sort(self) -> None:
        """Forget the sort column (next :meth:`show_all`/:meth:`show_hits` use the
        natural order) without re-ordering the current rows."""
        self.sort_column = -1
        self.sort_order = Qt.SortOrder.AscendingOrder

    def search_sort(self) -> tuple[str, bool]:
        """Return the order to ask ``lib.search.find`` for: ``(sort, descending)`` with sort
        ``"relevance"`` or the sort column's field name (``"added"``, ``"year"`` ...)."""
        key = self.ORDER_KEYS.get(self.sort_column)
        if key is None:
            return ("interest" if self.interest_sort else "relevance"), False
        return key, self.sort_order == Qt.SortOrder.DescendingOrder

    # -- internals ---------------------------------------------------------------------
    def _list_order(self) -> tuple[str | None, bool]:
        """``(sort, descending)`` of a listing: the sort column's field or ``None``."""
        key = self.ORDER_KEYS.get(self.sort_column)
        return key, key is not None and self.sort_order == Qt.SortOrder.DescendingOrder

    def _ordered_ids(self) -> list[int]:
        key, descending = self._list_order()
        if not self.searching:
            return self._lib.papers.scope_ids(self._scope, sort=key, descending=descending)
        return list(self._ids)   # already in the requested order

    def _star(self, starred: bool) -> QIcon:
        # The star's colour follows the palette (light or dark appearance).
        palette = QGuiApplication.palette()
        colour = reading_colours(palette).star if starred else ""
        icon = self._icons.get((starred, colour))
        if icon is None:
            on_selection = palette.color(QPalette.ColorRole.HighlightedText).name()
            icon = self._icons[(starred, colour)] = _star_icon(starred, colour, on_selection)
        return icon

    def _bold_font(self) -> QFont:
        if self._bold is None:
            self._bold = QFont()
            self._bold.setBold(True)
        return self._bold

    def _spans(self) -> dict[int, tuple[tuple[int, int], ...]]:
        return {h.id: h.snippet_spans for h in self._hits or ()}

    def _ask_snippets(self, row: int) -> None:
        """Ask for the snippets of the block of rows holding ``row`` (blocks of
        :data:`BLOCK` rows from the top, so a screenful asks once or twice) that have
        none yet."""
        lo = row - row % BLOCK
        block = [i for i in self._ids[lo:lo + BLOCK]
                 if i not in self._cells and i not in self._snippets_asked]
        if not block:
            return
        self._snippets_asked.update(block)
        self.snippet_fetch_count += 1
        generation, query = self._snippet_generation, self._query or ""

        def deliver(found: Mapping[int, tuple[str, Sequence[tuple[int, int]]]]) -> None:
            self._on_snippets(generation, block, found)

        if self._snippet_fetcher is None:
            deliver(self._lib.search.snippets(query, block))
        else:
            self._snippet_fetcher(query, block, deliver)

    def _on_snippets(self, generation: int, block: list[int],
                     found: Mapping[int, tuple[str, Sequence[tuple[int, int]]]]) -> None:
        """Snippets arrived (UI thread): keep them and repaint their cells."""
        if generation != self._snippet_generation:
            return   # the rows are another search's by now
        if len(self._cells) + len(block) > SNIPPET_CACHE_LIMIT:
            first = {h.id for h in self._hits or ()}
            self._cells = {k: v for k, v in self._cells.items() if k in first}
            self._snippets = {k: v for k, v in (self._snippets or {}).items() if k in first}
            self._snippets_asked = set()
        snippets = self._snippets if self._snippets is not None else {}
        for pid in block:
            text, spans = found.get(pid, ("", ()))
            snippets[pid] = text
            self._cells[pid] = snippet_window(text, tuple(spans))
        self._snippets = snippets
        rows = self.rows_of(block)
        if rows:
            self.dataChanged.emit(self.index(min(rows), self.SNIPPET),
                                  self.index(max(rows), self.SNIPPET))

    def _fetch(self, ids: Sequence[int]) -> dict[int, PaperSummary]:
        """Read rows here, in the calling thread (an edit's rows, see
        :meth:`refresh_papers`; every row when no row fetcher is set)."""
        self.fetch_count += 1
        return self._lib.papers.summaries(ids)

    def _forget_rows(self) -> None:
        """Empty the row cache; answers on their way are dropped when they come."""
        self._cache.clear()
        self._rows_asked = {}

    def _summary(self, row: int):
        """The row's :class:`PaperSummary`; ``None``: the paper is no longer in the
        library; :data:`_PENDING`: being read (asked for now if it was not yet)."""
        pid = self._ids[row]
        if pid in self._cache:
            return self._cache[pid]
        if pid not in self._rows_asked:
            lo = max(0, row - BLOCK // 2)
            self._ask_rows([i for i in self._ids[lo:lo + BLOCK]
                            if i not in self._cache and i not in self._rows_asked])
            if pid in self._cache:      # a fetcher (or none) may answer at once
                return self._cache[pid]
        return _PENDING

    def _ask_rows(self, ids: list[int]) -> None:
        """Ask for the rows of ``ids`` (the row fetcher's thread, else here); an earlier
        ask of any of them still on its way no longer counts for them."""
        if not ids:
            return
        self._row_asks += 1
        ask = self._row_asks
        for pid in ids:
            self._rows_asked[pid] = ask
        self.fetch_count += 1
        if self._row_fetcher is None:
            self._rows_arrived(ask, ids, self._lib.papers.summaries(ids), repaint=False)
            return
        answered_at_once = True

        def deliver(found: Mapping[int, PaperSummary]) -> None:
            self._rows_arrived(ask, ids, found, repaint=not answered_at_once)

        self._row_fetcher(list(ids), deliver)
        answered_at_once = False

    def _rows_arrived(self, ask: int, ids: list[int], found: Mapping[int, PaperSummary],
                      repaint: bool = True) -> None:
        """Rows arrived (UI thread): keep those whose latest ask this was (a paper
        missing from ``found`` is gone: its row says so) and repaint them."""
        fresh = [pid for pid in ids if self._rows_asked.get(pid) == ask]
        if not fresh:
            return      # another list by now, or asked again since (an edit)
        if len(self._cache) + len(fresh) > CACHE_LIMIT:
            self._cache.clear()
        for pid in fresh:
            del self._rows_asked[pid]
            self._cache[pid] = found.get(pid)
        if not repaint:
            return
        rows = self.rows_of(fresh)
        if rows:
            self.dataChanged.emit(self.index(min(rows), 0),
                                  self.index(max(rows), len(self.HEADERS) - 1))
