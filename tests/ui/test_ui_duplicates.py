"""The Duplicates view: the stage after an import, the status bar's count, keys to go
through the pairs, "not duplicates" and merging, undone with Ctrl+Z."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from ui_fixtures import TOTAL, open_seeded, settle, wait_idle, win  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from helpers import write_daily  # noqa: E402

from paperdesk.core.imports.daily_papers import read_file  # noqa: E402
from paperdesk.ui.window.actions import ACTIONS  # noqa: E402
from paperdesk.ui.window.duplicates_view import DIFF_COLOURS  # noqa: E402

SEEDS = sorted((Path(__file__).resolve().parents[2] / "seeds").glob("*.txt"))


def _abstracts():
    out = []
    for f in SEEDS:
        out += [a.abstract for a in read_file(f).abstracts]
    return list(dict.fromkeys(out))


def _edited(text: str, n: int) -> str:
    s = re.split(r"(?<=[.!?]) (?=[A-Z])", text)
    s.insert(len(s) - 1, f"In version {n + 2} we add results on a larger model and fix "
                         "an error in the proof.")
    return " ".join(s).replace(", ", "; ", 1)


@pytest.fixture
def with_pairs(qtbot, win, tmp_path):
    """The seed window after importing edited copies of three seed abstracts."""
    texts = [_edited(t, i) for i, t in enumerate(_abstracts()[4:7])]
    path = write_daily(tmp_path / "edited.txt", texts)
    assert win.start_import([path])
    qtbot.waitUntil(lambda: win.duplicates.duplicate_count_text() == "3 possible duplicates",
                    timeout=20000)
    wait_idle(qtbot, win)
    return win


def _open_view(qtbot, window):
    qtbot.keyClick(window.table, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    dialog = window.duplicates.duplicates_dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.shown_papers() is not None, timeout=10000)
    return dialog


def _key(qtbot, dialog, key, modifier=Qt.KeyboardModifier.NoModifier):
    target = QApplication.focusWidget() or dialog
    qtbot.keyClick(target, key, modifier)


def test_the_action_is_in_the_table_with_its_shortcut():
    spec = next(a for a in ACTIONS if a.name == "duplicatesAction")
    assert spec.menu == "view" and spec.shortcuts == ("Ctrl+D",)


def test_the_seed_library_has_no_pairs(qtbot, win):
    wait_idle(qtbot, win)
    assert win.lib.duplicates.pending() == 0   # looked at on start-up
    assert win.duplicates.duplicate_count_text() == ""


def test_an_import_flags_pairs_and_the_view_shows_them(qtbot, with_pairs):
    window = with_pairs
    from paperdesk.ui.window.import_report import summary_text

    assert window.imports.last_import_report.near_duplicates == 3
    assert "3 possible near-duplicate pairs flagged" in summary_text(
        window.imports.last_import_report)
    dialog = _open_view(qtbot, window)
    assert len(dialog.pairs()) == 3
    assert dialog.pair_list.currentRow() == 0
    a, b = dialog.shown_papers()
    assert a.id == dialog.current_pair().paper_a and b.id > TOTAL
    # the differences are marked on both sides, in the light theme's colours
    left, right = dialog.left.toHtml(), dialog.right.toHtml()
    assert DIFF_COLOURS[False]["added"][0] in right
    assert DIFF_COLOURS[False]["removed"][0] in left
    assert "larger model" in dialog.right.toPlainText()
    assert "larger model" not in dialog.left.toPlainText()
    _key(qtbot, dialog, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: dialog.shown_papers()[0].id == dialog.pairs()[1].paper_a)
    assert dialog.pair_label.text().startswith("Pair 2 of 3")
    _key(qtbot, dialog, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: dialog.shown_papers()[0].id == dialog.pairs()[0].paper_a)
    _key(qtbot, dialog, Qt.Key.Key_Down)
    assert dialog.pair_list.currentRow() == 1


def test_not_duplicates_and_undo_in_the_main_window(qtbot, with_pairs):
    window = with_pairs
    dialog = _open_view(qtbot, window)
    first = dialog.current_pair()
    _key(qtbot, dialog, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: len(dialog.pairs()) == 2, timeout=10000)
    settle(qtbot, window)
    assert window.duplicates.duplicate_count_text() == "2 possible duplicates"
    assert [p.paper_a for p in window.lib.duplicates.pairs("dismissed")] == [first.paper_a]
    dialog.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.duplicates.duplicate_count_text() == "3 possible duplicates",
                    timeout=10000)
    assert window.lib.duplicates.pairs("dismissed") == []


def test_text_from_files_is_escaped(qtbot, win, tmp_path):
    hostile = ("We show that loss<0.5 &amp; accuracy>90% when <k> layers are used, "
               "for networks that learn features of images with attention and "
               "convolution in many layers at scale.")
    path = write_daily(tmp_path / "h.txt", [hostile, hostile.replace("scale.", "scale!")
                                            + " Extra sentence here."])
    assert win.start_import([path])
    qtbot.waitUntil(lambda: win.duplicates.duplicate_count_text() == "1 possible duplicate",
                    timeout=20000)
    dialog = _open_view(qtbot, win)
    assert "loss<0.5 &amp; accuracy>90% when <k> layers" in dialog.left.toPlainText()
    assert "loss<0.5 &amp; accuracy>90% when <k> layers" in dialog.right.toPlainText()


@pytest.mark.parametrize("key, kept", [(Qt.Key.Key_L, "left"), (Qt.Key.Key_R, "right")])
def test_merge_from_the_view_and_undo(qtbot, with_pairs, key, kept):
    window = with_pairs
    lib = window.lib
    dialog = _open_view(qtbot, window)
    a, b = dialog.shown_papers()
    keep, other = (a, b) if kept == "left" else (b, a)
    window.lib.tags.add([other.id], "from the other")   # not through the window: no undo
    window.lib.notes.set(other.id, "Seen at the workshop.", undoable=False)
    _key(qtbot, dialog, key)
    # the status bar says what moved to the kept paper (the tester's merge of a paper
    # with a note said only "1 tag(s) added")
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith(
        f"Merged paper {other.id} into {keep.id}: its note and 1 tag moved"), timeout=10000)
    qtbot.waitUntil(lambda: len(dialog.pairs()) == 2, timeout=10000)
    settle(qtbot, window)
    assert lib.papers.count() == TOTAL + 3 - 1
    assert "from the other" in [t.name for t in lib.papers.get(keep.id).tags]
    assert window.model.row_of(other.id) < 0 <= window.model.row_of(keep.id)
    assert window.duplicates.duplicate_count_text() == "2 possible duplicates"
    # Ctrl+Z in the view, then redo and Ctrl+Z in the main window
    _key(qtbot, dialog, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(dialog.pairs()) == 3, timeout=10000)
    settle(qtbot, window)
    assert lib.papers.count() == TOTAL + 3 and lib.papers.get(other.id).abstract == other.abstract
    _key(qtbot, dialog, Qt.Key.Key_Z,
         Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: len(dialog.pairs()) == 2, timeout=10000)
    dialog.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.duplicates.duplicate_count_text() == "3 possible duplicates",
                    timeout=10000)
    assert lib.papers.count() == TOTAL + 3
    qtbot.waitUntil(lambda: window.model.row_of(other.id) >= 0, timeout=10000)
