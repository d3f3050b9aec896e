"""The near-duplicate stage's bands outside SQLite (core/store/band_runs.py): the same
pairs flagged as with the bands in SQLite (the stage as it was, kept here as the
reference), a deleted or damaged band store rebuilt from SQLite, deleted papers not
answering, a library whose bands are in SQLite (made before) upgraded."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from helpers import write_daily
from paperdesk.core import duplicates as measure
from paperdesk.core.check import check_library
from paperdesk.core.edits import duplicates as stage
from paperdesk.core.imports.daily_papers import read_file
from paperdesk.core.library import Library
from paperdesk.core.store import band_runs
from paperdesk.core.store import duplicates as store


class SqlBands:
    """The bands in SQLite's ``duplicate_bands`` table, read and written with the
    statements of the stage before the band store (commit 5bd3202): the reference."""

    def __init__(self, library_folder, writable=True):
        self.db = None

    def load(self):
        return self

    def sync(self, db):
        self.db = db
        return 0

    def drop(self, pids):
        self.db.conn.executemany("DELETE FROM duplicate_bands WHERE paper_id = ?",
                                 [(int(p),) for p in pids])
        self.db.conn.commit()

    def bitmaps(self, pids, digests):
        """No shingle bitmaps (every candidate compared exactly, as that stage did)."""
        return np.zeros((len(pids), band_runs.BITMAP_BYTES), dtype=np.uint8)

    def add(self, pids, buckets, tokens, bitmaps=None, digests=()):
        self.db.conn.executemany(
            "INSERT OR IGNORE INTO duplicate_bands (bucket, paper_id) VALUES (?, ?)",
            sorted((int(b), int(p)) for p, bs in zip(pids, buckets) for b in bs))
        self.db.conn.commit()

    def members(self, buckets, per_bucket):
        distinct = sorted({int(b) for b in buckets})
        out = {}
        for k in range(0, len(distinct), 500):
            chunk = distinct[k:k + 500]
            marks = ",".join("?" * len(chunk))
            for bucket, pid in self.db.conn.execute(
                    f"SELECT bucket, paper_id FROM (SELECT bucket, paper_id, row_number() "
                    f"OVER (PARTITION BY bucket ORDER BY paper_id DESC) AS n FROM "
                    f"duplicate_bands WHERE bucket IN ({marks})) WHERE n <= ? "
                    f"ORDER BY bucket, paper_id DESC", [*chunk, int(per_bucket) + 1]):
                out.setdefault(bucket, []).append(pid)
        return out

    def save(self):
        pass


def use_sql(monkeypatch, sql: bool) -> None:
    """Make the stage keep its bands in SQLite (the reference) or in the band store."""
    monkeypatch.setattr(stage, "BandStore", SqlBands if sql else band_runs.BandStore)
    monkeypatch.setattr(store, "drop_old_bands", (lambda db: False) if sql
                        else DROP_OLD_BANDS)


DROP_OLD_BANDS = store.drop_old_bands


def _sentences(text):
    import re
    return re.split(r"(?<=[.!?]) (?=[A-Z])", text)


@pytest.fixture(scope="module")
def seed_abstracts(seed_files):
    out = []
    for f in seed_files:
        out += [a.abstract for a in read_file(f).abstracts]
    return list(dict.fromkeys(out))


def nasty(seed_abstracts) -> tuple[list[str], list[str]]:
    """Two imports: the seeds with short, empty-ish and template abstracts, then exact
    duplicates (differing only in case and punctuation), one-word edits, edited copies
    and more of the template crowd (over PER_BUCKET papers share its buckets)."""
    crowd = [f"We study depth estimation with stereo priors for problem number {i}. Our "
             f"method combines lidar features with a learned depth model and improves "
             f"accuracy on benchmark {i % 7} by a clear margin." for i in range(70)]
    first = list(seed_abstracts[:150]) + crowd[:40] + [
        "Transformers.", "See the paper.", "one two three four five six seven",
        "One two three four five six seven eight nine ten eleven.", "!!!", "x " * 30]
    second = []
    for i, text in enumerate(seed_abstracts[:150]):
        if i % 5 == 0:
            second.append(text.upper().replace(".", " .").replace(",", ";"))  # exact dup
        elif i % 5 == 1:
            w = text.split(" ")
            w[len(w) // 2] = "reworded"
            second.append(" ".join(w))                                     # one word
        elif i % 5 == 2:
            s = _sentences(text)
            s[len(s) // 2] = "We add a further ablation on three more benchmarks."
            second.append(" ".join(s))
    second += list(seed_abstracts[150:]) + crowd[40:] + [
        "transformers!", "see the paper", "One two three four five six seven eight nine "
        "ten eleven twelve.", "X " * 31]
    return first, second


def _run(tmp_path, name, imports, monkeypatch, bands_class=None, between=None):
    """Import each list of abstracts and run the stage after each; return the pairs."""
    use_sql(monkeypatch, bands_class is SqlBands)
    with Library.open(tmp_path / name) as lib:
        for k, texts in enumerate(imports):
            lib.imports.run([write_daily(tmp_path / f"{name}-{k}.txt", texts)])
            lib.duplicates.find()
            if between is not None and k < len(imports) - 1:
                between(lib)
        return sorted((p.paper_a, p.paper_b, round(p.similarity, 9), p.status)
                      for p in lib.duplicates.pairs())


@pytest.mark.parametrize("batch", [200, 7])
def test_the_same_pairs_as_with_the_bands_in_sqlite(tmp_path, seed_abstracts, monkeypatch,
                                                    batch):
    monkeypatch.setattr(stage, "DUPLICATE_BATCH", batch)
    first, second = nasty(seed_abstracts)
    want = _run(tmp_path, "sql", [first, second], monkeypatch, SqlBands)
    got = _run(tmp_path, "runs", [first, second], monkeypatch)
    assert len(want) >= 60
    assert got == want


def test_the_seeds_in_many_imports_flag_as_with_sqlite(tmp_path, seed_abstracts, seed_files,
                                                      monkeypatch):
    """Each import adds a run; after MAX_RUNS they are merged: still the same pairs."""
    first, second = nasty(seed_abstracts)
    parts = [first[k:k + 25] for k in range(0, len(first), 25)] + [second]
    want = _run(tmp_path, "sql", parts, monkeypatch, SqlBands)
    got = _run(tmp_path, "runs", parts, monkeypatch)
    assert got == want and len(got) >= 60
    meta = (tmp_path / "runs" / band_runs.FOLDER / "meta.json").read_text()
    assert len(json.loads(meta)["runs"]) <= band_runs.MAX_RUNS


def _garble(lib):
    folder = lib.path / band_runs.FOLDER
    run = sorted(folder.glob("keys-*.npy"))[0]
    st = run.stat()
    data = bytearray(run.read_bytes())
    data[-40:] = b"\x07" * 40                     # same size, same time: only the CRC
    run.write_bytes(bytes(data))
    os.utime(run, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("damage", ["deleted", "garbled", "meta garbled", "truncated"])
def test_a_deleted_or_damaged_band_store_is_rebuilt(tmp_path, seed_abstracts, monkeypatch,
                                                    damage):
    first, second = nasty(seed_abstracts)
    want = _run(tmp_path, "whole", [first, second], monkeypatch)
    checked = {}

    def harm(lib):
        folder = lib.path / band_runs.FOLDER
        assert sorted(folder.glob("keys-*.npy"))
        if damage == "deleted":
            shutil.rmtree(folder)
        elif damage == "garbled":
            _garble(lib)
            report = check_library(lib)
            checked["problems"] = [(p.part, p.remedy) for p in report.problems]
        elif damage == "meta garbled":
            (folder / "meta.json").write_bytes(b"\x00{garbage")
        else:
            run = sorted(folder.glob("keys-*.npy"))[0]
            run.write_bytes(run.read_bytes()[:100])

    got = _run(tmp_path, "harmed", [first, second], monkeypatch, between=harm)
    assert got == want
    if damage == "garbled":
        # reported as the band store's, with "rebuilt", nothing else called broken
        assert checked["problems"] == [("duplicates", band_runs.REBUILT)]


def test_the_stage_rebuilds_a_garbled_store_check_dropped(tmp_path, seed_abstracts,
                                                        monkeypatch):
    """A byte changed without its size or time changing is found by check (CRC-32),
    which drops the store; the next stage computes it again from SQLite."""
    first, _second = nasty(seed_abstracts)
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", first)])
        lib.duplicates.find()
        _garble(lib)
        assert band_runs.full_problems(lib.path)
        check_library(lib)
        assert not band_runs.full_problems(lib.path)
        bands = band_runs.BandStore(lib.path).load()
        assert bands.sync(lib.db) == len(lib.db.execute(
            "SELECT 1 FROM duplicate_checked WHERE signature IS NOT NULL").fetchall())


def test_deleted_and_merged_papers_do_not_answer(tmp_path, seed_abstracts, monkeypatch):
    first, second = nasty(seed_abstracts)
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", first)])
        lib.duplicates.find()
        lib.imports.run([write_daily(tmp_path / "b.txt", second)])
        lib.duplicates.find()
        pair = lib.duplicates.pairs()[0]
        lib.duplicates.merge(pair.paper_a, pair.paper_b)
        gone = pair.paper_b
        deleted = lib.db.execute("SELECT id FROM papers WHERE id NOT IN (?, ?) ORDER BY id "
                                 "LIMIT 1", [pair.paper_a, gone]).fetchone()[0]
        with lib.db.conn:
            lib.db.execute("DELETE FROM papers WHERE id = ?", [deleted])
        all_buckets = [b for (sig,) in lib.db.execute(
            "SELECT signature FROM duplicate_checked WHERE signature IS NOT NULL")
            for b in measure.band_hashes(np.frombuffer(sig, dtype="<u4"))]
        bands = band_runs.BandStore(lib.path).load()
        bands.sync(lib.db)
        answered = {p for ids in bands.members(all_buckets, 10_000).values() for p in ids}
        assert gone not in answered and deleted not in answered
        assert pair.paper_a in answered
        # and the stage after it leaves them out of the saved runs
        lib.imports.run([write_daily(tmp_path / "c.txt", ["A new abstract of its own "
                                                          "about graph colouring " * 3])])
        lib.duplicates.find()
        bands = band_runs.BandStore(lib.path).load()
        bands.sync(lib.db)
        assert gone not in bands.papers().tolist()
        assert deleted not in bands.papers().tolist()


def test_a_library_with_its_bands_in_sqlite_is_upgraded(tmp_path, seed_abstracts,
                                                        monkeypatch):
    """A library made by the stage that kept its bands in SQLite: the next stage
    computes the band store from the stored signatures, empties the old table, and
    flags what the old stage would have."""
    first, second = nasty(seed_abstracts)
    want = _run(tmp_path, "sql", [first, second], monkeypatch, SqlBands)
    use_sql(monkeypatch, True)
    with Library.open(tmp_path / "old") as lib:
        lib.imports.run([write_daily(tmp_path / "old-0.txt", first)])
        lib.duplicates.find()
        assert lib.db.execute("SELECT count(*) FROM duplicate_bands").fetchone()[0] > 1000
        assert not (lib.path / band_runs.FOLDER).exists()
    use_sql(monkeypatch, False)
    with Library.open(tmp_path / "old") as lib:
        lib.imports.run([write_daily(tmp_path / "old-1.txt", second)])
        lib.duplicates.find()
        assert lib.db.execute("SELECT count(*) FROM duplicate_bands").fetchone()[0] == 0
        assert (lib.path / band_runs.FOLDER / "meta.json").exists()
        got = sorted((p.paper_a, p.paper_b, round(p.similarity, 9), p.status)
                     for p in lib.duplicates.pairs())
    assert got == want


def test_a_cancelled_stage_keeps_its_bands_and_resumes(tmp_path, seed_abstracts,
                                                        monkeypatch):
    monkeypatch.setattr(stage, "DUPLICATE_BATCH", 20)
    first, second = nasty(seed_abstracts)
    want = _run(tmp_path, "whole", [first + second], monkeypatch)
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([write_daily(tmp_path / "x.txt", first + second)])
        polls = iter(range(100))
        lib.duplicates.find(cancel=lambda: next(polls) >= 4)
        assert 0 < lib.duplicates.pending() < len(first + second)
        saved = band_runs.BandStore(lib.path).load()
        assert saved.sync(lib.db) == 0           # what it looked at is saved
        # interrupted inside a batch (Ctrl+C): that batch is rolled back, nothing kept
        calls = iter(range(1000))

        def interrupt():
            if next(calls) == 5:
                raise KeyboardInterrupt
            return False

        with pytest.raises(KeyboardInterrupt):
            lib.duplicates.find(hurry=interrupt)
        assert band_runs.BandStore(lib.path).load().sync(lib.db) == 0
        lib.duplicates.find()
        got = sorted((p.paper_a, p.paper_b, round(p.similarity, 9), p.status)
                     for p in lib.duplicates.pairs())
    assert got == want


def test_a_read_only_library_writes_no_band_store(tmp_path, seed_abstracts, monkeypatch):
    first, _second = nasty(seed_abstracts)
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", first)])
        lib.duplicates.find()
    shutil.rmtree(tmp_path / "lib" / band_runs.FOLDER)
    with Library.open(tmp_path / "lib", read_only=True) as lib:
        store = band_runs.store_for(lib.db)
        assert store.sync(lib.db) > 0
        pid, sig = lib.db.execute("SELECT paper_id, signature FROM duplicate_checked "
                                  "WHERE signature IS NOT NULL LIMIT 1").fetchone()
        buckets = measure.band_hashes(np.frombuffer(sig, dtype="<u4"))
        assert all(pid in store.members(buckets, 25)[b] for b in buckets)
        store.save()
    assert not (tmp_path / "lib" / band_runs.FOLDER).exists()
