"""Work off the UI thread: the one writer and its reader (operations.LibraryWorker),
and the search, saved-search count, import, export and index-sync runners (workers)."""
