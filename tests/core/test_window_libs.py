"""`paperdesk` (the window) on X11 without the system libraries of Qt's xcb plugin: one line
naming them and the apt command, exit 1, before Qt is imported (Qt itself would abort).

No display is needed: the loader is replaced by one that "misses" chosen libraries, and
the window's ``run`` by a stand-in that records whether it was reached."""

from __future__ import annotations

import sys
import types

import pytest

from paperdesk import cli
from paperdesk.core import window_libs

X11 = {"DISPLAY": ":0"}
CURSOR_LINE = ("paperdesk: the window needs system libraries that are missing: "
               "libxcb-cursor.so.0 (install: sudo apt install libxcb-cursor0)")


def missing(*names):
    """A loader for which ``names`` are missing; it records every soname asked for."""
    asked = []

    def load(soname):
        asked.append(soname)
        return soname not in names

    load.asked = asked
    return load


@pytest.fixture
def window(monkeypatch):
    """Replace the Qt window module by a stand-in: ``calls`` lists each ``run`` call.
    The parents are replaced too, since ``paperdesk.ui`` imports Qt."""
    calls = []
    fake = types.ModuleType("paperdesk.ui.app.controller")
    fake.run = lambda *args, **kwargs: calls.append((args, kwargs)) or 0
    for name in ("paperdesk.ui", "paperdesk.ui.app"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "paperdesk.ui.app.controller", fake)
    return calls


def _environment(monkeypatch, **env):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(window_libs.sys, "platform", "linux")
    monkeypatch.setattr(window_libs.shutil, "which",
                        lambda name: "/usr/bin/apt-get" if name == "apt-get" else None)


def test_window_without_libxcb_cursor_is_one_line_and_exit_1(monkeypatch, capsys, window,
                                                             tmp_path):
    _environment(monkeypatch, DISPLAY=":0")
    monkeypatch.setattr(window_libs, "load_library", missing("libxcb-cursor.so.0"))
    status = cli.main(["--library", str(tmp_path / "lib")])
    out, err = capsys.readouterr()
    assert status == 1
    assert err == CURSOR_LINE + "\n"
    assert out == ""
    assert window == []                        # the window (Qt) was never reached
    assert not (tmp_path / "lib").exists()     # nor the library touched


def test_opening_files_checks_the_libraries_too(monkeypatch, capsys, window, tmp_path):
    paper = tmp_path / "papers.bib"
    paper.write_text("@article{a, title={T}}\n", encoding="utf-8")
    _environment(monkeypatch, QT_QPA_PLATFORM="xcb", DISPLAY=":0")
    monkeypatch.setattr(window_libs, "load_library",
                        missing("libxcb-icccm.so.4", "libxcb-keysyms.so.1"))
    assert cli.main([str(paper)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err == ("paperdesk: the window needs system libraries that are missing: "
                   "libxcb-icccm.so.4, libxcb-keysyms.so.1 "
                   "(install: sudo apt install libxcb-icccm4 libxcb-keysyms1)\n")
    assert window == []


def test_window_opens_when_every_library_loads(monkeypatch, capsys, window, tmp_path):
    _environment(monkeypatch, DISPLAY=":0")
    load = missing()
    monkeypatch.setattr(window_libs, "load_library", load)
    assert cli.main(["--library", str(tmp_path / "lib")]) == 0
    assert len(window) == 1
    assert load.asked == list(window_libs.XCB_LIBRARIES)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("env", [
    {"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"},
    {"QT_QPA_PLATFORM": "wayland", "DISPLAY": ":0"},
    {"QT_QPA_PLATFORM": "minimal"},
    {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"},
    {"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"},
    {},                                        # no display: run() says so itself
])
def test_other_platforms_are_not_checked(monkeypatch, capsys, window, tmp_path, env):
    _environment(monkeypatch, **env)
    load = missing(*window_libs.XCB_LIBRARIES)   # everything "missing"
    monkeypatch.setattr(window_libs, "load_library", load)
    assert cli.main(["--library", str(tmp_path / "lib")]) == 0
    assert load.asked == []
    assert len(window) == 1
    assert capsys.readouterr().err == ""


def test_screenshot_is_not_checked(monkeypatch, window, tmp_path):
    """--screenshot renders offscreen, so the xcb libraries do not matter."""
    _environment(monkeypatch, DISPLAY=":0")
    load = missing("libxcb-cursor.so.0")
    monkeypatch.setattr(window_libs, "load_library", load)
    assert cli.main(["--screenshot", str(tmp_path / "shot.png")]) == 0
    assert load.asked == [] and len(window) == 1


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_other_systems_are_not_checked(platform):
    load = missing(*window_libs.XCB_LIBRARIES)
    assert window_libs.window_library_problem(X11, platform, load) is None
    assert load.asked == []


@pytest.mark.parametrize("value, expected", [
    ("xcb", True), ("XCB", True), ("xcb:dpi=96", True), ("xcb;wayland", True),
    ("wayland;xcb", False), ("offscreen", False), ("eglfs", False), ("vnc", False),
])
def test_qt_qpa_platform_names_xcb(value, expected):
    assert window_libs.uses_xcb({"QT_QPA_PLATFORM": value}, "linux") is expected


def test_without_apt_the_message_names_the_packages():
    line = window_libs.window_library_problem(X11, "linux", missing("libxcb-cursor.so.0"),
                                              has_apt=False)
    assert line == ("paperdesk: the window needs system libraries that are missing: "
                    "libxcb-cursor.so.0 (install the packages that provide them; "
                    "Debian/Ubuntu names: libxcb-cursor0)")


def test_real_loader_finds_libc_and_not_a_made_up_library():
    if not sys.platform.startswith("linux"):
        pytest.skip("sonames are Linux's")
    assert window_libs.load_library("libc.so.6")
    assert not window_libs.load_library("libpaperdesk-no-such-library.so.0")


def test_readme_shows_the_message_and_the_usual_packages():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for package in ("libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"):
        assert package in readme
    assert "the window needs system libraries that are missing" in readme


# -- make run installs them when it may (issue 32 item 5) ----------------------------------
ICCCM_KEYSYMS = missing("libxcb-icccm.so.4", "libxcb-keysyms.so.1")


def _which(*programs):
    return lambda name: f"/usr/bin/{name}" if name in programs else None


def test_the_install_command_names_each_package_once():
    names = ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-shm.so.0", "libxcb.so.1"]
    assert window_libs.install_command(names, "apt-get", root=True) == [
        "apt-get", "install", "-y", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-shm0",
        "libxcb1"]
    assert window_libs.install_command(names, "dnf", root=False) == [
        "sudo", "dnf", "install", "-y", "xcb-util-wm", "xcb-util-keysyms", "libxcb"]
    for manager, (packages, _command) in window_libs.MANAGERS.items():
        assert set(packages) == set(window_libs.XCB_LIBRARIES), manager


def test_without_root_or_sudo_make_run_prints_the_command_and_stops(capsys):
    ran = []
    status = window_libs.install_missing(X11, "linux", ICCCM_KEYSYMS, _which("apt-get"),
                                         root=False, sudo=lambda: False, run=ran.append)
    assert status == 1 and ran == []
    assert capsys.readouterr().err == (
        "paperdesk: the window needs system libraries that are missing: libxcb-icccm.so.4, "
        "libxcb-keysyms.so.1; install them with: sudo apt-get install -y libxcb-icccm4 "
        "libxcb-keysyms1\n")


def _installer(fail_first: bool = False):
    """A stand-in for running a command: records it; ``install`` makes the libraries
    loadable (after an ``update`` when ``fail_first``: a machine without package lists)."""
    state = {"installed": False, "updated": not fail_first, "ran": []}

    def run(command):
        state["ran"].append(command)
        if "update" in command:
            state["updated"] = True
            return 0
        state["installed"] = state["updated"]
        return 0 if state["installed"] else 100

    def load(soname):
        return state["installed"] or ICCCM_KEYSYMS(soname)

    return state, run, load


@pytest.mark.parametrize("root", [True, False])
def test_as_root_or_with_sudo_make_run_installs_them(capsys, root):
    state, run, load = _installer()
    status = window_libs.install_missing(X11, "linux", load, _which("apt-get"), root=root,
                                         sudo=lambda: True, run=run)
    command = ([] if root else ["sudo"]) + ["apt-get", "install", "-y", "libxcb-icccm4",
                                            "libxcb-keysyms1"]
    assert status == 0 and state["ran"] == [command]
    assert capsys.readouterr().err.startswith(
        "paperdesk: installing the window's missing system libraries (libxcb-icccm.so.4, "
        f"libxcb-keysyms.so.1): {' '.join(command)}")


def test_a_machine_without_package_lists_updates_them_first():
    state, run, load = _installer(fail_first=True)
    assert window_libs.install_missing(X11, "linux", load, _which("apt-get"), root=True,
                                       run=run) == 0
    install = ["apt-get", "install", "-y", "libxcb-icccm4", "libxcb-keysyms1"]
    assert state["ran"] == [install, ["apt-get", "update"], install]


def test_a_failed_install_says_so_and_stops(capsys):
    status = window_libs.install_missing(X11, "linux", ICCCM_KEYSYMS, _which("dnf"),
                                         root=True, run=lambda command: 1)
    assert status == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        "paperdesk: dnf install -y xcb-util-wm xcb-util-keysyms did not install them "
        "(exit 1); still missing: libxcb-icccm.so.4, libxcb-keysyms.so.1")


def test_without_apt_or_dnf_the_packages_of_both_are_named(capsys):
    assert window_libs.install_missing(X11, "linux", ICCCM_KEYSYMS, _which(), root=True,
                                       run=pytest.fail) == 1
    assert capsys.readouterr().err == (
        "paperdesk: the window needs system libraries that are missing: libxcb-icccm.so.4, "
        "libxcb-keysyms.so.1 (install them with your package manager; Debian/Ubuntu "
        "packages: libxcb-icccm4 libxcb-keysyms1; Fedora: xcb-util-wm xcb-util-keysyms)\n")


def test_offscreen_needs_nothing_and_installs_nothing():
    assert window_libs.install_missing({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"},
                                       "linux", missing(*window_libs.XCB_LIBRARIES),
                                       _which("apt-get"), root=True, run=pytest.fail) == 0


def test_make_run_checks_first_and_make_test_runs_offscreen():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "Makefile").read_text(encoding="utf-8")
    run = text.split("\nrun: ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert run[1].strip() == "@$(BIN)/python -m paperdesk.core.window_libs --install"
    assert run[2].strip() == "$(BIN)/paperdesk"
    test = text.split("\ntest: ", 1)[1].split("\n\n", 1)[0]
    lines = test.split("\n")[1:]
    # the sources compiled to bytecode, then the core's suite, then the window's
    assert lines[0].strip() == "$(BIN)/python -m compileall -q -j 0 src/paperdesk"
    assert "QT_QPA_PLATFORM=offscreen" in test and "-p no:pytest-qt" in test \
        and lines[1].endswith("tests/core") and lines[2].endswith("tests/ui")


def test_readme_lists_the_packages_of_debian_ubuntu_and_fedora():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line.split("`")[1].split()
            for line in readme.splitlines() if line.startswith(("| Debian", "| Fedora"))}
    every = list(window_libs.XCB_LIBRARIES)
    assert rows == {"Debian, Ubuntu": window_libs.package_names(every, "apt-get"),
                    "Fedora": window_libs.package_names(every, "dnf")}
