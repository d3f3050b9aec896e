"""The garbage collector paused while a search decodes (paperdesk.core.collector)."""

from __future__ import annotations

import gc
import threading

import pytest

from paperdesk.core import collector


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_turns_collections_off_and_back_on(collector_on):
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()   # the outer block still runs
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on):
    gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_on_again_after_an_error(collector_on):
    with pytest.raises(ValueError):
        with collector.paused():
            raise ValueError("boom")
    assert gc.isenabled()


def test_blocks_of_several_threads_overlapping(collector_on):
    """Thread A enters, thread B enters, A leaves while B is inside (still off), B leaves:
    on again. A plain save-and-restore per block would leave it off for good."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with collector.paused():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b():
        a_in.wait(5)
        with collector.paused():
            b_in.set()
            a_out.wait(5)
            seen["inside after A left"] = gc.isenabled()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {"inside after A left": False}
    assert gc.isenabled()


def test_decoding_positions_starts_no_collection(tmp_path, collector_on):
    """A common word's position lists (one Python list per posting) are decoded without
    a collection running in the middle: with the young generation's threshold at 50,
    decoding 1,500 postings or more would start dozens."""
    from paperdesk.core.search import fastscore
    from paperdesk.core.search.index import IndexDocument, SearchIndex

    index = SearchIndex(tmp_path / "index")
    index.write(add=[IndexDocument(i, f"paper {i}", f"the model number {i} and the model again",
                                   (1,), (), "", (), ("a.txt", "a"), ("unread",))
                     for i in range(1, 3001)])
    reader = max((r for r, _b in index._ix.searcher().reader().leaf_readers()),
                 key=lambda r: r.doc_count_all())
    runs = []

    def count(phase, info):
        if phase == "start":
            runs.append(info["generation"])

    threshold = gc.get_threshold()
    gc.callbacks.append(count)
    try:
        gc.set_threshold(50, 10, 10)
        ids, _w, starts, flat = fastscore._read_positions(reader, "exact", b"model")
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(count)
    assert len(ids) >= 1500
    first = reader.postings("exact", "model").value_as("positions")   # Whoosh's own
    assert flat[starts[0]:starts[1]].tolist() == list(first) and len(first) == 2
    assert runs == []
    index.close()


def test_settle_sets_aside_what_exists_and_unsettle_gives_it_back():
    gc.unfreeze()
    kept = [[i] for i in range(1000)]
    try:
        assert collector.settle() >= 1000 == len(kept)
        assert gc.get_freeze_count() >= 1000
    finally:
        collector.unsettle()
    assert gc.get_freeze_count() == 0


def test_a_dropped_list_is_freed_a_slice_at_a_time_unless_someone_still_has_it(monkeypatch):
    """``SlowFree``: a million ids freed at once held the interpreter lock 15 ms on the
    window's UI thread; dropped, they go ``FREED_PER_STEP`` at a time, one per step."""
    from paperdesk.core import collector

    monkeypatch.setattr(collector, "FREED_PER_STEP", 1000)
    slow = collector.SlowFree()
    assert slow.drop(list(range(500))) is False          # short: just let go of
    assert slow.drop(list(range(10_000, 14_500))) is True
    kept = list(range(20_000, 23_000))
    assert slow.drop(kept) is True
    assert slow.pending() == 4500 + 3000
    # the list someone still holds is let go of whole, never cut; the step goes on to
    # the next one
    assert slow.step() is True and kept == list(range(20_000, 23_000))
    assert slow.pending() == 3500
    sizes = []
    while slow.step():
        sizes.append(slow.pending())
    assert sizes == [2500, 1500, 500] and slow.pending() == 0
    assert slow.step() is False
    assert slow.drop("not a list") is False and slow.drop(None) is False
