"""The paperdesk desktop window (PySide6). All Qt code of paperdesk lives in this package.

Modules: ``startup`` (QApplication + window factory), ``app`` (``run``: the event loop and
error dialogs), ``main_window``, ``paper_model``, ``detail_pane``, ``tag_pane``,
``workers`` (search and import threads), ``paper_html`` (escaped detail HTML),
``dialogs``, ``formatting`` and ``screenshot``.
"""

from .startup import create_main_window, ensure_app

__all__ = ["create_main_window", "ensure_app"]
