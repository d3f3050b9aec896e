"""The window's searches in a process of their own (issue 28), on the seed library with
the process forced on: typed queries list what the search thread lists, the window's
own process runs no search, and a search process that dies leaves searching to the
search thread without a word to the user."""

from __future__ import annotations

import os
import signal

import pytest

from paperdesk.core.search.search_process import SEARCH_PROCESS_ENV
from ui_fixtures import WAIT_MS, open_seeded, type_query  # noqa: F401


@pytest.fixture
def window(qtbot, open_seeded, monkeypatch):
    monkeypatch.setenv(SEARCH_PROCESS_ENV, "1")
    win = open_seeded()
    qtbot.waitUntil(lambda: win.search_runner.process is not None, timeout=WAIT_MS)
    return win


def _listed(qtbot, window, query: str) -> list[int]:
    window.search_box.clear()
    type_query(qtbot, window, query)
    qtbot.waitUntil(lambda: window.model.complete, timeout=WAIT_MS)
    return window.model.ids()


def test_typed_searches_run_in_the_search_process(qtbot, window, monkeypatch):
    lib = window.lib
    calls = []
    real = type(lib.search).find

    def counted(self, *args, **kwargs):
        calls.append(args[:1])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(lib.search), "find", counted)
    for query in ("depth estimation", "model", "diffusion OR transformer"):
        listed = _listed(qtbot, window, query)
        expected = real(lib.search, query, limit=0).ids
        assert listed == list(expected) and listed, query
    assert calls == []              # not one search in the window's process
    assert window.model.searching and window.detail_pane.note_editor is not None


def test_a_search_process_that_dies_leaves_searching_to_the_thread(qtbot, window):
    assert _listed(qtbot, window, "depth")
    os.kill(window.search_runner.process.pid, signal.SIGKILL)
    listed = _listed(qtbot, window, "model")
    assert listed == list(window.lib.search.find("model", limit=0).ids)
    assert window.search_runner.process is None
    assert "Traceback" not in window.statusBar().currentMessage()


def test_the_search_process_is_started_off_the_ui_thread(qtbot, open_seeded, monkeypatch):
    """Its start (a fork and exec, tens of milliseconds) ran on the UI thread; now on a
    thread of its own, and searches run on the search thread until it is ready."""
    import threading

    from paperdesk.ui.background import workers

    monkeypatch.setenv(SEARCH_PROCESS_ENV, "1")
    started_on = []
    real = workers.SearchProcess

    def recorded(*args, **kwargs):
        started_on.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(workers, "SearchProcess", recorded)
    win = open_seeded()
    qtbot.waitUntil(lambda: win.search_runner.process is not None, timeout=WAIT_MS)
    assert len(started_on) == 1
    assert started_on[0] is not threading.main_thread()
    assert started_on[0].name == "paperdesk-search-process-start"
    assert _listed(qtbot, win, "depth")
