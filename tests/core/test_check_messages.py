"""``paperdesk check`` says what is wrong with a damaged derived file in one plain line
that names the file (a fresh-user tester's findings): no exception class names
("JSONDecodeError", "NotADirectoryError", "IndexError"), no wording of the libraries
underneath ("Index was created on different architecture", "seek out of range"), no
traceback. Real command-line processes on copies of the seed library; the window's
Help ▸ Check Library runs the same :func:`paperdesk.core.check.check_library`."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.core.library import Library

#: Words of Python or of Whoosh that a message for people must not show.
INTERNALS = re.compile(r"\b\w*(Error|Exception)\b|Errno|different architecture|"
                       r"seek out of range|unpack requires|load key|Traceback|"
                       r"saved int|this computer")


def _check(lib: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib),
                           "check"], capture_output=True, text=True, timeout=300)


@pytest.fixture
def library_with_bands(_seeded_template, tmp_path) -> Path:
    """A closed copy of the seed library whose near-duplicate stage has run (so it has
    its ``duplicates/`` band store) and whose index is whole."""
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        lib.duplicates.find()
    assert (path / "duplicates" / "meta.json").is_file()
    return path


def _segment(lib: Path) -> Path:
    return max((lib / "index").glob("*.seg"), key=lambda p: p.stat().st_size)


def _zeroed_toc(lib: Path) -> Path:
    toc = max((lib / "index").glob("_MAIN_*.toc"))
    toc.write_bytes(b"\0" * toc.stat().st_size)
    return toc


def _truncated_segment(lib: Path) -> Path:
    seg = _segment(lib)
    os.truncate(seg, seg.stat().st_size // 2)
    return seg


def _garbled_terms(lib: Path) -> Path:
    # The checksums' record gone (a copy made without it): only the full check's read of
    # every term finds the damage.
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    (lib / "index" / "paperdesk-checksums.json").unlink()
    seg = _segment(lib)
    storage = FileStorage(str(lib / "index"))
    segment = next(s for s in TOC.read(storage, "MAIN").segments
                   if seg.name == s.make_filename(s.COMPOUND_EXT))
    parts = segment.open_compound_file(storage)
    terms = next(where for name, where in parts._dir.items() if name.endswith(".trm"))
    parts.close()
    with open(seg, "r+b") as f:       # 2,000 random bytes a tenth into the term index
        f.seek(terms["offset"] + terms["length"] // 10)
        f.write(random.Random(1).randbytes(2000))
    return seg


def _meta_a_folder(lib: Path) -> Path:
    meta = lib / "duplicates" / "meta.json"
    meta.unlink()
    meta.mkdir()
    return meta


def _meta_bad_json(lib: Path) -> Path:
    meta = lib / "duplicates" / "meta.json"
    meta.write_text('{"format": 1, "runs": [1', encoding="utf-8")
    return meta


def _bands_a_file(lib: Path) -> Path:
    folder = lib / "duplicates"
    shutil.rmtree(folder)
    folder.write_text("not a folder\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("damage, part, words", [
    (_zeroed_toc, "index", "table of contents cannot be read (garbled data)"),
    (_truncated_segment, "index", "segment file damaged"),
    (_garbled_terms, "index", "segment damaged (reading its terms: garbled data)"),
    (_meta_a_folder, "duplicates", "damaged (not a regular file)"),
    (_meta_bad_json, "duplicates", "damaged (not valid JSON)"),
    (_bands_a_file, "duplicates", "not a folder"),
], ids=["zeroed-toc", "truncated-segment", "garbled-terms", "meta-json-a-folder",
        "meta-json-garbled", "duplicates-a-file"])
def test_each_damaged_file_is_one_plain_line_naming_it(library_with_bands, damage, part,
                                                       words):
    path = damage(library_with_bands)
    out = _check(library_with_bands)
    assert out.returncode == 1, out.stdout + out.stderr
    assert not INTERNALS.search(out.stdout + out.stderr), out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "library has 1 problem:", out.stdout
    assert len(lines) == 2, out.stdout              # the problem is one line
    assert lines[1].startswith(f"  {part}: {path}:"), lines[1]
    assert words in lines[1], lines[1]
    # derived: the next check finds it whole again (the index was rebuilt, the band
    # store dropped)
    assert _check(library_with_bands).stdout.strip() == "library ok: 225 papers, index ok"


@pytest.mark.parametrize("exc, shown", [
    (ValueError("seek out of range"), "it ends before the data it points to"),
    (IndexError("Index was created on different architecture: saved int = 0, this "
                "computer = 4"), "garbled data"),
    (IndexError("a term of an unknown field at 96127"), "garbled data"),
    (KeyError("postings"), "garbled data"),
    (TypeError("'NoneType' object is not subscriptable"), "garbled data"),
])
def test_why_never_shows_a_class_name_or_the_raised_text(exc, shown):
    from paperdesk.core.search.safe_pickle import why

    assert why(exc) == shown


@pytest.fixture
def library_with_tables(_seeded_template, tmp_path) -> Path:
    """A closed copy of the seed library with its term table (``terms/``) and embedding
    vectors (``vectors/``) built."""
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        lib.discover.ensure()
        assert lib.discover.embeddings.ensure() == 225
    return path


@pytest.mark.parametrize("folder, part", [("terms", "terms"), ("vectors", "vectors")])
@pytest.mark.parametrize("damage", ["garbled", "a folder"])
def test_a_damaged_table_meta_json_is_one_plain_line_naming_it(library_with_tables, folder,
                                                                part, damage):
    meta = library_with_tables / folder / "meta.json"
    assert meta.is_file()
    if damage == "garbled":
        meta.write_text('{"format": 1, "files": {', encoding="utf-8")
    else:
        meta.unlink()
        meta.mkdir()
    out = _check(library_with_tables)
    assert out.returncode == 1, out.stdout + out.stderr
    assert not INTERNALS.search(out.stdout + out.stderr), out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "library has 1 problem:" and len(lines) == 2, out.stdout
    assert lines[1].startswith(f"  {part}: {meta}: "), lines[1]
    if damage == "garbled":
        assert "(not valid JSON)" in lines[1], lines[1]
    else:
        assert "not a regular file" in lines[1] or "(a folder, not a file)" in lines[1], \
            lines[1]
