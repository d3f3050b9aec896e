"""Telling the Chinese, Japanese and Korean legacy encodings apart. Pure: no database,
no Qt.

GBK, Big5, Shift_JIS, EUC-JP and EUC-KR/CP949 share most of their byte ranges, so the
same bytes often decode without error in several of them: the GBK name 凯撒 is valid
CP949 too, and reads there as the Korean 열힁. charset-normalizer has character
frequencies for too few characters to decide on a short file (a ``.bib`` entry with a
two-character author name), so :func:`cjk_decoding` decides by which characters each
decoding gives, the rule being:

1. Candidates: ``gb18030`` (simplified Chinese: GB2312, GBK, GB18030), ``cp950``
   (traditional Chinese: Big5), ``cp932`` and ``euc_jp`` (Japanese: Shift_JIS, EUC-JP)
   and ``cp949`` (Korean: EUC-KR and its extension, Unified Hangul Code), each taken
   only when the whole file decodes with it without error.
2. Each candidate's non-ASCII letters are scored: the share that are *common* in its
   language plus the share among charset-normalizer's most frequent characters of that
   language (``charset_normalizer.constant.FREQUENCIES``), plus for Japanese the share
   of kana (only Japanese is written with kana; EUC-JP's kana read as Big5 are common
   Han characters). Common is, for simplified
   Chinese, a Han character in GB2312 (the 6,763 of modern simplified text); for
   traditional Chinese, a Han character of Big5's level 1 (its 5,401 frequent
   characters, lead bytes A4-C6); for Japanese, hiragana and katakana, and Han
   characters of JIS X 0208 level 1 (its 2,965 frequent kanji, EUC-JP lead bytes B0-CF)
   when the text has kana at all (Japanese prose always has); for Korean, a Hangul
   syllable of KS X 1001 (the 2,350 of EUC-KR; Han characters are rare in modern
   Korean). A wrong decoding gives rarer characters: 凯撒测试期刊 read as Korean gives
   a Han character and the rare 힁 among its Hangul.
3. The highest score wins, if at least :data:`MIN_SCORE`; on a tie the first in the
   order above.

:func:`paperdesk.core.imports.daily_papers.decode` applies the rule to bytes that are
not UTF-8 when charset-normalizer names a CJK encoding among its candidates, or none.
"""

from __future__ import annotations

import codecs
import unicodedata
from collections import Counter

from charset_normalizer.constant import FREQUENCIES

__all__ = ["CJK_CODECS", "MIN_SCORE", "SCORED_CHARS", "is_cjk_codec", "cjk_decoding", "cjk_score"]

#: The candidate codecs, in the order that breaks ties, with their language's name in
#: charset-normalizer's frequency table.
CJK_CODECS = (("gb18030", "Chinese"), ("cp950", "Chinese"), ("cp932", "Japanese"),
              ("euc_jp", "Japanese"), ("cp949", "Korean"))
#: The lowest score (the shares added up, 0 to 3) a decoding needs.
MIN_SCORE = 0.5
#: Characters of a decoding scored (its start): a large file is decoded whole (every
#: byte must fit), but scored on this many characters.
SCORED_CHARS = 200_000

#: Python codec names of the CJK encoding families charset-normalizer may report.
_CJK_FAMILY = frozenset(codecs.lookup(n).name for n in (
    "gb2312", "gbk", "gb18030", "hz", "big5", "big5hkscs", "cp950", "cp932", "shift_jis",
    "shift_jis_2004", "shift_jisx0213", "euc_jp", "euc_jis_2004", "euc_jisx0213",
    "iso2022_jp", "euc_kr", "cp949", "johab", "iso2022_kr"))
_FREQUENT = {lang: frozenset(FREQUENCIES[lang]) for lang in ("Chinese", "Japanese", "Korean")}


def is_cjk_codec(name: str) -> bool:
    """Whether ``name`` (a Python codec name or alias, e.g. ``"cp949"``, ``"big5hkscs"``)
    is a Chinese, Japanese or Korean legacy encoding."""
    try:
        return codecs.lookup(name).name in _CJK_FAMILY
    except LookupError:
        return False


def _encodes(char: str, codec: str) -> bytes | None:
    try:
        return char.encode(codec)
    except UnicodeEncodeError:
        return None


def _is_han(char: str) -> bool:
    """A CJK unified ideograph (the basic block, extension A, or beyond the BMP)."""
    return ("\u4e00" <= char <= "\u9fff" or "\u3400" <= char <= "\u4dbf"
            or "\U00020000" <= char <= "\U0003ffff")


def _is_kana(char: str) -> bool:
    return "\u3041" <= char <= "\u30ff"


def _common(char: str, codec: str, has_kana: bool) -> bool:
    """Whether ``char`` is common in the language of ``codec`` (module docstring)."""
    if codec == "gb18030":
        return _is_han(char) and _encodes(char, "gb2312") is not None
    if codec == "cp950":
        code = _encodes(char, "big5")
        return _is_han(char) and code is not None and 0xA4 <= code[0] <= 0xC6
    if codec in ("cp932", "euc_jp"):
        if _is_kana(char):
            return True
        code = _encodes(char, "euc_jp")
        return (has_kana and _is_han(char) and code is not None and len(code) == 2
                and 0xB0 <= code[0] <= 0xCF)
    return "\uac00" <= char <= "\ud7a3" and _encodes(char, "euc_kr") is not None


def cjk_score(text: str, codec: str, language: str) -> float:
    """The score of one decoding (module docstring, step 2).

    Args:
        text: the bytes decoded with ``codec`` (its first :data:`SCORED_CHARS`
            characters are scored).
        codec: one of :data:`CJK_CODECS`' codecs.
        language: its language in charset-normalizer's frequency table.
    Returns:
        0 to 3; 0 when the text has no non-ASCII letters.
    """
    counts = Counter(text[:SCORED_CHARS])
    letters = {c: n for c, n in counts.items()
               if ord(c) > 127 and unicodedata.category(c).startswith("L")}
    total = sum(letters.values())
    if not total:
        return 0.0
    has_kana = any(map(_is_kana, letters))
    points = sum(n * (_common(c, codec, has_kana) + (c in _FREQUENT[language])
                      + (language == "Japanese" and _is_kana(c)))
                 for c, n in letters.items())
    return points / total


def cjk_decoding(data: bytes) -> tuple[str, str] | None:
    """Decode bytes in the CJK legacy encoding the rule picks (module docstring).

    Args:
        data: a file's bytes (not UTF-8, no byte-order mark).
    Returns:
        ``(text, codec)`` (e.g. ``("...凯撒...", "gb18030")``), or ``None`` when no
        candidate decodes the bytes with a score of at least :data:`MIN_SCORE`.
    """
    best: tuple[float, str, str] | None = None
    for codec, language in CJK_CODECS:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        score = cjk_score(text, codec, language)
        if score >= MIN_SCORE and (best is None or score > best[0]):
            best = (score, text, codec)
    return None if best is None else (best[1], best[2])
