"""arXiv's bulk metadata (JSON Lines, as in the snapshot published on Kaggle): detection,
the fields filled in, LaTeX, filters, merging by arXiv id, and reading in bounded memory.
The fixture ``data/imports/arxiv-metadata.jsonl`` is hand-made in the snapshot's shape."""

import dataclasses
import datetime as dt
import json
import shutil
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from helpers import arxiv_lines
from paperdesk.core.imports.arxiv import (ArxivFilter, decode_tex_text, is_arxiv_object,
                                          sniff_file)
from paperdesk.core.imports.detect import detect_text
from paperdesk.core.imports.formats import folder_patterns
from paperdesk.core.library import Library
from paperdesk.core.metadata import check_arxiv_id

DATA = Path(__file__).parent / "data" / "imports"
FIXTURE = DATA / "arxiv-metadata.jsonl"


@pytest.fixture
def lib(tmp_path):
    with Library.open(tmp_path / "lib") as library:
        yield library


def _by_arxiv(lib):
    out = {}
    for pid in lib.papers.ids():
        paper = lib.papers.get(pid)
        out[paper.metadata.arxiv_id or f"paper {pid}"] = paper
    return out


def test_fixture_imports_with_its_metadata(lib):
    report = lib.imports.run([FIXTURE])
    f = report.files[0]
    assert (f.format, f.header, f.error) == ("arxiv-jsonl", "arXiv metadata", None)
    assert (f.added, f.enriched, f.duplicates, f.without_abstract, f.skipped) == \
        (15, 1, 0, 1, 3)
    papers = _by_arxiv(lib)
    p = papers["0704.0101"]
    assert p.title == ("Calculation of prompt diphoton production cross sections at "
                       "Tevatron and LHC energies")
    assert p.abstract.startswith("A fully differential calculation in perturbative quantum "
                                 "chromodynamics is presented")
    assert "the $p_T$ of the pair is resummed" in p.abstract
    m = p.metadata
    assert [str(a) for a in m.authors] == ["Balázs, C.", "Berger, E. L.", "Nadolsky, P. M.",
                                           "Yuan, C. -P."]
    assert (m.date, m.doi, m.venue, m.entry_type, m.url) == (
        "2007-04-02", "10.1103/PhysRevD.76.013009", "Phys.Rev.D76:013009,2007", "article",
        "https://arxiv.org/abs/0704.0101")
    assert p.entry_type == "article"


def test_old_style_ids_latex_and_author_strings(lib):
    lib.imports.run([FIXTURE])
    papers = _by_arxiv(lib)
    for old in ("hep-th/9901001", "math/0406594", "physics/0102003", "astro-ph/0001001"):
        assert check_arxiv_id(old) == old
        assert papers[old].metadata.url == f"https://arxiv.org/abs/{old}"
    hep = papers["hep-th/9901001"]
    assert hep.title == "Duality and the $\\mathcal{N}=2$ string in curved backgrounds"
    assert [str(a) for a in hep.metadata.authors] == ["Doe, J.", "Roe, R.", "Müller, K."]
    assert hep.metadata.doi is None and hep.metadata.date == "1999-01-01"
    cats = papers["physics/0102003"]
    assert cats.title == "Schrödinger cats in über-cold atoms"
    assert cats.abstract == ("Naïve models of ultracold gases predict a 50% loss; we measure "
                             "$\\sim 10^{3}$ atoms in a Göttingen-style trap.")
    math = papers["math/0406594"]
    assert [(a.family, a.given, a.suffix) for a in math.metadata.authors] == [
        ("González", "María", ""), ("Smith", "John", "Jr")]
    assert math.metadata.entry_type is None and math.entry_type == "preprint"
    assert [str(a) for a in papers["2401.01234"].metadata.authors] == ["Tanaka, Yuki",
                                                                        "Øster, Lars"]


def test_notes_name_the_lines(lib):
    report = lib.imports.run([FIXTURE])
    notes = report.files[0].warnings
    assert "line 7: not JSON (Invalid control character at column 83); left out" in notes
    assert "line 16: not a JSON object; left out" in notes
    assert "line 10 (2405.00004): no title and no abstract; left out" in notes
    assert any(n.startswith("line 11 (9999.99999): arxiv: '9999.99999' is not an arXiv "
                            "identifier") for n in notes)
    assert any(n.startswith("line 19 (astro-ph/0001001): doi: 'not-a-doi'") for n in notes)
    bad_id = _by_arxiv(lib)[[k for k in _by_arxiv(lib) if k.startswith("paper")][0]]
    assert bad_id.title == "A record whose id is not an arXiv identifier"
    assert bad_id.metadata.url is None


def test_same_id_later_in_the_file_enriches_and_reimport_changes_nothing(lib):
    lib.imports.run([FIXTURE])
    depth = _by_arxiv(lib)["2401.01234"]
    assert depth.metadata.venue == "Proc. CVPR 2024" and depth.entry_type == "article"
    n = lib.papers.count()
    again = lib.imports.run([FIXTURE])
    assert (again.added, again.enriched, again.duplicates) == (0, 0, 16)
    assert lib.papers.count() == n


def test_a_paper_already_in_the_library_is_enriched_by_arxiv_id(lib, tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text("@misc{mine, title = {My own title for the depth paper}, "
                   "eprint = {2401.01234v1}, archiveprefix = {arXiv}}\n", encoding="utf-8")
    first = lib.imports.run([bib])
    assert first.added == 1
    lib.imports.run([FIXTURE])
    paper = lib.papers.get(first.added_ids[0])
    assert paper.title == "My own title for the depth paper"
    assert paper.abstract.startswith("We propose a self-supervised method")
    assert paper.metadata.date == "2024-01-02"
    assert [str(a) for a in paper.metadata.authors] == ["Tanaka, Yuki", "Øster, Lars"]
    assert sum(1 for p in _by_arxiv(lib).values()
               if p.metadata.arxiv_id and p.metadata.arxiv_id.startswith("2401.01234")) == 1


@pytest.mark.parametrize("categories,since,expected", [
    (("cs.CV",), None, {"2401.01234", "2312.04567", "2404.00003", "2403.10001",
                        "2406.00007", "1412.9999", "paper"}),
    (("cs.CV",), dt.date(2024, 1, 1), {"2401.01234", "2404.00003", "2403.10001",
                                       "2406.00007", "paper"}),
    (("math",), None, {"math/0406594", "1501.00005"}),
    (("hep-th", "q-bio"), None, {"hep-th/9901001", "2101.00006"}),
    ((), dt.date(2024, 2, 1), {"2402.00001", "2404.00003", "2406.00007", "2403.10001",
                               "paper"}),
])
def test_filters(lib, categories, since, expected):
    report = lib.imports.run([FIXTURE], arxiv_filter=ArxivFilter(categories, since))
    got = {k.split(" ")[0] for k in _by_arxiv(lib)}
    assert got == expected
    f = report.files[0]
    assert f.filtered > 0 and report.to_dict()["filtered"] == f.filtered


def test_category_rule():
    f = ArxivFilter(("cs.CV", "math"))
    assert f.keeps_categories("cs.LG cs.CV")
    assert f.keeps_categories("math.AG") and f.keeps_categories("math")
    assert not f.keeps_categories("math-ph") and not f.keeps_categories("cs.CVX cs.LG")
    assert not f.keeps_categories("")
    assert ArxivFilter().keeps_categories("") and not ArxivFilter()


def test_detection_by_content_and_folder_takes_jsonl(tmp_path, lib):
    assert "*.jsonl" in folder_patterns()
    first = FIXTURE.read_text(encoding="utf-8").splitlines()[0]
    assert is_arxiv_object(json.loads(first))
    assert detect_text(FIXTURE.read_text(encoding="utf-8")) == "arxiv-jsonl"
    assert detect_text(first) == "arxiv-jsonl"
    # Kaggle's snapshot is named .json
    snapshot = tmp_path / "folder" / "arxiv-metadata-oai-snapshot.json"
    snapshot.parent.mkdir()
    shutil.copy(FIXTURE, snapshot)
    shutil.copy(FIXTURE, tmp_path / "folder" / "copy.jsonl")
    report = lib.imports.run([snapshot.parent])
    assert [f.format for f in report.files] == ["arxiv-jsonl", "arxiv-jsonl"]
    assert report.added == 15


def test_other_json_lines_are_refused(lib, tmp_path):
    other = tmp_path / "log.jsonl"
    other.write_text('{"level": "info", "msg": "x"}\n{"level": "warn", "msg": "y"}\n',
                     encoding="utf-8")
    report = lib.imports.run([other])
    assert report.rejected == [{"path": str(other), "reason": (
        "JSON Lines that are not arXiv metadata (the first object has no id with a title "
        "or abstract and categories, versions or authors_parsed)")}]
    assert sniff_file(other, other) is None


def test_a_file_whose_every_entry_is_left_out_is_refused_and_leaves_no_source(lib, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("".join(json.dumps({"id": f"2101.0000{i}", "title": "", "abstract": "",
                                         "categories": "cs.LG"}) + "\n" for i in (1, 2)),
                     encoding="utf-8")
    report = lib.imports.run([empty])
    assert report.rejected == [{"path": str(empty), "reason": (
        "no arXiv metadata entry with a title or an abstract (line 1 (2101.00001): no "
        "title and no abstract)")}]
    assert lib.db.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 0
    # one record the filters leave out is a good record: the file is not refused
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(empty.read_text(encoding="utf-8") + json.dumps(
        {"id": "2101.00003", "title": "T", "abstract": "A", "categories": "math.AG"}) + "\n",
        encoding="utf-8")
    report = lib.imports.run([mixed], arxiv_filter=ArxivFilter(("cs",), None))
    assert report.rejected == [] and (report.skipped, report.filtered) == (2, 1)


def test_standard_input_streams(tmp_path):
    with open(FIXTURE, "rb") as stdin:
        r = subprocess.run([sys.executable, "-m", "paperdesk", "--library",
                            str(tmp_path / "lib"), "import", "--category", "cs.CV",
                            "--since", "2024", "-", "--json"], stdin=stdin,
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["files"][0]["path"] == "<stdin>" and doc["files"][0]["format"] == "arxiv-jsonl"
    assert (doc["added"], doc["enriched"], doc["filtered"]) == (5, 1, 10)
    # lines 7 (cut short) and 16 (not an object) are noted, not counted as filtered
    notes = doc["files"][0]["warnings"]
    assert any(n.startswith("line 7: not JSON") for n in notes)
    assert "line 16: not a JSON object; left out" in notes


def test_cli_since_is_checked(tmp_path):
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(tmp_path / "l"),
                        "import", "--since", "last week", str(FIXTURE)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "not a date like 2024-01-31" in r.stderr


def test_cancel_keeps_whole_batches(lib, tmp_path, monkeypatch):
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 4)
    batches = []
    report = lib.imports.run([FIXTURE], cancel=lambda: len(batches) >= 2,
                              progress=lambda stage, done, total: batches.append(done)
                              if stage == "import" and done else None)
    assert report.cancelled and report.files[0].cancelled
    assert 0 < report.added < 15 and lib.papers.count() == report.added


@pytest.mark.parametrize("text,expected", [
    ("  The $\\alpha$-model of Schr\\\"odinger\n  equations", "The α-model of "
                                                          "Schrödinger equations"),
    ("  The $\\alpha_1$-model", "The $\\alpha_1$-model"),
    ("cost $O(n \\log n)$ and $$E = mc^2$$ with \\(x\\) in \\'etude",
     "cost $O(n \\log n)$ and $$E = mc^2$$ with \\(x\\) in étude"),
    ("a 50\\% gain, {\\em fast}, price \\$5", "a 50% gain, fast, price $5"),
    # citations and cross-references show what the author wrote (pylatexenc: "<cit.>")
    ("as in \\cite{smith2020} and \\citep[p.~5]{a, b_c}", "as in [smith2020] and [a, b_c]"),
    ("Fig.~\\ref{fig:1} and Eq.~\\eqref{e1}", "Fig. [fig:1] and Eq. ([e1])"),
])
def test_latex_outside_maths_is_decoded_maths_kept(text, expected):
    assert decode_tex_text(text) == expected


def _write_snapshot(path: Path, lines: int, keep_every: int) -> int:
    """A synthetic snapshot: ``lines`` records, one in ``keep_every`` in q-bio.NC and
    submitted in 2025; every abstract names q-bio, so that each line is decoded."""
    kept = 0
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(lines):
            cat = "q-bio.NC" if n % keep_every == 0 else "cs.LG stat.ML"
            kept += cat == "q-bio.NC"
            year = 2025 if cat == "q-bio.NC" or n % 2 else 2023
            fh.write(json.dumps({
                "id": f"2{n // 100000 % 4 + 1:01d}{n // 10000 % 10 + 1:02d}.{n % 100000:05d}",
                "submitter": "S", "authors": "A. Author, B. Author",
                "title": f"Synthetic record {n}",
                "journal-ref": None, "doi": None, "categories": cat,
                "abstract": f"  Synthetic abstract number {n} about learning\nsomething "
                            "with a model (not q-bio), written for a memory test.\n",
                "versions": [{"version": "v1", "created": f"Mon, 1 Jan {year} 10:00:00 GMT"}],
                "update_date": "2024-01-02",
                "authors_parsed": [["Author", "A.", ""], ["Author", "B.", ""]]}) + "\n")
    return kept


def test_a_large_snapshot_imports_in_bounded_memory(tmp_path):
    path = tmp_path / "snapshot.json"
    kept = _write_snapshot(path, 200_000, 20_000)
    assert path.stat().st_size > 80 * 1024 * 1024
    with Library.open(tmp_path / "lib") as lib:
        tracemalloc.start()
        started = time.monotonic()
        try:
            report = lib.imports.run([path], arxiv_filter=ArxivFilter(
                ("q-bio",), since=dt.date(2024, 6, 1)))
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        elapsed = time.monotonic() - started
    assert report.added == kept == 10 and report.filtered == 200_000 - kept
    assert not report.rejected
    # The file is 80+ MB; reading it whole would take at least that.
    assert peak < 10 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB in {elapsed:.0f} s"


def _counting_identifier_reads(monkeypatch) -> list:
    from paperdesk.core.imports import pipeline

    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 3)
    reads = []
    real = pipeline.Identifiers

    def counting(db):
        reads.append(1)
        return real(db)

    monkeypatch.setattr("paperdesk.core.imports.pipeline.Identifiers", counting)
    return reads


def _import_with_one_edit(tmp_path, edit) -> tuple[object, list]:
    """Import the fixture (batches of 3) into a new library; ``edit(lib, pid)`` runs
    once, between two batches, on a paper already stored. Returns (report, [pid])."""
    edits = []
    with Library.open(tmp_path / "lib2") as other:
        def hook():
            if other.papers.count() and not edits:
                pid = other.papers.ids()[0]
                edit(other, pid)
                edits.append(pid)

        report = other.imports.run([FIXTURE], between_batches=hook)
    return report, edits


def test_identifiers_are_read_once_for_an_import(lib, monkeypatch):
    reads = _counting_identifier_reads(monkeypatch)
    report = lib.imports.run([FIXTURE])
    assert report.added == 15 and len(reads) == 1


def test_a_star_or_tag_between_batches_does_not_read_the_identifiers_again(
        tmp_path, monkeypatch):
    """The window's star and tag edits run between an import's batches: at a million
    arXiv records, reading every paper's identifiers again after each one made an edit
    during the import cost seconds."""
    reads = _counting_identifier_reads(monkeypatch)

    def star_and_tag(lib, pid):
        lib.papers.set_starred([pid], True)
        lib.tags.add([pid], "to-read")

    report, edits = _import_with_one_edit(tmp_path, star_and_tag)
    assert edits and report.added == 15 and len(reads) == 1


@pytest.mark.parametrize("what", ["star", "doi"])
def test_another_connections_edit_reads_them_again_only_if_it_touched_identifiers(
        tmp_path, monkeypatch, what):
    """The window's edits while its import process stores come from another connection
    (another process): a star from there leaves the kept identifiers alone (before the
    ``identifier_writes`` counter, any commit elsewhere made the import read a million
    papers' identifiers again); a DOI set there makes the import read them again."""
    reads = _counting_identifier_reads(monkeypatch)
    edits = []
    with Library.open(tmp_path / "lib2") as lib:
        window = Library.open_in_helper(lib.path)      # a connection of its own

        def hook():
            if lib.papers.count() and not edits:
                pid = lib.papers.ids()[0]
                if what == "star":
                    window.papers.set_starred([pid], True)
                else:
                    window.papers.set_metadata(pid, dataclasses.replace(
                        window.papers.metadata(pid), doi="10.5555/elsewhere.2024"))
                edits.append(pid)

        try:
            report = lib.imports.run([FIXTURE], between_batches=hook)
        finally:
            window.close()
        assert edits and report.added == 15
        assert len(reads) == (1 if what == "star" else 2)
        assert lib.papers.get(edits[0]).starred == (what == "star")


@pytest.mark.parametrize("what", ["doi", "citation key", "delete"])
def test_an_identifier_edit_or_a_delete_between_batches_reads_them_again(
        tmp_path, monkeypatch, what):
    reads = _counting_identifier_reads(monkeypatch)

    def edit(lib, pid):
        meta = lib.papers.metadata(pid)
        if what == "doi":
            lib.papers.set_metadata(pid, dataclasses.replace(meta, doi="10.5555/edited.2024"))
        elif what == "citation key":      # set_metadata writes every metadata column
            lib.papers.set_metadata(pid, meta, citation_key="edited2024")
        else:
            lib.removal.delete_papers([pid])

    report, edits = _import_with_one_edit(tmp_path, edit)
    assert edits and len(reads) >= 2
    assert not report.rejected and not any(f.error for f in report.files)


def _arxiv_lines(path: Path, n: int) -> Path:
    """``n`` distinct cs records in the snapshot's shape (ids 2401.00000 on)."""
    return arxiv_lines(path, n)


def test_an_edit_queued_during_an_arxiv_batch_runs_within_a_chunk_of_records(
        lib, tmp_path, monkeypatch):
    """The window passes ``hurry`` (edits queued behind the import): the batch is
    committed after the chunk being stored and the edits run, instead of after the
    whole batch (up to 300 records, a quarter of a second or more at a million); the
    records read and not stored yet go into the next batch, none lost or doubled."""
    from paperdesk.core.imports import pipeline

    path = _arxiv_lines(tmp_path / "arxiv.jsonl", 200)
    stored = []
    waiting = []            # an edit is queued
    ran_after = []          # records stored when the queued edit ran
    real = pipeline.store_records

    def counting(db, records, *args, **kwargs):
        out = real(db, records, *args, **kwargs)
        stored.append(len(records))
        if sum(stored) >= 40 and not ran_after and not waiting:
            waiting.append(1)       # "a star is pressed" after 40 records
        return out

    def between_batches():
        if waiting:
            ran_after.append(sum(stored))
            waiting.clear()

    monkeypatch.setattr(pipeline, "store_records", counting)
    report = lib.imports.run([path], between_batches=between_batches,
                             hurry=lambda: bool(waiting))
    assert ran_after and ran_after[0] <= 40 + pipeline.HURRY_CHUNK
    assert report.added == 200 and lib.papers.count() == 200 and sum(stored) == 200
    assert sorted(lib.papers.metadata(pid).arxiv_id for pid in lib.papers.ids()) == \
        [f"2401.{i:05d}" for i in range(200)]


@pytest.mark.parametrize("categories", [(), ("cs",)])
def test_a_large_file_read_by_the_child_process_stores_the_same(tmp_path, monkeypatch,
                                                                categories):
    """An arXiv file of PARSE_CHILD_MIN_BYTES or more is read, decoded and checked by
    the import's child process while the importing thread stores: the same papers,
    counts and notes as reading it in the importing thread."""
    from paperdesk.core.imports import parse_process

    path = _arxiv_lines(tmp_path / "arxiv.jsonl", 300)
    with path.open("a", encoding="utf-8") as f:       # notes and left-out lines too
        f.write("not json at all\n")
        f.write(json.dumps({"id": "2402.00001", "title": "Physics only",
                            "abstract": "A field theory abstract about gauge fields.",
                            "categories": "hep-th", "authors": "C. Field"}) + "\n")
        f.write(json.dumps({"id": "2402.00002", "categories": "cs.AI"}) + "\n")
    wanted = ArxivFilter(categories=categories)

    def imported(folder: str, child: bool):
        started = parse_process.ParseChild.started
        monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES",
                            1 if child else 1 << 40)
        with Library.open(tmp_path / folder) as lib:
            report = lib.imports.run([path], arxiv_filter=wanted)
            papers = sorted((lib.papers.metadata(pid).arxiv_id, lib.papers.get(pid).abstract)
                            for pid in lib.papers.ids())
        f = report.files[0]
        return ((report.added, f.skipped, f.filtered, f.warnings, papers),
                parse_process.ParseChild.started - started)

    here, none_started = imported("here", child=False)
    there, started = imported("there", child=True)
    assert none_started == 0 and started == 1
    assert there == here
    assert here[0] == 300 + (0 if categories else 1) and here[1] >= 2
    if categories:
        assert here[2] == 1
