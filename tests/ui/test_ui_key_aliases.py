"""Key aliases in the window (issue 25 item 10): a paper that answers to the key of an
entry merged onto it is found by ``key:alias`` in the search box and shows the alias in
its Citation block."""

from __future__ import annotations

import shutil
from pathlib import Path

from ui_fixtures import WAIT_MS, open_seeded, win  # noqa: F401

from paperdesk.core.library import Library

#: Among others, doe2020 and doe-cite-preprint: one DOI, two keys.
BIB = Path(__file__).parents[1] / "core" / "data" / "imports" / "key_aliases.bib"


def test_a_key_alias_is_searched_and_shown(qtbot, tmp_path, _seeded_template, open_seeded):
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        lib.imports.run([BIB])
        pid = lib.papers.for_key("doe2020")
    window = open_seeded("lib", fresh=False)
    window.focus_search()
    qtbot.keyClicks(window.search_box, "key:doe-cite-preprint")
    qtbot.waitUntil(lambda: window.search.results is not None
                    and window.search.results.query == "key:doe-cite-preprint"
                    and not window.is_busy(), timeout=WAIT_MS)
    assert window.model.ids() == [pid]
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == pid, timeout=WAIT_MS)
    text = window.detail_pane.abstract_view.toPlainText()
    assert "Citation key" in text and "doe2020" in text
    assert "Also cited as" in text and "doe-cite-preprint" in text
