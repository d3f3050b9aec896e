"""The paperdesk desktop window (PySide6). All Qt code of paperdesk lives in this package.

Modules: ``startup`` (QApplication + window factory), ``app`` (``run``: the event loop and
error dialogs), ``main_window`` (wiring), ``actions`` (the table of commands and
shortcuts), ``triage`` (the window's annotation and navigation slots), ``commands``
(undoable changes), ``paper_model`` + ``title_delegate`` + ``snippet_delegate`` (the
list), ``detail_pane`` with ``abstract_view``, ``tag_chips``, ``highlight_list`` and
``note_editor``, ``export_commands`` (export and copy slots) with ``export_dialog`` (File ▸ Export…),
``metadata_commands`` (m, Ctrl+K, o) with ``metadata_dialog`` (the metadata editor),
``list_columns`` (the list's optional columns),
``tag_pane`` (filters, saved searches, tags, files; scopes are ``core.scope``),
``workers`` (search, saved-search count, import, export and index-sync threads),
``saved_searches`` (the window's saved-search slots), ``search_help`` (the query
language page), ``paper_html`` (escaped detail HTML), ``links``,
``colours``, ``flow_layout``, ``settings``, ``dialogs``, ``formatting`` and
``screenshot``.
"""

from paperdesk.ui.app.startup import create_main_window, ensure_app

__all__ = ["create_main_window", "ensure_app"]
