"""Command-line input as the shell hands it over: bytes that are not UTF-8 on standard
input and in file names, several imports from standard input, broken symbolic links in a
folder. Run as subprocesses, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ABSTRACT = ("We propose a loom that weaves algebraic patterns, and show on three "
            "tapestries that it is faster than weaving by hand.")
OTHER = ("We study how lemurs adapt to new forests and find that they learn the paths "
         "within a season.")


def run(library, *args, stdin: bytes | None = None, cwd=None):
    """``paperdesk --library LIBRARY ARGS...`` with bytes in and bytes out."""
    cmd = [sys.executable, "-m", "paperdesk", "--library", str(library), *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=120, cwd=cwd)


def _no_traceback(r) -> None:
    assert b"Traceback" not in r.stderr and b"Traceback" not in r.stdout


def test_a_note_from_standard_input_with_bytes_that_are_not_utf8(tmp_path):
    lib = tmp_path / "lib"
    assert run(lib, "import", "-", stdin=f"Loom\n\n{ABSTRACT}\n".encode()).returncode == 0
    r = run(lib, "note", "1", "-", stdin=b"note \xff and caf\xc3\xa9")
    _no_traceback(r)
    assert r.returncode == 0 and r.stdout == b"note saved\n"
    shown = json.loads(run(lib, "show", "1", "--json").stdout)
    assert shown["note"] == "note \ufffd and café"


@pytest.mark.skipif(sys.platform != "linux", reason="file names of any bytes: Linux")
def test_remove_file_finds_a_name_with_bytes_that_are_not_utf8(tmp_path):
    lib = tmp_path / "lib"
    folder = os.fsencode(tmp_path)
    odd = folder + b"/bad\xffname.txt"
    with open(odd, "wb") as f:
        f.write(f"Loom\n\n{ABSTRACT}\n".encode())
    assert run(lib, "import", os.fsdecode(odd)).returncode == 0
    listed = json.loads(run(lib, "sources", "--json").stdout)
    assert [s["path"] for s in listed] == [str(tmp_path) + "/bad\\xffname.txt"]
    r = run(lib, "remove-file", "--dry-run", os.fsdecode(odd))          # the real bytes
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert b"would remove" in r.stdout and b"bad\\xffname.txt" in r.stdout
    r = run(lib, "remove-file", os.fsdecode(b"bad\xffname.txt"), cwd=tmp_path)  # its name
    assert r.returncode == 0, r.stderr
    assert json.loads(run(lib, "sources", "--json").stdout) == []
    r = run(lib, "remove-file", os.fsdecode(odd))                     # gone: named escaped
    assert r.returncode == 1 and b"bad\\xffname.txt: no imported file" in r.stderr


def test_each_import_from_standard_input_is_its_own_source(tmp_path):
    lib = tmp_path / "lib"
    assert run(lib, "import", "-", stdin=f"One\n\n{ABSTRACT}\n".encode()).returncode == 0
    assert run(lib, "import", "-", stdin=f"Two\n\n{OTHER}\n".encode()).returncode == 0
    sources = json.loads(run(lib, "sources", "--json").stdout)
    assert len(sources) == 2
    paths = [s["path"] for s in sources]
    assert len(set(paths)) == 2 and all(p.startswith("<stdin> 20") for p in paths)
    assert all(p.endswith("UTC") or p.endswith(")") for p in paths)
    r = run(lib, "remove-file", "<stdin>")             # two: ambiguous, names the ids
    assert r.returncode == 1 and b"2 imported files" in r.stderr
    first = str(sources[0]["id"])
    assert run(lib, "remove-file", first).returncode == 0
    left = json.loads(run(lib, "sources", "--json").stdout)
    assert [s["path"] for s in left] == [paths[1]]
    assert json.loads(run(lib, "stats", "--json").stdout)["papers"] == 1
    r = run(lib, "remove-file", "<stdin>")             # one left: "<stdin>" names it
    assert r.returncode == 0, r.stderr
    assert json.loads(run(lib, "stats", "--json").stdout)["papers"] == 0


def test_a_broken_symbolic_link_in_a_folder_is_reported(tmp_path):
    lib = tmp_path / "lib"
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "good.txt").write_text(f"Loom\n\n{ABSTRACT}\n", encoding="utf-8")
    (folder / "broken.bib").symlink_to(folder / "gone.bib")
    r = run(lib, "import", str(folder), "--json")
    _no_traceback(r)
    report = json.loads(r.stdout)
    assert report["added"] == 1
    assert report["rejected"] == [{
        "path": str(folder / "broken.bib"),
        "reason": f"broken symbolic link (to {folder / 'gone.bib'}, which does not exist)"}]
    r = run(lib, "import", str(folder))
    assert f"{folder / 'broken.bib'}: broken symbolic link".encode() in r.stdout + r.stderr


def test_tag_and_saved_search_names_with_bytes_that_are_not_utf8(tmp_path):
    """Issue 14, item 4: such names are stored with U+FFFD, listed and usable again,
    never a traceback."""
    lib = tmp_path / "lib"
    assert run(lib, "import", "-", stdin=f"Loom\n\n{ABSTRACT}\n".encode()).returncode == 0
    name = os.fsdecode(b"odd\xfftag")
    r = run(lib, "tag", "add", name, "1")
    _no_traceback(r)
    assert r.returncode == 0
    tags = json.loads(run(lib, "tags", "--json").stdout)
    assert [t["name"] for t in tags] == ["odd\ufffdtag"]
    r = run(lib, "saved-search", "add", os.fsdecode(b"saved \xfe"), os.fsdecode(b"loom \xff"))
    _no_traceback(r)
    assert r.returncode == 0
    r = run(lib, "saved-search", "list", "--json")
    assert [s["name"] for s in json.loads(r.stdout)] == ["saved \ufffd"]
    r = run(lib, "export", "--tag", name, "--format", "csl-json")      # the same bytes again
    _no_traceback(r)
    assert r.returncode == 0 and json.loads(r.stdout)[0]["keyword"] == "odd\ufffdtag"


def test_a_library_folder_whose_name_is_not_utf8_works(tmp_path, seed_files):
    """Issue 23 item 9: every command that writes (its daily backup first), ``backup``
    and ``restore`` ended in a traceback (VACUUM INTO took the name as UTF-8 text)."""
    lib = os.fsdecode(os.fsencode(tmp_path) + b"/lib\xff\xfe")
    copy = os.fsdecode(os.fsencode(tmp_path) + b"/copy\xff.db")
    assert run(lib, "import", str(seed_files[0])).returncode == 0
    for args in (("tag", "add", "kept", "1"), ("note", "2", "a note"),
                 ("edit", "3", "--venue", "Loom Conf"), ("backup",), ("backup", copy),
                 ("restore", copy, "--force"), ("check",), ("delete", "4")):
        r = run(lib, *args)
        _no_traceback(r)
        assert r.returncode == 0, (args, r.stderr)
    daily = [n for n in os.listdir(os.fsencode(lib) + b"/backups") if b"daily" in n]
    assert len(daily) == 1                                  # the day's backup was taken
    stats = json.loads(run(lib, "stats", "--json").stdout)
    assert (stats["papers"], stats["tags"], stats["notes"], stats["indexed"]) == \
        (119, 1, 1, 119)
    assert json.loads(run(lib, "search", "tag:kept", "--json").stdout)["total"] == 1


@pytest.mark.parametrize("args", [
    (b"--library\xff", b"x"), (b"\xff",), (b"--bogus\xff",), (b"show", b"\xff"),
    (b"search", b"x", b"--sort", b"\xff"), (b"tag", b"add", b"x", b"\xff"),
    (b"export", b"--all", b"--format", b"\xff"),
])
def test_arguments_that_are_not_utf8_get_one_line(tmp_path, args):
    cmd = [sys.executable.encode(), b"-m", b"paperdesk", b"--library",
           os.fsencode(tmp_path) + b"/lib\xff", *args]
    r = subprocess.run(cmd, capture_output=True, timeout=120)
    assert r.returncode == 2
    _no_traceback(r)
    assert r.stderr.count(b"\n") == 1 and r.stderr.startswith(b"paperdesk")
    assert b": error: " in r.stderr


def test_a_command_that_reads_a_library_folder_that_does_not_exist_says_so(tmp_path):
    """A mistyped --library made a new empty library and found nothing, without a word
    (a new user's try): a command that only reads now names the folder and makes
    nothing; import still makes the library."""
    typo = tmp_path / "data" / "tpyo"
    for args in (("search", "loom"), ("stats",), ("export", "--all", "--format", "bibtex"), ("tags",),
                 ("check",), ("related", "1")):
        r = run(typo, *args)
        _no_traceback(r)
        assert r.returncode == 1, (args, r.stderr)
        lines = r.stderr.decode().splitlines()
        assert len(lines) == 1 and str(typo) in lines[0] and "does not exist" in lines[0], \
            (args, lines)
        assert not (tmp_path / "data").exists(), args
    assert run(typo, "import", "-", stdin=f"Loom\n\n{ABSTRACT}\n".encode()).returncode == 0
    r = run(typo, "search", "loom")
    assert r.returncode == 0 and b"weaves algebraic patterns" in r.stdout


def test_json_nested_deeper_than_python_reads_is_refused_in_words(tmp_path):
    """100,000 nested brackets: Python's decoder gives up (RecursionError); the file is
    refused in one line that says why, not with the exception's name."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    r = run(tmp_path / "lib", "import", str(deep))
    _no_traceback(r)
    lines = r.stderr.decode().splitlines()
    rejected = [line for line in lines if "deep.json" in line]
    assert r.returncode == 1 and len(rejected) == 1, lines
    assert "nested too deeply" in rejected[0] and "RecursionError" not in rejected[0]


def test_importing_a_folder_leaves_out_the_library_folders_inside_it(tmp_path):
    """A folder of papers that also holds a library (here the one imported into): its
    index, term table and checksum files are no abstracts; they were each rejected."""
    papers = tmp_path / "papers"
    (papers / "day").mkdir(parents=True)
    (papers / "day" / "one.txt").write_text(f"Looms\n\n{ABSTRACT}\n")
    lib = papers / "lib"
    assert run(lib, "import", "-", stdin=f"Lemurs\n\n{OTHER}\n".encode()).returncode == 0
    assert any(lib.rglob("*.json")), "the library has JSON files of its own"
    (papers / "day" / "two.txt").write_text("Weaving\n\nWe weave tapestries of algebra "
                                           "and find that the looms hum in tune.\n")
    r = run(lib, "import", str(papers))
    _no_traceback(r)
    assert r.returncode == 0, r.stderr
    assert b"paperdesk: rejected" not in r.stderr + r.stdout, r.stderr
    assert b"0 rejected" in r.stdout
    stats = run(lib, "stats").stdout.decode()
    assert "papers: 3" in stats, stats


def test_a_file_name_with_a_line_feed_stays_on_its_report_line(tmp_path):
    """A new user's try: ``new\\nline.bib`` split the import's one-line report over two
    lines. The name is written with ``\\n``; a rejected one too."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "new\nline.bib").write_text(
        "@article{k1,\n title={Looms},\n abstract={" + ABSTRACT + "}\n}\n")
    (folder / "bad\rname.ris").write_text("hello world\nthis is not ris\n" * 5)
    r = run(tmp_path / "lib", "import", str(folder))
    _no_traceback(r)
    out, err = r.stdout.decode(), r.stderr.decode()
    added = [line for line in out.splitlines() if "1 added" in line and "line.bib" in line]
    assert added and added[0].startswith(f"{folder}/new\\nline.bib: 1 added"), out
    rejected = [line for line in err.splitlines() if "name.ris" in line]
    assert rejected == [f"paperdesk: rejected {folder}/bad\\rname.ris: named .ris but not "
                        "RIS: no record in it starts as RIS does (it reads as plain text); "
                        "rename it .txt to import its paragraphs as abstracts"], err
    assert "stored: 1 paper in the library (1 new)" in out
    # the imported files' list and a paper's Sources keep the name on one line too
    sources = run(tmp_path / "lib", "sources").stdout.decode()
    assert "new\\nline.bib" in sources and len(sources.strip().splitlines()) == 1, sources
    shown = run(tmp_path / "lib", "show", "1").stdout.decode()
    assert "new\\nline.bib (abstract" in shown, shown


def test_one_line_escapes_every_line_break():
    from paperdesk.core.terminal_text import one_line

    name = "a\nb\rc\td\x85e\u2028f\x0cg"
    assert one_line(name) == "a\\nb\\rc\\td\\x85e\\u2028f\\fg"
    assert len(one_line(name).splitlines()) == 1
    assert one_line("café 深層.bib") == "café 深層.bib"
