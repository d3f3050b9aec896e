"""Issue 28's targets for a library of 1,000,000 abstracts on 2 cores, as data, and the
table ``make bench`` prints of them: each figure beside its target, met or missed.

Each :class:`Target` reads one figure from a run of :func:`benchmarks.bench.run_one`
(a corpus at a size) and compares it with its limit (every figure must be *under* it).
Wall times depend on the machine's load (it is shared here); for the import, the CPU
seconds it took are beside them, as what an idle machine's wall time would be about
(storing runs on one core; indexing on two: the CPU seconds over 2). The search shapes'
targets are checked per query in
:func:`benchmarks.search_bench.meets_target`; here they are summed up as "the slowest
median" and "the slowest p99" of the shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks import search_bench

__all__ = ["Target", "TARGETS", "evaluate", "markdown_table"]


@dataclass(frozen=True)
class Target:
    """One figure and its limit.

    Attributes:
        label: the figure, as a table row's first cell.
        get: reads the figure from a run's report dict (raises ``KeyError``,
            ``TypeError`` or ``ValueError`` when the run did not measure it).
        limit: the figure must be under this (in ``unit``).
        unit: ``"s"``, ``"ms"`` or ``"MB"``.
    """

    label: str
    get: Callable[[dict], float]
    limit: float
    unit: str


def _search(run: dict, names, key: str) -> float:
    return max(q[key] for q in run["search"] if q["query"] in names)


_PLAIN = [name for name in search_bench.QUERIES
          if name not in search_bench.FILTERED and name != "did you mean"]

#: Issue 28, "Targets at 1,000,000 abstracts on 2 cores", in its order.
TARGETS = (
    Target("list filled (every paper stored), wall s", lambda r: r["import"]["stored_s"],
           60, "s"),
    Target("fully searchable, wall s", lambda r: r["import"]["searchable_s"], 300, "s"),
    Target("list filled: CPU s until then (about the wall time on an idle machine)",
           lambda r: r["import"]["cpu_stored_s"], 60, "s"),
    Target("fully searchable: CPU s of all processes / 2 cores (the same, idle machine)",
           lambda r: r["import"]["cpu_s"] / 2, 300, "s"),
    Target("peak memory of the import, all processes, MB", lambda r: r["import"]["peak_mb"],
           1536, "MB"),
    Target("search: slowest median of the plain shapes, ms",
           lambda r: _search(r, _PLAIN, "median_ms"), search_bench.TARGET_MEDIAN_MS, "ms"),
    Target("search: slowest p99 of the plain shapes, ms",
           lambda r: _search(r, _PLAIN, "p99_ms"), search_bench.TARGET_P99_MS, "ms"),
    Target("search with a filter (tag, tag pane, is:starred): slowest median, ms",
           lambda r: _search(r, search_bench.FILTERED, "median_ms"),
           search_bench.TARGET_MEDIAN_MS, "ms"),
    Target("search with a filter: slowest p99, ms",
           lambda r: _search(r, search_bench.FILTERED, "p99_ms"),
           search_bench.TARGET_FILTERED_P99_MS, "ms"),
    Target("did you mean, median ms", lambda r: _search(r, ("did you mean",), "median_ms"),
           search_bench.TARGET_SUGGEST_MS, "ms"),
    Target("window opens (first rows), s",
           lambda r: r["window"]["window"]["open"]["first_rows_s"], 2, "s"),
    Target("window: UI thread's longest gap while typing, ms",
           lambda r: r["window"]["window"]["heartbeat_max_gap_ms"], 50, "ms"),
    Target("tag toggle → row, median ms",
           lambda r: r["window"]["window"]["tag_toggle"]["shown"]["median_ms"], 50, "ms"),
    Target("tag toggle → tag pane count, median ms",
           lambda r: r["window"]["window"]["tag_toggle"]["count_shown"]["median_ms"], 100,
           "ms"),
    Target("window memory, related papers and interest order in use, MB",
           lambda r: r["window"]["window"]["memory"]["after_discover_mb"], 600, "MB"),
    Target("a daily file of 120 → searchable, s", lambda r: r["daily"]["searchable_s"], 3,
           "s"),
    Target("tagging 10,000 papers → searchable, s", lambda r: r["tag10k"]["searchable_s"],
           10, "s"),
    Target("term table (discover) built, wall s",
           lambda r: r["discover"]["build"]["wall_s"], 300, "s"),
    Target("related papers, median ms", lambda r: r["discover"]["related"]["median_ms"],
           50, "ms"),
    Target("tag suggestions, median ms",
           lambda r: r["discover"]["suggest_tags"]["median_ms"], 50, "ms"),
    Target("near-duplicate stage of an import, s",
           lambda r: duplicates_s(r["import"]), 120, "s"),
    Target("`paperdesk check`, wall s", lambda r: r["maintenance"]["check_s"], 120, "s"),
    Target("`paperdesk backup`, wall s", lambda r: r["maintenance"]["backup_s"], 120, "s"),
)


def duplicates_s(imported: dict) -> float | None:
    """The near-duplicate stage's wall seconds of an import measured by
    :func:`benchmarks.import_bench.measure_import`: in api mode the stage alone
    (``duplicates_s``), in cli mode the command's exit minus searchable (the segment
    merges included, which the command runs before the stage); ``None`` when not
    measured."""
    if imported.get("mode") == "cli":
        return imported["exit_s"] - imported["searchable_s"]
    return imported.get("duplicates_s")


def evaluate(run: dict) -> list[tuple[Target, float | None, bool | None]]:
    """Every target against one run: ``(target, figure or None, met or None)``; ``None``
    where the run did not measure it (a stage skipped, or another corpus's stage)."""
    out = []
    for target in TARGETS:
        try:
            value = float(target.get(run))
        except (KeyError, TypeError, ValueError, IndexError):
            out.append((target, None, None))
            continue
        out.append((target, value, value < target.limit))
    return out


def _cell(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    digits = 0 if value >= 100 else 1 if value >= 10 or unit != "ms" else 2
    return f"{value:,.{digits}f}"


def markdown_table(runs: list[dict]) -> list[str]:
    """Issue 28's targets as Markdown lines: a row per target, a column per run
    (``corpus size``), the target, and "met", "missed" (naming the runs that missed it)
    or "not measured"."""
    judged = [evaluate(r) for r in runs]
    lines = ["| target (issue 28, at 1,000,000) | "
             + " | ".join(f"{r['corpus']} {r['papers']:,}" for r in runs)
             + " | target | met? |",
             "|---|" + "---:|" * len(runs) + "---|---|"]
    for i, target in enumerate(TARGETS):
        cells = [_cell(j[i][1], target.unit) for j in judged]
        verdicts = [(r, j[i][2]) for r, j in zip(runs, judged) if j[i][2] is not None]
        missed = [f"{r['corpus']} {r['papers']:,}" for r, ok in verdicts if not ok]
        verdict = ("not measured" if not verdicts else "met" if not missed
                   else "missed: " + ", ".join(missed))
        limit = f"< {target.limit:,.0f} {target.unit}"
        lines.append(f"| {target.label} | " + " | ".join(cells) + f" | {limit} | {verdict} |")
    return lines
