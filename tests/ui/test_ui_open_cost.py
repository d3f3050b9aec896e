"""What opening the window costs on the UI thread: the ids of the list are read once,
on the reader thread (the first screenful first, then all of them), never on the UI
thread; a library that closed cleanly is not read whole by ``PRAGMA quick_check``
again."""

from __future__ import annotations

import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402

from paperdesk.core import check as _check  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.core.papers import Papers  # noqa: E402
from paperdesk.core.scope import Scope  # noqa: E402
from paperdesk.ui.panes.paper_model import FIRST_ROWS, PaperTableModel  # noqa: E402
from ui_fixtures import TOTAL, WAIT_MS, make_settings, open_seeded, win  # noqa: E402,F401


def _record_reads(monkeypatch) -> list[tuple[int | None, bool]]:
    """Record each ``Papers.scope_ids`` call as ``(limit, on the UI thread)``."""
    reads: list[tuple[int | None, bool]] = []
    ui_thread = threading.main_thread()
    real_ids = Papers.scope_ids

    def scope_ids(self, *args, **kwargs):
        reads.append((kwargs.get("limit"), threading.current_thread() is ui_thread))
        return real_ids(self, *args, **kwargs)

    monkeypatch.setattr(Papers, "scope_ids", scope_ids)
    return reads


def _row_counts(model) -> list[int]:
    """The model's row count after each reset and each insertion of rows."""
    counts: list[int] = []
    model.modelReset.connect(lambda: counts.append(model.rowCount()))
    model.rowsInserted.connect(lambda *_args: counts.append(model.rowCount()))
    return counts


def test_opening_reads_the_list_once_off_the_ui_thread_and_skips_the_quick_check(
        qtbot, tmp_path, seed_files, monkeypatch):
    from paperdesk.ui import create_main_window

    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files)
        in_order = lib.papers.scope_ids(Scope())
    checked = []
    real_check = _check.database_problem
    reads = _record_reads(monkeypatch)
    monkeypatch.setattr(_check, "database_problem",
                        lambda *a: checked.append(1) or real_check(*a))
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "s.ini"))
    try:
        counts = _row_counts(window.model)
        window.show()
        qtbot.waitUntil(lambda: window.model.complete, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
        # the first screenful, then every id (225 > FIRST_ROWS), each read once and
        # none of them on the UI thread
        assert reads == [(FIRST_ROWS, False), (None, False)]
        assert counts == [FIRST_ROWS, TOTAL]
        assert window.model.ids() == in_order
        assert checked == []
        # the list ends complete and in order: Ctrl+End goes to the last paper
        window.focus_list()
        table = window.table
        qtbot.keyClick(table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
        assert window.current_paper_id() == in_order[-1]
        assert window.model.row_of(in_order[-1]) == TOTAL - 1
        qtbot.keyClick(table, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
        assert window.current_paper_id() == in_order[0]
    finally:
        window.close()
        window.shutdown()


def test_a_header_sort_while_listing_reads_the_new_order_off_the_ui_thread(
        qtbot, tmp_path, seed_files, monkeypatch):
    from paperdesk.ui import create_main_window

    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files)
        by_title = lib.papers.scope_ids(Scope(), sort="title", descending=True)
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "s.ini"))
    try:
        window.show()
        qtbot.waitUntil(lambda: window.model.complete, timeout=WAIT_MS)
        window.focus_list()
        qtbot.keyClick(window.table, Qt.Key.Key_End,   # the last paper is current
                     Qt.KeyboardModifier.ControlModifier)
        last = window.current_paper_id()
        reads = _record_reads(monkeypatch)
        window.table.sortByColumn(PaperTableModel.TITLE, Qt.SortOrder.DescendingOrder)
        qtbot.waitUntil(lambda: window.model.ids() == by_title, timeout=WAIT_MS)
        assert reads and not any(on_ui for _limit, on_ui in reads)
        assert window.current_paper_id() == last       # the selection followed its paper
        assert window.table.currentIndex().row() == by_title.index(last)
    finally:
        window.close()
        window.shutdown()


class _ArgsortSpy:
    """numpy for paper_model, recording on which threads ``argsort`` runs (the row
    lookup of a list: about 0.1 s at a million rows)."""

    def __init__(self, real):
        self._real = real
        self.on_ui_thread = 0

    def __getattr__(self, name):
        return getattr(self._real, name)

    def argsort(self, *args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            self.on_ui_thread += 1
        return self._real.argsort(*args, **kwargs)


def test_typed_search_results_come_with_their_row_lookup_sorted_off_the_ui_thread(
        qtbot, win, monkeypatch):
    from paperdesk.ui.panes import paper_model

    spy = _ArgsortSpy(paper_model.np)
    monkeypatch.setattr(paper_model, "np", spy)
    window = win
    window.focus_search()
    qtbot.keyClicks(window.search_box, "model")
    qtbot.waitUntil(lambda: window.model.searching and window.search.results_complete
                    and not window.is_busy(), timeout=WAIT_MS)
    ids = window.model.ids()
    assert len(ids) == window.search.results.total > FIRST_ROWS / 10
    assert [window.model.row_of(pid) for pid in ids] == list(range(len(ids)))
    assert spy.on_ui_thread == 0
    # back to the list: its ids and lookup are read on the reader thread too
    qtbot.keyClick(window.search_box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window.search_box, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: not window.model.searching and window.model.complete
                    and window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    assert window.model.row_of(window.model.paper_id(TOTAL - 1)) == TOTAL - 1
    assert spy.on_ui_thread == 0


def test_what_the_window_keeps_is_left_out_of_full_collections_until_it_closes(
        qtbot, open_seeded):
    """Once built, the window moves every object there is out of the garbage collector's
    full passes (``gc.freeze``: at 300,000 papers a full pass over them took 40-60 ms on
    the UI thread while search results were painted), and gives them back when it
    closes (else the reference cycles of closed windows would never be collected)."""
    import gc

    gc.unfreeze()
    window = open_seeded()
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 10_000, timeout=WAIT_MS)
    window.close()
    window.shutdown()
    assert gc.get_freeze_count() == 0


def test_opening_counts_the_tags_papers_off_the_ui_thread(qtbot, tmp_path, seed_files,
                                                          monkeypatch):
    """The tags are listed at once (the 1-9 keys, the chips, the tag chosen last time),
    their papers counted on the reader thread: a pass over every tagging, 190 ms at
    300,000 papers with four tags on a third of them each."""
    from paperdesk.core.edits.annotations import Tags
    from paperdesk.ui import create_main_window
    from paperdesk.ui.panes.tag_pane import COUNT

    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files)
        ids = lib.papers.ids()
        lib.tags.add(ids[:40], "vision")
        lib.tags.add(ids[10:15], "theory")
        lib.tags.set_key(lib.tags.by_name("vision").id, 1)
    calls: list[tuple[bool, bool]] = []
    real_all = Tags.all

    def all_(self, count: bool = True):
        calls.append((count, threading.current_thread() is threading.main_thread()))
        return real_all(self, count)

    monkeypatch.setattr(Tags, "all", all_)
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "s.ini"))
    try:
        window.show()
        pane = window.tag_pane
        qtbot.waitUntil(lambda: all(t.count is not None for t in pane.tag_entries()),
                        timeout=WAIT_MS)
        assert (True, True) not in calls          # never counted on the UI thread
        assert (True, False) in calls
        counts = {t.name: t.count for t in pane.tag_entries()}
        assert counts == {"theory": 5, "vision": 40}
        vision = pane.tag_item(next(t.id for t in pane.tag_entries() if t.name == "vision"))
        assert vision.text(COUNT) == "40"
        assert "vision" in window.actions_by_name["toggleTag1Action"].text()
    finally:
        window.close()
        window.shutdown()


_FILL_THREADS = r"""
import os, sys
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QPainter
from paperdesk.ui.app.startup import ensure_app

def threads():
    return len(os.listdir("/proc/self/task"))

ensure_app()
before = threads()
image = QImage(1600, 1600, QImage.Format.Format_ARGB32_Premultiplied)
for i in range(20):
    painter = QPainter(image)
    painter.fillRect(QRect(0, 0, 1600, 1600), QColor(i, 80, 160, 200))
    painter.end()
print(before, threads())
"""


def test_the_windows_paints_stay_on_the_ui_thread(tmp_path):
    """Qt hands big fills to a pool of threads and waits for them: with the search and
    the background processes on the same 2 cores, the UI thread waited for those
    threads to be scheduled. The application is made with Qt's pool switched off
    (``startup.NO_GUI_THREADPOOL``): filling a large image starts no thread."""
    import subprocess
    import sys

    if not os.path.isdir("/proc/self/task"):
        pytest.skip("counting a process's threads needs /proc (Linux)")
    env = {k: v for k, v in os.environ.items() if k != "QT_NO_GUI_THREADPOOL"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run([sys.executable, "-c", _FILL_THREADS], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    before, after = map(int, done.stdout.split()[-2:])
    assert after == before, (before, after)
