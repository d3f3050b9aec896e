"""The BibTeX export read by the programs people cite with: bibtexparser (with LaTeX
decoding), pandoc, citation-js, bibtex, biber, pdflatex and JabRef. The text that comes
back is compared with what was written; the few differences each reader is known to make
are spelled out (see ``paperdesk.core.exports.latex`` for why they cannot be avoided).

Programs that are not installed are skipped (``make clients`` installs them).
"""

from __future__ import annotations

import re

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from pylatexenc import latex2text

import clients
from cited import HOSTILE_COMMENT
from paperdesk.core.exports.bibtex import ENTRY_TYPES
from paperdesk.core.exports.common import highlight_text, one_line
from paperdesk.core.exports.latex import latex_text


# -- what was written --------------------------------------------------------------------
def written(paper) -> dict[str, str]:
    """The text fields of a paper as the BibTeX export carries them (one line each)."""
    out = {"title": one_line(paper.title), "abstract": one_line(paper.abstract)}
    if paper.note.strip():
        out["note"] = one_line(paper.note)
    if paper.tags:
        out["keywords"] = ", ".join(t.name for t in paper.tags)
    if paper.highlights:
        out["annote"] = " ".join(highlight_text(h) for h in paper.highlights)
    if paper.metadata.venue:
        out["venue"] = paper.metadata.venue
    return out


def lone_braces_removed(text: str) -> str:
    """``text`` without the braces that have no partner (what pandoc 2.17 shows)."""
    depth, keep, opened = 0, [], []
    for ch in text:
        if ch == "{":
            opened.append(len(keep))
        elif ch == "}":
            if not opened:
                continue
            opened.pop()
        keep.append(ch)
    for i in reversed(opened):
        del keep[i]
    return "".join(keep)


_QUOTES = re.compile("[‘’“”'`\"]")


def as_pandoc_shows(text: str) -> str:
    """What pandoc 2.17's BibTeX reader gives back for text paperdesk wrote: lone braces
    dropped (``\\textbraceleft`` is unknown to it) and straight single quotes and
    backticks made curly (its "smart" punctuation). Nothing else differs."""
    return one_line(lone_braces_removed(text).replace("'", "’").replace("`", "‘"))


def same_for_pandoc(got: str | None, text: str) -> bool:
    """Whether pandoc's rendering ``got`` is :func:`as_pandoc_shows` of ``text``. Text
    with backticks or ``''`` is compared with every quote mark made one: pandoc reads a
    backtick as an opening quote (TeX's), the next apostrophe as its closing one, and
    prints the pair as a quotation in the style's quote marks (```x'`` as “x”,
    ````x''`` as “‘x’”)."""
    want = as_pandoc_shows(text)
    if "`" in text or "''" in text:
        return got is not None and _QUOTES.sub("'", got) == _QUOTES.sub("'", want)
    return got == want


def balanced_as_bibtex_counts(value: str) -> bool:
    """Whether ``value`` (a field value with its delimiting braces) is one brace group
    when braces are counted the way BibTeX and biber count them: every ``{`` and ``}``,
    backslash or not, depth never below zero inside and back to zero only at the end."""
    depth = 0
    for n, ch in enumerate(value):
        depth += (ch == "{") - (ch == "}")
        if depth < 0 or (depth == 0 and n != len(value) - 1):
            return False
    return depth == 0


def bibtex_values(text: str) -> list[str]:
    """Every field value of an export (the writer puts one field per line)."""
    return [m.group(1) for m in re.finditer(r"^  [a-z]+ = (.*),$", text, re.MULTILINE)]


def decoding_middleware() -> LatexDecodingMiddleware:
    """bibtexparser's LaTeX decoding, with math decoded to text (``keep_math_mode`` off)
    and five standard LaTeX text macros that pylatexenc 2.11's table lacks or gets
    wrong: ``\\textbraceleft``, ``\\textbraceright``, ``\\textless``, ``\\textgreater``
    (unknown to it: decoded to nothing) and ``\\textasciicircum`` (decoded to U+02C6
    "ˆ" instead of ``^``)."""
    symbols = {"textbraceleft": "{", "textbraceright": "}", "textless": "<",
               "textgreater": ">", "textasciicircum": "^"}
    db = latex2text.get_default_latex_context_db()
    db.add_context_category(
        "latex2e-text-symbols", prepend=True,
        macros=[latex2text.MacroTextSpec(name, simplify_repl=text)
                for name, text in symbols.items()])
    return LatexDecodingMiddleware(
        decoder=latex2text.LatexNodes2Text(latex_context=db, math_mode="text"))


@pytest.fixture(scope="module")
def exported(cited_library, cited_exports):
    """(library, the .bib file, its text, {key: paper}) for the whole cited library."""
    path = cited_exports["bibtex"]
    papers = {cited_library.papers.get(i).citation_key: cited_library.papers.get(i)
              for i in cited_library.papers.ids()}
    return cited_library, path, path.read_text(encoding="utf-8"), papers


# -- the file itself ---------------------------------------------------------------------
def test_every_value_is_one_brace_group_as_bibtex_counts_braces(exported):
    _lib, _path, text, papers = exported
    values = bibtex_values(text)
    assert len(values) == sum(line.startswith("  ") for line in text.splitlines())
    assert len(values) >= 2 * len(papers)
    bad = [v for v in values if not v.startswith("{") and v not in
           {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}]
    assert bad == []
    assert [v for v in values if v.startswith("{") and not balanced_as_bibtex_counts(v)] == []
    assert text.count("\n@") + 1 == len(papers)


def test_the_brace_check_fails_on_what_the_old_escaping_wrote():
    # pylatexenc wrote a lone "}" as {\}}, which ends a BibTeX field early.
    assert not balanced_as_bibtex_counts(r"{a {\}} b}")
    assert not balanced_as_bibtex_counts(r"{a \} b}")
    assert balanced_as_bibtex_counts("{" + latex_text("a } b { c") + "}")
    assert balanced_as_bibtex_counts("{" + latex_text("}}} {{ x } {") + "}")


def test_entry_types_keys_and_own_identifiers(exported):
    _lib, _path, text, papers = exported
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    entries = {e.key: e for e in library.entries}
    assert set(entries) == set(papers)
    for key, paper in papers.items():
        entry = entries[key]
        assert entry.entry_type == ENTRY_TYPES[paper.entry_type][0], key
        fields = entry.fields_dict
        meta = paper.metadata
        assert ("year" in fields) == (meta.date is not None), key
        if meta.date:
            assert fields["year"].value == meta.date[:4]
        assert ("eprint" in fields) == (meta.arxiv_id is not None), key
        if meta.arxiv_id:
            assert fields["eprint"].value == meta.arxiv_id
            assert fields["archiveprefix"].value == "arXiv"
            assert fields["eprinttype"].value == "arxiv"
        assert ("doi" in fields) == (meta.doi is not None), key
        if meta.doi:
            assert fields["doi"].value == meta.doi
        assert (meta.url is not None) == ("urldate" in fields), key
        assert ("url" in fields) == bool(meta.url or meta.arxiv_id), key
        if meta.url:
            assert fields["url"].value == meta.url
            assert fields["urldate"].value == paper.added_at[:10]
        elif meta.arxiv_id:
            assert fields["url"].value == "https://arxiv.org/abs/" + meta.arxiv_id


def test_an_abstract_that_mentions_an_arxiv_id_does_not_make_it_the_papers(exported):
    lib, _path, _text, _papers = exported
    (hit,) = lib.search.hits('"characterised in"', limit=1)
    paper = lib.papers.get(hit.id)
    assert "2212.08630" in paper.mentioned.arxiv_ids and paper.metadata.arxiv_id is None
    entry = bibtexparser.parse_string(lib.exports.text([hit.id], "bibtex")).entries[0]
    assert {"eprint", "year", "url"}.isdisjoint(entry.fields_dict)
    assert "2022" not in entry.key
    (first,) = lib.papers.ids()[:1]   # its own URL, not the code link in its abstract
    fields = bibtexparser.parse_string(lib.exports.text([first], "bibtex")).entries[0].fields_dict
    assert "url" not in fields and "github.com" in fields["abstract"].value


# -- bibtexparser ------------------------------------------------------------------------
def test_bibtexparser_decodes_every_text_as_written(exported):
    _lib, _path, text, papers = exported
    library = bibtexparser.parse_string(text, append_middleware=[decoding_middleware()])
    assert library.failed_blocks == []
    for entry in library.entries:
        paper = papers[entry.key]
        fields = entry.fields_dict
        venue_field = ENTRY_TYPES[paper.entry_type][1]
        for name, value in written(paper).items():
            got = fields[venue_field if name == "venue" else name].value
            assert one_line(got) == value, (entry.key, name)
        names = [str(a) for a in paper.authors]
        if names:
            got = [one_line(n) for n in fields["author"].value.split(" and ")]
            assert got == names, entry.key


# -- pandoc ------------------------------------------------------------------------------
def test_pandoc_renders_every_text_as_written(exported, tmp_path):
    _lib, path, _text, papers = exported
    keys = list(papers)
    rendered = clients.pandoc_render(path, keys, tmp_path)
    for key, got in zip(keys, rendered):
        paper = papers[key]
        want = written(paper)
        for name, value in want.items():
            variable = {"keywords": "keyword", "venue": (
                "publisher" if paper.entry_type in ("book", "thesis", "report", "preprint",
                                                    "misc") else "container-title")
            }.get(name, name)
            assert same_for_pandoc(got.get(variable), value), (key, name, got.get(variable))
        if paper.metadata.date:
            assert got["issued"].startswith(paper.metadata.date[:4]), key
        if paper.metadata.doi:
            assert got["DOI"] == paper.metadata.doi, key


def test_pandoc_reads_names_dates_and_types(exported, tmp_path):
    _lib, path, _text, papers = exported
    done = clients.run([clients.program("pandoc"), "-f", "bibtex", "-t", "csljson",
                        str(path)])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    import json
    items = {i["id"]: i for i in json.loads(done.stdout)}
    assert set(items) == set(papers)
    for key, paper in papers.items():
        item = items[key]
        names = []
        for a in item.get("author", []):
            if "literal" in a:
                names.append(a["literal"])
            else:
                family = " ".join(filter(None, [a.get("dropping-particle"),
                                                a.get("non-dropping-particle"),
                                                a["family"]]))
                names.append(f"{family}, {a['given']}" if a.get("given") else family)
        # Braces in names are written as macros, which pandoc drops.
        assert names == [as_pandoc_shows(re.sub("[{}]", "", str(a)))
                         for a in paper.authors], key
        if paper.metadata.date:
            parts = [int(p) for p in paper.metadata.date.split("-")]
            assert item["issued"]["date-parts"][0] == parts, key
        else:
            assert "issued" not in item, key


# -- citation-js -------------------------------------------------------------------------
def test_citation_js_reads_every_text_as_written(exported):
    _lib, _path, text, papers = exported
    read = clients.citation_js("bibtex", text)
    assert [entry for entry in read["log"] if entry[0] in ("warn", "error")] == []
    items = {i["id"]: i for i in read["items"]}
    assert set(items) == set(papers)
    for key, paper in papers.items():
        item = items[key]
        for name, value in written(paper).items():
            if name == "keywords":
                assert [k.strip() for k in item["keyword"].split(",")] == \
                    [t.name for t in paper.tags], key
                continue
            variable = {"venue": "publisher" if paper.entry_type in (
                "book", "thesis", "report", "preprint", "misc") else "container-title"
            }.get(name, name)
            assert one_line(item[variable]) == value, (key, name)
        names = [(a.get("non-dropping-particle", "") + " " + a["family"]).strip()
                 + (", " + a["given"] if a.get("given") else "")
                 for a in item.get("author", [])]
        assert names == [str(a) for a in paper.authors], key
        if paper.metadata.date:
            parts = [int(p) for p in paper.metadata.date.split("-")]
            assert item["issued"]["date-parts"][0] == parts, key
        if paper.metadata.doi:
            assert item["DOI"] == paper.metadata.doi, key
        if paper.metadata.arxiv_id and not paper.metadata.url:   # the link to the paper
            assert item["URL"] == "https://arxiv.org/abs/" + paper.metadata.arxiv_id, key


def test_the_hostile_comment_survives_citation_js(cited_library):
    # one direct look, so that a regression shows the text itself
    lib = cited_library
    pid = lib.cited["hostile"][0]
    item = clients.citation_js("bibtex", lib.exports.text([pid], "bibtex"))["items"][0]
    assert item["annote"].endswith("— " + HOSTILE_COMMENT)


# -- bibtex, biber -----------------------------------------------------------------------
def test_bibtex_reads_every_entry_without_an_error(exported, tmp_path):
    _lib, path, _text, papers = exported
    bibtex = clients.program("bibtex")
    (tmp_path / "refs.bib").write_bytes(path.read_bytes())
    (tmp_path / "doc.aux").write_text("\\citation{*}\n\\bibstyle{plain}\n\\bibdata{refs}\n")
    done = clients.run([bibtex, "doc"], cwd=tmp_path)
    log = (tmp_path / "doc.blg").read_text(encoding="utf-8", errors="replace")
    assert "error message" not in log and "I was expecting" not in log, log[-3000:]
    assert done.returncode in (0, 1), log[-3000:]          # 1: warnings only
    warnings = {re.sub(r" in \S+$", "", line) for line in log.splitlines()
                if line.startswith("Warning--")}
    # Only "this entry lacks data paperdesk does not have": nothing dropped or misread.
    allowed = {"Warning--to sort, need author or key", "Warning--empty publisher",
               "Warning--empty booktitle", "Warning--empty journal", "Warning--empty year",
               "Warning--empty school", "Warning--empty institution"}
    assert warnings <= allowed, warnings - allowed
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8")
    assert bbl.count("\\bibitem{") == len(papers)


def test_biber_validates_the_data_model(exported, tmp_path):
    _lib, path, _text, papers = exported
    biber = clients.program("biber")
    done = clients.run([biber, "--tool", "--validate-datamodel", "--output-file",
                        str(tmp_path / "out.bib"), str(path)], cwd=tmp_path)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "ERROR" not in output, output[-3000:]
    warnings = {re.sub(r"Entry '[^']*' \([^)]*\): ", "", line.split("WARN - ", 1)[1])
                for line in output.splitlines() if "WARN - " in line}
    # biber's tool mode does not apply biblatex's mapping of archiveprefix -> eprinttype
    # (biblatex does); eprinttype carries the same, so nothing is lost. The others are
    # data paperdesk does not have (no date, no editor for a chapter).
    allowed = {"Datamodel: Field 'archiveprefix' invalid in data model - ignoring",
               "Datamodel: Missing mandatory field - one of 'date, year' must be defined",
               "Datamodel: Missing mandatory field 'editor'"}
    assert warnings <= allowed, warnings - allowed
    assert (tmp_path / "out.bib").read_text(encoding="utf-8").lower().count("\n@") + 1 \
        >= len(papers)


# -- LaTeX -------------------------------------------------------------------------------
def _compile(lib, ids, tmp_path, backend, preamble="", engine="pdflatex"):
    bib = tmp_path / "papers.bib"
    lib.exports.to_file(ids, "bibtex", bib)
    work = tmp_path / backend
    work.mkdir()
    result = clients.compile_latex(work, bib, backend, engine=engine, preamble=preamble)
    assert result["latex_errors"] == [], result["latex_errors"][:5]
    assert "ERROR" not in result["backend"] and "error message" not in result["backend"], \
        result["backend"][-3000:]
    count = result["bbl"].count("\\bibitem{") + result["bbl"].count("\\entry{")
    assert count == len(ids)
    return result


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_the_seed_library_compiles_with_pdflatex(cited_library, tmp_path, backend):
    lib = cited_library
    seeds = [i for i in lib.papers.ids()
             if i not in lib.cited["hostile"] + [lib.cited["unicode"], lib.cited["quotes"]]]
    assert len(seeds) == 225
    _compile(lib, seeds, tmp_path, backend)                # LaTeX's defaults: OT1 fonts


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_hostile_text_compiles_with_pdflatex_and_t1_fonts(cited_library, tmp_path, backend):
    # Guillemets (and other T1 glyphs) need \usepackage[T1]{fontenc} under pdflatex.
    lib = cited_library
    ids = [i for i in lib.papers.ids() if i != lib.cited["unicode"]]
    _compile(lib, ids, tmp_path, backend, preamble="\\usepackage[T1]{fontenc}\n")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_cjk_emoji_and_math_symbols_compile_with_lualatex(cited_library, tmp_path, backend):
    # pdflatex cannot typeset them (docs/export.md); the bib tools read them and LuaLaTeX runs.
    lib = cited_library
    _compile(lib, [lib.cited["unicode"]], tmp_path, backend, engine="lualatex")


# -- JabRef ------------------------------------------------------------------------------
@pytest.mark.slow
def test_jabref_reads_every_entry_with_its_key(exported, tmp_path):
    _lib, path, _text, papers = exported
    saved, output = clients.jabref_convert(path, "bibtex", tmp_path)
    assert "error" not in output.lower() and "exception" not in output.lower(), output
    library = bibtexparser.parse_string(saved)
    assert library.failed_blocks == []
    entries = {e.key: e for e in library.entries}
    assert set(entries) == set(papers)
    for key, paper in papers.items():
        fields = entries[key].fields_dict
        assert fields["title"].value == "{" + latex_text(paper.title) + "}", key
        assert ("year" in fields) == (paper.metadata.date is not None), key
        if paper.metadata.date:
            assert fields["year"].value == paper.metadata.date[:4], key


def test_biblatex_extended_name_format_gives_the_named_parts():
    # citation-js's test inputs use biblatex's extended name format; read as a classic
    # name it gave an author "given=A" with the given name "given=C".
    from paperdesk.core.imports.bibtex import read_bibtex
    text = ("@misc{a, title={A}, author = {given=A, family=B}}\n"
            "@misc{b, title={B}, author = {given=A=B, family=C}}\n"
            "@misc{c, title={C}, author = {given=A, family=B, given=C}}\n"
            "@misc{d, title={D}, author = {family=Beethoven, prefix=van, given=Ludwig "
            "and Doe, Jr., John}}\n")
    got = {r.citation_key: [(a.family, a.given, a.suffix) for a in r.metadata.authors]
           for r in read_bibtex("names.bib", text, "utf-8").records}
    assert got == {"a": [("B", "A", "")], "b": [("C", "A=B", "")], "c": [("B", "C", "")],
                   "d": [("van Beethoven", "Ludwig", ""), ("Doe", "John", "Jr.")]}
