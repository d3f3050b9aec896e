"""Render the main window offscreen and save it as a PNG (for docs and visual review).

Command line::

    QT_QPA_PLATFORM=offscreen python -m paperdesk.ui.app.screenshot docs/screenshot.png \\
        [--query WORDS] [--library DIR] [--size 1280x800] [--demo] [--triage] [--export] \\
        [--saved] [--open-saved NAME] [--sort title|added] [--paper WORD] \\
        [--appearance light|dark] [--zoom PT] [--cite] [--editor] [--tags] [--overview]
        [--suggest NAME:TEXT] [--screen TAG:TEXT]

(``paperdesk --screenshot FILE [--size WxH]`` renders the window on the user's library
with :func:`capture`.)

Without ``--library`` a temporary library is created and the bundled seeds imported.
Preferences come from a temporary file, so the user's remembered window state neither
changes the picture nor is changed by it.
``--demo`` first annotates the library through the window (tags with colours and keys,
stars, read marks, a note and highlights on the "μP" paper) and shows that paper;
``--triage`` also filters to unread papers and selects several rows; ``--export`` (with
``--demo``) lists the "to read" tag and draws the File ▸ Export… dialog over the window. ``--saved`` saves a
few searches (listed with their counts in the left pane) and ``--open-saved`` runs one
of them by clicking it; ``--query`` types a search
(a misspelt one shows "Did you mean …"), ``--sort`` clicks a column header after it, and
``--paper`` selects the first listed paper whose abstract contains that text.
``--cite`` gives a few papers example metadata (:data:`DEMO_METADATA`, placeholder names
and the DOI Handbook's example prefix, never a real paper's identifiers), shows the First
author and Year columns and the paper that mentions ``arXiv:2212.08630``; ``--editor``
(with ``--cite``) draws the metadata editor over the window; ``--tags`` (with ``--demo``)
draws Edit ▸ Manage Tags… over it. ``--suggest NAME:TEXT`` first tags every paper
whose abstract has TEXT with NAME, so that the paper shown (``--paper``) gets tag
suggestions; the picture waits for the related papers, key terms and suggestions.
``--overview`` (with ``--demo``) first gives the
papers made-up dates added over the last twelve weeks (:func:`demo_added_dates`; the
seeds are all imported at once), builds the key terms, then draws View ▸ Overview
beside the list with the focus on a tag bar that was activated (the list shows it).
``--screen TAG:TEXT`` screens the list (after ``--query``) for TAG through the window's
keys: Ctrl+Shift+R, then ``i`` on each paper shown whose abstract has TEXT and ``e`` on
the others, ten decisions (:func:`demo_screening`); the banner, the live order and the
excluded papers show.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from paperdesk.ui.style.appearance import follow_appearance
from paperdesk.core.models import LibraryError
from paperdesk.core.scope import Scope
from paperdesk.ui.app.settings import Settings
from paperdesk.ui.app.startup import create_main_window, ensure_app, quiet_qt_noise

__all__ = ["save_screenshot", "capture", "demo_annotations", "demo_saved_searches",
           "demo_metadata", "demo_added_dates", "compose_dialog", "parse_size", "scratch_settings", "main",
           "demo_screening"]

#: The demo's tags: name -> (colour, key).
DEMO_TAGS = {"to read": ("#e15759", 1), "scaling": ("#4e79a7", 2),
             "optimization": ("#59a14f", 3), "benchmark": ("#edc948", None),
             "theory": ("#b07aa1", None)}
DEMO_NOTE = """# Why it matters
- One spectral condition covers **width and depth** scaling.
- Try it on our 1B run; compare with plain μP.

Code: https://github.com/example/spectral-mup
"""
#: The demo's saved searches: name -> query.
DEMO_SEARCHES = {"Pruning LLMs": "prun* (LLM OR \"language model\")",
                 "Diffusion, no video": "diffusion -video",
                 "Unread with code": "is:unread has:code",
                 "Spectral scaling": "spectral scaling",
                 "To read": 'tag:"to read"'}


#: The text of the abstract ``--cite`` shows (it mentions another paper's arXiv id).
DEMO_CITE_PAPER = "characterised in arXiv:2212.08630"
#: ``--cite``'s example metadata: the demo paper's, then (family, given, year, venue) for
#: the first listed papers. Placeholder people and the example DOI prefix 10.5555, so no
#: picture ever ties a real abstract to a real paper's identifiers.
DEMO_METADATA = {"authors": "Doe, Jane; Roe, Richard; Rivera, Ana", "date": "2025-03",
                 "venue": "Example Workshop on Equivariant Learning",
                 "entry_type": "inproceedings", "doi": "10.5555/12345678",
                 "url": "https://example.org/equivariant-layers"}
DEMO_LIST_METADATA = (("Okafor", "Chidi", "2024", "Example Conf."),
                      ("Lindqvist", "Sara", "2023", "Example Journal"),
                      ("Tanaka", "Hiro", "2025", "Example Conf."),
                      ("Novak", "Eva", "2022", "Example Letters"))


def _wait(condition, timeout_s: float) -> bool:
    app = QApplication.instance()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return False


def demo_annotations(window) -> int | None:
    """Annotate the window's library through its undoable edits (run by the window's
    writer thread; this waits for each group to be committed), for a screenshot.

    Args:
        window: a :class:`~paperdesk.ui.window.main_window.MainWindow` with the seeds imported.
    Returns:
        The id of the paper with the note and highlights (the one mentioning "μP"), or
        ``None`` if the library has no such paper.
    """
    lib = window.lib
    ids = lib.papers.ids()
    for name, (colour, key) in DEMO_TAGS.items():
        window.triage.create_tag(name, colour, key)
    names = list(DEMO_TAGS)
    for i, pid in enumerate(ids[:40]):
        if i % 3 == 0:
            window.triage.add_tag(names[(i // 3) % len(names)], [pid])
        if i % 7 == 2:
            window.triage.add_tag("to read", [pid])
    window.run_edit(lambda lib: lib.papers.set_starred([ids[1], ids[6], ids[9]], True))
    window.run_edit(lambda lib: lib.papers.set_read(
        [ids[0], ids[2], ids[3], ids[5], ids[8], ids[11], ids[12]], True))
    target = next((pid for pid in ids if "μP" in lib.papers.get(pid).abstract), None)
    if target is None:
        return None
    for name in ("scaling", "to read", "theory"):
        window.triage.add_tag(name, [target])
    window.run_edit(lambda lib: lib.papers.set_starred([target], True))
    abstract = lib.papers.get(target).abstract
    first = abstract.index("maximal update parameterization (μP)")
    window.triage.add_highlight(target, first,
                                first + len("maximal update parameterization (μP)"))
    phrase = "unifying previously disparate μP formulations as special cases"
    if phrase in abstract:
        start = abstract.index(phrase)
        window.triage.add_highlight(target, start, start + len(phrase), "#a5d8ff")
        window.worker.wait_idle(30)
        hid = lib.notes.highlights(target)[-1].id
        window.run_edit(lambda lib: lib.notes.set_highlight_comment(
            hid, "the key claim — check section 4"))
    window.triage.save_note(target, DEMO_NOTE)
    window.worker.wait_idle(30)
    return target


def demo_added_dates(lib, weeks: int = 12) -> None:
    """Spread the papers' ``added_at`` over the ``weeks`` weeks before the newest one,
    a few papers a day with quieter weekends and one week without any (a made-up
    history for the overview's screenshot; the library is a scratch copy).

    Args:
        lib: the open library (its own connection; run before the window opens).
        weeks: how many weeks back.
    """
    import datetime as dt

    ids = lib.papers.ids()
    newest = dt.datetime.now(dt.timezone.utc).replace(hour=9, minute=0, second=0,
                                                      microsecond=0)
    days = [newest - dt.timedelta(days=d) for d in range(weeks * 7)]
    quiet = newest.date() - dt.timedelta(days=newest.weekday(), weeks=5)   # its Monday
    days = [d for d in days if not quiet <= d.date() < quiet + dt.timedelta(days=7)]
    weights = [1 if d.weekday() >= 5 else 3 + (d.day % 4) for d in days]
    slots = [d for d, w in zip(days, weights) for _ in range(w)]
    # oldest first, in import order: the list's order (and the demo's papers) stay
    picked = sorted(slots[(i * 7919) % len(slots)] for i in range(len(ids)))
    stamps = [(when.strftime("%Y-%m-%dT%H:%M:%SZ"), pid)
              for when, pid in zip(picked, sorted(ids))]
    with lib.db.conn:
        lib.db.conn.executemany("UPDATE papers SET added_at = ? WHERE id = ?", stamps)


def demo_metadata(window) -> int | None:
    """Give papers :data:`DEMO_METADATA` through the window's undoable edits (waiting for
    the writer thread), show the First author and Year columns, for a screenshot.

    Returns:
        The id of the paper mentioning ``arXiv:2212.08630`` (now with metadata and a
        regenerated key), or ``None`` if the library has no such paper.
    """
    from paperdesk.core.metadata import parse_authors
    from paperdesk.core.models import Author, Metadata

    lib = window.lib
    ids = window.model.ids()
    target = next((pid for pid in ids if DEMO_CITE_PAPER in lib.papers.get(pid).abstract), None)
    at = ids.index(target) if target is not None else len(DEMO_LIST_METADATA)
    near = ids[max(0, at - 2 * len(DEMO_LIST_METADATA)):at:2]   # rows shown above it
    for pid, (family, given, year, venue) in zip(near, DEMO_LIST_METADATA):
        meta = Metadata(authors=(Author(family, given),), date=year, venue=venue)
        window.run_edit(lambda lib, pid=pid, meta=meta: lib.papers.set_metadata(
            pid, meta, citation_key=lib.papers.proposed_citation_key(pid, meta)))
    for name in ("authors", "year"):
        window.list_columns.set_list_column_shown(name, True)
    if target is not None:
        d = DEMO_METADATA
        meta = Metadata(authors=parse_authors(d["authors"]), date=d["date"],
                        venue=d["venue"], entry_type=d["entry_type"], doi=d["doi"],
                        url=d["url"])
        window.run_edit(lambda lib: lib.papers.set_metadata(
            target, meta, citation_key=lib.papers.proposed_citation_key(target, meta)))
    window.worker.wait_idle(30)
    return target


def demo_screening(window, tag: str, text: str, decisions: int = 10,
                   timeout_s: float = 60.0) -> bool:
    """Screen the list for ``tag`` with the window's keys, as a user would: Ctrl+Shift+R,
    the tag's name, Enter; then ``i`` on each paper shown whose abstract has ``text``
    (case ignored), ``e`` on the others.

    Args:
        window: the main window (shown).
        tag: the tag (created when new).
        text: what makes a paper relevant here.
        decisions: how many papers to decide.
        timeout_s: how long to wait for each new order.
    Returns:
        False when the screening did not start or an order did not come in time.
    """
    from PySide6.QtTest import QTest

    screening = window.screening
    window.table.setFocus()
    QTest.keyClick(window.table, Qt.Key.Key_R,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    if not _wait(lambda: screening.dialog is not None and screening.dialog.isVisible(), 5):
        return False
    field = screening.tag_text()
    field.selectAll()
    QTest.keyClicks(field, tag)
    QTest.keyClick(field, Qt.Key.Key_Return)
    if not _wait(lambda: screening.standing is not None, timeout_s):
        return False
    for _ in range(decisions):
        before = screening.standing
        pid = window.current_paper_id()
        if pid is None:
            break
        yes = text.lower() in window.lib.papers.get(pid).abstract.lower()
        window.table.setFocus()
        QTest.keyClick(window.table, Qt.Key.Key_I if yes else Qt.Key.Key_E)
        if not _wait(lambda: screening.standing is not before and not window.is_busy(),
                     timeout_s):
            return False
    return True


def demo_saved_searches(window) -> None:
    """Save :data:`DEMO_SEARCHES` through the window (undoable commands)."""
    for name, query in DEMO_SEARCHES.items():
        window.saved_searches.save_search(name, query)
    window.worker.wait_idle(30)


def compose_dialog(window: QWidget, dialog: QWidget, right: bool = False) -> QPixmap:
    """Draw ``dialog`` centred over a slightly dimmed ``window``, with a plain title bar
    and a soft shadow (offscreen, a grab of the window includes neither its top-level
    dialogs nor window frames).

    Args:
        window: the main window.
        dialog: the dialog or window drawn over it.
        right: put it at the window's right edge (over the reading pane, the list in
            view) instead of the centre, without dimming (a non-modal window).
    Returns:
        The combined picture, the size of the window.
    """
    picture = window.grab()
    body = dialog.grab()
    bar = dialog.fontMetrics().height() + 12
    front = QPixmap(body.width(), body.height() + bar)
    front.fill(dialog.palette().color(dialog.backgroundRole()).darker(112))
    framer = QPainter(front)
    framer.drawPixmap(0, bar, body)
    framer.setPen(dialog.palette().color(dialog.foregroundRole()))
    framer.drawText(QRect(0, 0, body.width(), bar), Qt.AlignmentFlag.AlignCenter,
                    dialog.windowTitle())
    framer.end()
    painter = QPainter(picture)
    if not right:
        painter.fillRect(picture.rect(), QColor(0, 0, 0, 60))
    x = (picture.width() - front.width()) // 2 if not right else \
        picture.width() - front.width() - 24
    y = max((picture.height() - front.height()) // 2, 0)
    for spread, alpha in ((12, 14), (8, 20), (4, 30)):
        painter.fillRect(QRect(x - spread, y - spread + 4, front.width() + 2 * spread,
                               front.height() + 2 * spread), QColor(0, 0, 0, alpha))
    painter.drawPixmap(QPoint(x, y), front)
    painter.setPen(QColor(0, 0, 0, 90))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRect(QRect(x, y, front.width() - 1, front.height() - 1))
    painter.end()
    return picture


def parse_size(text: str) -> tuple[int, int]:
    """Parse ``"WIDTHxHEIGHT"`` (e.g. ``"1280x800"``) into pixels.

    Raises:
        ValueError: not two whole numbers from 200 to 10000 joined by ``x``.
    """
    parts = text.lower().replace("×", "x").split("x")
    try:
        width, height = (int(v) for v in parts)
    except ValueError:
        raise ValueError(f"not a size like 1280x800: {text!r}") from None
    if not (200 <= width <= 10_000 and 200 <= height <= 10_000):
        raise ValueError(f"size out of range (200-10000 pixels each way): {text!r}")
    return width, height


def scratch_settings(folder: str) -> Settings:
    """Preferences in a file under ``folder``, with automatic mark-read off."""
    from PySide6.QtCore import QSettings

    settings = Settings(QSettings(os.path.join(folder, "screenshot.ini"),
                                  QSettings.Format.IniFormat))
    settings.auto_mark_read = False
    return settings


def check_png_target(out_png: str | os.PathLike) -> Path:
    """Refuse a screenshot's file name that cannot be written, before anything is made.

    Args:
        out_png: the PNG's path.
    Returns:
        It as a ``Path``.
    Raises:
        OSError: one line: the path is a folder, or its folder does not exist (no
            folder is made: a mistyped path is said, not created).
    """
    out = Path(out_png)
    if out.is_dir():
        raise OSError(f"cannot write {out}: it is a folder (name the PNG file)")
    if not out.parent.is_dir():
        raise OSError(f"cannot write {out}: the folder {out.parent} does not exist")
    return out


def save_screenshot(library_path: str | os.PathLike, out_png: str | os.PathLike,
                    size: tuple[int, int] = (1280, 800), query: str | None = None,
                    row: int = 0, timeout_s: float = 60.0, demo: bool = False,
                    triage: bool = False, saved: bool = False, sort: str | None = None,
                    paper: str | None = None, open_saved: str | None = None,
                    export: bool = False, appearance: str | None = None,
                    zoom: float | None = None, cite: bool = False,
                    editor: bool = False, tags: bool = False,
                    suggest: str | None = None, overview: bool = False,
                    screen: str | None = None) -> Path:
    """Build the window (with temporary preferences), then :func:`capture` it.

    Args:
        library_path: library folder (seeds are imported if it is empty).
        out_png: where to write the PNG (its folder must exist; checked before the
            window is made).
        appearance: ``"light"``, ``"dark"`` or ``"system"`` (default: unchanged).
        zoom: the reading pane's font size in points (default: the normal size).
        size, query, row, timeout_s, demo, triage, saved, sort, paper, open_saved,
        export, cite, editor, tags, suggest, overview, screen: as for :func:`capture`.
    Returns:
        The PNG path.
    Raises:
        TimeoutError: the import or the search did not finish in time.
        OSError: the PNG could not be written (one line: a folder, or a folder that
            does not exist, is said as such).
    """
    check_png_target(out_png)
    ensure_app()
    if appearance:
        follow_appearance(appearance)
    if overview:
        from paperdesk.core.library import Library
        from paperdesk.core.paths import bundled_seeds

        with Library.open(library_path) as lib:
            if lib.papers.count() == 0:
                lib.imports.run(bundled_seeds())
            demo_added_dates(lib)
            lib.discover.ensure()
    with tempfile.TemporaryDirectory(prefix="paperdesk-shot-") as scratch:
        window = create_main_window(library_path, settings=scratch_settings(scratch))
        try:
            if zoom:
                window.detail_pane.set_font_size(zoom)
            return capture(window, out_png, size, query=query, row=row, timeout_s=timeout_s,
                           demo=demo, triage=triage, saved=saved, sort=sort, paper=paper,
                           open_saved=open_saved, export=export, cite=cite,
                           editor=editor, tags=tags, suggest=suggest,
                           overview=overview, screen=screen)
        finally:
            window.close()
            window.shutdown()


def capture(window, out_png: str | os.PathLike, size: tuple[int, int] = (1280, 800),
            query: str | None = None, row: int = 0, timeout_s: float = 60.0,
            demo: bool = False, triage: bool = False, saved: bool = False,
            sort: str | None = None, paper: str | None = None,
            open_saved: str | None = None, export: bool = False, cite: bool = False,
            editor: bool = False, tags: bool = False, suggest: str | None = None,
            overview: bool = False, screen: str | None = None) -> Path:
    """Show ``window`` at ``size``, wait for the seed import, select a row, optionally
    search, and save ``window.grab()`` as a PNG. The window stays open.

    Args:
        window: a :class:`~paperdesk.ui.window.main_window.MainWindow`.
        out_png: where to write the PNG (its folder must exist: checked first,
            :func:`check_png_target`).
        size: window size in pixels.
        query: text typed into the search box before the grab.
        row: the row to select (after the search, if any).
        timeout_s: how long to wait for the import and the search.
        demo: annotate first (see :func:`demo_annotations`) and show the annotated paper.
        triage: with ``demo``, list the unread papers and select four rows.
        saved: save :data:`DEMO_SEARCHES` first.
        open_saved: with ``saved``, choose this saved search in the left pane.
        sort: after the search, sort its hits by ``"title"`` or ``"added"``.
        paper: select the first listed paper whose abstract contains this text.
        export: with ``demo``, list the "to read" tag and draw the export dialog over
            the window (see :func:`compose_dialog`).
        cite: give papers example metadata and show the one mentioning an arXiv id
            (see :func:`demo_metadata`).
        editor: with ``cite``, draw the metadata editor over the window.
        tags: draw the Tags dialog (Edit ▸ Manage Tags…) over the window, on its
            third tag.
        suggest: ``"NAME:TEXT"``: first tag every paper whose abstract contains TEXT
            (not the one ``paper`` selects) with NAME, so that the paper shown gets tag
            suggestions.
        screen: ``"TAG:TEXT"``: after the search, screen the list for TAG, papers with
            TEXT relevant (:func:`demo_screening`); the paper shown is the next one.
    Returns:
        The PNG path.
    Raises:
        TimeoutError: the import, the search or the screening did not finish in time.
        OSError: the PNG could not be written (a folder, or in a folder that does not
            exist: said before anything is done).
    """
    out = check_png_target(out_png)
    window.resize(*size)
    window.show()
    if not _wait(lambda: not window.is_busy(), timeout_s):
        raise TimeoutError("the import did not finish in time")
    target = demo_annotations(window) if demo else None
    if suggest and ":" in suggest:
        name, text = suggest.split(":", 1)
        lib = window.lib
        ids = [pid for pid in lib.papers.ids() if text in lib.papers.get(pid).abstract
               and not (paper and paper in lib.papers.get(pid).abstract)]
        if ids:      # all of them: a tag is suggested only on evidence (most neighbours)
            window.triage.add_tag(name, ids)
            _wait(lambda: not window.is_busy(), timeout_s)
    if cite:
        target = demo_metadata(window) or target
    if saved:
        demo_saved_searches(window)
    if triage:
        window.tag_pane.select_scope(Scope(filter="unread"))
    if export:
        tag = window.lib.tags.by_name("to read")
        if tag is not None:
            window.tag_pane.select_scope(Scope(tag_id=tag.id))
            target = None
    if saved and open_saved:
        _wait(lambda: not window.is_busy(), timeout_s)
        window.tag_pane.select_saved(open_saved)
        query = query or None
        if not _wait(lambda: not window.is_busy() and window.model.searching, timeout_s):
            raise TimeoutError("the saved search did not finish in time")
    if query:
        window.search_box.setFocus()
        window.search_box.setText(query)
        if not _wait(lambda: not window.is_busy() and window.model.searching, timeout_s):
            raise TimeoutError("the search did not finish in time")
        if sort in ("title", "added"):
            from paperdesk.ui.panes.paper_model import PaperTableModel
            from PySide6.QtCore import Qt
            column = PaperTableModel.TITLE if sort == "title" else PaperTableModel.ADDED
            window.table.sortByColumn(column, Qt.SortOrder.AscendingOrder)
            _wait(lambda: False, 0.1)
            if not _wait(lambda: not window.is_busy(), timeout_s):
                raise TimeoutError("the sorted search did not finish in time")
    if target is not None and not triage and window.model.row_of(target) >= 0:
        row = window.model.row_of(target)
    if paper:
        row = next((r for r, pid in enumerate(window.model.ids())
                    if paper in window.lib.papers.get(pid).abstract), row)
    if screen and ":" in screen:
        name, text = screen.split(":", 1)
        if not demo_screening(window, name, text, timeout_s=timeout_s):
            raise TimeoutError("the screening did not start or answer in time")
    else:
        window.select_row(row)
    if triage:
        window.select_rows([row, row + 1, row + 2, row + 4])
    window.table.setFocus()
    # the related papers, key terms and tag suggestions of the paper shown too
    _wait(lambda: not window.is_busy() and not window.discover.discover_busy(), timeout_s)
    window.statusBar().clearMessage()
    _wait(lambda: False, 0.2)  # let layouts and repaints settle
    picture = window.grab()
    if export:
        dialog = window.exports.open_export_dialog()
        _wait(lambda: False, 0.3)
        picture = compose_dialog(window, dialog)
        dialog.reject()
    if cite and editor:
        dialog = window.metadata.edit_metadata()
        if dialog is not None:
            _wait(lambda: False, 0.3)
            dialog.adjustSize()
            _wait(lambda: False, 0.1)
            picture = compose_dialog(window, dialog)
            dialog.reject()
    if tags:
        window.tag_commands.open_tags_dialog()
        commands = window.tag_commands
        _wait(lambda: commands.tags_dialog is not None and commands.tags_dialog.isVisible(),
              timeout_s)
        dialog = window.tag_commands.tags_dialog
        if dialog is not None:
            if dialog.list.topLevelItemCount() > 2:
                dialog.list.setCurrentItem(dialog.list.topLevelItem(2))
            _wait(lambda: False, 0.3)
            picture = compose_dialog(window, dialog)
            dialog.reject()
    if overview:
        picture = _overview_picture(window, picture, timeout_s)
    if not picture.save(str(out), "PNG"):
        raise OSError(f"cannot write {out}")
    return out


def _overview_picture(window, picture: QPixmap, timeout_s: float) -> QPixmap:
    """Open View ▸ Overview, activate the "scaling" tag's bar (or the first tag's) with
    the keyboard as a user would, and draw the overview beside the filtered list."""
    from PySide6.QtTest import QTest

    dialog = window.overview.show_overview()
    dialog.resize(560, min(window.height() - 60, 900))
    if not _wait(lambda: not dialog.is_loading(), timeout_s):
        raise TimeoutError("the overview was not counted in time")
    bars = dialog.chart.bars()
    wanted = next((i for i, (title, bar) in enumerate(bars)
                   if title == "Tags" and bar.label == "scaling"),
                  next((i for i, (title, _b) in enumerate(bars) if title == "Tags"), 0))
    dialog.chart.set_current(wanted)
    QTest.keyClick(dialog.chart, Qt.Key.Key_Return)
    _wait(lambda: False, 0.3)
    _wait(lambda: not window.is_busy(), timeout_s)
    window.select_row(0)
    window.table.setFocus()
    _wait(lambda: not window.is_busy(), timeout_s)
    dialog.activateWindow()
    dialog.chart.setFocus()
    dialog.scroll.verticalScrollBar().setValue(0)
    _wait(lambda: False, 0.3)
    picture = compose_dialog(window, dialog, right=True)
    dialog.close()
    return picture


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring. Returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m paperdesk.ui.app.screenshot")
    parser.add_argument("out", type=Path)
    parser.add_argument("--query")
    parser.add_argument("--library", type=Path)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--row", type=int, default=0)
    parser.add_argument("--demo", action="store_true", help="annotate some papers first")
    parser.add_argument("--triage", action="store_true",
                        help="with --demo: list unread papers, select several rows")
    parser.add_argument("--saved", action="store_true", help="save a few searches first")
    parser.add_argument("--open-saved", metavar="NAME",
                        help="with --saved: run this saved search")
    parser.add_argument("--sort", choices=("title", "added"),
                        help="with --query: sort the hits by this column")
    parser.add_argument("--paper", help="select the first paper whose abstract has this text")
    parser.add_argument("--export", action="store_true",
                        help="with --demo: show the export dialog over the window")
    parser.add_argument("--cite", action="store_true",
                        help="give papers example metadata; show the one mentioning an "
                             "arXiv id, with the First author and Year columns")
    parser.add_argument("--editor", action="store_true",
                        help="with --cite: show the metadata editor over the window")
    parser.add_argument("--tags", action="store_true",
                        help="show the Tags dialog (Edit ▸ Manage Tags…) over the window")
    parser.add_argument("--suggest", metavar="NAME:TEXT",
                        help="tag up to six papers whose abstract has TEXT with NAME first "
                             "(tag suggestions for the paper shown)")
    parser.add_argument("--overview", action="store_true",
                        help="with --demo: made-up dates added, then View ▸ Overview")
    parser.add_argument("--screen", metavar="TAG:TEXT",
                        help="screen the list for TAG with the keys (i where the abstract "
                             "has TEXT, else e), ten decisions")
    parser.add_argument("--appearance", choices=("system", "light", "dark"),
                        help="light or dark (default: the platform's)")
    parser.add_argument("--zoom", type=float, metavar="PT",
                        help="reading font size in points")
    args = parser.parse_args(argv)
    # Screenshots need no display: render offscreen unless a platform was chosen
    # (without one, Qt would look for a display and abort where there is none).
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    ensure_app()
    quiet_qt_noise()
    try:
        width, height = parse_size(args.size)
    except ValueError as exc:
        parser.error(str(exc))
    options = {"demo": args.demo, "triage": args.triage, "saved": args.saved,
               "sort": args.sort, "paper": args.paper, "open_saved": args.open_saved,
               "export": args.export, "appearance": args.appearance, "zoom": args.zoom,
               "cite": args.cite, "editor": args.editor, "tags": args.tags,
                "suggest": args.suggest, "overview": args.overview, "screen": args.screen}
    try:
        if args.library:
            out = save_screenshot(args.library, args.out, (width, height), args.query,
                                  args.row, **options)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                out = save_screenshot(Path(tmp) / "lib", args.out, (width, height),
                                      args.query, args.row, **options)
    except (TimeoutError, LibraryError, OSError) as exc:
        print(f"screenshot: {exc}", file=sys.stderr)      # one line, no traceback
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
