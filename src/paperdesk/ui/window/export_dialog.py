"""File ▸ Export…: choose the papers, the format, the fields and the file.

The dialog only collects choices; :meth:`ExportDialog.accept` hands them as an
:class:`ExportOptions` to a callback (the window's ``export_with``), which writes the
file on a worker thread. Nothing here blocks except the optional Browse… and
overwrite questions, so tests drive the dialog with its setters and ``accept()``. The
dialog reads nothing from the library: the tags and counts are the tag pane's, and the
papers of a tag, of the selection or of the whole library are looked up on the export
thread (:attr:`ExportOptions.resolve`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDialog,
                               QDialogButtonBox, QFileDialog, QFrame, QGridLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QMessageBox, QPushButton,
                               QRadioButton, QScrollArea, QVBoxLayout, QWidget)

from paperdesk.core.api import (EXPORT_FORMATS, FIELDS, ExportFormat,
                                            export_format)
from paperdesk.core.fields import field as paper_field
from paperdesk.core.models import Tag
from paperdesk.core.scope import Scope
from paperdesk.ui.style.colours import reading_colours
from paperdesk.ui.style.formatting import plural
from paperdesk.ui.app.settings import Settings

__all__ = ["ExportDialog", "ExportOptions", "ListSnapshot", "dialog_formats", "FIELD_LABELS",
           "SCOPES", "file_stem"]



def dialog_formats() -> tuple[ExportFormat, ...]:
    """The export formats in the order the dialog lists them: the bibliography formats,
    then the others, each in registration order."""
    formats = EXPORT_FORMATS.entries()
    return (*(f for f in formats if f.bibliography),
            *(f for f in formats if not f.bibliography))

#: Field -> check box label, in :data:`paperdesk.core.exports.formats.FIELDS` order (from
#: :mod:`paperdesk.core.fields`).
FIELD_LABELS: dict[str, str] = {name: paper_field(name).label for name in FIELDS}
assert tuple(FIELD_LABELS) == FIELDS
#: Fields every export holds (their boxes are checked and disabled).
ALWAYS = ("id", "title")

#: The scope kinds: the list as shown, the selected papers, one tag, everything.
SCOPES = ("current", "selected", "tag", "all")


def file_stem(text: str) -> str:
    """Turn a scope name into a file name stem: ``"Tag: To read!"`` -> ``"tag-to-read"``.

    Args:
        text: any text.
    Returns:
        Lower-case letters, digits and ``-`` (at most 60 characters); ``"papers"`` if
        nothing is left.
    """
    stem = re.sub(r"[\W_]+", "-", text.casefold()).strip("-")
    return stem[:60].rstrip("-") or "papers"


def _muted(label: QLabel) -> QLabel:
    """Draw ``label`` in the palette's secondary (placeholder) text colour."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText,
                     palette.color(QPalette.ColorRole.PlaceholderText))
    label.setPalette(palette)
    return label


@dataclass(frozen=True)
class ListSnapshot:
    """What the paper list shows when the dialog opens.

    Attributes:
        ids: paper ids in list order (the rows as shown).
        label: what the list is, for people (``"tag “scaling”"``, ``"Unread"``,
            ``"search results for “optim*”"``, ``"all papers"``).
        stem: a file name stem for it (see :func:`file_stem`).
        scope: the list's :class:`~paperdesk.core.scope.Scope`, with the search's
            query while searching.
    """

    ids: tuple[int, ...]
    label: str
    stem: str
    scope: Scope = Scope()
    #: While a large search is still loading its complete results: how many there are,
    #: and the order to list them in (``sort``, ``descending``); the export then takes
    #: every match, looked up on the export thread, not only the rows shown so far.
    pending_count: int | None = None
    sort: str | None = None
    descending: bool = False


@dataclass(frozen=True)
class ExportOptions:
    """One export, as chosen in the dialog.

    Attributes:
        ids: the papers, in the order to write (empty when ``resolve`` is set).
        resolve: ``(scope, sort, descending)`` when the ids are to be looked up on the
            export thread instead (a tag, the selection, the whole library, or a search
            still loading), else ``None``.
        fmt: the name of a registered export format.
        path: the file to write (absolute).
        fields: the fields to include, or ``None`` for all of them.
        scope: one of :data:`SCOPES`.
        label: the scope for people (e.g. ``"tag “scaling”"``).
    """

    ids: tuple[int, ...]
    fmt: str
    path: Path
    fields: tuple[str, ...] | None = None
    scope: str = "current"
    label: str = ""
    resolve: tuple[Scope, str | None, bool] | None = None
    #: papers to write when ``resolve`` is set (as the tag pane counted them; ``None``
    #: when not known)
    count: int | None = None


class ExportDialog(QDialog):
    """The export dialog (objectName ``exportDialog``), window-modal when opened with
    ``open()``.

    Scope radio buttons (``scopeCurrent``, ``scopeSelected``, ``scopeTag`` with the
    ``exportTagCombo``, ``scopeAll``), one radio per format (``format_<fmt>``), one check
    box per field (``field_<name>``; ``id`` and ``title`` always on), the file
    (``exportPath`` line edit, ``exportBrowse`` button), ``exportCount`` ("12 papers
    will be exported") and the buttons ``exportButton`` (the default: Enter anywhere in
    the dialog exports, see :meth:`keyPressEvent`) and ``exportCancel`` (Esc). The folder
    and format start as remembered in ``settings``.

    Args:
        tags: the tags with their counts, as the tag pane lists them.
        total: the papers in the library, as the tag pane counted them (``None``: not
            counted yet).
        current: the list as shown (:class:`ListSnapshot`).
        selected: the selected paper ids in list order (may be empty).
        settings: where the last folder and format are remembered (saved on a
            successful :meth:`accept`).
        submit: called by :meth:`accept` with the :class:`ExportOptions`; returns True
            if the export started (the dialog then closes), False to keep it open.
        current_tag_id: the tag to preselect in the tag combo box.
        parent: the window.
    """

    def __init__(self, tags: Sequence[Tag], total: int | None, current: ListSnapshot,
                 selected: Sequence[int],
                 settings: Settings, submit: Callable[[ExportOptions], bool],
                 current_tag_id: int | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export papers")
        self._tags = {tag.id: tag for tag in tags}
        self._total = total
        self._current = current
        self._selected = tuple(selected)
        self._settings = settings
        self._submit = submit
        self._folder = settings.export_folder
        self._auto_path = ""        # the last file name the dialog suggested
        self._confirmed = ""        # a path already confirmed in the Browse… dialog

        layout = QVBoxLayout(self)
        # The choices scroll when the screen is too small for them (a large font on a
        # small screen); the file box and the buttons below always stay in view.
        choices = QWidget()
        choices_layout = QVBoxLayout(choices)
        choices_layout.setContentsMargins(0, 0, 0, 0)
        choices_layout.addWidget(self._build_scope(current_tag_id))
        choices_layout.addWidget(self._build_formats())
        choices_layout.addWidget(self._build_fields())
        self.choices_area = QScrollArea()
        self.choices_area.setObjectName("exportChoices")
        self.choices_area.setWidgetResizable(True)
        self.choices_area.setFrameShape(QFrame.Shape.NoFrame)
        self.choices_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.choices_area.setWidget(choices)
        layout.addWidget(self.choices_area, 1)
        layout.addLayout(self._build_file())
        self.problem_label = QLabel()
        self.problem_label.setObjectName("exportProblem")
        self.problem_label.setTextFormat(Qt.TextFormat.PlainText)
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(
            f"color: {reading_colours(self.palette()).error};")
        self.problem_label.hide()
        layout.addWidget(self.problem_label)
        bottom = QHBoxLayout()
        self.count_label = QLabel()
        self.count_label.setObjectName("exportCount")
        self.count_label.setTextFormat(Qt.TextFormat.PlainText)
        bottom.addWidget(self.count_label, 1)
        # Made inside the dialog (parent ``self``) so that ``setDefault`` below registers
        # Export as the dialog's default button; made without a parent, the dialog did not
        # know it and made Cancel the default when it was shown (Enter cancelled).
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button.setObjectName("exportCancel")
        self.export_button = self.buttons.addButton(
            "Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setObjectName("exportButton")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        bottom.addWidget(self.buttons)
        layout.addLayout(bottom)
        self.export_button.setDefault(True)

        many = len(self._selected) > 1
        self.set_scope("selected" if many else "current")
        self.set_format(settings.export_format)
        self._scope_group.idToggled.connect(self._on_choice_changed)
        self._format_group.idToggled.connect(self._on_choice_changed)
        self.tag_combo.currentIndexChanged.connect(self._on_tag_chosen)
        self.path_edit.textEdited.connect(lambda _text: self.problem_label.hide())
        self._refresh()
        # As tall as the choices need (the scroll area alone would ask for little), but
        # never taller or wider than the screen.
        height = self.sizeHint().height() + choices.sizeHint().height() \
            - self.choices_area.sizeHint().height()
        room = self.screen().availableGeometry()
        self.resize(min(max(self.sizeHint().width(), 560), room.width()),
                    min(height, room.height() - 40))
        # The keyboard starts on the chosen format: ↑/↓ choose another, Enter exports
        # (focus on the buttons let Down move it to Cancel, and Enter then cancelled).
        checked = self._format_group.checkedButton() or self.export_button
        checked.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- construction ------------------------------------------------------------------
    def _build_scope(self, current_tag_id: int | None) -> QGroupBox:
        box = QGroupBox("Papers")
        grid = QGridLayout(box)
        grid.setColumnStretch(0, 1)
        self._scope_group = QButtonGroup(self)
        self._scope_radios: dict[str, QRadioButton] = {}
        self._scope_counts: dict[str, QLabel] = {}
        texts = {"current": f"Current list — {self._current.label}",
                 "selected": "Selected papers",
                 "tag": "Tag:",
                 "all": "Whole library"}
        self.tag_combo = QComboBox()
        self.tag_combo.setObjectName("exportTagCombo")
        self.tag_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.tag_combo.setMinimumContentsLength(18)
        for tag in self._tags.values():
            self.tag_combo.addItem(tag.name, tag.id)
        if current_tag_id is not None:
            index = self.tag_combo.findData(current_tag_id)
            if index >= 0:
                self.tag_combo.setCurrentIndex(index)
        for row, kind in enumerate(SCOPES):
            radio = QRadioButton(texts[kind].replace("&", "&&"))
            radio.setObjectName(f"scope{kind.capitalize()}")
            self._scope_group.addButton(radio, row)
            self._scope_radios[kind] = radio
            count = _muted(QLabel())
            count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self._scope_counts[kind] = count
            if kind == "tag":
                line = QHBoxLayout()
                line.addWidget(radio)
                line.addWidget(self.tag_combo)
                line.addStretch(1)
                grid.addLayout(line, row, 0)
            else:
                grid.addWidget(radio, row, 0)
            grid.addWidget(count, row, 1)
        if not self._selected:
            self._scope_radios["selected"].setEnabled(False)
        if self.tag_combo.count() == 0:
            self._scope_radios["tag"].setEnabled(False)
            self.tag_combo.setEnabled(False)
            self.tag_combo.setPlaceholderText("no tags yet")
        self._scope_counts["current"].setText(f"{self._current_count():,}")
        self._scope_counts["selected"].setText(f"{len(self._selected):,}")
        self._scope_counts["all"].setText("" if self._total is None else f"{self._total:,}")
        return box

    def _build_formats(self) -> QGroupBox:
        box = QGroupBox("Format")
        grid = QGridLayout(box)
        grid.setColumnStretch(1, 1)
        grid.setHorizontalSpacing(16)
        self._format_group = QButtonGroup(self)
        self._format_radios: dict[str, QRadioButton] = {}
        for row, fmt in enumerate(dialog_formats()):
            radio = QRadioButton(fmt.label)
            radio.setObjectName(f"format_{fmt.name}")
            radio.setToolTip(f"{fmt.label} — {fmt.purpose} ({fmt.extension})")
            self._format_group.addButton(radio, row)
            self._format_radios[fmt.name] = radio
            label = _muted(QLabel(fmt.purpose))
            grid.addWidget(radio, row, 0)
            grid.addWidget(label, row, 1)
        return box

    def _build_fields(self) -> QGroupBox:
        box = QGroupBox("Fields")
        grid = QGridLayout(box)
        self._field_boxes: dict[str, QCheckBox] = {}
        columns = 4
        for n, (field, label) in enumerate(FIELD_LABELS.items()):
            check = QCheckBox(label)
            check.setObjectName(f"field_{field}")
            check.setChecked(True)
            if field in ALWAYS:
                check.setEnabled(False)
                check.setToolTip("Always exported")
            grid.addWidget(check, n // columns, n % columns)
            self._field_boxes[field] = check
        return box

    def _build_file(self) -> QHBoxLayout:
        row = QHBoxLayout()
        label = QLabel("&File:")
        self.path_edit = QLineEdit()
        self.path_edit.setObjectName("exportPath")
        self.path_edit.setClearButtonEnabled(True)
        self.path_edit.setMinimumWidth(320)
        label.setBuddy(self.path_edit)
        self.browse_button = QPushButton("&Browse…")
        self.browse_button.setObjectName("exportBrowse")
        self.browse_button.setAutoDefault(False)
        self.browse_button.clicked.connect(self.browse)
        row.addWidget(label)
        row.addWidget(self.path_edit, 1)
        row.addWidget(self.browse_button)
        return row

    # -- choices -----------------------------------------------------------------------
    def scope(self) -> str:
        """Return the chosen scope kind (one of :data:`SCOPES`)."""
        for kind, radio in self._scope_radios.items():
            if radio.isChecked():
                return kind
        return "current"

    def set_scope(self, kind: str, tag: str | None = None) -> bool:
        """Choose the papers.

        Args:
            kind: one of :data:`SCOPES`.
            tag: with ``"tag"``, the tag's name (as listed; without regard to case).
        Returns:
            False if that choice is not available (no selection, no such tag).
        Raises:
            ValueError: ``kind`` is not one of :data:`SCOPES`.
        """
        if kind not in SCOPES:
            raise ValueError(f"unknown export scope {kind!r}")
        if tag is not None:
            wanted = [i for i in range(self.tag_combo.count())
                      if self.tag_combo.itemText(i).casefold() == tag.casefold()]
            if not wanted:
                return False
            self.tag_combo.setCurrentIndex(wanted[0])
        radio = self._scope_radios[kind]
        if not radio.isEnabled():
            return False
        radio.setChecked(True)
        self._refresh()
        return True

    def fmt(self) -> str:
        """Return the chosen format (the name of a registered export format)."""
        for fmt, radio in self._format_radios.items():
            if radio.isChecked():
                return fmt
        return "bibtex"

    def set_format(self, fmt: str) -> None:
        """Choose the format (updates the file name's extension).

        Raises:
            ValueError: not a registered export format.
        """
        if fmt not in self._format_radios:
            raise ValueError(f"unknown export format {fmt!r}")
        self._format_radios[fmt].setChecked(True)
        self._refresh()

    def fields(self) -> tuple[str, ...] | None:
        """Return the checked fields in ``FIELDS`` order, or ``None`` when all are."""
        chosen = tuple(f for f, box in self._field_boxes.items() if box.isChecked())
        return None if len(chosen) == len(FIELDS) else chosen

    def set_fields(self, fields: Iterable[str] | None) -> None:
        """Check exactly these fields (``None``: all); ``id`` and ``title`` stay on.

        Raises:
            ValueError: an unknown field.
        """
        wanted = set(FIELDS if fields is None else fields)
        unknown = wanted - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown export field(s): {', '.join(sorted(unknown))}")
        for field, box in self._field_boxes.items():
            box.setChecked(field in ALWAYS or field in wanted)

    def path(self) -> Path | None:
        """Return the chosen file (relative names are in the remembered folder), or
        ``None`` if the file box is empty."""
        text = self.path_edit.text().strip()
        if not text:
            return None
        path = Path(text).expanduser()
        return path if path.is_absolute() else self._folder / path

    def set_path(self, path: str | Path) -> None:
        """Type a file name into the file box (as the user would)."""
        self.path_edit.setText(str(path))
        self.problem_label.hide()

    def ids(self) -> tuple[int, ...]:
        """Return the ids of the papers the current list exports, in list order; empty
        for the other scopes, whose papers are looked up on the export thread
        (:meth:`options` ``.resolve``)."""
        return self._current.ids if self.scope() == "current" else ()

    def count(self) -> int | None:
        """Return how many papers the chosen scope exports, as the list, the selection
        and the tag pane counted them; ``None`` when not counted yet."""
        kind = self.scope()
        if kind == "current":
            return self._current_count()
        if kind == "selected":
            return len(self._selected)
        if kind == "tag":
            tag = self._tags.get(self._tag_id())
            return 0 if tag is None else tag.count
        return self._total

    def options(self) -> ExportOptions | None:
        """Return the export as chosen, or ``None`` if there is no file name yet."""
        path = self.path()
        if path is None:
            return None
        kind = self.scope()
        cur = self._current
        if kind == "current" and cur.pending_count is None:
            return ExportOptions(cur.ids, self.fmt(), path, self.fields(), kind,
                                 self._scope_label(kind))
        if kind == "current":
            resolve = (cur.scope, cur.sort, cur.descending)
        else:
            resolve = (self._resolve_scope(kind), None, False)
        return ExportOptions((), self.fmt(), path, self.fields(), kind,
                             self._scope_label(kind), resolve, self.count())

    def _current_count(self) -> int:
        """Papers in the current list: all matches while a search is still loading."""
        pending = self._current.pending_count
        return len(self._current.ids) if pending is None else pending

    # -- actions -----------------------------------------------------------------------
    @Slot()
    def browse(self) -> None:
        """Choose the file with a save dialog (which asks before replacing a file)."""
        fmt = self.fmt()
        name, ext = export_format(fmt).label, export_format(fmt).extension
        start = self.path() or self._folder / (self._stem() + ext)
        chosen, _filter = QFileDialog.getSaveFileName(
            self, "Export to", str(start), f"{name} (*{ext});;All files (*)")
        if not chosen:
            return
        path = Path(chosen)
        if not path.suffix:
            path = path.with_suffix(ext)
        else:
            self._confirmed = str(path)
        self._folder = path.parent
        self.set_path(path)

    def confirm_overwrite(self, path: Path) -> bool:
        """Ask whether to replace an existing file (a modal question).

        Returns:
            True to replace it.
        """
        answer = QMessageBox.question(
            self, "Replace the file?",
            f"{path.name} already exists in {path.parent}.\n\nReplace it with this export?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def accept(self) -> None:
        """Check the choices and start the export through ``submit``; on success
        remember the folder and format and close. Problems (no papers, no file name, a
        folder instead of a file) are shown in the dialog, which stays open."""
        options = self.options()
        if self.count() == 0:
            self._problem("There are no papers to export. Choose other papers.")
            return
        if options is None:
            self._problem("Type a file name or choose one with Browse….")
            return
        path = options.path
        if path.is_dir():
            self._problem(f"{path} is a folder. Add a file name, e.g. "
                          f"{self._stem()}{export_format(options.fmt).extension}")
            return
        if path.exists() and str(path) != self._confirmed \
                and not self.confirm_overwrite(path):
            return
        if not self._submit(options):
            return
        if path.parent.is_dir():
            self._settings.export_folder = path.parent
        self._settings.export_format = options.fmt
        super().accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter or Return that no control took (the file box, a format or scope radio
        button, a field check box, the tag box) exports, as :meth:`accept` does, also
        while Export is disabled, so that the dialog says why nothing can be exported.
        A focused push button (Cancel, Export) still takes Enter itself; Esc cancels.

        Args:
            event: the key press (Qt delivers it here when the focused control
                ignored it).
        """
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
                event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            event.accept()
            self.accept()
            return
        super().keyPressEvent(event)

    # -- internals ---------------------------------------------------------------------
    def _problem(self, text: str) -> None:
        self.problem_label.setText(text)
        self.problem_label.show()

    def _tag_id(self) -> int | None:
        return self.tag_combo.currentData() if self.tag_combo.count() else None

    def _resolve_scope(self, kind: str) -> Scope:
        """The scope whose papers the export thread looks up for ``kind`` (not
        ``"current"``)."""
        if kind == "selected":
            return Scope(ids=self._selected)
        if kind == "tag":
            return Scope(tag_id=self._tag_id())
        return Scope()

    def _tag_name(self) -> str:
        return self.tag_combo.currentText() if self.tag_combo.count() else ""

    def _scope_label(self, kind: str) -> str:
        if kind == "current":
            return self._current.label
        if kind == "selected":
            return "the selected papers"
        if kind == "tag":
            return f"tag “{self._tag_name()}”"
        return "the whole library"

    def _stem(self) -> str:
        kind = self.scope()
        if kind == "current":
            return self._current.stem
        if kind == "selected":
            return "selected-papers"
        if kind == "tag":
            return file_stem(self._tag_name())
        return "paperdesk-library"

    @Slot(int)
    def _on_tag_chosen(self, _index: int) -> None:
        if self._scope_radios["tag"].isEnabled():
            self._scope_radios["tag"].setChecked(True)
        self._refresh()

    @Slot(int, bool)
    def _on_choice_changed(self, _id: int, checked: bool) -> None:
        if checked:
            self._refresh()

    def _refresh(self) -> None:
        """Update the ids, the count, the tag's count and the suggested file name."""
        tag = self._tags.get(self._tag_id())
        self._scope_counts["tag"].setText(
            f"{tag.count:,}" if tag is not None and tag.count is not None else "")
        n = self.count()
        name = export_format(self.fmt()).label
        if n is None:
            text = f"The whole library will be exported as {name}"
        else:
            text = f"{plural(n, 'paper')} will be exported as {name}" if n \
                else "No papers to export"
        self.count_label.setText(text)
        self.export_button.setEnabled(n != 0)
        self._update_path()

    def _update_path(self) -> None:
        ext = export_format(self.fmt()).extension
        suggested = str(self._folder / (self._stem() + ext))
        text = self.path_edit.text().strip()
        if not text or text == self._auto_path:
            self.path_edit.setText(suggested)
            self._auto_path = suggested
            return
        current = Path(text)
        if current.suffix.lower() in {f.extension for f in EXPORT_FORMATS.entries()} \
                and current.suffix != ext:
            self.path_edit.setText(str(current.with_suffix(ext)))
