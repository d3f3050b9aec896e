"""Term-table damage is said once per command, as a ``paperdesk:`` line naming the
``terms/`` file (or folder) and the problem (issue 23, tester's follow-up: a raw
``term table damaged: ...`` line came 1-3 times on top of the note, and reasons such as
``index -1474131906 is out of bounds ...`` or ``'utf-8' codec can't decode ...`` named
no file)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core.discover.term_table import TERMS_DIR

DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular depth estimation"


def _built(lib) -> tuple[Path, int]:
    lib.discover.ensure()
    depth = next(pid for pid, title in lib.db.execute("SELECT id, title FROM papers")
                 if title.startswith(DEPTH_TITLE))
    path = lib.path
    lib.close()
    return path, depth


def _overwrite(path: Path, start: int, byte: int) -> None:
    """Bytes from ``start`` on set to ``byte``, size and time kept (found in use)."""
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[start:] = bytes([byte]) * (len(data) - start)
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _no_raw_line(caplog) -> None:
    """The CLI configures no logging: a warning record reaches standard error as a raw
    line (Python's last-resort handler), without ``paperdesk:``."""
    raw = [r.getMessage() for r in caplog.records
           if r.levelno >= logging.WARNING and r.name.startswith("paperdesk.core.discover")]
    assert not raw, raw


def _one_line(path: Path, args: list[str], capsys, caplog, where: Path) -> str:
    capsys.readouterr()
    assert main(["--library", str(path), *args]) == 0
    _no_raw_line(caplog)
    err = capsys.readouterr().err.splitlines()
    assert all(line.startswith("paperdesk:") for line in err), err
    damaged = [line for line in err if "damaged" in line]
    assert len(damaged) == 1, err
    assert f"({where}: " in damaged[0] and "built again" in damaged[0]
    return damaged[0]


@pytest.mark.parametrize("which, byte, names", [
    ("p0-indices.npy", 0x7f, "folder"),       # an index out of range: the folder
    ("vocab.bin", 0xf8, "file"),              # a term not UTF-8: the vocabulary
])
def test_damage_found_in_use_is_one_prefixed_line_naming_where(seeded_library, capsys,
                                                               caplog, which, byte, names):
    path, depth = _built(seeded_library)
    terms = path / TERMS_DIR
    target = next(terms.glob(f"g*-{which}"))
    _overwrite(target, 128 if which.endswith(".npy") else 0, byte)
    line = _one_line(path, ["related", str(depth), "--json"], capsys, caplog,
                     target if names == "file" else terms)
    assert "is out of bounds" in line if names == "folder" else "decode" in line


def test_check_says_a_damaged_table_once(seeded_library, capsys, caplog):
    path, _depth = _built(seeded_library)
    data = next((path / TERMS_DIR).glob("g*-p0-cdata.npy"))
    _overwrite(data, 128, 0x41)
    capsys.readouterr()
    main(["--library", str(path), "check"])
    _no_raw_line(caplog)
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    assert not any(line.startswith("term table damaged") for line in lines), lines
    assert sum(str(data) in line for line in lines) == 1, lines


@pytest.mark.parametrize("found", ["at load", "in use"])
def test_a_read_only_library_with_a_damaged_table_says_in_memory_only(seeded_library,
                                                                      capsys, found):
    """The library held by another process (the window): ``related`` builds the table
    in memory and says so, whether the damage is found at load (a checksum) or in use
    (an index out of range); ``check`` says the table is not dropped."""
    from paperdesk.core.store.lock import LibraryLock

    path, depth = _built(seeded_library)
    data = next((path / TERMS_DIR).glob("g*-p0-indices.npy"))
    _overwrite(data, 128, 0x7f)
    if found == "at load":
        os.utime(data)
    why = "the library is open read-only (another process holds it)"
    with LibraryLock(path, app="gui"):
        capsys.readouterr()
        assert main(["--library", str(path), "related", str(depth), "--json"]) == 0
        err = capsys.readouterr().err.splitlines()
        assert f"paperdesk: key terms found for 225 papers, in memory only: {why}, so the " \
            "term table is not kept" in err, err
        main(["--library", str(path), "check"])
        out = capsys.readouterr().out
        assert str(data) in out and "not dropped" in out and "dropped; built" not in out
        assert "built again in memory at the next use" in out
    assert data.exists() and (path / TERMS_DIR / "meta.json").exists()


def test_on_a_full_disk_the_table_in_memory_gives_the_real_cause(seeded_library, capsys,
                                                                  monkeypatch):
    """``library.lock`` cannot be written (a full disk): the command reads the library
    read-only, and the term table in memory says why, not "another process holds it"."""
    import errno
    import shutil

    from paperdesk.core.store import lock as lock_module
    from paperdesk.core.store.lock import LOCK_NAME

    path, depth = _built(seeded_library)
    shutil.rmtree(path / TERMS_DIR)

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lock_module.os, "write", full)
    capsys.readouterr()
    assert main(["--library", str(path), "related", str(depth), "--json"]) == 0
    err = capsys.readouterr().err
    assert "another process" not in err, err
    assert f"in memory only: the disk is full: {path / LOCK_NAME} could not be written, " \
        "so the term table is not kept" in err, err
