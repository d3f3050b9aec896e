"""What embeddings cost (issue 27; the figures in docs/discover.md, "What it costs").

1. **Embedding speed** of each model on real abstracts (the SYNERGY reviews' titles and
   abstracts, cycled to ``--texts``): abstracts per second in one process, the time for
   100,000 extrapolated, and the growth of this process's resident memory.
2. **Related papers at a library's size** (``--papers``, default 100,000 synthetic
   abstracts from ``seeds/``, as ``make bench`` makes them): import, term table, then
   every paper embedded (wall time, with its child process), and the related papers of
   30 evenly spaced papers with tf-idf alone and with the hybrid (median and p95 ms).

Run ``.venv/bin/python tools/embedding_costs.py [--papers N] [--texts N] [--minilm N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _texts(folder: Path, n: int) -> list[str]:
    from paperdesk.core.discover.vectorize import paper_text

    items = []
    for csl in sorted(folder.glob("*.csl.json")):
        items += json.loads(csl.read_text("utf-8"))
    texts = [paper_text(i.get("title"), i.get("abstract")) for i in items]
    return [texts[k % len(texts)] for k in range(n)]


def embedding_speed(model, texts: list[str]) -> dict:
    """Abstracts per second of ``model.encode`` on ``texts`` (one call per 2,000)."""
    before = _rss_mb()
    start = time.perf_counter()
    for k in range(0, len(texts), 2000):
        model.encode(texts[k:k + 2000])
    seconds = time.perf_counter() - start
    return {"model": model.name, "texts": len(texts), "seconds": round(seconds, 2),
            "per_second": round(len(texts) / seconds, 1),
            "100k_minutes": round(100_000 / (len(texts) / seconds) / 60, 1),
            "rss_growth_mb": round(_rss_mb() - before, 1)}


def _ms(values: list[float]) -> dict:
    values = sorted(values)
    return {"median": round(statistics.median(values) * 1000, 2),
            "p95": round(values[int(0.95 * (len(values) - 1))] * 1000, 2)}


def _related_times(lib, sample: list[int]) -> list[float]:
    """Seconds of ``lib.discover.related`` for each paper (after one call not timed)."""
    lib.discover.related(sample[0])
    times = []
    for pid in sample:
        start = time.perf_counter()
        lib.discover.related(pid)
        times.append(time.perf_counter() - start)
    return times


def related_at_size(n: int, keep: Path | None = None) -> dict:
    """Import ``n`` synthetic papers, build, embed, time related papers (in the library
    ``keep`` when given: made the first time, reused after)."""
    from benchmarks.synth import write_synthetic_files
    from paperdesk.core.library import Library

    out: dict = {"papers": n}
    with tempfile.TemporaryDirectory(prefix="paperdesk-embedding-costs-") as tmp:
        folder = keep or Path(tmp) / "lib"
        made = (folder / "library.db").exists()
        files = [] if made else write_synthetic_files(
            Path(tmp) / "files", sorted((ROOT / "seeds").glob("*.txt")), n)
        with Library.open(folder) as lib:
            start = time.perf_counter()
            if files:
                lib.imports.run(files)
            out["import_s"] = round(time.perf_counter() - start, 1)
            start = time.perf_counter()
            lib.discover.ensure()
            out["term_table_s"] = round(time.perf_counter() - start, 1)
            ids = lib.papers.ids()
            sample = [ids[k * len(ids) // 30] for k in range(30)]
            tfidf = _related_times(lib, sample)
            start = time.perf_counter()
            out["embedded"] = lib.discover.embeddings.ensure()
            out["embed_s"] = round(time.perf_counter() - start, 1)
            rss = _rss_mb()
            hybrid = _related_times(lib, sample)
            out["tfidf_related_ms"] = _ms(tfidf)
            out["hybrid_related_ms"] = _ms(hybrid)
            out["rss_growth_with_vectors_mb"] = round(_rss_mb() - rss, 1)
            out["vectors_mb_on_disk"] = round(sum(
                p.stat().st_size for p in lib.discover.embeddings.folder.iterdir()) / 2**20, 1)
    return out


def main(argv=None) -> int:
    """Print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--texts", type=int, default=5000)
    parser.add_argument("--minilm", type=int, default=50,
                        help="abstracts for all-MiniLM-L6-v2 (0: not measured)")
    parser.add_argument("--synergy", type=Path, default=ROOT.parent / "shared" / "synergy")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="build the library in DIR (or reuse it) instead of a temporary one")
    args = parser.parse_args(argv)
    from paperdesk.core.embeddings.static_model import ModelUnavailable, StaticModel

    figures: dict = {"speed": []}
    texts = _texts(args.synergy, args.texts)
    figures["speed"].append(embedding_speed(StaticModel(), texts))
    if args.minilm:
        try:
            from paperdesk.core.embeddings.minilm import MiniLM
            figures["speed"].append(embedding_speed(MiniLM(), texts[:args.minilm]))
        except ModelUnavailable as exc:
            print(f"all-MiniLM-L6-v2 not measured: {exc}", file=sys.stderr)
    print(json.dumps(figures, indent=1), flush=True)
    if args.papers:
        figures["related"] = related_at_size(args.papers, args.keep)
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
