"""Storing a large text file streams it (issue 12, point 1): it is recognised and stored
in pieces, with the same papers, titles, keys, provenance and index queue as a file read
whole, and the SQLite statements of a batch are batched (``executemany``)."""

from __future__ import annotations

import sqlite3

import pytest

from paperdesk.core.imports import daily_papers
from paperdesk.core.imports.daily_papers import (ParseError, StreamedText, iter_paragraphs,
                                                 split_paragraphs)
from paperdesk.core.imports.detect import detect_streamed
from paperdesk.core.library import DB_NAME, Library


def _abstracts(seed_files) -> list[str]:
    out = []
    for path in seed_files:
        out += [a.abstract for a in daily_papers.read_file(path).abstracts]
    return out


def _write(path, header: str, abstracts: list[str], newline: str = "\n") -> None:
    text = (header + "\n\n" if header else "") + "\n\n".join(abstracts) + "\n"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))


def _rows(db_path) -> tuple:
    con = sqlite3.connect(db_path)
    try:
        return tuple(con.execute(q).fetchall() for q in (
            "SELECT id, content_hash, title, derived_title, abstract, citation_key "
            "FROM papers ORDER BY id",
            "SELECT paper_id, source_id, position FROM paper_sources ORDER BY 1, 2, 3",
            "SELECT paper_id, op FROM index_queue ORDER BY paper_id"))   # (seq order may differ)
    finally:
        con.close()


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_paragraphs_read_in_pieces_are_those_of_the_whole_file(tmp_path, seed_files,
                                                               monkeypatch, newline):
    monkeypatch.setattr(daily_papers, "STREAM_CHUNK_BYTES", 97)   # cuts lines and CRLFs
    path = tmp_path / "x.txt"
    _write(path, "Daily Papers", _abstracts(seed_files)[:60], newline)
    whole = path.read_bytes().decode("utf-8")
    assert list(iter_paragraphs(path)) == split_paragraphs(whole)


def test_a_large_file_is_streamed_and_stored_as_a_whole_read_would(tmp_path, seed_files,
                                                                   monkeypatch):
    abstracts = _abstracts(seed_files)
    # with repeats (duplicates inside the file) and a paragraph of blank-ish text
    body = abstracts + abstracts[:30] + ["\u00a0"]
    path = tmp_path / "big.txt"
    _write(path, "Daily Papers", body)
    monkeypatch.setattr(daily_papers, "STREAM_MIN_BYTES", 10**9)      # read whole
    with Library.open(tmp_path / "whole") as lib:
        whole = lib.imports.run([path], sync=False)
    assert detect_streamed(path) is None
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 70)
    monkeypatch.setattr(daily_papers, "STREAM_MIN_BYTES", 1000)
    monkeypatch.setattr(daily_papers, "STREAM_CHUNK_BYTES", 4096)
    import paperdesk.core.imports.detect as detect_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 1000)
    stream = detect_streamed(path)
    assert isinstance(stream, StreamedText) and stream.header == "Daily Papers"
    assert stream.estimated_abstracts == len(body) - 1     # the no-break space is blank
    with Library.open(tmp_path / "streamed") as lib:
        seen = []
        streamed = lib.imports.run([path], sync=False, between_batches=lambda: seen.append(1))
        again = lib.imports.run([path], sync=False)
    assert (streamed.added, streamed.duplicates) == (whole.added, whole.duplicates)
    assert streamed.added == len(set(abstracts))
    assert streamed.duplicates == len(body) - 1 - streamed.added     # seeds repeat 15 too
    assert len(seen) >= len(body) // 70        # one transaction per batch, hook between
    assert (again.added, again.files[0].duplicates) == (0, len(body) - 1)
    assert streamed.files[0].header == "Daily Papers"
    assert _rows(tmp_path / "whole" / DB_NAME) == _rows(tmp_path / "streamed" / DB_NAME)


def test_a_large_file_that_is_not_prose_is_refused_while_streamed(tmp_path, monkeypatch):
    import paperdesk.core.imports.detect as detect_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 100)
    path = tmp_path / "table.txt"
    path.write_text("Header\n\n" + "\n\n".join(f"a,b,c\n{i},{i},{i}" for i in range(40)),
                    encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        detect_streamed(path)
    assert "not abstracts" in caught.value.reason and "a table" in caught.value.reason
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert lib.papers.count() == 0 and not lib.removal.sources()
    assert "a table" in report.rejected[0]["reason"]


def test_a_large_file_that_is_not_utf8_is_read_whole(tmp_path, seed_files, monkeypatch):
    import paperdesk.core.imports.detect as detect_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 100)
    path = tmp_path / "latin1.txt"
    text = "Daily Papers\n\n" + "\n\n".join(_abstracts(seed_files)[:20]) + "\n\nNão é café.\n"
    path.write_bytes(text.encode("cp1252", errors="replace"))
    assert detect_streamed(path) is None           # a bad byte late in the file
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        assert report.added == 21 and lib.removal.sources()[0].header == "Daily Papers"


def test_an_automatic_key_already_taken_falls_back_to_one_by_one(tmp_path, seed_files):
    abstracts = _abstracts(seed_files)[:50]
    first, rest = tmp_path / "a.txt", tmp_path / "b.txt"
    _write(first, "One", abstracts[:1])
    _write(rest, "Two", abstracts[1:])
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([first])
        (pid,) = lib.papers.ids()
        # the key paper 2 would get automatically, taken by hand
        from paperdesk.core.metadata import auto_key
        from paperdesk.core.text import derive_title
        taken = auto_key(derive_title(abstracts[1]), pid + 1)
        lib.papers.set_metadata(pid, lib.papers.get(pid).metadata, citation_key=taken)
        report = lib.imports.run([rest])
        assert report.added == 49 and lib.papers.count() == 50
        keys = [lib.papers.get(i).citation_key for i in lib.papers.ids()]
        assert len({k.lower() for k in keys}) == 50 and keys.count(taken) == 1


def test_a_streamed_file_that_changes_while_stored_is_reported(tmp_path, seed_files,
                                                               monkeypatch):
    import paperdesk.core.imports.detect as detect_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 100)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 20)
    path = tmp_path / "big.txt"
    _write(path, "Daily Papers", _abstracts(seed_files)[:100])
    real = StreamedText.abstracts

    def changed(self):
        for n, item in enumerate(real(self)):
            if n == 50:            # someone writes a Latin-1 byte into the file now
                raise UnicodeDecodeError("utf-8", b"\xe9", 0, 1, "invalid continuation")
            yield item

    monkeypatch.setattr(StreamedText, "abstracts", changed)
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        assert "no longer UTF-8" in report.files[0].error
        assert lib.papers.count() == report.added and 0 < report.added <= 50


def test_a_streamed_file_cut_while_it_is_read_keeps_no_cut_abstract(tmp_path, seed_files,
                                                                    monkeypatch):
    """A file truncated while it is imported (found by the tester: the cut last
    abstract was stored and the import ended without an error)."""
    import os

    import paperdesk.core.imports.detect as detect_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 100)
    monkeypatch.setattr(daily_papers, "STREAM_CHUNK_BYTES", 4096)
    monkeypatch.setattr("paperdesk.core.imports.pipeline.IMPORT_BATCH", 20)
    originals = _abstracts(seed_files)[:100]
    path = tmp_path / "big.txt"
    _write(path, "Daily Papers", originals)
    cut_at = path.stat().st_size // 2 + 7       # inside an abstract
    real = StreamedText.abstracts

    def cut(self):
        for n, item in enumerate(real(self)):
            if n == 5:                          # someone truncates the file now
                os.truncate(path, cut_at)
            yield item

    monkeypatch.setattr(StreamedText, "abstracts", cut)
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        error = report.files[0].error
        assert error and "changed while it was imported" in error, error
        assert f"{cut_at:,} now" in error
        stored = [lib.papers.get(i).abstract for i in lib.papers.ids()]
        assert 5 < len(stored) < 100
        assert set(stored) <= set(originals)    # no cut abstract


def test_iter_pieces_reports_a_file_that_grew_shorter(tmp_path, monkeypatch):
    from paperdesk.core.imports.daily_papers import FileChangedError, iter_pieces
    monkeypatch.setattr(daily_papers, "STREAM_CHUNK_BYTES", 10)
    path = tmp_path / "x.txt"
    path.write_text("first paragraph here\n\nsecond paragraph is longer\n", encoding="utf-8")
    pieces = iter_pieces(path)
    assert next(pieces)[0] == "first paragraph here"
    path.write_text("second para", encoding="utf-8")  # truncated and rewritten shorter
    with pytest.raises(FileChangedError, match="changed while it was imported"):
        list(pieces)


def test_a_file_changed_between_its_two_readings_is_refused(tmp_path, seed_files,
                                                            monkeypatch):
    """The tester cut (and rewrote in place, same size) a 5 MB file after it was
    recognised and before it was stored: the storing pass read the changed file to its
    end, stored a cut abstract and said nothing."""
    import os

    import paperdesk.core.imports.detect as detect_module
    import paperdesk.core.imports.pipeline as pipeline_module
    monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 100)
    originals = _abstracts(seed_files)[:100]
    for change in ("cut", "same size"):
        path = tmp_path / f"big-{change}.txt"
        _write(path, "Daily Papers", originals)
        real = pipeline_module.detect_streamed

        def recognised_then_changed(p, *args, real=real, path=path, change=change):
            found = real(p, *args)
            if change == "cut":
                os.truncate(path, path.stat().st_size // 2 + 7)
            else:               # two paragraphs glued, the same number of bytes
                data = path.read_bytes().replace(b"\n\n", b"\n ", 2)
                path.write_bytes(data)
                st = path.stat()
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
            return found

        monkeypatch.setattr(pipeline_module, "detect_streamed", recognised_then_changed)
        with Library.open(tmp_path / f"lib-{change}") as lib:
            report = lib.imports.run([path], sync=False)
            error = report.files[0].error if report.files else report.rejected[0]["reason"]
            assert error and "changed since it was first read" in error, (change, error)
            assert lib.papers.count() == 0
