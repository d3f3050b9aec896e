"""Search by meaning (issue 27): a query that starts with ``~`` (``~papers that estimate
depth from one photo``; ``paperdesk search --semantic``) ranks the papers by the query's
embedding and by BM25, fused.

* **BM25**: the query's words as one OR query over the abstracts, each word weighted by
  the Bo1 model, ranked by BM25F (the "more like this" of
  :meth:`~paperdesk.core.search.index.SearchIndex.more_like`: a natural-language query
  whose words are not all in any one paper still finds the papers with most of them);
* **embedding**: the cosine of the query's vector
  (:class:`~paperdesk.core.embeddings.static_model.StaticModel`) with the papers'
  stored vectors;
* **reciprocal rank fusion** (Cormack, Clarke and Büttcher, SIGIR 2009): a paper's score
  is the sum over the two lists of 1 / (:data:`RRF_K` + its rank), ranks from 1; the
  first :data:`DEPTH` of each list take part. The score shown is that sum divided by
  its highest possible value (first in every list that took part): 1.00 is first in
  both lists, 0.87 tenth in both, 0.50 first in one and absent from the other (a raw
  sum, 0.016-0.033, would print 0.03 for nearly every hit).
* **a floor**: the embedding's list holds only papers whose cosine with the query is at
  least :data:`MIN_COSINE`, so a query that means nothing to the model (made-up words)
  answers nothing rather than the papers nearest to it.

Without the model or the vectors (not installed, or not embedded yet) the BM25 list
alone answers, and :func:`search_by_meaning` says why in one line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.search.query import MEANING_PREFIX, meaning_text  # noqa: F401 (re-exported)

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["MEANING_PREFIX", "RRF_K", "DEPTH", "MIN_COSINE", "meaning_text", "search_by_meaning",
           "fuse"]

#: Reciprocal rank fusion's constant (the paper's 60).
RRF_K = 60
#: Papers of each list fused.
DEPTH = 200
#: The least cosine of the query's embedding with a paper's for the paper to be in the
#: embedding's list (below it, the paper comes only by its words). Without it a query of
#: nonsense ("~zzzz qqqq") answered the 200 papers nearest to it. Measured on the SYNERGY
#: reviews: the titles used as queries have a second-best cosine (the best is their own
#: paper) of 0.21-0.50 (5th percentile) and 0.54-0.64 (median); two made-up words have a
#: second-best of 0.18-0.24 (median) and at most 0.26-0.32 (95th percentile), and their
#: eleventh-best is below 0.25 in 95 of 100; the evaluation with titles as queries is
#: unchanged (nDCG@10 0.141, recall@20 0.228 -> 0.227: floors 0.1-0.4 give 0.140-0.141).
MIN_COSINE = 0.25


def fuse(*rankings, lists: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Reciprocal rank fusion of ranked id lists.

    Args:
        rankings: sequences of paper ids, best first.
        lists: how many lists could have answered (default: as many as given). A list
            that answered nothing still counts: a query none of whose words is in the
            library is not a perfect match because the embedding's list is first.
    Returns:
        ``(ids int64, scores float64 in 0..1)``, best first (ties by id): each the sum
        of 1 / (:data:`RRF_K` + rank) over the lists, divided by its highest possible
        value, ``lists`` / (:data:`RRF_K` + 1).
    """
    score: dict[int, float] = {}
    lists = len(rankings) if lists is None else lists
    for ranking in rankings:
        for rank, pid in enumerate(ranking, 1):
            score[int(pid)] = score.get(int(pid), 0.0) + 1.0 / (RRF_K + rank)
    ids = np.fromiter(score, dtype=np.int64, count=len(score))
    values = np.fromiter(score.values(), dtype=np.float64, count=len(score))
    values *= (RRF_K + 1) / max(lists, 1)
    order = np.lexsort((ids, -values))
    return ids[order], values[order]


def search_by_meaning(lib: "Library", text: str, leave_out: int | None = None,
                      depth: int = DEPTH) -> tuple[np.ndarray, np.ndarray, str]:
    """Rank the library's papers for a text by its meaning and its words.

    Args:
        lib: the open library.
        text: the query (without the ``~``).
        leave_out: a paper id never answered (the evaluation's query paper).
        depth: papers taken from each list.
    Returns:
        ``(ids, scores, note)``: fused ranking (module docstring), and a one-line note
        when the embedding took no part (why), else ``""``.
    """
    words = [pid for pid, _s in lib.index.whoosh.more_like(
        -1 if leave_out is None else leave_out, text, depth)]
    meaning, note = lib.discover.embeddings.nearest_to_text(text, depth + 1, MIN_COSINE)
    meaning = [pid for pid in meaning if pid != leave_out][:depth]
    # the embedding's list counts when the model answered (no note), even if empty
    return (*fuse(words, meaning, lists=2 if not note else 1), note)
