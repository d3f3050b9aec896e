"""``paperdesk check`` and the checks made at every open (issue 14 items 1, 2, 3 and 6):
damaged index segments, a missing index folder, a damaged SQLite page, a missing or
empty ``library.db``, through real command-line processes on copies of the seed
library."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.core.library import Library

#: Papers of the seed library "model" finds.
MODEL_HITS = 139


def _run(lib: Path, *args: str) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), *args],
                         capture_output=True, text=True, timeout=300)
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    return out


@pytest.fixture
def closed_library(_seeded_template, tmp_path) -> Path:
    """A private copy of the seed library (225 papers), not open."""
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    return path


def _segment(lib: Path) -> Path:
    segments = sorted((lib / "index").glob("*.seg"), key=lambda p: p.stat().st_size)
    return segments[-1]


def _garble(path: Path, offset: int, length: int, seed: int = 1) -> None:
    data = random.Random(seed).randbytes(length)
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _model_ids(lib: Path) -> list[str]:
    out = _run(lib, "search", "model", "--limit", "500", "--json")
    assert out.returncode == 0, out.stderr
    return sorted(str(h["id"]) for h in json.loads(out.stdout)["hits"])


def test_check_passes_on_a_healthy_library(closed_library):
    out = _run(closed_library, "check")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "library ok: 225 papers, index ok"
    report = json.loads(_run(closed_library, "check", "--json").stdout)
    assert report["ok"] and report["papers"] == 225 == report["indexed"]
    assert report["sampled"] == 20 and report["problems"] == []


def test_truncated_segment_is_rebuilt_before_a_search(closed_library):
    healthy = _model_ids(closed_library)
    assert len(healthy) == MODEL_HITS
    segment = _segment(closed_library)
    os.truncate(segment, segment.stat().st_size // 2)
    stats = _run(closed_library, "stats")
    assert stats.returncode == 0
    assert "indexed: 225" not in stats.stdout.splitlines()        # not "all indexed"
    assert "index_repair:" in stats.stdout
    search = _run(closed_library, "search", "model", "--limit", "500", "--json")
    assert "rebuilding it from SQLite" in search.stderr
    assert "indexed: 225 of 225 papers searchable" in search.stderr   # the progress line
    assert sorted(str(h["id"]) for h in json.loads(search.stdout)["hits"]) == healthy
    assert _run(closed_library, "check").returncode == 0


def test_overwritten_segment_bytes_are_found_and_repaired(closed_library):
    healthy = _model_ids(closed_library)
    segment = _segment(closed_library)
    _garble(segment, segment.stat().st_size // 3, 200)
    out = _run(closed_library, "check")
    assert out.returncode == 1
    assert str(segment) in out.stdout and "repaired from SQLite" in out.stdout
    assert _run(closed_library, "check").stdout.strip() == \
        "library ok: 225 papers, index ok"
    assert _model_ids(closed_library) == healthy


QUERIES = ("model", "net*", '"neural network"', "depht~", "deep -learning")


def _ids(lib: Path, query: str) -> list[int]:
    out = _run(lib, "search", query, "--limit", "500", "--json")
    assert out.returncode == 0, out.stderr
    return sorted(h["id"] for h in json.loads(out.stdout)["hits"])


@pytest.mark.parametrize("where,length", [(0.5, 100_000), (0.3, 100_000), (0.7, 4000)])
def test_garbled_segment_gives_the_same_hits_and_no_traceback(closed_library, where,
                                                              length):
    healthy = {q: _ids(closed_library, q) for q in QUERIES}
    assert len(healthy["model"]) == MODEL_HITS
    segment = _segment(closed_library)
    start = int(segment.stat().st_size * where)
    _garble(segment, start, min(length, segment.stat().st_size - start))
    stats = _run(closed_library, "stats")
    assert "index_repair:" in stats.stdout and "indexed: 225" not in stats.stdout.splitlines()
    assert {q: _ids(closed_library, q) for q in QUERIES} == healthy


def test_missing_index_folder_is_rebuilt_with_a_progress_line(closed_library):
    healthy = _model_ids(closed_library)
    shutil.rmtree(closed_library / "index")
    out = _run(closed_library, "search", "model", "--limit", "500", "--json")
    assert "search index folder is missing; rebuilding it from SQLite" in out.stderr
    assert "indexed: 225 of 225 papers searchable" in out.stderr
    assert sorted(str(h["id"]) for h in json.loads(out.stdout)["hits"]) == healthy


def test_missing_index_folder_in_the_library_api(closed_library):
    from paperdesk.core.check import check_library

    shutil.rmtree(closed_library / "index")
    with Library.open(closed_library, sync_index=False) as lib:
        status = lib.index.status()
        assert status.repairing and status.unindexed == 225
        assert status.text() == "Repairing the search index 0 of 225"
        assert lib.search.find("model").partial
        lib.index.sync()
        assert not lib.index.status().repairing
        assert lib.search.find("model").total == MODEL_HITS
        assert check_library(lib).ok


def _damage_database(lib: Path) -> None:
    """Write garbage over a page in the middle of library.db (the library closed)."""
    db = lib / "library.db"
    page = 4096
    pages = db.stat().st_size // page
    _garble(db, (pages // 2) * page, page, seed=7)


def test_damaged_database_page_is_reported_and_writes_refused(closed_library):
    _damage_database(closed_library)
    before = _digest(closed_library / "library.db")
    check = _run(closed_library, "check")
    assert check.returncode == 1
    assert f"{closed_library / 'library.db'}: damaged" in check.stdout
    assert "paperdesk restore" in check.stdout
    for args in (["tag", "add", "x", "1"], ["note", "1", "hello"], ["mark", "1", "--star"]):
        out = _run(closed_library, *args)
        assert out.returncode == 1
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "damaged" in lines[0] and "paperdesk restore" in lines[0]
    assert _digest(closed_library / "library.db") == before     # nothing written
    stats = _run(closed_library, "stats")                        # reading says so first
    assert "damaged" in stats.stderr.splitlines()[0]


def test_damaged_database_in_the_library_api(closed_library):
    from paperdesk.core.check import check_library

    _damage_database(closed_library)
    with Library.open(closed_library) as lib:
        assert lib.db_problem and "library.db: damaged" in lib.db_problem
        with pytest.raises(Exception) as caught:
            lib.tags.add([1], "x")
        assert "damaged" in str(caught.value)
        report = check_library(lib)
        assert not report.ok and report.problems[0].part == "database"


@pytest.mark.parametrize("how", ["missing", "empty"])
def test_lost_database_is_not_replaced_by_an_empty_library(closed_library, how):
    db = closed_library / "library.db"
    if how == "missing":
        db.unlink()
    else:
        db.write_bytes(b"")
    (closed_library / "backups").mkdir(exist_ok=True)
    backup = closed_library / "backups" / "library-daily-20261201T072500Z.db"
    backup.write_bytes(b"x" * 10)
    # A newer copy of what a restore replaced (maybe the damaged database) is never
    # the one offered.
    (closed_library / "backups" / "pre-restore-20261201T090000Z.db").write_bytes(b"y" * 10)
    index_before = sorted(p.name for p in (closed_library / "index").iterdir())
    for args in (["stats"], ["search", "model"], ["tag", "add", "x", "1"], ["check"]):
        out = _run(closed_library, *args)
        assert out.returncode == 1
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert ("missing" if how == "missing" else "empty (0 bytes)") in lines[0]
        assert f"paperdesk restore {backup}" in lines[0]
    assert db.exists() == (how == "empty") and (not db.exists() or db.stat().st_size == 0)
    assert sorted(p.name for p in (closed_library / "index").iterdir()) == index_before


def test_a_new_folder_still_becomes_a_library(tmp_path):
    # an empty folder (one that does not exist is refused by a command that only reads:
    # test_cli_inputs.py)
    (tmp_path / "new").mkdir()
    out = _run(tmp_path / "new", "stats")
    assert out.returncode == 0 and "papers: 0" in out.stdout
    assert _run(tmp_path / "new", "check").stdout.strip() == "library ok: 0 papers, index ok"


def test_damage_met_by_a_search_is_repaired_by_the_next_index_update(closed_library):
    """A segment overwritten while the library is open: searches find nothing in it
    instead of failing, say they are partial, and the next index update rebuilds it."""
    with Library.open(closed_library) as lib:
        healthy = {q: lib.search.find(q, limit=None).total for q in ("model", "net*")}
        segment = _segment(closed_library)
        _garble(segment, segment.stat().st_size // 2, 100_000)
        lib.index.whoosh.drop_caches()
        results = [lib.search.find(q, limit=None) for q in QUERIES]
        assert lib.index.whoosh.damage is not None and str(lib.index.whoosh.path) in lib.index.whoosh.damage
        assert results[-1].partial and results[-1].indexed == 0
        lib.index.sync()
        assert lib.index.whoosh.damage is None and lib.index.status().complete
        assert {q: lib.search.find(q, limit=None).total for q in healthy} == healthy
        assert check_library_ok(lib)


def check_library_ok(lib) -> bool:
    from paperdesk.core.check import check_library

    return check_library(lib).ok


def test_an_index_left_behind_is_caught_up_with_a_progress_line(closed_library):
    """An import stopped before it was indexed (a crash): the next command that writes
    indexes the rest first, and says how far it got."""
    from paperdesk.cli import QUIET_SYNC_MAX

    with Library.open(closed_library) as lib:
        lib.index.queue_all("update")         # as a crash during a reindex leaves it
        assert lib.index.status().queued == 225 > QUIET_SYNC_MAX
    out = _run(closed_library, "tag", "add", "seen", "1")
    assert out.returncode == 0
    assert "indexing 225 papers left from an earlier import first" in out.stderr
    assert "indexed: 225 of 225 papers searchable" in out.stderr
    assert _run(closed_library, "check").returncode == 0


def test_refuse_lost_database_names_what_is_missing(closed_library):
    (closed_library / "library.db").unlink()
    from paperdesk.core.check import refuse_lost_database
    from paperdesk.core.models import LibraryError

    with pytest.raises(LibraryError, match="database is missing"):
        refuse_lost_database(closed_library)


# -- found by a hostile tester ---------------------------------------------------------
def test_check_passes_on_titles_with_digits(tmp_path):
    """``check`` looked "YOLOv8" up as "YOLOv" and failed (and rebuilt the index) on every
    healthy library holding such words."""
    text = ("YOLOv8 detects small objects in aerial images with a new attention head.\n\n"
            "Graph networks model4415 predict molecular properties with GPT4o and "
            "ResNet50 features.\n")
    source = tmp_path / "digits.txt"
    source.write_text(text, encoding="utf-8")
    lib = tmp_path / "lib"
    assert _run(lib, "import", str(source)).returncode == 0
    out = _run(lib, "check")
    assert out.returncode == 0 and out.stdout.strip() == "library ok: 2 papers, index ok", \
        out.stdout + out.stderr


def test_an_index_without_its_table_of_contents_is_rebuilt(closed_library):
    for toc in (closed_library / "index").glob("_MAIN_*.toc"):
        toc.unlink()
    out = _run(closed_library, "search", "model", "--json")
    assert out.returncode == 0
    assert "rebuilding it from SQLite" in out.stderr
    import json
    assert json.loads(out.stdout)["total"] == 139 and not json.loads(out.stdout)["partial"]
    assert _run(closed_library, "check").returncode == 0


def test_check_indexes_papers_left_queued(closed_library):
    """An interrupted import or a full disk leaves papers queued: ``check`` says how many
    are not searchable and indexes them (it said "index ok" with 0 of N searchable)."""
    with Library.open(closed_library, sync_index=False) as lib:
        lib.auto_sync_index = False
        for pid in lib.papers.ids():                 # every paper re-queued, not applied
            lib.notes.set(pid, "queued", undoable=False)   # (a tag would not be: no text)
        assert lib.index.status().queued == 225       # more than a read applies silently
    # A search while another process holds the library (a search that can write
    # indexes them first) says its results miss the latest changes (it said nothing).
    from paperdesk.core.store.lock import LibraryLock
    with LibraryLock(closed_library, app="cli"):
        out = _run(closed_library, "search", "note:queued")
    assert "no matches" in out.stdout
    assert ("the latest changes to 225 papers are not searchable yet; the next command "
            "that writes, the window or paperdesk check indexes them") in out.stderr
    out = _run(closed_library, "check")
    assert out.returncode == 1
    assert ("225 of 225 papers wait to be indexed (searches miss them or their latest "
            "changes) — indexed now") in out.stdout
    assert _run(closed_library, "check").returncode == 0
    found = _run(closed_library, "search", "note:queued", "--json")
    import json
    assert json.loads(found.stdout)["total"] == 225


HOLD_LOCK = """
import sys
from paperdesk.core.store.lock import LibraryLock
lock = LibraryLock(sys.argv[1], app="cli")
lock.acquire()
print("held", flush=True)
sys.stdin.read()
lock.release()
"""


@pytest.mark.parametrize("damage", ["missing", "truncated"])
def test_reading_works_without_a_readable_index_when_it_cannot_be_repaired(
        closed_library, damage):
    """Read-only (another process holds the library, or the folder cannot be written)
    and the index missing or damaged: every command that reads still works on SQLite;
    searches find nothing and say why in one line (they failed with "not a paperdesk
    library yet" / "try again later" before)."""
    if damage == "missing":
        shutil.rmtree(closed_library / "index")
    else:
        seg = _segment(closed_library)
        with open(seg, "r+b") as fh:
            fh.truncate(100)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(closed_library)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        for args in (["show", "1"], ["stats"], ["export", "--all", "--format", "ris"],
                     ["tags"]):
            out = _run(closed_library, *args)
            assert out.returncode == 0, (args, out.stderr)
            assert out.stderr.strip().splitlines() == [
                line for line in out.stderr.strip().splitlines()
                if "the search index cannot be read" in line], out.stderr
        out = _run(closed_library, "search", "model")
        assert out.returncode == 0 and "no matches" in out.stdout
        assert "searches find nothing until" in out.stderr
        out = _run(closed_library, "check")
        assert out.returncode == 1 and "the search index cannot be read" in out.stdout
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    if damage == "missing":
        assert not (closed_library / "index").exists()     # nothing written meanwhile
