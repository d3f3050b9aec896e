"""Fitting wrapped text into a few lines: where to cut a long title so that it ends in
"…" on its last allowed line instead of being clipped by the layout."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF, QTextLayout, QTextOption

__all__ = ["wrapped_cut"]


def wrapped_cut(text: str, font: QFont, width: float, max_lines: int) -> int | None:
    """Return where to cut ``text`` so that it plus "…" fits in ``max_lines`` lines.

    The text is broken into lines as a word-wrapped ``QLabel`` breaks it (at word
    boundaries, anywhere inside a word longer than a line). When it needs more than
    ``max_lines`` lines at ``width``, the last allowed line is elided with Qt's
    ``QFontMetricsF.elidedText`` (right elision), leaving a few pixels to spare so the
    cut text never wraps onto one more line.

    Args:
        text: the plain text (e.g. a paper title).
        font: the font it is drawn in.
        width: the line width in pixels (the label's contents width).
        max_lines: how many lines are allowed (at least 1).
    Returns:
        The number of characters of ``text`` to keep before "…", or ``None`` when the
        whole text fits (or ``width`` is not positive: nothing is laid out yet).
    """
    if width <= 0 or not text:
        return None
    max_lines = max(1, max_lines)
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    starts: list[int] = []
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        starts.append(line.textStart())
        if len(starts) > max_lines:
            break
    layout.endLayout()
    if len(starts) <= max_lines:
        return None
    start = _python_index(text, starts[max_lines - 1])
    metrics = QFontMetricsF(font)
    room = max(1.0, width - metrics.horizontalAdvance("…") * 0.5 - 2)
    tail = metrics.elidedText(text[start:], Qt.TextElideMode.ElideRight, room)
    kept = tail[:-1] if tail.endswith("…") else tail
    return start + len(kept.rstrip())


def _python_index(text: str, utf16: int) -> int:
    """The index into ``text`` of the character at UTF-16 offset ``utf16`` (Qt counts
    UTF-16 code units: a character outside the BMP, such as 𝒪, is two)."""
    units = 0
    for index, char in enumerate(text):
        if units >= utf16:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(text)
