"""The bulk segment writer (paperdesk.core.search.segment_writer) writes what Whoosh's own
writer writes: the same terms, term statistics, postings (weights, positions, block
statistics), field lengths, stored fields and paper ids, so Whoosh's searcher (and the
fast path) give the same results; and the index keeps working across updates, deletes
and the rewriting of small segments."""

from __future__ import annotations

import random

import pytest

from paperdesk.core.search import index as index_module
from paperdesk.core.search.index import (IndexDocument, SearchIndex, apply_batch,
                                         build_schema, whoosh_batch, _storage)
from paperdesk.core.search.segment_writer import Unsupported, build_segment, check_schema


def _index(path):
    path.mkdir()
    return _storage(path).create_index(build_schema())


def _postings(reader, fieldname, text, fmt):
    m = reader.postings(fieldname, text)
    out = []
    while m.is_active():
        value = m.value_as("positions") if fmt.supports("positions") else m.value()
        out.append((m.id(), m.weight(), value, m.block_min_length(), m.block_max_length(),
                    m.block_max_weight(), m.block_max_id()))
        m.next()
    return out


def _outcome(fn, *args):
    """``fn(*args)``, or the type of what it raised (Whoosh fails on some empty fields)."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - compared, not hidden
        return type(exc)


def assert_same_index(ix_a, ix_b):
    """Everything a reader can see of two single-segment indexes is equal."""
    ra, rb = ix_a.reader(), ix_b.reader()
    try:
        assert ra.doc_count_all() == rb.doc_count_all()
        terms = list(ra.all_terms())
        assert terms == list(rb.all_terms())
        schema = ix_a.schema
        for fieldname, text in terms:
            ia, ib = ra.term_info(fieldname, text), rb.term_info(fieldname, text)
            stats = lambda i: (i.weight(), i.doc_frequency(), i.min_length(), i.max_length(),
                               i.max_weight(), i.min_id(), i.max_id())
            assert stats(ia) == stats(ib), (fieldname, text)
            fmt = schema[fieldname].format
            assert (_postings(ra, fieldname, text, fmt)
                    == _postings(rb, fieldname, text, fmt)), (fieldname, text)
        for fieldname in schema.scorable_names():
            assert ra.field_length(fieldname) == rb.field_length(fieldname), fieldname
            for name in ("min_field_length", "max_field_length"):
                assert (_outcome(getattr(ra, name), fieldname)
                        == _outcome(getattr(rb, name), fieldname)), (name, fieldname)
            for doc in range(ra.doc_count_all()):
                assert (ra.doc_field_length(doc, fieldname)
                        == rb.doc_field_length(doc, fieldname)), (fieldname, doc)
        for doc in range(ra.doc_count_all()):
            assert ra.stored_fields(doc) == rb.stored_fields(doc)
        assert list(ra.column_reader("pid")) == list(rb.column_reader("pid"))
    finally:
        ra.close()
        rb.close()


def _nasty_docs() -> list[IndexDocument]:
    long_text = " ".join(["alpha beta", "gamma"] * 40_000)   # positions past 65,536
    repeated = "echo " * 1500 + "delta"                        # over 1,000 positions
    return [
        IndexDocument(1, "Café au lait: ÉCOLE Normale", "Naïve Bayes über alles; façade.",
                      tags=("To Read", " spaced , tag ", "UPPER"), note="A note\nwith lines",
                      comments=("first comment", "second, with comma"),
                      sources=("daily.txt", "daily", "Daily Papers, 2024"),
                      flags=("read", "starred", "note"), authors=("Jane Doe", "Ann Lee Jr."),
                      year=2023, doi="10.1000/XYZ.1",
                      arxiv_id="2401.00001v2", citation_key="Doe2023Cafe",
                      mentions=("https://Example.org/A", "10.5555/abc"),
                      values=(("venue", "Proc. of ICML"),)),
        IndexDocument(2, "", "", source_ids=(3, 4)),                   # nothing to index
        IndexDocument(3, "C++ and C# in 2.5 steps", "We use C++ and C#; v2.5 beats 2.50.",
                      tags=(" , ",)),                                  # an empty tag word
        IndexDocument(4, "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ", "深度 估计 日本語のテキスト " + "x" * 300,
                      flags=("unread",), sources=("tab\tseparated", "nbsp\xa0name")),
        IndexDocument(5, "Long", long_text, year=1999),
        IndexDocument(6, "Echo", repeated, note=repeated),
        IndexDocument(7, "running runs ran", "The runners were running; generalisation.",
                      mentions=("2401.00001v2",), arxiv_id="2401.00001"),
    ]


def test_check_schema_accepts_the_index_schema_only():
    check_schema(build_schema())
    from whoosh.fields import TEXT, Schema
    with pytest.raises(Unsupported):
        check_schema(Schema(title=TEXT))


def test_seed_library_is_written_as_whoosh_writes_it(seeded_library, tmp_path):
    ids = seeded_library.papers.ids()
    docs = list(seeded_library.index.documents(ids).values())
    assert len(docs) == len(ids) > 100
    a, b = _index(tmp_path / "a"), _index(tmp_path / "b")
    whoosh_batch(a, docs, [], [])
    apply_batch(b, docs, [], [])
    assert_same_index(a, b)


@pytest.mark.parametrize("chunk", [262_144, 3])
def test_nasty_documents_are_written_as_whoosh_writes_them(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr("paperdesk.core.search.segment_writer.CHUNK_TOKENS", chunk)
    monkeypatch.setattr("paperdesk.core.search.segment_writer.ANALYSE_CHUNK", chunk)
    docs = _nasty_docs()
    a, b = _index(tmp_path / "a"), _index(tmp_path / "b")
    whoosh_batch(a, docs, [], [])
    apply_batch(b, docs, [], [])
    assert_same_index(a, b)


@pytest.mark.parametrize("chunk", [262_144, 50, 7])
def test_terms_with_many_blocks(tmp_path, monkeypatch, chunk):
    """Terms of over 1,024 postings (several blocks), also when the writer cuts the
    field's tokens into small chunks of whole terms."""
    monkeypatch.setattr("paperdesk.core.search.segment_writer.CHUNK_TOKENS", chunk)
    rng = random.Random(7)
    words = [f"w{i}" for i in range(40)]
    docs = [IndexDocument(i, f"paper {i}",
                          " ".join(rng.choice(words) for _ in range(rng.randint(1, 60)))
                          + " common", tags=("all",) if i % 3 else ("all", "third"))
            for i in range(1, 2600)]      # "common" has 2,599 postings: three blocks
    a, b = _index(tmp_path / "a"), _index(tmp_path / "b")
    whoosh_batch(a, docs, [], [])
    apply_batch(b, docs, [], [])
    assert_same_index(a, b)


def test_searches_agree_with_an_index_written_by_whoosh(seeded_library, tmp_path):
    """Whoosh's own searcher finds the same papers with the same scores in both."""
    docs = list(seeded_library.index.documents(seeded_library.papers.ids()).values())
    a, b = SearchIndex(tmp_path / "a"), SearchIndex(tmp_path / "b")
    whoosh_batch(a._ix, docs, [], [])
    a._refresh()
    b.write(add=docs)
    for query in ("model", "depth estimation", '"neural networks"', "vision -language",
                  "tag:vision", "learn*", "transformer~", '"state of the art"',
                  "author:doe", "is:unread"):
        for fast in (False, True):
            ha, ta, _ = a.search(a.plan(query), limit=None, fast=fast)
            hb, tb, _ = b.search(b.plan(query), limit=None, fast=fast)
            assert ta == tb, query
            assert [(i, round(s, 9)) for i, s in ha] == [(i, round(s, 9)) for i, s in hb]
    assert a.suggest("modle") == b.suggest("modle")


def test_phrases_without_a_pairs_field(tmp_path):
    """Phrases are checked on positions: "university" does not find "universe", and the
    words must be next to each other, in order."""
    idx = SearchIndex(tmp_path / "ix")
    assert "pairs" not in idx._ix.schema
    idx.write(add=[
        IndexDocument(1, "", "the university of the universe"),
        IndexDocument(2, "", "neural networks are networks"),
        IndexDocument(3, "", "networks neural"),
        IndexDocument(4, "", "deep neural networks for depth"),
    ])
    for fast in (True, False):
        def found(q):
            return sorted(i for i, _s in idx.search(idx.plan(q), limit=None, fast=fast)[0])
        assert found('"university"') == [1]
        assert found('"universe"') == [1]
        assert found('"neural networks"') == [2, 4]
        assert found('"deep neural networks"') == [4]
        assert found('"networks neural"') == [3]
        assert found('"the universe"') == [1]
        assert found('"the the"') == []


def test_updates_and_deletes_replace_documents(tmp_path):
    idx = SearchIndex(tmp_path / "ix")
    idx.write(add=[IndexDocument(i, f"t{i}", f"okapi {i}") for i in range(1, 11)])
    idx.write(update=[IndexDocument(3, "t3", "quokka")], delete=[4, 99])
    hits = lambda q: sorted(i for i, _s in idx.search(idx.plan(q), limit=None)[0])
    assert hits("okapi") == [1, 2, 5, 6, 7, 8, 9, 10]
    assert hits("quokka") == [3]
    assert idx.doc_count() == 9
    assert idx.indexed_ids() == set(range(1, 11)) - {4}


def test_small_segments_are_rewritten_from_the_library(tmp_path, monkeypatch):
    monkeypatch.setattr(index_module, "MAX_SMALL_SEGMENTS", 4)
    current = {i: IndexDocument(i, f"t{i}", f"okapi {i}") for i in range(1, 7)}
    idx = SearchIndex(tmp_path / "ix")
    calls = []

    def documents(ids):
        calls.append(sorted(ids))
        return {i: current[i] for i in ids if i in current}

    for i in (1, 2, 3):                                    # three one-paper edits
        idx.write(add=[current[i]], documents=documents)
    assert len(idx.segment_sizes()) == 3 and calls == []
    del current[2]                                         # gone from the library
    current[3] = IndexDocument(3, "t3", "quokka")          # changed, not yet re-indexed
    idx.write(add=[current[4]], documents=documents)       # the fourth small segment
    assert calls == [[1, 2, 3, 4]]
    assert idx.segment_sizes() == [(3, 0)]                 # one segment, from the library
    hits = lambda q: sorted(i for i, _s in idx.search(idx.plan(q), limit=None)[0])
    assert hits("okapi") == [1, 4]
    assert hits("quokka") == [3]


def test_mostly_deleted_segments_are_rewritten(tmp_path, monkeypatch):
    monkeypatch.setattr(index_module, "SMALL_SEGMENT_DOCS", 5)
    docs = {i: IndexDocument(i, f"t{i}", f"okapi {i}") for i in range(1, 21)}
    idx = SearchIndex(tmp_path / "ix")
    idx.write(add=list(docs.values()), documents=lambda ids: {i: docs[i] for i in ids})
    changed = [IndexDocument(i, f"t{i}", f"quokka {i}") for i in range(1, 12)]
    for doc in changed:
        docs[doc.id] = doc
    idx.write(update=changed, documents=lambda ids: {i: docs[i] for i in ids})
    sizes = idx.segment_sizes()
    assert all(deleted == 0 for _n, deleted in sizes)      # 11 of 20 deleted: rewritten
    assert sum(n for n, _d in sizes) == 20
    hits = lambda q: sorted(i for i, _s in idx.search(idx.plan(q), limit=None)[0])
    assert hits("okapi") == list(range(12, 21))
    assert hits("quokka") == list(range(1, 12))


def test_a_failed_segment_leaves_no_files(tmp_path, monkeypatch):
    idx = SearchIndex(tmp_path / "ix")
    idx.write(add=[IndexDocument(1, "t", "okapi")])
    before = sorted(p.name for p in (tmp_path / "ix").iterdir())

    def broken(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("paperdesk.core.search.segment_writer._write_field", broken)
    with pytest.raises(OSError):
        idx.write(add=[IndexDocument(2, "t", "quokka")])
    after = sorted(p.name for p in (tmp_path / "ix").iterdir())
    assert after == before
    assert idx.doc_count() == 1
    assert [i for i, _s in idx.search(idx.plan("okapi"))[0]] == [1]


def test_build_segment_refuses_an_empty_batch(tmp_path):
    ix = _index(tmp_path / "ix")
    with pytest.raises(ValueError):
        build_segment(ix.storage, ix.indexname, ix.schema, [])


def test_multi_term_words_over_many_segments(tmp_path):
    """Prefixes and fuzzy words expand segment by segment (with the Levenshtein automaton
    built once) to the same words as Whoosh's own expansion over the whole index."""
    from whoosh import query as wq
    from paperdesk.core.search.fastscore import expand_words

    idx = SearchIndex(tmp_path / "ix")
    texts = ["network networks netwerk", "nettwork notwork", "networking net",
             "work framework", "neural network"]
    for i, text in enumerate(texts, 1):          # one segment each
        idx.write(add=[IndexDocument(i, "", text)])
    reader = idx._searcher.reader()
    assert len(reader.leaf_readers()) == len(texts)
    for q in (wq.FuzzyTerm("exact", "netwrk", maxdist=2), wq.FuzzyTerm("abstract", "work"),
              wq.Prefix("exact", "net"), wq.Wildcard("exact", "*work")):
        ours = {w if isinstance(w, bytes) else w.encode() for w in expand_words(q, reader)}
        again = {w if isinstance(w, bytes) else w.encode() for w in expand_words(q, reader)}
        whoosh = {w if isinstance(w, bytes) else w.encode() for w in q._btexts(reader)}
        assert ours == whoosh == again and ours, q
