"""Render the main window offscreen and save it as a PNG (for docs and visual review).

Command line::

    QT_QPA_PLATFORM=offscreen python -m paperdesk.ui.screenshot docs/screenshot.png \\
        [--query WORDS] [--library DIR] [--size 1280x800]

Without ``--library`` a temporary library is created and the bundled seeds imported.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from .startup import create_main_window, ensure_app

__all__ = ["save_screenshot", "main"]


def _wait(condition, timeout_s: float) -> bool:
    app = QApplication.instance()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def save_screenshot(library_path: str | os.PathLike, out_png: str | os.PathLike,
                    size: tuple[int, int] = (1280, 800), query: str | None = None,
                    row: int = 0, timeout_s: float = 30.0) -> Path:
    """Build the window, wait for the seed import, select a row, optionally search, and
    save ``window.grab()``.

    Args:
        library_path: library folder (seeds are imported if it is empty).
        out_png: where to write the PNG (parent folders are created).
        size: window size in pixels.
        query: text typed into the search box before the grab.
        row: the row to select (after the search, if any).
        timeout_s: how long to wait for the import and the search.
    Returns:
        The PNG path.
    Raises:
        TimeoutError: the import or the search did not finish in time.
        OSError: the PNG could not be written.
    """
    ensure_app()
    window = create_main_window(library_path)
    try:
        window.resize(*size)
        window.show()
        if not _wait(lambda: not window.is_busy(), timeout_s):
            raise TimeoutError("the import did not finish in time")
        if query:
            window.search_box.setFocus()
            window.search_box.setText(query)
            if not _wait(lambda: not window.is_busy() and window.model.searching, timeout_s):
                raise TimeoutError("the search did not finish in time")
        window.select_row(row)
        window.table.setFocus()
        window.statusBar().clearMessage()
        _wait(lambda: False, 0.2)  # let layouts and repaints settle
        out = Path(out_png)
        out.parent.mkdir(parents=True, exist_ok=True)
        if not window.grab().save(str(out), "PNG"):
            raise OSError(f"cannot write {out}")
        return out
    finally:
        window.close()
        window.shutdown()


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m paperdesk.ui.screenshot")
    parser.add_argument("out", type=Path)
    parser.add_argument("--query")
    parser.add_argument("--library", type=Path)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--row", type=int, default=0)
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    if args.library:
        out = save_screenshot(args.library, args.out, (width, height), args.query, args.row)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = save_screenshot(Path(tmp) / "lib", args.out, (width, height), args.query,
                                  args.row)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
