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


# -- no import cycles (issue 24, item 5) ------------------------------------------------

SRC = CORE.parents[1]


def _imported_modules(path: Path, module: str, known: set[str]) -> set[str]:
    """The ``paperdesk`` modules ``module`` (the file ``path``) imports: at module level
    and inside functions (a deferred import is a dependency too), but not in an
    ``if TYPE_CHECKING:`` block (never run: annotations only). ``from a import b``
    counts as importing ``a.b`` when that is a module, else ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                 and "TYPE_CHECKING" in ast.unparse(node.test)
                 for stmt in node.body for n in ast.walk(stmt)}
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package[:len(package) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    """``{module: modules it imports}`` over every module of ``src/paperdesk``."""
    files = {}
    for path in (SRC / "paperdesk").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    known = set(files)
    return {m: _imported_modules(p, m, known) for m, p in files.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (the
    strongly connected components of more than one module, Tarjan's algorithm), each
    sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_cycle_finder_finds_a_cycle_through_three_modules():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert import_cycles(graph) == [["a", "b", "c"]]


def test_the_import_graph_sees_deferred_imports_and_not_type_only_ones():
    graph = import_graph()
    # a deferred import (inside a function) counts:
    assert "paperdesk.core.search.segment_writer" in graph["paperdesk.core.search.writer_process"]
    # an import under "if TYPE_CHECKING:" does not:
    assert "paperdesk.core.library" not in graph["paperdesk.core.overview"]


def test_no_module_of_paperdesk_imports_itself_through_others():
    assert import_cycles(import_graph()) == []


# -- ui/ and cli.py use the core's public API only (issue 24, item 5) --------------------

#: The core's private subpackages: only the core imports them; ``ui/`` and ``cli.py`` use
#: ``paperdesk.core``, its top-level modules and ``paperdesk.core.api``.
PRIVATE_CORE = ("search", "store", "edits", "imports", "exports", "discover")


def private_core_imports(path: Path) -> list[str]:
    """``"<file>:<line>: <module>"`` for each import in ``path`` of a private core module
    (at module level or inside a function; ``from paperdesk.core import search`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = ([f"{node.module}.{a.name}" for a in node.names]
                     if node.module == "paperdesk.core" else [node.module])
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["paperdesk", "core"] and len(parts) > 2 \
                    and parts[2] in PRIVATE_CORE:
                found.append(f"{path}:{node.lineno}: {name}")
    return found


def _ui_and_cli() -> list[Path]:
    return sorted((SRC / "paperdesk" / "ui").rglob("*.py")) + [SRC / "paperdesk" / "cli.py"]


def test_ui_and_cli_import_no_private_core_module():
    assert [hit for path in _ui_and_cli() for hit in private_core_imports(path)] == []


def test_the_layer_check_fails_on_a_private_import_added_to_a_ui_file(tmp_path):
    pane = SRC / "paperdesk" / "ui" / "panes" / "detail_pane.py"
    text = pane.read_text(encoding="utf-8")
    assert private_core_imports(pane) == []
    at_top = tmp_path / "at_top.py"
    at_top.write_text("from paperdesk.core.search.index import SearchIndex\n" + text,
                      encoding="utf-8")
    assert private_core_imports(at_top) == [f"{at_top}:1: paperdesk.core.search.index"]
    deferred = tmp_path / "deferred.py"
    deferred.write_text(text + "\n\ndef _peek():\n    import paperdesk.core.store.db\n"
                        "    from paperdesk.core import edits\n", encoding="utf-8")
    lines = text.count("\n") + 3
    assert private_core_imports(deferred) == [
        f"{deferred}:{lines + 1}: paperdesk.core.store.db",
        f"{deferred}:{lines + 2}: paperdesk.core.edits"]


def test_every_public_api_name_resolves_and_others_are_refused():
    import pytest

    from paperdesk.core import api

    assert api.__all__ and all(getattr(api, name) is not None for name in api.__all__)
    with pytest.raises(ImportError):
        exec("from paperdesk.core.api import SearchIndex", {})


def test_ui_and_cli_ask_the_index_manager_not_the_whoosh_index():
    """``lib.index`` answers what the window and the commands ask of the search index
    (``damage``, ``use_writer_process``); its Whoosh index (``lib.index.whoosh``) is the
    core's."""
    reaching = [f"{path}:{n}" for path in _ui_and_cli()
                for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                if ".whoosh." in line]
    assert reaching == []
