"""(eps, k)-fairness, decided exactly for a given set of candidate mutations.

Ma, Wang & Liu (2020), "Metamorphic Testing and Certified Mitigation of Fairness Violations
in NLP Models" (shared/papers/mt-nlp-metamorphic-testing-certified-mitigation.txt),
Definition 3.1: f : X -> [0, b)^N and x0 are (eps, k)-fair w.r.t. attribute A when there
is S subset of X_A (the mutations of x0 on A) with |S| = k such that

    f(x) <= e^eps f(x')   elementwise, for all x, x' in {x0} u S.

Here X_A is the finite set of candidate mutations the caller passes in (their outputs).

How the decision is made exactly
--------------------------------
Write z = log f(x) (elementwise). For one class c the pair condition in both directions is
|z_c - z'_c| <= eps, so a pair is compatible iff the L-infinity distance
d(x, x') = max_c |log f(x)_c - log f(x')_c| is <= eps (a class where both outputs are 0
imposes nothing; a class where exactly one is 0 makes the pair incompatible for every eps).
Deciding Definition 3.1 is therefore a clique problem: among the candidates within eps of
x0, is there a clique of size k in the graph "d <= eps"? Because the metric is
L-infinity, a set is a clique iff in every class its spread max - min is <= eps, i.e. iff
it fits, with z0, in an axis-aligned cube of side eps. All comparisons are made on float
differences of log-outputs, so decisions at a pairwise value are exact.

* One coordinate (a single score, or K classes of which all but one are 0 for x0): the
  best set lies in a window [a, a + eps] whose lower end a is z0 or a candidate value
  below it; a sorted sweep finds it in O(m log m) (m candidates), and the best k-set for
  the smallest eps is k consecutive sorted values, O(m log m).
* K >= 2 coordinates: exact maximum clique by branch and bound with greedy-colouring
  bounds (Tomita & Seki's MCQ) over Python-int bitsets, vertices ordered by degree. The
  worst case is exponential in m, as for any exact clique algorithm, but the geometric
  (box) structure keeps the colouring bounds tight: a few hundred candidates with 2 to 20
  classes take milliseconds to a few tens of milliseconds.

The smallest eps for a given k is exact as well: the L-infinity diameter of {x0} u S is
one of the pairwise values d(x_i, x_j) of {x0} u candidates, so it is found by binary
search over their sorted distinct values (no smaller than the k-th smallest d(x0, x_i)),
deciding each with the search above stopped at the first k-clique: O(m^2 K) to list the
values plus O(log m) decisions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from .validation import (
    BoolArray,
    FloatArray,
    IntArray,
    as_float_array,
    check_eps,
    check_positive_int,
    clean_float,
)

__all__ = [
    "EpsKDecision",
    "EpsKResult",
    "eps_k_fair",
    "farther_than",
    "max_k_at_eps",
    "max_log_ratio",
    "min_eps_at_k",
    "pairwise_log_ratio",
]

#: Default slack on log-ratios for floating-point rounding (absolute, in log space).
DEFAULT_TOL = 1e-12


def _check_outputs(values: Any, name: str, ndim: int | tuple[int, ...]) -> FloatArray:
    arr = as_float_array(values, name, ndim=ndim)
    if (arr < 0).any():
        where = np.argwhere(arr < 0)[0].tolist()
        raise ConfigurationError(
            f"{name} has a negative output at index {where}; (eps, k)-fairness (mt-nlp "
            "Definition 3.1) is defined for outputs in [0, b): map scores such as "
            "sentiment in [-1, 1] to a non-negative range first"
        )
    return arr


def _log(values: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(values), dtype=np.float64)


def _pair_distance(za: FloatArray, zb: FloatArray) -> float:
    """max_c |za_c - zb_c| with -inf (zero outputs) handled: both -inf -> 0, one -> inf."""
    both = np.isneginf(za) & np.isneginf(zb)
    one = np.isneginf(za) ^ np.isneginf(zb)
    if one.any():
        return math.inf
    keep = ~both
    if not keep.any():
        return 0.0
    return float(np.max(np.abs(za[keep] - zb[keep])))


def pairwise_log_ratio(a: Any, b: Any) -> float:
    """The smallest eps with f(a) <= e^eps f(b) and f(b) <= e^eps f(a) elementwise.

    That is max_c |log a_c - log b_c| (mt-nlp Definition 3.1, one pair); a class where both
    outputs are 0 imposes nothing, a class where only one is 0 gives infinity.
    """
    va = _check_outputs(a, "a", ndim=(0, 1))
    vb = _check_outputs(b, "b", ndim=(0, 1))
    if va.shape != vb.shape:
        raise ConfigurationError(f"a has shape {va.shape} but b has shape {vb.shape}")
    return _pair_distance(np.atleast_1d(_log(va)), np.atleast_1d(_log(vb)))


def farther_than(
    original_output: Any, candidate_outputs: Any, eps: float, *, tol: float = DEFAULT_TOL
) -> list[tuple[int, float]]:
    """(index, log ratio) of every candidate farther than `eps` (+ `tol`) from x0, farthest
    first (ties in candidate order): the mutations that keep a k-set from existing (mt-nlp
    Definition 3.1); the log ratio is `pairwise_log_ratio` of x0 and the candidate."""
    e = check_eps(eps)
    slack = check_eps(tol, "tol")
    cands = _check_outputs(candidate_outputs, "candidate_outputs", ndim=(1, 2))
    ratios = [pairwise_log_ratio(original_output, row) for row in cands]
    order = sorted(range(len(ratios)), key=lambda i: -ratios[i])
    return [(i, ratios[i]) for i in order if ratios[i] > e + slack]


def max_log_ratio(outputs: Any) -> float:
    """The smallest eps for which a given set satisfies (1) of mt-nlp Definition 3.1.

    `outputs` has shape (n,) for scores or (n, K); the value is the largest pairwise
    `pairwise_log_ratio` over the set (0 for a single element).
    """
    arr = _check_outputs(outputs, "outputs", ndim=(1, 2))
    z = _log(arr if arr.ndim == 2 else arr[:, None])
    zero = np.isneginf(z)
    if (zero != zero[0]).any():
        return math.inf
    keep = ~zero[0]
    if not keep.any():
        return 0.0
    zz = z[:, keep]
    return float(np.max(zz.max(axis=0) - zz.min(axis=0)))


@dataclass(frozen=True)
class EpsKResult:
    """A witness set S for (eps, k)-fairness (mt-nlp Definition 3.1)."""

    eps: float
    """The eps asked for (`max_k_at_eps`) or the smallest achievable one (`min_eps_at_k`;
    infinity when no k candidates can ever be compatible)."""
    k: int
    """|S|: the largest achievable at eps (`max_k_at_eps`) or the k asked for."""
    witness: tuple[int, ...]
    """Indices of S among the candidates, ascending (empty when none exists)."""
    achieved_eps: float
    """max pairwise log-ratio over {x0} u S (0 for an empty S)."""
    n_candidates: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "eps": clean_float(self.eps),
            "k": self.k,
            "witness": list(self.witness),
            "achieved_eps": clean_float(self.achieved_eps),
            "n_candidates": self.n_candidates,
        }


@dataclass(frozen=True)
class EpsKDecision:
    """Whether f and x0 are (eps, k)-fair over the given candidates, with the evidence."""

    eps: float
    k: int
    fair: bool
    witness: tuple[int, ...]
    """k candidate indices that satisfy Definition 3.1 with x0 (empty when not fair)."""
    max_k: int
    """The largest |S| achievable at this eps."""
    min_eps: float
    """The smallest eps at which some k candidates qualify (infinity when none can)."""
    n_candidates: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": "eps_k_fairness",
            "eps": self.eps,
            "k": self.k,
            "fair": self.fair,
            "witness": list(self.witness),
            "max_k": self.max_k,
            "min_eps": clean_float(self.min_eps),
            "n_candidates": self.n_candidates,
        }


class _CliqueSearch:
    """Exact maximum clique by branch and bound with greedy-colouring bounds.

    The algorithm of Tomita & Seki (2003, "MCQ"): vertices are numbered by descending degree
    and kept in Python-int bitsets; at each node the candidates are greedily coloured
    (vertices of one colour are pairwise non-adjacent), so a node whose clique plus its
    number of colours cannot beat the best clique found is pruned. `need` stops the search
    as soon as a clique of that size is found (the decision version).
    """

    def __init__(self, adjacency: BoolArray, need: int | None) -> None:
        n = adjacency.shape[0]
        degree = adjacency.sum(axis=1)
        self.order = np.argsort(-degree, kind="stable").astype(np.int64)
        ordered = adjacency[np.ix_(self.order, self.order)]
        packed = np.packbits(ordered, axis=1, bitorder="little")
        self.adj = [int.from_bytes(row.tobytes(), "little") for row in packed]
        self.n = n
        self.need = need
        self.best: list[int] = []

    def run(self) -> IntArray:
        # Depth-first with an explicit stack (a clique can be longer than Python's
        # recursion limit). A frame is [clique, candidates, vertices, colours, next index].
        stack: list[list[Any]] = []
        if self.n:
            stack.append(self._frame([], (1 << self.n) - 1))
        while stack:
            frame = stack[-1]
            clique, candidates, vertices, colours, i = frame
            done = self.need is not None and len(self.best) >= self.need
            if i < 0 or done or len(clique) + colours[i] <= len(self.best):
                stack.pop()
                continue
            v = vertices[i]
            frame[4] = i - 1
            frame[1] = candidates & ~(1 << v)
            rest = candidates & self.adj[v]
            if rest:
                stack.append(self._frame([*clique, v], rest))
            elif len(clique) + 1 > len(self.best):
                self.best = [*clique, v]
        return np.sort(self.order[np.array(self.best, dtype=np.int64)])

    def _frame(self, clique: list[int], candidates: int) -> list[Any]:
        vertices, colours = self._colour(candidates)
        return [clique, candidates, vertices, colours, len(vertices) - 1]

    def _colour(self, candidates: int) -> tuple[list[int], list[int]]:
        """Greedy sequential colouring; colours are non-decreasing along `vertices`."""
        vertices: list[int] = []
        colours: list[int] = []
        colour = 0
        uncoloured = candidates
        while uncoloured:
            colour += 1
            free = uncoloured
            while free:
                low = free & -free
                v = low.bit_length() - 1
                free &= ~low & ~self.adj[v]
                uncoloured &= ~low
                vertices.append(v)
                colours.append(colour)
        return vertices, colours


@dataclass(frozen=True)
class _Prepared:
    z0: FloatArray  # finite log-outputs of x0 on the classes where x0 is non-zero
    z: FloatArray  # log-outputs of the zero-pattern-compatible candidates, same classes
    index: IntArray  # their positions among the candidates
    n_candidates: int


def _prepare(original_output: Any, candidate_outputs: Any) -> _Prepared:
    orig = _check_outputs(original_output, "original_output", ndim=(0, 1))
    cand = _check_outputs(candidate_outputs, "candidate_outputs", ndim=(1, 2))
    if orig.ndim == 0:
        if cand.ndim != 1:
            raise ConfigurationError(
                f"original_output is a single score but candidate_outputs has shape "
                f"{cand.shape}; pass one score per candidate"
            )
        orig = orig[None]
        cand = cand[:, None]
    elif cand.ndim != 2 or cand.shape[1] != orig.shape[0]:
        raise ConfigurationError(
            f"candidate_outputs has shape {cand.shape}; expected (m, {orig.shape[0]}) to "
            "match original_output"
        )
    z0 = _log(orig)
    z = _log(cand)
    zero0 = np.isneginf(z0)
    same_zeros = (np.isneginf(z) == zero0[None, :]).all(axis=1)
    index = np.flatnonzero(same_zeros).astype(np.int64)
    keep = ~zero0
    return _Prepared(z0=z0[keep], z=z[index][:, keep], index=index, n_candidates=int(cand.shape[0]))


def _best_window(values: FloatArray, center: float, lim: float) -> IntArray:
    """One coordinate: the most values in a window [a, a + lim] that contains `center`.

    The window's lower end is `center` or a value below it (the set's minimum), so every
    optimal set lies in one of these windows; O(m log m) with a sorted sweep.
    """
    order = np.argsort(values, kind="stable")
    v = values[order]
    lows = np.append(v[(v < center) & (center - v <= lim)], center)
    start = np.searchsorted(v, lows, side="left")
    # members of the window starting at lows[i]: v[start[i]:stop[i]] (v is sorted)
    stop = np.array(
        [start[i] + int(np.sum(v[start[i] :] - lows[i] <= lim)) for i in range(lows.shape[0])]
    )
    best = int(np.argmax(stop - start))
    return np.sort(order[start[best] : stop[best]]).astype(np.int64)


def _search(prep: _Prepared, lim: float, need: int | None) -> IntArray:
    """Positions (into prep.index) of a largest compatible set at slack `lim`."""
    if prep.z.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if prep.z0.shape[0] == 0:  # x0 is all zeros: every same-pattern candidate is compatible
        found = np.arange(prep.z.shape[0], dtype=np.int64)
        return found if need is None else found[:need]
    near = np.flatnonzero(np.max(np.abs(prep.z - prep.z0[None, :]), axis=1) <= lim)
    if near.shape[0] == 0:
        return near.astype(np.int64)
    pts = prep.z[near]
    if pts.shape[1] == 1:
        found = near[_best_window(pts[:, 0], float(prep.z0[0]), lim)].astype(np.int64)
        return found if need is None else np.sort(found[:need])
    adjacency = np.ones((pts.shape[0], pts.shape[0]), dtype=bool)
    for c in range(pts.shape[1]):
        adjacency &= np.abs(pts[:, c, None] - pts[None, :, c]) <= lim
    np.fill_diagonal(adjacency, False)
    best = _CliqueSearch(adjacency, need).run()
    found = near[best].astype(np.int64)
    return found if need is None else np.sort(found[:need])


def _diameter(prep: _Prepared, positions: IntArray) -> float:
    if positions.shape[0] == 0 or prep.z0.shape[0] == 0:
        return 0.0
    pts = np.vstack([prep.z0[None, :], prep.z[positions]])
    return float(np.max(pts.max(axis=0) - pts.min(axis=0)))


def max_k_at_eps(
    original_output: Any, candidate_outputs: Any, eps: float, *, tol: float = DEFAULT_TOL
) -> EpsKResult:
    """The largest k for which f and x0 are (eps, k)-fair over the candidates (exact).

    mt-nlp Definition 3.1. `original_output` is f(x0) (shape (K,), or a scalar score);
    `candidate_outputs` is f(x') for each candidate mutation (shape (m, K), or (m,)).
    Outputs must be non-negative. `tol` is an absolute slack on log-ratios that absorbs
    floating-point rounding (0 for the literal comparison). The witness is a largest set.
    """
    e = check_eps(eps)
    slack = check_eps(tol, "tol")
    prep = _prepare(original_output, candidate_outputs)
    found = _search(prep, e + slack, None)
    return EpsKResult(
        eps=e,
        k=int(found.shape[0]),
        witness=tuple(int(i) for i in prep.index[found]),
        achieved_eps=_diameter(prep, found),
        n_candidates=prep.n_candidates,
    )


def _min_eps(prep: _Prepared, k: int) -> tuple[float, IntArray]:
    m = prep.z.shape[0]
    if m < k:
        return math.inf, np.zeros(0, dtype=np.int64)
    if prep.z0.shape[0] == 0:
        return 0.0, np.arange(k, dtype=np.int64)
    if prep.z.shape[1] == 1:  # one coordinate: the best k values are consecutive
        order = np.argsort(prep.z[:, 0], kind="stable")
        v = prep.z[order, 0]
        c = float(prep.z0[0])
        spans = np.maximum(v[k - 1 :], c) - np.minimum(v[: m - k + 1], c)
        first = int(np.argmin(spans))
        return float(spans[first]), np.sort(order[first : first + k]).astype(np.int64)
    to_x0 = np.max(np.abs(prep.z - prep.z0[None, :]), axis=1)
    lower = float(np.sort(to_x0)[k - 1])  # k candidates must lie within eps of x0
    pts = np.vstack([prep.z0[None, :], prep.z])
    # all pairwise L-infinity distances of {x0} u candidates, as exact float differences
    dist = np.zeros((pts.shape[0], pts.shape[0]), dtype=np.float64)
    for c in range(pts.shape[1]):
        np.maximum(dist, np.abs(pts[:, c, None] - pts[None, :, c]), out=dist)
    values = np.unique(dist[np.triu_indices(pts.shape[0], k=1)])
    values = values[values >= lower]
    lo, hi = 0, values.shape[0] - 1  # the largest value (the full diameter) is feasible
    best = _search(prep, float(values[hi]), k)
    while lo < hi:
        mid = (lo + hi) // 2
        found = _search(prep, float(values[mid]), k)
        if found.shape[0] >= k:
            hi, best = mid, found
        else:
            lo = mid + 1
    if best.shape[0] < k or lo != hi:  # pragma: no cover - defensive
        best = _search(prep, float(values[hi]), k)
    return _diameter(prep, best), best


def min_eps_at_k(original_output: Any, candidate_outputs: Any, k: int) -> EpsKResult:
    """The smallest eps for which f and x0 are (eps, k)-fair over the candidates (exact).

    mt-nlp Definition 3.1. The value is one of the pairwise log-ratios of {x0} u candidates
    (found by binary search over them); `eps` is infinity and the witness empty when fewer
    than k candidates can ever be compatible with x0 (e.g. their zero classes differ).
    """
    kk = check_positive_int(k, "k")
    prep = _prepare(original_output, candidate_outputs)
    eps, found = _min_eps(prep, kk)
    return EpsKResult(
        eps=eps,
        k=kk,
        witness=tuple(int(i) for i in prep.index[found]),
        achieved_eps=eps if found.shape[0] else 0.0,
        n_candidates=prep.n_candidates,
    )


def eps_k_fair(
    original_output: Any,
    candidate_outputs: Any,
    eps: float,
    k: int,
    *,
    tol: float = DEFAULT_TOL,
) -> EpsKDecision:
    """Decide mt-nlp Definition 3.1 exactly: is there S of k candidates with (1) on {x0} u S?

    Also reports the largest k achievable at `eps` and the smallest eps achievable at `k`,
    so a failure says how far the model is from the requested guarantee.
    """
    e = check_eps(eps)
    kk = check_positive_int(k, "k")
    slack = check_eps(tol, "tol")
    prep = _prepare(original_output, candidate_outputs)
    largest = _search(prep, e + slack, None)
    min_eps, _ = _min_eps(prep, kk)
    fair = largest.shape[0] >= kk
    witness = tuple(int(i) for i in prep.index[np.sort(largest[:kk])]) if fair else ()
    return EpsKDecision(
        eps=e,
        k=kk,
        fair=fair,
        witness=witness,
        max_k=int(largest.shape[0]),
        min_eps=min_eps,
        n_candidates=prep.n_candidates,
    )
