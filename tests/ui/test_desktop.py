"""The launcher: a valid desktop file, icons, install and uninstall for one user."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core import desktop
from paperdesk.core.paths import resource_path

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(sys.platform in ("win32", "darwin"),
                                reason="freedesktop launchers are for Linux and BSD")


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (desktop-file-utils)")
def test_desktop_files_validate(tmp_path):
    for text in (resource_path("paperdesk.desktop").read_text(),
                 desktop.desktop_entry(["/opt/my apps/paper desk/paperdesk", "--library",
                                        "/home/me/100% papers"])):
        path = tmp_path / "paperdesk.desktop"
        path.write_text(text)
        out = subprocess.run(["desktop-file-validate", str(path)], capture_output=True,
                             text=True)
        assert out.returncode == 0 and out.stdout == "", out.stdout + out.stderr


def test_every_icon_size_is_shipped():
    from PySide6.QtGui import QImage

    svg = resource_path("paperdesk.svg")
    assert svg is not None and "<svg" in svg.read_text()
    for size in desktop.ICON_SIZES:
        png = resource_path(str(desktop.icon_png_path(Path("."), size)))
        assert png is not None, size
        image = QImage(str(png))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
    assert min(desktop.ICON_SIZES) == 16 and max(desktop.ICON_SIZES) == 512


def test_exec_line_quotes_spaces_and_percent():
    text = desktop.desktop_entry(["/opt/my apps/paperdesk", "100%"])
    assert 'Exec="/opt/my apps/paperdesk" "100%%"' in text
    assert "TryExec=/opt/my apps/paperdesk" in text
    assert text.count("Exec=") == 2 and "Icon=paperdesk" in text


def test_install_and_uninstall_in_a_temporary_home(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert main(["install-desktop"]) == 0
    share = home / ".local" / "share"
    launcher = share / "applications" / "paperdesk.desktop"
    assert launcher.is_file()
    text = launcher.read_text()
    command = desktop.launcher_command()
    assert command[0] in text and Path(command[0]).exists()
    for size in desktop.ICON_SIZES:
        assert (share / f"icons/hicolor/{size}x{size}/apps/paperdesk.png").is_file()
    assert (share / "icons/hicolor/scalable/apps/paperdesk.svg").is_file()
    assert "installed the launcher" in capsys.readouterr().out
    # again: replaced, not duplicated
    assert main(["install-desktop", "--exec", str(tmp_path / "bundle" / "paperdesk")]) == 0
    assert f"Exec={tmp_path / 'bundle' / 'paperdesk'}" in launcher.read_text()
    assert main(["uninstall-desktop"]) == 0
    assert f"removed {len(desktop.installed_files())} file(s)" in capsys.readouterr().out
    left = [p for p in share.rglob("*") if p.is_file() and "paperdesk" in p.name]
    assert left == []
    assert main(["uninstall-desktop"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_install_honours_xdg_data_home_and_keeps_a_foreign_launcher(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    files = desktop.install(refresh=False)
    assert files[0] == tmp_path / "data" / "applications" / "paperdesk.desktop"
    files[0].write_text("[Desktop Entry]\nType=Application\nName=mine\nExec=mine\n")
    removed = desktop.uninstall(refresh=False)
    assert files[0] not in removed and files[0].is_file()    # not ours: kept
    assert all(not p.exists() for p in files[1:])


def test_make_install_desktop_targets(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
           "PAPERDESK": f"{sys.executable} -m paperdesk"}
    out = subprocess.run(["make", "-s", "-C", str(ROOT), "install-desktop"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (tmp_path / "data" / "applications" / "paperdesk.desktop").is_file()
    out = subprocess.run(["make", "-s", "-C", str(ROOT), "uninstall-desktop"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert not (tmp_path / "data" / "applications" / "paperdesk.desktop").exists()


def test_the_launcher_opens_files_of_the_types_paperdesk_imports():
    text = desktop.desktop_entry(["/opt/paperdesk/paperdesk"])
    entries = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert entries["Exec"] == "/opt/paperdesk/paperdesk %F"    # "Open with" passes files
    assert entries["TryExec"] == "/opt/paperdesk/paperdesk"
    types = set(filter(None, entries["MimeType"].split(";")))
    assert {"text/plain", "text/x-bibtex", "application/x-research-info-systems",
            "application/vnd.citationstyles.csl+json", "application/json",
            "application/x-ndjson"} <= types
    template = resource_path("paperdesk.desktop").read_text()
    assert "Exec=paperdesk-gui %F\n" in template and "TryExec=paperdesk-gui\n" in template
