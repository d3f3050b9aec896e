"""Plain value objects returned by :class:`paperdesk.core.library.Library`.

All are frozen dataclasses with a ``to_dict()`` that gives the JSON shape the CLI prints.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from paperdesk.core.changes import Changes
from paperdesk.core.fields import stored_fields

__all__ = ["Author", "Mentioned", "Metadata", "SourceRef", "Source", "Paper", "PaperSummary", "SearchHit", "SearchResults", "IndexStatus",
           "FileReport", "ImportReport", "UnknownPaper", "LibraryError", "LibraryReadOnly",
           "NO_TITLE", "DatabaseDamaged",
           "Tag", "TagState",
           "Highlight", "SavedSearch", "field_values"]


#: What a paper without a title is called where a title is shown (the window's list and
#: reading pane, ``paperdesk search``/``show``, the Markdown export): a paper kept for its
#: key, DOI or authors may have neither title nor abstract.
NO_TITLE = "(no title)"


class LibraryError(Exception):
    """A user-facing problem with the library (message is one line, safe to show)."""


class LibraryReadOnly(LibraryError):
    """The library folder or its database file cannot be written (permissions, an
    immutable file, a read-only mount): it
    can be searched, shown and exported by the ``paperdesk`` command, not changed, and
    the window (which needs to write) cannot open it.

    Attributes:
        folder: the library folder.
    """

    def __init__(self, message: str, folder):
        super().__init__(message)
        self.folder = folder


class DatabaseDamaged(LibraryError):
    """The library's ``library.db`` is damaged (cut short, pages overwritten, fails
    ``PRAGMA quick_check``); the message names the file, the problem and the ways out
    (``paperdesk repair --salvage``, the latest backup). The window offers Salvage on it.

    Attributes:
        folder: the library folder.
    """

    def __init__(self, message: str, folder):
        super().__init__(message)
        self.folder = folder


class UnknownPaper(LibraryError, KeyError):
    """No paper has the requested id.

    Attributes:
        paper_id: the id asked for.
    """

    def __init__(self, paper_id: int):
        self.paper_id = paper_id
        super().__init__(f"no paper with id {paper_id}")

    def __str__(self) -> str:  # KeyError would add quotes
        return self.args[0]


@dataclass(frozen=True)
class SourceRef:
    """Where a paper was found: one file and the abstract's position in it.

    Attributes:
        source_id: id in the ``sources`` table.
        path: absolute path of the file at import time.
        name: file name.
        header: collection name from the file's first line.
        position: 1-based number of the abstract among the file's abstracts.
    """

    source_id: int
    path: str
    name: str
    header: str
    position: int


@dataclass(frozen=True)
class Source:
    """An imported file with the number of distinct papers it contributed.

    Attributes:
        id: source id.
        path: absolute path at import time.
        name: file name.
        header: collection name.
        imported_at: ISO 8601 UTC time of the first import.
        papers: number of distinct papers from this file.
    """

    id: int
    path: str
    name: str
    header: str
    imported_at: str
    papers: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Tag:
    """A tag with the number of papers that carry it.

    Attributes:
        id: tag id.
        name: the name as last typed (unique without regard to case).
        colour: ``#rrggbb``.
        key: number key 1-9 that toggles the tag on the current paper, or ``None``.
        count: number of papers with the tag; ``None`` when it was not counted (a
            lookup by an edit, e.g. ``lib.tags.by_name(name, count=False)``).
    """

    id: int
    name: str
    colour: str
    key: int | None = None
    count: int | None = 0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SavedSearch:
    """A named query.

    Attributes:
        id: row id.
        name: the name (unique without regard to case).
        query: the query text as typed.
        created_at: ISO 8601 UTC.
    """

    id: int
    name: str
    query: str
    created_at: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TagState:
    """Everything about one tag, for undoing a rename, merge or delete.

    Attributes:
        id: tag id.
        name: name.
        colour: ``#rrggbb``.
        key: bound number key or ``None``.
        paper_ids: the papers carrying it.
        decisions: its screening decisions, ``(paper_id, excluded, seq, decided_at)``
            rows of ``screening_decisions`` (:mod:`paperdesk.core.screening.decisions`),
            so that undoing the tag's deletion or merge brings its exclusions back.
    """

    id: int
    name: str
    colour: str
    key: int | None
    paper_ids: frozenset[int]
    decisions: frozenset[tuple] = frozenset()


@dataclass(frozen=True)
class Highlight:
    """A highlighted span of an abstract.

    Attributes:
        id: highlight id.
        paper_id: the paper.
        start: character offset of the first highlighted character in the abstract.
        end: character offset just past the last one (``abstract[start:end]`` is the text).
        colour: ``#rrggbb``.
        comment: optional comment (may be empty).
        text: the highlighted text, ``abstract[start:end]``.
        created_at: ISO 8601 UTC.
    """

    id: int
    paper_id: int
    start: int
    end: int
    colour: str
    comment: str
    text: str
    created_at: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Author:
    """One author, as CSL-JSON and BibTeX name them.

    Attributes:
        family: family name (with particles such as "van der"), or the whole name of an
            organisation ("World Health Organization") when ``given`` is empty.
        given: given names or initials ("Jane", "J. R."); "" when unknown.
        suffix: a generational suffix ("Jr.", "III"): BibTeX's "Jr" part, CSL-JSON's
            ``suffix``, the third part of an RIS name; "" when there is none.
    """

    family: str
    given: str = ""
    suffix: str = ""

    def to_dict(self) -> dict:
        """``{"family", "given"}``, with ``"suffix"`` only when there is one."""
        d = {"family": self.family, "given": self.given}
        if self.suffix:
            d["suffix"] = self.suffix
        return d

    def __str__(self) -> str:
        """``"Family, Given"``, ``"Family, Given, Suffix"`` (the RIS form) or
        ``"Family"``: what :func:`paperdesk.core.metadata.parse_author` reads back."""
        if self.suffix:
            return f"{self.family}, {self.given}, {self.suffix}"
        return f"{self.family}, {self.given}" if self.given else self.family


@dataclass(frozen=True)
class Mentioned:
    """Identifiers and links that appear in a paper's abstract (not its own).

    Attributes:
        urls: http(s) URLs, in order of first appearance.
        arxiv_ids: arXiv identifiers ("2212.08630").
        dois: DOIs ("10.1145/3442188.3445922"), lower-case as DOIs compare.
    """

    urls: tuple[str, ...] = ()
    arxiv_ids: tuple[str, ...] = ()
    dois: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.urls or self.arxiv_ids or self.dois)

    def to_dict(self) -> dict:
        return {"urls": list(self.urls), "arxiv_ids": list(self.arxiv_ids),
                "dois": list(self.dois)}


@dataclass(frozen=True, init=False)
class Metadata:
    """A paper's own metadata, as stored (every part optional).

    Built as ``Metadata(authors, date, venue, entry_type, doi, arxiv_id, url, values,
    et_al)`` (every argument optional; ``venue``, a table-driven field, is kept in ``values``:
    given, even as ``""``, it replaces the venue there, so ``dataclasses.replace(meta,
    venue="")`` clears it).

    Attributes:
        authors: in order.
        date: publication date, ISO 8601 with as much as is known: "2023",
            "2023-05" or "2023-05-17"; ``None`` when unknown.
        entry_type: one of :data:`paperdesk.core.metadata.ENTRY_TYPES`, or ``None`` (not set).
        doi: the paper's DOI ("10.1145/…"), or ``None``.
        arxiv_id: its arXiv identifier ("2212.08630", "hep-th/9901001"), or ``None``.
        url: its own landing page, or ``None``.
        values: the table-driven fields (:func:`paperdesk.core.fields.stored_fields`:
            venue, volume, issue, pages, ...) that have a value, as ``(name, text)``
            pairs in table order (:func:`field_values` builds it); read one with
            :meth:`value`.
        et_al: the author list is truncated: more authors than ``authors`` names
            (BibTeX's ``and others``, shown and exported as "et al."); False when the
            list is complete or there are no authors.
    """

    authors: tuple[Author, ...] = ()
    date: str | None = None
    entry_type: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    values: tuple[tuple[str, str], ...] = ()
    et_al: bool = False

    def __init__(self, authors: tuple[Author, ...] = (), date: str | None = None,
                 venue: str | None = None, entry_type: str | None = None,
                 doi: str | None = None, arxiv_id: str | None = None,
                 url: str | None = None, values: tuple[tuple[str, str], ...] = (),
                 et_al: bool = False):
        if venue is not None:
            values = field_values({**dict(values), "venue": venue})
        setattr_ = object.__setattr__
        setattr_(self, "authors", authors)
        setattr_(self, "date", date)
        setattr_(self, "entry_type", entry_type)
        setattr_(self, "doi", doi)
        setattr_(self, "arxiv_id", arxiv_id)
        setattr_(self, "url", url)
        setattr_(self, "values", values)
        setattr_(self, "et_al", bool(et_al and authors))

    @property
    def venue(self) -> str:
        """Journal, conference or repository name ("NeurIPS", "Nature"; "" when
        unknown): the table-driven field ``venue``."""
        return self.value("venue")

    def value(self, name: str) -> str:
        """Return the text of the table-driven field ``name`` ("" when it has none)."""
        for key, text in self.values:
            if key == name:
                return text
        return ""

    @property
    def year(self) -> int | None:
        """The publication year, or ``None``."""
        return int(self.date[:4]) if self.date else None


def field_values(texts: dict[str, str | None]) -> tuple[tuple[str, str], ...]:
    """Return :attr:`Metadata.values` for the texts of table-driven fields.

    Args:
        texts: field name -> text (``None``, ``""`` or names of other fields are left out).
    Returns:
        ``(name, text)`` pairs with a non-empty text, in table order.
    """
    return tuple((f.name, texts[f.name]) for f in stored_fields() if texts.get(f.name))


@dataclass(frozen=True)
class Paper:
    """A paper with everything the detail view shows.

    Attributes:
        id: paper id.
        title: shown title (:attr:`base_title` unless the user edited it).
        derived_title: the title derived from the abstract's first sentence.
        file_title: the title a bibliographic record (BibTeX, RIS, CSL-JSON, arXiv
            metadata) gave the paper, "" when none.
        abstract: normalised abstract text.
        added_at: ISO 8601 UTC time the paper was first imported.
        read_at: ISO 8601 UTC time it was marked read, or ``None``.
        starred: whether it is starred.
        citation_key: the key assigned when the paper was added (or later chosen by the
            user); changes only when the user asks.
        metadata: the paper's own authors, date, venue, type, DOI, arXiv id and URL
            (set by the user or by an import carrying them; never from the abstract).
        mentioned: links and identifiers that appear in the abstract (other work).
        sources: every file and position the abstract was imported from.
        tags: the paper's tags, by name.
        note: the Markdown note ("" when there is none).
        highlights: highlights in abstract order.
        key_aliases: other citation keys it answers to (keys of entries an import merged
            onto it; :mod:`paperdesk.core.store.key_aliases`), in the order they came.
    """

    id: int
    title: str
    derived_title: str
    abstract: str
    added_at: str
    read_at: str | None
    starred: bool
    citation_key: str = ""
    metadata: Metadata = field(default_factory=Metadata)
    mentioned: Mentioned = field(default_factory=Mentioned)
    sources: tuple[SourceRef, ...] = ()
    tags: tuple[Tag, ...] = ()
    note: str = ""
    highlights: tuple[Highlight, ...] = ()
    file_title: str = ""
    key_aliases: tuple[str, ...] = ()

    @property
    def base_title(self) -> str:
        """The title the paper has when the user has not edited it: the file's title,
        else the one derived from the abstract."""
        return self.file_title or self.derived_title

    @property
    def title_edited(self) -> bool:
        """Whether the user has given the paper its own title (other than
        :attr:`base_title`)."""
        return self.title != self.base_title

    @property
    def read(self) -> bool:
        """Whether the paper has been marked read."""
        return self.read_at is not None

    @property
    def authors(self) -> tuple[Author, ...]:
        """The paper's own authors, in order (``metadata.authors``)."""
        return self.metadata.authors

    @property
    def year(self) -> int | None:
        """The publication year from the paper's own date, or ``None``."""
        return self.metadata.year

    @property
    def entry_type(self) -> str:
        """The entry type to write: the one set, else ``preprint`` for a paper with its
        own arXiv id, else ``misc``."""
        if self.metadata.entry_type:
            return self.metadata.entry_type
        return "preprint" if self.metadata.arxiv_id else "misc"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["metadata"] = {"authors": [a.to_dict() for a in self.metadata.authors],
                         "authors_et_al": self.metadata.et_al,
                         "date": self.metadata.date, "year": self.metadata.year,
                         **{f.name: self.metadata.value(f.name)
                            for f in stored_fields(containers=True)},
                         "entry_type": self.metadata.entry_type, "doi": self.metadata.doi,
                         "arxiv_id": self.metadata.arxiv_id, "url": self.metadata.url,
                         **{f.name: self.metadata.value(f.name)
                            for f in stored_fields(containers=False)}}
        d["mentioned"] = self.mentioned.to_dict()
        d["sources"] = [asdict(s) for s in self.sources]
        d["read"] = self.read
        d["tags"] = [t.name for t in self.tags]
        d["highlights"] = [h.to_dict() for h in self.highlights]
        return d


@dataclass(frozen=True)
class PaperSummary:
    """What a row of the paper list shows.

    Attributes:
        id: paper id.
        title: shown title.
        added_at: ISO 8601 UTC import time.
        read: whether it is marked read.
        starred: whether it is starred.
        tags: names of its tags, sorted without regard to case.
        has_note: whether it has a note.
        first_author: the first author's family name ("" when unknown).
        year: publication year, or ``None``.
        values: the table-driven list columns' texts (``(name, text)`` pairs, as
            :attr:`Metadata.values`; read one with :meth:`value`), the venue's among
            them.
    """

    id: int
    title: str
    added_at: str
    read: bool
    starred: bool
    tags: tuple[str, ...] = ()
    has_note: bool = False
    first_author: str = ""
    year: int | None = None
    values: tuple[tuple[str, str], ...] = ()

    value = Metadata.value
    venue = Metadata.venue


@dataclass(frozen=True)
class SearchHit:
    """One search result.

    Attributes:
        id: paper id.
        title: shown title.
        score: relevance (BM25F; higher is better, comparable only within one query).
        snippet: plain text around the match in the abstract (the abstract's start when
            only the title matched); never markup.
        snippet_spans: ``(start, end)`` character offsets of matched words in ``snippet``.
    """

    id: int
    title: str
    score: float
    snippet: str
    snippet_spans: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["snippet_spans"] = [list(s) for s in self.snippet_spans]
        return d


@dataclass(frozen=True)
class SearchResults:
    """Hits of one query plus the total number of matches.

    Attributes:
        query: the query as given.
        hits: best first (or in the requested sort order), at most the requested limit.
        total: number of matching papers (may exceed ``len(hits)``).
        total_exact: False when ``total`` is a lower-bound estimate (``count=False``).
        message: a calm one-line note when part of the query was ignored or refused.
        suggestion: a corrected query from the library's own words ("did you mean"),
            offered when the query finds little, else ``None``.
        ids: every match's paper id in the result order (a numpy int64 array, or a
            tuple), however small ``limit`` was: the window's list holds these and reads
            rows and snippets only for the rows on show.
        scores: the BM25F score of each of ``ids`` (float64 array or tuple).
        indexed: while the search index is still catching up with the library (an
            import is being indexed), the papers the search looked at: those in the
            index; ``None`` when the index holds every paper.
        papers: then, the papers in the library; ``None`` when the index is complete.
        interest: with ``sort="interest"``, the
            :class:`~paperdesk.core.discover.models.InterestOrder` of the matches (its
            ``message``, ``ranked`` and the ``reasons`` of the first hits), else ``None``.
        rest: ``None`` when ``ids`` holds every match; after ``find(rank=n)`` on more
            than ``n`` matches, a callable giving the other matches' ``(ids, scores)``
            in order (:meth:`complete` calls it; ``ids`` holds the best ``n``).
    """

    query: str
    hits: list[SearchHit]
    total: int
    total_exact: bool = True
    message: str = ""
    suggestion: str | None = None
    ids: Any = field(default=(), compare=False, repr=False)
    scores: Any = field(default=(), compare=False, repr=False)
    indexed: int | None = None
    papers: int | None = None
    interest: Any = field(default=None, compare=False, repr=False)
    rest: Any = field(default=None, compare=False, repr=False)

    @property
    def ranked(self) -> bool:
        """True when ``ids`` holds every match in order (no :attr:`rest` to rank)."""
        return self.rest is None

    @cached_property
    def positions(self) -> tuple[np.ndarray, np.ndarray]:
        """Where each match is in ``ids``: ``(sorted ids, the place of each in ids)``,
        both ``numpy.int64``, for a binary search (``numpy.searchsorted``). Computed
        once, on first use (a sort of every match: about 30 ms for 250,000 matches;
        the window's search thread asks for it before the results reach the UI
        thread, whose list finds its rows with it).
        """
        ids = np.asarray(self.ids, dtype=np.int64)
        order = np.argsort(ids, kind="stable")
        return ids[order], order

    @cached_property
    def id_list(self) -> list[int]:
        """``ids`` as a list of Python ints (what the window's list holds), made once,
        on first use: 840,000 ids take 20-30 ms, which the window's search thread
        spends before the results reach the UI thread (as for :attr:`positions`).
        Do not modify it."""
        ids = self.ids
        return ids.tolist() if hasattr(ids, "tolist") else list(ids)

    def complete(self) -> SearchResults:
        """These results with every match in ``ids``/``scores``, in order.

        Returns:
            ``self`` when already :attr:`ranked`; else a copy whose ``ids`` and
            ``scores`` are these followed by :attr:`rest`'s (numpy arrays; the sort of
            the rest runs now, on the caller's thread: a few ms per 100,000 matches).
        """
        if self.rest is None:
            return self
        ids, scores = self.rest()
        return replace(self, ids=np.concatenate((self.ids, ids)),
                       scores=np.concatenate((self.scores, scores)), rest=None)

    @property
    def partial(self) -> bool:
        """True when the search covered only part of the library (papers not yet
        indexed for search were not looked at)."""
        return self.papers is not None and (self.indexed or 0) < self.papers

    def coverage_note(self, indexing: bool = True) -> str:
        """What a :attr:`partial` search covered, else ``""``.

        Args:
            indexing: something is indexing the rest now (an import, the window):
                ``"searched 42,000 of 100,000 papers: the rest are still being
                indexed"``; else (an import or a restore was stopped before it indexed
                them) ``"searched 42,000 of 100,000 papers: 58,000 are not searchable
                yet"``, for the caller to add what to run.
        Returns:
            The note, without a final full stop.
        """
        if not self.partial:
            return ""
        head = f"searched {self.indexed:,} of {self.papers:,} papers"
        if indexing:
            return f"{head}: the rest are still being indexed"
        return f"{head}: {self.papers - (self.indexed or 0):,} are not searchable yet"

    def to_dict(self) -> dict:
        """The results as JSON-ready data (``search --json``): query, total, message,
        suggestion, coverage and hits; sorted by interest, also ``order`` (``ranked``,
        ``message``) and each hit's ``interest`` (its score, log-odds; ``None`` when not
        ranked) and ``up`` (the words that moved it up)."""
        doc = {"query": self.query, "total": self.total, "total_exact": self.total_exact,
                "message": self.message, "suggestion": self.suggestion,
                "partial": self.partial, "indexed": self.indexed, "papers": self.papers,
                "hits": [h.to_dict() for h in self.hits]}
        if self.interest is not None:        # sorted by interest: how, and why each
            reasons = self.interest.reasons
            doc["order"] = {"ranked": self.interest.ranked,
                            "message": self.interest.message}
            for hit in doc["hits"]:
                hit["interest"] = self.interest.scores.get(hit["id"])
                hit["up"] = list(reasons.get(hit["id"], ()))
        return doc


@dataclass(frozen=True)
class IndexStatus:
    """How far the search index is behind the library (:meth:`lib.index.status`).

    Attributes:
        papers: papers in the library.
        unindexed: papers not in the search index yet (queued to be added: an import
            that is still being indexed, or one stopped before it was).
        queued: every entry of the index queue (also papers whose indexed text is out of
            date, e.g. just tagged, and removed papers still in the index).
        repairing: the index is being rebuilt from SQLite (it was damaged or missing,
            see :attr:`Library.index_repair`).
    """

    papers: int
    unindexed: int
    queued: int
    repairing: bool = False

    @property
    def indexed(self) -> int:
        """Papers a search can find: ``papers - unindexed`` (never below 0)."""
        return max(0, self.papers - self.unindexed)

    @property
    def complete(self) -> bool:
        """True when every paper is in the index (updates may still be queued)."""
        return self.unindexed == 0

    def text(self) -> str:
        """``"Indexing 42,000 of 100,000"`` while papers wait (``"Repairing the search
        index 42,000 of 100,000"`` while it is rebuilt), else ``""``."""
        if self.complete:
            return ""
        if self.repairing:
            return f"Repairing the search index {self.indexed:,} of {self.papers:,}"
        return f"Indexing {self.indexed:,} of {self.papers:,}"


@dataclass
class FileReport:
    """The outcome of importing one file.

    Attributes:
        path: the file as given.
        added: new papers stored.
        duplicates: abstracts already in the library (or earlier in the same import).
        header: the file's collection name, when it was read.
        error: why the file was rejected (or, for a database error, why it stopped: the
            batches committed before it stay and are counted), or ``None``.
        cancelled: the import was cancelled inside this file; ``added`` and
            ``duplicates`` count the abstracts of the batches committed before that
            (importing the file again adds the rest).
        format: the format it was read as (``"text"``, ``"bibtex"``, ``"ris"``,
            ``"wos"``, ``"medline"``, ``"csl-json"``, ``"paperdesk-json"``), or ``None``
            when it was refused.
        enriched: records that matched a paper already in the library and filled in
            some of its missing metadata (counted neither as added nor as duplicates).
        without_abstract: records stored (or matched) that carry a title but no
            abstract.
        skipped: entries left out of a file that was read (a record with neither title
            nor abstract, a block that cannot be parsed); ``warnings`` says which.
        filtered: records of an arXiv metadata file that the import's filters
            (categories, date) left out.
        saved_searches: saved searches a paperdesk JSON export added (a name the
            library has already keeps the library's query).
        warnings: one line per entry left out, per value dropped (a malformed DOI,
            date, URL, arXiv id or citation key: the record is stored without it) and per
            value a matched paper kept although the record gives another.
    """

    path: str
    added: int = 0
    duplicates: int = 0
    header: str | None = None
    error: str | None = None
    cancelled: bool = False
    format: str | None = None
    enriched: int = 0
    without_abstract: int = 0
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    filtered: int = 0
    saved_searches: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ImportReport:
    """The outcome of :meth:`lib.imports.run`.

    Attributes:
        files: one report per file, in the order processed.
        cancelled: the import was cancelled; files after the cancelled one were not
            stored. The papers of the batches committed before the stop stay (each one
            whole) and are counted here; the file being imported then has
            ``FileReport.cancelled`` set.
        added_ids: ids of the papers added (committed), in import order.
        changed_ids: ids of papers already in the library that the import changed
            (committed): enriched with metadata, given an abstract, or listed under one
            more file; in import order, possibly repeated. :attr:`changes` says so to
            the window (a paper shown when it is enriched is shown again).
        index_pending: papers still waiting to be indexed when the import returned.
        near_duplicates: pairs of possible near-duplicates flagged by the stage run
            after the import (:meth:`lib.duplicates.find`; set by the caller that
            runs it: the CLI's ``import``, the window's follow-up operation), else 0.
    """

    files: list[FileReport] = field(default_factory=list)
    cancelled: bool = False
    added_ids: list[int] = field(default_factory=list)
    changed_ids: list[int] = field(default_factory=list)
    index_pending: int = 0
    near_duplicates: int = 0

    @property
    def changes(self) -> Changes:
        """What the import touched, as edits say it (:class:`~paperdesk.core.changes.
        Changes`): the papers added and changed, with ``sources`` set (lists and file
        counts must be read again) and ``search`` (their indexed text changed), and
        ``saved_searches`` when a JSON export added some."""
        return Changes.of(papers=[*self.added_ids, *self.changed_ids], sources=True,
                          search=True,
                          saved_searches=any(f.saved_searches for f in self.files))

    @property
    def added(self) -> int:
        """Total new papers."""
        return sum(f.added for f in self.files)

    @property
    def duplicates(self) -> int:
        """Total abstracts that were already present."""
        return sum(f.duplicates for f in self.files)

    @property
    def enriched(self) -> int:
        """Total records that filled in metadata of papers already present."""
        return sum(f.enriched for f in self.files)

    @property
    def without_abstract(self) -> int:
        """Total records with a title but no abstract."""
        return sum(f.without_abstract for f in self.files)

    @property
    def skipped(self) -> int:
        """Total entries left out of files that were read."""
        return sum(f.skipped for f in self.files)

    @property
    def filtered(self) -> int:
        """Total records left out by the filters of an arXiv import."""
        return sum(f.filtered for f in self.files)

    @property
    def rejected(self) -> list[dict]:
        """``[{"path": str, "reason": str}]`` for each rejected file."""
        return [{"path": f.path, "reason": f.error} for f in self.files if f.error]

    def to_dict(self) -> dict:
        return {
            "added": self.added,
            "duplicates": self.duplicates,
            "enriched": self.enriched,
            "without_abstract": self.without_abstract,
            "skipped": self.skipped,
            "filtered": self.filtered,
            "rejected": self.rejected,
            "cancelled": self.cancelled,
            "index_pending": self.index_pending,
            "near_duplicates": self.near_duplicates,
            "files": [f.to_dict() for f in self.files],
        }
