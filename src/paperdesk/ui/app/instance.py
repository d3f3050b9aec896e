"""Bringing the running window forward: a local socket keyed on the library folder.

The window that holds a library's lock (:mod:`paperdesk.core.store.lock`) listens on a
``QLocalServer`` whose name is derived from the user and the library folder
(:func:`server_name`). A second launch on the same library finds the lock held by a
window on this machine, connects, sends ``activate`` and exits; the first window raises
itself. If nobody answers (an old window, a different build), the second launch says the
library is open elsewhere instead.

Protocol: the client sends one line ``activate\\n``; the server answers ``ok\\n``.
"""

from __future__ import annotations

import getpass
import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

__all__ = ["server_name", "InstanceServer", "ask_to_activate", "ACTIVATE", "OK"]

ACTIVATE = b"activate\n"
OK = b"ok\n"


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
    digest = hashlib.sha256(f"{user}\0{folder}".encode("utf-8")).hexdigest()
    return f"paperdesk-{digest[:24]}"


class InstanceServer(QObject):
    """Listens for ``activate`` requests from later launches on the same library.

    Signals:
        activateRequested(): another launch asked this window to come forward.

    Args:
        parent: Qt parent.
    """

    activateRequested = Signal()

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
            return
        line = bytes(socket.readLine().data())
        if line == ACTIVATE:
            socket.write(OK)
            socket.flush()
            self.activateRequested.emit()
        socket.disconnectFromServer()


def ask_to_activate(name: str, timeout_ms: int = 2000) -> bool:
    """Ask the window listening on ``name`` to come forward.

    Args:
        name: from :func:`server_name`.
        timeout_ms: how long to wait for the connection and for the answer.
    Returns:
        True if a window answered.
    """
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False
    try:
        socket.write(ACTIVATE)
        if not socket.waitForBytesWritten(timeout_ms):
            return False
        while not socket.canReadLine():
            # False also when the window answered and hung up at once: check the buffer
            if not socket.waitForReadyRead(timeout_ms) and not socket.canReadLine():
                return False
        return bytes(socket.readLine().data()) == OK
    finally:
        socket.abort()
