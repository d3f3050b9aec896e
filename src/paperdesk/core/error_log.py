"""Where an unexpected error's traceback goes: a log file, never the terminal.

A command or the window reports an error the user can act on in one line. An error
nobody expected (a bug) also needs its traceback for a bug report, but "no command or
window ever shows a Python traceback": :func:`log_unexpected` appends it to
``errors.log`` in the user's log folder (``platformdirs.user_log_dir("paperdesk")``,
``~/.local/state/paperdesk/log`` on Linux; ``$PAPERDESK_LOG_DIR`` when set) and prints
one line to stderr naming that file. The log is cut to its newest half when it passes
:data:`MAX_LOG_BYTES`.
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
import traceback
from pathlib import Path

import platformdirs

__all__ = ["log_unexpected", "error_log_path", "MAX_LOG_BYTES"]

#: The log is cut to its newest half once it is larger than this (bytes).
MAX_LOG_BYTES = 1_000_000


def error_log_path() -> Path:
    """Return the error log's path (the folder may not exist yet): ``errors.log`` in
    ``$PAPERDESK_LOG_DIR`` when set, else in ``platformdirs.user_log_dir("paperdesk")``."""
    folder = os.environ.get("PAPERDESK_LOG_DIR") or platformdirs.user_log_dir(
        "paperdesk", appauthor=False)
    return Path(folder) / "errors.log"


def _append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            data = path.read_bytes()
            path.write_bytes(data[len(data) // 2:])
    except FileNotFoundError:
        pass
    with open(path, "a", encoding="utf-8", errors="replace") as f:
        f.write(text)


def log_unexpected(what: str, exc: BaseException) -> Path | None:
    """Record an unexpected error: its traceback to the error log, one line to stderr.

    Args:
        what: what failed, as the user would say it (``"export"``, ``"unexpected
            error"``).
        exc: the exception (its ``__traceback__`` is written).
    Returns:
        The log file written, or ``None`` when it could not be written (then the one
        line says so and names the error; no traceback is printed either way).
    """
    stamp = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    summary = " ".join(str(exc).split()) or type(exc).__name__
    path = error_log_path()
    try:
        _append(path, f"--- {stamp} paperdesk: {what} failed\n{text}\n")
    except OSError as err:
        print(f"paperdesk: {what} failed: {type(exc).__name__}: {summary} (the error "
              f"log {path} could not be written: {err.strerror or err})", file=sys.stderr)
        return None
    print(f"paperdesk: {what} failed: {type(exc).__name__}: {summary} (details in {path})",
          file=sys.stderr)
    return path
