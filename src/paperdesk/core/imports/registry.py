"""The table of import formats: one :class:`ImportFormat` per format, registered once
(the built-in ones by :mod:`paperdesk.core.imports.formats`). Detection
(:mod:`~paperdesk.core.imports.detect`), the library's reading of a file, the CLI's
``import`` help, the window's Import dialogs and the import report read it. Pure: no
database, no Qt.

Adding a format: its module (a reader and, in :mod:`~paperdesk.core.imports.sniff` or
the module, a sniff) plus one ``IMPORT_FORMATS.register(...)`` call in
:mod:`paperdesk.core.imports.formats`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from paperdesk.core.named_table import NamedTable

__all__ = ["ImportFormat", "Sample", "IMPORT_FORMATS", "folder_patterns",
           "file_dialog_filter", "STDIN", "STDIN_NAME"]

#: The path that means standard input, and the name it is reported and stored under.
STDIN = "-"
STDIN_NAME = "<stdin>"


@dataclass(frozen=True)
class Sample:
    """What a format's sniff looks at.

    Attributes:
        body: the decoded content without a byte-order mark and leading blank space
            (never empty).
        document: for content that looks like JSON (an object, or an array of values),
            the JSON value parsed, else ``None``.
        json_error: for content that looks like JSON but does not parse, the error
            (``json.JSONDecodeError``), else ``None``.
    """

    body: str
    document: object = None
    json_error: json.JSONDecodeError | None = None

    @property
    def is_json(self) -> bool:
        """Whether the content looks like JSON (parsed or not)."""
        return self.document is not None or self.json_error is not None


@dataclass(frozen=True)
class ImportFormat:
    """One import format.

    Attributes:
        name: its key (``"bibtex"``), stored in reports (``FileReport.format``).
        label: how a file of it is named as a source (``"BibTeX"``: the source's header,
            stored in SQLite) and in messages ("no BibTeX entry with a title").
        report_label: its name in the import report's Format column (``"BibTeX"``).
        patterns: the file name globs a folder import takes and the file dialog offers
            (``("*.bib",)``).
        sniff: ``sniff(sample) -> bool``: whether a :class:`Sample` is in this format;
            tried in registration order, JSON formats on JSON content only, the others
            on the rest.
        read: ``read(found, given, arxiv_filter) -> parsed``: read a file recognised
            (a :class:`~paperdesk.core.imports.detect.Detected`; ``given`` is the path
            as given, ``arxiv_filter`` the import's
            :class:`~paperdesk.core.imports.arxiv.ArxivFilter` or ``None``) into what
            the library stores: a :class:`~paperdesk.core.imports.records.RecordFile`
            (most formats), a ``ParsedFile``, an ``ArxivStream`` or an export ``dict``.
            Raises :class:`~paperdesk.core.imports.daily_papers.ParseError`.
        json: sniffed on parsed JSON content (:attr:`Sample.document`).
        dialog_label: its entry in the Import dialog's file-type list, or ``None`` when
            another format's entry names it (paperdesk JSON is in "CSL-JSON or
            paperdesk JSON").
        fallback: tried last, after markup is refused (plain text); its sniff raises
            ``ParseError`` with the reason instead of returning False.
    """

    name: str
    label: str
    report_label: str
    patterns: tuple[str, ...]
    sniff: Callable[[Sample], bool]
    read: Callable[..., object]
    json: bool = False
    dialog_label: str | None = None
    fallback: bool = False


#: The import formats, by name, in registration order: ``IMPORT_FORMATS.register(fmt)``,
#: ``.unregister(name)``, ``.entries()``, ``.get(name)`` (:class:`NamedTable`).
IMPORT_FORMATS: NamedTable[ImportFormat] = NamedTable("import format")


def folder_patterns() -> tuple[str, ...]:
    """The file name globs a folder import looks at (``("*.txt", "*.bib", ...)``), each
    once, in registration order; inside a folder, a file that matches one but fails
    detection is rejected with its reason, and every other file is ignored."""
    return tuple(dict.fromkeys(p for f in IMPORT_FORMATS.entries() for p in f.patterns))


def file_dialog_filter() -> str:
    """The Import dialog's list of file types (Qt's ``"Name (*.a *.b);;..."``): all the
    formats' patterns first, then one entry per format with a :attr:`dialog_label`,
    then all files."""
    entries = [f"Abstracts and bibliographies ({' '.join(folder_patterns())})"]
    entries += [f"{f.dialog_label} ({' '.join(f.patterns)})" for f in IMPORT_FORMATS.entries()
                if f.dialog_label]
    return ";;".join([*entries, "All files (*)"])

