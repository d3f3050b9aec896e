"""Counts the command line shows people have thousands separators ("1,100"), as the
import's output has (a fresh-user tester found `stats`, `sources` and the search's
"shown" line printing "1100"); ``--json`` keeps plain numbers. A library of 1,100
Zipf abstracts in one file (:mod:`benchmarks.zipf_synth`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks import zipf_synth  # noqa: E402

from paperdesk.cli import main  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402

N = 1100


@pytest.fixture(scope="module")
def big_library(tmp_path_factory) -> tuple[Path, Path]:
    """A library of 1,100 papers from one file; returns (library, the file)."""
    root = tmp_path_factory.mktemp("counts")
    (corpus,) = zipf_synth.write_zipf_files(root / "corpus", N, per_file=N)
    with Library.open(root / "lib") as lib:
        assert lib.imports.run([corpus]).added == N
    return root / "lib", corpus


def _out(capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_stats_shows_counts_with_separators_and_json_plain_numbers(big_library, capsys):
    lib, _corpus = big_library
    lines = _out(capsys, "--library", str(lib), "stats").splitlines()
    for line in ("papers: 1,100", "indexed: 1,100", "searchable: 1,100", "unread: 1,100",
                 "sources: 1", "pending_index: 0"):
        assert line in lines, lines
    stats = json.loads(_out(capsys, "--library", str(lib), "stats", "--json"))
    assert stats["papers"] == N == stats["indexed"] and stats["unread"] == N


def test_sources_shows_counts_with_separators(big_library, capsys):
    lib, corpus = big_library
    lines = _out(capsys, "--library", str(lib), "sources").splitlines()
    assert lines == [f"     1   1,100 papers  {corpus}"]
    (listed,) = json.loads(_out(capsys, "--library", str(lib), "sources", "--json"))
    assert listed["papers"] == N


def test_the_search_footer_shows_counts_with_separators(big_library, capsys):
    lib, _corpus = big_library
    lines = _out(capsys, "--library", str(lib), "search", "is:unread").splitlines()
    assert lines[-1] == "(20 of 1,100 shown; use --limit)"
    found = json.loads(_out(capsys, "--library", str(lib), "search", "is:unread", "--json"))
    assert found["total"] == N


def test_tags_shows_counts_with_separators(big_library, capsys):
    lib, _corpus = big_library
    with Library.open(lib) as opened:
        opened.tags.add(opened.papers.ids(), "bulk")
    lines = _out(capsys, "--library", str(lib), "tags").splitlines()
    assert any(line.split()[:1] == ["1,100"] and line.endswith("bulk") for line in lines), lines
    (listed,) = [t for t in json.loads(_out(capsys, "--library", str(lib), "tags", "--json"))
                 if t["name"] == "bulk"]
    assert listed["count"] == N
