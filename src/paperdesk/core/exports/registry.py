"""The table of export formats: one :class:`ExportFormat` per format, registered once
(the built-in ones by :mod:`paperdesk.core.exports.formats`). Writing
(:func:`~paperdesk.core.exports.formats.export_chunks`), the CLI's ``export --format``
choices, the export dialog and the settings read it. Pure: no database, no Qt.

Adding a format: its module (a writer) plus one ``EXPORT_FORMATS.register(...)`` call in
:mod:`paperdesk.core.exports.formats`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from paperdesk.core.named_table import NamedTable

__all__ = ["ExportFormat", "EXPORT_FORMATS", "export_format"]


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
        takes_options: ``write`` takes keyword options (``export_chunks(options=...)``).
    """

    name: str
    label: str
    purpose: str
    extension: str
    write: Callable[[Iterable, tuple[str, ...], Iterable], Iterator[str]]
    bibliography: bool = False
    takes_options: bool = False


#: The export formats, by name, in registration order: ``EXPORT_FORMATS.register(fmt)``,
#: ``.unregister(name)``, ``.entries()``, ``.names()`` (:class:`NamedTable`).
EXPORT_FORMATS: NamedTable[ExportFormat] = NamedTable("export format")


def export_format(name: str) -> ExportFormat:
    """The export format called ``name``.

    Raises:
        ValueError: no such format, with the names there are.
    """
    try:
        return EXPORT_FORMATS.get(name)
    except KeyError:
        raise ValueError(f"unknown export format {name!r}; use one of "
                         f"{', '.join(EXPORT_FORMATS.names())}") from None
