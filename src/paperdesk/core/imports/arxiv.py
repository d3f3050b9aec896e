"""Reading arXiv's bulk metadata (JSON Lines), streamed. Pure: no database, no Qt.

**The format** is that of arXiv's metadata snapshot as published on Kaggle
("arxiv-metadata-oai-snapshot.json", built from arXiv's OAI-PMH metadata,
https://info.arxiv.org/help/oa/index.html): one JSON object per line, with ``id``
(``"0704.0001"``, or old-style ``"hep-th/9901001"``), ``submitter``, ``authors`` (one
string, ``"A. Name, B. Other and C. Third"``), ``authors_parsed`` (``[[last, first,
suffix], ...]``), ``title``, ``comments``, ``journal-ref``, ``doi``, ``report-no``,
``categories`` (space-separated, ``"hep-ph cs.CV"``), ``license``, ``abstract``,
``versions`` (``[{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}, ...]``)
and ``update_date`` (``"2008-11-13"``). Titles and abstracts are LaTeX source with hard
line breaks; abstracts start with spaces.

**Detection** (:func:`is_arxiv_object`): the first non-empty line is a JSON object with
an ``id``, a ``title`` or an ``abstract``, and one of ``categories``, ``versions``,
``authors_parsed``, ``update_date``.

**Each line becomes a record** (then checked and merged like BibTeX or RIS records,
:mod:`paperdesk.core.imports.records`; a paper already in the library with the same
arXiv id, in any version, or DOI is enriched, not duplicated):

- title and abstract: LaTeX outside maths is decoded (``\\'e`` -> é, ``{\\"u}`` -> ü,
  ``\\%`` -> %; a bare ``%`` or ``&`` is the character), maths (``$...$``, ``$$...$$``,
  ``\\(...\\)``, ``\\[...\\]``) is kept as written, so that it stays exact and readable
  as TeX (maths of Greek letters alone, ``$\\alpha$``, is the letter), URLs are kept as
  written, a ``~`` starting a word before a digit ("~3x") or standing alone stays; white
  space and line breaks become single spaces (:func:`decode_tex_text`, the rules of
  :mod:`paperdesk.core.imports.tex`);
- authors: ``authors_parsed`` (family name = last, given = first, suffix = suffix), else
  ``authors`` split at commas and "and" (parenthesised
  affiliations dropped), LaTeX decoded;
- date: the first version's date (the submission date, ``YYYY-MM-DD``), else
  ``update_date``;
- arXiv id (without version), DOI (the first, when several are given), venue from
  ``journal-ref``, entry type ``article`` when there is a ``journal-ref`` and else none
  (written as ``preprint`` since the paper has an arXiv id), URL
  ``https://arxiv.org/abs/<id>``.

**Filters** (:class:`ArxivFilter`): ``categories`` keeps a record when any of its
categories matches any of the filter's: ``cs.CV`` matches that category only; a name
without a dot (``cs``, ``math``, ``hep-th``) matches the archive: itself and every
``name.*`` category (``math`` takes ``math.AG``, not ``math-ph``). ``since`` keeps a
record whose date (above: first version, else ``update_date``) is on or after it.

**Streaming**: lines are read one at a time from the file (never the whole file), so a
multi-gigabyte snapshot is read in bounded memory; a line longer than
:data:`MAX_LINE_BYTES` is skipped. A line that is not a JSON object, or not UTF-8, is
left out with a note naming its line number; at most :data:`MAX_NOTES` notes are kept
(the count of the rest is added). With a category filter, a line that looks like a
whole metadata object (``{`` ... ``}`` naming ``"categories"``) without any of the
filter's names in it is counted as filtered without being decoded; every other line is
decoded, so a line that is not JSON is noted, filter or not.
"""

from __future__ import annotations

import datetime as _dt
import email.utils
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from paperdesk.core.imports.abstract_limit import bounded
from paperdesk.core.imports.bibtex import decode_latex
from paperdesk.core.imports.tex import decode_tex
from paperdesk.core.imports.records import RawRecord, Record, RecordFile, check_record
from paperdesk.core.metadata import MetadataError, check_arxiv_id
from paperdesk.core.text import loads_json

__all__ = ["ArxivFilter", "ArxivStream", "is_arxiv_object", "arxiv_raw", "decode_tex_text",
           "first_line_object", "MAX_LINE_BYTES", "MAX_NOTES", "ARXIV_FORMAT"]

#: The format's name in reports (``FileReport.format``).
ARXIV_FORMAT = "arxiv-jsonl"
#: A longer line is skipped with a note (the longest abstract on arXiv is a few KB).
MAX_LINE_BYTES = 1024 * 1024
#: Notes kept per file; past these only their number is.
MAX_NOTES = 1000
_SNIFF_LINES = 50
_ARXIV_ONLY_KEYS = ("categories", "versions", "authors_parsed", "update_date")


def is_arxiv_object(obj: object) -> bool:
    """Whether a decoded JSON value is an arXiv metadata record (rule: module docstring)."""
    return (isinstance(obj, dict) and isinstance(obj.get("id"), str)
            and ("title" in obj or "abstract" in obj)
            and any(k in obj for k in _ARXIV_ONLY_KEYS))


def first_line_object(text: str) -> object:
    """The JSON value of the first non-empty line of ``text`` (``None`` when it is not
    JSON)."""
    for line in text.splitlines():
        if line.strip():
            try:
                return loads_json(line)
            except ValueError:
                return None
    return None


@dataclass(frozen=True)
class ArxivFilter:
    """Which records of an arXiv metadata file to keep (rule: module docstring).

    Attributes:
        categories: categories (``"cs.CV"``) or archives (``"cs"``); empty keeps all.
        since: earliest date kept, or ``None``.
    """

    categories: tuple[str, ...] = ()
    since: _dt.date | None = None

    def __bool__(self) -> bool:
        return bool(self.categories) or self.since is not None

    def keeps_categories(self, categories: str) -> bool:
        """Whether a record's space-separated ``categories`` pass."""
        if not self.categories:
            return True
        theirs = categories.split()
        for want in self.categories:
            if "." in want:
                if want in theirs:
                    return True
            elif any(c == want or c.startswith(want + ".") for c in theirs):
                return True
        return False


def decode_tex_text(text: str) -> str:
    """LaTeX source as arXiv titles and abstracts have it, as text: the rules of
    :mod:`paperdesk.core.imports.tex` with its ``"arxiv"`` flavour (maths and URLs kept as
    written, a bare ``%`` or ``&`` is the character, ``~`` before a digit at the start
    of a word stays), white space made single spaces.

    Args:
        text: e.g. ``"  The $x$-model of Schr\\\\"odinger\\n  equations, ~3x faster"``.
    Returns:
        e.g. ``"The $x$-model of Schrödinger equations, ~3x faster"``.
    """
    return decode_tex(text, "arxiv")


def _names(obj: dict) -> list[tuple[str, str, str] | tuple[str, str]]:
    parsed = obj.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        out = []
        for name in parsed:
            if not isinstance(name, list) or not name:
                continue
            last, first, suffix = (list(map(str, name)) + ["", "", ""])[:3]
            out.append((decode_latex(last), decode_latex(first),
                        decode_latex(suffix) if suffix.strip() else ""))
        return out
    authors = obj.get("authors")
    if not isinstance(authors, str):
        return []
    text = re.sub(r"\([^()]*\)", " ", authors)          # affiliations
    out = []
    for name in re.split(r",|\band\b", decode_latex(text)):
        words = name.split()
        if words:
            out.append((words[-1], " ".join(words[:-1])))
    return out


def _date(obj: dict) -> str | None:
    versions = obj.get("versions")
    if isinstance(versions, list) and versions and isinstance(versions[0], dict):
        created = versions[0].get("created")
        if isinstance(created, str):
            try:
                return email.utils.parsedate_to_datetime(created).date().isoformat()
            except (TypeError, ValueError, IndexError):
                pass
    update = obj.get("update_date")
    return update.strip() if isinstance(update, str) and update.strip() else None


def _text(obj: dict, key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def arxiv_raw(obj: dict, line: int) -> RawRecord:
    """The raw record of one arXiv metadata object (rules: module docstring).

    Args:
        obj: the decoded line.
        line: its 1-based line number (names it in notes: ``"line 7 (hep-th/9901001)"``).
    Returns:
        A :class:`~paperdesk.core.imports.records.RawRecord` (not yet checked).
    """
    arxiv_id = _text(obj, "id").strip()
    try:
        url = f"https://arxiv.org/abs/{check_arxiv_id(arxiv_id)}" if arxiv_id else None
    except MetadataError:
        url = None      # check_record notes the id and drops it
    doi = _text(obj, "doi").split()
    journal = decode_tex_text(_text(obj, "journal-ref"))
    abstract, length = bounded(_text(obj, "abstract"))
    return RawRecord(
        label=f"line {line} ({arxiv_id or 'no id'})",
        title=decode_tex_text(_text(obj, "title")),
        abstract=decode_tex_text(abstract), abstract_length=length,
        authors=_names(obj), date=_date(obj), values={"venue": journal} if journal else {},
        entry_type="article" if journal else None,
        doi=doi[0] if doi else None, arxiv_id=arxiv_id or None,
        url=url)


def _record_date(obj: dict) -> _dt.date | None:
    text = _date(obj)
    try:
        return _dt.date.fromisoformat(text[:10]) if text else None
    except ValueError:
        return None


@dataclass
class ArxivStream:
    """An arXiv metadata file, read lazily: :meth:`records` yields its checked records
    one at a time.

    Attributes:
        path: the file's absolute path, or ``"<stdin>"``.
        open_lines: returns a fresh binary stream of the content (called once per
            :meth:`records`).
        filter: the records to keep.
        estimated_lines: the number of lines, estimated from the size and the first
            lines (0 when unknown: standard input); for progress.
        lines_read: lines read so far.
        filtered: records the filter left out.
        skipped: lines left out (not JSON, no title and no abstract, too long).
        warnings: notes (at most :data:`MAX_NOTES`; ``notes_dropped`` counts the rest).
    """

    path: Path | str
    open_lines: Callable[[], BinaryIO]
    filter: ArxivFilter = field(default_factory=ArxivFilter)
    estimated_lines: int = 0
    lines_read: int = 0
    filtered: int = 0
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    notes_dropped: int = 0
    format: str = ARXIV_FORMAT
    encoding: str = "utf-8"

    def _note(self, text: str) -> None:
        if len(self.warnings) < MAX_NOTES:
            self.warnings.append(text)
        else:
            self.notes_dropped += 1

    def _lines(self) -> Iterator[tuple[int, bytes | None]]:
        with self.open_lines() as fh:
            n = 0
            while True:
                line = fh.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                n += 1
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    while line and not line.endswith(b"\n"):    # drop the rest of it
                        line = fh.readline(MAX_LINE_BYTES)
                    yield n, None
                    continue
                if n == 1 and line.startswith(b"\xef\xbb\xbf"):
                    line = line[3:]
                yield n, line

    def records(self) -> Iterator[Record]:
        """Yield the checked records that pass the filter, in file order.

        Raises:
            OSError: the file cannot be read (the caller reports it on the file).
        """
        wanted = [c.encode() for c in self.filter.categories]
        for n, line in self._lines():
            self.lines_read = n
            if line is None:
                self.skipped += 1
                self._note(f"line {n}: longer than {MAX_LINE_BYTES} bytes; left out")
                continue
            if not line.strip():
                continue
            # A category named in the filter must appear in the line as written: most
            # lines of a filtered import are left out without being decoded. Only a
            # line that looks like a whole object is, so that a line that is not JSON
            # (or cut short) is still noted rather than counted as filtered.
            if (wanted and b"\\u" not in line and not any(w in line for w in wanted)
                    and _looks_like_object(line)):
                self.filtered += 1
                continue
            try:
                obj = loads_json(line)
            except UnicodeDecodeError:
                self.skipped += 1
                self._note(f"line {n}: not UTF-8; left out")
                continue
            except json.JSONDecodeError as exc:
                self.skipped += 1
                what = exc.msg.removesuffix(" at")
                self._note(f"line {n}: not JSON ({what} at column {exc.colno}); left out")
                continue
            except ValueError as exc:
                self.skipped += 1
                self._note(f"line {n}: not JSON ({exc}); left out")
                continue
            if not isinstance(obj, dict):
                self.skipped += 1
                self._note(f"line {n}: not a JSON object; left out")
                continue
            if not self.filter.keeps_categories(_text(obj, "categories")):
                self.filtered += 1
                continue
            if self.filter.since is not None:
                when = _record_date(obj)
                if when is None or when < self.filter.since:
                    self.filtered += 1
                    continue
            out = RecordFile(self.path, ARXIV_FORMAT, "utf-8")
            check_record(arxiv_raw(obj, n), n, out)
            for note in out.skipped:
                self.skipped += 1
                self._note(note)
            for note in out.warnings:
                self._note(note)
            yield from out.records

    @property
    def notes(self) -> list[str]:
        """The notes, with a last line counting those not kept."""
        more = [f"... and {self.notes_dropped} more notes"] if self.notes_dropped else []
        return [*self.warnings, *more]


def _looks_like_object(line: bytes) -> bool:
    """Whether a line looks like one whole JSON object of the metadata (starts with
    ``{``, ends with ``}`` and names ``"categories"``), so that skipping it undecoded
    loses no note."""
    stripped = line.strip()
    return (stripped.startswith(b"{") and stripped.endswith(b"}")
            and b'"categories"' in stripped)


def _estimate(fh: BinaryIO, size: int) -> int:
    head = fh.read(256 * 1024)
    lines = head.count(b"\n")
    if not head:
        return 0
    if lines == 0 or size <= len(head):
        return max(lines + (not head.endswith(b"\n")), 1)
    return max(int(size * lines / len(head)), lines)


def sniff_file(path: str | os.PathLike, name: Path | str,
               filter: ArxivFilter | None = None) -> ArxivStream | None:
    """An :class:`ArxivStream` when the file's first non-empty line is an arXiv metadata
    object, else ``None`` (also when it cannot be read: reading it again reports why).

    Args:
        path: the file as given.
        name: its absolute path (what the stream is named).
        filter: the records to keep.
    """
    try:
        if not Path(path).is_file():        # a FIFO would block; load_bytes refuses it
            return None
        with open(path, "rb") as fh:
            first = _first_nonblank(fh)
            if first is None or not _is_arxiv_line(first):
                return None
            fh.seek(0)
            estimate = _estimate(fh, os.fstat(fh.fileno()).st_size)
    except OSError:
        return None
    return ArxivStream(name, lambda: open(path, "rb"), filter or ArxivFilter(),
                       estimated_lines=estimate)


def sniff_stdin(name: str, filter: ArxivFilter | None = None
                ) -> tuple[ArxivStream | None, bytes]:
    """Like :func:`sniff_file` for standard input, which can be read once only.

    Returns:
        ``(stream, b"")`` for arXiv metadata (the stream goes on reading standard input
        after the lines read here), else ``(None, head)``: the bytes read so far, which
        the caller puts before the rest.
    """
    buffer = sys.stdin.buffer
    head = []
    first = None
    for _ in range(_SNIFF_LINES):
        line = buffer.readline(MAX_LINE_BYTES + 1)
        if not line:
            break
        head.append(line)
        if line.strip():
            first = line
            break
    consumed = b"".join(head)
    if first is None or not _is_arxiv_line(first):
        return None, consumed

    class _Rest(io.RawIOBase):
        def __init__(self) -> None:
            self._head = io.BytesIO(consumed)

        def readable(self) -> bool:
            return True

        def readinto(self, b) -> int:
            n = self._head.readinto(b)
            return n if n else buffer.readinto(b)

    return ArxivStream(name, lambda: io.BufferedReader(_Rest()), filter or ArxivFilter()), b""


def stream_of_text(name: Path | str, text: str,
                   filter: ArxivFilter | None = None) -> ArxivStream:
    """An :class:`ArxivStream` over content already read and decoded."""
    data = text.encode("utf-8")
    return ArxivStream(name, lambda: io.BytesIO(data), filter or ArxivFilter(),
                       estimated_lines=data.count(b"\n") + (not data.endswith(b"\n")))


def _first_nonblank(fh: BinaryIO) -> bytes | None:
    for _ in range(_SNIFF_LINES):
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return None
        if line.strip():
            return line
    return None


def _is_arxiv_line(line: bytes) -> bool:
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    if not line.lstrip().startswith(b"{"):
        return False
    try:
        return is_arxiv_object(loads_json(line))
    except ValueError:
        return False
