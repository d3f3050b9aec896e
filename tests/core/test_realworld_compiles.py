"""Issue 25's "not done until": every file of ``../shared/realworld/`` imported into one
library, exported as BibTeX, compiles with bibtex and with biber (biblatex) without an
error, and pandoc ``--citeproc`` renders it with "et al." and the maths as in the source.
Skips with the reason when a program is absent.

The export is UTF-8 (what biber reads and LaTeX's default input encoding since 2018).
pdflatex typesets Latin script with its default fonts; text in Cyrillic, Greek, Hebrew
or CJK (a few entries of the CSL test suite and bibtexparser's GBK file) needs a Unicode
engine (lualatex, xelatex) or that script's fonts, as it would from the original file.
So every entry whose text pdflatex's default T1 fonts can set is compiled with pdflatex,
and the others with lualatex: each entry once (the whole export with lualatex too took
two minutes of ``make test`` and found nothing the two halves do not)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clients import compile_latex
from paperdesk.core.library import Library

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "realworld"
FILES = sorted(p for p in REALWORLD.glob("*") if p.suffix in {".bib", ".ris", ".json"}) \
    if REALWORLD.is_dir() else []

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not FILES, reason=f"the real files are not in {REALWORLD}")]


@pytest.fixture(scope="module")
def everything(tmp_path_factory) -> Path:
    """The BibTeX export of one library holding every real file."""
    folder = tmp_path_factory.mktemp("realworld")
    with Library.open(folder / "lib") as lib:
        lib.imports.run(FILES)
        out = folder / "all.bib"
        lib.exports.to_file(lib.papers.ids(), "bibtex", out)
    return out


#: What pdflatex with T1 fonts and UTF-8 input sets: ASCII, Latin-1, Latin Extended-A and
#: the usual punctuation (quotes, dashes, ellipsis, euro, bullet).
_PDFLATEX = set(map(chr, range(0x20, 0x7f))) | set(map(chr, range(0xa0, 0x180))) | \
    set("‘’‚“”„–—…€•†‡‰′″\n\t")


def _split_entries(bib: Path, latin: Path, other: Path) -> tuple[int, int]:
    """Write the entries of ``bib`` that pdflatex's default fonts can set to ``latin``
    and the others to ``other``; return how many went to each."""
    entries = ["@" + e for e in bib.read_text(encoding="utf-8").split("\n@") if e.strip()]
    entries[0] = entries[0][1:]
    kept = [e for e in entries if set(e) <= _PDFLATEX]
    rest = [e for e in entries if not set(e) <= _PDFLATEX]
    latin.write_text("\n".join(kept), encoding="utf-8")
    other.write_text("\n".join(rest), encoding="utf-8")
    return len(kept), len(rest)


@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_the_export_of_every_real_file_compiles(everything, backend, tmp_path):
    (tmp_path / "lualatex").mkdir()
    (tmp_path / "pdflatex").mkdir()
    latin, other = tmp_path / "latin.bib", tmp_path / "other.bib"
    count, rest = _split_entries(everything, latin, other)
    assert count > 1500 and rest    # most of them: a few are in other scripts
    result = compile_latex(tmp_path / "pdflatex", latin, backend, passes_after=1,
                           preamble="\\usepackage[T1]{fontenc}\n")
    assert result["latex_errors"] == [], result["latex_errors"][:5]
    assert ("et~al." if backend == "bibtex" else "\\true{moreauthor}") in result["bbl"]
    scripts = compile_latex(tmp_path / "lualatex", other, backend, engine="lualatex",
                            passes_after=1)
    assert scripts["latex_errors"] == [], scripts["latex_errors"][:5]
    assert scripts["bbl"].count("\\bibitem" if backend == "bibtex" else "\\entry") == rest


def test_pandoc_renders_et_al_and_maths(everything, tmp_path):
    if shutil.which("pandoc") is None:
        pytest.skip("pandoc is not installed")
    doc = tmp_path / "doc.md"
    doc.write_text("---\nnocite: '@*'\n---\n", encoding="utf-8")
    done = subprocess.run(["pandoc", "--citeproc", "--bibliography", str(everything),
                           "-t", "plain", str(doc)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    text = " ".join(done.stdout.split())
    assert "et al." in text
    assert "D → 4" in text          # $D\rightarrow4$ of JabRef's testjabref.bib
    assert "\\rightarrow" not in text
