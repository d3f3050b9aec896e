"""A library folder from anyone is safe to open (issue 23, item 1): pickles planted in the
search index (its table of contents, a segment's directory, a posting list) are never
run. Each payload, if unpickled by ``pickle``, would create a marker file; the tests
assert that the marker never appears, that the command says in one line what it met,
and that the index is rebuilt from SQLite and finds the papers again."""

from __future__ import annotations

import ast
import importlib
import io
import os
import pickle
import pkgutil
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import whoosh
from whoosh.filedb.structfile import StructFile

from paperdesk.core.library import Library
from paperdesk.core.search import safe_pickle
from paperdesk.core.search.safe_pickle import PlantedData

ROOT = Path(__file__).resolve().parents[2]


# -- payloads ---------------------------------------------------------------------------
class _System:
    """Unpickled by ``pickle``: ``os.system("touch MARKER")``."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f"touch '{self.marker}'",))


class _Exec:
    """Unpickled by ``pickle``: ``builtins.exec`` of code that writes the marker."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


class _Popen:
    """Unpickled by ``pickle``: ``subprocess.Popen(["touch", MARKER])``."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (subprocess.Popen, (["touch", self.marker],))


PAYLOADS = [_System, _Exec, _Popen]


def _payload(kind, marker: Path) -> bytes:
    return pickle.dumps(kind(marker), protocol=2)


def test_payloads_really_run_under_plain_pickle(tmp_path):
    """The payloads are real: plain ``pickle.loads`` runs each (so the tests below, where
    the marker never appears, can fail)."""
    for kind in PAYLOADS:
        marker = tmp_path / f"{kind.__name__}.ran"
        result = pickle.loads(_payload(kind, marker))
        if isinstance(result, subprocess.Popen):
            result.wait()
        assert marker.exists(), kind


@pytest.mark.parametrize("kind", PAYLOADS)
def test_restricted_loads_refuses_payload(tmp_path, kind):
    marker = tmp_path / "ran"
    with pytest.raises(PlantedData) as caught:
        safe_pickle.loads(_payload(kind, marker))
    assert not marker.exists()
    assert "does not load" in str(caught.value)


def test_every_whoosh_reader_is_restricted():
    """After every Whoosh module that imports at all is imported, no name in any of them
    is bound to ``pickle``, ``pickle.load(s)`` or ``pickle.Unpickler``, and Whoosh's
    legacy TOC loaders (an unpickler that resolves any name) are off. A Whoosh upgrade
    that adds a reader :func:`safe_pickle.install` misses fails here."""
    for info in pkgutil.walk_packages(whoosh.__path__, "whoosh."):
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - modules broken in whoosh-reloaded read nothing
            continue
    assert safe_pickle.unsafe_readers() == []


def test_paperdesk_reads_no_pickle_unrestricted():
    """paperdesk's own code never uses ``pickle.load(s)`` or ``pickle.Unpickler`` (nor
    imports them by name), and calls ``np.load`` only with ``allow_pickle=False`` (a
    term-table file is data too): read from the syntax tree of every module."""
    offenders = []
    for path in (ROOT / "src" / "paperdesk").rglob("*.py"):
        if path.name == "safe_pickle.py":
            continue
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "pickle"
                    and node.attr in ("load", "loads", "Unpickler")):
                offenders.append(f"{where}:{node.lineno}: pickle.{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module in ("pickle", "_pickle"):
                offenders.append(f"{where}:{node.lineno}: from {node.module} import")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "load" and isinstance(node.func.value, ast.Name)
                  and node.func.value.id in ("np", "numpy")):
                safe = any(k.arg == "allow_pickle" and isinstance(k.value, ast.Constant)
                           and k.value.value is False for k in node.keywords)
                if not safe:
                    offenders.append(f"{where}:{node.lineno}: np.load without "
                                     "allow_pickle=False")
    assert offenders == []


def test_index_written_by_paperdesk_loads_through_the_allow_list(seeded_library):
    """Everything paperdesk's own index pickles is allowed: opening, searching (fast
    path and Whoosh's) and the full check of the seed library meet no refused global."""
    index = seeded_library.index.whoosh
    for query in ("depth estimation", '"depth estimation"', "dep* OR nets~"):
        plan = index.plan(query)
        fast = index.search(plan)[0]
        slow = index.search(plan, fast=False)[0]
        assert index.last_path == "whoosh"
        assert fast and len(fast) == len(slow), query
    assert index.full_problems() == []


# -- planting ---------------------------------------------------------------------------
def _toc(index: Path) -> Path:
    return max(index.glob("_MAIN_*.toc"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))


def _plant_in_toc(index: Path, payload: bytes, where: str) -> None:
    """Rewrite the newest table of contents with ``payload`` as its pickled schema
    (``where="schema"``) or its pickled list of segments (``"segments"``), in Whoosh's
    TOC layout (``whoosh.index.TOC.write``)."""
    path = _toc(index)
    src = StructFile(io.BytesIO(path.read_bytes()))
    out = StructFile(io.BytesIO())
    for _ in range(3):
        out.write_varint(src.read_varint())
    out.write_int(src.read_int())
    out.write_int(src.read_int())
    for _ in range(3):
        out.write_varint(src.read_varint())
    schema = src.read_string()
    out.write_string(payload if where == "schema" else schema)
    out.write_int(src.read_int())
    out.write_int(src.read_int())
    rest = src.file.read()
    out.write(payload if where == "segments" else rest)
    path.write_bytes(out.file.getvalue())
    (index / "paperdesk-checksums.json").unlink(missing_ok=True)


def _largest_segment(index: Path) -> Path:
    return max(index.glob("*.seg"), key=lambda p: p.stat().st_size)


def _plant_in_segment_directory(index: Path, payload: bytes) -> None:
    """Replace the pickled directory of the largest compound segment file
    (``whoosh.filedb.compound.CompoundStorage.write_dir``: a long with the directory's
    offset and an int with its length at the start; the directory pickle there)."""
    path = _largest_segment(index)
    data = bytearray(path.read_bytes())
    head = StructFile(io.BytesIO(bytes(data[:12])))
    offset = head.read_long()
    out = StructFile(io.BytesIO())
    out.write_long(offset)
    out.write_int(len(payload))
    data[:12] = out.file.getvalue()
    del data[offset:]
    data += payload
    path.write_bytes(bytes(data))
    (index / "paperdesk-checksums.json").unlink(missing_ok=True)


def _plant_in_postings(index: Path, field: str, word: bytes, payload: bytes) -> None:
    """Overwrite the first block's pickled info tuple of ``word``'s posting list in the
    largest segment with ``payload`` (W3 block layout, ``W3PostingsWriter._write_block``:
    a 4-byte header, then per block a 4-byte length and the pickled info)."""
    from whoosh.index import open_dir
    from whoosh.reading import SegmentReader

    path = _largest_segment(index)
    ix = open_dir(str(index))
    toc = ix._read_toc()
    segment = next(s for s in toc.segments
                   if s.make_filename(s.COMPOUND_EXT) == path.name)
    files = segment.open_compound_file(ix.storage)
    postings = next(n for n in files._dir if n.endswith(".pst"))
    base = files._dir[postings]["offset"]
    reader = SegmentReader(ix.storage, toc.schema, segment)
    info = reader._terms.term_info(field, word)
    assert not info.is_inlined(), "pick a word in more than one paper"
    start = base + info._offset + 4
    blocklen = int.from_bytes(path.read_bytes()[start:start + 4], "big", signed=True)
    assert len(payload) <= abs(blocklen)
    reader.close()
    files.close()
    ix.close()
    data = bytearray(path.read_bytes())
    data[start + 4:start + 4 + len(payload)] = payload
    path.write_bytes(bytes(data))
    (index / "paperdesk-checksums.json").unlink(missing_ok=True)


def _cli(library: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(library),
                           *args], capture_output=True, text=True, timeout=300)


def _planted_copy(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "sent-library"
    shutil.copytree(template, path)
    return path


# -- opening a library with planted pickles ---------------------------------------------
@pytest.mark.parametrize("kind", PAYLOADS)
def test_stats_on_planted_toc_schema_runs_nothing(_seeded_template, tmp_path, kind):
    """The reported attack: a crafted TOC made ``stats`` run a shell command."""
    lib = _planted_copy(_seeded_template, tmp_path)
    marker = tmp_path / "ran"
    _plant_in_toc(lib / "index", _payload(kind, marker), "schema")
    out = _cli(lib, "stats")
    assert not marker.exists()
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    lines = [ln for ln in out.stderr.splitlines() if "does not load" in ln]
    assert len(lines) == 1
    assert "contains data that paperdesk does not load" in lines[0]
    assert "index" in lines[0]
    # the next command that writes (here a search) rebuilds it, and the papers are found
    found = _cli(lib, "search", "depth estimation")
    assert found.returncode == 0, found.stderr
    assert not marker.exists()
    assert "Traceback" not in found.stderr
    assert "depth" in found.stdout.lower()
    again = _cli(lib, "check")
    assert again.returncode == 0, again.stdout + again.stderr
    assert not marker.exists()


def test_planted_toc_segments_rebuilt_without_running(_seeded_template, tmp_path):
    lib_path = _planted_copy(_seeded_template, tmp_path)
    marker = tmp_path / "ran"
    _plant_in_toc(lib_path / "index", _payload(_System, marker), "segments")
    with Library.open(lib_path) as lib:
        assert "does not load" in (lib.index.repair or "")
        assert "posix.system" in lib.index.repair or "os.system" in lib.index.repair
        lib.index.sync()
        assert lib.search.hits("depth estimation")
    assert not marker.exists()


def test_planted_segment_directory_rebuilt_without_running(_seeded_template, tmp_path):
    lib_path = _planted_copy(_seeded_template, tmp_path)
    marker = tmp_path / "ran"
    _plant_in_segment_directory(lib_path / "index", _payload(_Exec, marker))
    out = _cli(lib_path, "search", "depth estimation")
    assert not marker.exists()
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "does not load" in out.stderr and "builtins.exec" in out.stderr
    assert "depth" in out.stdout.lower()


def test_planted_posting_block_found_by_search_not_run(_seeded_template, tmp_path):
    """A payload inside a posting list is met only when a search reads that word: the
    search treats it as damage, rebuilds the index and searches again."""
    lib_path = _planted_copy(_seeded_template, tmp_path)
    marker = tmp_path / "ran"
    _plant_in_postings(lib_path / "index", "abstract", b"model", _payload(_Popen, marker))
    out = _cli(lib_path, "search", "model")
    assert not marker.exists()
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "does not load" in out.stderr
    assert "model" in out.stdout.lower()
    check = _cli(lib_path, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert not marker.exists()


def test_planted_index_on_read_only_library_is_not_run(_seeded_template, tmp_path):
    """Opened read-only (here: another process holds the library), the planted index
    is not loaded either; the papers are still shown from SQLite."""
    lib_path = _planted_copy(_seeded_template, tmp_path)
    marker = tmp_path / "ran"
    _plant_in_toc(lib_path / "index", _payload(_System, marker), "schema")
    with Library.open(lib_path, read_only=True) as lib:
        assert "does not load" in (lib.index.repair or "")
        assert "paperdesk reindex" in lib.index.repair
        assert lib.papers.count() == 225
    assert not marker.exists()


# -- what the tester found next (issue 23): hangs, memory, foreign files ------------------
def test_planted_tokenizer_pattern_is_never_matched(_seeded_template, tmp_path):
    """A TOC whose schema carries a catastrophic tokenizer pattern (allowed classes
    only) made every command hang: the index is now opened with paperdesk's own schema,
    and a stored schema that differs in any analyser setting is rebuilt."""
    lib_path = _planted_copy(_seeded_template, tmp_path)
    index = lib_path / "index"
    src = StructFile(io.BytesIO(_toc(index).read_bytes()))
    for _ in range(3):
        src.read_varint()
    src.read_int(), src.read_int()
    for _ in range(3):
        src.read_varint()
    schema = pickle.loads(src.read_string())
    catastrophic = re.compile(r"(\w+\s?)+$|\w+")
    for _name, fld in schema.items():
        for part in getattr(getattr(fld, "analyzer", None), "items", []):
            if hasattr(part, "expression"):
                part.expression = catastrophic
    _plant_in_toc(index, pickle.dumps(schema, 2), "schema")
    # a queued paper makes the next command index with the schema's analyser
    import sqlite3
    con = sqlite3.connect(lib_path / "library.db")
    con.execute("INSERT INTO index_queue(paper_id, op) VALUES (1, 'update')")
    con.commit()
    con.close()
    phrase = '"' + " ".join(["ab"] * 28) + ' !"'
    for args in (("stats",), ("search", phrase), ("search", "depth estimation")):
        out = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib_path),
                              *args], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        assert "Traceback" not in out.stderr
    assert "depth" in out.stdout.lower()
    with Library.open(lib_path) as lib:
        assert lib.index.whoosh.full_problems() == []


def test_allocation_sized_by_a_pickle_is_refused(tmp_path):
    """``bytearray(2_000_000_000)`` in a 44-byte pickle allocated 2 GB on every command."""
    class _Alloc:
        def __reduce__(self):
            return (bytearray, (2_000_000_000,))

    data = pickle.dumps([_Alloc()], 2)
    assert len(data) < 100
    with pytest.raises(PlantedData):
        safe_pickle.loads(data)
    for name in ("bytes", "bytearray"):
        assert ("builtins", name) not in safe_pickle.ALLOWED_GLOBALS


def test_fifo_in_the_index_is_not_waited_on(_seeded_template, tmp_path):
    """A FIFO named like the table of contents made every command wait forever."""
    lib_path = _planted_copy(_seeded_template, tmp_path)
    toc = _toc(lib_path / "index")
    toc.unlink()
    os.mkfifo(toc)
    out = _cli(lib_path, "search", "depth estimation")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "depth" in out.stdout.lower()


def test_a_foreign_database_is_not_written_into(tmp_path):
    """A ``library.db`` of another program (or a link to one) got paperdesk's tables
    and WAL mode from a mere ``stats``: it is refused in one line, its bytes unchanged."""
    import hashlib
    import sqlite3

    folder = tmp_path / "foreign"
    folder.mkdir()
    con = sqlite3.connect(folder / "library.db")
    con.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    con.execute("INSERT INTO moz_places (url) VALUES ('https://example.org')")
    con.commit()
    con.close()
    before = hashlib.sha256((folder / "library.db").read_bytes()).hexdigest()
    for args in (("stats",), ("tag", "add", "x", "1"), ("search", "x")):
        out = _cli(folder, *args)
        assert out.returncode == 1, out.stdout + out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "not a paperdesk library" in lines[0]
        assert "moz_places" in lines[0] and "Traceback" not in out.stderr
    assert hashlib.sha256((folder / "library.db").read_bytes()).hexdigest() == before
    assert not (folder / "library.db-wal").exists()


def test_a_fifo_as_the_database_is_refused(tmp_path):
    folder = tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(folder / "library.db")
    out = _cli(folder, "stats")
    assert out.returncode == 1
    assert "not a regular file" in out.stderr and "Traceback" not in out.stderr


def test_a_garbled_name_in_the_index_is_named_as_one_printable_line():
    """A garbled file can make a pickled "reference" of raw bytes (NUL, BEL, a thousand
    characters): the message shows it escaped and cut, never the bytes themselves."""
    from paperdesk.core.search.safe_pickle import PlantedData, why

    exc = PlantedData("whoosh.fields", "TEgarbage\x07}\x00" + "x" * 1000)
    shown = why(exc)
    assert "\\x07" in shown and "\\x00" in shown and "\x00" not in shown
    assert all(c.isprintable() for c in shown) and len(shown) < 160
    assert "\x07" not in str(exc)


@pytest.mark.parametrize("exc, shown", [
    (EOFError(), "it ends too early"),
    (EOFError("Ran out of input"), "it ends too early"),
    (pickle.UnpicklingError("invalid load key, '\\x07'."), "garbled data"),
    (struct.error("unpack requires a buffer of 4 bytes"),
     "it ends before the data it points to"),
    (KeyError("postings"), "garbled data"),
    (ValueError(), "garbled data"),
    (ValueError("bad\x00value\nsecond line"), "garbled data"),
])
def test_why_names_the_problem_not_only_the_class(exc, shown):
    """The tester found `check` messages that gave only an exception's class
    ("(EOFError)"), later its raw text ("KeyError: 'postings'"): the message says what
    the damage means, in plain words, never the class or the raised text."""
    from paperdesk.core.search.safe_pickle import why

    assert why(exc) == shown
