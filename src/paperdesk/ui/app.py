"""``run()``: start the desktop app on a library folder and run the Qt event loop."""

from __future__ import annotations

import os
import sys
import traceback

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QApplication, QMessageBox

from ..core.models import LibraryError
from ..core.paths import APP_NAME
from .dialogs import message_box
from .startup import create_main_window, ensure_app

__all__ = ["run", "install_excepthook"]


def install_excepthook() -> None:
    """Replace ``sys.excepthook``: log the traceback to stderr and, in the UI thread,
    show a short error dialog instead of dumping a traceback on the user.

    Exceptions raised in Qt slots and event handlers reach ``sys.excepthook`` too, so
    this covers them. Re-entrant errors (raised while the dialog is open) are only logged.
    """
    showing = False

    def hook(exc_type, exc, tb):
        nonlocal showing
        print("paperdesk: unexpected error", file=sys.stderr)
        traceback.print_exception(exc_type, exc, tb, file=sys.stderr)
        app = QApplication.instance()
        if app is None or showing or QThread.currentThread() is not app.thread():
            return
        if issubclass(exc_type, KeyboardInterrupt):
            app.quit()
            return
        showing = True
        try:
            message_box(
                QApplication.activeWindow(), QMessageBox.Icon.Critical, "paperdesk — error",
                f"Something went wrong: {exc or exc_type.__name__}\n\n"
                "Your library is safe. You can keep working; if the problem repeats, "
                "restart paperdesk. Details were written to the error output (stderr).")
        finally:
            showing = False

    sys.excepthook = hook


def run(library_path: str | os.PathLike) -> int:
    """Open the window on ``library_path`` and run until the user quits.

    Args:
        library_path: the library folder (created if missing; the bundled sample papers
            are imported into an empty library).
    Returns:
        The exit status: 0 after a normal quit, 1 if the library could not be opened
        (the reason is shown in a dialog).
    """
    app = ensure_app()
    app.setOrganizationName(APP_NAME)
    app.setApplicationName(APP_NAME)
    install_excepthook()
    try:
        window = create_main_window(library_path)
    except LibraryError as exc:
        print(f"paperdesk: {exc}", file=sys.stderr)
        message_box(None, QMessageBox.Icon.Critical, "paperdesk cannot open the library",
                    f"paperdesk could not open the library folder\n{library_path}\n\n{exc}\n\n"
                    "Choose another folder with --library DIR or set PAPERDESK_LIBRARY.")
        return 1
    app.aboutToQuit.connect(window.shutdown)
    window.show()
    try:
        return app.exec()
    finally:
        window.shutdown()
