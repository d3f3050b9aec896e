"""Browsable first in the window (issue 12, point 1): an import lists its papers as soon
as they are stored, and the search index catches up afterwards with "Indexing N of M"
(papers searchable of papers in the library) in the status bar; a search meanwhile says
it covered part of the library.

The index is held up by the test itself: ``SearchIndex.write`` waits for an event the
test sets (no sleeping, no timing)."""

from __future__ import annotations

import os
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from paperdesk.core.search.index import SearchIndex  # noqa: E402
from ui_fixtures import (drop_file, held_storing, TOTAL, WAIT_MS,  # noqa: E402,F401
                         open_seeded, win)

NEW = 300


def _file(tmp_path):
    path = tmp_path / "lattices.txt"
    path.write_text("Lattice Papers\n\n" + "\n\n".join(
        f"We study woven lattice number {i} and its radiant depth; experiments on "
        f"benchmark {i % 11} show lattices of order {i} converge." for i in range(NEW))
        + "\n", encoding="utf-8")
    return path


@pytest.fixture
def held_index(monkeypatch):
    """Index writes wait until the test sets the returned event (set at teardown too)."""
    release = threading.Event()
    real_write = SearchIndex.write

    def write(self, *args, **kwargs):
        release.wait(3 * WAIT_MS / 1000)     # longer than any wait of the test
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "write", write)
    yield release
    release.set()


def test_imported_papers_are_listed_before_the_index_catches_up(qtbot, win, tmp_path,
                                                                held_index):
    assert win.model.rowCount() == TOTAL
    drop_file(win, _file(tmp_path))
    # listed once stored, while no index write has gone through
    qtbot.waitUntil(lambda: win.model.rowCount() == TOTAL + NEW, timeout=WAIT_MS)
    assert not held_index.is_set()
    bar = win.progress_bar
    qtbot.waitUntil(lambda: bar.isVisible()
                    and bar.format() == f"Indexing {TOTAL} of {TOTAL + NEW:,}",
                    timeout=WAIT_MS)
    assert win.cancel_button.isVisible() and win.cancel_button.isEnabled()
    # the new papers can be read meanwhile
    win.focus_list()
    new_ids = set(win.lib.papers.ids()[TOTAL:])
    for key in (Qt.Key.Key_Home, Qt.Key.Key_End):    # Ctrl+Home/End: the list's ends
        qtbot.keyClick(win.table, key, Qt.KeyboardModifier.ControlModifier)
        if win.current_paper_id() in new_ids:
            break
    shown = win.current_paper_id()
    assert shown in new_ids
    qtbot.waitUntil(lambda: win.detail_pane.paper_id == shown, timeout=WAIT_MS)
    assert "woven lattice" in win.detail_pane.title_label.text().lower()
    # a search says it covered part of the library
    win.focus_search()
    qtbot.keyClicks(win.search_box, "lattice")
    note = f"searched {TOTAL} of {TOTAL + NEW:,} papers"
    qtbot.waitUntil(lambda: note in win.status_label.text(), timeout=WAIT_MS)
    assert win.search.results.total == 1         # the one seed paper on lattices, indexed
    # the index catches up: the search is run again, over every paper
    held_index.set()
    qtbot.waitUntil(lambda: win.search.results is not None and not win.search.results.partial
                    and win.search.results.total > NEW and not win.is_busy(), timeout=WAIT_MS)
    assert "searched" not in win.status_label.text()
    assert not bar.isVisible()
    assert win.index_status is not None and win.index_status.complete


def test_a_window_opened_on_unindexed_papers_lists_them_and_indexes_in_the_background(
        qtbot, tmp_path, held_index, seed_files):
    from paperdesk.core.library import Library
    from paperdesk.ui import create_main_window
    from ui_fixtures import make_settings

    with Library.open(tmp_path / "lib") as lib:   # e.g. Ctrl+C while `import` indexed
        lib.imports.run(seed_files, sync=False)
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "s.ini"))
    try:
        window.show()
        qtbot.waitExposed(window)
        # opened without indexing first (the list's ids read on the reader thread)
        qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: window.progress_bar.isVisible()
                        and window.progress_bar.format() == f"Indexing 0 of {TOTAL}",
                        timeout=WAIT_MS)
        held_index.set()
        qtbot.waitUntil(lambda: not window.is_busy() and not window.progress_bar.isVisible()
                        and window.lib.index.status().complete, timeout=WAIT_MS)
    finally:
        held_index.set()
        window.close()
        window.shutdown()


def test_a_long_import_lists_the_papers_stored_so_far(qtbot, win, tmp_path, monkeypatch,
                                                     held_storing):
    monkeypatch.setattr(type(win), "LIST_REFRESH_S", 0.0)     # at every batch
    go_on = held_storing        # the import stops after its first 100 abstracts
    try:
        drop_file(win, _file(tmp_path))
        qtbot.waitUntil(lambda: win.model.rowCount() == TOTAL + 100, timeout=WAIT_MS)
        assert win.import_runner.is_running()         # listed while the import goes on
    finally:
        go_on.set()
    qtbot.waitUntil(lambda: win.model.rowCount() == TOTAL + NEW
                    and not win.import_runner.is_running(), timeout=WAIT_MS)


def test_the_last_batch_before_an_import_pauses_is_listed_when_its_refresh_is_due(
        qtbot, win, tmp_path, held_storing):
    # ci (stop 42): the second batch came before the spacing allowed another refresh
    # (LIST_REFRESH_S, the default 3 s here, or ten times the last read) and the import
    # then paused: the list kept the first batch only, however long it waited
    go_on = held_storing        # the import stops after its first 100 abstracts
    try:
        drop_file(win, _file(tmp_path))
        qtbot.waitUntil(lambda: win.model.rowCount() == TOTAL + 100, timeout=WAIT_MS)
        assert win.import_runner.is_running()
    finally:
        go_on.set()
    qtbot.waitUntil(lambda: win.model.rowCount() == TOTAL + NEW
                    and not win.import_runner.is_running(), timeout=WAIT_MS)


def test_a_search_note_follows_the_index_and_goes_when_it_has_every_paper(
        qtbot, win, tmp_path, monkeypatch):
    # issue 25 item 13: "searched 8,337 of 20,337" lagged the progress bar and stayed
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 100)   # 3 batches
    monkeypatch.setattr(type(win.search), "FOLLOW_INDEX_S", 0.0, raising=False)
    writes = threading.Semaphore(0)      # each index write waits for one release
    real_write = SearchIndex.write

    def write(self, *args, **kwargs):
        writes.acquire(timeout=3 * WAIT_MS / 1000)
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "write", write)
    try:
        drop_file(win, _file(tmp_path))
        bar = win.progress_bar
        qtbot.waitUntil(lambda: bar.isVisible()
                        and bar.format() == f"Indexing {TOTAL} of {TOTAL + NEW:,}",
                        timeout=WAIT_MS)
        win.focus_search()
        qtbot.keyClicks(win.search_box, "lattice")
        qtbot.waitUntil(lambda: f"searched {TOTAL} of {TOTAL + NEW:,} papers"
                        in win.status_label.text(), timeout=WAIT_MS)
        writes.release()            # one batch of 100 goes into the index
        qtbot.waitUntil(lambda: f"searched {TOTAL + 100} of {TOTAL + NEW:,} papers"
                        in win.status_label.text(), timeout=WAIT_MS)
        assert bar.format() == f"Indexing {TOTAL + 100} of {TOTAL + NEW:,}"
        assert win.search.results.total > 100       # the new papers' matches are listed
        for _ in range(NEW // 100):
            writes.release()
        qtbot.waitUntil(lambda: not bar.isVisible() and not win.is_busy(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: "searched" not in win.status_label.text(), timeout=WAIT_MS)
        assert win.search.results.total > NEW and not win.search.results.partial
    finally:
        for _ in range(10):
            writes.release()
