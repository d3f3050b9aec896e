"""The order of the papers of a screening not yet decided: classifiers trained on the
decisions so far rank the rest, most likely relevant first ("certainty-based" or "max"
query strategy, as ASReview LAB's models do, https://asreview.readthedocs.io).

The model, retrained from scratch on every call (no state is kept between calls):

* **Features** (:func:`build_features`, once per screening): tf-idf of words and word
  pairs (1-2 grams), sublinear term frequency, terms in more than 95 % of the papers
  left out, rows of unit length: the features of ASReview's ELAS u4.
* **Vectors** (:func:`build_vectors`, once per screening, when the optional
  ``wordllama`` package is installed: ``pip install 'paperdesk[embeddings]'``): each
  paper's WordLlama vector (256 dimensions, unit length,
  :class:`paperdesk.core.embeddings.static_model.StaticModel`), the dense features
  ASReview's heavier models get from sentence embeddings.
* **Two classifiers on the decided rows**: a linear SVM (scikit-learn's ``LinearSVC``,
  squared hinge, C = 0.3: :data:`SVM_C`) on the words and, with vectors, the vectors
  times 0.5 beside them (:data:`VECTOR_WEIGHT`: one model over both, the vectors seeing
  related words as near), with the relevant papers weighted up so that their total
  weight is 9.8 times that of the irrelevant ones ("balanced" sample weights, ratio
  9.8: ELAS u4's, tuned by ASReview on the SYNERGY reviews; ELAS u4's C is 0.11, the
  fusion below did better with a less regularised SVM); and a multinomial naive Bayes
  on the words (alpha 3.822, ratio 1.2: ELAS u3's, ASReview LAB 1's default model).
* **Their scores standardised and added**: each model's scores of the undecided papers
  are turned into z-scores (minus their mean, over their standard deviation:
  :func:`_standardised`) and the two are added; the highest sum comes first, ties by
  row number (score fusion by z-score, Montague & Aslam, "Relevance score normalization
  for metasearch", CIKM 2001). The two models err on different papers (naive Bayes
  counts words, the SVM weighs them against each other), so a relevant paper one of
  them ranks low is still found early when the other is sure of it; unlike the mean of
  the two places (the order before), a model's confidence counts, not only its order.
  Without vectors the SVM is on the words alone (docs/screening.md, "What was tried",
  says what the vectors and the fusion add and what else was measured).

The functions take a feature matrix (one row per paper of the screening, built once with
:func:`build_features`) and the rows decided so far, and return the undecided rows in
order. They know nothing of the library, so the simulation and the window run the same
code. Measured in docs/screening.md, "How well it works" (``make evaluate``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["build_features", "build_vectors", "vector_model", "rank", "SVM_C", "SVM_RATIO",
           "NB_ALPHA", "NB_RATIO", "VECTOR_WEIGHT"]

#: The SVM's regularisation (ELAS u4's is 0.11; 0.3 was better with the z-score fusion on
#: seeds 0-4 and confirmed on seeds 5-9: docs/screening.md, "What was tried").
SVM_C = 0.3
#: Relevant-to-irrelevant total weight in the SVM's training (ELAS u4's).
SVM_RATIO = 9.8
#: Naive Bayes's additive smoothing (ELAS u3's).
NB_ALPHA = 3.822
#: Relevant-to-irrelevant total weight in naive Bayes's training (ELAS u3's).
NB_RATIO = 1.2
#: The vectors' scale beside the words' unit-length tf-idf rows in the SVM.
VECTOR_WEIGHT = 0.5


def build_features(texts: Sequence[str]):
    """The feature matrix of a screening's papers.

    Args:
        texts: one text per paper (title and abstract joined), in row order.
    Returns:
        A scipy.sparse CSR matrix of float32, one row per text (tf-idf of words and word
        pairs, sublinear tf, terms in more than 95 % of the texts left out, rows of unit
        length).
    Raises:
        ValueError: ``texts`` is empty.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    if not texts:
        raise ValueError("no papers to screen")
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1,
                                 max_df=0.95 if len(texts) > 1 else 1.0, dtype=np.float32)
    try:
        return vectorizer.fit_transform(texts).tocsr()
    except ValueError:          # no word in any text, or every word in nearly every text
        from scipy.sparse import csr_matrix
        return csr_matrix((len(texts), 1), dtype=np.float32)


def vector_model() -> str | None:
    """The name of the model :func:`build_vectors` uses, or None when its package is
    not installed (checked without loading it: a cache key, a report's note)."""
    import importlib.util

    from paperdesk.core.embeddings.static_model import StaticModel
    try:
        found = importlib.util.find_spec("wordllama") is not None
    except (ImportError, ValueError):
        found = False
    return StaticModel.name if found else None


def build_vectors(texts: Sequence[str]) -> tuple[np.ndarray | None, str]:
    """The dense vectors of a screening's papers, when the embedding model is installed.

    Args:
        texts: one text per paper (title and abstract joined), in row order.
    Returns:
        ``(vectors, note)``: float32 array (len(texts), 256) of unit-length rows (all
        zeros for a text without a token) and the model's name; or ``(None, reason)``,
        the reason in one line, when the ``wordllama`` package (the ``embeddings``
        extra) or a file of it is missing: the order then uses the words alone.
    """
    from paperdesk.core.embeddings.static_model import ModelUnavailable, StaticModel
    try:
        model = StaticModel()
    except ModelUnavailable as exc:
        return None, str(exc)
    return model.encode(list(texts)), model.name


def _balanced_weights(labels: np.ndarray, ratio: float) -> np.ndarray:
    """Sample weights: the relevant rows' total ``ratio`` times the irrelevant rows',
    scaled to sum to the number of rows (ASReview's ``Balanced`` balancer)."""
    relevant = labels == 1
    weights = np.where(relevant, 1.0, relevant.sum() / (ratio * (~relevant).sum()))
    return weights * (len(labels) / weights.sum())


def _standardised(scores: np.ndarray) -> np.ndarray:
    """The scores as z-scores: minus their mean, over their standard deviation (float64;
    all zeros when the scores are all equal)."""
    scores = np.asarray(scores, np.float64)
    spread = scores.std()
    centred = scores - scores.mean()
    return centred / spread if spread > 0 else np.zeros_like(centred)


def rank(matrix, relevant: Sequence[int], irrelevant: Sequence[int],
         seed: int = 0, vectors: np.ndarray | None = None) -> np.ndarray:
    """The undecided rows, most likely relevant first.

    Args:
        matrix: from :func:`build_features` (n rows).
        relevant: rows decided relevant.
        irrelevant: rows decided not relevant (disjoint from ``relevant``).
        seed: seeds any randomness (the order is the same for the same input).
        vectors: from :func:`build_vectors` (n rows), or None: the SVM on the words
            alone.
    Returns:
        int64 array of the rows in neither list, best first. With relevant rows but no
        irrelevant one yet (papers tagged before the screening, then a first *yes*),
        no classifier can be learned: the rows come by their similarity to the
        relevant rows' mean (the centroid of Rocchio's relevance feedback, Manning,
        Raghavan & Schütze, *Introduction to Information Retrieval*, 2008, ch. 9.1),
        ties by row. With no relevant row there is nothing to go by: a random order
        fixed by ``seed``.
    """
    n = matrix.shape[0]
    decided = np.zeros(n, bool)
    pos = np.asarray(relevant, np.int64)
    neg = np.asarray(irrelevant, np.int64)
    decided[pos] = True
    decided[neg] = True
    rest = np.flatnonzero(~decided)
    if len(rest) == 0:
        return rest.astype(np.int64)
    if len(pos) == 0:
        return np.random.default_rng(seed).permutation(rest).astype(np.int64)
    if len(neg) == 0:
        centroid = np.asarray(matrix[pos].mean(axis=0)).ravel()
        scores = np.asarray(matrix[rest] @ centroid).ravel()
        return rest[np.lexsort((rest, -scores))].astype(np.int64)
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.svm import LinearSVC
    rows = np.concatenate([pos, neg])
    y = np.concatenate([np.ones(len(pos), np.int64), np.zeros(len(neg), np.int64)])
    train = matrix[rows]
    svm = LinearSVC(C=SVM_C, loss="squared_hinge", random_state=seed)
    if vectors is None:
        svm.fit(train, y, sample_weight=_balanced_weights(y, SVM_RATIO))
        svm_weights = svm.coef_[0]
    else:
        # only the decided rows are joined; every row is scored by two products
        from scipy.sparse import csr_matrix, hstack
        joined = hstack([train, csr_matrix(vectors[rows] * VECTOR_WEIGHT)]).tocsr()
        svm.fit(joined, y, sample_weight=_balanced_weights(y, SVM_RATIO))
        svm_weights = svm.coef_[0][:matrix.shape[1]]
        vector_weights = (svm.coef_[0][matrix.shape[1]:] * VECTOR_WEIGHT).astype(vectors.dtype)
    bayes = MultinomialNB(alpha=NB_ALPHA)
    bayes.fit(train, y, sample_weight=_balanced_weights(y, NB_RATIO))
    # both scores for every row at once (one product each), then the undecided rows
    # (in the matrix's float32, so that the matrix is not copied to float64)
    svm_scores = matrix @ svm_weights.astype(matrix.dtype)
    if vectors is not None:
        svm_scores += vectors @ vector_weights
    svm_scores = svm_scores[rest]
    log_odds = bayes.feature_log_prob_[1] - bayes.feature_log_prob_[0]
    bayes_scores = (matrix @ log_odds.astype(matrix.dtype))[rest]
    fused = _standardised(svm_scores) + _standardised(bayes_scores)
    return rest[np.lexsort((rest, -fused))].astype(np.int64)
