"""Keyboard triage on the seed library: the keys change the database, and single-letter
keys typed into text fields stay text."""

from __future__ import annotations

import re
import sqlite3
import threading

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QApplication, QLabel, QLineEdit, QPlainTextEdit,
                               QTextBrowser)
from ui_fixtures import (TOTAL, WAIT_MS, open_seeded, press, settle, wait_idle,  # noqa: F401
                         wait_shown,
                         win)

from paperdesk.ui.window.actions import ACTIONS, shortcut_rows


def _focus_name(window) -> str:
    widget = window.focusWidget()
    return widget.objectName() if widget is not None else ""


def test_keyboard_flow_changes_the_database(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    tag = lib.tags.ensure("fast")
    window.triage.set_tag_key(tag.id, 1)
    settle(qtbot, window)
    lib.papers.set_read([ids[3]], True)                       # so that u skips it
    assert window.current_paper_id() == ids[0]

    press(qtbot, window, "j", "j")
    assert window.current_paper_id() == ids[2]
    wait_shown(qtbot, window, ids[2])
    press(qtbot, window, "s", "r", "1")
    settle(qtbot, window)
    assert lib.papers.get(ids[2]).starred and lib.papers.get(ids[2]).read
    assert [t.name for t in lib.papers.get(ids[2]).tags] == ["fast"]

    press(qtbot, window, "t")                          # t: tag editor
    assert _focus_name(window) == "tagEditor"
    qtbot.keyClicks(window.focusWidget(), "triage later")
    # let the typing's own events run (the completer popup "t" opened is activated
    # late by the offscreen platform and would take the focus back after Enter)
    settle(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Return)
    # a new name: the New Tag dialog offers a number key ("None" chosen); Enter creates
    qtbot.waitUntil(lambda: window.tag_commands.new_tag_dialog is not None
                    and window.tag_commands.new_tag_dialog.isVisible(), timeout=WAIT_MS)
    qtbot.keyClick(window.tag_commands.new_tag_dialog.key_list, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert {t.name for t in lib.papers.get(ids[2]).tags} == {"fast", "triage later"}
    assert _focus_name(window) == "paperTable"        # back to the list after Enter

    press(qtbot, window, "n")                          # n: note
    assert _focus_name(window) == "noteEditor"
    qtbot.keyClicks(window.focusWidget(), "Read section 3; try on our data.")
    qtbot.waitUntil(lambda: lib.notes.get(ids[2]) == "Read section 3; try on our data.",
                    timeout=2000)
    press(qtbot, window, Qt.Key.Key_Escape)            # Esc: back to the list
    assert _focus_name(window) == "paperTable"

    view = window.detail_pane.abstract_view            # select text + h
    abstract = lib.papers.get(ids[2]).abstract
    words = " ".join(abstract.split()[2:5])
    found = view.document().find(words)
    assert not found.isNull()
    view.setTextCursor(found)
    press(qtbot, window, "h")
    settle(qtbot, window)
    (highlight,) = lib.notes.highlights(ids[2])
    assert highlight.text == words
    assert (highlight.start, highlight.end) == (abstract.index(words),
                                                abstract.index(words) + len(words))

    press(qtbot, window, "u")                          # u: next unread (skips ids[3])
    settle(qtbot, window)                              # asked on the reader thread
    assert window.current_paper_id() == ids[4]
    press(qtbot, window, "k")
    assert window.current_paper_id() == ids[3]
    press(qtbot, window, Qt.Key.Key_Down)
    assert window.current_paper_id() == ids[4]

    # everything is in the database, as another connection sees it
    settle(qtbot, window)
    db = sqlite3.connect(lib.path / "library.db")
    try:
        assert db.execute("SELECT starred, read_at IS NOT NULL FROM papers WHERE id = ?",
                          [ids[2]]).fetchone() == (1, 1)
        assert db.execute("SELECT body FROM notes WHERE paper_id = ?",
                          [ids[2]]).fetchone() == ("Read section 3; try on our data.",)
    finally:
        db.close()
    assert window.unread_text() == f"{TOTAL - 2} of {TOTAL} unread"


def test_letters_typed_in_text_fields_do_not_trigger_shortcuts(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    before = lib.papers.get(pid)
    keys = "jkusrth1nmo?"
    box = window.search_box
    window.focus_search()
    qtbot.keyClicks(box, keys)
    assert box.text() == keys
    assert window.focusWidget() is box
    box.clear()
    qtbot.waitUntil(lambda: not window.model.searching, timeout=WAIT_MS)
    window.select_row(0)
    wait_shown(qtbot, window)

    lib.tags.create("x1")
    window.triage.set_tag_key(lib.tags.by_name("x1").id, 1)
    window.reading.focus_note()
    note = window.detail_pane.note_editor
    qtbot.keyClicks(note, keys + " ")
    assert note.toPlainText() == keys + " "
    assert window.focusWidget() is note

    for editor in (window.detail_pane.chips.editor, window.detail_pane.title_editor):
        if editor is window.detail_pane.title_editor:
            window.reading.edit_title()
            editor.clear()
        else:
            window.reading.focus_tag_editor()
        qtbot.keyClicks(editor, keys)
        assert editor.text() == keys
        assert window.focusWidget() is editor
        press(qtbot, window, Qt.Key.Key_Escape)       # cancels, back to the list
        assert _focus_name(window) == "paperTable"

    after = lib.papers.get(pid)
    assert window.current_paper_id() == pid
    assert (after.starred, after.read, after.tags, after.highlights, after.title) == (
        before.starred, before.read, (), (), before.title)
    assert lib.tags.all()[0].count == 0


def test_keys_pressed_while_the_next_paper_is_on_its_way_go_to_that_paper(
        qtbot, win, monkeypatch):
    """n, t and F2 pressed while the next row's paper is still being read: the note
    typed at once goes to that paper's note (after its stored note), the tag editor
    tags the selected paper, and the title editor opens on that paper once it is shown;
    nothing goes to the paper shown before."""
    from paperdesk.ui.window import reading

    window, lib = win, win.lib
    wait_shown(qtbot, window)
    gate = threading.Event()
    real = reading._paper_or_none

    def held(library, pid):
        gate.wait(WAIT_MS / 1000)
        return real(library, pid)

    def next_row_held() -> int:
        gate.clear()
        window.focus_list()
        before = window.detail_pane.paper_id
        press(qtbot, window, "j")
        assert window.reading.pending_id == window.current_paper_id() != before
        return before

    monkeypatch.setattr(reading, "_paper_or_none", held)
    lib.notes.set(window.model.paper_id(1), "stored.")
    note = window.detail_pane.note_editor
    before = next_row_held()
    press(qtbot, window, "n")
    assert window.focusWidget() is note and note.toPlainText() == ""
    qtbot.keyClicks(note, " typed at once")        # keys are text, not shortcuts
    assert window.detail_pane.paper_id == before    # still on its way
    gate.set()
    wait_shown(qtbot, window)
    assert note.toPlainText() == "stored. typed at once"
    note.flush()
    settle(qtbot, window)
    assert lib.notes.get(window.current_paper_id()) == "stored. typed at once"
    assert lib.notes.get(before) == ""

    before = next_row_held()
    press(qtbot, window, Qt.Key.Key_Escape, "t")
    assert window.focusWidget() is window.detail_pane.chips.editor
    qtbot.keyClicks(window.focusWidget(), "walrus")
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.tag_commands.new_tag_dialog is not None
                    and window.tag_commands.new_tag_dialog.isVisible(), timeout=WAIT_MS)
    qtbot.keyClick(window.tag_commands.new_tag_dialog.key_list, Qt.Key.Key_Return)
    gate.set()
    settle(qtbot, window)
    assert [t.name for t in lib.papers.get(window.current_paper_id()).tags] == ["walrus"]
    assert lib.papers.get(before).tags == ()

    before = next_row_held()
    press(qtbot, window, Qt.Key.Key_F2)
    assert not window.detail_pane.is_editing_title()    # not the title shown before
    gate.set()
    wait_shown(qtbot, window)
    qtbot.waitUntil(window.detail_pane.is_editing_title, timeout=WAIT_MS)
    assert window.detail_pane.title_editor.text() == lib.papers.get(
        window.current_paper_id()).title
