"""Reading a file of the library folder only when it is a regular file: a FIFO, device or
socket planted where paperdesk expects a file is refused instead of read (its open or
read would otherwise wait forever)."""

from __future__ import annotations

import errno
import io
import os
import stat

__all__ = ["open_regular"]


def open_regular(path) -> "io.BufferedReader":
    """Open ``path`` for reading in binary mode, only if it is a regular file: a FIFO,
    device or socket planted in a library folder (``index/_MAIN_1.toc`` as a FIFO made
    every command wait forever) is refused instead of read. The file is opened with
    ``O_NONBLOCK`` (a FIFO's open would otherwise wait for a writer), then ``fstat``-ed.

    Args:
        path: the file (a symbolic link is followed; what it names must be regular).
    Returns:
        A binary file object, positioned at the start.
    Raises:
        OSError: it cannot be opened, or it is not a regular file (``EINVAL``).
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
