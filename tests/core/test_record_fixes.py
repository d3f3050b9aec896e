"""Import defects found by a tester of issue 11 (records from BibTeX, RIS, CSL-JSON,
arXiv JSON Lines and paperdesk's own JSON export), each with the input that showed it.
Fixtures are written inline here."""

from __future__ import annotations

import json

from paperdesk.core.library import Library
from paperdesk.core.models import Author, Metadata

TITLE_ONLY_BIB = """\
@article{nodoi2021,
  title = {A title-only paper without any identifier},
  author = {M{\\"u}ller, J{\\"u}rgen and Doe, Jane},
  year = {2021},
  journal = {Journal of Tests},
}
@inproceedings{withdoi2022,
  title = {A title-only paper with a DOI},
  author = {Roe, Richard},
  year = {2022},
  doi = {10.5555/title.only},
  booktitle = {Proceedings of Round Trips},
}
@misc{witharxiv,
  title = {A title-only preprint},
  author = {Poe, Edgar},
  eprint = {2301.01234},
  archiveprefix = {arXiv},
}
@article{full2020,
  title = {A paper with an abstract},
  author = {Full, Fiona},
  year = {2020},
  abstract = {We describe a paper that carries an abstract, so that the export holds both
    kinds of papers: with and without an abstract.},
}
"""


def _comparable(paper) -> dict:
    d = paper.to_dict()
    d.pop("id")
    d["tags"] = sorted((t.name, t.colour, t.key) for t in paper.tags)
    d["highlights"] = [(h["start"], h["end"], h["colour"], h["comment"], h["text"])
                       for h in d["highlights"]]
    d["sources"] = sorted((s["name"], s["path"], s["position"]) for s in d["sources"])
    return d


def test_json_export_of_papers_without_abstract_round_trips(tmp_path):
    bib = tmp_path / "titles.bib"
    bib.write_text(TITLE_ONLY_BIB, encoding="utf-8")
    out = tmp_path / "export.json"
    with Library.open(tmp_path / "one") as lib:
        report = lib.imports.run([bib])
        assert report.rejected == [] and report.added == 4
        ids = lib.papers.ids()
        no_abstract = [p for p in ids if not lib.papers.get(p).abstract]
        assert len(no_abstract) == 3
        lib.tags.add(ids, "reading")
        lib.tags.add(no_abstract[:1], "später")
        lib.notes.set(no_abstract[0], "A note on a paper *without* abstract.")
        lib.papers.set_starred(no_abstract[1:2], True)
        lib.papers.set_read(no_abstract[2:], True)
        full = next(p for p in ids if lib.papers.get(p).abstract)
        lib.notes.add_highlight(full, 3, 12)
        lib.notes.set(full, "The one with an abstract.")
        before = {lib.papers.get(p).title: _comparable(lib.papers.get(p)) for p in ids}
        lib.exports.to_file(ids, "json", out)

    with Library.open(tmp_path / "two") as copy:
        report = copy.imports.run([out])
        assert report.rejected == [], report.rejected
        assert report.added == 4 and report.files[0].without_abstract == 3
        after = {copy.papers.get(p).title: _comparable(copy.papers.get(p)) for p in copy.papers.ids()}
        assert after == before
        # the same export again finds every paper: nothing added, nothing changed
        again = copy.imports.run([out])
        assert again.added == 0 and again.duplicates == 4 and again.enriched == 0
        assert len(copy.papers.ids()) == 4
        # papers that gain nothing but tags count as enriched
        copy.tags.remove(copy.papers.ids(), "reading")
        third = copy.imports.run([out])
        assert third.added == 0 and third.enriched == 4 and third.duplicates == 0
        assert all("reading" in [t.name for t in copy.papers.get(p).tags]
                   for p in copy.papers.ids())


def test_json_export_paper_without_abstract_matches_after_its_doi_was_edited(tmp_path):
    bib = tmp_path / "titles.bib"
    bib.write_text(TITLE_ONLY_BIB, encoding="utf-8")
    out = tmp_path / "export.json"
    with Library.open(tmp_path / "one") as lib:
        lib.imports.run([bib])
        pid = next(p for p in lib.papers.ids() if lib.papers.get(p).metadata.doi)
        meta = lib.papers.get(pid).metadata
        lib.papers.set_metadata(pid, Metadata(authors=meta.authors, date=meta.date,
                                       venue=meta.venue, entry_type=meta.entry_type,
                                       doi="10.5555/edited.doi"))
        lib.exports.to_file(lib.papers.ids(), "json", out)
        report = lib.imports.run([out])
        assert report.added == 0 and len(lib.papers.ids()) == 4


def test_json_export_paper_with_neither_title_nor_abstract_is_refused(tmp_path):
    doc = {"format": "paperdesk-export", "version": 2,
           "papers": [{"title": "", "abstract": "  "}]}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert report.added == 0
        assert "paper 1 has neither an abstract nor a title" in report.rejected[0]["reason"]


# -- 7. authors with a suffix ------------------------------------------------------------
from paperdesk.core.metadata import parse_author  # noqa: E402

RIS_SUFFIXES = """\
TY  - JOUR
AU  - King, Martin Luther, Jr.
AU  - Smith, John
AU  - Cee, Jr, Carl
AU  - Too, Many, Commas, Here
TI  - Suffix test
AB  - An abstract about suffixes in RIS author names, long enough to read as prose.
ER  - 
"""


def test_parse_author_reads_the_ris_and_the_bibtex_order_of_a_suffix():
    assert parse_author("King, Martin Luther, Jr.") == Author("King", "Martin Luther", "Jr.")
    assert parse_author("Cee, Jr, Carl") == Author("Cee", "Carl", "Jr")
    assert parse_author("Gates, William Henry, III") == Author("Gates", "William Henry",
                                                              "III")
    assert str(Author("King", "Martin Luther", "Jr.")) == "King, Martin Luther, Jr."
    assert parse_author(str(Author("King", "Martin Luther", "Jr."))) == Author(
        "King", "Martin Luther", "Jr.")


def test_an_ris_author_with_a_suffix_is_kept_and_an_unreadable_one_noted(tmp_path):
    path = tmp_path / "suffix.ris"
    path.write_text(RIS_SUFFIXES, encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert report.added == 1
        paper = lib.papers.get(report.added_ids[0])
        assert paper.metadata.authors == (Author("King", "Martin Luther", "Jr."),
                                          Author("Smith", "John"), Author("Cee", "Carl", "Jr"))
        assert any("record 1: author: cannot read 'Too, Many, Commas, Here'" in w
                   for w in report.files[0].warnings), report.files[0].warnings


def test_a_suffix_round_trips_through_every_export(tmp_path):
    from helpers import write_daily
    authors = (Author("King", "Martin Luther", "Jr."), Author("van der Berg", "Jan"),
               Author("Gates", "William Henry", "III"))
    with Library.open(tmp_path / "one") as lib:
        pid = lib.imports.run([write_daily(tmp_path / "a.txt", [
            "A paper whose authors carry generational suffixes, which every export keeps."
        ])]).added_ids[0]
        lib.papers.set_metadata(pid, Metadata(authors=authors, date="2020", entry_type="article",
                                       venue="Journal of Names"))
        assert lib.papers.get(pid).metadata.authors == authors      # stored and read back
        files = {}
        for fmt, name in (("bibtex", "x.bib"), ("ris", "x.ris"), ("csl-json", "x.json"),
                          ("json", "x.paperdesk.json")):
            files[fmt] = tmp_path / name
            lib.exports.to_file([pid], fmt, files[fmt])
    bib = files["bibtex"].read_text(encoding="utf-8")
    assert "King, Jr., Martin Luther" in bib and "Gates, III, William Henry" in bib
    assert "AU  - King, Martin Luther, Jr." in files["ris"].read_text(encoding="utf-8")
    csl = json.loads(files["csl-json"].read_text(encoding="utf-8"))
    assert csl[0]["author"][0] == {"family": "King", "given": "Martin Luther",
                                   "suffix": "Jr."}
    for fmt, path in files.items():
        with Library.open(tmp_path / f"copy-{fmt}") as copy:
            report = copy.imports.run([path])
            assert report.rejected == [] and report.added == 1, (fmt, report.rejected)
            assert copy.papers.get(report.added_ids[0]).metadata.authors == authors, fmt


# -- 8. an RIS file whose last record has no ER line ---------------------------------
RIS_NO_LAST_ER = """\
TY  - JOUR
TI  - A first record that ends properly
AU  - First, Fay
AB  - The first record of this file has its ER line, as every record should have.
ER  - 

TY  - JOUR
TI  - Last record without ER
AU  - End, No
PY  - 2020
AB  - The last record of this file has no ER line at the end, as a truncated file has.
"""


def test_an_ris_record_without_its_er_line_at_the_end_is_read_and_noted(tmp_path):
    path = tmp_path / "truncated.ris"
    path.write_text(RIS_NO_LAST_ER, encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert report.added == 2, report.files[0]
        titles = {lib.papers.get(p).title: lib.papers.get(p) for p in report.added_ids}
        last = titles["Last record without ER"]
        assert last.metadata.date == "2020" and last.metadata.authors == (Author("End", "No"),)
        assert "record 2: the file ends without its ER line" in " ".join(
            report.files[0].warnings)


# -- 9. one record, two papers: a DOI is never copied onto a second paper --------------
def _bib(tmp_path, name, abstract, doi):
    path = tmp_path / name
    path.write_text("@article{conflict2,\n  title = {Conflicting identity two},\n"
                    "  author = {Con, Flict},\n  year = {2022},\n"
                    f"  doi = {{{doi}}},\n  abstract = {{{abstract}}},\n}}\n",
                    encoding="utf-8")
    return path


def _set_doi(lib, pid, doi):
    meta = lib.papers.get(pid).metadata
    lib.papers.set_metadata(pid, Metadata(authors=meta.authors, date=meta.date, venue=meta.venue,
                                   entry_type=meta.entry_type, doi=doi))


def test_a_doi_another_paper_has_is_not_copied(seeded_library, tmp_path):
    lib = seeded_library
    _set_doi(lib, 3, "10.7777/other")
    path = _bib(tmp_path, "conflict.bib", lib.papers.get(5).abstract, "10.7777/other")
    report = lib.imports.run([path])
    assert report.added == 0
    assert lib.papers.get(5).metadata.doi is None and lib.papers.get(3).metadata.doi == "10.7777/other"
    assert lib.papers.get(5).metadata.authors == (Author("Con", "Flict"),)    # the rest is taken
    assert any("DOI 10.7777/other is paper 3's; paper 5" in w
               for w in report.files[0].warnings), report.files[0].warnings
    dois = [lib.papers.get(p).metadata.doi for p in lib.papers.ids()]
    assert dois.count("10.7777/other") == 1


def test_a_doi_match_with_an_unlike_abstract_is_noted(seeded_library, tmp_path):
    lib = seeded_library
    _set_doi(lib, 3, "10.7777/other")
    unrelated = ("Bees forage in meadows where clover grows tall; we count the visits of "
                 "bumblebees across three summers and find that rain matters most.")
    report = lib.imports.run([_bib(tmp_path, "unlike.bib", unrelated, "10.7777/other")])
    assert report.added == 0 and lib.papers.get(3).abstract != unrelated
    assert any("its DOI is paper 3's but its abstract is unlike that paper's" in w
               for w in report.files[0].warnings), report.files[0].warnings
    # the same abstract with its DOI again, nearly as written: no note
    like = _bib(tmp_path, "like.bib", lib.papers.get(3).abstract.replace(".", ";", 1),
                "10.7777/other")
    report = lib.imports.run([like])
    assert not any("unlike" in w for w in report.files[0].warnings)


# -- 13. markup in CSL-JSON and RIS values ----------------------------------------------
def test_csl_and_jats_markup_becomes_plain_text(tmp_path):
    from paperdesk.core.imports.markup import plain_text
    assert plain_text("a<b and c>d, x < y") == "a<b and c>d, x < y"     # not tags
    assert plain_text("AT&amp;T") == "AT&amp;T"                         # no markup: as is
    # JATS tags without the jats: prefix, as OpenAlex gives Wiley's titles (SYNERGY)
    assert plain_text("antibody ( <scp>ACE</scp> 910)") == "antibody ( ACE 910)"
    assert plain_text("<italic>In vitro</italic> <bold>x</bold>") == "In vitro x"
    assert plain_text("a <scpx> b") == "a <scpx> b"
    # markup escaped once more, as OpenAlex has some titles (SYNERGY's Donners_2021)
    assert plain_text("&lt;p&gt;Clinical Evidence of Emicizumab&lt;/p&gt;").strip() == \
        "Clinical Evidence of Emicizumab"
    assert plain_text("&lt;i&gt;E. coli&lt;/i&gt; grows") == "E. coli grows"
    assert plain_text("a &lt;b&gt; c") == "a &lt;b&gt; c"     # not at the start: as is
    assert plain_text("&lt;x&gt; stays") == "&lt;x&gt; stays"  # not a tag it removes
    items = [{"id": "withhtml", "type": "article-journal",
              "title": 'Title with <i>italic</i>, <b>bold</b>, <sup>3</sup> and <sub>2</sub> '
                       'markup: <span style="font-variant:small-caps;">Small</span> '
                       '<span class="nocase">iPhone</span> &amp; more',
              "abstract": "<jats:title>Abstract</jats:title><jats:p>An abstract in JATS "
                          "markup as Crossref delivers it.</jats:p><jats:p>A second "
                          "paragraph with CO<jats:sub>2</jats:sub> &lt; 5%.</jats:p>",
              "DOI": "10.1234/JATS"}]
    csl = tmp_path / "markup.json"
    csl.write_text(json.dumps(items), encoding="utf-8")
    ris = tmp_path / "markup.ris"
    ris.write_text("TY  - JOUR\nTI  - RIS <i>title</i> with H<sub>2</sub>O\n"
                   "AB  - <jats:p>First paragraph of a Crossref abstract.</jats:p>"
                   "<jats:p>Second one, with <jats:italic>emphasis</jats:italic>.</jats:p>\n"
                   "ER  - \n", encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([csl, ris])
        assert report.added == 2, report.rejected
        papers = {lib.papers.get(p).metadata.doi: lib.papers.get(p) for p in report.added_ids}
        one = papers["10.1234/JATS"]
        assert one.title == ("Title with italic, bold, 3 and 2 markup: Small iPhone & more")
        assert one.abstract == ("An abstract in JATS markup as Crossref delivers it. A second "
                                "paragraph with CO2 < 5%.")
        two = papers[None]
        assert two.title == "RIS title with H2O"
        assert two.abstract == ("First paragraph of a Crossref abstract. Second one, with "
                                "emphasis.")


# -- 15 and 21: dates, a single CSL item, C3 -----------------------------------------
RIS_DATES = """\
TY  - JOUR
AU  - Tanaka, Hiroshi
TI  - Web of Science style record
T2  - NATURE
AB  - This is a Web of Science style record whose date is a month and a day, the year in PY.
PY  - 2019
DA  - MAR 15
ER  - 

TY  - JOUR
TI  - Web of Science record with a month only
AB  - Another Web of Science style record, with a month alone and its year in the PY tag.
PY  - 2018
DA  - NOV
ER  - 

TY  - PREPRINT
TI  - Zotero 7 preprint
AB  - A preprint record with an ISO date with hyphens, as Zotero 7 writes its DA tag.
DA  - 2023-11-02
ER  - 

TY  - JOUR
TI  - A season
AB  - A record whose DA is a season that is not a month, so only the year of PY is taken.
PY  - 2017
DA  - SPR
ER  - 

TY  - CONF
TI  - Zotero conference paper
AB  - A conference paper as Zotero writes it: the proceedings title is in C3, not in T2.
C3  - Proceedings of the Conference on Venues
PY  - 2021
ER  - 

TY  - CONF
TI  - Conference paper with both
AB  - A conference paper with a T2 and a C3: the secondary title wins over the C3 tag.
T2  - Secondary Title Venue
C3  - Proceedings Venue
ER  - 
"""


def test_ris_dates_of_web_of_science_and_zotero_and_c3_venues(tmp_path):
    path = tmp_path / "dates.ris"
    path.write_text(RIS_DATES, encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert report.added == 6 and report.files[0].warnings == []
        got = {lib.papers.get(p).title: lib.papers.get(p).metadata for p in report.added_ids}
    assert got["Web of Science style record"].date == "2019-03-15"
    assert got["Web of Science record with a month only"].date == "2018-11"
    assert got["Zotero 7 preprint"].date == "2023-11-02"
    assert got["A season"].date == "2017"
    assert got["Zotero conference paper"].venue == "Proceedings of the Conference on Venues"
    assert got["Conference paper with both"].venue == "Secondary Title Venue"


def test_a_single_csl_item_and_a_literal_date(tmp_path):
    single = tmp_path / "single.json"
    single.write_text(json.dumps(
        {"id": "single", "type": "article-journal", "title": "A single CSL item",
         "author": [{"family": "Solo", "given": "Han"}],
         "issued": {"date-parts": [["2023", "5", "7"]]},
         "abstract": "citation-js writes a single object when it exports one item."}),
        encoding="utf-8")
    literal = tmp_path / "literal.json"
    literal.write_text(json.dumps([
        {"id": "lit", "type": "webpage", "title": "Literal date",
         "issued": {"literal": "Spring 2021"},
         "abstract": "A webpage with a literal date, which is common for web pages."},
        {"id": "nodate", "type": "webpage", "title": "No year at all",
         "issued": {"literal": "someday"},
         "abstract": "A webpage whose literal date has no year, which is left out."}]),
        encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([single, literal])
        assert report.rejected == [] and report.added == 3, report.rejected
        got = {lib.papers.get(p).title: lib.papers.get(p) for p in report.added_ids}
        assert got["A single CSL item"].metadata.date == "2023-05-07"
        assert got["A single CSL item"].citation_key == "single"
        assert got["Literal date"].metadata.date == "2021"
        assert got["No year at all"].metadata.date is None
        warnings = report.files[1].warnings
        assert any("item 1 (lit): issued: 'Spring 2021' is not a date; its year 2021 taken"
                   in w for w in warnings), warnings
        assert any("item 2 (nodate)" in w and "someday" in w for w in warnings), warnings


# -- 22. reporting details --------------------------------------------------------------
def _arxiv_line(aid, cats, abstract):
    return json.dumps({"id": aid, "title": f"Paper {aid}", "authors": "A B",
                       "categories": cats, "abstract": abstract,
                       "versions": [{"version": "v1",
                                     "created": "Mon, 2 Jan 2023 10:00:00 GMT"}],
                       "update_date": "2023-01-03", "authors_parsed": [["B", "A", ""]]})


def test_arxiv_lines_that_are_not_json_are_noted_with_a_category_filter(tmp_path):
    from paperdesk.core.imports.arxiv import ArxivFilter
    path = tmp_path / "meta.jsonl"
    path.write_text("\n".join([
        _arxiv_line("2301.00010", "cs.CV cs.LG", "A computer vision abstract kept here."),
        _arxiv_line("2305.00030", "math.AG", "An algebraic geometry abstract filtered."),
        "this is not json",
        "[1,2]",
        '{"id": "2301.00011", "categories": "math.AG", "title": "cut sh',
    ]) + "\n", encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], arxiv_filter=ArxivFilter(("cs.CV",)))
        f = report.files[0]
        assert f.added == 1 and f.filtered == 1 and f.skipped == 3, f
        notes = " | ".join(f.warnings)
        assert "line 3: not JSON" in notes and "line 4: not a JSON object" in notes
        assert "line 5: not JSON" in notes


def test_an_empty_category_is_a_usage_error(tmp_path):
    from test_cli import run
    for blank in ("", "  "):
        r = run("import", "--category", blank, str(tmp_path / "x.jsonl"),
                library=tmp_path / "lib")
        assert r.returncode == 2, r.stderr
        assert "--category" in r.stderr and "Traceback" not in r.stderr


def test_remove_file_message_for_one_paper_that_stays(tmp_path, capsys):
    from helpers import write_daily
    from paperdesk.cli import main
    one = "An abstract only in the first file, which goes when that file is removed."
    both = "An abstract in both files, which stays when the first file is removed."
    a = write_daily(tmp_path / "a.txt", [one, both])
    b = write_daily(tmp_path / "b.txt", [both])
    lib = str(tmp_path / "lib")
    assert main(["--library", lib, "import", str(a), str(b)]) == 0
    capsys.readouterr()
    assert main(["--library", lib, "remove-file", "1"]) == 0
    assert capsys.readouterr().out == (f"removed {a} (id 1): 1 paper deleted; "
                                       "1 paper also from another file stays\n")


def test_other_programs_read_the_suffix_of_our_exports(tmp_path):
    """pandoc reads our BibTeX's "Last, Jr, First", citation-js our RIS's "Family, Given,
    Suffix" and our CSL-JSON's suffix as the name's suffix."""
    import subprocess

    from clients import citation_js, program
    from helpers import write_daily
    king = Author("King", "Martin Luther", "Jr.")
    with Library.open(tmp_path / "lib") as lib:
        pid = lib.imports.run([write_daily(tmp_path / "a.txt", [
            "A paper by an author with a suffix, as other programs should read it."
        ])]).added_ids[0]
        lib.papers.set_metadata(pid, Metadata(authors=(king,), date="2020", entry_type="article"))
        bib = lib.exports.text([pid], "bibtex")
        ris = lib.exports.text([pid], "ris")
        csl = lib.exports.text([pid], "csl-json")
    want = {"family": "King", "given": "Martin Luther", "suffix": "Jr."}
    done = subprocess.run([program("pandoc"), "-f", "bibtex", "-t", "csljson"], input=bib,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["author"] == [want]
    for kind, text in (("ris", ris), ("csl", csl)):
        got = citation_js(kind, text)["items"][0]["author"][0]
        assert {k: got.get(k) for k in want} == want, (kind, got)


def test_csl_json_character_references_become_characters(tmp_path):
    """OpenAlex's CSL-JSON (SYNERGY's reviews) writes ``&amp;`` and ``&lt;`` in titles and
    abstracts without any tag; CSL's rich text is HTML-like, so they are the characters."""
    items = [{"id": "a", "type": "article-journal",
              "title": "Crisis intervention &amp; brief therapy",
              "abstract": "An effect with p &lt; 0.05 in 40&nbsp;patients; AT&T as written."}]
    path = tmp_path / "entities.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([path])
        (pid,) = lib.papers.ids()
        paper = lib.papers.get(pid)
        assert paper.title == "Crisis intervention & brief therapy"
        assert paper.abstract == "An effect with p < 0.05 in 40 patients; AT&T as written."
        assert lib.search.find("amp").total == 0
