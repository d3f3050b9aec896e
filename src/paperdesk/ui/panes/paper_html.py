"""Turn a paper into the detail pane's HTML: everything escaped, only web URLs linked.

Pure Python (no Qt), so it is easy to test. The rules:

* every character of the title, abstract, header and file names is HTML-escaped, so
  markup inside an abstract (``<b>``, ``<a href=...>``) is shown literally;
* the only links are http(s) URLs found by :func:`paperdesk.core.text.find_urls` in the
  abstract (which skips URLs that sit inside markup such as ``href="..."``), DOIs linked
  to ``https://doi.org/<doi>``, arXiv ids linked to ``https://arxiv.org/abs/<id>`` and
  the paper's own URL (http(s) only, checked by the core);
* the paper's *own* metadata (authors, date, venue, the table-driven fields such as
  volume, issue and pages, entry type, DOI, arXiv id, URL, citation key) and what the
  abstract merely *mentions* (links, arXiv ids and DOIs of other work) are separate
  blocks under the abstract, "Citation" and "Mentioned in the abstract", so a cited
  arXiv id never looks like the paper's own; the byline says where the paper was
  published as a reference list does (:func:`citation_place`: "Nature 12(3), 45–67");
* words matching the active search query are marked (amber, underlined: unlike any
  highlight colour); what to mark comes from the
  core (``lib.search.match_terms(query)`` and :func:`paperdesk.core.search.index.match_spans`),
  so the marks are exactly what the index matched: stemmed words ("networks" marks
  "network"), exact phrases (``"university"`` does not mark "universe"), and the words
  a ``prefix*`` or ``fuzzy~`` term stood for;
* the user's highlights are drawn as a background in their colour;
* the abstract is the document's first paragraph and keeps every character of
  ``paper.abstract`` (links and highlights only add formatting), so a position in that
  block is an offset into the abstract (see :mod:`paperdesk.ui.panes.abstract_view`);
  an abstract longer than :data:`ABSTRACT_SHOWN_CHARS` is shown up to there (a prefix:
  the offsets still hold), with a muted line saying so; the work is linear in the
  characters shown.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from paperdesk.core.fields import PAGE_RANGE, stored_fields
from paperdesk.core.models import NO_TITLE, Author, Metadata, Paper
from paperdesk.core.api import MatchTerms, match_spans
from paperdesk.core.text import bidi_visible, find_urls
from paperdesk.ui.style.formatting import local_datetime


def _escape(text: str, quote: bool = True) -> str:
    """HTML-escape text from a file for display, its bidi controls made visible
    (:func:`paperdesk.core.text.bidi_visible`, one character for one)."""
    return html.escape(bidi_visible(text), quote)

__all__ = ["NO_TITLE", "abstract_html", "paper_html", "paper_body_html", "title_html", "HtmlColours",
           "LIGHT", "hit_style", "ABSTRACT_STYLE", "doi_url", "arxiv_url", "own_page_url",
           "readable_author", "readable_authors", "listed_authors", "byline", "citation_place",
           "page_range", "AUTHORS_SHOWN",
           "NO_METADATA_HINT", "ABSTRACT_SHOWN_CHARS", "shown_abstract", "shortened_note"]

#: The detail pane shows at most this many characters of an abstract (about 25 pages
#: of prose; abstracts are a few thousand): laying out, marking and mapping a 2.4 MB one
#: froze the window (issue 14). A longer one is shown up to here, with
#: :func:`shortened_note` under it.
ABSTRACT_SHOWN_CHARS = 100_000
#: Authors named in the byline before "et al." (all of them are in its tooltip).
AUTHORS_SHOWN = 8
#: The byline's label of each table-driven field ("Volume"), by field name.
_LABELS = {f.name: f.label for f in stored_fields()}
#: The table-driven fields holding a page range (:data:`~paperdesk.core.fields.PAGE_RANGE`).
_RANGES = frozenset(f.name for f in stored_fields() if f.rule == PAGE_RANGE)
#: The table-driven fields a reference list writes after the venue, as volume, issue
#: and pages (:func:`citation_place`); any other such field is "label text" in the byline.
_PLACE = ("volume", "issue", "pages")
#: The venue (:data:`~paperdesk.core.fields.CONTAINER` fields), first in the place.
_VENUES = tuple(f.name for f in stored_fields(containers=True))
_IN_PLACE = frozenset((*_VENUES, *_PLACE))
#: What the byline says when the paper has no authors, date or venue of its own yet.
NO_METADATA_HINT = "No authors, year or venue yet — M adds them"


@dataclass(frozen=True)
class HtmlColours:
    """Colours paperdesk draws with besides the palette's own, as ``#rrggbb`` strings.

    :func:`paperdesk.ui.style.colours.reading_colours` makes them from the palette in use;
    :data:`LIGHT` is the set for a light palette.

    Attributes:
        hit_background: background of a word the search matched.
        hit_text: text colour of such a word (it is also underlined).
        muted: secondary text (dates, "Source", hints).
        highlight_text: text on a user's highlight (highlight colours are pastels).
        star: the star of a starred paper.
        error: text of an error message.
        link: links (``""``: the palette's link colour).
    """

    hit_background: str = "#ffa94d"
    hit_text: str = "#000000"
    muted: str = "#5f5f5f"
    highlight_text: str = "#000000"
    star: str = "#8f6200"
    error: str = "#b3261e"
    link: str = ""


#: The colours for a light palette.
LIGHT = HtmlColours()
#: Style of the abstract paragraph.
ABSTRACT_STYLE = "line-height:135%; margin-top:4px;"


def hit_style(colours: HtmlColours = LIGHT) -> str:
    """Return the inline CSS of a search hit: background, text colour and an underline
    (Qt rich text supports all three), so hits differ from user highlights."""
    return (f"background-color:{colours.hit_background}; color:{colours.hit_text}; "
            "text-decoration:underline;")


def _muted(colours: HtmlColours) -> str:
    return f"color:{colours.muted};"


def _link_open(url: str, colours: HtmlColours) -> str:
    style = f' style="color:{colours.link};"' if colours.link else ""
    return f'<a href="{_escape(url, quote=True)}"{style}>'


#: In a title, a run of more than this many characters without a space (a
#: 200,000-letter "word" from a broken file, a long URL) may be broken anywhere, as
#: :func:`paperdesk.ui.style.text_fit.wrapped_cut` lays it out: a word-wrapped ``QLabel``
#: breaks lines only at spaces, and one such run widened the reading pane's header past
#: the window, hiding its buttons.
LONG_RUN = 40
_LONG_RUN_RE = re.compile(rf"\S{{{LONG_RUN + 1},}}")
#: Where a long run may break: ZERO WIDTH SPACE (U+200B), a line-break opportunity that
#: draws nothing.
_BREAK = "\u200b"


def _breakable(text: str) -> str:
    """``text`` with a :data:`_BREAK` between the characters of each run of more than
    :data:`LONG_RUN` characters without a space (shorter words untouched)."""
    return _LONG_RUN_RE.sub(lambda m: _BREAK.join(m.group(0)), text) \
        if len(text) > LONG_RUN else text


def _highlighted(text: str, start: int, end: int, spans: Sequence[tuple[int, int]],
                 colours: HtmlColours = LIGHT, breaks: bool = False) -> str:
    out = []
    pos = start
    style = hit_style(colours)

    def escape(part: str) -> str:
        return _escape(_breakable(part) if breaks else part)

    for s, e in spans:
        if s < pos or e > end:
            continue
        out.append(escape(text[pos:s]))
        out.append(f'<span style="{style}">{escape(text[s:e])}</span>')
        pos = e
    out.append(escape(text[pos:end]))
    return "".join(out)


def _is_web_url(url: str) -> bool:
    return url.lower().startswith(("http://", "https://"))


def doi_url(doi: str) -> str:
    """Return the resolver link of a DOI: ``https://doi.org/<doi>``, with the characters
    a URL cannot hold as such (``#``, ``?``, ``%``, ``<``, spaces ...) percent-encoded."""
    return "https://doi.org/" + quote(doi, safe="/:;()[]._-~")


def arxiv_url(arxiv_id: str) -> str:
    """Return the abstract page of an arXiv identifier: ``https://arxiv.org/abs/<id>``."""
    return "https://arxiv.org/abs/" + quote(arxiv_id, safe="/.-")


def own_page_url(meta: Metadata) -> str | None:
    """Return the paper's own page: its DOI's resolver link, else its arXiv page, else
    its URL; ``None`` when it has none of them (what ``o`` opens)."""
    if meta.doi:
        return doi_url(meta.doi)
    if meta.arxiv_id:
        return arxiv_url(meta.arxiv_id)
    return meta.url or None


def readable_author(author: Author) -> str:
    """Return ``"Given Family"`` (``"Family"`` alone for an organisation or when the
    given name is unknown)."""
    name = f"{author.given} {author.family}" if author.given else author.family
    return f"{name}, {author.suffix}" if author.suffix else name


def readable_authors(authors: Sequence[Author], limit: int = AUTHORS_SHOWN,
                     et_al: bool = False) -> str:
    """Return the authors as people read them: ``"Jane Doe, John Smith and Ann Lee"``;
    more than ``limit`` become ``"Jane Doe, John Smith, … et al. (12 authors)"``; a
    truncated list (``et_al``, :attr:`Metadata.et_al`: the file named only these)
    ends in ``", et al."``: ``"A. Antognini, et al."``."""
    names = [readable_author(a) for a in authors]
    if len(names) > limit:
        return ", ".join(names[:limit]) + f" et al. ({len(names)}{'+' if et_al else ''} authors)"
    if et_al and names:
        return ", ".join(names) + ", et al."
    if len(names) > 1:
        return ", ".join(names[:-1]) + " and " + names[-1]
    return names[0] if names else ""


def listed_authors(meta: Metadata) -> str:
    """Return every author as stored, ``"Family, Given"`` joined by ``"; "``, then
    ``"; et al."`` when the list is truncated (:attr:`Metadata.et_al`); ``""`` for none."""
    names = "; ".join(str(a) for a in meta.authors)
    return names + "; et al." if names and meta.et_al else names


def page_range(text: str) -> str:
    """Return a stored page range (``"45-67"``) as a reference list prints it, with an
    en dash (``"45–67"``); a single page is returned as it is."""
    return "–".join(text.split("-", 1))


def citation_place(meta: Metadata) -> str:
    """Return where the paper was published as a reference manager writes it: the
    venue, the volume with the issue in parentheses, then the pages after a comma with
    an en dash (``"Nature 12(3), 45–67"``, the order of APA 7th ed. section 9.25 and
    Zotero's styles, without the italics). Parts not known are left out
    (``"Nature, 45–67"``, ``"12(3)"``, ``"Nature (3)"``); ``""`` when none is known."""
    volume, issue, pages = (meta.value(name) for name in _PLACE)
    number = volume + (f"({issue})" if issue else "")
    head = " ".join(part for part in (*map(meta.value, _VENUES), number) if part)
    return ", ".join(part for part in (head, page_range(pages) if pages else "") if part)


def byline(meta: Metadata) -> str:
    """Return the plain-text line under the title: authors · date · where it was
    published (:func:`citation_place`: venue, volume, issue and pages), then each other
    table-driven field (:func:`paperdesk.core.fields.stored_fields`) as "label text"
    (``""`` when none is known), bidi controls made visible. Plain text: the caller
    shows it as such, never as markup."""
    parts = [readable_authors(meta.authors, et_al=meta.et_al), meta.date or "",
             citation_place(meta),
             *(f"{_LABELS[name]} {text}" for name, text in meta.values
               if name not in _IN_PLACE)]
    return bidi_visible("  ·  ".join(p for p in parts if p))


def abstract_html(text: str, spans: Sequence[tuple[int, int]] = (),
                  highlights: Sequence[tuple[int, int, str]] = (),
                  colours: HtmlColours = LIGHT) -> str:
    """Escape an abstract, link its http(s) URLs and mark search matches and highlights.

    Every character of ``text`` appears exactly once in the output's text, in order. One
    pass over the cut points (links and hits followed with a pointer each): linear in
    ``len(text)`` plus the number of spans, times the (few) highlights.

    Args:
        text: the abstract (literal text; any markup in it stays text), or the part of it
            shown (:func:`shown_abstract`).
        spans: ``(start, end)`` offsets of search matches, sorted; matches inside a URL
            are not marked.
        highlights: ``(start, end, "#rrggbb")`` user highlights; where they overlap, the
            later one in the sequence is drawn; a search match is drawn over them.
        colours: colours of search hits, of text on highlights and of links.
    Returns:
        An HTML fragment (no enclosing block element).
    """
    links = [(s, e, url) for s, e, url in find_urls(text) if _is_web_url(url)]
    kept_links = []
    pos = 0
    for s, e, url in links:
        if s >= pos:
            kept_links.append((s, e, url))
            pos = e
    size = len(text)
    hits = sorted((max(0, s), min(size, e)) for s, e in spans)
    bounds = {0, size}
    for s, e, _u in kept_links:
        bounds.update((s, e))
    bounds.update(b for span in hits for b in span)
    for s, e, _c in highlights:
        bounds.update((max(0, s), min(size, e)))
    cuts = sorted(b for b in bounds if 0 <= b <= size)
    out = []
    open_link = None
    hit = hit_style(colours)
    # One pass: the links (sorted, apart) and the hits (sorted by start) are followed
    # with a pointer each, so the work is linear in the cuts, not cuts x spans.
    li = hi = 0
    hit_end = 0   # the furthest end of the hits that start at or before the piece
    for a, b in zip(cuts, cuts[1:]):
        if a >= b:
            continue
        while li < len(kept_links) and kept_links[li][1] <= a:
            li += 1
        link = (kept_links[li] if li < len(kept_links) and kept_links[li][0] <= a
                and b <= kept_links[li][1] else None)
        while hi < len(hits) and hits[hi][0] <= a:
            hit_end = max(hit_end, hits[hi][1])
            hi += 1
        if link is not open_link:
            if open_link is not None:
                out.append("</a>")
            if link is not None:
                out.append(_link_open(link[2], colours))
            open_link = link
        style = ""
        for s, e, colour in highlights:
            if s <= a and b <= e:
                style = f"background-color:{colour}; color:{colours.highlight_text};"
        if link is None and hit_end >= b:
            style = hit
        piece = _escape(text[a:b])
        out.append(f'<span style="{style}">{piece}</span>' if style else piece)
    if open_link is not None:
        out.append("</a>")
    return "".join(out)


def shown_abstract(text: str) -> str:
    """The part of an abstract the detail pane shows: all of it up to
    :data:`ABSTRACT_SHOWN_CHARS` characters, else its first :data:`ABSTRACT_SHOWN_CHARS`
    (a prefix, so offsets into it are offsets into the abstract and highlights made on it
    land where they should; the stored abstract is never cut).

    Args:
        text: the abstract.
    Returns:
        ``text`` or a prefix of it.
    """
    return text[:ABSTRACT_SHOWN_CHARS]


def shortened_note(text: str) -> str:
    """The line under an abstract too long to show whole (``""`` for any other):
    ``"Abstract shortened for display: 2,400,000 characters; the first 100,000 are
    shown. The library keeps the whole abstract (export or paperdesk show give it)."``

    Args:
        text: the abstract.
    Returns:
        Plain text, or ``""``.
    """
    if len(text) <= ABSTRACT_SHOWN_CHARS:
        return ""
    return (f"Abstract shortened for display: {len(text):,} characters; the first "
            f"{ABSTRACT_SHOWN_CHARS:,} are shown. The library keeps the whole abstract "
            "(export or paperdesk show give it).")


def _abstract_parts(paper: Paper, terms: MatchTerms | None, colours: HtmlColours,
                    style: str) -> list[str]:
    """The abstract's paragraph (only :func:`shown_abstract`, its hits and highlights
    marked) and, when it was shortened, a muted paragraph saying so."""
    shown = shown_abstract(paper.abstract)
    marks = [(h.start, h.end, h.colour) for h in paper.highlights]
    parts = [f'<p style="{style}">{abstract_html(shown, _spans(shown, terms), marks, colours)}</p>']
    note = shortened_note(paper.abstract)
    if note:
        parts.append(f'<p style="{_muted(colours)} margin-top:6px;">{_escape(note)}</p>')
    return parts


def title_html(title: str, terms: MatchTerms | None = None,
               colours: HtmlColours = LIGHT, end: int | None = None,
               breaks: bool = False) -> str:
    """Return a paper title as escaped HTML with the query's words marked.

    Args:
        title: the title (literal text).
        terms: what the active search matched (``lib.search.match_terms(query)``), or
            ``None`` for no search.
        colours: the search-hit colours.
        end: show only ``title[:end]`` followed by "…" (an elided title); the hits are
            found in the whole title, and a hit the cut splits is not marked. ``None``
            (or ``end >= len(title)``) shows the whole title.
        breaks: let a word-wrapped label break a run of more than :data:`LONG_RUN`
            characters without a space anywhere (zero-width spaces between them).
    Returns:
        An HTML fragment.
    """
    if end is None or end >= len(title):
        return _highlighted(title, 0, len(title), _spans(title, terms), colours, breaks)
    end = max(0, end)
    return _highlighted(title, 0, end, _spans(title, terms), colours, breaks) + "…"


def _spans(text: str, terms: MatchTerms | None) -> list[tuple[int, int]]:
    return match_spans(text, terms) if terms else []


def paper_body_html(paper: Paper, terms: MatchTerms | None = None,
                    colours: HtmlColours = LIGHT) -> str:
    """Return the abstract view's HTML: the abstract (first paragraph), then the paper's
    own metadata ("Citation"), what the abstract mentions and the source files.

    Args:
        paper: the paper (from ``lib.papers.get``), with its highlights.
        terms: what the active search matched (``lib.search.match_terms(query)``), to mark
            every hit in the abstract; ``None`` for no search.
        colours: colours of hits, highlights, links and secondary text (from
            :func:`paperdesk.ui.style.colours.reading_colours` for the palette in use).
    Returns:
        An HTML document string for ``QTextBrowser.setHtml``; an abstract longer than
        :data:`ABSTRACT_SHOWN_CHARS` is shown up to there with :func:`shortened_note`
        under it.
    """
    parts = _abstract_parts(paper, terms, colours, ABSTRACT_STYLE)
    parts += _links_and_sources(paper, colours)
    return "<html><body>" + "\n".join(parts) + "</body></html>"


def _link(url: str, text: str, colours: HtmlColours) -> str:
    return f"{_link_open(url, colours)}{_escape(text)}</a>"


def _section_rows(heading: str, rows: Sequence[tuple[str, str]], colours: HtmlColours,
                  first: bool = False) -> str:
    """Table rows: a muted heading across both columns, then ``(label, value HTML)``."""
    muted = _muted(colours)
    space = "4px" if first else "12px"
    out = [f'<tr><td colspan="2" style="{muted} padding-top:{space}; padding-bottom:2px;">'
           f"{_escape(heading)}</td></tr>"]
    out += [f'<tr><td style="{muted} padding-right:12px;">{_escape(label)}</td>'
            f"<td>{value}</td></tr>" for label, value in rows]
    return "".join(out)


def _citation_rows(paper: Paper, colours: HtmlColours) -> list[tuple[str, str]]:
    """The paper's own metadata: what a citation of it carries."""
    meta = paper.metadata
    rows: list[tuple[str, str]] = []
    if meta.authors:
        rows.append(("Authors" if len(meta.authors) > 1 or meta.et_al else "Author",
                     _escape(listed_authors(meta))))
    if meta.date:
        rows.append(("Date" if len(meta.date) > 4 else "Year", _escape(meta.date)))
    rows += [(_LABELS[name], _escape(page_range(text) if name in _RANGES else text))
             for name, text in meta.values]
    if meta.entry_type:
        rows.append(("Type", _escape(meta.entry_type)))
    if meta.doi:
        rows.append(("DOI", _link(doi_url(meta.doi), meta.doi, colours)))
    if meta.arxiv_id:
        rows.append(("arXiv", _link(arxiv_url(meta.arxiv_id), meta.arxiv_id, colours)))
    if meta.url:
        rows.append(("URL", _link(meta.url, meta.url, colours) if _is_web_url(meta.url)
                     else _escape(meta.url)))
    if paper.citation_key:
        rows.append(("Citation key", _escape(paper.citation_key)))
    if paper.key_aliases:   # keys of entries merged onto it: \cite finds it by them too
        rows.append(("Also cited as", _escape(", ".join(paper.key_aliases))))
    return rows


def _mentioned_rows(paper: Paper, colours: HtmlColours) -> list[tuple[str, str]]:
    """Links and identifiers the abstract cites: other work, never the paper's own."""
    m = paper.mentioned
    rows: list[tuple[str, str]] = []
    if m.arxiv_ids:
        rows.append(("arXiv", ", ".join(_link(arxiv_url(a), a, colours)
                                        for a in m.arxiv_ids)))
    if m.dois:
        rows.append(("DOI", ", ".join(_link(doi_url(d), d, colours) for d in m.dois)))
    if m.urls:
        rows.append(("Links" if len(m.urls) > 1 else "Link",
                     "<br>".join(_link(u, u, colours) if _is_web_url(u) else _escape(u)
                                 for u in m.urls)))
    return rows


def _metadata_table(paper: Paper, colours: HtmlColours) -> str:
    """One table (so the values line up): "Citation", then "Mentioned in the abstract"
    when the abstract mentions links or identifiers."""
    body = _section_rows("Citation", _citation_rows(paper, colours), colours, first=True)
    mentioned = _mentioned_rows(paper, colours)
    if mentioned:
        body += _section_rows("Mentioned in the abstract", mentioned, colours)
    return (f'<table style="margin-top:10px;" cellspacing="0" cellpadding="1">'
            f"{body}</table>")


def _links_and_sources(paper: Paper, colours: HtmlColours = LIGHT) -> list[str]:
    parts = [_metadata_table(paper, colours)]
    muted = _muted(colours)
    if paper.sources:
        rows = "<br>".join(
            f'<span title="{_escape(s.path, quote=True)}">{_escape(s.name)}</span>'
            f' <span style="{muted}">— abstract {s.position} — {_escape(s.header)}</span>'
            for s in paper.sources)
        label = "Source" if len(paper.sources) == 1 else "Sources"
        parts.append(f'<p style="margin-top:16px;"><span style="{muted}">{label}</span>'
                     f"<br>{rows}</p>")
    return parts


def paper_html(paper: Paper, terms: MatchTerms | None = None,
               colours: HtmlColours = LIGHT) -> str:
    """Return the complete HTML document the detail pane shows for ``paper``.

    Args:
        paper: the paper (from ``lib.papers.get``).
        terms: what the active search matched (``lib.search.match_terms(query)``), to mark
            every hit; ``None`` for no search.
        colours: as for :func:`paper_body_html`.
    Returns:
        An HTML string for ``QTextBrowser.setHtml``: title, byline (authors, date,
        venue), added date, abstract, the paper's own metadata, what the abstract
        mentions (linked) and the source files.
    """
    title = _highlighted(paper.title, 0, len(paper.title), _spans(paper.title, terms),
                         colours)
    by = byline(paper.metadata)
    parts = [
        f'<p style="font-size:x-large; font-weight:600; margin-bottom:6px;">{title}</p>',
        *([f'<p style="margin-top:0px;">{_escape(by)}</p>'] if by else []),
        f'<p style="{_muted(colours)} margin-top:0px;">Added '
        f'{_escape(local_datetime(paper.added_at))} &nbsp;·&nbsp; #{paper.id}</p>',
        *_abstract_parts(paper, terms, colours, "line-height:135%; margin-top:12px;"),
    ]
    parts += _links_and_sources(paper, colours)
    return "<html><body>" + "\n".join(parts) + "</body></html>"
