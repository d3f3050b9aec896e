"""``proposed_citation_key(pid, meta)``: the key that metadata not yet saved would give
(the metadata editor's Regenerate button); nothing is stored."""

from __future__ import annotations

from paperdesk.core.models import Author, Metadata


def test_proposed_key_from_unsaved_metadata(seeded_library):
    lib = seeded_library
    pid = lib.papers.ids()[2]
    key = lib.papers.citation_key(pid)
    stored = lib.papers.proposed_citation_key(pid)
    typed = Metadata(authors=(Author("Müller", "Jörg"),), date="2021-03")
    proposed = lib.papers.proposed_citation_key(pid, typed)
    assert proposed.startswith("muller2021") and proposed != stored
    assert lib.papers.metadata(pid) == Metadata() and lib.papers.citation_key(pid) == key


def test_proposed_key_is_made_unique_against_other_papers(seeded_library):
    lib = seeded_library
    p1, p2 = lib.papers.ids()[:2]
    typed = Metadata(authors=(Author("Doe", "Jane"),), date="2023")
    lib.papers.set_citation_key(p1, lib.papers.proposed_citation_key(p2, typed))   # p1 takes it
    assert lib.papers.proposed_citation_key(p2, typed) == lib.papers.citation_key(p1) + "a"
