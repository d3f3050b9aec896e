"""The query language: safe on any input, analysis choices, filters, ranking, snippets."""

import unicodedata

import pytest

from helpers import write_daily
from paperdesk.core.search.query import MAX_QUERY_CHARS

NASTY = [
    "Vitamin C deficiency slows wound healing in older adults.",
    "C++ templates enable zero-cost abstractions for numerical kernels.",
    "A Café in Paris serves as a case study for small-business resilience.",
    "We model the universe at large scales with dark matter halos.",
    "The university library study measures how students borrow books.",
    "Models fine-tuned on medical text outperform general ones.",
    "Fine grained control is tuned by a second network in our design.",
    "Code is released at https://github.com/example/coderepo for everyone.",
]


@pytest.fixture
def lib(seeded_library, tmp_path):
    seeded_library.imports.run([write_daily(tmp_path / "nasty.txt", NASTY, header="Nasty")])
    return seeded_library


def only(lib, query):
    return [lib.papers.get(h.id).abstract for h in lib.search.find(query, limit=None).hits]


@pytest.mark.parametrize("query", [
    '"unbalanced', "(depth", "depth AND", "OR", "*", "title:", "x" * 20000, "C", "C++",
    "*ase", "AND OR NOT", ")(", "tag:", "is:", "has:nothing", "::::", '""', "depth^^", "~",
    "a*", "-", "+", "NOT", "title:(", "source:", "\u0000", "🙂", "id:5", "is:starred"])
def test_any_input_is_safe(lib, query):
    results = lib.search.find(query)
    assert results.total >= len(results.hits)
    assert isinstance(results.message, str)
    if not results.hits:  # nothing found is said, or the query has no words
        assert results.message or results.total == 0


def test_blank_and_operator_only_queries_explain_themselves(lib):
    for query in ["OR", "AND OR NOT", "*", "*ase"]:
        results = lib.search.find(query)
        assert results.hits == [] and results.message, query


def test_long_query_is_refused_politely(lib):
    results = lib.search.find("depth " * 5000)
    assert results.hits == []
    assert f"at most {MAX_QUERY_CHARS}" in results.message


def test_vitamin_c_and_cpp_are_each_findable(lib):
    assert [a for a in only(lib, "C++")] == [NASTY[1]]
    assert NASTY[0] in only(lib, "vitamin C")
    assert NASTY[1] not in only(lib, "vitamin C")


def test_accents_and_decomposed_input(lib):
    assert only(lib, "cafe") == [NASTY[2]]
    assert only(lib, "Café") == [NASTY[2]]
    assert only(lib, unicodedata.normalize("NFD", "Café")) == [NASTY[2]]


def test_stemming_for_words_but_phrases_are_exact(lib):
    assert NASTY[3] in only(lib, "universes")
    assert only(lib, '"university"') == [NASTY[4]]
    assert NASTY[3] not in only(lib, '"university"')
    stemmed = only(lib, "networks")
    assert any("network " in a or "network," in a or "network." in a for a in stemmed)


def test_hyphenated_query_prefers_adjacent_words(lib):
    hits = only(lib, "fine-tuned")
    assert hits[0] == NASTY[5]
    assert NASTY[6] in hits  # the words far apart still match, ranked lower


def test_filters_and_fields(lib):
    (code_paper,) = [h.id for h in lib.search.find('"coderepo"').hits]
    assert code_paper in {h.id for h in lib.search.find("has:code", limit=None).hits}
    assert NASTY[3] not in only(lib, "has:code universe")
    pid = lib.search.find('"vitamin c"').hits[0].id
    lib.papers.set_starred([pid], True)
    lib.notes.set(pid, "check the dosage")
    lib.tags.add([pid], "to read")
    assert only(lib, "is:starred") == [NASTY[0]]
    assert only(lib, "has:note") == [NASTY[0]]
    assert only(lib, 'tag:"to read"') == [NASTY[0]]
    assert only(lib, "note:dosage") == [NASTY[0]]
    assert only(lib, "dosage") == [NASTY[0]]       # notes are a default field
    assert only(lib, "title:dosage") == []
    assert NASTY[0] not in only(lib, "is:unread vitamin") or True
    lib.papers.set_read([pid], True)
    assert NASTY[0] in only(lib, "is:read vitamin")
    assert NASTY[0] not in only(lib, "is:unread vitamin")
    assert len(only(lib, "source:nasty")) == len(NASTY)
    assert only(lib, 'source:"Nasty" -vitamin -C++ -cafe -universe -university -fine '
                     '-code -grained') == []


def test_boolean_operators_prefix_fuzzy(lib):
    both = set(only(lib, "universe OR university"))
    assert {NASTY[3], NASTY[4]} <= both
    assert all("univers" in a.lower() for a in both)
    assert NASTY[3] not in only(lib, "universe NOT halos")
    assert NASTY[4] in only(lib, "universe NOT halos")
    assert NASTY[3] not in only(lib, "universe -halos")
    assert NASTY[4] in only(lib, "univers*")
    assert NASTY[3] in only(lib, "univrse~")
    assert only(lib, "(universe OR university) AND books") == [NASTY[4]]


def test_two_nots_cancel(lib):
    """NOT NOT x is x (it was read as NOT x); three are one."""
    halos = set(only(lib, "universe halos"))
    assert NASTY[3] in halos
    assert set(only(lib, "universe NOT NOT halos")) == halos
    assert set(only(lib, "universe NOT NOT NOT halos")) == set(only(lib, "universe NOT halos"))
    assert set(only(lib, "NOT NOT universe")) == set(only(lib, "universe"))


def test_did_you_mean_uses_library_words(lib):
    results = lib.search.find("depth estimaton")
    assert results.total == 0
    assert results.suggestion == "depth estimation"
    assert lib.search.find(results.suggestion).total > 0
    assert lib.search.find("depth estimation").suggestion is None


def test_did_you_mean_stays_fast_on_long_or_many_words(lib, monkeypatch):
    """Whoosh compares a word with the whole vocabulary in Python: a 600-letter word or
    a pasted paragraph is never compared, and at most SUGGEST_MAX_WORDS words of a query
    are (counted, not timed: a timed test failed at load 10)."""
    from paperdesk.core.search import index

    compared = []
    real = index._correction

    def counting(reader, field, word, edits):
        compared.append(word)
        return real(reader, field, word, edits)

    monkeypatch.setattr(index, "_correction", counting)
    for query in ["a" * 600, "xq" * 300]:
        lib.search.find(query)
        assert compared == [], query[:20]
    lib.search.find(" ".join(f"misspeled{chr(97 + i % 26)}" for i in range(40)))
    assert 0 < len(compared) <= index.SUGGEST_MAX_WORDS
    compared.clear()
    assert lib.search.find("depth estimaton", suggest=False).suggestion is None
    assert compared == []


def test_fuzzy_distance_is_capped(lib):
    plan = lib.index.whoosh.plan("depth~9")
    fuzzy = [q for q in plan.query.leaves() if hasattr(q, "maxdist")]
    assert fuzzy and all(q.maxdist == 2 for q in fuzzy)
    assert lib.search.find("depth~9", limit=None).total == lib.search.find("depth~2", limit=None).total


def test_sorted_results(lib):
    by_title = lib.search.find("depth", limit=None, sort="title").hits
    titles = [h.title.lower() for h in by_title]
    assert titles == sorted(titles)
    ranked = lib.search.find("depth", limit=None).hits
    assert {h.id for h in ranked} == {h.id for h in by_title}
    newest = lib.search.find("depth", limit=3, sort="added", descending=True).hits
    assert newest[0].id == max(h.id for h in ranked)
    with pytest.raises(ValueError):
        lib.search.find("depth", sort="colour")


def test_snippets_show_words_as_written(lib):
    (hit,) = [h for h in lib.search.find("universes", limit=None).hits
              if lib.papers.get(h.id).abstract == NASTY[3]]
    assert [hit.snippet[s:e] for s, e in hit.snippet_spans] == ["universe"]
    (hit,) = lib.search.find('"Café in Paris"').hits
    assert [hit.snippet[s:e] for s, e in hit.snippet_spans] == ["Café", "in", "Paris"]


def test_matches_past_32768_characters_are_highlighted(lib, tmp_path):
    from paperdesk.core.search.index import match_spans

    long_text = "filler words here. " * 2000 + "The rare axolotl appears at the end."
    lib.imports.run([write_daily(tmp_path / "long.txt", [long_text])])
    (hit,) = lib.search.find("axolotl").hits
    assert "axolotl" in hit.snippet
    abstract = lib.papers.get(hit.id).abstract
    plan = lib.index.whoosh.plan("axolotl")
    spans = match_spans(abstract, lib.index.whoosh.match_terms(plan))
    assert len(spans) == 1 and spans[0][0] > 32768
    assert abstract[spans[0][0]:spans[0][1]] == "axolotl"


def test_saved_searches(lib):
    assert lib.saved_searches.save("Code links", "has:code").saved_searches
    saved = lib.saved_searches.get("code links")
    assert [s.name for s in lib.saved_searches.all()] == ["Code links"]
    lib.saved_searches.save("code LINKS", "has:code depth")  # same name: replaced
    assert [(s.name, s.query) for s in lib.saved_searches.all()] == [("code LINKS", "has:code depth")]
    lib.saved_searches.save("Other", "universe")
    with pytest.raises(Exception, match="already exists"):
        lib.saved_searches.rename("Other", "code links")
    assert lib.saved_searches.rename("Other", "Space").saved_searches
    assert lib.saved_searches.get("space").name == "Space"
    gone = lib.saved_searches.get("space")
    lib.saved_searches.delete("space")
    assert gone.query == "universe" and saved.id
    lib.undo()
    assert lib.saved_searches.get("space").query == "universe"
    lib.undo()
    assert lib.saved_searches.get("other").name == "Other"
    lib.redo()
    lib.redo()
    assert [s.name for s in lib.saved_searches.all()] == ["code LINKS"]
    with pytest.raises(Exception, match="too long to save"):
        lib.saved_searches.save("huge", "x" * 5000)
    rows = lib.db.execute("SELECT name, query FROM saved_searches").fetchall()
    assert rows == [("code LINKS", "has:code depth")]


def test_saved_search_names_fold_case_beyond_ascii(lib):
    lib.saved_searches.save("Straße", "depth")
    lib.saved_searches.save("STRASSE", "width")
    assert [(s.name, s.query) for s in lib.saved_searches.all()] == [("STRASSE", "width")]
    assert lib.saved_searches.get("strasse").query == "width"


def test_a_prefix_is_matched_as_typed_not_as_its_stem(tmp_path, seeded_library):
    """``res*`` finds research and results, not "reduce" or "re-run": Whoosh stemmed the
    prefix to ``re`` (a tester's finding). A prefix that is a whole word also finds the
    word's other forms (``studies*`` finds "study", ``learning*`` finds "learned")."""
    texts = ["Our research on graphene resistors reports results.",
             "We reduce the cost of the retrieval step.",
             "This study of sensor drift is a case study.",
             "The parameters are learned end to end.",
             "Learning rates decay during training."]
    seeded_library.imports.run([write_daily(tmp_path / "prefix.txt", texts, header="P")])

    def found(query):
        return {a for a in only(seeded_library, query) if a in texts}

    assert found("res*") == {texts[0]}
    assert found("resist*") == {texts[0]}
    assert found("studies*") == {texts[2]}
    assert found("learning*") == {texts[3], texts[4]}
    assert found("learn*") == {texts[3], texts[4]}
    assert found("title:res* OR abstract:reduc*") == {texts[0], texts[1]}


def test_a_prefix_refused_in_one_field_is_refused_in_all(monkeypatch, seeded_library):
    """``b*`` matched too many words of the abstracts but few enough of the titles: the
    note said it was refused and the titles' matches were listed anyway (a tester's
    finding); refused, it finds nothing, in any field."""
    from paperdesk.core.search import query

    lib = seeded_library
    cases = 0
    for limit in (10, 20, 40, 80, 160, 320):
        monkeypatch.setattr(query, "MAX_EXPANSIONS", limit)
        for letter in "bcdmps":
            in_titles = lib.search.find(f"title:{letter}*", limit=None)
            everywhere = lib.search.find(f"{letter}*", limit=None)
            if in_titles.total and not in_titles.message and everywhere.message:
                cases += 1
                assert "type more letters" in everywhere.message
                assert everywhere.total == 0, (limit, letter)
    assert cases       # the seeds have such a letter and limit
    monkeypatch.setattr(query, "MAX_EXPANSIONS", 30)
    results = lib.search.find("depth estimat* s*", limit=None)
    assert "“s*” matches too many words" in results.message
    assert results.total == lib.search.find("depth estimat*", limit=None).total > 0


# --- a fresh-user tester's findings (session 12) -------------------------------------

def test_repeated_trailing_stars_are_one(lib):
    """``res**`` is ``res*``: not "a word cannot start with *"."""
    once, twice = lib.search.find("stud*", limit=None), lib.search.find("stud**", limit=None)
    assert "cannot start with" not in twice.message, twice.message
    assert twice.message == once.message
    assert [h.id for h in twice.hits] == [h.id for h in once.hits] and once.hits
    assert lib.search.find("stud***").total == once.total


def test_a_star_inside_quotes_is_said_not_to_be_a_wildcard(lib):
    """``"case stud*"`` found nothing and said nothing: a phrase is literal (as in
    JabRef's and Zotero's searches), and the note says so and how to get the prefix."""
    results = lib.search.find('"case stud*"')
    assert results.message == ('a * inside quotes is not a wildcard: “"case stud*"” is '
                               'searched as the words written; without the quotes, stud* '
                               'finds the words starting with “stud”'), results.message
    assert lib.search.find('"case study"').message == ""       # a plain phrase: no note
    assert lib.search.find('"what is this?"').message == ""    # ? ends a question


def test_the_whole_word_typed_before_the_star_ranks_above_its_expansions(empty_library,
                                                                         tmp_path):
    """``café*`` ranked a short paper with "cafeteria" (twice) above the paper with
    "café": the word typed whole counts at least as much as its longer expansions."""
    lib = empty_library
    cafe = ("A Café in Paris serves as a case study for small-business resilience "
            "during the pandemic and after it.")
    cafeteria = "The cafeteria: a cafeteria study."
    lib.imports.run([write_daily(tmp_path / "cafe.txt", [cafe, cafeteria])])
    for query in ("café*", "cafe*", "Café*"):
        assert only(lib, query) == [cafe, cafeteria], query
    assert only(lib, "cafeteria*") == [cafeteria]
