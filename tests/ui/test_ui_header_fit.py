"""GUI tests: nothing in the detail pane's header is clipped (issue 13, item 6).

A long title is cut to three lines ending in "…" with the whole title in the tooltip,
instead of running on until the layout clips it mid-line; the added/read line, the star
and read buttons and the note's hint are never cut. Real windows on a copy of the seed
library, offscreen, at 900x600 (the smallest size the README promises) and 1280x800.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtWidgets import QLabel, QToolButton

from paperdesk.ui.panes.detail_pane import MAX_TITLE_LINES
from ui_fixtures import WAIT_MS, open_seeded, press, settle, win  # noqa: F401

LONG_TITLE = ("Scaling laws for neural language models revisited: " + " ".join(
    f"a study of width, depth, data and compute number {i}" for i in range(8)))


def _plain(label: QLabel) -> str:
    doc = QTextDocument()
    doc.setHtml(label.text())
    return doc.toPlainText()


def _set_title_by_keys(qtbot, window, title: str) -> int:
    pid = window.current_paper_id()
    press(qtbot, window, Qt.Key.Key_F2)
    editor = window.detail_pane.title_editor
    assert window.focusWidget() is editor
    editor.selectAll()
    qtbot.keyClicks(editor, title)
    press(qtbot, window, Qt.Key.Key_Return)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: window.detail_pane.paper is not None
                    and window.detail_pane.paper.title == title, timeout=WAIT_MS)
    QCoreApplication.processEvents()
    return pid


def _cut_parts(pane) -> list[tuple[str, int, int]]:
    """The header labels that get less height than their text needs at their width,
    and the buttons narrower or lower than their text: ``(objectName, has, needs)``."""
    cut = []
    for label in (pane.title_label, pane.byline_label, pane.meta_label, pane.note_hint):
        assert label.isVisible(), label.objectName()
        need = label.heightForWidth(label.width()) if label.hasHeightForWidth() \
            else label.sizeHint().height()
        if label.height() < need - 1:
            cut.append((label.objectName(), label.height(), need))
        if label.width() < label.minimumSizeHint().width() - 1:
            cut.append((label.objectName(), label.width(), label.minimumSizeHint().width()))
    for button in pane.header.findChildren(QToolButton):
        hint = button.sizeHint()
        if button.isVisible() and (button.width() < hint.width()
                                   or button.height() < hint.height()):
            cut.append((button.objectName(), button.width(), hint.width()))
    return cut


def _assert_nothing_cut(qtbot, pane) -> None:
    """Wait for the layout to settle, then check that nothing is cut."""
    try:
        qtbot.waitUntil(lambda: not _cut_parts(pane), timeout=3000)
    except AssertionError:
        raise AssertionError(f"cut: {_cut_parts(pane)}") from None


def test_long_title_elides_at_three_lines_with_tooltip(qtbot, open_seeded):
    window = open_seeded()
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.width() == 900, timeout=WAIT_MS)
    pid = _set_title_by_keys(qtbot, window, LONG_TITLE)
    assert window.lib.papers.get(pid).title == LONG_TITLE
    pane = window.detail_pane
    label = pane.title_label
    shown = _plain(label)
    assert shown.endswith("…") and pane.title_elided
    assert LONG_TITLE.startswith(shown[:-1].rstrip())
    assert _tooltip_text(label).startswith(LONG_TITLE + "\n")
    lines = QFontMetrics(label.font()).lineSpacing()
    assert label.heightForWidth(label.width()) <= MAX_TITLE_LINES * lines + 4
    _assert_nothing_cut(qtbot, pane)
    # A wider window shows more of it, and still nothing is cut.
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=WAIT_MS)
    QCoreApplication.processEvents()
    wider = _plain(label)
    assert len(wider) > len(shown)
    _assert_nothing_cut(qtbot, pane)


def _tooltip_text(label: QLabel) -> str:
    doc = QTextDocument()
    doc.setHtml(label.toolTip())
    return doc.toPlainText().replace("\u2028", "\n")   # <br> is a line separator


def test_short_title_shows_whole_and_header_fits_at_900x600(qtbot, open_seeded):
    window = open_seeded()
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.width() == 900, timeout=WAIT_MS)
    _set_title_by_keys(qtbot, window, "A short title")
    pane = window.detail_pane
    assert _plain(pane.title_label) == "A short title" and not pane.title_elided
    assert "A short title\n" not in _tooltip_text(pane.title_label)
    _assert_nothing_cut(qtbot, pane)
    # Walking the list with the keyboard keeps every header fitted, read line included.
    for _ in range(5):
        press(qtbot, window, Qt.Key.Key_Down)
        settle(qtbot, window)
        QCoreApplication.processEvents()
        assert "unread" in pane.meta_label.text() or "read " in pane.meta_label.text()
        _assert_nothing_cut(qtbot, pane)


def _line_count(text: str, font, width: float) -> int:
    from PySide6.QtGui import QTextLayout, QTextOption
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    count = 0
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        count += 1
    layout.endLayout()
    return count


def test_wrapped_cut_on_nasty_titles(qtbot, win):
    from paperdesk.ui.panes.paper_html import title_html
    from paperdesk.ui.style.text_fit import wrapped_cut

    font = win.detail_pane.title_label.font()
    nasty = ["x" * 600,                                   # one word longer than a line
             "深層学習による" * 60,                          # CJK, no spaces
             "Ünïcødé çàsé 𝒪(n log n) bounds " * 20,       # accents, astral characters
             "<b>not bold</b> & " * 30]                    # markup stays text
    for text in nasty:
        cut = wrapped_cut(text, font, 300, 3)
        assert cut is not None and 0 < cut < len(text), text[:20]
        assert _line_count(text[:cut] + "…", font, 300) <= 3, text[:20]
    assert wrapped_cut("Short", font, 300, 3) is None
    assert wrapped_cut("", font, 300, 3) is None
    assert wrapped_cut("x" * 600, font, 0, 3) is None     # not laid out yet
    html = title_html("<b>x</b> & more", end=4)
    assert html == "&lt;b&gt;x…"


def test_large_desktop_font_cuts_nothing(qtbot, open_seeded):
    """A desktop font of 15 pt (large-text settings, high-DPI without scaling): the
    added/read line and the buttons flow onto more lines, the note hint ends in "…"
    with the whole hint in its tooltip, and nothing is cut."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    saved = app.font()
    big = app.font()
    big.setPointSizeF(15)
    app.setFont(big)
    try:
        window = open_seeded()
        window.resize(900, 600)
        qtbot.waitUntil(lambda: window.width() == 900, timeout=WAIT_MS)
        _set_title_by_keys(qtbot, window, LONG_TITLE)
        pane = window.detail_pane
        _assert_nothing_cut(qtbot, pane)
        assert "unread" in pane.meta_label.text()
        hint = pane.note_hint
        assert hint.elided and hint.text().endswith("…")
        assert _tooltip_text(hint) == hint.full_text
        assert hint.full_text.startswith(hint.text()[:-1])
        # The sidebar starts wide enough for its section names and a five-digit count.
        metrics = window.tag_pane.fontMetrics()
        assert window.splitter.sizes()[0] >= metrics.horizontalAdvance("Saved searches") \
            + metrics.horizontalAdvance("100,000") + 40   # indent, gap, margins
        window.resize(1600, 900)
        qtbot.waitUntil(lambda: window.width() == 1600, timeout=WAIT_MS)
        _assert_nothing_cut(qtbot, pane)
    finally:
        app.setFont(saved)


def test_a_title_of_one_endless_word_wraps_and_keeps_the_header_in_the_window(
        qtbot, open_seeded):
    """A new user's try: a title of 200,000 letters without a space (a broken file)
    widened the header past the window: one clipped line, no "…", the buttons gone. The
    run now breaks anywhere (zero-width spaces), as the cut is laid out, and the
    tooltip shows its first 1,000 characters."""
    from paperdesk.ui.panes.detail_pane import TIP_TITLE_CHARS

    window = open_seeded()
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.width() == 900, timeout=WAIT_MS)
    pid = window.current_paper_id()
    title = "x" * 200_000
    window.submit_edit(lambda lib: lib.papers.set_title(pid, title))
    pane = window.detail_pane
    qtbot.waitUntil(lambda: pane.paper is not None and pane.paper.title == title,
                    timeout=WAIT_MS)
    QCoreApplication.processEvents()
    label = pane.title_label
    shown = _plain(label)
    assert shown.endswith("…") and pane.title_elided
    assert set(shown[:-1]) <= {"x", "\u200b"} and shown.count("x") < 1_000
    lines = QFontMetrics(label.font()).lineSpacing()
    assert label.heightForWidth(label.width()) <= MAX_TITLE_LINES * lines + 4
    right = pane.mapTo(window, pane.rect().topRight()).x()
    assert pane.header.mapTo(window, pane.header.rect().topRight()).x() <= right + 1
    for button in pane.header.findChildren(QToolButton):
        if button.isVisibleTo(pane):
            assert button.mapTo(window, button.rect().topRight()).x() <= right + 1, \
                button.objectName()
    tip = _tooltip_text(label)
    assert tip.startswith("x" * TIP_TITLE_CHARS + "…\n") and len(tip) < 2 * TIP_TITLE_CHARS
    _assert_nothing_cut(qtbot, pane)
