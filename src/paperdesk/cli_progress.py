"""The command line's progress on a terminal: the import's progress bar (tqdm) and the
status line of `check` and `backup`, shown only on a terminal.

``paperdesk import`` draws one bar on standard error while standard error is a terminal:
the stage (reading, storing, indexing for search), the file being worked on (``file 2/3
name.bib``), records done of the total and the time left as tqdm estimates it (an
exponential moving average of the rate, tqdm's default ``smoothing=0.3``). When standard
error is a pipe or a file (scripts, CI, ``2>log``) nothing is drawn, so no control
characters reach it. The bar is removed when the import ends, before the report is
printed.
"""

from __future__ import annotations

import os
import sys
from typing import TextIO

from paperdesk.core.imports.progress import ImportProgress, ProgressTracker

__all__ = ["ImportBar", "StatusLine"]

#: File names longer than this are cut (in the middle) in the bar's description.
NAME_WIDTH = 32


def _short(name: str, width: int = NAME_WIDTH) -> str:
    if len(name) <= width:
        return name
    keep = width - 1
    return name[: keep // 2] + "…" + name[-(keep - keep // 2):]


class ImportBar:
    """Feeds :meth:`paperdesk.core.library.lib.imports.run` progress into a tqdm bar.

    Pass ``bar.tracker.progress`` and ``bar.tracker.on_file`` to ``import_paths``; call
    :meth:`close` when it returns (or raises).

    Args:
        stream: where to draw (default ``sys.stderr``).
        enabled: draw at all (default: only when ``stream`` is a terminal).
    """

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            try:
                enabled = self.stream.isatty()
            except (AttributeError, ValueError):   # closed or not a real stream
                enabled = False
        self.enabled = bool(enabled)
        self.tracker = ProgressTracker(self._show if self.enabled else None)
        self._bar = None
        self._stage = None

    @staticmethod
    def _description(snap: ImportProgress) -> str:
        desc = snap.verb
        if snap.stage not in ("index", "duplicates") and snap.file:
            if snap.files_total > 1:
                desc += f" file {min(snap.files_done + 1, snap.files_total)}/{snap.files_total}"
            desc += f" {_short(os.path.basename(snap.file) or snap.file)}"
        return desc

    def _show(self, snap: ImportProgress) -> None:
        desc = self._description(snap)
        if self._bar is None or snap.stage != self._stage:
            self._open(snap, desc)
        bar = self._bar
        bar.set_description_str(desc, refresh=False)
        if snap.total and bar.total != snap.total:
            bar.total = snap.total
        if snap.done > bar.n:
            bar.update(snap.done - bar.n)
        else:
            bar.refresh()

    def _open(self, snap: ImportProgress, desc: str) -> None:
        from tqdm import tqdm      # only on a terminal: no import cost for scripts

        self.close()
        self._stage = snap.stage
        self._bar = tqdm(
            desc=desc, total=snap.total or None, unit=f" {snap.unit}", file=self.stream,
            leave=False,
            dynamic_ncols=True, ascii=False,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt}{unit} "
                       "[{elapsed}, {remaining} left]")

    def close(self) -> None:
        """Remove the bar from the terminal (safe to call twice)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


class StatusLine:
    """One line on standard error that says what a long command is doing and for how
    long (``checking the search index's files (step 3 of 5) … 1:12``), redrawn every
    :attr:`interval_s` by a thread so that the time keeps moving through a step that
    reports nothing for a minute (``PRAGMA integrity_check`` of a large database).
    Drawn only on a terminal, as :class:`ImportBar`; removed by :meth:`close`.

    Args:
        stream: where to draw (default ``sys.stderr``).
        enabled: draw at all (default: only when ``stream`` is a terminal).
        interval_s: seconds between redraws.
        clock: ``time.monotonic`` (tests pass their own).
    """

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None,
                 interval_s: float = 0.5, clock=None):
        import threading
        import time

        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            try:
                enabled = self.stream.isatty()
            except (AttributeError, ValueError):
                enabled = False
        self.enabled = bool(enabled)
        self.interval_s = interval_s
        self._clock = clock or time.monotonic
        self._start = self._clock()
        self._text = ""
        self._width = 0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = None
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="paperdesk-status",
                                            daemon=True)
            self._thread.start()

    def set(self, text: str) -> None:
        """Say ``text`` from now on (drawn at once)."""
        self._text = text
        self.draw()

    def line(self, columns: int | None = None) -> str:
        """The line as drawn: the text and the time since the start (``m:ss``), the
        text cut (ending in ``…``) so the line fits in ``columns - 1`` characters: a
        line that wrapped would leave its first row behind at each redraw.

        Args:
            columns: the terminal's width (``None``: no limit).
        """
        seconds = int(self._clock() - self._start)
        clock = f" … {seconds // 60}:{seconds % 60:02d}"
        text = self._text
        if columns is not None and len(text) + len(clock) > columns - 1:
            room = max(1, columns - 1 - len(clock) - 1)
            text = text[:room] + "…"
        return text + clock

    def _columns(self) -> int:
        """The terminal's width in characters (80 when it cannot be told)."""
        import os
        import shutil

        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        # 0 from a terminal that was given no size (a pseudo-terminal of `script`)
        return columns if columns > 0 else shutil.get_terminal_size((80, 24)).columns

    def draw(self) -> None:
        """Draw the line now (nothing when not enabled or closed)."""
        if not self.enabled or self._done.is_set():
            return
        with self._lock:
            text = self.line(self._columns())
            pad = max(0, self._width - len(text))
            self._width = len(text)
            try:
                self.stream.write("\r" + text + " " * pad)
                self.stream.flush()
            except (OSError, ValueError):
                self.enabled = False

    def _run(self) -> None:
        while not self._done.wait(self.interval_s):
            self.draw()

    def close(self) -> None:
        """Stop redrawing and clear the line (safe to call twice)."""
        if self._done.is_set():
            return
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        if self.enabled:
            with self._lock:
                try:
                    self.stream.write("\r" + " " * self._width + "\r")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass

    def __enter__(self) -> "StatusLine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
