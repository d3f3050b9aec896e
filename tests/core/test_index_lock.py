"""Another process holding the search index's write lock (issue 14, item 9): no
``LockError`` traceback; the edit is saved, a one-line note says why it is not searchable
yet, and the next sync after the lock is released indexes it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from paperdesk.core.library import Library
from paperdesk.core.search import index as search_index

HOLD = """
import sys
from whoosh import index
writer = index.open_dir(sys.argv[1]).writer()
print("locked", flush=True)
sys.stdin.read()          # hold the lock until the test closes our stdin
writer.cancel()
"""


@pytest.fixture
def library(_seeded_template, tmp_path):
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    return path


@pytest.fixture
def lock_holder(library):
    """Start a process that holds ``library/index``'s Whoosh write lock; ``release()``
    ends it."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(library / "index")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"

    def release():
        if proc.poll() is None:
            proc.stdin.close()
            proc.wait(timeout=30)

    yield release
    release()


def test_edit_while_another_process_holds_the_index_lock(library, lock_holder, monkeypatch):
    monkeypatch.setattr(search_index, "WRITER_WAIT_S", 0.3)
    with Library.open(library) as lib:
        lib.notes.set(3, "while locked")      # an edit of indexed text (tags are not)
        assert lib.index.problem and "WRITELOCK" in lib.index.problem
        assert lib.index.status().queued >= 1                 # kept for later
        assert lib.notes.get(3) == "while locked"
        lock_holder()
        assert lib.index.sync() >= 1 and lib.index.problem is None
        assert [h.id for h in lib.search.hits('note:"while locked"')] == [3]


def test_cli_says_so_in_one_line(library, lock_holder):
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(library),
                        "note", "3", "held"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "LockError" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("paperdesk: note: the search index is "
                                                   "being written by another process")
    lock_holder()
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(library),
                        "search", "note:held", "--json"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and '"id": 3' in r.stdout, r.stdout + r.stderr
