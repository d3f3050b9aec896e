"""The import pipeline (``lib.imports``): files and folders read with the registered
readers, then stored in short transactions with their index-queue rows
(:meth:`Imports.run`).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path
import sqlite_utils
from paperdesk.core.store import bulk_indexes
from paperdesk.core.store import db as _db
from paperdesk.core.store.papers import StoredAbstracts, insert_abstracts
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.models import FileReport, ImportReport
from paperdesk.core.imports.paperdesk_json import store_export, store_saved_searches
from paperdesk.core.imports.abstract_limit import cut_note
from paperdesk.core.imports import parse_process
from paperdesk.core.imports.parse_process import (WAITING, ParseChild, pending, prepared,
                                                  title_of)
from paperdesk.core.imports.daily_papers import (FileChangedError, ParseError, ParsedFile,
                                                 StreamedText,
                                                 collect_files, display_path)
from paperdesk.core.imports.arxiv import ArxivFilter, ArxivStream, sniff_file, sniff_stdin
from paperdesk.core.imports.detect import detect_file, detect_streamed
from paperdesk.core.imports.formats import IMPORT_FORMATS, folder_patterns
from paperdesk.core.imports.records import (Identifiers, RecordFile,
                                            near_duplicates_looked_up, store_records)
from paperdesk.core.imports.record_tags_notes import TagsAndNotes
from paperdesk.core.imports.registry import STDIN, STDIN_NAME
from paperdesk.core.store.errors import disk_full_message, is_disk_full
from paperdesk.core.manager import (DB_NAME, BatchHook, CancelCheck, FileCallback, Manager,
                                    ProgressCallback, never, no_progress, nothing,
                                    run_beside)

#: Most abstracts of a text file stored in one transaction of
#: :meth:`lib.imports.run` (a transaction also ends after :data:`BATCH_SECONDS`,
#: which usually comes first: abstracts are stored at some 20,000 a second on a shared
#: 2-core machine).
IMPORT_BATCH = 5000

#: Most records of a BibTeX, RIS, CSL-JSON or arXiv file stored in one transaction (each
#: is matched and merged on its own, so far fewer than abstracts); ``IMPORT_BATCH``
#: bounds it too when set lower.
RECORD_IMPORT_BATCH = 300

#: Abstracts of a text file written with one ``executemany``
#: (:func:`~paperdesk.core.store.papers.insert_abstracts`); a transaction's chunks grow
#: 1, 2, 4 ... up to this, so that its first chunk is cheap.
STORE_CHUNK = 512

#: Most papers of a paperdesk JSON export stored in one transaction (each may bring tags,
#: a note and highlights, so fewer than :data:`IMPORT_BATCH`).
EXPORT_IMPORT_BATCH = 100

#: Records of an arXiv file stored between two looks at ``hurry`` (an edit queued
#: behind the import, :meth:`Imports.run`): about 5 ms of storing on a loaded 2-core
#: machine (700 records a second through the window), so a star pressed during the
#: import waits about that long for its turn. 32 made it wait 22 ms on average, half of
#: the key's 37 ms to its commit (docs/figures.md); a look costs an ``Event.is_set``.
HURRY_CHUNK = 4

#: Seconds of storing in one chunk of a text file's abstracts when edits may wait for the
#: import (``hurry`` given): a chunk (:data:`STORE_CHUNK`) is one ``executemany``, and
#: ``hurry`` is looked at between chunks only. Its next chunk is cut to this from the
#: time the last one took. In a library of 1.25 million papers a chunk of 512 took up to
#: 670 ms (each row's inserts into the large indexes), and a key pressed during a daily
#: file's import waited for it: median 100 ms, slowest 670 ms (docs/figures.md).
HURRY_SECONDS = 0.01

#: ... and a text file's write transaction ends after this long instead of
#: :data:`BATCH_SECONDS` while edits come (one waited within
#: :data:`HURRY_LATELY_SECONDS`): an edit waits for the transaction's commit too, which
#: writes every page the batch changed. In a library of 1.25 million papers a commit of
#: 0.25 s of storing took 60-200 ms (each row changes pages of several large indexes),
#: and a key pressed every 300 ms during a daily file's import waited for it (median
#: 116 ms; 44-55 ms with this). More commits may cost storing time (a 100,000-abstract
#: file took 28.8-41 s in four runs with them, 28.1 s in one without: no cost could be
#: told from how runs differ), so an import nobody presses keys during keeps long ones.
HURRY_BATCH_SECONDS = 0.05
#: Seconds after an edit waited for the import during which its batches stay short.
HURRY_LATELY_SECONDS = 2.0

#: A write transaction of an import ends after about this long even when it has not
#: reached its size (a slow disk), so other writers never wait long for the database.
BATCH_SECONDS = 0.25

#: How an abstract to store is prepared, under their old names (they moved to
#: :mod:`~paperdesk.core.imports.parse_process`, which the child process imports).
_pending = pending
_title = title_of


def _in_child(pf) -> bool:
    """Whether the text file ``pf`` is read by the import's child process: a streamed
    one of :data:`~paperdesk.core.imports.parse_process.PARSE_CHILD_MIN_BYTES` or more
    (a smaller file, or one read whole, is read by the importing thread)."""
    if not isinstance(pf, StreamedText):
        return False
    try:
        return Path(pf.path).stat().st_size >= parse_process.PARSE_CHILD_MIN_BYTES
    except OSError:
        return False


def _arxiv_in_child(stream) -> bool:
    """Whether the arXiv metadata file ``stream`` is read by the import's child process:
    a regular file of :data:`~paperdesk.core.imports.parse_process.PARSE_CHILD_MIN_BYTES`
    or more (not standard input)."""
    if stream.path == STDIN_NAME:
        return False
    try:
        path = Path(stream.path)
        return path.is_file() and path.stat().st_size >= parse_process.PARSE_CHILD_MIN_BYTES
    except (OSError, ValueError):
        return False


def _to_child(files: list) -> list:
    """The files whose recognition :meth:`Imports.run` hands to its child process:
    every other one (the second, fourth ...) of the regular files of
    :data:`~paperdesk.core.imports.parse_process.PARSE_CHILD_MIN_BYTES` or more, so
    that this thread recognises the others meanwhile; none when there are fewer than
    two (one file would only wait for the child). A file that turns out not to be
    streamed text (arXiv metadata, a BibTeX file) costs the child a look at its start."""
    large = []
    for path in files:
        if str(path) == STDIN:
            continue
        try:
            if Path(path).is_file() and \
                    Path(path).stat().st_size >= parse_process.PARSE_CHILD_MIN_BYTES:
                large.append(path)
        except OSError:
            continue
    return large[1::2] if len(large) >= 2 else []


def _identifier_state(db) -> int:
    """How many writes have changed the library's identifiers so far (the
    ``identifier_writes`` counter, kept by triggers on ``papers`` whatever connection
    writes: :mod:`paperdesk.core.store.schema`, version 13). An import reads it at the
    end of each batch, inside the batch's transaction (no other connection can write
    between that read and the commit, and the batch's own writes are already in the
    :class:`Identifiers` it keeps); while it stays the same at the next batch's start,
    those identifiers are still the library's. A star, a tag or a note edited between
    two batches, by this connection or another process's (the window's edits while its
    import process stores), leaves it alone: reading a million papers' identifiers
    again after every such edit made each one cost seconds. A DOI or arXiv id set, a
    paper with one inserted (an undone delete), or a paper deleted or merged moves it."""
    return db.execute("SELECT n FROM identifier_writes").fetchone()[0]


def _record_batch() -> int:
    """Records per transaction: :data:`RECORD_IMPORT_BATCH`, or :data:`IMPORT_BATCH`
    when that is lower."""
    return min(IMPORT_BATCH, RECORD_IMPORT_BATCH)

def _no_file(stage: str, files_done: int, files_total: int, name: str) -> None:
    pass

def _shown(path) -> str:
    """How a path is named in reports and stored (standard input as ``<stdin>``; bytes
    of a file name that are not UTF-8 as backslash escapes, see
    :func:`~paperdesk.core.imports.daily_papers.display_path`)."""
    return STDIN_NAME if str(path) == STDIN else display_path(path)

def _stored(db: sqlite_utils.Database, path, now: str) -> str:
    """The path a file's ``sources`` row is stored under: the file's path, or for
    standard input a name of its own per import, ``<stdin> 2026-12-01 13:40:05 UTC``
    (the import's time; `` (2)``, `` (3)`` ... when that is taken), so that two
    imports from standard input are two sources that can be removed one by one.

    Args:
        db: the library database (inside the caller's transaction).
        path: the file's absolute path, or :data:`STDIN_NAME`.
        now: the import's time, ISO 8601 UTC (``2026-12-01T13:40:05Z``).
    Returns:
        The path to store.
    """
    if str(path) != STDIN_NAME:
        return str(path)
    base = f"{STDIN_NAME} {now[:10]} {now[11:19]} UTC"
    name, n = base, 1
    while db.execute("SELECT 1 FROM sources WHERE path = ?", [name]).fetchone():
        n += 1
        name = f"{base} ({n})"
    return name

def _size(parsed) -> int:
    if isinstance(parsed, ArxivStream):
        return parsed.estimated_lines
    if isinstance(parsed, StreamedText):
        return parsed.estimated_abstracts
    if isinstance(parsed, dict):
        return len(parsed["papers"])
    if isinstance(parsed, RecordFile):
        return len(parsed.records)
    return len(parsed.abstracts)

def _read_any(path, arxiv_filter: ArxivFilter | None = None,
              streamed: Callable = detect_streamed
              ) -> dict | RecordFile | ParsedFile | ArxivStream | StreamedText:
    """Read one file (or standard input) with the reader of the registered format its
    content shows (:mod:`paperdesk.core.imports.detect`,
    :mod:`paperdesk.core.imports.registry`); arXiv metadata is not read here but
    streamed when stored (an :class:`ArxivStream`).

    Args:
        path: the file, or :data:`STDIN`.
        arxiv_filter: which records of an arXiv metadata file to keep.
        streamed: ``streamed(path)`` recognises a large text file
            (:func:`~paperdesk.core.imports.detect.detect_streamed`, or the import's
            child's answer, :meth:`ParseChild.detected`).
    Raises:
        ParseError: refused, with a one-line reason naming the file.
    """
    head = b""
    if str(path) == STDIN:
        stream, head = sniff_stdin(STDIN_NAME, arxiv_filter)
    else:
        stream = sniff_file(path, Path(path).resolve(), arxiv_filter)
        if stream is None:
            stream = streamed(path)     # a large text file: read in pieces
    if stream is not None:
        return stream
    found = detect_file(path, head)
    fmt = IMPORT_FORMATS.get(found.format)
    parsed = fmt.read(found, path, arxiv_filter)
    if found.notes and isinstance(getattr(parsed, "warnings", None), list):
        parsed.warnings[:0] = found.notes
    if isinstance(parsed, RecordFile) and not parsed.records:
        why = parsed.skipped[0] if parsed.skipped else "it holds no entries"
        raise ParseError(_shown(path), f"no {fmt.label} entry with a title or "
                                       f"an abstract ({why})")
    return parsed


__all__ = ["Imports", "IMPORT_BATCH", "RECORD_IMPORT_BATCH", "EXPORT_IMPORT_BATCH", "BATCH_SECONDS"]


class Imports(Manager):
    """The import pipeline: ``lib.imports`` (see the module)."""

    def run(self, paths: Iterable[str | os.PathLike],
                     progress: ProgressCallback | None = None,
                     cancel: CancelCheck | None = None, sync: bool = True,
                     between_batches: BatchHook | None = None,
                     on_file: FileCallback | None = None,
                     arxiv_filter: ArxivFilter | None = None,
                     keywords: bool = True,
                     hurry: Callable[[], bool] | None = None) -> ImportReport:
        """Import files and folders: the Daily Papers format or plain text, BibTeX and
        BibLaTeX, RIS, CSL-JSON, arXiv's bulk metadata (JSON Lines) and paperdesk's own
        JSON export, each recognised by its content
        (:mod:`paperdesk.core.imports.detect`); ``"-"`` is standard input.

        A folder contributes its ``*.txt``, ``*.bib``, ``*.ris``, ``*.json`` and
        ``*.jsonl`` files,
        recursively (:func:`~paperdesk.core.imports.registry.folder_patterns`); each of
        them that is in none of the formats is rejected with its reason, and other files
        are not looked at. Files are read first: a file that cannot be read, or is in
        none of the formats, is rejected with a one-line reason and leaves no trace. A
        text file of a megabyte or more (and arXiv metadata) is read in pieces: it is
        recognised in one pass and read again while it is stored, so memory holds a
        batch of its abstracts, not the file
        (:class:`~paperdesk.core.imports.daily_papers.StreamedText`); one of
        :data:`~paperdesk.core.imports.parse_process.PARSE_CHILD_MIN_BYTES` or more is
        read again by a child process while this thread stores it
        (:mod:`~paperdesk.core.imports.parse_process`: both cores), and when there are
        several such files, that child recognises every other one while this thread
        recognises the rest. Records of BibTeX, RIS and CSL-JSON files become papers or are merged onto the
        papers they match (:mod:`paperdesk.core.imports.records`: same abstract, DOI or
        arXiv id), filling in only what those papers lack.

        The papers are then stored in short transactions (batches) of at most
        :data:`IMPORT_BATCH` abstracts or :data:`RECORD_IMPORT_BATCH` records (:data:`EXPORT_IMPORT_BATCH` papers of a JSON
        export) or about :data:`BATCH_SECONDS`, whichever comes first, so that another
        writer (the window's star toggle) never waits long for the database. Each paper is
        stored whole: its row, its ``paper_sources`` row and its ``index_queue`` row are
        in the same transaction. Abstracts are de-duplicated by the SHA-256 of their
        normalised text; a duplicate gains a provenance row but is stored once. Importing
        the same file again adds nothing and changes nothing, and importing a file that
        was only partly imported (cancelled) adds just the rest. An import of at least
        as many abstracts as the library holds (and 20,000 or more) builds the title
        and citation-key indexes of ``papers`` once after storing instead of per insert
        (:mod:`paperdesk.core.store.bulk_indexes`; also when cancelled or failed).

        Runs on the calling thread (with that thread's connection).

        Args:
            paths: files and/or folders.
            progress: called as ``progress(stage, done, total)`` after every batch.
            cancel: polled before every batch; return True to stop. The batches already
                committed stay; what is left of the file is not imported.
            sync: index the new papers before returning (False leaves them queued for
                ``lib.index.sync``, e.g. to tag them first and index once). Indexing is
                cancelled by ``cancel`` too; what is left stays queued.
            between_batches: called with no arguments after every committed batch (of
                the import and of the index update), and about every
                :data:`HOOK_INTERVAL_S` while a slow step runs on a helper thread
                (reading a file, a Whoosh commit); always outside any transaction, on
                this thread. It may write to SQLite through the library (e.g. run queued
                user edits) but not import or re-index. Whatever it raises ends the
                import (committed batches stay).
            on_file: called as ``on_file(stage, files_done, files_total, name)`` before
                each file is read (``"read"``) and before it is stored (``"import"``);
                ``files_done`` counts the files finished, rejected ones included.
                ``cancel`` is also polled before each file but the first is read.
            arxiv_filter: which records of arXiv metadata files to keep (categories,
                date; :class:`~paperdesk.core.imports.arxiv.ArxivFilter`); other formats
                are imported whole. An arXiv file is streamed: its lines are read while
                it is stored, in batches, never all at once, and its progress counts
                lines read out of an estimate from its size.
            keywords: store the keywords of BibTeX, RIS and CSL-JSON records as tags
                (``False``: leave them out; their notes are stored either way; see
                :mod:`~paperdesk.core.imports.record_tags_notes`).
            hurry: polled while a batch is read and stored (any thread may make it
                True): True ends the batch early (what is read and not yet stored goes
                into the next one), so that ``between_batches`` runs the edits queued
                behind the import within :data:`HURRY_CHUNK` records instead of a whole
                batch (the window passes ``job.edits_waiting``). An import given
                ``hurry`` keeps the indexes of ``papers`` that a large import builds
                after storing (:mod:`~paperdesk.core.store.bulk_indexes`): building
                them holds the write lock for seconds at a million papers, where an
                edit would wait.
        Returns:
            The :class:`ImportReport`: its counts (``added``, ``enriched``,
            ``duplicates``, ``without_abstract``, ``added_ids``, ``changed_ids``) are
            those of the committed batches; ``cancelled`` is set when
            ``cancel`` stopped it, and the file being imported then has
            ``FileReport.cancelled`` set.
        Raises:
            LibraryError: the library is closed. A database error while storing a file
            is reported on that file (``FileReport.error``) instead.
        """
        progress = progress or no_progress
        cancel = cancel or never
        edits_wait = hurry is not None      # edits may be queued behind this import
        hurry = hurry or never
        hook_raised: list[BaseException] = []

        def hook() -> None:
            try:
                (between_batches or nothing)()
            except BaseException as exc:     # ends the import, even while a file is read
                hook_raised.append(exc)
                raise

        report = ImportReport()
        on_file = on_file or _no_file
        files = collect_files(list(paths), patterns=folder_patterns())
        reader = ParseChild()       # no process until a file needs it
        try:
            parsed = self._read_files(files, report, cancel, hook, hook_raised, on_file,
                                      arxiv_filter, reader, between_batches is not None)
            self._store_read(parsed, files, report, progress, cancel, hook, on_file,
                             keywords, reader, hurry, defer=not edits_wait)
        finally:
            reader.close()
        # Indexing can be cancelled too: what is left stays queued and is indexed the next
        # time the library is opened or changed.
        if sync and not report.cancelled:
            self._lib.index.sync(progress=progress, cancel=cancel, between_batches=hook)
            if cancel():      # stopped while indexing: the papers are in, the rest queued
                report.cancelled = True
        report.index_pending = self._lib.index.queue_size()
        return report

    def worth_a_process(self, paths: Iterable[str | os.PathLike]) -> bool:
        """Whether :meth:`run_in_process` pays for ``paths``: their files add up to
        :data:`~paperdesk.core.imports.import_process.PROCESS_MIN_BYTES` or more
        (:func:`~paperdesk.core.imports.import_process.worth_a_process`; touches the
        file system).

        Args:
            paths: files and/or folders.
        Returns:
            True for a large import, False otherwise (or when a file cannot be looked at).
        """
        from paperdesk.core.imports import import_process

        return import_process.worth_a_process(paths)

    def run_in_process(self, paths: Iterable[str | os.PathLike],
                       progress: ProgressCallback | None = None,
                       cancel: CancelCheck | None = None,
                       between_batches: BatchHook | None = None,
                       on_file: FileCallback | None = None,
                       arxiv_filter: ArxivFilter | None = None,
                       keywords: bool = True,
                       hurry: Callable[[], bool] | None = None) -> ImportReport:
        """:meth:`run` with ``sync=False``, the storing done by a process of its own so
        that this process's interpreter stays free for its other threads (the window's
        UI thread); the callbacks are still called on this thread
        (:func:`~paperdesk.core.imports.import_process.run_in_process`: arguments,
        return value and errors).
        """
        from paperdesk.core.imports import import_process

        return import_process.run_in_process(
            self._lib, paths, progress=progress, cancel=cancel,
            between_batches=between_batches, on_file=on_file, arxiv_filter=arxiv_filter,
            keywords=keywords, hurry=hurry)

    def _read_files(self, files: list, report: ImportReport, cancel: CancelCheck,
                    hook: BatchHook, hook_raised: list, on_file: FileCallback,
                    arxiv_filter: ArxivFilter | None, reader: ParseChild,
                    beside: bool) -> list:
        """Read (recognise) ``files`` in order, as :meth:`run` says; a refused file's
        report goes to ``report``. Every other large text file is recognised by
        ``reader``'s child meanwhile (:meth:`ParseChild.detect_ahead`; same results and
        reasons). ``beside``: read on a helper thread while ``hook`` runs.

        Returns:
            ``[(position, path, parsed file)]`` of the files read (``[]`` when
            ``cancel`` stopped it: ``report.cancelled`` is set).
        """
        parsed = []
        ahead = set(reader.detect_ahead(_to_child(files)))
        for position, path in enumerate(files):
            if position and cancel():       # e.g. Ctrl+C while a folder is read
                report.cancelled = True
                break
            on_file("read", position, len(files), _shown(path))
            streamed = reader.detected if path in ahead else detect_streamed
            try:
                if not beside:
                    parsed.append((position, path, _read_any(path, arxiv_filter, streamed)))
                else:   # a 50,000-abstract file takes seconds to read
                    parsed.append((position, path, run_beside(
                        lambda: _read_any(path, arxiv_filter, streamed), hook)))
            except ParseError as exc:
                report.files.append(FileReport(_shown(path), error=exc.reason))
            except Exception as exc:  # noqa: BLE001 - a reader's bug: refuse this file only
                if hook_raised and exc is hook_raised[-1]:
                    raise                  # not the file's: between_batches ends the import
                report.files.append(FileReport(
                    _shown(path), error=f"cannot be read ({exc.__class__.__name__}: "
                                        f"{display_path(str(exc))})"))
        if report.cancelled:
            reader.close()          # answers for files not read: not waited for
            return []
        reader.settle()
        return parsed

    def _store_read(self, parsed: list, files: list, report: ImportReport,
                    progress: ProgressCallback, cancel: CancelCheck, hook: BatchHook,
                    on_file: FileCallback, keywords: bool, reader: ParseChild,
                    hurry: Callable[[], bool] = never, defer: bool = True) -> None:
        """Store the files :meth:`_read_files` read (see :meth:`run`); ``defer``: a
        large import into a small library may build indexes after storing."""
        total = sum(_size(pf) for _i, _p, pf in parsed)
        progress("import", 0, total)
        # Indexes in the cache, fewer checkpoints; a large import into a small library
        # builds the title and citation-key indexes after storing (also when cancelled),
        # unless edits may wait behind it: the build holds the write lock for seconds
        # (4-8 s at a million: a star pressed then waited for all of it; interrupting
        # the build for each edit and starting it again never ended under a key every
        # 300 ms).
        deferred = self._deferred(parsed, total) if defer else ()
        with _db.bulk_cache(self.db), bulk_indexes.deferred(self.db, deferred):
            self._store_each(parsed, files, report, progress, cancel, hook, on_file,
                             keywords, total, reader, hurry)

    def _deferred(self, parsed: list, total: int) -> tuple[str, ...]:
        """The indexes of ``papers`` that the import of ``parsed`` (``(position, path,
        parsed file)``, about ``total`` abstracts and records) builds after storing
        instead of per insert (:mod:`paperdesk.core.store.bulk_indexes`: the title's,
        and the citation key's when every file is a text file), or ``()``."""
        if not parsed:
            return ()
        before = self.db.execute("SELECT count(*) FROM papers").fetchone()[0]
        if not bulk_indexes.worth_deferring(before, total):
            return ()
        if all(isinstance(pf, (ParsedFile, StreamedText)) for _i, _p, pf in parsed):
            return (bulk_indexes.TITLE_INDEX, bulk_indexes.KEY_INDEX)
        return (bulk_indexes.TITLE_INDEX,)

    def _store_each(self, parsed: list, files: list, report: ImportReport,
                    progress: ProgressCallback, cancel: CancelCheck, hook: BatchHook,
                    on_file: FileCallback, keywords: bool, total: int,
                    reader: ParseChild, hurry: Callable[[], bool] = never) -> None:
        """Store the files read by :meth:`run` one after the other (``parsed``:
        ``(position, path, parsed file)``), each in its batches; their reports go to
        ``report``. Stops at a cancelled file (``report.cancelled``). Large text files
        are read by ``reader``'s child process
        (:mod:`~paperdesk.core.imports.parse_process`), which :meth:`run` stops at the
        end."""
        done = 0
        for position, path, pf in parsed:
            file_report = FileReport(_shown(path))
            if isinstance(pf, dict):
                file_report.format = "paperdesk-json"
                file_report.header = IMPORT_FORMATS.get(file_report.format).label
            elif isinstance(pf, ArxivStream):
                file_report.header = IMPORT_FORMATS.get(pf.format).label
                file_report.format = pf.format
            elif isinstance(pf, RecordFile):
                file_report.header = IMPORT_FORMATS.get(pf.format).label
                file_report.format = pf.format
                file_report.skipped = len(pf.skipped)
                file_report.warnings = [*pf.skipped, *pf.warnings]
            else:
                file_report.header, file_report.format = pf.header, "text"
                file_report.warnings = list(pf.warnings)
            if cancel():
                report.cancelled = True
                break
            report.files.append(file_report)
            on_file("import", position, len(files), file_report.path)

            def step(n: int, base: int = done) -> None:
                progress("import", base + n, total)

            try:
                if isinstance(pf, dict):
                    self._import_export(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                        hook)
                elif isinstance(pf, ArxivStream):
                    self._import_stream(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                        hook, hurry, reader)
                elif isinstance(pf, RecordFile):
                    self._import_records(pf, file_report, report.added_ids,
                                        report.changed_ids, cancel, step,
                                         hook, keywords, hurry)
                else:
                    self._import_file(pf, file_report, report.added_ids,
                                      report.changed_ids, cancel, step, hook, reader,
                                      hurry)
            except sqlite3.Error as exc:
                # The batches committed before the error stay (and are counted).
                file_report.error = (disk_full_message(self._lib.path / DB_NAME, exc)
                                     if is_disk_full(exc, self._lib.path)
                                     else f"database error: {exc}")
            except FileChangedError as exc:     # a streamed file cut while it was read
                file_report.error = (f"{exc}; the papers stored before stay, its last "
                                     "abstract was left out: import it again once it "
                                     "is complete")
            except OSError as exc:      # a streamed file that stops being readable
                file_report.error = (disk_full_message(self._lib.path, exc) if is_disk_full(exc)
                                     else f"cannot read file ({exc.strerror or exc})")
            except UnicodeDecodeError:  # a streamed text file changed while it was read
                file_report.error = ("it is no longer UTF-8 text (it changed while it was "
                                     "imported); the papers stored before stay")
            if file_report.cancelled:
                report.cancelled = True
                break
            done += _size(pf)
            progress("import", min(done, total), total)

    def _import_export(self, doc: dict, file_report: FileReport, added: list[int],
                       changed_ids: list[int], cancel: CancelCheck, step: Callable[[int], None],
                       hook: BatchHook) -> None:
        """Store a JSON export in batches of :data:`EXPORT_IMPORT_BATCH` papers; counts go
        to ``file_report``, new ids to ``added`` and the ids of papers already there that it
        changed to ``changed_ids`` after each commit; then its saved searches (merged by
        name, :func:`~paperdesk.core.imports.paperdesk_json.store_saved_searches`)."""
        papers = doc["papers"]
        now = _now()
        for start in range(0, len(papers), EXPORT_IMPORT_BATCH):
            if start and cancel():
                file_report.cancelled = True
                return
            counts = FileReport(file_report.path)
            with _db.transaction(self.db) as db:
                new, touched = store_export(
                    self._lib, {"papers": papers[start:start + EXPORT_IMPORT_BATCH]}, counts, now)
                self._lib.index.enqueue(db, new, "add")
                self._lib.index.enqueue(db, touched, "update")
            added.extend(new)
            changed_ids.extend(touched)
            file_report.added += counts.added
            file_report.duplicates += counts.duplicates
            file_report.enriched += counts.enriched
            file_report.without_abstract += counts.without_abstract
            file_report.warnings += counts.warnings
            step(min(start + EXPORT_IMPORT_BATCH, len(papers)))
            hook()
        if doc.get("saved_searches"):
            with _db.transaction(self.db) as db:
                file_report.saved_searches += store_saved_searches(
                    db, doc["saved_searches"], now)

    @staticmethod
    def source_id(db: sqlite_utils.Database, path: str, header: str, encoding: str,
                   now: str, name: str | None = None) -> int:
        """The ``sources`` row of ``path`` (inside the caller's transaction), created
        the first time the file is imported (the one lookup for every format, a JSON
        export's sources too); ``name`` defaults to the path's last part. A path with
        bytes that are not UTF-8 is stored with them escaped (:func:`display_path`)."""
        path = display_path(path)
        row = db.execute("SELECT id FROM sources WHERE path = ?", [path]).fetchone()
        if row is not None:
            return row[0]
        return db["sources"].insert({"path": path,
                                     "name": name or Path(path).name or path,
                                     "header": header, "encoding": encoding,
                                     "imported_at": now}).last_pk

    def _in_batches(self, total: int, file_report: FileReport, open_source,
                    store_batch, cancel: CancelCheck, step: Callable[[int], None],
                    hook: BatchHook) -> None:
        """The batch loop of an import (see :meth:`run`): each batch is one
        transaction of at most :data:`RECORD_IMPORT_BATCH` items or about
        :data:`BATCH_SECONDS`, then ``step(done)`` and ``hook()`` run outside it.

        Args:
            total: items in the file.
            file_report: gets ``cancelled`` when ``cancel`` stops the import.
            open_source: ``open_source(db) -> source_id``, called in the first batch
                (so that even an empty file is recorded).
            store_batch: ``store_batch(db, source_id, start, end, deadline) -> (done,
                on_commit)``: stores items ``start`` up to ``end`` (stopping early once
                ``time.monotonic()`` passes ``deadline``) and returns the index after
                the last one stored and a function to call once the batch is committed.
        """
        db = self.db
        source_id = None
        n = 0
        while source_id is None or n < total:
            if source_id is not None and cancel():
                file_report.cancelled = True
                return
            with _db.transaction(db):
                if source_id is None:
                    source_id = open_source(db)
                n, on_commit = store_batch(db, source_id, n, min(n + _record_batch(), total),
                                           time.monotonic() + BATCH_SECONDS)
            on_commit()
            step(n)
            hook()

    def _import_file(self, pf: ParsedFile | StreamedText, file_report: FileReport,
                     added: list[int], changed_ids: list[int], cancel: CancelCheck,
                     step: Callable[[int], None], hook: BatchHook,
                     reader: ParseChild | None = None,
                     hurry: Callable[[], bool] = never) -> None:
        """Store a text file's abstracts in batches (see :meth:`run`); counts go
        to ``file_report``, new ids to ``added`` and the ids of papers already there that
        it changed (another source) to ``changed_ids`` after each commit.

        The abstracts are taken from an iterator (a :class:`StreamedText` reads its file
        again in pieces meanwhile, so memory holds one batch; one of
        :data:`~paperdesk.core.imports.parse_process.PARSE_CHILD_MIN_BYTES` or more is
        read by ``reader``'s child process, while this thread stores). Each transaction stores
        chunks of 1, 2, 4 ... up to :data:`STORE_CHUNK` abstracts
        (:func:`~paperdesk.core.store.papers.insert_abstracts`: a few statements per
        chunk; with ``hurry`` given, none longer than about :data:`HURRY_SECONDS`) until
        it holds :data:`IMPORT_BATCH` abstracts or :data:`BATCH_SECONDS` (while edits
        come: :data:`HURRY_BATCH_SECONDS`) have passed, so that even a slow first chunk
        ends the transaction in time; ``step``, ``hook``
        and ``cancel`` run between transactions. An abstract that was cut
        (:mod:`paperdesk.core.imports.abstract_limit`) gets a note in
        ``file_report.warnings``.
        """
        now = _now()
        if reader is not None and _in_child(pf):
            # read meanwhile in the child process; WAITING while it has nothing new and
            # an edit waits
            items = reader.abstracts(pf, hurry)
        else:
            items = map(prepared, pf.abstracts if isinstance(pf, ParsedFile)
                        else pf.abstracts())

        def take(item: tuple) -> tuple:
            position, abstract, digest, title, cut_from, word = item
            if cut_from is not None:
                file_report.warnings.append(cut_note(f"abstract {position}",
                                                     len(abstract), cut_from))
            return position, abstract, digest, title, word

        def next_item() -> tuple | None:
            """The next abstract, waited for outside any transaction: while the child
            has none and an edit waits, the edit goes in (``hook``)."""
            while True:
                item = next(items, None)
                if item is not WAITING:
                    return item
                hook()

        edits_wait = hurry is not never     # an edit may wait for the next chunk
        last_edit = -HURRY_LATELY_SECONDS   # when an edit last waited (monotonic s)
        db = self.db
        source_id = None
        done = 0
        pending: list = []
        finished = False
        while not finished:
            if not pending:     # the first abstract is waited for before a transaction
                item = next_item()
                if item is not None:
                    pending.append(take(item))
                elif source_id is not None:
                    return      # no empty transaction after the last abstract
            if source_id is not None and cancel():
                file_report.cancelled = True
                return
            stored = StoredAbstracts()
            waiting = False
            began_batch = time.monotonic()
            keys_lately = began_batch - last_edit < HURRY_LATELY_SECONDS
            deadline = began_batch + (HURRY_BATCH_SECONDS if keys_lately else BATCH_SECONDS)
            with _db.transaction(db):
                if source_id is None:
                    source_id = self.source_id(db, _stored(db, pf.path, now), pf.header,
                                                pf.encoding, now)
                size, in_batch = 1, 0
                while in_batch < IMPORT_BATCH:
                    want = min(size, STORE_CHUNK, IMPORT_BATCH - in_batch)
                    while len(pending) < want:
                        item = next(items, None)
                        if item is WAITING:     # the child is behind and an edit waits:
                            waiting = True      # commit what is stored, let it in
                            last_edit = time.monotonic()
                            break
                        if item is None:
                            break
                        pending.append(take(item))
                    chunk, pending = pending[:want], pending[want:]
                    if not chunk:
                        finished = not waiting
                        break
                    began = time.monotonic()
                    part = insert_abstracts(db, chunk, source_id, now)
                    self._lib.index.enqueue(db, part.added, "add")
                    self._lib.index.enqueue(db, part.changed, "update")
                    stored.added += part.added
                    stored.changed += part.changed
                    stored.duplicates += part.duplicates
                    in_batch += len(chunk)
                    size *= 2
                    took = time.monotonic() - began
                    if edits_wait and took > 0:     # the next chunk: HURRY_SECONDS long
                        size = min(size, max(1, int(HURRY_SECONDS * len(chunk) / took)))
                    if waiting or hurry():
                        last_edit = time.monotonic()    # shorter batches for a while
                        break
                    if time.monotonic() >= deadline:
                        break
            added.extend(stored.added)
            changed_ids.extend(stored.changed)
            file_report.added += len(stored.added)
            file_report.duplicates += stored.duplicates
            done += in_batch
            step(done)
            hook()

    def _import_records(self, rf: RecordFile, file_report: FileReport, added: list[int],
                        changed_ids: list[int], cancel: CancelCheck, step: Callable[[int], None],
                        hook: BatchHook, keywords: bool = True,
                        hurry: Callable[[], bool] = never) -> None:
        """Store the records of a BibTeX, RIS or CSL-JSON file in batches (as
        :meth:`_import_file` does): new papers, or metadata merged onto the papers they
        match (:func:`paperdesk.core.imports.records.store_records`), with their
        keywords as tags unless ``keywords`` is False, and their notes."""
        now = _now()
        items = rf.records
        kept: dict = {}         # the Identifiers and the state they were read in

        def store_batch(db, source_id: int, n: int, end: int, deadline: float):
            counts = FileReport(file_report.path)
            new, changed = [], []
            if "ids" not in kept or _identifier_state(db) != kept["seen"]:
                kept["ids"] = Identifiers(db)   # as in _import_stream: read once
            ids = kept["ids"]
            tags_notes = TagsAndNotes(db, keywords)
            while n < end:
                a, c = store_records(db, items[n:n + 1], source_id, counts, now, ids,
                                     tags_notes)
                new += a
                changed += c
                n += 1
                if time.monotonic() >= deadline or hurry():
                    break
            self._lib.index.enqueue(db, new, "add")
            self._lib.index.enqueue(db, changed, "update")
            seen = _identifier_state(db)        # in the transaction: nobody else's writes

            def on_commit() -> None:
                kept["seen"] = seen
                added.extend(new)
                changed_ids.extend(changed)
                for name in ("added", "duplicates", "enriched", "without_abstract"):
                    setattr(file_report, name,
                            getattr(file_report, name) + getattr(counts, name))
                file_report.warnings += counts.warnings

            return n, on_commit

        self._in_batches(
            len(items), file_report,
            lambda db: self.source_id(db, _stored(db, rf.path, now),
                                       IMPORT_FORMATS.get(rf.format).label,
                                       rf.encoding, now),
            store_batch, cancel, step, hook)

    def _import_stream(self, stream: ArxivStream, file_report: FileReport,
                       added: list[int], changed_ids: list[int], cancel: CancelCheck,
                       step: Callable[[int], None], hook: BatchHook,
                       hurry: Callable[[], bool] = never,
                       reader: ParseChild | None = None) -> None:
        """Store an arXiv metadata file while reading it, in bounded memory.

        The file's size is not known in records, so :meth:`_in_batches` does not fit:
        records are read (outside any transaction) until :data:`RECORD_IMPORT_BATCH` are kept
        or :data:`BATCH_SECONDS` have passed, then stored in one transaction through
        :func:`~paperdesk.core.imports.records.store_records` (merged onto the papers
        they match, by arXiv id, DOI or abstract); ``step(lines read)``, ``hook()`` and
        ``cancel()`` run between batches, also while a filter keeps nothing for long.

        The library's DOIs and arXiv ids (:class:`Identifiers`) are read once and kept
        across batches (reading them per batch would make a snapshot of millions of
        records quadratic); they are read again when anything else wrote to the
        database's identifiers between two batches (:func:`_identifier_state`: a DOI or
        arXiv id edited, a paper with one inserted, or a paper deleted, by ``hook``'s
        edits or another connection); a star, tag or note edit does not make them read
        again.
        """
        now = _now()
        # A large file is read, decoded and checked by the child process while this
        # thread stores (both cores); standard input and small files here.
        # The child also computes what each record's near-duplicate lookup needs of its
        # abstract, when this library looks them up (a library the near-duplicate stage
        # never ran on does not): a third of this thread's CPU otherwise.
        records = (reader.arxiv_records(stream, near_duplicates_looked_up(self.db), hurry)
                   if reader is not None and _arxiv_in_child(stream)
                   else stream.records())
        db = self.db
        source_id = None
        finished = False
        ids: Identifiers | None = None
        seen = None

        carry: list = []        # records read but left for the next batch (hurry)
        while True:
            if source_id is not None and cancel():
                file_report.cancelled = True
                break
            batch, carry = carry, []
            deadline = time.monotonic() + BATCH_SECONDS
            if not finished and len(batch) < _record_batch():
                for record in records:
                    if record is WAITING:   # the child has nothing new and an edit
                        break               # waits: store what was read, let it in
                    batch.append(record)
                    if len(batch) >= _record_batch() or time.monotonic() >= deadline \
                            or hurry():
                        break
                else:
                    finished = True
            counts = FileReport(file_report.path)
            with _db.transaction(db):
                if ids is None or _identifier_state(db) != seen:
                    ids = Identifiers(db)
                if source_id is None:
                    source_id = self.source_id(db, _stored(db, stream.path, now),
                                                IMPORT_FORMATS.get(stream.format).label, "utf-8", now)
                tags_notes = TagsAndNotes(db)
                new, changed = [], []
                for start in range(0, len(batch), HURRY_CHUNK):
                    a, c = store_records(db, batch[start:start + HURRY_CHUNK], source_id,
                                         counts, now, ids, tags_notes)
                    new += a
                    changed += c
                    if start + HURRY_CHUNK < len(batch) and hurry():
                        carry = batch[start + HURRY_CHUNK:]   # an edit waits: commit now
                        break
                self._lib.index.enqueue(db, new, "add")
                self._lib.index.enqueue(db, changed, "update")
                seen = _identifier_state(db)    # in the transaction: nobody else's writes
            added.extend(new)
            changed_ids.extend(changed)
            for name in ("added", "duplicates", "enriched", "without_abstract"):
                setattr(file_report, name, getattr(file_report, name) + getattr(counts, name))
            file_report.warnings += counts.warnings[:max(0, 1000 - len(file_report.warnings))]
            file_report.skipped = stream.skipped
            file_report.filtered = stream.filtered
            step(min(stream.lines_read, stream.estimated_lines or stream.lines_read))
            hook()
            if finished and not carry:
                break
        file_report.warnings = [*stream.notes, *file_report.warnings]
        kept = (file_report.added + file_report.duplicates + file_report.enriched
                + file_report.filtered)
        if finished and not kept and file_report.skipped:
            # Every entry was left out: the file is refused, as a read file with no
            # entry is (:func:`_read_any`), so the command's exit status says so.
            why = (file_report.warnings[0].removesuffix("; left out") if file_report.warnings
                   else "none could be read")
            file_report.error = (f"no {IMPORT_FORMATS.get(stream.format).label} entry "
                                 f"with a title or an abstract ({why})")
            if source_id is not None:      # a refused file leaves no trace
                with _db.transaction(db):
                    db.execute("DELETE FROM sources WHERE id = ? AND NOT EXISTS (SELECT 1 "
                               "FROM paper_sources WHERE source_id = ?)",
                               [source_id, source_id])
