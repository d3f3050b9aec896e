"""GUI tests: the real window on the real seeds, offscreen (QT_QPA_PLATFORM=offscreen).

Every test uses a fresh library in ``tmp_path``; the ``open_window`` fixture closes each
window at teardown, which stops its threads and closes its library.
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import sys  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QPoint, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDesktopServices  # noqa: E402
from PySide6.QtWidgets import QLabel, QLineEdit, QTableView  # noqa: E402

from paperdesk.core.paths import bundled_seeds  # noqa: E402
from paperdesk.ui import create_main_window  # noqa: E402
from paperdesk.ui.panes.detail_pane import PLACEHOLDER, DetailPane  # noqa: E402
from paperdesk.ui.panes.paper_model import BLOCK, PaperTableModel  # noqa: E402
from paperdesk.ui.panes.tag_pane import TagPane  # noqa: E402
from ui_fixtures import anchors, wait_row, wait_shown  # noqa: E402

TOTAL = 225            # distinct papers in the two seed files
PER_FILE = 120         # abstracts in each seed file (15 are in both)
UNIQUE_PHRASE = '"Depth Delusion"'   # occurs in exactly one seed abstract
MARKUP = 'Markup test <b>x</b> <a href="http://example.invalid">y</a> & 5 < 6 end.'
WAIT_MS = 20000


@pytest.fixture
def open_window(qtbot, tmp_path):
    """Return ``open(import_seeds=True, folder="lib") -> MainWindow`` (shown, 1280x800)."""
    windows = []

    def _open(import_seeds: bool = True, folder: str = "lib"):
        window = create_main_window(tmp_path / folder, import_seeds=import_seeds)
        windows.append(window)
        window.resize(1280, 800)
        window.show()
        qtbot.waitExposed(window)
        if not import_seeds:   # the first counts are read off the UI thread
            qtbot.waitUntil(lambda: not window.worker.is_busy(), timeout=10000)
        return window

    yield _open
    for window in windows:
        window.close()
        window.shutdown()
        assert not window.import_runner.is_running()


def _table(window) -> QTableView:
    return window.findChild(QTableView, "paperTable")


def _search_box(window) -> QLineEdit:
    return window.findChild(QLineEdit, "searchBox")


def _status(window) -> str:
    return window.findChild(QLabel, "statusLabel").text()


def _wait_idle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)


@pytest.fixture
def seeded(open_window, qtbot):
    """A window whose empty library has finished importing the bundled seeds."""
    window = open_window()
    table = _table(window)
    qtbot.waitUntil(lambda: table.model().rowCount() == TOTAL, timeout=WAIT_MS)
    _wait_idle(qtbot, window)
    return window


def _type_query(qtbot, window, text: str) -> None:
    box = _search_box(window)
    box.clear()
    box.setFocus()
    qtbot.keyClicks(box, text)


def _wait_for_search(qtbot, window, query: str, source_id=None) -> int:
    expected = window.lib.search.find(query, limit=None, source_id=source_id).total
    qtbot.waitUntil(lambda: window.model.searching and window.model.rowCount() == expected
                    and not window.is_busy(), timeout=WAIT_MS)
    return expected


def _click_row(qtbot, table: QTableView, row: int) -> None:
    rect = table.visualRect(table.model().index(row, 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


# -- 1. first start ----------------------------------------------------------------------
def test_empty_library_imports_seeds_in_background(qtbot, seeded):
    window = seeded
    assert window.windowTitle() == "paperdesk"
    assert not window.windowIcon().isNull()
    assert _status(window) == f"{TOTAL} papers"
    assert window.lib.papers.count() == TOTAL
    for name, cls in (("searchBox", QLineEdit), ("paperTable", QTableView),
                      ("detailPane", DetailPane), ("tagPane", TagPane)):
        assert window.findChild(cls, name) is not None, name
    entries = window.findChild(TagPane, "tagPane").entries()
    assert entries[0] == (None, f"All papers ({TOTAL})", TOTAL)
    files = entries[1:]
    assert [label for _sid, label, _n in files] == [
        f"{p.name} ({PER_FILE})" for p in bundled_seeds()]
    assert [n for _sid, _label, n in files] == [PER_FILE, PER_FILE]
    assert window.progress_bar.isHidden() and window.cancel_button.isHidden()
    # the first row is selected and shown
    assert window.current_paper_id() == window.model.paper_id(0)
    wait_shown(qtbot, window, window.model.paper_id(0))


def test_window_without_seeds_is_empty_and_calm(open_window):
    window = open_window(import_seeds=False)
    assert window.model.rowCount() == 0
    assert "No papers yet" in _status(window)
    assert window.detail_pane.abstract_view.toPlainText() == ""
    assert not window.import_runner.is_running()


# -- 2. searching ------------------------------------------------------------------------
def test_typing_filters_the_list_and_clearing_restores_it(qtbot, seeded):
    window = seeded
    _type_query(qtbot, window, "pruning")
    expected = _wait_for_search(qtbot, window, "pruning")
    assert 0 < expected < TOTAL
    assert _status(window) == f"{expected} of {TOTAL} match"
    hits = {h.id for h in window.lib.search.find("pruning", limit=None).hits}
    assert set(window.model.ids()) == hits
    # the Snippet column is shown while searching and carries the hit's snippet
    assert not _table(window).isColumnHidden(PaperTableModel.SNIPPET)
    first = window.model.paper_id(0)
    tip = window.model.index(0, PaperTableModel.SNIPPET).data(Qt.ItemDataRole.ToolTipRole)
    assert tip and window.model.snippet(first)

    _search_box(window).clear()
    qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    assert not window.model.searching
    assert _status(window) == f"{TOTAL} papers"
    assert _table(window).isColumnHidden(PaperTableModel.SNIPPET)


def test_unique_phrase_gives_exactly_one_row(qtbot, seeded):
    window = seeded
    _type_query(qtbot, window, UNIQUE_PHRASE)
    assert _wait_for_search(qtbot, window, UNIQUE_PHRASE) == 1
    assert window.model.rowCount() == 1
    assert _status(window) == f"1 of {TOTAL} match"
    paper = window.lib.papers.get(window.model.paper_id(0))
    assert "Depth Delusion" in paper.abstract
    # the only row is selected, shown, and the matched words are highlighted
    wait_shown(qtbot, window, paper.id)
    assert "background-color:#ffa94d" in window.detail_pane.abstract_view.toHtml().replace(" ", "")


def test_query_without_matches_says_so_calmly(qtbot, seeded):
    window = seeded
    _type_query(qtbot, window, "zzqxv")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=WAIT_MS)
    assert window.model.rowCount() == 0
    assert _status(window).startswith(f"0 of {TOTAL} match")
    assert "zzqxv" in _status(window)
    assert window.detail_pane.paper_id is None


def test_only_the_latest_search_is_delivered(qtbot, seeded):
    window = seeded
    runner = window.search_runner
    delivered = []
    runner.resultsReady.connect(
        lambda gen, results, complete: delivered.append((gen, results.query, complete)))
    runner.request("depth", immediate=True)
    runner.request("width")           # debounced
    last = runner.request("pruning", immediate=True)
    qtbot.waitUntil(lambda: not runner.is_busy(), timeout=WAIT_MS)
    qtbot.wait(50)
    assert delivered == [(last, "pruning", True)]


# -- 3. selecting a row --------------------------------------------------------------------
def test_selecting_a_row_shows_its_abstract(qtbot, seeded):
    window = seeded
    table = _table(window)
    _click_row(qtbot, table, 4)
    pid = window.model.paper_id(4)
    assert window.current_paper_id() == pid
    wait_shown(qtbot, window, pid)
    paper = window.lib.papers.get(pid)
    text = window.detail_pane.abstract_view.toPlainText()
    assert paper.abstract in text
    assert paper.sources[0].name in text
    # keyboard: Down moves to the next paper
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_Down)
    wait_shown(qtbot, window, window.model.paper_id(5))
    nxt = window.lib.papers.get(window.model.paper_id(5))
    assert window.detail_pane.paper_id == nxt.id
    assert nxt.abstract in window.detail_pane.abstract_view.toPlainText()


# -- 4. markup stays text -------------------------------------------------------------------
def test_markup_in_an_abstract_is_shown_literally(qtbot, open_window, tmp_path):
    source = tmp_path / "markup.txt"
    source.write_text(f"Markup collection\n\n{MARKUP}\n\n"
                      "Second abstract with a real link https://example.org/code for you.\n",
                      encoding="utf-8")
    window = open_window(import_seeds=False)
    assert window.start_import([source])
    qtbot.waitUntil(lambda: window.model.rowCount() == 2, timeout=WAIT_MS)
    _wait_idle(qtbot, window)
    for r in range(2):
        wait_row(qtbot, window, r)      # (the rows are read on the reader thread)
    row = next(r for r in range(2)
               if "Markup" in window.model.index(r, PaperTableModel.TITLE).data())
    title_index = window.model.index(row, PaperTableModel.TITLE)
    assert "<b>x</b>" in title_index.data(Qt.ItemDataRole.DisplayRole)
    assert "&lt;b&gt;x&lt;/b&gt;" in title_index.data(Qt.ItemDataRole.ToolTipRole)

    window.select_row(row)
    wait_shown(qtbot, window)
    pane = window.detail_pane.abstract_view
    assert '<b>x</b> <a href="http://example.invalid">y</a> & 5 < 6' in pane.toPlainText()
    html = pane.toHtml()
    assert '<a href="http://example.invalid"' not in html
    assert anchors(pane) == []

    window.select_row(1 - row)
    wait_shown(qtbot, window)
    # linked in the abstract, and listed again under "Mentioned in the abstract"
    assert anchors(pane) == ["https://example.org/code", "https://example.org/code"]




# -- 5. filtering by source -----------------------------------------------------------------
def test_clicking_a_source_filters_the_list(qtbot, seeded):
    window = seeded
    pane = window.findChild(TagPane, "tagPane")
    sid, label, _count = pane.entries()[1]
    rect = pane.visualItemRect(pane.item_for(sid))
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.model.rowCount() == PER_FILE, timeout=WAIT_MS)
    assert set(window.model.ids()) == set(window.lib.papers.ids(source_id=sid))
    assert _status(window).startswith(f"{PER_FILE} papers")

    # search applies within the source
    _type_query(qtbot, window, "depth")
    n = _wait_for_search(qtbot, window, "depth", source_id=sid)
    assert _status(window).startswith(f"{n} of {PER_FILE} match")
    assert set(window.model.ids()) <= set(window.lib.papers.ids(source_id=sid))

    # back to all papers, query still active
    rect = pane.visualItemRect(pane.item_for(None))
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    total = _wait_for_search(qtbot, window, "depth")
    assert _status(window) == f"{total} of {TOTAL} match"


# -- 6. links ---------------------------------------------------------------------------------
def test_only_web_links_are_opened(qtbot, seeded, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    pane = seeded.detail_pane.abstract_view
    assert pane.open_link(QUrl("javascript:alert(1)")) is False
    assert pane.open_link(QUrl("file:///etc/passwd")) is False
    pane.anchorClicked.emit(QUrl("javascript:alert(1)"))
    pane.anchorClicked.emit(QUrl("file:///etc/passwd"))
    assert opened == []
    assert pane.open_link(QUrl("https://example.org/paper")) is True
    pane.anchorClicked.emit(QUrl("http://example.org/other"))
    assert opened == ["https://example.org/paper", "http://example.org/other"]


# -- 7. keyboard -------------------------------------------------------------------------------
def test_keyboard_moves_between_search_box_and_list(qtbot, seeded):
    window = seeded
    table, box = _table(window), _search_box(window)
    window.activateWindow()
    table.selectionModel().clearCurrentIndex()
    table.clearSelection()

    window.focus_search()
    assert window.focusWidget() is box
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert window.focusWidget() is table
    assert table.currentIndex().row() == 0          # first row selected when none was

    qtbot.keyClick(table, Qt.Key.Key_Slash)           # "/" goes to the search box
    assert window.focusWidget() is box
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert window.focusWidget() is table
    qtbot.keyClick(table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)  # and Ctrl+F
    assert window.focusWidget() is box
    qtbot.keyClicks(box, UNIQUE_PHRASE)
    qtbot.keyClick(box, Qt.Key.Key_Return)            # Enter runs the search at once
    assert window.focusWidget() is table
    _wait_for_search(qtbot, window, UNIQUE_PHRASE)
    assert window.model.rowCount() == 1

    window.focus_search()
    qtbot.keyClick(box, Qt.Key.Key_Escape)            # Esc clears the box…
    assert box.text() == ""
    assert window.focusWidget() is box
    qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    qtbot.keyClick(box, Qt.Key.Key_Escape)            # …and on an empty box goes to the list
    assert window.focusWidget() is table


# -- the model ---------------------------------------------------------------------------------
def test_model_fetches_rows_lazily_in_blocks(seeded, monkeypatch):
    lib = seeded.lib
    calls = []
    real = lib.papers.summaries
    monkeypatch.setattr(lib.papers, "summaries", lambda ids: calls.append(len(ids)) or real(ids))
    model = PaperTableModel(lib)
    model.set_ids(lib.papers.ids())
    assert calls == []
    assert model.index(0, PaperTableModel.TITLE).data()
    assert len(calls) == 1 and calls[0] <= BLOCK < TOTAL
    assert model.index(1, PaperTableModel.ADDED).data()  # cached: no new query
    assert len(calls) == 1
    assert model.index(TOTAL - 1, PaperTableModel.TITLE).data()
    assert len(calls) == 2 and max(calls) <= BLOCK
    assert model.row_of(model.paper_id(7)) == 7
    assert model.paper_id(TOTAL) is None and model.row_of(-5) == -1


def test_header_click_sorts_in_the_store_and_keeps_the_selection(qtbot, seeded):
    window = seeded
    table = _table(window)
    window.select_row(10)
    chosen = window.current_paper_id()
    header = table.horizontalHeader()
    x = header.sectionViewportPosition(PaperTableModel.TITLE) + 10
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(x, header.height() // 2))
    # (the ids in the new order are read on the reader thread)
    qtbot.waitUntil(lambda: window.model.ids() == window.lib.papers.ids(order="title"),
                    timeout=WAIT_MS)
    assert window.current_paper_id() == chosen
    table.sortByColumn(PaperTableModel.TITLE, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: window.model.ids() == window.lib.papers.ids(
        order="title", descending=True), timeout=WAIT_MS)
    table.sortByColumn(PaperTableModel.ADDED, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: window.model.ids() == window.lib.papers.ids(
        order="added", descending=True), timeout=WAIT_MS)

    # while searching: relevance first, then hits by title on request
    _type_query(qtbot, window, "pruning")
    _wait_for_search(qtbot, window, "pruning")
    relevance = [h.id for h in window.lib.search.find("pruning", limit=None).hits]
    assert window.model.ids() == relevance
    # the worker sorts (lib.search.find(sort=...)); the rows change when the hits arrive
    table.sortByColumn(PaperTableModel.TITLE, Qt.SortOrder.AscendingOrder)
    by_title = [h.id for h in window.lib.search.find("pruning", limit=None, sort="title").hits]
    qtbot.waitUntil(lambda: window.model.ids() == by_title and not window.is_busy(),
                    timeout=WAIT_MS)
    titles = [window.lib.papers.get(i).title.casefold() for i in window.model.ids()]
    assert titles == sorted(titles) and set(window.model.ids()) == set(relevance)
    # the Snippet header goes back to relevance
    table.sortByColumn(PaperTableModel.SNIPPET, Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: window.model.ids() == relevance and not window.is_busy(),
                    timeout=WAIT_MS)


# -- importing ---------------------------------------------------------------------------------
def test_rejected_files_are_named_in_a_non_modal_message(qtbot, open_window, tmp_path):
    bad = tmp_path / "binary.txt"
    bad.write_bytes(b"header\n\n\x00\x01\x02 not text")
    window = open_window(import_seeds=False)
    assert window.start_import([bad, *bundled_seeds()])
    assert not window.progress_bar.isHidden()
    qtbot.waitUntil(lambda: window.import_message is not None, timeout=WAIT_MS)
    box = window.import_message
    assert not box.isModal() and box.isVisible()
    assert "binary.txt" in box.text() and "NUL" in box.text()
    qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.worker.is_busy(), timeout=WAIT_MS)  # files: read
    assert len(window.tag_pane.entries()) == 3      # all + the two good files
    assert window.progress_bar.isHidden()
    box.close()


def test_closing_during_an_import_stops_cleanly(qtbot, open_window):
    window = open_window()                        # seed import starts at once
    window.close()
    assert not window.import_runner.is_running()
    assert window.model.rowCount() == 0
    assert window.detail_pane.abstract_view.toPlainText() == ""
    assert window.detail_pane.abstract_view.placeholderText() == PLACEHOLDER


# -- app.run -----------------------------------------------------------------------------------
def test_run_reports_an_unopenable_library_in_a_dialog(qapp, tmp_path, monkeypatch):
    from paperdesk.ui.app import controller as app_module
    shown = []
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)   # restored after the test
    monkeypatch.setattr(app_module, "message_box",
                        lambda parent, icon, title, text, **kw: shown.append((title, text)))
    # as on a desktop (offscreen, paperdesk never waits for a click on a dialog)
    monkeypatch.setattr(app_module, "is_offscreen", lambda: False)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    assert app_module.run(not_a_folder) == 1
    assert shown and "cannot open the library" in shown[0][0]
    assert str(not_a_folder) in shown[0][1] and "Traceback" not in shown[0][1]

    # the installed excepthook shows a short message, not a traceback
    shown.clear()
    try:
        raise ValueError("boom")
    except ValueError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    assert len(shown) == 1 and "boom" in shown[0][1] and "Traceback" not in shown[0][1]


def test_detail_pane_starts_with_a_placeholder(qtbot):
    pane = DetailPane()
    qtbot.addWidget(pane)
    assert pane.objectName() == "detailPane"
    assert pane.abstract_view.placeholderText() == PLACEHOLDER
    assert not pane.abstract_view.openLinks() and not pane.abstract_view.openExternalLinks()
    assert pane.paper_id is None


def test_highlighting_follows_the_query_and_escapes_everything():
    from paperdesk.core.search.index import MatchTerms, match_spans
    from paperdesk.ui.panes.paper_html import abstract_html, title_html

    text = "Optimizers <i>and</i> networks; the network width."
    # what lib.search.match_terms gives for 'title:networks optim* NOT width "the"' on an
    # index holding these words: stems, the prefix's expansions, the phrase unstemmed
    terms = MatchTerms(stemmed=frozenset({"network", "optim"}), exact=frozenset({"the"}))
    marked = [text[s:e] for s, e in match_spans(text, terms)]
    assert marked == ["Optimizers", "networks", "the", "network"]
    html = abstract_html(text, match_spans(text, terms))
    assert "&lt;i&gt;and&lt;/i&gt;" in html and "<i>" not in html
    assert html.count("<span") == 4
    assert title_html("<b>network</b>", terms).count("<span") == 1
    assert "<span" not in title_html("network", None) + title_html("network", MatchTerms())


def test_a_list_read_again_is_compared_as_arrays_then_appended_or_replaced(
        qapp, seeded_library, tmp_path, monkeypatch):
    """A listing read again (an import's new papers, every few seconds during a long
    import) is compared with the rows shown as int64 arrays (``RowLookup.in_order``),
    not as two lists of Python integers (40 ms of the UI thread at a million): new
    papers at the end are appended (``rowsInserted``), any other change replaces the
    rows (a reset), and the rows are the library's either way."""
    from paperdesk.ui.panes import paper_model

    lib = seeded_library
    compared: list[int] = []

    class Ids(list):
        """A listing's ids that note every comparison as lists."""
        __hash__ = None

        def __eq__(self, other):
            compared.append(len(self))
            return list.__eq__(self, other)

        def __ne__(self, other):
            compared.append(len(self))
            return list.__ne__(self, other)

    real = paper_model.read_listing

    def listing(*args, **kwargs):
        ids, lookup = real(*args, **kwargs)
        return Ids(ids), lookup

    monkeypatch.setattr(paper_model, "read_listing", listing)
    model = PaperTableModel(lib)
    model.set_id_reader(lambda fn, deliver, first: deliver(fn(lib)))
    events: list[str] = []
    model.modelReset.connect(lambda: events.append("reset"))
    model.rowsInserted.connect(lambda _p, first, last: events.append(f"+{last - first + 1}"))
    model.show_all()
    assert model.ids() == lib.papers.ids() and len(model.ids()) == TOTAL > 200
    assert events == ["reset", f"+{TOTAL - 200}"]        # the first 200, then the rest

    def write(name: str, n: int):
        path = tmp_path / name
        path.write_text("Daily Papers\n\n" + "\n\n".join(
            f"We measure {name} effect number {i} on lemurs and find it large." for i in
            range(n)) + "\n", encoding="utf-8")
        return path

    events.clear()
    compared.clear()
    lib.imports.run([write("more", 3)])
    model.show_all()                                       # the same list read again
    assert model.ids() == lib.papers.ids() and len(model.ids()) == TOTAL + 3
    assert events == ["+3"] and compared == []

    events.clear()
    model.show_all()                                       # nothing changed
    assert events == [] and compared == []

    events.clear()
    first = lib.papers.ids()[0]
    lib.removal.delete_papers([first])
    lib.imports.run([write("other", 1)])                   # one gone, one more
    model.show_all()
    assert model.ids() == lib.papers.ids() and len(model.ids()) == TOTAL + 3
    assert first not in model.ids()
    assert events == ["reset"] and compared == []
    # the listed ids without a copy: the listing's own array, the same object each time
    listed = model.listed_ids()
    assert listed is model.listed_ids() and listed.dtype.name == "int64"
    assert listed.tolist() == model.ids()
