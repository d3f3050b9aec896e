"""The overview's charts: horizontal bar charts painted with QPainter (PySide6-Essentials
has no Qt Charts), one under the other, each bar a way into the paper list.

:class:`OverviewChart` draws :class:`Chart` sections (a title, one row per
:class:`Bar`: its label, the bar and its count with thousands separators, and an axis
with ticks under the bars) in colours from the widget's palette, so it reads in the light
and the dark appearance alike (it repaints on ``PaletteChange``). Text from the library
(file and tag names, terms) is drawn with ``QPainter.drawText``, always plain text, bidi
controls made visible.

Keys: ↑ / ↓ move the focus highlight from bar to bar (on into the next or previous
chart), Page Down / Page Up and → / ← jump to the first bar of the next / previous
chart, Home / End to the first / last bar; Enter (Return, Space) activates the bar, as
a click on its row does (:attr:`OverviewChart.activated`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from paperdesk.core.text import bidi_visible
from paperdesk.ui.style.colours import is_dark, muted_colour
from paperdesk.ui.style.formatting import tooltip_html

__all__ = ["Bar", "Chart", "OverviewChart", "nice_ticks"]

_PAD = 12          # outer margin, px
_GAP = 8           # between label, bar and count, px
_LABEL_SHARE = 0.42   # most of the width the label column takes


@dataclass(frozen=True)
class Bar:
    """One bar.

    Attributes:
        label: the row's text (plain; elided to fit).
        count: papers, drawn as ``f"{count:,}"``.
        target: what activating it lists: ``("source", id)``, ``("tag", id)``,
            ``("filter", name)`` or ``("query", text)``; ``None``: not activatable.
        tip: the tooltip (plain text).
        colour: ``#rrggbb`` of the bar (a tag's), or ``None`` for the palette's accent.
        what: how the status line names the papers it lists ("tag “ml”").
    """

    label: str
    count: int
    target: tuple | None = None
    tip: str = ""
    colour: str | None = None
    what: str = ""


@dataclass(frozen=True)
class Chart:
    """One chart: ``title``, its ``bars`` (top to bottom) and a ``note`` shown under the
    title (e.g. why there are no bars)."""

    title: str
    bars: tuple[Bar, ...]
    note: str = ""


def nice_ticks(top: int, most: int = 5) -> list[int]:
    """Axis ticks from 0 to at least ``top`` at a 1-2-5 step (Heckbert's "nice numbers",
    Graphics Gems, 1990).

    Args:
        top: the largest count (0 or more).
        most: about how many steps.
    Returns:
        Increasing ints starting at 0, the last one ``>= top`` (``[0, 1]`` for 0).
    """
    if top <= 0:
        return [0, 1]
    raw = top / max(most, 1)
    power = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    step = max(int(step), 1)
    return list(range(0, (math.ceil(top / step) * step) + 1, step))


@dataclass
class _Row:
    chart: int
    bar: Bar
    row: QRect       # the whole row (label, bar and count): the click target
    rect: QRect      # the bar


class OverviewChart(QWidget):
    """The overview's painted charts (objectName ``overviewChart``).

    Signals:
        activated(object): a :class:`Bar` with a target was chosen (Enter or a click).
        currentMoved(QRect): the focus highlight moved onto a bar: the rect (widget
            coordinates) a scroll area should bring into view (the row, with the chart's
            title for a chart's first bar).

    Args:
        parent: Qt parent.
    """

    activated = Signal(object)
    currentMoved = Signal(QRect)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("overviewChart")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.setAccessibleName("Library overview charts")
        self._charts: tuple[Chart, ...] = ()
        self._rows: list[_Row] = []
        self._titles: list[tuple[QRect, Chart, QRect | None]] = []
        self._axes: list[tuple[QRect, list[int], int]] = []
        self._current = -1
        self._hover = -1
        self._height = 200
        self._laid_width = -1

    # -- content --------------------------------------------------------------------
    def set_charts(self, charts: tuple[Chart, ...] | list[Chart]) -> None:
        """Show these charts; the focus stays on the bar with the same target if any."""
        keep = self.current_bar()
        self._charts = tuple(charts)
        self._laid_width = -1
        self._layout()
        self._current = -1
        if keep is not None:
            self._current = next((i for i, r in enumerate(self._rows)
                                  if r.bar.target == keep.target
                                  and r.bar.label == keep.label), -1)
        if self._current < 0 and self._rows:
            self._current = 0
        self._describe()
        self.updateGeometry()
        self.update()

    def charts(self) -> tuple[Chart, ...]:
        """The charts on show."""
        return self._charts

    def bars(self) -> list[tuple[str, Bar]]:
        """Every bar as ``(chart title, bar)``, top to bottom."""
        return [(self._charts[r.chart].title, r.bar) for r in self._rows]

    def current_bar(self) -> Bar | None:
        """The bar with the focus highlight, or ``None``."""
        return self._rows[self._current].bar if 0 <= self._current < len(self._rows) \
            else None

    def current_chart(self) -> str:
        """The title of the chart the highlight is in ("" when none)."""
        if not 0 <= self._current < len(self._rows):
            return ""
        return self._charts[self._rows[self._current].chart].title

    def bar_rect(self, chart_title: str, label: str) -> QRect:
        """The row rect of a bar (widget coordinates; a click there activates it), or an
        empty rect."""
        for r in self._rows:
            if self._charts[r.chart].title == chart_title and r.bar.label == label:
                return QRect(r.row)
        return QRect()

    def set_current(self, index: int) -> None:
        """Put the focus highlight on bar ``index`` (of :meth:`bars`), clamped."""
        if not self._rows:
            return
        index = min(max(index, 0), len(self._rows) - 1)
        if index != self._current:
            self._current = index
            self.update()
        self._describe()
        self.currentMoved.emit(self._view_rect(index))

    def _view_rect(self, index: int) -> QRect:
        """The rect to keep in view for bar ``index``: its row, with its chart's title
        for a chart's first bar (Home, Page Up show the title too)."""
        row = self._rows[index]
        rect = QRect(row.row)
        if index == 0 or self._rows[index - 1].chart != row.chart:
            rect = rect.united(self._titles[row.chart][0])
            if index == 0:
                rect.setTop(0)
        return rect

    # -- geometry -------------------------------------------------------------------
    def sizeHint(self) -> QSize:  # noqa: N802 (Qt)
        return QSize(560, self._height)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt)
        return QSize(320, self._height)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt)
        return False

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        self._layout()

    def _row_height(self) -> int:
        return self.fontMetrics().height() + 8

    def _layout(self) -> None:
        width = max(self.width(), 320)
        fm = self.fontMetrics()
        bold = QFont(self.font())
        bold.setBold(True)
        bold.setPointSizeF(self.font().pointSizeF() * 1.1 if self.font().pointSizeF() > 0
                           else 11)
        title_fm = QFontMetrics(bold)
        row_h = self._row_height()
        self._rows, self._titles, self._axes = [], [], []
        y = _PAD
        counts = [b.count for c in self._charts for b in c.bars]
        count_w = fm.horizontalAdvance(f"{max(counts, default=0):,}") + _GAP
        labels = [bidi_visible(b.label) for c in self._charts for b in c.bars]
        label_w = min(max((fm.horizontalAdvance(t) for t in labels), default=60) + _GAP + 4,
                      int(width * _LABEL_SHARE))
        bar_x = _PAD + label_w
        bar_w = max(width - bar_x - count_w - _PAD, 40)
        for n, chart in enumerate(self._charts):
            title = QRect(_PAD, y, width - 2 * _PAD, title_fm.height() + 4)
            y = title.bottom() + 4
            note = None
            if chart.note:
                note = QRect(_PAD, y, width - 2 * _PAD, fm.height() + 4)
                y = note.bottom() + 4
            self._titles.append((title, chart, note))
            if not chart.bars:
                y += _PAD
                continue
            ticks = nice_ticks(max(b.count for b in chart.bars))
            scale = bar_w / ticks[-1]
            for bar in chart.bars:
                row = QRect(_PAD - 4, y, width - 2 * _PAD + 8, row_h)
                length = max(int(round(bar.count * scale)), 1 if bar.count else 0)
                rect = QRect(bar_x, y + 4, length, row_h - 8)
                self._rows.append(_Row(n, bar, row, rect))
                y += row_h
            axis = QRect(bar_x, y, bar_w, fm.height() + 8)
            self._axes.append((axis, ticks, self._rows[-len(chart.bars)].row.top()))
            y = axis.bottom() + _PAD + 6
        self._height = y + _PAD
        if self.minimumHeight() != self._height:
            self.setMinimumHeight(self._height)
        self._label_w = label_w
        self._count_x = bar_x + bar_w + _GAP

    # -- painting -------------------------------------------------------------------
    def _colours(self) -> dict[str, QColor]:
        pal = self.palette()
        text = pal.color(QPalette.ColorRole.WindowText)
        accent = pal.color(QPalette.ColorRole.Highlight)
        muted = QColor(muted_colour(pal))
        grid = QColor(muted)
        grid.setAlphaF(0.35)
        hover = QColor(accent)
        hover.setAlphaF(0.10)
        focus = QColor(accent)
        focus.setAlphaF(0.22 if is_dark(pal) else 0.16)
        return {"text": text, "accent": accent, "muted": muted, "grid": grid,
                "hover": hover, "focus": focus,
                "background": pal.color(QPalette.ColorRole.Base)}

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt)
        key = (self.width(), self.font().key())   # the style's font comes with polish
        if self._laid_width != key:
            self._layout()
            self._laid_width = key
        c = self._colours()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), c["background"])
        fm = self.fontMetrics()
        bold = QFont(self.font())
        bold.setBold(True)
        if self.font().pointSizeF() > 0:
            bold.setPointSizeF(self.font().pointSizeF() * 1.1)
        for title, chart, note in self._titles:
            p.setFont(bold)
            p.setPen(c["text"])
            p.drawText(title, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       chart.title)
            p.setFont(self.font())
            if note is not None:
                p.setPen(c["muted"])
                p.drawText(note, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                           fm.elidedText(bidi_visible(chart.note),
                                         Qt.TextElideMode.ElideRight, note.width()))
        for axis, ticks, top in self._axes:
            scale = axis.width() / ticks[-1]
            p.setPen(QPen(c["grid"], 1))
            for t in ticks:
                x = axis.left() + round(t * scale)
                p.drawLine(x, top, x, axis.top() + 3)
            p.setPen(QPen(c["muted"], 1))
            p.drawLine(axis.left(), axis.top(), axis.right(), axis.top())
            p.drawLine(axis.left(), top, axis.left(), axis.top())
            for t in ticks:
                x = axis.left() + round(t * scale)
                p.drawLine(x, axis.top(), x, axis.top() + 3)
                text = f"{t:,}"
                w = fm.horizontalAdvance(text)
                left = min(max(x - w // 2, axis.left() - w // 2), axis.right() - w + 12)
                p.drawText(QRect(left, axis.top() + 4, w + 2, fm.height()),
                           Qt.AlignmentFlag.AlignLeft, text)
        has_focus = self.hasFocus()
        for i, r in enumerate(self._rows):
            if i == self._current:
                p.setPen(QPen(c["accent"], 2 if has_focus else 1))
                p.setBrush(c["focus"] if has_focus else Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(QRectF(r.row).adjusted(1, 1, -1, -1), 4, 4)
            elif i == self._hover and r.bar.target is not None:
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(c["hover"])
                p.drawRoundedRect(QRectF(r.row), 4, 4)
            label = QRect(_PAD, r.row.top(), self._label_w - _GAP, r.row.height())
            p.setPen(c["text"])
            p.drawText(label, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       fm.elidedText(bidi_visible(r.bar.label), Qt.TextElideMode.ElideMiddle,
                                     label.width()))
            if r.rect.width() > 0:
                fill = QColor(r.bar.colour) if r.bar.colour else QColor(c["accent"])
                p.setPen(QPen(fill.darker(150) if not is_dark(self.palette())
                              else fill.lighter(130), 1))
                p.setBrush(fill)
                p.drawRoundedRect(QRectF(r.rect).adjusted(0.5, 0.5, -0.5, -0.5), 2, 2)
            p.setPen(c["text"])
            p.drawText(QRect(r.rect.right() + _GAP, r.row.top(), 200, r.row.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                       f"{r.bar.count:,}")
        p.end()

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.FontChange):
            self._laid_width = -1
            self.update()

    def focusInEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().focusInEvent(event)
        if 0 <= self._current < len(self._rows):
            self.currentMoved.emit(self._view_rect(self._current))
        self.update()

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().focusOutEvent(event)
        self.update()

    # -- keys and mouse -------------------------------------------------------------
    def _chart_starts(self) -> list[int]:
        starts, seen = [], set()
        for i, r in enumerate(self._rows):
            if r.chart not in seen:
                seen.add(r.chart)
                starts.append(i)
        return starts

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        key = event.key()
        if not self._rows or event.modifiers() & (Qt.KeyboardModifier.ControlModifier
                                                  | Qt.KeyboardModifier.AltModifier):
            super().keyPressEvent(event)
            return
        starts = self._chart_starts()
        here = max(self._current, 0)
        if key == Qt.Key.Key_Down:
            self.set_current(here + 1)
        elif key == Qt.Key.Key_Up:
            self.set_current(here - 1)
        elif key in (Qt.Key.Key_PageDown, Qt.Key.Key_Right):
            self.set_current(next((s for s in starts if s > here), here))
        elif key in (Qt.Key.Key_PageUp, Qt.Key.Key_Left):
            mine = max(s for s in starts if s <= here)
            self.set_current(mine if here > mine else
                             max((s for s in starts if s < mine), default=mine))
        elif key == Qt.Key.Key_Home:
            self.set_current(0)
        elif key == Qt.Key.Key_End:
            self.set_current(len(self._rows) - 1)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            bar = self.current_bar()
            if bar is not None and bar.target is not None:
                self.activated.emit(bar)
        else:
            super().keyPressEvent(event)
            return
        event.accept()

    def _row_at(self, pos: QPoint) -> int:
        return next((i for i, r in enumerate(self._rows) if r.row.contains(pos)), -1)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt)
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        i = self._row_at(event.position().toPoint())
        if i >= 0:
            self.set_current(i)
            if self._rows[i].bar.target is not None:
                self.activated.emit(self._rows[i].bar)
        event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt)
        i = self._row_at(event.position().toPoint())
        if i != self._hover:
            self._hover = i
            self.setCursor(Qt.CursorShape.PointingHandCursor
                           if i >= 0 and self._rows[i].bar.target is not None
                           else Qt.CursorShape.ArrowCursor)
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802 (Qt)
        self._hover = -1
        self.update()
        super().leaveEvent(event)

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            i = self._row_at(event.pos())
            if i >= 0 and self._rows[i].bar.tip:
                QToolTip.showText(event.globalPos(), tooltip_html(self._rows[i].bar.tip),
                                  self, self._rows[i].row)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    def tooltip_at(self, pos: QPoint) -> str:
        """The tooltip (rich text, escaped) of the bar row at ``pos``, or ``""``."""
        i = self._row_at(pos)
        return tooltip_html(self._rows[i].bar.tip) if i >= 0 else ""

    def _describe(self) -> None:
        """Tell assistive technology which bar has the highlight."""
        bar = self.current_bar()
        if bar is None:
            self.setAccessibleDescription("No bars")
            return
        chart = self.current_chart()
        self.setAccessibleDescription(
            f"{chart}: {bidi_visible(bar.label)}, {bar.count:,} papers. Up and Down move, "
            "Page Down and Page Up change chart, Enter lists the papers")
