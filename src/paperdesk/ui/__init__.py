"""The paperdesk desktop window (PySide6). All Qt code of paperdesk lives in this package.

Modules: ``startup`` (QApplication + window factory), ``app`` (``run``: the event loop
and error dialogs), ``main_window`` (wiring), ``actions`` (the table of commands and
shortcuts), ``triage`` (the window's annotation and navigation slots),
``export_commands`` (its export and copy slots) with ``export_dialog`` (File ▸ Export…),
``commands`` (undoable changes), ``paper_model`` + ``title_delegate`` +
``snippet_delegate`` (the list), ``detail_pane`` with ``abstract_view``, ``tag_chips``,
``highlight_list`` and ``note_editor``, ``tag_pane`` (filters, tags, files), ``scope``,
``workers`` (search, import, export and index-sync threads), ``paper_html`` (escaped
detail HTML), ``links``, ``colours``, ``flow_layout``, ``settings``, ``dialogs``,
``formatting`` and ``screenshot``.
"""

from .startup import create_main_window, ensure_app

__all__ = ["create_main_window", "ensure_app"]
