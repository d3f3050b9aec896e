"""The UI thread never waits on SQLite (issue 28): the common flows, driven with keys,
run no SQLite statement on the Qt main thread once the window is up (the
``ui_thread_guard`` fixture records every one, see :class:`ui_fixtures.UiThreadGuard`).
Answers read on the reader thread for a paper or a list the user has left are dropped."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from ui_fixtures import (TOTAL, WAIT_MS, open_seeded, press, settle,  # noqa: F401
                         ui_thread_guard, wait_idle, wait_listed, win)

CTRL = Qt.KeyboardModifier.ControlModifier


def _up(qtbot, window, guard) -> None:
    """Let the start-up reads finish, then arm the guard on the list."""
    settle(qtbot, window)
    wait_idle(qtbot, window)
    guard.arm(window)
    window.focus_list()


def _shown(qtbot, window, row: int) -> None:
    pid = window.model.paper_id(row)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)


def test_moving_down_the_list_reads_each_paper_off_the_ui_thread(qtbot, win, ui_thread_guard):
    window = win
    window.select_row(0)
    _up(qtbot, window, ui_thread_guard)
    for row in range(1, 6):
        qtbot.keyClick(window.table, Qt.Key.Key_Down)
        _shown(qtbot, window, row)
    ui_thread_guard.check()
    with ui_thread_guard.allowed():
        assert window.detail_pane.paper == window.lib.papers.get(window.model.paper_id(5))


def test_a_paper_left_before_its_read_came_back_is_not_shown(qtbot, win, ui_thread_guard):
    window = win
    window.select_row(0)
    _up(qtbot, window, ui_thread_guard)
    gate = threading.Event()
    window.worker.read(lambda lib: gate.wait(WAIT_MS / 1000), label="held")  # holds the reader
    first = window.detail_pane.paper_id
    for _ in range(3):
        qtbot.keyClick(window.table, Qt.Key.Key_Down)
    # the reads wait behind the held one: the old paper stays on show meanwhile
    assert window.detail_pane.paper_id == first
    assert window.detail_pane.paper is not None
    gate.set()
    _shown(qtbot, window, 3)
    settle(qtbot, window)
    assert window.detail_pane.paper_id == window.model.paper_id(3)
    ui_thread_guard.check()


def test_choosing_a_tag_with_keys_reads_off_the_ui_thread(qtbot, win, ui_thread_guard):
    window = win
    lib = window.lib
    tagged = window.model.ids()[3:8]
    window.triage.create_tag("later", key=3)
    settle(qtbot, window)
    tag_id = next(t.id for t in lib.tags.all() if t.name == "later")
    window.run_edit(lambda lib: lib.tags.add(tagged, "later"))
    settle(qtbot, window)
    _up(qtbot, window, ui_thread_guard)
    pane = window.tag_pane
    pane.setFocus()
    pane.setCurrentItem(pane.item_for(None))
    for _ in range(40):
        if pane.current_tag() == tag_id:
            break
        qtbot.keyClick(pane, Qt.Key.Key_Down)
    assert pane.current_tag() == tag_id
    wait_listed(qtbot, window)
    qtbot.waitUntil(lambda: sorted(window.model.ids()) == sorted(tagged), timeout=WAIT_MS)
    qtbot.keyClick(pane, Qt.Key.Key_Home)          # back to All papers
    qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    wait_listed(qtbot, window)
    ui_thread_guard.check()


def test_typing_a_search_reads_off_the_ui_thread(qtbot, win, ui_thread_guard):
    window = win
    window.select_row(0)
    _up(qtbot, window, ui_thread_guard)
    press(qtbot, window, "/")
    qtbot.waitUntil(lambda: window.focusWidget() is window.search_box, timeout=WAIT_MS)
    qtbot.keyClicks(window.search_box, "network")
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == "network", timeout=WAIT_MS)
    wait_idle(qtbot, window)
    qtbot.keyClick(window.search_box, Qt.Key.Key_Down)     # into the hits
    qtbot.keyClick(window.table, Qt.Key.Key_Down)
    _shown(qtbot, window, 1)
    ui_thread_guard.check()


def test_tagging_with_a_number_key_deleting_and_undo_read_off_the_ui_thread(
        qtbot, win, ui_thread_guard):
    window = win
    lib = window.lib
    window.triage.create_tag("later", key=3)
    settle(qtbot, window)
    window.select_row(4)
    _shown(qtbot, window, 4)
    _up(qtbot, window, ui_thread_guard)
    pid = window.current_paper_id()
    nxt = window.model.paper_id(5)

    qtbot.keyClick(window.table, "3")                # tag it
    settle(qtbot, window)
    qtbot.waitUntil(lambda: [t.name for t in window.detail_pane.paper.tags] == ["later"],
                    timeout=WAIT_MS)

    qtbot.keyClick(window.table, Qt.Key.Key_Delete)  # delete it
    settle(qtbot, window)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.row_of(pid) == -1, timeout=WAIT_MS)
    _shown(qtbot, window, 4)
    assert window.current_paper_id() == nxt

    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)  # undo the delete
    settle(qtbot, window)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.row_of(pid) == 4, timeout=WAIT_MS)
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)  # undo the tag
    settle(qtbot, window)
    wait_idle(qtbot, window)
    ui_thread_guard.check()
    with ui_thread_guard.allowed():
        assert list(lib.papers.get(pid).tags) == []


def test_deleting_a_hit_and_undo_while_searching_read_off_the_ui_thread(
        qtbot, win, ui_thread_guard):
    window = win
    window.search_box.setFocus()
    qtbot.keyClicks(window.search_box, "network")
    window.search.request_search(immediate=True)
    wait_idle(qtbot, window)
    hits = window.model.ids()
    assert len(hits) > 5
    window.focus_list()
    window.select_row(1)
    _shown(qtbot, window, 1)
    _up(qtbot, window, ui_thread_guard)
    pid = window.current_paper_id()
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    settle(qtbot, window)
    # the hit's row goes once the reader thread said the paper is gone; the next one
    # is current and shown
    assert window.model.row_of(pid) == -1 and window.current_paper_id() == hits[2]
    _shown(qtbot, window, 1)
    wait_idle(qtbot, window)
    assert len(window.model.ids()) == len(hits) - 1
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: pid in window.model.ids(), timeout=WAIT_MS)
    ui_thread_guard.check()


def test_the_guard_catches_sqlite_and_search_work_on_the_ui_thread(qtbot, win, ui_thread_guard):
    import pytest

    window = win
    _up(qtbot, window, ui_thread_guard)
    pid = window.model.paper_id(0)
    window.lib.papers.get(pid)                  # the library's own connection
    with pytest.raises(AssertionError, match="test_the_guard_catches"):
        ui_thread_guard.check()
    window.lib.search.hits("network")           # the search index
    with pytest.raises(AssertionError, match="1 SQLite"):
        ui_thread_guard.check()
    done = []
    window.worker.read(lambda lib: lib.papers.get(pid), on_done=done.append)
    qtbot.waitUntil(lambda: bool(done), timeout=WAIT_MS)   # the reader thread: no offence
    with ui_thread_guard.allowed():
        window.lib.papers.get(pid)
    ui_thread_guard.check()


def test_f2_on_a_tag_renames_it_without_reading_on_the_ui_thread(qtbot, win, ui_thread_guard,
                                                                 monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    window = win
    pid = window.model.paper_id(0)
    window.triage.add_tag("old", [pid])
    settle(qtbot, window)
    tag_id = next(t.id for t in window.tag_pane.tag_entries() if t.name == "old")
    _up(qtbot, window, ui_thread_guard)
    pane = window.tag_pane
    pane.setFocus()
    pane.setCurrentItem(pane.tag_item(tag_id))
    wait_listed(qtbot, window)
    asked = []

    def get_text(_parent, _title, label, _mode, text):
        asked.append((label, text))
        return "new name", True

    monkeypatch.setattr(QInputDialog, "getText", get_text)
    qtbot.keyClick(pane, Qt.Key.Key_F2)
    settle(qtbot, window)
    assert asked and asked[0][1] == "old" and "“old”" in asked[0][0]
    qtbot.waitUntil(lambda: any(t.id == tag_id and t.name == "new name"
                                for t in pane.tag_entries()), timeout=WAIT_MS)
    ui_thread_guard.check()


def test_m_pressed_before_the_paper_came_opens_the_editor_on_that_paper(
        qtbot, win, ui_thread_guard):
    window = win
    window.select_row(0)
    _up(qtbot, window, ui_thread_guard)
    gate = threading.Event()
    window.worker.read(lambda lib: gate.wait(WAIT_MS / 1000), label="held")  # holds the reader
    qtbot.keyClick(window.table, Qt.Key.Key_J)
    qtbot.keyClick(window.table, "m")            # the paper moved to is not read yet
    assert window.metadata.metadata_dialog is None
    gate.set()
    qtbot.waitUntil(lambda: window.metadata.metadata_dialog is not None
                    and window.metadata.metadata_dialog.isVisible(), timeout=WAIT_MS)
    assert window.detail_pane.paper_id == window.model.paper_id(1)
    assert window.metadata.metadata_dialog.paper_id == window.model.paper_id(1)
    window.metadata.metadata_dialog.reject()
    ui_thread_guard.check()
