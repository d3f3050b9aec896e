"""Japanese (CJK) plain-text files: sentence ends ``。！？`` and words without spaces."""

from __future__ import annotations

import pytest

from paperdesk.core.imports.daily_papers import count_words, is_header, parse_text

FIRST = "画像から奥行きを推定する新しい手法を提案します。"
SECOND = "言語モデルの推論を速くする方法を示します！"


def test_a_japanese_first_abstract_is_not_taken_as_the_header(empty_library, tmp_path):
    path = tmp_path / "ja.txt"
    path.write_text(f"{FIRST}\n\n{SECOND}\n", encoding="utf-8")
    report = empty_library.imports.run([path])
    assert report.rejected == []
    assert sorted(empty_library.papers.abstracts(empty_library.papers.ids()).values()) == sorted([FIRST, SECOND])


def test_a_one_line_shift_jis_file_without_header_is_one_abstract(empty_library, tmp_path):
    text = "画像から奥行きを推定する手法を提案します。これは実時間で動きます。"
    path = tmp_path / "sjis.txt"
    path.write_bytes((text + "\n").encode("shift_jis"))
    report = empty_library.imports.run([path])
    assert report.rejected == []
    assert list(empty_library.papers.abstracts(empty_library.papers.ids()).values()) == [text]


@pytest.mark.parametrize("first, header", [
    ("毎日の論文", True),                       # a collection name
    ("2024年5月1日の論文", True),
    (FIRST, False),                             # ends with 。
    ("「新しい手法を提案します。」", False),     # before a closing bracket
    ("手法を提案するかどうかを調べるための大規模な実験と新しい評価の枠組み", False),  # 34 CJK: 17 words
    ("Daily Papers", True),
    ("We propose a simple baseline.", False),
])
def test_header_rule_knows_cjk_sentence_ends_and_words(first, header):
    assert is_header(first) is header


def test_cjk_words_are_counted_two_characters_each():
    assert count_words("毎日の論文") == 3
    assert count_words("cs.CV 2024-05-01") == 2
    assert count_words("論文 Daily Papers") == 3
    assert count_words("") == 0


def test_a_header_above_japanese_abstracts_is_kept():
    header, abstracts = parse_text(f"毎日の論文\n\n{FIRST}\n\n{SECOND}\n")
    assert header == "毎日の論文" and abstracts == [FIRST, SECOND]


@pytest.mark.parametrize("abstract, title", [
    (FIRST + SECOND, FIRST[:-1]),                        # 。 ends it, without a space
    (SECOND + FIRST, SECOND),                            # ！ stays, as ! does
    ("我们提出了一种新的图像分割方法？并在数据集上验证。", "我们提出了一种新的图像分割方法？"),
    (FIRST, FIRST[:-1]),                                 # one sentence
    ("深度" * 80 + "。次の文。", "深度" * 60 + "…"),       # cut at 120 characters
    # the full-width full stop of Japanese academic writing; a closing quote kept; no
    # sentence before the first letter; ASCII marks right before an ideograph (a
    # tester's tries: the whole abstract, "！" and a cut quote were titles)
    ("本研究では深度を推定する．次に評価する．", "本研究では深度を推定する"),
    ("他说：“深度学习很重要。”本文提出。", "他说：“深度学习很重要。”"),
    ("！！！深度学习。很好。", "！！！深度学习"),
    ("深度学习很重要?本文提出一种方法.", "深度学习很重要?"),
    ("We use 2.5倍 speed. Next one.", "We use 2.5倍 speed"),
])
def test_a_chinese_or_japanese_abstract_is_titled_by_its_first_sentence(abstract, title):
    """A new user's try: with no sentence end it knew, the title of a Japanese abstract
    was its whole first paragraph (up to 120 characters)."""
    from paperdesk.core.text import derive_title

    assert derive_title(abstract) == title


def test_a_hard_wrapped_chinese_paragraph_keeps_its_words_whole(empty_library, tmp_path):
    """A tester's PDF copy: lines broken inside words ("深度学\\n习") made a space there:
    the title read "深度学 习" and the key terms lost 学习 and 估计."""
    from paperdesk.core.discover.vectorize import paper_words

    path = tmp_path / "wrapped.txt"
    path.write_text("本文提出一种基于深度学\n习的单目深度估\n计方法。实验表明该方法更好。\n\n"
                    "第二篇论文研究图像分\n割。\n", encoding="utf-8")
    report = empty_library.imports.run([path])
    assert report.added == 2, report
    titles = sorted(s.title for s in empty_library.papers.summaries(
        empty_library.papers.ids()).values())
    assert titles == ["本文提出一种基于深度学习的单目深度估计方法", "第二篇论文研究图像分割"]
    words = paper_words("本文提出一种基于深度学 习的单目深度估 计方法。A b.")
    assert {"学习", "估计"} <= set(words) and "a" not in words
