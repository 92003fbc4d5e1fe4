"""Exactly mergeable accumulators (issue 31): any split of the inputs and any order of
merging give bit-identical results, equal to the exact values (Fractions) correctly
rounded, and to the reference formulas within rounding."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.checks.psa import _GenderBalance
from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics.mergeable import (
    ExactSum,
    FlipCounts,
    MergeablePSA,
    TopK,
    balanced_order,
    column_sums,
    two_product,
)
from pytest_fairness.metrics.psa import psa_from_scores

floats = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)
NAMES = ["Alice", "Bob", "Wei"]


def _cuts(rng: random.Random, n: int, parts: int) -> list[tuple[int, int]]:
    edges = sorted({0, n, *(rng.randint(0, n) for _ in range(parts - 1))})
    return list(itertools.pairwise(edges))


@given(st.lists(floats, max_size=60), st.integers(1, 6), st.randoms(use_true_random=False))
def test_an_exact_sum_is_the_same_double_however_it_is_split_and_merged(
        values: list[float], parts: int, rng: random.Random) -> None:
    whole = ExactSum(values)
    pieces = [ExactSum(values[a:b]) for a, b in _cuts(rng, len(values), parts)]
    rng.shuffle(pieces)
    merged = ExactSum()
    for piece in pieces:
        merged.merge(piece)
    exact = sum((Fraction(v) for v in values), Fraction(0))
    assert merged.fraction() == whole.fraction() == exact
    assert merged.value() == whole.value() == math.fsum(values)  # correctly rounded
    assert float(exact) == whole.value()


@given(st.lists(st.lists(st.one_of(floats, st.floats(-1e-300, 1e-300),
                                   st.sampled_from([5e-324, -5e-324, 1.7e308, -1.7e308])),
                         min_size=3, max_size=3), min_size=1, max_size=40))
def test_column_sums_are_exact_for_any_doubles(rows: list[list[float]]) -> None:
    sums, special = column_sums(np.array(rows))
    for j in range(3):
        exact = sum((Fraction(r[j]) for r in rows), Fraction(0))
        assert Fraction(sums[j], 2**1074) == exact
    assert special == [0.0, 0.0, 0.0]


def test_non_finite_values_make_the_sum_their_own() -> None:
    total = ExactSum([1.0, math.inf, 2.0])
    assert total.value() == math.inf
    total.add([-math.inf])
    assert math.isnan(total.value())
    assert ExactSum([0.1, 0.2]).value() == 0.30000000000000004 == math.fsum([0.1, 0.2])


def test_an_exact_sum_survives_cancellation_that_plain_sums_lose() -> None:
    values = [1e16, 1.0, -1e16, 1e-8] * 1000
    assert sum(values) != 1000 * (1.0 + 1e-8)  # a plain sum loses the small terms
    total = ExactSum()
    for k in range(0, len(values), 7):
        total.add(values[k:k + 7])
    assert total.fraction() == 1000 * (1 + Fraction(1e-8))


@given(st.lists(st.tuples(st.floats(-1e100, 1e100), st.floats(-1e100, 1e100)), max_size=30))
def test_two_product_is_exact(pairs: list[tuple[float, float]]) -> None:
    a = np.array([p[0] for p in pairs], dtype=np.float64)
    b = np.array([p[1] for p in pairs], dtype=np.float64)
    p, e = two_product(a, b)
    for x, y, hi, lo in zip(a.tolist(), b.tolist(), p.tolist(), e.tolist(), strict=True):
        if x == 0 or y == 0 or abs(x * y) > 1e-280:  # above the subnormal range
            assert Fraction(hi) + Fraction(lo) == Fraction(x) * Fraction(y)


@st.composite
def score_tables(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    m = draw(st.integers(1, 40))
    values = st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.floats(0.0, 1.0))
    original = np.array(draw(st.lists(values, min_size=m, max_size=m)), dtype=np.float64)
    flat = draw(st.lists(values, min_size=m * len(NAMES), max_size=m * len(NAMES)))
    return original, np.array(flat, dtype=np.float64).reshape(m, len(NAMES))


@settings(max_examples=60, deadline=None)
@given(score_tables(), st.integers(1, 5), st.integers(1, 6), st.randoms(use_true_random=False))
def test_psa_in_any_split_and_merge_order_is_bit_identical(
        table: tuple[np.ndarray, np.ndarray], parts: int, top_n: int,
        rng: random.Random) -> None:
    original, perturbed = table
    m = original.shape[0]
    keys = [f"sentence {i}" for i in range(m)]
    whole = MergeablePSA(NAMES, top_n=top_n, keep_scores=True)
    whole.add_batch(original, perturbed, keys)
    pieces = []
    for a, b in _cuts(rng, m, parts):
        piece = MergeablePSA(NAMES, top_n=top_n, keep_scores=True)
        for c, d in _cuts(rng, b - a, 3):  # each shard adds in chunks of its own
            piece.add_batch(original[a + c:a + d], perturbed[a + c:a + d], keys[a + c:a + d],
                            indices=range(a + c, a + d))
        pieces.append(piece)
    rng.shuffle(pieces)
    merged = pieces[0]
    for piece in pieces[1:]:
        merged.merge(piece)
    one, other = whole.result(), merged.result()
    assert other.to_dict() == one.to_dict()  # every metric and worst case, every bit
    assert other.shift_correlation == one.shift_correlation
    assert other.label_dist(0.3) == one.label_dist(0.3)  # kept scores, back in order
    # and the same figures as the batch formulas, within rounding
    ref = psa_from_scores(original, perturbed, NAMES, top_n=top_n, keys=keys)
    for name in NAMES:
        assert one.score_sens[name] == pytest.approx(ref.score_sens[name], abs=1e-12)
    assert one.score_dev == pytest.approx(ref.score_dev, abs=1e-12)
    assert one.score_range == pytest.approx(ref.score_range, abs=1e-12)
    assert [w.index for w in one.worst_pairs] == [w.index for w in ref.worst_pairs]
    assert [w.index for w in one.worst_sentences] == [w.index for w in ref.worst_sentences]
    if ref.shift_correlation is None or one.shift_correlation is None:
        # exact moments see a constant exactly; the two-pass formula within 1e-12
        assert (ref.shift_correlation is None) or abs(ref.shift_correlation) <= 1.0
    else:
        assert one.shift_correlation == pytest.approx(ref.shift_correlation, abs=1e-9)


@given(score_tables(), st.integers(1, 5), st.integers(0, 6), st.randoms(use_true_random=False))
def test_flip_counts_merge_exactly_and_keep_the_largest_shifts(
        table: tuple[np.ndarray, np.ndarray], parts: int, top_n: int,
        rng: random.Random) -> None:
    original, perturbed = table
    m = original.shape[0]
    whole = FlipCounts(0.5, 0.1, top_n)
    whole.add(original, perturbed, range(m))
    merged = FlipCounts(0.5, 0.1, top_n)
    cuts = _cuts(rng, m, parts)
    rng.shuffle(cuts)
    for a, b in cuts:
        piece = FlipCounts(0.5, 0.1, top_n)
        piece.add(original[a:b], perturbed[a:b], range(a, b))
        merged.merge(piece)
    assert (merged.n_flips, merged.n_exceeding, merged.items()) == (
        whole.n_flips, whole.n_exceeding, whole.items())
    # by hand: every flip, ordered by |shift| (largest first), then sentence, then name
    every = sorted(((abs(float(perturbed[i, j] - original[i])), i, j)
                    for i in range(m) for j in range(len(NAMES))
                    if (perturbed[i, j] >= 0.5) != (original[i] >= 0.5)),
                   key=lambda f: (-f[0], f[1], f[2]))
    assert whole.n_flips == len(every)
    assert [f[:3] for f in whole.items()] == every[:top_n]
    assert whole.n_exceeding == int((np.abs(perturbed - original[:, None]) > 0.1).sum())


@given(st.lists(st.integers(-50, 50), unique=True), st.integers(0, 5),
       st.randoms(use_true_random=False))
def test_top_k_of_a_union_is_the_top_k_of_the_parts(keys: list[int], k: int,
                                                    rng: random.Random) -> None:
    whole: TopK[str] = TopK(k)
    parts: list[TopK[str]] = [TopK(k) for _ in range(3)]
    for key in keys:
        whole.offer(key, str(key))
        rng.choice(parts).offer(key, str(key))
    merged: TopK[str] = TopK(k)
    for part in parts:
        merged.merge(part)
    assert merged.items() == whole.items() == [str(x) for x in sorted(keys, reverse=True)[:k]]


@given(st.lists(st.sampled_from(["female", "male", None, "neutral"]), max_size=60))
def test_balanced_order_is_the_order_the_balancer_lets_sentences_on(
        genders: list[str | None]) -> None:
    # the balancer reads an anchor's gender only
    anchors: list[Any] = [SimpleNamespace(text=f"t{i}", gender=g) for i, g in enumerate(genders)]
    balancer = _GenderBalance()
    emitted: list[str] = []
    for k in range(0, len(anchors), 4):  # chunks, as PSA scores them
        chunk = anchors[k:k + 4]
        used, _, _ = balancer.pair([(a, ()) for a in chunk],
                                   np.zeros(len(chunk)), np.zeros((len(chunk), 1)))
        emitted += [a.text for a, _ in used]
    left = balancer.finish()
    positions, left_out = balanced_order(genders)
    assert left_out == left
    placed = sorted((p, f"t{i}") for i, p in enumerate(positions) if p >= 0)
    assert [t for _, t in placed] == emitted
    assert [p for p, _ in placed] == list(range(len(emitted)))


def test_accumulators_built_differently_are_not_merged_and_bad_inputs_are_named() -> None:
    with pytest.raises(ConfigurationError, match="different names"):
        MergeablePSA(NAMES).merge(MergeablePSA(["Alice", "Bob"]))
    acc = MergeablePSA(NAMES)
    with pytest.raises(ConfigurationError, match=r"NaN|finite"):
        acc.add_batch([0.5], [[0.1, math.nan, 0.2]])
    with pytest.raises(ConfigurationError, match="infinite"):
        acc.add_batch([math.inf], [[0.1, 0.1, 0.2]])
    with pytest.raises(ConfigurationError, match="outside score_range"):
        acc.add_batch([0.5], [[0.1, 1.5, 0.2]])
    with pytest.raises(ConfigurationError, match="indices"):
        acc.add_batch([0.5], [[0.1, 0.5, 0.2]], indices=[1, 2])
    with pytest.raises(ConfigurationError, match="no sentences"):
        acc.result()
    acc.add_batch([0.5], [[0.1, 0.5, 0.2]], keys=["x\u202e\x1b"])  # keys are kept as given
    assert acc.result().worst_sentences[0].key == "x\u202e\x1b"
