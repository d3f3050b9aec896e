"""The screening simulation (core/screening/simulation*.py, baseline.py): its measures
against hand-computed values on toy orders, a replay of a real SYNERGY review (one seed,
few retrains), the command's table and one-line errors, and the README's table having
the rows and columns the command prints."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from paperdesk.core.discover.tag_evaluation import synergy_reviews
from paperdesk.core.screening.baseline import ElasU4Order, asreview_missing
from paperdesk.core.screening.simulation import (REPORT_HEADER, estimate_errors,
                                                 load_review, main, replay, stop_point)
from paperdesk.core.screening.simulation_metrics import (average_time_to_discovery,
                                                          recall_at, wss)
from paperdesk.core.screening.simulation_orders import (DateOrder, PaperdeskOrder,
                                                         RandomOrder)

ROOT = Path(__file__).resolve().parents[2]
SYNERGY = ROOT.parent / "shared" / "synergy"
SMALL = "Donners_2021"          # 256 papers, 15 relevant
ORDERS = [PaperdeskOrder.name, ElasU4Order.name, RandomOrder.name, DateOrder.name]

needs_synergy = pytest.mark.skipif(not (SYNERGY / f"{SMALL}.csl.json").is_file(),
                                   reason="../shared/synergy is not here")


def test_wss_is_the_random_position_less_this_one_over_the_records():
    # 2 relevant first of 10: floor(0.95 x 2) = 1st relevant; a random order
    # (round(linspace(0, 2, 10)) = 0 0 0 1 1 1 1 2 2 2) finds it at index 3, this at 0
    assert wss([1, 1, 0, 0, 0, 0, 0, 0, 0, 0]) == pytest.approx(0.3)
    # 20 relevant: the 19th (0.95 x 20) counts; last of 40, as a random order: 0
    late = [0] * 20 + [1] * 20
    random_19th = int(np.searchsorted(np.round(np.linspace(0, 20, 40)), 19))
    assert wss(late) == pytest.approx((random_19th - 38) / 40)
    assert wss([1] * 20 + [0] * 20) == pytest.approx((random_19th - 18) / 40)
    with pytest.raises(ValueError):
        wss([0, 0, 0])


def test_recall_after_ten_percent_and_average_time_to_discovery():
    labels = [1, 0, 1] + [0] * 16 + [1]          # 20 records: the first 2 hold 1 of 3
    assert recall_at(labels) == pytest.approx(1 / 3)
    assert recall_at(labels, 0.15) == pytest.approx(2 / 3)   # 3 records
    assert recall_at([0] * 5 + [1], 0.1) == 0.0               # 10 % of 6 is no record
    assert average_time_to_discovery(labels) == pytest.approx(((1 + 3 + 20) / 3,
                                                               (1 + 3 + 20) / 3 / 20))


def test_the_stop_point_is_the_first_decision_the_estimate_says_so():
    # 3 relevant then 57 irrelevant of 60: after n irrelevant, the window of the last n
    # gives P(X = 0) = (57 - n) / 57 (1 missing among the 57 - n unread): below 5 % at
    # n = 55 (2/57), not at 54 (3/57); the windows with the relevant papers are larger
    assert stop_point([True] * 3 + [False] * 57, 60) == (1.0, pytest.approx(2 / 60))
    # a relevant paper late: 4 found, 1 missing. With 15 irrelevant after it (1 unread),
    # the window of the last 56 (40 irrelevant, the relevant, 15) gives P(X <= 1) =
    # 1 - C(56,2)/C(57,2) = 2/57 < 5 %; with 14 (2 unread) its longest window gives
    # 1 - C(55,2)/C(57,2) = 0.0695 and the run of 14 gives 2/16: not yet
    late = [True] * 3 + [False] * 40 + [True] + [False] * 16
    assert stop_point(late, 60) == (1.0, pytest.approx(1 / 60))


def test_the_estimate_error_is_the_point_estimate_against_the_truth_by_hand():
    # 1 relevant of 8. After 25 % (2 read: yes, no; 6 unread) m missing survives 0.5
    # while the newest window's P(X = 0) = 1 - m / 7 >= 0.5 (m <= 3) and the whole
    # one's 1 - m (m + 1) / 56 >= 0.5 (m <= 4): M = 4, |4 - 1| / 1 = 3. After 50 % (4
    # read, 4 unread) the run of 3 noes gives C(7 - m, 3) / C(7, 3): 20/35 for m = 1,
    # 10/35 for m = 2, so M = 2: error 1
    assert estimate_errors([True] + [False] * 7, 8) == (3.0, 1.0)


@pytest.fixture(scope="module")
def small_review(tmp_path_factory):
    if not (SYNERGY / f"{SMALL}.csl.json").is_file():
        pytest.skip("../shared/synergy is not here")
    return load_review(SMALL, SYNERGY / f"{SMALL}.csl.json", SYNERGY / f"{SMALL}.labels.csv",
                       tmp_path_factory.mktemp("review") / "library")


def test_a_review_is_what_the_importer_stores(small_review):
    # 258 records, two pairs with the same abstract stored once each; 15 included
    assert len(small_review.titles) == 256
    assert int(small_review.relevant.sum()) == 15
    assert small_review.texts[0] == f"{small_review.titles[0]}\n{small_review.abstracts[0]}"


def test_a_replay_labels_every_paper_and_the_model_beats_random_order(small_review):
    runs = {}
    for order in (PaperdeskOrder(), RandomOrder(), DateOrder()):
        order.prepare(small_review)
        # 30 retrains: with the vectors, the 15th order of this seed read to the end
        # gives WSS 0.44 against random's 0.24 (0.57 after 30; 0.735 on average over
        # 10 seeds with every retrain, make evaluate)
        runs[order.name] = replay(small_review, order, seed=1, max_retrains=30)
    for run in runs.values():
        assert len(run.labels) == 256 - 2                  # all but the prior
        assert int(run.labels.sum()) == 15 - 1
    assert 1 <= len(runs["paperdesk"].seconds) <= 30
    assert runs["random"].seconds == [] and runs["date"].seconds == []
    assert wss(runs["paperdesk"].labels) > wss(runs["random"].labels) + 0.3
    assert recall_at(runs["paperdesk"].labels) > 0.4
    for run in runs.values():
        assert 0.0 <= run.stop_unread < 1.0 and 0.0 < run.stop_recall <= 1.0
        assert len(run.estimate_errors) == 2 and min(run.estimate_errors) >= 0.0
    # half-way through a good order the estimate is nearer the truth than at the start
    assert runs["paperdesk"].estimate_errors[1] < 1.0


@needs_synergy
def test_the_command_prints_the_table_for_the_reviews_asked(capsys):
    assert main(["--data", str(SYNERGY), "--reviews", SMALL, "--seeds", "1",
                 "--max-retrains", "5"]) == 0
    out, err = capsys.readouterr()
    assert REPORT_HEADER in out.splitlines()
    # the first line says what paperdesk's order ran on (the vectors when the
    # embeddings extra is installed, else the words alone and why)
    first = out.splitlines()[0]
    assert first.startswith(f"1 review from {SYNERGY}, 1 seed each; paperdesk's order on ")
    assert (first.endswith("words and vectors (wordllama-l2-supercat-256)")
            or first.endswith("words alone (the package wordllama is not installed "
                              "(pip install 'paperdesk[embeddings]'))")), first
    rows = [line.split(" | ")[:2] for line in out.splitlines() if line.startswith(f"| {SMALL}")]
    expected = ORDERS if asreview_missing() is None else [o for o in ORDERS
                                                         if o != ElasU4Order.name]
    assert [order for _, order in rows] == expected
    if asreview_missing() is not None:
        assert "asreview package is not installed" in err


def test_bad_input_is_one_line(tmp_path, capsys):
    assert main(["--data", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nowhere: no such folder" in err
    assert main(["--data", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err and "NAME.labels.csv" in err
    if (SYNERGY / f"{SMALL}.csl.json").is_file():
        assert main(["--data", str(SYNERGY), "--reviews", "Nobody_1999"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no review Nobody_1999" in err
    (tmp_path / "X.csl.json").write_text("[]", encoding="utf-8")
    (tmp_path / "X.labels.csv").write_text("id,included\n", encoding="utf-8")
    assert main(["--data", str(tmp_path)]) == 1
    # (without the asreview package a line before says the baseline is left out)
    err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                  if "baseline left out" not in line)
    assert err.count("\n") == 1 and "X.labels.csv" in err and "Traceback" not in err


_ITEMS = [{"id": f"W{i}", "type": "article-journal", "title": f"Paper {i} on topic {i % 3}",
           "abstract": f"We study topic {i % 3} with method {i} and report results."}
          for i in range(8)]
_LABELS = "id,included\n" + "".join(f"W{i},{int(i < 3)}\n" for i in range(8))


@pytest.mark.parametrize("csl, labels, told", [
    ('{"items": []}', _LABELS, "R.csl.json: not CSL-JSON: a list of items was expected, it "
                               "is an object"),
    ('["a", "b"]', _LABELS, "R.csl.json: item 1 is not a CSL-JSON item with an id"),
    ('[{"id": 1, ', _LABELS, "R.csl.json: not valid JSON"),
    (None, _LABELS.replace("W4,0", "W4,maybe"), "R.labels.csv: line 6: included is 'maybe', "
                                                "not 0 or 1"),
    (None, _LABELS.replace("included", "incl"), "R.labels.csv: no included column"),
    (None, "", "R.labels.csv: empty"),
    (None, _LABELS + "W0,0\n", "R.labels.csv: line 10: W0 is labelled both 0 and 1"),
    (None, _LABELS.replace("W", "X"), "R.labels.csv: none of its ids is a record of "
                                      "R.csl.json"),
    (None, _LABELS.replace("W1,1", "W1,0").replace("W2,1", "W2,0"),
     "R.labels.csv: needs at least 2 relevant and 2 irrelevant papers to replay (1 of 8 "
     "relevant)"),
])
def test_a_review_not_in_the_format_is_refused_naming_its_file(tmp_path, capsys, csl, labels,
                                                               told):
    """Each gave a traceback, no message or the wrong file's name before."""
    (tmp_path / "R.csl.json").write_text(csl if csl is not None else json.dumps(_ITEMS),
                                         encoding="utf-8")
    (tmp_path / "R.labels.csv").write_text(labels, encoding="utf-8")
    assert main(["--data", str(tmp_path), "--seeds", "1"]) == 1
    err = "".join(line for line in capsys.readouterr().err.splitlines(keepends=True)
                  if "baseline left out" not in line)
    assert err.count("\n") == 1 and told in err and "Traceback" not in err


def test_records_without_a_label_are_noted(tmp_path, capsys):
    (tmp_path / "R.csl.json").write_text(json.dumps(_ITEMS), encoding="utf-8")
    (tmp_path / "R.labels.csv").write_text(_LABELS.replace("W7,0\n", ""), encoding="utf-8")
    assert main(["--data", str(tmp_path), "--seeds", "1", "--max-retrains", "2"]) == 0
    assert ("R.labels.csv: 1 of the 8 records of R.csl.json have no label; counted as not "
            "included") in capsys.readouterr().err


def _table_rows(text: str) -> tuple[list[str], list[list[str]]]:
    lines = text.splitlines()
    start = lines.index(REPORT_HEADER)
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return lines[start:start + 1], rows


@needs_synergy
@pytest.mark.parametrize("page", ["README.md", "docs/screening.md"])
def test_the_documented_table_is_the_commands_output(page):
    header, rows = _table_rows((ROOT / page).read_text("utf-8"))
    names = [name for name, _, _ in synergy_reviews(SYNERGY)]
    assert [row[:2] for row in rows] == (
        [[name, order] for name in names for order in ORDERS]
        + [["**mean**", order] for order in ORDERS])
    columns = REPORT_HEADER.count("|") - 1
    percent = re.compile(r"^-?\d+(\.\d)?%$")
    for row in rows:
        assert len(row) == columns
        assert all(percent.match(row[i]) for i in (2, 3, 6, 7)), row
        assert re.match(r"^\d+% / \d+%$", row[8]), row
