"""The stand-alone bundle (``make bundle``), when one has been built.

Building takes about a minute, so the normal test run only smoke-tests a bundle that
``make bundle`` left in ``dist/paperdesk`` (and that is newer than the sources); it is
skipped when PyInstaller is not installed or no up-to-date bundle exists. Set
``PAPERDESK_TEST_BUNDLE=build`` to build one here first.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist" / "paperdesk"
_spec = importlib.util.spec_from_file_location("paperdesk_smoke_test",
                                               ROOT / "packaging" / "smoke_test.py")
smoke = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(smoke)
png_size, run_smoke_test = smoke.png_size, smoke.run_smoke_test


def _newest_source() -> float:
    files = [p for folder in ("src", "resources", "seeds", "packaging")
             for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return max(p.stat().st_mtime for p in files)


def test_png_size_reads_the_header(tmp_path):
    from PySide6.QtGui import QImage

    image = QImage(37, 21, QImage.Format.Format_RGB32)
    image.save(str(tmp_path / "x.png"))
    assert png_size(tmp_path / "x.png") == (37, 21)


@pytest.mark.skipif(importlib.util.find_spec("PyInstaller") is None,
                    reason="PyInstaller is not installed (make bundle installs it)")
def test_built_bundle_starts_imports_the_seeds_and_quits(tmp_path):
    if os.environ.get("PAPERDESK_TEST_BUNDLE") == "build":
        out = subprocess.run(
            [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
             "--distpath", str(tmp_path / "dist"), "--workpath", str(tmp_path / "build"),
             str(ROOT / "packaging" / "paperdesk.spec")],
            capture_output=True, text=True, timeout=1800)
        assert out.returncode == 0, out.stderr[-3000:]
        folder = tmp_path / "dist" / "paperdesk"
    else:
        program = DIST / "paperdesk"
        if not program.exists():
            pytest.skip("no bundle in dist/paperdesk (make bundle builds one)")
        if program.stat().st_mtime < _newest_source():
            pytest.skip("the bundle in dist/paperdesk is older than the sources (make bundle)")
        folder = DIST
    lines = run_smoke_test(folder)
    assert len(lines) == 3 and "status 0" in lines[0]
