"""Turning papers' text into tf-idf term vectors: the one place that says what a "term" is
for related papers, key terms, tag suggestions and the interest ordering.

A paper's text is its title and abstract. Terms are single words of two or more
characters that start with a letter, hyphenated compounds kept whole ("yolov8",
"zero-shot"; bare numbers are not terms), lower-cased, without scikit-learn's English
stop words, without the function words of the paper's language when it is another
(German, French, Spanish, Italian, Portuguese or Dutch, told by counting them:
:func:`language_stop_words`), and without the words
every abstract uses to describe itself ("propose", "method", "results", ...) or that
LaTeX leaves behind ("textit", "mathbf"). Weights follow scikit-learn's
``TfidfVectorizer`` with ``sublinear_tf=True`` (Manning, Raghavan and Schütze,
*Introduction to Information Retrieval*, 2008, §6.4.1: ``1 + log tf``) and its smoothed
idf, ``idf(t) = ln((1 + n) / (1 + df(t))) + 1``
(https://scikit-learn.org/stable/modules/feature_extraction.html#tfidf-term-weighting).
Words in only one paper (they relate nothing) and in more than 80% of the papers (they
separate nothing) are left out of the vocabulary.

Each paper keeps only its :data:`TERMS_PER_PAPER` heaviest terms (as Lucene's
MoreLikeThis keeps a document's 25 most interesting terms): at 100,000 papers that
halves the table's memory and the time of a similarity, and the terms dropped are the
ones that weigh least in any cosine. The kept weights are then scaled to unit length
(L2), so that a dot product of two rows is their cosine similarity.
"""

from __future__ import annotations

import re

import numpy as np

from paperdesk.core.cjk import HAN, HIRAGANA, KATAKANA, join_cjk_lines

__all__ = ["TERMS_PER_PAPER", "TOKEN_PATTERN", "STOP_WORDS", "MIN_DF", "MAX_DF",
           "LANGUAGE_STOP_WORDS", "language_stop_words", "paper_words", "cjk_terms", "analyze",
           "paper_text", "load_stop_words", "new_vectorizer", "prune_rows", "term_query"]

#: Terms kept per paper (the heaviest by tf-idf).
TERMS_PER_PAPER = 64
#: A term: a letter, then letters, digits or inner hyphens, at least two characters
#: ("monocular", "yolov8", "zero-shot"; not "2024" or "x").
TOKEN_PATTERN = r"(?u)\b[^\W\d_](?:[^\W_]|-(?=[^\W_]))+\b"
#: A word must be in at least this many papers to be a term (once at most libraries of
#: fewer than 20 papers, where any shared word is worth showing).
MIN_DF = 2
#: A word in more than this share of the papers is not a term (below it, idf makes
#: common words light: "depth" in 61% of the sample papers still counts, a little).
MAX_DF = 0.8

# Words that say what kind of text an abstract is rather than what it is about, and
# LaTeX markup that imports leave in abstracts.
_ABSTRACT_WORDS = """
abstract paper papers propose proposed proposes present presents presented introduce
introduces introduced method methods approach approaches result results show shows shown
demonstrate demonstrates novel new existing state art based using use used uses work
works study studies task tasks performance perform performs achieve achieves achieved
significant significantly extensive experiments experiment experimental evaluate
evaluation evaluations evaluated outperform outperforms outperforming furthermore
moreover additionally specifically particular particularly recent recently various
effective effectively efficient efficiently improve improves improved improving
including include includes provide provides different challenging challenge challenges
key large code available github https http www com org html pdf arxiv et al ie eg
textit textbf texttt emph mathbf mathcal mathrm mathit mathbb boldsymbol cite citep
citet ref eq fig figure table sec section
"""


#: The commonest function words of the languages other than English that researchers'
#: abstracts are most often written in (articles, pronouns, prepositions, conjunctions
#: and auxiliaries; after the stop lists of Snowball, snowballstem.org/algorithms, cut
#: to words of two letters or more). They outweigh any content word in a paper written
#: in that language: "der" and "die" topped a German paper's key terms.
_FUNCTION_WORDS = {
    "de": """der die das den dem des ein eine einer eines einem einen und oder aber auch
        als an auf aus bei bis durch für gegen hat haben hatte ist im in ins mit nach
        nicht noch nur ob sich sie sind so über um unter vom von vor war waren wird werden
        wie wir zu zum zur dass daß diese dieser dieses diesem diesen er es man mehr
        kann können sowie sein seine seiner ihre ihrer wurde wurden zwischen ohne sehr
        wenn weil jedoch bereits dabei dann denn doch hier ihr ihn ihm mich mir uns euch""",
    "fr": """le la les un une des du de et ou mais donc dans sur sous par pour avec sans
        est sont être été avoir ont au aux ce cette ces qui que quoi dont où il elle ils
        elles nous vous se sa son ses leur leurs en ne pas plus comme tout tous toute
        toutes entre aussi ainsi lors afin très peut""",
    "es": """el la los las un una unos unas de del y o pero en con por para sin sobre
        entre es son fue ser ha han que como más se su sus al lo le les este esta estos
        estas ese esa muy también cuando donde hay ya""",
    "it": """il lo la gli le un una uno di del della dei delle degli da dal dalla in nel
        nella con per tra fra su sul sulla che non si è sono essere ha hanno come anche
        più questo questa questi queste quello quella ed al alla ai agli""",
    "pt": """o os a as um uma uns umas de do da dos das em no na nos nas por pelo pela
        para com sem que se não mais como mas ou ao aos é são foi ser tem seu sua seus
        suas este esta estes estas isso entre também""",
    "nl": """de het een en of maar in op aan met voor door van uit naar bij tot over
        onder dat die dit deze is zijn was waren wordt worden werd heeft hebben niet ook
        als dan er om te zo wel nog al geen meer hun haar""",
}
LANGUAGE_STOP_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split()) for lang, words in _FUNCTION_WORDS.items()}
#: A paper is taken to be in one of those languages when at least this many of its words,
#: and this share of them, are that language's function words (and no other language has
#: more): an English abstract with one "die" or "la" is not.
LANGUAGE_MIN_WORDS = 3
LANGUAGE_MIN_SHARE = 0.08


def language_stop_words(words: list[str]) -> frozenset[str]:
    """The stop words of the language other than English that a paper is written in,
    told by counting its words in each :data:`LANGUAGE_STOP_WORDS` list (one pass, a set
    lookup a word: cheap); none for an English paper.

    Args:
        words: the paper's words, lower-cased (:data:`TOKEN_PATTERN`).
    Returns:
        That language's function words, or an empty set.
    """
    if not words:
        return frozenset()
    # No language can count more than all the function words together: an English
    # abstract (nearly every paper) is told by one pass in C, without the loop below.
    found = sum(map(_LANGUAGES_OF.__contains__, words))
    if found < LANGUAGE_MIN_WORDS or found < LANGUAGE_MIN_SHARE * len(words):
        return frozenset()
    hits = {lang: 0 for lang in LANGUAGE_STOP_WORDS}
    for word in words:
        for lang in _LANGUAGES_OF.get(word, ()):
            hits[lang] += 1
    lang, n = max(hits.items(), key=lambda item: item[1])
    if n < LANGUAGE_MIN_WORDS or n < LANGUAGE_MIN_SHARE * len(words):
        return frozenset()
    return LANGUAGE_STOP_WORDS[lang]


#: English words among those lists ("in", "was", "over", "die"...), not counted when
#: telling the language: every English abstract has them.
_ENGLISH = frozenset("""a an the of in on at to is was be by for with as or and but not
    no so if it its he she we they you me my our their his her them us this that these
    those are were been has have had do does did will would can could may might over
    under out up off all any some more most other such only own same than too very also
    into from about after before die den man war hat has ist""".split())
#: word -> the languages whose function word it is (:data:`_ENGLISH` left out).
_LANGUAGES_OF: dict[str, tuple[str, ...]] = {}
for _lang, _words in LANGUAGE_STOP_WORDS.items():
    for _word in _words - _ENGLISH:
        _LANGUAGES_OF[_word] = _LANGUAGES_OF.get(_word, ()) + (_lang,)

_WORD = re.compile(TOKEN_PATTERN)
#: :data:`TOKEN_PATTERN` for a text without an underscore, 2x faster: a word's letters,
#: digits and inner hyphens taken in runs instead of one character (and one lookahead)
#: at a time. It finds the same words in such a text (tests/core/test_term_table_build.py
#: compares them on every string of up to eight characters from each class): there the
#: one place a word can end is where its run ends. Beside an underscore (``x_1``,
#: ``ab-cd_e``) the pattern's backtracking ends words elsewhere, so a text that has one
#: is split by :data:`TOKEN_PATTERN` itself.
_WORD_RUNS = re.compile(r"\b[^\W\d_](?:[^\W_]+(?:-[^\W_]+)*|(?:-[^\W_]+)+)")


#: A Chinese or Japanese character (:mod:`paperdesk.core.cjk`): such text is written
#: without spaces between words.
_HAS_CJK = re.compile(f"[{HAN}{HIRAGANA}{KATAKANA}]")
#: The parts of a word with CJK characters in it: a run of Han ideographs, of Katakana,
#: or of other letters and digits (Hiragana, mostly particles and endings, part them).
_CJK_PARTS = re.compile(f"([{HAN}]+)|([{KATAKANA}]+)|([^\\W{HAN}{HIRAGANA}{KATAKANA}]+)")


#: Characters that are particles, pronoun endings or conjunctions in Chinese (的 "of", 了
#: the perfect aspect, 们 the plural of 我们 "we", 是 "is", 于 "at", 和 and 与 "and"): a
#: pair with one in it is no term (their pairs spanned two words: 习的, 于深, 们引).
_CJK_PARTICLES = frozenset("的了们是于和与")
#: Pairs that say what kind of text an abstract is rather than what it is about, as
#: ``_ABSTRACT_WORDS`` does for English ("本文提出一种" "this paper proposes a"; 研究
#: "study", 方法 "method", 结果 "result"; Japanese 本研究, 提案 "proposal", 手法
#: "method"): with them, papers on different topics were related by their stock phrases.
_CJK_ABSTRACT_PAIRS = frozenset("""本文 文提 提出 出一 一种 我们 进行 研究 方法 结果 表明
    基于 通过 实验 论文 并在 本研 研究 提案 手法 結果 実験 論文 本論 論文 示す""".split())


def cjk_terms(word: str) -> list[str]:
    """The terms of a word :data:`TOKEN_PATTERN` found in Chinese or Japanese text, where
    a "word" is a whole clause up to its punctuation: each run of Han ideographs gives
    its overlapping pairs ("深度推定" -> "深度", "度推", "推定"), as Lucene's
    CJKBigramFilter (used by Elasticsearch's ``cjk`` analyser) does; a run of one
    ideograph gives nothing (a term has two characters at least); a Katakana run
    ("モデル") and a run of other letters ("bert") are whole terms; Hiragana (mostly
    particles and endings) only separate. Pairs with a Chinese particle in them
    (:data:`_CJK_PARTICLES`) and the stock pairs of abstracts
    (:data:`_CJK_ABSTRACT_PAIRS`) are left out.

    Args:
        word: a lower-cased word with a Han, Hiragana or Katakana character in it.
    Returns:
        Its terms, in text order.
    """
    out: list[str] = []
    for han, kana, other in _CJK_PARTS.findall(word):
        if han:
            out.extend(pair for pair in (han[i:i + 2] for i in range(len(han) - 1))
                       if pair not in _CJK_ABSTRACT_PAIRS
                       and not _CJK_PARTICLES.intersection(pair))
        elif len(kana) > 1:
            out.append(kana)
        elif len(other) > 1 and not other[0].isdigit():
            out.append(other)
    return out


def paper_words(text: str) -> list[str]:
    """A paper's words as terms are made of them: lower-cased, split with
    :data:`TOKEN_PATTERN`, without the function words of its language when it is not
    English (:func:`language_stop_words`); English stop words are left to the caller.
    A word with Chinese or Japanese characters in it gives :func:`cjk_terms` instead.

    Args:
        text: :func:`paper_text`.
    Returns:
        The words, in text order.
    """
    text = text.lower()
    cjk = not text.isascii() and _HAS_CJK.search(text) is not None
    if cjk:     # a hard-wrapped line's break is no word break there: 深度估 计
        text = join_cjk_lines(text)
    words = (_WORD if "_" in text else _WORD_RUNS).findall(text)
    if cjk:
        words = [t for w in words
                 for t in (cjk_terms(w) if _HAS_CJK.search(w) is not None else (w,))]
    other = language_stop_words(words)
    return [w for w in words if w not in other] if other else words


def analyze(text: str) -> list[str]:
    """The terms of a paper's text, in order: :func:`paper_words` without
    :data:`STOP_WORDS` (the vectorizer's analyzer; :func:`new_vectorizer` fills them)."""
    return [w for w in paper_words(text) if w not in STOP_WORDS]


def _english_stop_words() -> frozenset[str]:
    """scikit-learn's English stop words (``ENGLISH_STOP_WORDS``), read from its module
    file (``sklearn/feature_extraction/_stop_words.py``, one frozenset literal) without
    importing scikit-learn: the package's import costs ~1 s of CPU and ~65 MB in the
    term table's builder and in the window. Where the file is not found (another
    layout), scikit-learn is imported."""
    import importlib.util
    from pathlib import Path

    try:
        spec = importlib.util.find_spec("sklearn")
        path = Path(spec.submodule_search_locations[0]) / "feature_extraction" / \
            "_stop_words.py"
        namespace: dict = {}
        exec(compile(path.read_bytes(), str(path), "exec"), namespace)  # noqa: S102
        return frozenset(namespace["ENGLISH_STOP_WORDS"])
    except Exception:  # noqa: BLE001 - any other layout: the import
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
        return frozenset(ENGLISH_STOP_WORDS)


def _stop_words() -> frozenset[str]:
    return _english_stop_words() | frozenset(_ABSTRACT_WORDS.split())


#: The words that are never terms (filled on first use, :func:`load_stop_words`).
STOP_WORDS: frozenset[str] = frozenset()


def load_stop_words() -> frozenset[str]:
    """Fill :data:`STOP_WORDS` when it is still empty (scikit-learn's English list,
    :func:`_english_stop_words`, and the words abstracts describe themselves with) so
    that :func:`analyze` leaves them out.

    Returns:
        The stop words.
    """
    global STOP_WORDS
    if not STOP_WORDS:
        STOP_WORDS = _stop_words()
    return STOP_WORDS


def paper_text(title: str | None, abstract: str | None) -> str:
    """The text a paper's terms come from: its title and abstract, a line apart.

    Args:
        title: the paper's title (or ``None``).
        abstract: its abstract (or ``None``; a BibTeX entry may have none).
    Returns:
        One string.
    """
    return f"{title or ''}\n{abstract or ''}"


def new_vectorizer(n_papers: int, vocabulary: dict[str, int] | None = None,
                   idf: np.ndarray | None = None):
    """A scikit-learn ``TfidfVectorizer`` set up as this module describes.

    Args:
        n_papers: how many papers it will be fitted on (papers of fewer than 20 take
            words of one paper too, see :data:`MIN_DF`).
        vocabulary: ``{term: column}`` of an earlier fit, to transform new papers into
            the same columns (then ``idf`` is required too).
        idf: the earlier fit's idf per column, float array of ``len(vocabulary)``.
    Returns:
        The vectorizer (fitted when ``vocabulary`` and ``idf`` are given).
    """
    from sklearn.feature_extraction.text import TfidfVectorizer
    load_stop_words()
    small = n_papers < 20
    vec = TfidfVectorizer(analyzer=analyze, sublinear_tf=True,
                          min_df=1 if small else MIN_DF, max_df=1.0 if small else MAX_DF,
                          norm=None, dtype=np.float32, vocabulary=vocabulary)
    if vocabulary is not None:
        if idf is None:
            raise ValueError("a vocabulary needs its idf")
        vec.idf_ = np.asarray(idf, dtype=np.float64)
    return vec


def prune_rows(matrix, keep: int = TERMS_PER_PAPER):
    """Keep each row's ``keep`` heaviest entries, sorted heaviest first, scaled to unit
    length.

    Args:
        matrix: a scipy CSR matrix of non-negative weights (papers x terms).
        keep: entries kept per row.
    Returns:
        ``(indptr, indices, data)``: int64, int32 and float32 arrays of the pruned CSR
        matrix; within a row the entries run from the heaviest term down (ties by
        column), so a row's first entries are its key terms. A row with no terms is
        empty.
    """
    matrix = matrix.tocsr()
    n = matrix.shape[0]
    counts = np.diff(matrix.indptr)
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    order = np.lexsort((matrix.indices, -matrix.data.astype(np.float64), rows))
    rank = np.arange(len(order), dtype=np.int64) - np.repeat(matrix.indptr[:-1], counts)
    take = order[rank < keep] if len(order) else order
    new_counts = np.minimum(counts, keep)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(new_counts, out=indptr[1:])
    indices = matrix.indices[take].astype(np.int32)
    data = matrix.data[take].astype(np.float32)
    sq = np.bincount(rows[take], weights=data.astype(np.float64) ** 2, minlength=n)
    norms = np.sqrt(sq)
    norms[norms == 0] = 1.0
    data = (data / np.repeat(norms, new_counts).astype(np.float32)).astype(np.float32)
    return indptr, indices, data


def term_query(term: str) -> str:
    """The search query that finds a term: the word itself, or in double quotes when it
    has a hyphen (the query language reads ``-word`` as "without").

    Args:
        term: a term of the table.
    Returns:
        A query string.
    """
    return f'"{term}"' if "-" in term else term
