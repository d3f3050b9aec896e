"""The near-duplicate stage reading a chunk of papers' candidates together (core/edits/
duplicates.py, 2026-12-06 second session): the same pairs (similarity, status) and the
same counts as the stage that looked at one paper after the other (kept here as the
reference, with its candidate count and its regular expression for words), a few
statements per chunk rather than two per paper, and the faster words of ASCII text equal
to those of the regular expression."""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter

import numpy as np
import pytest

from helpers import write_daily
from paperdesk.core import duplicates as measure
from paperdesk.core.clock import utc_now as _now
from paperdesk.core.edits import duplicates as stage
from paperdesk.core.imports.daily_papers import read_file
from paperdesk.core.library import Library
from paperdesk.core.store import db as _db
from paperdesk.core.store import duplicates as store
from paperdesk.core.store.band_runs import token_of

_WORD_RE = re.compile(r"[^\W_]+")
CHUNKED_LOOK_AT = stage.Duplicates._look_at


def regex_words(text: str) -> list[str]:
    """The words as the measure defined them before the ASCII path (the reference)."""
    return _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())


def reference_candidates(db, buckets, paper_id, limit, per_bucket, pending=None,
                         stored=None, bands=None):
    """store.candidates as it was (a Counter over each bucket's papers)."""
    if not buckets:
        return []
    shared: Counter = Counter()
    for bucket in buckets:
        ids = [p for p in stored.get(bucket, ()) if p != paper_id]
        if pending and bucket in pending:
            ids = sorted({*ids, *(p for p in pending[bucket] if p != paper_id)},
                         reverse=True)
        shared.update(ids[:per_bucket])
    return [pid for pid, _n in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


def reference_look_at(self, db, bands, rows, cache, hurry=lambda: False):
    """Duplicates._look_at as it was before the chunks (commit 6ba2d71): one paper after
    the other, a statement for its candidates' signatures and one for their abstracts."""
    flagged = 0
    signed = [(pid, digest, seen, s.shingles, s.buckets, s.signature)
              for (pid, _abstract, digest, seen), s
              in zip(rows, measure.signed_batch([r[1] for r in rows]))]
    now = _now()
    pending, pending_sigs, looked_at = {}, {}, []
    bands.drop(pid for pid, _d, seen, *_rest in signed if seen)
    stored_members = bands.members((b for *_s, buckets, _sig in signed for b in buckets),
                                   measure.PER_BUCKET)
    with _db.transaction(db):
        store.drop_bands(db, [pid for pid, _d, seen, *_rest in signed if seen])
        for pid, digest, seen, sh, buckets, sig in signed:
            found = reference_candidates(db, buckets, pid, measure.MAX_CANDIDATES,
                                         measure.PER_BUCKET, pending, stored_members)
            stored = [f for f in found if f not in pending_sigs]
            sigs = store.signatures(db, stored) if stored else {}
            sigs.update((f, pending_sigs[f]) for f in found if f in pending_sigs)
            ranked = sorted(zip(measure.estimates(sig, list(sigs.values())), sigs)
                            if sigs else [], key=lambda es: (-es[0], es[1]))
            close = [o for est, o in ranked[:measure.MAX_EXACT] if est >= measure.PREFILTER]
            shingled = []
            if close:
                marks = ",".join("?" * len(close))
                for other, other_hash, abstract in db.execute(
                        f"SELECT id, content_hash, abstract FROM papers WHERE id IN ({marks})",
                        close):
                    other_sh = cache.get(other)
                    if other_sh is None:
                        other_sh = _reference_shingles(abstract)
                    shingled.append((other, other_hash, other_sh))
            scored = sorted(((measure.jaccard(sh, other_sh), other, other_hash)
                             for other, other_hash, other_sh in shingled),
                            key=lambda t: (-t[0], t[1]))
            for score, other, other_hash in scored[:measure.MAX_FLAGS]:
                if score >= measure.THRESHOLD and store.flag_pair(
                        db, (pid, digest), (other, other_hash), score, now):
                    flagged += 1
            for bucket in buckets:
                pending.setdefault(bucket, []).append(pid)
            if sig is not None:
                pending_sigs[pid] = sig
            looked_at.append((pid, digest, buckets, sig))
            cache[pid] = sh
            cache.move_to_end(pid)
            while len(cache) > stage.SHINGLE_CACHE:
                cache.popitem(last=False)
            if hurry():
                break
        store.mark_checked_many(db, looked_at)
    banded = [(pid, buckets, sig) for pid, _d, buckets, sig in looked_at if sig is not None]
    if banded:
        bands.add([pid for pid, _b, _s in banded], [b for _p, b, _s in banded],
                  [token_of(s) for _p, _b, s in banded])
    return flagged, len(looked_at)


def _reference_shingles(text: str) -> np.ndarray:
    """shingle_hashes with the regular expression's words (the reference)."""
    return measure._hashed_words(regex_words(text))


@pytest.fixture(scope="module")
def seed_abstracts(seed_files):
    out = []
    for f in seed_files:
        out += [a.abstract for a in read_file(f).abstracts]
    return list(dict.fromkeys(out))


def _sentences(text):
    return re.split(r"(?<=[.!?]) (?=[A-Z])", text)


def recombined(seed_abstracts, n: int, seed: int) -> list[str]:
    """The benchmark's hard case, small: abstracts of 4-7 sentences drawn from a pool of
    60 seed sentences (many pairs share two or three: candidates that pass the signature
    prefilter and are compared exactly), every 15th an edited copy of the one before, a
    crowd of template abstracts over PER_BUCKET, and short, empty-ish and non-ASCII
    ones."""
    pool = [s for a in seed_abstracts[:40] for s in _sentences(a) if len(s) > 20][:60]
    rng = random.Random(seed)
    out, prev = [], []
    for i in range(n):
        if i % 15 == 14 and prev:
            chosen = prev[:]
            chosen[len(chosen) // 2] = rng.choice(pool)
        else:
            chosen = rng.sample(pool, rng.randint(4, 7))
        prev = chosen
        out.append(" ".join(chosen) + f" (paper {seed}-{i})")
    out += [f"We study depth estimation with stereo priors for problem number {i}. Our "
            f"method combines lidar features with a learned depth model and improves "
            f"accuracy on benchmark {i % 7} by a clear margin." for i in range(35)]
    out += ["Transformers.", "!!!", "x " * 30, "Ünïcode Straße ﬁne-tuning of "
            "ＦＵＬＬＷＩＤＴＨ models — a study of café naïve résumé behaviour in many "
            "settings with ﬁve variants and a further one."] * 2
    return out


def _pairs(lib):
    return sorted((p.paper_a, p.paper_b, round(p.similarity, 12), p.status)
                  for p in lib.duplicates.pairs())


def _run(tmp_path, name, imports, monkeypatch, reference: bool, hurry_every=0,
         between=None):
    """Import each list and run the stage after each (the reference or the chunks);
    return the pairs and the counts each stage returned."""
    monkeypatch.setattr(stage.Duplicates, "_look_at",
                        reference_look_at if reference else CHUNKED_LOOK_AT)
    counts = []
    with Library.open(tmp_path / name) as lib:
        for k, texts in enumerate(imports):
            lib.imports.run([write_daily(tmp_path / f"{name}-{k}.txt", texts)])
            polls = iter(range(1, 10**9))
            hurry = (lambda: next(polls) % hurry_every == 0) if hurry_every else None
            counts.append(lib.duplicates.find(hurry=hurry))
            if between is not None:
                between(lib)
        pairs = _pairs(lib)
    return pairs, counts


@pytest.mark.parametrize("batch,chunk,hurry_every", [(200, 32, 0), (200, 1, 0),
                                                      (50, 7, 0), (200, 32, 5)])
def test_chunks_flag_what_one_paper_at_a_time_flags(tmp_path, seed_abstracts, monkeypatch,
                                                    batch, chunk, hurry_every):
    imports = [recombined(seed_abstracts, 260, 1), recombined(seed_abstracts, 200, 2)
               + [measure_edit(t) for t in seed_abstracts[:30]] + seed_abstracts[:30]]

    monkeypatch.setattr(stage, "DUPLICATE_BATCH", batch)
    monkeypatch.setattr(stage, "CHUNK", chunk)
    want, want_counts = _run(tmp_path, "one", imports, monkeypatch, True, hurry_every)
    got, got_counts = _run(tmp_path, "chunks", imports, monkeypatch, False, hurry_every)
    assert len(want) >= 50 and any(s < 0.9 for _a, _b, s, _st in want)
    assert got == want and got_counts == want_counts


def measure_edit(text: str) -> str:
    s = _sentences(text)
    s[len(s) // 2] = "We add a further ablation on three more benchmarks."
    return " ".join(s)


def test_deleted_edited_and_dismissed_candidates_as_one_paper_at_a_time(
        tmp_path, seed_abstracts, monkeypatch):
    """Between two imports some stored papers are deleted, some edited (their stored
    signature no longer theirs) and a pair dismissed: the chunks answer as the
    reference (deleted and edited papers never answer, the dismissed pair stays)."""
    first = recombined(seed_abstracts, 200, 3) + seed_abstracts[:40]
    second = [measure_edit(t) for t in seed_abstracts[:40]] + recombined(seed_abstracts,
                                                                          150, 4)

    def between(lib):
        if lib.duplicates.pending():
            return
        ids = [r[0] for r in lib.db.execute("SELECT id FROM papers ORDER BY id")]
        with lib.db.conn:
            lib.db.execute(f"DELETE FROM papers WHERE id IN ({','.join('?' * 20)})",
                           ids[200:220])
            for pid in ids[220:230]:
                lib.db.execute("UPDATE papers SET abstract = abstract || ' Edited.', "
                               "content_hash = content_hash || 'x' WHERE id = ?", [pid])
        pair = lib.duplicates.pairs()[0]
        lib.duplicates.dismiss(pair.paper_a, pair.paper_b)

    def run(name, reference):
        monkeypatch.setattr(stage.Duplicates, "_look_at",
                            reference_look_at if reference else CHUNKED_LOOK_AT)
        with Library.open(tmp_path / name) as lib:
            lib.imports.run([write_daily(tmp_path / f"{name}-0.txt", first)])
            counts = [lib.duplicates.find()]
            between(lib)
            lib.imports.run([write_daily(tmp_path / f"{name}-1.txt", second)])
            counts.append(lib.duplicates.find())
            out = _pairs(lib) + sorted((p.paper_a, p.paper_b, round(p.similarity, 12),
                                        p.status) for p in lib.duplicates.pairs("dismissed"))
        return out, counts

    want = run("one", True)
    got = run("chunks", False)
    assert got == want and len(want[0]) >= 40


def test_a_chunk_reads_its_candidates_in_a_few_statements(tmp_path, seed_abstracts):
    """The candidates' signatures and abstracts are read once per chunk of CHUNK papers,
    not once per paper (the stage's SQLite queries were 17 % of its CPU at 300,000)."""
    texts = recombined(seed_abstracts, 300, 5)
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([write_daily(tmp_path / "a.txt", texts)])
        statements = []
        lib.db.conn.set_trace_callback(statements.append)
        assert lib.duplicates.find() >= 15
        lib.db.conn.set_trace_callback(None)
    looked = len(texts)
    chunks = -(-looked // stage.CHUNK) + 2
    sig_reads = [s for s in statements if "c.signature" in s and "JOIN papers" in s]
    text_reads = [s for s in statements if "abstract FROM papers WHERE id IN" in s]
    assert 0 < len(sig_reads) <= chunks and len(text_reads) <= chunks


def test_ascii_words_are_the_regular_expression_s(seed_abstracts):
    every = "".join(chr(c) for c in range(128))
    texts = [every, every * 3 + "A_b c__d e-f G9h 9 _ __", "", "   ", "Deep-Learning (DL), "
             "e.g. CNNs!", "ABC\tdef\nGHI\x00jkl\x1fmno", *seed_abstracts[:200]]
    for text in texts:
        assert measure.words(text) == regex_words(text), text
    assert any(not t.isascii() for t in seed_abstracts)      # the other path, too
    for text in seed_abstracts:
        assert measure.words(text) == regex_words(text)


def test_shingle_batch_is_shingle_hashes(seed_abstracts):
    texts = [*seed_abstracts[:50], "", "one", "one two", "one two three", "!!!",
             "Ünïcode ﬁne-tuning café"]
    batch = measure.shingle_batch(texts)
    assert measure.shingle_batch([]) == []
    assert len(batch) == len(texts)
    for text, got in zip(texts, batch):
        want = _reference_shingles(text)
        assert got.dtype == np.uint64 and np.array_equal(got, want)


def test_the_bitmap_bound_is_never_below_the_measure(seed_abstracts):
    texts = recombined(seed_abstracts, 150, 6) + list(seed_abstracts[:60])
    sets = measure.shingle_batch(texts)
    bitmaps = measure.shingle_bitmaps(sets)
    rng = random.Random(9)
    pairs = [(rng.randrange(len(texts)), rng.randrange(len(texts))) for _ in range(3000)]
    pairs += [(k, k + 1) for k in range(len(texts) - 1)]
    bounds = measure.overlap_bound([sets[a] for a, _b in pairs],
                                   bitmaps[[b for _a, b in pairs]])
    exact = np.array([measure.jaccard(sets[a], sets[b]) for a, b in pairs])
    assert (bounds >= exact - 1e-12).all()
    # and it is close: most pairs that merely share sentences are shown below 0.5
    shared = (exact > 0.1) & (exact < 0.4)
    assert shared.sum() > 50 and (bounds[shared] < measure.THRESHOLD).mean() > 0.8
    # an unknown (all-zero) bitmap bounds nothing
    assert (measure.overlap_bound(sets[:5], np.zeros((5, 128), np.uint8)) == 1.0).all()


def test_the_bitmaps_spare_most_exact_checks(tmp_path, seed_abstracts, monkeypatch):
    """With the shingle bitmaps kept beside the bands, most candidates that pass the
    signature prefilter are not read and shingled again (the stage's growing part at
    300,000 papers); the pairs are those of the stage without them."""
    imports = [recombined(seed_abstracts, 300, 7), recombined(seed_abstracts, 200, 8)]
    shingled = []
    real = measure.shingle_batch

    def counting(texts):
        shingled.append(len(texts))
        return real(texts)

    monkeypatch.setattr(measure, "shingle_batch", counting)
    got, got_counts = _run(tmp_path, "bits", imports, monkeypatch, False)
    with_bits = sum(shingled)
    shingled.clear()
    monkeypatch.setattr(stage.BandStore, "bitmaps",
                        lambda self, pids, digests: np.zeros((len(pids), 128), np.uint8))
    want, want_counts = _run(tmp_path, "nobits", imports, monkeypatch, False)
    without = sum(shingled)
    assert got == want and got_counts == want_counts and len(want) >= 20
    assert without > 200 and with_bits < without / 4


def test_a_bitmap_answers_only_for_its_abstract(tmp_path):
    from paperdesk.core.store import band_runs
    bands = band_runs.BandStore(tmp_path / "lib")
    sets = measure.shingle_batch(["alpha beta gamma delta epsilon zeta eta theta iota kappa",
                                  "one two three four five six seven eight nine ten"])
    bits = measure.shingle_bitmaps(sets)
    bands.add([3, 8], [[1] * measure.BANDS, [2] * measure.BANDS], [11, 12], bits,
              [band_runs.hash_digest("h3"), band_runs.hash_digest("h8")])
    bands.add([5], [[4] * measure.BANDS], [13])                  # from a signature: unknown
    got = bands.bitmaps([8, 3, 5, 99], [band_runs.hash_digest(h)
                                        for h in ("h8", "other", "h5", "h99")])
    assert np.array_equal(got[0], bits[1]) and not got[1:].any()
    bands.save()
    again = band_runs.BandStore(tmp_path / "lib").load()
    assert again.problem is None
    got = again.bitmaps([3, 8], [band_runs.hash_digest("h3"), band_runs.hash_digest("h8")])
    assert np.array_equal(got, bits)
    assert band_runs.full_problems(tmp_path / "lib") == []


def test_a_band_store_without_bitmaps_still_answers(tmp_path, seed_abstracts, monkeypatch):
    """A store written before the bitmaps (runs without bits-N.npy) is kept and used;
    its papers are compared exactly as before: the same pairs."""
    import json
    from paperdesk.core.store import band_runs
    first, second = recombined(seed_abstracts, 200, 10), recombined(seed_abstracts, 150, 11)
    want, _c = _run(tmp_path, "whole", [first, second], monkeypatch, False)

    def strip(lib):
        folder = lib.path / band_runs.FOLDER
        meta = json.loads((folder / "meta.json").read_text())
        for name in [n for n in meta["files"] if n.startswith("bits-")]:
            del meta["files"][name]
            (folder / name).unlink()
        (folder / "meta.json").write_text(json.dumps(meta))
        assert band_runs.BandStore(lib.path).load().problem is None

    got, _c = _run(tmp_path, "old", [first, second], monkeypatch, False, between=strip)
    assert got == want
