"""Undo/redo round trips through the window for every kind of change."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from ui_fixtures import (TOTAL, WAIT_MS, open_seeded, press, settle, wait_idle,  # noqa: F401
                         wait_listed, win)

from paperdesk.core.scope import Scope


def _tags(lib):
    return {t.name: (t.id, t.colour, t.key, frozenset(lib.papers.ids(tag_id=t.id)))
            for t in lib.tags.all()}


def _paper_state(lib, pid):
    p = lib.papers.get(pid)
    return (p.title, p.read_at, p.starred, tuple(t.name for t in p.tags), p.note,
            tuple((h.id, h.start, h.end, h.colour, h.comment) for h in p.highlights))


def _round_trip(qtbot, window, check_before, check_after, steps: int = 1):
    """Undo ``steps`` times, check; redo as often, check; undo again, check."""
    for _ in range(steps):
        window.triage.undo()
    settle(qtbot, window)
    check_before()
    for _ in range(steps):
        window.triage.redo()
    settle(qtbot, window)
    check_after()
    for _ in range(steps):
        window.triage.undo()
    settle(qtbot, window)
    check_before()


def _undo(qtbot, window) -> None:
    window.triage.undo()
    settle(qtbot, window)


def _redo(qtbot, window) -> None:
    window.triage.redo()
    settle(qtbot, window)


def test_undo_redo_of_marks_title_and_highlights(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    original = _paper_state(lib, pid)
    actions = [
        lambda: window.triage.toggle_read(),
        lambda: window.triage.toggle_star(),
        lambda: window.triage.set_title("My own title"),
        lambda: window.triage.add_highlight(pid, 3, 17, "#a5d8ff"),
    ]
    states = [original]
    for act in actions:
        assert act()
        settle(qtbot, window)
        states.append(_paper_state(lib, pid))
    assert states[-1][0] == "My own title" and lib.papers.get(pid).title_edited
    assert states[-1][1] is not None and states[-1][2]
    for i in range(len(actions), 0, -1):       # undo one by one
        _undo(qtbot, window)
        now = _paper_state(lib, pid)
        assert now[:1] + now[2:] == states[i - 1][:1] + states[i - 1][2:]
        assert (now[1] is None) == (states[i - 1][1] is None)
    assert _paper_state(lib, pid) == original
    for i in range(1, len(actions) + 1):       # and redo
        _redo(qtbot, window)
        assert _paper_state(lib, pid)[2:] == states[i][2:]
    # the detail pane follows: title label and highlight list
    assert "My own title" in window.detail_pane.title_label.text()
    assert window.detail_pane.highlights.count() == 1


def test_undo_of_restore_derived_title_and_highlight_removal(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    derived = lib.papers.get(pid).derived_title
    window.triage.set_title("Short")
    window.triage.set_title(None)
    settle(qtbot, window)
    assert lib.papers.get(pid).title == derived and not lib.papers.get(pid).title_edited
    _undo(qtbot, window)
    assert lib.papers.get(pid).title == "Short"
    _undo(qtbot, window)
    assert lib.papers.get(pid).title == derived

    assert window.triage.add_highlight(pid, 0, 9)
    settle(qtbot, window)
    (h,) = lib.notes.highlights(pid)
    assert window.run_edit(lambda lib: lib.notes.set_highlight_comment(h.id, "why"))
    assert window.triage.remove_highlight(h.id)
    settle(qtbot, window)
    assert lib.notes.highlights(pid) == []
    _undo(qtbot, window)
    (back,) = lib.notes.highlights(pid)
    assert (back.id, back.start, back.end, back.comment) == (h.id, 0, 9, "why")
    _undo(qtbot, window)
    assert lib.notes.highlights(pid)[0].comment == ""
    window.triage.redo()
    window.triage.redo()
    settle(qtbot, window)
    assert lib.notes.highlights(pid) == []


def test_tag_add_remove_single_and_bulk(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("solo", [ids[0]])
    window.triage.add_tag("group", ids[:6])
    window.triage.remove_tag("group", ids[2:4])
    settle(qtbot, window)
    assert set(lib.papers.ids(tag_id=lib.tags.by_name("group").id)) == {
        ids[0], ids[1], ids[4], ids[5]}
    _undo(qtbot, window)
    assert set(lib.papers.ids(tag_id=lib.tags.by_name("group").id)) == set(ids[:6])
    _undo(qtbot, window)                           # the bulk add is one step
    assert lib.tags.by_name("group") is None
    _undo(qtbot, window)
    assert lib.tags.all() == []
    window.triage.redo()
    window.triage.redo()
    window.triage.redo()
    settle(qtbot, window)
    assert lib.tags.by_name("solo").count == 1 and lib.tags.by_name("group").count == 4
    # the list and the tag pane follow
    assert [t.name for t in window.tag_pane.tag_entries()] == ["group", "solo"]
    assert window.model.summary(ids[0]).tags == ("group", "solo")


def test_merge_by_rename_and_undo_restores_both_tags(qtbot, win):
    window, lib = win, win.lib
    p1, p2, p3 = window.model.ids()[:3]
    window.triage.add_tag("ML", [p1, p2])
    window.triage.add_tag("deep", [p3])
    settle(qtbot, window)
    window.triage.set_tag_key(lib.tags.by_name("deep").id, 3)
    settle(qtbot, window)
    before = _tags(lib)
    assert window.triage.rename_tag(lib.tags.by_name("deep").id, "ml")
    settle(qtbot, window)
    assert [(t.name, t.count) for t in lib.tags.all()] == [("ml", 3)]
    assert set(lib.papers.ids(tag_id=lib.tags.all()[0].id)) == {p1, p2, p3}
    assert [t.name for t in window.tag_pane.tag_entries()] == ["ml"]
    assert "Merge" in window.lib.undo_label
    after = _tags(lib)

    _undo(qtbot, window)
    assert _tags(lib) == before                   # same ids, colours, keys, papers
    assert [(t.name, t.count) for t in lib.tags.all()] == [("deep", 1), ("ML", 2)]
    assert [t.name for t in window.tag_pane.tag_entries()] == ["deep", "ML"]
    _redo(qtbot, window)
    assert _tags(lib) == after
    _undo(qtbot, window)
    assert _tags(lib) == before


def test_rename_delete_recolour_and_key_of_tags(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("a", ids[:2])
    window.triage.add_tag("b", ids[2:3])
    settle(qtbot, window)
    window.triage.set_tag_key(lib.tags.by_name("b").id, 2)
    settle(qtbot, window)
    start = _tags(lib)
    a_id = lib.tags.by_name("a").id
    steps = [
        lambda: window.triage.rename_tag(a_id, "Alpha"),
        lambda: window.triage.set_tag_colour(a_id, "#123456"),
        lambda: window.triage.set_tag_key(a_id, 2),              # takes key 2 from "b"
        lambda: window.triage.delete_tag(lib.tags.by_name("b").id),
        lambda: window.triage.create_tag("empty", "#abcdef", 9),
    ]
    snapshots = [start]
    for step in steps:
        assert step()
        settle(qtbot, window)
        snapshots.append(_tags(lib))
    assert set(snapshots[-1]) == {"Alpha", "empty"}
    assert snapshots[-1]["Alpha"][1:3] == ("#123456", 2)
    for i in range(len(steps), 0, -1):
        _undo(qtbot, window)
        assert _tags(lib) == snapshots[i - 1], i
    for i in range(1, len(steps) + 1):
        _redo(qtbot, window)
        assert _tags(lib) == snapshots[i], i


def test_deleting_the_chosen_tag_falls_back_to_all_papers(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("pick", ids[:3])
    settle(qtbot, window)
    tag_id = lib.tags.by_name("pick").id
    assert window.tag_pane.select_scope(Scope(tag_id=tag_id))
    wait_listed(qtbot, window)      # the list's ids are read off the UI thread
    assert window.model.rowCount() == 3
    # the counts are read off the UI thread too (at load 4 they came after the rows)
    qtbot.waitUntil(lambda: window.status_text().startswith("3 papers  ·  tag “pick”"),
                    timeout=WAIT_MS)
    window.triage.delete_tag(tag_id)
    settle(qtbot, window)
    assert window.current_scope().tag_id is None
    wait_listed(qtbot, window)
    assert window.model.rowCount() == TOTAL
    _undo(qtbot, window)
    assert lib.tags.by_name("pick").count == 3


def test_note_autosaves_merge_into_one_undo_step(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    steps = len(window.lib.undo_stack)
    window.reading.focus_note()
    editor = window.detail_pane.note_editor
    for burst in ("First idea.", " Second idea.", " Third."):
        qtbot.keyClicks(editor, burst)
        qtbot.wait(650)                            # each pause triggers an autosave
    settle(qtbot, window)
    assert lib.notes.get(pid) == "First idea. Second idea. Third."
    assert len(window.lib.undo_stack) == steps + 1
    _undo(qtbot, window)
    assert lib.notes.get(pid) == "" and editor.toPlainText() == ""
    _redo(qtbot, window)
    assert lib.notes.get(pid) == "First idea. Second idea. Third."
    assert editor.toPlainText() == lib.notes.get(pid)
    # another visit to the paper starts a new step
    press(qtbot, window, Qt.Key.Key_Escape)
    window.reading.next_paper()
    window.reading.previous_paper()
    window.reading.focus_note()
    qtbot.keyClicks(editor, " More.")
    press(qtbot, window, Qt.Key.Key_Escape)        # Esc saves at once
    settle(qtbot, window)
    assert lib.notes.get(pid).endswith("Third. More.")
    assert len(window.lib.undo_stack) == steps + 2
    _undo(qtbot, window)
    assert lib.notes.get(pid) == "First idea. Second idea. Third."


def test_switching_paper_saves_the_note_first(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    window.reading.focus_note()
    qtbot.keyClicks(window.detail_pane.note_editor, "quick")
    window.reading.next_paper()                             # no autosave wait: saved on switching
    settle(qtbot, window)
    assert lib.notes.get(pid) == "quick"
    assert window.detail_pane.note_editor.toPlainText() == ""


def test_undo_while_typing_saves_then_undoes(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    window.triage.toggle_star()
    window.reading.focus_note()
    qtbot.keyClicks(window.detail_pane.note_editor, "typed")
    _undo(qtbot, window)                            # saves "typed", then undoes it
    assert lib.notes.get(pid) == ""
    _undo(qtbot, window)
    assert not lib.papers.get(pid).starred


def test_errors_become_messages_not_tracebacks(qtbot, win):
    window, lib = win, win.lib
    steps = len(window.lib.undo_stack)
    window.reading.focus_tag_editor()
    qtbot.keyClicks(window.focusWidget(), "a,b")
    press(qtbot, window, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert "comma" in window.statusBar().currentMessage()
    assert "Traceback" not in window.statusBar().currentMessage()
    assert lib.tags.all() == [] and len(window.lib.undo_stack) == steps
    window.triage.add_tag("x", [window.current_paper_id()])
    settle(qtbot, window)
    steps = len(window.lib.undo_stack)
    # the refused rename is queued (True), then comes back as a message, no undo step
    assert window.triage.rename_tag(lib.tags.by_name("x").id, "   ")
    settle(qtbot, window)
    assert len(window.lib.undo_stack) == steps and lib.tags.by_name("x") is not None
    assert "empty" in window.statusBar().currentMessage()


@pytest.mark.parametrize("query_word", ["zebrafish"])
def test_visible_search_follows_annotations_after_index_sync(qtbot, win, query_word):
    window, lib = win, win.lib
    assert lib.auto_sync_index is False
    window.focus_search()
    qtbot.keyClicks(window.search_box, f"pruning OR note:{query_word}")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=20000)
    before = window.model.rowCount()
    assert before > 0
    window.search_box.clear()
    qtbot.waitUntil(lambda: not window.model.searching, timeout=20000)
    wait_listed(qtbot, window)
    target = next(i for i in window.model.ids()
                  if "pruning" not in lib.papers.get(i).abstract.lower())
    window.select_row(window.model.row_of(target))
    window.triage.save_note(target, f"Reminds me of {query_word} studies")
    window.focus_search()
    qtbot.keyClicks(window.search_box, f"pruning OR note:{query_word}")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.rowCount() == before + 1, timeout=20000)
    assert window.model.row_of(target) >= 0
    # a change while the search is shown: the list is searched again after the sync
    window.select_row(window.model.row_of(target))
    window.triage.save_note(target, "nothing to see")
    qtbot.waitUntil(lambda: window.model.rowCount() == before and not window.is_busy(),
                    timeout=20000)
    assert window.model.row_of(target) == -1
    assert window.sync_runner.runs >= 2


def test_edit_menu_names_the_step_from_the_core(qtbot, win):
    window, lib = win, win.lib
    assert not window.undo_action.isEnabled() and window.undo_action.text() == "&Undo"
    pid = window.current_paper_id()
    press(qtbot, window, "s")
    settle(qtbot, window)
    assert lib.papers.get(pid).starred
    assert window.undo_action.isEnabled()
    assert window.undo_action.text() == "&Undo Star paper" == "&Undo " + lib.undo_label
    window.triage.add_tag("depth", [pid])
    settle(qtbot, window)
    assert window.undo_action.text() == "&Undo Tag ‘depth’"
    window.undo_action.trigger()
    settle(qtbot, window)
    assert lib.papers.get(pid).tags == () and window.redo_action.text() == "&Redo Tag ‘depth’"
    assert window.undo_action.text() == "&Undo Star paper"


def test_keys_pressed_before_the_writer_catches_up_name_and_undo_their_own_steps(qtbot,
                                                                                 win):
    """The writer is held back while S, 1 and Ctrl+Z are pressed: each message names its
    own step, and Ctrl+Z undoes the newest step once it is committed (it was dropped
    when nothing was committed yet, and "Star paper" was reported as "Tag ‘depth’")."""
    window, lib = win, win.lib
    assert window.triage.create_tag("depth", key=1)
    settle(qtbot, window)
    pid = window.current_paper_id()
    messages = []
    window.editMessageShown.connect(messages.append)
    gate = threading.Event()
    window.worker.write(lambda lib: gate.wait(10))          # the writer is busy
    press(qtbot, window, "s", "1")
    last = window.worker.write(lambda lib: None)
    gate.set()
    assert last.wait(10)             # both edits committed before either is delivered
    settle(qtbot, window)
    assert lib.papers.get(pid).starred and [t.name for t in lib.papers.get(pid).tags] == ["depth"]
    assert [m for m in messages if "Ctrl+Z" in m] == [
        "Star paper  —  Ctrl+Z to undo", "Tag ‘depth’  —  Ctrl+Z to undo"]

    gate.clear()
    window.worker.write(lambda lib: gate.wait(10))
    press(qtbot, window, "s")                                # unstar, not yet committed
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    gate.set()
    settle(qtbot, window)
    assert lib.papers.get(pid).starred                              # the unstar was undone
    assert window.edit_label.full_text == "Undone: Unstar paper"
    assert window.undo_action.text() == "&Undo Tag ‘depth’"


def test_ctrl_z_before_the_first_edit_is_committed_is_not_lost(qtbot, win):
    """With nothing on the undo stack yet, S then Ctrl+Z then Ctrl+Shift+Z pressed while
    the writer is busy: the Undo and Redo actions stay enabled while the edits are on
    their way, so each key reaches the writer in order (Ctrl+Z used to be dropped by the
    disabled action)."""
    window, lib = win, win.lib
    pid = window.current_paper_id()
    assert len(lib.undo_stack) == 0 and not window.undo_action.isEnabled()
    gate = threading.Event()
    window.worker.write(lambda lib: gate.wait(10))          # the writer is busy
    press(qtbot, window, "s")
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    gate.set()
    settle(qtbot, window)
    assert not lib.papers.get(pid).starred and len(lib.undo_stack) == 0
    assert window.redo_action.text() == "&Redo Star paper"
    gate.clear()
    window.worker.write(lambda lib: gate.wait(10))
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)      # redo
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    gate.set()
    settle(qtbot, window)
    assert not lib.papers.get(pid).starred and window.redo_action.text() == "&Redo Star paper"


def test_a_toggle_pressed_twice_quickly_comes_back(qtbot, win):
    """S S and R R pressed before the writer catches up: each toggle is decided on the
    writer thread after the one before it, so the paper ends as it started, in four
    steps."""
    window, lib = win, win.lib
    pid = window.current_paper_id()
    assert window.triage.create_tag("depth", key=1)
    settle(qtbot, window)
    before = (lib.papers.get(pid).starred, lib.papers.get(pid).read, lib.papers.get(pid).tags)
    steps = len(lib.undo_stack)
    gate = threading.Event()
    window.worker.write(lambda lib: gate.wait(10))
    press(qtbot, window, "s", "s", "r", "r", "1", "1")
    gate.set()
    settle(qtbot, window)
    assert (lib.papers.get(pid).starred, lib.papers.get(pid).read, lib.papers.get(pid).tags) == before
    assert len(lib.undo_stack) == steps + 6


def test_a_stars_message_leaves_the_search_count_in_sight(qtbot, win):
    """The tester's P3: a star's "Star paper — Ctrl+Z to undo" went up as a temporary
    status message, which hides the status bar's other widgets: the search's "N of M
    match" was gone for 4 s. The message now sits beside the counts."""
    window = win
    window.focus_search()
    qtbot.keyClicks(window.search_box, "model")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy()
                    and " match" in window.status_label.text(), timeout=WAIT_MS)
    count = window.status_label.text()
    window.focus_list()
    window.select_row(0)
    press(qtbot, window, "s")
    qtbot.waitUntil(lambda: window.edit_label.full_text == "Star paper  —  Ctrl+Z to undo"
                    and window.edit_label.isVisible(), timeout=WAIT_MS)
    assert window.status_label.isVisible() and window.status_label.text() == count
    assert window.statusBar().currentMessage() == ""
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.edit_label.full_text == "Undone: Star paper", timeout=WAIT_MS)
    assert window.status_label.isVisible() and " match" in window.status_label.text()


def test_the_status_bars_widgets_keep_their_order(qtbot, win):
    """The counts, then an edit's message, then the near-duplicates button before the
    unread count (it was inserted among the normal widgets' positions and went to the
    far right once the edit's message became one)."""
    from PySide6.QtCore import QCoreApplication

    window = win
    button = window.duplicates.duplicates_button
    button.setText("2 possible duplicates")
    button.show()
    window.show_edit_message("Star paper  —  Ctrl+Z to undo")
    QCoreApplication.processEvents()
    xs = [w.geometry().x() for w in (window.status_label, window.edit_label, button,
                                     window.unread_label)]
    assert xs == sorted(xs) and len(set(xs)) == 4, xs



def test_an_edits_message_leaves_the_counts_whole_beside_an_imports_progress(qtbot, win):
    """The tester's second round: during an import the progress line takes some 500 px,
    and at 1024 px an edit's message took its whole 45 characters first, so the counts
    were cut to "92 of 2". The counts now keep their whole text; the message gets the
    room left (elided); once the progress line goes, a short one shows whole."""
    window = win
    bar = window.statusBar()
    window.resize(1024, 700)
    window.status_label.setText("92 of 225 match  ·  3 selected")
    window.import_progress_label.setText("Storing · 27,837 of 30,192 records · about 10 "
                                         "min 5 s left, then indexing")
    window.import_progress_label.show()
    window.progress_bar.show()                  # as an import shows them (the tester's
    window.cancel_button.show()                 # third round: these cut the counts too)
    message = "Tag 3 papers ‘a rather long tag name’  —  Ctrl+Z to undo"
    window.show_edit_message(message)
    label, edit = window.status_label, window.edit_label
    whole = label.fontMetrics().horizontalAdvance(label.text())

    def laid_out():
        return (bar.width() <= 1024 and edit.isVisible() and edit.width() > 40
                and edit.geometry().right() < window.unread_label.geometry().left()
                and label.width() >= whole)

    qtbot.waitUntil(laid_out, timeout=WAIT_MS)
    assert edit.elided and edit.full_text == message      # what is left of the room
    line = window.import_progress_label
    for width in (900, 800, 700):           # narrower: the progress line gives way too,
        window.resize(width, 700)           # after a message's first words (the tester's
        window.show_edit_message(message)   # fourth round: it had no room at 1024 px)
        qtbot.waitUntil(lambda: bar.width() <= width and label.width() >= whole
                        and line.geometry().left() >= label.geometry().right()
                        and edit.isVisible() and edit.width() >= 100, timeout=WAIT_MS)
        assert window.width() <= width + 5
    assert line.elided and line.width() > 40        # elided, its whole text in its tooltip
    window.resize(1024, 700)
    window.progress_bar.hide()
    window.cancel_button.hide()
    window.import_progress_label.hide()     # the import is over: a short message is whole
    window.show_edit_message("Star paper  —  Ctrl+Z to undo")
    qtbot.waitUntil(lambda: not edit.elided and edit.isVisible() and label.width() >= whole,
                    timeout=WAIT_MS)
