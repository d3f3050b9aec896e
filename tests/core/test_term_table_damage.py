"""Damage in ``terms/`` (issue 23 item 5): random bytes over a data file gave related-paper
scores of 5.6e28 and another list, and ``check`` said ok. Each file of the term table has
its size, time and CRC-32 recorded when written; the load compares them (a ``stat``, and
a read when the size or time changed), ``paperdesk check`` reads every file whole, a score
outside 0..1 is damage, never an answer; damage found drops the table for a rebuild with
one line saying so. A ``.npy`` replaced by an object-array pickle is refused unread."""

from __future__ import annotations

import json
import os
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from paperdesk.cli import main
from paperdesk.core.discover import table_files
from paperdesk.core.discover.models import TermsNotReady
from paperdesk.core.discover.term_table import TERMS_DIR, TermTable, TermTableError
from paperdesk.core.library import Library

DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular depth estimation"


def _built(lib: Library) -> tuple[Path, int, list]:
    """Build the table of the open sample library, close it; ``(library folder, the
    depth paper's id, its related papers)``."""
    lib.discover.ensure()
    depth = next(pid for pid, title in lib.db.execute("SELECT id, title FROM papers")
                 if title.startswith(DEPTH_TITLE))
    related = lib.discover.related(depth)
    path = lib.path
    lib.close()
    return path, depth, related


def _scribble(path: Path, keep_time: bool) -> None:
    """Random bytes over the middle of a file, its size kept (and its time, if asked:
    damage the disk made, or a copy that kept the times of another file)."""
    st = path.stat()
    data = bytearray(path.read_bytes())
    rng = random.Random(7)
    start = len(data) // 3
    data[start:start + 4096] = bytes(rng.randrange(256) for _ in range(4096))
    path.write_bytes(bytes(data))
    if keep_time:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _related_cli(path: Path, depth: int, capsys) -> tuple[list, list[str]]:
    assert main(["--library", str(path), "related", str(depth), "--json"]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return json.loads(captured.out), captured.err.splitlines()


def _same(answer: list, before: list) -> None:
    assert [(r["id"], r["score"], tuple(r["shared"])) for r in answer] == \
        [(r.id, r.score, r.shared) for r in before]
    assert all(0 < r["score"] <= 1 for r in answer)


def test_random_bytes_over_a_data_file_are_found_at_load_and_rebuilt(seeded_library,
                                                                      capsys):
    path, depth, before = _built(seeded_library)
    data = next((path / TERMS_DIR).glob("g*-p0-cdata.npy"))
    _scribble(data, keep_time=False)
    capsys.readouterr()
    answer, err = _related_cli(path, depth, capsys)
    _same(answer, before)
    damaged = [line for line in err if "damaged" in line]
    assert len(damaged) == 1 and f"{data}: changed since it was written (its checksum " \
        "differs)" in damaged[0] and "built again" in damaged[0]
    TermTable.load(path / TERMS_DIR)         # a new generation, whole
    assert not data.exists()


def test_bytes_changed_with_the_time_kept_are_found_by_their_scores(seeded_library,
                                                                     capsys):
    path, depth, before = _built(seeded_library)
    data = next((path / TERMS_DIR).glob("g*-p0-cdata.npy"))
    _scribble(data, keep_time=True)
    TermTable.load(path / TERMS_DIR)         # passes the cheap check at load
    capsys.readouterr()
    answer, err = _related_cli(path, depth, capsys)
    _same(answer, before)                    # never a score of 5.6e28
    damaged = [line for line in err if "damaged" in line]
    assert len(damaged) == 1 and "outside 0..1" in damaged[0], err


def test_check_reads_the_table_whole_and_drops_a_damaged_one(seeded_library, capsys):
    path, depth, before = _built(seeded_library)
    folder = path / TERMS_DIR
    data = next(folder.glob("g*-p0-crows.npy"))
    _scribble(data, keep_time=True)
    capsys.readouterr()
    assert main(["--library", str(path), "check"]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip().startswith("terms:")]
    assert lines == [f"  terms: {data}: changed since it was written (its checksum differs)"
                     " — dropped; built again from SQLite at the next use"], out
    assert not (folder / "meta.json").exists()
    answer, err = _related_cli(path, depth, capsys)
    _same(answer, before)
    assert any("term table must be built" in line for line in err)
    assert main(["--library", str(path), "check"]) == 0


def test_a_whole_table_checks_ok_and_a_copy_with_new_times_is_read_once(seeded_library,
                                                                        capsys):
    path, depth, before = _built(seeded_library)
    folder = path / TERMS_DIR
    assert TermTable.full_problems(folder) == []
    later = 1_000_000_000 * 2_000_000_000      # a copy that did not keep the times
    for f in folder.glob("g*"):
        os.utime(f, ns=(later, later))
    with Library.open(path) as lib:
        assert lib.discover.related(depth) == before
    files = json.loads((folder / "meta.json").read_text("utf-8"))["files"]
    assert files and all(record[1] == later for record in files.values())


class _Marker:
    """Unpickling it writes a file: what a planted pickle in a library could do."""

    def __init__(self, target: str):
        self.target = target

    def __reduce__(self):
        return (Path.write_text, (Path(self.target), "pickle ran"))


@pytest.mark.parametrize("name, forged", [("idf", False), ("idf", True),
                                          ("p0-ids", False), ("p0-ids", True)])
def test_a_planted_object_array_pickle_is_never_run(seeded_library, tmp_path, capsys,
                                                    name, forged):
    path, depth, before = _built(seeded_library)
    folder = path / TERMS_DIR
    marker = tmp_path / "marker"
    target = next(folder.glob(f"g*-{name}.npy"))
    payload = np.empty(1, dtype=object)
    payload[0] = _Marker(str(marker))
    np.save(target, payload, allow_pickle=True)
    pickle.loads(pickle.dumps(_Marker(str(tmp_path / "works"))))   # the payload is live
    assert (tmp_path / "works").exists()
    if forged:          # its checksum recorded too: the load's reader must refuse it
        meta = json.loads((folder / "meta.json").read_text("utf-8"))
        meta["files"][target.name] = [target.stat().st_size, target.stat().st_mtime_ns,
                                      table_files.file_crc(target)]
        (folder / "meta.json").write_text(json.dumps(meta), "utf-8")
    with pytest.raises(TermTableError):
        TermTable.load(folder)
    with Library.open(path) as lib:
        with pytest.raises(TermsNotReady, match=r"^the term table is damaged \(.*\); it "
                           r"is built again$") as caught:
            lib.discover.related(depth)
        assert "\n" not in str(caught.value)
        lib.discover.ensure()
        assert lib.discover.related(depth) == before
    assert not marker.exists()
    TermTable.load(folder)
