"""The README stays short and every relative link in README.md and docs/*.md leads somewhere
(issue 24, item 6: the user guide moved from the README to docs/*.md).

A link leads somewhere when its file exists and, if it names an anchor (``#part``) in a
Markdown file, that file has a heading whose GitHub slug is that anchor or an explicit
``<a id="part">``. GitHub's slug rule (github/cmark-gfm's ``anchor`` extension, as
github.com renders headings): the heading's text in lower case, every character that is
not a letter, digit, space, hyphen or underscore dropped, spaces turned into hyphens, and
``-1``, ``-2``, ... appended to the second, third, ... heading with the same slug.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

#: The README's budget in lines (issue 24: "README: at most ~300 lines").
README_MAX_LINES = 300

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
_EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def markdown_files() -> list[Path]:
    """Return README.md and every ``docs/*.md``, README first."""
    return [README, *sorted(DOCS.glob("*.md"))]


def _without_code(text: str) -> str:
    """``text`` with fenced code blocks and inline code spans blanked out."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def github_slug(heading: str) -> str:
    """Return the anchor GitHub gives a heading of text ``heading`` (Markdown source).

    Links and images keep their text, emphasis and code marks are dropped with the other
    punctuation; see the module docstring for the rule.
    """
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Return every anchor a link into Markdown file ``path`` may name.

    Returns: the GitHub slugs of its headings (duplicates numbered as GitHub numbers them)
    and its explicit ``<a id=...>`` / ``<a name=...>`` anchors.
    """
    text = path.read_text(encoding="utf-8")
    found: set[str] = set(_EXPLICIT_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in _HEADING.findall(_FENCE.sub("", text)):
        slug = github_slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    """Return the targets of the relative links and images in Markdown file ``path``.

    Targets with a scheme (``https:``, ``mailto:``) are left out, as is anything in code.
    """
    text = _without_code(path.read_text(encoding="utf-8"))
    return [t for t in _LINK.findall(text) if not _SCHEME.match(t)]


def broken_links(path: Path) -> list[str]:
    """Return ``"target: reason"`` for every relative link of ``path`` that leads nowhere."""
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        if not destination.exists():
            broken.append(f"{target}: no file {destination.relative_to(ROOT)}")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading or anchor #{anchor} in "
                          f"{destination.relative_to(ROOT)}")
    return broken


def test_readme_stays_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}); "
        "move the detail into docs/*.md and link it")


def test_every_relative_link_leads_to_a_file_and_anchor():
    broken = {str(p.relative_to(ROOT)): b for p in markdown_files() if (b := broken_links(p))}
    assert not broken, broken


def test_the_guide_is_linked_from_the_readme():
    linked = {(README.parent / t.partition("#")[0]).resolve()
              for t in relative_links(README) if t.partition("#")[0]}
    orphans = [p.name for p in DOCS.glob("*.md") if p.resolve() not in linked]
    assert not orphans, f"docs/*.md that the README does not link: {orphans}"


def test_the_link_checker_finds_broken_links(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text("# A `code` heading: (with) punctuation\n\n## Twice\n\n## Twice\n\n"
                    "<a id=\"made-up\"></a>text\n\n"
                    "[ok](#a-code-heading-with-punctuation) [ok](#twice-1) [ok](#made-up)\n"
                    "[ok](page.md#twice) [bad](#nowhere) [bad](missing.md)\n"
                    "![ok](page.md) [web](https://example.org/#x) `[code](#nowhere)`\n",
                    encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert broken_links(page) == ["#nowhere: no heading or anchor #nowhere in page.md",
                                  "missing.md: no file missing.md"]
