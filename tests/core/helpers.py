"""Helpers for tests that write their own abstract files."""

import sqlite3
from pathlib import Path


def write_daily(path: Path, abstracts: list[str], header: str = "Daily Papers",
                newline: str = "\n", encoding: str = "utf-8", bom: bool = False) -> Path:
    """Write a Daily Papers file (header, blank line, one abstract per paragraph)."""
    text = newline.join([header, ""] + [a + newline for a in abstracts])
    data = text.encode(encoding)
    if bom:
        data = b"\xef\xbb\xbf" + data
    path.write_bytes(data)
    return path


def stored_papers(library: Path) -> int:
    """Count the papers in ``library``'s database from outside, read-only, while another
    process may be writing it (0 before the database or its schema exists)."""
    db = library / "library.db"
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM papers").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:      # the schema is being created
        return 0


def ctrl_c_at_index_write(monkeypatch, at: int = 2) -> None:
    """Make this process get SIGINT (what Ctrl+C sends) as the search index is written
    for the ``at``-th time (``SearchIndex.write``), the write then going on."""
    import os
    import signal

    from paperdesk.core.search.index import SearchIndex

    real_write = SearchIndex.write
    writes = []

    def write(self, *args, **kwargs):
        writes.append(1)
        if len(writes) == at:                       # the user presses Ctrl+C
            os.kill(os.getpid(), signal.SIGINT)
        return real_write(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "write", write)


def give_long_abstract(lib, paper_id: int, text: str) -> None:
    """Make ``lib`` hold ``text`` as paper ``paper_id``'s abstract, as a library imported
    before abstracts were cut at 100,000 characters (issue 23) still can, and index it.
    The import path can no longer store such an abstract, so it is written with SQL."""
    with lib.db.conn:
        lib.db.execute("UPDATE papers SET abstract = ? WHERE id = ?", [text, paper_id])
    lib.index.reindex()
