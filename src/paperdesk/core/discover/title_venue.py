"""Each paper's title as a small tf-idf vector, its venue as a code and its year: three
more pair features for hybrid related papers (:mod:`.hybrid`).

A title says in a few words what a paper is about; two papers whose titles share rare
words cite each other more often than their abstracts' words alone say, and a journal
gathers the papers of one field. On the citation evaluation (:mod:`.related_evaluation`,
the "What was tried" table in docs/discover.md) 0.15 x the titles' cosine and 0.04 for
the same venue lift the hybrid's nDCG@10 from 0.392 to 0.402.

Title vectors follow the term table's weighting (:mod:`.vectorize`: the words of
:func:`~.vectorize.analyze`, sublinear term frequency ``1 + ln tf``, scikit-learn's
smoothed idf ``ln((1 + n) / (1 + df)) + 1`` with ``n`` and ``df`` counted over the
titles; https://scikit-learn.org/stable/modules/feature_extraction.html#tfidf-term-weighting)
over a vocabulary of their own (every title word, as a word of one title still makes a
title's length), scaled to unit length, so a dot product of two rows is the titles'
cosine. A venue is the ``venue`` column case folded with its spaces collapsed; an empty
one is unknown and matches nothing. A year is the first four digits of the ``date``
column (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``); a paper without one is never earlier
or later than another.

Memory: the index keeps only integers and the sparse rows: 8 MB at 100,000 papers (8
title terms each; the years 0.2 MB), built in about 2 s from one ``SELECT id, title,
venue, date`` off the UI thread
(:class:`~.engine.Discover` builds it with the co-author index, at the first related
papers after texts or metadata changed).
"""

from __future__ import annotations

import numpy as np

__all__ = ["TitleVenueIndex", "venue_key", "year_of"]


def venue_key(venue: str | None) -> str:
    """The form of a venue two spellings of it share: case folded, runs of white space
    one space, stripped (``""`` for none)."""
    return " ".join((venue or "").casefold().split())


def year_of(date: str | None) -> int:
    """The year of a ``papers.date`` value (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``), or
    0 when there is none or it does not start with four digits."""
    head = (date or "")[:4]
    return int(head) if len(head) == 4 and head.isascii() and head.isdigit() else 0


class TitleVenueIndex:
    """Title vectors, venue codes and years of papers, by paper id.

    Args:
        rows: ``(paper id, title or None, venue or None[, date or None])`` of every
            paper (without a date, every year is unknown).
    """

    def __init__(self, rows):
        from scipy.sparse import csr_matrix

        from paperdesk.core.discover.vectorize import analyze, load_stop_words

        load_stop_words()
        column_of: dict[str, int] = {}
        venue_of: dict[str, int] = {}
        ids: list[int] = []
        venues: list[int] = []
        years: list[int] = []
        lengths: list[int] = []
        words: list[str] = []
        for pid, title, venue, *date in rows:
            ids.append(int(pid))
            years.append(year_of(date[0]) if date else 0)
            key = venue_key(venue)
            venues.append(venue_of.setdefault(key, len(venue_of) + 1) if key else 0)
            found = analyze(title or "")
            words.extend(found)
            lengths.append(len(found))
        n = len(ids)
        columns = np.fromiter((column_of.setdefault(w, len(column_of)) for w in words),
                              dtype=np.int64, count=len(words))
        del words
        width = max(1, len(column_of))
        owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
        # each (paper, column) once with its count, in paper order: one sort, no loop
        pairs, tf = np.unique(owner * width + columns, return_counts=True)
        owner, columns = pairs // width, (pairs % width).astype(np.int32)
        df = np.bincount(columns, minlength=width)
        data = (1.0 + np.log(tf)) * (np.log((1.0 + n) / (1.0 + df)) + 1.0)[columns]
        norms = np.sqrt(np.bincount(owner, weights=data ** 2, minlength=n))
        norms[norms == 0] = 1.0
        data /= norms[owner]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=n), out=indptr[1:])
        order = np.argsort(np.asarray(ids, dtype=np.int64), kind="stable")
        matrix = csr_matrix((data.astype(np.float32), columns, indptr), shape=(n, width))
        #: Paper ids ascending; row ``i`` of :attr:`titles` and :attr:`venues` is ``ids[i]``.
        self.ids = np.asarray(ids, dtype=np.int64)[order]
        #: Unit-length title vectors (CSR, float32), one row per id.
        self.titles = matrix[order]
        #: Venue code per id (int64; 0: unknown, matches nothing).
        self.venues = np.asarray(venues, dtype=np.int64)[order]
        #: Year per id (int16; 0: unknown).
        self.years = np.asarray(years, dtype=np.int16)[order]

    @classmethod
    def build(cls, db) -> "TitleVenueIndex":
        """The index of every paper of a library.

        Args:
            db: the library's SQLite connection (``papers.title``, ``papers.venue``,
                ``papers.date``).
        Returns:
            The index.
        Raises:
            sqlite3.Error: the database cannot be read.
        """
        return cls(db.execute("SELECT id, title, venue, date FROM papers"))

    def positions(self, paper_ids) -> np.ndarray:
        """The index row of each paper id, or -1 for a paper it does not hold (int64)."""
        paper_ids = np.asarray(paper_ids, dtype=np.int64)
        if not len(self.ids):
            return np.full(len(paper_ids), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ids, paper_ids), len(self.ids) - 1)
        return np.where(self.ids[at] == paper_ids, at, -1)

    def features(self, paper_ids, weights: np.ndarray, others) -> tuple[np.ndarray,
                                                                         np.ndarray]:
        """How much each of ``others`` is like some papers, by title and by venue.

        Args:
            paper_ids: the papers compared (``k`` ids).
            weights: a weight per paper compared (``k`` floats; one paper with weight 1
                gives its own features).
            others: the ``m`` papers they are compared with (ids).
        Returns:
            ``(title, venue)``: float32 arrays of ``m``: Σ weight x cosine of the titles,
            and Σ weight x (1 when the two have one known venue, else 0). A paper the
            index does not hold (added since it was built) counts 0 in both.
        """
        mine = self.positions(paper_ids)
        theirs = self.positions(others)
        weights = np.asarray(weights, dtype=np.float32)
        held, there = mine >= 0, theirs >= 0
        title = np.zeros(len(theirs), dtype=np.float32)
        venue = np.zeros(len(theirs), dtype=np.float32)
        if not held.any() or not there.any():
            return title, venue
        query = np.asarray(self.titles[mine[held]].T @ weights[held]).ravel()
        title[there] = self.titles[theirs[there]] @ query.astype(np.float32)
        codes = self.venues[theirs[there]]
        for code, w in zip(self.venues[mine[held]].tolist(), weights[held].tolist()):
            if code:
                venue[there] += np.float32(w) * (codes == code)
        return title, venue

    def earlier(self, paper_id: int, others) -> np.ndarray:
        """Which of ``others`` appeared in an earlier year than ``paper_id``.

        Args:
            paper_id: the paper asked about.
            others: paper ids (``m``).
        Returns:
            float32 array of ``m``: 1 where both years are known and the other's is
            smaller, else 0 (also for a paper the index does not hold).
        """
        theirs = self.positions(others)
        out = np.zeros(len(theirs), dtype=np.float32)
        mine = int(self.positions([paper_id])[0])
        year = int(self.years[mine]) if mine >= 0 else 0
        if year:
            there = theirs >= 0
            found = self.years[theirs[there]]
            out[there] = ((found > 0) & (found < year)).astype(np.float32)
        return out
