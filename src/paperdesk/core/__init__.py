"""The Qt-free core of paperdesk: store, index, import, query. Used by the CLI, the GUI
and the tests; it must never import Qt (``tests/test_architecture.py`` checks this)."""

from paperdesk.core.library import Library
from paperdesk.core.models import (ImportReport, LibraryError, Paper, PaperSummary, SearchHit,
                     SearchResults, Source, UnknownPaper)

__all__ = ["Library", "ImportReport", "LibraryError", "Paper", "PaperSummary", "SearchHit",
           "SearchResults", "Source", "UnknownPaper"]
