"""A test-only import format, as a contributor would add one: this module (a sniff and
a reader) plus one registration (:data:`REGISTRATION`, registered by the tests that use
it and removed after them).

The format: a first line ``#paperdesk-tsv``, then one record per line, its title and
abstract separated by a tab.
"""

from __future__ import annotations

from paperdesk.core.imports.formats import ImportFormat
from paperdesk.core.imports.records import RawRecord, RecordFile, check_record

MAGIC = "#paperdesk-tsv"


def is_tsv(sample) -> bool:
    """Whether the content starts with :data:`MAGIC`."""
    return sample.body.startswith(MAGIC + "\n")


def read_tsv(found, _given, _arxiv_filter) -> RecordFile:
    """The records of a file recognised by :func:`is_tsv`."""
    out = RecordFile(found.path, "test-tsv", found.encoding)
    for n, line in enumerate(found.text.splitlines()[1:], start=1):
        title, _tab, abstract = line.partition("\t")
        check_record(RawRecord(f"line {n + 1}", title=title, abstract=abstract), n, out)
    return out


REGISTRATION = ImportFormat("test-tsv", "test TSV", "tab-separated test records",
                            ("*.tsvx",), is_tsv, read_tsv,
                            dialog_label="Tab-separated test records")


def write_tsv(path, papers) -> None:
    """Write ``papers`` (objects with ``title`` and ``abstract``) in the format."""
    lines = [MAGIC, *(f"{p.title}\t{p.abstract}" for p in papers)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
