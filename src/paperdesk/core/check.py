"""Checking a library: the quick checks made at every open and the full check of
``paperdesk check`` (Help ▸ Check Library in the window).

At every open (:class:`~paperdesk.core.library.Library`):

* a ``library.db`` that is missing or empty in a folder that was a library (it has an
  ``index/`` or a ``backups/`` folder) is refused (:func:`refuse_lost_database`): no new
  empty library is made over it, and the latest backup is offered;
* ``PRAGMA quick_check`` (:func:`database_problem`; 0.2-0.4 s at 100,000 papers, a
  246 MB database, with the file in the page cache): on damage every write is refused;
* the search index's cheap check (:func:`paperdesk.core.search.integrity.quick_problems`:
  a ``stat`` per segment file, 2 ms at 100,000 papers) and its document count against
  SQLite; damage makes the index be rebuilt from SQLite.

The full check (:func:`check_library`) adds ``PRAGMA integrity_check`` and ``PRAGMA
foreign_key_check`` (on a thread and connection of their own) beside every index file
read and every segment opened, then every abstract hashed again, and a sample of
papers each found by a query made of its own words and by its id in the ``pid`` column.
At 300,000 Zipf papers (520 MB database, 1 GB index), in CPU seconds: 6.8 for the two
SQLite checks beside 4-6 for the index's files, then 2.2 for the hashes. See
https://www.sqlite.org/pragma.html#pragma_integrity_check for the two SQLite checks.
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from paperdesk.core.store import band_runs
from paperdesk.core.store.backup import latest_backup
from paperdesk.core.models import LibraryError

__all__ = ["Problem", "CheckReport", "refuse_unreadable_folder", "refuse_foreign_database",
           "refuse_lost_database",
           "database_problem", "database_message", "restore_hint", "damage_hint",
           "check_library", "STEPS", "SAMPLE", "REINDEX_HINT", "SALVAGE_HINT"]

#: Papers looked up by their own words in the full check.
SAMPLE = 20
#: The way out of damage to the index that was not repaired at once.
REINDEX_HINT = "run paperdesk reindex"
#: The way out of damage to the database that keeps what is readable in it
#: (:mod:`paperdesk.core.store.salvage`).
SALVAGE_HINT = "salvage every readable page: paperdesk repair --salvage"
#: The way out of a damaged term table (it is derived from SQLite, as the index).
TERMS_REMEDY = "dropped; built again from SQLite at the next use"
#: The same on a library that cannot be written: nothing is dropped.
TERMS_READ_ONLY_REMEDY = "not dropped (the library cannot be written): built again in " \
    "memory at the next use; a paperdesk that can write the library replaces it"
#: The same when it could not be removed (``{why}``: one clause, e.g. "Permission
#: denied"): what check says it did must be true on disk.
TERMS_NOT_DROPPED_REMEDY = "could not be removed ({why}): built again in memory at the " \
    "next use; remove it by hand to have it built again on disk"

#: The way out of damaged embedding vectors (derived too: only the damaged parts).
VECTORS_REMEDY = "the damaged part dropped; its papers are embedded again at the next use"
#: The way out of ``vectors/`` holding many vectors of papers that no longer exist.
VECTORS_REBUILT_REMEDY = "removed; every paper is embedded again at the next use"
#: The way out of many papers without a vector.
VECTORS_MISSING_REMEDY = "embedded at the next use (the window does it after the term " \
    "table; on the command line, paperdesk related or search --semantic)"
#: The same on a library that cannot be written.
VECTORS_READ_ONLY_REMEDY = "not dropped (the library cannot be written): a paperdesk " \
    "that can write the library embeds its papers again"
_DB = "library.db"
_INDEX = "index"
_BACKUPS = "backups"


def restore_hint(folder: Path) -> str:
    """The way out of a damaged or missing database: ``restore the latest backup:
    paperdesk restore FILE`` naming the backup ``paperdesk restore`` would pick
    (:func:`paperdesk.core.store.backup.latest_backup`: manual, daily or pre-migration
    copies, never a ``pre-restore-`` copy, which may hold the damaged database).

    Args:
        folder: the library folder.
    Returns:
        One clause, no final full stop.
    """
    found = latest_backup(Path(folder) / _BACKUPS)
    if found is not None:
        return f"restore the latest backup: paperdesk restore {found}"
    return (f"restore the latest backup: paperdesk restore FILE (no backup in "
            f"{Path(folder) / _BACKUPS})")


def damage_hint(folder: Path) -> str:
    """The ways out of a damaged database: salvage (:data:`SALVAGE_HINT`), or restore
    the latest backup (:func:`restore_hint`).

    Args:
        folder: the library folder.
    Returns:
        One clause, no final full stop: ``"salvage every readable page: paperdesk repair
        --salvage; or restore the latest backup: paperdesk restore FILE"``.
    """
    return f"{SALVAGE_HINT}; or {restore_hint(folder)}"


def was_library(folder: Path) -> bool:
    """True when ``folder`` holds a library's other parts (an ``index/`` or ``backups/``
    folder): its ``library.db``, whatever state it is in, was a library's."""
    folder = Path(folder)
    return (folder / _INDEX).is_dir() or (folder / _BACKUPS).is_dir()


def refuse_unreadable_folder(folder: str | os.PathLike) -> None:
    """Refuse a library folder this user may not enter or list (another user's, or its
    permissions changed), naming it, before anything in it is looked at (a ``stat``
    inside it raises a :class:`PermissionError` that names no library).

    Args:
        folder: the library folder (a missing one passes: it is created).
    Raises:
        LibraryError: ``cannot open the library folder /path: permission denied ...``.
    """
    folder = Path(folder)
    try:
        folder.stat()
    except OSError:
        return        # missing (created), or its parent is unreadable: said when made
    if folder.is_dir() and not os.access(folder, os.R_OK | os.X_OK):
        raise LibraryError(f"cannot open the library folder {folder}: permission denied "
                           "(it belongs to another user, or its permissions were changed)")


def refuse_foreign_database(folder: str | os.PathLike) -> None:
    """Refuse a ``library.db`` that is not a regular file (a FIFO or device planted in a
    library folder would make every command wait or read forever) or that holds another
    program's tables (schema version 0 with tables: a browser's history, or a symbolic
    link to one), before anything is written into it: opening it as a library would add
    paperdesk's tables to it and switch it to WAL.

    Args:
        folder: the library folder (a missing or empty ``library.db`` passes).
    Raises:
        LibraryError: one line naming the file and what it is.
    """
    path = Path(folder) / _DB
    try:
        st = path.stat()
    except OSError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise LibraryError(f"{path}: not a paperdesk library (not a regular file); "
                           "nothing was read from it or written into it")
    if st.st_size == 0:
        return
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 4")]
        finally:
            con.close()
    except sqlite3.Error:
        return              # damaged or not a database: said when it is opened
    if version == 0 and tables:
        shown = ", ".join(tables[:3]) + (", …" if len(tables) > 3 else "")
        raise LibraryError(f"{path}: not a paperdesk library: it holds another program's "
                           f"tables ({shown}); nothing was changed in it: choose another "
                           "folder with --library DIR")


def refuse_lost_database(folder: Path) -> None:
    """Refuse to make a new empty library where one was: ``library.db`` missing or of
    zero bytes in a folder that has an ``index/`` or ``backups/`` folder. A new or empty
    folder passes (a library is created in it).

    Args:
        folder: the library folder.
    Raises:
        LibraryError: one line naming the file, what is missing and the latest backup.
    """
    folder = Path(folder)
    db = folder / _DB
    if not was_library(folder):
        return
    try:
        size = db.stat().st_size
    except FileNotFoundError:
        size = None
    except OSError:
        return        # unreadable: opening it gives the precise message
    if size is None:
        what = "missing"
    elif size == 0:
        what = "empty (0 bytes)"
    else:
        return
    hint = restore_hint(folder)
    raise LibraryError(f"{db}: the library's database is {what}, though the folder holds "
                       f"a library; not starting an empty one over it: {hint}")


def database_message(folder: Path, exc: BaseException | str) -> str:
    """The one-line message for a damaged database: the file, the problem, the way out.

    Args:
        folder: the library folder.
        exc: the SQLite error, or the first line ``quick_check`` returned.
    Returns:
        ``".../library.db: damaged (database disk image is malformed); nothing can be
        changed in it: salvage every readable page: paperdesk repair --salvage; or
        restore the latest backup: paperdesk restore FILE"``.
    """
    text = str(exc).strip().splitlines()
    what = text[0] if text else exc.__class__.__name__
    return (f"{Path(folder) / _DB}: damaged ({what}); nothing can be changed in it: "
            f"{damage_hint(folder)}")


def database_problem(db, folder: Path) -> str | None:
    """Run ``PRAGMA quick_check`` (every page read; about 0.2-0.3 s at 100,000 papers).

    Args:
        db: a ``sqlite_utils.Database`` on the library's database.
        folder: the library folder (for the message).
    Returns:
        ``None`` when the database is whole, else the message of
        :func:`database_message`.
    Raises:
        LibraryError: the file is not a SQLite database at all.
    """
    try:
        rows = db.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc) and not was_library(folder):
            raise LibraryError(f"{Path(folder) / _DB}: not a paperdesk library ({exc})") from exc
        return database_message(folder, exc)
    if [r[0] for r in rows] == ["ok"]:
        return None
    # SQLite heads a report with "*** in database main ***"; the problem follows it.
    lines = [r[0] for r in rows if r[0] and not r[0].startswith("***")]
    return database_message(folder, lines[0] if lines else "quick_check failed")


@dataclass(frozen=True)
class Problem:
    """One problem the check found.

    Attributes:
        part: ``"database"``, ``"index"``, ``"terms"`` (the term table of related
            papers, :mod:`paperdesk.core.discover.term_table`), ``"vectors"`` or
            ``"duplicates"`` (the near-duplicate stage's band store,
            :mod:`paperdesk.core.store.band_runs`: derived, rebuilt).
        text: what is wrong (names the file).
        remedy: the way out (``"repaired from SQLite"``, ``"run paperdesk reindex"``,
            for the database :func:`damage_hint`: ``"salvage every readable page:
            paperdesk repair --salvage; or restore the latest backup: paperdesk restore
            FILE"``).
    """

    part: str
    text: str
    remedy: str

    def line(self) -> str:
        """``"text: remedy"`` on one line."""
        return f"{self.text} — {self.remedy}"


@dataclass
class CheckReport:
    """The outcome of :func:`check_library`.

    Attributes:
        papers: papers in the library (``None`` when the database cannot be counted).
        indexed: documents in the search index.
        queued: index-queue entries (papers waiting to be indexed).
        sampled: papers looked up by their own words.
        problems: what was found (empty: the library is whole).
        notes: what is still to be done and is no damage (papers not embedded yet
            after an import: done at the next use); said, and the library is ``ok``.
        cancelled: the check was stopped before its end.
    """

    papers: int | None = None
    indexed: int | None = None
    queued: int = 0
    sampled: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        """True when nothing was found and the check ran to its end."""
        return not self.problems and not self.cancelled

    def text(self) -> str:
        """The report as plain text: ``library ok: 225 papers, index ok`` (and a ``note:``
        line per note), or one line per problem under ``library has N problems:``."""
        if self.ok:
            return "\n".join([f"library ok: {self.papers:,} papers, index ok"]
                             + [f"  note: {n.part}: {n.line()}" for n in self.notes])
        if self.cancelled and not self.problems:
            return "check stopped before its end: nothing found so far"
        lines = [f"library has {len(self.problems)} problem"
                 f"{'s' if len(self.problems) != 1 else ''}:"]
        lines += [f"  {p.part}: {p.line()}" for p in self.problems]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        """The report for ``paperdesk check --json``."""
        return {"ok": self.ok, "papers": self.papers, "indexed": self.indexed,
                "queued": self.queued, "sampled": self.sampled,
                "cancelled": self.cancelled,
                "problems": [{"part": p.part, "problem": p.text, "remedy": p.remedy}
                             for p in self.problems],
                "notes": [{"part": n.part, "note": n.text, "remedy": n.remedy}
                          for n in self.notes]}




def _words_query(title: str, abstract: str) -> str | None:
    """A query made of a paper's own words as the index holds them: up to four tokens of
    three characters or more from its title (else its abstract), cut by the index's own
    analyzer (:func:`paperdesk.core.search.index.exact_analyzer`, so "YOLOv8" stays
    "yolov8" and "model4415" one word), each quoted (no word is read as syntax)."""
    from paperdesk.core.search.index import exact_analyzer

    analyze = exact_analyzer()
    words: list[str] = []
    for text in (title, abstract[:400]):
        for token in analyze(text or ""):
            w = token.text
            if len(w) >= 3 and w not in ("and", "or", "not") and w not in words \
                    and '"' not in w:
                words.append(w)
            if len(words) == 4:
                break
        if words:
            break
    return " ".join(f'"{w}"' for w in words) if words else None


#: What :func:`check_library` does after it reported ``progress(k, len(STEPS))``, for
#: each ``k`` (the command line's status line says it).
STEPS = ("checking the database and reading the search index's files",
         "reading the term table's and the embedding vectors' files, hashing every "
         "abstract",
         "checking the database",
         "counting the search index's documents",
         "searching a sample of papers")


class _DatabaseCheck:
    """The database's part of the full check, run on its own thread and connection
    beside the reading of the index's files (SQLite releases the GIL while it checks):
    ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check``. (The abstracts' hashes,
    Python's work, are checked on the calling thread after the index's files: on one
    thread beside the index's Python work they only took turns with it.) Where a connection of its own cannot be opened (the library's
    connection is used then), it runs on the calling thread in :meth:`join`.

    Attributes:
        problems: what it found, in the order of the steps.
        cancelled: ``cancel()`` returned True after the integrity check.
    """

    def __init__(self, lib, folder: Path, restore: str, cancel: Callable[[], bool]):
        import threading

        self._lib, self._folder, self._restore, self._cancel = lib, folder, restore, cancel
        self.problems: list[Problem] = []
        self.cancelled = False
        self._error: BaseException | None = None
        self._thread = None
        path = Path(folder) / _DB
        if getattr(lib.db, "conn", None) is not None and path.is_file():
            self._thread = threading.Thread(target=self._own, args=(path,),
                                            name="paperdesk-check-db", daemon=True)
            self._thread.start()

    def _own(self, path: Path) -> None:
        from paperdesk.core.store.db import connect_read_only

        try:
            db = connect_read_only(path)
        except sqlite3.Error as exc:
            self._run_with(None, exc)
            return
        try:
            self._run_with(db, None)
        except BaseException as exc:  # noqa: BLE001 - raised again in join()
            self._error = exc
        finally:
            db.conn.close()

    def join(self) -> None:
        """Wait for the check (or run it here); raises what its thread raised."""
        if self._thread is None:
            self._run_with(self._lib.db, None)
            return
        self._thread.join()
        if self._error is not None:
            raise self._error

    def _run_with(self, db, error: BaseException | None) -> None:
        folder, restore = self._folder, self._restore
        try:
            if error is not None:
                raise error
            rows = [r[0] for r in db.execute("PRAGMA integrity_check(20)").fetchall()]
        except sqlite3.DatabaseError as exc:
            rows = [str(exc)]
        if rows != ["ok"]:
            shown = "; ".join(rows[:3]) + (f" (and {len(rows) - 3} more)"
                                           if len(rows) > 3 else "")
            self.problems.append(Problem("database", f"{folder / _DB}: damaged ({shown})",
                                         restore))
        if self._cancel():
            self.cancelled = True
            return
        if db is None:
            return
        try:
            bad = db.execute("PRAGMA foreign_key_check").fetchall()
        except sqlite3.DatabaseError as exc:
            bad = []
            if not self.problems:
                self.problems.append(Problem("database", f"{folder / _DB}: damaged ({exc})",
                                             restore))
        if bad:
            tables = sorted({r[0] for r in bad})
            self.problems.append(Problem(
                "database", f"{folder / _DB}: {len(bad):,} rows refer to rows that do not "
                f"exist (in {', '.join(tables)})", restore))


def check_library(lib, progress: Callable[[int, int], None] | None = None,
                  cancel: Callable[[], bool] | None = None, sample: int = SAMPLE,
                  seed: int = 0) -> CheckReport:
    """The full check of an open library (``paperdesk check``, Help ▸ Check Library).

    ``PRAGMA integrity_check`` and ``PRAGMA foreign_key_check`` run on a thread and a
    connection of their own (:class:`_DatabaseCheck`) while this thread reads the
    index's files
    (:meth:`~paperdesk.core.search.index.SearchIndex.full_problems`) and the term
    table's (:meth:`~paperdesk.core.discover.engine.Discover.full_problems`: a damaged
    one is dropped, to be built again) and ``vectors/``'s
    (:meth:`~paperdesk.core.discover.embedded.PaperEmbeddings.full_problems`: a damaged
    part is dropped, its papers embedded again; and its counts against the papers,
    :meth:`~paperdesk.core.discover.embedded.PaperEmbeddings.count_problems`) and
    hashes every abstract again (altered text, reported only on a database the two
    checks found whole). Then the index's
    document count (papers minus those queued to be added), and ``sample`` papers
    (picked with ``random.Random(seed)``) each found by a query of its own words and by
    its id in the ``pid`` column. The report lists the database's problems first, as
    found in that order. Damage to the index found here is repaired: the index is
    rebuilt from SQLite at the library's next index update (unless the library was
    opened read-only or its database is damaged).

    Args:
        lib: an open :class:`~paperdesk.core.library.Library` (reads only, except that
            it queues the rebuild of a damaged index).
        progress: ``progress(done, total)`` steps: ``total`` is ``len(STEPS)``, and
            :data:`STEPS` says what runs after each ``done``.
        cancel: polled between steps.
        sample: papers looked up.
        seed: the seed of the sample.
    Returns:
        A :class:`CheckReport`.
    """
    progress = progress or (lambda done, total: None)
    cancel = cancel or (lambda: False)
    report = CheckReport()
    folder = lib.path
    restore = damage_hint(folder)
    steps = len(STEPS)
    progress(0, steps)
    database = _DatabaseCheck(lib, folder, restore, cancel)
    try:
        papers = lib.papers.count()
        status = lib.index.status()
    except sqlite3.DatabaseError:
        database.join()
        report.problems += database.problems
        report.cancelled = database.cancelled
        return report
    if lib.index.stand_in:   # read-only and the index could not be read
        altered = _altered_ids(lib.db)
        database.join()
        report.problems += database.problems
        if database.cancelled:
            report.cancelled = True
            return report
        if not report.problems and altered:
            report.problems.append(_altered_problem(folder, altered))
        report.papers, report.queued = papers, status.queued
        report.problems.append(Problem("index", lib.index.repair, REINDEX_HINT))
        progress(steps, steps)
        return report
    index_found = [] if cancel() else lib.index.whoosh.full_problems()
    progress(1, steps)
    found: list[tuple[str, str]] = []          # (part, text) of terms/ and vectors/
    if not cancel():
        found += [("terms", text) for text in lib.discover.full_problems()]
        found += [("duplicates", text) for text in band_runs.full_problems(lib.path)]
        found += [("vectors", text) for text in lib.discover.embeddings.full_problems()]
        if not any(part == "vectors" for part, _text in found):
            rebuilt, missing = lib.discover.embeddings.count_problems()
            found += [("vectors-rebuilt", text) for text in rebuilt]
            found += [("vectors-missing", text) for text in missing]
    altered = None if cancel() else _altered_ids(lib.db)
    progress(2, steps)
    database.join()
    report.problems += database.problems
    if database.cancelled or cancel():
        report.cancelled = True
        return report
    if not report.problems and altered:
        report.problems.append(_altered_problem(folder, altered))
    database_ok = not report.problems
    report.papers = papers
    report.queued = status.queued
    repairable = database_ok and not lib.read_only and lib.db_problem is None
    index_remedy = "repaired from SQLite" if repairable else REINDEX_HINT
    for text in index_found:
        report.problems.append(Problem("index", text, index_remedy))
    writable = lib.discover.not_writable() is None
    not_dropped = getattr(lib.discover, "not_dropped", None)
    terms_remedy = TERMS_READ_ONLY_REMEDY if not writable else \
        TERMS_NOT_DROPPED_REMEDY.format(why=not_dropped) if not_dropped else TERMS_REMEDY
    remedies = {"terms": terms_remedy,
                "vectors": VECTORS_REMEDY if writable else VECTORS_READ_ONLY_REMEDY,
                "vectors-rebuilt": VECTORS_REBUILT_REMEDY if writable
                else VECTORS_READ_ONLY_REMEDY,
                "vectors-missing": VECTORS_MISSING_REMEDY if writable
                else VECTORS_READ_ONLY_REMEDY,
                "duplicates": band_runs.REBUILT}
    if any(part == "duplicates" for part, _text in found) and not lib.read_only:
        band_runs.drop(lib.path)   # derived: computed again from SQLite at the next stage
    for part, text in found:
        # papers not embedded yet (an import since the last embedding): work still to
        # do at the next use, not damage; said without failing the check
        kept = report.notes if part == "vectors-missing" else report.problems
        kept.append(Problem(part.split("-")[0], text, remedies[part]))
    progress(3, steps)
    index_ok = not any(p.part == "index" for p in report.problems)
    if index_ok:
        report.indexed = lib.index.whoosh.doc_count()
        expected = status.papers - status.unindexed
        if report.indexed != expected and not status.queued:
            report.problems.append(Problem(
                "index", f"{lib.index.whoosh.path}: {report.indexed:,} documents for "
                f"{expected:,} papers", index_remedy))
        elif status.queued and not lib.index.repair:
            # Left by an interrupted import, a full disk or a held index lock: searches
            # miss these papers until they are indexed.
            report.problems.append(Problem(
                "index", f"{lib.index.whoosh.path}: {status.queued:,} of {status.papers:,} papers "
                "wait to be indexed (searches miss them or their latest changes)",
                "indexed now" if repairable else REINDEX_HINT))
    progress(4, steps)
    if index_ok and database_ok and not cancel() and report.papers:
        try:
            _sample(lib, report, sample, seed, index_remedy)
        except sqlite3.DatabaseError as exc:
            report.problems.append(Problem("database", f"{folder / _DB}: damaged ({exc})",
                                           restore))
    progress(5, steps)
    if repairable and any(p.part == "index" for p in report.problems):
        lib.index.whoosh.damage = next(p.text for p in report.problems if p.part == "index")
        lib.search.index_damaged()
    return report


def _altered_ids(db) -> list[int] | None:
    """Ids of the papers whose abstracts no longer give their content hash (a byte
    changed inside the text, e.g. salvaged from a damaged page): about 2 CPU s at
    300,000 papers (500 MB of abstracts hashed). ``None`` when the database cannot be
    read (its damage is the integrity check's to report)."""
    from paperdesk.core.store.salvage import altered_papers

    try:
        return altered_papers(db.conn)
    except sqlite3.DatabaseError:
        return None


def _altered_problem(folder: Path, altered: list[int]) -> Problem:
    """The problem of papers with altered text (their ids, the way out)."""
    n = len(altered)
    ids = ", ".join(f"#{i}" for i in altered[:5]) + (", ..." if n > 5 else "")
    return Problem(
        "database", f"{folder / _DB}: {n:,} {'paper' if n == 1 else 'papers'} with "
        f"altered text (the abstract does not give its content hash): {ids}",
        "compare them with a backup; paperdesk repair --merge-backup FILE puts back "
        "a backup's text")


def _sample(lib, report: CheckReport, sample: int, seed: int, remedy: str) -> None:
    """Look ``sample`` indexed papers up by their own words and their id."""
    queued = {r[0] for r in lib.db.execute(
        "SELECT paper_id FROM index_queue")}
    ids = [r[0] for r in lib.db.execute("SELECT id FROM papers ORDER BY id")]
    ids = [i for i in ids if i not in queued]
    picked = random.Random(seed).sample(ids, min(sample, len(ids)))
    in_index = lib.index.whoosh.indexed_ids()
    lost_words, lost_ids = [], []
    for pid in picked:
        title, abstract = lib.db.execute(
            "SELECT title, abstract FROM papers WHERE id = ?", [pid]).fetchone()
        if pid not in in_index:
            lost_ids.append(pid)
        query = _words_query(title or "", abstract or "")
        if query is None:
            continue
        found = lib.index.whoosh.search_arrays(lib.index.whoosh.plan(query))[0]
        if pid not in set(found.tolist()):
            lost_words.append(pid)
    report.sampled = len(picked)
    if lost_ids:
        report.problems.append(Problem(
            "index", f"{lib.index.whoosh.path}: {len(lost_ids)} of {len(picked)} sampled papers "
            f"have no document (ids {', '.join(map(str, lost_ids[:5]))})", remedy))
    if lost_words:
        report.problems.append(Problem(
            "index", f"{lib.index.whoosh.path}: {len(lost_words)} of {len(picked)} sampled papers "
            "are not found by their own words (ids "
            f"{', '.join(map(str, lost_words[:5]))})", remedy))
