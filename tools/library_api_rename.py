"""Rewrite call sites of the old ``Library`` methods to its managers, and imports of the
core's private modules in ``ui/`` and ``cli.py`` to the public API (issue 24, items 2
and 5).

Usage: ``python tools/library_api_rename.py FILE...``: rewrites the given Python files in
place and prints the names of those it changed. Idempotent: a second run over its own
output changes nothing (a rewritten call's receiver is a manager, which no rule matches).

What it rewrites:

* ``<library>.<old>(`` to ``<library>.<manager>.<new>(`` (:data:`CALLS`), for example
  a call of ``add_tag(...)`` on a library becomes ``tags.add(...)`` on it, where ``<library>`` is clearly a Library:
  ``lib``, ``library``, ``_lib``, ``_library`` (also after an attribute path, such as
  ``self._lib`` or ``window.lib``), the test fixtures ``seeded_library``,
  ``empty_library`` and ``cited_library``, and names the same file binds to
  ``Library.open(...)`` or ``Library(...)`` (``x = Library.open(p)``, ``with
  Library.open(p) as x``). Generic names (``get``, ``find``, ``count``, ``note``,
  ``tags`` ...) are only rewritten on such receivers.
* the same methods passed on or patched: ``map(lib.get, ids)``,
  ``monkeypatch.setattr(lib, "find", spy)`` (on ``lib.search``, as ``"find"``);
* but not where the receiver is a function's parameter annotated as another type
  (``def fewer_than(backup: dict, library: dict)``: ``library.get(...)`` is a dict's);
* the attributes of :data:`ATTRIBUTES` (``index_repair`` becomes ``index.repair``) and
  the Whoosh index's members reached through the library's ``index`` (``doc_count``
  becomes ``whoosh.doc_count``, :data:`WHOOSH_MEMBERS`), and the library's ``index``
  passed on or patched as the Whoosh index it was (in ``ui/`` and ``cli.py``,
  :data:`INDEX_MEMBERS` stay on ``lib.index``, which answers them);
* ``monkeypatch.setattr(library_module, "NAME", ...)`` of a constant or helper that
  left ``library.py`` (:data:`MOVED_NAMES`) to the dotted path of its new module, and
  the import of ``paperdesk.core.library as library_module`` once nothing uses it;
* mentions in prose, ``Library.import_paths`` or
  ``paperdesk.core.library.Library.sync_index``, to ``lib.imports.run``,
  ``lib.index.sync``;
* in ``src/paperdesk/ui/**`` and ``src/paperdesk/cli.py`` only: ``from
  paperdesk.core.<private module> import ...`` (at any indentation: imports inside
  functions too) to ``from paperdesk.core.api import ...`` (the private subpackages are
  :data:`PRIVATE_PACKAGES`; :mod:`paperdesk.core.api` re-exports what the UI and CLI
  use).
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
from pathlib import Path

#: Old ``Library`` method -> ``manager.method`` (issue 24, item 2).
CALLS = {
    # papers
    "count": "papers.count",
    "paper_ids": "papers.ids",
    "scope_ids": "papers.scope_ids",
    "scope_count": "papers.scope_count",
    "summaries": "papers.summaries",
    "first_unread": "papers.first_unread",
    "abstracts": "papers.abstracts",
    "get": "papers.get",
    "stats": "papers.stats",
    "set_read": "papers.set_read",
    "set_starred": "papers.set_starred",
    "set_title": "papers.set_title",
    "filter_counts": "papers.filter_counts",
    "metadata": "papers.metadata",
    "set_metadata": "papers.set_metadata",
    "citation_key": "papers.citation_key",
    "set_citation_key": "papers.set_citation_key",
    "proposed_citation_key": "papers.proposed_citation_key",
    "regenerate_citation_key": "papers.regenerate_citation_key",
    "paper_for_key": "papers.for_key",
    "_existing_ids": "papers.existing_ids",
    # the library's own (the undo stack and the change notice), now public names
    "_record": "record",
    "_changed": "after_change",
    # tags
    "tags": "tags.all",
    "tag_by_name": "tags.by_name",
    "tag_for_key": "tags.for_key",
    "ensure_tag": "tags.ensure",
    "create_tag": "tags.create",
    "add_tag": "tags.add",
    "remove_tag": "tags.remove",
    "tag_states": "tags.states",
    "rename_tag": "tags.rename",
    "is_merge": "tags.is_merge",
    "merge_tags": "tags.merge",
    "delete_tag": "tags.delete",
    "set_tag_colour": "tags.set_colour",
    "set_tag_key": "tags.set_key",
    # notes and highlights
    "note": "notes.get",
    "set_note": "notes.set",
    "highlights": "notes.highlights",
    "highlight": "notes.highlight",
    "highlight_at": "notes.highlight_at",
    "add_highlight": "notes.add_highlight",
    "remove_highlight": "notes.remove_highlight",
    "set_highlight_comment": "notes.set_highlight_comment",
    # search
    "find": "search.find",
    "search": "search.hits",
    "snippets": "search.snippets",
    "match_terms": "search.match_terms",
    "suggest": "search.suggest",
    "_index_damaged": "search.index_damaged",
    # import
    "import_paths": "imports.run",
    "_source_id": "imports.source_id",
    # the search index's upkeep
    "sync_index": "index.sync",
    "reindex": "index.reindex",
    "index_status": "index.status",
    "_enqueue": "index.enqueue",
    "_queue_size": "index.queue_size",
    "_queue_all": "index.queue_all",
    "_documents": "index.documents",
    # sources and removal
    "sources": "removal.sources",
    "source": "removal.source",
    "find_source": "removal.find_source",
    "source_removal": "removal.plan",
    "removal_counts": "removal.counts",
    "delete_papers": "removal.delete_papers",
    "remove_source": "removal.remove_source",
    "_snapshot_papers": "removal.snapshot_papers",
    "_delete_rows": "removal.delete_rows",
    # saved searches
    "saved_searches": "saved_searches.all",
    "saved_search": "saved_searches.get",
    "save_search": "saved_searches.save",
    "rename_saved_search": "saved_searches.rename",
    "delete_saved_search": "saved_searches.delete",
    # exports
    "export_scope": "exports.scope_ids",
    "export_text": "exports.text",
    "export_to_file": "exports.to_file",
    # near duplicates
    "near_duplicates_pending": "duplicates.pending",
    "find_near_duplicates": "duplicates.find",
    "near_duplicates": "duplicates.pairs",
    "near_duplicate_count": "duplicates.count",
    "dismiss_duplicate": "duplicates.dismiss",
    "merge_preview": "duplicates.merge_preview",
    "merge_papers": "duplicates.merge",
}

#: The managers whose names were also names of old methods (``lib.tags()``).
_MANAGERS = {"tags", "search", "saved_searches"}

#: Old ``Library`` attribute -> its place on a manager (read or assigned).
ATTRIBUTES = {
    "index_problem": "index.problem",
    "index_repair": "index.repair",
    "_stand_in": "index.stand_in",
}

#: Members of :class:`paperdesk.core.search.index.SearchIndex` reached as
#: ``lib.index.<member>``: now ``lib.index.whoosh.<member>`` (``lib.index`` is the
#: index manager).
WHOOSH_MEMBERS = (
    "_builder", "_builders", "_bulk", "_damaged", "_fast", "_fast_cache", "_fast_view",
    "_ix", "_lock", "_query", "_refresh", "_searcher", "_suggest", "_view", "_write_lock",
    "close", "damage", "doc_count", "drop_caches", "full_problems", "indexed_ids",
    "keeps_checksums", "last_path", "match_terms", "path", "plan", "quick_problems",
    "recreate", "search", "search_arrays", "segment_sizes", "suggest",
    "use_writer_process", "write",
)

#: Of those, what ``lib.index`` (the index manager) answers itself: ``ui/`` and
#: ``cli.py`` ask it rather than reach into the Whoosh index.
INDEX_MEMBERS = ("damage", "use_writer_process")

#: Names tests patch on ``paperdesk.core.library`` that moved: name -> module.
MOVED_NAMES = {
    "IMPORT_BATCH": "paperdesk.core.imports.pipeline",
    "RECORD_IMPORT_BATCH": "paperdesk.core.imports.pipeline",
    "EXPORT_IMPORT_BATCH": "paperdesk.core.imports.pipeline",
    "BATCH_SECONDS": "paperdesk.core.imports.pipeline",
    "STORE_CHUNK": "paperdesk.core.imports.pipeline",
    "content_hash": "paperdesk.core.imports.pipeline",
    "detect_file": "paperdesk.core.imports.pipeline",
    "Identifiers": "paperdesk.core.imports.pipeline",
    "INDEX_BATCH": "paperdesk.core.search.sync",
    "HOOK_INTERVAL_S": "paperdesk.core.manager",
    "cut_snippet": "paperdesk.core.search.library_search",
}

#: The core's private subpackages: only the core itself imports them.
PRIVATE_PACKAGES = ("search", "store", "edits", "imports", "exports", "discover")

_RECEIVER = (r"(?<![\w.])((?:[A-Za-z_]\w*\.)*_?(?:lib|library)"
             r"|seeded_library|empty_library|cited_library{bound})")
_BOUND = [re.compile(r"(\w+)\s*=\s*Library(?:\.open)?\("),
          re.compile(r"Library(?:\.open)?\([^\n]*\)\s+as\s+(\w+)")]
_LIBRARY_MODULE = re.compile(
    r"^[ \t]*(?:from paperdesk\.core import library as library_module"
    r"|import paperdesk\.core\.library as library_module)[^\n]*\n", re.M)
_PROSE = re.compile(r"(?<![\w.])(~?(?:paperdesk\.core\.library\.)?)Library\.(%s)\b(?!\s*=)"
                   % "|".join(sorted((n for n in CALLS if not n.startswith("_")), key=len,
                                     reverse=True)))
#: Annotations that say a name is not a Library.
_OTHER_TYPES = {"dict", "Mapping", "list", "set", "str", "int", "Path", "bytes", "float"}


def _not_libraries(text: str) -> list[tuple[str, int, int]]:
    """``(name, first line, last line)`` of each function parameter annotated as another
    type (``def f(library: dict[str, int])``: ``library.get(...)`` there is a dict's);
    none when ``text`` is not Python the parser reads."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.annotation is None:
                    continue
                root = arg.annotation
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Constant) and isinstance(root.value, str):
                    kind = re.match(r"\w*", root.value).group(0)
                else:
                    kind = getattr(root, "id", "")
                if kind in _OTHER_TYPES:
                    found.append((arg.arg, node.lineno, node.end_lineno))
    return found


_PRIVATE_IMPORT = re.compile(
    r"^(\s*from\s+)paperdesk\.core\.(?:%s)(?:\.\w+)*(\s+import\b)" % "|".join(PRIVATE_PACKAGES),
    re.M)
_MONKEYPATCH = re.compile(
    r"monkeypatch\.setattr\(\s*library_module\s*,\s*\"(%s)\"" % "|".join(MOVED_NAMES))


def _receiver(text: str) -> str:
    """The receiver pattern for ``text``: the fixed names plus those it binds to a
    Library."""
    bound = sorted({m.group(1) for rx in _BOUND for m in rx.finditer(text)}
                   - {"lib", "library"})
    extra = "".join(f"|{re.escape(name)}" for name in bound)
    return _RECEIVER.format(bound=extra)


def rewrite(text: str, public_only: bool) -> str:
    """``text`` (a Python file) with the rules of this module applied.

    Args:
        text: the file's text.
        public_only: also rewrite imports of private core modules (ui/ and cli.py).
    Returns:
        The new text (the same when nothing matched).
    """
    recv = _receiver(text)
    others = _not_libraries(text)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def other(m, group: int = 1) -> bool:
        """Whether the receiver of match ``m`` is, where it stands, annotated as another
        type (rules replace within a line, so line numbers stay valid)."""
        line = bisect.bisect_right(starts, m.start(group))
        return any(name == m.group(group) and first <= line <= last
                   for name, first, last in others)

    def renamed(new: str):
        return lambda m: m.group(0) if other(m) else new.format(*m.groups())

    calls = re.compile(recv + r"\.(%s)\(" % "|".join(sorted(CALLS, key=len, reverse=True)))
    text = calls.sub(lambda m: renamed("{0}." + CALLS[m.group(2)] + "(")(m), text)
    # A bound method passed on (``map(lib.get, ids)``, ``real = lib.find``), unless its
    # old name is now a manager's (``tags``, ``search``, ``saved_searches``).
    passed = [name for name in CALLS if name not in _MANAGERS]
    refs = re.compile(recv + r"\.(%s)(?![\w(.])(?!\s*=[^=])" % "|".join(
        sorted(passed, key=len, reverse=True)))
    text = refs.sub(lambda m: renamed("{0}." + CALLS[m.group(2)])(m), text)
    # A patched method: ``monkeypatch.setattr(lib, "find", spy)``.
    patched = re.compile(r"(setattr\(\s*)" + recv + r"(\s*,\s*)\"(%s)\"" % "|".join(CALLS))

    def patch(m) -> str:
        if other(m, 2):
            return m.group(0)
        owner, _, name = CALLS[m.group(4)].rpartition(".")
        return f'{m.group(1)}{m.group(2)}{"." + owner if owner else ""}{m.group(3)}"{name}"'

    text = patched.sub(patch, text)
    attrs = re.compile(recv + r"\.(%s)\b" % "|".join(ATTRIBUTES))
    text = attrs.sub(lambda m: renamed("{0}." + ATTRIBUTES[m.group(2)])(m), text)
    # ui/ and cli.py ask the index manager what it answers itself (INDEX_MEMBERS).
    members = [m for m in WHOOSH_MEMBERS if not (public_only and m in INDEX_MEMBERS)]
    whoosh = re.compile(recv + r"\.index\.(%s)\b" % "|".join(members))
    text = whoosh.sub(renamed("{0}.index.whoosh.{1}"), text)
    if public_only:
        asked = re.compile(recv + r"\.index\.whoosh\.(%s)\b" % "|".join(INDEX_MEMBERS))
        text = asked.sub(renamed("{0}.index.{1}"), text)
    # The Whoosh index passed on or patched: ``check(lib.index, q)``, ``x = lib.index``,
    # ``monkeypatch.setattr(lib.index, "write", slow)``.
    passed_index = re.compile(recv + r"\.index(?=\s*[,)\]]|[ \t]*(?:#.*)?$)", re.M)
    text = passed_index.sub(renamed("{0}.index.whoosh"), text)
    # Prose: "``Library.import_paths``", ":meth:`Library.sync_index`".
    text = _PROSE.sub(lambda m: f"{m.group(1)}lib.{CALLS[m.group(2)]}", text)
    text = _MONKEYPATCH.sub(
        lambda m: f'monkeypatch.setattr("{MOVED_NAMES[m.group(1)]}.{m.group(1)}"', text)
    imports = _LIBRARY_MODULE.findall(text)
    if imports and text.count("library_module") == len(imports):   # no longer used
        text = _LIBRARY_MODULE.sub("", text)
    if public_only:
        text = _PRIVATE_IMPORT.sub(r"\1paperdesk.core.api\2", text)
    return text


def _public_only(path: Path) -> bool:
    """Whether ``path`` may use the core's public API only (ui/ and cli.py)."""
    parts = path.resolve().as_posix()
    return "/src/paperdesk/ui/" in parts or parts.endswith("/src/paperdesk/cli.py")


def main(argv: list[str]) -> int:
    """Rewrite the files named in ``argv``; print those changed; return 0."""
    for name in argv:
        path = Path(name)
        if path.resolve() == Path(__file__).resolve():
            continue                     # its own examples are not call sites
        old = path.read_text(encoding="utf-8")
        new = rewrite(old, _public_only(path))
        if new != old:
            path.write_text(new, encoding="utf-8")
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
