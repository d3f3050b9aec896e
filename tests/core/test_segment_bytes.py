"""The segment writer's array path (issue 28: one-block terms pickled with numpy, term
infos and terms-file entries packed at once, hash tables written per bucket) writes the
same bytes as the per-term path it replaced (``segment_reference``, the writer of commit
5bd3202), for new segments and for merges, on a nasty set of documents; and an index
written either way answers every query shape of the bench with the same hits, scores (to
the bit) and order."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import numpy as np
import pytest
from whoosh.codec.whoosh3 import W3Segment
from whoosh.filedb.filestore import FileStorage
from whoosh.reading import SegmentReader

from segment_reference import use_reference
from test_fastsearch import _synthetic_docs
from test_segment_merge import SHAPES
from test_segment_writer import _nasty_docs

from paperdesk.core.search import segment_writer
from paperdesk.core.search.index import IndexDocument, SearchIndex, build_schema

#: The bench's query shapes (benchmarks/search_bench.QUERIES) with words of these docs.
BENCH_SHAPES = ["model", "zzrare", "depth estimation", '"neural networks"', "transf*",
                "netwrk~", "depth OR width OR attention", "tag:vision depth",
                "is:starred depth", "caf\u00e9", "ecole", "x" * 300, "2.5", "c++",
                "self-supervised", "ell_1", "eq", "12345"]


def _more_nasty_docs() -> list[IndexDocument]:
    """TeX, hyphens, numbers, very long words, empty texts, and words of 1 to 6
    documents with different frequencies (tuples of weights, every tuple opcode)."""
    rng = random.Random(11)
    docs = [
        IndexDocument(20, "Self-supervised pre-training, state-of-the-art",
                      r"We bound $\ell_1$ by \emph{Lemma~2} -- see \cite{x}; "
                      r"{\'e}t{\'e} \% 50\% and $\mathbb{R}^{n}$, eq. (3.14).",
                      tags=("vision",), flags=("starred",)),
        IndexDocument(21, "Numbers", "12345 0 007 3.14159 1e-9 2024-01-02 v2.5 2.5.1 "
                      + "9" * 40, year=2024),
        IndexDocument(22, "x" * 300, ("y" * 300 + " ") * 3 + "x" * 300),
        IndexDocument(23, "", "", note="", comments=("",)),
        IndexDocument(24, "   ", "\n\t  \u00a0 ", authors=("",)),
        IndexDocument(25, "Ünïcödé ﬁligature ǅ İstanbul ß straße", "ΑΒΓ αβγ Ωμέγα "
                      "кириллица 中文 🙂 a\u0301 e\u0300 \u212b"),
    ]
    words = [f"w{i}" for i in range(12)]
    for pid in range(30, 130):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 20)))
        shared = " ".join(f"s{k}" for k in range(6) if pid - 30 < k + 1)
        docs.append(IndexDocument(pid, f"doc {pid} {shared}", text + " " + shared,
                                  tags=("vision",) if pid % 3 else ()))
    return docs


def _docs() -> list[IndexDocument]:
    nasty = _nasty_docs() + _more_nasty_docs()
    seen = {d.id for d in nasty}
    docs = nasty + [d for d in _synthetic_docs(400, start=200) if d.id not in seen]
    docs.append(IndexDocument(9999, "zzrare", "zzrare model"))
    return docs


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _write(folder: Path, docs, blocklimit: int = 1024) -> dict[str, bytes]:
    """The files of one segment of ``docs`` (a fixed id, no compound file)."""
    folder.mkdir()
    storage = FileStorage(str(folder))
    segment_writer.build_segment(storage, "MAIN", build_schema(), docs,
                                 vocab=segment_writer.Vocabulary(), blocklimit=blocklimit)
    return _files(folder)


@pytest.fixture
def fixed_files(monkeypatch):
    """Segments get a fixed id and stay separate files (the compound file's directory
    holds the files' modification times)."""
    monkeypatch.setattr(segment_writer, "fresh_segment_id",
                        lambda storage, name, size=16: "fixedsegmentid00")
    monkeypatch.setattr(W3Segment, "create_compound_file", lambda self, storage: None)


@pytest.mark.parametrize("blocklimit", [1024, 3])
def test_new_segments_are_byte_identical_to_the_per_term_writer(
        tmp_path, monkeypatch, fixed_files, blocklimit):
    docs = _docs()
    new = _write(tmp_path / "new", docs, blocklimit)
    with monkeypatch.context() as m:
        use_reference(m)
        old = _write(tmp_path / "old", docs, blocklimit)
    assert new.keys() == old.keys()
    for name in new:
        assert new[name] == old[name], name


def test_merges_are_byte_identical_to_the_per_term_writer(tmp_path, monkeypatch):
    index = SearchIndex(tmp_path / "ix")
    docs = _docs()
    for k in range(0, len(docs), 150):        # one segment per write
        index.write(add=docs[k:k + 150])
    ix = index._ix
    segments = ix._segments()
    assert len(segments) >= 4
    out = {}
    for name in ("new", "old"):
        with monkeypatch.context() as m:
            if name == "old":
                use_reference(m)
            m.setattr(W3Segment, "create_compound_file", lambda self, storage: None)
            folder = tmp_path / name
            folder.mkdir()
            readers = [SegmentReader(ix.storage, ix.schema, s) for s in segments]
            try:
                segment_writer.merge_segments(FileStorage(str(folder)), "MAIN", ix.schema,
                                              readers, "fixedsegmentid00")
            finally:
                for reader in readers:
                    reader.close()
            out[name] = _files(folder)
    index.close()
    assert out["new"].keys() == out["old"].keys()
    for name in out["new"]:
        assert out["new"][name] == out["old"][name], name


def test_searches_are_identical_to_the_per_term_writer(tmp_path, monkeypatch,
                                                       seeded_library):
    """Every query shape, Whoosh's searcher and the fast path: same hits, same order,
    same scores to the bit, on the seed library's documents and the nasty set."""
    seeds = list(seeded_library.index.documents(seeded_library.papers.ids()).values())
    docs = [d for d in _docs() if d.id > 1000] + _nasty_docs() + _more_nasty_docs()
    docs += [IndexDocument(d.id + 100_000, d.title, d.abstract, d.source_ids, d.tags,
                           flags=d.flags) for d in seeds]
    indexes = {}
    for name in ("new", "old"):
        with monkeypatch.context() as m:
            if name == "old":
                use_reference(m)
            index = SearchIndex(tmp_path / name)
            index.write(add=docs[:300])
            index.write(add=docs[300:])
            indexes[name] = index
    try:
        for query in SHAPES + BENCH_SHAPES:
            new, old = indexes["new"], indexes["old"]
            for fast in (False, True):
                plan_new, plan_old = new.plan(query), old.plan(query)
                if plan_new.query is None:
                    assert plan_old.query is None
                    continue
                got = new.search(plan_new, limit=None, fast=fast)
                want = old.search(plan_old, limit=None, fast=fast)
                assert got[:2] == want[:2], (query, fast)
    finally:
        for index in indexes.values():
            index.close()


def test_small_blocks_are_pickled_as_pickle_does():
    """``_small_bodies`` against ``pickle.dumps((tuple(deltas), w, v), 5)`` and
    ``_pickle_ints`` against pickle's ints, at every size boundary."""
    rng = random.Random(5)
    edges = [0, 1, 255, 256, 65535, 65536, 2**31 - 1]
    ints = np.array(edges + [rng.randrange(2**31) for _ in range(50)], dtype=np.int64)
    buf, sizes = segment_writer._pickle_ints(ints)
    assert buf.tobytes() == b"".join(pickle.dumps(int(x), 2)[2:-1] for x in ints)
    assert sizes.tolist() == [len(pickle.dumps(int(x), 2)) - 3 for x in ints]
    for fmt in ("Positions", "Frequency", "Existence"):
        terms = []
        for _ in range(300):
            n = rng.randint(1, 6)
            deltas = [rng.choice(edges + [rng.randrange(70000)]) for _ in range(n)]
            kind = rng.choice([0, 1, 2]) if n > 1 else rng.choice([0, 1])
            weights = ([1.0] * n if kind == 0 else [2.5] * n if kind == 1
                       else [float(rng.randint(1, 9)) + 0.5 * i for i in range(n)])
            values = [bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
                      for _ in range(n)]
            terms.append((deltas, kind, weights, values))
        n = np.array([len(t[0]) for t in terms], dtype=np.int64)
        deltas = np.array([d for t in terms for d in t[0]], dtype=np.int64)
        weights = np.array([w for t in terms for w in t[2]], dtype=np.float64)
        kinds = np.array([t[1] for t in terms], dtype=np.int64)
        vbuf = vpos = None
        if fmt == "Positions":
            flat = [v for t in terms for v in t[3]]
            lens = np.array([len(v) for v in flat], dtype=np.int64)
            vbuf = np.frombuffer(b"".join(flat), dtype=np.uint8)
            vpos = (np.cumsum(lens) - lens, lens)
        elif fmt == "Frequency":
            vbuf = np.frombuffer(b"".join(bytes([0, 0, 0, len(v)]) * 1
                                          for t in terms for v in t[3]), dtype=np.uint8)
        parts, size = segment_writer._small_bodies(fmt, n, deltas, weights, kinds,
                                                   vbuf, vpos)
        out = np.zeros(int(size.sum()), dtype=np.uint8)
        starts = np.cumsum(size) - size
        segment_writer._scatter(out, starts, parts)
        for j, (d, kind, w, v) in enumerate(terms):
            wv = None if kind == 0 else w[0] if kind == 1 else tuple(w)
            if fmt == "Positions":
                vv = tuple(v)
            elif fmt == "Frequency":
                vv = b"".join(bytes([0, 0, 0, len(x)]) for x in v)
            else:
                vv = None
            want = pickle.dumps((tuple(d), wv, vv), pickle.HIGHEST_PROTOCOL)
            got = out[starts[j]:starts[j] + size[j]].tobytes()
            assert got == want, (fmt, d, wv, vv)
