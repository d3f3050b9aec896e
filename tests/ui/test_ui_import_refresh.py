"""An import that enriches the paper the detail pane shows refreshes the pane at once (no
stale derived title or "No authors" hint until another row is chosen)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPoint, Qt  # noqa: E402

from paperdesk.ui.panes.detail_pane import NO_METADATA_HINT  # noqa: E402
from ui_fixtures import drop_file, WAIT_MS, open_seeded, press, settle, wait_idle, win  # noqa: E402,F401


def _bib_for(tmp_path, abstract: str):
    path = tmp_path / "enrich.bib"
    braced = abstract.replace("{", "(").replace("}", ")")
    path.write_text("@article{curie2023,\n  title = {Woven Lattices of Radiant Depth},\n"
                    "  author = {Curie, Marie and Meitner, Lise},\n  year = {2023},\n"
                    "  journal = {Annals of Light},\n"
                    f"  abstract = {{{braced}}}\n}}\n", encoding="utf-8")
    return path


def test_the_shown_paper_is_refreshed_when_an_import_enriches_it(qtbot, win, tmp_path):
    pid = win.current_paper_id()
    paper = win.lib.papers.get(pid)
    assert "{" not in paper.abstract and "}" not in paper.abstract
    pane = win.detail_pane
    qtbot.waitUntil(lambda: pane.paper_id == pid, timeout=WAIT_MS)
    assert pane.byline_label.text() == NO_METADATA_HINT
    drop_file(win, _bib_for(tmp_path, paper.abstract))
    qtbot.waitUntil(lambda: win.imports.last_import_report is not None, timeout=WAIT_MS)
    wait_idle(qtbot, win)
    assert win.imports.last_import_report.enriched == 1
    assert win.current_paper_id() == pid               # still the same row, not re-chosen
    qtbot.waitUntil(lambda: "Woven Lattices" in pane.title_label.text(), timeout=WAIT_MS)
    assert "Curie" in pane.byline_label.text() and "2023" in pane.byline_label.text()


def test_a_title_from_the_file_is_not_shown_as_edited(qtbot, win, tmp_path):
    pid = win.current_paper_id()
    pane = win.detail_pane
    qtbot.waitUntil(lambda: pane.paper_id == pid, timeout=WAIT_MS)
    drop_file(win, _bib_for(tmp_path, win.lib.papers.get(pid).abstract))
    qtbot.waitUntil(lambda: "Woven Lattices" in pane.title_label.text(), timeout=WAIT_MS)
    assert "title edited" not in pane.meta_label.text()
    assert pane.reset_title_button.isHidden()
    # F2, a title of one's own, Enter: now it is edited, and ↺ goes back to the file's
    press(qtbot, win, Qt.Key.Key_F2)
    assert win.focusWidget() is pane.title_editor
    qtbot.keyClicks(pane.title_editor, "My own title")
    press(qtbot, win, Qt.Key.Key_Return)
    settle(qtbot, win)
    qtbot.waitUntil(lambda: "title edited" in pane.meta_label.text(), timeout=WAIT_MS)
    assert not pane.reset_title_button.isHidden()
    qtbot.mouseClick(pane.reset_title_button, Qt.MouseButton.LeftButton, pos=QPoint(3, 3))
    settle(qtbot, win)
    qtbot.waitUntil(lambda: "Woven Lattices" in pane.title_label.text(), timeout=WAIT_MS)
    assert "title edited" not in pane.meta_label.text()
