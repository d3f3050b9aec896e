"""What the tester found when an import's indexing is interrupted at 100,000 papers:
Ctrl+C reaches the segment-writing children too (a terminal signals the whole process
group), a killed child must end in one line, commands that only read must not index
what an interrupted import left (silently, for 40 s), and did-you-mean must not compare
the word with every word of a many-segment index."""

from __future__ import annotations

import json
import os
import signal

import pytest

from helpers import ctrl_c_at_index_write, write_daily
from paperdesk.cli import QUIET_SYNC_MAX, main
from paperdesk.core.library import Library
from paperdesk.core.search import index as index_module
from paperdesk.core.search.index import (POSTING_BLOCK, IndexDocument, SearchIndex, _correction,
                                         build_schema)
from paperdesk.core.search.writer_process import IndexWriteError, SegmentBuilderProcess


def _abstracts(n: int, word: str) -> list[str]:
    return [f"We study {word} number {i} with a careful method. It works well on test "
            f"{i}." for i in range(n)]


def test_a_segment_writing_child_ignores_ctrl_c(tmp_path):
    """SIGINT to the child (as Ctrl+C sends to the whole group) leaves it serving."""
    idx = SearchIndex(tmp_path / "ix")
    child = SegmentBuilderProcess(build_schema, POSTING_BLOCK)
    try:
        docs = [IndexDocument(i, f"t{i}", f"okapi {i}") for i in range(1, 4)]
        child.send(str(idx.path), "MAIN", docs)      # it is up once it has answered
        assert child.receive().doc_count_all() == 3
        os.kill(child._process.pid, signal.SIGINT)
        child.send(str(idx.path), "MAIN", docs)
        assert child.receive().doc_count_all() == 3  # still there, no traceback
        assert child.alive()
    finally:
        child.close()
        idx.close()


def test_a_failed_index_write_is_one_line(tmp_path, seed_files, capsys, monkeypatch):
    def broken(*_args, **_kwargs):
        raise IndexWriteError("the process writing the search index stopped "
                              "(it ended without an answer)")

    monkeypatch.setattr(SearchIndex, "write", broken)
    lib = tmp_path / "lib"
    assert main(["--library", str(lib), "import", str(seed_files[0])]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    line = [ln for ln in err.splitlines() if "indexing stopped" in ln]
    assert len(line) == 1 and "every paper is kept" in line[0]
    monkeypatch.undo()
    with Library.open(lib) as opened:          # the next open indexes the rest
        assert opened.papers.stats()["indexed"] == opened.papers.count() > 0


def test_reading_commands_leave_a_large_queue_alone(tmp_path, capsys):
    path = tmp_path / "lib"
    n = QUIET_SYNC_MAX + 50
    with Library.open(path) as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(n, "okapi"))],
                         sync=False)         # as an interrupted import leaves it
    for command in (["stats"], ["show", "1"], ["tags"]):
        assert main(["--library", str(path), *command]) == 0
    capsys.readouterr()
    with Library.open(path, sync_index=False) as lib:
        assert lib.index.status().queued == n    # nothing was indexed behind the user
    assert main(["--library", str(path), "tag", "add", "seen", "1"]) == 0
    assert f"indexing {n:,} papers left from an earlier import first" in \
        capsys.readouterr().err                  # a write says so, then indexes
    with Library.open(path, sync_index=False) as lib:
        assert lib.index.status().queued == 0


def test_a_search_indexes_what_an_interrupted_import_left(tmp_path, capsys):
    """Issue 23 item 8: after an interrupted import nothing is indexing, yet ``search``
    said "the rest are still being indexed" (and found nothing of it), forever."""
    path = tmp_path / "lib"
    n = QUIET_SYNC_MAX + 50
    with Library.open(path) as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(n, "okapi"))],
                         sync=False)         # as an interrupted import leaves it
    assert main(["--library", str(path), "search", "okapi", "--json"]) == 0
    captured = capsys.readouterr()
    assert f"indexing {n:,} papers left from an earlier import first" in captured.err
    assert f"indexed: {n:,} of {n:,} papers searchable" in captured.err
    assert "still being indexed" not in captured.err
    doc = json.loads(captured.out)
    assert (doc["total"], doc["partial"]) == (n, False)


def test_a_search_stopped_while_indexing_says_what_to_run(tmp_path, capsys, monkeypatch):
    path = tmp_path / "lib"
    n = QUIET_SYNC_MAX + 50
    with Library.open(path) as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(n, "okapi"))],
                         sync=False)
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 100)
    ctrl_c_at_index_write(monkeypatch)
    assert main(["--library", str(path), "search", "okapi"]) == 0
    err = capsys.readouterr().err
    assert "still being indexed" not in err
    note = [line for line in err.splitlines() if "searched " in line]
    assert len(note) == 1 and f"of {n:,} papers" in note[0], err
    assert "are not searchable yet" in note[0] and "paperdesk reindex" in note[0], note


def test_a_few_queued_edits_are_applied_before_reading(tmp_path, capsys):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(5, "okapi"))])
        lib.auto_sync_index = False
        lib.notes.set(lib.papers.ids()[0], "capybara")
    assert main(["--library", str(path), "search", "capybara"]) == 0
    capsys.readouterr()
    with Library.open(path, sync_index=False) as lib:
        assert lib.index.status().queued == 0
        assert lib.search.find("capybara").total == 1


@pytest.mark.parametrize("word", ["netwrk", "univers", "qzx", "modle", "transformr"])
def test_did_you_mean_agrees_with_whoosh_over_many_segments(tmp_path, word):
    idx = SearchIndex(tmp_path / "ix")
    texts = ["network networks netwerk", "universe university", "model models",
             "transformer transform", "network neural", "modal mode model"]
    for i, text in enumerate(texts, 1):                # one segment each
        idx.write(add=[IndexDocument(i, "", text)])
    reader = idx._searcher.reader()
    assert len(reader.leaf_readers()) == len(texts)
    maxdist = 1 if len(word) < 6 else 2
    whoosh = idx._searcher.suggest("exact", word, limit=1, maxdist=maxdist)
    assert _correction(reader, "exact", word, maxdist) == (whoosh[0] if whoosh else None)
