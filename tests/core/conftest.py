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


# -- a library to cite from (tests of what other programs read in the exports) ---------
import pytest  # noqa: E402

#: Export file name of each format in the ``cited_exports`` folder.
CITED_FILES = {"bibtex": "cited.bib", "ris": "cited.ris", "csl-json": "cited.json",
               "json": "cited.paperdesk.json", "csv": "cited.csv"}


@pytest.fixture(scope="session")
def cited_library(tmp_path_factory, seed_files):
    """One open library for the whole session (tests only read it): the seed papers,
    metadata on a few of them and hostile text (``tests/core/cited.py``)."""
    from cited import build

    lib = build(tmp_path_factory.mktemp("cited"), seed_files)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def cited_exports(cited_library, tmp_path_factory):
    """The whole ``cited_library`` exported once in every format: format -> file."""
    folder = tmp_path_factory.mktemp("cited-exports")
    files = {}
    for fmt, name in CITED_FILES.items():
        files[fmt] = folder / name
        cited_library.exports.to_file(cited_library.papers.ids(), fmt, files[fmt])
    return files
