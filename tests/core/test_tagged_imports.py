"""Web of Science and PubMed/MEDLINE tagged files read as two registered importers, and
files that are neither refused (issue 25, item 4).

The real Web of Science export is rispy's ``example_wos.ris`` (read in place from
/work/shared/realworld: before, it became 3 papers whose abstract was the record text
and one whose abstract was "EF"). The fixtures ``wos_savedrecs.txt`` and ``pubmed.nbib``
(tests/core/data/imports) are written in the exports' exact shape (Clarivate's field
tags; NLM's MEDLINE elements), with the nasty cases: keywords broken across lines,
group and corporate authors, article numbers, abbreviated page ranges, a record whose
continuation lost its indentation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core.fields import stored_fields
from paperdesk.core.imports.detect import detect_file, detect_text
from paperdesk.core.imports.formats import IMPORT_FORMATS, file_dialog_filter, folder_patterns
from paperdesk.core.imports.medline import full_pages, read_medline
from paperdesk.core.imports.tagged import named_date
from paperdesk.core.imports.wos import read_wos
from paperdesk.core.library import Library

DATA = Path(__file__).parent / "data" / "imports"
WOS = DATA / "wos_savedrecs.txt"
NBIB = DATA / "pubmed.nbib"
REAL_WOS = Path("/work/shared/realworld/rispy_example_wos.ris")


def _read(reader, path: Path):
    found = detect_file(path)
    return found.format, reader(found.path, found.text, found.encoding)


def _papers(lib: Library) -> dict[str, object]:
    return {p.title: p for p in (lib.papers.get(i) for i in lib.papers.ids())}


def _names(paper) -> list[tuple[str, str]]:
    return [(a.family, a.given) for a in paper.authors]


# -- Web of Science ---------------------------------------------------------------------
@pytest.mark.skipif(not REAL_WOS.is_file(), reason=f"{REAL_WOS} is not on this machine")
def test_the_real_wos_export_is_two_papers_not_garbage(tmp_path):
    assert detect_file(REAL_WOS).format == "wos"
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([REAL_WOS])
        papers = _papers(lib)
    assert (report.added, report.rejected, report.files[0].format) == (2, [], "wos")
    first = papers["Interactions stabilizing the structure of the core light-harvesting "
                   "complex (LHl) of photosynthetic bacteria and its subunit (B820)"]
    assert _names(first) == [("Parkes-Loach", "P. S."), ("Majeed", "A. P."),
                             ("Law", "C. J."), ("Loach", "P. A.")]
    meta = first.metadata
    assert (meta.date, meta.doi, meta.entry_type, meta.url) == (
        "2004-06-08", "10.1021/bi049798f", "article",
        "https://pubmed.ncbi.nlm.nih.gov/15170338/")                 # PM 15170338
    values = dict(meta.values)
    assert [values[k] for k in ("venue", "volume", "issue", "pages")] == [
        "Biochemistry", "43", "22", "7003-7016"]
    assert first.abstract.startswith("Reconstitution experiments with a chemically")
    second = papers["Proximal and distal influences on ligand binding kinetics in "
                    "microperoxidase and heme model compounds"]
    assert len(second.authors) == 9 and second.metadata.doi == "10.1021/bi0497291"
    assert all("PT J" not in p.abstract and p.abstract != "EF" for p in papers.values())


def test_wos_fields_names_dates_and_types():
    fmt, out = _read(read_wos, WOS)
    assert fmt == "wos"
    by_title = {r.title: r for r in out.records}
    article = by_title["Coastal upwelling detected from drifting buoy arrays with sparse "
                       "Gaussian process models"]
    # AF (full names) preferred to AU; CA added as an organisation.
    assert [(a.family, a.given) for a in article.metadata.authors] == [
        ("Nakamura", "Hiroshi"), ("Okafor", "Chidi N."), ("van der Berg", "Jeroen"),
        ("Ocean Sensing Consortium", "")]
    assert article.metadata.date == "2021-03"        # PY 2021, PD MAR-APR; not DA
    assert article.abstract.startswith("Drifting buoys sample the coastal ocean unevenly. "
                                       "We fit sparse Gaussian process models")
    assert (article.metadata.doi, article.metadata.entry_type, article.metadata.url) == (
        "10.1175/JTECH-D-20-0099.1", "article", None)
    assert article.keywords == ("Gaussian processes", "upwelling", "drifting buoys",
                                "sparse approximation", "SEA-SURFACE TEMPERATURE",
                                "CALIFORNIA CURRENT", "VARIABILITY", "OCEAN OBSERVING SYSTEM")
    values = dict(article.metadata.values)
    assert (values["venue"], values["volume"], values["issue"], values["pages"]) == (
        "Journal of Atmospheric and Oceanic Technology", "38", "3", "455-470")
    paper = by_title["Proof-carrying code for drone swarms"]
    assert (paper.metadata.entry_type, paper.metadata.date, paper.abstract) == (
        "inproceedings", "2019-12", "")
    assert dict(paper.metadata.values)["pages"] == "12"          # AR, no BP
    chapter = by_title["Soil carbon under no-till farming"]
    assert (chapter.metadata.entry_type, dict(chapter.metadata.values)["pages"]) == (
        "incollection", "101-130")


@pytest.mark.parametrize("name,title,value", [
    ("issn", "Coastal upwelling", "0739-0572"), ("publisher", "Coastal upwelling",
                                                 "AMER METEOROLOGICAL SOC"),
    ("language", "Proof-carrying", "French"), ("isbn", "Proof-carrying", "978-3-030-30941-1"),
])
def test_wos_publisher_isbn_issn_language(name, title, value):
    if name not in {f.name for f in stored_fields()}:
        pytest.skip(f"the {name} row of the field table is not there yet (issue 25, fields)")
    _fmt, out = _read(read_wos, WOS)
    record = next(r for r in out.records if r.title.startswith(title))
    assert dict(record.metadata.values)[name] == value


def test_a_wos_record_that_cannot_be_read_is_left_out_with_a_note(tmp_path):
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([WOS])
    (f,) = report.files
    assert (f.added, f.without_abstract, f.skipped) == (3, 1, 1)
    assert [w for w in f.warnings if "left out" in w] == ["record 4 (WOS:000999999900001): line 103 is neither a field (two "
                         "capitals or a capital and a digit, then a space) nor a continuation "
                         "(indented by three spaces); left out"]


def test_a_wos_record_without_its_header_is_wos_and_a_cut_file_is_read_with_a_note():
    text = ("PT J\nAU Smith, J\nTI Deep learning for things\nSO JOURNAL OF THINGS\n"
            "PY 2020\nER\n\nPT J\nAU Doe, A\nTI A record the file ends in\nPY 2021\n")
    assert detect_text(text) == "wos"
    out = read_wos("cut.txt", text, "utf-8")
    assert [(r.title, r.metadata.authors[0].given) for r in out.records] == [
        ("Deep learning for things", "J."), ("A record the file ends in", "A.")]
    assert out.warnings == ["record 2 (line 8): the file ends without its ER line; read to "
                            "the end of the file"]


# -- PubMed/MEDLINE ---------------------------------------------------------------------
def test_medline_fields_names_dates_and_types():
    fmt, out = _read(read_medline, NBIB)
    assert fmt == "medline"
    article, audit, chapter = out.records
    meta = article.metadata
    assert article.title == ("Ligand rebinding in heme proteins measured by femtosecond "
                             "Raman spectroscopy")                    # no MEDLINE full stop
    assert [(a.family, a.given) for a in meta.authors] == [
        ("Kowalczyk", "Agnieszka M"), ("Osei", "Kwame"), ("Dupont-Aignan", "Jean-Luc")]
    assert (meta.date, meta.doi, meta.entry_type, meta.url) == (
        "2019-04-09", "10.1021/acs.biochem.9b00012", "article",
        "https://pubmed.ncbi.nlm.nih.gov/31000123/")
    values = dict(meta.values)
    assert (values["venue"], values["volume"], values["issue"], values["pages"]) == (
        "Biochemistry", "58", "14", "1873-1884")                   # PG 1873-84
    assert article.keywords == ("femtosecond spectroscopy", "ligand binding", "Animals",
                                "Hemeproteins", "Myoglobin")
    assert [(a.family, a.given) for a in audit.metadata.authors] == [
        ("National Infection Audit Group", "")]
    assert (audit.metadata.date, audit.metadata.doi, dict(audit.metadata.values)["pages"]) == (
        "2018", "10.1371/journal.pone.0207744", "e0207744")
    assert (chapter.metadata.entry_type, dict(chapter.metadata.values)["venue"]) == (
        "incollection", "Clinical Guidelines for Sleep Medicine")
    assert out.skipped == [
        "record 4 (PMID 28000111): line 88 is neither a field (a tag of up to four "
        "capitals, then '- ') nor a continuation (indented by six spaces); left out",
        "record 5 (PMID 27000222): no title and no abstract; left out"]


def test_medline_short_names_get_initials():
    text = ("PMID- 1\nTI  - A title.\nAU  - Loach PA\nAU  - van Gogh V\nDP  - 1990 Dec\n")
    out = read_medline("x.nbib", text, "utf-8")
    (record,) = out.records
    assert [(a.family, a.given) for a in record.metadata.authors] == [
        ("Loach", "P. A."), ("van Gogh", "V.")]
    assert record.metadata.date == "1990-12"


@pytest.mark.parametrize("pages,full", [("7003-16", "7003-7016"), ("123-9", "123-129"),
                                        ("1873-1884", "1873-1884"), ("e0207744", "e0207744"),
                                        ("S1-8", "S1-8")])
def test_medline_page_ranges_are_written_whole(pages, full):
    assert full_pages(pages) == full


@pytest.mark.parametrize("texts,date", [
    (("2004", "JUN 8"), "2004-06-08"), (("2021", "MAR-APR"), "2021-03"),
    (("2004", "SPR"), "2004"), (("2019 Apr 9",), "2019-04-09"), (("2018 Winter",), "2018"),
    (("2019 Jun 8-14",), "2019-06-08"), (("JUN",), None)])
def test_dates_with_month_names(texts, date):
    assert named_date(*texts) == date


# -- registered, offered, refused -------------------------------------------------------
def test_both_are_registered_and_offered():
    names = [f.name for f in IMPORT_FORMATS.entries()]
    assert "wos" in names and "medline" in names
    assert {"*.ciw", "*.nbib"} <= set(folder_patterns())
    assert "Web of Science tagged export (*.txt *.ciw)" in file_dialog_filter()
    assert "PubMed/MEDLINE (*.nbib *.txt)" in file_dialog_filter()


def test_a_folder_import_takes_nbib_and_ciw(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "export.ciw").write_bytes(WOS.read_bytes())
    (folder / "citations.nbib").write_bytes(NBIB.read_bytes())
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([folder])
    assert sorted((Path(f.path).name, f.format, f.added) for f in report.files) == [
        ("citations.nbib", "medline", 3), ("export.ciw", "wos", 3)]


@pytest.mark.parametrize("name,text,reason", [
    ("broken.txt", "FN Clarivate Analytics Web of Science\nVR 1.0\nThe export was cut off "
     "by the mail program\nand nothing of it is left.\nEF\n",
     "no Web of Science entry with a title or an abstract (record 1 (line 3): line 3 is "
     "neither a field"),
    ("bad.nbib", "PMID- 123\nXXXX garbage\n", "no PubMed/MEDLINE entry with a title or an "
     "abstract (record 1 (PMID 123): line 2 is neither a field"),
    ("tags.txt", "AB hello there\nCD world of tags\nXY z value\nER\n\nAB again\nCD tags\nER\n",
     "not abstracts: 2 of 2 paragraphs are key-value lines"),
])
def test_neither_format_is_refused_in_one_line_nothing_stored(tmp_path, capsys, name, text,
                                                               reason):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    folder = tmp_path / "lib"
    assert main(["--library", str(folder), "import", str(path)]) != 0
    err = capsys.readouterr().err
    (line,) = [ln for ln in err.splitlines() if "rejected" in ln]
    assert line.startswith(f"paperdesk: rejected {path}: {reason}")
    assert "Traceback" not in err
    with Library.open(folder) as lib:
        assert lib.papers.ids() == []


@pytest.mark.parametrize("written, shown", [
    ("JOURNAL OF APPLIED PHYSICS", "Journal of Applied Physics"),
    ("IEEE TRANSACTIONS ON PATTERN ANALYSIS AND MACHINE INTELLIGENCE",
     "IEEE Transactions on Pattern Analysis and Machine Intelligence"),
    ("THE LANCET", "The Lancet"),
    ("PROCEEDINGS OF THE NATIONAL ACADEMY OF SCIENCES OF THE UNITED STATES OF AMERICA",
     "Proceedings of the National Academy of Sciences of the United States of America"),
    ("ADVANCES IN NEURAL INFORMATION PROCESSING SYSTEMS 32 (NIPS 2019)",
     "Advances in Neural Information Processing Systems 32 (NIPS 2019)"),
    ("PLOS ONE", "PLOS One"),
    ("Nature Communications", "Nature Communications"),       # has lower case: as written
    ("", ""),
])
def test_a_venue_in_capitals_is_title_cased(written, shown):
    from paperdesk.core.imports.wos import venue_case
    assert venue_case(written) == shown
