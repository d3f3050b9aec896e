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
