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
    p1, p2, p3 = lib.papers.ids()[:3]
    original = _dump(lib)
    edits = [
        lambda: lib.tags.add([p1, p2, p3], "depth"),
        lambda: lib.tags.create("later", key=2),
        lambda: lib.tags.set_key(lib.tags.by_name("depth").id, 2),
        lambda: lib.tags.set_colour(lib.tags.by_name("depth").id, "#123456"),
        lambda: lib.tags.rename(lib.tags.by_name("later").id, "DEPTH"),   # a merge
        lambda: lib.tags.remove([p2], "depth"),
        lambda: lib.papers.set_read([p1, p2], True),
        lambda: lib.papers.set_starred([p3], True),
        lambda: lib.papers.set_title(p1, "A title of my own"),
        lambda: lib.notes.set(p2, "first words"),
        lambda: lib.notes.add_highlight(p3, 0, 12, "#a5d8ff"),
        lambda: lib.notes.set_highlight_comment(lib.papers.get(p3).highlights[0].id, "why"),
        lambda: lib.saved_searches.save("depth papers", "depth"),
        lambda: lib.saved_searches.rename("depth papers", "Depth"),
        lambda: lib.tags.delete(lib.tags.by_name("depth").id),
        lambda: lib.notes.remove_highlight(lib.papers.get(p3).highlights[0].id),
        lambda: lib.saved_searches.delete("Depth"),
        lambda: lib.papers.set_metadata(p1, Metadata(authors=(Author("Doe", "Jane"),), date="2021",
                                              doi="10.1000/xyz", arxiv_id="2101.00001")),
        lambda: lib.papers.regenerate_citation_key(p1),
        lambda: lib.papers.set_citation_key(p2, "my-own:key"),
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
    (p,) = lib.papers.ids()[:1]
    lib.tags.add([p], "capybara")
    lib.notes.set(p, "axolotl")
    assert [h.id for h in lib.search.hits("tag:capybara")] == [p]
    lib.undo()
    lib.undo()
    assert lib.search.hits("tag:capybara") == [] and lib.search.hits("axolotl") == []
    lib.redo()
    assert [h.id for h in lib.search.hits("tag:capybara")] == [p]


def test_bulk_tagging_is_one_step_and_undo_deletes_a_created_tag(seeded_library):
    lib = seeded_library
    ids = lib.papers.ids()
    changes = lib.tags.add(ids, "everything")
    assert len(changes.papers) == 225 and len(lib.undo_stack) == 1
    assert lib.undo_label == "Tag 225 papers ‘everything’"
    undone = lib.undo()
    assert lib.tags.all() == [] and len(undone.papers) == 225
    lib.redo()
    (tag,) = lib.tags.all()
    assert (tag.name, tag.count, tag.id) == ("everything", 225, next(iter(changes.tags)))


def test_note_saves_of_one_session_merge(seeded_library):
    lib = seeded_library
    p1, p2 = lib.papers.ids()[:2]
    for text in ("d", "de", "dep", "depth"):
        lib.notes.set(p1, text, session=1)
    assert len(lib.undo_stack) == 1
    lib.notes.set(p1, "depth!", session=2)        # another visit: its own step
    lib.notes.set(p2, "other", session=2)         # another paper: its own step
    assert len(lib.undo_stack) == 3
    lib.undo()
    lib.undo()
    assert lib.notes.get(p1) == "depth"
    lib.undo()
    assert lib.notes.get(p1) == "" and len(lib.undo_stack) == 0
    lib.notes.set(p1, "x", session=3)
    lib.notes.set(p1, "xy", session=3)
    lib.notes.set(p1, "", session=3)              # back where it started: no step left
    assert len(lib.undo_stack) == 0 and lib.notes.get(p1) == ""


def test_automatic_mark_read_and_no_ops_are_not_steps(seeded_library):
    lib = seeded_library
    (p,) = lib.papers.ids()[:1]
    assert lib.papers.set_read([p], True, undoable=False).papers == {p}
    assert len(lib.undo_stack) == 0 and lib.papers.get(p).read
    assert not lib.papers.set_read([p], True)           # already read: no change, no step
    assert not lib.papers.set_starred([p], False)
    assert not lib.notes.set(p, "")
    assert not lib.papers.set_title(p, lib.papers.get(p).title)
    assert len(lib.undo_stack) == 0


def test_a_new_edit_clears_redo(seeded_library):
    lib = seeded_library
    (p,) = lib.papers.ids()[:1]
    lib.papers.set_starred([p], True)
    lib.undo()
    assert lib.redo_label == "Star paper"
    lib.papers.set_read([p], True)
    assert lib.redo_label is None and lib.undo_label == "Mark paper read"


def test_undo_that_cannot_be_done_leaves_the_stack(seeded_library):
    lib = seeded_library
    p1, p2 = lib.papers.ids()[:2]
    lib.tags.add([p1], "keep")
    lib.tags.remove([p1], "keep")
    tag_id = lib.tags.by_name("keep").id
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
