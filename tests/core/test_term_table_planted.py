"""A library folder from anyone (issue 23, tester's follow-up): a ``terms`` symlink to a
folder of the user's made ``related`` delete every ``g*.npy`` / ``g*.bin`` there and
overwrite its ``meta.json``. The term table only reads and writes a real ``terms/``
folder inside the library; a symlink is damage (the link removed, never its target)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from paperdesk.cli import main
from paperdesk.core.discover.term_table import TERMS_DIR, TermTable

DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular depth estimation"


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "gradients.npy").write_text("d\n")
    (victim / "genome.bin").write_text("d\n")
    (victim / "meta.json").write_text('{"mine":1}\n')
    return victim


def _untouched(victim: Path) -> None:
    assert sorted(p.name for p in victim.iterdir()) == ["genome.bin", "gradients.npy",
                                                       "meta.json"]
    assert (victim / "gradients.npy").read_text() == "d\n"
    assert (victim / "genome.bin").read_text() == "d\n"
    assert (victim / "meta.json").read_text() == '{"mine":1}\n'


def _depth(lib) -> int:
    return next(pid for pid, title in lib.db.execute("SELECT id, title FROM papers")
                if title.startswith(DEPTH_TITLE))


def test_a_terms_symlink_never_touches_its_target(seeded_library, tmp_path, capsys):
    lib = seeded_library
    lib.discover.ensure()
    depth, path = _depth(lib), lib.path
    lib.close()
    victim = _victim(tmp_path)
    shutil.rmtree(path / TERMS_DIR)
    os.symlink(victim, path / TERMS_DIR)
    capsys.readouterr()
    assert main(["--library", str(path), "related", str(depth), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)
    assert "Traceback" not in captured.err
    _untouched(victim)
    terms = path / TERMS_DIR
    assert terms.is_dir() and not terms.is_symlink()
    TermTable.load(terms)                       # a real folder, a whole table
    # check reads through no symlink either, and drops nothing of the user's
    shutil.rmtree(terms)
    os.symlink(victim, terms)
    main(["--library", str(path), "check"])
    capsys.readouterr()
    _untouched(victim)


def test_symlinks_inside_terms_are_damage_and_their_targets_are_kept(seeded_library,
                                                                     tmp_path, capsys):
    lib = seeded_library
    lib.discover.ensure()
    depth, path = _depth(lib), lib.path
    lib.close()
    victim = _victim(tmp_path)
    terms = path / TERMS_DIR
    data = next(terms.glob("g*-p0-cdata.npy"))
    data.unlink()
    os.symlink(victim / "gradients.npy", data)
    # the temporary file meta.json is written through (this process runs the command)
    os.symlink(victim / "meta.json", terms / f"meta.json.{os.getpid()}.tmp")
    capsys.readouterr()
    assert main(["--library", str(path), "related", str(depth), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)
    assert "Traceback" not in captured.err
    assert any(str(data) in line and "damaged" in line
               for line in captured.err.splitlines())
    _untouched(victim)
    TermTable.load(terms)
    assert not any(p.is_symlink() for p in terms.iterdir())
    assert json.loads((terms / "meta.json").read_text())["format"]
