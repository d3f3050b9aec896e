"""Snippets cost a bounded amount of work (issue 14 item 5): a 2.4 MB abstract made
``find('alpha')`` take 127 s and 20,000 matches made the snippet step take 21 s, because
the densest-window search compared every match with every later one and every row's
snippet scanned its whole abstract. No timings here: the tests count the characters
scanned and the spans touched, and compare the counts when the input doubles."""

from __future__ import annotations

import json

import pytest

from helpers import give_long_abstract, write_daily
from paperdesk import cli
from paperdesk.core.search import library_search
from paperdesk.core.library import Library
from paperdesk.core.search import index as index_module
from paperdesk.core.search.index import (SNIPPET_CHARS, SNIPPET_SCAN_CHARS, MatchTerms,
                                         cut_snippet, make_snippet, match_spans)

ALPHA = MatchTerms(stemmed=frozenset({"alpha"}))


def long_abstract(chars: int) -> str:
    """An abstract of about ``chars`` characters where "alpha" is every third word."""
    unit = "alpha beta{} gamma "
    parts, size, i = [], 0, 0
    while size < chars:
        part = unit.format(i % 97)
        parts.append(part)
        size += len(part)
        i += 1
    return "A long abstract on alpha. " + "".join(parts)


class CountingWords:
    """Stands in for ``index._WORD_RE``: counts the characters handed to ``finditer``."""

    def __init__(self, real):
        self.real = real
        self.scanned = 0

    def finditer(self, text, pos=0, endpos=None):
        end = len(text) if endpos is None else min(endpos, len(text))
        self.scanned += max(0, end - pos)
        return self.real.finditer(text, pos, end)

    def __getattr__(self, name):   # findall (the index writer's) is not counted
        return getattr(self.real, name)


@pytest.fixture
def counting(monkeypatch) -> CountingWords:
    words = CountingWords(index_module._WORD_RE)
    monkeypatch.setattr(index_module, "_WORD_RE", words)
    real = index_module._candidates_in

    def candidates_in(pattern, text, stop):     # the quick scan of an ASCII abstract
        words.scanned += stop
        return real(pattern, text, stop)

    monkeypatch.setattr(index_module, "_candidates_in", candidates_in)
    return words


class CountingSpans:
    """A sequence of spans that counts how many of its items are read (slices too)."""

    def __init__(self, spans):
        self.spans = list(spans)
        self.reads = 0

    def __len__(self):
        return len(self.spans)

    def __getitem__(self, i):
        item = self.spans[i]
        self.reads += len(item) if isinstance(i, slice) else 1
        return item

    def __iter__(self):
        for item in self.spans:
            self.reads += 1
            yield item


def test_snippet_of_a_2_4_mb_abstract_scans_a_bounded_window(counting):
    big = long_abstract(2_400_000)
    assert len(big) >= 2_400_000
    text, spans = cut_snippet(big, ALPHA)
    assert counting.scanned <= SNIPPET_SCAN_CHARS
    assert text.startswith("A long abstract on alpha.") and text.endswith(" …")
    assert len(text) <= SNIPPET_CHARS + 2
    assert spans and all(text[s:e] == "alpha" for s, e in spans)


def test_snippet_work_does_not_grow_with_the_abstract(counting):
    cut_snippet(long_abstract(1_200_000), ALPHA)
    half = counting.scanned
    assert half > 0
    counting.scanned = 0
    cut_snippet(long_abstract(2_400_000), ALPHA)
    assert counting.scanned == half


def test_densest_window_reads_each_span_a_bounded_number_of_times():
    # Without the two-pointer pass each span was compared with every later one: 20,000
    # spans read 200 million times.
    reads = {}
    for n in (10_000, 20_000):
        text = "alpha " * n
        spans = CountingSpans((6 * i, 6 * i + 5) for i in range(n))
        snippet, inside = make_snippet(text, spans)
        assert inside and all(snippet[s:e] == "alpha" for s, e in inside)
        reads[n] = spans.reads
    assert reads[10_000] <= 3 * 10_000 + 2 * SNIPPET_CHARS
    assert reads[20_000] <= 2 * reads[10_000] + 2 * SNIPPET_CHARS


def test_densest_window_is_still_the_one_with_most_matches():
    text = ("alpha " + "filler " * 40) + "alpha alpha alpha alpha end " + "filler " * 40
    spans = match_spans(text, ALPHA)
    snippet, inside = make_snippet(text, spans)
    assert len(inside) == 4 and snippet.startswith("… ")
    assert all(snippet[s:e] == "alpha" for s, e in inside)


def test_a_word_cut_by_the_scan_bound_is_not_a_match():
    text = "x" * (SNIPPET_SCAN_CHARS - 3) + " alphabet"
    # "alpha" ends exactly at the bound; it is the start of "alphabet", not a match.
    terms = MatchTerms(exact=frozenset({"alph"}))
    assert match_spans(text, terms, end=SNIPPET_SCAN_CHARS) == []
    assert match_spans(text, MatchTerms(exact=frozenset({"alphabet"}))) == [
        (SNIPPET_SCAN_CHARS - 2, SNIPPET_SCAN_CHARS + 6)]


def test_library_find_on_a_2_4_mb_abstract(tmp_path, counting):
    big = long_abstract(2_400_000)
    source = write_daily(tmp_path / "big.txt", [big, "A short paper on alpha decay."])
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([source])
        # an import cuts it at 100,000 characters; a library imported before that holds
        # it whole (written with SQL here)
        assert any("abstract cut at" in w for f in report.files for w in f.warnings)
        long_id = next(p for p in lib.papers.ids() if lib.papers.get(p).abstract.startswith("A long"))
        assert len(lib.papers.get(long_id).abstract) <= 100_000
        give_long_abstract(lib, long_id, big.strip())
        counting.scanned = 0
        found = lib.search.find("alpha")
        assert found.total == 2 and len(found.hits) == 2
        assert counting.scanned <= 2 * SNIPPET_SCAN_CHARS
        long_hit = next(h for h in found.hits if h.snippet.startswith("A long"))
        assert long_hit.snippet_spans
        assert lib.papers.get(long_hit.id).abstract == big.strip()    # the stored text is whole
        counting.scanned = 0
        assert lib.search.snippets("alpha", [long_hit.id])[long_hit.id][1]
        assert counting.scanned <= SNIPPET_SCAN_CHARS


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """A library of 20,000 papers that all match "alpha"."""
    folder = tmp_path_factory.mktemp("many")
    source = write_daily(folder / "many.txt", [
        f"Paper {i} studies alpha in setting {i} and finds alpha stable." for i in range(20_000)])
    path = folder / "lib"
    with Library.open(path) as lib:
        lib.imports.run([source])
    return path


@pytest.fixture
def cuts(monkeypatch) -> list:
    """Every abstract the library cuts a snippet from."""
    seen = []
    real = library_search.cut_snippet

    def counted(text, terms, *args, **kwargs):
        seen.append(text)
        return real(text, terms, *args, **kwargs)

    monkeypatch.setattr("paperdesk.core.search.library_search.cut_snippet", counted)
    return seen


def test_20000_matches_cut_snippets_only_for_the_rows_asked(many, cuts):
    with Library.open(many) as lib:
        found = lib.search.find("alpha")
        assert found.total == 20_000 and len(found.ids) == 20_000
        assert len(found.hits) == 50 and len(cuts) == 50
        cuts.clear()
        assert len(lib.search.find("alpha", limit=0).ids) == 20_000 and cuts == []
        rows = found.ids[1000:1200].tolist()
        assert set(lib.search.snippets("alpha", rows)) == set(rows) and len(cuts) == 200
        cuts.clear()
        lib.search.find("alpha", snippets=False, limit=500)
        assert cuts == []


def test_cli_search_cuts_snippets_only_for_json(many, cuts, capsys):
    assert cli.main(["--library", str(many), "search", "alpha", "--limit", "5000"]) == 0
    assert "(5,000 of 20,000 shown; use --limit)" in capsys.readouterr().out
    assert cuts == []
    assert cli.main(["--library", str(many), "search", "alpha", "--json", "--limit", "7"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["total"], doc["shown"]) == (20_000, 7) and len(cuts) == 7
    assert all(h["snippet_spans"] for h in doc["hits"])
