"""A note's Markdown made harmless for the Markdown export.

A note is the user's own Markdown, so the export keeps it as Markdown (headings, lists,
emphasis, code and http(s) links still work), but a note can also hold what a Markdown
reader would turn into active content: raw HTML (``<script>``, ``<img onerror=…>``),
links to ``javascript:``, ``data:`` or ``file:`` targets, remote images, and pandoc's
attribute syntax (``[x]{onclick=…}``, raw blocks ```` ```{=html} ````). Following the
CommonMark spec (0.31.2: 2.4 backslash escapes, 4.5 fenced code blocks, 6.1 code spans,
6.3 links, 6.4 images, 6.5 autolinks, 6.6 raw HTML) and pandoc's Markdown extensions
(``raw_attribute``, ``link_attributes``, ``bracketed_spans``, ``fenced_code_attributes``):

- ``<`` and ``{`` outside code are backslash-escaped, so no raw HTML and no attribute
  block is recognised; an autolink ``<https://…>`` or ``<mailto:…>`` is kept;
- an inline link or a link reference definition keeps its target only when it is an
  ``http``, ``https`` or ``mailto`` URL; otherwise only the link text is left;
- an image becomes a link to it (http(s)) or its alternative text: nothing is fetched
  when the export is opened;
- a ``]`` that could still close a link spanning lines is escaped;
- code spans and fenced code blocks are left as typed (their text is shown literally),
  and a fence's info string keeps only its language word (no ``{=html}``).

Raw TeX (``\\input``) and ``$…$`` math are not changed: they matter only to a LaTeX
target, not to the HTML or Markdown readers this guards.
"""

from __future__ import annotations

import re

__all__ = ["safe_note_markdown", "SAFE_SCHEMES"]

#: Link targets kept (lower-case URL schemes).
SAFE_SCHEMES = ("http://", "https://", "mailto:")

_FENCE_RE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_REF_DEF_RE = re.compile(r"^( {0,3})\[((?:[^\]\\]|\\.)+)\]:\s*(\S*)(.*)$")
_CODE_SPAN_RE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_TOKEN_RE = re.compile(
    r"(?P<link>(?P<bang>!?)\[(?P<text>(?:[^\[\]\\]|\\.)*)\]"
    r"\(\s*(?P<dest><[^>\n]*>|(?:[^\s()]|\([^\s()]*\))*)"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\))"
    r"|(?P<auto><[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>)"
    r"|(?P<special>[<{]|\](?=\s*[(\[:]))")


def _safe_target(dest: str) -> bool:
    dest = dest.strip().strip("<>").strip().lower()
    return dest.startswith(SAFE_SCHEMES) and not any(c in dest for c in "\"'<>`")


def _text_part(text: str) -> str:
    """Neutralise one stretch of a line that holds no code span."""
    def replace(match: re.Match[str]) -> str:
        if match.group("link"):
            label = _text_part(match.group("text"))
            dest = match.group("dest")
            if not _safe_target(dest):
                return label                  # the text, without the link
            url = dest.strip("<>")
            return f"[{label}](<{url}>)" if match.group("bang") == "" else \
                f"[{label or 'image'}](<{url}>)"
        if match.group("auto"):
            auto = match.group("auto")
            return auto if _safe_target(auto) else "\\" + auto[:-1] + "\\>"
        return "\\" + match.group("special")

    return _TOKEN_RE.sub(replace, text)


def _line(line: str) -> str:
    """Neutralise one line outside a fenced code block, leaving its code spans."""
    ref = _REF_DEF_RE.match(line)
    if ref:
        indent, label, dest, rest = ref.groups()
        if not _safe_target(dest):
            return f"{indent}\\[{_text_part(label)}\\]: {_text_part(dest + rest)}"
        return f"{indent}[{_text_part(label)}]: <{dest.strip('<>')}>{_text_part(rest)}"
    out, pos = [], 0
    for span in _CODE_SPAN_RE.finditer(line):
        out.append(_text_part(line[pos:span.start()]))
        out.append(span.group())
        pos = span.end()
    out.append(_text_part(line[pos:]))
    return "".join(out)


def safe_note_markdown(note: str) -> str:
    """Return ``note`` (Markdown) with raw HTML, unsafe link targets, images and
    attribute syntax neutralised as the module docstring says; the rest unchanged.

    Args:
        note: the note's text (CommonMark / pandoc Markdown, as the user typed it).
    Returns:
        Markdown that shows the same text and keeps http(s) and mailto links, code and
        emphasis, and from which no Markdown reader produces HTML elements of its own
        choosing, scripts, non-http(s) links or image fetches.
    """
    lines = note.split("\n")
    out = []
    fence: str | None = None
    for line in lines:
        match = _FENCE_RE.match(line)
        if fence is not None:
            out.append(line)
            if match and match.group(2)[0] == fence[0] and len(match.group(2)) >= len(fence) \
                    and not match.group(3).strip():
                fence = None
            continue
        if match and not (match.group(2)[0] == "`" and "`" in match.group(3)):
            fence = match.group(2)
            word = re.match(r"[A-Za-z0-9_+-]*", match.group(3).strip()).group()
            out.append(f"{match.group(1)}{fence}{word}")
            continue
        out.append(_line(line))
    return "\n".join(out)
