"""Chinese and Japanese abstracts are searched by the words inside their sentences.

They are written without spaces: before, a whole clause up to its punctuation was one
index word, so "深度" (depth) inside "新しい深度推定手法を提案する" found nothing. Each
ideograph (and Hiragana character) is now a word of its own, as in Lucene's
StandardTokenizer, and a query word of several needs all of them
(:data:`paperdesk.core.search.words.IDEOGRAPHS`)."""

from __future__ import annotations

import os

from paperdesk.core.search.index import match_spans
from paperdesk.core.search.words import WORD_RE

JAPANESE = "本研究では、新しい深度推定手法を提案する。単眼画像から高精度な深度を推定できる。"
CHINESE = "我们提出了一种新的图像分割方法，并在测试期刊的数据集上验证。"
ENGLISH = "We propose a depth network for monocular images and show its results."
#: 深 and 度 apart (深入 "in depth", 速度 "speed"): not the word 深度.
APART = "我们深入研究了列车的速度控制问题，并提出新的方法。"


def _library(empty_library, tmp_path, encoding: str = "utf-8"):
    path = tmp_path / "daily.txt"
    path.write_bytes(("毎日の論文\n\n" + "\n\n".join([JAPANESE, CHINESE, ENGLISH, APART])
                      + "\n")
                     .encode(encoding, errors="strict") if encoding == "utf-8" else
                     ("Daily\n\n" + JAPANESE + "\n\n" + ENGLISH + "\n").encode(encoding))
    report = empty_library.imports.run([path])
    assert not report.rejected, report.rejected
    return empty_library


def _found(lib, query: str) -> list[str]:
    return [lib.papers.get(h.id).abstract[:6] for h in lib.search.find(query).hits]


def test_words_inside_japanese_and_chinese_sentences_are_found(empty_library, tmp_path):
    lib = _library(empty_library, tmp_path)
    for query in ("深度", "提案", "単眼画像", "深度推定手法", "本研究では"):
        assert _found(lib, query) == [JAPANESE[:6]], query
    for query in ("图像分割", "测试期刊", "验证"):
        assert _found(lib, query) == [CHINESE[:6]], query
    assert _found(lib, "depth") == [ENGLISH[:6]]
    assert _found(lib, "深度 depth") == []                 # all words must match
    assert _found(lib, '"深度推定"') == [JAPANESE[:6]]     # a phrase keeps the order
    assert _found(lib, '"推定深度"') == []
    assert _found(lib, "画像分割") == []                   # 画 is not in the Chinese one
    # an unquoted run of ideographs is a phrase: its characters side by side (a new
    # user's try: the paper with 深 and 度 apart came first for 深度)
    assert _found(lib, "深度") == [JAPANESE[:6]]
    assert _found(lib, "title:深度") == [JAPANESE[:6]]
    assert sorted(_found(lib, "深度 OR 速度")) == sorted([JAPANESE[:6], APART[:6]])
    assert _found(lib, "深入") == [APART[:6]]
    # a star or a tilde after a run: each ideograph is a whole word already (a new
    # user's try: 深度* found nothing)
    for query in ("深度*", "深度**", "深度~", "深度~1", "title:深度*", "深度推*"):
        assert _found(lib, query) == [JAPANESE[:6]], query
    assert sorted(_found(lib, "深*")) == sorted([JAPANESE[:6], APART[:6]])   # one: as typed
    # a minus before a run leaves its papers out (a new user's try: it was dropped, and
    # the search found exactly the papers it was meant to leave out)
    assert _found(lib, "方法 -图像") == [APART[:6]]
    assert sorted(_found(lib, "-推定")) == sorted([CHINESE[:6], ENGLISH[:6], APART[:6]])
    assert _found(lib, "方法 -title:图像") == [APART[:6]]
    # a field before a run (or any phrase) keeps the words in that field (a tester's
    # title:网络 listed papers with it in the abstract only)
    assert _found(lib, "title:単眼") == [] and _found(lib, "abstract:単眼") == [JAPANESE[:6]]
    assert _found(lib, "title:深度") == [JAPANESE[:6]]
    assert _found(lib, 'note:"depth network"') == []
    assert _found(lib, 'title:"depth network"') == [ENGLISH[:6]]


def test_a_shift_jis_file_is_searchable_by_its_words(empty_library, tmp_path):
    lib = _library(empty_library, tmp_path, encoding="shift_jis")
    assert _found(lib, "推定") == [JAPANESE[:6]]


def test_ideographs_are_words_and_other_scripts_keep_theirs():
    assert WORD_RE.findall("新しい深度") == ["新", "し", "い", "深", "度"]
    assert WORD_RE.findall("ネットワーク深度abc") == ["ネットワーク", "深", "度", "abc"]
    assert WORD_RE.findall("한국어 단어 C++ 2.5 café") == ["한국어", "단어", "C++", "2.5", "café"]


def test_the_matched_ideographs_are_marked_where_they_are(empty_library, tmp_path):
    lib = _library(empty_library, tmp_path)
    spans = match_spans(JAPANESE, lib.search.match_terms("深度"))
    # the phrase's characters where they stand side by side, not the 度 of 精度
    assert [JAPANESE[a:b] for a, b in spans] == ["深", "度", "深", "度"]
    first, last = JAPANESE.index("深度"), JAPANESE.rindex("深度")
    assert [a for a, _b in spans] == [first, first + 1, last, last + 1]


def test_a_read_only_library_indexed_by_the_old_word_rules_is_searched_with_a_note(
        tmp_path, monkeypatch):
    """A new user's try: a read-only library folder whose index was built before each
    ideograph became a word could not be searched at all (only a writer may rebuild
    it). It is searched as it is now, saying once that some words may not be found."""
    from paperdesk.core.library import Library
    from paperdesk.core.search import index as index_module

    folder = tmp_path / "lib"
    with monkeypatch.context() as m:     # the word rule before 2026-12-07
        m.setattr(index_module, "WORD_PATTERN", r"\w+(?:\.\w+)*(?:\+\+|#)?")
        with Library.open(folder) as lib:
            _library(lib, tmp_path)
            assert lib.index.status().unindexed == 0
    with Library.open(folder, read_only=True) as lib:
        note = lib.index.repair
        assert note.startswith(f"{folder / 'index'}{os.sep}_MAIN_") and note.endswith(
            ".toc: the search index was built by another version of paperdesk, with "
            "other word rules; it is searched as it is, so some words (Chinese and "
            "Japanese inside sentences) may not be found until a paperdesk that can "
            "write the library rebuilds it (paperdesk reindex)"), note
        assert _found(lib, "depth") == [ENGLISH[:6]]
        assert _found(lib, "monocular images") == [ENGLISH[:6]]
        assert _found(lib, '"depth network"') == [ENGLISH[:6]]
    with Library.open(folder) as lib:           # a writer rebuilds it with today's rules
        lib.index.sync()
        assert _found(lib, "深度") == [JAPANESE[:6]]
