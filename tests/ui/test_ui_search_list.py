"""The search list holds ids; rows and snippets are read for the rows on show only, off
the UI thread for snippets; a tag chosen in the tag pane is applied inside the search; the
tag pane's counts follow a star or a tag without counting everything again (issue 12,
point 4). Keys are sent with qtbot; nothing here is timed."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from paperdesk.core.scope import Scope
from paperdesk.ui.background import workers
from paperdesk.ui.panes import paper_model
from paperdesk.ui.panes.paper_model import SNIPPET_PLACEHOLDER, PaperTableModel
from ui_fixtures import TOTAL, WAIT_MS, open_seeded, settle, win  # noqa: F401

SMALL = 10   # rows per block and first page in these tests, so 225 hits are many blocks


def _click(qtbot, pane, item) -> None:
    rect = pane.visualItemRect(item)
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def _type_search(qtbot, window, text: str) -> None:
    window.search_box.clear()
    window.focus_search()
    qtbot.keyClicks(window.search_box, text)
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy()
                    and window.search.results is not None and window.search.results.query == text,
                    timeout=WAIT_MS)


def _snippet_cell(window, row: int) -> str:
    return window.model.index(row, PaperTableModel.SNIPPET).data()


@pytest.fixture
def spied(win, monkeypatch):
    """The window with small blocks, and a record of the rows and snippets the core was
    asked for: ``(thread is the UI thread, ids)`` per call."""
    monkeypatch.setattr(paper_model, "BLOCK", SMALL)
    monkeypatch.setattr(workers, "FIRST_PAGE", SMALL)
    lib = win.lib
    calls = {"summaries": [], "snippets": []}
    owners = {"summaries": lib.papers, "snippets": lib.search}
    for name in calls:
        real = getattr(owners[name], name)

        def spy(*args, _real=real, _name=name, **kwargs):
            ids = list(args[-1] if args else kwargs.get("ids", ()))
            calls[_name].append((threading.current_thread() is threading.main_thread(),
                                 ids))
            return _real(*args, **kwargs)

        monkeypatch.setattr(owners[name], name, spy)
    return win, calls


def test_the_list_holds_every_hit_and_reads_rows_and_snippets_of_the_rows_on_show(
        qtbot, spied):
    window, calls = spied
    _type_search(qtbot, window, "is:unread")          # every paper matches
    model = window.model
    assert model.rowCount() == TOTAL
    assert sorted(model.ids()) == sorted(window.lib.papers.ids())
    settle(qtbot, window)
    rows_read = [pid for _ui, ids in calls["summaries"] for pid in ids]
    assert rows_read and all(len(ids) <= SMALL for _ui, ids in calls["summaries"])
    assert len(set(rows_read)) < TOTAL // 2          # the rows on show, not all hits
    assert all(not ui for ui, _ids in calls["snippets"])    # cut on the reader thread
    cut = {pid for _ui, ids in calls["snippets"] for pid in ids}
    last = model.paper_id(TOTAL - 1)
    assert last not in cut and len(cut) < TOTAL // 2

    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_End)        # to the last hit
    qtbot.waitUntil(lambda: _snippet_cell(window, TOTAL - 1) != SNIPPET_PLACEHOLDER,
                    timeout=WAIT_MS)
    expected = window.lib.search.snippets("is:unread", [last])[last][0]
    assert model.snippet(last) == expected
    assert any(last in ids and not ui for ui, ids in calls["snippets"])
    assert all(len(ids) <= SMALL for _ui, ids in calls["snippets"])


def test_a_snippet_cell_shows_a_placeholder_until_its_snippet_arrives(qtbot, win):
    window = win
    _type_search(qtbot, window, "model")
    model = window.model
    asked = []
    model.set_snippet_fetcher(lambda query, ids, deliver: asked.append((query, ids,
                                                                        deliver)))
    results = window.lib.search.find("model", limit=3)
    model.show_results(results, scope=Scope())
    assert model.rowCount() == results.total > 3
    assert _snippet_cell(window, 0)                      # from the search itself
    row = results.total - 1
    assert _snippet_cell(window, row) == SNIPPET_PLACEHOLDER
    assert model.index(row, PaperTableModel.SNIPPET).data(paper_model.SpansRole) is None
    assert len(asked) == 1 and asked[0][0] == "model"
    query, ids, deliver = asked[0]
    assert model.paper_id(row) in ids and len(ids) <= paper_model.BLOCK
    assert _snippet_cell(window, row) == SNIPPET_PLACEHOLDER and len(asked) == 1
    changed = []
    model.dataChanged.connect(lambda a, b, roles=(): changed.append((a.row(), b.row())))
    deliver(window.lib.search.snippets(query, ids))
    text = _snippet_cell(window, row)
    assert text and text != SNIPPET_PLACEHOLDER and changed
    spans = model.index(row, PaperTableModel.SNIPPET).data(paper_model.SpansRole)
    assert spans and all(text[s:e].lower().startswith("model") for s, e in spans)
    # a late answer for rows of an older search is dropped
    model.show_results(window.lib.search.find("depth", limit=1), scope=Scope())
    before = _snippet_cell(window, 1)
    deliver({pid: ("stale", ()) for pid in ids})
    assert _snippet_cell(window, 1) == before != "stale"


def test_a_tag_chosen_in_the_tag_pane_filters_inside_the_search(qtbot, win):
    window, lib = win, win.lib
    ids = lib.papers.ids()
    lib.tags.add(ids[::4], "quarter")
    window.worker.read(lambda lib: lib.tags.all(), on_done=window._show_tags)
    settle(qtbot, window)
    tag = lib.tags.by_name("quarter")
    _click(qtbot, window.tag_pane, window.tag_pane.tag_item(tag.id))
    qtbot.waitUntil(lambda: window.current_scope() == Scope(tag_id=tag.id), timeout=WAIT_MS)
    _type_search(qtbot, window, "learning")
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)   # index caught up
    _type_search(qtbot, window, "learn")   # the masks of the library as it is now
    tagged = set(lib.papers.ids(tag_id=tag.id))
    queries = ("model", "depth estimation", "transformer")
    expected = {q: [h.id for h in lib.search.find(q, limit=None).hits if h.id in tagged]
                for q in queries}
    built = lib.masks.builds
    for query in queries:
        _type_search(qtbot, window, query)
        assert window.model.ids() == expected[query] and expected[query]
        assert window.status_text().endswith("tag “quarter”")
    # typing in the same scope read no ids from SQLite: the tag's mask was built once
    assert lib.masks.builds == built


def test_a_star_or_a_tag_updates_the_counts_without_counting_everything(qtbot, win,
                                                                        monkeypatch):
    window, lib = win, win.lib
    pane = window.tag_pane
    lib.tags.create("keyed", key=1)
    window.worker.read(lambda lib: lib.tags.all(), on_done=window._show_tags)
    settle(qtbot, window)
    asked = []
    real_counts, real_tags = lib.papers.filter_counts, lib.tags.all
    monkeypatch.setattr(lib.papers, "filter_counts",
                        lambda only=None: asked.append(("filters", only))
                        or real_counts(only))
    monkeypatch.setattr(lib.tags, "all", lambda: asked.append(("tags",)) or real_tags())
    window.focus_list()
    window.select_row(2)
    qtbot.keyClick(window.table, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: dict((f, n) for f, _l, n in pane.filter_entries())["starred"]
                    == 1, timeout=WAIT_MS)
    settle(qtbot, window)
    qtbot.wait(100)
    assert asked == []      # a star adds to the counts shown: Changes.filter_deltas

    asked.clear()
    qtbot.keyClick(window.table, Qt.Key.Key_1)          # the tag bound to 1
    qtbot.waitUntil(lambda: [t.count for t in pane.tag_entries()
                             if t.name == "keyed"] == [1], timeout=WAIT_MS)
    settle(qtbot, window)
    counts = {f: n for f, _l, n in pane.filter_entries()}
    assert counts["untagged"] == TOTAL - 1 and counts["starred"] == 1
    # the tag's count follows the toggle without reading every tag's count again
    assert asked == [("filters", ("untagged",))]

    asked.clear()
    window.focus_search()
    qtbot.keyClicks(window.search_box, "model")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(),
                    timeout=WAIT_MS)
    assert ("filters", None) not in asked               # a search counts no filter again


def test_stars_pressed_while_the_counts_are_read_are_counted_by_one_more_read(
        qtbot, win, monkeypatch):
    """A tag toggle asks for the scope's counts (every paper counted: about a second at
    a million, on the reader thread). Stars pressed while a count is on its way cannot
    be added to the counts shown (the read may have counted before them): they wait for
    it and are counted together by one more read, instead of one full count each (an
    import with a star every 300 ms kept the reader counting and the import slowed)."""
    import threading

    window, lib = win, win.lib
    pane = window.tag_pane
    lib.tags.create("keyed", key=1)
    window.worker.read(lambda lib: lib.tags.all(), on_done=window._show_tags)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: any(t.key == 1 for t in pane.tag_entries()), timeout=WAIT_MS)
    started, release = threading.Event(), threading.Event()
    asked = []
    real_counts = lib.papers.filter_counts

    def slow_counts(only=None):
        asked.append(only)
        if len(asked) == 1:
            started.set()
            release.wait(20)        # the first count takes long
        return real_counts(only)

    monkeypatch.setattr(lib.papers, "filter_counts", slow_counts)
    window.focus_list()
    window.select_row(0)
    qtbot.keyClick(window.table, Qt.Key.Key_1)
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    for row in (1, 2, 3, 4):            # four stars while it counts
        window.select_row(row)
        qtbot.keyClick(window.table, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: real_counts(("starred",))["starred"] == 4, timeout=WAIT_MS)
    qtbot.wait(200)                     # the changes reach the window
    release.set()
    qtbot.waitUntil(lambda: dict((f, n) for f, _l, n in pane.filter_entries())["starred"]
                    == 4, timeout=WAIT_MS)
    settle(qtbot, window)
    # one read after the slow one (two if the last star's change came after it was
    # sent), not one per star (four)
    assert 2 <= len(asked) <= 3 and asked[0] == ("untagged",), asked
    assert set(asked[1:]) == {("starred",)}, asked
