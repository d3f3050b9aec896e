"""Edits made with the keyboard while an import runs in the window: each one is shown,
is committed (seen from another connection) before the import ends, and undo reverses
it. Before the one-writer worker, the first key froze the window for 10 s and failed with
"database is locked"."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from ui_fixtures import (WAIT_MS, keyed_tag, open_seeded, press,  # noqa: F401
                         wait_idle, win)

from paperdesk.ui.panes.paper_model import ReadRole, StarredRole, TagsRole

N = 8000   #: abstracts imported: enough that storing them takes a few seconds
WORDS = ("depth", "stereo", "lidar", "radiance", "transformer", "diffusion", "graph",
         "kernel", "sparse", "manifold", "bandit", "policy", "contrastive", "tokenizer")


def _abstracts(n: int) -> list[str]:
    """``n`` distinct abstracts that read as prose."""
    out = []
    for i in range(n):
        a, b, c = (WORDS[(i * k) % len(WORDS)] for k in (1, 3, 5))
        out.append(f"We study {a} estimation with {b} priors for problem number {i}. "
                   f"Our method combines {c} features with a learned {a} model and "
                   f"improves accuracy on benchmark {i % 97} by a clear margin.")
    return out


def _slow_import(monkeypatch) -> None:
    """Make storing a Daily Papers file take about a millisecond an abstract, in
    batches of 100, so that an import of :data:`N` lasts seconds (storing 8,000 takes
    well under a second now; the index catches up after the import). The file is read
    by the importing thread: it is under PARSE_CHILD_MIN_BYTES."""
    import time

    from paperdesk.core.imports import parse_process

    real_hash = parse_process.content_hash

    def slow_hash(text):
        time.sleep(0.001)
        return real_hash(text)

    monkeypatch.setattr("paperdesk.core.imports.parse_process.content_hash", slow_hash)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 100)


def _papers_committed(lib) -> int:
    """How many papers another connection sees."""
    con = sqlite3.connect(f"file:{lib.path / 'library.db'}?mode=ro", uri=True)
    try:
        return con.execute("SELECT count(*) FROM papers").fetchone()[0]
    finally:
        con.close()


def _committed(lib, pid: int) -> tuple[bool, bool, tuple[str, ...]]:
    """(starred, read, tag names) of a paper as another connection sees them."""
    con = sqlite3.connect(f"file:{lib.path / 'library.db'}?mode=ro", uri=True)
    try:
        starred, read_at = con.execute("SELECT starred, read_at FROM papers WHERE id = ?",
                                       [pid]).fetchone()
        tags = tuple(r[0] for r in con.execute(
            "SELECT t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            "WHERE pt.paper_id = ? ORDER BY t.name", [pid]))
    finally:
        con.close()
    return bool(starred), read_at is not None, tags


def test_star_read_and_tag_keys_during_an_import(qtbot, win, tmp_path, monkeypatch):
    _slow_import(monkeypatch)
    window, lib = win, win.lib
    assert window.triage.create_tag("depth", key=1)
    wait_idle(qtbot, window)
    source = tmp_path / "big.txt"
    total = 225 + N
    source.write_text("Daily Papers\n\n" + "\n\n".join(_abstracts(N)) + "\n",
                      encoding="utf-8")
    assert window.start_import([source])
    # The import commits in batches: the first ones are visible long before the end.
    qtbot.waitUntil(lambda: _papers_committed(lib) > 225, timeout=WAIT_MS)
    window.focus_list()
    window.select_row(0)
    pid = window.current_paper_id()
    index = window.model.index(0, 0)
    steps = [("s", lambda: index.data(StarredRole), lambda c: c[0]),
             ("r", lambda: index.data(ReadRole), lambda c: c[1]),
             ("1", lambda: [n for n, _colour in index.data(TagsRole) or ()] == ["depth"],
              lambda c: c[2] == ("depth",))]
    for key, shown, committed in steps:
        press(qtbot, window, key)
        qtbot.waitUntil(lambda: bool(shown()), timeout=5000)
        assert committed(_committed(lib, pid)), key
        assert _papers_committed(lib) < total, f"the import's papers were all in before {key!r}"
        assert window.import_runner.is_running()
        assert not window.statusBar().currentMessage().startswith("⚠")
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=120000)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=120000)   # indexed after it
    assert lib.papers.count() == total
    assert _committed(lib, pid) == (True, True, ("depth",))
    for expected in [(True, True, ()), (True, False, ()), (False, False, ())]:
        qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: _committed(lib, pid) == expected, timeout=5000)
    qtbot.waitUntil(lambda: not index.data(StarredRole), timeout=5000)


def _unlike_abstracts(n: int) -> list[str]:
    """``n`` abstracts of 40 words drawn at random from 2,000 made-up ones: no two are
    near-duplicates (the import's near-duplicate match of each record stays cheap, as
    with real abstracts; :func:`_abstracts` shares most of its 3-word shingles)."""
    import random

    rng = random.Random(28)
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "zu", "da", "fe"]
    vocabulary = sorted({"".join(rng.choice(syllables) for _ in range(4))
                         for _ in range(3000)})[:2000]
    return [f"We study {' '.join(rng.choices(vocabulary, k=40))} in setting {i}."
            for i in range(n)]


def _arxiv_lines(path, n: int):
    """``n`` distinct cs records in the arXiv snapshot's shape (JSON Lines)."""
    import json

    texts = _unlike_abstracts(n)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({
                "id": f"2403.{i:05d}", "submitter": "S",
                "authors": f"A. {texts[i].split()[2].title()}",    # citation keys unlike
                "title": " ".join(texts[i].split()[3:8]).capitalize(),  # each other too
                "categories": "cs.DS", "doi": None,
                "abstract": texts[i],
                "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 10:00:00 GMT"}],
                "update_date": "2024-01-02", "authors_parsed": [[texts[i].split()[2].title(), "A.", ""]],
            }) + "\n")
    return path


def test_a_large_import_is_stored_by_a_process_of_its_own(qtbot, win, tmp_path, monkeypatch):
    """A file over PROCESS_MIN_BYTES (lowered here) is stored by the import's own process
    (the window's interpreter is left to the UI thread, issue 28): the window never
    calls ``lib.imports.run``, lists the papers as they come, and a star, a read mark
    and a tag pressed meanwhile are committed before the import ends."""
    from paperdesk.core.imports import import_process
    from paperdesk.core.imports.pipeline import Imports

    def not_here(*args, **kwargs):
        raise AssertionError("the window's process stored the import itself")

    monkeypatch.setattr(import_process, "PROCESS_MIN_BYTES", 1)
    monkeypatch.setattr(Imports, "run", not_here)
    window, lib = win, win.lib
    assert window.triage.create_tag("depth", key=1)
    wait_idle(qtbot, window)
    n = 12000
    source = _arxiv_lines(tmp_path / "arxiv.jsonl", n)
    total = 225 + n
    assert window.start_import([source])
    qtbot.waitUntil(lambda: _papers_committed(lib) > 225, timeout=30000)
    window.focus_list()
    window.select_row(0)
    pid = window.current_paper_id()
    index = window.model.index(0, 0)
    for key, committed in [("s", lambda c: c[0]), ("r", lambda c: c[1]),
                           ("1", lambda c: c[2] == ("depth",))]:
        press(qtbot, window, key)
        qtbot.waitUntil(lambda: committed(_committed(lib, pid)), timeout=5000)
        assert _papers_committed(lib) < total, f"the import's papers were all in before {key!r}"
        assert window.import_runner.is_running()
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=120000)
    assert not window.statusBar().currentMessage().startswith("⚠")
    qtbot.waitUntil(lambda: window.model.rowCount() == total, timeout=30000)
    assert lib.papers.count() == total
    assert _committed(lib, pid) == (True, True, ("depth",))
    assert index.data(StarredRole)


def _queue_every_paper(lib):
    """An edit (run on the window's writer thread) that queues every paper for
    re-indexing, as an edit of indexed text on all of them does (tags no longer do:
    ``tag:`` is answered from SQLite), then tells the library it changed."""
    from paperdesk.core.changes import Changes
    from paperdesk.core.store import db as store_db

    ids = lib.papers.ids()
    with store_db.transaction(lib.db) as db:
        lib.index.enqueue(db, ids, "update")
    lib.after_change()
    return Changes.of(papers=ids)


def test_a_large_index_update_shows_progress_and_cancel(qtbot, win, monkeypatch, tmp_path):
    """225 queued index updates: the status bar shows "Indexing for search", its Cancel
    stops after the current batch (the rest stays queued, nothing is lost), and an
    import started meanwhile does not wait behind it."""
    import time

    window, lib = win, win.lib
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 20)
    whoosh_class = type(lib.index.whoosh)
    write = whoosh_class.write

    def slow_write(*args, **kwargs):
        time.sleep(0.4)                      # 12 batches: about 5 s for the 225 papers
        return write(*args, **kwargs)

    # on the class: the window's writer thread has a library (and index) of its own
    monkeypatch.setattr(whoosh_class, "write", slow_write)
    window.run_edit(_queue_every_paper)
    qtbot.waitUntil(lambda: window.progress_bar.isVisible() and "Indexing for search"
                    in window.progress_bar.format(), timeout=WAIT_MS)
    assert window.cancel_button.isVisible() and window.cancel_button.isEnabled()
    qtbot.mouseClick(window.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.sync_runner.is_busy(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not window.progress_bar.isVisible(), timeout=5000)
    pending = lib.papers.stats()["pending_index"]
    assert 0 < pending < 225                                   # the rest stays queued

    window.run_edit(_queue_every_paper)                            # another long update...
    qtbot.waitUntil(lambda: window.sync_runner.is_busy(), timeout=WAIT_MS)
    source = tmp_path / "small.txt"
    source.write_text("Daily Papers\n\n" + "\n\n".join(_abstracts(50)) + "\n",
                      encoding="utf-8")
    assert window.start_import([source])                     # ...does not hold it up:
    qtbot.waitUntil(lambda: _papers_committed(lib) == 275, timeout=WAIT_MS)
    # the update stopped early, so most of its papers were still queued when the
    # import's papers went in (without the cancel only the 50 new ones would be)
    assert lib.papers.stats()["pending_index"] > 50 + 100
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=WAIT_MS)


def _deferrable_indexes(lib) -> set[str]:
    """The title and citation-key indexes of ``papers`` another connection sees."""
    from paperdesk.core.store import bulk_indexes

    con = sqlite3.connect(f"file:{lib.path / 'library.db'}?mode=ro", uri=True)
    try:
        return {r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index'")} & set(bulk_indexes.DEFERRABLE)
    finally:
        con.close()


def test_the_window_import_keeps_its_indexes_so_no_build_at_its_end_holds_an_edit(
        qtbot, win, tmp_path, monkeypatch):
    """An import larger than the library (the threshold lowered) through the window
    keeps the title and citation-key indexes while it stores: building them after it
    (as the CLI's import does, core.store.bulk_indexes) held the write lock for 4-8 s at
    a million papers, and a star pressed then waited 8.4 s. The window lists the first
    papers, a star key is committed meanwhile, and the indexes are there all along."""
    from paperdesk.core.store import bulk_indexes

    _slow_import(monkeypatch)
    monkeypatch.setattr(bulk_indexes, "DEFER_MIN_ABSTRACTS", 1000)
    window, lib = win, win.lib
    n = 3000
    source = tmp_path / "big.txt"
    source.write_text("Daily Papers\n\n" + "\n\n".join(_abstracts(n)) + "\n",
                      encoding="utf-8")
    assert _deferrable_indexes(lib) == set(bulk_indexes.DEFERRABLE)
    assert window.start_import([source])
    qtbot.waitUntil(lambda: _papers_committed(lib) > 225, timeout=WAIT_MS)
    assert _deferrable_indexes(lib) == set(bulk_indexes.DEFERRABLE)   # kept while it stores
    window.focus_list()
    window.select_row(0)
    pid = window.current_paper_id()
    index = window.model.index(0, 0)
    press(qtbot, window, "s")
    qtbot.waitUntil(lambda: bool(index.data(StarredRole)), timeout=5000)
    assert _committed(lib, pid)[0]
    assert window.import_runner.is_running()
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=120000)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=120000)
    assert lib.papers.count() == 225 + n
    assert _deferrable_indexes(lib) == set(bulk_indexes.DEFERRABLE)
    assert _committed(lib, pid)[0]
    assert not window.statusBar().currentMessage().startswith("⚠")


def test_counts_are_read_less_often_while_an_import_stores(qtbot, win, tmp_path,
                                                           monkeypatch):
    """Tags toggled during an import each ask for the counts (each counts every paper:
    0.1-0.2 s at a million, on the reader thread, while the import's processes take the
    cores): during an import the next counts read waits so that counting takes at most
    ``COUNTS_SHARE_IMPORTING`` of the time (made tiny here: none until the import ends),
    and once the import ends the counts are read at once and right."""
    _slow_import(monkeypatch)
    window, lib = win, win.lib
    monkeypatch.setattr(type(window), "COUNTS_SHARE_IMPORTING", 0.0001, raising=False)
    keyed_tag(qtbot, window, "depth")
    wait_idle(qtbot, window)
    asked = []
    real_counts = lib.papers.filter_counts

    def counting(only=None):
        asked.append(window.import_runner.is_running())
        return real_counts(only)

    monkeypatch.setattr(lib.papers, "filter_counts", counting)
    source = tmp_path / "big.txt"
    source.write_text("Daily Papers\n\n" + "\n\n".join(_abstracts(N)) + "\n",
                      encoding="utf-8")
    assert window.start_import([source])
    qtbot.waitUntil(lambda: _papers_committed(lib) > 225, timeout=WAIT_MS)
    window.focus_list()
    for row in range(6):
        window.select_row(row)
        qtbot.keyClick(window.table, Qt.Key.Key_1)
        qtbot.waitUntil(lambda: bool(window.model.index(row, 0).data(TagsRole)),
                        timeout=5000)
        qtbot.wait(100)                       # the counts read of this toggle comes back
    assert window.import_runner.is_running(), "the import ended before the toggles"
    during = sum(asked)
    assert during <= 2, f"{during} counts reads during the import for six tag toggles"
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=120000)
    pane = window.tag_pane
    qtbot.waitUntil(lambda: dict((f, n) for f, _l, n in pane.filter_entries())["untagged"]
                    == lib.papers.count() - 6, timeout=WAIT_MS)


def test_the_next_paper_is_shown_while_the_counts_of_every_paper_are_read(qtbot, win,
                                                                          monkeypatch):
    # issue 28: during a million-paper import the paper on show (read on the reader
    # thread) waited for the counts read before it (0.1-0.2 s each), on the window's one
    # reader thread; the counts now have a thread of their own
    import threading

    from paperdesk.core.papers import Papers

    counting, release = threading.Event(), threading.Event()
    real_count = Papers.scope_count

    def held_count(self, *args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            counting.set()
            release.wait(3 * WAIT_MS / 1000)
        return real_count(self, *args, **kwargs)

    window = win
    keyed_tag(qtbot, window, "depth")
    window.focus_list()
    window.select_row(0)
    wait_idle(qtbot, window)
    monkeypatch.setattr(Papers, "scope_count", held_count)
    try:
        # a tag toggle: "Untagged" is counted again, and the counts read is held (a
        # star's counts are added in place, not read)
        press(qtbot, window, "1")
        first = window.model.index(0, 0)
        qtbot.waitUntil(lambda: bool(first.data(TagsRole)) and counting.is_set(),
                        timeout=WAIT_MS)
        qtbot.keyClick(window.table, Qt.Key.Key_Down)
        following = window.current_paper_id()
        assert following != window.model.ids()[0]
        qtbot.waitUntil(lambda: window.detail_pane.paper_id == following, timeout=WAIT_MS)
        assert not release.is_set()                 # shown while the counts still wait
    finally:
        release.set()
    wait_idle(qtbot, window)


def test_the_tag_panes_counts_move_together_during_an_import(qtbot, win, tmp_path,
                                                             monkeypatch):
    """The tester's P2: during an import, a counts read that asked only for the status
    bar's counts (a selection of several rows, a search) put the new "All papers" count
    in the tag pane, while "Unread" and "Untagged" (which the import's papers move too)
    kept theirs until the next full count. The imported papers are unread and untagged,
    so "All papers" minus "Unread" (the read papers) and minus "Untagged" (the tagged
    ones) must stay what they were at every moment of the import."""
    from PySide6.QtCore import QTimer

    _slow_import(monkeypatch)
    window, lib = win, win.lib
    keyed_tag(qtbot, window, "depth")
    window.focus_list()
    window.select_row(0)
    press(qtbot, window, "1", "r")                # one paper tagged and read
    pane = window.tag_pane

    def shown() -> tuple[int, int]:
        counts = {f: n for f, _l, n in pane.filter_entries()}
        total = pane.entries()[0][2]
        return total - counts["unread"], total - counts["untagged"]

    qtbot.waitUntil(lambda: shown() == (1, 1), timeout=WAIT_MS)
    wait_idle(qtbot, window)
    source = tmp_path / "big.txt"
    source.write_text("Daily Papers\n\n" + "\n\n".join(_abstracts(N)) + "\n",
                      encoding="utf-8")
    samples: list[tuple[int, int]] = []
    sampler = QTimer(window, interval=5)
    sampler.timeout.connect(lambda: samples.append(shown()))
    sampler.start()
    assert window.start_import([source])
    qtbot.waitUntil(lambda: _papers_committed(lib) > 225, timeout=WAIT_MS)
    window.focus_list()
    for row in range(1, 12):     # selections of several rows: the status bar's counts
        window.select_row(0)
        for _ in range(row):
            qtbot.keyClick(window.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
        qtbot.wait(150)
    assert window.import_runner.is_running(), "the import ended before the selections"
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=120000)
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=120000)   # indexed after it
    sampler.stop()
    assert len(samples) > 100
    wrong = sorted(set(s for s in samples if s != (1, 1)))
    assert not wrong, f"All papers minus Unread / Untagged during the import: {wrong[:5]}"
    assert pane.entries()[0][2] == lib.papers.count() == 225 + N


def test_the_counts_follow_an_import_while_a_search_is_shown(qtbot, win, tmp_path,
                                                             monkeypatch):
    """The tester's second round: with a search typed, the list shows its hits and is not
    read again during an import, and the counts (read with it) stayed at 225 for the
    whole import; they now follow the stored papers as without a search."""
    _slow_import(monkeypatch)
    window, lib = win, win.lib
    window.focus_search()
    qtbot.keyClicks(window.search_box, "learning")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(),
                    timeout=WAIT_MS)
    source = tmp_path / "big.txt"
    source.write_text("Daily Papers\n\n" + "\n\n".join(_abstracts(N)) + "\n",
                      encoding="utf-8")
    assert window.start_import([source])
    qtbot.waitUntil(lambda: _papers_committed(lib) > 225 + 500, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.tag_pane.entries()[0][2] > 225 + 400, timeout=WAIT_MS)
    assert window.import_runner.is_running(), "the counts moved only at the import's end"
    assert window.search.query_text() == "learning"
    qtbot.waitUntil(lambda: not window.import_runner.is_running(), timeout=120000)
    qtbot.waitUntil(lambda: window.tag_pane.entries()[0][2] == 225 + N, timeout=WAIT_MS)
