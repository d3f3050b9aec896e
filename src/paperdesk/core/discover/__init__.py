"""Discover: related papers, key terms, tag suggestions, the "worth reading first" order
and the most frequent key terms, over one tf-idf term table per library.

``Library.discover`` (:class:`~paperdesk.core.discover.engine.Discover`) is the entry
point; :mod:`.vectorize` says what a term is, :mod:`.term_table` how the table is
stored, :mod:`.build` how it is built, :mod:`.related`, :mod:`.tag_suggestions` and
:mod:`.interest` how each answer is computed.
"""

from paperdesk.core.discover.models import (InterestOrder, KeyTerm, NotInTable,
                                            RelatedPaper, TagSuggestion, TermsNotReady,
                                            TermsStatus)

__all__ = ["InterestOrder", "KeyTerm", "NotInTable", "RelatedPaper", "TagSuggestion",
           "TermsNotReady", "TermsStatus"]
