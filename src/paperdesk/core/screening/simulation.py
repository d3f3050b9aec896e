"""The screening simulation: labelled systematic reviews replayed the way the literature
measures active learning, paperdesk's order next to ASReview LAB's default model and two
orders without a model (``make evaluate``, ``paperdesk-evaluate``,
``python -m paperdesk.core.screening.simulation``; docs/screening.md, "How well it
works").

Method, per review and seed (10 seeds by default):

1. The review's ``NAME.csl.json`` is imported into a fresh library by paperdesk's own
   importer, so what is ranked is what a user would have: each paper's title and
   abstract as stored (records with the same abstract are one paper, relevant when any
   of them is). Its ``NAME.labels.csv`` says which are relevant (``included`` = 1;
   SYNERGY's format, De Bruin et al., https://github.com/asreview/synergy-dataset).
2. The prior: one relevant and one irrelevant paper drawn at random with the seed
   (``numpy.random.default_rng(seed)``), the same for every order.
3. Then the top-ranked unlabelled paper is labelled from the file, the model retrained
   on every label so far and the rest re-ranked, until every paper is labelled, as
   ASReview's simulation does. One shortcut, exact for every measure: once the last
   relevant paper is found, every paper left is irrelevant whatever the order, so they
   are labelled without retraining. With ``max_retrains`` (for tests), the papers left
   after that many retrains follow the last ranking.
4. Measured (:mod:`.simulation_metrics`, as ASReview Insights computes them): WSS@95,
   recall after 10 % screened and ATD; the wall-clock time of each retrain + re-rank
   (``time.perf_counter``; median and 95th percentile); the stopping estimate
   (:mod:`.stopping`, BUSCAR) after every decision, priors included: at the first
   decision after which it says 95 % are found, the recall then and the share of papers
   left unread; and its point estimate of the relevant papers ("an estimated M") after
   25 % and 50 % of the papers are read, as a relative error ``|M - R| / R`` against the
   true count ``R``.

Per review, each figure is the mean over the seeds; "stop: ≥ 95 %" is the share of runs
whose recall was at least 0.95 when the estimate said so; the estimate's errors are the
median over the runs. The mean row is the mean over
the reviews.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from paperdesk.core.screening.stopping import (CONFIDENCE, TARGET_RECALL, estimate,
                                               target_p_value)
from paperdesk.core.screening.simulation_metrics import (average_time_to_discovery,
                                                          recall_at, wss)

__all__ = ["Review", "Run", "OrderSummary", "load_review", "replay", "summarise",
           "report", "stop_point", "estimate_errors", "mean_over_reviews", "REPORT_HEADER",
           "ESTIMATE_AT", "SEEDS", "main"]

#: Seeds per review.
SEEDS = 10
#: The table's header (the README's table is asserted to have it).
REPORT_HEADER = ("| review | order | WSS@95 | recall at 10 % | ATD (records) | "
                 "retrain + re-rank, median / p95 | stop: runs with ≥ 95 % recall | "
                 "stop: left unread | estimate M: median error at 25 % / 50 % read |")
#: The shares of the papers read at which the point estimate is compared with the truth.
ESTIMATE_AT = (0.25, 0.50)


@dataclass(frozen=True)
class Review:
    """A labelled review as paperdesk stores it.

    Attributes:
        name: the review's name (its files' stem).
        titles, abstracts: per paper, as stored (row order = paper id order).
        dates: per paper, its date as stored (ISO text, "" when none).
        relevant: bool array, per paper.
    """

    name: str
    titles: list[str]
    abstracts: list[str]
    dates: list[str]
    relevant: np.ndarray

    @property
    def texts(self) -> list[str]:
        """Title and abstract of each paper, joined by a newline."""
        return [f"{t}\n{a}" for t, a in zip(self.titles, self.abstracts)]


@dataclass
class Run:
    """One replayed screening.

    Attributes:
        labels: the labels after the prior, in screening order.
        seconds: the time of each retrain + re-rank, in seconds.
        stop_recall: recall when the stopping estimate first said 95 % were found.
        stop_unread: the share of the papers then unread.
        estimate_errors: ``|M - R| / R`` of the point estimate M of the relevant papers
            after each share of :data:`ESTIMATE_AT` is read (R the true count).
    """

    labels: np.ndarray
    seconds: list[float] = field(default_factory=list)
    stop_recall: float = 1.0
    stop_unread: float = 0.0
    estimate_errors: tuple[float, ...] = ()


@dataclass(frozen=True)
class OrderSummary:
    """An order's figures on one review (or the mean over reviews).

    Attributes:
        review, order: names.
        wss, recall_10, atd: means over the runs (shares; ATD in records).
        median_ms, p95_ms: retrain + re-rank times over every retrain of the runs
            (None for an order that is not retrained).
        stop_safe: share of runs with recall >= 0.95 at the stop.
        stop_unread: mean share of papers unread at the stop.
        runs: how many runs.
        estimate_errors: median over the runs of :attr:`Run.estimate_errors`, one per
            share of :data:`ESTIMATE_AT`.
    """

    review: str
    order: str
    wss: float
    recall_10: float
    atd: float
    median_ms: float | None
    p95_ms: float | None
    stop_safe: float
    stop_unread: float
    runs: int
    estimate_errors: tuple[float, ...] = ()


def load_review(name: str, csl: Path, labels: Path, folder: Path) -> Review:
    """Import a review into a fresh library and read back what is stored.

    Args:
        name: the review's name.
        csl: its CSL-JSON file.
        labels: its labels CSV (``id``, ``included``).
        folder: an empty folder for the library (a temporary one).
    Returns:
        The :class:`Review`.
    Raises:
        ValueError: a file is not of that format, or the review has no relevant or no
            irrelevant paper (nothing to simulate).
    """
    from paperdesk.core.discover.tag_evaluation import synergy_tags
    from paperdesk.core.library import Library

    with Library.open(folder) as lib:
        lib.imports.run([csl])
        included = synergy_tags(lib, csl, labels)   # ValueError: names the file
        rows = lib.db.execute("SELECT id, title, abstract, coalesce(date, '') FROM papers "
                              "ORDER BY id").fetchall()
    relevant = np.array([r[0] in included for r in rows], bool)
    if min(relevant.sum(), len(relevant) - relevant.sum()) < 2:
        # The prior takes one of each at random; at least one of each must be left.
        raise ValueError(f"{labels}: needs at least 2 relevant and 2 irrelevant papers to "
                         f"replay ({int(relevant.sum())} of {len(rows)} relevant)")
    return Review(name, [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
                  relevant)


def stop_point(decisions: Sequence[bool], total: int) -> tuple[float, float]:
    """Where the stopping estimate first says 95 % are found.

    Args:
        decisions: a whole screening's decisions in order (every relevant paper among
            them), True for relevant.
        total: papers in the screening.
    Returns:
        ``(recall, unread)``: the recall at the first decision after which
        :func:`.stopping.target_p_value` is below ``1 - CONFIDENCE``, and the share of
        the ``total`` papers then unread; ``(1.0, 0.0)`` if it never says so before the
        end.
    """
    decisions = np.asarray(decisions, bool)
    relevant = decisions.sum()
    for screened in range(1, len(decisions) + 1):
        if target_p_value(decisions[:screened], total) < 1 - CONFIDENCE:
            return float(decisions[:screened].sum() / relevant), (total - screened) / total
    return 1.0, 0.0


def estimate_errors(decisions: Sequence[bool], total: int) -> tuple[float, ...]:
    """How far the point estimate of the relevant papers is from their true count.

    Args:
        decisions: a whole screening's decisions in order (every relevant paper among
            them, so that their count is the truth), True for relevant.
        total: papers in the screening.
    Returns:
        For each share of :data:`ESTIMATE_AT`, ``|M - R| / R``: M the
        :attr:`.stopping.StopEstimate.estimated_relevant` after that share of ``total``
        is read (at least the first decision), R the relevant papers in ``decisions``;
        1.0 when nothing relevant was found by then (no estimate).
    """
    decisions = np.asarray(decisions, bool)
    truth = int(decisions.sum())
    errors = []
    for share in ESTIMATE_AT:
        read = max(1, min(len(decisions), int(share * total)))
        point = estimate(decisions[:read], total).estimated_relevant
        errors.append(1.0 if point is None else abs(point - truth) / truth)
    return tuple(errors)


def replay(review: Review, screener, seed: int, max_retrains: int | None = None) -> Run:
    """Replay one screening (see the module docstring).

    Args:
        review: the labelled review.
        screener: an order, prepared on ``review`` (:class:`.baseline.Screener`).
        seed: the seed of the prior and of the screener.
        max_retrains: stop retraining after this many (None: never).
    Returns:
        The :class:`Run`.
    """
    relevant = review.relevant
    total = len(relevant)
    rng = np.random.default_rng(seed)
    prior = [int(rng.choice(np.flatnonzero(relevant))),
             int(rng.choice(np.flatnonzero(~relevant)))]
    yes, no = [prior[0]], [prior[1]]
    decided = np.zeros(total, bool)
    decided[prior] = True
    left_relevant = int(relevant.sum()) - 1
    labels: list[bool] = []
    seconds: list[float] = []
    order: np.ndarray | None = None
    position = 0
    while len(labels) < total - 2:
        if left_relevant == 0:                  # the rest is irrelevant in any order
            labels += [False] * (total - 2 - len(labels))
            break
        retrain = order is None or (screener.retrains and (
            max_retrains is None or len(seconds) < max_retrains))
        if retrain:
            start = time.perf_counter()
            order = screener.rank(yes, no, seed)
            seconds.append(time.perf_counter() - start)
            position = 0
        while decided[order[position]]:
            position += 1
        row = int(order[position])
        decided[row] = True
        labels.append(bool(relevant[row]))
        (yes if relevant[row] else no).append(row)
        left_relevant -= int(relevant[row])
    run = Run(np.array(labels, bool), seconds if screener.retrains else [])
    decisions = np.array([True, False] + labels, bool)
    run.stop_recall, run.stop_unread = stop_point(decisions, total)
    run.estimate_errors = estimate_errors(decisions, total)
    return run


def summarise(review: str, order: str, runs: Sequence[Run]) -> OrderSummary:
    """The figures of an order's runs on a review.

    Args:
        review, order: names for the table.
        runs: the runs (at least one).
    Returns:
        The :class:`OrderSummary`.
    """
    times = np.concatenate([np.asarray(r.seconds, float) for r in runs]) * 1000
    return OrderSummary(
        review, order, float(np.mean([wss(r.labels) for r in runs])),
        float(np.mean([recall_at(r.labels) for r in runs])),
        float(np.mean([average_time_to_discovery(r.labels)[0] for r in runs])),
        float(np.median(times)) if len(times) else None,
        float(np.percentile(times, 95)) if len(times) else None,
        float(np.mean([r.stop_recall >= TARGET_RECALL - 1e-12 for r in runs])),
        float(np.mean([r.stop_unread for r in runs])), len(runs),
        tuple(float(e) for e in np.median([r.estimate_errors for r in runs], axis=0)))


def mean_over_reviews(order: str, summaries: Sequence[OrderSummary]) -> OrderSummary:
    """The mean row of an order over the reviews (times and the estimate's errors: the
    mean of the medians, and of the 95th percentiles).

    Args:
        order: the order's name.
        summaries: its :class:`OrderSummary` on each review.
    Returns:
        An :class:`OrderSummary` named ``"mean"``.
    """
    def mean(values):
        values = [v for v in values if v is not None]
        return float(np.mean(values)) if values else None
    return OrderSummary("mean", order, mean(s.wss for s in summaries),
                        mean(s.recall_10 for s in summaries), mean(s.atd for s in summaries),
                        mean(s.median_ms for s in summaries), mean(s.p95_ms for s in summaries),
                        mean(s.stop_safe for s in summaries),
                        mean(s.stop_unread for s in summaries),
                        sum(s.runs for s in summaries),
                        tuple(float(e) for e in np.mean([s.estimate_errors
                                                         for s in summaries], axis=0)))


def report(rows: Sequence[OrderSummary]) -> str:
    """The table (Markdown), a row per review and order then the mean rows.

    Args:
        rows: :class:`OrderSummary` rows in the order to print.
    Returns:
        The table, lines ending with a newline; shares as percentages with one decimal.
    """
    lines = [REPORT_HEADER, "|---|---|" + "---:|" * 7]
    for s in rows:
        timing = ("–" if s.median_ms is None
                  else f"{s.median_ms:.1f} / {s.p95_ms:.1f} ms")
        name = f"**{s.review}**" if s.review == "mean" else s.review
        lines.append(f"| {name} | {s.order} | {s.wss:.1%} | {s.recall_10:.1%} | "
                     f"{s.atd:.1f} | {timing} | {s.stop_safe:.0%} | {s.stop_unread:.1%} | "
                     + " / ".join(f"{e:.0%}" for e in s.estimate_errors) + " |")
    return "\n".join(lines) + "\n"


def _root() -> Path:
    return Path(__file__).resolve().parents[4]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulation and print the table.

    Args:
        argv: ``[--data DIR] [--seeds N] [--reviews NAME ...] [--max-retrains N]``
            (default: ``../shared/synergy`` beside the source tree, 10 seeds, every
            review of the folder).
    Returns:
        The exit status: 0, or 1 with a one-line message naming the folder or file when
        there is nothing to run or a file is unreadable.
    """
    from paperdesk.core.discover.synergy_files import read_review_files
    from paperdesk.core.discover.tag_evaluation import synergy_reviews
    from paperdesk.core.screening.simulation_orders import screeners

    parser = argparse.ArgumentParser(
        prog="paperdesk-evaluate",
        description="Replay labelled screenings: paperdesk's order next to ASReview's "
                    "default model (ELAS u4), a random and a date order.")
    parser.add_argument("--data", type=Path, default=_root().parent / "shared" / "synergy",
                        metavar="DIR", help="a folder of NAME.csl.json with NAME.labels.csv")
    parser.add_argument("--seeds", type=int, default=SEEDS, metavar="N",
                        help=f"seeds per review (default {SEEDS})")
    parser.add_argument("--reviews", nargs="+", metavar="NAME",
                        help="only these reviews of the folder")
    parser.add_argument("--max-retrains", type=int, metavar="N",
                        help="retrain at most N times per run, then follow the last ranking")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.max_retrains is not None and args.max_retrains < 1:
        parser.error("--max-retrains must be at least 1")
    if args.data.exists() and not args.data.is_dir():
        print(f"paperdesk-evaluate: {args.data}: not a folder (give the reviews' folder "
              "with --data DIR)", file=sys.stderr)
        return 1
    if not args.data.is_dir():
        print(f"paperdesk-evaluate: {args.data}: no such folder (give the reviews' folder "
              "with --data DIR, or SYNERGY=DIR to make evaluate)", file=sys.stderr)
        return 1
    found = synergy_reviews(args.data)
    if args.reviews:
        unknown = sorted(set(args.reviews) - {name for name, _, _ in found})
        if unknown:
            print(f"paperdesk-evaluate: {args.data}: no review {', '.join(unknown)} "
                  f"(NAME.csl.json with NAME.labels.csv)", file=sys.stderr)
            return 1
        found = [r for r in found if r[0] in args.reviews]
    if not found:
        print(f"paperdesk-evaluate: {args.data}: no NAME.csl.json with its NAME.labels.csv",
              file=sys.stderr)
        return 1
    orders, missing = screeners()
    if missing:
        print(f"paperdesk-evaluate: {missing}", file=sys.stderr)
    rows: list[OrderSummary] = []
    features_used = ""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="paperdesk-evaluate-") as tmp:
        for name, csl, labels in found:
            try:
                for note in read_review_files(csl, labels).notes:
                    print(f"paperdesk-evaluate: note: {note}", file=sys.stderr)
                review = load_review(name, csl, labels, Path(tmp) / name)
            except (ValueError, OSError, sqlite3.Error) as exc:
                print(f"paperdesk-evaluate: {exc}", file=sys.stderr)
                return 1
            for make in orders:
                screener = make()
                screener.prepare(review)
                features_used = getattr(screener, "features_used", "") or features_used
                runs = [replay(review, screener, seed, args.max_retrains)
                        for seed in range(args.seeds)]
                rows.append(summarise(name, screener.name, runs))
                print(f"{name}: {screener.name} done ({time.perf_counter() - started:.0f} s)",
                      file=sys.stderr)
    names = list(dict.fromkeys(r.order for r in rows))
    means = [mean_over_reviews(o, [r for r in rows if r.order == o]) for o in names]
    reviews = f"{len(found)} review{'s' if len(found) != 1 else ''}"
    seeds = f"{args.seeds} seed{'s' if args.seeds != 1 else ''}"
    sys.stdout.write(f"{reviews} from {args.data}, {seeds} each; paperdesk's order on "
                     f"{features_used}\n\n" + report(rows + means))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
