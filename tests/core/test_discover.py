"""The discover engine on the sample library (issue 15): related papers, key terms, tag
suggestions and "worth reading first", judged against the hand-assigned topic labels
(tests/core/data/seed_topics.json), and the term table kept current through reopening,
imports, deletions, title edits, damage, read-only libraries and the child-process
build."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paperdesk.core.discover import build as build_mod
from paperdesk.core.discover import engine as engine_mod
from paperdesk.core.discover.build import BuildCancelled
from paperdesk.core.discover.evaluation import (TOPICS, evaluate, first_hits,
                                                 load_labels, table, wss)
from paperdesk.core.discover.models import NotInTable, TermsNotReady
from paperdesk.core.discover.term_table import TERMS_DIR, TermTable
from paperdesk.core.library import Library
from paperdesk.core.models import UnknownPaper
from paperdesk.core.scope import Scope

LABELS = Path(__file__).parent / "data" / "seed_topics.json"
DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular depth estimation"


@pytest.fixture(scope="module")
def labels() -> dict:
    return json.loads(LABELS.read_text("utf-8"))


def _topics(lib: Library, labels: dict) -> dict[int, str]:
    topics = load_labels(lib, labels)
    assert len(topics) == lib.papers.count() == 225
    return topics


def _depth_paper(lib: Library) -> int:
    found = [pid for pid, title in lib.db.execute("SELECT id, title FROM papers")
             if title.startswith(DEPTH_TITLE)]
    assert len(found) == 1
    return found[0]


def _terms_of(lib: Library, pid: int) -> set[str]:
    return {t.term for t in lib.discover.key_terms(pid, limit=1000)}


def _no_full_build(monkeypatch) -> None:
    """Make any full build fail the test: the table must come from terms/ or an update."""
    def refuse(*args, **kwargs):
        raise AssertionError("a full build ran")
    monkeypatch.setattr(engine_mod, "build_table", refuse)
    monkeypatch.setattr(engine_mod, "build_in_child", refuse)


def _write_daily(path: Path, abstracts: list[str]) -> Path:
    path.write_text("Daily Papers\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


NEW_DEPTH = ("Self-supervised monocular depth estimation from video remains brittle at "
             "night. We train a metric depth network with a disparity consistency loss "
             "across stereo pairs and show zero-shot transfer of monocular depth to "
             "unseen outdoor scenes, with lower absolute relative error on KITTI.")


# -- related papers and key terms --------------------------------------------------------
def test_labels_map_every_sample_paper(seeded_library, labels):
    topics = _topics(seeded_library, labels)
    assert sum(1 for t in topics.values() if t == "depth-estimation") == 28
    titles = dict(seeded_library.db.execute("SELECT id, title FROM papers").fetchall())
    abstracts = seeded_library.papers.abstracts(list(titles))
    starts = {p["title_start"][:30] for p in labels["papers"]}
    assert all(titles[pid][:30] in starts or (abstracts[pid] or "")[:30] in starts
               for pid in topics)


def test_related_papers_of_the_depth_paper_are_about_depth(seeded_library, labels):
    lib = seeded_library
    topics = _topics(lib, labels)
    depth = _depth_paper(lib)
    with pytest.raises(TermsNotReady):
        lib.discover.related(depth)
    lib.discover.ensure()
    related = lib.discover.related(depth, limit=10)
    assert len(related) == 10 and depth not in [r.id for r in related]
    top5 = [topics[r.id] for r in related[:5]]
    assert top5.count("depth-estimation") >= 4, top5
    # what docs/discover.md says: all ten are about depth estimation
    assert [topics[r.id] for r in related].count("depth-estimation") == 10
    scores = [r.score for r in related]
    assert scores == sorted(scores, reverse=True) and 0 < scores[-1] <= scores[0] <= 1
    mine = _terms_of(lib, depth)
    for r in related:
        assert 3 <= len(r.shared) <= 5
        assert set(r.shared) <= mine & _terms_of(lib, r.id), r
        assert r.title == lib.papers.get(r.id).title
    assert len(lib.discover.related(depth, limit=3)) == 3


def test_key_terms_are_the_papers_heaviest_words(seeded_library):
    lib = seeded_library
    lib.discover.ensure()
    depth = _depth_paper(lib)
    terms = lib.discover.key_terms(depth)
    assert len(terms) == 8
    words = [t.term for t in terms]
    assert {"monocular", "metric", "zero-shot"} <= set(words)
    weights = [t.weight for t in terms]
    assert weights == sorted(weights, reverse=True) and 0 < weights[-1] <= weights[0] <= 1
    assert not {"we", "present", "model", "the", "paper"} & set(words)
    assert all(not w[0].isdigit() for w in _terms_of(lib, depth))
    assert len(lib.discover.key_terms(depth, limit=3)) == 3


def test_unknown_paper_and_paper_without_terms(seeded_library, tmp_path):
    lib = seeded_library
    lib.discover.ensure()
    with pytest.raises(UnknownPaper, match="^no paper with id 999999$"):
        lib.discover.related(999999)
    lib.imports.run([_write_daily(tmp_path / "numbers.txt",
                                   ["2024 2025 1999 12 34 56 78 90."])])
    pid = max(lib.papers.ids())
    for ask in (lib.discover.related, lib.discover.key_terms, lib.discover.suggest_tags):
        with pytest.raises(NotInTable, match=f"paper {pid} has no words"):
            ask(pid)


HAEMOPHILIA = ("Emicizumab prophylaxis in haemophilia A with inhibitors: a bispecific "
               "antibody mimics factor VIII cofactor function and lowers annualized "
               "bleeding rates in adolescents and adults. {own} Disclosures Shima: Chugai "
               "Pharmaceutical: Consultancy, Honoraria, Membership on an entity's Board of "
               "Directors or advisory committees. Kasai: Chugai Pharmaceutical: Employment, "
               "Honoraria. Nogami: Chugai: Honoraria, Membership on an entity's Board. "
               "Trial registration: NCT02622321.")


def test_shared_terms_leave_out_disclosures_and_trial_ids(seeded_library, tmp_path):
    # Two papers with one sponsor share its name and the disclosure form's words more
    # often than their topic's: those are not named as the reason (they still count).
    lib = seeded_library
    lib.imports.run([_write_daily(tmp_path / "haemophilia.txt", [
        HAEMOPHILIA.format(own="Thrombin generation assays were chromogenic."),
        HAEMOPHILIA.format(own="Joint health scores improved over two years.")])])
    lib.discover.ensure()
    first, second = sorted(lib.papers.ids())[-2:]
    found = {r.id: r for r in lib.discover.related(first, limit=5)}
    assert second in found
    shared = set(found[second].shared)
    assert len(shared) >= 3, shared
    assert shared <= {"emicizumab", "prophylaxis", "haemophilia", "inhibitors",
                      "bispecific", "antibody", "mimics", "factor", "viii", "cofactor",
                      "annualized", "bleeding", "rates", "adolescents", "adults",
                      "lowers", "function"}, shared
    # the words left out are the two papers' heaviest shared terms
    from paperdesk.core.discover.related import shared_columns
    table = lib.discover._current()
    rows = table.rows_of([first, second])
    heaviest = {table.term(c) for c in shared_columns(table, int(rows[0]), [rows[1]], 5)}
    assert heaviest & {"chugai", "honoraria", "membership", "nct02622321"}, heaviest


def test_boilerplate_words_are_those_only_a_closing_section_uses():
    from paperdesk.core.discover.boilerplate import boilerplate_words, is_registry_id
    text = ("We studied research funding of trials. Funding: National Research "
            "Council grant 12. Conflicts of interest: none declared.")
    words = boilerplate_words(text)
    assert {"national", "council", "grant", "conflicts", "declared"} <= words
    assert "research" not in words and "funding" not in words    # the study's own words
    assert boilerplate_words("Lower funding of trials: funding matters.") == frozenset()
    assert boilerplate_words("We ask. Funding agencies rarely pay.") == frozenset()
    assert "nih" in boilerplate_words("We ask. Funding. NIH.")
    assert boilerplate_words(None) == frozenset()
    assert is_registry_id("nct02622321") and is_registry_id("isrctn14965707")
    assert not is_registry_id("nct") and not is_registry_id("yolov8")


# -- tag suggestions -----------------------------------------------------------------------
def test_tag_suggestions_follow_a_scripted_tagging(seeded_library, labels):
    # Every paper of the two topics tagged but one each (suggestions need evidence: a
    # neighbourhood mostly tagged, see test_a_tag_with_too_few_examples_is_not_suggested).
    lib = seeded_library
    topics = _topics(lib, labels)
    depth = _depth_paper(lib)
    depth_ids = [p for p in lib.papers.ids() if topics[p] == "depth-estimation"
                 and p != depth]
    agents = [p for p in lib.papers.ids() if topics[p] == "llm-agents"]
    other_agent, agent_ids = agents[0], agents[1:]
    lib.tags.add(depth_ids, "depth")
    lib.tags.add(agent_ids, "agents")
    lib.discover.ensure()
    found = lib.discover.suggest_tags(depth)
    assert found and found[0].name == "depth" and not found[0].held_back
    first = found[0]
    assert first.like and set(first.like) <= set(depth_ids)
    assert first.reason.startswith("like #") and f"#{first.like[0]}" in first.reason
    assert "tagged depth" in first.reason and "shares: " in first.reason
    assert all(s.name != "agents" or s.score < first.score for s in found)
    # an agents paper not tagged yet is offered "agents" first
    assert lib.discover.suggest_tags(other_agent)[0].name == "agents"
    # a tag the paper has is never suggested
    lib.tags.add([depth], "depth")
    assert "depth" not in [s.name for s in lib.discover.suggest_tags(depth)]


def test_no_tags_no_suggestions(seeded_library):
    lib = seeded_library
    lib.discover.ensure()
    assert lib.discover.suggest_tags(_depth_paper(lib)) == []


# -- keeping the table current -----------------------------------------------------------
def test_the_table_survives_reopening_without_a_build(seeded_library, monkeypatch):
    lib = seeded_library
    lib.discover.ensure()
    depth = _depth_paper(lib)
    before = lib.discover.related(depth)
    path = lib.path
    assert (path / TERMS_DIR / "meta.json").is_file()
    lib.close()
    _no_full_build(monkeypatch)
    with Library.open(path) as again:
        assert again.discover.ready()
        assert again.discover.related(depth) == before


def test_new_papers_get_related_results_without_a_full_build(seeded_library, tmp_path,
                                                             labels, monkeypatch):
    lib = seeded_library
    topics = _topics(lib, labels)
    lib.discover.ensure()
    generation = TermTable.load(lib.path / TERMS_DIR).generation
    _no_full_build(monkeypatch)
    lib.imports.run([_write_daily(tmp_path / "new.txt", [NEW_DEPTH])])
    new = max(lib.papers.ids())
    related = lib.discover.related(new, limit=5)
    assert [topics[r.id] for r in related].count("depth-estimation") >= 4
    assert new in [r.id for r in lib.discover.related(_depth_paper(lib), limit=50)]
    assert lib.discover.status().missing == 0
    table = TermTable.load(lib.path / TERMS_DIR)     # the update was written as a part
    assert table.generation == generation and len(table.parts) == 2
    assert new in table.valid_ids()


def test_a_deleted_paper_never_appears(seeded_library, monkeypatch):
    lib = seeded_library
    lib.discover.ensure()
    depth = _depth_paper(lib)
    gone = lib.discover.related(depth)[0].id
    _no_full_build(monkeypatch)
    lib.removal.delete_papers([gone])
    assert gone not in [r.id for r in lib.discover.related(depth, limit=300)]
    with pytest.raises(UnknownPaper):
        lib.discover.related(gone)
    assert gone not in lib.discover.interest().ids
    lib.close()
    with Library.open(lib.path) as again:
        assert gone not in [r.id for r in again.discover.related(depth, limit=300)]


def test_a_title_edit_changes_the_papers_terms(seeded_library, labels, monkeypatch):
    lib = seeded_library
    topics = _topics(lib, labels)
    lib.discover.ensure()
    agent = [p for p in lib.papers.ids() if topics[p] == "llm-agents"][0]
    assert "monocular" not in _terms_of(lib, agent)
    _no_full_build(monkeypatch)
    lib.papers.set_title(agent, "Monocular metric depth estimation and disparity for stereo")
    assert "monocular" in _terms_of(lib, agent)
    assert agent in [r.id for r in lib.discover.related(_depth_paper(lib), limit=60)]


@pytest.mark.parametrize("damage", ["meta", "part", "vocab", "missing"])
def test_damaged_or_missing_terms_are_rebuilt(seeded_library, damage):
    lib = seeded_library
    lib.discover.ensure()
    depth = _depth_paper(lib)
    before = lib.discover.related(depth)
    folder = lib.path / TERMS_DIR
    path = lib.path
    lib.close()
    if damage == "meta":
        (folder / "meta.json").write_text("{not json", "utf-8")
    elif damage == "part":
        next(folder.glob("g*-p0-data.npy")).write_bytes(b"\x93NUMPY garbage")
    elif damage == "vocab":
        vocab = next(folder.glob("g*-vocab.bin"))
        vocab.write_bytes(vocab.read_bytes()[:-10])
    else:
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()
    with Library.open(path) as again:
        assert not again.discover.ready()
        said = "term table must be built" if damage == "missing" else \
            r"term table is damaged \(.*terms/.*\); it is built again"
        with pytest.raises(TermsNotReady, match=said):
            again.discover.related(depth)
        again.discover.ensure()
        assert again.discover.related(depth) == before
        TermTable.load(path / TERMS_DIR)               # written whole again


def test_read_only_library_keeps_the_table_in_memory(seeded_library):
    lib = seeded_library
    depth = _depth_paper(lib)
    path = lib.path
    lib.close()
    with Library.open(path, read_only=True) as ro:
        with pytest.raises(TermsNotReady):
            ro.discover.related(depth)
        ro.discover.ensure()
        assert len(ro.discover.related(depth)) == 10
        assert ro.discover.key_terms(depth)
    assert not (path / TERMS_DIR).exists()


# -- worth reading first ---------------------------------------------------------------------
def test_interest_falls_back_to_date_order_below_five_positives(seeded_library, labels):
    lib = seeded_library
    topics = _topics(lib, labels)
    lib.discover.ensure()
    depth_ids = [p for p in lib.papers.ids() if topics[p] == "depth-estimation"]
    lib.papers.set_starred(depth_ids[:4], True)
    order = lib.discover.interest()
    assert not order.ranked and order.positives == 4
    assert "at least 5" in order.message and "(now 4)" in order.message
    assert order.ids == lib.papers.ids(filter="unread")
    assert order.reasons == {} and order.scores == {}
    # the sort falls back the same way (date added)
    assert lib.papers.scope_ids(Scope(), sort="interest") == lib.papers.ids()
    lib.papers.set_starred(depth_ids[4:5], True)
    order = lib.discover.interest()
    assert order.ranked and order.positives == 5
    assert "learned from 5 papers" in order.message


def test_interest_order_puts_the_starred_topic_first_with_reasons(seeded_library, labels):
    lib = seeded_library
    topics = _topics(lib, labels)
    lib.discover.ensure()
    depth_ids = [p for p in lib.papers.ids() if topics[p] == "depth-estimation"]
    lib.papers.set_starred(depth_ids[:6], True)
    unread = [p for p in lib.papers.ids() if p not in depth_ids[:6]]
    order = lib.discover.interest(unread, with_reasons=10)
    assert order.ranked and sorted(order.ids) == sorted(unread)
    assert [topics[p] for p in order.ids[:10]].count("depth-estimation") >= 8
    assert set(order.reasons) == set(order.ids[:10])
    for pid in order.ids[:10]:
        assert order.reasons[pid] and set(order.reasons[pid]) <= _terms_of(lib, pid)
    # a search sorted by interest: the same order over its matches, with reasons
    results = lib.search.find("depth", limit=5, sort="interest")
    assert results.interest is not None and results.interest.ranked
    matched = set(results.ids.tolist())
    assert results.ids.tolist() == [p for p in lib.discover.interest(sorted(matched)).ids]
    assert all(results.interest.reasons.get(h.id) for h in results.hits)
    assert lib.search.find("depth", limit=5).interest is None


def test_the_scripted_user_beats_date_order(seeded_library, labels):
    lib = seeded_library
    topics = _topics(lib, labels)
    results = {t: evaluate(lib, topics, t) for t in TOPICS}
    for topic, r in results.items():
        assert r.ranked and r.starred == 5, r
        assert r.unread + r.starred + r.skipped == 225
    better = [t for t, r in results.items()
              if r.interest_hits > r.date_hits and r.interest_wss > r.date_wss]
    assert "depth-estimation" in better and len(better) >= 2, results
    depth = results["depth-estimation"]
    assert depth.interest_hits >= 10 and depth.interest_wss >= 0.4
    text = table(results.values())
    assert text.count("\n") == 2 + len(TOPICS) and "| depth-estimation | 5 / " in text
    guide = (Path(__file__).resolve().parents[2] / "docs" / "discover.md").read_text("utf-8")
    assert text in guide          # docs/discover.md's table is the one the evaluation prints


def test_first_hits_and_wss_by_hand():
    relevant = {1, 2, 3, 4}
    assert first_hits([1, 9, 2, 8], relevant, depth=3) == 2
    # 20 papers, 4 relevant: 95% recall needs all 4 (ceil(3.8))
    best = [1, 2, 3, 4] + list(range(10, 26))
    assert wss(best, relevant) == pytest.approx((20 - 4) / 20 - 0.05)
    worst = list(range(10, 26)) + [1, 2, 3, 4]
    assert wss(worst, relevant) == pytest.approx(-0.05)
    assert wss(best, set()) == 0.0 and wss([], relevant) == 0.0
    assert wss(best, relevant, recall=0.5) == pytest.approx((20 - 2) / 20 - 0.5)


# -- building in a child process, cancel ------------------------------------------------------
def test_child_process_build_gives_the_same_table(seeded_library, monkeypatch):
    lib = seeded_library
    depth = _depth_paper(lib)
    monkeypatch.setattr(engine_mod, "CHILD_FROM", 10)
    used = []
    real = engine_mod.build_in_child
    monkeypatch.setattr(engine_mod, "build_in_child",
                        lambda *a, **k: used.append(1) or real(*a, **k))
    seen = []
    lib.discover.ensure(progress=lambda done, total: seen.append((done, total)))
    assert used == [1] and seen and seen[-1] == (225, 225)
    from_child = lib.discover.related(depth)
    monkeypatch.setattr(engine_mod, "CHILD_FROM", 10**9)
    path = lib.path
    lib.close()
    for f in (path / TERMS_DIR).iterdir():
        f.unlink()
    with Library.open(path) as again:
        again.discover.ensure()
        assert again.discover.related(depth) == from_child


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("child", [True, False])
def test_cancel_leaves_the_old_table(tmp_path, seed_files, monkeypatch, child):
    monkeypatch.setattr(engine_mod, "CHILD_FROM", 10 if child else 10**9)
    monkeypatch.setattr(build_mod, "PROGRESS_EVERY", 10)   # the in-process cancel check
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files[:1])
        lib.discover.ensure()
        folder = lib.path / TERMS_DIR
        old = TermTable.load(folder)
        first = lib.papers.ids()[0]
        before = lib.discover.related(first)
        lib.imports.run(seed_files[1:])        # too many new papers for an update
        with pytest.raises(TermsNotReady):
            lib.discover.related(first)
        with pytest.raises(BuildCancelled):
            lib.discover.ensure(cancel=lambda: True)
        status = lib.discover.status()
        assert not status.building and status.problem is None
        kept = TermTable.load(folder)
        assert kept.generation == old.generation
        assert kept.row_ids.tolist() == old.row_ids.tolist()
        lib.discover.ensure()                   # and a later build goes through
        assert lib.discover.related(first) != [] and lib.discover.status().missing == 0
        assert TermTable.load(folder).generation > old.generation
        assert len(TermTable.load(folder).valid_ids()) == lib.papers.count()
        del before


def test_interest_puts_papers_already_kept_after_the_others(seeded_library, labels):
    """Tagging or starring unread papers makes them examples, not suggestions: the order
    of the unread papers offers the ones not judged yet first (a tester saw their own
    five tagged papers at the top)."""
    lib = seeded_library
    topics = load_labels(lib, labels)
    depth = [p for p in lib.papers.ids() if topics[p] == "depth-estimation"]
    lib.discover.ensure()
    lib.tags.add(depth[:5], "depth")
    lib.papers.set_starred(depth[5:7], True)
    order = lib.discover.interest()
    assert order.ranked
    kept = set(depth[:7])
    assert set(order.ids[-7:]) == kept
    assert not kept & set(order.ids[:-7])
    assert [topics[p] for p in order.ids[:10]].count("depth-estimation") >= 7


def test_current_stamps_reads_the_papers_a_block_at_a_time(seeded_library, monkeypatch):
    """Every paper's stamp, in id order, whatever the block size (the rows are read a
    block at a time: all at once held ~300 MB in the window at a million papers)."""
    from paperdesk.core.discover import term_table

    lib = seeded_library
    rows = lib.db.execute("SELECT id, content_hash, title FROM papers ORDER BY id").fetchall()
    expected = [term_table.text_stamp(h, t) for _i, h, t in rows]
    for block in (7, 225, 10_000):
        monkeypatch.setattr(term_table, "STAMP_BLOCK", block)
        ids, stamps = term_table.current_stamps(lib.db)
        assert ids.tolist() == [r[0] for r in rows] and stamps.tolist() == expected
        assert ids.dtype == np.int64 and stamps.dtype == np.uint32


def test_far_behind_table_is_said_without_reading_every_papers_stamp(seeded_library,
                                                                    tmp_path, monkeypatch):
    """During a large import each related-papers answer read every paper's text stamp
    (seconds at a million, holding the discover lock the import's writer waits on) only
    to find the table too far behind: the papers added after the table's newest one are
    counted first."""
    lib = seeded_library
    lib.discover.ensure()
    lib.imports.run([_write_daily(tmp_path / "many.txt", [
        f"We measure lattice walk number {i} on benchmark graph {i % 9} and report that "
        f"it mixes in {i % 13 + 2} steps, faster than the walks before it." for i in range(120)])])
    reads = []
    real = engine_mod.current_stamps
    monkeypatch.setattr(engine_mod, "current_stamps",
                        lambda db: reads.append(1) or real(db))
    with pytest.raises(TermsNotReady, match="120 papers are not in the term table"):
        lib.discover.related(_depth_paper(lib), limit=5)
    assert reads == [] and lib.discover.status().missing == 120


def test_dropping_counts_after_a_batch_never_waits_for_a_related_answer(seeded_library):
    """The import's writer calls ``mark_texts_changed`` after every batch; a related-
    papers answer on the reader thread holds the discover lock while it works: the writer
    must not wait for it (it did, for seconds a batch at a million papers)."""
    import threading

    lib = seeded_library
    held, release = threading.Event(), threading.Event()

    def answer():                       # the reader thread, mid-answer
        with lib.discover._lock:
            held.set()
            release.wait(30)

    reader = threading.Thread(target=answer)
    reader.start()
    held.wait(10)
    writer = threading.Thread(target=lib.discover.mark_texts_changed)
    writer.start()
    writer.join(10)
    blocked = writer.is_alive()
    release.set()
    reader.join()
    writer.join()
    assert not blocked
