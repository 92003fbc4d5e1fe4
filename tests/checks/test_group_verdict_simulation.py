"""Simulations of the group gap and ratio verdicts (issue 25): fair models pass, planted gaps
fail.

A fair model here gives every group one true selection rate (0.40; half the rows positive,
each row selected with probability 0.40 whatever its label, so TPR and FPR are 0.40 too).
`assert_group_gap_below(..., confidence=0.95)` and `assert_group_ratio_above(...,
confidence=0.95)` must fail such a model at most (1 - 0.95) / 2 = 2.5% of the time, for
2, 5 and 10 groups of 30, 100 and 1,000 rows, at the bounds issue 25 names (max_gap 0.02,
0.05, 0.10; min_ratio 0.8), for one group column and for intersectional groups alike. The
old verdict (a bootstrap interval of max - min) failed 5 groups x 30 rows at max_gap=0.05
45% of the time and 10 x 30 100% of the time.

Each replication draws the rows' confusion counts per group (binomial, seeded) and hands the
relation a `GroupAnalysis` holding them: the verdict reads nothing else (checked against
the same rows run through `group_fairness` in `test_rows_and_counts_give_one_verdict`).

Tolerance: nominal + 2 points, as the issue asks. With `REPS` = 300 replications the
binomial standard error of a 2.5% rate is 0.9 points, so a verdict truly at 2.5% stays under
4.5% in 99% of seeds, and one at 5% (twice nominal) is over it in 65%; the method's own
rate at these bounds is under 1.8% (`benchmarks/group_power.py`, 2,000 replications).
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report

import pytest_fairness as pf
from pytest_fairness.checks import groups as CG
from pytest_fairness.metrics.group_bounds import detectable_gap
from pytest_fairness.metrics.groups import GroupCounts, GroupMetrics

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

REPS = 400
NOMINAL = 0.025
TOLERANCE = 0.02
RATE = 0.40
GROUPS = (2, 5, 10)
SIZES = (30, 100, 1000)
MAX_GAPS = (0.02, 0.05, 0.10)
MIN_RATIO = 0.8


def _draw(rates: list[float], n: int, rng: np.random.Generator) -> list[GroupCounts]:
    """One data set: per group, n rows, half positive, each selected with its rate."""
    out = []
    for rate in rates:
        positives = int(rng.binomial(n, 0.5))
        tp = int(rng.binomial(positives, rate))
        fp = int(rng.binomial(n - positives, rate))
        out.append(GroupCounts(n, tp, fp, n - positives - fp, positives - tp))
    return out


def _analysis(keys: list[Hashable], counts: list[GroupCounts],
              columns: tuple[str, ...]) -> CG.GroupAnalysis:
    metrics = GroupMetrics(dict(zip(keys, counts, strict=True)), columns, "1", 10)
    empty = np.zeros(0, dtype=np.bool_)
    return CG.GroupAnalysis(metrics=metrics, keys=(), gold=(), predicted=(), true=empty,
                            pred=empty, positive="1")


def _fails(call: Any) -> bool:
    try:
        call()
    except pf.FairnessViolation:
        return True
    return False


def _keys(shape: tuple[int, ...]) -> tuple[list[Hashable], tuple[str, ...]]:
    """Group keys: one column of k values, or the intersections of several columns."""
    if len(shape) == 1:
        return [f"g{i}" for i in range(shape[0])], ("group",)
    a, b = shape
    return [(f"gender{i}", f"race{j}") for i in range(a) for j in range(b)], ("gender", "race")


def _false_failures(shape: tuple[int, ...], n: int, seed: int,
                    max_gaps: tuple[float, ...] = MAX_GAPS) -> dict[str, float]:
    keys, columns = _keys(shape)
    rng = np.random.default_rng(seed)
    failed = dict.fromkeys([*(f"gap {g:g}" for g in max_gaps), "ratio"], 0)
    with capture(), warnings.catch_warnings():
        warnings.simplefilter("ignore", pf.GroupPowerWarning)
        for _ in range(REPS):
            a = _analysis(keys, _draw([RATE] * len(keys), n, rng), columns)
            for g in max_gaps:
                failed[f"gap {g:g}"] += _fails(lambda a=a, g=g: pf.assert_group_gap_below(
                    a, max_gap=g, confidence=0.95))
            failed["ratio"] += _fails(lambda a=a: pf.assert_group_ratio_above(
                a, min_ratio=MIN_RATIO, confidence=0.95))
    return {k: v / REPS for k, v in failed.items()}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("k", GROUPS)
def test_fair_models_fail_at_most_the_nominal_rate(k: int, n: int) -> None:
    rates = _false_failures((k,), n, seed=1000 * k + n)
    assert all(r <= NOMINAL + TOLERANCE for r in rates.values()), rates


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("shape", [(2, 1), (1, 5), (2, 5)], ids=["2x1", "1x5", "2x5"])
def test_fair_models_fail_intersectional_groups_at_most_the_nominal_rate(
        shape: tuple[int, int], n: int) -> None:
    rates = _false_failures(shape, n, seed=7 + n + shape[1], max_gaps=(0.02, 0.10))
    assert all(r <= NOMINAL + TOLERANCE for r in rates.values()), rates


def test_the_simulation_catches_a_verdict_that_fails_fair_models() -> None:
    """The same simulation on the point estimate (no confidence=): the plug-in max - min of
    10 noisy rates fails nearly every fair model, so the tolerance above can fail."""
    keys, columns = _keys((10,))
    rng = np.random.default_rng(3)
    failed = 0
    with capture(), warnings.catch_warnings():
        warnings.simplefilter("ignore", pf.GroupPowerWarning)
        for _ in range(100):
            a = _analysis(keys, _draw([RATE] * 10, 30, rng), columns)
            failed += _fails(lambda a=a: pf.assert_group_gap_below(a, max_gap=0.10))
    assert failed / 100 > 0.5


@pytest.mark.parametrize("n", [100, 1000])
@pytest.mark.parametrize("k", GROUPS)
def test_a_planted_gap_is_detected(k: int, n: int) -> None:
    """One group's rate 1.15 x `detectable_gap` above the bound (the normal approximation
    of the gap found 80% of the time): the verdict fails at least 80% of the time."""
    max_gap = 0.05
    gap = max_gap + 1.15 * detectable_gap([n] * k)
    keys, columns = _keys((k,))
    rng = np.random.default_rng(k + n)
    reps = 200
    failed = 0
    with capture(), warnings.catch_warnings():
        warnings.simplefilter("ignore", pf.GroupPowerWarning)
        for _ in range(reps):
            a = _analysis(keys, _draw([RATE + gap] + [RATE] * (k - 1), n, rng), columns)
            failed += _fails(lambda a=a: pf.assert_group_gap_below(
                a, max_gap=max_gap, confidence=0.95))
    assert failed / reps >= 0.8, (gap, failed / reps)


@pytest.mark.parametrize("shape", [(5,), (2, 5)], ids=["5", "2x5"])
def test_a_planted_ratio_is_detected(shape: tuple[int, ...]) -> None:
    """1,000 rows per group, one group's selection rate 0.6 of the others' (0.5): the
    four-fifths verdict fails at least 80% of the time (the benchmark's figure for 80%
    is 0.67)."""
    keys, columns = _keys(shape)
    rng = np.random.default_rng(11)
    reps = 200
    failed = 0
    with capture():
        for _ in range(reps):
            a = _analysis(keys, _draw([0.3] + [0.5] * (len(keys) - 1), 1000, rng), columns)
            failed += _fails(lambda a=a: pf.assert_group_ratio_above(
                a, min_ratio=MIN_RATIO, confidence=0.95))
    assert failed / reps >= 0.8


def test_rows_and_counts_give_one_verdict() -> None:
    """The rows behind the drawn counts, run through `group_fairness` (intersectional
    columns), give the same counts and the same judged bound as the counts alone."""
    rng = np.random.default_rng(5)
    keys, columns = _keys((2, 5))
    for _ in range(5):
        counts = _draw([RATE + 0.2] + [RATE] * 9, 100, rng)
        gold: list[int] = []
        pred: list[int] = []
        gender: list[str] = []
        race: list[str] = []
        for (g, r), c in zip(keys, counts, strict=True):  # type: ignore[misc]
            for truth, guess, m in ((1, 1, c.tp), (0, 1, c.fp), (0, 0, c.tn), (1, 0, c.fn)):
                gold += [truth] * m
                pred += [guess] * m
                gender += [g] * m
                race += [r] * m
        order = rng.permutation(len(gold))
        rows = CG.group_fairness(
            predictions=[pred[i] for i in order], y_true=[gold[i] for i in order],
            groups={"gender": [gender[i] for i in order], "race": [race[i] for i in order]},
            group=["gender", "race"])
        assert rows.metrics.groups == dict(zip(keys, counts, strict=True))
        judged = []
        for source in (rows, _analysis(keys, counts, columns)):
            with capture() as state, warnings.catch_warnings():
                warnings.simplefilter("ignore", pf.GroupPowerWarning)
                _fails(lambda s=source: pf.assert_group_gap_below(s, max_gap=0.05,
                                                                  confidence=0.95))
            judged.append(state.results[0]["measurements"][1]["value"])
        assert judged[0] == judged[1]


@pytest.mark.parametrize("metric", ["selection_rate", "tpr"])
def test_the_interval_covers_a_planted_gap(metric: str) -> None:
    """Two-sided coverage of the reported interval of the gap (issue 25 found 0.82-0.89 for
    the bootstrap at 30 rows per group): with 5 groups of 30 rows and true rates 0.40,
    0.45, 0.50, 0.55, 0.60 (gap 0.20), [low, high] holds 0.20 at least 95% - 2 points of
    the time, and each end misses on its side at most 2.5% + 2 points."""
    from pytest_fairness.metrics.group_bounds import group_bound_ends

    rng = np.random.default_rng(17)
    rates = [0.40, 0.45, 0.50, 0.55, 0.60]
    counts = np.array([[[c.tp, c.fp, c.tn, c.fn] for c in _draw(rates, 30, rng)]
                       for _ in range(2000)], dtype=float)
    _, low, high = group_bound_ends(counts, metric, "difference", confidence=0.95)
    assert np.mean(low > 0.2) <= NOMINAL + TOLERANCE
    assert np.mean(high < 0.2) <= NOMINAL + TOLERANCE
    assert np.mean((low <= 0.2) & (high >= 0.2)) >= 0.95 - TOLERANCE
