"""paperdesk's screening order (core/screening/ranker.py) on the sample library's
hand-labelled topics: the undecided papers, each once, in the order of the two models'
mean place, most of the first ones of the topic that was said yes to."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.naive_bayes import MultinomialNB
from sklearn.svm import LinearSVC

from paperdesk.core.discover.evaluation import load_labels
from paperdesk.core.screening.ranker import (NB_ALPHA, NB_RATIO, SVM_C, SVM_RATIO,
                                             build_features, rank)

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


def _weights(y, ratio):
    w = np.where(y == 1, 1.0, (y == 1).sum() / (ratio * (y == 0).sum()))
    return w * len(y) / w.sum()


def test_the_order_is_the_mean_place_of_the_svm_and_naive_bayes(sample):
    matrix, topics = sample
    yes, no = _depth_decisions(topics)
    rows, y = np.r_[yes, no], np.r_[np.ones(len(yes)), np.zeros(len(no))].astype(int)
    rest = np.setdiff1d(np.arange(len(topics)), rows)
    svm = LinearSVC(C=SVM_C, random_state=0).fit(matrix[rows], y,
                                                 sample_weight=_weights(y, SVM_RATIO))
    bayes = MultinomialNB(alpha=NB_ALPHA).fit(matrix[rows], y,
                                              sample_weight=_weights(y, NB_RATIO))
    svm_place = _places(svm.decision_function(matrix[rest]))
    log_p = bayes.predict_log_proba(matrix[rest])
    bayes_place = _places(log_p[:, 1] - log_p[:, 0])
    order = rank(matrix, yes, no, seed=0)
    mean_place = {row: svm_place[i] + bayes_place[i] for i, row in enumerate(rest)}
    places = [mean_place[row] for row in order]
    assert places == sorted(places)
    # and neither model alone gives that order
    assert list(order) != list(rest[np.argsort(svm_place, kind="stable")])
    assert list(order) != list(rest[np.argsort(bayes_place, kind="stable")])


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
