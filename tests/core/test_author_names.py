"""Author lists that end in "et al." and authors that are organisations (issue 25, items 1
and 7): read from the real files in ../shared/realworld (read in place), kept in the
library, written as each format's readers expect, read back from paperdesk's own exports,
and checked with the real readers (bibtex, biber, pandoc, citation-js) where installed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import clients
from paperdesk.cli import main
from paperdesk.core.library import Library
from paperdesk.core.metadata import (MetadataError, format_author, format_author_list,
                                     parse_author, read_author_list)
from paperdesk.core.models import Author

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "realworld"
TESTJABREF = REALWORLD / "jabref_testjabref.bib"
CORPORATE = REALWORLD / "jabref_CorporateAuthor.bib"
needs_realworld = pytest.mark.skipif(not TESTJABREF.is_file(),
                                     reason=f"the real-world files are not in {REALWORLD}")
#: The 11 entries of testjabref.bib whose author list ends in "and others".
ET_AL_KEYS = {"Xu2020", "Novel2020", "Organization2020", "Chen2020", "Pan2020",
              "Bernheim2020", "Antognini2020", "Alexeev2020", "Xie2020", "Guo2020", "Wu2019"}
#: Formats whose export is read back (paperdesk JSON, BibTeX, RIS, CSL-JSON).
FORMATS = {"bibtex": "bib", "ris": "ris", "csl-json": "json", "json": "json"}
#: A file of organisations written as BibTeX writes them (small, nasty cases).
ORGANISATIONS_BIB = """\
@book{bn, author = {{Barnes and Noble}}, title = {Catalogue of the Year}, year = {2001}}
@book{mixed, author = {{Barnes and Noble} and Doe, Jane and others},
  title = {A Shop and a Person}, year = {2002}}
@report{who, author = {{World Health Organization}}, title = {Situation Report},
  year = {2020}}
@book{plato, author = {Plato}, title = {Republic}, year = {1992}}
"""


def _by_key(lib: Library) -> dict:
    return {p.citation_key: p for p in map(lib.papers.get, lib.papers.ids())}


def _names(paper) -> tuple:
    return tuple((a.family, a.given, a.suffix) for a in paper.metadata.authors), \
        paper.metadata.et_al


@pytest.fixture
def real_library(tmp_path):
    """A library of testjabref.bib, CorporateAuthor.bib and the organisations above."""
    if not TESTJABREF.is_file():
        pytest.skip(f"the real-world files are not in {REALWORLD}")
    nasty = tmp_path / "organisations.bib"
    nasty.write_text(ORGANISATIONS_BIB, encoding="utf-8")
    lib = Library.open(tmp_path / "lib")
    report = lib.imports.run([TESTJABREF, CORPORATE, nasty])
    assert all(f.error is None for f in report.files)
    yield lib
    lib.close()


# -- reading and keeping -------------------------------------------------------------------
@needs_realworld
def test_and_others_is_kept_as_et_al(real_library):
    papers = _by_key(real_library)
    assert {k for k, p in papers.items() if p.metadata.et_al} == ET_AL_KEYS | {"mixed"}
    assert _names(papers["Antognini2020"]) == ((("Antognini", "A.", ""),), True)
    # "others" is not a person: not an author, not searchable as one
    assert all(a.family != "others" for p in papers.values() for a in p.metadata.authors)
    assert len(papers["Xu2020"].metadata.authors) == 10
    assert real_library.search.hits("author:others") == []
    assert {h.id for h in real_library.search.hits("author:antognini")} == {
        papers["Antognini2020"].id}
    # testjabref.bib's "World Health Organization and others" is a person to BibTeX
    assert {h.id for h in real_library.search.hits('author:"health organization"')} \
        == {papers["who"].id, papers["Organization2020"].id}


@needs_realworld
def test_a_braced_name_is_one_organisation(real_library):
    papers = _by_key(real_library)
    assert _names(papers["Test"]) == ((("JabRef Developers", "", ""),), False)
    assert _names(papers["bn"]) == ((("Barnes and Noble", "", ""),), False)
    assert _names(papers["mixed"]) == ((("Barnes and Noble", "", ""), ("Doe", "Jane", "")),
                                       True)
    assert _names(papers["who"]) == ((("World Health Organization", "", ""),), False)


# -- writing -------------------------------------------------------------------------------
@needs_realworld
def test_each_format_writes_et_al_and_organisations_as_its_readers_expect(real_library):
    lib = real_library
    papers = _by_key(lib)
    ids = [papers[k].id for k in ("Antognini2020", "mixed", "plato")]
    bib = lib.exports.text(ids, "bibtex")
    assert "author = {Antognini, A. and others}," in bib
    assert "author = {{Barnes and Noble} and Doe, Jane and others}," in bib
    assert "author = {{Plato}}," in bib       # one part: the same name to BibTeX
    ris = lib.exports.text(ids, "ris").split("ER  - ")
    assert re.findall(r"^AU  - (.*)$", ris[0], re.M) == ["Antognini, A.", "others"]
    assert re.findall(r"^AU  - (.*)$", ris[1], re.M) == ["Barnes and Noble", "Doe, Jane",
                                                         "others"]
    items = json.loads(lib.exports.text(ids, "csl-json"))
    assert items[0]["author"] == [{"family": "Antognini", "given": "A."},
                                  {"literal": "others"}]
    assert items[1]["author"] == [{"literal": "Barnes and Noble"},
                                  {"family": "Doe", "given": "Jane"}, {"literal": "others"}]
    document = json.loads(lib.exports.text(ids, "json"))["papers"]
    assert [p.get("authors_et_al", False) for p in document] == [True, True, False]


@needs_realworld
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_own_exports_read_back_with_et_al_and_organisations(real_library, tmp_path, fmt):
    before = {k: _names(p) for k, p in _by_key(real_library).items()}
    out = tmp_path / f"out.{FORMATS[fmt]}"
    real_library.exports.to_file(real_library.papers.ids(), fmt, out)
    with Library.open(tmp_path / "copy") as copy:
        report = copy.imports.run([out])
        assert report.files[0].error is None
        after = {k: _names(p) for k, p in _by_key(copy).items()}
    assert after == before


# -- the real readers ------------------------------------------------------------------------
def _cited(lib: Library, folder: Path) -> tuple[Path, Path]:
    papers = _by_key(lib)
    # Organization2020's title holds U+200E, which pdflatex refuses (TeX text, not names).
    ids = [papers[k].id for k in sorted(ET_AL_KEYS - {"Organization2020"})
           + ["Test", "mixed", "who"]]
    bib, csl = folder / "names.bib", folder / "names.json"
    lib.exports.to_file(ids, "bibtex", bib)
    lib.exports.to_file(ids, "csl-json", csl)
    return bib, csl


def _compiled(lib: Library, folder: Path, backend: str) -> dict:
    """pdflatex + ``backend`` on the BibTeX export of :func:`_cited` (no error)."""
    bib, _csl = _cited(lib, folder)
    (folder / "run").mkdir()
    done = clients.compile_latex(folder / "run", bib, backend)
    assert done["latex_errors"] == [] and done["backend_status"] == 0, done["backend"]
    return done


@needs_realworld
def test_bibtex_prints_et_al_and_the_organisations_full_name(real_library, tmp_path):
    done = _compiled(real_library, tmp_path, "bibtex")
    bbl = " ".join(done["bbl"].split())
    assert "A.~Antognini et~al." in bbl
    assert "{Barnes and Noble}, Jane Doe, et~al." in bbl
    assert "{World Health Organization}." in bbl and "{JabRef Developers}." in bbl


@needs_realworld
def test_biber_marks_more_authors_and_keeps_the_organisation_whole(real_library, tmp_path):
    done = _compiled(real_library, tmp_path, "biber")
    entries = {m.group(1): m.group(2) for m in re.finditer(
        r"\\entry\{([^}]*)\}(.*?)\\endentry", done["bbl"], re.S)}
    assert "\\true{moreauthor}" in entries["Antognini2020"]     # printed as "et al."
    assert "\\true{moreauthor}" not in entries["who"]
    assert "family={{World Health Organization}}" in entries["who"]
    assert "\\name{author}{2}" in entries["mixed"]
    assert "family={{Barnes and Noble}}" in entries["mixed"]


@needs_realworld
@pytest.mark.parametrize("kind", ["bib", "json"])
def test_pandoc_renders_et_al_and_the_organisation(real_library, tmp_path, kind):
    bib, csl = _cited(real_library, tmp_path)
    doc = tmp_path / "cite.md"
    doc.write_text("@Antognini2020; @mixed; @who\n", encoding="utf-8")
    done = clients.run([clients.program("pandoc"), str(doc), "--citeproc", "--bibliography",
                        str(bib if kind == "bib" else csl), "-t", "plain", "--wrap=none"])
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "Antognini, A. et al. 2020." in text
    assert "Barnes and Noble, Jane Doe, et al. 2002." in text
    assert "World Health Organization. 2020." in text
    assert "others" not in text


@needs_realworld
def test_citation_js_reads_the_truncation_from_bibtex_and_csl(real_library, tmp_path):
    bib, csl = _cited(real_library, tmp_path)
    for kind, path in (("bibtex", bib), ("csl", csl)):
        items = {i["id"]: i for i in clients.citation_js(kind, path.read_text("utf-8"))["items"]}
        last = items["Antognini2020"]["author"][-1]
        assert last.get("literal", last.get("family")) == "others", (kind, last)
        assert items["who"]["author"][0].get("literal", items["who"]["author"][0].get(
            "family")) == "World Health Organization", kind


# -- typing names ------------------------------------------------------------------------------
@pytest.mark.parametrize("typed, authors, et_al", [
    ("{Barnes and Noble}", [("Barnes and Noble", "")], False),
    ("{Barnes and Noble} and Doe, Jane and others", [("Barnes and Noble", ""), ("Doe", "Jane")],
     True),
    ("{World Health Organization}; et al.", [("World Health Organization", "")], True),
    ("Antognini, A.; ET AL", [("Antognini", "A.")], True),
    ("Plato", [("Plato", "")], False),
])
def test_read_author_list(typed, authors, et_al):
    got, truncated = read_author_list(typed)
    assert [(a.family, a.given) for a in got] == authors and truncated == et_al


@pytest.mark.parametrize("typed", ["others", "et al.; Doe, Jane", "Doe, J; others; Roe, R"])
def test_et_al_only_ends_a_list_of_names(typed):
    with pytest.raises(MetadataError, match="^author: "):
        read_author_list(typed)


@pytest.mark.parametrize("author", [Author("World Health Organization"),
                                    Author("Barnes and Noble"), Author("Plato"),
                                    Author("Others"), Author("Dupont, Fils & Cie"),
                                    Author("van Beethoven", "Ludwig")])
def test_a_name_as_typed_reads_back_the_same(author):
    assert parse_author(format_author(author)) == author
    assert read_author_list(format_author_list([author, author], True)) == \
        ((author, author), True)


def test_cli_edit_takes_an_organisation_and_et_al(tmp_path, capsys):
    lib = tmp_path / "lib"
    src = tmp_path / "one.bib"
    src.write_text("@misc{k, title = {A Title}, author = {Doe, Jane}}\n", encoding="utf-8")
    assert main(["--library", str(lib), "import", str(src)]) == 0
    capsys.readouterr()
    assert main(["--library", str(lib), "edit", "1", "--author", "{Barnes and Noble}",
                 "--author", "Roe, Richard", "--author", "et al."]) == 0
    assert "authors: {Barnes and Noble}; Roe, Richard; et al." in capsys.readouterr().out
    with Library.open(lib) as opened:
        meta = opened.papers.metadata(1)
    assert (meta.authors, meta.et_al) == ((Author("Barnes and Noble"),
                                           Author("Roe", "Richard")), True)
    assert main(["--library", str(lib), "edit", "1", "--author", "Roe, Richard"]) == 0
    with Library.open(lib) as opened:
        assert not opened.papers.metadata(1).et_al
