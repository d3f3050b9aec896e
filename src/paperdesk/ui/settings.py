"""User preferences kept with QSettings (organization and application "paperdesk").

Only preferences live here; the library folder holds all data.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

from ..core.paths import APP_NAME

__all__ = ["Settings", "MARK_READ_DELAY_MS"]

#: How long a paper must be shown before it is marked read automatically.
MARK_READ_DELAY_MS = 1500


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


def _to_bool(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return bool(value)
