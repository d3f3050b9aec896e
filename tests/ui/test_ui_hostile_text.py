"""Hostile text on screen (issue 14, item 14): bidi overrides in a title or abstract
cannot reverse what the window shows (each is shown as U+FFFD, offsets unchanged), and a
look-alike host name (letters of two scripts) is not opened; the message gives its
punycode. Keys are sent as a user would."""

from __future__ import annotations

import dataclasses
import shutil

from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices

from paperdesk.core.hostnames import ascii_host, is_mixed_script, unicode_host
from paperdesk.core.library import Library
from paperdesk.core.text import BIDI_CONTROLS, bidi_visible
from ui_fixtures import WAIT_MS, open_seeded, press, settle, wait_row  # noqa: F401

RLO, PDF = "\u202e", "\u202c"
TITLE = f"Safe title {RLO}gpj.exe{PDF} done"
LOOKALIKE = "https://\u0430pple.com/paper"           # Cyrillic а


def test_bidi_visible_and_hosts():
    assert bidi_visible(TITLE) == "Safe title \ufffdgpj.exe\ufffd done"
    assert len(bidi_visible(TITLE)) == len(TITLE)
    assert all(bidi_visible(c) == "\ufffd" for c in BIDI_CONTROLS)
    assert bidi_visible("\u200f mark stays") == "\u200f mark stays"
    assert is_mixed_script("\u0430pple.com") and is_mixed_script("xn--pple-43d.com")
    assert not any(map(is_mixed_script, ["münchen.de", "例え.jp", "пример.рф", "arxiv.org"]))
    assert ascii_host("\u0430pple.com") == "xn--pple-43d.com"
    assert unicode_host("xn--pple-43d.com") == "\u0430pple.com"


def _hostile_library(template, path):
    shutil.copytree(template, path)
    with Library.open(path) as lib:
        pid = lib.search.hits("hyperparameter")[0].id
        lib.papers.set_title(pid, TITLE)
        meta = dataclasses.replace(lib.papers.metadata(pid), url=LOOKALIKE)
        lib.papers.set_metadata(pid, meta)
        lib.papers.set_starred([pid], True)
        lib.tags.add([pid], "legacy")
        # A name stored by an older version, before bidi controls were refused.
        lib.db.execute("UPDATE tags SET name = ? WHERE name = 'legacy'", [f"ab{RLO}cd"])
        lib.db.conn.commit()
    return pid


def test_bidi_override_is_shown_as_text_and_lookalike_link_refused(
        qtbot, tmp_path, _seeded_template, open_seeded, monkeypatch):
    pid = _hostile_library(_seeded_template, tmp_path / "lib")
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url))
    window = open_seeded("lib", fresh=False)
    # Starred filter by keys: the sidebar, then the list; the hostile paper is the only one.
    window.tag_pane.setFocus()
    press(qtbot, window, Qt.Key.Key_Home)
    press(qtbot, window, Qt.Key.Key_Down, Qt.Key.Key_Down)     # All, Unread, Starred
    qtbot.waitUntil(lambda: window.model.rowCount() == 1, timeout=WAIT_MS)
    press(qtbot, window, Qt.Key.Key_Escape)                     # back to the list
    qtbot.waitUntil(lambda: window.focusWidget() is window.table, timeout=WAIT_MS)
    press(qtbot, window, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)
    wait_row(qtbot, window, 0)      # (read on the reader thread)
    shown = window.model.index(0, window.model.TITLE).data()
    assert shown == bidi_visible(TITLE) and RLO not in shown
    assert RLO not in window.detail_pane.title_label.text()
    assert "\ufffdgpj.exe\ufffd" in window.detail_pane.title_label.text()
    from PySide6.QtWidgets import QLabel, QTreeWidgetItemIterator
    chips = [l.text() for l in window.detail_pane.chips.findChildren(QLabel)]
    assert any("ab\ufffdcd" in t for t in chips) and not any(RLO in t for t in chips)
    names = []
    it = QTreeWidgetItemIterator(window.tag_pane)
    while it.value():
        names.append(it.value().text(0))
        it += 1
    assert "ab\ufffdcd" in names and not any(RLO in n for n in names)
    # `o` opens the paper's own page: refused, with the punycode in the message.
    press(qtbot, window, Qt.Key.Key_O)
    qtbot.waitUntil(lambda: "xn--pple-43d.com" in window.statusBar().currentMessage()
                    or "xn--pple-43d.com" in window.status_label.text(), timeout=WAIT_MS)
    assert opened == []
