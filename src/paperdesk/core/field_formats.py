"""The table-driven paper fields (:func:`paperdesk.core.fields.stored_fields`: volume,
issue, pages, ...) in and out of each format, and merged, read from the field table.

Every reader and writer calls one function here instead of naming such a field: a field
declared in :data:`paperdesk.core.fields.PAPER_FIELDS` with ``stored=True`` is read from
BibTeX/biblatex (:attr:`~paperdesk.core.fields.Field.bibtex`, then
:attr:`~paperdesk.core.fields.Field.bibtex_read`), RIS (the tags'
`rispy <https://github.com/MrTango/rispy>`_ keys) and CSL-JSON (the variable), written
to all three, and merged by its :attr:`~paperdesk.core.fields.Field.merge` rule.

Two format rules:

* :data:`~paperdesk.core.fields.PAGE_RANGE`: a page range is stored as ``first-last``;
  BibTeX writes ``first--last`` (btxdoc, "pages"), RIS ``SP`` the first page and ``EP``
  the last (RIS specification), CSL-JSON ``first-last`` (CSL 1.0.2, "page"); a reader
  takes ``-``, ``--`` or an en dash back to ``-``.
* :data:`~paperdesk.core.fields.CONTAINER` (the venue): the BibTeX field, RIS tag and CSL
  variable follow the entry type (the field's ``*_types``; btxdoc's entry types, the
  RIS specification's ``T2``/``PB``, CSL 1.0.2's ``container-title``/``publisher``);
  BibTeX protects its case with double braces (pandoc and biber keep "{{ICML}}" as
  written); the writers put it right after the title (BibTeX, RIS) or after the other
  stored fields (CSL-JSON). CSL-JSON writes ``arXiv`` as the venue of a preprint with an
  arXiv id and none of its own, and a reader takes ``arXiv`` of a preprint back to none;
  a CSL-JSON reader reads only a plain text there (not a list).

A field written under the same name as the :data:`~paperdesk.core.fields.CONTAINER` of
the entry's type (``publisher`` beside a book's venue, which BibTeX, RIS and CSL-JSON
write as the publisher) is left out when the venue has a value, and a reader leaves to
the venue what it read from the same name: written once, read back once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import rispy

from paperdesk.core.fields import CONTAINER, PAGE_RANGE, Field, stored_fields
from paperdesk.core.models import Metadata, field_values

__all__ = ["merge_values", "bibtex_values", "ris_values", "csl_values", "bibtex_pairs",
           "ris_pairs", "csl_pairs"]

_STORED = stored_fields()
_CONTAINERS = stored_fields(containers=True)
#: RIS tag -> rispy's key (``VL`` -> ``volume``).
_RIS_KEY = rispy.TAG_KEY_MAPPING
#: The stored fields, containers first (:func:`_read` needs their sources first).
_CONTAINERS_FIRST = _CONTAINERS + stored_fields(containers=False)
_DASHES = re.compile(r"\s*(?:-{1,3}|\u2013|\u2014)\s*")


def _range_in(text: str) -> str:
    """A page range as a reader found it, stored as ``first-last``."""
    return _DASHES.sub("-", text.strip())


def _first(get: Callable[[str], object], names: Iterable[str]) -> tuple[str, str]:
    """The first of ``names`` with a text, and that text (``("", "")`` for none)."""
    for name in names:
        value = get(name)
        if isinstance(value, list):
            value = next((v for v in value if str(v).strip()), None)
        if value is not None and not isinstance(value, dict) and str(value).strip():
            return name, str(value).strip()
    return "", ""


def _first_text(get: Callable[[str], object], names: Iterable[str]) -> str:
    return _first(get, names)[1]


def _read(get: Callable[[str], object], names: Callable[[Field], Iterable[str]],
          decode: Callable[[str], str], lists: bool = True) -> dict[str, str]:
    """The stored fields' texts; a field read from the same source name as a
    :data:`CONTAINER` (a book's ``publisher``, which is its venue) is left to the
    container, so that what is written once comes back once."""
    out, container_sources = {}, set()
    for f in _CONTAINERS_FIRST:
        source, text = _first(get if lists or f.rule != CONTAINER else
                              lambda name: None if isinstance(get(name), list) else get(name),
                              names(f))
        if not text or (f.rule != CONTAINER and source in container_sources):
            continue
        if f.rule == CONTAINER:
            container_sources.add(source)
        text = decode(text)
        out[f.name] = _range_in(text) if f.rule == PAGE_RANGE else text
    return {f.name: out[f.name] for f in _STORED if f.name in out}


def bibtex_values(get: Callable[[str], str | None],
                  decode: Callable[[str], str] = str,
                  entry_type: str | None = None) -> dict[str, str]:
    """Return the table-driven fields of one BibTeX entry.

    Args:
        get: the entry's raw value of a (lower-case) field name, or ``None``.
        decode: turns a raw value into text (the reader's LaTeX decoding).
        entry_type: the entry's paperdesk type (``"misc"``): a field that this type
            writes under a name of its own (:attr:`~paperdesk.core.fields.Field.
            bibtex_types`: a ``@misc``'s venue is its ``howpublished``) is read from that
            name first, so that a ``@misc`` with ``howpublished`` and ``publisher`` keeps
            its venue and its publisher apart.
    Returns:
        Field name -> text, for the fields the entry has.
    """
    def names(f: Field) -> tuple[str, ...]:
        found = ((f.bibtex,) if f.bibtex else ()) + tuple(f.bibtex_read)
        own = dict(f.bibtex_types).get(entry_type)
        return tuple(dict.fromkeys((own, *found))) if own else found

    return _read(get, names, decode)


def ris_values(ref: dict, entry_type: str | None = None) -> dict[str, str]:
    """Return the table-driven fields of one RIS record as rispy reads it.

    Args:
        ref: rispy's record (``{"volume": "12", "start_page": "3", ...}``).
        entry_type: the record's paperdesk entry type (``"book"``), which picks the tags
            of a field with :attr:`~paperdesk.core.fields.Field.ris_read_types`.
    Returns:
        Field name -> text; a :data:`PAGE_RANGE` field joins its first and last page.
    """
    def tags(f: Field) -> list[str]:
        found = dict(f.ris_read_types).get(entry_type)
        if found is None:
            found = ((f.ris,) if f.ris else ()) + f.ris_read
        return [_RIS_KEY.get(t, t) for t in found]

    out = _read(ref.get, tags, str)
    for f in _STORED:
        if f.rule == PAGE_RANGE and f.ris_end and f.name in out and "-" not in out[f.name]:
            last = _first_text(ref.get, [_RIS_KEY.get(f.ris_end, f.ris_end)])
            if last and last != out[f.name]:
                out[f.name] += "-" + last
    return out


def csl_values(item: dict, entry_type: str | None = None) -> dict[str, str]:
    """Return the table-driven fields of one CSL-JSON item.

    Args:
        item: the item as parsed JSON.
        entry_type: the item's paperdesk entry type: a ``"preprint"``'s
            :data:`CONTAINER` ``arXiv`` is left out (what paperdesk writes for none).
    Returns:
        Field name -> text (a number is taken as its text).
    """
    out = _read(item.get, lambda f: ((f.csl,) if f.csl else ()) + f.csl_read, str,
                lists=False)
    if entry_type == "preprint":
        for f in _CONTAINERS:
            if out.get(f.name, "").lower() == "arxiv":
                del out[f.name]
    return out


def merge_values(own: Metadata, other: Metadata) -> tuple[tuple[str, str], ...]:
    """Return :attr:`Metadata.values` of two papers' metadata merged by each field's
    :attr:`~paperdesk.core.fields.Field.merge` rule (``"fill"``: ``own``'s value, else
    ``other``'s)."""
    if not other.values:
        return own.values
    return field_values({f.name: own.value(f.name) or other.value(f.name) for f in _STORED})


def _kept(meta: Metadata, keep: Iterable[str], containers: bool,
          written_as: Callable[[Field], str | None] | None = None
          ) -> Iterable[tuple[Field, str]]:
    """The fields to write with their texts; with ``written_as`` (a field's name in the
    format, for the entry's type), a non-container field is left out when a
    :data:`CONTAINER` with a value is written under the same name (a book's publisher
    is its venue: written once)."""
    keep = set(keep)
    taken = set()
    if written_as is not None and not containers:
        taken = {written_as(f) for f, _text in _kept(meta, keep, True)}
    for f in stored_fields(containers):
        text = meta.value(f.name)
        if text and f.name in keep and (not taken or written_as(f) not in taken):
            yield f, text


def _bibtex_value(f: Field, text: str, encode: Callable[[str], str]) -> str:
    if f.rule == PAGE_RANGE:
        return "{" + "--".join(map(encode, text.split("-", 1))) + "}"
    if f.rule == CONTAINER:
        return "{{" + encode(text) + "}}"
    return "{" + encode(text) + "}"


def bibtex_pairs(meta: Metadata, keep: Iterable[str], encode: Callable[[str], str],
                 entry_type: str = "misc",
                 containers: bool = False) -> list[tuple[str, str]]:
    """Return the BibTeX fields of a paper's table-driven fields.

    Args:
        meta: the paper's metadata.
        keep: export field names to write.
        encode: turns text into LaTeX (the writer's encoding, e.g. ``latex_text``).
        entry_type: the paper's paperdesk entry type (picks a :data:`CONTAINER`'s field).
        containers: the :data:`CONTAINER` fields only (written after the title), else
            all the others.
    Returns:
        ``(field, value)`` pairs in table order (``("pages", "{12--34}")``).
    """
    def written_as(f: Field) -> str | None:
        return dict(f.bibtex_types).get(entry_type, f.bibtex)

    return [(written_as(f), _bibtex_value(f, text, encode))
            for f, text in _kept(meta, keep, containers, written_as) if written_as(f)]


def ris_pairs(meta: Metadata, keep: Iterable[str], encode: Callable[[str], str],
              entry_type: str = "misc", containers: bool = False) -> list[tuple[str, str]]:
    """Return the RIS values of a paper's table-driven fields.

    Args:
        meta: the paper's metadata.
        keep: export field names to write.
        encode: turns text into an RIS value (the writer's one-line form).
        entry_type: the paper's paperdesk entry type (picks a :data:`CONTAINER`'s tag).
        containers: the :data:`CONTAINER` fields only (written after the title), else
            all the others.
    Returns:
        ``(rispy key, value)`` pairs in table order; a :data:`PAGE_RANGE` gives its
        first page under its tag and its last under :attr:`~paperdesk.core.fields.Field.
        ris_end`.
    """
    def written_as(f: Field) -> str | None:
        return dict(f.ris_types).get(entry_type, f.ris)

    out = []
    for f, text in _kept(meta, keep, containers, written_as):
        tag = written_as(f)
        if not tag:
            continue
        if f.rule == PAGE_RANGE and f.ris_end and "-" in text:
            first, last = text.split("-", 1)
            out += [(_RIS_KEY.get(tag, tag), encode(first)),
                    (_RIS_KEY.get(f.ris_end, f.ris_end), encode(last))]
        else:
            out.append((_RIS_KEY.get(tag, tag), encode(text)))
    return out


def csl_pairs(meta: Metadata, keep: Iterable[str], entry_type: str = "misc",
              item_type: str = "document") -> list[tuple[str, str]]:
    """Return the CSL-JSON variables of a paper's table-driven fields: the others, then
    the :data:`CONTAINER` fields (a preprint with an arXiv id and no venue: ``arXiv``).

    Args:
        meta: the paper's metadata.
        keep: export field names to write.
        entry_type: the paper's paperdesk entry type.
        item_type: its CSL item type (picks a :data:`CONTAINER`'s variable).
    Returns:
        ``(variable, text)`` pairs.
    """
    keep = set(keep)
    containers = []
    for f in _CONTAINERS:
        text = meta.value(f.name) or ("arXiv" if entry_type == "preprint" and meta.arxiv_id
                                      else "")
        if text and f.name in keep and f.csl:
            containers.append((dict(f.csl_types).get(item_type, f.csl), text))
    taken = {name for name, _text in containers}   # a book's publisher is its venue
    return [(f.csl, text) for f, text in _kept(meta, keep, False)
            if f.csl and f.csl not in taken] + containers
