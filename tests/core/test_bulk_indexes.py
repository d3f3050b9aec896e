"""The title and citation-key indexes of ``papers`` built after a large import
(issue 28, :mod:`paperdesk.core.store.bulk_indexes`).

No Qt here. The threshold (:data:`~paperdesk.core.store.bulk_indexes.DEFER_MIN_ABSTRACTS`)
and the batch size are lowered with ``monkeypatch`` so that a few dozen abstracts stand
for a large import; which indexes exist is read from ``sqlite_master`` by a second
connection from the import's ``between_batches`` hook (while it stores).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.core.check import check_library
from paperdesk.core.library import DB_NAME, Library
from paperdesk.core.metadata import auto_key
from paperdesk.core.store import bulk_indexes
from paperdesk.core.text import derive_title, normalize

BOTH = {bulk_indexes.TITLE_INDEX, bulk_indexes.KEY_INDEX}


def _abstract(i: int) -> str:
    return (f"Gradient {i} methods for sparse attention number {i} in long documents. "
            f"We report results on benchmark {i % 17}.")


def _write(path: Path, start: int, n: int) -> Path:
    path.write_text("Daily Papers\n\n" + "\n\n".join(_abstract(i)
                                                     for i in range(start, start + n))
                    + "\n", encoding="utf-8")
    return path


def _indexes(path: Path) -> set[str]:
    """The deferrable indexes the library's database has, read by a connection of its own."""
    con = sqlite3.connect(str(path / DB_NAME), timeout=5)
    try:
        names = {r[0] for r in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'papers'")}
    finally:
        con.close()
    return names & BOTH


@pytest.fixture
def lib(tmp_path, monkeypatch):
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 10)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.BATCH_SECONDS", 60.0)
    monkeypatch.setattr(bulk_indexes, "DEFER_MIN_ABSTRACTS", 20)
    with Library.open(tmp_path / "lib") as lib:
        yield lib


def _assert_usable(lib: Library, i: int) -> None:
    """The indexes exist, the check finds nothing, and paper ``i`` of the file is found
    by its title and by its citation key (in SQLite and in the search index)."""
    assert _indexes(lib.path) == BOTH
    lib.index.sync()
    assert check_library(lib).ok
    title = derive_title(normalize(_abstract(i)))
    (pid,) = [h.id for h in lib.search.find(f'title:"{title}"').hits]
    key = lib.papers.citation_key(pid)
    assert lib.papers.for_key(key.upper()) == pid
    assert [h.id for h in lib.search.find(f"key:{key}").hits] == [pid]
    row = lib.db.execute("SELECT id FROM papers WHERE title = ? COLLATE NOCASE",
                         [title.lower()]).fetchall()
    assert row == [(pid,)]


def _while_storing(lib, seen: list):
    """``(progress, between_batches)`` for ``imports.run`` that record the indexes at
    each batch of the storing stage only: the hook also runs while a file is read
    (beside the reading thread, more often on a loaded machine), before anything is
    dropped."""
    storing = []

    def progress(stage, _done, _total):
        if stage == "import":
            storing.append(True)

    def hook():
        if storing:
            seen.append(_indexes(lib.path))

    return progress, hook


def test_a_large_import_into_an_empty_library_builds_both_indexes_after_storing(lib,
                                                                               tmp_path):
    seen: list[set[str]] = []
    progress, hook = _while_storing(lib, seen)
    report = lib.imports.run([_write(tmp_path / "a.txt", 0, 60)], sync=False,
                             progress=progress, between_batches=hook)
    assert report.added == 60 and not report.cancelled
    assert seen and all(s == set() for s in seen)     # not written per insert
    _assert_usable(lib, 42)
    # the plan of a title lookup uses the index again
    plan = " ".join(str(r) for r in lib.db.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM papers WHERE title = 'x' COLLATE NOCASE"))
    assert bulk_indexes.TITLE_INDEX in plan


def test_a_cancelled_import_leaves_the_indexes_in_place(lib, tmp_path):
    batches = []

    def hook():
        batches.append(_indexes(lib.path))

    report = lib.imports.run([_write(tmp_path / "a.txt", 0, 60)], sync=False,
                             between_batches=hook, cancel=lambda: len(batches) >= 3)
    assert report.cancelled and 0 < report.added < 60
    assert batches[0] == set()          # they were dropped while it stored
    _assert_usable(lib, 5)
    out = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib.path),
                          "check"], capture_output=True, text=True, timeout=300)
    # (the library is open here: the command reads it as a second process would)
    assert "Traceback" not in out.stderr + out.stdout, out.stderr


def test_a_failed_import_leaves_the_indexes_in_place(lib, tmp_path):
    def boom():
        if lib.papers.count() >= 20:
            raise RuntimeError("a hook failed")

    with pytest.raises(RuntimeError):
        lib.imports.run([_write(tmp_path / "a.txt", 0, 60)], sync=False,
                        between_batches=boom)
    _assert_usable(lib, 3)


def test_the_check_command_says_ok_after_a_cancelled_import(tmp_path, monkeypatch):
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 10)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.BATCH_SECONDS", 60.0)
    monkeypatch.setattr(bulk_indexes, "DEFER_MIN_ABSTRACTS", 20)
    calls = []
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([_write(tmp_path / "a.txt", 0, 60)],
                                 between_batches=lambda: calls.append(1),
                                 cancel=lambda: len(calls) >= 3)
        assert report.cancelled
        lib.index.sync()
    assert _indexes(tmp_path / "lib") == BOTH
    out = subprocess.run([sys.executable, "-m", "paperdesk", "--library",
                          str(tmp_path / "lib"), "check"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Traceback" not in out.stderr + out.stdout


def test_a_smaller_import_into_a_bigger_library_keeps_the_indexes(lib, tmp_path):
    lib.imports.run([_write(tmp_path / "a.txt", 0, 60)], sync=False)
    seen: list[set[str]] = []
    report = lib.imports.run([_write(tmp_path / "b.txt", 100, 30)], sync=False,
                             between_batches=lambda: seen.append(_indexes(lib.path)))
    assert report.added == 30
    assert seen and all(s == BOTH for s in seen)


def test_a_small_import_into_an_empty_library_keeps_the_indexes(lib, tmp_path):
    seen: list[set[str]] = []
    lib.imports.run([_write(tmp_path / "a.txt", 0, 15)], sync=False,
                    between_batches=lambda: seen.append(_indexes(lib.path)))
    assert seen and all(s == BOTH for s in seen)


def test_an_import_of_records_keeps_the_citation_key_index(lib, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text("\n".join(
        f"@article{{smith{i},\n  author = {{Smith, Jane}},\n  year = {{2020}},\n"
        f"  title = {{Learning {i} things about lemurs}},\n"
        f"  abstract = {{{_abstract(i)}}}\n}}\n" for i in range(40)), encoding="utf-8")
    seen: list[set[str]] = []
    progress, hook = _while_storing(lib, seen)
    report = lib.imports.run([bib], sync=False, progress=progress, between_batches=hook)
    assert report.added == 40
    assert seen and all(s == {bulk_indexes.KEY_INDEX} for s in seen)
    assert _indexes(lib.path) == BOTH
    keys = [r[0] for r in lib.db.execute("SELECT citation_key FROM papers")]
    assert len({k.casefold() for k in keys}) == 40


def test_readers_keep_reading_the_list_while_the_indexes_are_dropped(lib, tmp_path):
    reader = Library.open(tmp_path / "lib", read_only=True)
    rows: list[int] = []

    def hook():
        rows.append(len(reader.db.execute(
            "SELECT id FROM papers ORDER BY title COLLATE NOCASE, id").fetchall()))

    try:
        lib.imports.run([_write(tmp_path / "a.txt", 0, 60)], sync=False,
                        between_batches=hook)
        hook()
    finally:
        reader.close()
    stored = [n for n in rows if n]
    assert stored == sorted(stored) and stored[-1] == 60


def test_an_import_killed_while_the_indexes_were_dropped_gets_them_at_the_next_open(
        lib, tmp_path):
    lib.imports.run([_write(tmp_path / "a.txt", 0, 30)], sync=False)
    with sqlite3.connect(str(lib.path / DB_NAME)) as con:     # as a killed import leaves it
        con.execute(f"DROP INDEX {bulk_indexes.TITLE_INDEX}")
        con.execute(f"DROP INDEX {bulk_indexes.KEY_INDEX}")
    lib.close()
    assert _indexes(tmp_path / "lib") == set()
    with Library.open(tmp_path / "lib") as again:
        assert _indexes(again.path) == BOTH
        _assert_usable(again, 7)


def test_an_automatic_key_a_user_took_before_the_import_reached_it_gets_a_suffix(
        lib, tmp_path):
    lib.imports.run([_write(tmp_path / "one.txt", 1000, 1)], sync=False)
    # the 6th abstract of the next file becomes paper 7, with this automatic key
    taken = auto_key(derive_title(normalize(_abstract(5))), 7)
    lib.papers.set_citation_key(1, taken)
    report = lib.imports.run([_write(tmp_path / "a.txt", 0, 40)], sync=False)
    assert report.added == 40
    assert _indexes(lib.path) == BOTH
    assert lib.papers.citation_key(1) == taken            # the user's key stays
    assert lib.papers.citation_key(7) == taken + "a"      # as an insert with the index gives
    assert lib.papers.for_key(taken) == 1


def test_the_rule(monkeypatch):
    monkeypatch.setattr(bulk_indexes, "DEFER_MIN_ABSTRACTS", 20_000)
    assert bulk_indexes.worth_deferring(0, 300_000)
    assert bulk_indexes.worth_deferring(300_000, 300_000)
    assert not bulk_indexes.worth_deferring(300_000, 10_000)
    assert not bulk_indexes.worth_deferring(0, 19_999)



def test_an_import_edits_may_wait_behind_keeps_its_indexes(lib, tmp_path):
    # The window's import (given hurry) builds nothing after storing: that build holds
    # the write lock for seconds at a million papers, and a star pressed then waited.
    seen: list[set[str]] = []
    progress, hook = _while_storing(lib, seen)
    report = lib.imports.run([_write(tmp_path / "a.txt", 0, 60)], sync=False,
                             progress=progress, between_batches=hook, hurry=lambda: False)
    assert report.added == 60
    assert seen and all(s == BOTH for s in seen)
    _assert_usable(lib, 42)
