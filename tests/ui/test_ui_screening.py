"""The screening mode from the keyboard (issue 26, item 4): Ctrl+Shift+R asks for the
tag, i includes, e excludes, p skips, Ctrl+Z undoes a decision, Esc leaves; the banner
counts and estimates, the list is in the live order with the excluded papers muted and
marked. On the seed library (225 papers)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from ui_fixtures import TOTAL, WAIT_MS, open_seeded, press, settle, win  # noqa: F401

from paperdesk.core.scope import Scope
from paperdesk.ui.panes.paper_model import ExcludedRole, PaperTableModel, TagsRole


def _banner(window) -> str:
    return window.screening.banner.text()


def _start(qtbot, window, name: str) -> None:
    """Ctrl+Shift+R, type the tag's name, Enter; wait for the first paper."""
    window.focus_list()
    _press_key(qtbot, window, Qt.Key.Key_R,
               Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.screening.dialog is not None
                    and window.screening.dialog.isVisible(), timeout=WAIT_MS)
    field = window.screening.tag_text()
    field.selectAll()
    qtbot.keyClicks(field, name)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.screening.standing is not None, timeout=WAIT_MS)
    settle(qtbot, window)
    window.focus_list()


def _press_key(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window.focusWidget() or window, key, modifier)


def _wait_banner(qtbot, window, text: str) -> None:
    qtbot.waitUntil(lambda: text in _banner(window), timeout=WAIT_MS)


def _tagged(lib, name) -> set[int]:
    tag = lib.tags.by_name(name)
    return set(lib.papers.scope_ids(Scope(tag_id=tag.id)))


def test_screening_from_the_keyboard(qtbot, win):
    window, lib = win, win.lib
    _start(qtbot, window, "review")                 # a new tag: created
    assert lib.tags.by_name("review") is not None
    assert "Screening for ‘review’: 0 included · 0 excluded · 225 left" in _banner(window)
    assert "No relevant paper found yet" in _banner(window)
    assert "i include · e exclude · p skip · Ctrl+Z undo · Esc leave" in _banner(window)
    first = window.current_paper_id()
    assert first == window.screening.standing.next_id == window.model.paper_id(0)

    _press_key(qtbot, window, Qt.Key.Key_I)         # yes: tagged, committed, shown done
    _wait_banner(qtbot, window, "1 included · 0 excluded · 224 left")
    assert _tagged(lib, "review") == {first}
    assert lib.undo_label == "Include in ‘review’"
    assert "Include in ‘review’" in window.edit_label.full_text
    second = window.current_paper_id()
    assert second != first and second == window.screening.standing.next_id
    assert window.model.paper_id(0) == second        # the top of the live order
    assert "1 relevant found so far; an estimate of how many there are needs some " \
        "papers excluded" in _banner(window)

    _press_key(qtbot, window, Qt.Key.Key_E)         # no: excluded, muted and marked
    _wait_banner(qtbot, window, "1 included · 1 excluded · 223 left")
    _wait_banner(qtbot, window, "About 1 of an estimated")
    tag = lib.tags.by_name("review")
    assert lib.screening.excluded_ids(tag.id) == {second}
    row = window.model.row_of(second)
    index = window.model.index(row, PaperTableModel.TITLE)
    assert index.data(ExcludedRole) is True
    assert ("✕ review", "#9e9e9e") in index.data(TagsRole)
    assert "Excluded from ‘review’" in index.data(Qt.ItemDataRole.ToolTipRole)
    third = window.current_paper_id()
    assert third not in (first, second)

    _press_key(qtbot, window, Qt.Key.Key_P)         # skip: another paper, no decision
    qtbot.waitUntil(lambda: window.current_paper_id() != third, timeout=WAIT_MS)
    assert "1 included · 1 excluded · 223 left" in _banner(window)

    _press_key(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    _wait_banner(qtbot, window, "1 included · 0 excluded · 224 left")
    assert lib.screening.excluded_ids(tag.id) == set()
    assert window.model.index(window.model.row_of(second),
                              PaperTableModel.TITLE).data(ExcludedRole) is False

    _press_key(qtbot, window, Qt.Key.Key_Escape)    # leave: no banner, no marks, no keys
    assert not window.screening.active and not window.screening.banner.isVisible()
    _press_key(qtbot, window, Qt.Key.Key_E)
    settle(qtbot, window)
    assert lib.screening.excluded_ids(tag.id) == set()


def test_the_keys_do_nothing_outside_screening_and_stay_text_in_the_search_box(qtbot, win):
    window, lib = win, win.lib
    before = window.current_paper_id()
    for key in (Qt.Key.Key_I, Qt.Key.Key_E, Qt.Key.Key_P):
        _press_key(qtbot, window, key)
    settle(qtbot, window)
    assert lib.db.execute("SELECT count(*) FROM screening_decisions").fetchone()[0] == 0
    assert window.current_paper_id() == before and lib.undo_label is None
    assert window.statusBar().currentMessage() == (
        "i, e and p decide while screening: Edit ▸ Screening ▸ Screen for Tag… "
        "(Ctrl+Shift+R)")
    _start(qtbot, window, "review")
    press(qtbot, window, "/")
    qtbot.keyClicks(window.search_box, "pie")
    assert window.search_box.text() == "pie"
    settle(qtbot, window)
    assert lib.db.execute("SELECT count(*) FROM screening_decisions").fetchone()[0] == 0


def test_a_search_is_screened_and_the_shortcuts_window_lists_the_keys(qtbot, win):
    from paperdesk.ui.window.actions import shortcut_rows

    window, lib = win, win.lib
    press(qtbot, window, "/")
    qtbot.keyClicks(window.search_box, "depth")
    qtbot.waitUntil(lambda: window.model.searching and window.model.rowCount() > 0,
                    timeout=WAIT_MS)
    hits = set(window.model.ids())
    press(qtbot, window, Qt.Key.Key_Return)          # to the list
    _start(qtbot, window, "review")
    standing = window.screening.standing
    assert standing.left == len(hits) and standing.next_id in hits
    for _ in range(3):
        _press_key(qtbot, window, Qt.Key.Key_I)
        settle(qtbot, window)
    _wait_banner(qtbot, window, f"3 included · 0 excluded · {len(hits) - 3} left")
    assert _tagged(lib, "review") <= hits
    rows = dict(shortcut_rows())
    assert {"i", "e", "p"} <= set(rows) and "Ctrl+Shift+R" in rows
    assert QApplication.focusWidget() is window.table
