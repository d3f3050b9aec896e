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


# --- a fresh-user tester's findings (session 12): a folder replaced by a file, a file by
# a folder; what check says it did must be true on disk, the path named once, the
# problems before what was done about them.

def _terms_a_file(lib: Path) -> Path:
    shutil.rmtree(lib / "terms")
    (lib / "terms").write_text("not a folder\n", encoding="utf-8")
    return lib / "terms"


def _index_a_file(lib: Path) -> Path:
    shutil.rmtree(lib / "index")
    (lib / "index").write_text("not a folder\n", encoding="utf-8")
    return lib / "index"


def _terms_meta_a_folder(lib: Path) -> Path:
    meta = lib / "terms" / "meta.json"
    meta.unlink()
    meta.mkdir()
    (meta / "x").write_text("x", encoding="utf-8")     # not empty: rmdir cannot do
    return meta


def _segment_a_folder(lib: Path) -> Path:
    seg = _segment(lib)
    seg.unlink()
    seg.mkdir()
    return seg


def _toc_a_folder(lib: Path) -> Path:
    toc = max((lib / "index").glob("_MAIN_*.toc"))
    toc.unlink()
    toc.mkdir()
    return toc


def _vectors_a_file(lib: Path) -> Path:
    shutil.rmtree(lib / "vectors")
    (lib / "vectors").write_text("not a folder\n", encoding="utf-8")
    return lib / "vectors"


def _terms_removed(path: Path) -> bool:
    terms = path if path.name == "terms" else path.parent
    return not (terms.exists() and not terms.is_dir()) and not (terms / "meta.json").exists()


def _index_rebuilt(path: Path) -> bool:
    index = path if path.name == "index" else path.parent
    return index.is_dir() and any(index.glob("*.seg")) and any(index.glob("_MAIN_*.toc"))


def _vectors_removed(path: Path) -> bool:
    return not path.exists()


@pytest.mark.parametrize("damage, part, words, done", [
    (_terms_a_file, "terms", "not a folder", _terms_removed),
    (_terms_meta_a_folder, "terms", "not a regular file", _terms_removed),
    (_index_a_file, "index", "is a file, not a folder", _index_rebuilt),
    (_segment_a_folder, "index", "not a regular file", _index_rebuilt),
    (_toc_a_folder, "index", "not a regular file", _index_rebuilt),
    (_vectors_a_file, "vectors", "not a folder", _vectors_removed),
], ids=["terms-a-file", "terms-meta-json-a-folder", "index-a-file", "segment-a-folder",
        "toc-a-folder", "vectors-a-file"])
def test_a_replaced_part_is_named_once_and_what_check_did_is_true(
        library_with_tables, damage, part, words, done):
    lib = library_with_tables
    path = damage(lib)
    # standard error merged into standard output: the order a user reads on a terminal
    out = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib),
                          "check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=300)
    text = out.stdout
    assert out.returncode == 1, text
    assert not INTERNALS.search(text) and "File exists" not in text, text
    lines = text.strip().splitlines()
    assert lines[0] == "library has 1 problem:", text   # the problems first
    problem = lines[1]
    assert problem.startswith(f"  {part}: {path}: "), problem
    assert words in problem, problem
    assert problem.count(str(lib)) == 1, problem       # the path named once
    # then what was done: the index rebuilt says so after the problem, never before
    assert all(not line.startswith("  ") for line in lines[2:]), text
    if part == "index":
        assert lines[2:] == ["paperdesk: indexed: 225 of 225 papers searchable"], text
        assert "repaired from SQLite" in problem
    else:
        assert len(lines) == 2, text
        assert "dropped" in problem or "removed" in problem, problem
    assert done(path), f"{path}: check said '{problem}' but it is not so on disk"
    again = _check(lib)
    assert again.stdout.strip() == "library ok: 225 papers, index ok", again.stdout


def test_a_term_table_that_cannot_be_removed_is_not_said_dropped(library_with_tables,
                                                                 monkeypatch):
    """Where the damaged ``terms`` cannot be removed, check says so (and what happens
    instead) rather than "dropped"."""
    from paperdesk.core.check import check_library

    path = _terms_a_file(library_with_tables)
    real_unlink = Path.unlink

    def refuse(self, *args, **kwargs):
        if self == path:
            raise PermissionError(1, "Operation not permitted", str(self))
        return real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", refuse)
    with Library.open(library_with_tables) as lib:
        report = check_library(lib)
    [problem] = [p for p in report.problems if p.part == "terms"]
    assert problem.text == f"{path}: not a folder (the term table is kept in a folder " \
        "of that name)"
    assert "dropped" not in problem.remedy, problem.remedy
    assert problem.remedy.startswith("could not be removed (Operation not permitted)"), \
        problem.remedy
    assert path.is_file()
