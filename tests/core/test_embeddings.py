"""Embeddings (issue 27 items 2-4, 6): the static model read from its package, the vectors
stored in ``vectors/`` (checksummed, resumable after a cancel, only what changed embedded
again), hybrid related papers, and tf-idf alone when the model is not installed."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from paperdesk.core.discover import embedded
from paperdesk.core.discover.build import BuildCancelled
from paperdesk.core.discover import hybrid
from paperdesk.core.discover.hybrid import hybrid_scores
from paperdesk.core.discover.meaning import MIN_COSINE
from paperdesk.core.discover.related import nearest_rows
from paperdesk.core.discover.vectorize import analyze, load_stop_words, paper_text
from paperdesk.core.embeddings import vector_build
from paperdesk.core.embeddings.static_model import StaticModel
from paperdesk.core.embeddings.vectors import PaperVectors, VectorsError

pytestmark = pytest.mark.skipif(embedded.model_problem() is not None,
                                reason="the embeddings extra is not installed")

DEPTH_PAPER = "zero-shot metric monocular depth estimation"


def _texts(lib) -> tuple[list[int], list[str]]:
    rows = lib.db.execute("SELECT id, title, abstract FROM papers ORDER BY id").fetchall()
    return [r[0] for r in rows], [paper_text(r[1], r[2]) for r in rows]


def test_similar_abstracts_have_near_vectors(seeded_library):
    ids, texts = _texts(seeded_library)
    vectors = StaticModel().encode(texts)
    assert vectors.shape == (225, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    depth = [i for i, t in enumerate(texts) if DEPTH_PAPER in t.lower()][0]
    near = np.argsort(-(vectors @ vectors[depth]))[1:6]
    assert sum("depth" in texts[i].lower() for i in near) >= 4
    assert not StaticModel().encode([""]).any()          # no token: a zero vector


def test_vectors_are_embedded_in_parts_and_resumed_after_cancel(seeded_library,
                                                                monkeypatch):
    lib = seeded_library
    lib.discover.ensure()
    monkeypatch.setattr(vector_build, "CHUNK", 100)
    seen = []

    def after_first_part() -> bool:
        return bool(seen) and seen[-1][0] >= 100
    with pytest.raises(BuildCancelled):
        lib.discover.embeddings.ensure(lambda d, t: seen.append((d, t)), after_first_part)
    assert seen[-1] == (100, 225)
    assert lib.discover.embeddings.missing() == 125        # the first part was kept
    assert lib.discover.embeddings.ensure() == 125          # only the rest is embedded
    assert lib.discover.embeddings.missing() == 0
    stored = lib.discover.embeddings.current()
    assert len(stored) == 225 and sorted(stored.ids) == sorted(lib.papers.ids())
    # an edited title makes that paper's vector stale: it alone is embedded again
    pid = int(stored.ids[7])
    lib.papers.set_title(pid, "A title about monocular depth estimation")
    assert lib.discover.embeddings.missing() == 1
    assert lib.discover.embeddings.ensure() == 1
    again = lib.discover.embeddings.current()
    ids, texts = _texts(lib)
    expected = StaticModel().encode([texts[ids.index(pid)]])[0]
    assert np.allclose(again.vectors(again.rows_of([pid]))[0], expected, atol=2e-3)


def test_changed_vector_bytes_are_found_and_embedded_again(seeded_library):
    lib = seeded_library
    lib.discover.ensure()
    lib.discover.embeddings.ensure()
    part = lib.discover.embeddings.folder / "p1-vectors.npy"
    data = bytearray(part.read_bytes())
    data[-100:] = bytes(100)                                # same size, other bytes
    part.write_bytes(bytes(data))
    with pytest.raises(VectorsError, match="p1-vectors.npy"):
        PaperVectors.load(lib.discover.embeddings.folder)
    fresh = type(lib.discover.embeddings)(lib, lambda: None)
    assert fresh.current() is None                          # not used: tf-idf answers
    assert fresh.ensure() == 225                            # and all are embedded again
    assert len(fresh.current()) == 225


def test_related_papers_are_the_hybrid_of_embedding_and_tfidf(seeded_library):
    from sklearn.feature_extraction.text import TfidfVectorizer

    load_stop_words()
    lib = seeded_library
    lib.discover.ensure()
    ids, texts = _texts(lib)
    depth = ids[[i for i, t in enumerate(texts) if DEPTH_PAPER in t.lower()][0]]
    tfidf_only = [r.id for r in lib.discover.related(depth)]
    lib.discover.embeddings.ensure()
    related = lib.discover.related(depth)
    # the same order as computed here from every paper's three cosines (the seed papers
    # have no authors and no venues: tests/core/test_title_venue.py has them), then the
    # feedback of the five best (hybrid.py's docstring); the titles' cosine as
    # scikit-learn computes it (title_venue.py)
    vectors = StaticModel().encode(texts)
    table = lib.discover._current()
    titles = TfidfVectorizer(analyzer=analyze, sublinear_tf=True).fit_transform(
        [r[0] or "" for r in lib.db.execute("SELECT title FROM papers ORDER BY id")])
    title_cosines = (titles @ titles.T).toarray()

    def first_scores(pid: int, with_titles: bool) -> np.ndarray:
        near, cosines = nearest_rows(table, int(table.rows_of([pid])[0]), len(ids))
        tfidf = np.zeros(len(ids), np.float32)
        tfidf[[ids.index(int(table.row_ids[r])) for r in near]] = cosines
        at = ids.index(pid)
        tfidf[at] = 1.0                                     # a unit row with itself
        return hybrid_scores(vectors @ vectors[at], tfidf,
                             title=title_cosines[at] if with_titles else None)

    def order(with_titles: bool) -> list[int]:
        first = first_scores(depth, with_titles)
        first[ids.index(depth)] = -np.inf
        best = np.argsort(-first, kind="stable")[:hybrid.FEEDBACK_PAPERS]
        feedback = sum(first[n] / first[best].sum() * first_scores(ids[n], with_titles)
                       for n in best)
        scores = first + hybrid.FEEDBACK_WEIGHT * feedback
        return [ids[i] for i in np.argsort(-scores, kind="stable")[:10]]
    expected = order(with_titles=True)
    assert expected != order(with_titles=False)             # the titles count
    assert [r.id for r in related] == expected
    assert [r.id for r in related] != tfidf_only
    assert [r.score for r in related] == sorted((r.score for r in related), reverse=True)
    assert 0 < related[-1].score <= related[0].score <= 1
    assert all(r.shared for r in related)                   # the reasons stay
    topics = {i: t.lower() for i, t in zip(ids, texts)}
    assert sum("depth" in topics[r.id] for r in related[:5]) >= 4


def test_without_the_model_related_papers_are_tfidf_and_it_is_said(seeded_library,
                                                                   monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "wordllama" else real(name, *a))
    lib = seeded_library
    lib.discover.ensure()
    fresh = type(lib.discover.embeddings)(lib, lambda: None)
    assert fresh.problem() == embedded.NOT_INSTALLED
    assert fresh.ensure() == 0 and fresh.missing() == 0
    assert not fresh.folder.exists()
    table = lib.discover._current()
    pid = lib.papers.ids()[0]
    rows, _cos = nearest_rows(table, int(table.rows_of([pid])[0]), 10)
    assert [r.id for r in lib.discover.related(pid)] == \
        [int(i) for i in table.row_ids[rows]]


PHOTO_QUERY = "estimating how far away things are from one photograph"


def test_a_search_by_meaning_finds_papers_that_say_it_in_other_words(seeded_library):
    lib = seeded_library
    assert lib.search.find(PHOTO_QUERY).total == 0          # not every word in one paper
    lib.discover.ensure()
    lib.discover.embeddings.ensure()
    found = lib.search.find("  ~" + PHOTO_QUERY, limit=5)
    assert found.message == ""
    assert sum("depth" in h.title.lower() or "depth" in
               (lib.papers.get(h.id).abstract or "").lower() for h in found.hits) >= 4
    assert list(found.scores) == sorted(found.scores, reverse=True)
    # each score: 1 / (60 + rank) summed over the two lists, over its most, 2 / 61
    words = [p for p, _s in lib.index.whoosh.more_like(-1, PHOTO_QUERY, 200)]
    meaning = lib.discover.embeddings.nearest_to_text(
        PHOTO_QUERY, 201, MIN_COSINE)[0][:200]
    for hit, score in zip(found.hits, found.scores):
        raw = sum(1 / (60 + ranking.index(hit.id) + 1) for ranking in (words, meaning)
                  if hit.id in ranking)
        assert score == pytest.approx(raw * 61 / 2)
    assert 0.5 < found.scores[0] <= 1
    # words no paper has and no meaning: nothing (without the embedding's floor, the
    # 200 papers nearest to it, with 0.50: first in one of the two lists)
    for nonsense in ("~zzzz qqqq", "~qwxz blorf", "~lorem ipsum dolor sit amet"):
        assert lib.search.find(nonsense, limit=3).total == 0, nonsense
    # a sentence no paper's words hold whole still finds by meaning what says it
    assert lib.search.find("~papers that estimate depth from one photograph").total > 100
    words_only = lib.search.find("~" + PHOTO_QUERY, limit=5, filter="starred")
    assert words_only.total == 0                            # filters still apply


def test_a_search_by_meaning_without_vectors_is_by_words_and_says_so(seeded_library,
                                                                     monkeypatch):
    lib = seeded_library
    found = lib.search.find("~" + PHOTO_QUERY, limit=5)
    assert found.message == "searched by words alone: the papers are not embedded yet"
    assert found.total > 0
    monkeypatch.setattr(embedded, "model_problem", lambda: embedded.NOT_INSTALLED)
    fresh = type(lib.discover.embeddings)(lib, lambda: None)
    assert fresh.nearest_to_text(PHOTO_QUERY, 5) == ([], embedded.NOT_INSTALLED)


def test_search_semantic_on_the_command_line_embeds_then_ranks(seeded_library, capsys):
    from paperdesk.cli import main

    path = str(seeded_library.path)
    seeded_library.close()
    assert main(["--library", path, "search", "--semantic", PHOTO_QUERY,
                 "--limit", "3"]) == 0
    out, err = capsys.readouterr()
    assert "depth" in out.lower() and "not embedded" not in err
    # the score printed is the fused one scaled to 0..1, not the raw 0.03 of each hit
    scores = [float(line.split()[1]) for line in out.splitlines() if line[:6].strip().isdigit()]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    assert 0.5 < scores[0] <= 1 and len(set(scores)) > 1
    assert main(["--library", path, "search", PHOTO_QUERY]) == 0
    assert "no matches" in capsys.readouterr().out


def test_check_finds_a_damaged_vectors_part_and_its_papers_are_embedded_again(
        seeded_library, monkeypatch):
    from paperdesk.core.check import check_library

    lib = seeded_library
    lib.discover.ensure()
    monkeypatch.setattr(vector_build, "CHUNK", 100)
    assert lib.discover.embeddings.ensure() == 225          # parts of 100, 100, 25
    assert not [p for p in check_library(lib).problems if p.part == "vectors"]
    part = lib.discover.embeddings.folder / "p2-vectors.npy"
    data = bytearray(part.read_bytes())
    data[-64:] = bytes(64)                                  # same size, other bytes
    part.write_bytes(bytes(data))
    found = [p for p in check_library(lib).problems if p.part == "vectors"]
    assert len(found) == 1 and "p2-vectors.npy" in found[0].text
    assert "\n" not in found[0].text and "embedded again" in found[0].remedy
    # only that part is dropped: its 100 papers are embedded again, the others kept
    assert not (lib.discover.embeddings.folder / "p2-vectors.npy").exists()
    assert lib.discover.embeddings.missing() == 100
    assert lib.discover.embeddings.ensure() == 100
    assert not [p for p in check_library(lib).problems if p.part == "vectors"]
    stored = lib.discover.embeddings.current()
    ids, texts = _texts(lib)
    assert sorted(stored.ids) == sorted(ids)
    assert np.allclose(stored.vectors(np.arange(len(stored))),
                       StaticModel().encode([texts[ids.index(int(i))] for i in stored.ids]),
                       atol=2e-3)


def test_check_says_when_vectors_is_a_file_and_removes_it(seeded_library):
    from paperdesk.core.check import check_library

    lib = seeded_library
    folder = lib.discover.embeddings.folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("x\n")
    report = check_library(lib)
    texts = [p.text for p in report.problems if p.part == "vectors"]
    assert texts == [f"{folder}: not a folder (the embedding vectors are kept in a "
                     "folder of that name)"]
    assert not folder.exists()                      # removed: embedded again at next use


def test_a_folder_where_a_vectors_part_belongs_is_removed(seeded_library):
    """check said the part was dropped but could not remove a folder (and then said the
    library was ok), and every later embedding failed with "Is a directory"."""
    from paperdesk.core.check import check_library

    lib = seeded_library
    lib.discover.ensure()
    assert lib.discover.embeddings.ensure() == 225
    part = lib.discover.embeddings.folder / "p1-vectors.npy"
    part.unlink()
    part.mkdir()
    found = [p for p in check_library(lib).problems if p.part == "vectors"]
    assert len(found) == 1 and "not a regular file" in found[0].text
    assert not part.exists()
    assert lib.discover.embeddings.ensure() == 225            # embedded again
    assert part.is_file()
    assert not [p for p in check_library(lib).problems if p.part == "vectors"]
    # and without a check first: writing a part's file replaces a folder found there
    from paperdesk.core.discover import table_files

    planted = lib.discover.embeddings.folder / "p9-ids.npy"
    planted.mkdir()
    (planted / "inside").write_text("x")
    table_files.write_array(planted, np.arange(3))
    assert planted.is_file() and list(table_files.read_array(planted)) == [0, 1, 2]


def test_check_compares_the_vectors_with_the_papers_and_the_rebuild_fixes_it(
        seeded_library):
    from paperdesk.core.check import check_library

    lib = seeded_library
    lib.discover.ensure()
    embeddings = lib.discover.embeddings
    assert embeddings.ensure() == 225
    ids = lib.papers.ids()
    lib.removal.delete_papers(ids[:20])          # 20 of 225 vectors: under a tenth
    assert not [p for p in check_library(lib).problems if p.part == "vectors"]
    lib.removal.delete_papers(ids[20:40])        # 40 of 225: more
    found = [p for p in check_library(lib).problems if p.part == "vectors"]
    assert [p.text for p in found] == [f"{embeddings.folder}: 40 of its 225 vectors are "
                                       "of papers that no longer exist"]
    assert "embedded again" in found[0].remedy
    # the rebuild: the folder was removed, every paper left is embedded again
    assert not embeddings.folder.exists()
    assert embeddings.ensure() == 185
    assert sorted(embeddings.current().ids) == sorted(lib.papers.ids())
    assert not [p for p in check_library(lib).problems if p.part == "vectors"]
    # papers whose text changed since they were embedded: said, and embedded next
    # (work still to do, not damage: a note, and the check passes)
    for pid in lib.papers.ids()[:30]:
        lib.papers.set_title(pid, f"A new title {pid}")
    report = check_library(lib)
    found = [p for p in report.notes if p.part == "vectors"]
    assert [p.text for p in found] == [f"{embeddings.folder}: 30 of the 185 papers have "
                                       "no vector of their current text"]
    assert "\n" not in found[0].text and "next use" in found[0].remedy
    assert report.ok and not report.problems, report.text()
    assert report.text().splitlines()[1] == f"  note: vectors: {found[0].line()}"
    assert report.as_dict()["ok"] and report.as_dict()["notes"][0]["note"] == found[0].text
    assert embeddings.ensure() == 30
    assert not [p for p in check_library(lib).problems if p.part == "vectors"]
