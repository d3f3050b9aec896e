"""The discover commands (issue 15 item 6) and ``search --sort interest`` (item 4) on the
sample library: ``related``, ``terms``, ``suggest-tags``, with and without ``--json``,
the term table built on first use with a progress line, one-line errors, read-only
libraries and Ctrl+C."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from paperdesk.cli import main
from paperdesk.core.discover.build import BuildCancelled
from paperdesk.core.discover.engine import Discover
from paperdesk.core.discover.evaluation import load_labels
from paperdesk.core.discover.term_table import TERMS_DIR
from paperdesk.core.library import Library

LABELS = Path(__file__).parent / "data" / "seed_topics.json"
DEPTH_TITLE = "We present a foundation model for zero-shot metric monocular depth estimation"


@pytest.fixture(scope="module")
def template(tmp_path_factory, seed_files):
    """A library of the sample papers (no term table yet), its topics and the depth
    paper's id."""
    lib = tmp_path_factory.mktemp("dcli") / "lib"
    assert main(["--library", str(lib), "import", *map(str, seed_files)]) == 0
    with Library.open(lib) as opened:
        topics = load_labels(opened, LABELS)
        depth = next(pid for pid, title in opened.db.execute("SELECT id, title FROM papers")
                     if title.startswith(DEPTH_TITLE))
    return lib, topics, depth


@pytest.fixture
def seeded(template, tmp_path):
    lib, topics, depth = template
    copy = tmp_path / "lib"
    shutil.copytree(lib, copy)
    return copy, topics, depth


def cli(library: Path, *args) -> list:
    return ["--library", str(library), *map(str, args)]


def test_related_builds_the_table_once_then_answers(seeded, capsys):
    lib, topics, depth = seeded
    capsys.readouterr()
    assert main(cli(lib, "related", depth, "--json")) == 0
    captured = capsys.readouterr()
    assert "the term table must be built" in captured.err
    assert "paperdesk: key terms found for 225 papers" in captured.err
    related = json.loads(captured.out)
    assert len(related) == 10
    assert all(set(r) == {"id", "title", "score", "shared", "authors", "venue"} for r in related)
    assert [topics[r["id"]] for r in related[:5]].count("depth-estimation") >= 4
    assert all(3 <= len(r["shared"]) <= 5 for r in related)
    assert (lib / TERMS_DIR / "meta.json").is_file()
    # the second time: read from terms/, nothing on standard error
    assert main(cli(lib, "related", depth, "--limit", 3)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    assert len(lines) == 6
    assert lines[0].split()[0] == str(related[0]["id"])
    assert lines[1].strip() == "shares: " + ", ".join(related[0]["shared"])


def test_terms_lists_key_terms_with_weights_and_queries(seeded, capsys):
    lib, _, depth = seeded
    assert main(cli(lib, "terms", depth, "--json")) == 0
    terms = json.loads(capsys.readouterr().out)
    assert len(terms) == 8 and all(set(t) == {"term", "weight", "query"} for t in terms)
    weights = [t["weight"] for t in terms]
    assert weights == sorted(weights, reverse=True)
    by_term = {t["term"]: t["query"] for t in terms}
    assert by_term["zero-shot"] == '"zero-shot"' and by_term["monocular"] == "monocular"
    assert main(cli(lib, "terms", depth, "--limit", 2)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{t['weight']:5.3f}  {t['term']}" for t in terms[:2]]


def test_suggest_tags_names_the_papers_and_terms(seeded, capsys):
    lib, topics, depth = seeded
    depth_ids = [p for p in sorted(topics) if topics[p] == "depth-estimation"
                 and p != depth]      # every other one: suggestions need evidence
    agent_ids = [p for p in sorted(topics) if topics[p] == "llm-agents"]
    assert main(cli(lib, "suggest-tags", depth)) == 0
    assert "no tag to suggest" in capsys.readouterr().out
    assert main(cli(lib, "tag", "add", "depth", *depth_ids)) == 0
    assert main(cli(lib, "tag", "add", "agents", *agent_ids)) == 0
    capsys.readouterr()
    assert main(cli(lib, "suggest-tags", depth, "--json")) == 0
    found = json.loads(capsys.readouterr().out)
    assert found[0]["tag"] == "depth" and set(found[0]["like"]) <= set(depth_ids)
    assert found[0]["reason"].startswith(f"like #{found[0]['like'][0]}")
    assert set(found[0]) == {"tag", "tag_id", "score", "like", "shared", "reason",
                             "suggested"}
    assert found[0]["suggested"] is True
    assert main(cli(lib, "suggest-tags", depth)) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("depth  (") and "tagged depth; shares: " in first


def test_unknown_id_and_paper_without_terms_are_one_line(seeded, tmp_path, capsys):
    lib, _, _ = seeded
    for command in ("related", "terms", "suggest-tags"):
        assert main(cli(lib, command, 999999)) == 1
        err = capsys.readouterr().err.splitlines()
        assert err[-1] == "paperdesk: no paper with id 999999", err
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("Daily Papers\n\n2024 2025 1999 12 34 56 78 90.\n", encoding="utf-8")
    assert main(cli(lib, "import", numbers)) == 0
    with Library.open(lib) as opened:
        pid = max(opened.papers.ids())
    capsys.readouterr()
    for command in ("related", "terms", "suggest-tags"):
        assert main(cli(lib, command, pid)) == 1
        err = capsys.readouterr().err
        assert err == (f"paperdesk: paper {pid} has no words to compare (its title and "
                       "abstract have no terms)\n")


def test_search_sort_interest_falls_back_then_names_the_words(seeded, capsys):
    lib, topics, _ = seeded
    depth_ids = [p for p in sorted(topics) if topics[p] == "depth-estimation"]
    assert main(cli(lib, "mark", *depth_ids[:3], "--star")) == 0
    capsys.readouterr()
    assert main(cli(lib, "search", "is:unread", "--sort", "interest", "--limit", 5)) == 0
    captured = capsys.readouterr()
    assert ("paperdesk: note: Worth reading first needs at least 5 papers starred or "
            "tagged (now 3); showing them by date added.") in captured.err
    assert "up:" not in captured.out
    with Library.open(lib) as opened:
        by_date = opened.papers.ids()
    shown = [int(line.split()[0]) for line in captured.out.splitlines()[:5]]
    assert shown == by_date[:5]
    assert main(cli(lib, "mark", *depth_ids[3:6], "--star")) == 0
    capsys.readouterr()
    assert main(cli(lib, "search", "is:unread", "--sort", "interest", "--limit", 10)) == 0
    captured = capsys.readouterr()
    assert "learned from 6 papers starred" in captured.err
    lines = captured.out.splitlines()
    ids = [int(line.split()[0]) for line in lines if line.split()[0].isdigit()]
    assert [topics[i] for i in ids[:10]].count("depth-estimation") >= 7
    assert sum(1 for line in lines if line.strip().startswith("up: ")) == 10
    assert main(cli(lib, "search", "depth", "--sort", "interest", "--limit", 3,
                    "--json")) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["order"]["ranked"] is True and "learned from 6" in doc["order"]["message"]
    assert all(h["up"] and isinstance(h["interest"], float) for h in doc["hits"])
    assert main(cli(lib, "search", "depth", "--limit", 1, "--json")) == 0
    assert "order" not in json.loads(capsys.readouterr().out)


def test_read_only_library_answers_from_memory(seeded, capsys):
    from paperdesk.core.store.lock import LibraryLock

    lib, topics, depth = seeded
    with LibraryLock(lib, app="gui"):
        assert main(cli(lib, "related", depth, "--json")) == 0
        related = json.loads(capsys.readouterr().out)
        assert [topics[r["id"]] for r in related[:5]].count("depth-estimation") >= 4
        assert main(cli(lib, "terms", depth)) == 0
        assert main(cli(lib, "search", "depth", "--sort", "interest")) == 0
    assert not (lib / TERMS_DIR).exists()


def test_ctrl_c_stops_the_build_without_a_traceback(seeded, capsys, monkeypatch):
    lib, _, depth = seeded
    asked = []

    def ensure(self, progress=None, cancel=None):
        os.kill(os.getpid(), signal.SIGINT)        # Ctrl+C during the build
        asked.append(cancel())
        raise BuildCancelled()

    monkeypatch.setattr(Discover, "ensure", ensure)
    capsys.readouterr()
    assert main(cli(lib, "related", depth)) == 130
    captured = capsys.readouterr()
    assert asked == [True]            # the first Ctrl+C asks the build to stop
    assert captured.err.splitlines()[-1] == "paperdesk: interrupted"
    assert "Traceback" not in captured.err and captured.out == ""
    assert not (lib / TERMS_DIR).exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_bash_completion_knows_the_new_commands(tmp_path):
    script = tmp_path / "paperdesk.bash"
    script.write_bytes(subprocess.run([sys.executable, "-m", "paperdesk", "completion",
                                       "bash"], capture_output=True, timeout=60).stdout)
    shell = (f"source {script}; COMP_WORDS=(paperdesk sug); COMP_CWORD=1; "
             "COMP_LINE='paperdesk sug'; COMP_POINT=${#COMP_LINE}; _shtab_paperdesk; "
             'printf "%s\\n" "${COMPREPLY[@]}"')
    out = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert out.stdout.split() == ["suggest-tags"]
    shell = shell.replace("sug", "search --sort in")   # ("i" is also "issue")
    shell = shell.replace("COMP_CWORD=1", "COMP_CWORD=3")
    out = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path)
    assert out.stdout.split() == ["interest"]
