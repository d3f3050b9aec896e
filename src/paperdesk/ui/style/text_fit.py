"""Fitting wrapped text into a few lines: where to cut a long title so that it ends in
"…" on its last allowed line instead of being clipped by the layout
(:func:`wrapped_cut`), and how the paper list lays out a cell's text over the lines of
its row with search hits never cut (:func:`fit_runs`, :func:`row_height`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetrics, QFontMetricsF, QTextLayout, QTextOption

__all__ = ["wrapped_cut", "fit_runs", "drawn_runs", "Run", "LayoutCache", "row_height",
           "lines_in_row", "ROW_PADDING"]


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



#: Pixels a list row has besides its text (one line: the font's height plus this).
ROW_PADDING = 10


def row_height(metrics: QFontMetrics, lines: int) -> int:
    """Height in pixels of a list row holding ``lines`` lines of text in ``metrics``' font:
    the font's height plus :data:`ROW_PADDING`, plus one line spacing per further line."""
    return metrics.height() + ROW_PADDING + max(0, lines - 1) * metrics.lineSpacing()


def lines_in_row(metrics: QFontMetrics, height: int) -> int:
    """How many lines of text a list row ``height`` pixels high holds (at least 1): the
    inverse of :func:`row_height`."""
    spare = height - metrics.height() - ROW_PADDING
    return 1 + max(0, spare // max(1, metrics.lineSpacing()))


@dataclass(frozen=True)
class Run:
    """A piece of text placed by :func:`fit_runs`.

    Attributes:
        line: the line it is on (0 = the first).
        x: its left edge, in pixels from the left of the text area.
        width: its advance in pixels.
        text: the characters drawn (trailing spaces included).
        marked: part of a marked span (a search hit).
        cut: the text was cut here: ``text`` ends with the "…" that replaced the rest.
    """
    line: int
    x: float
    width: float
    text: str
    marked: bool = False
    cut: bool = False


def fit_runs(text: str, spans: Sequence[tuple[int, int]], metrics: QFontMetricsF,
             width: float, max_lines: int,
             last_width: float | None = None) -> tuple[Run, ...]:
    """Lay ``text`` out on at most ``max_lines`` lines of ``width`` pixels: lines break
    at spaces, and when the text does not fit, the last line ends in "…".

    A mark is never cut: where the last line is full, an unmarked piece is elided with
    Qt's right elision (``QFontMetricsF.elidedText``), but a mark that does not fit is
    left out whole and "…" follows the text before it. Only a mark wider than a whole
    line is cut (a list cell narrower than one word).

    Args:
        text: plain text (a title, a snippet).
        spans: sorted ``(start, end)`` character offsets of the marked parts of ``text``
            (``()`` for none); a span out of order or past the end is ignored.
        metrics: the font's metrics.
        width: the line width in pixels.
        max_lines: the lines allowed (at least 1).
        last_width: the last line's width, when it is narrower (the list's tag chips
            sit at the end of a title's last line); ``None``: ``width``.
    Returns:
        The runs in reading order: concatenated, the uncut ones are the start of
        ``text``; the last run has ``cut`` set when the text was cut. ``()`` for empty
        text or a width under one pixel.
    """
    if not text or width < 1:
        return ()
    max_lines = max(1, max_lines)

    def line_width(line: int) -> float:
        return last_width if last_width is not None and line == max_lines - 1 else width

    runs: list[Run] = []
    line, x = 0, 0.0
    for word in _words(text, spans):
        advances = [metrics.horizontalAdvance(piece) for piece, _marked in word]
        ink = sum(advances[:-1]) + metrics.horizontalAdvance(word[-1][0].rstrip())
        if x > 0 and x + ink > line_width(line) and line + 1 < max_lines:
            line, x = line + 1, 0.0
        if x + ink > line_width(line):
            _end_line(runs, word, line, x, line_width(line), metrics)
            break
        for (piece, marked), advance in zip(word, advances):
            runs.append(Run(line, x, advance, piece, marked))
            x += advance
    return tuple(runs)


def drawn_runs(runs: Sequence[Run]) -> tuple[Run, ...]:
    """``runs`` with each stretch of unmarked runs that follow each other on a line
    joined into one, to be drawn with one ``QPainter.drawText`` call.

    :func:`fit_runs` gives a run per word (it measures word by word); drawing a run
    costs a text shaping of its own (25-40 µs on this machine), so a two-line snippet
    drew about 15 and a screenful of them about 300. Joined, a line is one run between
    marks. Marked runs stay as they are (each is painted with its own background).

    Args:
        runs: runs of :func:`fit_runs`, in reading order.
    Returns:
        The joined runs: the same text in the same places (a joined run's ``x`` is its
        first piece's, its ``width`` the sum, its ``cut`` the last piece's).
    """
    out: list[Run] = []
    for run in runs:
        last = out[-1] if out else None
        if last is not None and not run.marked and not last.marked and not last.cut \
                and last.line == run.line:
            out[-1] = Run(last.line, last.x, last.width + run.width, last.text + run.text,
                          False, run.cut)
        else:
            out.append(run)
    return tuple(out)


class LayoutCache:
    """Layouts already computed (a cell's runs), so that repainting a row measures
    nothing again; emptied when it would hold more than ``limit`` entries.

    Args:
        limit: the most layouts kept.
    """

    def __init__(self, limit: int = 4000):
        self._limit = limit
        self._layouts: dict[tuple, tuple[Run, ...]] = {}

    def get(self, key: tuple, compute) -> tuple[Run, ...]:
        """The layout kept under ``key`` (a hashable tuple of everything it depends on:
        text, marks, font key, width, lines), else ``compute()``'s, kept."""
        runs = self._layouts.get(key)
        if runs is None:
            if len(self._layouts) >= self._limit:
                self._layouts.clear()
            runs = self._layouts[key] = compute()
        return runs


def _end_line(runs: list[Run], word: list[tuple[str, bool]], line: int, x: float,
              width: float, metrics: QFontMetricsF) -> None:
    """``word`` does not fit at ``x`` on the last usable line: place what fits of it
    (each mark whole, an unmarked piece elided; a mark wider than the whole line is
    elided too), else end the line with "…" after the last whole piece (see
    :func:`fit_runs`). The "…" is left out only where it would push out a mark."""
    ellipsis = metrics.horizontalAdvance("…")
    for piece, marked in word:
        advance = metrics.horizontalAdvance(piece)
        if x + advance + ellipsis <= width or (
                marked and x + metrics.horizontalAdvance(piece.rstrip()) <= width):
            runs.append(Run(line, x, advance, piece, marked))
            x += advance
            continue
        if not marked or x == 0:
            shown = metrics.elidedText(piece.rstrip(), Qt.TextElideMode.ElideRight, width - x)
            advance = metrics.horizontalAdvance(shown)
            if shown and x + advance <= width:
                runs.append(Run(line, x, advance, shown, marked, cut=True))
                return
        break
    while runs and runs[-1].line == line and not runs[-1].marked \
            and runs[-1].x + runs[-1].width + ellipsis > width:
        runs.pop()
    end = runs[-1].x + runs[-1].width if runs and runs[-1].line == line else 0.0
    if end + ellipsis <= width:
        runs.append(Run(line, end, ellipsis, "…", cut=True))


def _words(text: str, spans: Sequence[tuple[int, int]]) -> list[list[tuple[str, bool]]]:
    """``text`` as words for line breaking: each word a list of ``(piece, marked)``
    (a word may hold marked and unmarked pieces, as "(μP)" with "μP" marked), its
    trailing spaces in its last piece."""
    words: list[list[tuple[str, bool]]] = []
    for piece, marked in _segments(text, spans):
        for chunk in re.findall(r"\S+\s*|\s+", piece):
            if words and (chunk[0].isspace() or not words[-1][-1][0][-1].isspace()):
                words[-1].append((chunk, marked))
            else:
                words.append([(chunk, marked)])
    return words


def _segments(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, bool]]:
    """Split ``text`` into ``(piece, is_marked)`` parts following sorted ``spans``."""
    parts = []
    pos = 0
    for start, end in spans:
        if start < pos or end > len(text) or end <= start:
            continue
        if start > pos:
            parts.append((text[pos:start], False))
        parts.append((text[start:end], True))
        pos = end
    if pos < len(text):
        parts.append((text[pos:], False))
    return parts
