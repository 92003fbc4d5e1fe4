"""Simultaneous score bounds of group gaps and ratios (metrics/group_bounds.py): published
values, reference implementations, properties, and the undefined part of equalized odds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics.benchmarks import binomial_interval
from pytest_fairness.metrics.group_bounds import (
    detectable_gap,
    group_bound_ends,
    mover_ratio,
    newcombe_difference,
    recommended_group_size,
    simultaneous_group_bound,
    wilson_interval,
)
from pytest_fairness.metrics.groups import group_metrics

Z95 = 1.959963984540054


def test_newcombe_reproduces_the_published_intervals() -> None:
    # Newcombe 1998, Table II, method 10: 56/70 - 48/80 and 9/10 - 3/10
    low, high = newcombe_difference(56, 70, 48, 80, Z95)
    assert (round(float(low), 4), round(float(high), 4)) == (0.0524, 0.3339)
    low, high = newcombe_difference(9, 10, 3, 10, Z95)
    assert (round(float(low), 4), round(float(high), 4)) == (0.1705, 0.8090)


def test_wilson_agrees_with_the_scalar_interval() -> None:
    for k, n in ((0, 10), (3, 10), (81, 263), (30, 30)):
        low, high = wilson_interval(k, n, Z95)
        assert (float(low), float(high)) == pytest.approx(binomial_interval(k, n))
    low, high = wilson_interval([1], [0], Z95)
    assert math.isnan(low[0])
    assert math.isnan(high[0])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.integers(1, 60), st.data())
def test_mover_ratio_holds_the_estimate_and_is_reciprocal(n1: int, n2: int,
                                                          data: st.DataObject) -> None:
    x1 = data.draw(st.integers(0, n1))
    x2 = data.draw(st.integers(1, n2))
    low, high = mover_ratio(x1, n1, x2, n2, Z95)
    ratio = (x1 / n1) / (x2 / n2)
    assert 0.0 <= float(low) <= ratio + 1e-12
    assert ratio - 1e-12 <= float(high)
    if x1 > 0:  # the interval of p2 / p1 is the reciprocal of that of p1 / p2
        back_low, back_high = mover_ratio(x2, n2, x1, n1, Z95)
        assert float(back_low) == pytest.approx(1.0 / float(high))
        assert float(back_high) == pytest.approx(1.0 / float(low))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 40),
                          st.integers(0, 40)), min_size=2, max_size=6))
def test_bounds_hold_the_plug_in_estimate(rows: list[tuple[int, int, int, int]]) -> None:
    counts = np.array(rows, dtype=float)
    for metric in ("selection_rate", "tpr", "precision", "equalized_odds"):
        for statistic in ("difference", "ratio"):
            b = simultaneous_group_bound(counts, metric, statistic)
            batch = group_bound_ends(counts[None], metric, statistic)
            assert np.allclose([b.estimate, b.low, b.high], [v[0] for v in batch],
                               equal_nan=True)
            if math.isnan(b.estimate):
                continue
            assert b.low <= b.estimate <= b.high
            assert b.low >= 0.0
            assert b.high <= 1.0
            assert b.judged == (b.low if statistic == "difference" else b.high)


def test_the_estimate_is_the_metrics_gap_and_the_adjustment_counts_ordered_pairs() -> None:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    p = rng.integers(0, 2, 600)
    g = np.repeat(["a", "b", "c"], 200)
    gm = group_metrics(y, p, list(g))
    for metric in ("selection_rate", "tpr", "fpr", "equalized_odds"):
        gap = simultaneous_group_bound(gm, metric, "difference")
        assert gap.estimate == gm.difference(metric)
        assert gap.comparisons == (2 if metric == "equalized_odds" else 1) * 3 * 2
        assert simultaneous_group_bound(gm, metric, "ratio").estimate == gm.ratio(metric)
    # more confidence, a wider interval; the judged end moves away from the estimate
    wide = simultaneous_group_bound(gm, "tpr", "difference", confidence=0.99)
    narrow = simultaneous_group_bound(gm, "tpr", "difference", confidence=0.8)
    assert wide.low <= narrow.low
    assert wide.high >= narrow.high


def test_two_groups_of_one_rate_give_a_gap_bound_of_zero() -> None:
    b = simultaneous_group_bound(np.array([[20, 0, 0, 30], [20, 0, 0, 30]]),
                                 "selection_rate", "difference")
    assert b.estimate == 0.0
    assert b.low == 0.0
    assert b.high > 0.1


def test_an_equalized_odds_part_that_is_zero_everywhere_is_left_out() -> None:
    # TP FP TN FN: no false positive in any group, so the FPR ratio is 0/0
    counts = np.array([[5, 0, 10, 5], [8, 0, 10, 2]], dtype=float)
    b = simultaneous_group_bound(counts, "equalized_odds", "ratio")
    assert b.parts == ("tpr",)
    assert b.undefined_parts == ("fpr",)
    assert b.estimate == pytest.approx(0.625)
    tpr = simultaneous_group_bound(counts, "tpr", "ratio")
    assert b.low == pytest.approx(tpr.low)
    assert b.high >= tpr.high  # adjusted over both parts: never less conservative
    # a zero denominator is undefined, not 0/0: it stays NaN
    undefined = np.array([[5, 0, 10, 5], [8, 0, 0, 2]], dtype=float)
    assert math.isnan(simultaneous_group_bound(undefined, "equalized_odds", "ratio").estimate)
    # the difference of all-zero FPRs is 0: defined, kept
    assert simultaneous_group_bound(counts, "equalized_odds", "difference").parts == (
        "tpr", "fpr")


def test_metrics_equalized_odds_ratio_matches_fairlearn_when_fpr_is_zero_everywhere() -> None:
    fm = pytest.importorskip("fairlearn.metrics")
    y = [1, 1, 1, 1, 0, 0, 0, 0] * 2
    p = [1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]
    g = ["a"] * 8 + ["b"] * 8
    ours = group_metrics(y, p, g).ratio("equalized_odds")
    assert ours == pytest.approx(2 / 3)
    assert ours == pytest.approx(fm.equalized_odds_ratio(y, p, sensitive_features=g))


def test_power_planning_figures() -> None:
    assert detectable_gap([30, 30]) == pytest.approx(0.398, abs=1e-3)
    assert detectable_gap([1000] * 10) < detectable_gap([100] * 10) < detectable_gap([30] * 10)
    assert detectable_gap([30, 1000, 1000]) > detectable_gap([1000, 1000, 1000])
    for k in (2, 5, 10):
        n = recommended_group_size(k, excess=0.25)
        assert detectable_gap([n] * k) <= 0.25 < detectable_gap([n - 1] * k)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: simultaneous_group_bound(np.zeros((1, 4)), "tpr", "ratio"), "at least 2"),
        (lambda: simultaneous_group_bound(np.zeros((2, 3)), "tpr", "ratio"), "at least 2"),
        (lambda: simultaneous_group_bound(np.ones((2, 4)), "auc", "ratio"), "metric must"),
        (lambda: simultaneous_group_bound(np.ones((2, 4)), "tpr", "mean"), "statistic"),
        (lambda: simultaneous_group_bound(np.ones((2, 4)), "tpr", "ratio", confidence=1.0),
         "confidence"),
        (lambda: group_bound_ends(np.ones(4), "tpr", "ratio"), "at least 2"),
        (lambda: detectable_gap([10]), "at least 2"),
        (lambda: detectable_gap([10, 10], power=1.5), "power"),
        (lambda: recommended_group_size(1, excess=0.1), "groups >= 2"),
        (lambda: recommended_group_size(2, excess=float("nan")), "excess"),
    ],
)
def test_bad_arguments_are_named_errors(call: object, match: str) -> None:
    with pytest.raises(ConfigurationError, match=match):
        call()  # type: ignore[operator]
