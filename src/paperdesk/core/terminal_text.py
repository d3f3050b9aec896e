"""Text written to a terminal with its control characters made visible.

A title, tag, note or file name can hold terminal control sequences (``ESC ] 0 ; … BEL``
sets the window title, ``ESC [ 2 J`` clears the screen, U+009B is a one-character CSI).
Printed raw, they act on the user's terminal. :func:`terminal_safe` shows each control
character as text instead, the way ``cat -v`` does for C0 controls (ESC becomes ``^[``,
BEL ``^G``, DEL ``^?``) and as ``<U+009B>`` for C1 controls (ECMA-48 / ISO 6429, sections
5 and 8.2: C0 is U+0000-U+001F, C1 U+0080-U+009F). Line feed, tab and carriage return
(the progress bar's) are kept. Output to a pipe or a file is left exact: only a terminal
gets the visible form (:func:`wrap_if_terminal`).
"""

from __future__ import annotations

import re
from typing import TextIO

__all__ = ["terminal_safe", "first_control", "one_line", "TerminalSafeStream",
           "wrap_if_terminal"]

_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    return f"<U+{code:04X}>"     # C1 controls, and the bidi embeddings and overrides


def terminal_safe(text: str) -> str:
    """Return ``text`` with every C0/C1 control character and DEL shown as text.

    Args:
        text: any text.
    Returns:
        The text with U+0000-U+001F (except ``\\n``, ``\\t``, ``\\r``) as caret notation
        (``"\\x1b"`` → ``"^["``), U+007F as ``"^?"``, U+0080-U+009F and the explicit bidi
        controls (U+202A-U+202E, U+2066-U+2069, which reorder what a terminal shows) as
        ``"<U+202E>"``; everything else unchanged.
    """
    return _CONTROL_RE.sub(_visible, text)


_LINE_BREAKS = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\f": "\\f",
                "\x1c": "\\x1c", "\x1d": "\\x1d", "\x1e": "\\x1e", "\x85": "\\x85",
                "\u2028": "\\u2028", "\u2029": "\\u2029"}
_LINE_BREAK_RE = re.compile("[" + "".join(_LINE_BREAKS) + "]")


def one_line(text: str) -> str:
    """Return a name (a file name, a path) fit for one line of a report: each line
    break, tab or other character that ``str.splitlines`` splits at written as its
    Python escape (``"new\\nline.bib"``), so a file named with a line feed does not
    split the line that names it. Other characters are unchanged.

    Args:
        text: e.g. a path as :func:`~paperdesk.core.imports.daily_papers.display_path`
            gives it.
    Returns:
        The text without line breaks.
    """
    return _LINE_BREAK_RE.sub(lambda m: _LINE_BREAKS[m.group()], text)


def first_control(text: str) -> str | None:
    """Return the first C0/C1 control character, DEL or explicit bidi control in
    ``text`` as ``"U+001B"`` (for a message refusing a name that holds one), or ``None``
    when it has none (line feed, tab and carriage return count as controls here too: a
    name is one line; a bidi override would reverse the name on screen)."""
    match = re.search("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)
    return f"U+{ord(match.group()):04X}" if match else None


class TerminalSafeStream:
    """A text stream that passes what it is given through :func:`terminal_safe` to
    another stream; every other attribute (``flush``, ``fileno``, ``isatty``,
    ``encoding`` …) is the wrapped stream's.

    Args:
        stream: the stream written to (e.g. ``sys.stdout`` on a terminal).
    """

    def __init__(self, stream: TextIO):
        self._stream = stream

    @property
    def wrapped(self) -> TextIO:
        """The stream written to."""
        return self._stream

    def write(self, text: str) -> int:
        """Write ``text`` with its control characters made visible.

        Returns:
            ``len(text)`` (the characters consumed, as ``TextIO.write`` counts them).
        """
        self._stream.write(terminal_safe(text))
        return len(text)

    def writelines(self, lines) -> None:
        """Write each of ``lines`` (no separators added)."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def wrap_if_terminal(stream: TextIO) -> TextIO:
    """Return ``stream`` wrapped in :class:`TerminalSafeStream` when it is a terminal
    (``isatty()``), else ``stream`` itself (pipes and files get the exact text).

    Args:
        stream: e.g. ``sys.stdout`` or ``sys.stderr``.
    Returns:
        The stream to print to.
    """
    if isinstance(stream, TerminalSafeStream):
        return stream
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError, OSError):
        terminal = False
    return TerminalSafeStream(stream) if terminal else stream
