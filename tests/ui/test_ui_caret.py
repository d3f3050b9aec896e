"""Caret mode in the abstract (issue 13, item 4): F7 or Tab from the list puts a keyboard
caret in the abstract, arrows move it, Shift+arrows and Ctrl+Shift+arrows select, H
highlights exactly the selection, Esc goes back to the list; j / k / u / Space do not move
the list while the caret is on, and keep their meaning outside it. Keys are sent as keys,
and what is stored is read back from the library."""

from __future__ import annotations

from PySide6.QtCore import Qt
from ui_fixtures import open_seeded, settle, wait_idle, win  # noqa: F401

from paperdesk.core.edits.annotations import HIGHLIGHT_COLOURS
from paperdesk.ui.window.actions import ACTIONS, shortcut_rows

SHIFT = Qt.KeyboardModifier.ShiftModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _key(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier, times: int = 1):
    """Press ``key`` ``times`` times in the widget that has the focus, as a user would."""
    for _ in range(times):
        qtbot.keyClick(window.focusWidget() or window, key, modifier)


def _focus_name(window) -> str:
    widget = window.focusWidget()
    return widget.objectName() if widget is not None else ""


def _highlighted_fragments(view) -> list[str]:
    """The pieces of the shown abstract drawn in the default highlight colour."""
    block = view.abstract_block()
    found, it = [], block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        if fragment.charFormat().background().color().name() == HIGHLIGHT_COLOURS[0]:
            found.append(fragment.text())
        it += 1
    return found


def _seed_paper(window):
    """The paper the window shows first (the seed library's newest), its abstract, and
    the abstract's first four words (plain words separated by single spaces)."""
    pid = window.current_paper_id()
    abstract = window.lib.papers.get(pid).abstract
    words = tuple(abstract.split(" ")[:4])
    assert all(w.isalpha() for w in words), abstract[:80]
    return pid, abstract, words


def test_f7_then_arrows_select_and_h_highlights_exactly_the_selection(qtbot, win):
    window, lib = win, win.lib
    pid, abstract, (first, second, third, fourth) = _seed_paper(window)
    view = window.detail_pane.abstract_view
    assert _focus_name(window) == "paperTable"

    _key(qtbot, window, Qt.Key.Key_F7)
    assert view.caret_mode() and _focus_name(window) == "abstractView"
    assert window.actions_by_name["caretModeAction"].isChecked()
    assert window.triage.caret_label.isVisible()
    assert window.statusBar().currentMessage().startswith("Caret mode: arrows move")

    _key(qtbot, window, Qt.Key.Key_Right, times=len(first) + 1)   # caret before word 2
    assert not view.textCursor().hasSelection()
    _key(qtbot, window, Qt.Key.Key_Right, CTRL_SHIFT, times=2)     # select two words
    _key(qtbot, window, Qt.Key.Key_Right, SHIFT, times=3)          # and three letters
    _key(qtbot, window, "h")
    settle(qtbot, window)

    start = len(first) + 1
    expected = f"{second} {third} {fourth[:3]}"
    assert abstract[start:start + len(expected)] == expected
    (highlight,) = lib.notes.highlights(pid)
    assert (highlight.start, highlight.end, highlight.text) == (
        start, start + len(expected), expected)
    # once committed, the highlight is drawn (the selection gave way to it); the caret
    # stays on, at the end of the highlight
    assert "".join(_highlighted_fragments(view)) == expected
    assert not view.textCursor().hasSelection()
    assert view.caret_mode() and _focus_name(window) == "abstractView"
    assert view.textCursor().position() - view.abstract_block().position() == (
        start + len(expected))


def test_j_k_u_space_do_not_move_the_list_in_caret_mode_and_do_outside(qtbot, win):
    window = win
    ids = window.model.ids()
    view = window.detail_pane.abstract_view
    assert window.current_paper_id() == ids[0]

    _key(qtbot, window, Qt.Key.Key_F7)
    assert view.caret_mode()
    for key in ("j", "k", "u", Qt.Key.Key_Space, "j"):
        _key(qtbot, window, key)
        settle(qtbot, window)
        assert window.current_paper_id() == ids[0], key
        assert _focus_name(window) == "abstractView"
    assert not window.lib.notes.highlights(ids[0])

    _key(qtbot, window, Qt.Key.Key_Escape)                  # Esc: back to the list
    assert _focus_name(window) == "paperTable"
    assert not view.caret_mode()
    assert not window.actions_by_name["caretModeAction"].isChecked()
    assert not window.triage.caret_label.isVisible()
    assert not window.statusBar().currentMessage().startswith("Caret mode")

    _key(qtbot, window, "j")                                # outside: j moves again
    assert window.current_paper_id() == ids[1]
    _key(qtbot, window, "k")
    assert window.current_paper_id() == ids[0]


def test_tab_from_the_list_enters_caret_mode(qtbot, win):
    window, lib = win, win.lib
    pid, abstract, (first, *_rest) = _seed_paper(window)
    view = window.detail_pane.abstract_view

    _key(qtbot, window, Qt.Key.Key_Tab)
    assert _focus_name(window) == "abstractView" and view.caret_mode()
    _key(qtbot, window, Qt.Key.Key_Right, CTRL_SHIFT)      # the first word (and space)
    _key(qtbot, window, Qt.Key.Key_Right, SHIFT, times=2)
    _key(qtbot, window, "h")
    settle(qtbot, window)
    expected = abstract[:len(first) + 3]
    (highlight,) = lib.notes.highlights(pid)
    assert (highlight.start, highlight.end, highlight.text) == (0, len(expected), expected)

    _key(qtbot, window, Qt.Key.Key_Escape)
    assert _focus_name(window) == "paperTable" and not view.caret_mode()
    _key(qtbot, window, "j")
    assert window.current_paper_id() != pid


def test_h_without_a_selection_highlights_nothing_and_says_so(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    _key(qtbot, window, Qt.Key.Key_F7)
    _key(qtbot, window, Qt.Key.Key_Right, times=5)
    _key(qtbot, window, "h")
    settle(qtbot, window)
    assert lib.notes.highlights(pid) == []
    assert "Nothing of the abstract is selected" in window.statusBar().currentMessage()
    assert window.detail_pane.abstract_view.caret_mode()

    _key(qtbot, window, Qt.Key.Key_Escape)               # outside caret mode: a hint
    _key(qtbot, window, "h")
    settle(qtbot, window)
    assert lib.notes.highlights(pid) == []
    assert "F7 and Shift+arrows" in window.statusBar().currentMessage()


def test_selection_survives_a_change_to_the_shown_paper(qtbot, win):
    """A re-render of the same paper (here a star; automatic mark-read does the same)
    keeps the caret's selection, so H still highlights what was selected."""
    window, lib = win, win.lib
    pid, abstract, (first, second, *_rest) = _seed_paper(window)
    view = window.detail_pane.abstract_view
    _key(qtbot, window, Qt.Key.Key_F7)
    _key(qtbot, window, Qt.Key.Key_Right, CTRL_SHIFT, times=2)
    span = view.selected_span()
    assert span == (0, len(first) + 1 + len(second))
    _key(qtbot, window, "s")                              # s still stars in caret mode
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.detail_pane.paper.starred, timeout=5000)
    assert lib.papers.get(pid).starred
    assert view.selected_span() == span and view.caret_mode()
    _key(qtbot, window, "h")
    settle(qtbot, window)
    assert [h.text for h in lib.notes.highlights(pid)] == [f"{first} {second}"]


def test_f7_toggles_and_needs_a_paper(qtbot, win):
    window = win
    view = window.detail_pane.abstract_view
    _key(qtbot, window, Qt.Key.Key_F7)
    assert view.caret_mode()
    _key(qtbot, window, Qt.Key.Key_F7)                   # F7 again: off, back to the list
    assert not view.caret_mode() and _focus_name(window) == "paperTable"
    assert not window.actions_by_name["caretModeAction"].isChecked()

    _key(qtbot, window, "/")                             # a search that finds nothing
    qtbot.keyClicks(window.focusWidget(), "qqxzzvw")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id is None, timeout=5000)
    _key(qtbot, window, Qt.Key.Key_F7)
    assert not view.caret_mode()
    assert not window.actions_by_name["caretModeAction"].isChecked()
    assert "No paper is shown" in window.statusBar().currentMessage()


def test_caret_keys_are_in_the_table_and_the_shortcuts_window():
    spec = next(s for s in ACTIONS if s.name == "caretModeAction")
    assert spec.shortcuts == ("F7",) and spec.menu == "paper" and spec.checkable
    rows = dict(shortcut_rows())
    assert "F7" in rows and "caret" in rows["F7"].lower()
    assert "caret mode" in rows["Tab"]
    assert any("Ctrl+Shift" in keys and "by word" in text for keys, text in rows.items())
    keys = [k for spec in ACTIONS for k in spec.shortcuts]
    assert keys.count("F7") == 1
