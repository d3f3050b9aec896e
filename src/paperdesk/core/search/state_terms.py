"""The parts of a query answered from SQLite instead of the index: ``tag:`` (a tag name,
``tag:vis*``, ``tag:visoin~``) and the state filters ``is:read``, ``is:unread``,
``is:starred``, ``is:unstarred`` and ``has:tag``.

Tags and read/star marks change with one key press; were they words of the index, every
change would rewrite the papers' index documents (at 100,000 papers, tagging 10,000 of
them took a minute to become searchable). Here each such part of a query becomes a
:class:`~paperdesk.core.search.fastscore.PaperMaskQuery` over the library's cached
masks (:class:`~paperdesk.core.scope.ScopeMasks`: one bool array per tag or filter,
rebuilt on first use after the database changed), so a change is searchable as soon as
it is committed, and the index documents no longer hold tags or these states.
"""

from __future__ import annotations

import re
import unicodedata
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

import numpy as np
from whoosh import query as wq

from paperdesk.core.scope import Scope
from paperdesk.core.search.fastscore import PaperMaskQuery

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["STATE_FLAGS", "LibraryTerms"]

#: ``flags`` tokens (see :data:`paperdesk.core.search.query.FILTER_WORDS`) answered from
#: SQLite -> (the :data:`~paperdesk.core.scope.FILTERS` name, whether it is negated).
STATE_FLAGS = {"read": ("read", False), "unread": ("unread", False),
               "starred": ("starred", False), "unstarred": ("starred", True),
               "tagged": ("untagged", True)}
_MULTI = (wq.Prefix, wq.Wildcard, wq.FuzzyTerm)


def _tag_word(name: str) -> str:
    """A tag name as the query parser writes a ``tag:`` value: lower case, NFC, white
    space collapsed, a hyphen read as a space (``tag:to-read`` is parsed as "to read")."""
    name = unicodedata.normalize("NFC", name).lower().replace("-", " ")
    return " ".join(name.split())


def _within(word: str, name: str, maxdist: int, prefix: int) -> bool:
    """Whether ``name`` is at most ``maxdist`` edits (Levenshtein) from ``word``, with
    the first ``prefix`` characters equal (as Whoosh's ``FuzzyTerm`` matches)."""
    if word[:prefix] != name[:prefix] or abs(len(word) - len(name)) > maxdist:
        return False
    row = list(range(len(name) + 1))
    for i, a in enumerate(word, 1):
        new = [i]
        for j, b in enumerate(name, 1):
            new.append(min(row[j] + 1, new[j - 1] + 1, row[j - 1] + (a != b)))
        row = new
    return row[-1] <= maxdist


class LibraryTerms:
    """Rewrites a query's tag and state parts into masks from the library's SQLite
    (``lib.index.whoosh.library_terms``; see the module).

    Args:
        lib: the open library (its ``db`` is read on the calling thread, its ``masks``
            cache the arrays).
    """

    def __init__(self, lib: Library):
        self._lib = lib

    def __call__(self, query: wq.Query) -> wq.Query:
        """Return ``query`` with every ``tag:`` leaf and state ``flags`` term replaced by
        a :class:`PaperMaskQuery` (other leaves unchanged; ``query`` itself is not
        modified).

        Args:
            query: a Whoosh query (from :meth:`SearchIndex.plan`, flags added).
        Returns:
            The rewritten query.
        """
        t = type(query)
        if (t is wq.Term or t in _MULTI) and query.fieldname == "tag":
            return self._tag_mask(query)
        if t is wq.Term and query.fieldname == "flags" and query.text in STATE_FLAGS:
            return self._flag_mask(query.text)
        if query.is_leaf():
            return query
        return query.apply(self)

    def _tag_mask(self, q) -> PaperMaskQuery:
        db = self._lib.db
        masks = self._lib.masks
        wanted = [tid for tid, name in db.execute("SELECT id, name FROM tags")
                  if self._matches(q, _tag_word(name))]
        label = f"tag:{q!r}"
        if not wanted:
            return PaperMaskQuery(np.zeros(0, dtype=bool), label)
        found = masks.mask(db, Scope(tag_id=wanted[0]))
        for tid in wanted[1:]:
            found = found | masks.mask(db, Scope(tag_id=tid))
        return PaperMaskQuery(found, label)

    @staticmethod
    def _matches(q, name: str) -> bool:
        word = _tag_word(q.text if isinstance(q.text, str) else q.text.decode("utf-8"))
        t = type(q)
        if t is wq.Term:
            return name == word
        if t is wq.Prefix:
            return name.startswith(word)
        if t is wq.Wildcard:
            return fnmatchcase(name, re.sub(r"([\[\]])", r"[\1]", word))
        return _within(word, name, q.maxdist, q.prefixlength)

    def _flag_mask(self, flag: str) -> PaperMaskQuery:
        name, negated = STATE_FLAGS[flag]
        db = self._lib.db
        masks = self._lib.masks
        found = masks.mask(db, Scope(filter=name))
        if negated:
            found = masks.existing(db) & ~found
        return PaperMaskQuery(found, f"flags:{flag}")
