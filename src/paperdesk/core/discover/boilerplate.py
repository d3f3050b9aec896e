"""Which of a paper's words are boilerplate: named in no reason ("shares: …"), though they
still count in every score.

Abstracts, as databases deliver them, often end with sections that are not about the
work: conflict-of-interest disclosures ("Disclosures Shima: Chugai Pharmaceutical Co.,
Ltd.: Consultancy, Honoraria, Membership on an entity's Board of Directors or advisory
committees, Research Funding"), funding and trial registration. Two papers with the same
sponsor share "chugai, honoraria, membership, directors" and "shares:" named those words
first: in the SYNERGY review Donners_2021 they were 9 of the 40 terms most often named
for related papers. The rule is the same for every library (nothing is learned per
review):

* a **boilerplate section** starts at a heading of :data:`HEADINGS` or
  :data:`MARKED_HEADINGS` (capitalised, at the start of the text or of a sentence, or
  after a line break; the second kind with a colon or full stop after it) and runs to
  the end of the text (these sections close an abstract);
* a paper's **boilerplate words** are the words of its boilerplate sections that its
  text before the first such section does not use ("Research Funding" makes "funding"
  boilerplate, but not "research" when the study's own text says it);
* a term that looks like a trial registry number (:data:`REGISTRY_ID`: "nct02622321",
  "isrctn…", "actrn…") is boilerplate wherever it is.

A shared term is left out of the reasons when it is boilerplate in either paper
(:meth:`~.engine.Discover.related`).
"""

from __future__ import annotations

import re

__all__ = ["HEADINGS", "MARKED_HEADINGS", "REGISTRY_ID", "boilerplate_words", "is_registry_id"]

#: Headings that open a section about the paper rather than its work (case as written:
#: a capital first letter; "funding" inside a sentence opens nothing).
HEADINGS = (r"Disclosures?", r"Conflicts? of [Ii]nterests?", r"Competing [Ii]nterests?",
            r"Declarations? of (?:[Cc]ompeting )?[Ii]nterests?",
            r"Financial [Dd]isclosures?", r"Sources? of [Ff]unding",
            r"(?:Clinical )?[Tt]rial [Rr]egistrations?")
#: Headings that are also a sentence's first word ("Funding agencies …"): a heading only
#: with a colon or full stop after it.
MARKED_HEADINGS = (r"Funding(?: [Ss]ources?)?", r"Registration", r"Acknowledge?ments?")
_HEADING = re.compile(r"(?:^|(?<=[.;!?])\s+|\n\s*)(?:(?:" + "|".join(HEADINGS)
                      + r")\b(?=\s*[:.]?\s)|(?:" + "|".join(MARKED_HEADINGS)
                      + r")\s*[:.])")
# a word each heading holds as written (a plain substring test first: most abstracts have
# no heading, and the test is a tenth of the regular expression's time)
_HEADING_KEYS = ("isclosure", "nterest", "unding", "egistration", "cknowledg")
#: A trial registry number as a term: ClinicalTrials.gov (NCT), ISRCTN, ANZCTR (ACTRN),
#: ChiCTR, DRKS, CTRI, EudraCT, UMIN, JPRN, IRCT, followed by digits.
REGISTRY_ID = re.compile(r"(?:nct|isrctn|actrn|chictr|drks|ctri|eudract|umin|jprn|irct)"
                         r"[-\d]*\d{4,}")


def is_registry_id(term: str) -> bool:
    """Whether a term (lower case, as the term table holds it) is a trial registry
    number (:data:`REGISTRY_ID`)."""
    return REGISTRY_ID.fullmatch(term) is not None


def boilerplate_words(text: str | None) -> frozenset[str]:
    """The terms of a paper's text that only its boilerplate sections use.

    Args:
        text: the abstract (or title and abstract); ``None`` for none.
    Returns:
        The words (lower case) after the first heading of :data:`HEADINGS` that do not
        occur before it; empty when there is no such heading.
    """
    if not text or not any(k in text for k in _HEADING_KEYS):
        return frozenset()
    found = _HEADING.search(text)
    if found is None:
        return frozenset()
    return frozenset(_words(text[found.start():]) - _words(text[:found.start()]))


_NOT_WORD = re.compile(r"[^\w-]+")


def _words(text: str) -> set[str]:
    """The lower-cased words of a text, split at anything but letters, digits, ``_`` and
    ``-`` (one C-level pass: a superset of :func:`~.vectorize.analyze`'s terms, which is
    all a test of membership needs; 0.1 ms for an abstract where ``analyze`` takes 1.5)."""
    return {w.strip("-_") for w in _NOT_WORD.split(text.lower())} - {""}
