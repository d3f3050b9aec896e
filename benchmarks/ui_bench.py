"""Responsiveness benchmark: the real window, driven by keys, during an import and a search.

Usage::

    QT_QPA_PLATFORM=offscreen python benchmarks/ui_bench.py [--import-n 30000]
        [--search-n 20000] [--workdir DIR] [--json] [--query TEXT ...]
        [--import-deadline S] [--search-deadline S] [--skip-import] [--skip-search]

Two parts, each with a deadline (it prints what it measured by then):

1. **Edits during an import.** A window (``create_main_window``, preferences in a private
   INI file, ``import_seeds=False``) on a library holding the 225 seed papers starts
   ``window.start_import([file])`` of one file of ``--import-n`` synthetic abstracts
   (``benchmarks/synth.py``). While it runs, every ~300 ms a paper of the list is made
   current and ``s`` (star) or ``r`` (read), alternately, is sent to the list with
   ``QTest.keyClick``. For each key it records the time until the change is *shown* (the
   list model's :data:`~paperdesk.ui.panes.paper_model.StarredRole` / ``ReadRole`` of that
   paper flips; polled every millisecond, 15 s at most; ``unlisted_ms``: when the paper
   was first found out of the list meanwhile, by a list refresh) and until it is
   *committed* (a separate read-only sqlite3 connection sees ``starred`` / ``read_at``
   change). A
   heartbeat ``QTimer`` at 10 ms records the gaps between its ticks, and a watchdog thread
   notes where the UI thread was during the longest stalls. Also: failed edits
   (status-bar messages starting with "⚠", or exceptions), key latency split by whether
   the import's papers were all committed yet, the import's wall time (until the status
   bar says "Imported …") and the time until the first imported papers are listed.
2. **Typing a search** at ``--search-n`` papers (the library is built once through
   ``lib.imports.run`` in ``--workdir``, like ``search_bench.py``, and reused):
   queries are typed into the search box a character at a time, ~80 ms apart, with the
   heartbeat running; it records the longest gap, p99, and the time from the last key
   until the list is replaced by that query's results.

Targets (issue 9): key to shown under 50 ms, key to committed within about a second,
heartbeat gaps under 100 ms. Only the window's public behaviour is used (keys, the list
model, the status bar, ``start_import``, ``is_busy``), so the same harness measures the
window before and after edits and imports move to one writer worker.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for benchmarks.* when run as a script

# Preferences and desktop files of the benchmark's windows go to a private folder.
_PRIVATE = tempfile.mkdtemp(prefix="paperdesk-uibench-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_PRIVATE, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(_PRIVATE, "data")

from PySide6.QtCore import QCoreApplication, QEventLoop, QSettings, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QProgressBar, QWidget  # noqa: E402

from benchmarks.procstat import TreeSampler, anon_mb, rss_mb, tree_pids  # noqa: E402
from benchmarks.search_bench import build_library  # noqa: E402
from benchmarks.synth import write_synthetic_files  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.ui import create_main_window  # noqa: E402
from paperdesk.ui.app.controller import quiet_qt_noise  # noqa: E402
from paperdesk.core.scope import Scope  # noqa: E402
from paperdesk.ui.panes.paper_model import (  # noqa: E402
    PaperTableModel, ReadRole, StarredRole, TagsRole)
from paperdesk.ui.panes.tag_pane import CountRole  # noqa: E402
from paperdesk.ui.app.settings import Settings  # noqa: E402

QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                  os.path.join(_PRIVATE, "config"))


quiet_qt_noise()   # the offscreen platform's "does not support propagateSizeHints()"

SEEDS = sorted((ROOT / "seeds").glob("*.txt"))
QUERIES = ("depth estimation", "model", "transformer")
HEARTBEAT_MS = 10
KEY_INTERVAL_S = 0.3
CHAR_INTERVAL_S = 0.08
GIVE_UP_S = 15.0
TARGETS = {"key_to_shown_ms": 50.0, "key_to_committed_ms": 1000.0, "heartbeat_gap_ms": 100.0}


# -- measuring helpers ---------------------------------------------------------------------
class Heartbeat:
    """A ``QTimer`` ticking every 10 ms on the UI thread; the gaps between its ticks show
    how long the event loop was blocked.

    A watchdog thread looks at the UI thread's stack whenever no tick came for
    ``stall_ms``, so the report can say what the window was doing in its longest stalls
    (the innermost ``paperdesk`` frames), and each tick also notes the UI thread's CPU
    time (``time.thread_time``), so that a stall says how much of it the UI thread ran
    (``cpu_ms``; the rest it waited: for the interpreter lock, a lock, or a core)."""

    def __init__(self, interval_ms: int = HEARTBEAT_MS, stall_ms: float = 200.0):
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)
        self._ticks: list[float] = []
        self._cpu: list[float] = []      # the UI thread's CPU time at each tick
        self._stall_s = stall_ms / 1000
        self._ui_thread = threading.get_ident()
        self._stalls: dict[float, str] = {}   # tick the stall followed -> where it was
        self._stop = threading.Event()
        self._watchdog: threading.Thread | None = None

    def _tick(self) -> None:
        self._ticks.append(time.perf_counter())
        self._cpu.append(time.thread_time())

    def start(self) -> None:
        """Start (or restart) recording; earlier ticks are forgotten."""
        self._ticks = [time.perf_counter()]
        self._cpu = [time.thread_time()]
        self._stalls = {}
        self._stop.clear()
        self._watchdog = threading.Thread(target=self._watch, name="ui-bench-watchdog",
                                          daemon=True)
        self._watchdog.start()
        self._timer.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            last = self._ticks[-1]
            if time.perf_counter() - last < self._stall_s or last in self._stalls:
                continue
            frame = sys._current_frames().get(self._ui_thread)
            if frame is not None:
                self._stalls[last] = where(frame)

    def stop(self) -> dict:
        """Stop recording and return :func:`gap_stats` of the ticks (the final gap runs
        up to the moment of stopping), with ``"stalls"``: the five longest gaps over
        ``stall_ms`` and where the UI thread was during each."""
        self._timer.stop()
        self._stop.set()
        if self._watchdog is not None:
            self._watchdog.join()
        self._ticks.append(time.perf_counter())
        self._cpu.append(time.thread_time())   # (stop() runs on the UI thread)
        stats = gap_stats(self._ticks)
        after = {a: (b - a) * 1000 for a, b in zip(self._ticks, self._ticks[1:])}
        cpu_after = {a: (d - c) * 1000 for a, c, d in zip(self._ticks, self._cpu,
                                                           self._cpu[1:])}
        stalls = sorted(((after.get(t, 0.0), t, place) for t, place in self._stalls.items()),
                        reverse=True)[:5]
        stats["stalls"] = [{"gap_ms": round(gap, 1), "at_s": round(t - self._ticks[0], 3),
                            "cpu_ms": round(cpu_after.get(t, 0.0), 1), "where": place}
                           for gap, t, place in stalls]
        return stats


def where(frame, depth: int = 3) -> str:
    """Return the innermost ``depth`` frames of ``frame``'s stack that are paperdesk's
    own (``module:function:line``, innermost last), e.g. for a stalled UI thread."""
    stack = traceback.extract_stack(frame)
    frames = [f for f in stack if "/paperdesk/" in f.filename.replace("\\", "/")]
    if not frames:   # in Qt's own code (layout, painting) or waiting for the GIL
        return "Qt / GIL, from " + ":".join((Path(stack[-1].filename).stem, stack[-1].name))
    return " > ".join(f"{Path(f.filename).stem}:{f.name}:{f.lineno}" for f in frames[-depth:])


def gap_stats(ticks: list[float]) -> dict:
    """Return the tick count, the longest and 99th-percentile gaps (ms) of ``ticks``
    (``perf_counter`` seconds, in order) and when the longest began (s after the first)."""
    pairs = [((b - a) * 1000, a) for a, b in zip(ticks, ticks[1:])]
    gaps = sorted(gap for gap, _ in pairs)
    worst = max(pairs, default=None)
    return {"ticks": len(ticks), "max_gap_ms": gaps[-1] if gaps else None,
            "p99_gap_ms": percentile(gaps, 0.99),
            "max_gap_at_s": round(worst[1] - ticks[0], 3) if worst else None}


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Return the ``q`` quantile (0..1, nearest rank) of sorted values, ``None`` if empty."""
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))]


def summary_ms(values: list[float]) -> dict:
    """Return ``{"n", "median_ms", "p95_ms", "max_ms"}`` of millisecond values."""
    values = sorted(values)
    return {"n": len(values), "median_ms": statistics.median(values) if values else None,
            "p95_ms": percentile(values, 0.95), "max_ms": values[-1] if values else None}


def spin(seconds: float, until=None) -> float | None:
    """Run the event loop for up to ``seconds``, checking ``until()`` about every
    millisecond. Returns the ``perf_counter`` time when ``until()`` first held, or
    ``None`` when time ran out (or no condition was given)."""
    end = time.perf_counter() + seconds
    while True:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 1)
        now = time.perf_counter()
        if until is not None and until():
            return now
        if now >= end:
            return None
        time.sleep(0.001)


def load() -> dict:
    """Return the machine load: the 1-minute load average and the number of usable cores."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 0
    return {"loadavg_1m": round(os.getloadavg()[0], 2), "nproc": cores}


class FailureWatch:
    """Counts failed edits: status-bar messages starting with "⚠" and exceptions that
    reach ``sys.excepthook`` (Qt slots and event handlers report theirs there)."""

    def __init__(self, window):
        self.messages: list[tuple[float, str]] = []
        self.exceptions: list[tuple[float, str]] = []
        self.import_done: float | None = None   #: when "Imported …" was shown
        window.statusBar().messageChanged.connect(self._on_message)
        self._old_hook = sys.excepthook
        sys.excepthook = self._on_exception

    def _on_message(self, text: str) -> None:
        if self.import_done is None and text.startswith(("Imported", "Import cancelled")):
            self.import_done = time.perf_counter()
        if text.startswith("⚠"):
            self.messages.append((time.perf_counter(), text))

    def _on_exception(self, kind, value, tb) -> None:
        self.exceptions.append((time.perf_counter(), f"{kind.__name__}: {value}"))

    def since(self, t: float) -> list[str]:
        """Return the failures reported at or after ``t``."""
        return [m for when, m in self.messages + self.exceptions if when >= t]

    def close(self) -> None:
        """Put the previous ``sys.excepthook`` back."""
        sys.excepthook = self._old_hook


def open_window(library_path: Path, ini: Path):
    """Open, show and focus a 1280x800 window on ``library_path`` (no seed import),
    with preferences in the INI file ``ini``."""
    settings = Settings(QSettings(str(ini), QSettings.Format.IniFormat))
    settings.auto_mark_read = False
    window = create_main_window(library_path, import_seeds=False, settings=settings)
    window.resize(1280, 800)
    window.show()
    window.activateWindow()
    spin(0.3)
    # a window reading its list off the UI thread shows it a little later
    spin(60, until=lambda: getattr(window.model, "complete", True))
    window.focus_list()
    return window


def _child(window, name: str) -> QWidget:
    """The window's child widget with objectName ``name`` (e.g. ``"paperTable"``)."""
    widget = window.findChild(QWidget, name)
    if widget is None:
        raise RuntimeError(f"the window has no widget named {name!r}")
    return widget


def close_window(window) -> None:
    """Close the window and stop its threads (closes its library)."""
    window.close()
    window.shutdown()
    spin(0.05)


# -- part 1: edits during an import ------------------------------------------------------------
def _row_flag(window, pid: int, role) -> bool | None:
    model = window.model
    row = model.row_of(pid)
    if row < 0:
        return None
    return model.index(row, 0).data(role)


def _bar_text(window) -> str:
    """What the status bar's progress bar shows ("Importing 200 of 30000"), or ""."""
    bar = window.statusBar().findChild(QProgressBar)
    if bar is None or not bar.isVisible():
        return ""
    return bar.text() or bar.format()


def _committed_papers(ro: sqlite3.Connection) -> int | None:
    try:
        return ro.execute("SELECT count(*) FROM papers").fetchone()[0]
    except sqlite3.Error:
        return None


def _committed_flag(ro: sqlite3.Connection, pid: int, column: str) -> bool | None:
    try:
        row = ro.execute(f"SELECT {column} FROM papers WHERE id = ?", (pid,)).fetchone()
    except sqlite3.Error:   # busy (never waits: timeout 0); try again on the next poll
        return None
    if row is None:
        return None
    return bool(row[0]) if column == "starred" else row[0] is not None


def _index_queue(ro: sqlite3.Connection) -> int | None:
    try:
        return ro.execute("SELECT count(*) FROM index_queue").fetchone()[0]
    except sqlite3.Error:
        return None


class CommittedCounts:
    """The committed papers and the index queue's length, counted every ``interval_s``
    by a thread of the benchmark with its own read-only connection, so the window's UI
    thread (where the benchmark presses keys) never counts: ``SELECT count(*)`` of a
    million papers took 20-60 ms, which the heartbeat measured as the window's stall
    before every key (up to 2026-12-06, fourth session; figures.md).

    Attributes:
        papers, queue: the last counts (``None`` before the first, or when busy).
    """

    def __init__(self, db_path: Path, interval_s: float = 0.5):
        self.papers: int | None = None
        self.queue: int | None = None
        self._path, self._interval = db_path, interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ui-bench-counts",
                                        daemon=True)

    def start(self) -> "CommittedCounts":
        """Count once (the starting values), then every ``interval_s`` until :meth:`stop`."""
        self._count(self._connect())
        self._thread.start()
        return self

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self._path}?mode=ro", uri=True, timeout=0,
                               check_same_thread=False)

    def _count(self, ro: sqlite3.Connection) -> None:
        self.papers = _committed_papers(ro)
        self.queue = _index_queue(ro)

    def _loop(self) -> None:
        ro = self._connect()
        try:
            while not self._stop.wait(self._interval):
                self._count(ro)
        finally:
            ro.close()

    def stop(self) -> None:
        """End the thread (within one interval)."""
        self._stop.set()
        self._thread.join(5)


def timeline(ticks: list[float], edits: list[dict], marks: list[tuple], t0: float,
             step_s: float = 60.0) -> list[dict]:
    """Per ``step_s`` window since ``t0``: the UI thread's longest heartbeat gap (ms),
    the median key → shown (ms) of the keys pressed in it, and the last ``marks``
    sample in it (``(t, committed papers, index queue, tree MB)``)."""
    rows: dict[int, dict] = {}
    for a, b in zip(ticks, ticks[1:]):
        row = rows.setdefault(max(0, int((a - t0) // step_s)),
                              {"max_gap_ms": 0.0, "shown": []})
        row["max_gap_ms"] = max(row["max_gap_ms"], (b - a) * 1000)
    for e in edits:
        if e.get("shown_ms") is not None and e.get("t_s") is not None:
            rows.setdefault(int(e["t_s"] // step_s),
                            {"max_gap_ms": 0.0, "shown": []})["shown"].append(e["shown_ms"])
    for t, papers, queue, mb in marks:
        row = rows.setdefault(int((t - t0) // step_s), {"max_gap_ms": 0.0, "shown": []})
        row.update(papers=papers, index_queue=queue, tree_mb=mb)
    return [{"minute": k * step_s / 60, "max_gap_ms": round(v["max_gap_ms"], 1),
             "keys": len(v["shown"]),
             "shown_median_ms": statistics.median(v["shown"]) if v["shown"] else None,
             "papers": v.get("papers"), "index_queue": v.get("index_queue"),
             "tree_mb": v.get("tree_mb")} for k, v in sorted(rows.items())]


class EditTrace:
    """Where each key's edit spent its time between the writer thread and the list:
    for every edit of the window (``MainWindow.submit_edit``'s job), the
    ``perf_counter`` times when the writer thread began it, when it returned (its
    commit done: ``main_window._rows_after`` is called next), when its rows were read,
    and when the UI thread took the outcome (``MainWindow._edit_done``), keyed by the
    ids of the papers it changed. Installed by patching those module functions for the
    run (:meth:`install`, :meth:`remove`); the window's code is unchanged."""

    def __init__(self):
        self.by_paper: dict[int, dict] = {}
        self._started = threading.local()
        self._saved: list[tuple] = []

    def install(self) -> "EditTrace":
        """Patch the worker's job runner and the window's row read and delivery."""
        from paperdesk.ui.background import operations
        from paperdesk.ui.window import main_window
        trace = self
        run, rows_after = operations.LibraryWorker._run, main_window._rows_after
        edit_done = main_window.MainWindow._edit_done

        def _run(worker, job):
            trace._started.t = time.perf_counter()
            return run(worker, job)

        def _rows_after(lib, changes):
            t_edit = time.perf_counter()
            rows = rows_after(lib, changes)
            entry = {"run": getattr(trace._started, "t", None), "edit": t_edit,
                     "rows": time.perf_counter()}
            for pid in getattr(changes, "papers", ()) or ():
                trace.by_paper[pid] = entry
            return rows

        def _edit_done(window, step, quiet=False):
            t = time.perf_counter()
            for pid in getattr(step.changes, "papers", ()) or ():
                entry = trace.by_paper.get(pid)
                if entry is not None and "delivered" not in entry:
                    entry["delivered"] = t
            return edit_done(window, step, quiet)

        self._saved = [(operations.LibraryWorker, "_run", run),
                       (main_window, "_rows_after", rows_after),
                       (main_window.MainWindow, "_edit_done", edit_done)]
        operations.LibraryWorker._run = _run
        main_window._rows_after = _rows_after
        main_window.MainWindow._edit_done = _edit_done
        return self

    def remove(self) -> None:
        """Put the patched functions back."""
        for owner, name, original in self._saved:
            setattr(owner, name, original)
        self._saved = []

    def take(self, pid: int, t_press: float) -> dict | None:
        """The trace of the latest edit of paper ``pid`` begun after ``t_press``, as ms
        after the key: ``run`` (writer began it), ``edit`` (it returned, committed),
        ``rows`` (its rows read), ``delivered`` (the UI thread took it); or None."""
        entry = self.by_paper.pop(pid, None)
        if entry is None or (entry["run"] or entry["edit"]) < t_press:
            return None
        return {k: round((v - t_press) * 1000, 1) for k, v in entry.items()
                if v is not None}


def run_import_part(n: int, workdir: Path, log, deadline_s: float,
                    file_format: str = "daily", through_indexing: bool = False,
                    keep_library: Path | None = None,
                    import_into: Path | None = None) -> dict:
    """Part 1: star/read keys every ~300 ms while the window imports ``n`` abstracts.

    ``file_format``: ``"daily"`` (one Daily Papers file of ``n`` synthetic abstracts)
    or ``"arxiv"`` (an arXiv metadata snapshot, JSON Lines, of ``n`` computer-science
    records and the other archives' mixed among them, all imported:
    :func:`benchmarks.arxiv_synth.write_arxiv_file`).

    ``through_indexing``: keep pressing keys after the import's papers are stored
    until the index has caught up (at most 50 papers left in ``index_queue``), so the
    heartbeat and the keys cover the whole import, indexing included; the report then
    has ``searchable_s``, a per-minute ``timeline`` and the process tree's peak memory.
    ``keep_library``: the imported library is moved there at the end (a folder
    replaced) instead of being removed. ``import_into``: import into a copy of this
    library (keys pressed on its first papers) instead of one of the 225 seed papers.
    Each key's sample has ``trace`` (:class:`EditTrace`): where its edit's time went.

    Returns the report dict (see the module docstring); partial if ``deadline_s`` passed
    before the import ended (the import is then cancelled)."""
    report: dict = {"abstracts": n, "format": file_format, "load_before": load()}
    if file_format == "arxiv":
        from benchmarks.arxiv_synth import write_arxiv_file
        files_dir = workdir / f"ui-import-arxiv-{n}"
        files = [files_dir / "arxiv.jsonl"]
        done = files_dir / "records"
        if not done.exists():
            shutil.rmtree(files_dir, ignore_errors=True)
            info = write_arxiv_file(files[0], n)
            done.write_text(f"{info['records']}\n")
        n = int(done.read_text())       # every record is imported (no --category)
        report["records"] = n
    else:
        files_dir = workdir / f"ui-import-files-{n}"
        files = sorted(files_dir.glob("synthetic_*.txt"))
        if len(files) != 1:
            shutil.rmtree(files_dir, ignore_errors=True)
            files = write_synthetic_files(files_dir, SEEDS, n, per_file=max(n, 1),
                                          seed=1234)
    run_dir = Path(tempfile.mkdtemp(prefix="ui-import-", dir=workdir))
    lib_path = run_dir / "lib"
    if import_into is not None:
        log(f"  copying {import_into}…")
        shutil.copytree(import_into, lib_path)
        if (import_into / "library.db.closed").exists():   # closed cleanly: the copy too
            from paperdesk.core.store.clean_close import record_clean_close
            record_clean_close(lib_path)
        report["library"] = str(import_into)
    else:
        with Library.open(lib_path) as lib:   # the 225 seed papers to press keys on
            lib.imports.run(SEEDS)
    window = open_window(lib_path, run_dir / "settings.ini")
    trace = EditTrace().install()
    failures = FailureWatch(window)
    ro = sqlite3.connect(f"file:{lib_path / 'library.db'}?mode=ro", uri=True, timeout=0,
                         check_same_thread=False)
    base_rows = window.model.rowCount()
    base_ids = set(window.model.ids())
    edits: list[dict] = []
    pending: list[dict] = []   # edits shown (or not) but not yet seen committed
    heartbeat = Heartbeat(stall_ms=50.0)
    state = {"first_listed": None}

    def poll_commits() -> None:
        now = time.perf_counter()
        for edit in list(pending):
            if _committed_flag(ro, edit["paper"], edit["column"]) == edit["expected"]:
                edit["committed_ms"] = (now - edit["t"]) * 1000
                pending.remove(edit)
            elif now - edit["t"] > GIVE_UP_S:
                edit["committed_ms"] = None
                pending.remove(edit)

    def watch() -> None:
        model = window.model
        rows = model.rowCount()
        if state["first_listed"] is None and rows > base_rows \
                and any(model.paper_id(r) not in base_ids for r in (0, rows - 1)):
            state["first_listed"] = time.perf_counter()
        poll_commits()

    sampler = TreeSampler(os.getpid(), interval_s=1.0).start()
    counts = CommittedCounts(lib_path / "library.db").start()
    marks: list[tuple] = []
    heartbeat.start()
    t0 = time.perf_counter()
    if not window.start_import([str(f) for f in files]):
        raise RuntimeError("the window refused to start the import")
    deadline = t0 + deadline_s
    k = 0
    import_end = searchable = None
    next_mark = t0
    while time.perf_counter() < deadline:
        # The import has ended when the status bar says so ("Imported 30,000 new papers")
        # or, failing that, when the window is idle (edits keep index updates going).
        if import_end is None and (failures.import_done is not None
                                   or not window.is_busy()):
            import_end = failures.import_done or time.perf_counter()
            if not through_indexing:
                break
        if time.perf_counter() >= next_mark:
            queue = counts.queue
            marks.append((time.perf_counter(), counts.papers, queue,
                          round(sampler.sample(), 1)))
            if through_indexing and len(marks) % 12 == 0:     # a line a minute
                recent = [e["shown_ms"] for e in edits[-200:]
                          if e["shown_ms"] is not None and e["t_s"] > marks[-1][0] - t0 - 60]
                log(f"  {marks[-1][0] - t0:6.0f} s: {marks[-1][1]} papers stored, index "
                    f"queue {queue}, tree {marks[-1][3]:.0f} MB, keys shown median "
                    f"{statistics.median(recent) if recent else float('nan'):.0f} ms, "
                    f"load {os.getloadavg()[0]:.1f}")
            next_mark += 5.0
            if import_end is not None and queue is not None and queue <= 50:
                searchable = time.perf_counter()
                break
        row = k % max(base_rows, 1)
        window.select_row(row)
        pid = window.current_paper_id()
        key, role, column = (("s", StarredRole, "starred") if k % 2 == 0
                             else ("r", ReadRole, "read_at"))
        k += 1
        before = _row_flag(window, pid, role) if pid is not None else None
        if before is None:
            spin(KEY_INTERVAL_S, until=lambda: watch() or False)
            continue
        # Which part of the import the key falls in: before all its papers are
        # committed to SQLite ("writing"), or after (search indexing, finishing).
        papers = counts.papers      # counted off the UI thread, at most 0.5 s ago
        stage = "writing" if papers is None or papers < base_rows + n else "indexing"
        edit = {"key": key, "paper": pid, "column": column, "expected": not before,
                "stage": stage, "committed_papers": papers, "bar": _bar_text(window),
                "t_s": None, "shown_ms": None, "committed_ms": None, "failed": None}
        t_press = time.perf_counter()
        edit["t"] = t_press
        edit["t_s"] = round(t_press - t0, 3)
        QTest.keyClick(_child(window, "paperTable"), key)
        pending.append(edit)

        def shown_or_failed(edit=edit, pid=pid, role=role, t_press=t_press) -> bool:
            watch()
            flag = _row_flag(window, pid, role)
            if flag == edit["expected"]:
                return True
            if flag is None and edit.get("unlisted_ms") is None:
                # the paper left the list meanwhile (a list refresh of the import's
                # papers): when, so that a slow key can be told from a slow edit
                edit["unlisted_ms"] = round((time.perf_counter() - t_press) * 1000, 1)
            bad = failures.since(t_press)
            if bad:
                edit["failed"] = bad[0]
                return True
            return False

        when = spin(GIVE_UP_S, until=shown_or_failed)
        edit["trace"] = trace.take(pid, t_press)
        if when is not None and edit["failed"] is None:
            edit["shown_ms"] = (when - t_press) * 1000
        elif when is None:
            edit["failed"] = "timeout: not shown within 15 s"
        if edit["failed"]:
            pending.remove(edit)
        edits.append(edit)
        left = t_press + KEY_INTERVAL_S - time.perf_counter()
        if left > 0:
            spin(left, until=lambda: watch() or False)
    else:
        log(f"  import not finished after {deadline_s:.0f} s: cancelling")
        window.cancel_import()
    ticks = list(heartbeat._ticks)
    beat = heartbeat.stop()
    spin(GIVE_UP_S, until=lambda: (watch() or False) or not pending)
    if import_end is None:
        spin(60, until=lambda: not window.is_busy())
    idle = spin(60, until=lambda: not window.is_busy())
    watch()
    failures.close()
    sampler.stop()
    counts.stop()
    listed = window.model.rowCount()
    close_window(window)
    trace.remove()
    ro.close()
    if keep_library is not None:        # for measuring the window on it afterwards
        shutil.rmtree(keep_library, ignore_errors=True)
        shutil.move(str(lib_path), str(keep_library))
    shutil.rmtree(run_dir, ignore_errors=True)

    shown = [e["shown_ms"] for e in edits if e["shown_ms"] is not None]
    committed = [e["committed_ms"] for e in edits if e["committed_ms"] is not None]
    for e in edits:
        e.pop("t", None)
    report.update(
        finished=import_end is not None,
        import_wall_s=(import_end - t0) if import_end else None,
        idle_after_s=(idle - t0) if idle else None,
        first_listed_s=(state["first_listed"] - t0) if state["first_listed"] else None,
        rows_listed_after=listed,
        edits=len(edits),
        failed_edits=sum(1 for e in edits if e["failed"]),
        not_committed=sum(1 for e in edits if not e["failed"] and e["committed_ms"] is None),
        key_to_shown=summary_ms(shown),
        key_to_committed=summary_ms(committed),
        key_to_shown_by_stage={
            stage: summary_ms([e["shown_ms"] for e in edits
                               if e["stage"] == stage and e["shown_ms"] is not None])
            for stage in sorted({e["stage"] for e in edits})},
        heartbeat=beat,
        searchable_s=(searchable - t0) if searchable else None,
        tree_peak_mb=sampler.peak_mb,
        timeline=timeline(ticks, edits, marks, t0) if through_indexing else None,
        failures=sorted({e["failed"] for e in edits if e["failed"]})[:5],
        samples=edits,
        load_after=load(),
    )
    return report


# -- part 2: typing a search ---------------------------------------------------------------
def run_search_part(n: int, workdir: Path, log, deadline_s: float,
                    queries=QUERIES) -> dict:
    """Part 2: type each query a character at a time (~80 ms apart) into the window's
    search box at ``n`` papers, with the heartbeat running. Returns the report dict."""
    report: dict = {"papers": n, "load_before": load()}
    workdir.mkdir(parents=True, exist_ok=True)
    lib, build = build_library(workdir, n, log)
    lib.close()
    report["build"] = build
    run_dir = Path(tempfile.mkdtemp(prefix="ui-search-", dir=workdir))
    window = open_window(workdir / f"lib-{n}", run_dir / "settings.ini")
    spin(30, until=lambda: not window.is_busy())
    deadline = time.perf_counter() + deadline_s
    check_window_api(window)
    resets: list[float] = []
    _watch_list(window, resets)
    rows = _type_queries(window, queries, deadline, log, resets)
    all_ticks_max = [r["heartbeat"]["max_gap_ms"] for r in rows]
    all_ticks_p99 = [r["heartbeat"]["p99_gap_ms"] for r in rows]
    close_window(window)
    shutil.rmtree(run_dir, ignore_errors=True)
    report.update(queries=rows,
                  heartbeat_max_gap_ms=max(all_ticks_max) if all_ticks_max else None,
                  heartbeat_p99_gap_ms=max(all_ticks_p99) if all_ticks_p99 else None,
                  load_after=load())
    return report


# -- part 3: the window on a large library -----------------------------------------------
def _api(obj, name: str):
    """``getattr(obj, name)``, failing with a message naming what the benchmark needs
    (the window's API may change under it; say so instead of an AttributeError deep in)."""
    try:
        return getattr(obj, name)
    except AttributeError:
        raise SystemExit(f"ui_bench: the window has no {name!r} any more; update "
                         f"benchmarks/ui_bench.py to the window's current API") from None


#: What the benchmark uses of the window: attribute paths on it (checked up front by
#: :func:`check_window_api`, so a renamed one fails with its name, not mid-run).
WINDOW_API = ("model.rowCount", "model.paper_id", "model.index", "model.modelReset",
              "model.searching", "tag_pane.tag_item", "tag_pane.select_scope",
              "detail_pane.paper_id", "triage.set_tag_key", "select_row", "focus_list",
              "focus_search", "is_busy", "status_text", "current_scope", "shutdown")


def check_window_api(window, names=WINDOW_API) -> None:
    """Raise ``SystemExit`` naming every attribute of :data:`WINDOW_API` the window
    lacks (its API changed; the benchmark must follow)."""
    missing = []
    for name in names:
        obj = window
        for part in name.split("."):
            if not hasattr(obj, part):
                missing.append(name)
                break
            obj = getattr(obj, part)
    if missing:
        raise SystemExit("ui_bench: the window has changed; it lacks "
                         + ", ".join(missing) + " (update benchmarks/ui_bench.py)")


def _watch_list(window, into: list[float]) -> None:
    """Append the time of every change of the list's contents to ``into`` (a reset,
    a new layout, rows inserted: whichever the list model uses)."""
    model = window.model
    for name in ("modelReset", "layoutChanged", "rowsInserted"):
        signal = getattr(model, name, None)
        if signal is not None:
            signal.connect(lambda *args: into.append(time.perf_counter()))


def _tags_shown(window, row: int) -> set[str]:
    index = window.model.index(row, PaperTableModel.TITLE)
    return {name.casefold() for name, _colour in (index.data(TagsRole) or ())}


def _tag_count(window, tag_id: int) -> int | None:
    item = _api(window.tag_pane, "tag_item")(tag_id)
    return None if item is None else item.data(0, CountRole)


def run_window_part(lib_path: Path, workdir: Path, log, deadline_s: float,
                    queries=QUERIES, tag: str = "vision", presses: int = 8,
                    discover: bool = True) -> dict:
    """Part 3: the window on an existing (indexed, tagged) library at ``lib_path``.

    Measures, driving the window with keys where a user would:

    - **open**: ``create_main_window`` until it returns, until the list shows rows, and
      until the window is idle;
    - **select**: ``j`` pressed ``presses`` times in the list, each until the detail
      pane shows the new current paper;
    - **tag toggle**: number key ``1`` (bound to ``tag`` first) on the current paper,
      each until the list row shows the tag added or removed, and until the tag pane's
      count for it changed;
    - **tag pane**: choosing ``tag`` in the tag pane (``select_scope``) until the list is
      replaced by its papers, and back to all papers;
    - **typing**: each query typed into the search box (as :func:`run_search_part`);
    - **memory**: the sum of the resident sizes of the window's process tree (its index
      writer child included) after the searches, and its peak during the part; beside
      them the private anonymous part (``*_anon_mb``: without the index files and
      SQLite pages mapped from disk, which the kernel can drop).

    Returns:
        The report dict (keys ``open``, ``select``, ``tag_toggle``, ``tag_pane``,
        ``queries``, ``heartbeat_max_gap_ms``, ``memory``, ``load_before``,
        ``load_after``).
    Raises:
        SystemExit: the library has no tag ``tag``, or the window lacks what is used.
    """
    report: dict = {"library": str(lib_path), "load_before": load()}
    with Library.open(lib_path, read_only=True) as lib:
        papers = lib.papers.count()
        tags = {t.name: t for t in lib.tags.all()}
        if tag not in tags:
            raise SystemExit(f"ui_bench: {lib_path} has no tag {tag!r}")
        tag_id = tags[tag].id
        tagged = lib.papers.scope_count(Scope(tag_id=tag_id))
    report["papers"] = papers
    sampler = TreeSampler(os.getpid()).start()
    run_dir = Path(tempfile.mkdtemp(prefix="ui-window-", dir=workdir))
    settings = Settings(QSettings(str(run_dir / "settings.ini"), QSettings.Format.IniFormat))
    settings.auto_mark_read = False
    t0 = time.perf_counter()
    window = create_main_window(lib_path, import_seeds=False, settings=settings)
    t_made = time.perf_counter()
    check_window_api(window)
    opening = Heartbeat(stall_ms=50.0)   # the UI thread from the window's making to idle
    opening.start()
    window.resize(1280, 800)
    window.show()
    window.activateWindow()
    t_rows = spin(120, until=lambda: window.model.rowCount() > 0)
    # every id listed (a model reading its ids off the UI thread shows the first
    # screenful first; one without ``complete`` listed them all at once)
    t_all = spin(120, until=lambda: getattr(window.model, "complete", True)
                 and window.model.rowCount() >= papers)
    t_idle = spin(300, until=lambda: not window.is_busy())
    report["open"] = {"window_s": t_made - t0,
                      "first_rows_s": (t_rows - t0) if t_rows else None,
                      "all_rows_s": (t_all - t0) if t_all else None,
                      "idle_s": (t_idle - t0) if t_idle else None,
                      "rows": window.model.rowCount(),
                      "heartbeat": opening.stop()}
    log(f"  window open: made in {_fmt(report['open']['window_s'], 2)} s, rows after "
        f"{_fmt(report['open']['first_rows_s'], 2)} s, all {papers:,} after "
        f"{_fmt(report['open']['all_rows_s'], 2)} s, idle after "
        f"{_fmt(report['open']['idle_s'], 2)} s; UI thread's longest gap after making "
        f"{_fmt(report['open']['heartbeat']['max_gap_ms'])} ms")
    heartbeat = Heartbeat()
    heartbeat.start()
    table = _child(window, "paperTable")

    # select: j in the list, until the detail pane shows the paper
    window.focus_list()
    window.select_row(0)
    spin(5, until=lambda: window.detail_pane.paper_id == window.model.paper_id(0))
    select_ms = []
    for i in range(presses):
        want = window.model.paper_id(i + 1)
        t = time.perf_counter()
        QTest.keyClick(table, Qt.Key.Key_J)
        at = spin(GIVE_UP_S, until=lambda: window.detail_pane.paper_id == want)
        select_ms.append((at - t) * 1000 if at else None)
        spin(0.1)
    report["select"] = summary_ms([v for v in select_ms if v is not None])
    report["select"]["timeouts"] = sum(v is None for v in select_ms)

    # tag toggle: key 1 bound to the tag
    _api(window.triage, "set_tag_key")(tag_id, 1)
    spin(30, until=lambda: not window.is_busy())
    shown_ms, counted_ms = [], []
    for i in range(presses):   # each row twice: on, then off (the library is unchanged)
        row = (i // 2) % max(1, min(20, window.model.rowCount()))
        window.select_row(row)
        spin(0.05)
        before = tag.casefold() in _tags_shown(window, row)
        count_before = _tag_count(window, tag_id)
        t = time.perf_counter()
        QTest.keyClick(table, Qt.Key.Key_1)
        at = spin(GIVE_UP_S, until=lambda: (tag.casefold() in _tags_shown(window, row))
                  != before)
        shown_ms.append((at - t) * 1000 if at else None)
        at = spin(GIVE_UP_S, until=lambda: _tag_count(window, tag_id) != count_before)
        counted_ms.append((at - t) * 1000 if at else None)
        spin(0.2)
    spin(30, until=lambda: not window.is_busy())
    report["tag_toggle"] = {
        "shown": summary_ms([v for v in shown_ms if v is not None]),
        "count_shown": summary_ms([v for v in counted_ms if v is not None]),
        "timeouts": sum(v is None for v in shown_ms + counted_ms)}

    # tag pane: choose the tag, then all papers again
    resets: list[float] = []
    _watch_list(window, resets)
    pane_ms = []
    for scope, rows in ((Scope(tag_id=tag_id), tagged), (Scope(), papers)) * 2:
        t = time.perf_counter()
        _api(window.tag_pane, "select_scope")(scope)
        at = spin(GIVE_UP_S, until=lambda: any(r > t for r in resets)
                  and window.current_scope() == scope)
        # (a model reading its ids off the UI thread shows the first screenful first)
        done = spin(GIVE_UP_S, until=lambda: getattr(window.model, "complete", True))
        pane_ms.append({"scope": "tag" if scope.tag_id else "all",
                        "ms": (at - t) * 1000 if at else None,
                        "all_rows_ms": (done - t) * 1000 if at and done else None,
                        "rows": window.model.rowCount(), "expected_rows": rows})
        spin(10, until=lambda: not window.is_busy())
    report["tag_pane"] = pane_ms
    beat = heartbeat.stop()
    report["heartbeat_while_clicking"] = beat

    # typing
    deadline = time.perf_counter() + deadline_s
    rows = _type_queries(window, queries, deadline, log, resets)
    report["queries"] = rows
    gaps = [r["heartbeat"]["max_gap_ms"] for r in rows if r["heartbeat"]["max_gap_ms"]]
    report["heartbeat_max_gap_ms"] = max(gaps) if gaps else None
    sampler.sample()
    after_search = sum(rss_mb(p) for p in tree_pids(os.getpid()))
    after_search_anon = sum(anon_mb(p) for p in tree_pids(os.getpid()))
    if discover:    # (without: no term table is built by a library that has none)
        report["discover"] = _discover_part(window, table, presses, log)
    sampler.sample()
    report["memory"] = {"after_search_mb": after_search,
                        "after_search_anon_mb": after_search_anon,
                        "after_discover_mb": sum(rss_mb(p) for p in tree_pids(os.getpid())),
                        "after_discover_anon_mb": sum(anon_mb(p)
                                                      for p in tree_pids(os.getpid())),
                        "peak_mb": sampler.peak_mb, "processes": sampler.max_processes}
    sampler.stop()
    close_window(window)
    shutil.rmtree(run_dir, ignore_errors=True)
    report["load_after"] = load()
    return report


def _discover_part(window, table, presses: int, log) -> dict:
    """Related papers and the interest order in the window: the search box emptied,
    ``j`` pressed ``presses`` times, each until the reading pane's ``relatedList``
    shows the new paper's related papers (after the pane's 150 ms of quiet); then
    Ctrl+Shift+I (View ▸ Worth Reading First) until the status bar says how the list was
    ordered. The term table is the one ``make bench`` built before (a window on a
    library without one builds it first, in the background)."""
    from PySide6.QtWidgets import QListWidget

    search = _child(window, "searchBox")
    search.clear()
    spin(30, until=lambda: not window.model.searching and not window.is_busy())
    related = window.findChild(QListWidget, "relatedList")
    window.focus_list()
    window.select_row(0)
    spin(120, until=lambda: related.count() > 0)
    shown = []
    for i in range(presses):
        want = window.model.paper_id(i + 1)
        before = list(getattr(related, "paper_ids")())
        t = time.perf_counter()
        QTest.keyClick(table, Qt.Key.Key_J)
        at = spin(GIVE_UP_S, until=lambda: window.detail_pane.paper_id == want
                  and related.count() > 0 and related.paper_ids() != before)
        shown.append((at - t) * 1000 if at else None)
        spin(0.1)
    out = {"related": summary_ms([v for v in shown if v is not None]),
           "related_timeouts": sum(v is None for v in shown)}
    bar = window.statusBar()
    t = time.perf_counter()
    QTest.keyClick(table, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    at = spin(GIVE_UP_S, until=lambda: "learned from" in bar.currentMessage()
              or "needs at least" in bar.currentMessage())
    out["interest_ms"] = (at - t) * 1000 if at else None
    out["interest_message"] = bar.currentMessage()
    QTest.keyClick(table, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    spin(30, until=lambda: not window.is_busy())
    log(f"  related papers shown {_fmt(out['related'].get('median_ms'))} ms after `j` "
        f"(median, with the pane's 150 ms wait), interest order "
        f"{_fmt(out['interest_ms'])} ms after Ctrl+Shift+I")
    return out


def _type_queries(window, queries, deadline: float, log, resets: list[float]) -> list[dict]:
    """Type each query a character at a time (~80 ms apart) into the search box, with
    the heartbeat running; one row per query (see :func:`run_search_part`)."""
    heartbeat = Heartbeat(stall_ms=50.0)
    rows = []
    for query in queries:
        if time.perf_counter() > deadline:
            log("  typing: deadline reached")
            break
        search_box = _child(window, "searchBox")
        search_box.clear()
        spin(10, until=lambda: not window.is_busy())
        window.focus_search()
        spin(0.05)
        heartbeat.start()
        t_last = time.perf_counter()
        for i, ch in enumerate(query):
            if i:
                spin(CHAR_INTERVAL_S)
            t_last = time.perf_counter()   # when the (last) key was pressed
            QTest.keyClicks(search_box, ch)
        shown_at = spin(GIVE_UP_S, until=lambda: window.model.searching
                        and any(t > t_last for t in resets))
        idle_at = spin(GIVE_UP_S, until=lambda: not window.is_busy())
        beat = heartbeat.stop()
        row = {"query": query, "heartbeat": beat,
               "last_key_to_shown_ms": (shown_at - t_last) * 1000 if shown_at else None,
               "last_key_to_idle_ms": (idle_at - t_last) * 1000 if idle_at else None,
               "status": window.status_text()}
        rows.append(row)
        log(f"  typed {query!r}: max gap {_fmt(beat['max_gap_ms'])} ms, shown after "
            f"{_fmt(row['last_key_to_shown_ms'])} ms")
    search_box = _child(window, "searchBox")
    search_box.clear()
    spin(10, until=lambda: not window.is_busy())
    return rows


# -- output ------------------------------------------------------------------------------------
def _fmt(value, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _met(value, target) -> str:
    if value is None:
        return "n/a"
    return "met" if value < target else "missed"


def print_window_table(win: dict) -> None:
    """Print part 3 (:func:`run_window_part`) as a Markdown table."""
    print(f"\n### The window at {win['papers']:,} papers (load "
          f"{win['load_before']['loadavg_1m']} → {win['load_after']['loadavg_1m']})\n")
    print("| measure | value | target |")
    print("| --- | ---: | --- |")
    o = win["open"]
    print(f"| open: window / first rows / all rows / idle (s) | {_fmt(o['window_s'], 2)} / "
          f"{_fmt(o['first_rows_s'], 2)} / {_fmt(o.get('all_rows_s'), 2)} / "
          f"{_fmt(o['idle_s'], 2)} | first rows < 2 s: {_met(o['first_rows_s'], 2)} |")
    beat = o.get("heartbeat") or {}
    print(f"| open: UI thread's longest gap from the window made to idle (ms) | "
          f"{_fmt(beat.get('max_gap_ms'))} | < 50: {_met(beat.get('max_gap_ms'), 50)} |")
    sel = win["select"]
    print(f"| select (`j`) → detail pane, median / max (ms) | {_fmt(sel['median_ms'])} / "
          f"{_fmt(sel['max_ms'])} | |")
    tt = win["tag_toggle"]
    print(f"| tag toggle (`1`) → row shows it, median / max (ms) | "
          f"{_fmt(tt['shown']['median_ms'])} / {_fmt(tt['shown']['max_ms'])} | < 50: "
          f"{_met(tt['shown']['max_ms'], 50)} |")
    print(f"| tag toggle → tag pane count, median / max (ms) | "
          f"{_fmt(tt['count_shown']['median_ms'])} / {_fmt(tt['count_shown']['max_ms'])} "
          f"| < 50: {_met(tt['count_shown']['max_ms'], 50)} |")
    pane = [p["ms"] for p in win["tag_pane"] if p["scope"] == "tag" and p["ms"] is not None]
    back = [p["ms"] for p in win["tag_pane"] if p["scope"] == "all" and p["ms"] is not None]
    print(f"| tag pane: choose a tag / all papers again (ms) | "
          f"{_fmt(max(pane) if pane else None)} / {_fmt(max(back) if back else None)} | |")
    for row in win["queries"]:
        hb = row["heartbeat"]
        print(f"| typing `{row['query']}`: last key → rows / heartbeat max gap (ms) | "
              f"{_fmt(row['last_key_to_shown_ms'])} / {_fmt(hb['max_gap_ms'])} | gap < 100: "
              f"{_met(hb['max_gap_ms'], TARGETS['heartbeat_gap_ms'])} |")
    m = win["memory"]
    print(f"| memory after searching / peak (MB, all processes) | "
          f"{_fmt(m['after_search_mb'])} / {_fmt(m['peak_mb'])} | < 300: "
          f"{_met(m['after_search_mb'], 300)} |")


def print_table(report: dict) -> None:
    """Print the report as Markdown tables (paste into docs/figures.md)."""
    print(f"\nMachine: {report['load']['nproc']} cores, load average (1 min) "
          f"{report['load']['loadavg_1m']} at start.")
    imp = report.get("import")
    if imp:
        ks, kc, hb = imp["key_to_shown"], imp["key_to_committed"], imp["heartbeat"]
        print(f"\n### Edits during an import of {imp['abstracts']:,} abstracts "
              f"(225 papers listed; load {imp['load_before']['loadavg_1m']} → "
              f"{imp['load_after']['loadavg_1m']})\n")
        print("| measure | value | target |")
        print("| --- | ---: | --- |")
        print(f"| key → shown, median / p95 / max (ms) | {_fmt(ks['median_ms'])} / "
              f"{_fmt(ks['p95_ms'])} / {_fmt(ks['max_ms'])} | p95 < 50: "
              f"{_met(ks['p95_ms'], TARGETS['key_to_shown_ms'])} |")
        print(f"| key → committed, median / max (ms) | {_fmt(kc['median_ms'])} / "
              f"{_fmt(kc['max_ms'])} | ≤ ~1000: "
              f"{_met(kc['max_ms'], TARGETS['key_to_committed_ms'] + 1)} |")
        print(f"| heartbeat gap, max / p99 (ms) | {_fmt(hb['max_gap_ms'])} / "
              f"{_fmt(hb['p99_gap_ms'])} (longest at {_fmt(hb['max_gap_at_s'], 1)} s) | < 100: "
              f"{_met(hb['max_gap_ms'], TARGETS['heartbeat_gap_ms'])} |")
        for stage, st in imp["key_to_shown_by_stage"].items():
            label = {"writing": "papers not all committed yet",
                     "indexing": "papers committed, indexing"}.get(stage, stage)
            print(f"| … {label}: median / p95 / max (ms), "
                  f"{st['n']} keys | {_fmt(st['median_ms'])} / {_fmt(st['p95_ms'])} / "
                  f"{_fmt(st['max_ms'])} | |")
        print(f"| edits sent / failed / not committed | {imp['edits']} / "
              f"{imp['failed_edits']} / {imp['not_committed']} | 0 failed |")
        print(f"| import wall time (s) | {_fmt(imp['import_wall_s'], 1)}"
              f"{'' if imp['finished'] else ' (deadline: cancelled)'} | |")
        print(f"| window idle after (s) | {_fmt(imp['idle_after_s'], 1)} | |")
        print(f"| first imported papers listed after (s) | "
              f"{_fmt(imp['first_listed_s'], 1)} | |")
        for stall in hb.get("stalls", []):
            print(f"\nstall {stall['gap_ms']:,.0f} ms at {stall['at_s']:.1f} s: {stall['where']}")
        for message in imp["failures"]:
            print(f"\nfailure: {message[:160]}")
    win = report.get("window")
    if win:
        print_window_table(win)
    search = report.get("search")
    if search:
        print(f"\n### Typing a search at {search['papers']:,} papers "
              f"(~{CHAR_INTERVAL_S * 1000:.0f} ms between keys; load "
              f"{search['load_before']['loadavg_1m']} → {search['load_after']['loadavg_1m']})\n")
        print("| query | heartbeat max gap (ms) | p99 (ms) | last key → shown (ms) | "
              "→ idle (ms) |")
        print("| --- | ---: | ---: | ---: | ---: |")
        for row in search["queries"]:
            hb = row["heartbeat"]
            print(f"| `{row['query']}` | {_fmt(hb['max_gap_ms'])} | {_fmt(hb['p99_gap_ms'])} | "
                  f"{_fmt(row['last_key_to_shown_ms'])} | {_fmt(row['last_key_to_idle_ms'])} |")


def main(argv=None) -> int:
    """Command-line entry point; returns the exit status (0)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--import-n", type=int, default=30_000,
                        help="abstracts in the imported file (default 30000)")
    parser.add_argument("--search-n", type=int, default=20_000,
                        help="papers in the search library (default 20000)")
    parser.add_argument("--workdir", type=Path, default=ROOT / ".bench",
                        help="where files and libraries are built and kept (default .bench/)")
    parser.add_argument("--import-format", choices=("daily", "arxiv"), default="daily",
                        help="part 1's file: Daily Papers (default) or an arXiv metadata "
                             "snapshot (JSON Lines) of --import-n computer-science records")
    parser.add_argument("--through-indexing", action="store_true",
                        help="part 1 goes on until the imported papers are searchable "
                             "(keys, heartbeat and a per-minute timeline throughout)")
    parser.add_argument("--import-deadline", type=float, default=900.0,
                        help="seconds before the import part stops (default 900)")
    parser.add_argument("--search-deadline", type=float, default=120.0,
                        help="seconds for typing the queries (default 120)")
    parser.add_argument("--query", action="append", dest="queries", metavar="TEXT",
                        help="a query to type (repeatable; default: "
                             + ", ".join(repr(q) for q in QUERIES) + ")")
    parser.add_argument("--library", type=Path, metavar="DIR",
                        help="part 3 instead of part 2: the window on this existing, "
                             "indexed library tagged by search_bench.tag_library (open, "
                             "select, tag toggle, tag pane, typing, memory)")
    parser.add_argument("--skip-import", action="store_true", help="skip part 1")
    parser.add_argument("--skip-discover", action="store_true",
                        help="part 3 without related papers and the interest order")
    parser.add_argument("--skip-search", action="store_true", help="skip part 2")
    parser.add_argument("--keep-library", type=Path, metavar="DIR",
                        help="move the library part 1 imported into to DIR (replaced) "
                             "instead of removing it")
    parser.add_argument("--import-into", type=Path, metavar="DIR",
                        help="part 1 imports into a copy of this library instead of "
                             "one of the 225 seed papers")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    log = (lambda msg: print(msg, file=sys.stderr, flush=True))
    args.workdir.mkdir(parents=True, exist_ok=True)
    report: dict = {"load": load()}
    try:
        if not args.skip_import:
            log(f"edits during an import of {args.import_n:,} abstracts…")
            report["import"] = run_import_part(args.import_n, args.workdir, log,
                                               args.import_deadline, args.import_format,
                                               args.through_indexing,
                                               args.keep_library, args.import_into)
        if args.library is not None and not args.skip_search:
            log(f"the window on {args.library}…")
            report["window"] = run_window_part(args.library, args.workdir, log,
                                               args.search_deadline,
                                               tuple(args.queries or QUERIES),
                                               discover=not args.skip_discover)
        elif not args.skip_search:
            log(f"typing searches at {args.search_n:,} papers…")
            report["search"] = run_search_part(args.search_n, args.workdir, log,
                                               args.search_deadline,
                                               tuple(args.queries or QUERIES))
    finally:
        shutil.rmtree(_PRIVATE, ignore_errors=True)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
