"""The segment writer's per-term path as it was before issue 28's work (commit 5bd3202:
every block pickled and every term info packed one at a time with :mod:`pickle`,
:mod:`struct` and :mod:`zlib`, Whoosh's own hash-table writer): the reference that
``test_segment_bytes`` compares the array path with, byte for byte."""

from __future__ import annotations

import pickle
import struct
import zlib
from itertools import chain

import numpy as np
from whoosh.filedb import filetables
from whoosh.support.charset import accent_map

from paperdesk.core.search import segment_writer
from paperdesk.core.search.segment_writer import _length_bytes

_MAGIC = b"W3Bl"
_TERMINFO = struct.Struct("!BfIBBfII")
_EXTENT = struct.Struct("!qi")
_BLOCKLEN = struct.Struct("!i")
_COMPRESSION = 3
_COMPRESS_MIN = 96
_DATA_PROTOCOL = pickle.HIGHEST_PROTOCOL


def use_reference(monkeypatch) -> None:
    """Make ``segment_writer`` write (and merge) through the old per-term path."""
    monkeypatch.setattr(segment_writer, "_write_postings", write_postings)
    monkeypatch.setattr(segment_writer, "_merge_field", merge_field)
    monkeypatch.setattr(segment_writer, "_TermsWriter", filetables.OrderedHashWriter)
    monkeypatch.setattr(segment_writer.Vocabulary, "ids", vocabulary_ids)


def write_postings(fmt, gterm, gdoc, weights, values, fbuf, keys, prefix, postfile, tindex,
                   blocklimit, qlengths):
    """The old ``_write_postings``; ``values`` as the new one takes them (a buffer and
    offsets) are turned into the list of bytes it took."""
    if values is not None:
        buf, off = values
        off = np.asarray(off).tolist()
        values = [buf[a:z] for a, z in zip(off, off[1:])]
    _old_write_postings(fmt, gterm, gdoc, weights, values, fbuf, keys, prefix, postfile,
                        tindex, blocklimit, qlengths)


def _old_write_postings(fmt: str, gterm: np.ndarray, gdoc: np.ndarray, weights: np.ndarray,
                    values: list[bytes] | None, fbuf: bytes | None, keys: list[bytes],
                    prefix: bytes, postfile, tindex, blocklimit: int,
                    qlengths: np.ndarray | None) -> None:
    """Write postings of whole terms (sorted by term, then document) as blocks of
    ``blocklimit``, and add their term infos to ``tindex``.

    Args:
        fmt: the field's format class name (``Positions``, ``Frequency``, ``Existence``).
        gterm: each posting's term, an index into ``keys`` (ascending).
        gdoc: each posting's document number in the segment (int64).
        weights: each posting's weight (float32; Whoosh stores it as a float).
        values: ``Positions``: each posting's encoded value (``Positions.encode``).
        fbuf: ``Frequency``: each posting's frequency as 4 big-endian bytes, joined.
        keys: term bytes by term number; prefix: the packed field id of the keys.
        postfile, tindex: the segment's postings file and terms ``OrderedHashWriter``.
        qlengths: each document's field length as its byte decodes (0 for none), for
            the blocks' length bounds; ``None`` for a field without lengths.
    """
    # Terms over the postings, and blocks of `blocklimit` postings within each term.
    tnew = np.ones(len(gterm), dtype=bool)
    tnew[1:] = gterm[1:] != gterm[:-1]
    tstart = np.flatnonzero(tnew)
    tcount = np.diff(np.append(tstart, len(gterm)))
    inside = np.arange(len(gterm)) - np.repeat(tstart, tcount)
    bnew = inside % blocklimit == 0
    bstart = np.flatnonzero(bnew)
    bend = np.append(bstart[1:], len(gterm))
    prev = np.empty_like(gdoc)
    prev[0] = 0
    prev[1:] = gdoc[:-1]
    prev[bnew] = 0
    deltas = (gdoc - prev).tolist()
    bmax = np.maximum.reduceat(weights, bstart)
    bmin = np.minimum.reduceat(weights, bstart)
    bcount = (bend - bstart).tolist()
    blast = gdoc[bend - 1].tolist()
    bmaxw = bmax.astype(np.float64).tolist()
    ball1 = ((bmin == 1.0) & (bmax == 1.0)).tolist()
    bsame = (bmin == bmax).tolist()
    wsum = np.add.reduceat(weights.astype(np.float64), bstart).tolist()
    wlist = weights.astype(np.float64).tolist()
    if qlengths is not None:
        ql = qlengths[gdoc]
        big = np.iinfo(np.int64).max
        qmin = np.minimum.reduceat(np.where(ql > 0, ql, big), bstart)
        bminl = np.where(qmin == big, 0,
                         _length_bytes(np.where(qmin == big, 0, qmin))).tolist()
        bmaxl = _length_bytes(np.maximum.reduceat(ql, bstart)).tolist()
    else:
        bminl = bmaxl = [0] * len(bstart)
    blocks_of = np.append(np.searchsorted(bstart, tstart), len(bstart)).tolist()
    firsts = gdoc[tstart].tolist()
    lasts = gdoc[tstart + tcount - 1].tolist()
    names = gterm[tstart].tolist()
    dumps, compress = pickle.dumps, zlib.compress
    offset = postfile.tell()
    bodies: list[bytes] = []
    entries: list[tuple[bytes, bytes]] = []
    for j, (t, count) in enumerate(zip(tstart.tolist(), tcount.tolist())):
        parts = [_MAGIC]
        weight = 0.0
        maxweight = 0.0
        minlen = maxlen = 0
        a = t
        k1 = blocks_of[j + 1]
        for b in range(blocks_of[j], k1):
            z = a + bcount[b]
            if ball1[b]:
                w = None
            elif bsame[b]:
                w = wlist[a]
            else:
                w = tuple(wlist[a:z])
            if fmt == "Positions":
                v = tuple(values[a:z])
            elif fmt == "Frequency":
                v = fbuf[4 * a:4 * z]
            else:
                v = None
            raw = dumps((tuple(deltas[a:z]), w, v), _DATA_PROTOCOL)
            comp = 0
            if len(raw) > _COMPRESS_MIN:  # the reader decompresses when comp is set
                raw, comp = compress(raw, _COMPRESSION), _COMPRESSION
            info = dumps((bcount[b], blast[b], bmaxw[b], comp, bminl[b], bmaxl[b]), 2)
            size = len(info) + len(raw)
            parts.append(_BLOCKLEN.pack(-size if b == k1 - 1 else size))
            parts.append(info)
            parts.append(raw)
            weight += wsum[b]
            if bmaxw[b] > maxweight:
                maxweight = bmaxw[b]
            if bminl[b] and (not minlen or bminl[b] < minlen):
                minlen = bminl[b]
            if bmaxl[b] > maxlen:
                maxlen = bmaxl[b]
            a = z
        body = b"".join(parts)
        bodies.append(body)
        entries.append((prefix + keys[names[j]],
                        _TERMINFO.pack(0, weight, count, minlen, maxlen, maxweight, firsts[j],
                                       lasts[j]) + _EXTENT.pack(offset, len(body))))
        offset += len(body)
    postfile.write(b"".join(bodies))
    _old_add_terms(tindex, entries)


def _old_add_terms(tindex, entries: list[tuple[bytes, bytes]]) -> None:
    """``OrderedHashWriter.add(key, value)`` for each entry (keys ascending), with one
    write: the same bytes, hash buckets, key index and last key as one call each."""
    if not entries:
        return
    dbfile = tindex.dbfile
    pos = dbfile.tell()
    if entries[0][0] <= tindex.lastkey:
        raise ValueError(f"Keys must increase: {tindex.lastkey!r}..{entries[0][0]!r}")
    pack = filetables._lengths.pack
    hashfn = tindex.hashfn
    buckets = tindex.buckets
    pieces: list[bytes] = []
    positions: list[int] = []
    for key, value in entries:
        positions.append(pos)
        pieces += (pack(len(key), len(value)), key, value)
        pos += 8 + len(key) + len(value)
        h = hashfn(key)
        buckets[h & 255].append((h, positions[-1]))
    dbfile.write(b"".join(pieces))
    tindex.index.extend(positions)
    tindex.lastkey = entries[-1][0]


def vocabulary_ids(self, words: list[str]) -> np.ndarray:
        """Folded ids of ``words`` (as written), as an int64 array."""
        raw = self._raw
        try:
            return np.fromiter(map(raw.__getitem__, words), np.int64, len(words))
        except KeyError:
            pass
        for word in words:
            if word not in raw:
                raw[word] = self._folded_id(word.lower().translate(accent_map))
        return np.fromiter(map(raw.__getitem__, words), np.int64, len(words))


def merge_field(fmt: str, per_seg: list, postfiles: list, bases: list, prefix: bytes,
                 postfile, tindex, blocklimit: int, qlengths: np.ndarray | None,
                 cancel=lambda: False) -> None:
    """Write one field's terms of the merged segment: each term's postings from every
    source that has it, source after source, about :data:`segment_writer.MERGE_CHUNK_POSTINGS`
    postings at a time."""
    keys = sorted(set().union(*(terms for _k, terms in per_seg)))
    got = segment_writer._Gathered()

    def flush() -> None:
        nonlocal got
        if cancel():
            raise segment_writer.MergeCancelled("merge cancelled")
        if not got.count:
            return
        total = got.count
        sizes = np.fromiter((n for n, _b in got.blocks), np.int64, len(got.blocks))
        bases = np.fromiter((b for _n, b in got.blocks), np.int64, len(got.blocks))
        gdoc = np.fromiter(chain.from_iterable(got.deltas), np.int64, total).cumsum()
        ends = sizes.cumsum()
        before = np.concatenate(([0], gdoc[ends[:-1] - 1]))  # ids restart in each block
        gdoc += np.repeat(bases - before, sizes)
        w = np.fromiter(chain.from_iterable(got.weights), np.float64, total).astype(np.float32)
        tnum = np.fromiter((t for t, _n in got.terms), np.int64, len(got.terms))
        tcount = np.fromiter((n for _t, n in got.terms), np.int64, len(got.terms))
        gterm = np.repeat(tnum, tcount)
        vals = fbuf = None
        if fmt == "Positions":
            vals = got.values
        elif fmt == "Frequency":
            fbuf = b"".join(got.values)
        _old_write_postings(fmt, gterm, gdoc, w, vals, fbuf, keys, prefix, postfile, tindex,
                        blocklimit, qlengths)
        got = segment_writer._Gathered()

    for j, key in enumerate(keys):
        count = 0
        for k, source in per_seg:
            info = source.get(key)
            if info is not None:
                count += segment_writer._decode_term(info, postfiles[k], fmt, got, bases[k])
        got.terms.append((j, count))
        got.count += count
        if got.count >= segment_writer.MERGE_CHUNK_POSTINGS:
            flush()
    flush()
