"""Every command of the window in one table: objectName, menu text, shortcuts, slot.

:data:`ACTIONS` is the single source for the menus, the keyboard shortcuts and the
Keyboard Shortcuts dialog (F1 or ``?``). :func:`build_actions` turns it into QActions on
a window.

Single-key shortcuts (letters, digits, Space, ``?``) never fire while the focus is in a
text field (search box, note editor, tag or title editor): those widgets claim printable
keys through Qt's ``ShortcutOverride`` event, so the key is typed instead. The tests check
this for the search box and the note editor. Ctrl+K ("copy \\cite{key}") stays with a text
field only where the platform binds it to "delete to the end of the line" (X11 and
Wayland desktops); elsewhere it copies from anywhere in the window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QWidget

from paperdesk.core.fields import stored_fields

__all__ = ["ActionSpec", "ACTIONS", "MENUS", "EXTRA_KEYS", "LIST_COLUMNS", "build_actions",
           "shortcut_rows"]


@dataclass(frozen=True)
class ActionSpec:
    """One command.

    Attributes:
        name: the QAction's objectName (e.g. ``"toggleStarAction"``).
        text: menu text (``&`` marks the mnemonic).
        shortcuts: key sequences in ``QKeySequence`` portable text (``"Ctrl+Z"``, ``"j"``);
            the first is shown in the menu.
        slot: name of the window method called (with no arguments) when triggered; for
            checkable actions it gets the new checked state.
        menu: key of :data:`MENUS` the action appears in, or ``""`` for none.
        help: what the shortcuts dialog says (defaults to the menu text).
        checkable: a toggle (e.g. a setting).
        separator_before: put a menu separator before it (before its submenu, for the
            first action of a submenu).
        submenu: title of a submenu of ``menu`` to put it in, or ``""``.
        widget: objectName of the widget the shortcut belongs to (it then works only
            while the focus is in that widget, e.g. Del in the paper list, so that Del
            keeps its own meaning in text fields, the tag pane and the highlight
            list); ``""`` for the whole window.
    """

    name: str
    text: str
    shortcuts: tuple[str, ...]
    slot: str
    menu: str = ""
    help: str = ""
    checkable: bool = False
    separator_before: bool = False
    submenu: str = ""
    widget: str = ""

    @property
    def description(self) -> str:
        """The help text, or the menu text without ``&`` and ``…``."""
        return self.help or self.text.replace("&", "").rstrip("…")


#: Menu keys and titles, in menu-bar order.
MENUS: dict[str, str] = {"file": "&File", "edit": "&Edit", "paper": "&Paper",
                         "view": "&View", "help": "&Help"}

_TAG_KEYS = tuple(
    ActionSpec(f"toggleTag{n}Action", f"Toggle Tag on Key &{n}", (str(n),),
               f"toggle_tag_{n}", "paper", submenu="Toggle &Bound Tag")
    for n in range(1, 10))

_SUGGESTION_KEYS = tuple(
    ActionSpec(f"acceptSuggestion{n}Action", f"Add Suggested Tag &{n}", (f"Alt+{n}",),
               f"accept_suggestion_{n}", "paper", submenu="Add Suggest&ed Tag",
               help=f"Add the tag suggested {('first', 'second', 'third')[n - 1]} (like "
                    "the papers most similar to this one) to the paper shown")
    for n in range(1, 4))

#: The list's optional columns (View ▸ List Columns and the header's context menu):
#: paper field name -> menu text. The Title column is always shown; Snippet while
#: searching.
def _with_mnemonic(text: str, taken: set[str]) -> str:
    """``text`` with ``&`` before its first letter that no other item's mnemonic uses
    (``"Volume"`` beside ``"&Venue"``: ``"V&olume"``); that letter is added to ``taken``."""
    for i, ch in enumerate(text):
        if ch.isalpha() and ch.lower() not in taken:
            taken.add(ch.lower())
            return text[:i] + "&" + text[i:]
    return text


def _list_columns() -> dict[str, str]:
    columns = {"added": "&Added", "authors": "First Au&thor", "year": "&Year",
               "venue": "&Venue"}
    taken = {text[text.index("&") + 1].lower() for text in columns.values()}
    columns.update((f.name, _with_mnemonic(f.header, taken))
                   for f in stored_fields() if f.header and f.name not in columns)
    return columns


#: ... then the table-driven fields with a list column (:func:`paperdesk.core.fields.
#: stored_fields`), each with a free mnemonic.
LIST_COLUMNS: dict[str, str] = _list_columns()

_COLUMN_ACTIONS = tuple(
    ActionSpec(f"column{name.title()}Action", text, (), f"show_column_{name}", "view",
               checkable=True, separator_before=(i == 0), submenu="List &Columns",
               help=f"Show or hide the list's {text.replace('&', '')} column")
    for i, (name, text) in enumerate(LIST_COLUMNS.items()))

#: Every action, in menu order.
ACTIONS: tuple[ActionSpec, ...] = (
    # File
    ActionSpec("importFilesAction", "&Import Files…", ("Ctrl+O",), "choose_files_to_import",
               "file", help="Import abstract files"),
    ActionSpec("importFolderAction", "Import &Folder…", ("Ctrl+Shift+O",),
               "choose_folder_to_import", "file", help="Import a folder of abstract files"),
    ActionSpec("importKeywordsAction", "Import &Keywords as Tags", (), "set_import_keywords",
               "file", checkable=True,
               help="Make the keywords of imported BibTeX, RIS and CSL-JSON files tags "
                    "(their notes come in either way)"),
    ActionSpec("importReportAction", "Last Import Re&port…", (), "show_import_report", "file",
               help="What each file of the last import gave"),
    ActionSpec("removeFileAction", "&Remove Imported File…", (), "prompt_remove_file",
               "file", help="Remove an imported file with the papers that came from it "
                            "only (lists the files and how many papers each would take "
                            "along; Ctrl+Z brings them back)"),
    ActionSpec("exportAction", "&Export…", ("Ctrl+E",), "open_export_dialog", "file",
               separator_before=True,
               help="Export papers to BibTeX, RIS, CSL-JSON, CSV, Markdown, JSON or a "
                    "formatted bibliography"),
    ActionSpec("openLibraryAction", "Open &Library…", (), "choose_library_to_open", "file",
               separator_before=True, help="Open another library folder"),
    ActionSpec("newLibraryAction", "&New Library…", (), "choose_new_library", "file",
               help="Start an empty library in a new folder"),
    ActionSpec("quitAction", "&Quit", ("Ctrl+Q",), "close", "file", separator_before=True),
    # Edit
    ActionSpec("undoAction", "&Undo", ("Ctrl+Z",), "undo", "edit",
               help="Undo the last change (tags, marks, title, note, highlight)"),
    ActionSpec("redoAction", "&Redo", ("Ctrl+Shift+Z", "Ctrl+Y"), "redo", "edit",
               help="Redo what was undone"),
    ActionSpec("selectAllAction", "Select &All", ("Ctrl+A",), "select_all", "edit",
               separator_before=True,
               help="Select every paper in the list (in a text field: all its text)"),
    ActionSpec("deletePapersAction", "&Delete Papers", ("Del",), "delete_selected_papers",
               "edit", widget="paperTable",
               help="In the list: delete the selected papers, with their tags, notes and "
                    "highlights (Ctrl+Z brings them back)"),
    ActionSpec("copyBibliographyAction", "Copy as &Bibliography", ("Ctrl+Shift+C",),
               "copy_as_bibliography", "edit", separator_before=True,
               help="Copy the selected papers (in the tag pane: its tag's or saved search's "
                    "papers) to the clipboard as a bibliography in the chosen style (rich "
                    "text and plain text)"),
    ActionSpec("copyCitationAction", "Copy as C&itation", ("Ctrl+Shift+A",),
               "copy_as_citation", "edit",
               help="Copy a citation of the selected papers (in the tag pane: its tag's or "
                    "saved search's papers) in the chosen style, e.g. (Doe, 2020)"),
    ActionSpec("bibliographyStyleAction", "Bibliography St&yle…", (),
               "choose_bibliography_style", "edit",
               help="Choose the style and locale of Copy as Bibliography and Citation "
                    "(a searchable list; the last five used on top)"),
    ActionSpec("copyBibtexAction", "&Copy as BibTeX", ("Ctrl+Alt+C",), "copy_as_bibtex",
               "edit", help="Copy the selected papers to the clipboard as BibTeX"),
    ActionSpec("copyMarkdownAction", "Copy as &Markdown", ("Ctrl+Shift+M",),
               "copy_as_markdown", "edit",
               help="Copy the selected papers to the clipboard as Markdown"),
    ActionSpec("copyCiteAction", "Copy \\cite{&Key}", ("Ctrl+K",), "copy_cite_keys",
               "edit", help="Copy \\cite{key} of the selected papers (\\cite{a,b} for "
                            "several) to the clipboard"),
    ActionSpec("findAction", "&Search Papers", ("/", "Ctrl+F"), "focus_search", "edit",
               separator_before=True, help="Go to the search box"),
    ActionSpec("saveSearchAction", "Save Searc&h…", ("Ctrl+S",), "prompt_save_search", "edit",
               help="Save the current search by name (listed on the left with its count)"),
    ActionSpec("newTagAction", "&New Tag…", (), "prompt_new_tag", "edit",
               separator_before=True, help="Create a tag, with its number key"),
    ActionSpec("manageTagsAction", "Manage &Tags…", ("Ctrl+Shift+T",), "open_tags_dialog",
               "edit", help="Every tag with its key, colour and papers: rename, recolour, "
                            "bind a number key, merge or delete (all from the keyboard)"),
    ActionSpec("screenStartAction", "Screen for &Tag…", ("Ctrl+Shift+R",), "start_screening",
               "edit", separator_before=True, submenu="Scr&eening",
               help="Screen the list's papers for a tag, the most likely first (\"does "
                    "it belong?\"): i includes, e excludes, p skips, Esc leaves"),
    ActionSpec("screenIncludeAction", "&Include (Yes)", ("i",), "screen_include", "edit",
               submenu="Scr&eening",
               help="While screening: the paper belongs, give it the tag; the next one "
                    "is the most likely of those left"),
    ActionSpec("screenExcludeAction", "E&xclude (No)", ("e",), "screen_exclude", "edit",
               submenu="Scr&eening",
               help="While screening: the paper does not belong, exclude it from the tag "
                    "(shown muted with ✕ in the list; Ctrl+Z takes it back)"),
    ActionSpec("screenSkipAction", "&Skip for Now", ("p",), "screen_skip", "edit",
               submenu="Scr&eening",
               help="While screening: pass over the paper for now (it stays undecided)"),
    ActionSpec("screenLeaveAction", "&Leave Screening", (), "leave_screening", "edit",
               submenu="Scr&eening",
               help="Stop screening (Esc in the list): the list in its own order again"),
    # Paper
    ActionSpec("nextPaperAction", "&Next Paper", ("j",), "next_paper", "paper",
               help="Next paper (↓ in the list works too)"),
    ActionSpec("previousPaperAction", "Pre&vious Paper", ("k",), "previous_paper", "paper",
               help="Previous paper (↑ in the list works too)"),
    ActionSpec("nextUnreadAction", "Next &Unread Paper", ("u",), "next_unread", "paper"),
    ActionSpec("backToListAction", "Back to the &List", ("Esc",), "back_to_list", "paper",
               help="Leave the note, tag or title editor or caret mode and go back to "
                    "the list"),
    ActionSpec("toggleReadAction", "Toggle &Read", ("r",), "toggle_read", "paper",
               separator_before=True, help="Mark the selected papers read / unread"),
    ActionSpec("toggleStarAction", "Toggle &Star", ("s",), "toggle_star", "paper",
               help="Star / unstar the selected papers"),
    ActionSpec("addTagAction", "Add &Tag…", ("t",), "focus_tag_editor", "paper",
               help="Add a tag to the selected papers (type, Enter)"),
    *_TAG_KEYS,
    *_SUGGESTION_KEYS,
    ActionSpec("focusRelatedAction", "Rel&ated Papers", ("l",), "focus_related", "paper",
               help="Go to the related papers (papers like this one): ↑ / ↓ choose, Enter "
                    "opens, Tab goes on to the key terms (Enter searches for one), Esc "
                    "back to the list"),
    ActionSpec("backAction", "Go Bac&k", ("Alt+Left",), "go_back", "paper",
               help="Back to the paper and the list before a related paper or a key term "
                    "was opened"),
    ActionSpec("editTitleAction", "Edit T&itle", ("F2",), "edit_title", "paper",
               help="Edit the title (empty: use the title from the abstract)"),
    ActionSpec("focusNoteAction", "Edit N&ote", ("n",), "focus_note", "paper",
               help="Write in the paper's note (saved automatically)"),
    ActionSpec("highlightAction", "&Highlight Selection", ("h",), "highlight_selection",
               "paper", help="Highlight the text selected in the abstract"),
    ActionSpec("caretModeAction", "&Caret Mode in the Abstract", ("F7",),
               "toggle_caret_mode", "paper", checkable=True,
               help="Caret mode: a keyboard caret in the abstract (Tab from the list too); "
                    "Shift+arrows select, h highlights, Esc leaves"),
    ActionSpec("editMetadataAction", "Edit &Metadata…", ("m",), "edit_metadata", "paper",
               separator_before=True,
               help="Edit the paper's authors, year, venue, type, DOI, arXiv id, URL and "
                    "citation key"),
    ActionSpec("regenerateKeyAction", "Re&generate Citation Key", (),
               "regenerate_citation_key", "paper",
               help="Give the paper the key its authors, year and title propose"),
    ActionSpec("openPageAction", "Open the Paper's &Web Page", ("o",), "open_paper_page",
               "paper", help="Open the paper's own DOI, arXiv or URL page in the browser"),
    ActionSpec("scrollAbstractAction", "Scroll Abstract &Down", ("Space",),
               "scroll_abstract_down", "paper", separator_before=True,
               help="Scroll the abstract down"),
    ActionSpec("scrollAbstractBackAction", "Scroll Abstract U&p", ("Shift+Space",),
               "scroll_abstract_up", "paper", help="Scroll the abstract up"),
    # View
    ActionSpec("zoomInAction", "Zoom &In", ("Ctrl+=", "Ctrl++"), "zoom_in", "view",
               help="Larger text in the reading pane"),
    ActionSpec("zoomOutAction", "Zoom &Out", ("Ctrl+-",), "zoom_out", "view",
               help="Smaller text in the reading pane"),
    ActionSpec("zoomResetAction", "&Actual Size", ("Ctrl+0",), "zoom_reset", "view",
               help="The reading pane's text at its normal size"),
    ActionSpec("sortInterestAction", "&Worth Reading First", ("Ctrl+Shift+I",),
               "set_interest_sort", "view", checkable=True, separator_before=True,
               help="Order the list by what you starred, tagged and annotated versus "
                    "read and skipped (each paper's tooltip: the words that moved it up; "
                    "a column header click sorts by that column again)"),
    *_COLUMN_ACTIONS,
    ActionSpec("duplicatesAction", "&Duplicates…", ("Ctrl+D",), "show_duplicates", "view",
               separator_before=True,
               help="Compare possible near-duplicate papers side by side; merge them or "
                    "mark them not duplicates"),
    ActionSpec("overviewAction", "O&verview…", ("Ctrl+Shift+L",), "show_overview", "view",
               help="Library overview: papers per file, tag and week added, read and "
                    "unread, key terms, as bar charts (Enter or a click on a bar lists "
                    "those papers)"),
    ActionSpec("showSidebarAction", "Show &Sidebar", ("Ctrl+Shift+B",), "set_sidebar_shown",
               "view", checkable=True, separator_before=True,
               help="Show or hide the filters, saved searches, tags and files on the left"),
    ActionSpec("showReadingPaneAction", "Show &Reading Pane", ("Ctrl+Shift+D",),
               "set_reading_pane_shown", "view", checkable=True,
               help="Show or hide the abstract, tags and note on the right"),
    ActionSpec("appearanceSystemAction", "Follow the &System", (), "appearance_system",
               "view", checkable=True, separator_before=True, submenu="A&ppearance",
               help="Light or dark, as the system colour scheme says"),
    ActionSpec("appearanceLightAction", "&Light", (), "appearance_light", "view",
               checkable=True, submenu="A&ppearance", help="Always the light appearance"),
    ActionSpec("appearanceDarkAction", "&Dark", (), "appearance_dark", "view",
               checkable=True, submenu="A&ppearance", help="Always the dark appearance"),
    ActionSpec("autoMarkReadAction", "&Mark Papers Read Automatically", (),
               "set_auto_mark_read", "view", checkable=True, separator_before=True,
               help="Mark a paper read after it has been shown for a moment"),
    # Help
    ActionSpec("shortcutsAction", "&Keyboard Shortcuts", ("F1", "?"), "show_shortcuts",
               "help", help="Show this list"),
    ActionSpec("searchHelpAction", "&Search Syntax", (), "show_search_help", "help",
               help="How to write a search: \"phrases\", AND / OR / NOT, -word, prefix*, "
                    "fuzzy~, title: / note: / tag: fields, is: and has: filters"),
    ActionSpec("checkLibraryAction", "&Check Library…", (), "check_library", "help",
               separator_before=True,
               help="Check the database and the search index (a damaged index is "
                    "repaired from the database)"),
    ActionSpec("aboutAction", "&About paperdesk", (), "show_about", "help"),
)

#: Keys handled by widgets themselves, listed in the shortcuts dialog after the actions.
EXTRA_KEYS: tuple[tuple[str, str], ...] = (
    ("↑ / ↓, Page Up / Page Down", "Move through the list"),
    ("Shift+↑ / ↓, Ctrl+click, Ctrl+A", "Select several papers (then t, 1-9, r, s act on all)"),
    ("Enter  or  ↓", "From the search box: go to the list"),
    ("Ctrl+Enter", "In the search box: search for the “Did you mean …” suggestion"),
    ("F1", "In the search box: the search syntax (phrases, AND / OR / NOT, prefix*, fuzzy~, "
           "fields, is: / has:)"),
    ("Esc", "In the search box: clear it; when empty, go back to the list"),
    ("Tab", "From the list: into the abstract, in caret mode (as F7)"),
    ("← / →, ↑ / ↓, Home / End", "In caret mode: move the caret (j, k, u and Space do "
                                  "not move the list there)"),
    ("Shift+arrows, Ctrl+Shift+← / →",
     "In caret mode: select, by word with Ctrl; then h highlights exactly that"),
    ("Ctrl+S", "In the note: save it now (elsewhere: save the search)"),
    ("Ctrl+click", "In the note: open the http(s) link under the mouse"),
    ("Del", "In the highlight list: remove the chosen highlight; in the tag pane: delete "
            "the chosen tag or saved search, or offer to remove the chosen file"),
    ("F2", "In the tag pane: rename the chosen tag or saved search"),
    ("1 … 9, 0", "In the New Tag dialog (t with a new name): the new tag's number key "
                 "(0: none); Enter creates it"),
    ("↑ / ↓, F2, 1 … 9, 0, Del", "In the Tags dialog (Ctrl+Shift+T): choose a tag, rename "
                                  "it (Enter too), bind / unbind its key, delete it; Alt+C "
                                  "colour, Alt+M merge"),
    ("Click a column header", "Sort by title, date added, first author, year or venue; "
                              "while searching, Snippet goes back to the best matches "
                              "first (and leaves Worth Reading First)"),
    ("Right-click a column header", "Choose the list's columns (also View ▸ List Columns)"),
    ("Ctrl+Enter", "In the metadata editor: save (Enter too, except in Authors, where it "
                   "starts the next author)"),
    ("j / k, ↓ / ↑", "In the Duplicates view: next / previous pair"),
    ("l / r", "In the Duplicates view: merge into the left / the right paper"),
    ("d", "In the Duplicates view: not duplicates (not flagged again)"),
    ("Enter", "In the Export dialog: export (Tab moves between fields, ↑ / ↓ choose a "
              "format; Esc cancels)"),
    ("↑ / ↓, Enter, Tab", "In the related papers (l): choose, open (Alt+Left comes back), "
                          "go on to the key terms"),
    ("Enter, Tab", "On a key term: search for it (Alt+Left comes back); the next key term"),
    ("Page Down / Page Up, ↑ / ↓, Home / End", "In this window: scroll (Esc closes it)"),
    ("↑ / ↓, Page Up / Page Down, Enter", "In the Overview (Ctrl+Shift+L): move between "
                                          "bars, between charts (← / → too); Enter or a "
                                          "click lists the bar's papers; Esc closes"),
)


def _key_text(shortcut: str) -> str:
    """How the shortcuts window writes one shortcut: a letter pressed without Shift in
    lower case, as typed (Qt's native text is "J", which reads as Shift+J); any other in
    Qt's native text ("Ctrl+K", "F1", "Del")."""
    if len(shortcut) == 1 and shortcut.isalpha() and shortcut.islower():
        return shortcut
    return QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)


def _keys_text(spec: ActionSpec) -> str:
    return "  or  ".join(_key_text(k) for k in spec.shortcuts)


def shortcut_rows() -> list[tuple[str, str]]:
    """Return ``(keys, description)`` rows for the shortcuts dialog: every action with a
    shortcut (the nine tag keys as one row), then :data:`EXTRA_KEYS`."""
    rows = []
    for spec in ACTIONS:
        if not spec.shortcuts:
            continue
        if spec.name.startswith("toggleTag"):
            if spec.name == "toggleTag1Action":
                rows.append(("1 … 9", "Toggle the tag bound to that key on the selected papers"))
            continue
        if spec.name.startswith("acceptSuggestion"):
            if spec.name == "acceptSuggestion1Action":
                rows.append(("Alt+1 … Alt+3", "Add the suggested tag 1-3 to the paper shown "
                                              "(the reason is in its tooltip)"))
            continue
        rows.append((_keys_text(spec), spec.description))
    rows.extend(EXTRA_KEYS)
    return rows


def build_actions(window: QMainWindow, slots: dict[str, Callable] | None = None,
                  handlers: Sequence[object] = ()) -> dict[str, QAction]:
    """Create every action of :data:`ACTIONS` on ``window`` and fill its menu bar.

    Each action is added to the window (so its shortcut works anywhere in it), or to the
    widget named by :attr:`ActionSpec.widget` (so it works only there), and to its menu.
    A slot is taken from ``slots``, else looked up by name on the first of ``handlers``
    that has it (the window's command objects), else on ``window``.

    Args:
        window: the main window.
        slots: ``{slot name: callable}`` overrides.
        handlers: objects holding the commands (e.g. the window's ``triage``,
            ``exports``), searched in order before ``window``.
    Returns:
        ``{objectName: QAction}``.
    Raises:
        AttributeError: a slot named in the table exists on no handler nor the window.
    """
    slots = slots or {}
    owners = (*handlers, window)
    menus: dict[str, QMenu] = {key: window.menuBar().addMenu(title)
                               for key, title in MENUS.items()}
    submenus: dict[tuple[str, str], QMenu] = {}
    actions: dict[str, QAction] = {}
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        action.setObjectName(spec.name)
        action.setShortcuts([QKeySequence(k) for k in spec.shortcuts])
        owner = window.findChild(QWidget, spec.widget) if spec.widget else None
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut
                                  if owner is not None
                                  else Qt.ShortcutContext.WindowShortcut)
        action.setCheckable(spec.checkable)
        tip = spec.description
        if spec.shortcuts:
            tip += f" ({_keys_text(spec)})"
        action.setToolTip(tip)
        action.setStatusTip(spec.description)
        slot = slots.get(spec.slot) or getattr(
            next((h for h in owners if hasattr(h, spec.slot)), window), spec.slot)
        if spec.checkable:
            action.toggled.connect(slot)
        else:
            action.triggered.connect(lambda _checked=False, fn=slot: fn())
        if spec.name == "quitAction":
            action.setMenuRole(QAction.MenuRole.QuitRole)
        elif spec.name == "aboutAction":
            action.setMenuRole(QAction.MenuRole.AboutRole)
        (owner or window).addAction(action)
        if spec.menu:
            menu = menus[spec.menu]
            if spec.submenu:
                key = (spec.menu, spec.submenu)
                if key not in submenus:
                    if spec.separator_before:   # before the new submenu, in its menu
                        menu.addSeparator()
                    submenus[key] = menu.addMenu(spec.submenu)
                elif spec.separator_before:
                    submenus[key].addSeparator()
                menu = submenus[key]
            elif spec.separator_before:
                menu.addSeparator()
            menu.addAction(action)
        actions[spec.name] = action
    return actions
