"""LaTeX in imported BibTeX and arXiv text: bare ``%`` and ``&``, ``\\^{}``/``\\~{}``,
``@string`` concatenation, "and others", URLs, spaces after macros, maths; and seed
papers enriched (not copied) by a ``.bib`` file holding their abstracts escaped the usual
ways, although decoding turns ``--`` into – and ``''`` into ”. The rules are in
``paperdesk.core.imports.tex``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperdesk.core.exports.latex import latex_text
from paperdesk.core.imports.arxiv import decode_tex_text
from paperdesk.core.imports.bibtex import decode_latex, read_bibtex
from paperdesk.core.library import Library
from paperdesk.core.text import content_hash, normalize

DATA = Path(__file__).parent / "data" / "imports"


def _papers(lib: Library) -> dict:
    return {p.citation_key: p for p in (lib.papers.get(i) for i in lib.papers.ids())}


# -- the decoder ---------------------------------------------------------------------------
@pytest.mark.parametrize("written, text", [
    # a bare % or & is the character (2)
    ("Percent 5% of Q&A in BibTeX", "Percent 5% of Q&A in BibTeX"),
    ("by 5% on\nQ&A, a 12\\% gain over R\\&D", "by 5% on Q&A, a 12% gain over R&D"),
    ("100%% and &&", "100%% and &&"),
    ("a line break \\\\% then", "a line break % then"),     # \\ then a bare %
    # accents on nothing are the characters (4)
    ("R\\^{}2 = 0.9, x\\~{}y, \\^{ } and \\~{}", "R^2 = 0.9, x~y, ^ and ~"),
    ("y\\textasciicircum{}3 and {\\textasciitilde}", "y^3 and ~"),
    ("\\^o and \\~n stay accents", "ô and ñ stay accents"),
    # URLs, spaces after macros, maths (20)
    ("see \\url{https://x.org/a_b}.", "see https://x.org/a_b."),
    ("at https://x.org/~me/a\\_b?q=1&r=2%20 now", "at https://x.org/~me/a_b?q=1&r=2%20 now"),
    ("\\href{https://x.org}{our site}", "our site (https://x.org)"),
    ("one, two, \\ldots and more", "one, two, … and more"),
    ("typeset in \\LaTeX and \\TeX{} too", "typeset in LaTeX and TeX too"),
    ("Stra\\ss e and Bj\\o rn and Sk\\l odowska", "Straße and Bjørn and Skłodowska"),
    ("On the {$\\mathcal{O}(n\\log n)$} Bound", "On the $\\mathcal{O}(n\\log n)$ Bound"),
    ("with $\\alpha \\leq\n \\beta$ here", "with $\\alpha \\leq \\beta$ here"),
    ("{$\\alpha\\beta$}-blending and $\\mu$m", "αβ-blending and μm"),
    ("{$\\mathcal$} and {$\\alpha^2$}x", "$\\mathcal$ and $\\alpha^2$x"),
    ("costs $5 only", "costs $5 only"),
    # what pylatexenc did well stays
    ("{\\\"u}ber \\'etude, \\textit{italic} and \\emph{emph}", "über étude, italic and emph"),
    ("1--2 and---em, ``q''", "1–2 and—em, “q”"),
    ("a~tie and ~3x", "a tie and 3x"),              # in BibTeX ~ is a space
])
def test_bibtex_values_decode_to_the_text_meant(written, text):
    assert decode_latex(written) == text


@pytest.mark.parametrize("written, text", [
    ("Percent & ampersand: 5% of Q&A", "Percent & ampersand: 5% of Q&A"),
    ("  We improve accuracy by 5% on Q&A benchmarks, a 12\\% gain over R&D baselines,\n"
     "and report ~3x speedups.", "We improve accuracy by 5% on Q&A benchmarks, a 12% gain "
                                 "over R&D baselines, and report ~3x speedups."),
    # ~ before a digit at the start of a word is "approximately"; elsewhere a tie
    ("(~10%) of it, see Fig.~2 and Table~3, a~b", "(~10%) of it, see Fig. 2 and Table 3, a b"),
    ("scales as D ~ C^0.12 and W ~\nC", "scales as D ~ C^0.12 and W ~ C"),
    ("code at https://github.com/x/y_z.", "code at https://github.com/x/y_z."),
])
def test_arxiv_text_keeps_bare_percent_ampersand_and_approximately(written, text):
    assert decode_tex_text(written) == text


# -- BibTeX files --------------------------------------------------------------------------
def test_hand_written_entries_decode_whole(tmp_path):
    path = DATA / "latex_edge.bib"
    records = {r.citation_key: r for r in read_bibtex(path, path.read_text("utf-8"),
                                                      "utf-8").records}
    bare = records["bare2023"]
    assert bare.title == "Gains of 5% on Q&A"
    assert bare.abstract == ("Accuracy rises by 5% on Q&A benchmarks and by 7% on R&D "
                             "tasks; Fig. 2 shows it.")
    caret = records["caret2022"]
    assert caret.title == "Fits with R^2 of 0.9 and a ~ sign"
    assert caret.abstract == (
        "We reach R^2 = 0.93 at a cost of ~5 GPU hours, see https://example.org/x_y~z for "
        "the code … and the data; the search is $\\mathcal{O}(n\\log n)$ and uses "
        "α-blending.")


def test_string_concatenation_and_others(empty_library):
    lib = empty_library
    report = lib.imports.run([DATA / "latex_edge.bib"])
    assert report.files[0].error is None and report.added == 3
    paper = _papers(lib)["strcat2021"]
    assert paper.metadata.venue == "Journal of Machine Learning Research (Special Issue)"
    assert [str(a) for a in paper.metadata.authors] == ["Kowalski, Anna", "Østergaard, Per"]
    # issue 25 item 1: "and others" is kept as "et al." (it was dropped with a note)
    assert paper.metadata.et_al
    assert not any("and others" in w for w in report.files[0].warnings)


def test_concatenation_inside_strings_and_quoted_parts(empty_library, tmp_path):
    path = tmp_path / "cat.bib"
    path.write_text(
        '@string{ieee = "IEEE"}\n@STRING{tp = ieee # " Trans. " # {Pattern {A}nal.}}\n'
        '@article{k1, title = "Quoted " # "{P}arts", journal = TP # ", " # 2024,\n'
        '  author = {Doe, Jo}, abstract = {An abstract long enough to be one here.}}\n',
        encoding="utf-8")
    report = empty_library.imports.run([path])
    assert report.added == 1, report.files[0].warnings
    paper = _papers(empty_library)["k1"]
    assert paper.title == "Quoted Parts"
    assert paper.metadata.venue == "IEEE Trans. Pattern Anal., 2024"


def test_bare_percent_in_a_bib_title_keeps_the_title(empty_library, tmp_path):
    path = tmp_path / "pct.bib"
    path.write_text("@article{pct,\n  title = {Gains of 5% in Q&A and more},\n"
                    "  author = {A, B},\n  abstract = {By 5% on Q&A, a gain over\n"
                    "  R&D baselines, and 50% more.},\n}\n", encoding="utf-8")
    empty_library.imports.run([path])
    paper = _papers(empty_library)["pct"]
    assert paper.title == "Gains of 5% in Q&A and more"
    assert paper.abstract == "By 5% on Q&A, a gain over R&D baselines, and 50% more."


# -- arXiv files ---------------------------------------------------------------------------
def test_arxiv_line_with_bare_percent_and_ampersand(empty_library, tmp_path):
    path = tmp_path / "meta.jsonl"
    path.write_text(json.dumps({
        "id": "2402.09999", "authors": "Ann Bee", "title": "Cost & benefit: 7% of A&B",
        "abstract": "  Gains of 4% on A&B tasks, a 9\\% gain over R&D systems,\n"
                    "and ~2x faster.\n",
        "categories": "cs.CL", "versions": [{"version": "v1",
                                             "created": "Thu, 1 Feb 2024 10:00:00 GMT"}],
        "update_date": "2024-02-02"}) + "\n", encoding="utf-8")
    empty_library.imports.run([path])
    (paper,) = [empty_library.papers.get(i) for i in empty_library.papers.ids()]
    assert paper.title == "Cost & benefit: 7% of A&B"
    assert paper.abstract == ("Gains of 4% on A&B tasks, a 9% gain over R&D systems, and "
                              "~2x faster.")


# -- enriching the seed papers (3) ---------------------------------------------------------
_HAND = {"\\": "\\textbackslash{}", "{": "\\{", "}": "\\}", "_": "\\_", "^": "\\^{}",
         "%": "\\%", "&": "\\&", "$": "\\$", "#": "\\#", "~": "\\~{}"}


def hand_escaped(text: str) -> str:
    """The usual escapes a reference manager writes; ``--``, quotes and UTF-8 as they are."""
    return "".join(_HAND.get(c, c) for c in text)


def _seed_bib(lib: Library, escape) -> str:
    out = []
    for n, pid in enumerate(lib.papers.ids()):
        out.append(f"@article{{seed{n},\n  title = {{Seed Paper {n}}},\n"
                   f"  author = {{Tester, Number {n}}},\n  year = {{2024}},\n"
                   f"  abstract = {{{escape(lib.papers.get(pid).abstract)}}},\n}}\n")
    return "\n".join(out)


@pytest.mark.parametrize("escape", [latex_text, hand_escaped],
                         ids=["paperdesk-escaper", "hand-escaped"])
def test_a_bib_of_the_seed_abstracts_enriches_every_seed_paper(seeded_library, tmp_path,
                                                                escape):
    lib = seeded_library
    count = lib.papers.count()
    text = _seed_bib(lib, escape)
    if escape is hand_escaped:      # the seeds' own ligatures and escapes are in it
        assert "--" in text and "''" in text and "\\^{}" in text and "\\~{}" in text
    path = tmp_path / "seeds.bib"
    path.write_text(text, encoding="utf-8")
    report = lib.imports.run([path])
    f = report.files[0]
    assert (f.added, f.enriched, f.duplicates, f.skipped) == (0, count, 0, 0), f.warnings
    assert lib.papers.count() == count
    # found by the abstract's own key, not by the near-duplicate match
    assert not any("near-duplicate" in w for w in f.warnings)
    titles = {lib.papers.get(i).title for i in lib.papers.ids()}
    assert {f"Seed Paper {n}" for n in range(count)} == titles


def test_decoded_seed_abstracts_match_their_papers_keys(seeded_library):
    """The hand-escaped decoding changes characters (–, ”) but not the key; the
    paperdesk escaper gives the text back exactly."""
    changed = 0
    for pid in seeded_library.papers.ids():
        abstract = seeded_library.papers.get(pid).abstract
        assert normalize(decode_latex(latex_text(abstract))) == abstract
        decoded = normalize(decode_latex(hand_escaped(abstract)))
        changed += decoded != abstract
        assert content_hash(decoded) == content_hash(abstract), abstract
    assert changed >= 5      # the seeds' own -- and '' are decoded as – and ”


# -- schema 6: the stored keys recomputed --------------------------------------------------
def test_a_version_5_library_gets_the_folded_keys(tmp_path):
    import hashlib
    import sqlite3

    import sqlite_utils

    from paperdesk.core.store.schema import MIGRATIONS, SCHEMA_VERSION

    def old_key(text: str) -> str:           # content_hash before schema 6
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    folder = tmp_path / "old"
    folder.mkdir()
    db = sqlite_utils.Database(folder / "library.db")
    for step in MIGRATIONS[:5]:
        step(db)
    db.execute("PRAGMA user_version = 5")
    texts = {1: "A study of the 1--2 range in depth.", 2: "A study of the 1–2 range in depth.",
             3: "Curly “quotes” here … and some more words.", 4: "",
             5: "A key that is not this text’s.", 6: "Plain text, nothing to fold."}
    keys = {pid: old_key(t) for pid, t in texts.items()}
    keys[4] = old_key("paperdesk-identity:doi:10.1234/abc")
    keys[5] = "a-key-of-its-own"
    for pid, text in texts.items():
        db.execute("INSERT INTO papers (id, content_hash, title, derived_title, abstract, "
                   "added_at, starred, citation_key) VALUES (?, ?, 't', 't', ?, "
                   "'2026-01-02T03:04:05Z', 0, ?)", [pid, keys[pid], text, f"k{pid}"])
    for pid in (2, 3, 6):
        db.execute("INSERT INTO duplicate_checked (paper_id, content_hash, version) "
                   "VALUES (?, ?, 1)", [pid, keys[pid]])
    db.execute("INSERT INTO duplicate_pairs VALUES (1, 2, ?, ?, 1.0, 'dismissed', 'now')",
               [keys[1], keys[2]])
    db.execute("INSERT INTO duplicate_pairs VALUES (2, 3, 'stale', ?, 0.9, 'open', 'now')",
               [keys[3]])
    db.execute("INSERT INTO merged_hashes VALUES ('merged-key', 3)")
    db.conn.commit()
    db.conn.close()

    with Library.open(folder) as lib:
        assert lib.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 6
        now = dict(lib.db.execute("SELECT id, content_hash FROM papers").fetchall())
        # 1 and 6 have nothing to fold; 4 (an identity) and 5 (not its text's) are kept
        assert (now[1], now[4], now[5], now[6]) == (keys[1], keys[4], keys[5], keys[6])
        assert now[3] == content_hash(texts[3]) != keys[3]
        # 2 is 1 with a typographic dash: both are kept, 1 keeps the key
        assert content_hash(texts[2]) == now[1]
        assert now[2] == old_key(f"paperdesk-kept:2:{texts[2]}")
        checked = dict(lib.db.execute(
            "SELECT paper_id, content_hash FROM duplicate_checked").fetchall())
        assert checked == {2: now[2], 3: now[3], 6: now[6]}
        pairs = lib.db.execute("SELECT paper_a, paper_b, hash_a, hash_b, status FROM "
                               "duplicate_pairs ORDER BY 1, 2").fetchall()
        assert pairs == [(1, 2, now[1], now[2], "dismissed"), (2, 3, "stale", now[3], "open")]
        assert lib.db.execute("SELECT * FROM merged_hashes").fetchall() == [("merged-key", 3)]
        assert lib.papers.count() == 6
        # the exact path finds paper 3 from its LaTeX spelling
        path = tmp_path / "again.bib"
        path.write_text("@article{again, title = {Quotes}, author = {Doe, Jo}, abstract = "
                        "{Curly ``quotes'' here \\ldots{} and some more words.}}\n",
                        encoding="utf-8")
        report = lib.imports.run([path])
        assert (report.added, report.enriched) == (0, 1)
        assert lib.papers.get(3).title == "Quotes" and lib.papers.get(3).abstract == texts[3]
    backups = list((folder / "backups").glob("library-v5-*.db"))
    assert len(backups) == 1
    old = sqlite3.connect(backups[0])
    assert old.execute("PRAGMA user_version").fetchone()[0] == 5
    old.close()


# -- nasty text, both ways -----------------------------------------------------------------
_NASTY = [*"ab c{}\\$%&#_^~<>-'`\"!?,.…–—“”‘’αβΣé1 2 x\ue000",
          "http://x.org/a", "--", "''", " e.g.\\ ", "\\ss", "$x$"]


def _nasty_strings(n: int, seed: int) -> list[str]:
    import random

    rng = random.Random(seed)      # fixed: the same strings on every run
    return ["".join(rng.choice(_NASTY) for _ in range(rng.randint(1, 14)))
            for _ in range(n)]


@pytest.mark.parametrize("flavour", ["bibtex", "arxiv"])
def test_the_export_escaper_round_trips_through_the_decoder(flavour):
    from paperdesk.core.imports.tex import decode_tex

    for text in _nasty_strings(3000, 7):
        assert decode_tex(latex_text(text), flavour) == normalize(text), text


@pytest.mark.parametrize("flavour", ["bibtex", "arxiv"])
def test_hand_escaped_text_decodes_to_the_same_key(flavour):
    from paperdesk.core.imports.tex import decode_tex

    for text in _nasty_strings(3000, 3):
        decoded = normalize(decode_tex(hand_escaped(text), flavour))
        assert content_hash(decoded) == content_hash(normalize(text)), (text, decoded)


def test_the_seed_library_of_schema_5_migrates_and_imports_nothing_twice(
        seeded_library, seed_files):
    import hashlib

    from paperdesk.core.text import hash_form

    lib = seeded_library
    folder, count = lib.path, lib.papers.count()
    with lib.db.conn:                  # back to what schema 5 stored
        for pid, abstract in lib.db.execute("SELECT id, abstract FROM papers").fetchall():
            lib.db.execute("UPDATE papers SET content_hash = ? WHERE id = ?",
                           [hashlib.sha256(abstract.encode()).hexdigest(), pid])
        lib.db.execute("PRAGMA user_version = 5")
    lib.close()                        # (the fixture's close() again is harmless)
    with Library.open(folder) as again:
        rows = again.db.execute("SELECT abstract, content_hash FROM papers").fetchall()
        assert len(rows) == count
        assert all(key == content_hash(abstract) for abstract, key in rows)
        assert sum(hash_form(a) != a for a, _key in rows) >= 3   # the seeds' `` and ''
        report = again.imports.run(seed_files)
        assert (report.added, report.enriched) == (0, 0) and again.papers.count() == count


# -- the fast path: text whose only TeX is maths, escapes and ligatures -----------------
from hypothesis import given, settings, strategies as st  # noqa: E402

from paperdesk.core.imports.tex import (  # noqa: E402
    _decode_in_pieces, _decode_without_walker, _protect, _walk)

_PIECES = st.sampled_from(["a", "Z", "é", "9", " ", "\n", "-", "--", "---", "`", "``", "'",
                           "''", "!", "?", "!`", "?`", "%", "\\%", "&", "\\&", "$", "\\$",
                           "$x^2$", "$\\alpha$", "#", "^", "_", "<", ">", "|", "\"", ".",
                           ",", "(", ")", "~", "~3", "{", "}", "\\", "\\ss", "\\'e",
                           "http://x.org/a_b", "\\url{u}"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join), st.sampled_from(["arxiv", "bibtex"]))
def test_the_fast_path_decodes_as_pylatexenc_does(text, flavour):
    """Where :func:`_decode_without_walker` answers (no braces, ties, macros), it gives
    what pylatexenc's walker gives for the same protected text."""
    protected, _kept = _protect(text, flavour)
    fast = _decode_without_walker(protected)
    if fast is not None:
        assert fast.split() == _walk(protected).split(), (text, protected)


def test_an_arxiv_abstract_with_maths_and_ligatures_takes_the_fast_path():
    protected, _kept = _protect("We bound the $\\ell_1$ error -- 50\\% less --- in "
                                "``all'' cases & more", "arxiv")
    assert _decode_without_walker(protected) is not None
    assert decode_tex_text("We bound the $\\ell_1$ error -- 50\\% less --- in ``all'' "
                           "cases & more") == ("We bound the $\\ell_1$ error – 50% less — in "
                                             "“all” cases & more")
    protected, _kept = _protect("Schr\\\"odinger's {B}ethe ansatz", "arxiv")
    assert _decode_without_walker(protected) is None       # a macro, braces: pylatexenc


_TEX = st.sampled_from(["a", "word", " ", "  ", "\n", "{", "}", "\\'e", "{\\'e}", "\\'", "e",
                        "\\emph", "\\emph{x y}", "\\textit {a}", "\\ldots", "\\LaTeX", "\\TeX",
                        "\\ss", "\\o", "\\c c", "\\hyphen", "\\\\", "\\%", "%", "--", "~", "~3",
                        "\\url{http://a.b/c}", "\\href{u}{t}", "\\enquote{q}", "\\cite{k}",
                        "$x$", "$\\alpha$", "\\{", "\\}", "[", "]", "\\item", "\\\\ ", ".", "-"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_TEX, max_size=16).map("".join), st.sampled_from(["arxiv", "bibtex"]))
def test_decoding_in_pieces_gives_what_walking_the_whole_text_gives(text, flavour):
    """Cutting the text at white space outside braces and not after a command, and
    decoding the pieces, gives pylatexenc's decoding of the whole text (white space
    aside)."""
    protected, _kept = _protect(text, flavour)
    assert _decode_in_pieces(protected).split() == _walk(protected).split(), (text, protected)
