"""(eps, k)-fairness (mt-nlp Definition 3.1): hand-worked cases and brute force."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_fairness.metrics import (
    eps_k_fair,
    max_k_at_eps,
    max_log_ratio,
    min_eps_at_k,
    pairwise_log_ratio,
)
from pytest_fairness.metrics.epsk import farther_than

X0 = [0.5, 0.5]
# c0 = (.6, .4), c1 = (.4, .6), c2 = (.5, .5), c3 = (.9, .1)
CANDIDATES = [[0.6, 0.4], [0.4, 0.6], [0.5, 0.5], [0.9, 0.1]]
# pairwise max_c |log ratio|:
#   x0-c0 = x0-c1 = max(ln 1.2, ln 1.25) = ln 1.25 = 0.22314; x0-c2 = 0
#   x0-c3 = max(ln 1.8, ln 5) = ln 5 = 1.60944; c0-c1 = ln 1.5 = 0.40547
#   c1-c3 = max(ln 2.25, ln 6) = ln 6 = 1.79176 (the largest of all pairs)


def test_pairwise_log_ratio_by_hand() -> None:
    assert pairwise_log_ratio(X0, CANDIDATES[0]) == pytest.approx(math.log(1.25))
    assert pairwise_log_ratio(CANDIDATES[0], CANDIDATES[1]) == pytest.approx(math.log(1.5))
    assert pairwise_log_ratio(CANDIDATES[1], CANDIDATES[3]) == pytest.approx(math.log(6))
    # zero in both: no constraint; zero in one only: never compatible
    assert pairwise_log_ratio([1.0, 0.0], [0.9, 0.0]) == pytest.approx(math.log(1 / 0.9))
    assert pairwise_log_ratio([1.0, 0.0], [0.9, 0.1]) == math.inf
    assert max_log_ratio([X0, *CANDIDATES]) == pytest.approx(math.log(6))


def test_max_k_by_hand() -> None:
    # eps = .3: c0, c1, c2 are within eps of x0 but c0-c1 = .405 > .3 -> best {c0|c1, c2}
    r = max_k_at_eps(X0, CANDIDATES, 0.3)
    assert r.k == 2
    assert 2 in r.witness
    assert r.achieved_eps == pytest.approx(math.log(1.25))
    # eps = .41 >= ln 1.5: {c0, c1, c2}
    assert max_k_at_eps(X0, CANDIDATES, 0.41).witness == (0, 1, 2)
    # eps = 0: only c2 equals x0
    assert max_k_at_eps(X0, CANDIDATES, 0.0).witness == (2,)
    # eps = 2 > ln 6: everything
    assert max_k_at_eps(X0, CANDIDATES, 2.0).k == 4


def test_min_eps_by_hand() -> None:
    assert min_eps_at_k(X0, CANDIDATES, 1).eps == 0.0
    assert min_eps_at_k(X0, CANDIDATES, 2).eps == pytest.approx(math.log(1.25))
    r3 = min_eps_at_k(X0, CANDIDATES, 3)
    assert r3.eps == pytest.approx(math.log(1.5))
    assert r3.witness == (0, 1, 2)
    assert min_eps_at_k(X0, CANDIDATES, 4).eps == pytest.approx(math.log(6))
    r5 = min_eps_at_k(X0, CANDIDATES, 5)
    assert r5.eps == math.inf
    assert r5.witness == ()
    json.dumps(r5.to_dict())


def test_farther_than_by_hand() -> None:
    # from x0: c0 = c1 = ln 1.25 = .223, c2 = 0, c3 = ln 5 = 1.609; farthest first, ties in
    # candidate order
    found = farther_than(X0, CANDIDATES, 0.2)
    assert [i for i, _ in found] == [3, 0, 1]
    assert [r for _, r in found] == pytest.approx([math.log(5), math.log(1.25),
                                                   math.log(1.25)])
    assert farther_than(X0, CANDIDATES, math.log(5)) == []
    assert farther_than(X0, CANDIDATES, 0.0, tol=0.0) == farther_than(X0, CANDIDATES, 0.0)
    with pytest.raises(ValueError, match="eps"):
        farther_than(X0, CANDIDATES, float("nan"))


def test_decision_reports_both_directions() -> None:
    d = eps_k_fair(X0, CANDIDATES, 0.3, 3)
    assert not d.fair
    assert d.witness == ()
    assert d.max_k == 2
    assert d.min_eps == pytest.approx(math.log(1.5))
    ok = eps_k_fair(X0, CANDIDATES, 0.3, 2)
    assert ok.fair
    assert len(ok.witness) == 2
    json.dumps(ok.to_dict())


def test_single_score_sliding_window() -> None:
    # logs relative to x0 = .5: .45 -> -0.10536, .5 -> 0, .55 -> +0.09531, .7 -> +0.33647
    scores = [0.55, 0.45, 0.7, 0.5]
    # eps = ln 1.2 = .18232: {.45, .5} or {.5, .55}; {.45, .55} spans ln(.55/.45) = .20067
    assert max_k_at_eps(0.5, scores, math.log(1.2)).k == 2
    assert max_k_at_eps(0.5, scores, 0.25).witness == (0, 1, 3)
    assert min_eps_at_k(0.5, scores, 3).eps == pytest.approx(math.log(0.55 / 0.45))


def test_zero_outputs() -> None:
    # x0 = (1, 0): only candidates with a 0 in the second class can ever qualify
    cands = [[0.9, 0.0], [0.9, 0.1], [0.8, 0.0]]
    r = max_k_at_eps([1.0, 0.0], cands, math.log(1.25))
    # (.9, 0): ln(1/.9) = .105; (.8, 0): ln(1/.8) = .223 <= ln 1.25; .9 vs .8: ln 1.125
    assert r.witness == (0, 2)
    assert min_eps_at_k([1.0, 0.0], cands, 3).eps == math.inf
    assert max_k_at_eps([0.0, 0.0], [[0.0, 0.0], [0.1, 0.0]], 0.0).witness == (0,)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: max_k_at_eps(X0, CANDIDATES, -0.1), "eps"),
        (lambda: eps_k_fair(X0, CANDIDATES, 0.1, 0), "k must be >= 1"),
        (lambda: max_k_at_eps(X0, [[0.5, 0.5, 0.0]], 0.1), "expected"),
        (lambda: max_k_at_eps([0.5, -0.5], CANDIDATES, 0.1), "negative"),
        (lambda: max_k_at_eps([0.5, float("nan")], CANDIDATES, 0.1), "NaN"),
        (lambda: max_k_at_eps(X0, [], 0.1), "empty"),
        (lambda: max_k_at_eps(X0, CANDIDATES, float("nan")), "eps"),
    ],
)
def test_invalid_arguments(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


# --- brute force over all subsets -----------------------------------------------------


def _set_eps(points: np.ndarray) -> float:
    """Smallest eps with p_i <= e^eps p_j for all i, j, by direct pairwise comparison."""
    worst = 0.0
    for p, q in itertools.permutations(points, 2):
        for a, b in zip(p, q, strict=True):
            if a == 0 and b == 0:
                continue
            if b == 0:
                return math.inf
            if a > 0:
                worst = max(worst, math.log(a) - math.log(b))
    return worst


PROB = st.one_of(st.just(0.0), st.floats(0.01, 1.0))


@st.composite
def instances(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    k = draw(st.integers(1, 3))
    m = draw(st.integers(1, 7))
    x0 = np.array(draw(st.lists(PROB, min_size=k, max_size=k)))
    cands = np.array(draw(st.lists(st.lists(PROB, min_size=k, max_size=k), min_size=m,
                                   max_size=m)))
    return x0, cands


@settings(max_examples=150, deadline=None)
@given(inst=instances(), eps=st.floats(0.0, 3.0))
def test_max_k_agrees_with_brute_force(inst: tuple[np.ndarray, np.ndarray], eps: float) -> None:
    x0, cands = inst
    best = 0
    for r in range(len(cands), 0, -1):
        if any(_set_eps(np.vstack([x0[None], cands[list(s)]])) <= eps
               for s in itertools.combinations(range(len(cands)), r)):
            best = r
            break
    got = max_k_at_eps(x0, cands, eps, tol=0.0)
    assert got.k == best
    if got.k:
        assert _set_eps(np.vstack([x0[None], cands[list(got.witness)]])) <= eps


@settings(max_examples=150, deadline=None)
@given(inst=instances(), data=st.data())
def test_min_eps_agrees_with_brute_force(
    inst: tuple[np.ndarray, np.ndarray], data: st.DataObject
) -> None:
    x0, cands = inst
    k = data.draw(st.integers(1, len(cands)))
    expected = min(
        _set_eps(np.vstack([x0[None], cands[list(s)]]))
        for s in itertools.combinations(range(len(cands)), k)
    )
    got = min_eps_at_k(x0, cands, k)
    if math.isinf(expected):
        assert math.isinf(got.eps)
    else:
        assert got.eps == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert len(got.witness) == k
        # the decision at exactly that eps succeeds, and the reported eps is attained
        assert eps_k_fair(x0, cands, got.eps, k).fair


def test_few_hundred_candidates_are_fast() -> None:
    rng = np.random.default_rng(0)
    for classes in (2, 3, 6):
        outputs = rng.dirichlet(np.full(classes, 5.0), size=301)
        d = eps_k_fair(outputs[0], outputs[1:], 0.3, 25)
        assert d.max_k >= 1
        assert (d.max_k >= 25) == d.fair
