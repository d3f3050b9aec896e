"""The import report: what each file of an import gave, one row per file.

The window shows it on its own when a file was rejected or entries were left out, and
on request otherwise (the status bar's "Import report" button, File ▸ Last Import
Report…). It says what ``paperdesk import`` prints: per file the papers added, enriched
(missing metadata filled in), duplicates, without abstract, entries left out, or the
reason the file was rejected; below, the notes (entries left out, values dropped,
values a paper kept). Every text is plain text (file names and reasons come from files).
"""

from __future__ import annotations

import os

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHeaderView,
                               QLabel, QPlainTextEdit, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from paperdesk.core.api import IMPORT_FORMATS
from paperdesk.core.models import FileReport, ImportReport
from paperdesk.ui.style.formatting import plural, tooltip_html

__all__ = ["ImportReportDialog", "summary_text", "file_result", "display_path",
           "COLUMNS", "NOTES_SHOWN"]

#: The table's columns.
COLUMNS = ("File", "Format", "Added", "Enriched", "Duplicates", "Without abstract",
           "Result")
#: Notes listed below the table (the rest are counted).
NOTES_SHOWN = 500


def _format_label(name: str | None) -> str:
    """The Format column of a file: its format's report label, the name of a format no
    longer registered, or a dash for a file refused."""
    if not name:
        return "—"
    try:
        return IMPORT_FORMATS.get(name).report_label
    except KeyError:
        return name


def display_path(path: str) -> str:
    """``path`` made showable: bytes that are not UTF-8 (kept as ``surrogateescape``
    escapes in Python) become U+FFFD instead of failing in Qt."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "replace")


def _name(path: str) -> str:
    shown = display_path(path)
    return os.path.basename(shown) or shown


def file_result(f: FileReport) -> str:
    """The "Result" of one file: ``"rejected: <reason>"``, ``"cancelled (the rest is
    imported next time)"``, ``"2 left out"``, ``"nothing new"`` or ``"ok"``."""
    if f.error and f.format is None:
        return f"rejected: {f.error}"
    parts = []
    if f.error:
        parts.append(f"stopped: {f.error}")
    if f.cancelled:
        parts.append("cancelled (importing it again brings the rest)")
    if f.skipped:
        parts.append(f"{f.skipped} left out")
    if f.warnings and len(f.warnings) > f.skipped:
        parts.append(plural(len(f.warnings) - f.skipped, "note"))
    if not parts:
        parts.append("ok" if f.added or f.enriched else "nothing new")
    return "; ".join(parts)


def summary_text(report: ImportReport) -> str:
    """One or two sentences over the whole import, e.g. ``"3 files: 12 new papers, 4
    enriched, 2 duplicates, 1 without abstract. 1 file rejected."`` or, after Cancel,
    ``"Cancelled: 300 papers were imported and kept …"``."""
    read = [f for f in report.files if not (f.error and f.format is None)]
    rejected = len(report.files) - len(read)
    n = report.added
    if report.cancelled:
        head = (f"Cancelled: {n:,} {'paper was' if n == 1 else 'papers were'} imported and "
                "kept; importing the same files again brings the rest.")
    else:
        head = f"{_count(len(report.files), 'file')}: {_count(n, 'new paper')}"
        head += f", {report.enriched:,} enriched, {_count(report.duplicates, 'duplicate')}"
        if report.without_abstract:
            head += f", {report.without_abstract:,} without abstract"
        if report.skipped:
            head += f", {report.skipped:,} left out"
        head += "."
    if rejected:
        head += f" {_count(rejected, 'file')} rejected."
    if report.near_duplicates:
        head += (f" {_count(report.near_duplicates, 'possible near-duplicate pair')} "
                 "flagged (View ▸ Duplicates…).")
    if report.index_pending and report.cancelled:
        head += (f" {_count(report.index_pending, 'paper')} not yet searchable (indexed "
                 "with the next change or start).")
    return head


def _count(n: int, word: str) -> str:
    """``"1 file"``, ``"10,502 files"``."""
    return f"{n:,} {word}" + ("" if n == 1 else "s")


class ImportReportDialog(QDialog):
    """A non-modal report of one import (see the module text).

    Children (objectName): ``importSummary`` (QLabel), ``importFiles`` (QTableWidget, one
    row per file, :data:`COLUMNS`), ``importNotes`` (read-only QPlainTextEdit, hidden
    without notes).

    Args:
        report: the import's :class:`~paperdesk.core.models.ImportReport`.
        parent: owning window.
    """

    def __init__(self, report: ImportReport, parent: QWidget | None = None):
        super().__init__(parent)
        self.report = report
        self.setWindowTitle("Import report")
        self.setModal(False)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        layout = QVBoxLayout(self)
        self.summary = QLabel(summary_text(report))
        self.summary.setObjectName("importSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)

        table = self.table = QTableWidget(len(report.files), len(COLUMNS), self)
        table.setObjectName("importFiles")
        table.setHorizontalHeaderLabels(list(COLUMNS))
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setWordWrap(True)     # a rejection's reason is shown whole
        table.setShowGrid(False)
        for row, f in enumerate(report.files):
            rejected = bool(f.error and f.format is None)
            cells = [_name(f.path), _format_label(f.format)]
            cells += ["" if rejected else f"{v:,}" for v in
                      (f.added, f.enriched, f.duplicates, f.without_abstract)]
            cells.append(file_result(f))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if 2 <= col <= 5:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(tooltip_html(display_path(f.path) if col == 0 else text))
                table.setItem(row, col, item)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch)
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(table, 3)

        notes = self.note_lines()
        self.notes = QPlainTextEdit(self)
        self.notes.setObjectName("importNotes")
        self.notes.setReadOnly(True)
        self.notes.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.notes.setPlainText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        line = self.notes.fontMetrics().lineSpacing()
        self.notes.setFixedHeight(line * min(max(len(notes), 2), 8) + 14)
        if notes:
            label = QLabel("Notes:")
            label.setTextFormat(Qt.TextFormat.PlainText)
            layout.addWidget(label)
        layout.addWidget(self.notes)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        close.setDefault(True)
        close.setFocus()            # Enter or Esc closes it; the table is not current
        extra = self.notes.height() + line + 12 if notes else 0
        self.resize(900, min(600, 160 + (line + 10) * max(len(report.files), 3) + extra))

    def note_lines(self) -> list[str]:
        """``"name: note"`` for each file's notes (at most :data:`NOTES_SHOWN`)."""
        lines: list[str] = []
        total = sum(len(f.warnings) for f in self.report.files)
        for f in self.report.files:
            for w in f.warnings:
                if len(lines) == NOTES_SHOWN:
                    lines.append(f"… and {total - NOTES_SHOWN} more "
                                 "(paperdesk import --json lists them all)")
                    return lines
                lines.append(f"{_name(f.path)}: {display_path(w)}")
        return lines

    def rows(self) -> list[str]:
        """One line per file: ``"name: format, 3 added, …, result"`` (as in the table)."""
        out = []
        for row in range(self.table.rowCount()):
            cells = [self.table.item(row, c).text() for c in range(len(COLUMNS))]
            if cells[2]:
                counts = ", ".join(f"{cells[c]} {COLUMNS[c].lower()}" for c in range(2, 6))
                out.append(f"{cells[0]} ({cells[1]}): {counts}; {cells[6]}")
            else:
                out.append(f"{cells[0]}: {cells[6]}")
        return out

    def text(self) -> str:
        """The whole report as plain text: the summary, then :meth:`rows`."""
        return "\n".join([self.summary.text(), *self.rows()])

