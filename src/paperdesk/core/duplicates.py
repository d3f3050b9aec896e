"""Near-duplicate abstracts: the similarity measure, its MinHash estimate and the word
diff the Duplicates view shows. Pure functions; no database, no Qt.

**Measure.** Two abstracts are near-duplicates when the Jaccard similarity of their sets
of word 3-shingles is at least :data:`THRESHOLD`::

    J(A, B) = |S(A) ∩ S(B)| / |S(A) ∪ S(B)|

where ``S(x)`` is the set of every run of :data:`SHINGLE_WORDS` consecutive words of the
abstract after normalising it (Unicode NFKC, case-folded, every character that is not a
letter or digit treated as a space, so punctuation, hyphens, brackets and LaTeX markup
leave only their words). This is Broder's resemblance ("On the resemblance and
containment of documents", 1997) as taught in Leskovec, Rajaraman & Ullman, *Mining of
Massive Datasets*, ch. 3 (3rd ed., 2020). A text shorter than three words has one
shingle, all its words. An empty abstract (a record with only a title) has none and is
never a near-duplicate.

**Threshold 0.5, and why.** Measured on the seed abstracts (``tests/core/
test_duplicates.py``, 150-260 words each): one sentence replaced gives J = 0.77-0.87, an
arXiv v2 with one added sentence 0.86-0.91, other punctuation, hyphens or capitalisation
1.0, a v2 that rewrote two sentences and added one 0.48-0.80. Among all 25,200 pairs of
the 225 distinct seed abstracts (many on one topic: depth, scaling laws, agents) the
largest J is 0.107, for two papers of one series by the same authors, and the next is
0.025: abstracts that share a topic share phrases ("large language models", "in this
paper"), not runs of sentences. 0.5 sits far from both sides; below it two texts share
less than two-thirds of their shingles, which reads as another abstract more than an
edited one.

**Finding candidates (MinHash with LSH banding).** Comparing every pair is O(n²): 5·10⁹
pairs at 100,000 papers. Instead each abstract gets a MinHash signature of
:data:`PERMUTATIONS` values (the smallest hash of its shingles under each of 60 hash
functions; the chance two signatures agree in one place is J), cut into :data:`BANDS`
bands of :data:`ROWS` values; two abstracts are candidates when any band is equal
(Mining of Massive Datasets §3.4). The chance a pair with similarity ``s`` becomes a
candidate is ``1 - (1 - s**ROWS)**BANDS``: 0.93 at s = 0.5, 0.99 at 0.6, 0.9999 at 0.7,
and 1.6·10⁻⁴ at s = 0.02 (abstracts on one topic). Each candidate is then checked with
the exact J above, so the estimate only decides what is compared, never what is
flagged. 20 bands of 3 (rather than, say, 32 of 4) catch more pairs near the threshold
and store fewer bands: the band hashes are kept, derived from the signatures SQLite
stores, as sorted numpy runs in the library's ``duplicates/`` folder
(:mod:`paperdesk.core.store.band_runs`; in SQLite, one row per band per paper, until
2026-12-06), so a later import compares only its new papers against them. Each bucket
is a 32-bit hash; two different bands sharing one by chance only adds a candidate that
the exact check rejects.

Measured with ``benchmarks/duplicates_bench.py`` (2 cores shared with other work):
100,000 abstracts recombined from seed sentences (the hard case: many pairs share a
sentence or two) are looked at in 67 s, the process growing by 52 MB (one batch and
bounded caches); the near-duplicate tables take 87 MB next to the abstracts' 188 MB; 1,000
new papers against the 100,000 stored take 1.0 s.

**Exact checks spared (2026-12-06, second session).** A candidate that passes the
signature prefilter used to be read and shingled again for the exact measure: at 300,000
recombined abstracts 390,000 of them (more per paper as the library grows), a third of
the stage's CPU. The stage now keeps, beside each paper's bands, a bitmap of its
shingles (:func:`shingle_bitmaps`: bit ``h mod 1024`` of each shingle hash ``h``), and
:func:`overlap_bound` gives from it an upper bound of the measure that is never below
it; a candidate whose bound is under :data:`THRESHOLD` cannot be flagged and is not
compared, so the pairs flagged are the same (a test compares them with the stage
without bitmaps). Papers that merely share a sentence or two (J of 0.1 to 0.4) are
almost all shown below 0.5 by 1,024 bits.

The stage signs a batch of abstracts at once (:func:`signed_batch`: the same values,
numpy called per batch rather than per abstract): 20,000 of those abstracts took 9.4
CPU s in place of 13.0 (load 5).

Hash functions: each distinct word is hashed once to 64 bits (BLAKE2b, :mod:`hashlib`,
cached), a shingle's hash chains its three words' hashes with odd multipliers and mixes
the result with SplitMix64's finaliser (:func:`shingle_hashes`, in numpy for a whole
abstract; version 1 hashed every shingle's text with BLAKE2b, 4-5× the CPU), and the
exact check compares these 64-bit values (two shingles collide with a chance of about
2⁻⁶⁴). The shingle hashes are then permuted by multiply-shift hashing, ``h_i(x) = ((a_i·x + b_i) mod 2⁶⁴) >> 32`` with
random odd ``a_i`` (Dietzfelbinger et al., "A reliable randomized algorithm for the
closest-pair problem", 1997), evaluated for all 60 functions at once with numpy (already
a dependency, for the search fast path). Not datasketch: it does the same but pulls in
scipy, which would add tens of megabytes to the bundle for about forty lines. The
multipliers come from a fixed seed, so signatures are the same in every run and every
version that keeps :data:`SIGNATURE_VERSION`.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import numpy as np

from paperdesk.core.cjk import IDEOGRAPHS
from paperdesk.core.metadata import merge_metadata
from paperdesk.core.fields import stored_fields

__all__ = ["SHINGLE_WORDS", "THRESHOLD", "MIN_SHINGLES", "PERMUTATIONS", "BANDS", "ROWS", "SIGNATURE_VERSION",
           "PER_BUCKET", "MAX_CANDIDATES", "MAX_EXACT", "MAX_FLAGS", "PREFILTER", "words", "shingles", "shingle_hashes", "forget_word_hashes", "jaccard", "signature",
           "signature_bytes", "Signed", "signed_batch", "shingle_batch", "BITMAP_BITS",
           "shingle_bitmaps", "overlap_bound", "lookup_keys", "estimate", "estimates", "band_hashes", "similarity", "word_diff", "DuplicatePair", "NOTE_SEPARATOR", "HighlightMove",
           "MergePlan", "plan_merge"]

#: Words per shingle.
SHINGLE_WORDS = 3
#: Least Jaccard similarity of shingle sets for two abstracts to be flagged.
THRESHOLD = 0.5
#: Fewest shingles (distinct runs of three words; 10 words give 8) an abstract needs to
#: be compared at all: a one-line "abstract" ("Transformers.", "See the paper") shares
#: all of its few shingles with any other that says the same, which says nothing about
#: the two papers being one.
MIN_SHINGLES = 8
#: MinHash values per signature (= ``BANDS * ROWS``).
PERMUTATIONS = 60
#: LSH bands, and signature values per band.
BANDS, ROWS = 20, 3
#: Changes whenever the hash functions or banding change (stored band hashes of another
#: version are recomputed).
SIGNATURE_VERSION = 2
#: A candidate is compared exactly only when its signature agrees with the new one in at
#: least this share of places (the MinHash estimate of J). With 60 values, a pair at the
#: threshold falls below it with a chance of about 5·10⁻⁵ (binomial, 60 trials at 0.5),
#: while pairs that merely share a sentence (J ≈ 0.1) are dropped without reading their
#: abstracts: at 100,000 abstracts recombined from seed sentences this took the stage
#: from 280 s to 116 s (under the same load).
PREFILTER = 0.25
#: Bounds for a crowd of near-identical abstracts (boilerplate such as "Abstract not
#: available", or papers written from one template), so that each new paper costs
#: bounded time and the Duplicates view is not flooded: at most :data:`PER_BUCKET`
#: papers are read from each of its buckets (the newest), at most
#: :data:`MAX_CANDIDATES` of those (sharing the most bands) have their signatures
#: compared, at most :data:`MAX_EXACT` (agreeing most) are compared exactly, and at most
#: :data:`MAX_FLAGS` (the most similar) are flagged with it.
PER_BUCKET = 25
MAX_CANDIDATES = 100
MAX_EXACT = 20
MAX_FLAGS = 5

assert BANDS * ROWS == PERMUTATIONS

#: Han ideographs (with the iteration marks) and Hiragana: each one a word, as in the
#: search index (:data:`paperdesk.core.search.words.IDEOGRAPHS`): Chinese and Japanese
#: are written without spaces, so a run of letters there is a whole clause, and two
#: abstracts one word apart shared no shingle.
_WORD_RE = re.compile(rf"[^\W_{IDEOGRAPHS}]+|[{IDEOGRAPHS}]")
_rng = np.random.default_rng(20261201)
_A = (_rng.integers(0, 2**63, PERMUTATIONS, dtype=np.uint64) * np.uint64(2)
      + np.uint64(1))[:, None]
_B = _rng.integers(0, 2**63, PERMUTATIONS, dtype=np.uint64)[:, None]


def words(text: str) -> list[str]:
    """The words of ``text`` as the measure sees them: NFKC, case-folded, runs of letters
    and digits (everything else separates words), each Han ideograph and Hiragana
    character a word of its own (Chinese and Japanese: a word 3-shingle is then three
    characters).

    Args:
        text: any string.
    Returns:
        The words in order (empty for text without letters or digits).
    """
    if text.isascii():
        return text.translate(_ASCII_WORDS).split()
    return _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())


# ASCII text (most abstracts) takes a faster path with the same words: NFKC leaves every
# ASCII character as it is, case-folding an ASCII letter is lowering it, and the letters
# and digits of ASCII are exactly what ``[^\W_]`` matches there; so each upper-case
# letter is lowered, every other character that is not a letter or digit becomes a space,
# and the text is split at spaces (str.translate and str.split: half the CPU of NFKC
# and the regular expression on recombined seed abstracts).
_ASCII_WORDS = str.maketrans({chr(c): (chr(c).lower() if chr(c).isalnum() else " ")
                              for c in range(128)})


def shingles(text: str) -> frozenset[str]:
    """The set of word 3-shingles of ``text`` (words joined by one space); one shingle of
    all its words when it has fewer than three; empty for text without words."""
    w = words(text)
    if len(w) < SHINGLE_WORDS:
        return frozenset([" ".join(w)]) if w else frozenset()
    return frozenset(" ".join(w[i:i + SHINGLE_WORDS])
                     for i in range(len(w) - SHINGLE_WORDS + 1))


class _WordHashes(dict):
    """word → its 64-bit hash (the first 8 bytes of its UTF-8 BLAKE2b digest, little
    endian), computed once per distinct word; emptied when it reaches
    :data:`_WORD_CACHE_MAX` words (a million words: about 100 MB at most)."""

    def __missing__(self, word: str) -> int:
        if len(self) >= _WORD_CACHE_MAX:
            self.clear()
        value = self[word] = int.from_bytes(
            hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")
        return value


_WORD_CACHE_MAX = 1 << 20
_WORD_HASHES = _WordHashes()


def forget_word_hashes() -> int:
    """Empty the cache of word hashes that :func:`shingle_hashes` fills (one entry per
    distinct word seen: 206,000 words and 25 MB at 30,000 Zipf abstracts, up to
    :data:`_WORD_CACHE_MAX` words); the near-duplicate stage calls it when it ends, so
    that the window does not keep it between stages.

    Returns:
        How many words were forgotten.
    """
    count = len(_WORD_HASHES)
    _WORD_HASHES.clear()
    return count
# Odd multipliers that chain a shingle's word hashes (position 1 and 2), and the
# finaliser of SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number
# generators", OOPSLA 2014), which spreads the chained value over all 64 bits.
_CHAIN = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _finalise(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * _MIX[0]
        x = x ^ (x >> np.uint64(27))
        x = x * _MIX[1]
        return x ^ (x >> np.uint64(31))


def _hashed_words(ws: list[str]) -> np.ndarray:
    """The shingle hashes of a list of words: sorted, distinct, ``uint64``."""
    if not ws:
        return np.empty(0, dtype=np.uint64)
    table = _WORD_HASHES
    h = np.fromiter(map(table.__getitem__, ws), dtype=np.uint64, count=len(ws))
    with np.errstate(over="ignore"):
        if len(h) < SHINGLE_WORDS:          # one shingle of all its words
            chained = h[:1]
            for k in range(1, len(h)):
                chained = chained * _CHAIN[k - 1] + h[k:k + 1]
        else:
            chained = (h[:-2] * _CHAIN[0] + h[1:-1]) * _CHAIN[1] + h[2:]
    return np.unique(_finalise(chained))


def shingle_hashes(text: str) -> np.ndarray:
    """The word 3-shingles of ``text`` (as :func:`shingles` makes them) each as a 64-bit
    hash: what the near-duplicate stage compares and signs. Each word is hashed once
    (BLAKE2b, cached), and a shingle's hash chains its words' hashes with odd
    multipliers and mixes the result with SplitMix64's finaliser, all in numpy: 4-5×
    less CPU than hashing every shingle's text. Two different shingles share a hash
    with a chance of about 2⁻⁶⁴, so :func:`jaccard` of two such arrays is the
    similarity of :func:`similarity` (a test compares them on the seed abstracts).

    Args:
        text: any string.
    Returns:
        Sorted distinct ``uint64`` values, one per distinct shingle (empty for text
        without words).
    """
    return _hashed_words(words(text))


def _hashes_of(shingle_set) -> np.ndarray:
    """:func:`shingle_hashes` of a set made by :func:`shingles` (or the array itself)."""
    if isinstance(shingle_set, np.ndarray):
        return shingle_set
    if not shingle_set:
        return np.empty(0, dtype=np.uint64)
    return np.unique(np.concatenate([_hashed_words(s.split(" ")) for s in shingle_set]))


def jaccard(a, b) -> float:
    """``|a ∩ b| / |a ∪ b|`` (0.0 when either is empty).

    Args:
        a, b: two sets from :func:`shingles`, or two arrays from :func:`shingle_hashes`.
    Returns:
        The similarity, 0.0 to 1.0.
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = _hashes_of(a), _hashes_of(b)
        if not len(a) or not len(b):
            return 0.0
        inter = len(np.intersect1d(a, b, assume_unique=True))
        return inter / (len(a) + len(b) - inter)
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def similarity(text_a: str, text_b: str) -> float:
    """The measure: Jaccard similarity of the two texts' word 3-shingles, 0.0 to 1.0."""
    return jaccard(shingles(text_a), shingles(text_b))


def signature(shingle_set) -> np.ndarray | None:
    """The MinHash signature of a shingle set.

    Args:
        shingle_set: the array of :func:`shingle_hashes` (or a set from
            :func:`shingles`, hashed the same way).
    Returns:
        ``uint64`` array of :data:`PERMUTATIONS` values below 2³², or ``None`` for a set
        of fewer than :data:`MIN_SHINGLES` shingles (too short to compare).
    """
    hashed = _hashes_of(shingle_set)
    if len(hashed) < MIN_SHINGLES:
        return None
    with np.errstate(over="ignore"):
        permuted = (_A * hashed[None, :] + _B) >> np.uint64(32)
    return permuted.min(axis=1)


def signature_bytes(sig: np.ndarray) -> bytes:
    """A signature as stored: :data:`PERMUTATIONS` little-endian 32-bit values."""
    return sig.astype("<u4").tobytes()


def estimate(a: bytes, b: bytes) -> float:
    """The MinHash estimate of J: the share of places two stored signatures agree in."""
    return estimates(a, [b])[0]


def estimates(a: bytes, others: list[bytes]) -> list[float]:
    """:func:`estimate` of ``a`` against each of ``others`` at once (0.0 for a signature
    of another length)."""
    x = np.frombuffer(a, dtype="<u4")
    same = [o for o in others if len(o) == len(a)]
    if not same:
        return [0.0] * len(others)
    agree = (np.frombuffer(b"".join(same), dtype="<u4").reshape(len(same), len(x)) == x)
    shares = iter((agree.sum(axis=1) / len(x)).tolist())
    return [next(shares) if len(o) == len(a) else 0.0 for o in others]


def band_hashes(sig: np.ndarray) -> list[int]:
    """The LSH bucket of each band of a signature: a signed 32-bit integer hashing the
    band number and its :data:`ROWS` values (chained with odd multipliers and mixed by
    SplitMix64's finaliser, as :func:`shingle_hashes`; all bands at once in numpy).

    Args:
        sig: from :func:`signature`.
    Returns:
        :data:`BANDS` integers; equal buckets of two signatures mean equal bands (up to a
        2⁻³² chance of a collision, which the exact check then rejects).
    """
    rows = sig.reshape(BANDS, ROWS).astype(np.uint64)
    with np.errstate(over="ignore"):
        chained = _BAND_NUMBERS
        for k in range(ROWS):
            chained = chained * _CHAIN[k % 2] + rows[:, k]
    return (_finalise(chained) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(
        np.int32).tolist()


_BAND_NUMBERS = np.arange(1, BANDS + 1, dtype=np.uint64)


@dataclass(frozen=True)
class Signed:
    """One abstract as the near-duplicate stage keeps it (:func:`signed_batch`).

    Attributes:
        shingles: :func:`shingle_hashes` of the abstract (sorted distinct ``uint64``).
        buckets: :func:`band_hashes` of its signature (empty when it has none).
        signature: :func:`signature_bytes` of its signature, or ``None`` for an
            abstract of fewer than :data:`MIN_SHINGLES` shingles.
    """

    shingles: np.ndarray
    buckets: list[int]
    signature: bytes | None


def _shingle_runs(texts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shingle hashes of many texts at once (see :func:`signed_batch`).

    Returns:
        ``(vals, seg, bounds)``: ``vals`` the sorted distinct shingle hashes of each text
        one after the other (``uint64``), ``seg`` the text of each value, and ``bounds``
        (``len(texts) + 1``) where each text's run starts and ends in ``vals``.
    """
    word_lists = [words(t) for t in texts]
    n = len(word_lists)
    table = _WORD_HASHES
    flat = [w for ws in word_lists for w in ws]
    h = np.fromiter(map(table.__getitem__, flat), dtype=np.uint64, count=len(flat))
    lens = np.fromiter(map(len, word_lists), dtype=np.int64, count=n)
    starts = np.cumsum(lens) - lens
    counts = np.where(lens >= SHINGLE_WORDS, lens - (SHINGLE_WORDS - 1), 0)
    pos = (np.repeat(starts - (np.cumsum(counts) - counts), counts)
           + np.arange(int(counts.sum()), dtype=np.int64))
    seg = np.repeat(np.arange(n, dtype=np.int64), counts)
    with np.errstate(over="ignore"):
        vals = ((h[pos] * _CHAIN[0] + h[pos + 1]) * _CHAIN[1] + h[pos + 2]
                if len(pos) else np.empty(0, dtype=np.uint64))
        short = [k for k in range(n) if 0 < lens[k] < SHINGLE_WORDS]
        if short:                             # one shingle of all its (1-2) words
            extra = []
            for k in short:
                chained = h[starts[k]:starts[k] + 1]
                for j in range(1, int(lens[k])):
                    chained = chained * _CHAIN[j - 1] + h[starts[k] + j:starts[k] + j + 1]
                extra.append(chained)
            vals = np.concatenate([vals, *extra])
            seg = np.concatenate([seg, np.array(short, dtype=np.int64)])
    vals = _finalise(vals)
    order = np.lexsort((vals, seg))
    vals, seg = vals[order], seg[order]
    keep = np.ones(len(vals), dtype=bool)
    keep[1:] = (vals[1:] != vals[:-1]) | (seg[1:] != seg[:-1])
    vals, seg = vals[keep], seg[keep]
    return vals, seg, np.searchsorted(seg, np.arange(n + 1))


def shingle_batch(texts) -> list[np.ndarray]:
    """:func:`shingle_hashes` of many texts at once: the same values to the bit, numpy
    called a few times for the whole batch (the near-duplicate stage's re-shingling of
    the candidates it compares exactly).

    Args:
        texts: a sequence of strings.
    Returns:
        One sorted distinct ``uint64`` array per text, in order.
    """
    if not len(texts):
        return []
    vals, _seg, bounds = _shingle_runs(texts)
    b = bounds.tolist()
    return [vals[b[k]:b[k + 1]] for k in range(len(texts))]


def signed_batch(texts) -> list[Signed]:
    """:func:`shingle_hashes`, :func:`signature`, :func:`band_hashes` and
    :func:`signature_bytes` of many abstracts at once: the same values to the bit, with
    numpy called a few times per batch instead of a few times per abstract (the
    near-duplicate stage's per-abstract cost; ``benchmarks/duplicates_bench.py``).

    How: every word of the batch is hashed in one pass; the shingles' chained hashes are
    computed over the concatenated words and those that straddle two abstracts dropped;
    one ``lexsort`` by (abstract, hash) gives each abstract's sorted distinct shingles
    (no ``np.unique`` per abstract); the MinHash minima are one
    ``np.minimum.reduceat`` over the abstracts' runs, and the bands of all signatures are
    hashed together.

    Args:
        texts: a sequence of strings (abstracts).
    Returns:
        One :class:`Signed` per text, in order.
    """
    n = len(texts)
    if not n:
        return []
    vals, seg, bounds = _shingle_runs(texts)
    distinct = np.diff(bounds)
    signed = distinct >= MIN_SHINGLES
    sigs = np.empty((0, PERMUTATIONS), dtype=np.uint64)
    if signed.any():
        mine = signed[seg]
        run_starts = np.cumsum(distinct[signed]) - distinct[signed]
        with np.errstate(over="ignore"):
            permuted = np.multiply(_A, vals[mine][None, :])    # in place from here on
            permuted += _B
            permuted >>= np.uint64(32)
        sigs = np.minimum.reduceat(permuted, run_starts, axis=1).T
    buckets = _band_rows(sigs)
    sig_bytes = sigs.astype("<u4")
    out, j, b = [], 0, bounds.tolist()
    for k in range(n):
        sh = vals[b[k]:b[k + 1]]
        if signed[k]:
            out.append(Signed(sh, buckets[j], sig_bytes[j].tobytes()))
            j += 1
        else:
            out.append(Signed(sh, [], None))
    return out


def lookup_keys(texts) -> list[tuple[bytes | None, list[int]]]:
    """What looking up a near-duplicate of each text in a library needs of the text
    alone (:func:`paperdesk.core.store.duplicates.closest_paper`'s ``keys``): its
    signature as stored and its LSH buckets, computed for many texts at once
    (:func:`signed_batch`: the values :func:`signature`, :func:`signature_bytes` and
    :func:`band_hashes` give one text at a time, to the bit). The parse child of a large
    arXiv import computes them beside each record it reads (issue 28), so that the
    storing process does not.

    Args:
        texts: a sequence of strings (normalised abstracts, as stored).
    Returns:
        One ``(signature bytes, buckets)`` per text, in order: :data:`PERMUTATIONS`
        little-endian 32-bit values and :data:`BANDS` signed 32-bit buckets, or
        ``(None, [])`` for a text of fewer than :data:`MIN_SHINGLES` shingles (never a
        near-duplicate).
    """
    return [(s.signature, s.buckets) for s in signed_batch(texts)]


#: Bits of a paper's shingle bitmap (:func:`shingle_bitmaps`): 128 bytes a paper.
BITMAP_BITS = 1024


def shingle_bitmaps(shingle_sets) -> np.ndarray:
    """Each shingle set as a bitmap of :data:`BITMAP_BITS` bits, bit ``h mod 1024`` set
    for each of its shingle hashes ``h``: what the near-duplicate stage keeps of a
    paper beside its bands, so that most candidates need not be read and shingled again
    (:func:`overlap_bound`).

    Args:
        shingle_sets: arrays from :func:`shingle_hashes` (or :func:`shingle_batch`).
    Returns:
        ``(len(shingle_sets), BITMAP_BITS // 8)`` ``uint8`` array (bit ``b`` is bit
        ``b % 8`` of byte ``b // 8``).
    """
    n = len(shingle_sets)
    lens = np.fromiter(map(len, shingle_sets), dtype=np.int64, count=n)
    flat = np.zeros(n * BITMAP_BITS, dtype=bool)
    if lens.sum():
        vals = np.concatenate([np.asarray(s, dtype=np.uint64) for s in shingle_sets])
        flat[np.repeat(np.arange(n, dtype=np.int64) * BITMAP_BITS, lens)
             + (vals & np.uint64(BITMAP_BITS - 1)).astype(np.int64)] = True
    return np.packbits(flat.reshape(n, BITMAP_BITS), axis=1, bitorder="little")


def overlap_bound(shingle_sets, bitmaps: np.ndarray) -> np.ndarray:
    """An upper bound of the similarity of each shingle set with the paper a bitmap
    stands for, never below it: with ``I`` the shingles of ``A`` whose bit is set in
    ``B``'s bitmap (every shared shingle is among them, so ``I >= |A ∩ B|``) and ``P``
    the bits set in it (``P <= |B|``), ``J(A, B) <= I / (|A| + P - I)``. An all-zero
    bitmap (not known) gives 1.0.

    Args:
        shingle_sets: arrays from :func:`shingle_hashes`, one per bitmap.
        bitmaps: ``(len(shingle_sets), BITMAP_BITS // 8)`` ``uint8`` from
            :func:`shingle_bitmaps`.
    Returns:
        ``float64`` array of bounds, 0.0 to 1.0.
    """
    n = len(shingle_sets)
    out = np.ones(n, dtype=np.float64)
    if not n:
        return out
    bitmaps = np.asarray(bitmaps, dtype=np.uint8).reshape(n, BITMAP_BITS // 8)
    lens = np.fromiter(map(len, shingle_sets), dtype=np.int64, count=n)
    pop = np.unpackbits(bitmaps, axis=1).sum(axis=1, dtype=np.int64)
    if not lens.sum():
        return out
    bits = (np.concatenate([np.asarray(s, dtype=np.uint64) for s in shingle_sets])
            & np.uint64(BITMAP_BITS - 1)).astype(np.int64)
    owner = np.repeat(np.arange(n, dtype=np.int64), lens)
    hit = (bitmaps[owner, bits >> 3] >> (bits & 7).astype(np.uint8)) & 1
    inter = np.bincount(owner, weights=hit, minlength=n).astype(np.int64)
    known = (pop > 0) & (lens > 0)
    denom = lens + pop - inter
    out[known] = inter[known] / denom[known]
    return out


def _band_rows(sigs: np.ndarray) -> list[list[int]]:
    """:func:`band_hashes` of each row of ``sigs`` (``(m, PERMUTATIONS)``), at once."""
    rows = sigs.reshape(len(sigs), BANDS, ROWS).astype(np.uint64)
    with np.errstate(over="ignore"):
        chained = np.broadcast_to(_BAND_NUMBERS, (len(sigs), BANDS))
        for k in range(ROWS):
            chained = chained * _CHAIN[k % 2] + rows[:, :, k]
    return (_finalise(chained) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(
        np.int32).tolist()


_TOKEN_RE = re.compile(r"\S+|\s+")


def word_diff(text_a: str, text_b: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Mark the differences between two texts word by word (:mod:`difflib`'s
    ``SequenceMatcher`` over white-space separated words, compared exactly as written,
    so a changed comma marks its word).

    Args:
        text_a, text_b: the two texts (plain text).
    Returns:
        ``(left, right)``: each a list of ``(kind, text)`` runs that concatenate to the
        text, ``kind`` being ``"same"``, or ``"removed"`` in ``left`` (words only ``a``
        has) and ``"added"`` in ``right`` (words only ``b`` has).
    """
    ta, tb = _TOKEN_RE.findall(text_a), _TOKEN_RE.findall(text_b)
    wa = [i for i, t in enumerate(ta) if not t.isspace()]
    wb = [i for i, t in enumerate(tb) if not t.isspace()]
    matcher = difflib.SequenceMatcher(None, [ta[i] for i in wa], [tb[i] for i in wb],
                                      autojunk=False)
    kind_a = ["same"] * len(ta)
    kind_b = ["same"] * len(tb)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for k in range(i1, i2):
            kind_a[wa[k]] = "removed"
        for k in range(j1, j2):
            kind_b[wb[k]] = "added"
        # the space between two changed words is marked with them
        for kinds, idx, lo, hi, mark in ((kind_a, wa, i1, i2, "removed"),
                                         (kind_b, wb, j1, j2, "added")):
            for k in range(lo, hi - 1):
                for t in range(idx[k] + 1, idx[k + 1]):
                    kinds[t] = mark

    def runs(tokens, kinds):
        out: list[tuple[str, str]] = []
        for tok, kind in zip(tokens, kinds):
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + tok)
            else:
                out.append((kind, tok))
        return out

    return runs(ta, kind_a), runs(tb, kind_b)


@dataclass(frozen=True)
class DuplicatePair:
    """Two papers flagged as possible near-duplicates.

    Attributes:
        paper_a, paper_b: the ids, ``paper_a < paper_b``.
        similarity: the measure (Jaccard of word 3-shingles), 0.5 to 1.0.
        status: ``"open"`` (to look at) or ``"dismissed"`` ("not duplicates").
        title_a, title_b: the papers' shown titles.
        found_at: ISO 8601 UTC time the pair was flagged.
    """

    paper_a: int
    paper_b: int
    similarity: float
    status: str
    title_a: str = ""
    title_b: str = ""
    found_at: str = ""

    def to_dict(self) -> dict:
        """JSON shape for the CLI (``similarity`` rounded to 3 places)."""
        d = asdict(self)
        d["similarity"] = round(self.similarity, 3)
        return d


# -- merging -----------------------------------------------------------------------------
#: The line that separates the kept paper's note from the merged one's.
NOTE_SEPARATOR = "\n\n---\n\n"


@dataclass(frozen=True)
class HighlightMove:
    """Where one highlight of the merged paper goes on the kept paper.

    Attributes:
        id: the highlight's id (kept, with its colour, comment and date).
        start, end: its new offsets in the kept abstract, or ``None`` when its text is
            not in the kept abstract (it is then quoted in the note instead).
        how: ``"same"`` (its offsets hold the same text there), ``"moved"`` (found at
            another place), ``"duplicate"`` (the kept paper has this span highlighted
            already: dropped) or ``"lost"``.
    """

    id: int
    start: int | None
    end: int | None
    how: str


@dataclass(frozen=True)
class MergePlan:
    """What merging paper ``other`` into paper ``keep`` does (:func:`plan_merge`).

    Attributes:
        keep, other: the ids.
        title: the kept paper's title afterwards.
        metadata: its metadata afterwards (its own, gaps filled from ``other``'s).
        filled: names of the metadata parts filled in (``"authors"``, ``"date"`` ...).
        read_at: its read time afterwards (read when either was).
        starred: starred when either was.
        note: its note afterwards.
        highlights: one :class:`HighlightMove` per highlight of ``other``.
        tags_added: names of ``other``'s tags the kept paper did not have.
        file_title: the title a file gave the kept paper afterwards (its own, else
            ``other``'s; "" when neither has one).
        note_moved: ``other`` had a note (it moves to the kept paper's).
        marks: what the kept paper gains of ``other``'s marks: ``"starred"``,
            ``"read"`` (each only when the kept paper was not already).
    """

    keep: int
    other: int
    title: str
    metadata: object
    filled: tuple[str, ...]
    read_at: str | None
    starred: bool
    note: str
    highlights: tuple[HighlightMove, ...]
    tags_added: tuple[str, ...]
    file_title: str = ""
    note_moved: bool = False
    marks: tuple[str, ...] = ()

    @property
    def lost(self) -> int:
        """Highlights whose text the kept abstract does not have."""
        return sum(1 for h in self.highlights if h.how == "lost")

    def summary(self) -> str:
        """One line for people: what moved from the merged paper to the kept one (its
        note, its tags the kept paper lacked, its highlights placed on the kept
        abstract), the marks it gained, the metadata filled in, and how many highlights
        could not be placed (their text is in the note).

        Returns:
            e.g. ``"its note, 2 tags and 1 highlight moved; now read; filled in authors,
            date"``; ``"nothing else to combine"`` when the merged paper brings nothing.
        """
        moved = []
        if self.note_moved:
            moved.append("its note")
        if self.tags_added:
            moved.append(_count(len(self.tags_added), "tag"))
        placed = sum(1 for h in self.highlights if h.how in ("same", "moved"))
        if placed:
            moved.append(_count(placed, "highlight"))
        parts = []
        if moved:
            parts.append((", ".join(moved[:-1]) + " and " + moved[-1] if len(moved) > 1
                          else moved[0]) + " moved")
        if self.marks:
            parts.append("now " + " and ".join(self.marks))
        if self.filled:
            parts.append("filled in " + ", ".join(self.filled))
        if self.lost:
            parts.append(f"{_count(self.lost, 'highlight')} not in the kept abstract "
                         "(quoted in the note)")
        return "; ".join(parts) if parts else "nothing else to combine"


def _count(n: int, word: str) -> str:
    """``"1 tag"``, ``"2 tags"``, ``"1,200 tags"``."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _place(abstract: str, text: str, start: int) -> int | None:
    """The start of the occurrence of ``text`` in ``abstract`` nearest to ``start``."""
    if not text:
        return None
    best, pos = None, abstract.find(text)
    while pos != -1:
        if best is None or abs(pos - start) < abs(best - start):
            best = pos
        pos = abstract.find(text, pos + 1)
    return best


def plan_merge(keep, other) -> MergePlan:
    """Decide how paper ``other`` merges into paper ``keep`` (pure: nothing is written).

    Rules: tags are united; notes are combined (``keep``'s, then
    :data:`NOTE_SEPARATOR` and ``other``'s under a line naming it, when both have one;
    else whichever has one); each highlight of ``other`` keeps its offsets when the kept
    abstract has the same text there, else moves to the occurrence of its text nearest
    to where it was, else is quoted (with its comment) at the end of the note; metadata
    parts ``keep`` lacks are filled from ``other``
    (:func:`paperdesk.core.metadata.merge_metadata`); ``other``'s title is taken
    when ``keep``'s is still the one derived from its abstract and ``other``'s is not;
    read and starred are or-ed (the earlier read time is kept).

    Args:
        keep, other: :class:`~paperdesk.core.models.Paper` values.
    Returns:
        A :class:`MergePlan`.
    """
    meta = merge_metadata(keep.metadata, other.metadata)

    def stored(containers: bool) -> Iterator[tuple[str, str, str]]:
        return ((f.label.lower(), keep.metadata.value(f.name), meta.value(f.name))
                for f in stored_fields(containers))

    filled = tuple(name for name, a, b in (
        ("authors", keep.metadata.authors, meta.authors),
        ("date", keep.metadata.date, meta.date), *stored(containers=True),
        ("type", keep.metadata.entry_type, meta.entry_type),
        ("DOI", keep.metadata.doi, meta.doi), ("arXiv id", keep.metadata.arxiv_id,
                                               meta.arxiv_id),
        ("URL", keep.metadata.url, meta.url), *stored(containers=False)) if a != b)
    title = keep.title
    file_title = keep.file_title or other.file_title
    if not keep.title_edited and (other.title_edited
                                  or (not keep.file_title and other.file_title)):
        title = other.title
        filled = ("title", *filled)
    reads = [t for t in (keep.read_at, other.read_at) if t]
    own = {(h.start, h.end) for h in keep.highlights}
    moves, lost_lines = [], []
    for h in other.highlights:
        if keep.abstract[h.start:h.end] == h.text and h.text:
            start, how = h.start, "same"
        else:
            start, how = _place(keep.abstract, h.text, h.start), "moved"
        if start is None:
            moves.append(HighlightMove(h.id, None, None, "lost"))
            lost_lines.append(f"> {h.text}" + (f"\n\n{h.comment}" if h.comment else ""))
            continue
        end = start + len(h.text)
        if (start, end) in own:
            moves.append(HighlightMove(h.id, start, end, "duplicate"))
            continue
        own.add((start, end))
        moves.append(HighlightMove(h.id, start, end, how))
    notes = [n for n in (keep.note.strip() and keep.note,) if n]
    if other.note.strip():
        notes.append(other.note if not notes else
                     f"Note of the merged paper “{other.title}”:\n\n{other.note}")
    if lost_lines:
        notes.append(f"Highlights of the merged paper “{other.title}” that the kept "
                     "abstract does not have:\n\n" + "\n\n".join(lost_lines))
    note = NOTE_SEPARATOR.join(notes) if notes else keep.note
    mine = {t.name.casefold() for t in keep.tags}
    marks = tuple(mark for mark, gained in (
        ("starred", other.starred and not keep.starred),
        ("read", bool(other.read_at) and not keep.read_at)) if gained)
    return MergePlan(keep.id, other.id, title, meta, filled, min(reads) if reads else None,
                     keep.starred or other.starred, note, tuple(moves),
                     tuple(t.name for t in other.tags if t.name.casefold() not in mine),
                     file_title, note_moved=bool(other.note.strip()), marks=marks)
