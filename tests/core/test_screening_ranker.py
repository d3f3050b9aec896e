"""paperdesk's screening order (core/screening/ranker.py) on the sample library's
hand-labelled topics: the undecided papers, each once, in the order of the sum of the
models' standardised scores (the SVM on the words and, with the embeddings extra, the
vectors beside them; and naive Bayes),
most of the first ones of the topic that was said yes to; without the extra, no vectors."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.sparse import csr_matrix, hstack
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import LinearSVC

from paperdesk.core.discover.evaluation import load_labels
from paperdesk.core.screening.ranker import (NB_ALPHA, NB_RATIO, SVM_C, SVM_RATIO,
                                             VECTOR_WEIGHT, build_features, build_vectors,
                                             rank, vector_model)

LABELS = Path(__file__).resolve().parent / "data" / "seed_topics.json"


@pytest.fixture
def sample(seeded_library):
    """(feature matrix, topic per row) of the 225 sample papers."""
    topics_of = load_labels(seeded_library, LABELS)
    ids = sorted(topics_of)
    texts = [f"{p.title}\n{p.abstract}" for p in map(seeded_library.papers.get, ids)]
    return build_features(texts), np.array([topics_of[i] for i in ids])


def _depth_decisions(topics):
    depth = np.flatnonzero(topics == "depth-estimation")
    other = np.flatnonzero(topics != "depth-estimation")
    return list(depth[:3]), list(other[:12])


def test_the_undecided_papers_come_back_once_with_the_topic_first(sample):
    matrix, topics = sample
    yes, no = _depth_decisions(topics)
    order = rank(matrix, yes, no, seed=3)
    assert sorted(order) == sorted(set(range(len(topics))) - set(yes) - set(no))
    assert order.dtype == np.int64
    # 25 depth-estimation papers are left among 210: the first 10 are mostly of them
    assert (topics[order[:10]] == "depth-estimation").sum() >= 8
    assert np.array_equal(order, rank(matrix, yes, no, seed=3))


def _places(scores):
    places = np.empty(len(scores), np.int64)
    places[np.lexsort((np.arange(len(scores)), -scores))] = np.arange(len(scores))
    return places


def _z(scores):
    scores = np.asarray(scores, np.float64)
    return (scores - scores.mean()) / scores.std()


def _in_fused_order(order, rest, fused):
    """Whether ``order`` lists ``rest`` by ``fused`` descending (float32 products in the
    ranker against float64 here: equal within 1e-4)."""
    fused_of = dict(zip(rest, fused))
    values = np.array([fused_of[row] for row in order])
    return bool(np.all(np.diff(values) <= 1e-4))


def _weights(y, ratio):
    w = np.where(y == 1, 1.0, (y == 1).sum() / (ratio * (y == 0).sum()))
    return w * len(y) / w.sum()


def test_the_order_is_the_sum_of_the_svm_and_naive_bayes_z_scores(sample):
    matrix, topics = sample
    yes, no = _depth_decisions(topics)
    rows, y = np.r_[yes, no], np.r_[np.ones(len(yes)), np.zeros(len(no))].astype(int)
    rest = np.setdiff1d(np.arange(len(topics)), rows)
    svm = LinearSVC(C=SVM_C, random_state=0).fit(matrix[rows], y,
                                                 sample_weight=_weights(y, SVM_RATIO))
    bayes = MultinomialNB(alpha=NB_ALPHA).fit(matrix[rows], y,
                                              sample_weight=_weights(y, NB_RATIO))
    svm_scores = svm.decision_function(matrix[rest])
    log_p = bayes.predict_log_proba(matrix[rest])
    bayes_scores = log_p[:, 1] - log_p[:, 0]
    order = rank(matrix, yes, no, seed=0)
    assert _in_fused_order(order, rest, _z(svm_scores) + _z(bayes_scores))
    # not the mean of the two models' places (the order before), nor either model alone
    mean_place = _places(svm_scores) + _places(bayes_scores)
    assert list(order) != list(rest[np.lexsort((rest, mean_place))])
    assert list(order) != list(rest[np.argsort(-svm_scores, kind="stable")])
    assert list(order) != list(rest[np.argsort(-bayes_scores, kind="stable")])


def test_papers_the_models_cannot_tell_apart_come_by_row():
    """Undecided papers without a word score alike in both models: their z-scores are
    zero (not a division by zero) and they come in row order."""
    matrix = build_features(["depth estimation from one image", "", "cats on photos",
                             "", ""])
    order = rank(matrix, [0], [2], seed=0)
    assert list(order) == [1, 3, 4]


def test_without_a_relevant_paper_the_order_is_random_but_fixed(sample):
    matrix, _ = sample
    first = rank(matrix, [], [0], seed=5)
    assert sorted(first) == list(range(1, matrix.shape[0]))
    assert np.array_equal(first, rank(matrix, [], [0], seed=5))
    assert not np.array_equal(first, rank(matrix, [], [0], seed=6))
    assert len(rank(matrix, list(range(matrix.shape[0] - 1)), [matrix.shape[0] - 1])) == 0


def test_with_yes_but_no_no_yet_the_papers_most_like_the_yes_come_first(sample):
    """Papers tagged before a screening count as yes: until the first no, the order was
    random; now it is by similarity to what was said yes to."""
    matrix, topics = sample
    yes, _ = _depth_decisions(topics)
    order = rank(matrix, yes, [], seed=5)
    assert sorted(order) == sorted(set(range(len(topics))) - set(yes))
    assert np.array_equal(order, rank(matrix, yes, [], seed=6))      # no randomness
    top = topics[order[:10]]
    assert (top == "depth-estimation").sum() >= 8, list(top)


def test_features_of_texts_without_words():
    with pytest.raises(ValueError, match="no papers"):
        build_features([])
    assert build_features(["", "the"]).shape == (2, 1)
    assert build_features(["one paper alone"]).shape[0] == 1


@pytest.fixture
def sample_vectors(seeded_library):
    """The WordLlama vectors of the 225 sample papers (in :func:`sample`'s row order)."""
    topics_of = load_labels(seeded_library, LABELS)
    texts = [f"{p.title}\n{p.abstract}" for p in map(seeded_library.papers.get,
                                                      sorted(topics_of))]
    vectors, model = build_vectors(texts)
    if vectors is None:
        pytest.skip(model)              # the embeddings extra is not installed
    assert model == "wordllama-l2-supercat-256" and vectors.shape == (len(texts), 256)
    return vectors


def test_with_vectors_the_svm_sees_them_beside_the_words(sample, sample_vectors):
    matrix, topics = sample
    yes, no = _depth_decisions(topics)
    rows, y = np.r_[yes, no], np.r_[np.ones(len(yes)), np.zeros(len(no))].astype(int)
    rest = np.setdiff1d(np.arange(len(topics)), rows)
    words_only = rank(matrix, yes, no, seed=0)
    both = rank(matrix, yes, no, seed=0, vectors=sample_vectors)
    assert sorted(both) == sorted(words_only) and both.dtype == np.int64
    assert list(both) != list(words_only)
    # the SVM on the tf-idf with the vectors times VECTOR_WEIGHT as more columns
    joined = hstack([matrix, csr_matrix(sample_vectors * VECTOR_WEIGHT)]).tocsr()
    svm = LinearSVC(C=SVM_C, random_state=0).fit(joined[rows], y,
                                                 sample_weight=_weights(y, SVM_RATIO))
    bayes = MultinomialNB(alpha=NB_ALPHA).fit(matrix[rows], y,
                                              sample_weight=_weights(y, NB_RATIO))
    log_p = bayes.predict_log_proba(matrix[rest])
    assert _in_fused_order(both, rest, _z(svm.decision_function(joined[rest]))
                           + _z(log_p[:, 1] - log_p[:, 0]))
    assert (topics[both[:10]] == "depth-estimation").sum() >= 8


def test_without_the_embedding_package_there_are_no_vectors(monkeypatch):
    # as if wordllama were not installed: importlib finds no such package
    monkeypatch.setitem(sys.modules, "wordllama", None)
    assert vector_model() is None
    vectors, reason = build_vectors(["a paper", "another paper"])
    assert vectors is None
    assert reason == ("the package wordllama is not installed "
                      "(pip install 'paperdesk[embeddings]')")
