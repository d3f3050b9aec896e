"""Text -> the LaTeX of a BibTeX field value, written so that every reader of the file
gets the text back as it was written. Pure: no database, no Qt.

A ``.bib`` file is read by very different programs: ``bibtex`` and ``biber`` (which copy
field text into LaTeX), ``pdflatex`` (which typesets it), and readers that turn the LaTeX
back into text: pandoc (``--citeproc``), citation-js, JabRef, Zotero and bibtexparser
(with its LaTeX decoding). Each knows a different, small set of macros. The policy below
was chosen by feeding every candidate encoding to the installed tools (pandoc 2.17,
citation-js 0.8 with ``@citation-js/plugin-bibtex``, bibtexparser 2 with pylatexenc
2.11, bibtex 0.99d, biber 2.18, pdflatex from TeX Live 2022) and comparing what came
back with the original; the tests in ``tests/core/test_bibtex_readers.py`` repeat that
check on every run where the tools are installed.

Policy (one rule per kind of character, with the measurement that decided it):

``{`` and ``}``
    Braces that pair up in the text are written ``\\{`` ... ``\\}``: every reader gives
    ``{`` ... ``}`` back. A brace *without* a partner cannot be written ``\\{``/``\\}``
    (nor ``{\\}}`` as pylatexenc does): BibTeX and biber count braces without regard to
    the backslash, so the field ends early (biber: "syntax error: found ..., expected
    '='"; bibtex: "I was expecting an '='") and the entry's remaining fields are lost.
    It is written ``\\textbraceleft{}``/``\\textbraceright{}``, the LaTeX macros for the
    two glyphs: bibtex, biber, pdflatex and citation-js read them; pandoc 2.17 does not
    know them and drops the lone brace (no form was found that pandoc and citation-js
    both read: pandoc reads ``\\iffalse\\{\\fi\\}`` or ``$\\rbrace$``, which citation-js
    shows as LaTeX source, and brace-counting rules out anything with a bare brace).
``\\``, ``&``, ``%``, ``$``, ``#``, ``_``, ``~``, ``^``
    ``\\textbackslash{}``, ``\\&``, ``\\%``, ``\\$``, ``\\#``, ``\\_``,
    ``\\textasciitilde{}``, ``\\textasciicircum{}``: read by every tool (pylatexenc maps
    ``\\textasciicircum`` to U+02C6 "ˆ" instead of ``^``; ``\\^{}`` is worse: citation-js
    prints "undefined" and pylatexenc nothing). The trailing ``{}`` ends the macro name
    so that a following space is kept.
``<`` and ``>``
    ``\\textless{}``/``\\textgreater{}`` (pdflatex's default OT1 font prints a bare ``<``
    as "¡"; T1 fonts turn ``<<`` into "«"). pandoc and citation-js read them; pylatexenc
    does not know them.
``--``, ``---``, ``''``, ````` `` `````, ``!```, ``?```, ``,,``
    TeX ligatures (en and em dash, curly double quotes, inverted marks, low quotes):
    pandoc and citation-js apply them too, so a command-line flag ``--all`` came back as
    "–all". A ``{}`` is put between the two characters (``-{}-``), which every reader
    prints as the characters typed.
``"``
    Kept as is: pandoc, citation-js and bibtexparser give ``"`` back. (pylatexenc wrote
    ``''``, which every reader shows as "”"; ``\\textquotedbl`` is dropped by pandoc and
    needs the T1 font encoding in pdflatex.)
``‘`` and ``’``
    Kept, each in braces (``{‘}``): pandoc reads a bare ‘…’ pair as a quotation and
    prints it with double quotes (“…”); in braces it keeps the characters.
``'`` and `````
    Kept as is. citation-js, bibtexparser and biber give them back; pandoc's BibTeX
    reader applies "smart" punctuation to every field and prints ’ and ‘ (as LaTeX
    itself typesets them). No form survives pandoc 2.17: ``\\textquotesingle`` and
    ``\\textasciigrave`` are dropped, ``\\'{}`` is an accent to LaTeX and citation-js,
    ``\\verb`` is not allowed in a bibliography. Use the CSL-JSON export with pandoc for
    text where straight apostrophes matter.
Greek letters
    ``{$\\alpha$}``, one math group per run of letters (``{$\\alpha\\beta$}``; ``$$``
    would start display math), in braces so that a style's case change cannot turn
    ``\\Theta`` into ``\\theta``. Only runs made entirely of letters in :data:`GREEK`:
    a run with any other Greek character (accented letters as in "Σωκράτης") is Greek
    text, not a symbol, and is kept as UTF-8 (for XeLaTeX, LuaLaTeX or babel's Greek).
    pdflatex cannot typeset Greek UTF-8 without extra packages ("Unicode character μ
    (U+03BC) not set up for use with LaTeX");
    ``\\ensuremath{\\mu}`` (pylatexenc's choice) shows as "\\ensuremath μ" in citation-js
    and pandoc. Math is the form pandoc (rendering), citation-js, bibtexparser (with
    math decoding) and pdflatex all read: measured letter by letter, every letter with a
    LaTeX macro except ``\\Upsilon`` (citation-js gives ϒ) and ``\\varrho`` (pandoc gives
    𝜚), which are kept as UTF-8 like the capitals that have no macro (Α, Β, Ε, ...).
Combining accents
    Composed with their letter when Unicode has the letter (``e`` + U+0301 -> é, then
    UTF-8); otherwise the LaTeX accent macro on an ASCII letter (``{\\=x}``), and alone
    (no letter before it) ``~`` and ``^`` as those characters, other accents on nothing
    (``{\\={}}``): pdflatex stops with a fatal error at a bare combining character
    ("Unicode character ̃ (U+0303) not set up for use with LaTeX").
Everything else, UTF-8 as is
    Accented Latin letters, ``…``, dashes ``–`` ``—``, ``€``, curly double quotes, ``×``
    and the like: every reader gives them back, and pdflatex (UTF-8 input, LaTeX 2018 and
    later) typesets them. Macro forms are worse: pandoc 2.17 drops ``\\textellipsis``,
    ``\\textemdash``, ``\\textendash`` and ``\\texteuro`` (a cut title then looks
    complete), citation-js leaves ``\\ldots`` as text. Mathematical symbols (``∑``,
    ``≤``), CJK and emoji are kept as UTF-8 too: pandoc, citation-js, bibtexparser,
    JabRef, bibtex and biber read them, and XeLaTeX or LuaLaTeX typeset them; pdflatex
    stops at them ("not set up for use with LaTeX"), but the math forms (``$\\leq$``)
    show as LaTeX source in citation-js, which knows only Greek in math.
White space
    Runs of white space (line breaks included) become one space: a blank line would be
    a paragraph break (``\\par``), which a bibliography entry cannot hold. Control
    characters become spaces.

Maths (titles only, ``math=True``)
    A maths span of the stored text (:func:`paperdesk.core.tex_math.math_spans`: TeX
    maths that a reader kept as written, ``$D\\rightarrow4$``) is written as maths,
    ``$...$`` unescaped, so that bibtex, biber, pdflatex and pandoc typeset it as the
    file it came from did (pandoc prints "D → 4"); importing the export again gives the
    same title. Macros in it that need a package (``\\mathbb``) need it in the document
    too, as with the original file.

URLs, DOIs and eprint ids are not text: they are written verbatim (:func:`latex_url`);
biblatex and the ``url`` package read them that way.
"""

from __future__ import annotations

import re
import unicodedata

from paperdesk.core.tex_math import math_spans

__all__ = ["latex_text", "latex_url", "brace_partners", "GREEK"]

#: Greek letters and the math macro every reader turns back into that letter (see the
#: module docstring; ``\\Upsilon`` and ``\\varrho`` are left out on purpose).
GREEK: dict[str, str] = {
    "Γ": r"\Gamma", "Δ": r"\Delta", "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi",
    "Π": r"\Pi", "Σ": r"\Sigma", "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega",
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon",
    "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ι": r"\iota", "κ": r"\kappa",
    "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi", "ρ": r"\rho",
    "ς": r"\varsigma", "σ": r"\sigma", "τ": r"\tau", "υ": r"\upsilon", "φ": r"\varphi",
    "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega", "ϑ": r"\vartheta", "ϕ": r"\phi",
    "ϖ": r"\varpi", "ϵ": r"\epsilon",
}

_SIMPLE = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "‘": "{‘}", "’": "{’}",
    # The replacement character: the original was lost before the text reached
    # paperdesk; LuaTeX takes U+FFFD for an invalid UTF-8 sequence and stops.
    "\ufffd": "?",
    # Left-to-right and right-to-left marks: invisible, and pdflatex stops at them.
    "\u200e": "", "\u200f": "",
}
#: Pairs that TeX (and pandoc, citation-js) would join into one glyph.
_LIGATURES = {("-", "-"), ("'", "'"), ("`", "`"), ("!", "`"), ("?", "`"), (",", ",")}
# Line breaks, tabs and other control characters (no-break spaces are text and stay).
_SPACE = re.compile(r"[ \x00-\x1f\x7f-\x9f\u2028\u2029]+")


_COMBINING = re.compile("[\u0300-\u036f]")
#: Combining accents -> LaTeX's accent macro (LaTeX manual, "Accents").
_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=",
            "\u0306": "u", "\u0307": ".", "\u0308": '"', "\u030a": "r", "\u030b": "H",
            "\u030c": "v", "\u0323": "d", "\u0327": "c", "\u0328": "k", "\u0331": "b"}


def _accented(out: list[str], base: str, mark: str) -> str:
    """The LaTeX of a combining accent that has no precomposed letter with ``base`` (the
    character before it, already the last of ``out``): the accent macro on an ASCII
    letter (``{\\=x}``, replacing it in ``out``); alone, the character itself for ``~``
    and ``^`` (a lone ``\\~`` read from a file), else the accent on nothing."""
    macro = "\\" + _ACCENTS[mark]
    if base.isascii() and base.isalpha() and out and out[-1] == base:
        out.pop()
        return "{" + macro + (" " if macro[-1].isalpha() else "") + base + "}"
    if mark in "\u0302\u0303":
        return _SIMPLE["^" if mark == "\u0302" else "~"]
    return "{" + macro + "{}}"


def _is_greek(ch: str) -> bool:
    return "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff"


def brace_partners(text: str) -> set[int]:
    """Return the positions of the braces in ``text`` that pair up (a ``{`` closed by a
    later ``}``, nested properly); the other braces are lone."""
    paired: set[int] = set()
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            paired.add(stack.pop())
            paired.add(i)
    return paired


def latex_text(text: str, pair_braces: bool = True, math: bool = False) -> str:
    """Return ``text`` as the LaTeX of a BibTeX field value (without the delimiting
    braces), following the policy in this module's docstring.

    The result's braces are balanced when counted without regard to backslashes (as
    BibTeX and biber count them), so it can always be put between ``{`` and ``}``.

    Args:
        text: any text (a title, an abstract, a note, a name).
        pair_braces: write braces that pair up as ``\\{``/``\\}``; ``False`` writes every
            brace as ``\\textbraceleft{}``/``\\textbraceright{}`` (for names: citation-js
            splits a name list wrongly around ``\\{...\\}``).
        math: write the text's maths spans as maths (a title: module docstring);
            ``False`` escapes every ``$`` and ``\\``.
    Returns:
        The LaTeX, on one line.
    """
    spans = math_spans(text) if math else []
    if spans:
        out, at = [], 0
        for start, end, content in spans:
            out += [_between_maths(text[at:start], pair_braces),
                    "$" + " ".join(content.split()) + "$"]
            at = end
        out.append(_between_maths(text[at:], pair_braces))
        return "".join(out).strip()
    clean = _SPACE.sub(" ", text).strip()
    if _COMBINING.search(clean):
        clean = unicodedata.normalize("NFC", clean)
    paired = brace_partners(clean) if pair_braces else set()
    out: list[str] = []
    i = 0
    while i < len(clean):
        ch = clean[i]
        if _is_greek(ch):
            end = i
            while end < len(clean) and _is_greek(clean[end]):
                end += 1
            run = clean[i:end]
            if all(c in GREEK for c in run):
                out.append("{$" + "".join(GREEK[c] for c in run) + "$}")
            else:
                out.append(run)  # Greek text (accents, letters without macros): UTF-8
            i = end
            continue
        if ch == "{":
            out.append("\\{" if i in paired else r"\textbraceleft{}")
        elif ch == "}":
            out.append("\\}" if i in paired else r"\textbraceright{}")
        elif ch in _SIMPLE:
            out.append(_SIMPLE[ch])
        elif ch in _ACCENTS:
            out.append(_accented(out, clean[i - 1] if i else "", ch))
        else:
            out.append(ch)
            if i + 1 < len(clean) and (ch, clean[i + 1]) in _LIGATURES:
                out.append("{}")
        i += 1
    return "".join(out)


def _between_maths(text: str, pair_braces: bool) -> str:
    """The LaTeX of the text between two maths spans, its outer white space kept as one
    space (:func:`latex_text` strips it)."""
    before = " " if text[:1].isspace() else ""
    after = " " if text[-1:].isspace() and text.strip() else ""
    return before + latex_text(text, pair_braces) + after


def latex_url(url: str) -> str:
    """Return a URL, DOI or eprint id for a verbatim BibTeX field (``url``, ``doi``,
    ``eprint``): unchanged except that braces, backslashes and white space are
    percent-encoded (RFC 3986), since BibTeX counts braces even in verbatim fields.

    Args:
        url: the URL or identifier.
    Returns:
        The field value.
    """
    out = url.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")
    return re.sub(r"\s", lambda m: "%{:02X}".format(ord(m.group(0))), out)
