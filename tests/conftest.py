"""Plain fixtures for every test (no Qt here): the real seed files and libraries built
from them, and a private folder for preferences and desktop files.

Building a library from the seeds takes well under a second, but many tests only read it,
so one is built per session and copied (library folder and all) for each test that wants
its own. ``tests/core/`` runs with Qt made unimportable (its conftest); ``tests/ui/`` has
its own Qt set-up and window fixtures (``tests/ui/conftest.py``, ``ui_fixtures.py``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Preferences and desktop files go to a private folder, never the user's: windows save
# their state when they close.
PRIVATE = tempfile.mkdtemp(prefix="paperdesk-tests-")
atexit.register(shutil.rmtree, PRIVATE, ignore_errors=True)
os.environ["XDG_CONFIG_HOME"] = os.path.join(PRIVATE, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(PRIVATE, "data")
os.environ["XDG_STATE_HOME"] = os.path.join(PRIVATE, "state")   # the error log

from paperdesk.core.library import Library  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEEDS = sorted((ROOT / "seeds").glob("*.txt"))


@pytest.fixture(scope="session")
def seed_files() -> list[Path]:
    """The two seed files, in name order."""
    assert len(SEEDS) == 2, "seeds/ must hold the two Daily Papers files"
    return SEEDS


@pytest.fixture(scope="session")
def _seeded_template(tmp_path_factory, seed_files) -> Path:
    path = tmp_path_factory.mktemp("template") / "lib"
    with Library.open(path) as lib:
        lib.imports.run(seed_files)
    return path


@pytest.fixture
def seeded_library(_seeded_template, tmp_path) -> Library:
    """A private, open library holding the 225 seed papers; closed after the test."""
    path = tmp_path / "lib"
    shutil.copytree(_seeded_template, path)
    lib = Library.open(path)
    yield lib
    lib.close()


@pytest.fixture
def empty_library(tmp_path) -> Library:
    """A private, open, empty library; closed after the test."""
    lib = Library.open(tmp_path / "empty")
    yield lib
    lib.close()
