"""The one list of paper fields: what each field is called, where it is stored, whether it
is a list column, how it sorts, how it is searched and how each export format writes it.

In the spirit of calibre's field metadata (``src/calibre/library/field_metadata.py``):
the paper list's columns and sort keys, the CLI's ``--sort`` choices, the query
language's field names and the export field list are all read from :data:`PAPER_FIELDS`
instead of being spelled out where they are used. The table only *describes* fields;
reading a field's value stays with ``lib.papers.get``/``lib.papers.summaries`` and the
export writers in :mod:`paperdesk.core.exports` for the fields with a rule of their own
(tests check that what this table says a writer writes is what it writes).

A field declared with ``stored=True`` (a plain text field in a column of ``papers``) is
driven by the table alone: its value travels by name in :attr:`paperdesk.core.models.
Metadata.values`; storage (:mod:`paperdesk.core.store.papers`), the BibTeX, RIS and
CSL-JSON readers and writers, CSV and JSON, the search index, the paper list's column,
the detail pane, the metadata editor, the CLI's ``edit``/``show`` and the duplicate merge
read it from here, so such a field is one row of :data:`PAPER_FIELDS` plus a migration
adding its column (:mod:`paperdesk.core.store.schema`).

Adding a field: see "Adding a paper field" in docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Field", "PAPER_FIELDS", "field", "sortable_fields", "list_fields",
           "export_fields", "search_fields", "default_search_fields", "order_by",
           "SORT_CHOICES", "RELEVANCE", "INTEREST", "UnknownField", "stored_fields",
           "PAGE_RANGE", "CONTAINER"]


class UnknownField(ValueError):
    """No paper field has that name (a ``ValueError``, so callers that check user
    input with ``except ValueError`` keep working)."""


@dataclass(frozen=True)
class Field:
    """One paper field.

    Attributes:
        name: the field's name everywhere a user types or sees one: ``--sort``,
            ``--fields``, the export dialog's ``field_<name>`` boxes and the CSV header.
        label: the export dialog's check box text (``"Date added"``).
        type: value type: ``"int"``, ``"text"``, ``"datetime"`` (ISO 8601 UTC text),
            ``"date"`` (ISO 8601 ``YYYY[-MM[-DD]]``), ``"bool"`` or ``"list"`` (several values from another table or the abstract).
        column: the SQL column or expression on ``papers`` that holds it, or ``None``
            when it lives in another table or is derived from the abstract.
        header: the paper list's column header, or ``None`` when it is not a list column.
        shown: the list column is shown by default.
        header_tip: the list column header's tooltip (what clicking it does).
        sort_sql: ``ORDER BY`` text with ``{d}`` for ``ASC``/``DESC``, or ``None`` when
            the field does not sort.
        search: the Whoosh field the query language names (``title:``, ``tag:``, ...),
            or ``None`` when the field cannot be searched by name. A stored field's
            search field is analysed as lower-cased space-separated words (like ``doi``),
            or as words with positions with :attr:`words`.
        searched_by_default: plain words (no ``field:`` prefix) search it.
        csv: the CSV column header (also the Markdown section's field), or ``None``
            when the field is not exported.
        json: the key of the lossless JSON export, or ``None``.
        bibtex: the BibTeX field it becomes, or ``None`` (the citation key and the entry
            type are the entry's head, ``@type{key,``, not fields).
        ris: the RIS tag it becomes, or ``None``.
        csl: the CSL-JSON variable it becomes, or ``None``.
        stored: a plain text field driven by this table alone (see the module
            docstring): its value (``""`` when unknown) is in the ``papers`` column
            :attr:`column` and in ``Metadata.values[name]``.
        bibtex_read: further BibTeX/biblatex fields read on import when :attr:`bibtex`
            is absent, in order (``("issue",)``); stored fields only.
        ris_read: further RIS tags read on import, likewise; stored fields only.
        csl_read: further CSL-JSON variables read on import, likewise; stored only.
        rule: a format rule of a stored field: ``None`` (the text as it is),
            :data:`PAGE_RANGE` (a page range "first-last": BibTeX writes ``--``, RIS
            the first page under :attr:`ris` and the last under :attr:`ris_end`,
            CSL-JSON ``-``; readers take any of these back to ``first-last``) or
            :data:`CONTAINER` (where the paper appeared: its BibTeX field, RIS tag and
            CSL variable follow the entry type, :attr:`bibtex_types`, :attr:`ris_types`
            and :attr:`csl_types`; BibTeX protects its case with double braces; the
            rules of each format are in :mod:`paperdesk.core.field_formats`).
        bibtex_types: a :data:`CONTAINER`'s BibTeX field by paperdesk entry type, as
            ``(type, field)`` pairs, where it is not :attr:`bibtex`.
        ris_types: a stored field's RIS tag by entry type, likewise (:attr:`ris`
            otherwise; ``""``: none for that type).
        ris_read_types: the RIS tags read on import by entry type, in order, where they
            are not :attr:`ris` then :attr:`ris_read` (``(type, (tag, ...))`` pairs;
            ``()``: none for that type).
        csl_types: a :data:`CONTAINER`'s CSL variable by CSL item type, likewise
            (:attr:`csl` otherwise).
        words: the search field is analysed as unstemmed words with positions (the
            author field's analyser: ``venue:"proc. of icml"``) instead of lower-cased
            space-separated keywords.
        ris_end: the RIS tag of the last page of a :data:`PAGE_RANGE` (``"EP"``).
        editor: the metadata editor's widget for a stored field: ``"line"`` (one line
            of text) or ``None`` (not edited there).
        cli: the ``paperdesk edit`` option of a stored field (``"--volume"``), or
            ``None``.
        merge: how merging two papers (duplicates, imports onto a paper) takes a
            stored field: ``"fill"`` (the kept paper's value, else the other's).

    BibTeX, RIS and CSL-JSON always write the entry type and the citation key (they
    identify an entry there), whatever fields an export keeps.
    """

    name: str
    label: str
    type: str
    column: str | None = None
    header: str | None = None
    shown: bool = False
    header_tip: str = ""
    sort_sql: str | None = None
    search: str | None = None
    searched_by_default: bool = False
    csv: str | None = None
    json: str | None = None
    bibtex: str | None = None
    ris: str | None = None
    csl: str | None = None
    stored: bool = False
    bibtex_read: tuple[str, ...] = ()
    ris_read: tuple[str, ...] = ()
    csl_read: tuple[str, ...] = ()
    rule: str | None = None
    ris_end: str | None = None
    bibtex_types: tuple[tuple[str, str], ...] = ()
    ris_types: tuple[tuple[str, str], ...] = ()
    ris_read_types: tuple[tuple[str, tuple[str, ...]], ...] = ()
    csl_types: tuple[tuple[str, str], ...] = ()
    words: bool = False
    editor: str | None = None
    cli: str | None = None
    merge: str = "fill"

    @property
    def sortable(self) -> bool:
        """Whether the list and ``lib.search.find`` can sort by this field."""
        return self.sort_sql is not None


#: :attr:`Field.rule` of a page range ("12-34"; BibTeX ``12--34``, RIS ``SP``/``EP``).
PAGE_RANGE = "page range"
#: :attr:`Field.rule` of where a paper appeared (journal, proceedings, publisher, ...).
CONTAINER = "container"

#: Every paper field, in export column order (the CSV header follows this order).
PAPER_FIELDS: tuple[Field, ...] = (
    Field("id", "ID", "int", column="id", csv="id", json="id"),
    Field("title", "Title", "text", column="title", header="Title", shown=True,
          header_tip="Sort by title (click again to reverse)",
          sort_sql="title COLLATE NOCASE {d}, id {d}", search="title",
          searched_by_default=True, csv="title", json="title", bibtex="title", ris="TI",
          csl="title"),
    Field("abstract", "Abstract", "text", column="abstract", search="abstract",
          searched_by_default=True, csv="abstract", json="abstract", bibtex="abstract",
          ris="AB", csl="abstract"),
    Field("tags", "Tags", "list", search="tag", csv="tags", json="tags",
          bibtex="keywords", ris="KW", csl="keyword"),
    Field("note", "Note", "text", search="note", searched_by_default=True, csv="note",
          json="note", bibtex="note", ris="N1", csl="note"),
    # Highlight comments are searched with comment:; the highlighted text is not indexed.
    Field("highlights", "Highlights", "list", search="comment", searched_by_default=True,
          csv="highlights", json="highlights", bibtex="annote", ris="N1", csl="note"),
    # The paper's own metadata (set by the user or an import; never from the abstract).
    Field("citation_key", "Citation key", "text", column="citation_key", search="key",
          csv="citation_key", json="citation_key", ris="ID", csl="id"),
    Field("type", "Entry type", "text", column="entry_type", csv="type", json="entry_type",
          ris="TY", csl="type"),
    # Sorting by authors sorts by the first author's family name; papers without
    # authors come last in either direction.
    Field("authors", "Authors", "list", header="First author",
          header_tip="Sort by the first author's family name (click again to reverse)",
          sort_sql="json_extract(authors, '$[0][0]') IS NULL, "
                   "json_extract(authors, '$[0][0]') COLLATE NOCASE {d}, id {d}",
          search="author", searched_by_default=True, csv="authors", json="authors",
          bibtex="author", ris="AU", csl="author"),
    Field("year", "Date", "date", column="date", header="Year",
          header_tip="Sort by publication date (click again to reverse)",
          sort_sql="date IS NULL, date {d}, id {d}", search="year", csv="date",
          json="date", bibtex="year", ris="PY", csl="issued"),
    # Where the paper appeared, driven by this table (rule CONTAINER): its BibTeX field,
    # RIS tag and CSL variable follow the entry type (the one for articles, then the
    # others by type); the RIS tags read depend on the type too; searched as words.
    Field("venue", "Venue", "text", column="venue", header="Venue",
          header_tip="Sort by venue (click again to reverse)",
          sort_sql="venue = '', venue COLLATE NOCASE {d}, id {d}", search="venue",
          words=True, csv="venue", json="venue", bibtex="journal",
          bibtex_read=("journaltitle", "booktitle", "publisher", "school", "institution",
                       "organization", "howpublished"),
          bibtex_types=(("inproceedings", "booktitle"), ("preprint", "howpublished"),
                        ("book", "publisher"), ("incollection", "booktitle"),
                        ("thesis", "school"), ("report", "institution"),
                        ("misc", "howpublished")),
          ris="T2", ris_read=("JF", "JO", "JA", "J2", "PB"),
          ris_types=(("book", "PB"), ("thesis", "PB"), ("report", "PB")),
          ris_read_types=(("inproceedings", ("T2", "JF", "JO", "C3", "JA", "J2", "PB")),
                          *((t, ("PB", "T2", "JF", "JO", "JA", "J2"))
                            for t in ("book", "thesis", "report"))),
          csl="container-title", csl_read=("publisher",),
          csl_types=(("book", "publisher"), ("thesis", "publisher"), ("report", "publisher"),
                     ("article", "publisher"), ("document", "publisher")),
          rule=CONTAINER, stored=True),
    # Where the paper is in its venue: plain text fields, driven by this table alone.
    Field("volume", "Volume", "text", column="volume", header="Volume",
          header_tip="Sort by volume (click again to reverse)",
          sort_sql="volume = '', CAST(volume AS INTEGER) {d}, volume {d}, id {d}",
          search="volume", csv="volume", json="volume", bibtex="volume", ris="VL",
          csl="volume", stored=True, editor="line", cli="--volume"),
    Field("issue", "Issue", "text", column="issue", header="Issue",
          header_tip="Sort by issue (click again to reverse)",
          sort_sql="issue = '', CAST(issue AS INTEGER) {d}, issue {d}, id {d}",
          search="issue", csv="issue", json="issue", bibtex="number", bibtex_read=("issue",),
          ris="IS", csl="issue", stored=True, editor="line", cli="--issue"),
    Field("pages", "Pages", "text", column="pages", header="Pages",
          header_tip="Sort by first page (click again to reverse)",
          sort_sql="pages = '', CAST(pages AS INTEGER) {d}, pages {d}, id {d}",
          search="pages", csv="pages", json="pages", bibtex="pages", ris="SP", ris_end="EP",
          csl="page", rule=PAGE_RANGE, stored=True, editor="line", cli="--pages"),
    # Who published it, its book and serial numbers and its language: plain text fields,
    # driven by this table alone. RIS has one tag, SN, for both numbers: the ISSN of a
    # journal article (JOUR), the ISBN of anything else (Zotero's RIS translator reads and
    # writes SN so). A book's publisher is its venue (the CONTAINER's field, tag and
    # variable for books, theses and reports): written once, as the venue.
    Field("publisher", "Publisher", "text", column="publisher", header="Publisher",
          header_tip="Sort by publisher (click again to reverse)",
          sort_sql="publisher = '', publisher COLLATE NOCASE {d}, id {d}",
          search="publisher", words=True, csv="publisher", json="publisher", bibtex="publisher", ris="PB", csl="publisher", stored=True,
          editor="line", cli="--publisher"),
    Field("isbn", "ISBN", "text", column="isbn", search="isbn", csv="isbn", json="isbn", bibtex="isbn",
          ris="SN", ris_types=(("article", ""),), ris_read_types=(("article", ()),),
          csl="ISBN", stored=True, editor="line", cli="--isbn"),
    Field("issn", "ISSN", "text", column="issn", search="issn", csv="issn", json="issn", bibtex="issn",
          ris="", ris_types=(("article", "SN"),), ris_read_types=(("article", ("SN",)),),
          csl="ISSN", stored=True, editor="line", cli="--issn"),
    # biblatex's language (classic BibTeX styles ignore it), then its langid.
    Field("language", "Language", "text", column="language", header="Language",
          header_tip="Sort by language (click again to reverse)",
          sort_sql="language = '', language COLLATE NOCASE {d}, id {d}",
          search="language", csv="language",
          json="language", bibtex="language", bibtex_read=("langid",), ris="LA",
          csl="language", stored=True, editor="line", cli="--language"),
    Field("doi", "DOI", "text", column="doi", search="doi", csv="doi", json="doi",
          bibtex="doi", ris="DO", csl="DOI"),
    Field("arxiv_id", "arXiv ID", "text", column="arxiv_id", search="arxiv",
          csv="arxiv_id", json="arxiv_id", bibtex="eprint", ris="AN",
          csl="archive_location"),
    Field("url", "URL", "text", column="url", csv="url", json="url", bibtex="url",
          ris="UR", csl="URL"),
    # Links, arXiv ids and DOIs that appear in the abstract: other work, not the paper's;
    # never a BibTeX url/eprint, RIS UR or CSL URL (the abstract itself still holds them).
    Field("mentioned", "Mentioned links and ids", "list", search="mentions",
          csv="mentioned", json="mentioned"),
    # source: matches file names, their stems and header lines.
    Field("sources", "Source files", "list", search="source", csv="sources",
          json="sources"),
    Field("added", "Date added", "datetime", column="added_at", header="Added",
          shown=True, header_tip="Sort by the date added (click again to reverse)",
          sort_sql="added_at {d}, id {d}", csv="added", json="added_at",
          bibtex="urldate", ris="Y2", csl="accessed"),
    Field("read", "Read", "datetime", column="read_at", csv="read", json="read_at"),
    Field("starred", "Starred", "bool", column="starred", csv="starred", json="starred"),
)

_BY_NAME = {f.name: f for f in PAPER_FIELDS}

#: The table-driven fields (:attr:`Field.stored`), in table order.
_STORED: tuple[Field, ...] = tuple(f for f in PAPER_FIELDS if f.stored)
_CONTAINERS = tuple(f for f in _STORED if f.rule == CONTAINER)
_NOT_CONTAINERS = tuple(f for f in _STORED if f.rule != CONTAINER)


def _check_stored(fields: tuple[Field, ...]) -> None:
    """Refuse a table-driven field the generic code cannot carry, naming the field and
    the attribute (a mistake in this table, found when the program starts)."""
    for f in fields:
        problem = (
            "has no column" if not f.column else
            f"has type {f.type!r} (only 'text')" if f.type != "text" else
            f"has rule {f.rule!r}" if f.rule not in (None, PAGE_RANGE, CONTAINER) else
            f"has editor {f.editor!r}" if f.editor not in (None, "line") else
            f"has merge rule {f.merge!r} (only 'fill')" if f.merge != "fill" else
            "has a page range without ris_end" if f.rule == PAGE_RANGE and f.ris and
            not f.ris_end else None)
        if problem:
            raise ValueError(f"paper field {f.name!r}: a stored field {problem}")


_check_stored(_STORED)

#: The sort that only a search has: best matches first (BM25F).
RELEVANCE = "relevance"
#: "Worth reading first": the order learned from what the user kept and skipped
#: (:meth:`paperdesk.core.discover.engine.Discover.interest`); date added, oldest
#: first, while too few papers were kept.
INTEREST = "interest"


def field(name: str) -> Field:
    """Return the field called ``name``.

    Args:
        name: a :attr:`Field.name` (``"title"``, ``"added"``, ``"arxiv_id"``, ...).
    Returns:
        The :class:`Field`.
    Raises:
        UnknownField: no field has that name.
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownField(f"unknown paper field {name!r}; use one of "
                           f"{', '.join(_BY_NAME)}") from None


def stored_fields(containers: bool | None = None) -> tuple[Field, ...]:
    """Return the plain text fields driven by this table alone (:attr:`Field.stored`),
    in table order: what :attr:`paperdesk.core.models.Metadata.values` may hold.

    Args:
        containers: ``True``: only the :data:`CONTAINER` fields (the venue, which
            outputs with a fixed order of their own write right after the date or the
            title); ``False``: only the others; ``None``: all.
    Returns:
        The fields.
    """
    if containers is None:
        return _STORED
    return _CONTAINERS if containers else _NOT_CONTAINERS


def sortable_fields() -> tuple[Field, ...]:
    """Return the fields the list can sort by, in table order."""
    return tuple(f for f in PAPER_FIELDS if f.sortable)


def list_fields(shown_only: bool = False) -> tuple[Field, ...]:
    """Return the paper list's field columns in table order.

    Args:
        shown_only: only the columns shown by default.
    Returns:
        Fields with a :attr:`Field.header`.
    """
    return tuple(f for f in PAPER_FIELDS if f.header and (f.shown or not shown_only))


def export_fields() -> tuple[str, ...]:
    """Return the names of the fields an export can hold, in column order."""
    return tuple(f.name for f in PAPER_FIELDS if f.csv is not None)


def search_fields() -> tuple[str, ...]:
    """Return the Whoosh field names a query may name with ``name:``."""
    return tuple(f.search for f in PAPER_FIELDS if f.search)


def default_search_fields() -> tuple[str, ...]:
    """Return the Whoosh fields plain words search, in table order."""
    return tuple(f.search for f in PAPER_FIELDS if f.search and f.searched_by_default)


#: Every order the GUI and the CLI offer: ``"relevance"`` (searches only), then the
#: sortable fields by name (``"added"``, ``"title"``), then ``"interest"`` (worth
#: reading first).
SORT_CHOICES: tuple[str, ...] = (RELEVANCE, *sorted(f.name for f in sortable_fields()),
                                 INTEREST)


def order_by(name: str, descending: bool = False) -> str:
    """Return the SQL ``ORDER BY`` text (without the keywords) for a sortable field.

    Args:
        name: a sortable field's name.
        descending: reverse the order.
    Returns:
        E.g. ``"added_at DESC, id DESC"``.
    Raises:
        ValueError: the name is not a sortable field (``"relevance"`` included).
    """
    found = _BY_NAME.get(name)
    if found is None or not found.sortable:
        raise ValueError(f"unknown order {name!r}; use one of "
                         f"{sorted(f.name for f in sortable_fields())}")
    return found.sort_sql.format(d="DESC" if descending else "ASC")
