"""What the paper list shows: the whole library, or one source, tag or filter."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Scope", "FILTER_LABELS"]

#: The filters offered in the tag pane, in order: ``Library`` filter name -> label.
FILTER_LABELS = {
    "unread": "Unread",
    "starred": "Starred",
    "untagged": "Untagged",
    "has_note": "Has note",
}


@dataclass(frozen=True)
class Scope:
    """Which papers the list (and a search) covers; all ``None`` means every paper.

    Attributes:
        source_id: only papers from this source file.
        tag_id: only papers with this tag.
        filter: only papers passing this ``Library`` filter (a key of
            :data:`FILTER_LABELS`, or another ``Library`` filter such as
            ``"has_highlight"``).
    """

    source_id: int | None = None
    tag_id: int | None = None
    filter: str | None = None

    def where(self) -> dict:
        """Return ``{"source_id", "tag_id", "filter"}`` keyword arguments for
        ``Library.paper_ids`` and ``Library.find``."""
        return {"source_id": self.source_id, "tag_id": self.tag_id, "filter": self.filter}
