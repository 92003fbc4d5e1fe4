"""Certified smoothing (mt-nlp Theorem 1, Appendix B) and psa averaging."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pytest_fairness.metrics import (
    average_over_perturbations,
    certificate,
    max_k_at_eps,
    mitigation_curve,
    smoothed_group,
    smoothed_output,
    smoothing_weights,
)


def test_weights_by_hand() -> None:
    # k = 2, eps = ln 2: e^eps = 2 -> 2/(2+2) = .5 and 1/(2+2) = .25
    w0, w = smoothing_weights(2, math.log(2))
    assert (w0, w) == (pytest.approx(0.5), pytest.approx(0.25))
    # large eps does not overflow: weights tend to (1, 0)
    assert smoothing_weights(3, 800.0) == (pytest.approx(1.0), pytest.approx(0.0))


def test_smoothed_output_by_hand() -> None:
    # eps = ln 3, k = 1: f = 3/4 (.8, .2) + 1/4 (.2, .8) = (.65, .35)
    f = smoothed_output([0.8, 0.2], [[0.2, 0.8]], math.log(3))
    assert f.tolist() == pytest.approx([0.65, 0.35])
    # eps = 0: the plain mean of {x} u S
    assert smoothed_output([0.8, 0.2], [[0.2, 0.8]], 0.0).tolist() == pytest.approx([0.5, 0.5])
    # no perturbations: M(x) itself
    assert smoothed_output(0.3, [], 1.0).tolist() == pytest.approx(0.3)


def test_group_smoothing_by_hand() -> None:
    # member 1 is smoothed with member 0: 3/4 (.2, .8) + 1/4 (.8, .2) = (.35, .65)
    g = smoothed_group([[0.8, 0.2], [0.2, 0.8]], math.log(3))
    assert g.tolist() == [pytest.approx([0.65, 0.35]), pytest.approx([0.35, 0.65])]


def test_certificate_by_hand() -> None:
    c = certificate([0.8, 0.2], [[0.2, 0.8]], math.log(3))
    # smoothed ratio .65/.35 = 1.857 <= 3; raw ratio .8/.2 = 4
    assert c.holds
    assert c.smoothed_max_log_ratio == pytest.approx(math.log(0.65 / 0.35))
    assert c.raw_max_log_ratio == pytest.approx(math.log(4))
    json.dumps(c.to_dict())


def test_certificate_bound_is_tight() -> None:
    # one-hot outputs, eps = ln 2, k = 1: (2/3, 1/3) vs (1/3, 2/3): ratio exactly 2 = e^eps
    c = certificate([1.0, 0.0], [[0.0, 1.0]], math.log(2))
    assert c.holds
    assert c.smoothed_max_log_ratio == pytest.approx(math.log(2))
    assert c.raw_max_log_ratio == math.inf


def test_certificate_rejects_negative_outputs() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        certificate(-0.5, [0.5], 0.1)
    with pytest.raises(ValueError, match="eps"):
        certificate([0.5, 0.5], [[0.5, 0.5]], -1.0)


@settings(max_examples=150, deadline=None)
@given(
    outputs=hnp.arrays(
        np.float64,
        st.tuples(st.integers(2, 8), st.integers(1, 4)),
        elements=st.one_of(st.just(0.0), st.floats(0.0, 1e300)),
    ),
    eps=st.floats(0.0, 1000.0),
)
def test_smoothing_bound_holds_for_any_nonnegative_outputs(outputs: np.ndarray,
                                                           eps: float) -> None:
    # arbitrary non-negative outputs, subnormal values and huge eps included
    c = certificate(outputs[0], outputs[1:], eps)
    assert c.holds, (c.smoothed_max_log_ratio, eps)


@settings(max_examples=100, deadline=None)
@given(
    outputs=hnp.arrays(
        np.float64,
        st.tuples(st.integers(2, 8), st.integers(1, 4)),
        elements=st.one_of(st.just(0.0), st.floats(1e-6, 1e3)),
    ),
    eps=st.floats(0.0, 20.0),
)
def test_smoothed_group_is_eps_k_fair(outputs: np.ndarray, eps: float) -> None:
    # Definition 3.1 on the smoothed outputs: S = the other k members of the group
    smoothed = smoothed_group(outputs, eps)
    assert max_k_at_eps(smoothed[0], smoothed[1:], eps).k == outputs.shape[0] - 1


def test_mitigation_curve_by_hand() -> None:
    # case 1: (.8, .2) vs (.3, .7) is a violation. Smoothed with k = 1, w0 = e/(1+e):
    #   x0 -> label 0 iff .8e + .3 > .2e + .7 iff e > 2/3 (always)
    #   x' -> label 0 iff .3e + .8 > .7e + .2 iff e < 1.5, i.e. eps < ln 1.5 = .405
    # case 2: (.6, .4) vs (.55, .45): no violation before or after.
    cases = [([0.8, 0.2], [[0.3, 0.7]]), ([0.6, 0.4], [[0.55, 0.45]])]
    curve = mitigation_curve(cases, [0.1, 1.0])
    first, second = curve.points
    assert (first.violations_before, first.violations_after, first.fraction) == (1, 0, 0.0)
    assert (second.violations_before, second.violations_after, second.fraction) == (1, 1, 1.0)
    assert curve.n_pairs == 2
    json.dumps(curve.to_dict())


def test_mitigation_curve_single_scores() -> None:
    # .7 vs .4 at threshold .5 is a violation; eps = 0 gives both (.7 + .4)/2 = .55 -> fixed
    curve = mitigation_curve([(0.7, [0.4])], [0.0], threshold=0.5)
    assert curve.points[0].violations_after == 0
    with pytest.raises(ValueError, match="threshold"):
        mitigation_curve([(0.7, [0.4])], [0.0])
    with pytest.raises(ValueError, match="empty"):
        mitigation_curve([], [0.1])


def test_psa_averaging_by_hand() -> None:
    # (.2 + .4 + .9) / 3 = .5 ; with the original .1: (.1 + .2 + .4 + .9) / 4 = .4
    assert average_over_perturbations([0.2, 0.4, 0.9]).tolist() == pytest.approx(0.5)
    assert average_over_perturbations([0.2, 0.4, 0.9], 0.1).tolist() == pytest.approx(0.4)
    assert average_over_perturbations([[0.2, 0.8], [0.6, 0.4]]).tolist() == pytest.approx(
        [0.4, 0.6]
    )
    with pytest.raises(ValueError, match="shape"):
        average_over_perturbations([[0.2, 0.8]], [0.1, 0.2, 0.7])
