"""Which format a file is in, decided by its content (never by its name alone). Pure: no
database, no Qt.

The rules, tried in this order on the decoded text (UTF-8 with or without a byte-order
mark, else what charset-normalizer finds; a file with NUL bytes is binary and refused):

``paperdesk-json``
    a JSON object with ``"format": "paperdesk"`` (paperdesk's own export).
``csl-json``
    a JSON array of objects, each with a ``type`` or a ``title`` (or one such object
    with a ``type`` and a ``title`` or ``abstract``) (the CSL 1.0.2 data
    schema's item: ``id``, ``type``, ``title``, ...).
``arxiv-jsonl``
    JSON Lines whose first non-empty line is an arXiv metadata object
    (:func:`paperdesk.core.imports.arxiv.is_arxiv_object`: an ``id``, a ``title`` or
    ``abstract``, and ``categories``, ``versions``, ``authors_parsed`` or
    ``update_date``). A file is tested for this first, on its first line only, so that
    a multi-gigabyte snapshot is never read whole (:mod:`~paperdesk.core.imports.arxiv`
    streams it). Any other JSON or JSON Lines is refused.
``bibtex``
    an ``@`` block (``@article{key,`` with its key and comma, ``@string{...}``,
    ``@preamble{...}``, ``@comment{...}``; BibTeX and BibLaTeX as Zotero, JabRef and
    Better BibTeX write them) starts a line, with at most three lines before it other
    than blank lines and ``%`` comments.
``ris``
    an RIS ``TY  - `` line, with at most three lines before it other than blank lines
    and the bare record counter ``1.`` some writers put first ("Provider: ...").
``text``
    the Daily Papers format or plain text with one abstract per paragraph, accepted only
    when at most half of its paragraphs fail
    :func:`~paperdesk.core.imports.daily_papers.prose_problem` (the rule is written
    there: per paragraph, no markup, Markdown, source code, key-value lines or table
    rows). Markup (``<html>``, ``<?xml``), other JSON, Markdown, source code, files of
    key-value lines (YAML, INI) and delimiter-separated tables (CSV, TSV) are refused; the
    reason names the kinds found ("4 of 5 paragraphs are Markdown and source code").

A refusal is a :class:`~paperdesk.core.imports.daily_papers.ParseError` whose ``reason``
is one line; the caller adds the file name.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from paperdesk.core.imports.arxiv import first_line_object, is_arxiv_object
from paperdesk.core.imports.daily_papers import (MAX_FILE_BYTES, STREAM_MIN_BYTES,
                                                 ParseError, StreamedText, decode,
                                                 display_path, is_header, is_prose,
                                                 iter_pieces, missing_reason,
                                                 normalize, prose_problem, split_paragraphs,
                                                 streamed_reading)
from paperdesk.core.exports.paperdesk_json import JSON_FORMAT_NAME
from paperdesk.core.text import loads_json

__all__ = ["FORMATS", "FORMAT_LABELS", "FOLDER_PATTERNS", "STDIN", "Detected",
           "detect_text", "detect_file", "detect_streamed", "load_bytes", "is_prose"]

#: The formats :func:`detect_text` tells apart.
FORMATS = ("paperdesk-json", "csl-json", "arxiv-jsonl", "bibtex", "ris", "text")
#: How each format is named to the user (reports, sources' header).
FORMAT_LABELS = {"paperdesk-json": "paperdesk export", "csl-json": "CSL-JSON",
                 "arxiv-jsonl": "arXiv metadata", "bibtex": "BibTeX", "ris": "RIS",
                 "text": "text"}
#: The files a folder import looks at; inside a folder, a file that matches one of these
#: but fails detection is rejected with its reason, and every other file is ignored.
FOLDER_PATTERNS = ("*.txt", "*.bib", "*.ris", "*.json", "*.jsonl")
#: The path that means standard input, and the name it is reported and stored under.
STDIN = "-"
STDIN_NAME = "<stdin>"

_JSON_ARRAY = re.compile(r"\[\s*(?:[\[{\"\]\d-]|true|false|null)")
# "@string{", "@preamble{", "@comment{", or "@type{key," (a key, then a comma: prose that
# starts with "@Twitter (" is not an entry).
_BIB_ENTRY = re.compile(r"@[ \t]*(?:(?:string|preamble|comment)[ \t]*[{(]|[A-Za-z]+[ \t]*"
                        r"[{(][ \t]*[^\s,{}()=\"#%']*[ \t]*(?:,|$))", re.IGNORECASE)
#: Lines other than comments a file may have before its first BibTeX block or RIS record.
_LEAD_LINES = 3
_RIS_TY = re.compile(r"TY  -( |$)")
_RIS_COUNTER = re.compile(r"\d+\.?")
_MARKUP_START = re.compile(r"<(?:[A-Za-z!?/])")
#: A line (the characters between the line ends ``str.splitlines`` knows).
_LINE = re.compile(r"[^\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]*")


@dataclass(frozen=True)
class Detected:
    """A file read and its format recognised.

    Attributes:
        path: the absolute path, or :data:`STDIN_NAME` for standard input.
        format: one of :data:`FORMATS`.
        text: the decoded content.
        encoding: the encoding it was decoded with.
        document: for ``paperdesk-json`` and ``csl-json``, the JSON value already parsed
            to recognise it (so that it is not parsed again), else ``None``.
    """

    path: Path | str
    format: str
    text: str
    encoding: str
    document: object = None


def _starts_with(text: str, pattern: re.Pattern, skip) -> bool:
    """Whether one of the first lines matches ``pattern``, with at most
    :data:`_LEAD_LINES` other lines (not blank, not ``skip``) before it: what a tool
    writes before the records ("Encoding: UTF8", "Provider: ...")."""
    others = 0
    for found in _LINE.finditer(text):       # not splitlines(): a copy of a 190 MB file
        clean = found.group().strip()
        if not clean or skip(clean):
            continue
        if pattern.match(clean):
            return True
        others += 1
        if others > _LEAD_LINES:
            return False
    return False


def detect_text(text: str) -> str:
    """Return the format of decoded file content (see the module docstring).

    Raises:
        ParseError: (with an empty path; the caller names the file) not one of the
            formats, with a one-line reason.
    """
    return _detect(text)[0]


def _detect(text: str) -> tuple[str, object]:
    """``(format, parsed JSON value or None)``; see :func:`detect_text`."""
    body = text.lstrip("\ufeff \t\r\n")
    if not body:
        raise ParseError("", "file is empty")
    if body[0] == "{" or _JSON_ARRAY.match(body):   # "[section]" is INI, not JSON
        try:
            doc = loads_json(body)
        except json.JSONDecodeError as exc:
            first = first_line_object(body)
            if is_arxiv_object(first):
                return "arxiv-jsonl", None
            if isinstance(first, dict) and exc.msg == "Extra data":
                raise ParseError("", "JSON Lines that are not arXiv metadata (the first "
                                     "object has no id with a title or abstract and "
                                     "categories, versions or authors_parsed)") from None
            raise ParseError("", f"not valid JSON ({exc})") from exc
        if isinstance(doc, dict) and doc.get("format") == JSON_FORMAT_NAME:
            return "paperdesk-json", doc
        if is_arxiv_object(doc):        # JSON Lines of one line
            return "arxiv-jsonl", None
        if (isinstance(doc, list) and doc and all(isinstance(d, dict) for d in doc)
                and all("type" in d or "title" in d for d in doc)):
            return "csl-json", doc
        if isinstance(doc, dict) and "type" in doc and ("title" in doc or "abstract" in doc):
            return "csl-json", doc      # one item, as citation-js writes a single one
        what = ("an empty list" if doc == [] else "an object" if isinstance(doc, dict)
                else "a list of something else" if isinstance(doc, list) else "a value")
        raise ParseError("", f"JSON that is neither a paperdesk export nor CSL-JSON "
                             f"(a list of items with a type or title): it is {what}")
    if _starts_with(body, _BIB_ENTRY, lambda ln: ln.startswith("%")):
        return "bibtex", None
    if _starts_with(body, _RIS_TY, lambda ln: bool(_RIS_COUNTER.fullmatch(ln))):
        return "ris", None
    if _MARKUP_START.match(body):
        raise ParseError("", "markup (HTML or XML), not abstracts, BibTeX, RIS or CSL-JSON")
    paragraphs = split_paragraphs(body)
    problems = [k for k in (prose_problem(p) for p in paragraphs) if k]
    _check_prose(problems, len(paragraphs))
    return "text", None


def _check_prose(problems: list[str], paragraphs: int) -> None:
    """Refuse text when more than half of its ``paragraphs`` are ``problems`` (the
    kinds :func:`prose_problem` found), naming the kinds found."""
    if paragraphs and len(problems) * 2 > paragraphs:
        kinds = sorted(set(problems), key=lambda k: (-problems.count(k), k))
        what = ", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else kinds[0]
        verb = "is" if len(problems) == 1 else "are"
        raise ParseError("", f"not abstracts: {len(problems)} of {paragraphs} "
                             f"paragraphs {verb} {what}, not prose (nor is it "
                             "BibTeX, RIS, CSL-JSON or a paperdesk export)")


#: Bytes of a large file looked at to tell whether it may be streamed text.
_HEAD_BYTES = 64 * 1024


def detect_streamed(path: str | os.PathLike) -> StreamedText | None:
    """Recognise a large text file (Daily Papers or plain text) while reading it in
    pieces, so that it is never decoded whole
    (:class:`~paperdesk.core.imports.daily_papers.StreamedText`).

    Taken only when all of these hold, else ``None`` (then :func:`detect_file` reads
    the file whole and decides, with the same rules): a regular file of
    :data:`~paperdesk.core.imports.daily_papers.STREAM_MIN_BYTES` to
    :data:`~paperdesk.core.imports.daily_papers.MAX_FILE_BYTES` bytes; valid UTF-8 all
    through (a UTF-8 byte-order mark is allowed, other marks and NUL bytes are not); its
    start is not JSON, a BibTeX block, an RIS record or markup; some text. The text rule
    (at most half of the paragraphs fail
    :func:`~paperdesk.core.imports.daily_papers.prose_problem`) is applied to every
    paragraph (to the first
    :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters of a
    longer one), as for a file read whole. A file of one or two paragraphs may have no
    blank lines between its abstracts: its lines decide how it is read
    (:func:`~paperdesk.core.imports.daily_papers.streamed_reading`).

    Args:
        path: the file as given.
    Returns:
        The :class:`StreamedText`, or ``None``.
    Raises:
        ParseError: the file is streamed text but more than half of its paragraphs are
            not prose (the same one-line reason :func:`detect_file` gives).
    """
    p = Path(path)
    try:
        if not p.is_file():
            return None
        size = p.stat().st_size
        if not STREAM_MIN_BYTES <= size <= MAX_FILE_BYTES:
            return None
        with open(p, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")) \
            or b"\x00" in head[:8192]:
        return None
    try:
        text = codecs.getincrementaldecoder("utf-8")("strict").decode(head, final=False)
    except UnicodeDecodeError:
        return None
    body = text.lstrip("\ufeff \t\r\n")
    if not body or body[0] == "{" or _JSON_ARRAY.match(body) or _MARKUP_START.match(body) \
            or _starts_with(body, _BIB_ENTRY, lambda ln: ln.startswith("%")) \
            or _starts_with(body, _RIS_TY, lambda ln: bool(_RIS_COUNTER.fullmatch(ln))):
        return None
    first: list[str] = []
    count = 0
    problems: list[str] = []
    try:
        for paragraph, _length in iter_pieces(p):
            if len(first) < 2:
                first.append(paragraph)
            count += 1
            kind = prose_problem(paragraph)
            if kind:
                problems.append(kind)
    except (UnicodeDecodeError, OSError):
        return None
    if count == 0:
        return None
    try:
        _check_prose(problems, count)
    except ParseError as exc:
        raise ParseError(path, exc.reason) from None
    name = p.resolve()
    mode, warnings = "paragraphs", []
    if count < 3:       # maybe without blank lines: the rules need its lines
        try:
            mode, header, count, warnings = streamed_reading(p, first)
        except (UnicodeDecodeError, OSError):
            return None
    else:
        header = normalize(first[0]) if is_header(first[0]) else None
    return StreamedText(path=name, header=header or display_path(name.stem or str(name)),
                        encoding="utf-8", paragraphs=count, has_header=header is not None,
                        warnings=warnings, mode=mode)


def load_bytes(path: str | os.PathLike, head: bytes = b"") -> tuple[Path | str, bytes]:
    """Read a file's bytes (or standard input's for :data:`STDIN`).

    Args:
        path: the file, or :data:`STDIN`.
        head: for standard input, the bytes already read from it (they come first).
    Returns:
        ``(name, data)``: the absolute path, or :data:`STDIN_NAME`.
    Raises:
        ParseError: missing, not a regular file, unreadable, too large or empty.
    """
    if str(path) == STDIN:
        try:
            data = head + sys.stdin.buffer.read(MAX_FILE_BYTES + 1 - len(head))
        except (OSError, AttributeError, ValueError) as exc:
            raise ParseError(STDIN_NAME, f"cannot read standard input ({exc})") from exc
        if len(data) > MAX_FILE_BYTES:
            raise ParseError(STDIN_NAME, f"input too large (limit {MAX_FILE_BYTES} bytes)")
        name: Path | str = STDIN_NAME
    else:
        p = Path(path)
        try:
            if p.is_dir():
                raise ParseError(path, "folder holds no .txt, .bib, .ris, .json or "
                                       ".jsonl files")
            if not p.is_file():
                raise ParseError(path, missing_reason(p))
            size = p.stat().st_size
            if size > MAX_FILE_BYTES:
                raise ParseError(path, f"file too large ({size} bytes; limit "
                                       f"{MAX_FILE_BYTES})")
            data = p.read_bytes()
        except OSError as exc:
            raise ParseError(path, f"cannot read file ({exc.strerror or exc})") from exc
        name = p.resolve()
    if not data.strip():
        raise ParseError(name, "file is empty")
    return name, data


def detect_file(path: str | os.PathLike, head: bytes = b"") -> Detected:
    """Read a file (or standard input, for ``-``), decode it and recognise its format.

    Args:
        path: the file, or :data:`STDIN`.
        head: for standard input, the bytes already read from it.
    Raises:
        ParseError: unreadable, binary, undecodable or in none of the formats; the
            reason is one line and the error names the file.
    """
    name, data = load_bytes(path, head)
    label = STDIN_NAME if name == STDIN_NAME else path
    try:
        text, encoding = decode(Path(str(name)), data)
    except ParseError as exc:
        raise ParseError(label, exc.reason) from None
    del data        # a 190 MB file's bytes: not kept while its text is parsed
    try:
        fmt, document = _detect(text)
    except ParseError as exc:
        raise ParseError(label, exc.reason) from None
    return Detected(name, fmt, text.lstrip("\ufeff"), encoding, document)
