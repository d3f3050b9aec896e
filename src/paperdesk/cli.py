"""The ``paperdesk`` command line. No sub-command opens the GUI, and so do files
(``paperdesk FILE...``: the window opens, or the running one is handed them, and imports
them; see :func:`split_open_files`); the rest never imports Qt.

Exit status: 0 success, 1 user error (one line on stderr, no traceback), 2 usage error
(argparse), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import os
import re
import signal
import sqlite3
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from paperdesk import __version__
from paperdesk.cli_screen import add_screen_parser, run_screen, screen_writes
from paperdesk.core.api import EXPORT_FORMATS, FIELDS
from paperdesk.core.api import (BIBLIOGRAPHY_OUTPUTS, DEFAULT_STYLE, check_locale,
                                load_style, missing_author_or_year, shipped_styles)
from paperdesk.core.fields import RELEVANCE, SORT_CHOICES, stored_fields
from paperdesk.core.api import ARXIV_FORMAT, ArxivFilter
from paperdesk.core.api import display_path
from paperdesk.core.api import MEANING_PREFIX, meaning_text
from paperdesk.core.api import IMPORT_FORMATS, folder_patterns
from paperdesk.core.check import refuse_unreadable_folder
from paperdesk.core.library import DB_NAME, Library
from paperdesk.core.api import (BACKUP_DIR, auto_backup, backup_name, backup_to,
                                         describe_counts, fewer_than, inspect_backup,
                                         latest_backup, library_state, replace_database)
from paperdesk.core.metadata import (ENTRY_TYPES, MetadataError, format_author_list,
                                     read_author_list)
from paperdesk.core.api import disk_full_message, is_disk_full, low_space
from paperdesk.core.api import LOCK_NAME, LibraryLock, LockHeld, LockInfo
from paperdesk.core.api import (WAIT_ENV, acquire_in_turn, paused_holder,
                                             wait_bound, yield_to_waiters)
from paperdesk.core.models import NO_TITLE, LibraryError, LibraryReadOnly, field_values
from paperdesk.core.api import IndexWriteError
from paperdesk.core.paths import LIBRARY_ENV, default_library_path
from paperdesk.core.terminal_text import TerminalSafeStream, one_line, wrap_if_terminal

__all__ = ["main", "gui_main", "build_parser", "writes", "split_open_files",
           "COMPLETION_SHELLS", "STDOUT"]

#: The shells ``paperdesk completion`` writes a script for.
COMPLETION_SHELLS = ("bash", "zsh")
#: What an option or argument completes to (its ``complete`` attribute), made shtab's
#: own (``shtab.FILE``, ``shtab.DIRECTORY``) by :func:`completion_script`: importing
#: shtab (and the ``importlib.metadata`` it brings) took 60 ms of every command's start.
_FILES, _FOLDERS = "files", "folders"
#: ``-o -``: write the export to standard output.
STDOUT = "-"
#: The table-driven fields that ``paperdesk edit`` sets (each with its ``--option``).
_CLI_FIELDS = tuple(f for f in stored_fields() if f.cli)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more: {value}")
    return value


def _folder(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("the library folder cannot be empty")
    return Path(text)


def _since(text: str) -> _dt.date:
    parts = text.strip().split("-")
    try:
        if not 1 <= len(parts) <= 3 or len(parts[0]) != 4:
            raise ValueError
        return _dt.date(*(int(p) for p in parts), *([1] * (3 - len(parts))))
    except (ValueError, TypeError):
        raise argparse.ArgumentTypeError(
            f"not a date like 2024-01-31, 2024-01 or 2024: {text!r}") from None


def _category(text: str) -> str:
    clean = text.strip()
    if not clean or any(c.isspace() for c in clean):
        raise argparse.ArgumentTypeError(
            f"an arXiv category or archive like cs.CV or cs, not {text!r}")
    return clean


def _size(text: str) -> tuple[int, int]:
    parts = text.lower().replace("×", "x").split("x")
    try:
        width, height = (int(v) for v in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size like 1280x800: {text!r}") from None
    if not (200 <= width <= 10_000 and 200 <= height <= 10_000):
        raise argparse.ArgumentTypeError(f"out of range (200-10000 each way): {text!r}")
    return width, height


def _and(items: Sequence[str]) -> str:
    """``"a, b and c"``."""
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


_USAGE = "%(prog)s [OPTIONS] [COMMAND ... | FILE ...]"


class OneLineErrorParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage errors are one line on standard
    error, ``paperdesk export: argument --format: invalid choice: ... (see paperdesk
    export --help)``, instead of the usage block and then the error; exit status 2 as
    argparse's. Subcommands' parsers are of this class too (``add_subparsers`` builds
    them with the parent's class)."""

    def error(self, message: str):
        """Print the one line and exit with status 2 (never returns).

        Raises:
            SystemExit: always, with code 2.
        """
        command = self.prog.replace(_USAGE % {"prog": "paperdesk"}, "paperdesk")
        named = re.match(r"(export): (.*)", message)   # the checks after parsing
        if named and command == "paperdesk":
            command, message = f"paperdesk {named.group(1)}", named.group(2)
        if re.match(r"unrecognized arguments: -\w", message) or (
                message.endswith("required: query") and any(
                    a.startswith("-") and not a.startswith("--") and len(a) > 2
                    for a in _PARSED_ARGV)):        # "-survey", not "-h" or "--library"
            message += " (a query word that starts with -: put -- before the query, " \
                       "as in paperdesk search -- depth -survey)"
        self.exit(2, f"{command}: error: {message} (see {command} --help)\n")


#: The arguments being parsed (for the hint of :meth:`OneLineErrorParser.error`).
_PARSED_ARGV: list[str] = []

#: Options whose value is search text, which may start with "-" (``--query -survey``:
#: the query "NOT survey"); argparse would take such a value for an option.
_QUERY_OPTIONS = ("--query",)


def query_values_joined(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--query -word`` written ``--query=-word`` so that argparse takes
    a value starting with ``-`` as the query (a lone ``-`` or ``--`` is left alone).

    Args:
        argv: the command-line arguments, without the program name.
    Returns:
        A new list of arguments.
    """
    out: list[str] = []
    items = list(argv)
    n = 0
    while n < len(items):
        arg = items[n]
        if arg == "--":
            out.extend(items[n:])
            break
        nxt = items[n + 1] if n + 1 < len(items) else None
        if (arg in _QUERY_OPTIONS and isinstance(nxt, str) and nxt.startswith("-")
                and nxt not in ("-", "--")):
            out.append(f"{arg}={nxt}")
            n += 2
            continue
        out.append(arg)
        n += 1
    return out


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser (also used to print ``--help``)."""
    parser = OneLineErrorParser(
        prog="paperdesk",
        usage=_USAGE,
        description="Read, triage, tag, annotate and export research-paper abstracts. "
                    "Without a command, opens the window; `paperdesk FILE...` opens it "
                    "and imports the files (or hands them to the window already open).",
    )
    parser.add_argument("--version", action="version", version=f"paperdesk {__version__}")
    parser.add_argument(
        "--library", metavar="DIR", type=_folder, default=None,
        help=f"library folder (default: ${LIBRARY_ENV}, else {default_library_path()}; "
             "the window opens the library it had open last)"
    ).complete = _FOLDERS
    parser.add_argument("--screenshot", metavar="FILE", type=Path,
                        help="render the window offscreen into this PNG file and exit "
                             "(no COMMAND)").complete = _FILES
    parser.add_argument("--size", metavar="WxH", type=_size, default=(1280, 800),
                        help="window size for --screenshot (default 1280x800)")
    parser.add_argument("--appearance", choices=["system", "light", "dark"],
                        help="the window's colours: follow the system (default, or as "
                             "chosen in View ▸ Appearance), light or dark")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND",
                                help="what to do (without one, the window opens)")

    p = sub.add_parser("install-desktop",
                       help="add paperdesk to the desktop's application menu (this user)")
    p.add_argument("--exec", dest="exec_path", metavar="PATH",
                   help="program the launcher starts (default: this paperdesk)"
                   ).complete = _FILES
    sub.add_parser("uninstall-desktop", help="remove what install-desktop added")

    formats = IMPORT_FORMATS.entries()
    kinds = ", ".join(f.report_label for f in formats)
    p = sub.add_parser("import", help=f"import files ({kinds}) or folders of them")
    p.add_argument("paths", nargs="+", metavar="PATH", type=Path,
                   help=f"a file, a folder (its {_and(folder_patterns())} "
                        "files, recursively) or - for standard input; the format is "
                        "recognised by content").complete = _FILES
    p.add_argument("--category", action="append", metavar="CAT", default=[],
                   type=_category,
                   help="arXiv metadata files: keep records in this category (cs.CV) or "
                        "archive (cs: every cs.*); repeat for several (any matches)")
    p.add_argument("--since", metavar="YYYY[-MM[-DD]]", type=_since,
                   help="arXiv metadata files: keep records first submitted on or after "
                        "this date (the first version's date, else update_date)")
    p.add_argument("--no-keywords", dest="keywords", action="store_false",
                   help="BibTeX, RIS and CSL-JSON: do not make the records' keywords "
                        "(keywords, groups, KW, keyword) tags")
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = sub.add_parser("search", help="full-text search (the language: docs/search.md)")
    p.add_argument("query", help="what to find: words, \"a phrase\", field:value, "
                                 "has:code, year:2020..2024, OR, -word (quote it for the "
                                 "shell)")
    p.add_argument("--limit", type=_positive_int, default=20, metavar="N",
                   help="most results (default 20)")
    p.add_argument("--sort", choices=list(SORT_CHOICES), default=RELEVANCE,
                   help="order of results (default: relevance); interest: worth reading "
                        "first, learned from what was starred, tagged, annotated and "
                        "skipped, each hit with the words that moved it up (try "
                        "search is:unread --sort interest)")
    p.add_argument("--semantic", action="store_true",
                   help="search by meaning: rank by the query's embedding fused with "
                        "BM25 (the same as a query starting with ~; docs/discover.md)")
    p.add_argument("--json", action="store_true",
                   help="print {query, total, shown, suggestion, message, hits} as JSON")

    p = sub.add_parser(
        "related", help="the papers most like one, with the terms they share",
        description="The papers whose titles and abstracts are most like one paper's "
                    "(cosine similarity of tf-idf term vectors, combined with that of "
                    "their embeddings and titles, with shared authors and venue once "
                    "the papers are "
                    "embedded by the window or search --semantic), each with its score, "
                    "the terms the two share most and the authors they share. The first use builds the "
                    "library's term table (with a progress line; Ctrl+C stops it).")
    p.add_argument("id", type=int, help="the paper's id (from search or the window)")
    p.add_argument("--limit", type=_positive_int, default=10, metavar="N",
                   help="most papers (default 10)")
    p.add_argument("--json", action="store_true",
                   help="print [{id, title, score, shared, authors, venue}, ...] as JSON "
                        "(shared: the terms; authors: the shared authors; venue: the "
                        "shared venue or \"\")")

    p = sub.add_parser("terms", help="a paper's key terms with their weights",
                       description="A paper's key terms: the words that weigh most in "
                                   "its tf-idf term vector (each is a search query).")
    p.add_argument("id", type=int, help="the paper's id")
    p.add_argument("--limit", type=_positive_int, default=8, metavar="N",
                   help="most terms (default 8)")
    p.add_argument("--json", action="store_true",
                   help="print [{term, weight, query}, ...] as JSON")

    p = sub.add_parser(
        "suggest-tags", help="existing tags for a paper, from the papers most like it",
        description="Up to three existing tags the paper does not have, voted for by "
                    "its most similar papers, each with the reason (the papers and the "
                    "shared terms); a tag is suggested only when its share of the votes "
                    "reaches 0.6 and at least 5 papers have it (a tag with fewer is named "
                    "as not suggested). Accept one with: paperdesk tag add TAG ID. "
                    "--evaluate measures the rule on the library's own tags instead.")
    p.add_argument("id", type=int, nargs="?", help="the paper's id")
    p.add_argument("--evaluate", action="store_true",
                   help="hide a fifth of each tag's papers in turn, ask for them back and "
                        "print precision and recall per tag (nothing is written)")
    p.add_argument("--json", action="store_true",
                   help="print [{tag, tag_id, score, like, shared, reason, suggested}, ...] "
                        "as JSON (suggested: false for a tag with too few examples)")

    p = sub.add_parser("show", help="show one paper")
    p.add_argument("id", type=int, help="the paper's id (from search or the window)")
    p.add_argument("--json", action="store_true", help="print the paper as JSON")

    p = sub.add_parser("stats", help="counts of papers, index documents and sources")
    p.add_argument("--json", action="store_true", help="print as JSON")

    sub.add_parser("reindex", help="rebuild the full-text index from the database")

    p = sub.add_parser("backup", help="copy the library's database to FILE (default: a "
                                      "new file in the library's backups/ folder); works "
                                      "while the window has the library open")
    p.add_argument("file", nargs="?", type=Path, metavar="FILE",
                   help="the copy to write (an earlier backup there is replaced; any "
                        "other file is refused)").complete = _FILES
    p.add_argument("--json", action="store_true",
                   help="print {path, version, counts} as JSON")

    p = sub.add_parser("restore", help="replace the library's database with a backup "
                                       "(the one it replaces is kept in backups/), then "
                                       "rebuild the index")
    p.add_argument("file", nargs="?", type=Path, metavar="FILE",
                   help="the backup (default: the newest in the library's backups/ "
                        "folder)").complete = _FILES
    p.add_argument("--force", action="store_true",
                   help="restore even a backup holding fewer papers, tags, notes, "
                        "highlights or saved searches than the library")

    p = sub.add_parser("repair", help="salvage a damaged database: a new one from every "
                                      "readable page (the damaged file is kept beside it); "
                                      "or add what only a backup has")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--salvage", action="store_true",
                     help="rebuild library.db from every page that can be read, keep the "
                          "damaged file as library.db.damaged-<UTC time>, rebuild the "
                          "index, and report what came back next to the newest backup")
    how.add_argument("--merge-backup", type=Path, metavar="FILE", dest="merge_backup",
                     help="add what only the backup FILE has (papers by content hash, "
                          "their tags, notes, highlights; saved searches) without "
                          "changing any row of the library").complete = _FILES

    p = sub.add_parser("check", help="check the database and the search index (exit 1 with "
                                     "a report naming each problem and the way out)")
    p.add_argument("--json", action="store_true",
                   help="print {ok, papers, indexed, queued, sampled, problems} as JSON")

    p = sub.add_parser("tag", help="add, remove or rename a tag")
    tag_sub = p.add_subparsers(dest="tag_command", metavar="ACTION", required=True,
                               help="add, remove or rename")
    q = tag_sub.add_parser("add", help="tag papers (creates the tag if needed)")
    q.add_argument("tag", help="the tag's name (names ignore case)")
    q.add_argument("ids", nargs="+", type=int, metavar="ID", help="papers to tag")
    q = tag_sub.add_parser("remove", help="remove a tag from papers")
    q.add_argument("tag", help="the tag's name")
    q.add_argument("ids", nargs="+", type=int, metavar="ID", help="papers to untag")
    q = tag_sub.add_parser("rename", help="rename a tag; onto an existing name merges them")
    q.add_argument("old", help="the tag's name now")
    q.add_argument("new", help="its new name (an existing tag's name merges the two)")

    add_screen_parser(sub)

    p = sub.add_parser("saved-search", help="add, list or remove saved searches")
    saved_sub = p.add_subparsers(dest="saved_command", metavar="ACTION", required=True,
                                 help="add, list or remove")
    q = saved_sub.add_parser("add", help="save a query under a name (replaces one of that name)")
    q.add_argument("name", help="the saved search's name")
    q.add_argument("query", help="the query, as for search")
    q = saved_sub.add_parser("list", help="list saved searches with their match counts")
    q.add_argument("--json", action="store_true", help="print as JSON")
    q = saved_sub.add_parser("remove", help="delete a saved search")
    q.add_argument("name", help="the saved search's name (any case)")
    exports = EXPORT_FORMATS.names()
    p = sub.add_parser("export", help=f"export papers as {', '.join(exports[:-1])} or "
                                      f"{exports[-1]}")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--tag", metavar="TAG", help="papers with this tag")
    scope.add_argument("--query", metavar="Q", help="the results of a search")
    scope.add_argument("--saved", metavar="NAME", help="the results of a saved search")
    scope.add_argument("--ids", nargs="+", type=int, metavar="ID", help="these papers")
    scope.add_argument("--all", action="store_true", help="the whole library")
    p.add_argument("--format", choices=list(exports), help="the export format (required)")
    p.add_argument("--fields", metavar="F,F,...",
                   help="fields to include (default all): " + ",".join(FIELDS))
    p.add_argument("-o", "--output", metavar="FILE", type=Path,
                   help="file to write; - or none: standard output"
                   ).complete = _FILES
    bib = p.add_argument_group("--format bibliography (references in a CSL style)")
    bib.add_argument("--style", metavar="STYLE",
                     help=f"a shipped style id (apa, ieee, chicago-author-date, nature, "
                          f"vancouver, ...; default {DEFAULT_STYLE}) or a .csl file")
    bib.add_argument("--locale", metavar="LOCALE",
                     help="a CSL locale such as en-GB or de-DE (default: the style's, "
                          "else en-US)")
    bib.add_argument("--as", dest="output_form", choices=list(BIBLIOGRAPHY_OUTPUTS),
                     help="html (default), text, rtf or markdown")
    bib.add_argument("--with-notes", action="store_true",
                     help="each paper's tags and note below its entry")
    bib.add_argument("--list-styles", action="store_true",
                     help="list the shipped styles (id and title) and stop")

    p = sub.add_parser(
        "edit", help="set a paper's title or own metadata: authors, year or date, venue, "
                     "type, DOI, arXiv id, URL, citation key (an empty value clears it)",
        description="Set a paper's own metadata. Only the options given change; an empty "
                    "value (--doi '') clears that part. Malformed DOIs, arXiv ids, dates "
                    "and URLs are refused with the reason, and nothing changes. Without "
                    "options, prints the metadata.")
    p.add_argument("id", type=int, help="the paper's id")
    p.add_argument("--title", metavar="TEXT",
                   help="its title ('' goes back to the title its file gave it, else the "
                        "one derived from the abstract)")
    p.add_argument("--author", action="append", metavar="NAME",
                   help="an author, 'Family, Given' or 'Given Family'; an organisation in "
                        "braces, '{World Health Organization}' (one name, as BibTeX writes "
                        "it); repeat for each, in order (replaces the authors; 'A; B' also "
                        "gives two); a last 'et al.' (or 'others') says there are more")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--year", metavar="YYYY", help="publication year")
    when.add_argument("--date", metavar="YYYY[-MM[-DD]]", help="publication date")
    p.add_argument("--venue", metavar="TEXT", help="journal, conference or repository")
    p.add_argument("--type", dest="entry_type", metavar="TYPE",
                   help="entry type: " + ", ".join(ENTRY_TYPES))
    p.add_argument("--doi", metavar="DOI", help="the paper's DOI (10.1234/..., doi:, or a "
                                               "doi.org link)")
    p.add_argument("--arxiv", metavar="ID", help="the paper's arXiv id (2212.08630, "
                                                "arXiv:..., or an arxiv.org link)")
    p.add_argument("--url", metavar="URL", help="the paper's own page")
    for f in _CLI_FIELDS:
        p.add_argument(f.cli, dest=f.name, metavar="TEXT", help=f"the paper's {f.label.lower()}")
    key = p.add_mutually_exclusive_group()
    key.add_argument("--key", metavar="KEY", help="its citation key")
    key.add_argument("--regenerate-key", action="store_true",
                     help="give it a new key from its first author, year and title "
                          "(documents citing the old key stop finding it)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")

    p = sub.add_parser("tags", help="list tags with paper counts, colours and keys")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser("note", help="set a paper's note (empty text clears it)")
    p.add_argument("id", type=int, help="the paper's id")
    p.add_argument("text", help="the note (Markdown); - reads it from standard input")

    p = sub.add_parser("mark", help="mark papers read/unread, starred/unstarred")
    p.add_argument("ids", nargs="+", type=int, metavar="ID", help="papers to mark")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--read", dest="read", action="store_true", default=None)
    g.add_argument("--unread", dest="read", action="store_false")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--star", dest="star", action="store_true", default=None)
    g.add_argument("--unstar", dest="star", action="store_false")

    p = sub.add_parser("sources", help="list the imported files with their ids and paper "
                                       "counts")
    p.add_argument("--json", action="store_true", help="print as JSON")

    p = sub.add_parser(
        "delete", help="delete papers with their tags, notes and highlights",
        description="Delete papers from the library, with their tags, notes, highlights "
                    "and links to the files they came from; they leave the search index. "
                    "Tags stay, with fewer papers. Deleting in the window can be undone "
                    "(Ctrl+Z); a command cannot, so --dry-run shows what would go first.")
    p.add_argument("ids", nargs="+", type=int, metavar="ID",
                   help="a paper id (as search, show and export print them)")
    p.add_argument("--dry-run", action="store_true",
                   help="only print the papers that would be deleted")
    p.add_argument("--json", action="store_true", help="print the deleted ids as JSON")

    p = sub.add_parser(
        "remove-file", help="remove an imported file and the papers that came from it only",
        description="Remove an imported file from the library: its record, and the papers "
                    "that came from no other imported file (with their tags, notes and "
                    "highlights). Papers also imported from another file stay. The file "
                    "itself is not touched; importing it again adds its papers anew. A "
                    "command cannot be undone (the window can), so --dry-run shows what "
                    "would go first.")
    p.add_argument("source", metavar="SOURCE",
                   help="the file's id as `paperdesk sources` lists it, its path (as "
                        "imported, or relative to this folder) or its file name"
                   ).complete = _FILES
    p.add_argument("--dry-run", action="store_true",
                   help="only print what would be removed")
    p.add_argument("--json", action="store_true",
                   help="print the file and the deleted and kept paper ids as JSON")

    p = sub.add_parser("completion", help="print the shell completion script for bash or zsh",
                       description="Print a completion script (made by shtab from this "
                                   "command line). bash: paperdesk completion bash > "
                                   "~/.local/share/bash-completion/completions/paperdesk; "
                                   "zsh: paperdesk completion zsh > ~/.zfunc/_paperdesk "
                                   "with fpath+=(~/.zfunc) before compinit in ~/.zshrc.")
    p.add_argument("shell", choices=COMPLETION_SHELLS, help="bash or zsh")

    p = sub.add_parser(
        "duplicates", help="list possible near-duplicate papers; merge or dismiss a pair",
        description="Without an action, lists the open pairs of possible near-duplicates "
                    "(abstracts whose word 3-shingles are at least half shared; see "
                    "docs/duplicates.md), most similar first, after looking at any papers not looked "
                    "at yet.")
    p.add_argument("--json", action="store_true", help="print the pairs as JSON")
    dup_sub = p.add_subparsers(dest="dup_command", metavar="[ACTION]",
                               help="merge or dismiss a pair (without one: list the pairs)")
    q = dup_sub.add_parser("merge", help="merge OTHER into KEEP (tags, notes, highlights "
                                         "and metadata combined; OTHER is removed)",
                           description="Merge paper OTHER into paper KEEP: KEEP gains "
                                       "OTHER's tags, note, highlights (where their text "
                                       "is in KEEP's abstract; the others are quoted in "
                                       "the note), missing metadata, read and star marks "
                                       "and source files; then OTHER is deleted. The "
                                       "window can undo a merge (Ctrl+Z); a command "
                                       "cannot, so it merges only a pair flagged as "
                                       "possible duplicates unless --force is given.")
    q.add_argument("keep", type=int, metavar="KEEP", help="id of the paper to keep")
    q.add_argument("other", type=int, metavar="OTHER",
                   help="id of the paper merged into KEEP and then removed")
    q.add_argument("--force", action="store_true",
                   help="merge two papers that are not a flagged pair (e.g. the same "
                        "paper under two abstracts)")
    q = dup_sub.add_parser("dismiss", help="mark a pair 'not duplicates' (not flagged again)")
    q.add_argument("a", type=int, metavar="A", help="id of one paper of the pair")
    q.add_argument("b", type=int, metavar="B", help="id of the other paper")
    return parser


def _print_json(obj) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


#: Notes (entries left out, values dropped) printed per file; --json carries them all.
_WARNINGS_SHOWN = 20


def _counts(r) -> str:
    """``"14,845 added, 1 enriched, 2 duplicates"`` (+ without abstract / left out when
    any), with thousands separators as the stored and indexed lines have them."""
    out = f"{r.added:,} added, {r.enriched:,} enriched, {r.duplicates:,} duplicates"
    if r.without_abstract:
        out += f", {r.without_abstract:,} without abstract"
    if r.skipped:
        out += f", {r.skipped:,} left out"
    if r.filtered:
        out += f", {r.filtered:,} not matching the filters"
    if getattr(r, "saved_searches", 0):
        n = r.saved_searches
        out += f", {n} saved search{'' if n == 1 else 'es'} added"
    return out


def _cmd_import(lib: Library, args) -> int:
    """Store the files (the papers can be listed, shown, tagged and exported as soon as
    this is done: a line says so), then index them for search with progress (a tqdm bar
    on a terminal, a final line always), then look for near-duplicates. Ctrl+C while
    storing keeps the batches committed; while indexing, keeps every paper (the rest is
    indexed the next time the library is opened for writing); either way exit 130.

    After every batch (stored or indexed) it lets in the commands waiting for their
    turn (``paperdesk tag``, ``note``, ...: :mod:`paperdesk.core.store.lock_turns`);
    every batch reads the database afresh, so their changes are kept and indexed."""
    from paperdesk.cli_progress import ImportBar

    wanted = ArxivFilter(tuple(c.strip() for c in args.category if c.strip()), args.since)
    bar = ImportBar()
    index_cancelled = duplicates_cancelled = False
    turn = _turns(args)

    def progress(stage: str, done: int, total: int) -> None:
        bar.tracker.progress(stage, done, total)
        turn()          # called after each committed batch, outside any transaction

    with _cancel_on_interrupt() as stop:
        try:
            report = lib.imports.run(args.paths, progress=progress,
                                      on_file=bar.tracker.on_file, cancel=stop.is_set,
                                      arxiv_filter=wanted, sync=False,
                                      keywords=args.keywords)
        finally:
            bar.close()
        if not args.json:
            _print_import_counts(report)
        if not report.cancelled:
            _print_stored(lib, report, to_stderr=args.json)
            index_cancelled = not _index_with_progress(lib, stop, to_stderr=args.json,
                                                       between=turn)
            report.index_pending = lib.index.status().queued
            report.cancelled = index_cancelled
        if not report.cancelled:
            # The near-duplicate stage, once the papers are stored and indexed; Ctrl+C
            # stops it too (the papers it did not look at are looked at next time).
            report.near_duplicates = _near_duplicates_with_progress(lib, stop)
            duplicates_cancelled = stop.is_set() and lib.duplicates.pending() > 0
    if wanted and not any(f.format == ARXIV_FORMAT for f in report.files):
        print("paperdesk: note: --category and --since filter arXiv metadata files only; "
              "no file was one", file=sys.stderr)
    if args.json:
        _print_json(report.to_dict())
    elif report.near_duplicates:
        print(f"{report.near_duplicates:,} possible near-duplicate pair(s) flagged; "
              "see paperdesk duplicates")
    for f in report.files:
        for line in f.warnings[:_WARNINGS_SHOWN]:
            print(f"paperdesk: note: {one_line(f.path)}: {line}", file=sys.stderr)
        if len(f.warnings) > _WARNINGS_SHOWN:
            print(f"paperdesk: note: {one_line(f.path)}: ... and "
                  f"{len(f.warnings) - _WARNINGS_SHOWN:,} "
                  "more (see --json)", file=sys.stderr)
    for r in report.rejected:
        print(f"paperdesk: rejected {one_line(r['path'])}: {r['reason']}", file=sys.stderr)
    if report.cancelled:
        n = report.added
        if index_cancelled:
            status = lib.index.status()
            print(f"Cancelled while indexing: {n:,} {'paper' if n == 1 else 'papers'} "
                  "imported and kept; "
                  f"{status.unindexed:,} of {status.papers:,} not yet searchable (they are "
                  "indexed the next time the library is opened)", file=sys.stderr)
        else:
            print(f"Cancelled: {n:,} {'paper was' if n == 1 else 'papers were'} imported "
                  "and kept"
                  + (f" ({report.index_pending:,} not yet searchable: they are indexed the "
                     "next time the library is opened)" if report.index_pending else ""),
                  file=sys.stderr)
        return 130
    if duplicates_cancelled:
        print(f"Cancelled while looking for near-duplicates: {report.added:,} "
              f"{'paper' if report.added == 1 else 'papers'} imported, kept and "
              "searchable; the papers not looked at yet are looked at the next time",
              file=sys.stderr)
        return 130
    return 1 if report.rejected else 0


def _print_import_counts(report) -> None:
    """The import's lines per file and its total (printed once the papers are stored)."""
    for f in report.files:
        if f.error:
            continue
        print(f"{one_line(f.path)}: {_counts(f)}" + (f" ({f.header})" if f.format not in
                                           (None, "text") else ""))
    print(f"total: {_counts(report)}, {len(report.rejected):,} rejected", flush=True)


def _print_stored(lib: Library, report, to_stderr: bool = False) -> None:
    """``stored: 100,000 papers in the library (100,000 new); indexing 100,000 for
    search`` (to standard error for ``--json``, whose standard output is the report)."""
    status = lib.index.status()
    line = (f"stored: {status.papers:,} {'paper' if status.papers == 1 else 'papers'} in "
            f"the library ({report.added:,} new)")
    if not status.complete:
        line += f"; indexing {status.unindexed:,} for search"
    print(f"paperdesk: {line}" if to_stderr else line,
          file=sys.stderr if to_stderr else sys.stdout, flush=True)


def _turns(args) -> Callable[[], None]:
    """What a long command calls between its batches to let the commands waiting for
    the library's lock in (:func:`~paperdesk.core.store.lock_turns.yield_to_waiters`
    with the lock ``main`` put in ``args.library_lock``); nothing without one.

    Raises (from the returned function):
        LibraryError: the lock could not be taken back (the window opened the library
            meanwhile): one line; what was stored stays, what is not indexed stays
            queued.
    """
    lock = getattr(args, "library_lock", None)
    if lock is None:
        return lambda: None

    def turn() -> None:
        try:
            yield_to_waiters(lock)
        except LockHeld as held:
            raise LibraryError(f"stopped after letting another command in: {held}; the "
                               "papers stored so far are kept (what is not searchable yet "
                               "is indexed the next time the library is opened)") from None
    return turn


def _index_with_progress(lib: Library, stop: threading.Event,
                         to_stderr: bool = False,
                         between: Callable[[], None] | None = None) -> bool:
    """Bring the search index up to date, showing ``Indexing for search`` with papers
    searchable of papers in the library (tqdm on a terminal), then one line
    ``indexed: 100,000 of 100,000 papers searchable``; ``between()`` runs after every
    batch (outside any transaction, with no index commit running).

    Returns:
        False when Ctrl+C stopped it (what is left stays queued).
    """
    from paperdesk.cli_progress import ImportBar

    bar = ImportBar()

    def progress(_stage: str, _done: int, _total: int) -> None:
        if bar.enabled:
            status = lib.index.status()
            bar.tracker.progress("index", status.indexed, status.papers)
        if between is not None:
            between()

    try:
        lib.index.sync(progress=progress, cancel=stop.is_set)
    finally:
        bar.close()
    status = lib.index.status()
    if stop.is_set() and status.queued:
        return False
    line = f"indexed: {status.indexed:,} of {status.papers:,} papers searchable"
    print(f"paperdesk: {line}" if to_stderr else line,
          file=sys.stderr if to_stderr else sys.stdout, flush=True)
    return True


def _near_duplicates_with_progress(lib: Library, stop: threading.Event) -> int:
    """The near-duplicate stage after an import (a minute at 100,000 new papers), with
    ``Looking for near-duplicates`` on a terminal; Ctrl+C stops it (the papers it did
    not look at are looked at next time).

    Returns:
        The number of pairs flagged.
    """
    from paperdesk.cli_progress import ImportBar

    bar = ImportBar()
    try:
        return lib.duplicates.find(progress=bar.tracker.progress, cancel=stop.is_set)
    finally:
        bar.close()


@contextlib.contextmanager
def _cancel_on_interrupt():
    """While the block runs, the first Ctrl+C (SIGINT) sets the yielded
    :class:`threading.Event` instead of raising, so that an import stops after its
    current batch with every committed paper whole; a second Ctrl+C raises
    :class:`KeyboardInterrupt` as usual (the open transaction is rolled back). Outside
    the main thread (where signal handlers cannot be set) the event is never set."""
    stop = threading.Event()

    def handler(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:          # not the main thread
        yield stop
        return
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _cmd_search(lib: Library, args) -> int:
    if args.semantic and meaning_text(args.query) is None:
        args.query = f"{MEANING_PREFIX}{args.query}"
    if meaning_text(args.query) is not None:
        _embed_papers(lib)
    # Text output prints no snippets: cut them only for --json.
    results = _with_terms(lib, lambda: lib.search.find(args.query, limit=args.limit,
                                                 sort=args.sort, snippets=args.json))
    damage = lib.index.damage
    if damage and not lib.read_only and lib.db_problem is None:
        # The search met a damaged segment: rebuild the index from SQLite now (with the
        # progress line) and search again, rather than print what the damage left.
        print(f"paperdesk: {damage}; rebuilding it from SQLite", file=sys.stderr, flush=True)
        lib.index.sync(cancel=lambda: True)          # starts the rebuild
        with _cancel_on_interrupt() as stop:
            _index_with_progress(lib, stop, to_stderr=True)
        results = lib.search.find(args.query, limit=args.limit, sort=args.sort,
                           snippets=args.json)
    elif damage:
        print(f"paperdesk: note: {damage}; run paperdesk check when the library is free",
              file=sys.stderr)
    if results.message:
        print(f"paperdesk: note: {results.message}", file=sys.stderr)
    if results.interest is not None:     # how it was ordered, or why not (date order)
        print(f"paperdesk: note: {results.interest.message}", file=sys.stderr)
    if results.partial:
        print(f"paperdesk: note: {_coverage_note(lib, results)}", file=sys.stderr)
    else:
        waiting = lib.index.status().queued
        if waiting:       # changes (tags, notes, titles) not yet in the index
            print(f"paperdesk: note: the latest changes to {waiting:,} papers are not "
                  "searchable yet; the next command that writes, the window or "
                  "paperdesk check indexes them", file=sys.stderr)
    if args.json:
        _print_json(search_json(results))
        return 0
    if results.suggestion:
        print(f"did you mean: {results.suggestion}")
    if not results.hits:
        print("no matches")
        return 0
    reasons = results.interest.reasons if results.interest is not None else {}
    interest = results.interest.scores if results.interest is not None else {}
    for h in results.hits:       # sorted by interest: its score (log-odds), not BM25F's
        print(f"{h.id:>6}  {interest.get(h.id, h.score):6.2f}  {h.title or NO_TITLE}")
        if reasons.get(h.id):
            print(f"{'':>6}  {'':6}  up: {', '.join(reasons[h.id])}")
    if results.total > len(results.hits):
        print(f"({len(results.hits):,} of {results.total:,} shown; use --limit)")
    return 0


def _coverage_note(lib: Library, results) -> str:
    """What a partial search covered and, when nothing is indexing the rest, what to
    run. Something indexes only while another process (an import, the window) holds
    the library's lock; a search that holds it indexes the rest before searching, so
    papers left over here mean the indexing was stopped (Ctrl+C) or the library cannot
    be written (a read-only folder, a full disk)."""
    if lib.read_only and LibraryLock(lib.path).holder() is not None:
        return results.coverage_note(indexing=True)
    if low_space(lib.path):
        remedy = "the disk is full: free some space, then run paperdesk reindex"
    elif lib.read_only:
        remedy = "run paperdesk reindex once the library can be written"
    else:
        remedy = "run paperdesk reindex, or any command that writes"
    return f"{results.coverage_note(indexing=False)}: {remedy}"


def _with_terms(lib: Library, answer):
    """``answer()``, building the term table first when it must be
    (:class:`~paperdesk.core.discover.models.TermsNotReady`): ``Finding key terms`` with
    papers read of papers in the library on standard error (a tqdm bar on a terminal,
    a final line always). Ctrl+C stops the build (the table it had stays).

    Args:
        lib: the open library.
        answer: a function asking ``lib.discover`` (or a sort by interest).
    Returns:
        What ``answer`` returns.
    Raises:
        LibraryError: the paper has no terms (one line), or the build failed.
        KeyboardInterrupt: Ctrl+C stopped the build.
    """
    from paperdesk.cli_progress import ImportBar
    from paperdesk.core.api import BuildCancelled, BuildFailed
    from paperdesk.core.api import NotInTable, TermsNotReady

    try:
        try:
            return answer()
        except TermsNotReady as exc:
            print(f"paperdesk: note: {exc}; finding the papers' key terms now",
                  file=sys.stderr, flush=True)
        bar = ImportBar()
        with _cancel_on_interrupt() as stop:
            try:
                status = lib.discover.ensure(
                    progress=lambda done, total: bar.tracker.progress("terms", done, total)
                    if bar.enabled else None, cancel=stop.is_set)
            except BuildCancelled:
                raise KeyboardInterrupt from None
            except BuildFailed as exc:
                raise LibraryError(f"the term table cannot be built: {exc}") from None
            finally:
                bar.close()
        kept = "" if status.not_kept is None else \
            f", in memory only: {status.not_kept}, so the term table is not kept"
        print(f"paperdesk: key terms found for {status.papers:,} papers{kept}",
              file=sys.stderr, flush=True)
        try:
            return answer()
        except TermsNotReady as exc:    # another process added many papers meanwhile
            raise LibraryError(f"{exc} (papers were added while it was built); "
                               "try again when the import is done") from None
    except NotInTable as exc:
        raise LibraryError(str(exc)) from None


def _embed_papers(lib: Library) -> int:
    """Embed the papers without a vector before a search by meaning,
    with a line before and after on standard error; Ctrl+C stops it (what was done is
    kept). Without the model, or in a library that must not be written, nothing is done
    and the answer is BM25's (its note says why).

    Returns:
        How many papers were embedded.
    Raises:
        LibraryError: the embedding failed (one line).
        KeyboardInterrupt: Ctrl+C.
    """
    from paperdesk.core.api import BuildCancelled, BuildFailed

    embeddings = lib.discover.embeddings
    if embeddings.problem() or lib.discover.not_writable() is not None:
        return 0
    missing = embeddings.missing()
    if not missing:
        return 0
    print(f"paperdesk: note: embedding {missing:,} papers (once; related papers and "
          "search by meaning use the vectors)", file=sys.stderr, flush=True)
    with _cancel_on_interrupt() as stop:
        try:
            done = embeddings.ensure(cancel=stop.is_set)
        except BuildCancelled:
            raise KeyboardInterrupt from None
        except BuildFailed as exc:
            raise LibraryError(str(exc)) from None
    print(f"paperdesk: {done:,} papers embedded", file=sys.stderr, flush=True)
    return done


def _cmd_related(lib: Library, args) -> int:
    # the hybrid when the papers were embedded (by the window or search --semantic)
    related = _with_terms(lib, lambda: lib.discover.related(args.id, limit=args.limit))
    if args.json:
        _print_json([{"id": r.id, "title": r.title, "score": r.score,
                      "shared": list(r.shared), "authors": list(r.authors),
                      "venue": r.venue}
                     for r in related])
        return 0
    if not related:
        print("no related papers")
    for r in related:
        print(f"{r.id:>6}  {r.score:5.3f}  {r.title or NO_TITLE}")
        if r.shared:
            print(f"{'':>6}  {'':5}  shares: {', '.join(r.shared)}")
        if r.authors:
            print(f"{'':>6}  {'':5}  same authors: {', '.join(r.authors)}")
        if r.venue:
            print(f"{'':>6}  {'':5}  same venue: {r.venue}")
    return 0


def _cmd_terms(lib: Library, args) -> int:
    from paperdesk.core.api import term_query

    terms = _with_terms(lib, lambda: lib.discover.key_terms(args.id, limit=args.limit))
    if args.json:
        _print_json([{"term": t.term, "weight": t.weight, "query": term_query(t.term)}
                     for t in terms])
        return 0
    for t in terms:
        print(f"{t.weight:5.3f}  {t.term}")
    return 0


def _cmd_suggest_tags(lib: Library, args) -> int:
    if args.evaluate:
        return _evaluate_suggestions(lib, args)
    if args.id is None:
        raise LibraryError("suggest-tags needs a paper's id, or --evaluate")
    found = _with_terms(lib, lambda: lib.discover.suggest_tags(args.id))
    if args.json:
        _print_json([{"tag": s.name, "tag_id": s.tag_id, "score": s.score,
                      "like": list(s.like), "shared": list(s.shared), "reason": s.reason,
                      "suggested": not s.held_back}
                     for s in found])
        return 0
    if not any(not s.held_back for s in found):
        print("no tag to suggest (too few similar papers have a tag it has not)")
    for s in found:
        print(f"{s.name}  ({s.reason})" if s.held_back
              else f"{s.name}  ({s.score:.2f}: {s.reason})")
    return 0


def _evaluate_suggestions(lib: Library, args) -> int:
    """``suggest-tags --evaluate``: the held-out evaluation of the library's own tags
    (:mod:`paperdesk.core.discover.tag_evaluation`), as Markdown or, with ``--json``,
    ``{"papers", "min_share", "overall": {tag, papers, suggested, right, precision,
    recall}, "tags": [...], "by_share": {share: {...}}}``."""
    from paperdesk.core.api import evaluate_tags, evaluation_report, library_tags

    tags = library_tags(lib)
    if not tags:
        raise LibraryError("no tagged paper to evaluate the suggestions on")
    found = _with_terms(lib, lambda: evaluate_tags(lib, tags, str(lib.path)))
    if args.json:
        def counts(t):
            return {"tag": t.tag, "papers": t.papers, "suggested": t.suggested,
                    "right": t.right, "precision": t.precision, "recall": t.recall}
        _print_json({"papers": found.papers, "min_share": found.min_share,
                     "overall": counts(found.overall), "tags": [counts(t) for t in found.tags],
                     "by_share": {str(s): counts(t) for s, t in found.by_share.items()}})
        return 0
    sys.stdout.write(evaluation_report(found))
    return 0


def search_json(results) -> dict:
    """The ``search --json`` document: ``{"query": str, "total": int, "total_exact":
    bool, "shown": int, "suggestion": str | None, "message": str | None, "partial": bool,
    "indexed": int | None, "papers": int | None, "hits": [{"id", "title", "score",
    "snippet", "snippet_spans"}, ...]}``; ``total`` counts every match, ``shown`` the
    hits printed (at most ``--limit``); ``partial`` is true while the index is still
    catching up with an import (then ``indexed`` of ``papers`` were searched).

    Args:
        results: a :class:`~paperdesk.core.models.SearchResults`.
    Returns:
        The dict.
    """
    doc = results.to_dict()
    hits = doc.pop("hits")
    return {**doc, "shown": len(hits), "hits": hits}


def _cmd_show(lib: Library, args) -> int:
    paper = lib.papers.get(args.id)
    if args.json:
        _print_json(paper.to_dict())
        return 0
    print(paper.title or NO_TITLE)
    print(f"id {paper.id} · added {paper.added_at} · {'read' if paper.read else 'unread'}"
          + (" · starred" if paper.starred else ""))
    if paper.tags:
        print("tags: " + ", ".join(t.name for t in paper.tags))
    print()
    _print_metadata(paper)
    print()
    print(paper.abstract)
    if paper.highlights:
        print("\nHighlights:")
        for h in paper.highlights:
            print(f"  “{h.text}”" + (f" — {h.comment}" if h.comment else ""))
    if paper.note:
        print("\nNote:\n" + paper.note)
    said = paper.mentioned
    if said:
        print("\nMentioned in the abstract:")
        for u in said.urls:
            print(f"  {u}")
        for a in said.arxiv_ids:
            print(f"  arXiv:{a}")
        for d in said.dois:
            print(f"  doi:{d}")
    print("\nSources:")
    for s in paper.sources:
        print(f"  {one_line(s.path)} (abstract {s.position}, “{one_line(s.header)}”)")
    return 0


def _metadata_dict(lib: Library, pid: int) -> dict:
    paper = lib.papers.get(pid)
    return {"id": pid, "title": paper.title, "citation_key": paper.citation_key,
            **paper.to_dict()["metadata"], "entry_type_written": paper.entry_type}


def _cmd_edit(lib: Library, args) -> int:
    meta = lib.papers.metadata(args.id)
    given = {}
    if args.author is not None:
        given["authors"], given["et_al"] = read_author_list("; ".join(args.author))
    if args.year is not None:
        if args.year.strip() and not re.fullmatch(r"\d{4}", args.year.strip()):
            raise MetadataError(f"year: {args.year.strip()!r} is not a year (use 2023)")
        given["date"] = args.year
    elif args.date is not None:
        given["date"] = args.date
    for option, part in (("venue", "venue"), ("entry_type", "entry_type"), ("doi", "doi"),
                         ("arxiv", "arxiv_id"), ("url", "url")):
        value = getattr(args, option)
        if value is not None:
            given[part] = value
    typed = {f.name: getattr(args, f.name) for f in _CLI_FIELDS
             if getattr(args, f.name) is not None}
    if typed:
        given["values"] = field_values({**dict(meta.values), **typed})
    changed = []
    if given or args.key is not None:
        done = lib.papers.set_metadata(args.id, replace(meta, **given), citation_key=args.key)
        changed += ["citation key" if f == "citation_key" else f for f in sorted(done.fields)]
    if args.regenerate_key:
        if lib.papers.regenerate_citation_key(args.id):
            changed.append("citation key")
    if args.title is not None and lib.papers.set_title(args.id, args.title):
        changed.insert(0, "title")
    if args.json:
        _print_json(_metadata_dict(lib, args.id))
        return 0
    if given or args.key is not None or args.regenerate_key or args.title is not None:
        print(f"paper {args.id}: " + (" and ".join(changed) + " saved" if changed
                                       else "nothing changed"))
    _print_metadata(lib.papers.get(args.id))
    return 0


def _print_metadata(paper) -> None:
    meta = paper.metadata
    rows = [("title", paper.title), ("key", paper.citation_key),
            *((("aliases", ", ".join(paper.key_aliases)),) if paper.key_aliases else ()),
            ("authors", format_author_list(meta.authors, meta.et_al)),
            ("date", meta.date or ""),
            *((f.name, meta.value(f.name)) for f in stored_fields(containers=True)),
            ("type", meta.entry_type or f"(not set: written as {paper.entry_type})"),
            ("doi", meta.doi or ""), ("arxiv", meta.arxiv_id or ""), ("url", meta.url or ""),
            *((f.name, meta.value(f.name)) for f in stored_fields(containers=False))]
    for name, value in rows:
        print(f"{name + ':':<9}{value}")


def _cmd_stats(lib: Library, args) -> int:
    stats = lib.papers.stats()
    if args.json:
        _print_json(stats)
    else:
        for key, value in stats.items():
            if key in ("database_problem", "index_repair") and value is None:
                continue        # printed only when there is a problem
            # counts as people read them ("12,345"); --json keeps plain numbers
            shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) \
                else value
            print(f"{key}: {shown}")
        if stats["unindexed"]:
            print(f"indexing: {stats['searchable']:,} of {stats['papers']:,} papers "
                  f"searchable, {stats['unindexed']:,} pending")
    return 0


def _cmd_reindex(lib: Library, args) -> int:
    from paperdesk.cli_progress import ImportBar

    bar = ImportBar()   # "Indexing for search" on a terminal (35 s at 100,000 papers)
    try:
        n = lib.index.reindex(progress=bar.tracker.progress)
    finally:
        bar.close()
    print(f"indexed {n:,} papers")
    return 0


def _cmd_check(lib: Library, args) -> int:
    """``paperdesk check``: the full check (:func:`paperdesk.core.check.check_library`),
    its step and time on a status line on a terminal
    (:class:`~paperdesk.cli_progress.StatusLine`); damage to the index found by it (or
    at open) is repaired from SQLite here, with the progress line of an index update."""
    from paperdesk.cli_progress import StatusLine
    from paperdesk.core.check import STEPS, Problem, check_library

    repair = None if lib.read_only else lib.index.repair   # read-only: the report has it

    def progress(done: int, total: int) -> None:
        if done < len(STEPS):
            line.set(f"{STEPS[done]} (step {done + 1} of {total})")

    with _cancel_on_interrupt() as stop:
        with StatusLine() as line:
            report = check_library(lib, progress=progress, cancel=stop.is_set)
        if repair:
            report.problems.insert(0, Problem("index", repair, "repaired from SQLite"))
        queued = any(p.remedy == "indexed now" for p in report.problems)
        if not args.json:
            # What is wrong first, then what is done about it (the index rebuilt, with
            # its progress and its "indexed: ..." line), as a user reads it.
            print(report.text(), flush=True)
        if lib.index.damage or ((repair or queued) and not stop.is_set()):
            if lib.index.damage:
                lib.index.sync(cancel=lambda: True)      # starts the rebuild
            if not _index_with_progress(lib, stop, to_stderr=True):
                status = lib.index.status()
                print(f"paperdesk: stopped while indexing: {status.indexed:,} of "
                      f"{status.papers:,} papers searchable; the rest are indexed the "
                      "next time the library is opened", file=sys.stderr)
    if args.json:
        _print_json(report.as_dict())
    if report.cancelled and not report.problems:
        return 130                # Ctrl+C: stopped, nothing found so far
    return 0 if report.ok else 1


def _cmd_tag(lib: Library, args) -> int:
    if args.tag_command == "add":
        changes = lib.tags.add(args.ids, args.tag)
        tag = lib.tags.by_name(args.tag)
        print(f"tagged {len(changes.papers):,} paper(s) with {tag.name!r}")
    elif args.tag_command == "remove":
        changes = lib.tags.remove(args.ids, args.tag)
        tag = lib.tags.by_name(args.tag)
        print(f"removed {tag.name!r} from {len(changes.papers):,} paper(s)")
    else:
        tag = lib.tags.by_name(args.old)
        if tag is None:
            raise LibraryError(f"no tag named {args.old!r}")
        verb = "merged into" if lib.tags.is_merge(tag.id, args.new) else "renamed to"
        lib.tags.rename(tag.id, args.new)
        result = lib.tags.by_name(args.new)
        print(f"{tag.name!r} {verb} {result.name!r} ({result.count:,} papers)")
    return 0


def _cmd_tags(lib: Library, args) -> int:
    tags = lib.tags.all()
    if args.json:
        _print_json([t.to_dict() for t in tags])
        return 0
    if not tags:
        print("no tags")
    for t in tags:
        key = f"  key {t.key}" if t.key else ""
        print(f"{t.count:>7,}  {t.colour}  {t.name}{key}")
    return 0


def read_stdin_text() -> str:
    """Standard input as text: its bytes decoded as UTF-8 (a byte-order mark dropped),
    each byte that is not UTF-8 replaced by U+FFFD, so that ``printf 'note \\xff' |
    paperdesk note 1 -`` stores "note \ufffd" instead of failing.

    Returns:
        The text (``""`` when standard input is closed or empty).
    """
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is None:    # replaced by a text stream (tests, embedding)
        return _clean_text(sys.stdin.read()) if sys.stdin is not None else ""
    return buffer.read().decode("utf-8-sig", "replace")


def _cmd_note(lib: Library, args) -> int:
    text = read_stdin_text() if args.text == "-" else args.text
    had_note = bool(lib.notes.get(args.id).strip())
    lib.notes.set(args.id, text)
    if text.strip():
        print("note saved")
    else:
        print("note cleared" if had_note else "no note to clear")
    return 0


def _cmd_mark(lib: Library, args) -> int:
    if args.read is None and args.star is None:
        raise LibraryError("say what to mark: --read, --unread, --star or --unstar")
    if args.read is not None:
        lib.papers.set_read(args.ids, args.read)
    if args.star is not None:
        lib.papers.set_starred(args.ids, args.star)
    print(f"marked {len(set(args.ids)):,} paper(s)")
    return 0


def _cmd_sources(lib: Library, args) -> int:
    sources = lib.removal.sources()
    if args.json:
        _print_json([s.to_dict() for s in sources])
        return 0
    if not sources:
        print("no imported files")
    for s in sources:
        print(f"{s.id:>6}  {s.papers:>6,} {'paper' if s.papers == 1 else 'papers'}  "
              f"{one_line(s.path)}")
    return 0


def _papers(n: int) -> str:
    return "1 paper" if n == 1 else f"{n:,} papers"


def _cmd_delete(lib: Library, args) -> int:
    ids = list(dict.fromkeys(args.ids))
    if args.dry_run:
        titles = {s.id: s.title for s in lib.papers.summaries(ids).values()}
        missing = [i for i in ids if i not in titles]
        if missing:
            raise LibraryError(f"no paper with id {missing[0]}")
        if args.json:
            _print_json({"deleted": ids, "dry_run": True})
            return 0
        print(f"would delete {_papers(len(ids))}:")
        for i in ids:
            print(f"{i:>6}  {titles[i]}")
        return 0
    changes = lib.removal.delete_papers(ids)
    if args.json:
        _print_json({"deleted": sorted(changes.papers)})
    else:
        print(f"deleted {_papers(len(changes.papers))}")
    return 0


def _cmd_remove_file(lib: Library, args) -> int:
    plan = lib.removal.plan(lib.removal.find_source(args.source).id)
    if not args.dry_run:
        lib.removal.remove_source(plan.source.id)
    if args.json:
        _print_json(dict(plan.to_dict(), dry_run=args.dry_run))
        return 0
    n = len(plan.kept)
    kept = ("" if not n else "; 1 paper also from another file stays" if n == 1
            else f"; {n:,} papers also from other files stay")
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {plan.source.path} (id {plan.source.id}): "
          f"{_papers(len(plan.deleted))} {'would go' if args.dry_run else 'deleted'}{kept}")
    return 0


def _cmd_saved(lib: Library, args) -> int:
    if args.saved_command == "add":
        lib.saved_searches.save(args.name, args.query)
        saved = lib.saved_searches.get(args.name)
        print(f"saved {saved.name!r}: {saved.query}")
    elif args.saved_command == "remove":
        gone = lib.saved_searches.get(args.name)
        lib.saved_searches.delete(args.name)
        print(f"removed {gone.name!r}")
    else:
        rows = [dict(s.to_dict(), count=lib.search.find(s.query, limit=1, snippets=False,
                                                 suggest=False).total)
                for s in lib.saved_searches.all()]
        if args.json:
            _print_json(rows)
        elif not rows:
            print("no saved searches")
        for r in ([] if args.json else rows):
            print(f"{r['count']:>6}  {r['name']}: {r['query']}")
    return 0


_BIBLIOGRAPHY_OPTIONS = (("style", "--style"), ("locale", "--locale"),
                         ("output_form", "--as"), ("with_notes", "--with-notes"))


def _check_export_args(parser: argparse.ArgumentParser, args) -> None:
    """Usage errors of ``export`` (exit 2): a format and a scope unless --list-styles,
    and the bibliography's options only with ``--format bibliography``."""
    if args.list_styles:
        return
    if args.format is None:
        parser.error("export: --format is required (or --list-styles)")
    empty = [flag for flag, value in (("--tag", args.tag), ("--query", args.query),
                                      ("--saved", args.saved))
             if value is not None and not value.strip()]
    if empty:
        parser.error(f"export: {empty[0]} is empty: give "
                     + ("the words to search for" if empty[0] == "--query" else "a name")
                     + " (or --all for every paper)")
    if not (args.tag or args.query or args.saved or args.ids or args.all):
        parser.error("export: one of the arguments --tag --query --saved --ids --all is "
                     "required (the papers to export)")
    given = [flag for name, flag in _BIBLIOGRAPHY_OPTIONS if getattr(args, name)]
    if given and args.format != "bibliography":
        verb = "goes" if len(given) == 1 else "go"
        parser.error(f"export: {', '.join(given)} only {verb} with --format bibliography")


def _cmd_list_styles() -> int:
    """``export --list-styles``: every shipped style's id and title, one a line."""
    for style_id, title in shipped_styles():
        print(f"{style_id}\t{title}")
    return 0


def _bibliography_options(args) -> dict:
    """The bibliography's options from the command line, the style and locale checked
    first (an unknown one is one line, before any paper is read)."""
    style = args.style or DEFAULT_STYLE
    load_style(style)
    if args.locale:
        check_locale(args.locale)
    return {"style": style, "locale": args.locale, "output": args.output_form or "html",
            "with_notes": args.with_notes}


def _empty_scope(lib: Library, args) -> str:
    """Why an export's scope holds no papers, in words (a query's own message when it
    searched for nothing, e.g. ``NOT`` alone)."""
    if args.query is not None:
        message = lib.search.find(args.query, limit=0, suggest=False).message
        return (f"the search “{args.query}”: {message}" if message
                else f"no paper matches the search “{args.query}”")
    if args.tag is not None:
        return f"no paper has the tag “{args.tag}”"
    if args.saved is not None:
        return f"no paper matches the saved search “{args.saved}”"
    return "the scope holds no papers"


def _cmd_export(lib: Library, args) -> int:
    options = _bibliography_options(args) if args.format == "bibliography" else None
    ids = lib.exports.scope_ids(tag=args.tag, query=args.query, saved=args.saved, ids=args.ids,
                           everything=args.all)
    if not ids:
        raise LibraryError(f"nothing to export: {_empty_scope(lib, args)}")
    to_stdout = args.output is None or str(args.output) == STDOUT
    if not to_stdout and (not str(args.output).strip() or args.output.is_dir()):
        raise LibraryError(f"{args.output} is a folder; give a file name with -o")
    fields = None
    if args.fields:
        fields = [f.strip() for f in args.fields.split(",") if f.strip()]
        unknown = sorted(set(fields) - set(FIELDS))
        if unknown:
            raise LibraryError(f"unknown field(s) {', '.join(unknown)}; "
                               f"choose from {','.join(FIELDS)}")
    if to_stdout:
        _write_stdout(lib.exports.text(ids, args.format, fields, options).encode("utf-8"))
        n = len(ids)
    else:
        n = lib.exports.to_file(ids, args.format, args.output, fields, options=options)
        print(f"exported {n:,} paper(s) to {args.output}", file=sys.stderr)
    if options is not None:     # said on stderr whether the references went to a file or not
        missing = missing_author_or_year(lib.papers.get(i) for i in ids)
        if missing:
            print(f"paperdesk: note: {missing:,} of the {n:,} papers have no author or no year; "
                  "they are formatted by title, as the style says for missing data",
                  file=sys.stderr)
    return 0


def _cmd_duplicates(lib: Library, args) -> int:
    if args.dup_command == "merge":
        plan = lib.duplicates.merge_preview(args.keep, args.other)
        if not args.force and not lib.duplicates.is_flagged(args.keep, args.other):
            print(f"paperdesk: papers {args.keep} and {args.other} are not an open pair "
                  "of possible duplicates (see `paperdesk duplicates`); a command's merge "
                  "cannot be undone: add --force to merge them anyway", file=sys.stderr)
            return 1
        lib.duplicates.merge(args.keep, args.other)
        print(f"merged paper {args.other} into paper {args.keep}: {plan.summary()}")
        return 0
    if args.dup_command == "dismiss":
        lib.duplicates.dismiss(args.a, args.b)
        print(f"papers {min(args.a, args.b)} and {max(args.a, args.b)}: not duplicates")
        return 0
    if not lib.read_only:
        lib.duplicates.find()
    pairs = lib.duplicates.pairs()
    if args.json:
        _print_json([p.to_dict() for p in pairs])
        return 0
    if not pairs:
        print("no possible duplicates")
    for p in pairs:
        print(f"{p.paper_a:>6} {p.paper_b:>6}  {p.similarity:5.2f}  {p.title_a}")
        print(f"{'':>14}  {'':5}  {p.title_b}")
    return 0


def _write_stdout(data: bytes) -> None:
    """Write bytes to standard output as they are (the same bytes an export file gets:
    UTF-8, line ends untouched), through the binary buffer when there is one."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None or isinstance(sys.stdout, TerminalSafeStream):
        sys.stdout.write(data.decode("utf-8"))   # on a terminal: controls shown as text
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def completion_script(shell: str) -> str:
    """The shell completion script (shtab, https://github.com/iterative/shtab) of
    :func:`build_parser`, with file names offered where ``paperdesk FILE...`` takes them:
    at the top level next to the commands (the parser has no positional argument for
    them, :func:`split_open_files` finds them), as for ``import`` paths and
    ``remove-file``'s SOURCE.

    Args:
        shell: ``"bash"`` or ``"zsh"``.
    Returns:
        The script's text.
    """
    import shtab

    parser = build_parser()
    kinds = {_FILES: shtab.FILE, _FOLDERS: shtab.DIRECTORY}
    parsers = [parser]
    while parsers:
        for action in parsers.pop()._actions:
            if isinstance(getattr(action, "complete", None), str):
                action.complete = kinds[action.complete]
            if isinstance(action, argparse._SubParsersAction):
                parsers.extend(action.choices.values())
    script = shtab.complete(parser, shell=shell)
    if shell == "bash":    # the commands' position completes files too (shtab reads
        # a position's _COMPGEN function and its choices both)
        script = script.replace(
            "\n_shtab_paperdesk___library_COMPGEN=",
            "\n_shtab_paperdesk_pos_0_COMPGEN=_shtab_compgen_files"
            "\n_shtab_paperdesk___library_COMPGEN=", 1)
    elif shell == "zsh":
        script = script.replace("  _describe 'paperdesk commands' _commands\n}",
                                "  _describe 'paperdesk commands' _commands\n  _files\n}", 1)
    return script


def _cmd_completion(args) -> int:
    sys.stdout.write(completion_script(args.shell))
    return 0


def _cmd_desktop(args) -> int:
    from paperdesk.core import desktop

    try:
        if args.command == "install-desktop":
            paths = desktop.install(exec_path=args.exec_path)
            print(f"installed the launcher {paths[0]}")
            print(f"and {len(paths) - 1} icon files; paperdesk is in the application menu")
        else:
            paths = desktop.uninstall()
            print(f"removed {len(paths)} file(s)" if paths else "nothing to remove")
    except desktop.DesktopError as exc:
        print(f"paperdesk: {exc}", file=sys.stderr)
        return 1
    return 0


def _is_earlier_backup(path: Path) -> bool:
    """Whether ``path`` may be replaced by a backup: a regular file with SQLite's header
    ("SQLite format 3\\0", https://www.sqlite.org/fileformat.html section 1.3) holding a
    paperdesk library (its ``papers`` and ``index_queue`` tables), and not a library's
    own live ``library.db`` (of this library or another)."""
    if path.name == DB_NAME or not path.is_file():
        return False
    try:
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return False
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    return {"papers", "index_queue"} <= tables


def _cmd_backup(lib: Library, args) -> int:
    """``paperdesk backup [FILE]``: a consistent copy of the database (a reader: it works
    beside the window), printed with what it holds; on a terminal a status line shows the MB
    copied (:class:`~paperdesk.cli_progress.StatusLine`)."""
    target = args.file or backup_name(lib.path / BACKUP_DIR)
    own = {lib.path / name for name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm",
                                         LOCK_NAME)}
    existing = Path(target).expanduser()
    try:             # a folder on the way that this user may not enter: say which file
        if existing.absolute().resolve() in {p.resolve() for p in own}:
            raise LibraryError(f"{target} is one of the library's own files: back up to "
                               "another file")
        replaces = existing.exists()
    except OSError as exc:
        raise LibraryError(f"cannot write the backup {existing.absolute()}: "
                           f"{exc.strerror or exc}") from exc
    if lib.db_problem:
        raise LibraryError(f"cannot back up a damaged database: {lib.db_problem}")
    if replaces and not _is_earlier_backup(existing):
        raise LibraryError(f"{target} exists and is not a database backup: not replaced; "
                           "give a new file name")
    from paperdesk.cli_progress import StatusLine

    from paperdesk.core.api import BackupCancelled

    # Ctrl+C stops the copy through SQLite's progress handler (nothing is left behind)
    with _cancel_on_interrupt() as stop, StatusLine() as line:
        try:
            if line.enabled:     # a terminal: the MB copied
                line.set(f"backing up {lib.path / DB_NAME}")
                made = backup_to(lib.db.conn, target, cancel=stop.is_set,
                                 progress=lambda done, total: line.set(
                                     f"backing up {lib.path / DB_NAME}: "
                                     f"{done / 2**20:,.0f} of {total / 2**20:,.0f} MB"))
            else:
                made = backup_to(lib.db.conn, target, cancel=stop.is_set)
        except BackupCancelled:
            made = None
    if made is None:
        print("paperdesk: backup stopped: nothing was written", file=sys.stderr)
        return 130
    if args.json:
        _print_json({"path": str(made.path), "version": made.version, "counts": made.counts})
    else:
        print(f"backed up to {display_path(made.path)}: {describe_counts(made.counts)}")
    return 0


_COMMANDS = {
    "check": _cmd_check,
    "edit": _cmd_edit,
    "import": _cmd_import,
    "search": _cmd_search,
    "show": _cmd_show,
    "stats": _cmd_stats,
    "reindex": _cmd_reindex,
    "tag": _cmd_tag,
    "tags": _cmd_tags,
    "note": _cmd_note,
    "mark": _cmd_mark,
    "saved-search": _cmd_saved,
    "export": _cmd_export,
    "sources": _cmd_sources,
    "delete": _cmd_delete,
    "remove-file": _cmd_remove_file,
    "duplicates": _cmd_duplicates,
    "backup": _cmd_backup,
    "related": _cmd_related,
    "terms": _cmd_terms,
    "suggest-tags": _cmd_suggest_tags,
    "screen": run_screen,
}


#: Commands that only read the library: they still run, read-only, while another process
#: holds its lock; every other command is refused then.
_READ_ONLY_COMMANDS = {"search", "show", "stats", "tags", "export", "sources", "backup",
                       "check", "related", "terms", "suggest-tags"}
#: Commands that run on a damaged database (they report it or replace it: the backup
#: and restore commands): neither refused nor warned.
_DAMAGE_COMMANDS = {"check", "backup", "restore"}
#: Commands that need no search index: after damage to it was found at open, they leave
#: its rebuild (from SQLite, with a progress line) to the next command that searches.
_NO_INDEX_COMMANDS = {"show", "stats", "tags", "sources", "related", "terms",
                      "suggest-tags"}
#: Index-queue entries a command applies silently when it opens the library; a command
#: that only reads leaves a longer queue (what an interrupted import left) alone.
QUIET_SYNC_MAX = 200


#: Commands that wait their turn while another command holds the library's lock (an
#: import lets them in between its batches: :mod:`paperdesk.core.store.lock_turns`);
#: other commands that write are refused at once then.
_WAITING_COMMANDS = {"tag", "note", "mark", "edit", "saved-search", "screen"}
#: What a command holding the lock does, as others are told (``"importing"``).
_DOING = {"import": "importing", "reindex": "reindexing", "delete": "deleting papers",
          "remove-file": "removing a file", "duplicates": "merging duplicates"}


def _say_waiting(holder: LockInfo) -> None:
    """The one line a command prints when it starts waiting for its turn."""
    doing = f", {holder.doing}" if holder.doing else ""
    print(f"paperdesk: waiting for a paperdesk command (pid {holder.pid}{doing}) to let "
          f"this change in (at most {wait_bound():g} s; ${WAIT_ENV} sets it)",
          file=sys.stderr, flush=True)


#: The options of ``edit`` that change something.
_EDIT_OPTIONS = ("title", "author", "year", "date", "venue", "entry_type", "doi", "arxiv", "url",
                 "key", "regenerate_key", *(f.name for f in _CLI_FIELDS))


def writes(args: argparse.Namespace) -> bool:
    """Return True if the parsed command changes the library (see
    :data:`_READ_ONLY_COMMANDS`; ``saved-search list`` and ``--dry-run`` only read)."""
    if args.command == "saved-search":
        return args.saved_command != "list"
    if args.command == "duplicates":   # listing only reads (looking at new papers, when
        return args.dup_command is not None      # it may write, is a cache)
    if args.command == "edit":      # without options it only prints the metadata
        return any(getattr(args, o) not in (None, False) for o in _EDIT_OPTIONS)
    if args.command in ("delete", "remove-file"):
        return not args.dry_run
    if args.command == "screen":     # --next only reads (its feature cache is derived)
        return screen_writes(args)
    return args.command not in _READ_ONLY_COMMANDS


def _open_library(path: Path, args: argparse.Namespace) -> tuple[Library, LibraryLock | None]:
    """Open the library for a command, holding its lock when possible.

    A command takes the library's lock (:mod:`paperdesk.core.store.lock`) while it runs, so the
    window cannot open it meanwhile. While another process (a window, or a command)
    holds it, a command that writes is refused, and one that reads opens the library
    read-only (no index repair or update). A small edit (:data:`_WAITING_COMMANDS`)
    held off by another *command* waits its turn instead, saying so in one line, for
    at most :func:`~paperdesk.core.store.lock_turns.wait_bound` seconds; let in by an
    import between its batches, it leaves the search index to that import
    (:mod:`paperdesk.core.store.lock_turns`).

    Returns:
        ``(library, lock)``; ``lock`` is ``None`` when the library was opened read-only.
    Raises:
        LibraryError: the lock is held and the command writes (:class:`LockHeld`), the
            library cannot be opened, or a command that only reads names a folder that
            does not exist (a mistyped ``--library`` made a new empty library and found
            nothing in it, without a word).
    """
    if not writes(args) and not Path(path).expanduser().exists():
        raise LibraryError(f"no library at {path}: the folder does not exist (check "
                           "--library; paperdesk import FILE makes a library there)")
    lock = LibraryLock(path, app="cli",
                       doing=_DOING.get(args.command, f"running {args.command}"))
    try:
        if writes(args) and args.command in _WAITING_COMMANDS:
            acquire_in_turn(lock, wait_bound(), _say_waiting)
        else:
            lock.acquire()
    except LockHeld as held:
        if writes(args):
            hint = ""
            if held.info is not None and held.info.app == "gui":
                hint = ("; `paperdesk FILE...` hands files to that window to import"
                        if args.command == "import" else
                        "; make the change in that window or close it first")
            raise LibraryError(f"{held}{hint}") from None
        return _open_read_only(path, args), None
    except LibraryError as exc:
        if writes(args):
            raise
        full = low_space(path) or "the disk is full" in str(exc)
        lib = _open_read_only(path, args)          # e.g. a read-only folder
        if isinstance(exc, LibraryReadOnly):       # the folder or library.db
            lib.read_only_reason = str(exc).split(": it can be searched", 1)[0]
        else:
            lib.read_only_reason = f"{'the disk is full: ' if full else ''}" \
                f"{lock.path} could not be written"
        return lib, None
    try:
        lib = Library.open(path, sync_index=False)
    except LibraryError:
        lock.release()
        if writes(args) or not low_space(path):
            raise
        # A nearly full disk: the lock could be written, but not SQLite's -shm file.
        lib = _open_read_only(path, args)
        lib.read_only_reason = "the disk is full"
        return lib, None
    except BaseException:
        lock.release()
        raise
    try:
        if lib.db_problem is not None:
            if writes(args) and args.command not in _DAMAGE_COMMANDS:
                raise LibraryError(lib.db_problem)
            if args.command not in _DAMAGE_COMMANDS:
                print(f"paperdesk: warning: {lib.db_problem}", file=sys.stderr, flush=True)
            return lib, lock
        if writes(args):
            # The day's automatic backup, before the day's first change (at most once a
            # UTC day; see paperdesk.core.store.backup).
            auto_backup(lib.db.conn, lib.path / BACKUP_DIR)
        if paused_holder(path):
            # Let in by a command between its batches: the search index is that
            # command's until it ends; this change waits in the index queue for it.
            lib.auto_sync_index = False
            return lib, lock
        if lib.index.repair is not None and args.command not in ("check", "reindex",
                                                                 "import"):
            _repair_at_open(lib, args)
            return lib, lock
        queued = lib.index.status().queued
        if args.command in ("import", "reindex"):
            pass                       # they index everything, with progress
        elif queued <= QUIET_SYNC_MAX:
            lib.index.sync()           # an edit or two: searches see them
        elif writes(args) or args.command == "search":
            print(f"paperdesk: indexing {queued:,} papers left from an earlier import "
                  "first", file=sys.stderr, flush=True)
            with _cancel_on_interrupt() as stop:     # the progress line (issue 14 item 6)
                try:
                    finished = _index_with_progress(lib, stop, to_stderr=True)
                except (sqlite3.Error, OSError) as exc:
                    if writes(args) or not is_disk_full(exc, lib.path):
                        raise
                    finished = True      # a full disk: a search goes on with what is in
                if not finished and writes(args):
                    raise KeyboardInterrupt          # a search goes on with what is in
        # Another command that only reads leaves a large queue to the next command that
        # searches or writes, or the window (nobody waits 40 s for a "stats").
    except BaseException:
        lib.close()
        lock.release()
        raise
    return lib, lock


def _cmd_restore(path: Path, args) -> int:
    """``paperdesk restore [FILE] [--force]``: check the backup, compare it with the
    library, keep what it replaces, put it in place, rebuild the index.

    Returns:
        The exit status.
    Raises:
        LibraryError: refused (one line: the lock is held, the backup is not a library
            or holds less without ``--force``, a copy cannot be written).
    """
    from paperdesk.core.api import SCHEMA_VERSION

    folder = Path(path).expanduser().absolute()
    source = args.file
    if source is None:
        source = latest_backup(folder / BACKUP_DIR)
        if source is None:
            raise LibraryError(f"no backup to restore in {folder / BACKUP_DIR}; name one: "
                               "paperdesk restore FILE")
    backup = inspect_backup(source, SCHEMA_VERSION)
    lock = _lock_to_replace(folder, "restoring")
    try:
        db_path = folder / DB_NAME
        if backup.path == db_path.absolute():
            raise LibraryError(f"{backup.path} is the library's own database")
        state = library_state(db_path)
        if state.status == "ok" and not args.force:
            fewer = fewer_than(backup.counts, state.counts)
            if fewer:
                raise LibraryError(f"not restored: {fewer} (give --force to restore it "
                                   "anyway; the library is kept in backups/)")
        kept = replace_database(folder, DB_NAME, backup.path, state)
        if kept is None:
            what = ("there was no library database" if state.status == "missing"
                    else "the library database was empty")
        elif state.status == "damaged":
            what = f"the damaged database is kept in {display_path(kept)}"
        else:
            what = f"the library it replaced is kept in {display_path(kept)}"
        print(f"restored {display_path(backup.path)} ({describe_counts(backup.counts)}); "
              f"{what}")
        with Library.open(folder, sync_index=False) as lib:
            _rebuild_index(lib)
    finally:
        lock.release()
    return 0


def _lock_to_replace(folder: Path, doing: str) -> LibraryLock:
    """The library's lock, taken for a command that replaces or rewrites its database.

    Raises:
        LibraryError: another paperdesk has it (``…; close it before <doing>``).
    """
    lock = LibraryLock(folder, app="cli")
    try:
        lock.acquire()
    except LockHeld as held:
        raise LibraryError(f"{held}; close it before {doing}") from None
    return lock


def _rebuild_index(lib: Library) -> bool:
    """The index is of a database replaced or rewritten: start it over, queue every
    paper and index them with the progress line (an interrupted rebuild goes on when
    the library is next opened).

    Returns:
        False when Ctrl+C stopped it (what is left stays queued).
    """
    lib.index.reindex(cancel=lambda: True)
    with _cancel_on_interrupt() as stop:
        return _index_with_progress(lib, stop)


def _cmd_repair(path: Path, args) -> int:
    """``paperdesk repair --salvage`` / ``--merge-backup FILE``
    (:mod:`paperdesk.core.store.salvage`): with the library's lock, salvage its damaged
    database (refused when it is whole) and rebuild the index, printing the report; or
    add what only a backup has, then rebuild the index.

    Returns:
        The exit status (0 done, 130 when Ctrl+C stopped the indexing: the salvage or
        merge is kept, the rest is indexed at the next open).
    Raises:
        LibraryError: refused (one line: the lock is held, nothing to salvage, the
            database is not damaged, the backup cannot be read).
    """
    from paperdesk.core.api import database_damage, merge_backup, salvage_library

    folder = Path(path).expanduser().absolute()
    lock = _lock_to_replace(folder, "repairing")
    try:
        if args.salvage:
            if database_damage(folder / DB_NAME) is None:
                raise LibraryError(f"{folder / DB_NAME}: not damaged (quick_check ok); "
                                   "nothing to salvage")
            with _cancel_on_interrupt() as stop:
                try:
                    report = salvage_library(folder, cancel=stop.is_set)
                except InterruptedError:
                    raise KeyboardInterrupt from None
            print(report.text())
        with Library.open(folder, sync_index=False) as lib:
            if lib.db_problem:
                raise LibraryError(lib.db_problem)
            if args.merge_backup is not None:
                print(merge_backup(lib.db, args.merge_backup).text())
            if not _rebuild_index(lib):
                done = " and the merge" if args.salvage and args.merge_backup else ""
                done = ("the salvage" if args.salvage else "the merge") + done
                status = lib.index.status()
                print(f"paperdesk: interrupted while indexing: {done} is done and kept; "
                      f"{status.unindexed:,} of {status.papers:,} papers not yet "
                      "searchable (they are indexed the next time the library is opened, "
                      "or by paperdesk reindex)", file=sys.stderr)
                return 130
    finally:
        lock.release()
    return 0


def _open_read_only(path: Path, args: argparse.Namespace) -> Library:
    """Open the library for reading only (another process holds it, or its folder cannot
    be written); an index that cannot be read is said on one line (the library is read
    without it: searches find nothing)."""
    lib = Library.open(path, read_only=True)
    if lib.index.repair is not None and args.command != "check":
        print(f"paperdesk: note: {lib.index.repair}", file=sys.stderr, flush=True)
    return lib


def _repair_at_open(lib: Library, args: argparse.Namespace) -> None:
    """The search index was found damaged or missing at open (``lib.index.repair``):
    say so on one line and, for a command that searches or writes, rebuild it from
    SQLite now with the ``Indexing for search`` progress line (Ctrl+C stops it; the rest
    is indexed the next time). Other commands leave it queued."""
    reason = lib.index.repair
    if lib.read_only:        # held by another process, or a folder that cannot be written
        print(f"paperdesk: note: {reason}", file=sys.stderr, flush=True)
        return
    if args.command in _NO_INDEX_COMMANDS:
        print(f"paperdesk: note: {reason}; it is rebuilt from SQLite by the next command "
              "that searches (or the window)", file=sys.stderr, flush=True)
        return
    print(f"paperdesk: {reason}; rebuilding it from SQLite", file=sys.stderr, flush=True)
    with _cancel_on_interrupt() as stop:
        _index_with_progress(lib, stop, to_stderr=True)


def _command_names(parser: argparse.ArgumentParser) -> set[str]:
    """The sub-command names of ``parser`` (``import``, ``search``, ...)."""
    return {name for action in parser._actions
            if isinstance(action, argparse._SubParsersAction) for name in action.choices}


def split_open_files(parser: argparse.ArgumentParser,
                     argv: Sequence[str]) -> tuple[list[str], list[str]] | None:
    """Tell ``paperdesk FILE...`` (open the window and import the files) from a command.

    The first argument that is not an option (nor an option's value, such as the folder
    of ``--library DIR``) decides: a sub-command name means a command (so ``paperdesk
    import x.bib`` stays the command-line import, and a file called ``import`` is opened
    as ``./import``); anything else means files. Everything after ``--`` is a file.

    Args:
        parser: from :func:`build_parser`.
        argv: the arguments without the program name (``str``; names that are not
            UTF-8 arrive decoded with ``surrogateescape``, as Python gives them, and are
            kept so).
    Returns:
        ``(options, files)`` (the options still to parse, the files in order), or
        ``None`` when ``argv`` has a command or no positional argument.
    """
    takes_value = {opt for action in parser._actions if action.option_strings
                   and action.nargs != 0 for opt in action.option_strings}
    commands = _command_names(parser)
    options: list[str] = []
    files: list[str] = []
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == "--":
            files += tokens[i:]
            break
        if token.startswith("-") and token != "-":
            options.append(token)
            name = token.split("=", 1)[0]
            wanted = [o for o in takes_value if o == name] or \
                [o for o in takes_value if name.startswith("--") and o.startswith(name)]
            if "=" not in token and len(wanted) == 1 and i < len(tokens):
                options.append(tokens[i])
                i += 1
            continue
        if not files and token in commands:
            return None
        files.append(token)
    return (options, files) if files else None


#: String options that are file system paths: kept as given (their bytes open the file,
#: or match the imported file: ``remove-file``'s SOURCE).
_PATH_OPTIONS = {"exec_path", "source"}


def _clean_text(value: str) -> str:
    """A text argument with bytes that are not UTF-8 (lone surrogates, PEP 383) replaced
    by U+FFFD, so that it can be stored and searched."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _clean_args(args: argparse.Namespace) -> None:
    """Clean every text argument (not paths: those are :class:`Path` objects or in
    :data:`_PATH_OPTIONS`) with :func:`_clean_text`, in place."""
    for name, value in vars(args).items():
        if name in _PATH_OPTIONS:
            continue
        if isinstance(value, str):
            setattr(args, name, _clean_text(value))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            setattr(args, name, [_clean_text(v) for v in value])


def _safe_streams() -> None:
    """Standard output and error write what cannot be encoded as backslash escapes
    instead of raising (a file name with bytes that are not UTF-8 in a message)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # detached or closed: leave it
                pass


def _window_libraries_present() -> bool:
    """Before Qt is imported for the window: on X11, check that the system libraries of
    Qt's xcb plugin load (:mod:`paperdesk.core.window_libs`); if not, print the one-line
    message naming them and the install command to stderr and return False (Qt itself
    would end the process with "Aborted"). Other platforms (offscreen, Wayland, macOS,
    Windows) are not checked."""
    from paperdesk.core.window_libs import window_library_problem

    problem = window_library_problem()
    if problem is None:
        return True
    print(problem, file=sys.stderr)
    return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    On a terminal, standard output and error show control characters in titles, tags,
    notes and file names as text (:mod:`paperdesk.core.terminal_text`), so no text from
    the library can set the window title or clear the screen; pipes get the exact text.

    Args:
        argv: arguments without the program name (default: ``sys.argv[1:]``).
    Returns:
        The exit status (0 ok, 1 user error, 2 usage error, 130 interrupted).
    """
    _safe_streams()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = wrap_if_terminal(sys.stdout), wrap_if_terminal(sys.stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = saved


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    argv = query_values_joined(sys.argv[1:] if argv is None else argv)
    _PARSED_ARGV[:] = argv
    split = split_open_files(parser, argv)
    if split is not None:      # `paperdesk FILE...`: open the window and import them
        options, files = split
        missing = [f for f in files if not os.path.lexists(f)]
        if missing:
            commands = ", ".join(sorted(_command_names(parser)))
            first = missing[0]
            what = ("is neither a command nor a file or folder" if first == files[0]
                    else "is not a file or folder")
            parser.error(f"{first!r} {what} (commands: {commands})")
        args = parser.parse_args(options)
        if args.screenshot is not None:
            parser.error("--screenshot renders the window: give it without files")
        if not _window_libraries_present():
            return 1
        from paperdesk.ui.app.controller import run  # Qt is imported only for the GUI

        return run(args.library, appearance=args.appearance,
                   files=[os.path.abspath(f) for f in files])
    args = parser.parse_args(argv)
    _clean_args(args)
    if args.command is None:
        if args.screenshot is None and not _window_libraries_present():
            return 1
        from paperdesk.ui.app.controller import run  # Qt is imported only for the GUI

        return run(args.library, screenshot=args.screenshot, size=args.size,
                   appearance=args.appearance)
    if args.screenshot is not None:
        parser.error("--screenshot renders the window: give it without a COMMAND")
    if args.command in ("install-desktop", "uninstall-desktop"):
        return _cmd_desktop(args)
    if args.command == "completion":
        return _cmd_completion(args)
    if args.command == "export":
        _check_export_args(parser, args)
        if args.list_styles:
            try:
                return _cmd_list_styles()
            except LibraryError as exc:
                print(f"paperdesk: {exc}", file=sys.stderr)
                return 1
            except BrokenPipeError:  # `paperdesk export --list-styles | head`
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return 1
    library_path = args.library or default_library_path()
    lock = None
    try:
        refuse_unreadable_folder(Path(library_path).expanduser())
        if args.command == "restore":
            return _cmd_restore(library_path, args)
        if args.command == "repair":
            return _cmd_repair(library_path, args)
        if args.command == "backup" and not (
                Path(library_path).expanduser() / DB_NAME).is_file():
            raise LibraryError(f"no library database to back up in {library_path}")
        lib, lock = _open_library(library_path, args)
        args.library_lock = lock
        with lib:
            status = _COMMANDS[args.command](lib, args)
            if lib.index.problem:
                print(f"paperdesk: note: {lib.index.problem}", file=sys.stderr)
            return status
    except LibraryError as exc:
        print(f"paperdesk: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:   # a full disk, or a page damaged since the open
        from paperdesk.core.check import database_message

        damaged = any(word in str(exc).lower() for word in ("malformed", "not a database",
                                                              "corrupt"))
        message = database_message(library_path, exc) if damaged \
            else _write_failure(library_path, exc)
        print(f"paperdesk: {message}", file=sys.stderr)
        return 1
    except IndexWriteError as exc:   # e.g. a segment-writing child was killed
        print(f"paperdesk: indexing stopped: {exc}; every paper is kept, and what is not "
              "searchable yet is indexed the next time the library opens", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("paperdesk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `paperdesk show 1 --json | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except sqlite3.Error as exc:   # a write that failed inside SQLite (a full disk ...)
        print(f"paperdesk: {_write_failure(library_path, exc)}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. standard output on a full disk
        if is_disk_full(exc):
            where = exc.filename or "the output"
            print(f"paperdesk: {disk_full_message(where, exc)}", file=sys.stderr)
        elif exc.filename:       # a file or folder this user may not read or write
            print(f"paperdesk: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        else:
            print(f"paperdesk: cannot write output: {exc.strerror or exc}", file=sys.stderr)
        return 1
    finally:
        if lock is not None:
            lock.release()


def _write_failure(library: Path, exc: sqlite3.Error) -> str:
    """The one-line message for a SQLite error that reached the command line: the
    full-disk message (:mod:`paperdesk.core.store.errors`), else the database and the
    error's first line. SQLite rolled the transaction back: nothing was half-written."""
    db = Path(library).expanduser().absolute() / "library.db"
    if is_disk_full(exc, db.parent if db.parent.is_dir() else None):
        return disk_full_message(db, exc)
    text = str(exc).strip().splitlines()
    return f"{db}: {text[0] if text else type(exc).__name__}; the change was not saved"


def gui_main() -> int:
    """Entry point of the ``paperdesk-gui`` launcher script (``[project.gui-scripts]``):
    the same as :func:`main` with ``sys.argv`` (no console window on Windows).

    Returns:
        The exit status.
    """
    return main()
