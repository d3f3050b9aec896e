"""Volume, issue and pages in the window, with no window code naming them (they are rows
of the field table): typed in the metadata editor (m) after URL, shown in the detail
pane's byline as a reference list writes them ("Venue 12(3), 45–67") and in its
Citation block, and as list columns hidden until chosen from the header's menu, that
sort. Keys are sent as keys; results are read back from the library."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from ui_fixtures import (WAIT_MS, open_metadata_editor, open_seeded, press, settle,  # noqa: F401
                         wait_idle, win)

from paperdesk.core.models import Metadata, field_values
from paperdesk.ui.panes.paper_model import PaperTableModel


def _focus():
    return QApplication.focusWidget()


_open_editor = open_metadata_editor


def test_typed_in_the_editor_and_shown_in_the_byline(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    dialog = _open_editor(qtbot, window)
    for _ in range(7):                     # Date, Venue, Type, DOI, arXiv id, URL, Volume
        qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    assert _focus() is dialog.field_edits["volume"]
    qtbot.keyClicks(_focus(), "12")
    qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    assert _focus() is dialog.field_edits["issue"]
    qtbot.keyClicks(_focus(), "3")
    qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    qtbot.keyClicks(_focus(), "250-259")
    qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    for name in ("publisher", "isbn", "issn", "language"):    # the fields after pages
        assert _focus() is dialog.field_edits[name]
        qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    assert _focus() is dialog.key
    qtbot.keyClick(_focus(), Qt.Key.Key_Return)                  # Enter saves
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert lib.papers.metadata(pid).values == (("volume", "12"), ("issue", "3"),
                                        ("pages", "250-259"))
    pane = window.detail_pane
    qtbot.waitUntil(lambda: pane.paper.metadata.values != (), timeout=WAIT_MS)
    assert pane.byline_label.text() == "12(3), 250–259"      # as a reference list
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier)          # one undo step
    settle(qtbot, window)
    qtbot.waitUntil(lambda: lib.papers.metadata(pid).values == (), timeout=WAIT_MS)


def test_the_byline_and_citation_block_say_where_it_was_published(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    dialog = _open_editor(qtbot, window)
    qtbot.keyClicks(_focus(), "Hopper, Grace")
    for _ in range(2):                     # Date, Venue
        qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    assert _focus() is dialog.venue
    qtbot.keyClicks(_focus(), "Journal of Testing")
    for _ in range(5):                     # Type, DOI, arXiv id, URL, Volume
        qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    qtbot.keyClicks(_focus(), "12")
    qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    qtbot.keyClicks(_focus(), "3")
    qtbot.keyClick(_focus(), Qt.Key.Key_Tab)
    assert _focus() is dialog.field_edits["pages"]
    qtbot.keyClicks(_focus(), "45-67")
    qtbot.keyClick(_focus(), Qt.Key.Key_Return)                  # Enter saves
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    meta = lib.papers.metadata(pid)
    assert (meta.venue, meta.values) == ("Journal of Testing", (
        ("venue", "Journal of Testing"), ("volume", "12"), ("issue", "3"),
        ("pages", "45-67")))
    pane = window.detail_pane
    qtbot.waitUntil(lambda: pane.paper.metadata == meta, timeout=WAIT_MS)
    assert pane.byline_label.text() == "Grace Hopper  ·  Journal of Testing 12(3), 45–67"
    shown = pane.abstract_view.toPlainText()
    for label, text in (("Venue", "Journal of Testing"), ("Volume", "12"), ("Issue", "3"),
                        ("Pages", "45–67")):
        assert f"{label}\n{text}\n" in shown, shown[-400:]


def _header_menu_choose(qtbot, window, key: str) -> None:
    header = window.table.horizontalHeader()
    pos = QPoint(10, header.height() // 2)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, header.mapToGlobal(pos))
    QApplication.sendEvent(header.viewport(), event)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    qtbot.keyClick(QApplication.activePopupWidget(), key)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=5000)


def test_list_columns_hidden_until_chosen_and_sorting(qtbot, open_seeded):
    window = open_seeded()
    ids = window.model.ids()
    for pid, volume in ((ids[4], "10"), (ids[6], "9"), (ids[8], "100")):
        window.submit_edit(lambda lib, pid=pid, volume=volume: lib.papers.set_metadata(
            pid, Metadata(values=field_values({"volume": volume}))))
        settle(qtbot, window)
    table, model = window.table, window.model
    column = PaperTableModel.COLUMN_OF["volume"]
    assert table.isColumnHidden(column)
    assert table.isColumnHidden(PaperTableModel.COLUMN_OF["pages"])
    _header_menu_choose(qtbot, window, "o")                      # V&olume
    assert not table.isColumnHidden(column)
    assert window.list_columns.shown_list_columns() == ("added", "volume")
    assert model.index(model.row_of(ids[8]), column).data() == "100"
    assert model.index(model.row_of(ids[0]), column).data() == ""
    header = table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(x, header.height() // 2))
    wait_idle(qtbot, window)
    assert model.ids()[:3] == [ids[6], ids[4], ids[8]]          # 9, 10, 100


def test_the_list_shows_maths_in_titles_as_it_reads(qtbot, open_seeded):
    """A title keeps its TeX maths (BibTeX writes it back); the list shows it as the
    detail pane and the readable exports do, "D → 4", not "$D \\to 4$"."""
    window = open_seeded()
    pid = window.model.ids()[2]
    window.submit_edit(lambda lib: lib.papers.set_title(pid, r"Gravity in $D \to 4$ dimensions"))
    settle(qtbot, window)
    model = window.model
    cell = model.index(model.row_of(pid), PaperTableModel.TITLE)
    qtbot.waitUntil(lambda: "dimensions" in (cell.data() or ""), timeout=WAIT_MS)
    assert cell.data() == "Gravity in D → 4 dimensions"
    assert "Gravity in D → 4 dimensions" in cell.data(Qt.ItemDataRole.ToolTipRole)
