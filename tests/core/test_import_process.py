"""A large import stored by a process of its own (``lib.imports.run_in_process``, issue
28): the same papers as the importing thread stores, the caller's edits run between the
child's batches, cancel and a killed child keep whole papers, errors are one line."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from helpers import arxiv_lines
from paperdesk.core.imports import import_process
from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "seeds"
REALWORLD = ROOT.parent / "shared" / "realworld"


def _arxiv_lines(path: Path, n: int) -> Path:
    """``n`` distinct cs records in the arXiv snapshot's shape, a DOI on every third."""
    return arxiv_lines(path, n, month="2402", title="Graph walk", doi_every=3)


def _rows(path: Path) -> list[tuple]:
    """Every paper as another connection reads it: text, metadata, tags, sources,
    index queue (ids included)."""
    con = sqlite3.connect(f"file:{path / 'library.db'}?mode=ro", uri=True)
    try:
        papers = con.execute("SELECT * FROM papers ORDER BY id").fetchall()
        tags = con.execute("SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t "
                           "ON t.id = pt.tag_id ORDER BY 1, 2").fetchall()
        sources = con.execute("SELECT paper_id, count(*) FROM paper_sources "
                              "GROUP BY paper_id ORDER BY 1").fetchall()
        queued = con.execute("SELECT paper_id, op FROM index_queue ORDER BY 1").fetchall()
    finally:
        con.close()
    # timestamps differ between the two runs: keep everything else
    return [tuple(v for v in row if not (isinstance(v, str) and v[:2] == "20"
                                         and "T" in v[:11]))
            for row in papers] + tags + sources + queued


def _inputs(tmp_path: Path) -> list[Path]:
    files = [SEEDS, _arxiv_lines(tmp_path / "walks.jsonl", 400)]
    for name in ("zotero/bibtex/book.bib", "jabref/bibtex/comments.bib"):
        if (REALWORLD / name).is_file():
            files.append(REALWORLD / name)
    return files


def test_stores_what_the_importing_thread_stores(tmp_path):
    inputs = _inputs(tmp_path)
    with Library.open(tmp_path / "thread", sync_index=False) as lib:
        in_thread = lib.imports.run(inputs, sync=False)
    with Library.open(tmp_path / "child", sync_index=False) as lib:
        steps, files = [], []
        caller = threading.get_ident()
        in_child = lib.imports.run_in_process(
            inputs, progress=lambda *a: steps.append((threading.get_ident(), a)),
            on_file=lambda *a: files.append(a))
        assert lib.papers.count() == len(in_child.added_ids) > 600
    assert in_child.added_ids == in_thread.added_ids
    assert [(f.path, f.added, f.duplicates, f.enriched, f.format, f.warnings)
            for f in in_child.files] == [(f.path, f.added, f.duplicates, f.enriched,
                                          f.format, f.warnings) for f in in_thread.files]
    assert in_child.index_pending == in_thread.index_pending == len(in_child.added_ids)
    assert _rows(tmp_path / "child") == _rows(tmp_path / "thread")
    assert {t for t, _ in steps} == {caller}              # relayed on the caller's thread
    assert steps[-1][1][0] == "import" and steps[-1][1][1] == steps[-1][1][2]
    assert files[0][0] == "read" and any(f[0] == "import" for f in files)


def test_an_edit_waiting_runs_between_the_childs_batches(tmp_path, monkeypatch):
    """``hurry`` true: the child commits what it stored, pauses, and the caller's
    ``between_batches`` runs on the caller's thread and commits through the caller's
    connection while the import is still under way; then the child goes on."""
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run([SEEDS], sync=False)
        seed = lib.papers.ids()[0]
        waiting, ran = [], []
        caller = threading.get_ident()

        def progress(stage, done, total):
            if stage == "import" and done and not ran:
                waiting.append(1)              # "a star is pressed" after the first batch

        def between_batches():
            if not waiting:
                return
            waiting.clear()
            assert threading.get_ident() == caller
            lib.papers.set_starred([seed], True)
            ran.append(lib.db.execute("SELECT count(*) FROM papers").fetchone()[0])
            checkpoints.append(lib.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0])

        checkpoints = []
        before = lib.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        report = lib.imports.run_in_process([path], progress=progress,
                                            between_batches=between_batches,
                                            hurry=lambda: bool(waiting))
        assert ran and 225 < ran[0] < 225 + 1200        # ran while the import went on
        assert len(report.added_ids) == 1200 and lib.papers.count() == 1425
        assert lib.papers.get(seed).starred
        # The edit's commit never checkpoints what the child wrote: the child's thread
        # does (at SQLite's 1,000 pages every star did, 59 ms at p95 in an arXiv
        # import; at 50,000 one in 30-60 took 0.3-1 s); put back after.
        assert checkpoints == [0] and before == 1000
        assert lib.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == before


def test_an_edit_waiting_while_the_child_starts_runs_at_once(tmp_path):
    """A star pressed as a big file is dropped waited for the child to start (spawn,
    imports, its first batch: 3.9 s in the window's benchmark); while the child has not
    reported any progress, the caller's ``between_batches`` runs at once."""
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run([SEEDS], sync=False)
        seed = lib.papers.ids()[0]
        waiting, ran, stored = [], [], []

        def progress(stage, done, total):
            if stage == "import" and not done and not ran:
                waiting.append(1)           # pressed once the child is reading the file
            elif stage == "import" and done:
                stored.append(done)

        def between_batches():
            if waiting:
                waiting.clear()
                lib.papers.set_starred([seed], True)
                ran.append(len(stored))

        report = lib.imports.run_in_process([path], progress=progress,
                                            between_batches=between_batches,
                                            hurry=lambda: bool(waiting))
        assert ran == [0]                   # before the child stored its first batch
        assert len(report.added_ids) == 1200 and lib.papers.count() == 1425
        assert lib.papers.get(seed).starred


def test_an_edit_run_while_the_child_starts_is_not_outrun_by_its_batches(tmp_path):
    """The edit run at once while the child starts waits for SQLite's lock if the child
    is storing its first batch; the child is asked to hurry too, so it pauses after that
    batch instead of taking the lock again at once for the next one (the busy wait
    sleeps and lost the race every time: a star waited 2-7 s, for all of a 30,000-
    abstract file)."""
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1500)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run([SEEDS], sync=False)
        seed = lib.papers.ids()[0]
        waiting, ran = [], []

        def progress(stage, done, total):
            if stage == "import" and not done and not ran:
                waiting.append(1)           # pressed as the child starts storing

        def between_batches():
            if waiting:
                waiting.clear()
                lib.papers.set_starred([seed], True)
                ran.append(lib.papers.count() - 225)

        report = lib.imports.run_in_process([path], progress=progress,
                                            between_batches=between_batches,
                                            hurry=lambda: bool(waiting))
        assert len(report.added_ids) == 1500
        assert len(ran) == 1 and ran[0] <= 600      # within the child's first batches
        assert lib.papers.get(seed).starred


def test_what_between_batches_raises_while_the_child_starts_ends_the_import(tmp_path):
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        def between_batches():
            raise LibraryError("stopped by the test")

        with pytest.raises(LibraryError, match="stopped by the test"):
            lib.imports.run_in_process([path], between_batches=between_batches,
                                       hurry=lambda: True)
        assert lib.papers.count() < 1200        # the child was told to stop


def test_cancel_keeps_whole_papers_and_importing_again_adds_the_rest(tmp_path):
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        seen = []
        report = lib.imports.run_in_process(
            [path], progress=lambda stage, done, total: seen.append(done)
            if stage == "import" and done else None, cancel=lambda: bool(seen))
        assert report.cancelled and report.files[0].cancelled
        kept = lib.papers.count()
        assert 0 < kept == len(report.added_ids) < 1200
        again = lib.imports.run([path], sync=False)
        assert len(again.added_ids) == 1200 - kept and lib.papers.count() == 1200


def test_a_killed_child_is_one_line_and_leaves_whole_papers(tmp_path):
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        killed = []

        def progress(stage, done, total):
            if stage == "import" and done and not killed:
                for child in multiprocessing.active_children():
                    if child.name == "paperdesk-import":
                        child.kill()
                        killed.append(child)

        with pytest.raises(LibraryError, match=r"^the import's process was killed "
                                                r"\(signal 9\) before it finished"):
            lib.imports.run_in_process([path], progress=progress)
        assert killed
        stored = lib.papers.count()
        assert 0 < stored < 1200
        db = lib.db
        assert db.execute("SELECT count(*) FROM papers WHERE id NOT IN "
                          "(SELECT paper_id FROM paper_sources)").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM index_queue").fetchone()[0] == stored
        lib.imports.run([path], sync=False)
        assert lib.papers.count() == 1200


def test_a_child_killed_while_paused_is_one_line_too(tmp_path):
    """The child dies while it waits for the edits to be committed: the answer to it
    cannot be sent, and that is said as the child's end, not as a broken pipe."""
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        killed = []

        def between_batches():
            for child in multiprocessing.active_children():
                if child.name == "paperdesk-import" and not killed:
                    child.kill()
                    child.join()
                    killed.append(child)

        with pytest.raises(LibraryError, match=r"^the import's process was killed"):
            lib.imports.run_in_process([path], between_batches=between_batches,
                                       hurry=lambda: True)
        assert killed and lib.papers.count() < 1200


def test_what_between_batches_raises_ends_the_import(tmp_path):
    path = _arxiv_lines(tmp_path / "walks.jsonl", 1200)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        progressed = []

        def between_batches():      # at the child's first pause, after a batch
            raise ValueError("the window closed")

        with pytest.raises(ValueError, match="the window closed"):
            lib.imports.run_in_process([path], between_batches=between_batches,
                                       progress=lambda stage, done, total:
                                       progressed.append(done) if done else None,
                                       hurry=lambda: bool(progressed))
        assert 0 < lib.papers.count() < 1200
        assert not [c for c in multiprocessing.active_children()
                    if c.name == "paperdesk-import"]


def test_a_damaged_or_read_only_library_is_refused_before_any_process(tmp_path):
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run([SEEDS], sync=False)
    with Library.open(tmp_path / "lib", read_only=True) as lib:
        with pytest.raises(LibraryError, match="read-only"):
            lib.imports.run_in_process([SEEDS])
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib._refuse_writes("library.db is damaged: restore a backup")
        with pytest.raises(LibraryError, match="^library.db is damaged"):
            lib.imports.run_in_process([_arxiv_lines(tmp_path / "w.jsonl", 10)])
        assert lib.papers.count() == 225


def test_a_helper_open_leaves_the_folder_to_the_opening_process(tmp_path):
    """The helper's open checks and sweeps nothing, and its close neither records a
    clean close nor empties the WAL under the window."""
    from paperdesk.core.store import clean_close

    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run([SEEDS], sync=False)
        helper = Library.open_in_helper(lib.path)
        helper.papers.set_starred([lib.papers.ids()[0]], True)
        helper.close()
        assert not clean_close.closed_cleanly(lib.path)
        assert (lib.path / "library.db-wal").stat().st_size > 0
        assert lib.papers.get(lib.papers.ids()[0]).starred


def test_worth_a_process_counts_the_files_bytes(tmp_path, monkeypatch):
    small = _arxiv_lines(tmp_path / "walks.jsonl", 20)
    assert not import_process.worth_a_process([SEEDS, small])
    monkeypatch.setattr(import_process, "PROCESS_MIN_BYTES", small.stat().st_size)
    assert import_process.worth_a_process([small])
    assert import_process.worth_a_process([tmp_path])            # a folder's files
    assert not import_process.worth_a_process(["-"])             # standard input
    assert not import_process.worth_a_process([tmp_path / "missing.bib", small])


def test_schema_13_adds_the_identifier_counter_to_an_older_library(tmp_path):
    """A library of schema 12 gets ``identifier_writes`` and its triggers: a star leaves
    the counter alone; a DOI set, a paper with an arXiv id added, a paper deleted move
    it, from any connection."""
    path = tmp_path / "lib"
    with Library.open(path, sync_index=False) as lib:
        lib.imports.run([SEEDS], sync=False)
    con = sqlite3.connect(path / "library.db")
    for trigger in ("identifier_added", "identifier_set", "identifier_gone"):
        con.execute(f"DROP TRIGGER {trigger}")
    con.execute("DROP TABLE identifier_writes")
    con.execute("PRAGMA user_version = 12")
    con.commit()
    con.close()
    with Library.open(path, sync_index=False) as lib:
        def n() -> int:
            return lib.db.execute("SELECT n FROM identifier_writes").fetchone()[0]

        assert lib.db.execute("PRAGMA user_version").fetchone()[0] == 13
        assert n() == 0
        first, second = lib.papers.ids()[:2]
        lib.papers.set_starred([first], True)
        lib.tags.add([first], "review")
        assert n() == 0
        meta = lib.papers.metadata(first)
        lib.papers.set_metadata(first, dataclasses.replace(meta, doi="10.5555/x.1"))
        assert n() == 1
        lib.imports.run([_arxiv_lines(tmp_path / "w.jsonl", 3)], sync=False)
        assert n() == 4
        lib.removal.delete_papers([second])
        assert n() == 5


class _StuckLibrary(Library):
    """A library whose helper open never returns (the child hangs before importing)."""

    @classmethod
    def open_in_helper(cls, path):
        import time
        time.sleep(3600)


def test_a_cancelled_child_that_never_answers_is_stopped(tmp_path, monkeypatch):
    """A child that hangs while it starts (here in its open; a script without a
    ``__main__`` guard re-running itself in the child does too; so does a child starved
    under load) is killed once a cancel has waited START_CANCEL_KILL_S for it: the
    import ends cancelled with nothing added. Closing the window during an import's
    start froze it until the child looked at the cancel (9-55 s: the tester's P1 of
    the fifth session; before that, forever)."""
    monkeypatch.setattr(import_process, "CANCEL_KILL_S", 5.0)   # without the fix: raises
    outcome = []
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.__class__ = _StuckLibrary

        def run():
            try:
                outcome.append(lib.imports.run_in_process(
                    [_arxiv_lines(tmp_path / "w.jsonl", 10)], cancel=lambda: True))
            except LibraryError as exc:
                outcome.append(str(exc))

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(30)
        stuck = [c for c in multiprocessing.active_children() if c.name == "paperdesk-import"]
        for child in stuck:
            child.kill()
        lib.__class__ = Library
        assert not worker.is_alive() and not stuck
        assert len(outcome) == 1 and not isinstance(outcome[0], str), outcome
        assert outcome[0].cancelled and outcome[0].added == 0
        assert lib.papers.count() == 0


class _Left(Exception):
    """Raised by the stand-in for ``leave_now``: the child would have ended there."""


class _Pipe:
    """The child's end of the pipe: records what is sent, answers ``recv`` from a list."""

    def __init__(self, answers=()):
        self.sent, self._answers = [], list(answers)

    def send(self, message):
        self.sent.append(message)

    def recv(self):
        return self._answers.pop(0)


def _leave(monkeypatch, module) -> list:
    left = []

    def leave_now(code: int = 0):
        left.append(code)
        raise _Left()

    monkeypatch.setattr(module, "leave_now", leave_now, raising=False)
    return left


def test_the_import_child_ends_without_teardown_after_its_last_answer(monkeypatch):
    """After its report (here: the failure to open the library) the child ends at once
    (``leave_now``), without the interpreter's teardown of what it built, which the
    parent's writer thread and the window's edits behind it would wait for."""
    from paperdesk.core.imports import import_process

    class Refusing:
        @classmethod
        def open_in_helper(cls, path):
            raise LibraryError(f"{path}: not a paperdesk library")

    left = _leave(monkeypatch, import_process)
    monkeypatch.setattr(import_process.signal, "signal", lambda *args: None)
    pipe = _Pipe()
    with pytest.raises(_Left):
        import_process._child_main(pipe, Refusing, "/nowhere", [], None, True, None, None)
    assert left == [0]
    assert [kind for kind, _ in pipe.sent] == ["failed"]


def test_the_reading_child_ends_without_teardown_when_stopped(monkeypatch):
    """Told to stop, the import's reading child ends at once (``leave_now``): its
    interpreter's teardown took 140-165 ms after a 30,000-abstract file, while the
    import (and an edit waiting for it) waited in ``ParseChild.close``."""
    from paperdesk.core.imports import parse_process

    left = _leave(monkeypatch, parse_process)
    monkeypatch.setattr(parse_process.signal, "signal", lambda *args: None)
    with pytest.raises(_Left):
        parse_process._serve(_Pipe([("stop", None)]))
    assert left == [0]
