"""The window's one writer and its reader (``paperdesk.ui.background.operations.LibraryWorker``).

Real libraries in ``tmp_path``; the import batch size is set with ``monkeypatch`` so a
few thousand abstracts make many batches on any machine.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sqlite3  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from paperdesk.core.store import db as core_db  # noqa: E402
from paperdesk.core.imports import parse_process  # noqa: E402
from paperdesk.core.changes import Changes  # noqa: E402
from paperdesk.core.library import DB_NAME, Library  # noqa: E402
from paperdesk.core.models import LibraryError  # noqa: E402
from paperdesk.ui.background.operations import LibraryWorker  # noqa: E402
from ui_fixtures import TOTAL, open_seeded  # noqa: E402,F401

N = 3000
BATCH = 100
WAIT_MS = 20000


def _write(path: Path, n: int = N) -> Path:
    path.write_text("Daily Papers\n\n" + "\n\n".join(
        f"Paper {i} on sparse attention number {i}, with results on task {i % 13}."
        for i in range(n)) + "\n", encoding="utf-8")
    return path


def _other(lib: Library) -> sqlite3.Connection:
    return sqlite3.connect(str(lib.path / DB_NAME), timeout=1, check_same_thread=False)


@pytest.fixture
def lib(tmp_path, monkeypatch):
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", BATCH)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.BATCH_SECONDS", 60.0)
    with Library.open(tmp_path / "lib") as lib:
        yield lib


@pytest.fixture
def worker(qtbot, lib):
    worker = LibraryWorker(lib)
    yield worker
    worker.shutdown()


def test_writes_run_in_order_on_one_thread_that_is_not_the_ui_thread(qtbot, worker):
    ran, delivered = [], []
    for i in range(20):
        worker.write(lambda lib, i=i: ran.append((i, threading.get_ident())),
                     on_done=lambda _r, i=i: delivered.append((i, threading.get_ident())))
    assert worker.is_busy()
    assert worker.wait_idle(10)
    assert [i for i, _t in ran] == list(range(20))
    threads = {t for _i, t in ran}
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert delivered == [(i, threading.get_ident()) for i in range(20)]   # UI thread


def test_an_edit_queued_during_a_bulk_import_runs_before_the_import_ends(qtbot, worker,
                                                                         lib, tmp_path):
    path = _write(tmp_path / "big.txt")
    other = _other(lib)
    gate = threading.Event()
    order, seen_during = [], []

    def bulk(lib, job):
        def hook():
            if lib.papers.count():            # hold the import after its first batch ...
                gate.wait(10)
            job.between_batches()      # ... then let the queued edits in
        return lib.imports.run([path], cancel=job.cancelled, between_batches=hook)

    def edit(lib):
        first = lib.db.execute("SELECT min(id) FROM papers").fetchone()[0]
        lib.papers.set_starred([first], True)
        # committed: another connection sees the star while the import is still going
        seen_during.append(other.execute(
            "SELECT (SELECT starred FROM papers WHERE id = ?), count(*) FROM papers",
            [first]).fetchone())
        return Changes.of(papers=[first], fields=["starred"])

    changed = []
    worker.changed.connect(changed.append)
    worker.write(bulk, on_done=lambda report: order.append(("import", report.added)),
                 bulk=True)
    qtbot.waitUntil(lambda: other.execute("SELECT count(*) FROM papers").fetchone()[0] > 0,
                    timeout=WAIT_MS)
    worker.write(edit, on_done=lambda c: order.append(("edit", sorted(c.papers))))
    gate.set()
    assert worker.wait_idle(60)
    assert seen_during and seen_during[0][0] == 1
    assert seen_during[0][1] < N                    # the import had not finished
    assert [what for what, _x in order] == ["edit", "import"]
    assert order[1] == ("import", N)
    assert len(changed) == 1 and changed[0].fields == {"starred"}
    assert lib.search.find("is:starred").total == 1       # the index caught up too


def test_edits_go_ahead_of_bulk_work_not_yet_started(qtbot, worker):
    gate, order = threading.Event(), []
    worker.write(lambda lib: gate.wait(10))                      # keeps the writer busy
    worker.write(lambda lib, job: order.append("bulk"), bulk=True)
    worker.write(lambda lib: order.append("edit 1"))
    worker.write(lambda lib: order.append("edit 2"))
    gate.set()
    assert worker.wait_idle(10)
    assert order == ["edit 1", "edit 2", "bulk"]


@pytest.mark.parametrize("error, message", [
    (LibraryError("no paper with id 7\nmore detail"), "no paper with id 7"),
    (sqlite3.OperationalError("database is locked"), "database error: database is locked"),
    (ValueError(), "ValueError"),
])
def test_a_failing_write_reports_one_line_and_no_change(qtbot, worker, capsys, error,
                                                        message, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERDESK_LOG_DIR", str(tmp_path / "log"))
    def fail(lib):
        raise error

    failures, signalled, changed, done = [], [], [], []
    worker.changed.connect(changed.append)
    worker.failed.connect(signalled.append)
    worker.write(fail, on_done=done.append, on_failed=failures.append)
    worker.write(fail)                       # no on_failed: the failed signal says it
    assert worker.wait_idle(10)
    assert failures == [message] and signalled == [message]
    assert "\n" not in message and not changed and not done
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr                  # never on the terminal
    log = tmp_path / "log" / "errors.log"
    unexpected = not isinstance(error, LibraryError)
    # an unexpected error: one line per failure naming the log, which has the traceback
    assert log.exists() == unexpected
    if unexpected:
        assert stderr.count("details in " + str(log)) == 2
        assert stderr.count("\n") == 2 and "Traceback" in log.read_text()


def test_a_result_carrying_changes_emits_changed_after_on_done(qtbot, worker):
    class Report:
        changes = Changes.of(papers=[3], sources=True)

    events = []
    worker.changed.connect(lambda c: events.append(("changed", sorted(c.papers))))
    worker.write(lambda lib: Report(), on_done=lambda r: events.append(("done", None)))
    worker.write(lambda lib: Changes(), on_done=lambda r: events.append(("done", None)))
    assert worker.wait_idle(10)
    assert events == [("done", None), ("changed", [3]), ("done", None)]   # empty: none


def test_a_read_runs_while_a_long_write_transaction_is_open(qtbot, worker, lib, tmp_path):
    lib.imports.run([_write(tmp_path / "few.txt", 10)])
    in_transaction, release = threading.Event(), threading.Event()

    def long_write(lib):
        with core_db.transaction(lib.db) as db:
            db.execute("UPDATE papers SET starred = 1")
            in_transaction.set()
            release.wait(10)

    read_results = []
    worker.write(long_write)
    assert in_transaction.wait(10)
    worker.read(lambda lib: (lib.papers.count(), lib.papers.filter_counts()["starred"],
                             lib.search.hits("sparse", limit=3) != []),
                on_done=read_results.append)
    qtbot.waitUntil(lambda: bool(read_results), timeout=WAIT_MS)   # while the write still waits
    assert not release.is_set()
    assert read_results == [(10, 0, True)]                    # the last committed state
    release.set()
    assert worker.wait_idle(10)
    assert lib.papers.filter_counts()["starred"] == 10


def test_a_short_read_does_not_queue_behind_a_slow_one(qtbot, worker, lib, tmp_path):
    # issue 28: a key's row waited behind a count of a million papers on the one reader
    lib.imports.run([_write(tmp_path / "few.txt", 10)])
    counting, release = threading.Event(), threading.Event()
    threads = {}

    def slow_count(lib):
        threads["slow"] = threading.current_thread()
        counting.set()
        release.wait(10)
        return lib.papers.count()

    counted, rows = [], []
    worker.read(slow_count, on_done=counted.append, slow=True)
    assert counting.wait(10)

    def row(lib):
        threads["short"] = threading.current_thread()
        return [s.title for s in lib.papers.summaries([1]).values()]

    worker.read(row, on_done=rows.append)
    qtbot.waitUntil(lambda: bool(rows), timeout=WAIT_MS)       # while the count still waits
    assert not release.is_set() and counted == []
    assert rows[0] and "sparse attention" in rows[0][0]
    assert threads["slow"] is not threads["short"]
    assert threading.main_thread() not in threads.values()
    release.set()
    qtbot.waitUntil(lambda: counted == [10], timeout=WAIT_MS)
    assert worker.wait_idle(10)


def test_shutdown_mid_import_keeps_committed_papers_whole_and_runs_queued_edits(
        qtbot, lib, tmp_path):
    worker = LibraryWorker(lib)
    path = _write(tmp_path / "big.txt")
    other = _other(lib)
    gate = threading.Event()

    def bulk(lib, job):
        def hook():
            if lib.papers.count():            # after the first batch, not while reading
                gate.wait(10)
            job.between_batches()
        return lib.imports.run([path], cancel=job.cancelled, between_batches=hook,
                                sync=False)

    delivered = []
    job = worker.write(bulk, on_done=delivered.append, bulk=True)
    qtbot.waitUntil(lambda: other.execute("SELECT count(*) FROM papers").fetchone()[0] > 0,
                    timeout=WAIT_MS)
    worker.write(lambda lib: lib.notes.set(1, "written just before closing"))
    threading.Timer(0.2, gate.set).start()
    worker.shutdown()
    assert job.done() and not worker.is_busy() and not delivered
    assert worker.write(lambda lib: None) is None                 # nothing after shutdown
    count = other.execute("SELECT count(*) FROM papers").fetchone()[0]
    assert 0 < count < N and count % BATCH == 0
    assert other.execute("SELECT count(*) FROM papers WHERE id NOT IN "
                         "(SELECT paper_id FROM paper_sources)").fetchone()[0] == 0
    # each paper is indexed (the edit synced the index: auto_sync_index) or still queued
    queued = {r[0] for r in other.execute("SELECT paper_id FROM index_queue")}
    papers = {r[0] for r in other.execute("SELECT id FROM papers")}
    assert papers <= queued | lib.index.whoosh.indexed_ids()
    assert other.execute("SELECT body FROM notes WHERE paper_id = 1").fetchone() == (
        "written just before closing",)


def test_run_pending_edits_belongs_to_the_writer_thread(qtbot, worker):
    with pytest.raises(RuntimeError):
        worker.run_pending_edits()


# -- in the window -------------------------------------------------------------------------
def test_an_edit_through_the_window_worker_commits_during_its_import(qtbot, tmp_path,
                                                                     monkeypatch,
                                                                     open_seeded):
    # The window's import runs as a bulk job on window.worker; an edit written through
    # the same worker is committed at the next batch boundary, long before the import
    # ends. (The window's own edits go the same way, through window.submit_edit; see
    # test_ui_edit_during_import.py.)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 50)
    real_hash = parse_process.content_hash     # a small file: hashed by the importing thread

    def slow_hash(text):                       # an import of a few seconds on any machine
        time.sleep(0.001)
        return real_hash(text)

    monkeypatch.setattr("paperdesk.core.imports.parse_process.content_hash", slow_hash)
    window = open_seeded()
    qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    pid = window.model.paper_id(0)
    other = _other(window.lib)
    big = tmp_path / "big.txt"
    big.write_text("Daily Papers\n\n" + "\n\n".join(
        f"Another study {i} of dense retrieval {i} at scale." for i in range(N)) + "\n",
        encoding="utf-8")
    assert window.start_import([big])
    qtbot.waitUntil(lambda: other.execute("SELECT count(*) FROM papers").fetchone()[0]
                    > TOTAL, timeout=WAIT_MS)          # the import has committed a batch
    seen = []
    window.worker.write(lambda lib: lib.papers.set_starred([pid], True),
                        on_done=lambda _r: seen.append(other.execute(
                            "SELECT (SELECT starred FROM papers WHERE id = ?), "
                            "count(*) FROM papers", [pid]).fetchone()))
    qtbot.waitUntil(lambda: bool(seen), timeout=WAIT_MS)
    starred, count = seen[0]
    assert starred == 1 and count < TOTAL + N          # committed mid-import
    assert window.import_runner.is_running()
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=60000)
    assert window.lib.papers.count() == N + TOTAL
    assert window.lib.papers.get(pid).starred
    assert window.lib.search.find("is:starred").total == 1


def test_an_import_refreshes_the_window_once_from_its_own_signal(qtbot, tmp_path,
                                                                 open_seeded):
    # The window refreshes from import_runner.finished; the worker emitting ``changed``
    # for the import too
    # re-read every new row, updated the counts twice and left the visible search marked
    # stale (searched again after the next index update).
    window = open_seeded()
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
    changed, rows = [], []
    window.worker.changed.connect(changed.append)
    # The list's rows come from the reader thread block by block (a placeholder until
    # then): a block arriving repaints its rows, which is not a refresh for the import.
    arriving = []
    real_arrived = window.model._rows_arrived

    def rows_arrived(*args, **kwargs):
        arriving.append(True)
        try:
            return real_arrived(*args, **kwargs)
        finally:
            arriving.pop()

    window.model._rows_arrived = rows_arrived
    window.model.dataChanged.connect(lambda *a: None if arriving else rows.append(a))
    source = _write(tmp_path / "few.txt", 300)
    assert window.start_import([source])
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
    assert window.model.rowCount() == TOTAL + 300
    assert window.status_text() == f"{TOTAL + 300} papers"
    assert changed == [] and rows == []
    assert window.search.stale is False
