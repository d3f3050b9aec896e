"""``paperdesk screen TAG`` (issue 26, item 4): the next paper with the counts and the
estimate, --yes / --no / --undecide, --json, a search's results as the pool, and bad
input in one line with status 1. In-process, on a copy of the seed library."""

from __future__ import annotations

import json

import pytest

from paperdesk.cli import main
from paperdesk.core.library import Library
from paperdesk.core.scope import Scope


@pytest.fixture
def folder(seeded_library):
    """The seed library's folder, closed (the command opens it)."""
    path = seeded_library.path
    seeded_library.close()
    return path


def _screen(folder, capsys, *args):
    status = main(["--library", str(folder), "screen", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_next_yes_no_and_the_json(folder, capsys):
    status, out, err = _screen(folder, capsys, "review", "--yes", "7")   # creates the tag
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "7 included in 'review'"
    assert lines[1].startswith("next: ") and lines[2] == "1 included · 0 excluded · 224 left"
    # nothing excluded yet: any paper left could be relevant, so no total is guessed
    assert lines[3] == ("1 relevant found so far; an estimate of how many there are needs "
                        "some papers excluded")
    first = int(lines[1].split()[1])
    assert first != 7
    status, out, _ = _screen(folder, capsys, "review", "--no", str(first))
    assert status == 0 and out.splitlines()[0] == f"{first} excluded from 'review'"
    status, out, _ = _screen(folder, capsys, "review", "--no", str(first))   # again
    assert status == 0 and out.splitlines()[0] == \
        f"{first} was excluded from 'review' already; nothing changed"
    status, out, _ = _screen(folder, capsys, "review", "--json")
    data = json.loads(out)
    assert (data["included"], data["excluded"], data["left"]) == (1, 1, 223)
    assert data["decided"] is None and data["next"]["id"] not in (7, first)
    with Library.open(folder) as lib:
        assert data["next"]["title"] == lib.papers.get(data["next"]["id"]).title
    assert data["estimate"]["screened"] == 2 and data["estimate"]["found"] == 1
    assert data["estimate"]["text"].startswith("About 1 of an estimated")
    # 1 relevant of the 2 read, 223 unread: m missing is rejected at 0.5 once the newest
    # window's P(X = 0) = 1 - m / 224 falls below it, so the point estimate is 1 + 112;
    # the 95 % bound (1 - m / 224 >= 0.05 and the whole window's) is 213
    assert data["estimate"]["estimated_relevant"] == 113
    assert data["estimate"]["relevant_upper_bound"] == 213
    assert data["estimate"]["text"].endswith("of an estimated 113 relevant found "
                                             "(at most 213)")
    # --next, the default, prints the same paper again: nothing was decided
    status, out, _ = _screen(folder, capsys, "review", "--next")
    assert out.splitlines()[0].split()[1] == str(data["next"]["id"])
    status, out, _ = _screen(folder, capsys, "review", "--undecide", str(first), "--json")
    data = json.loads(out)
    assert data["decided"] == {"id": first, "decision": "undecided", "changed": True}
    assert (data["included"], data["excluded"]) == (1, 0)
    with Library.open(folder) as lib:
        tag = lib.tags.by_name("review")
        assert set(lib.papers.scope_ids(Scope(tag_id=tag.id))) == {7}


def test_a_query_screens_its_results_only(folder, capsys):
    with Library.open(folder) as lib:
        hits = {h.id for h in lib.search.find("depth", limit=None).hits}
    status, out, err = _screen(folder, capsys, "review", "--query", "depth", "--yes",
                               str(min(hits)), "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["left"] == len(hits) - 1 and data["next"]["id"] in hits
    assert data["estimate"]["total"] == len(hits)


def test_a_paper_outside_the_query_is_refused_unless_already_decided(folder, capsys):
    with Library.open(folder) as lib:
        hits = {h.id for h in lib.search.find("depth", limit=None).hits}
        outside = min(set(lib.papers.ids()) - hits)
    status, out, err = _screen(folder, capsys, "review", "--query", "depth", "--yes",
                               str(outside))
    assert status == 1 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"paperdesk: paper {outside} is not among the papers screened "
                          f"(the search 'depth': {len(hits)} papers)")
    with Library.open(folder) as lib:          # nothing decided, no tag made
        assert lib.db.execute("SELECT count(*) FROM screening_decisions").fetchone()[0] == 0
        assert lib.tags.by_name("review") is None
    # decided without the query, it is in the pool: its decision can change under it
    assert _screen(folder, capsys, "review", "--yes", str(outside))[0] == 0
    status, out, err = _screen(folder, capsys, "review", "--query", "depth", "--no",
                               str(outside))
    assert status == 0, err
    assert out.splitlines()[0] == f"{outside} excluded from 'review'"


@pytest.mark.parametrize("args, message", [
    (["nosuch", "--next"], "paperdesk: no tag named 'nosuch' (the first yes creates it, "
                           "as tagging a paper does)"),
    (["review", "--yes", "99999"], "paperdesk: no paper with id 99999"),
    (["review", "--query", "zzzqqqxxx", "--yes", "1"],
     "paperdesk: nothing to screen: no papers match"),
    (["review", "--saved", "nosuch", "--yes", "1"], "paperdesk: no saved search"),
])
def test_bad_input_is_one_line_with_status_1(folder, capsys, args, message):
    status, out, err = _screen(folder, capsys, *args)
    assert status == 1 and out == ""
    assert err.startswith(message) and len(err.splitlines()) == 1
    assert "Traceback" not in err
    with Library.open(folder) as lib:          # nothing was decided
        assert lib.db.execute("SELECT count(*) FROM screening_decisions").fetchone()[0] == 0
        assert lib.tags.by_name("review") is None


def test_usage_errors_are_status_2(folder, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--library", str(folder), "screen", "review", "--yes", "1", "--no", "2"])
    assert stop.value.code == 2
    with pytest.raises(SystemExit) as stop:
        main(["--library", str(folder), "screen", "review", "--query", "a", "--saved", "b"])
    assert stop.value.code == 2
