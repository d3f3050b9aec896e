"""Edit ▸ Copy as Bibliography (Ctrl+Shift+C), Copy as Citation (Ctrl+Shift+A) and
Bibliography Style… on the seed library plus real files, offscreen (issue 33): the
clipboard carries HTML and plain text, in the style and locale of the preferences."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
import zipfile

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from ui_fixtures import WAIT_MS, open_seeded, press, settle, wait_idle, win  # noqa: F401

from paperdesk.core.scope import Scope

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _copied(qtbot, window) -> str:
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Copied"),
                    timeout=WAIT_MS)
    return window.statusBar().currentMessage()


def test_ctrl_shift_c_puts_html_and_text_on_the_clipboard(qtbot, win):
    window = win
    window.select_rows([0, 2, 5])
    chosen = window.selected_ids()
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_C, CTRL_SHIFT)
    assert _copied(qtbot, window) == "Copied 3 references, APA Style 7th edition"
    data = QApplication.clipboard().mimeData()
    assert data.hasHtml() and data.hasText()
    html, text = data.html(), data.text()
    assert html.count('class="csl-entry"') == 3 and "<em>" in html
    assert "text-indent: -0.5in" in html               # APA's hanging indent
    entries = text.split("\n\n")
    assert len(entries) == 3 and "<" not in text
    for pid in chosen:                                  # no author: by title, "n.d."
        title = window.lib.papers.get(pid).title
        assert any(" ".join(e.split()).startswith(" ".join(title.split()[:5]))
                   for e in entries)
    assert text.count("(n.d.") == 3


def test_ctrl_shift_a_copies_a_citation_in_the_chosen_style(qtbot, win):
    window = win
    window.settings.set_bibliography_style("ieee", None)
    window.select_rows([1, 3])
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_A, CTRL_SHIFT)
    message = _copied(qtbot, window)
    assert message.startswith("Copied a citation of 2 papers, IEEE")
    data = QApplication.clipboard().mimeData()
    assert data.text() == "[1], [2]" and "[1], [2]" in data.html()


def test_ctrl_shift_c_in_the_tag_pane_copies_the_papers_of_its_tag(qtbot, win):
    """With the tag pane focused, the key copies the chosen tag's papers, not the one
    paper selected in the list (issue 33: "the selected papers, a tag, a search or a saved
    search")."""
    window = win
    tagged = window.lib.papers.ids()[:4]
    window.triage.add_tag("to cite", tagged)
    settle(qtbot, window)
    qtbot.waitUntil(lambda: any(t.name == "to cite" for t in window.tag_pane.tag_entries()),
                    timeout=WAIT_MS)
    tag = next(t for t in window.tag_pane.tag_entries() if t.name == "to cite")
    assert window.tag_pane.select_scope(Scope(tag_id=tag.id))
    qtbot.waitUntil(lambda: window.model.rowCount() == 4, timeout=WAIT_MS)
    window.select_rows([0])
    window.tag_pane.setFocus()
    qtbot.keyClick(window.tag_pane, Qt.Key.Key_C, CTRL_SHIFT)
    assert _copied(qtbot, window) == "Copied 4 references, APA Style 7th edition"
    entries = QApplication.clipboard().mimeData().text().split("\n\n")
    assert len(entries) == 4
    for pid in tagged:
        title = " ".join(window.lib.papers.get(pid).title.split()[:5])
        assert any(" ".join(e.split()).startswith(title) for e in entries), title


def test_the_style_dialog_searches_and_keeps_the_last_five_on_top(qtbot, win):
    window = win
    for style in ("apa", "elsevier-harvard", "modern-language-association", "nature",
                  "vancouver", "ieee"):
        window.settings.set_bibliography_style(style, None)
    recent = ["ieee", "vancouver", "nature", "modern-language-association", "elsevier-harvard"]
    assert window.settings.recent_styles == recent      # the last five, latest first
    window.actions_by_name["bibliographyStyleAction"].trigger()
    qtbot.waitUntil(lambda: window.bibliography.style_dialog is not None
                    and window.bibliography.style_dialog.isVisible(), timeout=WAIT_MS)
    dialog = window.bibliography.style_dialog
    assert dialog.shown_ids()[:6] == [*recent, "2d-materials"]   # then all by id
    qtbot.keyClicks(dialog.search, "chicago author date")
    assert dialog.shown_ids() and all("chicago" in s for s in dialog.shown_ids())
    dialog.search.clear()
    qtbot.keyClicks(dialog.search, "chicago-author-date")
    dialog.locale.setCurrentIndex(dialog.locale.findData("de-DE"))
    qtbot.keyClick(dialog.search, Qt.Key.Key_Return)
    assert window.settings.bibliography_style == dialog.shown_ids()[0]
    assert window.settings.bibliography_locale == "de-DE"
    assert window.settings.recent_styles[0] == window.settings.bibliography_style



def test_the_export_dialog_writes_a_formatted_bibliography_in_the_chosen_style(
        qtbot, win, tmp_path):
    window = win
    window.settings.set_bibliography_style("ieee", None)
    window.select_rows([0, 1, 2, 3])
    dialog = window.exports.open_export_dialog()
    dialog.set_scope("selected")
    dialog.set_format("bibliography")
    assert dialog.path().suffix == ".html"
    target = tmp_path / "refs.html"
    dialog.set_path(target)
    dialog.accept()
    qtbot.waitUntil(lambda: not window.export_runner.is_running() and target.exists(),
                    timeout=WAIT_MS)
    html = target.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count('class="csl-entry"') == 4
    assert "[4]" in html and "[5]" not in html          # IEEE numbers them


def test_ctrl_shift_c_in_the_search_box_copies_every_match_of_the_typed_search(qtbot, win):
    """A typed search, not saved: with the focus still in the search box, the key copies
    the search's papers (issue 33: "a search"), not the one paper the list made current."""
    window = win
    wait_idle(qtbot, window)
    query = "diffusion"
    matches = window.lib.papers.scope_ids(Scope(query=query))
    assert 3 <= len(matches) <= 40
    press(qtbot, window, Qt.Key.Key_Slash)
    qtbot.keyClicks(window.search_box, query)
    qtbot.waitUntil(lambda: window.model.searching and window.model.rowCount() == len(matches)
                    and not window.is_busy(), timeout=WAIT_MS)
    assert QApplication.focusWidget() is window.search_box
    qtbot.keyClick(window.search_box, Qt.Key.Key_C, CTRL_SHIFT)
    assert _copied(qtbot, window) == (f"Copied {len(matches)} references, "
                                      "APA Style 7th edition")
    data = QApplication.clipboard().mimeData()
    assert data.html().count('class="csl-entry"') == len(matches)
    entries = data.text().split("\n\n")
    assert len(entries) == len(matches)
    for pid in matches:
        title = " ".join(window.lib.papers.get(pid).title.split()[:5])
        assert any(" ".join(e.split()).startswith(title) for e in entries), title
    assert window.search_box.text() == query and QApplication.focusWidget() is window.search_box


_ODF = {"style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
        "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
        "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0"}


def _odf(name: str, space: str = "style") -> str:
    return f"{{{_ODF[space]}}}{name}"


def _odt_properties(odt) -> tuple[list[tuple[str, float, float]], list[str]]:
    """``([(paragraph text, margin-left, text-indent in inches)], [italic text runs])`` of
    an ODT file: each paragraph's own or inherited style, each span whose style is italic."""
    with zipfile.ZipFile(odt) as z:
        roots = [ET.fromstring(z.read(n)) for n in ("styles.xml", "content.xml")]
    styles = {s.get(_odf("name")): s for root in roots for s in root.iter(_odf("style"))}

    def prop(name: str | None, kind: str, key: str) -> str | None:
        while name in styles:
            found = styles[name].find(_odf(kind))
            if found is not None and found.get(f"{{{_ODF['fo']}}}{key}"):
                return found.get(f"{{{_ODF['fo']}}}{key}")
            name = styles[name].get(_odf("parent-style-name"))
        return None

    def inches(value: str | None) -> float:
        return float(value.removesuffix("in")) if value else 0.0

    body = roots[1]
    paragraphs = [("".join(p.itertext()),
                   inches(prop(p.get(_odf("style-name", "text")), "paragraph-properties",
                               "margin-left")),
                   inches(prop(p.get(_odf("style-name", "text")), "paragraph-properties",
                               "text-indent")))
                  for p in body.iter(_odf("p", "text")) if "".join(p.itertext()).strip()]
    italic = ["".join(s.itertext()) for s in body.iter(_odf("span", "text"))
              if prop(s.get(_odf("style-name", "text")), "text-properties",
                      "font-style") == "italic"]
    return paragraphs, italic


@pytest.mark.slow
def test_libreoffice_keeps_the_italics_and_the_hanging_indent_of_the_copied_html(
        qtbot, win, tmp_path):
    """The clipboard's HTML, converted by LibreOffice Writer's HTML import (what a paste
    goes through) to ODT: each entry a paragraph with APA's half-inch hanging indent, the
    titles in italics."""
    soffice = shutil.which("soffice")
    if soffice is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    window = win
    window.select_rows([0, 2, 5])
    chosen = window.selected_ids()
    window.focus_list()
    qtbot.keyClick(window.table, Qt.Key.Key_C, CTRL_SHIFT)
    _copied(qtbot, window)
    pasted = tmp_path / "pasted.html"
    pasted.write_text(QApplication.clipboard().mimeData().html(), encoding="utf-8")
    done = subprocess.run([soffice, f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}",
                           "--headless", "--infilter=HTML (StarWriter)", "--convert-to", "odt",
                           "--outdir", str(tmp_path), str(pasted)],
                          capture_output=True, text=True, timeout=180)
    assert (tmp_path / "pasted.odt").is_file(), done.stdout + done.stderr
    paragraphs, italic = _odt_properties(tmp_path / "pasted.odt")
    assert len(paragraphs) == 3
    for text, margin, indent in paragraphs:
        assert margin == pytest.approx(0.5) and indent == pytest.approx(-0.5), text
    for pid in chosen:
        title = " ".join(window.lib.papers.get(pid).title.split()[:5])
        assert any(" ".join(run.split()).startswith(title) for run in italic), (title, italic)
