"""Certified smoothing (mt-nlp, section 3.2, Theorem 1, Appendix B), the mitigation curve
(Figure 5) and PSA's averaging (psa, section 5), over real adapters."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness import checks as A
from pytest_fairness import context as recording
from pytest_fairness.analysis import mitigation as M
from pytest_fairness.perturb.kinds import KIND_REGISTRY, MT_NLP, get_kind
from pytest_fairness.perturb.mutations import MutationsKind
from pytest_fairness.resources.knowledge import InMemoryGraph
from pytest_fairness.types import TextModel

NAMES = ("Alice", "Bob", "Carol")


def planted(texts: Sequence[str]) -> list[float]:
    """Jumps to 0.9 when Alice is named: a planted name bias."""
    return [0.9 if "Alice" in t else 0.2 for t in texts]


def names_of(text: str) -> list[str]:
    """The perturber: the pronoun He replaced by each name."""
    return [text.replace("He", n, 1) for n in NAMES] if text.startswith("He ") else []


@pytest.fixture(autouse=True)
def _keep_out_of_the_session_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Relations fail here on purpose; keep them out of the session's fairness summary."""
    monkeypatch.setattr(recording, "record", lambda result: None)


@pytest.fixture
def no_mutations() -> Iterator[None]:
    """As if `perturb.mutations` were not there (it loads vectors and a graph: slow):
    "gender" is the gender swap alone and the graph serving other attributes knows none."""
    nothing = MutationsKind(graph=InMemoryGraph([]))
    with KIND_REGISTRY.temporarily("gender", get_kind("gender_swap")), \
            KIND_REGISTRY.temporarily(MT_NLP, nothing):
        yield


# --------------------------------------------------------------------------- smoothing


def test_smoothed_output_follows_theorem_1_by_hand() -> None:
    smoothed = M.smooth(planted, names_of, eps=0.5)
    assert isinstance(smoothed, TextModel)
    # k = 3, M(x) = 0.2, M(S) = 0.9, 0.2, 0.2
    e = math.exp(0.5)
    expected = e / (3 + e) * 0.2 + (0.9 + 0.2 + 0.2) / (3 + e)
    assert smoothed.score(["He is here."])[0] == pytest.approx(expected)
    proba = smoothed.predict_proba(["He is here."])[0]
    assert proba == pytest.approx([1 - expected, expected])
    assert smoothed.predict(["He is here."]) == ["0"]  # 0.35 < 0.5
    assert smoothed.group("He is here.") == (
        "He is here.", "Alice is here.", "Bob is here.", "Carol is here."
    )


def test_a_text_without_perturbations_is_unchanged_and_counted() -> None:
    smoothed = M.smooth(planted, names_of, eps=0.1)
    assert smoothed.score(["Alice is here.", "Nobody is here."]) == pytest.approx([0.9, 0.2])
    assert smoothed.n_unperturbed == 2


def test_k_keeps_the_first_perturbations() -> None:
    smoothed = M.smooth(planted, names_of, eps=0.0, k=1)
    assert smoothed.perturbations("He left.")[0].perturbed == "Alice left."
    assert smoothed.score(["He left."])[0] == pytest.approx((0.2 + 0.9) / 2)  # eps 0: mean


def test_smoothing_goes_through_the_base_model_cache() -> None:
    def fresh(texts: Sequence[str]) -> list[float]:  # its own cache, also in a session
        return planted(texts)

    base = pf.as_model(fresh)
    smoothed = M.smooth(base, names_of, eps=1.0)
    smoothed.predict_proba(["He left.", "He stayed."])
    calls = base.stats.unique_scored
    smoothed.score(["He left."])
    smoothed.certify("He stayed.")
    assert base.stats.unique_scored == calls == 8


def test_certify_returns_the_group_certificate() -> None:
    smoothed = M.smooth(planted, names_of, eps=0.5)
    cert = smoothed.certify("He is here.")
    assert cert.k == 3
    assert cert.holds
    assert cert.smoothed_max_log_ratio <= 0.5
    assert cert.raw_max_log_ratio == pytest.approx(math.log(0.8 / 0.1))  # class 0: 0.8 vs 0.1
    with pytest.raises(pf.ConfigurationError, match="no perturbation"):
        smoothed.certify("Nobody is here.")


def outputs_model(table: dict[str, list[float]]) -> Any:
    def model(texts: Sequence[str]) -> list[list[float]]:
        return [table[t] for t in texts]

    return model


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(
    n_classes=st.integers(2, 4),
    n_perturbations=st.integers(1, 6),
    eps=st.floats(0.0, 5.0),
    data=st.data(),
)
def test_the_certificate_holds_for_any_non_negative_model(
    n_classes: int, n_perturbations: int, eps: float, data: st.DataObject
) -> None:
    texts = ["He x.", *(f"{n} x." for n in ("A", "B", "C", "D", "E", "F")[:n_perturbations])]
    table = {}
    for t in texts:
        raw = data.draw(st.lists(st.floats(0.0, 1.0), min_size=n_classes, max_size=n_classes))
        raw = [v + 1e-3 for v in raw]  # rows of probabilities, some tiny
        table[t] = [v / sum(raw) for v in raw]
    smoothed = M.smooth(outputs_model(table), lambda t: texts[1:] if t == texts[0] else [], eps=eps)
    cert = smoothed.certify(texts[0])
    assert cert.k == n_perturbations
    assert cert.holds
    assert cert.smoothed_max_log_ratio <= eps + 1e-9
    A.assert_eps_k_fair(smoothed, texts[0], eps=eps, k=n_perturbations)


def test_smoothing_mitigates_a_planted_violation() -> None:
    with pytest.raises(pf.FairnessViolation):  # the raw model is far from (0.1, 3)-fair
        A.assert_eps_k_fair(planted, "He is here.", eps=0.1, k=3,
                            perturbations=names_of("He is here."))
    smoothed = M.smooth(planted, names_of, eps=0.1)
    A.assert_eps_k_fair(smoothed, "He is here.", eps=0.1, k=3)
    with pytest.raises(pf.FairnessViolation) as exc:  # asserting less than the smoothing eps
        A.assert_eps_k_fair(smoothed, "He is here.", eps=0.01, k=3)
    lines = str(exc.value).splitlines()
    assert lines[0].startswith("eps_k_fairness failed: the smoothed model must be (0.01, 3)-fair")
    assert any(line.split()[:3] == ["certified", "k", "="] and line.split()[-1] == "ok"
               for line in lines)
    assert "       - [[Alice]] is here." in lines
    assert "       + [[He]] is here." in lines


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"eps": 0.1, "k": 4}, "only 3 perturbation"),
        ({"eps": 0.1, "k": 1, "attribute": "religion"}, "attribute='religion'"),
        ({"eps": 0.1, "k": 1, "perturbations": ["Bob is here."]}, "own perturbations"),
        ({"eps": -1.0, "k": 1}, "eps"),
    ],
)
def test_certified_assertion_rejects_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    smoothed = M.smooth(planted, names_of, eps=0.1)
    with pytest.raises(pf.ConfigurationError, match=message):
        A.assert_eps_k_fair(smoothed, "He is here.", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"eps": -0.1}, "eps"),
        ({"eps": math.inf}, "eps"),
        ({"eps": 0.1, "k": 0}, "k must"),
        ({"eps": 0.1, "k": True}, "k must"),
        ({"eps": 0.1, "perturber": None}, "attribute="),
        ({"eps": 0.1, "perturber": None, "attribute": "no-such-attribute"}, "no-such-attribute"),
    ],
)
@pytest.mark.usefixtures("no_mutations")
def test_smooth_rejects_bad_arguments(kwargs: dict[str, Any], message: str) -> None:
    kwargs.setdefault("perturber", names_of)
    with pytest.raises(pf.ConfigurationError, match=message):
        M.smooth(planted, **kwargs)


def test_a_perturber_returning_the_text_is_an_error() -> None:
    smoothed = M.smooth(planted, lambda t: [t], eps=0.1)
    with pytest.raises(pf.ConfigurationError, match="identical"):
        smoothed.score(["He left."])


@pytest.mark.usefixtures("no_mutations")
def test_smoothing_by_attribute_uses_the_gender_swap() -> None:
    def by_she(texts: Sequence[str]) -> list[float]:
        return [0.9 if t.startswith("She") else 0.1 for t in texts]

    smoothed = M.smooth(by_she, attribute="gender", eps=0.0)
    assert smoothed.group("He left.") == ("He left.", "She left.")
    assert smoothed.score(["He left."]) == pytest.approx([0.5])


# --------------------------------------------------------------------------- curve


def test_the_mitigation_curve_shrinks_with_eps_on_a_planted_example() -> None:
    texts = ["He is here.", "He left.", "He stayed home.", "Nobody came."]
    curve = M.mitigation_curve(planted, texts, names_of, eps_values=[0.1, 0.5, 1.0, 2.0, 5.0])
    assert curve.n_cases == 4
    assert curve.n_pairs == 9
    before = {p.violations_before for p in curve.points}
    assert before == {3}  # Alice flips the label in each of the three groups
    fractions = [p.fraction for p in curve.points]
    assert fractions[0] == 0.0  # small eps pulls every member to the group mean
    assert fractions[-1] == 1.0  # large eps leaves the model as it was
    assert fractions == sorted(fractions)  # monotone on this example


def test_the_mitigation_curve_needs_perturbations() -> None:
    with pytest.raises(pf.ConfigurationError, match="none of the 1 texts"):
        M.mitigation_curve(planted, ["Nobody came."], names_of)
    with pytest.raises(pf.ConfigurationError, match="empty"):
        M.mitigation_curve(planted, [], names_of)
    with pytest.raises(pf.ConfigurationError, match="one string"):
        M.mitigation_curve(planted, "He left.", names_of)


# --------------------------------------------------------------------------- averaging


def test_averaging_over_perturbations_by_hand() -> None:
    averaged = M.average(planted, names_of)
    assert isinstance(averaged, TextModel)
    expected = [(0.9 + 0.2 + 0.2) / 3, 0.2]
    assert averaged.score(["He left.", "Nobody left."]) == pytest.approx(expected)
    with_original = M.average(planted, names_of, include_original=True)
    assert with_original.score(["He left."]) == pytest.approx([(0.2 + 0.9 + 0.2 + 0.2) / 4])
    proba = averaged.predict_proba(["He left."])[0]
    assert proba.sum() == pytest.approx(1.0)


def test_averaging_over_names_at_pronoun_anchors() -> None:
    averaged = M.average(planted, names=["Alice", "Bob"], anchor_kind="pronoun")
    scores = averaged.score(["I met her at the station.", "The plan worked."])
    assert scores == pytest.approx([(0.9 + 0.2) / 2, 0.2])
    assert averaged.perturbations("I met her at the station.")[0].perturbed == (
        "I met Alice at the station."
    )
    with pytest.raises(pf.ConfigurationError, match="not several"):
        M.average(planted, names_of, names=["Alice"])


def test_averaging_makes_names_interchangeable() -> None:
    sentences = ["I met her at the station.", "He said it was fine.", "She wrote it.",
                 "I talked to him."]
    names = ["Alice", "Bob", "Dave"]
    with pytest.raises(pf.FairnessViolation, match="ScoreRange"):
        A.assert_scoresens_below(planted, sentences, names, max_abs=1.0, max_range=0.0)
    averaged = M.average(planted, names=names)  # each name in an input replaced by all
    A.assert_scoresens_below(averaged, sentences, names, max_abs=1.0, max_range=0.0,
                             max_dev=0.0)


def test_wrappers_report_the_base_model() -> None:
    base = pf.as_model(planted, labels=("ok", "toxic"))
    smoothed = M.smooth(base, names_of, eps=0.2)
    assert smoothed.labels == ("ok", "toxic")
    assert smoothed.base is base
    assert smoothed.stats == base.stats
    assert "eps=0.2" in repr(smoothed)
    assert np.asarray(smoothed.predict_proba([])).shape == (0, 2)
