"""Browsable first (issue 12, point 1): ``paperdesk import`` stores the papers, says so,
then indexes them with progress; while the index catches up, ``stats`` counts what is
pending, searches say they covered part of the library, and other commands read the
library from another process. Ctrl+C while indexing keeps every paper.

Index writes are held up by the tests themselves (a patched ``SearchIndex.write`` that
waits for the test), never by sleeping."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from helpers import ctrl_c_at_index_write
from paperdesk.cli import main
from paperdesk.core.library import Library
from paperdesk.core.search.index import SearchIndex

#: Bound on waiting for another process (it never decides the outcome).
WAIT_S = 120


def _run(*args, library, env=None):
    return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(library),
                           *map(str, args)], capture_output=True, text=True, timeout=WAIT_S,
                          env=None if env is None else {**os.environ, **env})


def test_import_prints_the_stored_counts_before_indexing_then_the_index_progress(
        tmp_path, seed_files, capsys, monkeypatch):
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 100)
    printed_before_index: list[str] = []
    real_write = SearchIndex.write

    def write(self, *args, **kwargs):
        printed_before_index.append(capsys.readouterr().out)
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "write", write)
    lib = tmp_path / "lib"
    assert main(["--library", str(lib), "import", *map(str, seed_files)]) == 0
    rest = capsys.readouterr().out
    first = printed_before_index[0]
    assert "total: 225 added, 0 enriched, 15 duplicates, 0 rejected" in first
    assert "stored: 225 papers in the library (225 new); indexing 225 for search" in first
    assert len(printed_before_index) == 3          # 225 papers in batches of 100
    assert "indexed" not in "".join(printed_before_index)
    assert rest.strip().splitlines()[-1] == "indexed: 225 of 225 papers searchable"


def test_the_terminal_shows_indexing_with_papers_searchable_of_the_library(
        tmp_path, seed_files, monkeypatch):
    from paperdesk import cli_progress

    shown = []
    real_init = cli_progress.ImportBar.__init__

    def on_a_terminal(self, stream=None, enabled=None):
        real_init(self, stream, enabled=True)

    monkeypatch.setattr(cli_progress.ImportBar, "__init__", on_a_terminal)
    monkeypatch.setattr(cli_progress.ImportBar, "_show",
                        lambda self, snap: shown.append((snap.stage, snap.done, snap.total)))
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 100)
    lib = tmp_path / "lib"
    assert main(["--library", str(lib), "import", str(seed_files[0])]) == 0
    first = [s for s in shown if s[0] == "index"]
    assert main(["--library", str(lib), "import", str(seed_files[1])]) == 0
    second = [s for s in shown if s[0] == "index"][len(first):]
    assert first[-1] == ("index", 120, 120)
    # the second file's papers are counted against the whole library, not this run
    assert second[0][2] == second[-1][2] == 225 and second[-1][1] == 225
    assert second[0][1] >= 120


def test_stats_and_search_while_papers_wait_to_be_indexed(tmp_path, seed_files, capsys):
    lib_path = tmp_path / "lib"
    with Library.open(lib_path) as lib:
        lib.imports.run(seed_files[:1], sync=False)
        lib.index.sync()
        lib.imports.run(seed_files[1:], sync=False)          # stored, not indexed
        stats = lib.papers.stats()
        assert (stats["papers"], stats["searchable"], stats["unindexed"]) == (225, 120, 105)
        results = lib.search.find("model")
        assert results.partial and (results.indexed, results.papers) == (120, 225)
        assert "searched 120 of 225 papers" in results.coverage_note()
    argv = ["--library", str(lib_path)]
    # (a command that writes would bring the index up to date on opening: these read)
    from paperdesk.core.store.lock import LibraryLock
    held = LibraryLock(lib_path, app="cli")
    held.acquire()
    try:
        capsys.readouterr()
        assert main(argv + ["stats"]) == 0
        out = capsys.readouterr().out
        assert "indexing: 120 of 225 papers searchable, 105 pending" in out
        assert main(argv + ["stats", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert (doc["searchable"], doc["unindexed"]) == (120, 105)
        assert main(argv + ["search", "model"]) == 0
        captured = capsys.readouterr()
        assert ("paperdesk: note: searched 120 of 225 papers: the rest are still being "
                "indexed") in captured.err
        assert main(argv + ["search", "model", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert (doc["partial"], doc["indexed"], doc["papers"]) == (True, 120, 225)
    finally:
        held.release()
    with Library.open(lib_path) as lib:                       # a writer catches up
        assert lib.papers.stats()["unindexed"] == 0
        assert not lib.search.find("model").partial


def test_ctrl_c_while_indexing_exits_130_and_keeps_every_paper(tmp_path, seed_files,
                                                               capsys, monkeypatch):
    monkeypatch.setattr("paperdesk.core.search.sync.INDEX_BATCH", 50)
    ctrl_c_at_index_write(monkeypatch)
    lib_path = tmp_path / "lib"
    assert main(["--library", str(lib_path), "import", *map(str, seed_files)]) == 130
    err = capsys.readouterr().err
    assert "Cancelled while indexing: 225 papers imported and kept" in err
    assert "125 of 225 not yet searchable" in err
    monkeypatch.undo()
    with Library.open(lib_path, sync_index=False) as lib:
        assert lib.papers.count() == 225 and lib.papers.stats()["unindexed"] == 125
    with Library.open(lib_path) as lib:             # indexed at the next open
        assert lib.papers.stats()["searchable"] == 225 == lib.index.whoosh.doc_count()


_BLOCKING_IMPORT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from paperdesk.core.search import sync
    from paperdesk.core.search.index import SearchIndex
    from paperdesk.cli import main

    sync.INDEX_BATCH = 100
    started, release = Path(sys.argv[1]), Path(sys.argv[2])
    real_write = SearchIndex.write

    calls = []

    def write(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:                  # the first batch is in, and off the queue
            started.touch()
            while not release.exists():      # the test reads the library meanwhile
                time.sleep(0.02)
        return real_write(self, *args, **kwargs)

    SearchIndex.write = write
    sys.exit(main(sys.argv[3:]))
""")


def test_other_commands_read_the_library_while_an_import_indexes(tmp_path, seed_files):
    lib = tmp_path / "lib"
    started, release = tmp_path / "started", tmp_path / "release"
    script = tmp_path / "blocking_import.py"
    script.write_text(_BLOCKING_IMPORT, encoding="utf-8")
    importer = subprocess.Popen(
        [sys.executable, str(script), str(started), str(release), "--library", str(lib),
         "import", *map(str, seed_files)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while not started.exists():
            assert importer.poll() is None, importer.communicate()
            assert time.monotonic() < deadline, "the import never started indexing"
            time.sleep(0.05)
        stats = _run("stats", "--json", library=lib)
        assert stats.returncode == 0, stats.stderr
        doc = json.loads(stats.stdout)
        assert (doc["papers"], doc["searchable"], doc["unindexed"]) == (225, 100, 125)
        found = _run("search", "model", "--json", library=lib)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["partial"] is True
        assert "searched 100 of 225 papers" in found.stderr
        shown = _run("show", "200", library=lib)          # not indexed yet, but there
        assert shown.returncode == 0 and shown.stdout.strip(), shown.stderr
        # its turn does not come while the import is held (1 s, not the default 60 s)
        refused = _run("tag", "add", "x", "1", library=lib,
                       env={"PAPERDESK_LOCK_WAIT": "1"})
        assert refused.returncode == 1 and "paperdesk command" in refused.stderr
    finally:
        release.touch()
        out, err = importer.communicate(timeout=WAIT_S)
    assert importer.returncode == 0, err
    assert out.index("stored: 225 papers") < out.index("indexed: 225 of 225 papers")
