"""biblatex markup in imported BibTeX (issue 25, item 8): ``subtitle`` and ``titleaddon``
join the title as biblatex prints them; ``\\enquote`` keeps its quotes, ``\\hyphen`` is a
hyphen, ``{\\TeX book}`` is "TeXbook"; a lone ``\\~`` is a tilde, never a combining accent
that stops pdflatex on export. Driven by biblatex's own ``biblatex-examples.bib`` (when
TeX Live has it; skipped with the reason otherwise), Zotero's BibTeX test cases in
/work/shared/realworld (read in place) and small fixtures written here."""

from __future__ import annotations

import subprocess
from pathlib import Path

import bibtexparser
import pytest

import clients
from paperdesk.core.exports.latex import latex_text
from paperdesk.core.imports.bibtex import decode_latex, read_bibtex
from paperdesk.core.library import Library

REALWORLD = Path("/work/shared/realworld")


def _papers(lib: Library) -> dict:
    return {p.citation_key: p for p in (lib.papers.get(i) for i in lib.papers.ids())}


def _texlive_file(name: str) -> Path:
    try:
        found = subprocess.run(["kpsewhich", name], capture_output=True, text=True,
                               timeout=60).stdout.strip()
    except FileNotFoundError:
        found = ""
    if not found:
        pytest.skip(f"{name} is not installed (TeX Live's biblatex package has it)")
    return Path(found)


@pytest.mark.parametrize("written, text", [
    ("the string \\enquote{series} is", "the string “series” is"),
    ("under \\enquote*{E} rather than \\enquote{T \\enquote*{U}}",
     "under ‘E’ rather than “T ‘U’”"),
    ("Computation of methodology\\hyphen independent ionic",
     "Computation of methodology-independent ionic"),
    ("The {\\TeX book}", "The TeXbook"),
    ("The {\\LaTeX book} and \\TeX{} book and \\LaTeX and", "The LaTeXbook and TeX book and "
     "LaTeX and"),
    ("tilde operator: \\~", "tilde operator: ~"),
    ("{\\~} and {\\^} and a \\~ n", "~ and ^ and a ñ"),
])
def test_biblatex_markup_decodes_as_biblatex_prints_it(written, text):
    assert decode_latex(written) == text


def test_subtitle_and_titleaddon_join_the_title(tmp_path):
    path = tmp_path / "sub.bib"
    path.write_text(
        "@book{s1, title = {The True Frontier}, subtitle = {Confronting {American} Films},\n"
        "  titleaddon = {A Study}, author = {Doe, Jo}}\n"
        "@book{s2, title = {Why Now?}, subtitle = {Answers}, author = {Doe, Jo}}\n"
        "@book{s3, title = {Plain}, titleaddon = {Addon}, author = {Doe, Jo}}\n"
        "@incollection{s4, title = {A Chapter}, crossref = {s1}, author = {Roe, Al}}\n",
        encoding="utf-8")
    titles = {r.citation_key: r.title
              for r in read_bibtex(path, path.read_text("utf-8"), "utf-8").records}
    assert titles == {"s1": "The True Frontier. Confronting American Films. A Study",
                      "s2": "Why Now? Answers", "s3": "Plain. Addon",
                      # the parent's subtitle is the book's, not the chapter's
                      "s4": "A Chapter"}


def test_biblatex_examples_titles_are_whole(empty_library):
    path = _texlive_file("biblatex-examples.bib")
    library = bibtexparser.parse_string(path.read_text(encoding="utf-8"))
    with_parts = {e.key: e for e in library.entries
                  if "subtitle" in e.fields_dict or "titleaddon" in e.fields_dict}
    assert len(with_parts) >= 17
    empty_library.imports.run([path])
    papers = _papers(empty_library)
    for key, entry in with_parts.items():
        for name in ("subtitle", "titleaddon"):
            if name in entry.fields_dict:
                part = decode_latex(entry.fields_dict[name].value)
                assert papers[key].title.endswith(part) or f". {part}" in papers[key].title, \
                    (key, name, papers[key].title)
    assert papers["westfahl:space"].title == (
        "The True Frontier. Confronting and Avoiding the Realities of Space in American "
        "Science Fiction Films")
    assert papers["knuth:ct:a"].title == "The TeXbook"
    assert papers["kastenholz"].title.startswith(
        "Computation of methodology-independent ionic solvation free energies from "
        "molecular simulations. I. The electrostatic potential")


def test_a_lone_tilde_is_a_tilde_and_the_export_compiles(empty_library, tmp_path):
    if not REALWORLD.is_dir():
        pytest.skip("no real-world files in /work/shared/realworld")
    empty_library.imports.run([REALWORLD / "zotero_BibTeX_js_testcases.bib"])
    paper = _papers(empty_library)["test-ticket1661"]
    assert paper.title == ("non-braking space: ; accented characters: ñ and ñ; "
                           "tilde operator: ~")
    export = tmp_path / "export.bib"
    export.write_text(empty_library.exports.text([paper.id], "bibtex"), encoding="utf-8")
    (tmp_path / "tex").mkdir()
    assert clients.compile_latex(tmp_path / "tex", export, "bibtex")["latex_errors"] == []


@pytest.mark.parametrize("text, latex", [
    ("tilde operator: \u0303", "tilde operator: \\textasciitilde{}"),
    ("e\u0301t\u00e9, x\u0304 and q\u0327, \u0304 alone", "été, {\\=x} and {\\c q}, {\\={}} alone"),
])
def test_combining_accents_are_written_as_latex(text, latex):
    assert latex_text(text) == latex


def test_a_stored_combining_tilde_compiles(empty_library, tmp_path):
    """A title stored by an older version (the lone \\~ read as U+0303): pdflatex stopped
    with a fatal error at it."""
    path = tmp_path / "t.bib"
    path.write_text("@article{t1, title = {A tilde}, author = {Doe, Jo}}\n",
                    encoding="utf-8")
    empty_library.imports.run([path])
    pid = _papers(empty_library)["t1"].id
    empty_library.papers.set_title(pid, "tilde operator: \u0303 and x\u0304")
    export = tmp_path / "export.bib"
    export.write_text(empty_library.exports.text([pid], "bibtex"), encoding="utf-8")
    (tmp_path / "tex").mkdir()
    assert clients.compile_latex(tmp_path / "tex", export, "bibtex")["latex_errors"] == []
