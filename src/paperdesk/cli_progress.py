"""The command line's import progress bar (tqdm), shown only on a terminal.

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

__all__ = ["ImportBar"]

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
