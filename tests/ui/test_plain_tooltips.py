"""Hostile text in tooltips (issue 14, item 11): a query, tag, title or file name such as
``<img src=...>`` is shown as the literal characters in every tooltip, never rendered as
rich text (Qt guesses rich text with ``Qt::mightBeRichText`` and would load the image).

Two checks: a static one over the UI's source (every ``setToolTip`` gets a string
literal, :func:`tooltip_html`, or one of a few constants), and the window itself after a
hostile query is typed into the search box."""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtGui import QTextDocument

from ui_fixtures import WAIT_MS, open_seeded, win  # noqa: F401

UI = Path(__file__).resolve().parents[2] / "src" / "paperdesk" / "ui"
#: Arguments known to hold only the program's own text: (file name, source of the arg).
CONSTANT_TIPS = {("main_window.py", "SEARCH_TIP"), ("actions.py", "tip"),
                 ("detail_pane.py", "tip"), ("tag_pane.py", "tip"),
                 ("export_dialog.py", "f'{fmt.label} — {fmt.purpose} ({fmt.extension})'"),
                 ("duplicates_view.py", "tip"), ("tags_dialog.py", "tip"),
                 ("triage.py", "CARET_MESSAGE")}
HOSTILE = "<img src='/tmp/paperdesk-no-such.png'><b>bold</b>"


def _safe(node: ast.AST, file: str) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "tooltip_html":
        return True
    if isinstance(node, ast.IfExp):
        return _safe(node.body, file) and _safe(node.orelse, file)
    return (file, ast.unparse(node)) in CONSTANT_TIPS


def test_every_tooltip_in_the_ui_is_escaped_or_constant():
    unsafe = []
    for path in sorted(UI.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "setToolTip":
                arg = node.args[-1]
                if not _safe(arg, path.name):
                    unsafe.append(f"{path.name}:{node.lineno}: {ast.unparse(arg)}")
    assert not unsafe, unsafe


def _plain(html_text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html_text)
    return doc.toPlainText()


def test_hostile_query_is_literal_in_the_status_bar_tooltip(qtbot, win):
    window = win
    window.focus_search()
    qtbot.keyClicks(window.search_box, HOSTILE)
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == HOSTILE and not window.is_busy(),
                    timeout=WAIT_MS)
    tip = window.status_label.toolTip()
    assert tip, "the status bar has a tooltip"
    assert "<img" not in tip and "<b>" not in tip   # escaped: no element Qt could load
    assert HOSTILE in _plain(tip)                  # shown as the literal characters


# -- every tooltip of the window on a library full of markup (issue 23 item 9) ---------
MARKUP = "<b>x</b>"


def _markup_library(template, folder):
    """A copy of the seed library where every text a tooltip can show holds
    ``<b>x</b>``: titles (of the paper shown and of papers related to it), a tag on
    papers like it (so it is suggested), a note, a saved search, the venue, and a file
    whose name and an abstract carry markup."""
    import dataclasses
    import shutil

    from paperdesk.core.library import Library

    shutil.copytree(template, folder)
    source = folder.parent / "<b>file.txt"
    source.write_text(  # one paragraph of markup among prose: imported as abstracts
        f"Daily Papers\n\nWe study the markup tag {MARKUP} in a depth estimation model for "
        "monocular images and report the results of many experiments on benchmarks.\n\n"
        "We study a second depth estimation model for monocular images and report the "
        "results of many experiments on benchmarks.\n\nWe study a third depth estimation "
        "model for stereo images and report the results of many experiments.\n",
        encoding="utf-8")
    with Library.open(folder) as lib:
        lib.imports.run([source])
        depth = lib.search.hits("depth estimation", limit=40)
        pid = depth[0].id
        for i, hit in enumerate(depth[:12]):
            lib.papers.set_title(hit.id, f"{MARKUP} title {i}")
        # most of its neighbours tagged: a suggestion needs evidence (issue 32)
        lib.tags.add([h.id for h in depth[1:]], f"{MARKUP} tag")
        lib.notes.set(pid, f"{MARKUP} note")
        lib.saved_searches.save(f"{MARKUP} saved", "depth")
        lib.papers.set_metadata(pid, dataclasses.replace(lib.papers.metadata(pid), venue=f"{MARKUP} venue"))
        lib.discover.ensure()                # related papers, suggestions, key terms
    return pid


def _columns(model, parent) -> int:
    try:
        return model.columnCount(parent)
    except TypeError:            # a list model: columnCount is not public in PySide
        return 1


def _model_tips(model, parent=None, most=400):
    from PySide6.QtCore import QModelIndex, Qt

    parent = parent or QModelIndex()
    tips = []
    for row in range(min(model.rowCount(parent), most)):
        for col in range(_columns(model, parent)):
            index = model.index(row, col, parent)
            tips.append(model.data(index, Qt.ItemDataRole.ToolTipRole))
            if col == 0 and model.rowCount(index) > 0:
                tips += _model_tips(model, index, most)
    if parent == QModelIndex():
        for col in range(_columns(model, parent)):
            tips.append(model.headerData(col, Qt.Orientation.Horizontal,
                                         Qt.ItemDataRole.ToolTipRole))
    return tips


def _every_tooltip(window) -> list[str]:
    from PySide6.QtWidgets import QAbstractItemView, QApplication

    tips = []
    for widget in QApplication.allWidgets():
        tips.append(widget.toolTip())
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            tips += _model_tips(widget.model())
    for action in window.findChildren(type(window.undo_action)):
        tips.append(action.toolTip())
    overview = window.overview.overview_window
    if overview is not None:
        chart = overview.chart
        for title, bar in chart.bars():
            tips.append(chart.tooltip_at(chart.bar_rect(title, bar.label).center()))
    return [tip for tip in tips if isinstance(tip, str) and tip]


def test_markup_from_files_and_users_is_literal_in_every_tooltip(qtbot, tmp_path,
                                                                 _seeded_template,
                                                                 open_seeded):
    from PySide6.QtCore import QCoreApplication, Qt

    pid = _markup_library(_seeded_template, tmp_path / "lib")
    window = open_seeded("lib", fresh=False)
    assert window.select_row(window.model.row_of(pid))
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid
                    and window.detail_pane.discover_paper_id == pid
                    and not window.discover.discover_busy(), timeout=WAIT_MS)
    qtbot.keyClick(window.table, Qt.Key.Key_L,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: window.overview.overview_window is not None
                    and not window.overview.overview_window.is_loading()
                    and window.overview.overview_window.overview is not None, timeout=WAIT_MS)
    QCoreApplication.processEvents()
    tips = _every_tooltip(window)
    raw = [tip for tip in tips if "<b>" in tip]
    assert not raw, raw                         # no markup Qt would render
    shown = [_plain(tip) for tip in tips]
    for text in (f"{MARKUP} title", f"{MARKUP} tag", f"{MARKUP} saved",
                 f"{MARKUP} venue", "<b>file.txt"):
        assert any(text in tip for tip in shown), (text, [t for t in shown if "<" in t])
    assert window.detail_pane.related_list.count() > 0
    related_tips = [_plain(window.detail_pane.related_list.item(i).toolTip())
                    for i in range(window.detail_pane.related_list.count())]
    assert any(MARKUP in tip for tip in related_tips), related_tips
    chips = window.detail_pane.chips.suggestion_chips()          # the tag is suggested
    assert any(f"{MARKUP} tag" in _plain(chip.toolTip()) for chip in chips), \
        [chip.toolTip() for chip in chips]
