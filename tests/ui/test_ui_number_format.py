"""Counts are written one way everywhere in the window (issue 25 item 13: the status bar's
"searched 8,337 of 20,337" stood beside a tag pane's "20337"): thousands separated by
commas, in the status bar, the unread count and the tag pane."""

from __future__ import annotations

import shutil

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItemIterator
from ui_fixtures import WAIT_MS, open_seeded, win  # noqa: F401

from paperdesk.core.library import Library
from paperdesk.ui.panes.tag_pane import COUNT, NAME, NameRole

EXTRA = 800     # with the 225 seed papers: 1,025


def test_counts_over_a_thousand_have_separators(qtbot, tmp_path, _seeded_template,
                                                open_seeded):
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    text = "\n\n".join(f"Paper number {i} studies the zorbulation of counter {i} in a system "
                       f"that counts to {i * 7} and back, once per example {i}."
                       for i in range(EXTRA))
    (tmp_path / "many.txt").write_text("Many papers\n\n" + text + "\n", encoding="utf-8")
    with Library.open(path) as lib:
        lib.imports.run([tmp_path / "many.txt"])
        total = lib.papers.count()
        lib.tags.add([r[0] for r in lib.db.execute("SELECT id FROM papers")], "everything")
    assert total == 225 + EXTRA
    window = open_seeded("lib", fresh=False)
    qtbot.waitUntil(lambda: window.status_text().startswith("1,025 papers"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.unread_text() == "1,025 of 1,025 unread",
                    timeout=WAIT_MS)
    pane = window.tag_pane
    counts, it = [], QTreeWidgetItemIterator(pane)
    while it.value():
        counts.append(it.value().text(COUNT))
        it += 1
    assert "1,025" in counts and "1025" not in counts
    # the tag's tooltip too (the tester saw "Tag “x” — 1025 papers")
    it, tips = QTreeWidgetItemIterator(pane), {}
    while it.value():
        tips[it.value().data(0, NameRole)] = it.value().toolTip(NAME)
        it += 1
    assert "Tag “everything” — 1,025 papers" in tips["everything"], tips["everything"]
    window.focus_search()
    qtbot.keyClicks(window.search_box, "zorbulation")
    qtbot.waitUntil(lambda: window.status_text().startswith("800 of 1,025 match"),
                    timeout=WAIT_MS)
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "800 selected" in window.status_text(), timeout=WAIT_MS)


def test_the_list_of_files_not_imported_counts_with_separators(qtbot):
    """"These 1200 files were not imported" (a folder of rejected files) reads as the
    rest of the window's counts."""
    from paperdesk.ui.window.dialogs import show_import_problems

    rejected = [{"path": f"/data/f{i}.pdf", "reason": "not a text file"} for i in range(1200)]
    box = show_import_problems(None, rejected)
    qtbot.addWidget(box)
    assert box.text().startswith("These 1,200 files were not imported:"), box.text()
    assert "… and 1,188 more (see details)" in box.text(), box.text()
    box.close()
