"""Look-alike host names: a host that mixes letters of several scripts (``аpple.com``
with a Cyrillic ``а``) is the usual shape of an IDN homograph attack (Unicode Technical
Report #36, "Unicode Security Considerations", section 2.1; UTS #39 section 5.1
"Mixed-Script Detection", simplified here: each letter's script is the first word of its
Unicode character name, Han, Hiragana and Katakana count as one Japanese script and Han
and Hangul as one Korean one, digits and hyphens have none)."""

from __future__ import annotations

import unicodedata

__all__ = ["host_scripts", "is_mixed_script", "ascii_host", "unicode_host"]

#: Scripts that are written together in one language and so do not count as mixed.
_COMPATIBLE = ({"CJK", "HIRAGANA", "KATAKANA"}, {"CJK", "HANGUL"})


def host_scripts(host: str) -> set[str]:
    """Return the scripts of the letters in ``host`` (e.g. ``{"LATIN", "CYRILLIC"}``).

    Args:
        host: a host name in Unicode (not punycode), e.g. ``"münchen.de"``.
    Returns:
        Script names as the first word of each letter's Unicode name (``"LATIN"``,
        ``"CYRILLIC"``, ``"GREEK"``, ``"CJK"`` …); letters without a name are ``"?"``.
    """
    scripts = set()
    for char in host:
        if char.isalpha():
            scripts.add(unicodedata.name(char, "? ?").split()[0])
    return scripts


def is_mixed_script(host: str) -> bool:
    """Whether a label of ``host`` mixes letters of scripts not written together (Latin
    with Cyrillic or Greek, and so on), as UTS #39 checks each label. ``münchen.de``,
    ``例え.jp`` and ``пример.com`` are not mixed; ``аpple.com`` (a Cyrillic а among
    Latin letters) is. Punycode labels (``xn--…``) are decoded first.

    Args:
        host: a host name, in Unicode or punycode.
    Returns:
        True when one of its labels has letters from more than one script group.
    """
    for label in unicode_host(host).split("."):
        scripts = host_scripts(label)
        if len(scripts) > 1 and not any(scripts <= group for group in _COMPATIBLE):
            return True
    return False


def unicode_host(host: str) -> str:
    """Return ``host`` with its punycode labels decoded (``"xn--pple-43d.com"`` →
    ``"аpple.com"``); a label that does not decode is kept as it is."""
    labels = []
    for label in host.split("."):
        if label.lower().startswith("xn--"):
            try:
                label = label.encode("ascii").decode("idna")
            except (UnicodeError, ValueError):
                pass
        labels.append(label)
    return ".".join(labels)


def ascii_host(host: str) -> str:
    """Return ``host`` in its ASCII (punycode, RFC 3492 via IDNA 2003 ToASCII) form, as
    the browser sends it: ``"аpple.com"`` → ``"xn--pple-43d.com"``; a host that cannot be
    encoded is returned unchanged."""
    try:
        return host.encode("idna").decode("ascii")
    except (UnicodeError, ValueError):
        return host
