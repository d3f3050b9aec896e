"""TeX maths in a title (issue 25, item 2): the detail pane shows its readable form
("D → 4", as pandoc prints the file it came from), its tooltip the TeX as written; the
list is unchanged. Keys are sent as a user would."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt

from paperdesk.core.library import Library
from ui_fixtures import WAIT_MS, open_seeded, press  # noqa: F401

TITLE = "Horndeski Gravity as $D\\rightarrow4$ Limit of Gauss-Bonnet"


def test_the_pane_shows_maths_in_its_readable_form(qtbot, tmp_path, _seeded_template,
                                                   open_seeded):
    shutil.copytree(_seeded_template, tmp_path / "lib")
    with Library.open(tmp_path / "lib") as lib:
        pid = lib.search.hits("hyperparameter")[0].id
        lib.papers.set_title(pid, TITLE)
        lib.papers.set_starred([pid], True)
    window = open_seeded("lib", fresh=False)
    # The Starred filter by keys: the sidebar, then the list; the paper is the only one.
    window.tag_pane.setFocus()
    press(qtbot, window, Qt.Key.Key_Home)
    press(qtbot, window, Qt.Key.Key_Down, Qt.Key.Key_Down)     # All, Unread, Starred
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=WAIT_MS)
    press(qtbot, window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.focusWidget() is window.table, timeout=WAIT_MS)
    press(qtbot, window, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)
    shown = window.detail_pane.title_label.text()
    assert "Horndeski Gravity as D → 4 Limit of Gauss-Bonnet" in shown
    assert "rightarrow" not in shown
    assert "As written (TeX): " in window.detail_pane.title_label.toolTip()
