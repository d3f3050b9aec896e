"""The window's searches in a process of their own (issue 28): the child's answers are
the search thread's answers, it follows what the writer commits, and a child that dies
is told, never waited for."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from paperdesk.core.api import RANKED_FIRST
from paperdesk.core.scope import Scope
from paperdesk.core.search.search_process import (SEARCH_PROCESS_ENV,
                                                  SEARCH_PROCESS_MIN_PAPERS, SearchAsk,
                                                  SearchProcess, SearchProcessGone,
                                                  run_search, search_process_wanted)


@pytest.fixture
def process(seeded_library):
    child = SearchProcess(seeded_library.path)
    yield child
    child.close()


def _same(a, b) -> None:
    (ra, ta), (rb, tb) = a, b
    assert np.array_equal(np.asarray(ra.ids), np.asarray(rb.ids))
    assert np.allclose(np.asarray(ra.scores, dtype=float), np.asarray(rb.scores, dtype=float))
    assert (ra.total, ra.message, ra.suggestion) == (rb.total, rb.message, rb.suggestion)
    assert [h.id for h in ra.hits] == [h.id for h in rb.hits]
    assert [h.snippet for h in ra.hits] == [h.snippet for h in rb.hits]
    assert ta == tb


def test_the_child_answers_as_the_search_thread_does(seeded_library, process):
    lib = seeded_library
    tag = lib.tags.ensure("later")
    lib.tags.add(lib.papers.ids()[:40], "later")
    asks = [SearchAsk("depth estimation"), SearchAsk("model", rank=5),
            SearchAsk("model", {"tag_id": tag.id}, "title", True),
            SearchAsk("diffusion OR transformer", Scope(filter="unread").where(), "added"),
            SearchAsk('"neural network"'), SearchAsk("depht"), SearchAsk("nothingmatchesthis"),
            SearchAsk("b*")]
    for ask in asks:
        firsts = []
        here = run_search(lib, ask)
        there = process.search(ask, lambda r, t: firsts.append(r))
        _same(here, there)
        assert there[0].ranked and there[0].rest is None
        if ask.rank is not None and there[0].total > ask.rank:
            best = len(firsts[0].ids)       # the best first (at least a page of rows)
            assert len(firsts) == 1 and ask.rank <= best < there[0].total
            assert np.array_equal(firsts[0].ids, np.asarray(there[0].ids)[:best])


def test_the_child_follows_what_the_writer_commits(seeded_library, process):
    lib = seeded_library
    assert process.search(SearchAsk("zygomorphic"))[0].total == 0
    pid = lib.papers.ids()[0]
    lib.papers.set_title(pid, "Zygomorphic flowers estimate depth")
    lib.index.sync()
    results, terms = process.search(SearchAsk("zygomorphic"))
    assert list(results.ids) == [pid] and terms
    tag = lib.tags.ensure("zygo")
    lib.tags.add([pid], "zygo")           # masks follow the database too
    assert process.search(SearchAsk("depth", {"tag_id": tag.id}))[0].total == 1


def test_a_child_that_dies_is_told_not_waited_for(seeded_library, process):
    assert process.search(SearchAsk("depth"))[0].total > 0
    os.kill(process.pid, signal.SIGKILL)
    with pytest.raises(SearchProcessGone):
        process.search(SearchAsk("depth"))
    with pytest.raises(SearchProcessGone):       # and stays gone
        process.search(SearchAsk("model"))
    assert not process.alive()


def test_a_child_that_cannot_open_the_library_says_why(tmp_path):
    child = SearchProcess(tmp_path / "no-library-here")
    try:
        with pytest.raises(SearchProcessGone, match="could not open the library"):
            child.search(SearchAsk("depth"))
    finally:
        child.close()


def test_the_environment_or_the_size_rule_decides(monkeypatch):
    from paperdesk.core.search import search_process as module

    monkeypatch.delenv(SEARCH_PROCESS_ENV, raising=False)
    assert SEARCH_PROCESS_MIN_PAPERS is None           # off by default (not measured to pay)
    assert not search_process_wanted(10_000_000)
    monkeypatch.setattr(module, "SEARCH_PROCESS_MIN_PAPERS", 100_000)
    assert not search_process_wanted(99_999) and search_process_wanted(100_000)
    monkeypatch.setenv(SEARCH_PROCESS_ENV, "0")
    assert not search_process_wanted(1_000_000)
    monkeypatch.setenv(SEARCH_PROCESS_ENV, "1")
    assert search_process_wanted(1)
    assert RANKED_FIRST > 0
