"""How each built-in import format is recognised by content: the sniffs registered in
:mod:`paperdesk.core.imports.formats` (rules: :mod:`paperdesk.core.imports.detect`).
Pure: no database, no Qt.
"""

from __future__ import annotations

import re

from paperdesk.core.exports.paperdesk_json import JSON_FORMAT_NAME
from paperdesk.core.imports.arxiv import first_line_object, is_arxiv_object
from paperdesk.core.imports.daily_papers import ParseError, prose_problem, split_paragraphs
from paperdesk.core.imports.medline import MEDLINE_START
from paperdesk.core.imports.registry import Sample
from paperdesk.core.imports.wos import WOS_HEADER

__all__ = ["JSON_START", "MARKUP_START", "is_paperdesk_json", "is_arxiv_jsonl",
           "is_csl_json", "is_bibtex", "is_ris", "is_wos", "is_medline", "check_prose",
           "is_text"]

#: Content that starts like a JSON array ("[section]" is INI, not JSON).
JSON_START = re.compile(r"\[\s*(?:[\[{\"\]\d-]|true|false|null)")
#: Content that starts like markup (HTML, XML).
MARKUP_START = re.compile(r"<(?:[A-Za-z!?/])")
# "@string{", "@preamble{", "@comment{", or "@type{key," (a key, then a comma: prose that
# starts with "@Twitter (" is not an entry).
_BIB_ENTRY = re.compile(r"@[ \t]*(?:(?:string|preamble|comment)[ \t]*[{(]|[A-Za-z]+[ \t]*"
                        r"[{(][ \t]*[^\s,{}()=\"#%']*[ \t]*(?:,|$))", re.IGNORECASE)
#: Lines other than comments a file may have before its first BibTeX block or RIS record.
_LEAD_LINES = 3
_RIS_TY = re.compile(r"TY {1,2}-( |$)")
#: An RIS tag line (``JF  - Journal``; one space before the hyphen as Zotero reads too).
_RIS_TAG = re.compile(r"[A-Z][A-Z0-9] {1,2}-( |$)")
_RIS_COUNTER = re.compile(r"\d+\.?")
# A Web of Science record cut out of an export without the header: "PT J" first, an
# "ER" line ending it.
_WOS_FIRST = re.compile(r"PT [A-Z]")
_WOS_END = re.compile(r"^ER[ \t]*$", re.MULTILINE)
#: A line (the characters between the line ends ``str.splitlines`` knows).
_LINE = re.compile(r"[^\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]*")


def _starts_with(text: str, pattern: re.Pattern, skip) -> bool:
    """Whether one of the first lines matches ``pattern``, with at most
    :data:`_LEAD_LINES` other lines (not blank, not ``skip``) before it: what a tool
    writes before the records ("Encoding: UTF8", "Provider: ...")."""
    others = 0
    for found in _LINE.finditer(text):       # not splitlines(): a copy of a 190 MB file
        clean = found.group().strip()
        if not clean or skip(clean):
            continue
        if pattern.match(clean):
            return True
        others += 1
        if others > _LEAD_LINES:
            return False
    return False


def is_paperdesk_json(sample: Sample) -> bool:
    """A JSON object whose ``format`` is
    :data:`~paperdesk.core.exports.paperdesk_json.JSON_FORMAT_NAME` (paperdesk's own export)."""
    doc = sample.document
    return isinstance(doc, dict) and doc.get("format") == JSON_FORMAT_NAME


def is_arxiv_jsonl(sample: Sample) -> bool:
    """arXiv metadata: one JSON object that is an arXiv record, or JSON Lines whose
    first line is one (:func:`~paperdesk.core.imports.arxiv.is_arxiv_object`)."""
    if sample.json_error is not None:
        return is_arxiv_object(first_line_object(sample.body))
    return is_arxiv_object(sample.document)


def is_csl_json(sample: Sample) -> bool:
    """A JSON array in which more than half of the elements are objects with a ``type``
    or a ``title`` (the reader leaves the others out, each with a note), or one object
    with a ``type`` and a ``title`` or ``abstract`` (as citation-js writes a single
    item) that is neither a paperdesk export nor an arXiv record (CSL 1.0.2 data
    schema)."""
    doc = sample.document
    if isinstance(doc, list):
        items = sum(1 for d in doc if isinstance(d, dict) and ("type" in d or "title" in d))
        return items * 2 > len(doc)
    return (isinstance(doc, dict) and "type" in doc and ("title" in doc or "abstract" in doc)
            and not is_paperdesk_json(sample) and not is_arxiv_jsonl(sample))


def is_bibtex(sample: Sample) -> bool:
    """An ``@`` block starts a line, with at most three lines before it other than
    blank lines and ``%`` comments."""
    return _starts_with(sample.body, _BIB_ENTRY, lambda ln: ln.startswith("%"))


def is_ris(sample: Sample) -> bool:
    """An RIS ``TY  - `` line (or ``TY - ``, with one space), with at most three lines
    before it other than blank lines and the bare record counter ``1.``; or RIS tag
    lines without one: the first two lines other than those are tag lines (``JF  - ``,
    ``T1  - ``), which the RIS reader refuses naming the missing ``TY`` (rather than
    plain text taking the tags for abstracts)."""
    def counter(line: str) -> bool:
        return bool(_RIS_COUNTER.fullmatch(line))
    if _starts_with(sample.body, _RIS_TY, counter):
        return True
    firsts = []
    for found in _LINE.finditer(sample.body):
        clean = found.group().strip()
        if clean and not counter(clean):
            firsts.append(clean.lstrip("\ufeff"))
            if len(firsts) == 2:
                break
    return len(firsts) == 2 and all(_RIS_TAG.match(line) for line in firsts)


def is_wos(sample: Sample) -> bool:
    """A Web of Science tagged export: its header line ``FN <database>`` (``FN Clarivate
    Analytics Web of Science``), or a first record's ``PT <type>`` line and an ``ER``
    line, with at most three lines before it other than blank lines."""
    if _starts_with(sample.body, WOS_HEADER, lambda _ln: False):
        return True
    return (_starts_with(sample.body, _WOS_FIRST, lambda _ln: False)
            and _WOS_END.search(sample.body) is not None)


def is_medline(sample: Sample) -> bool:
    """PubMed/MEDLINE (``.nbib``, PubMed format): a ``PMID- <number>`` line with at most
    three lines before it other than blank lines."""
    return _starts_with(sample.body, MEDLINE_START, lambda _ln: False)


def check_prose(problems: list[str], paragraphs: int) -> None:
    """Refuse text when more than half of its ``paragraphs`` are ``problems`` (the
    kinds :func:`~paperdesk.core.imports.daily_papers.prose_problem` found), naming the
    kinds found.

    Raises:
        ParseError: (with an empty path) the one-line reason.
    """
    if paragraphs and len(problems) * 2 > paragraphs:
        kinds = sorted(set(problems), key=lambda k: (-problems.count(k), k))
        what = ", ".join(kinds[:-1]) + " and " + kinds[-1] if len(kinds) > 1 else kinds[0]
        verb = "is" if len(problems) == 1 else "are"
        raise ParseError("", f"not abstracts: {len(problems)} of {paragraphs} "
                             f"paragraphs {verb} {what}, not prose (nor is it "
                             "BibTeX, RIS, Web of Science, MEDLINE, CSL-JSON or a paperdesk "
                             "export)")


def is_text(sample: Sample) -> bool:
    """Daily Papers or plain text: at most half of the paragraphs fail
    :func:`~paperdesk.core.imports.daily_papers.prose_problem`.

    Raises:
        ParseError: (with an empty path) more than half fail (:func:`check_prose`).
    """
    paragraphs = split_paragraphs(sample.body)
    check_prose([k for k in (prose_problem(p) for p in paragraphs) if k], len(paragraphs))
    return True
