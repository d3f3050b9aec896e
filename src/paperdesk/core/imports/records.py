"""Bibliographic records (from BibTeX, RIS or CSL-JSON) and how they are stored: as new
papers, or merged onto papers the library already has. Pure but for the database
connection the caller passes; no Qt.

**Checking.** Every value is checked with :mod:`paperdesk.core.metadata`. A malformed
value (a DOI that is not one, a date that is not a date, an author without a family
name, a citation key with characters BibTeX refuses) does not reject the file or the
record: that value is dropped and a one-line note naming the entry says so
(``FileReport.warnings``). A record with neither a title nor an abstract is left out
with a note naming it (``FileReport.skipped``) unless it has a citation key and any
other field: that one (xampl.bib's ``@article{whole-journal, journal = ..., year =
...}``: the user cites it) is stored with an empty title. A record without an abstract is stored with an empty
abstract and counted in ``FileReport.without_abstract``.

**Identity.** A paper's ``content_hash`` is the SHA-256 of its normalised abstract with
typographic variants folded (:func:`paperdesk.core.text.content_hash`: a LaTeX decoding's
– and “q” match a typed ``--`` and ``"q"``). A record without an abstract is identified
instead by its DOI (lower case), else its arXiv id (without version), else by all it
says: its entry type, title, authors, date, URL, venue, volume, issue and pages (and its
key when it has no title); the hash is that of ``"paperdesk-identity:"`` + this key
(:func:`identity_key`). Two entries of xampl.bib that share a title, first author and
year (``article-minimal`` and ``article-full``) are two papers. Importing the same file
twice finds every record again. Papers stored before this rule carry the hash of their
title, year and first author (:func:`legacy_identity_key`); a record is found by it when
its citation key is that paper's key or alias.

**Merging, never duplicating.** A record is the same paper as one in the library when
its abstract hash (or identity hash) is that paper's, or else when its DOI (any case) or
its arXiv id (any version) is that paper's, or else when its abstract is a
near-duplicate of that paper's (:func:`paperdesk.core.store.duplicates.closest_paper`:
the near-duplicate measure at its threshold, among papers the near-duplicate stage has
looked at; not when the two carry different DOIs or arXiv ids; a note names the paper
and the similarity). Then it fills in that paper's *missing*
metadata only: authors when it has none, date, venue, entry type, DOI, arXiv id and URL
when they are empty, and its title when the paper's title is still the one derived from
the abstract and the record's title is a real one (not the title paperdesk derives from
the record's own abstract). A paper without an abstract (its title came from a record)
takes the record's abstract, and with it that abstract's hash as its ``content_hash``,
unless another paper has that abstract. A value already there (typed by the user or
brought by an earlier import) is never overwritten; when the record gives another, a
note says which value the paper kept. A DOI or arXiv id that another paper already has
is never copied (two papers never share one): a note names both papers. A record found
by its DOI or arXiv id whose abstract is unlike that paper's non-empty abstract (word
3-shingle similarity below :data:`UNLIKE_ABSTRACT`) is merged with a note saying so. The
citation key never changes: a record with another key leaves it on the paper as an alias
(:mod:`paperdesk.core.store.key_aliases`; a note says so when another paper has that
key). Such a record counts as ``enriched`` when it changed something, else as a
``duplicate``.

**Tags and notes.** A record's keywords become its paper's tags (created as needed) and
its notes are added to the paper's note unless their text is there already, on a new
paper and on one it is merged onto alike
(:mod:`paperdesk.core.imports.record_tags_notes`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

import sqlite_utils

from paperdesk.core.imports.abstract_limit import cut_note, limit_abstract
from paperdesk.core.imports.record_tags_notes import TagsAndNotes
from paperdesk.core.metadata import (MetadataError, check_arxiv_id, check_citation_key,
                                     check_date, check_doi, check_entry_type, check_url,
                                     is_et_al, merge_metadata)
from paperdesk.core.field_formats import merge_values
from paperdesk.core.fields import stored_fields
from paperdesk.core.models import Author, FileReport, Metadata, field_values
from paperdesk.core.duplicates import lookup_keys, similarity
from paperdesk.core.store import band_runs
from paperdesk.core.store.duplicates import closest_paper, paper_with_hash
from paperdesk.core.store.key_aliases import add_alias
from paperdesk.core.store.papers import (METADATA_COLUMNS, insert_paper, key_taken,
                                         metadata_from_row, write_metadata)
from paperdesk.core.text import content_hash, derive_title, normalize, sha256_hex

__all__ = ["Record", "RecordFile", "RawRecord", "Identifiers", "check_record", "identity_key",
           "near_duplicates_looked_up",
           "legacy_identity_key", "record_hash", "merge_metadata", "store_records"]


@dataclass(frozen=True)
class Record:
    """One bibliographic record, checked.

    Attributes:
        position: 1-based number of the entry in its file.
        label: how notes name it (``"entry smith2020"``, ``"record 3"``).
        title: its title, normalised ("" when it has none).
        abstract: its abstract, normalised ("" when it has none).
        metadata: checked metadata (values that failed their check are left out).
        citation_key: its key (BibTeX key, RIS ``ID``, CSL ``id``) when it is one
            paperdesk accepts, else ``None``.
        keywords: the record's keywords (BibTeX ``keywords``/``groups``, RIS ``KW``,
            CSL ``keyword``), normalised, each once, in file order: stored as tags.
        notes: the record's notes (BibTeX ``note``/``annote``/``annotation``, RIS ``N1``,
            CSL ``note``), NFC with line breaks kept, in file order: stored as notes.
        near_keys: what looking up a near-duplicate of its abstract needs of the
            abstract alone (:func:`paperdesk.core.duplicates.lookup_keys`: signature
            bytes or ``None``, buckets), when the parse child of an arXiv import
            computed it; ``None`` (any other record): computed when needed. Not part of
            the record's equality.
    """

    position: int
    label: str
    title: str
    abstract: str
    metadata: Metadata = field(default_factory=Metadata)
    citation_key: str | None = None
    keywords: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    near_keys: tuple[bytes | None, list[int]] | None = field(default=None, compare=False,
                                                             repr=False)


@dataclass
class RecordFile:
    """The records of one file.

    Attributes:
        path: absolute path, or ``"<stdin>"``.
        format: ``"bibtex"``, ``"ris"`` or ``"csl-json"``.
        encoding: the encoding it was decoded with.
        records: the records to store, in file order.
        skipped: one line per entry left out (no title and no abstract, unreadable).
        warnings: one line per value dropped because it failed its check.
    """

    path: Path | str
    format: str
    encoding: str
    records: list[Record] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class RawRecord:
    """A record as a reader found it, before checking (every value text or ``None``).

    ``authors`` are ``(family, given)`` pairs or ``(family, given, suffix)`` triples (a
    last ``("others", "")`` or ``("et al.", "")`` says the list is truncated: it becomes
    :attr:`Metadata.et_al`); ``entry_type`` is already one of
    :data:`paperdesk.core.metadata.ENTRY_TYPES` or
    ``None``; ``problems`` are notes the reader had about values it could not take (an
    author it could not read), copied to the file's warnings. ``abstract_length`` is
    the length of the abstract's raw value when the reader kept only its first
    :data:`~paperdesk.core.imports.abstract_limit.RAW_KEEP_CHARS` characters
    (:func:`~paperdesk.core.imports.abstract_limit.bounded`), else at most that.
    """

    label: str
    title: str = ""
    abstract: str = ""
    authors: list[tuple[str, str]] = field(default_factory=list)
    date: str | None = None
    entry_type: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    citation_key: str | None = None
    problems: list[str] = field(default_factory=list)
    abstract_length: int = 0
    #: The table-driven fields' texts by field name (the readers fill it with
    #: :mod:`paperdesk.core.field_formats`: ``bibtex_values``, ``ris_values``, ...).
    values: dict[str, str] = field(default_factory=dict)
    #: Keywords as the file gives them, one per item (a reader splits BibTeX's
    #: ``keywords = {a, b; c}`` and one RIS ``KW`` line per keyword): stored as tags.
    keywords: list[str] = field(default_factory=list)
    #: Notes as the file gives them (BibTeX ``annote``, RIS ``N1``, CSL ``note``, ...):
    #: stored as the paper's notes.
    notes: list[str] = field(default_factory=list)
    #: How many fields the entry has (BibTeX: every ``name = value``, read or not): an
    #: entry with a key and any field is the user's, kept without title or abstract.
    field_count: int = 0


#: Abstracts that say there is none, as databases write them (Scopus's "[No abstract
#: available]", "Abstract not available.", "N/A", ...), compared after case folding with
#: everything but letters and "/" dropped. Such a record is stored without an abstract
#: (identified by DOI, arXiv id or title), not as a paper whose abstract is the
#: placeholder: otherwise every record with the same placeholder would be one paper.
_PLACEHOLDER = re.compile(
    r"(?:there is )?no abstract(?: is)?(?: available| provided| given)?"
    r"(?: for this (?:item|article|paper|record|chapter))?"
    r"|abstract(?: is)? (?:not |un)(?:available|provided)|abstracts? not available"
    r"|not available|n/?a|none|null|no summary(?: available)?|abstract|tba|tbd")


def is_placeholder_abstract(text: str) -> bool:
    """Whether ``text`` only says that there is no abstract (:data:`_PLACEHOLDER`).

    Args:
        text: an abstract as a record gives it.
    Returns:
        True for e.g. ``"[No abstract available]"``, ``"ABSTRACT NOT AVAILABLE."``,
        ``"N/A"``; False for any real abstract.
    """
    letters = " ".join(re.sub(r"[^\w/]+|\d|_", " ", text.casefold()).split())
    return bool(letters) and len(letters) <= 60 and _PLACEHOLDER.fullmatch(letters) is not None


#: Longest label (``"entry smith2020"``) a note names a record by; a longer one (a very
#: long citation key) is cut with "…".
_LABEL_CHARS = 80


def check_record(raw: RawRecord, position: int, out: RecordFile) -> None:
    """Check a raw record and add it to ``out.records`` (or a note to ``out.skipped``);
    each value that fails its check is dropped with a note in ``out.warnings``; an
    abstract that only says there is none (:func:`is_placeholder_abstract`) is dropped
    with a note; an abstract longer than
    :data:`~paperdesk.core.imports.abstract_limit.MAX_ABSTRACT_CHARS` is cut, with a
    note (:func:`~paperdesk.core.imports.abstract_limit.limit_abstract`)."""
    if len(raw.label) > _LABEL_CHARS:  # "entry <a 50,000-character key>": notes stay one line
        raw.label = raw.label[:_LABEL_CHARS - 1] + "…"
    title, abstract = normalize(raw.title or ""), normalize(raw.abstract or "")
    if abstract and is_placeholder_abstract(abstract):
        out.warnings.append(f"{raw.label}: its abstract {abstract!r} says there is none; "
                            "imported without abstract")
        abstract = ""
    abstract, was = limit_abstract(abstract, raw.abstract_length)
    if was is not None:
        out.warnings.append(cut_note(raw.label, len(abstract), was))
    if not title and not abstract and not ((raw.citation_key or "").strip() and (
            raw.field_count or raw.authors or raw.date or raw.doi or raw.arxiv_id
            or raw.url or any(raw.values.values()) or raw.notes or raw.keywords)):
        out.skipped.append(f"{raw.label}: no title and no abstract; left out")
        return

    def checked(name: str, check, value):
        try:
            return check(value)
        except MetadataError as exc:
            out.warnings.append(f"{raw.label}: {exc}; value dropped")
            return None

    out.warnings.extend(f"{raw.label}: {p}" for p in raw.problems)
    authors = []
    names = list(raw.authors)
    # A last name "others" or "et al." alone (BibTeX's "and others"; paperdesk's RIS and
    # CSL-JSON exports write it so) is the truncation of the list, not a person.
    et_al = bool(names) and not any(names[-1][1:]) and is_et_al(names[-1][0] or "")
    for name in names[:-1] if et_al else names:
        family, given, suffix = (tuple(normalize(p or "") for p in name) + ("", "", ""))[:3]
        if family:
            authors.append(Author(family, given, suffix))
        elif given:     # a single-part name: keep it as the family name
            authors.append(Author(given, "", suffix))
    arxiv = checked("arxiv", check_arxiv_id, raw.arxiv_id)
    entry_type = checked("type", check_entry_type, raw.entry_type)
    if entry_type == "misc" and arxiv:
        entry_type = "preprint"
    meta = Metadata(authors=tuple(authors), date=checked("date", check_date, raw.date),
                    entry_type=entry_type,
                    doi=checked("doi", check_doi, raw.doi), arxiv_id=arxiv,
                    url=checked("url", check_url, raw.url),
                    values=field_values({k: normalize(v or "") for k, v in raw.values.items()}),
                    et_al=et_al)
    key = None
    if raw.citation_key and raw.citation_key.strip():
        key = checked("key", check_citation_key, raw.citation_key)
    if not title and not abstract and key is None:
        out.skipped.append(f"{raw.label}: no title, no abstract and no usable key; left out")
        return
    keywords = tuple(dict.fromkeys(k for k in (normalize(w or "").strip() for w in raw.keywords) if k))
    notes = tuple(n for n in (unicodedata.normalize("NFC", t or "").strip() for t in raw.notes) if n)
    out.records.append(Record(position, raw.label, title, abstract, meta, key, keywords, notes))


def _letters(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in folded if c.isalnum())


def _arxiv_base(arxiv_id: str) -> str:
    return re.sub(r"v\d+$", "", arxiv_id).lower()


#: The table-driven fields that are part of a record's identity: those stored when
#: identities took them in (issue 25). A field added later is left out, so that a file
#: imported before it existed is still found again afterwards.
_IDENTITY_FIELDS = ("venue", "volume", "issue", "pages")


def identity_key(record: Record) -> str:
    """The identity of a record without an abstract (see the module docstring):
    ``doi:<doi lower-cased>``, else ``arxiv:<id without version>``, else
    ``entry:`` + the entry type, title, every author, date, URL, venue, volume, issue
    and pages (:data:`_IDENTITY_FIELDS`; each text as its case-folded letters and
    digits), and, for a record without a title, its citation key: two records are one
    work only when all of these are the same."""
    meta = record.metadata
    if meta.doi:
        return "doi:" + meta.doi.lower()
    if meta.arxiv_id:
        return "arxiv:" + _arxiv_base(meta.arxiv_id)
    authors = ";".join(",".join(_letters(part) for part in (a.family, a.given, a.suffix))
                       for a in meta.authors)
    values = ";".join(f"{name}={_letters(meta.value(name))}" for name in _IDENTITY_FIELDS)
    named = "" if record.title else f"|key={record.citation_key or ''}"
    return (f"entry:{meta.entry_type or ''}|{_letters(record.title)}|{authors}|"
            f"{meta.date or ''}|{meta.url or ''}|{values}{named}")


def legacy_identity_key(record: Record) -> str:
    """The identity paperdesk gave a record without an abstract, DOI or arXiv id before
    citation keys were kept (issue 25): ``title:<letters and digits of the case-folded
    title>|<year>|<first author's family name, likewise>``. Papers stored then carry
    its hash; :func:`store_records` finds one by it only when the record's key is the
    paper's (the same entry imported again)."""
    meta = record.metadata
    first = _letters(meta.authors[0].family) if meta.authors else ""
    return f"title:{_letters(record.title)}|{meta.year or ''}|{first}"


def record_hash(record: Record) -> str:
    """The ``content_hash`` a record's paper has: of its abstract, or of its identity."""
    if record.abstract:
        return content_hash(record.abstract)
    return sha256_hex("paperdesk-identity:" + identity_key(record))   # not folded


def near_duplicates_looked_up(db: sqlite_utils.Database) -> bool:
    """Whether :func:`store_records` looks up each new record's near-duplicates in this
    library: True once the near-duplicate stage has looked at any paper (it has stored
    signatures, whose bands the band store keeps); without them no record can be a
    near-duplicate. One indexed read."""
    return db.execute("SELECT 1 FROM duplicate_checked WHERE signature IS NOT "
                      "NULL LIMIT 1").fetchone() is not None


class Identifiers:
    """The DOIs (lower case) and arXiv ids (without version) of the library's papers,
    read once per transaction (the DOI and arXiv id columns have no index, and a scan per
    record would cost milliseconds on a large library) and kept up to date by
    :func:`store_records` as it adds and enriches papers in that transaction."""

    def __init__(self, db: sqlite_utils.Database):
        self.doi: dict[str, int] = {}
        self.arxiv: dict[str, int] = {}
        #: Whether the near-duplicate stage has looked at any paper (stored
        #: signatures, whose bands the band store keeps): without them no record can be
        #: a near-duplicate, and the lookup (a MinHash and a band look-up per record)
        #: is skipped.
        self.banded = near_duplicates_looked_up(db)
        #: The library's band store (:mod:`paperdesk.core.store.band_runs`), loaded
        #: at the first record that needs it.
        self.bands = None
        for pid, doi, arxiv in db.execute(
                "SELECT id, doi, arxiv_id FROM papers WHERE doi IS NOT NULL "
                "OR arxiv_id IS NOT NULL ORDER BY id").fetchall():
            self.add(pid, doi, arxiv)

    def add(self, pid: int, doi: str | None, arxiv: str | None) -> None:
        if doi:
            self.doi.setdefault(doi.lower(), pid)
        if arxiv:
            self.arxiv.setdefault(_arxiv_base(arxiv), pid)

    def find(self, meta: Metadata) -> int | None:
        if meta.doi and meta.doi.lower() in self.doi:
            return self.doi[meta.doi.lower()]
        if meta.arxiv_id:
            return self.arxiv.get(_arxiv_base(meta.arxiv_id))
        return None


#: Below this similarity (:func:`paperdesk.core.duplicates.similarity`: the share of word
#: 3-shingles two abstracts have in common) a record whose DOI or arXiv id leads to a
#: paper has an abstract "unlike" that paper's, and a note says so: an abstract of
#: another work, or an identifier typed onto the wrong paper. Deliberately low (the
#: near-duplicate threshold is 0.5): only an abstract that shares almost no three-word
#: phrase with the paper's gets the note, not a reworded version of it.
UNLIKE_ABSTRACT = 0.05


def _legacy_paper(db: sqlite_utils.Database, record: Record) -> tuple[int] | None:
    """``(id,)`` of the paper stored before issue 25 under the record's
    :func:`legacy_identity_key`, when the record has no key or that paper answers to it
    (the same entry imported again, not another entry with the same title)."""
    meta = record.metadata
    if meta.doi or meta.arxiv_id:
        return None
    row = paper_with_hash(db, sha256_hex("paperdesk-identity:" + legacy_identity_key(record)))
    if row is None or record.citation_key is None:
        return row
    same = db.execute("SELECT 1 FROM papers WHERE id = ? AND citation_key = ? COLLATE NOCASE "
                      "UNION ALL SELECT 1 FROM citation_key_aliases WHERE paper_id = ? "
                      "AND alias = ?", [row[0], record.citation_key, row[0],
                                        record.citation_key]).fetchone()
    return row if same else None


def _keep_key(db: sqlite_utils.Database, pid: int, record: Record, notes: list[str]) -> bool:
    """Keep the key of a record merged onto paper ``pid`` as that paper's alias; True when
    it was added. A key that another paper has stays that paper's (noted)."""
    key = record.citation_key
    if key is None or add_alias(db, pid, key):
        return key is not None
    if key_taken(db, key, pid):
        notes.append(f"{record.label}: its key {key!r} is another paper's; paper {pid} "
                     "(which the record matches) does not take it as an alias")
    return False


class _KeysAhead:
    """The near-duplicate lookup keys of the records of one :func:`store_records` call:
    a record's own :attr:`Record.near_keys` when it carries them (the parse child
    computed them), else computed when the first record needs them for it and every
    later record of the call that lacks them, at once
    (:func:`~paperdesk.core.duplicates.lookup_keys`: numpy called per call rather than
    per record; the same values). A later record found by its hash or identifiers
    never needed them; a call has a few records (at most
    :data:`~paperdesk.core.imports.pipeline.HURRY_CHUNK` of an arXiv file, one of the
    other formats)."""

    def __init__(self, records: list[Record]) -> None:
        self._records = records
        self._keys: dict[int, tuple] = {}

    def __call__(self, k: int) -> tuple[bytes | None, list[int]]:
        """The keys of ``records[k]`` (which has an abstract)."""
        own = self._records[k].near_keys
        if own is not None:
            return own
        if k not in self._keys:
            todo = [j for j in range(k, len(self._records))
                    if self._records[j].abstract and self._records[j].near_keys is None]
            self._keys.update(zip(todo, lookup_keys(
                [self._records[j].abstract for j in todo])))
        return self._keys[k]


def _find(db: sqlite_utils.Database, record: Record, digest: str,
          ids: Identifiers, notes: list[str], keys=None) -> int | None:
    row = paper_with_hash(db, digest)   # or the paper it was merged into
    if row is None and not record.abstract:
        row = _legacy_paper(db, record)
    if row is not None:
        return row[0]
    pid = ids.find(record.metadata)
    if pid is not None and record.abstract:
        own = db.execute("SELECT abstract FROM papers WHERE id = ?", [pid]).fetchone()[0]
        if own:
            score = similarity(own, record.abstract)
            if score < UNLIKE_ABSTRACT:
                which = ("DOI" if record.metadata.doi
                         and ids.doi.get(record.metadata.doi.lower()) == pid else "arXiv id")
                notes.append(f"{record.label}: its {which} is paper {pid}'s but its abstract "
                             f"is unlike that paper's (similarity {score:.2f}); merged onto "
                             "that paper by its " + which + ": check they are the same work")
    if pid is not None or not record.abstract or not ids.banded:
        return pid
    if ids.bands is None:
        ids.bands = band_runs.store_for(db)
    near = closest_paper(db, record.abstract, bands=ids.bands,
                         keys=keys() if keys is not None else record.near_keys)
    if near is None:
        return None
    pid, score = near
    own = metadata_from_row(db.execute(
        f"SELECT {', '.join(METADATA_COLUMNS)} FROM papers WHERE id = ?", [pid]).fetchone())
    theirs = record.metadata
    if (own.doi and theirs.doi and own.doi.lower() != theirs.doi.lower()) or (
            own.arxiv_id and theirs.arxiv_id
            and _arxiv_base(own.arxiv_id) != _arxiv_base(theirs.arxiv_id)):
        return None     # another DOI or arXiv id: another work, however alike the text
    # Its abstract now leads to that paper, so importing the file again finds it at once.
    db.execute("INSERT OR IGNORE INTO merged_hashes (content_hash, paper_id) VALUES (?, ?)",
               [digest, pid])
    notes.append(f"{record.label}: its abstract is a near-duplicate of paper {pid}'s "
                 f"(similarity {score:.2f}); merged onto that paper instead of adding a copy")
    return pid


def _stored(containers: bool) -> tuple:
    return tuple((f.name, lambda m, name=f.name: m.value(name) or None)
                 for f in stored_fields(containers))


_FIELDS = (("authors", lambda m: m.authors), ("date", lambda m: m.date),
           *_stored(containers=True), ("type", lambda m: m.entry_type),
           ("doi", lambda m: (m.doi or "").lower() or None),
           ("arxiv", lambda m: _arxiv_base(m.arxiv_id) if m.arxiv_id else None),
           ("url", lambda m: m.url), *_stored(containers=False))


def _shown(value) -> str:
    if isinstance(value, tuple):
        return "; ".join(map(str, value))
    return str(value)


def _not_taken(pid: int, record: Record, ids: Identifiers, notes: list[str]) -> Metadata:
    """The record's metadata without a DOI or arXiv id that another paper than ``pid``
    has (two papers never share one), each left out with a note naming both papers."""
    meta = record.metadata
    doi, arxiv = meta.doi, meta.arxiv_id
    other = ids.doi.get(doi.lower()) if doi else None
    if other is not None and other != pid:
        notes.append(f"{record.label}: its DOI {doi} is paper {other}'s; paper {pid} "
                     "(which the record matches) does not take it")
        doi = None
    other = ids.arxiv.get(_arxiv_base(arxiv)) if arxiv else None
    if other is not None and other != pid:
        notes.append(f"{record.label}: its arXiv id {arxiv} is paper {other}'s; paper "
                     f"{pid} (which the record matches) does not take it")
        arxiv = None
    if (doi, arxiv) == (meta.doi, meta.arxiv_id):
        return meta
    return replace(meta, doi=doi, arxiv_id=arxiv)


def _real_title(record: Record) -> bool:
    """Whether the record's title is a real one: not the title paperdesk derives from the
    record's own abstract (a paperdesk export of a paper without its own title)."""
    return bool(record.title) and not (record.abstract
                                       and record.title == derive_title(record.abstract))


def _enrich(db: sqlite_utils.Database, pid: int, record: Record, ids: Identifiers,
            notes: list[str]) -> bool:
    """Fill in what paper ``pid`` lacks from ``record``; True when something changed.
    Each value the paper has that the record gives differently is kept and noted; a
    DOI or arXiv id that another paper has is not taken (noted)."""
    row = db.execute(f"SELECT title, derived_title, abstract, "
                     f"{', '.join(METADATA_COLUMNS)} FROM papers WHERE id = ?",
                     [pid]).fetchone()
    title, derived, abstract, own = row[0], row[1], row[2], metadata_from_row(row[3:])
    changed = _keep_key(db, pid, record, notes)
    merged = merge_metadata(own, _not_taken(pid, record, ids, notes))
    if merged != own:
        write_metadata(db, pid, merged)
        changed = True
    for name, get in _FIELDS:
        mine, theirs = get(own), get(record.metadata)
        if mine and theirs and mine != theirs:
            notes.append(f"{record.label}: paper {pid} keeps its {name} {_shown(mine)!r} "
                         f"(the file has {_shown(theirs)!r})")
    if not abstract and record.abstract:
        # The paper came without an abstract (a record with only a title): it takes
        # this record's, unless another paper has that abstract already.
        digest = content_hash(record.abstract)
        if db.execute("SELECT 1 FROM papers WHERE content_hash = ?",
                      [digest]).fetchone() is None:
            db.conn.execute("UPDATE papers SET abstract = ?, content_hash = ?, "
                            "derived_title = ? WHERE id = ?",
                            [record.abstract, digest, derive_title(record.abstract), pid])
            changed = True
        else:
            notes.append(f"{record.label}: its abstract is another paper's; paper {pid} "
                         "stays without one")
        return changed       # its title came from a record: keep it
    # A paper without an abstract took its title from a record: that title is real. A
    # record's title that is its own abstract's derived title (a paperdesk export of a
    # paper without its own title) is not.
    real = _real_title(record)
    if real and abstract and title == derived and record.title != title:
        db.conn.execute("UPDATE papers SET title = ?, file_title = ? WHERE id = ?",
                        [record.title, record.title, pid])
        changed = True
    elif real and title != derived and record.title != title:
        notes.append(f"{record.label}: paper {pid} keeps its title {title!r} (the file "
                     f"has {record.title!r})")
    return changed


def store_records(db: sqlite_utils.Database, records: list[Record], source_id: int,
                  report: FileReport, now: str, ids: Identifiers | None = None,
                  tags_notes: TagsAndNotes | None = None) -> tuple[list[int], list[int]]:
    """Store records (inside the caller's transaction): each becomes a new paper, or is
    merged onto the paper it matches (see the module docstring).

    A new paper gets the record's title as its own title (the derived title when it has
    none), ``derived_title`` from the abstract (from the title when there is no
    abstract), its metadata and its citation key when no other paper has it.

    Args:
        db: the library database.
        records: checked records.
        source_id: the ``sources`` row of the file (provenance: one ``paper_sources``
            row per record, at the record's position).
        report: ``added``, ``enriched``, ``duplicates`` and ``without_abstract`` are
            counted up; a note for each value a matched paper keeps although the record
            gives another is added to ``warnings``.
        now: ISO 8601 UTC time of the import.
        ids: the library's identifiers, read in this transaction (one is read when
            ``None``); kept up to date.
        tags_notes: stores each record's keywords as tags and its notes on its paper
            (:class:`~paperdesk.core.imports.record_tags_notes.TagsAndNotes`, made for
            this transaction; one that stores keywords is made when ``None``). A paper
            already there that gains a tag or note text counts as ``enriched``.
    Returns:
        ``(added_ids, changed_ids)``: new papers, and existing papers to re-index
        (enriched, or newly from this file).
    """
    added, changed = [], []
    ids = Identifiers(db) if ids is None else ids
    tags_notes = TagsAndNotes(db) if tags_notes is None else tags_notes
    keys = _KeysAhead(records)
    for k, record in enumerate(records):
        digest = record_hash(record)
        pid = _find(db, record, digest, ids, report.warnings, lambda k=k: keys(k))
        if not record.abstract:
            report.without_abstract += 1
        if pid is None:
            derived = derive_title(record.abstract) if record.abstract else record.title
            pid = insert_paper(db, content_hash=digest, abstract=record.abstract,
                               derived_title=derived, title=record.title or derived,
                               added_at=now,
                               metadata=None if record.metadata == Metadata()
                               else record.metadata,
                               citation_key=record.citation_key,
                               file_title=record.title if _real_title(record) else None)
            added.append(pid)
            report.added += 1
            new = True
            ids.add(pid, record.metadata.doi, record.metadata.arxiv_id)
            if record.keywords or record.notes:
                tags_notes.store(pid, record.label, record.keywords, record.notes, now,
                                 report.warnings)
        else:
            new = False
            gained = bool(record.keywords or record.notes) and tags_notes.store(
                pid, record.label, record.keywords, record.notes, now, report.warnings)
            if _enrich(db, pid, record, ids, report.warnings) or gained:
                ids.add(pid, record.metadata.doi, record.metadata.arxiv_id)
                report.enriched += 1
                changed.append(pid)
            else:
                report.duplicates += 1
        ref = db.execute("INSERT OR IGNORE INTO paper_sources (paper_id, source_id, position) "
                         "VALUES (?, ?, ?)", [pid, source_id, record.position]).rowcount
        if ref and not new and pid not in changed:
            changed.append(pid)
    return added, changed
