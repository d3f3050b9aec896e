"""View ▸ Overview (issue 15, item 5): opened with Ctrl+Shift+L, counted off the UI thread,
bars chosen with the arrow and page keys (or the mouse) list their papers in the main
list; readable in light and dark; names from the library stay plain text."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from paperdesk.core.discover.vectorize import term_query
from paperdesk.core.library import Library
from paperdesk.core.overview import TERMS_NOTE
from paperdesk.core.scope import Scope
from paperdesk.ui.style.colours import contrast_ratio
from paperdesk.ui.window.actions import ACTIONS
from paperdesk.ui.window.overview_window import TITLES
from ui_fixtures import WAIT_MS, held_build, open_seeded  # noqa: F401

HOSTILE_TAG = "<b>bold</b> & co"
#: Papers given a made-up date in an earlier week (noon UTC: the same local day in
#: every time zone within ±11 hours).
OLD_WEEK = ("2026-10-07T12:00:00Z", "2026-10-05", "2026-10-11")


@pytest.fixture
def library_folder(tmp_path, _seeded_template):
    """A copy of the seed library with tags, read marks, older dates and, when asked,
    the term table: ``prepare(terms=False) -> folder name`` for ``open_seeded``."""

    def prepare(terms: bool = False, name: str = "lib") -> str:
        path = tmp_path / name
        shutil.copytree(_seeded_template, path)
        with Library.open(path) as lib:
            ids = lib.papers.ids()
            lib.tags.add(ids[:12], "depth")
            lib.tags.add(ids[20:23], HOSTILE_TAG)
            lib.papers.set_read(ids[:5], True)
            with lib.db.conn:
                lib.db.conn.executemany("UPDATE papers SET added_at = ? WHERE id = ?",
                                        [(OLD_WEEK[0], pid) for pid in ids[-6:]])
            if terms:
                lib.discover.ensure()
        return name

    return prepare


def _open_overview(qtbot, window):
    qtbot.keyClick(window.table, Qt.Key.Key_L,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.overview.overview_window is not None
                    and window.overview.overview_window.isVisible()
                    and not window.overview.overview_window.is_loading()
                    and window.overview.overview_window.overview is not None, timeout=WAIT_MS)
    overview = window.overview.overview_window
    qtbot.waitUntil(lambda: overview.chart.hasFocus(), timeout=WAIT_MS)
    return overview


def _press_until(qtbot, chart, key, done, most=200):
    for _ in range(most):
        if done():
            return
        qtbot.keyClick(chart, key)
    assert done(), chart.current_bar()


def _listed(window) -> int:
    return window.model.rowCount()


def test_shortcut_is_free_listed_and_in_the_view_menu():
    keys = [k for spec in ACTIONS for k in spec.shortcuts]
    assert keys.count("Ctrl+Shift+L") == 1
    spec = next(s for s in ACTIONS if s.name == "overviewAction")
    assert spec.menu == "view" and spec.shortcuts == ("Ctrl+Shift+L",)


def test_opens_with_the_shortcut_and_shows_the_counts(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    charts = overview.chart.charts()
    assert [c.title for c in charts] == list(TITLES)
    ov = overview.overview
    assert ov.papers == 225 and (ov.read, ov.unread) == (5, 220)
    tags = {b.label: b.count for b in charts[1].bars}
    assert tags == {"depth": 12, HOSTILE_TAG: 3}
    weeks = charts[2].bars
    assert weeks[0].label.startswith(OLD_WEEK[1]) and weeks[0].count == 6
    assert sum(b.count for b in weeks) == 225
    assert [b.label for b in charts[3].bars] == ["Unread", "Read"]
    assert charts[4].bars == () and charts[4].note == TERMS_NOTE
    assert overview.summary.text().startswith("225 papers · 2 files · 2 tags")
    # the focus starts on the first bar; Esc closes
    assert overview.chart.current_chart() == "Source files"
    qtbot.keyClick(overview.chart, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not overview.isVisible(), timeout=WAIT_MS)


def test_arrows_and_enter_on_a_tag_bar_list_that_tag(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    chart = overview.chart
    qtbot.keyClick(chart, Qt.Key.Key_PageDown)           # the Tags chart
    assert chart.current_chart() == "Tags" and chart.current_bar().label == "depth"
    qtbot.keyClick(chart, Qt.Key.Key_Down)
    assert chart.current_bar().label == HOSTILE_TAG
    qtbot.keyClick(chart, Qt.Key.Key_Up)
    qtbot.keyClick(chart, Qt.Key.Key_Return)
    tag = window.lib.tags.by_name("depth")
    qtbot.waitUntil(lambda: window.current_scope() == Scope(tag_id=tag.id)
                    and _listed(window) == 12, timeout=WAIT_MS)
    assert window.tag_pane.current_tag() == tag.id
    assert "depth" in overview.status.text()
    assert overview.isVisible()                      # it stays open for the next bar
    # Page Up goes back to the first chart, Left / Right as Page Up / Down
    qtbot.keyClick(chart, Qt.Key.Key_PageUp)
    assert chart.current_chart() == "Source files"
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    qtbot.keyClick(chart, Qt.Key.Key_Right)
    assert chart.current_chart() == "Weeks added"
    qtbot.keyClick(chart, Qt.Key.Key_Left)
    assert chart.current_chart() == "Tags"


def test_the_highlighted_bar_is_scrolled_into_view(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    overview.resize(500, 360)                        # the charts need scrolling
    qtbot.waitUntil(lambda: overview.scroll.verticalScrollBar().maximum() > 0,
                    timeout=WAIT_MS)
    chart = overview.chart
    qtbot.keyClick(chart, Qt.Key.Key_End)
    assert chart.current_bar().label == "Read"       # no key terms yet: the last bar
    viewport = overview.scroll.viewport()
    row = chart.bar_rect("Read and unread", "Read")
    top_left = chart.mapTo(viewport, row.topLeft())
    assert viewport.rect().contains(top_left) and overview.scroll.verticalScrollBar().value() > 0
    qtbot.keyClick(chart, Qt.Key.Key_Home)
    assert chart.current_chart() == "Source files"
    assert overview.scroll.verticalScrollBar().value() == 0


def test_enter_on_a_source_bar_lists_that_file(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    window.search_box.setText("depth")                 # a search on show is cleared
    qtbot.waitUntil(lambda: window.model.searching, timeout=WAIT_MS)
    overview = _open_overview(qtbot, window)
    chart = overview.chart
    qtbot.keyClick(chart, Qt.Key.Key_Down)
    bar = chart.current_bar()
    assert chart.current_chart() == "Source files" and bar.target[0] == "source"
    qtbot.keyClick(chart, Qt.Key.Key_Enter)
    qtbot.waitUntil(lambda: window.current_scope() == Scope(source_id=bar.target[1])
                    and not window.model.searching and _listed(window) == bar.count,
                    timeout=WAIT_MS)
    assert window.search_box.text() == ""
    assert window.lib.papers.scope_count(Scope(source_id=bar.target[1])) == bar.count


def test_enter_on_a_week_bar_lists_the_papers_added_that_week(qtbot, open_seeded,
                                                               library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    chart = overview.chart
    _press_until(qtbot, chart, Qt.Key.Key_Down,
                 lambda: chart.current_chart() == "Weeks added")
    assert chart.current_bar().count == 6
    # an empty week between: Down moves onto it, Enter lists nothing
    qtbot.keyClick(chart, Qt.Key.Key_Down)
    assert chart.current_bar().count == 0
    qtbot.keyClick(chart, Qt.Key.Key_Up)
    qtbot.keyClick(chart, Qt.Key.Key_Return)
    query = f"added:{OLD_WEEK[1]}..{OLD_WEEK[2]}"
    qtbot.waitUntil(lambda: window.search_box.text() == query and window.model.searching
                    and _listed(window) == 6, timeout=WAIT_MS)
    assert window.current_scope() == Scope()
    old = set(sorted(window.lib.papers.ids())[-6:])     # the last imported
    assert set(window.model.ids()) == old


def test_mouse_click_on_a_bar_lists_its_papers(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    chart = overview.chart
    rect = chart.bar_rect("Read and unread", "Unread")
    assert not rect.isEmpty()
    overview.scroll.ensureVisible(rect.center().x(), rect.center().y())
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.current_scope() == Scope(filter="unread")
                    and _listed(window) == 220, timeout=WAIT_MS)
    assert chart.current_bar().label == "Unread"
    rect = chart.bar_rect("Read and unread", "Read")
    qtbot.mouseClick(chart, Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.search_box.text() == "is:read"
                    and window.model.searching and _listed(window) == 5, timeout=WAIT_MS)


def test_key_terms_once_the_table_is_built(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(terms=True), fresh=False)
    overview = _open_overview(qtbot, window)
    chart = overview.chart
    terms = overview.chart.charts()[4]
    assert terms.note == "" and 0 < len(terms.bars) <= 15
    qtbot.keyClick(chart, Qt.Key.Key_End)
    assert chart.current_chart() == "Key terms"
    bar = chart.current_bar()
    qtbot.keyClick(chart, Qt.Key.Key_Return)
    query = term_query(bar.label)
    qtbot.waitUntil(lambda: window.search_box.text() == query and window.model.searching,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _listed(window) >= bar.count, timeout=WAIT_MS)


def test_names_are_plain_text_in_bars_and_tooltips(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    chart = overview.chart
    rect = chart.bar_rect("Tags", HOSTILE_TAG)
    tip = chart.tooltip_at(rect.center())
    doc = QTextDocument()
    doc.setHtml(tip)
    assert HOSTILE_TAG in doc.toPlainText() and "<b>" not in tip
    assert chart.accessibleName() == "Library overview charts"
    qtbot.keyClick(chart, Qt.Key.Key_PageDown)
    assert "depth" in chart.accessibleDescription()


@pytest.mark.parametrize("mode", ["dark", "light"])
def test_light_and_dark_render_readably(qtbot, open_seeded, library_folder, mode):
    window = open_seeded(library_folder(), fresh=False)
    try:
        window.set_appearance(mode)
        overview = _open_overview(qtbot, window)
        picture = overview.chart.grab()
        assert not picture.isNull() and picture.height() > 400
        colours = overview.chart._colours()
        for role in ("text", "muted"):
            assert contrast_ratio(colours[role].name(), colours["background"].name()) >= 4.5
        assert (colours["background"].lightnessF() < 0.5) == (mode == "dark")
    finally:
        window.set_appearance("system")


def test_counts_again_after_a_change(qtbot, open_seeded, library_folder):
    window = open_seeded(library_folder(), fresh=False)
    overview = _open_overview(qtbot, window)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=WAIT_MS)
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_R)      # mark the first paper read
    qtbot.waitUntil(lambda: overview.overview.read in (4, 6), timeout=WAIT_MS)


def test_key_terms_appear_once_the_term_table_is_built(qtbot, held_build, open_seeded,
                                                        library_folder):
    """While the term table is being built (held here), the key-term chart says why it
    is empty and offers Build Key Terms; when the build ends, the terms are counted."""
    gate, started = held_build
    window = open_seeded(library_folder(terms=False), fresh=False)
    overview = _open_overview(qtbot, window)
    assert overview.overview.terms is None
    assert overview.build_button.isVisible()
    qtbot.keyClick(overview, Qt.Key.Key_B, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    assert overview.overview.terms is None
    gate.set()
    qtbot.waitUntil(lambda: bool(overview.overview is not None and overview.overview.terms),
                    timeout=WAIT_MS)
    assert not overview.build_button.isVisible()
