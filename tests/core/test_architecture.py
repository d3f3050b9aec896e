"""The core must stay free of Qt so that the CLI and tests can use it without a display."""

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "src" / "paperdesk" / "core"


def test_core_sources_do_not_import_qt():
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names
                          if n.split(".")[0] in {"PySide6", "PyQt5", "PyQt6", "shiboken6"}]
    assert offenders == []


def test_cli_commands_do_not_load_qt(tmp_path):
    code = ("import sys; from paperdesk.cli import main; "
            f"main(['--library', r'{tmp_path / 'lib'}', 'stats']); "
            "print(any(m.startswith('PySide6') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("False")


def test_qt_cannot_be_imported_in_core_tests():
    """When run alone (``make test`` does), this folder really has no Qt."""
    import pytest

    if not any(type(f).__name__ == "_NoQt" for f in sys.meta_path):
        pytest.skip("Qt was loaded before the core tests (whole tree in one process)")
    with pytest.raises(ImportError, match="not available"):
        import PySide6.QtCore  # noqa: F401
