"""GUI tests of issue 15 in the reading pane: related papers (``relatedList``), key-term
chips, tag suggestions (Alt+1 … Alt+3) and Back (Alt+Left), on a copy of the seed
library, with the hand-assigned topic labels of ``tests/core/data/seed_topics.json`` (no
paper id is written down here).

The seed library is copied without a term table, so the first question of every window
raises ``TermsNotReady`` and the window builds the table on its own thread first: each
test goes through that path; one holds the build to see its progress and Cancel.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication

from paperdesk.core.discover import engine
from paperdesk.core.discover.vectorize import term_query
from paperdesk.core.scope import Scope
from ui_fixtures import (WAIT_MS, held_build, open_seeded, press, settle,  # noqa: F401
                         wait_idle, win)

TOPICS = Path(__file__).resolve().parents[1] / "core" / "data" / "seed_topics.json"
DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular"


def _labels(lib) -> dict[int, str]:
    """``{paper id: topic}`` from the fixture, matched by file name and position."""
    data = json.loads(TOPICS.read_text(encoding="utf-8"))
    where = {}
    for pid in lib.papers.ids():
        for src in lib.papers.get(pid).sources:
            where[(src.name, src.position)] = pid
    return {where[(p["file"], p["abstract"])]: p["topic"] for p in data["papers"]}


def _paper_starting(lib, start: str) -> int:
    return next(pid for pid in lib.papers.ids() if lib.papers.get(pid).abstract.startswith(start))


def _show(qtbot, window, pid: int) -> None:
    """Select paper ``pid`` in the list and wait for its related papers."""
    assert window.select_row(window.model.row_of(pid))
    _wait_discover(qtbot, window, pid)


def _wait_discover(qtbot, window, pid: int) -> None:
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid
                    and window.detail_pane.discover_paper_id == pid
                    and not window.discover.discover_busy(), timeout=WAIT_MS)
    QCoreApplication.processEvents()


def _plain(html_text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html_text)
    return doc.toPlainText()


def test_related_list_of_a_depth_paper_is_about_depth(qtbot, win):
    window = win
    labels = _labels(window.lib)
    pid = _paper_starting(window.lib, DEPTH_TITLE)
    assert labels[pid] == "depth-estimation"
    _show(qtbot, window, pid)
    related = window.detail_pane.findChild(type(window.detail_pane.related_list),
                                           "relatedList")
    assert related is window.detail_pane.related_list and related.isVisible()
    ids = related.paper_ids()
    assert len(ids) == 10 and pid not in ids
    depth = [i for i in ids[:5] if labels[i] == "depth-estimation"]
    assert len(depth) >= 4, [(i, labels[i]) for i in ids[:5]]
    for paper in related.papers():
        assert 3 <= len(paper.shared) <= 5 or paper.score < 0.05
        assert 0 < paper.score <= 1
    first = related.item(0)
    assert first.text() == related.papers()[0].title
    detail = first.data(Qt.ItemDataRole.UserRole + 2)
    assert detail.startswith(f"{related.papers()[0].score:.2f} · shares: ")
    scores = [p.score for p in related.papers()]
    assert scores == sorted(scores, reverse=True)
    # Key terms: 6-8 chips, the paper's words.
    chips = window.detail_pane.key_terms.chips()
    assert 6 <= len(chips) <= 8
    assert window.detail_pane.key_terms.shown_chips()
    text = (window.lib.papers.get(pid).title + " " + window.lib.papers.get(pid).abstract).lower()
    assert all(c.term.term.split("-")[0] in text for c in chips)
    # L goes into the list; ↓ moves; Esc goes back to the paper list.
    press(qtbot, window, Qt.Key.Key_L)
    assert window.focusWidget() is related and related.currentRow() == 0
    press(qtbot, window, Qt.Key.Key_Down)
    assert related.currentRow() == 1
    press(qtbot, window, Qt.Key.Key_Escape)
    assert window.focusWidget() is window.table


def test_moving_quickly_shows_only_the_last_papers_related(qtbot, win):
    window = win
    _wait_discover(qtbot, window, window.current_paper_id())
    for _ in range(4):
        press(qtbot, window, Qt.Key.Key_J)
    pid = window.current_paper_id()
    _wait_discover(qtbot, window, pid)
    assert window.detail_pane.related_list.count() > 0
    assert pid not in window.detail_pane.related_list.paper_ids()
    assert window.lib.discover.related(pid)[0].id == \
        window.detail_pane.related_list.paper_ids()[0]


def test_enter_opens_a_paper_not_in_the_list_and_alt_left_returns(qtbot, win):
    window = win
    pid = _paper_starting(window.lib, DEPTH_TITLE)
    window.focus_search()
    qtbot.keyClicks(window.search_box, '"foundation model for zero-shot metric"')
    press(qtbot, window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.search.results is not None and window.model.rowCount() == 1,
                    timeout=WAIT_MS)
    assert window.current_paper_id() == pid
    _wait_discover(qtbot, window, pid)
    related = window.detail_pane.related_list
    target = related.paper_ids()[1]
    assert window.model.row_of(target) < 0           # not in the search's list
    press(qtbot, window, Qt.Key.Key_L)
    press(qtbot, window, Qt.Key.Key_Down)
    press(qtbot, window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.current_paper_id() == target, timeout=WAIT_MS)
    # (the paper is read off the UI thread)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == target, timeout=WAIT_MS)
    assert window.search_box.text() == "" and window.current_scope() == Scope()
    # The whole library's list: its first 200 rows come first, the rest are appended.
    qtbot.waitUntil(lambda: window.model.complete and window.model.rowCount() == 225,
                    timeout=WAIT_MS)
    _wait_discover(qtbot, window, target)
    # Back: the paper, the search text and its list.
    press(qtbot, window, Qt.Key.Key_Escape)
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert window.search_box.text() == '"foundation model for zero-shot metric"'
    assert window.current_paper_id() == pid
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)
    assert window.model.rowCount() == 1
    wait_idle(qtbot, window)
    assert window.current_paper_id() == pid and window.model.rowCount() == 1
    # Nothing more to go back to: a message, nothing moves.
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert "Nothing to go back to" in window.statusBar().currentMessage()
    assert window.current_paper_id() == pid


def test_a_click_on_a_related_row_opens_it_from_a_tag_list(qtbot, win):
    window = win
    pid = _paper_starting(window.lib, DEPTH_TITLE)
    window.triage.add_tag("solo", [pid])
    settle(qtbot, window)
    qtbot.waitUntil(lambda: bool(window.tag_pane.tag_entries()), timeout=WAIT_MS)
    tag = next(t for t in window.tag_pane.tag_entries() if t.name == "solo")
    assert window.tag_pane.select_scope(Scope(tag_id=tag.id))
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=WAIT_MS)
    _wait_discover(qtbot, window, pid)
    related = window.detail_pane.related_list
    target = related.paper_ids()[0]
    rect = related.visualItemRect(related.item(0))
    qtbot.mouseClick(related.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    # (all papers' ids are read on the reader thread)
    qtbot.waitUntil(lambda: window.current_paper_id() == target
                    and window.model.rowCount() == 225, timeout=WAIT_MS)
    assert window.tag_pane.current_tag() is None
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.current_paper_id() == pid
                    and window.model.rowCount() == 1, timeout=WAIT_MS)
    assert window.tag_pane.current_tag() == tag.id


def test_key_term_chip_enter_runs_a_search_and_back_returns(qtbot, win):
    window = win
    pid = _paper_starting(window.lib, DEPTH_TITLE)
    _show(qtbot, window, pid)
    press(qtbot, window, Qt.Key.Key_L)
    press(qtbot, window, Qt.Key.Key_Tab)             # from the related list to the terms
    chip = window.focusWidget()
    assert chip.objectName() == "keyTermChip"
    term = chip.term.term
    assert chip is window.detail_pane.key_terms.shown_chips()[0]
    press(qtbot, window, Qt.Key.Key_Tab)
    assert window.focusWidget() is window.detail_pane.key_terms.shown_chips()[1]
    term = window.focusWidget().term.term
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.search_box.text() == term_query(term)
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == term_query(term)
                    and not window.is_busy(), timeout=WAIT_MS)
    assert window.model.row_of(pid) >= 0          # the paper has its own key term
    assert 0 < window.model.rowCount() < 225
    assert window.current_paper_id() == pid
    qtbot.keyClick(window.focusWidget() or window, Qt.Key.Key_Left,
                   Qt.KeyboardModifier.AltModifier)
    assert window.search_box.text() == ""
    qtbot.waitUntil(lambda: window.model.rowCount() == 225 and window.model.complete,
                    timeout=WAIT_MS)      # (the ids are read on the reader thread)
    assert window.current_paper_id() == pid


def test_alt_1_adds_the_suggested_tag_and_ctrl_z_undoes(qtbot, win):
    window = win
    labels = _labels(window.lib)
    pid = _paper_starting(window.lib, DEPTH_TITLE)
    # every other depth paper tagged: a suggestion needs most of the neighbours tagged
    others = [i for i, t in labels.items() if t == "depth-estimation" and i != pid]
    window.triage.add_tag("depth", others)
    settle(qtbot, window)
    _show(qtbot, window, pid)
    chips = window.detail_pane.chips.suggestion_chips()
    assert chips and chips[0].suggestion.name == "depth"
    assert "Alt+1" in chips[0].text() and chips[0].text().startswith("+ depth")
    tip = _plain(chips[0].toolTip())
    assert "tagged depth" in tip and "like #" in tip and "shares:" in tip
    assert chips[0].suggestion.reason in tip
    assert set(chips[0].suggestion.like) <= set(others)
    qtbot.keyClick(window.table, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    settle(qtbot, window)
    assert "depth" in [t.name for t in window.lib.papers.get(pid).tags]
    assert window.undo_action.text() == "&Undo Tag ‘depth’" \
        or "depth" in window.undo_action.text()
    # The suggestions are asked for again: no suggestion of a tag the paper has.
    qtbot.waitUntil(lambda: window.detail_pane.discover_paper_id == pid
                    and not window.discover.discover_busy()
                    and "depth" not in [c.suggestion.name for c in
                                        window.detail_pane.chips.suggestion_chips()],
                    timeout=WAIT_MS)
    assert "depth" in window.detail_pane.chips.chip_names()
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    assert "depth" not in [t.name for t in window.lib.papers.get(pid).tags]
    qtbot.waitUntil(lambda: not window.discover.discover_busy() and [
        c.suggestion.name for c in window.detail_pane.chips.suggestion_chips()][:1]
        == ["depth"], timeout=WAIT_MS)
    # Alt+3 with fewer suggestions says so and tags nothing.
    n = len(window.detail_pane.chips.suggestion_chips())
    if n < 3:
        qtbot.keyClick(window.table, Qt.Key.Key_3, Qt.KeyboardModifier.AltModifier)
        assert "No tag suggestion 3" in window.statusBar().currentMessage()


def test_a_tag_with_too_few_examples_is_a_note_whose_tooltip_says_why(qtbot, win):
    # Issue 32: three papers tagged made "+ hyperparams Alt+1" appear on most papers.
    window = win
    labels = _labels(window.lib)
    papers = sorted(i for i, t in labels.items() if t == "hyperparameter-transfer")
    window.triage.add_tag("hyperparams", papers[:3])
    settle(qtbot, window)
    pid = papers[3]
    row = window.model.row_of(pid)
    above = row - 1 if row > 0 else row + 1
    assert window.select_row(above)
    _wait_discover(qtbot, window, window.model.paper_id(above))
    qtbot.keyClick(window.table, Qt.Key.Key_Down if row > 0 else Qt.Key.Key_Up)
    _wait_discover(qtbot, window, pid)
    pane = window.detail_pane
    assert pane.chips.suggestion_chips() == []
    notes = pane.chips.held_back_chips()
    assert [n.property("tagName") for n in notes] == ["hyperparams"]
    assert notes[0].isVisible() and notes[0].text() == "hyperparams ?"
    tip = _plain(notes[0].toolTip())
    assert tip == ("Tag “hyperparams” not suggested: only 3 papers are tagged hyperparams "
                   "(5 are needed to suggest it): tag more papers like this one and it is "
                   "suggested")
    qtbot.keyClick(window.table, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert "No tag suggestion 1" in window.statusBar().currentMessage()
    settle(qtbot, window)
    assert "hyperparams" not in [t.name for t in window.lib.papers.get(pid).tags]


def test_terms_not_ready_shows_progress_then_the_list(qtbot, open_seeded, held_build):
    gate, started = held_build
    window = open_seeded()
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.progress_bar.isVisible()
                    and window.progress_bar.format().startswith(
                        "Finding related papers: reading 0 of 225"), timeout=WAIT_MS)
    assert window.cancel_button.isVisible() and window.cancel_button.isEnabled()
    assert "building the word table" in window.detail_pane.related.note.text()
    assert window.detail_pane.related_list.count() == 0
    # The list and the editor stay usable meanwhile.
    press(qtbot, window, Qt.Key.Key_J)
    pid = window.current_paper_id()
    gate.set()
    _wait_discover(qtbot, window, pid)
    assert window.detail_pane.related_list.count() == 10
    assert not window.progress_bar.isVisible() and not window.cancel_button.isVisible()


def test_cancelling_the_build_says_so_and_can_start_again(qtbot, open_seeded, held_build):
    gate, started = held_build
    window = open_seeded()
    qtbot.waitUntil(lambda: started.is_set() and window.cancel_button.isVisible(),
                    timeout=WAIT_MS)
    qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.discover.discover_runner.is_running(), timeout=WAIT_MS)
    note = window.detail_pane.related.note.text()
    assert "cancelled" in note
    button = window.detail_pane.related.build_button
    assert button.isVisible() and not window.progress_bar.isVisible()
    press(qtbot, window, Qt.Key.Key_J)              # another paper: not started again
    qtbot.waitUntil(lambda: not window.discover.discover_timer.isActive()
                    and not window.worker.is_busy(), timeout=WAIT_MS)
    assert not window.discover.discover_runner.is_running()
    assert window.detail_pane.related.build_button.isVisible()
    gate.set()
    qtbot.mouseClick(window.detail_pane.related.build_button, Qt.MouseButton.LeftButton)
    _wait_discover(qtbot, window, window.current_paper_id())
    assert window.detail_pane.related_list.count() == 10


def test_a_paper_without_words_says_so(qtbot, win):
    from paperdesk.ui.background.discover_runner import NO_TERMS, DiscoverAnswer

    window = win
    pid = window.current_paper_id()
    _wait_discover(qtbot, window, pid)
    window.detail_pane.show_discover(DiscoverAnswer(pid, NO_TERMS))
    section = window.detail_pane.related
    assert section.note.text() == "No words to compare in this paper"
    assert section.note.isVisible() and not window.detail_pane.related_list.isVisible()
    assert not window.detail_pane.key_terms.isVisible()
    assert section.note.textFormat() == Qt.TextFormat.PlainText


def test_small_window_starts_folded_and_l_unfolds(qtbot, tmp_path, _seeded_template):
    import shutil

    from paperdesk.ui import create_main_window
    from ui_fixtures import make_settings, show_active

    shutil.copytree(_seeded_template, tmp_path / "small")
    window = create_main_window(tmp_path / "small", import_seeds=False,
                                settings=make_settings(tmp_path / "small.ini"))
    try:
        show_active(qtbot, window, (900, 600))
        window.focus_list()
        pane = window.detail_pane
        qtbot.waitUntil(lambda: pane.related.is_folded(), timeout=WAIT_MS)
        _wait_discover(qtbot, window, window.current_paper_id())
        # the count comes with the related papers, after the paper (read off the UI thread)
        qtbot.waitUntil(lambda: pane.related.toggle.text().startswith("▸ Related papers (10)"),
                        timeout=WAIT_MS)
        assert not pane.related_list.isVisible()
        assert pane.abstract_view.height() > 100          # the abstract keeps its room
        press(qtbot, window, Qt.Key.Key_L)
        assert not pane.related.is_folded() and pane.related_list.isVisible()
        assert window.focusWidget() is pane.related_list
        QCoreApplication.processEvents()   # room for more than a row, the abstract kept
        assert pane.related_list.height() >= 1.5 * pane.related_list.sizeHintForRow(0)
        assert pane.abstract_view.height() >= 50
    finally:
        window.close()
        window.shutdown()


def test_alt_left_goes_back_from_the_abstract_and_the_search_box(qtbot, win):
    window = win
    pid = _paper_starting(window.lib, DEPTH_TITLE)
    _show(qtbot, window, pid)
    target = window.detail_pane.related_list.paper_ids()[0]
    press(qtbot, window, Qt.Key.Key_L)
    press(qtbot, window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.current_paper_id() == target, timeout=WAIT_MS)
    # In the abstract (a text browser has its own Alt+Left: "backward"), the window's
    # Back wins.
    press(qtbot, window, Qt.Key.Key_F7)
    assert window.focusWidget() is window.detail_pane.abstract_view
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    # (the list's ids are read on the reader thread: the first 200, then the rest)
    qtbot.waitUntil(lambda: window.current_paper_id() == pid and window.model.complete,
                    timeout=WAIT_MS)
    # From the search box too (Alt+Left is not a text-editing key there).
    press(qtbot, window, Qt.Key.Key_Escape)
    _wait_discover(qtbot, window, pid)
    press(qtbot, window, Qt.Key.Key_L)
    press(qtbot, window, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.current_paper_id() == target, timeout=WAIT_MS)
    window.focus_search()
    qtbot.keyClick(window.search_box, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: window.current_paper_id() == pid, timeout=WAIT_MS)


def test_paper_menu_mnemonics_stay_unique():
    """The Paper menu's new commands take letters no other item there uses (Alt+P then
    the letter reaches each one)."""
    import re

    from paperdesk.ui.window.actions import ACTIONS

    top = [spec for spec in ACTIONS if spec.menu == "paper" and not spec.submenu]
    letters = [re.search(r"&(\w)", spec.text).group(1).lower() for spec in top
               if re.search(r"&(\w)", spec.text)]
    submenus = {spec.submenu for spec in ACTIONS if spec.menu == "paper" and spec.submenu}
    letters += [re.search(r"&(\w)", name).group(1).lower() for name in submenus]
    for new in ("a", "k", "e"):   # Rel&ated Papers, Go Bac&k, Add Suggest&ed Tag
        assert letters.count(new) == 1, sorted(letters)


def test_a_related_row_names_shared_terms_authors_and_venue():
    from paperdesk.core.discover.models import RelatedPaper
    from paperdesk.ui.panes.related_list import row_detail

    paper = RelatedPaper(7, "T", 0.4567, ("depth", "monocular"), ("Wang",), "CVPR")
    assert row_detail(paper) == ("0.46 · shares: depth, monocular · same authors: Wang"
                                 " · same venue: CVPR")
    assert row_detail(RelatedPaper(7, "T", 0.2, ())) == "0.20"


def test_moving_through_papers_shows_their_key_terms_on_the_chips_made_before(
        qtbot, win, monkeypatch):
    """Making and styling a chip cost milliseconds of the UI thread on every paper
    shown; the key-term bar now shows each paper's terms on the chips it has."""
    from paperdesk.ui.panes import discover_chips

    window = win
    first = window.current_paper_id()
    _wait_discover(qtbot, window, first)
    made = []
    real_init = discover_chips.KeyTermChip.__init__

    def counting_init(self, term, parent=None):
        made.append(term.term)
        real_init(self, term, parent)

    monkeypatch.setattr(discover_chips.KeyTermChip, "__init__", counting_init)
    bar = window.detail_pane.key_terms
    initial = most = len(bar.chips())
    window.focus_list()
    for key in [Qt.Key.Key_J] * 4 + [Qt.Key.Key_K] * 4:
        press(qtbot, window, key)
        pid = window.current_paper_id()
        _wait_discover(qtbot, window, pid)
        expected = [t.term for t in window.lib.discover.key_terms(pid)]
        assert [c.term.term for c in bar.chips()] == expected, pid
        assert [c.property("term") for c in bar.chips()] == expected
        shown = bar.shown_chips()
        assert shown and shown == bar.chips()[:len(shown)]
        assert all(c.toolTip() and c.term.term in _plain(c.toolTip()) for c in shown)
        most = max(most, len(expected))
    assert pid == first
    assert len(made) <= most - initial, made     # only for more terms than before
