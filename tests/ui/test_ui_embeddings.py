"""GUI tests of issue 27: the window embeds the papers in the background once related
papers answer (progress and Cancel in the status bar, the papers done kept), related
papers then are the hybrid's, and without the embedding model the status bar says so
once and related papers stay tf-idf's."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QCoreApplication, Qt

from paperdesk.core.discover import embedded
from paperdesk.core.embeddings import vector_build
from paperdesk.core.embeddings.static_model import StaticModel
from ui_fixtures import WAIT_MS, open_seeded, press, win  # noqa: F401

needs_model = pytest.mark.skipif(embedded.model_problem() is not None,
                                 reason="the embeddings extra is not installed")


def _wait_discover(qtbot, window) -> int:
    qtbot.waitUntil(lambda: window.detail_pane.paper_id is not None
                    and window.detail_pane.paper_id == window.current_paper_id()
                    and window.detail_pane.discover_paper_id == window.detail_pane.paper_id
                    and not window.discover.discover_busy(), timeout=WAIT_MS)
    QCoreApplication.processEvents()
    return window.detail_pane.paper_id


@needs_model
def test_papers_are_embedded_and_related_papers_become_the_hybrid(qtbot, win):
    window = win
    pid = _wait_discover(qtbot, window)
    qtbot.waitUntil(lambda: (window.lib.path / "vectors" / "meta.json").exists(),
                    timeout=WAIT_MS)
    pid = _wait_discover(qtbot, window)
    assert window.lib.discover.embeddings.missing() == 0
    expected = [r.id for r in window.lib.discover.related(pid)]
    assert window.detail_pane.related_list.paper_ids() == expected
    press(qtbot, window, Qt.Key.Key_J)              # the next paper: hybrid at once
    pid = _wait_discover(qtbot, window)
    assert window.detail_pane.related_list.paper_ids() == \
        [r.id for r in window.lib.discover.related(pid)]
    assert not window.progress_bar.isVisible()


@needs_model
def test_embedding_shows_progress_and_cancel_keeps_the_papers_done(qtbot, open_seeded,
                                                                   monkeypatch):
    gate, calls = threading.Event(), []
    real = StaticModel.encode

    def held(self, texts):
        calls.append(len(texts))
        if len(calls) > 1:
            gate.wait(30)
        return real(self, texts)
    monkeypatch.setattr(StaticModel, "encode", held)
    monkeypatch.setattr(vector_build, "CHUNK", 50)
    window = open_seeded()
    try:
        qtbot.waitUntil(lambda: window.progress_bar.isVisible() and
                        window.progress_bar.format() ==
                        "Embedding papers for related papers: 50 of 225", timeout=WAIT_MS)
        assert window.cancel_button.isVisible() and window.cancel_button.isEnabled()
        messages = []
        window.statusBar().messageChanged.connect(messages.append)
        qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    finally:
        gate.set()
    qtbot.waitUntil(lambda: not window.discover.embedding_runner.is_running(),
                    timeout=WAIT_MS)
    QCoreApplication.processEvents()
    assert any(m.startswith("Embedding papers: cancelled") for m in messages), messages
    assert not window.progress_bar.isVisible()
    assert 0 < window.lib.discover.embeddings.missing() < 225    # what was done stays


def test_without_the_model_related_papers_are_tfidf_and_it_is_said_once(qtbot, open_seeded,
                                                                        monkeypatch):
    monkeypatch.setattr(embedded, "model_problem", lambda: embedded.NOT_INSTALLED)
    window = open_seeded()
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    pid = _wait_discover(qtbot, window)
    qtbot.waitUntil(lambda: any("tf-idf alone" in m for m in messages), timeout=WAIT_MS)
    for _ in range(3):
        press(qtbot, window, Qt.Key.Key_J)
        pid = _wait_discover(qtbot, window)
    assert sum("tf-idf alone" in m for m in messages) == 1
    assert next(m for m in messages if "tf-idf alone" in m) == \
        "Related papers by tf-idf alone: the embedding model is not installed " \
        "(pip install 'paperdesk[embeddings]')"
    assert not (window.lib.path / "vectors").exists()
    assert len(window.detail_pane.related_list.paper_ids()) == 10
    assert window.lib.discover.embeddings.current() is None


@needs_model
def test_a_tilde_query_in_the_search_box_searches_by_meaning(qtbot, win):
    window = win
    _wait_discover(qtbot, window)
    qtbot.waitUntil(lambda: window.lib.discover.embeddings.current() is not None,
                    timeout=WAIT_MS)
    text = "~estimating how far away things are from one photograph"
    window.focus_search()
    qtbot.keyClicks(window.search_box, text)
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy()
                    and window.search.results is not None
                    and window.search.results.query == text, timeout=WAIT_MS)
    results = window.search.results
    assert results.message == ""
    first = [window.model.paper_id(row) for row in range(5)]
    abstracts = [window.lib.papers.get(pid).abstract.lower() for pid in first]
    assert sum("depth" in a for a in abstracts) >= 4
    assert first == [h.id for h in window.lib.search.find(text, limit=5).hits]
