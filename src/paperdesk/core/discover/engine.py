"""The library's discover manager (``Library.discover``): related papers, key terms, tag
suggestions, the "worth reading first" order and the most frequent key terms, all over
one term table (:mod:`.term_table`) kept up to date with the library.

Keeping the table current:

* the first use loads ``terms/`` (memory-mapped, milliseconds) and checks every paper's
  text stamp against SQLite (:func:`~.term_table.current_stamps`, ~0.1 s at 100,000
  papers); after any change to the library (``Library._changed`` calls
  :meth:`Discover.mark_stale`) the next use checks again;
* up to :data:`UPDATE_MAX` papers new or edited since are transformed in the calling
  thread into a new part (a fraction of a second);
* with no table, or more papers missing than that (or than a quarter of the table), the
  query methods raise :class:`~.models.TermsNotReady`, and :meth:`Discover.ensure`
  builds the whole table: in a child process from :data:`~.build.CHILD_FROM` papers.
  The CLI calls it with a progress line; the window calls it on a thread of its own,
  with progress and Cancel, so that no reader or writer of the library waits for it.

Thread safety: every method may be called from any thread; a short lock guards the
current table, a second one lets only one full build run at a time.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from paperdesk.core.discover import interest as _interest
from paperdesk.core.discover.build import (CHILD_FROM, BuildCancelled, BuildFailed,  # noqa: F401 (BuildCancelled: raised by ensure)
                                           build_in_child, build_table, update_part)
from paperdesk.core.discover.models import (InterestOrder, KeyTerm, NotInTable,
                                            RelatedPaper, TagSuggestion, TermsNotReady,
                                            TermsStatus)
from paperdesk.core.discover.boilerplate import boilerplate_words, is_registry_id
from paperdesk.core.discover.coauthors import CoauthorIndex, shared_author_names
from paperdesk.core.discover.embedded import PaperEmbeddings
from paperdesk.core.discover.hybrid import hybrid_rows
from paperdesk.core.discover.title_venue import TitleVenueIndex, venue_key
from paperdesk.core.discover.related import key_columns, nearest_rows, shared_columns
from paperdesk.core.discover.tag_suggestions import MIN_EXAMPLES, NEIGHBOURS, tag_votes
from paperdesk.core.models import LibraryError, UnknownPaper
from paperdesk.core.store.db import fits_integer
from paperdesk.core.discover.term_table import (TERMS_DIR, TermTable, TermTableError,
                                                current_stamps, next_generation)

if TYPE_CHECKING:
    from paperdesk.core.library import Library

__all__ = ["Discover", "UPDATE_MAX", "RELATED_LIMIT", "KEY_TERMS", "SHARED_TERMS"]

_log = logging.getLogger(__name__)

#: Most papers brought into the table by an update in the calling thread.
UPDATE_MAX = 2000
#: Related papers listed by default.
RELATED_LIMIT = 10
#: Key terms shown per paper by default.
KEY_TERMS = 8
#: Shared terms named per related paper.
SHARED_TERMS = 5
#: Shared terms looked at for them, before boilerplate is left out (:mod:`.boilerplate`).
SHARED_LOOKED_AT = 20
#: Key terms per paper counted by :meth:`Discover.frequent_terms`.
COUNTED_TERMS = 5

ProgressCallback = Callable[[int, int], None]


def _unit_range(values: np.ndarray, what: str) -> None:
    """Cosines and unit-length weights lie in 0..1 (up to rounding): a value outside
    (NaN, 5.6e28: bytes of a table file changed without its size or time changing) is
    damage, never an answer.

    Raises:
        ValueError: a value outside; :meth:`Discover._reading` drops the table.
    """
    values = np.asarray(values, dtype=np.float64)
    bad = values[~((values >= -1e-4) & (values <= 1 + 1e-4))]
    if len(bad):
        raise ValueError(f"{what} of {bad[0]:.3g} is outside 0..1")


def _guarded(method):
    """Run a query method inside :meth:`Discover._reading` (damage found in use)."""
    import functools

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._reading():
            return method(self, *args, **kwargs)
    return run


class Discover:
    """Related papers, key terms, tag suggestions and the interest order of a library.

    Args:
        library: the open :class:`~paperdesk.core.library.Library` (its ``db`` gives the
            calling thread's connection; its folder holds ``terms/``).
    """

    def __init__(self, library: "Library"):
        self._lib = library
        self._lock = threading.RLock()
        #: Guards :attr:`_tag_counts` only, so that the writer dropping counts after an
        #: import's batch never waits for a related-papers answer holding :attr:`_lock`
        #: (checking a million papers' text stamps takes seconds).
        self._counts_lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._table: TermTable | None = None
        self._stale = True
        self._missing: int | None = None
        self._progress = (0, 0)
        self._building = False
        self.problem: str | None = None
        #: Why the table in use was built in memory and not saved (one line), or None.
        self.not_kept: str | None = None
        self._model_key = None
        self._model = None
        self._examples_cache: tuple[np.ndarray, np.ndarray] | None = None
        self._recount = True
        self._counted: tuple | None = None
        #: The table on disk was found damaged and could not be dropped (a library that
        #: cannot be written): build it in memory instead of loading it again.
        self._disk_damaged = False
        #: Why the damaged table :meth:`full_problems` found could not be removed (one
        #: clause), or ``None`` (removed, none found, or a library that may not be
        #: written).
        self.not_dropped: str | None = None
        #: The papers' embedding vectors (:mod:`.embedded`): related papers are hybrid
        #: when there are some.
        self.embeddings = PaperEmbeddings(library, self._not_writable)
        #: Papers by author (:mod:`.coauthors`), built at the first related papers after
        #: texts or metadata changed.
        self._coauthors: CoauthorIndex | None = None
        #: Title vectors and venues (:mod:`.title_venue`), built and dropped with it.
        self._titles_venues: TitleVenueIndex | None = None
        #: ``{tag id: papers with it}`` of the tags asked about by :meth:`suggest_tags`
        #: since they last changed (counting a tag reads its whole index range: ~11 ms
        #: per 100,000 papers with it); see :meth:`_tag_examples`.
        self._tag_counts: dict[int, int] = {}
        #: Raised by every dropping of counts: a count read before it is not kept.
        self._tag_counts_turn = 0

    # -- keeping the table current -------------------------------------------------
    @property
    def folder(self):
        """The library's ``terms/`` folder."""
        return self._lib.path / TERMS_DIR

    def mark_stale(self) -> None:
        """Something in the library changed (marks, tags, notes, ...): read the examples
        of the interest order again at the next use, and check that no paper was added
        or deleted (by another process too: one ``count(*)``)."""
        self._examples_cache = None
        self._recount = True

    def mark_texts_changed(self) -> None:
        """Papers were added, deleted or their titles edited: check every paper's text
        stamp at the next use (and count every tag again: a deleted paper takes its tags
        with it, an import may tag papers)."""
        self._drop_tag_counts(None)
        self._examples_cache = None
        self._stale = True
        self._coauthors = None
        self._titles_venues = None

    def note_changes(self, changes) -> None:
        """Take note of a committed :class:`~paperdesk.core.changes.Changes` (a new edit,
        an undo or a redo): texts changed when it added or removed papers or edited a
        title or other metadata; otherwise only marks or annotations did."""
        if changes.tags:
            self._drop_tag_counts(changes.tags)
        elif "tags" in changes.fields:
            self._drop_tag_counts(None)
        if changes.sources or changes.fields & {"title", "metadata"}:
            self.mark_texts_changed()
        else:
            self.mark_stale()

    def _drop_tag_counts(self, tag_ids) -> None:
        """Forget the example counts of ``tag_ids`` (``None``: of every tag): they are
        counted again when next asked for."""
        with self._counts_lock:
            self._tag_counts_turn += 1
            if tag_ids is None:
                self._tag_counts.clear()
            else:
                for tag in tag_ids:
                    self._tag_counts.pop(int(tag), None)

    def _tag_examples(self, tag_ids: Sequence[int]) -> dict[int, int]:
        """How many papers of the library have each tag.

        Kept per tag until a change names the tag (:meth:`note_changes`: tagging,
        untagging, merging, deleting, their undo and redo) or papers are added or
        deleted (:meth:`mark_texts_changed`), so that a suggestion does not count the
        papers of every tag it names (a third of the library each in the benchmark's
        library: 43 ms of the 53 of a suggestion at 300,000 papers). A library open
        read-only is written by another process, which tells this one nothing: its
        counts are read every time.

        Args:
            tag_ids: the tags.
        Returns:
            ``{tag id: papers}`` for every one of ``tag_ids`` (0: none, or no such tag).
        Raises:
            sqlite3.Error: the database cannot be read.
        """
        keep = not self._lib.read_only
        with self._counts_lock:
            turn = self._tag_counts_turn
            known = {t: self._tag_counts[t] for t in tag_ids
                     if keep and t in self._tag_counts}
        missing = [int(t) for t in tag_ids if t not in known]
        if missing:
            counted = dict.fromkeys(missing, 0)
            for k in range(0, len(missing), 500):
                chunk = missing[k:k + 500]
                counted.update(self._lib.db.execute(
                    "SELECT tag_id, count(*) FROM paper_tags WHERE tag_id IN "
                    f"({','.join('?' * len(chunk))}) GROUP BY tag_id", chunk).fetchall())
            with self._counts_lock:
                # a change committed meanwhile may or may not be in these counts
                if keep and self._tag_counts_turn == turn:
                    self._tag_counts.update(counted)
            known.update(counted)
        return known

    def _count_changed(self) -> bool:
        count, top = self._lib.db.execute("SELECT count(*), max(id) FROM papers").fetchone()
        seen, self._counted = self._counted, (count, top)
        return seen != (count, top)

    def status(self) -> TermsStatus:
        """Where the table stands (no SQLite or file access)."""
        table = self._table
        return TermsStatus(int(table.valid.sum()) if table is not None else 0,
                           self._missing, self._building, *self._progress,
                           problem=self.problem,
                           not_kept=self.not_kept if table is not None else None)

    def _writable(self) -> bool:
        return self._not_writable() is None

    def not_writable(self) -> str | None:
        """Why ``terms/`` must not be written (one line; then a damaged table is not
        dropped but built again in memory), or ``None`` when it may be."""
        return self._not_writable()

    def _not_writable(self) -> str | None:
        """Why ``terms/`` must not be written (one line), or ``None`` when it may be: the
        library is open read-only (another process holds it, or its folder cannot be
        written), or its database file cannot be written (a library that cannot be
        changed gets no new files either)."""
        from paperdesk.core.store.db import folder_writable

        db_path = self._lib.path / "library.db"
        if not folder_writable(db_path):
            what = "folder" if not os.access(self._lib.path, os.W_OK) else "database"
            return f"the library's {what} cannot be written"
        if self._lib.read_only:
            return getattr(self._lib, "read_only_reason", None) or \
                "the library is open read-only (another process holds it)"
        if self.folder.exists() and not os.access(self.folder, os.W_OK):
            return f"{self.folder} cannot be written"
        return None

    def _current(self) -> TermTable:
        """The table, checked and updated; raises :class:`TermsNotReady`."""
        with self._lock:
            table = self._table
            if table is None:
                if self._disk_damaged:
                    self._missing = None
                    raise TermsNotReady("the term table on disk is damaged; it is built "
                                        "again")
                try:
                    table = TermTable.load(self.folder, update=self._writable())
                except TermTableError as exc:
                    self._missing = None
                    if exc.damaged:   # said once, by TermsNotReady (the CLI's note)
                        _log.info("term table damaged: %s", exc)
                        raise TermsNotReady(f"the term table is damaged ({exc}); it is "
                                            "built again") from None
                    raise TermsNotReady(f"the term table must be built ({exc})") from None
                self._table, self._stale = table, True
            if self._recount:
                self._recount = False
                if self._count_changed():
                    self._stale = True
                    self._coauthors = None
                    self._titles_venues = None
            if not self._stale:
                return table
            self._too_many_new(table)
            ids, stamps = current_stamps(self._lib.db)
            self._counted = (len(ids), int(ids[-1]) if len(ids) else None)
            self._recount = False
            missing = table.validate(ids, stamps)
            self._missing = len(missing)
            if len(missing) == 0:
                self._stale = False
                return table
            base = len(table.parts[0].ids) if table.parts else 0
            if len(missing) > UPDATE_MAX or len(missing) > max(base, 1) // 4 + 20:
                raise TermsNotReady(f"{len(missing):,} papers are not in the term table",
                                    len(missing))
            part = update_part(table, self._lib.path / "library.db", missing)
            try:
                table.append_part(self.folder if self._writable() else None, part)
            except OSError as exc:
                _log.info("term table update kept in memory: %s", exc)
                table.append_part(None, part)
            table.validate(ids, stamps)
            self._missing = 0
            self._stale = False
            self._model_key = None
            return table

    def _too_many_new(self, table: TermTable) -> None:
        """Raise :class:`TermsNotReady` when more papers were added after the table's
        newest one than an update takes (:data:`UPDATE_MAX`, or a quarter of the
        table), counted on the id index without reading every paper's text stamp: during
        a large import each related-papers answer checked a million stamps (seconds,
        holding the lock) only to find the table behind."""
        base = len(table.parts[0].ids) if table.parts else 0    # as the update's rule
        newest = int(table.row_ids.max()) if len(table.row_ids) else 0
        limit = min(UPDATE_MAX, max(base, 1) // 4 + 20)
        # At most limit + 1 rows are looked at (counting them all read the table's
        # pages of every new paper: 0.3 s at 150,000 new papers).
        over = self._lib.db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM papers WHERE id > ? LIMIT ?)",
            [newest, limit + 1]).fetchone()[0]
        if over > limit:
            top = self._lib.db.execute("SELECT max(id) FROM papers").fetchone()[0] or 0
            new = max(over, top - newest)   # about: exact unless papers were deleted
            self._missing = new
            raise TermsNotReady(f"{new:,} papers are not in the term table", new)

    def ready(self) -> bool:
        """Whether the query methods can answer now (the table is loaded and current,
        or can be brought up to date quickly). May read SQLite (about 0.1 s at 100,000
        papers after a change)."""
        try:
            self._current()
            return True
        except TermsNotReady:
            return False

    def ensure(self, progress: ProgressCallback | None = None,
               cancel: Callable[[], bool] | None = None) -> TermsStatus:
        """Bring the table up to date, building it whole when needed.

        Args:
            progress: ``progress(papers_read, papers_total)`` during a full build.
            cancel: returns True to stop a full build (the old table stays).
        Returns:
            The :class:`TermsStatus` afterwards: ``missing`` > 0 when papers were added
            during the build (more than an update takes: the query methods still raise
            :class:`TermsNotReady` for them, and the next call builds again);
            ``not_kept`` says why the table is in memory only (a read-only library).
        Raises:
            BuildCancelled: cancelled.
            BuildFailed: the build failed (one line; also kept in :attr:`problem`).
            sqlite3.Error: the database cannot be read.
        """
        if self.ready():
            return self.status()
        with self._build_lock:
            if self.ready():            # another thread built it meanwhile
                return self.status()
            self._building = True
            self._progress = (0, 0)

            def step(done: int, total: int) -> None:
                self._progress = (done, total)
                if progress is not None:
                    progress(done, total)
            try:
                n = self._lib.papers.count()
                table = None
                not_kept = self._not_writable()
                if n >= CHILD_FROM and not_kept is None:
                    build_in_child(self._lib.path / "library.db", self.folder, step, cancel)
                else:
                    table = build_table(self._lib.path / "library.db", step, cancel)
                    if not_kept is None:
                        try:
                            table.save(self.folder, next_generation(self.folder))
                        except OSError as exc:
                            _log.info("term table kept in memory: %s", exc)
                            not_kept = f"{self.folder} cannot be written " \
                                f"({exc.strerror or exc})"
                with self._lock:
                    if table is None:
                        try:
                            table = TermTable.load(self.folder)
                        except TermTableError as exc:
                            raise BuildFailed(str(exc)) from None
                    self._table = table
                    self._stale = True
                    self._model_key = None
                    self.not_kept = not_kept
                    self._disk_damaged = False
                self.problem = None
            except BuildFailed as exc:
                self.problem = str(exc)
                raise
            except sqlite3.Error as exc:
                self.problem = f"the database cannot be read ({exc})"
                raise
            finally:
                self._building = False
                self._progress = (0, 0)
        try:
            self._current()
        except TermsNotReady:
            # Papers were added while it was built (an import in another thread or
            # process): the build is done and in place, the status says how many papers
            # it misses, and the next ensure (after the import) builds again. Raised
            # from here, it reached the window's build thread as a traceback (issue 23).
            pass
        return self.status()

    @contextmanager
    def _reading(self):
        """Around a computation over the table: a value out of range (a damaged file
        that passed the size checks at load) drops the table, so that the next
        :meth:`ensure` builds it again, and raises :class:`TermsNotReady`."""
        try:
            yield
        except (IndexError, ValueError) as exc:
            if isinstance(exc, LibraryError):
                raise
            table = self._table
            # the file read when it is known (a term not UTF-8: the vocabulary), else
            # the folder: the message names where the damage is, said once
            where = self.folder / f"g{table.generation}-vocab.bin" \
                if isinstance(exc, UnicodeDecodeError) and table is not None else self.folder
            self._drop()
            _log.info("term table damaged: %s: %s", where, exc)
            raise TermsNotReady(f"the term table is damaged ({where}: {exc}); it is built "
                                "again") from None

    def _drop(self) -> str | None:
        """Forget a damaged table, and (when the library may be written) remove its
        ``meta.json`` (a file or a folder of that name), or ``terms`` itself when it is
        not a folder, so that the next :meth:`ensure` builds it again.

        Returns:
            ``None`` when it was removed (or the library may not be written: nothing is
            removed then), else why it could not be (one clause: ``"a symbolic link:
            not followed"``, ``"Permission denied"``).
        """
        with self._lock:
            self._table = None
            self._stale = True
            self._disk_damaged = True
        if not self._writable():
            return None
        folder, meta = self.folder, self.folder / "meta.json"
        if folder.is_symlink():               # never a planted link's target
            return "a symbolic link: not followed"
        try:
            if folder.exists() and not folder.is_dir():
                folder.unlink()               # a file where the folder was
            elif meta.is_dir() and not meta.is_symlink():
                shutil.rmtree(meta)
            else:
                meta.unlink(missing_ok=True)
        except OSError as exc:
            return exc.strerror or "it cannot be removed"
        return None

    def full_problems(self) -> list[str]:
        """The check of ``paperdesk check``: every file of ``terms/`` read whole and its
        CRC-32 compared with the one recorded when it was written
        (:meth:`TermTable.full_problems`). A damaged table is dropped: the next use
        builds it again from SQLite.

        Returns:
            One line per problem, each naming the file (empty: whole, or no table).
        """
        problems = TermTable.full_problems(self.folder)
        self.not_dropped = None
        if problems:              # said by check, one line per problem
            _log.info("term table damaged: %s", problems[0])
            self.not_dropped = self._drop()
        return problems

    def _row(self, table: TermTable, paper_id: int) -> int:
        if not fits_integer(paper_id):     # beyond SQLite's INTEGER: no paper
            raise UnknownPaper(paper_id)
        row = int(table.rows_of([paper_id])[0])
        if row >= 0 and len(table.row(row)[0]) == 0:
            row = -1        # a row without terms (an abstract of numbers): as no row
        if row < 0:
            if self._lib.db.execute("SELECT 1 FROM papers WHERE id = ?",
                                    [paper_id]).fetchone() is None:
                raise UnknownPaper(paper_id)
            raise NotInTable(f"paper {paper_id} has no words to compare "
                             "(its title and abstract have no terms)")
        return row

    def _titles(self, ids: Sequence[int], column: str = "title") -> dict[int, str]:
        """``{id: its title}`` (or its ``column``: ``"venue"``) of those of ``ids``
        that exist."""
        if column not in ("title", "venue"):
            raise ValueError(f"not a column read here: {column!r}")
        out: dict[int, str] = {}
        ids = list(ids)
        for k in range(0, len(ids), 500):
            chunk = ids[k:k + 500]
            marks = ",".join("?" * len(chunk))
            out.update(self._lib.db.execute(
                f"SELECT id, {column} FROM papers WHERE id IN ({marks})", chunk).fetchall())
        return out

    def _same_venues(self, paper_id: int, ids: Sequence[int]) -> dict[int, str]:
        """``{id: its venue}`` for those of ``ids`` whose venue is the paper's
        (:func:`~.title_venue.venue_key`: case folded, spaces collapsed; none empty)."""
        venues = self._titles([paper_id, *ids], "venue")
        mine = venue_key(venues.get(paper_id))
        if not mine:
            return {}
        return {pid: venues[pid] for pid in ids if venue_key(venues.get(pid)) == mine}

    # -- what it answers -----------------------------------------------------------
    def related(self, paper_id: int, limit: int = RELATED_LIMIT) -> list[RelatedPaper]:
        """The papers most similar to one, each with the terms they share.

        Args:
            paper_id: the paper.
            limit: most papers (1 or more).
        Returns:
            Up to ``limit`` :class:`RelatedPaper`, most similar first: by the hybrid of
            embedding, tf-idf and title cosines, shared authors, venue and feedback
            (:func:`~.hybrid.hybrid_rows`) when the paper has a vector, else by the
            cosine of tf-idf (see :mod:`.related`). The shared terms named leave out
            the words of either paper's disclosure, funding or registration sections
            and trial registry numbers (:mod:`.boilerplate`); they still count in the
            score.
        Raises:
            UnknownPaper: no such paper.
            NotInTable: the paper has no terms.
            TermsNotReady: call :meth:`ensure` first.
        """
        table = self._current()
        row = self._row(table, paper_id)
        vectors = self.embeddings.current()
        coauthors, titles_venues = self._pair_indexes() if vectors is not None \
            else (None, None)
        with self._reading():
            found = hybrid_rows(table, row, vectors, max(1, int(limit)),
                                coauthors=coauthors, titles_venues=titles_venues) \
                if vectors is not None else None
            rows, scores = found if found is not None else \
                nearest_rows(table, row, max(1, int(limit)))
            _unit_range(scores, "a similarity")
            ids = [int(i) for i in table.row_ids[rows]]
            pairs = [(pid, r, score, [table.term(c) for c in
                                      shared_columns(table, row, [r], SHARED_LOOKED_AT)])
                     for pid, r, score in zip(ids, rows.tolist(), scores.tolist())]
        titles = self._titles(ids)
        boiler = self._boilerplate([paper_id, *ids])
        mine = boiler.get(paper_id, frozenset())
        pairs = [(pid, r, score, tuple(
            [t for t in shared if t not in mine and t not in boiler.get(pid, ())
             and not is_registry_id(t)][:SHARED_TERMS]))
            for pid, r, score, shared in pairs]
        authors = shared_author_names(self._lib.db, paper_id, ids) \
            if found is not None and ids else {}
        venues = self._same_venues(paper_id, ids) if found is not None and ids else {}
        return [RelatedPaper(pid, titles.get(pid, ""), round(float(score), 4), shared,
                             authors.get(pid, ()), venues.get(pid, ""))
                for pid, _r, score, shared in pairs]

    def _boilerplate(self, ids: Sequence[int]) -> dict[int, frozenset[str]]:
        """``{id: its boilerplate words}`` (:func:`~.boilerplate.boilerplate_words`) of
        the papers whose abstract has a boilerplate section (one SELECT of a few
        abstracts)."""
        ids = list(dict.fromkeys(int(i) for i in ids))
        out = {}
        for k in range(0, len(ids), 500):
            chunk = ids[k:k + 500]
            marks = ",".join("?" * len(chunk))
            for pid, abstract in self._lib.db.execute(
                    f"SELECT id, abstract FROM papers WHERE id IN ({marks})", chunk):
                words = boilerplate_words(abstract)
                if words:
                    out[int(pid)] = words
        return out

    def _pair_indexes(self) -> tuple[CoauthorIndex, TitleVenueIndex]:
        """The papers by author and the title vectors and venues, built when missing
        (each reads SQLite once: ~0.5-2.4 s at 100,000 papers)."""
        with self._lock:
            if self._coauthors is None:
                self._coauthors = CoauthorIndex.build(self._lib.db)
            if self._titles_venues is None:
                self._titles_venues = TitleVenueIndex.build(self._lib.db)
            return self._coauthors, self._titles_venues

    def key_terms(self, paper_id: int, limit: int = KEY_TERMS) -> list[KeyTerm]:
        """A paper's key terms: its heaviest tf-idf terms.

        Args:
            paper_id: the paper.
            limit: most terms.
        Returns:
            :class:`KeyTerm` list, heaviest first.
        Raises:
            UnknownPaper, NotInTable, TermsNotReady: as :meth:`related`.
        """
        table = self._current()
        row = self._row(table, paper_id)
        with self._reading():
            cols, weights = key_columns(table, row, max(1, int(limit)))
            _unit_range(weights, "a term weight")
            return [KeyTerm(table.term(int(c)), round(float(w), 4))
                    for c, w in zip(cols, weights)]

    def neighbours(self, paper_id: int, limit: int = NEIGHBOURS
                   ) -> tuple[list[int], list[float]]:
        """The papers most similar to one, without titles or shared terms (what tag
        suggestions vote with; :mod:`.tag_evaluation` asks for every paper's).

        Args:
            paper_id: the paper.
            limit: most papers (1 or more).
        Returns:
            ``(ids, cosines)``, most similar first (cosine of tf-idf, 0..1; none below
            :data:`~.related.MIN_SCORE`).
        Raises:
            UnknownPaper, NotInTable, TermsNotReady: as :meth:`related`.
        """
        table = self._current()
        row = self._row(table, paper_id)
        with self._reading():
            rows, scores = nearest_rows(table, row, max(1, int(limit)))
            _unit_range(scores, "a similarity")
            return ([int(i) for i in table.row_ids[rows]],
                    [float(s) for s in scores.tolist()])

    @_guarded
    def suggest_tags(self, paper_id: int, limit: int = 3) -> list[TagSuggestion]:
        """Existing tags the paper's most similar papers have and it has not, on
        evidence (:mod:`.tag_suggestions`: a share of the votes of at least
        :data:`~.tag_suggestions.MIN_SHARE`, and :data:`~.tag_suggestions.MIN_EXAMPLES`
        papers with the tag).

        Args:
            paper_id: the paper.
            limit: most suggestions (and most held-back tags).
        Returns:
            :class:`TagSuggestion` list: the suggestions, strongest first, then the tags
            held back for too few examples (``held_back``; their ``reason`` says so),
            strongest first. Empty when no similar paper has a tag it has not.
        Raises:
            UnknownPaper, NotInTable, TermsNotReady: as :meth:`related`.
        """
        near, cosines = self.neighbours(paper_id, NEIGHBOURS)
        asked = near + [int(paper_id)]
        tags_of: dict[int, set[int]] = {}
        own: set[int] = set()
        for pid, tag in self._lib.db.execute(
                "SELECT paper_id, tag_id FROM paper_tags WHERE paper_id IN "
                f"({','.join('?' * len(asked))})", asked):
            if pid == paper_id:
                own.add(tag)
            else:
                tags_of.setdefault(pid, set()).add(tag)
        if not tags_of:
            return []
        voted = sorted(set().union(*tags_of.values()) - own)
        examples = self._tag_examples(voted)
        suggested, held = tag_votes(near, cosines, tags_of, own, examples, limit)
        votes = suggested + held
        if not votes:
            return []
        names = dict(self._lib.db.execute(
            f"SELECT id, name FROM tags WHERE id IN ({','.join('?' * len(votes))})",
            [v.tag_id for v in votes]).fetchall())
        table = self._current()
        row = self._row(table, paper_id)
        found = []
        for v in votes:
            if v.tag_id in names:
                like = v.voters[:3]
                shared = shared_columns(table, row, table.rows_of(list(like)), 3)
                found.append(TagSuggestion(
                    v.tag_id, names[v.tag_id], round(v.score, 4), tuple(like),
                    tuple(table.term(c) for c in shared), v.examples, MIN_EXAMPLES))
        return found

    def _id_list(self, sql: str) -> np.ndarray:
        """The ids one ``SELECT group_concat(id) ...`` gives, as a sorted int64 array (one
        string from SQLite instead of a row per paper: 80,000 ids in ~10 ms)."""
        text = self._lib.db.execute(sql).fetchone()[0]
        if not text:
            return np.zeros(0, np.int64)
        return np.sort(np.array(text.split(","), dtype=np.int64))

    def _examples(self) -> tuple[np.ndarray, np.ndarray]:
        """``(positive ids, negative ids)``, cached until the library changes."""
        with self._lock:
            if self._examples_cache is not None:
                return self._examples_cache
        positive = self._id_list(
            "SELECT group_concat(id) FROM papers WHERE starred"
            " OR id IN (SELECT paper_id FROM paper_tags)"
            " OR id IN (SELECT paper_id FROM notes)"
            " OR id IN (SELECT paper_id FROM highlights)")
        read = self._id_list("SELECT group_concat(id) FROM papers WHERE read_at IS NOT NULL")
        negative = np.setdiff1d(read, positive, assume_unique=True)
        with self._lock:
            self._examples_cache = (positive, negative)
        return positive, negative

    def _date_order(self, ids: Sequence[int] | None) -> list[int]:
        if ids is None:
            return [r[0] for r in self._lib.db.execute(
                "SELECT id FROM papers WHERE read_at IS NULL ORDER BY added_at, id")]
        wanted = set(int(i) for i in ids)
        added = {}
        listed = list(wanted)
        for k in range(0, len(listed), 500):
            chunk = listed[k:k + 500]
            added.update(self._lib.db.execute(
                f"SELECT id, added_at FROM papers WHERE id IN ({','.join('?' * len(chunk))})",
                chunk).fetchall())
        return sorted(added, key=lambda i: (added[i], i))

    @_guarded
    def interest(self, ids: Sequence[int] | None = None,
                 with_reasons: int | None = None) -> InterestOrder:
        """Order papers by how likely the user is to keep them.

        Args:
            ids: the papers to order (e.g. the list's unread papers), or ``None`` for
                every unread paper.
            with_reasons: name the words that moved up only the first this many papers
                of the order (``None``: all of them).
        Returns:
            An :class:`InterestOrder`: ranked by the model (see :mod:`.interest`), or in
            date-added order (oldest first) with a message when fewer than
            :data:`~.interest.MIN_POSITIVES` papers were kept. Papers without terms
            come after the ranked ones, in date order; papers already starred, tagged
            or annotated (judged: examples, not suggestions) come after all others.
        Raises:
            TermsNotReady: call :meth:`ensure` first.
        """
        table = self._current()
        positive, negative = self._examples()
        pos_rows = table.rows_of(positive)
        pos_rows = pos_rows[pos_rows >= 0]
        if len(pos_rows) < _interest.MIN_POSITIVES:
            order = self._date_order(ids)
            need = _interest.MIN_POSITIVES
            return InterestOrder(
                order, False,
                f"Worth reading first needs at least {need} papers starred or tagged "
                f"(now {len(pos_rows)}); showing them by date added.",
                positives=len(pos_rows))
        neg_rows = table.rows_of(negative)
        neg_rows = neg_rows[neg_rows >= 0]
        rng = np.random.default_rng(0)
        if len(pos_rows) > _interest.MAX_EXAMPLES:      # the latest count most
            pos_rows = np.sort(pos_rows)[-_interest.MAX_EXAMPLES:]
        if len(neg_rows) > _interest.MAX_EXAMPLES:
            neg_rows = np.sort(neg_rows)[-_interest.MAX_EXAMPLES:]
        key = (id(table), table.n_rows, len(table.parts), positive.tobytes(),
               negative.tobytes())
        with self._lock:
            model = self._model if self._model_key == key else None
        if model is None:
            labelled = np.zeros(table.n_rows, dtype=bool)
            labelled[pos_rows] = True
            labelled[neg_rows] = True
            others = np.flatnonzero(table.valid & ~labelled)
            if len(others) > _interest.BACKGROUND:
                others = np.sort(rng.choice(others, _interest.BACKGROUND, replace=False))
            model = _interest.fit(table, pos_rows, neg_rows, others)
            with self._lock:
                self._model, self._model_key = model, key
        candidates = self._date_order(ids)
        rows = table.rows_of(candidates)
        have = rows >= 0
        scores = _interest.score_rows(table, model, rows[have])
        cand = np.asarray(candidates, dtype=np.int64)
        ranked_ids = cand[have]
        order = np.argsort(-scores, kind="stable")
        ordered = [int(i) for i in ranked_ids[order]] + [int(i) for i in cand[~have]]
        # papers already kept (starred, tagged, annotated) are judged: after the others
        kept = set(positive.tolist())
        ordered = [i for i in ordered if i not in kept] + [i for i in ordered if i in kept]
        score_of = {int(i): round(float(s), 4) for i, s in zip(ranked_ids, scores)}
        limit = len(ordered) if with_reasons is None else max(0, int(with_reasons))
        reasons = {}
        for pid in ordered[:limit]:
            r = int(table.rows_of([pid])[0])
            if r >= 0:
                reasons[pid] = tuple(table.term(c)
                                     for c in _interest.top_reasons(table, model, r))
        return InterestOrder(
            ordered, True,
            f"Ordered by what you kept: learned from {len(positive):,} papers starred, "
            f"tagged or annotated and {len(negative):,} read and skipped.",
            positives=len(positive), negatives=len(negative), scores=score_of,
            reasons=reasons)

    @_guarded
    def frequent_terms(self, limit: int = 20,
                       ids: Sequence[int] | None = None) -> list[tuple[str, int]]:
        """The key terms most papers have (each paper's :data:`COUNTED_TERMS` heaviest).

        Args:
            limit: most terms.
            ids: count only these papers (``None``: every paper).
        Returns:
            ``[(term, papers), ...]``, most papers first (ties by term).
        Raises:
            TermsNotReady: call :meth:`ensure` first.
        """
        table = self._current()
        rows = (np.flatnonzero(table.valid) if ids is None
                else table.rows_of(list(ids)))
        rows = rows[rows >= 0]
        cols = table.top_columns(rows, COUNTED_TERMS)
        if len(cols) == 0:
            return []
        counts = np.bincount(cols, minlength=table.n_terms)
        good = np.flatnonzero(counts)
        terms = [(table.term(int(c)), int(counts[c])) for c in good]
        terms.sort(key=lambda t: (-t[1], t[0]))
        return terms[:limit]
