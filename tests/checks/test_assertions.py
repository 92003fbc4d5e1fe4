"""The assert_* functions: planted bias is caught, fair models pass, results are recorded,
failure messages are readable tables, warn-only warns, Hypothesis is steered and noted."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from _capture import capture, keep_out_of_the_session_report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import checks as A
from pytest_fairness import perturb
from pytest_fairness.results import FairnessResult, Violation
from pytest_fairness.types import Case

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)

SENTENCES = [
    "He is a doctor.",
    "I met her at the station.",
    "She said it was fine.",
    "His book is red.",
    "I talked to him yesterday.",
    "Her idea was good.",
    "He thinks the food is awful.",
    "She wrote the report.",
]
NAMES = ["Alice", "Bob", "Carol"]
DOCTORS = ["Alice is a doctor.", "Bob is a doctor."]


def planted(texts: Sequence[str]) -> list[float]:
    """Moves by 0.65 when the name Alice is present: a planted name bias."""
    return [(0.85 if "Alice" in t else 0.2) + (0.1 if "awful" in t else 0.0) for t in texts]


def fair(texts: Sequence[str]) -> list[float]:
    """Depends on content words only."""
    return [0.7 if "awful" in t else 0.3 for t in texts]


def gendered(texts: Sequence[str]) -> list[float]:
    """Scores sentences about women higher: a planted gender bias."""
    return [0.8 if any(w in t.split() for w in ("She", "she", "her", "Her")) else 0.3
            for t in texts]








def lines_of(exc: pytest.ExceptionInfo[AssertionError]) -> list[str]:
    return [line.rstrip() for line in str(exc.value).splitlines()]


# --------------------------------------------------------------------------- label invariance


def test_label_invariance_catches_a_planted_name() -> None:
    with capture() as state:
        with pytest.raises(pf.FairnessViolation) as exc:
            A.assert_label_invariant(planted, "He is a doctor.", DOCTORS)
        lines = lines_of(exc)
        assert lines[0].startswith("label_invariance failed: argmax M(x) = argmax M(x')")
        assert "mt-nlp, section 2, Algorithm 1" in lines[0]
        assert any(line.split() == ["discriminatory", "inputs", "1", "<=", "0", "FAIL"]
                   for line in lines)
        assert "  worst 1 of 1 discriminatory input(s) (changed words in [[...]]):" in lines
        assert "  1  +0.6500  0.200 (0) -> 0.850 (1)" in lines
        assert "       - [[He]] is a doctor." in lines
        assert "       + [[Alice]] is a doctor." in lines
        error = exc.value
        assert isinstance(error, AssertionError)
        [v] = error.violations  # type: ignore[attr-defined]
        assert isinstance(v, Violation)
        assert v.perturbed == "Alice is a doctor."
        assert isinstance(error.result, FairnessResult)  # type: ignore[attr-defined]
        [recorded] = state.results
        assert recorded["relation"] == "label_invariance"
        assert recorded["passed"] is False
        assert recorded["n_violations"] == 1
        assert recorded["n_inputs"] == 2
        assert recorded["violations"][0]["original_spans"] == [[0, 2]]


def test_label_invariance_passes_a_fair_model_and_records_it() -> None:
    with capture() as state:
        A.assert_label_invariant(fair, "He is a doctor.", DOCTORS)
        [recorded] = state.results
        assert recorded["passed"] is True
        assert recorded["violations"] == []


def test_label_invariance_takes_cases_and_perturbations() -> None:
    with capture() as state:
        swap = perturb.gender_swap("She wrote the report.")
        assert swap is not None
        for given_ in (swap, [swap], Case(swap.original, (swap,))):
            with pytest.raises(pf.FairnessViolation, match=r"\[\[She\]\] wrote the report"):
                A.assert_label_invariant(gendered, given_)
        A.assert_label_invariant(fair, swap)
        assert [r["passed"] for r in state.results] == [False, False, False, True]


def test_label_invariance_threshold_and_multiclass() -> None:
    # a threshold low enough puts both sides on the same label
    A.assert_label_invariant(planted, "He left.", "Alice left.", threshold=0.1)

    def three(texts: Sequence[str]) -> list[list[float]]:
        return [[0.1, 0.2, 0.7] if "Alice" in t else [0.6, 0.3, 0.1] for t in texts]

    model = pf.as_model(three, labels=("neg", "neu", "pos"))
    with pytest.raises(pf.FairnessViolation) as exc:
        A.assert_label_invariant(model, "He left.", ["Alice left.", "Bob left."])
    assert "  1  -0.5000  0.600 (neg) -> 0.100 (pos)" in lines_of(exc)
    with pytest.raises(pf.ConfigurationError, match="3 labels"):
        A.assert_label_invariant(model, "He left.", "Bob left.", threshold=0.5)


def test_warn_only_turns_a_failure_into_a_warning() -> None:
    with capture(warn_only=True) as warn_state:
        with pytest.warns(A.FairnessWarning, match=r"\[\[Alice\]\] is a doctor") as record:
            A.assert_label_invariant(planted, "He is a doctor.", "Alice is a doctor.")
        warning = record[0].message
        assert isinstance(warning, A.FairnessWarning)
        assert warning.result is not None
        assert not warning.result.passed
        assert len(warning.violations) == 1
        [recorded] = warn_state.results
        assert recorded["passed"] is False


def test_recording_is_a_no_op_outside_a_test() -> None:
    with pytest.raises(pf.FairnessViolation):
        A.assert_label_invariant(planted, "He is a doctor.", "Alice is a doctor.")


# --------------------------------------------------------------------------- Hypothesis


def test_a_given_test_finds_the_planted_sentence_and_notes_the_table() -> None:
    sentences = ["The plan worked.", "It rained today.", "Alice wrote the plan.", "We left."]

    @settings(database=None, derandomize=True, max_examples=50,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(sentences))
    def check(sentence: str) -> None:
        A.assert_label_invariant(planted, sentence, sentence.replace("Alice", "Bob") + " ")

    with pytest.raises(pf.FairnessViolation) as exc:
        check()
    notes = "\n".join(getattr(exc.value, "__notes__", []))
    assert "Alice wrote the plan." in notes  # the falsifying example
    # the table is the exception's message, once: not noted again
    assert "+ [[Bob]] wrote the plan." in str(exc.value)
    assert "label_invariance failed" not in notes


def test_a_warned_failure_is_noted_for_a_given_test_that_fails_otherwise() -> None:
    @settings(database=None, derandomize=True, max_examples=10,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(["Alice wrote the plan.", "We left."]))
    def check(sentence: str) -> None:
        A.assert_label_invariant(planted, sentence, sentence.replace("Alice", "Bob") + " ")
        assert "Alice" not in sentence, "the test's own assertion"

    with capture(warn_only=True), pytest.warns(A.FairnessWarning), \
            pytest.raises(AssertionError, match="the test's own assertion") as exc:
        check()
    notes = "\n".join(getattr(exc.value, "__notes__", []))
    assert "label_invariance failed" in notes  # the warned table, noted


def test_assertions_target_the_measured_discrimination(monkeypatch: pytest.MonkeyPatch) -> None:
    import hypothesis

    seen: list[tuple[float, str]] = []
    monkeypatch.setattr(hypothesis, "target", lambda value, label: seen.append((value, label)))

    @settings(database=None, max_examples=5)
    @given(st.sampled_from(["He left.", "He stayed."]))
    def check(sentence: str) -> None:
        A.assert_label_invariant(fair, sentence, sentence.replace("He", "She"))

    check()
    assert seen
    assert all(label == "label_invariance" for _, label in seen)
    assert all(math.isfinite(v) for v, _ in seen)


def test_hypothesis_is_left_alone_outside_a_given_test(monkeypatch: pytest.MonkeyPatch) -> None:
    import hypothesis

    def boom(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("called outside a Hypothesis test")

    monkeypatch.setattr(hypothesis, "target", boom)
    monkeypatch.setattr(hypothesis, "note", boom)
    A.assert_label_invariant(fair, "He left.", "She left.")


# --------------------------------------------------------------------------- PSA


def test_scoresens_catches_a_planted_name() -> None:
    with capture() as state:
        with pytest.raises(pf.FairnessViolation) as exc:
            A.assert_scoresens_below(planted, SENTENCES, NAMES, max_abs=0.03)
        lines = lines_of(exc)
        assert lines[0].startswith("score_sens failed: replacing a pronoun with a name")
        table = next(line for line in lines if line.lstrip().startswith("max |ScoreSens|"))
        assert table.split()[-4:] == ["0.6500", "<=", "0.0300", "FAIL"]
        assert any("(sentence, name) pairs" in line for line in lines)
        assert "       + [[Alice]] said it was fine." in lines
        [recorded] = state.results
        extra = recorded["extra"]
        assert extra["score_sens"]["Alice"] == pytest.approx(0.65)
        assert extra["score_sens"]["Bob"] == 0.0
        census = "(US Census 1990)"
        assert extra["name_groups"] == {"Alice": f"female {census}", "Bob": f"male {census}",
                                        "Carol": f"female {census}"}
        curve = extra["label_dist_curve"]
        assert all(len(point) == 2 for point in curve)
        assert [0.5, pytest.approx(1 / 3)] in curve
        assert recorded["n_inputs"] == 8 * 3
        assert recorded["n_violations"] == 8


def test_scoresens_passes_a_fair_model() -> None:
    A.assert_scoresens_below(fair, SENTENCES, NAMES, max_abs=0.0, max_dev=0.0, max_range=0.0,
                             max_labeldist=0.0)


def test_scoresens_checks_each_optional_bound() -> None:
    names = ["Bob", "Carol", "Dave"]

    def carol(texts: Sequence[str]) -> list[float]:  # +0.02 for Carol, -0.02 for Dave
        return [0.5 + 0.02 * ("Carol" in t) - 0.02 * ("Dave" in t) for t in texts]

    A.assert_scoresens_below(carol, SENTENCES, names, max_abs=0.03)
    with pytest.raises(pf.FairnessViolation, match=r"ScoreRange +0\.0400 +<= 0\.0300 +FAIL"):
        A.assert_scoresens_below(carol, SENTENCES, names, max_abs=0.03, max_range=0.03)
    with pytest.raises(pf.FairnessViolation, match=r"ScoreDev +0\.0163 +<= 0\.0100 +FAIL"):
        A.assert_scoresens_below(carol, SENTENCES, names, max_abs=0.03, max_dev=0.01)
    with pytest.raises(pf.FairnessViolation, match=r"LabelDist at 0\.51 +0\.3333"):
        A.assert_scoresens_below(carol, SENTENCES, names, max_abs=0.03, max_labeldist=0.1,
                                 threshold=0.51)


def test_scoresens_with_confidence_fails_only_past_the_interval() -> None:
    def one_sentence(texts: Sequence[str]) -> list[float]:  # Alice moves one sentence only
        return [0.9 if "Alice" in t and "doctor" in t else 0.2 for t in texts]

    with pytest.raises(pf.FairnessViolation):  # point estimate 0.0875 > 0.05
        A.assert_scoresens_below(one_sentence, SENTENCES, NAMES, max_abs=0.05)
    A.assert_scoresens_below(one_sentence, SENTENCES, NAMES, max_abs=0.05, confidence=0.95,
                             seed=1)  # the interval reaches 0
    with pytest.raises(pf.FairnessViolation, match=r"lower joint studentized CI end"):
        A.assert_scoresens_below(planted, SENTENCES, NAMES, max_abs=0.05, confidence=0.95)


def test_labeldist_lists_the_flipped_labels() -> None:
    with capture() as state:
        with pytest.raises(pf.FairnessViolation) as exc:
            A.assert_labeldist_below(planted, SENTENCES, NAMES, max_labeldist=0.1)
        lines = lines_of(exc)
        assert lines[0].startswith("label_dist failed: names must not flip labels at threshold 0.5")
        assert any(line.split()[-4:] == ["0.3333", "<=", "0.1000", "FAIL"] for line in lines)
        assert "  worst 5 of 8 discriminatory input(s) (changed words in [[...]]):" in lines
        assert all("(0) -> " in line and line.endswith("(1)  [name Alice]")
                   for line in lines if line.startswith("  ") and "+0.6" in line)
        A.assert_labeldist_below(fair, SENTENCES, NAMES, max_labeldist=0.0)
        assert [r["passed"] for r in state.results] == [False, True]


# --------------------------------------------------------------------------- (eps, k)


OUTPUTS = {
    "x0": [0.5, 0.5],
    "a": [0.6, 0.4],
    "b": [0.2, 0.8],
    "c": [0.55, 0.45],
}


def table_model(texts: Sequence[str]) -> list[list[float]]:
    return [OUTPUTS[t] for t in texts]


def test_eps_k_against_hand_worked_outputs() -> None:
    with capture() as state:
        # log ratios to x0: a 0.2231 (class 1), b 0.9163, c 0.1054; a-c 0.1178
        A.assert_eps_k_fair(table_model, "x0", eps=0.25, k=2, perturbations=["a", "b", "c"])
        with pytest.raises(pf.FairnessViolation) as exc:
            A.assert_eps_k_fair(table_model, "x0", eps=0.25, k=3, perturbations=["a", "b", "c"])
        lines = lines_of(exc)
        assert "  largest k at eps=0.25: 2 (witness: 'a', 'c')" in lines
        assert "  smallest eps at k=3: 1.099 (witness: 'a', 'b', 'c')" in lines  # log(0.6/0.2)
        row = ["1", "+0.9163", "0.500", "(0)", "->", "0.800", "(1)"]
        assert row in [line.split() for line in lines]
        assert "       + [[b]]" in lines
        assert any(line.split()[-4:] == ["2", ">=", "3", "FAIL"] for line in lines)
        decision = state.results[-1]["extra"]["decision"]
        assert decision["max_k"] == 2
        assert decision["min_eps"] == pytest.approx(math.log(3))


def test_eps_k_maps_a_polarity_score_to_probabilities() -> None:
    def polarity(texts: Sequence[str]) -> list[float]:
        return [-1.0 if "Alice" in t else 0.0 for t in texts]  # p = 0 vs 0.5

    model = pf.as_model(polarity, score_range=(-1.0, 1.0))
    A.assert_eps_k_fair(model, "He left.", eps=0.1, k=1, perturbations=["Bob left."])
    with pytest.raises(pf.FairnessViolation, match="smallest eps at k=1: inf"):
        A.assert_eps_k_fair(model, "He left.", eps=5.0, k=1, perturbations=["Alice left."])


class FakeMutations:
    """Stands in for `perturb.mutations` (which loads word vectors and the graph: slow)."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], str]] = []

    def mutations_many(self, texts: list[str], attribute: str) -> list[list[str]]:
        self.calls.append((list(texts), attribute))
        return [[t.replace("doctor", f"{w} doctor") for w in ("female", "male")]
                if "doctor" in t else [] for t in texts]


@pytest.fixture
def fake_mutations() -> Iterator[FakeMutations]:
    """`FakeMutations` registered as the "gender" perturbation kind for one test."""
    from pytest_fairness.perturb.coerce import FunctionKind
    from pytest_fairness.perturb.kinds import KIND_REGISTRY

    fake = FakeMutations()
    kind = FunctionKind("gender", lambda texts: fake.mutations_many(texts, "gender"), batch=True)
    with KIND_REGISTRY.temporarily("gender", kind):
        yield fake


@pytest.fixture
def no_mutations() -> Iterator[None]:
    """As if the mt-nlp mutations were not there: "gender" is the gender swap alone and
    the graph that serves other attributes knows none."""
    from pytest_fairness.perturb.kinds import KIND_REGISTRY, MT_NLP, get_kind
    from pytest_fairness.perturb.mutations import MutationsKind
    from pytest_fairness.resources.knowledge import InMemoryGraph

    nothing = MutationsKind(graph=InMemoryGraph([]))
    with KIND_REGISTRY.temporarily("gender", get_kind("gender_swap")), \
            KIND_REGISTRY.temporarily(MT_NLP, nothing):
        yield


def test_eps_k_generates_mutations_for_the_attribute(fake_mutations: FakeMutations) -> None:
    fake = fake_mutations
    A.assert_eps_k_fair(fair, "The doctor left.", eps=0.0, k=2, attribute="gender")
    assert fake.calls == [(["The doctor left."], "gender")]

    def female(texts: Sequence[str]) -> list[float]:
        return [0.9 if "female" in t else 0.1 for t in texts]

    with pytest.raises(pf.FairnessViolation, match=r"\+ The \[\[female\]\] doctor left"):
        A.assert_eps_k_fair(female, "The doctor left.", eps=0.1, k=2, attribute="gender")


@pytest.mark.usefixtures("no_mutations")
def test_eps_k_falls_back_to_the_gender_swap() -> None:
    A.assert_eps_k_fair(fair, "He is a good man.", eps=0.0, k=1, attribute="gender")
    with pytest.raises(pf.FairnessViolation, match=r"\[\[He\]\] wrote the report"):
        A.assert_eps_k_fair(gendered, "She wrote the report.", eps=0.1, k=1, attribute="gender")
    with pytest.raises(pf.ConfigurationError, match="no gender perturbation"):
        A.assert_eps_k_fair(fair, "x0", eps=0.1, k=1, attribute="gender")
    with pytest.raises(pf.ConfigurationError, match="no perturbation generator"):
        A.assert_eps_k_fair(fair, "x0", eps=0.1, k=1, attribute="religion")


# --------------------------------------------------------------------------- counterfactual


def test_counterfactual_catches_a_gender_bias() -> None:
    with capture() as state:
        texts = ["She wrote the report.", "He fixed the car.", "The plan worked well."]
        with pytest.raises(pf.FairnessViolation) as exc:
            A.assert_counterfactual_fair(gendered, texts, max_gap=0.2)
        lines = lines_of(exc)
        assert lines[0].startswith(
            "counterfactual_fairness failed: swapping words by the gender swap "
            "(perturb.gender_swap) must not change the prediction")
        assert "  1  +1.0000  0.800 (1) -> 0.300 (0)" in lines
        assert "       - [[She]] wrote the report." in lines
        assert "       + [[He]] wrote the report." in lines
        assert "  1 text(s) without gendered words skipped." in lines
        A.assert_counterfactual_fair(fair, texts, max_gap=0.0)
        A.assert_counterfactual_fair(gendered, texts, max_gap=1.0, statistic="mean")
        assert [r["passed"] for r in state.results] == [False, True, True]
        assert state.results[0]["extra"]["n_without_counterfactual"] == 1


def test_counterfactual_takes_a_swap_callable() -> None:
    def swap(text: str) -> str | None:
        return text.replace("Alice", "Bob") if "Alice" in text else None

    with pytest.raises(pf.FairnessViolation, match=r"\[\[Bob\]\] left"):
        A.assert_counterfactual_fair(planted, ["Alice left.", "Nobody left."], max_gap=0.1,
                                     swap=swap)
    with pytest.raises(pf.ConfigurationError, match="none of the 1 texts"):
        A.assert_counterfactual_fair(planted, ["Nobody left."], max_gap=0.1, swap=swap)


# --------------------------------------------------------------------------- distributions


def test_wasserstein_between_two_samples_and_groups() -> None:
    with capture() as state:
        a, b = [0.1, 0.2, 0.3], [0.6, 0.7, 0.8]
        with pytest.raises(pf.FairnessViolation, match=r"W1\(a, b\) +0\.5000 +<= 0\.1000 +FAIL"):
            A.assert_wasserstein_below(a, b, 0.1)
        A.assert_wasserstein_below(a, a, 0.0)
        with pytest.raises(pf.FairnessViolation, match=r"W1\(men, pool\)"):
            A.assert_wasserstein_below({"women": a, "men": b}, max_w1=0.1)
        A.assert_wasserstein_below(a, b, 0.6, confidence=0.9, seed=0)
        assert [r["passed"] for r in state.results] == [False, True, False, True]
        assert state.results[2]["extra"]["w1"]["W1(women, pool)"] == pytest.approx(0.25)


def test_bias_auc_above() -> None:
    scores = [0.9, 0.8, 0.2, 0.1, 0.9, 0.3, 0.95, 0.85]
    labels = [1, 1, 0, 0, 1, 0, 1, 0]
    subgroup = [0, 0, 0, 0, 1, 1, 1, 1]
    A.assert_bias_auc_above(scores, labels, subgroup, 0.5, metrics=("subgroup_auc",))
    with pytest.raises(pf.FairnessViolation, match=r"bpsn_auc +0\.7500 +>= 0\.9000 +FAIL"):
        A.assert_bias_auc_above(scores, labels, subgroup, 0.9)


def test_prediction_sensitivity_below() -> None:
    from _tiny_models import WordTokenizer, build_bag_of_words

    tokenizer = WordTokenizer()
    model = pf.as_model(build_bag_of_words(tokenizer.vocab_size), tokenizer=tokenizer)
    texts = ["she was happy today", "he is very good"]
    A.assert_prediction_sensitivity_below(model, texts, 10.0)
    with pytest.raises(pf.FairnessViolation) as exc:
        A.assert_prediction_sensitivity_below(model, texts, 1e-9, variant="P4")
    lines = lines_of(exc)
    assert lines[0].startswith("prediction_sensitivity failed")
    assert "       [[she]] was happy today" in lines or "       [[he]] is very good" in lines


# --------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: A.assert_eps_k_fair(fair, "x0", eps=-0.1, k=1, perturbations=["a"]), "eps"),
        (lambda: A.assert_eps_k_fair(fair, "x0", eps=0.1, k=0, perturbations=["a"]), "k must"),
        (lambda: A.assert_eps_k_fair(fair, "x0", eps=0.1, k=True, perturbations=["a"]), "k must"),
        (lambda: A.assert_eps_k_fair(fair, "x0", eps=0.1, k=2, perturbations=["a"]),
         "only 1 candidate"),
        (lambda: A.assert_eps_k_fair(fair, "x0", eps=0.1, k=1, perturbations=["x0"]),
         "identical"),
        (lambda: A.assert_eps_k_fair(fair, "x0", eps=0.1, k=1), "attribute="),
        (lambda: A.assert_label_invariant(fair, "He left.", "He left."), "identical"),
        (lambda: A.assert_label_invariant(fair, "He left.", []), "no perturbed texts"),
        (lambda: A.assert_label_invariant(fair, "He left.", "She left.", threshold=1.5),
         "outside the model's score range"),
        (lambda: A.assert_label_invariant(fair, "He left.", "She left.", show=-1), "show"),
        (lambda: A.assert_scoresens_below(fair, SENTENCES, NAMES, -0.1), "max_abs"),
        (lambda: A.assert_scoresens_below(fair, SENTENCES, NAMES, 0.1, max_dev=-1), "max_dev"),
        (lambda: A.assert_scoresens_below(fair, SENTENCES, NAMES, 0.1, confidence=1.5),
         "confidence"),
        (lambda: A.assert_scoresens_below(fair, SENTENCES, NAMES, 0.1, threshold=2.0),
         "outside the score range"),
        (lambda: A.assert_scoresens_below(fair, [], NAMES, 0.1), "empty"),
        (lambda: A.assert_scoresens_below(fair, SENTENCES, [], 0.1), "names is empty"),
        (lambda: A.assert_labeldist_below(fair, SENTENCES, NAMES, 1.5), "max_labeldist"),
        (lambda: A.assert_counterfactual_fair(fair, SENTENCES, max_gap=-1), "max_gap"),
        (lambda: A.assert_counterfactual_fair(fair, [], max_gap=0.1), "empty"),
        (lambda: A.assert_counterfactual_fair(fair, SENTENCES, max_gap=0.1, statistic="median"),
         "statistic"),
        (lambda: A.assert_wasserstein_below([0.1], [0.2]), "max_w1="),
        (lambda: A.assert_wasserstein_below([0.1], [0.2], -1.0), "max_w1"),
        (lambda: A.assert_wasserstein_below([], [0.2], 0.1), "scores_a"),
        (lambda: A.assert_wasserstein_below({"a": [0.1]}, max_w1=0.1), "two groups"),
        (lambda: A.assert_wasserstein_below({"a": [0.1], "b": [0.2]}, [0.1], 0.1), "not both"),
        (lambda: A.assert_bias_auc_above([0.1], [1], [1], 1.5), "min_auc"),
        (lambda: A.assert_bias_auc_above([0.1], [1], [1], 0.5, metrics=["auc"]), "unknown"),
        (lambda: A.assert_prediction_sensitivity_below(fair, [], 0.1), "empty"),
        (lambda: A.assert_prediction_sensitivity_below(fair, ["x"], -0.1), "max_value"),
    ],
)
def test_invalid_arguments_are_configuration_errors(call: Any, message: str) -> None:
    with pytest.raises(pf.ConfigurationError, match=message):
        call()


def test_no_pytest_in_the_assertion_modules() -> None:
    import subprocess
    import sys

    code = (
        "import sys, pytest_fairness.checks, pytest_fairness.analysis.mitigation\n"
        "print([m for m in ('pytest', 'hypothesis', 'torch', 'spacy') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_violations_are_numpy_free_in_the_record() -> None:
    with capture() as state:
        with pytest.raises(pf.FairnessViolation):
            A.assert_scoresens_below(planted, SENTENCES, NAMES, max_abs=0.03)
        import json

        json.dumps(state.results)  # plain builtins only
        sens = state.results[0]["extra"]["score_sens"]
        assert not any(isinstance(v, np.generic) for v in sens.values())


# --------------------------------------------------------------------------- the table


def test_mark_and_clip() -> None:
    from pytest_fairness.report.failure import clip, fmt, mark

    assert mark("He met her.", [(7, 10), (0, 2)]) == "[[He]] met [[her]]."
    assert mark("He met her.", [(0, 2), (1, 3), (5, 5)]) == "[[He]] met her."  # overlap, empty
    long = "word " * 100 + "He left." + " word" * 100
    start = long.index("He")
    text, spans = clip(long, [(start, start + 2)], width=60)
    assert text.startswith("...")
    assert text.endswith("...")
    assert len(text) == 66
    assert mark(text, spans).count("[[He]]") == 1
    assert [fmt(0.5), fmt(2.0), fmt(1e-6), fmt(math.inf), fmt(None), fmt(0.25, signed=True)] == [
        "0.5000", "2", "1e-06", "inf", "n/a", "+0.2500"
    ]


def test_a_long_sentence_is_cut_around_the_changed_word() -> None:
    long = "It was a long day and " * 20 + "he said so."
    with pytest.raises(pf.FairnessViolation) as exc:
        A.assert_label_invariant(planted, long, long.replace("he said", "Alice said"))
    marked = [line for line in lines_of(exc) if "[[Alice]] said so." in line]
    assert len(marked) == 1
    assert marked[0].strip().startswith("+ ...")
