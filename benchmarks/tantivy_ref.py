"""tantivy as the outside reference of what a search engine can do (``make bench``).

tantivy (https://github.com/quickwit-oss/tantivy, a Lucene-like engine in Rust) through
its official Python bindings (PyPI ``tantivy``, https://tantivy-py.readthedocs.io): an
index of the same titles, abstracts, tags and stars as the library, built in this
process, and each query shape of the search table asked of it (BM25, top 50, with a
snippet of the abstract for each hit, as paperdesk's search returns). Bench-only: the
``[search-reference]`` extra of pyproject.toml installs it; without it the figures are ``None``.

Analysis: the ``en_stem`` tokenizer (lower case, Snowball English stemmer) for title
and abstract, tags as raw terms, starred as an indexed integer. Query shapes map to
tantivy's query language and query objects:

- words: each required (``+a +b``); a phrase as written; ``a OR b OR c``: tantivy's
  default (any);
- prefix (``word*``): a regular-expression query ``word.*`` on the abstract's terms
  (tantivy's parser has phrase prefixes only);
- fuzzy (``word~``): a fuzzy term query, distance 1 (paperdesk's default);
- a tag (typed or chosen in the tag pane): ``+tags:"vision"``; ``is:starred``:
  ``+starred:1``; "did you mean" has no equivalent (``None``).
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

__all__ = ["available", "TantivyReference"]


def available() -> bool:
    """Whether the tantivy package can be imported (the ``[search-reference]`` extra)."""
    try:
        import tantivy  # noqa: F401
    except ImportError:
        return False
    return True


class TantivyReference:
    """A tantivy index of a library's papers, and the queries of the search table.

    Args:
        folder: where the index is built (emptied first; deleted by :meth:`close`).
    """

    def __init__(self, folder: Path):
        import tantivy

        self._t = tantivy
        self.folder = folder
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("title", stored=False, tokenizer_name="en_stem")
        builder.add_text_field("abstract", stored=True, tokenizer_name="en_stem")
        builder.add_text_field("tags", stored=False, tokenizer_name="raw")
        builder.add_integer_field("starred", indexed=True, fast=True)
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema, path=str(folder))
        self.searcher = None

    def build(self, rows, memory_mb: int = 256) -> dict:
        """Index ``rows`` of ``(title, abstract, tags, starred)`` (tags a space-separated
        string) and commit.

        Args:
            rows: an iterable of 4-tuples.
            memory_mb: the writer's memory budget (tantivy's ``heap_size``), MB.
        Returns:
            ``{"wall_s", "cpu_s" (this process, all threads), "mb" (the folder's size)}``.
        """
        start, cpu = time.perf_counter(), time.process_time()
        writer = self.index.writer(heap_size=memory_mb * 2**20)
        Document = self._t.Document
        for title, abstract, tags, starred in rows:
            doc = Document(title=title or "", abstract=abstract or "",
                           starred=int(starred or 0))
            for tag in (tags or "").split("\x1f"):
                if tag:
                    doc.add_text("tags", tag)
            writer.add_document(doc)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        size = sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())
        return {"wall_s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu,
                "mb": size / 2**20}

    def query(self, text: str, tag: str | None = None):
        """The tantivy query of a paperdesk query ``text`` (rules: module docstring), with
        the tag chosen in the tag pane; ``None`` when there is no equivalent."""
        t = self._t
        required = []
        if tag:
            required.append(t.Query.term_query(self.schema, "tags", tag))
        words = []
        for part in re.findall(r'"[^"]*"|\S+', text):
            if part.startswith("tag:"):
                required.append(t.Query.term_query(self.schema, "tags", part[4:]))
            elif part == "is:starred":
                required.append(t.Query.term_query(self.schema, "starred", 1))
            elif part.endswith("*"):
                required.append(t.Query.regex_query(self.schema, "abstract",
                                                    re.escape(part[:-1].lower()) + ".*"))
            elif part.endswith("~"):
                required.append(t.Query.fuzzy_term_query(self.schema, "abstract",
                                                         part[:-1].lower(), distance=1))
            else:
                words.append(part)
        if words:
            any_of = "OR" in words
            text = " ".join(w for w in words if w != "OR") if any_of else \
                " ".join(f"+{w}" for w in words)
            parsed = self.index.parse_query(text, ["title", "abstract"])
            if any_of:
                return parsed if not required else t.Query.boolean_query(
                    [(t.Occur.Must, parsed)] + [(t.Occur.Must, q) for q in required])
            required.append(parsed)
        if not required:
            return None
        return required[0] if len(required) == 1 else t.Query.boolean_query(
            [(t.Occur.Must, q) for q in required])

    def search(self, query, limit: int = 50) -> tuple[int, list[str]]:
        """Run ``query``: ``(matching documents, a snippet of each of the top
        ``limit``)``."""
        result = self.searcher.search(query, limit, count=True)
        snippets = self._t.SnippetGenerator.create(self.searcher, query, self.schema,
                                                   "abstract")
        out = []
        for _score, address in result.hits:
            doc = self.searcher.doc(address)
            out.append(snippets.snippet_from_doc(doc).fragment())
        return result.count, out

    def close(self) -> None:
        """Drop the index and its folder."""
        self.searcher = self.index = None
        shutil.rmtree(self.folder, ignore_errors=True)
