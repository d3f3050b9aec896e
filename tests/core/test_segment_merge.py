"""Merging segments (``segment_writer.merge_segments``, ``index.merge_run``): a merged
index answers every query shape exactly as the unmerged one (same papers, same order,
same scores to the bit), a failed merge leaves the index as it was, deletions made while
a merge runs are kept, and ``lib.index.sync`` merges after a bulk import."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from whoosh import query as wquery

from test_fastsearch import EXTRA, QUERIES, _synthetic_docs, check_same

from paperdesk.core.search import index as search_mod
from paperdesk.core.search import segment_writer
from paperdesk.core.search.index import IndexDocument, SearchIndex

#: Every query of test_fastsearch, plus the shapes of the bench and a few scopes.
SHAPES = QUERIES + ['"neural networks"~2', "netwrk~ depth", "dep* OR transf*",
                    "model -depth"]


@pytest.fixture
def small_levels(monkeypatch):
    """Segments of 100 documents or more are not small, and 4 of a level merge."""
    monkeypatch.setattr(search_mod, "SMALL_SEGMENT_DOCS", 100)
    monkeypatch.setattr(search_mod, "MERGE_FACTOR", 4)


def _build(path, batches: int = 9, size: int = 300) -> SearchIndex:
    """An index of ``batches`` segments of ``size`` papers, then edits and deletions
    (deleted documents in several segments, a segment of the edited papers)."""
    index = SearchIndex(path)
    for b in range(batches):
        docs = _synthetic_docs(size, start=1 + b * size, seed=b)
        if b == 2:
            docs += [IndexDocument(9000 + i, f"Extra {i}", t, (4,))
                     for i, t in enumerate(EXTRA)]
        index.write(add=docs)
    first = _synthetic_docs(size, start=1, seed=0)
    index.write(update=[IndexDocument(d.id, "Edited title about depth estimation",
                                      d.abstract, d.source_ids, d.tags + ("vision",))
                        for d in first[:150]])          # half of segment 0: kept (>= 100)
    index.write(delete=list(range(310, 330)) + list(range(1210, 1215)))
    return index


def _multiterm(plan) -> bool:
    """Whether a query has a prefix, wildcard or fuzzy word: Whoosh scores those per
    segment (``MultiTerm.matcher``: BM25F when the segment's expansion has one or two
    words or the segment over 5,000 documents, else 1.0 per match), so a merge keeps
    their matches but not always their scores."""
    stack = [plan.query]
    while stack:
        q = stack.pop()
        if isinstance(q, (wquery.Prefix, wquery.Wildcard, wquery.FuzzyTerm)):
            return True
        stack += q.children()
    return False


def _answers(index: SearchIndex, matches_only: bool = False) -> dict:
    """Every shape's answers: full and top-50 hits with their scores (bit for bit) and
    totals; for the shapes of :func:`_multiterm`, the matches and totals only."""
    out = {}
    for text in SHAPES:
        plan = index.plan(text)
        if plan.query is None:
            continue
        for kwargs in ({}, {"source_id": 2}, {"allowed": set(range(1, 3000, 7))}):
            hits, total, exact = index.search(plan, limit=None, **kwargs)
            _top, total50, _ = index.search(plan, limit=50, **kwargs)
            if matches_only and _multiterm(plan):
                out[text, str(kwargs)[:20]] = (sorted(p for p, _s in hits), total, total50)
            else:
                out[text, str(kwargs)[:20]] = (hits, total, exact, _top, total50)
    return out


def _segment_ids(index: SearchIndex) -> list[str]:
    return [s.segment_id() for s in index._ix._read_toc().segments]


def test_merged_index_answers_every_shape_exactly(tmp_path, small_levels):
    index = _build(tmp_path / "a" / "index")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    plain = SearchIndex(tmp_path / "b" / "index")
    before = _segment_ids(index)
    assert len(before) == 10 and search_mod.merge_runs(index._ix._read_toc().segments)
    replaced = index.merge()
    after = _segment_ids(index)
    # 9 segments of 300 (one mostly deleted) and the edits' 150: two runs of 4 merged
    assert replaced == 8 and len(after) == 4, after
    assert after[2:] == before[8:]                  # the rest stays where it was
    sizes = [s.doc_count_all() for s in index._ix._read_toc().segments]
    assert sizes[:2] == [1204, 1200] and sum(sizes) == sum(
        s.doc_count_all() for s in plain._ix._read_toc().segments)
    merged, unmerged = _answers(index, True), _answers(plain, True)
    assert merged.keys() == unmerged.keys()
    for key in merged:
        assert merged[key] == unmerged[key], key     # same ids, order, score bits
    for text in QUERIES:                             # and Whoosh's own search agrees
        check_same(index, text)
    assert index.full_problems() == [] and index.quick_problems() == []
    assert not list((tmp_path / "a" / "index").glob(".merging-*"))
    index.close(), plain.close()


def test_merged_postings_equal_the_sources(tmp_path, small_levels):
    """Term by term, the merged segment holds the sources' postings one after another."""
    index = _build(tmp_path / "index", batches=4)
    reader = index._searcher.reader()
    terms = {}
    for (field, tbytes) in list(reader.all_terms()):
        if field in ("exact", "abstract", "tag", "id", "author"):
            terms[field, tbytes] = ([p for p in reader.postings(field, tbytes).all_ids()],
                                    reader.doc_frequency(field, tbytes),
                                    reader.frequency(field, tbytes))
    lengths = {f: reader.field_length(f) for f in ("title", "abstract", "exact")}
    assert index.merge() == 4
    reader = index._searcher.reader()
    assert len(index._ix._read_toc().segments) == 2
    for (field, tbytes), (ids, df, freq) in terms.items():
        m = reader.postings(field, tbytes)
        assert list(m.all_ids()) == ids and reader.doc_frequency(field, tbytes) == df
        assert reader.frequency(field, tbytes) == pytest.approx(freq)
        if field in ("exact", "author"):
            m = reader.postings(field, tbytes)
            m.all_items()
    assert {f: reader.field_length(f) for f in lengths} == lengths
    index.close()


def test_a_failed_merge_leaves_the_index_as_it_was(tmp_path, small_levels, monkeypatch):
    index = _build(tmp_path / "index")
    before = _segment_ids(index)
    answers = _answers(index)
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(segment_writer, "_merge_field", broken)
    with pytest.raises(OSError):
        index.merge()
    assert calls and _segment_ids(index) == before
    assert not list((tmp_path / "index").glob(".merging-*"))
    assert _answers(index) == answers and index.full_problems() == []
    index.close()


def test_a_crash_before_the_commit_keeps_the_old_segments(tmp_path, small_levels,
                                                         monkeypatch):
    """The process dies after the merged file is in the index folder but before the
    table of contents names it: a new open sees the old segments, and the next merge
    removes the left-overs."""
    index = _build(tmp_path / "index")
    before = _segment_ids(index)
    answers = _answers(index)

    class Crash(BaseException):
        pass

    real = os.replace

    def replace_then_die(src, dst):
        real(src, dst)
        raise Crash

    monkeypatch.setattr(search_mod.os, "replace", replace_then_die)
    with pytest.raises(Crash):
        index.merge()
    monkeypatch.setattr(search_mod.os, "replace", real)
    index.close()
    (tmp_path / "index" / ".merging-dead").mkdir()
    (tmp_path / "index" / ".merging-dead" / "owner").write_text("999999999\n")
    again = SearchIndex(tmp_path / "index")
    assert _segment_ids(again) == before and _answers(again) == answers
    assert again.quick_problems() == [] and again.full_problems() == []
    assert again.merge() == 8
    assert not list((tmp_path / "index").glob(".merging-*"))
    again.close()


def test_deletions_made_during_a_merge_are_kept(tmp_path, small_levels, monkeypatch):
    index = _build(tmp_path / "a" / "index")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    plain = SearchIndex(tmp_path / "b" / "index")
    real = segment_writer.merge_segments
    gone = [5, 6, 700, 1000]

    def meanwhile(*args, **kwargs):
        out = real(*args, **kwargs)
        if gone:                        # the first run: an edit commits meanwhile
            index.write(delete=list(gone))
            gone.clear()
        return out

    monkeypatch.setattr(segment_writer, "merge_segments", meanwhile)
    index.merge()
    plain.write(delete=[5, 6, 700, 1000])
    assert len(_segment_ids(index)) == 4
    assert _answers(index, True) == _answers(plain, True)
    for pid in (5, 6, 700, 1000):
        assert pid not in index.indexed_ids()
    index.close(), plain.close()


def test_merge_runs_are_adjacent_segments_of_one_level(monkeypatch):
    monkeypatch.setattr(search_mod, "MERGE_FACTOR", 3)

    class Seg:
        def __init__(self, n):
            self.n = n

        def doc_count_all(self):
            return self.n

    segs = [Seg(n) for n in (4000, 3900, 50, 4000, 4000, 3000, 9000, 2500, 2000, 30)]
    runs = search_mod.merge_runs(segs)
    # levels (base 3): 4000 -> 7, 3000 -> 7, 9000 -> 8, 2500/2000 -> 7; 50/30 are small
    assert [[s.n for s in r] for r in runs] == [[4000, 4000, 3000]]
    monkeypatch.setattr(search_mod, "MERGE_MAX_DOCS", 10_999)   # 11,000 together
    assert search_mod.merge_runs(segs) == []
    monkeypatch.setattr(search_mod, "MERGE_MAX_DOCS", 11_000)
    assert len(search_mod.merge_runs(segs)) == 1


def test_a_cancelled_merge_changes_nothing(tmp_path, small_levels, monkeypatch):
    monkeypatch.setattr(segment_writer, "MERGE_CHUNK_POSTINGS", 1000)
    index = _build(tmp_path / "index")
    before = _segment_ids(index)
    polls = []

    def cancel():
        polls.append(1)
        return len(polls) > 3        # stops inside the first run's postings

    assert index.merge(cancel=cancel) == 0
    assert _segment_ids(index) == before and len(polls) == 4
    assert not list((tmp_path / "index").glob(".merging-*"))
    assert {n[:-4] for n in os.listdir(tmp_path / "index") if n.endswith(".seg")} == set(before)
    index.close()


def test_sync_merges_after_a_bulk_import(tmp_path, seed_files, monkeypatch):
    """An import indexed in many batches is merged by the same sync; it answers as
    the library indexed without merges (every shape but prefix/fuzzy words bit for bit,
    those with the same matches), and ``check`` finds nothing wrong."""
    from paperdesk.core.library import Library
    from paperdesk.core.search import sync as sync_mod

    monkeypatch.setattr(sync_mod, "INDEX_BATCH", 20)
    monkeypatch.setattr(search_mod, "SMALL_SEGMENT_DOCS", 10)
    monkeypatch.setattr(search_mod, "MAX_SMALL_SEGMENTS", 10_000)
    monkeypatch.setattr(search_mod, "MERGE_FACTOR", 3)
    answers = {}
    for name, factor in (("plain", 10_000), ("merged", 3)):
        monkeypatch.setattr(search_mod, "MERGE_FACTOR", factor)
        with Library.open(tmp_path / name) as lib:
            lib.imports.run(seed_files)
            lib.index.sync()
            segments = lib.index.whoosh._ix._read_toc().segments
            answers[name] = (_answers(lib.index.whoosh, True), len(segments))
            assert lib.index.whoosh.full_problems() == []
    assert answers["plain"][1] == 12                  # 225 papers in batches of 20
    assert answers["merged"][1] == 4, answers["merged"][1]   # 3 x 60 (3 x 20), 20, 5
    assert answers["merged"][0] == answers["plain"][0]
