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

__all__ = ["paused", "settle", "unsettle"]

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
