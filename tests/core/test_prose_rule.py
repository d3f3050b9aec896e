"""The prose rule of plain-text imports (``daily_papers.prose_problem``): Markdown, source
code and delimiter-separated tables are refused with a one-line reason naming the file,
while every real abstract (the seeds, and prose with the usual oddities) still passes."""

from __future__ import annotations

import pytest

from paperdesk.core.imports.daily_papers import prose_problem, split_paragraphs

MARKDOWN = ("# Papers to read\n\n## Monday\n\n* [ ] the segmentation one\n* [x] the "
            "survey\n\n| title | read |\n| :--- | ---: |\n| Nets | yes |\n\n~~~bash\nls -l\n"
            "~~~\n\n> quoted line\n> another quoted line\n")
PYTHON = ("import sys\nfrom pathlib import Path\n\n\nclass Loader:\n    \"\"\"Loads the "
          "things we need, described in a sentence of prose.\"\"\"\n\n    def load(self, "
          "path):\n        with open(path) as f:\n            return f.read()\n\n\n"
          "print(Loader().load(sys.argv[1]))\n")
JAVASCRIPT = ("const fs = require('fs');\nlet total = 0;\n\nfunction add(x) {\n  total += x;"
              "\n  return total;\n}\n\nmodule.exports = { add };\n")
CSV_CRLF = ('key,title,abstract\r\n7,"Deep, wide","We propose a model, which is big, '
            'and fast."\r\n8,"Small","A second abstract, with commas, and more."\r\n'
            '9,"Third","Yet another, quoted, abstract."\r\n')
SEMICOLONS = "name;year;venue\nNets;2020;CVPR\nMore nets;2021;ICCV, oral\n"


@pytest.mark.parametrize("name, text, kind", [
    ("reading.md", MARKDOWN, "Markdown"),
    ("loader.py", PYTHON, "source code"),
    ("add.js", JAVASCRIPT, "source code"),
    ("papers.csv", CSV_CRLF, "a table"),
    ("papers.txt", SEMICOLONS, "a table"),
])
def test_markdown_code_and_tables_are_refused_naming_the_file(empty_library, tmp_path,
                                                              name, text, kind):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    report = empty_library.imports.run([path])
    (rejected,) = report.rejected
    assert rejected["path"] == str(path)
    assert rejected["reason"].startswith("not abstracts: ")
    assert kind in rejected["reason"] and "\n" not in rejected["reason"]
    assert empty_library.papers.count() == 0


@pytest.mark.parametrize("paragraph, kind", [
    ("## Results", "Markdown"),
    ("```python\nx = 1\n```", "Markdown"),
    ("- [ ] read it\n- [x] skim it", "Markdown"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "Markdown"),
    ("import numpy as np", "source code"),
    ("def main():\n    # compute\n    for i in range(3):\n        print(i)", "source code"),
    ("main()", "source code"),
    ('a,"b, c",d\r\ne,"f",g', "a table"),
    ("x\ty\nz\tw", "a table"),
    # a new user's 5 MB of "word12345 word678": said as symbols alone before
    ("word12345 word678 word90123 word4567 " * 20, "digits and symbols rather than words"),
])
def test_kinds_of_paragraph_that_are_not_prose(paragraph, kind):
    assert prose_problem(paragraph) == kind


@pytest.mark.parametrize("paragraph", [
    "We study (i) depth and (ii) width of networks, e.g. ResNets, on 3 tasks; code is at "
    "https://github.com/x/y.",
    "We show that $x^2 + y^2 = z^2$ holds for $n \\geq 3$ and that $\\mathcal{O}(n)$ "
    "suffices {sic}.",
    "- We propose a method that works on every benchmark we tried, and explain why it "
    "generalises beyond them.",
    "We bound the error by O(n) and the runtime by f(x) = 2x; experiments confirm it.",
    "#1 on the leaderboard: we propose a model that tops the benchmark by a wide margin "
    "and explain why.",
    "Deep networks for depth estimation, a survey: we review the\nmethods, benchmarks "
    "and losses of the last decade, and we\ndiscuss open problems and trends.",
    "  Hard-wrapped arXiv abstract with leading spaces on every line\n  of it, as the "
    "metadata snapshot writes them, and nothing\n  else about it is unusual.",
    "Given a graph G = (V, E), we find a cut in O(|E|) time.",
])
def test_real_looking_abstracts_are_prose(paragraph):
    assert prose_problem(paragraph) is None


def test_no_seed_paragraph_is_refused(seed_files):
    count = 0
    for path in seed_files:
        for paragraph in split_paragraphs(path.read_text(encoding="utf-8")):
            count += 1
            assert prose_problem(paragraph) is None, paragraph[:120]
    assert count > 200
