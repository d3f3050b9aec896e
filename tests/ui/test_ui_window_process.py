"""A real window process and the command line (issue 23 item 9): commands that write
while the window holds the library are refused in one line naming its process and host
(files are handed to it), a library folder whose name is not UTF-8 opens in the window,
and a window killed in the middle of an edit leaves the edit whole or absent."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from paperdesk.core.store.lock import LOCK_NAME, read_lock  # noqa: E402
from ui_fixtures import subprocess_env, wait_for_window  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 90


def _paperdesk(library, *args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(library),
                           *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=120)


def _start_window(library: Path, env: dict) -> subprocess.Popen:
    """``paperdesk --library LIBRARY`` (the window), once it listens on its socket."""
    proc = subprocess.Popen([sys.executable, "-m", "paperdesk", "--library", str(library)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        wait_for_window(library, proc, WAIT_S)
    except AssertionError:
        proc.kill()
        raise
    return proc


def _close(proc: subprocess.Popen) -> str:
    """Close the window the normal way (SIGTERM) and return its standard error."""
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    return err


@pytest.fixture
def library(_seeded_template, tmp_path) -> Path:
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    return path


def test_commands_that_write_while_the_window_holds_the_library(library, tmp_path):
    env = subprocess_env(tmp_path)
    window = _start_window(library, env)
    try:
        backup = tmp_path / "copy.db"
        assert _paperdesk(library, "backup", backup, env=env).returncode == 0
        host = socket.gethostname()
        for args in (("tag", "add", "x", "1"), ("note", "1", "a note"), ("mark", "1", "--star"),
                     ("edit", "1", "--venue", "V"), ("delete", "2"), ("reindex",),
                     ("import", ROOT / "seeds"), ("saved-search", "add", "n", "q"),
                     ("restore", backup, "--force")):
            r = _paperdesk(library, *args, env=env)
            assert r.returncode == 1, (args, r.stdout)
            assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr
            assert f"process {window.pid} on {host}" in r.stderr, (args, r.stderr)
        for args in (("stats", "--json"), ("search", "model"), ("show", "1"),
                     ("export", "--all", "--format", "ris"), ("check",)):
            r = _paperdesk(library, *args, env=env)
            assert r.returncode == 0, (args, r.stderr)
        # Files given to `paperdesk FILE` are handed to the window, which imports them.
        new = tmp_path / "new.txt"
        new.write_text("Daily Papers\n\nWe teach capybaras to swim in cold lakes and "
                       "measure how fast they learn.\n\nWe count okapi in the forest "
                       "with cameras and report the numbers.\n", encoding="utf-8")
        r = _paperdesk(library, new, env=env)
        assert r.returncode == 0 and "its window imports the file" in r.stderr, r.stderr
        deadline = time.monotonic() + WAIT_S
        while json.loads(_paperdesk(library, "stats", "--json", env=env).stdout)[
                "papers"] != 227:
            assert time.monotonic() < deadline, "the window did not import the file"
            time.sleep(0.3)
        assert read_lock(library).pid == window.pid
    finally:
        err = _close(window)
    assert "Traceback" not in err
    assert not (library / LOCK_NAME).exists()
    stats = json.loads(_paperdesk(library, "stats", "--json", env=env).stdout)
    assert (stats["papers"], stats["notes"], stats["starred"]) == (227, 0, 0)
    assert _paperdesk(library, "check", env=env).returncode == 0


def test_a_library_folder_whose_name_is_not_utf8_opens_in_the_window(library, tmp_path):
    """The window ended in a traceback (its socket name hashed the name as UTF-8)."""
    env = subprocess_env(tmp_path)
    odd = Path(os.fsdecode(os.fsencode(tmp_path) + b"/lib\xff\xfe"))
    library.rename(odd)
    window = _start_window(odd, env)
    try:
        r = _paperdesk(odd, "tag", "add", "x", "1", env=env)
        assert r.returncode == 1 and f"process {window.pid}" in r.stderr
    finally:
        err = _close(window)
    assert "Traceback" not in err
    assert not (odd / LOCK_NAME).exists()


# The window run by paperdesk's own ``run`` in a child process that types an edit (a
# note: n, text, Ctrl+S; a new tag: t, name, Return, Return in the new-tag dialog) and
# SIGKILLs itself in the edit's transaction (``in-transaction``: its statements ran,
# COMMIT not yet) or just after its COMMIT (``after-commit``: before the index write).
_KILLED_EDIT = r"""
import contextlib, os, signal, sys, threading
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from paperdesk.core.edits.annotations import Tags
from paperdesk.core.edits.notes import Notes
from paperdesk.core.store import db as store_db
from paperdesk.ui.app.controller import run
from paperdesk.ui.app.startup import ensure_app

library, edit, point = sys.argv[1:4]
editing = set()                       # threads inside the edit's Library call
real_transaction = store_db.transaction


@contextlib.contextmanager
def transaction(db):
    outer = threading.get_ident() in editing and not db.conn.in_transaction
    with real_transaction(db) as inside:
        yield inside
        if outer and point == "in-transaction":
            os.kill(os.getpid(), signal.SIGKILL)
    if outer and point == "after-commit":
        os.kill(os.getpid(), signal.SIGKILL)


def watched(method):
    def call(self, *args, **kwargs):
        editing.add(threading.get_ident())
        return method(self, *args, **kwargs)
    return call


store_db.transaction = transaction
Notes.set = watched(Notes.set)
Tags.add = watched(Tags.add)
app = ensure_app()


def window():
    return next((w for w in QApplication.topLevelWidgets()
                 if type(w).__name__ == "MainWindow" and w.isVisible()), None)


def keys(*presses):
    for key in presses:
        target = QApplication.focusWidget() or window()
        if isinstance(key, str) and len(key) > 1:
            QTest.keyClicks(target, key)
        else:
            QTest.keyClick(target, *key) if isinstance(key, tuple) else \
                QTest.keyClick(target, key)


def start():
    w = window()
    if w is None or w.is_busy() or not w.model.ids():
        QTimer.singleShot(100, start)
        return
    w.activateWindow()
    w.focus_list()
    if edit == "note":
        keys("n", "killed in the middle of a note", (Qt.Key.Key_S,
                                                    Qt.KeyboardModifier.ControlModifier))
    else:
        keys("t", "killed tag", Qt.Key.Key_Return)
        accept_new_tag()


def accept_new_tag():
    dialog = getattr(window().tag_commands, "new_tag_dialog", None)
    if dialog is None or not dialog.isVisible() or QApplication.activeWindow() is not dialog:
        QTimer.singleShot(50, accept_new_tag)
        return
    keys(Qt.Key.Key_Return)                  # the new-tag dialog: no number key


QTimer.singleShot(0, start)
QTimer.singleShot(60000, lambda: os._exit(3))      # the edit never reached SQLite
sys.exit(run(library))
"""


@pytest.mark.parametrize("edit", ["note", "tag"])
@pytest.mark.parametrize("point", ["in-transaction", "after-commit"])
def test_a_window_killed_during_an_edit_leaves_it_whole_or_absent(library, tmp_path,
                                                                  edit, point):
    env = subprocess_env(tmp_path)
    script = tmp_path / "killed_edit.py"
    script.write_text(_KILLED_EDIT, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script), str(library), edit, point], env=env,
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.stderr)
    assert (library / LOCK_NAME).exists()                    # left by the killed window
    check = _paperdesk(library, "check", env=env)            # takes the stale lock over
    assert check.returncode == 0, check.stdout + check.stderr
    import sqlite3
    conn = sqlite3.connect(f"file:{library / 'library.db'}?mode=ro", uri=True)
    try:
        notes = conn.execute("SELECT body FROM notes").fetchall()
        tags = conn.execute("SELECT name FROM tags").fetchall()
        tagged = conn.execute("SELECT count(*) FROM paper_tags").fetchone()[0]
    finally:
        conn.close()
    committed = point == "after-commit"
    if edit == "note":
        assert notes == ([("killed in the middle of a note",)] if committed else [])
        query = 'note:"middle of a note"'
    else:
        assert (tags, tagged) == (([("killed tag",)], 1) if committed else ([], 0))
        query = 'tag:"killed tag"'
    found = json.loads(_paperdesk(library, "search", query, "--json", env=env).stdout)
    assert (found["total"], found["partial"]) == (int(committed), False)
    stats = json.loads(_paperdesk(library, "stats", "--json", env=env).stdout)
    assert (stats["papers"], stats["indexed"], stats["pending_index"]) == (225, 225, 0)
