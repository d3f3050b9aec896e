"""What a word is in the search index: the one pattern the analysers
(:func:`paperdesk.core.search.index.exact_analyzer`), the segment writer
(:mod:`paperdesk.core.search.segment_writer`) and the snippet marks share. A leaf
module, so that both sides import it without importing each other.
"""

from __future__ import annotations

import re

__all__ = ["WORD_PATTERN", "WORD_RE"]

#: A word: letters and digits with inner dots ("2.5"), or a word followed by "++" or "#"
#: so that "C++" and "C#" are words of their own, apart from the letter "c".
WORD_PATTERN = r"\w+(?:\.\w+)*(?:\+\+|#)?"
#: :data:`WORD_PATTERN`, compiled.
WORD_RE = re.compile(WORD_PATTERN)
