"""Python's cyclic garbage collector, kept from pausing the window while a search decodes.

The collector runs inside whichever thread allocates when its counters say so, holding
the interpreter lock, and a full collection walks every container object of the
process. Decoding a common word's position lists makes one Python list per posting
(255,000 for "neural" at a million seed abstracts), so each phrase search started
several full collections one after another, each walking those lists too; measured at
300,000 abstracts, a ``pickle.loads`` of 1,024 postings took 1 ms, but 35-45 ms when a
collection ran inside it. The window's UI thread shares the interpreter, so a key typed
then waited as long. The lists are all gone when the decoding returns (they become numpy
arrays), so nothing is left for a collection to find: :func:`paused` keeps the collector
off while such short-lived containers are made (CPython's own counters then fall back
as they are freed, ``gcmodule.c``: a freed tracked object lowers the young
generation's count).

A full collection also walks every object that lives as long as the window: its widgets'
wrappers, the modules' functions and classes, some 80,000 objects. At 300,000 abstracts
one took 40-60 ms on the UI thread while a search's results were painted. The window
moves what exists once it is built out of the collector's sight (:func:`settle`, Python's
``gc.freeze``), so a full collection then walks only what was made since, and gives it
back when it closes (:func:`unsettle`).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused", "settle", "unsettle", "SlowFree", "FREED_PER_STEP"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """Keep automatic collections off inside the block; safe to nest and to enter from
    several threads at once (the collector is on again when the last block ends, if it
    was on when the first began).

    Use it around code that makes many short-lived containers and drops them all before
    the block ends: objects still alive afterwards are collected as usual later.

    Yields:
        Nothing.
    """
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


def settle() -> int:
    """Leave every object that exists now out of later collections (``gc.freeze``):
    for a long-running process whose startup made most of what it keeps. Objects are
    still freed as soon as nothing refers to them; only reference cycles among them
    wait for :func:`unsettle`.

    Returns:
        How many objects are out of the collector's sight now (``gc.get_freeze_count``).
    """
    gc.freeze()
    return gc.get_freeze_count()


def unsettle() -> None:
    """Give the objects :func:`settle` set aside back to the collector (``gc.unfreeze``),
    e.g. when the window that settled closes."""
    gc.unfreeze()


#: Items of a dropped list freed in one :meth:`SlowFree.step` (about 0.5 ms of the
#: interpreter lock for a list of ints).
FREED_PER_STEP = 32_768


class SlowFree:
    """Lists too large to free in one go, freed a slice at a time.

    Freeing a list of a million paper ids (Python ints) is one C call of about 15 ms
    that holds the interpreter lock, on whichever thread lets go of the list last: the
    window's UI thread, each time a search's rows replace the last ones. A list given
    to :meth:`drop` is freed :data:`FREED_PER_STEP` items per :meth:`step`, which the
    owner calls when it is idle (the window: a zero-delay timer per step).

    Only lists nothing else refers to are cut: one still used elsewhere (checked with
    ``sys.getrefcount``) is simply let go of, and freed by its last owner as usual.
    """

    def __init__(self):
        self._lists: list[list] = []

    def drop(self, items) -> bool:
        """Take ``items`` to free it a slice at a time.

        Args:
            items: a ``list`` the caller lets go of (anything else, or a short list,
                is simply let go of).
        Returns:
            True when steps are now due (call :meth:`step` until it returns False).
        """
        if type(items) is list and len(items) > FREED_PER_STEP:
            self._lists.append(items)
        return bool(self._lists)

    def step(self) -> bool:
        """Free up to :data:`FREED_PER_STEP` items of the lists dropped.

        Returns:
            True while some are left (call again later).
        """
        import sys

        while self._lists:
            items = self._lists[-1]
            # references: this list's entry in _lists, the local name, getrefcount's own
            if sys.getrefcount(items) > 3:
                self._lists.pop()         # someone else still has it: theirs to free
                continue
            del items[-FREED_PER_STEP:]
            if not items:
                self._lists.pop()
            break
        return bool(self._lists)

    def pending(self) -> int:
        """How many items are still to be freed."""
        return sum(len(items) for items in self._lists)
