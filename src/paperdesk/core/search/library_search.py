"""Searching a library (``lib.search``): the query over the Whoosh index with the
scope's masks and sorts, result rows with snippets, match terms for highlighting and
"did you mean" (the query language is in :mod:`paperdesk.core.search.query`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from paperdesk.core.fields import INTEREST, SORT_CHOICES
from paperdesk.core.models import SearchHit, SearchResults
from paperdesk.core.scope import Scope
from paperdesk.core.search.index import cut_snippet
from paperdesk.core.search.query import meaning_text
from paperdesk.core.manager import Manager

def _reorder(ids: np.ndarray, scores: np.ndarray, order: Sequence[int],
             descending: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``ids`` and their ``scores`` put in ``order`` (the same ids, another order),
    reversed when ``descending``."""
    ids = np.asarray(ids, dtype=np.int64)
    wanted = np.asarray(list(order), dtype=np.int64)
    if len(ids) == 0:
        return ids, np.asarray(scores, dtype=np.float64)[:0]
    sorter = np.argsort(ids, kind="stable")
    at = sorter[np.searchsorted(ids, wanted, sorter=sorter)]
    if descending:
        at = at[::-1]
    return ids[at], np.asarray(scores)[at]


__all__ = ["Search", "RANKED_FIRST"]

#: Matches a window's search ranks before it shows them (``find(rank=RANKED_FIRST)``): a
#: few screenfuls; the others are ranked right after (:meth:`SearchResults.complete`).
RANKED_FIRST = 1000

#: Metadata fields a query can ask for, -> (how the message names one, the SQL condition
#: of a paper that has one).
_OWN_FIELDS = {"year": ("a year", "date IS NOT NULL"),
               "author": ("an author", "authors != '[]'"),
               "doi": ("a DOI", "doi IS NOT NULL"),
               "arxiv": ("an arXiv id", "arxiv_id IS NOT NULL")}
#: A field named in a query (``year:2023``, ``-author:x``, ``(doi:…``).
_FIELD_NAMED = re.compile(r"(?:^|[\s(+\-])(" + "|".join(_OWN_FIELDS) + r")\s*:")


class Search(Manager):
    """Searching a library: ``lib.search`` (see the module)."""

    def find(self, query: str, limit: int | None = 50, source_id: int | None = None,
             tag_id: int | None = None, filter: str | None = None, sort: str = "relevance",
             descending: bool = False, count: bool = True, snippets: bool = True,
             suggest: bool = True, within: set[int] | None = None,
             rank: int | None = None) -> SearchResults:
        """Search the library (the query language is described in :mod:`.query`).

        Every match is found (as numpy arrays, cheap even for 100,000 hits) and returned
        in ``ids``/``scores``; only the first ``limit`` become :class:`SearchHit` rows
        (title, snippet). A tag or filter is applied inside the index search as a cached
        bool mask over paper ids (:class:`~paperdesk.core.scope.ScopeMasks`); papers
        deleted since indexing are left out the same way.

        Args:
            query: what the user typed; any text is safe (broken syntax is searched as
                plain words; a refused part is explained in ``message``).
            limit: most hits built as rows (``hits``), or ``None`` for all; ``0`` for
                none (only ``ids``, ``scores`` and ``total``).
            source_id: only papers from this source.
            tag_id: only papers with this tag.
            filter: only papers passing this filter (see :data:`FILTERS`).
            sort: ``"relevance"`` (BM25F, best first), a sortable field (``"added"``,
                ``"title"`` ...) or ``"interest"`` (worth reading first:
                :meth:`~paperdesk.core.discover.engine.Discover.interest` of the matches;
                then ``interest`` holds its message and, for the ``limit`` first, the
                words that moved each up), for ``hits`` and ``ids`` alike.
            descending: reverse a field sort (or the interest order).
            count: kept for callers; the total is always exact now.
            snippets: cut a snippet for each hit (False: ``snippet`` is empty); each costs
                at most :data:`~paperdesk.core.search.index.SNIPPET_SCAN_CHARS` characters
                of its abstract scanned (:func:`~paperdesk.core.search.index.cut_snippet`),
                and only the ``limit`` rows get one: the matches beyond cost nothing.
            suggest: offer "did you mean" when the query finds little (False when only
                the count matters, e.g. for saved-search counts).
            within: only these paper ids (a selection), or ``None``.
            rank: with the relevance order and a ``limit``, rank only the best ``rank``
                matches now (at least ``limit`` of them): ``ids``/``scores`` then hold
                those, and :attr:`SearchResults.rest` ranks the others when
                :meth:`SearchResults.complete` is called (the sort of every match is
                most of a common word's search at a million abstracts); ``total``
                counts every match. ``None``: every match ranked now.
        Returns:
            :class:`SearchResults` (``total_exact`` True); while papers wait to be
            indexed (an import that is still being indexed) its ``indexed`` and
            ``papers`` say how much of the library the search covered (``partial``).
        Raises:
            ValueError: unknown ``filter`` or ``sort``.
            TermsNotReady: ``sort="interest"`` and the term table must be built first
                (``discover.ensure``, on a thread of its own).
        """
        if sort not in SORT_CHOICES:
            raise ValueError(f"unknown sort {sort!r}; use "
                             f"{', '.join(SORT_CHOICES[:-1])} or {SORT_CHOICES[-1]}")
        meaning = meaning_text(query)
        plan = self._lib.index.whoosh.plan(query if meaning is None else meaning)
        mask = self._lib.masks.mask(self.db, Scope(tag_id=tag_id, filter=filter))
        if plan.added is not None and meaning is None:   # answered by SQLite (not indexed)
            mask = mask & self._lib.masks.added(self.db, *plan.added)
        allowed = set(within) if within is not None else None
        note = ""
        rest = None
        if meaning is not None:
            ids, scores, note = self._by_meaning(meaning, mask, source_id, allowed)
            total = len(ids)
        elif plan.added is not None and not plan.flags and \
                type(plan.query).__name__ == "Every":
            ids, scores, total = self._added_only(mask, source_id, allowed)
        elif rank is not None and limit is not None and sort == "relevance":
            first = max(rank, limit, 1)
            ids, scores, total, rest = self._lib.index.whoosh.search_ranked(
                plan, first, source_id=source_id, mask=mask, allowed=allowed)
        else:
            ids, scores, total = self._lib.index.whoosh.search_arrays(plan, source_id=source_id,
                                                          mask=mask, allowed=allowed)
        interest = None
        if sort == INTEREST:
            interest = self._lib.discover.interest(
                ids.tolist(), with_reasons=None if limit is None else max(limit, 0))
            ids, scores = _reorder(ids, scores, interest.ids, descending)
        elif sort != "relevance" and len(ids) > 1:
            ranks = self._lib.masks.rank(self.db, sort, descending)
            order = np.argsort(ranks[ids], kind="stable")  # ids all exist (the mask)
            ids, scores = ids[order], scores[order]
        top = ids if limit is None else ids[:max(limit, 0)]
        hits = self._rows(plan, top.tolist(), scores[:len(top)].tolist(), snippets)
        suggestion = (self.suggest(plan) if suggest and total < 3 and plan.query is not None
                      else None)
        indexed, papers = self._coverage()
        if self._lib.index.whoosh.damage is not None:
            self.index_damaged()
            indexed, papers = 0, self._lib.papers.count()
        message = note if meaning is not None else \
            plan.message or (self._missing_field(plan) if total == 0 else "")
        return SearchResults(query, hits, total, True, message, suggestion, ids=ids,
                             scores=scores, indexed=indexed, papers=papers,
                             interest=interest, rest=rest)

    def _by_meaning(self, text: str, mask: np.ndarray, source_id: int | None,
                    allowed: set[int] | None) -> tuple[np.ndarray, np.ndarray, str]:
        """A search by meaning (``~text``, :mod:`paperdesk.core.discover.meaning`) kept to
        the papers of the mask, the source and ``allowed``: ``(ids, scores, note)``."""
        from paperdesk.core.discover.meaning import search_by_meaning

        ids, scores, note = search_by_meaning(self._lib, text)
        inside = ids < len(mask)
        inside[inside] = mask[ids[inside]]
        if source_id is not None:
            mine = {r[0] for r in self.db.execute(
                "SELECT paper_id FROM paper_sources WHERE source_id = ?", (source_id,))}
            inside &= np.isin(ids, np.fromiter(mine, np.int64, len(mine)))
        if allowed is not None:
            inside &= np.isin(ids, np.fromiter(allowed, np.int64, len(allowed)))
        return ids[inside], scores[inside], note

    def _missing_field(self, plan) -> str:
        """For a query that found nothing: "no paper has a year yet …" when it asks for a
        metadata field (``year:``, ``author:``, ``doi:``, ``arxiv:``, or ``has:`` one of
        them) that no paper of the library has at all, else ""."""
        named = set(_FIELD_NAMED.findall(plan.text.lower())) | set(plan.flags)
        for name, (what, has_one) in _OWN_FIELDS.items():
            if name in named and self.db.execute(
                    f"SELECT 1 FROM papers WHERE {has_one} LIMIT 1").fetchone() is None:
                return (f"no paper has {what} yet: add one with the metadata editor (m) "
                        "or paperdesk edit, or import BibTeX, RIS or CSL-JSON that has them")
        return ""

    def _added_only(self, mask: np.ndarray, source_id: int | None,
                    allowed: set[int] | None) -> tuple[np.ndarray, np.ndarray, int]:
        """The hits of a query that is only ``added:`` (and a scope): every paper of the
        mask, in import order, score 1 (as Whoosh scores "every document"), straight
        from the masks (Whoosh's searcher would take ~0.5 s at 100,000 papers)."""
        ids = np.flatnonzero(mask).astype(np.int64)
        if source_id is not None:
            from_source = np.fromiter((r[0] for r in self.db.execute(
                "SELECT paper_id FROM paper_sources WHERE source_id = ?", [source_id])),
                np.int64)
            ids = ids[np.isin(ids, from_source)]
        if allowed is not None:
            ids = ids[np.isin(ids, np.fromiter(allowed, np.int64))]
        return ids, np.ones(len(ids), np.float64), len(ids)

    def index_damaged(self) -> None:
        """A read of the index failed (:attr:`SearchIndex.damage`): have the next
        ``lib.index.sync`` rebuild it (in the window, in the background)."""
        if self._lib.read_only or self._lib.db_problem is not None:
            return
        if self._lib.auto_sync_index:
            return          # the caller's next sync_index (the CLI's) rebuilds it
        if self._lib.on_index_stale is not None:
            self._lib.on_index_stale()

    def _rows(self, plan, ids: list[int], scores: list[float],
              snippets: bool) -> list[SearchHit]:
        summaries = self._lib.papers.summaries(ids)
        texts = self._lib.papers.abstracts(ids) if snippets else {}
        terms = self._lib.index.whoosh.match_terms(plan) if snippets else None
        hits = []
        for pid, score in zip(ids, scores):
            summary = summaries.get(pid)
            if summary is None:  # deleted since the search ran
                continue
            text, spans = "", ()
            if snippets:
                text, spans = cut_snippet(texts.get(pid) or "", terms)
            hits.append(SearchHit(pid, summary.title, score, text, tuple(spans)))
        return hits

    def _coverage(self) -> tuple[int | None, int | None]:
        """``(indexed, papers)`` for :class:`SearchResults` while papers wait to be
        indexed, else ``(None, None)``: one indexed lookup of the queue in the common
        case, two counts otherwise (no scan of the papers' rows)."""
        if self.db.execute("SELECT 1 FROM index_queue WHERE op = 'add' LIMIT 1"
                           ).fetchone() is None:
            return None, None
        status = self._lib.index.status()
        return status.indexed, status.papers

    def snippets(self, query: str, ids: Sequence[int]
                 ) -> dict[int, tuple[str, tuple[tuple[int, int], ...]]]:
        """Cut the search snippets of some papers (the rows of a result list on show).

        Args:
            query: the query as typed (its match terms are looked up in the index).
            ids: paper ids (any number; a list shows about 200 at a time). Each costs at
                most :data:`~paperdesk.core.search.index.SNIPPET_SCAN_CHARS` characters
                scanned, however long its abstract.
        Returns:
            ``{id: (snippet, spans)}``: plain text around the matched words and the
            ``(start, end)`` offsets of those words in it, as in :class:`SearchHit`
            (papers no longer in the library are left out).
        """
        plan = self._lib.index.whoosh.plan(query)
        terms = self._lib.index.whoosh.match_terms(plan)
        out = {}
        for pid, abstract in self._lib.papers.abstracts(ids).items():
            text, spans = cut_snippet(abstract or "", terms)
            out[pid] = (text, tuple(spans))
        return out

    def match_terms(self, query: str):
        """Return the index words ``query`` matches, for highlighting any text with
        :func:`paperdesk.core.search.index.match_spans` (the detail pane's abstract and note).

        Args:
            query: the query as typed.
        Returns:
            A :class:`~paperdesk.core.search.index.MatchTerms` (empty for a blank query).
        """
        return self._lib.index.whoosh.match_terms(self._lib.index.whoosh.plan(query))

    def suggest(self, plan) -> str | None:
        """Offer a corrected query ("did you mean") from the library's own words.

        Each plain word of the query that no paper contains is replaced by the closest
        word (at most two edits away) that papers do contain.

        Args:
            plan: a :class:`~paperdesk.core.search.query.QueryPlan` (from ``index.plan``).
        Returns:
            The corrected query text, or ``None`` when nothing better is known.
        """
        return self._lib.index.whoosh.suggest(plan.text)

    def hits(self, query: str, limit: int | None = 50) -> list[SearchHit]:
        """Search title and abstract; see :meth:`find`.

        Args:
            query: query text.
            limit: most hits, or ``None`` for all.
        Returns:
            Hits, best first.
        """
        return self.find(query, limit=limit).hits
