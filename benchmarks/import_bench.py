"""Import benchmark: files into a new library, in a child process measured from outside.

Usage (alone; ``benchmarks/bench.py`` calls :func:`measure_import`)::

    python benchmarks/import_bench.py LIBRARY FILE... [--mode api|cli] [--json]

The child imports the files into a new library at ``LIBRARY`` (it must not exist) and
this process watches it:

- ``--mode api`` (default): the child (``python -m benchmarks.import_bench --child``)
  calls ``lib.imports.run(files, sync=False)``, prints ``{"event": "stored"}`` when it
  returns (every paper is in SQLite: the list is browsable), then
  ``lib.index.sync()`` and prints ``{"event": "searchable", "indexed": ..,
  "papers": ..}`` (the index's document count against the papers) once ``sync``
  returns, i.e. after the segment merges that follow a bulk import (``merged_s``); the
  papers were searchable before those, when the poller below saw the queue empty
  (``searchable_s`` is the earlier of the two); then ``lib.duplicates.find()``, the
  near-duplicate stage, as ``paperdesk import`` runs it after indexing, and prints
  ``{"event": "duplicates", "pairs": ..}`` (``duplicates_s``: its wall seconds).
- ``--mode cli``: the child is ``python -m paperdesk --library LIBRARY import FILE...``,
  as a user runs it. Its standard output is timestamped line by line (the first line that
  says "stored" marks the stored moment, once the CLI prints one); whatever it prints,
  a read-only SQLite connection polls the library every 0.2 s: *stored* is the first poll
  that sees all the papers, *searchable* the first that sees them all and an empty
  ``index_queue``. The CLI then also runs the near-duplicate stage before it exits
  (``exit_s``).

Measured: seconds to stored and to searchable (wall, from the child's start), CPU
seconds (user + system) of the child and all its descendants at exit (``getrusage``
``RUSAGE_CHILDREN`` of this process, before and after, which counts the descendants that
were waited for, and the sum of the last ``/proc`` samples of each process, which also
counts any that were not; ``cpu_s`` is the larger) and as sampled at the stored moment, the peak of the *sum* of the resident sizes of the child's process
tree (sampled every 50 ms, :class:`benchmarks.procstat.TreeSampler`), and the sizes of
the index folder and of ``library.db`` on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # for benchmarks.* when run as a script

from benchmarks.procstat import TreeSampler, children_cpu_s, dir_size_mb  # noqa: E402

__all__ = ["measure_import", "ImportBenchError"]

POLL_S = 0.2
_STORED_LINE = re.compile(r"\bstored\b", re.IGNORECASE)


class ImportBenchError(RuntimeError):
    """The child failed (the message ends with the tail of its standard error)."""


# -- the child (api mode) ------------------------------------------------------------------
def _child(lib_path: str, files: list[str], stored_only: bool = False) -> int:
    import resource

    from paperdesk.core.library import Library

    def emit(event: str, **data) -> None:
        ru_self = resource.getrusage(resource.RUSAGE_SELF)
        ru_children = resource.getrusage(resource.RUSAGE_CHILDREN)
        data.update(event=event, t=time.monotonic(),
                    cpu_self_s=ru_self.ru_utime + ru_self.ru_stime,
                    cpu_children_s=ru_children.ru_utime + ru_children.ru_stime)
        print(json.dumps(data), flush=True)

    emit("start")
    lib = Library.open(lib_path, sync_index=False)
    report = lib.imports.run(files, sync=False)
    emit("stored", added=report.added, papers=lib.papers.count(),
         rejected=[r["reason"] for r in report.rejected][:3])
    if stored_only:
        lib.close()
        emit("closed")
        return 0
    last = [time.monotonic()]

    def progress(stage, done, total):
        if time.monotonic() - last[0] > 10:
            last[0] = time.monotonic()
            emit("progress", stage=stage, done=done, total=total)

    lib.index.sync(progress=progress)
    emit("searchable", indexed=lib.index.whoosh.doc_count(), papers=lib.papers.count())
    # The near-duplicate stage, as `paperdesk import` and the window's import run it:
    # the library is left as a user's import leaves it (else the window that opens it
    # runs the whole stage), and the stage is measured on its own.
    pairs = lib.duplicates.find()
    emit("duplicates", pairs=pairs)
    lib.close()
    emit("closed")
    return 0


# -- the parent ----------------------------------------------------------------------------
class _Poller:
    """Polls ``library.db`` read-only for the paper count and the index queue length."""

    def __init__(self, db: Path, expected: int, t0: float):
        self.db, self.expected, self.t0 = db, expected, t0
        self.stored_s = self.searchable_s = None
        self.last = (None, None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="import-poller", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        con = None
        while not self._stop.wait(POLL_S):
            try:
                if con is None:
                    if not self.db.exists():
                        continue
                    con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=0,
                                          check_same_thread=False)
                papers = con.execute("SELECT count(*) FROM papers").fetchone()[0]
                queued = con.execute("SELECT count(*) FROM index_queue").fetchone()[0]
            except sqlite3.Error:      # not created yet, or busy: next poll
                continue
            now = time.monotonic() - self.t0
            self.last = (papers, queued)
            if papers >= self.expected and self.stored_s is None:
                self.stored_s = now
            if papers >= self.expected and queued == 0 and self.searchable_s is None:
                self.searchable_s = now
        if con is not None:
            con.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _reader(stream, t0: float, lines: list, keep: int = 0) -> threading.Thread:
    def run() -> None:
        for line in iter(stream.readline, ""):
            lines.append((time.monotonic() - t0, line.rstrip("\n")))
            if keep and len(lines) > keep:
                del lines[: len(lines) - keep]
        stream.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def measure_import(lib_path: Path, files: list[Path], expected: int, mode: str = "api",
                   log=lambda msg: None, timeout_s: float = 4 * 3600,
                   import_args: tuple[str, ...] = (), until: str = "searchable") -> dict:
    """Import ``files`` into a new library at ``lib_path`` in a child process; measure it.

    Args:
        lib_path: the library folder to create (must not exist yet).
        files: the files to import.
        expected: papers the library will hold afterwards (for the stored/searchable
            polls; the generators write distinct abstracts, so the number written).
        mode: ``"api"`` or ``"cli"`` (see the module docstring).
        log: called with progress lines (str).
        timeout_s: the child is killed after this many seconds.
        import_args: options given to ``paperdesk import`` before the files
            (``("--category", "cs")``; mode ``cli`` only).
        until: ``"searchable"`` (default) or ``"stored"``: mode ``api`` only, the child
            closes the library once every paper is stored, without indexing them (for
            measuring storing alone); ``indexed`` and the searchable figures are then
            ``None``, and ``cpu_self_stored_s`` / ``cpu_children_stored_s`` are the
            child's own CPU s and its reading child's (waited for) at the stored moment.
    Returns:
        ``{"mode", "papers", "indexed", "startup_s" (until the api child has imported
        paperdesk and starts; ``None`` for cli), "stored_s", "searchable_s", "exit_s",
        "merged_s", "duplicates_s" and "duplicate_pairs" (api mode),
        "cpu_s", "cpu_rusage_s", "cpu_sampled_s", "cpu_stored_s", "peak_mb",
        "peak_stored_mb", "processes", "index_mb", "db_mb", "stdout_tail",
        "cpu_self_stored_s", "cpu_children_stored_s"}``; seconds are wall seconds after the child
        started, MB are 2**20 bytes; a figure that could not be measured is ``None``.
    Raises:
        ImportBenchError: the child exited with an error, or timed out, or the library
            ended with another number of papers or index documents than ``expected``.
    """
    if import_args and mode != "cli":
        raise ValueError("import_args are options of paperdesk import: mode cli only")
    if until not in ("searchable", "stored") or (until == "stored" and mode != "api"):
        raise ValueError(f"until={until!r}: 'searchable', or 'stored' in mode api")
    stored_only = until == "stored"
    if lib_path.exists():
        raise ImportBenchError(f"{lib_path} exists; the import needs a new library")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if mode == "api":
        cmd = [sys.executable, "-m", "benchmarks.import_bench",
               "--child-stored" if stored_only else "--child", str(lib_path),
               *map(str, files)]
    elif mode == "cli":
        cmd = [sys.executable, "-m", "paperdesk", "--library", str(lib_path), "import",
               *import_args, *map(str, files)]
    else:
        raise ValueError(f"unknown mode {mode!r}; use api or cli")
    cpu_before = children_cpu_s()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)
    sampler = TreeSampler(proc.pid).start()
    poller = _Poller(lib_path / "library.db", expected, t0)
    out: list = []
    err: list = []
    readers = [_reader(proc.stdout, t0, out), _reader(proc.stderr, t0, err, keep=40)]
    stored_at = {"s": None, "cpu": None, "peak": None}
    seen_events: dict = {}
    shown = 0
    deadline = t0 + timeout_s
    last_log = t0
    while proc.poll() is None:
        time.sleep(0.05)
        for t, line in out[shown:]:
            shown += 1
            event = _event(line)
            if event is not None:
                seen_events[event["event"]] = (t, event)
            if stored_at["s"] is None and (
                    (event or {}).get("event") == "stored"
                    or (event is None and _STORED_LINE.search(line))):
                stored_at.update(s=t, cpu=sampler.cpu_now(), peak=sampler.peak_mb)
                log(f"    stored after {t:.1f} s")
            if event and event["event"] == "progress":
                log(f"    indexing {event['done']:,} of {event['total']:,} "
                    f"({t:.0f} s)")
        if stored_at["s"] is None and poller.stored_s is not None:
            stored_at.update(s=poller.stored_s, cpu=sampler.cpu_now(), peak=sampler.peak_mb)
            log(f"    stored after {poller.stored_s:.1f} s (seen in SQLite)")
        now = time.monotonic()
        if mode == "cli" and now - last_log > 15 and poller.last[0] is not None:
            last_log = now
            log(f"    {poller.last[0]:,} papers stored, {poller.last[1]:,} queued "
                f"for the index ({now - t0:.0f} s)")
        if now > deadline:
            proc.kill()
            break
    exit_s = time.monotonic() - t0
    proc.wait()
    for r in readers:
        r.join(5)
    sampler.sample()
    sampler.stop()
    poller.stop()
    cpu_total = children_cpu_s() - cpu_before
    for t, line in out[shown:]:
        event = _event(line)
        if event is not None:
            seen_events[event["event"]] = (t, event)
    if proc.returncode != 0:
        tail = "\n".join(line for _t, line in err[-15:])
        raise ImportBenchError(f"the import child exited with {proc.returncode} after "
                               f"{exit_s:.0f} s:\n{tail}")
    searchable = seen_events.get("searchable")
    # Searchable is when the queue is empty (every paper in a committed segment), which
    # the poller sees; the child's event comes once `sync` returns, after the segment
    # merges that follow a bulk import, when the papers had long been searchable.
    merged_s = searchable[0] if searchable else None
    searchable_s = min(t for t in (merged_s, poller.searchable_s) if t is not None) \
        if (merged_s, poller.searchable_s) != (None, None) else None
    stored_event = seen_events.get("stored", (None, {}))[1]
    # The stored line is timed when the reader thread reads it, the poller when it sees
    # the rows; either can come first, and stored is the earlier of the two (a tiny
    # import's searchable poll once came 0.4 ms before its stored line was read).
    stored_at["s"] = earliest_seen(stored_at["s"], poller.stored_s)
    if stored_only:
        papers = stored_event.get("papers")
        if papers != expected:
            raise ImportBenchError(f"after the import: {papers} papers (expected {expected})")
        return {
            "mode": mode, "papers": papers, "indexed": None,
            "startup_s": seen_events["start"][0] if "start" in seen_events else None,
            "stored_s": stored_at["s"], "searchable_s": None, "exit_s": exit_s,
            "merged_s": None,
            "cpu_s": max(cpu_total, sampler.cpu_now()), "cpu_rusage_s": cpu_total,
            "cpu_sampled_s": sampler.cpu_now(), "cpu_stored_s": stored_at["cpu"],
            "cpu_self_stored_s": stored_event.get("cpu_self_s"),
            "cpu_children_stored_s": stored_event.get("cpu_children_s"),
            "peak_mb": sampler.peak_mb, "peak_stored_mb": stored_at["peak"],
            "processes": sampler.max_processes, "index_mb": None,
            "db_mb": sum(p.stat().st_size for p in lib_path.glob("library.db*")) / 2**20,
            "stdout_tail": [line for _t, line in out if _event(line) is None][-5:],
        }
    papers, indexed = _final_counts(lib_path)
    if searchable and searchable[1].get("indexed") != searchable[1].get("papers"):
        raise ImportBenchError(f"the index holds {searchable[1].get('indexed')} documents "
                               f"for {searchable[1].get('papers')} papers")
    if papers != expected or indexed != papers:
        raise ImportBenchError(f"after the import: {papers} papers (expected {expected}), "
                               f"{indexed} index documents")
    if searchable_s is None:       # the queue was never seen empty between two polls
        searchable_s = exit_s
    return {
        "mode": mode, "papers": papers, "indexed": indexed,
        "startup_s": seen_events["start"][0] if "start" in seen_events else None,
        "stored_s": stored_at["s"], "searchable_s": searchable_s, "exit_s": exit_s,
        "merged_s": merged_s,
        "duplicates_s": (seen_events["duplicates"][0] - merged_s
                         if "duplicates" in seen_events and merged_s is not None else None),
        "duplicate_pairs": (seen_events["duplicates"][1].get("pairs")
                            if "duplicates" in seen_events else None),
        # rusage counts only descendants that were waited for; the /proc samples also
        # see any that were not (up to their last sample): take the larger
        "cpu_s": max(cpu_total, sampler.cpu_now()), "cpu_rusage_s": cpu_total,
        "cpu_sampled_s": sampler.cpu_now(), "cpu_stored_s": stored_at["cpu"],
        "cpu_self_stored_s": stored_event.get("cpu_self_s"),
        "cpu_children_stored_s": stored_event.get("cpu_children_s"),
        "peak_mb": sampler.peak_mb, "peak_stored_mb": stored_at["peak"],
        "processes": sampler.max_processes,
        "index_mb": dir_size_mb(lib_path / "index"),
        "db_mb": sum(p.stat().st_size for p in lib_path.glob("library.db*")) / 2**20,
        "stdout_tail": [line for _t, line in out if _event(line) is None][-5:],
    }


def earliest_seen(*times: float | None) -> float | None:
    """The earliest of ``times`` (wall seconds) that is not ``None``; ``None`` if none is."""
    seen = [t for t in times if t is not None]
    return min(seen) if seen else None


def _event(line: str) -> dict | None:
    if not line.startswith("{"):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) and "event" in data else None


def _final_counts(lib_path: Path) -> tuple[int, int]:
    """Papers in SQLite and documents in the index, read-only."""
    from paperdesk.core.library import Library

    with Library.open(lib_path, read_only=True) as lib:
        return lib.papers.count(), lib.index.whoosh.doc_count()


def main(argv=None) -> int:
    """Command-line entry point (also the child's, with ``--child``)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("--child", "--child-stored"):
        return _child(argv[1], argv[2:], stored_only=argv[0] == "--child-stored")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("library", type=Path, help="the new library folder")
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--mode", choices=("api", "cli"), default="api")
    parser.add_argument("--expected", type=int, help="papers expected (default: count "
                                                     "the abstracts of Daily Papers files)")
    parser.add_argument("--until", choices=("searchable", "stored"), default="searchable",
                        help="stored: stop once every paper is stored (mode api)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    expected = args.expected
    if expected is None:
        from paperdesk.core.imports.daily_papers import read_file
        expected = sum(len(read_file(f).abstracts) for f in args.files)
    log = (lambda msg: print(msg, file=sys.stderr, flush=True))
    try:
        result = measure_import(args.library, args.files, expected, args.mode, log,
                                until=args.until)
    except ImportBenchError as exc:
        print(f"import_bench: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
