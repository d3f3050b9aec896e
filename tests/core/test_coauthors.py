"""Shared authors in related papers (issue 27): the author index agrees with the
papers' own author lists, and related papers name the authors (and the venue) a paper
shares with them. Real data: the smallest SYNERGY review, whose works carry their authors."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.discover import embedded
from paperdesk.core.discover.coauthors import CoauthorIndex, author_key
from paperdesk.core.discover.tag_evaluation import synergy_reviews
from paperdesk.core.discover.title_venue import venue_key
from paperdesk.core.library import Library

SYNERGY = Path(__file__).resolve().parents[3] / "shared" / "synergy"


@pytest.fixture(scope="module")
def review_library(tmp_path_factory):
    found = {r[0]: r for r in synergy_reviews(SYNERGY)}
    if "Donners_2021" not in found:
        pytest.skip(f"the SYNERGY review Donners_2021 is not in {SYNERGY}")
    lib = Library.open(tmp_path_factory.mktemp("coauthors") / "lib")
    lib.imports.run([found["Donners_2021"][1]])
    yield lib
    lib.close()


def _keys(paper) -> set[str]:
    return {f"{' '.join(a.family.casefold().split())} {a.given.strip()[:1].casefold()}"
            for a in paper.authors if a.family.strip()}


def test_the_index_finds_every_paper_sharing_an_author(review_library):
    lib = review_library
    papers = {pid: lib.papers.get(pid) for pid in lib.papers.ids()}
    keys = {pid: _keys(p) for pid, p in papers.items()}
    index = CoauthorIndex.build(lib.db)
    checked = 0
    for pid in list(papers)[:80]:
        ids, counts = index.shared(pid)
        expected = {other: len(keys[pid] & k) for other, k in keys.items()
                    if other != pid and keys[pid] & k}
        assert dict(zip(ids.tolist(), counts.tolist())) == expected
        checked += bool(expected)
    assert checked >= 10                  # the review's authors do overlap
    assert author_key(["Wang", "Haiyan"]) == author_key(["  WANG", "H. "]) == "wang h"
    assert author_key("others") is None and author_key(["", "J."]) is None


@pytest.mark.skipif(embedded.model_problem() is not None,
                    reason="the embeddings extra is not installed")
def test_related_papers_name_the_authors_they_share(review_library):
    lib = review_library
    lib.discover.ensure()
    lib.discover.embeddings.ensure()
    named = 0
    for pid in lib.papers.ids()[:60]:
        mine = _keys(lib.papers.get(pid))
        for r in lib.discover.related(pid):
            theirs = _keys(lib.papers.get(r.id))
            families = {a.family.strip() for a in lib.papers.get(pid).authors
                        if author_key([a.family, a.given]) in theirs}
            assert set(r.authors) == families
            named += bool(r.authors)
            assert bool(r.authors) == bool(mine & theirs)
            assert 0 < r.score <= 1
    assert named >= 5


@pytest.mark.skipif(embedded.model_problem() is not None,
                    reason="the embeddings extra is not installed")
def test_related_papers_name_the_venue_they_share(review_library):
    lib = review_library
    lib.discover.ensure()
    lib.discover.embeddings.ensure()
    named = unnamed = 0
    for pid in lib.papers.ids()[:60]:
        mine = venue_key(lib.papers.get(pid).metadata.venue)
        for r in lib.discover.related(pid):
            theirs = lib.papers.get(r.id).metadata.venue
            same = bool(mine) and venue_key(theirs) == mine
            assert r.venue == (theirs if same else "")
            named += same
            unnamed += not same
    assert named >= 5 and unnamed >= 5        # the review's journals recur, not always


@pytest.mark.skipif(embedded.model_problem() is not None,
                    reason="the embeddings extra is not installed")
def test_the_related_command_prints_the_shared_authors(tmp_path, capsys):
    import json

    from paperdesk.cli import main

    found = {r[0]: r for r in synergy_reviews(SYNERGY)}
    if "Donners_2021" not in found:
        pytest.skip(f"the SYNERGY review Donners_2021 is not in {SYNERGY}")
    path = str(tmp_path / "lib")
    assert main(["--library", path, "import", str(found["Donners_2021"][1])]) == 0
    assert main(["--library", path, "search", "--semantic", "pharmacokinetics"]) == 0
    capsys.readouterr()                                 # the papers are embedded now
    with Library.open(Path(path)) as lib:
        ids = lib.papers.ids()
    for pid in ids:
        assert main(["--library", path, "related", str(pid), "--json"]) == 0
        related = json.loads(capsys.readouterr().out)
        named = [r for r in related if r["authors"]]
        if named:
            break
    assert named, "no related paper of the review shares an author"
    assert main(["--library", path, "related", str(pid)]) == 0
    out = capsys.readouterr().out
    assert f"same authors: {', '.join(named[0]['authors'])}" in out
    with_venue = [r for r in related if r["venue"]]
    for r in with_venue:
        assert f"same venue: {r['venue']}" in out

