"""Snippet benchmark (issue 14 item 5): the cases that were quadratic.

Usage::

    python benchmarks/snippet_bench.py [--chars 2400000] [--papers 20000] [--repeat 3]
                                       [--json] [--workdir DIR]

Builds two libraries through paperdesk's own import path: one whose abstract is
``--chars`` characters long (every third word "alpha"), and one of ``--papers`` short
abstracts that all match "alpha". Then times, median of ``--repeat`` runs in
milliseconds:

- ``find_long``: ``lib.search.find("alpha")`` on the long abstract (top 50 with snippets;
  127 s before the fix at 2.4 MB);
- ``detail_html_long``: the detail pane's HTML of that paper with the hits marked
  (``paper_body_html``: what the window builds when the paper is selected);
- ``snippets_all``: ``lib.search.snippets("alpha", ids)`` for every one of the matches
  (the "snippet step" of 20,000 matches: 21 s before);
- ``find_all``: ``lib.search.find("alpha", limit=None)``, rows and snippets for every match.

``make bench-snippets`` runs it with the defaults; docs/figures.md ("Measured figures") has a
run's figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from paperdesk.core.library import Library  # noqa: E402


def _long_abstract(chars: int) -> str:
    unit = "alpha beta gamma delta "
    return "A long abstract on alpha. " + unit * (chars // len(unit) + 1)


def _write(path: Path, abstracts: list[str]) -> Path:
    path.write_text("Snippet bench\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 1)


def run(workdir: Path, chars: int, papers: int, repeat: int) -> dict:
    """Build the two libraries in ``workdir`` and time the four operations.

    Args:
        workdir: an empty folder for the files and libraries.
        chars: length of the long abstract, in characters.
        papers: number of matching papers in the second library.
        repeat: timed runs per figure (the median is reported).
    Returns:
        ``{"chars", "papers", "repeat", "ms": {name: median ms}}``.
    """
    # Imported here: benchmarks/ must not need Qt to be importable elsewhere.
    from paperdesk.ui.panes.paper_html import paper_body_html  # noqa: PLC0415

    long_file = _write(workdir / "long.txt", [_long_abstract(chars),
                                              "A short paper on alpha decay."])
    many_file = _write(workdir / "many.txt", [
        f"Paper {i} studies alpha in setting {i} and finds alpha stable."
        for i in range(papers)])
    ms: dict[str, float] = {}
    with Library.open(workdir / "long-lib") as lib:
        lib.imports.run([long_file])
        pid = max(lib.papers.ids(), key=lambda i: len(lib.papers.get(i).abstract))
        # An import cuts abstracts at 100,000 characters (issue 23); a library imported
        # before that can hold the whole one, as written here with SQL.
        with lib.db.conn:
            lib.db.execute("UPDATE papers SET abstract = ? WHERE id = ?",
                           [_long_abstract(chars).strip(), pid])
        lib.index.reindex()
        ms["find_long"] = _median_ms(lambda: lib.search.find("alpha"), repeat)
        paper, terms = lib.papers.get(pid), lib.search.match_terms("alpha")
        ms["detail_html_long"] = _median_ms(lambda: paper_body_html(paper, terms), repeat)
    with Library.open(workdir / "many-lib") as lib:
        lib.imports.run([many_file])
        ids = lib.search.find("alpha", limit=0).ids.tolist()
        ms["snippets_all"] = _median_ms(lambda: lib.search.snippets("alpha", ids), repeat)
        ms["find_all"] = _median_ms(lambda: lib.search.find("alpha", limit=None), repeat)
    return {"chars": chars, "papers": papers, "repeat": repeat, "ms": ms}


def markdown(report: dict) -> str:
    """The report as a Markdown table."""
    rows = [f"| {name} | {value:,.1f} |" for name, value in report["ms"].items()]
    return "\n".join([f"Snippets: {report['chars']:,}-character abstract, "
                      f"{report['papers']:,} matching papers (median of {report['repeat']})",
                      "", "| operation | ms |", "|---|---:|", *rows])


def main(argv=None) -> int:
    """Run the benchmark and print the figures (Markdown, or JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=2_400_000)
    parser.add_argument("--papers", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="paperdesk-snippet-bench-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        report = run(workdir, args.chars, args.papers, args.repeat)
    print(json.dumps(report, indent=2) if args.json else markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
