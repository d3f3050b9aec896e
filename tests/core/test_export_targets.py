"""``export -o`` onto something that is not a regular file (issue 14, item 10): a named
pipe is written into and stays a pipe, a socket is refused with one line and left alone,
and an existing regular file is still replaced atomically."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading

import pytest


def _export(lib, *args):
    return subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib),
                           "export", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def library(_seeded_template, tmp_path):
    import shutil

    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    return path


def test_export_into_a_fifo_keeps_the_fifo(library, tmp_path):
    fifo = tmp_path / "papers.bib"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()),
                              daemon=True)   # blocks for good if nothing writes the pipe
    reader.start()
    r = _export(library, "--all", "--format", "bibtex", "-o", str(fifo))
    reader.join(timeout=60)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)          # not replaced by a regular file
    assert received, "nothing was written into the pipe"
    text = received[0].decode("utf-8")
    assert text.count("\n@") + text.startswith("@") == 225
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_export_onto_a_socket_is_refused_in_one_line(library, tmp_path):
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    try:
        r = _export(library, "--all", "--format", "ris", "-o", str(path))
        assert r.returncode == 1
        assert r.stderr.strip().splitlines() == [
            f"paperdesk: cannot write {path}: it is a socket; give a file name"]
        assert stat.S_ISSOCK(os.stat(path).st_mode)
    finally:
        server.close()


def test_export_replaces_a_regular_file(library, tmp_path):
    out = tmp_path / "old.ris"
    out.write_text("old contents\n")
    r = _export(library, "--all", "--format", "ris", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text().count("TY  - ") == 225 and "old contents" not in out.read_text()


@pytest.mark.parametrize("flag,told", [("--query", "give the words to search for"),
                                       ("--tag", "give a name"), ("--saved", "give a name")])
def test_an_empty_scope_option_is_named_as_empty_not_missing(library, tmp_path, flag, told):
    out = tmp_path / "out.bib"
    r = _export(library, flag, "  ", "--format", "bibtex", "-o", str(out))
    assert r.returncode == 2
    assert r.stderr == (f"paperdesk export: error: {flag} is empty: {told} (or --all for "
                        "every paper) (see paperdesk export --help)\n")
    assert not out.exists()


def test_list_styles_into_a_closed_pipe_ends_quietly(library):
    shown = subprocess.run(f"{sys.executable} -m paperdesk --library {library} export "
                           "--list-styles | head -1", shell=True, capture_output=True,
                           text=True, timeout=120)
    assert shown.stdout.count("\n") == 1 and "Traceback" not in shown.stderr, shown.stderr
