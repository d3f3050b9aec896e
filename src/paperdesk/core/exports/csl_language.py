"""A paper's language as CSL wants it: a language code. Pure: no database, no Qt.

CSL 1.0.2 (https://docs.citationstyles.org/en/stable/specification.html, "Appendix IV -
Variables", ``language``; "Text-case", "Title case conversion") takes an item's
``language`` as an ISO 639-1 code, optionally with a region (``en``, ``de-AT``), and
title-cases only items whose language is English: an item with no ``language``, or one
starting ``en``. Files write the language in other ways: MEDLINE and RIS exports of
databases the ISO 639-2 code (``eng``, ``ger``), BibTeX files its English or native name
(``English``, ``Deutsch``). Handed over as written, processors disagree: pandoc's citeproc
takes ``eng`` for a language other than English and leaves the title as written,
citeproc-js (Zotero's) title-cases it. :func:`csl_language` gives the code for these
forms, for the languages of the CSL locales (:data:`.csl_styles.CSL_LOCALES`).
"""

from __future__ import annotations

import re

__all__ = ["LANGUAGE_CODES", "csl_language"]

# ISO 639-1 code: ISO 639-2 codes (bibliographic and terminology forms), English and
# native names (ISO 639-2 registration authority, https://www.loc.gov/standards/iso639-2/).
_NAMES = """
af afr afrikaans | ar ara arabic | bg bul bulgarian | ca cat catalan català |
cs ces cze czech čeština | cy cym wel welsh cymraeg | da dan danish dansk |
de deu ger german deutsch | el ell gre greek | en eng english | es spa spanish español |
et est estonian eesti | eu eus baq basque euskara | fa fas per persian farsi |
fi fin finnish suomi | fr fra fre french français | gl glg galician galego |
he heb hebrew | hi hin hindi | hr hrv croatian hrvatski | hu hun hungarian magyar |
hy hye arm armenian | id ind indonesian | is isl ice icelandic íslenska |
it ita italian italiano | ja jpn japanese | km khm khmer | ko kor korean | la lat latin |
lt lit lithuanian lietuvių | lv lav latvian latviešu | mn mon mongolian | ms msa may malay |
nb nob bokmål | nn nno nynorsk | no nor norwegian norsk | nl nld dut dutch nederlands |
pl pol polish polski | pt por portuguese português | ro ron rum romanian română |
ru rus russian | sk slk slo slovak slovenčina | sl slv slovenian slovene slovenščina |
sr srp serbian | sv swe swedish svenska | th tha thai | tr tur turkish türkçe |
uk ukr ukrainian | vi vie vietnamese | zh zho chi chinese
"""

#: Lower-case ISO 639-2 code or language name -> ISO 639-1 code (``"eng"`` -> ``"en"``).
LANGUAGE_CODES: dict[str, str] = {
    word: group.split()[0]
    for group in _NAMES.split("|") for word in group.split()
}
_TAG = re.compile(r"^([A-Za-z]{2,3})((?:-[A-Za-z0-9]{2,8})*)$")


def csl_language(text: str) -> str:
    """The CSL ``language`` of a paper whose language a file gave as ``text``.

    Args:
        text: as the file wrote it: a code (``"en"``, ``"de-AT"``, ``"eng"``) or a name
            (``"English"``, ``"Deutsch"``), any case.
    Returns:
        An ISO 639-1 code with the region as written (``"en"``, ``"de-AT"``); ``text``
        as written (stripped) when it names no language known here.
    """
    text = text.strip()
    named = LANGUAGE_CODES.get(text.casefold())
    if named:
        return named
    tag = _TAG.match(text)
    if tag and tag.group(1).lower() in LANGUAGE_CODES:
        return LANGUAGE_CODES[tag.group(1).lower()] + tag.group(2)
    return text
