"""``run()``: start the desktop app on a library folder and run the Qt event loop.

One library, one writer: the window holds the library's lock
(:class:`~paperdesk.core.store.lock.LibraryLock`) for as long as it has the library open and
listens on a local socket (:mod:`paperdesk.ui.app.instance`). A second launch on the same
library asks that window to come forward and exits; where that is not possible (the lock
is held by a command, by another machine, or nobody answers) it says the library is open
elsewhere and exits with status 1, without touching the library. A lock left by a crashed
run is taken over.
"""

from __future__ import annotations

import os
import signal
import shlex
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QObject, QThread, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from paperdesk.core.library import DB_NAME
from paperdesk.core.api import LOCK_NAME, LibraryLock, LockHeld
from paperdesk.core.check import refuse_lost_database
from paperdesk.core.error_log import log_unexpected
from paperdesk.core.models import DatabaseDamaged, LibraryError, LibraryReadOnly
from paperdesk.core.paths import APP_NAME, LIBRARY_ENV, default_library_path
from paperdesk.ui.style.appearance import follow_appearance
from paperdesk.ui.window.dialogs import message_box
from paperdesk.ui.app.instance import (HANDED_OVER, UNSUPPORTED, InstanceServer,
                                       ask_to_activate, ask_to_import, server_name)
from paperdesk.ui.app.salvage_dialog import offer_salvage
from paperdesk.ui.app.settings import Settings
from paperdesk.ui.app.startup import create_main_window, ensure_app, quiet_qt_noise

__all__ = ["run", "hand_over", "install_excepthook", "AppController", "resolve_library",
           "bring_forward", "is_offscreen"]


def is_offscreen() -> bool:
    """True when Qt renders without a screen (``QT_QPA_PLATFORM=offscreen``): no dialog
    may wait for a click then."""
    app = QApplication.instance()
    name = app.platformName() if app is not None else os.environ.get("QT_QPA_PLATFORM", "")
    return name in ("offscreen", "minimal")


def install_excepthook() -> None:
    """Replace ``sys.excepthook``: write the traceback to the error log (one line on
    stderr; :func:`paperdesk.core.error_log.log_unexpected`) and, in the UI thread,
    show a short error dialog instead of dumping a traceback on the user.

    Exceptions raised in Qt slots and event handlers reach ``sys.excepthook`` too, so
    this covers them. Re-entrant errors (raised while the dialog is open) are only logged,
    and so is every error when rendering offscreen (nobody could close the dialog).
    """
    showing = False

    def hook(exc_type, exc, tb):
        nonlocal showing
        log = log_unexpected("unexpected error", exc if exc is not None else exc_type())
        app = QApplication.instance()
        if app is None or showing or QThread.currentThread() is not app.thread():
            return
        if issubclass(exc_type, KeyboardInterrupt):
            app.quit()
            return
        if is_offscreen():
            return
        showing = True
        try:
            message_box(
                QApplication.activeWindow(), QMessageBox.Icon.Critical, "paperdesk — error",
                f"Something went wrong: {exc or exc_type.__name__}\n\n"
                "Your library is safe. You can keep working; if the problem repeats, "
                "restart paperdesk. "
                + (f"Details are in {log}." if log else "Details were not saved."))
        finally:
            showing = False

    sys.excepthook = hook


def resolve_library(explicit: str | os.PathLike | None, settings: Settings) -> Path:
    """Return the library folder the window opens.

    In order: ``explicit`` (``--library``), ``$PAPERDESK_LIBRARY``, the library the
    window had open last time (if it still exists), the default per-user folder.

    Args:
        explicit: the folder given on the command line, or ``None``.
        settings: where the last library is remembered.
    """
    if explicit is not None:
        return Path(explicit).expanduser()
    if os.environ.get(LIBRARY_ENV, "").strip():
        return default_library_path()
    return settings.last_library or default_library_path()


def bring_forward(window) -> None:
    """Show ``window`` un-minimised, raised and active (as far as the window manager
    allows; it flashes in the task bar otherwise)."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
    QApplication.alert(window)


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


class AppController(QObject):
    """Owns the window, its library's lock and the local server for one running app,
    and opens other libraries in place of the current one (File ▸ Open Library…).

    Args:
        settings: the preferences (the last library is remembered there).
        remember: store the opened library as the last one in ``settings``.
    """

    def __init__(self, settings: Settings, remember: bool = True):
        super().__init__()
        self.settings = settings
        self.remember = remember
        self.window = None
        self.lock: LibraryLock | None = None
        self.server = InstanceServer(self)
        self.server.activateRequested.connect(self._on_activate)
        self.server.importRequested.connect(self.import_files)

    @property
    def library_path(self) -> Path | None:
        """The open library's folder, or ``None``."""
        return self.lock.folder if self.lock is not None else None

    def start(self, folder: str | os.PathLike, import_seeds: bool = True):
        """Lock ``folder``, open it in a new window (not shown) and listen for later
        launches.

        Args:
            folder: the library folder (created if missing).
            import_seeds: import the bundled sample files into an empty library.
        Returns:
            The :class:`~paperdesk.ui.window.main_window.MainWindow`.
        Raises:
            LockHeld: another process has the library open.
            LibraryError: the library cannot be opened.
        """
        lock = LibraryLock(folder, app="gui").acquire()
        try:
            window = create_main_window(lock.folder, import_seeds=import_seeds,
                                        settings=self.settings)
        except BaseException:
            lock.release()
            raise
        self._adopt(window, lock)
        return window

    def _adopt(self, window, lock: LibraryLock) -> None:
        self.window, self.lock = window, lock
        window.library_opener = self.open_library
        self.server.listen(server_name(lock.folder))
        if self.remember:
            self.settings.last_library = lock.folder

    def open_library(self, folder: str | os.PathLike, new: bool = False) -> bool:
        """Open another library in place of the current one.

        The new library is locked and opened first; only then is the old window closed
        (saving its state) and its lock released, so a failure leaves everything as it
        was. Problems are shown in a message box.

        Args:
            folder: the library folder.
            new: start an empty library (the folder must be empty or missing).
        Returns:
            True if the library is now open (also when it was open already).
        """
        folder = Path(folder).expanduser().absolute()
        old = self.window
        if self.lock is not None and _same_folder(folder, self.lock.folder):
            if old is not None:
                old.statusBar().showMessage(f"{folder} is the library already open", 4000)
            return True
        problem = _library_problem(folder, new)
        if problem:
            self._tell(QMessageBox.Icon.Warning, "Cannot open the library", problem)
            return False
        lock = LibraryLock(folder, app="gui")
        try:
            lock.acquire()
        except LockHeld as held:
            if held.by_window and ask_to_activate(server_name(folder)):
                self._tell(QMessageBox.Icon.Information, "Library already open",
                           f"{folder} is open in another paperdesk window; "
                           "that window was brought forward.")
            else:
                self._tell(QMessageBox.Icon.Warning, "Library in use",
                           f"paperdesk cannot open it: {held}.")
            return False
        except LibraryError as exc:
            text = read_only_message(exc) if isinstance(exc, LibraryReadOnly) else str(exc)
            self._tell(QMessageBox.Icon.Warning, "Cannot open the library", text)
            return False
        if old is not None:
            old.save_state()
        try:
            window = create_main_window(folder, import_seeds=False, settings=self.settings)
        except DatabaseDamaged as exc:
            lock.release()
            print(f"paperdesk: {exc}", file=sys.stderr)
            if not is_offscreen() and offer_salvage(folder, str(exc), self.window):
                return self.open_library(folder)
            return False
        except LibraryError as exc:
            lock.release()
            self._tell(QMessageBox.Icon.Critical, "Cannot open the library", str(exc))
            return False
        old_lock = self.lock
        self._adopt(window, lock)
        window.show()
        if old is not None:
            old.library_opener = None
            old.close()
            old.deleteLater()
        if old_lock is not None:
            old_lock.release()
        window.statusBar().showMessage(f"Opened the library {folder}", 6000)
        return True

    def _tell(self, icon: QMessageBox.Icon, title: str, text: str) -> None:
        print(f"paperdesk: {text}", file=sys.stderr)
        if not is_offscreen():
            message_box(self.window, icon, title, text)

    def _on_activate(self) -> None:
        if self.window is not None:
            bring_forward(self.window)

    def import_files(self, paths) -> bool:
        """Import files or folders into the open library, as File ▸ Import does (after
        the import running now, if any): ``paperdesk FILE...`` at start and the files
        another launch hands over (:class:`InstanceServer` ``importRequested``).

        Args:
            paths: files and/or folders (absolute ``str`` paths, or path-likes).
        Returns:
            False if no window is open.
        """
        if self.window is None:
            return False
        self.window.imports.queue_import(list(paths))
        return True

    def shutdown(self) -> None:
        """Close the window's library, stop listening and release the lock. Safe to call
        twice."""
        if self.window is not None:
            self.window.shutdown()
        self.server.close()
        if self.lock is not None:
            self.lock.release()


def _library_problem(folder: Path, new: bool) -> str:
    """Why ``folder`` cannot be opened (as a new library when ``new``), or ``""``."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is not a folder."
    entries = [p for p in folder.iterdir() if not p.name.startswith(LOCK_NAME)] \
        if folder.is_dir() else []
    if new:
        return f"{folder} is not empty; choose an empty folder." if entries else ""
    try:
        refuse_lost_database(folder)        # a library whose database is gone
    except LibraryError as exc:
        return str(exc)
    if entries and not (folder / DB_NAME).is_file():
        return (f"{folder} is not a paperdesk library (it has no {DB_NAME}). "
                "Choose a library folder, or File ▸ New Library… to start one.")
    return ""


def hand_over(folder: Path, files) -> int:
    """Give ``files`` to the window that has ``folder`` open (``paperdesk FILE...`` while
    it runs) and return the exit status: 0 when it took them, 1 otherwise (a window from
    an older build, which is brought forward instead, or nobody answering), with the
    reason printed."""
    outcome = ask_to_import(server_name(folder), files)
    n = len(files)
    if outcome == HANDED_OVER:
        print(f"paperdesk: {folder} is already open; its window imports the "
              f"{'file' if n == 1 else f'{n} files'}", file=sys.stderr)
        return 0
    if outcome == UNSUPPORTED and ask_to_activate(server_name(folder)):
        print(f"paperdesk: the window that has {folder} open cannot take files (it is "
              "from an older paperdesk); it was brought forward: import them there with "
              "File ▸ Import Files…, or close it and run this again", file=sys.stderr)
    else:
        print(f"paperdesk: {folder} is open in a paperdesk window that does not answer; "
              "nothing was imported", file=sys.stderr)
    return 1


def run(library_path: str | os.PathLike | None = None, screenshot: str | os.PathLike | None = None,
        size: tuple[int, int] = (1280, 800), appearance: str | None = None,
        files=()) -> int:
    """Open the window on a library and run until the user quits.

    Args:
        library_path: the library folder (``None``: see :func:`resolve_library`); created
            if missing, and the bundled sample papers are imported into an empty one.
        screenshot: instead of running, render the window offscreen into this PNG file
            once the library is loaded (importing the samples into an empty library
            first), then exit. The user's remembered window state is neither used nor
            changed.
        size: the window size ``(width, height)`` in pixels for ``screenshot``.
        appearance: ``"system"``, ``"light"`` or ``"dark"`` (default: as remembered).
        files: files or folders to import once the window is open (absolute paths;
            the sample papers are then not imported into an empty library). When a
            window has the library open already, they are handed to it
            (:func:`hand_over`) and this returns.
    Returns:
        The exit status: 0 after a normal quit, a written screenshot, or when the library
        was already open and its window was brought forward (and took the files); 1 if
        the library could not be opened (the reason is printed, and shown in a dialog
        unless offscreen) or a running window could not take the files.
    """
    files = list(files)
    if screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    elif no_display():
        print("paperdesk: no display to open the window on (neither DISPLAY nor "
              "WAYLAND_DISPLAY is set); use the command line, or --screenshot FILE",
              file=sys.stderr)
        return 1
    app = ensure_app()
    app.setOrganizationName(APP_NAME)
    app.setApplicationName(APP_NAME)
    install_excepthook()
    quiet_qt_noise()
    scratch = tempfile.TemporaryDirectory(prefix="paperdesk-") if screenshot else None
    user_settings = Settings()
    if scratch is not None:
        from paperdesk.ui.app.screenshot import scratch_settings

        settings = scratch_settings(scratch.name)
    else:
        settings = user_settings
    follow_appearance(appearance or user_settings.appearance)
    folder = resolve_library(library_path, user_settings)
    controller = AppController(settings, remember=screenshot is None)
    try:
        window = controller.start(folder, import_seeds=not files)
    except LockHeld as held:
        if held.by_window and screenshot is None and files:
            return hand_over(folder, files)
        if held.by_window and screenshot is None and ask_to_activate(server_name(folder)):
            print(f"paperdesk: {folder} is already open; its window was brought forward",
                  file=sys.stderr)
            return 0
        _fail(f"{held}", "paperdesk — library in use", folder)
        return 1
    except DatabaseDamaged as exc:
        if screenshot is not None or is_offscreen():
            _fail(str(exc), "paperdesk cannot open the library", folder)
            return 1
        if not offer_salvage(folder, str(exc)):      # its dialog showed the problem
            print(f"paperdesk: {exc}", file=sys.stderr)
            return 1
        try:                                          # salvaged: Open Library
            window = controller.start(folder, import_seeds=False)
        except LibraryError as again:
            _fail(str(again), "paperdesk cannot open the library", folder)
            return 1
    except LibraryReadOnly as exc:
        _fail(read_only_message(exc), "paperdesk cannot open the library", folder,
              "Copy the folder to one you can write and open that copy, or choose "
              "another folder with --library DIR.")
        return 1
    except LibraryError as exc:
        _fail(str(exc), "paperdesk cannot open the library", folder,
              "Choose another folder with --library DIR or set PAPERDESK_LIBRARY.")
        return 1
    if screenshot is not None:
        try:
            return _screenshot(controller, window, Path(screenshot), size)
        finally:
            controller.shutdown()
            scratch.cleanup()
    app.aboutToQuit.connect(controller.shutdown)
    _quit_on_signals(app)
    window.show()
    if files:
        controller.import_files(files)
    try:
        return app.exec()
    finally:
        controller.shutdown()


def no_display() -> bool:
    """Return True on Linux/BSD when no window can be shown: no ``DISPLAY``, no
    ``WAYLAND_DISPLAY`` and no ``QT_QPA_PLATFORM`` chosen (Qt would abort with a long
    message about xcb plugins)."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return False
    env = os.environ
    return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY") or env.get("QT_QPA_PLATFORM"))


def _quit_on_signals(app: QApplication) -> None:
    """Let Ctrl+C in the terminal and SIGTERM close the window the normal way (saving
    the note, the window state and releasing the library lock). Qt's event loop does not
    run Python code on its own, so a timer wakes the interpreter to notice signals."""
    def quit_(signum, frame):
        app.quit()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, quit_)
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(250)


def read_only_message(exc: LibraryReadOnly) -> str:
    """The one line for a read-only library folder the window was asked to open: the
    window needs to write (read marks, the index), so it says what does work there.

    Args:
        exc: the error opening the library raised.
    Returns:
        ``"the library folder F is read-only (Permission denied): the window needs to
        write to it; the paperdesk command searches, shows and exports it there
        (paperdesk --library F search QUERY)"``.
    """
    reason = str(exc).split(": it can be searched", 1)[0]
    return (f"{reason}: the window needs to write to it; the paperdesk command searches, "
            f"shows and exports it there (paperdesk --library "
            f"{shlex.quote(str(exc.folder))} search QUERY)")


def _fail(message: str, title: str, folder: Path, hint: str = "") -> None:
    print(f"paperdesk: {message}", file=sys.stderr)
    if not is_offscreen():
        text = f"paperdesk could not open the library folder\n{folder}\n\n{message}"
        message_box(None, QMessageBox.Icon.Critical, title,
                    text + (f"\n\n{hint}" if hint else ""))


def _screenshot(controller: AppController, window, out: Path, size: tuple[int, int]) -> int:
    from paperdesk.ui.app.screenshot import capture

    try:
        capture(window, out, size)
    except (OSError, TimeoutError) as exc:
        print(f"paperdesk: screenshot failed: {exc}", file=sys.stderr)
        return 1
    finally:
        window.close()
    print(out)
    return 0
