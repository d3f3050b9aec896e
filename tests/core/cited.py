"""A library to cite from, for the tests of what other programs read in the exports: the
225 seed papers, authors, dates, venues, types, DOIs and arXiv ids on a few of them, and
papers, tags, notes, highlights and names full of hostile text (lone braces, LaTeX
specials, quotes, dashes, ellipses, Greek and mathematical letters, CJK, emoji, URLs
with ``%`` and ``#``). Written for these tests; the strings are paperdesk's own.
"""

from __future__ import annotations

from pathlib import Path

from helpers import write_daily
from paperdesk.core.library import Library
from paperdesk.core.models import Author, Metadata

#: Abstracts that exercise every rule of the BibTeX escaping policy (one paragraph each).
#: pdflatex typesets all but :data:`UNICODE_ONLY`.
HOSTILE = [
    "Lone braces: this } closes nothing and this { opens nothing, while {paired} braces "
    "and \\textbf{markup} stay as typed.",
    "LaTeX specials & % $ # _ ~ ^ \\ and a literal \\n, 100% sure, C# and a_b, x^2 ~ y, "
    "$5 and 50% off.",
    "Quotes: straight \"double\" and curly “double” and ‘single’, 5\" screens, "
    ",,low quotes, «guillemets», plus a lone \" here.",
    "Dashes and dots: en – em — ellipsis … and ASCII -- and --- and flags --all, "
    "a range 1-2 and a minus -3.",
    "Money € 5 and £ 3 and ¥ 7, ± 2 and 3 × 4 at 20 °C; Greek ε μ α β Θ Ω φ ϕ ϑ and αβγ.",
    "Links https://example.org/a%20b?x=1&y=2#frag and <angle> | pipe @mention, "
    "¡hola! ¿qué? << >> and a_b.",
    "Accents: café, naïve, Zoë, Ñúñez, Łódź, Dvořák, Øre, Straße and Ærøskøbing.",
]
#: Text that needs a Unicode TeX engine (XeLaTeX, LuaLaTeX) to be typeset: mathematical
#: symbols, Greek text and letters without a LaTeX macro, CJK, emoji, ligature
#: characters. Every BibTeX reader must still read it.
UNICODE_ONLY = ("Math ∑ ≤ ≥ ∞ → ∈ ℝ, Υ and ϱ, Greek text Σωκράτης, CJK 深度学习 and "
                "日本語のテキスト, Korean 한국어, emoji 🤖🎉, a flag 🇫🇷 and the ﬁ ligature.")
#: What pandoc cannot get back from BibTeX as written (see
#: ``paperdesk.core.exports.latex``): its BibTeX reader makes straight single quotes and
#: backticks curly, and TeX's quote pairs into nested quotations.
STRAIGHT_QUOTES = ("Straight 'single' quotes, it's and `back` ticks, ``TeX quotes'' "
                   "and !` ?` marks.")

#: Hostile tag names, notes and highlight comments.
HOSTILE_TAGS = ["R&D_50%", "a{b}c", "x~y^z"]
#: A tag only the :data:`UNICODE_ONLY` paper has.
UNICODE_TAG = "日本語 🤖"
HOSTILE_NOTE = ("TODO: check the {unbalanced brace and 100% of $costs$ & more\n\n"
                "Highlight: this line looks like a CSL variable too.\n"
                "Second line — with “quotes” and a ‘quote’ … and --flags.")
HOSTILE_COMMENT = "Greek μ & “quoted” — really} odd"

#: Own metadata given to the first seed papers: (metadata, expected entry type).
SEED_METADATA = [
    Metadata(authors=(Author("Doe", "Jane"), Author("van der Berg", "Jan")),
             date="2023-05-17", venue="Nature Machine Intelligence", entry_type="article",
             doi="10.1038/s42256-023-00001-x"),
    Metadata(authors=(Author("Smith", "John Q."), Author("Lee", "Ann")), date="2022-12",
             arxiv_id="2212.08630"),
    Metadata(authors=(Author("World Health Organization"),), date="2021",
             entry_type="report", venue="WHO Press",
             url="https://www.who.int/publications/i/item/a%20b?lang=en#part-2"),
    Metadata(authors=(Author("Müller", "Zoë"), Author("Ñúñez", "José"),
                      Author("O'Brien", "Seán")),
             date="2020-01-02", entry_type="inproceedings",
             venue="Advances in Neural Information Processing Systems"),
    Metadata(authors=(Author("Knuth", "Donald E."),), date="1984", entry_type="book",
             venue="Addison-Wesley"),
    Metadata(authors=(Author("Curie", "Marie"),), date="1903", entry_type="thesis",
             venue="Université de Paris"),
    Metadata(authors=(Author("Turing", "Alan M."),), date="1950-10", entry_type="incollection",
             venue="Computers & Thought", doi="10.1093/mind/LIX.236.433"),
    # A conference paper with a year alone (citation-js read its PY as the event's date).
    Metadata(authors=(Author("Ng", "Andrew"),), date="2023", entry_type="inproceedings",
             venue="NeurIPS"),
]
#: Metadata with hostile text for the hostile papers (alternately).
HOSTILE_METADATA = [
    Metadata(authors=(Author("Dupont & Fils", "A. {B}"), Author("{Acme} Labs & Co")),
             date="2024-02-29", venue="Proc. of R&D_50% ~ Conference",
             entry_type="inproceedings", doi="10.1000/a_b%20c#d"),
    Metadata(authors=(Author("O'Neil", "Cathy"), Author("de la Fuente", "José María")),
             date="2019", venue="Journal of “Quotes” — and … dashes", entry_type="article",
             arxiv_id="hep-th/9901001"),
]
#: Metadata of the :data:`UNICODE_ONLY` paper.
UNICODE_METADATA = Metadata(authors=(Author("Σωκράτης", "Ὁ"), Author("毛", "泽东")),
                            date="2018-07", venue="数学 ∑ Letters", entry_type="article",
                            url="https://example.org/数学?q=∑#§")


def build(folder: Path, seed_files: list[Path]) -> Library:
    """Build the library in ``folder`` and return it open.

    Its ``cited`` attribute holds ``{"seed": [ids with metadata], "hostile": [ids of
    HOSTILE], "unicode": id, "quotes": id}``.
    """
    lib = Library.open(folder / "lib")
    lib.imports.run(seed_files)
    seeds = lib.papers.ids()[:len(SEED_METADATA)]
    for pid, meta in zip(seeds, SEED_METADATA):
        lib.papers.set_metadata(pid, meta)
        lib.papers.regenerate_citation_key(pid)
    texts = HOSTILE + [UNICODE_ONLY, STRAIGHT_QUOTES]
    lib.imports.run([write_daily(folder / "hostile.txt", texts, header="Hostile ~ {text}")])
    added = lib.papers.ids()[-len(texts):]
    hostile, unicode_only, quotes = added[:len(HOSTILE)], added[-2], added[-1]
    for n, pid in enumerate(hostile):
        lib.papers.set_metadata(pid, HOSTILE_METADATA[n % len(HOSTILE_METADATA)])
        lib.papers.regenerate_citation_key(pid)
    lib.papers.set_metadata(unicode_only, UNICODE_METADATA)
    lib.papers.regenerate_citation_key(unicode_only)
    for tag in HOSTILE_TAGS:
        lib.tags.add(hostile + [unicode_only], tag)
    lib.tags.add([unicode_only], UNICODE_TAG)
    lib.notes.set(unicode_only, "Note with 日本語, ∑ and 🤖.")
    lib.tags.add(seeds, "to read")
    lib.notes.set(hostile[0], HOSTILE_NOTE)
    lib.notes.set(seeds[0], "Read the method section first.")
    for pid in hostile[:3] + seeds[:2]:
        abstract = lib.papers.get(pid).abstract
        lib.notes.add_highlight(pid, 0, min(24, len(abstract)), comment=HOSTILE_COMMENT)
    lib.cited = {"seed": seeds, "hostile": hostile, "unicode": unicode_only,
                 "quotes": quotes}
    return lib
