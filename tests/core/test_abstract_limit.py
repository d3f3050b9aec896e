"""An abstract has a maximum (issue 23, item 6): a longer one is cut at
MAX_ABSTRACT_CHARS on a sentence or word boundary, the paper is kept, the import report
says so in one line per paper, and nothing else in the file is lost; in every import
format. A large text file of one or two paragraphs is streamed too, with the rules of a
file read whole."""

from __future__ import annotations

import json
import re
import textwrap

import pytest

from paperdesk.core.exports.paperdesk_json import JSON_FORMAT_NAME
from paperdesk.core.imports import daily_papers
from paperdesk.core.imports import detect as detect_module
from paperdesk.core.imports.abstract_limit import MAX_ABSTRACT_CHARS, cut_abstract
from paperdesk.core.imports.daily_papers import StreamedText, parse_decoded
from paperdesk.core.imports.detect import detect_streamed
from paperdesk.core.library import Library


def _seed_abstracts(seed_files) -> list[str]:
    out = []
    for path in seed_files:
        out += [a.abstract for a in daily_papers.read_file(path).abstracts]
    return list(dict.fromkeys(out))


def _plain(seed_files) -> list[str]:
    """The seed abstracts that read the same in every format (no LaTeX or markup
    characters)."""
    return [a for a in _seed_abstracts(seed_files)
            if re.fullmatch(r"[A-Za-z0-9 .,;:()]+", a)]


def _huge(seed_files, chars: int, plain: bool = False) -> str:
    """Real abstracts run together into one paragraph of about ``chars`` characters
    (``plain`` ones only, when asked)."""
    abstracts = _plain(seed_files) if plain else _seed_abstracts(seed_files)
    parts, n, i = [], 0, 0
    while n < chars:
        parts.append(abstracts[i % len(abstracts)])
        n += len(parts[-1]) + 1
        i += 1
    return " ".join(parts)


def _cut_notes(report) -> list[str]:
    return [w for f in report.files for w in f.warnings if "abstract cut at" in w]


def _check_cut(lib, text: str) -> str:
    """The one paper whose abstract was cut: at most the limit, a prefix of ``text``
    ending a sentence."""
    rows = lib.db.execute("SELECT abstract FROM papers WHERE length(abstract) > ?",
                          [MAX_ABSTRACT_CHARS // 2]).fetchall()
    assert len(rows) == 1
    kept = rows[0][0]
    assert len(kept) <= MAX_ABSTRACT_CHARS and text.startswith(kept) and kept.endswith(".")
    return kept


def test_cut_falls_at_a_sentence_end_else_a_word_boundary():
    assert cut_abstract("One two. Three four five six. Seven eight", 30) == \
        "One two. Three four five six."
    assert cut_abstract("One two three four five six seven eight", 30) == \
        "One two three four five six"
    assert cut_abstract("x" * 40, 30) == "x" * 30        # no boundary: at the limit
    assert cut_abstract("short", 30) == "short"


@pytest.mark.parametrize("streamed", [True, False])
def test_a_huge_paragraph_among_abstracts_is_cut_and_every_other_paper_kept(
        tmp_path, seed_files, streamed, monkeypatch):
    abstracts = _seed_abstracts(seed_files)
    huge = _huge(seed_files, 1_500_000)
    if not streamed:        # the same file read whole (smaller than STREAM_MIN_BYTES)
        monkeypatch.setattr(detect_module, "STREAM_MIN_BYTES", 10 ** 9)
    path = tmp_path / "huge.txt"
    body = abstracts[:40] + [huge] + abstracts[40:]
    path.write_text("Daily Papers\n\n" + "\n\n".join(body) + "\n", encoding="utf-8")
    assert isinstance(detect_streamed(path), StreamedText) == streamed
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        kept = _check_cut(lib, huge)
        stored = {a for (a,) in lib.db.execute("SELECT abstract FROM papers")}
    assert report.added == len(abstracts) + 1 and stored == set(abstracts) | {kept}
    assert _cut_notes(report) == [f"abstract 41: abstract cut at {len(kept):,} characters "
                                  f"(was {len(huge):,})"]


def test_a_file_of_one_huge_paragraph_is_streamed_and_stored_as_one_cut_paper(
        tmp_path, seed_files):
    huge = _huge(seed_files, 1_500_000)
    path = tmp_path / "one.txt"
    path.write_text("Daily Papers\n\n" + huge + "\n", encoding="utf-8")
    stream = detect_streamed(path)
    assert isinstance(stream, StreamedText) and stream.header == "Daily Papers"
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        kept = _check_cut(lib, huge)
    assert report.added == 1 and report.files[0].header == "Daily Papers"
    assert _cut_notes(report) == [f"abstract 1: abstract cut at {len(kept):,} characters "
                                  f"(was {len(huge):,})"]


LONG = ("We study how a model trained on few labels generalises to new domains and find "
        "that simple augmentation closes most of the gap on three benchmarks of images.")


@pytest.mark.parametrize("text", [
    "Daily Papers\n" + "\n".join([LONG, LONG.replace("three", "five")] * 4000),
    "Daily Papers\n\n" + "\n".join([LONG, LONG.replace("three", "five")] * 4000),
    "\n".join([LONG, LONG.replace("three", "five")] * 4000),
    "Daily Papers\n\n" + "We propose a method for image\nclassification that works.\n" * 30000,
    "We propose a method for image\nclassification that works.\n" * 30000,
    LONG + "\n\n" + " ".join([LONG] * 8000),
], ids=["header-line", "header-paragraph", "no-header", "wrapped-header", "wrapped",
        "two-paragraphs"])
def test_a_large_file_of_few_paragraphs_is_streamed_as_a_whole_read_would_read_it(
        tmp_path, text):
    path = tmp_path / "few.txt"
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size >= daily_papers.STREAM_MIN_BYTES
    whole = parse_decoded(path, text, "utf-8")
    stream = detect_streamed(path)
    assert isinstance(stream, StreamedText)
    assert (stream.header, stream.warnings) == (whole.header, whole.warnings)
    assert list(stream.abstracts()) == whole.abstracts


def _bibtex(abstracts: dict[str, str]) -> str:
    return "\n".join(f"@article{{{key},\n  title = {{Paper {key}}},\n  year = {{2021}},\n"
                     f"  abstract = {{{text}}}\n}}\n" for key, text in abstracts.items())


def _ris(abstracts: dict[str, str]) -> str:
    return "".join(f"TY  - JOUR\nID  - {key}\nTI  - Paper {key}\nPY  - 2021\n"
                   f"AB  - {text}\nER  - \n\n" for key, text in abstracts.items())


def _ris_wrapped(abstracts: dict[str, str]) -> str:
    """RIS with each abstract hard-wrapped: continuation lines without a tag."""
    return _ris({key: textwrap.fill(text, 78) for key, text in abstracts.items()})


def _csl(abstracts: dict[str, str]) -> str:
    return json.dumps([{"id": key, "type": "article-journal", "title": f"Paper {key}",
                        "abstract": text} for key, text in abstracts.items()])


def _arxiv(abstracts: dict[str, str]) -> str:
    return "".join(json.dumps({"id": f"2101.{n:05d}", "title": f"Paper {key}",
                               "abstract": text, "categories": "cs.LG",
                               "update_date": "2021-01-05"}) + "\n"
                   for n, (key, text) in enumerate(abstracts.items(), 1))


def _export(abstracts: dict[str, str]) -> str:
    return json.dumps({"format": JSON_FORMAT_NAME, "version": 2, "papers": [
        {"title": f"Paper {key}", "abstract": text} for key, text in abstracts.items()]})


@pytest.mark.parametrize("write, name, label", [
    (_bibtex, "x.bib", "entry huge"), (_ris, "x.ris", "record 2 (huge)"),
    (_ris_wrapped, "x.ris", "record 2 (huge)"),
    (_csl, "x.json", "item 2 (huge)"), (_arxiv, "x.jsonl", "line 2 (2101.00002)"),
    (_export, "x.json", "paper 'Paper huge'")],
    ids=["bibtex", "ris", "ris-wrapped", "csl-json", "arxiv", "paperdesk-json"])
def test_every_format_cuts_a_huge_abstract_and_keeps_the_other_records(
        tmp_path, seed_files, write, name, label):
    abstracts = _plain(seed_files)
    huge = _huge(seed_files, 300_000, plain=True)     # under arXiv's line limit of 1 MB
    records = {"small1": abstracts[0], "huge": huge, "small2": abstracts[1]}
    path = tmp_path / name
    path.write_text(write(records), encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path], sync=False)
        assert report.files[0].error is None
        kept = _check_cut(lib, huge)
        stored = {a for (a,) in lib.db.execute("SELECT abstract FROM papers")}
    assert report.added == 3 and stored == {abstracts[0], abstracts[1], kept}
    assert _cut_notes(report) == [f"{label}: abstract cut at {len(kept):,} characters "
                                  f"(was {len(huge):,})"]
