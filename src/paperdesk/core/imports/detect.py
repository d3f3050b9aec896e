"""Which format a file is in, decided by its content (never by its name alone). Pure: no
database, no Qt.

The formats and their sniffs are those registered in
:mod:`paperdesk.core.imports.registry` (the built-in ones in
:mod:`paperdesk.core.imports.formats`, their sniffs in
:mod:`paperdesk.core.imports.sniff`), tried in registration order: JSON formats on
content that looks like JSON, the others on the rest, plain text last. The built-in
rules, on the decoded text (UTF-8 with or without a byte-order mark, else what
charset-normalizer finds; a file with NUL bytes is binary and refused):

``paperdesk-json``
    a JSON object whose ``format`` is
    :data:`~paperdesk.core.exports.paperdesk_json.JSON_FORMAT_NAME` (paperdesk's own
    export).
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
``wos``
    a Web of Science tagged export: its header line ``FN <database>``, or a first
    record's ``PT <type>`` line and an ``ER`` line, with at most three lines before it
    other than blank lines (:mod:`~paperdesk.core.imports.wos`).
``medline``
    PubMed/MEDLINE (``.nbib``, PubMed format): a ``PMID- <number>`` line with at most
    three lines before it other than blank lines (:mod:`~paperdesk.core.imports.medline`).
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

from paperdesk.core.imports.arxiv import first_line_object
from paperdesk.core.imports.daily_papers import (MAX_FILE_BYTES, STREAM_MIN_BYTES,
                                                 FileChangedError, ParseError, StreamedText,
                                                 decode_noted, file_stamp,
                                                 display_path, is_header, is_prose,
                                                 iter_pieces, missing_reason,
                                                 normalize, prose_problem,
                                                 streamed_reading)
from paperdesk.core.imports.formats import IMPORT_FORMATS, folder_patterns
from paperdesk.core.imports.registry import STDIN, STDIN_NAME, Sample
from paperdesk.core.imports.sniff import JSON_START, MARKUP_START, check_prose
from paperdesk.core.text import loads_json

__all__ = ["STDIN", "Detected", "detect_text", "detect_file", "detect_streamed",
           "load_bytes", "is_prose"]


@dataclass(frozen=True)
class Detected:
    """A file read and its format recognised.

    Attributes:
        path: the absolute path, or :data:`STDIN_NAME` for standard input.
        format: the name of a registered
            :class:`~paperdesk.core.imports.registry.ImportFormat`.
        text: the decoded content.
        encoding: the encoding it was decoded with.
        document: for ``paperdesk-json`` and ``csl-json``, the JSON value already parsed
            to recognise it (so that it is not parsed again), else ``None``.
        notes: lines on how the bytes were read, for the file's warnings (bytes that
            were not UTF-8 in a mostly UTF-8 file:
            :func:`~paperdesk.core.imports.daily_papers.decode_noted`).
    """

    path: Path | str
    format: str
    text: str
    encoding: str
    document: object = None
    notes: tuple[str, ...] = ()


def detect_text(text: str) -> str:
    """Return the format of decoded file content (see the module docstring).

    Raises:
        ParseError: (with an empty path; the caller names the file) not one of the
            formats, with a one-line reason.
    """
    return _detect(text)[0]


def _sample(body: str) -> Sample:
    """The :class:`Sample` of non-empty content, its JSON parsed when it looks like
    JSON."""
    if body[0] == "{" or JSON_START.match(body):
        try:
            return Sample(body, document=loads_json(body))
        except json.JSONDecodeError as exc:
            return Sample(body, json_error=exc)
    return Sample(body)


def _detect(text: str) -> tuple[str, object]:
    """``(format, parsed JSON value or None)``; see :func:`detect_text`."""
    body = text.lstrip("\ufeff \t\r\n")
    if not body:
        raise ParseError("", "file is empty")
    sample = _sample(body)
    for fmt in IMPORT_FORMATS.entries():
        if fmt.json == sample.is_json and not fmt.fallback and fmt.sniff(sample):
            return fmt.name, sample.document
    if sample.json_error is not None:
        if isinstance(first_line_object(body), dict) and sample.json_error.msg == "Extra data":
            raise ParseError("", "JSON Lines that are not arXiv metadata (the first "
                                 "object has no id with a title or abstract and "
                                 "categories, versions or authors_parsed)") from None
        raise ParseError("", f"not valid JSON ({sample.json_error})")
    if sample.is_json:
        doc = sample.document
        what = ("an empty list" if doc == [] else "an object" if isinstance(doc, dict)
                else "a list of something else" if isinstance(doc, list) else "a value")
        raise ParseError("", f"JSON that is neither a paperdesk export nor CSL-JSON "
                             f"(a list of items with a type or title): it is {what}")
    if MARKUP_START.match(body):
        raise ParseError("", "markup (HTML or XML), not abstracts, BibTeX, RIS or CSL-JSON")
    for fmt in IMPORT_FORMATS.entries():
        if fmt.fallback and fmt.sniff(sample):
            return fmt.name, None
    raise ParseError("", "not in a format paperdesk imports")


def _json_scalar(text: str) -> str | None:
    """What a file holding one JSON scalar holds (``"a string"``, ``"a number"``,
    ``"true or false"``, ``"null"``), or ``None`` when it is not one (RFC 8259: a JSON
    text may be any value)."""
    body = text.lstrip("\ufeff \t\r\n")
    if not body or body[0] in "[{":
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else None


def _sniffed_not_text(body: str) -> bool:
    """Whether the start of a file is JSON, markup or in a format other than the
    fallback (plain text)."""
    if body[0] == "{" or JSON_START.match(body) or MARKUP_START.match(body):
        return True
    sample = Sample(body)
    return any(not f.json and not f.fallback and f.sniff(sample) for f in IMPORT_FORMATS.entries())


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
    if _named_json(p) or _named_format(p):  # text named otherwise: refused by detect_file
        return None
    try:
        if not p.is_file():
            return None
        stamp = file_stamp(p.stat())
        if not STREAM_MIN_BYTES <= stamp[0] <= MAX_FILE_BYTES:
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
    if not body or _sniffed_not_text(body):
        return None
    first: list[str] = []
    count = 0
    problems: list[str] = []
    try:
        for paragraph, _length in iter_pieces(p, stamp=stamp):
            if len(first) < 2:
                first.append(paragraph)
            count += 1
            kind = prose_problem(paragraph)
            if kind:
                problems.append(kind)
    except FileChangedError as exc:     # cut or rewritten while it was recognised
        raise ParseError(path, str(exc)) from None
    except (UnicodeDecodeError, OSError):
        return None
    if count == 0:
        return None
    try:
        check_prose(problems, count)
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
                        warnings=warnings, mode=mode, stamp=stamp)


def _extensions() -> str:
    """The extensions a folder import takes, for a message: ".txt, .bib or .ris"."""
    names = [p.lstrip("*") for p in folder_patterns()]
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]


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
                raise ParseError(path, f"folder holds no {_extensions()} files")
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


def _named_json(path: Path) -> bool:
    """Whether the file's name says JSON (``.json``, ``.jsonl``, any case)."""
    return path.suffix.lower() in (".json", ".jsonl")


def _formats_named(path: Path) -> list:
    """The registered import formats whose file name patterns take ``path``'s suffix
    (any case); empty for a name without one."""
    suffix = path.suffix.lower()
    return [f for f in IMPORT_FORMATS.entries() if f"*{suffix}" in f.patterns] \
        if suffix else []


def _named_format(path: Path) -> str | None:
    """The label of the structured format the file's name says (``"RIS"`` for
    ``.ris``, ``"BibTeX"`` for ``.bib``, any case), from the registered formats' file
    name patterns; ``None`` when the name also fits plain text (``.txt``) or no format.
    """
    named = _formats_named(path)
    if not named or any(f.fallback for f in named):
        return None
    return named[0].label if len(named) == 1 else "/".join(f.label for f in named)


#: Where a record of a tagged or BibTeX format starts (a line), for a file whose name
#: says that format but whose first lines do not look like it (a header of notes before
#: the first entry: BibTeX ignores text between entries; RIS and MEDLINE readers skip
#: lines before the first record).
_RECORD_START = {
    "bibtex": re.compile(r"(?m)^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]"),
    "ris": re.compile(r"(?m)^TY  ?- ?\S"),
    "medline": re.compile(r"(?m)^PMID- ?\d"),
    "wos": re.compile(r"(?m)^PT [A-Z]"),
}


def _named_records(name, text: str) -> str | None:
    """The format a file's name says (``.bib``, ``.ris``, ``.nbib``, ``.ciw``) when a
    record of it starts on some line of ``text`` further in than the sniff looks, else
    ``None``."""
    if name == STDIN_NAME:
        return None
    named = _formats_named(Path(str(name)))
    if len(named) != 1 or named[0].fallback or named[0].json:
        return None
    start = _RECORD_START.get(named[0].name)
    return named[0].name if start is not None and start.search(text) else None


def _refuse_text_named_otherwise(label, name) -> None:
    """Refuse plain text in a file whose name says JSON or a structured format (a
    ``.ris`` of prose is not a paper; the user renames it to import it as text).

    Raises:
        ParseError: naming ``label`` (the file).
    """
    if name == STDIN_NAME:
        return
    path = Path(str(name))
    if _named_json(path):
        raise ParseError(label, f"named {path.suffix} but not JSON (it reads as plain "
                                "text); rename it .txt to import its paragraphs as "
                                "abstracts")
    fmt = _named_format(path)
    if fmt is not None:
        raise ParseError(label, f"named {path.suffix} but not {fmt}: no record in it "
                                f"starts as {fmt} does (it reads as plain text); rename "
                                "it .txt to import its paragraphs as abstracts")


def detect_file(path: str | os.PathLike, head: bytes = b"") -> Detected:
    """Read a file (or standard input, for ``-``), decode it and recognise its format.

    Args:
        path: the file, or :data:`STDIN`.
        head: for standard input, the bytes already read from it.
    Raises:
        ParseError: unreadable, binary, undecodable or in none of the formats, or
            plain text in a file named ``.json``/``.jsonl`` or for a structured format
            (``.bib``, ``.ris``, ``.nbib``, ``.ciw``); the reason is one line and the
            error names the file.
    """
    name, data = load_bytes(path, head)
    label = STDIN_NAME if name == STDIN_NAME else path
    try:
        text, encoding, notes = decode_noted(Path(str(name)), data)
    except ParseError as exc:
        raise ParseError(label, exc.reason) from None
    del data        # a 190 MB file's bytes: not kept while its text is parsed
    if name != STDIN_NAME and _named_json(Path(str(name))):
        scalar = _json_scalar(text)
        if scalar is not None:
            raise ParseError(label, "JSON that is neither a paperdesk export nor CSL-JSON "
                                    f"(a list of items with a type or title): it is {scalar}")
    try:
        fmt, document = _detect(text)
    except ParseError as exc:
        named = _named_records(name, text)
        if named is None:
            raise ParseError(label, exc.reason) from None
        fmt, document = named, None
    if fmt == "text":
        named = _named_records(name, text)
        if named is None:
            _refuse_text_named_otherwise(label, name)
        else:
            fmt = named
    return Detected(name, fmt, text.lstrip("\ufeff"), encoding, document, tuple(notes))
