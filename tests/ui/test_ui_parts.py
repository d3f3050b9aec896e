"""The annotation widgets: note persistence, links in notes, tag pane filters and tags,
tag chips and their colours, the offset map."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from ui_fixtures import (TOTAL, WAIT_MS, open_seeded, press, settle, wait_listed,  # noqa: F401
                         win)

from paperdesk.ui.panes.abstract_view import OffsetMap
from paperdesk.ui.style.colours import contrast_ratio, text_colour_for
from paperdesk.ui.panes.links import is_safe_url, url_at
from paperdesk.ui.panes.note_editor import AUTOSAVE_MS
from paperdesk.core.library import Library
from paperdesk.core.scope import Scope

SRC = Path(__file__).resolve().parents[2] / "src"


def _note_in_db(folder: Path, pid: int) -> str | None:
    db = sqlite3.connect(folder / "library.db")
    try:
        row = db.execute("SELECT body FROM notes WHERE paper_id = ?", [pid]).fetchone()
    finally:
        db.close()
    return row[0] if row else None


# -- notes -------------------------------------------------------------------------------
def test_note_is_saved_within_a_second_and_survives_reopening(qtbot, open_seeded, tmp_path):
    assert AUTOSAVE_MS <= 500
    window = open_seeded()
    pid = window.current_paper_id()
    press(qtbot, window, "n")
    qtbot.keyClicks(window.focusWidget(), "Remember: ablation in table 2")
    qtbot.wait(AUTOSAVE_MS + 300)                   # no paper switch, no close
    assert _note_in_db(tmp_path / "lib", pid) == "Remember: ablation in table 2"
    window.close()

    again = open_seeded(fresh=False)
    again.select_row(again.model.row_of(pid))
    assert again.detail_pane.note_editor.toPlainText() == "Remember: ablation in table 2"
    assert again.tag_pane.filter_entries()[3] == ("has_note", "Has note (1)", 1)
    assert again.lib.search.find("ablation table").total >= 1


def test_closing_saves_a_note_typed_just_before(qtbot, open_seeded, tmp_path):
    window = open_seeded()
    pid = window.current_paper_id()
    window.reading.focus_note()
    qtbot.keyClicks(window.detail_pane.note_editor, "last words")
    window.close()                                   # before the autosave timer fires
    assert _note_in_db(tmp_path / "lib", pid) == "last words"


def test_note_survives_the_process_being_killed(tmp_path, _seeded_template):
    import shutil
    folder = tmp_path / "lib"
    shutil.copytree(_seeded_template, folder)
    script = textwrap.dedent(f"""
        import os, sqlite3, time
        from PySide6.QtCore import QSettings, QTimer
        from PySide6.QtTest import QTest
        from paperdesk.ui import create_main_window, ensure_app
        from paperdesk.ui.app.settings import Settings
        app = ensure_app()
        settings = Settings(QSettings(r"{tmp_path / 'k.ini'}", QSettings.Format.IniFormat))
        window = create_main_window(r"{folder}", import_seeds=False, settings=settings)
        window.show()
        def type_note():
            pid = window.current_paper_id()
            # the list and the reading pane's paper are read off the UI thread
            if pid is None or window.detail_pane.paper_id != pid:
                QTimer.singleShot(50, type_note)
                return
            print(pid, flush=True)
            window.reading.focus_note()
            QTest.keyClicks(window.detail_pane.note_editor, "typed then killed")
            give_up = time.monotonic() + 30
            def kill_once_saved():      # the autosave, not a shutdown, must store it
                db = sqlite3.connect(r"{folder / 'library.db'}", timeout=0.1)
                try:
                    row = db.execute("SELECT body FROM notes WHERE paper_id = ?",
                                     [pid]).fetchone()
                except sqlite3.Error:
                    row = None
                db.close()
                if (row and row[0] == "typed then killed") or time.monotonic() > give_up:
                    os._exit(9)                         # no shutdown, no flush
                QTimer.singleShot(100, kill_once_saved)
            QTimer.singleShot(100, kill_once_saved)
        QTimer.singleShot(100, type_note)
        app.exec()
    """)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 9, out.stderr
    pid = int(out.stdout.split()[0])
    assert _note_in_db(folder, pid) == "typed then killed"


def test_ctrl_click_opens_only_web_links_in_the_note(qtbot, win, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    editor = win.detail_pane.note_editor
    editor.setPlainText("see https://example.org/paper, not javascript:alert(1) "
                        "or file:///etc/passwd")

    def click_at(text: str, modifier=Qt.KeyboardModifier.ControlModifier):
        pos = editor.toPlainText().index(text) + 2
        cursor = editor.textCursor()
        cursor.setPosition(pos)
        point = editor.cursorRect(cursor).center()
        qtbot.mouseClick(editor.viewport(), Qt.MouseButton.LeftButton, modifier, point)

    click_at("https://example.org", Qt.KeyboardModifier.NoModifier)   # plain click: edit
    assert opened == []
    click_at("javascript:")
    click_at("file:///")
    assert opened == []
    click_at("https://example.org")
    assert opened == ["https://example.org/paper"]
    assert url_at("go to http://a.org/x. Then", 8) == "http://a.org/x"
    assert url_at("javascript:alert(1)", 3) is None
    assert not is_safe_url("file:///etc/passwd") and not is_safe_url("javascript:x")
    assert is_safe_url("https://example.org")


def test_refused_abstract_links_are_reported(win, monkeypatch):
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    view = win.detail_pane.abstract_view
    assert not view.openLinks() and not view.openExternalLinks()
    view.anchorClicked.emit(QUrl("javascript:alert(1)"))
    assert opened == []
    assert "only http and https" in win.statusBar().currentMessage()


# -- tag pane ----------------------------------------------------------------------------
def _click(qtbot, pane, item) -> None:
    rect = pane.visualItemRect(item)
    qtbot.mouseClick(pane.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_filters_have_live_counts_and_filter_the_list(qtbot, win):
    window, lib = win, win.lib
    pane = window.tag_pane
    assert [label for _f, label, _n in pane.filter_entries()] == [
        f"Unread ({TOTAL})", "Starred (0)", f"Untagged ({TOTAL})", "Has note (0)"]
    ids = window.model.ids()
    window.select_rows([1, 3])
    window.triage.toggle_star()
    window.triage.add_tag("ml", [ids[0], ids[1]])
    window.triage.save_note(ids[5], "note")
    settle(qtbot, window)
    counts = {f: n for f, _l, n in pane.filter_entries()}
    assert counts == {"unread": TOTAL, "starred": 2, "untagged": TOTAL - 2, "has_note": 1}

    _click(qtbot, pane, pane.filter_item("starred"))
    assert window.current_scope() == Scope(filter="starred")
    wait_listed(qtbot, window)      # the list's ids are read off the UI thread
    assert sorted(window.model.ids()) == sorted([ids[1], ids[3]])
    settle(qtbot, window)      # the counts are read off the UI thread
    assert window.status_text() == "2 papers  ·  Starred"
    assert window.unread_text() == "2 of 2 unread"

    _click(qtbot, pane, pane.tag_item(lib.tags.by_name("ml").id))
    wait_listed(qtbot, window)
    assert sorted(window.model.ids()) == sorted(ids[:2])
    assert window.status_text() == "2 papers  ·  tag “ml”"

    _click(qtbot, pane, pane.filter_item("has_note"))
    wait_listed(qtbot, window)
    assert window.model.ids() == [ids[5]]
    _click(qtbot, pane, pane.item_for(None))
    wait_listed(qtbot, window)
    assert window.model.rowCount() == TOTAL

    # a search applies within the chosen filter
    _click(qtbot, pane, pane.filter_item("untagged"))
    window.focus_search()
    qtbot.keyClicks(window.search_box, "model")
    expected = lib.search.find("model", limit=None, filter="untagged").total
    qtbot.waitUntil(lambda: window.model.searching and window.model.rowCount() == expected
                    and not window.is_busy(), timeout=WAIT_MS)
    assert not set(window.model.ids()) & set(ids[:2])


def test_tag_pane_lists_tags_with_colour_key_and_count(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("Zeta", ids[:3])
    window.triage.add_tag("alpha", ids[3:4])
    settle(qtbot, window)
    window.triage.set_tag_key(lib.tags.by_name("Zeta").id, 4)
    settle(qtbot, window)
    pane = window.tag_pane
    assert [(t.name, t.count, t.key) for t in pane.tag_entries()] == [
        ("alpha", 1, None), ("Zeta", 3, 4)]
    item = pane.tag_item(lib.tags.by_name("Zeta").id)
    assert item.text(0) == "Zeta" and item.text(1) == "4" and item.text(2) == "3"
    assert not item.icon(0).isNull()


def test_tag_pane_menu_signals_reach_the_window(qtbot, win, monkeypatch):
    window, lib = win, win.lib
    window.triage.add_tag("old", window.model.ids()[:2])
    settle(qtbot, window)
    tag_id = lib.tags.by_name("old").id
    pane = window.tag_pane
    pane.recolourTagRequested.emit(tag_id, "#000000")
    settle(qtbot, window)
    assert lib.tags.by_name("old").colour == "#000000"
    pane.bindKeyRequested.emit(tag_id, 5)
    settle(qtbot, window)
    assert lib.tags.for_key(5).id == tag_id
    from PySide6.QtWidgets import QInputDialog
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("renamed", True))
    pane.renameTagRequested.emit(tag_id)
    settle(qtbot, window)
    assert lib.tags.by_name("renamed").id == tag_id
    pane.setCurrentItem(pane.tag_item(tag_id))
    pane.setFocus()
    qtbot.keyClick(pane, Qt.Key.Key_Delete)         # Del deletes the chosen tag
    settle(qtbot, window)
    assert lib.tags.all() == []
    window.triage.undo()
    settle(qtbot, window)
    assert lib.tags.by_name("renamed").count == 2
    pane.newTagRequested.emit()                       # the New Tag dialog: name, key
    qtbot.waitUntil(lambda: window.tag_commands.new_tag_dialog is not None
                    and window.tag_commands.new_tag_dialog.isVisible(), timeout=WAIT_MS)
    dialog = window.tag_commands.new_tag_dialog
    qtbot.keyClicks(dialog.name_edit, "fresh")
    qtbot.keyClick(dialog.key_list, Qt.Key.Key_2)
    qtbot.keyClick(dialog.key_list, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.tags.by_name("fresh").count == 0 and lib.tags.for_key(2).name == "fresh"


# -- chips, list rows and colours ------------------------------------------------------------
def test_chips_show_the_paper_tags_and_remove_them(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    window.triage.add_tag("b-tag", [pid])
    window.triage.add_tag("A-tag", [pid])
    settle(qtbot, window)
    chips = window.detail_pane.chips
    assert chips.chip_names() == ["A-tag", "b-tag"]
    chip = chips.chips()[1]
    fg = text_colour_for(chip.tag.colour)
    assert fg in chip.styleSheet()
    qtbot.mouseClick(chip.remove_button, Qt.MouseButton.LeftButton)
    settle(qtbot, window)
    assert [t.name for t in lib.papers.get(pid).tags] == ["A-tag"]
    assert chips.chip_names() == ["A-tag"]
    window.triage.undo()
    settle(qtbot, window)
    assert chips.chip_names() == ["A-tag", "b-tag"]


def test_tag_editor_completes_existing_names_without_regard_to_case(qtbot, win):
    window, lib = win, win.lib
    ids = window.model.ids()
    window.triage.add_tag("Reinforcement Learning", [ids[5]])
    settle(qtbot, window)
    completer = window.detail_pane.chips.completer
    completer.setCompletionPrefix("learn")
    assert completer.currentCompletion() == "Reinforcement Learning"
    window.reading.focus_tag_editor()
    qtbot.keyClicks(window.focusWidget(), "reinforcement learning")
    press(qtbot, window, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert [t.name for t in lib.papers.get(ids[0]).tags] == ["Reinforcement Learning"]
    assert len(lib.tags.all()) == 1


def test_list_rows_show_bold_unread_star_and_tags(qtbot, win):
    from paperdesk.ui.panes.paper_model import ReadRole, StarredRole, TagsRole
    window, lib = win, win.lib
    model = window.model
    ids = model.ids()
    calls = model.fetch_count
    window.select_row(2)
    window.triage.toggle_star()
    window.triage.toggle_read()
    window.triage.add_tag("hot", [ids[2]])
    settle(qtbot, window)
    index = model.index(2, model.TITLE)
    assert index.data(StarredRole) and index.data(ReadRole)
    assert index.data(Qt.ItemDataRole.FontRole) is None
    assert model.index(3, model.TITLE).data(Qt.ItemDataRole.FontRole).bold()
    colour = lib.tags.by_name("hot").colour
    assert index.data(TagsRole) == (("hot", colour),)
    assert model.fetch_count - calls <= 4           # changed rows only, not a reload
    window.triage.set_title("Edited title")
    settle(qtbot, window)
    assert index.data(Qt.ItemDataRole.DisplayRole) == "Edited title"


def test_chip_text_colour_is_readable():
    from paperdesk.core.edits.annotations import TAG_COLOURS
    for colour in TAG_COLOURS + ("#000000", "#ffffff", "#777777", "#ffe066", "#1f3a93"):
        fg = text_colour_for(colour)
        other = "#ffffff" if fg == "#000000" else "#000000"
        assert contrast_ratio(colour, fg) >= contrast_ratio(colour, other)
        assert contrast_ratio(colour, fg) >= 4.5
    assert text_colour_for("#000000") == "#ffffff"
    assert text_colour_for("#ffe066") == "#000000"


def test_offset_map_handles_astral_characters():
    text = "a𝒪b μ 𝔼x"
    m = OffsetMap(text)
    assert m.utf16_length == len(text.encode("utf-16-le")) // 2
    for i in range(len(text) + 1):
        assert m.to_index(m.to_utf16(i)) == i
    assert m.to_index(3) == 2 and m.to_utf16(2) == 3


def test_detail_pane_title_editing_by_keyboard(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    press(qtbot, window, Qt.Key.Key_F2)
    editor = window.detail_pane.title_editor
    assert window.focusWidget() is editor and editor.selectedText()
    qtbot.keyClicks(editor, "A clear title")
    press(qtbot, window, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert lib.papers.get(pid).title == "A clear title" and lib.papers.get(pid).title_edited
    assert window.detail_pane.reset_title_button.isVisible()
    qtbot.mouseClick(window.detail_pane.reset_title_button, Qt.MouseButton.LeftButton,
                     pos=QPoint(3, 3))
    settle(qtbot, window)
    assert not lib.papers.get(pid).title_edited


def test_f2_in_the_tag_pane_renames_the_tag_not_the_title(qtbot, win, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    window, lib = win, win.lib
    pid = window.current_paper_id()
    title = lib.papers.get(pid).title
    window.triage.add_tag("old", [pid])
    settle(qtbot, window)
    tag_id = lib.tags.by_name("old").id
    pane = window.tag_pane
    pane.setCurrentItem(pane.tag_item(tag_id))
    pane.setFocus()
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("new name", True))
    qtbot.keyClick(pane, Qt.Key.Key_F2)
    settle(qtbot, window)
    assert lib.tags.by_name("new name").id == tag_id
    assert lib.papers.get(pid).title == title
    assert pane.hasFocus()


def test_long_tag_names_do_not_widen_the_window(qtbot, win):
    window, lib = win, win.lib
    pid = window.current_paper_id()
    for c in "WX":
        window.triage.add_tag(c * 60, [pid])
    settle(qtbot, window)
    window.resize(800, 500)
    qtbot.wait(50)
    assert window.detail_pane.minimumSizeHint().width() < 500
    assert window.width() <= 810
    # the tag's "Tag ‘WWW…’ — Ctrl+Z to undo" is elided beside the counts, which stay
    # whole (shown again: at load 4 its 4 s could be over by now)
    window.show_edit_message(f"Tag ‘{'W' * 60}’  —  Ctrl+Z to undo")
    label = window.status_label
    qtbot.waitUntil(lambda: window.edit_label.isVisible() and window.edit_label.elided
                    and label.width() >= label.fontMetrics().horizontalAdvance(label.text()),
                    timeout=WAIT_MS)
    assert window.width() <= 810
    chip = window.detail_pane.chips.chips()[0]
    assert chip.label.text().endswith("…")
    assert "W" * 60 in chip.label.toolTip()


def test_a_narrow_window_keeps_the_list_usable(qtbot, win):
    window = win
    window.resize(1200, 760)
    window.show()
    qtbot.waitExposed(window)
    window.resize(900, 650)
    qtbot.wait(50)
    sizes = window.splitter.sizes()
    assert sizes[1] >= 250, sizes
    assert window.detail_pane.width() >= 300


def test_no_display_is_one_line_not_a_crash(monkeypatch, capsys, tmp_path):
    from paperdesk.ui.app import controller as app
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(app.sys, "platform", "linux")
    assert app.run(tmp_path / "lib") == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no display" in err


def test_screenshot_demo_annotates_through_the_writer(tmp_path):
    """The demo screenshot's edits go through the writer thread; it waits for them
    (it raised IndexError before it did)."""
    out = tmp_path / "shot.png"
    run = subprocess.run([sys.executable, "-m", "paperdesk.ui.app.screenshot", str(out),
                          "--library", str(tmp_path / "lib"), "--demo", "--saved",
                          "--size", "800x500"], capture_output=True, text=True,
                         timeout=180, env={k: v for k, v in os.environ.items()
                                           if k != "QT_QPA_PLATFORM"})  # offscreen itself
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and out.stat().st_size > 10000
    with Library.open(tmp_path / "lib") as lib:
        assert len(lib.saved_searches.all()) >= 3 and lib.tags.by_name("to read").count > 0
        (target,) = [p for p in lib.papers.ids() if lib.notes.get(p)]
        assert [h.comment for h in lib.papers.get(target).highlights][-1].startswith("the key")


def test_screenshot_cite_demo_sets_metadata_through_the_writer(tmp_path):
    """``--cite --editor``: example metadata committed (placeholder names, the example
    DOI prefix), the editor drawn over the window, no traceback."""
    out = tmp_path / "cite.png"
    run = subprocess.run([sys.executable, "-m", "paperdesk.ui.app.screenshot", str(out),
                          "--library", str(tmp_path / "lib"), "--cite", "--editor",
                          "--size", "900x600"], capture_output=True, text=True,
                         timeout=180, env={k: v for k, v in os.environ.items()
                                           if k != "QT_QPA_PLATFORM"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and out.stat().st_size > 10000
    with Library.open(tmp_path / "lib") as lib:
        (target,) = [p for p in lib.papers.ids() if lib.papers.metadata(p).doi]
        assert lib.papers.metadata(target).doi.startswith("10.5555/")
        assert lib.papers.citation_key(target).startswith("doe2025")
        assert "arXiv:2212.08630" in lib.papers.get(target).abstract


def test_tag_pane_counts_of_a_large_library_are_not_cut(qtbot, win):
    # At 100,000 papers the counts have six digits; the column used to fit five, so
    # they showed as "1…7".
    pane = win.tag_pane
    big = {"all": 123456, "unread": 100000, "starred": 99999, "untagged": 123456,
           "has_note": 7}
    pane.set_counts(big)
    pane.set_saved_counts({})
    count_column = 2
    metrics = pane.fontMetrics()
    item = pane.topLevelItem(0)
    # With thousands separators, as every count in the window (issue 25 item 13).
    assert item.text(count_column) == "123,456"
    rect = pane.visualRect(pane.indexFromItem(item, count_column))
    assert rect.width() >= metrics.horizontalAdvance("123,456") + 8
    assert metrics.elidedText("123,456", Qt.TextElideMode.ElideRight,
                              rect.width() - 8) == "123,456"


def test_moving_through_papers_shows_their_tags_again_without_making_new_chips(
        qtbot, win, monkeypatch):
    """A chip costs milliseconds of the UI thread to style when first shown; the chip
    bar shows the ones it made before again for the next paper with the same tag."""
    from paperdesk.ui.panes import tag_chips

    window = win
    ids = [window.model.paper_id(row) for row in range(6)]
    window.triage.add_tag("alpha", ids)
    window.triage.add_tag("beta", ids[::2])
    settle(qtbot, window)
    made = []
    real_init = tag_chips.TagChip.__init__

    def counting_init(self, tag, parent=None):
        made.append(tag.name)
        real_init(self, tag, parent)

    monkeypatch.setattr(tag_chips.TagChip, "__init__", counting_init)
    chips = window.detail_pane.chips
    window.focus_list()
    for row, key in [(r, Qt.Key.Key_J) for r in range(1, 6)] + \
            [(r, Qt.Key.Key_K) for r in range(4, -1, -1)]:
        press(qtbot, window, key)
        qtbot.waitUntil(lambda: window.detail_pane.paper_id == ids[row], timeout=WAIT_MS)
        expected = ["alpha", "beta"] if row % 2 == 0 else ["alpha"]
        assert chips.chip_names() == expected, row
        assert [c.label.text() for c in chips.chips() if c.isVisible()] == expected
    assert sorted(made) in ([], ["alpha", "beta"]), made


def test_suggestion_chips_show_each_papers_suggestions_on_the_chips_made_before(
        qtbot, monkeypatch):
    """Suggested tags and held-back notes change with every paper shown: the chips
    made for one paper show the next one's (keys Alt+1 … renumbered), and only a paper
    with more of them than ever before makes new ones."""
    from paperdesk.core.discover.models import TagSuggestion
    from paperdesk.ui.panes import discover_chips
    from paperdesk.ui.panes.tag_chips import TagChipBar

    made = []
    for cls in (discover_chips.SuggestionChip, discover_chips.HeldBackChip):
        real = cls.__init__

        def counting(self, *args, _real=real, **kwargs):
            made.append(type(self).__name__)
            _real(self, *args, **kwargs)

        monkeypatch.setattr(cls, "__init__", counting)
    bar = TagChipBar()
    qtbot.addWidget(bar)
    bar.resize(700, 120)
    bar.show()

    def offer(name, held=False):
        return TagSuggestion(len(name), name, 0.5, (1,), ("depth",),
                             examples=1 if held else 9, needed=5 if held else 0)

    papers = [[offer("alpha"), offer("beta"), offer("gamma", held=True)],
              [offer("delta")],
              [offer("eta"), offer("zeta", held=True)],
              [],
              [offer("theta"), offer("iota"), offer("kappa"), offer("lam", held=True)]]
    for suggestions in papers + papers:
        bar.set_suggestions(suggestions)
        offered = [s for s in suggestions if not s.held_back]
        held = [s for s in suggestions if s.held_back]
        chips = bar.suggestion_chips()
        assert [c.suggestion.name for c in chips] == [s.name for s in offered]
        assert [c.text() for c in chips] == [
            f"+ {s.name}   Alt+{i + 1}" for i, s in enumerate(offered)]
        assert [c.position for c in chips] == list(range(len(offered)))
        assert all(c.isVisible() for c in chips + bar.held_back_chips())
        assert [c.suggestion.name for c in bar.held_back_chips()] == [s.name for s in held]
        visible = [w for w in bar.findChildren(discover_chips.SuggestionChip) if w.isVisible()]
        assert sorted(c.suggestion.name for c in visible) == sorted(s.name for s in offered)
    assert sorted(made) == ["HeldBackChip"] * 1 + ["SuggestionChip"] * 3, made
