"""Chinese, Japanese and Korean legacy encodings told apart (issue 25, item 6): a GBK
``.bib`` was decoded as Korean (凯撒 → 열힁). Short files in each encoding, written with
Python's codecs, and the real GBK file from bibtexparser's tests (read in place)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperdesk.core.imports.cjk_encoding import cjk_decoding
from paperdesk.core.imports.daily_papers import decode
from paperdesk.core.library import Library

REALWORLD = Path("/work/shared/realworld")
GBK_BIB = REALWORLD / "bibtexparser_gbk_test.bib"

ZH_HANS = "我们提出了一种新的神经网络训练方法，实验结果表明该方法有效。"
ZH_HANT = "我們提出了一種新的神經網路訓練方法，實驗結果顯示該方法有效。"
JA = "我々はニューラルネットワークの新しい学習法を提案する。"
KO = "우리는 신경망을 훈련하는 새로운 방법을 제안한다. 실험 결과 이 방법이 효과적임을 보였다."


def _bib(title: str, author: str = "Li, Wei") -> str:
    return f"@article{{k2013,\n  author = {{{author}}},\n  title = {{{title}}},\n  year = {{2013}}\n}}\n"


@pytest.mark.parametrize("text,encoding", [
    (ZH_HANS, "gbk"), (ZH_HANS, "gb2312"), (ZH_HANS, "gb18030"),
    (ZH_HANT, "big5"),
    (JA, "shift_jis"), (JA, "euc_jp"),
    (KO, "euc_kr"), (KO, "cp949"),
    ("凯撒", "gbk"), ("测试期刊", "gbk"),
])
def test_each_legacy_encoding_is_decoded_as_itself(tmp_path, text, encoding):
    data = _bib(text).encode(encoding)
    decoded, _found = decode(tmp_path / "x.bib", data)
    assert text in decoded


def test_euc_jp_is_not_read_as_thai_or_big5():
    text, codec = cjk_decoding(_bib(JA).encode("euc_jp"))
    assert (JA in text, codec) == (True, "euc_jp")


def test_western_bytes_are_left_to_charset_normalizer(tmp_path):
    text = "Größere Übungen für Schüler, ein résumé.\n"
    assert decode(tmp_path / "x.txt", text.encode("latin-1"))[0] == text


@pytest.mark.skipif(not GBK_BIB.is_file(), reason=f"{GBK_BIB} is not on this machine")
def test_the_real_gbk_bib_is_chinese(tmp_path):
    text, encoding = decode(GBK_BIB, GBK_BIB.read_bytes())
    assert "凯撒" in text and "测试期刊" in text and encoding == "gb18030"
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([GBK_BIB])
        paper = lib.papers.get(report.added_ids[0])
    assert [a.family for a in paper.authors] == ["凯撒"]
    assert dict(paper.metadata.values)["venue"] == "测试期刊"


@pytest.mark.parametrize("text,encoding", [
    ("自然言語処理のための事前学習モデル。", "shift_jis"),
    ("医用画像の位置合わせ手法の提案。知識グラフの構築。", "shift_jis"),
    ("深度學習研究。本文提出新方法。", "big5"),
    ("图像分割。", "gbk"),
])
def test_a_one_sentence_legacy_file_is_not_taken_for_utf8_with_stray_bytes(
        tmp_path, text, encoding):
    """A tester's short files: a few of their byte pairs are valid UTF-8 by chance, and
    they were read as UTF-8 with stray bytes (then refused as "digits and symbols")."""
    decoded, found = decode(tmp_path / "x.txt", (text + "\n").encode(encoding))
    assert decoded.strip() == text, (found, decoded)


def test_utf8_with_a_few_western_bytes_stays_utf8(tmp_path):
    data = "Café — naïve résumé of “deep” nets.\n".encode("utf-8").replace(
        "é".encode("utf-8"), "é".encode("cp1252"), 1)
    decoded, found = decode(tmp_path / "x.txt", data)
    assert decoded == "Café — naïve résumé of “deep” nets.\n" and found == "utf-8"
