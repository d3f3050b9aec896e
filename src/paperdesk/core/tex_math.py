"""TeX maths in stored text (titles): where it is, and how it reads. Pure: no database,
no Qt.

The BibTeX and arXiv readers keep maths as written TeX (``$D\\rightarrow4$``, see
:mod:`paperdesk.core.imports.tex`), so a stored title holds its maths' source. This module
is the one rule that tells such a span from a dollar sign that is text, used by the
exports and the pane:

* the BibTeX export writes a maths span as maths (``$...$``, unescaped), so that bibtex,
  biber, pdflatex and pandoc typeset it as the file it came from did
  (:func:`paperdesk.core.exports.latex.latex_text` with ``math=True``);
* every other export (RIS, CSL-JSON, CSV, Markdown) and the pane show its readable
  Unicode form (:func:`readable_math`), as pandoc ``--citeproc`` prints the original
  file: ``$D\\rightarrow4$`` -> "D → 4", ``K$^-$`` -> "K⁻", ``$e=mc^2$`` -> "e = mc²".

Keeping the source in the stored title (rather than the Unicode form) means the BibTeX
export gives back the file's maths exactly and importing that export again gives the
same title; search sees the source's words (``rightarrow``, ``D``, ``4``).

What is a maths span
    ``$...$``, ``$$...$$``, ``\\(...\\)`` or ``\\[...\\]`` (a ``$`` written ``\\$`` opens
    nothing), whose content is ASCII, has balanced braces, no bare ``%``, ``#`` or ``&``
    (which would break a ``.bib`` file or LaTeX) and no control word that reads or writes
    files, defines macros or ends the document (``\\input``, ``\\def``, ``\\end``, ...:
    it would run in the user's document), and looks like maths: it holds
    a backslash, ``^``, ``_``, ``{`` or ``=``, or is one word with a letter in it
    (``$B$``, ``$z$``). So "from $5 to $10" is text: its dollars are dollars.
"""

from __future__ import annotations

import functools
import re

from pylatexenc import latex2text

__all__ = ["MATH", "math_spans", "readable_math"]

#: A maths span as TeX delimits it: ``$$...$$``, ``$...$``, ``\(...\)``, ``\[...\]``
#: (an escaped ``\$`` neither opens nor closes one). Group 0 is the span with its
#: delimiters.
MATH = re.compile(r"(?<!\\)(\$\$.+?(?<!\\)\$\$|\$.+?(?<!\\)\$|\\\(.+?\\\)|\\\[.+?\\\])",
                  re.DOTALL)
_MATH_LOOK = re.compile(r"[\\^_{=]")
_BARE_BREAKER = re.compile(r"(?<!\\)[%#&]")
# Control words that read or write files, define macros or end the document: never maths
# (a title typed or imported with them would run them in the user's LaTeX document).
_UNSAFE = re.compile(r"\\(?:input|include|openin|openout|read|write|immediate|special|"
                     r"def|edef|gdef|xdef|let|futurelet|catcode|csname|newcommand|"
                     r"renewcommand|providecommand|end|begin|par|directlua|usepackage|"
                     r"documentclass|makeatletter|expandafter)(?![A-Za-z])")
_SCRIPT = re.compile(r"(\^|_|\\sp(?![A-Za-z])|\\sb(?![A-Za-z]))\s*"
                     r"(\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[^\s{}\\])")
_SUPERSCRIPTS = dict(zip("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾"))
_SUBSCRIPTS = dict(zip("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎"))
# Relations and arrows that pandoc (texmath) prints with a space either side.
_SPACED = re.compile(r"\s*([=<>≤≥≠≈≡∼≃∝→←↔⇒⇐⇔↦∈∉⊂⊆⊃⊇])\s*")
# Binary operators between two operands, also printed with a space either side.
_BINARY = re.compile(r"(?<=[\w)\]}])\s*([+−±×⋅·])\s*(?=[\w(\[{])")
_MATH_TEXT = latex2text.LatexNodes2Text(math_mode="text")


def _content(span: str) -> str:
    if span.startswith("$$"):
        return span[2:-2]
    return span[1:-1] if span.startswith("$") else span[2:-2]


def _balanced(text: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "{}" and i and text[i - 1] == "\\":
            continue
        depth += 1 if ch == "{" else -1 if ch == "}" else 0
        if depth < 0:
            return False
    return depth == 0


def _is_math(content: str) -> bool:
    body = content.strip()
    if (not body or not body.isascii() or _BARE_BREAKER.search(body)
            or _UNSAFE.search(body) or not _balanced(body)):
        return False
    return bool(_MATH_LOOK.search(body)) or (
        len(body.split()) == 1 and any(c.isalpha() for c in body))


def math_spans(text: str) -> list[tuple[int, int, str]]:
    """Return the maths spans of a stored text (rule: module docstring).

    Args:
        text: a stored title (or any text) with maths kept as TeX.
    Returns:
        ``[(start, end, content)]`` in order: ``text[start:end]`` is the span with its
        delimiters, ``content`` the TeX between them. Empty when the text has none.
    """
    if "$" not in text and "\\" not in text:
        return []
    return [(m.start(), m.end(), _content(m.group(0))) for m in MATH.finditer(text)
            if _is_math(_content(m.group(0)))]


def _script(kind: str, argument: str) -> str:
    inner = argument[1:-1] if argument.startswith("{") else argument
    text = _render(inner).replace(" ", "")
    table = _SUPERSCRIPTS if kind in ("^", "\\sp") else _SUBSCRIPTS
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    return ("^" if table is _SUPERSCRIPTS else "_") + f"({text})"


def _render(tex: str) -> str:
    tex = _SCRIPT.sub(lambda m: _script(m.group(1), m.group(2)), tex)
    try:
        text = _MATH_TEXT.latex_to_text(tex)
    except Exception:  # noqa: BLE001 - pylatexenc raises various errors on broken LaTeX
        text = tex.replace("{", "").replace("}", "")
    return " ".join(text.split())


@functools.lru_cache(maxsize=4096)
def readable_math(text: str) -> str:
    """Return ``text`` with each maths span (:func:`math_spans`) in its readable Unicode
    form, as pandoc ``--citeproc`` prints it (texmath's plain-text rendering): macros as
    their symbols (``\\rightarrow`` -> →, ``\\Sigma`` -> Σ, ``\\mathcal{O}`` -> 𝒪),
    super- and subscripts made of digits, signs and brackets as Unicode super- and
    subscripts (``^{6}`` -> ⁶, ``A_2`` -> A₂, ``^-`` -> ⁻; others as ``^(n)``,
    ``_(ij)``), ``-`` as the minus sign −, relations and arrows, and binary operators
    between two operands, with a space either side (``e=mc^2`` -> "e = mc²", ``a-b`` ->
    "a − b"). Text outside maths is unchanged.

    Args:
        text: a stored title (or any text).
    Returns:
        The text to show or write where TeX is not read; ``text`` itself when it has no
        maths. Never raises.
    """
    spans = math_spans(text)
    if not spans:
        return text
    out, at = [], 0
    for start, end, content in spans:
        shown = _BINARY.sub(r" \1 ", _render(content).replace("-", "−"))
        out += [text[at:start], _SPACED.sub(r" \1 ", shown).strip()]
        at = end
    out.append(text[at:])
    return "".join(out)
