"""Try a change to the hybrid related papers quickly, over each review's full matrices
(issue 27; the "What was tried" tables in docs/discover.md).

``make evaluate-related`` asks the app for every query, which takes minutes; a try of a
feature or a weight needs only the pair scores. This script imports each SYNERGY review
into a library of its own once (kept in ``--cache``), reads from it every pair feature
the hybrid uses (:mod:`paperdesk.core.discover.hybrid`): the embedding's and the term
table's cosines, the titles' cosines, shared authors and the same venue, as dense
``papers x papers`` matrices (at most 1,175 papers a review), and scores the hybrid of
the module docstring of :mod:`~paperdesk.core.discover.hybrid` with numpy over all papers
(the app scores only its candidates, which on libraries this small gives the same
figure: 0.4019 both on 2026-12-06). It prints nDCG@10 (binary gains, Järvelin and
Kekäläinen 2002, as :func:`~paperdesk.core.discover.related_evaluation.ndcg_at`) per
review and over all queries, for the app's answers and for this script's, so a change to
:func:`hybrid` here can be measured against the same queries in seconds.

Run ``.venv/bin/python tools/related_tries.py [--data ../shared/synergy] [--cache DIR]``.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

LOG = 1.0 / np.log2(np.arange(2, 12))


def dump(name: str, csl: Path, labels: Path, cache: Path) -> dict:
    """One review's pair features and queries, read from a library built in ``cache``
    (built on the first call, reused after).

    Returns:
        ``{"name", "ids" (table order), "Ecos", "Tcos", "Ticos", "Vm", "Am"
        (n x n float32: embedding, tf-idf and title cosines, same venue 0/1, shared
        authors at most 3), "q" [(row, relevant rows)], "app" {paper id: the app's 20
        related ids}}``.
    """
    from paperdesk.core.discover.coauthors import CoauthorIndex
    from paperdesk.core.discover.related_evaluation import (_texts, _work_papers,
                                                            citation_links,
                                                            relevant_sets)
    from paperdesk.core.discover.title_venue import TitleVenueIndex
    from paperdesk.core.library import Library

    with Library.open(cache / name) as lib:
        if not lib.db.execute("SELECT count(*) FROM papers").fetchone()[0]:
            lib.imports.run([csl])
        lib.discover.ensure()
        lib.discover.embeddings.ensure()
        table = lib.discover._current()
        ids = np.asarray(table.valid_ids())
        T = table.matrix(table.rows_of(ids)).astype(np.float32)
        vec = lib.discover.embeddings.current()
        vrows = vec.rows_of(ids)
        E = np.zeros((len(ids), vec.vectors(vrows[:1]).shape[1]), np.float32)
        E[vrows >= 0] = vec.vectors(vrows[vrows >= 0])
        E /= np.maximum(np.linalg.norm(E, axis=1, keepdims=True), 1e-9)
        pos = {int(p): i for i, p in enumerate(ids)}
        co = CoauthorIndex.build(lib.db)
        A = np.zeros((len(ids), len(ids)), np.float32)
        for i, p in enumerate(ids):
            sid, cnt = co.shared(int(p))
            for s, c in zip(sid.tolist(), cnt.tolist()):
                if s in pos:
                    A[i, pos[s]] = min(c, 3)
        tv = TitleVenueIndex.build(lib.db)
        at = tv.positions(ids)
        Ti, V = tv.titles[at], tv.venues[at]
        paper_of = _work_papers(lib, csl, labels)
        texts = dict(zip(*_texts(lib)))
        queries = []
        for work, rel in sorted(relevant_sets(citation_links(labels)).items()):
            pid = paper_of.get(work)
            if pid is None or pid not in pos or not texts.get(pid, "").strip():
                continue
            rel_rows = sorted({pos[paper_of[w]] for w in rel
                               if w in paper_of and paper_of[w] in pos} - {pos[pid]})
            if rel_rows:
                queries.append((pos[pid], np.asarray(rel_rows)))
        app = {pos[int(ids[q])]: [pos.get(r.id, -1) for r in lib.discover.related(
            int(ids[q]), 20)] for q, _r in queries}
    return {"name": name, "ids": ids, "Ecos": E @ E.T,
            "Tcos": (T @ T.T).toarray().astype(np.float32),
            "Ticos": (Ti @ Ti.T).toarray().astype(np.float32),
            "Vm": ((V[:, None] == V[None, :]) & (V[:, None] > 0)).astype(np.float32),
            "Am": A, "q": queries, "app": app}


def hybrid(d: dict, emb: float = 0.3, title: float = 0.15, venue: float = 0.04,
           author: float = 0.08, feedback: float = 1.0, best: int = 5) -> np.ndarray:
    """The hybrid's score of every pair (rows: the paper asked), as
    :func:`~paperdesk.core.discover.hybrid.hybrid_rows` computes it for its candidates
    (without the final norm, which does not change the order)."""
    S = (emb * d["Ecos"] + (1 - emb) * np.maximum(d["Tcos"], 0) + author * d["Am"]
         + title * d["Ticos"] + venue * d["Vm"])
    own = S.copy()
    np.fill_diagonal(own, -np.inf)
    top = np.argpartition(-own, best, axis=1)[:, :best]
    w = np.maximum(np.take_along_axis(own, top, 1), 0)
    w /= np.maximum(w.sum(1, keepdims=True), 1e-12)
    return S + feedback * np.einsum("qk,qkn->qn", w, S[top])


def ndcg(ranked, relevant: np.ndarray) -> float:
    """nDCG@10 of rows ``ranked`` (best first) against the relevant rows."""
    rel = set(relevant.tolist())
    dcg = sum(LOG[i] for i, r in enumerate(list(ranked)[:10]) if r in rel)
    return dcg / LOG[:min(len(rel), 10)].sum()


def scores_of(d: dict, S: np.ndarray) -> list[float]:
    """nDCG@10 of each query of ``d`` ranked by the rows of ``S`` (the paper itself
    left out, ties by row)."""
    out = []
    for q, rel in d["q"]:
        s = S[q].astype(np.float64)
        s[q] = -np.inf
        out.append(ndcg(np.argsort(-s, kind="stable")[:10], rel))
    return out


def main() -> int:
    from paperdesk.core.discover.tag_evaluation import synergy_reviews

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "synergy")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/paperdesk-related-tries"))
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    app_all, here_all = [], []
    for name, csl, labels in synergy_reviews(args.data):
        pickled = args.cache / f"{name}.pkl"
        if pickled.exists():
            d = pickle.loads(pickled.read_bytes())
        else:
            d = dump(name, csl, labels, args.cache)
            pickled.write_bytes(pickle.dumps(d))
        app = [ndcg(d["app"][q], rel) for q, rel in d["q"]]
        here = scores_of(d, hybrid(d))
        app_all += app
        here_all += here
        print(f"{name}: {len(d['q'])} queries, app {np.mean(app):.4f}, "
              f"matrices {np.mean(here):.4f}")
    print(f"all: app {np.mean(app_all):.4f}, matrices {np.mean(here_all):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
