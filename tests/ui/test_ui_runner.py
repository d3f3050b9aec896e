"""The runners' base class (``paperdesk.ui.background.runner.Runner``), through real
runners on the seed library: an error is one line, cancel stops the work, and an outcome
that arrives after a cancel or after shutdown (the window closed) is dropped.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from paperdesk.core.scope import Scope  # noqa: E402
from paperdesk.ui.background.discover_runner import DiscoverRunner  # noqa: E402
from paperdesk.ui.background.operations import LibraryWorker  # noqa: E402
from paperdesk.ui.background.workers import (CheckRunner, ExportRunner,  # noqa: E402
                                             IndexSyncRunner, SearchRunner)

WAIT_MS = 20000


@pytest.fixture
def worker(qtbot, seeded_library):
    worker = LibraryWorker(seeded_library)
    yield worker
    worker.shutdown()


def test_an_export_error_is_one_line_naming_the_file_and_the_reason(qtbot, seeded_library,
                                                                   tmp_path):
    runner = ExportRunner(seeded_library)
    target = tmp_path / "no such\nfolder" / "out.bib"   # a line break in the folder's name
    failed: list[str] = []
    runner.failed.connect(failed.append)
    with qtbot.waitSignal(runner.failed, timeout=WAIT_MS):
        assert runner.start(seeded_library.papers.scope_ids(Scope()), "bibtex", target)
    runner.shutdown()
    [message] = failed
    assert "\n" not in message
    assert message.startswith("cannot write ") and "out.bib" in message, message
    assert not runner.is_running()
    assert not target.exists()


def test_cancel_stops_an_export_before_its_file_is_written(qtbot, seeded_library, tmp_path):
    runner = ExportRunner(seeded_library)
    target = tmp_path / "out.ris"
    finished: list = []
    runner.finished.connect(lambda *args: finished.append(args))
    with qtbot.waitSignal(runner.cancelled, timeout=WAIT_MS):
        assert runner.start(seeded_library.papers.scope_ids(Scope()), "ris", target)
        runner.cancel()
    assert not runner.is_running() and finished == []
    assert not target.exists()
    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS):   # the next one runs
        assert runner.start(seeded_library.papers.scope_ids(Scope()), "ris", target)
    runner.shutdown()
    assert target.stat().st_size > 0


def test_search_results_of_a_cancelled_request_are_dropped(qtbot, seeded_library):
    runner = SearchRunner(seeded_library)
    answered: list[tuple[int, str]] = []
    runner.resultsReady.connect(lambda gen, results, _complete:
                                answered.append((gen, results.query)))
    runner.request("model", immediate=True)
    runner.cancel()
    latest = runner.request("attention", immediate=True)
    qtbot.waitUntil(lambda: bool(answered) and not runner.is_busy(), timeout=WAIT_MS)
    qtbot.wait(50)
    runner.shutdown()
    assert answered == [(latest, "attention")]


def test_an_index_update_finishing_after_shutdown_is_not_delivered(qtbot, seeded_library,
                                                                   worker):
    runner = IndexSyncRunner(seeded_library, worker=worker)
    delivered: list = []
    runner.synced.connect(delivered.append)
    runner.failed.connect(delivered.append)
    runner.mark_stale()
    qtbot.waitUntil(runner.is_busy, timeout=WAIT_MS)      # the update is scheduled
    runner.flush()
    assert runner.is_busy()                               # queued on the writer thread
    with qtbot.waitSignal(worker.idle, timeout=WAIT_MS):  # ... and answered after this
        runner.shutdown()
    assert delivered == []
    assert not runner.is_busy()


def test_a_check_finishing_after_the_window_closed_is_not_delivered(qtbot, worker):
    runner = CheckRunner(worker)
    delivered: list = []
    runner.finished.connect(delivered.append)
    runner.failed.connect(delivered.append)
    assert runner.start()
    assert not runner.start()                              # one at a time
    with qtbot.waitSignal(worker.idle, timeout=WAIT_MS):
        runner.shutdown()
    assert delivered == []
    assert not runner.start()                              # nothing after shutdown


def test_a_term_table_build_is_cancelled_then_runs_again(qtbot, seeded_library):
    runner = DiscoverRunner(seeded_library)
    outcomes: list[str] = []
    runner.cancelled.connect(lambda: outcomes.append("cancelled"))
    runner.finished.connect(lambda: outcomes.append("finished"))
    runner.failed.connect(outcomes.append)
    with qtbot.waitSignal(runner.cancelled, timeout=WAIT_MS):
        assert runner.start()
        runner.cancel()
    assert outcomes == ["cancelled"] and not runner.is_running()
    with qtbot.waitSignal(runner.finished, timeout=WAIT_MS):
        assert runner.start()
    assert outcomes == ["cancelled", "finished"]
    runner.shutdown()
    runner.shutdown()                                      # safe twice
    assert not runner.start()


def test_an_unexpected_build_error_is_one_line_and_its_traceback_goes_to_the_log(
        qtbot, seeded_library, tmp_path, monkeypatch, capfd):
    """A bug in the term-table build (not a BuildFailed) reaches the window as one line;
    the terminal gets one line naming the error log, which holds the traceback."""
    monkeypatch.setenv("PAPERDESK_LOG_DIR", str(tmp_path / "log"))

    def broken(*args, **kwargs):
        raise ZeroDivisionError("division by zero in the build")

    monkeypatch.setattr(seeded_library.discover, "ensure", broken)
    runner = DiscoverRunner(seeded_library)
    failures: list[str] = []
    runner.failed.connect(failures.append)
    capfd.readouterr()
    with qtbot.waitSignal(runner.failed, timeout=WAIT_MS):
        assert runner.start()
    runner.shutdown()
    assert failures == ["division by zero in the build"]
    err = capfd.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert "details in" in err and "ZeroDivisionError" in (tmp_path / "log" / "errors.log"
                                                            ).read_text()
