"""An arXiv-shaped metadata file: JSON Lines as in arXiv's bulk metadata snapshot.

The format is that of "arxiv-metadata-oai-snapshot.json" (Kaggle; built from arXiv's
OAI-PMH metadata, https://info.arxiv.org/help/oa/index.html), which
:mod:`paperdesk.core.imports.arxiv` reads: one JSON object a line with ``id``,
``submitter``, ``authors``, ``title``, ``comments``, ``journal-ref``, ``doi``,
``report-no``, ``categories``, ``license``, ``abstract``, ``versions``,
``update_date`` and ``authors_parsed``, in that order. As in the snapshot, titles and
abstracts are hard-wrapped LaTeX source (abstracts start with two spaces, lines end in
``\\n``), some with maths (``$O(n \\log n)$``), an accent (``{\\'e}``) or a percent
(``\\%``); most records have one version, some two; a quarter have a DOI and a
journal reference.

The words are those of the Zipf corpus (:class:`benchmarks.zipf_synth.ZipfCorpus`, its
own seed): an abstract is the Zipf abstract, its title the abstract's first sentence
of 5-12 words of the same law, drawn apart from the abstract (real titles are not the
abstract's first sentence). :func:`write_arxiv_file` writes ``cs_papers`` records with a
``cs.*`` category (some cross-listed, ``cs.LG stat.ML``) and, mixed among them one in
:data:`OTHER_EVERY`, records of other archives (``math.AG``, ``hep-th``, ...) that
``paperdesk import --category cs`` leaves out. Deterministic: the same arguments give
the same file byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.zipf_synth import ZipfCorpus, word_of_rank

__all__ = ["CS_CATEGORIES", "OTHER_CATEGORIES", "OTHER_EVERY", "write_arxiv_file"]

#: arXiv's computer-science categories (a sample; the snapshot's commonest first).
CS_CATEGORIES = ("cs.CV", "cs.LG", "cs.CL", "cs.AI", "cs.RO", "cs.CR", "cs.IT", "cs.DS",
                 "cs.NI", "cs.SE", "cs.DC", "cs.HC", "cs.IR", "cs.SY", "cs.LO")
#: Categories of other archives (``math-ph`` is not ``math``; none is ``cs``).
OTHER_CATEGORIES = ("math.AG", "hep-th", "astro-ph.GA", "cond-mat.str-el", "math-ph",
                    "quant-ph", "stat.ME", "physics.optics", "q-bio.NC", "econ.EM")
#: One record in OTHER_EVERY belongs to another archive (before the filter).
OTHER_EVERY = 5
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
           "Dec")
_LATEX = ("$O(n \\log n)$", "$\\alpha$", "$\\ell_1$", "{\\'e}", "10\\%", "$k$-means",
          "$\\mathbb{R}^d$")


def _wrap(words: list[str], width: int) -> list[str]:
    """Greedy line breaking (as textwrap.wrap does on single spaces, ten times faster)."""
    lines, line, used = [], [], -1
    for w in words:
        if line and used + 1 + len(w) > width:
            lines.append(" ".join(line))
            line, used = [], -1
        line.append(w)
        used += 1 + len(w)
    if line:
        lines.append(" ".join(line))
    return lines


def _name(rank: int) -> str:
    return word_of_rank(rank).capitalize()


def _record(corpus: ZipfCorpus, i: int, categories: str) -> dict:
    """The metadata object of record ``i`` (its own random stream: independent of the
    file's size)."""
    rng = np.random.default_rng((corpus.seed, 7, i))
    abstract, _ranks = corpus.abstract(i)
    title = " ".join(corpus.word(r) for r in corpus.ranks(rng, int(rng.integers(5, 13))))
    title = title[0].upper() + title[1:]
    words = abstract.split(" ")
    for _ in range(int(rng.poisson(0.6))):   # maths, accents and percents here and there
        words.insert(int(rng.integers(1, len(words))), _LATEX[int(rng.integers(len(_LATEX)))])
    abstract = "  " + "\n".join(_wrap(words, 80)) + "\n"
    title = "\n  ".join(_wrap(title.split(" "), 70))
    authors = []
    for _ in range(int(rng.integers(1, 7))):
        last = _name(int(rng.integers(200, 60_000)))
        first = _name(int(rng.integers(90, 3_000)))
        authors.append([last, first if rng.random() < 0.6 else first[0] + ".", ""])
    shown = [f"{first} {last}" for last, first, _s in authors]
    author_text = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    # ids in submission order, 6,000 a month from April 2007: YYMM.NNNN, and YYMM.NNNNN
    # from January 2015 (arXiv's rule)
    month = 7 * 12 + 3 + i // 6_000
    year, mon = divmod(month, 12)
    arxiv_id = f"{year:02d}{mon + 1:02d}.{i % 6_000 + 1:0{4 if year < 15 else 5}d}"
    day = int(rng.integers(1, 29))
    created = (f"{_DAYS[(day + mon) % 7]}, {day} {_MONTHS[mon]} {2000 + year} "
               f"{int(rng.integers(0, 24)):02d}:{int(rng.integers(0, 60)):02d}:"
               f"{int(rng.integers(0, 60)):02d} GMT")
    versions = [{"version": "v1", "created": created}]
    if rng.random() < 0.3:
        versions.append({"version": "v2", "created": created.replace(
            f" {2000 + year} ", f" {2001 + year} ")})
    published = rng.random() < 0.25
    return {
        "id": arxiv_id, "submitter": shown[0],
        "authors": author_text, "title": title,
        "comments": f"{int(rng.integers(4, 40))} pages, {int(rng.integers(1, 12))} figures",
        "journal-ref": (f"{_name(int(rng.integers(100, 400)))} Journal "
                        f"{int(rng.integers(1, 90))} ({2001 + year})") if published else None,
        "doi": f"10.{int(rng.integers(1000, 9999))}/zs.{arxiv_id}" if published else None,
        "report-no": None, "categories": categories,
        "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
        "abstract": abstract, "versions": versions,
        "update_date": f"{2000 + year + len(versions) - 1}-{mon + 1:02d}-{day:02d}",
        "authors_parsed": authors,
    }


def write_arxiv_file(path: Path, cs_papers: int, seed: int = 17) -> dict:
    """Write an arXiv metadata snapshot of ``cs_papers`` computer-science records and
    ``cs_papers // (OTHER_EVERY - 1)`` of other archives (mixed among them) to ``path``.

    Args:
        path: the ``.jsonl`` file to write (its folder is created).
        cs_papers: records that ``--category cs`` keeps.
        seed: random seed (same seed, same file).
    Returns:
        ``{"records", "cs_papers", "other", "bytes"}``.
    """
    corpus = ZipfCorpus(seed=seed, cached_words=min(200_000, 50 * cs_papers))
    path.parent.mkdir(parents=True, exist_ok=True)
    cs = other = i = 0
    with path.open("w", encoding="utf-8") as fh:
        while cs < cs_papers:
            if i % OTHER_EVERY == OTHER_EVERY - 1:
                cats = OTHER_CATEGORIES[i % len(OTHER_CATEGORIES)]
                other += 1
            else:
                cats = CS_CATEGORIES[(i * 7 + i // 3) % len(CS_CATEGORIES)]
                if i % 6 == 0:
                    cats += " stat.ML" if i % 12 == 0 else " " + OTHER_CATEGORIES[i % 3]
                cs += 1
            fh.write(json.dumps(_record(corpus, i, cats)) + "\n")
            i += 1
    return {"records": i, "cs_papers": cs, "other": other, "bytes": path.stat().st_size}
