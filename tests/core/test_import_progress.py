"""Getting files in from the command line: import progress (files, records, time left),
the progress bar only on a terminal, Ctrl+C keeping the committed papers whole, and
telling ``paperdesk FILE...`` from a command."""

from __future__ import annotations

import io
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperdesk.cli import build_parser, main, split_open_files
from paperdesk.cli_progress import ImportBar
from paperdesk.core.imports.progress import ImportProgress, ProgressTracker, format_seconds
from paperdesk.core.library import Library
from helpers import stored_papers

ROOT = Path(__file__).resolve().parents[2]

BIB = """@article{lovelace2021,
  author = {Lovelace, Ada and Babbage, Charles},
  title = {Engines that weave {\\"u}nusual patterns},
  journal = {Journal of Analytical Engines},
  year = {2021},
  doi = {10.1234/engines.2021.7},
  abstract = {We describe an engine that weaves algebraic patterns as a loom weaves
    flowers and leaves, and report its results on three benchmark tapestries.}
}

@inproceedings{hopper2022,
  author = {Hopper, Grace},
  title = {Compilers for the rest of us},
  booktitle = {Proceedings of the Workshop on Friendly Machines},
  year = {2022}
}
"""


def _text_file(path: Path, n: int, word: str = "lemurs") -> Path:
    """A plain text file of ``n`` distinct prose abstracts (one per paragraph)."""
    body = "\n\n".join(
        f"We study {word} in setting number {i} and show that the {word} adapt quickly. "
        f"Experiments on {i % 7 + 2} datasets confirm the effect across many seasons."
        for i in range(n))
    path.write_text(f"Collection of {word}\n\n{body}\n", encoding="utf-8")
    return path


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# -- the tracker ---------------------------------------------------------------------------
def test_tracker_counts_files_and_records_and_extrapolates_the_time_left():
    clock = FakeClock()
    seen: list[ImportProgress] = []
    t = ProgressTracker(seen.append, clock=clock)
    t.on_file("read", 0, 3, "a.bib")
    assert seen[-1].text() == "Reading file 1 of 3" and seen[-1].eta_seconds is None
    t.on_file("read", 1, 3, "b.ris")
    t.progress("import", 0, 1000)
    t.on_file("import", 0, 3, "a.bib")
    clock.now += 2.0
    t.progress("import", 250, 1000)     # 250 records in 2 s: 750 more take 6 s
    snap = seen[-1]
    assert (snap.files_done, snap.files_total, snap.file) == (0, 3, "a.bib")
    assert snap.eta_seconds == pytest.approx(6.0)
    assert snap.text() == ("Storing file 1 of 3 · 250 of 1,000 records · about 6 s left, "
                           "then indexing")
    t.on_file("import", 2, 3, "c.json")
    clock.now += 6.0
    t.progress("import", 1000, 1000)
    assert seen[-1].eta_seconds == 0.0
    t.progress("index", 0, 900)          # a new stage: its own rate
    assert seen[-1].eta_seconds is None and seen[-1].file == ""
    clock.now += 0.2
    t.progress("index", 100, 900)
    assert seen[-1].eta_seconds is None  # too early to guess
    clock.now += 0.8
    t.progress("index", 300, 900)        # 300 in 1 s: 600 more take 2 s
    assert seen[-1].text() == "Indexing for search · 300 of 900 papers · about 2 s left"


def test_storing_starts_at_the_first_file_not_at_the_last_one_read():
    """Storing's total is reported before its first file's ``on_file``: the line did say
    "Storing file 3 of 3 · 0 of 900 records" (the files read) for that moment (CI)."""
    seen: list[ImportProgress] = []
    t = ProgressTracker(seen.append, clock=FakeClock())
    for n, name in enumerate(["a.txt", "b.txt", "c.txt"]):
        t.on_file("read", n, 3, name)
    assert seen[-1].text() == "Reading file 3 of 3"
    t.progress("import", 0, 900)
    assert seen[-1].text() == "Storing file 1 of 3 · 0 of 900 records"
    t.on_file("import", 0, 3, "a.txt")
    t.progress("import", 50, 900)
    t.progress("import", 100, 900)      # later batches keep the file being stored
    assert (seen[-1].files_done, seen[-1].file) == (0, "a.txt")
    t.on_file("import", 1, 3, "b.txt")
    t.progress("import", 400, 900)
    assert seen[-1].text().startswith("Storing file 2 of 3 · 400 of 900 records")


def test_durations_read_as_a_person_would_say_them():
    assert [format_seconds(s) for s in (0, 0.2, 59, 61, 3599, 3600 + 125, -3)] == \
        ["0 s", "1 s", "59 s", "1 min 1 s", "60 min", "1 h 2 min", "0 s"]
    assert ImportProgress("import", 0, 1, "x", 5, 0).counts_text() == "5 records"


def test_import_paths_reports_each_file_as_it_is_read_and_stored(tmp_path, seed_files):
    bad = tmp_path / "markup.txt"
    bad.write_text("<html><body><div class='x'>not a paper</div></body></html>\n")
    lib = Library.open(tmp_path / "lib")
    calls = []
    tracker = ProgressTracker()
    with lib:
        lib.imports.run([seed_files[0], bad, seed_files[1]],
                         on_file=lambda *a: (calls.append(a), tracker.on_file(*a)),
                         progress=tracker.progress)
    names = [str(seed_files[0]), str(bad), str(seed_files[1])]
    assert calls == [("read", 0, 3, names[0]), ("read", 1, 3, names[1]),
                     ("read", 2, 3, names[2]),
                     ("import", 0, 3, names[0]), ("import", 2, 3, names[2])]
    assert tracker.snapshot.stage == "index"
    assert (tracker.snapshot.done, tracker.snapshot.total) == (225, 225)


def _whole(db_path: Path) -> tuple[int, int]:
    """(papers, papers lacking a source row or an index-queue/index entry)."""
    con = sqlite3.connect(db_path)
    try:
        papers = con.execute("SELECT count(*) FROM papers").fetchone()[0]
        orphans = con.execute(
            "SELECT count(*) FROM papers p WHERE NOT EXISTS "
            "(SELECT 1 FROM paper_sources s WHERE s.paper_id = p.id)").fetchone()[0]
        return papers, orphans
    finally:
        con.close()


def test_cancel_after_the_first_batch_keeps_whole_papers_of_several_files(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 300)    # 700 abstracts: 3 batches
    first = _text_file(tmp_path / "first.txt", 700, "lemurs")
    second = _text_file(tmp_path / "second.txt", 50, "otters")
    lib = Library.open(tmp_path / "lib")
    tracker = ProgressTracker()
    with lib:
        report = lib.imports.run([first, second], progress=tracker.progress,
                                  on_file=tracker.on_file,
                                  cancel=lambda: tracker.snapshot.done > 0)
        assert report.cancelled and report.files[0].cancelled
        assert [f.path for f in report.files] == [str(first)]      # second: not begun
        assert 0 < report.added < 700 and report.added == lib.papers.count()
        assert report.added == tracker.snapshot.done               # what was committed
        assert lib.papers.stats()["pending_index"] == report.added        # all queued, none lost
        again = lib.imports.run([first, second])
        assert (again.added, again.duplicates) == (750 - report.added, report.added)
    assert _whole(tmp_path / "lib" / "library.db") == (750, 0)


# -- the command line's bar ----------------------------------------------------------------
class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_stage_file_records_and_time_left_on_a_terminal(tmp_path, seed_files):
    screen = _Terminal()
    bar = ImportBar(stream=screen)
    assert bar.enabled
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files, progress=bar.tracker.progress,
                         on_file=bar.tracker.on_file)
    bar.close()
    out = screen.getvalue()
    assert "Storing file 2/2 002_00e8b70c8c985b9b.txt" in out
    assert "240/240 records" in out and "225/225 papers" in out
    assert "Indexing for search" in out and " left]" in out
    assert not ImportBar(stream=io.StringIO()).enabled        # not a terminal: no bar


def _run(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperdesk", *map(str, args)],
                          capture_output=True, text=True, timeout=300, **kw)


def test_no_bar_or_control_characters_when_the_output_is_a_pipe(tmp_path, seed_files):
    r = _run("--library", tmp_path / "lib", "import", *seed_files)
    assert r.returncode == 0, r.stderr
    for stream in (r.stdout, r.stderr):
        assert "\r" not in stream and "\x1b" not in stream and "%|" not in stream
        assert "Storing" not in stream and "left]" not in stream
    assert r.stderr == ""
    assert "total: 225 added, 0 enriched, 15 duplicates, 0 rejected" in r.stdout


@pytest.mark.slow
def test_ctrl_c_keeps_the_committed_papers_whole_and_exits_130(tmp_path):
    big = _text_file(tmp_path / "big.txt", 20000)
    library = tmp_path / "lib"
    proc = subprocess.Popen([sys.executable, "-m", "paperdesk", "--library", str(library),
                             "import", str(big)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while stored_papers(library) == 0:         # until the first batch is committed
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no batch was committed"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    kept = stored_papers(library)
    assert 0 < kept < 20000
    line = next(l for l in err.splitlines() if l.startswith("Cancelled:"))
    assert line.startswith(f"Cancelled: {kept:,} papers were imported and kept")
    assert f"big.txt: {kept:,} added" in out
    assert _whole(library / "library.db") == (kept, 0)
    with Library.open(library) as lib:             # the rest comes with a second import
        assert lib.papers.stats()["indexed"] == kept      # the queue was indexed on opening
        report = lib.imports.run([big])
        assert (report.added, report.duplicates) == (20000 - kept, kept)



# -- paperdesk FILE... ---------------------------------------------------------------------
@pytest.mark.parametrize("argv, expected", [
    (["a.bib"], ([], ["a.bib"])),
    (["--library", "L", "a.bib", "b.ris"], (["--library", "L"], ["a.bib", "b.ris"])),
    (["--library", "import", "a.bib"], (["--library", "import"], ["a.bib"])),
    (["--lib", "L", "a.bib"], (["--lib", "L"], ["a.bib"])),
    (["--library=L", "a.bib", "--appearance", "dark"],
     (["--library=L", "--appearance", "dark"], ["a.bib"])),
    (["--", "import", "-x"], ([], ["import", "-x"])),
    (["import", "a.bib"], None),
    (["--library", "L", "search", "x"], None),
    (["--library", "L"], None),
    ([], None),
])
def test_files_are_told_from_commands(argv, expected):
    assert split_open_files(build_parser(), argv) == expected


def test_a_word_that_is_neither_command_nor_file_is_a_usage_error(tmp_path, capsys,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["serch", "networks"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "'serch' is neither a command nor a file or folder" in err and "usage:" not in err
    assert err.startswith("paperdesk: error: ") and err.count("\n") == 1
    (tmp_path / "a.bib").write_text(BIB)
    with pytest.raises(SystemExit):
        main(["a.bib", "gone.ris"])
    assert "'gone.ris' is not a file or folder" in capsys.readouterr().err


def test_a_file_named_like_a_command_is_imported_by_the_command(tmp_path):
    (tmp_path / "stats").write_text(BIB)
    r = _run("--library", tmp_path / "lib", "import", "stats", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "stats: 2 added" in r.stdout


def test_ctrl_c_in_the_near_duplicate_stage_says_so_and_exits_130(tmp_path, monkeypatch,
                                                                   capsys):
    """The stage after the import stops at Ctrl+C (what it did not look at is looked at
    next time): the command says so and exits 130, not 0 as if it had finished."""
    import os

    from paperdesk.core.edits import duplicates as stage

    monkeypatch.setattr(stage, "DUPLICATE_BATCH", 10)
    real = stage.Duplicates.find

    def interrupted(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)          # the terminal's Ctrl+C, once
        return real(self, *args, **kwargs)

    monkeypatch.setattr(stage.Duplicates, "find", interrupted)
    library = tmp_path / "lib"
    assert main(["--library", str(library), "import",
                 str(_text_file(tmp_path / "a.txt", 60))]) == 130
    err = capsys.readouterr().err
    assert "Cancelled while looking for near-duplicates: 60 papers imported, kept and " \
           "searchable" in err and "Traceback" not in err
    with Library.open(library) as lib:
        assert lib.papers.count() == 60 and lib.duplicates.pending() == 60
