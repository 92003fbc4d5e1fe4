"""Entity metrics (issue 29): differences after mapping, recall per group with intervals, the
gap and ratio verdicts (hand-worked values, scipy, fairlearn, a simulation)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.errors import ConfigurationError
from pytest_fairness.metrics.entities import entity_differences, entity_recall, found_as


def test_differences_are_lost_and_gained_spans() -> None:
    mapped = [(0, 7, "PERSON"), (16, 20, "GPE"), None]
    perturbed = [(0, 7, "ORG"), (16, 20, "GPE"), (30, 35, "DATE")]
    lost, gained = entity_differences(mapped, perturbed)
    assert lost == ((0, 7, "PERSON"),)
    assert gained == ((0, 7, "ORG"), (30, 35, "DATE"))
    assert entity_differences(mapped, [(0, 7, "PERSON"), (16, 20, "GPE")]) == ((), ())


def test_found_means_an_exact_span_of_the_label() -> None:
    spans = [(0, 4, "PERSON"), (10, 16, "GPE")]
    assert found_as((0, 4), spans, "PERSON")
    assert not found_as((0, 3), spans, "PERSON")  # a shorter span is a miss
    assert not found_as((10, 16), spans, "PERSON")  # another label is a miss
    assert not found_as((20, 24), spans, "PERSON")


def test_recall_per_group_hand_worked() -> None:
    found = [True, True, False, True, True, False, False, False]
    groups = ["a"] * 4 + ["b"] * 4
    r = entity_recall(found, groups, confidence=0.95)
    assert (r.groups["a"].found, r.groups["a"].n) == (3, 4)
    assert r.groups["b"].recall == 0.25
    assert r.gap.estimate == pytest.approx(0.5)
    assert r.ratio.estimate == pytest.approx(1 / 3)
    assert (r.best, r.worst) == ("a", "b")
    # Wilson at z = 1.959964: (k + z^2/2 +- z sqrt(k (n - k) / n + z^2 / 4)) / (n + z^2)
    z = 1.959963984540054
    centre = (3 + z * z / 2) / (4 + z * z)
    half = z * math.sqrt(3 * 1 / 4 + z * z / 4) / (4 + z * z)
    assert r.groups["a"].low == pytest.approx(centre - half)
    assert r.groups["a"].high == pytest.approx(centre + half)


def test_wilson_intervals_match_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    found = list(rng.random(300) < 0.7)
    groups = [str(g) for g in rng.integers(0, 3, 300)]
    r = entity_recall(found, groups, confidence=0.9)
    for g, rec in r.groups.items():
        ci = stats.binomtest(rec.found, rec.n).proportion_ci(confidence_level=0.9,
                                                              method="wilson")
        assert (rec.low, rec.high) == pytest.approx((ci.low, ci.high), abs=1e-9), g


def test_recalls_and_gap_match_fairlearn() -> None:
    fairlearn = pytest.importorskip("fairlearn.metrics")
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(5)
    found = rng.random(200) < np.where(np.arange(200) < 100, 0.9, 0.6)
    groups = np.where(np.arange(200) < 100, "x", "y")
    frame = fairlearn.MetricFrame(metrics=metrics.recall_score, y_true=np.ones(200, dtype=int),
                                  y_pred=found.astype(int), sensitive_features=groups)
    r = entity_recall(list(found), list(groups))
    for g in ("x", "y"):
        assert r.groups[g].recall == pytest.approx(frame.by_group[g])
    assert r.gap.estimate == pytest.approx(frame.difference())
    assert r.ratio.estimate == pytest.approx(frame.ratio())


def test_a_fair_tagger_rarely_fails_the_gap_verdict() -> None:
    """Simulated: 3 groups of 150 names, each found with probability 0.8; the verdict
    "lower bound of the gap > 0.05" fails at most (1 - 0.95) / 2 of the runs, plus noise."""
    rng = np.random.default_rng(0)
    groups = [g for g in "abc" for _ in range(150)]
    runs = 400
    failed = sum(entity_recall(list(rng.random(450) < 0.8), groups).gap.low > 0.05
                 for _ in range(runs))
    assert failed / runs <= 0.04
    biased = sum(entity_recall(list(rng.random(450) < np.repeat([0.9, 0.8, 0.6], 150)),
                               groups).gap.low > 0.05 for _ in range(50))
    assert biased >= 45  # a true gap of 0.3 is found nearly always


@given(found=st.lists(st.booleans(), min_size=2, max_size=60),
       split=st.integers(1, 59))
@settings(max_examples=100, deadline=None)
def test_recall_properties(found: list[bool], split: int) -> None:
    split = min(split, len(found) - 1)
    groups = ["a"] * split + ["b"] * (len(found) - split)
    r = entity_recall(found, groups)
    for rec in r.groups.values():
        assert 0.0 <= rec.low <= rec.recall <= rec.high <= 1.0
    assert r.gap.low <= r.gap.estimate <= r.gap.high
    assert r.gap.estimate == pytest.approx(
        abs(r.groups["a"].recall - r.groups["b"].recall))


@pytest.mark.parametrize(
    ("found", "groups", "fragment"),
    [
        ([True, False], ["a"], "one group per name"),
        ([True, False], ["a", "a"], "at least two groups"),
        ([], [], "at least two groups"),
    ],
)
def test_bad_recall_inputs_are_named(found: list[bool], groups: list[str], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        entity_recall(found, groups)
    with pytest.raises(ConfigurationError, match="confidence"):
        entity_recall([True, False], ["a", "b"], confidence=math.nan)


def test_wilson_ends_are_exact_at_zero_and_all_successes() -> None:
    """0 of n has a lower end of exactly 0 and n of n an upper end of exactly 1 (the
    formula alone gives 2.8e-17 for 0 of 5, which put a recall of 0 below its interval)."""
    from pytest_fairness.metrics.group_bounds import wilson_interval

    for n in range(1, 60):
        low, high = wilson_interval([0, n], [n, n], 1.96)
        assert low[0] == 0.0
        assert high[1] == 1.0
        assert 0.0 < high[0] < 1.0
        assert 0.0 < low[1] < 1.0
