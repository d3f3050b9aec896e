"""Taking things out in the window: Del in the list deletes the selected papers, the
Remove Imported File dialog removes a file with the papers that came from it only, and
Ctrl+Z brings everything back (keys sent as a user would)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication
from ui_fixtures import (TOTAL, WAIT_MS, open_seeded, settle, wait_idle, wait_shown,  # noqa: F401
                         win)

from paperdesk.core.scope import Scope

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def _state(lib, pid):
    return lib.papers.get(pid)


def _undo_key(qtbot, window) -> None:
    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL)
    settle(qtbot, window)
    wait_idle(qtbot, window)


def test_del_deletes_the_current_paper_and_ctrl_z_brings_it_back(qtbot, win):
    window, lib = win, win.lib
    window.select_row(4)
    pid = window.current_paper_id()
    nxt = window.model.paper_id(5)
    qtbot.keyClick(window.table, "t")       # tag it and give it a note first
    qtbot.keyClicks(window.focusWidget(), "walrus")
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Return)
    # a new tag: the New Tag dialog offers a number key; Enter creates it (key: none)
    qtbot.waitUntil(lambda: window.tag_commands.new_tag_dialog is not None
                    and window.tag_commands.new_tag_dialog.isVisible(), timeout=WAIT_MS)
    qtbot.keyClick(window.tag_commands.new_tag_dialog.key_list, Qt.Key.Key_Return)
    settle(qtbot, window)
    window.focus_list()
    before = lib.papers.get(pid)
    assert [t.name for t in before.tags] == ["walrus"]

    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert window.model.row_of(pid) == -1 and window.model.rowCount() == TOTAL - 1
    assert window.current_paper_id() == nxt and window.table.currentIndex().row() == 4
    wait_shown(qtbot, window, nxt)
    assert window.statusBar().currentMessage() == "Deleted 1 paper  —  Ctrl+Z to undo"
    assert window.status_text() == f"{TOTAL - 1} papers"
    assert window.tag_pane.entries()[0][2] == TOTAL - 1
    assert lib.papers.count() == TOTAL - 1 and lib.search.hits("tag:walrus") == []
    assert window.undo_action.text() == "&Undo Delete paper"

    _undo_key(qtbot, window)
    assert window.model.row_of(pid) == 4 and window.model.rowCount() == TOTAL
    assert lib.papers.get(pid) == before
    assert [h.id for h in lib.search.hits("tag:walrus")] == [pid]
    assert window.status_text() == f"{TOTAL} papers"
    assert window.edit_label.full_text == "Undone: Delete paper"


def test_del_pressed_twice_before_the_first_came_back_deletes_once(qtbot, win):
    window, lib = win, win.lib
    window.select_row(0)
    pid = window.current_paper_id()
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)      # key repeat: same paper, ignored
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert lib.papers.count() == TOTAL - 1 and window.model.row_of(pid) == -1
    assert lib.undo_stack.labels() == ["Delete paper"]
    assert window.statusBar().currentMessage() == "Deleted 1 paper  —  Ctrl+Z to undo"
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)      # now the next paper
    settle(qtbot, window)
    assert lib.papers.count() == TOTAL - 2 and len(lib.undo_stack) == 2


def test_del_deletes_every_selected_row_and_redo_deletes_them_again(qtbot, win):
    window, lib = win, win.lib
    window.select_row(10)
    for _ in range(2):
        qtbot.keyClick(window.table, Qt.Key.Key_Down, SHIFT)
    ids = window.selected_ids()
    assert len(ids) == 3
    files_before = {sid: n for sid, _label, n in window.tag_pane.entries()[1:]}
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert all(window.model.row_of(p) == -1 for p in ids)
    assert window.model.rowCount() == TOTAL - 3
    assert window.statusBar().currentMessage() == "Deleted 3 papers  —  Ctrl+Z to undo"
    files_after = {sid: n for sid, _label, n in window.tag_pane.entries()[1:]}
    assert sum(files_before.values()) - sum(files_after.values()) >= 3
    assert window.tag_pane.filter_entries()[0][2] == TOTAL - 3      # Unread

    _undo_key(qtbot, window)
    assert sorted(window.model.row_of(p) for p in ids) == [10, 11, 12]
    assert {sid: n for sid, _label, n in window.tag_pane.entries()[1:]} == files_before

    qtbot.keyClick(window.table, Qt.Key.Key_Z, CTRL | SHIFT)       # redo
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert window.model.rowCount() == TOTAL - 3 and lib.papers.count() == TOTAL - 3


def test_del_elsewhere_keeps_its_own_meaning(qtbot, win):
    window, lib = win, win.lib
    box = window.search_box
    box.setFocus()
    qtbot.keyClicks(box, "xnetwork")
    qtbot.keyClick(box, Qt.Key.Key_Home)
    qtbot.keyClick(box, Qt.Key.Key_Delete)          # deletes a character
    assert box.text() == "network"
    pane = window.tag_pane
    pane.setFocus()
    pane.setCurrentItem(pane.item_for(None))         # "All papers": Del does nothing
    qtbot.keyClick(pane, Qt.Key.Key_Delete)
    settle(qtbot, window)
    assert lib.papers.count() == TOTAL and window.removal.remove_file_dialog is None


def test_del_while_searching_drops_the_hit_and_undo_brings_it_back(qtbot, win):
    window, lib = win, win.lib
    window.search_box.setFocus()
    qtbot.keyClicks(window.search_box, "network")
    window.search.request_search(immediate=True)
    wait_idle(qtbot, window)
    hits = window.model.ids()
    total = len(hits)
    assert total > 5
    window.focus_list()
    window.select_row(1)
    pid = window.current_paper_id()
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    settle(qtbot, window)
    assert window.model.row_of(pid) == -1 and window.current_paper_id() == hits[2]
    wait_idle(qtbot, window)
    assert pid not in window.model.ids() and len(window.model.ids()) == total - 1
    _undo_key(qtbot, window)
    qtbot.waitUntil(lambda: pid in window.model.ids(), timeout=10000)
    assert len(window.model.ids()) == total


def _choose_file(window, index: int) -> int:
    sid = window.lib.removal.sources()[index].id
    pane = window.tag_pane
    pane.setFocus()
    pane.setCurrentItem(pane.item_for(sid))
    return sid


def test_remove_a_file_from_the_sidebar_with_the_keyboard_and_undo(qtbot, win):
    window, lib = win, win.lib
    first, second = lib.removal.sources()
    shared = set(lib.removal.plan(first.id).kept)
    assert len(shared) == 15
    pane = window.tag_pane
    _choose_file(window, 0)
    qtbot.waitUntil(lambda: window.current_scope() == Scope(source_id=first.id))
    qtbot.keyClick(pane, Qt.Key.Key_Delete)          # offers to remove the chosen file
    qtbot.waitUntil(lambda: window.removal.remove_file_dialog is not None
                    and window.removal.remove_file_dialog.isVisible(), timeout=5000)
    dialog = window.removal.remove_file_dialog
    rows = [(dialog.list.topLevelItem(i).text(0), dialog.list.topLevelItem(i).text(1),
             dialog.list.topLevelItem(i).text(2))
            for i in range(dialog.list.topLevelItemCount())]
    assert rows == [(first.name, "120", "105"), (second.name, "120", "105")]
    assert dialog.chosen_source() == first.id
    assert dialog.summary.text() == (f"Removing “{first.name}” deletes 105 papers; "
                                     "15 also from other files stay.")
    assert dialog.summary.textFormat() == Qt.TextFormat.PlainText
    assert dialog.remove_button.isDefault()      # Enter anywhere in it removes
    qtbot.keyClick(dialog.list, Qt.Key.Key_Return)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert not dialog.isVisible()
    assert [s.id for s in lib.removal.sources()] == [second.id] and lib.papers.count() == 120
    assert window.statusBar().currentMessage() == (
        f"Removed “{first.name}” and 105 papers  —  Ctrl+Z to undo")
    # The file's entry went, so the list shows all papers again.
    assert [sid for sid, _l, _n in window.tag_pane.entries()] == [None, second.id]
    assert window.current_scope() == Scope() and window.model.rowCount() == 120
    assert all(window.model.row_of(p) >= 0 for p in shared)

    window.focus_list()
    _undo_key(qtbot, window)
    assert [s.id for s in lib.removal.sources()] == [first.id, second.id]
    assert lib.papers.count() == TOTAL and window.model.rowCount() == TOTAL
    assert [sid for sid, _l, _n in window.tag_pane.entries()] == [None, first.id, second.id]
    assert lib.papers.stats()["indexed"] == TOTAL


def _dialog_shown(qtbot, window):
    qtbot.waitUntil(lambda: window.removal.remove_file_dialog is not None
                    and window.removal.remove_file_dialog.isVisible(), timeout=5000)
    return window.removal.remove_file_dialog


def test_remove_file_from_the_file_menu_offers_every_file(qtbot, win, tmp_path):
    window, lib = win, win.lib
    window.focus_list()
    action = window.actions_by_name["removeFileAction"]
    assert action.text() == "&Remove Imported File…"
    assert action in window.menuBar().actions()[0].menu().actions()
    qtbot.keyClick(window.table, Qt.Key.Key_F, Qt.KeyboardModifier.AltModifier)  # &File
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=5000)
    qtbot.keyClick(QApplication.activePopupWidget(), "r")     # &Remove Imported File…
    _dialog_shown(qtbot, window)
    dialog = window.removal.remove_file_dialog
    assert dialog.chosen_source() == lib.removal.sources()[0].id     # no file chosen: the first
    qtbot.keyClick(dialog.list, Qt.Key.Key_Down)
    second = lib.removal.sources()[1]
    assert dialog.chosen_source() == second.id
    assert f"“{second.name}”" in dialog.summary.text()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)                 # cancel: nothing changes
    settle(qtbot, window)
    assert not dialog.isVisible() and lib.papers.count() == TOTAL and len(lib.removal.sources()) == 2
    assert lib.undo_label is None


def test_remove_file_from_the_sidebar_context_menu(qtbot, win):
    window, lib = win, win.lib
    second = lib.removal.sources()[1]
    pane = window.tag_pane
    item = pane.item_for(second.id)
    pos = pane.visualItemRect(item).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, pane.viewport()
                              .mapToGlobal(pos))
    seen = []

    def choose() -> None:      # runs inside the menu's own event loop (QMenu.exec)
        menu = QApplication.activePopupWidget()
        seen.append([a.text() for a in menu.actions()] if menu else None)
        if menu is not None:
            qtbot.keyClick(menu, "r")

    QTimer.singleShot(0, choose)
    QApplication.sendEvent(pane.viewport(), event)   # returns once the menu closed
    assert seen == [["&Remove File…\tDel"]]
    dialog = _dialog_shown(qtbot, window)
    assert dialog.chosen_source() == second.id        # the file right-clicked
    qtbot.keyClick(dialog.list, Qt.Key.Key_Return)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    assert [s.id for s in lib.removal.sources()] == [lib.removal.sources()[0].id] and lib.papers.count() == 120
    window.activateWindow()          # offscreen, a closed menu does not give it back
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    window.focus_list()
    _undo_key(qtbot, window)
    assert len(lib.removal.sources()) == 2 and window.model.rowCount() == TOTAL


def test_delete_and_remove_are_in_the_menus_and_the_shortcuts_list(qtbot, win):
    from paperdesk.ui.window.dialogs import SHORTCUTS

    window = win
    action = window.actions_by_name["deletePapersAction"]
    assert action.shortcut().toString() == "Del"
    assert action.shortcutContext() == Qt.ShortcutContext.WidgetWithChildrenShortcut
    assert action in window.table.actions()
    edit_menu = window.menuBar().actions()[1].menu()
    assert action in edit_menu.actions()
    assert any(keys == "Del" and "delete the selected papers" in text
               for keys, text in SHORTCUTS)


def test_deleting_every_hit_of_a_search_says_how_many_were_deleted(qtbot, win):
    """Ctrl+A then Del on a search's hits: the rows leave the selection one at a time,
    and the status bar said "2 papers selected" instead of "Deleted 199 papers"."""
    window = win
    wait_idle(qtbot, window)
    window.focus_search()
    qtbot.keyClicks(window.search_box, "st*")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=WAIT_MS)
    hits = window.model.rowCount()
    assert hits > 2
    qtbot.keyClick(window.search_box, Qt.Key.Key_Return)
    qtbot.keyClick(window.table, Qt.Key.Key_A, CTRL)
    assert len(window.selected_ids()) == hits
    qtbot.keyClick(window.table, Qt.Key.Key_Delete)
    settle(qtbot, window)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.rowCount() == 0, timeout=WAIT_MS)
    assert window.lib.papers.count() == TOTAL - hits
    assert window.statusBar().currentMessage() == f"Deleted {hits} papers  —  Ctrl+Z to undo"
