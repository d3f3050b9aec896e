"""Near-duplicate abstracts: the measure on edited seed abstracts, the stage at import,
"not duplicates", merging and its undo."""

from __future__ import annotations

import collections
import itertools
import json
import re
import sqlite3

import numpy as np
import pytest
import sqlite_utils

from helpers import write_daily
from paperdesk.core import duplicates as measure
from paperdesk.core.imports.daily_papers import read_file
from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError
from paperdesk.core.store.schema import MIGRATIONS, SCHEMA_VERSION


def band_rows(lib) -> list[tuple[int, int]]:
    """``(bucket, paper_id)`` of every paper's bands, computed from the signatures SQLite
    keeps (what the band store must answer with)."""
    rows = []
    for pid, sig in lib.db.execute("SELECT paper_id, signature FROM duplicate_checked "
                                   "WHERE signature IS NOT NULL"):
        rows += [(b, pid) for b in measure.band_hashes(np.frombuffer(sig, dtype="<u4"))]
    return sorted(set(rows))


@pytest.fixture(scope="module")
def seed_abstracts(seed_files):
    out = []
    for f in seed_files:
        out += [a.abstract for a in read_file(f).abstracts]
    return list(dict.fromkeys(out))


def sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?]) (?=[A-Z])", text)


def changed_sentence(text: str) -> str:
    s = sentences(text)
    s[len(s) // 2] = ("We additionally report an ablation on three further benchmarks "
                      "that confirms these findings.")
    return " ".join(s)


def other_punctuation(text: str) -> str:
    return (text.replace(", ", "; ").replace(". ", "! ").replace("-", " ")
            .replace("(", "[").replace(")", "]"))


def version_2(text: str) -> str:
    s = sentences(text)
    s.insert(len(s) - 1, "In this revised version we also include results on a larger "
                         "model and correct an error in the proof of the main theorem.")
    return " ".join(s)


EDITS = {"changed sentence": changed_sentence, "punctuation": other_punctuation,
         "arXiv v2 with an added sentence": version_2}


# -- the measure -------------------------------------------------------------------------
def test_words_drop_punctuation_and_case():
    assert measure.words("Deep-Learning (DL), e.g. CNNs!") == ["deep", "learning", "dl",
                                                               "e", "g", "cnns"]
    assert measure.shingles("") == frozenset()
    assert measure.shingles("two words") == frozenset(["two words"])
    assert measure.similarity("", "") == 0.0


def test_chinese_and_japanese_abstracts_one_word_apart_are_flagged():
    """A tester's try: a clause was one word, so two Chinese abstracts one word apart
    (基础 → 基本) shared no shingle and were never flagged; English ones were (0.85).
    Each ideograph is a word now, as in the search index."""
    zh = ("单目深度估计是三维场景理解的基础问题。本文提出一种多尺度特征融合网络，从单张彩色"
          "图像预测稠密深度图。在公开数据集上，绝对相对误差降低了百分之十二。")
    ja = ("本研究では、単眼画像から深度を推定する新しい手法を提案する。提案手法は既存手法より"
          "高精度であり、実時間で動作することを実験により示した。")
    assert measure.words("深度学习 model") == ["深", "度", "学", "习", "model"]
    assert measure.similarity(zh, zh.replace("基础", "基本")) >= measure.THRESHOLD
    assert measure.similarity(ja, ja.replace("新しい", "新たな")) >= measure.THRESHOLD
    assert measure.similarity(zh, ja) < 0.1


@pytest.mark.parametrize("edit", list(EDITS))
def test_edited_seed_abstracts_are_flagged(seed_abstracts, edit):
    for text in seed_abstracts[:40]:
        edited = EDITS[edit](text)
        assert edited != text
        assert measure.similarity(text, edited) >= measure.THRESHOLD, (edit, text[:60])


def test_no_two_seed_abstracts_are_near_duplicates(seed_abstracts):
    shingled = [measure.shingles(t) for t in seed_abstracts]
    worst = max(measure.jaccard(a, b) for a, b in itertools.combinations(shingled, 2))
    assert len(seed_abstracts) == 225
    assert worst < 0.2 < measure.THRESHOLD


def test_two_papers_of_one_series_are_not_flagged(seed_abstracts):
    series = [t for t in seed_abstracts if "Commutative Scaling of Width and Depth" in t
              or t.startswith("We show that taking the width and depth to infinity")]
    assert len(series) == 2
    assert 0.05 < measure.similarity(*series) < measure.THRESHOLD


def test_hashed_shingles_give_the_same_similarity_as_the_shingles(seed_abstracts):
    """The stage compares 64-bit shingle hashes (shingle_hashes); on the seed abstracts,
    their edited copies and short texts the similarity is exactly that of the shingles'
    text, and a set of shingles signs as its text's hashes do."""
    texts = seed_abstracts[:30] + [EDITS[e](t) for e in EDITS for t in seed_abstracts[:5]]
    texts += ["one", "two words", "one two", "three small words", ""]
    hashed = [measure.shingle_hashes(t) for t in texts]
    shingled = [measure.shingles(t) for t in texts]
    for h, sh in zip(hashed, shingled):
        assert len(h) == len(sh) and h.dtype == np.uint64
    for i, j in itertools.combinations(range(len(texts)), 2):
        assert measure.jaccard(hashed[i], hashed[j]) == measure.jaccard(shingled[i],
                                                                        shingled[j])
    assert (measure.signature(shingled[0]) == measure.signature(hashed[0])).all()


def test_candidates_read_each_bucket_with_its_own_limit(tmp_path, seed_files):
    """One statement for all of a paper's buckets gives what one query per bucket gave."""
    from paperdesk.core.store import duplicates as store

    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files)
        lib.duplicates.find()
        rows = band_rows(lib)
        assert len(rows) > 1000
        by_bucket: dict[int, list[int]] = {}
        for bucket, pid in rows:
            by_bucket.setdefault(bucket, []).append(pid)
        some = [b for b, ids in by_bucket.items() if len(ids) > 1][:5] + [rows[0][0]]
        for per_bucket in (1, 2, 25):
            for pid in (0, rows[0][1]):
                shared = collections.Counter()
                for b in some:
                    shared.update(sorted((p for p in by_bucket[b] if p != pid),
                                         reverse=True)[:per_bucket])
                want = [p for p, _n in sorted(shared.items(),
                                              key=lambda kv: (-kv[1], kv[0]))][:100]
                assert store.candidates(lib.db, some, pid, 100, per_bucket) == want


def test_a_batch_is_signed_as_each_abstract_alone(seed_abstracts):
    """signed_batch gives each abstract's shingles, signature and bands to the bit (the
    stored band hashes of SIGNATURE_VERSION must not change), short and empty texts
    included, wherever they fall in the batch."""
    edge = ["", "one", "two words", "three words here", "!!! ??", "w " * 12,
            "a b a b a b a b a b a b", " ".join(f"w{i}" for i in range(10)),
            "Ünïcödé ﬁ x-y z " * 3]
    texts = list(seed_abstracts[:60]) + edge
    texts = texts[::2] + edge + texts[1::2]          # short ones at the ends and inside
    batch = measure.signed_batch(texts)
    assert len(batch) == len(texts) and measure.signed_batch([]) == []
    for text, got in zip(texts, batch):
        want = measure.shingle_hashes(text)
        assert got.shingles.dtype == np.uint64 and np.array_equal(got.shingles, want)
        sig = measure.signature(want)
        if sig is None:
            assert got.signature is None and got.buckets == []
        else:
            assert got.signature == measure.signature_bytes(sig)
            assert got.buckets == measure.band_hashes(sig)
    # the 8 edge texts under MIN_SHINGLES distinct shingles (all but the ten w-words) are
    # unsigned, each twice; every seed abstract is signed
    assert sum(s.signature is None for s in batch) == 2 * 8


def test_minhash_agrees_with_jaccard(seed_abstracts):
    text = seed_abstracts[3]
    a, b = measure.shingles(text), measure.shingles(changed_sentence(text))
    sa, sb = measure.signature(a), measure.signature(b)
    estimate = float((sa == sb).mean())
    assert abs(estimate - measure.jaccard(a, b)) < 0.15
    assert set(measure.band_hashes(sa)) & set(measure.band_hashes(sb))
    assert measure.signature(frozenset()) is None
    # the same on every run: fixed seeds
    assert measure.band_hashes(sa) == measure.band_hashes(measure.signature(a))
    assert all(-2**31 <= h < 2**31 for h in measure.band_hashes(sa))


def test_word_diff_marks_both_sides():
    left, right = measure.word_diff("Deep nets learn fast features.",
                                    "Deep networks learn fast, robust features.")
    assert "".join(t for _k, t in left) == "Deep nets learn fast features."
    assert "".join(t for _k, t in right) == "Deep networks learn fast, robust features."
    assert ("removed", "nets") in left
    assert [t for k, t in right if k == "added"] == ["networks", "fast, robust"]
    assert measure.word_diff("", "") == ([], [])


# -- the stage ---------------------------------------------------------------------------
@pytest.fixture
def edited_file(tmp_path, seed_abstracts):
    """Edited copies of three seed abstracts (one per kind of edit)."""
    texts = [EDITS[e](seed_abstracts[i]) for i, e in zip((5, 17, 60), EDITS)]
    return write_daily(tmp_path / "edited.txt", texts), texts


def test_the_stage_flags_edited_copies_at_import(seeded_library, edited_file,
                                                 seed_abstracts):
    lib = seeded_library
    assert lib.duplicates.pending() == 225       # a library from before: unchecked
    assert lib.duplicates.find() == 0            # the seeds: no pair
    assert lib.duplicates.pending() == 0
    path, texts = edited_file
    report = lib.imports.run([path])
    assert report.added == 3 and report.near_duplicates == 0   # the stage runs after
    seen = []
    assert lib.duplicates.find(
        progress=lambda *a: seen.append(a)) == 3
    assert seen[-1] == ("duplicates", 3, 3)
    pairs = lib.duplicates.pairs()
    assert len(pairs) == 3 and lib.duplicates.count() == 3
    originals = {lib.papers.get(p.paper_a).abstract for p in pairs}
    assert originals == {seed_abstracts[i] for i in (5, 17, 60)}
    assert {lib.papers.get(p.paper_b).abstract for p in pairs} == set(texts)
    assert all(measure.THRESHOLD <= p.similarity <= 1 for p in pairs)
    assert pairs[0].similarity == 1.0           # the punctuation edit comes first
    assert pairs[0].title_a and pairs[0].to_dict()["similarity"] == 1.0
    # re-importing and re-running change nothing
    again = lib.imports.run([path])
    assert again.added == 0
    assert lib.duplicates.find() == 0
    assert lib.duplicates.pairs() == pairs


def test_the_stage_resumes_after_cancel(seeded_library, edited_file):
    lib = seeded_library
    lib.imports.run([edited_file[0]])
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 1          # one batch, then stop

    first = lib.duplicates.find(cancel=cancel)
    assert lib.duplicates.pending() == 228 - 200
    assert first + lib.duplicates.find() == 3
    assert lib.duplicates.pending() == 0


def test_the_stage_keeps_no_word_hashes_when_it_ends(seeded_library, edited_file,
                                                     monkeypatch):
    """The stage's word-hash cache (a million words at most, filled with every distinct
    word of the papers looked at) is emptied when it ends, done or cancelled, and the
    freed memory given back: the window runs the stage and lives on after it."""
    lib = seeded_library
    trims = []
    monkeypatch.setattr("paperdesk.core.edits.duplicates.give_back_memory",
                        lambda: trims.append(1) or True)
    polls = []
    lib.duplicates.find(cancel=lambda: polls.append(1) or len(polls) > 1)
    assert lib.duplicates.pending() == 225 - 200
    assert measure._WORD_HASHES == {} and trims == [1]     # cancelled after a batch
    assert measure.shingle_hashes("some words to hash again here").size == 4
    assert len(measure._WORD_HASHES) == 6                   # filled while hashing ...
    lib.imports.run([edited_file[0]])
    assert lib.duplicates.find() == 3
    assert measure._WORD_HASHES == {} and trims == [1, 1]  # ... emptied at the end


def test_the_stage_ends_a_batch_early_when_an_edit_waits(seeded_library, edited_file):
    """``hurry`` (the window: an edit is queued for the writer) ends the batch after the
    paper being looked at, so the edit runs after one paper, not after 200; the stage
    then goes on where it stopped and finds the same pairs."""
    lib = seeded_library
    lib.imports.run([edited_file[0]])
    polls, boundaries = [], []
    flagged = lib.duplicates.find(hurry=lambda: polls.append(1) or len(polls) % 7 == 0,
                                  between_batches=lambda: boundaries.append(1))
    assert flagged == 3 and lib.duplicates.pending() == 0 and len(lib.duplicates.pairs()) == 3
    assert len(boundaries) > 228 // 200 + 1          # more, smaller batches
    lib2_boundaries = []
    assert lib.duplicates.find(hurry=lambda: True,
                               between_batches=lambda: lib2_boundaries.append(1)) == 0


def test_dismissed_pairs_stay_dismissed(seeded_library, edited_file, tmp_path):
    lib = seeded_library
    lib.imports.run([edited_file[0]])
    lib.duplicates.find()
    pair = lib.duplicates.pairs()[0]
    changes = lib.duplicates.dismiss(pair.paper_b, pair.paper_a)
    assert changes.duplicates and lib.duplicates.count() == 2
    assert lib.undo_label == f"Not duplicates: papers {pair.paper_a} and {pair.paper_b}"
    assert [p.paper_a for p in lib.duplicates.pairs("dismissed")] == [pair.paper_a]
    assert not lib.duplicates.dismiss(pair.paper_a, pair.paper_b)      # already
    lib.undo()
    assert lib.duplicates.count() == 3
    lib.redo()
    assert lib.duplicates.count() == 2
    path = lib.path
    lib.close()
    with Library.open(path) as again:         # persists, and is not flagged again
        again.imports.run([edited_file[0]])
        assert again.duplicates.find() == 0
        assert again.duplicates.count() == 2
        with pytest.raises(LibraryError, match="not flagged"):
            again.duplicates.dismiss(1, 2)
        with pytest.raises(LibraryError, match="itself"):
            again.duplicates.dismiss(1, 1)
        with pytest.raises(LibraryError, match="no paper"):
            again.duplicates.dismiss(1, 99999)


def test_a_changed_abstract_is_looked_at_again(tmp_path, seed_abstracts):
    with Library.open(tmp_path / "lib") as lib:
        bib = tmp_path / "t.bib"
        bib.write_text("@article{a, title={Depth and width}, doi={10.1234/xyz}}\n",
                       encoding="utf-8")
        write_daily(tmp_path / "s.txt", [seed_abstracts[0]])
        lib.imports.run([tmp_path / "s.txt", bib])
        assert lib.duplicates.find() == 0
        # the title-only paper takes an edited copy of the seed abstract as its own
        bib.write_text("@article{a, title={Depth and width}, doi={10.1234/xyz}, abstract={"
                       + version_2(seed_abstracts[0]) + "}}\n", encoding="utf-8")
        report = lib.imports.run([bib])
        assert report.enriched == 1
        assert lib.duplicates.pending() == 1
        assert lib.duplicates.find() == 1


def test_empty_and_short_abstracts(tmp_path):
    with Library.open(tmp_path / "lib") as lib:
        bib = tmp_path / "t.bib"
        bib.write_text("@article{a, title={Only a title}}\n@article{b, title={Another "
                       "title}}\n", encoding="utf-8")
        write_daily(tmp_path / "s.txt", ["Short text.", "Short text!", "Other text."])
        lib.imports.run([bib, tmp_path / "s.txt"])
        # Titles only are never compared, and neither are abstracts too short to say
        # anything ("Short text." and "Short text!" are not one paper).
        assert lib.duplicates.find() == 0
        assert lib.duplicates.pairs() == []
        write_daily(tmp_path / "t.txt", ["One Word.", "One word!"])
        lib.imports.run([tmp_path / "t.txt"])
        assert lib.duplicates.find() == 0


# -- the schema --------------------------------------------------------------------------
def test_a_version_4_library_migrates_to_5(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    db = sqlite_utils.Database(folder / "library.db")
    for step in MIGRATIONS[:4]:
        step(db)
    db.execute("PRAGMA user_version = 4")
    for pid, text in ((3, "Deep residual networks learn identity maps well in practice, "
                          "as we show on three benchmarks."),
                      (4, "Deep residual networks learn identity maps well, in practice; "
                          "as we show on three benchmarks!")):
        db.execute("INSERT INTO papers (id, content_hash, title, derived_title, abstract, "
                   "added_at, starred, citation_key) VALUES (?, ?, 't', 't', ?, "
                   "'2026-01-02T03:04:05Z', 0, ?)", [pid, f"h{pid}", text, f"k{pid}"])
    db.conn.commit()
    db.conn.close()
    with Library.open(folder) as lib:
        assert lib.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 5
        assert lib.duplicates.pending() == 2
        assert lib.duplicates.find() == 1
        assert [(p.paper_a, p.paper_b) for p in lib.duplicates.pairs()] == [(3, 4)]
    backups = list((folder / "backups").glob("library-v4-*.db"))
    assert len(backups) == 1
    old = sqlite3.connect(backups[0])
    assert old.execute("PRAGMA user_version").fetchone()[0] == 4
    old.close()


def test_deleting_a_paper_drops_its_bands_but_keeps_the_pair_for_undo(seeded_library,
                                                                      edited_file):
    lib = seeded_library
    lib.imports.run([edited_file[0]])
    lib.duplicates.find()
    pair = lib.duplicates.pairs()[0]
    lib.duplicates.dismiss(pair.paper_a, pair.paper_b)
    row = lib.db.execute("SELECT * FROM papers WHERE id = ?", [pair.paper_b]).fetchone()
    with lib.db.conn:
        lib.db.execute("DELETE FROM papers WHERE id = ?", [pair.paper_b])
    from paperdesk.core.store import band_runs

    bands = band_runs.BandStore(lib.path).load()
    assert pair.paper_b in bands.papers().tolist()       # on disk until the next stage
    bands.sync(lib.db)
    assert pair.paper_b not in bands.papers().tolist()
    assert all(pair.paper_b not in ids for ids in bands.members(
        [b for b, _p in band_rows(lib)], 100).values())
    assert lib.duplicates.pairs("dismissed") == []
    # put back as an undo of a deletion would: same id, same abstract
    marks = ",".join("?" * len(row))
    with lib.db.conn:
        lib.db.execute(f"INSERT INTO papers VALUES ({marks})", list(row))
    assert lib.duplicates.pending() == 1
    assert lib.duplicates.find() == 0         # known pair: still dismissed
    assert [p.paper_b for p in lib.duplicates.pairs("dismissed")] == [pair.paper_b]


def test_import_report_json_has_the_count():
    from paperdesk.core.models import ImportReport

    assert json.loads(json.dumps(ImportReport(near_duplicates=2).to_dict()))[
        "near_duplicates"] == 2


# -- merging -----------------------------------------------------------------------------
def _state(lib, pid):
    """Everything about a paper that a merge touches, for exact comparison."""
    p = lib.papers.get(pid)
    return (p.title, p.derived_title, p.abstract, p.added_at, p.read_at, p.starred,
            p.citation_key, p.metadata, tuple(t.name for t in p.tags), p.note,
            tuple((h.id, h.start, h.end, h.colour, h.comment, h.created_at)
                  for h in p.highlights),
            tuple((s.source_id, s.position) for s in p.sources))


@pytest.fixture
def a_pair(seeded_library, tmp_path, seed_abstracts):
    """A seed paper (tagged, noted, highlighted, starred) and an edited copy of it
    (its own tag, note, highlights, read mark and metadata), flagged as a pair."""
    from paperdesk.core.models import Author, Metadata

    lib = seeded_library
    original = seed_abstracts[5]
    edited = version_2(changed_sentence(original))
    path = write_daily(tmp_path / "v2.txt", [edited])
    (new,) = lib.imports.run([path]).added_ids
    lib.duplicates.find()
    (old,) = [p.paper_a for p in lib.duplicates.pairs() if p.paper_b == new]
    lib.tags.add([old], "depth")
    lib.tags.add([old, new], "shared")
    lib.tags.add([new], "v2")
    lib.notes.set(old, "Read this first.")
    lib.notes.set(new, "The second version adds a proof fix.")
    lib.papers.set_starred([old], True)
    lib.papers.set_read([new], True)
    lib.papers.set_metadata(new, Metadata(authors=(Author("Doe", "Jane"),), date="2024-05",
                                   arxiv_id="2405.01234"))
    lib.papers.set_title(new, "A real title from arXiv")
    first_words = edited[:40]                       # same text, same place in both
    lib.notes.add_highlight(new, 0, 40, comment="opening")
    lib.notes.add_highlight(old, 0, 40)                   # the kept paper has this span
    added = "In this revised version we also include results"
    at = edited.index(added)
    lib.notes.add_highlight(new, at, at + len(added), comment="new in v2")   # not in the old
    sentence = "We additionally report an ablation"
    at = edited.index(sentence)
    lib.notes.add_highlight(new, at, at + len(sentence))   # not in the old either
    words = original.split()
    shared = " ".join(words[-6:-2])                  # near the end: offsets differ
    at = edited.index(shared)
    lib.notes.add_highlight(new, at, at + len(shared), colour="#a5d8ff")
    assert first_words == original[:40]
    return lib, old, new, shared


def test_merge_combines_everything_and_undo_restores_both(a_pair):
    lib, old, new, shared = a_pair
    before = {old: _state(lib, old), new: _state(lib, new)}
    pairs_before = lib.duplicates.pairs()
    assert lib.duplicates.merge_preview(old, new).lost == 2
    changes = lib.duplicates.merge(old, new)
    assert changes.duplicates and changes.sources and {old, new} <= changes.papers
    assert lib.undo_label == f"Merge paper {new} into {old}"
    kept = lib.papers.get(old)
    with pytest.raises(LibraryError):
        lib.papers.get(new)
    assert [t.name for t in kept.tags] == ["depth", "shared", "v2"]
    assert kept.note.startswith("Read this first.\n\n---\n\nNote of the merged paper "
                                "“A real title from arXiv”:\n\nThe second version")
    assert "> In this revised version we also include results\n\nnew in v2" in kept.note
    assert "> We additionally report an ablation" in kept.note
    texts = {(h.text, h.colour) for h in kept.highlights}
    assert (shared, "#a5d8ff") in texts                      # re-anchored
    assert len([h for h in kept.highlights if h.start == 0]) == 1   # not doubled
    assert all(kept.abstract[h.start:h.end] == h.text for h in kept.highlights)
    assert kept.metadata.authors[0].family == "Doe" and kept.metadata.arxiv_id == "2405.01234"
    assert kept.title == "A real title from arXiv"          # the kept one was derived
    assert kept.starred and kept.read
    assert kept.abstract == before[old][2] and kept.citation_key == before[old][6]
    assert {s.name for s in kept.sources} == {"000_0e030c9c72617eee.txt", "v2.txt"}
    assert lib.duplicates.pairs() == [p for p in pairs_before if new not in
                                     (p.paper_a, p.paper_b)]
    # the index follows: the merged paper is gone, the kept one found by the other's tag
    assert lib.search.find("tag:v2").total == 1 and lib.search.find("tag:v2").hits[0].id == old
    assert lib.search.find('"second version adds a proof fix"').hits[0].id == old
    assert lib.index.whoosh.doc_count() == lib.papers.count() == 225
    lib.undo()
    assert {old: _state(lib, old), new: _state(lib, new)} == before
    assert lib.duplicates.pairs() == pairs_before
    assert lib.search.find("tag:v2").hits[0].id == new and lib.search.find("tag:v2").total == 1
    assert lib.index.whoosh.doc_count() == 226
    lib.redo()
    assert _state(lib, old) != before[old] and lib.papers.count() == 225
    lib.undo()
    assert {old: _state(lib, old), new: _state(lib, new)} == before


def test_merging_the_other_way_keeps_the_other_abstract(a_pair):
    lib, old, new, _shared = a_pair
    edited = lib.papers.get(new).abstract
    lib.duplicates.merge(new, old)
    kept = lib.papers.get(new)
    assert kept.abstract == edited and kept.title == "A real title from arXiv"
    assert kept.note.startswith("The second version adds a proof fix.\n\n---\n\n")
    assert kept.starred and [t.name for t in kept.tags] == ["depth", "shared", "v2"]
    # re-importing either file adds nothing (the merged-away abstract leads to the kept
    # paper), and the stage flags nothing
    for source in kept.sources:
        report = lib.imports.run([source.path])
        assert report.added == 0, source.name
    assert lib.papers.count() == 225 and lib.duplicates.find() == 0
    assert _state(lib, new)[2] == edited
    lib.undo()                                # the merge; the merged-away hash is free
    assert lib.db.execute("SELECT count(*) FROM merged_hashes").fetchone()[0] == 0


def test_merge_refuses_unknown_or_same_papers(seeded_library):
    lib = seeded_library
    with pytest.raises(LibraryError, match="itself"):
        lib.duplicates.merge(3, 3)
    with pytest.raises(LibraryError, match="no paper"):
        lib.duplicates.merge(3, 999999)
    assert lib.papers.count() == 225 and lib.undo_label is None


def test_merge_plan_without_notes_or_highlights(seeded_library):
    lib = seeded_library
    plan = lib.duplicates.merge_preview(1, 2)
    assert plan.note == "" and plan.highlights == () and plan.lost == 0
    assert plan.summary() == "nothing else to combine"


def test_merge_says_what_moved_to_the_kept_paper(a_pair, capsys):
    """The tester merged a paper with a note and was told only "1 tag(s) added": the
    message says the note, tags and highlights moved, what the kept paper gained, and
    the highlights that could not be placed; the command line prints it."""
    from paperdesk.cli import main

    lib, old, new, _shared = a_pair
    plan = lib.duplicates.merge_preview(old, new)
    assert plan.summary() == (
        "its note, 1 tag and 1 highlight moved; now read; filled in title, authors, date, "
        "arXiv id; 2 highlights not in the kept abstract (quoted in the note)")
    lib.notes.set(old, "")
    lib.papers.set_read([old], True)
    assert lib.duplicates.merge_preview(old, new).summary().startswith(
        "its note, 1 tag and 1 highlight moved; filled in ")
    lib.notes.set(new, "")
    lib.tags.remove([new], "v2")
    assert lib.duplicates.merge_preview(old, new).summary().startswith(
        "1 highlight moved; filled in ")
    path = lib.path
    lib.notes.set(new, "Kept for the proof fix.")
    lib.close()
    assert main(["--library", str(path), "duplicates", "merge", str(old), str(new)]) == 0
    assert capsys.readouterr().out.startswith(
        f"merged paper {new} into paper {old}: its note and 1 highlight moved; filled in ")
    with Library.open(path) as reopened:
        assert reopened.papers.get(old).note.startswith("Kept for the proof fix.")


def test_the_stage_for_given_ids_only(seeded_library, edited_file):
    lib = seeded_library
    lib.duplicates.find()
    new = lib.imports.run([edited_file[0]]).added_ids
    assert lib.duplicates.find(ids=[]) == 0
    assert lib.duplicates.find(ids=[new[0], 10**12]) == 1    # unknown ids: nothing
    assert lib.duplicates.pending() == 2
    assert lib.duplicates.find(ids=range(1, 2000)) == 2


# -- the command line --------------------------------------------------------------------
def test_cli_import_lists_and_dismisses(tmp_path, seed_files, edited_file, capsys):
    from paperdesk.cli import main

    lib = str(tmp_path / "cli-lib")
    assert main(["--library", lib, "import", *map(str, seed_files)]) == 0
    capsys.readouterr()
    assert main(["--library", lib, "import", str(edited_file[0]), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["added"] == 3 and report["near_duplicates"] == 3
    assert main(["--library", lib, "duplicates", "--json"]) == 0
    pairs = json.loads(capsys.readouterr().out)
    assert len(pairs) == 3 and {"paper_a", "paper_b", "similarity", "title_a",
                                "title_b", "status"} <= pairs[0].keys()
    assert main(["--library", lib, "duplicates"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 6 and out[0].split()[:2] == [str(pairs[0]["paper_a"]),
                                                    str(pairs[0]["paper_b"])]
    a, b = pairs[0]["paper_a"], pairs[0]["paper_b"]
    assert main(["--library", lib, "duplicates", "dismiss", str(b), str(a)]) == 0
    assert capsys.readouterr().out == f"papers {a} and {b}: not duplicates\n"
    # a pair dismissed as "not duplicates" is not merged without --force (the tester)
    assert main(["--library", lib, "duplicates", "merge", str(a), str(b)]) == 1
    assert "not an open pair" in capsys.readouterr().err
    assert main(["--library", lib, "duplicates", "dismiss", str(a), str(a)]) == 1
    assert capsys.readouterr().err == f"paperdesk: paper {a} cannot be a duplicate of itself\n"
    assert main(["--library", lib, "import", str(edited_file[0])]) == 0
    assert "near-duplicate" not in capsys.readouterr().out      # nothing new
    c, d = pairs[1]["paper_a"], pairs[1]["paper_b"]
    assert main(["--library", lib, "duplicates", "merge", str(c), str(d)]) == 0
    assert capsys.readouterr().out.startswith(f"merged paper {d} into paper {c}: ")
    assert main(["--library", lib, "duplicates", "--json"]) == 0
    assert [p["paper_a"] for p in json.loads(capsys.readouterr().out)] == [
        pairs[2]["paper_a"]]



def test_cli_merge_of_an_unflagged_pair_needs_force(tmp_path, seed_files, capsys):
    """A command's merge cannot be undone: two papers that are not a flagged pair (a
    mistyped id) are refused without --force (found by the tester: any two merged)."""
    from paperdesk.cli import main

    lib = str(tmp_path / "cli-lib")
    assert main(["--library", lib, "import", str(seed_files[0])]) == 0
    capsys.readouterr()
    with Library.open(lib) as opened:
        before = opened.papers.count()
    assert main(["--library", lib, "duplicates", "merge", "1", "2"]) == 1
    err = capsys.readouterr().err
    assert err == ("paperdesk: papers 1 and 2 are not an open pair of possible duplicates "
                   "(see `paperdesk duplicates`); a command's merge cannot be undone: add "
                   "--force to merge them anyway\n")
    with Library.open(lib) as opened:
        assert opened.papers.count() == before
    assert main(["--library", lib, "duplicates", "merge", "1", "2", "--force"]) == 0
    assert capsys.readouterr().out.startswith("merged paper 2 into paper 1: ")
    with Library.open(lib) as opened:
        assert opened.papers.count() == before - 1

def test_a_crowd_of_templated_abstracts_is_bounded(tmp_path):
    """Abstracts from one template are near-duplicates of one another: each new paper
    flags at most MAX_FLAGS pairs (its most similar), so the list is not flooded."""
    texts = [f"We study depth estimation with stereo priors for problem number {i}. Our "
             f"method combines lidar features with a learned depth model and improves "
             f"accuracy on benchmark {i % 7} by a clear margin." for i in range(300)]
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run([write_daily(tmp_path / "t.txt", texts)])
        flagged = lib.duplicates.find()
        assert 300 <= flagged <= 300 * measure.MAX_FLAGS
        per_paper = {}
        for p in lib.duplicates.pairs():
            assert p.similarity >= measure.THRESHOLD
            per_paper[p.paper_b] = per_paper.get(p.paper_b, 0) + 1
        assert max(per_paper.values()) <= measure.MAX_FLAGS
        assert len(lib.duplicates.pairs(limit=10)) == 10


def test_bands_of_an_older_signature_version_are_computed_again(tmp_path, seed_files):
    """Version 2 hashes shingles differently: a library looked at by version 1 is looked
    at again once (its old bands replaced, not kept beside the new ones)."""
    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files)
        lib.duplicates.find()
        bands = band_rows(lib)
        lib.db.execute("UPDATE duplicate_checked SET version = 1, signature = "
                       "zeroblob(240)")                                    # version 1's
        lib.db.conn.commit()
        lib.duplicates.find()
        assert band_rows(lib) == bands
        from paperdesk.core.store import band_runs
        store = band_runs.BandStore(lib.path).load()
        store.sync(lib.db)
        assert store.bands_count() == len(bands)
        assert {v for (v,) in lib.db.execute("SELECT DISTINCT version FROM "
                                             "duplicate_checked")} == {
            measure.SIGNATURE_VERSION}


def test_a_batch_flags_what_one_paper_at_a_time_flags(tmp_path, seed_abstracts, monkeypatch):
    """The stage keeps a batch's buckets in memory until the batch ends: the papers of one
    batch find each other as when each was stored before the next was looked at (one
    paper a batch), crowds (a bucket over PER_BUCKET papers) included."""
    from paperdesk.core.edits import duplicates as stage

    crowd = [f"We study depth estimation with stereo priors for problem number {i}. Our "
             f"method combines lidar features with a learned depth model and improves "
             f"accuracy on benchmark {i % 7} by a clear margin." for i in range(60)]
    texts = []
    for i, text in enumerate(seed_abstracts[:80]):
        texts.append(text)
        if i % 4 == 0:                                    # its edited copy, same batch
            texts.append(EDITS["changed sentence"](text))
    texts += crowd
    found = {}
    for batch in (1, 200):
        monkeypatch.setattr(stage, "DUPLICATE_BATCH", batch)
        with Library.open(tmp_path / f"lib{batch}") as lib:
            lib.imports.run([write_daily(tmp_path / f"t{batch}.txt", texts)])
            lib.duplicates.find()
            found[batch] = sorted((p.paper_a, p.paper_b, p.similarity)
                                  for p in lib.duplicates.pairs())
            assert len(band_rows(lib)) == measure.BANDS * len(texts)
    assert len(found[1]) >= 20 + 60
    assert found[200] == found[1]
