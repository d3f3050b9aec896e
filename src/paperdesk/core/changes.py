"""What a change to the library touched: the one value every mutation returns.

Every edit of :class:`~paperdesk.core.library.Library` (tagging, read and star marks,
notes, highlights, titles, saved searches, undo and redo) returns a :class:`Changes`. The
window refreshes from it (one ``changed(Changes)`` signal), the CLI reports from it, and
tests assert on it. Imports return an :class:`~paperdesk.core.models.ImportReport`
instead, which the window shows when the import ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

__all__ = ["Changes", "NO_CHANGES", "FIELD_OF_FILTER"]

#: The tag pane's filters whose count a change can carry (``Changes.filter_deltas``),
#: and the paper field (a name of :data:`paperdesk.core.fields.FIELDS`) that moves it.
FIELD_OF_FILTER = {"starred": "starred", "unread": "read"}


def _ids(values: Iterable[int]) -> frozenset[int]:
    return frozenset(int(v) for v in values)


@dataclass(frozen=True)
class Changes:
    """Which parts of the library a committed change touched.

    Attributes:
        papers: ids of papers whose list row or detail view may differ (added, removed or
            edited).
        fields: names of paper fields that changed (names from
            :data:`paperdesk.core.fields.FIELDS`, e.g. ``"read"``, ``"starred"``,
            ``"title"``, ``"tags"``, ``"note"``, ``"highlights"``).
        tags: ids of tags created, renamed, recoloured, re-keyed, deleted or whose paper
            count changed.
        notes: ids of papers whose note text changed.
        highlights: ids of papers whose highlights (or their comments) changed.
        saved_searches: the saved searches changed (names, queries or existence).
        sources: papers or source files were added or removed (an import, deleted
            papers, a removed file, or the undo of one), so lists and file counts must
            be read again rather than rows refreshed in place.
        search: indexed text changed (titles, tags, notes, highlight comments), so a
            visible search should run again once the index has caught up. Read and star
            marks leave it False: the list keeps its rows when a paper is marked.
        duplicates: near-duplicate pairs were flagged, dismissed, restored or merged (the
            Duplicates view and its count should be read again).
        replay: the change comes from undo or redo rather than from a new edit, or from
            an edit that the note editor did not show (text typed for a paper before its
            note was read, added to the stored note): the note editor must then show the
            stored text.
        tag_deltas: ``((tag id, n), ...)`` sorted by id: by how many papers the count of
            each of these tags changed (negative: fewer), for a change that knows it
            (tagging and untagging papers, their undo and redo). A tag in ``tags``
            without an entry here changed otherwise (created, renamed, merged ...) and
            must be read again; with an entry it changed only by its count, which a
            view can update without counting (a third of a million taggings).
        filter_deltas: ``(("starred", n), ("unread", n))`` or a part of it, sorted: by
            how many papers the counts of the tag pane's "Starred" and "Unread" filters
            changed, for a change that knows it (star and read marks, their undo and
            redo). A view adds them to the counts it shows instead of counting a
            million papers again; a field in ``fields`` without its entry here (see
            :data:`FIELD_OF_FILTER`) changed by an amount nobody counted.
    """

    papers: frozenset[int] = field(default_factory=frozenset)
    fields: frozenset[str] = field(default_factory=frozenset)
    tags: frozenset[int] = field(default_factory=frozenset)
    notes: frozenset[int] = field(default_factory=frozenset)
    highlights: frozenset[int] = field(default_factory=frozenset)
    saved_searches: bool = False
    sources: bool = False
    search: bool = False
    replay: bool = False
    duplicates: bool = False
    tag_deltas: tuple[tuple[int, int], ...] = ()
    filter_deltas: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, papers: Iterable[int] = (), fields: Iterable[str] = (),
           tags: Iterable[int] = (), notes: Iterable[int] = (),
           highlights: Iterable[int] = (), saved_searches: bool = False,
           sources: bool = False, search: bool | None = None,
           duplicates: bool = False,
           tag_deltas: Mapping[int, int] | None = None,
           filter_deltas: Mapping[str, int] | None = None) -> "Changes":
        """Build a :class:`Changes` from any iterables.

        Args:
            papers, fields, tags, notes, highlights: ids (or field names) touched.
            saved_searches, sources, duplicates: flags as in the class.
            search: whether results may differ; ``None`` means "whenever any paper,
                tag, note or highlight changed".
            tag_deltas: ``{tag id: change of its paper count}`` (see the class); its
                tags are added to ``tags``.
            filter_deltas: ``{"starred" or "unread": change of that filter's count}``
                (see the class); the field behind each (:data:`FIELD_OF_FILTER`) is
                added to ``fields``.
        Returns:
            The frozen value.
        Raises:
            ValueError: a filter in ``filter_deltas`` that is not in
                :data:`FIELD_OF_FILTER`.
        """
        counted = {str(f): int(n) for f, n in (filter_deltas or {}).items()}
        unknown = set(counted) - set(FIELD_OF_FILTER)
        if unknown:
            raise ValueError(f"no filter delta for {sorted(unknown)}; "
                             f"use {sorted(FIELD_OF_FILTER)}")
        fields = frozenset(fields) | {FIELD_OF_FILTER[f] for f in counted}
        deltas = {int(t): int(n) for t, n in (tag_deltas or {}).items()}
        papers, tags = _ids(papers), _ids(tags) | frozenset(deltas)
        notes, highlights = _ids(notes), _ids(highlights)
        if search is None:
            search = bool(papers or tags or notes or highlights or sources)
        return cls(papers, fields, tags, notes, highlights, saved_searches,
                   sources, search, duplicates=duplicates,
                   tag_deltas=tuple(sorted(deltas.items())),
                   filter_deltas=tuple(sorted(counted.items())))

    def tag_count_changes(self) -> dict[int, int] | None:
        """``{tag id: change of its paper count}`` for every tag in ``tags``, when the
        change moved only their counts; ``None`` when a tag changed otherwise (or no
        tag changed), i.e. the tags must be read again."""
        deltas = dict(self.tag_deltas)
        if not self.tags or set(deltas) != set(self.tags):
            return None
        return deltas

    def filter_count_changes(self) -> dict[str, int] | None:
        """``{filter name: change of its count}`` when the change is star or read
        marks only (their fields, each with its count change, no paper added or
        removed); ``None`` otherwise, i.e. the filters must be counted again."""
        deltas = dict(self.filter_deltas)
        if (not deltas or self.sources or self.tags or self.notes or self.highlights
                or self.fields != {FIELD_OF_FILTER[f] for f in deltas}):
            return None
        return deltas

    def negated_filter_deltas(self) -> "Changes":
        """Return the same change with its filter count changes negated (what undoing
        it does to the counts)."""
        return replace(self, filter_deltas=tuple((f, -n) for f, n in self.filter_deltas))

    def __or__(self, other: "Changes") -> "Changes":
        """Combine two changes (e.g. the steps of a merged undo step)."""
        if not isinstance(other, Changes):
            return NotImplemented
        # a tag keeps a count change only if neither side changed it otherwise
        mine, theirs = dict(self.tag_deltas), dict(other.tag_deltas)
        deltas = {t: mine.get(t, 0) + theirs.get(t, 0) for t in self.tags | other.tags
                  if (t not in self.tags or t in mine) and (t not in other.tags or t in theirs)}
        # a filter keeps a count change only if neither side moved it uncounted
        mine_f, theirs_f = dict(self.filter_deltas), dict(other.filter_deltas)
        filters = {f: mine_f.get(f, 0) + theirs_f.get(f, 0)
                   for f in mine_f.keys() | theirs_f.keys()
                   if (f in mine_f or FIELD_OF_FILTER[f] not in self.fields)
                   and (f in theirs_f or FIELD_OF_FILTER[f] not in other.fields)}
        return Changes(self.papers | other.papers, self.fields | other.fields,
                       self.tags | other.tags, self.notes | other.notes,
                       self.highlights | other.highlights,
                       self.saved_searches or other.saved_searches,
                       self.sources or other.sources, self.search or other.search,
                       self.replay or other.replay,
                       self.duplicates or other.duplicates,
                       tuple(sorted(deltas.items())), tuple(sorted(filters.items())))

    def __bool__(self) -> bool:
        """True when anything at all changed."""
        return bool(self.papers or self.fields or self.tags or self.notes or self.highlights
                    or self.saved_searches or self.sources or self.duplicates)

    def as_replay(self) -> "Changes":
        """Return the same change marked as coming from undo or redo."""
        return replace(self, replay=True)

    def to_dict(self) -> dict:
        """JSON shape for the CLI: lists sorted, flags as booleans."""
        return {"papers": sorted(self.papers), "fields": sorted(self.fields),
                "tags": sorted(self.tags), "notes": sorted(self.notes),
                "highlights": sorted(self.highlights),
                "saved_searches": self.saved_searches, "sources": self.sources,
                "search": self.search, "duplicates": self.duplicates}


#: The empty change (nothing happened).
NO_CHANGES = Changes()
