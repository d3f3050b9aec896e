"""The window's sort keys, list columns and export check boxes come from the core's one
list of paper fields (:mod:`paperdesk.core.fields`)."""

from __future__ import annotations

from paperdesk.core import fields
from paperdesk.core.fields import PAPER_FIELDS, SORT_CHOICES
from paperdesk.ui.window.actions import LIST_COLUMNS
from paperdesk.ui.window.export_dialog import FIELD_LABELS
from paperdesk.ui.window.list_columns import default_list_columns
from paperdesk.ui.panes.paper_model import PaperTableModel
from paperdesk.ui.background.workers import SORTS


def test_gui_sort_keys_and_columns_come_from_the_fields():
    assert SORTS == SORT_CHOICES
    model = PaperTableModel
    assert set(model.ORDER_KEYS.values()) | {"relevance", "interest"} == set(SORT_CHOICES)
    # (Added keeps column 2, as remembered sorts and header states have it)
    assert sorted(h for h in model.HEADERS if h != "Snippet") == sorted(
        f.header for f in fields.list_fields())
    # shown until the user chooses: Title (always) and the fields shown by default
    assert ["title", *default_list_columns()] == [
        f.name for f in fields.list_fields(shown_only=True)]
    # every list column but Title can be switched on and off
    assert set(LIST_COLUMNS) | {"title"} == {f.name for f in fields.list_fields()}
    assert FIELD_LABELS == {f.name: f.label for f in PAPER_FIELDS if f.csv}
