"""Property-based tests (Hypothesis, issue 14 "Deliver" 5): generated text, names,
queries and bytes that are not UTF-8 thrown at the Daily Papers parser, the importers,
the query parser, tag names, notes and every exporter.

What must hold for any input: the documented error (one line) or a result, never another
exception; what is stored reads back as given; what is exported reads back (with
bibtexparser, rispy, json and paperdesk's own importers) with the same fields.

Examples are bounded and derandomized (``PROFILE``) so ``make test`` stays quick and
gives the same examples on every run; each bug these found has its own regression test
under "Found by Hypothesis" at the end of this file.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import json
import re

import bibtexparser
import pytest
import rispy
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from helpers import write_daily
from paperdesk.core.edits.annotations import validate_tag_name
from paperdesk.core.exports.formats import FORMATS, export_chunks, neutralise_cell
from paperdesk.core.imports.bibtex import read_bibtex
from paperdesk.core.imports.csl_json import read_csl_json
from paperdesk.core.imports.markup import has_markup
from paperdesk.core.imports.daily_papers import ParseError, parse_decoded, parse_text
from paperdesk.core.imports.paperdesk_json import read_export
from paperdesk.core.imports.ris import read_ris
from paperdesk.core.library import Library
from paperdesk.core.models import Author, LibraryError, Metadata
from paperdesk.core.text import normalize

#: Bounded, reproducible examples: the same on every run, no deadline (the machine is
#: shared), no example database written into the worktree.
PROFILE = dict(max_examples=60, deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.too_slow,
                                      HealthCheck.function_scoped_fixture])

#: Any text without lone surrogates (what a file decoded with errors="replace", the
#: GUI or a cleaned command-line argument can hold), control characters included.
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=120)
#: Text that looks like prose, with the characters BibTeX, RIS, CSV and Markdown treat
#: specially mixed in.
_PIECES = ["alpha", "Beta", "μ", "é", "{", "}", "\\", "%", "$", "&", "#", "_", "~", "^",
           '"', "'", ",", ";", "=", "+", "-", "@", "*", "`", "<b>", "\t", "\n", "\r\n",
           "  ", " ", "ER  - ", "TY  - ", "@article{", "\u202e", "\u00a0", "\x00", "\x1b",
           "https://example.org/a_b", "10.1000/xyz", "\ufeff", "∑", "😀"]
prose = st.lists(st.one_of(st.sampled_from(_PIECES), any_text.map(lambda t: t[:12])),
                 max_size=25).map(" ".join)
#: Bytes that are mostly text with bytes that are not UTF-8 in them.
mixed_bytes = st.lists(st.one_of(st.binary(max_size=8),
                                 prose.map(lambda t: t.encode("utf-8"))),
                       max_size=12).map(b"".join)


def one_line(message: str) -> bool:
    """A user-facing message: one line, no traceback."""
    return "\n" not in message and "Traceback" not in message and message.strip() != ""


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """One library for the module (examples add to it): three papers to edit."""
    folder = tmp_path_factory.mktemp("properties")
    source = write_daily(folder / "seed.txt", [
        "We study alpha particles in thin films and report their decay rates.",
        "A second abstract about beta waves and the alpha rhythm in sleep.",
        "Third: gamma rays, observed over many nights with a small telescope."])
    library = Library.open(folder / "lib")
    library.imports.run([source])
    yield library
    library.close()


# -- the Daily Papers text parser ----------------------------------------------------------
_single_line = any_text.map(lambda t: "".join(c for c in t if c not in "\r\n"))


@settings(**PROFILE)
@given(st.lists(_single_line, min_size=1, max_size=6))
def test_daily_papers_text_round_trips(abstracts):
    text = "Daily Papers\n\n" + "\n\n".join(abstracts) + "\n"
    header, parsed = parse_text(text)
    assert header == "Daily Papers"
    assert parsed == [a for a in (normalize(x) for x in abstracts) if a]


@settings(**PROFILE)
@given(any_text | prose)
def test_parse_decoded_gives_papers_or_a_parse_error(text):
    try:
        parsed = parse_decoded("/tmp/any.txt", text, "utf-8")
    except ParseError as exc:
        assert one_line(str(exc))
        return
    assert parsed.abstracts and all(a.abstract for a in parsed.abstracts)
    assert all(one_line(w) for w in parsed.warnings)


@settings(**{**PROFILE, "max_examples": 50})
@given(mixed_bytes, st.sampled_from([".txt", ".bib", ".ris", ".json", ".tex", ".md", ""]))
def test_any_bytes_import_as_papers_or_one_line_errors(lib, tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("bytes") / f"file{suffix}"
    path.write_bytes(data)
    before = set(lib.papers.ids())
    report = lib.imports.run([path])
    event(f"bytes: {'refused' if report.rejected else 'read'}")
    for rejected in report.rejected:
        assert one_line(rejected["reason"]), rejected
    for f in report.files:
        assert all(one_line(w) for w in f.warnings)
    for pid in set(lib.papers.ids()) - before:
        paper = lib.papers.get(pid)
        for text in (paper.title, paper.abstract, paper.sources[0].header):
            text.encode("utf-8")           # no lone surrogates reach the library


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.floats(allow_nan=False)
    | any_text.map(lambda t: t[:20]) | st.sampled_from(["#ff0000", "to read", "a,b", ""]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["name", "colour", "key", "start", "end", "text",
                                       "path", "position", "family", "given"]), inner,
                      max_size=4),
    max_leaves=8)


def _objects(**keys):
    """JSON objects with some of ``keys`` (each value from its strategy), or any value."""
    return st.fixed_dictionaries({}, optional=keys) | json_values


_tag_items = _objects(name=json_values | st.deferred(lambda: tag_names), colour=json_values, key=json_values)
_highlight_items = _objects(start=json_values, end=json_values, text=json_values,
                            colour=json_values, comment=json_values)
_source_items = _objects(path=json_values, name=json_values, header=json_values,
                         position=json_values)
_author_items = _objects(family=json_values, given=json_values)
export_items = st.fixed_dictionaries({}, optional={
    "title": json_values, "abstract": json_values, "note": json_values,
    "tags": st.lists(_tag_items, max_size=3) | json_values,
    "highlights": st.lists(_highlight_items, max_size=2) | json_values,
    "sources": st.lists(_source_items, max_size=2) | json_values,
    "authors": st.lists(_author_items, max_size=2) | json_values,
    "read_at": json_values, "added_at": json_values, "starred": json_values,
    "date": json_values, "doi": json_values, "citation_key": json_values,
    "venue": json_values})


@settings(**{**PROFILE, "max_examples": 80})
@given(st.lists(export_items, min_size=1, max_size=3), st.sampled_from([1, 2]))
def test_any_json_export_imports_whole_or_is_refused_in_one_line(lib, tmp_path_factory,
                                                                 items, version):
    for item in items:    # most get an abstract, so the shapes of the rest are read
        item.setdefault("abstract", "We study alpha particles in thin films again.")
    doc = {"format": "paperdesk-export", "version": version, "papers": items}
    path = tmp_path_factory.mktemp("json") / "export.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    before = lib.papers.count()
    report = lib.imports.run([path])
    event("refused" if report.rejected else f"stored (added {report.added > 0})")
    for rejected in report.rejected:
        assert one_line(rejected["reason"]), rejected
    if report.rejected:
        assert lib.papers.count() == before          # nothing half-imported


# -- the query parser ------------------------------------------------------------------------
_QUERY_PIECES = ["alpha", "AND", "OR", "NOT", "-", "(", ")", '"', "*", "~", "~2", ":",
                 "title:", "tag:", "year:", "2020..2024", "..", "is:read", "has:note",
                 "author:", "doi:", "10.1/x", "source:", "\\", "^", "[", "]", "{", "}",
                 "'", "/", "TO", "🙂", "\x00"]
queries = st.one_of(
    any_text,
    st.lists(st.sampled_from(_QUERY_PIECES) | any_text.map(lambda t: t[:6]),
             max_size=12).map(lambda parts: " ".join(parts)),
    st.lists(st.sampled_from(_QUERY_PIECES), max_size=12).map("".join),
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", "surrogateescape")))


@settings(**{**PROFILE, "max_examples": 100})
@given(queries)
# found by Hypothesis: a lone surrogate (a non-UTF-8 argument) reached Whoosh's encoder
@example("\udc80~")
@example("a\udc80b*")
def test_any_query_gives_results_or_a_one_line_message(lib, query):
    results = lib.search.find(query)
    assert results.total == len(results.ids) >= len(results.hits)
    assert results.message is None or results.message == "" or one_line(results.message)
    ids = [h.id for h in results.hits]
    assert set(lib.search.snippets(query, ids)) == set(ids)
    lib.search.match_terms(query)


# -- tag names -------------------------------------------------------------------------------
tag_names = st.one_of(any_text.map(lambda t: t[:70]), st.sampled_from(
    ["to read", "TO READ", "a,b", " spaced   out ", "x" * 61, "\x1b[31m", "R&D_50%",
     "Straße", "\u202eevil", "ok\u00a0name"]),
    st.binary(max_size=12).map(lambda b: b.decode("utf-8", "surrogateescape")))


@settings(**PROFILE)
@given(tag_names)
def test_tag_names_are_accepted_or_refused_in_one_line(lib, name):
    pid = lib.papers.ids()[0]
    try:
        clean = validate_tag_name(name)
    except LibraryError as exc:
        assert one_line(str(exc))
        with pytest.raises(LibraryError):
            lib.tags.add([pid], name)
        return
    clean.encode("utf-8")
    lib.tags.add([pid], name)
    tag = lib.tags.by_name(clean)
    assert tag is not None and tag.name.casefold() == clean.casefold()
    assert tag.id in {t.id for t in lib.papers.get(pid).tags}
    assert tag.name in {t.name for t in lib.tags.all()}
    lib.tags.delete(tag.id)
    assert lib.tags.by_name(clean) is None


@settings(**{**PROFILE, "max_examples": 40})
@given(queries, tag_names)
def test_cli_search_and_tag_never_print_a_traceback(lib, capsys, query, name):
    from paperdesk import cli

    folder = str(lib.path)
    pid = str(lib.papers.ids()[0])
    for argv in (["search", query], ["search", query, "--json"], ["tag", "add", name, pid],
                 ["tag", "remove", name, pid], ["note", pid, name]):
        status = cli.main(["--library", folder, *argv])
        out, err = capsys.readouterr()
        assert status in (0, 1, 2), (argv, status, err)
        assert "Traceback" not in out + err, (argv, err)
        assert status == 0 or err.strip(), argv
        if status == 1:
            assert len(err.strip().splitlines()) == 1, (argv, err)


# -- notes -----------------------------------------------------------------------------------
@settings(**PROFILE)
@given(any_text | prose)
def test_any_note_reads_back_as_typed(lib, body):
    pid = lib.papers.ids()[1]
    lib.notes.set(pid, body)
    expected = body if body.strip() else ""
    assert lib.papers.get(pid).note == expected
    assert lib.notes.get(pid) == expected
    exported = json.loads(lib.exports.text([pid], "json"))["papers"][0]
    assert (exported.get("note") or "") == expected


# -- every exporter --------------------------------------------------------------------------
_line = prose.map(lambda t: " ".join(normalize(t).split()))
authors = st.lists(st.builds(Author, family=_line.filter(bool), given=_line), max_size=3)


@st.composite
def papers(draw, lib):
    """A stored paper with generated title, abstract, note, tags, authors and venue, as
    the library could hold them (title and abstract normalised as an import does)."""
    base = lib.papers.get(lib.papers.ids()[2])
    abstract = normalize(draw(prose)) or "x"
    title = normalize(draw(_line)) or normalize(abstract[:40])
    names = []
    for name in draw(st.lists(tag_names, max_size=3)):
        try:
            names.append(validate_tag_name(name))
        except LibraryError:
            pass
    tags = tuple(dataclasses.replace(t, name=n) for t, n in
                 zip([lib.tags.all()[0]] * len(names) if lib.tags.all() else [], names))
    meta = Metadata(authors=tuple(draw(authors)), venue=draw(_line))
    return dataclasses.replace(base, title=title, abstract=abstract, note=draw(prose),
                               tags=tags, metadata=meta, highlights=())


_MARKERS = itertools.count()


def _export(paper, fmt: str) -> str:
    return "".join(export_chunks([paper], fmt))


_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _same_words(a: str, b: str, controls_as_space: bool = False) -> bool:
    """Equal up to runs of white space (and, for formats whose writer turns control
    characters into spaces, as BibTeX's does (core/exports/latex.py), up to those)."""
    if controls_as_space:
        a, b = _CONTROLS.sub(" ", a), _CONTROLS.sub(" ", b)
    return " ".join(a.split()) == " ".join(b.split())


@pytest.fixture(scope="module")
def tag_for_exports(lib):
    lib.tags.add([lib.papers.ids()[2]], "export tag")
    return lib


@settings(**PROFILE)
@given(st.data())
def test_every_format_exports_any_text(tag_for_exports, data):
    lib = tag_for_exports
    paper = data.draw(papers(lib))
    for fmt in FORMATS:
        text = _export(paper, fmt)
        text.encode("utf-8")
        assert text.strip()


@settings(**PROFILE)
@given(st.data())
def test_csv_reads_back(tag_for_exports, data):
    paper = data.draw(papers(tag_for_exports))
    text = _export(paper, "csv")
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text[1:], newline="")))
    assert len(rows) == 1
    row = rows[0]
    assert row["title"] == neutralise_cell(paper.title)
    assert row["abstract"] == neutralise_cell(paper.abstract)


@settings(**PROFILE)
@given(st.data())
def test_json_export_reads_back_with_paperdesks_reader(tag_for_exports, tmp_path, data):
    paper = data.draw(papers(tag_for_exports))
    text = _export(paper, "json")
    doc = read_export(tmp_path / "x.json", text=text)
    (item,) = doc["papers"]
    assert item["title"] == paper.title and item["abstract"] == paper.abstract
    assert (item.get("note") or "") == paper.note
    assert sorted(t["name"] for t in item.get("tags") or []) == sorted(
        t.name for t in paper.tags)


@settings(**{**PROFILE, "max_examples": 40})
@given(st.data())
def test_json_export_imports_back_with_the_same_fields(tag_for_exports, tmp_path, data):
    lib = tag_for_exports
    paper = data.draw(papers(lib))
    marker = f"Unique marker {next(_MARKERS)} "    # a new paper in every example
    paper = dataclasses.replace(paper, abstract=marker + paper.abstract)
    path = tmp_path / "one.json"
    path.write_text(_export(paper, "json"), encoding="utf-8")
    report = lib.imports.run([path])
    assert report.rejected == [], report.rejected
    event(f"added {report.added}")
    if report.added == 0:      # the same paper was imported by an earlier example
        return
    (pid,) = report.added_ids
    got = lib.papers.get(pid)
    assert got.title == paper.title
    assert got.note == (paper.note if paper.note.strip() else "")
    assert {t.name.casefold() for t in got.tags} == {t.name.casefold() for t in paper.tags}
    assert [(a.family, a.given) for a in got.metadata.authors] == [
        (a.family, a.given) for a in paper.metadata.authors]
    assert got.metadata.venue == paper.metadata.venue


@settings(**PROFILE)
@given(st.data())
def test_csl_json_reads_back(tag_for_exports, data):
    paper = data.draw(papers(tag_for_exports))
    text = _export(paper, "csl-json")
    (item,) = json.loads(text)
    # CSL-JSON titles and abstracts are rich text (CSL 1.0.2 "Rich Text Markup Within
    # Fields"; the spec has no escape): a literal "<b>" in them is markup there, so
    # paperdesk's reader drops it, as citeproc would format it.
    assume(not has_markup(paper.title) and not has_markup(paper.abstract))
    assert item["title"] == paper.title and item["abstract"] == paper.abstract
    out = read_csl_json("<stdin>", text, "utf-8")
    (record,) = out.records
    assert (record.title, record.abstract) == (paper.title, paper.abstract)
    assert [a.family for a in record.metadata.authors] == [
        a.family for a in paper.metadata.authors]


@settings(**PROFILE)
@given(st.data())
def test_ris_reads_back(tag_for_exports, data):
    paper = data.draw(papers(tag_for_exports))
    text = _export(paper, "ris")
    # A brace without a partner is written full-width (core/exports/ris.py, for JabRef).
    wide = str.maketrans({"\uff5b": "{", "\uff5d": "}"})
    # paperdesk's RIS reader removes the markup Zotero copies into RIS (JATS, CSL rich
    # text: core/imports/markup.py); RIS has no escape for a literal "<b>".
    assume(not has_markup(paper.title) and not has_markup(paper.abstract))
    title, abstract = paper.title.translate(wide), paper.abstract.translate(wide)
    (record,) = rispy.loads(text)
    assert _same_words(record["abstract"].translate(wide), abstract)
    assert _same_words((record.get("title") or record.get("primary_title")).translate(wide),
                       title)
    out = read_ris("<stdin>", text, "utf-8")
    (ours,) = out.records
    assert _same_words(ours.title.translate(wide), title)
    assert _same_words(ours.abstract.translate(wide), abstract)


@settings(**PROFILE)
@given(st.data())
def test_bibtex_reads_back(tag_for_exports, data):
    paper = data.draw(papers(tag_for_exports))
    text = _export(paper, "bibtex")
    parsed = bibtexparser.parse_string(text)
    assert parsed.failed_blocks == [] and len(parsed.entries) == 1
    assert sum(c == "{" for c in re.sub(r"\\[{}]", "", text)) == sum(
        c == "}" for c in re.sub(r"\\[{}]", "", text))
    out = read_bibtex("<stdin>", text, "utf-8")
    (ours,) = out.records
    assert _same_words(ours.title, paper.title, True), (ours.title, paper.title)
    assert _same_words(ours.abstract, paper.abstract, True), (ours.abstract, paper.abstract)


@settings(**PROFILE)
@given(st.data())
def test_markdown_export_of_any_text(tag_for_exports, data):
    paper = data.draw(papers(tag_for_exports))
    text = _export(paper, "markdown")
    assert text.startswith("#") or text.lstrip().startswith("#")


# -- found by Hypothesis -----------------------------------------------------------------------
def test_edits_after_random_seed_keep_the_index_whole(tmp_path):
    """Hypothesis seeds the global ``random`` before each example; Whoosh drew segment
    ids from it, so the second edit's segment took the first one's name and the write
    failed an assertion (and cancelling a writer could remove a live segment's files)."""
    import random

    from paperdesk.core.search import index as index_module

    source = write_daily(tmp_path / "two.txt", ["First abstract on alpha waves here.",
                                                "Second abstract on beta decay here."])
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([source])
        first, second = lib.papers.ids()
        for n, pid in enumerate([first, second, first, second] * 3):
            random.seed(0)
            lib.notes.set(pid, f"note {n} about gamma{n}")
        random.seed(0)
        index_module.whoosh_batch(lib.index.whoosh._ix, [], [], [])   # Whoosh's own writer
        assert len(lib.search.find("gamma10").hits) == 1
        assert {h.id for h in lib.search.find("abstract").hits} == {first, second}


def test_lone_surrogates_are_stored_as_replacement_characters(lib):
    """A lone surrogate (from a JSON "\\udc80" escape, or a caller's surrogateescape
    text) passed the tag-name check and then failed in SQLite with UnicodeEncodeError."""
    pid = lib.papers.ids()[0]
    assert validate_tag_name("bad\udc80name") == "bad\ufffdname"
    lib.tags.add([pid], "bad\udc80name")
    assert "bad\ufffdname" in {t.name for t in lib.papers.get(pid).tags}
    lib.notes.set(pid, "note \ud800 here")
    assert lib.notes.get(pid) == "note \ufffd here"
    lib.papers.set_title(pid, "Title \udcff")
    assert lib.papers.get(pid).title == "Title \ufffd"
    lib.saved_searches.save("search \udc80", "alpha \udc80")
    assert "search \ufffd" in {s.name for s in lib.saved_searches.all()}


def test_json_surrogate_escapes_import_as_replacement_characters(tmp_path):
    """CSL-JSON (and paperdesk JSON) may escape lone surrogates; the import stopped with
    a UnicodeEncodeError traceback."""
    csl = tmp_path / "items.json"
    csl.write_text('[{"id": "k1", "type": "article", "title": "Ti\\udc80tle", '
                   '"abstract": "An abstract about alpha\\ud800 particles in films."}]',
                   encoding="utf-8")
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"format": "paperdesk-export", "version": 2, "papers": [
        {"title": "T\udc80", "abstract": "We study beta\udc80 decay in thin films today.",
         "tags": [{"name": "t\udc80", "colour": "#ff0000"}], "note": "n\udc80"}]}),
        encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([csl, export])
        assert report.rejected == [] and report.added == 2
        papers = {lib.papers.get(i).title: lib.papers.get(i) for i in lib.papers.ids()}
        assert papers["Ti\ufffdtle"].abstract == "An abstract about alpha\ufffd particles in films."
        assert [t.name for t in papers["T\ufffd"].tags] == ["t\ufffd"]
        assert papers["T\ufffd"].note == "n\ufffd"


@pytest.mark.parametrize("bad, reason", [
    ({"tags": ["to read"]}, "paper 2: tag 1 is not an object"),
    ({"tags": [{"name": "a,b"}]}, "paper 2: tag 1: tag name cannot contain a comma"),
    ({"tags": [{"name": "x", "colour": "red"}]}, "paper 2: tag 1: not a colour"),
    ({"tags": [{"name": "x", "key": "3"}]}, "paper 2: tag 1: key must be a number"),
    ({"highlights": [{"start": "a", "end": 3}]}, "paper 2: highlight 1: start and end"),
    ({"sources": "seed.txt"}, "paper 2: sources is not a list"),
    ({"sources": [{"name": "a.txt", "position": "one"}]}, "paper 2: source 1: position"),
    ({"read_at": ["2024"]}, "paper 2: read_at is not text"),
])
def test_json_export_of_the_wrong_shape_is_refused_before_anything_is_stored(
        tmp_path, bad, reason):
    """Found by the JSON-shape property: ``"tags": ["x"]`` stopped the import with an
    AttributeError traceback (other shapes with ValueError or sqlite3 errors), and a
    later batch could fail after earlier ones were committed."""
    good = {"title": "Fine", "abstract": "A first abstract that is perfectly fine here.",
            "tags": [{"name": "kept", "colour": "#ff0000"}]}
    item = {"abstract": "A second abstract, with a part of the wrong shape.", **bad}
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"format": "paperdesk-export", "version": 2,
                                "papers": [good, item]}), encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        (rejected,) = report.rejected
        assert rejected["reason"].startswith(reason) and one_line(rejected["reason"])
        assert lib.papers.count() == 0 and lib.tags.all() == []
