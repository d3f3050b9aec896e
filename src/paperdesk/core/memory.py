"""Giving memory back to the operating system after a large, finished piece of work.

A long-lived process (the window) that runs a memory-hungry stage on one of its threads
(the near-duplicate stage: SQLite's 64 MB page cache, numpy temporaries, a word cache)
keeps the freed memory in the C allocator's per-thread arenas: glibc's ``free`` returns
a chunk to the process, not to the system, unless it lies at the top of the heap. The
resident size then stays at the stage's peak for the rest of the session (100 MB at
30,000 papers, measured; see docs/figures.md, "the window's memory and tag toggle").
``malloc_trim(0)`` (glibc, https://man7.org/linux/man-pages/man3/malloc_trim.3.html)
releases the free pages of every arena.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

__all__ = ["give_back_memory"]

_TRIM = None


def _trim_function():
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
                _TRIM = libc.malloc_trim
                _TRIM.argtypes = [ctypes.c_size_t]
                _TRIM.restype = ctypes.c_int
            except (OSError, AttributeError):   # not glibc (musl has no malloc_trim)
                _TRIM = False
    return _TRIM


def give_back_memory() -> bool:
    """Return the C allocator's free memory to the operating system, where the platform
    allows it (glibc's ``malloc_trim(0)``: every arena, a few milliseconds); elsewhere
    nothing happens.

    Returns:
        True when memory was released (glibc says so), False otherwise (nothing to
        release, or not glibc).
    """
    trim = _trim_function()
    if not trim:
        return False
    return bool(trim(0))
