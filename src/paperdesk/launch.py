"""The programs' entry points (``[project.scripts]`` and ``[project.gui-scripts]`` in
``pyproject.toml``, and ``python -m paperdesk``).

They import :mod:`paperdesk.cli` only when called, inside a ``try``: a Ctrl+C while
Python loads paperdesk's modules (the first second of a command, before
:func:`paperdesk.cli.main` can catch it) ends as a Ctrl+C later does, with
``paperdesk: interrupted`` on standard error and exit status 130 (128 + SIGINT), not
with a traceback. This module imports nothing of paperdesk's at its top.
"""

from __future__ import annotations

import sys

#: The exit status of a command stopped by Ctrl+C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


def _interrupted() -> int:
    try:
        print("paperdesk: interrupted", file=sys.stderr)
    except (OSError, ValueError):       # no standard error to write to
        pass
    return INTERRUPTED


def _run(entry: str) -> int:
    """Call ``paperdesk.cli.<entry>()``, importing it here; a Ctrl+C before it can
    catch one gives :data:`INTERRUPTED`."""
    try:
        from paperdesk import cli

        return getattr(cli, entry)()
    except KeyboardInterrupt:
        return _interrupted()


def main() -> int:
    """Entry point of the ``paperdesk`` command: :func:`paperdesk.cli.main` with
    ``sys.argv``.

    Returns:
        The exit status (130 when Ctrl+C came while the modules were loading).
    """
    return _run("main")


def gui_main() -> int:
    """Entry point of the ``paperdesk-gui`` launcher: :func:`paperdesk.cli.gui_main`.

    Returns:
        The exit status (130 when Ctrl+C came while the modules were loading).
    """
    return _run("gui_main")
