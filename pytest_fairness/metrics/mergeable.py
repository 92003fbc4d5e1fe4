"""Exactly mergeable accumulators: a PSA computed in shards and merged equals, to the last
bit, the same PSA computed in one process (issue 31, "Sharded anchoring on Ray").

Floating-point addition is not associative, so running sums taken chunk by chunk (or shard
by shard, merged in whatever order the shards finish) differ in their last bits from one
process's. Here every sum is kept exactly:

* `ExactSum` holds a sum of doubles exactly, as an integer: every finite double is an
  integer multiple of 2**-1074, so the sum is that integer count (`column_sums` computes
  it for the columns of an array at once, vectorised); its `value()` is the exact sum
  correctly rounded, so it is the same double however the values were split and in
  whatever order the parts were merged.
* products enter the moment sums as the exact pair (p, e), p + e = a * b (Dekker's
  two-product), so the centred moments of the shift correlation (psa, section 3.2) are
  computed from exact sums with rational arithmetic at the end, not by Chan's merge
  formula (whose result depends on the order of merging).
* every per-sentence quantity (the spread over names, the mean absolute shift) is
  computed column by column, elementwise, so it does not depend on how many sentences
  share an array.
* `TopK` keeps the k largest entries by a key that is unique (it holds the sentence's
  index in corpus order), so the k largest of a union are the k largest of the parts'
  k largest: merging is exact whatever the split.

`MergeablePSA` is the PSA accumulator built from them (the same `PSAResult` as
`metrics.psa.PSAAccumulator`); `balanced_order` says where each scored sentence goes once
female and male sentences are paired (psa, section 2.2), from their genders alone.

Exactness assumes finite values whose products neither overflow nor fall into the
subnormal range (|a * b| above about 1e-292): outside that, results are still the same
whatever the split (each product's pair is computed elementwise), only less accurate.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, Generic, TypeVar

import numpy as np

from ..errors import ConfigurationError
from .psa import (
    PSAResult,
    WorstPair,
    WorstSentence,
    _check_scores_in_range,
    _label_counts,
    _pearson_from_moments,
    checked_psa_options,
)
from .validation import (
    FloatArray,
    as_float_array,
)

__all__ = [
    "ExactSum",
    "Flip",
    "FlipCounts",
    "MergeablePSA",
    "TopK",
    "balanced_order",
    "column_sums",
    "row_spread",
    "two_product",
]

#: Every finite double is an integer multiple of 2**-1074 (the smallest subnormal).
_TINY_EXP = 1074

#: Bits taken from each value per step of `column_sums` (int64 sums of up to 2**22 rows).
_LIMB = 40

#: Dekker's splitter for doubles: 2**27 + 1.
_SPLITTER = 134217729.0

T = TypeVar("T")


def column_sums(values: FloatArray) -> tuple[list[int], list[float]]:
    """The exact sum of each column of `values` (m, k), as an integer count of 2**-1074
    (so exact, and added in any order with the same result), and the sum of the
    column's non-finite values (0.0 when it has none).

    Vectorised: the finite values are peeled into integer limbs of `_LIMB` bits from the
    largest magnitude down (each step exact: a value rounded to a multiple of a power of
    two, and the remainder), summed as int64, and the limbs' sums combined as Python
    integers; a column of doubles of similar magnitude takes two or three steps."""
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ConfigurationError(f"column_sums needs a 2-d array, got shape {x.shape}")
    k = x.shape[1]
    finite = np.isfinite(x)
    special = [0.0] * k
    if not finite.all():
        for j in np.flatnonzero(~finite.all(axis=0)).tolist():
            for v in x[~finite[:, j], j].tolist():
                special[j] += v  # inf, -inf, nan: their sum does not depend on order
        x = np.where(finite, x, 0.0)
    if x.shape[0] > 2**22:  # int64 limb sums would overflow: sum halves
        half = x.shape[0] // 2
        (top, _), (bottom, _) = column_sums(x[:half]), column_sums(x[half:])
        return [a + b for a, b in zip(top, bottom, strict=True)], special
    totals = [0] * k
    biggest = float(np.abs(x).max()) if x.size else 0.0
    if biggest == 0.0:
        return totals, special
    exponent = math.frexp(biggest)[1]  # |x| < 2**exponent
    rest = x
    while True:
        shift = max(exponent - _LIMB, -_TINY_EXP)
        scale = math.ldexp(1.0, shift)
        limbs = np.rint(rest / scale)  # exact: a power-of-two division, |limbs| <= 2**40
        rest = rest - limbs * scale  # exact (see the docstring)
        sums = limbs.astype(np.int64).sum(axis=0).tolist()
        for j in range(k):
            if sums[j]:
                totals[j] += sums[j] << (shift + _TINY_EXP)
        if shift == -_TINY_EXP or not rest.any():
            return totals, special
        exponent = shift


class ExactSum:
    """A sum of doubles kept exactly, as an integer count of 2**-1074 (see the module
    docstring): `add` and `merge` in any order and split give the same `value()`, the
    exact sum correctly rounded. Non-finite values make the sum their own sum."""

    __slots__ = ("special", "total")

    def __init__(self, values: Iterable[float] | FloatArray = ()) -> None:
        self.total = 0
        self.special = 0.0
        self.add(values)

    def add(self, values: Iterable[float] | FloatArray) -> None:
        """Add every value of `values` (a sequence or a 1-d array)."""
        column = np.asarray(values if isinstance(values, np.ndarray) else list(values),
                            dtype=np.float64).reshape(-1, 1)
        (total,), (special,) = column_sums(column)
        self.total += total
        self.special += special

    def add_total(self, total: int, special: float = 0.0) -> None:
        """Add a sum `column_sums` computed."""
        self.total += total
        self.special += special

    def merge(self, other: ExactSum) -> None:
        """Add everything `other` holds."""
        self.add_total(other.total, other.special)

    def value(self) -> float:
        """The exact sum, correctly rounded to a double (an integer quotient rounds
        correctly)."""
        if self.special != 0.0:  # inf, -inf or nan (nan != 0.0 too)
            return self.special
        return self.total / (1 << _TINY_EXP) if self.total else 0.0

    def fraction(self) -> Fraction:
        """The exact sum of the finite values as a rational number."""
        return Fraction(self.total, 1 << _TINY_EXP)

    def __repr__(self) -> str:
        return f"ExactSum({self.value()!r})"


def two_product(a: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(p, e) with p = fl(a * b) and p + e = a * b exactly, elementwise (Dekker's
    two-product with Veltkamp's split; see the module docstring for its range)."""

    def split(x: FloatArray) -> tuple[FloatArray, FloatArray]:
        c = _SPLITTER * x
        hi = c - (c - x)
        return hi, x - hi

    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def row_spread(
    original: FloatArray, perturbed: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per sentence (row): shift (m, n) = f(x_n) - f(x), max_n, min_n, the population
    standard deviation over names, max - min, and mean_n |shift|, each computed column by
    column so a row's values do not depend on the other rows of the array."""
    shift = perturbed - original[:, None]
    maxs = perturbed.max(axis=1)
    mins = perturbed.min(axis=1)
    n = perturbed.shape[1]
    centred = perturbed - mins[:, None]  # exactly 0 spread for a constant row
    total = centred[:, 0].copy()
    for j in range(1, n):
        total += centred[:, j]
    mean = total / n
    squares = (centred[:, 0] - mean) ** 2
    for j in range(1, n):
        squares += (centred[:, j] - mean) ** 2
    stds = np.sqrt(squares / n)
    absolute = np.abs(shift)
    abs_total = absolute[:, 0].copy()
    for j in range(1, n):
        abs_total += absolute[:, j]
    return shift, maxs, mins, stds, maxs - mins, abs_total / n


class TopK(Generic[T]):
    """The `k` entries with the largest keys (keys unique, e.g. holding an index), kept in
    a heap; `merge` of any split of the entries keeps the same ones."""

    __slots__ = ("_heap", "k")

    def __init__(self, k: int) -> None:
        self.k = k
        self._heap: list[tuple[Any, T]] = []

    def wants(self, key: Any) -> bool:
        """Whether an entry with `key` would be kept now."""
        return self.k > 0 and (len(self._heap) < self.k or key > self._heap[0][0])

    def offer(self, key: Any, item: T) -> None:
        """Keep (`key`, item) if it is among the k largest so far (`wants` first spares
        making an item that would not be kept)."""
        if not self.wants(key):
            return
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, (key, item))
        else:
            heapq.heapreplace(self._heap, (key, item))

    def merge(self, other: TopK[T]) -> None:
        for key, item in other._heap:
            self.offer(key, item)

    def entries(self) -> list[tuple[Any, T]]:
        """(key, item), largest key first."""
        return sorted(self._heap, key=lambda e: e[0], reverse=True)

    def items(self) -> list[T]:
        return [item for _, item in self.entries()]

    def __len__(self) -> int:
        return len(self._heap)


def balanced_order(genders: Sequence[str | None]) -> tuple[list[int], int]:
    """Where each scored sentence goes when female and male sentences go on in pairs
    (psa, section 2.2; `checks.psa`'s balancer): for each row, its position among the
    sentences kept, or -1 when it is left out; and how many are left out.

    A female row waits for a male one (and the reverse, first come first paired); a pair
    goes on when its second row arrives, the waiting one first; rows of another or no
    gender go on at once. The positions depend only on the genders, so shards can score
    their rows apart and learn their places afterwards."""
    waiting: dict[str, deque[int]] = {"female": deque(), "male": deque()}
    out = [-1] * len(genders)
    position = 0
    for row, gender in enumerate(genders):
        if gender not in waiting:
            out[row] = position
            position += 1
            continue
        other = waiting["male" if gender == "female" else "female"]
        if other:
            out[other.popleft()] = position
            out[row] = position + 1
            position += 2
        else:
            waiting[gender].append(row)
    return out, sum(len(queue) for queue in waiting.values())


class MergeablePSA:
    """Streaming PSA (psa, sections 2 and 3.2) whose parts merge exactly.

    The same metrics as `metrics.psa.PSAAccumulator` (ScoreSens, ScoreDev, ScoreRange,
    LabelDist counts on a grid, the shift correlation, the worst sentences and pairs),
    with every sum exact (module docstring), so accumulators filled with any split of the
    sentences and merged in any order give a bit-identical `result()`. Each sentence
    carries its index in corpus order (`add_batch(indices=)`, default: the order added);
    the worst lists break ties by it. Memory: O(|N| + |thresholds| * |N| + top_n), plus
    every score with `keep_scores`.
    """

    def __init__(
        self,
        names: Sequence[str],
        *,
        score_range: tuple[float, float] = (0.0, 1.0),
        thresholds: Sequence[float] | None = None,
        top_n: int = 10,
        keep_scores: bool = False,
    ) -> None:
        self.names, self.bounds, self._grid, self.top_n = checked_psa_options(
            names, score_range, thresholds, top_n)
        self.thresholds = tuple(float(t) for t in self._grid)
        self.keep_scores = bool(keep_scores)
        n, t = len(self.names), len(self.thresholds)
        self.count = 0
        self._shift = [ExactSum() for _ in range(n)]
        self._std = ExactSum()
        self._range = ExactSum()
        # a = mean_n |f(x_n) - f(x)|, b = f(x): sums of a, b, a*a, b*b, a*b
        self._moments = [ExactSum() for _ in range(5)]
        self._count_a = np.zeros(t, dtype=np.int64)
        self._count_b = np.zeros((t, n), dtype=np.int64)
        self._count_ab = np.zeros((t, n), dtype=np.int64)
        self.worst_sentences: TopK[WorstSentence] = TopK(self.top_n)
        self.worst_pairs: TopK[WorstPair] = TopK(self.top_n)
        self._kept: list[tuple[np.ndarray, FloatArray, FloatArray]] = []

    def _same_setup(self, other: MergeablePSA) -> bool:
        return (self.names, self.bounds, self.thresholds, self.top_n, self.keep_scores) == (
            other.names, other.bounds, other.thresholds, other.top_n, other.keep_scores)

    def worst_indices(self) -> set[int]:
        """The sentence indices the worst lists hold now (at most 2 * `top_n`)."""
        return {w.index for w in self.worst_sentences.items()} | {
            w.index for w in self.worst_pairs.items()}

    def add_batch(
        self,
        original_scores: Any,
        name_scores: Any,
        keys: Sequence[str | None] | None = None,
        indices: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        """Add m sentences: f(x) (m,), f(x_n) (m, |N|), optional keys (e.g. the texts)
        and their indices in corpus order (default: the next m after those added)."""
        original = as_float_array(original_scores, "original_scores", ndim=1)
        perturbed = as_float_array(name_scores, "name_scores", ndim=2)
        m, n = perturbed.shape
        if n != len(self.names):
            raise ConfigurationError(
                f"name_scores has {n} columns but the accumulator has {len(self.names)} names")
        if original.shape[0] != m:
            raise ConfigurationError(
                f"original_scores has {original.shape[0]} rows but name_scores has {m}")
        if keys is not None and len(keys) != m:
            raise ConfigurationError(f"keys has {len(keys)} entries for {m} sentences")
        index = (np.arange(self.count, self.count + m, dtype=np.int64) if indices is None
                 else np.asarray(indices, dtype=np.int64))
        if index.shape != (m,):
            raise ConfigurationError(f"indices has shape {index.shape} for {m} sentences")
        if m == 0:
            return
        _check_scores_in_range(original, self.bounds, "original_scores")
        _check_scores_in_range(perturbed, self.bounds, "name_scores")
        shift, _, _, stds, ranges, abs_mean = row_spread(original, perturbed)
        pa, ea = two_product(abs_mean, abs_mean)
        pb, eb = two_product(original, original)
        pab, eab = two_product(abs_mean, original)
        # one exact pass over every column: the shifts per name, then the spread, the
        # range and the moments' terms (a product as its two exact halves)
        columns = np.column_stack([shift, stds, ranges, abs_mean, original, pa, ea, pb, eb,
                                   pab, eab])
        sums, specials = column_sums(columns)
        targets = [*self._shift, self._std, self._range, self._moments[0], self._moments[1],
                   self._moments[2], self._moments[2], self._moments[3], self._moments[3],
                   self._moments[4], self._moments[4]]
        for target, total, special in zip(targets, sums, specials, strict=True):
            target.add_total(total, special)
        a, b, ab = _label_counts(original, perturbed, self._grid)
        self._count_a = self._count_a + a
        self._count_b = self._count_b + b
        self._count_ab = self._count_ab + ab
        if self.top_n:
            self._push_worst(index, original, perturbed, shift, stds, ranges, abs_mean, keys)
        if self.keep_scores:
            self._kept.append((index.copy(), original.copy(), perturbed.copy()))
        self.count += m

    def _push_worst(self, index: np.ndarray, original: FloatArray, perturbed: FloatArray,
                    shift: FloatArray, stds: FloatArray, ranges: FloatArray,
                    abs_mean: FloatArray, keys: Sequence[str | None] | None) -> None:
        top, names = self.top_n, self.names
        for i in np.lexsort((index, -ranges))[:top].tolist():  # only these can enter
            row, at = perturbed[i], int(index[i])
            key = (float(ranges[i]), -at)
            if not self.worst_sentences.wants(key):
                continue
            hi, lo = int(np.argmax(row)), int(np.argmin(row))
            self.worst_sentences.offer(key, WorstSentence(
                index=at, key=None if keys is None else keys[i],
                original_score=float(original[i]), score_range=float(ranges[i]),
                score_std=float(stds[i]), max_name=names[hi], max_score=float(row[hi]),
                min_name=names[lo], min_score=float(row[lo]),
                mean_abs_shift=float(abs_mean[i])))
        flat = np.abs(shift).ravel()
        rows, cols = np.divmod(np.arange(flat.shape[0]), shift.shape[1])
        for f in np.lexsort((cols, index[rows], -flat))[:top].tolist():
            i, j = int(rows[f]), int(cols[f])
            at = int(index[i])
            pair_key = (float(flat[f]), -at, -j)
            if self.worst_pairs.wants(pair_key):
                self.worst_pairs.offer(pair_key, WorstPair(
                    index=at, key=None if keys is None else keys[i], name=names[j],
                    original_score=float(original[i]),
                    perturbed_score=float(perturbed[i, j]), shift=float(shift[i, j])))

    def merge(self, other: MergeablePSA) -> None:
        """Add everything `other` (built with the same names, range, grid, top_n and
        keep_scores, over other sentences) holds."""
        if not self._same_setup(other):
            raise ConfigurationError(
                "cannot merge PSA accumulators built with different names, score range, "
                "thresholds, top_n or keep_scores")
        for mine, theirs in zip(self._shift, other._shift, strict=True):
            mine.merge(theirs)
        self._std.merge(other._std)
        self._range.merge(other._range)
        for mine, theirs in zip(self._moments, other._moments, strict=True):
            mine.merge(theirs)
        # new arrays: one that crossed processes may be read-only (Ray maps it)
        self._count_a = self._count_a + other._count_a
        self._count_b = self._count_b + other._count_b
        self._count_ab = self._count_ab + other._count_ab
        self.worst_sentences.merge(other.worst_sentences)
        self.worst_pairs.merge(other.worst_pairs)
        self._kept += other._kept
        self.count += other.count

    def _correlation(self) -> float | None:
        m = self.count
        sa, sb, saa, sbb, sab = (s.fraction() for s in self._moments)
        m2_a, m2_b = saa - sa * sa / m, sbb - sb * sb / m
        co = sab - sa * sb / m
        return _pearson_from_moments(m, float(sa / m), float(sb / m), float(m2_a),
                                     float(m2_b), float(co))

    def result(self) -> PSAResult:
        """The PSA metrics of everything added and merged."""
        m = self.count
        if m == 0:
            raise ConfigurationError("no sentences were added to the PSA accumulator")
        scores: tuple[FloatArray, FloatArray] | None = None
        if self.keep_scores:
            index = np.concatenate([k[0] for k in self._kept])
            order = np.argsort(index, kind="stable")
            scores = (np.concatenate([k[1] for k in self._kept])[order],
                      np.concatenate([k[2] for k in self._kept], axis=0)[order])
        return PSAResult(
            names=self.names,
            n_sentences=m,
            score_bounds=self.bounds,
            score_sens={n: s.value() / m for n, s in zip(self.names, self._shift, strict=True)},
            score_dev=self._std.value() / m,
            score_range=self._range.value() / m,
            shift_correlation=self._correlation(),
            thresholds=self.thresholds,
            worst_sentences=tuple(self.worst_sentences.items()),
            worst_pairs=tuple(self.worst_pairs.items()),
            _grid_counts=(self._count_a.copy(), self._count_b.copy(), self._count_ab.copy()),
            _scores=scores,
        )


#: A label flip kept for a report: (|shift|, sentence index, name index, f(x), f(x_n)).
Flip = tuple[float, int, int, float, float]


class FlipCounts:
    """Label flips at a decision threshold (psa, sections 2 and 3.2: y(x) = 1[f(x) >= c])
    and pairs whose |f(x_n) - f(x)| exceeds `max_abs`, counted, with the `top_n` largest-
    |shift| flips kept (ties: the earlier sentence, then the earlier name); mergeable like
    `MergeablePSA`."""

    def __init__(self, threshold: float, max_abs: float | None, top_n: int) -> None:
        self.threshold = threshold
        self.max_abs = max_abs
        self.n_flips = 0
        self.n_exceeding = 0
        self.worst: TopK[Flip] = TopK(top_n)

    def add(self, original: FloatArray, perturbed: FloatArray,
            indices: Sequence[int] | np.ndarray) -> None:
        """Count the flips of m sentences: f(x) (m,), f(x_n) (m, |N|), their indices."""
        index = np.asarray(indices, dtype=np.int64)
        c = self.threshold
        shift = np.abs(perturbed - original[:, None])
        flips = (perturbed >= c) != (original >= c)[:, None]
        self.n_flips += int(flips.sum())
        if self.max_abs is not None:
            self.n_exceeding += int((shift > self.max_abs).sum())
        rows, cols = np.nonzero(flips)
        if not rows.size or not self.worst.k:
            return
        values = shift[rows, cols]
        for f in np.lexsort((cols, index[rows], -values))[: self.worst.k].tolist():
            i, j = int(rows[f]), int(cols[f])
            at = int(index[i])
            key = (float(values[f]), -at, -j)
            if self.worst.wants(key):
                self.worst.offer(key, (float(values[f]), at, j, float(original[i]),
                                       float(perturbed[i, j])))

    def merge(self, other: FlipCounts) -> None:
        self.n_flips += other.n_flips
        self.n_exceeding += other.n_exceeding
        self.worst.merge(other.worst)

    def items(self) -> list[Flip]:
        """The kept flips, largest |shift| first."""
        return self.worst.items()
