"""Held-out evaluation of tag suggestions: hide part of each tag's assignments, ask for
them back, count what comes back right.

Method (k-fold cross-validation, k = :data:`FOLDS`): the papers are shuffled (a fixed
seed) and dealt into k folds, each tag's papers spread evenly over them
(:func:`deal_folds`). In turn, the tags of one fold's papers are
hidden: the library's tags are the other papers', a tag's examples are counted without
the hidden ones. Every paper of the fold (with terms) is then asked for its suggestions,
as a paper just imported would be, with
the rule the window and ``paperdesk suggest-tags`` use (:func:`~.tag_suggestions.tag_votes`
over :meth:`~.engine.Discover.neighbours`: at most 3, :data:`~.tag_suggestions.MIN_EXAMPLES`
examples, a share of the votes of at least :data:`~.tag_suggestions.MIN_SHARE`). A
suggestion is **right**
when it names one of the paper's hidden tags, wrong otherwise. Over the k folds every
paper is asked once and every assignment is hidden once:

* **precision** of a tag: right suggestions of it / suggestions of it;
* **recall** of a tag: its hidden assignments suggested back / its assignments;
* overall: the same counts summed over the tags (micro-averaged).

The library is only read (tags are never written): any library can be measured on its
own tags (``paperdesk suggest-tags --evaluate``). Two labelled sets are built here:

* the sample library (``seeds/``) with the topics of
  ``tests/core/data/seed_topics.json`` as tags (each paper's main topic and its
  ``also`` topics, assigned by hand);
* the SYNERGY systematic reviews (any folder of ``NAME.csl.json`` with
  ``NAME.labels.csv``: ``id, doi, included, ...``; SYNERGY dataset, De Bruin et al.,
  https://github.com/asreview/synergy-dataset), each review a library of its own with
  the papers the review included tagged ``included``.

Run ``python -m paperdesk.core.discover.tag_evaluation [--synergy FOLDER]`` (or ``make
evaluate-tags``) for docs/discover.md's tables.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from paperdesk.core.discover.models import NotInTable
from paperdesk.core.discover.tag_suggestions import MIN_SHARE, NEIGHBOURS, tag_votes

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["FOLDS", "SHARES", "TagScore", "TagEvaluation", "evaluate_tags", "library_tags",
           "deal_folds", "held_out_counts", "seed_tags", "synergy_reviews", "synergy_tags", "evaluation_report", "summary", "main"]

#: Folds of the cross-validation (a fifth of each tag's assignments hidden at a time).
FOLDS = 5
#: Shares of the votes at which precision and recall are also given (the calibration).
SHARES = (0.3, 0.4, 0.5, 0.6, 0.7)
#: Suggestions shown per paper (the window's Alt+1 … Alt+3).
SHOWN = 3

#: ``{paper: (neighbour ids, cosines)}``, most similar first.
Neighbours = Mapping[int, tuple[Sequence[int], Sequence[float]]]


@dataclass(frozen=True)
class TagScore:
    """Counts for one tag (or all of them).

    Attributes:
        tag: the tag's name (``"all"`` for the sum).
        papers: its assignments (each hidden once).
        suggested: suggestions of it, right or wrong.
        right: suggestions of it that named a hidden assignment.
    """

    tag: str
    papers: int
    suggested: int
    right: int

    @property
    def precision(self) -> float | None:
        """right / suggested, or None when it was never suggested."""
        return self.right / self.suggested if self.suggested else None

    @property
    def recall(self) -> float:
        """right / papers (0.0 for a tag without papers)."""
        return self.right / self.papers if self.papers else 0.0


@dataclass(frozen=True)
class TagEvaluation:
    """The evaluation of one library.

    Attributes:
        name: what was measured (e.g. ``"sample library"``).
        papers: papers in the library.
        min_share: the share of the votes the suggestions were made at.
        tags: one :class:`TagScore` per tag, by name.
        overall: the sums over the tags.
        by_share: ``{share: TagScore("all", ...)}`` at each of :data:`SHARES`.
    """

    name: str
    papers: int
    min_share: float
    tags: list[TagScore]
    overall: TagScore
    by_share: dict[float, TagScore] = field(default_factory=dict)


def deal_folds(papers: Iterable[int], tags_of: Mapping[int, set], folds: int,
               seed: int) -> dict[int, int]:
    """Deal papers into folds, each tag's papers spread evenly over them.

    Args:
        papers: the papers to deal (ids).
        tags_of: ``{paper: {tag, ...}}``.
        folds: how many folds.
        seed: the seed of the shuffle (``random.Random(seed)``).
    Returns:
        ``{paper: fold}``: tagged papers first, grouped by their first tag (by name) and
        shuffled within it, then the untagged ones shuffled, dealt round in that order
        (a stratified deal).
    """
    rng = random.Random(seed)
    groups: dict[str, list[int]] = {}
    for pid in sorted(set(int(p) for p in papers)):
        tags = tags_of.get(pid)
        groups.setdefault(min(map(str, tags)) if tags else "\uffff", []).append(pid)
    order: list[int] = []
    for key in sorted(groups):
        group = groups[key]
        rng.shuffle(group)
        order += group
    return {pid: i % folds for i, pid in enumerate(order)}


def held_out_counts(neighbours: Neighbours, tags_of: Mapping[int, set],
                    shares: Sequence[float] = SHARES, folds: int = FOLDS, seed: int = 0,
                    weights: Mapping[int, float] | None = None
                    ) -> dict[float, dict[Hashable, list[float]]]:
    """Hide each fold of papers' tags in turn and count the suggestions that come back.

    Every paper asked (a key of ``neighbours``) is in one fold: it is asked once, with
    its own tags and those of the other papers of its fold hidden, the rest of the
    library's tags known; so an untagged paper's suggestions count as often as a tagged
    one's.

    Args:
        neighbours: ``{paper: (neighbour ids, cosines)}`` of the papers asked, most
            similar first (``Discover.neighbours``).
        tags_of: ``{paper: {tag, ...}}``, the assignments (papers not asked may have
            tags: they vote, and are never hidden).
        shares: the shares of the votes to count at.
        folds: folds (2 or more).
        seed: the seed of the deal.
        weights: ``{paper: weight}`` of the papers asked (default 1 each).
    Returns:
        ``{share: {tag: [suggested, right]}}`` (weighted).
    """
    fold_of = deal_folds(neighbours, tags_of, folds, seed)
    keys = sorted(shares)
    counts: dict[float, dict[Hashable, list[float]]] = {s: {} for s in keys}
    for fold in range(folds):
        known = {pid: tags for pid, tags in tags_of.items() if fold_of.get(pid) != fold}
        examples: dict[Hashable, int] = {}
        for tags in known.values():
            for tag in tags:
                examples[tag] = examples.get(tag, 0) + 1
        for pid, (near, cosines) in neighbours.items():
            if fold_of[pid] != fold:
                continue
            offered, _held = tag_votes(near, cosines, known, set(), examples,
                                       limit=len(examples) or 1, min_share=keys[0])
            hidden = tags_of.get(pid, ())
            weight = 1.0 if weights is None else weights.get(pid, 1.0)
            for share in keys:
                for vote in [v for v in offered if v.score >= share][:SHOWN]:
                    entry = counts[share].setdefault(vote.tag_id, [0.0, 0.0])
                    entry[0] += weight
                    if vote.tag_id in hidden:
                        entry[1] += weight
    return counts


def evaluate_tags(lib: "Library", tags_of: Mapping[int, set[str]], name: str = "library",
                  folds: int = FOLDS, seed: int = 0,
                  min_share: float = MIN_SHARE) -> TagEvaluation:
    """Hide each fold of papers' tags in turn and ask for them back.

    Args:
        lib: the open library (nothing is written to its database).
        tags_of: ``{paper id: {tag name, ...}}``, the assignments to measure (see
            :func:`library_tags`, :func:`seed_tags`, :func:`synergy_tags`).
        name: what to call it in the report.
        folds: folds of the cross-validation (2 or more).
        seed: the seed of the shuffle.
        min_share: the share of the votes suggestions are made at (default: the
            window's, :data:`~.tag_suggestions.MIN_SHARE`).
    Returns:
        The :class:`TagEvaluation` (see the module docstring for the method).
    Raises:
        TermsNotReady: the term table must be built first (``lib.discover.ensure()``).
    """
    neighbours: dict[int, tuple[list[int], list[float]]] = {}
    for pid in lib.papers.ids():
        try:
            neighbours[pid] = lib.discover.neighbours(pid, NEIGHBOURS)
        except NotInTable:      # no words: never asked, as in the window
            pass
    counts = held_out_counts(neighbours, tags_of, sorted({*SHARES, min_share}), folds, seed)
    papers: dict[str, int] = {}
    for tags in tags_of.values():
        for tag in tags:
            papers[tag] = papers.get(tag, 0) + 1

    def scores(share: float) -> list[TagScore]:
        return [TagScore(tag, papers[tag], *(int(n) for n in counts[share].get(tag, (0, 0))))
                for tag in sorted(papers)]

    def total(rows: Iterable[TagScore]) -> TagScore:
        rows = list(rows)
        return TagScore("all", sum(r.papers for r in rows), sum(r.suggested for r in rows),
                        sum(r.right for r in rows))

    rows = scores(min_share)
    return TagEvaluation(name, len(lib.papers.ids()), min_share, rows, total(rows),
                         {s: total(scores(s)) for s in SHARES})


def library_tags(lib: "Library") -> dict[int, set[str]]:
    """The library's own tag assignments.

    Returns:
        ``{paper id: {tag name, ...}}`` for every tagged paper.
    """
    out: dict[int, set[str]] = {}
    for pid, name in lib.db.execute(
            "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id"):
        out.setdefault(int(pid), set()).add(name)
    return out


def _paper_of_record(lib: "Library") -> dict[tuple[str, int], int]:
    """``{(source file name, 1-based record position): paper id}``."""
    return {(Path(path).name, int(position)): int(pid) for pid, path, position in
            lib.db.execute("SELECT ps.paper_id, s.path, ps.position FROM paper_sources ps "
                           "JOIN sources s ON s.id = ps.source_id")}


def seed_tags(lib: "Library", labels: Path) -> dict[int, set[str]]:
    """The hand-assigned topics of the sample papers as tags.

    Args:
        lib: a library holding the sample files' papers.
        labels: ``tests/core/data/seed_topics.json`` (``{"papers": [{"file", "abstract",
            "topic", "also": [...]}]}``, a paper named by its file's name and its
            abstract's 1-based position).
    Returns:
        ``{paper id: {main topic, also topics...}}``.
    Raises:
        OSError, ValueError, KeyError: the file cannot be read or is not such JSON.
    """
    doc = json.loads(Path(labels).read_text("utf-8"))
    paper_of = _paper_of_record(lib)
    out: dict[int, set[str]] = {}
    for p in doc["papers"]:
        pid = paper_of.get((p["file"], int(p["abstract"])))
        if pid is not None:
            out.setdefault(pid, set()).update([p["topic"], *p.get("also", [])])
    return out


def synergy_reviews(folder: Path) -> list[tuple[str, Path, Path]]:
    """The reviews of a SYNERGY-format folder.

    Args:
        folder: holds ``NAME.csl.json`` and ``NAME.labels.csv`` pairs.
    Returns:
        ``[(NAME, csl_json, labels_csv), ...]`` by name (a file without its pair is left
        out).
    """
    found = []
    for csl in sorted(Path(folder).glob("*.csl.json")):
        name = csl.name[:-len(".csl.json")]
        labels = csl.with_name(name + ".labels.csv")
        if labels.is_file():
            found.append((name, csl, labels))
    return found


def synergy_tags(lib: "Library", csl: Path, labels: Path) -> dict[int, set[str]]:
    """A SYNERGY review's inclusions as the tag ``included``.

    Args:
        lib: a library into which ``csl`` was imported.
        csl: the review's CSL-JSON file (a list of items with ``id``).
        labels: its ``labels.csv`` (columns ``id`` and ``included``, 1 for a paper the
            review kept).
    Returns:
        ``{paper id: {"included"}}`` for the included papers found in the library.
    Raises:
        OSError, ValueError: a file cannot be read or is not of that shape (the message
            names the file: :func:`~.synergy_files.read_review_files`).
    """
    from paperdesk.core.discover.synergy_files import read_review_files

    review = read_review_files(csl, labels)
    paper_of = _paper_of_record(lib)
    out: dict[int, set[str]] = {}
    for rid in review.included:
        pid = paper_of.get((Path(csl).name, review.positions[rid]))
        if pid is not None:
            out[pid] = {"included"}
    return out


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def evaluation_report(evaluation: TagEvaluation, per_tag: bool = True) -> str:
    """The evaluation as Markdown (docs/discover.md's tables).

    Args:
        evaluation: a :class:`TagEvaluation`.
        per_tag: include the table of every tag.
    Returns:
        The text: a heading line, the per-tag table (tag, papers, suggested, right,
        precision, recall; "–" for a tag never suggested), the overall line, and the
        precision and recall at each of :data:`SHARES`. Lines end with ``\\n``.
    """
    e, o = evaluation, evaluation.overall
    lines = [f"{e.name}: {e.papers} papers, {o.papers} tag assignments; suggestions "
             f"at a share of {e.min_share:g}: precision {_percent(o.precision)}, recall "
             f"{_percent(o.recall)} ({o.right} right of {o.suggested} suggested)", ""]
    if per_tag:
        lines += ["| tag | papers | suggested | right | precision | recall |",
                  "|---|---:|---:|---:|---:|---:|"]
        for t in [*e.tags, o]:
            name = "**all**" if t is o else t.tag
            lines.append(f"| {name} | {t.papers} | {t.suggested} | {t.right} | "
                         f"{_percent(t.precision)} | {_percent(t.recall)} |")
        lines.append("")
    lines += ["| share of the votes | " + " | ".join(f"{s:g}" for s in e.by_share) + " |",
              "|---|" + "---:|" * len(e.by_share),
              "| precision | " + " | ".join(_percent(t.precision)
                                          for t in e.by_share.values()) + " |",
              "| recall | " + " | ".join(_percent(t.recall) for t in e.by_share.values())
              + " |",
              "| suggested | " + " | ".join(str(t.suggested) for t in e.by_share.values())
              + " |", ""]
    return "\n".join(lines) + "\n"


def summary(evaluations: Sequence[TagEvaluation]) -> str:
    """Several evaluations as one Markdown table, a row each (the SYNERGY reviews).

    Args:
        evaluations: :class:`TagEvaluation` list.
    Returns:
        The table: name, papers, tag assignments, suggested, right, precision and
        recall at the evaluations' share, then the precision at each of :data:`SHARES`
        ("–": nothing suggested). Lines end with ``\n``.
    """
    shares = " | ".join(f"precision at {s:g}" for s in SHARES)
    lines = [f"| library | papers | tagged | suggested | right | precision | recall | "
             f"{shares} |", "|---|" + "---:|" * (6 + len(SHARES))]
    for e in evaluations:
        o = e.overall
        lines.append(f"| {e.name} | {e.papers} | {o.papers} | {o.suggested} | {o.right} | "
                     f"{_percent(o.precision)} | {_percent(o.recall)} | "
                     + " | ".join(_percent(t.precision) for t in e.by_share.values()) + " |")
    return "\n".join(lines) + "\n"


def _root() -> Path:
    return Path(__file__).resolve().parents[4]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the evaluation of the sample library and of the SYNERGY reviews.

    Args:
        argv: ``[--seeds DIR] [--labels JSON] [--synergy FOLDER]`` (default: the source
            tree's ``seeds/`` and ``tests/core/data/seed_topics.json``; no SYNERGY).
    Returns:
        The exit status (1 with a one-line message when a file is missing or unreadable).
    """
    from paperdesk.core.library import Library

    parser = argparse.ArgumentParser(prog="python -m paperdesk.core.discover.tag_evaluation",
                                     description="Held-out evaluation of tag suggestions.")
    parser.add_argument("--seeds", type=Path, default=_root() / "seeds")
    parser.add_argument("--labels", type=Path,
                        default=_root() / "tests/core/data/seed_topics.json")
    parser.add_argument("--synergy", type=Path, metavar="FOLDER",
                        help="a folder of NAME.csl.json with NAME.labels.csv")
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    files = sorted(args.seeds.glob("*.txt"))
    if not files or not args.labels.is_file():
        print(f"paperdesk: the evaluation needs the sample files in {args.seeds} and the "
              f"labels {args.labels}", file=sys.stderr)
        return 1
    reviews = synergy_reviews(args.synergy) if args.synergy else []
    if args.synergy and not reviews:
        print(f"paperdesk: {args.synergy}: no NAME.csl.json with its NAME.labels.csv",
              file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="paperdesk-tag-eval-") as tmp:
        with Library.open(Path(tmp) / "seeds") as lib:
            lib.imports.run(files)
            lib.discover.ensure()
            sys.stdout.write(evaluation_report(evaluate_tags(lib, seed_tags(lib, args.labels),
                                                  "sample library (seeds/, topics as tags)")))
        found = []
        for name, csl, labels in reviews:
            with Library.open(Path(tmp) / name) as lib:
                lib.imports.run([csl])
                lib.discover.ensure()
                try:
                    tags = synergy_tags(lib, csl, labels)
                except (OSError, ValueError, KeyError) as exc:
                    print(f"paperdesk: {labels}: not a SYNERGY labels file ({exc})",
                          file=sys.stderr)
                    return 1
                found.append(evaluate_tags(lib, tags, f"SYNERGY {name}"))
        if found:
            sys.stdout.write(f"SYNERGY reviews ({args.synergy}), included as a tag:\n\n"
                             + summary(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
