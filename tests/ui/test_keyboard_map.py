"""The keyboard map in docs/keyboard.md is the one the window has (issue 13: "the keyboard
map in the README and in the shortcuts window updated"; issue 24 moved it from the README
to docs/keyboard.md): every shortcut of the actions table appears in the Keyboard table,
and every row of the shortcuts window has a key."""

from __future__ import annotations

import re
from pathlib import Path

from paperdesk.ui.window.actions import ACTIONS, shortcut_rows

KEYBOARD_MD = Path(__file__).resolve().parents[2] / "docs" / "keyboard.md"


def _keyboard_table() -> str:
    text = KEYBOARD_MD.read_text(encoding="utf-8")
    start = text.index("# Keyboard")
    end = text.find("\n#", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _cells(table: str) -> list[str]:
    return [line.split("|")[1] for line in table.splitlines() if line.startswith("| ")]


def test_every_shortcut_is_in_the_keyboard_table():
    keys = " / ".join(_cells(_keyboard_table()))
    missing = []
    for spec in ACTIONS:
        for key in spec.shortcuts:
            if re.fullmatch(r"[1-9]", key):      # the tag keys: one row "1 … 9"
                continue
            shown = f"`{key}`" if len(key) == 1 else key
            if not re.search(re.escape(shown) + r"(?![\w+=-])", keys):
                missing.append((spec.name, key))
    assert not missing, missing
    assert "`1` … `9`" in keys


def test_shortcuts_window_rows_have_keys_and_text():
    rows = shortcut_rows()
    assert all(keys.strip() and what.strip() for keys, what in rows)
    described = " ".join(keys for keys, _ in rows)
    for needed in ("F7", "Ctrl+Shift+T", "Ctrl+E", "Page Down"):
        assert needed in described, needed
