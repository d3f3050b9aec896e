"""What opening the window costs on the UI thread: the ids of the list are read from
SQLite once (the header's sort as the table is built only records the order), and a
library that closed cleanly is not read whole by ``PRAGMA quick_check`` again."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from paperdesk.core import check as _check  # noqa: E402
from paperdesk.core.library import Library  # noqa: E402
from paperdesk.core.papers import Papers  # noqa: E402
from ui_fixtures import TOTAL, WAIT_MS, make_settings  # noqa: E402


def test_opening_reads_the_list_once_and_skips_the_quick_check_after_a_clean_close(
        qtbot, tmp_path, seed_files, monkeypatch):
    from paperdesk.ui import create_main_window

    with Library.open(tmp_path / "lib") as lib:
        lib.imports.run(seed_files)
    listed, checked = [], []
    real_ids, real_check = Papers.scope_ids, _check.database_problem
    monkeypatch.setattr(Papers, "scope_ids",
                        lambda self, *a, **k: listed.append(1) or real_ids(self, *a, **k))
    monkeypatch.setattr(_check, "database_problem",
                        lambda *a: checked.append(1) or real_check(*a))
    window = create_main_window(tmp_path / "lib", import_seeds=False,
                                settings=make_settings(tmp_path / "s.ini"))
    try:
        window.show()
        qtbot.waitUntil(lambda: window.model.rowCount() == TOTAL, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not window.is_busy(), timeout=WAIT_MS)
        assert listed == [1]
        assert checked == []
    finally:
        window.close()
        window.shutdown()
