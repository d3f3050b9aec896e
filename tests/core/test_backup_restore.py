"""``paperdesk backup`` and ``paperdesk restore`` (issue 14, deliver 3), run as a user runs
them (subprocesses), on the seed library: a consistent copy while another process holds
the library and writes it, the daily automatic backups, a restore that refuses a smaller
backup without --force, keeps what it replaces and rebuilds the index, and one that needs
no --force when the database is missing, empty or damaged."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.core.library import Library
from paperdesk.core.store.backup import (KEEP_DAILY, auto_backup, daily_backups,
                                         latest_backup)
from paperdesk.core.store.lock import LOCK_NAME, LibraryLock


def run(library: Path, *args, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(library),
                           *map(str, args)], capture_output=True, text=True, input=stdin,
                          timeout=180)


def one_line(r: subprocess.CompletedProcess) -> str:
    """The single stderr line of a refused command (no traceback)."""
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("papers", "tags", "notes", "highlights", "saved_searches")}
    finally:
        conn.close()


@pytest.fixture
def library(_seeded_template, tmp_path) -> Path:
    """A closed copy of the 225-paper seed library, with a tag, a note, a highlight and
    a saved search."""
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        ids = lib.papers.ids()
        lib.tags.add(ids[:3], "to read")
        lib.notes.set(ids[0], "check the ablation")
        lib.notes.add_highlight(ids[1], 0, 10, "#ffeb3b")
        lib.saved_searches.save("scaling", "scaling law")
    shutil.rmtree(path / "backups", ignore_errors=True)
    return path


def test_backup_while_another_process_writes_is_a_consistent_copy(library, tmp_path):
    # A stand-in for the window: holds the library's lock and keeps committing notes.
    code = (
        "import sys, itertools\n"
        "from paperdesk.core.store.lock import LibraryLock\n"
        "from paperdesk.core.library import Library\n"
        f"lock = LibraryLock({str(library)!r}, app='gui').acquire()\n"
        f"lib = Library.open({str(library)!r})\n"
        "ids = lib.papers.ids()\n"
        "print('open', flush=True)\n"
        "for n in itertools.count():\n"
        "    lib.notes.set(ids[n % len(ids)], f'note {n}')\n")
    writer = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "open"
        target = tmp_path / "copy.db"
        r = run(library, "backup", target)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith(f"backed up to {target}: 225 papers, 1 tag, ")
        conn = sqlite3.connect(target)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 225
        conn.close()
        # Without FILE: a new file in the library's backups/ folder, named by UTC time.
        r = run(library, "backup", "--json")
        assert r.returncode == 0, r.stderr
        made = Path(json.loads(r.stdout)["path"])
        assert made.parent == library / "backups"
        assert made.name.startswith("library-backup-") and made.name.endswith("Z.db")
        assert json.loads(r.stdout)["counts"]["papers"] == 225
        # A restore is refused while the window has the library open.
        r = run(library, "restore", made)
        assert r.returncode == 1
        assert "is open in the paperdesk window" in one_line(r)
        assert "close it before restoring" in one_line(r)
    finally:
        writer.kill()
        writer.wait()


def test_backup_onto_the_library_s_own_files_is_refused(library):
    before = (library / "library.db").read_bytes()
    for name in ("library.db", "library.db-wal"):
        r = run(library, "backup", library / name)
        assert r.returncode == 1
        assert "is one of the library's own files" in one_line(r)
    assert (library / "library.db").read_bytes() == before


def test_backup_of_a_folder_without_a_library_is_refused(tmp_path):
    r = run(tmp_path / "nothing", "backup")
    assert r.returncode == 1
    assert "no library database to back up" in one_line(r)
    assert not (tmp_path / "nothing").exists()


def test_restore_refuses_a_smaller_backup_then_force_keeps_a_copy(library, tmp_path):
    old = tmp_path / "old.db"
    assert run(library, "backup", old).returncode == 0
    with Library.open(library) as lib:
        lib.notes.set(lib.papers.ids()[5], "written after the backup")
        lib.removal.delete_papers(lib.papers.ids()[200:])           # 25 fewer papers
        lib.saved_searches.save("agents", "agent*")
    before = counts(library / "library.db")
    assert (before["papers"], before["notes"], before["saved_searches"]) == (200, 2, 2)

    r = run(library, "restore", old)
    assert r.returncode == 1
    line = one_line(r)
    assert "the backup has 1 note, the library 2; 1 saved search, the library 2" in line
    assert "--force" in line
    assert counts(library / "library.db") == before            # nothing replaced

    r = run(library, "restore", old, "--force")
    assert r.returncode == 0, r.stderr
    assert counts(library / "library.db")["papers"] == 225
    kept = [p for p in (library / "backups").iterdir() if p.name.startswith("pre-restore-")]
    assert len(kept) == 1 and counts(kept[0]) == before       # what it replaced
    assert "the library it replaced is kept in" in r.stdout
    assert "indexed: 225 of 225 papers searchable" in r.stdout
    # The index was rebuilt from the restored database.
    r = run(library, "search", "written after the backup", "--json")
    assert json.loads(r.stdout)["total"] == 0
    r = run(library, "stats", "--json")
    stats = json.loads(r.stdout)
    assert (stats["papers"], stats["indexed"], stats["pending_index"]) == (225, 225, 0)
    # Back again: restoring the pre-restore copy (more notes, fewer papers) also asks.
    r = run(library, "restore", kept[0])
    assert r.returncode == 1 and "the backup has 200 papers, the library 225" in one_line(r)


@pytest.mark.parametrize("damage", ["missing", "empty", "damaged"])
def test_restoring_the_latest_backup_of_a_broken_library_needs_no_force(library, damage):
    r = run(library, "backup")
    assert r.returncode == 0, r.stderr
    db = library / "library.db"
    if damage == "missing":
        db.unlink()
    elif damage == "empty":
        db.write_bytes(b"")
    else:
        data = bytearray(db.read_bytes())
        data[4096 * 2:4096 * 40] = b"\xa5" * (4096 * 38)     # pages of the papers table
        db.write_bytes(bytes(data))
    r = run(library, "restore")                               # FILE: the latest backup
    assert r.returncode == 0, r.stderr
    assert counts(db)["papers"] == 225
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    kept = [p for p in (library / "backups").iterdir() if p.name.startswith("pre-restore-")]
    if damage == "damaged":
        assert "the damaged database is kept in" in r.stdout and len(kept) == 1
    else:
        assert kept == []
    r = run(library, "search", "transformer", "--json")
    assert json.loads(r.stdout)["total"] > 0
    assert not (library / LOCK_NAME).exists()


def test_restore_refuses_files_that_are_not_paperdesk_libraries(library, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE t (a)").connection.commit()
    truncated = tmp_path / "cut.db"
    truncated.write_bytes((library / "library.db").read_bytes()[:8192])
    newer = tmp_path / "newer.db"
    shutil.copyfile(library / "library.db", newer)
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    cases = [(tmp_path / "absent.db", "no such backup file"),
             (text, "not a paperdesk library database"),
             (plain, "not a paperdesk library database"),
             (truncated, "not a paperdesk library database"),
             (newer, "written by a newer paperdesk")]
    before = counts(library / "library.db")
    for path, reason in cases:
        r = run(library, "restore", path, "--force")
        assert r.returncode == 1
        line = one_line(r)
        assert str(path) in line and reason in line, line
    assert counts(library / "library.db") == before
    assert not (library / "backups").exists() or not any(
        p.name.startswith("pre-restore-") for p in (library / "backups").iterdir())


def test_restore_without_any_backup_says_so(library):
    r = run(library, "restore")
    assert r.returncode == 1
    assert "no backup to restore in" in one_line(r)


def test_a_command_that_writes_takes_the_day_s_backup_once(library):
    assert run(library, "stats").returncode == 0
    assert daily_backups(library / "backups") == []            # reading takes none
    assert run(library, "tag", "add", "later", "1").returncode == 0
    first = daily_backups(library / "backups")
    assert len(first) == 1 and counts(first[0])["tags"] == 1   # before the change
    assert run(library, "tag", "add", "again", "1").returncode == 0
    assert daily_backups(library / "backups") == first          # one a day
    assert latest_backup(library / "backups") == first[0]


def test_daily_backups_keep_the_seven_newest_and_leave_others_alone(library):
    folder = library / "backups"
    folder.mkdir()
    manual = folder / "library-backup-20200101T000000Z.db"
    manual.write_bytes(b"x")
    migration = folder / "library-v7-20200101T000000Z.db"
    migration.write_bytes(b"x")
    conn = sqlite3.connect(library / "library.db")
    start = dt.datetime(2026, 11, 1, 9, 30, tzinfo=dt.timezone.utc)
    made = []
    for day in range(10):
        now = start + dt.timedelta(days=day)
        made.append(auto_backup(conn, folder, now=now))
        assert auto_backup(conn, folder, now=now + dt.timedelta(hours=5)) is None
    assert all(made)
    assert daily_backups(folder) == made[::-1][:KEEP_DAILY]
    # A copy whose writer was killed is swept by the next one.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    partial = folder / f".library-daily-20261201T000000Z.db.partial-{dead.pid}"
    partial.write_bytes(b"half")
    assert auto_backup(conn, folder, now=start + dt.timedelta(days=30))
    assert not partial.exists()
    conn.close()
    assert manual.exists() and migration.exists()
    assert counts(made[-1])["papers"] == 225


def test_no_daily_backup_is_written_on_a_full_or_read_only_folder(library, monkeypatch):
    folder = library / "backups"
    conn = sqlite3.connect(library / "library.db")
    real = sqlite3.Connection.execute
    assert auto_backup(conn, folder, now=dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc))

    class Full(sqlite3.Connection):
        def execute(self, sql, *args):
            if sql.startswith("VACUUM INTO"):
                raise sqlite3.OperationalError("database or disk is full")
            return real(self, sql, *args)

    full = sqlite3.connect(library / "library.db", factory=Full)
    for day in range(2, 12):
        assert auto_backup(full, folder, now=dt.datetime(2026, 11, day,
                                                         tzinfo=dt.timezone.utc)) is None
    assert len(daily_backups(folder)) == 1                     # the older one stays
    assert [p.name for p in folder.iterdir() if "partial" in p.name] == []
    full.close()
    conn.close()


def test_restore_takes_the_lock_so_the_window_cannot_open_meanwhile(library, tmp_path):
    copy = tmp_path / "copy.db"
    assert run(library, "backup", copy).returncode == 0
    with LibraryLock(library, app="cli"):
        r = run(library, "restore", copy)
    assert r.returncode == 1
    assert "in use by a paperdesk command" in one_line(r)


def test_json_export_carries_saved_searches_and_import_merges_them_by_name(library,
                                                                          tmp_path):
    out = tmp_path / "all.json"
    assert run(library, "saved-search", "add", "Agents", "agent*").returncode == 0
    r = run(library, "export", "--all", "--format", "json", "-o", out)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["version"] == 3
    assert [(s["name"], s["query"]) for s in doc["saved_searches"]] == [
        ("Agents", "agent*"), ("scaling", "scaling law")]
    other = tmp_path / "other"
    assert run(other, "saved-search", "add", "SCALING", "mine").returncode == 0
    r = run(other, "import", out)
    assert r.returncode == 0, r.stderr
    assert "225 added, 0 enriched, 0 duplicates, 1 saved search added" in r.stdout
    r = run(other, "saved-search", "list", "--json")
    listed = {s["name"]: s["query"] for s in json.loads(r.stdout)}
    assert listed == {"Agents": "agent*", "SCALING": "mine"}   # the library's kept
    # A version 2 file (no saved searches) still imports.
    doc2 = {k: v for k, v in doc.items() if k != "saved_searches"} | {"version": 2}
    old = tmp_path / "v2.json"
    old.write_text(json.dumps(doc2), encoding="utf-8")
    r = run(tmp_path / "third", "import", old)
    assert r.returncode == 0, r.stderr and "225 added" in r.stdout
    # Malformed saved searches are refused with a reason naming the entry.
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc | {"saved_searches": [{"name": "x\x1b]0;", "query": "q"}]}),
                   encoding="utf-8")
    r = run(tmp_path / "fourth", "import", bad)
    assert r.returncode == 1 and "saved search 1" in r.stderr and "Traceback" not in r.stderr


def test_backup_onto_a_file_that_is_not_a_backup_is_refused(tmp_path, seed_files):
    """Found by a tester: ``backup FILE`` replaced any file (a text file of notes)."""
    import subprocess
    import sys

    lib = tmp_path / "lib"

    def run(*args):
        return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), *args],
                              capture_output=True, text=True, timeout=120)

    assert run("import", str(seed_files[0])).returncode == 0
    notes = tmp_path / "notes.txt"
    notes.write_text("important\n")
    out = run("backup", str(notes))
    assert out.returncode == 1 and notes.read_text() == "important\n"
    assert out.stderr.strip() == (f"paperdesk: {notes} exists and is not a database "
                                  "backup: not replaced; give a new file name")
    copy = tmp_path / "copy.db"
    assert run("backup", str(copy)).returncode == 0
    assert run("backup", str(copy)).returncode == 0           # an earlier backup: replaced


def test_backup_never_replaces_another_database_or_a_live_library(tmp_path, seed_files):
    """Found by a second tester: any SQLite file counted as an earlier backup (another
    program's database, another library's live library.db)."""
    import sqlite3
    import subprocess
    import sys

    def run(lib, *args):
        return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), *args],
                              capture_output=True, text=True, timeout=120)

    lib, other_lib = tmp_path / "lib", tmp_path / "other"
    assert run(lib, "import", str(seed_files[0])).returncode == 0
    assert run(other_lib, "import", str(seed_files[1])).returncode == 0
    foreign = tmp_path / "contacts.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE contacts (name)")
    conn.commit()
    conn.close()
    for target in (foreign, other_lib / "library.db"):
        before = target.read_bytes()
        out = run(lib, "backup", str(target))
        assert out.returncode == 1 and "is not a database backup: not replaced" in out.stderr
        assert target.read_bytes() == before
    assert "papers: 120" in run(other_lib, "stats").stdout


# A backup killed half-way (issue 23 item 8): the child runs ``paperdesk backup`` with a
# SQLite progress handler that SIGKILLs it after ``sys.argv[1]`` steps of VACUUM INTO
# (its own handler: the command's progress and cancel are left out).
_KILLED_BACKUP = """
import os, signal, sys
import paperdesk.cli as cli
real = cli.backup_to

def backup_killed_half_way(conn, target, check=True, **_progress_and_cancel):
    steps = [0]

    def step():
        steps[0] += 1
        if steps[0] == int(sys.argv[1]):
            os.kill(os.getpid(), signal.SIGKILL)
        return 0

    conn.set_progress_handler(step, 100)
    return real(conn, target, check)

cli.backup_to = backup_killed_half_way
sys.exit(cli.main(sys.argv[2:]))
"""


def _kill_a_backup(library: Path, tmp_path: Path, *target) -> None:
    script = tmp_path / "killed_backup.py"
    script.write_text(_KILLED_BACKUP, encoding="utf-8")
    r = subprocess.run([sys.executable, str(script), "40", "--library", str(library),
                        "backup", *map(str, target)], capture_output=True, text=True,
                       timeout=180)
    assert r.returncode == -9, r.stderr


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".partial-" in p.name)


@pytest.mark.parametrize("next_command", [("backup",), ("check",), ("tag", "add", "x", "1")])
def test_what_a_killed_backup_leaves_is_removed_by_the_next_command(library, tmp_path,
                                                                    next_command):
    good = library / "backups" / "library-backup-20261101T000000Z.db"
    assert run(library, "backup", good).returncode == 0
    _kill_a_backup(library, tmp_path)                      # into backups/
    backups = library / "backups"
    assert any(name.endswith("-journal") for name in _leftovers(backups))
    r = run(library, *next_command)
    assert r.returncode == 0, r.stderr
    assert _leftovers(backups) == []
    assert counts(good)["papers"] == counts(library / "library.db")["papers"] == 225


def test_a_killed_backup_elsewhere_is_swept_by_the_next_backup_there(library, tmp_path):
    folder = tmp_path / "elsewhere"
    good = folder / "good.db"
    assert run(library, "backup", good).returncode == 0
    _kill_a_backup(library, tmp_path, folder / "killed.db")
    assert any(name.endswith("-journal") for name in _leftovers(folder))
    assert run(library, "backup", folder / "again.db").returncode == 0
    assert _leftovers(folder) == []
    assert sorted(p.name for p in folder.iterdir()) == ["again.db", "good.db"]
    assert counts(good) == counts(library / "library.db")     # a good backup is kept


def test_what_a_killed_restore_leaves_is_removed_at_the_next_open(library):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])     # a restore killed
    dead.wait()
    left = [library / f".library.db.restoring-{dead.pid}",
            library / f".library.db.restoring-{dead.pid}-journal"]
    for path in left:
        path.write_bytes(b"SQLite format 3\x00")
    live = library / f".library.db.restoring-{os.getpid()}"     # a restore under way
    live.write_bytes(b"")
    assert run(library, "tag", "add", "x", "1").returncode == 0     # opens the library
    assert not any(p.exists() for p in left) and live.exists()
    assert counts(library / "library.db")["papers"] == 225
