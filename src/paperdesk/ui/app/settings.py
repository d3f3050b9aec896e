"""User preferences kept with QSettings (organization and application "paperdesk").

Only preferences live here; the library folder holds all data.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from paperdesk.core.api import DEFAULT_STYLE, EXPORT_FORMATS
from paperdesk.core.paths import APP_NAME
from paperdesk.core.scope import FILTER_LABELS, Scope

__all__ = ["Settings", "MARK_READ_DELAY_MS", "DEFAULT_EXPORT_FORMAT", "APPEARANCES",
           "FONT_SIZE_RANGE", "RECENT_STYLES"]

#: How long a paper must be shown before it is marked read automatically.
MARK_READ_DELAY_MS = 1500
#: The format the export dialog offers until the user has exported once.
DEFAULT_EXPORT_FORMAT = "bibtex"
#: Appearance choices: follow the system colour scheme, or force light or dark.
APPEARANCES = ("system", "light", "dark")
#: How many recently used bibliography styles the style list shows on top.
RECENT_STYLES = 5
#: Smallest and largest reading font size in points.
FONT_SIZE_RANGE = (6.0, 36.0)


class Settings:
    """Typed access to paperdesk's preferences.

    Stored in INI format in the user scope (on Linux
    ``~/.config/paperdesk/paperdesk.ini``); tests redirect it with
    ``QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)``.

    Args:
        store: a QSettings to use instead of the default one.
    """

    def __init__(self, store: QSettings | None = None):
        self._store = store or QSettings(QSettings.Format.IniFormat,
                                         QSettings.Scope.UserScope, APP_NAME, APP_NAME)

    @property
    def store(self) -> QSettings:
        """The underlying QSettings."""
        return self._store

    def file_name(self) -> str:
        """Return the path of the settings file."""
        return self._store.fileName()

    def _value(self, key: str):
        """The stored value or ``None``; never raises (a damaged file reads as empty)."""
        try:
            return self._store.value(key, None)
        except Exception:  # noqa: BLE001 - a value Qt cannot convert: use the default
            return None

    def _set(self, key: str, value) -> None:
        self._store.setValue(key, value)

    def sync(self) -> None:
        """Write pending changes to the settings file."""
        self._store.sync()

    # -- window state (saved on close, restored after the widgets exist) -------------
    def _bytes(self, key: str) -> QByteArray | None:
        value = self._value(key)
        if isinstance(value, QByteArray) and not value.isEmpty():
            return value
        if isinstance(value, (bytes, bytearray)) and value:
            return QByteArray(bytes(value))
        return None

    @property
    def window_geometry(self) -> QByteArray | None:
        """The main window's ``saveGeometry()`` bytes, or ``None`` if none are stored."""
        return self._bytes("window/geometry")

    @window_geometry.setter
    def window_geometry(self, data: QByteArray) -> None:
        """Store ``QWidget.saveGeometry()`` bytes."""
        self._set("window/geometry", QByteArray(data))

    @property
    def header_state(self) -> QByteArray | None:
        """The paper list header's ``saveState()`` bytes (column widths, order, sort
        indicator), or ``None``."""
        return self._bytes("window/listHeader")

    @header_state.setter
    def header_state(self, data: QByteArray) -> None:
        """Store ``QHeaderView.saveState()`` bytes."""
        self._set("window/listHeader", QByteArray(data))

    def splitter_sizes(self, name: str, count: int) -> list[int] | None:
        """Return the stored pane sizes of splitter ``name``.

        Args:
            name: e.g. ``"main"`` or ``"detail"``.
            count: how many panes the splitter has.
        Returns:
            ``count`` non-negative ints (pixels) with a positive sum, or ``None`` if
            nothing usable is stored.
        """
        value = self._value(f"window/splitter_{name}")
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, (list, tuple)) or len(value) != count:
            return None
        try:
            sizes = [int(v) for v in value]
        except (TypeError, ValueError):
            return None
        if any(v < 0 or v > 100_000 for v in sizes) or sum(sizes) <= 0:
            return None
        return sizes

    def set_splitter_sizes(self, name: str, sizes) -> None:
        """Store the pane sizes (pixels) of splitter ``name``."""
        self._set(f"window/splitter_{name}", ",".join(str(int(v)) for v in sizes))

    @property
    def list_sort(self) -> tuple[int, bool] | None:
        """The paper list's sort: ``(column, descending)``, or ``None`` for the natural
        order (import order, or relevance while searching)."""
        value = self._value("window/listSort")
        if not isinstance(value, str) or ":" not in value:
            return None
        column, _, order = value.partition(":")
        try:
            return int(column), order == "desc"
        except ValueError:
            return None

    @list_sort.setter
    def list_sort(self, sort: tuple[int, bool] | None) -> None:
        """Store ``(column, descending)`` or ``None``."""
        self._set("window/listSort",
                  "" if sort is None else f"{int(sort[0])}:{'desc' if sort[1] else 'asc'}")

    @property
    def list_columns(self) -> tuple[str, ...] | None:
        """The optional list columns shown, by paper field name (``("added", "year")``),
        or ``None`` when never chosen (then the defaults of :mod:`paperdesk.core.fields`
        apply). Unknown names are the caller's to ignore."""
        value = self._value("window/listColumns")
        if value is None:
            return None
        if isinstance(value, (list, tuple)):   # QSettings reads "a,b" back as a list
            names = [str(v) for v in value]
        elif isinstance(value, str):
            names = value.split(",")
        else:
            return None
        return tuple(n.strip() for n in names if n.strip())

    @list_columns.setter
    def list_columns(self, names) -> None:
        """Store the optional columns shown (field names, in any order)."""
        self._set("window/listColumns", ",".join(names) if names else "")

    def selected_paper(self, library) -> int | None:
        """The id of the paper selected in the list when the window on ``library`` last
        closed.

        Args:
            library: the library folder (``str`` or ``Path``); an id stored for another
                library is not returned.
        Returns:
            A positive paper id, or ``None`` if none is stored for this library or the
            stored value is damaged. The id may no longer exist: the caller checks.
        """
        if self._value("window/selectedPaperLibrary") != _folder_key(library):
            return None
        value = self._value("window/selectedPaper")
        try:
            pid = int(str(value).strip())
        except (TypeError, ValueError):
            return None
        return pid if pid > 0 else None

    def set_selected_paper(self, library, paper_id: int | None) -> None:
        """Store the paper selected in the window on ``library`` (``None``: none).

        Args:
            library: the library folder (``str`` or ``Path``).
            paper_id: the paper id, or ``None``.
        """
        self._set("window/selectedPaperLibrary", _folder_key(library))
        self._set("window/selectedPaper", "" if paper_id is None else int(paper_id))

    def list_choice(self, library) -> tuple[Scope, str | None]:
        """What the list of the window on ``library`` showed when it last closed: the
        sidebar's filter or tag, and the saved search chosen (issue 32, item 4).

        Args:
            library: the library folder (``str`` or ``Path``); a choice stored for
                another library is not returned (tag ids are a library's own).
        Returns:
            ``(scope, saved_search)``: ``Scope(filter=name)``, ``Scope(tag_id=id)`` or
            ``Scope()`` (all papers; also for anything stored that is damaged), and the
            saved search's name or ``None``. The tag or saved search may no longer exist:
            the caller checks.
        """
        if self._value("window/listChoiceLibrary") != _folder_key(library):
            return Scope(), None
        kind, _, value = str(self._value("window/listScope") or "").partition(":")
        scope = Scope()
        if kind == "filter" and value in FILTER_LABELS:
            scope = Scope(filter=value)
        elif kind == "tag" and value.isdigit() and int(value) > 0:
            scope = Scope(tag_id=int(value))
        saved = self._value("window/savedSearch")
        return scope, (saved if isinstance(saved, str) and saved.strip() else None)

    def set_list_choice(self, library, scope: Scope, saved_search: str | None) -> None:
        """Store what the list of the window on ``library`` shows (see
        :meth:`list_choice`).

        Args:
            library: the library folder (``str`` or ``Path``).
            scope: the sidebar's scope; only a filter or a tag is stored (a file, or
                anything else, is stored as all papers).
            saved_search: the chosen saved search's name, or ``None``.
        """
        if scope.filter is not None:
            text = f"filter:{scope.filter}"
        elif scope.tag_id is not None:
            text = f"tag:{int(scope.tag_id)}"
        else:
            text = ""
        self._set("window/listChoiceLibrary", _folder_key(library))
        self._set("window/listScope", text)
        self._set("window/savedSearch", saved_search or "")

    @property
    def interest_order(self) -> bool:
        """Whether the list was in the "worth reading first" order when the window last
        closed (default False)."""
        return _to_bool(self._value("window/listInterest"), default=False)

    @interest_order.setter
    def interest_order(self, on: bool) -> None:
        """Store whether the list is in the "worth reading first" order."""
        self._set("window/listInterest", bool(on))

    def pane_visible(self, name: str) -> bool:
        """Whether pane ``name`` (``"tags"`` or ``"detail"``) is shown (default True;
        only a stored ``false`` hides it)."""
        return _to_bool(self._value(f"window/show_{name}"), default=True)

    def set_pane_visible(self, name: str, shown: bool) -> None:
        """Store whether pane ``name`` is shown."""
        self._set(f"window/show_{name}", bool(shown))

    # -- reading ---------------------------------------------------------------------
    @property
    def font_size(self) -> float | None:
        """The detail pane's reading font size in points (within
        :data:`FONT_SIZE_RANGE`), or ``None`` for the system font's size."""
        value = self._value("reading/fontSize")
        try:
            size = float(value)
        except (TypeError, ValueError):
            return None
        if not FONT_SIZE_RANGE[0] <= size <= FONT_SIZE_RANGE[1]:
            return None
        return size

    @font_size.setter
    def font_size(self, points: float | None) -> None:
        """Store the reading font size (points), or ``None`` for the default."""
        self._set("reading/fontSize", "" if points is None else float(points))
        self._store.sync()

    @property
    def appearance(self) -> str:
        """``"system"`` (follow the system colour scheme; default), ``"light"`` or
        ``"dark"``."""
        value = self._value("view/appearance")
        return value if value in APPEARANCES else "system"

    @appearance.setter
    def appearance(self, mode: str) -> None:
        """Store the appearance.

        Raises:
            ValueError: ``mode`` is not one of :data:`APPEARANCES`.
        """
        if mode not in APPEARANCES:
            raise ValueError(f"unknown appearance {mode!r}")
        self._set("view/appearance", mode)
        self._store.sync()

    # -- folders -----------------------------------------------------------------------
    @property
    def last_library(self) -> Path | None:
        """The library folder the window had open last, if it still is a folder."""
        value = self._value("library/last")
        if isinstance(value, str) and value and Path(value).is_dir():
            return Path(value)
        return None

    @last_library.setter
    def last_library(self, folder) -> None:
        """Remember the library folder the window opened (``str`` or ``Path``)."""
        self._set("library/last", str(folder))
        self._store.sync()

    @property
    def import_folder(self) -> Path:
        """The folder of the last import, if it still exists; otherwise the home folder."""
        value = self._value("import/folder")
        if isinstance(value, str) and value and Path(value).is_dir():
            return Path(value)
        return Path.home()

    @import_folder.setter
    def import_folder(self, folder) -> None:
        """Remember the folder of the last import (``str`` or ``Path``)."""
        self._set("import/folder", str(folder))
        self._store.sync()

    @property
    def import_keywords(self) -> bool:
        """Make the keywords of BibTeX, RIS and CSL-JSON records tags when importing
        (File ▸ Import Keywords as Tags; default True)."""
        return _to_bool(self._value("import/keywordsAsTags"), default=True)

    @import_keywords.setter
    def import_keywords(self, on: bool) -> None:
        """Store whether imports make keywords tags."""
        self._store.setValue("import/keywordsAsTags", bool(on))
        self._store.sync()

    @property
    def auto_mark_read(self) -> bool:
        """Mark a paper read once it has been shown for :attr:`mark_read_delay_ms`
        (default True)."""
        return _to_bool(self._value("reading/autoMarkRead"), default=True)

    @auto_mark_read.setter
    def auto_mark_read(self, on: bool) -> None:
        """Store the auto mark-read preference."""
        self._store.setValue("reading/autoMarkRead", bool(on))
        self._store.sync()

    @property
    def mark_read_delay_ms(self) -> int:
        """Milliseconds a paper is shown before it is marked read (100-60000; default
        :data:`MARK_READ_DELAY_MS`)."""
        try:
            value = int(self._value("reading/markReadDelayMs") or MARK_READ_DELAY_MS)
        except (TypeError, ValueError):
            value = MARK_READ_DELAY_MS
        return min(max(value, 100), 60_000)

    @mark_read_delay_ms.setter
    def mark_read_delay_ms(self, ms: int) -> None:
        """Store the mark-read delay in milliseconds."""
        self._store.setValue("reading/markReadDelayMs", int(ms))
        self._store.sync()

    @property
    def export_folder(self) -> Path:
        """The folder of the last export, if it still exists; otherwise the user's
        Documents folder (or home)."""
        stored = self._value("export/folder")
        if isinstance(stored, str) and stored and Path(stored).is_dir():
            return Path(stored)
        documents = QStandardPaths.writableLocation(
            QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(documents) if documents and Path(documents).is_dir() else Path.home()

    @export_folder.setter
    def export_folder(self, folder) -> None:
        """Remember the folder of the last export (a ``str`` or ``Path``)."""
        self._store.setValue("export/folder", str(folder))
        self._store.sync()

    @property
    def export_format(self) -> str:
        """The format of the last export, one of
        :data:`paperdesk.core.exports.registry.EXPORT_FORMATS` (default
        :data:`DEFAULT_EXPORT_FORMAT`)."""
        value = self._value("export/format")
        return value if value in EXPORT_FORMATS.names() else DEFAULT_EXPORT_FORMAT

    @export_format.setter
    def export_format(self, fmt: str) -> None:
        """Remember the format of the last export.

        Raises:
            ValueError: ``fmt`` is not a registered export format.
        """
        if fmt not in EXPORT_FORMATS.names():
            raise ValueError(f"unknown export format {fmt!r}")
        self._store.setValue("export/format", fmt)
        self._store.sync()

    # -- the bibliography's style (Edit ▸ Copy as Bibliography, the export dialog) -------
    @property
    def bibliography_style(self) -> str:
        """The CSL style of Copy as Bibliography / Citation and the bibliography export: a
        shipped style id or a ``.csl`` path (default
        :data:`paperdesk.core.exports.bibliography_export.DEFAULT_STYLE`)."""
        value = self._value("bibliography/style")
        return value if isinstance(value, str) and value else DEFAULT_STYLE

    @property
    def bibliography_locale(self) -> str | None:
        """The CSL locale chosen (``"en-GB"``), or ``None`` for the style's own."""
        value = self._value("bibliography/locale")
        return value if isinstance(value, str) and value else None

    @property
    def recent_styles(self) -> list[str]:
        """The last :data:`RECENT_STYLES` styles chosen, the latest first."""
        value = self._value("bibliography/recent")
        if isinstance(value, str):
            value = [value]
        return [v for v in (value or []) if isinstance(v, str) and v][:RECENT_STYLES]

    def set_bibliography_style(self, style: str, locale: str | None) -> None:
        """Choose the bibliography's style and locale (``None``: the style's own); the
        style goes to the top of :attr:`recent_styles`."""
        recent = [style] + [s for s in self.recent_styles if s != style]
        self._store.setValue("bibliography/style", style)
        self._store.setValue("bibliography/locale", locale or "")
        self._store.setValue("bibliography/recent", recent[:RECENT_STYLES])
        self._store.sync()


def _folder_key(folder) -> str:
    """A library folder as stored with its selection: the absolute, resolved path."""
    try:
        return str(Path(folder).expanduser().resolve())
    except (OSError, RuntimeError, ValueError):
        return str(folder)


def _to_bool(value, default: bool = False) -> bool:
    """A stored flag: ``true``/``false`` (and 1/0, yes/no, on/off); anything else, or
    nothing, is ``default``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in {"1", "true", "yes", "on"}:
            return True
        if word in {"0", "false", "no", "off"}:
            return False
    return default
