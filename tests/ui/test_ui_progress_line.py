"""The import's progress line in the status bar (issue 25 item 13: "progress text wraps
and is cut in the status bar"): at the default window size, 1280x800, it stays on one
line; a line too long for its room ends in "…" and its tooltip holds the whole line."""

from __future__ import annotations

import html
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QLabel  # noqa: E402

from paperdesk.core.imports.progress import ImportProgress  # noqa: E402
from ui_fixtures import held_storing, TOTAL, WAIT_MS, open_seeded, win  # noqa: E402,F401


def _files(tmp_path, count: int = 3, records: int = 300) -> list[str]:
    paths = []
    for n in range(count):
        path = tmp_path / f"lattices {n}.txt"
        path.write_text("Lattice Papers\n\n" + "\n\n".join(
            f"We study woven lattice number {n}-{i} and its radiant depth; experiments "
            f"on benchmark {i % 11} show lattices of order {i} converge."
            for i in range(records)) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _on_one_line(label: QLabel) -> bool:
    """The label's drawn text fits its width, and it is one line tall."""
    drawn = QLabel.text(label)          # what Qt draws (the whole text, or elided)
    metrics = label.fontMetrics()
    return (metrics.horizontalAdvance(drawn) <= label.contentsRect().width()
            and label.height() < 2 * metrics.lineSpacing())


def _whole(label: QLabel) -> str:
    """The label's whole text (before the fix it had no other than what it drew)."""
    return getattr(label, "full_text", None) or label.text()


def _tooltip_holds(label: QLabel, text: str) -> bool:
    return html.escape(text) in label.toolTip()


def test_the_progress_line_stays_on_one_line_with_the_whole_text_in_its_tooltip(
        qtbot, win, tmp_path, held_storing):
    assert (win.width(), win.height()) == (1280, 800)
    go_on = held_storing        # the import waits after its first 100 abstracts
    label = win.import_progress_label
    try:
        assert win.start_import(_files(tmp_path))
        qtbot.waitUntil(lambda: label.isVisible() and "of 900 records" in _whole(label)
                        and _tooltip_holds(label, "lattices 0.txt"), timeout=WAIT_MS)
        line = _whole(label)
        assert line.startswith("Storing file 1 of 3 · ")
        assert _on_one_line(label)
        assert _tooltip_holds(label, line)
        assert _tooltip_holds(label, "lattices 0.txt")     # and the file being stored
        # A long import's line (many files, millions of records, hours left) is longer
        # than the room the line has: it ends in "…", the whole line in the tooltip.
        long_line = ImportProgress(stage="import", files_done=117, files_total=1_200,
                                   file="x.ris", done=1_880_000, total=12_000_000,
                                   eta_seconds=7_830).text()
        label.setText(long_line)
        assert QLabel.text(label).endswith("…")
        assert _on_one_line(label)
        assert _tooltip_holds(label, long_line)
        assert win.statusBar().height() < 2 * label.fontMetrics().lineSpacing() + 12
    finally:
        go_on.set()
    qtbot.waitUntil(lambda: not win.import_runner.is_running() and not win.is_busy(),
                    timeout=WAIT_MS)
    assert not label.isVisible() and win.lib.papers.count() == TOTAL + 900
