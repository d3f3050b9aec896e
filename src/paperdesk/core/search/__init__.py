"""Full-text search: the Whoosh index and its documents (index), the query language
(query), and the vectorised BM25F fast path over Whoosh's postings (fastscore)."""
