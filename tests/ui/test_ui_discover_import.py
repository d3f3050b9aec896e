"""An import of many papers while the window builds the term table for the reading
pane's related papers (issue 23 item 4): the window printed ``TermsNotReady: 16,929
papers are not in the term table`` with a traceback (2 of 2 runs of a 20,000-paper
import). A build that finished while the import went on found the papers committed
meanwhile missing, and the build thread printed the exception.

Here the window opens on the sample library without a term table (it starts building
one for the paper on show) and a folder of synthetic abstracts (seed sentences
recombined, ``benchmarks/synth.py``) is dropped on it. The build and the import are the
real ones, interleaved so that the race the tester hit happens on every run: the build
reads the library once the import has committed its first batch, and the import goes on
only once the build has read it; the build ends when the import has committed more."""

from __future__ import annotations

import sqlite3
import sys
import threading
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication

from paperdesk.core.discover import engine
from paperdesk.core.imports.pipeline import Imports
from ui_fixtures import WAIT_MS, drop_file, open_seeded, wait_idle  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks.synth

from benchmarks.synth import write_synthetic_files  # noqa: E402

#: Papers imported: fewer than the child-process build takes (CHILD_FROM), more than an
#: update in place does (UPDATE_MAX), so the window builds the whole table on its thread.
IMPORTED = 2_500


def _count(db: Path) -> int:
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    finally:
        conn.close()


def test_an_import_during_a_term_table_build_prints_no_traceback(qtbot, open_seeded,
                                                                   tmp_path, capfd,
                                                                   monkeypatch):
    read: list[int] = []
    first_batch, built = threading.Event(), threading.Event()
    real_build, real_import = engine.build_table, Imports.run
    where: list[Path] = []

    def build_between_batches(db_path, progress=None, cancel=None):
        first_batch.wait(60)          # the import's first batch is committed
        table = real_build(db_path, progress, cancel)
        read.append(int(table.valid.sum()))
        built.set()
        deadline = time.monotonic() + 60
        while _count(db_path) < read[0] + 1000 and time.monotonic() < deadline:
            time.sleep(0.02)          # the import commits more papers meanwhile
        return table

    def import_waiting_for_the_build(self, paths, *args, between_batches=None, **kwargs):
        def hook():       # also called while files are read, before any commit
            if not first_batch.is_set() and _count(self._lib.path / "library.db") > 225:
                first_batch.set()
                built.wait(60)        # the build reads the first batch only
            if between_batches is not None:
                between_batches()
        return real_import(self, paths, *args, between_batches=hook, **kwargs)

    monkeypatch.setattr(engine, "build_table", build_between_batches)
    monkeypatch.setattr(Imports, "run", import_waiting_for_the_build)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 250)
    hooked = []
    monkeypatch.setattr(sys, "excepthook", lambda *exc: hooked.append(exc))
    monkeypatch.setattr(threading, "excepthook", lambda args: hooked.append(args))
    folder = tmp_path / "synthetic"
    write_synthetic_files(folder, sorted((ROOT / "seeds").glob("*.txt")), IMPORTED)
    window = open_seeded()
    db = window.lib.path / "library.db"
    assert _count(db) == 225
    qtbot.waitUntil(window.discover.discover_runner.is_running, timeout=WAIT_MS)
    capfd.readouterr()
    drop_file(window, folder)
    qtbot.waitUntil(lambda: window.imports.last_import_report is not None, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: not window.discover.discover_runner.is_running(), timeout=WAIT_MS)
    QCoreApplication.processEvents()
    assert _count(db) == 225 + IMPORTED
    assert 225 < read[0] < 225 + IMPORTED        # the first build ran during the import
    err = capfd.readouterr().err
    assert "Traceback" not in err and "TermsNotReady" not in err, err
    assert hooked == []
    assert "not found" not in window.detail_pane.related.note.text()
    # and when the import is done, the related papers of the paper on show come
    shown = window.current_paper_id()
    qtbot.waitUntil(lambda: window.detail_pane.discover_paper_id == shown
                    and not window.discover.discover_busy(), timeout=WAIT_MS)
    assert window.detail_pane.related_list.count() == 10
    assert max(read) == 225 + IMPORTED           # one build of all the papers after it
    assert "Traceback" not in capfd.readouterr().err
