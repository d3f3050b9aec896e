"""Import and export formats are registered once (issue 24, item 4): a format added by
a module plus one registration is detected, imported, offered by the CLI and listed in
the Import dialog's file types, and gone again once unregistered. The window's own use of
the registry is tested in tests/ui/test_ui_import_formats.py."""

from __future__ import annotations

import pytest

from format_plugin import REGISTRATION, write_tsv
from paperdesk.cli import build_parser, main
from paperdesk.core.exports.formats import (EXPORT_FORMATS, FORMATS, ExportFormat,
                                            export_format)
from paperdesk.core.imports.detect import detect_file
from paperdesk.core.imports.formats import (IMPORT_FORMATS, file_dialog_filter,
                                            folder_patterns)


@pytest.fixture
def tsv_format():
    """The test format, registered for one test."""
    IMPORT_FORMATS.register(REGISTRATION)
    yield REGISTRATION
    IMPORT_FORMATS.unregister(REGISTRATION.name)


@pytest.fixture
def tsv_file(seeded_library, tmp_path):
    """A file of the test format holding the first 12 seed papers' titles and
    abstracts."""
    papers = [seeded_library.papers.get(pid) for pid in range(1, 13)]
    path = tmp_path / "files" / "papers.tsvx"
    path.parent.mkdir()
    write_tsv(path, papers)
    return path, papers


def test_a_registered_format_is_detected_and_imported(tsv_format, tsv_file, empty_library):
    path, papers = tsv_file
    assert detect_file(path).format == "test-tsv"
    report = empty_library.imports.run([path])
    (file_report,) = report.files
    assert (file_report.format, file_report.header, file_report.added) == (
        "test-tsv", "test TSV", 12)
    assert [empty_library.papers.get(pid).title for pid in report.added_ids] == [
        p.title for p in papers]
    assert empty_library.search.hits(f'"{papers[3].title}"')[0].id == report.added_ids[3]


def test_a_registered_format_is_found_in_folders(tsv_format, tsv_file, seeded_library):
    path, _papers = tsv_file
    assert "*.tsvx" in folder_patterns()
    report = seeded_library.imports.run([path.parent])
    (file_report,) = report.files
    assert (file_report.format, file_report.added, file_report.duplicates) == ("test-tsv",
                                                                               0, 12)


def test_the_cli_offers_and_imports_a_registered_format(tsv_format, tsv_file, tmp_path,
                                                        capsys):
    path, _papers = tsv_file
    parser = build_parser()
    import_help = parser._subparsers._group_actions[0].choices["import"].format_help()
    assert "*.tsvx" in import_help
    assert "tab-separated test records" in parser.format_help()
    assert main(["--library", str(tmp_path / "cli"), "import", str(path)]) == 0
    assert "12 added" in capsys.readouterr().out


def test_the_import_dialog_lists_a_registered_format(tsv_format):
    assert "Tab-separated test records (*.tsvx)" in file_dialog_filter()
    assert "*.tsvx" in file_dialog_filter().split(";;")[0]


def test_an_unregistered_format_is_refused_again(tsv_file):
    path, _papers = tsv_file
    assert "test-tsv" not in {f.name for f in IMPORT_FORMATS.entries()}
    assert detect_file(path).format == "text"      # its lines read as plain text
    assert "tsvx" not in file_dialog_filter()


def test_the_built_in_import_dialog_filter_is_unchanged():
    # Issue 25 added Web of Science and PubMed/MEDLINE after RIS.
    assert file_dialog_filter() == (
        "Abstracts and bibliographies (*.txt *.bib *.ris *.ciw *.nbib *.json *.jsonl);;"
        "Text: Daily Papers or one abstract per paragraph (*.txt);;BibTeX (*.bib);;"
        "RIS (*.ris);;Web of Science tagged export (*.txt *.ciw);;"
        "PubMed/MEDLINE (*.nbib *.txt);;CSL-JSON or paperdesk JSON (*.json);;"
        "arXiv metadata, JSON Lines (*.jsonl);;All files (*)")


def test_a_registered_export_format_is_offered_and_written(seeded_library, tmp_path,
                                                           capsys):
    titles = ExportFormat(
        "titles", "Titles", "one title a line", ".txt",
        lambda papers, keep, _searches: (p.title + "\n" for p in papers))
    EXPORT_FORMATS.register(titles)
    try:
        assert EXPORT_FORMATS.names()[-1] == "titles"
        assert seeded_library.exports.text([1, 2], "titles") == "".join(
            seeded_library.papers.get(pid).title + "\n" for pid in (1, 2))
        third = seeded_library.papers.get(3).title
        seeded_library.close()
        assert main(["--library", str(seeded_library.path), "export", "--ids", "3",
                     "--format", "titles"]) == 0
        assert capsys.readouterr().out == third + "\n"
    finally:
        EXPORT_FORMATS.unregister("titles")
    assert EXPORT_FORMATS.names() == FORMATS
    with pytest.raises(ValueError, match="unknown export format 'titles'"):
        export_format("titles")

