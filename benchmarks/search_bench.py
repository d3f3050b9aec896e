"""Search benchmark: paperdesk (Whoosh) next to SQLite FTS5 on the same synthetic library.

Usage::

    python benchmarks/search_bench.py [--n 100000] [--repeat 9] [--json] [--workdir DIR]

Builds (or reuses, when ``--workdir`` already holds one of the same size) a library of N
synthetic abstracts — sentences of the seed abstracts recombined, one unique token per
paper, a few tags each — through paperdesk's own import path, then times each query type
through ``Library.find`` (the call the window's search uses: top 50 with snippets) and the
equivalent FTS5 query (bm25, top 50, with ``snippet()``), and prints median and p95 in
milliseconds with the ratio paperdesk / FTS5.

Targets at 100,000 papers (from the issue): median under 30 ms and p95 under 100 ms for
every type except fuzzy, and no slower than FTS5.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for benchmarks.synth when run as a script

from benchmarks.synth import unique_token, write_synthetic_files  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402

TAGS = ("to read", "vision", "theory", "ml")
#: name -> (paperdesk query, FTS5 MATCH expression or None when FTS5 has no equivalent)
QUERIES = {
    "common term": ("model", "model"),
    "rare term": ("{rare}", "{rare}"),
    "two terms": ("depth estimation", "depth AND estimation"),
    "phrase": ('"neural networks"', '"neural networks"'),
    "prefix": ("transf*", "transf*"),
    "fuzzy": ("netwrk~", None),
    "OR of three": ("depth OR width OR attention", "depth OR width OR attention"),
    "tag + term": ('tag:vision depth', 'tags:vision AND depth'),
}
TARGET_MEDIAN_MS = 30.0
TARGET_P95_MS = 100.0


def _timed(fn, repeat: int, before=None) -> tuple[float, float, object]:
    fn()  # warm-up (caches, first searcher use)
    times = []
    result = None
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return statistics.median(times), p95, result


def build_library(workdir: Path, n: int, log) -> tuple[Library, dict]:
    """Open the benchmark library in ``workdir``, building it first if needed.

    Returns:
        ``(library, build_stats)`` with import/index seconds (0 when reused).
    """
    lib_path = workdir / f"lib-{n}"
    stats = {"import_s": 0.0, "index_s": 0.0, "reused": True}
    if (lib_path / "library.db").exists():
        lib = Library.open(lib_path)
        if lib.count() == n:
            return lib, stats
        lib.close()
        raise SystemExit(f"{lib_path} holds another library; remove it or pick --workdir")
    stats["reused"] = False
    seeds = sorted((ROOT / "seeds").glob("*.txt"))
    files = write_synthetic_files(workdir / f"files-{n}", seeds, n)
    lib = Library.open(lib_path)
    start = time.perf_counter()
    report = lib.import_paths(files, sync=False)
    stats["import_s"] = time.perf_counter() - start
    log(f"imported {report.added} papers in {stats['import_s']:.1f} s; tagging…")
    rng = random.Random(7)
    ids = lib.paper_ids()
    for tag in TAGS:  # a few tags each: every paper gets one or two
        lib.auto_sync_index = False
        lib.add_tag(rng.sample(ids, len(ids) // 3), tag)
    lib.auto_sync_index = True
    start = time.perf_counter()
    last = [0.0]

    def progress(stage, done, total):
        if time.perf_counter() - last[0] > 15:
            last[0] = time.perf_counter()
            log(f"  indexing {done}/{total}")

    lib.sync_index(progress=progress)
    stats["index_s"] = time.perf_counter() - start
    log(f"indexed in {stats['index_s']:.1f} s")
    return lib, stats


def build_fts(lib: Library, path: Path) -> tuple[sqlite3.Connection, float]:
    """Load the library's titles, abstracts and tags into an FTS5 table (porter,
    unicode61 with diacritics removed: the closest match to paperdesk's analysis)."""
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path)
    start = time.perf_counter()
    con.execute("CREATE VIRTUAL TABLE fts USING fts5(title, abstract, tags, "
                "tokenize = 'porter unicode61 remove_diacritics 2')")
    rows = lib.db.execute(
        "SELECT p.id, p.title, p.abstract, (SELECT group_concat(t.name, ' ') FROM paper_tags pt "
        "JOIN tags t ON t.id = pt.tag_id WHERE pt.paper_id = p.id) FROM papers p")
    con.executemany("INSERT INTO fts (rowid, title, abstract, tags) VALUES (?, ?, ?, ?)", rows)
    con.commit()
    return con, time.perf_counter() - start


def run(n: int, repeat: int, workdir: Path, log, cold: bool = False) -> dict:
    """Build both stores and time every query type. Returns the report dict.

    With ``cold``, paperdesk's search caches (Whoosh searcher, decoded posting lists,
    field lengths, paper ids) are dropped before every timed run, so each run reads the
    index as the first search after opening the library would (the OS file cache stays
    warm, as it does for SQLite)."""
    workdir.mkdir(parents=True, exist_ok=True)
    lib, build = build_library(workdir, n, log)
    fts, fts_build = build_fts(lib, workdir / f"fts-{n}.db")
    build["fts_build_s"] = fts_build
    rare = unique_token(n // 2)
    rows = []
    for name, (ours, theirs) in QUERIES.items():
        ours = ours.format(rare=rare)
        med, p95, results = _timed(lambda: lib.find(ours, limit=50, count=False), repeat,
                                   before=lib.index.drop_caches if cold else None)
        row = {"query": name, "text": ours, "median_ms": med, "p95_ms": p95,
               "hits": len(results.hits), "total": results.total}
        if theirs is not None:
            sql = ("SELECT rowid, bm25(fts, 2.0, 1.0, 1.0), snippet(fts, 1, '', '', '…', 24) "
                   "FROM fts WHERE fts MATCH ? ORDER BY bm25(fts, 2.0, 1.0, 1.0) LIMIT 50")
            arg = theirs.format(rare=rare)
            fmed, fp95, _ = _timed(lambda: fts.execute(sql, [arg]).fetchall(), repeat)
            row.update(fts_median_ms=fmed, fts_p95_ms=fp95, ratio=med / fmed if fmed else None)
        else:
            row.update(fts_median_ms=None, fts_p95_ms=None, ratio=None)
        target = name == "fuzzy" or (med < TARGET_MEDIAN_MS and p95 < TARGET_P95_MS
                                     and (row["ratio"] is None or row["ratio"] <= 1.0))
        row["meets_target"] = target
        rows.append(row)
        log(f"  {name}: {med:.1f} ms")
    lib.close()
    fts.close()
    return {"papers": n, "repeat": repeat, "build": build, "queries": rows, "cold": cold}


def print_table(report: dict) -> None:
    """Print the report as a Markdown table (paste into the README)."""
    b = report["build"]
    print(f"\n{report['papers']:,} papers; median and p95 of {report['repeat']} runs, ms"
          + (", caches dropped before each run. " if report.get("cold") else ". ")
          + ("(library reused)" if b["reused"] else
             f"Import {b['import_s']:.1f} s, index {b['index_s']:.1f} s;")
          + f" FTS5 build {b['fts_build_s']:.1f} s.\n")
    print("| query | paperdesk median | p95 | FTS5 median | p95 | ratio | target |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in report["queries"]:
        fts = (f"{r['fts_median_ms']:.1f} | {r['fts_p95_ms']:.1f} | {r['ratio']:.1f}×"
               if r["fts_median_ms"] is not None else "n/a | n/a | n/a")
        print(f"| {r['query']} (`{r['text']}`) | {r['median_ms']:.1f} | {r['p95_ms']:.1f} | "
              f"{fts} | {'met' if r['meets_target'] else 'missed'} |")


def main(argv=None) -> int:
    """Command-line entry point; returns the exit status (0)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="papers (default 100000)")
    parser.add_argument("--repeat", type=int, default=9, help="timed runs per query")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".bench",
                        help="where the libraries are built and kept (default .bench/)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--cold", action="store_true",
                        help="drop paperdesk's search caches before every timed run")
    args = parser.parse_args(argv)
    log = (lambda msg: print(msg, file=sys.stderr, flush=True))
    report = run(args.n, args.repeat, args.workdir, log, cold=args.cold)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
