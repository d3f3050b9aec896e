"""Title case as Zotero writes it: the prepositions a title case keeps lower case, marked in
a CSL-JSON title before pandoc's citeproc formats it. Pure: no database, no Qt.

CSL 1.0.2 (https://docs.citationstyles.org/en/stable/specification.html, "Text-case",
"Title case conversion") title-cases English titles and lists the stop words it keeps
lower case ("a", "an", "and", "as", "at", "but", "by", "down", "for", "from", "in",
"into", "nor", "of", "on", "onto", "or", "over", "so", "the", "till", "to", "up", "via",
"with", "yet"); pandoc's citeproc keeps exactly those and capitalises every other word
("Gap Between Theory"). citeproc-js, the processor of Zotero and Mendeley, keeps a longer
list lower case (``CSL.SKIP_WORDS`` in ``citeproc_commonjs.js`` of the ``citeproc`` npm
package 2.4.63, :data:`LOWER_CASE_WORDS`): every preposition ("between", "across",
"through", "during", "against", "since", "like", "per", "vs"), "et al." and name
particles ("de", "van", "von"). That is what the Chicago Manual of Style asks (17th ed.,
8.159: lowercase prepositions, regardless of length) and what Zotero users get.

:func:`keep_lower_case` wraps each such word of a title in CSL-JSON's ``<span
class="nocase">…</span>`` (CSL 1.0.2, "Rich Text Markup Within Fields"), which pandoc and
citeproc-js both leave as written, where citeproc-js would leave it lower case
(``CSL.Output.Formatters.title`` of the same file):

- only a word written in lower case, of two letters or more (citeproc-js never
  lower-cases a capitalised word, nor capitalises a single letter);
- not the first word, nor the first word after ``:``, ``?`` or ``!``;
- not the last word (citeproc-js capitalises a last word of its list);
- not the last word before a hyphen in the title's first stretch of words, up to its
  first punctuation mark (citeproc-js capitalises it there: "In-Group");
- not inside a ``nocase``, small-caps, ``<sub>`` or ``<sup>`` span;
- words are what citeproc-js splits on: white space, quotes, brackets, parentheses and
  ``- – — / . , ; ? ! :`` (so "off" in "Trade-off" and "al" in "et al." are words).

Words of CSL's own list are left unmarked: pandoc keeps them lower case already. The
mark changes nothing where a style does not title-case: a word already in lower case
stays so in sentence case, lower case and as written. It would keep the word lower case
under ``uppercase`` and ``capitalize-all``; :func:`title_case_marks_are_neutral` tells
whether a style uses those on the title (then no title gets the marks).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

__all__ = ["LOWER_CASE_WORDS", "CSL_STOP_WORDS", "NOCASE_OPEN", "NOCASE_CLOSE",
           "keep_lower_case", "title_case_marks_are_neutral", "is_english"]

#: The one-word entries of citeproc-js's ``CSL.SKIP_WORDS`` (citeproc npm package 2.4.63,
#: ``citeproc_commonjs.js``): the words its title case keeps lower case. Its phrases
#: ("according to", "due to") and entries with punctuation ("vs.", "d'", " thru") are left
#: out: its title case compares one word at a time, split at punctuation and spaces.
LOWER_CASE_WORDS: frozenset[str] = frozenset("""
about above across afore after against al along alongside amid amidst among amongst anenst
apropos apud around as aside astride at athwart atop barring before behind below beneath
beside besides between beyond but by circa despite down during et except for forenenst
from given in inside into lest like modulo near next notwithstanding of off on onto out
over per plus pro qua sans since than through throughout thruout till to toward towards
under underneath until unto up upon versus vs v via with within without or yet so and nor
a an the de von van c ca
""".split())
#: CSL 1.0.2's stop words ("Title case conversion"), which pandoc's citeproc keeps lower.
CSL_STOP_WORDS: frozenset[str] = frozenset("""
a an and as at but by down for from in into nor of on onto or over so the till to up via
with yet
""".split())
NOCASE_OPEN = '<span class="nocase">'
NOCASE_CLOSE = "</span>"

_MARKED = LOWER_CASE_WORDS - CSL_STOP_WORDS
# citeproc-js's tags (CSL.Output.Formatters: quotes, punctuation, brackets, markup).
_TAGS = re.compile(
    r"""(‘|’|“|”| "| '|"|'|[-–—/.,;?!:]|\[|\]|\(|\)"""
    r"""|<span style="font-variant: ?small-caps;?">|<span class="no(?:case|decor)">"""
    r"""|</span>|</?(?:i|sc|b|sub|sup)>)""")
_SHELTERS = re.compile(r"<span|<sc>|<sub>|<sup>")
_WORD = re.compile(r"[^\u0020\u00A0\u2000-\u200B\u205F\u3000]+")   # citeproc-js's wordDoppel


def keep_lower_case(title: str) -> str:
    """``title`` with each word that citeproc-js's title case keeps lower case and
    pandoc's would capitalise wrapped in ``<span class="nocase">`` (the rules: module
    docstring).

    Args:
        title: a CSL-JSON title (plain text, or with CSL's rich-text markup).
    Returns:
        The title with the marks; ``title`` itself when no word needs one.
    """
    parts = _TAGS.split(title)          # even: stretches of words; odd: the tags between
    words: list[tuple[int, int, int]] = []   # (part, start, end) of every word outside spans
    marked: list[tuple[int, int, int]] = []
    sheltered = 0
    starts_anew = True                  # the first word, or the first after : ? !
    for k, part in enumerate(parts):
        if k % 2:
            if _SHELTERS.match(part):
                sheltered += 1
            elif part == NOCASE_CLOSE or part in ("</sc>", "</sub>", "</sup>"):
                sheltered = max(sheltered - 1, 0)
            if part[-1:] in ":?!":
                starts_anew = True
            continue
        spans = [m.span() for m in _WORD.finditer(part)]
        if sheltered:
            if spans:
                words.clear()           # citeproc-js: no last word after a sheltered one
                starts_anew = False
            continue
        for n, (start, end) in enumerate(spans):
            word = part[start:end]
            before_hyphen = k == 0 and end == len(part) and parts[1:2] == ["-"]
            if (not starts_anew and not before_hyphen and len(word) > 1
                    and word in _MARKED):
                marked.append((k, start, end))
            words.append((k, start, end))
            starts_anew = False
    if words and words[-1] in marked:
        marked.remove(words[-1])
    if not marked:
        return title
    for k, start, end in reversed(marked):
        part = parts[k]
        parts[k] = part[:start] + NOCASE_OPEN + part[start:end] + NOCASE_CLOSE + part[end:]
    return "".join(parts)


def is_english(item: dict) -> bool:
    """Whether CSL title-cases ``item``'s title: its ``language`` is missing or English
    (``en``, ``en-GB``; CSL 1.0.2, "Title case conversion")."""
    language = str(item.get("language") or "en").strip().lower()
    return language == "en" or language.startswith("en-")


_CSL = "{http://purl.org/net/xbiblio/csl}"
_CHANGING = {"uppercase", "capitalize-all"}


def title_case_marks_are_neutral(style_xml: str) -> bool:
    """Whether marks from :func:`keep_lower_case` only ever keep a title's words as the
    title case of citeproc-js does: the style title-cases the ``title`` variable somewhere
    (``text-case="title"`` on the ``cs:text`` that renders it or on a macro call around
    it) and never writes it in ``uppercase`` or ``capitalize-all``.

    Args:
        style_xml: the text of a CSL style.
    Returns:
        ``True`` when titles should get the marks; ``False`` when the style never
        title-cases a title (the marks would change nothing), may capitalise all of its
        words, or is not XML.
    """
    try:
        root = ET.fromstring(style_xml)
    except ET.ParseError:
        return False
    macros = {m.get("name"): m for m in root.iter(_CSL + "macro")}
    found: set[str] = set()

    def walk(element: ET.Element, cases: frozenset[str], calling: frozenset[str]) -> None:
        case = element.get("text-case")
        if case:
            cases = cases | {case}
        if element.tag == _CSL + "text":
            if element.get("variable") == "title":
                found.update(cases or {"none"})
            name = element.get("macro")
            if name in macros and name not in calling:
                walk(macros[name], cases, calling | {name})
        for child in element:
            if child.tag != _CSL + "macro":
                walk(child, cases, calling)

    walk(root, frozenset(), frozenset())
    return "title" in found and not found & _CHANGING
