"""LaTeX field text -> plain text: the one decoder of the BibTeX and arXiv readers.
Pure: no database, no Qt.

Titles, abstracts, names and venues in a ``.bib`` file, and titles and abstracts in
arXiv's metadata, are LaTeX source; but much of it was never typeset: arXiv metadata and
hand-written ``.bib`` files hold plain text with a few LaTeX commands in it. The rules
below keep that text as written and decode what is LaTeX. pylatexenc (2.x,
``latexwalker`` + ``latex2text``) does the decoding; this module decides what it sees.

Rules (docs/import.md's "Import formats" lists them for users):

Kept as written, never decoded
    * **Maths**: ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]`` stay as written TeX,
      delimiters included (white space made single spaces), so that they stay exact and
      readable: ``$\\mathcal{O}(n\\log n)$`` stays so. One exception: maths made only of
      Greek-letter macros (``$\\alpha$``, ``{$\\alpha\\beta$}``) becomes the letters
      (αβ), which is how paperdesk's own BibTeX export, and Zotero's, write a Greek
      letter in text (:data:`paperdesk.core.exports.latex.GREEK`). A ``$`` that pairs
      with no other (``costs $5``) is the character.
    * **URLs**: ``\\url{...}`` is its URL; a bare ``http://``, ``https://`` or
      ``ftp://`` URL is kept to the next white space or brace (``~``, ``%``, ``&``,
      ``--`` in it stay); in both, ``\\_``, ``\\%``, ``\\&``, ``\\#``, ``\\~``, ``\\$``
      lose the backslash. ``\\href{URL}{text}`` is "text (URL)".
The characters themselves
    * A bare ``%`` or ``&`` (not written ``\\%``, ``\\&``) is that character. In LaTeX
      ``%`` starts a comment and ``&`` is a table column separator, neither of which can
      be in a field value; exporters escape them (Zotero, JabRef, paperdesk) and text that
      did not is plain text (arXiv metadata, hand-written files).
    * ``\\^{}`` and ``\\~{}`` (an accent on nothing: the escapes pandoc and JabRef write
      for ``^`` and ``~``) are ``^`` and ``~``; so are ``\\textasciicircum`` and
      ``\\textasciitilde``, and a lone ``\\~`` or ``\\^`` (at the end of the value or
      of a brace group: Zotero's "tilde operator: \\~"), never a combining accent on
      nothing (which stops pdflatex when exported).
biblatex markup
    ``\\enquote{x}`` is “x” and ``\\enquote*{x}`` ‘x’ (csquotes' outer and inner
    quotes); ``\\hyphen`` is "-" and, like TeX, ends its name at the space after it
    (``methodology\\hyphen independent`` -> "methodology-independent").
``~``
    A tie (non-breaking space), hence a space; except in arXiv text (``flavour="arxiv"``),
    where a ``~`` that starts a word and is followed by a digit ("~3x", "(~10%)"), or
    stands alone ("D ~ C^0.12"), means "approximately" and stays ``~``. (``Fig.~3`` or
    ``Table~2`` is still a tie.)
Spaces after macros
    A command without arguments keeps the space after it (``\\ldots and`` -> "… and",
    ``\\LaTeX and`` -> "LaTeX and": what the writer meant, though TeX itself drops it),
    except the letters (``\\ss``, ``\\o``, ``\\ae``, ``\\l``, ``\\i``...), where the space
    only ends the name (``Stra\\ss e`` -> "Straße"), as in TeX; and a logo alone in a
    brace group with one word after it: ``{\\TeX book}`` -> "TeXbook" (the title of
    Knuth's book; ``\\TeX{} book`` stays two words).
Everything else
    pylatexenc's decoding: accents (``{\\"u}`` -> ü), ``\\&`` -> &, ``\\%`` -> %,
    ``\\textit{x}`` -> x, braces dropped, unknown macros dropped, TeX ligatures
    (``--`` -> –, ``---`` -> —, ``` `` ``` ``''`` -> “ ”). These change the characters, so
    an abstract written with ``--`` and the same one written with – must still be found as
    one: :func:`paperdesk.core.text.content_hash` folds such typographic variants.
    White space becomes single spaces. Text pylatexenc cannot read at all is kept with its
    braces removed.
"""

from __future__ import annotations

import functools
import re

from pylatexenc import latex2text, latexwalker, macrospec

from paperdesk.core.exports.latex import GREEK
from paperdesk.core.tex_math import MATH as _MATH

__all__ = ["decode_tex", "GREEK_MACROS"]

#: Greek-letter macro name -> letter (the inverse of the export's table, plus the two
#: letters it writes as UTF-8 but other writers use).
GREEK_MACROS: dict[str, str] = {
    **{macro[1:]: letter for letter, macro in GREEK.items()},
    "Upsilon": "Υ", "varrho": "ϱ",
}
# Macros for letters (and biblatex's \hyphen): the space after them ends the name (TeX's
# rule), "Stra\ss e", "methodology\hyphen independent".
_LETTER_MACROS = frozenset(
    "ss SS o O ae AE oe OE aa AA l L i j dh DH th TH ng NG dj DJ hyphen".split())
#: The TeX logos, as pylatexenc is told to write them (:func:`_text_context`).
_LOGOS = {"TeX": "TeX", "LaTeX": "LaTeX", "BibTeX": "BibTeX", "LaTeXe": "LaTeX2e"}
# "{\TeX book}": the logo and one word, alone in a group, are one word.
_LOGO_WORD = re.compile(r"\{\\(" + "|".join(_LOGOS) + r")\s+([^\s{}\\$]+)\}")

_GREEK_ONLY = re.compile(r"\{?\$\s*((?:\\[A-Za-z]+\s*)+)\$\}?")
_BRACED_MATH = re.compile(r"\{" + _MATH.pattern + r"\}", re.DOTALL)
_URL_MACRO = re.compile(r"\\url\s*\{([^{}]*)\}")
_URL = re.compile(r"(?:https?|ftp)://[^\s{}\\]+(?:\\[_%&#~$][^\s{}\\]*)*", re.IGNORECASE)
_URL_ESCAPE = re.compile(r"\\([_%&#~$])")
# An even number of backslashes (none included) before the character: it is not escaped.
_BARE = r"(?<!\\)((?:\\\\)*)"
_BARE_SPECIAL = re.compile(_BARE + r"([%&$])")
_EMPTY_ACCENT = re.compile(_BARE + r"\\([\^~])(?:\s*\{\s*\}|\s*(?=\}|$))")
_APPROX = re.compile(r"(?<![^\s(\[{])~(?=\d|\s|$)")
# Text without these needs no decoding (TeX ligatures: -- `` '' !` ?` ; ties: ~).
_LATEX_CHARS = re.compile(r"[\\{}$~]|--|``|''|!`|\?`")
# What is left once maths, URLs and bare specials are protected (:func:`_protect`): text
# with none of these but the escapes ``\%``, ``\&``, ``\$`` and TeX's ligatures is
# decoded as pylatexenc would (:func:`_decode_without_walker`), without walking it
# character by character: most arXiv abstracts, whose only TeX is maths.
_NEEDS_WALKER = re.compile(r"[{}$~]|\\(?![%&$])")
_ESCAPED_SPECIAL = re.compile(r"\\([%&$])")
# TeX's ligatures, longest first (pylatexenc's latex2text: "---" before "--").
_LIGATURES = re.compile(r"---|--|``|''|!`|\?`")
_LIGATURE_TEXT = {"---": "\u2014", "--": "\u2013", "``": "\u201c", "''": "\u201d",
                  "!`": "\u00a1", "?`": "\u00bf"}


def _decode_without_walker(protected: str) -> str | None:
    """The decoded text of ``protected`` (the output of :func:`_protect`) when it holds
    no braces, ties, macros or unpaired ``$``: the escapes ``\\%``, ``\\&``, ``\\$`` lose
    their backslash and the ligatures become their characters, as pylatexenc decodes
    them; ``None`` when it needs pylatexenc's walker."""
    if _NEEDS_WALKER.search(protected):
        return None
    text = _ESCAPED_SPECIAL.sub(r"\1", protected)
    return _LIGATURES.sub(lambda m: _LIGATURE_TEXT[m.group(0)], text)


def _text_context() -> latex2text.LatexContextDb:
    # The symbols paperdesk's export writes that pylatexenc does not map as written (see
    # core/exports/latex.py), and \href.
    symbols = {"textbraceleft": "{", "textbraceright": "}", "textless": "<",
               "textgreater": ">", "textasciicircum": "^", "textasciitilde": "~",
               "hyphen": "-",      # biblatex's breakable hyphen
               # and the logos that JabRef and Zotero users type in titles
               **_LOGOS}
    db = latex2text.get_default_latex_context_db()
    db.add_context_category(
        "paperdesk-text-symbols", prepend=True,
        macros=[latex2text.MacroTextSpec(name, simplify_repl=text)
                for name, text in symbols.items()]
        + [latex2text.MacroTextSpec("href", simplify_repl=_href),
           latex2text.MacroTextSpec("url", simplify_repl="%s"),
           latex2text.MacroTextSpec("enquote", simplify_repl=_enquote)]
        + [latex2text.MacroTextSpec(name, simplify_repl=_cite) for name in _CITES]
        + [latex2text.MacroTextSpec(name, simplify_repl=_reference) for name in _REFS])
    return db


#: Citation and cross-reference commands that pylatexenc shows as "<cit.>" and "<ref>":
#: shown as what the author wrote inside them, "[smith2020, doe2021]" and "[fig:1]".
_CITES = ("cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear",
          "nocite")
_REFS = ("ref", "eqref", "autoref", "cref", "Cref", "pageref")


def _argument_verbatim(node) -> str:
    """The last argument of a command as written, without its braces."""
    args = node.nodeargd.argnlist if node.nodeargd else []
    last = args[-1] if args else None
    return last.latex_verbatim().strip().removeprefix("{").removesuffix("}").strip() \
        if last is not None else ""


def _cite(node, l2tobj) -> str:
    keys = ", ".join(k.strip() for k in _argument_verbatim(node).split(",") if k.strip())
    return f"[{keys}]" if keys else ""


def _reference(node, l2tobj) -> str:
    label = _argument_verbatim(node)
    if not label:
        return ""
    return f"([{label}])" if node.macroname == "eqref" else f"[{label}]"


def _href(node, l2tobj) -> str:
    args = node.nodeargd.argnlist if node.nodeargd else []
    if len(args) < 2:
        return ""
    url = l2tobj.nodelist_to_text([args[0]]).strip()
    text = l2tobj.nodelist_to_text([args[1]]).strip()
    return f"{text} ({url})" if text and text != url else url


def _enquote(node, l2tobj) -> str:
    args = node.nodeargd.argnlist if node.nodeargd else []
    starred = bool(args) and args[0] is not None
    text = l2tobj.nodelist_to_text([args[-1]]).strip() if args and args[-1] else ""
    return f"‘{text}’" if starred else f"“{text}”"


class _Decoder(latex2text.LatexNodes2Text):
    """pylatexenc's decoder keeping the space after a command without arguments, except
    after the letter commands (module docstring)."""

    def _is_bare_macro_node(self, node) -> bool:
        return (super()._is_bare_macro_node(node)
                and node.macroname not in _LETTER_MACROS)


_DECODER = _Decoder(latex_context=_text_context(), math_mode="verbatim",
                    strict_latex_spaces={"between-macro-and-chars": False,
                                         "between-latex-constructs": True,
                                         "after-comment": False, "in-equations": None})
# pylatexenc builds its parsing context anew for every value unless it is given one;
# built once, a 5,000-entry file decodes in a third of the time.
_WALKER_CONTEXT = latexwalker.get_default_latex_context_db()
_WALKER_CONTEXT.add_context_category(
    "paperdesk-href", prepend=True,
    macros=[macrospec.std_macro("href", False, 2), macrospec.std_macro("enquote", "*{")])


class _Kept:
    """Spans of the text kept as written: each is replaced by one private-use character
    that does not occur in the text (pylatexenc passes such characters through) and put
    back after decoding."""

    def __init__(self, text: str):
        self._free = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in text)
        self.spans: dict[str, str] = {}

    def keep(self, value: str, written: str) -> str:
        mark = next(self._free, None)
        if mark is None:         # 6,400 spans in one value: decode the rest
            return written
        self.spans[mark] = value
        return mark

    def restore(self, text: str) -> str:
        if not self.spans:
            return text
        return re.sub("[" + "".join(self.spans) + "]", lambda m: self.spans[m.group(0)],
                      text)


def _greek(written: str) -> str | None:
    """The letters of maths made of Greek-letter macros alone, else ``None``."""
    greek = _GREEK_ONLY.fullmatch(written)
    if greek is None:
        return None
    names = [n.strip() for n in greek.group(1).split("\\")[1:]]
    if not all(n in GREEK_MACROS for n in names):
        return None
    return "".join(GREEK_MACROS[n] for n in names)


def _maths(written: str) -> str:
    letters = _greek(written)
    return letters if letters is not None else " ".join(written.split())


def _protect(text: str, flavour: str) -> tuple[str, _Kept]:
    kept = _Kept(text)
    text = _URL_MACRO.sub(
        lambda m: kept.keep(_URL_ESCAPE.sub(r"\1", m.group(1).strip()), m.group(0)), text)
    text = _URL.sub(lambda m: kept.keep(_URL_ESCAPE.sub(r"\1", m.group(0)), m.group(0)),
                    text)
    # Greek in its own braces first, so that "{$\alpha$}" leaves no empty group behind.
    text = _BRACED_MATH.sub(lambda m: m.group(0) if _greek(m.group(0)) is None
                            else kept.keep(_greek(m.group(0)), m.group(0)), text)
    text = _MATH.sub(lambda m: kept.keep(_maths(m.group(0)), m.group(0)), text)
    text = _LOGO_WORD.sub(r"{\\\1{}\2}", text)
    text = _EMPTY_ACCENT.sub(lambda m: m.group(1) + (
        r"\textasciicircum{}" if m.group(2) == "^" else r"\textasciitilde{}"), text)
    if flavour == "arxiv":
        text = _APPROX.sub(lambda m: kept.keep("~", "~"), text)
    text = _BARE_SPECIAL.sub(r"\1\\\2", text)
    return text, kept


_WORDS = re.compile(r"\s+|\S+")
_UNESCAPED_BRACE = re.compile(r"(?<!\\)[{}]")
_ENDS_IN_COMMAND = re.compile(r"\\(?:[A-Za-z]+\*?|.)$", re.DOTALL)


def _decode_in_pieces(protected: str) -> str:
    """Decode ``protected`` (the output of :func:`_protect`) piece by piece: it is cut at
    white space outside braces that does not follow a command (where a command's
    argument or TeX's space rules cannot reach across), each piece is decoded by
    :func:`_decode_without_walker` or, when it must be, by pylatexenc's walker, and the
    pieces are joined by a space. An abstract with one accent walks a few words, not
    all of it. Text with an escaped backslash (``\\\\``) or a ``}`` that closes no
    group is walked whole."""
    if "\\\\" in protected:
        return _walk(protected)
    pieces: list[str] = []
    start = depth = 0
    previous = ""
    for m in _WORDS.finditer(protected):
        word = m.group(0)
        if word.isspace():
            if depth == 0 and not _ENDS_IN_COMMAND.search(previous):
                pieces.append(protected[start:m.start()])
                start = m.end()
            continue
        for brace in _UNESCAPED_BRACE.findall(word):
            depth += 1 if brace == "{" else -1
            if depth < 0:       # a "}" that closes nothing: leave it to pylatexenc
                return _walk(protected)
        previous = word
    pieces.append(protected[start:])
    out = []
    for piece in pieces:
        plain = _decode_without_walker(piece)
        out.append(plain if plain is not None else _walk(piece))
    return " ".join(out)


def _walk(protected: str) -> str:
    """pylatexenc's decoding of ``protected`` (the output of :func:`_protect`)."""
    walker = latexwalker.LatexWalker(protected, latex_context=_WALKER_CONTEXT,
                                     tolerant_parsing=True)
    nodes, _pos, _len = walker.get_latex_nodes()
    return _DECODER.nodelist_to_text(nodes)


@functools.lru_cache(maxsize=8192)     # names, journals and venues repeat
def decode_tex(text: str, flavour: str = "bibtex") -> str:
    """Return the plain text of a LaTeX field value (rules: module docstring), white
    space made single spaces.

    Args:
        text: the value as written, e.g. ``"5% of Q&A, R\\\\^{}2, {\\\\"u}ber"``.
        flavour: ``"bibtex"`` (a ``~`` is a space) or ``"arxiv"`` (a ``~`` before a
            digit at the start of a word, or standing alone, stays).
    Returns:
        e.g. ``"5% of Q&A, R^2, über"``. Never raises: text pylatexenc cannot read is
        returned with its braces removed.
    """
    if not _LATEX_CHARS.search(text):
        return " ".join(text.split())
    try:
        protected, kept = _protect(text, flavour)
        plain = _decode_without_walker(protected)
        out = kept.restore(plain if plain is not None else _decode_in_pieces(protected))
    except Exception:  # noqa: BLE001 - pylatexenc raises various errors on broken LaTeX
        out = text.replace("{", "").replace("}", "")
    return " ".join(out.split())
