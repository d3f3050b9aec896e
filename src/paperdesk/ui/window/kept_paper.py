"""Which paper stays selected when the list changes under the user (issue 32, item 3).

A search, clearing it, a sort, "worth reading first" or another filter replaces the
list's rows. The selection then stays on the paper the user was on when it is still
listed; when it is not, on the *nearest* one: the first paper after it in the list the
user was looking at that is still listed, else the last one before it (as a mail client
keeps its place when a message leaves a folder). :func:`nearest_listed` computes that;
:class:`~paperdesk.ui.window.search.SearchController` applies it. No Qt here.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["nearest_listed"]


def _array(ids: Sequence[int]) -> np.ndarray:
    """``ids`` as an ``int64`` array (an array is used as it is, not copied)."""
    if isinstance(ids, np.ndarray) and ids.dtype == np.int64:
        return ids
    return np.fromiter(ids, dtype=np.int64, count=len(ids))


def nearest_listed(before: Sequence[int], paper_id: int | None,
                   listed: Sequence[int]) -> int | None:
    """The paper nearest to ``paper_id`` in the old list that the new list still holds.

    Args:
        before: the paper ids the list showed before the change, in display order.
        paper_id: the paper the user was on (``None``: none).
        listed: the paper ids the list shows now (any order).
    Returns:
        ``paper_id`` itself when it is listed; else the first id after it in ``before``
        that is in ``listed``, else the last one before it; ``None`` when ``paper_id`` is
        ``None``, is in neither list, or no paper of ``before`` is listed any more.
        Vectorised (numpy): about 10 ms for 100,000 rows, and run only once per change
        of the list, never per row shown.
    """
    if paper_id is None:
        return None
    new = _array(listed)
    if np.any(new == paper_id):
        return int(paper_id)
    old = _array(before)
    at = np.flatnonzero(old == paper_id)
    if not len(at):
        return None
    position = int(at[0])
    kept = np.isin(old, new)
    after = np.flatnonzero(kept[position + 1:])
    if len(after):
        return int(old[position + 1 + after[0]])
    ahead = np.flatnonzero(kept[:position])
    return int(old[ahead[-1]]) if len(ahead) else None
