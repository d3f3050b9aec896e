"""Related papers, key terms, tag suggestions and the interest order on a library that
cannot be written (issue 23 item 3), in the three set-ups a tester used, each with
``related``, ``terms``, ``suggest-tags`` and ``search --sort interest``:

* the library folder is read-only (``chmod -R a-w``; the commands run as an
  unprivileged user when the tests run as root, as in :mod:`test_full_disk_read_only`);
* only ``library.db`` is read-only (the folder can be written);
* another process holds ``library.lock`` (the window), so the command opens the
  library read-only.

Each answers from a term table built in memory, says so in one line, and leaves no
``terms/`` folder behind."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import subprocess
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core.discover.term_table import TERMS_DIR
from paperdesk.core.store.lock import LibraryLock
from test_full_disk_read_only import _reader, shared_tmp  # noqa: F401 (a fixture)

DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular depth estimation"
NOT_KEPT = "paperdesk: key terms found for 225 papers, in memory only: {why}, so the term " \
    "table is not kept"


@pytest.fixture(scope="module")
def template(tmp_path_factory, seed_files) -> tuple[Path, int]:
    """A library of the sample papers with two tagged papers (no term table); the depth
    paper's id."""
    lib = tmp_path_factory.mktemp("dro") / "lib"
    assert main(["--library", str(lib), "import", *map(str, seed_files)]) == 0
    assert main(["--library", str(lib), "tag", "add", "depth", "1", "2"]) == 0
    conn = sqlite3.connect(lib / "library.db")
    depth = conn.execute("SELECT id FROM papers WHERE title LIKE ?",
                         [DEPTH_TITLE + "%"]).fetchone()[0]
    conn.close()
    return lib, depth


def _commands(lib: Path, depth: int) -> list[list[str]]:
    return [["--library", str(lib), *map(str, args)] for args in (
        ("related", depth, "--json"), ("terms", depth, "--json"),
        ("suggest-tags", depth, "--json"),
        ("search", "depth", "--sort", "interest", "--limit", 3, "--json"))]


def _run_each(commands: list[list[str]]) -> list[dict]:
    """Each command through ``paperdesk.cli.main``: ``[{code, out, err}, ...]``."""
    results = []
    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(argv)
            except BaseException:    # noqa: BLE001 - reported as the test's failure
                traceback.print_exc(file=err)
                code = 99
        results.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
    return results


def _run_each_as(user: str | None, commands: list[list[str]]) -> list[dict]:
    """:func:`_run_each` in a Python process of ``user`` (one process: a command line of
    its own per command costs seconds of start-up each)."""
    code = ("import json, sys\nsys.path[:0] = " + json.dumps(sys.path) + "\n"
            "from test_discover_read_only import _run_each\n"
            f"print(json.dumps(_run_each({json.dumps(commands)})))\n")
    cmd = [sys.executable, "-c", code]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", "--regid=nogroup", "--clear-groups", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def _answered(results: list[dict], why: str) -> None:
    """Every command answered (exit 0, no traceback) and said once why the table is
    not kept."""
    line = NOT_KEPT.format(why=why)
    for r in results:
        assert r["code"] == 0, r["err"]
        assert "Traceback" not in r["err"] and "not saved" not in r["err"]
        assert r["err"].splitlines().count(line) == 1, r["err"]
    related, terms, suggestions, search = (json.loads(r["out"]) for r in results)
    assert len(related) == 10 and all(0 < r["score"] <= 1 for r in related)
    assert len(terms) == 8
    assert isinstance(suggestions, list)
    assert search["order"]["ranked"] is False and len(search["hits"]) == 3


def test_a_read_only_library_folder_answers_from_memory(template, shared_tmp):
    user = _reader()
    lib = shared_tmp / "lib"
    shutil.copytree(template[0], lib)
    subprocess.run(["chmod", "-R", "a-w", str(lib)], check=True)
    _answered(_run_each_as(user, _commands(lib, template[1])),
              why="the library's folder cannot be written")
    assert not (lib / TERMS_DIR).exists()


def test_a_read_only_database_file_answers_from_memory(template, shared_tmp):
    user = _reader()
    lib = shared_tmp / "lib"
    shutil.copytree(template[0], lib)
    (lib / "library.db").chmod(0o444)
    lib.chmod(0o777)                       # the folder can be written, by anyone
    _answered(_run_each_as(user, _commands(lib, template[1])),
              why="the library's database cannot be written")
    assert not (lib / TERMS_DIR).exists()


def test_a_library_held_by_another_process_answers_from_memory(template, tmp_path):
    lib = tmp_path / "lib"
    shutil.copytree(template[0], lib)
    with LibraryLock(lib, app="gui"):      # the window
        _answered(_run_each(_commands(lib, template[1])),
                  why="the library is open read-only (another process holds it)")
    assert not (lib / TERMS_DIR).exists()
