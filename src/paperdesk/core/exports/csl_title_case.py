"""Title case as Zotero writes it, prepared in the CSL-JSON titles pandoc's citeproc gets:
the prepositions kept lower case, a last stop word capitalised. Pure: no database, no Qt.

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

The last word: CSL 1.0.2 capitalises it even when it is a stop word ("What It Is Made
Of"), and so does citeproc-js (also a word ending the title with its "…": "Does Not Have
A…"); pandoc's citeproc leaves a stop word lower case there. A mark cannot capitalise, so
:func:`capitalise_last_word` writes the capital into the title itself, which is only
right where the title is title-cased wherever the style prints it for that item:
:class:`StyleTitleCase` reads that from the style for the item's type and variables.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

__all__ = ["LOWER_CASE_WORDS", "CSL_STOP_WORDS", "NOCASE_OPEN", "NOCASE_CLOSE",
           "keep_lower_case", "capitalise_last_word", "title_case_marks_are_neutral",
           "StyleTitleCase", "is_english"]

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
_CLOSERS = (NOCASE_CLOSE, "</sc>", "</sub>", "</sup>")
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
            elif part in _CLOSERS:
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
        for start, end in spans:
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


def capitalise_last_word(title: str) -> str:
    """``title`` with its last word capitalised where citeproc-js capitalises it and
    pandoc's citeproc does not: a word of two characters or more, in lower case, that is
    a CSL stop word or starts with one followed by no letter ("of", "for", "a…").

    Args:
        title: a CSL-JSON title (plain text, or with CSL's rich-text markup).
    Returns:
        The title, its last word's first letter in upper case; ``title`` itself when the
        last word is none of these.
    """
    parts = _TAGS.split(title)        # odd length: words at even places, tags between
    for k in range(len(parts) - 1, -1, -2):
        words = list(_WORD.finditer(parts[k]))
        if not words:
            if k and (_SHELTERS.match(parts[k - 1]) or parts[k - 1] in _CLOSERS):
                return title            # citeproc-js: no last word after a sheltered one
            continue
        start, end = words[-1].span()
        word = parts[k][start:end]
        stem = re.match(r"[a-z]+", word)
        if (len(word) > 1 and stem and stem.group(0) in CSL_STOP_WORDS
                and not any(c.isalpha() for c in word[stem.end():])):
            parts[k] = parts[k][:start] + word[0].upper() + word[1:] + parts[k][end:]
            return "".join(parts)
        return title
    return title


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


class StyleTitleCase:
    """What a CSL style does with the case of titles, read once from its XML.

    Attributes:
        marks: whether English titles get :func:`keep_lower_case`'s marks
            (:func:`title_case_marks_are_neutral`).
    """

    def __init__(self, style_xml: str):
        self.marks = title_case_marks_are_neutral(style_xml)
        try:
            self._root: ET.Element | None = ET.fromstring(style_xml) if self.marks else None
        except ET.ParseError:
            self._root = None
        self._macros = {m.get("name"): m for m in self._root.iter(_CSL + "macro")} \
            if self._root is not None else {}
        self._known: dict[tuple[str, frozenset[str]], bool] = {}

    def always_title_cased(self, item: dict) -> bool:
        """Whether every ``cs:text`` that may print ``item``'s title, in the
        ``cs:choose`` branches its type and variables can take, title-cases it (and none
        writes it otherwise). Conditions other than ``type`` and ``variable`` count as
        either way.

        Args:
            item: a CSL-JSON item.
        Returns:
            ``True`` when it is title-cased wherever printed; ``False`` otherwise, or when
            the style gets no marks at all.
        """
        if self._root is None:
            return False
        present = frozenset(k for k, v in item.items() if v not in (None, "", [], {}))
        key = (str(item.get("type", "")), present)
        if key not in self._known:
            cases: list[frozenset[str]] = []
            self._walk(self._root, frozenset(), key, cases, frozenset())
            self._known[key] = bool(cases) and all(c == {"title"} for c in cases)
        return self._known[key]

    def _walk(self, element: ET.Element, cases: frozenset[str],
              item: tuple[str, frozenset[str]], found: list, calling: frozenset[str]) -> None:
        """Collect in ``found`` the text cases of every reachable print of the title."""
        if element.get("text-case"):
            cases = cases | {element.get("text-case")}
        if element.tag == _CSL + "choose":
            for branch in element:
                verdict = _condition(branch, item) if branch.tag != _CSL + "else" else True
                if verdict is not False:
                    self._walk(branch, cases, item, found, calling)
                if verdict is True:
                    break
            return
        if element.tag == _CSL + "text":
            if element.get("variable") == "title":
                found.append(cases)
            name = element.get("macro")
            if name in self._macros and name not in calling:
                self._walk(self._macros[name], cases, item, found, calling | {name})
        for child in element:
            if child.tag != _CSL + "macro":
                self._walk(child, cases, item, found, calling)


def _condition(branch: ET.Element, item: tuple[str, frozenset[str]]) -> bool | None:
    """An ``if``/``else-if``'s verdict for an item ``(type, variables present)``:
    ``True``, ``False`` or ``None`` (it depends on more than type and variables)."""
    kind, present = item
    tests: list[bool] = []
    unknown = False
    for name, value in branch.attrib.items():
        if name == "type":
            tests += [kind == t for t in value.split()]
        elif name == "variable":
            tests += [v in present for v in value.split()]
        elif name != "match":
            unknown = True
    match = branch.get("match", "all")
    if match == "any":
        return True if any(tests) else (None if unknown else False)
    if match == "none":
        return False if any(tests) else (None if unknown else True)
    return False if not all(tests) else (None if unknown else True)
