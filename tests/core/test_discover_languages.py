"""Key terms of papers in other languages (issue 25 item 13): after importing German
BibTeX, "der" and "die" topped a paper's key terms. A paper's language is told from its
function words, and those are not terms; English papers keep every word they had."""

from __future__ import annotations

import re

from paperdesk.core.discover.vectorize import (LANGUAGE_STOP_WORDS, TOKEN_PATTERN,
                                               language_stop_words, paper_text)

_WORD = re.compile(TOKEN_PATTERN)

GERMAN = r"""
@article{alterung2019,
  title = {Die Alterung der Gesellschaft und der Generationenkonflikt in Europa},
  abstract = {Die Alterung der Gesellschaft ist eine der großen Fragen der Zeit. Wir
    untersuchen, wie die Renten und die Pflege in den Ländern der Union mit der
    Alterung umgehen, und zeigen, dass die Generationen in der Frage der Renten nicht
    so weit auseinander liegen, wie es die Debatte in den Medien nahelegt.},
  year = 2019,
}
@article{extraktion2020,
  title = {Regelbasierte Extraktion und asymmetrische Fusion bibliographischer Daten},
  abstract = {Die Extraktion bibliographischer Daten aus den Dokumenten der Bibliotheken
    ist eine Aufgabe, die mit Regeln und mit der Fusion der Quellen gelöst wird. Wir
    zeigen, dass die Fusion der Daten aus den Quellen die Qualität der Extraktion in
    der Praxis deutlich erhöht und die Renten der Pflege nicht berührt.},
  year = 2020,
}
"""


def test_german_function_words_are_not_key_terms(seeded_library, tmp_path):
    lib = seeded_library
    bib = tmp_path / "deutsch.bib"
    bib.write_text(GERMAN, encoding="utf-8")
    report = lib.imports.run([bib])
    assert report.added == 2
    lib.discover.ensure()
    german = LANGUAGE_STOP_WORDS["de"]
    for key in ("alterung2019", "extraktion2020"):
        pid = lib.papers.for_key(key)
        terms = [t.term for t in lib.discover.key_terms(pid, limit=10)]
        assert terms, key
        assert not german & set(terms), (key, terms)
    # the content words they share still relate them
    alterung = lib.papers.for_key("alterung2019")
    shared = {t.term for t in lib.discover.key_terms(alterung, limit=1000)}
    assert {"renten", "pflege"} <= shared


def test_no_english_paper_is_taken_for_another_language(seeded_library):
    """The 225 English seed abstracts keep every word: none is read as German, French,
    Spanish, Italian, Portuguese or Dutch."""
    rows = seeded_library.db.execute("SELECT title, abstract FROM papers").fetchall()
    assert len(rows) == 225
    taken = [title for title, abstract in rows
             if language_stop_words(_WORD.findall(paper_text(title, abstract).lower()))]
    assert taken == []


#: Three Japanese abstracts on depth estimation, two Chinese ones on image segmentation.
CJK = [
    "単眼画像から深度を推定する新しい手法を提案する。深度推定の精度は既存手法より高い。",
    "深度推定のための自己教師あり学習を提案する。単眼動画から深度を学習できる。",
    "ステレオ画像の深度推定を高速化する。推定の精度を保ったまま処理時間を減らす。",
    "我们提出了一种新的图像分割方法，并在公开数据集上验证了分割精度。",
    "本文研究医学图像分割问题，提出的分割网络在数据集上优于现有方法。",
]


def test_chinese_and_japanese_abstracts_have_key_terms_and_related_papers(seeded_library,
                                                                          tmp_path):
    """A new user's try: in Chinese and Japanese text, written without spaces, a whole
    clause was one term, so key terms were clauses and no two papers shared one. Now a
    run of ideographs gives its pairs ("深度推定" -> 深度, 度推, 推定), as Lucene's
    CJKBigramFilter does."""
    from paperdesk.core.discover.vectorize import cjk_terms, paper_words

    assert cjk_terms("単眼画像から深度を推定する") == ["単眼", "眼画", "画像", "深度", "推定"]
    assert cjk_terms("bertモデルを使う") == ["bert", "モデル"]
    # particles and the stock pairs of abstracts are no terms (a tester's corpus: 习的,
    # 们引, 文提, 一种 related papers on different topics)
    assert cjk_terms("本文提出一种基于深度学习的图像分割方法") == [
        "种基", "深度", "度学", "学习", "图像", "像分", "分割", "割方"]
    assert paper_words("Depth 深度。深") == ["depth", "深度"]      # one ideograph: no term
    lib = seeded_library
    path = tmp_path / "cjk.txt"
    path.write_text("毎日の論文\n\n" + "\n\n".join(CJK) + "\n", encoding="utf-8")
    report = lib.imports.run([path])
    assert report.added == 5, report
    lib.discover.ensure()
    by_text = {lib.papers.get(pid).abstract: pid for pid in lib.papers.ids()}
    ids = [by_text[text] for text in CJK]
    first = {t.term for t in lib.discover.key_terms(ids[0], limit=8)}
    assert {"深度", "推定"} & first, first
    assert all(len(t) <= 3 or not re.search("[\u4e00-\u9fff]", t) for t in first), first
    related = [r.id for r in lib.discover.related(ids[0], limit=2)]
    assert set(related) == {ids[1], ids[2]}, related          # the other depth papers
    related = [r.id for r in lib.discover.related(ids[3], limit=1)]
    assert related == [ids[4]]                                # the other segmentation one
