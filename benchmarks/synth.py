"""Synthetic abstract files for benchmarks: sentences of the seed abstracts recombined.

Each synthetic abstract is 6-10 sentences drawn (with a fixed random seed) from the seed
abstracts, plus one token unique to that paper (``uqk<number in base 26>``), so that a
rare-term query has exactly one hit. Files are written in the Daily Papers format, so they
go through the same import path as real data.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from paperdesk.core.imports.daily_papers import read_file

__all__ = ["seed_sentences", "unique_token", "write_synthetic_files"]

_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def seed_sentences(seed_files: list[Path]) -> list[str]:
    """Return the distinct sentences of the seed abstracts (split at . ! ? + capital)."""
    out: dict[str, None] = {}
    for path in seed_files:
        for item in read_file(path).abstracts:
            for s in _SENTENCE_RE.split(item.abstract):
                if len(s) > 20:
                    out.setdefault(s, None)
    return list(out)


def unique_token(n: int) -> str:
    """Return the unique token of synthetic paper ``n`` (letters only, e.g. ``uqkbaaq``).

    The final ``q`` keeps the Porter stemmer from folding two tokens into one (it would
    turn ``uqkbcds`` into ``uqkbcd``)."""
    letters = ""
    n += 26 * 26  # at least three letters after the prefix
    while n:
        n, r = divmod(n, 26)
        letters = chr(97 + r) + letters
    return "uqk" + letters + "q"


def write_synthetic_files(folder: Path, seed_files: list[Path], n: int,
                          per_file: int = 10_000, seed: int = 42) -> list[Path]:
    """Write ``n`` synthetic abstracts into Daily Papers files of ``per_file`` each.

    Args:
        folder: output folder (created).
        seed_files: the seed abstract files to take sentences from.
        n: number of abstracts.
        per_file: abstracts per file.
        seed: random seed (same seed, same files).
    Returns:
        The files written, in order.
    """
    rng = random.Random(seed)
    sentences = seed_sentences(seed_files)
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for start in range(0, n, per_file):
        path = folder / f"synthetic_{start // per_file:03d}.txt"
        with path.open("w", encoding="utf-8") as fh:
            fh.write(f"Synthetic papers {start}-{min(n, start + per_file) - 1}\n\n")
            for i in range(start, min(n, start + per_file)):
                body = " ".join(rng.sample(sentences, rng.randint(6, 10)))
                fh.write(f"{body} Token {unique_token(i)}.\n\n")
        files.append(path)
    return files
