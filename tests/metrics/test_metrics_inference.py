"""BCa and studentized intervals, the directional W1 bootstrap, permutation tests, paired gaps.

The coverage and false-alarm rates these methods are chosen for are simulated in
`tests/checks/test_statistics.py`; here each method is checked against its definition.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import numpy as np
import pytest

from pytest_fairness import ConfigurationError
from pytest_fairness.metrics import (
    PairedGapResult,
    bootstrap_ci,
    bootstrap_group_wasserstein,
    bootstrap_mean,
    bootstrap_paired_gap,
    bootstrap_psa,
    bootstrap_wasserstein,
    paired_gap,
    permutation_test_group_wasserstein,
    permutation_test_wasserstein,
    sign_test,
    total_group_fairness,
    wasserstein,
)
from pytest_fairness.metrics.paired import pair_means
from pytest_fairness.metrics.wasserstein import _Grid

NORMAL = NormalDist()


def _replayed_means(x: np.ndarray, runs: int, seed: int) -> np.ndarray:
    """The resampled means `bootstrap_mean` draws: `runs` index vectors from one generator."""
    idx = np.random.default_rng(seed).integers(0, x.shape[0], size=(runs, x.shape[0]))
    return x[idx].mean(axis=1)


def test_bca_of_a_mean_by_its_definition() -> None:
    x = np.random.default_rng(3).gamma(2.0, size=30)
    ci = bootstrap_mean(x, n_resamples=500, confidence=0.9, seed=4, method="bca")
    means = _replayed_means(x, 500, 4)
    z0 = NORMAL.inv_cdf((np.sum(means < x.mean()) + np.sum(means <= x.mean())) / 1000)
    u = x - x.mean()  # jackknife influence of a mean
    accel = (u**3).sum() / (6 * (u**2).sum() ** 1.5)
    ends = []
    for q in (0.05, 0.95):
        z = z0 + NORMAL.inv_cdf(q)
        ends.append(np.quantile(means, NORMAL.cdf(z0 + z / (1 - accel * z))))
    assert (ci.method, ci.low, ci.high) == ("bca", pytest.approx(ends[0]), pytest.approx(ends[1]))


def test_bca_agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    x, y = rng.gamma(2.0, size=30), rng.gamma(2.5, size=25)
    ours = bootstrap_ci(np.mean, x, n_resamples=4000, seed=1)
    theirs = stats.bootstrap((x,), np.mean, n_resamples=4000, method="BCa", random_state=1)
    assert ours.method == "bca"
    assert ours.low == pytest.approx(theirs.confidence_interval.low, abs=0.05)
    assert ours.high == pytest.approx(theirs.confidence_interval.high, abs=0.05)
    two = bootstrap_ci(lambda a, b: a.mean() - b.mean(), x, y, paired=False, n_resamples=4000,
                       seed=1)
    ref = stats.bootstrap((x, y), lambda a, b, axis=-1: a.mean(axis) - b.mean(axis),
                          n_resamples=4000, method="BCa", random_state=1).confidence_interval
    assert (two.low, two.high) == (pytest.approx(ref.low, abs=0.06), pytest.approx(ref.high,
                                                                                   abs=0.06))


def test_studentized_interval_by_its_definition() -> None:
    x = np.random.default_rng(5).normal(0.3, 0.1, 40)
    ci = bootstrap_mean(x, n_resamples=400, confidence=0.95, seed=6)
    idx = np.random.default_rng(6).integers(0, 40, size=(400, 40))
    res = x[idx]
    t = np.abs(res.mean(axis=1) - x.mean()) / (res.std(axis=1, ddof=1) / math.sqrt(40))
    se = x.std(ddof=1) / math.sqrt(40)
    q = np.quantile(t, 0.95)
    assert ci.method == "studentized"
    assert (ci.low, ci.high) == (pytest.approx(x.mean() - q * se), pytest.approx(x.mean() + q * se))
    # near Student's t_39 quantile (2.02) on normal data, with the resampling noise of 400
    assert 1.8 < q < 2.4


def test_psa_methods_and_joint_intervals() -> None:
    rng = np.random.default_rng(2)
    original = rng.random(40)
    perturbed = np.clip(original[:, None] + rng.normal(0.02, 0.1, (40, 4)), 0, 1)
    names = ["a", "b", "c", "d"]
    stud = bootstrap_psa(original, perturbed, names, thresholds=[0.5], seed=0)
    assert {ci.method for ci in stud.score_sens.values()} == {"studentized"}
    assert stud.score_dev.method == stud.score_range.method == "studentized"
    assert stud.label_dist[0.5].method == "bca"  # a ratio of counts, not a mean
    for n in names:  # the joint intervals hold for all names at once: wider
        assert stud.score_sens_joint[n].low < stud.score_sens[n].low
        assert stud.score_sens_joint[n].high > stud.score_sens[n].high
    pct = bootstrap_psa(original, perturbed, names, thresholds=[0.5], seed=0, method="percentile")
    assert {pct.score_dev.method, pct.label_dist[0.5].method} == {"percentile"}
    bca = bootstrap_psa(original, perturbed, names, thresholds=[0.5], seed=0, method="bca")
    assert bca.score_sens["a"].method == "bca"
    assert bca.score_sens["a"].estimate == pytest.approx(stud.score_sens["a"].estimate)
    json.dumps(stud.to_dict(), allow_nan=False)
    with pytest.raises(ConfigurationError, match="'studentized'"):
        bootstrap_psa(original, perturbed, names, method="directional")


def test_the_grid_gives_exact_w1_with_ties_and_unequal_sizes() -> None:
    rng = np.random.default_rng(7)
    a = np.round(rng.random(37), 1)
    b = np.round(rng.random(52) * 0.8, 1)
    grid = _Grid([a, b])
    assert np.abs(grid.cdfs[0] - grid.cdfs[1]) @ grid.widths == pytest.approx(wasserstein(a, b))
    one = np.zeros((1, 37))
    one[0, :] = 1.0  # every value once: the sample itself
    assert np.allclose(grid.resampled_cdf(0, one)[0], grid.cdfs[0])


def test_permutation_p_value_of_a_tiny_example() -> None:
    # [0, 1] vs [2, 3]: 2 of the 6 splits of {0, 1, 2, 3} into pairs are as far apart
    test = permutation_test_wasserstein([0.0, 1.0], [2.0, 3.0], n_resamples=20000, seed=0)
    assert test.statistic == pytest.approx(2.0)
    assert test.p_value == pytest.approx(1 / 3, abs=0.01)
    same = permutation_test_wasserstein([0.5, 0.5, 0.5], [0.5, 0.5], seed=0)
    assert same.p_value == 1.0
    json.dumps(test.to_dict())


def test_group_permutation_keeps_the_pool() -> None:
    rng = np.random.default_rng(8)
    groups = {"x": rng.random(30), "y": rng.random(30) + 0.5, "z": rng.random(20)}
    tests = permutation_test_group_wasserstein(groups, seed=1)
    per_group = total_group_fairness(groups).per_group
    for g, t in tests.items():
        assert t.statistic == pytest.approx(per_group[g])
    assert tests["y"].p_value < 0.01
    with pytest.raises(ConfigurationError, match="at least two group"):
        permutation_test_group_wasserstein({"x": [0.1]})


def test_directional_w1_interval_on_identical_and_distant_samples() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.beta(2, 5, 100), rng.beta(2, 5, 100)
    same = bootstrap_wasserstein(a, b, seed=0)
    assert same.method == "directional"
    assert same.low == 0.0 < wasserstein(a, b) <= same.high
    assert same.p_value is not None
    assert same.p_value > 0.025
    # the percentile interval lies above the true 0 (the bias the directional one avoids)
    pct = bootstrap_wasserstein(a, b, seed=0, method="percentile", permutation_test=False)
    assert pct.low > 0.0
    assert pct.p_value is None
    far = bootstrap_wasserstein(a, b + 0.2, seed=0)
    assert 0.1 < far.low < 0.2 < far.high
    assert far.p_value is not None
    assert far.p_value < 0.01
    json.dumps(far.to_dict(), allow_nan=False)
    with pytest.raises(ConfigurationError, match="at least 2 scores"):
        bootstrap_wasserstein([0.1], [0.2, 0.3])
    with pytest.raises(ConfigurationError, match="method must be one of"):
        bootstrap_wasserstein(a, b, method="studentized")


def test_group_intervals_resample_the_pool_with_its_groups() -> None:
    """The pool is made of the groups: for two groups of equal size F_a - pool is exactly
    (F_a - F_b) / 2 in every resample, so the interval of W1(a, pool) is exactly half that
    of W1(a, b) (with independent resampling of the pool it was about 1.5x too wide)."""
    rng = np.random.default_rng(10)
    a, b = rng.beta(2, 5, 80), rng.beta(2, 5, 80) + 0.1
    for method in ("directional", "percentile"):
        pair = bootstrap_wasserstein(a, b, seed=3, method=method)
        pool = bootstrap_group_wasserstein({"a": a, "b": b}, seed=3, method=method)
        for group in ("a", "b"):
            assert pool[group].estimate == pytest.approx(pair.estimate / 2)
            assert pool[group].low == pytest.approx(pair.low / 2)
            assert pool[group].high == pytest.approx(pair.high / 2)


def test_sign_test_and_paired_gap() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert sign_test(10, 0) == pytest.approx(2 / 1024)
    assert sign_test(144, 0) == pytest.approx(2 * 0.5**144)
    assert sign_test(3, 1) == pytest.approx(2 * 5 / 16)
    found = paired_gap([[0.2, 0.4], [0.6, 0.6], [0.1, 0.1]], [0.1, 0.7, 0.0])
    assert isinstance(found, PairedGapResult)
    assert found.per_pair == pytest.approx((0.2, -0.1, 0.1))
    assert found.gap == pytest.approx(0.2 / 3)
    assert (found.n_positive, found.n_negative) == (2, 1)
    json.dumps(found.to_dict(), allow_nan=False)
    assert pair_means(np.ones((3, 4))).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ConfigurationError, match="same units"):
        paired_gap([0.1, 0.2], [0.1])
    with pytest.raises(ConfigurationError, match="not a string"):
        paired_gap("abc", [0.1])


def test_paired_gap_interval() -> None:
    rng = np.random.default_rng(11)
    templates = rng.random(50)
    a = templates + 0.05 + rng.normal(0, 0.02, 50)
    ci = bootstrap_paired_gap(a, templates, seed=0)
    assert ci.method == "studentized"
    assert 0.04 < ci.low < 0.05 < ci.high < 0.06
    assert ci.estimate == pytest.approx(paired_gap(a, templates).gap)
