"""The list's rows are read off the UI thread (issue 28): typing a search, scrolling and
the triage keys never call ``lib.papers.summaries`` on the UI thread; a row not read yet
is drawn with a placeholder, asked for once, and filled when its block arrives; an answer
that comes after the list changed, or after an edit of its paper, is dropped. Keys are
sent with qtbot; nothing here is timed."""

from __future__ import annotations

import dataclasses
import threading

from PySide6.QtCore import Qt

from paperdesk.core.papers import Papers
from paperdesk.core.scope import Scope
from paperdesk.ui.panes.paper_model import (ROW_PLACEHOLDER, PaperTableModel, ReadRole,
                                            StarredRole, TagsRole)
from ui_fixtures import TOTAL, WAIT_MS, open_seeded, settle, win  # noqa: F401

TITLE, AUTHORS = PaperTableModel.TITLE, PaperTableModel.AUTHORS


def _record_summaries(monkeypatch) -> list[tuple[bool, list[int]]]:
    """Record each ``Papers.summaries`` call as ``(on the UI thread, ids)``."""
    calls: list[tuple[bool, list[int]]] = []
    real = Papers.summaries

    def summaries(self, ids, *args, **kwargs):
        ids = list(ids)
        calls.append((threading.current_thread() is threading.main_thread(), ids))
        return real(self, ids, *args, **kwargs)

    monkeypatch.setattr(Papers, "summaries", summaries)
    return calls


def _cell(model, row: int, column: int = TITLE, role=Qt.ItemDataRole.DisplayRole):
    return model.index(row, column).data(role)


def test_typing_scrolling_and_triage_keys_read_no_row_on_the_ui_thread(
        qtbot, win, monkeypatch):
    window, model = win, win.model
    calls = _record_summaries(monkeypatch)
    window.search_box.clear()
    window.focus_search()
    for ch in "is:unread":      # every paper matches: 225 rows, more than a block
        qtbot.keyClick(window.search_box, ch)
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == "is:unread"
                    and not window.is_busy(), timeout=WAIT_MS)
    assert model.rowCount() == TOTAL
    # the rows on show were read (painting asked for them), on the reader thread
    qtbot.waitUntil(lambda: _cell(model, 0) != ROW_PLACEHOLDER, timeout=WAIT_MS)
    assert calls

    # Ctrl+End into rows not read yet: the right paper is current at once, and shown
    # in the detail pane; its row fills in when its block arrives
    window.focus_list()
    last = model.paper_id(TOTAL - 1)
    qtbot.keyClick(window.table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert window.current_paper_id() == last
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == last, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _cell(model, TOTAL - 1) != ROW_PLACEHOLDER, timeout=WAIT_MS)
    truth = window.lib.papers.get(last)
    assert model.summary(last).title == truth.title
    assert any(last in ids for _ui, ids in calls)
    qtbot.keyClick(window.table, Qt.Key.Key_K)
    assert window.current_paper_id() == model.paper_id(TOTAL - 2)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == model.paper_id(TOTAL - 2),
                    timeout=WAIT_MS)

    # s and r over a selection of two: decided on the writer thread
    qtbot.keyClick(window.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert sorted(window.selected_ids()) == sorted(model.ids()[-2:])
    qtbot.keyClick(window.table, Qt.Key.Key_S)
    qtbot.keyClick(window.table, Qt.Key.Key_R)
    settle(qtbot, window)
    for row in (TOTAL - 2, TOTAL - 1):
        qtbot.waitUntil(lambda row=row: _cell(model, row, TITLE, StarredRole) is True
                        and _cell(model, row, TITLE, ReadRole) is True, timeout=WAIT_MS)
    on_ui = [ids for ui, ids in calls if ui]
    assert on_ui == []


def test_a_row_shows_a_placeholder_until_its_block_arrives(qtbot, win):
    window, model, lib = win, win.model, win.lib
    asked: list = []
    model.set_row_fetcher(lambda ids, deliver: asked.append((ids, deliver)))
    model.show_results(lib.search.find("is:unread", limit=3), scope=Scope())
    assert model.rowCount() == TOTAL
    row = TOTAL - 1
    pid = model.paper_id(row)
    # not read yet: a quiet placeholder, and the block is asked for once
    assert _cell(model, row) == ROW_PLACEHOLDER
    assert _cell(model, row, AUTHORS) == ""
    assert _cell(model, row, TITLE, StarredRole) is None
    assert _cell(model, row, TITLE, TagsRole) is None
    assert len(asked) == 1
    ids, deliver = asked[0]
    assert pid in ids and model.paper_id(row - 1) in ids
    assert _cell(model, row - 1) == ROW_PLACEHOLDER and len(asked) == 1
    changed = []
    model.dataChanged.connect(lambda a, b, roles=(): changed.append((a.row(), b.row())))
    gone = model.paper_id(row - 1)      # as if deleted meanwhile
    found = {k: v for k, v in lib.papers.summaries(ids).items() if k != gone}
    deliver(found)
    assert changed and changed[0][0] <= row - 1 and changed[0][1] >= row
    assert model.summary(pid).title == lib.papers.get(pid).title
    assert _cell(model, row) not in (ROW_PLACEHOLDER, "")
    assert _cell(model, row, TITLE, StarredRole) is False
    assert _cell(model, row - 1) == "(no longer in the library)"

    # an answer for an older list is dropped: the rows are asked for again
    model.show_results(lib.search.find("is:unread", limit=3), scope=Scope())
    assert _cell(model, row) == ROW_PLACEHOLDER and len(asked) == 2
    old_deliver = asked[1][1]
    model.show_results(lib.search.find("is:unread", limit=3), scope=Scope())
    stale = {k: dataclasses.replace(v, title="stale")
             for k, v in lib.papers.summaries(asked[1][0]).items()}
    old_deliver(stale)
    assert _cell(model, row) == ROW_PLACEHOLDER and len(asked) == 3

    # an edit while a block is on its way: its rows are asked again, the older
    # answer (read before the edit) is dropped
    ids2, deliver2 = asked[2]
    model.refresh_papers([pid])
    assert len(asked) == 4 and asked[3][0] == [pid]
    deliver2({k: dataclasses.replace(v, title="before the edit")
              for k, v in lib.papers.summaries(ids2).items()})
    assert _cell(model, row) == ROW_PLACEHOLDER
    assert _cell(model, row - 2) == "before the edit"   # (not edited: kept)
    asked[3][1](lib.papers.summaries([pid]))
    assert model.summary(pid).title == lib.papers.get(pid).title


def test_rows_of_a_block_are_found_in_one_lookup_as_row_of_finds_each(win):
    """Delivered snippets and rows are looked up a block at a time (``rows_of``): the
    same rows as ``row_of`` one by one, for listed, unlisted and repeated ids, while
    listing and while searching (where the search thread brought the lookup)."""
    model = win.model
    for _ in range(2):
        listed = [model.paper_id(r) for r in range(model.rowCount())]
        asked = listed[::7] + [10**9, -5, listed[3], 0] + listed[-3:]
        expected = sorted(r for r in (model.row_of(p) for p in asked) if r >= 0)
        assert sorted(model.rows_of(asked)) == expected and len(expected) >= 5
        assert model.rows_of([]) == [] and model.rows_of([10**9]) == []
        model.show_results(win.lib.search.find("depth", limit=20, rank=40), scope=Scope())


def test_the_ids_the_rows_no_longer_show_are_freed_a_slice_at_a_time(qtbot, win, monkeypatch):
    """A search's rows replace the list's ids; the old list is freed in slices while
    the UI thread is idle (a million ids at once held the interpreter lock 15 ms)."""
    from paperdesk.core import collector

    monkeypatch.setattr(collector, "FREED_PER_STEP", 16)
    steps = []
    real_step = collector.SlowFree.step

    def step(self):
        steps.append(self.pending())
        return real_step(self)

    monkeypatch.setattr(collector.SlowFree, "step", step)
    window, model = win, win.model
    old = model.listed_ids()
    assert len(old) == TOTAL
    del old
    window.focus_search()
    for ch in "depth":
        qtbot.keyClick(window.search_box, ch)
    qtbot.waitUntil(lambda: model.searching and not window.is_busy(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: steps and model._slow_free.pending() == 0, timeout=WAIT_MS)
    assert steps[0] >= TOTAL - 16 and len(steps) >= TOTAL // 16, steps[:5]


def test_the_ids_of_results_a_new_search_replaces_are_freed_a_slice_at_a_time(
        qtbot, win, monkeypatch):
    """The results of the last query hold every match's id as a Python list (made on
    the search thread); when the next query's results replace them, that list goes to
    the slow free too (as the list's own old ids do), not at once on the UI thread."""
    from paperdesk.core import collector

    monkeypatch.setattr(collector, "FREED_PER_STEP", 16)
    dropped, cut = [], []
    real_drop, real_step = collector.SlowFree.drop, collector.SlowFree.step

    def drop(self, items):
        dropped.append(id(items))
        return real_drop(self, items)

    def step(self):
        before = self.pending()
        more = real_step(self)
        cut.append(before - self.pending())
        return more

    monkeypatch.setattr(collector.SlowFree, "drop", drop)
    monkeypatch.setattr(collector.SlowFree, "step", step)
    window, model = win, win.model
    window.focus_search()
    for ch in "is:unread":            # every paper: 225 ids
        qtbot.keyClick(window.search_box, ch)
    qtbot.waitUntil(lambda: window.search.results is not None and window.search.results
                    .query == "is:unread" and not window.is_busy(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: model._slow_free.pending() == 0, timeout=WAIT_MS)
    first = id(window.search.results.__dict__["id_list"])
    assert len(window.search.results.__dict__["id_list"]) == TOTAL
    cut.clear()
    window.search_box.selectAll()
    for ch in "depth":
        qtbot.keyClick(window.search_box, ch)
    qtbot.waitUntil(lambda: window.search.results is not None and window.search.results
                    .query == "depth" and not window.is_busy(), timeout=WAIT_MS)
    assert first in dropped
    qtbot.waitUntil(lambda: model._slow_free.pending() == 0, timeout=WAIT_MS)
    # both 225-id lists (the rows' and the results') cut 16 ids a step
    assert sum(cut) >= 2 * TOTAL - 32 and max(cut) <= 16 + TOTAL % 16, cut
