"""Terminal control sequences in library text never act on the user's terminal
(issue 14, item 13): ``show``, ``search`` and ``tags`` run on a real pseudo-terminal show
them as text (``^[``), pipes keep the exact text, and new tag and saved-search names
cannot hold control characters at all."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys

import pytest

from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError
from paperdesk.core.terminal_text import (TerminalSafeStream, first_control, terminal_safe,
                                          wrap_if_terminal)

#: Sets the window title, rings the bell, clears the screen; then a one-character CSI.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m"


def test_terminal_safe_shows_controls_as_text():
    assert terminal_safe(HOSTILE) == "^[]0;pwned^G^[[2J<U+009B>31m"
    assert terminal_safe("tab\tline\nreturn\r") == "tab\tline\nreturn\r"
    assert terminal_safe("\x00\x7f") == "^@^?"
    assert terminal_safe("Ünïcødé 𝒪(n) 深層 – “quotes”") == "Ünïcødé 𝒪(n) 深層 – “quotes”"
    assert first_control("plain name") is None
    assert first_control("a\x1bb") == "U+001B" and first_control("x\x85") == "U+0085"


def test_stream_wraps_only_terminals():
    pipe = io.StringIO()
    assert wrap_if_terminal(pipe) is pipe
    safe = TerminalSafeStream(pipe)
    assert safe.write(HOSTILE) == len(HOSTILE)
    assert pipe.getvalue() == terminal_safe(HOSTILE)
    assert wrap_if_terminal(safe) is safe


def test_tag_and_saved_search_names_refuse_control_characters(seeded_library):
    lib = seeded_library
    with pytest.raises(LibraryError, match="control characters"):
        lib.tags.add([1], "evil" + HOSTILE)
    with pytest.raises(LibraryError, match="control characters"):
        lib.saved_searches.save("evil\x1b[2J", "model")
    assert lib.tags.all() == [] and lib.saved_searches.all() == []


def _on_terminal(*args: str) -> bytes:
    """Run ``paperdesk ARGS`` with stdout and stderr on a new pseudo-terminal; return
    everything it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "paperdesk", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:      # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        proc.wait(timeout=60)
    assert proc.returncode == 0, out
    return out


def test_show_search_tags_on_a_terminal_print_controls_as_text(_seeded_template, tmp_path):
    import shutil

    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    with Library.open(path) as lib:
        pid = lib.search.hits("hyperparameter")[0].id
        lib.papers.set_title(pid, "Hyperparameter title " + HOSTILE)
        lib.notes.set(pid, "note " + HOSTILE)
        # A tag stored by an older version, before names were checked.
        lib.tags.add([pid], "legacy")
        lib.db.execute("UPDATE tags SET name = ? WHERE name = 'legacy'",
                       ["legacy" + HOSTILE])
        lib.db.commit()
    for args in (["show", str(pid)], ["search", "hyperparameter"], ["tags"]):
        out = _on_terminal("--library", str(path), *args)
        assert b"\x1b" not in out and b"\x07" not in out and "\x9b".encode() not in out, args
        assert b"^[]0;pwned^G^[[2J<U+009B>31m" in out, (args, out[:300])
    # A pipe gets the exact text (scripts and --json read what is stored).
    piped = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(path),
                            "show", str(pid)], capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and HOSTILE in piped.stdout


def test_bidi_controls_are_visible_on_a_terminal_and_refused_in_names(seeded_library):
    """Found by a tester: U+202E in a tag name reversed it in the window and on the
    terminal."""
    assert terminal_safe("ab\u202ecd\u2066") == "ab<U+202E>cd<U+2066>"
    assert first_control("name\u202e") == "U+202E"
    with pytest.raises(LibraryError, match="control characters"):
        seeded_library.tags.add([1], "tag\u202eab")
    with pytest.raises(LibraryError, match="control characters"):
        seeded_library.saved_searches.save("s\u2067", "model")
