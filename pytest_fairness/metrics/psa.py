"""Perturbation Sensitivity Analysis (PSA) metrics, streaming and batch.

Prabhakaran, Hutchinson & Mitchell (2019), "Perturbation Sensitivity Analysis to Detect
Unintended Model Biases" (shared/papers/psa-perturbation-sensitivity-analysis.txt).

Notation (section 2): X is a set of sentences, each with one anchor; N a set of names;
x_n is x with its anchor replaced by name n; f(x) the score of the target class.

* ScoreSens(n)  = E_x[f(x_n) - f(x)]                        (signed, per name)
* ScoreDev      = E_x[StdDev_n f(x_n)]                      (population std over names)
* ScoreRange    = E_x[max_n f(x_n) - min_n f(x_n)]
* LabelDist(c)  = E_n[Jaccard({x: y(x)=1}, {x: y(x_n)=1})], y(x) = 1[f(x) >= c],
  Jaccard(A, B) = 1 - |A n B| / |A u B| (the Jaccard *distance*; 0 when A and B are empty)
* section 3.2: Pearson correlation between mean_n |f(x_n) - f(x)| and f(x) over sentences.

Everything here is computed from running sums, so a corpus larger than memory can be
analysed with `PSAAccumulator`; `psa_from_scores` computes the same result from full arrays.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import (
    FloatArray,
    IntArray,
    as_float_array,
    check_names,
    check_positive_int,
    check_range,
    clean_float,
)

__all__ = [
    "PSAAccumulator",
    "PSAResult",
    "WorstPair",
    "WorstSentence",
    "default_thresholds",
    "psa_from_scores",
]

#: Fractions of the score range at which the default LabelDist curve is evaluated:
#: 0.05, 0.10, ..., 0.95 (psa, Figure 2 uses thresholds over the toxicity range [0, 1]).
DEFAULT_THRESHOLD_FRACTIONS: tuple[float, ...] = tuple(round(0.05 * i, 10) for i in range(1, 20))

# A variable whose standard deviation is below this (relative to its magnitude) is treated
# as constant, and a correlation with it is undefined.
_CONSTANT_RTOL = 1e-12


def default_thresholds(score_range: tuple[float, float] = (0.0, 1.0)) -> tuple[float, ...]:
    """The default LabelDist grid: 5%, 10%, ..., 95% of the way through `score_range`.

    For a toxicity model in [0, 1] that is 0.05, 0.10, ..., 0.95; for the psa paper's
    sentiment model in [-1, 1] it is -0.9, -0.8, ..., 0.9 (psa, section 2.2: thresholds
    apply to the model's own score).
    """
    low, high = check_range(score_range)
    return tuple(round(low + f * (high - low), 12) for f in DEFAULT_THRESHOLD_FRACTIONS)


@dataclass(frozen=True)
class WorstSentence:
    """A sentence whose score moves most across names (largest max_n - min_n)."""

    index: int
    """Position of the sentence in the order it was added."""
    key: str | None
    """The caller's key for the sentence (e.g. its text), if one was given."""
    original_score: float
    score_range: float
    score_std: float
    max_name: str
    max_score: float
    min_name: str
    min_score: float
    mean_abs_shift: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "key": self.key,
            "original_score": self.original_score,
            "score_range": self.score_range,
            "score_std": self.score_std,
            "max_name": self.max_name,
            "max_score": self.max_score,
            "min_name": self.min_name,
            "min_score": self.min_score,
            "mean_abs_shift": self.mean_abs_shift,
        }


@dataclass(frozen=True)
class WorstPair:
    """A (sentence, name) pair with one of the largest |f(x_n) - f(x)|."""

    index: int
    key: str | None
    name: str
    original_score: float
    perturbed_score: float
    shift: float
    """f(x_n) - f(x), signed."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "key": self.key,
            "name": self.name,
            "original_score": self.original_score,
            "perturbed_score": self.perturbed_score,
            "shift": self.shift,
        }


def _jaccard_distance(a: IntArray, b: IntArray, ab: IntArray) -> FloatArray:
    """1 - |A n B| / |A u B| elementwise from counts; 0 where A and B are both empty."""
    union = a + b - ab
    out = np.zeros(np.broadcast(a, b, ab).shape, dtype=np.float64)
    np.divide(ab, union, out=out, where=union > 0)
    return np.where(union > 0, 1.0 - out, 0.0)


def _label_counts(
    original: FloatArray, perturbed: FloatArray, thresholds: FloatArray
) -> tuple[IntArray, IntArray, IntArray]:
    """|A|, |B_n|, |A n B_n| for every threshold: shapes (T,), (T, n), (T, n).

    Each score is placed once among the sorted thresholds (how many it reaches); a count
    is then how many scores reach past each threshold: a histogram per name, summed from
    the top, rather than T comparisons of every score."""
    order = np.argsort(thresholds, kind="stable")
    ranked = thresholds[order]
    n_t = len(ranked)
    reach_a = np.searchsorted(ranked, original, side="right")  # thresholds <= f(x)
    reach_b = np.searchsorted(ranked, perturbed, side="right")  # (m, n)
    reach_ab = np.minimum(reach_b, reach_a[:, None])

    def above(reach: IntArray) -> IntArray:
        """(T, n): how many of each column's scores reach past each sorted threshold."""
        columns = reach.shape[1]
        counts = np.bincount((reach + np.arange(columns) * (n_t + 1)).ravel(),
                             minlength=columns * (n_t + 1)).reshape(columns, n_t + 1)
        past = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1][:, 1:]  # reach >= t + 1
        out = np.empty((n_t, columns), dtype=np.int64)
        out[order] = past.T
        return out

    count_a = above(reach_a[:, None])[:, 0]
    return count_a, above(reach_b), above(reach_ab)


def _row_std(values: FloatArray, mins: FloatArray) -> FloatArray:
    """Population std of each row, computed on the row minus its minimum (same value, and
    exactly 0 for a constant row, which np.std of the raw row need not give)."""
    return np.asarray((values - mins[:, None]).std(axis=1), dtype=np.float64)


def _is_constant(m2: float, mean: float, count: int) -> bool:
    std = math.sqrt(max(m2, 0.0) / count)
    return std <= _CONSTANT_RTOL * max(1.0, abs(mean))


def _pearson_from_moments(
    count: int, mean_a: float, mean_b: float, m2_a: float, m2_b: float, co: float
) -> float | None:
    """Pearson r from centred moments; None when undefined (n < 2 or a constant variable)."""
    if count < 2 or _is_constant(m2_a, mean_a, count) or _is_constant(m2_b, mean_b, count):
        return None
    r = co / math.sqrt(m2_a * m2_b)
    return max(-1.0, min(1.0, r))


def _top(values: FloatArray, k: int, order: IntArray) -> IntArray:
    """The indices of the `k` largest `values`, largest first, ties in index order: the
    first `k` of ``np.lexsort((order, -values))``, with only the values tied with or above
    the k-th largest sorted (a partition finds it; sorting a whole batch of pairs cost
    more than the rest of the metrics)."""
    if k < len(values):
        kth = np.partition(values, len(values) - k)[len(values) - k]
        keep = np.flatnonzero(values >= kth)
        values, order = values[keep], order[keep]
    return order[np.lexsort((order, -values))[:k]]


def _check_scores_in_range(values: FloatArray, bounds: tuple[float, float], what: str) -> None:
    low, high = bounds
    if values.size == 0 or (values.min() >= low and values.max() <= high):
        return  # NaN compares false: a NaN goes on to the test below, as before
    bad = (values < low) | (values > high)
    if bad.any():
        where = np.argwhere(bad)[0].tolist()
        raise ConfigurationError(
            f"{what} has a score outside score_range {bounds}: {values[tuple(where)]!r} at "
            f"index {where}; pass the model's score range as score_range=(low, high)"
        )


@dataclass(frozen=True, eq=False)
class PSAResult:
    """The PSA metrics of one model on one corpus and name set (psa, sections 2 and 3).

    `label_dist(c)` needs `c` in `thresholds` (the grid the counts were kept for) unless
    the per-sentence scores were kept (`psa_from_scores`, or `PSAAccumulator(...,
    keep_scores=True)`), in which case any threshold works.
    """

    names: tuple[str, ...]
    n_sentences: int
    score_bounds: tuple[float, float]
    """The model's score range the thresholds live in."""
    score_sens: dict[str, float]
    """ScoreSens per name: E_x[f(x_n) - f(x)] (psa, section 2), signed."""
    score_dev: float
    """ScoreDev: E_x[population StdDev_n f(x_n)] (psa, section 2)."""
    score_range: float
    """ScoreRange: E_x[max_n f(x_n) - min_n f(x_n)] (psa, section 2)."""
    shift_correlation: float | None
    """Pearson r of mean_n |f(x_n) - f(x)| with f(x) over sentences (psa, section 3.2);
    None when undefined (fewer than 2 sentences, or either quantity constant)."""
    thresholds: tuple[float, ...]
    worst_sentences: tuple[WorstSentence, ...]
    worst_pairs: tuple[WorstPair, ...]
    _grid_counts: tuple[IntArray, IntArray, IntArray] = field(repr=False)
    _scores: tuple[FloatArray, FloatArray] | None = field(default=None, repr=False)

    @property
    def has_scores(self) -> bool:
        """True when the per-sentence scores were kept (any threshold can be evaluated)."""
        return self._scores is not None

    def _counts_at(self, threshold: float) -> tuple[IntArray, IntArray, IntArray]:
        c = float(threshold)
        if not math.isfinite(c):
            raise ConfigurationError(f"threshold must be finite, got {threshold!r}")
        if self._scores is not None:
            original, perturbed = self._scores
            a, b, ab = _label_counts(original, perturbed, np.array([c]))
            return a[0], b[0], ab[0]
        for i, t in enumerate(self.thresholds):
            if math.isclose(t, c, rel_tol=0.0, abs_tol=1e-12):
                a_all, b_all, ab_all = self._grid_counts
                return a_all[i], b_all[i], ab_all[i]
        raise ConfigurationError(
            f"threshold {c!r} is not in the threshold grid this result was accumulated for "
            f"{list(self.thresholds)}; pass it in thresholds= when building the "
            "PSAAccumulator, or build it with keep_scores=True"
        )

    def label_dist_per_name(self, threshold: float) -> dict[str, float]:
        """Jaccard distance between {x: y(x)=1} and {x: y(x_n)=1} for each name n."""
        a, b, ab = self._counts_at(threshold)
        dist = _jaccard_distance(a, b, ab)
        return {n: float(d) for n, d in zip(self.names, dist, strict=True)}

    def label_dist(self, threshold: float) -> float:
        """LabelDist at threshold c, y(x) = 1[f(x) >= c] (psa, section 2).

        E_n[Jaccard distance between {x: y(x)=1} and {x: y(x_n)=1}]; a name whose two sets
        are both empty contributes 0.
        """
        return float(np.mean(list(self.label_dist_per_name(threshold).values())))

    def label_dist_curve(
        self, thresholds: Sequence[float] | None = None
    ) -> list[tuple[float, float]]:
        """(threshold, LabelDist) pairs (psa, section 3.2 and Figure 2).

        Default thresholds: the grid this result holds counts for.
        """
        grid = self.thresholds if thresholds is None else tuple(float(t) for t in thresholds)
        return [(t, self.label_dist(t)) for t in grid]

    def to_dict(self) -> dict[str, Any]:
        """Plain builtins for the JSON report (non-finite floats become None)."""
        return {
            "metric": "psa",
            "names": list(self.names),
            "n_sentences": self.n_sentences,
            "score_bounds": list(self.score_bounds),
            "score_sens": {n: clean_float(v) for n, v in self.score_sens.items()},
            "score_dev": clean_float(self.score_dev),
            "score_range": clean_float(self.score_range),
            "shift_correlation": self.shift_correlation,
            "label_dist_curve": [[t, clean_float(v)] for t, v in self.label_dist_curve()],
            "worst_sentences": [w.to_dict() for w in self.worst_sentences],
            "worst_pairs": [w.to_dict() for w in self.worst_pairs],
        }


def checked_psa_options(
    names: Sequence[str], score_range: tuple[float, float],
    thresholds: Sequence[float] | None, top_n: int,
) -> tuple[tuple[str, ...], tuple[float, float], FloatArray, int]:
    """The options every PSA accumulator takes, checked: (names, score range, the
    LabelDist grid, default `default_thresholds(score_range)`, top_n)."""
    bounds = check_range(score_range)
    grid = default_thresholds(bounds) if thresholds is None else tuple(thresholds)
    return (check_names(names), bounds, as_float_array(grid, "thresholds", ndim=1),
            check_positive_int(top_n, "top_n", minimum=0))


class PSAAccumulator:
    """Streaming PSA (psa, sections 2 and 3.2): add sentences one at a time or in batches.

    Memory is O(|N| * |thresholds| + top_n): running sums for ScoreSens, ScoreDev and
    ScoreRange; running centred moments for the shift correlation; for each threshold of a
    fixed grid, the counts |A|, |B_n|, |A n B_n| that LabelDist needs; and bounded heaps of
    the `top_n` worst sentences and (sentence, name) pairs.

    LabelDist at a threshold outside the grid needs the per-sentence scores: pass that
    threshold in `thresholds`, or set `keep_scores=True` (then memory grows with the corpus).

    The package's own PSA runs use `metrics.mergeable.MergeablePSA`, which gives the same
    result with exact sums (so a run in shards merges to the last bit) at about 1.2x the
    cost per sentence; both check their options through `checked_psa_options`.

    Args:
        names: the names N, in the column order of `name_scores`.
        score_range: the model's score range (low, high); scores outside it are rejected,
            and the default threshold grid spans it (see `default_thresholds`).
        thresholds: the LabelDist grid; default `default_thresholds(score_range)`.
        top_n: how many worst sentences and worst (sentence, name) pairs to keep.
        keep_scores: also keep every score, so `label_dist` works at any threshold.
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
        self._names, self._bounds, self._grid, self._top_n = checked_psa_options(
            names, score_range, thresholds, top_n)
        self._thresholds = tuple(float(t) for t in self._grid)
        self._keep = bool(keep_scores)
        n = len(self._names)
        t = len(self._thresholds)
        self._count = 0
        self._sum_shift = np.zeros(n, dtype=np.float64)
        self._sum_std = 0.0
        self._sum_range = 0.0
        # centred moments of a = mean_n |f(x_n) - f(x)| and b = f(x) (Chan et al. merge)
        self._mean_a = 0.0
        self._mean_b = 0.0
        self._m2_a = 0.0
        self._m2_b = 0.0
        self._co = 0.0
        self._count_a = np.zeros(t, dtype=np.int64)
        self._count_b = np.zeros((t, n), dtype=np.int64)
        self._count_ab = np.zeros((t, n), dtype=np.int64)
        self._worst_sentences: list[tuple[float, int, WorstSentence]] = []
        self._worst_pairs: list[tuple[float, int, int, WorstPair]] = []
        self._kept_original: list[FloatArray] = []
        self._kept_perturbed: list[FloatArray] = []

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def n_sentences(self) -> int:
        return self._count

    def worst_indices(self) -> set[int]:
        """Sentence indices the worst-sentence and worst-pair lists hold right now (at
        most 2 * `top_n`): what a caller streaming the sentences must keep to show them."""
        return {e[2].index for e in self._worst_sentences} | {
            e[3].index for e in self._worst_pairs
        }

    def add(self, original_score: float, name_scores: Any, key: str | None = None) -> None:
        """Add one sentence: f(x) and the vector (f(x_n) for n in names)."""
        row = as_float_array(name_scores, "name_scores", ndim=1)
        self.add_batch(
            np.array([original_score], dtype=np.float64),
            row[None, :],
            None if key is None else [key],
        )

    def add_batch(
        self,
        original_scores: Any,
        name_scores: Any,
        keys: Sequence[str | None] | None = None,
    ) -> None:
        """Add m sentences: f(x) of shape (m,) and f(x_n) of shape (m, |N|)."""
        original = as_float_array(original_scores, "original_scores", ndim=1)
        perturbed = as_float_array(name_scores, "name_scores", ndim=2)
        m, n = perturbed.shape
        if n != len(self._names):
            raise ConfigurationError(
                f"name_scores has {n} columns but the accumulator has {len(self._names)} names"
            )
        if original.shape[0] != m:
            raise ConfigurationError(
                f"original_scores has {original.shape[0]} rows but name_scores has {m}"
            )
        if keys is not None and len(keys) != m:
            raise ConfigurationError(f"keys has {len(keys)} entries for {m} sentences")
        _check_scores_in_range(original, self._bounds, "original_scores")
        _check_scores_in_range(perturbed, self._bounds, "name_scores")

        start = self._count
        shift = perturbed - original[:, None]
        maxs = perturbed.max(axis=1)
        mins = perturbed.min(axis=1)
        stds = _row_std(perturbed, mins)
        ranges = maxs - mins
        abs_mean = np.abs(shift).mean(axis=1)

        self._sum_shift += shift.sum(axis=0)
        self._sum_std += float(stds.sum())
        self._sum_range += float(ranges.sum())
        self._merge_moments(abs_mean, original)

        a, b, ab = _label_counts(original, perturbed, self._grid)
        self._count_a += a
        self._count_b += b
        self._count_ab += ab

        if self._top_n:
            self._push_worst(start, original, perturbed, shift, stds, ranges, abs_mean, keys)
        if self._keep:
            self._kept_original.append(original.copy())
            self._kept_perturbed.append(perturbed.copy())
        self._count += m

    def _merge_moments(self, a: FloatArray, b: FloatArray) -> None:
        nb = a.shape[0]
        mean_a = float(a.mean())
        mean_b = float(b.mean())
        da = a - mean_a
        db = b - mean_b
        m2_a = float(da @ da)
        m2_b = float(db @ db)
        co = float(da @ db)
        na = self._count
        total = na + nb
        delta_a = mean_a - self._mean_a
        delta_b = mean_b - self._mean_b
        self._m2_a += m2_a + delta_a * delta_a * na * nb / total
        self._m2_b += m2_b + delta_b * delta_b * na * nb / total
        self._co += co + delta_a * delta_b * na * nb / total
        self._mean_a += delta_a * nb / total
        self._mean_b += delta_b * nb / total

    def _push_worst(
        self,
        start: int,
        original: FloatArray,
        perturbed: FloatArray,
        shift: FloatArray,
        stds: FloatArray,
        ranges: FloatArray,
        abs_mean: FloatArray,
        keys: Sequence[str | None] | None,
    ) -> None:
        top = self._top_n
        m = original.shape[0]
        # Only the batch's own top candidates can enter the heaps.
        order = _top(ranges, top, np.arange(m))
        for i in order.tolist():
            item = (float(ranges[i]), -(start + i))
            if len(self._worst_sentences) >= top and item <= self._worst_sentences[0][:2]:
                continue
            row = perturbed[i]
            hi = int(np.argmax(row))
            lo = int(np.argmin(row))
            record = WorstSentence(
                index=start + i,
                key=None if keys is None else keys[i],
                original_score=float(original[i]),
                score_range=float(ranges[i]),
                score_std=float(stds[i]),
                max_name=self._names[hi],
                max_score=float(row[hi]),
                min_name=self._names[lo],
                min_score=float(row[lo]),
                mean_abs_shift=float(abs_mean[i]),
            )
            entry = (item[0], item[1], record)
            if len(self._worst_sentences) < top:
                heapq.heappush(self._worst_sentences, entry)
            else:
                heapq.heapreplace(self._worst_sentences, entry)

        flat_abs = np.abs(shift).ravel()
        pair_order = _top(flat_abs, top, np.arange(flat_abs.shape[0]))
        for f in pair_order.tolist():
            i, j = divmod(f, shift.shape[1])
            pitem = (float(flat_abs[f]), -(start + i), -j)
            if len(self._worst_pairs) >= top and pitem <= self._worst_pairs[0][:3]:
                continue
            pair = WorstPair(
                index=start + i,
                key=None if keys is None else keys[i],
                name=self._names[j],
                original_score=float(original[i]),
                perturbed_score=float(perturbed[i, j]),
                shift=float(shift[i, j]),
            )
            pentry = (pitem[0], pitem[1], pitem[2], pair)
            if len(self._worst_pairs) < top:
                heapq.heappush(self._worst_pairs, pentry)
            else:
                heapq.heapreplace(self._worst_pairs, pentry)

    def result(self) -> PSAResult:
        """The PSA metrics of everything added so far."""
        if self._count == 0:
            raise ConfigurationError("no sentences were added to the PSAAccumulator")
        m = self._count
        sens = self._sum_shift / m
        worst_sentences = tuple(
            e[2] for e in sorted(self._worst_sentences, key=lambda e: (-e[0], -e[1]))
        )
        worst_pairs = tuple(
            e[3] for e in sorted(self._worst_pairs, key=lambda e: (-e[0], -e[1], -e[2]))
        )
        scores: tuple[FloatArray, FloatArray] | None = None
        if self._keep:
            scores = (
                np.concatenate(self._kept_original),
                np.concatenate(self._kept_perturbed, axis=0),
            )
        return PSAResult(
            names=self._names,
            n_sentences=m,
            score_bounds=self._bounds,
            score_sens={n: float(v) for n, v in zip(self._names, sens, strict=True)},
            score_dev=self._sum_std / m,
            score_range=self._sum_range / m,
            shift_correlation=_pearson_from_moments(
                m, self._mean_a, self._mean_b, self._m2_a, self._m2_b, self._co
            ),
            thresholds=self._thresholds,
            worst_sentences=worst_sentences,
            worst_pairs=worst_pairs,
            _grid_counts=(self._count_a.copy(), self._count_b.copy(), self._count_ab.copy()),
            _scores=scores,
        )


def psa_from_scores(
    original_scores: Any,
    perturbed_scores: Any,
    names: Sequence[str],
    *,
    score_range: tuple[float, float] = (0.0, 1.0),
    thresholds: Sequence[float] | None = None,
    top_n: int = 10,
    keys: Sequence[str | None] | None = None,
) -> PSAResult:
    """PSA metrics (psa, sections 2 and 3.2) from full score arrays.

    Args:
        original_scores: f(x) for each sentence, shape (m,).
        perturbed_scores: f(x_n), shape (m, |N|), columns in the order of `names`.
        names: the names N.
        score_range: the model's score range; the default threshold grid spans it.
        thresholds: the grid of `PSAResult.label_dist_curve()`; any threshold can be
            evaluated with `label_dist` since the scores are kept.
        top_n: how many worst sentences / (sentence, name) pairs to report.
        keys: optional per-sentence keys (e.g. the texts) reported with the worst cases.
    """
    name_tuple = check_names(names)
    bounds = check_range(score_range)
    original = as_float_array(original_scores, "original_scores", ndim=1)
    perturbed = as_float_array(perturbed_scores, "perturbed_scores", ndim=2)
    m, n = perturbed.shape
    if n != len(name_tuple):
        raise ConfigurationError(
            f"perturbed_scores has {n} columns but {len(name_tuple)} names were given"
        )
    if original.shape[0] != m:
        raise ConfigurationError(
            f"original_scores has {original.shape[0]} rows but perturbed_scores has {m}"
        )
    if keys is not None and len(keys) != m:
        raise ConfigurationError(f"keys has {len(keys)} entries for {m} sentences")
    top = check_positive_int(top_n, "top_n", minimum=0)
    _check_scores_in_range(original, bounds, "original_scores")
    _check_scores_in_range(perturbed, bounds, "perturbed_scores")
    grid = default_thresholds(bounds) if thresholds is None else tuple(thresholds)
    grid_arr = as_float_array(grid, "thresholds", ndim=1)

    shift = perturbed - original[:, None]
    maxs = perturbed.max(axis=1)
    mins = perturbed.min(axis=1)
    stds = _row_std(perturbed, mins)
    ranges = maxs - mins
    abs_mean = np.abs(shift).mean(axis=1)

    da = abs_mean - abs_mean.mean()
    db = original - original.mean()
    corr = _pearson_from_moments(
        m,
        float(abs_mean.mean()),
        float(original.mean()),
        float(da @ da),
        float(db @ db),
        float(da @ db),
    )

    worst_sentences = []
    for i in np.lexsort((np.arange(m), -ranges))[:top].tolist():
        hi = int(np.argmax(perturbed[i]))
        lo = int(np.argmin(perturbed[i]))
        worst_sentences.append(
            WorstSentence(
                index=i,
                key=None if keys is None else keys[i],
                original_score=float(original[i]),
                score_range=float(ranges[i]),
                score_std=float(stds[i]),
                max_name=name_tuple[hi],
                max_score=float(perturbed[i, hi]),
                min_name=name_tuple[lo],
                min_score=float(perturbed[i, lo]),
                mean_abs_shift=float(abs_mean[i]),
            )
        )
    flat_abs = np.abs(shift).ravel()
    rows, cols = np.divmod(np.arange(flat_abs.shape[0]), n)
    worst_pairs = []
    for f in np.lexsort((cols, rows, -flat_abs))[:top].tolist():
        i, j = int(rows[f]), int(cols[f])
        worst_pairs.append(
            WorstPair(
                index=i,
                key=None if keys is None else keys[i],
                name=name_tuple[j],
                original_score=float(original[i]),
                perturbed_score=float(perturbed[i, j]),
                shift=float(shift[i, j]),
            )
        )

    return PSAResult(
        names=name_tuple,
        n_sentences=m,
        score_bounds=bounds,
        score_sens={k: float(v) for k, v in zip(name_tuple, shift.mean(axis=0), strict=True)},
        score_dev=float(stds.mean()),
        score_range=float(ranges.mean()),
        shift_correlation=corr,
        thresholds=tuple(float(t) for t in grid_arr),
        worst_sentences=tuple(worst_sentences),
        worst_pairs=tuple(worst_pairs),
        _grid_counts=_label_counts(original, perturbed, grid_arr),
        _scores=(original.copy(), perturbed.copy()),
    )
