"""Creating the QApplication and the main window (without running an event loop)."""

from __future__ import annotations

import os
import sys

from pathlib import Path

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import QApplication

from paperdesk.core.desktop import ICON_SIZES, icon_png_path
from paperdesk.core.library import Library
from paperdesk.core.models import DatabaseDamaged, LibraryError
from paperdesk.core.api import BACKUP_DIR, auto_backup
from paperdesk.core.paths import APP_NAME, bundled_seeds, resource_path

__all__ = ["ensure_app", "create_main_window", "app_icon", "quiet_qt_noise"]


#: Qt warnings that say nothing to a user (the offscreen platform has no window manager).
_NOISE = ("This plugin does not support propagateSizeHints()",)


def quiet_qt_noise() -> None:
    """Drop the Qt warnings in :data:`_NOISE`; every other Qt message still reaches
    stderr (through the handler that was installed before, if any)."""
    from PySide6.QtCore import qInstallMessageHandler

    previous = None

    def handler(mode, context, message):
        if message in _NOISE:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)


_app: QApplication | None = None  # keeps a QApplication created here alive
#: The interpreter's thread switch interval while the window runs, in seconds (Python's
#: default is 0.005; see ``sys.setswitchinterval``). Painting the list calls the model's
#: Python ``data()`` from Qt hundreds of times, and each call must take the GIL back from
#: a background thread (cutting snippets, counting): at 5 ms a wait, a 30 ms paint took
#: 100-160 ms at 100,000 papers; at 0.5 ms it takes 35-80 ms on a busy 2-core machine.
SWITCH_INTERVAL_S = 0.0005
#: Qt's raster engine hands every fill of 96 or more spans (a pane's background, a
#: column's grid line, a selected row) to a pool of threads of its own and waits for
#: them (``QT_THREAD_PARALLEL_FILLS`` in qdrawhelper.cpp). On 2 cores shared with the
#: search thread and the import's, index's and term table's processes, the UI thread
#: then waited for those threads to be scheduled: a repaint of the window at 300,000
#: papers took 22-26 ms with the pool and 14-19 ms without it (same machine, alternating).
#: Qt reads this variable once, when the pool would first be made
#: (``QThreadPoolPrivate::qtGuiInstance``); a user's own setting is kept.
NO_GUI_THREADPOOL = ("QT_NO_GUI_THREADPOOL", "1")


def ensure_app() -> QApplication:
    """Return the running QApplication, creating one (named "paperdesk") if none exists.

    Returns:
        The application instance.
    """
    global _app
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
    os.environ.setdefault(*NO_GUI_THREADPOOL)     # before anything is painted
    app = QApplication.instance()
    if app is None:
        app = QApplication([APP_NAME])
        app.setOrganizationName(APP_NAME)
        app.setApplicationName(APP_NAME)
        _app = app
    # Ties the windows to the installed launcher (Wayland app id, task bar grouping).
    QGuiApplication.setDesktopFileName(APP_NAME)
    if app.windowIcon().isNull():
        app.setWindowIcon(app_icon())
    return app


def app_icon() -> QIcon:
    """Return paperdesk's icon: the PNG sizes from ``resources/icons`` (these need no
    image plugin) plus the SVG for other sizes. Empty if the resources are missing."""
    icon = QIcon()
    for size in ICON_SIZES:
        png = resource_path(str(icon_png_path(Path("."), size)))
        if png is not None:
            icon.addFile(str(png), QSize(size, size))
    svg = resource_path("paperdesk.svg")
    if svg is not None:
        icon.addFile(str(svg))
    return icon


#: At most this many queued index updates are applied before the window opens (a few
#: milliseconds each); more are applied in the background with the status bar's
#: "Indexing N of M".
STARTUP_SYNC_MAX = 200


def create_main_window(library_path: str | os.PathLike, import_seeds: bool = True,
                       settings=None):
    """Open the library at ``library_path`` and build the main window (not shown).

    Creates a QApplication if none exists but does not start its event loop, so tests and
    the screenshot tool can drive the window. If the library is empty and
    ``import_seeds`` is true, the bundled sample files start importing on a worker
    thread; the list fills when the import finishes (while events are processed).

    The window owns the library: closing the window stops its threads and closes it.
    Once the window is built, the day's automatic backup is queued on its reader thread
    (:func:`paperdesk.core.store.backup.auto_backup`).

    Args:
        library_path: the library folder (created if missing).
        import_seeds: import :func:`paperdesk.core.paths.bundled_seeds` into an empty
            library.
        settings: a :class:`~paperdesk.ui.app.settings.Settings` (default: the user's).
    Returns:
        The :class:`~paperdesk.ui.window.main_window.MainWindow`.
    Raises:
        LibraryError: the library cannot be opened or created, or its database is
            damaged (found by the quick check at open: the message names the file, the
            problem and the latest backup to restore).
    """
    ensure_app()
    from paperdesk.ui.window.main_window import MainWindow  # after the QApplication exists

    # A few queued index updates (edits of the last session) are applied now, as
    # before; many (an import stopped while it was indexed) by the window's
    # IndexSyncRunner in the background, so that the window opens at once.
    library = Library.open(library_path, sync_index=False)
    if library.db_problem is not None:
        # The list reads rows as they are painted: a damaged database is not shown in a
        # window (the command line can still read what is left); the message names the
        # file, the problem and the latest backup.
        library.close()
        raise DatabaseDamaged(library.db_problem, library.path)
    try:
        queued = library.index.status().queued
        if queued and queued < STARTUP_SYNC_MAX:
            library.index.sync()
        window = MainWindow(library, owns_library=True, settings=settings)
    except BaseException:
        library.close()
        raise
    if queued >= STARTUP_SYNC_MAX:
        window.sync_runner.mark_stale()
    # The day's automatic backup (at most one a UTC day, the 7 newest kept; 1.6 s at
    # 100,000 papers), on the reader thread: a consistent copy beside the edits.
    backups = library.path / BACKUP_DIR
    window.worker.read(lambda lib: auto_backup(lib.db.conn, backups), label="daily backup",
                       slow=True,
                       on_failed=lambda _message: None)
    if import_seeds and library.papers.count() == 0:
        seeds = bundled_seeds()
        if seeds:
            window.start_import(seeds, seeds=True)
    return window
