"""Snippets scan an ASCII abstract for the query words' leading letters only
(:func:`paperdesk.core.search.index._spans_at_candidates`, issue 28: the snippets were
a third to a half of a search's CPU at 300,000 abstracts). The spans must be those of
the word-by-word scan to the character; these tests compare the two on real abstracts
(the seeds, the SYNERGY reviews), on nasty text and on generated text, and check the
stemmer property the quick scan rests on."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperdesk.core.imports.daily_papers import read_file
from paperdesk.core.search import index as index_module
from paperdesk.core.search.index import MatchTerms, _fold, _fold_stem, cut_snippet, match_spans
from paperdesk.core.search.words import WORD_RE

SYNERGY = Path(__file__).resolve().parents[3] / "shared" / "synergy"


def slow_spans(text: str, terms: MatchTerms, end: int | None = None):
    """match_spans with the quick scan turned off (every word analysed)."""
    saved = index_module.CANDIDATE_KEYS_MAX
    index_module.CANDIDATE_KEYS_MAX = -1
    try:
        return match_spans(text, terms, end=end)
    finally:
        index_module.CANDIDATE_KEYS_MAX = saved


def quick_spans(text: str, terms: MatchTerms, end: int | None = None):
    stop = len(text) if end is None else max(0, min(end, len(text)))
    found = index_module._spans_at_candidates(text, terms, stop)
    assert found is not None, "the quick scan should apply"
    return found


def _terms(words: list[str], exact: list[str] = (), phrases: list[list[str]] = ()
           ) -> MatchTerms:
    return MatchTerms(stemmed=frozenset(_fold_stem(w) for w in words),
                      exact=frozenset(_fold(w) for w in exact),
                      phrases=frozenset(tuple(_fold(w) for w in p) for p in phrases if p))


@pytest.fixture(scope="module")
def seed_texts(seed_files) -> list[str]:
    return [a.abstract for f in seed_files for a in read_file(f).abstracts]


def _synergy_texts(limit: int = 3000) -> list[str]:
    texts = []
    for path in sorted(SYNERGY.glob("*.csl.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            for key in ("abstract", "title"):
                if isinstance(item.get(key), str):
                    texts.append(item[key])
    return texts[:limit]


def test_the_quick_scan_gives_the_word_scan_spans_on_the_seeds(seed_texts):
    rng = random.Random(7)
    checked = 0
    for text in seed_texts:
        if not text.isascii():
            continue
        words = WORD_RE.findall(text)
        for _ in range(3):
            picked = rng.sample(words, min(len(words), rng.randint(1, 4)))
            exact = rng.sample(words, 1) if rng.random() < 0.3 else []
            at = rng.randrange(len(words))
            phrases = [words[at:at + rng.randint(2, 3)]] if rng.random() < 0.5 else []
            terms = _terms(picked, exact, phrases)
            for end in (None, 400, len(text) // 2):
                assert quick_spans(text, terms, end) == slow_spans(text, terms, end), \
                    (text[:80], picked, exact, end)
                checked += 1
    assert checked > 1000


@pytest.mark.skipif(not SYNERGY.is_dir(), reason="../shared/synergy is not here")
def test_the_stemmed_word_keeps_the_written_word_but_its_last_letter():
    """What the quick scan rests on: a word's stem, less its last letter, begins the
    folded word (Porter rewrites endings only). Every word of the SYNERGY reviews."""
    words = {w for text in _synergy_texts(limit=10**6) for w in WORD_RE.findall(text)}
    assert len(words) > 20000
    bad = [(w, _fold_stem(w)) for w in words
           if not _fold(w).startswith(_fold_stem(w)[:-1])]
    assert bad == []


@pytest.mark.skipif(not SYNERGY.is_dir(), reason="../shared/synergy is not here")
def test_the_quick_scan_gives_the_word_scan_spans_on_real_abstracts():
    rng = random.Random(11)
    for text in _synergy_texts():
        words = WORD_RE.findall(text)
        if not words:
            continue
        terms = _terms(rng.sample(words, min(len(words), 3)))
        if text.isascii():
            assert quick_spans(text, terms) == slow_spans(text, terms)
        assert match_spans(text, terms) == slow_spans(text, terms)


NASTY = [
    "We use e.g.model and i.e.models; C++ and C# models; model_based modelling.",
    "2.5-fold models, v1.2.3 modeled MODELS Model's model-based re-modeling",
    "models.Model models.models ..models _model model_ 3models models3",
    "happy happiness happily happier; hoping hoped hope hopes",
    "x" * 10 + " model" + " y" * 5,
    "modelmodel model\nmodel\tmodel,model.model",
]


@pytest.mark.parametrize("text", NASTY)
@pytest.mark.parametrize("words", [["model"], ["models", "happy"], ["hope"], ["c++"],
                                   ["e.g"], ["model_based"], ["2.5"], ["x"]])
@pytest.mark.parametrize("phrases", [[], [["models", "model"]], [["model", "model"]],
                                     [["c++", "and", "c#"], ["hoping", "hoped"]],
                                     [["x", "x"], ["y", "y", "y"]]])
def test_the_quick_scan_on_nasty_text(text, words, phrases):
    terms = _terms(words, exact=["models"], phrases=phrases)
    for end in (None, 7, 25, 40, len(text) - 1):
        assert quick_spans(text, terms, end) == slow_spans(text, terms, end), (words, end)


def test_texts_it_does_not_apply_to_are_scanned_word_by_word():
    accented = MatchTerms(stemmed=frozenset({"model"}))
    assert index_module._spans_at_candidates("un modèle de models", accented, 19) is None
    many = MatchTerms(stemmed=frozenset(f"w{i}" for i in range(100)))
    assert index_module._spans_at_candidates("w1 w2", many, 5) is None
    assert match_spans("un modèle de models", accented) == [(3, 9), (13, 19)]  # folded


_ASCII_TEXT = st.text(alphabet=st.sampled_from(list("abcdeMODELs_.+#- \n,'0123456789y")),
                      max_size=120)


@settings(max_examples=400, deadline=None)
@given(text=_ASCII_TEXT, picks=st.lists(st.integers(0, 1000), min_size=1, max_size=3),
       end=st.one_of(st.none(), st.integers(0, 130)), phrase_at=st.integers(0, 1000),
       phrase_len=st.integers(0, 3))
def test_the_quick_scan_on_generated_text(text, picks, end, phrase_at, phrase_len):
    words = WORD_RE.findall(text) or ["model"]
    chosen = [words[i % len(words)] for i in picks]
    at = phrase_at % len(words)
    phrase = words[at:at + phrase_len] if phrase_len > 1 else []
    terms = _terms(chosen, exact=chosen[:1], phrases=[phrase])
    assert quick_spans(text, terms, end) == slow_spans(text, terms, end)


def test_snippets_on_the_seeds_are_unchanged(seed_texts):
    terms = _terms(["learning", "models", "graph"])
    for text in seed_texts[:200]:
        saved = index_module.CANDIDATE_KEYS_MAX
        quick = cut_snippet(text, terms)
        index_module.CANDIDATE_KEYS_MAX = -1
        try:
            slow = cut_snippet(text, terms)
        finally:
            index_module.CANDIDATE_KEYS_MAX = saved
        assert quick == slow
