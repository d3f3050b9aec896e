"""paperdesk: read, triage, tag, annotate and export research-paper abstracts, offline."""

__version__ = "0.1.0"
