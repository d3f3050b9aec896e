"""Markup inside record values, made plain text. Pure: no database, no Qt.

Two kinds of markup reach titles and abstracts of imported records:

- CSL-JSON's rich-text markup (CSL 1.0.2 specification, "Rich Text Markup Within
  Fields"; citeproc-js's "HTML-like formatting tags"): ``<i>``, ``<b>``, ``<sup>``,
  ``<sub>``, ``<span style="font-variant:small-caps;">`` and ``<span class="nocase">``;
  also ``<em>``, ``<strong>``, ``<sc>`` and ``<br>``, which Zotero and citeproc-js
  accept too.
- JATS XML (NISO Z39.96, the Journal Article Tag Suite) that Crossref delivers in its
  abstracts (``<jats:p>``, ``<jats:italic>``, ``<jats:sub>``, ``<jats:title>``, ...), which
  Zotero copies into CSL-JSON and RIS ``AB`` fields; also HTML ``<p>``/``<div>``, and
  JATS's inline tags without the prefix (``<scp>``, ``<italic>``, ``<bold>``), which
  OpenAlex keeps in some publishers' titles.

:func:`plain_text` removes exactly these tags (their text stays: ``<sub>2</sub>`` is
"2"), ends a paragraph or title element with a space so that words on both sides stay
apart, drops a JATS ``<jats:title>`` whose text is only "Abstract" (Crossref's heading),
and then unescapes HTML character references (``&amp;`` -> ``&``); a value that starts
with one of these tags escaped (``&lt;p&gt;Title&lt;/p&gt;``: OpenAlex's records of some
journals) is unescaped first. A ``<`` that does not
open one of these tags (``x < y``, ``a<b and c>d``: attributes count only as
``name="value"``) is text and stays. Text without any of these
tags is returned unchanged (its ``&amp;`` too: not every tool writes entities).

Paragraphs become one space, not a paragraph break: paperdesk stores an abstract
normalised to one line (:func:`paperdesk.core.text.normalize`).
"""

from __future__ import annotations

import html
import re

__all__ = ["plain_text", "has_markup"]

_INLINE = r"i|b|em|strong|sup|sub|sc|scp|italic|bold|span|u|tt|code|small"
_BLOCK = r"p|div|br|title|sec|abstract|list|list-item|label|caption"
_JATS = r"jats:[A-Za-z][\w.-]*|mml:[A-Za-z][\w.-]*"
# Attributes only as name="value" (or 'value'), so that "a<b and c>d" is not a tag.
_ATTRS = r"""(?:\s+[\w:.-]+\s*=\s*(?:"[^"<>]*"|'[^'<>]*'))*\s*/?>"""
_TAG = re.compile(rf"</?(?:{_JATS}|{_BLOCK}|{_INLINE}){_ATTRS}", re.IGNORECASE)
_BLOCK_TAG = re.compile(rf"</?(?:jats:(?:p|title|sec|abstract|list|list-item|label|caption)"
                        rf"|{_BLOCK}){_ATTRS}", re.IGNORECASE)
_ABSTRACT_HEADING = re.compile(rf"<jats:title{_ATTRS}\s*abstract\s*[.:]?\s*</jats:title>",
                               re.IGNORECASE)


def has_markup(text: str) -> bool:
    """Whether ``text`` holds one of the tags :func:`plain_text` removes."""
    return bool(_TAG.search(text))


def plain_text(text: str) -> str:
    """Return ``text`` without CSL rich-text, JATS or HTML paragraph markup (see the
    module docstring).

    Args:
        text: a title or abstract as a file has it.
    Returns:
        The text; white space is left for :func:`paperdesk.core.text.normalize`.
    """
    if text and text.lstrip().startswith("&lt;") and "<" not in text:
        unescaped = html.unescape(text)   # markup escaped once more (OpenAlex's titles:
        if _TAG.match(unescaped.lstrip()):  # "&lt;p&gt;Clinical …&lt;/p&gt;")
            return plain_text(unescaped)
    if not text or "<" not in text or not has_markup(text):
        return text
    text = _ABSTRACT_HEADING.sub(" ", text)
    text = _BLOCK_TAG.sub(" ", text)
    text = _TAG.sub("", text)
    return html.unescape(text)
