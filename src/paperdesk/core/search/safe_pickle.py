"""Reading the search index's pickles without running anything planted in them.

Whoosh stores Python pickles in its files: the table of contents (``_MAIN_<gen>.toc``:
the schema and the list of segments), each compound segment's directory, the block
information and data of posting lists, inlined postings, position lists and pickled
columns. ``pickle.loads`` of a crafted file calls whatever the file names
(``os.system``, ``subprocess.Popen``, ``builtins.exec`` ...), so a library folder sent by
someone else (a shared drive, a zip, a synced folder) could run code as soon as any
command opened it. A library folder is data, never code.

:func:`install` replaces every pickle reader Whoosh uses (the ``load``/``loads`` names
its modules imported from :mod:`pickle` or ``whoosh.compat``, and its ``pickle`` module
references) with :func:`load`/:func:`loads`, which unpickle through
:class:`RestrictedUnpickler`: the only globals it resolves are those in
:data:`ALLOWED_GLOBALS` (the classes of paperdesk's own schema, analysers and codec, and
a few plain containers; functions only where calling them cannot reach the system). Any
other global raises :class:`PlantedData` (an ``UnpicklingError``), which the index's
damage handling catches: the index is rebuilt from SQLite and one line names the file's
content (see ``Library._open_index``). Whoosh's reader of the ancient ``-110`` table of
contents, whose unpickler resolves any name, is switched off: such a TOC counts as
damage.

The format of what is unpickled is Python's pickle protocol (PEP 307, PEP 3154, PEP 574);
restricting ``find_class`` is the way its documentation gives for untrusted data
("Restricting Globals", https://docs.python.org/3/library/pickle.html). Opcodes other
than globals (containers, numbers, strings) build plain data only. ``marshal`` reads in
Whoosh (the pre-2.0 ``filereading`` format, not used by this index) cannot run code:
they only make values.
"""

from __future__ import annotations

import _compat_pickle
import importlib
import io
import os
import pickle
import struct
import sys
import types

__all__ = ["ALLOWED_GLOBALS", "PlantedData", "RestrictedUnpickler", "loads", "load",
           "install", "unsafe_readers", "why", "named"]

#: ``(module, name)`` pairs a pickle in the index may name. They are what paperdesk's
#: schema (``build_schema``), its codec and Whoosh's own block data pickle: field types,
#: analysers and their parts, posting formats, the W3 codec and segment, the numeric
#: column of ``pid``, the Porter stemmer (a pure function of a word), ``re._compile``
#: (the tokenizer's compiled pattern: builds a pattern, runs nothing), ``set`` and
#: ``frozenset`` (``__builtin__`` is the protocol-2 name of ``builtins``),
#: ``collections.defaultdict`` and ``int`` (a segment's field lengths are a
#: ``defaultdict(int)``) and ``_codecs.encode`` (how protocol 2 writes ``bytes``; a
#: codec is looked up only inside the ``encodings`` package). Nothing whose arguments
#: size an allocation (``bytearray(n)``, ``bytes(n)``, fixed-length columns): a 44-byte
#: pickle must not ask for gigabytes. The tokenizer's pattern is compiled (to compare
#: the stored schema with paperdesk's) but never used: the index is opened with
#: :func:`~paperdesk.core.search.index.build_schema`, so no planted pattern is matched.
ALLOWED_GLOBALS: frozenset[tuple[str, str]] = frozenset(
    [(m, n) for m in ("builtins", "__builtin__") for n in ("frozenset", "set", "int")]
    + [("re", "_compile"), ("collections", "defaultdict"), ("_codecs", "encode"),
       ("whoosh.lang.porter", "stem")]
    + [("whoosh.fields", n) for n in ("Schema", "TEXT", "ID", "KEYWORD", "COLUMN")]
    + [("whoosh.analysis.analyzers", "CompositeAnalyzer")]
    + [("whoosh.analysis.tokenizers", n) for n in ("IDTokenizer", "RegexTokenizer")]
    + [("whoosh.analysis.filters", n) for n in ("CharsetFilter", "LowercaseFilter",
                                                "StripFilter")]
    + [("whoosh.analysis.morph", "StemFilter")]
    + [("whoosh.formats", n) for n in ("Existence", "Frequency", "Positions")]
    + [("whoosh.codec.whoosh3", n) for n in ("W3Codec", "W3Segment")]
    + [("whoosh.columns", "NumericColumn")]
)

#: The unrestricted readers that :func:`install` replaces.
_ORIGINALS = (pickle, pickle.load, pickle.loads, pickle.Unpickler)


class PlantedData(pickle.UnpicklingError):
    """A pickle in the search index names a global that paperdesk does not load (a
    planted payload, or data of another program).

    Attributes:
        module, name: the global the pickle named (a protocol-2 module name such as
            ``__builtin__`` given as today's, ``builtins``).
    """

    def __init__(self, module: str, name: str):
        module = _compat_pickle.IMPORT_MAPPING.get(str(module), str(module))
        self.module, self.name = module, str(name)
        super().__init__(f"the search index contains data that paperdesk does not load "
                         f"(a pickled reference to {self.reference()})")

    def reference(self) -> str:
        """``module.name`` as one short printable line: a garbled file gives bytes
        (NUL, controls) for a name, shown escaped (``\\x00``) and cut at 60 characters."""
        text = f"{self.module}.{self.name}"
        text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                       for c in text)
        return text if len(text) <= 60 else text[:59] + "…"


def why(exc: BaseException) -> str:
    """What a failed read of the index (or of another derived file) met, in plain words
    for a one-line message's parentheses: never an exception's class name, nor the
    wording of the library that raised it (``"unpack requires a buffer"``, ``"Index was
    created on different architecture"``, ``"seek out of range"``); the exception itself
    is for the log.

    Args:
        exc: the exception a read raised.
    Returns:
        ``"it contains data that paperdesk does not load: a pickled reference to
        posix.system"`` for :class:`PlantedData`; an ``OSError``'s text without its
        file (``"not a regular file"``, ``"Is a directory"``: the line names the file
        once, before it, see :func:`named`); ``"it ends
        too early"`` for ``EOFError`` (a cut file); ``"it ends before the data it points
        to"`` for a read or seek past the end of the file (a cut file, or a garbled
        position); else ``"garbled data"``. Every character printable, at most about
        120 of them.
    """
    if isinstance(exc, PlantedData):
        return (f"it contains data that paperdesk does not load: a pickled reference to "
                f"{exc.reference()}")
    if isinstance(exc, OSError) and exc.strerror:
        return _printable(exc.strerror, 120)
    if isinstance(exc, EOFError):
        return "it ends too early"
    text = str(exc).lower()
    if isinstance(exc, (ValueError, IndexError, struct.error)) and any(
            words in text for words in _PAST_THE_END):
        return "it ends before the data it points to"
    return "garbled data"


def named(exc: BaseException, default):
    """The path a one-line message about ``exc`` names first: the file an ``OSError``
    names (``exc.filename``: more precise than the folder a read went through), else
    ``default``. With :func:`why`, which leaves the file out, the path is named once.

    Args:
        exc: the exception a read raised.
        default: the path named otherwise (a ``Path`` or a string).
    Returns:
        ``exc.filename`` as a ``Path``, or ``default`` unchanged.
    """
    from pathlib import Path

    filename = getattr(exc, "filename", None) if isinstance(exc, OSError) else None
    if isinstance(filename, (str, bytes)) and filename:
        return Path(os.fsdecode(filename))
    return default


#: What Python and Whoosh say of a read or seek past the end of a file (``mmap``'s
#: ``seek out of range``, ``struct``'s ``unpack requires a buffer of 4 bytes``,
#: ``index out of range`` of a slice of a map).
_PAST_THE_END = ("out of range", "requires a buffer", "past the end", "beyond the end")


def _printable(text: str, limit: int = 100) -> str:
    """``text`` with characters that are not printable escaped, cut at ``limit``."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


class RestrictedUnpickler(pickle.Unpickler):
    """``pickle.Unpickler`` that resolves only :data:`ALLOWED_GLOBALS`.

    Args:
        file: a binary file object, as for ``pickle.Unpickler``.
    Raises (from ``load``):
        PlantedData: the pickle names any other global.
        pickle.UnpicklingError, EOFError, ...: the bytes are not a pickle, as
            ``pickle.Unpickler.load`` raises them.
    """

    def find_class(self, module: str, name: str):
        """The global ``module.name`` if allowed (pickle's ``find_class`` API)."""
        if (module, name) in ALLOWED_GLOBALS:
            return super().find_class(module, name)
        raise PlantedData(module, name)

    def persistent_load(self, pid):
        """Persistent ids are never used by Whoosh; one in the data is planted."""
        raise PlantedData("persistent id", repr(pid)[:40])


def loads(data, /, **options):
    """``pickle.loads`` through :class:`RestrictedUnpickler`.

    Args:
        data: the pickle's bytes (bytes, bytearray or memoryview).
        options: ``pickle.Unpickler``'s keyword arguments (``encoding``, ...).
    Returns:
        The object the pickle describes.
    Raises:
        PlantedData: the pickle names a global not in :data:`ALLOWED_GLOBALS`.
        pickle.UnpicklingError, EOFError, ValueError, ...: the bytes are damaged.
    """
    return RestrictedUnpickler(io.BytesIO(data), **options).load()


def load(file, /, **options):
    """``pickle.load`` through :class:`RestrictedUnpickler`.

    Args:
        file: a binary file object positioned at the pickle; left after it.
        options: ``pickle.Unpickler``'s keyword arguments.
    Returns:
        The object the pickle describes.
    Raises:
        PlantedData, pickle.UnpicklingError, EOFError, ...: as :func:`loads`.
    """
    return RestrictedUnpickler(file, **options).load()


def _safe_pickle_module() -> types.ModuleType:
    """A stand-in for :mod:`pickle` in Whoosh's modules: the same names, but every
    reader restricted (writers are unchanged)."""
    module = types.ModuleType("paperdesk_safe_pickle")
    module.__dict__.update({k: v for k, v in vars(pickle).items()
                            if not k.startswith("__")})
    module.load, module.loads, module.Unpickler = load, loads, RestrictedUnpickler
    return module


_SAFE_PICKLE = _safe_pickle_module()
#: What each original reader is replaced with, in the order of :data:`_ORIGINALS`.
_REPLACEMENTS = (_SAFE_PICKLE, load, loads, RestrictedUnpickler)


def _replacement(value):
    """The restricted stand-in for ``value`` if it is an unrestricted reader, else None."""
    for original, replacement in zip(_ORIGINALS, _REPLACEMENTS):
        if value is original:
            return replacement
    return None


def _whoosh_modules() -> list[tuple[str, types.ModuleType]]:
    return [(name, module) for name, module in list(sys.modules.items())
            if module is not None and (name == "whoosh" or name.startswith("whoosh."))]


#: Whoosh's modules that read pickles (``grep -rn 'pickle\\|loads' whoosh``), imported
#: before their names are replaced so that none is imported later with the originals.
_WHOOSH_READERS = ("whoosh.compat", "whoosh.index", "whoosh.legacy", "whoosh.formats",
                   "whoosh.columns", "whoosh.externalsort", "whoosh.multiproc",
                   "whoosh.util.loading", "whoosh.filedb.structfile",
                   "whoosh.filedb.compound", "whoosh.filedb.filetables",
                   "whoosh.filedb.fileindex", "whoosh.codec.whoosh3",
                   "whoosh.codec.whoosh2", "whoosh.codec.plaintext")


def unsafe_readers() -> list[str]:
    """Names in loaded Whoosh modules still bound to an unrestricted pickle reader
    (``pickle``, ``pickle.load``, ``pickle.loads``, ``pickle.Unpickler``), and a
    non-empty legacy TOC loader table: empty once :func:`install` has run and no
    Whoosh module was imported after it that :data:`_WHOOSH_READERS` misses.

    Returns:
        Sorted ``"module.attribute"`` strings.
    """
    found = [f"{name}.{attr}" for name, module in _whoosh_modules()
             for attr, value in list(vars(module).items()) if _replacement(value)]
    if sys.modules.get("whoosh.legacy") and sys.modules["whoosh.legacy"].toc_loaders:
        found.append("whoosh.legacy.toc_loaders")
    return sorted(found)


_installed = False


def install() -> None:
    """Make every pickle read by Whoosh (and by paperdesk's fast path, which imports
    this module's :func:`loads`) go through :class:`RestrictedUnpickler`. Idempotent;
    called when :mod:`paperdesk.core.search` is imported, before any index is opened.

    Replaces, in every loaded ``whoosh`` module, names bound to ``pickle.load``,
    ``pickle.loads``, ``pickle.Unpickler`` or the ``pickle`` module itself, and empties
    Whoosh's table of legacy TOC readers (``whoosh.legacy.toc_loaders``, whose
    ``RenamingUnpickler`` resolves any name).

    Raises:
        ImportError: Whoosh is not installed.
    """
    global _installed
    if _installed:
        return
    for name in _WHOOSH_READERS:
        try:
            importlib.import_module(name)
        except ImportError:   # broken in whoosh-reloaded (whoosh2): it can read nothing
            pass
    for _name, module in _whoosh_modules():
        for attr, value in list(vars(module).items()):
            replacement = _replacement(value)
            if replacement is not None:
                setattr(module, attr, replacement)
    sys.modules["whoosh.legacy"].toc_loaders.clear()
    _installed = True
