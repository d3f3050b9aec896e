"""How long paperdesk's order takes per label at 10,000 and 100,000 papers, and the
stopping estimate at 10,000 (the figures in docs/screening.md, "How well it works").

Synthetic papers (``--papers``): abstracts of 150 words drawn from a Zipf-distributed
vocabulary of 30,000 words and titles of 10, a fixed seed; a screening that has made
``--decided`` decisions, 5 % of them relevant. Timed: :func:`.ranker.build_features`
and :func:`.ranker.build_vectors` once (the vectors when the ``embeddings`` extra is
installed; the first line printed says which), then :func:`.ranker.rank` (retrain +
re-rank, what follows every decision) and :func:`.stopping.estimate` (median of
``--repeats`` calls).

Run ``python -m paperdesk.core.screening.simulation_speed`` (default: 10,000 papers with
500 decided, then 100,000 with 2,000).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

__all__ = ["synthetic_texts", "time_order", "main"]


def synthetic_texts(papers: int, seed: int = 0) -> list[str]:
    """Title and abstract texts of Zipf-distributed words.

    Args:
        papers: how many texts.
        seed: the seed of ``numpy.random.default_rng``.
    Returns:
        ``papers`` strings: 10 title words, a newline, 150 abstract words.
    """
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}" for i in range(30_000)])
    weights = 1 / np.arange(1, 30_001) ** 1.05
    words = rng.choice(vocabulary, size=(papers, 160), p=weights / weights.sum())
    return [" ".join(row[:10]) + "\n" + " ".join(row[10:]) for row in words]


def time_order(papers: int, decided: int, repeats: int = 5) -> dict[str, float]:
    """Time the features, one retrain + re-rank and the estimate.

    Args:
        papers: papers in the synthetic screening.
        decided: decisions made (5 % relevant, at least one of each).
        repeats: calls timed for the medians.
    Returns:
        ``{"features_s", "rank_ms", "rank_cpu_ms", "estimate_ms", "estimate_cpu_ms"}``:
        seconds for the features and the vectors, the median milliseconds of a :func:`.ranker.rank` and
        of a :func:`.stopping.estimate`, wall-clock and CPU time of this process (on a
        machine shared with other work the wall-clock time includes waiting for a core;
        the CPU time is what the call costs).
    """
    from paperdesk.core.screening.ranker import build_features, build_vectors, rank
    from paperdesk.core.screening.stopping import estimate
    start = time.perf_counter()
    texts = synthetic_texts(papers)
    matrix = build_features(texts)
    vectors, _ = build_vectors(texts)
    features = time.perf_counter() - start
    rng = np.random.default_rng(1)
    rows = rng.permutation(papers)[:decided]
    relevant_count = max(1, decided // 20)
    relevant, irrelevant = rows[:relevant_count], rows[relevant_count:]
    decisions = rng.permutation(np.r_[np.ones(relevant_count, bool),
                                      np.zeros(decided - relevant_count, bool)])

    def median_ms(call, clock) -> float:
        times = []
        for _ in range(repeats):
            begin = clock()
            call()
            times.append(clock() - begin)
        return float(np.median(times) * 1000)

    def ranked():
        rank(matrix, relevant, irrelevant, vectors=vectors)

    def estimated():
        estimate(decisions, papers)
    return {"features_s": features,
            "rank_ms": median_ms(ranked, time.perf_counter),
            "rank_cpu_ms": median_ms(ranked, time.process_time),
            "estimate_ms": median_ms(estimated, time.perf_counter),
            "estimate_cpu_ms": median_ms(estimated, time.process_time)}


def main(argv: Sequence[str] | None = None) -> int:
    """Print the timings.

    Args:
        argv: ``[--papers N ...] [--decided N ...] [--repeats N]``.
    Returns:
        0.
    """
    parser = argparse.ArgumentParser(prog="python -m paperdesk.core.screening.simulation_speed",
                                     description="Time paperdesk's order per label.")
    parser.add_argument("--papers", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--decided", type=int, nargs="+", default=[500, 2_000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if len(args.decided) != len(args.papers):
        parser.error("give one --decided per --papers")
    from paperdesk.core.screening.ranker import vector_model
    model = vector_model()
    print(f"paperdesk's order on {f'words and vectors ({model})' if model else 'words alone'}"
          "\n")
    print("| papers | decided | features and vectors (once) | retrain + re-rank: wall / CPU (median) | "
          "stopping estimate: wall / CPU (median) |\n|---:|---:|---:|---:|---:|")
    for papers, decided in zip(args.papers, args.decided):
        t = time_order(papers, decided, args.repeats)
        print(f"| {papers:,} | {decided:,} | {t['features_s']:.1f} s | "
              f"{t['rank_ms']:.0f} / {t['rank_cpu_ms']:.0f} ms | "
              f"{t['estimate_ms']:.0f} / {t['estimate_cpu_ms']:.0f} ms |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
