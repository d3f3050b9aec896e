"""The main window and what hangs off it: panes and wiring (main_window), the one table
of actions (actions), triage and annotation slots (triage), export and copy commands
(export_commands), citation commands (metadata_commands) with the metadata editor
(metadata_dialog), the list's optional columns (list_columns), saved-search commands
(saved_searches), the export dialog, the search help and small dialogs."""
