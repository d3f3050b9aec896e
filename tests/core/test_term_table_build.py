"""The term table's chunked build gives the weights scikit-learn's TfidfVectorizer gives,
and its stored, memory-mapped form reads back the same."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from paperdesk.core.discover import build as build_mod
from paperdesk.core.discover import table_files
from paperdesk.core.discover.build import build_table
from paperdesk.core.discover.term_table import TERMS_DIR, TermTable
from paperdesk.core.discover.vectorize import new_vectorizer, paper_text, prune_rows


def _reference(lib):
    rows = lib.db.execute("SELECT id, title, abstract FROM papers ORDER BY id").fetchall()
    vec = new_vectorizer(len(rows))
    weights = vec.fit_transform(paper_text(t, a) for _i, t, a in rows)
    return [r[0] for r in rows], vec.get_feature_names_out().tolist(), vec.idf_, weights


@pytest.mark.parametrize("chunk", [7, 5000])
def test_chunked_build_equals_tfidf_vectorizer(seeded_library, monkeypatch, chunk):
    """Counted 7 papers at a time or all at once, the vocabulary, idf and every pruned
    row are TfidfVectorizer(sublinear_tf=True)'s over all the papers at once."""
    monkeypatch.setattr(build_mod, "CHUNK", chunk)
    ids, terms, idf, weights = _reference(seeded_library)
    table = build_table(seeded_library.path / "library.db")
    assert [table.term(i) for i in range(table.n_terms)] == terms
    np.testing.assert_allclose(table.idf, idf, rtol=1e-6)  # sklearn keeps float32
    assert table.row_ids.tolist() == ids
    indptr, indices, data = prune_rows(weights)
    got = table.parts[0]
    assert np.array_equal(got.indptr, indptr)
    assert np.array_equal(got.indices, indices)
    np.testing.assert_allclose(got.data, data, rtol=1e-5)


def test_rows_are_unit_length_heaviest_first(seeded_library):
    table = build_table(seeded_library.path / "library.db")
    part = table.parts[0]
    m = csr_matrix((part.data, part.indices, part.indptr), shape=(len(part.ids), table.n_terms))
    norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
    nonempty = np.diff(part.indptr) > 0
    np.testing.assert_allclose(norms[nonempty], 1.0, rtol=1e-5)
    for r in range(0, len(part.ids), 17):
        cols, w = table.row(r)
        assert np.all(np.diff(w) <= 1e-7), "a row's weights run from the heaviest down"


def test_saved_table_loads_memory_mapped_and_equal(seeded_library):
    table = build_table(seeded_library.path / "library.db")
    folder = seeded_library.path / TERMS_DIR
    table.save(folder, 3)
    back = TermTable.load(folder)
    assert back.generation == 3
    assert isinstance(back.parts[0].data, np.memmap)
    assert back.n_terms == table.n_terms
    assert [back.term(i) for i in range(0, back.n_terms, 50)] == \
        [table.term(i) for i in range(0, table.n_terms, 50)]
    vector = table.dense(10)
    np.testing.assert_allclose(back.scores(vector), table.scores(vector), rtol=1e-6)
    # a second generation replaces the first's files
    table.save(folder, 4)
    assert not list(folder.glob("g3-*"))
    assert TermTable.load(folder).generation == 4


def test_similarities_by_column_equal_the_row_matrix_product(seeded_library):
    """Reading only the query's columns (CSC) gives every row's dot product, as the
    full CSR matrix-vector product does, in memory and after a save and load."""
    table = build_table(seeded_library.path / "library.db")
    folder = seeded_library.path / TERMS_DIR
    table.save(folder, 1)
    for t in (table, TermTable.load(folder)):
        for r in (0, 40, 111, 224):
            cols, weights = t.row(r)
            np.testing.assert_allclose(t.similarities(cols, weights), t.scores(t.dense(r)),
                                       rtol=1e-5, atol=1e-7)


def test_columns_that_do_not_match_the_rows_are_damage(seeded_library):
    import pytest as _pytest
    from paperdesk.core.discover.term_table import TermTableError
    table = build_table(seeded_library.path / "library.db")
    folder = seeded_library.path / TERMS_DIR
    table.save(folder, 1)
    crows = folder / "g1-p0-crows.npy"
    np.save(crows, np.load(crows)[:-5])
    with _pytest.raises(TermTableError, match=r"g1-p0-crows.npy: changed since it was "
                        r"written \([\d,]+ bytes then, [\d,]+ now\)"):
        TermTable.load(folder)
    # the same with its checksum recorded anew (a table written so by a bug): the sizes
    meta = json.loads((folder / "meta.json").read_text("utf-8"))
    meta["files"][crows.name] = table_files.write_array(crows, np.load(crows))
    (folder / "meta.json").write_text(json.dumps(meta), "utf-8")
    with _pytest.raises(TermTableError, match="columns do not match"):
        TermTable.load(folder)


def test_read_slice_of_a_memory_mapped_array_reads_the_same_values(tmp_path):
    from paperdesk.core.discover.term_table import read_slice
    values = np.arange(10_000, dtype=np.int32) * 7
    np.save(tmp_path / "a.npy", values)
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    for a, b in ((0, 0), (0, 1), (123, 4567), (9_990, 10_000)):
        got = read_slice(mapped, a, b)
        assert got.dtype == values.dtype and np.array_equal(got, values[a:b])
        assert not isinstance(got, np.memmap)
    assert np.array_equal(read_slice(values, 5, 9), values[5:9])


def test_update_part_weighs_as_tfidf_vectorizer_transform(seeded_library):
    """Rows for new or edited papers, made without scikit-learn, equal
    TfidfVectorizer.transform with the table's vocabulary and idf (stop words and words
    unknown to the table dropped)."""
    from paperdesk.core.discover.build import update_part
    table = build_table(seeded_library.path / "library.db")
    ids = np.array([1, 17, 73, 200], dtype=np.int64)
    part = update_part(table, seeded_library.path / "library.db", ids)
    terms = [table.term(i) for i in range(table.n_terms)]
    vec = new_vectorizer(1000, {t: i for i, t in enumerate(terms)}, table.idf)
    rows = seeded_library.db.execute(
        "SELECT title, abstract FROM papers WHERE id IN (1, 17, 73, 200) ORDER BY id").fetchall()
    indptr, indices, data = prune_rows(vec.transform([paper_text(t, a) for t, a in rows]))
    assert part.ids.tolist() == ids.tolist()
    assert np.array_equal(part.indptr, indptr) and np.array_equal(part.indices, indices)
    np.testing.assert_allclose(part.data, data, rtol=1e-5)
    # and the table's own rows of those papers are the same rows again
    for k, pid in enumerate(ids):
        cols, weights = table.row(int(table.rows_of([pid])[0]))
        assert np.array_equal(cols, part.indices[part.indptr[k]:part.indptr[k + 1]])


def test_columns_of_finds_every_term_and_nothing_else(seeded_library):
    table = build_table(seeded_library.path / "library.db")
    terms = [table.term(i) for i in range(table.n_terms)]
    assert table.columns_of(terms).tolist() == list(range(len(terms)))
    assert table.columns_of(["the", "zzzzqqq", "", "Depth"]).tolist() == [-1, -1, -1, -1]


def test_words_split_in_runs_are_those_of_the_token_pattern():
    """The run-at-a-time pattern used for texts without an underscore finds the words
    TOKEN_PATTERN finds: every string of up to eight characters drawn from one character
    of each class the pattern tells apart (letter, digit, underscore, hyphen, space;
    up to six with a non-ASCII letter and a superscript digit too)."""
    import itertools

    from paperdesk.core.discover import vectorize

    pattern = re.compile(vectorize.TOKEN_PATTERN)
    strings = itertools.chain(
        ("".join(t) for n in range(1, 7) for t in itertools.product("a1_- é²", repeat=n)),
        ("".join(t) for n in (7, 8) for t in itertools.product("a1_- ", repeat=n)))
    for text in strings:
        assert vectorize.paper_words(text) == pattern.findall(text), repr(text)


def test_language_is_told_as_by_counting_every_word(seeded_library):
    """The early exit (too few function words of any language) tells the same language
    as counting each language's words."""
    from paperdesk.core.discover import vectorize

    def counted(words):
        hits = {lang: sum(w in vectorize._LANGUAGES_OF and lang in
                          vectorize._LANGUAGES_OF[w] for w in words)
                for lang in vectorize.LANGUAGE_STOP_WORDS}
        lang, n = max(hits.items(), key=lambda item: item[1])
        if not words or n < vectorize.LANGUAGE_MIN_WORDS or \
                n < vectorize.LANGUAGE_MIN_SHARE * len(words):
            return frozenset()
        return vectorize.LANGUAGE_STOP_WORDS[lang]

    texts = [vectorize.paper_text(t, a) for t, a in seeded_library.db.execute(
        "SELECT title, abstract FROM papers")]
    texts += ["Die Methode und der Ansatz sind für die Tiefe der Szene neu",
              "la méthode et le modèle de la scène sont dans une approche",
              "die der und", "the die of la", ""]
    for text in texts:
        words = re.findall(vectorize.TOKEN_PATTERN, text.lower())
        assert vectorize.language_stop_words(words) == counted(words)


def test_a_word_counted_over_65535_times_in_one_paper_keeps_its_count():
    """Counts are kept as 16 bits unless one does not fit."""
    from paperdesk.core.discover import vectorize

    vectorize.load_stop_words()
    vocabulary = build_mod._Vocabulary()
    text = "depth " * 70_000 + "scene scene"
    indptr, cols, tf, stop = build_mod._count([text, "scene"], vocabulary,
                                              np.zeros(0, bool))
    assert tf.dtype == np.uint32
    counts = {(r, int(c)): int(n) for r in range(2)
              for c, n in zip(cols[indptr[r]:indptr[r + 1]], tf[indptr[r]:indptr[r + 1]])}
    assert counts == {(0, vocabulary["depth"]): 70_000, (0, vocabulary["scene"]): 2,
                      (1, vocabulary["scene"]): 1}
    assert len(stop) == len(vocabulary)


def test_stop_words_are_scikit_learns_and_a_build_does_not_import_it(seeded_library):
    """The English stop words read from scikit-learn's file are its ENGLISH_STOP_WORDS,
    and the build (a fresh interpreter, as the builder's child process) never imports
    scikit-learn."""
    import subprocess
    import sys

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from paperdesk.core.discover import vectorize

    assert vectorize._english_stop_words() == frozenset(ENGLISH_STOP_WORDS)
    code = ("import sys; from pathlib import Path; "
            "from paperdesk.core.discover.build import build_table; "
            f"t = build_table(Path({str(seeded_library.path / 'library.db')!r})); "
            "print(t.n_terms, 'sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(build_table(seeded_library.path / "library.db").n_terms), "False"]
