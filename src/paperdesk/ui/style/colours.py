"""Colour helpers: readable text on a coloured chip, small swatch icons, and the colours
paperdesk adds to the palette (search-hit marks, muted text, the star, errors), chosen for
the light or the dark palette and checked for contrast.

Every custom colour comes from :func:`reading_colours`, which looks at the palette it is
given: text colours are taken from it or mixed from it until they reach a WCAG contrast
ratio of :data:`MIN_CONTRAST` against the background they are drawn on.
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap

from paperdesk.ui.panes.paper_html import HtmlColours

__all__ = ["relative_luminance", "contrast_ratio", "text_colour_for", "swatch_icon",
           "is_dark", "readable_on", "muted_colour", "reading_colours", "MIN_CONTRAST",
           "SEARCH_HIT_LIGHT", "SEARCH_HIT_DARK"]

BLACK = "#000000"
WHITE = "#ffffff"
#: Smallest contrast ratio paperdesk accepts for text it colours itself (WCAG AA).
MIN_CONTRAST = 4.5
#: Search-hit marks ``(background, text)``: amber/orange, unlike any highlight colour, and
#: underlined as well, so a hit never looks like a user's (yellow) highlight.
SEARCH_HIT_LIGHT = ("#ffa94d", "#000000")
SEARCH_HIT_DARK = ("#8f4a00", "#ffffff")
_STAR = {False: "#8f6200", True: "#f2c14e"}
_ERROR = {False: "#b3261e", True: "#ff8a80"}


def relative_luminance(colour: str) -> float:
    """Return the WCAG 2 relative luminance of a colour.

    Args:
        colour: ``#rrggbb`` (anything ``QColor`` understands).
    Returns:
        A value from 0.0 (black) to 1.0 (white).
    """
    c = QColor(colour)

    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    return (0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF())
            + 0.0722 * channel(c.blueF()))


def contrast_ratio(a: str, b: str) -> float:
    """Return the WCAG 2 contrast ratio of two colours (1.0 to 21.0)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


@lru_cache(maxsize=512)   # asked per tag chip of every painted row
def text_colour_for(background: str) -> str:
    """Choose black or white text, whichever contrasts more with ``background``.

    Args:
        background: ``#rrggbb``.
    Returns:
        ``"#000000"`` or ``"#ffffff"``.
    """
    return BLACK if contrast_ratio(background, BLACK) >= contrast_ratio(background, WHITE) \
        else WHITE


@lru_cache(maxsize=256)
def swatch_icon(colour: str, size: int = 12, round_: bool = True) -> QIcon:
    """Return a small filled circle (or rounded square) icon in ``colour``.

    Args:
        colour: ``#rrggbb``.
        size: edge length in pixels.
        round_: a circle when True, a rounded square when False.
    Returns:
        A QIcon (cached per arguments; needs a QGuiApplication).
    """
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor(colour).darker(130))
    painter.setBrush(QColor(colour))
    rect = QRectF(0.5, 0.5, size - 1, size - 1)
    if round_:
        painter.drawEllipse(rect)
    else:
        painter.drawRoundedRect(rect, 2.5, 2.5)
    painter.end()
    return QIcon(pixmap)


def is_dark(palette: QPalette) -> bool:
    """Return True if ``palette`` is a dark one (its base colour is darker than mid-grey).

    Args:
        palette: a widget's or the application's palette.
    """
    return palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved a fraction ``t`` (0-1) of the way to ``b``."""
    return QColor.fromRgbF(a.redF() + (b.redF() - a.redF()) * t,
                           a.greenF() + (b.greenF() - a.greenF()) * t,
                           a.blueF() + (b.blueF() - a.blueF()) * t)


def readable_on(colour: str, background: str, minimum: float = MIN_CONTRAST) -> str:
    """Return ``colour``, moved towards black or white just far enough to reach a
    contrast ratio of ``minimum`` against ``background``.

    Args:
        colour: ``#rrggbb``.
        background: ``#rrggbb`` the text is drawn on.
        minimum: contrast ratio to reach (at most 21).
    Returns:
        ``#rrggbb`` (``colour`` itself when it is readable already).
    """
    if contrast_ratio(colour, background) >= minimum:
        return QColor(colour).name()
    target = QColor(text_colour_for(background))
    start = QColor(colour)
    for step in range(1, 21):
        mixed = _mix(start, target, step / 20).name()
        if contrast_ratio(mixed, background) >= minimum:
            return mixed
    return target.name()


def muted_colour(palette: QPalette, minimum: float = MIN_CONTRAST) -> str:
    """Return the secondary-text colour: the palette's placeholder text, made readable
    on both its base and window colours.

    Args:
        palette: the palette drawn with.
        minimum: contrast ratio to reach on both backgrounds.
    Returns:
        ``#rrggbb``.
    """
    placeholder = palette.color(QPalette.ColorRole.PlaceholderText)
    base = palette.color(QPalette.ColorRole.Base)
    if placeholder.alphaF() < 1.0:   # e.g. text at half alpha: compose it on the base
        placeholder = _mix(base, QColor(placeholder.rgb()), placeholder.alphaF())
    colour = placeholder.name()
    for role in (QPalette.ColorRole.Base, QPalette.ColorRole.Window):
        colour = readable_on(colour, palette.color(role).name(), minimum)
    return colour


def reading_colours(palette: QPalette) -> HtmlColours:
    """Return the colours paperdesk adds to ``palette`` (for the detail pane's HTML, the
    list's snippets and stars, the note's search marks and error labels).

    Search-hit marks are :data:`SEARCH_HIT_LIGHT` or :data:`SEARCH_HIT_DARK`; the muted
    text, the star and error text are made readable (:data:`MIN_CONTRAST`) on the
    palette's base colour.

    Args:
        palette: the palette the widgets are drawn with.
    Returns:
        An :class:`~paperdesk.ui.panes.paper_html.HtmlColours`.
    """
    # Painting asks for these per list cell: remember them per palette colours (the
    # contrast search below costs ~0.5 ms a call, 30 ms for a screenful of rows).
    key = tuple(palette.color(role).rgba() for role in _READING_ROLES)
    found = _READING_CACHE.get(key)
    if found is None:
        if len(_READING_CACHE) > 32:
            _READING_CACHE.clear()
        found = _READING_CACHE[key] = _reading_colours(palette)
    return found


#: The palette colours :func:`reading_colours` depends on.
_READING_ROLES = (QPalette.ColorRole.Base, QPalette.ColorRole.Window,
                  QPalette.ColorRole.PlaceholderText, QPalette.ColorRole.Link)
_READING_CACHE: dict[tuple, HtmlColours] = {}


def _reading_colours(palette: QPalette) -> HtmlColours:
    dark = is_dark(palette)
    base = palette.color(QPalette.ColorRole.Base).name()
    hit_bg, hit_fg = SEARCH_HIT_DARK if dark else SEARCH_HIT_LIGHT
    return HtmlColours(
        hit_background=hit_bg, hit_text=hit_fg, muted=muted_colour(palette),
        highlight_text=BLACK, star=readable_on(_STAR[dark], base),
        error=readable_on(_ERROR[dark], palette.color(QPalette.ColorRole.Window).name()),
        link=readable_on(palette.color(QPalette.ColorRole.Link).name(), base))
