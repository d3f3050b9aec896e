"""Writing papers out: the six formats (formats) and export of a scope to a file or
text (to_file)."""
