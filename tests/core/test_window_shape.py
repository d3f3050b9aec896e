"""The window is composed, not inherited (issue 24, item 3): no class in ``ui/window``
has a base class defined in paperdesk (a mixin), and no code there reaches into another
object's private attributes (``other._x``; only ``self._x`` and ``cls._x``).

Read from the source with :mod:`ast` (no Qt needed, so it runs with the core tests)."""

from __future__ import annotations

import ast
from pathlib import Path

WINDOW = Path(__file__).resolve().parents[2] / "src" / "paperdesk" / "ui" / "window"
PAPERDESK = WINDOW.parents[1]


def _paperdesk_class_names() -> set[str]:
    """Names of every class defined anywhere in the paperdesk package."""
    names = set()
    for path in PAPERDESK.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names.update(n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef))
    return names


def mixin_bases(source: str, ours: set[str]) -> list[str]:
    """``"Class(Base)"`` for each base class of a class in ``source`` whose name is one
    of ``ours`` (classes defined in paperdesk)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = ast.unparse(base).rpartition(".")[2]
                if name in ours:
                    found.append(f"{node.name}({name})")
    return found


def private_reaches(source: str) -> list[str]:
    """``"line: expression"`` for each ``x._name`` in ``source`` where ``x`` is not
    ``self`` or ``cls`` (dunder names such as ``__class__`` are allowed)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"})):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_class_in_the_window_package_has_a_mixin_base():
    ours = _paperdesk_class_names()
    offenders = {path.name: bases for path in sorted(WINDOW.glob("*.py"))
                 if (bases := mixin_bases(path.read_text(encoding="utf-8"), ours))}
    assert offenders == {}


def test_no_code_in_the_window_package_reaches_into_private_attributes():
    offenders = {path.name: reaches for path in sorted(WINDOW.glob("*.py"))
                 if (reaches := private_reaches(path.read_text(encoding="utf-8")))}
    assert offenders == {}


def test_the_checks_see_a_mixin_and_a_private_reach():
    source = ("class Mine(TriageMixin, QMainWindow):\n"
              "    def f(self):\n"
              "        return self.window._results, self._ok, cls._ok, self.__class__\n")
    assert mixin_bases(source, {"TriageMixin"}) == ["Mine(TriageMixin)"]
    assert private_reaches(source) == ["3: self.window._results"]
