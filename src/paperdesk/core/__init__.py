"""The Qt-free core of paperdesk: store, index, import, query. Used by the CLI, the GUI
and the tests; it must never import Qt (``tests/core/test_architecture.py`` checks this).

Its public API is this package's ``__all__``, its top-level modules (``library``,
``models``, ``changes``, ``fields``, ``scope``, ``text`` ...) and :mod:`paperdesk.core.api`;
the subpackages ``search``, ``store``, ``edits``, ``imports``, ``exports`` and ``discover``
are private: ``ui/`` and ``cli.py`` reach them through a
:class:`~paperdesk.core.library.Library`'s managers (``lib.search``, ``lib.imports`` ...)."""

from paperdesk.core.library import Library
from paperdesk.core.models import (ImportReport, LibraryError, Paper, PaperSummary, SearchHit,
                     SearchResults, Source, UnknownPaper)

__all__ = ["Library", "ImportReport", "LibraryError", "Paper", "PaperSummary", "SearchHit",
           "SearchResults", "Source", "UnknownPaper"]
