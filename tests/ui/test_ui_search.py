"""GUI tests of searching: any input is safe, counts and messages in the status bar,
sorting in the worker, highlighting of every hit, "Did you mean", the search-syntax help
and saved searches with live counts. A real window on a copy of the seed library,
offscreen."""

from __future__ import annotations

import functools
import sys
import threading

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from paperdesk.core.models import SearchHit, SearchResults
from paperdesk.core.search.index import match_spans
from paperdesk.core.text import find_urls
from paperdesk.ui.panes.paper_model import SNIPPET_PLACEHOLDER, PaperTableModel
from paperdesk.ui.style.colours import SEARCH_HIT_LIGHT
from paperdesk.core.scope import Scope
from paperdesk.ui.window.search_help import SEARCH_SYNTAX, SearchHelpDialog
from paperdesk.ui.background import workers
from paperdesk.ui.background.workers import FIRST_PAGE
from ui_fixtures import marked_fragments, ui_thread_guard  # noqa: E402,F401
from ui_fixtures import (TOTAL, WAIT_MS, open_seeded, press, settle, wait_idle,  # noqa: F401
                         win)

HIGHLIGHT = "background-color:" + SEARCH_HIT_LIGHT[0]


def _search(qtbot, window, text: str, type_it: bool = True) -> None:
    """Type (or paste) ``text`` into the search box and wait for its complete results."""
    box = window.search_box
    box.clear()
    window.focus_search()
    if type_it:
        qtbot.keyClicks(box, text)
    else:
        box.setText(text)
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy()
                    and window.search.results is not None
                    and window.search.results.query == text.strip(),
                    timeout=WAIT_MS)


@pytest.fixture(autouse=True)
def excepthook(monkeypatch):
    """Record anything that reaches ``sys.excepthook`` (an exception raised in a Qt slot
    or virtual method); the test fails at teardown if anything did."""
    seen = []
    monkeypatch.setattr(sys, "excepthook", lambda *info: seen.append(info))
    yield seen
    assert seen == [], [f"{info[0].__name__}: {info[1]}" for info in seen]


def _answer_dialogs(monkeypatch, *answers):
    """Make ``QInputDialog.getText`` return ``answers`` in turn; record the prompts."""
    prompts = []
    queue = list(answers)

    def fake(parent, title, label, echo=None, text="", *args, **kwargs):
        prompts.append((title, label, text))
        return (queue.pop(0), True) if queue else ("", False)

    monkeypatch.setattr(QInputDialog, "getText", staticmethod(fake))
    return prompts


# -- 2. any input is safe ----------------------------------------------------------------
ODD_INPUT = {
    '"unbalanced': "nothing contains",
    "(depth": "match",
    "depth AND": "match",
    "OR": "nothing to search for",
    "*": "ignored",
    "title:": "match",
    "C": "match",
    "C++": "match",
    "*ase": "ignored",
}


def test_any_input_gives_results_or_a_calm_message(qtbot, win, excepthook):
    window = win
    for text, expected in ODD_INPUT.items():
        _search(qtbot, window, text)
        status = window.status_text()
        assert status.startswith(f"{window.search.results.total} of {TOTAL} match"), (text, status)
        assert expected in status, (text, status)
        assert "Traceback" not in status and "failed" not in status, (text, status)
        assert window.model.rowCount() == window.search.results.total
    # the messages of the core reach the status bar
    _search(qtbot, window, "*ase")
    assert "“*ase” ignored: a word cannot start with * or ?" in window.status_text()
    assert excepthook == []


def test_a_pasted_20000_character_query_is_refused_politely(qtbot, win, excepthook,
                                                            ui_thread_guard):
    window = win
    huge = "pruning " * 2500
    assert len(huge) >= 20000
    wait_idle(qtbot, window)
    ui_thread_guard.arm(window)
    window.search_box.setText(huge)          # paste: one textChanged
    QApplication.processEvents()
    ui_thread_guard.check()                   # the UI thread did not search (it was timed)
    qtbot.waitUntil(lambda: window.search.results is not None and not window.is_busy(),
                    timeout=WAIT_MS)
    status = window.status_text()
    assert status.startswith(f"0 of {TOTAL} match")
    assert "Query too long" in status and len(status) < 300
    # the window is no wider than before and still answers events at once
    assert window.width() <= 1280
    fired = []
    QTimer.singleShot(0, lambda: fired.append(True))
    qtbot.waitUntil(lambda: bool(fired), timeout=1000)
    window.search_box.clear()
    qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    assert excepthook == []


def test_typing_stays_responsive_and_only_the_last_query_counts(qtbot, win, excepthook,
                                                               ui_thread_guard):
    window = win
    wait_idle(qtbot, window)
    window.focus_search()
    ui_thread_guard.arm(window)
    for ch in "depth estimation transformer":
        qtbot.keyClick(window.search_box, ch)
    ui_thread_guard.check()                   # no search ran in the UI thread (it was timed)
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=WAIT_MS)
    ui_thread_guard.check()
    assert window.search.results.query == "depth estimation transformer"
    with ui_thread_guard.allowed():
        expected = window.lib.search.find("depth estimation transformer", limit=None)
    assert window.model.ids() == [h.id for h in expected.hits]
    assert excepthook == []


def test_a_search_is_one_pass_in_the_worker_with_ids_for_every_match(qtbot, win,
                                                                     monkeypatch):
    """One ``find`` per query, on the search thread, builds rows for the first page only;
    the list still holds every match (ids), and no second full pass with snippets runs."""
    window = win
    calls = []
    real_find = window.lib.search.find

    def spy(query, **kwargs):
        calls.append((threading.current_thread() is threading.main_thread(), kwargs))
        return real_find(query, **kwargs)

    monkeypatch.setattr(window.lib.search, "find", spy)
    delivered = []
    window.search_runner.resultsReady.connect(
        lambda gen, results, complete: delivered.append(
            (complete, len(results.hits), results.total, results.total_exact)))
    _search(qtbot, window, "is:unread", type_it=False)    # every paper (none read yet)
    search_calls = [c for c in calls if c[1].get("limit") != 1]
    assert TOTAL > FIRST_PAGE
    assert [kw["limit"] for _in_ui, kw in search_calls] == [FIRST_PAGE]
    assert not any(in_ui for in_ui, _kw in search_calls)
    assert delivered == [(True, FIRST_PAGE, TOTAL, True)]
    assert window.model.rowCount() == TOTAL
    assert sorted(window.model.ids()) == sorted(window.lib.papers.ids())
    assert window.status_text() == f"{TOTAL} of {TOTAL} match"


def test_a_large_search_lists_its_best_matches_first_then_every_match_in_order(
        qtbot, win, monkeypatch):
    """Issue 28: only the best matches are ranked before the list shows a search (the
    sort of every match was most of a common word's search at a million abstracts); the
    rest are ranked right after on the search thread, and the list then holds every
    match in the order of ranking them all at once."""
    window = win
    monkeypatch.setattr(workers, "RANKED_FIRST", 7)   # below the first page: 60 ranked
    query = "learning OR model OR network"
    seen = []
    window.search_runner.resultsReady.connect(
        lambda gen, results, complete: seen.append(
            (complete, len(results.ids), results.total, window.model.rowCount(),
             window.status_text())))
    _search(qtbot, window, query)
    expected = window.lib.search.find(query, limit=None)
    assert expected.total > FIRST_PAGE
    assert [s[:4] for s in seen[-2:]] == [
        (False, FIRST_PAGE, expected.total, FIRST_PAGE),
        (True, expected.total, expected.total, expected.total)]
    assert f"listing the best {FIRST_PAGE}, loading the rest" in seen[-2][4]
    assert "loading" not in seen[-1][4]
    assert window.model.ids() == expected.ids.tolist()
    assert window.model.paper_id(0) == expected.hits[0].id


def test_every_match_goes_below_the_best_ones_without_listing_them_again(
        qtbot, win, monkeypatch):
    """Issue 28: when every match comes after the best ones, the rows listed are its
    start: the rest are added below them (no model reset), so the rows on screen keep
    their rows read, their snippets and the selection, and are not painted again (a
    screenful of paints and a read of its rows, twice a query before)."""
    window = win
    monkeypatch.setattr(workers, "RANKED_FIRST", 7)
    query = "learning OR model OR network"
    events = []
    model = window.model
    model.modelReset.connect(lambda: events.append(("reset", model.rowCount())))
    model.rowsInserted.connect(lambda _p, first, last: events.append(("added", first, last)))
    reads = []
    real_read = window._read_rows
    monkeypatch.setattr(window, "_read_rows", lambda ids, deliver: reads.append(
        len(events)) or real_read(ids, deliver))
    model.set_row_fetcher(window._read_rows)
    chosen = []
    window.search_runner.resultsReady.connect(
        lambda gen, results, complete: chosen.append((complete, window.current_paper_id())))
    made_on = []    # the ids as Python ints (840,000 at a million: 20-30 ms): which thread
    real_id_list = SearchResults.id_list.func

    def id_list(self):
        made_on.append(threading.current_thread() is threading.main_thread())
        return real_id_list(self)

    prop = functools.cached_property(id_list)
    monkeypatch.setattr(SearchResults, "id_list", prop)
    prop.__set_name__(SearchResults, "id_list")
    _search(qtbot, window, query)
    expected = window.lib.search.find(query, limit=None)
    assert expected.total > FIRST_PAGE
    first_reset = max(i for i, e in enumerate(events) if e[0] == "reset")
    assert events[first_reset:] == [("reset", FIRST_PAGE),
                                    ("added", FIRST_PAGE, expected.total - 1)]
    assert model.ids() == expected.ids.tolist()
    assert len(reads) == 1          # the rows on screen: read once
    assert made_on and not any(made_on)     # never on the UI thread
    assert chosen[-1] == (True, chosen[-2][1]) and chosen[-1][1] == expected.hits[0].id
    assert window.status_text() == f"{expected.total} of {TOTAL} match"


def test_an_estimated_total_says_about(qtbot, win):
    window = win
    window.search_box.blockSignals(True)
    window.search_box.setText("depth")
    window.search_box.blockSignals(False)
    ids = window.lib.papers.ids()[:3]
    hits = [SearchHit(i, "t", 1.0, "depth", ((0, 5),)) for i in ids]
    window.search.show_results(window.search_runner.generation,
                       SearchResults("depth", hits, 40, total_exact=False), False)
    assert window.status_text().startswith(f"about 40 of {TOTAL} match — listing the best 3")
    window.search.show_results(window.search_runner.generation,
                       SearchResults("depth", hits, 3, total_exact=True), True)
    assert window.status_text() == f"3 of {TOTAL} match"


# -- 3. results: order, snippets, highlighting ---------------------------------------------
def test_header_clicks_sort_in_the_worker_and_snippet_returns_to_relevance(qtbot, win,
                                                                           monkeypatch):
    window, lib = win, win.lib
    _search(qtbot, window, "language")
    relevance = [h.id for h in lib.search.find("language", limit=None).hits]
    assert window.model.ids() == relevance
    header = window.table.horizontalHeader()
    assert "best matches first" in window.model.headerData(
        PaperTableModel.SNIPPET, Qt.Orientation.Horizontal)

    sorts = []
    real_find = lib.search.find
    monkeypatch.setattr(lib.search, "find", lambda q, **kw: (sorts.append(
        (kw.get("sort"), threading.current_thread() is threading.main_thread())),
        real_find(q, **kw))[1])

    def click(column):
        x = header.sectionViewportPosition(column) + 10
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                         pos=QPoint(x, header.height() // 2))

    click(PaperTableModel.ADDED)
    by_added = [h.id for h in real_find("language", limit=None, sort="added").hits]
    qtbot.waitUntil(lambda: window.model.ids() == by_added and not window.is_busy(),
                    timeout=WAIT_MS)
    assert ("added", False) in sorts                # sorted by lib.search.find, in the worker
    assert window.model.headerData(PaperTableModel.SNIPPET,
                                   Qt.Orientation.Horizontal) == "Snippet"
    assert "best matches first" in window.model.headerData(
        PaperTableModel.SNIPPET, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    click(PaperTableModel.ADDED)                    # again: newest first
    newest = [h.id for h in real_find("language", limit=None, sort="added",
                                      descending=True).hits]
    qtbot.waitUntil(lambda: window.model.ids() == newest and not window.is_busy(),
                    timeout=WAIT_MS)
    click(PaperTableModel.TITLE)
    by_title = [h.id for h in real_find("language", limit=None, sort="title").hits]
    qtbot.waitUntil(lambda: window.model.ids() == by_title and not window.is_busy(),
                    timeout=WAIT_MS)
    # refining the query keeps the order
    window.search_box.setText("language model")
    refined = [h.id for h in real_find("language model", limit=None, sort="title").hits]
    qtbot.waitUntil(lambda: window.model.ids() == refined and not window.is_busy(),
                    timeout=WAIT_MS)
    click(PaperTableModel.SNIPPET)                  # back to relevance
    best = [h.id for h in real_find("language model", limit=None).hits]
    qtbot.waitUntil(lambda: window.model.ids() == best and not window.is_busy(),
                    timeout=WAIT_MS)
    assert all(not in_ui for _sort, in_ui in sorts)
    assert window.status_text() == f"{len(best)} of {TOTAL} match"


def test_every_row_has_a_snippet_with_the_match(qtbot, win):
    window = win
    _search(qtbot, window, "transf*")
    assert window.model.rowCount() > 5
    # rows past the first page get their snippets when asked for (on the reader thread)
    qtbot.waitUntil(lambda: all(
        window.model.index(r, PaperTableModel.SNIPPET).data() != SNIPPET_PLACEHOLDER
        for r in range(window.model.rowCount())), timeout=WAIT_MS)
    for row in range(window.model.rowCount()):
        index = window.model.index(row, PaperTableModel.SNIPPET)
        text = index.data()
        spans = index.data(Qt.ItemDataRole.UserRole + 2)
        if spans:
            assert all(text[s:e].lower().startswith("transf") for s, e in spans)
    with_spans = sum(bool(window.model.index(r, PaperTableModel.SNIPPET).data(
        Qt.ItemDataRole.UserRole + 2)) for r in range(window.model.rowCount()))
    assert with_spans >= window.model.rowCount() - 2   # title-only matches have none


@pytest.mark.parametrize("query", ["transf*", "netwrk~", '"depth delusion"', "scaling laws",
                                   '"language model" NOT pruning'])
def test_detail_pane_marks_exactly_what_the_core_matched(qtbot, win, query):
    window, lib = win, win.lib
    _search(qtbot, window, query)
    assert window.model.rowCount() > 0
    window.select_row(0)
    # (the paper is read off the UI thread)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == window.current_paper_id(),
                    timeout=WAIT_MS)
    paper = lib.papers.get(window.current_paper_id())
    expected = match_spans(paper.abstract, lib.search.match_terms(query))
    assert expected
    urls = [(s, e) for s, e, url in find_urls(paper.abstract)
            if url.lower().startswith(("http://", "https://"))]
    expected = [(s, e) for s, e in expected if not any(us <= s < ue for us, ue in urls)]
    # every marked piece of the abstract is a matched word, and every match is marked
    marked = marked_fragments(window)
    assert marked == [paper.abstract[s:e] for s, e in expected]
    # the title is marked the same way
    title_words = [paper.title[s:e] for s, e in match_spans(paper.title, lib.search.match_terms(query))]
    title_html = window.detail_pane.title_label.text()
    assert title_html.count(SEARCH_HIT_LIGHT[0]) == len(title_words)


def test_phrases_mark_words_as_written(qtbot, win):
    window, lib = win, win.lib
    _search(qtbot, window, '"Depth Delusion"')
    window.select_row(0)
    terms = window.detail_pane.match_terms
    assert terms is not None and ("depth", "delusion") in terms.phrases
    paper = lib.papers.get(window.current_paper_id())
    marked = [paper.abstract[s:e].lower() for s, e in match_spans(paper.abstract, terms)]
    assert set(marked) <= {"depth", "delusion"}      # not "depths": a phrase is exact


def test_note_hits_are_marked_too_and_marks_never_save(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    note = window.detail_pane.note_editor
    note.setPlainText("Transformers transfer well.\nSee also: nothing here.\n"
                      "🙂 transformer again")
    note.flush()
    wait_idle(qtbot, window)
    assert lib.papers.get(pid).note.startswith("Transformers")
    undo_steps = len(window.lib.undo_stack)
    _search(qtbot, window, "transf* OR note:transformers")
    window.select_row(window.model.row_of(pid))
    assert note.paper_id == pid

    def marked_words():
        out = []
        block = note.document().firstBlock()
        while block.isValid():
            for r in block.layout().formats():
                if r.format.background().color().name() == SEARCH_HIT_LIGHT[0]:
                    units = block.text().encode("utf-16-le")
                    out.append(units[2 * r.start:2 * (r.start + r.length)].decode("utf-16-le"))
            block = block.next()
        return out

    qtbot.waitUntil(lambda: marked_words() != [], timeout=3000)
    assert marked_words() == ["Transformers", "transfer", "transformer"]
    qtbot.wait(600)                                  # longer than the autosave delay
    assert len(window.lib.undo_stack) == undo_steps   # marking is not an edit
    assert not note.is_dirty()
    window.search_box.clear()
    qtbot.waitUntil(lambda: not window.model.searching, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: marked_words() == [], timeout=3000)


# -- did you mean ----------------------------------------------------------------------------
def test_did_you_mean_applies_with_a_click_or_ctrl_enter(qtbot, win):
    window = win
    _search(qtbot, window, "optimzer")
    assert window.model.rowCount() == 0
    assert window.search.suggestion() == "optimizer"
    label = window.suggestion_label
    assert label.isVisible() and "optimizer" in label.text()
    assert "nothing contains “optimzer”" in window.status_text()
    label.linkActivated.emit("suggestion")          # what a click on the link does
    qtbot.waitUntil(lambda: window.model.rowCount() > 0 and not window.is_busy(),
                    timeout=WAIT_MS)
    assert window.search_box.text() == "optimizer"
    assert not label.isVisible()

    _search(qtbot, window, "depth estimaton")
    assert window.search.suggestion() == "depth estimation"
    qtbot.keyClick(window.search_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.search_box.text() == "depth estimation"
                    and window.model.rowCount() > 0 and not window.is_busy(), timeout=WAIT_MS)
    assert window.focusWidget() is window.search_box
    # markup in a suggestion would be shown literally (the label escapes it)
    window.search.show_suggestion(SearchResults("x", [], 0, suggestion="<b>bold</b> & co"))
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in window.suggestion_label.text()


# -- 1. help ------------------------------------------------------------------------------------
def test_search_syntax_help_from_f1_in_the_box_the_menu_and_the_button(qtbot, win):
    window = win
    window.focus_search()
    qtbot.keyClick(window.search_box, Qt.Key.Key_F1)
    dialog = window.findChild(SearchHelpDialog, "searchHelpDialog")
    assert dialog is not None and dialog.isVisible()
    text = dialog.text()
    for piece in ('"depth delusion"', " OR ", "NOT", "-video", "transf*", "netwrk~",
                  "title:", "note:", "tag:", "source:", "is:unread", "has:code",
                  "has:note"):
        assert piece in text, piece
    assert window._shortcuts_dialog is None            # F1 in the box is the syntax
    dialog.close()
    window.actions_by_name["searchHelpAction"].trigger()
    assert dialog.isVisible()
    dialog.exampleChosen.emit(SEARCH_SYNTAX[5][0])      # clicking an example tries it
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=WAIT_MS)
    assert window.search_box.text() == "transf*" and window.model.rowCount() > 0
    dialog.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.focus_list()
    press(qtbot, window, Qt.Key.Key_F1)                 # elsewhere F1 lists the keys
    assert window._shortcuts_dialog is not None and window._shortcuts_dialog.isVisible()
    window.search_help_button.trigger()
    assert dialog.isVisible()
    assert "F1" in window.search_box.toolTip() and "tag:" in window.search_box.toolTip()


# -- 4. saved searches ---------------------------------------------------------------------------
def _saved(window):
    return {name: (query, count) for name, query, count in window.tag_pane.saved_entries()}


def test_save_search_with_ctrl_s_lists_it_with_a_count(qtbot, win, monkeypatch):
    window, lib = win, win.lib
    prompts = _answer_dialogs(monkeypatch, "Pruning papers")
    window.focus_search()
    qtbot.keyClick(window.search_box, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert prompts == []                                # nothing typed: only a hint
    assert "Type a search first" in window.statusBar().currentMessage()
    _search(qtbot, window, "pruning")
    qtbot.keyClick(window.search_box, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    assert prompts and prompts[0][2] == "pruning"       # the query is the default name
    assert [s.name for s in lib.saved_searches.all()] == ["Pruning papers"]
    expected = lib.search.find("pruning", limit=1).total
    qtbot.waitUntil(lambda: _saved(window).get("Pruning papers") == ("pruning", expected),
                    timeout=WAIT_MS)
    item = window.tag_pane.saved_item("pruning papers")
    assert item is not None and item.text(2) == str(expected)
    assert "Ctrl+Z" in window.edit_label.full_text


def test_ctrl_s_in_the_note_saves_the_note_not_a_search(qtbot, win, monkeypatch):
    window, lib = win, win.lib
    prompts = _answer_dialogs(monkeypatch, "should not be asked")
    _search(qtbot, window, "pruning")
    window.focus_list()
    window.reading.focus_note()
    note = window.detail_pane.note_editor
    qtbot.keyClicks(note, "quick thought")
    qtbot.keyClick(note, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    assert prompts == []
    assert lib.papers.get(window.current_paper_id()).note == "quick thought"
    assert lib.saved_searches.all() == []


def test_clicking_a_saved_search_runs_it_over_all_papers(qtbot, win):
    window, lib = win, win.lib
    window.saved_searches.save_search("Scaling", "scaling laws")
    window.saved_searches.save_search("Starred", "is:starred")
    settle(qtbot, window)
    tag = lib.tags.ensure("x")
    window.tag_pane.set_tags(lib.tags.all())
    window.tag_pane.select_scope(Scope(tag_id=tag.id))   # an empty scope first
    assert window.current_scope() == Scope(tag_id=tag.id)
    item = window.tag_pane.saved_item("Scaling")
    rect = window.tag_pane.visualItemRect(item)
    qtbot.mouseClick(window.tag_pane.viewport(), Qt.MouseButton.LeftButton,
                     pos=rect.center())
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=WAIT_MS)
    expected = lib.search.find("scaling laws", limit=None)
    assert window.search_box.text() == "scaling laws"
    assert window.current_scope() == Scope()
    assert window.model.ids() == [h.id for h in expected.hits]
    assert window.status_text() == (f"{expected.total} of {TOTAL} match  ·  "
                                    "saved search “Scaling”")
    # typing something else leaves the saved search; clicking it again runs it again
    window.search_box.setText("scaling laws depth")
    assert window.tag_pane.current_saved() is None
    qtbot.waitUntil(lambda: window.search.results.query == "scaling laws depth"
                    and not window.is_busy(), timeout=WAIT_MS)
    window.tag_pane.select_saved("Scaling")
    qtbot.waitUntil(lambda: window.search_box.text() == "scaling laws"
                    and window.search.results.query == "scaling laws" and not window.is_busy(),
                    timeout=WAIT_MS)
    assert window.saved_searches.open_saved_search("starred")
    assert window.search_box.text() == "is:starred"


def test_rename_and_delete_from_the_pane_are_undoable(qtbot, win, monkeypatch):
    window, lib = win, win.lib
    window.saved_searches.save_search("Scaling", "scaling laws")
    window.saved_searches.save_search("Other", "pruning")
    settle(qtbot, window)
    _answer_dialogs(monkeypatch, "Laws of scaling", "Other")
    pane = window.tag_pane
    pane.select_saved("Scaling", notify=False)
    pane.setFocus()
    qtbot.keyClick(pane, Qt.Key.Key_F2)
    settle(qtbot, window)
    assert [s.name for s in lib.saved_searches.all()] == ["Laws of scaling", "Other"]
    assert set(_saved(window)) == {"Laws of scaling", "Other"}
    assert pane.current_saved() == ("Laws of scaling", "scaling laws")   # still chosen
    # to a name that is taken
    window.saved_searches.prompt_rename_saved_search("Laws of scaling")
    settle(qtbot, window)
    assert "already exists" in window.statusBar().currentMessage()
    assert "Traceback" not in window.statusBar().currentMessage()
    qtbot.keyClick(pane, Qt.Key.Key_Delete)
    settle(qtbot, window)
    assert [s.name for s in lib.saved_searches.all()] == ["Other"]
    assert set(_saved(window)) == {"Other"}
    window.triage.undo()
    settle(qtbot, window)
    assert [(s.name, s.query) for s in lib.saved_searches.all()] == [
        ("Laws of scaling", "scaling laws"), ("Other", "pruning")]
    window.triage.undo()
    settle(qtbot, window)
    assert [s.name for s in lib.saved_searches.all()] == ["Other", "Scaling"]
    window.triage.redo()
    window.triage.redo()
    settle(qtbot, window)
    assert [s.name for s in lib.saved_searches.all()] == ["Other"]
    # saving over an existing name replaces it; undo brings the old query back
    window.saved_searches.save_search("other", "diffusion")
    settle(qtbot, window)
    assert [(s.name, s.query) for s in lib.saved_searches.all()] == [("other", "diffusion")]
    window.triage.undo()
    settle(qtbot, window)
    assert [(s.name, s.query) for s in lib.saved_searches.all()] == [("Other", "pruning")]
    # refused names: queued, then nothing saved, no undo step, a message says why
    steps = len(lib.undo_stack)
    window.statusBar().clearMessage()
    window.saved_searches.save_search("   ", "x")
    settle(qtbot, window)
    assert window.statusBar().currentMessage() == "⚠ a saved search needs a name"
    window.saved_searches.save_search("y" * 81, "x")
    settle(qtbot, window)
    assert [(s.name, s.query) for s in lib.saved_searches.all()] == [("Other", "pruning")]
    assert len(lib.undo_stack) == steps
    assert "too long" in window.statusBar().currentMessage()


def test_saved_search_counts_follow_changes_off_the_ui_thread(qtbot, win, monkeypatch):
    window, lib = win, win.lib
    window.saved_searches.save_search("Starred", "is:starred")
    window.saved_searches.save_search("Tagged", 'tag:"look later"')
    settle(qtbot, window)
    qtbot.waitUntil(lambda: _saved(window)["Tagged"][1] == 0 and not window.is_busy(),
                    timeout=WAIT_MS)
    threads = []
    real_find = lib.search.find

    def spy(query, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return real_find(query, **kwargs)

    monkeypatch.setattr(lib.search, "find", spy)
    ids = window.model.ids()[:3]
    window.triage.add_tag("look later", ids)
    window.select_rows(ids[:2])
    window.triage.toggle_star()
    qtbot.waitUntil(lambda: _saved(window)["Tagged"][1] == 3
                    and _saved(window)["Starred"][1] == 2 and not window.is_busy(),
                    timeout=WAIT_MS)
    assert threads and not any(threads)               # counted in the worker
    # typing does not recount
    runs = window.saved_counter.runs
    _search(qtbot, window, "pruning")
    _search(qtbot, window, "depth")
    assert window.saved_counter.runs == runs


def test_the_did_you_mean_message_goes_with_the_next_search(qtbot, win):
    """Ctrl+Enter on "Did you mean" says "Searching for … instead" for 4 seconds, hiding
    the counts: the next search takes it off (issue 25 item 13)."""
    window = win
    _search(qtbot, window, "optimzer")
    assert window.search.suggestion() == "optimizer"
    qtbot.keyClick(window.search_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == "optimizer" and not window.is_busy(),
                    timeout=WAIT_MS)
    assert window.statusBar().currentMessage() == "Searching for “optimizer” instead"
    qtbot.keyClick(window.search_box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(window.search_box, "depth")
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == "depth" and not window.is_busy(),
                    timeout=WAIT_MS)
    assert window.statusBar().currentMessage() == ""
    assert window.status_text().endswith("match")
    assert not window.suggestion_label.isVisible()
