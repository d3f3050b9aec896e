"""The library overview (View ▸ Overview): papers per source file, per tag and per week
added, read versus unread, and the most frequent key terms, counted in SQL.

Weeks follow ISO 8601 (Monday to Sunday) in local time, the time the paper list shows:
a paper's day is SQLite's ``date(added_at, 'localtime')``, the same expression the
query language's ``added:`` filter uses (:meth:`paperdesk.core.scope.ScopeMasks.added`),
so a week's bar and the list it opens always agree. Every week from the first to the
last with additions is listed, empty ones included (a true time axis), but at most
:data:`MAX_WEEKS`, ending with the last week anything was added: papers added before
the first week shown are summed in :attr:`Overview.earlier` (the chart shows them as one
"Earlier" bar). A paper whose ``added_at`` is not a date SQLite reads (an import of a
hand-edited JSON file) is counted in :attr:`Overview.undated` only.

Cost at 100,000 papers (the bench library): about 90 ms in all, each count one indexed
scan (about 0.4 s the first time, when the term table is loaded and checked against
SQLite); the key terms come from the term table (:meth:`paperdesk.core.discover.engine.
Discover.frequent_terms`), which this module never builds.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paperdesk.core.discover.models import TermsNotReady

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["Overview", "SourceCount", "TagCount", "WeekCount", "TermCount", "overview",
           "added_query", "MAX_WEEKS", "TERMS", "TERMS_NOTE", "DAY_SQL"]

#: Most weeks listed (about a year); older additions are summed in ``earlier``.
MAX_WEEKS = 52
#: Key terms listed.
TERMS = 15
#: What the overview says while the term table is not built.
TERMS_NOTE = "Key terms appear once the term table is built"
#: The local day a paper was added, as SQL on ``papers`` (``YYYY-MM-DD`` or NULL).
DAY_SQL = "date(added_at, 'localtime')"


@dataclass(frozen=True)
class SourceCount:
    """One imported file: ``source_id``, ``name`` (file name, as imported) and
    ``papers`` (distinct papers from it, as the sidebar counts them)."""

    source_id: int
    name: str
    papers: int


@dataclass(frozen=True)
class TagCount:
    """One tag: ``tag_id``, ``name``, ``colour`` (``#rrggbb``) and ``papers`` with it."""

    tag_id: int
    name: str
    colour: str
    papers: int


@dataclass(frozen=True)
class WeekCount:
    """One ISO 8601 week: ``start`` (its Monday, a local date) and ``papers`` added in it
    (local time)."""

    start: _dt.date
    papers: int

    @property
    def end(self) -> _dt.date:
        """The week's Sunday."""
        return self.start + _dt.timedelta(days=6)

    @property
    def label(self) -> str:
        """``"2026-W48"``: ISO year and week number."""
        year, week, _day = self.start.isocalendar()
        return f"{year}-W{week:02d}"

    @property
    def query(self) -> str:
        """The query listing the week's papers: ``added:2026-11-23..2026-11-29``."""
        return added_query(self.start, self.end)


@dataclass(frozen=True)
class TermCount:
    """One key term: ``term`` (as the term table has it) and ``papers`` that have it
    among their heaviest terms."""

    term: str
    papers: int


@dataclass(frozen=True)
class Overview:
    """What a library holds, for the overview's charts.

    Attributes:
        papers: papers in the library.
        read: papers marked read (``read_at`` set).
        unread: the others (``papers - read``).
        sources: every imported file, most papers first (ties by name, then id).
        tags: every tag, most papers first (ties by name without regard to case).
        weeks: consecutive weeks, oldest first, at most :data:`MAX_WEEKS`, the last one
            the last week with additions (``()`` for an empty library).
        earlier: papers added before ``weeks[0].start`` (0 when all weeks are listed).
        undated: papers whose ``added_at`` is not a readable date (in no week).
        terms: the :data:`TERMS` most frequent key terms, most papers first, or ``None``
            when the term table is not built yet (then ``terms_note`` says so).
        terms_note: ``""``, or a one-line note for the key-terms chart.
    """

    papers: int
    read: int
    unread: int
    sources: tuple[SourceCount, ...]
    tags: tuple[TagCount, ...]
    weeks: tuple[WeekCount, ...]
    earlier: int
    undated: int
    terms: tuple[TermCount, ...] | None
    terms_note: str = ""

    @property
    def earlier_query(self) -> str:
        """The query listing the papers of :attr:`earlier` (``added:..2025-11-30``), or
        ``""`` when there are none."""
        if not self.earlier or not self.weeks:
            return ""
        return added_query(None, self.weeks[0].start - _dt.timedelta(days=1))


def added_query(first: _dt.date | None, last: _dt.date | None) -> str:
    """The query-language filter for papers added from ``first`` to ``last`` (local
    dates, both included; ``None``: open).

    Args:
        first: first day, or ``None``.
        last: last day, or ``None``.
    Returns:
        E.g. ``"added:2026-11-23..2026-11-29"``, ``"added:..2025-11-30"``,
        ``"added:2026-11-23"`` for one day.
    Raises:
        ValueError: both are ``None``.
    """
    if first is None and last is None:
        raise ValueError("an added: range needs a first or a last day")
    if first is not None and first == last:
        return f"added:{first.isoformat()}"
    low = first.isoformat() if first is not None else ""
    high = last.isoformat() if last is not None else ""
    return f"added:{low}..{high}"


def _weeks(days: list[tuple[str | None, int]]) -> tuple[tuple[WeekCount, ...], int, int]:
    """``(weeks, earlier, undated)`` from ``[(local day or None, papers)]``."""
    per_week: dict[_dt.date, int] = {}
    undated = 0
    for day, n in days:
        try:
            value = _dt.date.fromisoformat(day) if day else None
        except ValueError:
            value = None
        if value is None:
            undated += n
            continue
        monday = value - _dt.timedelta(days=value.weekday())
        per_week[monday] = per_week.get(monday, 0) + n
    if not per_week:
        return (), 0, undated
    last = max(per_week)
    first = max(min(per_week), last - _dt.timedelta(weeks=MAX_WEEKS - 1))
    earlier = sum(n for monday, n in per_week.items() if monday < first)
    count = (last - first).days // 7 + 1
    weeks = tuple(WeekCount(first + _dt.timedelta(weeks=i),
                            per_week.get(first + _dt.timedelta(weeks=i), 0))
                  for i in range(count))
    return weeks, earlier, undated


def overview(lib: "Library", terms: bool = True) -> Overview:
    """Count what the library holds (SQL only; the key terms from the term table).

    Call it off the UI thread (the window runs it on its reader thread). It never builds
    the term table: when the table is not built (or too far behind the library),
    ``terms`` is ``None`` and ``terms_note`` is :data:`TERMS_NOTE`; a caller that wants
    the terms runs :meth:`~paperdesk.core.discover.engine.Discover.ensure` on a thread of
    its own and asks again.

    Args:
        lib: the open library (read only; a read-only library works too).
        terms: also list the key terms (False: ``terms`` is ``None``, no note).
    Returns:
        An :class:`Overview`.
    Raises:
        sqlite3.Error: the database cannot be read.
    """
    db = lib.db
    papers, read = db.execute(
        "SELECT count(*), count(read_at) FROM papers").fetchone()
    sources = [SourceCount(*r) for r in db.execute(
        "SELECT s.id, s.name, count(DISTINCT ps.paper_id) AS n FROM sources s "
        "LEFT JOIN paper_sources ps ON ps.source_id = s.id GROUP BY s.id")]
    sources.sort(key=lambda s: (-s.papers, s.name.casefold(), s.source_id))
    tags = [TagCount(*r) for r in db.execute(
        "SELECT t.id, t.name, t.colour, count(pt.paper_id) FROM tags t "
        "LEFT JOIN paper_tags pt ON pt.tag_id = t.id GROUP BY t.id")]
    tags.sort(key=lambda t: (-t.papers, t.name.casefold(), t.tag_id))
    weeks, earlier, undated = _weeks(db.execute(
        f"SELECT {DAY_SQL} AS day, count(*) FROM papers GROUP BY day").fetchall())
    found: tuple[TermCount, ...] | None = None
    note = ""
    if terms:
        try:
            found = tuple(TermCount(t, n) for t, n in lib.discover.frequent_terms(TERMS))
        except TermsNotReady:
            note = TERMS_NOTE
    return Overview(papers=papers, read=read, unread=papers - read, sources=tuple(sources),
                    tags=tuple(tags), weeks=weeks, earlier=earlier, undated=undated,
                    terms=found, terms_note=note)
