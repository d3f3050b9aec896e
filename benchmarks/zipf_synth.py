"""A synthetic corpus with a realistic vocabulary: Zipf-distributed words, an open lexicon.

The seed-recombined corpus (:mod:`benchmarks.synth`) has a few thousand distinct words,
so every posting list is long and every cache hits; real abstracts have a long tail, and
the number of distinct words keeps growing with the corpus (Heaps' law: ``V = K * N**b``
with ``b`` about 0.5-0.7 for English; Heaps 1978, "Information Retrieval: Computational
and Theoretical Aspects", ch. 7). Each word of each abstract here is drawn from a Zipf law
over an *unbounded* vocabulary, in the two-regime form measured on large English corpora
(Ferrer i Cancho & Solé 2001, "Two regimes in the frequency of words and the origins of
complex lexicons", Journal of Quantitative Linguistics 8:165-173): the probability of
rank ``r`` is proportional to ``1 / r`` up to rank :data:`KNEE` and to
``KNEE**(S2 - 1) / r**S2`` beyond it (exponent :data:`TAIL_S`, ranks without end). A
Zipf tail of exponent ``s`` gives Heaps' law with ``b = 1 / s`` (0.625): about 100,000
distinct words at 10,000 papers, 440,000 at 100,000 and 1.8 million at 1,000,000
(``distinct_words`` in ``queries.json``), as arXiv's abstracts have.

- The top ranks are real English function words ("the", "of", "and", ...), as in real
  abstracts; every other rank is a pseudo-word of English-like syllables (onset, vowel;
  a final coda), computed from the rank itself (:func:`word_of_rank`), so the lexicon
  needs no table: 1 syllable up to rank ~6,000, 2 up to ~2 million, 3 and more beyond
  (2-6 letters at the top, 6-12 in the tail). Distinct ranks give distinct words.
- About 3 fixed two-word "collocations" per abstract (20,000 of them, also Zipf-ranked)
  give phrase queries something real to find, and two-word queries correlated words.
- An abstract is a title-like first sentence of 6-14 words (paperdesk derives the title
  from it: the Daily Papers format has no titles) and then sentences of 10-30 words,
  150-250 words in all; capitalised sentences, commas now and then.

Deterministic: the same ``seed`` and ``n`` give the same files byte for byte, and the
first ``m`` abstracts do not depend on ``n``. :func:`write_zipf_files` also writes
``queries.json`` beside the files: words chosen by their document frequency in this very
corpus (:func:`pick_queries`), so each query shape (common word, rare word, two words,
phrase, prefix, tag filter) means the same thing at every size.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

__all__ = ["KNEE", "TAIL_S", "FUNCTION_WORDS", "GENERATOR_VERSION", "word_of_rank",
           "ZipfCorpus", "write_zipf_files", "pick_queries", "corpus_stats"]

#: Ranks up to KNEE follow Zipf's law with exponent 1, the (unbounded) tail TAIL_S.
KNEE = 4_000
TAIL_S = 1.6
#: The largest rank drawn (a draw beyond it, about once in 10**9 words, takes it).
MAX_RANK = 4 * 10**18
#: Collocations (fixed word pairs) and how many an abstract has on average.
COLLOCATIONS = 20_000
COLLOCATIONS_PER_ABSTRACT = 3.0
#: Bump when the generator changes, so cached files are rewritten.
GENERATOR_VERSION = 2

#: The most frequent words of English academic prose, in rank order (ranks 0..).
FUNCTION_WORDS = (
    "the of and to a in is we that for this on with are by as an be our which from "
    "it can at these or using not both show also than their such has have its more "
    "into two between over based while only new when been most each other results "
    "used how well where under through however one but all they three while first "
    "high large both without across them then within many data two per very may"
).split()
FUNCTION_WORDS = tuple(dict.fromkeys(FUNCTION_WORDS))   # duplicates out, order kept

# Syllable parts. Onsets are consonants only and never empty, vowels are vowels only
# (y counts as one), codas consonants only: a word then splits into its parts one way
# only, so distinct part sequences are distinct words.
_ONSETS = ("b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v",
           "w", "z", "st", "tr", "pr", "gr", "pl", "cl", "br", "ch", "sh", "th", "sc", "sp",
           "fl", "dr", "cr")
_VOWELS = ("a", "e", "i", "o", "u", "y", "ea", "io", "ou", "ai", "ee")
_CODAS = ("", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "ng", "ct", "rs", "x",
          "ck", "ph", "rm")
_SYLLABLES = len(_ONSETS) * len(_VOWELS)
#: Scrambles the ranks inside a word length, so neighbouring ranks do not share their
#: first syllables (a prime that divides no block size).
_SCRAMBLE = 1_000_003
_FUNCTION_SET = frozenset(FUNCTION_WORDS)


def word_of_rank(rank: int) -> str:
    """Return the word of ``rank`` (0 is the most frequent), lower-case letters.

    Ranks below ``len(FUNCTION_WORDS)`` are :data:`FUNCTION_WORDS`; rank ``r`` beyond
    them is a pseudo-word of ``m`` syllables (onset + vowel) and a coda, where ``m`` is
    the smallest with ``r - len(FUNCTION_WORDS)`` inside the first ``m`` blocks of
    ``(onsets * vowels)**m * codas`` words. Distinct ranks give distinct words (the
    parts parse one way only; a pseudo-word that spells a function word gets a final
    ``q``, which no coda ends with).

    Args:
        rank: a rank, 0 or more (no upper bound).
    Returns:
        The word, 1-40 letters.
    """
    if rank < len(FUNCTION_WORDS):
        return FUNCTION_WORDS[rank]
    k = rank - len(FUNCTION_WORDS)
    syllables, block = 1, _SYLLABLES * len(_CODAS)
    while k >= block:
        k -= block
        syllables += 1
        block *= _SYLLABLES
    k = k * _SCRAMBLE % block
    k, coda = divmod(k, len(_CODAS))
    parts = []
    for _ in range(syllables):
        k, s = divmod(k, _SYLLABLES)
        onset, vowel = divmod(s, len(_VOWELS))
        parts.append(_ONSETS[onset] + _VOWELS[vowel])
    word = "".join(parts) + _CODAS[coda]
    return word + "q" if word in _FUNCTION_SET else word


class ZipfCorpus:
    """The generator: the Zipf law over ranks, the words of the frequent ranks and the
    collocations.

    Args:
        seed: random seed (same seed, same corpus).
        cached_words: how many of the most frequent words to keep spelled out (the
            rest are spelled on demand by :func:`word_of_rank`; the default covers
            about 98% of the words drawn).
    """

    def __init__(self, seed: int = 42, cached_words: int = 200_000):
        self.seed = seed
        self.words = [word_of_rank(r) for r in range(cached_words)]
        r = np.arange(1, KNEE + 1, dtype=np.float64)
        head = 1.0 / r
        # The tail's mass: the integral of KNEE**(s-1) / x**s from KNEE + 0.5 on.
        tail = KNEE ** (TAIL_S - 1) * (KNEE + 0.5) ** (1 - TAIL_S) / (TAIL_S - 1)
        total = head.sum() + tail
        self.head_cdf = np.cumsum(head / total)
        self.tail_share = tail / total
        rng = np.random.default_rng(seed + 2)
        # Collocations: pairs of content words of ranks 100-30,000, fixed once.
        self.collocations = rng.integers(100, 30_000, size=(COLLOCATIONS, 2))
        cw = 1.0 / np.arange(1, COLLOCATIONS + 1, dtype=np.float64)
        self.colloc_cdf = np.cumsum(cw / cw.sum())

    def ranks(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """Draw ``k`` word ranks (0-based, int64) from the two-regime Zipf law: the head
        by its cumulative table, the tail by the inverse of the Pareto law it follows."""
        u = rng.random(k)
        out = np.searchsorted(self.head_cdf, u).astype(np.int64)
        tail = u >= self.head_cdf[-1]
        if tail.any():
            # u in the tail: P(rank > x) = tail_share * ((KNEE + 0.5) / x)**(s - 1)
            v = np.maximum((1.0 - u[tail]) / self.tail_share, 1e-300)
            x = (KNEE + 0.5) * v ** (-1.0 / (TAIL_S - 1))
            out[tail] = np.minimum(x, MAX_RANK).astype(np.int64)
        return out

    def word(self, rank: int) -> str:
        """The word of ``rank`` (from the table for frequent ranks)."""
        return self.words[rank] if rank < len(self.words) else word_of_rank(rank)

    def abstract(self, i: int) -> tuple[str, np.ndarray]:
        """Return abstract ``i`` and the ranks of its distinct words (for frequencies).

        Each abstract has its own random stream (seeded by ``seed`` and ``i``), so
        abstract ``i`` is the same in a corpus of any size."""
        rng = np.random.default_rng((self.seed, i))
        length = int(rng.integers(150, 251))
        ranks = self.ranks(rng, length)
        # Collocations replace words at random places (two words each).
        k = int(rng.poisson(COLLOCATIONS_PER_ABSTRACT))
        if k:
            which = np.minimum(np.searchsorted(self.colloc_cdf, rng.random(k)),
                               COLLOCATIONS - 1)
            at = rng.integers(0, length - 1, size=k)
            for pos, c in zip(at, which):
                ranks[pos], ranks[pos + 1] = self.collocations[c]
        words, cached = self.words, len(self.words)
        tokens = [words[r] if r < cached else word_of_rank(r) for r in ranks.tolist()]
        # Sentences: a title-like first one of 6-14 words, then 10-30 words each.
        sizes = rng.integers(10, 31, size=26).tolist()
        sizes[0] = int(rng.integers(6, 15))
        commas = rng.random(26).tolist()
        out = []
        pos = 0
        for k, size in enumerate(sizes):
            sentence = tokens[pos:pos + size]
            pos += size
            if not sentence:
                break
            if k and len(sentence) > 8 and commas[k] < 0.5:
                sentence[3 + int(commas[k] * 2 * (len(sentence) - 6))] += ","
            sentence[0] = sentence[0].capitalize()
            out.append(" ".join(sentence) + ".")
        return " ".join(out), np.unique(ranks)


def pick_queries(ranks: np.ndarray, df: np.ndarray, n: int, collocations: np.ndarray,
                 colloc_df: np.ndarray) -> dict:
    """Choose the Zipf corpus's benchmark words by their document frequency.

    Args:
        ranks: the ranks seen in the corpus, ascending (int64).
        df: documents containing each of ``ranks`` (same length).
        n: documents in the corpus.
        collocations: ``(k, 2)`` ranks of the collocations.
        colloc_df: how many abstracts each collocation was placed in.
    Returns:
        ``{"common", "rare", "mid", "two": [a, b], "phrase": [a, b], "prefix",
        "or3": [a, b, c], "fuzzy", "df": {word: documents}}``: ``common`` is the content
        word (not a function word) in the most abstracts; ``rare`` one in 2-5 abstracts;
        ``mid`` one in about 5% of them; ``two`` the words of the 10th most frequent
        collocation (correlated, like "depth estimation"); ``phrase`` the 3rd; ``prefix``
        the first five letters of the most frequent content word of 8 letters or more
        among the 20,000 most frequent (it expands to a few dozen words at 100,000
        papers); ``or3`` words in about 2%, 1% and 0.5% of the abstracts; ``fuzzy`` the
        common word with one letter dropped.
    """
    content = ranks >= len(FUNCTION_WORDS)
    c_ranks, c_df = ranks[content], df[content]
    doc_freq = dict(zip(ranks.tolist(), df.tolist()))

    def near(share: float, skip: set) -> int:
        order = c_ranks[np.argsort(np.abs(c_df - share * n), kind="stable")]
        return next(int(r) for r in order[:1000] if int(r) not in skip)

    common = int(c_ranks[np.argmax(c_df)])
    rare_candidates = c_ranks[(c_df >= 2) & (c_df <= 5)]
    rare = (int(rare_candidates[len(rare_candidates) // 2]) if len(rare_candidates)
            else int(c_ranks[np.argmin(c_df)]))
    order = np.argsort(-colloc_df, kind="stable")
    phrase = [int(r) for r in collocations[order[2]]]
    two = [int(r) for r in collocations[order[9]]]
    long_words = [int(r) for r in c_ranks[c_ranks < 20_000] if len(word_of_rank(int(r))) >= 8]
    prefix_of = max(long_words, key=doc_freq.__getitem__) if long_words else common
    used = {common, rare, *phrase, *two}
    mid = near(0.05, used)
    used.add(mid)
    or3 = []
    for share in (0.02, 0.01, 0.005):
        r = near(share, used)
        used.add(r)
        or3.append(r)
    w = word_of_rank(common)
    fuzzy = w[:len(w) // 2] + w[len(w) // 2 + 1:] if len(w) > 3 else w + "x"
    words = lambda rs: [word_of_rank(r) for r in rs]   # noqa: E731
    chosen = {"common": w, "rare": word_of_rank(rare), "mid": word_of_rank(mid),
              "two": words(two), "phrase": words(phrase),
              "prefix": word_of_rank(prefix_of)[:5], "or3": words(or3), "fuzzy": fuzzy}
    chosen["df"] = {word_of_rank(r): doc_freq.get(r, 0) for r in
                    [common, rare, mid, *two, *phrase, prefix_of, *or3]}
    return chosen


def _add_counts(ranks: np.ndarray, counts: np.ndarray, more: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Add one document per occurrence in ``more`` (ranks) to the sparse document
    frequencies ``(ranks, counts)``; returns the new pair (ranks ascending)."""
    new, new_counts = np.unique(more, return_counts=True)
    keys, where = np.unique(np.concatenate([ranks, new]), return_inverse=True)
    return keys, np.bincount(where, weights=np.concatenate([counts, new_counts]),
                             minlength=len(keys)).astype(np.int64)


def write_zipf_files(folder: Path, n: int, per_file: int = 10_000, seed: int = 42
                     ) -> list[Path]:
    """Write ``n`` Zipf abstracts into Daily Papers files of ``per_file`` each, and
    ``queries.json`` (see :func:`pick_queries`, plus ``"distinct_words"``,
    ``"tokens"``, ``"papers"``, ``"heaps"``: the distinct words after each file, as
    ``[abstracts, distinct words]`` pairs) beside them.

    Args:
        folder: output folder (created).
        n: number of abstracts.
        per_file: abstracts per file.
        seed: random seed (same seed, same files).
    Returns:
        The abstract files written, in order.
    """
    # the frequent words spelled once (a few seconds for 200,000; tiny corpora need few)
    corpus = ZipfCorpus(seed=seed, cached_words=min(200_000, 50 * n))
    folder.mkdir(parents=True, exist_ok=True)
    ranks = np.zeros(0, dtype=np.int64)
    df = np.zeros(0, dtype=np.int64)
    files = []
    heaps = []
    tokens = 0
    for start in range(0, n, per_file):
        path = folder / f"zipf_{start // per_file:03d}.txt"
        end = min(n, start + per_file)
        seen = []
        with path.open("w", encoding="utf-8") as fh:
            fh.write(f"Zipf papers {start}-{end - 1}\n\n")
            for i in range(start, end):
                text, distinct = corpus.abstract(i)
                tokens += text.count(" ") + 1
                seen.append(distinct)
                fh.write(text + "\n\n")
        ranks, df = _add_counts(ranks, df, np.concatenate(seen))
        heaps.append([end, len(ranks)])
        files.append(path)
    colloc_df = _collocation_counts(corpus, n)
    queries = pick_queries(ranks, df, n, corpus.collocations, colloc_df)
    queries.update(papers=n, tokens=tokens, distinct_words=len(ranks), heaps=heaps,
                   seed=seed, version=GENERATOR_VERSION)
    (folder / "queries.json").write_text(json.dumps(queries, indent=1), encoding="utf-8")
    return files


def _collocation_counts(corpus: ZipfCorpus, n: int) -> np.ndarray:
    """How many collocation placements each collocation got over ``n`` abstracts
    (the expected count: placements follow the collocations' Zipf law)."""
    p = np.diff(np.concatenate([[0.0], corpus.colloc_cdf]))
    return p * n * COLLOCATIONS_PER_ABSTRACT


def corpus_stats(folder: Path) -> dict:
    """Return the ``queries.json`` written beside a Zipf corpus (``{}`` if missing)."""
    try:
        return json.loads((folder / "queries.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
