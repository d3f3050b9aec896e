"""The parse child of a large arXiv import computes each record's near-duplicate lookup
keys (MinHash signature and LSH buckets, :func:`paperdesk.core.duplicates.lookup_keys`)
so that the storing process does not (issue 28): the lookup's outcome is the same, and
the storing process shingles an abstract only when a candidate passes the prefilter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from paperdesk.core import duplicates as measure
from paperdesk.core.imports import parse_process, pipeline, records
from paperdesk.core.imports.abstract_limit import MAX_ABSTRACT_CHARS
from paperdesk.core.library import Library
from paperdesk.core.store import band_runs
from paperdesk.core.store.duplicates import closest_paper


def _edited(abstract: str) -> str:
    """The abstract with its last sentence changed and other punctuation (a version 2,
    as in test_import_formats)."""
    head, _sep, _last = abstract.rstrip().rstrip(".").rpartition(". ")
    return head.replace(",", ";") + ". We release the code and the trained models."


def _line(i: int, abstract: str) -> str:
    return json.dumps({
        "id": f"2403.{i:05d}", "submitter": "A. Submitter", "authors": f"A. Author{i}",
        "title": f"Record number {i}", "comments": None, "journal-ref": None, "doi": None,
        "report-no": None, "categories": "cs.LG", "license": None,
        "abstract": "  " + abstract.replace("\\", " ").replace("$", " ").replace("%", " ")
                    + "\n",
        "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 10:00:00 GMT"}],
        "update_date": "2024-01-02", "authors_parsed": [[f"Author{i}", "A.", ""]]}) + "\n"


def _texts(seeds: list[str]) -> list[str]:
    """Abstracts to look up: near-duplicates of seed abstracts, one of them longer than
    the abstract limit (cut; its tail is one repeated word, so the cut text is still a
    near-duplicate), abstracts unlike any, one sharing one seed sentence only, a short
    one (no signature) and an empty one."""
    first_sentence = seeds[20].split(". ")[0]
    return ([_edited(s) for s in seeds[:6]]
            + [_edited(seeds[6]) + " walk" * (MAX_ABSTRACT_CHARS // 4)]
            + [f"We study lattice walk number {i} and show that walk {i} mixes in {i + 2} "
               "steps on benchmark graphs of many sizes and shapes." for i in range(40)]
            + [first_sentence + ". Then we do something else entirely with other tools "
               "and report different numbers on unrelated data sets."]
            + ["Too short to sign.", ""])


@pytest.fixture
def banded(seeded_library):
    """The seeded library after the near-duplicate stage (it looks up near-duplicates)."""
    seeded_library.duplicates.find()
    return seeded_library


def test_lookup_keys_are_those_of_one_abstract_at_a_time(seeded_library):
    seeds = [seeded_library.papers.get(p).abstract for p in seeded_library.papers.ids()]
    texts = _texts(seeds)
    for text, (sig, buckets) in zip(texts, measure.lookup_keys(texts), strict=True):
        one = measure.signature(measure.shingle_hashes(text))
        if one is None:
            assert (sig, buckets) == (None, [])
        else:
            assert sig == measure.signature_bytes(one)
            assert buckets == measure.band_hashes(one)


def test_closest_paper_with_keys_is_the_same_and_shingles_only_for_close_candidates(
        banded, monkeypatch):
    db = banded.db
    bands = band_runs.store_for(db)
    seeds = [banded.papers.get(p).abstract for p in banded.papers.ids()]
    texts = _texts(seeds)
    keys = measure.lookup_keys(texts)
    want = [closest_paper(db, t, bands=bands) for t in texts]
    calls = []
    real = measure.shingle_hashes
    monkeypatch.setattr(measure, "shingle_hashes", lambda t: calls.append(t) or real(t))
    got = [closest_paper(db, t, bands=bands, keys=k) for t, k in zip(texts, keys)]
    assert got == want
    found = [w for w in want if w is not None]
    assert len(found) == 7 and all(score >= measure.THRESHOLD for _pid, score in found)
    # shingled: the seven near-duplicates and their close candidates, nothing else
    looked_up = [t for t in calls if t in texts]
    assert sorted(looked_up) == sorted(t for t, w in zip(texts, want) if w is not None)


def _import(template: Path, folder: Path, path: Path, child: bool, monkeypatch):
    shutil.copytree(template, folder)
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1 if child else 1 << 40)
    calls, batches = [], []
    real, real_keys = measure.shingle_hashes, measure.lookup_keys
    with Library.open(folder) as lib:
        lib.duplicates.find()
        started = parse_process.ParseChild.started
        monkeypatch.setattr(measure, "shingle_hashes", lambda t: calls.append(t) or real(t))
        monkeypatch.setattr(records, "lookup_keys",
                            lambda texts: batches.append(len(texts)) or real_keys(texts),
                            raising=False)
        report = lib.imports.run([path], sync=False)
        monkeypatch.setattr(measure, "shingle_hashes", real)
        monkeypatch.setattr(records, "lookup_keys", real_keys)
        papers = sorted((p.metadata.arxiv_id or "", p.abstract, p.title)
                        for p in map(lib.papers.get, lib.papers.ids()))
        merged = lib.db.execute("SELECT content_hash, paper_id FROM merged_hashes "
                                "ORDER BY content_hash").fetchall()
    (f,) = report.files
    return ((report.added, report.enriched, report.duplicates, f.warnings, papers, merged),
            parse_process.ParseChild.started - started, calls, batches)


def test_a_large_arxiv_file_stores_the_same_with_keys_from_the_child(
        _seeded_template, tmp_path, monkeypatch):
    """Read by the child (which sends the keys) or in the importing thread (which
    computes them itself): the same papers, merges and notes (each near-duplicate named
    with its similarity); and the storing process shingles only the abstracts whose
    lookup found a close candidate, not every record's (as it did before)."""
    template = tmp_path / "template"
    shutil.copytree(_seeded_template, template)
    with Library.open(template) as lib:
        seeds = [lib.papers.get(p).abstract for p in lib.papers.ids()]
    texts = _texts(seeds)
    path = tmp_path / "arxiv.jsonl"
    path.write_text("".join(_line(i, t) for i, t in enumerate(texts)), encoding="utf-8")

    here, none_started, calls_here, batches_here = _import(template, tmp_path / "here", path,
                                                           False, monkeypatch)
    there, started, calls, batches = _import(template, tmp_path / "there", path, True,
                                             monkeypatch)
    assert (none_started, started) == (0, 1)
    assert there == here
    added, enriched, duplicates, warnings, _papers, merged = here
    near = [w for w in warnings if "near-duplicate of paper" in w]
    assert len(near) == 7 and len(merged) == 7 and enriched + duplicates == 7
    assert any("cut" in w for w in warnings), warnings
    assert added == len(texts) - 7
    # The storing process shingled each near-duplicate's abstract and its close
    # candidates' (seed abstracts), never the 42 other records' abstracts (before: each
    # record's at least once).
    own = [c for c in calls if c not in set(seeds)]
    assert len(own) == 7 and batches == []
    assert len(calls) <= 7 * (1 + measure.MAX_EXACT)
    # Read in the importing thread, the records' keys are computed there, each
    # abstract's once (the empty one's never), a chunk of records at once (at most
    # HURRY_CHUNK: store_records's call), and an abstract shingled alone only when close
    # candidates are compared: the same 7.
    assert len([c for c in calls_here if c not in set(seeds)]) == 7
    assert sum(batches_here) == len(texts) - 1
    assert max(batches_here) <= pipeline.HURRY_CHUNK
    assert len(batches_here) < len(texts) - 1 or pipeline.HURRY_CHUNK == 1


@pytest.mark.parametrize("sign", [False, True])
def test_the_child_sends_the_keys_only_when_asked(tmp_path, sign):
    """``arxiv_records(stream, sign)``: with ``sign`` each record with an abstract carries
    :func:`~paperdesk.core.duplicates.lookup_keys` of it; without (a library that does
    not look up near-duplicates), none does."""
    from helpers import arxiv_lines
    from paperdesk.core.imports.arxiv import ArxivStream

    path = arxiv_lines(tmp_path / "a.jsonl", 30)
    reader = parse_process.ParseChild()
    try:
        records = list(reader.arxiv_records(
            ArxivStream(path, lambda: open(path, "rb")), sign))
    finally:
        reader.close()
    assert len(records) == 30
    if sign:
        assert [r.near_keys for r in records] == \
            measure.lookup_keys([r.abstract for r in records])
        assert all(r.near_keys[0] is not None for r in records)
    else:
        assert all(r.near_keys is None for r in records)


class _Clock:
    """A stand-in for ``time.monotonic`` that moves only when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class _Pipe:
    """The child's end of the pipe: each send takes ``waits.pop(0)`` seconds (the
    storing process not taking the message yet), 0 once they are used up."""

    def __init__(self, clock: _Clock, waits: list[float]) -> None:
        self.clock, self.waits, self.sent = clock, waits, []

    def send(self, message) -> None:
        self.sent.append(message)
        self.clock.now += self.waits.pop(0) if self.waits else 0.0


def test_the_child_signs_with_the_time_it_waited_for_the_storing_process(tmp_path,
                                                                         monkeypatch):
    """A budget of 0.1 s: four messages signed at 0.03 s each (the fourth overdraws it),
    the fifth sent unsigned; its send waited 0.5 s for the storing process, which pays
    for signing again (up to the budget)."""
    import time

    from helpers import arxiv_lines
    from paperdesk.core.imports.arxiv import ArxivFilter

    path = arxiv_lines(tmp_path / "a.jsonl", 60)
    clock = _Clock()
    monkeypatch.setattr(time, "monotonic", clock)
    monkeypatch.setattr(time, "process_time", clock)
    monkeypatch.setattr(parse_process, "SIGN_BUDGET_S", 0.1)
    monkeypatch.setattr(parse_process, "MESSAGE_RECORDS", 10)
    real = parse_process.with_near_keys

    def signing(records):
        clock.now += 0.03
        return real(records)

    monkeypatch.setattr(parse_process, "with_near_keys", signing)
    pipe = _Pipe(clock, [0.0, 0.0, 0.0, 0.0, 0.5])
    parse_process._read_arxiv(pipe, str(path), path, ArxivFilter(), 0, True)
    monkeypatch.undo()
    messages = [v[0] for k, v in pipe.sent if k == "records"]
    assert [len(m) for m in messages] == [10] * 6
    keys = [[r.near_keys for r in m] for m in messages]
    assert [all(keys[k]) for k in range(6)] == [True, True, True, True, False, True]
    assert not any(keys[4])
    assert keys[0] == measure.lookup_keys([r.abstract for r in messages[0]])
    assert pipe.sent[-1][0] == "end"
