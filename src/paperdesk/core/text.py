"""Pure text helpers: normalisation, content hash, derived title, URL and arXiv-id extraction.

Nothing here touches the database, the index or Qt; every function is deterministic and is
used by parsing (at import), by the index (at indexing) and by the UI (to linkify URLs).
"""

from __future__ import annotations

import hashlib
import json
import sys
import re
import unicodedata

from paperdesk.core.cjk import HAN, HIRAGANA, KATAKANA, join_cjk_lines
from paperdesk.core.metadata import extract_dois
from paperdesk.core.models import Mentioned

__all__ = [
    "normalize",
    "replace_surrogates",
    "loads_json",
    "content_hash",
    "hash_form",
    "sha256_hex",
    "TYPOGRAPHIC_FOLDS",
    "derive_title",
    "extract_urls",
    "find_urls",
    "extract_arxiv_ids",
    "is_code_url",
    "mentioned_in",
    "CODE_HOSTS",
    "TITLE_MAX_CHARS",
    "BIDI_CONTROLS",
    "bidi_visible",
]

#: Target length of a derived title, in characters (the ellipsis is added on top).
TITLE_MAX_CHARS = 120

_WS_RE = re.compile(r"\s+")

#: The explicit directional embeddings, overrides and isolates (Unicode Standard Annex
#: #9, "Unicode Bidirectional Algorithm", section 2: LRE, RLE, PDF, LRO, RLO, LRI, RLI,
#: FSI, PDI). In text from a file they can reverse what is shown ("Trojan Source",
#: CVE-2021-42574). The implicit marks LRM, RLM and ALM stay: they cannot reorder text
#: beyond their neighbours.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI_TABLE = {ord(c): "\ufffd" for c in BIDI_CONTROLS}


def bidi_visible(text: str) -> str:
    """Return ``text`` for display with each explicit bidi control (:data:`BIDI_CONTROLS`)
    replaced by U+FFFD, so that a title or abstract cannot reverse itself or the text
    around it on screen, and the replacement shows that something was there.

    One character is replaced by one, so character offsets into the text (highlights,
    search hits, snippets) stay valid. The stored text is not changed.

    Args:
        text: text from a file (a title, an abstract, a snippet, a name).
    Returns:
        The text to show.
    """
    return text.translate(_BIDI_TABLE) if text else text


def normalize(text: str) -> str:
    """Normalise an abstract or query for storage and comparison.

    Applies Unicode NFC (UAX #15), turns every run of white space (including newlines,
    tabs and no-break spaces) into one ASCII space and strips both ends.

    Args:
        text: any string.
    Returns:
        The normalised string (may be empty).
    """
    # str.split() splits at the characters str.isspace() is true for, the same as the
    # regular expression \s+ (both use Py_UNICODE_ISSPACE), and is several times faster.
    return " ".join(unicodedata.normalize("NFC", text).split())


#: Typographic variants folded for the de-duplication key (:func:`hash_form`): each
#: character or TeX ligature -> the ASCII it is typed as. Longer keys are replaced first.
TYPOGRAPHIC_FOLDS: dict[str, str] = {
    # dashes: en and em dash are TeX's -- and --- (so decoders write them for those)
    "\u2010": "-", "\u2011": "-", "\u2212": "-",
    "\u2012": "--", "\u2013": "--", "\u2014": "---", "\u2015": "---",
    # quotes: TeX's `` and '' are curly double quotes; ` and ' single ones
    "``": '"', "''": '"', ",,": '"',
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"',
    "`": "'", "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    # TeX's inverted marks !` and ?`
    "!`": "!'", "?`": "?'", "\u00a1": "!'", "\u00bf": "?'",
    # ellipsis, and the Latin ligatures of text copied from PDFs
    "\u2026": "...", "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
    "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st",
}
_FOLD_RE = re.compile("|".join(re.escape(k) for k in
                               sorted(TYPOGRAPHIC_FOLDS, key=len, reverse=True)))


def hash_form(normalized_abstract: str) -> str:
    """The text :func:`content_hash` hashes: typographic variants folded to what they
    are typed as (:data:`TYPOGRAPHIC_FOLDS`: en/em dash -> ``--``/``---``, curly and TeX
    quotes -> ``"`` and ``'``, ``…`` -> ``...``, ligatures ﬁ -> fi), so that an abstract
    and a LaTeX decoding of it (``--`` read as –, ````` ``q'' ````` as “q”) are "the same
    normalised text". Never stored or shown.

    Args:
        normalized_abstract: the output of :func:`normalize` (no-break and other spaces
            are already single ASCII spaces there).
    Returns:
        The folded text (ASCII wherever a fold applies; other characters unchanged).
    """
    if (normalized_abstract.isascii() and "`" not in normalized_abstract
            and "''" not in normalized_abstract and ",," not in normalized_abstract):
        return normalized_abstract     # no fold applies (the check of every hash: fast)
    return _FOLD_RE.sub(lambda m: TYPOGRAPHIC_FOLDS[m.group(0)], normalized_abstract)


def content_hash(normalized_abstract: str) -> str:
    """Return the de-duplication key of an abstract.

    Args:
        normalized_abstract: the output of :func:`normalize`; hashing un-normalised text
            would make white-space variants of one abstract look different.
    Returns:
        The SHA-256 hex digest (64 lowercase hex characters) of the UTF-8 bytes of its
        :func:`hash_form`: abstracts that differ only in white space or typographic
        variants (dashes, quotes, ellipsis, ligatures) have one key. (Schema version 6
        introduced the folding; its migration recomputed the stored keys.)
    """
    return sha256_hex(hash_form(normalized_abstract))


def sha256_hex(text: str) -> str:
    """The SHA-256 hex digest (64 lowercase hex characters) of ``text``'s UTF-8 bytes, as
    it is (no folding: for keys that are not abstracts)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Words after which a full stop does not end a sentence.
_ABBREVIATIONS = {
    "e.g", "i.e", "et al", "al", "etc", "cf", "vs", "fig", "figs", "eq", "eqs", "sec",
    "ref", "refs", "no", "approx", "resp", "viz", "dr", "mr", "ms", "prof", "st", "incl",
}
# A sentence end: . ! or ? followed by white space and an upper-case letter, digit, quote
# or opening bracket; or a Chinese or Japanese full stop, exclamation or question mark
# (。！？ and the full-width ．, written without a space after them), or . ! ? right
# before a Han ideograph or kana (mixed typing), with the closing quotes or brackets
# after it and more text after those.
_CJK_LETTERS = HAN + HIRAGANA + KATAKANA
_CJK_CLOSERS = "”’」』）】〕》〉\"'"
_SENTENCE_END_RE = re.compile(
    r"[.!?](?=\s+[\"'(\[]?[A-Z0-9\u0391-\u03a9])"
    rf"|(?:[。！？．]+|[.!?](?=[{_CJK_LETTERS}]))[{_CJK_CLOSERS}]*(?=\S)")
_LETTER_RE = re.compile(r"[^\W\d_]")
#: The full stops a title drops at its end.
_FULL_STOPS = (".", "。", "．")


def _first_sentence(text: str) -> str:
    for match in _SENTENCE_END_RE.finditer(text):
        end = match.start()
        before = text[:end]
        if text[end] in "。！？．" or not text[end + 1:end + 2].isspace():
            # a CJK sentence end (with its closing quotes): not before any letter
            if _LETTER_RE.search(before) is None:
                continue
            return text[:match.end()]
        word = before.rsplit(" ", 1)[-1].lower()
        if word in _ABBREVIATIONS or before.lower().endswith(("e.g", "i.e", "et al")):
            continue
        if len(word) == 1 and word.isalpha():  # an initial such as "J."
            continue
        return text[: end + 1]
    return text


def derive_title(abstract: str, max_chars: int = TITLE_MAX_CHARS) -> str:
    """Derive a display title from an abstract: its first sentence, shortened.

    The first sentence ends at ``.``, ``!`` or ``?`` followed by white space and a capital
    letter or digit, skipping common abbreviations (``e.g.``, ``et al.``, ``Fig.``) and
    initials, or at a Chinese or Japanese ``。``, ``！``, ``？`` or ``．`` (no space follows
    them; with the closing quotes after it; not before the sentence's first letter), or
    at ``.``, ``!`` or ``?`` right before a Han ideograph or kana.
    A space between two Chinese or Japanese characters (a hard-wrapped line's break)
    is dropped. A sentence longer than ``max_chars`` is cut at the last word boundary within
    the limit (anywhere in text without spaces) and ends in ``…``. A trailing full stop
    (``.``, ``。`` or ``．``) is dropped.

    Args:
        abstract: normalised abstract text.
        max_chars: the longest title kept before cutting, in characters.
    Returns:
        The title; ``"(empty abstract)"`` for empty input.
    """
    text = normalize(abstract)
    if not text:
        return "(empty abstract)"
    text = join_cjk_lines(text)  # a hard-wrapped CJK line's break is no space
    sentence = _first_sentence(text)
    if len(sentence) <= max_chars:
        return sentence[:-1] if sentence.endswith(_FULL_STOPS) else sentence
    cut = sentence[:max_chars]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-–—") + "…"


# http(s) URL: stops at white space, quotes, angle brackets and other characters that never
# appear unescaped in a URL written in prose.
_URL_RE = re.compile(r"https?://[^\s<>\"'`{}|\\^]*(?:\\_[^\s<>\"'`{}|\\^]*)*", re.IGNORECASE)
_TRAILING = ".,;:!?*'\"”’»"
_PAIRS = {")": "(", "]": "[", "}": "{"}


def _trim_url(url: str) -> str:
    while url:
        last = url[-1]
        if last in _TRAILING:
            url = url[:-1]
        elif last in _PAIRS and url.count(last) > url.count(_PAIRS[last]):
            url = url[:-1]
        else:
            break
    return url


def find_urls(text: str) -> list[tuple[int, int, str]]:
    """Find http(s) URLs in prose, with their positions.

    Trailing sentence punctuation (``. , ; : ! ?`` and quotes) and unbalanced closing
    brackets are not part of the URL; LaTeX-escaped underscores (``\\_``) are unescaped in
    the returned URL. A URL directly after ``=``, a quote or ``>`` (an attribute or markup
    in the text, such as ``href="..."``) is skipped: markup in an abstract is shown as
    text, never turned into a link.

    Args:
        text: any text.
    Returns:
        A list of ``(start, end, url)``: character offsets into ``text`` of the URL as it
        is written (end exclusive), and the cleaned URL.
    """
    found = []
    for match in _URL_RE.finditer(text):
        start = match.start()
        if start > 0 and text[start - 1] in "=\"'>":
            continue
        written = _trim_url(match.group(0))
        if len(written) <= len("https://"):
            continue
        url = written.replace("\\_", "_")
        if re.fullmatch(r"https?://[^/]*\w[^/]*(/.*)?", url, re.IGNORECASE) is None:
            continue
        found.append((start, start + len(written), url))
    return found


def extract_urls(text: str) -> list[str]:
    """Return the distinct http(s) URLs in ``text`` in order of first appearance.

    See :func:`find_urls` for what counts as part of a URL.

    Args:
        text: any text.
    Returns:
        A list of URL strings without trailing punctuation.
    """
    seen: dict[str, None] = {}
    for _start, _end, url in find_urls(text):
        seen.setdefault(url, None)
    return list(seen)


#: Hosts whose links count as "links to code" (the ``has:code`` filter).
CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "sourceforge.net",
              "git.sr.ht", "gitee.com")


def is_code_url(url: str) -> bool:
    """Return True if ``url`` points at a code host in :data:`CODE_HOSTS` (or a
    sub-domain of one, such as ``gist.github.com``)."""
    host = re.sub(r"^https?://", "", url, flags=re.IGNORECASE).split("/", 1)[0]
    host = host.split("@")[-1].split(":")[0].lower()
    return any(host == h or host.endswith("." + h) for h in CODE_HOSTS)


# New-style arXiv identifiers (https://info.arxiv.org/help/arxiv_identifier.html):
# YYMM.NNNN or YYMM.NNNNN with an optional version; written "arXiv:2212.08630" or in an
# arxiv.org/abs|pdf URL.
_ARXIV_RE = re.compile(
    r"(?:arXiv:\s?|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5}(?:v\d+)?)", re.IGNORECASE
)


def extract_arxiv_ids(text: str) -> list[str]:
    """Return the distinct arXiv identifiers mentioned in ``text``.

    Recognises ``arXiv:YYMM.NNNNN`` (optionally with ``vN``) and arxiv.org ``abs``/``pdf``
    links, following the identifier scheme at https://info.arxiv.org/help/arxiv_identifier.html.

    Args:
        text: any text.
    Returns:
        Identifiers such as ``"2212.08630"`` (no ``arXiv:`` prefix, trailing dot removed),
        in order of first appearance.
    """
    seen: dict[str, None] = {}
    for match in _ARXIV_RE.finditer(text):
        seen.setdefault(match.group(1), None)
    return list(seen)


def mentioned_in(abstract: str) -> Mentioned:
    """Return the links and identifiers an abstract mentions.

    Args:
        abstract: the abstract text.
    Returns:
        A :class:`paperdesk.core.models.Mentioned` with the URLs (:func:`extract_urls`),
        arXiv ids (:func:`extract_arxiv_ids`) and DOIs
        (:func:`paperdesk.core.metadata.extract_dois`) in order of first appearance.
    """
    return Mentioned(tuple(extract_urls(abstract)), tuple(extract_arxiv_ids(abstract)),
                     tuple(extract_dois(abstract)))


#: A lone surrogate (U+D800-U+DFFF): no UTF-8 encoding, so SQLite, files and terminals
#: refuse it.
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
#: A JSON escape of a surrogate (``\\udc80``); only then can a parsed string hold one.
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def replace_surrogates(text: str) -> str:
    """Replace each lone surrogate (U+D800-U+DFFF) with U+FFFD, one for one (offsets
    unchanged). JSON's ``\\udc80`` escapes give such characters; storing one failed
    with ``UnicodeEncodeError``.

    Args:
        text: any string.
    Returns:
        ``text`` without surrogates (the same object when it has none).
    """
    return _SURROGATE_RE.sub("\ufffd", text) if _SURROGATE_RE.search(text) else text


def loads_json(text: str | bytes) -> object:
    """``json.loads`` (RFC 8259), with every string (keys too) passed through
    :func:`replace_surrogates`: JSON may escape lone surrogates (``"\\udc80"``), which
    Python decodes as such. A valid pair (``"\\ud83d\\ude00"``) is one character and
    stays. Text without a surrogate escape is parsed as is, with no extra walk.

    Args:
        text: the JSON text.
    Returns:
        The parsed value.
    Raises:
        ValueError: ``json.JSONDecodeError``, as ``json.loads`` raises it; also for
            arrays or objects nested deeper than Python's decoder can follow (it
            recurses once per level: a ``RecursionError`` past
            ``sys.getrecursionlimit()``), said as such.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError(
            "arrays or objects nested too deeply to be read (over "
            f"{sys.getrecursionlimit():,} levels)", text if isinstance(text, str) else "",
            0) from None
    probe = text if isinstance(text, str) else text.decode("utf-8", "replace")
    return _clean_json(value) if _SURROGATE_ESCAPE_RE.search(probe) else value


def _clean_json(value):
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, list):
        return [_clean_json(v) for v in value]
    if isinstance(value, dict):
        return {replace_surrogates(k): _clean_json(v) for k, v in value.items()}
    return value
