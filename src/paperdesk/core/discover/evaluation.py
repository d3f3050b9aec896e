"""Evaluating "worth reading first" with a scripted user on labelled papers.

The user reads the unread papers in date order (the list's default order: date added,
then id), stars every paper of topic T they meet and marks every other one read
(seen and skipped, a negative example), until they have starred ``k`` papers of T.
Then, among the papers still unread, two orders are compared:

* the **date order** the user would go on reading in, and
* the **interest order** (:meth:`~paperdesk.core.discover.engine.Discover.interest`),
  learned from those stars and skips.

Two numbers per order:

* **hits@20**: how many of the first 20 unread papers are of topic T;
* **WSS@95**, work saved over sampling at 95% recall, as ASReview's metrics define it
  (ASReview Insights, "Work Saved over Sampling",
  https://github.com/asreview/asreview-insights#work-saved-over-sampling; after Cohen
  et al., "Reducing workload in systematic review preparation using automated citation
  classification", JAMIA 13(2), 2006): ``WSS@r = (N - n_r) / N - (1 - r)``,
  where ``N`` is the number of unread papers and ``n_r`` how many of them must be read,
  in that order, to find ``ceil(r x R)`` of the ``R`` unread papers of T. Reading in
  random order saves nothing on average (0); a perfect order approaches ``r - R/N``.

Labels are hand-assigned topics, e.g. ``tests/core/data/seed_topics.json``: a list of
papers named by source file name and abstract position (1-based), each with a
``topic``. A paper counts as of topic T when T is its main topic.

Run ``python -m paperdesk.core.discover.evaluation`` (or ``make evaluate-interest``) to print the
table for the sample library (``seeds/``) that docs/discover.md shows.
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["Evaluation", "load_labels", "evaluate", "first_hits", "wss", "TOPICS",
           "STARRED", "DEPTH", "main"]

#: Papers of the topic the scripted user stars before the orders are compared.
STARRED = 5
#: How many of the first papers "hits" counts.
DEPTH = 20
#: The topics of the sample library with enough papers to evaluate (docs/discover.md's table).
TOPICS = ("depth-estimation", "deep-learning-theory", "network-architecture-design",
          "looped-recurrent-depth")


@dataclass(frozen=True)
class Evaluation:
    """The two orders compared for one topic.

    Attributes:
        topic: the topic the user starred.
        starred: papers starred (k).
        skipped: papers read and not starred before the k-th star.
        unread: papers still unread (N).
        relevant: of those, papers of the topic (R).
        ranked: whether the interest order was learned (else it fell back to date).
        interest_hits, date_hits: papers of the topic in the first :data:`DEPTH` of each
            order.
        interest_wss, date_wss: WSS@95 of each order (fractions, see the module
            docstring).
        best_wss: WSS@95 of a perfect order (every paper of the topic first).
    """

    topic: str
    starred: int
    skipped: int
    unread: int
    relevant: int
    ranked: bool
    interest_hits: int
    date_hits: int
    interest_wss: float
    date_wss: float
    best_wss: float

    def to_dict(self) -> dict:
        """The fields as a dict (for JSON)."""
        return dict(self.__dict__)


def load_labels(lib: "Library", labels: Path | dict) -> dict[int, str]:
    """Map hand-assigned topic labels to the library's paper ids.

    Args:
        lib: a library holding the labelled files' papers.
        labels: the labels file (JSON, as ``tests/core/data/seed_topics.json``) or its
            parsed content: ``{"papers": [{"file", "abstract", "topic", ...}]}``, a paper
            named by its source file's name and its abstract's 1-based position there.
    Returns:
        ``{paper id: main topic}`` for each labelled paper found in the library.
    Raises:
        OSError, ValueError: the file cannot be read or is not such JSON.
    """
    doc = labels if isinstance(labels, dict) else json.loads(Path(labels).read_text("utf-8"))
    wanted = {(p["file"], int(p["abstract"])): p["topic"] for p in doc["papers"]}
    out: dict[int, str] = {}
    rows = lib.db.execute(
        "SELECT ps.paper_id, s.path, ps.position FROM paper_sources ps "
        "JOIN sources s ON s.id = ps.source_id").fetchall()
    for pid, path, position in rows:
        topic = wanted.get((Path(path).name, int(position)))
        if topic is not None:
            out[int(pid)] = topic
    return out


def first_hits(order: Sequence[int], relevant: set[int], depth: int = DEPTH) -> int:
    """How many of the first ``depth`` papers of ``order`` are relevant.

    Args:
        order: paper ids, first to read first.
        relevant: the relevant ids.
        depth: how many to look at.
    Returns:
        A count, 0..depth.
    """
    return sum(1 for pid in order[:depth] if pid in relevant)


def wss(order: Sequence[int], relevant: set[int], recall: float = 0.95) -> float:
    """Work saved over sampling at ``recall`` (ASReview; see the module docstring).

    Args:
        order: every unread paper id, first to read first (N = its length).
        relevant: the relevant ids among them (R of them).
        recall: the share of the relevant papers to find, 0 < recall <= 1.
    Returns:
        ``(N - n_r) / N - (1 - recall)``, where ``n_r`` papers of ``order`` are read
        to find ``ceil(recall x R)`` relevant ones; ``0.0`` when nothing is relevant.
    """
    n = len(order)
    present = [pid for pid in order if pid in relevant]
    if n == 0 or not present:
        return 0.0
    need = math.ceil(recall * len(present) - 1e-9)
    found = 0
    for screened, pid in enumerate(order, 1):
        if pid in relevant:
            found += 1
            if found >= need:
                return (n - screened) / n - (1 - recall)
    return -(1 - recall)        # not reached: every relevant paper is in the order


def evaluate(lib: "Library", topics_of: dict[int, str], topic: str,
             starred: int = STARRED) -> Evaluation:
    """Run the scripted user for one topic and compare the two orders.

    Every paper's read and star marks are cleared first, then set by the script (the
    library's marks are changed: use a copy).

    Args:
        lib: an open, writable library (its term table is built if needed).
        topics_of: ``{paper id: topic}`` from :func:`load_labels`.
        topic: the topic the user stars.
        starred: how many of its papers they star (k).
    Returns:
        The :class:`Evaluation`.
    Raises:
        ValueError: the topic has no more than ``starred`` papers in the library.
    """
    everything = lib.papers.ids()            # date order: date added, then id
    relevant_all = {pid for pid in everything if topics_of.get(pid) == topic}
    if len(relevant_all) <= starred:
        raise ValueError(f"topic {topic!r} has {len(relevant_all)} papers; "
                         f"more than {starred} are needed")
    lib.papers.set_starred(everything, False)
    lib.papers.set_read(everything, False)
    stars, skips = [], []
    for pid in everything:
        if len(stars) == starred:
            break
        (stars if pid in relevant_all else skips).append(pid)
    lib.papers.set_starred(stars, True)
    lib.papers.set_read(stars + skips, True)
    unread = [pid for pid in everything if pid not in set(stars) | set(skips)]
    relevant = relevant_all & set(unread)
    lib.discover.ensure()
    order = lib.discover.interest(unread, with_reasons=0)
    perfect = sorted(unread, key=lambda pid: pid not in relevant)
    return Evaluation(topic, len(stars), len(skips), len(unread), len(relevant),
                      order.ranked, first_hits(order.ids, relevant),
                      first_hits(unread, relevant), round(wss(order.ids, relevant), 3),
                      round(wss(unread, relevant), 3), round(wss(perfect, relevant), 3))


def table(results: Iterable[Evaluation]) -> str:
    """The results as a Markdown table (docs/discover.md's).

    Args:
        results: evaluations.
    Returns:
        The table's text (lines end with ``\\n``).
    """
    lines = [f"| topic | starred / skipped | unread (of the topic) | in the first {DEPTH}: "
             "worth reading first | date order | WSS@95: worth reading first | "
             "date order | best possible |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r.topic} | {r.starred} / {r.skipped} | {r.unread} "
                     f"({r.relevant}) | {r.interest_hits} | {r.date_hits} | "
                     f"{r.interest_wss:.1%} | {r.date_wss:.1%} | {r.best_wss:.1%} |")
    return "\n".join(lines) + "\n"


def _root() -> Path:
    return Path(__file__).resolve().parents[4]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the evaluation table of the sample library.

    Args:
        argv: ``[SEEDS_DIR [LABELS_JSON]]`` (default: the source tree's ``seeds/`` and
            ``tests/core/data/seed_topics.json``).
    Returns:
        The exit status (1 with a one-line message when the files are missing).
    """
    from paperdesk.core.library import Library

    argv = list(sys.argv[1:] if argv is None else argv)
    seeds = Path(argv[0]) if argv else _root() / "seeds"
    labels = Path(argv[1]) if len(argv) > 1 else _root() / "tests/core/data/seed_topics.json"
    files = sorted(seeds.glob("*.txt"))
    if not files or not labels.is_file():
        print(f"paperdesk: evaluation needs the sample files in {seeds} and the labels "
              f"{labels}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="paperdesk-eval-") as tmp:
        with Library.open(Path(tmp) / "lib") as lib:
            lib.imports.run(files)
            topics_of = load_labels(lib, labels)
            results = [evaluate(lib, topics_of, t) for t in TOPICS]
    sys.stdout.write(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
