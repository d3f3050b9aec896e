"""A paper's own citation metadata in the window: shown in the detail pane apart from what
the abstract mentions, edited with the keyboard in the metadata editor (m; checked, one
undo step, on the writer thread), Regenerate Citation Key, Ctrl+K copying ``\\cite{key}``,
o opening the paper's own page, and the First author / Year / Venue list columns with
their sorts. Keys are sent as keys; results are read back from the library."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QKeySequence
from PySide6.QtWidgets import QApplication
from ui_fixtures import (WAIT_MS, anchors, open_metadata_editor, open_seeded, press,  # noqa: F401
                         settle, wait_idle, win)

from paperdesk.core.fields import stored_fields
from paperdesk.core.metadata import key_word
from paperdesk.core.models import Author, Metadata
from paperdesk.ui.panes.paper_model import PaperTableModel
from paperdesk.ui.window.actions import ACTIONS
from paperdesk.ui.window.metadata_commands import NO_PAGE_MESSAGE

MENTIONING = "characterised in arXiv:2212.08630"


# -- helpers ---------------------------------------------------------------------------------
def _focus():
    return QApplication.focusWidget()


def _type(qtbot, text: str) -> None:
    """Type into whatever has the keyboard focus now (the dialog's field)."""
    qtbot.keyClicks(_focus(), text)


def _key(qtbot, key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(_focus(), key, modifier)


def _ctrl(qtbot, window, key) -> None:
    """Ctrl+key into whatever widget of the window has the focus."""
    qtbot.keyClick(window.focusWidget() or window, key, Qt.KeyboardModifier.ControlModifier)


_open_editor = open_metadata_editor


def _set_metadata(qtbot, window, pid: int, meta: Metadata) -> None:
    """Set-up through the window's writer thread (so the panes refresh from it)."""
    window.submit_edit(lambda lib: lib.papers.set_metadata(pid, meta))
    settle(qtbot, window)


def _show(qtbot, window, pid: int) -> None:
    assert window.select_row(window.model.row_of(pid))
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)
    window.focus_list()


def _row_of_text(window, text: str) -> int:
    lib = window.lib
    return next(r for r, pid in enumerate(window.model.ids())
                if text in lib.papers.get(pid).abstract)


# -- the editor --------------------------------------------------------------------------------
def test_m_opens_the_editor_and_enter_stores_authors_year_and_doi(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    before = lib.papers.metadata(pid)
    assert before == Metadata()
    dialog = _open_editor(qtbot, window)
    _type(qtbot, "Doe, Jane")
    _key(qtbot, Qt.Key.Key_Return)                      # Enter in Authors: next author
    _type(qtbot, "Grace Hopper; Smith, John")
    _key(qtbot, Qt.Key.Key_Tab)
    assert _focus() is dialog.date
    _type(qtbot, "2023-05")
    _key(qtbot, Qt.Key.Key_Tab)
    _type(qtbot, "NeurIPS")
    _key(qtbot, Qt.Key.Key_Tab)                         # the entry type
    assert _focus() is dialog.type_combo
    _key(qtbot, Qt.Key.Key_Tab)
    assert _focus() is dialog.doi
    _type(qtbot, "https://doi.org/10.1234/ABC.5")
    _key(qtbot, Qt.Key.Key_Return)                      # Enter saves
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)

    meta = lib.papers.metadata(pid)
    assert meta.authors == (Author("Doe", "Jane"), Author("Hopper", "Grace"),
                            Author("Smith", "John"))
    assert (meta.date, meta.venue, meta.doi, meta.entry_type) == (
        "2023-05", "NeurIPS", "10.1234/ABC.5", None)
    assert window.lib.undo_label == "Edit metadata"
    assert window.focusWidget() is window.table          # back to the list
    # shown once committed: byline and Citation block
    pane = window.detail_pane
    qtbot.waitUntil(lambda: pane.paper.metadata == meta, timeout=WAIT_MS)
    assert pane.byline_label.text() == ("Jane Doe, Grace Hopper and John Smith  ·  "
                                        "2023-05  ·  NeurIPS")
    assert "Doe, Jane; Hopper, Grace; Smith, John" in pane.abstract_view.toPlainText()

    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    _ctrl(qtbot, window, Qt.Key.Key_Z)
    settle(qtbot, window)
    assert lib.papers.metadata(pid) == before                   # Ctrl+Z restores it
    qtbot.waitUntil(lambda: pane.paper.metadata == before, timeout=WAIT_MS)


def test_a_malformed_doi_is_refused_with_the_reason_and_nothing_stored(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    label = lib.undo_label
    dialog = _open_editor(qtbot, window)
    _type(qtbot, "Doe, Jane")
    for _ in range(4):                                   # date, venue, type, DOI
        _key(qtbot, Qt.Key.Key_Tab)
    assert _focus() is dialog.doi
    _type(qtbot, "10.1/x")
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert dialog.isVisible()                            # stays open
    error = dialog.findChild(object, "doiError")
    assert error.isVisible() and "'10.1/x' is not a DOI" in error.text()
    assert _focus() is dialog.doi                        # to correct it
    assert lib.papers.metadata(pid) == Metadata() and lib.undo_label == label

    _type(qtbot, "10.1234/fixed")                        # (the field's text was selected)
    assert not error.isVisible()
    _key(qtbot, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert lib.papers.metadata(pid).doi == "10.1234/fixed"


def test_malformed_date_and_arxiv_id_are_refused_too(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    dialog = _open_editor(qtbot, window)
    _key(qtbot, Qt.Key.Key_Tab)
    _type(qtbot, "2023-13")
    for _ in range(4):                                   # venue, type, DOI, arXiv
        _key(qtbot, Qt.Key.Key_Tab)
    assert _focus() is dialog.arxiv
    _type(qtbot, "2213.08630")                           # month 13
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert dialog.isVisible()
    errors = dialog.errors()
    assert errors["date"] == "date: month 13 is out of range"
    assert "is not an arXiv identifier" in errors["arxiv"]
    assert lib.papers.metadata(pid) == Metadata()
    _key(qtbot, Qt.Key.Key_Escape)                       # Esc cancels
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    settle(qtbot, window)
    assert lib.papers.metadata(pid) == Metadata()


def test_regenerate_proposes_family_year_word_and_saves_it_in_one_step(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    old_key = lib.papers.citation_key(pid)
    title = lib.papers.get(pid).title
    steps = len(lib.undo_stack)
    dialog = _open_editor(qtbot, window)
    _type(qtbot, "Lovelace, Ada")            # (QTest types ASCII only)
    _key(qtbot, Qt.Key.Key_Tab)
    _type(qtbot, "2021")
    _key(qtbot, Qt.Key.Key_G, Qt.KeyboardModifier.AltModifier)   # Re&generate
    expected = f"lovelace2021{key_word(title)}"
    qtbot.waitUntil(lambda: dialog.key.text() == expected, timeout=WAIT_MS)
    assert lib.papers.citation_key(pid) == old_key              # proposed, not stored yet
    assert _focus() is dialog.key
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5000)
    assert lib.papers.citation_key(pid) == expected
    assert lib.papers.metadata(pid).authors == (Author("Lovelace", "Ada"),)
    assert len(lib.undo_stack) == steps + 1              # metadata and key: one step
    _ctrl(qtbot, window, Qt.Key.Key_Z)
    settle(qtbot, window)
    assert (lib.papers.citation_key(pid), lib.papers.metadata(pid)) == (old_key, Metadata())


def test_a_key_another_paper_has_is_refused_by_the_core_and_shown(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    other = lib.papers.citation_key(window.model.ids()[1])
    dialog = _open_editor(qtbot, window)
    dialog.key.setFocus()
    qtbot.waitUntil(lambda: _focus() is dialog.key, timeout=5000)
    dialog.key.selectAll()
    _type(qtbot, other.upper())
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert dialog.isVisible()
    assert "already used by another paper" in dialog.errors()["key"]
    assert dialog.save_button.isEnabled()
    assert lib.papers.citation_key(pid) != other.upper()


# -- the Paper menu's key command, Ctrl+K and o -------------------------------------------------
def test_regenerate_citation_key_action_is_undoable(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    _set_metadata(qtbot, window, pid, Metadata(authors=(Author("Lovelace", "Ada"),),
                                               date="1843"))
    old = lib.papers.citation_key(pid)
    qtbot.keyClick(window.table, Qt.Key.Key_P, Qt.KeyboardModifier.AltModifier)  # &Paper
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    qtbot.keyClick(QApplication.activePopupWidget(), "g")      # Re&generate Citation Key
    settle(qtbot, window)
    new = lib.papers.citation_key(pid)
    assert new.startswith("lovelace1843") and new != old
    assert window.statusBar().currentMessage().startswith(f"Citation key is now {new}")
    assert lib.undo_label == "Regenerate citation key"
    window.activateWindow()          # offscreen, a closed menu does not give it back
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.focus_list()
    _ctrl(qtbot, window, Qt.Key.Key_Z)
    settle(qtbot, window)
    assert lib.papers.citation_key(pid) == old


def test_ctrl_k_copies_cite_of_the_selected_papers(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    QApplication.clipboard().setText("before")
    _ctrl(qtbot, window, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: QApplication.clipboard().text() != "before", timeout=WAIT_MS)
    assert QApplication.clipboard().text() == f"\\cite{{{lib.papers.citation_key(ids[0])}}}"
    assert "to the clipboard" in window.statusBar().currentMessage()

    qtbot.keyClick(window.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(window.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    _ctrl(qtbot, window, Qt.Key.Key_K)
    keys = ",".join(lib.papers.citation_key(i) for i in ids[:3])
    qtbot.waitUntil(lambda: QApplication.clipboard().text() == f"\\cite{{{keys}}}",
                    timeout=WAIT_MS)
    assert window.statusBar().currentMessage().startswith("Copied \\cite{")


def test_ctrl_k_in_the_search_box_follows_the_platform(qtbot, win):
    """Where the platform binds Ctrl+K to "delete to the end of the line" (X11, Wayland
    desktops), a text field keeps it; elsewhere it copies ``\\cite{key}`` as in the list."""
    window = win
    QApplication.clipboard().setText("before")
    window.focus_search()
    qtbot.keyClicks(window.search_box, "depth estimation")
    window.search_box.setCursorPosition(5)
    shown = window.current_paper_id()   # the search's results may replace it after the key
    qtbot.keyClick(window.search_box, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    ctrl_k = QKeySequence("Ctrl+K")
    if ctrl_k in QKeySequence.keyBindings(QKeySequence.StandardKey.DeleteEndOfLine):
        assert window.search_box.text() == "depth"
        assert QApplication.clipboard().text() == "before"
    else:
        assert window.search_box.text() == "depth estimation"
        assert QApplication.clipboard().text() == (
            f"\\cite{{{window.lib.papers.citation_key(shown)}}}")


def _fake_opener(monkeypatch, tmp_path, status: int) -> Path:
    """Put a fake ``xdg-open`` first on ``PATH``: a real program that writes the link it
    gets to a file and exits with ``status`` (xdg-open's 3: no browser is set up)."""
    log = tmp_path / "opened.txt"
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    opener = folder / "xdg-open"
    opener.write_text(f"#!{sys.executable}\nimport sys\n"
                      f"open({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n"
                      f"sys.exit({status})\n")
    opener.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    return log


def _opened(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def test_o_opens_the_papers_own_page(qtbot, win, monkeypatch, tmp_path):
    window = win
    log = _fake_opener(monkeypatch, tmp_path, 0)
    ids = window.model.ids()
    press(qtbot, window, "o")                            # nothing of its own yet
    assert _opened(log) == []
    assert window.statusBar().currentMessage() == NO_PAGE_MESSAGE

    _set_metadata(qtbot, window, ids[0], Metadata(doi="10.1234/a#b", arxiv_id="2101.00001",
                                                  url="https://example.org/p"))
    _set_metadata(qtbot, window, ids[1], Metadata(arxiv_id="2101.00001",
                                                  url="https://example.org/p"))
    _set_metadata(qtbot, window, ids[2], Metadata(url="https://example.org/p"))
    qtbot.waitUntil(lambda: window.detail_pane.paper.metadata.doi is not None,
                    timeout=WAIT_MS)
    for n, url in enumerate(["https://doi.org/10.1234/a%23b",
                             "https://arxiv.org/abs/2101.00001", "https://example.org/p"]):
        press(qtbot, window, *(["j"] if n else []), "o")
        qtbot.waitUntil(lambda: window.statusBar().currentMessage()
                        == f"Opened {url} in the browser", timeout=WAIT_MS)
    assert _opened(log) == ["https://doi.org/10.1234/a%23b",
                            "https://arxiv.org/abs/2101.00001", "https://example.org/p"]


def test_o_says_when_no_browser_opened_the_page_and_copies_the_link(
        qtbot, win, monkeypatch, tmp_path):
    """xdg-open exits with 3 when no browser is set up: ``o`` says the page did not open,
    why, and puts the link on the clipboard to paste by hand (issue 25 item 12)."""
    window = win
    log = _fake_opener(monkeypatch, tmp_path, 3)
    QApplication.clipboard().setText("before")
    _set_metadata(qtbot, window, window.model.ids()[0], Metadata(doi="10.1234/nobrowser"))
    qtbot.waitUntil(lambda: window.detail_pane.paper.metadata.doi is not None,
                    timeout=WAIT_MS)
    press(qtbot, window, "o")
    url = "https://doi.org/10.1234/nobrowser"
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Could not open"),
                    timeout=WAIT_MS)
    message = window.statusBar().currentMessage()
    assert message == (f"Could not open {url}: no browser is set up (xdg-open found no "
                       "program for links). The link is copied to the clipboard: paste it "
                       "into a browser")
    assert "Opened" not in message
    assert QApplication.clipboard().text() == url
    assert _opened(log) == [url]


# -- the detail pane ---------------------------------------------------------------------------
def test_detail_pane_shows_own_metadata_apart_from_what_the_abstract_mentions(qtbot, win):
    window, lib = win, win.lib
    pid = window.model.ids()[_row_of_text(window, MENTIONING)]
    _show(qtbot, window, pid)
    pane = window.detail_pane
    text = pane.abstract_view.toPlainText()
    assert "Mentioned in the abstract" in text
    mentioned = text[text.index("Mentioned in the abstract"):]
    assert "2212.08630" in mentioned and "2303.06208" in mentioned
    citation = text[text.index("Citation"):text.index("Mentioned in the abstract")]
    assert "2212.08630" not in citation                  # not the paper's own
    assert lib.papers.citation_key(pid) in citation
    assert pane.byline_label.text().startswith("No authors, year or venue yet")

    _set_metadata(qtbot, window, pid, Metadata(
        authors=(Author("<b>Doe</b>", "Jane"), Author("{World Health Organization}")),
        date="2024", venue="Proc. <i>ICML</i> & more", entry_type="inproceedings",
        doi="10.5555/12345678", arxiv_id="2401.01234", url="https://example.org/x?a=1&b=2"))
    qtbot.waitUntil(lambda: pane.paper.metadata.venue != "", timeout=WAIT_MS)
    assert pane.byline_label.textFormat() == Qt.TextFormat.PlainText
    assert pane.byline_label.text() == ("Jane <b>Doe</b> and {World Health Organization}"
                                        "  ·  2024  ·  Proc. <i>ICML</i> & more")
    text = pane.abstract_view.toPlainText()
    citation = text[text.index("Citation"):text.index("Mentioned in the abstract")]
    for shown in ("<b>Doe</b>, Jane; {World Health Organization}", "Proc. <i>ICML</i> & more",
                  "inproceedings", "10.5555/12345678", "2401.01234",
                  "https://example.org/x?a=1&b=2"):
        assert shown in citation, shown
    links = anchors(pane.abstract_view)
    assert "https://doi.org/10.5555/12345678" in links
    assert "https://arxiv.org/abs/2401.01234" in links
    assert "https://arxiv.org/abs/2212.08630" in links  # the mentioned one, linked too
    assert "<b>Doe" not in pane.abstract_view.toHtml()    # escaped, never markup




# -- list columns and sorting ------------------------------------------------------------------
def _header_menu_choose(qtbot, window, key: str) -> None:
    """Right-click the list header (as the platform delivers it) and press the menu
    item's underlined letter."""
    header = window.table.horizontalHeader()
    pos = QPoint(10, header.height() // 2)
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, header.mapToGlobal(pos))
    QApplication.sendEvent(header.viewport(), event)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    menu = QApplication.activePopupWidget()
    assert menu.objectName() == "listColumnsMenu"
    qtbot.keyClick(menu, key)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=5000)


def test_first_author_year_and_venue_columns_show_and_sort(qtbot, open_seeded):
    window = open_seeded()
    lib = window.lib
    ids = window.model.ids()
    chosen = {ids[5]: ("Zhang", "2021", "ICML"), ids[7]: ("Adams", "2019", "Nature"),
              ids[9]: ("Miller", "2024", "arXiv")}
    for pid, (family, year, venue) in chosen.items():
        _set_metadata(qtbot, window, pid, Metadata(authors=(Author(family, "A."),),
                                                   date=year, venue=venue))
    table, model = window.table, window.model
    for column in (PaperTableModel.AUTHORS, PaperTableModel.YEAR, PaperTableModel.VENUE):
        assert table.isColumnHidden(column)              # not shown until chosen
    for letter in ("y", "t", "v"):                       # &Year, First Au&thor, &Venue
        _header_menu_choose(qtbot, window, letter)
    assert window.list_columns.shown_list_columns() == ("added", "authors", "year", "venue")
    assert window.settings.list_columns == ("added", "authors", "year", "venue")
    for column in (PaperTableModel.AUTHORS, PaperTableModel.YEAR, PaperTableModel.VENUE):
        assert not table.isColumnHidden(column)
        assert table.columnWidth(column) > 30
    for pid, values in chosen.items():
        row = model.row_of(pid)
        assert tuple(model.index(row, c).data() for c in (
            PaperTableModel.AUTHORS, PaperTableModel.YEAR, PaperTableModel.VENUE)) == values
    assert model.index(model.row_of(ids[0]), PaperTableModel.YEAR).data() == ""

    header = table.horizontalHeader()

    def click(column) -> None:
        x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
        qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                         pos=QPoint(x, header.height() // 2))
        wait_idle(qtbot, window)

    click(PaperTableModel.YEAR)                          # oldest first, undated last
    assert model.ids()[:3] == [ids[7], ids[5], ids[9]]
    assert model.ids()[3:] == sorted(model.ids()[3:])
    click(PaperTableModel.YEAR)                          # newest first
    assert model.ids()[:3] == [ids[9], ids[5], ids[7]]
    click(PaperTableModel.AUTHORS)
    assert model.ids()[:3] == [ids[7], ids[9], ids[5]]   # Adams, Miller, Zhang
    click(PaperTableModel.VENUE)
    assert model.ids()[:3] == [ids[9], ids[5], ids[7]]   # arXiv, ICML, Nature

    # searching sorts by the column too (on the search thread)
    window.focus_search()
    qtbot.keyClicks(window.search_box, "is:unread")
    qtbot.waitUntil(lambda: model.searching, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    assert set(chosen) <= set(model.ids())
    assert model.sort_column == -1                       # a new search: best first
    click(PaperTableModel.YEAR)                          # oldest first
    qtbot.waitUntil(lambda: model.ids()[:3] == [ids[7], ids[5], ids[9]], timeout=WAIT_MS)

    # remembered: a new window on the same library and settings shows the same columns
    # and sort
    window.close()
    again = open_seeded(fresh=False)
    assert again.list_columns.shown_list_columns() == ("added", "authors", "year", "venue")
    assert again.model.sort_column == PaperTableModel.YEAR


def test_added_can_be_hidden_and_the_view_menu_has_the_same_actions(qtbot, win):
    window = win
    assert not window.table.isColumnHidden(PaperTableModel.ADDED)
    _header_menu_choose(qtbot, window, "a")              # &Added: off
    assert window.table.isColumnHidden(PaperTableModel.ADDED)
    assert window.settings.list_columns == ()
    assert not window.actions_by_name["columnAddedAction"].isChecked()
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    columns = next(a.menu() for a in view.actions() if a.text() == "List &Columns")
    assert [a.objectName() for a in columns.actions()] == [
        "columnAddedAction", "columnAuthorsAction", "columnYearAction", "columnVenueAction",
        # then one per table-driven field with a list column (volume, issue, pages)
        *(f"column{f.name.title()}Action" for f in stored_fields(containers=False)
          if f.header)]
    assert not window.table.isColumnHidden(PaperTableModel.TITLE)


def test_new_keys_are_free_and_listed():
    keys = [QKeySequence(k).toString() for spec in ACTIONS for k in spec.shortcuts]
    assert len(keys) == len(set(keys)), "a key is bound twice"
    names = {spec.name: spec for spec in ACTIONS}
    assert names["editMetadataAction"].shortcuts == ("m",)
    assert names["openPageAction"].shortcuts == ("o",)
    assert names["copyCiteAction"].shortcuts == ("Ctrl+K",)
    assert names["editMetadataAction"].menu == names["regenerateKeyAction"].menu == "paper"
