"""SQL of the near-duplicate stage: the ``duplicate_checked`` and ``duplicate_pairs``
tables (schema version 5, :mod:`paperdesk.core.store.schema`). The LSH bands are kept
outside SQLite (:mod:`paperdesk.core.store.band_runs`, derived from the signatures in
``duplicate_checked``); the ``duplicate_bands`` table of earlier versions stays empty
(emptied by the stage's first run, :func:`drop_old_bands`).

Every writer here runs inside the caller's transaction; readers use the caller's
connection. Pairs are stored with ``paper_a < paper_b``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import sqlite_utils

from paperdesk.core import duplicates as measure
from paperdesk.core.duplicates import SIGNATURE_VERSION, DuplicatePair
from paperdesk.core.store import band_runs

__all__ = ["unchecked", "unchecked_count", "mark_checked", "drop_bands", "drop_old_bands",
           "mark_checked_many",
           "signatures", "signatures_and_hashes", "members", "candidates",
           "flag_pair",
           "pairs", "pair", "set_status", "open_count", "pair_rows", "restore_pair_rows",
           "paper_with_hash", "record_merge", "closest_paper"]

_UNCHECKED = ("FROM papers p LEFT JOIN duplicate_checked c ON c.paper_id = p.id "
              "WHERE (c.paper_id IS NULL OR c.content_hash != p.content_hash "
              "OR c.version != ?)")


def _ids_clause(ids: Sequence[int] | None) -> tuple[str, list]:
    if ids is None:
        return "", []
    return f" AND p.id IN ({','.join('?' * len(ids))})", [int(i) for i in ids]


def unchecked_count(db: sqlite_utils.Database, ids: Sequence[int] | None = None) -> int:
    """Number of papers (of ``ids``, or of all) the stage has not looked at with their
    current abstract and signature version."""
    clause, args = _ids_clause(ids)
    return db.execute(f"SELECT count(*) {_UNCHECKED}{clause}",
                      [SIGNATURE_VERSION, *args]).fetchone()[0]


def unchecked(db: sqlite_utils.Database, limit: int, after: int = 0,
              ids: Sequence[int] | None = None) -> list[tuple[int, str, str, bool]]:
    """The next papers to look at, by id.

    Args:
        db: the library database.
        limit: most rows.
        after: only ids above this one.
        ids: only these papers (``None``: all).
    Returns:
        ``[(id, abstract, content_hash, seen_before)]``; ``seen_before`` is True when the
        paper has band hashes of an older abstract or version to drop.
    """
    clause, args = _ids_clause(ids)
    return [(r[0], r[1], r[2], bool(r[3])) for r in db.execute(
        f"SELECT p.id, p.abstract, p.content_hash, c.paper_id IS NOT NULL {_UNCHECKED}"
        f" AND p.id > ?{clause} ORDER BY p.id LIMIT ?",
        [SIGNATURE_VERSION, int(after), *args, int(limit)])]


def mark_checked(db: sqlite_utils.Database, paper_id: int, content_hash: str,
                 buckets: Iterable[int], seen_before: bool,
                 signature: bytes | None = None) -> None:
    """Record that ``paper_id`` was looked at with this abstract, with its signature
    (none for an empty abstract), replacing what an older look stored. ``buckets`` and
    ``seen_before`` are not stored here (the band store derives the buckets from the
    signature); kept for callers of earlier versions."""
    mark_checked_many(db, [(paper_id, content_hash, list(buckets), signature)])


def drop_bands(db: sqlite_utils.Database, paper_ids: Sequence[int]) -> None:
    """Remove rows of the old ``duplicate_bands`` table of these papers (a library whose
    table was not emptied yet); the band store's own are dropped by
    :meth:`~paperdesk.core.store.band_runs.BandStore.drop`."""
    db.conn.executemany("DELETE FROM duplicate_bands WHERE paper_id = ?",
                        [(int(p),) for p in paper_ids])


def drop_old_bands(db: sqlite_utils.Database) -> bool:
    """Empty the ``duplicate_bands`` table of a library made before the band store (its
    rows are derived from the signatures, and the band store computes them again).

    Returns:
        True when it had rows.
    """
    if db.execute("SELECT 1 FROM duplicate_bands LIMIT 1").fetchone() is None:
        return False
    db.execute("DELETE FROM duplicate_bands")
    return True


def mark_checked_many(db: sqlite_utils.Database,
                      looked_at: Sequence[tuple[int, str, Sequence[int], bytes | None]]
                      ) -> None:
    """:func:`mark_checked` of many papers, in one statement (their buckets go to the
    band store, :mod:`paperdesk.core.store.band_runs`, not to SQLite).

    Args:
        db: the library database (inside the caller's transaction).
        looked_at: ``(paper_id, content_hash, buckets, signature or None)`` each.
    """
    db.conn.executemany("INSERT OR REPLACE INTO duplicate_checked (paper_id, content_hash, "
                        "version, signature) VALUES (?, ?, ?, ?)",
                        [(int(pid), digest, SIGNATURE_VERSION, sig)
                         for pid, digest, _b, sig in looked_at])


def signatures(db: sqlite_utils.Database, ids: Sequence[int]) -> dict[int, bytes]:
    """The stored signatures of those of ``ids`` that were looked at with their current
    abstract and have one (any number of ids: read :data:`_IN_CHUNK` at a time).

    Returns:
        ``{paper id: signature bytes}``.
    """
    out: dict[int, bytes] = {}
    ids = list(ids)
    for k in range(0, len(ids), _IN_CHUNK):
        chunk = ids[k:k + _IN_CHUNK]
        marks = ",".join("?" * len(chunk))
        out.update(db.execute(
            f"SELECT c.paper_id, c.signature FROM duplicate_checked c JOIN papers p "
            f"ON p.id = c.paper_id AND p.content_hash = c.content_hash WHERE c.paper_id IN "
            f"({marks}) AND c.signature IS NOT NULL AND c.version = ?",
            [*chunk, SIGNATURE_VERSION]).fetchall())
    return out


#: Most ids in one ``IN (...)`` of :func:`signatures`.
_IN_CHUNK = 5000


def signatures_and_hashes(db: sqlite_utils.Database,
                          ids: Sequence[int]) -> dict[int, tuple[bytes, str]]:
    """:func:`signatures`, each with the content hash of the abstract it was made of.

    Returns:
        ``{paper id: (signature bytes, content hash)}``.
    """
    out: dict[int, tuple[bytes, str]] = {}
    ids = list(ids)
    for k in range(0, len(ids), _IN_CHUNK):
        chunk = ids[k:k + _IN_CHUNK]
        marks = ",".join("?" * len(chunk))
        out.update((pid, (sig, digest)) for pid, sig, digest in db.execute(
            f"SELECT c.paper_id, c.signature, c.content_hash FROM duplicate_checked c JOIN "
            f"papers p ON p.id = c.paper_id AND p.content_hash = c.content_hash WHERE "
            f"c.paper_id IN ({marks}) AND c.signature IS NOT NULL AND c.version = ?",
            [*chunk, SIGNATURE_VERSION]))
    return out


def members(db: sqlite_utils.Database, buckets: Iterable[int], per_bucket: int,
            bands=None) -> dict[int, list[int]]:
    """The stored papers of each bucket: at most ``per_bucket`` + 1 of each, the highest
    ids first (one more than a caller takes, so that leaving one paper out still leaves
    ``per_bucket``).

    Args:
        db: the library database.
        buckets: LSH buckets (repeats are read once).
        per_bucket: how many a caller keeps of each.
        bands: the library's :class:`~paperdesk.core.store.band_runs.BandStore`
            (``None``: loaded from the library folder of ``db``).
    Returns:
        ``{bucket: [paper ids, highest first]}`` for the buckets that have any.
    """
    if bands is None:
        bands = band_runs.store_for(db)
    return bands.members(buckets, per_bucket)


def candidates(db: sqlite_utils.Database, buckets: Sequence[int], paper_id: int,
               limit: int, per_bucket: int,
               pending: Mapping[int, Sequence[int]] | None = None,
               stored: Mapping[int, Sequence[int]] | None = None,
               bands=None) -> list[int]:
    """Papers sharing at least one bucket with ``buckets`` (``paper_id`` left out), those
    sharing the most first, at most ``limit`` of them.

    At most ``per_bucket`` papers are taken from each bucket (the highest ids), so that
    a bucket thousands of papers share (a boilerplate abstract) costs bounded time.

    Args:
        db: the library database.
        buckets: the paper's LSH buckets.
        paper_id: the paper (never its own candidate; 0 for none).
        limit: most candidates returned.
        per_bucket: most papers taken from one bucket, the highest ids.
        pending: ``{bucket: [paper ids]}`` of papers looked at but not stored yet (the
            stage's current batch), counted as if their buckets were stored.
        stored: :func:`members` of (at least) these buckets, read before; ``None``:
            read them now.
        bands: the band store to read them from (``None``: the library's).
    Returns:
        Paper ids, most shared buckets first, then by id.
    """
    if not buckets:
        return []
    if stored is None:
        stored = members(db, buckets, per_bucket, bands)
    pending = pending or {}
    shared: dict[int, int] = {}
    get = shared.get
    for bucket in buckets:      # most buckets of a paper have no other paper
        ids = stored.get(bucket)
        more = pending.get(bucket)
        if more:
            ids = sorted({*(ids or ()), *more} - {paper_id}, reverse=True)
        elif not ids:
            continue
        elif paper_id in ids:
            ids = [p for p in ids if p != paper_id]
        for p in ids[:per_bucket]:
            shared[p] = get(p, 0) + 1
    if not shared:
        return []
    return sorted(shared, key=lambda p: (-shared[p], p))[:limit]


def flag_pair(db: sqlite_utils.Database, a: tuple[int, str], b: tuple[int, str],
              similarity: float, now: str) -> bool:
    """Flag a pair as open, unless it is flagged already with these two abstracts (an
    open or dismissed pair keeps its status).

    Args:
        a, b: ``(paper_id, content_hash)`` of each paper, in any order.
        similarity: the measure.
        now: ISO 8601 UTC.
    Returns:
        True when the pair is newly flagged.
    """
    (ia, ha), (ib, hb) = sorted([a, b])
    return db.conn.execute(
        "INSERT INTO duplicate_pairs (paper_a, paper_b, hash_a, hash_b, similarity, status, "
        "found_at) VALUES (?, ?, ?, ?, ?, 'open', ?) ON CONFLICT (paper_a, paper_b) DO UPDATE "
        "SET hash_a = excluded.hash_a, hash_b = excluded.hash_b, "
        "similarity = excluded.similarity, status = 'open', found_at = excluded.found_at "
        "WHERE hash_a != excluded.hash_a OR hash_b != excluded.hash_b",
        [ia, ib, ha, hb, similarity, now]).rowcount > 0


#: Pairs whose papers both exist with the abstracts they were flagged with.
_LIVE = ("FROM duplicate_pairs d JOIN papers pa ON pa.id = d.paper_a "
         "AND pa.content_hash = d.hash_a JOIN papers pb ON pb.id = d.paper_b "
         "AND pb.content_hash = d.hash_b")
_COLUMNS = ("d.paper_a, d.paper_b, d.similarity, d.status, pa.title, pb.title, "
            "d.found_at")


def pairs(db: sqlite_utils.Database, status: str = "open",
          limit: int | None = None) -> list[DuplicatePair]:
    """The live pairs with this status, most similar first (then by ids), at most
    ``limit`` of them (``None``: all)."""
    return [DuplicatePair(*r) for r in db.execute(
        f"SELECT {_COLUMNS} {_LIVE} WHERE d.status = ? "
        "ORDER BY d.similarity DESC, d.paper_a, d.paper_b LIMIT ?",
        [status, -1 if limit is None else int(limit)])]


def pair(db: sqlite_utils.Database, a: int, b: int) -> DuplicatePair | None:
    """The live pair of papers ``a`` and ``b`` (any order), or ``None``."""
    lo, hi = sorted((int(a), int(b)))
    row = db.execute(f"SELECT {_COLUMNS} {_LIVE} WHERE d.paper_a = ? AND d.paper_b = ?",
                     [lo, hi]).fetchone()
    return DuplicatePair(*row) if row else None


def open_count(db: sqlite_utils.Database) -> int:
    """Number of live open pairs."""
    return db.execute(f"SELECT count(*) {_LIVE} WHERE d.status = 'open'").fetchone()[0]


def set_status(db: sqlite_utils.Database, a: int, b: int, status: str) -> None:
    """Set the status of the pair ``a``, ``b`` (any order)."""
    lo, hi = sorted((int(a), int(b)))
    db.conn.execute("UPDATE duplicate_pairs SET status = ? WHERE paper_a = ? AND paper_b = ?",
                    [status, lo, hi])


def pair_rows(db: sqlite_utils.Database, paper_id: int) -> list[tuple]:
    """Every stored row of ``duplicate_pairs`` naming ``paper_id`` (for undo)."""
    return db.execute("SELECT paper_a, paper_b, hash_a, hash_b, similarity, status, found_at "
                      "FROM duplicate_pairs WHERE paper_a = ? OR paper_b = ?",
                      [paper_id, paper_id]).fetchall()


def paper_with_hash(db: sqlite_utils.Database, digest: str) -> tuple[int] | None:
    """``(id,)`` of the paper whose ``content_hash`` is ``digest``, else of the paper an
    abstract with that hash was merged into (``merged_hashes``), else ``None``: how
    imports find the paper an abstract belongs to."""
    return db.execute("SELECT id FROM papers WHERE content_hash = ? UNION ALL "
                      "SELECT paper_id FROM merged_hashes WHERE content_hash = ? LIMIT 1",
                      [digest, digest]).fetchone()


def record_merge(db: sqlite_utils.Database, keep: int, other: int) -> None:
    """Before ``other`` is deleted by a merge into ``keep``: its abstract's hash, and the
    hashes already merged into it, now lead to ``keep``."""
    db.execute("UPDATE merged_hashes SET paper_id = ? WHERE paper_id = ?", [keep, other])
    db.execute("INSERT OR REPLACE INTO merged_hashes (content_hash, paper_id) "
               "SELECT content_hash, ? FROM papers WHERE id = ?", [keep, other])


def restore_pair_rows(db: sqlite_utils.Database, rows: Iterable[tuple]) -> None:
    """Put back rows from :func:`pair_rows` exactly (replacing any with the same ids)."""
    db.conn.executemany("INSERT OR REPLACE INTO duplicate_pairs (paper_a, paper_b, hash_a, "
                        "hash_b, similarity, status, found_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        list(rows))


def closest_paper(db: sqlite_utils.Database, abstract: str,
                  threshold: float = measure.THRESHOLD, bands=None,
                  keys: tuple[bytes | None, Sequence[int]] | None = None
                  ) -> tuple[int, float] | None:
    """The paper whose abstract is most similar to ``abstract``, if it is a near-duplicate.

    Looks only among papers the near-duplicate stage has already looked at (their band
    hashes are stored), with the stage's own measure and bounds
    (:mod:`paperdesk.core.duplicates`: MinHash/LSH candidates, the signature prefilter,
    then the exact Jaccard similarity of word 3-shingles).

    Args:
        db: the library database (read only).
        abstract: the text to look up (a record's abstract).
        threshold: least similarity, 0.0 to 1.0 (default :data:`THRESHOLD`).
        bands: the library's band store as loaded (``None``: loaded from the library
            folder of ``db``). Its papers deleted since the last stage may take places
            of a crowded bucket; they are never returned (their signatures are gone).
        keys: ``abstract``'s signature bytes and buckets as
            :func:`~paperdesk.core.duplicates.lookup_keys` gives them, computed before
            (by the parse child of an arXiv import), or ``None``: computed here. With
            them the abstract is shingled only when a candidate passes the signature
            prefilter (rare); the result is the same.
    Returns:
        ``(paper_id, similarity)`` of the most similar paper at or above ``threshold``
        (the lowest id on a tie), or ``None``.
    """
    sh = None
    if keys is None:
        sh = measure.shingle_hashes(abstract)
        sig = measure.signature(sh)
        if sig is None:
            return None
        mine, buckets = measure.signature_bytes(sig), measure.band_hashes(sig)
    else:
        mine, buckets = keys
        if mine is None:
            return None
    found = candidates(db, buckets, 0, measure.MAX_CANDIDATES, measure.PER_BUCKET,
                       bands=bands)
    sigs = signatures(db, found) if found else {}
    if not sigs:
        return None
    ranked = sorted(zip(measure.estimates(mine, list(sigs.values())), sigs),
                    key=lambda es: (-es[0], es[1]))
    close = [pid for est, pid in ranked[:measure.MAX_EXACT] if est >= measure.PREFILTER]
    best: tuple[int, float] | None = None
    if close:
        if sh is None:
            sh = measure.shingle_hashes(abstract)
        marks = ",".join("?" * len(close))
        for pid, text in db.execute(f"SELECT id, abstract FROM papers WHERE id IN ({marks})",
                                    close):
            score = measure.jaccard(sh, measure.shingle_hashes(text))
            if score >= threshold and (best is None or (-score, pid) < (-best[1], best[0])):
                best = (pid, score)
    return best
