"""Light and dark appearance: every colour paperdesk adds is readable on the palette it is
drawn on (WCAG contrast ratio 4.5 or more), search hits never look like highlights, and
a window follows a switch between light and dark."""

from __future__ import annotations

import os
import random

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from paperdesk.core.edits.annotations import HIGHLIGHT_COLOURS, TAG_COLOURS  # noqa: E402
from paperdesk.ui.style.appearance import (dark_palette, follow_appearance,  # noqa: E402
                                     light_palette)
from paperdesk.ui.style.colours import (MIN_CONTRAST, SEARCH_HIT_DARK,  # noqa: E402
                                  SEARCH_HIT_LIGHT, contrast_ratio, is_dark, muted_colour,
                                  readable_on, reading_colours, text_colour_for)
from paperdesk.ui.panes.paper_html import hit_style  # noqa: E402
from ui_fixtures import open_seeded, wait_idle, win  # noqa: F401,E402

R = QPalette.ColorRole


def _c(palette: QPalette, role) -> str:
    return palette.color(role).name()


@pytest.fixture
def restore_appearance(qapp):
    yield
    follow_appearance("system")      # offscreen the system scheme is light
    assert not is_dark(QApplication.instance().palette())


@pytest.mark.parametrize("palette", [dark_palette(), light_palette()], ids=["dark", "light"])
def test_palette_text_is_readable(palette):
    for fg, bg, least in ((R.Text, R.Base, 7), (R.WindowText, R.Window, 7),
                          (R.ButtonText, R.Button, 7), (R.ToolTipText, R.ToolTipBase, 7),
                          (R.HighlightedText, R.Highlight, MIN_CONTRAST),
                          (R.Text, R.AlternateBase, 7), (R.Link, R.Base, MIN_CONTRAST)):
        ratio = contrast_ratio(_c(palette, fg), _c(palette, bg))
        assert ratio >= least, (fg, bg, ratio)
    assert contrast_ratio(muted_colour(palette), _c(palette, R.Base)) >= MIN_CONTRAST
    assert contrast_ratio(muted_colour(palette), _c(palette, R.Window)) >= MIN_CONTRAST


def test_dark_palette_is_dark_and_light_is_light():
    assert is_dark(dark_palette()) and not is_dark(light_palette())


@pytest.mark.parametrize("palette", [dark_palette(), light_palette()], ids=["dark", "light"])
def test_reading_colours_are_readable_on_their_palette(palette):
    c = reading_colours(palette)
    base, window = _c(palette, R.Base), _c(palette, R.Window)
    assert (c.hit_background, c.hit_text) == (SEARCH_HIT_DARK if is_dark(palette)
                                              else SEARCH_HIT_LIGHT)
    assert contrast_ratio(c.hit_text, c.hit_background) >= MIN_CONTRAST
    assert contrast_ratio(c.muted, base) >= MIN_CONTRAST
    assert contrast_ratio(c.star, base) >= MIN_CONTRAST
    assert contrast_ratio(c.error, window) >= MIN_CONTRAST
    assert contrast_ratio(c.link, base) >= MIN_CONTRAST
    for colour in HIGHLIGHT_COLOURS:     # text on a user's highlight
        assert contrast_ratio(c.highlight_text, colour) >= MIN_CONTRAST
    # the unread titles are bold in the palette's own text colour
    assert contrast_ratio(_c(palette, R.Text), base) >= 7


def test_search_hits_never_look_like_highlights():
    for hit_bg, _fg in (SEARCH_HIT_LIGHT, SEARCH_HIT_DARK):
        hit = QColor(hit_bg)
        for colour in HIGHLIGHT_COLOURS:
            mark = QColor(colour)
            hue_gap = abs(hit.hslHue() - mark.hslHue())
            hue_gap = min(hue_gap, 360 - hue_gap)
            assert hue_gap >= 15 or abs(hit.lightnessF() - mark.lightnessF()) > 0.3, colour
    assert "text-decoration:underline" in hit_style()       # and they are underlined


def test_chip_text_is_readable_on_every_tag_colour():
    rng = random.Random(6)
    colours = list(TAG_COLOURS) + [f"#{rng.randrange(1 << 24):06x}" for _ in range(2000)]
    colours += ["#777777", "#767676", "#808080", "#ff0000", "#00ff00", "#0000ff"]
    for colour in colours:
        assert contrast_ratio(text_colour_for(colour), colour) >= MIN_CONTRAST, colour


def test_readable_on_moves_a_colour_only_as_far_as_needed():
    assert readable_on("#000000", "#ffffff") == "#000000"
    moved = readable_on("#e0a100", "#ffffff")
    assert contrast_ratio(moved, "#ffffff") >= MIN_CONTRAST
    assert QColor(moved).hslHue() in range(30, 50)       # still a gold


def test_window_follows_light_and_dark(qtbot, win, restore_appearance):
    window = win
    window.search_box.setText("spectral scaling")
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy(), timeout=20000)
    window.select_row(0)
    light_html = window.detail_pane.abstract_view.toHtml()
    assert SEARCH_HIT_LIGHT[0] in light_html
    assert window.set_appearance("dark") is True
    assert window.settings.appearance == "dark"
    assert window.actions_by_name["appearanceDarkAction"].isChecked()
    qtbot.waitUntil(lambda: SEARCH_HIT_DARK[0] in window.detail_pane.abstract_view.toHtml(), timeout=5000)
    assert is_dark(window.palette()) and is_dark(window.detail_pane.abstract_view.palette())
    colours = window.detail_pane.colours
    assert colours == reading_colours(window.palette())
    assert colours.muted in window.detail_pane.meta_label.styleSheet()
    # what the window draws is dark: the middle of the reading pane and of the list
    # (the median of a grid of points: a single one may fall on a word or a search mark)
    pane = window.detail_pane.abstract_view
    rect = pane.rect()
    points = [pane.mapTo(window, rect.topLeft() + type(rect.topLeft())(
        rect.width() * i // 8, rect.height() * j // 8)) for i in range(1, 8)
        for j in range(1, 8)]

    def median_lightness() -> float:
        picture = window.grab().toImage()
        values = sorted(picture.pixelColor(p).lightnessF() for p in points)
        return values[len(values) // 2]

    assert median_lightness() < 0.3
    window.set_appearance("light")
    qtbot.waitUntil(lambda: SEARCH_HIT_LIGHT[0] in window.detail_pane.abstract_view.toHtml(), timeout=5000)
    assert not is_dark(window.palette())
    assert median_lightness() > 0.8


def test_system_appearance_follows_the_colour_scheme(qapp, restore_appearance, monkeypatch):
    from PySide6.QtCore import Qt

    hints = qapp.styleHints()
    monkeypatch.setattr(type(hints), "colorScheme", lambda self: Qt.ColorScheme.Dark)
    assert follow_appearance("system") is True
    monkeypatch.setattr(type(hints), "colorScheme", lambda self: Qt.ColorScheme.Light)
    assert follow_appearance("system") is False
