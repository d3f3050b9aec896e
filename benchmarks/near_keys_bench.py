"""Store one arXiv metadata file into a copy of a library that looks up near-duplicates
(the near-duplicate stage has run on it), in this process, and print the wall seconds of
storing, the CPU seconds of this (storing) process and of its children (the parse
child), and the machine's load before and after. Run it under ``/usr/bin/time -v`` for
the peak RSS::

    # FILE: benchmarks.arxiv_synth.write_arxiv_file(Path(FILE), n) (the figures: the
    # first 62,500 lines of n = 100,000)
    paperdesk --library BASE import seeds/*.txt   # stores, indexes, runs the stage
    nice -n 19 /usr/bin/time -v python benchmarks/near_keys_bench.py BASE COPY FILE

``COPY`` is deleted and made again from ``BASE`` first (opening a library writes to it).
Figures: docs/figures.md, "An arXiv import into a library that looks up near-duplicates".
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import time
from pathlib import Path


def main() -> None:
    base, lib_path, path = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(lib_path, ignore_errors=True)
    shutil.copytree(base, lib_path)
    import paperdesk
    from paperdesk.core.library import Library

    print("code:", paperdesk.__file__)
    load0 = os.getloadavg()
    with Library.open(lib_path, sync_index=False) as lib:
        t0, c0 = time.perf_counter(), time.process_time()
        report = lib.imports.run([path], sync=False)
        wall = time.perf_counter() - t0
        own = time.process_time() - c0
        n = lib.papers.count()
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"added {report.added} enriched {report.enriched} duplicates {report.duplicates} "
          f"papers {n}")
    print(f"wall {wall:.1f} s, storing-process CPU {own:.1f} s, children CPU "
          f"{ch.ru_utime + ch.ru_stime:.1f} s, load before {load0[0]:.2f}, after "
          f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":     # the parse child is a spawn child: it imports this file
    main()
