"""A synthetic corpus with a realistic vocabulary: Zipf-distributed words.

The seed-recombined corpus (:mod:`benchmarks.synth`) has a few thousand distinct words,
so every posting list is long and every cache hits; real abstracts have a long tail. This
one draws each word of each abstract from a Zipf law over a fixed vocabulary of
:data:`VOCABULARY` word types, in the two-regime form measured on large English corpora
(Ferrer i Cancho & Solé 2001, "Two regimes in the frequency of words and the origins of
complex lexicons", Journal of Quantitative Linguistics 8:165-173): the probability of
rank ``r`` is proportional to ``1 / r`` up to rank :data:`KNEE` and to
``KNEE**(S2 - 1) / r**S2`` beyond it (exponent :data:`TAIL_S`). The distinct words seen
then grow with the corpus as Heaps' law says: about 100,000 at 10,000 papers and about
300,000 at 100,000 (``distinct_words`` in ``queries.json``).

- The top ranks are real English function words ("the", "of", "and", ...), as in real
  abstracts; the others are pseudo-words of English-like syllables (onset, vowel, coda,
  sometimes an English suffix such as ``-tion`` or ``-ing`` that the Porter stemmer
  strips), shorter at the frequent ranks and longer in the tail, all distinct.
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
import random
from pathlib import Path

import numpy as np

__all__ = ["VOCABULARY", "KNEE", "TAIL_S", "FUNCTION_WORDS", "make_vocabulary", "ZipfCorpus",
           "write_zipf_files", "pick_queries", "corpus_stats"]

#: Word types in the vocabulary (the corpus sees fewer: the tail is rarely drawn).
VOCABULARY = 1_000_000
#: Ranks up to KNEE follow Zipf's law with exponent 1, the tail exponent TAIL_S.
KNEE = 5_000
TAIL_S = 1.6
#: Collocations (fixed word pairs) and how many an abstract has on average.
COLLOCATIONS = 20_000
COLLOCATIONS_PER_ABSTRACT = 3.0
#: Bump when the generator changes, so cached files are rewritten.
GENERATOR_VERSION = 1

#: The most frequent words of English academic prose, in rank order (ranks 0..).
FUNCTION_WORDS = (
    "the of and to a in is we that for this on with are by as an be our which from "
    "it can at these or using not both show also than their such has have its more "
    "into two between over based while only new when been most each other results "
    "used how well where under through however one but all they three while first "
    "high large both without across them then within many data two per very may"
).split()
FUNCTION_WORDS = tuple(dict.fromkeys(FUNCTION_WORDS))   # duplicates out, order kept

_ONSETS = (("", 6), ("b", 3), ("c", 4), ("d", 4), ("f", 3), ("g", 2), ("h", 2), ("j", 1),
           ("k", 1), ("l", 4), ("m", 4), ("n", 3), ("p", 4), ("r", 4), ("s", 5), ("t", 5),
           ("v", 2), ("w", 2), ("z", 1), ("st", 2), ("tr", 2), ("pr", 2), ("gr", 1),
           ("pl", 1), ("cl", 1), ("br", 1), ("ch", 1), ("sh", 1), ("th", 2), ("sc", 1),
           ("sp", 1), ("qu", 1), ("fl", 1), ("dr", 1))
_VOWELS = (("a", 8), ("e", 10), ("i", 7), ("o", 7), ("u", 3), ("y", 1), ("ea", 1),
           ("io", 1), ("ou", 1), ("ai", 1), ("ee", 1))
_CODAS = (("", 10), ("n", 4), ("r", 4), ("s", 3), ("t", 3), ("l", 3), ("m", 2), ("nd", 1),
          ("nt", 1), ("st", 1), ("ng", 1), ("ct", 1), ("rs", 1), ("x", 1), ("ck", 1),
          ("ph", 1), ("rm", 1))
_SUFFIXES = (("", 30), ("tion", 3), ("ing", 3), ("ed", 3), ("al", 2), ("ity", 1),
             ("ive", 1), ("ous", 1), ("ment", 1), ("ic", 2), ("er", 2), ("s", 4),
             ("ly", 1), ("ness", 1), ("ize", 1))


def _table(pairs):
    items, weights = zip(*pairs)
    return list(items), list(weights)


def make_vocabulary(size: int = VOCABULARY, seed: int = 7) -> list[str]:
    """Return ``size`` distinct lower-case words, in rank order (most frequent first).

    Ranks below ``len(FUNCTION_WORDS)`` are :data:`FUNCTION_WORDS`; the rest are
    pseudo-words of 1-5 English-like syllables plus an optional suffix, shorter at
    frequent ranks (so word lengths look like English: 2-5 letters at the top, 7-12 in
    the tail). Deterministic for a given ``seed``.
    """
    rng = random.Random(seed)
    onsets, onset_w = _table(_ONSETS)
    vowels, vowel_w = _table(_VOWELS)
    codas, coda_w = _table(_CODAS)
    suffixes, suffix_w = _table(_SUFFIXES)
    words = list(FUNCTION_WORDS[:size])
    seen = set(words)
    choices = rng.choices
    while len(words) < size:
        rank = len(words)
        # Syllables: 1-2 at the top ranks, 2-4 in the tail (log-scaled).
        base = 1 + min(2.5, np.log10(rank + 1) / 2.6)
        syllables = max(1, min(5, int(base + rng.random() * 1.3)))
        parts = []
        for i in range(syllables):
            parts.append(choices(onsets, onset_w)[0] if i == 0 or rng.random() < 0.8
                         else "")
            parts.append(choices(vowels, vowel_w)[0])
            parts.append(choices(codas, coda_w)[0] if rng.random() < 0.6 else "")
        word = "".join(parts) + (choices(suffixes, suffix_w)[0] if rank > 300 else "")
        if len(word) < 2 or word in seen:
            continue
        seen.add(word)
        words.append(word)
    return words


def _cached_vocabulary(size: int, seed: int, cache: Path | None) -> list[str]:
    """:func:`make_vocabulary`, kept as a text file in ``cache`` when given."""
    if cache is None:
        return make_vocabulary(size, seed=seed)
    path = cache / f"vocabulary-{size}-{seed}-v{GENERATOR_VERSION}.txt"
    try:
        words = path.read_text(encoding="utf-8").split("\n")
        if len(words) == size:
            return words
    except OSError:
        pass
    words = make_vocabulary(size, seed=seed)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(words), encoding="utf-8")
    tmp.replace(path)
    return words


class ZipfCorpus:
    """The generator: a vocabulary, its Zipf weights and the collocations.

    Args:
        seed: random seed (same seed, same corpus).
        vocabulary: word types (:data:`VOCABULARY`).
        cache: a folder to keep the generated vocabulary in (it takes ~20 s to make),
            or ``None``.
    """

    def __init__(self, seed: int = 42, vocabulary: int = VOCABULARY,
                 cache: Path | None = None):
        self.seed = seed
        self.words = _cached_vocabulary(vocabulary, seed + 1, cache)
        r = np.arange(1, vocabulary + 1, dtype=np.float64)
        weights = np.where(r <= KNEE, 1.0 / r, KNEE ** (TAIL_S - 1) / r ** TAIL_S)
        self.cdf = np.cumsum(weights / weights.sum())
        rng = np.random.default_rng(seed + 2)
        # Collocations: pairs of content words of ranks 100-30,000, fixed once.
        lo, hi = min(100, vocabulary // 2), min(30_000, vocabulary)
        self.collocations = rng.integers(lo, hi, size=(COLLOCATIONS, 2))
        cw = 1.0 / np.arange(1, COLLOCATIONS + 1, dtype=np.float64)
        self.colloc_cdf = np.cumsum(cw / cw.sum())

    def _draw(self, rng: np.random.Generator, cdf: np.ndarray, k: int) -> np.ndarray:
        return np.minimum(np.searchsorted(cdf, rng.random(k)), len(cdf) - 1)

    def abstract(self, i: int) -> tuple[str, np.ndarray]:
        """Return abstract ``i`` and the ranks of its distinct words (for frequencies).

        Each abstract has its own random stream (seeded by ``seed`` and ``i``), so
        abstract ``i`` is the same in a corpus of any size."""
        rng = np.random.default_rng((self.seed, i))
        length = int(rng.integers(150, 251))
        ranks = self._draw(rng, self.cdf, length)
        # Collocations replace words at random places (two words each).
        k = int(rng.poisson(COLLOCATIONS_PER_ABSTRACT))
        if k:
            which = self._draw(rng, self.colloc_cdf, k)
            at = rng.integers(0, length - 1, size=k)
            for pos, c in zip(at, which):
                ranks[pos], ranks[pos + 1] = self.collocations[c]
        words = self.words
        tokens = [words[r] for r in ranks.tolist()]
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


def pick_queries(words: list[str], df: np.ndarray, n: int, collocations: np.ndarray,
                 colloc_df: np.ndarray) -> dict:
    """Choose the Zipf corpus's benchmark words by their document frequency.

    Args:
        words: the vocabulary in rank order.
        df: documents containing each rank (length ``len(words)``).
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
        (it expands to a few dozen words at 100,000 papers); ``or3`` words in about 2%,
        1% and 0.5% of the abstracts; ``fuzzy`` the common word with one letter dropped.
    """
    first = len(FUNCTION_WORDS)
    content = np.arange(first, len(words))

    def near(share: float, skip: set) -> int:
        target = share * n
        order = content[np.argsort(np.abs(df[first:] - target), kind="stable")]
        return next(int(r) for r in order[:1000] if int(r) not in skip)

    common = int(content[np.argmax(df[first:])])
    rare_candidates = content[(df[first:] >= 2) & (df[first:] <= 5)]
    rare = int(rare_candidates[len(rare_candidates) // 2]) if len(rare_candidates) else \
        int(content[np.argmin(np.where(df[first:] > 0, df[first:], n + 1))])
    order = np.argsort(-colloc_df, kind="stable")
    phrase = [int(r) for r in collocations[order[2]]]
    two = [int(r) for r in collocations[order[9]]]
    long_words = [int(r) for r in content[:20_000] if len(words[r]) >= 8]
    prefix_of = max(long_words, key=lambda r: df[r]) if long_words else common
    used = {common, rare, *phrase, *two}
    mid = near(0.05, used)
    used.add(mid)
    or3 = []
    for share in (0.02, 0.01, 0.005):
        r = near(share, used)
        used.add(r)
        or3.append(r)
    w = words[common]
    fuzzy = w[:len(w) // 2] + w[len(w) // 2 + 1:] if len(w) > 3 else w + "x"
    chosen = {"common": w, "rare": words[rare], "mid": words[mid],
              "two": [words[r] for r in two], "phrase": [words[r] for r in phrase],
              "prefix": words[prefix_of][:5], "or3": [words[r] for r in or3],
              "fuzzy": fuzzy}
    chosen["df"] = {words[r]: int(df[r]) for r in
                    [common, rare, mid, *two, *phrase, prefix_of, *or3]}
    return chosen


def write_zipf_files(folder: Path, n: int, per_file: int = 10_000, seed: int = 42,
                     cache: Path | None = None, vocabulary: int = VOCABULARY) -> list[Path]:
    """Write ``n`` Zipf abstracts into Daily Papers files of ``per_file`` each, and
    ``queries.json`` (see :func:`pick_queries`, plus ``"distinct_words"``,
    ``"tokens"``, ``"papers"``) beside them.

    Args:
        folder: output folder (created).
        n: number of abstracts.
        per_file: abstracts per file.
        seed: random seed (same seed, same files).
        cache: where to keep the vocabulary between runs (see :class:`ZipfCorpus`).
        vocabulary: word types (a smaller one makes tests fast; the benchmark keeps
            :data:`VOCABULARY`).
    Returns:
        The abstract files written, in order.
    """
    corpus = ZipfCorpus(seed=seed, cache=cache, vocabulary=vocabulary)
    folder.mkdir(parents=True, exist_ok=True)
    df = np.zeros(len(corpus.words), dtype=np.int64)
    files = []
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
        np.add.at(df, np.concatenate(seen), 1)
        files.append(path)
    colloc_df = _collocation_counts(corpus, n)
    queries = pick_queries(corpus.words, df, n, corpus.collocations, colloc_df)
    queries.update(papers=n, tokens=tokens, distinct_words=int((df > 0).sum()),
                   seed=seed, vocabulary=vocabulary, version=GENERATOR_VERSION)
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
