"""The common query shapes are evaluated without arrays over every document (issue 28):
a word (an ``Or`` of its fields), words ANDed, ORed, and a ``tag:`` or ``is:starred``
beside them. At a million documents the dense bool and float arrays per query node were
a search's fixed cost. The sparse path must give the same documents with the same score
bits as the dense one (the scores are added in the same order), so the same order."""

from __future__ import annotations

import random

import numpy as np
import pytest

from whoosh import query as wq

from paperdesk.core.search import fastscore
from paperdesk.core.search.fastscore import FastView

#: Shapes the sparse path answers on the seed library (no dense array at all).
SPARSE = ("depth estimation", "depth OR width OR attention", "tag:third depth",
          "is:starred model", "title:model abstract:depth", "title:model^3 depth",
          "(depth OR width) AND estimation", "zzzzunknown", "model zzzz")
#: Shapes left to the dense arrays (prefixes, fuzzy words, phrases, NOT, a common word).
DENSE = ("transf*", "netwrk~", '"neural networks"', "depth -estimation", "NOT model",
         "is:starred", "the OR model OR depth OR learning")


@pytest.fixture
def lib(seeded_library, monkeypatch):
    """The seed library with a tag on every third paper and a few starred. Its 225
    papers make most words common: the sparse path is allowed up to every document."""
    monkeypatch.setattr(fastscore, "SPARSE_SHARE", 1e9)
    lib = seeded_library
    ids = lib.papers.ids()
    lib.tags.add(ids[::3], "third")
    lib.papers.set_starred(ids[::5], True)
    return lib


def _both(lib, query: str, monkeypatch, **scope):
    """``find``'s every match (ids, scores) with and without the sparse path."""
    monkeypatch.setattr(fastscore, "SPARSE_PATH", False)
    dense = lib.search.find(query, limit=None, **scope)
    monkeypatch.setattr(fastscore, "SPARSE_PATH", True)
    sparse = lib.search.find(query, limit=None, **scope)
    return dense, sparse


def _same(dense, sparse, query: str) -> None:
    assert sparse.total == dense.total, query
    assert sparse.ids.tolist() == dense.ids.tolist(), query
    assert sparse.scores.view(np.uint64).tolist() == dense.scores.view(np.uint64).tolist(), \
        query


@pytest.mark.parametrize("query", SPARSE + DENSE)
def test_sparse_and_dense_give_the_same_hits_and_score_bits(lib, monkeypatch, query):
    _same(*_both(lib, query, monkeypatch), query)
    tag = lib.tags.by_name("third").id
    _same(*_both(lib, query, monkeypatch, tag_id=tag), query)


@pytest.mark.parametrize("query", SPARSE)
def test_the_common_shapes_build_no_array_over_every_document(lib, monkeypatch, query):
    def dense(view, q):
        raise AssertionError(f"dense evaluation of {q!r}")

    monkeypatch.setattr(FastView, "evaluate", dense)
    monkeypatch.setattr(FastView, "_zeros", dense)
    found = lib.search.find(query, limit=5)
    assert lib.index.whoosh.last_path == "fast"
    assert found.total == len(found.ids)


def test_a_common_word_stays_dense(lib, monkeypatch):
    """An ``Or`` with postings for more than SPARSE_SHARE of the documents is cheaper
    with the dense arrays than with a sort of its postings."""
    monkeypatch.setattr(fastscore, "SPARSE_SHARE", 0.125)
    seen = []
    real = FastView.evaluate
    monkeypatch.setattr(FastView, "evaluate", lambda view, q: seen.append(q) or real(view, q))
    assert lib.search.find("depth", limit=5).total > \
        lib.papers.count() * fastscore.SPARSE_SHARE
    assert seen


def test_random_and_or_of_seed_words_agree(lib, monkeypatch):
    """Random ANDs and ORs of seed words, with field names, boosts and a tag."""
    rng = random.Random(28)
    words = ["model", "depth", "estimation", "attention", "width", "image", "video",
             "language", "learning", "network", "zzzz", "benchmark", "generation"]
    for _ in range(60):
        parts = [rng.choice(["", "title:", "abstract:"]) + rng.choice(words)
                 + rng.choice(["", "", "^2", "^0.5"]) for _ in range(rng.randint(1, 4))]
        glue = rng.choice([" ", " OR ", " AND "])
        query = glue.join(parts)
        if rng.random() < 0.3:
            query = f"tag:third ({query})"
        _same(*_both(lib, query, monkeypatch), query)


@pytest.mark.parametrize("make", [
    lambda: wq.Prefix("abstract", "de", constantscore=False),
    lambda: wq.Prefix("title", "learn", constantscore=False, boost=2.0),
    lambda: wq.FuzzyTerm("abstract", "netwrk", maxdist=1, constantscore=False),
    lambda: wq.Prefix("abstract", "de"),      # unscored in small segments: 1.0 each
])
def test_prefix_words_scored_segment_by_segment_in_one_pass_keep_their_bits(lib, make):
    """A prefix's or fuzzy word's postings are scored a segment at a time in one pass
    (its words end to end); the scores must be those of adding word after word."""
    q = make()
    index = lib.index.whoosh
    with index._lock:
        view = index._view()
        node = view.evaluate(q)
        expected = np.zeros(view.n)
        field = view.schema[q.fieldname]
        for reader, base, seg in view.leaves:
            words = [w if isinstance(w, bytes) else field.to_bytes(w)
                     for w in fastscore.leaf_words(q, reader) if w]
            scored = (len(words) == 1 or not q.constantscore or len(words) == 2
                      or seg.doccount > 5000)
            for w in words:
                local, weights = view.cache.term(reader, q.fieldname, w)
                if not len(local):
                    continue
                if not scored:
                    expected[local + base] = 1.0
                    continue
                scores = view._term_scores(q.fieldname, w, local + base, weights)
                expected[local + base] += scores * (q.boost if len(words) > 1 else 1.0)
    assert node.match.sum() > 3
    assert np.flatnonzero(node.match).tolist() == np.flatnonzero(expected).tolist()
    assert node.score.view(np.uint64).tolist() == expected.view(np.uint64).tolist()
