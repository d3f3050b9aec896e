"""What a search that finds nothing says (issue 25 item 13): a query for a year, author,
DOI or arXiv id on a library where no paper has one says so, instead of "nothing
contains year:2023, try fewer words"; once a paper has one, a miss says nothing of it."""

from __future__ import annotations

import pytest

from paperdesk.core.models import Metadata

NO_YEAR = ("no paper has a year yet: add one with the metadata editor (m) or paperdesk "
           "edit, or import BibTeX, RIS or CSL-JSON that has them")


@pytest.mark.parametrize("query", ["year:2023", "depth year:2020..2024", "has:year"])
def test_a_year_query_on_a_library_without_years_says_no_paper_has_one(seeded_library,
                                                                        query):
    results = seeded_library.search.find(query)
    assert results.total == 0
    assert results.message == NO_YEAR


def test_the_message_goes_once_a_paper_has_the_field(seeded_library):
    lib = seeded_library
    assert lib.search.find("author:zebra").message.startswith("no paper has an author yet")
    assert lib.search.find("zzqx").message == ""          # no field asked for
    pid = lib.papers.ids()[0]
    lib.papers.set_metadata(pid, Metadata(date="2021"))
    lib.index.sync()
    assert lib.search.find("year:2021").total == 1
    missed = lib.search.find("year:2023")
    assert missed.total == 0 and missed.message == ""    # years exist: a plain miss
