"""GUI test of phrase highlighting (issue 13, item 7): a quoted phrase typed in the search
box marks the phrase in the detail pane's abstract, never its lone words. A real window on
a copy of the seed library, offscreen, driven with keys."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from ui_fixtures import marked_fragments, WAIT_MS, open_seeded, win  # noqa: F401

QUERY = '"neural networks"'
#: The phrase as the index sees it: the two words one after the other, whatever is between.
PHRASE_RE = re.compile(r"(?<![\w.])(neural)\W+(networks)(?!\w)", re.IGNORECASE)
LONE_RE = re.compile(r"(?<![\w.])(neural|networks)(?!\w)", re.IGNORECASE)


def _marked(window) -> list[str]:
    return marked_fragments(window)


def test_phrase_query_marks_only_the_phrase_in_the_abstract(qtbot, win):
    window = win
    box = window.search_box
    window.focus_search()
    qtbot.keyClicks(box, QUERY)
    qtbot.keyClick(box, Qt.Key.Key_Return)      # runs the search, focus to the list
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy()
                    and window.search.results is not None and window.search.results.query == QUERY,
                    timeout=WAIT_MS)
    assert window.focusWidget() is window.table
    rows = min(window.model.rowCount(), 25)
    assert rows > 5
    lone_seen = phrases_seen = 0
    for row in range(rows):
        if row:
            qtbot.keyClick(window.table, Qt.Key.Key_Down)
        qtbot.waitUntil(lambda: window.detail_pane.paper_id == window.current_paper_id()
                        and window.detail_pane.match_terms is not None, timeout=WAIT_MS)
        abstract = window.detail_pane.paper.abstract
        phrase = [w for m in PHRASE_RE.finditer(abstract) for w in m.groups()]
        assert _marked(window) == phrase, window.current_paper_id()
        phrases_seen += bool(phrase)
        lone_seen += len(LONE_RE.findall(abstract)) > len(phrase)
    assert phrases_seen > 5
    assert lone_seen > 0    # abstracts with a lone "neural" or "networks" were checked
