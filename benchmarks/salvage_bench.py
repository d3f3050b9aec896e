"""Salvage benchmark (issue 23 item 2): what ``paperdesk repair --salvage`` brings back.

Usage::

    python benchmarks/salvage_bench.py [--papers 10000] [--workdir DIR] [--json]

Builds a library of ``--papers`` synthetic abstracts (sentences of the seed files,
through paperdesk's own import), tags every 2nd paper, writes a note on every 3rd and a
highlight on every 4th, takes a backup, then damages copies of it the ways a tester did:
cut short at 25, 50 and 75 % of its size; 1 % of its pages overwritten with random
bytes; and page 1 (the header and the schema) with the papers table's root page
overwritten. Each copy is salvaged with ``paperdesk repair --salvage`` (the index
rebuilt too) and the rows that came back are compared with the rows that lived on
intact pages, read before the damage from SQLite's ``dbstat`` table
(https://www.sqlite.org/dbstat.html; see :func:`expected_rows`). The helpers are shared
with ``tests/core/test_salvage.py``.

``make bench-salvage`` runs it; docs/checking.md ("Checking and repairing") has a run's
figures.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

PAGE = 4096
#: Tables compared (the ones the salvage report counts).
COMPARED = ("papers", "tags", "notes", "highlights")
#: Damage cases, in the order of docs/checking.md's table.
CASES = ("cut25", "cut50", "cut75", "overwrite1pct", "overwrite-header")


def has_dbstat() -> bool:
    """True when this SQLite has the ``dbstat`` table (SQLITE_ENABLE_DBSTAT_VTAB)."""
    try:
        sqlite3.connect(":memory:").execute("SELECT * FROM dbstat").fetchall()
        return True
    except sqlite3.Error:
        return False


def rows(db: Path, table: str) -> dict[int, tuple]:
    """``rowid -> the row's values`` of ``table`` in the database file ``db``."""
    con = sqlite3.connect(db)
    try:
        return {r[0]: tuple(r[1:]) for r in con.execute(
            f"SELECT rowid, * FROM {table} ORDER BY rowid")}
    finally:
        con.close()


def pages_of_rows(db: Path, table: str) -> dict[int, set[int]]:
    """``rowid -> the pages its row lives on`` (its leaf and overflow pages), from
    ``dbstat``: a table b-tree's leaves, in path order, hold its rows in rowid order,
    ``ncell`` each; an overflow page's path is its cell's (leaf path + cell number in
    hex) followed by ``+`` and its place in the chain."""
    con = sqlite3.connect(db)
    try:
        rowids = [r[0] for r in con.execute(f"SELECT rowid FROM {table} ORDER BY rowid")]
        stat = con.execute("SELECT path, pageno, pagetype, ncell FROM dbstat "
                           "WHERE name = ? ORDER BY path", [table]).fetchall()
    finally:
        con.close()
    pages: dict[int, set[int]] = {}
    at_leaf: dict[str, list[int]] = {}
    i = 0
    for path, pageno, kind, ncell in stat:
        if kind == "leaf":
            at_leaf[path] = rowids[i:i + ncell]
            for rowid in at_leaf[path]:
                pages[rowid] = {pageno}
            i += ncell
    assert i == len(rowids), "dbstat's leaves do not hold every row"
    for path, pageno, kind, _ncell in stat:
        if kind == "overflow":                  # "/00a/003+000001": leaf /00a/, cell 3
            cell_path = path.split("+")[0]
            leaf, cell = cell_path[:-3], int(cell_path[-3:], 16)
            pages[at_leaf[leaf][cell]].add(pageno)
    return pages


def expected_rows(db: Path, bad_pages: set[int]) -> dict[str, set[int]]:
    """The rowids of each table of :data:`COMPARED` that must come back when
    ``bad_pages`` of the (undamaged) database ``db`` are lost: rows whose pages are all
    intact and, for notes and highlights, whose paper comes back."""
    def intact(table: str) -> set[int]:
        return {rowid for rowid, pages in pages_of_rows(db, table).items()
                if not pages & bad_pages}

    papers = intact("papers")
    highlights = rows(db, "highlights")                      # (id, paper_id, …)
    return {"papers": papers, "tags": intact("tags"),
            "notes": {r for r in intact("notes") if r in papers},   # rowid = paper_id
            "highlights": {r for r in intact("highlights") if highlights[r][1] in papers}}


def damage(folder: Path, how: str, seed: int = 23) -> set[int]:
    """Damage ``folder``'s ``library.db`` (the library closed) and return the pages lost.

    Args:
        folder: the library folder.
        how: ``cutNN`` (cut to NN % of its pages, plus a third of the next page),
            ``overwrite`` (the papers table's root page and three of its leaves),
            ``overwrite-header`` (those and page 1), ``overwrite1pct`` (1 % of all pages,
            at random, and the papers root).
        seed: for the random bytes and pages.
    """
    db = folder / "library.db"
    pages = db.stat().st_size // PAGE
    if how.startswith("cut"):
        keep = pages * int(how[3:]) // 100
        with open(db, "r+b") as f:
            f.truncate(keep * PAGE + PAGE // 3)          # a page cut through, too
        return set(range(keep + 1, pages + 1))
    con = sqlite3.connect(db)
    try:
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'papers'"
                           ).fetchone()[0]
        leaves = [r[0] for r in con.execute(
            "SELECT pageno FROM dbstat WHERE name = 'papers' AND pagetype = 'leaf' "
            "ORDER BY path")]
    finally:
        con.close()
    rnd = random.Random(seed)
    bad = {root, leaves[3], leaves[len(leaves) // 2], leaves[-1]}
    if how == "overwrite-header":
        bad.add(1)
    elif how == "overwrite1pct":
        bad = {root} | set(rnd.sample(range(2, pages + 1), max(1, pages // 100)))
    with open(db, "r+b") as f:
        for page in sorted(bad):
            f.seek((page - 1) * PAGE)
            f.write(rnd.randbytes(PAGE))
    return bad


def build(folder: Path, n: int, workdir: Path) -> None:
    """A library of ``n`` synthetic papers with tags, notes, highlights and a backup."""
    from benchmarks.synth import write_synthetic_files
    from paperdesk.core.library import Library
    from paperdesk.core.store.backup import backup_name, backup_to

    files = write_synthetic_files(workdir / "files", sorted((ROOT / "seeds").glob("*.txt")),
                                  n)
    with Library.open(folder) as lib:
        lib.imports.run(files)
        annotate(lib)
        backup_to(lib.db.conn, backup_name(folder / "backups"))


def annotate(lib) -> None:
    """Tag every paper (5 tags in turn), write a note on every 3rd paper and a highlight
    on every 4th, then bring the index up to date once."""
    lib.auto_sync_index = False
    ids = lib.papers.ids()
    for k in range(5):
        lib.tags.add(ids[k::5], f"topic {k}", undoable=False)
    for i, pid in enumerate(ids):
        if i % 3 == 0:
            lib.notes.set(pid, f"my note on paper {pid}: " + "worth reading " * 20,
                         undoable=False)
        if i % 4 == 0:
            lib.notes.add_highlight(pid, 0, 12, undoable=False)
    lib.index.sync()


def run(n: int, workdir: Path) -> dict:
    """Build, damage, salvage and compare; returns the figures by case."""
    from paperdesk.cli import main as paperdesk

    template = workdir / "template"
    if not (template / "library.db").exists():
        shutil.rmtree(template, ignore_errors=True)
        build(template, n, workdir)
    whole = {t: len(rows(template / "library.db", t)) for t in COMPARED}
    pages = (template / "library.db").stat().st_size // PAGE
    report = {"papers": n, "pages": pages, "whole": whole, "cases": {}}
    for how in CASES:
        folder = workdir / how
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(template, folder)
        bad = damage(folder, how)
        want = expected_rows(template / "library.db", bad)
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as out, \
                contextlib.redirect_stderr(io.StringIO()):
            status = paperdesk(["--library", str(folder), "repair", "--salvage"])
        seconds = time.perf_counter() - start
        got = {t: set(rows(folder / "library.db", t)) for t in COMPARED}
        report["cases"][how] = {
            "status": status, "pages_lost": len(bad & set(range(1, pages + 1))),
            "seconds": round(seconds, 2),
            "salvage_seconds": float(out.getvalue().split(" in ")[1].split(" s:")[0]),
            **{t: {"recovered": len(got[t]), "on_intact_pages": len(want[t]),
                   "missing": len(want[t] - got[t]), "extra": len(got[t] - want[t])}
               for t in COMPARED}}
    return report


def markdown(report: dict) -> str:
    """docs/checking.md's table of a run."""
    whole = report["whole"]
    lines = [f"{report['papers']:,} papers, {report['pages']:,} pages of 4 KiB; whole: "
             + ", ".join(f"{whole[t]:,} {t}" for t in COMPARED), "",
             "| damage | pages lost | papers | tags | notes | highlights | time (s) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for how, case in report["cases"].items():
        cells = [f"{case[t]['recovered']:,} of {case[t]['on_intact_pages']:,}"
                 + (f" ({case[t]['missing']} missing)" if case[t]["missing"] else "")
                 for t in COMPARED]
        lines.append(f"| {how} | {case['pages_lost']:,} | " + " | ".join(cells)
                     + f" | {case['salvage_seconds']:.1f} ({case['seconds']:.1f}) |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not has_dbstat():
        print("salvage_bench: this SQLite has no dbstat table", file=sys.stderr)
        return 1
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="paperdesk-salvage-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    report = run(args.papers, workdir)
    print(json.dumps(report, indent=1) if args.json else markdown(report))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
