"""CSL-JSON items -> a formatted bibliography or citation in a CSL style, through pandoc's
citeproc (the CSL 1.0.2 processor of pandoc, https://pandoc.org/MANUAL.html#citations).
Pure: no database, no Qt.

Why pandoc's citeproc: docs/bibliography.md has the measurement (citeproc-py, pandoc's
citeproc and citeproc-js, the processor of Zotero, on the sample library and the real-world
files, five styles). The pandoc binary comes with the ``pypandoc-binary`` package (one
found on ``PATH`` is used when that package is missing); the styles from
:mod:`.csl_styles`. Pandoc gets a copy of a style with one correction where its citeproc
departs from CSL 1.0.2 and citeproc-js follows it (:mod:`.csl_groups`: a non-empty nested
group keeps its outer group, IEEE's "[Online]"), and English titles, where the style
title-cases them, with the prepositions citeproc-js keeps lower case marked and a last stop
word capitalised (:mod:`.csl_title_case`).

The items are CSL-JSON as :func:`paperdesk.core.exports.csl.csl_item` makes them, so
whatever the CSL-JSON export carries (names, dates, venues) is what is formatted. Entries
come out in the order the style says (sorted, or numbered in the order given). A paper with
no author or year is formatted as the style's rules for missing data say (most put the
title first and write "n.d.").

Output forms (:data:`OUTPUTS`): ``html`` (a fragment; a full document with
``standalone``), ``text`` (plain text, one entry a paragraph), ``rtf`` (for word
processors; always a full document) and ``markdown`` (CommonMark with italics).
"""

from __future__ import annotations

import atexit
import importlib.util
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from pathlib import Path

from paperdesk.core.exports.csl_groups import correct_nested_groups
from paperdesk.core.exports.csl_styles import CslStyle, StyleError, check_locale
from paperdesk.core.exports.csl_title_case import (NOCASE_CLOSE, NOCASE_OPEN, StyleTitleCase,
                                                   capitalise_last_word, is_english,
                                                   keep_lower_case)

__all__ = ["OUTPUTS", "BIBLIOGRAPHY_OUTPUTS", "BibliographyError", "pandoc_path", "format_bibliography",
           "format_citation"]

#: Output form -> pandoc writer.
OUTPUTS: dict[str, str] = {"html": "html", "text": "plain", "rtf": "rtf",
                           "markdown": "markdown_strict-raw_html"}

#: A bibliography of 1,000 references takes about 1 s; far above that, pandoc is stuck.
_TIMEOUT_S = 120
#: The output forms, for the CLI's ``--as`` (the keys of :data:`OUTPUTS`).
BIBLIOGRAPHY_OUTPUTS: tuple[str, ...] = tuple(OUTPUTS)
_HANGING = 'class="csl-entry"'
# The hanging indent in inches (APA 7 and the Chicago Manual ask for half an inch):
# LibreOffice Writer's HTML import drops margins and indents given in em, which the
# clipboard's HTML is pasted through (tests/ui/test_ui_bibliography.py converts it).
_HANGING_STYLE = 'class="csl-entry" style="margin-left: 0.5in; text-indent: -0.5in"'
# The lower-case marks (:func:`_handed_over`) come out of pandoc's HTML writer as spans
# that do nothing: their words are kept, the spans not.
_MARK_SPAN = re.compile(re.escape(NOCASE_OPEN) + r"([^<>]*)" + re.escape(NOCASE_CLOSE))


class BibliographyError(StyleError):
    """The bibliography could not be made (one line: the processor's reason)."""


def pandoc_path() -> str:
    """The pandoc program: the one ``pypandoc-binary`` ships, else ``pandoc`` on ``PATH``.

    Raises:
        BibliographyError: neither is there.
    """
    spec = importlib.util.find_spec("pypandoc")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            shipped = Path(folder) / "files" / ("pandoc.exe" if os.name == "nt" else "pandoc")
            if shipped.is_file():
                return str(shipped)
    found = shutil.which("pandoc")
    if found is None:
        raise BibliographyError("pandoc is missing: install the pypandoc-binary package "
                                "(it ships pandoc), or pandoc itself")
    return found


def _inlines(text: str) -> list[dict]:
    """Plain text as pandoc AST inlines (words and spaces)."""
    out: list[dict] = []
    for word in text.split():
        if out:
            out.append({"t": "Space"})
        out.append({"t": "Str", "c": word})
    return out


def _add_notes(ast: dict, notes: Mapping[str, str]) -> dict:
    """Put each entry's note (``notes``: internal id -> text) in paragraphs below it."""
    def walk(blocks: list) -> list:
        out = []
        for block in blocks:
            if block.get("t") == "Div":
                attr, children = block["c"]
                block = {"t": "Div", "c": [attr, walk(children)]}
                out.append(block)
                key = attr[0][4:] if attr[0].startswith("ref-") else None
                if key in notes:
                    out.append({"t": "Div", "c": [["", ["paperdesk-note"], []], [
                        {"t": "Para", "c": _inlines(line)}
                        for line in notes[key].splitlines() if line.strip()]]})
            else:
                out.append(block)
        return out
    ast["blocks"] = walk(ast["blocks"])
    return ast


# -- speed: name expansions only where two references could be confused -----------------
# A style's disambiguate-add-names / -givenname make pandoc's citeproc compare every
# reference's names with every other's: APA takes ~15 s of CPU for 1,000 references with
# them, 0.8 s without. They only change references whose citations could read the same,
# and those share the first author (or, without one, the title) and the year. So the
# references are formatted once with a copy of the style without the expansions, and those
# that share first author and year with another once more with the style as it is, whose
# entries replace theirs (tests/core/test_bibliography.py compares both ways).
_EXPANSIONS = re.compile(r'\s(?:disambiguate-add-(?:names|givenname)="true"'
                         r'|givenname-disambiguation-rule="[^"]*")')
_PREPARED: dict[tuple[str, float], tuple[Path, Path | None]] = {}
_TITLE_CASES: dict[tuple[str, float], StyleTitleCase] = {}
_COPIES: list[Path] = []
_COPY_NUMBERS = itertools.count()


def _copy(name: str, text: str) -> Path:
    """Write ``text`` to a new file in the folder of style copies (removed at exit)."""
    if not _COPIES:
        _COPIES.append(Path(tempfile.mkdtemp(prefix="paperdesk-styles-")))
        atexit.register(shutil.rmtree, _COPIES[0], ignore_errors=True)
    path = _COPIES[0] / f"{next(_COPY_NUMBERS)}-{name}"
    path.write_text(text, encoding="utf-8")
    return path


def _style_files(style: CslStyle) -> tuple[Path, Path | None]:
    """``(the style as pandoc gets it, a copy of that without name expansions or None)``,
    cached: the first is ``style.path`` or a copy with the nested-group correction
    (:func:`.csl_groups.correct_nested_groups`); the second is ``None`` when the style has
    no name expansions or numbers its references (one run)."""
    try:
        key = (str(style.path), style.path.stat().st_mtime)
    except OSError:
        return style.path, None
    if key not in _PREPARED:
        text = style.path.read_text(encoding="utf-8")
        try:
            corrected = correct_nested_groups(text)
        except ET.ParseError:           # pandoc says what is wrong with the file
            corrected = text
        full = style.path if corrected == text else _copy(style.path.name, corrected)
        light = _EXPANSIONS.sub("", corrected)
        if light == corrected or 'variable="citation-number"' in corrected:
            _PREPARED[key] = (full, None)
        else:
            _PREPARED[key] = (full, _copy("light-" + style.path.name, light))
    return _PREPARED[key]


def _title_case(style: CslStyle) -> StyleTitleCase | None:
    """What ``style`` does with the case of titles (:class:`.csl_title_case.StyleTitleCase`,
    cached per file and modification time); ``None`` if the file cannot be read."""
    try:
        key = (str(style.path), style.path.stat().st_mtime)
    except OSError:
        return None
    if key not in _TITLE_CASES:
        _TITLE_CASES[key] = StyleTitleCase(
            style.path.read_text(encoding="utf-8", errors="replace"))
    return _TITLE_CASES[key]


def _handed_over(items: Sequence[dict], style: CslStyle, lang: str) -> list[dict]:
    """The items as pandoc gets them: ids ``r0``, ``r1``, ... in order, and, when the style
    title-cases, English titles with citeproc-js's lower-case words marked and, where the
    title is title-cased wherever the style prints it, the last word capitalised as CSL
    1.0.2 says (:mod:`.csl_title_case`). ``lang``: the bibliography's locale, which
    decides for an item without ``language`` whether it is English."""
    cases = _title_case(style)
    out = []
    for n, item in enumerate(items):
        item = dict(item, id=f"r{n}")
        title = item.get("title")
        if cases is not None and cases.marks and isinstance(title, str) and is_english(item):
            title = keep_lower_case(title)
            last = capitalise_last_word(title)
            if last != title and (item.get("language") or lang.lower().startswith("en")) \
                    and cases.always_title_cased(item):
                title = last
            item["title"] = title
        out.append(item)
    return out


def _light_style(style: CslStyle) -> Path | None:
    """The cached copy of ``style`` without name expansions, or ``None`` if it has none."""
    return _style_files(style)[1]


def _confusable(items: Sequence[dict]) -> set[int]:
    """Positions of the items that share first author (else title) and year with another."""
    groups: dict[tuple, list[int]] = {}
    for n, item in enumerate(items):
        names = item.get("author") or item.get("editor") or []
        first = names[0].get("family") or names[0].get("literal", "") if names else ""
        year = (item.get("issued") or {}).get("date-parts", [[None]])[0][:1]
        key = (first.casefold() or str(item.get("title", "")).casefold(), tuple(year))
        groups.setdefault(key, []).append(n)
    return {n for members in groups.values() if len(members) > 1 for n in members}


def _entry_id(block: dict) -> str | None:
    return block["c"][0][0] if block.get("t") == "Div" else None


def _splice(ast: dict, better: dict) -> dict:
    """Replace the entries of ``ast``'s bibliography by those of ``better`` with the same
    id."""
    found = {}

    def collect(blocks):
        for block in blocks:
            if block.get("t") == "Div":
                if _entry_id(block).startswith("ref-"):
                    found[_entry_id(block)] = block
                collect(block["c"][1])

    def replace(blocks):
        return [found.get(_entry_id(b) or "", b) if (_entry_id(b) or "").startswith("ref-")
                else ({"t": "Div", "c": [b["c"][0], replace(b["c"][1])]}
                      if b.get("t") == "Div" else b) for b in blocks]

    collect(better["blocks"])
    ast["blocks"] = replace(ast["blocks"])
    return ast


def _run(pandoc: str, args: list[str], text: str) -> str:
    try:
        done = subprocess.run([pandoc, *args], input=text, capture_output=True,
                              encoding="utf-8", errors="replace", timeout=_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BibliographyError(f"pandoc did not run: {exc}") from None
    if done.returncode != 0:
        reason = next((line.strip() for line in done.stderr.splitlines() if line.strip()),
                      f"exit status {done.returncode}")
        raise BibliographyError(f"pandoc's citeproc failed: {reason}")
    return done.stdout


def _render(items: Sequence[dict], style: CslStyle, locale: str | None, output: str,
            document: str, notes: Mapping[str, str] | None, standalone: bool) -> str:
    if output not in OUTPUTS:
        raise BibliographyError(f"unknown output form {output!r}; use one of "
                                f"{', '.join(OUTPUTS)}")
    lang = check_locale(locale) if locale else style.default_locale
    pandoc = pandoc_path()
    keyed = _handed_over(items, style, lang or "en-US")
    by_old = {str(item.get("id")): f"r{n}" for n, item in enumerate(items)}
    full, light = _style_files(style)
    light = None if document else light
    confusable = _confusable(keyed) if light is not None else set()
    with tempfile.TemporaryDirectory(prefix="paperdesk-bib-") as tmp:
        refs = Path(tmp) / "refs.json"
        refs.write_text(json.dumps(keyed, ensure_ascii=False), encoding="utf-8")

        def citeproc(bibliography: Path, csl: Path) -> list[str]:
            return ["--citeproc", "--bibliography", str(bibliography), "--csl", str(csl),
                    "-f", "markdown", "--wrap=none", f"--metadata=lang:{lang or 'en-US'}"]

        args = citeproc(refs, light or full)
        head = "---\nnocite: '@*'\n---\n" if not document else document
        writer = OUTPUTS[output]
        whole = (standalone and output == "html") or output == "rtf"
        if notes or confusable:
            ast = json.loads(_run(pandoc, [*args, "-t", "json"], head))
            if confusable:
                some = Path(tmp) / "confusable.json"
                some.write_text(json.dumps([keyed[n] for n in sorted(confusable)],
                                           ensure_ascii=False), encoding="utf-8")
                ast = _splice(ast, json.loads(_run(
                    pandoc, [*citeproc(some, full), "-t", "json"], head)))
            inner = {by_old[k]: v for k, v in (notes or {}).items()
                     if k in by_old and v.strip()}
            args = ["-f", "json", "--wrap=none"]
            head = json.dumps(_add_notes(ast, inner), ensure_ascii=False)
        args += ["-t", writer] + (["-s", "--metadata=pagetitle:Bibliography"] if whole else [])
        text = _run(pandoc, args, head)
    if output == "html":
        text = _MARK_SPAN.sub(r"\1", text)
        if "hanging-indent" in text:
            text = text.replace(_HANGING, _HANGING_STYLE)
    return text


def format_bibliography(items: Sequence[dict], style: CslStyle, *, locale: str | None = None,
                        output: str = "text", notes: Mapping[str, str] | None = None,
                        standalone: bool = False) -> str:
    """Format CSL-JSON items as a bibliography.

    Args:
        items: CSL-JSON items (:func:`paperdesk.core.exports.csl.csl_item`); their ``id``
            only needs to be unique (it keys ``notes``).
        style: from :func:`paperdesk.core.exports.csl_styles.load_style`.
        locale: a CSL locale (``"en-GB"``, ``"de"``); ``None``: the style's default, else
            en-US.
        output: one of :data:`OUTPUTS`.
        notes: item id -> text put in paragraphs below its entry (``--with-notes``).
        standalone: a whole HTML document (with its CSS) instead of a fragment (HTML
            only; RTF is always whole, text and Markdown never).
    Returns:
        The bibliography, entries in the style's order. In HTML, a style with a hanging
        indent gets it as inline CSS on each entry (half an inch), so that it survives a
        paste into a word processor.
    Raises:
        StyleError: an unknown locale.
        BibliographyError: an unknown output form, pandoc missing or failing (one line).
    """
    return _render(items, style, locale, output, "", notes, standalone)


def format_citation(items: Sequence[dict], style: CslStyle, *, locale: str | None = None,
                    output: str = "text") -> str:
    """Format CSL-JSON items as one in-text citation of them all (``(Doe, 2020; Roe,
    2021)``, ``[1], [2]``), as the style's ``<citation>`` says.

    Args:
        items: CSL-JSON items, in the order cited.
        style, locale: as for :func:`format_bibliography`.
        output: ``"text"``, ``"html"`` or ``"markdown"`` (a fragment, no paragraph).
    Returns:
        The citation, one line.
    Raises:
        StyleError, BibliographyError: as for :func:`format_bibliography`.
    """
    cites = "; ".join(f"@r{n}" for n in range(len(items)))
    document = f"---\nsuppress-bibliography: true\n---\n[{cites}]\n"
    text = _render(items, style, locale, output, document, None, False).strip()
    return re.sub(r"^<p>(.*)</p>$", r"\1", text, flags=re.S)
