"""Counterfactual fairness CF = ||f(x) - f(x^)||_1 (APS paper, section 6.5)."""

from __future__ import annotations

import json

import pytest

from pytest_fairness.metrics import counterfactual_fairness, counterfactual_gap


def test_l1_by_hand() -> None:
    # (.7, .2, .1) vs (.5, .3, .2): .2 + .1 + .1 = .4 ; identical pair: 0 ; mean .2
    r = counterfactual_fairness([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]],
                                [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    assert r.per_pair.tolist() == pytest.approx([0.4, 0.0])
    assert r.mean == pytest.approx(0.2)
    assert (r.max, r.worst_index, r.n_pairs) == (pytest.approx(0.4), 0, 2)
    json.dumps(r.to_dict())
    assert counterfactual_gap([0.7, 0.2, 0.1], [0.5, 0.3, 0.2]) == pytest.approx(0.4)


def test_scores_by_hand() -> None:
    # |.9 - .6| = .3, |.2 - .5| = .3 -> mean .3
    assert counterfactual_fairness([0.9, 0.2], [0.6, 0.5]).mean == pytest.approx(0.3)


def test_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="aligned"):
        counterfactual_fairness([[0.5, 0.5]], [[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match="empty"):
        counterfactual_fairness([], [])
