"""Helpers for tests that write their own abstract files."""

import json
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


#: Packages of the virtual environment a command line run as another user never imports
#: (the GUI toolkit, the test tools, the installers): not copied by :func:`as_user`.
_NOT_FOR_THE_CLI = ("PySide6", "shiboken6", "pyside6_essentials", "pip",
                    "setuptools", "_pytest", "pytest", "pytestqt", "hypothesis",
                    "_hypothesis", "pygments", "__pycache__")
#: user -> (environment to add, working folder) or the reason to skip.
_readable: dict[str, tuple[dict, str | None] | str] = {}


def _link_or_copy(src: str, dst: str) -> None:
    """A hard link where the file system allows it (instant; the file keeps its own
    mode, readable by all), else a copy."""
    import os
    import shutil

    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def as_user(cmd: list[str], user: str) -> tuple[list[str], dict, str | None]:
    """``cmd`` (``[sys.executable, ...]``) run as ``user`` through ``setpriv``, from
    files that user can read wherever the checkout lies.

    A checkout under a private folder (``mktemp -d`` makes it 0700) cannot be read by
    ``nobody``: neither ``src/`` nor ``.venv``'s site-packages (``No module named
    paperdesk``). Then the package and the site-packages the command line needs are
    linked (or copied) once per test session into a temporary folder of mode 0755, and
    the command runs the same interpreter with ``PYTHONPATH`` pointing there.

    Args:
        cmd: the command, its first item ``sys.executable``.
        user: the user name, e.g. ``"nobody"``.
    Returns:
        ``(command, environment, working folder or None)`` for :func:`subprocess.run`.
    Raises:
        pytest.skip.Exception: the user cannot run this interpreter or import paperdesk
            even from the readable copy (the reason is named).
    """
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    import pytest

    import paperdesk

    prefix = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups"]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    probe = [sys.executable, "-c", "import paperdesk.cli"]
    if user not in _readable:
        r = subprocess.run(prefix + probe, capture_output=True, text=True, env=env,
                           cwd="/")
        if r.returncode == 0:
            _readable[user] = ({}, None)
        else:
            folder = tempfile.mkdtemp(prefix="paperdesk-readable-")
            os.chmod(folder, 0o755)
            import atexit
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            src = Path(paperdesk.__file__).resolve().parent
            shutil.copytree(src, Path(folder, "src", "paperdesk"),
                            copy_function=_link_or_copy,
                            ignore=shutil.ignore_patterns("__pycache__"))
            site = next(p for p in sys.path if p.endswith("site-packages")
                        and Path(p, "numpy").is_dir())
            shutil.copytree(site, Path(folder, "site-packages"),
                            copy_function=_link_or_copy, symlinks=True,
                            ignore=lambda where, names: [
                                n for n in names if n.startswith(_NOT_FOR_THE_CLI)
                                and Path(where) == Path(site)])
            for root, dirs, _files in os.walk(folder):
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o755)
            readable_env = {"PYTHONPATH": os.pathsep.join(
                [str(Path(folder, "src")), str(Path(folder, "site-packages"))])}
            r = subprocess.run(prefix + probe, capture_output=True, text=True,
                               env={**env, **readable_env}, cwd=folder)
            _readable[user] = ((readable_env, folder) if r.returncode == 0
                               else f"{user} cannot run {sys.executable} with paperdesk "
                                    f"even from a readable copy: "
                                    f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
    found = _readable[user]
    if isinstance(found, str):
        pytest.skip(found)
    extra, cwd = found
    return prefix + cmd, {**env, **extra}, cwd


def imported_back(exports: dict[str, str], folder: Path) -> dict:
    """Import each of a single paper's exports (BibTeX, RIS, CSL-JSON and paperdesk
    JSON texts, by format name) into an empty library of its own and return the paper
    each gives back: format name -> ``Paper``."""
    from paperdesk.core.library import Library

    back = {}
    for fmt, ext in (("bibtex", "bib"), ("ris", "ris"), ("csl-json", "json"),
                     ("json", "json")):
        path = folder / f"{fmt}.{ext}"
        path.write_text(exports[fmt], encoding="utf-8")
        with Library.open(folder / f"lib-{fmt}") as other:
            other.imports.run([path])
            (back[fmt],) = [other.papers.get(i) for i in other.papers.ids()]
    return back


def arxiv_lines(path: Path, n: int, month: str = "2401", title: str = "Lattice walk",
                doi_every: int = 0) -> Path:
    """Write ``n`` distinct cs records in the arXiv metadata snapshot's shape (JSON
    Lines; ids ``<month>.00000`` on; every ``doi_every``-th record, from the first, with
    a DOI when ``doi_every`` is set). Returns ``path``."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({
                "id": f"{month}.{i:05d}", "submitter": "A. Submitter",
                "authors": f"A. Author{i} and B. Writer", "title": f"{title} {i}",
                "comments": None, "journal-ref": None,
                "doi": f"10.1234/walk.{i}" if doi_every and i % doi_every == 0 else None,
                "report-no": None, "categories": "cs.LG", "license": None,
                "abstract": f"  We study {title.lower()} number {i} and show that walk {i} "
                            f"mixes in {i % 13 + 2} steps on benchmark graphs.\n",
                "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 10:00:00 GMT"}],
                "update_date": "2024-01-02",
                "authors_parsed": [[f"Author{i}", "A.", ""], ["Writer", "B.", ""]]}) + "\n")
    return path
