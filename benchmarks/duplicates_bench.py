"""Near-duplicate stage benchmark: time, memory and storage of
``lib.duplicates.find`` on a large library.

Usage::

    python benchmarks/duplicates_bench.py [--n 100000] [--workdir DIR]

Stores N synthetic abstracts straight into a new library's ``papers`` table (no search
index: the stage does not use it): each is 6-10 sentences of the seed abstracts
recombined (``benchmarks/synth.py``), so that many pairs share a sentence or two, the
hard case for candidate finding. Every 1000th abstract is an edited copy of the one
before (one sentence replaced, one added), so N/1000 pairs must be flagged. Then it
times the stage over all of them, prints the process's peak memory and the size of the
near-duplicate tables, and times 1,000 more papers against the stored bands.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for benchmarks.synth when run as a script

from benchmarks.synth import seed_sentences  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.core.store import db as _db  # noqa: E402
from paperdesk.core.text import content_hash  # noqa: E402


def _store(lib: Library, texts) -> None:
    with _db.transaction(lib.db) as db:
        for text in texts:
            db.execute("INSERT OR IGNORE INTO papers (content_hash, title, derived_title, "
                       "abstract, added_at, starred, citation_key) VALUES (?, ?, ?, ?, ?, "
                       "0, ?)", [content_hash(text), text[:60], text[:60], text,
                                 "2026-01-01T00:00:00Z", content_hash(text)[:16]])


def _rss_mb() -> float:
    """This process's resident memory now, in MB (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return 0.0


def _abstracts(sentences: list[str], n: int, rng: random.Random):
    prev: list[str] = []
    for i in range(n):
        if i % 1000 == 999 and prev:
            chosen = prev[:]
            chosen[len(chosen) // 2] = rng.choice(sentences)
            chosen.insert(len(chosen) - 1, "In this version we add a further experiment.")
        else:
            chosen = rng.sample(sentences, rng.randint(6, 10))
        prev = chosen
        yield " ".join(chosen) + f" (paper {i})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="papers (default 100000)")
    parser.add_argument("--workdir", type=Path, help="folder for the library (default: "
                                                     "a temporary one)")
    args = parser.parse_args(argv)
    rng = random.Random(20261201)
    sentences = seed_sentences(sorted((ROOT / "seeds").glob("*.txt")))
    with tempfile.TemporaryDirectory() as scratch:
        path = (args.workdir or Path(scratch)) / "dup-bench"
        lib = Library.open(path, sync_index=False)
        _store(lib, _abstracts(sentences, args.n, rng))
        before = _rss_mb()
        start, cpu = time.perf_counter(), time.process_time()
        flagged = lib.duplicates.find()
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"stage over {lib.papers.count()} papers: {took:.1f} s ({cpu:.1f} CPU s, load "
              f"{os.getloadavg()[0]:.1f}), {flagged} pairs flagged (planted: {args.n // 1000})")
        print(f"memory: {before:.0f} MB before the stage, peak "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
        try:
            sizes = dict(lib.db.execute(
                "SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall())
            dup = sum(v for k, v in sizes.items() if "duplicate" in k)
            print(f"near-duplicate tables: {dup / 2**20:.0f} MB "
                  f"(papers: {sizes.get('papers', 0) / 2**20:.0f} MB)")
        except sqlite3.OperationalError:   # SQLite built without dbstat
            pass
        band_files = [f for f in (lib.path / "duplicates").glob("*") if f.is_file()]
        print(f"band store (duplicates/): {sum(f.stat().st_size for f in band_files) / 2**20:.0f}"
              f" MB in {len(band_files)} files")
        _store(lib, [" ".join(rng.sample(sentences, 8)) + f" (new {i})"
                     for i in range(1000)])
        start, cpu = time.perf_counter(), time.process_time()
        lib.duplicates.find()
        print(f"1000 new papers against the stored bands: "
              f"{time.perf_counter() - start:.1f} s ({time.process_time() - cpu:.1f} CPU s)")
        lib.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
