"""Full-text search: the Whoosh index and its documents (index), the query language
(query), and the vectorised BM25F fast path over Whoosh's postings (fastscore)."""

# Before any index is opened: no pickle in an index folder may name code (safe_pickle).
from paperdesk.core.search import safe_pickle as _safe_pickle  # noqa: E402

_safe_pickle.install()
