"""Undo and redo in the core (no Qt): one step per user action, labels, merges, and
exact reversal checked against the database."""

from __future__ import annotations

import pytest

from paperdesk.core.changes import Changes
from paperdesk.core.models import Author, LibraryError, Metadata
from paperdesk.core.edits.undo import NothingToUndo, UndoStack, UndoStep


def _dump(lib) -> dict:
    """Everything an annotation can change, table by table."""
    q = lambda sql: sorted(lib.db.execute(sql).fetchall())  # noqa: E731
    return {
        "papers": q("SELECT id, title, read_at IS NOT NULL, starred, citation_key, authors, "
                    "date, venue, entry_type, doi, arxiv_id, url FROM papers"),
        "tags": q("SELECT id, name, colour, key FROM tags"),
        "paper_tags": q("SELECT paper_id, tag_id FROM paper_tags"),
        "notes": q("SELECT paper_id, body FROM notes"),
        "highlights": q('SELECT id, paper_id, start, "end", colour, comment FROM highlights'),
        "saved": q("SELECT name, query FROM saved_searches"),
    }


def test_every_kind_of_edit_undoes_to_the_exact_state(seeded_library):
    lib = seeded_library
    p1, p2, p3 = lib.paper_ids()[:3]
    original = _dump(lib)
    edits = [
        lambda: lib.add_tag([p1, p2, p3], "depth"),
        lambda: lib.create_tag("later", key=2),
        lambda: lib.set_tag_key(lib.tag_by_name("depth").id, 2),
        lambda: lib.set_tag_colour(lib.tag_by_name("depth").id, "#123456"),
        lambda: lib.rename_tag(lib.tag_by_name("later").id, "DEPTH"),   # a merge
        lambda: lib.remove_tag([p2], "depth"),
        lambda: lib.set_read([p1, p2], True),
        lambda: lib.set_starred([p3], True),
        lambda: lib.set_title(p1, "A title of my own"),
        lambda: lib.set_note(p2, "first words"),
        lambda: lib.add_highlight(p3, 0, 12, "#a5d8ff"),
        lambda: lib.set_highlight_comment(lib.get(p3).highlights[0].id, "why"),
        lambda: lib.save_search("depth papers", "depth"),
        lambda: lib.rename_saved_search("depth papers", "Depth"),
        lambda: lib.delete_tag(lib.tag_by_name("depth").id),
        lambda: lib.remove_highlight(lib.get(p3).highlights[0].id),
        lambda: lib.delete_saved_search("Depth"),
        lambda: lib.set_metadata(p1, Metadata(authors=(Author("Doe", "Jane"),), date="2021",
                                              doi="10.1000/xyz", arxiv_id="2101.00001")),
        lambda: lib.regenerate_citation_key(p1),
        lambda: lib.set_citation_key(p2, "my-own:key"),
    ]
    states = [original]
    for edit in edits:
        assert isinstance(edit(), Changes)
        states.append(_dump(lib))
    assert len(lib.undo_stack) == len(edits)
    for i in range(len(edits), 0, -1):
        assert lib.undo().replay
        assert _dump(lib) == states[i - 1], f"undo of edit {i}"
    with pytest.raises(NothingToUndo):
        lib.undo()
    for i in range(1, len(edits) + 1):
        lib.redo()
        assert _dump(lib) == states[i], f"redo of edit {i}"
    assert lib.redo_label is None


def test_undone_changes_reach_the_search_index(seeded_library):
    lib = seeded_library
    (p,) = lib.paper_ids()[:1]
    lib.add_tag([p], "capybara")
    lib.set_note(p, "axolotl")
    assert [h.id for h in lib.search("tag:capybara")] == [p]
    lib.undo()
    lib.undo()
    assert lib.search("tag:capybara") == [] and lib.search("axolotl") == []
    lib.redo()
    assert [h.id for h in lib.search("tag:capybara")] == [p]


def test_bulk_tagging_is_one_step_and_undo_deletes_a_created_tag(seeded_library):
    lib = seeded_library
    ids = lib.paper_ids()
    changes = lib.add_tag(ids, "everything")
    assert len(changes.papers) == 225 and len(lib.undo_stack) == 1
    assert lib.undo_label == "Tag 225 papers ‘everything’"
    undone = lib.undo()
    assert lib.tags() == [] and len(undone.papers) == 225
    lib.redo()
    (tag,) = lib.tags()
    assert (tag.name, tag.count, tag.id) == ("everything", 225, next(iter(changes.tags)))


def test_note_saves_of_one_session_merge(seeded_library):
    lib = seeded_library
    p1, p2 = lib.paper_ids()[:2]
    for text in ("d", "de", "dep", "depth"):
        lib.set_note(p1, text, session=1)
    assert len(lib.undo_stack) == 1
    lib.set_note(p1, "depth!", session=2)        # another visit: its own step
    lib.set_note(p2, "other", session=2)         # another paper: its own step
    assert len(lib.undo_stack) == 3
    lib.undo()
    lib.undo()
    assert lib.note(p1) == "depth"
    lib.undo()
    assert lib.note(p1) == "" and len(lib.undo_stack) == 0
    lib.set_note(p1, "x", session=3)
    lib.set_note(p1, "xy", session=3)
    lib.set_note(p1, "", session=3)              # back where it started: no step left
    assert len(lib.undo_stack) == 0 and lib.note(p1) == ""


def test_automatic_mark_read_and_no_ops_are_not_steps(seeded_library):
    lib = seeded_library
    (p,) = lib.paper_ids()[:1]
    assert lib.set_read([p], True, undoable=False).papers == {p}
    assert len(lib.undo_stack) == 0 and lib.get(p).read
    assert not lib.set_read([p], True)           # already read: no change, no step
    assert not lib.set_starred([p], False)
    assert not lib.set_note(p, "")
    assert not lib.set_title(p, lib.get(p).title)
    assert len(lib.undo_stack) == 0


def test_a_new_edit_clears_redo(seeded_library):
    lib = seeded_library
    (p,) = lib.paper_ids()[:1]
    lib.set_starred([p], True)
    lib.undo()
    assert lib.redo_label == "Star paper"
    lib.set_read([p], True)
    assert lib.redo_label is None and lib.undo_label == "Mark paper read"


def test_undo_that_cannot_be_done_leaves_the_stack(seeded_library):
    lib = seeded_library
    p1, p2 = lib.paper_ids()[:2]
    lib.add_tag([p1], "keep")
    lib.remove_tag([p1], "keep")
    tag_id = lib.tag_by_name("keep").id
    lib.db.execute("DELETE FROM tags WHERE id = ?", [tag_id])   # gone behind its back
    with pytest.raises(LibraryError):
        lib.undo()
    assert lib.undo_label == "Untag ‘keep’"
    assert lib.db.execute("SELECT count(*) FROM paper_tags").fetchone()[0] == 0


def test_stack_merges_equal_keys_but_not_across_an_undo():
    log: list[str] = []
    stack = UndoStack(limit=3)

    def step(name, key=None):
        return UndoStep(name, lambda: log.append(f"undo {name}") or Changes(sources=True),
                        lambda: log.append(f"redo {name}") or Changes(sources=True), key)

    stack.push(step("a", "k"))
    stack.push(step("b", "k"))
    assert stack.labels() == ["b"]
    stack.undo()
    stack.redo()                                        # an undo/redo ends the merging
    stack.push(step("c", "k"))
    assert stack.labels() == ["b", "c"]
    stack.push(step("d"))
    stack.push(step("e"))
    assert stack.labels() == ["c", "d", "e"]          # limit 3: the oldest dropped
    stack.undo()
    stack.undo()
    stack.undo()
    assert log[-3:] == ["undo e", "undo d", "undo c"]
    stack.redo()
    assert log[-1] == "redo c" and stack.redo_label == "d"
