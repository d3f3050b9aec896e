"""A table of named entries kept in registration order: what the import and export
format registries (:mod:`paperdesk.core.imports.registry`,
:mod:`paperdesk.core.exports.registry`) are built on. Pure: no database, no Qt.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["NamedTable"]

Entry = TypeVar("Entry")


class NamedTable(Generic[Entry]):
    """Entries with a ``name`` attribute, each name once, in registration order.

    Args:
        kind: what an entry is, for messages (``"import format"``).
    """

    def __init__(self, kind: str):
        self.kind = kind
        self._entries: dict[str, Entry] = {}

    def register(self, entry: Entry) -> Entry:
        """Add ``entry`` after those registered before it.

        Returns:
            ``entry``.
        Raises:
            ValueError: an entry of that name is registered already.
        """
        name = entry.name
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} is registered already")
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Remove the entry ``name`` (nothing when there is none)."""
        self._entries.pop(name, None)

    def entries(self) -> tuple[Entry, ...]:
        """The entries, in registration order."""
        return tuple(self._entries.values())

    def names(self) -> tuple[str, ...]:
        """The entries' names, in registration order."""
        return tuple(self._entries)

    def get(self, name: str) -> Entry:
        """The entry called ``name``.

        Raises:
            KeyError: no such entry.
        """
        return self._entries[name]
