"""Render resources/paperdesk.svg into the PNG sizes a desktop wants.

Run after changing the SVG (``make icons``); the PNGs are committed, so building or
installing paperdesk never needs this script::

    QT_QPA_PLATFORM=offscreen python tools/render_icons.py

Writes ``resources/icons/hicolor/<N>x<N>/apps/paperdesk.png`` for every N in
:data:`paperdesk.core.desktop.ICON_SIZES` (the freedesktop icon-theme layout, which
``paperdesk install-desktop`` copies as it is).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

from paperdesk.core.desktop import ICON_SIZES, icon_png_path  # noqa: E402


def render(svg: Path, size: int) -> QImage:
    """Return the SVG drawn into a ``size`` x ``size`` transparent image."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {svg}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def main() -> int:
    """Write every PNG size; print what was written."""
    app = QGuiApplication([])  # noqa: F841 - QSvgRenderer and QPainter need it
    resources = ROOT / "resources"
    svg = resources / "paperdesk.svg"
    for size in ICON_SIZES:
        out = icon_png_path(resources, size)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not render(svg, size).save(str(out), "PNG"):
            raise SystemExit(f"cannot write {out}")
        print(out.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
