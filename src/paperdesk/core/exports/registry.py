"""The table of export formats: one :class:`ExportFormat` per format, registered once
(the built-in ones by :mod:`paperdesk.core.exports.formats`). Writing
(:func:`~paperdesk.core.exports.formats.export_chunks`), the CLI's ``export --format``
choices, the export dialog and the settings read it. Pure: no database, no Qt.

Adding a format: its module (a writer) plus one :func:`register` call in
:mod:`paperdesk.core.exports.formats`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

__all__ = ["ExportFormat", "register", "unregister", "export_formats", "export_format",
           "export_format_names"]


@dataclass(frozen=True)
class ExportFormat:
    """One export format.

    Attributes:
        name: its key (``"bibtex"``): the CLI's ``--format`` value, the setting stored.
        label: its name in the export dialog and messages (``"BibTeX"``).
        purpose: what it is for, shown beside it in the dialog (``"JabRef, LaTeX"``).
        extension: the file name extension, with its dot (``".bib"``).
        write: ``write(papers, keep, saved_searches) -> Iterator[str]``: the export of
            ``papers`` (:class:`~paperdesk.core.models.Paper`, in order) as text chunks
            whose concatenation is the file, holding the fields ``keep`` (names of
            :data:`~paperdesk.core.exports.formats.FIELDS`); ``saved_searches`` are the
            library's saved searches, used by a format that carries them.
        bibliography: a reference manager's format (listed first in the dialog).
    """

    name: str
    label: str
    purpose: str
    extension: str
    write: Callable[[Iterable, tuple[str, ...], Iterable], Iterator[str]]
    bibliography: bool = False


_FORMATS: dict[str, ExportFormat] = {}


def register(fmt: ExportFormat) -> ExportFormat:
    """Add an export format (after those registered before it).

    Returns:
        ``fmt``.
    Raises:
        ValueError: a format of that name is registered already.
    """
    if fmt.name in _FORMATS:
        raise ValueError(f"export format {fmt.name!r} is registered already")
    _FORMATS[fmt.name] = fmt
    return fmt


def unregister(name: str) -> None:
    """Remove the export format ``name`` (nothing when there is none)."""
    _FORMATS.pop(name, None)


def export_formats() -> tuple[ExportFormat, ...]:
    """The registered export formats, in registration order."""
    return tuple(_FORMATS.values())


def export_format_names() -> tuple[str, ...]:
    """The registered export formats' names, in registration order."""
    return tuple(_FORMATS)


def export_format(name: str) -> ExportFormat:
    """The export format called ``name``.

    Raises:
        ValueError: no such format, with the names there are.
    """
    try:
        return _FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown export format {name!r}; use one of "
                         f"{', '.join(_FORMATS)}") from None
