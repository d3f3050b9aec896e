"""Fixtures and helpers shared by the ``test_ui_*`` GUI tests (this module has no tests):
a window on a private copy of the seed library (no import wait), with preferences in a
private INI file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
import threading

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QMimeData, QPointF, QSettings, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from paperdesk.core.discover import engine  # noqa: E402
from paperdesk.ui import create_main_window  # noqa: E402
from paperdesk.ui.app.settings import Settings  # noqa: E402

TOTAL = 225
WAIT_MS = 20000


def make_settings(path, auto_mark_read: bool = False, delay_ms: int = 1500) -> Settings:
    """Preferences stored in ``path`` (an INI file), not in the user's configuration."""
    settings = Settings(QSettings(str(path), QSettings.Format.IniFormat))
    settings.auto_mark_read = auto_mark_read
    settings.mark_read_delay_ms = delay_ms
    return settings


def show_active(qtbot, window, size: tuple[int, int] = (1280, 800)) -> None:
    """Resize ``window``, show it and wait until it is exposed and the active window
    (as the application starts it; nothing is focused by this)."""
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)


@pytest.fixture
def open_seeded(qtbot, tmp_path, _seeded_template):
    """Return ``open(folder="lib", auto_mark_read=False, fresh=True) -> MainWindow``: a
    shown, active 1280x800 window on a copy of the seed library (``fresh=False`` reopens
    an existing folder), its list filled (every id read) and its current paper on show.
    Windows are closed at teardown."""
    windows = []

    def _open(folder: str = "lib", auto_mark_read: bool = False, fresh: bool = True,
              delay_ms: int = 1500):
        path = tmp_path / folder
        if fresh:
            shutil.copytree(_seeded_template, path)
        settings = make_settings(tmp_path / f"{folder}.ini", auto_mark_read, delay_ms)
        window = create_main_window(path, import_seeds=False, settings=settings)
        windows.append(window)
        show_active(qtbot, window)
        # the list's ids are read on the reader thread: wait until every row is in,
        # and the current row's paper (read there too) is on show
        qtbot.waitUntil(lambda: window.model.complete, timeout=WAIT_MS)
        if window.current_paper_id() is not None:
            wait_shown(qtbot, window)
        window.focus_list()
        return window

    yield _open
    for window in windows:
        window.close()
        window.shutdown()


@pytest.fixture
def win(open_seeded):
    """One window on a fresh copy of the seed library, automatic mark-read off."""
    return open_seeded()


def press(qtbot, window, *keys) -> None:
    """Type keys into whatever widget has the focus (as a user would)."""
    for key in keys:
        target = window.focusWidget() or window
        qtbot.keyClick(target, key)


def type_query(qtbot, window, query: str) -> None:
    """Type ``query`` key by key into the search box and wait until its results are
    listed and the window is idle."""
    window.focus_search()
    for char in query:
        qtbot.keyClick(window.search_box, char)
    qtbot.waitUntil(lambda: window.model.searching and not window.is_busy()
                    and window.search.results is not None
                    and window.search.results.query == query, timeout=WAIT_MS)
    QApplication.processEvents()


def open_metadata_editor(qtbot, window):
    """Press m on the list; return the metadata editor (a ``MetadataDialog``) once its
    Authors box has the keyboard focus."""
    from paperdesk.ui.window.metadata_dialog import MetadataDialog

    window.focus_list()
    press(qtbot, window, "m")
    dialog = window.metadata.metadata_dialog
    assert isinstance(dialog, MetadataDialog)
    qtbot.waitUntil(lambda: dialog.isVisible()
                    and QApplication.focusWidget() is dialog.authors, timeout=5000)
    return dialog


def wait_listed(qtbot, window) -> None:
    """Wait until the list holds every id of its scope in its order (a listing's and a
    header sort's ids are read on the reader thread)."""
    qtbot.waitUntil(lambda: window.model.complete, timeout=WAIT_MS)


def wait_row(qtbot, window, row: int) -> None:
    """Ask for the list's row ``row`` and wait until it is read (its cells show a
    placeholder until its block comes from the reader thread)."""
    model = window.model
    model.index(row, 0).data()
    qtbot.waitUntil(lambda: model.row_read(row), timeout=WAIT_MS)


def wait_shown(qtbot, window, paper_id: int | None = None) -> None:
    """Wait until the reading pane shows ``paper_id`` (default: the list's current
    paper): the paper of the current row is read on the reader thread, the one before
    stays on show until it comes."""
    want = window.current_paper_id() if paper_id is None else paper_id
    qtbot.waitUntil(lambda: window.detail_pane.paper_id == want, timeout=WAIT_MS)


def keyed_tag(qtbot, window, name: str, key: int = 1) -> None:
    """Create tag ``name`` bound to number key ``key`` through the window, and wait
    until the tag pane lists it with its key (the key toggles it from then on)."""
    assert window.triage.create_tag(name, key=key)
    qtbot.waitUntil(lambda: any(t.name == name and t.key == key
                                for t in window.tag_pane.tag_entries()), timeout=WAIT_MS)


def wait_idle(qtbot, window) -> None:
    """Wait until no import, search or index update is pending."""
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)


def settle(qtbot, window) -> None:
    """Wait until every edit and undo handed to the window's writer thread has come back
    (committed, its message shown, the panes refreshed from ``changed``), then let the
    events it posted run. Searches, counts and index updates may still be pending (use
    :func:`wait_idle` for those)."""
    qtbot.waitUntil(lambda: not window.worker.is_busy(), timeout=WAIT_MS)
    QCoreApplication.processEvents()


def anchors(view) -> list[str]:
    """Every link target in a text view's document, in document order.

    Args:
        view: a widget with ``document()`` (a QTextEdit, QTextBrowser or the detail pane).
    Returns:
        The ``href`` of each anchored fragment.
    """
    found = []
    block = view.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isAnchor() and fmt.anchorHref():
                found.append(fmt.anchorHref())
            it += 1
        block = block.next()
    return found


def drop_file(window, path) -> None:
    """Drop one file onto the window, as a file manager does."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    pos = QPointF(window.rect().center())
    QApplication.sendEvent(window, QDragEnterEvent(
        pos.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier))
    QApplication.sendEvent(window, QDropEvent(
        pos, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier))


def marked_fragments(window) -> list[str]:
    """The pieces of the shown abstract that carry the search-hit background."""
    from paperdesk.ui.style.colours import SEARCH_HIT_LIGHT

    block = window.detail_pane.abstract_view.abstract_block()
    marked = []
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        if fragment.charFormat().background().color().name() == SEARCH_HIT_LIGHT[0]:
            marked.append(fragment.text())
        it += 1
    return marked


@pytest.fixture
def held_build(monkeypatch):
    """Hold the term-table build after its first progress report until released."""
    gate = threading.Event()
    started = threading.Event()
    real = engine.build_table

    def build(db_path, progress=None, cancel=None):
        def step(done, total):
            if progress is not None:
                progress(done, total)

        step(0, 225)
        started.set()
        while not gate.wait(0.02):
            if cancel is not None and cancel():
                raise engine.BuildCancelled()
        return real(db_path, step, cancel)

    monkeypatch.setattr(engine, "build_table", build)
    return gate, started


def hold_storing(monkeypatch, batch: int, after: int) -> threading.Event:
    """Make an import store in batches of ``batch`` abstracts and wait, once it has
    hashed ``after`` of them, until the returned event is set (or 60 s pass)."""
    from paperdesk.core.imports import parse_process, pipeline

    monkeypatch.setattr(pipeline, "IMPORT_BATCH", batch)
    go_on = threading.Event()
    hashed = []
    real_hash = parse_process.content_hash      # a small file: hashed by the importing thread

    def held_hash(text):
        hashed.append(1)
        if len(hashed) > after:
            go_on.wait(3 * WAIT_MS / 1000)
        return real_hash(text)

    monkeypatch.setattr(parse_process, "content_hash", held_hash)
    return go_on


@pytest.fixture
def held_storing(monkeypatch):
    """An import stores its first 100 abstracts (in batches of 50), then waits until the
    test sets the returned event (set at teardown too)."""
    go_on = hold_storing(monkeypatch, 50, 100)
    yield go_on
    go_on.set()


# -- the UI thread must not wait on SQLite ---------------------------------------------
class UiThreadGuard:
    """Catches SQLite and search-index work done on the Qt main (UI) thread while armed.

    Armed on a window (:meth:`arm`), every SQLite statement the main thread runs is
    recorded as an offence: a progress handler (called every SQLite VM step) on every
    ``sqlite3`` connection of the process (those open at :meth:`arm`, found by the
    garbage collector, and those opened later) sees it, whichever connection it goes
    through; so is every call of the library's search (``lib.search``: Whoosh) from the
    main thread. The work still runs (so one test lists every offending read of its
    flow); :meth:`check` (and the fixture's teardown) fail with the stack of each. The
    test's own reads (to check what was stored) go inside ``with guard.allowed():``.

    Attributes:
        offences: one formatted stack (the app's frames, innermost last) per line of
            the UI code that asked for SQLite work, in the order they happened.
    """

    def __init__(self, monkeypatch):
        self.offences: list[str] = []
        self._places: set[tuple] = set()
        self._armed = False
        self._allowed = 0
        self._monkeypatch = monkeypatch
        import sqlite3

        real_connect = sqlite3.connect

        def connect(*args, **kwargs):
            conn = real_connect(*args, **kwargs)
            if self._armed:
                self._watch(conn)
            return conn

        monkeypatch.setattr(sqlite3, "connect", connect)

    def arm(self, window) -> None:
        """Watch from now on (the window is up: its start-up reads are over)."""
        import gc
        import sqlite3

        # gc.get_objects() leaves out what the window set aside (gc.freeze,
        # paperdesk.core.collector.settle): look at everything, then set it aside again
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        for obj in gc.get_objects():
            if isinstance(obj, sqlite3.Connection):
                self._watch(obj)
        if frozen:
            gc.freeze()
        search = window.lib.search
        for name in ("find", "snippets", "match_terms", "suggest", "hits"):
            real = getattr(search, name)

            def called(*args, _real=real, **kwargs):
                if threading.current_thread() is threading.main_thread():
                    self._offend()
                return _real(*args, **kwargs)

            self._monkeypatch.setattr(search, name, called)
        self._armed = True

    def disarm(self) -> None:
        """Stop watching (before the window closes: its close reads on purpose)."""
        self._armed = False

    def allowed(self):
        """A context manager: the test's own reads on the main thread inside it are no
        offence."""
        import contextlib

        @contextlib.contextmanager
        def _allowed():
            self._allowed += 1
            try:
                yield
            finally:
                self._allowed -= 1
        return _allowed()

    def check(self) -> None:
        """Raise ``AssertionError`` naming every offence so far (and forget them)."""
        offences, self.offences = self.offences, []
        self._places.clear()
        if offences:
            raise AssertionError(
                f"{len(offences)} SQLite read(s)/write(s) on the UI thread:\n\n"
                + "\n\n".join(offences))

    def _watch(self, conn) -> None:
        def progress() -> int:
            if threading.current_thread() is threading.main_thread():
                self._offend()
            return 0

        try:
            conn.set_progress_handler(progress, 1)
        except Exception:   # noqa: BLE001 - a closed connection runs nothing
            pass

    def _offend(self) -> None:
        if not self._armed or self._allowed:
            return
        import sys
        import traceback

        # one offence per line of the UI code that asked (cheap: called at every VM step)
        frame = sys._getframe(2)
        while frame is not None and "paperdesk/ui/" not in frame.f_code.co_filename \
                and "paperdesk\\ui\\" not in frame.f_code.co_filename:
            frame = frame.f_back
        key = (frame.f_code, frame.f_lineno) if frame is not None else None
        if key in self._places:
            return
        self._places.add(key)
        frames = [f for f in traceback.extract_stack(sys._getframe(2))   # the app's, the test's
                  if "site-packages" not in f.filename and "/lib/python" not in f.filename]
        self.offences.append("".join(traceback.format_list(frames[-8:])))


@pytest.fixture
def ui_thread_guard(monkeypatch):
    """A :class:`UiThreadGuard` (arm it on a window once it is up); its offences fail
    the test at teardown. Ask for it after the window's fixture (``win``), so that it
    is disarmed before the window closes."""
    guard = UiThreadGuard(monkeypatch)
    yield guard
    guard.disarm()
    guard.check()


# -- a window in a process of its own ----------------------------------------------------
SRC = Path(__file__).resolve().parents[2] / "src"


def subprocess_env(tmp_path) -> dict:
    """The environment of a paperdesk child process: offscreen, preferences under
    ``tmp_path/config``, this checkout's sources first, no ``PAPERDESK_LIBRARY``."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    env.pop("PAPERDESK_LIBRARY", None)
    return env


def wait_for_window(library, proc, timeout: float = 60) -> None:
    """Wait until the window of ``proc`` (a ``subprocess.Popen``) has ``library`` open
    and listens on its socket (:func:`paperdesk.ui.app.instance.server_name`)."""
    import time

    from PySide6.QtNetwork import QLocalSocket

    from paperdesk.core.store.lock import LOCK_NAME
    from paperdesk.ui.app.instance import server_name

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if (Path(library) / LOCK_NAME).exists():
            socket = QLocalSocket()
            socket.connectToServer(server_name(library))
            if socket.waitForConnected(200):
                socket.abort()
                return
        time.sleep(0.1)
    raise AssertionError("the window did not start")
