"""Light and dark appearance, following the system colour scheme.

``"system"`` (the default) keeps the platform's palette and style; when the system says it
prefers dark (``QStyleHints.colorScheme()``) but the platform palette is light (as with
plain X11, or offscreen rendering), paperdesk switches to Qt's Fusion style with
:func:`dark_palette`. ``"light"`` and ``"dark"`` force one or the other. When the system
scheme changes while paperdesk runs, the appearance follows it.

Every colour paperdesk draws itself is derived from the palette in use
(:func:`paperdesk.ui.style.colours.reading_colours`), so widgets only need to repaint (or
re-render their HTML) when the palette changes (``QEvent.PaletteChange``).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory

from paperdesk.ui.style.colours import is_dark

__all__ = ["dark_palette", "light_palette", "apply_appearance", "wants_dark",
           "AppearanceFollower", "follow_appearance", "current_mode"]

_original: dict[str, object] = {}   # the platform's own palette and style, saved once

#: The dark palette: role -> colour (active and inactive groups).
DARK_COLOURS = {
    QPalette.ColorRole.Window: "#2b2b2e",
    QPalette.ColorRole.WindowText: "#e8e8e8",
    QPalette.ColorRole.Base: "#1e1e20",
    QPalette.ColorRole.AlternateBase: "#252528",
    QPalette.ColorRole.ToolTipBase: "#3a3a3e",
    QPalette.ColorRole.ToolTipText: "#f0f0f0",
    QPalette.ColorRole.PlaceholderText: "#a0a0a0",
    QPalette.ColorRole.Text: "#e8e8e8",
    QPalette.ColorRole.Button: "#38383c",
    QPalette.ColorRole.ButtonText: "#e8e8e8",
    QPalette.ColorRole.BrightText: "#ff7b72",
    QPalette.ColorRole.Light: "#4a4a4f",
    QPalette.ColorRole.Midlight: "#404045",
    QPalette.ColorRole.Mid: "#303034",
    QPalette.ColorRole.Dark: "#1a1a1c",
    QPalette.ColorRole.Shadow: "#0c0c0d",
    QPalette.ColorRole.Highlight: "#2f65ca",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#8ab4f8",
    QPalette.ColorRole.LinkVisited: "#c58af9",
    QPalette.ColorRole.Accent: "#2f65ca",
}
#: Colours of disabled widgets in the dark palette.
DARK_DISABLED = {
    QPalette.ColorRole.WindowText: "#7c7c80",
    QPalette.ColorRole.Text: "#7c7c80",
    QPalette.ColorRole.ButtonText: "#7c7c80",
    QPalette.ColorRole.Highlight: "#3d3d42",
    QPalette.ColorRole.HighlightedText: "#a0a0a0",
    QPalette.ColorRole.PlaceholderText: "#6a6a6e",
}


def dark_palette() -> QPalette:
    """Return paperdesk's dark palette (for the Fusion style).

    Text on base and window colours has a WCAG contrast ratio above 10; the selection
    (white on blue) above 5; placeholder text above 4.5 (``tests/test_appearance.py``).
    """
    palette = QPalette()
    for role, colour in DARK_COLOURS.items():
        palette.setColor(QPalette.ColorGroup.All, role, QColor(colour))
    for role, colour in DARK_DISABLED.items():
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(colour))
    return palette


def light_palette() -> QPalette:
    """Return the Fusion style's light palette, with a placeholder colour and a
    selection dark enough for a contrast ratio of 4.5 (white on blue)."""
    style = QStyleFactory.create("Fusion")
    palette = style.standardPalette() if style is not None else QPalette()
    for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
        palette.setColor(group, QPalette.ColorRole.PlaceholderText, QColor("#6e6e6e"))
        palette.setColor(group, QPalette.ColorRole.Highlight, QColor("#2a6cb3"))
        palette.setColor(group, QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    return palette


def wants_dark(mode: str, app: QGuiApplication | None = None) -> bool:
    """Return True if ``mode`` asks for the dark appearance now.

    Args:
        mode: ``"system"``, ``"light"`` or ``"dark"``.
        app: the application (default: the running one).
    """
    if mode in ("light", "dark"):
        return mode == "dark"
    app = app or QGuiApplication.instance()
    return app is not None and app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def apply_appearance(mode: str, app: QApplication | None = None) -> bool:
    """Give the application the light or dark palette ``mode`` asks for.

    The platform's own palette and style are kept whenever they already have the wanted
    darkness (so native dark themes stay native); otherwise Fusion with
    :func:`dark_palette` or :func:`light_palette` is used.

    Args:
        mode: ``"system"``, ``"light"`` or ``"dark"``.
        app: the application (default: the running one).
    Returns:
        True if the appearance is now dark.
    """
    app = app or QApplication.instance()
    if app is None:
        return False
    if not _original:
        _original["palette"] = QPalette(app.palette())
        _original["style"] = app.style().name()
    dark = wants_dark(mode, app)
    native = _original["palette"]
    if is_dark(native) == dark:
        if is_dark(app.palette()) != dark or app.style().name() != _original["style"]:
            app.setStyle(str(_original["style"]))
            app.setPalette(native)
    else:
        if app.style().name().lower() != "fusion":
            app.setStyle("Fusion")
        app.setPalette(dark_palette() if dark else light_palette())
    return dark


class AppearanceFollower(QObject):
    """Re-applies the appearance when the system colour scheme changes.

    Args:
        mode: the initial mode (see :func:`apply_appearance`); change it with
            :meth:`set_mode`.
        app: the application (default: the running one).
    """

    def __init__(self, mode: str = "system", app: QApplication | None = None):
        self._app = app or QApplication.instance()
        super().__init__(self._app)
        self.mode = mode
        self._app.styleHints().colorSchemeChanged.connect(self._on_scheme_changed)
        apply_appearance(mode, self._app)

    def set_mode(self, mode: str) -> bool:
        """Switch to ``mode`` (``"system"``, ``"light"`` or ``"dark"``); returns True if
        the appearance is now dark."""
        self.mode = mode
        return apply_appearance(mode, self._app)

    def _on_scheme_changed(self, _scheme) -> None:
        if self.mode == "system":
            apply_appearance("system", self._app)


_follower: AppearanceFollower | None = None


def follow_appearance(mode: str) -> bool:
    """Use ``mode`` (``"system"``, ``"light"`` or ``"dark"``) from now on, following the
    system colour scheme while it is ``"system"``.

    Returns:
        True if the appearance is now dark.
    """
    global _follower
    if _follower is None:
        _follower = AppearanceFollower(mode)
        return is_dark(QApplication.instance().palette())
    return _follower.set_mode(mode)


def current_mode() -> str | None:
    """The mode last given to :func:`follow_appearance`, or ``None`` if it was never
    called (the platform's own palette is in use)."""
    return _follower.mode if _follower is not None else None
