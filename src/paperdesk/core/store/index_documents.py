"""The search index's view of a paper: :class:`~paperdesk.core.search.index.IndexDocument`
built from the library's tables, in any process.

:func:`read_documents` is what :meth:`lib.index.sync` indexes; :class:`DocumentSource`
carries the database's path to the processes that write index segments
(:mod:`paperdesk.core.search.writer_process`), which read the documents of their share
of a batch themselves, so the window's process neither reads nor sends them.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from paperdesk.core.search.index import IndexDocument
from paperdesk.core.store.key_aliases import aliases_by_paper
from paperdesk.core.store.papers import METADATA_COLUMNS, metadata_from_row
from paperdesk.core.text import is_code_url, mentioned_in

__all__ = ["DOCUMENTS_CHUNK", "DocumentSource", "read_documents"]

#: Most paper ids in one ``IN (...)`` list when reading documents for the index.
DOCUMENTS_CHUNK = 1000


def read_documents(db, ids: Sequence[int]) -> dict[int, IndexDocument]:
    """Read the index documents of papers ``ids``.

    Tags and the read and star marks are left out (no ``tags``; no ``read``/``unread``,
    ``starred``/``unstarred`` or ``tagged`` flags): searches answer them from SQLite
    (:mod:`paperdesk.core.search.state_terms`), so changing them rewrites no document.

    Args:
        db: a ``sqlite_utils.Database`` or ``sqlite3.Connection`` of a library.
        ids: paper ids; read in chunks of :data:`DOCUMENTS_CHUNK`.
    Returns:
        ``{paper id: IndexDocument}``; papers that do not exist are left out.
    """
    ids = list(ids)
    if len(ids) > DOCUMENTS_CHUNK:
        out: dict[int, IndexDocument] = {}
        for i in range(0, len(ids), DOCUMENTS_CHUNK):
            out.update(read_documents(db, ids[i:i + DOCUMENTS_CHUNK]))
        return out
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))

    def grouped(sql: str) -> dict[int, list]:
        out: dict[int, list] = {}
        for pid, value in db.execute(sql.format(marks=marks), ids):
            out.setdefault(pid, []).append(value)
        return out

    sources = grouped("SELECT paper_id, source_id FROM paper_sources "
                      "WHERE paper_id IN ({marks})")
    names = grouped("SELECT ps.paper_id, s.name || ',' || s.header FROM paper_sources ps "
                    "JOIN sources s ON s.id = ps.source_id WHERE ps.paper_id IN ({marks})")
    comments = grouped("SELECT paper_id, comment FROM highlights "
                       "WHERE paper_id IN ({marks}) AND comment != ''")
    highlighted = {r[0] for r in db.execute(
        f"SELECT DISTINCT paper_id FROM highlights WHERE paper_id IN ({marks})", ids)}
    aliases = aliases_by_paper(db, ids)
    notes = dict(db.execute(
        f"SELECT paper_id, body FROM notes WHERE paper_id IN ({marks})", ids).fetchall())
    docs = {}
    for (pid, title, abstract, key, *meta) in db.execute(
            "SELECT id, title, abstract, citation_key, "
            f"{', '.join(METADATA_COLUMNS)} FROM papers WHERE id IN ({marks})", ids):
        own = metadata_from_row(meta)
        said = mentioned_in(abstract)
        source_names = []
        for joined in names.get(pid, ()):
            name, _, header = joined.partition(",")
            source_names += [name, Path(name).stem, header]
        flags = [flag for flag, present in (
            ("note", pid in notes), ("highlight", pid in highlighted),
            ("code", any(is_code_url(u) for u in said.urls)),
            ("author", bool(own.authors)),
            ("year", own.year is not None), ("doi", bool(own.doi)),
            ("arxiv", bool(own.arxiv_id))) if present]
        docs[pid] = IndexDocument(
            pid, title, abstract, tuple(sorted(set(sources.get(pid, [])))),
            note=notes.get(pid, ""),
            comments=tuple(comments.get(pid, ())),
            sources=tuple(dict.fromkeys(source_names)), flags=tuple(flags),
            authors=tuple(f"{a.given} {a.family} {a.suffix}".strip()
                          for a in own.authors),
            year=own.year, doi=own.doi or "",
            arxiv_id=own.arxiv_id or "", citation_key=key or "",
            mentions=(*said.dois, *said.arxiv_ids, *said.urls), values=own.values,
            key_aliases=aliases.get(pid, ()))
    return docs


class DocumentSource:
    """Reads index documents from one library database, in this process or another.

    Only the database path is pickled: a child process opens its own read-only
    connection on first use (and keeps it); in the process that made the source,
    ``local`` (the library's own per-thread reading) is used instead.

    Args:
        db_path: the library's ``library.db``.
        local: ``local(ids) -> {id: IndexDocument}`` for this process, or ``None``.
    """

    def __init__(self, db_path: str | os.PathLike,
                 local: Callable[[Sequence[int]], dict[int, IndexDocument]] | None = None):
        self.db_path = str(db_path)
        self._local = local
        self._pid = os.getpid()
        self._conns = threading.local()

    def __getstate__(self) -> dict:
        return {"db_path": self.db_path}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["db_path"])
        self._pid = -1

    def __call__(self, ids: Sequence[int]) -> dict[int, IndexDocument]:
        """Return ``{id: IndexDocument}`` of the papers ``ids`` that exist.

        Raises:
            sqlite3.Error: the database cannot be read.
        """
        if self._local is not None and os.getpid() == self._pid:
            return self._local(ids)
        conn = getattr(self._conns, "conn", None)
        if conn is None:
            uri = Path(self.db_path).absolute().as_uri() + "?mode=ro"
            conn = self._conns.conn = sqlite3.connect(uri, uri=True)
        return read_documents(conn, ids)
