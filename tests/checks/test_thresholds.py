"""One threshold resolver: a model's own `as_model(threshold=...)` labels it everywhere.

Before, `as_model(f, output="score", threshold=0.9)` was labelled at 0.9 by label
invariance and at the run's 0.5 by PSA and LabelDist.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

import pytest_fairness as pf
from pytest_fairness import checks, context
from pytest_fairness.context import TestState
from pytest_fairness.models.classifiers import thresholds
from pytest_fairness.settings import Settings

SENTENCES = ["He is a doctor.", "She wrote the report.", "I met her at the station."]


def by_alice(texts: Sequence[str]) -> list[float]:
    """0.8 when Alice is named, else 0.2: a flip at 0.5, none at 0.9."""
    return [0.8 if "Alice" in t else 0.2 for t in texts]


@contextmanager
def run(**settings: float) -> Iterator[TestState]:
    with context.test_scope(TestState("t", Settings(**settings))) as state:  # type: ignore[arg-type]
        yield state


def strict() -> pf.TextModel:
    return pf.as_model(by_alice, output="score", threshold=0.9)


def test_the_models_own_threshold_labels_it_in_every_relation() -> None:
    with run() as state:
        checks.assert_label_invariant(strict(), "He left.", "Alice left.")
        checks.assert_labeldist_below(strict(), SENTENCES, ["Alice", "Bob"], max_labeldist=0.0)
        with pytest.raises(pf.FairnessViolation):  # the score still moves
            checks.assert_scoresens_below(strict(), SENTENCES, ["Alice", "Bob"], max_abs=0.1)
    invariance, labeldist, scoresens = state.results
    assert invariance["extra"]["threshold"] == pytest.approx(0.9)
    assert labeldist["measurements"][0]["name"] == "LabelDist at 0.9"
    assert labeldist["measurements"][0]["value"] == 0.0
    assert any(m["name"] == "LabelDist at 0.9" for m in scoresens["measurements"])
    assert all(v["original_label"] == v["perturbed_label"] == "0"
               for v in scoresens["violations"])
    model = strict()
    assert model.predict(["Alice left.", "He left."]) == ["0", "0"]
    smoothed = pf.smooth(model, lambda t: [t.replace("He", "Alice")], eps=1.0)
    assert smoothed.predict(["He left."]) == ["0"]


def test_without_its_own_threshold_a_model_follows_the_run() -> None:
    plain = pf.as_model(by_alice, output="score")
    with run(threshold=0.9) as state:
        checks.assert_label_invariant(plain, "He left.", "Alice left.")
        checks.assert_labeldist_below(plain, SENTENCES, ["Alice"], max_labeldist=0.0)
        assert plain.predict(["Alice left."]) == ["0"]
    with run(threshold=0.5):
        with pytest.raises(pf.FairnessViolation):
            checks.assert_label_invariant(plain, "He left.", "Alice left.")
        assert plain.predict(["Alice left."]) == ["1"]
    assert [r["passed"] for r in state.results] == [True, True]


def test_an_explicit_threshold_wins_and_is_in_score_space() -> None:
    polar = pf.as_model(lambda ts: [0.6 if "Alice" in t else -0.6 for t in ts],
                        output="score", score_range=(-1.0, 1.0), threshold=0.9)
    polar.score(["x"])
    assert thresholds.decision_threshold(polar) == pytest.approx(0.8)  # 0.9 of [-1, 1]
    assert thresholds.decision_threshold(polar, 0.0) == 0.0
    assert thresholds.score_threshold(polar, run_threshold=0.1) == pytest.approx(0.8)
    with run():
        with pytest.raises(pf.FairnessViolation):
            checks.assert_label_invariant(polar, "He left.", "Alice left.", threshold=0.0)
        checks.assert_label_invariant(polar, "He left.", "Alice left.")
