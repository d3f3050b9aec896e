"""Opening links safely: only http(s) URLs with a host, and only in the system browser.

Shared by the abstract view and the note editor; nothing in paperdesk follows a link
itself.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from paperdesk.core.hostnames import ascii_host, is_mixed_script, unicode_host
from paperdesk.core.text import find_urls

__all__ = ["SAFE_SCHEMES", "is_safe_url", "link_problem", "open_safe_url", "url_at"]

#: The only URL schemes a click may open (in the system browser).
SAFE_SCHEMES = frozenset({"http", "https"})


def link_problem(url: QUrl | str) -> str | None:
    """Return why ``url`` may not be opened, as the end of a "Not opened: …" message, or
    ``None`` when it may.

    A link may be opened when it is a valid http or https URL with a host whose labels
    do not mix scripts (:func:`paperdesk.core.hostnames.is_mixed_script`: ``аpple.com``
    with a Cyrillic ``а`` is refused, and the message shows the host's punycode form).

    Args:
        url: a QUrl or a string.
    Returns:
        ``None``, or e.g. ``"only http and https links open"``.
    """
    url = QUrl(url) if isinstance(url, str) else url
    if not (url.isValid() and url.scheme().lower() in SAFE_SCHEMES and url.host()):
        return "only http and https links open"
    host = unicode_host(QUrl.fromAce(QUrl.toAce(url.host())) or url.host())
    if is_mixed_script(host):
        return (f"its host {ascii_host(host)} mixes letters of different scripts "
                f"(\u2068{host}\u2069), as look-alike addresses do; copy the link to "
                "open it anyway")
    return None


def is_safe_url(url: QUrl | str) -> bool:
    """Return True if ``url`` may be opened (:func:`link_problem` finds nothing).

    Args:
        url: a QUrl or a string.
    Returns:
        True for e.g. ``https://example.org/x``; False for ``javascript:``, ``file:``,
        ``mailto:``, relative or host-less URLs, and hosts that mix scripts.
    """
    return link_problem(url) is None


def open_safe_url(url: QUrl | str) -> bool:
    """Hand ``url`` to the system browser (``QDesktopServices.openUrl``) if it is safe.

    Args:
        url: a QUrl or a string.
    Returns:
        True if it was handed over; False if refused (see :func:`is_safe_url`).
    """
    url = QUrl(url) if isinstance(url, str) else url
    if not is_safe_url(url):
        return False
    QDesktopServices.openUrl(url)
    return True


def url_at(text: str, offset: int) -> str | None:
    """Return the http(s) URL written in ``text`` that covers character ``offset``.

    Args:
        text: plain text (e.g. one line of a note).
        offset: a character index into ``text``.
    Returns:
        The cleaned URL (see :func:`paperdesk.core.text.find_urls`), or ``None``.
    """
    for start, end, url in find_urls(text):
        if start <= offset < end:
            return url
    return None
