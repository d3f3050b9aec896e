"""A folder import in the window with a file whose name is not UTF-8 and a file that is
not text: every readable file is imported, and the message names the file refused
(issue 11, point 7)."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from ui_fixtures import TOTAL, WAIT_MS, open_seeded  # noqa: E402,F401


@pytest.mark.skipif(sys.platform in ("win32", "darwin"),
                    reason="the file system must take any bytes in names")
def test_folder_with_a_name_that_is_not_utf8(qtbot, open_seeded, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    with open(os.fsencode(str(folder)) + b"/bad\xff.txt", "w", encoding="utf-8") as fh:
        fh.write("Daily Papers\n\nAn abstract in a file whose name is not UTF-8.\n")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02")
    (folder / "zz.txt").write_text("Daily Papers\n\nThe abstract of the last file.\n",
                                   encoding="utf-8")
    window = open_seeded()
    assert window.start_import([folder])
    qtbot.waitUntil(lambda: window.import_message is not None, timeout=WAIT_MS)
    box = window.import_message
    assert "binary.txt" in box.text() and "NUL" in box.text()
    # The report lists every file; the one whose name is not UTF-8 was imported (its name
    # shown with the byte escaped), only binary.txt was refused.
    lines = box.text().splitlines()
    bad = [line for line in lines if line.startswith("bad")]
    assert bad and "1 added" in bad[0] and "rejected" not in bad[0]
    zz = [line for line in lines if line.startswith("zz.txt")]
    assert zz and "1 added" in zz[0] and zz[0].endswith("ok")
    qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
    assert window.model.rowCount() == TOTAL + 2
    names = {s.name for s in window.lib.removal.sources()}
    assert {"bad\\xff.txt", "zz.txt"} <= names
    box.close()
