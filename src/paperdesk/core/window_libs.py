"""Before the window opens on X11: are the system libraries of Qt's xcb plugin there?

Qt's xcb platform plugin (``plugins/platforms/libqxcb.so`` with ``libQt6XcbQpa.so.6``)
and ``libQt6Gui.so.6`` link against system libraries that PySide6's wheels do not ship.
When one is missing (typically ``libxcb-cursor.so.0``, needed since Qt 6.5), Qt prints
"Could not load the Qt platform plugin "xcb"" and the process ends in SIGABRT
("Aborted"). :func:`window_library_problem` tries to load each of them first, so the
command line can say in one line which packages to install and exit 1, before any Qt
module is imported.

The list of libraries (:data:`XCB_LIBRARIES`) is the ``NEEDED`` entries of PySide6
6.11's ``libqxcb.so``, ``libQt6XcbQpa.so.6`` and ``libQt6Gui.so.6`` (``readelf -d``),
less the C/C++ runtime, zlib and GLib that every Linux desktop has; it matches Qt's
"Qt for X11 Requirements" page (https://doc.qt.io/qt-6/linux-requirements.html). The
package names are Debian's and Ubuntu's (:data:`XCB_LIBRARIES`) and Fedora's
(:data:`FEDORA_PACKAGES`, from its package database: ``dnf provides``).

``make run`` calls ``python -m paperdesk.core.window_libs --install`` (:func:`main`)
before it opens the window: with libraries missing it installs their packages when it
may (as root, or through ``sudo`` without a password, with apt-get or dnf, as ``make
clients`` does), and otherwise prints the one command to run and exits 1. Qt-free.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from collections.abc import Callable, Mapping

__all__ = ["XCB_LIBRARIES", "FEDORA_PACKAGES", "MANAGERS", "uses_xcb",
           "missing_window_libraries", "window_library_problem", "load_library",
           "package_names", "install_command", "install_missing", "main"]

#: soname -> the Debian/Ubuntu package that provides it.
XCB_LIBRARIES: dict[str, str] = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
}

#: soname -> the Fedora package that provides it.
FEDORA_PACKAGES: dict[str, str] = {
    "libxcb-cursor.so.0": "xcb-util-cursor",
    "libxcb-icccm.so.4": "xcb-util-wm",
    "libxcb-keysyms.so.1": "xcb-util-keysyms",
    "libxcb-image.so.0": "xcb-util-image",
    "libxcb-util.so.1": "xcb-util",
    "libxcb-randr.so.0": "libxcb",
    "libxcb-render-util.so.0": "xcb-util-renderutil",
    "libxcb-render.so.0": "libxcb",
    "libxcb-shape.so.0": "libxcb",
    "libxcb-shm.so.0": "libxcb",
    "libxcb-sync.so.1": "libxcb",
    "libxcb-xfixes.so.0": "libxcb",
    "libxcb-xkb.so.1": "libxcb",
    "libxcb.so.1": "libxcb",
    "libX11-xcb.so.1": "libX11-xcb",
    "libX11.so.6": "libX11",
    "libxkbcommon.so.0": "libxkbcommon",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11",
    "libGL.so.1": "libglvnd-glx",
    "libEGL.so.1": "libglvnd-egl",
    "libfontconfig.so.1": "fontconfig",
    "libfreetype.so.6": "freetype",
}

#: Package manager -> (soname -> package, the install command before the packages).
MANAGERS: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "apt-get": (XCB_LIBRARIES, ("apt-get", "install", "-y")),
    "dnf": (FEDORA_PACKAGES, ("dnf", "install", "-y")),
}

_UNIX = ("linux", "freebsd", "openbsd", "netbsd")


def load_library(soname: str) -> bool:
    """Return True if the dynamic loader can load ``soname`` (e.g. ``"libxcb.so.1"``)
    the way Qt will: by name, through the loader's search path (``LD_LIBRARY_PATH``,
    the ld.so cache); in a PyInstaller bundle also from the bundle's folder."""
    try:
        ctypes.CDLL(soname)
        return True
    except OSError:
        bundle = getattr(sys, "_MEIPASS", None)
        return bool(bundle) and os.path.exists(os.path.join(bundle, soname))


def uses_xcb(env: Mapping[str, str] | None = None, platform: str | None = None) -> bool:
    """Return True when the window would open with Qt's xcb (X11) plugin.

    Args:
        env: the environment (default ``os.environ``).
        platform: ``sys.platform`` (default: this one).
    Returns:
        True on Linux/BSD when ``QT_QPA_PLATFORM`` names ``xcb`` first (``"xcb"``,
        ``"xcb:arg"``, ``"xcb;wayland"``), or is unset/empty with ``DISPLAY`` set and no
        Wayland session (``WAYLAND_DISPLAY`` unset, ``XDG_SESSION_TYPE`` not
        ``wayland``: there Qt 6 picks its wayland plugin). False for ``offscreen``,
        ``wayland``, ``minimal`` and every other platform, and on other systems.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    if not platform.startswith(_UNIX):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return chosen.split(";")[0].split(":")[0].strip().lower() == "xcb"
    return bool(env.get("DISPLAY")) and not (
        env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE", "").lower() == "wayland")


def missing_window_libraries(env: Mapping[str, str] | None = None,
                             platform: str | None = None,
                             load: Callable[[str], bool] | None = None) -> list[str]:
    """Return the sonames of :data:`XCB_LIBRARIES` that cannot be loaded, in that
    order; ``[]`` when the window does not use xcb (:func:`uses_xcb`: nothing is
    loaded then) or all are there.

    Args:
        env, platform: as for :func:`uses_xcb`.
        load: soname -> loadable? (default :func:`load_library`).
    """
    if not uses_xcb(env, platform):
        return []
    load = load or load_library
    return [name for name in XCB_LIBRARIES if not load(name)]


def window_library_problem(env: Mapping[str, str] | None = None,
                           platform: str | None = None,
                           load: Callable[[str], bool] | None = None,
                           has_apt: bool | None = None) -> str | None:
    """Return the one-line message for missing xcb libraries, or None if none is missing.

    Args:
        env, platform, load: as for :func:`missing_window_libraries`.
        has_apt: whether ``apt`` installs packages here (default: ``apt-get`` is on
            ``PATH``); then the message ends with the ``sudo apt install`` command,
            otherwise it names the Debian packages for the user's own package manager.
    Returns:
        e.g. ``"paperdesk: the window needs system libraries that are missing:
        libxcb-cursor.so.0 (install: sudo apt install libxcb-cursor0)"``, or None.
    """
    missing = missing_window_libraries(env, platform, load)
    if not missing:
        return None
    if has_apt is None:
        has_apt = shutil.which("apt-get") is not None
    packages = " ".join(dict.fromkeys(XCB_LIBRARIES[name] for name in missing))
    hint = (f"install: sudo apt install {packages}" if has_apt
            else f"install the packages that provide them; Debian/Ubuntu names: {packages}")
    return ("paperdesk: the window needs system libraries that are missing: "
            f"{', '.join(missing)} ({hint})")


def package_names(missing: list[str], manager: str) -> list[str]:
    """The packages that provide the missing libraries.

    Args:
        missing: sonames of :data:`XCB_LIBRARIES`.
        manager: a key of :data:`MANAGERS` (``"apt-get"``: Debian/Ubuntu; ``"dnf"``:
            Fedora).
    Returns:
        Package names, each once, in the order of the libraries.
    Raises:
        KeyError: an unknown manager or soname.
    """
    packages = MANAGERS[manager][0]
    return list(dict.fromkeys(packages[name] for name in missing))


def install_command(missing: list[str], manager: str, root: bool) -> list[str]:
    """The one command that installs the packages of the missing libraries.

    Args:
        missing: sonames of :data:`XCB_LIBRARIES` (from :func:`missing_window_libraries`).
        manager: a key of :data:`MANAGERS` (``"apt-get"`` or ``"dnf"``).
        root: True to run it as is (the caller is root); False puts ``sudo`` first.
    Returns:
        e.g. ``["sudo", "apt-get", "install", "-y", "libxcb-icccm4", "libxcb-keysyms1"]``:
        each package once, in the order of the libraries.
    Raises:
        KeyError: an unknown manager or soname.
    """
    return ([] if root else ["sudo"]) + list(MANAGERS[manager][1]) \
        + package_names(missing, manager)


def _passwordless_sudo() -> bool:
    """True when ``sudo`` runs a command here without asking for a password."""
    import subprocess

    if shutil.which("sudo") is None:
        return False
    try:
        return subprocess.run(["sudo", "-n", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def install_missing(env: Mapping[str, str] | None = None, platform: str | None = None,
                    load: Callable[[str], bool] | None = None,
                    which: Callable[[str], str | None] = shutil.which,
                    root: bool | None = None, sudo: Callable[[], bool] = _passwordless_sudo,
                    run: Callable[[list[str]], int] | None = None) -> int:
    """What ``make run`` does before the window: install the missing xcb libraries when
    it may, else print the one command that would and fail.

    Args:
        env, platform, load: as for :func:`missing_window_libraries`.
        which: finds a program on ``PATH`` (apt-get, dnf).
        root: whether this process is root (default: its effective uid is 0).
        sudo: whether ``sudo`` works without a password (default: ``sudo -n true``).
        run: runs a command and returns its exit status (default :func:`subprocess.call`).
    Returns:
        0 when nothing is missing or the install made every library loadable; 1 after a
        one-line message on standard error naming the libraries and the command to
        run (no apt-get or dnf, not allowed to install, or the install failed).
    """
    import subprocess

    missing = missing_window_libraries(env, platform, load)
    if not missing:
        return 0
    wanted = ", ".join(missing)
    manager = next((m for m in MANAGERS if which(m)), None)
    if manager is None:
        print(f"paperdesk: the window needs system libraries that are missing: {wanted} "
              "(install them with your package manager; Debian/Ubuntu packages: "
              f"{' '.join(package_names(missing, 'apt-get'))}; Fedora: "
              f"{' '.join(package_names(missing, 'dnf'))})", file=sys.stderr)
        return 1
    if root is None:
        root = hasattr(os, "geteuid") and os.geteuid() == 0
    command = install_command(missing, manager, root)
    if not root and not sudo():
        print(f"paperdesk: the window needs system libraries that are missing: {wanted}; "
              f"install them with: {' '.join(command)}", file=sys.stderr)
        return 1
    print(f"paperdesk: installing the window's missing system libraries ({wanted}): "
          f"{' '.join(command)}", file=sys.stderr, flush=True)
    run = run or subprocess.call
    status = run(command)
    if status != 0 and manager == "apt-get":     # a fresh machine: no package lists yet
        run(command[:command.index("apt-get") + 1] + ["update"])
        status = run(command)
    still = missing_window_libraries(env, platform, load)
    if status != 0 or still:
        print(f"paperdesk: {' '.join(command)} did not install them (exit {status}); still "
              f"missing: {', '.join(still) or wanted}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m paperdesk.core.window_libs --install`` (``make run``): see
    :func:`install_missing`; without ``--install``, only say what is missing (exit 1)
    or nothing (exit 0).

    Args:
        argv: the arguments (default ``sys.argv[1:]``).
    Returns:
        The exit status.
    """
    argv = sys.argv[1:] if argv is None else argv
    if "--install" in argv:
        return install_missing()
    problem = window_library_problem()
    if problem:
        print(problem, file=sys.stderr)
    return 1 if problem else 0


if __name__ == "__main__":
    raise SystemExit(main())
