"""Label invariance, mt-nlp Algorithm 1: argmax M(x) = argmax M(x') for each x' in S."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pytest_fairness.metrics import label_invariance, predicted_labels


def test_probability_vectors_by_hand() -> None:
    # M(x) = (.7, .3) -> label 0
    # x'0 = (.6, .4) -> 0 (keeps); x'1 = (.4, .6) -> 1 (violation); x'2 = (.5, .5) -> tie -> 0
    r = label_invariance([0.7, 0.3], [[0.6, 0.4], [0.4, 0.6], [0.5, 0.5]],
                         labels=["neg", "pos"])
    assert not r.holds
    assert r.n_tested == 3
    assert r.violation_rate == pytest.approx(1 / 3)
    (v,) = r.violations
    assert (v.index, v.original_label, v.perturbed_label) == (1, "neg", "pos")
    # shift of the original label's probability: .4 - .7 = -.3; max |diff| = .3
    assert v.shift == pytest.approx(-0.3)
    assert v.max_abs_shift == pytest.approx(0.3)
    json.dumps(r.to_dict())


def test_single_score_with_threshold() -> None:
    # s(x) = .55 >= .5 -> 1; .45 -> 0 (violation, shift -.1); .5 -> 1 (>= threshold)
    r = label_invariance(0.55, [0.45, 0.5], threshold=0.5)
    assert [v.index for v in r.violations] == [0]
    assert r.violations[0].shift == pytest.approx(-0.1)
    assert r.original_label == 1


def test_invariant_model_holds() -> None:
    r = label_invariance([0.1, 0.2, 0.7], np.tile([0.1, 0.2, 0.7], (5, 1)))
    assert r.holds
    assert r.violations == ()


def test_predicted_labels() -> None:
    assert predicted_labels([[0.2, 0.8], [0.9, 0.1]]).tolist() == [1, 0]
    assert predicted_labels([0.2, 0.5, 0.7], threshold=0.5).tolist() == [0, 1, 1]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((0.5, [0.4]), {}, "threshold"),
        (([0.5, 0.5], [[0.5, 0.5, 0.0]]), {}, "expected"),
        (([0.5, 0.5], [[0.5, 0.5]]), {"threshold": 0.5}, "single-score"),
        (([0.5, 0.5], []), {}, "empty"),
        (([0.5, float("nan")], [[0.5, 0.5]]), {}, "NaN"),
        (([0.5, 0.5], [[0.5, 0.5]]), {"labels": ["a"]}, "labels"),
    ],
)
def test_invalid_arguments(args: tuple[object, ...], kwargs: dict[str, object],
                           message: str) -> None:
    with pytest.raises(ValueError, match=message):
        label_invariance(*args, **kwargs)  # type: ignore[arg-type]
