"""The Markdown export neutralises a hostile note (issue 14, item 12) and a hostile
title: pandoc turns the export into HTML with no script, no element of the note's own
choosing, no ``javascript:``/``data:``/``file:`` link, no image fetched and no event
attribute, while the note's ordinary Markdown (emphasis, code, http links) still works."""

from __future__ import annotations

import re

from clients import program, run
from paperdesk.core.exports.markdown_note import safe_note_markdown

HOSTILE_NOTE = """# Why it matters
**bold** and <script>alert(1)</script> text

[ok](https://example.org/a_(b)) [bad](javascript:alert(1)) [b2]( <javascript:x> )
![remote](https://tracker.example/pixel.png) ![local](file:///etc/passwd)
<javascript:alert(2)> <https://fine.example> <img src=x onerror=alert(3)>
[span]{onclick=alert(4)} `code <b>`{=html}

[ref]: javascript:alert(5)

[use the ref][ref]

```{=html}
<script>alert(6)</script>
```

text [multi
line](javascript:alert(7))

<!-- comment --> <a href="javascript:alert(10)">a</a>
[x](data:text/html;base64,PHNjcmlwdD4=) [y](&#106;avascript:alert(8)) [z](JaVaScRiPt:alert(9))

## Heading {onclick=alert(11)}

<div onmouseover="alert(12)">
block
</div>

- a list item with `<i>code</i>`
"""


def _pandoc_html(markdown: str) -> str:
    done = run([program("pandoc"), "-f", "markdown", "-t", "html", "--wrap=none"], stdin=markdown)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _assert_inert(html: str) -> None:
    lowered = html.lower()
    for bad in ("<script", "<img", "<div", "<a href=\"javascript", "javascript:alert(1)",
                "href=\"data:", "href=\"file:", "<!--"):
        assert bad not in lowered, (bad, html)
    assert not re.search(r"<[a-z][^>]*\son\w+=", lowered), html          # no on…= handler
    assert not re.search(r"<[a-z][^>]*\ssrc=", lowered), html             # nothing fetched
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs and all(h.startswith(("https://", "http://", "mailto:")) for h in hrefs), hrefs


def test_safe_note_markdown_on_its_own():
    safe = safe_note_markdown(HOSTILE_NOTE)
    assert "**bold**" in safe and "[ok](<https://example.org/a_(b)>)" in safe
    assert "`code <b>`" in safe                        # code spans stay as typed
    assert "<script>alert(6)</script>" in safe          # inside a fence: shown as code
    assert "```{=html}" not in safe
    assert safe_note_markdown("plain *text* with `code`") == "plain *text* with `code`"


def test_pandoc_renders_the_note_inert():
    html = _pandoc_html(safe_note_markdown(HOSTILE_NOTE))
    _assert_inert(html)
    assert "<strong>bold</strong>" in html and "<code>code &lt;b&gt;</code>" in html
    assert '<a href="https://example.org/a_(b)">ok</a>' in html
    assert '<a href="https://tracker.example/pixel.png">remote</a>' in html   # not fetched
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html                   # shown as text
    # The unescaped note would have been active: the test can fail.
    raw = _pandoc_html(HOSTILE_NOTE).lower()
    assert "<script" in raw and "javascript:" in raw and "<img" in raw


def test_markdown_export_of_a_hostile_paper(seeded_library):
    lib = seeded_library
    pid = lib.search.hits("hyperparameter")[0].id
    lib.notes.set(pid, HOSTILE_NOTE)
    lib.papers.set_title(pid, "Title [x]{onclick=alert(13)} <img src=y> $\\input{/etc/passwd}$")
    text = lib.exports.text([pid], "markdown")
    html = _pandoc_html(text)
    _assert_inert(html)
    assert "onclick=alert(13)" in html and "&lt;img src=y&gt;" in html     # as text
    assert "<strong>bold</strong>" in html
