"""The characters of Chinese and Japanese, written without spaces between words: one
place for the ranges that the search index's words (:mod:`paperdesk.core.search.words`),
derived titles (:mod:`paperdesk.core.text`), discover's terms
(:mod:`paperdesk.core.discover.vectorize`) and the near-duplicate measure
(:mod:`paperdesk.core.duplicates`) use. A leaf module (only :mod:`re`).

Ranges (Unicode blocks): Han ideographs are CJK Unified Ideographs (U+4E00-9FFF) with
extensions A (U+3400-4DBF) and B (U+20000-2A6DF), the compatibility ideographs
(U+F900-FAFF) and the ideographic iteration marks (U+3005-3007); Hiragana U+3041-309F;
Katakana U+30A0-30FF.
"""

from __future__ import annotations

import re

__all__ = ["HAN", "HIRAGANA", "KATAKANA", "IDEOGRAPHS", "join_cjk_lines"]

_MARKS = "\u3005-\u3007"
_HAN_BLOCKS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002a6df"
#: Han ideographs and the iteration marks (a regular-expression class body).
HAN = _MARKS + _HAN_BLOCKS
#: Hiragana (a class body).
HIRAGANA = "\u3041-\u309f"
#: Katakana with the prolonged sound mark (a class body).
KATAKANA = "\u30a0-\u30ff"
#: Han ideographs and Hiragana, each a word of its own in the search index; this exact
#: string is part of the index's word pattern, whose change rebuilds every index.
IDEOGRAPHS = _MARKS + HIRAGANA + _HAN_BLOCKS

_GAP_RE = re.compile(f"(?<=[{HAN}{HIRAGANA}{KATAKANA}]) (?=[{HAN}{HIRAGANA}{KATAKANA}])")


def join_cjk_lines(text: str) -> str:
    """Drop each single space between two Chinese or Japanese characters: where a
    hard-wrapped line of such a paragraph broke (normalising made the break a space),
    which is no word break in those languages ("深度估 计" -> "深度估计").

    Args:
        text: normalised text.
    Returns:
        The text without those spaces (ASCII text as it is, at once).
    """
    return text if text.isascii() else _GAP_RE.sub("", text)
