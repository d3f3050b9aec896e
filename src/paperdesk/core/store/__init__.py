"""The SQLite store: connections and transactions (db), tables and migrations (schema),
and the library folder's one-writer lock (lock)."""
