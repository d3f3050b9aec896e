"""``paperdesk screen TAG``: screening for a tag from the command line, one decision per
call (the window's screening mode, without the window).

``--next`` (the default) prints the paper to decide next, the counts and the stopping
estimate; ``--yes ID`` gives the paper the tag, ``--no ID`` excludes it from the tag,
``--undecide ID`` takes either back; each then prints the next paper. ``--query Q`` or
``--saved NAME`` screen a search's results instead of the whole library. The pool's
features are cached in the library folder (``screening/``), so a call takes well under a
second once the first has built them (see :mod:`paperdesk.core.screening.session`).
"""

from __future__ import annotations

import argparse
import json
import sys

from paperdesk.core.library import Library
from paperdesk.core.models import LibraryError
from paperdesk.core.scope import Scope

__all__ = ["add_screen_parser", "run_screen", "screen_writes"]


def add_screen_parser(sub) -> None:
    """Add the ``screen`` sub-command to ``sub`` (argparse's sub-parsers)."""
    p = sub.add_parser(
        "screen", help="screen papers for a tag: the next one, yes, no",
        description="Screening for a tag (\"does this paper belong in my review?\"): "
                    "--next prints the paper most likely to belong, as a model trained "
                    "on the decisions so far ranks them, with the counts and an estimate "
                    "of how many relevant papers are left (BUSCAR, Callaghan & "
                    "Müller-Hansen 2020); --yes ID tags it, --no ID excludes it from "
                    "the tag, --undecide ID takes either back. Papers already tagged "
                    "count as yes.")
    p.add_argument("tag", help="the tag to screen for (create it with: paperdesk tag add "
                               "ID TAG, or with the first --yes)")
    pool = p.add_mutually_exclusive_group()
    pool.add_argument("--query", metavar="Q", help="screen this search's results "
                                                   "(default: the whole library)")
    pool.add_argument("--saved", metavar="NAME", help="screen this saved search's results")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--next", action="store_true",
                      help="print the next paper, the counts and the estimate (default)")
    what.add_argument("--yes", type=int, metavar="ID", help="the paper belongs: tag it")
    what.add_argument("--no", type=int, metavar="ID",
                      help="the paper does not belong: exclude it from the tag")
    what.add_argument("--undecide", type=int, metavar="ID",
                      help="take the paper's decision back (untag, or un-exclude)")
    p.add_argument("--json", action="store_true",
                   help="print {decided, next: {id, title, year, abstract}, included, "
                        "excluded, left, estimate} as JSON")


def screen_writes(args: argparse.Namespace) -> bool:
    """True when the parsed ``screen`` command decides something."""
    return any(v is not None for v in (args.yes, args.no, args.undecide))


def _paper_json(lib: Library, paper_id: int | None) -> dict | None:
    if paper_id is None:
        return None
    paper = lib.papers.get(paper_id)
    date = paper.metadata.date or ""
    return {"id": paper.id, "title": paper.title, "year": date[:4] or None,
            "abstract": paper.abstract}


def _refuse_outside(lib: Library, args: argparse.Namespace, in_scope: set[int]) -> None:
    """Refuse a ``--yes``/``--no`` for a paper outside the screened search's results
    that is not already decided for the tag (a decided paper stays in the pool, so
    changing its decision is allowed).

    Raises:
        LibraryError: the paper is outside the pool (one line naming it and the scope).
    """
    paper_id = args.yes if args.yes is not None else args.no
    if paper_id is None or paper_id in in_scope:
        return
    tag = lib.tags.by_name(args.tag)
    if tag is not None:
        decided = lib.screening.decided(tag.id)
        if paper_id in decided.included or paper_id in decided.excluded:
            return
    lib.papers.existing_ids([paper_id])          # an unknown id says so first
    where = (f"the search {args.query!r}" if args.query is not None
             else f"the saved search {args.saved!r}")
    raise LibraryError(f"paper {paper_id} is not among the papers screened ({where}: "
                       f"{len(in_scope)} papers); leave out --query/--saved to decide it")


def run_screen(lib: Library, args: argparse.Namespace) -> int:
    """Run ``paperdesk screen`` (see the module).

    Returns:
        0 (errors raise :class:`LibraryError`, which the command line prints in one
        line with status 1).
    Raises:
        LibraryError: no such tag (``--yes`` creates it), paper or saved search; a bad
            query; with ``--query``/``--saved``, a ``--yes``/``--no`` for a paper outside
            the search's results and not yet decided for the tag.
    """
    decided = None
    scope = (Scope(query=args.query) if args.query is not None
             else Scope(saved=args.saved) if args.saved is not None else None)
    try:
        in_scope = lib.screening.check_scope(scope)      # before anything is decided
    except ValueError as exc:          # a bad filter
        raise LibraryError(f"--query: {exc}") from None
    if scope is not None:
        _refuse_outside(lib, args, set(in_scope))
    if args.yes is not None:
        lib.papers.existing_ids([args.yes])       # an unknown id creates no tag
        lib.tags.create(args.tag)                 # as `tag add` does; no-op if there
        changed = lib.screening.include(args.tag, args.yes)
        decided = {"id": args.yes, "decision": "yes"}
    elif args.no is not None:
        changed = lib.screening.exclude(args.tag, args.no)
        decided = {"id": args.no, "decision": "no"}
    elif args.undecide is not None:
        changed = lib.screening.undecide(args.tag, args.undecide)
        decided = {"id": args.undecide, "decision": "undecided"}
    if decided is not None:
        decided["changed"] = bool(changed)
    pool = lib.screening.pool(args.tag, scope)
    standing = lib.screening.standing(pool)
    nxt = _paper_json(lib, standing.next_id)
    if args.json:
        out = standing.to_dict()
        out["next"] = nxt
        out["decided"] = decided
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if decided is not None:
        verb = {"yes": "included in", "no": "excluded from",
                "undecided": "undecided for"}[decided["decision"]]
        if decided["changed"]:
            print(f"{decided['id']} {verb} {standing.tag_name!r}")
        else:
            print(f"{decided['id']} was {verb} {standing.tag_name!r} already; nothing "
                  "changed")
    if nxt is None:
        print("next: none (every paper is decided)")
    else:
        year = f" ({nxt['year']})" if nxt["year"] else ""
        print(f"next: {nxt['id']}  {nxt['title']}{year}")
    print(standing.counts_text())
    print(standing.estimate_text())
    return 0
