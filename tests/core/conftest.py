"""The core's tests run with Qt unavailable: importing PySide6 (or any Qt binding) raises
ImportError here, so a core module that needs Qt fails its tests instead of passing on a
developer's machine. ``make test`` runs this folder in its own pytest process without
pytest-qt; when the whole tree runs in one process (Qt already loaded by pytest-qt),
``test_architecture.py`` still checks that no core module imports Qt."""

from __future__ import annotations

import importlib.abc
import sys

QT_BINDINGS = {"PySide6", "shiboken6", "PyQt5", "PyQt6", "PySide2"}


class _NoQt(importlib.abc.MetaPathFinder):
    """Refuses to import Qt bindings."""

    def find_spec(self, name, path=None, target=None):  # noqa: D401 - importlib API
        if name.split(".")[0] in QT_BINDINGS:
            raise ImportError(f"{name}: Qt is not available to the core's tests")
        return None


if not QT_BINDINGS & set(sys.modules):
    sys.meta_path.insert(0, _NoQt())
