"""One writer per library: the lock file, stale-lock recovery (core, no Qt)."""

import json
import os
import socket
import subprocess
import sys
import time

import pytest

from paperdesk.core.store.lock import LOCK_NAME, LibraryLock, LockHeld, pid_alive, read_lock


def _dead_pid() -> int:
    """The id of a process that has exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_acquire_writes_pid_and_host_and_release_removes_it(tmp_path):
    lock = LibraryLock(tmp_path / "lib", app="gui").acquire()
    info = read_lock(tmp_path / "lib")
    assert (info.pid, info.host, info.app) == (os.getpid(), socket.gethostname(), "gui")
    assert lock.held
    lock.release()
    assert not (tmp_path / "lib" / LOCK_NAME).exists()
    lock.release()   # twice is fine


def test_second_lock_on_the_same_library_is_refused(tmp_path):
    with LibraryLock(tmp_path, app="gui"):
        with pytest.raises(LockHeld) as caught:
            LibraryLock(tmp_path, app="cli").acquire()
        assert caught.value.info.pid == os.getpid()
        assert caught.value.by_window
        assert "is open in the paperdesk window" in str(caught.value)
    LibraryLock(tmp_path).acquire().release()   # free again


def test_lock_held_by_a_live_process_is_refused(tmp_path):
    code = ("import sys, time; from paperdesk.core.store.lock import LibraryLock; "
            f"LibraryLock(r'{tmp_path}', app='cli').acquire(); print('locked', flush=True); "
            "time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        assert proc.stdout.readline().strip() == "locked"
        with pytest.raises(LockHeld) as caught:
            LibraryLock(tmp_path).acquire()
        assert caught.value.info.pid == proc.pid
        assert "in use by a paperdesk command" in str(caught.value)
        assert not caught.value.by_window
    finally:
        proc.kill()
        proc.wait()
    # The holder died without releasing: the lock is stale and is taken over.
    lock = LibraryLock(tmp_path).acquire()
    assert read_lock(tmp_path).pid == os.getpid()
    lock.release()


def test_stale_lock_of_a_dead_process_is_recovered(tmp_path):
    stale = {"pid": _dead_pid(), "host": socket.gethostname(), "app": "gui", "token": "x"}
    (tmp_path / LOCK_NAME).write_text(json.dumps(stale))
    with LibraryLock(tmp_path) as lock:
        assert read_lock(tmp_path).token == lock._info.token != "x"
    assert not (tmp_path / LOCK_NAME).exists()
    assert [p.name for p in tmp_path.iterdir()] == []   # no leftovers


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc (Linux)")
def test_reused_pid_counts_as_stale(tmp_path):
    # Our own parent is alive, but it did not start at the recorded time.
    info = {"pid": os.getppid(), "host": socket.gethostname(), "app": "gui", "token": "x",
            "proc_start": "1"}
    (tmp_path / LOCK_NAME).write_text(json.dumps(info))
    LibraryLock(tmp_path).acquire().release()


def test_garbage_lock_file_is_stale_only_when_old(tmp_path):
    path = tmp_path / LOCK_NAME
    path.write_bytes(b"\x00\xffnot json")
    with pytest.raises(LockHeld, match="being opened by another paperdesk"):
        LibraryLock(tmp_path).acquire()     # maybe half-written just now
    old = time.time() - 60
    os.utime(path, (old, old))
    LibraryLock(tmp_path).acquire().release()


def test_lock_from_another_host_is_not_broken(tmp_path):
    info = {"pid": 1, "host": "some-other-machine.invalid", "app": "gui", "token": "x"}
    (tmp_path / LOCK_NAME).write_text(json.dumps(info))
    with pytest.raises(LockHeld) as caught:
        LibraryLock(tmp_path).acquire()
    assert "some-other-machine.invalid" in str(caught.value)
    assert "delete" in str(caught.value)
    assert not caught.value.by_window


def test_release_leaves_a_lock_that_is_not_ours(tmp_path):
    lock = LibraryLock(tmp_path).acquire()
    other = {"pid": 1, "host": "elsewhere", "app": "gui", "token": "theirs"}
    (tmp_path / LOCK_NAME).write_text(json.dumps(other))
    lock.release()
    assert read_lock(tmp_path).token == "theirs"


def test_pid_alive():
    assert pid_alive(os.getpid())
    assert not pid_alive(_dead_pid())
    assert not pid_alive(0)
