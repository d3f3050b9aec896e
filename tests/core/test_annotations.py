"""Tags, notes, highlights, read/star marks and title edits: what each returns (a
:class:`Changes`) and how :meth:`Library.undo` reverses it."""

import sqlite3

import pytest

from paperdesk.core.store import schema
from paperdesk.core.library import Library
from paperdesk.core.changes import NO_CHANGES
from paperdesk.core.models import LibraryError, UnknownPaper


def ids_of(lib, n):
    return lib.papers.ids()[:n]


def test_tag_names_are_case_insensitive(seeded_library):
    a, b = ids_of(seeded_library, 2)
    first = seeded_library.tags.add([a], "ML")
    second = seeded_library.tags.add([b], "ml")
    assert first.papers == {a} and second.papers == {b}
    assert first.tags == second.tags == {seeded_library.tags.by_name("mL").id}
    seeded_library.undo()          # the second only tagged b: the tag stays
    assert [(t.name, t.count) for t in seeded_library.tags.all()] == [("ML", 1)]
    seeded_library.redo()
    assert [(t.name, t.count) for t in seeded_library.tags.all()] == [("ML", 2)]


def test_rename_onto_existing_name_merges_and_undo_restores(seeded_library):
    p1, p2, p3 = ids_of(seeded_library, 3)
    seeded_library.tags.add([p1, p2], "ML")
    seeded_library.tags.add([p3], "deep learning")
    ml, deep = seeded_library.tags.by_name("ML"), seeded_library.tags.by_name("deep learning")
    seeded_library.tags.set_key(deep.id, 4)
    assert seeded_library.tags.is_merge(deep.id, "ml") and not seeded_library.tags.is_merge(deep.id, "x")

    changes = seeded_library.tags.rename(deep.id, "ml")
    assert changes.tags == {ml.id, deep.id} and changes.papers == {p1, p2, p3}
    assert seeded_library.undo_label == "Merge tag ‘deep learning’ into ‘ml’"
    merged = seeded_library.tags.by_name("ml")
    assert [(t.name, t.count) for t in seeded_library.tags.all()] == [("ml", 3)]
    assert merged.id == ml.id and merged.key == 4
    assert set(seeded_library.papers.ids(tag_id=ml.id)) == {p1, p2, p3}

    seeded_library.undo()
    tags = {t.id: (t.name, t.count, t.key) for t in seeded_library.tags.all()}
    assert tags == {ml.id: ("ML", 2, None), deep.id: ("deep learning", 1, 4)}
    assert seeded_library.papers.ids(tag_id=deep.id) == [p3]
    assert seeded_library.search.find('tag:"deep learning"').hits[0].id == p3


def test_rename_changes_case_only(seeded_library):
    (p,) = ids_of(seeded_library, 1)
    seeded_library.tags.add([p], "Ml")
    tag = seeded_library.tags.by_name("Ml")
    assert seeded_library.tags.rename(tag.id, "ML").tags == {tag.id}
    assert seeded_library.tags.by_name("ml").name == "ML"
    assert [t.name for t in seeded_library.tags.all()] == ["ML"]
    assert [h.id for h in seeded_library.search.hits("tag:ml")] == [p]


def test_delete_tag_and_restore(seeded_library):
    p1, p2 = ids_of(seeded_library, 2)
    seeded_library.tags.add([p1, p2], "to read")
    tag = seeded_library.tags.by_name("to read")
    assert seeded_library.tags.delete(tag.id).papers == {p1, p2}
    assert seeded_library.tags.all() == []
    assert seeded_library.search.hits('tag:"to read"') == []
    assert seeded_library.undo().replay
    assert [(t.id, t.name, t.count) for t in seeded_library.tags.all()] == [(tag.id, "to read", 2)]
    assert {h.id for h in seeded_library.search.hits('tag:"to read"')} == {p1, p2}


def test_add_and_remove_tag_report_only_changed_papers(seeded_library):
    p1, p2, p3 = ids_of(seeded_library, 3)
    seeded_library.tags.add([p1], "x")
    change = seeded_library.tags.add([p1, p2, p3], "X")
    assert change.papers == {p2, p3} and change.fields == {"tags"} and change.search
    assert seeded_library.undo_label == "Tag 2 papers ‘x’"
    removed = seeded_library.tags.remove([p2, p3], "x")
    assert removed.papers == {p2, p3}
    (tag_id,) = change.tags
    assert seeded_library.papers.ids(tag_id=tag_id) == [p1]
    assert not seeded_library.tags.add([p1], "x")       # nothing new: no step either
    assert seeded_library.undo_label == "Untag 2 papers ‘x’"


def test_tagging_reports_how_each_tag_count_moved_through_undo_and_redo(seeded_library):
    """``Changes.tag_count_changes`` says by how much a tag's paper count moved, so a
    view can follow a toggle without counting the tag's papers again; a new tag, or a
    change combined with one that changed a tag otherwise, has none (read it again)."""
    from paperdesk.core.changes import Changes

    lib = seeded_library
    a, b, c = ids_of(lib, 3)
    created = lib.tags.add([a, b], "later")
    tag = lib.tags.by_name("later").id
    assert created.tag_count_changes() is None            # a new tag: read it
    assert lib.tags.add([b, c], "later").tag_count_changes() == {tag: 1}
    assert lib.tags.remove([a, b, c], "later").tag_count_changes() == {tag: -3}
    assert lib.undo().tag_count_changes() == {tag: 3}     # the three back
    assert lib.undo().tag_count_changes() == {tag: -1}    # c untagged again
    assert lib.redo().tag_count_changes() == {tag: 1}
    assert lib.tags.by_name("later").count == 3
    renamed = lib.tags.rename(tag, "sooner")
    assert renamed.tag_count_changes() is None
    both = lib.tags.add([a], "x") | renamed
    assert both.tag_count_changes() is None
    counted = Changes.of(tag_deltas={tag: 2}) | Changes.of(tag_deltas={tag: -1, 9: 1})
    assert counted.tag_count_changes() == {tag: 1, 9: 1}
    assert (counted | Changes.of(tags=[9])).tag_count_changes() is None
    assert Changes.of(papers=[a]).tag_count_changes() is None


def test_bulk_tag_with_unknown_id_changes_nothing(seeded_library):
    (p,) = ids_of(seeded_library, 1)
    with pytest.raises(UnknownPaper):
        seeded_library.tags.add([p, 999999], "ghost")
    assert seeded_library.tags.all() == []


@pytest.mark.parametrize("name", ["", "   ", "a,b", "x" * 61])
def test_bad_tag_names(seeded_library, name):
    with pytest.raises(LibraryError):
        seeded_library.tags.add(ids_of(seeded_library, 1), name)


def test_number_keys_are_unique(seeded_library):
    seeded_library.tags.create("a", key=1)
    seeded_library.tags.create("b")
    a, b = seeded_library.tags.by_name("a"), seeded_library.tags.by_name("b")
    assert not seeded_library.tags.create("A")       # exists (any case): no change
    seeded_library.tags.set_key(b.id, 1)
    assert seeded_library.tags.for_key(1).id == b.id
    assert seeded_library.tags.all()[0].key is None
    with pytest.raises(LibraryError):
        seeded_library.tags.set_key(a.id, 10)
    with pytest.raises(LibraryError):
        seeded_library.tags.set_colour(a.id, "red")
    assert not seeded_library.tags.set_colour(a.id, "#ABCDEF").search
    assert seeded_library.tags.by_name("a").colour == "#abcdef"
    seeded_library.undo()                             # colour back
    seeded_library.undo()                             # key 1 back on a
    assert seeded_library.tags.for_key(1).id == a.id


def test_add_tag_with_a_key_is_one_step_and_undo_gives_the_key_back(seeded_library):
    lib = seeded_library
    p1, p2 = ids_of(lib, 2)
    lib.tags.create("old", key=3)
    old = lib.tags.by_name("old")
    steps = len(lib.undo_stack)
    change = lib.tags.add([p1, p2], "Fresh  idea", key=3)
    fresh = lib.tags.by_name("fresh idea")
    assert fresh.name == "Fresh idea" and fresh.key == 3 and fresh.count == 2
    assert lib.tags.by_name("old").key is None
    assert change.papers == {p1, p2} and change.tags == {fresh.id, old.id}
    assert len(lib.undo_stack) == steps + 1
    assert lib.undo_label == "Tag 2 papers ‘Fresh idea’, key 3"
    assert {h.id for h in lib.search.hits('tag:"fresh idea"')} == {p1, p2}
    lib.undo()                                        # the new tag goes, key 3 back
    assert lib.tags.by_name("fresh idea") is None
    assert lib.tags.for_key(3).id == old.id
    assert lib.search.hits('tag:"fresh idea"') == []
    lib.redo()
    assert lib.tags.for_key(3).id == fresh.id
    assert set(lib.papers.ids(tag_id=fresh.id)) == {p1, p2}


def test_add_tag_with_a_key_on_an_existing_tag(seeded_library):
    lib = seeded_library
    p1, p2 = ids_of(lib, 2)
    lib.tags.add([p1], "x")
    x = lib.tags.by_name("x")
    lib.tags.add([p1, p2], "X", key=5)
    assert lib.tags.for_key(5).id == x.id and x.id == lib.tags.by_name("x").id
    assert not lib.tags.add([p2], "x", key=5)          # nothing new: no step
    lib.undo()
    assert lib.tags.by_name("x").key is None and lib.papers.ids(tag_id=x.id) == [p1]
    with pytest.raises(LibraryError):
        lib.tags.add([p1], "y", key=10)
    with pytest.raises(UnknownPaper):
        lib.tags.add([p1, 999999], "y", key=2)
    assert lib.tags.by_name("y") is None and lib.tags.for_key(2) is None


def test_merge_tags_by_id(seeded_library):
    lib = seeded_library
    p1, p2, p3 = ids_of(lib, 3)
    lib.tags.add([p1, p2], "a")
    lib.tags.add([p2, p3], "b")
    a, b = lib.tags.by_name("a"), lib.tags.by_name("b")
    lib.tags.set_key(a.id, 2)
    change = lib.tags.merge(a.id, b.id)
    assert change.tags == {a.id, b.id}
    assert [(t.id, t.name, t.count, t.key) for t in lib.tags.all()] == [(b.id, "b", 3, 2)]
    assert lib.undo_label == "Merge tag ‘a’ into ‘b’"
    with pytest.raises(LibraryError):
        lib.tags.merge(b.id, b.id)
    with pytest.raises(LibraryError):
        lib.tags.merge(a.id, b.id)                     # a is gone
    lib.undo()
    assert {t.name: (t.count, t.key) for t in lib.tags.all()} == {"a": (2, 2), "b": (2, None)}


def test_read_and_star_round_trip(seeded_library):
    p1, p2 = ids_of(seeded_library, 2)
    seeded_library.papers.set_read([p1], True)
    read_at = seeded_library.papers.get(p1).read_at
    changes = seeded_library.papers.set_read([p1, p2], True)
    assert changes.papers == {p2} and changes.fields == {"read"}   # p1 was read already
    assert not changes.search
    assert seeded_library.papers.get(p1).read_at == read_at
    assert seeded_library.papers.filter_counts()["unread"] == 223
    seeded_library.undo()
    assert seeded_library.papers.get(p1).read and not seeded_library.papers.get(p2).read
    assert seeded_library.papers.set_starred([p1], True).papers == {p1}
    assert seeded_library.undo_label == "Star paper"
    assert seeded_library.papers.ids(filter="starred") == [p1]
    seeded_library.undo()
    assert seeded_library.papers.ids(filter="starred") == []
    seeded_library.redo()
    assert seeded_library.papers.ids(filter="starred") == [p1]


def test_edited_title_is_found_once_and_can_be_reverted(seeded_library):
    (p,) = ids_of(seeded_library, 1)
    derived = seeded_library.papers.get(p).title
    assert seeded_library.papers.set_title(p, "  Quokka   agents ").fields == {"title"}
    assert seeded_library.papers.get(p).title == "Quokka agents"
    assert seeded_library.papers.get(p).title_edited
    for _ in range(3):  # repeated updates must never leave stale copies in the index
        seeded_library.papers.set_title(p, "Quokka agents")
        seeded_library.papers.set_title(p, "Quokka  agents!")
    assert [h.id for h in seeded_library.search.hits("quokka")] == [p]
    assert len(seeded_library.search.hits("depth", limit=None)) == len(
        {h.id for h in seeded_library.search.hits("depth", limit=None)})
    seeded_library.papers.set_title(p, None)
    assert seeded_library.papers.get(p).title == derived
    seeded_library.undo()
    assert seeded_library.papers.get(p).title == "Quokka agents!"
    seeded_library.redo()
    assert seeded_library.search.hits("quokka") == []
    assert seeded_library.papers.stats()["indexed"] == 225


def test_note_is_searchable_and_survives_reopen(seeded_library):
    (p,) = ids_of(seeded_library, 1)
    assert seeded_library.notes.set(p, "Compare with the **axolotl** results.\n- later").notes == {p}
    assert [h.id for h in seeded_library.search.hits("axolotl")] == [p]
    assert [h.id for h in seeded_library.search.hits("note:axolotl")] == [p]
    assert seeded_library.search.hits("title:axolotl") == []
    assert seeded_library.papers.ids(filter="has_note") == [p]
    path = seeded_library.path
    seeded_library.close()
    with Library.open(path) as lib:
        assert lib.papers.get(p).note == "Compare with the **axolotl** results.\n- later"
        assert lib.notes.set(p, "  ").notes == {p}
        assert lib.papers.get(p).note == ""
        assert lib.undo_label == "Edit note"
        assert lib.search.hits("axolotl") == []
        assert lib.papers.filter_counts()["has_note"] == 0


@pytest.mark.parametrize("stored, typed, joined", [
    ("", "first words", "first words"),
    ("stored.", "typed", "stored.\ntyped"),
    ("stored.\n", "typed", "stored.\ntyped"),
    ("stored.", "", "stored."),
])
def test_joined_note_puts_typed_text_on_a_line_of_its_own(stored, typed, joined):
    from paperdesk.core.api import joined_note

    assert joined_note(stored, typed) == joined


def test_text_typed_before_the_note_was_read_is_appended_as_one_edit(seeded_library):
    lib = seeded_library
    (p, q) = ids_of(lib, 2)
    lib.notes.set(p, "Compare with **axolotl**.")
    changes = lib.notes.append(p, "walrus \ud800 tusks")
    assert changes.notes == {p} and changes.papers == {p}
    assert lib.notes.get(p) == "Compare with **axolotl**.\nwalrus \ufffd tusks"
    assert [h.id for h in lib.search.hits("walrus")] == [p]
    assert lib.undo_label == "Edit note"
    lib.undo()                      # its own step: the note as it was
    assert lib.notes.get(p) == "Compare with **axolotl**."
    lib.redo()
    assert lib.notes.get(p).endswith("walrus \ufffd tusks")
    assert lib.notes.append(q, "  \n ") == NO_CHANGES and lib.notes.get(q) == ""
    assert lib.notes.append(q, "a note of its own").notes == {q}
    assert lib.notes.get(q) == "a note of its own"
    with pytest.raises(UnknownPaper):
        lib.notes.append(10 ** 9, "nowhere")


def greek_paper(lib):
    for pid in lib.papers.ids():
        abstract = lib.papers.get(pid).abstract
        if "μP" in abstract:
            return pid, abstract
    raise AssertionError("the seeds contain μP")


def test_highlight_on_greek_text_keeps_exact_span(seeded_library):
    pid, abstract = greek_paper(seeded_library)
    start = abstract.index("μP")
    end = abstract.index(" ", start + 2)
    seeded_library.notes.add_highlight(pid, start, end, comment="Greek mu parameterisation")
    h = seeded_library.notes.highlight_at(pid, start, end)
    assert h.text == abstract[start:end] and h.text.startswith("μP")
    path = seeded_library.path
    seeded_library.close()
    with Library.open(path) as lib:
        (again,) = lib.papers.get(pid).highlights
        assert (again.start, again.end, again.text) == (start, end, abstract[start:end])
        assert [x.id for x in lib.search.hits("parameterisation")] == [pid]
        assert lib.papers.ids(filter="has_highlight") == [pid]


def test_highlight_remove_restore_and_bad_offsets(seeded_library):
    pid, abstract = greek_paper(seeded_library)
    assert seeded_library.notes.add_highlight(pid, 0, 10, colour="#a5d8ff").highlights == {pid}
    h = seeded_library.notes.highlight_at(pid, 0, 10)
    seeded_library.notes.remove_highlight(h.id)
    assert seeded_library.papers.get(pid).highlights == ()
    assert seeded_library.undo_label.startswith("Remove highlight ‘")
    seeded_library.undo()
    (back,) = seeded_library.papers.get(pid).highlights
    assert (back.id, back.text, back.colour) == (h.id, abstract[:10], "#a5d8ff")
    for start, end in [(-1, 5), (5, 5), (10, 3), (0, len(abstract) + 1)]:
        with pytest.raises(LibraryError):
            seeded_library.notes.add_highlight(pid, start, end)
    assert seeded_library.notes.set_highlight_comment(h.id, "why").highlights == {pid}
    assert seeded_library.papers.get(pid).highlights[0].comment == "why"
    seeded_library.undo()
    assert seeded_library.papers.get(pid).highlights[0].comment == ""


def test_annotations_survive_reimport(seeded_library, seed_files):
    pid, abstract = greek_paper(seeded_library)
    seeded_library.notes.add_highlight(pid, 0, 5)
    seeded_library.tags.add([pid], "keep")
    seeded_library.notes.set(pid, "still here")
    seeded_library.imports.run(seed_files)
    paper = seeded_library.papers.get(pid)
    assert len(paper.highlights) == 1 and paper.note == "still here"
    assert [t.name for t in paper.tags] == ["keep"]


def test_scoped_search_and_filters(seeded_library):
    p1, p2 = ids_of(seeded_library, 2)
    (tag_id,) = seeded_library.tags.add([p1], "picked").tags
    tag = seeded_library.tags.by_name("picked")
    assert tag.id == tag_id
    everywhere = seeded_library.search.find("model", limit=None)
    scoped = seeded_library.search.find("model", limit=None, tag_id=tag.id)
    assert everywhere.total > 1
    assert [h.id for h in scoped.hits] == [p1] and scoped.total == 1
    assert seeded_library.papers.filter_counts() == {
        "all": 225, "unread": 225, "starred": 0, "untagged": 224, "has_note": 0}
    assert p1 not in seeded_library.papers.ids(filter="untagged")
    with pytest.raises(ValueError):
        seeded_library.papers.ids(filter="nonsense")


def test_summaries_carry_tags_and_note_flag(seeded_library):
    (p,) = ids_of(seeded_library, 1)
    seeded_library.tags.add([p], "b")
    seeded_library.tags.add([p], "A")
    seeded_library.notes.set(p, "n")
    s = seeded_library.papers.summaries([p])[p]
    assert s.tags == ("A", "b") and s.has_note


def test_deferred_index_sync(seeded_library):
    (p,) = ids_of(seeded_library, 1)
    calls = []
    seeded_library.auto_sync_index = False
    seeded_library.on_index_stale = lambda: calls.append(1)
    seeded_library.notes.set(p, "capybara")
    assert calls == [1]
    assert seeded_library.papers.stats()["pending_index"] == 1
    assert seeded_library.search.hits("capybara") == []
    seeded_library.index.sync()
    assert [h.id for h in seeded_library.search.hits("capybara")] == [p]


def test_v1_library_is_migrated_with_backup(tmp_path, seed_files):
    path = tmp_path / "old"
    path.mkdir()
    con = sqlite3.connect(path / "library.db", isolation_level=None)
    import sqlite_utils

    db = sqlite_utils.Database(con)
    schema.MIGRATIONS[0](db)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO papers (content_hash, title, derived_title, abstract, added_at) "
               "VALUES ('h', 'Old title', 'Old title', 'An old abstract about lemurs.', "
               "'2025-01-01T00:00:00Z')")
    con.close()
    with Library.open(path) as lib:
        assert lib.db.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
        assert [h.title for h in lib.search.hits("lemurs")] == ["Old title"]
        lib.tags.add([1], "migrated")
        assert lib.tags.all()[0].count == 1
    (backup,) = (path / "backups").glob("library-v1-*.db")
    old = sqlite3.connect(backup)
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    assert old.execute("SELECT title FROM papers").fetchone()[0] == "Old title"
    old.close()


@pytest.mark.parametrize("first, second", [("Ünicode", "ünicode"), ("Straße", "STRASSE"),
                                           ("ÉMOJI 🎉 Ü", "émoji 🎉 ü"), ("ML", "ml")])
def test_tag_names_fold_case_beyond_ascii(seeded_library, first, second):
    a, b = ids_of(seeded_library, 2)
    seeded_library.tags.add([a], first)
    change = seeded_library.tags.add([b], second)
    assert change.tags == {seeded_library.tags.by_name(first).id}
    assert [(t.name, t.count) for t in seeded_library.tags.all()] == [(first, 2)]
    assert seeded_library.tags.by_name(second).name == first
