"""How far an import has got: files, records and the estimated time left.

:class:`ProgressTracker` listens to the two callbacks of
:meth:`paperdesk.core.library.lib.imports.run` (``progress`` and ``on_file``) and
turns them into :class:`ImportProgress` snapshots, which the command line's progress bar
(:mod:`paperdesk.cli_progress`) and the window's status bar both show. No Qt here.

The estimate of the time left is a linear extrapolation of the current stage's mean
rate since its first report: ``left = (total - done) * elapsed / (done - done_at_start)``
(seconds). It is given only once the stage has made progress for at least
:data:`ETA_MIN_SECONDS`, so that the first batch (which includes opening the database
and the files) does not produce wild guesses; it covers the current stage only
(storing, then indexing for search: the text of the storing stage says that indexing
follows, since indexing usually takes longer, about 2-5 ms a paper against well under
1 ms to store one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["ImportProgress", "ProgressTracker", "STAGE_WORDS", "ETA_MIN_SECONDS",
           "format_seconds"]

#: No estimate before the stage has run this long (seconds).
ETA_MIN_SECONDS = 0.5

#: What each stage does, as shown to the user: ``stage -> (verb, unit)``.
STAGE_WORDS: dict[str, tuple[str, str]] = {
    "read": ("Reading", "files"),
    "import": ("Storing", "records"),
    "index": ("Indexing for search", "papers"),
    "duplicates": ("Looking for near-duplicates", "papers"),
    "terms": ("Finding key terms", "papers"),
}


def format_seconds(seconds: float) -> str:
    """``"about 5 s left"``-style durations: ``"8 s"``, ``"2 min 5 s"``, ``"1 h 3 min"``.

    Args:
        seconds: a duration (rounded up to whole seconds; negative counts as 0).
    Returns:
        The short text.
    """
    s = max(0, int(seconds + 0.999))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s < 600 else f"{(s + 30) // 60} min"
    return f"{s // 3600} h {(s % 3600 + 30) // 60} min"


@dataclass(frozen=True)
class ImportProgress:
    """One snapshot of a running import.

    Attributes:
        stage: ``"read"`` (files being read and recognised), ``"import"`` (records being
            stored, in batches) or ``"index"`` (new papers being indexed for search).
        files_done: files finished (read in ``"read"``, stored in ``"import"``).
        files_total: files the import looks at (a folder counts its matching files).
        file: the name of the file being read or stored (``""`` while indexing).
        done: units of the stage finished: files read, records stored (over all files)
            or papers indexed.
        total: units of the stage in all (0 when not known yet).
        eta_seconds: estimated seconds until the stage ends, or ``None`` while unknown.
    """

    stage: str = "read"
    files_done: int = 0
    files_total: int = 0
    file: str = ""
    done: int = 0
    total: int = 0
    eta_seconds: float | None = None

    @property
    def verb(self) -> str:
        """``"Reading"``, ``"Storing"`` or ``"Indexing for search"``."""
        return STAGE_WORDS.get(self.stage, (self.stage.title(), ""))[0]

    @property
    def unit(self) -> str:
        """``"files"``, ``"records"`` or ``"papers"``."""
        return STAGE_WORDS.get(self.stage, ("", "items"))[1]

    def counts_text(self) -> str:
        """``"3,000 of 10,000 records"`` (or ``"3,000 records"`` with no total)."""
        if self.total:
            return f"{self.done:,} of {self.total:,} {self.unit}"
        return f"{self.done:,} {self.unit}"

    def eta_text(self) -> str:
        """``"about 20 s left"``, or ``""`` while there is no estimate."""
        if self.eta_seconds is None:
            return ""
        return f"about {format_seconds(self.eta_seconds)} left"

    def text(self) -> str:
        """One line for a status bar: ``"Storing file 2 of 3 · 3,000 of 10,000 records ·
        about 20 s left, then indexing"``; the file part is left out while indexing or
        for one file. The time left is the current stage's: storing says that indexing
        for search follows (it often takes longer than storing)."""
        parts = [self.verb]
        if self.stage != "index" and self.files_total > 1:
            parts[0] += f" file {min(self.files_done + 1, self.files_total)} of " \
                        f"{self.files_total}"
        if self.stage != "read":
            parts.append(self.counts_text())
        eta = self.eta_text()
        if eta:
            parts.append(eta + (", then indexing" if self.stage == "import" else ""))
        return " · ".join(parts)


class ProgressTracker:
    """Collects an import's progress reports into :class:`ImportProgress` snapshots.

    Pass :meth:`progress` and :meth:`on_file` to
    :meth:`~paperdesk.core.library.lib.imports.run`; ``listener`` gets a snapshot
    after every report (on the thread that imports).

    Args:
        listener: ``listener(snapshot)``, or ``None`` to only keep :attr:`snapshot`.
        clock: seconds, monotonic (tests pass a fake one).
    """

    def __init__(self, listener: Callable[[ImportProgress], None] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self._listener = listener
        self._clock = clock
        self.snapshot = ImportProgress()
        self._stage_start: tuple[str, float, int] | None = None   # (stage, time, done)

    def on_file(self, stage: str, files_done: int, files_total: int, name: str) -> None:
        """``on_file`` callback: a file starts being read (``stage="read"``) or stored
        (``"import"``). ``files_done`` files are finished; ``name`` is the file's."""
        self._update(stage, files_done=files_done, files_total=files_total, file=name,
                     **({"done": files_done, "total": files_total}
                        if stage == "read" else {}))

    def progress(self, stage: str, done: int, total: int) -> None:
        """``progress`` callback: ``done`` of ``total`` units of ``stage`` are finished."""
        extra = {}
        if stage in ("index", "duplicates"):
            extra = {"files_done": self.snapshot.files_total, "file": ""}
        elif stage == "import" and self.snapshot.stage != "import":
            # Storing starts (its total known) before its first file's ``on_file``: the
            # files counted so far were read, not stored ("Storing file 3 of 3 · 0 of
            # 900" flashed before "Storing file 1 of 3").
            extra = {"files_done": 0, "file": ""}
        self._update(stage, done=done, total=total, **extra)

    def _update(self, stage: str, **changes) -> None:
        now = self._clock()
        if self._stage_start is None or self._stage_start[0] != stage:
            self._stage_start = (stage, now, changes.get("done", 0))
        snap = replace(self.snapshot, stage=stage, **changes)
        _stage, t0, done0 = self._stage_start
        eta = None
        if snap.total and snap.done > done0 and now - t0 >= ETA_MIN_SECONDS:
            eta = (snap.total - snap.done) * (now - t0) / (snap.done - done0)
        if snap.total and snap.done >= snap.total:
            eta = 0.0 if snap.done > done0 else None
        self.snapshot = replace(snap, eta_seconds=eta)
        if self._listener is not None:
            self._listener(self.snapshot)
