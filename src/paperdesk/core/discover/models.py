"""What the discover features return: plain, frozen values the CLI prints, the window
shows and tests assert on."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RelatedPaper", "KeyTerm", "TagSuggestion", "InterestOrder", "TermsStatus",
           "TermsNotReady", "NotInTable"]


class TermsNotReady(Exception):
    """The term table must be built (or brought up to date with many papers) first: run
    :meth:`~paperdesk.core.discover.engine.Discover.ensure`, which may take tens of
    seconds at 100,000 papers.

    Attributes:
        missing: papers without a row (new or edited since the last build).
    """

    def __init__(self, message: str, missing: int = 0):
        super().__init__(message)
        self.missing = missing


class NotInTable(LookupError):
    """The paper has no row in the term table: it has no terms (an abstract of numbers
    only, an empty title) or it is not in the library."""


@dataclass(frozen=True)
class RelatedPaper:
    """A paper similar to another.

    Attributes:
        id: the paper's id.
        title: its title.
        score: the similarity, 0..1: the hybrid score (:func:`~.hybrid.hybrid_rows`)
            when the paper has a vector, else the cosine of the two tf-idf vectors.
        shared: the 3-5 terms the two share that weigh most in the score, heaviest
            first (fewer when they share fewer), boilerplate left out
            (:mod:`.boilerplate`: disclosures, funding, trial registration).
        authors: the family names of the authors the two share, in the asked paper's
            author order (counted by the hybrid score only; empty under tf-idf alone).
        venue: the venue the two share, as the related paper writes it, when both
            have one and they match once case folded and spaced alike
            (:func:`~.title_venue.venue_key`; counted by the hybrid score only; empty
            otherwise).
    """

    id: int
    title: str
    score: float
    shared: tuple[str, ...]
    authors: tuple[str, ...] = ()
    venue: str = ""


@dataclass(frozen=True)
class KeyTerm:
    """One of a paper's key terms: a word with a high tf-idf weight in it.

    Attributes:
        term: the word, lower-cased as found (a valid search query on its own).
        weight: its unit-length tf-idf weight in the paper, 0..1.
    """

    term: str
    weight: float


@dataclass(frozen=True)
class TagSuggestion:
    """An existing tag suggested for a paper, with the papers that suggest it; or, when
    the tag has too few examples to be suggested (:attr:`held_back`), the note saying so.

    Attributes:
        tag_id: the tag's id.
        name: the tag's name.
        score: the tag's share of the votes of the paper's most similar papers, 0..1
            (a similarity-weighted k-nearest-neighbour vote, :mod:`.tag_suggestions`):
            the evaluation in docs/discover.md gives how often a suggestion at a score
            is right.
        like: ids of the papers with the tag among them, most similar first (at most 3).
        shared: terms the paper shares most with them (at most 3).
        examples: papers in the library with the tag (0: not counted).
        needed: least papers with the tag for it to be suggested (0: no least).
    """

    tag_id: int
    name: str
    score: float
    like: tuple[int, ...]
    shared: tuple[str, ...]
    examples: int = 0
    needed: int = 0

    @property
    def held_back(self) -> bool:
        """True when the tag has too few examples (``examples < needed``): it is not
        suggested (no Alt+1 … Alt+3, not in ``suggest-tags``'s suggestions) and
        :attr:`reason` says why."""
        return self.examples < self.needed

    @property
    def reason(self) -> str:
        """One line: ``like #12 and #40, tagged depth; shares: monocular, disparity``;
        for a held-back tag ``not suggested: only 3 papers are tagged hyperparams (5 are
        needed to suggest it)``."""
        if self.held_back:
            papers = "paper is" if self.examples == 1 else "papers are"
            return (f"not suggested: only {self.examples} {papers} tagged {self.name} "
                    f"({self.needed} are needed to suggest it)")
        refs = [f"#{i}" for i in self.like]
        like = refs[0] if len(refs) == 1 else ", ".join(refs[:-1]) + " and " + refs[-1]
        text = f"like {like}, tagged {self.name}"
        if self.shared:
            text += "; shares: " + ", ".join(self.shared)
        return text


@dataclass(frozen=True)
class InterestOrder:
    """The unread papers, worth reading first at the top.

    Attributes:
        ids: the papers in order.
        ranked: True when a model ordered them; False when there were too few positive
            examples and ``ids`` are in date order (the date added, oldest first, as
            the list).
        message: one line for the user (how it was ordered, or why not).
        positives: papers starred, tagged, noted or highlighted (with terms).
        negatives: papers read and none of those (skipped).
        scores: ``{id: score}`` from the model (log-odds), empty when not ranked.
        reasons: ``{id: terms}``: the words that moved each paper up most (at most 3),
            empty when not ranked.
    """

    ids: list[int]
    ranked: bool
    message: str
    positives: int = 0
    negatives: int = 0
    scores: dict[int, float] = field(default_factory=dict)
    reasons: dict[int, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class TermsStatus:
    """How far the term table is.

    Attributes:
        papers: papers with a valid row.
        missing: papers without one (new or edited since), or ``None`` if not checked.
        building: a full build is running.
        done, total: its progress in papers read (0, 0 when none runs).
        problem: why the last build failed (one line), or ``None``.
        not_kept: why the table in use was built in memory and is not kept in
            ``terms/`` (one line: the library is read-only, ...), or ``None`` when it
            is kept.
    """

    papers: int
    missing: int | None
    building: bool
    done: int = 0
    total: int = 0
    problem: str | None = None
    not_kept: str | None = None
