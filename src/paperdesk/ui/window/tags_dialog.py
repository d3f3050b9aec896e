"""Tag dialogs that need no mouse: New Tag (a name and its number key) and Edit ▸ Manage
Tags… (every tag with its key, colour and paper count; rename, recolour, bind a key,
merge, delete).

The dialogs change nothing themselves: they emit what the user asked for and the window
hands it to its one writer thread, where the core records one undo step each. The Tags
dialog shows a change only when the window gives it the tag list read after the commit
(:meth:`TagsDialog.set_tags`). Every text is plain text (tag names are shown literally).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QColorDialog, QDialog, QDialogButtonBox,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QMessageBox, QPushButton,
                               QStyledItemDelegate, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from paperdesk.core.api import TAG_COLOURS, TAG_NAME_MAX, tag_key
from paperdesk.core.models import Tag
from paperdesk.ui.style.colours import swatch_icon
from paperdesk.ui.style.formatting import plural, tooltip_html

__all__ = ["COLOUR_NAMES", "colour_name", "key_choices", "ChoiceList", "ChoiceDialog",
           "NewTagDialog", "TagsDialog"]

#: Names of the tag palette's colours (:data:`TAG_COLOURS`, Tableau 10's first eight),
#: shown beside their swatches; any other colour is shown as ``#rrggbb``.
COLOUR_NAMES: dict[str, str] = dict(zip(
    TAG_COLOURS, ("blue", "orange", "green", "red", "teal", "yellow", "purple", "brown")))

#: Keys that pick a row of a number-key list: 1-9 their key, 0 and Backspace "None".
_DIGIT_KEYS: dict[int, int] = {int(getattr(Qt.Key, f"Key_{n}")): n for n in range(10)}

NAME, KEY, COLOUR, PAPERS = range(4)
_TagIdRole = Qt.ItemDataRole.UserRole + 1
_NameRole = Qt.ItemDataRole.UserRole + 2
_ValueRole = Qt.ItemDataRole.UserRole + 3


def colour_name(colour: str) -> str:
    """Return a tag colour for people: ``"blue"`` for the palette's ``#4e79a7``, else the
    ``#rrggbb`` text itself (lower case)."""
    return COLOUR_NAMES.get(colour.lower(), colour.lower())


def key_choices(tags: Sequence[Tag], tag_id: int | None = None) -> list[tuple[int | None, str]]:
    """Return the number-key choices for a tag: ``None`` first, then 1-9, each saying
    whether it is free or which tag has it now.

    Args:
        tags: every tag (``lib.tags.all()``), for who holds which key.
        tag_id: the tag the key is for (its own key reads "this tag"), or ``None`` for a
            tag not created yet.
    Returns:
        ``[(None, "None"), (1, "1   free"), (2, "2   now “ml” (moves to this tag)"), ...]``;
        every text but the first starts with its digit.
    """
    holders = {t.key: t for t in tags if t.key}
    rows: list[tuple[int | None, str]] = [(None, "None")]
    for key in range(1, 10):
        holder = holders.get(key)
        if holder is None:
            text = f"{key}   free"
        elif holder.id == tag_id:
            text = f"{key}   this tag's key"
        else:
            text = f"{key}   now “{holder.name}” (moves to this tag)"
        rows.append((key, text))
    return rows


def _papers(n: int | None) -> str:
    """``"3 papers"``; ``"papers not counted yet"`` while the window counts them."""
    return plural(n, "paper") if n is not None else "papers not counted yet"


class ChoiceList(QListWidget):
    """A list of choices, each carrying a value (``item.data(_ValueRole)``), with
    optional single keys that jump to a row (e.g. the digits of a number-key list).

    Args:
        choices: ``(value, text, icon or None)`` rows; the text is shown literally.
        current: the value to start on (default: the first row).
        keys: ``{Qt.Key: row}``; a key press of one of them makes that row current.
        parent: Qt parent.
    """

    def __init__(self, choices: Sequence[tuple[object, str, QIcon | None]],
                 current: object = None, keys: Mapping[int, int] | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self._keys = dict(keys or {})
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setUniformItemSizes(True)
        start = 0
        for row, (value, text, icon) in enumerate(choices):
            item = QListWidgetItem(text, self)
            item.setData(_ValueRole, value)
            if icon is not None:
                item.setIcon(icon)
            if value == current:
                start = row
        if self.count():
            self.setCurrentRow(start)

    def value(self) -> object:
        """Return the value of the current row (``None`` when the list is empty)."""
        item = self.currentItem()
        return item.data(_ValueRole) if item is not None else None

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """One of the list's keys chooses its row; other keys as in any list."""
        row = self._keys.get(int(event.key()))
        if row is not None and not (event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            self.setCurrentRow(row)
            return
        super().keyPressEvent(event)


def _key_list(tags: Sequence[Tag], tag_id: int | None, current: int | None,
              parent: QWidget | None = None) -> ChoiceList:
    keys = {k: n for k, n in _DIGIT_KEYS.items()}
    keys[int(Qt.Key.Key_Backspace)] = 0
    choices = [(value, text, None) for value, text in key_choices(tags, tag_id)]
    return ChoiceList(choices, current, keys, parent)


class ChoiceDialog(QDialog):
    """Choose one value from a list (window-modal; open it with ``open()``): arrows or
    the list's keys move, typing a name's first letters jumps to it, Enter chooses, Esc
    cancels.

    Child widgets: ``choiceList`` (:class:`ChoiceList`).

    Signals:
        chosen(object): the value chosen (the dialog then closes).

    Args:
        title: window title.
        prompt: what to choose (plain text).
        choices: ``(value, text, icon or None)`` rows.
        current: the value to start on.
        keys: ``{Qt.Key: row}`` single keys of the list.
        ok_text: the confirming button's text.
        parent: the owning window.
        choice_list: a ready :class:`ChoiceList` to show instead of one made from
            ``choices``, ``current`` and ``keys``.
    """

    chosen = Signal(object)

    def __init__(self, title: str, prompt: str,
                 choices: Sequence[tuple[object, str, QIcon | None]],
                 current: object = None, keys: Mapping[int, int] | None = None,
                 ok_text: str = "OK", parent: QWidget | None = None,
                 choice_list: ChoiceList | None = None):
        super().__init__(parent)
        self.setObjectName("choiceDialog")
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        label = QLabel(prompt)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        self.list = choice_list or ChoiceList(choices, current, keys)
        self.list.setObjectName("choiceList")
        self.list.itemDoubleClicked.connect(lambda _item: self._choose())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.addButton(ok_text, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self._choose)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.ok_button.setDefault(True)
        self.ok_button.setEnabled(self.list.count() > 0)
        self.resize(420, 320)
        self.list.setFocus()

    def _choose(self) -> None:
        if self.list.currentItem() is None:
            return
        self.chosen.emit(self.list.value())
        self.accept()


class NewTagDialog(QDialog):
    """Create a tag, choosing its number key (window-modal; open it with ``open()``).

    Opened by ``t`` when the name typed is not a tag yet (the name is filled in and the
    focus is on the key list, so a digit and Enter finish it), and by Edit ▸ New Tag…
    (the focus is on the name; Tab goes to the keys). In the key list, 1-9 choose that
    key (a key another tag has says so: it moves to the new tag), 0 or Backspace
    "None" (the default), arrows move; Enter creates, Esc cancels.

    Child widgets (by objectName): ``newTagName`` (QLineEdit), ``newTagKeyList``
    (:class:`ChoiceList`), ``newTagError`` (QLabel), ``createTagButton`` (default).

    Signals:
        createRequested(str, object): ``(name, key or None)``; the dialog then closes.

    Args:
        name: the name to start with ("" for none).
        tags: every tag (for the keys' holders and names that exist).
        targets: how many papers the tag goes to (0: create it without papers).
        parent: the owning window.
    """

    createRequested = Signal(str, object)

    def __init__(self, name: str, tags: Sequence[Tag], targets: int = 0,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("newTagDialog")
        self.setWindowTitle("New Tag")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self._known = {tag_key(t.name) for t in tags}
        self._targets = targets
        if targets:
            what = ("the paper shown" if targets == 1
                    else f"the {targets} selected papers")
            intro_text = f"A new tag, added to {what}."
        else:
            intro_text = "A new tag, on no paper yet (T adds it to papers)."
        intro = QLabel(intro_text + " Its number key (1-9) then toggles it on the "
                       "selected papers.")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        self.name_edit = QLineEdit(name)
        self.name_edit.setObjectName("newTagName")
        self.name_edit.setMaxLength(TAG_NAME_MAX + 20)   # the core says what is too long
        self.key_list = _key_list(tags, None, None)
        self.key_list.setObjectName("newTagKeyList")
        self.key_list.setToolTip("1-9: that key, 0 or Backspace: none")
        self.key_list.setMinimumHeight(self.key_list.sizeHintForRow(0) * 10 + 6)
        keys_label = QLabel("Number &key:\n(1-9, 0: none)")
        keys_label.setTextFormat(Qt.TextFormat.PlainText)
        keys_label.setBuddy(self.key_list)
        name_label = QLabel("&Name:")
        name_label.setBuddy(self.name_edit)
        form = QFormLayout()
        form.addRow(name_label, self.name_edit)
        form.addRow(keys_label, self.key_list)
        self.error_label = QLabel()
        self.error_label.setObjectName("newTagError")
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.create_button = buttons.addButton(
            "&Create Tag" if not targets else "&Create and Add",
            QDialogButtonBox.ButtonRole.AcceptRole)
        self.create_button.setObjectName("createTagButton")
        buttons.accepted.connect(self._create)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.create_button.setDefault(True)
        self.resize(440, self.sizeHint().height())
        (self.key_list if name.strip() else self.name_edit).setFocus()

    def name(self) -> str:
        """Return the name as it will be stored (white space collapsed)."""
        return " ".join(self.name_edit.text().split())

    def key(self) -> int | None:
        """Return the chosen number key, or ``None``."""
        value = self.key_list.value()
        return value if isinstance(value, int) else None

    def _create(self) -> None:
        name = self.name()
        problem = None
        if not name:
            problem = "Type the tag's name."
        elif "," in name:
            problem = "A tag name cannot contain a comma."
        elif len(name) > TAG_NAME_MAX:
            problem = f"A tag name has at most {TAG_NAME_MAX} characters ({len(name)} now)."
        elif not self._targets and tag_key(name) in self._known:
            problem = (f"The tag “{name}” exists already (Edit ▸ Manage Tags… binds its "
                       "key).")
        if problem is not None:
            self.error_label.setText(f"⚠ {problem}")
            self.error_label.show()
            self.name_edit.setFocus()
            return
        self.createRequested.emit(name, self.key())
        self.accept()


class _RenameDelegate(QStyledItemDelegate):
    """Edits a tag's name in place (F2 or Enter) without writing it into the list: the
    new name is handed on (``renamed``) and the row changes when the window shows the
    committed tag list."""

    renamed = Signal(int, str)

    def createEditor(self, parent, option, index):  # noqa: N802 (Qt)
        """Qt hook: a line edit named ``tagNameEditor``."""
        editor = QLineEdit(parent)
        editor.setObjectName("tagNameEditor")
        editor.setFrame(False)
        return editor

    def setEditorData(self, editor, index) -> None:  # noqa: N802 (Qt)
        """Qt hook: start from the tag's name, all selected."""
        editor.setText(index.data(_NameRole) or "")
        editor.selectAll()

    def setModelData(self, editor, model, index) -> None:  # noqa: N802 (Qt)
        """Qt hook: emit ``renamed`` if the name changed; the list stays as it was."""
        name = " ".join(editor.text().split())
        old = index.data(_NameRole) or ""
        tag_id = index.data(_TagIdRole)
        if tag_id is not None and name != old:
            self.renamed.emit(int(tag_id), editor.text())


class _TagList(QTreeWidget):
    """The Tags dialog's list: Tag, Key, Colour, Papers; one row per tag."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagsList")
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.setHeaderLabels(["Tag", "Key", "Colour", "Papers"])
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        for column in (KEY, COLOUR, PAPERS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)

    def editing(self) -> bool:
        """True while a name is being edited in place."""
        return self.state() == QAbstractItemView.State.EditingState


class TagsDialog(QDialog):
    """Edit ▸ Manage Tags… (Ctrl+Shift+T): every tag with its number key, colour and
    paper count, changed from the keyboard (window-modal; open it with ``open()``).

    Keys in the list: ↑/↓ (Home, End, Page Up/Down, or a name's first letters) choose a
    tag; F2 or Enter renames it in place (Enter again confirms, Esc cancels; an existing
    name asks to merge); 1-9 bind that number key to it (taken from the tag that had
    it), 0 or Backspace unbind; Del deletes it after a confirmation; Alt+C colour,
    Alt+K number key, Alt+M merge into another tag, Alt+N new tag (buttons with the
    same mnemonics); Ctrl+Z / Ctrl+Shift+Z undo / redo; Esc closes.

    Child widgets (by objectName): ``tagsList`` (QTreeWidget: Tag, Key, Colour,
    Papers), ``tagsDialogStatus`` (QLabel: the last change or problem), and buttons
    ``renameTagButton``, ``colourTagButton``, ``keyTagButton``, ``mergeTagButton``,
    ``deleteTagButton``, ``newTagButton``. The confirmation or chooser on show is
    :attr:`pending` (for tests).

    Signals:
        renameRequested(int, str): tag id, new name (not an existing tag's).
        colourRequested(int, str): tag id, ``#rrggbb``.
        keyRequested(int, object): tag id, key 1-9 or ``None``.
        deleteRequested(int): tag id (confirmed).
        mergeRequested(int, int): the tag that goes, the tag it goes into.
        newTagRequested(): the user asked for a new tag.
        undoRequested(), redoRequested(): Ctrl+Z, Ctrl+Shift+Z (or Ctrl+Y).

    Args:
        tags: every tag (``lib.tags.all()``).
        current: the tag id to start on (default: the first).
        parent: the owning window.
    """

    renameRequested = Signal(int, str)
    colourRequested = Signal(int, str)
    keyRequested = Signal(int, object)
    deleteRequested = Signal(int)
    mergeRequested = Signal(int, int)
    newTagRequested = Signal()
    undoRequested = Signal()
    redoRequested = Signal()

    HELP = ("↑ ↓ choose a tag · F2 or Enter rename · 1-9 bind that number key (0 or "
            "Backspace: none) · Del delete · Alt+C colour · Alt+M merge into another "
            "tag · Ctrl+Z undo")

    def __init__(self, tags: Sequence[Tag], current: int | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("tagsDialog")
        self.setWindowTitle("Tags")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self._tags: list[Tag] = []
        self._waiting: list[Tag] | None = None   # a refresh held back while editing
        self._follow: int | None = current       # tag id to choose at the next refresh
        self._follow_name: str | None = None     # tag_key of a tag to choose once listed
        #: the confirmation box or chooser on show (``None`` when there is none)
        self.pending: QDialog | None = None

        intro = QLabel(self.HELP)
        intro.setObjectName("tagsDialogHelp")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        self.list = _TagList()
        self._delegate = _RenameDelegate(self.list)
        self._delegate.renamed.connect(self._on_renamed)
        self._delegate.closeEditor.connect(lambda *_: QTimer.singleShot(0, self._catch_up))
        self.list.setItemDelegateForColumn(NAME, self._delegate)
        self.list.installEventFilter(self)
        self.list.currentItemChanged.connect(lambda *_: self._enable())
        self.empty_label = QLabel("No tags yet. Press T on a paper to add one, or New "
                                  "Tag… (Alt+N) here.")
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setWordWrap(True)
        self.status = QLabel()
        self.status.setObjectName("tagsDialogStatus")
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)

        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for name, text, tip, slot in (
                ("rename", "&Rename", "Rename the tag (F2 or Enter)", self.rename_current),
                ("colour", "&Colour…", "Choose the tag's colour (Alt+C)", self.choose_colour),
                ("key", "Number &Key…", "Bind a number key 1-9 (or press the digit)",
                 self.choose_key),
                ("merge", "&Merge Into…", "Move the tag's papers to another tag and "
                 "delete it (Alt+M)", self.choose_merge_target),
                ("delete", "&Delete…", "Delete the tag (Del); its papers stay",
                 self.confirm_delete),
                ("new", "&New Tag…", "Create a tag (Alt+N)", self.newTagRequested.emit)):
            button = QPushButton(text)
            button.setObjectName(f"{name}TagButton")
            button.setToolTip(tip)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, fn=slot: fn())
            row.addWidget(button)
            self.buttons[name] = button
        row.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        close.button(QDialogButtonBox.StandardButton.Close).setAutoDefault(False)
        row.addWidget(close)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.status)
        layout.addLayout(row)
        # The window's own undo keys (its actions do not reach into this dialog).
        for keys, signal in ((("Ctrl+Z",), self.undoRequested),
                             (("Ctrl+Shift+Z", "Ctrl+Y"), self.redoRequested)):
            for sequence in keys:
                shortcut = QShortcut(QKeySequence(sequence), self)
                shortcut.activated.connect(signal.emit)
        self.resize(680, 420)
        self.set_tags(tags)
        self.focus_list()

    # -- the list ------------------------------------------------------------------------
    def set_tags(self, tags: Sequence[Tag]) -> None:
        """Show the tags as committed (``lib.tags.all()``), keeping the chosen tag if it
        is still there, else the row it was on. While a name is edited in place the
        refresh waits until the editor closes."""
        if self.list.editing():
            self._waiting = list(tags)
            return
        self._waiting = None
        item = self.list.currentItem()
        keep = self._follow if self._follow is not None else (
            item.data(NAME, _TagIdRole) if item is not None else None)
        self._follow = None
        if self._follow_name is not None:
            named = next((t.id for t in tags if tag_key(t.name) == self._follow_name), None)
            if named is not None:   # the new tag has come
                keep, self._follow_name = named, None
        row = max(self.list.indexOfTopLevelItem(item), 0) if item is not None else 0
        self._tags = list(tags)
        self.list.clear()
        chosen = None
        for tag in tags:
            item = QTreeWidgetItem(self.list, [tag.name, str(tag.key or ""),
                                               colour_name(tag.colour),
                                               "" if tag.count is None else str(tag.count)])
            item.setData(NAME, _TagIdRole, tag.id)
            item.setData(NAME, _NameRole, tag.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            item.setIcon(NAME, swatch_icon(tag.colour, 12))
            item.setIcon(COLOUR, swatch_icon(tag.colour, 12, round_=False))
            item.setToolTip(NAME, tooltip_html(f"“{tag.name}” — {_papers(tag.count)}"))
            item.setTextAlignment(KEY, Qt.AlignmentFlag.AlignCenter)
            item.setTextAlignment(PAPERS, Qt.AlignmentFlag.AlignRight
                                  | Qt.AlignmentFlag.AlignVCenter)
            if tag.id == keep:
                chosen = item
        if chosen is None and self.list.topLevelItemCount():
            chosen = self.list.topLevelItem(min(row, self.list.topLevelItemCount() - 1))
        if chosen is not None:
            self.list.setCurrentItem(chosen)
        was_hidden = self.list.isHidden()
        self.list.setHidden(not tags)
        self.empty_label.setHidden(bool(tags))
        self._enable()
        if not tags:
            self.buttons["new"].setFocus()   # the one thing left to do
        elif was_hidden:
            self.list.setFocus()

    def tags(self) -> list[Tag]:
        """Return the tags shown, in order."""
        return list(self._tags)

    def current_tag(self) -> Tag | None:
        """Return the chosen tag, or ``None``."""
        item = self.list.currentItem()
        tag_id = item.data(NAME, _TagIdRole) if item is not None else None
        return next((t for t in self._tags if t.id == tag_id), None)

    def rows(self) -> list[tuple[str, str, str, str]]:
        """Return each row's texts: ``(name, key, colour, papers)``."""
        return [tuple(self.list.topLevelItem(i).text(c) for c in range(4))
                for i in range(self.list.topLevelItemCount())]

    def follow(self, name: str) -> None:
        """Choose the tag called ``name`` (any case) once a refresh lists it (a tag
        being created), and put the focus back on the list."""
        self._follow_name = tag_key(name)
        self.focus_list()

    def focus_list(self) -> None:
        """Put the focus on the tag list (on New Tag… when there is no tag)."""
        (self.list if self._tags else self.buttons["new"]).setFocus()

    def show_message(self, text: str) -> None:
        """Say what the last change did (or why it did not happen), in one line."""
        self.status.setText(text)

    def show_status(self, text: str) -> None:
        """Mirror a status-bar message (the window's is behind the dialog); an empty one
        (the message timed out) keeps the last."""
        if text:
            self.show_message(text)

    def _catch_up(self) -> None:
        if self._waiting is not None and not self.list.editing():
            self.set_tags(self._waiting)

    def _enable(self) -> None:
        has = self.current_tag() is not None
        for name, button in self.buttons.items():
            button.setEnabled(has or name == "new")
        self.buttons["merge"].setEnabled(has and len(self._tags) > 1)

    # -- keys ----------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt)
        """The list's own keys: Enter renames, digits bind keys, Del deletes."""
        if watched is self.list and event.type() == QEvent.Type.KeyPress \
                and not self.list.editing():
            key = event.key()
            mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not mods:
                self.rename_current()
                return True
            if key == Qt.Key.Key_Delete and not mods:
                self.confirm_delete()
                return True
            if (int(key) in _DIGIT_KEYS or key == Qt.Key.Key_Backspace) and not mods:
                self._bind(0 if key == Qt.Key.Key_Backspace else _DIGIT_KEYS[int(key)])
                return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt)
        """Enter never closes the dialog (no default button); Esc does."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            return
        super().keyPressEvent(event)

    # -- commands ------------------------------------------------------------------------
    @Slot()
    def rename_current(self) -> None:
        """Edit the chosen tag's name in place."""
        item = self.list.currentItem()
        if item is not None and self.current_tag() is not None:
            self.list.setFocus()
            self.list.editItem(item, NAME)

    def _on_renamed(self, tag_id: int, text: str) -> None:
        name = " ".join(text.split())
        tag = next((t for t in self._tags if t.id == tag_id), None)
        other = next((t for t in self._tags
                      if tag_key(t.name) == tag_key(name) and t.id != tag_id), None)
        if tag is None:
            return
        if other is None:
            self.renameRequested.emit(tag_id, text)
            return
        self._confirm(
            "Merge Tags",
            f"A tag “{other.name}” exists already. Merge “{tag.name}” "
            f"({_papers(tag.count)}) into it?",
            "&Merge", lambda: self._merge(tag.id, other.id))

    def _bind(self, key: int) -> None:
        tag = self.current_tag()
        if tag is None:
            return
        value = key or None
        if value == tag.key:
            self.show_message(f"“{tag.name}” has that key already." if value
                              else f"“{tag.name}” has no key.")
            return
        self.keyRequested.emit(tag.id, value)

    @Slot()
    def choose_key(self) -> None:
        """Offer the number keys for the chosen tag (free ones and who has the others)."""
        tag = self.current_tag()
        if tag is None:
            return
        chooser = ChoiceDialog("Number Key", f"Number key for “{tag.name}” (1-9, 0: none):",
                               (), ok_text="&Bind", parent=self,
                               choice_list=_key_list(self._tags, tag.id, tag.key))
        chooser.chosen.connect(lambda value: self._bind(value or 0))
        self._show_pending(chooser)

    @Slot()
    def choose_colour(self) -> None:
        """Offer the palette's colours (and "Other colour…") for the chosen tag."""
        tag = self.current_tag()
        if tag is None:
            return
        choices: list[tuple[object, str, QIcon | None]] = [
            (c, COLOUR_NAMES[c], swatch_icon(c, 14)) for c in TAG_COLOURS]
        if tag.colour not in TAG_COLOURS:
            choices.append((tag.colour, tag.colour, swatch_icon(tag.colour, 14)))
        choices.append(("other", "Other colour…", None))
        chooser = ChoiceDialog("Tag Colour", f"Colour of “{tag.name}”:", choices,
                               current=tag.colour, ok_text="&Choose", parent=self)

        def chosen(value) -> None:
            if value == "other":
                QTimer.singleShot(0, lambda: self._other_colour(tag))
            elif value != tag.colour:
                self.colourRequested.emit(tag.id, str(value))

        chooser.chosen.connect(chosen)
        self._show_pending(chooser)

    def _other_colour(self, tag: Tag) -> None:
        picker = QColorDialog(QColor(tag.colour), self)
        picker.setWindowTitle(f"Colour of “{tag.name}”")
        picker.colorSelected.connect(
            lambda colour: colour.isValid() and self.colourRequested.emit(tag.id,
                                                                          colour.name()))
        self._show_pending(picker)

    @Slot()
    def choose_merge_target(self) -> None:
        """Offer the other tags to merge the chosen one into."""
        tag = self.current_tag()
        if tag is None:
            return
        others = [(t.id, f"{t.name}   ({_papers(t.count)})", swatch_icon(t.colour, 12))
                  for t in self._tags if t.id != tag.id]
        if not others:
            self.show_message("There is no other tag to merge into.")
            return
        chooser = ChoiceDialog(
            "Merge Tag", f"Merge “{tag.name}” ({_papers(tag.count)}) into which tag? It "
            "gets every paper of it; “" + tag.name + "” is then deleted (Ctrl+Z brings it "
            "back).", others, ok_text="&Merge", parent=self)
        chooser.chosen.connect(lambda target: self._merge(tag.id, int(target)))
        self._show_pending(chooser)

    def _merge(self, tag_id: int, into_id: int) -> None:
        self._follow = into_id
        self.mergeRequested.emit(tag_id, into_id)

    @Slot()
    def confirm_delete(self) -> None:
        """Ask, then delete the chosen tag (its papers stay; Ctrl+Z brings it back)."""
        tag = self.current_tag()
        if tag is None:
            return
        self._confirm("Delete Tag",
                      f"Delete the tag “{tag.name}”? It comes off {_papers(tag.count)}; "
                      "the papers stay. Ctrl+Z brings it back.",
                      "&Delete", lambda: self.deleteRequested.emit(tag.id))

    def _confirm(self, title: str, text: str, yes: str, then) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, title, text,
                          QMessageBox.StandardButton.NoButton, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        ok = box.addButton(yes, QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(ok)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.finished.connect(lambda _result: box.clickedButton() is ok and then())
        self._show_pending(box)

    def _show_pending(self, dialog: QDialog) -> None:
        self.pending = dialog
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def closed(_result) -> None:
            if self.pending is dialog:
                self.pending = None
            self.activateWindow()
            self.focus_list()

        dialog.finished.connect(closed)
        dialog.open()
