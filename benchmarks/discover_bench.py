"""Discover figures for ``make bench``: the term table's build, related papers, key terms,
tag suggestions and the interest order at the library's size, next to SQLite FTS5.

:func:`time_discover` runs inside ``bench.py``'s run for each corpus, on the library it
built (tagged with four tags on a third of the papers each) and its FTS5 table:

1. **Build**: ``terms/`` removed, then ``Library.discover.ensure()`` (a child process
   from 3,000 papers): wall seconds, CPU seconds and peak summed memory of this
   process and its children, table size on disk.
2. **Open**: a new ``Library`` and the first ``related`` call (loads ``terms/``
   memory-mapped and checks every paper's text stamp against SQLite).
3. **Related papers** of :data:`SAMPLE` papers (evenly spaced ids) after the first use:
   median and p95 ms; next to it **FTS5 "more like this"**: the same paper's 25
   heaviest terms as one OR query ranked by ``bm25()``, top 10 (what a user of FTS5
   would write for related papers), median and p95 ms.
4. **Key terms** and **tag suggestions** of the same papers, median ms.
5. **Interest order of 1,000 unread papers**: 20 papers starred and 200 read first;
   the first call (learns the model) and the median of later calls (model kept), then
   the call after one more star (learns again).
6. **Memory**: this process's resident size after all of it (the library, its index
   searcher and the discover table and model, as in the window).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.procstat import TreeSampler, dir_size_mb, rss_mb  # noqa: E402

SAMPLE = 30
UNREAD = 1000


def _ms(values: list[float]) -> dict:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    return {"median_ms": statistics.median(values) * 1000, "p95_ms": p95 * 1000,
            "runs": len(values)}


def _fts_related(fts, table, row: int) -> list[int]:
    cols, _weights = table.row(row)
    words = [table.term(int(c)) for c in cols[:25]]
    query = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    return [r[0] for r in fts.execute(
        "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 11", [query])]


def time_discover(lib_path, fts, log) -> dict:
    """All the steps above on the library at ``lib_path`` (closed by the caller before)
    and the FTS5 connection ``fts``; returns the figures as a dict."""
    from paperdesk.core.library import Library

    out: dict = {}
    shutil.rmtree(lib_path / "terms", ignore_errors=True)
    lib = Library.open(lib_path)
    try:
        start, cpu0 = time.perf_counter(), os.times()
        with TreeSampler(os.getpid()) as sampler:
            lib.discover.ensure()
        cpu1 = os.times()
        out["build"] = {"wall_s": time.perf_counter() - start,
                        "cpu_s": (cpu1.user + cpu1.system + cpu1.children_user
                                  + cpu1.children_system)
                        - (cpu0.user + cpu0.system + cpu0.children_user
                           + cpu0.children_system),
                        "peak_mb": sampler.peak_mb,
                        "table_mb": dir_size_mb(lib_path / "terms")}
        log(f"  term table built in {out['build']['wall_s']:.1f} s "
            f"(CPU {out['build']['cpu_s']:.1f} s, peak {out['build']['peak_mb']:.0f} MB, "
            f"{out['build']['table_mb']:.0f} MB on disk)")
    finally:
        lib.close()

    lib = Library.open(lib_path)
    try:
        ids = [r[0] for r in lib.db.execute("SELECT id FROM papers ORDER BY id")]
        step = max(1, len(ids) // SAMPLE)
        sample = ids[::step][:SAMPLE]
        start = time.perf_counter()
        lib.discover.related(sample[0])
        out["first_related_s"] = time.perf_counter() - start
        related, fts_times, terms, tags = [], [], [], []
        table = lib.discover._current()
        for pid in sample:
            t = time.perf_counter()
            lib.discover.related(pid)
            related.append(time.perf_counter() - t)
            row = int(table.rows_of([pid])[0])
            t = time.perf_counter()
            _fts_related(fts, table, row)
            fts_times.append(time.perf_counter() - t)
            t = time.perf_counter()
            lib.discover.key_terms(pid)
            terms.append(time.perf_counter() - t)
            t = time.perf_counter()
            lib.discover.suggest_tags(pid)
            tags.append(time.perf_counter() - t)
        out["related"] = _ms(related)
        out["fts_related"] = _ms(fts_times)
        out["key_terms"] = _ms(terms)
        out["suggest_tags"] = _ms(tags)
        log(f"  related {out['related']['median_ms']:.1f} ms (FTS5 more-like-this "
            f"{out['fts_related']['median_ms']:.1f} ms), key terms "
            f"{out['key_terms']['median_ms']:.2f} ms, tag suggestions "
            f"{out['suggest_tags']['median_ms']:.1f} ms")

        stars = ids[7::max(1, len(ids) // 20)][:20]
        read = ids[3::max(1, len(ids) // 200)][:200]
        lib.papers.set_starred(stars, True)
        lib.papers.set_read(read, True)
        unread = [r[0] for r in lib.db.execute(
            "SELECT id FROM papers WHERE read_at IS NULL ORDER BY id LIMIT ?", [UNREAD])]
        t = time.perf_counter()
        order = lib.discover.interest(unread, with_reasons=20)
        first = time.perf_counter() - t
        again = []
        for _ in range(9):
            t = time.perf_counter()
            lib.discover.interest(unread, with_reasons=20)
            again.append(time.perf_counter() - t)
        more = [i for i in ids[11::max(1, len(ids) // 20)] if i not in stars][:1]
        lib.papers.set_starred(more, True)
        t = time.perf_counter()
        lib.discover.interest(unread, with_reasons=20)
        relearn = time.perf_counter() - t
        out["interest"] = {"papers": len(unread), "ranked": order.ranked,
                           "first_ms": first * 1000, "relearn_ms": relearn * 1000,
                           **_ms(again)}
        log(f"  interest order of {len(unread):,} unread: first {first * 1000:.0f} ms, "
            f"then {out['interest']['median_ms']:.1f} ms, after a star "
            f"{relearn * 1000:.0f} ms")
        out["rss_mb"] = rss_mb(os.getpid())
        lib.papers.set_starred(stars + more, False)
        lib.papers.set_read(read, False)
    finally:
        lib.close()
    return out


def main(argv=None) -> int:
    """``python benchmarks/discover_bench.py LIBRARY``: the figures for an existing
    library (an FTS5 table is built beside it in a temporary file)."""
    import argparse
    import json
    import sys
    import tempfile
    from pathlib import Path

    from benchmarks import search_bench
    from paperdesk.core.library import Library

    parser = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    parser.add_argument("library", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        with Library.open(args.library) as lib:
            fts, _info = search_bench.fts_build(lib, Path(tmp) / "fts.db")
        try:
            figures = time_discover(args.library, fts,
                                    lambda m: print(m, file=sys.stderr, flush=True))
        finally:
            fts.close()
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
