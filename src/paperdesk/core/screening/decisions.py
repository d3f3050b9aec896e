"""The decisions of a screening for a tag, stored and undoable: ``lib.screening``.

A screening asks of one paper at a time "does it belong under tag T?". *Yes* gives the
paper tag T; *no* marks it **excluded from T**, a state of its own (schema 12's
``screening_decisions``, :mod:`paperdesk.core.store.schema`); a skip stores nothing.
Each decision is one transaction and one undo step ("Include in ‘T’", "Exclude from
‘T’"), and gets the next sequence number, so the stopping estimate
(:func:`paperdesk.core.screening.stopping.estimate`) sees the decisions in the order
they were made.

What a paper is for tag T (:meth:`Screening.decided`):

* **included** (relevant) when it carries tag T, however it got it (papers tagged
  before the screening count as relevant);
* **excluded** (irrelevant) when it does not carry T and has a "no" row for T;
* **undecided** otherwise. Removing tag T from a paper (``lib.tags.remove``) deletes
  its row for T, and :meth:`Screening.undecide` deletes both, so either makes the paper
  undecided again; deleting tag T deletes its rows (undo of the deletion brings them
  back with the tag: :class:`~paperdesk.core.models.TagState` carries them).

The order of the screening and the estimate are :mod:`paperdesk.core.screening.session`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from paperdesk.core.changes import Changes
from paperdesk.core.clock import utc_now
from paperdesk.core.edits.undo import quote
from paperdesk.core.manager import Manager
from paperdesk.core.models import LibraryError, Tag
from paperdesk.core.scope import Scope
from paperdesk.core.screening.session import (Pool, Standing, build_pool, scope_papers,
                                              standing)
from paperdesk.core.store import db as _db

__all__ = ["Screening", "Decided", "read_decisions", "write_decisions"]

#: One stored decision: ``(paper_id, excluded, seq, decided_at)``.
DecisionRow = tuple


def read_decisions(db, tag_id: int, paper_ids: Iterable[int] | None = None) -> frozenset:
    """The stored decisions of tag ``tag_id``.

    Args:
        db: a ``sqlite_utils.Database``.
        tag_id: the tag.
        paper_ids: only these papers' rows; ``None``: every row of the tag.
    Returns:
        A frozenset of ``(paper_id, excluded, seq, decided_at)`` tuples.
    """
    sql = ("SELECT paper_id, excluded, seq, decided_at FROM screening_decisions "
           "WHERE tag_id = ?")
    if paper_ids is None:
        return frozenset(tuple(r) for r in db.execute(sql, [tag_id]))
    return frozenset(tuple(r) for p in paper_ids
                     for r in db.execute(sql + " AND paper_id = ?", [tag_id, p]))


def write_decisions(db, tag_id: int, rows: Iterable[DecisionRow],
                    paper_ids: Iterable[int] | None = None) -> None:
    """Put back decisions read by :func:`read_decisions`, inside the caller's
    transaction: the tag's rows (or only those of ``paper_ids``) are replaced by ``rows``.

    Args:
        db: a ``sqlite_utils.Database`` in a transaction.
        tag_id: the tag (it must exist).
        rows: ``(paper_id, excluded, seq, decided_at)`` tuples; a row whose paper no
            longer exists, or (with ``paper_ids``) is not among them, is left out.
        paper_ids: replace only these papers' rows; ``None``: all of the tag's.
    """
    if paper_ids is None:
        db.execute("DELETE FROM screening_decisions WHERE tag_id = ?", [tag_id])
    else:
        only = set(paper_ids)
        rows = [r for r in rows if r[0] in only]
        db.conn.executemany("DELETE FROM screening_decisions WHERE tag_id = ? AND "
                            "paper_id = ?", [(tag_id, p) for p in only])
    db.conn.executemany(
        "INSERT INTO screening_decisions (tag_id, paper_id, excluded, seq, decided_at) "
        "SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM papers WHERE id = ?)",
        [(tag_id, p, e, s, at, p) for p, e, s, at in sorted(rows)])


@dataclass(frozen=True)
class Decided:
    """Where a tag's papers stand.

    Attributes:
        included: ids of the papers carrying the tag (relevant).
        excluded: ids of the papers excluded from it (irrelevant), none of them tagged.
        order: every included and excluded paper as ``(paper_id, relevant)``, in the
            order decided: those with no stored decision first (tagged before any
            screening; by id), then by sequence number.
    """

    included: frozenset[int]
    excluded: frozenset[int]
    order: tuple[tuple[int, bool], ...]


class Screening(Manager):
    """The screening decisions of a library: ``lib.screening`` (see the module)."""

    def tag(self, name: str) -> Tag:
        """The tag a screening is for.

        Args:
            name: its name, compared without regard to case.
        Returns:
            The :class:`~paperdesk.core.models.Tag`.
        Raises:
            LibraryError: no tag has this name (one line naming it).
        """
        tag = self._lib.tags.by_name(name)
        if tag is None:
            raise LibraryError(f"no tag named {name!r} (the first yes creates it, as "
                               "tagging a paper does)")
        return tag

    def decided(self, tag_id: int) -> Decided:
        """The included and excluded papers of a tag and the order of the decisions.

        Args:
            tag_id: the tag.
        Returns:
            A :class:`Decided`.
        """
        tagged = frozenset(r[0] for r in self.db.execute(
            "SELECT paper_id FROM paper_tags WHERE tag_id = ?", [tag_id]))
        seq_of: dict[int, int] = {}
        excluded = set()
        for pid, is_excluded, seq in self.db.execute(
                "SELECT paper_id, excluded, seq FROM screening_decisions WHERE tag_id = ?",
                [tag_id]):
            if pid in tagged or is_excluded:
                seq_of[pid] = seq
                if pid not in tagged:
                    excluded.add(pid)
        decided = sorted(tagged | excluded,
                         key=lambda p: (p in seq_of, seq_of.get(p, 0), p))
        return Decided(tagged, frozenset(excluded),
                       tuple((p, p in tagged) for p in decided))

    def excluded_ids(self, tag_id: int) -> frozenset[int]:
        """The papers excluded from a tag (not carrying it, with a "no").

        Args:
            tag_id: the tag.
        Returns:
            Their ids.
        """
        return frozenset(r[0] for r in self.db.execute(
            "SELECT paper_id FROM screening_decisions d WHERE tag_id = ? AND excluded "
            "AND NOT EXISTS (SELECT 1 FROM paper_tags pt WHERE pt.tag_id = d.tag_id "
            "AND pt.paper_id = d.paper_id)", [tag_id]))

    def pool(self, tag_name: str, scope: Scope | None = None, cache: bool = True) -> Pool:
        """The papers of a screening for a tag and their features (built, or read from
        the library folder's cache): :func:`paperdesk.core.screening.session.build_pool`.

        Raises:
            LibraryError: no such tag, an unknown saved search, or no papers.
        """
        return build_pool(self._lib, tag_name, scope, cache=cache)

    def check_scope(self, scope: Scope | None) -> list[int]:
        """Refuse a scope with no papers before anything is decided in it.

        Returns:
            The ids of the scope's papers (without the papers decided outside it).
        Raises:
            LibraryError: an unknown saved search, or no papers; ValueError: a bad
                scope.
        """
        return scope_papers(self._lib, scope)

    def standing(self, pool: Pool, skipped: Iterable[int] = ()) -> Standing:
        """The next paper, the counts and the stopping estimate of a screening after its
        latest decision: :func:`paperdesk.core.screening.session.standing`."""
        return standing(self._lib, pool, skipped)

    # -- decisions ------------------------------------------------------------------
    def include(self, tag_name: str, paper_id: int, undoable: bool = True) -> Changes:
        """Decide *yes*: the paper gets the tag (any exclusion from it ends).

        Args:
            tag_name: the screening's tag (it must exist; see :meth:`tag`).
            paper_id: the paper.
            undoable: record an undo step ("Include in ‘T’").
        Returns:
            :class:`Changes` (the paper, the tag); empty when it carries the tag
            already.
        Raises:
            LibraryError: no such tag; UnknownPaper: no such paper.
        """
        return self._decide(tag_name, paper_id, excluded=False, label="Include in",
                            undoable=undoable)

    def exclude(self, tag_name: str, paper_id: int, undoable: bool = True) -> Changes:
        """Decide *no*: the paper is excluded from the tag (and loses the tag if it had
        it).

        Args:
            tag_name: the screening's tag (it must exist).
            paper_id: the paper.
            undoable: record an undo step ("Exclude from ‘T’").
        Returns:
            :class:`Changes`; empty when it was excluded already.
        Raises:
            LibraryError: no such tag; UnknownPaper: no such paper.
        """
        return self._decide(tag_name, paper_id, excluded=True, label="Exclude from",
                            undoable=undoable)

    def undecide(self, tag_name: str, paper_id: int, undoable: bool = True) -> Changes:
        """Take a decision back: the paper neither carries the tag nor is excluded
        from it.

        Args:
            tag_name: the screening's tag (it must exist).
            paper_id: the paper.
            undoable: record an undo step ("Undecide ‘T’").
        Returns:
            :class:`Changes`; empty when it was undecided already.
        Raises:
            LibraryError: no such tag; UnknownPaper: no such paper.
        """
        return self._decide(tag_name, paper_id, excluded=None, label="Undecide",
                            undoable=undoable)

    def _state(self, tag_id: int, pid: int) -> tuple[bool, frozenset]:
        """``(tagged, rows)`` of one paper for one tag."""
        tagged = self.db.execute("SELECT 1 FROM paper_tags WHERE tag_id = ? AND "
                                 "paper_id = ?", [tag_id, pid]).fetchone() is not None
        return tagged, read_decisions(self.db, tag_id, [pid])

    def _put(self, tag_id: int, pid: int, state: tuple[bool, frozenset]) -> Changes:
        """Make one paper's tag and decision for ``tag_id`` what ``state`` says
        (replayed by undo and redo)."""
        tagged, rows = state
        if self.db.execute("SELECT 1 FROM tags WHERE id = ?", [tag_id]).fetchone() is None:
            raise LibraryError("the tag no longer exists")
        self._lib.papers.existing_ids([pid])
        with _db.transaction(self.db) as db:
            self._lib.tags._write_paper_tag([pid], tag_id, tagged)
            write_decisions(db, tag_id, rows, [pid])
        self._lib.after_change()
        return Changes.of(papers=[pid], fields=["tags"], tags=[tag_id])

    def _decide(self, tag_name: str, paper_id: int, excluded: bool | None, label: str,
                undoable: bool) -> Changes:
        tag = self.tag(tag_name)
        (pid,) = self._lib.papers.existing_ids([paper_id])
        before = self._state(tag.id, pid)
        if excluded is None:
            after = (False, frozenset())
        else:
            seq = self.db.execute("SELECT coalesce(max(seq), 0) + 1 FROM "
                                  "screening_decisions").fetchone()[0]
            after = (not excluded, frozenset([(pid, int(excluded), seq, utc_now())]))
        tagged, rows = before
        if excluded is None and before == after:
            return Changes()
        if excluded is False and tagged:
            return Changes()         # included already (by a decision or by hand)
        if excluded and not tagged and any(r[1] for r in rows):
            return Changes()
        changes = self._put(tag.id, pid, after)
        return self._lib.record(f"{label} {quote(tag.name)}", changes,
                                lambda: self._put(tag.id, pid, before),
                                lambda: self._put(tag.id, pid, after), undoable=undoable)
