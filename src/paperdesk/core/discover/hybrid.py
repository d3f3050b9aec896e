"""Hybrid related papers: the embedding's cosine, the term table's tf-idf cosine, the
titles' cosine, shared authors and the same venue, then one round of pseudo relevance
feedback, and a lean towards earlier papers.

A static embedding (:mod:`paperdesk.core.embeddings`) finds papers that say the same
thing in other words; tf-idf finds the ones that share the rare words, and names them
("shares: …"); papers by the same people cite each other (:mod:`.coauthors`); a title
says in a few words what a paper is about, and a journal gathers a field
(:mod:`.title_venue`). A candidate *d* of the paper *q* first scores

    s(q, d) = ``EMBEDDING_WEIGHT`` x emb(q, d) + (1 - ``EMBEDDING_WEIGHT``) x tfidf(q, d)
              + ``AUTHOR_BONUS`` x min(shared authors, ``AUTHORS_COUNTED``)
              + ``TITLE_WEIGHT`` x title(q, d) + ``VENUE_BONUS`` x [same venue]

and then, as Rocchio's feedback does with a query's first results (Rocchio, "Relevance
feedback in information retrieval", 1971; Manning et al., *Introduction to Information
Retrieval*, 2008, §9.1), gains the mean of its scores with the ``FEEDBACK_PAPERS`` best
candidates, weighted by their own scores:

    score(d) = (s(q, d) + ``FEEDBACK_WEIGHT`` x Σ_n w_n s(n, d)
                + ``EARLIER_BONUS`` x [d's year < q's year]) / norm,
    w_n = s(q, n) / Σ s(q, n'),  norm = (1 + ``FEEDBACK_WEIGHT``) x (1 + ``AUTHOR_BONUS``
    x ``AUTHORS_COUNTED`` + ``TITLE_WEIGHT`` + ``VENUE_BONUS``) + ``EARLIER_BONUS``

so a paper like the first answers, as a work cited together with them is, moves up; a
candidate from an earlier year than the paper (both years known) gains a little: a
paper cites, and builds on, earlier work, so among papers about as alike it is the
earlier ones that a paper and its neighbours cite. The norm keeps the score within
0..1. Each step and its weight was measured on the citation evaluation
(:mod:`.related_evaluation`, the tables in docs/discover.md): nDCG@10 0.352 for the
weighted cosines alone, 0.384 with the authors, 0.392 with the feedback, 0.402 with the
titles, the venue, an author bonus of 0.08 and the feedback's weight 1, 0.414 with the
lean towards earlier papers (every review gains; 0.08 is half the weight that each
review's leave-one-out choice picks, kept small so that a newer paper as alike still
ranks first; papers without a date, as Daily Papers text files are, get no lean).
"""

from __future__ import annotations

import numpy as np

__all__ = ["EMBEDDING_WEIGHT", "AUTHOR_BONUS", "AUTHORS_COUNTED", "TITLE_WEIGHT",
           "VENUE_BONUS", "FEEDBACK_PAPERS", "FEEDBACK_WEIGHT", "EARLIER_BONUS",
           "TFIDF_POOL", "SCORE_NORM",
           "hybrid_scores", "hybrid_rows"]

#: The embedding cosine's share of the weighted cosines (the rest is tf-idf's).
EMBEDDING_WEIGHT = 0.3
#: What each shared author adds to the score (before the norm).
AUTHOR_BONUS = 0.08
#: Shared authors counted at most.
AUTHORS_COUNTED = 3
#: The weight of the titles' cosine (:mod:`.title_venue`).
TITLE_WEIGHT = 0.15
#: What the same venue adds to the score (before the norm).
VENUE_BONUS = 0.04
#: The best candidates whose scores feed back.
FEEDBACK_PAPERS = 5
#: The feedback's weight beside the paper's own score.
FEEDBACK_WEIGHT = 1.0
#: What a candidate from an earlier year than the paper asked adds (before the norm).
EARLIER_BONUS = 0.08
#: The highest possible score before the norm: the final score is divided by it.
SCORE_NORM = (1 + FEEDBACK_WEIGHT) * (1 + AUTHOR_BONUS * AUTHORS_COUNTED + TITLE_WEIGHT
                                      + VENUE_BONUS) + EARLIER_BONUS
#: Papers nearest by tf-idf that are candidates besides the embedding's.
TFIDF_POOL = 200


def hybrid_scores(embedding: np.ndarray, tfidf: np.ndarray,
                  weight: float = EMBEDDING_WEIGHT, shared_authors=None,
                  title=None, same_venue=None) -> np.ndarray:
    """The first score s(q, d) of every candidate (module docstring), before feedback
    and norm.

    Args:
        embedding: cosines of the candidates' vectors with the paper asked (-1 .. 1).
        tfidf: their tf-idf cosines (0 .. 1; 0 for a paper without a shared term), in
            the same order.
        weight: the embedding's share (0 .. 1).
        shared_authors: authors each shares with the paper (ints >= 0), or ``None`` for
            none.
        title: the titles' cosines (0 .. 1), or ``None`` for none.
        same_venue: 1 where the two have one known venue, else 0 (or a weighted mean of
            such), or ``None`` for none.
    Returns:
        float32 array: ``weight * embedding + (1 - weight) * tfidf`` plus
        :data:`AUTHOR_BONUS` per shared author (at most :data:`AUTHORS_COUNTED`),
        :data:`TITLE_WEIGHT` x ``title`` and :data:`VENUE_BONUS` x ``same_venue``.
    """
    out = np.asarray(embedding, dtype=np.float32) * np.float32(weight)
    out += np.asarray(tfidf, dtype=np.float32) * np.float32(1.0 - weight)
    if shared_authors is not None:
        out += np.float32(AUTHOR_BONUS) * np.minimum(
            np.asarray(shared_authors), AUTHORS_COUNTED).astype(np.float32)
    if title is not None:
        out += np.float32(TITLE_WEIGHT) * np.asarray(title, dtype=np.float32)
    if same_venue is not None:
        out += np.float32(VENUE_BONUS) * np.asarray(same_venue, dtype=np.float32)
    return out


def _shared_counts(coauthors, paper_id: int, candidate_ids: np.ndarray) -> np.ndarray:
    """Authors each candidate shares with ``paper_id`` (0 without an index)."""
    out = np.zeros(len(candidate_ids), dtype=np.int64)
    if coauthors is None:
        return out
    ids, counts = coauthors.shared(int(paper_id))
    if len(ids):
        at = np.minimum(np.searchsorted(ids, candidate_ids), len(ids) - 1)
        hit = ids[at] == candidate_ids
        out[hit] = counts[at[hit]]
    return out


def hybrid_rows(table, row: int, vectors, limit: int, pool: int = TFIDF_POOL,
                coauthors=None, titles_venues=None) -> tuple[np.ndarray, np.ndarray] | None:
    """The table rows most related to ``row`` by the hybrid score.

    The candidates are the papers nearest by embedding
    (:meth:`~paperdesk.core.embeddings.vectors.PaperVectors.candidate_rows`), the
    ``pool`` nearest by tf-idf and the papers sharing an author; each is scored as the
    module docstring says (a candidate whose vector is missing or of an older text
    counts an embedding cosine of 0).

    Args:
        table: the current :class:`~.term_table.TermTable`.
        row: the paper's valid row in it.
        vectors: the :class:`~paperdesk.core.embeddings.vectors.PaperVectors`.
        limit: most rows.
        pool: tf-idf candidates.
        coauthors: the :class:`~.coauthors.CoauthorIndex`, or ``None`` (no author
            counts).
        titles_venues: the :class:`~.title_venue.TitleVenueIndex`, or ``None`` (no
            title cosines, no venue bonus, no lean towards earlier papers).
    Returns:
        ``(rows int64, scores float32 in 0..1)`` best first (ties by row), none below
        :data:`~.related.MIN_SCORE`; or ``None`` when the paper has no vector of its
        current text (then tf-idf alone answers).
    """
    from paperdesk.core.discover.related import MIN_SCORE

    paper = table.row_ids[row]
    vrow = int(vectors.rows_of([paper])[0])
    if vrow < 0 or vectors.stamps[vrow] != table.row_stamps[row]:
        return None
    query = vectors.vectors([vrow])[0]
    cols, weights = table.row(row)
    tfidf = table.similarities(cols, weights)
    tfidf[row] = -np.inf
    near = table.rows_of(vectors.ids[vectors.candidate_rows(query)])
    good = np.flatnonzero(tfidf >= MIN_SCORE)
    if len(good) > pool:
        good = good[np.argpartition(-tfidf[good], pool - 1)[:pool]]
    picked = np.zeros(len(tfidf), dtype=bool)      # the union, without sorting
    picked[near[near >= 0]] = True
    picked[good] = True
    if coauthors is not None:
        by_author = table.rows_of(coauthors.shared(int(paper))[0])
        picked[by_author[by_author >= 0]] = True
    picked &= np.isfinite(tfidf)
    rows = np.flatnonzero(picked)
    if not len(rows):
        return rows.astype(np.int64), np.zeros(0, dtype=np.float32)
    ids = table.row_ids[rows]
    vrows = vectors.rows_of(ids)
    fresh = vrows >= 0
    fresh[fresh] = vectors.stamps[vrows[fresh]] == table.row_stamps[rows[fresh]]
    embedded = np.zeros((len(rows), len(query)), dtype=np.float32)
    embedded[fresh] = vectors.vectors(vrows[fresh])
    title, venue = _title_venue(titles_venues, [paper], np.ones(1, np.float32), ids)
    first = hybrid_scores(embedded @ query, np.maximum(tfidf[rows], 0),
                          shared_authors=_shared_counts(coauthors, paper, ids),
                          title=title, same_venue=venue)
    scores = first + np.float32(FEEDBACK_WEIGHT) * _feedback(
        table, rows, ids, embedded, first, coauthors, titles_venues)
    if titles_venues is not None:
        scores += np.float32(EARLIER_BONUS) * titles_venues.earlier(paper, ids)
    scores /= np.float32(SCORE_NORM)
    keep = scores >= MIN_SCORE
    rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores.astype(np.float64)))[:limit]
    return rows[order].astype(np.int64), scores[order]


def _title_venue(titles_venues, papers, weights: np.ndarray,
                 ids: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Σ weight x title cosine and Σ weight x same venue of ``papers`` with each of
    ``ids`` (:meth:`~.title_venue.TitleVenueIndex.features`); ``None`` twice without an
    index."""
    if titles_venues is None:
        return None, None
    return titles_venues.features(papers, weights, ids)


def _feedback(table, rows: np.ndarray, ids: np.ndarray, embedded: np.ndarray,
              first: np.ndarray, coauthors, titles_venues=None) -> np.ndarray:
    """Σ_n w_n s(n, d) over the :data:`FEEDBACK_PAPERS` best candidates n, for every
    candidate d (module docstring); zeros when no candidate scores above 0.

    The three cosines are linear in the vectors, so the weighted sum of the best
    candidates' vectors (embedding, tf-idf and title) is compared once with every
    candidate; only the author counts and venues are looked up per best candidate.
    """
    top = np.argsort(-first, kind="stable")[:FEEDBACK_PAPERS]
    top = top[first[top] > 0]
    if not len(top):
        return np.zeros(len(rows), dtype=np.float32)
    share = (first[top] / first[top].sum()).astype(np.float32)
    terms = np.zeros(table.n_terms, dtype=np.float32)
    authors = np.zeros(len(rows), dtype=np.float32)
    for k, w in zip(top.tolist(), share.tolist()):
        ncols, nweights = table.row(int(rows[k]))
        terms[ncols] += np.float32(w) * nweights
        if coauthors is not None:
            authors += np.float32(w) * np.minimum(
                _shared_counts(coauthors, int(ids[k]), ids), AUTHORS_COUNTED)
    tfidf = np.asarray(table.matrix(rows) @ terms, dtype=np.float32).ravel()
    title, venue = _title_venue(titles_venues, ids[top], share, ids)
    out = hybrid_scores(embedded @ (share @ embedded[top]), tfidf, title=title,
                        same_venue=venue)
    out += np.float32(AUTHOR_BONUS) * authors
    return out
