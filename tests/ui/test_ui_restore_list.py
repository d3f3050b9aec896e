"""Issue 32, item 4: reopening brings back the sidebar's filter or tag, the saved search
and the order ("worth reading first") the window was left on, as Zotero brings back the
selected collection. Chosen with keys, the window closed and opened again on the same
library and preferences."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from paperdesk.core.discover.evaluation import load_labels  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.core.scope import Scope  # noqa: E402
from paperdesk.ui import create_main_window  # noqa: E402
from paperdesk.ui.app.settings import Settings  # noqa: E402
from ui_fixtures import WAIT_MS, make_settings, press, show_active, wait_idle  # noqa: E402

LABELS = Path(__file__).resolve().parents[1] / "core" / "data" / "seed_topics.json"
SAVED = ("depth", "depth estimation")


@pytest.fixture
def library(tmp_path, _seeded_template):
    """A copy of the seed library with a tag on the depth-estimation papers, 6 of them
    starred (enough for "worth reading first" to rank)."""
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        topics = load_labels(lib, json.loads(LABELS.read_text("utf-8")))
        depth = sorted(p for p, topic in topics.items() if topic == "depth-estimation")
        lib.tags.add(depth, "depth")
        lib.papers.set_starred(depth[:6], True)
    return path


@pytest.fixture
def reopen(qtbot, tmp_path, library):
    """``reopen() -> MainWindow`` on ``library`` with the same preferences file each
    time; closing saves the window's state, as in the app."""
    windows = []

    def _open():
        settings = make_settings(tmp_path / "prefs.ini")
        window = create_main_window(library, import_seeds=False, settings=settings)
        windows.append(window)
        show_active(qtbot, window)
        wait_idle(qtbot, window)
        return window

    yield _open
    for window in windows:
        window.close()
        window.shutdown()


def choose_in_sidebar(qtbot, window, chosen) -> None:
    """Shift+Tab into the sidebar, then Down until ``chosen(window)`` holds."""
    for _ in range(12):
        if QApplication.focusWidget() is window.tag_pane:
            break
        press(qtbot, window, Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is window.tag_pane
    for _ in range(30):
        if chosen(window):
            break
        press(qtbot, window, Qt.Key.Key_Down)
    assert chosen(window)
    wait_idle(qtbot, window)


def interest_order(qtbot, window) -> list[int]:
    """Ctrl+Shift+I in the list; wait for the rows to be put in that order."""
    before = window.model.ids()
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_I,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.model.ids() != before, timeout=WAIT_MS)
    wait_idle(qtbot, window)
    return window.model.ids()


def test_reopening_brings_back_the_filter_and_the_order(qtbot, reopen):
    window = reopen()
    choose_in_sidebar(qtbot, window, lambda w: w.current_scope() == Scope(filter="unread"))
    press(qtbot, window, Qt.Key.Key_Down)                      # Unread -> Starred
    assert window.current_scope() == Scope(filter="starred")
    wait_idle(qtbot, window)
    ordered = interest_order(qtbot, window)
    assert len(ordered) == 6
    window.close()

    again = reopen()
    assert again.current_scope() == Scope(filter="starred")
    assert again.tag_pane.current_scope() == Scope(filter="starred")
    assert again.model.interest_sort
    assert again.actions_by_name["sortInterestAction"].isChecked()
    qtbot.waitUntil(lambda: again.model.ids() == ordered, timeout=WAIT_MS)


def test_reopening_brings_back_the_tag(qtbot, reopen):
    window = reopen()
    tag = window.lib.tags.by_name("depth")
    choose_in_sidebar(qtbot, window, lambda w: w.current_scope() == Scope(tag_id=tag.id))
    listed = sorted(window.model.ids())
    window.close()

    again = reopen()
    assert again.current_scope() == Scope(tag_id=tag.id)
    assert again.tag_pane.current_scope() == Scope(tag_id=tag.id)
    assert sorted(again.model.ids()) == listed
    assert not again.model.interest_sort                       # the order was left alone
    # the tag deleted meanwhile: all papers again, no message
    again.lib.tags.delete(tag.id)
    again.close()
    third = reopen()
    assert third.current_scope() == Scope()
    assert third.model.rowCount() == third.lib.papers.count()


def test_reopening_brings_back_the_saved_search(qtbot, reopen, library):
    with Library.open(library) as lib:
        lib.saved_searches.save(*SAVED)
    window = reopen()
    choose_in_sidebar(qtbot, window, lambda w: w.tag_pane.current_saved() == SAVED)
    qtbot.waitUntil(lambda: window.model.searching, timeout=WAIT_MS)
    hits = window.model.ids()
    window.close()

    again = reopen()
    assert again.tag_pane.current_saved() == SAVED
    assert again.search_box.text() == SAVED[1]
    qtbot.waitUntil(lambda: again.model.searching and again.model.ids() == hits,
                    timeout=WAIT_MS)
    assert QApplication.focusWidget() is again.table           # the keys go to the list


@pytest.mark.parametrize("stored, expected", [
    ("tag:12", Scope(tag_id=12)),
    ("filter:unread", Scope(filter="unread")),
    ("filter:nonsense", Scope()),
    ("tag:-3", Scope()),
    ("tag:", Scope()),
    ("source:4", Scope()),      # files are not brought back
    ("\x00garbage", Scope()),
])
def test_the_stored_list_choice_is_checked_and_kept_per_library(tmp_path, stored, expected):
    ini = str(tmp_path / "p.ini")
    settings = make_settings(tmp_path / "p.ini")
    settings.set_list_choice(tmp_path / "lib", Scope(), "my search")
    settings.store.setValue("window/listScope", stored)
    settings.sync()
    again = Settings(QSettings(ini, QSettings.Format.IniFormat))
    assert again.list_choice(tmp_path / "lib") == (expected, "my search")
    assert again.list_choice(tmp_path / "other") == (Scope(), None)
