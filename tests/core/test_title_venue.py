"""Titles and venues in related papers (issue 27): the title vectors' cosines are
scikit-learn's tf-idf cosines of the titles, the same venue counts, and a venue edited
counts at the next related papers. Real data: the smallest SYNERGY review, whose works
carry their journals."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from paperdesk.core.discover import embedded, hybrid
from paperdesk.core.discover.tag_evaluation import synergy_reviews
from paperdesk.core.discover.title_venue import TitleVenueIndex, venue_key
from paperdesk.core.discover.vectorize import analyze, load_stop_words
from paperdesk.core.library import Library

SYNERGY = Path(__file__).resolve().parents[3] / "shared" / "synergy"


@pytest.fixture
def review_library(tmp_path):
    found = {r[0]: r for r in synergy_reviews(SYNERGY)}
    if "Donners_2021" not in found:
        pytest.skip(f"the SYNERGY review Donners_2021 is not in {SYNERGY}")
    lib = Library.open(tmp_path / "lib")
    lib.imports.run([found["Donners_2021"][1]])
    yield lib
    lib.close()


def test_title_cosines_and_venues_are_those_of_the_papers(review_library):
    from sklearn.feature_extraction.text import TfidfVectorizer

    load_stop_words()
    rows = review_library.db.execute(
        "SELECT id, title, venue FROM papers ORDER BY id").fetchall()
    ids = [r[0] for r in rows]
    titles = TfidfVectorizer(analyzer=analyze, sublinear_tf=True).fit_transform(
        [r[1] or "" for r in rows])
    expected = (titles @ titles.T).toarray()
    venues = [venue_key(r[2]) for r in rows]
    index = TitleVenueIndex.build(review_library.db)
    shared_venue = 0
    for at in range(0, len(ids), 7):
        title, venue = index.features([ids[at]], np.ones(1), ids)
        np.testing.assert_allclose(title, expected[at], atol=1e-5)
        same = [bool(venues[at]) and v == venues[at] for v in venues]
        assert venue.tolist() == [float(s) for s in same]
        shared_venue += sum(same) > 1
    assert shared_venue >= 10                   # the review's journals do repeat
    assert (expected > 0).sum() > 4 * len(ids)  # and its titles share words
    # two papers weighted: the weighted sums; an unknown paper counts 0
    title, venue = index.features([ids[0], ids[1], -5], np.array([0.25, 0.75, 1.0]), ids)
    np.testing.assert_allclose(title, 0.25 * expected[0] + 0.75 * expected[1], atol=1e-5)
    assert venue_key("  The  LANCET ") == venue_key("the lancet") == "the lancet"


@pytest.mark.skipif(embedded.model_problem() is not None,
                    reason="the embeddings extra is not installed")
def test_a_paper_of_the_same_venue_scores_more_after_its_venue_is_edited(review_library):
    lib = review_library
    lib.discover.ensure()
    lib.discover.embeddings.ensure()
    venues = dict(lib.db.execute("SELECT id, venue FROM papers"))
    pid = next(p for p in lib.papers.ids() if venues[p])
    before = {r.id: r.score for r in lib.discover.related(pid)}
    other = next(r for r in list(before)[::-1]
                 if venue_key(venues[r]) != venue_key(venues[pid]))
    meta = lib.papers.metadata(other)
    lib.papers.set_metadata(other, dataclasses.replace(meta, venue=venues[pid].upper()))
    after = {r.id: r.score for r in lib.discover.related(pid)}
    # its own score gains the bonus (its feedback can only add to it)
    assert after[other] >= before[other] + hybrid.VENUE_BONUS / hybrid.SCORE_NORM - 1e-4
    assert list(after).index(other) <= list(before).index(other)


def test_earlier_is_a_known_smaller_year(review_library):
    from paperdesk.core.discover.title_venue import year_of

    assert [year_of(d) for d in ("2019", "2019-07", "2019-07-03", None, "", "19x9",
                                 "２０１９")] == [2019, 2019, 2019, 0, 0, 0, 0]
    rows = review_library.db.execute("SELECT id, date FROM papers ORDER BY id").fetchall()
    ids = [r[0] for r in rows]
    years = [int(r[1][:4]) if r[1] else 0 for r in rows]
    assert len(set(years)) > 10 and years.count(0) < len(years) // 10   # real dates
    index = TitleVenueIndex.build(review_library.db)
    for at in range(0, len(ids), 11):
        got = index.earlier(ids[at], ids + [-5])
        assert got.tolist() == [float(bool(years[at]) and 0 < y < years[at])
                                for y in years] + [0.0]
    # a paper the index does not hold, and one without a date, lean nowhere
    assert not index.earlier(-5, ids).any()
    undated = TitleVenueIndex([(1, "a", None, None), (2, "b", None, "2001")])
    assert undated.earlier(1, [2]).tolist() == [0.0]
    assert undated.earlier(2, [1]).tolist() == [0.0]


@pytest.mark.skipif(embedded.model_problem() is not None,
                    reason="the embeddings extra is not installed")
def test_a_related_paper_dated_earlier_scores_more(review_library):
    lib = review_library
    lib.discover.ensure()
    lib.discover.embeddings.ensure()
    dates = dict(lib.db.execute("SELECT id, date FROM papers"))
    pid = next(p for p in lib.papers.ids() if dates[p] and int(dates[p][:4]) > 2000)
    year = int(dates[pid][:4])
    before = {r.id: r.score for r in lib.discover.related(pid)}
    other = next(r for r in list(before)[::-1] if dates[r] and int(dates[r][:4]) >= year)
    meta = lib.papers.metadata(other)
    lib.papers.set_metadata(other, dataclasses.replace(meta, date=str(year - 1)))
    after = {r.id: r.score for r in lib.discover.related(pid)}
    assert after[other] >= before[other] + hybrid.EARLIER_BONUS / hybrid.SCORE_NORM - 1e-4
    assert list(after).index(other) <= list(before).index(other)
