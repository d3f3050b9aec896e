"""The round trip of issue 25: every real file of ``../shared/realworld/`` (what JabRef,
Zotero, rispy, bibtexparser, citation-js and the CSL test suite use as their own test
inputs) → import → export in BibTeX, RIS and CSL-JSON → import into a new library gives
the same papers: titles, authors, years, venues, DOIs, arXiv ids, citation keys, tags and
notes.

Each paper also gets a tag and a note before the export (so the files carry both even
where the source had none); papers are matched across the two libraries by their
citation key, which the exports write (BibTeX key, RIS ``ID``, CSL ``id``).

What a format cannot carry, by design (docs/export.md), is compared in the form the
export writes it:

* TeX maths in a title is maths in BibTeX and its readable form in RIS and CSL-JSON
  ("D → 4"), so it comes back from those two readable;
* RIS names are ``Family, Given[, Suffix]`` on one line: a literal name with a comma in
  it, or a given name with one, cannot be told from those parts (the CSL test suite's
  ``magic_NameSuffix*``/``name_LiteralWithComma`` items); such papers are left out of the
  RIS comparison;
* entries that the written format makes one work (two records with the same type,
  title, authors, date and fields once a format's types or maths are mapped) come back
  as one paper that keeps the other's key as an alias (the key is still found) and
  whose note holds both notes.

A file refused whole (JabRef's corrupted RIS: no record starts with ``TY``) has nothing
to round trip; its refusal is tested in ``test_import_real_ris_csl.py``.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from paperdesk.core.library import Library
from paperdesk.core.tex_math import readable_math

REALWORLD = Path(__file__).resolve().parents[3] / "shared" / "realworld"
FILES = sorted(p for p in REALWORLD.glob("*") if p.suffix in {".bib", ".ris", ".json"}) \
    if REALWORLD.is_dir() else []
FORMATS = {"bibtex": "bib", "ris": "ris", "csl-json": "json"}

pytestmark = pytest.mark.skipif(not FILES, reason=f"the real files are not in {REALWORLD}")


def _text(value) -> str:
    """NFC, white space runs as one space, without the invisible direction marks
    (U+200E, U+200F), which the BibTeX export leaves out: pdflatex stops at them."""
    value = (value or "").replace("\u200e", "").replace("\u200f", "")
    return " ".join(unicodedata.normalize("NFC", value).split())


REFUSED = {"jabref_RisImporterCorrupted.ris"}


def _paper(lib: Library, pid: int, readable: bool = False) -> dict:
    """What must survive the round trip, for one paper (its title's maths readable when
    ``readable``)."""
    p = lib.papers.get(pid)
    meta = p.metadata
    return {"title": _text(readable_math(p.title) if readable else p.title),
            "authors": [(_text(a.family), _text(a.given)) for a in meta.authors],
            "year": meta.year, "venue": _text(meta.value("venue")),
            "doi": (meta.doi or "").lower(), "arxiv": meta.arxiv_id or "",
            "tags": sorted(t.name for t in p.tags), "note": _text(p.note)}


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """``{file name: (library, {key: paper})}``, each real file in a library of its
    own with a tag and a note on every paper (built once for the module)."""
    made: dict[str, tuple[Library, dict[str, dict]]] = {}
    yield made
    for lib, _papers in made.values():
        lib.close()


def _library_of(imported, tmp_path_factory, path: Path):
    if path.name not in imported:
        lib = Library.open(tmp_path_factory.mktemp("source") / "lib")
        lib.imports.run([path])
        ids = lib.papers.ids()
        lib.tags.add(ids, "round-trip")
        lib.auto_sync_index = False      # one index update for all the notes, not one
        for pid in ids:                  # per note (the CSL suite has 1,350 papers)
            lib.notes.set(pid, f"Read for the round trip: paper {lib.papers.citation_key(pid)}.")
        lib.auto_sync_index = True
        lib.index.sync()
        imported[path.name] = (lib, ids)
    return imported[path.name]


def _comma_in_a_name(paper: dict) -> bool:
    return any("," in family or "," in given for family, given in paper["authors"])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_real_file_survives_export_and_import(path, fmt, imported, tmp_path_factory):
    if path.name in REFUSED:
        pytest.skip(f"{path.name} is refused whole (no record starts with TY)")
    lib, ids = _library_of(imported, tmp_path_factory, path)
    assert ids, f"{path.name}: nothing imported"
    readable = fmt != "bibtex"
    before = {lib.papers.citation_key(pid): _paper(lib, pid, readable) for pid in ids}
    out = tmp_path_factory.mktemp("export") / f"all.{FORMATS[fmt]}"
    lib.exports.to_file(ids, fmt, out)
    with Library.open(tmp_path_factory.mktemp("again") / "lib") as again:
        again.imports.run([out])
        after = {again.papers.citation_key(pid): _paper(again, pid)
                 for pid in again.papers.ids()}
        aliases = {alias for pid in again.papers.ids()
                   for alias in again.papers.get(pid).key_aliases}
    lost = set(before) - set(after)
    assert not lost - aliases and not set(after) - set(before), (
        f"{path.name} → {fmt}: the keys differ: lost {sorted(lost - aliases)}, new "
        f"{sorted(set(after) - set(before))}")
    for key in lost:
        del before[key]
    for key, paper in before.items():      # a paper that took in a merged entry: its
        if after[key]["note"] != paper["note"] and paper["note"] in after[key]["note"]:
            after[key]["note"] = paper["note"]   # note holds the merged one's note too
    if fmt == "ris":
        before = {k: p for k, p in before.items() if not _comma_in_a_name(p)}
    wrong = {key: {field: (value, after[key][field]) for field, value in paper.items()
                   if after[key][field] != value}
             for key, paper in before.items()}
    wrong = {key: fields for key, fields in wrong.items() if fields}
    assert not wrong, f"{path.name} → {fmt}: {len(wrong)} papers differ, e.g. " + \
        "; ".join(f"{k}: {v}" for k, v in list(wrong.items())[:3])
