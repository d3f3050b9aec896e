"""The one place that reads the clock: UTC timestamps as the library stores them."""

from __future__ import annotations

import datetime as _dt

__all__ = ["utc_now", "utc_stamp"]


def utc_now() -> str:
    """Return the current time as ISO 8601 UTC to the second, e.g.
    ``"2026-12-01T07:25:00Z"`` (the form of ``added_at``, ``read_at``, ``created_at``)."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_stamp() -> str:
    """Return the current UTC time as a compact stamp for file names, e.g.
    ``"20261201T072500Z"`` (schema backups)."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
