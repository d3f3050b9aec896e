"""Index batches written by a child process (what the window uses during imports)."""

from __future__ import annotations

import os

import pytest

from helpers import write_daily
from paperdesk.core.search import index as index_module
from paperdesk.core.search.writer_process import IndexWriteError


def _abstracts(n: int, word: str) -> list[str]:
    return [f"We study {word} number {i} with a careful method. It works well on test "
            f"{i}." for i in range(n)]


def test_big_batches_go_to_the_child_and_are_searchable(empty_library, tmp_path):
    lib = empty_library
    lib.index.use_writer_process()
    lib.import_paths([write_daily(tmp_path / "a.txt", _abstracts(120, "okapi"))])
    process = lib.index._writer_process
    assert process is not None and process.alive()         # 120 >= PROCESS_BATCH_MIN
    assert process._process.pid != os.getpid()
    assert lib.find("okapi", limit=None).total == 120
    assert lib.stats()["indexed"] == 120 and lib.stats()["pending_index"] == 0
    lib.set_note(lib.paper_ids()[0], "capybara")           # small: written here
    assert [h.id for h in lib.search("capybara")] == [lib.paper_ids()[0]]
    lib.reindex()                                          # recreate stops the child
    assert lib.find("okapi", limit=None).total == 120
    lib.close()
    assert not process.alive()


def test_a_failed_child_batch_stays_queued(empty_library, tmp_path, monkeypatch):
    lib = empty_library
    lib.index.use_writer_process()
    lib.import_paths([write_daily(tmp_path / "a.txt", _abstracts(60, "quokka"))])
    monkeypatch.setattr(index_module, "PROCESS_BATCH_MIN", 1)
    lib.auto_sync_index = False
    pid = lib.paper_ids()[0]
    process = lib.index._writer_process
    process._process.kill()                    # a dead child is replaced at the next batch
    process._process.join(5)
    lib.set_note(pid, "axolotl")
    assert lib.sync_index() == 1
    assert [h.id for h in lib.search("axolotl")] == [pid]
    lib.set_note(pid, "capybara")
    broken = lib.index._writer_process
    broken._conn.close()                       # a child that cannot answer
    with pytest.raises(IndexWriteError, match="stopped"):
        lib.sync_index()
    assert lib.stats()["pending_index"] == 1   # still queued: nothing lost
    assert lib.search("capybara") == []
    assert lib.index._writer_process is None    # the next batch starts a new child
    assert lib.sync_index() == 1
    assert [h.id for h in lib.search("capybara")] == [pid]
