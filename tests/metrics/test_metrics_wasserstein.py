"""W1 and the counterfactual sentiment-bias metrics (huang et al., section 3)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pytest_fairness.metrics import (
    average_individual_fairness,
    demographic_disparity,
    strong_demographic_disparity,
    total_group_fairness,
    wasserstein,
)


def test_w1_by_hand() -> None:
    # F_a = 1/2 on [0, 1); F_b = 0 on [0, .5), 1 on [.5, 1):
    # W1 = .5 * |.5 - 0| + .5 * |.5 - 1| = .5
    assert wasserstein([0.0, 1.0], [0.5]) == pytest.approx(0.5)
    # a = (0, 0, 1), b = (.5, 1): on [0, .5) |2/3 - 0|, on [.5, 1) |2/3 - 1/2|
    # W1 = .5 * 2/3 + .5 * 1/6 = 5/12
    assert wasserstein([0.0, 0.0, 1.0], [0.5, 1.0]) == pytest.approx(5 / 12)
    # equal sizes: mean |sorted a - sorted b| = (.2 + .1 + .1) / 3
    assert wasserstein([0.2, 0.6, 0.8], [0.9, 0.4, 0.5]) == pytest.approx(0.4 / 3)


def test_demographic_disparity_by_hand() -> None:
    a, b = [0.2, 0.6, 0.8], [0.4, 0.5, 0.9]
    # P(a > .5) = 2/3, P(b > .5) = 1/3 (.5 is not > .5)
    assert demographic_disparity(a, b, 0.5) == pytest.approx(1 / 3)
    # averaged over tau ~ U[0, 1] it is W1 = .4/3 (eq. 1)
    assert strong_demographic_disparity(a, b) == pytest.approx(0.4 / 3)
    # the average over a fine grid of thresholds approaches the same value
    taus = (np.arange(20000) + 0.5) / 20000
    approx = np.mean([demographic_disparity(a, b, t) for t in taus])
    assert approx == pytest.approx(0.4 / 3, abs=1e-4)
    # on a [-1, 1] scale the uniform threshold spreads over twice the width: W1 / 2
    assert strong_demographic_disparity(a, b, score_range=(-1.0, 1.0)) == pytest.approx(0.2 / 3)
    with pytest.raises(ValueError, match="outside score_range"):
        strong_demographic_disparity([1.5], [0.5])


def test_average_individual_fairness_by_hand() -> None:
    templates = [
        # W1(A, B) = (.1 + .1)/2 = .1; W1(A, C) = 0; W1(B, C) = .1 -> mean .2/3
        {"A": [0.1, 0.3], "B": [0.2, 0.4], "C": [0.1, 0.3]},
        # W1 = .4
        {"A": [0.5], "B": [0.9]},
    ]
    r = average_individual_fairness(templates)
    assert r.per_template == pytest.approx((0.2 / 3, 0.4))
    # (.0667 + .4) / 2 = .2333
    assert r.value == pytest.approx((0.2 / 3 + 0.4) / 2)
    assert (r.worst_template, r.worst_pair) == (1, ("A", "B"))
    json.dumps(r.to_dict())
    with pytest.raises(ValueError, match="at least 2"):
        average_individual_fairness([{"A": [0.1]}])


def test_total_group_fairness_by_hand() -> None:
    # whole = (.2, .4, .6, .8). Quantile coupling of F = (.2, .4) with the whole:
    # u in [0,.25): 0; [.25,.5): .2; [.5,.75): .2; [.75,1): .4 -> .25 * .8 = .2
    r = total_group_fairness({"F": [0.2, 0.4], "M": [0.6, 0.8]})
    assert r.per_group == {"F": pytest.approx(0.2), "M": pytest.approx(0.2)}
    assert r.value == pytest.approx(0.4)
    json.dumps(r.to_dict())
    # identical subgroups: zero
    assert total_group_fairness({"a": [0.1, 0.5], "b": [0.5, 0.1]}).value == 0


def test_invalid_samples() -> None:
    with pytest.raises(ValueError, match="empty"):
        wasserstein([], [0.1])
    with pytest.raises(ValueError, match="NaN"):
        wasserstein([float("nan")], [0.1])
    with pytest.raises(ValueError, match="1-dimensional"):
        wasserstein([[0.1]], [0.1])


SAMPLE = hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-5, 5))


@settings(max_examples=100, deadline=None)
@given(a=SAMPLE, b=SAMPLE, c=SAMPLE)
def test_w1_is_a_metric(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> None:
    ab = wasserstein(a, b)
    assert ab == pytest.approx(wasserstein(b, a), abs=1e-12)
    assert wasserstein(a, a) == 0
    assert ab >= 0
    assert wasserstein(a, c) <= ab + wasserstein(b, c) + 1e-9


@settings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(1, 12))
def test_w1_equal_sizes_is_mean_sorted_gap(data: st.DataObject, n: int) -> None:
    a = data.draw(hnp.arrays(np.float64, n, elements=st.floats(-5, 5)))
    b = data.draw(hnp.arrays(np.float64, n, elements=st.floats(-5, 5)))
    expected = np.mean(np.abs(np.sort(a) - np.sort(b)))
    assert wasserstein(a, b) == pytest.approx(expected, abs=1e-9)
