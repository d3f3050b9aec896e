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
                 ("export_dialog.py", "f'{name} — {hint} ({EXTENSIONS[fmt]})'"),
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
    qtbot.waitUntil(lambda: window._results is not None
                    and window._results.query == HOSTILE and not window.is_busy(),
                    timeout=WAIT_MS)
    tip = window.status_label.toolTip()
    assert tip, "the status bar has a tooltip"
    assert "<img" not in tip and "<b>" not in tip   # escaped: no element Qt could load
    assert HOSTILE in _plain(tip)                  # shown as the literal characters
