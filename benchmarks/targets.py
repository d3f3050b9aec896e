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

__all__ = ["Target", "TARGETS", "evaluate", "markdown_table", "reason"]


@dataclass(frozen=True)
class Target:
    """One figure and its limit.

    Attributes:
        label: the figure, as a table row's first cell.
        get: reads the figure from a run's report dict (raises ``KeyError``,
            ``TypeError`` or ``ValueError`` when the run did not measure it).
        limit: the figure must be under this (in ``unit``).
        unit: ``"s"``, ``"ms"`` or ``"MB"``.
        why: when the run missed it, the measured reason: a sentence built from the
            run's other figures (where the CPU went, what FTS5 and tantivy take for the
            same texts, where the window's UI thread was); ``None``: none measured.
    """

    label: str
    get: Callable[[dict], float]
    limit: float
    unit: str
    why: Callable[[dict], str] | None = None


def _search(run: dict, names, key: str) -> float:
    return max(q[key] for q in run["search"] if q["query"] in names)


def _n(value, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def _references(run: dict) -> str:
    """What FTS5 and tantivy took to index the same texts, when measured."""
    out = []
    if run.get("fts5"):
        out.append(f"SQLite FTS5 {_n(run['fts5']['cpu_s'])}")
    if run.get("tantivy"):
        out.append(f"tantivy {_n(run['tantivy']['cpu_s'])}")
    return (" (the same texts: " + ", ".join(out) + " CPU s)") if out else ""


def _load_text(run: dict) -> str:
    before = run.get("load_before", {}).get("loadavg") or [None]
    after = run.get("load_after_import", {}).get("loadavg") or [None]
    if before[0] is None or after[0] is None:
        return ""
    return f"; load {before[0]:.1f} → {after[0]:.1f}"


def _why_stored(run: dict) -> str:
    imp = run["import"]
    split = ""
    if imp.get("cpu_self_stored_s") is not None and imp.get("cpu_children_stored_s") is not None:
        split = (f" (storing process {_n(imp['cpu_self_stored_s'])}, reading child "
                 f"{_n(imp['cpu_children_stored_s'])})")
    return (f"CPU-bound: {_n(imp['cpu_stored_s'])} CPU s until stored{split}, "
            f"{1000 * imp['cpu_stored_s'] / run['papers']:.2f} ms a paper{_load_text(run)}")


def _why_searchable(run: dict) -> str:
    imp = run["import"]
    return (f"CPU-bound: {_n(imp['cpu_s'])} CPU s of all processes, "
            f"{1000 * imp['cpu_s'] / run['papers']:.2f} ms a paper (Whoosh's segment "
            f"format is written in Python){_references(run)}{_load_text(run)}")


def _worst_search(run: dict, names, key: str) -> str:
    q = max((q for q in run["search"] if q["query"] in names), key=lambda q: q[key])
    refs = []
    if q.get("tv_median_ms") is not None:
        refs.append(f"tantivy {q['tv_median_ms']:.1f} ms")
    if q.get("fts_median_ms") is not None:
        refs.append(f"FTS5 {q['fts_median_ms']:.1f} ms")
    ref = f"; the same query: {', '.join(refs)}" if refs else ""
    return (f"{q['query']}: {q[key]:.1f} ms, CPU median {q.get('cpu_median_ms', 0):.1f} ms "
            f"(the search's own CPU), {q['total']:,} hits{ref}")


def _why_window_gap(run: dict) -> str:
    w = run["window"]["window"]
    stalls = [s for q in w.get("queries", []) for s in q.get("heartbeat", {}).get("stalls", [])]
    if not stalls:
        return ""
    worst = max(stalls, key=lambda s: s["gap_ms"])
    ran = ""
    if "cpu_ms" in worst:   # the UI thread's own CPU in it (ui_bench.Heartbeat)
        ran = (f" (the UI thread ran {worst['cpu_ms']:,.0f} ms of it and waited the rest: "
               "for the interpreter lock, a lock or a core)")
    return f"longest stall {worst['gap_ms']:,.0f} ms{ran} in {worst['where']}"


def _why_window_memory(run: dict) -> str:
    m = run["window"]["window"]["memory"]
    private = ""
    if m.get("after_discover_anon_mb") is not None:
        private = (f"; of it {_n(m['after_discover_anon_mb'])} MB private, the rest index "
                   "and database pages mapped from disk, which the kernel can drop")
    return (f"{_n(m['after_search_mb'])} MB after searching, {_n(m['after_discover_mb'])} "
            f"with related papers and the interest order, over {m['processes']} processes "
            f"(the window, the index's writer child, the term table's reader){private}")


def _why_duplicates(run: dict) -> str:
    imp = run["import"]
    if imp.get("mode") == "cli":
        return ("exit − searchable: the index's segment merges and the near-duplicate "
                "stage together (the command does not report them apart)")
    pairs = imp.get("duplicate_pairs")
    return (f"{_n(imp['duplicates_s'])} s signing every abstract (MinHash) and looking "
            f"up its bands, {pairs:,} pairs found" if pairs is not None else "")


_PLAIN = [name for name in search_bench.QUERIES
          if name not in search_bench.FILTERED and name != "did you mean"]

#: Issue 28, "Targets at 1,000,000 abstracts on 2 cores", in its order.
TARGETS = (
    Target("list filled (every paper stored), wall s", lambda r: r["import"]["stored_s"],
           60, "s", _why_stored),
    Target("fully searchable, wall s", lambda r: r["import"]["searchable_s"], 300, "s",
           _why_searchable),
    Target("list filled: CPU s until then (about the wall time on an idle machine)",
           lambda r: r["import"]["cpu_stored_s"], 60, "s", _why_stored),
    Target("fully searchable: CPU s of all processes / 2 cores (the same, idle machine)",
           lambda r: r["import"]["cpu_s"] / 2, 300, "s", _why_searchable),
    Target("peak memory of the import, all processes, MB", lambda r: r["import"]["peak_mb"],
           1536, "MB"),
    Target("search: slowest median of the plain shapes, ms",
           lambda r: _search(r, _PLAIN, "median_ms"), search_bench.TARGET_MEDIAN_MS, "ms",
           lambda r: _worst_search(r, _PLAIN, "median_ms")),
    Target("search: slowest p99 of the plain shapes, ms",
           lambda r: _search(r, _PLAIN, "p99_ms"), search_bench.TARGET_P99_MS, "ms",
           lambda r: _worst_search(r, _PLAIN, "p99_ms")),
    Target("search with a filter (tag, tag pane, is:starred): slowest median, ms",
           lambda r: _search(r, search_bench.FILTERED, "median_ms"),
           search_bench.TARGET_MEDIAN_MS, "ms",
           lambda r: _worst_search(r, search_bench.FILTERED, "median_ms")),
    Target("search with a filter: slowest p99, ms",
           lambda r: _search(r, search_bench.FILTERED, "p99_ms"),
           search_bench.TARGET_FILTERED_P99_MS, "ms",
           lambda r: _worst_search(r, search_bench.FILTERED, "p99_ms")),
    Target("did you mean, median ms", lambda r: _search(r, ("did you mean",), "median_ms"),
           search_bench.TARGET_SUGGEST_MS, "ms"),
    Target("window opens (first rows), s",
           lambda r: r["window"]["window"]["open"]["first_rows_s"], 2, "s"),
    Target("window: UI thread's longest gap while typing, ms",
           lambda r: r["window"]["window"]["heartbeat_max_gap_ms"], 50, "ms",
           _why_window_gap),
    Target("tag toggle → row, median ms",
           lambda r: r["window"]["window"]["tag_toggle"]["shown"]["median_ms"], 50, "ms"),
    Target("tag toggle → tag pane count, median ms",
           lambda r: r["window"]["window"]["tag_toggle"]["count_shown"]["median_ms"], 100,
           "ms"),
    Target("window memory, related papers and interest order in use, MB",
           lambda r: r["window"]["window"]["memory"]["after_discover_mb"], 600, "MB",
           _why_window_memory),
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
           lambda r: duplicates_s(r["import"]), 120, "s", _why_duplicates),
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


def reason(target: Target, run: dict) -> str:
    """The measured reason ``run`` missed ``target`` (``target.why``), or ``""`` when
    none was measured (the figures it reads are missing)."""
    if target.why is None:
        return ""
    try:
        return target.why(run)
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
        return ""


def _cell(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    digits = 0 if value >= 100 else 1 if value >= 10 or unit != "ms" else 2
    return f"{value:,.{digits}f}"


def markdown_table(runs: list[dict]) -> list[str]:
    """Issue 28's targets as Markdown lines: a row per target, a column per run
    (``corpus size``), the target, "met", "missed" (naming the runs that missed it) or
    "not measured", and for a missed one the measured reason of each run that missed it
    (:func:`reason`)."""
    judged = [evaluate(r) for r in runs]
    lines = ["| target (issue 28, at 1,000,000) | "
             + " | ".join(f"{r['corpus']} {r['papers']:,}" for r in runs)
             + " | target | met? | measured reason (where missed) |",
             "|---|" + "---:|" * len(runs) + "---|---|---|"]
    for i, target in enumerate(TARGETS):
        cells = [_cell(j[i][1], target.unit) for j in judged]
        verdicts = [(r, j[i][2]) for r, j in zip(runs, judged) if j[i][2] is not None]
        missed = [r for r, ok in verdicts if not ok]
        names = [f"{r['corpus']} {r['papers']:,}" for r in missed]
        verdict = ("not measured" if not verdicts else "met" if not missed
                   else "missed: " + ", ".join(names))
        why = "; ".join(f"{name}: {text}" if len(runs) > 1 else text
                        for name, text in ((n, reason(target, r)) for n, r in zip(names, missed))
                        if text) or ("not measured" if missed else "")
        why = why.replace("|", "\\|")
        limit = f"< {target.limit:,.0f} {target.unit}"
        lines.append(f"| {target.label} | " + " | ".join(cells)
                     + f" | {limit} | {verdict} | {why} |")
    return lines
