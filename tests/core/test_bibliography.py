"""Formatted bibliographies (issue 33): papers -> references in a CSL style through pandoc's
citeproc, on the seed library and real files; the CLI's ``export --format bibliography``,
``--list-styles`` and its bad input; agreement with citeproc-js (Zotero's processor)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core.exports.bibliography import format_bibliography, format_citation
from paperdesk.core.exports.bibliography_export import bibliography_items, title_for_style
from paperdesk.core.exports.csl_styles import (StyleError, check_locale, load_style,
                                               shipped_styles)
from paperdesk.core.exports.csl_title_case import (CSL_STOP_WORDS, LOWER_CASE_WORDS,
                                                   StyleTitleCase, capitalise_last_word,
                                                   keep_lower_case,
                                                   title_case_marks_are_neutral)
from paperdesk.core.library import Library

from clients import NODE_MODULES, ROOT, program, run

REALWORLD = ROOT.parent / "shared" / "realworld"
RIS = REALWORLD / "rispy_example_full.ris"
BIB = REALWORLD / "jabref_testjabref.bib"


@pytest.fixture
def real_library(seeded_library) -> Library:
    """The seed library plus two real-world files with authors, years and venues."""
    if not RIS.is_file() or not BIB.is_file():
        pytest.skip(f"the real-world files are not in {REALWORLD}")
    seeded_library.imports.run([RIS, BIB])
    return seeded_library


def _with_metadata(lib: Library) -> list:
    papers = [lib.papers.get(i) for i in lib.papers.ids()]
    return [p for p in papers if p.authors and p.metadata.date]


def _entries(text: str) -> list[str]:
    return [" ".join(e.split()) for e in text.strip().split("\n\n")]


def _main(lib: Library, *args: str) -> int:
    return main(["--library", str(lib.path), *args])


# -- the core ------------------------------------------------------------------------------
def test_apa_sorts_by_author_and_writes_names_year_and_title(real_library):
    papers = _with_metadata(real_library)[:40]
    assert len(papers) >= 10
    text = format_bibliography(bibliography_items(papers), load_style("apa"), output="text")
    entries = _entries(text)
    assert len(entries) == len(papers)
    for paper in papers:
        year = paper.metadata.date[:4]
        family = paper.authors[0].family
        found = [e for e in entries if e.startswith(family) and f"({year}" in e]
        assert found, (family, year)
    firsts = [e.split(",")[0].casefold() for e in entries]
    assert firsts == sorted(firsts)          # APA: alphabetical by first author


def test_ieee_numbers_the_references_in_the_order_given(real_library):
    papers = _with_metadata(real_library)[:20]
    text = format_bibliography(bibliography_items(papers), load_style("ieee"), output="text")
    entries = _entries(text)
    assert [e.split("]")[0] for e in entries] == [f"[{n}" for n in range(1, len(papers) + 1)]
    for entry, paper in zip(entries, papers):
        assert paper.title.split()[0] in entry


def test_ieee_writes_online_before_the_url_of_a_reference_without_doi(real_library):
    """CSL 1.0.2: a non-empty nested group (IEEE's "[Online]") keeps its outer group,
    although the other group in it (the access date) is empty; pandoc's citeproc dropped
    both, citeproc-js writes "[Online]. Available: URL" (core/exports/csl_groups.py)."""
    papers = [p for p in _with_metadata(real_library)
              if p.metadata.url and not p.metadata.doi and p.entry_type == "article"][:10]
    assert len(papers) >= 3
    text = format_bibliography(bibliography_items(papers), load_style("ieee"), output="text")
    entries = _entries(text)
    assert len(entries) == len(papers)
    for entry, paper in zip(entries, papers):
        assert f"[Online]. Available: {paper.metadata.url}" in entry, entry


def test_a_title_that_ends_a_sentence_is_followed_by_the_styles_comma(real_library):
    """The MEDLINE records end their titles with a period: IEEE follows a title with a
    comma inside the quotes (“Title,” Journal), not with the record's period."""
    papers = [p for p in _with_metadata(real_library)
              if p.title.endswith(".") and p.title.split()[-1][:-1].islower()]
    assert len(papers) >= 3
    text = format_bibliography(bibliography_items(papers), load_style("ieee"), output="text")
    for entry, paper in zip(_entries(text), papers):
        assert f"{paper.title[:-1]},” " in entry, entry
    assert title_for_style("Editorial.") == "Editorial"
    assert [title_for_style(t) for t in ("Made in the U.S.", "Smith & Co.", "All for one. For all.",
                                         "Boston Inc.")] == ["Made in the U.S.", "Smith & Co.",
                                                             "All for one. For all.", "Boston Inc."]


def test_a_language_written_as_iso_639_2_or_a_name_is_handed_over_as_its_code(real_library):
    """CSL title-cases English items only and wants ISO 639-1 codes: the MEDLINE record
    in the RIS file says "eng", which pandoc's citeproc took for another language (the
    title stayed in sentence case; citeproc-js title-cases it)."""
    papers = [p for p in _with_metadata(real_library) if p.metadata.value("language")]
    written = {p.metadata.value("language") for p in papers}
    assert {"eng", "English"} <= written
    items = bibliography_items(papers)
    assert {item["language"] for item in items} == {"en"}
    text = format_bibliography(items, load_style("chicago-author-date"), output="text")
    text = " ".join(text.split())
    for paper in papers:           # title case: no word of five letters or more left lower
        words = [w for w in paper.title.split()[:6] if len(w) >= 5 and w.isalpha()]
        assert words and all(w[:1].upper() + w[1:] in text for w in words), words


def test_a_paper_without_author_or_year_is_formatted_by_its_title(seeded_library):
    paper = seeded_library.papers.get(seeded_library.papers.ids()[0])
    assert not paper.authors and not paper.metadata.date
    text = format_bibliography(bibliography_items([paper]), load_style("apa"), output="text")
    words = " ".join(paper.title.split()[:6])
    assert " ".join(text.split()).startswith(words)
    assert "(n.d.)" in text
    german = format_bibliography(bibliography_items([paper]), load_style("apa"),
                                 locale="de", output="text")
    assert re.search(r"\(o\.\s?J\.\)", german) and "n.d." not in german   # the locale's term


def test_html_keeps_italics_and_the_hanging_indent(real_library):
    papers = _with_metadata(real_library)[:5]
    out = format_bibliography(bibliography_items(papers), load_style("apa"), output="html")
    assert out.count('class="csl-entry"') == 5
    assert out.count("margin-left: 0.5in; text-indent: -0.5in") == 5 and "<em>" in out


def test_citation_names_the_authors_and_years(real_library):
    papers = _with_metadata(real_library)[:2]
    cite = format_citation(bibliography_items(papers), load_style("apa"))
    assert cite.startswith("(") and cite.endswith(")")
    for paper in papers:
        assert paper.authors[0].family in cite and paper.metadata.date[:4] in cite
    assert format_citation(bibliography_items(papers), load_style("ieee")) == "[1], [2]"


def test_shipped_styles_and_the_vancouver_alias():
    ids = dict(shipped_styles())
    for style_id in ("apa", "ieee", "chicago-author-date", "nature", "vancouver"):
        assert style_id in ids
        assert load_style(style_id).path.is_file()
    assert load_style("vancouver").path.name == "nlm-citation-sequence.csl"
    assert load_style("nature").default_locale == "en-GB"


def test_a_users_csl_file_is_used(real_library, tmp_path):
    own = tmp_path / "years-first.csl"
    own.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0">'
        "<info><title>Years first</title><id>years-first</id>"
        "<updated>2026-01-01T00:00:00+00:00</updated></info>"
        '<citation><layout><text variable="title"/></layout></citation>'
        '<bibliography><sort><key variable="issued"/></sort><layout>'
        '<date variable="issued" prefix="&lt;&lt;" suffix="&gt;&gt; "><date-part name="year"/></date>'
        '<text variable="title" text-case="uppercase"/></layout></bibliography></style>',
        encoding="utf-8")
    papers = _with_metadata(real_library)[:6]
    style = load_style(str(own))
    assert style.title == "Years first"
    entries = _entries(format_bibliography(bibliography_items(papers), style, output="text"))
    years = [int(e[2:6]) for e in entries]
    assert years == sorted(years)
    assert all(e[8:] == e[8:].upper() for e in entries)


def test_bad_styles_and_locales_are_one_line(tmp_path):
    not_csl = tmp_path / "page.csl"
    not_csl.write_text("<html><body>a web page</body></html>", encoding="utf-8")
    not_xml = tmp_path / "refs.csl"
    not_xml.write_text("@article{a, title={T}}", encoding="utf-8")
    cases = {str(not_csl): "page.csl is not a CSL style: its root element is <html>",
             str(not_xml): "refs.csl is not a CSL style: not XML",
             "apa-8th": "unknown style 'apa-8th'",
             str(tmp_path / "gone.csl"): "no style file"}
    for style, message in cases.items():
        with pytest.raises(StyleError, match=re.escape(message)) as caught:
            load_style(style)
        assert "\n" not in str(caught.value)
    with pytest.raises(StyleError, match="unknown locale 'xx-YY'"):
        check_locale("xx-YY")
    assert check_locale("de") == "de-DE" and check_locale("en_gb") == "en-GB"


# -- the command line ------------------------------------------------------------------------
def test_cli_writes_a_bibliography_of_a_tag_with_notes(real_library, tmp_path, capsys):
    papers = _with_metadata(real_library)[:3]
    real_library.tags.add([p.id for p in papers], "reading")
    real_library.notes.set(papers[0].id, "Read the methods first")
    out = tmp_path / "refs.txt"
    assert _main(real_library, "export", "--tag", "reading", "--format", "bibliography",
                 "--style", "chicago-author-date", "--as", "text", "--with-notes",
                 "-o", str(out)) == 0
    text = out.read_text(encoding="utf-8")
    tag_lines = [line for line in text.splitlines() if line.startswith("Tags: ")]
    # each entry's tags line (the real files' keywords are tags too, by name order)
    assert len(tag_lines) == 3 and all("reading" in line.split(": ", 1)[1].split(", ")
                                       for line in tag_lines)
    entry = next(e for e in _entries(text) if e.startswith(papers[0].authors[0].family))
    blocks = _entries(text)
    assert blocks[blocks.index(entry) + 2] == "Read the methods first"


def test_cli_html_to_stdout_and_list_styles(real_library, capsys):
    assert _main(real_library, "export", "--all", "--format", "bibliography") == 0
    out, err = capsys.readouterr()
    assert out.startswith("<!DOCTYPE html>") and out.count('class="csl-entry"') == len(
        real_library.papers.ids())
    # the sample papers have no authors: said on stderr, as with -o
    assert err.startswith("paperdesk: note: ") and " have no author or no year" in err
    assert main(["export", "--list-styles"]) == 0
    listed = dict(line.split("\t") for line in capsys.readouterr().out.splitlines())
    assert listed["apa"] == "APA Style 7th edition" and len(listed) > 1000


@pytest.mark.parametrize("args, message", [
    (["--style", "no-such-style"], "unknown style 'no-such-style'"),
    (["--locale", "xx"], "unknown locale 'xx'"),
    (["--style", "NOTCSL"], "is not a CSL style"),
])
def test_cli_bad_input_is_one_line_and_keeps_the_old_file(real_library, tmp_path, capsys,
                                                          args, message):
    (tmp_path / "not.csl").write_text("{}", encoding="utf-8")
    args = [str(tmp_path / "not.csl") if a == "NOTCSL" else a for a in args]
    out = tmp_path / "refs.html"
    out.write_text("the good old bibliography", encoding="utf-8")
    assert _main(real_library, "export", "--all", "--format", "bibliography", *args,
                 "-o", str(out)) == 1
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out.read_text(encoding="utf-8") == "the good old bibliography"


# -- agreement with citeproc-js (Zotero's processor) -------------------------------------------
def _normalise(entry: str) -> str:
    text = re.sub(r"<[^>]+>", "", re.sub(r"</?div[^>]*>", " ", entry))
    return " ".join(html.unescape(text).split())


def _both(items: list[dict], style_id: str) -> tuple[list[str], list[str]]:
    """``(pandoc's entries as paperdesk formats them, citeproc-js's entries)`` of ``items``
    in ``style_id``, normalised (tags removed, white space runs made one space); skips
    without node, citeproc-js or citeproc-py (whose locale files both get)."""
    node = program("node")
    if not (NODE_MODULES / "citeproc").is_dir():
        pytest.skip(f"citeproc-js is not installed in {NODE_MODULES}; `make clients`")
    citeproc = pytest.importorskip("citeproc")
    style = load_style(style_id)
    lang = style.default_locale or "en-US"
    locale = (Path(citeproc.__file__).parent / "data" / "locales" / f"locales-{lang}.xml")
    done = run([node, str(ROOT / "tools" / "citeproc_js.js")],
               stdin=json.dumps({"style": style.path.read_text(encoding="utf-8"),
                                 "locale": locale.read_text(encoding="utf-8"),
                                 "lang": lang, "items": items}),
               env={"NODE_PATH": str(NODE_MODULES)})
    assert done.returncode == 0, done.stderr[-2000:]
    reference = json.loads(done.stdout)["entries"]
    ours = re.split(r'<div id="ref-[^"]*" class="csl-entry"[^>]*>',
                    format_bibliography(items, style, output="html"))[1:]
    assert len(ours) == len(reference) == len(items)
    return [_normalise(e) for e in ours], [_normalise(e) for e in reference]


#: The least share of entries that agree, per style, on this library (the sample papers plus
#: two real files, 383 references; docs/bibliography.md has the causes), as measured:
#: APA 369, IEEE 370, Chicago author-date 365 (it was 323 before the title case kept
#: citeproc-js's prepositions lower case and capitalised a last stop word:
#: core/exports/csl_title_case.py). Of Chicago's 18 that differ, 7 are pandoc's "et al."
#: for a truncated author list (the literal name "others", which citeproc-js writes as a
#: name: "and others").
AGREEMENT = {"apa": 0.963, "ieee": 0.966, "chicago-author-date": 0.953}


@pytest.mark.parametrize("style_id", sorted(AGREEMENT))
def test_pandoc_agrees_with_citeproc_js(real_library, style_id):
    items = bibliography_items(real_library.papers.get(i) for i in real_library.papers.ids())
    ours, reference = _both(items, style_id)
    same = sum(a == b for a, b in zip(ours, reference))
    assert same / len(items) >= AGREEMENT[style_id], f"{same} of {len(items)}"


@pytest.mark.parametrize("style_id", ["apa", "chicago-author-date"])
def test_names_are_expanded_only_where_references_could_be_confused(real_library, style_id):
    """The fast path (the style without name expansions, then the references that share
    first author and year with the style as it is) writes what the style as it is does."""
    from paperdesk.core.exports import bibliography
    papers = [real_library.papers.get(i) for i in real_library.papers.ids()]
    items = bibliography_items(papers)
    style = load_style(style_id)
    assert bibliography._light_style(style) is not None
    assert bibliography._confusable([dict(i, id=f"r{n}") for n, i in enumerate(items)])
    fast = format_bibliography(items, style, output="html")
    key = (str(style.path), style.path.stat().st_mtime)
    bibliography._PREPARED[key] = (bibliography._style_files(style)[0], None)   # as it is
    try:
        whole = format_bibliography(items, style, output="html")
    finally:
        bibliography._PREPARED.clear()
    assert fast == whole


# -- title case: the prepositions Zotero keeps lower case --------------------------------------
_MARKED = sorted(LOWER_CASE_WORDS - CSL_STOP_WORDS)


def _inner_preposition(title: str) -> str | None:
    """A word of citeproc-js's list (not CSL's) in ``title``, in lower case, between two
    other words (not first, last or after a colon)."""
    words = title.split(" ")
    for before, word, after in zip(words, words[1:], words[2:]):
        if word in _MARKED and before.isalpha() and after.isalpha():
            return word
    return None


def test_chicago_keeps_prepositions_lower_case_as_zotero_does(seeded_library):
    """Chicago title-cases titles; CMOS 8.159 and citeproc-js keep every preposition lower
    case ("Gap between Theory"), pandoc's citeproc only CSL's stop words ("Gap Between
    Theory")."""
    papers = [seeded_library.papers.get(i) for i in seeded_library.papers.ids()]
    papers = [p for p in papers if _inner_preposition(title_for_style(p.title))]
    assert len(papers) >= 10
    text = format_bibliography(bibliography_items(papers), load_style("chicago-author-date"),
                               output="text")
    entries = _entries(text)
    assert len(entries) == len(papers)
    for paper in papers:
        word = _inner_preposition(title_for_style(paper.title))
        start = " ".join(paper.title.split()[:4]).casefold()
        entry = next(e for e in entries if start in e.casefold())
        assert f" {word} " in entry and f" {word.title()} " not in entry, (word, entry)


def test_titles_not_title_cased_stay_as_written(seeded_library):
    """The marks keep a lower-case word lower case: where a style writes the title as
    stored (APA in its bibliography, IEEE, Vancouver) or the locale is not English (no
    title case), the entry has the title exactly as before, and no mark shows in HTML."""
    papers = [seeded_library.papers.get(i) for i in seeded_library.papers.ids()]
    papers = [p for p in papers if _inner_preposition(title_for_style(p.title))][:12]
    items = bibliography_items(papers)
    for style_id, locale in (("apa", None), ("ieee", None), ("vancouver", None),
                             ("chicago-author-date", "de-DE")):
        text = " ".join(format_bibliography(items, load_style(style_id), locale=locale,
                                            output="text").split())
        for item in items:
            assert " ".join(item["title"].rstrip("…").split()) in text, (style_id, item)
        out = format_bibliography(items, load_style(style_id), locale=locale, output="html")
        assert "nocase" not in out
    assert "nocase" not in format_bibliography(items, load_style("chicago-author-date"),
                                               output="html")


def test_lower_case_marks_follow_citeproc_js_rules():
    """citeproc-js (CSL.Output.Formatters.title) capitalises the first word, the first
    after a colon, the last word and a word already capitalised stays so; only the other
    words of its list are marked."""
    mark = '<span class="nocase">{}</span>'.format
    assert keep_lower_case("Gap between theory and practice") == (
        f"Gap {mark('between')} theory and practice")
    for unchanged in ("Between us and them", "Models: between the lines", "What lies between",
                      "Gap Between Theory", "Proteins in vivo", "Essays on d'Alembert"):
        assert keep_lower_case(unchanged) == unchanged
    assert keep_lower_case("A trade-off between speed and size") == (
        f"A trade-{mark('off')} {mark('between')} speed and size")
    assert keep_lower_case("The transformer by Vaswani et al. (2017) is everywhere") == (
        f"The transformer by Vaswani {mark('et')} {mark('al')}. (2017) is everywhere")
    assert keep_lower_case("Why? through the looking glass") == (
        "Why? through the looking glass")


def test_marked_titles_agree_with_citeproc_js(seeded_library):
    """Titles that exercise each rule (first word, after a colon or question mark, last
    word, hyphens, "et al.", capitalised words), on seed papers: pandoc's Chicago entries
    are citeproc-js's."""
    papers = [seeded_library.papers.get(i) for i in seeded_library.papers.ids()[:8]]
    titles = ["Gap between theory and practice", "Between us and them",
              "Models: between the lines", "What lies between", "Gap Between theory",
              "A trade-off between speed and size across domains",
              "The transformer by Vaswani et al. (2017) is everywhere",
              "Why? through the looking glass, within reason"]
    items = [dict(item, title=title, language="en")
             for item, title in zip(bibliography_items(papers), titles)]
    ours, reference = _both(items, "chicago-author-date")
    assert ours == reference


def test_which_styles_get_the_marks(tmp_path):
    """Chicago and APA title-case titles (APA its short titles in citations), IEEE and
    Vancouver never; a style that writes titles in upper case gets no marks (they would
    keep words lower case)."""
    def marks(style_id: str) -> bool:
        return title_case_marks_are_neutral(load_style(style_id).path.read_text(encoding="utf-8"))
    assert marks("chicago-author-date") and marks("apa")
    assert not marks("ieee") and not marks("vancouver")
    upper = load_style("chicago-author-date").path.read_text(encoding="utf-8").replace(
        'text-case="title" variable="title"', 'text-case="uppercase" variable="title"', 1)
    assert not title_case_marks_are_neutral(upper)
    assert not title_case_marks_are_neutral("<style>not closed")


def test_chicago_capitalises_a_last_stop_word_as_csl_says(seeded_library):
    """CSL 1.0.2 and citeproc-js capitalise the last word of a title even when it is a
    stop word ("…Does Not Have A…"); pandoc's citeproc left "a…". Where the title is not
    title-cased (APA's bibliography, a German locale) it stays as stored."""
    papers = [seeded_library.papers.get(i) for i in seeded_library.papers.ids()]
    papers = [p for p in papers if p.title.endswith(" a…")]
    assert len(papers) >= 2
    items = bibliography_items(papers)
    chicago = _entries(format_bibliography(items, load_style("chicago-author-date"),
                                           output="text"))
    assert len(chicago) == len(papers) and all(" A….”" in e for e in chicago), chicago
    for style_id, locale in (("apa", None), ("chicago-author-date", "de-DE")):
        text = format_bibliography(items, load_style(style_id), locale=locale, output="text")
        assert text.count(" a…") == len(papers) and " A…" not in text


def test_the_last_word_is_capitalised_only_where_pandoc_would_not():
    assert capitalise_last_word("What it is made of") == "What it is made Of"
    assert capitalise_last_word("Does not have a…") == "Does not have A…"
    assert capitalise_last_word("Research for.") == "Research For."
    for unchanged in ("It learns a", "Gap between theory", "Ends with Of",
                      "What lies between", "Made of <span class=\"nocase\">x</span>"):
        assert capitalise_last_word(unchanged) == unchanged
    chicago = StyleTitleCase(load_style("chicago-author-date").path.read_text(encoding="utf-8"))
    assert chicago.always_title_cased({"type": "article-journal", "title": "T"})
    assert not chicago.always_title_cased({"type": "post", "title": "T"})  # sentence case
    apa = StyleTitleCase(load_style("apa").path.read_text(encoding="utf-8"))
    assert apa.marks and not apa.always_title_cased({"type": "article-journal", "title": "T"})


def test_a_style_id_in_capitals_is_found_and_a_folder_is_said_to_be_one(tmp_path):
    from paperdesk.core.exports.csl_styles import StyleError, load_style
    assert load_style("APA").id == load_style("apa").id == "apa"
    folder = tmp_path / "styles.csl"
    folder.mkdir()
    with pytest.raises(StyleError, match="is a folder, not a .csl style file"):
        load_style(str(folder))


def test_a_style_without_a_citation_or_a_bibliography_is_refused_in_one_line(tmp_path):
    from paperdesk.core.exports.csl_styles import StyleError, load_style
    head = ('<?xml version="1.0" encoding="utf-8"?>\n<style xmlns="http://purl.org/net/'
            'xbiblio/csl" class="in-text" version="1.0"><info><title>T</title><id>t</id>'
            '</info>')
    layout = '<layout><text variable="title"/></layout>'
    only_bibliography = tmp_path / "only-bibliography.csl"
    only_bibliography.write_text(f"{head}<bibliography>{layout}</bibliography></style>")
    with pytest.raises(StyleError, match=r"^only-bibliography.csl is not a valid CSL style: "
                       r"it has no <citation> element, which CSL 1.0.2 requires$"):
        load_style(str(only_bibliography))
    only_citation = tmp_path / "only-citation.csl"
    only_citation.write_text(f"{head}<citation>{layout}</citation></style>")
    with pytest.raises(StyleError, match=r"^only-citation.csl formats citations only"):
        load_style(str(only_citation))
    both = tmp_path / "both.csl"
    both.write_text(f"{head}<citation>{layout}</citation><bibliography>{layout}"
                    "</bibliography></style>")
    assert load_style(str(both)).path == both
