"""PSA runs are kept for the session: a second relation over the same inputs reuses them,
and the report's inputs are the perturbations that were scored (never made again)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

import pytest_fairness as pf
from pytest_fairness import checks, context, perturb
from pytest_fairness.checks import psa as psa_module
from pytest_fairness.context import SessionState, TestState
from pytest_fairness.settings import Settings

SENTENCES = [
    "He is a doctor.",
    "I met her at the station.",
    "She said it was fine.",
    "His book is red.",
    "I talked to him yesterday.",
    "Her idea was good.",
]
NAMES = ["Alice", "Bob", "Carol"]


class Planted:
    """Moves by 0.65 when the name Alice is present; counts the texts it is asked for."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: Sequence[str]) -> list[float]:
        self.texts += texts
        return [0.85 if "Alice" in t else 0.2 for t in texts]


@pytest.fixture
def session() -> Iterator[SessionState]:
    """A session of our own, so kept runs stay out of the real run's session."""
    state = SessionState()
    with context.session_scope(state):
        yield state


@contextmanager
def own_test() -> Iterator[TestState]:
    """Record into a test state of our own (inside the test body: the plugin opens its own
    scope around each test call), so these failing relations stay out of the run's report."""
    with context.test_scope(TestState("t", Settings())) as state:
        yield state


@pytest.fixture
def perturbations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the anchors `perturb.names` is asked to perturb."""
    calls: list[int] = []
    real = perturb.names

    def counted(anchors: Sequence[pf.Anchor], names: Sequence[str],
                **options: Any) -> list[pf.Perturbation]:
        calls.append(len(anchors))
        return real(anchors, names, **options)

    monkeypatch.setattr(perturb, "names", counted)
    return calls


def test_labeldist_after_scoresens_perturbs_and_scores_nothing_again(
    session: SessionState, perturbations: list[int]
) -> None:
    with own_test() as test:
        model = Planted()
        corpus = pf.Corpus(SENTENCES)
        with pytest.raises(pf.FairnessViolation):
            checks.assert_scoresens_below(model, corpus, NAMES, max_abs=0.1)
        asked, perturbed = len(model.texts), len(perturbations)
        assert asked == len(SENTENCES) * (len(NAMES) + 1)
        assert perturbed > 0
        with pytest.raises(pf.FairnessViolation, match="LabelDist"):
            checks.assert_labeldist_below(model, corpus, NAMES, max_labeldist=0.1)
        assert len(model.texts) == asked
        assert len(perturbations) == perturbed
        flips = test.results[-1]["violations"]
        assert len(flips) == len(SENTENCES)  # every sentence flips when Alice is named
        assert all("Alice" in v["perturbed"] and v["original_label"] == "0"
                   and v["perturbed_label"] == "1" for v in flips)
        assert test.results[-1]["n_violations"] == len(SENTENCES)


def test_a_different_request_runs_again(
    session: SessionState, perturbations: list[int]
) -> None:
    with own_test():
        model = Planted()
        corpus = pf.Corpus(SENTENCES)
        checks.assert_labeldist_below(model, corpus, ["Bob", "Carol"], max_labeldist=0.0)
        once = len(perturbations)
        checks.assert_labeldist_below(model, corpus, ["Bob", "Carol"], max_labeldist=0.0)
        assert len(perturbations) == once
        # other names, another threshold, another seed: each is a run of its own
        checks.assert_labeldist_below(model, corpus, ["Bob"], max_labeldist=0.0)
        assert len(perturbations) == 2 * once
        checks.assert_labeldist_below(model, corpus, ["Bob"], max_labeldist=0.0, threshold=0.9)
        assert len(perturbations) == 3 * once
        checks.assert_labeldist_below(model, corpus, ["Bob"], max_labeldist=0.0, seed=5)
        assert len(perturbations) == 4 * once
        checks.assert_labeldist_below(Planted(), corpus, ["Bob"], max_labeldist=0.0, seed=5)
        assert len(perturbations) == 5 * once


def test_scoresens_after_labeldist_counts_exceedances_at_its_own_bound(
    session: SessionState,
) -> None:
    with own_test():
        model = Planted()
        with pytest.raises(pf.FairnessViolation):
            checks.assert_labeldist_below(model, SENTENCES, NAMES, max_labeldist=0.1)
        with pytest.raises(pf.FairnessViolation, match=r"6 of 18 move the score by more than 0.1"):
            checks.assert_scoresens_below(model, SENTENCES, NAMES, max_abs=0.1)


def test_one_shot_sources_are_not_kept(
    session: SessionState, perturbations: list[int]
) -> None:
    with own_test():
        model = Planted()
        checks.assert_labeldist_below(model, iter(SENTENCES), ["Bob"], max_labeldist=0.0)
        once = len(perturbations)
        checks.assert_labeldist_below(model, iter(SENTENCES), ["Bob"], max_labeldist=0.0)
        assert len(perturbations) == 2 * once


def test_outside_pytest_nothing_is_kept(perturbations: list[int]) -> None:
    def outside() -> None:
        model = Planted()
        with pytest.raises(pf.FairnessViolation):
            checks.assert_scoresens_below(model, SENTENCES, NAMES, max_abs=0.1)
        with pytest.raises(pf.FairnessViolation):
            checks.assert_labeldist_below(model, SENTENCES, NAMES, max_labeldist=0.1)
        assert len(model.texts) == 2 * len(SENTENCES) * (len(NAMES) + 1)

    import contextvars

    contextvars.Context().run(outside)


def test_reported_inputs_are_the_scored_perturbations(perturbations: list[int]) -> None:
    run = psa_module.psa_run(Planted(), SENTENCES, NAMES, balance_gender=False)
    made = len(perturbations)
    for pair in run.result.worst_pairs:
        p = run.perturbation(pair.index, pair.name)
        assert p.original == pair.key
        assert pair.name in p.perturbed
    assert len(perturbations) == made  # kept, not made again
