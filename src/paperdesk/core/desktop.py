"""The desktop launcher: install paperdesk into the user's application menu, or remove it.

Follows the freedesktop.org specifications (Linux and BSD desktops: GNOME, KDE, Xfce …),
all for the current user only, under ``$XDG_DATA_HOME`` (default ``~/.local/share``):

* ``applications/paperdesk.desktop`` — the launcher, from ``resources/paperdesk.desktop``
  with ``Exec=`` pointing at this installation's program (``%F``: the files opened
  with it) and ``MimeType=`` naming the file types it imports;
* ``icons/hicolor/<N>x<N>/apps/paperdesk.png`` for every size in :data:`ICON_SIZES` and
  ``icons/hicolor/scalable/apps/paperdesk.svg``.

Afterwards the menu caches are refreshed when the tools for it exist
(``update-desktop-database``, ``gtk-update-icon-cache``); desktops that watch these
folders pick the launcher up anyway.

It also hands a link to the desktop's browser and says whether that worked
(:func:`open_in_browser`: ``xdg-open``, the freedesktop.org opener; ``open`` on macOS;
the shell's association on Windows). Qt-free.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from paperdesk.core.paths import resource_path

__all__ = ["install", "uninstall", "installed_files", "desktop_entry", "launcher_command",
           "data_home", "icon_png_path", "DesktopError", "ICON_SIZES", "DESKTOP_FILE",
           "ICON_NAME", "browser_command", "open_in_browser", "OPEN_WAIT_S"]

#: Icon sizes (pixels) shipped as PNG in ``resources/icons/hicolor``.
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
#: The launcher's file name (its desktop-file id) and the icon's name.
DESKTOP_FILE = "paperdesk.desktop"
ICON_NAME = "paperdesk"
#: A key only paperdesk's launcher has: uninstall removes only a file that carries it.
MARKER = "X-Paperdesk-Launcher=true"


class DesktopError(Exception):
    """Installing or removing the launcher is not possible (message is one line)."""


def data_home() -> Path:
    """Return ``$XDG_DATA_HOME`` if set (and absolute), else ``~/.local/share``."""
    value = os.environ.get("XDG_DATA_HOME", "").strip()
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".local" / "share"


def icon_png_path(root: Path, size: int) -> Path:
    """Return ``root/icons/hicolor/<size>x<size>/apps/paperdesk.png``."""
    return root / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"


def _quote(arg: str) -> str:
    """Quote one ``Exec=`` argument as the Desktop Entry Specification asks."""
    if arg and not any(c in arg for c in ' \t\n"\'\\><~|&;$*?#()`%='):
        return arg
    escaped = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") \
        .replace("$", "\\$")
    return f'"{escaped}"'.replace("%", "%%")


def launcher_command(exec_path: str | os.PathLike | None = None) -> list[str]:
    """Return the command the launcher runs.

    Args:
        exec_path: a program to run instead (e.g. a bundle's ``paperdesk``).
    Returns:
        In order of preference: ``[exec_path]``; the frozen bundle's own program; the
        ``paperdesk-gui`` (or ``paperdesk``) script next to this Python; the one on
        ``PATH``; else ``[python, "-m", "paperdesk"]``. Paths are absolute, so the
        launcher works even when the virtual environment is not on ``PATH``.
    """
    if exec_path:
        return [str(Path(exec_path).expanduser().absolute())]
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).absolute())]
    bindir = Path(sys.executable).parent
    for name in ("paperdesk-gui", "paperdesk"):
        for candidate in (bindir / name, bindir / f"{name}.exe"):
            if candidate.is_file():
                return [str(candidate)]
    found = shutil.which("paperdesk-gui") or shutil.which("paperdesk")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "paperdesk"]


def desktop_entry(command: list[str], template: str | None = None) -> str:
    """Return the launcher's text: the template with ``Exec=`` set to ``command``
    followed by ``%F`` (the files a file manager opens with it, see the template's
    ``MimeType=``) and ``TryExec=`` to its program.

    Args:
        command: program and arguments (see :func:`launcher_command`).
        template: the ``.desktop`` text to start from (default:
            ``resources/paperdesk.desktop``).
    Raises:
        DesktopError: the template is missing.
    """
    if template is None:
        path = resource_path(DESKTOP_FILE)
        if path is None:
            raise DesktopError(f"{DESKTOP_FILE} is missing from paperdesk's resources")
        template = path.read_text(encoding="utf-8")
    # %F: the file manager's "Open with" passes the chosen files (paperdesk FILE...).
    exec_line = "Exec=" + " ".join(_quote(a) for a in command) + " %F"
    out = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            out.append(exec_line)
        elif line.startswith("TryExec="):
            out.append(f"TryExec={command[0]}")
        else:
            out.append(line)
    if MARKER not in out:
        out.append(MARKER)
    return "\n".join(out) + "\n"


def installed_files(root: Path | None = None) -> list[Path]:
    """Return every file :func:`install` writes (whether it exists or not).

    Args:
        root: the data folder (default :func:`data_home`).
    Returns:
        The launcher first, then the PNG icons, then the SVG icon.
    """
    root = root or data_home()
    return ([root / "applications" / DESKTOP_FILE]
            + [icon_png_path(root, size) for size in ICON_SIZES]
            + [root / "icons" / "hicolor" / "scalable" / "apps" / f"{ICON_NAME}.svg"])


def _check_platform() -> None:
    if sys.platform in ("win32", "darwin"):
        raise DesktopError("install-desktop is for Linux and BSD desktops (freedesktop.org); "
                           "on this system pin paperdesk from where it is installed")


def _refresh_caches(root: Path) -> None:
    """Best effort: refresh the menu and icon caches (missing tools are fine)."""
    jobs = [("update-desktop-database", "-q", str(root / "applications")),
            ("gtk-update-icon-cache", "-q", "-t", "-f", str(root / "icons" / "hicolor"))]
    for job in jobs:
        if shutil.which(job[0]):
            try:
                subprocess.run(job, check=False, timeout=30, capture_output=True)
            except (OSError, subprocess.SubprocessError):
                pass


def install(exec_path: str | os.PathLike | None = None, root: Path | None = None,
            refresh: bool = True) -> list[Path]:
    """Install the launcher and the icons for the current user (replacing earlier ones).

    Args:
        exec_path: the program the launcher starts (default: :func:`launcher_command`).
        root: the data folder (default :func:`data_home`).
        refresh: refresh the desktop's caches afterwards.
    Returns:
        The files written, launcher first.
    Raises:
        DesktopError: not a freedesktop platform, a resource is missing, or a file cannot
            be written.
    """
    _check_platform()
    root = root or data_home()
    files = installed_files(root)
    svg = resource_path(f"{ICON_NAME}.svg")
    pngs = [resource_path(str(icon_png_path(Path("."), size))) for size in ICON_SIZES]
    if svg is None or None in pngs:
        raise DesktopError("paperdesk's icons are missing from its resources")
    text = desktop_entry(launcher_command(exec_path))
    try:
        for target, source in zip(files[1:], [*pngs, svg]):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        launcher = files[0]
        launcher.parent.mkdir(parents=True, exist_ok=True)
        partial = launcher.with_name(launcher.name + ".part")
        partial.write_text(text, encoding="utf-8")
        partial.chmod(0o755)
        os.replace(partial, launcher)
    except OSError as exc:
        raise DesktopError(f"cannot write {exc.filename or root}: "
                           f"{exc.strerror or exc}") from exc
    if refresh:
        _refresh_caches(root)
    return files


def uninstall(root: Path | None = None, refresh: bool = True) -> list[Path]:
    """Remove what :func:`install` wrote (a launcher not written by paperdesk is left).

    Args:
        root: the data folder (default :func:`data_home`).
        refresh: refresh the desktop's caches afterwards.
    Returns:
        The files removed.
    Raises:
        DesktopError: a file cannot be removed.
    """
    _check_platform()
    root = root or data_home()
    removed = []
    files = installed_files(root)
    launcher = files[0]
    try:
        if launcher.is_file() and MARKER not in launcher.read_text(encoding="utf-8",
                                                                    errors="replace"):
            files = files[1:]   # someone else's paperdesk.desktop: keep it
        for path in files:
            if path.is_file():
                path.unlink()
                removed.append(path)
    except OSError as exc:
        raise DesktopError(f"cannot remove {exc.filename}: {exc.strerror or exc}") from exc
    if refresh and removed:
        _refresh_caches(root)
    return removed


#: What ``xdg-open``'s exit statuses mean (its manual page, xdg-utils 1.1): 1 a wrong
#: command line, 2 a file that does not exist, 3 a required tool is missing (no browser
#: is set up), 4 the action failed.
_XDG_OPEN_FAILURES = {1: "xdg-open refused the link", 2: "xdg-open found nothing there",
                      3: "no browser is set up (xdg-open found no program for links)",
                      4: "the browser did not open it (xdg-open failed)"}
#: Seconds :func:`open_in_browser` waits for the opener to exit. ``xdg-open`` without a
#: desktop environment runs the browser itself and exits only when it closes: still
#: running after this long means the browser is showing the page.
OPEN_WAIT_S = 10.0


def browser_command(url: str) -> list[str] | None:
    """Return the command that hands ``url`` to the desktop's browser.

    Args:
        url: an http(s) link (the caller has checked it is safe to open).
    Returns:
        ``["open", url]`` on macOS, ``["xdg-open", url]`` (its full path) elsewhere when
        it is installed; ``None`` on Windows (``os.startfile`` opens it) and when no
        opener is installed.
    """
    if sys.platform == "darwin":
        return ["open", url]
    if sys.platform == "win32":
        return None
    opener = shutil.which("xdg-open")
    return None if opener is None else [opener, url]


def open_in_browser(url: str, wait: float = OPEN_WAIT_S) -> str | None:
    """Hand ``url`` to the desktop's browser and wait (at most ``wait`` seconds) to learn
    whether it opened. Blocks: run it off the UI thread.

    Args:
        url: an http(s) link (the caller has checked it is safe to open).
        wait: seconds to wait for the opener to exit (an opener still running then is
            taken to show the page: see :data:`OPEN_WAIT_S`).
    Returns:
        ``None`` when the browser took the link, else a one-line reason it did not
        (e.g. "no browser is set up (xdg-open found no program for links)").
    """
    if sys.platform == "win32":
        try:
            os.startfile(url)   # type: ignore[attr-defined]  # (Windows only)
        except OSError as exc:
            return f"Windows could not open it ({exc.strerror or exc})"
        return None
    command = browser_command(url)
    if command is None:
        return "no program to open links is installed (xdg-open, from xdg-utils)"
    try:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
    except OSError as exc:
        return f"{Path(command[0]).name} could not start ({exc.strerror or exc})"
    try:
        status = process.wait(wait)
    except subprocess.TimeoutExpired:
        return None
    if status == 0:
        return None
    name = Path(command[0]).name
    if name == "xdg-open" and status in _XDG_OPEN_FAILURES:
        return _XDG_OPEN_FAILURES[status]
    return f"{name} failed (exit status {status})"
