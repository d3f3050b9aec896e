"""Editing a paper's own metadata (authors, date, venue, entry type, DOI, arXiv id, URL)
and its citation key. Part of :class:`paperdesk.core.library.Library`.

Every edit is checked first (:func:`paperdesk.core.metadata.check_metadata`; a refused
value raises :class:`~paperdesk.core.metadata.MetadataError` and changes nothing), runs in
one transaction with the paper's re-index entry, returns the
:class:`~paperdesk.core.changes.Changes` it made and records one undo step.
"""

from __future__ import annotations

import sqlite_utils

from paperdesk.core.changes import NO_CHANGES, Changes
from paperdesk.core.metadata import MetadataError, check_citation_key, check_metadata
from paperdesk.core.models import Metadata
from paperdesk.core.store import db as _db
from paperdesk.core.store.papers import (METADATA_COLUMNS, key_taken, metadata_from_row,
                                         new_citation_key, write_metadata)

__all__ = ["MetadataMixin"]


class MetadataMixin:
    """Metadata methods of :class:`Library` (needs ``self.db``, ``self._existing_ids``,
    ``self._enqueue``, ``self._changed`` and ``self._record``)."""

    db: sqlite_utils.Database

    def metadata(self, paper_id: int) -> Metadata:
        """Return a paper's own metadata.

        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._existing_ids([paper_id])
        return metadata_from_row(self.db.execute(
            f"SELECT {', '.join(METADATA_COLUMNS)} FROM papers WHERE id = ?",
            [pid]).fetchone())

    def citation_key(self, paper_id: int) -> str:
        """Return a paper's citation key.

        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._existing_ids([paper_id])
        return self.db.execute("SELECT citation_key FROM papers WHERE id = ?",
                               [pid]).fetchone()[0]

    def _write_metadata(self, pid: int, meta: Metadata, key: str | None = None) -> None:
        with _db.transaction(self.db) as db:
            if key is not None:
                if key_taken(db, key, pid):
                    raise MetadataError(f"citation key: {key!r} is already used by "
                                        "another paper")
                db.conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?",
                                [key, pid])
            write_metadata(db, pid, meta)
            self._enqueue(db, [pid], "update")
        self._changed()

    def set_metadata(self, paper_id: int, meta: Metadata, undoable: bool = True,
                     citation_key: str | None = None) -> Changes:
        """Replace a paper's own metadata (all parts at once; pass the current
        :meth:`metadata` with some parts replaced to change only those), and optionally
        its citation key, in one transaction and one undo step. Without
        ``citation_key`` the key stays as it is (see :meth:`regenerate_citation_key`).

        Args:
            paper_id: the paper.
            meta: the new metadata (checked and cleaned first).
            undoable: record an undo step ("Edit metadata").
            citation_key: a new citation key, or ``None`` to keep it.
        Returns:
            :class:`Changes` with fields ``"metadata"`` and/or ``"citation_key"`` (empty
            when nothing differs).
        Raises:
            UnknownPaper: no such paper.
            MetadataError: a part is refused, or the key is malformed or another
                paper's (one line naming it); nothing is changed.
        """
        clean = check_metadata(meta)
        new_key = None if citation_key is None else check_citation_key(citation_key)
        before = self.metadata(paper_id)
        old_key = self.citation_key(paper_id)
        pid = int(paper_id)
        if new_key == old_key:
            new_key = None
        fields = (["metadata"] if clean != before else []) + (
            ["citation_key"] if new_key is not None else [])
        if not fields:
            return NO_CHANGES
        self._write_metadata(pid, clean, new_key)
        changes = Changes.of(papers=[pid], fields=fields, search=True)

        def undo() -> Changes:
            self._existing_ids([pid])
            self._write_metadata(pid, before, old_key if new_key is not None else None)
            return changes

        def redo() -> Changes:
            self._existing_ids([pid])
            self._write_metadata(pid, clean, new_key)
            return changes

        return self._record("Edit metadata", changes, undo, redo, undoable=undoable)

    def _write_key(self, pid: int, key: str) -> None:
        with _db.transaction(self.db) as db:
            if key_taken(db, key, pid):
                raise MetadataError(f"citation key: {key!r} is already used by another paper")
            db.conn.execute("UPDATE papers SET citation_key = ? WHERE id = ?", [key, pid])
            self._enqueue(db, [pid], "update")
        self._changed()

    def _key_step(self, label: str, pid: int, old: str, new: str,
                  undoable: bool) -> Changes:
        if new == old:
            return NO_CHANGES
        self._write_key(pid, new)
        changes = Changes.of(papers=[pid], fields=["citation_key"], search=True)

        def undo() -> Changes:
            self._write_key(pid, old)
            return changes

        def redo() -> Changes:
            self._write_key(pid, new)
            return changes

        return self._record(label, changes, undo, redo, undoable=undoable)

    def set_citation_key(self, paper_id: int, key: str, undoable: bool = True) -> Changes:
        """Give a paper the citation key the user typed.

        Args:
            paper_id: the paper.
            key: the key (see :func:`paperdesk.core.metadata.check_citation_key`).
            undoable: record an undo step ("Edit citation key").
        Returns:
            :class:`Changes` with field ``"citation_key"`` (empty when unchanged).
        Raises:
            UnknownPaper: no such paper.
            MetadataError: the key is malformed or another paper has it (any case).
        """
        clean = check_citation_key(key)
        old = self.citation_key(paper_id)
        return self._key_step("Edit citation key", int(paper_id), old, clean, undoable)

    def proposed_citation_key(self, paper_id: int, meta: Metadata | None = None) -> str:
        """Return the key :meth:`regenerate_citation_key` would give the paper now: Better
        BibTeX's ``family`` + year + first title word (a/b/c when taken) when its authors
        are known, else ``word_id`` (with the year when known). The paper's current key
        counts as free.

        Args:
            paper_id: the paper.
            meta: metadata to make the key from instead of the stored one (e.g. what
                the metadata editor holds before it is saved); it is not checked.
        Raises:
            UnknownPaper: no such paper.
        """
        (pid,) = self._existing_ids([paper_id])
        title = self.db.execute("SELECT title FROM papers WHERE id = ?", [pid]).fetchone()[0]
        return new_citation_key(self.db, pid, title,
                                meta if meta is not None else self.metadata(pid))

    def regenerate_citation_key(self, paper_id: int, undoable: bool = True) -> Changes:
        """Replace a paper's citation key by :meth:`proposed_citation_key` (only when the
        user asks: documents citing the old key stop finding it).

        Returns:
            :class:`Changes` with field ``"citation_key"`` (empty when the key is already
            the proposed one).
        Raises:
            UnknownPaper: no such paper.
        """
        old = self.citation_key(paper_id)
        return self._key_step("Regenerate citation key", int(paper_id), old,
                              self.proposed_citation_key(paper_id), undoable)

    def paper_for_key(self, key: str) -> int | None:
        """Return the id of the paper with this citation key (any case), or ``None``."""
        row = self.db.execute("SELECT id FROM papers WHERE citation_key = ? COLLATE NOCASE",
                              [str(key).strip()]).fetchone()
        return row[0] if row else None
