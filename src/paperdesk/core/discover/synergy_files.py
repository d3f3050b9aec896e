"""Reading a review in the SYNERGY format, checked: ``NAME.csl.json`` (a list of CSL-JSON
items, each with an ``id``) beside ``NAME.labels.csv`` (columns ``id``, ``included`` with
0 or 1, and optionally ``refs_in_set``), as ``../shared/synergy/README.md`` describes
them. Both evaluations (``paperdesk-evaluate`` and ``make evaluate-related``) read reviews
through here, so that a file that is not of that shape is refused in one line naming
that file and the problem, before anything is run.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ReviewFiles", "read_review_files"]

#: The values ``included`` may hold.
_LABELS = {"0": False, "1": True}


@dataclass
class ReviewFiles:
    """A review's two files, read and checked.

    Attributes:
        positions: ``{record id: its 1-based position in the CSL-JSON list}``.
        included: the ids labelled 1.
        labelled: every id of the labels file that is a record of the CSL-JSON.
        notes: one line per thing worth saying that does not stop the run (records
            without a label, counted as not included).
    """

    positions: dict[str, int]
    included: set[str]
    labelled: set[str]
    notes: list[str] = field(default_factory=list)


def _records(csl: Path) -> dict[str, int]:
    try:
        items = json.loads(Path(csl).read_text("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{csl}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{csl}: not valid JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"{csl}: JSON nested too deeply to read") from None
    if not isinstance(items, list):
        raise ValueError(f"{csl}: not CSL-JSON: a list of items was expected, it is "
                         f"{'an object' if isinstance(items, dict) else 'a single value'}")
    positions: dict[str, int] = {}
    for position, item in enumerate(items, 1):
        if not isinstance(item, dict) or not isinstance(item.get("id"), (str, int)):
            raise ValueError(f"{csl}: item {position} is not a CSL-JSON item with an id")
        positions.setdefault(str(item["id"]), position)
    return positions


def read_review_files(csl: Path, labels: Path) -> ReviewFiles:
    """Read and check a review's CSL-JSON and labels files.

    Args:
        csl: ``NAME.csl.json``.
        labels: ``NAME.labels.csv``.
    Returns:
        A :class:`ReviewFiles`.
    Raises:
        OSError: a file cannot be read.
        ValueError: one line naming the file and the problem: the CSL-JSON is not a list
            of items with an ``id``; the labels file is empty, lacks the ``id`` or
            ``included`` column, holds an ``included`` other than 0 or 1 (the line
            is named), labels one id twice differently, or names no record of the
            CSL-JSON.
    """
    positions = _records(csl)
    included: set[str] = set()
    labelled: dict[str, bool] = {}
    try:
        with open(labels, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            columns = reader.fieldnames or []
            missing = [c for c in ("id", "included") if c not in columns]
            if not columns:
                raise ValueError(f"{labels}: empty (a labels file has a header line "
                                 "with id and included)")
            if missing:
                raise ValueError(f"{labels}: no {' and no '.join(missing)} column (its "
                                 f"header is {','.join(columns)[:80]!r}; comma-separated)")
            for row in reader:
                rid = (row["id"] or "").strip()
                value = (row["included"] or "").strip()
                if value not in _LABELS:
                    raise ValueError(f"{labels}: line {reader.line_num}: included is "
                                     f"{value[:20]!r}, not 0 or 1")
                if rid in labelled and labelled[rid] != _LABELS[value]:
                    raise ValueError(f"{labels}: line {reader.line_num}: {rid[:60]} is "
                                     "labelled both 0 and 1")
                labelled[rid] = _LABELS[value]
                if _LABELS[value]:
                    included.add(rid)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{labels}: not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None
    except csv.Error as exc:
        raise ValueError(f"{labels}: not a CSV file ({exc})") from None
    known = {rid for rid in labelled if rid in positions}
    if positions and not known:
        raise ValueError(f"{labels}: none of its ids is a record of {Path(csl).name}")
    notes = []
    unlabelled = len(positions) - len(known)
    if unlabelled:
        notes.append(f"{labels}: {unlabelled} of the {len(positions)} records of "
                     f"{Path(csl).name} have no label; counted as not included")
    return ReviewFiles(positions, included & known, known, notes)
