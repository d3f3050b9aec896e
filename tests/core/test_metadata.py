"""A paper's own metadata: checks, storage, undo, citation keys, the schema v4 migration,
and searching it; identifiers in the abstract stay "mentioned"."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest
import sqlite_utils

from paperdesk.core.library import Library
from paperdesk.core.metadata import (MAX_KEY_CHARS, MetadataError, check_arxiv_id,
                                     check_date, check_doi, check_url, extract_dois,
                                     parse_author, parse_authors, unique_key)
from paperdesk.core.models import Author, Metadata
from paperdesk.core.store.schema import MIGRATIONS, SCHEMA_VERSION


# -- checks ------------------------------------------------------------------------
@pytest.mark.parametrize("typed, stored", [
    ("10.1145/3442188.3445922", "10.1145/3442188.3445922"),
    ("doi:10.1000/xyz(1)-2", "10.1000/xyz(1)-2"),
    ("https://doi.org/10.48550/arXiv.2212.08630", "10.48550/arXiv.2212.08630"),
    ("  ", None),
])
def test_dois_are_read_in_their_usual_forms(typed, stored):
    assert check_doi(typed) == stored


@pytest.mark.parametrize("bad", ["10.1/x", "doi 10.1145/1", "11.1145/123", "10.1145/",
                                 "10.1145/a b", "https://example.org/10.1145/1"])
def test_a_malformed_doi_is_refused_with_one_line(bad):
    with pytest.raises(MetadataError) as err:
        check_doi(bad)
    assert str(err.value).startswith("doi: ") and "\n" not in str(err.value)


@pytest.mark.parametrize("typed, stored", [
    ("2212.08630", "2212.08630"), ("arXiv:2212.08630v3", "2212.08630v3"),
    ("https://arxiv.org/abs/2101.00001", "2101.00001"),
    ("https://arxiv.org/pdf/2101.00001v2.pdf", "2101.00001v2"),
    ("hep-th/9901001", "hep-th/9901001"), ("math.GT/0309136", "math.GT/0309136"),
    ("0704.0001", "0704.0001"), (None, None),
])
def test_arxiv_ids_are_read_in_their_usual_forms(typed, stored):
    assert check_arxiv_id(typed) == stored


@pytest.mark.parametrize("bad", ["2213.08630", "2212.0863", "2212.086301", "arXiv:abc",
                                 "0701.12345", "hep-th/9913001", "10.1145/1",
                                 "0703.0001", "9912.12345", "2301.01234v0"])
def test_a_malformed_arxiv_id_is_refused(bad):
    with pytest.raises(MetadataError, match="^arxiv: .* is not an arXiv identifier"):
        check_arxiv_id(bad)


def test_dates_and_urls():
    assert check_date("2023") == "2023" and check_date(2023) == "2023"
    assert check_date("2024-02-29") == "2024-02-29"
    for bad in ("2023-02-29", "2023-13", "23", "May 2023", "0999"):
        with pytest.raises(MetadataError, match="^date: "):
            check_date(bad)
    assert check_url("https://example.org/a?b=1#c") == "https://example.org/a?b=1#c"
    for bad in ("ftp://example.org", "example.org", "https://exa mple.org"):
        with pytest.raises(MetadataError, match="^url: "):
            check_url(bad)


def test_author_names_as_people_type_them():
    assert parse_author("Doe, Jane") == Author("Doe", "Jane")
    assert parse_author("Jane  Doe") == Author("Doe", "Jane")
    assert parse_author("Ludwig van Beethoven") == Author("van Beethoven", "Ludwig")
    assert parse_author("{World Health Organization}") == Author("World Health Organization")
    assert parse_author("Aristotle") == Author("Aristotle")
    assert parse_authors("Doe, Jane; Smith, John") == (Author("Doe", "Jane"),
                                                         Author("Smith", "John"))
    assert parse_authors("Jane Doe and J. R. Smith") == (Author("Doe", "Jane"),
                                                           Author("Smith", "J. R."))
    with pytest.raises(MetadataError, match="^author: "):
        parse_author("a, b, c")


def test_dois_mentioned_in_text():
    text = ("Data at doi:10.5281/zenodo.123456. See also (10.1145/3442188.3445922) "
            "and https://doi.org/10.1000/ABC-def.")
    assert extract_dois(text) == ["10.5281/zenodo.123456", "10.1145/3442188.3445922",
                                  "10.1000/abc-def"]


def test_unique_key_suffixes_like_better_bibtex():
    taken = {"doe2021depth", "doe2021deptha"}
    assert unique_key("doe2021depth", taken.__contains__) == "doe2021depthb"
    many = {"k"} | {"k" + chr(c) for c in range(ord("a"), ord("z") + 1)}
    assert unique_key("k", many.__contains__) == "kaa"


# -- stored metadata ------------------------------------------------------------------
def test_metadata_is_stored_cleaned_and_undone(seeded_library):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    changes = lib.papers.set_metadata(pid, Metadata(
        authors=(Author(" Doe ", "Jane  R."),), date="2023-05", venue=" Neur  IPS ",
        entry_type="Article", doi="https://doi.org/10.1000/XYZ", arxiv_id="arXiv:2301.01234",
        url="https://example.org/paper"))
    assert changes.fields == {"metadata"} and changes.papers == {pid}
    paper = lib.papers.get(pid)
    assert paper.metadata == Metadata((Author("Doe", "Jane R."),), "2023-05", "Neur IPS",
                                      "article", "10.1000/XYZ", "2301.01234",
                                      "https://example.org/paper")
    assert paper.year == 2023 and paper.entry_type == "article"
    assert lib.undo_label == "Edit metadata"
    lib.undo()
    assert lib.papers.get(pid).metadata == Metadata()
    lib.redo()
    assert lib.papers.get(pid).metadata.doi == "10.1000/XYZ"
    assert lib.papers.set_metadata(pid, lib.papers.metadata(pid)) == Changes_empty()


def Changes_empty():
    from paperdesk.core.changes import NO_CHANGES
    return NO_CHANGES


def test_a_refused_value_changes_nothing(seeded_library):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    lib.papers.set_metadata(pid, Metadata(date="2020"))
    steps = len(lib.undo_stack)
    with pytest.raises(MetadataError, match="^doi: "):
        lib.papers.set_metadata(pid, Metadata(date="2021", doi="10.12/nope"))
    assert lib.papers.metadata(pid) == Metadata(date="2020") and len(lib.undo_stack) == steps


def test_entry_type_follows_the_own_arxiv_id_when_not_set(seeded_library):
    lib = seeded_library
    pid = lib.papers.ids()[0]
    assert lib.papers.get(pid).entry_type == "misc"
    lib.papers.set_metadata(pid, Metadata(arxiv_id="2301.01234"))
    assert lib.papers.get(pid).entry_type == "preprint"


def test_identifiers_in_the_abstract_are_mentioned_not_own(seeded_library):
    lib = seeded_library
    (hit,) = lib.search.hits('"characterised in"', limit=1)
    paper = lib.papers.get(hit.id)
    assert "2212.08630" in paper.mentioned.arxiv_ids
    assert paper.metadata == Metadata() and paper.year is None
    assert "2022" not in paper.citation_key


# -- citation keys ------------------------------------------------------------------
def test_keys_are_assigned_on_import_and_kept(seeded_library):
    lib = seeded_library
    keys = [lib.papers.citation_key(p) for p in lib.papers.ids()]
    assert len(set(k.lower() for k in keys)) == len(keys) == 225
    pid = lib.papers.ids()[0]
    key = lib.papers.citation_key(pid)
    assert key == "advancement_1"
    lib.papers.set_title(pid, "Zebras in the wild")
    lib.papers.set_metadata(pid, Metadata(authors=(Author("Doe", "Jane"),), date="2021"))
    assert lib.papers.citation_key(pid) == key, "a key changes only when the user asks"


def test_regenerate_gives_family_year_word_made_unique(seeded_library):
    lib = seeded_library
    p1, p2 = lib.papers.ids()[:2]
    for pid in (p1, p2):
        lib.papers.set_title(pid, "The depth of things")
        lib.papers.set_metadata(pid, Metadata(authors=(Author("Müller", "Jan"),), date="2021"))
    assert lib.papers.proposed_citation_key(p1) == "muller2021depth"
    lib.papers.regenerate_citation_key(p1)
    lib.papers.regenerate_citation_key(p2)
    assert (lib.papers.citation_key(p1), lib.papers.citation_key(p2)) == ("muller2021depth",
                                                            "muller2021deptha")
    assert lib.undo_label == "Regenerate citation key"
    # Regenerating again keeps the key (its own key counts as free).
    assert not lib.papers.regenerate_citation_key(p1)
    lib.undo()
    assert lib.papers.citation_key(p2) == "depth_2" or lib.papers.citation_key(p2).endswith("_2")


def test_a_key_typed_by_the_user_is_checked(seeded_library):
    lib = seeded_library
    p1, p2 = lib.papers.ids()[:2]
    lib.papers.set_citation_key(p1, "Doe2021")
    assert lib.papers.for_key("doe2021") == p1
    with pytest.raises(MetadataError, match="already used"):
        lib.papers.set_citation_key(p2, "DOE2021")
    for bad in ("", "has space", "brace{", "ümlaut", "x" * (MAX_KEY_CHARS + 1)):
        with pytest.raises(MetadataError, match="^citation key: "):
            lib.papers.set_citation_key(p2, bad)
    assert lib.papers.citation_key(p2) != "DOE2021"


def test_an_automatic_key_a_user_took_is_not_reused(tmp_path):
    from tests.core.helpers import write_daily
    lib = Library.open(tmp_path / "lib")
    write_daily(tmp_path / "a.txt", ["Depth first. More words here."])
    (first,) = lib.imports.run([tmp_path / "a.txt"]).added_ids
    lib.papers.set_citation_key(first, f"depth_{first + 1}")
    write_daily(tmp_path / "b.txt", ["Depth second. Other words."])
    (second,) = lib.imports.run([tmp_path / "b.txt"]).added_ids
    assert lib.papers.citation_key(second) == f"depth_{second}a"
    lib.close()


# -- migration from schema 3 --------------------------------------------------------------
def test_a_version_3_library_migrates_with_a_backup(tmp_path):
    folder = tmp_path / "old"
    folder.mkdir()
    db = sqlite_utils.Database(folder / "library.db")
    for step in MIGRATIONS[:3]:
        step(db)
    db.execute("PRAGMA user_version = 3")
    db.execute("INSERT INTO papers (id, content_hash, title, derived_title, abstract, "
               "added_at, starred) VALUES (7, 'h', 'The learnable layers', "
               "'The learnable layers', 'The learnable layers, characterised in "
               "arXiv:2212.08630, work.', '2026-01-02T03:04:05Z', 0)")
    db.conn.commit()
    db.conn.close()
    with Library.open(folder) as lib:
        paper = lib.papers.get(7)
        assert paper.citation_key == "learnable_7"
        assert paper.year is None and paper.metadata.arxiv_id is None
        assert paper.mentioned.arxiv_ids == ("2212.08630",)
        assert lib.search.find("mentions:2212.08630").total == 1
        assert lib.search.find("arxiv:2212.08630").total == 0
    backups = list((folder / "backups").glob("library-v3-*.db"))
    assert len(backups) == 1
    old = sqlite3.connect(backups[0])
    assert old.execute("PRAGMA user_version").fetchone()[0] == 3
    old.close()
    assert SCHEMA_VERSION >= 4


# -- search --------------------------------------------------------------------------
@pytest.fixture
def described(seeded_library):
    lib = seeded_library
    p1, p2, p3 = lib.papers.ids()[:3]
    lib.papers.set_metadata(p1, Metadata(authors=(Author("Doe", "Jane"), Author("Ng", "Li")),
                                  date="2023-05-17", venue="NeurIPS",
                                  doi="10.1145/3442188.3445922-x", arxiv_id="2301.01234v2"))
    lib.papers.set_metadata(p2, Metadata(authors=(Author("Smith", "John"),), date="2019"))
    lib.papers.set_metadata(p3, Metadata(date="2021"))
    return lib, (p1, p2, p3)


def _ids(lib, query):
    return sorted(h.id for h in lib.search.find(query, limit=None).hits)


def test_search_by_author_year_doi_arxiv_key(described):
    lib, (p1, p2, p3) = described
    assert _ids(lib, "author:doe") == [p1]
    assert _ids(lib, 'author:"jane doe"') == [p1]
    assert p2 in _ids(lib, "smith")             # plain words search authors too
    assert _ids(lib, "year:2023") == [p1]
    assert _ids(lib, "year:2020..2024") == [p1, p3]
    assert _ids(lib, "year:..2020") == [p2]
    assert _ids(lib, "year:2021..") == [p1, p3]
    assert _ids(lib, "year:2024..2020") == [p1, p3]
    assert _ids(lib, "doi:10.1145/3442188.3445922-X") == [p1]
    assert _ids(lib, "doi:https://doi.org/10.1145/3442188.3445922-x") == [p1]
    assert _ids(lib, "arxiv:2301.01234") == [p1] == _ids(lib, "arxiv:2301.01234v2")
    assert _ids(lib, "venue:neurips") == [p1]
    lib.papers.set_metadata(p2, replace(lib.papers.metadata(p2), venue="Proc. of ICML"))
    assert _ids(lib, 'venue:"proc. of icml"') == [p2]
    assert _ids(lib, f"key:{lib.papers.citation_key(p2)}") == [p2]
    assert _ids(lib, "has:doi") == [p1]
    assert _ids(lib, "has:author") == [p1, p2]
    assert _ids(lib, "has:year") == [p1, p2, p3]


def test_a_malformed_year_is_explained(described):
    lib, _ = described
    results = lib.search.find("year:20x depth")
    assert "year:20x" in results.message and results.total > 0
    assert lib.search.find("year:1..2").message


def test_mentioned_identifiers_are_searchable_apart(described):
    lib, _ = described
    (hit,) = lib.search.hits('"characterised in"', limit=1)
    assert _ids(lib, "mentions:2212.08630") == [hit.id]
    assert _ids(lib, "mentions:arXiv:2212.08630") == [hit.id]
    assert _ids(lib, "mentions:2212.08630v3") == [hit.id]
    assert _ids(lib, "arxiv:2212.08630") == []


def test_metadata_and_key_are_one_step_or_nothing(seeded_library):
    lib = seeded_library
    p1, p2 = lib.papers.ids()[:2]
    old_key = lib.papers.citation_key(p1)
    changes = lib.papers.set_metadata(p1, Metadata(date="2020"), citation_key="mine2020")
    assert changes.fields == {"metadata", "citation_key"}
    assert lib.papers.citation_key(p1) == "mine2020" and len(lib.undo_stack) == 1
    lib.undo()
    assert lib.papers.citation_key(p1) == old_key and lib.papers.metadata(p1) == Metadata()
    lib.redo()
    with pytest.raises(MetadataError, match="already used"):
        lib.papers.set_metadata(p2, Metadata(venue="X"), citation_key="MINE2020")
    with pytest.raises(MetadataError, match="^citation key: "):
        lib.papers.set_metadata(p2, Metadata(venue="X"), citation_key="two words")
    assert lib.papers.metadata(p2) == Metadata()


def _key_word_reference(title: str) -> str:
    """key_word as it was written first (every word folded and lower-cased, then the
    first significant one): the faster one must give the same word."""
    import re
    import unicodedata
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = [w.lower() for w in re.findall(r"[A-Za-z]+", folded)]
    skip = {"a", "an", "the", "on", "of", "in", "we", "this", "for", "to", "and", "with",
            "is", "are", "how", "what", "when", "from", "by", "at", "as", "our"}
    return next((w for w in words if w not in skip and len(w) > 2), "paper")[:20]


@pytest.mark.parametrize("title", [
    "", "(empty abstract)", "A study of the ON and OFF states", "We the an of",
    "Résumé of naïve coöperation", "Ærø and Œuvre", "ﬁnding ﬂows in ligatures",
    "Straße and Maß", "深層学習 for graphs", "深層学習", "x y z", "On 3D-GANs: 12 ways",
    "Supercalifragilisticexpialidocious words are long", "The\u00a0non-breaking title",
    "İstanbul ıs dotted", "Ωmega and ΣIGMA rules", "the", "THE QUICK BROWN",
])
def test_key_word_is_the_first_significant_folded_word(title):
    from paperdesk.core.metadata import key_word
    assert key_word(title) == _key_word_reference(title)
