"""The metadata editor (``m``): a paper's own authors, date, venue, entry type, DOI,
arXiv id, URL and citation key, typed with the keyboard.

The dialog only collects and checks: each value goes through the core's own check
(:mod:`paperdesk.core.metadata`), and a refused one shows its one-line reason under its
field while the dialog stays open. A form that passes is handed on with
:attr:`MetadataDialog.saveRequested`; the window submits it to the writer thread as one
undoable edit (``lib.papers.set_metadata`` with the key) and calls :meth:`MetadataDialog.saved`
once it is committed (the dialog then closes) or :meth:`MetadataDialog.refused` with the
core's reason (e.g. a citation key another paper has). "Regenerate" asks for the key
the typed authors, year and title would give (:attr:`MetadataDialog.keyRequested`; the
window reads it off the UI thread and calls :meth:`MetadataDialog.set_proposed_key`).

Keys: Tab / Shift+Tab move between the fields (also out of the Authors box), Enter
saves (in the Authors box Enter starts the next author; Ctrl+Enter saves everywhere),
Esc cancels.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton,
                               QVBoxLayout, QWidget)

from paperdesk.core.metadata import (ENTRY_TYPES, MetadataError, check_arxiv_id,
                                     check_citation_key, check_date, check_doi,
                                     check_metadata, check_url, format_author_list,
                                     read_author_list)
from paperdesk.core.fields import stored_fields
from paperdesk.core.models import Author, Metadata, Paper, field_values
from paperdesk.ui.style.colours import reading_colours

__all__ = ["MetadataDialog", "FIELDS", "NOT_SET", "parse_author_lines", "field_of_error"]

#: The table-driven fields the form edits (``editor == "line"``), in table order.
_EDITED = tuple(f for f in stored_fields() if f.editor == "line")
#: The form's fields, in tab order: name -> label (``&`` marks the Alt key); the
#: table-driven fields come after URL, labelled with their field label.
FIELDS: dict[str, str] = {"authors": "&Authors", "date": "&Date or year",
                          "venue": "&Venue", "type": "T&ype", "doi": "D&OI",
                          "arxiv": "ar&Xiv id", "url": "U&RL",
                          **{f.name: f.label for f in _EDITED}, "key": "Citation &key"}
#: The entry-type choice meaning "none set".
NOT_SET = "not set"

#: The field a core message is about, by the message's first word(s) ("doi: ...").
_PREFIXES = {"author": "authors", "date": "date", "type": "type", "doi": "doi",
             "arxiv": "arxiv", "url": "url", "citation key": "key"}


def parse_author_lines(text: str) -> tuple[tuple[Author, ...], bool]:
    """Read the Authors box: one author per line ("Family, Given" or "Given Family"; an
    organisation in braces, "{World Health Organization}"), and a line may also hold
    several separated by ``;``; a last line "et al." (or "others") says the list is
    truncated (:func:`paperdesk.core.metadata.read_author_list`).

    Returns:
        ``(authors, et_al)``.
    Raises:
        MetadataError: a name cannot be read (the core's one-line reason).
    """
    return read_author_list("; ".join(text.splitlines()))


def field_of_error(message: str) -> str | None:
    """Return the form field a core refusal names (``"doi: ..."`` -> ``"doi"``), or
    ``None`` when it names none of them."""
    head = message.split(":", 1)[0].strip().lower()
    return _PREFIXES.get(head)


class MetadataDialog(QDialog):
    """Edit one paper's own metadata and citation key (objectName ``metadataDialog``).

    Children by objectName: ``authorsEdit`` (QPlainTextEdit), ``dateEdit``,
    ``venueEdit``, ``typeCombo``, ``doiEdit``, ``arxivEdit``, ``urlEdit``, ``keyEdit``,
    ``regenerateButton``, one ``<field>Error`` label per field, ``formError`` (a refusal
    naming no field), ``saveButton``.

    Signals:
        saveRequested(object, object): ``(Metadata, key)`` — the checked form; ``key``
            is the citation key when it differs from the paper's, else ``None``.
        keyRequested(object): a :class:`Metadata` of the typed authors and date, for
            the proposed citation key ("Regenerate").

    Args:
        paper: the paper (its metadata and key fill the form).
        parent: the window (the dialog is window-modal; open it with ``open()``).
    """

    saveRequested = Signal(object, object)
    keyRequested = Signal(object)

    def __init__(self, paper: Paper, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("metadataDialog")
        self.setWindowTitle("Edit Metadata")
        self.paper_id = paper.id
        self._key = paper.citation_key
        self._saving = False
        self._errors: dict[str, QLabel] = {}
        self._build(paper)
        self._fill(paper)

    # -- construction --------------------------------------------------------------------
    def _build(self, paper: Paper) -> None:
        error_colour = reading_colours(self.palette()).error
        self.authors = QPlainTextEdit()
        self.authors.setObjectName("authorsEdit")
        self.authors.setTabChangesFocus(True)
        self.authors.setPlaceholderText("One per line: Family, Given\n"
                                        "(or on one line: Doe, Jane; Smith, John)\n"
                                        "{Organisation Name} in braces; et al. last")
        lines = self.authors.fontMetrics().lineSpacing()
        self.authors.setFixedHeight(lines * 4 + 12)
        self.authors.installEventFilter(self)
        self.date = self._line("dateEdit", "2023, 2023-05 or 2023-05-17")
        self.venue = self._line("venueEdit", "journal, conference or repository")
        self.type_combo = QComboBox()
        self.type_combo.setObjectName("typeCombo")
        self.type_combo.addItem(NOT_SET, None)
        for name in ENTRY_TYPES:
            self.type_combo.addItem(name, name)
        self.type_combo.setToolTip("Not set: written as preprint when the paper has an "
                                   "arXiv id, else as misc")
        self.doi = self._line("doiEdit", "10.1234/suffix (a doi.org link works too)")
        self.arxiv = self._line("arxivEdit", "2212.08630 or hep-th/9901001")
        self.url = self._line("urlEdit", "https://… (the paper's own page)")
        #: One line edit per table-driven field (objectName ``<name>Edit``).
        self.field_edits = {f.name: self._line(f"{f.name}Edit", f.label) for f in _EDITED}
        self.key = self._line("keyEdit", "letters, digits and _ : . - + /")
        self.regenerate_button = QPushButton("Re&generate")
        self.regenerate_button.setObjectName("regenerateButton")
        self.regenerate_button.setAutoDefault(False)
        self.regenerate_button.setToolTip("Propose a key from the first author's family "
                                          "name, the year and the first word of the title")
        self.regenerate_button.clicked.connect(self.request_key)
        key_row = QWidget()
        key_box = QHBoxLayout(key_row)
        key_box.setContentsMargins(0, 0, 0, 0)
        key_box.addWidget(self.key, 1)
        key_box.addWidget(self.regenerate_button)

        widgets = {"authors": self.authors, "date": self.date, "venue": self.venue,
                   "type": self.type_combo, "doi": self.doi, "arxiv": self.arxiv,
                   "url": self.url, **self.field_edits, "key": key_row}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        for name, text in FIELDS.items():
            error = QLabel()
            error.setObjectName(f"{name}Error")
            error.setTextFormat(Qt.TextFormat.PlainText)
            error.setWordWrap(True)
            error.setStyleSheet(f"color: {error_colour};")
            error.hide()
            self._errors[name] = error
            cell = QWidget()
            box = QVBoxLayout(cell)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(2)
            box.addWidget(widgets[name])
            box.addWidget(error)
            label = QLabel(text)
            label.setBuddy(self.key if name == "key" else widgets[name])
            form.addRow(label, cell)

        self.form_error = QLabel()
        self.form_error.setObjectName("formError")
        self.form_error.setTextFormat(Qt.TextFormat.PlainText)
        self.form_error.setWordWrap(True)
        self.form_error.setStyleSheet(f"color: {error_colour};")
        self.form_error.hide()
        hint = QLabel("Enter saves (in Authors: Ctrl+Enter)  ·  Esc cancels  ·  "
                      "Ctrl+Z in the window undoes it")
        hint.setStyleSheet(f"color: {reading_colours(self.palette()).muted};")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setObjectName("saveButton")
        self.save_button.setDefault(True)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        title = QLabel(paper.title)
        title.setObjectName("paperTitle")
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setWordWrap(True)
        title.setStyleSheet("font-weight: 600;")
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(self.form_error)
        layout.addWidget(hint)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(max(560, self.fontMetrics().averageCharWidth() * 70))

        for edit, name in ((self.date, "date"), (self.doi, "doi"), (self.arxiv, "arxiv"),
                           (self.url, "url"), (self.key, "key")):
            edit.editingFinished.connect(lambda name=name: self._check_one(name))
            edit.textEdited.connect(lambda _text, name=name: self._show_error(name, ""))
        self.authors.textChanged.connect(lambda: self._show_error("authors", ""))
        self.setTabOrder(self.authors, self.date)
        self.setTabOrder(self.date, self.venue)
        self.setTabOrder(self.venue, self.type_combo)
        self.setTabOrder(self.type_combo, self.doi)
        self.setTabOrder(self.doi, self.arxiv)
        self.setTabOrder(self.arxiv, self.url)
        chain = [self.url, *self.field_edits.values(), self.key]
        for before, after in zip(chain, chain[1:]):
            self.setTabOrder(before, after)
        self.setTabOrder(self.key, self.regenerate_button)

    @staticmethod
    def _line(name: str, placeholder: str) -> QLineEdit:
        edit = QLineEdit()
        edit.setObjectName(name)
        edit.setPlaceholderText(placeholder)
        edit.setClearButtonEnabled(True)
        return edit

    def _fill(self, paper: Paper) -> None:
        meta = paper.metadata
        self.authors.setPlainText(format_author_list(meta.authors, meta.et_al, "\n"))
        self.date.setText(meta.date or "")
        self.venue.setText(meta.venue)
        index = self.type_combo.findData(meta.entry_type) if meta.entry_type else 0
        self.type_combo.setCurrentIndex(max(index, 0))
        self.doi.setText(meta.doi or "")
        self.arxiv.setText(meta.arxiv_id or "")
        self.url.setText(meta.url or "")
        for name, edit in self.field_edits.items():
            edit.setText(meta.value(name))
        self.key.setText(paper.citation_key)
        self.authors.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- reading and checking the form ---------------------------------------------------
    def _checks(self) -> dict[str, Callable[[], object]]:
        return {"authors": lambda: parse_author_lines(self.authors.toPlainText()),
                "date": lambda: check_date(self.date.text()),
                "doi": lambda: check_doi(self.doi.text()),
                "arxiv": lambda: check_arxiv_id(self.arxiv.text()),
                "url": lambda: check_url(self.url.text()),
                "key": lambda: check_citation_key(self.key.text())}

    def _check_one(self, name: str) -> bool:
        try:
            self._checks()[name]()
        except MetadataError as exc:
            self._show_error(name, str(exc))
            return False
        self._show_error(name, "")
        return True

    def _show_error(self, name: str, message: str) -> None:
        label = self._errors[name]
        label.setText(message)
        label.setVisible(bool(message))

    def errors(self) -> dict[str, str]:
        """Return the reasons shown now, by field name (empty when none is shown)."""
        return {name: label.text() for name, label in self._errors.items()
                if not label.isHidden()}

    def read_form(self) -> tuple[Metadata, str | None] | None:
        """Check every field with the core's checks and show each refusal under its
        field.

        Returns:
            ``(metadata, key)`` (``key`` ``None`` when unchanged), or ``None`` when a
            field was refused (the focus goes to the first one).
        """
        values: dict[str, object] = {}
        first = None
        for name, check in self._checks().items():
            try:
                values[name] = check()
                self._show_error(name, "")
            except MetadataError as exc:
                self._show_error(name, str(exc))
                first = first or name
        if first is not None:
            self._focus_field(first)
            return None
        authors, et_al = values["authors"]
        meta = Metadata(authors=authors, et_al=et_al, date=values["date"],
                        venue=" ".join(self.venue.text().split()),
                        entry_type=self.type_combo.currentData(), doi=values["doi"],
                        arxiv_id=values["arxiv"], url=values["url"],
                        values=field_values({name: edit.text() for name, edit
                                             in self.field_edits.items()}))
        try:
            meta = check_metadata(meta)
        except MetadataError as exc:
            self.refused(str(exc))
            return None
        key = values["key"]
        return meta, (key if key != self._key else None)

    def _focus_field(self, name: str) -> None:
        widget = {"authors": self.authors, "date": self.date, "venue": self.venue,
                  "type": self.type_combo, "doi": self.doi, "arxiv": self.arxiv,
                  "url": self.url, **self.field_edits, "key": self.key}.get(name)
        if widget is not None:
            widget.setFocus(Qt.FocusReason.OtherFocusReason)
            if isinstance(widget, QLineEdit):
                widget.selectAll()

    # -- saving --------------------------------------------------------------------------
    def save(self) -> bool:
        """Check the form and, if it passes, emit :attr:`saveRequested` and wait for
        :meth:`saved` or :meth:`refused` (Save stays disabled meanwhile).

        Returns:
            False when a field was refused (its reason is shown; nothing is sent).
        """
        if self._saving:
            return False
        self.form_error.hide()
        result = self.read_form()
        if result is None:
            return False
        self._saving = True
        self.save_button.setEnabled(False)
        self.save_button.setText("Saving…")
        self.saveRequested.emit(*result)
        return True

    def saved(self) -> None:
        """The edit was committed: close the dialog."""
        self._saving = False
        self.accept()

    def refused(self, message: str) -> None:
        """Show the core's refusal (one line) under the field it names, or under the
        form; the dialog stays open to correct it."""
        self._saving = False
        self.save_button.setEnabled(True)
        self.save_button.setText("Save")
        name = field_of_error(message)
        if name is not None:
            self._show_error(name, message)
            self._focus_field(name)
        else:
            self.form_error.setText(f"Not saved: {message}")
            self.form_error.show()

    # -- the proposed key ----------------------------------------------------------------
    def request_key(self) -> bool:
        """Ask for the key the typed authors and date would give (Regenerate).

        Returns:
            False when the authors or the date are refused (their reasons are shown).
        """
        ok_authors = self._check_one("authors")
        ok_date = self._check_one("date")
        if not (ok_authors and ok_date):
            return False
        meta = Metadata(authors=parse_author_lines(self.authors.toPlainText())[0],
                        date=check_date(self.date.text()))
        self.regenerate_button.setEnabled(False)
        self.keyRequested.emit(meta)
        return True

    def set_proposed_key(self, key: str) -> None:
        """Put the proposed key in the key field (saved only with Save)."""
        self.regenerate_button.setEnabled(True)
        self.key.setText(key)
        self._show_error("key", "")
        self.key.setFocus(Qt.FocusReason.OtherFocusReason)

    def key_failed(self, message: str) -> None:
        """The proposed key could not be read: say why under the key field."""
        self.regenerate_button.setEnabled(True)
        self._show_error("key", f"No key proposed: {message}")

    # -- keys ----------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """Ctrl+Enter in the Authors box saves (Enter there starts a new line)."""
        if watched is self.authors and event.type() == QEvent.Type.KeyPress \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.save()
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Ctrl+Enter saves from any field; Enter in a line edit saves (the default
        button); Esc cancels."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.save()
            return
        super().keyPressEvent(event)
