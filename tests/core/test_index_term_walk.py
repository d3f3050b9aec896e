"""The full check's walk of a segment's term index (integrity.walk_terms) reads what
Whoosh's all_terms() reads and fails where it fails, on whole and on damaged bytes."""

from __future__ import annotations

import itertools
import random
import struct

from whoosh.reading import SegmentReader

from paperdesk.core.search.index import _MappedFile
from paperdesk.core.search.integrity import walk_terms


def _readers(lib):
    ix = lib.index.whoosh._ix
    info = ix._read_toc()
    return [SegmentReader(ix.storage, info.schema, s, generation=info.generation)
            for s in info.segments]


def _outcome(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the class is what is compared
        return type(exc)
    return None


def test_walk_counts_every_term_of_a_whole_index(seeded_library):
    for reader in _readers(seeded_library):
        try:
            assert walk_terms(reader) == sum(1 for _ in reader.all_terms()) > 0
        finally:
            reader.close()


def test_walk_fails_where_all_terms_fails_on_damaged_bytes(seeded_library):
    """Bytes of the term index overwritten at 400 places (entries' lengths and keys'
    field numbers): the walk raises what draining all_terms() raises, or nothing when it
    raises nothing; where all_terms() would go back (a negative length) the walk says
    so (ValueError) instead of walking in a circle."""
    rng = random.Random(5)
    reader = _readers(seeded_library)[0]
    try:
        tindex = reader._terms._tindex
        real = tindex.dbfile
        whole = bytes(real._map)
        total = sum(1 for _ in reader.all_terms())
        starts, pos = [], tindex.startofdata
        while pos < tindex.endofdata:            # the entries' positions
            keylen, datalen = struct.unpack_from("!ii", whole, real._base + pos)
            starts.append(pos)
            pos += 8 + keylen + datalen
        for _trial in range(400):
            data = bytearray(whole)
            at = real._base + rng.choice(starts) + rng.randrange(10)
            data[at:at + rng.randint(1, 3)] = bytes(rng.randrange(256) for _ in range(3))
            damaged = _MappedFile.__new__(_MappedFile)
            damaged._map, damaged._base = data, real._base
            tindex.dbfile = damaged

            def drain():
                if sum(1 for _ in itertools.islice(reader.all_terms(), 4 * total)) \
                        == 4 * total:
                    raise RecursionError("walks in a circle")
            ours, theirs = _outcome(lambda: walk_terms(reader)), _outcome(drain)
            if ours is ValueError:
                assert theirs in (RecursionError, None, struct.error, IndexError)
            else:
                assert ours == theirs, (at, ours, theirs)
        tindex.dbfile = real
    finally:
        reader.close()
