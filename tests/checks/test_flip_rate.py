"""The flip-rate relation, built on the relation pipeline (`checks.pipeline`): its pure
metric against hand-worked values and scipy, a Hypothesis property, and the relation's
verdict, chart, nothing-judged case and argument errors."""

from __future__ import annotations

import math

import pytest
from _capture import capture, keep_out_of_the_session_report
from hypothesis import given
from hypothesis import strategies as st

import pytest_fairness as pf
from pytest_fairness.metrics.flip_rate import flip_rate
from pytest_fairness.types import Perturbation

pytestmark = pytest.mark.usefixtures(keep_out_of_the_session_report.__name__)


def pair(original: str, perturbed: str, kind: str) -> Perturbation:
    return Perturbation(original, perturbed, (), (), kind=kind, attribute="gender")


# 6 pairs: the "name" ones flip 2 of 3 (Alice moves the score past 0.5), the "swap" ones 0.
PAIRS = [
    pair("He is a doctor.", "Alice is a doctor.", "name"),
    pair("He left.", "Alice left.", "name"),
    pair("He sang.", "Bob sang.", "name"),
    pair("He is here.", "She is here.", "swap"),
    pair("His car.", "Her car.", "swap"),
    pair("He ran.", "She ran.", "swap"),
]


def alice_model(texts: list[str]) -> list[float]:
    return [0.9 if "Alice" in t else 0.1 for t in texts]


# --------------------------------------------------------------------------- the metric


def test_the_rate_and_its_wilson_interval_by_hand() -> None:
    # 1 flip in 4: z = 1.959964, centre (1 + z^2/2) / (4 + z^2) = 0.372469,
    # half z sqrt(1*3/4 + z^2/4) / (4 + z^2) = 0.326884
    found = flip_rate(["a", "a", "a", "a"], ["b", "a", "a", "a"])
    assert found.overall.flips == 1
    assert found.overall.n == 4
    assert found.overall.rate == 0.25
    assert found.overall.low == pytest.approx(0.045587, abs=2e-6)
    assert found.overall.high == pytest.approx(0.699358, abs=2e-6)
    assert found.groups == {}
    assert found.worst_group is None


def test_groups_against_scipy() -> None:
    from scipy.stats import binomtest

    found = flip_rate(["x", "x", "x", "y", "y"], ["y", "y", "x", "y", "y"],
                      ["k1", "k1", "k1", "k2", "k2"], confidence=0.9)
    k1, k2 = found.groups["k1"], found.groups["k2"]
    assert (k1.flips, k1.n, k2.flips, k2.n) == (2, 3, 0, 2)
    ref = binomtest(2, 3).proportion_ci(confidence_level=0.9, method="wilson")
    assert (k1.low, k1.high) == pytest.approx((ref.low, ref.high), abs=1e-9)
    assert found.worst_group == "k1"
    exact = flip_rate(["x"] * 3, ["y", "y", "x"], method="clopper-pearson")
    ref = binomtest(2, 3).proportion_ci(method="exact")
    assert (exact.overall.low, exact.overall.high) == pytest.approx((ref.low, ref.high),
                                                                    abs=1e-6)


@given(st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from("ab"),
                          st.sampled_from(["g1", "g2", "g3"])), min_size=1, max_size=40))
def test_property_counts_add_up_and_the_interval_holds_the_rate(
        rows: list[tuple[str, str, str]]) -> None:
    found = flip_rate([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    assert found.overall.flips == sum(a != b for a, b, _ in rows)
    assert sum(s.flips for s in found.groups.values()) == found.overall.flips
    assert sum(s.n for s in found.groups.values()) == len(rows)
    for share in (found.overall, *found.groups.values()):
        assert 0.0 <= share.low <= share.rate <= share.high <= 1.0


@pytest.mark.parametrize(("original", "perturbed", "groups"), [
    ([], [], None), (["a"], ["a", "b"], None), (["a"], ["b"], ["g", "h"])])
def test_the_metric_names_bad_input(original: list[str], perturbed: list[str],
                                    groups: list[str] | None) -> None:
    with pytest.raises(pf.ConfigurationError, match="flip_rate needs"):
        flip_rate(original, perturbed, groups)


# --------------------------------------------------------------------------- the relation


def test_a_fair_model_passes_and_the_chart_has_a_bar_per_kind() -> None:
    with capture() as state:
        pf.assert_flip_rate_below(lambda ts: [0.2] * len(ts), PAIRS, max_rate=0.0,
                                  threshold=0.5)
        [recorded] = state.results
    assert recorded["relation"] == "flip_rate"
    assert recorded["passed"] is True
    assert recorded["n_inputs"] == 6
    [chart] = recorded["sections"]
    assert chart["type"] == "bar_chart"
    assert chart["title"] == "Flip rate per kind"
    assert dict(map(tuple, chart["bars"])) == {"name": 0.0, "swap": 0.0}


def test_a_flipping_model_fails_on_the_whole_interval_above_the_bound() -> None:
    # 2 flips in 6: centre (2 + z^2/2) / (6 + z^2) = 0.39840, half
    # z sqrt(2*4/6 + z^2/4) / (6 + z^2) = 0.30162: the Wilson 95% interval is
    # (0.09678, 0.70002); its lower end is above 0.05 (fails) and below 0.1 (passes).
    with capture() as state:
        with pytest.raises(pf.FairnessViolation) as exc:
            pf.assert_flip_rate_below(alice_model, PAIRS, max_rate=0.05, threshold=0.5)
        pf.assert_flip_rate_below(alice_model, PAIRS, max_rate=0.1, threshold=0.5)
        failed, passed = state.results
    message = str(exc.value)
    assert message.startswith("flip_rate failed: at most 0.05 of the perturbations")
    assert "Alice left." in message
    assert "Alice is a doctor." in message
    assert failed["passed"] is False
    assert passed["passed"] is True
    assert failed["n_violations"] == 2
    assert len(failed["violations"]) == 2
    [chart] = failed["sections"]
    bars = dict(map(tuple, chart["bars"]))
    assert bars["name"] == pytest.approx(2 / 3)
    assert bars["swap"] == 0.0
    judged = [m for m in failed["measurements"] if m["bound"] is not None]
    assert judged[0]["value"] == pytest.approx(0.09677, abs=1e-4)  # Wilson lower end


def test_without_an_interval_the_point_estimate_is_judged() -> None:
    with pytest.raises(pf.FairnessViolation):
        pf.assert_flip_rate_below(alice_model, PAIRS, max_rate=0.3, threshold=0.5,
                                  confidence=None)
    pf.assert_flip_rate_below(alice_model, PAIRS, max_rate=1 / 3, threshold=0.5,
                              confidence=None)


def test_grouped_by_target_group_and_a_text_with_its_perturbations() -> None:
    with capture() as state:
        pf.assert_flip_rate_below(alice_model, "He is a doctor.",
                                  ["Bob is a doctor.", "Carl is a doctor."],
                                  max_rate=0.0, by="to_group", threshold=0.5)
        [recorded] = state.results
    assert dict(map(tuple, recorded["sections"][0]["bars"])) == {"(none)": 0.0}


def test_nothing_scored_is_nothing_judged() -> None:
    # a remote scorer skips texts longer than its max_length: here every text
    model = pf.as_model(lambda ts: [0.5] * len(ts), remote=True, max_length=3,
                        output="score", labels=("neg", "pos"))
    with pytest.raises(pf.NothingJudgedError, match="flip_rate judged nothing"):
        pf.assert_flip_rate_below(model, PAIRS, max_rate=0.1, threshold=0.5)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"max_rate": 1.5}, "max_rate"),
    ({"max_rate": math.nan}, "max_rate"),
    ({"max_rate": "0.1"}, "max_rate"),
    ({"max_rate": 0.1, "by": "gendér\x1b"}, "by must be one of"),
    ({"max_rate": 0.1, "confidence": 1.0}, "confidence"),
    ({"max_rate": 0.1, "interval": "exact"}, "interval must be"),
    ({"max_rate": 0.1, "show": -1}, "show"),
])
def test_bad_arguments_are_named(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(pf.ConfigurationError, match=match):
        pf.assert_flip_rate_below(alice_model, PAIRS, **kwargs)  # type: ignore[arg-type]


def test_a_relation_of_ones_own_runs_on_the_same_pipeline() -> None:
    class ShareEmpty(pf.Relation[list[str], float]):
        name = "share_empty"

        def measure(self, inputs: list[str]) -> float:
            return sum(not t for t in inputs) / len(inputs) if inputs else math.nan

        def present(self, inputs: list[str], measured: float, *, show: int) -> pf.Presented:
            return pf.Presented(measurements=[pf.Measurement("share empty", measured, 0.25)],
                                statement="at most a quarter of the answers may be empty",
                                n_inputs=len(inputs))

    with capture() as state:
        ShareEmpty().check(lambda: ["a", "", "b", "c"])
        with pytest.raises(pf.FairnessViolation, match="share_empty failed: at most a q"):
            ShareEmpty().check(lambda: ["", "", "b"])
        with pytest.raises(pf.NothingJudgedError):
            ShareEmpty().check(lambda: [])  # no value to judge: judged nothing
    assert [r["passed"] for r in state.results] == [True, False]
    with pytest.raises(pf.ConfigurationError, match="takes a function"):
        ShareEmpty().check(["a"])  # type: ignore[arg-type]
