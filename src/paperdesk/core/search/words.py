"""What a word is in the search index: the one pattern the analysers
(:func:`paperdesk.core.search.index.exact_analyzer`), the segment writer
(:mod:`paperdesk.core.search.segment_writer`) and the snippet marks share. A leaf
module, so that both sides import it without importing each other.
"""

from __future__ import annotations

import re

from paperdesk.core.cjk import IDEOGRAPHS

__all__ = ["WORD_PATTERN", "WORD_RE", "IDEOGRAPHS"]

# IDEOGRAPHS (paperdesk.core.cjk) are each a word of their own: Han ideographs (CJK
# Unified Ideographs with extensions A-B, compatibility ideographs), Hiragana and the
# ideographic iteration marks. Chinese and Japanese are written without spaces, so a run of them
# is a sentence, not a word; as in Lucene's StandardTokenizer (Unicode UAX #29 word
# boundaries with each ideograph a token), each is indexed alone and a query word of
# several ("深度推定") needs all of them. Katakana runs and Hangul words (written with
# spaces) stay words.
_LETTERS = f"[^\\W{IDEOGRAPHS}]"

#: A word: letters and digits with inner dots ("2.5"), or a word followed by "++" or "#"
#: so that "C++" and "C#" are words of their own, apart from the letter "c"; or one
#: ideograph (:data:`IDEOGRAPHS`).
WORD_PATTERN = (f"{_LETTERS}+(?:\\.{_LETTERS}+)*(?:\\+\\+|#)?|[{IDEOGRAPHS}]")
#: :data:`WORD_PATTERN`, compiled.
WORD_RE = re.compile(WORD_PATTERN)
