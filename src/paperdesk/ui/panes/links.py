"""Opening links safely: only http(s) URLs with a host, and only in the system browser.

Shared by the abstract view and the note editor; nothing in paperdesk follows a link
itself.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from paperdesk.core.text import find_urls

__all__ = ["SAFE_SCHEMES", "is_safe_url", "open_safe_url", "url_at"]

#: The only URL schemes a click may open (in the system browser).
SAFE_SCHEMES = frozenset({"http", "https"})


def is_safe_url(url: QUrl | str) -> bool:
    """Return True if ``url`` may be opened: a valid http or https URL with a host.

    Args:
        url: a QUrl or a string.
    Returns:
        True for e.g. ``https://example.org/x``; False for ``javascript:``, ``file:``,
        ``mailto:``, relative or host-less URLs.
    """
    url = QUrl(url) if isinstance(url, str) else url
    return url.isValid() and url.scheme().lower() in SAFE_SCHEMES and bool(url.host())


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
