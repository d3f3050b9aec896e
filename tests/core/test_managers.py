"""Library is a small facade over managers, with no mixins (issue 24, item 2), and no
call site uses an old Library method (tools/library_api_rename.py changes nothing)."""

import importlib.util
import sys
from pathlib import Path

from paperdesk.core.library import Library
from paperdesk.core.manager import Manager

ROOT = Path(__file__).resolve().parents[2]


def _rename_tool():
    spec = importlib.util.spec_from_file_location(
        "library_api_rename", ROOT / "tools" / "library_api_rename.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_library_has_no_mixins_and_none_of_the_old_methods():
    assert Library.__bases__ == (object,)
    old = set(_rename_tool().CALLS) - {"_record", "_changed"}
    assert sorted(name for name in old if hasattr(Library, name)) == []


def test_every_manager_is_built_and_belongs_to_its_library(seeded_library):
    lib = seeded_library
    managers = {name: getattr(lib, name) for name in (
        "papers", "tags", "notes", "search", "imports", "index", "removal",
        "saved_searches", "exports", "duplicates")}
    assert all(isinstance(m, Manager) and m._lib is lib for m in managers.values())
    assert lib.papers.count() == 225 == lib.index.status().papers
    assert lib.index.whoosh.doc_count() == 225


def test_the_rewrite_turns_old_calls_into_manager_calls_and_is_idempotent():
    tool = _rename_tool()
    data = Path(__file__).parent / "data" / "library_api_rename"   # not .py: not rewritten
    before = (data / "before.txt").read_text(encoding="utf-8")
    once = tool.rewrite(before, public_only=False)
    assert once == (data / "after.txt").read_text(encoding="utf-8")
    assert tool.rewrite(once, public_only=False) == once


def test_the_rewrite_moves_private_core_imports_to_the_public_api():
    tool = _rename_tool()
    text = ("from paperdesk.core.search.index import MatchTerms\n"
            "def f():\n    from paperdesk.core.store.lock import (LibraryLock,\n"
            "                                          LockHeld)\n")
    once = tool.rewrite(text, public_only=True)
    assert once == ("from paperdesk.core.api import MatchTerms\n"
                    "def f():\n    from paperdesk.core.api import (LibraryLock,\n"
                    "                                          LockHeld)\n")
    assert tool.rewrite(once, public_only=True) == once
    assert tool.rewrite(text, public_only=False) == text      # tests keep theirs


def test_no_call_site_is_left_for_the_rewrite():
    tool = _rename_tool()
    files = [ROOT / "src" / "paperdesk" / "cli.py",
             *(ROOT / "src" / "paperdesk" / "ui").rglob("*.py"),
             *(ROOT / "src" / "paperdesk" / "core").rglob("*.py"),
             *(ROOT / "tests").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")]
    left = [str(path.relative_to(ROOT)) for path in files
            if path.name != "test_managers.py"
            and tool.rewrite(text := path.read_text(encoding="utf-8"),
                             tool._public_only(path)) != text]
    assert left == []
