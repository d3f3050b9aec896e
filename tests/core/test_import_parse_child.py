"""Large text files read in a child process while the importing thread stores (issue 28,
:mod:`paperdesk.core.imports.parse_process`): the same papers, titles, keys, provenance,
index queue, counts and warnings as reading in the importing thread; a file that turns
bad while it is read, and a cancel, end as they do there; no child is left running."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3

import pytest

from paperdesk.core.imports import daily_papers, parse_process
from paperdesk.core.imports.abstract_limit import MAX_ABSTRACT_CHARS
from paperdesk.core.imports.parse_process import ParseChild
from paperdesk.core.library import DB_NAME, Library


def _abstracts(seed_files) -> list[str]:
    out = []
    for path in seed_files:
        out += [a.abstract for a in daily_papers.read_file(path).abstracts]
    return out


def _write(path, abstracts: list[str]) -> None:
    path.write_bytes(("Daily Papers\n\n" + "\n\n".join(abstracts) + "\n").encode("utf-8"))


def _rows(lib_path) -> tuple:
    con = sqlite3.connect(lib_path / DB_NAME)
    try:
        return tuple(con.execute(q).fetchall() for q in (
            "SELECT id, content_hash, title, derived_title, abstract, citation_key "
            "FROM papers ORDER BY id",
            "SELECT paper_id, source_id, position FROM paper_sources ORDER BY 1, 2, 3",
            "SELECT paper_id, op FROM index_queue ORDER BY paper_id"))
    finally:
        con.close()


@pytest.fixture
def streamed(monkeypatch):
    """Files of 1,000 bytes or more are streamed (the detection runs in this process)."""
    import paperdesk.core.imports.detect as detect_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 1000)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 40)


def _readers() -> list:
    """This process's import readers still running (other children, such as index
    writers of other tests' libraries, are not counted)."""
    return [p for p in multiprocessing.active_children() if p.name == "paperdesk-import-reader"]


def _summary(report) -> list:
    return [(f.path.rsplit("/", 1)[-1], f.added, f.duplicates, f.warnings, f.error)
            for f in report.files]


def test_a_large_file_read_in_the_child_is_stored_as_the_thread_stores_it(
        tmp_path, seed_files, monkeypatch, streamed):
    abstracts = _abstracts(seed_files)
    long = "Long abstract " + "word " * (MAX_ABSTRACT_CHARS // 5)     # cut, with a note
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    _write(first, abstracts + abstracts[:30] + [long])
    _write(second, abstracts[10:50] + ["A new one. It is only in the second file."])

    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 10**12)   # in the thread
    started = ParseChild.started
    with Library.open(tmp_path / "thread") as lib:
        in_thread = lib.imports.run([first, second], sync=False)
    assert ParseChild.started == started

    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    with Library.open(tmp_path / "child") as lib:
        seen = []
        in_child = lib.imports.run([first, second], sync=False,
                                   between_batches=lambda: seen.append(1))
    assert ParseChild.started == started + 1          # one child for the whole import
    assert _readers() == []     # and stopped at its end
    assert _summary(in_child) == _summary(in_thread)
    assert any("cut" in w for w in in_child.files[0].warnings)
    assert in_child.added == in_thread.added == len(set(abstracts)) + 2
    assert _rows(tmp_path / "child") == _rows(tmp_path / "thread")
    assert len(seen) >= (len(abstracts) + 31) // 40    # batches, the hook between them


def test_a_file_that_turns_bad_while_the_child_reads_it_keeps_what_was_stored(
        tmp_path, seed_files, monkeypatch, streamed):
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 500)
    seeds = _abstracts(seed_files)
    # over two of the child's 1 MiB reads (STREAM_CHUNK_BYTES), so that the first ones
    # are stored before the bad byte is decoded
    abstracts = [f"{seeds[i % len(seeds)]} Variant {i}." for i in range(3000)]
    path = tmp_path / "big.txt"
    _write(path, abstracts)
    assert path.stat().st_size > 2.5 * daily_papers.STREAM_CHUNK_BYTES

    def spoil(stage, _done, _total, _name) -> None:
        if stage == "import":       # recognised already; now a byte goes bad near the end
            st = path.stat()        # (its size and time kept: a change of either is
            data = bytearray(path.read_bytes())     # refused before any is stored)
            data[len(data) * 9 // 10] = 0xE9
            path.write_bytes(bytes(data))
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False, on_file=spoil)
        assert "no longer UTF-8" in report.files[0].error
        assert lib.papers.count() == report.added and 0 < report.added < 3000
        assert _readers() == []


def test_a_cancel_stops_the_child_and_the_next_import_starts_another(
        tmp_path, seed_files, monkeypatch, streamed):
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    abstracts = _abstracts(seed_files)
    path = tmp_path / "big.txt"
    _write(path, abstracts)
    started = ParseChild.started
    with Library.open(tmp_path / "lib") as lib:
        polls = iter([False, False, False, True])
        report = lib.imports.run([path], sync=False, cancel=lambda: next(polls, True))
        assert report.cancelled and 0 < report.added < len(abstracts)
        assert lib.papers.count() == report.added
        assert _readers() == []
        rest = lib.imports.run([path], sync=False)
        assert report.added + rest.added == len(set(abstracts))
    assert ParseChild.started == started + 2
    assert _readers() == []


def test_a_file_is_read_in_the_thread_when_no_child_can_start(tmp_path, seed_files,
                                                              monkeypatch, streamed):
    abstracts = _abstracts(seed_files)
    path = tmp_path / "big.txt"
    _write(path, abstracts)
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)

    def no_processes(self) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(ParseChild, "_start", no_processes)
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        assert report.files[0].error is None
        assert report.added == lib.papers.count() == len(set(abstracts))


def _big(path, seeds: list[str], tag: str, n: int = 1500) -> None:
    """A Daily Papers file of over a MiB (streamed in the child too, whose
    ``STREAM_MIN_BYTES`` is not the test's)."""
    _write(path, [f"{seeds[i % len(seeds)]} Variant {tag} {i}." for i in range(n)])
    assert path.stat().st_size > daily_papers.STREAM_MIN_BYTES


def _recognised_here(monkeypatch) -> list:
    """The files the importing process recognises itself (the child's are not seen)."""
    import paperdesk.core.imports.pipeline as pipeline_module

    seen = []
    real = pipeline_module.detect_streamed

    def counting(path):
        seen.append(path.name)
        return real(path)

    monkeypatch.setattr(pipeline_module, "detect_streamed", counting)
    monkeypatch.setattr("paperdesk.core.imports.detect.detect_streamed", counting)
    return seen


def test_every_other_large_file_is_recognised_by_the_child_with_the_same_outcome(
        tmp_path, seed_files, monkeypatch):
    seeds = _abstracts(seed_files)
    files = [tmp_path / f"{name}.txt" for name in "abcd"]
    _big(files[0], seeds, "a")
    # not prose: refused, with the reason the importing thread gives
    files[1].write_text("\n\n".join(f"{i} {i * 7} {i * 13} -- {i % 9} == {i % 5};"
                                    for i in range(60_000)) + "\n", encoding="utf-8")
    assert files[1].stat().st_size > daily_papers.STREAM_MIN_BYTES
    _big(files[2], seeds, "c")
    _big(files[3], seeds, "d")

    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 10**12)   # all here
    with Library.open(tmp_path / "thread") as lib:
        in_thread = lib.imports.run(files, sync=False)
    errors = {f.path.rsplit("/", 1)[-1]: f.error for f in in_thread.files}
    assert "prose" in errors["b.txt"] and errors["a.txt"] is None

    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    here = _recognised_here(monkeypatch)
    started = ParseChild.started
    with Library.open(tmp_path / "child") as lib:
        in_child = lib.imports.run(files, sync=False)
    assert here == ["a.txt", "c.txt"]        # b and d were recognised by the child
    assert ParseChild.started == started + 1     # which then read the files to store
    assert _readers() == []
    assert _summary(in_child) == _summary(in_thread)
    assert _rows(tmp_path / "child") == _rows(tmp_path / "thread")


def test_a_large_arxiv_file_among_them_leaves_no_answer_in_the_way(tmp_path, seed_files,
                                                                   monkeypatch):
    import json

    seeds = _abstracts(seed_files)
    first, arxiv = tmp_path / "a.txt", tmp_path / "b.jsonl"
    _big(first, seeds, "a")
    with open(arxiv, "w", encoding="utf-8") as fh:
        for n in range(40):
            fh.write(json.dumps({
                "id": f"2101.{n:05d}", "submitter": "S", "authors": "A. Author",
                "title": f"Record {n} on lemurs", "journal-ref": None, "doi": None,
                "categories": "cs.LG", "abstract": f"  Abstract {n} about lemurs.\n",
                "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 10:00:00 GMT"}],
                "update_date": "2024-01-02", "authors_parsed": [["Author", "A.", ""]]})
                + "\n")
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    here = _recognised_here(monkeypatch)
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([first, arxiv], sync=False)
        assert [f.error for f in report.files] == [None, None]
        assert report.files[1].added == 40
        assert report.files[0].added == lib.papers.count() - 40 > 1000
    assert here == ["a.txt"]
    assert _readers() == []


def test_a_file_is_recognised_here_when_the_child_stops(tmp_path, seed_files, monkeypatch):
    seeds = _abstracts(seed_files)
    files = [tmp_path / "a.txt", tmp_path / "b.txt"]
    _big(files[0], seeds, "a")
    _big(files[1], seeds, "b")
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    here = _recognised_here(monkeypatch)
    real = ParseChild.detect_ahead

    def then_killed(self, paths):
        sent = real(self, paths)
        self._process.kill()
        self._process.join(5)
        return sent

    monkeypatch.setattr(ParseChild, "detect_ahead", then_killed)
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run(files, sync=False)
        assert [f.error for f in report.files] == [None, None]
        assert report.added == lib.papers.count() == 3000
    assert here == ["a.txt", "b.txt"]
    assert _readers() == []


def test_an_edit_waiting_for_the_childs_records_goes_in_at_once(tmp_path, seed_files,
                                                               monkeypatch):
    """While the importing thread waits for the child's next records it holds no
    transaction: an edit waiting then (``hurry``) goes in at once, before any record
    arrives, instead of after the next records came and were stored (a star during a
    window's arXiv import waited 64 ms at the median, 161 ms at p95, mostly for the
    child's next records; 5 and 15 ms with this)."""
    from helpers import arxiv_lines

    path = arxiv_lines(tmp_path / "walks.jsonl", 400)
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run(seed_files, sync=False)
        seed = lib.papers.ids()[0]
        waiting, stored_then = [True], []

        def between_batches():
            if waiting:          # "a star pressed as the file was dropped"
                waiting.clear()
                lib.papers.set_starred([seed], True)
                stored_then.append(lib.papers.count())

        report = lib.imports.run([path], sync=False, between_batches=between_batches,
                                 hurry=lambda: bool(waiting))
        assert stored_then == [225]     # before the child's first records were stored
        assert report.files[0].added == 400 and lib.papers.count() == 625
        assert lib.papers.get(seed).starred
    assert _readers() == []


def test_an_edit_waiting_for_the_childs_abstracts_goes_in_at_once(tmp_path, seed_files,
                                                                 monkeypatch, streamed):
    """A text file read by the child: the first abstracts are waited for outside any
    transaction, and while the child has none an edit waiting goes in at once (a star
    pressed as a 30,000-abstract file began to be stored waited 4.5-5.8 s in the window,
    the transaction open, for the child's first abstracts)."""
    abstracts = _abstracts(seed_files)
    path = tmp_path / "big.txt"
    _write(path, [f"{a} Variant {i}." for i in range(14) for a in abstracts])
    monkeypatch.setattr(parse_process, "PARSE_CHILD_MIN_BYTES", 1000)
    with Library.open(tmp_path / "lib", sync_index=False) as lib:
        lib.imports.run(seed_files, sync=False)
        seed = lib.papers.ids()[0]
        waiting, stored_then = [], []

        def progress(stage, done, _total):
            if stage == "import" and done == 0 and not stored_then:
                waiting.append(True)      # "a star pressed as storing begins"

        def between_batches():
            if waiting:
                waiting.clear()
                lib.papers.set_starred([seed], True)
                stored_then.append(lib.papers.count())

        report = lib.imports.run([path], sync=False, progress=progress,
                                 between_batches=between_batches,
                                 hurry=lambda: bool(waiting))
        assert stored_then == [225]     # before the child's first abstracts were stored
        assert report.files[0].added == 14 * len(set(abstracts))
        assert lib.papers.get(seed).starred
    assert _readers() == []
