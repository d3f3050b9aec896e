"""Text helpers on the nasty inputs the seeds contain."""

import unicodedata

import hashlib

import pytest

from paperdesk.core.text import (content_hash, derive_title, extract_arxiv_ids, extract_urls,
                                 find_urls, hash_form, normalize)


def test_normalize_nfc_and_whitespace():
    decomposed = unicodedata.normalize("NFD", "Café  β\tdecay\r\n next")
    assert normalize(decomposed) == "Café β decay next"
    assert normalize(decomposed) == unicodedata.normalize("NFC", normalize(decomposed))
    assert normalize("  \u00a0 ") == ""


def test_content_hash_ignores_whitespace_variants():
    a = normalize("Deep  nets\nare deep.")
    b = normalize(" Deep nets are\tdeep. ")
    assert content_hash(a) == content_hash(b)
    assert content_hash(a) != content_hash(normalize("Deep nets are shallow."))
    assert len(content_hash(a)) == 64


@pytest.mark.parametrize("typed, typeset", [
    ("a 1--2 range -- and an aside --- here", "a 1–2 range – and an aside — here"),
    ("``quoted'' and `single' and \"straight\"", "“quoted” and ‘single’ and “straight”"),
    ("it's, and so on...", "it’s, and so on…"),
    ("fine and first", "ﬁne and ﬁrst"),
    ("low ,,quotes'' and !`Hola", "low „quotes” and ¡Hola"),
    ("a non-breaking hyphen", "a non\u2011breaking hyphen"),
])
def test_content_hash_folds_typographic_variants(typed, typeset):
    assert content_hash(normalize(typed)) == content_hash(normalize(typeset))
    assert hash_form(typed) == hash_form(typeset)
    assert content_hash(normalize(typed)) != content_hash(normalize(typed + " more"))


def test_content_hash_of_text_without_variants_is_its_plain_sha256():
    """What most abstracts hash to did not change with the folding (schema 6)."""
    text = "Deep nets (n=5) are deep: 5% better, x^2 & y_1, é and α."
    assert content_hash(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_title_is_first_sentence_without_full_stop():
    text = "We study depth. Then we study width."
    assert derive_title(text) == "We study depth"


def test_title_skips_abbreviations_and_decimals():
    text = ("Models (e.g. ResNets) reach 2.5 times the accuracy of Vaswani et al. "
            "Transformers on CIFAR. A second sentence.")
    assert derive_title(text) == ("Models (e.g. ResNets) reach 2.5 times the accuracy of "
                                  "Vaswani et al. Transformers on CIFAR")


def test_long_title_is_cut_at_word_boundary_with_ellipsis():
    text = "word " * 60 + "end. Next sentence."
    title = derive_title(text)
    assert title.endswith("…")
    assert len(title) <= 121
    assert not title[:-1].endswith(" ")
    assert title[:-1].split(" ")[-1] == "word"


def test_cut_title_has_no_full_stop_before_ellipsis():
    text = "a" * 50 + " i.e. " + "x" * 30 + " more."
    assert derive_title(text, max_chars=57) == "a" * 50 + " i.e…"


def test_title_of_empty_abstract():
    assert derive_title("   ") == "(empty abstract)"


def test_urls_lose_trailing_punctuation():
    text = ("Code: https://github.com/AheadOFpotato/what_affects_effective_depth. "
            "See (https://example.org/a_(b)) and https://example.org/x, or "
            "https://example.org/q?x=1;")
    assert extract_urls(text) == [
        "https://github.com/AheadOFpotato/what_affects_effective_depth",
        "https://example.org/a_(b)",
        "https://example.org/x",
        "https://example.org/q?x=1",
    ]


def test_url_with_mangled_latex_from_seed():
    # Seen in seeds/000_...: a LaTeX-escaped underscore and a closing brace.
    text = r"\url{https://insta360-research-team.github.io/DAP\_website/}"
    assert extract_urls(text) == ["https://insta360-research-team.github.io/DAP_website/"]
    ((start, end, _url),) = find_urls(text)
    assert text[start:end] == r"https://insta360-research-team.github.io/DAP\_website/"


def test_url_inside_markup_is_not_a_link():
    text = '<b>x</b> <a href="http://example.invalid">y</a> & 5 < 6'
    assert extract_urls(text) == []


def test_bare_scheme_is_not_a_url():
    assert extract_urls("see https:// and http://.") == []


def test_arxiv_ids():
    text = ("characterised in arXiv:2212.08630. We also use arXiv:2303.06208v2 and "
            "https://arxiv.org/abs/2401.12345, again arXiv:2212.08630")
    assert extract_arxiv_ids(text) == ["2212.08630", "2303.06208v2", "2401.12345"]


def test_hash_form_folds_every_variant_in_ascii_text_too():
    """The fast path for text no fold applies to (the full check hashes every abstract)
    still folds each variant, ASCII ones (TeX quotes) included."""
    from paperdesk.core.text import TYPOGRAPHIC_FOLDS, hash_form

    for variant, typed in TYPOGRAPHIC_FOLDS.items():
        assert hash_form(f"a {variant} b") == f"a {typed} b", variant
    assert hash_form("plain ASCII text, it's fine - really.") == \
        "plain ASCII text, it's fine - really."
