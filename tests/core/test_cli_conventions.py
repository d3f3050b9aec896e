"""A command line as people expect it (issue 11, point 8): search --json with the total
and the suggestion, export -o - to standard output, shell completion, help on every
positional argument."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from paperdesk.cli import COMPLETION_SHELLS, build_parser, main
from paperdesk.core.exports.formats import FORMATS


def run(*args, library=None, **kw):
    cmd = [sys.executable, "-m", "paperdesk"]
    if library is not None:
        cmd += ["--library", str(library)]
    return subprocess.run(cmd + list(args), capture_output=True, timeout=120, **kw)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory, seed_files):
    lib = tmp_path_factory.mktemp("cli") / "lib"
    assert main(["--library", str(lib), "import", *map(str, seed_files)]) == 0
    return lib


# -- search --json ---------------------------------------------------------------------
def test_search_json_carries_total_and_suggestion(seeded, capsys):
    capsys.readouterr()
    assert main(["--library", str(seeded), "search", "netwrk", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["query"] == "netwrk"
    assert (doc["total"], doc["shown"], doc["hits"]) == (0, 0, [])
    assert doc["suggestion"] == "networks"
    assert main(["--library", str(seeded), "search", "netwrk"]) == 0
    assert "did you mean: networks" in capsys.readouterr().out


def test_search_json_total_counts_beyond_the_limit(seeded, capsys):
    capsys.readouterr()
    assert main(["--library", str(seeded), "search", "depth", "--limit", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["shown"] == len(doc["hits"]) == 3 < doc["total"]
    assert doc["total_exact"] is True and doc["suggestion"] is None
    assert set(doc) == {"query", "total", "total_exact", "shown", "suggestion", "message",
                        "partial", "indexed", "papers", "hits"}
    assert doc["partial"] is False and doc["indexed"] is None
    assert {"id", "title", "score", "snippet", "snippet_spans"} <= doc["hits"][0].keys()


# -- export -o - -----------------------------------------------------------------------
def _same(fmt: str, written: bytes) -> bytes:
    """The export's bytes without the JSON export's time stamp (it differs by run)."""
    return re.sub(rb'"exported_at": "[^"]*"', b"", written) if fmt == "json" else written


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_dash_writes_the_file_bytes_to_stdout(seeded, tmp_path, fmt):
    target = tmp_path / f"out.{fmt}"
    r = run("export", "--all", "--format", fmt, "-o", str(target), library=seeded)
    assert r.returncode == 0, r.stderr
    r = run("export", "--all", "--format", fmt, "-o", "-", library=seeded, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _same(fmt, r.stdout) == _same(fmt, target.read_bytes())
    assert not (tmp_path / "-").exists()
    # nothing on stderr but, for a bibliography, the note on papers without author or
    # year (the sample papers have neither), said as it is with -o FILE
    said = r.stderr.splitlines()
    assert said == ([] if fmt != "bibliography" else
                    [b"paperdesk: note: 225 of the 225 papers have no author or no year; "
                     b"they are formatted by title, as the style says for missing data"])
    r = run("export", "--all", "--format", fmt, library=seeded)
    assert _same(fmt, r.stdout) == _same(fmt, target.read_bytes())


def test_export_dash_keeps_non_ascii_bytes_and_line_ends(tmp_path):
    lib = tmp_path / "lib"
    src = tmp_path / "a.txt"
    src.write_text("Daily\n\nUn résumé: «Łódź», 東京 and a tab\tinside.\n", encoding="utf-8")
    assert run("import", str(src), library=lib).returncode == 0
    r = run("export", "--all", "--format", "csv", "-o", "-", library=lib,
            env={**os.environ, "PYTHONIOENCODING": "latin-1"})
    assert r.returncode == 0, r.stderr
    assert "«Łódź», 東京".encode("utf-8") in r.stdout
    assert b"\r\n" in r.stdout          # CSV's record ends (RFC 4180), as in the file


# -- completion ------------------------------------------------------------------------
@pytest.mark.parametrize("shell", COMPLETION_SHELLS)
def test_completion_script_is_printed(shell):
    r = run("completion", shell)
    assert r.returncode == 0 and r.stderr == b""
    script = r.stdout.decode()
    assert "paperdesk" in script and "saved-search" in script and "csl-json" in script
    if shell == "zsh":
        assert script.startswith("#compdef paperdesk")


def _bash_complete(script, words, cwd=None) -> list[str]:
    """What bash completion (the generated ``script``) offers for ``words``."""
    line = " ".join(words)
    shell = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
             f"COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; _shtab_paperdesk; "
             'printf "%s\\n" "${COMPREPLY[@]}"')
    out = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                         timeout=60, cwd=cwd)
    return sorted(out.stdout.split())


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_completes_commands_choices_and_actions(tmp_path):
    script = tmp_path / "paperdesk.bash"
    script.write_bytes(run("completion", "bash").stdout)

    def complete(*words):
        return _bash_complete(script, words)

    assert complete("paperdesk", "sea") == ["search"]
    assert complete("paperdesk", "export", "--format", "cs") == ["csl-json", "csv"]
    assert complete("paperdesk", "tag", "re") == ["remove", "rename"]
    assert complete("paperdesk", "completion", "z") == ["zsh"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_offers_file_names_where_files_are_taken(tmp_path):
    script = tmp_path / "paperdesk.bash"
    script.write_bytes(run("completion", "bash").stdout)
    folder = tmp_path / "papers"
    folder.mkdir()
    for name in ("alpha.bib", "alps.ris", "search-notes.txt"):
        (folder / name).write_text("x")

    def complete(*words):
        return _bash_complete(script, words, cwd=folder)

    assert complete("paperdesk", "al") == ["alpha.bib", "alps.ris"]     # paperdesk FILE...
    assert complete("paperdesk", "sea") == ["search", "search-notes.txt"]
    assert complete("paperdesk", "import", "al") == ["alpha.bib", "alps.ris"]
    assert complete("paperdesk", "import", "alpha.bib", "alps") == ["alps.ris"]
    assert complete("paperdesk", "remove-file", "alph") == ["alpha.bib"]
    assert complete("paperdesk", "--library", "x", "al") == ["alpha.bib", "alps.ris"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh")
def test_zsh_completion_script_parses(tmp_path):
    script = tmp_path / "_paperdesk"
    script.write_bytes(run("completion", "zsh").stdout)
    assert subprocess.run(["zsh", "-n", str(script)], timeout=60).returncode == 0


# -- help text -------------------------------------------------------------------------
def _parsers(parser: argparse.ArgumentParser, path=("paperdesk",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def test_every_positional_argument_has_help():
    missing = []
    parsers = list(_parsers(build_parser()))
    assert len(parsers) > 15
    for path, parser in parsers:
        for action in parser._actions:
            if not action.option_strings and not (action.help or "").strip():
                missing.append(f"{' '.join(path)} {action.metavar or action.dest}")
    assert missing == []


def test_every_command_has_help():
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {c.dest: c.help for c in action._choices_actions}
                assert set(helps) == set(action.choices), path
                assert all(h and h.strip() for h in helps.values()), path
