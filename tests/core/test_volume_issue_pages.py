"""Volume, issue and pages: three rows of the field table (and schema 9) that show, sort,
search, import from BibTeX, RIS and CSL-JSON, export to every format and are edited
with ``paperdesk edit``, without code naming them anywhere else.

Real files: the repository's import fixtures (tests/core/data/imports) and, where the
machine has them, the real-world files in /work/shared/realworld (read in place).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from helpers import imported_back
from paperdesk.cli import main
from paperdesk.core.fields import field, stored_fields
from paperdesk.core.library import Library
from paperdesk.core.models import Metadata, field_values
from paperdesk.core.store.schema import SCHEMA_VERSION

DATA = Path(__file__).parent / "data" / "imports"
REALWORLD = Path("/work/shared/realworld")
needs_realworld = pytest.mark.skipif(not REALWORLD.is_dir(),
                                     reason="no real-world files in /work/shared/realworld")


def _vip(meta: Metadata) -> tuple:
    """The venue, volume, issue and pages of ``meta.values`` (the other fields the files
    carry, such as ISSN and language, are another test's)."""
    return tuple(p for p in meta.values if p[0] in ("venue", "volume", "issue", "pages"))


def _by_title(lib: Library, words: str):
    return next(lib.papers.get(i) for i in lib.papers.ids() if words in lib.papers.get(i).title)


def test_the_three_are_table_rows_with_their_format_names():
    assert [f.name for f in stored_fields(containers=False)][:3] == ["volume", "issue", "pages"]
    assert (field("volume").bibtex, field("volume").ris, field("volume").csl) == (
        "volume", "VL", "volume")
    assert (field("issue").bibtex, field("issue").ris, field("issue").csl) == (
        "number", "IS", "issue")
    assert (field("pages").bibtex, field("pages").ris, field("pages").ris_end,
            field("pages").csl) == ("pages", "SP", "EP", "page")
    assert SCHEMA_VERSION >= 9


def test_imported_from_bibtex_ris_and_csl_json(tmp_path):
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([DATA / "zotero.bib", DATA / "scopus.ris",
                          Path(__file__).parent / "data" / "csl-data.json"])
        bib = _by_title(lib, "Deep")          # volume = {12}, number = {5}, pages = {250--259}
        assert _vip(bib.metadata) == (("venue", "Nature Machine Intelligence"),
                                       ("volume", "12"), ("issue", "5"),
                                       ("pages", "250-259"))
        ris = _by_title(lib, "transversely isotropic")     # VL 88, SP 1, EP 12
        assert _vip(ris.metadata) == (("venue", "Journal of Biomechanics"),
                                       ("volume", "88"), ("pages", "1-12"))


@needs_realworld
def test_real_world_files_keep_them(tmp_path):
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([REALWORLD / "jabref_RisImporterTestScience.ris",
                          REALWORLD / "zotero_CSLJSON_js_test000.json",
                          REALWORLD / "jabref_BibtexImporter.examples.bib"])
        science = _by_title(lib, "Phase separation")    # VL 121, IS empty, SP 310, EP 324
        assert _vip(science.metadata) == (("venue", "Acta Materialia"),
                                           ("volume", "121"), ("pages", "310-324"))
        csl = _by_title(lib, "Stochastic biomathematical")
        assert csl.metadata.value("volume") == "2058"
        counted = [p for p in map(lib.papers.get, lib.papers.ids()) if p.metadata.value("pages")]
        assert len(counted) >= 2


def _exports(lib: Library, pid: int) -> dict[str, str]:
    return {fmt: lib.exports.text([pid], fmt)
            for fmt in ("bibtex", "ris", "csl-json", "csv", "json")}


def test_exported_to_every_format_and_read_back(seeded_library, tmp_path):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    meta = lib.papers.metadata(pid)
    lib.papers.set_metadata(pid, Metadata(authors=meta.authors, date="2020", venue="J. Tests",
                                   entry_type="article",
                                   values=field_values({"volume": "42", "issue": "3",
                                                        "pages": "101-117"})))
    out = _exports(lib, pid)
    assert "  volume = {42},\n  number = {3},\n  pages = {101--117}," in out["bibtex"]
    assert "VL  - 42\nIS  - 3\nSP  - 101\nEP  - 117\n" in out["ris"]
    item = json.loads(out["csl-json"])[0]
    assert (item["volume"], item["issue"], item["page"]) == ("42", "3", "101-117")
    row = next(csv.DictReader(io.StringIO(out["csv"].lstrip("\ufeff"))))
    assert (row["volume"], row["issue"], row["pages"]) == ("42", "3", "101-117")
    doc = json.loads(out["json"])["papers"][0]
    assert (doc["volume"], doc["issue"], doc["pages"]) == ("42", "3", "101-117")
    # Each export, imported into an empty library, gives the paper its three values.
    for fmt, back in imported_back(out, tmp_path).items():
        assert _vip(back.metadata) == (("venue", "J. Tests"), ("volume", "42"),
                                        ("issue", "3"), ("pages", "101-117")), fmt


def test_sorted_searched_and_listed(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids(order="added")
    for pid, volume in zip(ids, ("10", "9", "100")):
        lib.papers.set_metadata(pid, Metadata(values=field_values({"volume": volume})))
    up = lib.papers.ids(order="volume")
    assert up[:3] == [ids[1], ids[0], ids[2]]          # as numbers: 9, 10, 100
    down = lib.papers.ids(order="volume", descending=True)
    assert down[:3] == [ids[2], ids[0], ids[1]]
    # Papers without a volume come last either way (as for the venue).
    assert len(up) == 225 and up[3:] == down[3:][::-1]
    assert [h.id for h in lib.search.hits("volume:100")] == [ids[2]]
    assert lib.papers.summaries([ids[2]])[ids[2]].value("volume") == "100"


def test_cli_edit_and_show(seeded_library, capsys):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    folder = str(lib.path)
    lib.close()
    assert main(["--library", folder, "edit", str(pid), "--volume", "7", "--pages",
                 "1-9"]) == 0
    out = capsys.readouterr().out
    assert "volume:  7" in out and "pages:   1-9" in out
    assert main(["--library", folder, "show", str(pid), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["metadata"]
    assert (shown["volume"], shown["issue"], shown["pages"]) == ("7", "", "1-9")
    assert main(["--library", folder, "edit", str(pid), "--volume", ""]) == 0
    capsys.readouterr()
    with Library.open(Path(folder)) as again:
        assert again.papers.metadata(pid).values == (("pages", "1-9"),)


def test_a_merge_fills_them_from_the_other_paper(seeded_library):
    from paperdesk.core.duplicates import plan_merge

    lib = seeded_library
    keep, other = lib.papers.ids()[:2]
    lib.papers.set_metadata(keep, Metadata(values=field_values({"volume": "5"})))
    lib.papers.set_metadata(other, Metadata(values=field_values({"volume": "6", "pages": "3-4"})))
    plan = plan_merge(lib.papers.get(keep), lib.papers.get(other))
    assert _vip(plan.metadata) == (("volume", "5"), ("pages", "3-4"))
    assert "pages" in plan.filled and "volume" not in plan.filled


def _version_8(seeded_library, folder: Path) -> Path:
    """A copy of the seed library as schema 8 wrote it (without the three columns)."""
    shutil.copytree(seeded_library.path, folder)
    seeded_library.close()
    db = sqlite3.connect(folder / "library.db")
    for column in ("volume", "issue", "pages"):
        db.execute(f"ALTER TABLE papers DROP COLUMN {column}")
    db.execute("PRAGMA user_version = 8")
    db.commit()
    db.close()
    return folder


def test_a_version_8_library_gets_the_columns_and_a_backup(seeded_library, tmp_path):
    folder = _version_8(seeded_library, tmp_path / "old")
    with Library.open(folder) as lib:
        assert len(lib.papers.ids()) == 225
        assert lib.papers.get(lib.papers.ids()[0]).metadata.values == ()
        columns = {r[1] for r in lib.db.execute("PRAGMA table_info(papers)")}
        assert {"volume", "issue", "pages"} <= columns
        # The index written by schema 8 is rebuilt with the new search fields.
        pid = lib.papers.ids()[3]
        lib.papers.set_metadata(pid, Metadata(values=field_values({"volume": "77"})))
        assert [h.id for h in lib.search.hits("volume:77")] == [pid]
    assert any(p.name.startswith("library-v8-") for p in (folder / "backups").iterdir())


def test_a_damaged_version_8_library_is_salvaged_into_the_current_schema(
        seeded_library, tmp_path, capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))   # benchmarks.*
    from benchmarks.salvage_bench import damage

    folder = _version_8(seeded_library, tmp_path / "old")
    damage(folder, "cut50")
    assert main(["--library", str(folder), "repair", "--salvage"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "recovered" in out
    with Library.open(folder) as lib:
        assert lib.papers.ids() and lib.papers.get(lib.papers.ids()[0]).metadata.values == ()
        lib.papers.set_metadata(lib.papers.ids()[0], Metadata(values=field_values({"issue": "2"})))
        assert lib.papers.metadata(lib.papers.ids()[0]).value("issue") == "2"
