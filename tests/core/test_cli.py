"""The command line, run as a real subprocess (as a user would) and in-process."""

import json
import os
import subprocess
import sys

import pytest

from paperdesk.cli import main


def run(*args, library, env_extra=None):
    env = {**os.environ, **(env_extra or {})}
    cmd = [sys.executable, "-m", "paperdesk"]
    if library is not None:
        cmd += ["--library", str(library)]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, env=env, timeout=120)


def test_import_search_show_stats_end_to_end(tmp_path, seed_files):
    lib = tmp_path / "lib"
    r = run("import", *map(str, seed_files), "--json", library=lib)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert (report["added"], report["duplicates"], report["rejected"]) == (225, 15, [])

    r = run("import", str(seed_files[0].parent), library=lib)
    assert r.returncode == 0
    assert "total: 0 added, 0 enriched, 240 duplicates, 0 rejected" in r.stdout

    r = run("search", '"hierarchical Tree-based static workflow"', "--json", library=lib)
    assert r.returncode == 0
    found = json.loads(r.stdout)
    assert (found["total"], found["shown"], found["suggestion"]) == (1, 1, None)
    hits = found["hits"]
    assert len(hits) == 1 and {"id", "title", "score"} <= hits[0].keys()

    r = run("show", str(hits[0]["id"]), "--json", library=lib)
    paper = json.loads(r.stdout)
    assert paper["mentioned"]["urls"] == ["https://github.com/SauravP97/Static-Deep-Research/"]
    assert paper["sources"][0]["position"] == 1
    assert "hierarchical Tree-based static workflow" in paper["abstract"]

    r = run("stats", "--json", library=lib)
    stats = json.loads(r.stdout)
    assert stats["papers"] == stats["indexed"] == 225

    r = run("reindex", library=lib)
    assert r.returncode == 0 and "indexed 225 papers" in r.stdout


def test_note_from_standard_input(tmp_path, seed_files):
    lib = tmp_path / "lib"
    run("import", str(seed_files[0]), library=lib)
    note = "# Long note\n" + "line of text\n" * 20000
    r = subprocess.run([sys.executable, "-m", "paperdesk", "--library", str(lib), "note", "1", "-"],
                       input=note, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == "note saved\n"
    r = run("show", "1", "--json", library=lib)
    assert json.loads(r.stdout)["note"] == note
    r = run("note", "2", "", library=lib)
    assert r.stdout == "no note to clear\n"


def test_library_from_environment(tmp_path, seed_files):
    lib = tmp_path / "envlib"
    r = run("import", str(seed_files[0]), library=None,
            env_extra={"PAPERDESK_LIBRARY": str(lib)})
    assert r.returncode == 0, r.stderr
    assert (lib / "library.db").is_file()


def test_user_errors_exit_1_with_one_line(tmp_path, capsys):
    lib = str(tmp_path / "lib")
    (tmp_path / "lib").mkdir()      # (a folder that does not exist is said first)
    assert main(["--library", lib, "show", "424242"]) == 1
    err = capsys.readouterr().err
    assert err == "paperdesk: no paper with id 424242\n"

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00binary\x00")
    assert main(["--library", lib, "import", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0
    assert str(bad) in err and "not a text file" in err


def test_not_a_library_is_a_user_error(tmp_path, capsys):
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "library.db").write_text("not a database " * 100)
    assert main(["--library", str(folder), "stats"]) == 1
    err = capsys.readouterr().err
    assert "not a paperdesk library" in err and "Traceback" not in err


def test_empty_library_argument_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--library", "", "stats"])
    assert exit_.value.code == 2
    assert "the library folder cannot be empty" in capsys.readouterr().err


def test_huge_id_is_a_user_error(tmp_path, capsys):
    (tmp_path / "lib").mkdir()
    assert main(["--library", str(tmp_path / "lib"), "show", "9" * 25]) == 1
    assert capsys.readouterr().err == f"paperdesk: no paper with id {'9' * 25}\n"


@pytest.mark.parametrize("args", [["search"], ["search", "x", "--limit", "0"],
                                  ["show", "abc"], ["frobnicate"]])
def test_usage_errors_exit_2(tmp_path, args):
    r = run(*args, library=tmp_path / "lib")
    assert r.returncode == 2
    # one line: the command, the problem and where the options are described
    assert r.stderr.count("\n") == 1 and "error: " in r.stderr and "--help)" in r.stderr
    assert "usage:" not in r.stderr and "Traceback" not in r.stderr


def test_search_text_output(tmp_path, seed_files, capsys):
    lib = str(tmp_path / "lib")
    main(["--library", lib, "import", *map(str, seed_files)])
    capsys.readouterr()
    assert main(["--library", lib, "search", "zzzznotaword"]) == 0
    assert capsys.readouterr().out == "no matches\n"
    assert main(["--library", lib, "search", "depth", "--limit", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and out[-1].startswith("(3 of ")


def test_tag_note_mark_commands(tmp_path, seed_files, capsys):
    lib = ["--library", str(tmp_path / "lib")]
    assert main(lib + ["import", *map(str, seed_files)]) == 0
    assert main(lib + ["tag", "add", "ML", "1", "2"]) == 0
    assert main(lib + ["tag", "add", "deep", "3"]) == 0
    assert main(lib + ["tag", "rename", "deep", "ml"]) == 0
    assert "merged into 'ml' (3 papers)" in capsys.readouterr().out
    assert main(lib + ["tags", "--json"]) == 0
    tags = json.loads(capsys.readouterr().out)
    assert [(t["name"], t["count"]) for t in tags] == [("ml", 3)]
    assert {"name", "count", "colour", "key"} <= tags[0].keys()

    assert main(lib + ["tag", "remove", "ml", "2"]) == 0
    assert main(lib + ["note", "1", "Read with **care**"]) == 0
    assert main(lib + ["mark", "1", "3", "--read", "--star"]) == 0
    capsys.readouterr()
    assert main(lib + ["show", "1", "--json"]) == 0
    paper = json.loads(capsys.readouterr().out)
    assert paper["tags"] == ["ml"] and paper["note"] == "Read with **care**"
    assert paper["read"] is True and paper["starred"] is True
    assert paper["highlights"] == []

    assert main(lib + ["stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["tags"], stats["notes"], stats["highlights"], stats["unread"]) == (1, 1, 0, 223)

    assert main(lib + ["note", "1", ""]) == 0
    assert main(lib + ["mark", "1", "--unread"]) == 0
    capsys.readouterr()
    main(lib + ["show", "1", "--json"])
    paper = json.loads(capsys.readouterr().out)
    assert paper["note"] == "" and paper["read"] is False and paper["starred"] is True


@pytest.mark.parametrize("args, message", [
    (["tag", "add", "a,b", "1"], "cannot contain a comma"),
    (["tag", "add", "x", "424242"], "no paper with id 424242"),
    (["tag", "remove", "nosuchtag", "1"], "no tag named 'nosuchtag'"),
    (["tag", "rename", "nosuchtag", "y"], "no tag named 'nosuchtag'"),
    (["mark", "1"], "--read, --unread, --star or --unstar"),
    (["note", "424242", "x"], "no paper with id 424242"),
    (["tag", "add", "x", "9" * 25], "no paper with id " + "9" * 25),
    (["mark", "9" * 25, "--read"], "no paper with id " + "9" * 25),
])
def test_annotation_user_errors(tmp_path, seed_files, capsys, args, message):
    lib = ["--library", str(tmp_path / "lib")]
    main(lib + ["import", str(seed_files[0])])
    capsys.readouterr()
    assert main(lib + args) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_search_sort_and_saved_searches(tmp_path, seed_files, capsys):
    lib = ["--library", str(tmp_path / "lib")]
    assert main(lib + ["import", *map(str, seed_files)]) == 0
    capsys.readouterr()
    assert main(lib + ["search", "depth", "--sort", "title", "--limit", "50", "--json"]) == 0
    titles = [h["title"].lower() for h in json.loads(capsys.readouterr().out)["hits"]]
    assert len(titles) == 50 and titles == sorted(titles)

    assert main(lib + ["saved-search", "add", "Code", "has:code depth"]) == 0
    assert main(lib + ["saved-search", "add", "Phrases", '"neural networks"']) == 0
    capsys.readouterr()
    assert main(lib + ["saved-search", "list", "--json"]) == 0
    saved = json.loads(capsys.readouterr().out)
    assert [(s["name"], s["query"]) for s in saved] == [
        ("Code", "has:code depth"), ("Phrases", '"neural networks"')]
    expected = main(lib + ["search", "has:code depth", "--limit", "500", "--json"])
    assert expected == 0
    assert saved[0]["count"] == len(json.loads(capsys.readouterr().out)["hits"])
    assert main(lib + ["saved-search", "remove", "code"]) == 0
    assert main(lib + ["saved-search", "remove", "code"]) == 1
    assert "no saved search named 'code'" in capsys.readouterr().err


def test_search_explains_ignored_input(tmp_path, seed_files, capsys):
    lib = ["--library", str(tmp_path / "lib")]
    main(lib + ["import", str(seed_files[0])])
    capsys.readouterr()
    assert main(lib + ["search", "*ase"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "no matches\n"
    assert "cannot start with * or ?" in captured.err
    assert main(lib + ["search", "depth estimaton"]) == 0
    assert "did you mean: depth estimation" in capsys.readouterr().out


def test_export_command(tmp_path, seed_files, capsys):
    lib = ["--library", str(tmp_path / "lib")]
    main(lib + ["import", *map(str, seed_files)])
    main(lib + ["tag", "add", "to read", "1", "2"])
    capsys.readouterr()
    assert main(lib + ["export", "--tag", "to read", "--format", "ris"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("TY  - GEN") and out.count("ER  - ") == 2
    target = tmp_path / "list.bib"
    assert main(lib + ["export", "--ids", "2", "1", "--format", "bibtex", "-o", str(target)]) == 0
    assert "exported 2 paper(s)" in capsys.readouterr().err
    assert target.read_text().index("cost_2") < target.read_text().index("advancement_1")
    assert main(lib + ["export", "--all", "--format", "csv", "--fields", "tags,note"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header == "\ufeffid,title,tags,note"
    assert main(lib + ["export", "--query", '"hierarchical Tree-based static workflow"',
                       "--format", "csl-json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1
    assert main(lib + ["saved-search", "add", "Static", '"static workflow"']) == 0
    capsys.readouterr()
    assert main(lib + ["export", "--saved", "static", "--format", "markdown"]) == 0
    assert capsys.readouterr().out.count("\n## ") == 1


@pytest.mark.parametrize("args, message", [
    (["export", "--tag", "nope", "--format", "csv"], "no tag named 'nope'"),
    (["export", "--all", "--format", "csv", "--fields", "colour"], "unknown field(s) colour"),
    (["export", "--all", "--format", "csv", "-o", "/nonexistent/dir/x.csv"], "cannot write"),
    (["export", "--ids", "424242", "--format", "csv"], "no paper with id 424242"),
    (["export", "--saved", "nope", "--format", "csv"], "no saved search named 'nope'"),
    (["export", "--query", "qzxvqzxv", "--format", "csv", "-o", "x.csv"],
     "nothing to export: no paper matches the search “qzxvqzxv”"),
    (["export", "--query", "NOT", "--format", "csv", "-o", "x.csv"],
     "nothing to export: the search “NOT”: nothing to search for: type a word"),
    (["export", "--all", "--format", "csv", "-o", "/tmp"], "is a folder"),
])
def test_export_user_errors(tmp_path, seed_files, capsys, args, message):
    lib = ["--library", str(tmp_path / "lib")]
    main(lib + ["import", str(seed_files[0])])
    capsys.readouterr()
    assert main(lib + args) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_export_scope_is_required(tmp_path):
    r = run("export", "--format", "csv", library=tmp_path / "lib")
    assert r.returncode == 2 and "one of the arguments" in r.stderr


def test_write_commands_refuse_while_the_window_holds_the_lock(tmp_path, seed_files, capsys):
    from paperdesk.core.store.lock import LibraryLock

    lib = tmp_path / "lib"
    assert main(["--library", str(lib), "import", str(seed_files[0])]) == 0
    capsys.readouterr()
    with LibraryLock(lib, app="gui"):
        for argv in (["import", str(seed_files[1])], ["tag", "add", "x", "1"],
                     ["note", "1", "hello"], ["mark", "1", "--star"], ["reindex"],
                     ["saved-search", "add", "n", "q"], ["tag", "rename", "a", "b"],
                     ["edit", "1", "--year", "2020"], ["edit", "1", "--regenerate-key"]):
            assert main(["--library", str(lib), *argv]) == 1, argv
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and "is open in the paperdesk window" in err, err
            assert err.startswith("paperdesk: the library ")
            # an import says how to give the files to that window (a new user's try)
            assert ("`paperdesk FILE...` hands files to that window" in err) \
                == (argv[0] == "import"), err
        # Reading still works (read-only: nothing is written).
        assert main(["--library", str(lib), "stats", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["papers"] == 120
        assert main(["--library", str(lib), "search", "depth", "--limit", "1"]) == 0
        assert main(["--library", str(lib), "saved-search", "list"]) == 0
        assert main(["--library", str(lib), "edit", "1"]) == 0      # only prints
        assert "key:" in capsys.readouterr().out
        out = tmp_path / "all.csv"
        assert main(["--library", str(lib), "export", "--all", "--format", "csv",
                     "-o", str(out)]) == 0
        assert out.stat().st_size > 0
    assert main(["--library", str(lib), "mark", "1", "--star"]) == 0   # released: works
    assert not (lib / "library.lock").exists()


def test_read_command_on_a_locked_library_that_does_not_exist_yet(tmp_path, capsys):
    from paperdesk.core.store.lock import LibraryLock

    with LibraryLock(tmp_path / "new", app="gui"):
        assert main(["--library", str(tmp_path / "new"), "stats"]) == 1
    assert "not a paperdesk library yet" in capsys.readouterr().err


def test_command_takes_and_releases_the_lock(tmp_path, seed_files):
    lib = tmp_path / "lib"
    r = run("import", str(seed_files[0]), library=lib)
    assert r.returncode == 0
    assert not (lib / "library.lock").exists()


def test_edit_sets_and_restores_the_title(tmp_path, seed_files):
    """``paperdesk edit --title`` (issue 25 item 12): the title is stored, searched, shown
    by ``edit`` and ``show``; ``--title ''`` goes back to the derived title."""
    lib = tmp_path / "lib"
    assert run("import", *map(str, seed_files), library=lib).returncode == 0
    derived = json.loads(run("show", "224", "--json", library=lib).stdout)["title"]
    r = run("edit", "224", "--title", "  Zebras   learn to cite ", library=lib)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["paper 224: title saved",
                                         "title:   Zebras learn to cite"]
    assert json.loads(run("edit", "224", "--json", library=lib).stdout)["title"] == \
        "Zebras learn to cite"
    r = run("search", "title:zebras", "--json", library=lib)
    assert [h["id"] for h in json.loads(r.stdout)["hits"]] == [224]
    r = run("edit", "224", "--title", "", "--json", library=lib)
    assert json.loads(r.stdout)["title"] == derived
    r = run("edit", "224", "--title", derived, library=lib)
    assert r.stdout.startswith("paper 224: nothing changed")


def test_edit_sets_checks_and_clears_metadata(tmp_path, seed_files):
    lib = tmp_path / "lib"
    assert run("import", *map(str, seed_files), library=lib).returncode == 0
    r = run("edit", "224", "--author", "Doe, Jane", "--author", "Ludwig van Beethoven",
            "--year", "2023", "--doi", "https://doi.org/10.1145/3442188.3445922",
            "--arxiv", "arXiv:2301.01234", "--venue", "NeurIPS", "--json", library=lib)
    assert r.returncode == 0, r.stderr
    meta = json.loads(r.stdout)
    assert meta["authors"] == [{"family": "Doe", "given": "Jane"},
                               {"family": "van Beethoven", "given": "Ludwig"}]
    assert (meta["date"], meta["doi"], meta["arxiv_id"], meta["venue"]) == (
        "2023", "10.1145/3442188.3445922", "2301.01234", "NeurIPS")
    assert meta["citation_key"] == "learnable_224" and meta["entry_type_written"] == "preprint"

    for bad, field in ((["--doi", "10.1/x"], "doi"), (["--arxiv", "2213.00001"], "arxiv"),
                       (["--date", "2023-02-30"], "date"), (["--type", "poem"], "type"),
                       (["--key", "has space"], "citation key")):
        r = run("edit", "224", *bad, "--venue", "Changed", library=lib)
        assert r.returncode == 1 and r.stderr.startswith(f"paperdesk: {field}: ")
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = run("edit", "224", "--regenerate-key", "--doi", "", "--json", library=lib)
    meta = json.loads(r.stdout)
    assert meta["citation_key"] == "doe2023learnable" and meta["doi"] is None
    assert meta["venue"] == "NeurIPS", "a refused edit changed nothing"
    r = run("search", "author:doe year:2020..2024", "--json", library=lib)
    assert [h["id"] for h in json.loads(r.stdout)["hits"]] == [224]
    r = run("show", "224", library=lib)
    assert "authors: Doe, Jane; van Beethoven, Ludwig" in r.stdout
    assert "Mentioned in the abstract:\n  arXiv:2212.08630" in r.stdout
    r = run("edit", "224", "--year", "20x", library=lib)
    assert r.returncode == 1 and r.stderr.startswith("paperdesk: year: '20x' is not a year")
    r = run("edit", "99999", "--year", "2020", library=lib)
    assert r.returncode == 1 and "no paper with id 99999" in r.stderr


def test_sources_delete_and_remove_file(tmp_path, seed_files, capsys, monkeypatch):
    lib = str(tmp_path / "lib")
    assert main(["--library", lib, "import", *map(str, seed_files)]) == 0
    capsys.readouterr()
    assert main(["--library", lib, "sources", "--json"]) == 0
    first, second = json.loads(capsys.readouterr().out)
    assert (first["id"], first["papers"], first["path"]) == (1, 120, str(seed_files[0]))
    assert main(["--library", lib, "sources"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == f"     2     120 papers  {seed_files[1]}"

    # --dry-run reads only: it works while the window holds the lock and changes nothing.
    from paperdesk.core.store.lock import LibraryLock
    with LibraryLock(tmp_path / "lib", app="gui"):
        assert main(["--library", lib, "delete", "1", "2", "--dry-run"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[0] == "would delete 2 papers:" and out[1].startswith("     1  The ")
        assert main(["--library", lib, "remove-file", "1", "--dry-run"]) == 0
        assert capsys.readouterr().out == (
            f"would remove {seed_files[0]} (id 1): 105 papers would go; "
            "15 papers also from other files stay\n")
        for argv in (["delete", "1"], ["remove-file", "1"]):
            assert main(["--library", lib, *argv]) == 1
            assert "is open in the paperdesk window" in capsys.readouterr().err

    assert main(["--library", lib, "note", "1", "about quokkas"]) == 0
    assert main(["--library", lib, "delete", "1", "2", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out[len("note saved\n"):]) == {"deleted": [1, 2]}
    assert main(["--library", lib, "search", "quokkas"]) == 0
    assert capsys.readouterr().out == "no matches\n"
    assert main(["--library", lib, "delete", "3"]) == 0
    assert capsys.readouterr().out == "deleted 1 paper\n"

    # A missing id: one line naming it, nothing deleted.
    assert main(["--library", lib, "delete", "4", "424242"]) == 1
    assert capsys.readouterr().err == "paperdesk: no paper with id 424242\n"
    assert main(["--library", lib, "delete", "4", "424242", "--dry-run"]) == 1
    assert capsys.readouterr().err == "paperdesk: no paper with id 424242\n"
    assert main(["--library", lib, "show", "4"]) == 0
    capsys.readouterr()

    # The file by its path relative to the current folder; papers in both files stay.
    monkeypatch.chdir(seed_files[0].parent.parent)
    rel = f"{seed_files[0].parent.name}/{seed_files[0].name}"
    assert main(["--library", lib, "remove-file", rel, "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert (len(plan["deleted"]), len(plan["kept"]), plan["dry_run"]) == (102, 15, False)
    assert plan["source"]["path"] == str(seed_files[0])
    assert main(["--library", lib, "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["papers"], stats["indexed"], stats["sources"], stats["notes"]) == (
        120, 120, 1, 0)
    assert main(["--library", lib, "remove-file", seed_files[1].name]) == 0
    assert capsys.readouterr().out == (f"removed {seed_files[1]} (id 2): 120 papers "
                                       "deleted\n")
    assert main(["--library", lib, "remove-file", seed_files[1].name]) == 1
    assert capsys.readouterr().err == (f"paperdesk: {seed_files[1].name}: no imported file "
                                       "with that id, path or name (see `paperdesk "
                                       "sources`)\n")
    assert main(["--library", lib, "sources"]) == 0
    assert capsys.readouterr().out == "no imported files\n"


@pytest.mark.parametrize("argv", [["delete"], ["delete", "x"], ["remove-file"]])
def test_delete_and_remove_file_usage_errors(tmp_path, argv, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--library", str(tmp_path / "lib"), *argv])
    assert caught.value.code == 2


def test_every_positional_argument_of_the_removal_commands_has_help():
    from paperdesk.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("delete", "remove-file"):
        for action in sub.choices[name]._actions:
            if not action.option_strings:
                assert action.help, (name, action.dest)


def test_a_query_option_takes_a_value_that_starts_with_a_minus(tmp_path, seed_files, capsys):
    """``--query -survey`` is the query "NOT survey" (argparse took "-survey" for an
    option and stopped with "expected one argument")."""
    lib = ["--library", str(tmp_path / "lib")]
    main(lib + ["import", str(seed_files[0])])
    capsys.readouterr()
    assert main(lib + ["export", "--query", "-depth", "--format", "csv"]) == 0
    without = capsys.readouterr().out.count("\n")
    assert main(lib + ["export", "--query", "depth", "--format", "csv"]) == 0
    with_depth = capsys.readouterr().out.count("\n")
    assert main(lib + ["export", "--all", "--format", "csv"]) == 0
    everything = capsys.readouterr().out.count("\n")
    assert without > 1 and with_depth > 1
    assert (without - 1) + (with_depth - 1) == everything - 1   # the header line once each
    r = run("search", "depth", "-survey", library=tmp_path / "lib")
    assert r.returncode == 2 and "put -- before the query" in r.stderr
    r = run("search", "-survey", library=tmp_path / "lib")     # "required: query" alone
    assert r.returncode == 2 and "put -- before the query" in r.stderr
    r = run("search", library=tmp_path / "lib")
    assert r.returncode == 2 and "put --" not in r.stderr


def test_import_counts_use_thousands_separators():
    """One import's output wrote "14845 added" and "14,845 new" (found by the tester)."""
    from types import SimpleNamespace

    from paperdesk.cli import _counts

    r = SimpleNamespace(added=14845, enriched=1200, duplicates=3, without_abstract=1001,
                        skipped=2500, filtered=0, saved_searches=0)
    assert _counts(r) == ("14,845 added, 1,200 enriched, 3 duplicates, 1,001 without "
                          "abstract, 2,500 left out")
