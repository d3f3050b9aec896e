"""GUI test: the paper list paints each cell from one model call (issue 28).

Qt's delegates ask the model's ``data()`` for about ten roles per cell; the list's
model is Python, so each is a call from C++ into Python that takes the interpreter lock
back from the search and reader threads. The list's delegates now take one
:meth:`PaperTableModel.cell` per cell and fill the style option from it
(:mod:`paperdesk.ui.panes.list_cells`); this checks that a repaint asks nothing else,
that the plain columns look exactly as Qt's own delegate drew them, and that the
snippets' runs are joined into one ``drawText`` per stretch between marks."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QApplication, QStyledItemDelegate, QStyleOptionViewItem

from paperdesk.ui.panes.paper_model import PaperTableModel, snippet_window
from paperdesk.ui.panes.snippet_delegate import snippet_runs
from paperdesk.ui.style.text_fit import drawn_runs
from ui_fixtures import TOTAL, WAIT_MS, open_seeded, type_query, win  # noqa: F401


def _shown_cells(table) -> int:
    """How many cells of the list are (at least partly) in its viewport."""
    model, viewport = table.model(), table.viewport().rect()
    columns = [c for c in range(model.columnCount()) if not table.isColumnHidden(c)
               and table.columnViewportPosition(c) < viewport.right()]
    rows = [r for r in range(model.rowCount())
            if table.visualRect(model.index(r, 0)).intersects(viewport)]
    return len(rows) * len(columns)


def test_a_repaint_asks_the_model_once_per_cell_and_never_through_data(
        qtbot, open_seeded, monkeypatch):
    calls = {"data": 0, "cell": 0}
    real_data, real_cell = PaperTableModel.data, PaperTableModel.cell

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        calls["data"] += 1
        return real_data(self, index, role)

    def cell(self, row, col):
        calls["cell"] += 1
        return real_cell(self, row, col)

    monkeypatch.setattr(PaperTableModel, "data", data)
    monkeypatch.setattr(PaperTableModel, "cell", cell)
    window = open_seeded()
    table = window.table
    for query in ("", "depth estimation"):
        if query:
            type_query(qtbot, window, query)
            # the snippets of the rows on show are cut on the reader thread
            qtbot.waitUntil(lambda: all(
                window.model.cell(r, PaperTableModel.SNIPPET).text != "…"
                for r in range(12)), timeout=WAIT_MS)
        assert window.model.rowCount() >= 12
        QApplication.processEvents()
        calls.update(data=0, cell=0)
        table.viewport().repaint()
        shown = _shown_cells(table)
        assert shown >= 12 * 3, shown
        assert calls["data"] == 0, (query, calls)
        assert calls["cell"] == shown, (query, calls, shown)


def test_the_plain_columns_look_as_qts_own_delegate_drew_them(qtbot, win):
    """Added, First author, Year (and a bold unread row beside the read current one),
    grabbed with Qt's delegate and with the list's: the same pixels."""
    window, table = win, win.table
    model = window.model
    for col in (PaperTableModel.ADDED, PaperTableModel.AUTHORS, PaperTableModel.YEAR):
        table.setColumnHidden(col, False)
    qtbot.keyClick(table, Qt.Key.Key_Down)        # the selected row ...
    row = table.currentIndex().row()
    was = model.cell(row, PaperTableModel.AUTHORS).bold
    qtbot.keyClick(table, Qt.Key.Key_R)           # ... read (or unread) with r
    qtbot.waitUntil(lambda: model.cell(row, PaperTableModel.AUTHORS).bold != was,
                    timeout=WAIT_MS)
    QApplication.processEvents()
    bold = {model.cell(r, PaperTableModel.AUTHORS).bold for r in range(8)}
    assert bold == {True, False}, bold
    ours = table.itemDelegate()
    assert type(ours) is not QStyledItemDelegate
    grabs = {}
    for name, delegate in (("ours", ours), ("qt", QStyledItemDelegate(table))):
        table.setItemDelegate(delegate)
        QApplication.processEvents()
        grabs[name] = table.viewport().grab().toImage()
    table.setItemDelegate(ours)
    assert grabs["ours"].size() == grabs["qt"].size()
    assert grabs["ours"] == grabs["qt"]


def test_a_snippets_words_between_marks_are_drawn_as_one_run(win):
    lib = win.lib
    ids = [hit.id for hit in lib.search.find("depth estimation", limit=None).hits]
    metrics = QFontMetricsF(QApplication.font())
    snippets = lib.search.snippets("depth estimation", ids)
    cells = [snippet_window(text, tuple(spans)) for text, spans in snippets.values() if spans]
    assert len(cells) >= 20
    before = after = 0
    for text, spans in cells:
        runs = snippet_runs(text, spans, metrics, 300, 2)
        joined = drawn_runs(runs)
        before, after = before + len(runs), after + len(joined)
        assert "".join(r.text for r in joined) == "".join(r.text for r in runs)
        assert [r for r in joined if r.marked] == [r for r in runs if r.marked]
        assert [r.cut for r in joined][-1:] == [r.cut for r in runs][-1:]
        for a, b in zip(joined, joined[1:]):
            assert a.marked or b.marked or a.line != b.line or a.cut, (a, b)
        starts = {(r.line, r.x) for r in runs}
        assert all((r.line, r.x) in starts for r in joined)
    assert after * 2 < before, (before, after)


def test_a_paper_without_a_title_shows_no_title_not_a_blank_row(qtbot, win, tmp_path):
    """A new user's try: papers kept for their key and DOI (neither title nor abstract)
    were blank rows in the list."""
    from paperdesk.ui.panes.paper_html import NO_TITLE

    window = win
    bib = tmp_path / "untitled.bib"
    bib.write_text("@misc{untitled2020,\n  author = {Doe, Jane},\n  year = {2020},\n"
                   "  doi = {10.1000/untitled}\n}\n", encoding="utf-8")
    assert window.start_import([bib])
    qtbot.waitUntil(lambda: window.lib.papers.count() == TOTAL + 1, timeout=WAIT_MS)
    pid = max(window.lib.papers.ids())
    assert window.lib.papers.get(pid).title == ""
    qtbot.waitUntil(lambda: window.model.row_of(pid) >= 0, timeout=WAIT_MS)
    row = window.model.row_of(pid)
    qtbot.waitUntil(lambda: window.model.cell(row, PaperTableModel.TITLE).text == NO_TITLE,
                    timeout=WAIT_MS)
    window.select_row(row)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)
    assert NO_TITLE in window.detail_pane.title_label.text()
