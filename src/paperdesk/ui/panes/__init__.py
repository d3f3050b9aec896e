"""The window's panes and their parts: the tag pane, the paper list (paper_model and
its delegates) and the reading pane (detail_pane, abstract_view, note_editor,
tag_chips, highlight_list, paper_html, links, flow_layout)."""
