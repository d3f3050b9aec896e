"""How good related papers are, judged against what the papers cite.

Data: any folder of the SYNERGY format (:func:`~.tag_evaluation.synergy_reviews`: each
review a ``NAME.csl.json`` of OpenAlex works and a ``NAME.labels.csv`` whose
``refs_in_set`` column lists, for each work, the works of the same file it cites). Each
review is imported into a library of its own.

Ground truth, for a work *w* of a review (OpenAlex ids; works merged into one paper by
the import count as that paper):

* **cites(w)**: the works *w* cites (its ``refs_in_set``);
* **cited by(w)**: the works that cite *w*;
* **co-cited(w)**: the works *v* != *w* cited together with *w* by some work of the
  review (some *p* cites both);
* **relevant(w)** = cites(w) ∪ cited by(w) ∪ co-cited(w), without *w* itself.
  (Bibliographic coupling, two works citing the same one, is not counted.)

Every work with at least one citation inside its review (it cites, or is cited by, a
work of the same file) and a title or abstract is a query. A method ranks the other
papers of the library for it; with binary gains (1 when relevant):

* **nDCG@10** = DCG@10 / ideal DCG@10, DCG@10 = Σ_{i=1..10} gain_i / log2(i + 1)
  (Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS
  20(4), 2002), the ideal putting min(|relevant|, 10) relevant papers first;
* **recall@20** = relevant papers among the first 20 / |relevant|.

Both are averaged over the queries of a review, and over all queries of all reviews
("all"). Methods (:data:`METHODS`):

* ``tf-idf``: today's related papers (:meth:`~.engine.Discover.neighbours`, cosine of
  the term table's rows);
* ``BM25``: "more like this" over the Whoosh index
  (:meth:`~paperdesk.core.search.index.SearchIndex.more_like`);
* ``embedding``: cosine of the static model's vectors
  (:class:`~paperdesk.core.embeddings.static_model.StaticModel`);
* ``hybrid``: the related papers the app shows when the model is installed and the
  papers are embedded (:meth:`~.engine.Discover.related`, :func:`~.hybrid.hybrid_rows`:
  embedding and tf-idf cosines combined);
* ``minilm``: all-MiniLM-L6-v2 (:mod:`paperdesk.core.embeddings.minilm`), only when its
  package is installed (for the comparison in docs/discover.md; not a dependency).

Run ``python -m paperdesk.core.discover.related_evaluation --data FOLDER`` (``make
evaluate-related``) for the table in README.md and docs/discover.md.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.discover.models import NotInTable
from paperdesk.core.discover.tag_evaluation import _paper_of_record, synergy_reviews
from paperdesk.core.discover.synergy_files import read_review_files

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["METHODS", "SEARCH_METHODS", "DEPTH", "evaluate_search", "search_rankers", "citation_links", "relevant_sets", "ndcg_at", "recall_at",
           "ReviewScores", "evaluate_review", "report", "main"]

#: The methods measured, in the table's order.
METHODS = ("tf-idf", "BM25", "embedding", "hybrid", "minilm")
#: The methods measured unless others are asked for (minilm is slow and not a dependency).
DEFAULT_METHODS = METHODS[:4]
#: Related papers asked per query (recall is read at 20, nDCG at 10).
DEPTH = 20

#: A ranker: ``(paper id, how many) -> [paper id, ...]`` best first.
Ranker = Callable[[int, int], list[int]]


def citation_links(labels: Path) -> dict[str, set[str]]:
    """The in-set citations of a review.

    Args:
        labels: ``NAME.labels.csv`` with columns ``id`` and ``refs_in_set`` (OpenAlex ids,
            space-separated).
    Returns:
        ``{work id: {cited work id, ...}}`` for every row (empty set: cites none).
    Raises:
        OSError, KeyError, csv.Error: the file cannot be read or lacks those columns.
    """
    out: dict[str, set[str]] = {}
    with open(labels, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            out[row["id"].strip()] = set((row["refs_in_set"] or "").split())
    return out


def relevant_sets(cites: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """Each work's relevant works: cites ∪ cited by ∪ co-cited (the module docstring).

    Args:
        cites: ``{work: {works it cites}}`` (:func:`citation_links`); cited works that
            are not keys are left out.
    Returns:
        ``{work: relevant works}`` for every work with at least one citation inside the
        set (never containing the work itself).
    """
    known = set(cites)
    cited = {w: {c for c in refs if c in known and c != w} for w, refs in cites.items()}
    out: dict[str, set[str]] = {}
    for w, refs in cited.items():
        out.setdefault(w, set()).update(refs)
        for c in refs:
            out.setdefault(c, set()).add(w)
        for a in refs:                                  # co-cited by w
            out[a].update(refs - {a})
    return {w: rel for w, rel in out.items() if rel}


def ndcg_at(ranked: Sequence[int], relevant: set[int], k: int = 10) -> float:
    """nDCG@k with binary gains (module docstring).

    Args:
        ranked: paper ids best first.
        relevant: the relevant ids (non-empty).
        k: the cut-off.
    Returns:
        0.0 .. 1.0.
    """
    dcg = sum(1.0 / math.log2(i + 2) for i, pid in enumerate(ranked[:k]) if pid in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def recall_at(ranked: Sequence[int], relevant: set[int], k: int = 20) -> float:
    """Relevant papers among the first ``k`` / all relevant papers (0.0 .. 1.0)."""
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


@dataclass(frozen=True)
class ReviewScores:
    """One review's measurement.

    Attributes:
        name: the review.
        papers: papers in its library.
        queries: works asked (with a citation inside the review and a text).
        ndcg: ``{method: [nDCG@10 of each query]}``.
        recall: ``{method: [recall@20 of each query]}``.
        seconds: ``{method: seconds to answer all its queries}``.
    """

    name: str
    papers: int
    queries: int
    ndcg: dict[str, list[float]]
    recall: dict[str, list[float]]
    seconds: dict[str, float]


def _work_papers(lib: "Library", csl: Path, labels: Path) -> dict[str, int]:
    """``{OpenAlex id: paper id}`` of a review imported into ``lib``."""
    import json

    items = json.loads(Path(csl).read_text("utf-8"))
    paper_of = _paper_of_record(lib)
    out = {}
    for position, item in enumerate(items, 1):
        pid = paper_of.get((Path(csl).name, position))
        if pid is not None and "id" in item:
            out[str(item["id"])] = pid
    return out


def _texts(lib: "Library") -> tuple[list[int], list[str]]:
    from paperdesk.core.discover.vectorize import paper_text

    rows = lib.db.execute("SELECT id, title, abstract FROM papers ORDER BY id").fetchall()
    return [int(r[0]) for r in rows], [paper_text(r[1], r[2]) for r in rows]


def _vector_ranker(ids: list[int], vectors: np.ndarray) -> Ranker:
    """Rank by cosine of unit-length vectors (exact, all papers)."""
    row_of = {pid: i for i, pid in enumerate(ids)}
    id_array = np.asarray(ids)

    def rank(pid: int, k: int) -> list[int]:
        scores = vectors @ vectors[row_of[pid]]
        scores[row_of[pid]] = -np.inf
        top = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in id_array[top]]
    return rank


def rankers(lib: "Library", methods: Iterable[str]) -> dict[str, Ranker]:
    """The rankers of the methods that can run here.

    Args:
        lib: the open library (term table built: ``lib.discover.ensure()``).
        methods: names from :data:`METHODS`.
    Returns:
        ``{method: ranker}``; an embedding method whose model is not installed is left
        out (a line on standard error says so).
    """
    from paperdesk.core.embeddings.static_model import ModelUnavailable

    wanted = list(methods)
    out: dict[str, Ranker] = {}
    ids, texts = _texts(lib)
    text_of = dict(zip(ids, texts))

    def tfidf(pid: int, k: int) -> list[int]:
        try:
            return lib.discover.neighbours(pid, k)[0]
        except NotInTable:
            return []

    def bm25(pid: int, k: int) -> list[int]:
        return [p for p, _s in lib.index.whoosh.more_like(pid, text_of[pid], k)]

    if "tf-idf" in wanted:
        out["tf-idf"] = tfidf
    if "BM25" in wanted:
        out["BM25"] = bm25
    for method in ("embedding", "hybrid", "minilm"):
        if method not in wanted:
            continue
        problem = lib.discover.embeddings.problem() if method != "minilm" else None
        try:
            if problem:
                raise ModelUnavailable(problem)
            out[method] = _hybrid_ranker(lib) if method == "hybrid" else \
                _vector_ranker(ids, _model_vectors(method, texts))
        except ModelUnavailable as exc:
            print(f"paperdesk: {method} left out: {exc}", file=sys.stderr)
    return out


def _model_vectors(method: str, texts: list[str]) -> np.ndarray:
    if method == "minilm":
        from paperdesk.core.embeddings.minilm import MiniLM
        return MiniLM().encode(texts)
    from paperdesk.core.embeddings.static_model import StaticModel
    return StaticModel().encode(texts)


def _hybrid_ranker(lib: "Library") -> Ranker:
    """The app's related papers (:meth:`~.engine.Discover.related`) once every paper is
    embedded: the hybrid."""
    lib.discover.embeddings.ensure()

    def rank(pid: int, k: int) -> list[int]:
        try:
            return [r.id for r in lib.discover.related(pid, k)]
        except NotInTable:
            return []
    return rank


def evaluate_review(lib: "Library", name: str, csl: Path, labels: Path,
                    methods: Iterable[str] = DEFAULT_METHODS) -> ReviewScores:
    """Measure each method on one review imported into ``lib``.

    Args:
        lib: a library holding the review's papers (term table built).
        name: the review's name (for the report).
        csl, labels: the review's files (:func:`~.tag_evaluation.synergy_reviews`).
        methods: names from :data:`METHODS` (those that cannot run here are left out).
    Returns:
        The :class:`ReviewScores`.
    Raises:
        OSError, KeyError, csv.Error, ValueError: a file cannot be read as SYNERGY data.
    """
    paper_of = _work_papers(lib, csl, labels)
    relevant = relevant_sets(citation_links(labels))
    texts = dict(zip(*_texts(lib)))
    queries: list[tuple[int, set[int]]] = []
    for work, rel in sorted(relevant.items()):
        pid = paper_of.get(work)
        if pid is None or not texts.get(pid, "").strip():
            continue
        rel_ids = {paper_of[w] for w in rel if w in paper_of} - {pid}
        if rel_ids:
            queries.append((pid, rel_ids))
    ndcg: dict[str, list[float]] = {}
    recall: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}
    for method, rank in rankers(lib, methods).items():
        start = time.perf_counter()
        answers = [rank(pid, DEPTH) for pid, _rel in queries]
        seconds[method] = time.perf_counter() - start
        ndcg[method] = [ndcg_at(a, rel) for a, (_p, rel) in zip(answers, queries)]
        recall[method] = [recall_at(a, rel) for a, (_p, rel) in zip(answers, queries)]
    return ReviewScores(name, len(texts), len(queries), ndcg, recall, seconds)


#: The rankings of search by meaning measured (:func:`evaluate_search`).
SEARCH_METHODS = ("BM25", "embedding", "meaning")


def search_rankers(lib: "Library") -> dict[str, Callable[[int, str, int], list[int]]]:
    """The rankings of a text compared for search by meaning: ``(paper left out, text,
    how many) -> [paper id, ...]``. The embedding's are left out without the model."""
    from paperdesk.core.discover.meaning import search_by_meaning

    def bm25(pid: int, text: str, k: int) -> list[int]:
        return [p for p, _s in lib.index.whoosh.more_like(pid, text, k)]

    def embedding(pid: int, text: str, k: int) -> list[int]:
        return [p for p in lib.discover.embeddings.nearest_to_text(text, k + 1)[0]
                if p != pid][:k]

    def meaning(pid: int, text: str, k: int) -> list[int]:
        return search_by_meaning(lib, text, leave_out=pid)[0][:k].tolist()

    out = {"BM25": bm25}
    if lib.discover.embeddings.problem() is None:
        lib.discover.embeddings.ensure()
        out.update(embedding=embedding, meaning=meaning)
    return out


def evaluate_search(lib: "Library", name: str, csl: Path, labels: Path) -> ReviewScores:
    """Search by meaning with titles as queries: for every work that cites a work of its
    review, its title is searched (the work itself left out) and the works it cites are
    the relevant ones.

    Args:
        lib, name, csl, labels: as :func:`evaluate_review`.
    Returns:
        :class:`ReviewScores` of :data:`SEARCH_METHODS` (those that can run here).
    """
    paper_of = _work_papers(lib, csl, labels)
    titles = dict(lib.db.execute("SELECT id, title FROM papers"))
    queries: list[tuple[int, str, set[int]]] = []
    for work, refs in sorted(citation_links(labels).items()):
        pid = paper_of.get(work)
        cited = {paper_of[r] for r in refs if r in paper_of} - {pid}
        if pid is not None and cited and (titles.get(pid) or "").strip():
            queries.append((pid, titles[pid], cited))
    ndcg: dict[str, list[float]] = {}
    recall: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}
    for method, rank in search_rankers(lib).items():
        start = time.perf_counter()
        answers = [rank(pid, text, DEPTH) for pid, text, _rel in queries]
        seconds[method] = time.perf_counter() - start
        ndcg[method] = [ndcg_at(a, rel) for a, (_p, _t, rel) in zip(answers, queries)]
        recall[method] = [recall_at(a, rel) for a, (_p, _t, rel) in zip(answers, queries)]
    return ReviewScores(name, len(titles), len(queries), ndcg, recall, seconds)


def _mean(values: Sequence[float]) -> str:
    return f"{sum(values) / len(values):.3f}" if values else "–"


def report(scores: Sequence[ReviewScores], methods: Sequence[str] = METHODS) -> str:
    """The measurement as one Markdown table (README.md and docs/discover.md).

    Args:
        scores: one :class:`ReviewScores` per review.
        methods: the columns' order (:data:`METHODS` or :data:`SEARCH_METHODS`).
    Returns:
        A row per review and a last row "all" (the mean over every query of every
        review); for each method measured, a column of nDCG@10 then one of recall@20
        (3 decimals; "–" when there was no query). Lines end with ``\\n``.
    """
    methods = [m for m in methods if any(m in s.ndcg for s in scores)]
    head = " | ".join(f"{m} nDCG@10 | {m} recall@20" for m in methods)
    lines = [f"| review | papers | queries | {head} |",
             "|---|" + "---:|" * (2 + 2 * len(methods))]
    for s in scores:
        cells = " | ".join(f"{_mean(s.ndcg.get(m, []))} | {_mean(s.recall.get(m, []))}"
                           for m in methods)
        lines.append(f"| {s.name} | {s.papers} | {s.queries} | {cells} |")
    cells = " | ".join(
        f"{_mean([v for s in scores for v in s.ndcg.get(m, [])])} | "
        f"{_mean([v for s in scores for v in s.recall.get(m, [])])}" for m in methods)
    lines.append(f"| all | {sum(s.papers for s in scores)} | "
                 f"{sum(s.queries for s in scores)} | {cells} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table of :func:`report` for every review of a SYNERGY-format folder.

    Args:
        argv: ``--data FOLDER [--review NAME ...] [--methods M ...]``.
    Returns:
        The exit status (1 with a one-line message when the folder holds no review or a
        file cannot be read).
    """
    from paperdesk.core.library import Library

    parser = argparse.ArgumentParser(
        prog="python -m paperdesk.core.discover.related_evaluation",
        description="nDCG@10 and recall@20 of related papers against in-set citations.")
    parser.add_argument("--data", type=Path, required=True, metavar="FOLDER",
                        help="a folder of NAME.csl.json with NAME.labels.csv")
    parser.add_argument("--review", action="append", metavar="NAME",
                        help="only this review (repeatable)")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(DEFAULT_METHODS))
    parser.add_argument("--no-search", dest="search", action="store_false",
                        help="leave out the evaluation of search by meaning")
    parser.add_argument("--times", action="store_true",
                        help="also print each method's seconds per review")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    reviews = [r for r in synergy_reviews(args.data)
               if not args.review or r[0] in args.review]
    if not reviews:
        print(f"paperdesk: {args.data}: no NAME.csl.json with its NAME.labels.csv",
              file=sys.stderr)
        return 1
    found, searched = [], []
    with tempfile.TemporaryDirectory(prefix="paperdesk-related-eval-") as tmp:
        for name, csl, labels in reviews:
            try:
                read_review_files(csl, labels)
            except (OSError, ValueError) as exc:
                print(f"paperdesk: {exc}", file=sys.stderr)
                return 1
            with Library.open(Path(tmp) / name) as lib:
                lib.imports.run([csl])
                lib.discover.ensure()
                try:
                    scores = evaluate_review(lib, name, csl, labels, args.methods)
                    if args.search:
                        searched.append(evaluate_search(lib, name, csl, labels))
                except (OSError, KeyError, ValueError, csv.Error) as exc:
                    print(f"paperdesk: {labels}: not a SYNERGY labels file "
                          f"({type(exc).__name__}: {exc})", file=sys.stderr)
                    return 1
                found.append(scores)
                if args.times:
                    print(f"{name}: " + ", ".join(f"{m} {t:.2f} s" for m, t in
                                                  scores.seconds.items()), file=sys.stderr)
    sys.stdout.write("Related papers (relevant: cited, citing and co-cited works):\n\n"
                     + report(found))
    if searched:
        sys.stdout.write("\nSearch by meaning, each title as the query (relevant: the "
                         "works it cites):\n\n" + report(searched, SEARCH_METHODS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
