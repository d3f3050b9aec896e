"""A command-line edit while another command imports waits its turn (issue 23, item 7):
with two real processes, ``paperdesk tag`` and ``paperdesk note`` run during an import
print one "waiting for ... (pid N, importing)" line, get in between the import's
batches and succeed; the import completes with every paper, and the tag and the note
are in the library (and in its search index) afterwards. A holder that never yields
makes the waiter give up after the bound ($PAPERDESK_LOCK_WAIT) with the one-line
refusal naming its pid and host; the window is never waited for."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # benchmarks.*

from benchmarks.synth import write_synthetic_files  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.core.store.lock import read_lock  # noqa: E402
from paperdesk.core.store.lock_turns import WAIT_ENV  # noqa: E402
from helpers import stored_papers  # noqa: E402

SYNTHETIC = 10_000      # enough batches that the import outlasts the two edits


def _cmd(library: Path, *args) -> list[str]:
    return [sys.executable, "-m", "paperdesk", "--library", str(library), *map(str, args)]


def _run(library: Path, *args, wait: float) -> subprocess.CompletedProcess:
    return subprocess.run(_cmd(library, *args), capture_output=True, text=True, timeout=300,
                          env={**os.environ, WAIT_ENV: str(wait)})


def _stderr_lines(r: subprocess.CompletedProcess) -> list[str]:
    assert "Traceback" not in r.stderr, r.stderr
    return r.stderr.strip().splitlines()


def test_tag_and_note_wait_for_an_import_between_its_batches(tmp_path, seed_files):
    library = tmp_path / "lib"
    with Library.open(library) as lib:
        lib.imports.run(seed_files)
        seeded = lib.papers.count()
    [big] = write_synthetic_files(tmp_path / "synth", seed_files, SYNTHETIC,
                                  per_file=SYNTHETIC)
    importer = subprocess.Popen(_cmd(library, "import", big), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while stored_papers(library) <= seeded:         # its first batch is committed
            assert importer.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        holder = read_lock(library)
        assert (holder.pid, holder.doing) == (importer.pid, "importing")
        tagged = _run(library, "tag", "add", "waited", 1, wait=120)
        noted = _run(library, "note", 2, "Written while an import ran.", wait=120)
        out, err = importer.communicate(timeout=300)
    finally:
        if importer.poll() is None:
            importer.kill()
            importer.wait()
    waiting = (f"paperdesk: waiting for a paperdesk command (pid {importer.pid}, "
               "importing) to let this change in")
    for r in (tagged, noted):
        assert r.returncode == 0, r.stderr
        lines = _stderr_lines(r)
        assert len(lines) == 1 and lines[0].startswith(waiting), r.stderr
    assert importer.returncode == 0, err
    assert "Traceback" not in err
    assert f"{SYNTHETIC:,} added" in out
    with Library.open(library, read_only=True) as lib:
        assert lib.papers.count() == seeded + SYNTHETIC
        assert lib.index.status().queued == 0        # the guests' changes indexed too
        assert [t.name for t in lib.papers.get(1).tags] == ["waited"]
        assert lib.notes.get(2) == "Written while an import ran."
    found = _run(library, "search", "tag:waited", "--json", wait=0)
    assert [h["id"] for h in json.loads(found.stdout)["hits"]] == [1]


HOLD = """
import sys
from paperdesk.core.store.lock import LibraryLock
lock = LibraryLock(sys.argv[1], app=sys.argv[2], doing="reindexing")
lock.acquire()
print("held", flush=True)
sys.stdin.read()
lock.release()
"""


def _holding(library: Path, app: str) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(library), app],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_holder_that_never_yields_is_waited_for_up_to_the_bound_then_refused(
        tmp_path, seed_files):
    library = tmp_path / "lib"
    with Library.open(library) as lib:
        lib.imports.run(seed_files[:1])
    holder = _holding(library, "cli")
    try:
        r = _run(library, "note", 1, "never written", wait=0.5)
    finally:
        holder.communicate("")
    assert r.returncode == 1
    lines = _stderr_lines(r)
    assert len(lines) == 2 and lines[0].startswith(
        f"paperdesk: waiting for a paperdesk command (pid {holder.pid}, reindexing)")
    assert lines[1] == (f"paperdesk: the library {library} is in use by a paperdesk command "
                        f"(process {holder.pid} on {socket.gethostname()}); try again when "
                        "it has finished")
    assert [p.name for p in library.iterdir() if p.name.startswith("library.lock")] == []
    with Library.open(library, read_only=True) as lib:
        assert lib.notes.get(1) == ""


def test_the_window_is_not_waited_for(tmp_path, seed_files):
    library = tmp_path / "lib"
    with Library.open(library) as lib:
        lib.imports.run(seed_files[:1])
    holder = _holding(library, "gui")
    try:
        r = _run(library, "tag", "add", "x", 1, wait=60)
    finally:
        holder.communicate("")
    assert r.returncode == 1
    [line] = _stderr_lines(r)
    assert line.startswith(f"paperdesk: the library {library} is open in the paperdesk "
                           f"window (process {holder.pid}")
