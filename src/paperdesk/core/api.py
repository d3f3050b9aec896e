"""The core's public names beyond :class:`~paperdesk.core.library.Library` and the core's
top-level modules: what ``paperdesk/ui`` and ``paperdesk/cli.py`` may import.

The core's layers (issue 24, item 5): ``ui/`` and ``cli.py`` import only
:mod:`paperdesk.core` (its ``__all__``), the core's top-level modules (``library``,
``models``, ``changes``, ``fields``, ``scope``, ``text``, ``api`` ...) and this module;
the subpackages ``search``, ``store``, ``edits``, ``imports``, ``exports`` and
``discover`` are private to the core (``tests/core/test_architecture.py`` checks it). What
the UI and CLI do with a library goes through its managers (``lib.papers``,
``lib.search`` ...); the names here are the registries, error classes, progress and
report types and helpers they need besides.

Each name is imported from its module when first asked for (``from paperdesk.core.api
import LibraryLock``), so importing this module costs nothing and a command imports only
the parts it uses, as before.
"""

from __future__ import annotations

import importlib

#: Public name -> the private module that defines it.
_WHERE = {
    # Discover (related papers, key terms, tag suggestions, interest order)
    "BuildCancelled": "paperdesk.core.discover.build",
    "BuildFailed": "paperdesk.core.discover.build",
    "InterestOrder": "paperdesk.core.discover.models",
    "KeyTerm": "paperdesk.core.discover.models",
    "NotInTable": "paperdesk.core.discover.models",
    "RelatedPaper": "paperdesk.core.discover.models",
    "TagSuggestion": "paperdesk.core.discover.models",
    "TermsNotReady": "paperdesk.core.discover.models",
    "term_query": "paperdesk.core.discover.vectorize",
    "MEANING_PREFIX": "paperdesk.core.search.query",
    "meaning_text": "paperdesk.core.search.query",
    "evaluate_tags": "paperdesk.core.discover.tag_evaluation",
    "evaluation_report": "paperdesk.core.discover.tag_evaluation",
    "library_tags": "paperdesk.core.discover.tag_evaluation",
    # Tags, highlights and saved searches: limits, colours, name checks
    "HIGHLIGHT_COLOURS": "paperdesk.core.edits.annotations",
    "TAG_COLOURS": "paperdesk.core.edits.annotations",
    "TAG_NAME_MAX": "paperdesk.core.edits.annotations",
    "tag_key": "paperdesk.core.edits.annotations",
    "validate_tag_name": "paperdesk.core.edits.annotations",
    "SAVED_NAME_MAX": "paperdesk.core.edits.saved_searches",
    # Notes: text typed before the stored note was read, after it
    "joined_note": "paperdesk.core.edits.notes",
    # Import and export formats (the registries), progress and errors
    "EXPORT_FORMATS": "paperdesk.core.exports.formats",
    "ExportFormat": "paperdesk.core.exports.formats",
    "FIELDS": "paperdesk.core.exports.formats",
    "export_format": "paperdesk.core.exports.formats",
    "ExportCancelled": "paperdesk.core.exports.to_file",
    # Formatted bibliographies: CSL styles and locales, the processor (pandoc's citeproc)
    "BIBLIOGRAPHY_OUTPUTS": "paperdesk.core.exports.bibliography",
    "format_bibliography": "paperdesk.core.exports.bibliography",
    "format_citation": "paperdesk.core.exports.bibliography",
    "DEFAULT_STYLE": "paperdesk.core.exports.bibliography_export",
    "OUTPUT_EXTENSIONS": "paperdesk.core.exports.bibliography_export",
    "bibliography_items": "paperdesk.core.exports.bibliography_export",
    "missing_author_or_year": "paperdesk.core.exports.bibliography_export",
    "CSL_LOCALES": "paperdesk.core.exports.csl_styles",
    "StyleError": "paperdesk.core.exports.csl_styles",
    "check_locale": "paperdesk.core.exports.csl_styles",
    "load_style": "paperdesk.core.exports.csl_styles",
    "shipped_styles": "paperdesk.core.exports.csl_styles",
    "ARXIV_FORMAT": "paperdesk.core.imports.arxiv",
    "ArxivFilter": "paperdesk.core.imports.arxiv",
    "display_path": "paperdesk.core.imports.daily_papers",
    "IMPORT_FORMATS": "paperdesk.core.imports.formats",
    "file_dialog_filter": "paperdesk.core.imports.formats",
    "folder_patterns": "paperdesk.core.imports.formats",
    "ImportProgress": "paperdesk.core.imports.progress",
    "ProgressTracker": "paperdesk.core.imports.progress",
    # Search: highlighting the words a query matches; the matches ranked first; index
    # write errors
    "MatchTerms": "paperdesk.core.search.index",
    "match_spans": "paperdesk.core.search.index",
    "RANKED_FIRST": "paperdesk.core.search.library_search",
    "IndexWriteError": "paperdesk.core.search.writer_process",
    # Search: the window's searches in a process of their own (opt-in)
    "SearchAsk": "paperdesk.core.search.search_process",
    "SearchError": "paperdesk.core.search.search_process",
    "SearchProcess": "paperdesk.core.search.search_process",
    "SearchProcessGone": "paperdesk.core.search.search_process",
    "run_search": "paperdesk.core.search.search_process",
    "search_process_wanted": "paperdesk.core.search.search_process",
    # The library folder: backups, full disks, the lock and its turns, salvage, schema
    "BACKUP_DIR": "paperdesk.core.store.backup",
    "BackupCancelled": "paperdesk.core.store.backup",
    "auto_backup": "paperdesk.core.store.backup",
    "backup_name": "paperdesk.core.store.backup",
    "backup_to": "paperdesk.core.store.backup",
    "describe_counts": "paperdesk.core.store.backup",
    "fewer_than": "paperdesk.core.store.backup",
    "inspect_backup": "paperdesk.core.store.backup",
    "latest_backup": "paperdesk.core.store.backup",
    "library_state": "paperdesk.core.store.backup",
    "replace_database": "paperdesk.core.store.backup",
    "disk_full_message": "paperdesk.core.store.errors",
    "is_disk_full": "paperdesk.core.store.errors",
    "low_space": "paperdesk.core.store.errors",
    "LOCK_NAME": "paperdesk.core.store.lock",
    "LibraryLock": "paperdesk.core.store.lock",
    "LockHeld": "paperdesk.core.store.lock",
    "LockInfo": "paperdesk.core.store.lock",
    "WAIT_ENV": "paperdesk.core.store.lock_turns",
    "acquire_in_turn": "paperdesk.core.store.lock_turns",
    "paused_holder": "paperdesk.core.store.lock_turns",
    "wait_bound": "paperdesk.core.store.lock_turns",
    "yield_to_waiters": "paperdesk.core.store.lock_turns",
    "SalvageReport": "paperdesk.core.store.salvage",
    "database_damage": "paperdesk.core.store.salvage",
    "merge_backup": "paperdesk.core.store.salvage",
    "salvage_library": "paperdesk.core.store.salvage",
    "SCHEMA_VERSION": "paperdesk.core.store.schema",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    """The public ``name``, looked up in its module on each access (so that a test's
    patch of that module is seen, as with a direct import).

    Raises:
        AttributeError: ``name`` is not part of the public API.
    """
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
