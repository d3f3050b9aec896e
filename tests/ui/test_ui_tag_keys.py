"""Number keys for tags without the mouse (issue 13 item 5): ``t`` with a new name offers
the new tag's key, and Edit ▸ Manage Tags… (Ctrl+Shift+T) renames, binds keys, recolours,
merges and deletes from the keyboard. Every change is checked in the library."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox
from ui_fixtures import WAIT_MS, open_seeded, press, settle, win  # noqa: F401

from paperdesk.core.edits.annotations import TAG_COLOURS
from paperdesk.ui.window.actions import ACTIONS, EXTRA_KEYS, shortcut_rows
from paperdesk.ui.window.tags_dialog import ChoiceDialog

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
ALT = Qt.KeyboardModifier.AltModifier


def _names(lib, pid) -> set[str]:
    return {t.name for t in lib.papers.get(pid).tags}


def _focus_name() -> str:
    widget = QApplication.focusWidget()
    return widget.objectName() if widget is not None else ""


def _shown(qtbot, window, name: str):
    qtbot.waitUntil(lambda: getattr(window.tag_commands, name) is not None
                    and getattr(window.tag_commands, name).isVisible()
                    and QApplication.activeWindow() is getattr(window.tag_commands, name),
                    timeout=WAIT_MS)
    return getattr(window.tag_commands, name)


def _pending(qtbot, dialog, kind):
    qtbot.waitUntil(lambda: isinstance(dialog.pending, kind)
                    and dialog.pending.isVisible()
                    and QApplication.activeWindow() is dialog.pending, timeout=WAIT_MS)
    return dialog.pending


def _open_tags_dialog(qtbot, window, focus: str = "tagsList"):
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_T, CTRL | SHIFT)
    dialog = _shown(qtbot, window, "tags_dialog")
    qtbot.waitUntil(lambda: _focus_name() == focus, timeout=WAIT_MS)
    return dialog


def _key(qtbot, key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    """A key to whatever has the focus now (the dialog on top, as a user types)."""
    qtbot.keyClick(QApplication.focusWidget(), key, modifiers)


def test_t_with_a_new_name_offers_the_number_key_and_the_key_then_tags(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.create_tag("later", key=3)
    settle(qtbot, window)
    steps = len(lib.undo_stack)

    press(qtbot, window, "t")
    qtbot.keyClicks(window.focusWidget(), "read first")
    settle(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Return)
    dialog = _shown(qtbot, window, "new_tag_dialog")
    # the name is filled in and the focus is on the keys
    qtbot.waitUntil(lambda: _focus_name() == "newTagKeyList", timeout=WAIT_MS)
    assert dialog.name_edit.text() == "read first"
    texts = [dialog.key_list.item(i).text() for i in range(dialog.key_list.count())]
    assert texts[0] == "None" and dialog.key() is None     # "None" by default
    assert texts[1] == "1   free"
    assert texts[3] == "3   now “later” (moves to this tag)"
    assert len(texts) == 10

    _key(qtbot, Qt.Key.Key_Down)
    assert dialog.key() == 1
    _key(qtbot, Qt.Key.Key_3)                              # a digit picks its key
    assert dialog.key() == 3
    assert _names(lib, ids[0]) == set()                    # "3" did not toggle "later"
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    tag = lib.tags.by_name("read first")
    assert tag is not None and tag.key == 3
    assert _names(lib, ids[0]) == {"read first"}
    assert lib.tags.by_name("later").key is None
    assert len(lib.undo_stack) == steps + 1                # tag and key: one step
    assert lib.undo_label == "Tag ‘read first’, key 3"
    assert _focus_name() == "paperTable"

    press(qtbot, window, "j", "3")                         # another paper: 3 tags it
    settle(qtbot, window)
    assert _names(lib, ids[1]) == {"read first"}

    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Z, CTRL)
    settle(qtbot, window)
    assert _names(lib, ids[1]) == set()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Z, CTRL)   # the tag goes, 3 is back
    settle(qtbot, window)
    assert lib.tags.by_name("read first") is None
    assert lib.tags.for_key(3).name == "later"


def test_esc_in_the_new_tag_dialog_creates_nothing_and_keeps_the_name(qtbot, win):
    window, lib = win, win.lib
    press(qtbot, window, "t")
    qtbot.keyClicks(window.focusWidget(), "maybe")
    settle(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Return)
    _shown(qtbot, window, "new_tag_dialog")
    qtbot.waitUntil(lambda: _focus_name() == "newTagKeyList", timeout=WAIT_MS)
    _key(qtbot, Qt.Key.Key_5)
    _key(qtbot, Qt.Key.Key_Escape)
    settle(qtbot, window)
    assert lib.tags.all() == []
    qtbot.waitUntil(lambda: _focus_name() == "tagEditor", timeout=WAIT_MS)
    assert window.detail_pane.chips.editor.text() == "maybe"
    press(qtbot, window, Qt.Key.Key_Escape)                # Esc again: back to the list
    assert _focus_name() == "paperTable"


def test_an_existing_tag_is_added_at_once_without_the_dialog(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("Known", [ids[5]])
    settle(qtbot, window)
    press(qtbot, window, "t")
    qtbot.keyClicks(window.focusWidget(), "known")
    settle(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert window.tag_commands.new_tag_dialog is None
    assert _names(lib, ids[0]) == {"Known"}


def test_unbound_key_hint_names_the_keyboard_routes(qtbot, win):
    press(qtbot, win, "7")
    message = win.statusBar().currentMessage()
    assert "No tag is bound to key 7" in message
    assert "Manage Tags" in message and "Ctrl+Shift+T" in message and "T creates" in message


def test_tags_dialog_renames_binds_merges_and_deletes_from_the_keyboard(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("alpha", ids[0:2])
    window.triage.add_tag("beta", [ids[2]])
    window.triage.add_tag("<i>gamma</i>", [ids[1], ids[3]])
    settle(qtbot, window)
    alpha, beta, gamma = (lib.tags.by_name(n) for n in ("alpha", "beta", "<i>gamma</i>"))

    dialog = _open_tags_dialog(qtbot, window)
    assert dialog.rows() == [("<i>gamma</i>", "", "green", "2"), ("alpha", "", "blue", "2"),
                             ("beta", "", "orange", "1")]
    assert dialog.current_tag().id == gamma.id

    # rename: Down to alpha, Down to beta, F2, type, Enter
    _key(qtbot, Qt.Key.Key_Down)
    _key(qtbot, Qt.Key.Key_Down)
    assert dialog.current_tag().id == beta.id
    _key(qtbot, Qt.Key.Key_F2)
    assert _focus_name() == "tagNameEditor"
    qtbot.keyClicks(QApplication.focusWidget(), "beta two")
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: lib.tags.by_name("beta two") is not None, timeout=WAIT_MS)
    assert lib.tags.by_name("beta two").id == beta.id and lib.tags.by_name("beta") is None
    qtbot.waitUntil(lambda: ("beta two", "", "orange", "1") in dialog.rows(), timeout=WAIT_MS)
    assert dialog.current_tag().id == beta.id              # still on the renamed tag
    assert _focus_name() == "tagsList"

    # a number key: the digit binds it (shown once committed); 0 unbinds
    _key(qtbot, Qt.Key.Key_4)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: lib.tags.for_key(4) is not None, timeout=WAIT_MS)
    assert lib.tags.for_key(4).id == beta.id
    qtbot.waitUntil(lambda: ("beta two", "4", "orange", "1") in dialog.rows(),
                    timeout=WAIT_MS)
    assert "Bind key 4" in dialog.status.text()
    _key(qtbot, Qt.Key.Key_Up)                             # alpha takes key 4
    _key(qtbot, Qt.Key.Key_4)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: getattr(lib.tags.for_key(4), "id", None) == alpha.id,
                    timeout=WAIT_MS)
    assert lib.tags.by_name("beta two").key is None
    _key(qtbot, Qt.Key.Key_0)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: lib.tags.for_key(4) is None, timeout=WAIT_MS)

    # Enter renames too; onto an existing name it asks to merge (Enter: merge)
    _key(qtbot, Qt.Key.Key_Return)
    assert _focus_name() == "tagNameEditor"
    qtbot.keyClicks(QApplication.focusWidget(), "BETA TWO")
    _key(qtbot, Qt.Key.Key_Return)
    box = _pending(qtbot, dialog, QMessageBox)
    assert "Merge “alpha” (2 papers) into it?" in box.text()
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: lib.tags.by_name("alpha") is None, timeout=WAIT_MS)
    assert sorted(lib.papers.ids(tag_id=beta.id)) == sorted([ids[0], ids[1], ids[2]])
    qtbot.waitUntil(lambda: len(dialog.rows()) == 2, timeout=WAIT_MS)
    assert dialog.current_tag().id == beta.id              # on the tag merged into

    # Alt+M: merge into a tag chosen from a list
    _key(qtbot, Qt.Key.Key_M, ALT)
    chooser = _pending(qtbot, dialog, ChoiceDialog)
    assert [chooser.list.item(i).text() for i in range(chooser.list.count())] == [
        "<i>gamma</i>   (2 papers)"]
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.tags.by_name("beta two") is None
    assert sorted(lib.papers.ids(tag_id=gamma.id)) == sorted(ids[0:4])
    qtbot.waitUntil(lambda: dialog.rows() == [("<i>gamma</i>", "", "green", "4")],
                    timeout=WAIT_MS)

    # Alt+C: a colour from the palette, by arrows
    _key(qtbot, Qt.Key.Key_C, ALT)
    chooser = _pending(qtbot, dialog, ChoiceDialog)
    assert chooser.list.currentRow() == TAG_COLOURS.index(lib.tags.by_name("<i>gamma</i>")
                                                          .colour)
    _key(qtbot, Qt.Key.Key_Down)
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.tags.by_name("<i>gamma</i>").colour == TAG_COLOURS[3]
    qtbot.waitUntil(lambda: dialog.rows() == [("<i>gamma</i>", "", "red", "4")],
                    timeout=WAIT_MS)

    # Del asks first (plain text: the name is shown literally); Esc keeps the tag
    _key(qtbot, Qt.Key.Key_Delete)
    box = _pending(qtbot, dialog, QMessageBox)
    assert box.textFormat() == Qt.TextFormat.PlainText
    assert "Delete the tag “<i>gamma</i>”? It comes off 4 papers" in box.text()
    _key(qtbot, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: dialog.pending is None, timeout=WAIT_MS)
    settle(qtbot, window)
    assert lib.tags.by_name("<i>gamma</i>") is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: _focus_name() == "tagsList", timeout=WAIT_MS)
    _key(qtbot, Qt.Key.Key_Delete)
    _pending(qtbot, dialog, QMessageBox)
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.tags.all() == []
    qtbot.waitUntil(lambda: dialog.rows() == [], timeout=WAIT_MS)
    assert _focus_name() == "newTagButton"

    # Ctrl+Z in the dialog undoes (the delete, then the recolour)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=WAIT_MS)
    qtbot.keyClick(dialog, Qt.Key.Key_Z, CTRL)
    settle(qtbot, window)
    assert lib.tags.by_name("<i>gamma</i>").id == gamma.id
    qtbot.waitUntil(lambda: dialog.rows() == [("<i>gamma</i>", "", "red", "4")],
                    timeout=WAIT_MS)
    assert _focus_name() == "tagsList"

    # Esc closes it; the focus is back on the list
    qtbot.keyClick(dialog.list, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _focus_name() == "paperTable", timeout=WAIT_MS)


def test_new_tag_from_the_tags_dialog_tab_to_the_key(qtbot, win):
    window, lib = win, win.lib
    dialog = _open_tags_dialog(qtbot, window, focus="newTagButton")  # no tags yet
    assert dialog.rows() == [] and not dialog.empty_label.isHidden()
    _key(qtbot, Qt.Key.Key_N, ALT)
    new = _shown(qtbot, window, "new_tag_dialog")
    qtbot.waitUntil(lambda: _focus_name() == "newTagName", timeout=WAIT_MS)
    qtbot.keyClicks(QApplication.focusWidget(), "to cite")
    _key(qtbot, Qt.Key.Key_Tab)
    assert _focus_name() == "newTagKeyList"
    _key(qtbot, Qt.Key.Key_5)
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    tag = lib.tags.by_name("to cite")
    assert tag.key == 5 and tag.count == 0 and not new.isVisible()
    qtbot.waitUntil(lambda: dialog.rows() == [("to cite", "5", "blue", "0")],
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _focus_name() == "tagsList", timeout=WAIT_MS)
    _key(qtbot, Qt.Key.Key_N, ALT)                         # another: chosen once listed
    _shown(qtbot, window, "new_tag_dialog")
    qtbot.keyClicks(QApplication.focusWidget(), "Again")
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: len(dialog.rows()) == 2, timeout=WAIT_MS)
    assert dialog.current_tag().name == "Again" and lib.tags.by_name("again").key is None
    qtbot.waitUntil(lambda: _focus_name() == "tagsList", timeout=WAIT_MS)
    # a name that exists is refused in the dialog, which stays open
    _key(qtbot, Qt.Key.Key_N, ALT)
    new = _shown(qtbot, window, "new_tag_dialog")
    qtbot.waitUntil(lambda: _focus_name() == "newTagName", timeout=WAIT_MS)
    qtbot.keyClicks(QApplication.focusWidget(), "TO CITE")
    _key(qtbot, Qt.Key.Key_Return)
    assert new.isVisible() and "exists already" in new.error_label.text()
    _key(qtbot, Qt.Key.Key_Escape)
    settle(qtbot, window)
    assert [t.name for t in lib.tags.all()] == ["Again", "to cite"]


def test_the_new_keys_are_in_the_actions_table_and_the_shortcuts_window():
    spec = next(s for s in ACTIONS if s.name == "manageTagsAction")
    assert spec.shortcuts == ("Ctrl+Shift+T",) and spec.menu == "edit"
    taken = [k for s in ACTIONS for k in s.shortcuts]
    assert taken.count("Ctrl+Shift+T") == 1
    rows = dict(shortcut_rows())
    assert any("Tags dialog" in what for _keys, what in EXTRA_KEYS)
    assert any("New Tag dialog" in what for what in rows.values())


def test_tags_dialog_key_chooser_and_a_refused_rename(qtbot, win):
    window, lib = win, win.lib
    window.triage.create_tag("later", key=7)
    window.triage.create_tag("soon")
    settle(qtbot, window)
    soon = lib.tags.by_name("soon")
    dialog = _open_tags_dialog(qtbot, window)
    _key(qtbot, Qt.Key.Key_End)
    assert dialog.current_tag().id == soon.id
    _key(qtbot, Qt.Key.Key_K, ALT)                         # Number Key…: the chooser
    chooser = _pending(qtbot, dialog, ChoiceDialog)
    texts = [chooser.list.item(i).text() for i in range(chooser.list.count())]
    assert texts[7] == "7   now “later” (moves to this tag)" and chooser.list.currentRow() == 0
    _key(qtbot, Qt.Key.Key_7)
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.tags.for_key(7).id == soon.id and lib.tags.by_name("later").key is None
    qtbot.waitUntil(lambda: ("soon", "7", "orange", "0") in dialog.rows(), timeout=WAIT_MS)

    qtbot.waitUntil(lambda: _focus_name() == "tagsList", timeout=WAIT_MS)
    _key(qtbot, Qt.Key.Key_F2)                             # a comma: refused, said why
    qtbot.keyClicks(QApplication.focusWidget(), "a,b")
    _key(qtbot, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.tags.by_name("soon") is not None
    qtbot.waitUntil(lambda: "comma" in dialog.status.text(), timeout=WAIT_MS)
    assert dialog.status.text().startswith("⚠") and "Traceback" not in dialog.status.text()
    assert ("soon", "7", "orange", "0") in dialog.rows()
