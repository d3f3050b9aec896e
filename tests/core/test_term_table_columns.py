"""The builder child writes the term table's columns a range of columns at a time
(issue 28: at a million papers the whole columns beside the rows were ~0.5 GB of the
build's peak): the same bytes in every file as computing them whole and saving, and the
whole columns are never computed."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from paperdesk.core.discover import build as build_mod
from paperdesk.core.discover import table_files
from paperdesk.core.discover import term_table
from paperdesk.core.discover.build import build_rows
from paperdesk.core.discover.term_table import (TERMS_DIR, Part, TermTable, column_blocks,
                                                save_built)


def _digests(folder) -> dict[str, str]:
    return {f.name: hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(folder.iterdir()) if f.name != "meta.json"}


@pytest.mark.parametrize("block", [1, 97, 1 << 20])
def test_columns_written_in_pieces_are_the_bytes_of_the_whole_table(
        seeded_library, tmp_path, monkeypatch, block):
    monkeypatch.setattr(term_table, "COLUMN_BLOCK", block)
    terms, idf, part = build_rows(seeded_library.path / "library.db")
    whole = TermTable.from_parts(terms, idf, [Part(part.ids, part.stamps, part.indptr,
                                                   part.indices, part.data)])
    whole.save(tmp_path / "whole", 2)
    save_built(tmp_path / "pieces", 2, terms, idf, part)
    assert part.cindptr is None                    # the part's columns were never made
    assert _digests(tmp_path / "pieces") == _digests(tmp_path / "whole")
    assert len(_digests(tmp_path / "whole")) == 11
    back = TermTable.load(tmp_path / "pieces")     # its checksums were recorded
    assert back.generation == 2 and back.n_rows == len(part.ids)
    assert TermTable.full_problems(tmp_path / "pieces") == []


def test_column_pieces_follow_the_columns_in_order():
    # 4 rows, 5 columns; a column (3) with more weights than a piece holds alone
    indptr = np.array([0, 3, 5, 8, 9], np.int32)
    indices = np.array([3, 0, 1, 3, 4, 3, 1, 0, 3], np.int32)
    data = np.arange(1, 10, dtype=np.float32)
    part = Part(np.arange(4, dtype=np.int64), np.zeros(4, np.uint32), indptr, indices, data)
    pieces = list(column_blocks(part, 5, block=2))
    rows = np.concatenate([r for r, _v in pieces])
    values = np.concatenate([v for _r, v in pieces])
    whole = part.with_columns(5)
    assert rows.tolist() == whole.crows.tolist() == [0, 2, 0, 2, 0, 1, 2, 3, 1]
    assert values.tolist() == whole.cdata.tolist()
    assert [len(r) for r, _v in pieces] == [2, 2, 4, 1]


def test_the_builder_never_computes_the_whole_columns(seeded_library, monkeypatch):
    def whole(self, n_terms):
        raise AssertionError("the whole columns were computed")
    monkeypatch.setattr(Part, "with_columns", whole)
    folder = seeded_library.path / TERMS_DIR
    generation = build_mod._build_and_save(str(seeded_library.path / "library.db"),
                                           str(folder), lambda done, total: None)
    monkeypatch.undo()
    table = TermTable.load(folder)
    assert table.generation == generation and table.n_rows == 225


def test_an_array_written_in_blocks_that_do_not_add_up_leaves_no_file(tmp_path):
    path = tmp_path / "a.npy"
    with pytest.raises(ValueError):
        table_files.write_arrays_in_blocks([path], [np.int32], 5,
                                           [(np.arange(3, dtype=np.int32),)])
    assert list(tmp_path.iterdir()) == []
    record = table_files.write_arrays_in_blocks(
        [path], [np.int32], 5, [(np.arange(3),), (np.arange(3, 5),)])[0]
    assert np.load(path).tolist() == [0, 1, 2, 3, 4]
    table_files.write_array(tmp_path / "b.npy", np.arange(5, dtype=np.int32))
    assert path.read_bytes() == (tmp_path / "b.npy").read_bytes()
    assert table_files.full_problem(path, record) is None
