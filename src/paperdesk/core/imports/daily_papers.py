"""Read "Daily Papers" abstract files into records. Pure: no database, no index, no Qt.

The format (see ``seeds/``): a header line naming the collection, a blank line, then one
abstract per paragraph; paragraphs are separated by one or more blank lines. There are no
titles, authors or ids. Plain text with one abstract per paragraph and no header is read
the same way. LF, CRLF and CR line ends are accepted.

**The header.** The first paragraph is the file's header (its collection name) when it
reads as a title or a date rather than a sentence (:func:`is_header`): one line of at
most :data:`HEADER_MAX_CHARS` characters and :data:`HEADER_MAX_WORDS` words (two CJK
characters count as one word: :func:`count_words`) that does not end in ``.``, ``!``,
``?`` or the CJK ``。``, ``！``, ``？``. "Daily Papers" and "cs.CV 2024-05-01" are
headers; a first abstract of one short sentence ("We study X.", "手法を提案します。") is
not, and stays an abstract.

**No blank lines.** A file whose body (after the header) is one paragraph of several
lines has no blank line between its abstracts (its first line is the header when it
passes :func:`is_header`, the next line does not start in lower case, and what follows
is one line or lines of long prose). When every line of it is long prose, at
least :data:`LINE_ABSTRACT_MIN_CHARS` characters (a CJK character counts as two;
hard-wrapped text has lines of 60 to 100), each line is one abstract; otherwise the paragraph is one abstract. Either way the
file's ``warnings`` say which reading was taken, so the user learns why.

**Encodings** (:func:`decode`): a byte-order mark decides (UTF-8, UTF-16 LE/BE, UTF-32
LE/BE); else UTF-8 when the bytes are valid UTF-8; else cp1252 when its reading looks Western
(:func:`_western_reading`; first, cp1254 when its reading looks Turkish:
:func:`_turkish_reading`) and fits within :data:`_WESTERN_MARGIN` of the best candidate's
language fit; else charset-normalizer's candidates
(https://github.com/jawah/charset_normalizer): among those with the least mess ("chaos"
within 0.01 of the best), the most coherent (language fit); the Western code page
cp1252 (a superset of Latin-1's printable characters) is taken whenever it is among
them and as coherent as the best, since short Latin-1 files otherwise come out as
cp1250/cp852/cp775/cp1258 ("não" as "năo"). When charset-normalizer finds nothing (a
short Japanese file) or names a Chinese, Japanese or Korean encoding among its
candidates, the CJK rule of :mod:`paperdesk.core.imports.cjk_encoding` decides between
GB18030, Big5, Shift_JIS, EUC-JP and CP949 by the characters each decoding gives (a GBK
file is not read as Korean); charset-normalizer's candidates stand when no CJK decoding
scores high enough.

**Mostly UTF-8** (:func:`decode_noted`): bytes that are UTF-8 but for stray ones (at
least one valid non-ASCII UTF-8 character, and never more than three bytes that are not
UTF-8 in a row: a legacy single-byte file has almost no valid UTF-8 pairs, and the
characters of a legacy CJK encoding are two bytes each, so its words give longer runs)
are read as UTF-8, also after a UTF-8 byte-order mark, each invalid byte as its Windows-1252 character (U+FFFD for
the five bytes cp1252 leaves undefined): a UTF-8 file with a stray Latin-1 "é" pasted
into it keeps its "é" and every other character, where reading it whole as a legacy
encoding would garble all of its non-ASCII text. A note says how many bytes and the
line of the first, so the user can check them.
"""

from __future__ import annotations

import codecs
import csv
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from charset_normalizer import from_bytes

from paperdesk.core.imports.abstract_limit import RAW_KEEP_CHARS, bounded, limit_abstract
from paperdesk.core.imports.cjk_encoding import cjk_decoding, is_cjk_codec
from paperdesk.core.text import normalize

__all__ = ["ParseError", "ParsedAbstract", "ParsedFile", "parse_text", "read_file",
           "parse_decoded", "decode", "decode_noted", "split_paragraphs", "is_prose", "prose_problem", "collect_files",
           "is_header", "count_words", "display_path", "missing_reason", "MAX_FILE_BYTES", "HEADER_MAX_CHARS",
           "HEADER_MAX_WORDS", "LINE_ABSTRACT_MIN_CHARS", "iter_paragraphs", "StreamedText",
           "STREAM_CHUNK_BYTES", "STREAM_MIN_BYTES", "iter_pieces", "FileChangedError", "file_stamp",
           "streamed_reading"]

#: Largest file accepted, in bytes (a day's dump is ~150 KB; this leaves room for years).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: A header (see :func:`is_header`) is one line of at most this many characters...
HEADER_MAX_CHARS = 200
#: ... and at most this many words.
HEADER_MAX_WORDS = 12
#: In a file without blank lines, each line is one abstract when every line is at least
#: this long (in characters); hard-wrapped prose has lines of 60 to 100.
LINE_ABSTRACT_MIN_CHARS = 150
#: A UTF-8 text file is read in pieces of this many bytes (:func:`iter_paragraphs`).
STREAM_CHUNK_BYTES = 1 << 20
#: Text files at least this large (bytes) are streamed (:class:`StreamedText`) instead of
#: being decoded whole; smaller ones are read whole (a day's dump is ~150 KB).
STREAM_MIN_BYTES = 1 << 20

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
# Markdown: a code fence; a heading; list items, task items, table rows, quotes.
_FENCE = re.compile(r"\s*(?:```|~~~)[\w+.-]*\s*")
_MD_HEADING = re.compile(r"#{1,6}\s+(?P<words>\S.*?)\s*#*")
_MD_LINE = re.compile(r"\s*(?:#{1,6}\s+\S.*|(?:[-*+]|\d{1,3}[.)])\s+\S.*"
                      r"|\|.*\||\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?|>\s?.*)")
# Source code: a statement on a line of its own.
_CODE_STATEMENT = re.compile(
    r"(?:import\s+[\w.]+(?:\s*,\s*[\w.]+)*(?:\s+as\s+\w+)?"
    r"|from\s+[\w.]+\s+import\s+[\w.*, ()]+"
    r"|(?:async\s+)?def\s+\w+\s*\(.*\)\s*(?:->.*)?:|class\s+\w+\s*(?:\(.*\))?\s*:"
    r"|#include\s*[<\"].*|#!/.*"
    r"|[A-Za-z_][\w.]*\(.*\)|.*[=(].*[;{]|[{}]+;?)")
#: A paragraph of one line is taken as a statement (:data:`_CODE_STATEMENT`) only when
#: it is at most this long (in characters): an abstract of one line is longer.
_STATEMENT_MAX_CHARS = 120
_CODE_LINE = re.compile(
    r"\s*(?:" + _CODE_STATEMENT.pattern +
    r"|(?:if|elif|else|for|while|with|try|except|finally)\b.*:"
    r"|(?:return|raise|pass|break|continue)\b.*|//.*|/\*.*|\*/)\s*")


class ParseError(ValueError):
    """A file cannot be read as an abstract file.

    Attributes:
        path: the file, as given.
        reason: a one-line, user-facing explanation (no file name in it).
    """

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = display_path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


@dataclass(frozen=True)
class ParsedAbstract:
    """One abstract from a file.

    Attributes:
        position: 1-based paragraph number among the file's abstracts (the header is not
            counted).
        abstract: normalised text (see :func:`paperdesk.core.text.normalize`), at most
            :data:`~paperdesk.core.imports.abstract_limit.MAX_ABSTRACT_CHARS` characters.
        cut_from: when the paragraph was longer and was cut
            (:func:`~paperdesk.core.imports.abstract_limit.limit_abstract`), its length
            in characters (see :func:`~paperdesk.core.imports.abstract_limit.cut_note`),
            else ``None``.
    """

    position: int
    abstract: str
    cut_from: int | None = None


@dataclass
class ParsedFile:
    """The content of one abstract file.

    Attributes:
        path: absolute path of the file.
        header: the collection name from the first line (the file's stem if it has none).
        encoding: the encoding the bytes were decoded with, e.g. ``"utf-8"``.
        abstracts: the abstracts in file order.
        warnings: one line per thing the user should know about how the file was read
            (no blank lines between abstracts), without the file name.
    """

    path: Path
    header: str
    encoding: str
    abstracts: list[ParsedAbstract] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def display_path(path: str | os.PathLike) -> str:
    """A path as text that can be shown, printed and stored (UTF-8 clean).

    A file name with bytes that are not UTF-8 reaches Python with those bytes as lone
    surrogates (PEP 383, ``os.fsdecode``); printing or storing such a string fails. Here
    each such byte is written as a backslash escape (``bad\\xff.txt``), so the name stays
    readable and two different names stay different.

    Args:
        path: a path or string (possibly with surrogate escapes).
    Returns:
        The text.
    """
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def missing_reason(path: Path) -> str:
    """Why a path that is not a regular file cannot be read, in a few words: ``"broken
    symbolic link (to missing.bib)"``, ``"no such file"`` or ``"not a regular file"``.

    Args:
        path: a path that is not a regular file.
    Returns:
        The reason.
    """
    if path.is_symlink() and not path.exists():
        try:
            target = display_path(os.readlink(path))
        except OSError:
            return "broken symbolic link"
        return f"broken symbolic link (to {target}, which does not exist)"
    return "no such file" if not path.exists() else "not a regular file"


def split_paragraphs(text: str) -> list[str]:
    """Return the non-empty paragraphs of decoded text (blank lines separate them), each
    stripped but with its line breaks."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    return [p for p in (q.strip() for q in _PARAGRAPH_SPLIT_RE.split(text)) if p]


def is_prose(paragraph: str) -> bool:
    """Whether a paragraph of a text file reads as prose (an abstract); the rule is
    :func:`prose_problem`'s.

    Args:
        paragraph: one paragraph (its lines joined by ``\\n``).
    Returns:
        ``True`` when :func:`prose_problem` finds nothing.
    """
    return prose_problem(paragraph) is None


def prose_problem(paragraph: str) -> str | None:
    """What a paragraph of a text file is instead of prose (an abstract), or ``None`` when
    it reads as prose. The rule, in this order:

    - ``"markup"``: a closing or empty HTML/XML tag (``</div>``, ``<br/>``), a comment or
      a declaration, or two or more opening tags (one ``<x y>`` is often maths);
    - ``"Markdown"``: a code fence line (```` ``` ```` or ``~~~``) anywhere; a paragraph
      of one line that is a heading (``#`` to ``######``, a space, at most
      :data:`HEADER_MAX_WORDS` words);
    - ``"source code"``: a paragraph of one line that is a statement (``import x``,
      ``from x import y``, ``def f(...):``, ``class X:``, a call ``f(x)``, an assignment
      or call ending in ``;`` or ``{``, a lone brace) of at most 120 characters; a paragraph of several lines indented at two or more depths,
      most of them indented (indentation-heavy);
    - of a paragraph of several lines, when at least 60% of the lines are structure, the
      most common kind of them (``"Markdown"``, ``"source code"`` or
      ``"key-value lines"``). Structure lines are: Markdown headings, list items
      (``-``, ``*``, ``+``, ``1.``, task items ``- [ ]``), table rows (``| a | b |``,
      ``|---|``) and quotes (``>``); source-code lines (``def``/``class``/``import``, a
      block opener ending in ``:``, a call, a line ending in ``;``, ``{`` or ``}``, ``//``
      comments, ``#include``, a shebang); key-value lines (``key: value``,
      ``key = value``, YAML list items, ``[sections]``, ``---``, ``#`` comments, tagged
      lines: EndNote's ``%A Name``, Web of Science's ``AU Name``, RIS-like ``AU  - Name``);
    - ``"key-value lines"``: a paragraph of one line that is ``key: value`` (or
      ``key = value``) with a value of fewer than six words, or a bare tag (``EF``,
      ``ER  -``);
    - ``"a table"``: several lines that all have the same number (one or more) of tabs or
      commas, or that all split into the same number (two or more) of fields as
      delimiter-separated rows (CSV with quoted fields, RFC 4180; delimiters ``,``, tab,
      ``;``, ``|``);
    - ``"digits and symbols rather than words"``: fewer than half of its characters
      other than white space are letters (``word12345 word678``, ``$$$ ### 123``).

    So prose with "(i) ... (ii)", URLs, "e.g.", numbers, ``$x^2$``, one ``<x>`` pair or
    a line that starts with ``- `` passes.

    Args:
        paragraph: one paragraph (its lines joined by ``\\n``).
    Returns:
        ``None`` for prose, else one of the kinds above.
    """
    text = paragraph.strip()
    if not text:
        return "empty"
    if _CLOSING.search(text) or len(_OPENING.findall(text)) >= 2:
        return "markup"
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if any(_FENCE.fullmatch(ln) for ln in lines):
        return "Markdown"
    if len(lines) == 1:
        line = lines[0].strip()
        heading = _MD_HEADING.fullmatch(line)
        if heading and count_words(heading.group("words")) <= HEADER_MAX_WORDS:
            return "Markdown"
        if len(line) <= _STATEMENT_MAX_CHARS and _CODE_STATEMENT.fullmatch(line):
            return "source code"
        m = _KV_LINE.fullmatch(line)
        if m and len((m.group("value") or "").split()) < 6:
            return "key-value lines"
        if _BARE_TAG.fullmatch(line):     # "EF", "ER  -" ending a record
            return "key-value lines"
    else:
        depths = [len(ln) - len(ln.lstrip(" \t")) for ln in lines]
        if (len(lines) >= 3 and len({d for d in depths if d >= 2}) >= 2
                and sum(d >= 2 for d in depths) * 2 >= len(lines)):
            return "source code"
        kinds = [_line_kind(ln) for ln in lines]
        structure = [k for k in kinds if k]
        if len(structure) >= 0.6 * len(lines):
            return max(("Markdown", "source code", "key-value lines"),
                       key=structure.count)
        if _is_table(lines):
            return "a table"
    if _letters(text) * 2 < _non_space(text):
        return "digits and symbols rather than words"
    return None


#: The characters ``str.isspace`` is true for among ASCII, and the ASCII letters
#: (``str.isalpha`` among ASCII): for counting ASCII text with ``bytes.translate``.
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())
_ASCII_LETTERS = bytes(c for c in range(128) if chr(c).isalpha())


def _non_space(text: str) -> int:
    """How many characters of ``text`` are not white space (``str.isspace``)."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data.translate(None, _ASCII_SPACE))
    return len(text) - sum(map(str.isspace, text))


def _letters(text: str) -> int:
    """How many characters of ``text`` are letters (``str.isalpha``)."""
    if text.isascii():
        data = text.encode("ascii")
        return len(data) - len(data.translate(None, _ASCII_LETTERS))
    return sum(map(str.isalpha, text))


def _line_kind(line: str) -> str | None:
    """The kind of structure one line of a paragraph of several lines is, or None."""
    if _MD_LINE.fullmatch(line):
        return "Markdown"
    if _CODE_LINE.fullmatch(line):
        return "source code"
    if _KV_LINE.fullmatch(line) or _LIST_LINE.fullmatch(line):
        return "key-value lines"
    return None


def _is_table(lines: list[str]) -> bool:
    """Whether lines are rows of a table (see :func:`prose_problem`)."""
    for sep in ("\t", ","):
        counts = {ln.count(sep) for ln in lines}
        if len(counts) == 1 and counts != {0}:
            return True
    for sep in (",", "\t", ";", "|"):
        if not all(sep in ln for ln in lines):
            continue
        try:
            widths = {len(row) for row in csv.reader(lines, delimiter=sep)}
        except csv.Error:
            continue
        if len(widths) == 1 and widths != {1}:
            return True
    return False


#: What ends a sentence: the Latin ``.``, ``!``, ``?`` and the CJK full-width ``。``,
#: ``！``, ``？``, ``．`` (Japanese and Chinese write no space after them).
_SENTENCE_END = (".", "!", "?", "\u3002", "\uff01", "\uff1f", "\uff0e")
#: Closing quotes and brackets a sentence end may stand before, Latin and CJK
#: (``」``, ``』``, ``）``, ``】``).
_CLOSERS = "\"')]}\u201d\u2019\u300d\u300f\uff09\u3011\u3009\u300b"
#: CJK characters per word when counting words of text without spaces: Japanese and
#: Chinese words average about two characters.
CJK_CHARS_PER_WORD = 2
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
                  r"\uff66-\uff9f\u3005\u30fc]")


def count_words(text: str) -> int:
    """The number of words in text, CJK included: the runs of characters between white
    space, where every :data:`CJK_CHARS_PER_WORD` CJK characters (Han, kana; rounded up,
    per run) count as one word, since CJK text has no spaces between words. "cs.CV
    2024-05-01" is 2 words, "毎日の論文" 3.

    Args:
        text: any text.
    Returns:
        The count (0 for blank text).
    """
    words = 0
    for token in text.split():
        cjk = len(_CJK.findall(token))
        rest = _CJK.sub(" ", token).split()
        words += -(-cjk // CJK_CHARS_PER_WORD) + len(rest)
    return words


def is_header(paragraph: str) -> bool:
    """Whether a file's first paragraph is its header (a title or a date), not an
    abstract: one line of at most :data:`HEADER_MAX_CHARS` characters and
    :data:`HEADER_MAX_WORDS` words (:func:`count_words`: two CJK characters make a word)
    that does not end like a sentence (``.``, ``!``, ``?`` or the CJK ``。``, ``！``,
    ``？``, ``．``, also before a closing quote or bracket).

    Args:
        paragraph: the file's first paragraph.
    Returns:
        ``True`` for a header.
    """
    text = paragraph.strip()
    if not text or "\n" in text or len(text) > HEADER_MAX_CHARS:
        return False
    if count_words(text) > HEADER_MAX_WORDS:
        return False
    return not text.rstrip(_CLOSERS).endswith(_SENTENCE_END)


def _line_length(line: str) -> int:
    """A line's length for :data:`LINE_ABSTRACT_MIN_CHARS`: a CJK character counts as
    two (its width on screen; it carries about as much as two Latin letters or more)."""
    return len(line) + len(_CJK.findall(line))


def _long_lines(lines: list[str]) -> bool:
    return len(lines) > 1 and all(_line_length(ln) >= LINE_ABSTRACT_MIN_CHARS
                                  for ln in lines)


def _read_paragraphs(text: str, default_header: str) -> tuple[str, list[str], list[str]]:
    """``(header, paragraphs, warnings)`` by the rules in the module docstring."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    paragraphs = [p for p in (q.strip() for q in _PARAGRAPH_SPLIT_RE.split(text)) if p]
    header = default_header
    warnings: list[str] = []
    if paragraphs and is_header(paragraphs[0]):
        header = normalize(paragraphs.pop(0))
    elif len(paragraphs) == 1 and "\n" in paragraphs[0]:
        # No blank line at all: a header line right above the text ("Daily Papers")
        # counts only when what follows starts a sentence and is not hard-wrapped (one
        # line, or lines of long prose), else "We propose a method for image" would be.
        first, _, rest = paragraphs[0].partition("\n")
        after = [ln.strip() for ln in rest.split("\n") if ln.strip()]
        if (is_header(first) and not after[0][:1].islower()
                and (len(after) == 1 or _long_lines(after))):
            header = normalize(first)
            paragraphs = ["\n".join(after)]
    if len(paragraphs) == 1 and "\n" in paragraphs[0]:
        lines = [ln.strip() for ln in paragraphs[0].split("\n") if ln.strip()]
        if _long_lines(lines):
            paragraphs = lines
            warnings.append(_LINES_READ.format(len(lines)))
        else:
            warnings.append(_ONE_READ.format(len(lines)))
    return header, paragraphs, warnings


def parse_text(text: str, default_header: str = "") -> tuple[str, list[str]]:
    """Split decoded file content into a header and normalised abstracts.

    The header rule is :func:`is_header`, the reading of a file without blank lines is
    in the module docstring; ``default_header`` is returned when the file has no header.
    Empty paragraphs are dropped.

    Args:
        text: the whole file as a string; ``\\r\\n`` and ``\\r`` line ends are accepted.
        default_header: header to return when the file has none.
    Returns:
        ``(header, abstracts)``.
    """
    header, paragraphs, _warnings = _read_paragraphs(text, default_header)
    abstracts = [normalize(p) for p in paragraphs]
    return header, [a for a in abstracts if a]


#: Byte-order marks, longest first (UTF-32 LE starts with UTF-16 LE's).
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32-be", "utf-32"),
         (b"\xef\xbb\xbf", "utf-8", "utf-8"), (b"\xff\xfe", "utf-16-le", "utf-16"),
         (b"\xfe\xff", "utf-16-be", "utf-16"))
#: Candidates within this much of the least chaos count as equally clean.
_CHAOS_TOLERANCE = 0.01
#: The Western code pages preferred when as coherent as the best candidate.
_WESTERN = ("cp1252", "latin_1", "iso8859_15")


def decode(path: Path, data: bytes) -> tuple[str, str]:
    """Decode a file's bytes by the rule in the module docstring (a byte-order mark,
    else UTF-8, else mostly UTF-8, else charset-normalizer's cleanest and most coherent
    candidate, with cp1252 preferred when as coherent).

    Args:
        path: names the file in errors.
        data: its bytes.
    Returns:
        ``(text, encoding)``, e.g. ``("...", "utf-8")``, ``("...", "cp1252")``; the text
        has no byte-order mark. :func:`decode_noted` also gives the note on bytes that
        were not UTF-8.
    Raises:
        ParseError: binary (NUL bytes without a UTF-16/32 byte-order mark), a byte-order
            mark the rest does not fit, or no encoding fits.
    """
    text, encoding, _notes = _decode(path, data)
    return text, encoding


def decode_noted(path: Path, data: bytes) -> tuple[str, str, list[str]]:
    """:func:`decode`, with the notes the user should see about how the bytes were read.

    Args:
        path: names the file in errors.
        data: its bytes.
    Returns:
        ``(text, encoding, notes)``; ``notes`` is empty unless the file was mostly UTF-8
        (module docstring), then one line such as ``"3 bytes are not UTF-8 (the first
        on line 12); each was read as a Windows-1252 character"``.
    Raises:
        ParseError: as :func:`decode`.
    """
    return _decode(path, data)


#: Mostly UTF-8: no more than this many invalid bytes one after the other.
_STRAY_RUN_MAX = 3
#: A run of bytes that were not UTF-8, as ``surrogateescape`` decodes them (PEP 383).
_ESCAPED = re.compile("[\udc80-\udcff]+")
#: Characters decoded from a valid multi-byte UTF-8 sequence (not escaped bytes).
_WIDE = re.compile("[^\x00-\x7f\udc80-\udcff]")


def _mostly_utf8(data: bytes) -> tuple[str, str, list[str]] | None:
    """The mostly-UTF-8 reading of bytes that are not valid UTF-8 (module docstring),
    or None when they are not mostly UTF-8."""
    escaped = data.decode("utf-8", "surrogateescape")
    runs = list(_ESCAPED.finditer(escaped))
    bad = sum(len(m.group()) for m in runs)
    wide = sum(1 for _ in _WIDE.finditer(escaped))
    if not runs or not wide or max(len(m.group()) for m in runs) > _STRAY_RUN_MAX:
        return None     # a legacy encoding's bytes (CJK ones make some valid UTF-8 pairs)
    if bad >= wide:
        # As many stray bytes as UTF-8 characters or more: a short Chinese or Japanese text in a
        # legacy encoding, where a few byte pairs are valid UTF-8 by chance (a tester's
        # one-sentence Shift_JIS and Big5 files were read as UTF-8 with stray bytes),
        # when such an encoding reads it whole.
        found = _best_legacy(data)
        if found is not None and is_cjk_codec(found[1]):
            return None
    line = escaped.count("\n", 0, runs[0].start()) + 1
    text = _ESCAPED.sub(lambda m: bytes(ord(c) - 0xDC00 for c in m.group())
                        .decode("cp1252", "replace"), escaped)
    many = "byte is" if bad == 1 else "bytes are"
    return text, "utf-8", [f"{bad} {many} not UTF-8 (the first on line {line}); each "
                           "was read as a Windows-1252 character"]


def _decode(path: Path, data: bytes) -> tuple[str, str, list[str]]:
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec), name, []
            except UnicodeDecodeError as exc:
                mostly = _mostly_utf8(data[len(bom):]) if codec == "utf-8" else None
                if mostly is not None:
                    return mostly
                raise ParseError(path, f"starts with a {name.upper()} byte-order mark but "
                                       f"is not {name.upper()} (byte {exc.start + len(bom)})"
                                 ) from None
    if b"\x00" in data[:8192]:
        raise ParseError(path, "not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8"), "utf-8", []
    except UnicodeDecodeError:
        pass
    mostly = _mostly_utf8(data)
    if mostly is not None:
        return mostly
    found = _best_legacy(data)
    if found is None:
        raise ParseError(path, "cannot tell the text encoding (not UTF-8 and no other fits)")
    return (*found, [])


#: Characters a Western (cp1252) text has beside ASCII: the Latin-1 letters, the
#: punctuation, signs and spaces of Latin-1 and cp1252 (quotes, dashes, €, ©, °, µ, ...).
_WESTERN_CHARS = re.compile(
    "[\u00a0-\u00bf\u00c0-\u00ff\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192"
    "\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a"
    "\u20ac\u2122]")
#: Characters of a cp1252 reading that Western text rarely has and other code pages'
#: letters become (Polish "ł" is "³", "ą" is "¹" in cp1250).
_WESTERN_UNLIKELY = frozenset("¹³¤¦¨¬¯´¸¾¼ˆ˜")
#: How much less coherent (charset-normalizer's language fit, 0-1) than the best
#: candidate a plausible Western reading may be and still be taken.
_WESTERN_MARGIN = 0.15


def _western_reading(data: bytes) -> str | None:
    """``data`` read as cp1252 when it looks like Western text: every character beyond
    ASCII is a Latin-1 letter or a Western sign (:data:`_WESTERN_CHARS`, none of
    :data:`_WESTERN_UNLIKELY`), and never more than two such characters stand in a row
    (the two-byte characters of a legacy CJK encoding read as cp1252 give long runs);
    otherwise ``None``."""
    text = _strict(data, "cp1252")
    if text is None:
        return None
    run = 0
    for ch in text:
        if ch < "\x80":
            run = 0
            continue
        if ch in _WESTERN_UNLIKELY or not _WESTERN_CHARS.match(ch):
            return None
        run += 1
        if run > 2:
            return None
    return text


#: The letters of the Turkish alphabet beyond ASCII (with the circumflexed vowels of
#: loanwords), and those of them cp1254 has where cp1252 has Icelandic letters: 0xD0,
#: 0xDD, 0xDE, 0xF0, 0xFD, 0xFE are Ğ İ Ş ğ ı ş in cp1254, Ð Ý Þ ð ý þ in cp1252.
_TURKISH_LETTERS = frozenset("çÇğĞıİöÖşŞüÜâÂîÎûÛ")
_TURKISH_ONLY = frozenset("ğĞıİşŞ")
#: Fewest of :data:`_TURKISH_ONLY` in a text read as cp1254.
_TURKISH_MIN = 2


def _turkish_reading(data: bytes) -> str | None:
    """``data`` read as cp1254 (Turkish Windows) when it looks Turkish: every letter
    beyond ASCII is a letter of the Turkish alphabet (:data:`_TURKISH_LETTERS`: no "é",
    "á", "æ", "ä", "ß" ... of the Western languages, no run of the letters a CJK or
    Cyrillic code page's bytes give), every other character beyond ASCII a Western sign
    (:data:`_WESTERN_CHARS`, none of :data:`_WESTERN_UNLIKELY`), and at least
    :data:`_TURKISH_MIN` of "ğ ş ı İ Ğ Ş", which cp1252 reads as the Icelandic "ð þ ý Ý Ð
    Þ" (Icelandic has "á", "é", "ó", "æ" beside them, so it never passes); otherwise
    ``None``. Checked before the Western reading, which took "çalışma" as "çalýþma"."""
    text = _strict(data, "cp1254")
    if text is None:
        return None
    chars = set(text)             # the distinct characters (in C: 0.1 s for 10 MB)
    for ch in chars:
        if ch < "\x80" or ch in _TURKISH_LETTERS:
            continue
        if ch.isalpha() or not _WESTERN_CHARS.match(ch) or ch in _WESTERN_UNLIKELY:
            return None
    only = sum(text.count(ch) for ch in _TURKISH_ONLY & chars)
    return text if only >= _TURKISH_MIN else None


def _best_legacy(data: bytes) -> tuple[str, str] | None:
    """The decoding of bytes that are not UTF-8 (rule: module docstring), or None."""
    turkish = _turkish_reading(data)
    if turkish is not None:
        return turkish, "cp1254"
    matches = [m for m in from_bytes(data) if m.encoding]
    western = _western_reading(data)
    if western is not None:
        # English or Western European text with a few accented words: charset-
        # normalizer's language fit is unreliable there (an English abstract with
        # "café" and "Zürich" came out as cp775, a Latin-1 file as Big5-HKSCS).
        fits = [m.coherence for m in matches]
        ours = [m.coherence for m in matches if m.encoding in _WESTERN
                or any(e in _WESTERN for e in m.could_be_from_charset)]
        if not fits or (ours and max(ours) >= max(fits) - _WESTERN_MARGIN) or not ours:
            return western, "cp1252"
    if not matches or any(is_cjk_codec(m.encoding) for m in matches):
        found = cjk_decoding(data)
        if found is not None or not matches:
            return found
    least = min(m.chaos for m in matches)
    clean = [m for m in matches if m.chaos <= least + _CHAOS_TOLERANCE]
    best = max(clean, key=lambda m: m.coherence)
    for m in clean:
        if (m.coherence >= best.coherence
                and any(e in _WESTERN for e in (m.encoding, *m.could_be_from_charset))):
            text = _strict(data, "cp1252")
            if text is not None:
                return text, "cp1252"
            return data.decode("latin-1"), "latin-1"
    return str(best), best.encoding


def _strict(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


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
            raise ParseError(path, missing_reason(p))
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ParseError(path, f"file too large ({size} bytes; limit {MAX_FILE_BYTES})")
        data = p.read_bytes()
    except OSError as exc:
        raise ParseError(path, f"cannot read file ({exc.strerror or exc})") from exc
    if not data.strip():
        raise ParseError(path, "file is empty")
    text, encoding, notes = _decode(p, data)
    parsed = parse_decoded(p.resolve(), text, encoding, label=path)
    parsed.warnings[:0] = notes
    return parsed


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
    header, paragraphs, warnings = _read_paragraphs(
        text, default_header=display_path(name.stem or str(path)))
    abstracts = [a for a in map(_limited, paragraphs) if a[0]]
    if not abstracts:
        raise ParseError(label or path, "no abstracts found (expected a header line, a "
                                        "blank line, then one abstract per paragraph)")
    return ParsedFile(path=path, header=header, encoding=encoding,
                      abstracts=[ParsedAbstract(i, a, was)
                                 for i, (a, was) in enumerate(abstracts, 1)],
                      warnings=warnings)


def _limited(paragraph: str, length: int = 0) -> tuple[str, int | None]:
    """A paragraph (or the first characters of one ``length`` long) as the abstract a
    paper keeps, and its length when it was cut
    (:func:`~paperdesk.core.imports.abstract_limit.limit_abstract`)."""
    prefix, whole = bounded(paragraph)
    return limit_abstract(normalize(prefix), max(whole, length))


def iter_paragraphs(path: str | os.PathLike) -> Iterator[str]:
    """Yield the non-empty paragraphs of a UTF-8 text file, reading it
    :data:`STREAM_CHUNK_BYTES` at a time: the same paragraphs, in the same order, as
    :func:`split_paragraphs` of the whole decoded file (blank lines separate them; each is
    stripped but keeps its line breaks; CRLF and CR line ends become LF, also when a CRLF
    is cut between two pieces; a leading byte-order mark is dropped). Memory: one piece
    plus the paragraph being read (:func:`iter_pieces` bounds that).

    Args:
        path: the file.
    Yields:
        Paragraphs.
    Raises:
        UnicodeDecodeError: the bytes are not UTF-8 (paragraphs before the bad byte have
            been yielded).
        OSError: the file cannot be read.
    """
    for paragraph, _length in iter_pieces(path, keep=None):
        yield paragraph


#: What separates the lines of a file (after CRLF and CR became LF).
_LINE_SPLIT_RE = re.compile(r"\n")


def _separator_start(text: str) -> str:
    """What of ``text``'s end may begin a paragraph break that the next piece of the file
    completes: ``"\\n"`` when only horizontal white space follows its last line end,
    else ``""``."""
    last = text.rfind("\n")
    if last >= 0 and not text[last + 1:].strip(" \t\f\v\u00a0"):
        return "\n"
    return ""


class FileChangedError(OSError):
    """A file read in pieces changed size while it was read (:func:`iter_pieces`); the
    message says how (one line, without the file's name)."""


def file_stamp(st: os.stat_result) -> tuple[int, int]:
    """``(size in bytes, modification time in ns)`` of a file's ``stat``: what a file
    read twice must keep (:class:`StreamedText`)."""
    return st.st_size, st.st_mtime_ns


def _check_unchanged(opened: tuple[int, int], read: int, now: tuple[int, int]) -> None:
    """Raise :class:`FileChangedError` unless ``read`` bytes are the whole file, as it
    was when opened (``opened``: size and mtime) and as it is at the end (``now``)."""
    if read == opened[0] and opened == now:
        return
    raise FileChangedError(f"it changed while it was imported ({opened[0]:,} bytes when "
                           f"opened, {read:,} read, {now[0]:,} now)")


def iter_pieces(path: str | os.PathLike, keep: int | None = RAW_KEEP_CHARS,
                split: re.Pattern = _PARAGRAPH_SPLIT_RE,
                stamp: tuple[int, int] | None = None) -> Iterator[tuple[str, int]]:
    """Yield the non-empty pieces (paragraphs, or lines with ``split`` =
    ``re.compile(r"\\n")``) of a UTF-8 text file with their lengths, reading it
    :data:`STREAM_CHUNK_BYTES` at a time, never holding more than ``keep`` characters
    of one piece: past them the rest of a piece is only counted, so that a file of one
    190 MB paragraph is read in the memory of one chunk (see
    :mod:`paperdesk.core.imports.abstract_limit`).

    Pieces are stripped (a paragraph keeps its line breaks); CRLF and CR line ends
    become LF, also when a CRLF is cut between two chunks; a leading byte-order mark is
    dropped.

    Args:
        path: the file.
        keep: characters of a piece kept at most (``None``: all).
        split: what separates pieces (default: blank lines).
        stamp: ``(size, mtime_ns)`` the file must have (as when it was read before),
            or ``None``.
    Yields:
        ``(piece, length)``: the piece (its first ``keep`` characters when it is
        longer, then not stripped at the end) and its length in characters (counted
        without line-end conversion of what was not kept, so about the length in
        the file).
    Raises:
        UnicodeDecodeError: the bytes are not UTF-8 (pieces before the bad byte have
            been yielded).
        FileChangedError: the file was cut or rewritten while it was read (fewer bytes
            read than it had when opened, or another size or modification time at the
            end: its last piece may be cut, so it is not yielded; the pieces before it
            have been), or it is not as ``stamp`` says (nothing yielded).
        OSError: the file cannot be read.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    rest = ""
    started = False
    over: str | None = None     # the kept start of a piece longer than ``keep``
    dropped = 0                 # characters of that piece not kept
    with open(path, "rb") as fh:
        opened = file_stamp(os.fstat(fh.fileno()))
        if stamp is not None and opened != tuple(stamp):
            raise FileChangedError(f"it changed since it was first read ({stamp[0]:,} "
                                   f"bytes then, {opened[0]:,} now)")
        read = 0
        while True:
            data = fh.read(STREAM_CHUNK_BYTES)
            read += len(data)
            final = not data
            if final:
                _check_unchanged(opened, read, file_stamp(os.fstat(fh.fileno())))
            text = decoder.decode(data, final=final)
            if not started and text:
                text = text.lstrip("\ufeff")
                started = bool(text)
            text = rest + text
            hold = ""
            if not final and text.endswith("\r"):    # maybe the first half of a CRLF
                text, hold = text[:-1], "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            if over is not None:        # counting the rest of a long piece
                end = split.search(text)
                if end is None and not final:
                    rest = _separator_start(text)
                    dropped += len(text) - len(rest)
                    rest += hold
                    continue
                dropped += len((text if end is None else text[:end.start()]).rstrip())
                yield over.rstrip(), len(over) + dropped
                over, dropped = None, 0
                if end is None:
                    return
                text = text[end.start():]
            parts = split.split(text)
            rest = "" if final else parts.pop()
            for part in parts:
                part = part.strip()
                if part:
                    yield (part if keep is None else part[:keep]), len(part)
            if keep is not None and len(rest) > keep:
                rest = rest.lstrip()
            if keep is not None and len(rest) > keep:
                over, tail = rest[:keep], rest[keep:]
                # a line end that may begin a paragraph break (also one among the kept)
                rest = _separator_start(rest)
                dropped = max(0, len(tail) - len(rest))
            rest += hold
            if final:
                return


def streamed_reading(path: str | os.PathLike, first: list[str]
                     ) -> tuple[str, str | None, int, list[str]]:
    """How a large UTF-8 file of one or two paragraphs is read in pieces: the rules of
    :func:`parse_decoded` for the header and for a file without blank lines (module
    docstring), decided from its first paragraphs and one pass over its lines (each
    held at most :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS`
    characters long).

    Args:
        path: the file.
        first: its paragraphs (one or two; an over-long one only its start, from
            :func:`iter_pieces`).
    Returns:
        ``(mode, header, units, warnings)``: ``mode`` as :class:`StreamedText`'s;
        ``header`` the normalised header, or ``None`` when the file has none; ``units``
        the paragraphs or lines in the file (header included); ``warnings`` as
        :func:`parse_decoded` gives them.
    Raises:
        UnicodeDecodeError, OSError: as :func:`iter_pieces`.
    """
    count = 0
    line1 = line2 = ""
    long_after_first = True
    for line, _length in iter_pieces(path, split=_LINE_SPLIT_RE):
        count += 1
        if count == 1:
            line1 = line
            continue
        if count == 2:
            line2 = line
        long_after_first = long_after_first and _line_length(line) >= LINE_ABSTRACT_MIN_CHARS
    after = count - 1               # lines after the first
    several_after = after > 1 and long_after_first
    if len(first) == 2 and is_header(first[0]):
        if after > 1:               # the second paragraph has several lines
            if several_after:
                return "lines", normalize(first[0]), count, [_LINES_READ.format(after)]
            return "paragraphs", normalize(first[0]), len(first), [_ONE_READ.format(after)]
        return "paragraphs", normalize(first[0]), len(first), []
    if len(first) == 1 and count > 1:
        if is_header(line1) and not line2[:1].islower() and (after == 1 or several_after):
            return "lines", normalize(line1), count, (
                [_LINES_READ.format(after)] if after > 1 else [])
        if long_after_first and _line_length(line1) >= LINE_ABSTRACT_MIN_CHARS:
            return "lines", None, count, [_LINES_READ.format(count)]
        return "paragraphs", None, 1, [_ONE_READ.format(count)]
    return "paragraphs", None, len(first), []


_LINES_READ = ("no blank lines between abstracts: read as one abstract per line ({} lines "
               "of long prose)")
_ONE_READ = ("no blank lines between abstracts: its {} lines were read as one abstract "
             "(separate abstracts with a blank line)")


@dataclass
class StreamedText:
    """A large text file in the Daily Papers format (or plain text), recognised by
    reading it once in pieces (:func:`paperdesk.core.imports.detect.detect_streamed`)
    and read again, in pieces, while it is stored: its abstracts are never all in
    memory at once.

    The abstracts are those :func:`parse_decoded` would give, the rules for a file
    without blank lines (module docstring) included: such a file is read line by line
    (``mode`` ``"lines"``) when each line is one abstract. A paragraph (or line) longer
    than :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters is
    never held whole (:func:`iter_pieces`); every abstract is cut at
    :data:`~paperdesk.core.imports.abstract_limit.MAX_ABSTRACT_CHARS` characters
    (``ParsedAbstract.cut_from`` says so).

    Attributes:
        path: absolute path of the file.
        header: the collection name (first paragraph when :func:`is_header`, else the
            file's stem).
        encoding: ``"utf-8"``.
        paragraphs: paragraphs (lines, in ``"lines"`` mode) in the file, the header
            included when it has one (an upper bound of the abstracts, for progress).
        has_header: whether the first paragraph (line) is the header.
        warnings: how a file without blank lines was read (as :class:`ParsedFile`'s).
        mode: ``"paragraphs"`` (one abstract per paragraph) or ``"lines"`` (one per
            line).
        stamp: ``(size in bytes, mtime in ns)`` of the file when it was recognised, or
            ``None``: :meth:`abstracts` refuses a file that is no longer so (cut,
            appended to or rewritten in place between the two readings).
    """

    path: Path
    header: str
    encoding: str
    paragraphs: int
    has_header: bool
    warnings: list[str] = field(default_factory=list)
    mode: str = "paragraphs"
    stamp: tuple[int, int] | None = None

    @property
    def estimated_abstracts(self) -> int:
        """Abstracts expected (paragraphs less the header; a paragraph that normalises
        to nothing is not one)."""
        return self.paragraphs - int(self.has_header)

    def abstracts(self) -> Iterator[ParsedAbstract]:
        """Read the file again and yield its abstracts in file order, numbered from 1
        (the header not counted), normalised as :func:`parse_decoded` does.

        Raises:
            UnicodeDecodeError, OSError: the file changed or became unreadable since it
                was recognised.
        """
        pieces = iter_pieces(self.path, split=_LINE_SPLIT_RE if self.mode == "lines"
                             else _PARAGRAPH_SPLIT_RE, stamp=self.stamp)
        if self.has_header:
            next(pieces, None)
        position = 0
        for piece, length in pieces:
            abstract, was = _limited(piece, length)
            if abstract:
                position += 1
                yield ParsedAbstract(position, abstract, was)


def collect_files(paths: list[str | os.PathLike],
                  patterns: tuple[str, ...] = ("*.txt",)) -> list[Path]:
    """Expand a mix of files and folders into the files to import.

    Files are taken as given (any extension). Folders are searched recursively for files
    matching any of ``patterns``, sorted by path; hidden files and folders are skipped, and
    so are paperdesk library folders inside them (a folder holding ``library.db``: its
    index, term table and checksums are no abstracts; importing a folder that held the
    open library's own folder rejected each of those files). A path that does not
    exist, a broken symbolic link in a folder and a folder with no matching file are
    kept, so that reading them reports the problem.

    Args:
        paths: files and/or folders.
        patterns: globs for files inside folders.
    Returns:
        Paths in a stable order, without repeats.
    """
    from paperdesk.core.manager import DB_NAME

    out: dict[Path, None] = {}
    libraries: dict[Path, bool] = {}      # folder -> it is a library folder

    def in_library(f: Path, top: Path) -> bool:
        folder = f.parent
        while True:
            known = libraries.get(folder)
            if known is None:
                known = libraries[folder] = (folder / DB_NAME).is_file()
            if known:
                return True
            if folder == top or folder == folder.parent:
                return False
            folder = folder.parent

    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = False
            for f in sorted(f for pattern in patterns for f in p.rglob(pattern)):
                rel = f.relative_to(p).parts
                if any(part.startswith(".") for part in rel) or in_library(f, p):
                    continue
                # a broken symbolic link is kept, so that reading it says so
                if f.is_file() or (f.is_symlink() and not f.exists()):
                    out.setdefault(f, None)
                    found = True
            if not found:
                out.setdefault(p, None)
        else:
            out.setdefault(p, None)
    return list(out)
