"""Tag suggestions at a library's size (issue 28): ``suggest_tags`` of evenly spaced papers
after a first call, median and p95 of wall and thread CPU ms, the load beside them, and
the first suggestion after a tag change (the changed tag counted again); the
suggestions themselves are written out, so that two versions of the code can be
compared on the same library.

``python benchmarks/suggest_bench.py LIBRARY OUT.json [--sample 200] [--profile]
[--build]``: the library must have a term table (``--build`` makes one) and tags
(``search_bench.tag_library``); it is written to (a tag is added and undone 20 times),
so give it a copy. ``PYTHONPATH=<other checkout>/src`` measures other code.
"""
import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path


def load():
    """The 1, 5 and 15 minute load averages."""
    return os.getloadavg()


def pct(values, q):
    """The ``q`` quantile (0..1) of ``values``, one of them."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    """Run the measurement (arguments in the module docstring)."""
    p = argparse.ArgumentParser()
    p.add_argument("library", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--sample", type=int, default=200)
    p.add_argument("--profile", action="store_true")
    p.add_argument("--build", action="store_true")
    args = p.parse_args()
    import paperdesk
    from paperdesk.core.library import Library
    print("paperdesk from", paperdesk.__file__, file=sys.stderr)
    lib = Library.open(args.library)
    lib.auto_sync_index = False
    out = {"code": paperdesk.__file__, "load_start": load()}
    try:
        if args.build:
            t, c = time.perf_counter(), os.times()
            lib.discover.ensure()
            c1 = os.times()
            out["build_wall_s"] = time.perf_counter() - t
            out["build_cpu_s"] = (c1.user + c1.system + c1.children_user + c1.children_system
                                  - c.user - c.system - c.children_user - c.children_system)
            print("built", out["build_wall_s"], out["build_cpu_s"], file=sys.stderr)
        ids = [r[0] for r in lib.db.execute("SELECT id FROM papers ORDER BY id")]
        step = max(1, len(ids) // args.sample)
        sample = ids[::step][:args.sample]
        t = time.perf_counter()
        lib.discover.suggest_tags(sample[0])      # first use: load, stamps
        out["first_s"] = time.perf_counter() - t
        walls, cpus, found = [], [], {}
        prof = cProfile.Profile() if args.profile else None
        for pid in sample:
            if prof:
                prof.enable()
            w, c = time.perf_counter(), time.thread_time()
            got = lib.discover.suggest_tags(pid)
            cpus.append(time.thread_time() - c)
            walls.append(time.perf_counter() - w)
            if prof:
                prof.disable()
            found[pid] = [[s.tag_id, s.name, s.score, list(s.like), list(s.shared), s.reason,
                           s.examples, s.held_back] for s in got]
        # after a tag change: the next suggestion counts the changed tag again
        tag_id, tag = lib.db.execute("SELECT id, name FROM tags ORDER BY id LIMIT 1").fetchone()
        untagged = [r[0] for r in lib.db.execute(
            "SELECT id FROM papers WHERE id NOT IN (SELECT paper_id FROM paper_tags "
            "WHERE tag_id = ?) ORDER BY id LIMIT 20", [tag_id])]
        after_change = []
        for pid in untagged:
            lib.tags.add([pid], tag)
            w, c = time.perf_counter(), time.thread_time()
            lib.discover.suggest_tags(sample[0])
            after_change.append((time.perf_counter() - w, time.thread_time() - c))
            lib.undo()
        out["after_tag_change_median_ms"] = statistics.median(a for a, _ in after_change) * 1000
        out["after_tag_change_cpu_median_ms"] = statistics.median(b for _, b in after_change) * 1000
        out["load_end"] = load()
        out["papers"] = len(ids)
        out["runs"] = len(walls)
        out["wall_median_ms"] = statistics.median(walls) * 1000
        out["wall_p95_ms"] = pct(walls, 0.95) * 1000
        out["cpu_median_ms"] = statistics.median(cpus) * 1000
        out["cpu_p95_ms"] = pct(cpus, 0.95) * 1000
        out["suggestions"] = found
        if prof:
            st = pstats.Stats(prof, stream=sys.stderr)
            st.sort_stats("cumulative").print_stats(25)
    finally:
        lib.close()
    args.out.write_text(json.dumps(out, indent=1))
    print({k: v for k, v in out.items() if k != "suggestions"}, file=sys.stderr)


if __name__ == "__main__":
    main()
