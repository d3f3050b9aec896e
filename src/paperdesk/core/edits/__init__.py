"""The user's changes: tags, notes, highlights, read and star marks, titles
(annotations), saved searches (saved_searches), and the undo stack they record on
(undo)."""
