"""Small display helpers shared by the UI modules: dates, counts and safe tooltips.

Nothing here creates widgets; every function is pure and cheap enough to call from
``QAbstractItemModel.data()``.
"""

from __future__ import annotations

import datetime as _dt
import html

from paperdesk.core.text import bidi_visible

__all__ = ["local_date", "local_datetime", "plural", "tooltip_html"]


def _parse(iso: str) -> _dt.datetime | None:
    try:
        value = _dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=_dt.timezone.utc)
    return value.astimezone()


def local_date(iso: str) -> str:
    """Return the local calendar date of an ISO 8601 timestamp.

    Args:
        iso: e.g. ``"2026-11-30T06:26:23Z"`` (naive values are taken as UTC).
    Returns:
        ``"2026-11-30"`` in the local time zone; the input unchanged if it is not ISO 8601.
    """
    value = _parse(iso)
    return value.strftime("%Y-%m-%d") if value else str(iso)


def local_datetime(iso: str) -> str:
    """Return an ISO 8601 timestamp as local ``"YYYY-MM-DD HH:MM"``.

    Args:
        iso: an ISO 8601 timestamp (naive values are taken as UTC).
    Returns:
        The local date and time; the input unchanged if it is not ISO 8601.
    """
    value = _parse(iso)
    return value.strftime("%Y-%m-%d %H:%M") if value else str(iso)


def plural(n: int, word: str) -> str:
    """Return ``"1 paper"`` / ``"2 papers"`` / ``"20,337 papers"`` (thousands separated
    by commas, as every count the window and the command line show).

    Args:
        n: the count.
        word: the singular noun (plural is formed by adding ``s``).
    Returns:
        The count and the noun.
    """
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def tooltip_html(text: str) -> str:
    """Wrap literal text as a rich-text tooltip that Qt will not interpret as markup.

    Qt guesses whether a tooltip string is HTML (``Qt::mightBeRichText``), so a title such
    as ``"Markup <b>x</b>"`` would be rendered bold. Escaping and wrapping in ``<p>`` makes
    it always rich text with the literal characters shown, and lets long text wrap.

    Args:
        text: any text; newlines are kept as line breaks, bidi controls are made visible
            (:func:`paperdesk.core.text.bidi_visible`).
    Returns:
        An HTML string for ``setToolTip`` / ``Qt.ToolTipRole``; empty for empty input.
    """
    if not text:
        return ""
    return "<p>" + html.escape(bidi_visible(text)).replace("\n", "<br>") + "</p>"
