"""Seeded percentile bootstrap."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pytest_fairness.metrics import (
    bootstrap_ci,
    bootstrap_counterfactual,
    bootstrap_psa,
    bootstrap_wasserstein,
    psa_from_scores,
    wasserstein,
)


def test_percentile_interval_by_replaying_the_draws() -> None:
    sample = np.array([1.0, 2.0, 3.0, 4.0])
    ci = bootstrap_ci(np.mean, sample, n_resamples=5, confidence=0.8, seed=11,
                      method="percentile")
    # replay: the same generator draws the same 5 index vectors
    rng = np.random.default_rng(11)
    means = [sample[rng.integers(0, 4, size=4)].mean() for _ in range(5)]
    low, high = np.quantile(means, [0.1, 0.9])
    assert (ci.estimate, ci.low, ci.high) == (2.5, pytest.approx(low), pytest.approx(high))


def test_constant_sample_has_degenerate_interval() -> None:
    ci = bootstrap_ci(np.mean, [0.3] * 10, seed=0)
    assert ci.low == pytest.approx(0.3)
    assert ci.high == pytest.approx(0.3)
    json.dumps(ci.to_dict())


def test_seed_reproducibility_and_paired_resampling() -> None:
    rng = np.random.default_rng(1)
    x = rng.random(50)
    a = bootstrap_ci(np.mean, x, seed=5)
    b = bootstrap_ci(np.mean, x, seed=5)
    assert a == b
    # paired: rows of two samples stay together, so the difference of equal samples is 0
    ci = bootstrap_ci(lambda u, v: float(np.mean(u - v)), x, x.copy(), seed=0)
    assert ci.low == ci.high == 0
    with pytest.raises(ValueError, match="same length"):
        bootstrap_ci(lambda u, v: 0.0, x, x[:3])


def test_psa_bootstrap_estimates_match_psa() -> None:
    rng = np.random.default_rng(2)
    original = rng.random(40)
    perturbed = np.clip(original[:, None] + rng.normal(0, 0.1, (40, 3)), 0, 1)
    names = ["a", "b", "c"]
    boot = bootstrap_psa(original, perturbed, names, thresholds=[0.5], n_resamples=200, seed=0)
    psa = psa_from_scores(original, perturbed, names)
    assert boot.score_dev.estimate == pytest.approx(psa.score_dev)
    assert boot.score_range.estimate == pytest.approx(psa.score_range)
    assert boot.score_sens["b"].estimate == pytest.approx(psa.score_sens["b"])
    assert boot.label_dist[0.5].estimate == pytest.approx(psa.label_dist(0.5))
    for ci in (boot.score_dev, boot.score_range, boot.label_dist[0.5]):
        assert ci.low <= ci.high
    assert boot.score_dev.low <= psa.score_dev <= boot.score_dev.high
    json.dumps(boot.to_dict())


def test_counterfactual_and_wasserstein_bootstrap() -> None:
    cf = bootstrap_counterfactual([0.9, 0.2, 0.5], [0.6, 0.5, 0.5], n_resamples=100, seed=0,
                                  method="percentile")
    # per-pair gaps .3, .3, 0 -> mean .2
    assert cf.estimate == pytest.approx(0.2)
    assert 0.0 <= cf.low <= cf.high <= 0.3 + 1e-12
    # the default is studentized; finite even where resamples repeat one value
    stud = bootstrap_counterfactual([0.9, 0.2, 0.5], [0.6, 0.5, 0.5], n_resamples=100, seed=0)
    assert stud.method == "studentized"
    assert -1.0 < stud.low <= 0.2 <= stud.high < 2.0
    a, b = [0.1, 0.2, 0.3], [0.5, 0.6]
    w = bootstrap_wasserstein(a, b, n_resamples=100, seed=0)
    assert w.estimate == pytest.approx(wasserstein(a, b))


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci(np.mean, [1.0, 2.0], confidence=1.5)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_ci(np.mean, [1.0, 2.0], n_resamples=0)
    with pytest.raises(ValueError, match="seed"):
        bootstrap_ci(np.mean, [1.0, 2.0], seed="x")  # type: ignore[arg-type]
