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
package names are Debian's and Ubuntu's. Qt-free.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from collections.abc import Callable, Mapping

__all__ = ["XCB_LIBRARIES", "uses_xcb", "missing_window_libraries", "window_library_problem",
           "load_library"]

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
