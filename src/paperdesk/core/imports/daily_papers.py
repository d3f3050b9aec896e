"""Read "Daily Papers" abstract files into records. Pure: no database, no index, no Qt.

The format (see ``seeds/``): a header line naming the collection, a blank line, then one
abstract per paragraph; paragraphs are separated by one or more blank lines. There are no
titles, authors or ids. Files may be UTF-8 with or without a byte-order mark, with LF or
CRLF line ends; other encodings are detected with charset-normalizer.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from charset_normalizer import from_bytes

from paperdesk.core.text import normalize

__all__ = ["ParseError", "ParsedAbstract", "ParsedFile", "parse_text", "read_file",
           "parse_decoded", "decode", "split_paragraphs", "is_prose", "collect_files",
           "MAX_FILE_BYTES", "HEADER_MAX_CHARS"]

#: Largest file accepted, in bytes (a day's dump is ~150 KB; this leaves room for years).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: A first paragraph that is one line of at most this many characters is the header.
HEADER_MAX_CHARS = 200

_PARAGRAPH_SPLIT_RE = re.compile(r"\n[ \t\f\v\u00a0]*\n\s*")
# Markup: a closing tag, a comment or a declaration, or two or more opening tags
# (``<p>``, ``<a href="x">``, ``<br/>``); one "<" ... ">" pair is often maths.
_CLOSING = re.compile(r"</[A-Za-z][\w:-]*\s*>|<!--|<!DOCTYPE|<\?xml|<[A-Za-z][\w:-]*\s*/>",
                      re.IGNORECASE)
_OPENING = re.compile(r"<[A-Za-z][\w:-]*(?:\s+[\w:-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|"
                      r"[^\s<>\"']+))?)*\s*>")
_KV_LINE = re.compile(r"\s*(?:-\s+)?[A-Za-z_][\w.\-]*\s*[:=](?:\s+(?P<value>.*))?\s*")
_BARE_TAG = re.compile(r"[A-Z][A-Z0-9](  ?-)?|%[A-Z0-9]")
_LIST_LINE = re.compile(r"\s*-\s+\S.*|\s*\[[^\]]+\]\s*|\s*[#;].*|\s*---\s*|\s*\.\.\.\s*"
                        # tagged records: EndNote/refer "%A Name", RIS-like "AU  - x",
                        # Web of Science "AU Name" / "ER"
                        r"|%[A-Z0-9@!#$&()*+,\-./:;<=>?\[\]^_{|}~] .*|[A-Z][A-Z0-9]  ?-( .*)?"
                        r"|[A-Z][A-Z0-9]( \S.*)?")


class ParseError(ValueError):
    """A file cannot be read as an abstract file.

    Attributes:
        path: the file, as given.
        reason: a one-line, user-facing explanation (no file name in it).
    """

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


@dataclass(frozen=True)
class ParsedAbstract:
    """One abstract from a file.

    Attributes:
        position: 1-based paragraph number among the file's abstracts (the header is not
            counted).
        abstract: normalised text (see :func:`paperdesk.core.text.normalize`).
    """

    position: int
    abstract: str


@dataclass
class ParsedFile:
    """The content of one abstract file.

    Attributes:
        path: absolute path of the file.
        header: the collection name from the first line (the file's stem if it has none).
        encoding: the encoding the bytes were decoded with, e.g. ``"utf-8"``.
        abstracts: the abstracts in file order.
    """

    path: Path
    header: str
    encoding: str
    abstracts: list[ParsedAbstract] = field(default_factory=list)


def split_paragraphs(text: str) -> list[str]:
    """Return the non-empty paragraphs of decoded text (blank lines separate them), each
    stripped but with its line breaks."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    return [p for p in (q.strip() for q in _PARAGRAPH_SPLIT_RE.split(text)) if p]


def is_prose(paragraph: str) -> bool:
    """Whether a paragraph of a text file reads as prose (an abstract) rather than
    markup, key-value lines or a table. The rule:

    - no markup: no closing or empty HTML/XML tag (``</div>``, ``<br/>``), comment or
      declaration, and at most one opening tag (``<p>``: one ``<x y>`` is often maths);
    - not key-value lines: of a paragraph of several lines, fewer than 60% are
      ``key: value`` / ``key = value`` lines, YAML list items, ``[sections]``, ``---``,
      ``#`` comments or tagged lines (EndNote's ``%A Name``, Web of Science's
      ``AU Name``, RIS-like ``AU  - Name``); a paragraph of one line is key-value when
      it is ``key: value`` (or ``key = value``) with a value of fewer than six words, or
      a bare tag (``EF``, ``ER  -``);
    - not a table: not several lines with the same number (one or more) of tabs, or of
      commas, on every line;
    - mostly letters: at least half of its characters other than white space are letters.
    """
    text = paragraph.strip()
    if not text or _CLOSING.search(text) or len(_OPENING.findall(text)) >= 2:
        return False
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) == 1:
        m = _KV_LINE.fullmatch(lines[0])
        if m and len((m.group("value") or "").split()) < 6:
            return False
        if _BARE_TAG.fullmatch(lines[0].strip()):     # "EF", "ER  -" ending a record
            return False
    else:
        kv = sum(1 for ln in lines if _KV_LINE.fullmatch(ln) or _LIST_LINE.fullmatch(ln))
        if kv >= 0.6 * len(lines):
            return False
        for sep in ("\t", ","):
            counts = {ln.count(sep) for ln in lines}
            if len(counts) == 1 and counts != {0}:
                return False
    chars = [c for c in text if not c.isspace()]
    return sum(c.isalpha() for c in chars) >= 0.5 * len(chars)


def parse_text(text: str, default_header: str = "") -> tuple[str, list[str]]:
    """Split decoded file content into a header and normalised abstracts.

    The first paragraph is the header when it is a single line of at most
    :data:`HEADER_MAX_CHARS` characters; otherwise the file has no header and
    ``default_header`` is returned. Empty paragraphs are dropped.

    Args:
        text: the whole file as a string; ``\\r\\n`` and ``\\r`` line ends are accepted.
        default_header: header to return when the file has none.
    Returns:
        ``(header, abstracts)``.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    paragraphs = [p.strip() for p in _PARAGRAPH_SPLIT_RE.split(text)]
    paragraphs = [p for p in paragraphs if p]
    header = default_header
    if paragraphs and "\n" not in paragraphs[0] and len(paragraphs[0]) <= HEADER_MAX_CHARS:
        header = normalize(paragraphs.pop(0))
    abstracts = [normalize(p) for p in paragraphs]
    return header, [a for a in abstracts if a]


def decode(path: Path, data: bytes) -> tuple[str, str]:
    """Decode a file's bytes: UTF-8 (with or without a byte-order mark), else the
    encoding charset-normalizer finds best.

    Returns:
        ``(text, encoding)``.
    Raises:
        ParseError: binary (NUL bytes) or no encoding fits.
    """
    return _decode(path, data)


def _decode(path: Path, data: bytes) -> tuple[str, str]:
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ParseError(path, "not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = from_bytes(data).best()
    if best is None or best.encoding is None:
        raise ParseError(path, "cannot tell the text encoding (not UTF-8 and no other fits)")
    return str(best), best.encoding


def read_file(path: str | os.PathLike) -> ParsedFile:
    """Read and parse one abstract file.

    Args:
        path: a file path.
    Returns:
        The :class:`ParsedFile`.
    Raises:
        ParseError: the path is missing, is not a regular file, cannot be read, is larger
            than :data:`MAX_FILE_BYTES`, is binary, cannot be decoded, or holds no abstract.
    """
    p = Path(path)
    try:
        if p.is_dir():
            raise ParseError(path, "folder holds no .txt files")
        if not p.is_file():
            raise ParseError(path, "no such file" if not p.exists() else "not a regular file")
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ParseError(path, f"file too large ({size} bytes; limit {MAX_FILE_BYTES})")
        data = p.read_bytes()
    except OSError as exc:
        raise ParseError(path, f"cannot read file ({exc.strerror or exc})") from exc
    if not data.strip():
        raise ParseError(path, "file is empty")
    text, encoding = _decode(p, data)
    return parse_decoded(p.resolve(), text, encoding, label=path)


def parse_decoded(path: Path | str, text: str, encoding: str,
                  label: str | os.PathLike | None = None) -> ParsedFile:
    """Parse decoded text as an abstract file (header rule: :func:`parse_text`).

    Whether the file as a whole reads as prose is decided before
    (:func:`paperdesk.core.imports.detect.detect_text`); here every paragraph is kept,
    since an abstract may quote a tag or a formula.

    Args:
        path: the file's absolute path (or ``"<stdin>"``).
        text: its content.
        encoding: the encoding it was decoded with.
        label: the name errors give (default ``path``).
    Raises:
        ParseError: no abstract in it.
    """
    name = Path(str(path))
    header, abstracts = parse_text(text, default_header=name.stem or str(path))
    if not abstracts:
        raise ParseError(label or path, "no abstracts found (expected a header line, a "
                                        "blank line, then one abstract per paragraph)")
    return ParsedFile(path=path, header=header, encoding=encoding,
                      abstracts=[ParsedAbstract(i, a) for i, a in enumerate(abstracts, 1)])


def collect_files(paths: list[str | os.PathLike],
                  patterns: tuple[str, ...] = ("*.txt",)) -> list[Path]:
    """Expand a mix of files and folders into the files to import.

    Files are taken as given (any extension). Folders are searched recursively for files
    matching any of ``patterns``, sorted by path; hidden files and folders are skipped. A path that
    does not exist, and a folder with no matching file, are kept, so that reading them
    reports the problem.

    Args:
        paths: files and/or folders.
        patterns: globs for files inside folders.
    Returns:
        Paths in a stable order, without repeats.
    """
    out: dict[Path, None] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = False
            for f in sorted(f for pattern in patterns for f in p.rglob(pattern)):
                rel = f.relative_to(p).parts
                if f.is_file() and not any(part.startswith(".") for part in rel):
                    out.setdefault(f, None)
                    found = True
            if not found:
                out.setdefault(p, None)
        else:
            out.setdefault(p, None)
    return list(out)
