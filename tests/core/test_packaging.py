"""The seeds ship with paperdesk: found in a checkout and packed into the wheel."""

import subprocess
import sys
import zipfile
from pathlib import Path

from paperdesk.core.paths import bundled_seeds, default_library_path

ROOT = Path(__file__).resolve().parents[2]


def test_bundled_seeds_found_in_checkout(seed_files):
    assert [p.name for p in bundled_seeds()] == [p.name for p in seed_files]


def test_default_library_path_env_override(monkeypatch, tmp_path):
    monkeypatch.setenv("PAPERDESK_LIBRARY", str(tmp_path / "x"))
    assert default_library_path() == tmp_path / "x"
    monkeypatch.setenv("PAPERDESK_LIBRARY", "")
    assert default_library_path().name == "paperdesk"


def test_wheel_contains_seeds_and_resources(tmp_path, seed_files):
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    (wheel,) = tmp_path.glob("paperdesk-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for seed in seed_files:
        assert f"paperdesk/seeds/{seed.name}" in names
        data = zipfile.ZipFile(wheel).read(f"paperdesk/seeds/{seed.name}")
        assert data == seed.read_bytes()
    assert "paperdesk/core/library.py" in names


def test_icon_resource_found():
    from paperdesk.core.paths import resource_path

    icon = resource_path("paperdesk.svg")
    assert icon is not None and icon.read_text().lstrip().startswith("<?xml")
    assert resource_path("no-such-file.png") is None
