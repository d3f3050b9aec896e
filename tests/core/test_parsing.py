"""Parsing Daily Papers files: the real seeds and hand-made nasty files."""

import pytest

from paperdesk.core.imports.daily_papers import ParseError, collect_files, parse_text, read_file
from paperdesk.core.text import extract_urls

from helpers import write_daily


def test_each_seed_file_has_header_and_120_abstracts(seed_files):
    for path in seed_files:
        pf = read_file(path)
        assert pf.header == "Daily Papers"
        assert pf.encoding == "utf-8"
        assert len(pf.abstracts) == 120
        assert [a.position for a in pf.abstracts] == list(range(1, 121))
        assert all(a.abstract == a.abstract.strip() and "  " not in a.abstract
                   for a in pf.abstracts)


def test_seeds_hold_240_abstracts_15_shared(seed_files):
    first, second = (read_file(p) for p in seed_files)
    a = {x.abstract for x in first.abstracts}
    b = {x.abstract for x in second.abstracts}
    assert len(first.abstracts) + len(second.abstracts) == 240
    assert len(a & b) == 15
    assert len(a | b) == 225


def test_seed_first_abstract(seed_files):
    pf = read_file(seed_files[0])
    first = pf.abstracts[0].abstract
    assert first.startswith("The advancement in Large Language Models has driven")
    assert extract_urls(first) == ["https://github.com/SauravP97/Static-Deep-Research/"]


def test_no_seed_url_ends_in_punctuation(seed_files):
    urls = [u for p in seed_files for a in read_file(p).abstracts
            for u in extract_urls(a.abstract)]
    assert len(urls) > 50
    assert not [u for u in urls if u[-1] in ".,;:)}"]
    assert "https://github.com/acfr/LBDN" in urls


def test_crlf_bom_and_extra_blank_lines(tmp_path):
    path = write_daily(tmp_path / "crlf.txt", ["First  abstract\r\nwrapped.", "", "Second."],
                       header="My Feed", newline="\r\n", bom=True)
    pf = read_file(path)
    assert pf.header == "My Feed"
    assert [a.abstract for a in pf.abstracts] == ["First abstract wrapped.", "Second."]


def test_latin1_file_is_decoded(tmp_path):
    path = write_daily(tmp_path / "latin1.txt",
                       ["Un résumé détaillé sur la modélisation des réseaux profonds, "
                        "écrit en français avec des accents très nombreux."],
                       encoding="latin-1")
    pf = read_file(path)
    assert "résumé détaillé" in pf.abstracts[0].abstract


def test_file_without_header_keeps_every_paragraph(tmp_path):
    long = "This abstract is long enough not to be mistaken for a header line. " * 4
    path = tmp_path / "noheader.txt"
    path.write_text(long + "\n\n" + long.upper() + "\n", encoding="utf-8")
    pf = read_file(path)
    assert pf.header == "noheader"
    assert len(pf.abstracts) == 2


@pytest.mark.parametrize("content, reason", [
    (b"", "file is empty"),
    (b" \n\n ", "file is empty"),
    (b"Daily Papers\n\n", "no abstracts"),
    (b"\x00\x01\x02binary\x00", "not a text file"),
])
def test_bad_files_are_rejected_with_reason(tmp_path, content, reason):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(ParseError) as err:
        read_file(path)
    assert reason in err.value.reason
    assert str(path) in str(err.value)


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ParseError, match="no such file"):
        read_file(tmp_path / "nope.txt")
    with pytest.raises(ParseError, match="folder holds no .txt files"):
        read_file(tmp_path)


def test_collect_files_recurses_and_skips_hidden(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / ".hidden").mkdir()
    for p in ["a/2.txt", "a/1.txt", ".hidden/x.txt", "notes.md", "top.txt"]:
        (tmp_path / p).write_text("x")
    (tmp_path / "empty").mkdir()
    files = collect_files([tmp_path, tmp_path / "notes.md", tmp_path / "empty"])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == \
        ["a/1.txt", "a/2.txt", "top.txt", "notes.md", "empty"]


def test_parse_text_header_rule():
    header, abstracts = parse_text("Header\n\nOne.\n\n\n\nTwo.\n")
    assert header == "Header"
    assert abstracts == ["One.", "Two."]
