"""The Duplicates view: the stage after an import, the status bar's count, keys to go
through the pairs, "not duplicates" and merging, undone with Ctrl+Z."""

from __future__ import annotations

import re
import sys
import time
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



def _unchecked(folder: Path) -> int:
    """Papers the near-duplicate stage has not looked at, counted on a connection of the
    test's own."""
    import sqlite_utils

    from paperdesk.core.store.duplicates import unchecked_count

    db = sqlite_utils.Database(folder / "library.db")
    try:
        return unchecked_count(db)
    finally:
        db.close()


def test_an_import_started_while_the_stage_runs_goes_first(qtbot, open_seeded, tmp_path,
                                                           monkeypatch):
    """The window opens on a library whose papers the stage never looked at (as after
    a large import by a window closed before its stage ended) and starts the stage;
    an import started then is stored at once, not after the whole stage (both are bulk
    jobs of the one writer thread: at 1.25 million papers the import waited more than
    eight minutes). The stage stops after its batch and looks at the rest, the new
    papers too, once the import has ended."""
    from paperdesk.core.edits import duplicates as stage
    from paperdesk.core.library import Library

    folder = tmp_path / "unlooked"
    abstracts = _abstracts()[:200]
    with Library.open(folder) as lib:
        lib.imports.run([write_daily(tmp_path / "library.txt", abstracts)])
    assert _unchecked(folder) == len(abstracts)
    # a stage that takes a while: 40 batches of 5 papers, 0.1 s each at least
    look_at = stage.Duplicates._look_at

    def slow_look_at(self, *args, **kwargs):
        time.sleep(0.1)
        return look_at(self, *args, **kwargs)

    monkeypatch.setattr(stage, "DUPLICATE_BATCH", 5)
    monkeypatch.setattr(stage.Duplicates, "_look_at", slow_look_at)
    window = open_seeded("unlooked", fresh=False)
    qtbot.waitUntil(lambda: _unchecked(folder) < len(abstracts), timeout=10000)
    assert window.duplicates.duplicate_finder.is_running()
    left_when_stored = []
    window.import_runner.finished.connect(
        lambda _report: left_when_stored.append(_unchecked(folder)))
    new = [_edited(t, 7) for t in _abstracts()[200:203]]
    assert window.start_import([write_daily(tmp_path / "new.txt", new)])
    qtbot.waitUntil(lambda: bool(left_when_stored), timeout=20000)
    # stored while most of the library was still to be looked at (without giving
    # way, the import ran after the whole stage: only its own 3 papers were left)
    assert left_when_stored[0] > len(new) + 100
    # the stage went on afterwards and looked at every paper, the new ones too
    qtbot.waitUntil(lambda: _unchecked(folder) == 0 and not window.is_busy(),
                    timeout=30000)
