"""A full disk, a read-only library folder, and a crash between the SQLite commit and the
index write (issue 14, items 7 and 8 and deliver 4), run as a user would: CLI
subprocesses; a real full file system (a 6 MB tmpfs) and a real read-only folder read by
an unprivileged user when the tests run as root (root ignores permissions)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from helpers import as_user, write_daily
from paperdesk.cli import main
from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError
from paperdesk.core.store import lock as lock_module
from paperdesk.core.store.lock import LOCK_NAME, LibraryLock

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def run(library: Path, *args, user: str | None = None, stdin: str | None = None
        ) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "paperdesk", "--library", str(library), *map(str, args)]
    env, cwd = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, None
    if user is not None:       # from files the user can read wherever the clone lies
        cmd, env, cwd = as_user(cmd, user)
    return subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=180,
                          env=env, cwd=cwd)


def one_line(r: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


# -- the lock file on a full disk ---------------------------------------------------------
@pytest.mark.parametrize("hard_links", [True, False])
def test_a_lock_that_cannot_be_written_leaves_no_file(tmp_path, monkeypatch, hard_links):
    real_write = os.write

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lock_module.os, "write", full)
    if not hard_links:      # e.g. FAT: the lock file is created and filled in place
        def no_link(src, dst):
            raise OSError(errno.EPERM, "Operation not permitted")
        monkeypatch.setattr(lock_module.os, "link", no_link)
    with pytest.raises(LibraryError, match=r"the disk is full \(writing .*library\.lock"):
        LibraryLock(tmp_path).acquire()
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    monkeypatch.setattr(lock_module.os, "write", real_write)
    with LibraryLock(tmp_path) as lock:       # and works once there is space
        assert lock.held and (tmp_path / LOCK_NAME).read_text().startswith("{")


def test_without_hard_links_the_lock_is_still_exclusive(tmp_path, monkeypatch):
    def no_link(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(lock_module.os, "link", no_link)
    with LibraryLock(tmp_path, app="gui"):
        with pytest.raises(lock_module.LockHeld):
            LibraryLock(tmp_path).acquire()
    assert not (tmp_path / LOCK_NAME).exists()


def test_an_empty_lock_file_left_behind_is_not_held(tmp_path, seed_files):
    lib = tmp_path / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    (lib / LOCK_NAME).write_bytes(b"")           # what a failed write used to leave
    r = run(lib, "tag", "add", "kept", "1")
    assert r.returncode == 0, r.stderr
    assert "being opened by another paperdesk" not in r.stderr
    assert not (lib / LOCK_NAME).exists()


def test_a_sqlite_full_error_is_one_line(tmp_path, seed_files, capsys, monkeypatch):
    import paperdesk.cli as cli

    lib = tmp_path / "lib"
    assert main(["--library", str(lib), "import", str(seed_files[0])]) == 0
    capsys.readouterr()

    def full(*_args):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setitem(cli._COMMANDS, "note", full)
    assert main(["--library", str(lib), "note", "1", "text"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"paperdesk: the disk is full (writing {lib / 'library.db'}: "
                          "database or disk is full)")
    assert len(err.splitlines()) == 1
    assert not (lib / LOCK_NAME).exists()


# -- a real full disk ------------------------------------------------------------------
@pytest.fixture
def small_disk():
    """A 6 MB tmpfs (root only; skipped elsewhere), unmounted after the test."""
    if not ROOT or shutil.which("mount") is None:
        pytest.skip("mounting a small file system needs root")
    folder = Path(tempfile.mkdtemp(prefix="paperdesk-full-"))
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(folder)],
                       capture_output=True, text=True)
    if r.returncode:
        folder.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    yield folder
    subprocess.run(["umount", str(folder)], check=False)
    folder.rmdir()


def _fill(folder: Path, leave_kib: int = 0) -> Path:
    """Fill the file system of ``folder`` but ``leave_kib`` KiB."""
    filler = folder / "filler"
    free = shutil.disk_usage(folder).free // 1024 - leave_kib
    with open(filler, "wb") as out:
        block = b"\0" * 1024
        try:
            for _ in range(max(free, 0)):
                out.write(block)
            out.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_says_so_leaves_no_lock_and_stays_readable(small_disk, seed_files,
                                                               tmp_path):
    lib = small_disk / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    filler = _fill(small_disk)
    for args in (("tag", "add", "full", "1"), ("note", "1", "on a full disk"),
                 ("import", seed_files[1])):
        r = run(lib, *args)
        assert r.returncode == 1, (args, r.stdout)
        line = one_line(r)
        assert "the disk is full (" in line, line
        assert "being opened by another paperdesk" not in line
        assert not (lib / LOCK_NAME).exists()
    # Reading works on the full disk.
    r = run(lib, "stats", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["papers"] == 120
    r = run(lib, "search", "language model", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["total"] > 0
    out = tmp_path / "all.bib"
    r = run(lib, "export", "--all", "--format", "bibtex", "-o", out)
    assert r.returncode == 0, r.stderr
    assert out.read_text(encoding="utf-8").count("\n@misc{") + 1 == 120
    # Space again: writes work, nothing was lost or half-written.
    filler.unlink()
    r = run(lib, "tag", "add", "full", "1")
    assert r.returncode == 0, r.stderr
    conn = sqlite3.connect(lib / "library.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 120
    conn.close()


def test_a_disk_that_fills_during_an_import_keeps_the_library_whole(small_disk, seed_files):
    lib = small_disk / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    filler = _fill(small_disk, leave_kib=150)
    r = run(lib, "import", seed_files[1])
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "the disk is full (writing" in r.stderr
    assert "disk I/O error" not in r.stderr
    assert not (lib / LOCK_NAME).exists()
    r = run(lib, "stats", "--json")
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    conn = sqlite3.connect(f"file:{lib / 'library.db'}?mode=ro", uri=True)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    conn.close()
    assert stats["papers"] == stored >= 120         # committed batches stay, whole
    filler.unlink()
    r = run(lib, "import", seed_files[1])
    assert r.returncode == 0, r.stderr
    r = run(lib, "stats", "--json")
    stats = json.loads(r.stdout)
    assert (stats["papers"], stats["indexed"], stats["pending_index"]) == (225, 225, 0)


# -- a read-only library folder --------------------------------------------------------
@pytest.fixture
def shared_tmp():
    """A folder an unprivileged user can reach (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="paperdesk-ro-"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["chmod", "-R", "u+w", str(folder)], check=False)
    shutil.rmtree(folder, ignore_errors=True)


def _reader() -> str | None:
    """The user that reads the read-only folder: ``nobody`` when running as root (root
    writes anywhere), else the current user (``None``)."""
    if not ROOT:
        return None
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is needed to read as an unprivileged user")
    return "nobody"


def test_a_read_only_library_folder_can_be_searched_and_exported(shared_tmp, seed_files):
    user = _reader()
    lib = shared_tmp / "lib"
    assert run(lib, "import", *seed_files).returncode == 0
    assert run(lib, "note", "7", "capybara in the wild").returncode == 0   # the last change
    subprocess.run(["chmod", "-R", "a-w", str(lib)], check=True)
    r = run(lib, "stats", "--json", user=user)
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    assert (stats["papers"], stats["notes"], stats["indexed"]) == (225, 1, 225)
    r = run(lib, "search", "capybara", "--json", user=user)
    assert r.returncode == 0, r.stderr
    assert [h["id"] for h in json.loads(r.stdout)["hits"]] == [7]
    r = run(lib, "export", "--all", "--format", "json", user=user)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["papers"]) == 225
    r = run(lib, "show", "7", "--json", user=user)
    assert json.loads(r.stdout)["note"] == "capybara in the wild"
    r = run(lib, "tag", "add", "x", "1", user=user)
    assert r.returncode == 1
    # both named at once (a tester fixed the file, then was told about the folder)
    assert one_line(r) == (f"paperdesk: the library folder {lib} and its file library.db "
                           "are read-only (Permission denied): it can be searched and "
                           "exported, not changed")
    # Self-contained: no lock, no -wal or -shm file was needed (library.db.closed is the
    # record of the last writer's clean close: core/store/clean_close.py; duplicates/ the
    # near-duplicate bands the import's stage wrote: core/store/band_runs.py).
    assert sorted(p.name for p in lib.iterdir()) == ["backups", "duplicates", "index",
                                                     "library.db", "library.db.closed"]


def _make_unwritable(path: Path, how: str) -> str | None:
    """Make the file ``path`` unwritable ``how`` ("mode": 0444, read by an unprivileged
    user when the tests run as root; "immutable": ``chattr +i``, which stops root too);
    the user to run as. Skips when the system cannot."""
    if how == "mode":
        user = _reader()
        path.chmod(0o444)
        return user
    if not ROOT or shutil.which("chattr") is None:
        pytest.skip("chattr +i needs root and chattr")
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip(f"this file system takes no immutable files ({path.parent})")
    return None


@pytest.mark.parametrize("how, name", [("mode", "library.db"), ("immutable", "library.db"),
                                       ("immutable", "library.db-shm")])
def test_a_read_only_database_file_in_a_writable_folder_refuses_changes_in_one_line(
        shared_tmp, seed_files, how, name):
    """A ``library.db`` (or its ``-shm`` file, which a read-only command on a read-only
    database leaves read-only) that cannot be written in a folder that can: SQLite would
    open it and refuse the note only when it is saved; the library is read-only from the
    start instead, in one line, and still answers searches."""
    lib = shared_tmp / "lib"
    assert run(lib, "import", *seed_files).returncode == 0
    (lib / name).touch()
    db = lib / name
    lib.chmod(0o777)                       # the folder can be written, by anyone
    user = _make_unwritable(db, how)
    try:
        before = db.read_bytes()
        r = run(lib, "note", "7", "capybara in the wild", user=user)
        assert r.returncode == 1
        assert one_line(r) == (f"paperdesk: the library file {db} is read-only "
                               "(Permission denied): it can be searched and exported, "
                               "not changed") or (how == "immutable" and one_line(r) == (
                                   f"paperdesk: the library file {db} is read-only "
                                   "(Operation not permitted): it can be searched and "
                                   "exported, not changed"))
        assert not (lib / LOCK_NAME).exists()
        r = run(lib, "search", "depth", "--json", user=user)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["hits"]
        r = run(lib, "show", "7", "--json", user=user)
        assert r.returncode == 0 and json.loads(r.stdout)["note"] in ("", None), r.stdout
        assert db.read_bytes() == before
    finally:
        if how == "immutable":
            subprocess.run(["chattr", "-i", str(db)], check=False)


def test_a_read_only_folder_with_a_wal_left_by_a_crash_shows_every_change(shared_tmp,
                                                                         seed_files):
    user = _reader()
    lib = shared_tmp / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    # A writer killed after its commit: the change is in the WAL only, not checkpointed.
    code = ("import os, sys\nfrom paperdesk.core.library import Library\n"
            f"lib = Library.open({str(lib)!r})\n"
            "lib.db.execute('PRAGMA wal_autocheckpoint=0')\n"
            "lib.notes.set(3, 'only in the WAL')\n"
            "os.kill(os.getpid(), 9)\n")
    subprocess.run([sys.executable, "-c", code], check=False, timeout=120)
    assert (lib / "library.db-wal").stat().st_size > 0
    subprocess.run(["chmod", "-R", "a-w", str(lib)], check=True)
    r = run(lib, "show", "3", "--json", user=user)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["note"] == "only in the WAL"   # immutable=1 would miss it


# -- durability: the index catches up after a crash ------------------------------------
def test_the_index_catches_up_after_a_crash_between_commit_and_index_write(tmp_path,
                                                                           seed_files):
    lib = tmp_path / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    more = write_daily(tmp_path / "more.txt", [
        f"We measure okapi sightings number {i} with a careful method and report the "
        f"counts of region {i}." for i in range(300)])
    # Killed as the index write starts: SQLite has committed, the index has not.
    code = ("import os\nfrom paperdesk.core.library import Library\n"
            "from paperdesk.core.search.index import SearchIndex\n"
            "SearchIndex.write = lambda *a, **k: os.kill(os.getpid(), 9)\n"
            f"lib = Library.open({str(lib)!r}, sync_index=False)\n"
            "lib.notes.set(5, 'capybara')\n")
    r = subprocess.run([sys.executable, "-c", code], timeout=120)
    assert r.returncode == -signal.SIGKILL
    code = code.replace("lib.notes.set(5, 'capybara')",
                        f"lib.imports.run([{str(more)!r}])")
    r = subprocess.run([sys.executable, "-c", code], timeout=120)
    assert r.returncode == -signal.SIGKILL
    conn = sqlite3.connect(f"file:{lib / 'library.db'}?mode=ro", uri=True)
    assert conn.execute("SELECT count(*) FROM index_queue").fetchone()[0] == 301
    assert conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 420
    conn.close()
    # The next opening for changes (here a command; the window alike) brings the index
    # up to date from the queue.
    r = run(lib, "tag", "add", "seen", "1")
    assert r.returncode == 0, r.stderr
    r = run(lib, "stats", "--json")
    stats = json.loads(r.stdout)
    assert (stats["papers"], stats["indexed"], stats["pending_index"]) == (420, 420, 0)
    assert json.loads(run(lib, "search", "capybara", "--json").stdout)["total"] == 1
    assert json.loads(run(lib, "search", "okapi", "--json").stdout)["total"] == 300


def test_aside_files_of_killed_lock_takers_are_swept(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    leftover = tmp_path / f"{LOCK_NAME}.new-{proc.pid}-0123456789abcdef"
    leftover.write_text("{}")
    with LibraryLock(tmp_path):
        assert not leftover.exists()


def test_a_library_folder_that_cannot_be_read_is_named(shared_tmp, seed_files):
    """Issue 23 item 8: ``backup`` (and every reading command) on a library the user
    cannot read said ``cannot write output: Permission denied``, naming nothing."""
    user = _reader()
    lib = shared_tmp / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    lib.chmod(0o000)
    try:
        for args in (("backup",), ("stats",), ("search", "model"), ("check",),
                     ("tag", "add", "x", "1")):
            r = run(lib, *args, user=user)
            assert r.returncode == 1, (args, r.stdout)
            line = one_line(r)
            assert str(lib) in line and "ermission denied" in line, (args, line)
            assert "cannot write output" not in line and "read-only" not in line, line
    finally:
        lib.chmod(0o755)


def test_a_backup_into_a_folder_that_cannot_be_read_names_the_file(shared_tmp, seed_files):
    user = _reader()
    lib = shared_tmp / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    subprocess.run(["chmod", "-R", "a-w", str(lib)], check=True)
    private = shared_tmp / "private"
    private.mkdir(mode=0o000)
    private.chmod(0o000)
    for target in (private / "copy.db", private / "sub" / "copy.db"):
        r = run(lib, "backup", target, user=user)
        assert r.returncode == 1, r.stdout
        line = one_line(r)
        assert str(target) in line and "ermission denied" in line, line
    r = run(lib, "backup", user=user)                 # a read-only library folder
    assert r.returncode == 1
    assert str(lib / "backups") in one_line(r), r.stderr


def test_a_large_import_on_a_full_disk_says_so_in_plain_words(small_disk, seed_files,
                                                              tmp_path):
    """Issue 23 item 8: SQLite rolls a large transaction back by itself on SQLITE_FULL,
    and the message quoted the failed ROLLBACK after it ("cannot rollback - no
    transaction is active") instead of the full disk."""
    lib = small_disk / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    big = write_daily(tmp_path / "big.txt", [
        f"We count okapi sightings in region {i} with a careful method, and report the "
        f"numbers of {i} surveys over many years of field work in the forest."
        for i in range(3000)])
    filler = _fill(small_disk, leave_kib=400)
    r = run(lib, "import", big)
    assert r.returncode == 1
    line = one_line(r)
    assert f"the disk is full (writing {lib / 'library.db'}" in line, line
    assert "rollback" not in line and "transaction" not in line, line
    conn = sqlite3.connect(f"file:{lib / 'library.db'}?mode=ro", uri=True)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = conn.execute("SELECT count(*) FROM papers").fetchone()[0]   # batches whole
    conn.close()
    assert 120 <= stored < 3120
    # Space again (issue 23 item 9): the next commands work and all is consistent.
    filler.unlink()
    r = run(lib, "tag", "add", "after", "1")
    assert r.returncode == 0, r.stderr
    r = run(lib, "check", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["ok"], r.stdout + r.stderr
    stats = json.loads(run(lib, "stats", "--json").stdout)
    assert (stats["papers"], stats["indexed"], stats["pending_index"]) == (stored, stored, 0)
    assert json.loads(run(lib, "search", "tag:after", "--json").stdout)["total"] == 1


def test_a_restore_on_a_full_disk_says_the_library_was_not_replaced(small_disk, seed_files,
                                                                   tmp_path):
    lib = small_disk / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    copy = tmp_path / "copy.db"
    assert run(lib, "backup", copy).returncode == 0
    size_kib = (lib / "library.db").stat().st_size // 1024
    filler = _fill(small_disk, leave_kib=size_kib * 3 // 2)   # room for one copy, not two
    r = run(lib, "restore", copy, "--force")
    assert r.returncode == 1
    line = one_line(r)
    assert f"the disk is full (writing {lib / 'library.db'}" in line, line
    assert line.endswith("the library was not replaced"), line
    filler.unlink()
    r = run(lib, "check", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["ok"], r.stdout + r.stderr
    assert [p.name for p in lib.iterdir() if p.name.startswith(".")] == []


def test_a_search_of_a_read_only_library_left_half_indexed_says_what_to_run(shared_tmp,
                                                                           seed_files):
    """Issue 23 item 8: nothing indexes a read-only library, yet ``search`` said "the
    rest are still being indexed"."""
    user = _reader()
    lib = shared_tmp / "lib"
    with Library.open(lib) as opened:
        opened.imports.run(seed_files[:1])
        opened.imports.run(seed_files[1:], sync=False)     # an import stopped here
    subprocess.run(["chmod", "-R", "a-w", str(lib)], check=True)
    r = run(lib, "search", "model", user=user)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "still being indexed" not in r.stderr
    assert ("paperdesk: note: searched 120 of 225 papers: 105 are not searchable yet: "
            "run paperdesk reindex once the library can be written") in r.stderr, r.stderr


@pytest.mark.parametrize("leave_kib", [0, 32, 100])
def test_edits_on_a_full_disk_recover_once_space_is_freed(small_disk, seed_files, leave_kib):
    """Issue 23 item 9: whatever an edit on a full disk got to (refused at the lock, in
    SQLite, or saved with the index write failing), the commands after space is freed
    work, ``check`` is ok and the index has every paper and every saved change."""
    lib = small_disk / "lib"
    assert run(lib, "import", seed_files[0]).returncode == 0
    filler = _fill(small_disk, leave_kib=leave_kib)
    saved = {}
    for args, query in ((("note", "3", "okapi on a full disk"), "note:okapi"),
                        (("tag", "add", "fullness", "4"), "tag:fullness")):
        r = run(lib, *args)
        assert "Traceback" not in r.stderr
        if r.returncode == 0:
            assert not r.stderr.strip() or "the disk is full (writing" in r.stderr, \
                r.stderr                           # saved; the index may have failed
        else:
            line = one_line(r)
            assert "the disk is full (" in line and "I/O error" not in line, line
        saved[query] = r.returncode == 0
    filler.unlink()
    r = run(lib, "check", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["ok"], r.stdout + r.stderr
    for query, kept in saved.items():
        found = json.loads(run(lib, "search", query, "--json").stdout)
        assert (found["total"], found["partial"]) == (int(kept), False), query
    stats = json.loads(run(lib, "stats", "--json").stdout)
    assert (stats["papers"], stats["indexed"], stats["pending_index"]) == (120, 120, 0)
    assert run(lib, "tag", "add", "after", "1").returncode == 0
    assert json.loads(run(lib, "search", "tag:after", "--json").stdout)["total"] == 1


@pytest.mark.parametrize("leave_kib", [0, 12])     # 12: the lock fits, SQLite's -shm not
def test_a_search_on_a_full_disk_with_papers_left_unindexed_says_to_free_space(
        small_disk, seed_files, leave_kib):
    lib = small_disk / "lib"
    with Library.open(lib) as opened:
        opened.imports.run(seed_files[:1])
        opened.imports.run(seed_files[1:], sync=False)     # an import stopped here
    filler = _fill(small_disk, leave_kib=leave_kib)
    for args in (("stats",), ("show", "1"), ("export", "--all", "--format", "ris")):
        r = run(lib, *args)                                 # reading works
        assert r.returncode == 0 and r.stdout, (args, r.stderr)
    r = run(lib, "search", "model")
    assert r.returncode == 0, r.stderr
    assert "still being indexed" not in r.stderr
    assert ("searched 120 of 225 papers: 105 are not searchable yet: the disk is full: "
            "free some space, then run paperdesk reindex") in r.stderr, r.stderr
    filler.unlink()
    r = run(lib, "search", "model", "--json")               # space again: it indexes
    assert r.returncode == 0 and json.loads(r.stdout)["partial"] is False, r.stderr
