"""Key terms of papers in other languages (issue 25 item 13): after importing German
BibTeX, "der" and "die" topped a paper's key terms. A paper's language is told from its
function words, and those are not terms; English papers keep every word they had."""

from __future__ import annotations

import re

from paperdesk.core.discover.vectorize import (LANGUAGE_STOP_WORDS, TOKEN_PATTERN,
                                               language_stop_words, paper_text)

_WORD = re.compile(TOKEN_PATTERN)

GERMAN = r"""
@article{alterung2019,
  title = {Die Alterung der Gesellschaft und der Generationenkonflikt in Europa},
  abstract = {Die Alterung der Gesellschaft ist eine der großen Fragen der Zeit. Wir
    untersuchen, wie die Renten und die Pflege in den Ländern der Union mit der
    Alterung umgehen, und zeigen, dass die Generationen in der Frage der Renten nicht
    so weit auseinander liegen, wie es die Debatte in den Medien nahelegt.},
  year = 2019,
}
@article{extraktion2020,
  title = {Regelbasierte Extraktion und asymmetrische Fusion bibliographischer Daten},
  abstract = {Die Extraktion bibliographischer Daten aus den Dokumenten der Bibliotheken
    ist eine Aufgabe, die mit Regeln und mit der Fusion der Quellen gelöst wird. Wir
    zeigen, dass die Fusion der Daten aus den Quellen die Qualität der Extraktion in
    der Praxis deutlich erhöht und die Renten der Pflege nicht berührt.},
  year = 2020,
}
"""


def test_german_function_words_are_not_key_terms(seeded_library, tmp_path):
    lib = seeded_library
    bib = tmp_path / "deutsch.bib"
    bib.write_text(GERMAN, encoding="utf-8")
    report = lib.imports.run([bib])
    assert report.added == 2
    lib.discover.ensure()
    german = LANGUAGE_STOP_WORDS["de"]
    for key in ("alterung2019", "extraktion2020"):
        pid = lib.papers.for_key(key)
        terms = [t.term for t in lib.discover.key_terms(pid, limit=10)]
        assert terms, key
        assert not german & set(terms), (key, terms)
    # the content words they share still relate them
    alterung = lib.papers.for_key("alterung2019")
    shared = {t.term for t in lib.discover.key_terms(alterung, limit=1000)}
    assert {"renten", "pflege"} <= shared


def test_no_english_paper_is_taken_for_another_language(seeded_library):
    """The 225 English seed abstracts keep every word: none is read as German, French,
    Spanish, Italian, Portuguese or Dutch."""
    rows = seeded_library.db.execute("SELECT title, abstract FROM papers").fetchall()
    assert len(rows) == 225
    taken = [title for title, abstract in rows
             if language_stop_words(_WORD.findall(paper_text(title, abstract).lower()))]
    assert taken == []
