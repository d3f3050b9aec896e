"""Measuring a process tree from outside (Linux ``/proc``): resident memory of all its
processes summed, CPU seconds, and the machine's load. No dependency (``psutil`` would
do the same; ``/proc`` is enough for the benchmark, which runs on Linux).

Sources: proc(5) — ``/proc/<pid>/status`` (``VmRSS``, kB), ``/proc/<pid>/stat`` (fields
14-15 ``utime``/``stime`` in clock ticks, ``os.sysconf("SC_CLK_TCK")`` a second), and
``/proc/<pid>/task/<tid>/children`` (the direct children of each thread).
"""

from __future__ import annotations

import os
import resource
import threading
import time
from pathlib import Path

__all__ = ["tree_pids", "rss_mb", "cpu_s", "TreeSampler", "machine_load", "children_cpu_s",
           "dir_size_mb"]

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(x) for x in fh.read().split())
        except OSError:
            continue
    return out


def tree_pids(root: int) -> list[int]:
    """Return ``root`` and all its descendants that exist now (``[]`` if it is gone)."""
    if not os.path.exists(f"/proc/{root}"):
        return []
    seen, todo = [root], [root]
    while todo:
        for child in _children(todo.pop()):
            if child not in seen:
                seen.append(child)
                todo.append(child)
    return seen


def _status_mb(pid: int, field: str) -> float:
    """The ``field`` line (e.g. ``"VmRSS"``) of ``/proc/<pid>/status`` in MB; 0 if the
    process is gone or has no such line."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_mb(pid: int) -> float:
    """Resident memory of one process now, in MB (2**20 bytes); 0 if it is gone."""
    return _status_mb(pid, "VmRSS")


def anon_mb(pid: int) -> float:
    """Private anonymous memory of one process now (``RssAnon``: the heap, Python's
    objects, NumPy arrays), in MB; 0 if it is gone. The rest of its resident size is
    mostly files mapped from disk (the index's segments, SQLite's pages), which the
    kernel drops and reads again when memory is short."""
    return _status_mb(pid, "RssAnon")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds used so far by one process (not its children); 0 if gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2:].split()   # after "pid (comm) "
    return (int(fields[11]) + int(fields[12])) / _TICK


def children_cpu_s() -> float:
    """User + system CPU seconds of this process's waited-for children (and theirs)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


class TreeSampler:
    """Samples the process tree under ``root`` every ``interval_s`` on a thread.

    Records the peak of the *sum* of the resident sizes of the tree's processes, the
    most processes seen at once, and each process's latest CPU seconds (so
    :meth:`cpu_now` is the tree's CPU including processes that have already ended, as
    of their last sample). Use as a context manager or call :meth:`start`/:meth:`stop`.

    Args:
        root: the pid at the top of the tree.
        interval_s: seconds between samples (default 0.05).
    """

    def __init__(self, root: int, interval_s: float = 0.05):
        self.root = root
        self.interval_s = interval_s
        self.peak_mb = 0.0
        self.peak_at = None          # monotonic time of the peak
        self.max_processes = 0
        self.samples = 0
        self._cpu: dict[int, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)

    def start(self) -> "TreeSampler":
        """Start sampling; returns self."""
        self._thread.start()
        return self

    def sample(self) -> float:
        """Take one sample now; returns the tree's summed resident size, MB."""
        pids = tree_pids(self.root)
        total = 0.0
        with self._lock:
            for pid in pids:
                total += rss_mb(pid)
                used = cpu_s(pid)
                if used:
                    self._cpu[pid] = max(self._cpu.get(pid, 0.0), used)
            self.samples += 1
            self.max_processes = max(self.max_processes, len(pids))
            if total > self.peak_mb:
                self.peak_mb, self.peak_at = total, time.monotonic()
        return total

    def cpu_now(self) -> float:
        """CPU seconds of the tree as of the latest sample (ended processes included)."""
        with self._lock:
            return sum(self._cpu.values())

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval_s)

    def stop(self) -> None:
        """Stop sampling (waits for the thread)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def __enter__(self) -> "TreeSampler":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def machine_load() -> dict:
    """Return ``{"loadavg": [1, 5, 15 min], "cores": usable cores, "cpus": online
    CPUs, "at": UTC time}`` (what ``uptime`` and ``nproc`` print)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 0
    return {"loadavg": [round(x, 2) for x in os.getloadavg()], "cores": cores,
            "cpus": os.cpu_count() or 0,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def dir_size_mb(path: Path) -> float:
    """Total size of the files under ``path`` in MB (0 if missing)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total / 2**20
