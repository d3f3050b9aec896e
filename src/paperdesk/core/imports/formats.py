"""The built-in import formats, registered once each in
:mod:`~paperdesk.core.imports.registry` (importing this module registers them). The
registration order is the order detection tries them (JSON formats on JSON content, the
others on the rest, plain text last) and the order the Import dialog lists them.

Adding an import format: its module (a reader returning a
:class:`~paperdesk.core.imports.records.RecordFile`, and a sniff) plus one
``IMPORT_FORMATS.register(ImportFormat(...))`` here.
"""

from __future__ import annotations

from paperdesk.core.imports.arxiv import ArxivFilter, stream_of_text
from paperdesk.core.imports.bibtex import read_bibtex
from paperdesk.core.imports.csl_json import read_csl_json
from paperdesk.core.imports.daily_papers import display_path, parse_decoded
from paperdesk.core.imports.paperdesk_json import read_export
from paperdesk.core.imports.registry import (IMPORT_FORMATS, STDIN, STDIN_NAME,
                                             ImportFormat, file_dialog_filter,
                                             folder_patterns)
from paperdesk.core.imports.medline import read_medline
from paperdesk.core.imports.ris import read_ris
from paperdesk.core.imports.sniff import (is_arxiv_jsonl, is_bibtex, is_csl_json,
                                          is_medline, is_paperdesk_json, is_ris, is_text,
                                          is_wos)
from paperdesk.core.imports.wos import read_wos

__all__ = ["ImportFormat", "IMPORT_FORMATS", "folder_patterns", "file_dialog_filter"]


def _read_text(found, given, _arxiv_filter: ArxivFilter | None):
    return parse_decoded(found.path, found.text, found.encoding, label=given)


def _read_records(reader):
    """A :attr:`ImportFormat.read` for a reader ``reader(path, text, encoding)``."""
    return lambda found, _given, _arxiv_filter: reader(found.path, found.text,
                                                      found.encoding)


def _read_csl(found, _given, _arxiv_filter: ArxivFilter | None):
    return read_csl_json(found.path, found.text, found.encoding, found.document)


def _read_export(found, given, _arxiv_filter: ArxivFilter | None):
    return read_export(STDIN_NAME if str(given) == STDIN else display_path(given),
                       doc=found.document)


def _read_arxiv(found, _given, arxiv_filter: ArxivFilter | None):
    return stream_of_text(found.path, found.text, arxiv_filter)


_register = IMPORT_FORMATS.register
_register(ImportFormat("text", "text", "text", ("*.txt",), is_text, _read_text,
                       dialog_label="Text: Daily Papers or one abstract per paragraph",
                       fallback=True))
_register(ImportFormat("bibtex", "BibTeX", "BibTeX", ("*.bib",), is_bibtex,
                       _read_records(read_bibtex), dialog_label="BibTeX"))
_register(ImportFormat("ris", "RIS", "RIS", ("*.ris",), is_ris, _read_records(read_ris),
                       dialog_label="RIS"))
_register(ImportFormat("wos", "Web of Science", "Web of Science", ("*.txt", "*.ciw"), is_wos,
                       _read_records(read_wos), dialog_label="Web of Science tagged export"))
_register(ImportFormat("medline", "PubMed/MEDLINE", "PubMed/MEDLINE", ("*.nbib", "*.txt"),
                       is_medline, _read_records(read_medline),
                       dialog_label="PubMed/MEDLINE"))
_register(ImportFormat("csl-json", "CSL-JSON", "CSL-JSON", ("*.json",), is_csl_json,
                       _read_csl, json=True, dialog_label="CSL-JSON or paperdesk JSON"))
_register(ImportFormat("paperdesk-json", "paperdesk export", "paperdesk JSON", ("*.json",),
                       is_paperdesk_json, _read_export, json=True))
_register(ImportFormat("arxiv-jsonl", "arXiv metadata", "arXiv JSON Lines", ("*.jsonl",),
                       is_arxiv_jsonl, _read_arxiv, json=True,
                       dialog_label="arXiv metadata, JSON Lines"))
