"""Highlighting of phrase queries: a quoted phrase marks its words only where they stand
one after the other in the text, as the index's phrase query matches them; lone words of
the phrase stay unmarked, plain words of the same query are still marked on their own."""

import re

import pytest

from helpers import write_daily
from paperdesk.core.search.index import match_spans

PHRASE_TEXTS = [
    # lone words of the phrase, the phrase in other case, across a line break and a comma
    "Zorblat neural methods beat networks of sensors. Deep NEURAL Networks are neural\n"
    "networks too, unlike neural, networks or networks neural.",
    # accents and case folded; a three-word phrase, with two-word pieces of it around
    "Quorvex: les Réseaux de Neurones, des réseaux de capteurs, de neurones isolés et "
    "reseaux de neurones profonds; réseaux neurones sans « de ».",
    # the phrase only in pieces: the paper does not match the phrase at all
    "Plimsy networks and a neural code, trained with care.",
]


@pytest.fixture
def lib(seeded_library, tmp_path):
    seeded_library.imports.run([write_daily(tmp_path / "phrases.txt", PHRASE_TEXTS,
                                             header="Phrases")])
    return seeded_library


def marked(lib, query: str, text: str) -> list[str]:
    """The pieces of ``text`` that the highlighting of ``query`` marks."""
    return [text[s:e] for s, e in match_spans(text, lib.search.match_terms(query))]


def abstract_with(lib, word: str) -> str:
    (hit,) = lib.search.find(word, limit=None).hits
    return lib.papers.get(hit.id).abstract


def test_phrase_marks_only_consecutive_words(lib):
    text = abstract_with(lib, "zorblat")
    assert marked(lib, '"neural networks"', text) == [
        "NEURAL", "Networks", "neural", "networks", "neural", "networks"]
    # the spans are the phrase's words where they follow each other, nothing in between
    spans = match_spans(text, lib.search.match_terms('"neural networks"'))
    # (the import joins the paragraph's lines, so the line break became white space)
    starts = [m.start() for m in re.finditer(r"neural\W+networks", text, re.IGNORECASE)]
    assert len(starts) == 3
    assert [s for s, _ in spans[::2]] == starts


def test_phrase_of_three_words_with_accents_and_case(lib):
    text = abstract_with(lib, "quorvex")
    assert marked(lib, '"réseaux de neurones"', text) == [
        "Réseaux", "de", "Neurones", "reseaux", "de", "neurones"]
    # typed without accents and in capitals: the same words are marked
    assert marked(lib, '"RESEAUX DE NEURONES"', text) == [
        "Réseaux", "de", "Neurones", "reseaux", "de", "neurones"]


def test_phrase_and_plain_word_together(lib):
    text = abstract_with(lib, "zorblat")
    # "methods" is a plain (stemmed) word: marked alone; the phrase still only as a phrase
    assert marked(lib, '"neural networks" method', text) == [
        "methods", "NEURAL", "Networks", "neural", "networks", "neural", "networks"]
    # a plain word that is also in the phrase is marked everywhere, the phrase as before
    assert marked(lib, '"neural networks" neural', text).count("neural") == 4
    assert marked(lib, '"neural networks" neural', text).count("networks") == 2


def test_phrase_pieces_alone_are_not_marked(lib):
    text = abstract_with(lib, "plimsy")
    assert marked(lib, '"neural networks"', text) == []
    assert marked(lib, '"neural networks" OR plimsy', text) == ["Plimsy"]
    assert marked(lib, 'plimsy NOT "neural code"', text) == ["Plimsy"]


def test_seed_snippets_mark_the_phrase_not_its_lone_words(lib):
    results = lib.search.find('"neural networks"', limit=None)
    assert len(results.hits) > 10
    lone_seen = 0
    for hit in results.hits:
        abstract = lib.papers.get(hit.id).abstract
        words = [abstract[s:e].lower() for s, e in match_spans(
            abstract, lib.search.match_terms('"neural networks"'))]
        # (a paper may have the phrase in its title only: nothing marked in the abstract)
        assert words == ["neural", "networks"] * (len(words) // 2), hit.id
        lone_seen += abstract.lower().count("neural") > words.count("neural")
        pieces = [hit.snippet[s:e].lower() for s, e in hit.snippet_spans]
        assert set(pieces) <= {"neural", "networks"}
        assert pieces.count("neural") <= pieces.count("networks") + 1   # cut at the end
    assert lone_seen > 0   # the seeds do have a lone "neural" next to the phrase
