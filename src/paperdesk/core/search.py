"""The Whoosh full-text index: schema, writes, one long-lived searcher, queries, snippets.

The index is derived from SQLite and can always be rebuilt (``paperdesk reindex``). Only
the paper id is stored in it; titles and abstracts for snippets come from SQLite.

Thread safety: one :class:`SearchIndex` may be used from several threads; searches and
writes are serialised by an internal lock. After every commit the searcher is replaced by
a new one and the old one closed (``Searcher.refresh()`` can return stale copies of
updated documents in whoosh-reloaded 2.7.5; see DESIGN.md).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from whoosh import index as windex
from whoosh import qparser
from whoosh import query as wquery
from whoosh.analysis import CharsetFilter, LowercaseFilter, RegexTokenizer, StemFilter
from whoosh.fields import ID, KEYWORD, TEXT, Schema
from whoosh.highlight import ContextFragmenter, Formatter, get_text
from whoosh.support.charset import accent_map

from .text import normalize

__all__ = ["IndexDocument", "Snippet", "RawHit", "SearchIndex", "build_schema",
           "DEFAULT_FIELDS", "SNIPPET_CHARS"]

#: Fields searched by words without a ``field:`` prefix.
DEFAULT_FIELDS = ("title", "abstract", "note", "comment")
#: Relative weight of a title match against an abstract match (BM25F field boost).
TITLE_BOOST = 2.0
#: Length of the text around a match shown as a snippet, in characters.
SNIPPET_CHARS = 160


def _analyzer():
    # Words (letters/digits, with inner dots like "2.5"), lower-cased, accents folded so
    # "cafe" finds "Café", Porter-stemmed so "networks" finds "network". No stop list, so
    # phrases with "of"/"the" and one-letter words stay searchable.
    return (RegexTokenizer(r"\w+(\.?\w+)*") | LowercaseFilter()
            | CharsetFilter(accent_map) | StemFilter())


def build_schema() -> Schema:
    """Return the Whoosh schema of the paperdesk index.

    Fields: ``id`` (unique, stored: the paper id as text), ``title``, ``abstract``,
    ``note`` and ``comment`` (highlight comments) (analysed text with positions, for
    phrases; not stored), ``tag`` (tag names, comma-separated, lower-cased: ``tag:"to
    read"``), ``source_id`` (space-separated source ids, for filtering by file).
    """
    ana = _analyzer()
    return Schema(
        id=ID(unique=True, stored=True),
        title=TEXT(analyzer=ana, field_boost=TITLE_BOOST),
        abstract=TEXT(analyzer=ana),
        note=TEXT(analyzer=ana),
        comment=TEXT(analyzer=ana),
        tag=KEYWORD(commas=True, lowercase=True, scorable=True),
        source_id=KEYWORD(),
    )


class IndexSchemaMismatch(Exception):
    """The index on disk was built with another schema (an older paperdesk); rebuild it."""


@dataclass(frozen=True)
class IndexDocument:
    """What the index holds about one paper.

    Attributes:
        id: paper id.
        title: shown title.
        abstract: abstract text.
        source_ids: ids of the sources the paper came from.
        tags: tag names.
        note: the note text.
        comments: highlight comments.
    """

    id: int
    title: str
    abstract: str
    source_ids: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    note: str = ""
    comments: tuple[str, ...] = ()

    def fields(self) -> dict:
        return {
            "id": str(self.id),
            "title": self.title,
            "abstract": self.abstract,
            "note": self.note,
            "comment": "\n".join(self.comments),
            "tag": ",".join(self.tags),
            "source_id": " ".join(str(s) for s in self.source_ids),
        }


@dataclass(frozen=True)
class Snippet:
    """Plain text around the matches, with the match positions.

    Attributes:
        text: the snippet, fragments joined by `` … ``; never contains markup.
        spans: ``(start, end)`` character offsets into ``text`` of each matched word.
    """

    text: str
    spans: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class RawHit:
    """A match from the index before the library adds titles.

    Attributes:
        id: paper id.
        score: BM25F relevance score (higher is better; only comparable within one query).
        snippet: match context from the abstract, or ``None`` if only the title matched.
    """

    id: int
    score: float
    snippet: Snippet | None


class _SpanFormatter(Formatter):
    """Formats fragments as plain text and records where the matched words are."""

    between = " … "

    def format(self, fragments, replace=False):
        parts: list[str] = []
        spans: list[tuple[int, int]] = []
        length = 0
        for n, fragment in enumerate(fragments):
            if n:
                parts.append(self.between)
                length += len(self.between)
            text = fragment.text
            index = fragment.startchar
            ordered = sorted(fragment.matches, key=lambda t: (t.startchar, -t.endchar))
            for token in ordered:
                if token.startchar is None or token.startchar < index:
                    continue
                gap = text[index:token.startchar]
                parts.append(gap)
                length += len(gap)
                word = get_text(text, token, replace)
                spans.append((length, length + len(word)))
                parts.append(word)
                length += len(word)
                index = token.endchar
            tail = text[index:fragment.endchar]
            parts.append(tail)
            length += len(tail)
        prefix = "… " if fragments and fragments[0].startchar > 0 else ""
        shifted = tuple((s + len(prefix), e + len(prefix)) for s, e in spans)
        return Snippet(prefix + "".join(parts), shifted)


class SearchIndex:
    """The Whoosh index of one library folder.

    Args:
        path: the index folder; created with an empty index if missing or empty.
    Raises:
        whoosh.index.IndexError: the folder holds something that is not a readable index
            (call :meth:`recreate` to start over).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self.path.mkdir(parents=True, exist_ok=True)
        if windex.exists_in(str(self.path)):
            self._ix = windex.open_dir(str(self.path))
            if set(self._ix.schema.names()) != set(build_schema().names()):
                self._ix.close()
                raise IndexSchemaMismatch(str(self.path))
        else:
            self._ix = windex.create_in(str(self.path), build_schema())
        self._searcher = self._ix.searcher()
        self._parser = qparser.MultifieldParser(
            list(DEFAULT_FIELDS), self._ix.schema, group=qparser.AndGroup
        )

    # -- writing -----------------------------------------------------------------------
    def write(self, add: Iterable[IndexDocument] = (), update: Iterable[IndexDocument] = (),
              delete: Iterable[int] = ()) -> int:
        """Apply changes in one commit, then swap in a fresh searcher.

        ``add`` is for papers known not to be in the index (cheap); ``update`` replaces any
        existing document with the same id (costs a lookup per document).

        Args:
            add: new documents.
            update: documents to add or replace.
            delete: paper ids to remove.
        Returns:
            The number of documents written or deleted.
        """
        with self._lock:
            writer = self._ix.writer(limitmb=128)
            count = 0
            try:
                for pid in delete:
                    writer.delete_by_term("id", str(pid))
                    count += 1
                for doc in add:
                    writer.add_document(**doc.fields())
                    count += 1
                for doc in update:
                    writer.update_document(**doc.fields())
                    count += 1
            except BaseException:
                writer.cancel()
                raise
            writer.commit()
            self._refresh()
            return count

    def recreate(self) -> None:
        """Delete everything in the index folder and start an empty index."""
        with self._lock:
            self._searcher.close()
            self._ix.close()
            shutil.rmtree(self.path, ignore_errors=True)
            self.path.mkdir(parents=True, exist_ok=True)
            self._ix = windex.create_in(str(self.path), build_schema())
            self._searcher = self._ix.searcher()

    def _refresh(self) -> None:
        old = self._searcher
        self._searcher = self._ix.searcher()
        old.close()

    # -- reading -----------------------------------------------------------------------
    def doc_count(self) -> int:
        """Return the number of documents in the index (deleted ones not counted)."""
        with self._lock:
            return self._searcher.doc_count()

    def indexed_ids(self) -> set[int]:
        """Return the set of paper ids that have a document in the index."""
        with self._lock:
            return {int(f["id"]) for f in self._searcher.all_stored_fields()}

    def parse(self, text: str) -> wquery.Query | None:
        """Parse a query string; fall back to plain words when the syntax is broken.

        Args:
            text: what the user typed.
        Returns:
            A Whoosh query, or ``None`` when the text holds no searchable word.
        """
        text = normalize(text)
        if not text:
            return None
        try:
            q = self._parser.parse(text)
        except Exception:  # the parser's errors are not a documented set
            q = None
        if q is None or q is wquery.NullQuery or isinstance(q, type(wquery.NullQuery)):
            q = self._plain_words(text)
        return q

    def _plain_words(self, text: str) -> wquery.Query | None:
        ana = self._ix.schema["abstract"].analyzer
        words = [t.text for t in ana(text)]
        if not words:
            return None
        return wquery.And([wquery.Or([wquery.Term(f, w) for f in DEFAULT_FIELDS])
                           for w in dict.fromkeys(words)])

    def search(self, text: str, limit: int | None = 50, source_id: int | None = None,
               abstracts: Callable[[list[int]], Mapping[int, str]] | None = None,
               allowed: set[int] | None = None) -> tuple[list[RawHit], int]:
        """Run a query.

        Args:
            text: the query in Whoosh syntax; broken syntax falls back to plain words.
            limit: most hits returned, or ``None`` for all.
            source_id: only papers from this source.
            allowed: only these paper ids (a filter answered by SQLite), or ``None``.
            abstracts: called with the hit ids, returns their abstracts for snippets; no
                snippets when omitted.
        Returns:
            ``(hits, total)``: hits best first, and the number of matching papers.
        """
        q = self.parse(text)
        if q is None:
            return [], 0
        filt = wquery.Term("source_id", str(source_id)) if source_id is not None else None
        wlimit = None if allowed is not None else limit
        with self._lock:
            try:
                results = self._searcher.search(q, limit=wlimit, filter=filt, terms=True)
            except Exception:
                q = self._plain_words(normalize(text))
                if q is None:
                    return [], 0
                results = self._searcher.search(q, limit=wlimit, filter=filt, terms=True)
            if allowed is not None:
                kept = [hit for hit in results if int(hit["id"]) in allowed]
                total = len(kept)
                chosen = kept if limit is None else kept[:limit]
            else:
                chosen = list(results)
                total = None
            ids = [int(hit["id"]) for hit in chosen]
            texts = abstracts(ids) if abstracts is not None and ids else {}
            results.fragmenter = ContextFragmenter(maxchars=SNIPPET_CHARS, surround=60)
            results.formatter = _SpanFormatter()
            hits = []
            for hit, pid in zip(chosen, ids):
                snippet = None
                text_ = texts.get(pid)
                if text_:
                    snippet = hit.highlights("abstract", text=text_, top=2) or None
                hits.append(RawHit(pid, float(hit.score or 0.0), snippet))
            if total is not None:
                return hits, total
            # Fewer hits than the limit: that is all of them. Otherwise count exactly.
            if limit is None or len(hits) < limit:
                return hits, len(hits)
            return hits, len(results)

    def close(self) -> None:
        """Close the searcher and the index. The object is unusable afterwards."""
        with self._lock:
            self._searcher.close()
            self._ix.close()
