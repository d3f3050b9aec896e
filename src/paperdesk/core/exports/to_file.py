"""Exporting from a library: choosing the papers (scopes) and writing files safely."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from paperdesk.core.exports.formats import export_chunks
from paperdesk.core.models import LibraryError, Paper
from paperdesk.core.scope import Scope
from paperdesk.core.manager import Manager

__all__ = ["Exports", "ExportCancelled"]


def _mode_for(target: Path) -> int:
    """Permission bits for the new file: those of the file it replaces, else the usual
    ones for a new file under the current umask (mkstemp would leave 0600)."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _is_stream(target: Path) -> bool:
    """Whether ``target`` is an existing FIFO or character device (written into, not
    replaced); raises :class:`LibraryError` for other special files."""
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise LibraryError(f"cannot write {target}: {exc.strerror or exc}") from exc
    if stat.S_ISREG(mode):
        return False
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return True
    kind = ("a folder" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a regular file")
    raise LibraryError(f"cannot write {target}: it is {kind}; give a file name")


def _write_into(target: Path, chunks: Iterable[str]) -> None:
    """Write the export into a FIFO or character device as it is (what the reader gets
    up to a failure is all it gets: a pipe cannot be written atomically)."""
    try:
        with open(target, "w", encoding="utf-8", newline="") as fh:
            for chunk in chunks:
                fh.write(chunk)
    except OSError as exc:
        raise LibraryError(f"cannot write {target}: {exc.strerror or exc}") from exc


class ExportCancelled(LibraryError):
    """The export was cancelled; no file was written."""


class Exports(Manager):
    """Exports: ``lib.exports`` (see the module)."""

    def scope_ids(self, *, tag: str | None = None, query: str | None = None,
                     ids: Sequence[int] | None = None, saved: str | None = None,
                     everything: bool = False) -> list[int]:
        """Return the ids of the papers in one export scope, in list order.

        Exactly one scope must be given: a tag name (papers with it, in added order), a
        query (its results, best first), a saved search's name, explicit ids (kept in the
        order given), or ``everything`` (the whole library in added order).

        Raises:
            LibraryError: no scope or several, an unknown tag or saved search, or an
                unknown paper id.
            ValueError: never for user input (kept for programming errors).
        """
        given = [x is not None for x in (tag, query, ids, saved)] + [everything]
        if sum(given) != 1:
            raise LibraryError("choose one export scope: a tag, a query, a saved search, "
                               "paper ids, or everything")
        if tag is not None:
            found = self._lib.tags.by_name(tag)
            if found is None:
                raise LibraryError(f"no tag named {tag!r}")
            return self._lib.papers.scope_ids(Scope(tag_id=found.id))
        return self._lib.papers.scope_ids(Scope(query=query, saved=saved,
                                    ids=None if ids is None else tuple(ids)))

    def _saved_for(self, fmt: str) -> list:
        """The saved searches an export in ``fmt`` carries: all of them for ``json``
        (the lossless export), none otherwise."""
        return self._lib.saved_searches.all() if fmt == "json" else []

    def _papers(self, ids: Sequence[int], progress, cancel) -> Iterator[Paper]:
        total = len(ids)
        for n, pid in enumerate(ids, start=1):
            if cancel is not None and n % 100 == 0 and cancel():
                raise ExportCancelled("export cancelled; no file was written")
            yield self._lib.papers.get(pid)
            if progress is not None and (n % 100 == 0 or n == total):
                progress("export", n, total)

    def text(self, ids: Sequence[int], fmt: str,
                    fields: Iterable[str] | None = None, options: dict | None = None) -> str:
        """Return the export of the given papers as one string (for stdout or the
        clipboard). See :mod:`paperdesk.core.exports.formats` for formats, fields and
        ``options`` (a format's own, e.g. the bibliography's style).

        Raises:
            ValueError: unknown format or field.
            UnknownPaper: an id does not exist.
        """
        return "".join(export_chunks(self._papers(list(ids), None, None), fmt, fields,
                                     self._saved_for(fmt), options))

    def to_file(self, ids: Sequence[int], fmt: str, path: str | os.PathLike,
                       fields: Iterable[str] | None = None, progress=None,
                       cancel=None, options: dict | None = None) -> int:
        """Write an export file atomically: to a temporary file in the same folder, which
        replaces ``path`` only once it is complete, so a failure or cancel never leaves a
        half-written file (nor destroys an existing one). A named pipe (FIFO) or a
        character device (``/dev/stdout``, a terminal) is written into as it is, never
        replaced by a regular file; other special files are refused.

        Args:
            ids: papers, in the order to write.
            fmt: a format of :data:`paperdesk.core.exports.formats.FORMATS`.
            path: the file to write.
            fields: fields to include, or ``None`` for all.
            progress: called as ``progress("export", done, total)``.
            cancel: polled every 100 papers; True stops the export.
            options: the format's own options (:func:`~paperdesk.core.exports.formats.
                export_chunks`), e.g. the bibliography's style.
        Returns:
            The number of papers written.
        Raises:
            LibraryError: the file cannot be written (message names the file and the
                reason, e.g. a read-only folder, a full disk, a folder, a socket or a
                block device).
            ExportCancelled: cancelled (nothing written).
            ValueError: unknown format or field.
        """
        target = Path(path).expanduser()
        if target.is_symlink():  # write through the link, keep the link
            target = target.resolve()
        ids = list(ids)
        chunks = export_chunks(self._papers(ids, progress, cancel), fmt, fields,
                               self._saved_for(fmt), options)
        if _is_stream(target):
            _write_into(target, chunks)
            return len(ids)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part",
                                       dir=target.parent if str(target.parent) else ".")
        except OSError as exc:
            raise LibraryError(f"cannot write {target}: {exc.strerror or exc}") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                for chunk in chunks:
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, _mode_for(target))
            os.replace(tmp, target)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise LibraryError(f"cannot write {target}: {exc.strerror or exc}") from exc
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return len(ids)
