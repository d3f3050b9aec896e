"""Turning what the user typed into a Whoosh query, safely. Pure: no database, no Qt.

The query language (documented in docs/search.md and the app's help):

- plain words: all must match (``depth estimation``); title, abstract, note and highlight
  comments are searched, the title weighted twice;
- ``"a phrase"``: the words in this order, matched exactly as written (no stemming:
  ``"university"`` does not find "universe");
- ``AND``, ``OR``, ``NOT``, ``-word``, ``( … )``;
- ``transf*`` (prefix), ``netwrk~`` (fuzzy: one edit away; ``~2`` for two);
- fields: ``title:``, ``abstract:``, ``note:``, ``comment:`` (highlight comments),
  ``tag:"to read"``, ``source:`` (file name, its stem or its header line);
- the paper's own metadata: ``author:doe`` (``author:"jane doe"``; plain words search
  authors too), ``year:2023``, ``year:2020..2024`` (also ``2020..`` and ``..2024``),
  ``venue:``, ``doi:10.1145/3442188.3445922``, ``arxiv:2212.08630``, ``key:`` (citation
  key), ``publisher:``, ``language:``, ``isbn:``, ``issn:``; ``mentions:`` finds DOIs, arXiv ids and links that the abstract mentions;
- when a paper was added (local dates): ``added:2026-11-23`` (that day),
  ``added:2026-11-23..2026-11-29`` (both days included), ``added:2026-11`` (a month),
  ``added:2026``, ``added:2026-11-23..`` and ``added:..2026-11-29``; answered from
  SQLite, not the index (:attr:`QueryPlan.added`, applied by ``lib.search.find``);
- filters: ``is:read``, ``is:unread``, ``is:starred``, ``has:note``, ``has:highlight``,
  ``has:code`` (the abstract links to a code host such as GitHub), ``has:tag``,
  ``has:author``, ``has:year``, ``has:doi``, ``has:arxiv``.

Whatever is typed gives a query or a calm explanation (:attr:`QueryPlan.message`), never
an exception. Text is normalised to Unicode NFC first, so a query typed in decomposed form
finds composed text; accents and case are folded by the index analyzer.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from dataclasses import dataclass, field

from whoosh import qparser
from whoosh import query as wq
from whoosh.qparser import syntax

from paperdesk.core.fields import default_search_fields, search_fields
from paperdesk.core.search.fastscore import expand_words
from paperdesk.core.search.words import IDEOGRAPHS
from paperdesk.core.text import normalize

__all__ = ["QueryPlan", "QueryBuilder", "FILTER_WORDS", "MAX_QUERY_CHARS", "MAX_EXPANSIONS",
           "SEARCH_FIELDS", "DEFAULT_FIELDS", "MEANING_PREFIX", "meaning_text"]

#: A UTF-16 surrogate code point on its own (never valid in UTF-8 text).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

#: Longest query accepted, in characters (after normalisation).
MAX_QUERY_CHARS = 1000
#: Most index words a prefix or fuzzy term may stand for before it is refused.
MAX_EXPANSIONS = 2000
#: Fields the user may name with ``field:`` (from :mod:`.fields`).
SEARCH_FIELDS = search_fields()
#: Fields searched by words without a field prefix (from :mod:`.fields`).
DEFAULT_FIELDS = default_search_fields()
#: Fields whose words are stemmed (a phrase in them is matched in ``exact`` instead).
STEMMED_FIELDS = ("title", "abstract", "note", "comment")
#: ``is:`` / ``has:`` filters and the ``flags`` token each stands for.
FILTER_WORDS = {
    "is:read": "read", "is:unread": "unread", "is:starred": "starred",
    "is:unstarred": "unstarred", "has:note": "note", "has:highlight": "highlight",
    "has:code": "code", "has:tag": "tagged", "has:author": "author", "has:year": "year",
    "has:doi": "doi", "has:arxiv": "arxiv",
}
#: Fields whose value is one identifier (a DOI, an arXiv id, a citation key, an ISBN or
#: ISSN): searched as written, hyphens, dots and slashes included.
ID_FIELDS = ("doi", "arxiv", "key", "mentions", "isbn", "issn")
#: The widest ``year:`` range expanded into years.
MAX_YEAR_SPAN = 200
_OPERATORS = {"AND", "OR", "NOT"}

# Quoted phrases, or runs of other characters.
_CHUNK_RE = re.compile(r'"[^"]*"?|[^"]+')
_FILTER_RE = re.compile(r"(?<![\w:])(is|has):(\w*)", re.IGNORECASE)
#: Two or more ideographs in a row (with the field before them, if any), the whole run
#: (never split), with a ``*`` or ``~`` after it dropped: each ideograph is a whole
#: index word, so ``深度*`` (a new user's try, which found nothing) and ``深度~`` mean the
#: run itself. A ``?`` after it (a one-letter wildcard) leaves the run as typed.
_IDEOGRAPH_RUN_RE = re.compile(
    rf"((?<![\w:])\w+:)?([{IDEOGRAPHS}]{{2,}})(?:\*+|~\d*(?:\.\d+)?)?(?![?{IDEOGRAPHS}])")
# A filter's place in the text while the other rewrites run (no spaces around it, so
# that "-is:read" and "NOT is:read" keep their sign); it becomes "flags:<token>".
_FILTER_MARK_RE = re.compile("\x01(\\w+)\x01")
# "-word" at the start of a word (not "state-of-the-art"): NOT, which Whoosh's parser
# applies on its own too ("-healthy" alone, "is:unread -tag:x"), where its minus sign
# with no positive clause beside it was dropped or matched nothing. Also before a phrase
# the rewrites made inside the chunk (an unquoted run of ideographs: "-推定" was
# dropped, and the search found the papers it was meant to leave out).
_MINUS_RE = re.compile(r"(?<![^\s(])-(?=[\w\x01(\"])")
# a "-" that ends a chunk of words, before a "phrase": NOT too
_MINUS_BEFORE_PHRASE_RE = re.compile(r"(?:^|(?<=[\s(]))-$")
_FIELD_RE = re.compile(r"(?<![\w:])(\w+):(\s*)")
_HYPHEN_RE = re.compile(r"(?<![\w\-*~])(\w+(?:-\w+)+)(?![\w*~])")
_LEADING_WILD_RE = re.compile(r"(?<![\w:*?])[*?]+\S*")
# a word of a quoted phrase with a * in it ("?" ends questions: left alone)
_PHRASE_WILD_RE = re.compile(r"[^\s\"*]*\w[^\s\"]*\*[^\s\"]*|\*+\w[^\s\"]*")
# "res**": repeated stars after a word are one ("res*"), not a word starting with *
_STARS_RE = re.compile(r"(?<=[\w?])\*{2,}")
_ID_FIELD_RE = re.compile(r"(?<![\w:])(" + "|".join(ID_FIELDS) + r"):([^\s()\"]+)",
                          re.IGNORECASE)
_YEAR_RE = re.compile(r"(?<![\w:])year:([^\s()\"]*)", re.IGNORECASE)
_YEAR_VALUE_RE = re.compile(r"(\d{4})?(\.\.)?(\d{4})?")
_ADDED_RE = re.compile(r"(?<![\w:])(-|NOT\s+)?added:([^\s()\"]*)", re.IGNORECASE)
_DAY = r"\d{4}(?:-\d{1,2}(?:-\d{1,2})?)?"
_ADDED_VALUE_RE = re.compile(rf"({_DAY})?(\.\.)?({_DAY})?")
#: What a refused ``added:`` value is answered with.
_ADDED_HINT = "write added:2026-11-23, added:2026-11-23..2026-11-29 or added:2026-11"


def _day_bounds(text: str) -> tuple[_dt.date, _dt.date]:
    """First and last day of ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``; ValueError if
    there is no such day."""
    parts = [int(p) for p in text.split("-")]
    if len(parts) == 3:
        day = _dt.date(*parts)
        return day, day
    if len(parts) == 2:
        first = _dt.date(parts[0], parts[1], 1)
        return first, first.replace(day=calendar.monthrange(parts[0], parts[1])[1])
    return _dt.date(parts[0], 1, 1), _dt.date(parts[0], 12, 31)


def _added_range(value: str) -> tuple[_dt.date | None, _dt.date | None] | None:
    """``(first, last)`` local days of an ``added:`` value (``None`` for an open end),
    or ``None`` when the value is not one."""
    found = _ADDED_VALUE_RE.fullmatch(value)
    if not value or not found or not (found.group(1) or found.group(3)) or (
            found.group(2) is None and found.group(3)):
        return None
    low, dots, high = found.groups()
    try:
        low_days = _day_bounds(low) if low else None
        high_days = _day_bounds(high) if high else None
    except ValueError:
        return None
    if dots is None:
        return low_days
    first = low_days[0] if low_days else None
    last = high_days[1] if high_days else None
    if first is not None and last is not None and first > last:
        first, last = (high_days[0], low_days[1])
    return first, last


@dataclass
class QueryPlan:
    """The outcome of reading a query.

    Attributes:
        text: the normalised query text.
        query: the Whoosh query to run, or ``None`` when there is nothing to search.
        flags: the filter tokens the query names (see :data:`FILTER_WORDS`); they are
            ``flags:`` terms inside :attr:`query`, where ``NOT``, ``-`` and ``OR``
            apply to them (kept here to tell which fields a query asks for).
        message: a one-line, calm explanation for the user when part of the input was
            ignored or the query was refused; ``""`` otherwise.
        added: ``(first, last)`` local days every hit was added within (both included;
            ``None`` for an open end), from ``added:`` (several are intersected), or
            ``None``. The index does not hold the date: ``lib.search.find`` applies it.
    """

    text: str
    query: wq.Query | None = None
    flags: list[str] = field(default_factory=list)
    message: str = ""
    added: tuple[_dt.date | None, _dt.date | None] | None = None


def _wild_meaning(word: str) -> str:
    """What ``word`` (with a ``*``) finds outside quotes, for a note: ``"the words
    starting with “stud”"`` for ``stud*``, ``"the words it matches"`` for ``st*dy``,
    ``"nothing (a word cannot start with *)"`` for ``*dy``."""
    stem = word.rstrip("*")
    if word.startswith(("*", "?")):
        return "nothing (a word cannot start with * or ?)"
    if word.endswith("*") and "*" not in stem and "?" not in stem:
        return f"the words starting with “{stem}”"
    return "the words it matches"


def _intersect(ranges: list[tuple[_dt.date | None, _dt.date | None]]
               ) -> tuple[_dt.date | None, _dt.date | None]:
    """The days every range covers (an empty range when they do not meet: first after
    last, which matches nothing)."""
    firsts = [r[0] for r in ranges if r[0] is not None]
    lasts = [r[1] for r in ranges if r[1] is not None]
    return (max(firsts) if firsts else None, min(lasts) if lasts else None)


class _ExactPhrasePlugin(qparser.Plugin):
    """Sends phrases to the unstemmed ``exact`` field, so they match words as written.

    ``exact`` holds the title, abstract, note and comments together (the only field with
    positions), so a phrase given a field (``title:"neural network"``, and ``title:深度``,
    an unquoted run of ideographs being a phrase) also needs each of its words in that
    field: ``exact:"neural network" AND title:neural AND title:network``. Before, the
    field was dropped and the phrase matched in any of them (a tester's ``title:网络``
    listed papers with 网络 in the abstract only)."""

    def filters(self, parser):
        # After explicit fields are assigned (priority 100), before unfielded nodes are
        # copied to every default field (110).
        return [(self._exact, 105)]

    def _exact(self, parser, group):
        for i, node in enumerate(group):
            if isinstance(node, syntax.GroupNode):
                self._exact(parser, node)
            elif isinstance(node, qparser.PhrasePlugin.PhraseNode):
                field = node.fieldname
                if field is None or field in STEMMED_FIELDS:
                    node.set_fieldname("exact", override=True)
                if field in STEMMED_FIELDS and "exact" in parser.schema:
                    words = []
                    for token in parser.schema["exact"].tokenize(node.text, mode="query"):
                        word = syntax.WordNode(token.text)
                        word.set_fieldname(field, override=True)
                        word.startchar, word.endchar = node.startchar, node.endchar
                        words.append(word)
                    if words:
                        group[i] = syntax.AndGroup([node, *words])
        return group


class _TypedPrefix(wq.Or):
    """``Or([Prefix(field, typed), Term(field, stem)])``: one prefix as typed, refused
    (:meth:`QueryBuilder._limit_expansions`) as a whole. The term is the whole word
    typed: a paper with it scores it beside its prefix match, so "café" itself counts
    more for ``café*`` than its longer expansions ("cafeteria"), each scored as a word
    of its own (a rare expansion in a short text outranked the word typed)."""


class _Parser(qparser.QueryParser):
    """Whoosh's parser, except that a prefix in a stemmed field is matched as typed.

    Whoosh stems a prefix like a word, so ``res*`` searched the stems starting ``re``
    (reduce, retrieval). Here ``res*`` matches the index words that start with ``res``
    as typed (accent-folded and lower-cased) or that are the typed word's stem
    (``studies*`` → ``studi``, the stem of "study" and "studies"), the whole word
    scored once more (:class:`_TypedPrefix`)."""

    def term_query(self, fieldname, text, termclass, boost=1.0, tokenize=True,
                   removestops=True):
        """As Whoosh's (:meth:`whoosh.qparser.QueryParser.term_query`); a ``Prefix`` in
        one of :data:`STEMMED_FIELDS` becomes ``Or([Prefix(field, typed), Term(field,
        stem)])`` (:class:`_TypedPrefix`; ``stem`` is the typed text when it is its own
        stem: ``café*`` → ``Or([Prefix(f, "cafe"), Term(f, "cafe")])``)."""
        q = super().term_query(fieldname, text, termclass, boost, tokenize, removestops)
        if termclass is not wq.Prefix or fieldname not in STEMMED_FIELDS \
                or not isinstance(q, wq.Prefix) or "exact" not in self.schema:
            return q
        typed = list(self.schema["exact"].process_text(text, mode="query", tokenize=tokenize,
                                                       removestops=False))
        if len(typed) != 1:
            return q
        whole = wq.Term(fieldname, q.text, boost=boost)
        # Whoosh's parser merges this Or into the Or around it: the term remembers its
        # prefix, so that a refused prefix takes it along (QueryBuilder._limit_expansions)
        whole.typed_prefix = typed[0]
        return _TypedPrefix([wq.Prefix(fieldname, typed[0], boost=boost), whole])


class QueryBuilder:
    """Builds :class:`QueryPlan` objects for one index schema.

    Args:
        schema: the Whoosh schema (must have the :data:`DEFAULT_FIELDS`, ``exact`` and
            ``flags`` fields).
    """

    def __init__(self, schema):
        self.schema = schema
        # Whoosh's MultifieldParser is a function: the same parser built by hand
        self._parser = _Parser(None, schema, group=qparser.AndGroup)
        self._parser.add_plugin(qparser.MultifieldPlugin(list(DEFAULT_FIELDS)))
        self._parser.add_plugin(qparser.FuzzyTermPlugin())
        # "+word" / "-word" only at the start of a word, so "C++" stays a word.
        self._parser.add_plugin(qparser.PlusMinusPlugin(plusexpr=r"(?<![^\s(])\+(?=\w)",
                                                        minusexpr=r"(?<![^\s(])-(?=\w)"))
        self._parser.add_plugin(_ExactPhrasePlugin())
        self._parser.remove_plugin_class(qparser.EveryPlugin)   # "*:*" would list all
        self._parser.remove_plugin_class(qparser.RangePlugin)    # no ranges on text
        self._parser.remove_plugin_class(qparser.BoostPlugin)    # "^" is rarely meant

    # -- text clean-up -------------------------------------------------------------------
    def _clean(self, text: str, notes: list[str], flags: list[str],
               added: list | None = None) -> str:
        out = []
        for chunk in _CHUNK_RE.findall(text):
            if chunk.startswith('"'):
                body = chunk.strip('"').strip()
                wild = _PHRASE_WILD_RE.search(body)
                if wild:
                    # As in JabRef's (Lucene's) and Zotero's searches, a phrase is
                    # literal: said, since the phrase then rarely matches anything.
                    word = _STARS_RE.sub("*", wild.group(0))
                    notes.append(f"a * inside quotes is not a wildcard: "
                                 f"“\"{body}\"” is searched as the words written; "
                                 f"without the quotes, {word} finds "
                                 f"{_wild_meaning(word)}")
                if body:
                    if out:     # -"a phrase": NOT "a phrase"
                        out[-1] = _MINUS_BEFORE_PHRASE_RE.sub("NOT ", out[-1])
                    out.append(f'"{body}"')  # an unbalanced quote closes at the end
                continue
            out.append(self._clean_words(chunk, notes, flags, added))
        return "".join(out)

    def _clean_words(self, chunk: str, notes: list[str], flags: list[str],
                     added: list | None = None) -> str:
        def take_filter(m: re.Match) -> str:
            key = f"{m.group(1).lower()}:{m.group(2).lower()}"
            if key in FILTER_WORDS:
                flags.append(FILTER_WORDS[key])
                return f"\x01{FILTER_WORDS[key]}\x01"   # in the query: NOT, OR, ( )
            notes.append(f"unknown filter “{m.group(0)}” ignored (try "
                         + ", ".join(sorted(FILTER_WORDS)) + ")")
            return " "

        chunk = _FILTER_RE.sub(take_filter, chunk)
        # Identifiers and years become quoted words here, so that the rewrites below
        # (hyphenated words, fields) leave them alone.
        held: list[str] = []

        def hold(text: str) -> str:
            held.append(text)
            return f" \x00{len(held) - 1}\x00 "

        def take_id(m: re.Match) -> str:
            value = m.group(2).lower()
            if m.group(1).lower() == "doi":
                value = re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", value)
            elif m.group(1).lower() == "arxiv":
                value = re.sub(r"^(https?://arxiv\.org/(abs|pdf)/|arxiv:)", "", value)
            else:   # mentions: the id, whichever way the abstract or the pane wrote it
                value = re.sub(r"^(arxiv:|doi:)", "", value)
                if re.fullmatch(r"\d{4}\.\d{4,5}v\d+", value):
                    value = value.rsplit("v", 1)[0]
            return hold(f'{m.group(1).lower()}:"{value}"')

        chunk = _ID_FIELD_RE.sub(take_id, chunk)
        # A run of ideographs typed without quotes is a word of a language written
        # without spaces ("深度推定"): its characters side by side, as a phrase (Lucene's
        # autoGeneratePhraseQueries); each character is an index word (.words).
        chunk = _IDEOGRAPH_RUN_RE.sub(
            lambda m: hold(f'{m.group(1) or ""}"{m.group(2)}"'), chunk)

        def take_year(m: re.Match) -> str:
            value = m.group(1)
            found = _YEAR_VALUE_RE.fullmatch(value)
            if not value or not found or not (found.group(1) or found.group(3)) or (
                    found.group(2) is None and found.group(3)):
                notes.append(f"“{m.group(0)}” ignored: write year:2023 or year:2020..2024")
                return " "
            low, dots, high = found.groups()
            if dots is None:
                return hold(f"year:{low}")
            low_n = int(low) if low else int(high) - MAX_YEAR_SPAN
            high_n = int(high) if high else int(low) + MAX_YEAR_SPAN
            if low_n > high_n:
                low_n, high_n = high_n, low_n
            if high_n - low_n > MAX_YEAR_SPAN:
                notes.append(f"“{m.group(0)}” narrowed to {MAX_YEAR_SPAN} years")
                high_n = low_n + MAX_YEAR_SPAN
            return hold("(" + " OR ".join(f"year:{y}" for y in range(low_n, high_n + 1))
                        + ")")

        chunk = _YEAR_RE.sub(take_year, chunk)

        def take_added(m: re.Match) -> str:
            found = _added_range(m.group(2))
            if m.group(1):
                notes.append(f"“{m.group(0)}” ignored: an added: range cannot be left "
                             "out; write the days wanted instead (added:..2026-11-22, "
                             "added:2026-11-30..)")
            elif found is None:
                notes.append(f"“{m.group(0)}” ignored: {_ADDED_HINT}")
            elif added is not None:
                added.append(found)
            return " "

        chunk = _ADDED_RE.sub(take_added, chunk)

        def fix_field(m: re.Match) -> str:
            name = m.group(1)
            if name.lower() in SEARCH_FIELDS:
                return f"{name.lower()}:"      # "title: depth" -> "title:depth"
            return f"{name} "                  # unknown field: search the word itself

        chunk = _FIELD_RE.sub(fix_field, chunk)

        def drop_wild(m: re.Match) -> str:
            notes.append(f"“{m.group(0)}” ignored: a word cannot start with * or ?")
            return " "

        chunk = _LEADING_WILD_RE.sub(drop_wild, _STARS_RE.sub("*", chunk))
        # Hyphenated words: prefer them adjacent, accept them apart.
        chunk = _HYPHEN_RE.sub(
            lambda m: f'("{m.group(1).replace("-", " ")}" OR ({m.group(1).replace("-", " AND ")}))',
            chunk)
        chunk = re.sub(r" \x00(\d+)\x00 ", lambda m: held[int(m.group(1))], chunk)
        chunk = _MINUS_RE.sub("NOT ", chunk)
        return _FILTER_MARK_RE.sub(r"flags:\1", chunk)

    @staticmethod
    def _trim_operators(text: str) -> str:
        # Leading/trailing AND/OR/NOT and doubled operators would otherwise be searched as
        # the words "and"/"or"/"not". Dropped tokens become spaces; the rest is untouched.
        # "NOT NOT x" is x: two NOTs in a row cancel (both dropped).
        tokens = list(re.finditer(r'"[^"]*"|\(|\)|[^\s()"]+', text))
        keep = [True] * len(tokens)
        kept: list[int] = []  # indexes of the tokens kept so far
        for n, m in enumerate(tokens):
            tok = m.group(0)
            last = tokens[kept[-1]].group(0) if kept else None
            if tok == "NOT" and last == "NOT":
                keep[n] = keep[kept.pop()] = False
                continue
            if tok in _OPERATORS and (last is None or last in _OPERATORS or last == "("):
                if tok != "NOT":
                    keep[n] = False
                    continue
            if tok == ")" and last in _OPERATORS:
                keep[kept.pop()] = False
            kept.append(n)
        for n in range(len(tokens) - 1, -1, -1):  # trailing operators
            if not keep[n]:
                continue
            if tokens[n].group(0) in _OPERATORS:
                keep[n] = False
            else:
                break
        out, pos = [], 0
        for m, kept in zip(tokens, keep):
            out.append(text[pos:m.start()])
            out.append(m.group(0) if kept else " ")
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)

    # -- public --------------------------------------------------------------------------
    def plan(self, text: str, reader=None) -> QueryPlan:
        """Read a query.

        Args:
            text: what the user typed (any string).
            reader: an index reader; when given, prefix and fuzzy terms that stand for
                more than :data:`MAX_EXPANSIONS` index words are refused politely.
        Returns:
            A :class:`QueryPlan`; its ``query`` is ``None`` when there is nothing to run
            (and ``message`` says why, unless the input was blank).
        """
        # A lone surrogate (a command-line argument that was not UTF-8, decoded with
        # surrogateescape) cannot be encoded for the index: it stands for a character
        # no paper holds, as U+FFFD does.
        text = _LONE_SURROGATE.sub("\ufffd", normalize(text))
        plan = QueryPlan(text)
        if not text:
            return plan
        if len(text) > MAX_QUERY_CHARS:
            plan.message = (f"Query too long ({len(text)} characters; at most "
                            f"{MAX_QUERY_CHARS}). Try a few distinctive words.")
            return plan
        notes: list[str] = []
        added: list[tuple[_dt.date | None, _dt.date | None]] = []
        cleaned = self._trim_operators(self._clean(text, notes, plan.flags, added))
        if added:
            plan.added = _intersect(added)
            if re.search(r"\bOR\b", text):
                notes.append("added: narrows the whole search (OR does not apply to it)")
        query = None
        if cleaned.strip():
            try:
                query = self._parser.parse(cleaned)
            except Exception:  # noqa: BLE001 - the parser's errors are not documented
                query = None
            if query is None or isinstance(query, type(wq.NullQuery)):
                query = self._plain_words(cleaned)
        if query is not None:
            query = query.accept(self._fuzzy_prefix)
        if query is not None and reader is not None:
            query = self._limit_expansions(query, reader, notes)
        if query is not None:
            # a plain Or from here (the fast scorer runs Or, not its subclasses)
            query = query.accept(lambda q: wq.Or(q.subqueries, boost=q.boost)
                                 if isinstance(q, _TypedPrefix) else q).normalize()
            if isinstance(query, type(wq.NullQuery)):
                query = None
        if query is None and (plan.flags or plan.added is not None):
            query = wq.Every()
        if query is None and not notes:
            notes.append("nothing to search for: type a word")
        plan.query = query
        plan.message = "; ".join(dict.fromkeys(notes))
        return plan

    @staticmethod
    def _fuzzy_prefix(q: wq.Query) -> wq.Query:
        # Fuzzy words keep their first letter (comparing against every word of a large
        # library takes seconds) and allow one or two edits, never more.
        if isinstance(q, wq.FuzzyTerm):
            if q.prefixlength == 0:
                q.prefixlength = 1
            q.maxdist = min(max(q.maxdist, 1), 2)  # "depth~9" would match everything
        return q

    def _plain_words(self, text: str) -> wq.Query | None:
        ana = self.schema["abstract"].analyzer
        words = list(dict.fromkeys(t.text for t in ana(text)))
        if not words:
            return None
        return wq.And([wq.Or([wq.Term(f, w) for f in DEFAULT_FIELDS]) for w in words])

    def _limit_expansions(self, query: wq.Query, reader, notes: list[str]) -> wq.Query | None:
        # A word refused in one field is refused in all: "b*" matched too many words of
        # the abstracts but few enough of the titles, and found the titles alone.
        refused: set[tuple[type, str]] = set()

        def find(q: wq.Query) -> wq.Query:
            if isinstance(q, (wq.Prefix, wq.Wildcard, wq.FuzzyTerm)):
                if (type(q), q.text) not in refused:
                    count = 0
                    for _ in expand_words(q, reader):
                        count += 1
                        if count > MAX_EXPANSIONS:
                            refused.add((type(q), q.text))
                            notes.append(f"“{q.text}{'*' if isinstance(q, wq.Prefix) else '~'}"
                                         "” matches too many words; type more letters")
                            break
                return q
            return q.apply(find)

        def drop(q: wq.Query) -> wq.Query:
            if isinstance(q, _TypedPrefix):     # its stem goes with a refused prefix
                typed = q.subqueries[0]
                return wq.NullQuery if (type(typed), typed.text) in refused else q
            if isinstance(q, (wq.Prefix, wq.Wildcard, wq.FuzzyTerm)):
                return wq.NullQuery if (type(q), q.text) in refused else q
            typed = getattr(q, "typed_prefix", None)     # the whole word of a prefix
            if typed is not None:
                return wq.NullQuery if (wq.Prefix, typed) in refused else q
            return q.apply(drop)

        find(query)
        result = drop(query) if refused else query
        return None if isinstance(result, type(wq.NullQuery)) else result


#: What starts a search by meaning (:mod:`paperdesk.core.discover.meaning`).
MEANING_PREFIX = "~"


def meaning_text(query: str) -> str | None:
    """The text of a search by meaning, or ``None`` when ``query`` is not one.

    Args:
        query: what was typed in the search box.
    Returns:
        The text after the leading ``~`` (stripped; spaces before the ``~`` allowed), or
        ``None`` when the query does not start with ``~``.
    """
    text = query.lstrip()
    return text[len(MEANING_PREFIX):].strip() if text.startswith(MEANING_PREFIX) else None
