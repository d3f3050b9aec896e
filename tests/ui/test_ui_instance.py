"""One library, one writer: the window's lock, bringing it forward, switching libraries,
and ``paperdesk --screenshot``."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402

from paperdesk.core.store.lock import LOCK_NAME, LibraryLock, read_lock  # noqa: E402
from paperdesk.ui.app.controller import AppController  # noqa: E402
from paperdesk.ui.app.instance import InstanceServer, ask_to_activate, server_name  # noqa: E402
from paperdesk.ui.app.settings import Settings  # noqa: E402
from ui_fixtures import subprocess_env, wait_for_window  # noqa: E402


def _paperdesk(*args) -> list[str]:
    return [sys.executable, "-m", "paperdesk", *map(str, args)]


def test_server_names_differ_per_folder_and_ignore_spelling(tmp_path):
    (tmp_path / "a").mkdir()
    assert server_name(tmp_path / "a") == server_name(tmp_path / "a" / ".." / "a")
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")
    assert server_name(tmp_path / "a").startswith("paperdesk-")


def test_a_later_launch_asks_the_window_to_come_forward(qtbot, tmp_path):
    server = InstanceServer()
    name = server_name(tmp_path)
    assert server.listen(name) and server.name() == name
    code = ("import sys; from paperdesk.ui.app.instance import ask_to_activate; "
            f"sys.exit(0 if ask_to_activate({name!r}) else 3)")
    with qtbot.waitSignal(server.activateRequested, timeout=20000):
        # the asking side blocks, as a second launch does: another process
        asker = subprocess.Popen([sys.executable, "-c", code], env=subprocess_env(tmp_path))
    qtbot.waitUntil(lambda: asker.poll() is not None, timeout=20000)
    assert asker.returncode == 0
    server.close()
    assert ask_to_activate(name, timeout_ms=300) is False    # nobody listens now


def test_second_launch_brings_the_window_forward_and_commands_refuse_to_write(tmp_path):
    library = tmp_path / "lib"
    env = subprocess_env(tmp_path)
    first = subprocess.Popen(_paperdesk("--library", library), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_window(library, first)
        assert read_lock(library).pid == first.pid
        second = subprocess.run(_paperdesk("--library", library), env=env,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr
        assert "already open; its window was brought forward" in second.stderr
        assert "Traceback" not in second.stderr
        # a screenshot needs the library for itself: refused, one line, status 1
        shot = subprocess.run(_paperdesk("--library", library, "--screenshot",
                                         tmp_path / "x.png"), env=env, capture_output=True,
                              text=True, timeout=60)
        assert shot.returncode == 1 and "is open in the paperdesk window" in shot.stderr
        assert not (tmp_path / "x.png").exists()
        # the command line may read, but not write, while the window has the library
        write = subprocess.run(_paperdesk("--library", library, "tag", "add", "x", "1"),
                               env=env, capture_output=True, text=True, timeout=60)
        assert write.returncode == 1
        assert write.stderr.count("\n") == 1 and "close it first" in write.stderr
        read = subprocess.run(_paperdesk("--library", library, "stats"), env=env,
                              capture_output=True, text=True, timeout=60)
        assert read.returncode == 0 and "papers:" in read.stdout
        assert first.poll() is None          # the first window is still running
    finally:
        first.send_signal(signal.SIGKILL)    # a crash: the lock stays behind
        first.wait(30)
    assert read_lock(library).pid == first.pid
    # the next launch takes the stale lock over
    shot = subprocess.run(_paperdesk("--library", library, "--screenshot",
                                     tmp_path / "after-crash.png", "--size", "900x600"),
                          env=env, capture_output=True, text=True, timeout=120)
    assert shot.returncode == 0, shot.stderr
    image = QImage(str(tmp_path / "after-crash.png"))
    assert (image.width(), image.height()) == (900, 600)
    assert not (library / LOCK_NAME).exists()


def test_screenshot_writes_a_png_of_the_size_asked_for(tmp_path):
    env = subprocess_env(tmp_path)
    # a folder that does not exist is said, not made; a folder is not a file name
    for target, said in ((tmp_path / "docs" / "shot.png", "does not exist"),
                         (tmp_path, "it is a folder")):
        bad = subprocess.run(_paperdesk("--library", tmp_path / "lib", "--screenshot",
                                        target), env=env, capture_output=True, text=True,
                             timeout=120)
        assert bad.returncode == 1 and said in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert not (tmp_path / "docs").exists()
    (tmp_path / "docs").mkdir()
    out = subprocess.run(_paperdesk("--library", tmp_path / "lib", "--screenshot",
                                    tmp_path / "docs" / "shot.png", "--size", "1280x800",
                                    "--appearance", "dark"),
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    image = QImage(str(tmp_path / "docs" / "shot.png"))
    assert (image.width(), image.height()) == (1280, 800)
    assert QImage(str(tmp_path / "docs" / "shot.png")).pixelColor(640, 400).lightnessF() < 0.5
    assert not (tmp_path / "config").exists()       # the user's settings are untouched
    bad = subprocess.run(_paperdesk("--screenshot", tmp_path / "y.png", "--size", "big"),
                         env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a size" in bad.stderr
    bad = subprocess.run(_paperdesk("--screenshot", tmp_path / "y.png", "stats"),
                         env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "without a COMMAND" in bad.stderr


@pytest.fixture
def controller(qtbot, tmp_path, _seeded_template):
    settings = Settings(QSettings(str(tmp_path / "prefs.ini"), QSettings.Format.IniFormat))
    settings.auto_mark_read = False
    ctl = AppController(settings)
    yield ctl
    if ctl.window is not None:
        ctl.window.close()
    ctl.shutdown()


def test_open_library_switches_window_lock_and_socket(qtbot, tmp_path, controller,
                                                      _seeded_template):
    one, two = tmp_path / "one", tmp_path / "two"
    shutil.copytree(_seeded_template, one)
    window = controller.start(one, import_seeds=False)
    window.show()
    assert read_lock(one).pid == os.getpid() and controller.settings.last_library == one
    assert controller.open_library(two, new=True)
    new = controller.window
    assert new is not window and new.lib.path == two and new.model.rowCount() == 0
    assert not (one / LOCK_NAME).exists() and read_lock(two).pid == os.getpid()
    assert controller.server.name() == server_name(two)
    assert controller.settings.last_library == two
    assert new.library_opener == controller.open_library
    assert controller.open_library(two)              # already open: nothing happens
    assert controller.window is new
    assert controller.open_library(one)              # and back
    # (the list's ids are read on the window's reader thread)
    qtbot.waitUntil(lambda: controller.window.model.rowCount() == 225, timeout=20000)


def test_open_library_refuses_what_it_should(qtbot, tmp_path, controller, capsys):
    window = controller.start(tmp_path / "lib", import_seeds=False)
    window.show()
    stranger = tmp_path / "photos"
    stranger.mkdir()
    (stranger / "cat.jpg").write_bytes(b"x")
    assert not controller.open_library(stranger)
    assert "is not a paperdesk library" in capsys.readouterr().err
    assert not controller.open_library(stranger, new=True)
    assert "is not empty" in capsys.readouterr().err
    busy = tmp_path / "busy"
    with LibraryLock(busy, app="cli"):
        assert not controller.open_library(busy)
    assert "in use by a paperdesk command" in capsys.readouterr().err
    assert controller.window is window and controller.library_path == tmp_path / "lib"


def test_new_library_in_a_non_empty_folder_gets_a_subfolder(qtbot, tmp_path, controller,
                                                            monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    window = controller.start(tmp_path / "lib", import_seeds=False)
    window.show()
    parent = tmp_path / "papers"
    (parent / "paperdesk library").mkdir(parents=True)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(parent))
    assert window.choose_new_library()
    assert controller.window.lib.path == parent / "paperdesk library 2"


def test_a_read_only_library_folder_is_refused_by_the_window_saying_what_works(tmp_path):
    """A new user's try: the window refused a read-only folder with "it can be searched
    and exported", which only the paperdesk command does. The line now says so."""
    env = subprocess_env(tmp_path)
    library = tmp_path / "lib"
    made = subprocess.run(_paperdesk("--library", library, "import", "-"), env=env,
                          input="Looms\n\nWe propose a loom that weaves algebra and show "
                                "that it is faster than weaving by hand.\n",
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    # the lock file cannot be made, as in a folder the user cannot write (the tests may
    # run as root, who can write anywhere)
    code = ("import errno, sys\n"
            "from paperdesk.core.store import lock\n"
            "def refuse(path, data):\n"
            "    raise PermissionError(errno.EACCES, 'Permission denied', str(path))\n"
            "lock._write_new = refuse\n"
            "sys.argv = ['paperdesk', *sys.argv[1:]]\n"
            "from paperdesk.launch import main\n"
            "sys.exit(main())\n")
    shot = subprocess.run([sys.executable, "-c", code, "--library", str(library),
                           "--screenshot", str(tmp_path / "x.png")],
                          env=env, capture_output=True, text=True, timeout=120)
    assert shot.returncode == 1 and not (tmp_path / "x.png").exists()
    assert shot.stderr.strip() == (
        f"paperdesk: the library folder {library} is read-only (Permission denied): the "
        "window needs to write to it; the paperdesk command searches, shows and exports "
        f"it there (paperdesk --library {library} search QUERY)"), shot.stderr


def test_a_database_file_that_cannot_be_written_is_refused_before_the_window_opens(
        tmp_path):
    """A new user's try: with ``library.db`` unwritable in a writable folder the window
    opened, and a note typed there was not saved (only the status bar said so). Now the
    window refuses it at start, in the read-only folder's words. ``chattr +i`` stops
    root too (the tests may run as root, who can write any file's mode)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("chattr") is None:
        pytest.skip("chattr +i needs root and chattr")
    env = subprocess_env(tmp_path)
    library = tmp_path / "lib"
    made = subprocess.run(_paperdesk("--library", library, "import", "-"), env=env,
                          input="Looms\n\nWe propose a loom that weaves algebra.\n",
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    db = library / "library.db"
    if subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode != 0:
        pytest.skip("this file system takes no immutable files")
    try:
        shot = subprocess.run(_paperdesk("--library", library, "--screenshot",
                                         tmp_path / "x.png"),
                              env=env, capture_output=True, text=True, timeout=120)
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=False)
    assert shot.returncode == 1 and not (tmp_path / "x.png").exists()
    assert shot.stderr.strip() == (
        f"paperdesk: the library file {db} is read-only (Operation not permitted): the "
        "window needs to write to it; the paperdesk command searches, shows and exports "
        f"it there (paperdesk --library {library} search QUERY)"), shot.stderr


def test_open_library_on_a_read_only_folder_says_what_works(qtbot, tmp_path, controller,
                                                            capsys, monkeypatch):
    """File ▸ Open Library on a read-only folder said the command line's "it can be
    searched and exported", as if the window could (a new user's try)."""
    import errno

    from paperdesk.core.store import lock as lock_module

    window = controller.start(tmp_path / "lib", import_seeds=False)
    window.show()
    other = tmp_path / "other lib"
    controller.open_library(other, new=True)
    controller.open_library(tmp_path / "lib")
    capsys.readouterr()

    def refuse(path, data):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(lock_module, "_write_new", refuse)
    assert not controller.open_library(other)
    err = capsys.readouterr().err
    assert "the window needs to write to it" in err and "it can be searched" not in err
    assert f"paperdesk --library '{other}' search QUERY" in err, err
