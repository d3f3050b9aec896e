"""The window's searches in a process of their own, for a large library.

Why: at a million abstracts one search is a few hundred milliseconds of Python and numpy
(scoring, ranking, masks). Run on a thread of the window's process, it holds the
interpreter lock (GIL) the UI thread needs to paint, so every key typed while a search
ran waited for it: pauses of 50-130 ms while typing (docs/figures.md, the tenth
session's section). A child process has an interpreter of its own; the window's search
thread only sends the query and waits for the answer, which releases the lock.

How: :class:`SearchProcess` starts one ``spawn`` child (no fork of a process with Qt
threads) that opens the library read-only (:meth:`Library.open` with ``read_only``: its
own SQLite connection and its own view of the Whoosh index) and serves one search at a
time over a pipe. Before each search it follows the commits the window's writer made
since (:meth:`~paperdesk.core.search.index.SearchIndex.follow_commits`); tag and filter
masks follow the database already (:class:`~paperdesk.core.scope.ScopeMasks`). The
search itself is :func:`run_search`, the same function the search thread runs when
there is no child, so both give the same results. The answer's ids and scores travel
as numpy arrays (a few milliseconds to unpickle for a million); the Python list the
window's list holds is made by the caller (:attr:`SearchResults.id_list`).

Protocol: ``("search", SearchAsk)`` -> ``("first", SearchResults, MatchTerms)`` (only when
there are more matches than :data:`~paperdesk.core.api.RANKED_FIRST` in the relevance
order: the best first, not yet every match) and then ``("done", SearchResults,
MatchTerms)`` or ``("error", message)``; ``("stop",)`` ends the child. A child that
dies makes :meth:`SearchProcess.search` raise :class:`SearchProcessGone`; the caller
searches on its own thread from then on.

When: :func:`search_process_wanted`: only when the environment variable
:data:`SEARCH_PROCESS_ENV` is ``1``, for now. Measured at a million abstracts on this
2-core machine (docs/figures.md, "Searches in a process of their own", 2026-12-07),
it did not shorten the longest pauses while typing (at nice 0 a median of 108 ms
against 89 on the search thread; at nice 10, as now, 70-76 against 68-89): the child
takes one of the two cores, and the pauses left are the UI thread's own work and the
reader threads'. :data:`SEARCH_PROCESS_MIN_PAPERS` is the size from which it
would be used by default (``None``: never by default) once it pays.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = ["SearchAsk", "SearchProcess", "SearchProcessGone", "SearchError", "run_search",
           "search_process_wanted", "SEARCH_PROCESS_MIN_PAPERS", "SEARCH_PROCESS_ENV"]

#: Libraries with at least this many papers search in a process of their own by
#: default; ``None``: none does unless :data:`SEARCH_PROCESS_ENV` says so (see above).
SEARCH_PROCESS_MIN_PAPERS: int | None = None
#: ``1``: always search in a process of its own; ``0``: never (overrides the size rule).
SEARCH_PROCESS_ENV = "PAPERDESK_SEARCH_PROCESS"
#: How long :meth:`SearchProcess.close` waits for the child before killing it, seconds.
STOP_TIMEOUT_S = 5.0


def search_process_wanted(papers: int) -> bool:
    """Whether a library of ``papers`` papers searches in a process of its own.

    Args:
        papers: the papers in the library.
    Returns:
        True with :data:`SEARCH_PROCESS_ENV` ``=1``, False with ``=0``; otherwise
        whether ``papers >= SEARCH_PROCESS_MIN_PAPERS`` (False while that is ``None``).
    """
    wanted = os.environ.get(SEARCH_PROCESS_ENV, "").strip()
    if wanted in ("0", "1"):
        return wanted == "1"
    return SEARCH_PROCESS_MIN_PAPERS is not None and papers >= SEARCH_PROCESS_MIN_PAPERS


@dataclass(frozen=True)
class SearchAsk:
    """One search, as the window's list asks for it.

    Attributes:
        query: the query text as typed.
        where: the scope's keyword arguments for ``lib.search.find``
            (:meth:`~paperdesk.core.scope.Scope.where`).
        sort: ``"relevance"``, a field or ``"interest"``.
        descending: reverse a field order.
        limit: rows built with title and snippet (the list's first page).
        rank: in the relevance order, rank only this many first (the rest follow).
    """

    query: str
    where: dict = field(default_factory=dict)
    sort: str = "relevance"
    descending: bool = False
    limit: int = 60
    rank: int | None = None


def run_search(lib, ask: SearchAsk, on_first: Callable | None = None):
    """Run one search of the window's list: every match, the first ``ask.limit`` as
    rows, and the query's match terms.

    In the relevance order with more matches than ``ask.rank``, the best ``ask.rank``
    are ranked first and given to ``on_first(results, terms)`` (``results.ids`` holds
    those only), then the rest are ranked. "Worth reading first" before the term table
    is built gives the matches by date added (``results.interest`` is then ``None``).

    Args:
        lib: the :class:`~paperdesk.core.library.Library`.
        ask: the search.
        on_first: called with the best first, or ``None``.
    Returns:
        ``(SearchResults, MatchTerms)``, every match in ``results.ids``.
    Raises:
        Whatever ``lib.search.find`` raises (e.g.
        :class:`~paperdesk.core.models.LibraryError`).
    """
    from paperdesk.core.api import MatchTerms, TermsNotReady
    from paperdesk.core.error_log import log_unexpected

    order = {"sort": ask.sort, "descending": ask.descending}
    try:
        results = lib.search.find(ask.query, limit=ask.limit, **order, rank=ask.rank,
                                  **ask.where)
    except TermsNotReady:
        results = lib.search.find(ask.query, limit=ask.limit, sort="added", **ask.where)
    try:
        terms = lib.search.match_terms(ask.query)
    except Exception as exc:  # noqa: BLE001 - highlighting is a nicety
        log_unexpected("highlighting", exc)
        terms = MatchTerms()
    if not results.ranked:
        if on_first is not None:
            on_first(results, terms)
        results = results.complete()
    return results, terms


def _portable(results):
    """``results`` as sent over the pipe: every match ranked, nothing that cannot be
    pickled (the callable ranking the rest) and no cached Python lists."""
    return replace(results, rest=None)


def _serve(conn, library_path: str) -> None:
    """The child's loop (runs in the child process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the window decides what stops
    from paperdesk.core.library import Library
    from paperdesk.core.models import LibraryError

    try:
        lib = Library.open(library_path, read_only=True)
    except Exception as exc:  # noqa: BLE001 - told to the parent, one line
        conn.send(("error", _one_line(exc)))
        return
    conn.send(("ready", None))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            break
        if message[0] != "search":
            break
        ask = message[1]
        try:
            _follow_commits(lib)

            def first(results, terms) -> None:
                conn.send(("first", _portable(results), terms))

            results, terms = run_search(lib, ask, first)
            conn.send(("done", _portable(results), terms))
        except (EOFError, OSError, BrokenPipeError):
            break
        except LibraryError as exc:
            conn.send(("error", _one_line(exc)))
        except Exception as exc:  # noqa: BLE001 - told to the parent, one line
            conn.send(("error", f"{type(exc).__name__}: {_one_line(exc)}"))
    lib.close()
    conn.close()


def _follow_commits(lib) -> None:
    """Search the index's latest commit; a segment file the writer's merge deleted
    between its table of contents being read and the file being opened is looked for
    again once, on the commit that replaced it."""
    whoosh = lib.index.whoosh
    if whoosh is None:
        return
    try:
        whoosh.follow_commits()
    except OSError:
        time.sleep(0.05)
        whoosh.follow_commits()


def _one_line(exc: BaseException) -> str:
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return text or type(exc).__name__


class SearchProcessGone(RuntimeError):
    """The search process could not start, died or stopped answering; the message says
    why in one line."""


class SearchError(RuntimeError):
    """A search failed in the search process (the message is its one-line reason)."""


class SearchProcess:
    """One child process that runs the window's searches; see the module.

    Args:
        library_path: the library folder (opened read-only in the child).
    Raises:
        SearchProcessGone: the child could not be started.
    """

    def __init__(self, library_path: str | os.PathLike):
        from paperdesk.core.child_process import start_ignoring_interrupts

        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(target=_serve, args=(child, str(Path(library_path))),
                                    daemon=True, name="paperdesk-search")
        try:
            # at nice 10 as the other helpers: measured better for the UI thread's
            # pauses than at 0 (docs/figures.md), the matches a little later
            start_ignoring_interrupts(self._process)
        except OSError as exc:
            raise SearchProcessGone(f"the search process could not start ({exc})") from exc
        finally:
            child.close()
        self._lock = threading.Lock()
        self._ready = False
        self._gone: str | None = None

    @property
    def pid(self) -> int | None:
        """The child's process id."""
        return self._process.pid

    def _receive(self):
        try:
            return self._conn.recv()
        except (EOFError, OSError) as exc:
            self._gone = "the search process stopped"
            raise SearchProcessGone(self._gone) from exc

    def search(self, ask: SearchAsk, on_first: Callable | None = None):
        """Run ``ask`` in the child and wait for the answer (the wait releases the
        interpreter lock). One search at a time: a second caller waits its turn.

        Args:
            ask: the search.
            on_first: ``on_first(results, terms)`` with the best first, when the answer
                comes in two parts (see :func:`run_search`).
        Returns:
            ``(SearchResults, MatchTerms)`` as :func:`run_search` gives them.
        Raises:
            SearchError: the search failed (a one-line reason).
            SearchProcessGone: the child is gone (search on this thread instead).
        """
        with self._lock:
            if self._gone is not None:
                raise SearchProcessGone(self._gone)
            if not self._ready:
                kind, value = self._receive()
                if kind != "ready":
                    self._gone = f"the search process could not open the library: {value}"
                    raise SearchProcessGone(self._gone)
                self._ready = True
            try:
                self._conn.send(("search", ask))
            except (OSError, ValueError) as exc:
                self._gone = "the search process stopped"
                raise SearchProcessGone(self._gone) from exc
            while True:
                answer = self._receive()
                if answer[0] == "first":
                    if on_first is not None:
                        on_first(answer[1], answer[2])
                    continue
                if answer[0] == "done":
                    return answer[1], answer[2]
                raise SearchError(answer[1])

    def alive(self) -> bool:
        """Whether the child is running and has not failed."""
        return self._gone is None and self._process.is_alive()

    def close(self) -> None:
        """Stop the child (after its current search) and wait for it; kill it if it
        does not stop within :data:`STOP_TIMEOUT_S`. Safe to call twice."""
        from paperdesk.core.child_process import stop_child

        self._gone = self._gone or "the search process was closed"
        stop_child(self._process, self._conn, ("stop",), STOP_TIMEOUT_S)
