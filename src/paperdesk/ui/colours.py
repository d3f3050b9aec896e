"""Colour helpers: readable text on a coloured chip, and small swatch icons."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

__all__ = ["relative_luminance", "contrast_ratio", "text_colour_for", "swatch_icon"]

BLACK = "#000000"
WHITE = "#ffffff"


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
