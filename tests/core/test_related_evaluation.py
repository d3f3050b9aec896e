"""The relatedness evaluation against in-set citations (issue 27 item 1): the ground truth
read from a SYNERGY review, the measures, and the README table as printed by a run on
the smallest review."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paperdesk.core.discover.related_evaluation import (DEFAULT_METHODS, SEARCH_METHODS,
                                                        citation_links, main, ndcg_at,
                                                        recall_at, relevant_sets)
from paperdesk.core.discover.tag_evaluation import synergy_reviews

ROOT = Path(__file__).resolve().parents[2]
SYNERGY = ROOT.parent / "shared" / "synergy"
SMALL = "Donners_2021"


def _review(name: str):
    found = {r[0]: r for r in synergy_reviews(SYNERGY)}
    if name not in found:
        pytest.skip(f"the SYNERGY review {name} is not in {SYNERGY}")
    return found[name]


def test_relevant_works_are_cited_citing_and_co_cited_works():
    _name, _csl, labels = _review("Sep_2021")
    cites = citation_links(labels)
    relevant = relevant_sets(cites)
    assert relevant and all(w not in rel for w, rel in relevant.items())
    # every link is in both directions (cites / cited by; co-cited with each other)
    for w, rel in relevant.items():
        for v in rel:
            assert w in relevant[v]
    # each citing work's references are co-cited: each is relevant to each other one
    citing = next(w for w, refs in cites.items() if len(refs & set(cites)) >= 2)
    refs = sorted(cites[citing] & set(cites) - {citing})
    assert citing in relevant[refs[0]] and refs[1] in relevant[refs[0]]
    # a work is a query iff it cites or is cited by a work of the file
    linked = {w for w, refs in cites.items() if refs & (set(cites) - {w})} | \
        {c for w, refs in cites.items() for c in refs if c in cites and c != w}
    assert set(relevant) == linked


def test_ndcg_and_recall_follow_their_definitions():
    relevant = {1, 2, 3}
    assert ndcg_at([1, 2, 3, 9], relevant) == pytest.approx(1.0)
    assert ndcg_at([9, 8, 7], relevant) == 0.0
    # one hit at rank 2: (1 / log2 3) / (1 + 1 / log2 3 + 1 / log2 4)
    assert ndcg_at([9, 2], relevant) == pytest.approx(0.6309 / 2.1309, abs=1e-4)
    assert recall_at([9, 2, 3], relevant) == pytest.approx(2 / 3)
    assert recall_at(list(range(10, 40)) + [1], relevant) == 0.0     # rank 31 > 20


def _table_rows(text: str, first: str) -> list[list[str]]:
    """The cells of every Markdown table row whose first cell is ``first``."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first:
            rows.append(cells)
    return rows


def _table_row(text: str, first: str) -> list[str] | None:
    rows = _table_rows(text, first)
    return rows[0] if rows else None


def test_the_readme_table_is_what_the_evaluation_prints(capsys):
    _review(SMALL)
    assert main(["--data", str(SYNERGY), "--review", SMALL]) == 0
    printed = capsys.readouterr().out
    head = _table_row(printed, "review")
    assert head[3:] == [f"{m} {what}" for m in DEFAULT_METHODS
                        for what in ("nDCG@10", "recall@20")]
    row = _table_row(printed, SMALL)
    readme = (ROOT / "README.md").read_text("utf-8")
    # (the README has other tables whose rows start with "review" or a review's name)
    assert head in _table_rows(readme, "review")
    assert row in _table_rows(readme, SMALL)
    discover = (ROOT / "docs" / "discover.md").read_text("utf-8")
    for doc in (readme, discover):
        assert re.search(r"make evaluate-related", doc)
    # the second table, search by meaning with titles as queries, is docs/discover.md's
    heads, rows = _table_rows(printed, "review"), _table_rows(printed, SMALL)
    assert len(heads) == len(rows) == 2
    assert heads[1][3:] == [f"{m} {what}" for m in SEARCH_METHODS
                            for what in ("nDCG@10", "recall@20")]
    assert heads[1] in _table_rows(discover, "review")
    assert rows[1] in _table_rows(discover, SMALL)
    assert rows[0] in _table_rows(discover, SMALL)
    # tf-idf finds cited and co-cited works: far above chance (a relevant paper in ~1 of
    # 20 among 256)
    assert float(row[3]) > 0.1
    # the hybrid (titles, shared authors, venue and feedback) is well above tf-idf here:
    # 0.269 against 0.210 (0.259 without titles and venue, the weighted cosines alone
    # gave 0.214)
    hybrid = head.index("hybrid nDCG@10")
    assert float(row[hybrid]) >= 1.25 * float(row[3])


def test_a_folder_without_reviews_is_refused_in_one_line(tmp_path, capsys):
    assert main(["--data", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(tmp_path) in err
