"""Bringing the running window forward: a local socket keyed on the library folder.

The window that holds a library's lock (:mod:`paperdesk.core.store.lock`) listens on a
``QLocalServer`` whose name is derived from the user and the library folder
(:func:`server_name`). A second launch on the same library finds the lock held by a
window on this machine, connects, sends ``activate`` and exits; the first window raises
itself. If nobody answers (an old window, a different build), the second launch says the
library is open elsewhere instead.

Protocol (one request line per connection, ASCII):

- ``activate\\n``: come forward; the server answers ``ok\\n``.
- ``import <JSON list of absolute paths>\\n``: come forward and import these files or
  folders (``paperdesk FILE...`` while the window is open); the server answers ``ok\\n``,
  or ``error <reason>\\n`` for a malformed request. The JSON is written with
  ``ensure_ascii`` so the line is ASCII; a file name that is not valid UTF-8 travels as
  Python's ``surrogateescape`` form (lone ``\\udcXX`` escapes), which
  :func:`os.fsencode` turns back into the original bytes, so such files arrive intact.

A window from a build older than the ``import`` request hangs up without answering it;
:func:`ask_to_import` then reports :data:`UNSUPPORTED` and the caller falls back to
``activate`` and says the files could not be handed over.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

__all__ = ["server_name", "InstanceServer", "ask_to_activate", "ask_to_import",
           "import_request", "parse_import_request", "ACTIVATE", "OK", "IMPORT",
           "HANDED_OVER", "UNSUPPORTED", "ABSENT"]

ACTIVATE = b"activate\n"
OK = b"ok\n"
#: The start of an import request line (followed by a JSON list and ``\n``).
IMPORT = b"import "
#: Longest request line the server reads (bytes): some 50,000 long paths.
MAX_LINE = 16 * 1024 * 1024

#: :func:`ask_to_import` outcomes: the window took the files; a window answered but not
#: the import request (an older build); nobody answered.
HANDED_OVER, UNSUPPORTED, ABSENT = "handed-over", "unsupported", "absent"


def import_request(paths) -> bytes:
    """Return the ``import`` request line for ``paths``.

    Args:
        paths: files or folders (``str`` or path-like; made absolute against the current
            folder, since the window runs elsewhere).
    Returns:
        ``b"import [...]\\n"``, ASCII.
    """
    names = [os.path.abspath(os.fsdecode(os.fspath(p))) for p in paths]
    return IMPORT + json.dumps(names, ensure_ascii=True).encode("ascii") + b"\n"


def parse_import_request(line: bytes) -> list[str]:
    """Return the paths of an ``import`` request line (see :func:`import_request`).

    Returns:
        Absolute paths as ``str`` (``surrogateescape`` form for bytes that are not UTF-8).
    Raises:
        ValueError: the line is not an import request of a non-empty JSON list of
            absolute paths.
    """
    if not line.startswith(IMPORT):
        raise ValueError("not an import request")
    try:
        names = json.loads(line[len(IMPORT):].decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"malformed import request: {exc}") from None
    if not isinstance(names, list) or not names or \
            not all(isinstance(n, str) and n and os.path.isabs(n) for n in names):
        raise ValueError("an import request needs a list of absolute paths")
    return names


def server_name(library_path: str | os.PathLike) -> str:
    """Return the local-socket name of the window that has ``library_path`` open.

    Args:
        library_path: the library folder (resolved, so two spellings of one folder
            give one name).
    Returns:
        ``"paperdesk-<24 hex digits>"``, unique per user and folder.
    """
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name (some containers): the uid will do
        user = str(getattr(os, "getuid", lambda: 0)())
    folder = str(Path(library_path).expanduser().resolve())
    # surrogateescape: a folder name that is not UTF-8 hashes as its bytes (PEP 383)
    digest = hashlib.sha256(f"{user}\0{folder}".encode("utf-8", "surrogateescape")
                            ).hexdigest()
    return f"paperdesk-{digest[:24]}"


class InstanceServer(QObject):
    """Listens for ``activate`` requests from later launches on the same library.

    Signals:
        activateRequested(): another launch asked this window to come forward.
        importRequested(object): another launch (``paperdesk FILE...``) asked this window
            to import files: a ``list[str]`` of absolute paths (emitted after
            ``activateRequested``).

    Args:
        parent: Qt parent.
    """

    activateRequested = Signal()
    importRequested = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_connection)

    def listen(self, name: str) -> bool:
        """Start listening on ``name`` (stops listening on any earlier name).

        Call only while holding the library's lock: a socket file left by a crashed
        window is removed first, which would cut off a live one.

        Returns:
            False if the socket could not be created (then later launches report the
            library as open elsewhere instead of raising this window).
        """
        self.close()
        QLocalServer.removeServer(name)
        return self._server.listen(name)

    def name(self) -> str:
        """The name listened on ("" when not listening)."""
        return self._server.serverName() if self._server.isListening() else ""

    def close(self) -> None:
        """Stop listening (safe when not listening)."""
        if self._server.isListening():
            self._server.close()

    @Slot()
    def _on_connection(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._on_ready(s))
            socket.disconnected.connect(socket.deleteLater)
            if socket.bytesAvailable():
                self._on_ready(socket)

    def _on_ready(self, socket: QLocalSocket) -> None:
        if not socket.canReadLine():
            if socket.bytesAvailable() > MAX_LINE:
                socket.abort()
            return
        line = bytes(socket.readLine().data())
        if line == ACTIVATE:
            socket.write(OK)
            socket.flush()
            self.activateRequested.emit()
        elif line.startswith(IMPORT):
            try:
                paths = parse_import_request(line.rstrip(b"\n"))
            except ValueError as exc:
                socket.write(b"error " + str(exc).encode("ascii", "replace") + b"\n")
                socket.flush()
            else:
                socket.write(OK)
                socket.flush()
                self.activateRequested.emit()
                self.importRequested.emit(paths)
        socket.disconnectFromServer()


def _request(name: str, line: bytes, timeout_ms: int) -> bytes | None:
    """Send one request line to ``name``; return the answer line, ``b""`` when the
    window hung up without answering, or ``None`` when nobody is listening."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return None
    try:
        socket.write(line)
        while socket.bytesToWrite():
            if not socket.waitForBytesWritten(timeout_ms):
                return b""
        while not socket.canReadLine():
            # the window may answer and hang up at once: check the buffer too
            if not socket.waitForReadyRead(timeout_ms) and not socket.canReadLine():
                return b""
        return bytes(socket.readLine().data())
    finally:
        socket.abort()


def ask_to_activate(name: str, timeout_ms: int = 2000) -> bool:
    """Ask the window listening on ``name`` to come forward.

    Args:
        name: from :func:`server_name`.
        timeout_ms: how long to wait for the connection and for the answer.
    Returns:
        True if a window answered.
    """
    return _request(name, ACTIVATE, timeout_ms) == OK


def ask_to_import(name: str, paths, timeout_ms: int = 5000) -> str:
    """Hand files to the window listening on ``name`` (it comes forward and imports them).

    Args:
        name: from :func:`server_name`.
        paths: files or folders (see :func:`import_request`).
        timeout_ms: how long to wait for the connection, the writing and the answer.
    Returns:
        :data:`HANDED_OVER`; :data:`UNSUPPORTED` when a window answered the connection
        but not the request (a build without it, or a malformed request); or
        :data:`ABSENT` when nobody is listening.
    """
    answer = _request(name, import_request(paths), timeout_ms)
    if answer is None:
        return ABSENT
    return HANDED_OVER if answer == OK else UNSUPPORTED
