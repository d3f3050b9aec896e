"""Menu mnemonics (issue 25 item 13): in every menu of the window, no two items answer to
the same Alt+letter (the File menu had "Last Import &Report…" and "&Remove Imported
File…", so Alt+F, R picked one at random)."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QMenu
from ui_fixtures import open_seeded, win  # noqa: F401


def _mnemonic(text: str) -> str | None:
    """The letter after a single ``&`` (``&&`` is a literal ampersand), lower-cased."""
    found = re.search(r"(?<!&)&([^&])", text.replace("&&", ""))
    return found.group(1).lower() if found else None


def _menus(menu: QMenu, path: str):
    yield path, menu
    for action in menu.actions():
        if action.menu() is not None:
            yield from _menus(action.menu(), f"{path} ▸ {action.text()}")


def test_no_menu_has_two_items_on_one_mnemonic(qtbot, win):
    window = win
    bar = window.menuBar()
    tops = [a for a in bar.actions() if a.menu() is not None]
    clashes = []
    top_letters = [_mnemonic(a.text()) for a in tops]
    if len(set(top_letters)) != len(top_letters):
        clashes.append(("menu bar", top_letters))
    for top in tops:
        for path, menu in _menus(top.menu(), top.text()):
            letters: dict[str, list[str]] = {}
            for action in menu.actions():
                if action.isSeparator() or not action.isVisible():
                    continue
                letter = _mnemonic(action.text())
                if letter:
                    letters.setdefault(letter, []).append(action.text())
            clashes += [(path, texts) for texts in letters.values() if len(texts) > 1]
    assert clashes == [], "\n".join(map(str, clashes))
