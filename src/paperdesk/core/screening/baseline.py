"""ASReview LAB's default model, ELAS u4, as the simulation's baseline: the ``asreview``
package's own pieces (version 3.0.x; ``pip install -e '.[bench]'``, never a runtime
dependency), driven by paperdesk's replay loop (:mod:`.simulation`) on the same priors
and seeds as paperdesk's order.

The model is the configuration ASReview ships as ``elas_u4``
(``asreview.models.models.AI_MODEL_CONFIGURATIONS``, read from the package, not copied):
its ``Tfidf`` feature extractor (word 1-2 grams, sublinear tf, max_df 0.95) over the
title and abstract columns, its ``SVM`` classifier (a linear SVM, C = 0.11), its
``Balanced`` sample weights (ratio 9.8) and its ``Max`` query strategy, built with
``asreview.learner.ActiveLearningCycle.from_meta``. Each retrain is the cycle's own
``fit`` on the labelled rows and ``rank`` of every row, as ASReview's ``Simulate`` does
(``asreview/simulation/simulate.py``); the loop then takes the best undecided row. Only
the prior differs from ``asreview simulate``: the loop gives it the exact same prior
records as paperdesk's order. The SVM's ``random_state`` is set to the seed so that a
rerun gives the same table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ElasU4Order", "asreview_missing"]


def asreview_missing() -> str | None:
    """Whether the baseline can run.

    Returns:
        None when ``asreview`` (3.0.x) can be imported, else a one-line note saying how
        to install it.
    """
    try:
        import asreview
    except ImportError:
        return ("ASReview's baseline left out: the asreview package is not installed "
                "(pip install -e '.[bench]'); printing the other orders")
    if not str(asreview.__version__).startswith("3.0"):
        return (f"ASReview's baseline left out: asreview {asreview.__version__} is "
                f"installed, the baseline needs 3.0.x (pip install -e '.[bench]')")
    return None


class ElasU4Order:
    """ELAS u4 through ``asreview`` (see the module docstring)."""

    name = "ASReview ELAS u4"
    retrains = True

    def prepare(self, review) -> None:
        """Build ASReview's cycle and its tf-idf features of ``review`` once."""
        import pandas as pd
        from asreview.learner import ActiveLearningCycle
        from asreview.models.models import get_ai_config
        self._cycle = ActiveLearningCycle.from_meta(get_ai_config("elas_u4")["value"])
        frame = pd.DataFrame({"title": review.titles, "abstract": review.abstracts})
        self._matrix = self._cycle.transform(frame)
        self._total = len(review.titles)

    def rank(self, relevant, irrelevant, seed):
        """Fit the cycle on the labelled rows and rank every row with it.

        Returns:
            The undecided rows in the cycle's order (int64 array).
        """
        rows = np.concatenate([np.asarray(relevant, np.int64),
                               np.asarray(irrelevant, np.int64)])
        labels = np.r_[np.ones(len(relevant), int), np.zeros(len(irrelevant), int)]
        self._cycle.classifier.set_params(random_state=seed)
        self._cycle.fit(self._matrix[rows], labels)
        ranking = np.asarray(self._cycle.rank(self._matrix), np.int64)
        decided = np.zeros(self._total, bool)
        decided[rows] = True
        return ranking[~decided[ranking]]
