"""Qt set-up for the GUI tests: no display (offscreen) and preferences (QSettings) in
the private folder the top-level conftest made. Window fixtures: ``ui_fixtures.py``."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402

QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                  os.environ["XDG_CONFIG_HOME"])
