"""Large index batches are written as segments by child processes (both cores); small
ones in the calling thread; a failed child loses nothing."""

from __future__ import annotations

import os

import pytest

from helpers import write_daily
from paperdesk.core.search import index as index_module
from paperdesk.core.search.writer_process import IndexWriteError


def _abstracts(n: int, word: str) -> list[str]:
    return [f"We study {word} number {i} with a careful method. It works well on test "
            f"{i}." for i in range(n)]


@pytest.fixture
def small_batches(monkeypatch):
    """Children for batches of 40 documents or more (the default is 500)."""
    monkeypatch.setattr(index_module, "PROCESS_BATCH_MIN", 40)


def test_big_batches_are_shared_by_a_child_and_this_thread(empty_library, tmp_path,
                                                           small_batches):
    """The command line's way: one share in this thread, one in a child process."""
    lib = empty_library
    lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(120, "okapi"))])
    children = lib.index.whoosh._builders._children
    assert len(children) == 1 and children[0].alive()
    assert children[0]._process.pid != os.getpid()
    assert sorted(n for n, _d in lib.index.whoosh.segment_sizes()) == [60, 60]
    assert lib.search.find("okapi", limit=None).total == 120


def test_the_window_leaves_all_shares_to_children(empty_library, tmp_path, small_batches):
    lib = empty_library
    lib.index.whoosh.use_writer_process()
    lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(120, "okapi"))])
    children = lib.index.whoosh._builders._children
    assert len(children) == 2 and all(c.alive() for c in children)
    assert all(c._process.pid != os.getpid() for c in children)
    assert len(lib.index.whoosh.segment_sizes()) == 2       # one segment per child, 60 each
    assert sorted(n for n, _d in lib.index.whoosh.segment_sizes()) == [60, 60]
    assert lib.search.find("okapi", limit=None).total == 120
    assert lib.papers.stats()["indexed"] == 120 and lib.papers.stats()["pending_index"] == 0
    pid = lib.papers.ids()[0]
    lib.notes.set(pid, "capybara")                    # small: written here
    assert [h.id for h in lib.search.hits("capybara")] == [pid]
    assert lib.search.find("okapi", limit=None).total == 120  # the old document is deleted
    lib.index.reindex()
    assert lib.search.find("okapi", limit=None).total == 120
    lib.close()
    assert not any(c.alive() for c in children)


def test_a_failed_child_batch_stays_queued(empty_library, tmp_path, small_batches,
                                           monkeypatch):
    lib = empty_library
    lib.index.whoosh.use_writer_process()
    lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(60, "quokka"))])
    monkeypatch.setattr(index_module, "PROCESS_BATCH_MIN", 1)
    lib.auto_sync_index = False
    pid = lib.papers.ids()[0]
    child = lib.index.whoosh._builders._children[0]
    child._process.kill()                      # a dead child is replaced at the next batch
    child._process.join(5)
    lib.notes.set(pid, "axolotl")
    assert lib.index.sync() == 1
    assert [h.id for h in lib.search.hits("axolotl")] == [pid]
    lib.notes.set(pid, "capybara")
    broken = lib.index.whoosh._builders._children[0]
    broken._conn.close()                       # a child that cannot answer
    with pytest.raises(IndexWriteError, match="stopped"):
        lib.index.sync()
    assert lib.papers.stats()["pending_index"] == 1   # still queued: nothing lost
    assert lib.search.hits("capybara") == []
    assert [h.id for h in lib.search.hits("axolotl")] == [pid]  # the old document is still there
    assert lib.index.sync() == 1               # a new child
    assert [h.id for h in lib.search.hits("capybara")] == [pid]
    assert lib.search.hits("axolotl") == []


def test_in_thread_when_processes_are_off(empty_library, tmp_path, small_batches):
    lib = empty_library
    lib.index.whoosh.use_writer_process(False)
    lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(120, "okapi"))])
    assert lib.index.whoosh._builders._children == []
    assert lib.index.whoosh.segment_sizes() == [(120, 0)]
    assert lib.search.find("okapi", limit=None).total == 120


def test_children_read_the_documents_themselves(empty_library, tmp_path, small_batches):
    """A large batch sends paper ids; each child reads its share from the library
    (read-only) and leaves out a paper deleted after it was queued."""
    lib = empty_library
    lib.index.whoosh.use_writer_process()
    lib.imports.run([write_daily(tmp_path / "a.txt", _abstracts(100, "okapi"))], sync=False)
    gone = lib.papers.ids()[5]
    with lib.db.conn:                    # deleted behind the queue's back (a race)
        lib.db.execute("DELETE FROM paper_sources WHERE paper_id = ?", [gone])
        lib.db.execute("DELETE FROM papers WHERE id = ?", [gone])
    assert lib.index.sync() == 100
    assert len(lib.index.whoosh._builders._children) == 2
    assert lib.search.find("okapi", limit=None).total == 99
    assert gone not in lib.index.whoosh.indexed_ids()
