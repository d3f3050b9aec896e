"""One correction to a CSL style before pandoc's citeproc formats with it: nested groups.
Pure: no database, no Qt.

CSL 1.0.2 (https://docs.citationstyles.org/en/stable/specification.html, "Group"): a
``cs:group`` is suppressed when it calls at least one variable and all the variables it
calls are empty; "a non-empty nested cs:group is treated as a non-empty variable for the
purposes of determining suppression of the outer cs:group". Pandoc's citeproc (3.x)
counts the variables called inside nested groups but not their output, so IEEE's

    <group delimiter=". ">
      <group delimiter=": "><text term="accessed"/><date variable="accessed"/></group>
      <group prefix="[" suffix="]"><text term="online"/></group>
    </group>

loses "[Online]" for every reference without an access date, where citeproc-js (Zotero's
processor) writes it as the specification says.

:func:`correct_nested_groups` rewrites such a group so that pandoc's rule gives the
specification's result: in a group whose children are all groups, each child group that
only renders variables directly (``text``, ``number``, ``date``, ``names``, ``label``
with ``variable``; no macro, no substitute, no group inside) is put under ``<choose><if
variable="its variables" match="any">``. When its variables are empty such a child is
suppressed anyway (specification and pandoc agree), and now pandoc no longer counts its
empty variables for the outer group, whose suppression then depends on its other children
as the specification says. Nothing else changes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

__all__ = ["correct_nested_groups"]

_NS = "http://purl.org/net/xbiblio/csl"
_Q = "{" + _NS + "}"
_CALLERS = {_Q + name for name in ("text", "number", "date", "names", "label")}


def _direct_variables(group: ET.Element) -> list[str] | None:
    """The variables ``group`` renders when it is a group of variable-rendering elements
    only (no macro, group, choose or substitute inside), else ``None``."""
    names: list[str] = []
    for element in group.iter():
        if element is group:
            continue
        if element.tag in (_Q + "group", _Q + "choose", _Q + "substitute") \
                or element.get("macro") is not None:
            return None
        if element.tag in _CALLERS and element.get("variable"):
            names += element.get("variable", "").split()
    return names or None


def correct_nested_groups(style_xml: str) -> str:
    """Return ``style_xml`` with the nested-group correction of the module docstring, or
    unchanged when no group needs it.

    Args:
        style_xml: the text of an independent CSL style file.
    Returns:
        The style's text (comments dropped when something was corrected).
    Raises:
        xml.etree.ElementTree.ParseError: ``style_xml`` is not XML.
    """
    ET.register_namespace("", _NS)
    root = ET.fromstring(style_xml)
    changed = False
    for outer in list(root.iter(_Q + "group")):
        children = list(outer)
        if len(children) < 2 or any(child.tag != _Q + "group" for child in children):
            continue
        if all(_direct_variables(child) is not None for child in children):
            continue            # only variables: pandoc's rule is the specification's
        for position, child in enumerate(children):
            variables = _direct_variables(child)
            if variables is None:
                continue
            choose = ET.Element(_Q + "choose")
            condition = ET.SubElement(choose, _Q + "if",
                                      {"variable": " ".join(variables), "match": "any"})
            outer.remove(child)
            condition.append(child)
            outer.insert(position, choose)
            changed = True
    if not changed:
        return style_xml
    return ET.tostring(root, encoding="unicode", xml_declaration=True)
