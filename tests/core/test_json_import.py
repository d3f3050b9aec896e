"""paperdesk's own JSON export (version 3; version 2 added the metadata) read back: metadata and citation keys survive a
round trip into an empty library; version 1 files still import; malformed metadata is
refused with a reason."""

from __future__ import annotations

import json

from paperdesk.core.exports.formats import JSON_FORMAT_VERSION
from paperdesk.core.library import Library
from paperdesk.core.models import Author, Metadata


def _by_abstract(lib):
    return {lib.papers.get(pid).abstract: lib.papers.get(pid) for pid in lib.papers.ids()}


def test_a_json_export_reproduces_metadata_and_keys(cited_library, cited_exports,
                                                         tmp_path):
    doc = json.loads(cited_exports["json"].read_text(encoding="utf-8"))
    assert doc["version"] == JSON_FORMAT_VERSION == 3   # 3: saved searches too
    first = doc["papers"][0]
    assert {"citation_key", "entry_type", "authors", "date", "venue", "doi", "arxiv_id",
            "url", "mentioned"} <= set(first)
    assert first["authors"] == [{"family": "Doe", "given": "Jane"},
                                {"family": "van der Berg", "given": "Jan"}]
    with Library.open(tmp_path / "copy") as copy:
        report = copy.imports.run([cited_exports["json"]])
        assert report.rejected == [] and report.added == len(cited_library.papers.ids())
        before, after = _by_abstract(cited_library), _by_abstract(copy)
        assert set(before) == set(after)
        for abstract, paper in before.items():
            again = after[abstract]
            assert again.citation_key == paper.citation_key
            assert again.metadata == paper.metadata
            assert again.entry_type == paper.entry_type
            assert again.mentioned == paper.mentioned
        assert len(copy.search.hits("author:Knuth")) == 1      # indexed with its metadata


def test_a_version_1_export_still_imports(tmp_path):
    doc = {"format": "paperdesk-export", "version": 1, "exported_at": "2024-01-01T00:00:00Z",
           "papers": [{"id": 7, "title": "Old", "derived_title": "Old",
                       "abstract": "An old export about arXiv:2212.08630 and caching.",
                       "tags": [{"name": "old", "colour": "#123456", "key": None}],
                       "note": "kept", "highlights": [],
                       "urls": ["https://example.org"], "arxiv_ids": ["2212.08630"],
                       "sources": [], "added_at": "2023-01-01T00:00:00Z",
                       "read_at": None, "starred": True}]}
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with Library.open(tmp_path / "lib") as lib:
        report = lib.imports.run([path])
        assert report.rejected == [] and report.added == 1
        paper = lib.papers.get(report.added_ids[0])
        assert paper.metadata == Metadata()           # mentioned, never the paper's own
        assert paper.mentioned.arxiv_ids == ("2212.08630",)
        assert paper.citation_key.startswith("old") and paper.note == "kept"
        assert paper.starred and [t.name for t in paper.tags] == ["old"]


def test_malformed_metadata_and_unknown_versions_are_refused(tmp_path):
    base = {"format": "paperdesk-export", "version": 2,
            "papers": [{"abstract": "A paper about refusals.", "doi": "10.1/x"}]}
    cases = [(base, "paper 1: doi: '10.1/x' is not a DOI"),
             ({**base, "papers": [{"abstract": "A.", "authors": ["Doe"]}]},
              "paper 1: author: cannot read 'Doe'"),
             ({**base, "papers": [{"abstract": "A.", "citation_key": "a key"}]},
              "paper 1: citation key: 'a key' may hold only"),
             ({**base, "version": 4}, "version 4 is not one this paperdesk reads")]
    with Library.open(tmp_path / "lib") as lib:
        for n, (doc, reason) in enumerate(cases):
            path = tmp_path / f"bad{n}.json"
            path.write_text(json.dumps(doc), encoding="utf-8")
            report = lib.imports.run([path])
            assert report.added == 0
            assert reason in report.rejected[0]["reason"], report.rejected
        assert lib.papers.ids() == []


def test_metadata_fills_a_paper_that_has_none_and_keys_stay_unique(tmp_path):
    abstracts = ["First paper about keys.", "Second paper about keys.",
                 "Third paper about keys."]
    with Library.open(tmp_path / "source") as src:
        from helpers import write_daily
        ids = src.imports.run([write_daily(tmp_path / "a.txt", abstracts)]).added_ids
        for pid, family in zip(ids, ("Ada", "Bob", "Cy")):
            src.papers.set_metadata(pid, Metadata(authors=(Author(family, "X"),), date="2020"))
            src.papers.regenerate_citation_key(pid)
        out = tmp_path / "out.json"
        src.exports.to_file(ids, "json", out)
        keys = [src.papers.citation_key(i) for i in ids]
    with Library.open(tmp_path / "target") as lib:
        from helpers import write_daily
        first, second = lib.imports.run(
            [write_daily(tmp_path / "b.txt", abstracts[:2] + ["Unrelated paper."])]).added_ids[:2]
        lib.papers.set_metadata(second, Metadata(authors=(Author("Own", "O"),), date="1999"))
        taken = lib.imports.run([write_daily(tmp_path / "c.txt", ["A paper taking a key."])])
        lib.papers.set_citation_key(taken.added_ids[0], keys[2])
        report = lib.imports.run([out])
        # the first takes the export's metadata (enriched), the second keeps its own
        assert (report.added, report.enriched, report.duplicates) == (1, 1, 1)
        assert lib.papers.metadata(first).authors == (Author("Ada", "X"),)   # it had none
        assert lib.papers.metadata(second).authors == (Author("Own", "O"),)  # its own kept
        assert lib.papers.citation_key(first) != keys[0]                     # keys never change
        third = report.added_ids[0]
        assert lib.papers.metadata(third).authors == (Author("Cy", "X"),)
        assert lib.papers.citation_key(third) != keys[2]                     # taken: a new one
        assert lib.papers.citation_key(third).startswith("cy2020")
