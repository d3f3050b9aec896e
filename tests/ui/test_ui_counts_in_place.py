"""A star or read mark moves the tag pane's "Starred" and "Unread" counts and the status
bar's "N of M unread" by what it changed, without counting the library again (at a
million papers counting the unread papers takes 40-50 ms of a core after every key);
where the change cannot tell (a read mark in a tag's scope, a star in "Starred"), the
counts are read again. Every count shown must equal SQLite's own."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from ui_fixtures import (WAIT_MS, keyed_tag, open_seeded, press, settle,  # noqa: F401
                         wait_idle, win)

from paperdesk.core.papers import Papers
from paperdesk.core.scope import Scope

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


@pytest.fixture
def counted(monkeypatch):
    """The counts reads made off the UI thread from now on (``Papers.filter_counts`` and
    ``Papers.scope_count`` calls), as a list of their names."""
    calls: list[str] = []
    for name in ("filter_counts", "scope_count"):
        real = getattr(Papers, name)

        def recording(self, *args, _real=real, _name=name, **kwargs):
            if threading.current_thread() is not threading.main_thread():
                calls.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Papers, name, recording)
    return calls


def _sqlite_counts(lib, scope: Scope) -> dict:
    """The tag pane's filters and the scope's (papers, unread) as SQLite counts them,
    from the main thread (not recorded by :func:`counted`)."""
    out = {}
    q = lambda sql, *a: lib.db.execute(sql, a).fetchone()[0]  # noqa: E731
    out["starred"] = q("SELECT count(*) FROM papers WHERE starred")
    out["unread"] = q("SELECT count(*) FROM papers WHERE read_at IS NULL")
    where = "1"
    args: list = []
    if scope.tag_id is not None:
        where, args = "id IN (SELECT paper_id FROM paper_tags WHERE tag_id = ?)", [scope.tag_id]
    elif scope.filter == "starred":
        where = "starred"
    out["scope"] = q(f"SELECT count(*) FROM papers WHERE {where}", *args)
    out["scope_unread"] = q(f"SELECT count(*) FROM papers WHERE {where} AND read_at IS NULL",
                            *args)
    return out


def _shown(window) -> dict:
    """The same counts as the window shows them."""
    filters = {name: n for name, _label, n in window.tag_pane.filter_entries()}
    text = window.unread_label.text()          # "12 of 225 unread" (empty when none)
    unread, scope = (int(w.replace(",", "")) for w in text.split()[0:3:2]) if text else (0, 0)
    return {"starred": filters["starred"], "unread": filters["unread"], "scope": scope,
            "scope_unread": unread}


def _expect_counts(qtbot, window, scope: Scope) -> None:
    settle(qtbot, window)       # the key's edit committed and its change shown

    def same() -> bool:
        want = _sqlite_counts(window.lib, scope)
        return _shown(window) == {k: want[k] for k in ("starred", "unread", "scope",
                                                        "scope_unread")}
    qtbot.waitUntil(same, timeout=WAIT_MS)


def test_star_and_read_keys_move_the_counts_without_counting(qtbot, win, counted):
    window = win
    window.focus_list()
    window.select_row(0)
    wait_idle(qtbot, window)
    _expect_counts(qtbot, window, Scope())
    counted.clear()
    start = _sqlite_counts(window.lib, Scope())
    for keys in (["s"], ["r"], ["Down", "s"], ["Down", "r"], ["r"], ["s"]):
        for key in keys:
            if key == "Down":
                qtbot.keyClick(window.table, Qt.Key.Key_Down)
            else:
                press(qtbot, window, key)
        _expect_counts(qtbot, window, Scope())
    after = _sqlite_counts(window.lib, Scope())
    assert (after["starred"], after["unread"]) == (start["starred"] + 3,
                                                   start["unread"] - 1)
    for _ in range(3):
        qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)
        _expect_counts(qtbot, window, Scope())
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL | SHIFT)    # redo
    _expect_counts(qtbot, window, Scope())
    wait_idle(qtbot, window)
    qtbot.wait(200)
    _expect_counts(qtbot, window, Scope())
    assert counted == [], f"the stars and read marks counted: {counted}"


def test_a_read_mark_in_a_tag_or_a_star_in_starred_is_counted_again(qtbot, win, counted):
    window, lib = win, win.lib
    keyed_tag(qtbot, window, "batch")
    window.focus_list()
    window.select_row(0)
    for _ in range(4):
        qtbot.keyClick(window.table, Qt.Key.Key_Down, SHIFT)
    press(qtbot, window, "1")                  # the five papers tagged
    tag = lib.tags.by_name("batch")
    qtbot.waitUntil(lambda: lib.tags.by_name("batch").count == 5, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: any(t.id == tag.id for t in window.tag_pane.tag_entries()),
                    timeout=WAIT_MS)
    scope = Scope(tag_id=tag.id)
    assert window.tag_pane.select_scope(scope)
    qtbot.waitUntil(lambda: window.model.rowCount() == 5, timeout=WAIT_MS)
    window.focus_list()
    window.select_row(0)
    wait_idle(qtbot, window)
    _expect_counts(qtbot, window, scope)
    counted.clear()
    press(qtbot, window, "s")                  # a star moves no tag's scope: no count
    _expect_counts(qtbot, window, scope)
    wait_idle(qtbot, window)
    assert counted == []
    before = _shown(window)
    press(qtbot, window, "r")                  # the tag's unread papers: counted again
    _expect_counts(qtbot, window, scope)
    assert _shown(window)["scope_unread"] == before["scope_unread"] - 1
    assert "scope_count" in counted
    starred = Scope(filter="starred")
    assert window.tag_pane.select_scope(starred)
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=WAIT_MS)
    window.focus_list()
    window.select_row(0)
    _expect_counts(qtbot, window, starred)
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)   # the read mark undone
    _expect_counts(qtbot, window, starred)
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)   # the star undone: "Starred" empty
    _expect_counts(qtbot, window, starred)
