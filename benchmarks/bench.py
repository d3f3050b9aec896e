"""``make bench``: import, search and window figures at one or more library sizes, on two
synthetic corpora and an arXiv-shaped metadata file, next to SQLite FTS5 and tantivy,
with the machine's load beside them and issue 28's targets met or missed (a missed one
with its measured reason).

Usage::

    python benchmarks/bench.py [--sizes 100000] [--corpora seeds,zipf,arxiv]
        [--mode api|cli] [--repeat 21] [--workdir .bench/run] [--no-ui] [--ui-import N]
        [--keep]

    make bench                      # 100,000 papers
    make bench N=1000000            # one size
    make bench SIZES="100000 300000 1000000"   # the growth series

For each size N and each corpus (run in the order 1-3, 8-9, 4-7: the longest last; the
report is written again after each step):

1. **Files**: N abstracts in the Daily Papers format, 10,000 a file, written once and
   kept in ``WORKDIR/files/<corpus>-<N>/`` (deterministic): ``seeds`` — sentences of the
   seed abstracts recombined, one unique token per paper (:mod:`benchmarks.synth`; a
   vocabulary of a few thousand words that flatters caches); ``zipf`` — Zipf-distributed
   pseudo-words of an open lexicon (Heaps' law), about 440,000 distinct at 100,000 papers
   and 1.8 million at 1,000,000 (:mod:`benchmarks.zipf_synth`).
2. **Import** into a new library in a child process (:mod:`benchmarks.import_bench`):
   seconds to *stored* (every paper in SQLite: the list is browsable) and to *fully
   searchable* (index documents == papers), CPU seconds of the child and all its
   descendants, the peak of the summed resident memory of its process tree, index and
   database sizes.
3. **Tags**: four tags on a third of the papers each (one ``add_tag`` per tag) and a
   star on a tenth, seconds to commit and to searchable; then one more tag on 10,000
   papers (:func:`benchmarks.search_bench.tag_sample`).
4. **FTS5** and **tantivy** (:mod:`benchmarks.tantivy_ref`, when the ``[search-reference]`` extra
   is installed) built from the same titles, abstracts and tags in this process: wall
   and CPU seconds, size.
5. **Search table**: every query shape through ``lib.search.find``, FTS5 and tantivy,
   medians and p99 (:func:`benchmarks.search_bench.time_queries`), the tag-pane filter,
   ``is:starred`` and "did you mean" included.
6. **Discover** (:mod:`benchmarks.discover_bench`): the term table's build, related
   papers next to an FTS5 "more like this" query, key terms, tag suggestions, the
   interest order of 1,000 unread papers, memory.
7. **The window** (``benchmarks/ui_bench.py --library``, offscreen, in a child): open,
   select, tag toggle, tag pane, typing (heartbeat), memory.
8. **A daily import**: one more file of :data:`DAILY` new abstracts into the finished
   library, seconds to stored and to searchable (:func:`daily_import`).
9. ``paperdesk check`` and ``paperdesk backup`` on it, wall seconds
   (:func:`check_and_backup`).

The ``arxiv`` corpus is an import stage only (:func:`arxiv_import`): one JSON Lines file
of N computer-science records and N/4 of other archives in the format of arXiv's
metadata snapshot (:mod:`benchmarks.arxiv_synth`), imported as a user does,
``paperdesk import --category cs FILE``: seconds to stored (the list filled), to fully
searchable and to the command's exit (after its near-duplicate stage).

Then issue 28's targets against the runs at the largest size (:mod:`benchmarks.targets`)
and the growth from the smallest size to the largest, every size shown. The machine's load (``uptime``'s
load averages, the core count) is taken before and after each step. The full report is
written as JSON to ``WORKDIR/report-<sizes>.json`` and the Markdown tables (ready for
docs/figures.md) to ``WORKDIR/report-<sizes>.md`` and standard output; a copy of both, named with
the start time, goes to ``WORKDIR/history/`` and is never overwritten.

The libraries are rebuilt on every run (the import is what is measured); ``--keep``
reuses a library already built at that size and skips its import (search and window
figures only). Everything stays inside ``WORKDIR`` (default ``.bench/run``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # for benchmarks.* when run as a script

from benchmarks import (arxiv_synth, discover_bench, search_bench, tantivy_ref,  # noqa: E402
                        targets, zipf_synth)
from benchmarks.import_bench import ImportBenchError, measure_import  # noqa: E402
from benchmarks.procstat import dir_size_mb, machine_load  # noqa: E402
from benchmarks.synth import write_synthetic_files  # noqa: E402

__all__ = ["run", "markdown", "main"]

CORPORA = ("seeds", "zipf", "arxiv")
#: The arXiv archive the arXiv-shaped file is imported with (``import --category``).
ARXIV_CATEGORY = "cs"
#: The window benchmark is stopped after this many seconds.
UI_TIMEOUT_S = 1800
#: Abstracts in the "daily import" into the finished library (issue 12: under 3 s).
DAILY = 120
PER_FILE = 10_000
#: The window's typing queries per corpus (the Zipf ones come from its queries.json).
SEED_TYPED = ("depth estimation", "model", "transformer")
#: Issue 12's targets at 100,000 papers.
TARGETS = {"stored_s": 15.0, "searchable_s": 90.0, "peak_mb": 500.0, "median_ms": 30.0,
           "heartbeat_ms": 100.0, "window_mb": 300.0, "toggle_ms": 50.0}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def corpus_files(workdir: Path, corpus: str, n: int) -> tuple[list[Path], dict]:
    """Write (once) and return the files of ``corpus`` at size ``n``, and its query words
    (``{}`` for the seed and arXiv corpora). Zipf files of an older generator are written
    again. The arXiv corpus is one JSON Lines file of ``n`` records of
    :data:`ARXIV_CATEGORY` and a quarter as many of other archives
    (:func:`benchmarks.arxiv_synth.write_arxiv_file`)."""
    folder = workdir / "files" / f"{corpus}-{n}"
    done = folder / ".complete"
    if corpus == "zipf" and zipf_synth.corpus_stats(folder).get("version") != \
            zipf_synth.GENERATOR_VERSION:
        done.unlink(missing_ok=True)
    if not done.exists():
        shutil.rmtree(folder, ignore_errors=True)
        start = time.perf_counter()
        if corpus == "seeds":
            write_synthetic_files(folder, sorted((ROOT / "seeds").glob("*.txt")), n,
                                  per_file=PER_FILE)
        elif corpus == "arxiv":
            arxiv_synth.write_arxiv_file(folder / "arxiv-metadata.jsonl", n)
        else:
            zipf_synth.write_zipf_files(folder, n, per_file=PER_FILE)
        done.write_text(f"{n}\n")
        _log(f"  wrote {n:,} {corpus} abstracts in {time.perf_counter() - start:.0f} s")
    files = sorted(p for p in folder.glob("*.txt" if corpus != "arxiv" else "*.jsonl"))
    return files, zipf_synth.corpus_stats(folder) if corpus == "zipf" else {}


def _ui(lib_path: Path, workdir: Path, typed: tuple[str, ...], ui_import: int) -> dict:
    """The window benchmark in a child process (Qt offscreen); its JSON report, or
    ``{"error": message}`` when it failed (the rest of the run goes on)."""
    cmd = [sys.executable, str(ROOT / "benchmarks" / "ui_bench.py"), "--library",
           str(lib_path), "--workdir", str(workdir), "--json"]
    for q in typed:
        cmd += ["--query", q]
    if ui_import:
        cmd += ["--import-n", str(ui_import)]
    else:
        cmd.append("--skip-import")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT,
                             timeout=UI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"error": f"ui_bench.py did not finish within {UI_TIMEOUT_S} s"}
    if out.returncode != 0:
        tail = [line for line in out.stderr.strip().splitlines() if line.strip()][-3:]
        return {"error": " / ".join(tail) or f"exit status {out.returncode}"}
    try:
        return json.loads(out.stdout)
    except ValueError:
        return {"error": "no JSON report from ui_bench.py"}


def run_one(workdir: Path, corpus: str, n: int, args, checkpoint=None) -> dict:
    """All the steps for one corpus at one size; returns its report dict.

    The steps run in this order: import, tags, a daily file, ``check`` and ``backup``,
    then FTS5, tantivy and the search table, discover, the window (the longest last).
    ``checkpoint``, when given, is called with the report dict so far after each."""
    from paperdesk.core.library import Library

    checkpoint = checkpoint or (lambda out: None)
    out: dict = {"corpus": corpus, "papers": n, "load_before": machine_load()}
    files, words = corpus_files(workdir, corpus, n)
    if words:
        out["distinct_words"] = words.get("distinct_words")
        out["tokens"] = words.get("tokens")
    lib_path = workdir / "libraries" / f"{corpus}-{n}"
    if corpus == "arxiv":
        return arxiv_import(lib_path, files, n, out)
    reuse = args.keep and (lib_path / ".tagged").exists()
    if not reuse:
        shutil.rmtree(lib_path, ignore_errors=True)
        lib_path.parent.mkdir(parents=True, exist_ok=True)
        _log(f"  importing ({args.mode})…")
        out["import"] = measure_import(lib_path, files, n, args.mode, _log)
        imp = out["import"]
        _log(f"  stored {imp['stored_s']:.1f} s, searchable {imp['searchable_s']:.1f} s, "
             f"CPU {imp['cpu_s']:.1f} s, peak {imp['peak_mb']:.0f} MB, index "
             f"{imp['index_mb']:.0f} MB")
    else:
        out["import"] = None
    out["load_after_import"] = machine_load()
    checkpoint(out)
    if not reuse:
        with Library.open(lib_path) as lib:
            out["tags"] = search_bench.tag_library(lib, log=_log)
            (lib_path / ".tagged").write_text("vision, theory, ml, to read\n")
            _log(f"  tagged {out['tags']['tagged']:,} papers x4: searchable after "
                 f"{out['tags']['searchable_s']:.1f} s")
            out["tag10k"] = search_bench.tag_sample(lib)
            _log(f"  tagged {out['tag10k']['papers']:,} papers: searchable after "
                 f"{out['tag10k']['searchable_s']:.1f} s")
        checkpoint(out)
        out["daily"] = daily_import(workdir, corpus, n, lib_path)
        _log(f"  a daily file of {DAILY} abstracts: stored {out['daily']['stored_s']:.2f} s, "
             f"searchable {out['daily']['searchable_s']:.2f} s")
    out["maintenance"] = check_and_backup(lib_path, workdir)
    _log(f"  paperdesk check and backup: {out['maintenance']}")
    checkpoint(out)
    lib = Library.open(lib_path)
    try:
        fts_path = workdir / "libraries" / f"fts-{corpus}-{n}.db"
        fts, out["fts5"] = search_bench.fts_build(lib, fts_path)
        _log(f"  FTS5 build {out['fts5']['wall_s']:.1f} s, CPU {out['fts5']['cpu_s']:.1f} s, "
             f"{out['fts5']['mb']:.0f} MB")
        tantivy = out["tantivy"] = None
        if tantivy_ref.available():
            tantivy = tantivy_ref.TantivyReference(workdir / "libraries" /
                                                   f"tantivy-{corpus}-{n}")
            out["tantivy"] = tantivy.build(search_bench.tantivy_rows(lib))
            _log(f"  tantivy build {out['tantivy']['wall_s']:.1f} s, CPU "
                 f"{out['tantivy']['cpu_s']:.1f} s, {out['tantivy']['mb']:.0f} MB")
        else:
            _log("  tantivy is not installed (pip install '.[search-reference]'): no tantivy figures")
        queries = (search_bench.seed_queries(n) if corpus == "seeds"
                   else search_bench.zipf_queries(words))
        try:
            out["search"] = search_bench.time_queries(lib, fts, queries, args.repeat, _log,
                                                      tantivy=tantivy)
        finally:
            if tantivy is not None:
                tantivy.close()
        out["load_after_search"] = machine_load()
        checkpoint(out)
        lib.close()
        try:
            out["discover"] = discover_bench.time_discover(lib_path, fts, _log)
        except Exception as exc:   # noqa: BLE001 - the other figures of the run stand
            out["discover"] = {"error": f"{type(exc).__name__}: {exc}"}
            _log(f"  discover failed: {out['discover']['error']}")
        checkpoint(out)
        lib = Library.open(lib_path)
        fts.close()
        fts_path.unlink(missing_ok=True)
        out["index_mb"] = dir_size_mb(lib_path / "index")
    finally:
        lib.close()
    if not args.no_ui:
        typed = SEED_TYPED if corpus == "seeds" else (
            words["common"], " ".join(words["two"]), words["prefix"] + "*")
        _log("  the window…")
        out["window"] = _ui(lib_path, workdir, typed, args.ui_import)
        if "error" in out["window"]:
            _log(f"  window benchmark failed: {out['window']['error']}")
    out["load_after"] = machine_load()
    return out


def check_and_backup(lib_path: Path, workdir: Path) -> dict:
    """Time ``paperdesk check`` and ``paperdesk backup`` on the library as a user runs
    them (child processes, wall seconds from start to exit; the backup file is deleted).

    Returns:
        ``{"check_s", "check_ok", "backup_s", "backup_mb"}``, or ``{"error": the
        command and the last line of its standard error}`` when one failed.
    """
    backup = workdir / "libraries" / f"backup-of-{lib_path.name}.db"
    backup.unlink(missing_ok=True)
    out = {}
    for name, extra in (("check", []), ("backup", [str(backup)])):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib_path),
                               name, "--json", *extra], capture_output=True, text=True,
                              cwd=ROOT)
        out[f"{name}_s"] = time.perf_counter() - start
        if done.returncode not in (0, 1) or (name == "backup" and done.returncode):
            tail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            backup.unlink(missing_ok=True)
            return {"error": f"paperdesk {name}: {tail}"}
        if name == "check":
            out["check_ok"] = done.returncode == 0
    out["backup_mb"] = backup.stat().st_size / 2**20 if backup.exists() else None
    backup.unlink(missing_ok=True)
    return out


def arxiv_import(lib_path: Path, files: list[Path], n: int, out: dict) -> dict:
    """Import the arXiv-shaped file as a user does, ``paperdesk import --category cs``,
    and measure it (:func:`benchmarks.import_bench.measure_import`, mode ``cli``); the
    library is deleted afterwards. Returns ``out`` with ``"import"``, ``"file_mb"``,
    ``"load_after_import"`` and ``"load_after"``."""
    shutil.rmtree(lib_path, ignore_errors=True)
    lib_path.parent.mkdir(parents=True, exist_ok=True)
    out["file_mb"] = sum(f.stat().st_size for f in files) / 2**20
    _log(f"  importing {out['file_mb']:,.0f} MB of arXiv metadata with "
         f"--category {ARXIV_CATEGORY} (cli)…")
    out["import"] = imp = measure_import(lib_path, files, n, "cli", _log,
                                         import_args=("--category", ARXIV_CATEGORY))
    _log(f"  stored {imp['stored_s']:.1f} s, searchable {imp['searchable_s']:.1f} s, "
         f"exit {imp['exit_s']:.1f} s, CPU {imp['cpu_s']:.1f} s, peak "
         f"{imp['peak_mb']:.0f} MB, index {imp['index_mb']:.0f} MB")
    out["load_after_import"] = out["load_after"] = machine_load()
    shutil.rmtree(lib_path, ignore_errors=True)
    return out


def daily_import(workdir: Path, corpus: str, n: int, lib_path: Path) -> dict:
    """Import one more file of :data:`DAILY` new abstracts of the same corpus (a day's
    papers) into the library at ``lib_path`` (in this process, as the window's writer
    would) and time it: ``{"papers", "stored_s", "searchable_s"}``, wall seconds after
    the call. The library then holds ``n + DAILY`` papers."""
    from paperdesk.core.library import Library

    folder = workdir / "files" / f"daily-{corpus}-{n}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    path = folder / "daily.txt"
    if corpus == "seeds":
        # another seed of the same generator; each abstract ends in its own unique token
        from benchmarks.synth import seed_sentences, unique_token
        import random
        rng = random.Random(n)
        sentences = seed_sentences(sorted((ROOT / "seeds").glob("*.txt")))
        body = [" ".join(rng.sample(sentences, rng.randint(6, 10)))
                + f" Token {unique_token(n + 10 * DAILY + i)}." for i in range(DAILY)]
    else:
        generator = zipf_synth.ZipfCorpus(cached_words=0)
        body = [generator.abstract(n + i)[0] for i in range(DAILY)]
    path.write_text("Daily papers\n\n" + "\n\n".join(body) + "\n", encoding="utf-8")
    with Library.open(lib_path) as lib:
        start = time.perf_counter()
        report = lib.imports.run([path], sync=False)
        stored = time.perf_counter() - start
        lib.index.sync()
        searchable = time.perf_counter() - start
        papers = lib.papers.count()
    shutil.rmtree(folder, ignore_errors=True)
    return {"papers": report.added, "stored_s": stored, "searchable_s": searchable,
            "library_papers": papers}


def run(sizes: list[int], corpora: list[str], args, save=None) -> dict:
    """Run every corpus at every size, in the order given; returns the whole report.

    Args:
        sizes: library sizes.
        corpora: names from :data:`CORPORA`.
        args: the parsed options of :func:`main`.
        save: called with the report so far after each corpus and size (its
            ``"partial"`` True until the last), so that a run stopped early leaves
            the figures it has; or ``None``.
    """
    workdir = args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    report = {"sizes": sizes, "corpora": corpora, "mode": args.mode,
              "repeat": args.repeat, "load_start": machine_load(), "runs": []}
    try:
        report["commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short",
                                           "HEAD"], capture_output=True,
                                          text=True).stdout.strip()
    except OSError:
        report["commit"] = None
    for n in sizes:
        for corpus in corpora:
            _log(f"{corpus} corpus, {n:,} papers:")
            def checkpoint(out: dict) -> None:
                if save is not None:
                    save({**report, "runs": report["runs"] + [out], "partial": True,
                          "load_end": machine_load()})

            try:
                report["runs"].append(run_one(workdir, corpus, n, args, checkpoint))
            except ImportBenchError as exc:
                _log(f"  import failed: {exc}")
                report["runs"].append({"corpus": corpus, "papers": n, "error": str(exc)})
            except Exception as exc:   # noqa: BLE001 - a failed step; the next runs go on
                _log(f"  failed: {traceback.format_exc()}")
                report["runs"].append({"corpus": corpus, "papers": n,
                                       "error": f"{type(exc).__name__}: {exc}"})
            report["load_end"] = machine_load()
            report["partial"] = (n, corpus) != (sizes[-1], corpora[-1])
            if save is not None:
                save(report)
    if len(sizes) == 1:
        report["growth_from"] = _earlier_report(workdir, sizes[0], corpora)
    return report


def merge_reports(reports: list[dict]) -> dict:
    """One report of the runs of several (runs of separate ``make bench`` calls, such as
    a million papers measured beside the smaller sizes): every run, the later one where
    two have the same corpus and size; the load at the earliest start and the latest
    end; the commits of all; ``"merged"``: how many reports.

    Args:
        reports: report dicts as :func:`run` returns them (read from their JSON).
    Returns:
        A report dict that :func:`markdown` takes.
    """
    ordered = sorted(reports, key=lambda r: r["load_start"]["at"])
    runs: dict = {}
    for report in ordered:
        for r in report["runs"]:
            runs[(r["corpus"], r["papers"])] = r
    corpora = list(dict.fromkeys(c for rep in ordered for c in rep["corpora"]))
    sizes = sorted({n for _c, n in runs})
    return {"sizes": sizes, "corpora": corpora, "mode": ordered[-1]["mode"],
            "repeat": ordered[-1]["repeat"], "load_start": ordered[0]["load_start"],
            "load_end": max((rep["load_end"] for rep in ordered), key=lambda x: x["at"]),
            "commit": ", ".join(dict.fromkeys(rep.get("commit") or "?" for rep in ordered)),
            "partial": any(rep.get("partial") for rep in ordered), "merged": len(ordered),
            "runs": sorted(runs.values(), key=lambda r: (r["papers"],
                                                         corpora.index(r["corpus"])))}


def _earlier_report(workdir: Path, size: int, corpora: list[str]) -> dict | None:
    """The runs of the newest earlier ``report-<N>.json`` in ``workdir`` with the
    smallest other size ``N`` below ``size`` (so ``make bench N=10000`` then ``make
    bench`` shows the growth from 10,000 to 100,000), or ``None``."""
    found = []
    for path in workdir.glob("report-*.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            other = [r for r in data["runs"] if r["papers"] < size
                     and r["corpus"] in corpora and "error" not in r and r.get("import")]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if other:
            found.append((min(r["papers"] for r in other), -path.stat().st_mtime, path,
                          data, other))
    if not found:
        return None
    lo, _mtime, path, data, other = min(found, key=lambda f: (f[0], f[1]))
    return {"file": path.name, "at": data.get("load_start", {}).get("at"),
            "runs": [r for r in other if r["papers"] == lo]}


# -- Markdown ------------------------------------------------------------------------------
def _f(value, digits: int = 1, suffix: str = "") -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}{suffix}"


def _load(load: dict) -> str:
    return " / ".join(f"{x:.2f}" for x in load["loadavg"])


def markdown(report: dict) -> str:
    """Return the report as Markdown (load line, import table, search tables, window
    table, growth), ready to paste into docs/figures.md."""
    lines = []
    runs = [r for r in report["runs"] if "error" not in r]
    start, end = report["load_start"], report["load_end"]
    if report.get("partial"):
        lines.append("**Partial report: the run is still going, or was stopped.**\n")
    if report.get("merged"):
        lines.append(f"Merged from {report['merged']} runs of `make bench` (each figure with "
                     "the load of its own run in the JSON).\n")
    lines.append(f"Measured {start['at']} → {end['at']} on {start['cores']} cores "
                 f"(commit {report.get('commit') or '?'}, import mode {report['mode']}); "
                 f"load averages (1 / 5 / 15 min) {_load(start)} at the start, "
                 f"{_load(end)} at the end.")
    for r in report["runs"]:
        if "error" in r:
            lines.append(f"\n**{r['corpus']} corpus, {r['papers']:,} papers: failed** — "
                         f"{r['error'].splitlines()[0]}")
    if not runs:
        return "\n".join(lines) + "\n"
    largest = max(r["papers"] for r in runs)
    lines.append(f"\n#### Issue 28's targets at {largest:,} papers\n")
    lines.extend(targets.markdown_table([r for r in runs if r["papers"] == largest]))
    cols = [(r["corpus"], r["papers"]) for r in runs]
    lines.append("\n#### Import\n")
    lines.append("| | " + " | ".join(f"{c} {n:,}" for c, n in cols) + " | target |")
    lines.append("|---|" + "---:|" * len(cols) + "---|")

    def row(label, get, target=""):
        cells = []
        for r in runs:
            try:
                cells.append(get(r))
            except (KeyError, TypeError):
                cells.append("n/a")
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {target} |")

    row("distinct words", lambda r: f"{r['distinct_words']:,}" if r.get("distinct_words")
        else "few thousand" if r["corpus"] == "seeds" else "n/a")
    row("imported file, MB (arXiv JSON Lines, `import --category cs`)",
        lambda r: _f(r["file_mb"], 0))
    row("import to browsable (stored), wall s", lambda r: _f(r["import"]["stored_s"]),
        "< 60 s")
    row("import to fully searchable, wall s", lambda r: _f(r["import"]["searchable_s"]),
        "< 300 s")
    row("then index segments merged, wall s after searchable (api mode)",
        lambda r: _f(r["import"]["merged_s"] - r["import"]["searchable_s"])
        if r["import"].get("merged_s") is not None else "n/a")
    row("import CPU s, to browsable / all (process tree)",
        lambda r: f"{_f(r['import']['cpu_stored_s'])} / {_f(r['import']['cpu_s'])}")
    row("import CPU per paper, ms", lambda r: _f(1000 * r["import"]["cpu_s"] / r["papers"], 2))
    row("peak memory, all processes, MB", lambda r: _f(r["import"]["peak_mb"], 0), "< 1,536 MB")
    row("index on disk / library.db, MB",
        lambda r: f"{_f(r['import']['index_mb'], 0)} / {_f(r['import']['db_mb'], 0)}")
    row("SQLite FTS5 build, wall / CPU s", lambda r: f"{_f(r['fts5']['wall_s'])} / "
        f"{_f(r['fts5']['cpu_s'])}", "(reference)")
    row("SQLite FTS5 size, MB", lambda r: _f(r["fts5"]["mb"], 0), "(reference)")
    row("tantivy build, wall / CPU s; size MB", lambda r: f"{_f(r['tantivy']['wall_s'])} / "
        f"{_f(r['tantivy']['cpu_s'])}; {_f(r['tantivy']['mb'], 0)}", "(reference)")
    row("import CPU / FTS5 CPU", lambda r: f"{r['import']['cpu_s'] / r['fts5']['cpu_s']:.0f}×")
    row("tag a third of the papers ×4: commit / searchable, s",
        lambda r: f"{_f(r['tags']['commit_s'], 2)} / {_f(r['tags']['searchable_s'])}")
    row("then tag 10,000 papers: commit / searchable, s",
        lambda r: f"{_f(r['tag10k']['commit_s'], 2)} / {_f(r['tag10k']['searchable_s'], 2)}",
        "< 10 s")
    row(f"then a daily file of {DAILY}: stored / searchable, s",
        lambda r: f"{_f(r['daily']['stored_s'], 2)} / {_f(r['daily']['searchable_s'], 2)}",
        "< 3 s")
    row("`paperdesk check` / `paperdesk backup`, wall s",
        lambda r: f"{_f(r['maintenance']['check_s'])} / {_f(r['maintenance']['backup_s'])}",
        "< 120 s each")
    row("near-duplicate stage, s (api: `lib.duplicates.find()` after the merges; cli: "
        "`import` exit − searchable, merges included)",
        lambda r: _f(targets.duplicates_s(r["import"])), "< 120 s")
    row("load average (1 min) before → after the import",
        lambda r: f"{r['load_before']['loadavg'][0]:.2f} → "
                  f"{r['load_after_import']['loadavg'][0]:.2f}")

    for r in runs:
        if not r.get("search"):
            continue
        lines.append(f"\n#### Search, {r['corpus']} corpus, {r['papers']:,} papers "
                     f"(median and p99 of {report['repeat']} runs, ms; load "
                     f"{r['load_after_import']['loadavg'][0]:.2f} → "
                     f"{r.get('load_after_search', r['load_after_import'])['loadavg'][0]:.2f})\n")
        lines.append("| query | paperdesk median | p99 | CPU median | CPU p99 | rest ranked, "
                     "CPU | FTS5 median | tantivy median | p99 | hits | target (median / p99) "
                     "| |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
                     "| --- | --- |")
        for q in r["search"]:
            hits = f"{q['total']:,}" + (f" → “{q['suggestion']}”" if q.get("suggestion")
                                        else "")
            lines.append(f"| {search_bench.query_label(q)} | {q['median_ms']:.1f} | "
                         f"{q['p99_ms']:.1f} | {_f(q.get('cpu_median_ms'))} | "
                         f"{_f(q.get('cpu_p99_ms'))} | {_f(q.get('rest_cpu_ms'))} | "
                         f"{_f(q['fts_median_ms'])} | "
                         f"{_f(q.get('tv_median_ms'))} | {_f(q.get('tv_p99_ms'))} | {hits} | "
                         f"{search_bench.target_text(q['query'])} | "
                         f"{'met' if q['meets_target'] else 'missed'} |")

    disc = [r for r in runs if r.get("discover")]
    if disc:
        lines.append("\n#### Discover (related papers, key terms, tag suggestions, "
                     "worth reading first)\n")
        lines.append("| | " + " | ".join(f"{r['corpus']} {r['papers']:,}" for r in disc)
                     + " | target |")
        lines.append("|---|" + "---:|" * len(disc) + "---|")

        def drow(label, get, target=""):
            cells = []
            for r in disc:
                try:
                    cells.append(get(r["discover"]))
                except (KeyError, TypeError, ValueError):
                    cells.append("n/a")
            lines.append(f"| {label} | " + " | ".join(cells) + f" | {target} |")

        drow("term table build: wall / CPU s", lambda d: f"{_f(d['build']['wall_s'])} / "
             f"{_f(d['build']['cpu_s'])}", "once, in the background")
        drow("term table build: peak memory (all processes) / on disk, MB",
             lambda d: f"{_f(d['build']['peak_mb'], 0)} / {_f(d['build']['table_mb'], 0)}")
        drow("first related papers after opening, s", lambda d: _f(d["first_related_s"], 2))
        drow("related papers (top 10), median / p95 ms",
             lambda d: f"{_f(d['related']['median_ms'])} / {_f(d['related']['p95_ms'])}",
             "< 200 ms")
        drow("FTS5 more-like-this (25 terms OR, bm25), median / p95 ms",
             lambda d: f"{_f(d['fts_related']['median_ms'])} / "
                       f"{_f(d['fts_related']['p95_ms'])}", "(reference)")
        drow("key terms, median ms", lambda d: _f(d["key_terms"]["median_ms"], 2))
        drow("tag suggestions, median ms", lambda d: _f(d["suggest_tags"]["median_ms"]))
        drow("interest order of 1,000 unread: first / later median / after a star, ms",
             lambda d: f"{_f(d['interest']['first_ms'], 0)} / "
                       f"{_f(d['interest']['median_ms'])} / "
                       f"{_f(d['interest']['relearn_ms'], 0)}", "< 200 ms")
        drow("memory of a process using all of it, MB", lambda d: _f(d["rss_mb"], 0),
             "window < 500 MB")

    wins = [r for r in runs if r.get("window") and "error" not in r["window"]]
    if wins:
        lines.append("\n#### The window\n")
        lines.append("| | " + " | ".join(f"{r['corpus']} {r['papers']:,}" for r in wins)
                     + " | target |")
        lines.append("|---|" + "---:|" * len(wins) + "---|")

        def wrow(label, get, target=""):
            cells = []
            for r in wins:
                try:
                    cells.append(get(r["window"]["window"]))
                except (KeyError, TypeError, ValueError):
                    cells.append("n/a")
            lines.append(f"| {label} | " + " | ".join(cells) + f" | {target} |")

        wrow("open: first rows / idle, s", lambda w: f"{_f(w['open']['first_rows_s'], 2)} / "
             f"{_f(w['open']['idle_s'], 2)}")
        wrow("select (`j`) → detail pane, median / max ms",
             lambda w: f"{_f(w['select']['median_ms'], 0)} / {_f(w['select']['max_ms'], 0)}")
        wrow("tag toggle (`1`) → row, median / max ms",
             lambda w: f"{_f(w['tag_toggle']['shown']['median_ms'], 0)} / "
                       f"{_f(w['tag_toggle']['shown']['max_ms'], 0)}", "< 50 ms")
        wrow("tag toggle → tag pane count, median / max ms",
             lambda w: f"{_f(w['tag_toggle']['count_shown']['median_ms'], 0)} / "
                       f"{_f(w['tag_toggle']['count_shown']['max_ms'], 0)}", "< 50 ms")
        wrow("tag pane: choose a tag → list, max ms",
             lambda w: _f(max(p["ms"] for p in w["tag_pane"] if p["scope"] == "tag"), 0))
        wrow("typing: last key → first rows, median ms",
             lambda w: _f(statistics.median(q["last_key_to_shown_ms"] for q in w["queries"]
                                            if q["last_key_to_shown_ms"] is not None), 0))
        wrow("typing: heartbeat max gap, ms", lambda w: _f(w["heartbeat_max_gap_ms"], 0),
             "< 100 ms")
        wrow("memory after searching / peak, MB",
             lambda w: f"{_f(w['memory']['after_search_mb'], 0)} / "
                       f"{_f(w['memory']['peak_mb'], 0)}", "< 300 MB")
        wrow("`j` → related papers shown (150 ms wait included), median / max ms",
             lambda w: f"{_f(w['discover']['related']['median_ms'], 0)} / "
                       f"{_f(w['discover']['related']['max_ms'], 0)}")
        wrow("Ctrl+Shift+I → list in the interest order, ms",
             lambda w: _f(w["discover"]["interest_ms"], 0))
        wrow("memory with related papers and the interest order in use, MB",
             lambda w: _f(w["memory"]["after_discover_mb"], 0), "< 500 MB")
        wrow("of it private (anonymous), after searching / with discover in use, MB; the "
             "rest is index and database files mapped from disk, which the kernel can drop",
             lambda w: f"{_f(w['memory'].get('after_search_anon_mb'), 0)} / "
                       f"{_f(w['memory'].get('after_discover_anon_mb'), 0)}", "")
    for r in runs:
        if r.get("window") and "error" in r["window"]:
            lines.append(f"\nwindow, {r['corpus']} {r['papers']:,}: failed — "
                         f"{r['window']['error']}")

    earlier = report.get("growth_from")
    if earlier:   # a one-size run: growth from an earlier report's smaller size
        runs = runs + [r for r in earlier["runs"] if "error" not in r]
    sizes = sorted({r["papers"] for r in runs})
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        lines.append(f"\n#### Growth from {lo:,} to {hi:,} papers ({hi / lo:.0f}× the "
                     "papers: the figure at each size, and the last over the first)\n")
        if earlier:
            lines.append(f"The {lo:,}-paper figures are those of `{earlier['file']}` "
                         f"(measured {earlier['at']}).\n")
        grown = [c for c in report["corpora"] if c != "arxiv"] + \
            [c for c in report["corpora"] if c == "arxiv"]
        lines.append("| | " + " | ".join(grown) + " |")
        lines.append("|---|" + "---:|" * len(grown))
        by = {(r["corpus"], r["papers"]): r for r in runs}

        def grow(label, get):
            cells = []
            for c in grown:
                values = []
                for n in sizes:
                    try:
                        values.append(float(get(by[(c, n)])))
                    except (KeyError, TypeError, ValueError, AttributeError, StopIteration):
                        pass
                if len(values) < 2:
                    cells.append("n/a")
                    continue
                digits = 0 if max(values) >= 100 else 1 if max(values) >= 10 else 2
                ratio = f" ({values[-1] / values[0]:.1f}×)" if values[0] else ""
                cells.append(" → ".join(f"{v:,.{digits}f}" for v in values) + ratio)
            if any(cell != "n/a" for cell in cells):
                lines.append(f"| {label} | " + " | ".join(cells) + " |")

        grow("import CPU s", lambda r: r["import"]["cpu_s"])
        grow("index size MB", lambda r: r["import"]["index_mb"])
        grow("FTS5 build CPU s", lambda r: r["fts5"]["cpu_s"])
        grow("tantivy build CPU s", lambda r: r["tantivy"]["cpu_s"])
        for target in targets.TARGETS:
            grow(target.label, target.get)
        names = [q["query"] for r in runs if r.get("search") for q in r["search"]]
        for name in dict.fromkeys(names):
            grow(f"search median ms: {name}",
                 lambda r, name=name: next(q["median_ms"] for q in r["search"]
                                           if q["query"] == name))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    """Command-line entry point; returns 0, or 1 when a run failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000",
                        help="library sizes, separated by spaces or commas (default 100000)")
    parser.add_argument("--corpora", default=",".join(CORPORA),
                        help="any of seeds, zipf, arxiv (default: all three; arxiv is "
                             "an import stage only)")
    parser.add_argument("--mode", choices=("api", "cli"), default="api",
                        help="import through lib.imports.run in a child (api, default) "
                             "or the paperdesk import command (cli)")
    parser.add_argument("--repeat", type=int, default=21,
                        help="timed runs per query (default 21)")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".bench" / "run",
                        help="files, libraries and reports (default .bench/run)")
    parser.add_argument("--no-ui", action="store_true", help="skip the window benchmark")
    parser.add_argument("--ui-import", type=int, default=0, metavar="N",
                        help="also time edits during an import of N abstracts in the "
                             "window (ui_bench.py part 1; default: skip)")
    parser.add_argument("--keep", action="store_true",
                        help="reuse libraries already built at these sizes (no import "
                             "figures)")
    parser.add_argument("--json", action="store_true", help="print the JSON, not Markdown")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="REPORT",
                        help="measure nothing: merge these report-*.json files into one "
                             "report (and its tables) in the workdir")
    args = parser.parse_args(argv)
    args.workdir = args.workdir.absolute()
    if args.merge:
        try:
            merged = merge_reports([json.loads(p.read_text(encoding="utf-8"))
                                    for p in args.merge])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"--merge: cannot read the reports: {exc}")
        tag = "-".join(str(n) for n in merged["sizes"])
        text = markdown(merged)
        args.workdir.mkdir(parents=True, exist_ok=True)
        (args.workdir / f"report-{tag}-merged.json").write_text(
            json.dumps(merged, indent=1), encoding="utf-8")
        (args.workdir / f"report-{tag}-merged.md").write_text(text, encoding="utf-8")
        print(json.dumps(merged, indent=1) if args.json else text)
        return 0
    try:
        sizes = [int(s) for s in args.sizes.replace(",", " ").split()]
    except ValueError:
        parser.error(f"--sizes: not a list of numbers: {args.sizes!r}")
    corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    bad = [c for c in corpora if c not in CORPORA]
    if bad or not corpora or not sizes or min(sizes) < 10:
        parser.error("--corpora takes seeds, zipf and/or arxiv; --sizes numbers of 10 or "
                     "more")
    tag = "-".join(str(n) for n in sorted(sizes))
    json_path = args.workdir / f"report-{tag}.json"
    md_path = args.workdir / f"report-{tag}.md"

    def save(report: dict) -> str:
        """Write the report (the latest, and a copy in history/ that later runs keep)."""
        text = markdown(report)
        stamp = report["load_start"]["at"].replace(":", "").replace("-", "")
        for path in (json_path, md_path):
            data = json.dumps(report, indent=1) if path.suffix == ".json" else text
            path.write_text(data, encoding="utf-8")
            (args.workdir / "history").mkdir(exist_ok=True)
            (args.workdir / "history" / f"{path.stem}-{stamp}{path.suffix}").write_text(
                data, encoding="utf-8")
        return text

    report = run(sizes, corpora, args, save)
    text = save(report)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(text)
    _log(f"report: {json_path} and {md_path}")
    return 1 if any("error" in r for r in report["runs"]) else 0


if __name__ == "__main__":
    sys.exit(main())
