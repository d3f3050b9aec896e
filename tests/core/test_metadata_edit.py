"""``Library.edit_paper_metadata``: metadata and citation key saved together, as one undo
step (the window's metadata editor), and ``proposed_citation_key`` from unsaved
metadata (its Regenerate button)."""

from __future__ import annotations

import pytest

from paperdesk.core.metadata import MetadataError
from paperdesk.core.models import Author, Metadata


def _state(lib, pid):
    return lib.metadata(pid), lib.citation_key(pid)


def test_metadata_and_key_are_one_undo_step(seeded_library):
    lib = seeded_library
    pid = lib.paper_ids()[0]
    before = _state(lib, pid)
    meta = Metadata(authors=(Author("Doe", "Jane"),), date="2023", doi="10.1234/abc")
    changes = lib.edit_paper_metadata(pid, meta, key="doe2023mine")
    assert set(changes.fields) == {"metadata", "citation_key"}
    assert changes.papers == frozenset({pid})
    assert _state(lib, pid) == (meta, "doe2023mine")
    assert lib.undo_label == "Edit metadata"
    lib.undo()
    assert _state(lib, pid) == before
    assert lib.undo_label != "Edit metadata"       # one step undid both
    lib.redo()
    assert _state(lib, pid) == (meta, "doe2023mine")


def test_key_only_and_nothing_changed(seeded_library):
    lib = seeded_library
    pid = lib.paper_ids()[1]
    meta = lib.metadata(pid)
    assert not lib.edit_paper_metadata(pid, meta)                      # nothing differs
    assert not lib.edit_paper_metadata(pid, meta, lib.citation_key(pid))
    changes = lib.edit_paper_metadata(pid, meta, key="my-own-key")
    assert set(changes.fields) == {"citation_key"}
    assert lib.undo_label == "Edit citation key"


def test_refused_key_or_metadata_changes_nothing(seeded_library):
    lib = seeded_library
    p1, p2 = lib.paper_ids()[:2]
    taken = lib.citation_key(p1)
    before = _state(lib, p2)
    label = lib.undo_label
    with pytest.raises(MetadataError, match="citation key"):
        lib.edit_paper_metadata(p2, Metadata(date="2020"), key=taken.upper())
    with pytest.raises(MetadataError, match="^doi:"):
        lib.edit_paper_metadata(p2, Metadata(doi="10.1/x"), key="fine")
    assert _state(lib, p2) == before
    assert lib.undo_label == label


def test_proposed_key_from_unsaved_metadata(seeded_library):
    lib = seeded_library
    pid = lib.paper_ids()[2]
    stored = lib.proposed_citation_key(pid)
    typed = Metadata(authors=(Author("Müller", "Jörg"),), date="2021-03")
    key = lib.proposed_citation_key(pid, typed)
    assert key.startswith("muller2021") and key != stored
    assert lib.metadata(pid) == Metadata()            # nothing was stored
