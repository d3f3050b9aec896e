"""User preferences kept with QSettings (organization and application "paperdesk").

Only preferences live here; the library folder holds all data.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from ..core.exporting import FORMATS
from ..core.paths import APP_NAME

__all__ = ["Settings", "MARK_READ_DELAY_MS", "DEFAULT_EXPORT_FORMAT"]

#: How long a paper must be shown before it is marked read automatically.
MARK_READ_DELAY_MS = 1500
#: The format the export dialog offers until the user has exported once.
DEFAULT_EXPORT_FORMAT = "bibtex"


class Settings:
    """Typed access to paperdesk's preferences.

    Stored in INI format in the user scope (on Linux
    ``~/.config/paperdesk/paperdesk.ini``); tests redirect it with
    ``QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)``.

    Args:
        store: a QSettings to use instead of the default one.
    """

    def __init__(self, store: QSettings | None = None):
        self._store = store or QSettings(QSettings.Format.IniFormat,
                                         QSettings.Scope.UserScope, APP_NAME, APP_NAME)

    @property
    def auto_mark_read(self) -> bool:
        """Mark a paper read once it has been shown for :attr:`mark_read_delay_ms`
        (default True)."""
        return _to_bool(self._store.value("reading/autoMarkRead", True))

    @auto_mark_read.setter
    def auto_mark_read(self, on: bool) -> None:
        """Store the auto mark-read preference."""
        self._store.setValue("reading/autoMarkRead", bool(on))
        self._store.sync()

    @property
    def mark_read_delay_ms(self) -> int:
        """Milliseconds a paper is shown before it is marked read (100-60000; default
        :data:`MARK_READ_DELAY_MS`)."""
        try:
            value = int(self._store.value("reading/markReadDelayMs", MARK_READ_DELAY_MS))
        except (TypeError, ValueError):
            value = MARK_READ_DELAY_MS
        return min(max(value, 100), 60_000)

    @mark_read_delay_ms.setter
    def mark_read_delay_ms(self, ms: int) -> None:
        """Store the mark-read delay in milliseconds."""
        self._store.setValue("reading/markReadDelayMs", int(ms))
        self._store.sync()

    @property
    def export_folder(self) -> Path:
        """The folder of the last export, if it still exists; otherwise the user's
        Documents folder (or home)."""
        stored = self._store.value("export/folder", "")
        if isinstance(stored, str) and stored and Path(stored).is_dir():
            return Path(stored)
        documents = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(documents) if documents and Path(documents).is_dir() else Path.home()

    @export_folder.setter
    def export_folder(self, folder) -> None:
        """Remember the folder of the last export (a ``str`` or ``Path``)."""
        self._store.setValue("export/folder", str(folder))
        self._store.sync()

    @property
    def export_format(self) -> str:
        """The format of the last export, one of
        :data:`paperdesk.core.exporting.FORMATS` (default :data:`DEFAULT_EXPORT_FORMAT`)."""
        value = self._store.value("export/format", DEFAULT_EXPORT_FORMAT)
        return value if value in FORMATS else DEFAULT_EXPORT_FORMAT

    @export_format.setter
    def export_format(self, fmt: str) -> None:
        """Remember the format of the last export.

        Raises:
            ValueError: ``fmt`` is not one of ``FORMATS``.
        """
        if fmt not in FORMATS:
            raise ValueError(f"unknown export format {fmt!r}")
        self._store.setValue("export/format", fmt)
        self._store.sync()


def _to_bool(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return bool(value)
