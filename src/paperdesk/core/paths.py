"""Where things live: the default library folder and the bundled seed files."""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

import platformdirs

__all__ = ["APP_NAME", "LIBRARY_ENV", "default_library_path", "bundled_seeds", "resource_path"]

APP_NAME = "paperdesk"
#: Environment variable that overrides the default library folder.
LIBRARY_ENV = "PAPERDESK_LIBRARY"


def default_library_path() -> Path:
    """Return the library folder used when none is given.

    ``$PAPERDESK_LIBRARY`` if set and non-empty, else the platform's per-user data folder
    from platformdirs (``~/.local/share/paperdesk`` on Linux, ``~/Library/Application
    Support/paperdesk`` on macOS, ``%LOCALAPPDATA%\\paperdesk`` on Windows).
    """
    env = os.environ.get(LIBRARY_ENV, "").strip()
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _bundled_dirs(name: str) -> list[Path]:
    # The installed package first (a wheel carries seeds/ and resources/ inside
    # paperdesk/), then the top of a source checkout.
    candidates = []
    if getattr(sys, "frozen", False) and hasattr(sys, "_MEIPASS"):   # a PyInstaller bundle
        candidates.append(Path(sys._MEIPASS) / "paperdesk" / name)
    try:
        candidates.append(Path(str(resources.files("paperdesk") / name)))
    except (ModuleNotFoundError, TypeError):
        pass
    candidates.append(Path(__file__).resolve().parents[3] / name)
    return candidates


def resource_path(name: str) -> Path | None:
    """Return the path of a bundled resource file such as ``"paperdesk.svg"``.

    Args:
        name: file name inside ``resources/``.
    Returns:
        The path, or ``None`` if it is in neither the installed package nor the checkout.
    """
    for folder in _bundled_dirs("resources"):
        if (folder / name).is_file():
            return folder / name
    return None


def bundled_seeds() -> list[Path]:
    """Return the sample abstract files that ship with paperdesk.

    Looks in the installed package (``paperdesk/seeds``, put there when a wheel is built)
    and then in the source checkout (``seeds/`` at the top of the repository).

    Returns:
        Sorted ``*.txt`` paths; empty if neither place has any.
    """
    for folder in _bundled_dirs("seeds"):
        if folder.is_dir():
            files = sorted(folder.glob("*.txt"))
            if files:
                return files
    return []
