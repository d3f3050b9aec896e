"""Tag suggestions at a million abstracts (issue 28): a suggestion no longer counts the
papers of every tag it names (a third of the library each in the benchmark's library:
the part of a suggestion that grew with the library). The counts are kept per tag and
dropped by every change to the tag, its undo and redo, and by added or deleted papers;
the suggestions are the same as when counting each time."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.discover.evaluation import load_labels
from paperdesk.core.discover.tag_suggestions import MIN_EXAMPLES

LABELS = Path(__file__).parent / "data" / "seed_topics.json"


def _sql_count(lib, tag_id: int) -> int:
    return lib.db.execute("SELECT count(*) FROM paper_tags WHERE tag_id = ?",
                          [tag_id]).fetchone()[0]


def _seen(lib, pid: int) -> list[tuple]:
    return [(s.tag_id, s.name, s.score, s.like, s.shared, s.examples, s.held_back, s.reason)
            for s in lib.discover.suggest_tags(pid)]


@pytest.fixture
def depth(seeded_library):
    """The sample library with 27 of its 28 depth-estimation papers tagged "depth";
    returns ``(lib, probe, tagged)``: the untagged one, whose neighbours suggest it."""
    lib = seeded_library
    topics = load_labels(lib, LABELS)
    papers = [p for p in lib.papers.ids() if topics[p] == "depth-estimation"]
    probe, tagged = papers[0], papers[1:]
    lib.tags.add(tagged, "depth")
    lib.discover.ensure()
    return lib, probe, tagged


def _depth(lib, probe) -> tuple[int, bool] | None:
    found = [(s.examples, s.held_back) for s in lib.discover.suggest_tags(probe)
             if s.name == "depth"]
    return found[0] if found else None


def test_a_suggestion_counts_a_tags_papers_once_not_at_every_call(depth):
    lib, probe, tagged = depth
    statements: list[str] = []
    lib.db.conn.set_trace_callback(statements.append)
    try:
        assert _depth(lib, probe) == (27, False)
        counted = [s for s in statements if "count(*) FROM paper_tags" in s]
        assert len(counted) == 1
        statements.clear()
        for pid in [probe, *lib.papers.ids()[:40]]:
            lib.discover.suggest_tags(pid)
        assert [s for s in statements if "count(*) FROM paper_tags" in s] == []
    finally:
        lib.db.conn.set_trace_callback(None)


def test_the_counts_follow_tagging_untagging_undo_and_redo(depth, tmp_path):
    lib, probe, tagged = depth
    others = [p for p in lib.papers.ids() if p not in tagged and p != probe]
    assert _depth(lib, probe) == (27, False)
    lib.tags.add(others[-2:], "depth")                     # two more papers
    assert _depth(lib, probe) == (29, False)
    lib.undo()
    assert _depth(lib, probe) == (27, False)
    lib.redo()
    assert _depth(lib, probe) == (29, False)
    lib.undo()
    # untagged down to fewer than MIN_EXAMPLES: held back (its neighbours still vote)
    keep = [pid for pid in lib.discover.suggest_tags(probe)[0].like] + tagged
    keep = list(dict.fromkeys(keep))[:MIN_EXAMPLES - 1]
    lib.tags.remove([p for p in tagged if p not in keep], "depth")
    assert _depth(lib, probe) == (MIN_EXAMPLES - 1, True)
    lib.undo()
    assert _depth(lib, probe) == (27, False)
    lib.redo()
    assert _depth(lib, probe) == (MIN_EXAMPLES - 1, True)
    lib.undo()
    assert _depth(lib, probe) == (27, False)
    # a deleted paper takes its tag with it; undo brings both back
    far = [p for p in tagged if p not in keep][-1]
    lib.removal.delete_papers([far])
    assert _depth(lib, probe) == (26, False)
    lib.undo()
    assert _depth(lib, probe) == (27, False)
    # a deleted tag is not suggested; undo brings it back with its papers
    tag_id = lib.tags.by_name("depth").id
    lib.tags.delete(tag_id)
    assert _depth(lib, probe) is None
    lib.undo()
    assert _depth(lib, probe) == (27, False)
    # merged into another tag: the other tag is suggested with the papers of both
    lib.tags.add(others[:3], "stereo")
    lib.tags.rename(lib.tags.by_name("stereo").id, "Depth")
    found = [(s.name, s.examples) for s in lib.discover.suggest_tags(probe)]
    assert found == [("depth", 30)] or found == [("Depth", 30)]
    lib.undo()
    assert _depth(lib, probe) == (27, False)
    # an import that tags papers (a BibTeX entry's keywords)
    bib = tmp_path / "more.bib"
    bib.write_text("@article{k1, title = {Sourdough starters and their bacteria},\n"
                   "  abstract = {We count the lactic acid bacteria of forty sourdough "
                   "starters kept by bakers.},\n  keywords = {depth}}\n", encoding="utf-8")
    assert lib.imports.run([bib]).added == 1
    assert _depth(lib, probe) == (28, False)


def test_kept_counts_give_the_suggestions_counting_gives(seeded_library):
    # four in five of each topic's papers tagged with it (and the "also" topics not):
    # every paper is asked, twice (the
    # second time with every count kept), and once more after the counts were dropped
    lib = seeded_library
    topics = load_labels(lib, LABELS)
    by_topic: dict[str, list[int]] = {}
    for pid in lib.papers.ids():
        by_topic.setdefault(topics[pid], []).append(pid)
    for topic, papers in by_topic.items():
        lib.tags.add([p for k, p in enumerate(papers) if k % 5], topic)
    lib.discover.ensure()
    ids = lib.papers.ids()
    first = {pid: _seen(lib, pid) for pid in ids}
    assert sum(1 for found in first.values() if any(not s[6] for s in found)) >= 5
    assert sum(1 for found in first.values() if any(s[6] for s in found)) >= 100
    for found in first.values():
        for s in found:
            assert s[5] == _sql_count(lib, s[0])
    assert {pid: _seen(lib, pid) for pid in ids} == first
    lib.discover.mark_texts_changed()
    assert {pid: _seen(lib, pid) for pid in ids} == first
