"""`DistinctCount`: how many distinct texts an adapter sent to its model, in bounded memory.

`ModelStats.unique_scored` counts each distinct text once, however often it was scored
(again after the cache evicted it, or by several threads). Keeping the hash of every text
scored grew without bound (about 87 bytes a text: +1 GB at a million PSA sentences), so
the count is exact up to `EXACT` distinct texts and estimated past them by a HyperLogLog
sketch (Flajolet, Fusy, Gandouet and Meunier, "HyperLogLog: the analysis of a
near-optimal cardinality estimation algorithm", 2007) of `2 ** PRECISION` one-byte
registers: 16 KiB, a relative standard error of about 1.04 / sqrt(2 ** 14) = 0.8%.
Texts are hashed with Python's own `hash` (SipHash for `str`, salted per process: a
count, never a stored key); below the bound the hashes are one sorted int64 array.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["EXACT", "PRECISION", "DistinctCount", "hashes"]

#: Distinct texts counted exactly (a sorted array of their hashes, 800 KB at the bound).
EXACT = 100_000
#: The sketch has 2 ** PRECISION registers.
PRECISION = 14


class DistinctCount:
    """Distinct items added so far: exact up to `EXACT`, a HyperLogLog estimate past it
    (never decreasing). Not thread-safe: the adapter adds under its lock.

    Items are counted by their hashes (`hashes`), so a caller that has them already (the
    adapter hashes a request once) adds them with `add_hashes` and no pass over the
    items: below the bound they are kept in one sorted int64 array (8 bytes a text)."""

    def __init__(self, exact: int = EXACT) -> None:
        self._exact = exact
        self._hashes: np.ndarray | None = np.zeros(0, dtype=np.int64)
        self._registers: np.ndarray | None = None
        self._count = 0

    @property
    def exact(self) -> bool:
        """Whether `count` is exact (no sketch yet)."""
        return self._hashes is not None

    @property
    def count(self) -> int:
        return self._count

    def add(self, items: Sequence[str]) -> int:
        """Count `items`; the number of new distinct ones (estimated past `EXACT`)."""
        return self.add_hashes(hashes(items))

    def add_hashes(self, new: np.ndarray, *, unique: bool = False) -> int:
        """Count items by their `hashes`; the number of new distinct ones. `unique`: the
        hashes are sorted and distinct already (no sort here)."""
        before = self._count
        if self._hashes is not None:
            known = self._hashes
            fresh = new if unique else np.sort(new)
            if len(fresh) > 1 and not unique:
                fresh = fresh[np.concatenate(([True], fresh[1:] != fresh[:-1]))]
            if len(known) and len(fresh):
                place = np.searchsorted(known, fresh)
                seen = known[np.minimum(place, len(known) - 1)] == fresh
                if seen.any():
                    fresh = fresh[~seen]
                # two sorted runs: the stable sort (a merge sort) merges them in one pass
                known = np.sort(np.concatenate((known, fresh)), kind="stable")
            elif len(fresh):
                known = fresh
            if len(known) <= self._exact:
                self._hashes = known
                self._count = len(known)
                return self._count - before
            new = known
            self._hashes = None
            self._registers = np.zeros(1 << PRECISION, dtype=np.uint8)
        assert self._registers is not None
        _sketch(self._registers, new)
        self._count = max(self._count, _estimate(self._registers))
        return self._count - before


def hashes(items: Sequence[str]) -> np.ndarray:
    """The hashes `DistinctCount` counts `items` by, as int64 (Python's `hash`, cached in
    each str once computed)."""
    return np.fromiter(map(hash, items), dtype=np.int64, count=len(items))


def _sketch(registers: np.ndarray, hashes: np.ndarray) -> None:
    """Add 64-bit `hashes` to the HyperLogLog `registers`: the first PRECISION bits pick
    a register, which keeps the largest rank (leading zeros + 1) of the rest."""
    h = hashes.view(np.uint64)
    index = (h >> np.uint64(64 - PRECISION)).astype(np.intp)
    rest = h << np.uint64(PRECISION)
    # bit length of `rest` from its float exponent (off by one only within 2**-53 of a
    # power of two); an all-zero rest gets the largest rank
    _, exponent = np.frexp(rest.astype(np.float64))
    rank = np.where(rest == 0, 64 - PRECISION + 1, 65 - exponent).astype(np.uint8)
    np.maximum.at(registers, index, rank)


def _estimate(registers: np.ndarray) -> int:
    """The HyperLogLog estimate (with linear counting for small counts)."""
    m = len(registers)
    alpha = 0.7213 / (1.0 + 1.079 / m)
    raw = alpha * m * m / float(np.ldexp(1.0, -registers.astype(np.int64)).sum())
    zeros = int(np.count_nonzero(registers == 0))
    if raw <= 2.5 * m and zeros:
        raw = m * math.log(m / zeros)
    return round(raw)
